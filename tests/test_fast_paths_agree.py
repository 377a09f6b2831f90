"""Rules written once for students to read and, where it is hot, again inline for speed: each fast copy
must agree with its definition.

- The ready queue's order (``graph_walk.ready_key``), inline in the engine's loop and in
  ``graph_walk.run_order``: the order the engine starts nodes in, the order a traced plan announces and a
  plain Kahn walk over ``ready_key`` are the same.
- Fitting a VJP's gradients to the inputs (``Node._fit_to_inputs``), inline in ``Node.apply`` for arrays.
- Reading a saved tensor (``Node.saved_tensor``), inline in the ``ctx.self`` / ``other`` / ``result``
  properties (``graph._saved_input``).
- Planning a pass with ``inputs=`` (``engine._plan``): the walk's own counts when every end of the walk is
  an input's leaf, else pruned to the paths that reach an input; both are the pruning rule's plan.
- In ``registry.apply``: a leaf's edge (``Tensor._grad_accumulator``, read through its weak reference
  inline) and a constant's saved value (``graph.save_constant``, inline); in ``elementwise._binary``: a
  Python number's shared array (``elementwise.constant``'s first lines, inline).
- ``registry.apply_unary`` / ``apply_binary`` (what the operators call) against ``registry.apply``: the same
  tensor, node, edges and saved values, and the same events in a trace; the node ``registry._record`` makes
  against ``OpNode(...)``, and its shared tuples of shapes and dtypes against the arrays'.
- The saved values of an op that keeps only its output, or each of two inputs for the other's gradient
  (``OpDef.save_kind``), written out in ``registry._record``: the same as its general loop keeps."""
import heapq

import numpy as np
import pytest

import gc

import autogradlab as ag
from autogradlab import events as ev
from autogradlab.graph import save_constant
from autogradlab.ops.elementwise import constant
from autogradlab.graph_walk import node_of, ready_key


def _random_graph(seed):
    """A loss over a random DAG of a few leaves and ops with fan-out (some leaves used many times)."""
    rng = np.random.default_rng(seed)
    leaves = [ag.tensor(rng.standard_normal(3), dtype=ag.float64, requires_grad=True) for _ in range(3)]
    pool = list(leaves)
    for _ in range(int(rng.integers(4, 14))):
        a, b = (pool[int(i)] for i in rng.integers(0, len(pool), 2))
        pool.append([lambda: a * b, lambda: a + b, lambda: (a - b).tanh(), lambda: a.sin()][int(rng.integers(4))]())
    picked = [pool[int(i)] for i in rng.integers(len(leaves), len(pool), 2)]
    return (picked[0] * 2.0 + picked[1]).sum()


def _kahn(root):
    """Start order by ready_key alone: a node is ready once every consumer reached from the root has run."""
    deps, stack, seen = {}, [node_of(root)], set()
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        for child in n.edges:
            if child is not None:
                deps[child] = deps.get(child, 0) + 1
                stack.append(child)
    ready, order = [ready_key(node_of(root))], []
    while ready:
        n = heapq.heappop(ready)[2]
        order.append(n)
        for child in n.edges if n.priority else ():
            if child is not None:
                deps[child] -= 1
                if deps[child] == 0:
                    heapq.heappush(ready, ready_key(child))
    return order


@pytest.mark.parametrize("seed", range(25))
def test_the_engine_the_plan_and_ready_key_start_nodes_in_the_same_order(seed):
    loss = _random_graph(seed)
    want = _kahn(loss)
    with ag.trace() as tape:
        loss.backward()
    local = [tape._node_ids[n.seq if n.priority else ("leaf", n.variable._id)] for n in want]   # (tape ids)
    planned = [p.node_id for p in next(e for e in tape.events if isinstance(e, ev.BackwardStarted)).plan.nodes]
    started = [e.node_id for e in tape.events if isinstance(e, ev.NodeStarted)]
    assert started == planned == local


@pytest.mark.parametrize("make", [
    lambda a, b: a * b, lambda a, b: a / b, lambda a, b: a + b, lambda a, b: ag.maximum(a, b),
    lambda a, b: a.tanh() * b.exp(),
], ids=["mul", "div", "add", "maximum", "tanh*exp"])
@pytest.mark.parametrize("shapes", [((3, 1), (1, 4)), ((2, 3), (3,)), ((), (2, 2)), ((2, 2), (2, 2))])
@pytest.mark.parametrize("dtypes", [(ag.float64, ag.float64), (ag.float32, ag.float64), (ag.float64, ag.float32)])
def test_fitting_gradients_on_arrays_agrees_with_fit_to_inputs(make, shapes, dtypes):
    rng = np.random.default_rng(0)
    a, b = (ag.tensor(rng.uniform(0.5, 2.0, s), dtype=d, requires_grad=True) for s, d in zip(shapes, dtypes))
    out = make(a, b)
    node = out.grad_fn
    g = rng.standard_normal(out.shape).astype(out.dtype)
    on_arrays = node.apply(g)                                  # the inline fit
    with ag.no_grad():
        on_tensors = node.apply(ag.tensor(g))                 # _fit_to_inputs
    assert len(on_arrays) == len(on_tensors)
    for x, y in zip(on_arrays, on_tensors):
        if x is None or y is None:
            assert x is None and y is None
            continue
        assert x.shape == y._data.shape and x.dtype == y._data.dtype
        np.testing.assert_allclose(x, y._data, rtol=1e-6)


