"""Step events: what the engine tells, and that telling it is free when nobody listens."""
import dataclasses
import json

import numpy as np
import pytest

import autogradlab as ag
from autogradlab import events as ev
from autogradlab.autograd import Function


def program(seed=0):
    """A small graph with fan-out, fan-in, broadcasting and a named leaf."""
    ag.manual_seed(seed)
    x = ag.randn(3, requires_grad=True)
    x.name = "x"
    w = ag.randn(2, 3, requires_grad=True)
    b = ag.tensor(0.5, requires_grad=True, name="b")
    h = (w * x).tanh()           # broadcasting x over rows
    y = (h.sum(1) * x[:2]).sum() + b * b
    return x, w, b, y


def traced_program(seed=0, **kw):
    with ag.trace() as tape:
        x, w, b, y = program(seed)
        y.backward(**kw)
    return tape, (x, w, b)


def of(tape, cls):
    return [e for e in tape.events if isinstance(e, cls)]


def test_events_are_frozen_and_slotted_and_hold_no_live_objects():
    tape, _ = traced_program()
    kinds = {type(e) for e in tape.events}
    assert {ev.OpRecorded, ev.BackwardStarted, ev.Seeded, ev.NodeStarted, ev.GradientComputed,
            ev.Accumulated, ev.SavedFreed, ev.BackwardFinished} <= kinds
    for e in tape.events:
        assert not hasattr(e, "__dict__")
        with pytest.raises(AttributeError):
            e.step = 99
        for value in vars_of(e):
            assert not isinstance(value, (ag.Tensor, ag.autograd.graph.Node))
    assert [e.step for e in tape.events] == list(range(len(tape.events)))


def _record_classes():
    from autogradlab.events import records
    return [c for c in vars(records).values() if isinstance(c, type) and dataclasses.is_dataclass(c)
            and c.__module__ == records.__name__]


@pytest.mark.parametrize("cls", _record_classes(), ids=lambda c: c.__name__)
def test_records_are_made_as_their_dataclass_would_make_them(cls):
    """records.py gives each record a faster ``__init__`` (the slots' own setters instead of
    ``object.__setattr__``): same signature and defaults as the frozen dataclass's, the same record from
    positional or keyword arguments, and still frozen."""
    import inspect
    plain = dataclasses.dataclass(frozen=True, slots=True)(
        type(cls.__name__, (), {"__annotations__": dict(cls.__annotations__),
                                **{f.name: f.default for f in dataclasses.fields(cls)
                                   if f.default is not dataclasses.MISSING}}))
    ours, theirs = inspect.signature(cls.__init__), inspect.signature(plain.__init__)
    assert [(p.name, p.default, p.kind, p.annotation) for p in ours.parameters.values()] == \
           [(p.name, p.default, p.kind, p.annotation) for p in theirs.parameters.values()]
    assert ours.return_annotation == theirs.return_annotation   # (what help() shows)
    assert cls.__init__.__module__ == cls.__module__ and cls.__init__.__qualname__ == f"{cls.__name__}.__init__"
    values = [f"value {i}" for i, _ in enumerate(dataclasses.fields(cls))]
    made = cls(*values)
    assert [getattr(made, f.name) for f in dataclasses.fields(cls)] == values
    assert cls(**{f.name: v for f, v in zip(dataclasses.fields(cls), values)}) == made
    required = [f for f in dataclasses.fields(cls) if f.default is dataclasses.MISSING]
    short = cls(*values[:len(required)])
    assert [getattr(short, f.name) for f in dataclasses.fields(cls)] == \
           values[:len(required)] + [f.default for f in dataclasses.fields(cls)[len(required):]]
    with pytest.raises(TypeError):
        cls(*values, "one too many")
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(made, dataclasses.fields(cls)[0].name, "changed")
    assert dataclasses.replace(made, **{required[0].name: "new"}) == cls("new", *values[1:])


def test_a_record_with_a_field_the_fast_init_cannot_set_is_refused():
    from autogradlab.events.records import _frozen
    for body in ({"__annotations__": {"a": "int"}, "__post_init__": lambda self: None},
                 {"__annotations__": {"a": "int", "b": "int"}, "b": dataclasses.field(default=0, init=False)},
                 {"__annotations__": {"a": "int", "b": "int"}, "b": dataclasses.field(default=0, kw_only=True)},
                 {"__annotations__": {"a": "int", "b": "list"}, "b": dataclasses.field(default_factory=list)},
                 {"__annotations__": {"a": "int", "b": dataclasses.InitVar[int]}}):
        with pytest.raises(TypeError, match="record"):
            _frozen(type("R", (), dict(body)))


