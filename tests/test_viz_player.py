"""The browser player, kernel side: the data the kernel sends once (events, graph, captions, the
maps from engine node ids to drawn nodes), the widget's traits and repr, and the HTML export. The
front end's own frame logic is checked here too, by running the shipped bundle's ``fold`` and
``statuses`` under Node against ``Tape.replay`` at every step; tests/browser drives it in Chromium."""
import json
import math
import pathlib
import re
import shutil
import subprocess

import pytest

import autogradlab as ag
from autogradlab import nn, viz
from autogradlab.events import Tape
from autogradlab.viz.playerdata import player_data
from autogradlab.viz.widget import BUNDLE, Player
from node_harness import run_with_bundle


def traced_ab(**backward):
    """y = a * b + a, a = 2, b = 3 (a has fan-in: it feeds the product and the sum)."""
    a = ag.tensor(2.0, requires_grad=True, name="a")
    b = ag.tensor(3.0, requires_grad=True, name="b")
    with ag.trace() as tape:
        y = a * b + a
        y.backward(**backward)
    return tape, a, b, y


def node(data, key):
    return next(n for n in data["nodes"] if n["key"] == key)


def node_named(data, name):
    return next(n for n in data["nodes"] if n["lines"][0].split(" ")[0] == name)


# -- the data the kernel sends ------------------------------------------------------------------------

def test_events_are_the_tapes_own_json_and_every_event_has_a_caption():
    tape, *_ = traced_ab()
    d = player_data(tape)
    own = json.loads(tape.to_json())["events"]
    for raw in own:  # each op's source line travels in d["sources"], without the file's path
        raw.pop("source", None)
    assert d["events"] == own
    assert len(d["captions"]) == len(tape)
    for k, cap in enumerate(d["captions"]):
        assert cap.startswith(f"<b>Step {k} &middot; {type(tape.events[k]).__name__}</b>")
    json.dumps(d, allow_nan=False)   # plain JSON, ready for the comm and the export


def test_backward_phase_starts_at_the_first_backward_and_forward_phase_ends_before_it():
    tape, *_ = traced_ab()
    first = tape.of_kind("BackwardStarted")[0].step
    d = player_data(tape)
    assert (d["phase"], d["start"], d["end"]) == ("backward", first, len(tape) - 1)
    f = player_data(tape, phase="forward")
    assert (f["start"], f["end"]) == (0, first - 1)
    assert player_data(tape, phase="all")["start"] == 0
    with pytest.raises(ValueError, match="phase must be one of"):
        player_data(tape, phase="sideways")
    with ag.trace() as fwd_only:
        ag.tensor(1.0, requires_grad=True) * 2
    with pytest.raises(ValueError, match="no backward pass"):
        player_data(fwd_only, phase="backward")


def test_engine_node_ids_map_to_the_drawn_nodes_the_events_name():
    tape, a, b, y = traced_ab()
    d = player_data(tape)
    by_engine = {nid: n["key"] for n in d["nodes"] for nid in n["engine_nodes"]}
    for e in tape.of_kind("OpRecorded"):
        assert node(d, by_engine[e.node_id])["kind"] == "op"
        assert node(d, by_engine[e.node_id])["lines"][0] == e.op
    for e in tape.of_kind("GradientComputed"):
        if e.input is not None and e.input.leaf:     # the leaf's AccumulateGrad is its box
            n = node(d, by_engine[e.to_node_id])
            assert n["tensor"] == e.input.tensor_id and n["kind"] == "param"
    # every chain-rule edge of the tape has a drawn edge from the input's node to the op's node
    edges = {e["id"]: e for e in d["edges"]}
    for e in tape.of_kind("GradientComputed"):
        drawn = edges[d["edge_of"][f"{e.node_id}-{e.input_index}"]]
        assert drawn["dst"] == by_engine[e.node_id]
        assert drawn["src"] == d["tensor_node"][str(e.input.tensor_id)]


def test_node_labels_carry_names_shapes_values_saved_tensors_and_formulas():
    tape, *_ = traced_ab()
    d = player_data(tape)
    a = node_named(d, "a")
    assert a["lines"] == ["a (leaf)", "float32 scalar", "= 2"] and a["grad_slot"] and a["root"] is False
    mul = node_named(d, "mul")
    assert mul["lines"][1].startswith("MulBackward #") and mul["lines"][2] == "saves: self, other"
    assert mul["formulas"] == ["d(a * b)/da = b", "d(a * b)/db = a"]
    roots = [n for n in d["nodes"] if n["root"]]
    assert len(roots) == 1 and "(root)" in roots[0]["lines"][0]