def test_the_ctx_properties_read_saved_tensors_as_saved_tensor_does():
    a = ag.tensor([1.0, 2.0], dtype=ag.float64, requires_grad=True)
    b = ag.tensor([3.0, 4.0], dtype=ag.float64, requires_grad=True)
    mul, exp = (a * b).grad_fn, b.exp().grad_fn
    for node, name in [(mul, "self"), (mul, "other"), (exp, "result")]:
        x, y = getattr(node, name), node.saved_tensor(name)                # Tensors (a result's: rebuilt)
        assert x._data is y._data and x.grad_fn is y.grad_fn and x.requires_grad == y.requires_grad
        node._arrays = True
        try:
            assert getattr(node, name) is node.saved_tensor(name)          # arrays (as a VJP on arrays reads)
        finally:
            node._arrays = False
    with ag.no_grad():
        a.add_(1.0)                                                        # mul saved a: now stale
    errors = []
    for read in (lambda: mul.self, lambda: mul.saved_tensor("self")):
        with pytest.raises(RuntimeError) as err:
            read()
        errors.append(str(err.value))
    assert errors[0] == errors[1] and "modified by an inplace operation" in errors[0]


def _plan_by_definition(root, inputs):
    """needed: nodes from which some input's node can be reached; deps: edges into each needed node from
    needed nodes; runs: needed nodes sending to a needed node, and leaves' accumulators."""
    from autogradlab.graph import AccumulateGrad
    targets, nodes, stack = {node_of(t) for t in inputs}, set(), [node_of(root)]
    while stack:
        n = stack.pop()
        if n not in nodes:
            nodes.add(n)
            stack.extend(c for c in n.edges if c is not None)

    memo = {}

    def leads(n):
        if n not in memo:
            memo[n] = n in targets or any(leads(c) for c in n.edges if c is not None)
        return memo[n]
    needed = {n for n in nodes if leads(n)}
    deps = {n: sum(1 for p in needed for c in p.edges if c is n) for n in needed}
    runs = {n for n in needed if isinstance(n, AccumulateGrad) or any(c in needed for c in n.edges)}
    return needed, deps, runs


@pytest.mark.parametrize("seed", range(25))
@pytest.mark.parametrize("which", ["all leaves", "one leaf", "a leaf and a non-leaf"])
def test_the_plan_with_inputs_agrees_with_the_pruning_rule(seed, which):
    """With inputs= the engine keeps the walk's counts when every end of the walk is an input's leaf (the
    shortcut), else prunes: either way the plan is what the rule says."""
    from autogradlab.engine import _plan
    from autogradlab.graph import GradientEdge
    loss = _random_graph(seed)
    leaves = [n.variable for n in _plan([loss.grad_fn], None).nodes if not n.priority]
    inner = GradientEdge(loss.grad_fn.edges[0], 0)
    inputs = {"all leaves": leaves, "one leaf": leaves[:1], "a leaf and a non-leaf": leaves[:1] + [inner]}[which]
    plan = _plan([loss.grad_fn], inputs)
    needed, deps, runs = _plan_by_definition(loss, inputs)
    assert set(plan.needed) == needed and dict(plan.deps) == deps and set(plan.runs) == runs


@pytest.mark.parametrize("create_graph, retain_graph", [(False, None), (True, None), (False, True), (True, False)])
@pytest.mark.parametrize("dtype", [ag.float32, ag.float64])
def test_the_arguments_of_loss_backward_agree_with_the_general_path(create_graph, retain_graph, dtype):
    """``loss.backward()`` (one scalar root, nothing else given) takes a short path in
    ``arguments.backward_arguments``; given as a list the same root takes the general one."""
    from autogradlab.arguments import backward_arguments
    x = ag.tensor([1.0, 2.0], dtype=dtype, requires_grad=True)
    loss = (x * x).sum()
    short = backward_arguments(loss, None, retain_graph, create_graph, None, None)
    general = backward_arguments([loss], None, retain_graph, create_graph, None, None)
    (roots, seeds, implicit, retain, inputs), (roots2, seeds2, implicit2, retain2, inputs2) = short, general
    assert roots == roots2 and tuple(implicit) == tuple(implicit2) and retain is retain2 and inputs is inputs2
    assert [(s.shape, s.dtype, s.device, s.requires_grad, s.tolist()) for s in seeds] == \
        [(s.shape, s.dtype, s.device, s.requires_grad, s.tolist()) for s in seeds2]


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("retain_graph", [None, False, True])
@pytest.mark.parametrize("given", ["tuple", "list", "one tensor", "a non-leaf too"])
@pytest.mark.parametrize("allow_unused", [None, True])
def test_the_arguments_of_grad_loss_params_agree_with_the_general_path(create_graph, retain_graph, given,
                                                                       allow_unused):
    """``grad(loss, params)`` (one scalar root, no grad_outputs) takes a short path in
    ``arguments.grad_arguments``; given as a list the same root takes the general one."""
    from autogradlab.arguments import grad_arguments
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    w = ag.tensor([[3.0]], dtype=ag.float64, requires_grad=True)
    h = x * 2.0
    loss = (h * h).sum() + w.sum()
    inputs = {"tuple": (x, w), "list": [x, w], "one tensor": x, "a non-leaf too": [h, x]}[given]
    short = grad_arguments(loss, inputs, None, retain_graph, create_graph, allow_unused, False)
    general = grad_arguments([loss], inputs, None, retain_graph, create_graph, allow_unused, False)
    (roots, ins, seeds, implicit, retain, unused), (roots2, ins2, seeds2, implicit2, retain2, unused2) = short, general
    assert roots == roots2 and ins == ins2 and type(ins) is tuple and tuple(implicit) == tuple(implicit2)
    assert retain is retain2 and unused is unused2
    assert [(s.shape, s.dtype, s.device, s.requires_grad, s.tolist()) for s in seeds] == \
        [(s.shape, s.dtype, s.device, s.requires_grad, s.tolist()) for s in seeds2]