def vars_of(e):
    for name in e.__slots__:
        v = getattr(e, name)
        yield from (v if isinstance(v, tuple) else (v,))


def test_each_node_starts_exactly_once_per_pass():
    tape, _ = traced_program()
    started = [e.node_id for e in of(tape, ev.NodeStarted)]
    assert len(started) == len(set(started))
    recorded = {e.node_id for e in of(tape, ev.OpRecorded)}
    assert recorded <= set(started)


def test_leaf_contributions_sum_to_final_grad_and_replay_reproduces_grads():
    tape, leaves = traced_program()
    names = {e.tensor.tensor_id: e.tensor for e in of(tape, ev.Accumulated) if e.tensor is not None}
    final = tape.replay()
    for leaf in leaves:
        tid = next(i for i, r in names.items() if r.name == (leaf.name or r.name) and r.shape == leaf.shape)
        total = sum(e.contribution.array() for e in of(tape, ev.Accumulated)
                    if e.where == "leaf" and e.tensor.tensor_id == tid)
        np.testing.assert_allclose(total, leaf.grad.numpy(), rtol=1e-6)
        np.testing.assert_array_equal(final.grads[tid].array(), leaf.grad.numpy())


def test_saved_freed_exactly_when_retain_graph_is_false():
    tape, _ = traced_program()
    saving = {e.node_id for e in of(tape, ev.OpRecorded) if e.saved}
    assert {e.node_id for e in of(tape, ev.SavedFreed)} == saving
    tape2, _ = traced_program(retain_graph=True)
    assert of(tape2, ev.SavedFreed) == []


def test_node_pruned_exactly_for_nodes_off_the_paths_to_inputs():
    with ag.trace() as tape:
        a = ag.tensor([1.0, 2.0], requires_grad=True, name="a")
        b = ag.tensor([3.0, 4.0], requires_grad=True, name="b")
        pa = a.exp()              # only on a's path
        pb = b.sin()              # only on b's path
        loss = (pa * pb).sum()
        loss.backward(inputs=[a])
    ids = {e.output.name: e.node_id for e in of(tape, ev.OpRecorded)}
    by_node = {e.node_id: e.output.name for e in of(tape, ev.OpRecorded)}
    pruned = {e.node_id for e in of(tape, ev.NodePruned)}
    sin_node = next(e.node_id for e in of(tape, ev.OpRecorded) if e.op == "sin")
    b_acc = {e.node_id for e in of(tape, ev.NodePruned)} - {sin_node}
    assert sin_node in pruned and len(b_acc) == 1      # sin and b's accumulator
    assert ids and by_node
    assert b.grad is None and a.grad is not None
    ran = {e.node_id for e in of(tape, ev.NodeStarted)}
    assert not (ran & pruned)


def test_two_runs_give_byte_identical_json():
    t1, _ = traced_program(seed=4)
    t2, _ = traced_program(seed=4)
    assert t1.to_json() == t2.to_json()
    assert t1.table() == t2.table()


def test_json_round_trip_is_exact_and_plain():
    tape, _ = traced_program()
    text = tape.to_json()
    json.loads(text)  # plain JSON
    back = ag.Tape.from_json(text)
    assert back.events == tape.events and back.to_json() == text
    assert back.table() == tape.table()


def test_json_round_trip_keeps_nan_and_inf():
    with ag.trace() as tape:
        x = ag.tensor([0.0, 1.0], requires_grad=True)
        y = x.log()
        y.backward(ag.tensor([1.0, float("nan")]))
    back = ag.Tape.from_json(tape.to_json())
    assert back.to_json() == tape.to_json()
    assert "NaN" not in tape.to_json()


@pytest.mark.parametrize("text, match", [
    ("not json", "not valid JSON"),
    ("[]", "not an autogradlab tape"),
    ('{"format": "autogradlab-tape", "version": 7, "events": []}', "unsupported tape version"),
    ('{"format": "autogradlab-tape", "version": 1, "events": [{"kind": "Boom"}]}', "event 0 is malformed"),
    ('{"format": "autogradlab-tape", "version": 1, "events": [{"kind": "NodePruned", "step": 0}]}',
     "lacks field"),
])
def test_malformed_json_raises_a_clear_error(text, match):
    with pytest.raises(ValueError, match=match):
        ag.Tape.from_json(text)


