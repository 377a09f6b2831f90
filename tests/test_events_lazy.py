"""A tape records cheaply and builds its events when read: what it shows must still be each value as
it was at its step, whatever happened to the tensors and arrays in between."""
from pathlib import Path

import numpy as np
import pytest

import autogradlab as ag
from autogradlab import events as ev
from autogradlab import optim


def _only(tape, cls, **match):
    found = [e for e in tape.events if isinstance(e, cls) and all(getattr(e, k) == v for k, v in match.items())]
    assert len(found) == 1, found
    return found[0]


def test_forward_values_stay_as_recorded_after_in_place_changes():
    x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")
    c = ag.tensor([10.0, 20.0], name="c")
    with ag.trace() as tape:
        y = x * c
        z = y * 1.0
    with ag.no_grad():
        y.mul_(100)           # the op's output, written in place after it was recorded
        c.add_(5)             # a constant input, too
        x.zero_()             # and the leaf
    e = _only(tape, ev.OpRecorded, node_id=0)
    assert e.value.data == (10.0, 40.0)
    assert e.input_values[0].data == (1.0, 2.0) and e.input_values[1].data == (10.0, 20.0)
    assert _only(tape, ev.OpRecorded, node_id=1).value.data == (10.0, 40.0)
    assert z.tolist() == [10.0, 40.0]


def test_gradients_stay_as_recorded_after_the_grad_is_changed_in_place():
    """The first gradient to reach a leaf becomes its ``.grad`` without a copy; an optimizer step or a
    second backward then writes it in place. The tape still shows the values of each step."""
    w = ag.tensor([1.0, -2.0], requires_grad=True, name="w")
    with ag.trace() as tape:
        loss = (w * w).sum()
        loss.backward()
    grad_then = w.grad.tolist()
    opt = optim.SGD([w], lr=0.1, momentum=0.9)
    opt.step()
    w.grad.mul_(7)                       # in place on .grad
    (w * 3).sum().backward()             # accumulates into .grad in place (untraced)
    assert w.grad.tolist() != grad_then
    leaf = _only(tape, ev.Accumulated, where="leaf")
    assert leaf.before is None and leaf.after.data == tuple(grad_then) == (2.0, -4.0)
    assert leaf.contribution.data == (2.0, -4.0)
    sent = [e.contribution.data for e in tape.events if isinstance(e, ev.GradientComputed)]
    assert sent.count((1.0, -2.0)) == 2                  # w * w: w's two edges, summed in a buffer ...
    summed = [e for e in tape.events if isinstance(e, ev.Accumulated) and e.where == "buffer"][-1]
    assert summed.before.data == (1.0, -2.0) and summed.after.data == (2.0, -4.0)   # ... that became .grad


def test_two_traced_passes_show_before_and_after_of_the_in_place_accumulation():
    a = ag.tensor([0.5, 1.5], requires_grad=True, name="a")
    with ag.trace() as tape:
        y = (a * a).sum()
        y.backward(retain_graph=True)
        y.backward()
    first, second = [e for e in tape.events if isinstance(e, ev.Accumulated) and e.where == "leaf"]
    assert first.before is None and first.after.data == (1.0, 3.0)
    assert second.before.data == (1.0, 3.0) and second.after.data == (2.0, 6.0)
    assert a.grad.tolist() == [2.0, 6.0]


def test_a_gradient_kept_by_a_hook_and_changed_later_shows_its_value_at_the_step():
    kept = []
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True, name="x")
    with ag.trace() as tape:
        h = x * 2
        h.register_hook(lambda g: kept.append(g) or None)
        (h * h).sum().backward()
    kept[0].data[...] = -1.0              # the array the pass moved, changed behind the engine's back
    started = [e for e in tape.events if isinstance(e, ev.NodeStarted) and e.output.name == "t0"]
    assert started[0].grad.data == (4.0, 8.0, 12.0)   # d(h*h)/dh = 2h


@pytest.mark.parametrize("max_elements", [None, 70_000])
def test_large_values_are_kept_as_at_their_step(max_elements):
    n = 70_000                                  # large: summarised (when the tape is read)
    x = ag.ones(n, requires_grad=True)
    with (ag.trace() if max_elements is None else ag.trace(max_elements=max_elements)) as tape:
        y = x * 2.0
        y.sum().backward()
    with ag.no_grad():
        y.mul_(0)
        x.grad.zero_()
    value, after = _only(tape, ev.OpRecorded, node_id=0).value, _only(tape, ev.Accumulated, where="leaf").after
    if max_elements is None:   # min, max, norm
        assert value.data is None and value.min == value.max == 2.0 and after.min == after.max == 2.0
    else:                      # every element
        assert value.data == (2.0,) * n and after.data == (2.0,) * n


