"""Issue 15, the data behind the player's side panel: summary statistics and a histogram of a large
tensor (``trace(stats=True)``), what each hook changed (``HookRan.before`` / ``after``), anomaly mode's
forward traceback (``OpRecorded.traceback``), and a tape's JSON that names no machine path. The front
end's rendering of them is run under Node from the shipped bundle; tests/browser clicks them in Chromium."""
import inspect
import json
import math
import os
import warnings

import numpy as np
import pytest

import autogradlab as ag
from autogradlab import events as ev
from autogradlab.viz.playerdata import player_data
from node_harness import run_with_bundle


def _line_of(fn, marker):
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, text in enumerate(lines) if marker in text)


# -- large tensors: statistics and a histogram, computed in the kernel ----------------------------------

def _planted(n=300):
    rng = np.random.default_rng(3)
    a = rng.normal(2.0, 0.5, size=n)
    a[[5, 17]] = np.nan
    a[40], a[41], a[42] = np.inf, -np.inf, np.inf
    return a


def test_stats_of_a_large_array_are_numpys():
    a = _planted()
    st = ev.records.array_stats(a)
    finite = a[np.isfinite(a)]
    assert (st.nan, st.posinf, st.neginf) == (2, 2, 1)
    assert st.mean == pytest.approx(finite.mean(), rel=1e-12)
    assert st.std == pytest.approx(finite.std(), rel=1e-12)
    assert (st.lo, st.hi) == (finite.min(), finite.max())
    counts, _ = np.histogram(finite, bins=ev.records.HIST_BINS, range=(finite.min(), finite.max()))
    assert st.hist == tuple(counts.tolist()) and sum(st.hist) == finite.size


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32])
def test_the_histogram_counts_as_numpy_histogram_in_every_dtype(dtype):
    """numpy makes a float32 (float16) array's bin edges in float32 (float16): an element next to an edge
    falls in the bin numpy puts it in, not the one float64 edges would."""
    rng = np.random.default_rng(7)
    for trial in range(60):
        a = rng.standard_normal(int(rng.integers(2, 3000))) * 10.0 ** int(rng.integers(-3, 4))
        if trial % 3 == 0:
            a = np.round(a * 4) / 4                       # many ties, some right on an edge
        if trial % 5 == 0:
            a = rng.integers(0, 7, a.size) * (0.1 if dtype != np.int32 else 1)
        a = a.astype(dtype)
        want = np.histogram(a, bins=ev.records.HIST_BINS)[0]
        assert ev.records.array_stats(a).hist == tuple(want.tolist()), (trial, a.size)


def test_stats_of_a_constant_and_of_an_all_nan_array():
    st = ev.records.array_stats(np.full((20, 10), 3.0))
    assert (st.mean, st.std, st.lo, st.hi) == (3.0, 0.0, 3.0, 3.0) and sum(st.hist) == 200
    st = ev.records.array_stats(np.full(200, np.nan))
    assert st.nan == 200 and st.mean is None and st.lo is None and sum(st.hist) == 0


def test_trace_with_stats_gives_large_values_statistics_and_small_ones_none():
    x = ag.tensor(np.linspace(-1.0, 1.0, 400).reshape(20, 20), requires_grad=True, name="x")
    s = ag.tensor([1.0, 2.0], requires_grad=True, name="s")
    with ag.trace(stats=True) as tape:
        y = (x * 3.0).tanh().sum() + (s * s).sum()
        y.backward()
    tanh = next(e for e in tape.of_kind("OpRecorded") if e.op == "tanh")
    assert tanh.value.data is None and tanh.value.stats is not None       # summarised, with statistics
    want = np.tanh(np.linspace(-1.0, 1.0, 400) * 3.0)
    assert tanh.value.stats.mean == pytest.approx(want.mean(), abs=1e-12)
    assert tanh.value.stats.std == pytest.approx(want.std(), rel=1e-9)
    assert tanh.value.stats.hist == tuple(np.histogram(want, 16, (want.min(), want.max()))[0].tolist())
    leaf = next(e for e in tape.of_kind("Accumulated") if e.where == "leaf" and e.tensor.name == "x")
    g = x.grad.numpy()
    assert leaf.after.stats.mean == pytest.approx(g.mean(), rel=1e-9)
    small = next(e for e in tape.of_kind("Accumulated") if e.where == "leaf" and e.tensor.name == "s")
    assert small.after.stats is None and small.after.data == (2.0, 4.0)  # a table, no statistics
    # off by default: a plain trace copies no statistics
    with ag.trace() as plain:
        (x * 3.0).tanh().sum().backward()
    assert all(getattr(e, "value", None) is None or e.value.stats is None for e in plain.events)