def test_grad_refuses_what_the_short_path_does_not_take_with_the_general_paths_errors():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    loss = (x * x).sum()
    with pytest.raises(RuntimeError, match=r"does not require grad: inputs\[1\]"):
        ag.autograd.grad(loss, [x, ag.tensor([1.0])])
    with pytest.raises(TypeError, match=r"inputs\[0\] must be a Tensor"):
        ag.autograd.grad(loss, [[1.0]])
    with pytest.raises(RuntimeError, match="at least one input"):
        ag.autograd.grad(loss, [])
    assert x.grad is None


def test_a_leafs_edge_in_apply_is_its_grad_accumulator_also_after_the_old_one_is_gone():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2.0
    acc = x._grad_accumulator()
    assert y.grad_fn.next_functions[0][0] is acc       # the live one, read through the weak reference
    z = x + y
    assert z.grad_fn.next_functions[0][0] is acc
    del y, z, acc
    gc.collect()                                        # the graph, and with it the AccumulateGrad, is gone
    w = x * 3.0
    acc2 = w.grad_fn.next_functions[0][0]
    assert type(acc2).__name__ == "AccumulateGrad" and acc2.variable is x and acc2 is x._grad_accumulator()
    w.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])


@pytest.mark.parametrize("number", [0.5, 0.999, -3.0, 0.0, float("inf")])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_a_number_operand_takes_the_array_and_saved_value_constant_and_save_constant_give(number, dtype):
    x = ag.tensor([1.0, -2.0], dtype=dtype, requires_grad=True)
    kind = np.dtype("float32") if dtype == "float16" else None   # (mul keeps a number next to float16 in float32)
    for _ in range(2):                                  # the first use makes the shared array, the second reads it
        y = x * number
        c = constant(number, x, kind)
        kept = y.grad_fn._saved["other"]
        assert kept[1].dtype == c.dtype and float(kept[1]) == float(c)   # (source, data, vc, version)
        if number:                                      # shared: the very array and saved value of the slow path
            assert kept[1] is c and kept is save_constant(c)
        else:                                           # zeros are made each time (0.0 == -0.0 as a dict key)
            assert kept is not save_constant(c)


# -- registry.apply_unary / apply_binary (the operators' path) against registry.apply ----------------------

from autogradlab.graph import RESULT, OpNode                            # noqa: E402
from autogradlab.ops import elementwise as E                           # noqa: E402
from autogradlab.ops import registry                                     # noqa: E402
from autogradlab.ops.registry import apply, apply_binary, apply_unary  # noqa: E402
from conftest import import_torch                                       # noqa: E402

_NODE_FIELDS = [s for s in OpNode.__mro__[1].__slots__ if s not in ("seq", "__weakref__", "_saved", "_out_ref")]


def _same_result(fast, slow):
    """Two results of one op on the same inputs: same array, flags, node, edges, saved values and metadata."""
    assert type(fast) is type(slow) is ag.Tensor
    np.testing.assert_array_equal(fast._data, slow._data)
    assert (fast.dtype, fast.device, fast.requires_grad, fast._vc, fast._view) == \
           (slow.dtype, slow.device, slow.requires_grad, slow._vc, slow._view)
    if slow.grad_fn is None:
        assert fast.grad_fn is None
        return
    f, s = fast.grad_fn, slow.grad_fn
    assert type(f) is type(s) is OpNode and f.seq != s.seq
    for name in _NODE_FIELDS:
        a, b = getattr(f, name), getattr(s, name)
        if name == "edges":
            assert len(a) == len(b) and all(x is y for x, y in zip(a, b))
        else:
            assert a == b, name
    assert f._out_ref() is fast and s._out_ref() is slow
    assert list(f._saved or ()) == list(s._saved or ())
    for name, kept in (s._saved or {}).items():
        other = f._saved[name]
        (source, data, vc, version), (s_source, s_data, s_vc, s_version) = other, kept
        assert (source is s_source or name == "result" and source is s_source is RESULT) and version == s_version
        assert data is s_data or name == "result"


def _operands(case):
    x = ag.tensor([0.5, -1.5], requires_grad=True)
    w = ag.tensor([2.0, 0.25], requires_grad=True)
    c = ag.tensor([3.0, -0.5])
    return {"leaf, leaf": (x, w), "leaf, constant tensor": (x, c), "constant tensor, leaf": (c, w),
            "non-leaf, leaf": (x * 2.0, w), "no grad at all": (c, c * 2.0),
            "leaf, number's array": (x, constant(0.75, x)), "non-leaf, number's array": (x.tanh(), constant(3.0, x)),
            "float64 leaf, leaf": (ag.tensor([0.5, -1.5], dtype=ag.float64, requires_grad=True),
                                   ag.tensor([2.0, 0.25], dtype=ag.float64, requires_grad=True))}[case]


_CASES = ["leaf, leaf", "leaf, constant tensor", "constant tensor, leaf", "non-leaf, leaf", "no grad at all",
          "leaf, number's array", "non-leaf, number's array", "float64 leaf, leaf"]


def test_fitting_on_arrays_keeps_a_fitting_gradient_and_drops_one_with_nowhere_to_go():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    c = ag.tensor([3.0, 4.0])
    both = (x * x).grad_fn                     # a * a: one product sent to both inputs
    g = np.array([1.0, 1.0], dtype=np.float32)
    ga, gb = both.apply(g)
    assert ga is gb and ga.tolist() == [1.0, 2.0]   # (the engine adds the two: 2x)
    add = (x + c).grad_fn                      # add's VJP gives g to both; c takes none
    out = add.apply(g)
    assert out[0] is g and out[1] is None
    bias = (x.reshape(1, 2) + ag.tensor([[1.0, 1.0], [2.0, 2.0]])).grad_fn   # broadcast: summed back
    assert bias.apply(np.ones((2, 2), dtype=np.float32))[0].tolist() == [[2.0, 2.0]]