def test_module_parameters_show_their_names():
    ag.manual_seed(0)
    net = nn.Sequential(nn.Linear(3, 2), nn.Tanh(), nn.Linear(2, 1))
    x = ag.ones(4, 3)
    with ag.trace() as tape:
        net(x).sum().backward()
    plain = player_data(tape)
    assert not any(n["lines"][0].startswith("0.weight") for n in plain["nodes"])
    d = player_data(tape, names=net)
    firsts = {n["lines"][0] for n in d["nodes"] if n["kind"] == "param"}
    assert firsts == {"0.weight (leaf)", "0.bias (leaf)", "2.weight (leaf)", "2.bias (leaf)"}
    assert any("0.weight" in c for c in d["captions"])
    assert player_data(tape, names=dict(net.named_parameters()))["nodes"] == d["nodes"]


def test_error_frame_follows_the_last_event():
    a = ag.tensor(2.0, requires_grad=True, name="a")
    with ag.trace() as tape:
        y = a * a
        y.backward()
        with pytest.raises(RuntimeError) as info:
            y.backward()
    p = viz.play(tape, error=info.value)
    assert p.data["end"] == len(tape) - 1 and list(p.steps)[-1] == len(tape)
    assert "retain_graph=True" in p.data["error"] and "Error" in p.data["error"]


def test_a_tape_loaded_from_json_sends_the_same_data():
    tape, *_ = traced_ab()
    assert player_data(Tape.from_json(tape.to_json())) == player_data(tape)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_nan_values_stay_plain_json():
    x = ag.tensor([0.0, 1.0], requires_grad=True, name="x")
    with ag.trace() as tape:
        (x.log() * 0).sum().backward()
    d = player_data(tape)
    text = json.dumps(d, allow_nan=False)
    assert '{"float": "nan"}' in text or '{"float": "-inf"}' in text or '{"float": "inf"}' in text


def test_a_long_chain_collapses_into_one_node_that_stands_for_all_its_ops():
    x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")
    with ag.trace() as tape:
        h = x
        for _ in range(300):
            h = h * 1.01
        h.sum().backward()
    d = player_data(tape, max_nodes=50)
    assert len(d["nodes"]) <= 50
    chain = next(n for n in d["nodes"] if n["kind"] == "group")
    assert chain["lines"][0] == "mul \u00d7300" and len(chain["engine_nodes"]) == 300
    assert "repeated ops" in d["note"]


# -- the widget ---------------------------------------------------------------------------------------

def test_widget_is_an_anywidget_with_the_bundle_and_a_stable_text_repr():
    import anywidget

    tape, *_ = traced_ab()
    p = tape.play()
    assert isinstance(p, anywidget.AnyWidget) and isinstance(p, Player)
    esm = p._esm if isinstance(p._esm, str) else pathlib.Path(p._esm).read_text()
    assert esm == BUNDLE.read_text() and "export" in esm
    assert p.step == p.data["start"]
    assert repr(p) == f"Player(backward pass: steps {p.data['start']}..{len(tape) - 1}, {len(p.data['nodes'])} nodes)"
    assert "0x" not in repr(p)
    p.go(10_000)
    assert p.step == len(tape) - 1
    p.go(-5)
    assert p.step == p.data["start"]


def test_play_backward_runs_the_pass_and_shows_its_error():
    a = ag.tensor(2.0, requires_grad=True, name="a")
    b = ag.tensor(3.0, requires_grad=True, name="b")
    y = a * b + a                        # recorded outside any trace
    p = viz.play_backward(y)
    assert a.grad.item() == 4.0 and p.data["error"] is None
    assert {n["kind"] for n in p.data["nodes"]} >= {"op", "param"}
    again = viz.play_backward(y)         # freed: the call raises
    assert "backward through the graph a second time" in again.data["error"]
    assert a.grad.item() == 4.0


# -- the export --------------------------------------------------------------------------------------