def test_a_small_pending_budget_builds_early_and_changes_nothing():
    def record():
        ag.manual_seed(3)
        x = ag.randn(4, 3, requires_grad=True)
        w = ag.randn(3, requires_grad=True)
        with ag.trace() as tape:
            loss = ((x * w).tanh().sum(0) * w).sum()
            loss.backward()
            (w * w).sum().backward()
        return tape

    whole = record().to_json()
    old = ev.Tape.PENDING_BYTES
    ev.Tape.PENDING_BYTES = 64         # build after almost every event
    try:
        early = record()
        assert early._raw == [] or len(early._events) > 0
        assert early.to_json() == whole
    finally:
        ev.Tape.PENDING_BYTES = old


def test_reading_the_tape_in_the_middle_of_tracing_changes_nothing():
    def record(read_midway):
        ag.manual_seed(5)
        a = ag.randn(3, requires_grad=True)
        with ag.trace() as tape:
            b = (a * 3).exp()
            if read_midway:
                assert len(tape.events) == 2 and tape.table()
            c = (b * a).sum()
            c.backward()
            if read_midway:
                tape.replay()
            with ag.no_grad():
                a.add_(1)
            (a * a).sum().backward()
        return tape.to_json()

    assert record(True) == record(False)


def test_a_pass_that_raises_keeps_the_values_it_had_told():
    x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")
    stash = []

    def boom(g):
        stash.append(g)
        raise RuntimeError("hook failed")

    with ag.trace() as tape:
        y = x * 3
        z = y * y
        y.register_hook(boom)
        with pytest.raises(RuntimeError, match="hook failed"):
            z.sum().backward()
    assert tape._pass_arrays == {}         # leaving the trace let go of the pass's arrays
    stash[0].data[...] = 0                 # the summed gradient the pass was delivering
    started = [e for e in tape.events if isinstance(e, ev.NodeStarted) and e.output.name == "t0"]
    assert started[0].grad.data == (6.0, 12.0)     # d(y*y)/dy = 2y, y = (3, 6)
    assert not any(isinstance(e, ev.BackwardFinished) for e in tape.events)


def test_steps_returns_the_events_the_tape_holds():
    x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")
    it = ag.steps((x * x).sum())
    seen = list(it)
    assert seen == it.tape.events
    assert [e.step for e in seen] == list(range(len(seen)))


def test_a_constant_operand_given_as_an_array_is_told_as_the_constant_tensor():
    """An op may hand the tape a constant operand as the array it is (no Tensor made for a Python
    number): the events name and show it exactly as they would the constant Tensor."""
    x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")
    c = ag.tensor([3.0, 4.0])
    with ag.trace() as as_tensor:
        y = x * c
    as_array = ev.Tape()
    as_array.op_recorded(y.grad_fn, [x, c._data], y)
    c._data[...] = 0        # the tape kept the value as it was
    a, b = as_tensor.events[0], as_array.events[0]
    assert b.inputs[1].name == "x0" and b.inputs[1].leaf and not b.inputs[1].requires_grad
    assert b.input_values[1].data == (3.0, 4.0)
    assert {f: getattr(b, f) for f in b.__slots__ if f != "source"} == \
        {f: getattr(a, f) for f in a.__slots__ if f != "source"}


def test_a_hook_that_changes_the_gradient_in_place_leaves_the_earlier_events_as_they_were():
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True, name="x")
    with ag.trace() as tape:
        h = x * 2
        h.register_hook(lambda g: [g.mul_(3)] and None)
        (h * h).sum().backward()
    assert x.grad.tolist() == [24.0, 48.0, 72.0]          # 2 * 3 * 2h
    started = [e for e in tape.events if isinstance(e, ev.NodeStarted) and e.output.name == "t0"][0]
    assert started.grad.data == (4.0, 8.0, 12.0)          # what reached h, before the hook
    summed = [e for e in tape.events if isinstance(e, ev.Accumulated) and e.where == "buffer" and e.before][0]
    assert summed.after.data == (4.0, 8.0, 12.0)          # h * h: h's two edges summed
    hook = [e for e in tape.events if isinstance(e, ev.HookRan)][0]
    assert hook.before[0].data == (4.0, 8.0, 12.0) and hook.after[0].data == (12.0, 24.0, 36.0)