@pytest.mark.parametrize("case", _CASES)
@pytest.mark.parametrize("op", [E.ADD, E.SUB, E.MUL, E.MAXIMUM, E.TANH_BACKWARD, E._COMPARE["lt"]],
                         ids=lambda op: op.name)
@pytest.mark.parametrize("grad_mode", [True, False])
def test_apply_binary_makes_what_apply_makes(case, op, grad_mode):
    a, b = _operands(case)
    with ag.set_grad_enabled(grad_mode):
        slow = apply(op, (a, b))
        fast = apply_binary(op, a, b)
    _same_result(fast, slow)


@pytest.mark.parametrize("case", ["leaf", "non-leaf", "constant", "float64 leaf"])
@pytest.mark.parametrize("op", [E.TANH, E.EXP, E.NEG, E.RELU, E.SIGN], ids=lambda op: op.name)
@pytest.mark.parametrize("grad_mode", [True, False])
def test_apply_unary_makes_what_apply_makes(case, op, grad_mode):
    x = ag.tensor([0.5, -1.5], requires_grad=case != "constant")
    a = {"leaf": x, "non-leaf": x * 3.0, "constant": x,
         "float64 leaf": ag.tensor([0.5, -1.5], dtype=ag.float64, requires_grad=True)}[case]
    with ag.set_grad_enabled(grad_mode):
        slow = apply(op, (a,))
        fast = apply_unary(op, a)
    _same_result(fast, slow)