def test_stats_survive_json_and_reach_the_player_data():
    x = ag.tensor(_planted(), requires_grad=True, name="x")
    with ag.trace(stats=True) as tape:
        (x * 2.0).sum().backward()
    text = tape.to_json()
    back = ev.Tape.from_json(text)
    assert back.to_json() == text and back.stats   # (events hold NaN: compare the text)
    assert back.of_kind("OpRecorded")[0].value.stats == tape.of_kind("OpRecorded")[0].value.stats
    data = player_data(tape)
    mul = next(n for n in data["nodes"] if n["kind"] == "op" and n["lines"][0] == "mul")
    st = mul["value"]["stats"]
    assert (st["nan"], st["posinf"], st["neginf"]) == (2, 2, 1) and len(st["hist"]) == 16
    finite = (_planted() * 2.0)[np.isfinite(_planted())]
    assert st["mean"] == pytest.approx(finite.mean()) and sum(st["hist"]) == finite.size
    json.dumps(data, allow_nan=False)   # plain JSON all the way


def test_a_tape_without_stats_encodes_as_before():
    x = ag.tensor(np.ones(100), requires_grad=True)
    with ag.trace() as tape:
        (x * 2.0).sum().backward()
    assert '"stats"' not in tape.to_json()


# -- hooks: the gradient before and after each one ----------------------------------------------------

def test_hook_events_carry_the_gradient_before_and_after():
    x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")
    w = ag.tensor([3.0, -1.0], requires_grad=True, name="w")
    seen_acc = []
    with ag.trace() as tape:
        h = x * w
        h.register_hook(lambda g: g * 10.0)                     # tensor hook on a non-leaf
        x.register_hook(lambda g: g + 1.0)                      # tensor hook on a leaf
        w.register_hook(lambda g: None)                         # looks, changes nothing
        w.register_post_accumulate_grad_hook(lambda t: seen_acc.append(t.grad.numpy().tolist()))
        h.grad_fn.register_prehook(lambda gout: (gout[0] * 2.0,))
        h.grad_fn.register_hook(lambda gin, gout: (gin[0] - 1.0, gin[1]))
        h.sum().backward()
    hooks = tape.of_kind("HookRan")
    by = {(e.hook, e.node_id): e for e in hooks}
    mul = next(e.node_id for e in tape.of_kind("OpRecorded") if e.op == "mul")
    tensor_h = by[("tensor", mul)]
    assert tensor_h.changed and tensor_h.before[0].data == (1.0, 1.0) and tensor_h.after[0].data == (10.0, 10.0)
    pre = by[("node_pre", mul)]
    assert pre.before[0].data == (10.0, 10.0) and pre.after[0].data == (20.0, 20.0)
    post = by[("node_post", mul)]
    # d(x*w)/dx = w, d(x*w)/dw = x, times the upstream 20
    assert [v.data for v in post.before] == [(60.0, -20.0), (20.0, 40.0)]
    assert [v.data for v in post.after] == [(59.0, -21.0), (20.0, 40.0)]
    leaf_x = next(e for e in hooks if e.hook == "tensor" and e.node_id != mul and e.changed)
    assert leaf_x.before[0].data == (59.0, -21.0) and leaf_x.after[0].data == (60.0, -20.0)
    assert x.grad.numpy().tolist() == [60.0, -20.0]            # the engine went on with `after`
    looks = next(e for e in hooks if e.hook == "tensor" and not e.changed)
    assert looks.before == looks.after and looks.before[0].data == (20.0, 40.0)
    acc = next(e for e in hooks if e.hook == "post_accumulate")
    assert acc.after[0].data == tuple(seen_acc[0]) == (20.0, 40.0)
    back = ev.Tape.from_json(tape.to_json())
    assert back.events == tape.events
    caps = player_data(tape)["captions"]
    assert "the gradient was [1, 1], now [10, 10]" in caps[tensor_h.step]
    assert "stays [20, 40]" in caps[looks.step]


# -- anomaly mode: the forward traceback, and the NaN it stops at ----------------------------------------

def _sqrt_at_zero():
    x = ag.tensor([0.0, 4.0], requires_grad=True, name="x")
    return x, x.sqrt()                               # planted: d sqrt/dx at 0 is inf