def test_no_trace_means_no_events_and_no_snapshots(monkeypatch):
    def forbidden(*a, **k):
        raise AssertionError("event work without a trace")
    for cls in ev.EVENT_TYPES.values():
        monkeypatch.setattr(cls, "__init__", forbidden)
    monkeypatch.setattr(ev.records, "snapshot", forbidden)   # what the tape calls
    x, w, b, y = program()
    y.backward(retain_graph=True)
    g, = ag.autograd.grad(y, [b], create_graph=True)
    g.backward()
    assert x.grad is not None


def test_create_graph_records_backward_ops_as_op_recorded():
    with ag.trace() as tape:
        x = ag.tensor(2.0, requires_grad=True, name="x")
        y = x * x * x
        n_forward = len(of(tape, ev.OpRecorded))
        (g,) = ag.autograd.grad(y, x, create_graph=True)
    backward_ops = of(tape, ev.OpRecorded)[n_forward:]
    assert backward_ops, "the VJPs run as recorded ops under create_graph"
    start = next(e.step for e in tape.events if isinstance(e, ev.BackwardStarted))
    assert all(e.step > start for e in backward_ops)
    assert g.item() == 12.0


def test_events_for_autograd_grad_are_captured_not_accumulated():
    with ag.trace() as tape:
        x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")
        (g,) = ag.autograd.grad((x * x).sum(), x)
    started = of(tape, ev.BackwardStarted)[0]
    assert started.api == "grad"
    acc = of(tape, ev.Accumulated)
    assert {e.where for e in acc} == {"buffer", "captured"}
    assert x.grad is None
    np.testing.assert_array_equal(tape.replay().captured[acc[-1].tensor.tensor_id].array(), g.numpy())


def test_events_for_multiple_roots_hooks_and_custom_functions():
    class Square(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return 2 * a * g

    with ag.trace() as tape:
        x = ag.tensor([1.0, 3.0], requires_grad=True, name="x")
        y = Square.apply(x)
        y.register_hook(lambda g: g * 10)
        z = x.exp()
        ag.autograd.backward([y.sum(), z.sum()])
    seeds = of(tape, ev.Seeded)
    assert [s.root_index for s in seeds] == [0, 1]
    assert any(e.node_name == "SquareBackward" for e in of(tape, ev.NodeStarted))
    hooks = of(tape, ev.HookRan)
    assert hooks and hooks[0].hook == "tensor" and hooks[0].changed
    np.testing.assert_allclose(x.grad.numpy(), 20 * np.array([1.0, 3.0]) + np.exp([1.0, 3.0]), rtol=1e-6)
    leaf_total = sum(e.contribution.array() for e in of(tape, ev.Accumulated) if e.where == "leaf")
    np.testing.assert_allclose(leaf_total, x.grad.numpy(), rtol=1e-6)


def test_gradient_computed_names_the_local_derivative():
    with ag.trace() as tape:
        a = ag.tensor(2.0, requires_grad=True, name="a")
        b = ag.tensor(5.0, requires_grad=True, name="b")
        (a * b).backward()
    formulas = [e.formula for e in of(tape, ev.GradientComputed)]
    assert formulas == ["d(a * b)/da = b", "d(a * b)/db = a"]
    contributions = [e.contribution.array().item() for e in of(tape, ev.GradientComputed)]
    assert contributions == [5.0, 2.0]


def test_accumulation_across_repeated_backward_calls_shows_before_and_after():
    x = ag.tensor(1.0, requires_grad=True, name="x")
    with ag.trace() as tape:
        for _ in range(2):
            (x * 3).backward()
    leaf = [e for e in of(tape, ev.Accumulated) if e.where == "leaf"]
    assert [(e.before and e.before.array().item(), e.after.array().item()) for e in leaf] == [(None, 3.0),
                                                                                            (3.0, 6.0)]
    assert [e.pass_index for e in of(tape, ev.BackwardStarted)] == [0, 1]


def test_large_values_are_summarised():
    with ag.trace(max_elements=4) as tape:
        x = ag.ones(10, requires_grad=True)
        (x * 2).sum().backward()
    value = of(tape, ev.OpRecorded)[0].value
    assert value.data is None and value.shape == (10,) and value.max == 2.0
    assert value.norm == pytest.approx(np.sqrt(40))
    assert "<10: min 2 max 2 norm 6.325>" in tape.table()


def test_table_is_fixed_width_and_rounded():
    tape, _ = traced_program()
    lines = tape.table().splitlines()
    assert lines[0].split() == ["step", "event", "node", "tensor", "detail"]
    assert len(lines) == len(tape.events) + 1
    assert all("e-0" not in ln or "e-0" in ln for ln in lines)  # rounding never prints long floats
    assert not any(len(tok) > 12 and tok.replace(".", "").isdigit() for ln in lines for tok in ln.split())


def test_replay_midway_shows_pending_buffers_and_partial_grads():
    with ag.trace() as tape:
        x = ag.tensor(2.0, requires_grad=True, name="x")
        y = x * x + x           # x receives three contributions
        y.backward()
    pending = [e for e in of(tape, ev.Accumulated) if e.where == "buffer" and e.before is not None]
    assert pending, "fan-in at x"
    mid = tape.replay(pending[0].step)
    assert mid.buffers and x.grad.item() == 5.0
    assert tape.replay(pending[0].step - 1).grads == {}
    assert mid.current is not None and mid.ran


def test_steps_drives_the_real_engine_one_event_at_a_time():
    x = ag.tensor(2.0, requires_grad=True, name="x")
    y = (x * x).exp()
    it = ag.steps(y)
    seen = []
    for e in it:
        seen.append((type(e).__name__, None if x.grad is None else x.grad.item()))
        if isinstance(e, ev.Accumulated) and e.where == "leaf":
            assert x.grad is not None          # the engine really wrote it at this step
    assert seen[0] == ("BackwardStarted", None)
    assert seen[-1][1] == pytest.approx(4 * np.exp(4), rel=1e-5)
    assert ag.is_grad_enabled()


def test_steps_closed_early_leaves_state_as_it_is():
    x = ag.tensor(2.0, requires_grad=True)
    y = (x * 3).sin()
    it = ag.steps(y)
    for e in it:
        if isinstance(e, ev.SavedFreed):
            break
    it.close()
    assert x.grad is None                      # never reached the leaf
    assert y.grad_fn._freed                    # the node that ran freed its saved tensors
    assert ag.is_grad_enabled()
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()


def test_steps_validates_at_once():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="implicitly created only for scalar"):
        ag.steps(x * 2)