def test_export_html_is_one_self_contained_file_with_the_bundle_and_the_data(tmp_path):
    tape, *_ = traced_ab()
    path = viz.export_html(tape, tmp_path / "player.html", title="a * b + a")
    page = path.read_text(encoding="utf-8")
    assert page.count("<script") == 3 and not re.search(r"<script[^>]+src=|<link[^>]+href=", page)
    assert "default-src 'none'" in page           # the page may not fetch anything, by policy
    raw = re.search(r'<script type="application/json" id="agl-data">(.*?)</script>', page, re.S).group(1)
    assert json.loads(raw) == player_data(tape)
    assert "</script" not in re.search(r'<script type="module">(.*?)</script>', page, re.S).group(1)
    assert tape.play().save_html(tmp_path / "p2.html").read_text().count('id="agl-data"') == 1


# -- the front end's frame logic, run under Node from the shipped bundle -----------------------------

NODE_HARNESS = r"""
import { readFileSync } from "node:fs";
await import(process.argv[2]);
const { fold, statuses, gradLine } = globalThis.autogradlabPlayer;
const data = JSON.parse(readFileSync(0, "utf8"));
const out = [];
for (let k = data.start; k <= data.end; k++) {
  const s = fold(data, k);
  const grads = {};
  for (const n of data.nodes) if (n.grad_slot) grads[n.key] = gradLine(n, s);
  out.push({ step: k, statuses: statuses(data, s), grads });
}
process.stdout.write(JSON.stringify(out));
"""


def run_front_end_fold(data, tmp_path):
    return run_with_bundle(NODE_HARNESS, data, tmp_path)


def expected_marks(tape, data, k):
    """done / pending / freed / pruned per drawn node after step k, from the engine's events."""
    s = tape.replay(k)
    in_pass = False
    for e in tape.events[:k + 1]:
        if type(e).__name__ == "BackwardStarted":
            in_pass = True
        elif type(e).__name__ == "BackwardFinished":
            in_pass = False
    out = {}
    for n in data["nodes"]:
        ids = set(n["engine_nodes"])
        marks = set()
        if n["kind"] == "group":   # a collapsed group: pruned when all its members are, done when all ran
            if ids and ids <= set(s.pruned):
                marks.add("agl-pruned")
            elif ids and ids <= set(s.ran) | set(s.pruned):
                marks.add("agl-done")
            elif in_pass and ids:
                marks.add("agl-pending")
        elif ids & set(s.pruned):
            marks.add("agl-pruned")
        elif ids & set(s.ran):
            marks.add("agl-done")
        elif in_pass and ids:
            marks.add("agl-pending")
        if ids & set(s.freed):
            marks.add("agl-freed")
        if s.current is not None and s.current in ids:
            marks.add("agl-current")
        out[n["key"]] = marks
    return out


@pytest.mark.parametrize("case", ["fan_in", "pruned", "retain_twice"])
def test_front_end_marks_match_the_engine_at_every_step(case, tmp_path):
    x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")
    w = ag.tensor([3.0, -1.0], requires_grad=True, name="w")
    with ag.trace() as tape:
        y = (x * w + x).sum()
        if case == "fan_in":
            y.backward()
        elif case == "pruned":
            y.backward(inputs=[w])
        else:
            y.backward(retain_graph=True)
            y.backward()
    data = player_data(tape, phase="all")
    frames = run_front_end_fold(data, tmp_path)
    assert [f["step"] for f in frames] == list(range(len(tape)))
    for f in frames:
        got = {k: set(v) - {"agl-future"} for k, v in f["statuses"].items()}
        assert got == expected_marks(tape, data, f["step"]), f"step {f['step']}"
    # each leaf's .grad line after the last step is the engine's .grad
    for leaf, tid in ((x, "0"), (w, "1")):
        line = frames[-1]["grads"][data["tensor_node"][tid]]
        if leaf.grad is None:
            assert line == "grad —"
        else:
            assert line == "grad [" + ", ".join(f"{v:g}" for v in leaf.grad.numpy().tolist()) + "]"
    if case == "pruned":
        assert x.grad is None
        assert any("agl-pruned" in v for f in frames for v in f["statuses"].values())


# -- the bundle is what js/ builds -----------------------------------------------------------------