def test_anomaly_mode_records_the_forward_traceback_of_each_op():
    with ag.trace() as tape:
        with ag.autograd.detect_anomaly():
            x, r = _sqrt_at_zero()
            y = (r * 2.0).sum()                      # anomaly: mul
        z = y * 1.0                                  # recorded outside anomaly mode
    ops = {}
    for e in tape.of_kind("OpRecorded"):
        ops.setdefault(e.op, e)                      # the first mul (z's is the last op)
    tb = ops["sqrt"].traceback
    here = ev.records.portable_path(__file__)
    assert tb[-1].function == "_sqrt_at_zero" and tb[-1].file == here
    assert tb[-1].line == _line_of(_sqrt_at_zero, "x.sqrt()")
    assert tb[-2].function == "test_anomaly_mode_records_the_forward_traceback_of_each_op"
    assert all(not f.file.startswith("/") for f in tb)           # no machine path
    assert ops["mul"].traceback[-1].text.endswith("# anomaly: mul")
    assert ops["mul"].traceback[-1].function == "test_anomaly_mode_records_the_forward_traceback_of_each_op"
    last = tape.of_kind("OpRecorded")[-1]
    assert last.traceback is None                    # z was recorded outside anomaly mode
    back = ev.Tape.from_json(tape.to_json())
    assert back.events == tape.events
    data = player_data(tape, phase="forward")
    assert data["tracebacks"][str(ops["sqrt"].node_id)][-1] == {
        "where": f"test_inspector_data.py, line {tb[-1].line}", "text": "return x, x.sqrt()                               # planted: d sqrt/dx at 0 is inf",
        "function": "_sqrt_at_zero"}


def test_a_backward_in_anomaly_mode_stops_at_the_nan_and_the_tape_shows_it():
    with ag.autograd.detect_anomaly():
        x = ag.tensor([0.0, 4.0], requires_grad=True, name="x")
        y = (x.sqrt() * 0.0).sum()                   # 0 * inf = nan in sqrt's backward
    with warnings.catch_warnings(), ag.trace() as tape:
        warnings.simplefilter("ignore")
        with ag.autograd.detect_anomaly(), pytest.raises(RuntimeError, match="SqrtBackward"):
            y.backward()
    bad = tape.events[-1]
    assert type(bad).__name__ == "GradientComputed" and bad.node_name == "SqrtBackward"
    assert math.isnan(bad.contribution.data[0])       # the NaN is in the tape, at the step it appeared
    assert x.grad is None


# -- the saved tape names no machine path ---------------------------------------------------------------

def test_to_json_stores_no_absolute_path(tmp_path):
    a = ag.tensor([1.0, 2.0], requires_grad=True)
    with ag.trace() as tape, ag.autograd.detect_anomaly():
        (a * a).sum().backward()
    text = tape.to_json()
    here = os.path.abspath(__file__)
    assert here not in text and os.path.dirname(here) not in text
    assert os.getcwd() == os.sep or os.getcwd() not in text
    files = {e.source.file for e in tape.of_kind("OpRecorded")}
    files |= {f.file for e in tape.of_kind("OpRecorded") for f in e.traceback}
    assert files and all(not os.path.isabs(f) for f in files)
    assert ev.records.portable_path(__file__) in files


def test_portable_paths_cells_relative_and_elsewhere():
    cell = ev.SourceLine("/tmp/ipykernel_4242/1234567.py", 3, "y = x * 2")
    assert cell.portable() == ev.SourceLine("<cell>", 3, "y = x * 2")
    assert cell.portable().in_cell and cell.portable().label() == "cell, line 3"
    inside = ev.SourceLine(os.path.join(os.getcwd(), "lab", "train.py"), 12, "")
    assert inside.portable().file == "lab/train.py"
    outside = ev.SourceLine("/home/someone/elsewhere/train.py", 12, "")
    assert outside.portable().file == "train.py" and outside.portable().label() == "train.py, line 12"
    assert ev.SourceLine("<stdin>", 1, "").portable().file == "<stdin>"


def test_a_cell_line_is_saved_as_cell(tmp_path):
    """A tape made in an IPython cell (whose file is a temporary path) saves the cell as ``<cell>``."""
    code = compile("y = (a * a).sum()\n", "/tmp/ipykernel_99/abc.py", "exec")
    a = ag.tensor([1.0, 2.0], requires_grad=True)
    with ag.trace() as tape:
        exec(code, {"a": a})
    rec = tape.of_kind("OpRecorded")[0]
    assert rec.source.file == "<cell>" and rec.source.label() == "cell, line 1"
    assert "ipykernel" not in tape.to_json()