def test_user_code_between_steps_runs_in_the_users_grad_mode():
    x = ag.tensor(2.0, requires_grad=True)
    it = ag.steps((x * x).sum())
    next(it)
    next(it)
    assert (x * 2).requires_grad               # the engine's no-grad mode does not leak out
    it.run()


def test_explain_prints_the_chain_rule_story(capsys):
    x = ag.tensor(3.0, requires_grad=True, name="x")
    tape = ag.explain(x * x)
    out = capsys.readouterr().out
    assert "seed: dt0/dt0 = 1" in out
    assert "upstream 1 x local [d(a * b)/da = b] = 3, sent to x" in out
    assert "accumulate into the pending sum for node 1: 3 + 3 = 6" in out   # fan-in: x used twice
    assert "accumulate into x.grad: - + 6 = 6" in out
    assert isinstance(tape, ag.Tape) and x.grad.item() == 6.0


@pytest.mark.parametrize("root", [2.0, [1.0, 2.0], None])
def test_explain_given_no_tensor_says_what_to_pass_and_records_nothing(root, capsys):
    from autogradlab.grad_mode import state
    with pytest.raises(TypeError, match=r"explain\(\) expects the Tensor .* got " + type(root).__name__
                       + r".*explain\(loss\)"):
        ag.explain(root)
    assert state.tape is None and capsys.readouterr().out == ""


def test_op_recorded_keeps_input_values_and_node_pruned_names_its_tensor():
    with ag.trace() as tape:
        a = ag.tensor([1.0, 2.0], requires_grad=True, name="a")
        b = ag.tensor([3.0, 4.0], requires_grad=True, name="b")
        (a * b).sum().backward(inputs=[a])
    mul = of(tape, ev.OpRecorded)[0]
    assert [v.array().tolist() for v in mul.input_values] == [[1.0, 2.0], [3.0, 4.0]]
    total = of(tape, ev.OpRecorded)[1]                  # sum(t0): a computed input is not copied again
    assert total.input_values == (None,)
    pruned = of(tape, ev.NodePruned)
    assert [(e.node_name, e.output.name) for e in pruned] == [("AccumulateGrad", "b")]