def test_the_operators_take_the_fast_paths_and_a_stale_view_or_a_number_error_takes_apply():
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    base = x * 1.0
    view = base[:2]
    base.mul_(2.0)                  # view's memory changed through its base: its history is taken again
    for make in (lambda v: v * v, lambda v: v + 0.5, lambda v: v.tanh()):
        v = base[:2]
        v2 = view
        fresh, stale = make(v), make(v2)
        np.testing.assert_array_equal(fresh._data, stale._data)
        g1, = ag.autograd.grad(fresh.sum(), x, retain_graph=True)
        g2, = ag.autograd.grad(stale.sum(), x, retain_graph=True)
        np.testing.assert_array_equal(g1.numpy(), g2.numpy())
    with pytest.raises(TypeError, match="expects a Tensor"):
        ag.exp(2.0)
    with pytest.raises(ValueError, match="cannot be broadcast") as fast_error:
        ag.tensor([1.0, 2.0]) * ag.tensor([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="cannot be broadcast") as slow_error:
        apply(E.MUL, (ag.tensor([1.0, 2.0]), ag.tensor([1.0, 2.0, 3.0])))
    assert str(fast_error.value) == str(slow_error.value)


@pytest.mark.parametrize("stale", [False, True], ids=["fresh view", "stale view"])
def test_a_view_operand_takes_apply_only_when_its_base_changed_since(stale, monkeypatch):
    """A view whose base is unchanged takes the fast path (W5's expanded gradient); a stale one, whose
    history must be taken again, goes through apply: the gradients are torch's either way."""
    torch = import_torch()
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    base = x * 1.0
    view = base[:2]
    if stale:
        base.mul_(2.0)              # the view's history must be taken again: apply does that
    calls = []
    monkeypatch.setattr(registry, "apply", lambda *args: calls.append(args) or apply(*args))
    fast_bin, fast_un = apply_binary(E.MUL, view, view), apply_unary(E.TANH, view)
    assert len(calls) == (2 if stale else 0)
    monkeypatch.undo()
    _same_result(fast_bin, apply(E.MUL, (view, view)))
    _same_result(fast_un, apply(E.TANH, (view,)))
    np.testing.assert_array_equal(fast_bin._data, (base._data[:2]) ** 2)
    g, = ag.autograd.grad(fast_bin.sum() + fast_un.sum(), x)
    xt = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    bt = xt * 1.0
    vt = bt[:2]
    if stale:
        bt.mul_(2.0)
    ((vt * vt).sum() + vt.tanh().sum()).backward()
    np.testing.assert_allclose(g.numpy(), xt.grad.numpy(), rtol=1e-6)


def test_the_fast_paths_tell_a_trace_what_apply_tells():
    def run(how):
        x = ag.tensor([0.5, -1.5], requires_grad=True, name="x")
        with ag.trace() as tape:
            y = how(E.MUL, (x, ag.tensor([2.0, 3.0])))
            z = how(E.TANH, (y,))
            how(E.ADD, (z, constant(0.5, z))).sum().backward()
        return [(type(e).__name__, getattr(e, "op", None)) for e in tape.events]

    fast = run(lambda op, args: apply_binary(op, *args) if len(args) == 2 else apply_unary(op, *args))
    assert fast == run(apply) and ("OpRecorded", "mul") in [(k, o) for k, o in fast]


def test_the_node_record_makes_sets_every_field_op_node_sets():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = ag.tensor([[3.0], [4.0]])
    out = x * y
    fast = out.grad_fn
    made = OpNode(E.MUL, fast.edges, fast.params, ((2,), (2, 1)), (x.dtype, y.dtype), out, "cpu")
    for name in OpNode.__mro__[1].__slots__:
        if name not in ("seq", "__weakref__", "_saved"):
            a, b = getattr(made, name), getattr(fast, name)
            if name == "_out_ref":
                assert a() is b() is out
            else:
                assert a == b, name
    assert made.seq == fast.seq + 1 and type(fast) is OpNode


def test_nodes_share_one_tuple_of_shapes_and_dtypes_per_combination():
    x = ag.tensor(np.ones((2, 3)), requires_grad=True)
    b = ag.tensor(np.ones(3))
    first, second = (x * b).grad_fn, (x * b).grad_fn
    assert first._input_shapes == ((2, 3), (3,)) and first._input_dtypes == (np.dtype("float64"),) * 2
    assert first._out_shape == (2, 3)
    assert first._input_shapes is second._input_shapes and first._input_dtypes is second._input_dtypes
    assert first._out_shape is second._out_shape
    other = (x * b.to(ag.float32)).grad_fn   # another dtype: a triple of its own
    assert other._input_dtypes == (np.dtype("float64"), np.dtype("float32"))
    assert other._input_dtypes is not first._input_dtypes
    again = (x * b).grad_fn   # the op's last shapes were other's: found again in the table, right
    assert again._input_dtypes is first._input_dtypes and again._input_shapes is first._input_shapes
    column = (x * ag.tensor(np.ones((2, 1)))).grad_fn   # same dtypes, other shapes: not the last triple
    assert column._input_shapes == ((2, 3), (2, 1)) and column._out_shape == (2, 3)
    cat = ag.cat([x, x, x]).grad_fn   # a variadic op: one shape and dtype per input
    assert cat._input_shapes == ((2, 3),) * 3 and cat._out_shape == (6, 3)


def test_the_shared_shapes_are_forgotten_past_their_limit_and_gradients_stay_right(monkeypatch):
    monkeypatch.setattr(registry, "_SHAPES_SEEN", {})
    for n in range(1, 4200):   # more combinations than it keeps: cleared on the way, never wrong
        x = ag.tensor(np.ones(n), requires_grad=True)
        (x * x).sum().backward()
        assert x.grad.shape == (n,)
    assert 0 < len(registry._SHAPES_SEEN) <= 4096


@pytest.mark.parametrize("array", [np.array(2.5, dtype=np.float32), np.array(-1.0), np.array([1.0, 2.0]),
                                   np.arange(6.0).reshape(2, 3)[:, :1], np.arange(3, dtype=np.float32)[None, :],
                                   np.arange(2, dtype=np.float16).reshape(2, 1), np.ones((1, 1), dtype=bool),
                                   np.zeros((0, 3), dtype=np.int64), np.arange(3.0)],
                         ids=["0-d f32", "0-d f64", "1-d", "column (not contiguous)", "row", "column f16",
                              "1x1 bool", "empty", "3"])
@pytest.mark.parametrize("shape", [(), (3,), (4, 1), (2, 3, 1), (2, 3), (4, 2, 3), (0, 3), (2, 0, 3), (1, 3),
                                   (3, 1, 1)])
def test_backend_broadcast_to_is_numpys_broadcast_to(array, shape):
    from autogradlab.backend import broadcast_to
    try:
        want = np.broadcast_to(array, shape)
    except ValueError:
        with pytest.raises(ValueError):
            broadcast_to(array, shape)
        return
    got = broadcast_to(array, shape)
    assert got.shape == want.shape and got.dtype == want.dtype
    # the same strides, except along axes of size 1 (never stepped along: NumPy gives them 0)
    assert [s for s, n in zip(got.strides, got.shape) if n != 1] == [s for s, n in zip(want.strides, want.shape) if n != 1]
    np.testing.assert_array_equal(got, want)
    assert not got.flags.writeable and (got.size == 0 or np.shares_memory(got, array))


def test_a_full_sums_gradient_is_a_view_and_the_leaf_takes_a_copy():
    x = ag.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    g = ag.tensor(3.0)
    x.sum().backward(g)
    assert x.grad._data.flags.writeable and not np.shares_memory(x.grad._data, g._data)
    np.testing.assert_array_equal(x.grad._data, np.full((2, 2), 3.0, dtype=np.float32))
    x.grad._data += 1.0                                  # .grad is the leaf's own array
    np.testing.assert_array_equal(g._data, 3.0)


def test_needs_input_grad_is_whether_each_edge_leads_somewhere():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    c = ag.tensor([3.0, 4.0])
    for out in (x * c, c * x, x * x, x.tanh(), ag.where(c > 3.0, x, c), ag.where(c > 3.0, c, x), ag.cat([x, c, x])):
        node = out.grad_fn
        assert node.needs_input_grad == tuple(e is not None for e in node.edges)
        assert node.needs_input_grad is node.needs_input_grad          # made once per node
    assert (x * c).grad_fn.needs_input_grad == (True, False) and (c * x).grad_fn.needs_input_grad == (False, True)


@pytest.mark.parametrize("op, params", [(ag.ops.REGISTRY["sum"], {"dims": (0,), "keepdim": True}),
                                        (ag.ops.REGISTRY["sum"], {"dims": (0, 1), "keepdim": False}),
                                        (ag.ops.REGISTRY["softmax"], {"dim": 1}),
                                        (ag.ops.REGISTRY["log_softmax"], {"dim": 0})], ids=str)
@pytest.mark.parametrize("requires_grad", [True, False])
def test_apply_unary_with_parameters_makes_what_apply_makes(op, params, requires_grad):
    a = ag.tensor([[0.5, -1.5, 2.0], [1.0, 0.0, -0.5]], requires_grad=requires_grad)
    _same_result(apply_unary(op, a, dict(params)), apply(op, (a,), dict(params)))


@pytest.mark.parametrize("params", [None, {"ta": True, "tb": False}, {"ta": False, "tb": True}, {"ta": True, "tb": True}])
@pytest.mark.parametrize("needs", [(True, True), (True, False), (False, True)])
def test_apply_binary_matmul_with_flags_makes_what_apply_makes(params, needs):
    rng = np.random.default_rng(1)
    a = ag.tensor(rng.standard_normal((3, 3)), requires_grad=needs[0])
    b = ag.tensor(rng.standard_normal((3, 3)), requires_grad=needs[1])
    matmul = ag.ops.REGISTRY["matmul"]
    _same_result(apply_binary(matmul, a, b, params), apply(matmul, (a, b), params))


@pytest.mark.parametrize("name, params, shares", [
    ("transpose", {"dim0": 0, "dim1": 1}, True), ("permute", {"dims": (1, 0)}, True),
    ("expand", {"shape": (3, 2, 2)}, True), ("reshape", {"shape": (4,)}, True),
    ("reshape", {"shape": (2, 2)}, True), ("getitem", {"index": (0, Ellipsis), "advanced": False}, True),
    ("sum", {"dims": (0,), "keepdim": False}, False)])
@pytest.mark.parametrize("case", ["leaf", "non-leaf", "constant", "no grad mode"])
def test_a_view_op_given_to_the_fast_paths_still_makes_a_view(name, params, shares, case):
    x = ag.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=case != "constant")
    a = x * 2.0 if case == "non-leaf" else x
    op = ag.ops.REGISTRY[name]
    with ag.set_grad_enabled(case != "no grad mode"):
        y = apply_unary(op, a, dict(params))
        slow = apply(op, (a,), dict(params))
    assert (y._vc is a._vc and y._view is not None) == shares   # a view shares a's version counter, as apply's
    _same_result(y, slow)