def _traced_line():
    x = ag.tensor([1.0], requires_grad=True)
    with ag.trace() as tape:
        x * 2.0
    return tape.events[0].source


def test_source_lines_read_once_still_follow_the_working_directory(tmp_path, monkeypatch):
    """Tapes share the lines they read (a training step's lines are read once), per working
    directory: a file's path is relative to it."""
    here = Path(__file__).resolve()
    monkeypatch.chdir(here.parents[1])
    first = _traced_line()
    assert first.file == "tests/test_events_lazy.py" and first.text == "x * 2.0"
    assert _traced_line() is first                      # read once
    monkeypatch.chdir(tmp_path)                         # the file is not below this directory
    elsewhere = _traced_line()
    assert (elsewhere.file, elsewhere.line, elsewhere.text) == ("test_events_lazy.py", first.line, first.text)


def test_zero_grad_in_place_shows_as_zeros_in_the_next_tape():
    """``zero_grad(set_to_none=False)`` writes zeros into ``.grad`` in place: it must count as a new
    version, or a later tape could show the value the tensor had before (values are kept per version)."""
    n = 70_000
    w = ag.ones(n, requires_grad=True)
    opt = optim.SGD([w], lr=0.0)
    with ag.trace():
        y = (w * 2.0).sum()
        y.backward(retain_graph=True)
        y.backward()                    # .grad accumulated in place: 4 everywhere
    opt.zero_grad(set_to_none=False)
    assert w.grad.abs().max().item() == 0.0
    with ag.trace() as tape:
        (w * 2.0).sum().backward()
    leaf = _only(tape, ev.Accumulated, where="leaf")
    assert leaf.before.max == leaf.before.min == 0.0 and leaf.after.max == 2.0


def test_a_large_weight_updated_through_data_shows_its_new_value_in_the_next_tape():
    """micrograd-style SGD (``w.data -= lr * w.grad.data``) writes the array without a new version:
    each tape still shows the value the weight had when it recorded its op."""
    w = ag.ones(70_000, requires_grad=True)
    shown = []
    for _ in range(2):
        with ag.trace() as tape:
            (w * 2.0).sum().backward()
        shown.append(_only(tape, ev.OpRecorded, node_id=0).input_values[0].max)
        w.data -= 0.25 * w.grad.data
        w.grad = None
    assert shown == [1.0, 0.5]


@pytest.mark.parametrize("n", [2, 70_000])   # copied, and summarised at once (over COPY_ELEMENTS)
def test_a_seed_that_is_the_leafs_grad_shows_its_value_before_the_pass_adds_into_it(n):
    x = ag.tensor(np.arange(n, dtype=np.float64), requires_grad=True, name="x")
    (x * 3).sum().backward()                 # x.grad = 3
    y = x * 1.0
    with ag.trace(max_elements=100_000) as tape:
        y.backward(x.grad)                   # the seed is x.grad; the pass adds 3 into x.grad in place
    seed = [e for e in tape.events if isinstance(e, ev.Seeded)][0]
    acc = [e for e in tape.events if isinstance(e, ev.Accumulated) and e.where == "leaf"][0]
    assert seed.seed.data == (3.0,) * n
    assert acc.before.data == (3.0,) * n
    assert acc.after.data == (6.0,) * n
    np.testing.assert_array_equal(x.grad.numpy(), np.full(n, 6.0))


def test_within_one_trace_an_in_place_update_is_seen_and_a_data_write_is_not():
    """README's promise, and its limit: values are kept once per tensor version; ``.data`` bypasses it."""
    shown = {}
    for how in ("sub_", ".data"):
        w = ag.tensor([1.0, 2.0], requires_grad=True, name="w")
        with ag.trace() as tape:
            for _ in range(2):
                w.grad = None
                (w * w).sum().backward()
                if how == "sub_":
                    with ag.no_grad():
                        w.sub_(0.25 * w.grad)
                else:
                    w.data -= 0.25 * w.grad.data
        shown[how] = [e.input_values[0].data for e in tape.events if isinstance(e, ev.OpRecorded) and e.op == "mul"]
    assert shown["sub_"] == [(1.0, 2.0), (0.5, 1.0)]
    assert shown[".data"] == [(1.0, 2.0), (1.0, 2.0)]    # (the weight as first seen at its version)