# -- the front end renders them (the shipped bundle under Node) ------------------------------------------

HARNESS = r"""
import { readFileSync } from "node:fs";
await import(process.argv[2]);
const { valueHtml, firstAnomaly, anomalyNote, alignSteps } = globalThis.autogradlabPlayer;
const q = JSON.parse(readFileSync(0, "utf8"));
const out = { values: q.values.map(valueHtml) };
if (q.align) out.align = alignSteps(...q.align);
if (q.data) { const a = firstAnomaly(q.data); out.anomaly = a; out.note = anomalyNote(q.data, a, a.step); }
process.stdout.write(JSON.stringify(out));
"""


def run_front_end(query, tmp_path):
    return run_with_bundle(HARNESS, query, tmp_path)


def test_front_end_shows_a_table_statistics_and_a_histogram_or_a_hint(tmp_path):
    x = ag.tensor(_planted(), requires_grad=True, name="x")
    with ag.trace(stats=True) as tape:
        (x * 2.0).sum().backward()
    with ag.trace() as plain:
        (x * 2.0).sum().backward()
    big = ev._enc(tape.of_kind("OpRecorded")[0].value)
    summarised = ev._enc(plain.of_kind("OpRecorded")[0].value)
    small = ev._enc(ev.snapshot(np.array([[1.0, 2.5], [3.0, -4.0]])))
    got = run_front_end({"values": [small, big, summarised]}, tmp_path)["values"]
    assert "<table class=\"agl-heat\">" in got[0] and ">2.5<" in got[0] and "rgba(86,180,233,0.62)" in got[0] and "agl-hist" not in got[0]
    st = tape.of_kind("OpRecorded")[0].value.stats
    assert f'data-counts="{",".join(map(str, st.hist))}"' in got[1]
    assert f'data-stat="mean">{st.mean:.4g}<' in got[1] and 'data-stat="nan">2<' in got[1]
    assert 'data-stat="inf">2 / 1<' in got[1] and "[300] (300 elements)" in got[1]
    assert "trace(stats=True)" in got[2] and "agl-hist" not in got[2]


def test_front_end_anomaly_note_shows_where_the_op_was_created(tmp_path):
    with warnings.catch_warnings(), ag.trace() as tape:
        warnings.simplefilter("ignore")
        with ag.autograd.detect_anomaly():
            x, r = _sqrt_at_zero()
        (r * 2.0).sum().backward()
    data = player_data(tape, phase="all")
    got = run_front_end({"values": [], "data": data}, tmp_path)
    first = next(e for e in tape.events if type(e).__name__ == "GradientComputed"
                 and any(not math.isfinite(v) for v in e.contribution.data))
    assert got["anomaly"]["step"] == first.step and got["anomaly"]["opNode"] == first.node_id
    assert first.node_name == "SqrtBackward"
    line = _line_of(_sqrt_at_zero, "x.sqrt()")
    assert f"test_inspector_data.py, line {line}" in got["note"] and "_sqrt_at_zero" in got["note"]


# -- diff: two passes of one tape (accumulation), two tapes side by side ----------------------------------

def test_diff_of_two_passes_marks_exactly_the_leaves_whose_grad_accumulated():
    from autogradlab.viz.playerdata import diff_data

    x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")
    w = ag.tensor([3.0, -1.0], requires_grad=True, name="w")
    with ag.trace() as tape:
        y = (x * w + x).sum()
        y.backward(retain_graph=True)
        after_first = x.grad.numpy().tolist()
        y.backward()
    d = diff_data(tape)
    name = {n["key"]: n["lines"][0] for n in d["nodes"]}
    # the forward values and every gradient an op received are the same in both passes; only the
    # leaves' .grad differ: the second pass added to the first
    assert {name[k]: v["fields"] for k, v in d["diff"]["nodes"].items()} == {"x (leaf)": ["grad"], "w (leaf)": ["grad"]}
    x_key = next(k for k, v in name.items() if v == "x (leaf)")
    assert d["diff"]["nodes"][x_key]["a"]["grad"]["data"] == after_first == [4.0, -0.0]
    assert d["diff"]["nodes"][x_key]["b"]["grad"]["data"] == x.grad.numpy().tolist() == [8.0, 0.0]
    starts = [e.step for e in tape.of_kind("BackwardStarted")]
    ends = [e.step for e in tape.of_kind("BackwardFinished")]
    assert (d["diff"]["left"]["start"], d["diff"]["left"]["end"]) == (starts[0], ends[0])
    assert (d["start"], d["end"]) == (starts[1], ends[1]) and d["diff"]["labels"] == ["pass 0", "pass 1"]
    with ag.trace() as once:
        (x * w).sum().backward()
    with pytest.raises(ValueError, match="retain_graph=True"):
        diff_data(once)
    with pytest.raises(ValueError, match="two passes of one tape"):
        diff_data(tape, once, passes=(0, 1))