@pytest.mark.parametrize("array", [np.array([True, True, False]), np.arange(6, dtype=np.int8).reshape(2, 3),
                                   np.ones((2, 3), np.float16), np.linspace(0, 1, 24).reshape(2, 3, 4), np.ones(())],
                         ids=["bool", "int8", "float16", "float64 3-d", "0-d"])
@pytest.mark.parametrize("keepdim", [False, True])
def test_sums_forward_is_ndarray_sum(array, keepdim):
    from autogradlab.ops.reduce import _sum_forward, normalize_dims
    every = {(), normalize_dims(None, array.ndim), normalize_dims(0, array.ndim), normalize_dims(-1, array.ndim)}
    for dims in every if array.ndim else {()}:      # (a 0-d tensor's dim 0 reduces nothing: _reduce passes ())
        got, want = _sum_forward(np, array, dims, keepdim), array.sum(axis=dims, keepdims=keepdim)
        assert type(got) is type(want) and got.dtype == want.dtype and np.array_equal(got, want)


def test_normalize_dims_of_none_is_every_axis_for_any_ndim():
    from autogradlab.ops.reduce import normalize_dims
    for ndim in range(12):
        assert normalize_dims(None, ndim) == tuple(range(ndim))


def test_a_vjp_reading_back_a_numbers_array_records_it_as_a_constant_under_create_graph():
    x = ag.tensor([1.0, -2.0, 3.0], dtype=ag.float64, requires_grad=True)
    c = constant(0.25, x)                                         # what ctx.other gives back for x * 0.25
    y, z = E.mul(x, c), x * 0.25
    assert y.grad_fn.edges[1] is None and y.grad_fn._saved["other"] is z.grad_fn._saved["other"]
    v = ag.tensor([1.0, 1.0, 1.0], dtype=ag.float64, requires_grad=True)
    loss = (x * x).sum() * 0.25
    g, = ag.autograd.grad(loss, x, grad_outputs=v.sum(), create_graph=True)   # the VJP's v * 0.25 is recorded
    np.testing.assert_allclose(g._data, 0.5 * x._data * 3.0)
    dv, = ag.autograd.grad(g.sum(), v)                            # d/dv of sum(2 x * 0.25 * sum(v)) = sum(x) / 2
    np.testing.assert_allclose(dv._data, np.full(3, x._data.sum() / 2))


@pytest.mark.parametrize("writeable", [True, False], ids=["writable", "read-only"])
def test_a_users_array_operand_is_not_taken_as_a_shared_constant(writeable):
    """Only a number's shared array takes the constant fast path: a user's own array, read-only or not,
    is wrapped as before, so saved_tensors_hooks see it (a read-only one was once saved raw, unpacked)."""
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    w = np.array([3.0, 4.0], dtype=np.float32)                    # the user's own array: may change later
    w.flags.writeable = writeable
    y = x * w
    source = y.grad_fn._saved["other"][0]
    assert type(source) is ag.Tensor                        # wrapped as a tensor (promote), not kept as a PARAM
    np.testing.assert_allclose(y._data, [3.0, 8.0])
    packed = []
    with ag.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t._data.copy()) or t, lambda t: t):
        x * w
    assert [p.tolist() for p in packed] == [[3.0, 4.0]]



@pytest.mark.parametrize("needs", [(True, True), (True, False), (False, True), (False, False)])
def test_a_product_of_two_matrices_takes_the_fast_path_and_makes_what_apply_makes(needs):
    rng = np.random.default_rng(2)
    a = ag.tensor(rng.standard_normal((2, 3)), requires_grad=needs[0])
    b = ag.tensor(rng.standard_normal((3, 4)), requires_grad=needs[1])
    slow = apply(ag.ops.REGISTRY["matmul"], (a, b))
    _same_result(a @ b, slow)
    with pytest.raises(ValueError, match=r"shapes \(2, 3\) and \(2, 3\) cannot be multiplied"):
        a @ a                                                     # not fitting: the general path's message
    with pytest.raises(ValueError, match="cannot be multiplied"):
        a @ ag.tensor(rng.standard_normal((3, 4)))[:2]
    with pytest.raises(RuntimeError, match="same dtype"):                # (and no promotion, as in PyTorch)
        a @ ag.tensor(rng.standard_normal((3, 4)), dtype=ag.float32)