def test_committed_bundle_equals_a_fresh_npm_build(tmp_path):
    repo = pathlib.Path(__file__).resolve().parent.parent
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        pytest.skip("node/npm are not installed: the committed bundle cannot be rebuilt here")
    js = tmp_path / "js"
    js.mkdir()
    for name in ("package.json", "package-lock.json", "build.mjs"):
        shutil.copy(repo / "js" / name, js / name)
    shutil.copytree(repo / "js" / "src", js / "src")
    out = tmp_path / "player.js"
    env = {**__import__("os").environ, "AGL_BUNDLE_OUT": str(out)}
    for cmd in (["ci", "--no-audit", "--no-fund", "--loglevel=error"], ["run", "build", "--silent"]):
        res = subprocess.run([npm, *cmd], cwd=js, env=env, capture_output=True, text=True, timeout=300)
        assert res.returncode == 0, f"npm {' '.join(cmd)} failed:\n{res.stdout}\n{res.stderr}"
    assert out.read_bytes() == BUNDLE.read_bytes(), \
        "autogradlab/viz/static/player.js differs from what js/ builds: run `cd js && npm ci && npm run build`"


def test_a_backward_only_tape_draws_the_whole_graph_from_the_engines_plan():
    x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")
    w = ag.tensor([3.0, 4.0], requires_grad=True, name="w")
    L = (x * w).exp().sum()                  # recorded outside the trace
    with ag.trace() as tape:
        L.backward(inputs=[x])
    assert not tape.of_kind("OpRecorded")
    plan = tape.of_kind("BackwardStarted")[0].plan
    d = player_data(tape)
    by_engine = {nid: n for n in d["nodes"] for nid in n["engine_nodes"]}
    assert set(by_engine) == {pn.node_id for pn in plan.nodes}     # every planned node is drawn
    pruned = [pn for pn in plan.nodes if pn.status == "pruned"]
    assert pruned and all(by_engine[pn.node_id]["lines"][0].startswith("w") for pn in pruned)
    # every planned edge is drawn: from the receiving node's tensor to the op
    edges = {(e["src"], e["dst"]) for e in d["edges"]}
    outputs = {pn.node_id: pn.output.tensor_id for pn in plan.nodes}
    for pn in plan.nodes:
        if pn.node_name != "AccumulateGrad":
            for child in pn.edges:
                if child is not None:
                    assert (d["tensor_node"][str(outputs[child])], by_engine[pn.node_id]["key"]) in edges


# -- diff of two tapes --------------------------------------------------------------------------------

def fan_in_tape(w_values):
    x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")
    w = ag.tensor(w_values, requires_grad=True, name="w")
    with ag.trace() as tape:
        (x * w + x).sum().backward()
    return tape


def test_diff_marks_exactly_the_nodes_whose_values_or_gradients_differ():
    from autogradlab.viz.playerdata import diff_data

    a, b = fan_in_tape([3.0, -1.0]), fan_in_tape([3.0, -2.0])
    d = diff_data(a, b)
    name = {n["key"]: n["lines"][0] for n in d["nodes"]}
    changed = {name[k]: v["fields"] for k, v in d["diff"]["nodes"].items()}
    # w's value differs (its grad = x does not); x's grad = w + 1 differs; the product, the sum and the
    # root differ in value; the ops received the same all-ones gradients
    assert changed == {"w (leaf)": ["value"], "x (leaf)": ["grad"], "t0": ["value"], "t1": ["value"],
                       "t2 (root)": ["value"]}
    assert d["diff"]["keys"] == [k for k in (n["key"] for n in d["nodes"]) if k in d["diff"]["nodes"]]
    assert d["diff"]["nodes"][next(k for k, v in name.items() if v == "x (leaf)")]["b"]["grad"]["data"] == [4.0, -1.0]
    assert diff_data(a, fan_in_tape([3.0, -1.0]))["diff"]["keys"] == []          # same numbers: nothing marked
    with ag.trace() as other:
        (ag.tensor(1.0, requires_grad=True) * 2).backward()
    with pytest.raises(ValueError, match="same graph"):
        diff_data(a, other)
    p = viz.diff(a, b)
    assert isinstance(p, Player) and p.data["diff"]["keys"] == d["diff"]["keys"]