def test_diff_of_two_tapes_sends_the_first_beside_the_second():
    from autogradlab import viz

    def run(w_values):
        x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")
        w = ag.tensor(w_values, requires_grad=True, name="w")
        with ag.trace() as tape:
            (x * w + x).sum().backward()
        return tape

    a, b = run([3.0, -1.0]), run([3.0, -2.0])
    p = viz.diff(a, b)
    left = p.data["diff"]["left"]["data"]
    assert left["events"] == player_data(a)["events"] and p.data["events"] == player_data(b)["events"]
    assert p.data["diff"]["labels"] == ["first", "second"]


def test_the_error_frame_of_an_anomaly_mode_backward_names_no_machine_path():
    from autogradlab import viz

    with ag.autograd.detect_anomaly():
        x = ag.tensor([0.0, 4.0], requires_grad=True, name="x")
        y = (x.sqrt() * 0.0).sum()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p = viz.play_backward(y, stats=True)
    import html
    err = html.unescape(p.data["error"])
    assert "SqrtBackward" in err and "Traceback of forward call" in err
    assert os.path.abspath(__file__) not in err and (os.getcwd() == os.sep or os.getcwd() not in err)
    assert 'File "' + ev.records.portable_path(__file__) + '"' in err
    # the pass's events reach the NaN before the error frame
    assert any(e["kind"] == "GradientComputed" and e["node_name"] == "SqrtBackward" for e in p.data["events"])


def test_front_end_links_the_two_passes_step_by_matching_step(tmp_path):
    """Stepping one side of a diff moves the other to the event of the same kind about the same node:
    pass 1 frees saved tensors (retain_graph=False) where pass 0 did not, and the steps still line up."""
    from autogradlab.viz.playerdata import diff_data

    x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")
    with ag.trace() as tape:
        y = (x * x).sin().sum()
        y.backward(retain_graph=True)
        y.backward()
    d = diff_data(tape)
    lo_a, hi_a = d["diff"]["left"]["start"], d["diff"]["left"]["end"]
    got = run_front_end({"values": [], "align": [d["events"], lo_a, hi_a, d["events"], d["start"], d["end"]]},
                        tmp_path)["align"]
    ev_ = tape.events
    assert len(tape.of_kind("SavedFreed")) >= 2 and (hi_a - lo_a) < (d["end"] - d["start"])
    key = lambda e: (type(e).__name__, getattr(e, "node_id", None), getattr(e, "input_index", None),
                     getattr(e, "where", None))
    for k in range(lo_a, hi_a + 1):
        m = got[str(k)]
        assert d["start"] <= m <= d["end"] and key(ev_[m]) == key(ev_[k]), (k, m)
    assert got[str(hi_a)] == d["end"]          # the end of pass 0 is the end of pass 1


def test_diff_of_hand_computed_gradients_marks_exactly_the_wrong_ones():
    from autogradlab import viz
    from autogradlab.viz.playerdata import diff_data

    x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")
    w = ag.tensor([3.0, -1.0], requires_grad=True, name="w")
    with ag.trace() as tape:
        h = x * w
        (h + x).sum().backward()
    # by hand: dL/dx = w + 1, dL/dw = x, dL/dh = 1; the student got dL/dw wrong (forgot it is x, wrote w)
    mine = {"x": [4.0, 0.0], "w": [3.0, -1.0], h: [1.0, 1.0]}
    d = diff_data(tape, expected=mine)
    name = {n["key"]: n["lines"][0] for n in d["nodes"]}
    assert [name[k] for k in d["diff"]["keys"]] == ["w (leaf)"]
    w_key = d["diff"]["keys"][0]
    assert d["diff"]["nodes"][w_key]["a"]["grad"]["data"] == [3.0, -1.0]
    assert d["diff"]["nodes"][w_key]["b"]["grad"]["data"] == w.grad.numpy().tolist() == [1.0, 2.0]
    assert d["diff"]["labels"] == ["yours", "engine"] and len(d["diff"]["checked"]) == 3
    assert "left" not in d["diff"]                                     # one graph, the marks on it
    assert viz.diff(tape, expected={"x": [4.0, 0.0], "w": [1.0, 2.0]}).data["diff"]["keys"] == []
    with pytest.raises(ValueError, match="not a tensor of this tape's graph"):
        diff_data(tape, expected={"v": [1.0, 2.0]})
    with pytest.raises(ValueError, match="has shape"):
        diff_data(tape, expected={"x": [1.0, 2.0, 3.0]})