def test_backend_broadcast_to_makes_a_contiguous_arrays_view_itself(monkeypatch):
    from autogradlab import backend

    def refuse(*args, **kwargs):
        raise AssertionError("numpy.broadcast_to called for a contiguous array")
    monkeypatch.setattr(np, "broadcast_to", refuse)
    row = np.arange(3, dtype=np.float32)[None, :]
    got = backend.broadcast_to(row, (4, 2, 3))
    assert got.strides == (0, 0, 4) and got[3, 1].tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(AssertionError, match="contiguous"):   # any other array still goes to NumPy
        backend.broadcast_to(np.arange(6.0).reshape(2, 3)[:, :1], (2, 4))
    # a NumPy scalar (NumPy's result for 0-d arithmetic: g * c in the VJP of loss * c) is a 0-d array
    for scalar in (np.float32(2.5), np.float64(-1.0), np.int64(3)):
        got = backend.broadcast_to(scalar, (2, 3))
        assert got.shape == (2, 3) and got.dtype == scalar.dtype and got.strides == (0, 0)
        assert not got.flags.writeable and (got == scalar).all()


def test_a_scalar_gradient_reaching_a_sum_is_broadcast_without_numpy(monkeypatch):
    x = ag.tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3), requires_grad=True)
    loss = (x * x).sum() * ag.tensor(np.float32(0.5))   # the sum's node receives a NumPy scalar, g * 0.5

    def refuse(*args, **kwargs):
        raise AssertionError("numpy.broadcast_to called")
    monkeypatch.setattr(np, "broadcast_to", refuse)
    loss.backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.arange(6.0, dtype=np.float32).reshape(2, 3))


@pytest.mark.parametrize("call, want, fast", [
    (lambda a: ag.exp(a), lambda a: np.exp(a), True),
    (lambda a: ag.tanh(a), lambda a: np.tanh(a), True),
    (lambda a: ag.neg(a), lambda a: -a, True),
    (lambda a: ag.sum(a), lambda a: a.sum(), True),
    (lambda a: ag.sum(a, -1, keepdim=True), lambda a: a.sum(-1, keepdims=True), True),
    (lambda a: ag.sum(a, 0), lambda a: a.sum(0), True),
    (lambda a: ag.sum(a, (0, 1)), lambda a: a.sum((0, 1)), False),   # a tuple of dims: checked, then apply
], ids=["exp", "tanh", "neg", "sum", "sum dim keepdim", "sum 0", "sum tuple"])
def test_package_functions_on_a_vjps_arrays_skip_apply(monkeypatch, call, want, fast):
    """Inside a VJP that runs on arrays, ``exp(y)`` or ``sum(g, dim)`` runs the op's forward on the array
    without ``registry.apply``'s loop over inputs (what it cannot check quickly still goes through it)."""
    from autogradlab.ops import elementwise, reduce
    a = np.arange(6.0, dtype=np.float32).reshape(2, 3) / 4
    calls = []

    def counting(op, inputs, params=None):
        calls.append(op.name)
        return registry.apply(op, inputs, params)
    monkeypatch.setattr(elementwise, "apply", counting)
    monkeypatch.setattr(reduce, "apply", counting)
    monkeypatch.setattr(reduce, "apply_one", lambda op, x, params=None: counting(op, (x,), params))
    got = call(a)   # an array (a full sum: NumPy's scalar), no Tensor
    assert isinstance(got, (np.ndarray, np.generic)) and got.dtype == np.float32
    np.testing.assert_allclose(got, want(a), rtol=1e-6)
    assert (calls == []) is fast


def _sum_to_reference(a, shape):
    ref = a
    while ref.ndim > len(shape):
        ref = ref.sum(axis=0)
    for i, n in enumerate(shape):
        if n == 1 and ref.shape[i] != 1:
            ref = ref.sum(axis=i, keepdims=True)
    return np.asarray(ref)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32, bool])
@pytest.mark.parametrize("shape", [(3, 4), (1, 4), (3, 1), (4,), (), (1, 1, 1), (2, 1, 4), (1, 3, 1), (2, 3, 4), (1,)])
def test_sum_to_sums_the_broadcast_axes_into_a_new_array(dtype, shape):
    from autogradlab.graph import sum_to
    a = (np.arange(24).reshape(2, 3, 4) % 5).astype(dtype)
    got, want = sum_to(a, shape), _sum_to_reference(a, shape)
    assert type(got) is np.ndarray and got.shape == shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    assert shape == a.shape or not np.shares_memory(got, a)


@pytest.mark.parametrize("name", ["sum", "mean"])   # (amax and amin check for emptiness first, by reduction_dims)
@pytest.mark.parametrize("fast, checked", [(None, (0, 1, 2)), (1, np.int64(1)), (-1, (2,)), (-3, [0])])
@pytest.mark.parametrize("keepdim", [False, True])
def test_a_reduction_over_every_axis_or_one_int_dim_makes_what_the_checked_path_makes(name, fast, checked, keepdim,
                                                                                        monkeypatch):
    from autogradlab.ops import reduce as R
    x = ag.tensor((np.arange(24.0).reshape(2, 3, 4) % 5), requires_grad=True)
    slow = getattr(R, name)(x, checked, keepdim)               # (a tuple, list or NumPy int: normalize_dims)
    monkeypatch.setattr(R, "reduction_dims", None)             # the fast path must not need it
    _same_result(getattr(R, name)(x, fast, keepdim), slow)