def test_the_wheel_ships_the_bundle(tmp_path):
    """``pip install`` needs no Node: the built wheel carries autogradlab/viz/static/player.js."""
    import sys
    import zipfile

    repo = pathlib.Path(__file__).resolve().parent.parent
    res = subprocess.run([sys.executable, "-m", "pip", "wheel", str(repo), "--no-deps", "--no-build-isolation",
                          "-q", "-w", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    (wheel,) = tmp_path.glob("autogradlab-*.whl")
    with zipfile.ZipFile(wheel) as z:
        assert z.read("autogradlab/viz/static/player.js") == BUNDLE.read_bytes()


# -- collapsed groups can be expanded ------------------------------------------------------------------

def _long_chain_tape(n=40):
    x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")
    w = ag.tensor([0.5, -1.0], requires_grad=True, name="w")
    with ag.trace() as tape:
        h = x * w
        for _ in range(n):
            h = h * 1.01
        (h.sum() + w.sum()).backward()
    return tape


def test_a_collapsed_group_carries_its_members_and_their_uncollapsed_drawing():
    tape = _long_chain_tape()
    assert player_data(tape)["detail"] is None            # nothing collapsed, nothing to expand
    d = player_data(tape, max_nodes=20)
    groups = [n for n in d["nodes"] if n["kind"] == "group"]
    assert groups and set(d["detail"]["members"]) == {g["key"] for g in groups}
    full = {n["key"]: n for n in player_data(tape, max_nodes=10 ** 6)["nodes"]}
    detail = {n["key"]: n for n in d["detail"]["nodes"]}
    drawn = {n["key"] for n in d["nodes"]}
    for g in groups:
        members = d["detail"]["members"][g["key"]]
        # the members are the uncollapsed drawing's own nodes, and their engine nodes are exactly the group's
        assert members and all(detail[k] == full[k] for k in members)
        assert sorted(i for k in members for i in detail[k]["engine_nodes"]) == g["engine_nodes"]
    # every uncollapsed edge touching a member joins nodes that exist; every chain-rule step has its edge
    for e in d["detail"]["edges"]:
        assert {e["src"], e["dst"]} <= set(detail) | drawn and (e["src"] in detail or e["dst"] in detail)
    ids = {e["id"] for e in d["detail"]["edges"]} | {e["id"] for e in d["edges"]}
    steps = [e for e in tape if type(e).__name__ == "GradientComputed"]
    assert all(d["detail"]["edge_of"][f"{e.node_id}-{e.input_index}"] in ids for e in steps)


VIEW_HARNESS = r"""
import { readFileSync } from "node:fs";
await import(process.argv[2]);
const { fold, statuses, viewOf } = globalThis.autogradlabPlayer;
const { data, expand } = JSON.parse(readFileSync(0, "utf8"));
const view = viewOf(data, new Set(expand));
const out = [];
for (let k = data.start; k <= data.end; k++) out.push({ step: k, statuses: statuses(view, fold(view, k)) });
process.stdout.write(JSON.stringify({ nodes: view.nodes, edges: view.edges, edge_of: view.edge_of, frames: out }));
"""


@pytest.mark.parametrize("expand", ["none", "all"])
def test_front_end_expanded_and_collapsed_groups_are_marked_from_the_engines_events(expand, tmp_path):
    tape = _long_chain_tape()
    d = player_data(tape, max_nodes=20)
    keys = list(d["detail"]["members"]) if expand == "all" else []
    out = run_with_bundle(VIEW_HARNESS, {"data": d, "expand": keys}, tmp_path, "view.mjs")
    view = {"nodes": out["nodes"]}
    drawn = [n["key"] for n in out["nodes"]]
    if expand == "all":
        assert not any(n["kind"] == "group" for n in out["nodes"])
        assert sorted(drawn) == sorted(n["key"] for n in player_data(tape, max_nodes=10 ** 6)["nodes"])
        assert all(e["src"] in drawn and e["dst"] in drawn for e in out["edges"])
        edge_ids = {e["id"] for e in out["edges"]}
        assert all(out["edge_of"][k] in edge_ids for k in d["edge_of"])
    else:
        assert drawn == [n["key"] for n in d["nodes"]]
    saw_partial = False
    for f in out["frames"]:
        got = {k: set(v) - {"agl-future"} for k, v in f["statuses"].items()}
        assert got == expected_marks(tape, view, f["step"]), f"step {f['step']}"
        saw_partial |= any(n["kind"] == "group" and "agl-pending" in got[n["key"]] and "agl-current" in got[n["key"]]
                           for n in out["nodes"])
    if expand == "none":    # a chain being worked through is current and still pending (not all done)
        assert saw_partial