def test_diff_takes_an_exact_zero_for_float32_rounding_noise_but_not_a_real_difference():
    from autogradlab.viz.playerdata import diff_data

    x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")            # float32
    w = ag.tensor([1000.0, 1.0], requires_grad=True, name="w")
    with ag.trace() as tape:
        (x * 0.1 + x * 0.2 - x * 0.3).sum().backward()                 # dy/dx = 0 by hand
        (w * w).sum().backward()                                       # dy/dw = [2000, 2]
    assert x.grad.numpy().tolist() != [0.0, 0.0]                       # (the engine's float32 noise)
    assert diff_data(tape, expected={"x": [0.0, 0.0], "w": [2000.0, 2.0]})["diff"]["keys"] == []
    assert diff_data(tape, expected={"w": [2000.0, 2.0 + 1e-5]})["diff"]["keys"] == []   # small next to 2000
    d = diff_data(tape, expected={"x": [0.0, 1e-3], "w": [2000.0, 2.5]})
    assert sorted(n["lines"][0].split(" (")[0] for n in d["nodes"] if n["key"] in d["diff"]["keys"]) == ["w", "x"]
    with ag.trace() as tape64:                                         # float64: eps 2.2e-16, rtol 1e-6
        v = ag.tensor([1.0, 2.0], dtype=ag.float64, requires_grad=True, name="v")
        (v * 3.0).sum().backward()
    assert diff_data(tape64, expected={"v": [3.0, 3.0]})["diff"]["keys"] == []
    assert diff_data(tape64, expected={"v": [3.0, 3.0 + 1e-4]})["diff"]["keys"] != []


def test_the_kernel_and_the_front_end_agree_on_what_fits_a_table(tmp_path):
    """Every shape the front end draws as a table gets no Stats, every other one does (trace(stats=True))."""
    shapes = [(), (12,), (13,), (12, 12), (1, 13), (13, 1), (2, 2, 2), (100,)]
    values = [ev._enc(ev.snapshot(np.arange(int(np.prod(s)), dtype=float).reshape(s), 10 ** 6, stats=True))
              for s in shapes]
    got = run_front_end({"values": values}, tmp_path)["values"]
    for shape, v, html in zip(shapes, values, got):
        table = ev.records.fits_a_table(shape)
        assert (v.get("stats") is None) == table, shape
        assert ("agl-stats" in html) == (not table) and ("agl-heat" in html) == (table and len(shape) > 0), shape


def test_play_backward_gives_a_large_tensor_its_statistics_by_default():
    """viz.play_backward is asked for a picture: a tensor too large for a table gets mean, std and a
    histogram in its panel without stats=True (a plain trace() leaves them off to stay cheap)."""
    from autogradlab import viz

    rng = np.random.default_rng(0)
    w = ag.tensor(rng.normal(size=(20, 20)).astype("float32"), requires_grad=True, name="w")
    p = viz.play_backward((w * w).sum())
    found = []

    def collect(obj):  # every Value in the player's data that carries statistics
        if isinstance(obj, dict):
            if obj.get("@") == "Value" and obj.get("stats"):
                found.append(obj["stats"])
            for v in obj.values():
                collect(v)
        elif isinstance(obj, list):
            for v in obj:
                collect(v)

    collect(p.data["events"])
    grad = 2 * w._data  # w.grad, the sum of mul's two contributions
    assert any(abs(st["mean"] - float(grad.mean())) <= 1e-5 and abs(st["std"] - float(grad.std())) <= 1e-4
               and sum(st["hist"]) == grad.size for st in found)
    with ag.trace() as tape:
        (w * w).sum().backward()
    assert all(e.contribution.stats is None for e in tape.of_kind("Accumulated"))