def _saved_as_the_general_rule_keeps_it(op, make, monkeypatch):
    """``make()``'s node's saved values, recorded once by ``_record``'s short form for ``op`` and once
    by its general loop (the op's ``save_kind`` cleared): per value its name, source, array, which
    version counter it keeps, the version, and whether it is a number's shared saved value."""
    from autogradlab.graph import _SHARED_CONSTANTS

    def kept():
        out = make()

        def counter(source, vc):
            if vc is out._vc:
                return "the output's counter"
            return "the input's own counter" if isinstance(source, ag.Tensor) and vc is source._vc else vc

        return [(name, s[0], "the output's array" if s[1] is out._data else s[1], counter(s[0], s[2]), s[3],
                 s is _SHARED_CONSTANTS.get(id(s[1]))) for name, s in out.grad_fn._saved.items()]
    fast = kept()
    monkeypatch.setattr(op, "save_kind", None)
    general = kept()
    monkeypatch.undo()
    return fast, general


def test_each_op_of_the_two_written_out_saving_rules_is_marked_and_no_other():
    from autogradlab.ops.registry import REGISTRY, SAVES_CROSSWISE, SAVES_RESULT
    for op in REGISTRY.values():
        output_alone = op.save_result == (None,) and not op.save_inputs and not op.save_params
        crosswise = ([(i, k) for _, i, k in op.save_inputs] == [(0, 1), (1, 0)] and not op.save_result
                     and not op.save_params)
        assert (op.save_kind is SAVES_RESULT) == output_alone, op.name
        assert (op.save_kind is SAVES_CROSSWISE) == crosswise, op.name
    marked = {kind: sorted(op.name for op in REGISTRY.values() if op.save_kind is kind)
              for kind in (SAVES_RESULT, SAVES_CROSSWISE)}
    assert {"exp", "tanh", "sigmoid", "relu", "softmax", "log_softmax"} <= set(marked[SAVES_RESULT])
    assert marked[SAVES_CROSSWISE] == ["dot", "einsum2", "matmul", "mul"]
    assert REGISTRY["div"].save_kind is REGISTRY["pow"].save_kind is REGISTRY["maximum"].save_kind is None


_PRODUCT_CASES = [(op, needs) for op in ("mul", "matmul", "dot") for needs in ("both", "first", "second", "parameter")]


@pytest.mark.parametrize("op_name,needs", _PRODUCT_CASES + [
    ("mul", "number"), ("mul", "number first"), ("mul", "zero")])
def test_a_product_keeps_what_the_general_saving_rule_keeps(op_name, needs, monkeypatch):
    rg = {"first": (True, False), "second": (False, True)}.get(needs, (True, True))
    shape = (2,) if op_name == "dot" else (2, 2)
    x = ag.tensor(np.arange(1.0, 5.0)[:np.prod(shape)].reshape(shape), requires_grad=rg[0])
    y = ag.tensor(np.arange(0.5, 2.5, 0.5)[:np.prod(shape)].reshape(shape), requires_grad=rg[1])
    if needs == "parameter":                    # a Tensor subclass is a Tensor operand, not a constant
        y = ag.nn.Parameter(y.detach().numpy().copy())
    with ag.no_grad():                          # versions 1 and 2: the saved version is each one's own
        x.add_(0.0), y.add_(0.0), y.add_(0.0)
    op = registry.REGISTRY[op_name]
    make = {"mul": lambda: x * y, "matmul": lambda: x @ y, "dot": lambda: ag.dot(x, y)}[op_name]
    if needs == "number":            # a Python number: its shared constant array, no edge
        make = lambda: x * 0.5      # noqa: E731
    elif needs == "number first":
        make = lambda: 0.5 * x      # noqa: E731
    elif needs == "zero":            # 0.0's array is not shared: saved as a value of its own
        make = lambda: x * 0.0      # noqa: E731
    fast, general = _saved_as_the_general_rule_keeps_it(op, make, monkeypatch)
    assert fast == general and fast
    kept = {name: (counter, version, shared) for name, _, _, counter, version, shared in fast}
    if needs in ("first", "second"):            # only the other operand's gradient needs each one
        assert len(kept) == 1
    if needs in ("both", "parameter"):
        assert kept == {"self": ("the input's own counter", 1, False), "other": ("the input's own counter", 2, False)}
    if needs.startswith("number"):
        assert [shared for *_, shared in fast] == [True]
    if needs == "zero":
        assert [shared for *_, shared in fast] == [False]


@pytest.mark.parametrize("op,params", [(E.TANH, None), (E.EXP, None), (E.RELU, None), (E.SIGMOID, None),
                                       (E.SQRT, None), (registry.REGISTRY["softmax"], {"dim": 0}),
                                       (registry.REGISTRY["log_softmax"], {"dim": 0})],
                         ids=lambda v: getattr(v, "name", "params"))
def test_an_op_that_keeps_its_output_keeps_what_the_general_saving_rule_keeps(op, params, monkeypatch):
    x = ag.tensor([0.5, 1.5], requires_grad=True)
    fast, general = _saved_as_the_general_rule_keeps_it(op, lambda: apply_unary(op, x, params), monkeypatch)
    assert fast == general == [("result", RESULT, "the output's array", "the output's counter", 0, False)]


def test_saved_tensor_hooks_still_pack_what_the_short_forms_keep():
    x = ag.tensor([0.5, -1.5], requires_grad=True)
    packed = []
    with ag.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t.shape) or t, lambda t: t):
        y = (x * x).tanh()
    assert packed == [(2,), (2,), (2,)]        # mul's two operands, then tanh's output
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), (1 - np.tanh([0.25, 2.25]) ** 2) * 2 * np.array([0.5, -1.5]),
                               rtol=1e-6)