# -- the plan: what a pass will do, told once in BackwardStarted ------------------------------

def test_plan_lists_every_node_in_the_order_it_starts_with_edges_and_dependency_counts():
    tape, _ = traced_program()
    started = of(tape, ev.BackwardStarted)[0]
    plan = started.plan
    runs = [n for n in plan.nodes if n.status == "run"]
    # the order of the plan is the order of the NodeStarted events that follow
    assert [n.node_id for n in runs] == [e.node_id for e in of(tape, ev.NodeStarted)]
    assert [n.node_name for n in runs] == [e.node_name for e in of(tape, ev.NodeStarted)]
    # every edge the engine follows is in the plan; the dependency count is the number of planned
    # edges into a node (the roots' nodes wait for nothing)
    by_id = {n.node_id: n for n in plan.nodes}
    incoming = {i: 0 for i in by_id}
    for n in runs:
        for child in n.edges:
            if child is not None:
                incoming[child] += 1
    assert {i: n.dependencies for i, n in by_id.items()} == incoming
    assert [by_id[r].dependencies for r in plan.roots] == [0]
    sent = {(e.node_id, e.to_node_id) for e in of(tape, ev.GradientComputed)}
    assert sent == {(n.node_id, c) for n in runs for c in n.edges if c is not None}
    ops = {n.op for n in plan.nodes}
    assert {"mul", "tanh", "sum", "add", "accumulate_grad"} <= ops
    # the outputs are the same refs the other events use
    assert {n.output for n in runs} == {e.output for e in of(tape, ev.NodeStarted)}


def test_plan_marks_what_inputs_pruned():
    a = ag.tensor(2.0, requires_grad=True, name="a")
    b = ag.tensor(3.0, requires_grad=True, name="b")
    with ag.trace() as tape:
        y = a * b + a
        ag.autograd.grad(y, [a])
    plan = of(tape, ev.BackwardStarted)[0].plan
    status = {(n.op, n.output.name): n.status for n in plan.nodes}
    assert status[("accumulate_grad", "b")] == "pruned"      # no path from b's node to an input
    assert status[("accumulate_grad", "a")] == "run"
    assert status[("mul", "t0")] == status[("add", "t1")] == "run"
    assert [n.node_id for n in plan.nodes if n.status == "pruned"] == [e.node_id for e in of(tape, ev.NodePruned)]
    assert plan.inputs == tuple(n.node_id for n in plan.nodes if n.output.name == "a")
    # without inputs nothing is pruned
    with ag.trace() as tape2:
        (a * b + a).backward()
    assert {n.status for n in of(tape2, ev.BackwardStarted)[0].plan.nodes} == {"run"}


def test_plan_receive_status_for_a_non_leaf_input_below_nothing_needed():
    a = ag.tensor(2.0, requires_grad=True)
    b = ag.tensor(3.0, requires_grad=True)
    with ag.trace() as tape:
        h = a * b
        y = h * 2.0
        ag.autograd.grad(y, [h])
    plan = of(tape, ev.BackwardStarted)[0].plan
    by_op = {n.op: n for n in plan.nodes}
    assert by_op["mul"].status in ("run", "receive")
    statuses = sorted(n.status for n in plan.nodes)
    assert statuses == ["pruned", "pruned", "receive", "run"]   # h's node receives, a's and b's are cut


def test_plan_survives_json_and_old_tapes_without_a_plan_still_load():
    tape, _ = traced_program()
    again = ev.Tape.from_json(tape.to_json())
    assert again.events == tape.events
    assert isinstance(again.events[[type(e) for e in again.events].index(ev.BackwardStarted)].plan, ev.BackwardPlan)
    payload = json.loads(tape.to_json())
    raw = next(e for e in payload["events"] if e["kind"] == "BackwardStarted")
    assert raw["plan"]["@"] == "BackwardPlan" and raw["plan"]["nodes"][0]["@"] == "PlannedNode"
    del raw["plan"]
    old = ev.Tape.from_json(json.dumps(payload))
    assert next(e for e in old.events if isinstance(e, ev.BackwardStarted)).plan is None


def test_reading_the_plan_does_not_change_the_tape_ids(monkeypatch):
    """Ids are handed out in the order the pass's later events first mention nodes and tensors,
    so the events after BackwardStarted are the same as a tape made without a plan."""
    with_plan, _ = traced_program()
    monkeypatch.setattr(ev.Tape, "_plan", lambda self, plan: None)
    without, _ = traced_program()
    assert [e for e in with_plan.events if not isinstance(e, ev.BackwardStarted)] == \
           [e for e in without.events if not isinstance(e, ev.BackwardStarted)]


def test_events_never_import_the_viz_and_tape_play_still_works_through_the_package():
    import ast
    import pathlib
    for path in pathlib.Path(ev.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text())
        imported = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        assert not any("viz" in m for m in imported), path.name
    assert ev.Tape.play.__module__ == "autogradlab"


def test_fields_declared_int_str_or_bool_hold_exactly_those_types():
    """The events' JSON copies a field declared ``int``, ``str`` or ``bool`` as it is (jsonio._encoder
    encodes only the others): every such field, in every kind of record a rich tape holds, must hold
    that type (a float there would skip the NaN encoding; a tuple would stay a tuple)."""
    import dataclasses
    with ag.trace(stats=True) as tape:
        x, w, b, y = program(0)
        h = w.register_hook(lambda g: g * 2)
        v = ag.tensor(np.ones((20, 20)), requires_grad=True)   # too large for a table: Stats
        z = (y * w).sum() + (w * w).sum() + (v * 2.0).sum()
        z.backward(retain_graph=True, inputs=[w])
        h.remove()
        (g,) = ag.autograd.grad((x * x * w).sum(), [w], create_graph=True)
        g.sum().backward()
    declared = {"int": int, "str": str, "bool": bool}
    seen, todo = set(), list(tape.events)
    while todo:
        record = todo.pop()
        if isinstance(record, tuple):
            todo.extend(record)
            continue
        if not dataclasses.is_dataclass(record):
            continue
        seen.add(type(record).__name__)
        for f in dataclasses.fields(record):
            value = getattr(record, f.name)
            want = declared.get(str(f.type).strip())
            if want is not None:
                assert type(value) is want, (type(record).__name__, f.name, value)
            else:
                todo.append(value)
    assert {"OpRecorded", "BackwardStarted", "BackwardPlan", "PlannedNode", "NodePruned", "HookRan", "Value",
            "TensorRef", "SourceLine", "Stats", "Accumulated", "GradientComputed", "SavedFreed"} <= seen


def test_the_table_and_describe_show_what_a_hook_was_given_and_what_the_pass_went_on_with():
    x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")
    w = ag.tensor(2.0, requires_grad=True, name="w")
    h = x * w
    h.register_hook(lambda g: g * 10)                 # replaces h's gradient
    h.grad_fn.register_hook(lambda grads_in, grads_out: None)   # looks, changes nothing
    with ag.trace() as tape:
        h.sum().backward()
    rows = [ln for ln in tape.table().splitlines() if "HookRan" in ln]
    assert rows[0].endswith("tensor hook ran, changed the gradient: [1, 1] -> [10, 10]")
    assert rows[1].endswith("node_post hook ran: ([20, 20], 30), unchanged")   # one value per input
    tensor_hook, post_hook = of(tape, ev.HookRan)
    assert ev.describe(tensor_hook) == "  a tensor hook on node 1 ran and replaced the gradient: [1, 1] -> [10, 10]"
    assert ev.describe(post_hook) == "  a node_post hook on node 1 ran: ([20, 20], 30), unchanged"
    # a tape saved before hooks' values were recorded (before/after None) reads as it always did
    old = ev.HookRan(tensor_hook.step, "tensor", tensor_hook.node_id, True)
    assert ev.describe(old) == "  a tensor hook on node 1 ran and replaced the gradient"


def test_saved_freed_counts_the_bytes_of_each_saved_value():
    # matmul saves both inputs (3x4 and 4x2 float64: 96 + 64 bytes), an advanced index its two
    # index arrays (3 int64 each: 48 bytes in all), tanh its float64 result (3 elements: 24 bytes)
    x = ag.tensor(np.ones((3, 4)), requires_grad=True)
    w = ag.tensor(np.ones((4, 2)), requires_grad=True)
    with ag.trace() as tape:
        z = (x @ w)[[0, 2, 2], [1, 0, 1]].tanh()
        z.sum().backward()
    freed = {e.node_name: (e.names, e.nbytes) for e in tape.of_kind("SavedFreed")}
    assert freed == {"TanhBackward": (("result",), 24), "IndexBackward": (("index",), 48),
                     "MatmulBackward": (("self", "other"), 160)}
