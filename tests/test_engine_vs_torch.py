"""Differential tests: the same random program runs in autogradlab and in PyTorch.

A hypothesis strategy builds a small random graph from the op library (fan-out,
shared subexpressions, broadcasting, reductions, matmul) over float64 leaves,
then a sequence of up to three backward/grad calls on it (several roots,
``inputs=`` subsets, ``retain_graph`` / ``create_graph`` sequences, grad of
grad). After every call both frameworks must agree on:

* whether the call raised, and the exception class;
* every leaf's ``.grad`` (None-ness, values, whether it holds a graph), every
  retained non-leaf's ``.grad`` and ``retains_grad`` flags, the results of
  ``autograd.grad``;
* the order in which the op nodes ran (a ``register_prehook`` on every op
  node) and the leaves accumulated (a tensor hook on every leaf), exactly:
  leaves released together tie, and both heaps break the tie the same way
  (where PyTorch also ran a node autogradlab does not, below, its heap held
  more, so leaves released together are compared as a set there).

Documented deliberate differences are accounted for: with ``backward(inputs=)``
PyTorch also runs a non-leaf input's own ``grad_fn`` (and so frees its saved
tensors); autogradlab does not. A freed graph is detected by autogradlab before
anything accumulates, while PyTorch raises mid-pass, so the program stops at
the first "backward through the graph a second time" error.

So are two PyTorch implementation artefacts autogradlab does not copy (each
is checked where it applies, and the program stops if later calls could
legitimately differ):

* a lone root's node is always evaluated by PyTorch (no GraphRoot node is made),
  so its tensor hooks and ``retain_grad`` run even when ``inputs=`` prunes it;
* ``backward(inputs=)`` calls ``retain_grad()`` on the inputs before validating
  them, so a failing call can still leave an input retaining its grad;
* a matmul with a 1-D operand is three nodes in PyTorch (unsqueeze, mm, squeeze),
  one here: PyTorch's leaf behind the unsqueeze is released one node later, so
  in such a program the leaves released together are compared as a set.

A seed that requires grad is only used with ``create_graph=True``: without it
PyTorch's ``grad()`` may return such a seed object as is, although its documentation
(followed by autogradlab) says the seed is treated as not requiring grad.
"""
from __future__ import annotations

import numpy as np
import pytest
from conftest import import_torch
from hypothesis import HealthCheck, example, given, settings, strategies as st

import autogradlab as ag

torch = import_torch()

SHAPES = [(), (1,), (3,), (1, 3), (2, 1), (2, 3)]   # all broadcast together inside (2, 3)
W_SHAPE = (3, 3)                                     # the matmul weight, one per program

SMOOTH_UNARY = ["neg", "sin", "cos", "tanh", "sigmoid", "mul_c", "add_c", "pow2", "pow3", "clone",
                "exp", "log", "sqrt", "fn_cube"]        # fn_*: custom autograd.Function
SMOOTH_BINARY = ["add", "sub", "mul", "div", "fn_mul"]
SHAPE_OPS = ["sum_all", "sum_dim", "mean_all", "mean_dim", "expand", "select0", "transpose2", "matmul"]
NONSMOOTH = ["relu", "abs", "maximum", "minimum", "amax", "clamp"]
FIRST_ORDER_OPS = SMOOTH_UNARY + SMOOTH_BINARY + SHAPE_OPS + NONSMOOTH
SECOND_ORDER_OPS = SMOOTH_UNARY + SMOOTH_BINARY + SHAPE_OPS


# ---------------------------------------------------------------------------------------
# the program: leaves, then primitive steps (one graph node each), then calls
# ---------------------------------------------------------------------------------------

def _cube_forward(ctx, x):
    ctx.save_for_backward(x)
    return x * x * x


def _cube_backward(ctx, g):
    (x,) = ctx.saved_tensors
    return g * 3 * x * x


def _scaled_mul_forward(ctx, x, scale, y):   # a non-tensor argument in the middle
    ctx.save_for_backward(x, y)
    ctx.scale = scale
    return x * y * scale


def _scaled_mul_backward(ctx, g):
    x, y = ctx.saved_tensors
    gx = g * y * ctx.scale if ctx.needs_input_grad[0] else None
    gy = g * x * ctx.scale if ctx.needs_input_grad[2] else None
    return gx, None, gy


def _function(base, name, forward, backward):
    return type(name, (base,), {"forward": staticmethod(forward), "backward": staticmethod(backward)})


TorchCube = _function(torch.autograd.Function, "Cube", _cube_forward, _cube_backward)
AgCube = _function(ag.autograd.Function, "Cube", _cube_forward, _cube_backward)
TorchScaledMul = _function(torch.autograd.Function, "ScaledMul", _scaled_mul_forward, _scaled_mul_backward)
AgScaledMul = _function(ag.autograd.Function, "ScaledMul", _scaled_mul_forward, _scaled_mul_backward)


def _primitive(name, a, b, param, F):
    """One primitive step in framework ``F`` (torch or autogradlab): exactly one new node."""
    if name == "add":
        return a + b
    if name == "sub":
        return a - b
    if name == "mul":
        return a * b
    if name == "div":
        return a / b
    if name == "maximum":
        return F.maximum(a, b)
    if name == "minimum":
        return F.minimum(a, b)
    if name == "matmul":
        return a @ b
    if name == "mul_c":
        return a * param
    if name == "add_c":
        return a + param
    if name == "pow":
        return a ** param
    if name == "sum_all":
        return a.sum()
    if name == "sum_dim":
        return a.sum(param[0], keepdim=param[1])
    if name == "mean_all":
        return a.mean()
    if name == "mean_dim":
        return a.mean(param[0], keepdim=param[1])
    if name == "expand":
        return a.expand(*param)
    if name == "select0":
        return a[0]
    if name == "transpose":
        return a.transpose(0, 1)
    if name == "fn_cube":
        return (TorchCube if F is torch else AgCube).apply(a)
    if name == "fn_mul":
        return (TorchScaledMul if F is torch else AgScaledMul).apply(a, 0.5, b)
    if name == "amax":
        return a.amax()
    if name == "clamp":
        return a.clamp(-0.5, 0.5)
    return getattr(a, name)()   # neg sin cos tanh sigmoid exp log sqrt relu abs clone


@st.composite
def programs(draw, ops, max_steps=10, max_calls=3, second_order=False):
    n_leaves = draw(st.integers(1, 4))
    leaves = [(draw(st.sampled_from(SHAPES)), draw(st.sampled_from([True, True, True, False])))
              for _ in range(n_leaves)]
    leaves.append((W_SHAPE, draw(st.booleans())))
    shapes = [s for s, _ in leaves]
    visible = list(range(n_leaves))          # nodes later steps may use as operands
    steps = []                               # (name, (arg indices), param)

    req = [r for _, r in leaves]             # whether each node requires grad (known statically)

    def emit(name, args, param, shape, show=True):
        steps.append((name, tuple(args), param))
        shapes.append(shape)
        req.append(any(req[a] for a in args))
        if show:
            visible.append(len(shapes) - 1)
        return len(shapes) - 1

    rnd = draw(st.randoms(use_true_random=True))   # node picks: seeded by hypothesis, but uniform

    def pick(pool):
        # mostly the newest nodes (depth), else any (fan-out, shared subexpressions)
        u = rnd.random()
        return pool[-1] if u < 0.4 else rnd.choice(pool[-3:] if u < 0.7 else pool)

    def operand():
        return pick(visible)

    for _ in range(draw(st.integers(2, max_steps))):
        op = draw(st.sampled_from(ops))
        a = operand()
        sa = shapes[a]
        if op in ("add", "sub", "mul", "maximum", "minimum", "fn_mul"):
            b = operand()
            emit(op, (a, b), None, np.broadcast_shapes(sa, shapes[b]))
        elif op == "div":              # a / (b*b + 1): never near zero
            b = operand()
            bb = emit("mul", (b, b), None, shapes[b])
            d = emit("add_c", (bb,), 1.0, shapes[b])
            emit("div", (a, d), None, np.broadcast_shapes(sa, shapes[b]))
        elif op in ("log", "sqrt"):    # of a*a + 1
            sq = emit("mul", (a, a), None, sa)
            p = emit("add_c", (sq,), 1.0, sa)
            emit(op, (p,), None, sa)
        elif op == "exp":              # of tanh(a): bounded
            t = emit("tanh", (a,), None, sa)
            emit("exp", (t,), None, sa)
        elif op in ("pow2", "pow3"):
            emit("pow", (a,), 2 if op == "pow2" else 3, sa)
        elif op in ("mul_c", "add_c"):
            emit(op, (a,), draw(st.sampled_from([-1.5, 0.5, 2.0])), sa)
        elif op in ("sum_all", "mean_all", "amax"):
            emit(op, (a,), None, ())
        elif op in ("sum_dim", "mean_dim"):
            if not sa:
                continue
            d = draw(st.integers(-len(sa), len(sa) - 1))
            keep = draw(st.booleans())
            out = tuple(n for i, n in enumerate(sa) if i != d % len(sa))
            if keep or out not in SHAPES:
                keep, out = True, tuple(1 if i == d % len(sa) else n for i, n in enumerate(sa))
            emit(op, (a,), (d, keep), out)
        elif op == "expand":
            if sa == (2, 3):
                continue
            emit("expand", (a,), (2, 3), (2, 3))
        elif op == "select0":
            if not sa:
                continue
            emit("select0", (a,), None, sa[1:])
        elif op == "transpose2":       # there and back: the middle shape is outside SHAPES
            if len(sa) != 2:
                continue
            t = emit("transpose", (a,), None, sa[::-1], show=False)
            emit("transpose", (t,), None, sa)
        elif op == "matmul":
            if not sa or sa[-1] != 3:
                continue
            emit("matmul", (a, n_leaves), None, sa)
        else:
            emit(op, (a,), None, sa)
    if not steps:
        emit("neg", (visible[0],), None, shapes[visible[0]])

    n_nodes = len(shapes)

    req_steps = [i for i in range(n_leaves + 1, n_nodes) if req[i]]
    req_nodes = [i for i in range(n_nodes) if req[i]]

    def node():
        # mostly a step that requires grad; now and then any node (leaves, constants: errors)
        if rnd.random() < 0.12 or not req_nodes:
            return rnd.randrange(n_nodes)
        return pick(req_steps if req_steps and rnd.random() < 0.85 else req_nodes)

    calls = []
    create_before = False
    for c in range(draw(st.integers(1, max_calls))):
        if c and draw(st.integers(0, 2)) == 0:
            roots = list(calls[-1]["roots"])        # the same roots again: retain_graph sequences
        else:
            roots = [node() for _ in range(draw(st.integers(1, 3)))]
        create = second_order and draw(st.booleans())
        seeds = []
        for r in roots:
            one = int(np.prod(shapes[r], dtype=int)) == 1
            choices = ["auto", "auto", "rand"] * 4 if one else ["rand"] * 12
            choices += ["auto", "badshape"]      # errors: an implicit seed for a non-scalar, a bad shape
            if create:   # (without create_graph PyTorch's grad() may hand such a seed back as is)
                choices += ["rand_req"] * 2
            seeds.append(draw(st.sampled_from(choices)))
        kind = draw(st.sampled_from(["backward", "backward", "tensor_backward", "grad", "grad"]))
        if kind == "grad":
            inputs = [node() for _ in range(draw(st.integers(1, 3)))]
        else:
            inputs = None if draw(st.booleans()) else [node() for _ in range(draw(st.integers(1, 3)))]
        derived = second_order and create_before and draw(st.booleans())
        calls.append(dict(
            kind=kind, roots=roots, seeds=seeds, seeds_as_none=draw(st.booleans()),
            retain=draw(st.sampled_from([None, True, True, False])), create=create,
            inputs=inputs, allow_unused=draw(st.sampled_from([None, True, True, True, False])),
            materialize=draw(st.integers(0, 4)) == 0, derived=derived))
        create_before = create_before or create
    # tensor hooks (a few double the gradient flowing on) and retain_grad() on some non-leaves
    hooks = {i: ("double" if rnd.random() < 0.25 else "record") for i in req_nodes if rnd.random() < 0.3}
    retained = [i for i in req_steps if rnd.random() < 0.2]
    return dict(seed=draw(st.integers(0, 2**31 - 1)), leaves=leaves, steps=steps, shapes=shapes,
                calls=calls, hooks=hooks, retained=retained, early_accumulators=draw(st.booleans()))


# ---------------------------------------------------------------------------------------
# running one program in one framework
# ---------------------------------------------------------------------------------------

class World:
    """One framework's copy of the program: its tensors, hooks and what they recorded."""

    def __init__(self, F, prog):
        self.is_torch = F is torch
        rng = np.random.default_rng(prog["seed"])
        self.tensors = []
        self.leaves = []          # tensors whose .grad is compared (program leaves, seeds that require grad)
        self.log = []
        for j, (shape, req) in enumerate(prog["leaves"]):
            t = self.tensor(rng.uniform(-1.5, 1.5, size=shape), req)
            if req:
                t.register_hook(lambda g, j=j: self.log.append(("leaf", j)))
                t.register_post_accumulate_grad_hook(lambda t, j=j: self.log.append(("post", j)))
            self.tensors.append(t)
            self.leaves.append(t)
        # an op on every leaf before the program makes the leaves' AccumulateGrad nodes the oldest
        # nodes: only their priority (not creation order) then lets them run as soon as they are ready
        self.keep = [t * 1 for t in self.leaves if t.requires_grad] if prog["early_accumulators"] else []
        self.grad_fns = []
        for i, (name, args, param) in enumerate(prog["steps"]):
            a = self.tensors[args[0]]
            b = self.tensors[args[1]] if len(args) > 1 else None
            out = _primitive(name, a, b, param, F)
            if out.grad_fn is not None:
                out.grad_fn.register_prehook(lambda g, i=i: self.log.append(("op", i)))
            self.grad_fns.append(out.grad_fn)
            self.tensors.append(out)
        for k, kind in sorted(prog["hooks"].items()):
            self.tensors[k].register_hook(lambda g, k=k, kind=kind: self.hook(g, k, kind))
        for k in prog["retained"]:
            self.tensors[k].retain_grad()
        self.last_result = None

    def hook(self, g, k, kind):
        self.log.append(("leafhook" if self.tensors[k].grad_fn is None else "tensor", k))
        return g * 2 if kind == "double" else None

    def tensor(self, array, requires_grad=False):
        if self.is_torch:
            return torch.tensor(array, dtype=torch.float64, requires_grad=requires_grad)
        return ag.tensor(np.asarray(array, dtype=np.float64), requires_grad=requires_grad)

    def roots_of(self, call, seed_values):
        if call["derived"]:
            if self.last_result is None:   # after backward(create_graph=True): the leaves' .grad
                srcs = [t.grad for t in self.leaves if t.grad is not None]
            else:                          # after grad(create_graph=True): its results
                srcs = [g for g in self.last_result if g is not None]
            if not srcs:
                return None, None
            roots = [(g * g).sum() for g in srcs]
            return roots, [None] * len(roots)
        roots = [self.tensors[r] for r in call["roots"]]
        seeds = []
        for kind, value in zip(call["seeds"], seed_values):
            if kind == "auto":
                seeds.append(None)
            else:
                s = self.tensor(value, requires_grad=(kind == "rand_req"))
                if kind == "rand_req":
                    self.leaves.append(s)
                seeds.append(s)
        return roots, seeds

    def call(self, call, seed_values):
        """Run one call; returns the exception (or None). Fills self.log."""
        self.log.clear()
        roots, seeds = self.roots_of(call, seed_values)
        if roots is None:
            return "skip"
        A = torch.autograd if self.is_torch else ag.autograd
        grad_tensors = None if call["seeds_as_none"] and all(s is None for s in seeds) else seeds
        inputs = None if call["inputs"] is None else [self.tensors[i] for i in call["inputs"]]
        kw = dict(retain_graph=call["retain"], create_graph=call["create"])
        try:
            if call["kind"] == "grad":
                self.last_result = A.grad(roots, inputs, grad_tensors, allow_unused=call["allow_unused"],
                                          materialize_grads=call["materialize"], **kw)
            elif call["kind"] == "tensor_backward" and len(roots) == 1:
                self.last_result = None
                roots[0].backward(None if grad_tensors is None else grad_tensors[0], inputs=inputs, **kw)
            else:
                self.last_result = None
                A.backward(roots, grad_tensors, inputs=inputs, **kw)
        except Exception as exc:  # noqa: BLE001 (the class is what is compared)
            self.last_result = None
            return exc
        return None

    def order(self, exact=True):
        """The recorded order; unless ``exact``, consecutive leaf accumulations as one set."""
        if exact:
            return list(self.log)
        out = []
        for tok in self.log:
            if tok[0] in ("leaf", "leafhook", "post"):
                if out and isinstance(out[-1], frozenset):
                    out[-1] = out[-1] | {tok}
                    continue
                out.append(frozenset([tok]))
            else:
                out.append(tok)
        return out

    def snapshot(self):
        """Everything a call may change, as plain values."""
        def val(t):
            if t is None:
                return None
            return np.array(t.detach().numpy(), dtype=np.float64), bool(t.requires_grad)
        grads = [val(t.grad) for t in self.leaves]
        retained = [(bool(t.retains_grad), val(t.grad) if t.retains_grad else None)
                    for t in self.tensors if t.grad_fn is not None]
        result = None if self.last_result is None else [val(g) for g in self.last_result]
        return dict(grads=grads, retained=retained, result=result)


def _same_values(a, b, what):
    if a is None or b is None:
        assert a is None and b is None, f"{what}: torch {a!r} vs autogradlab {b!r}"
        return
    np.testing.assert_allclose(b[0], a[0], rtol=1e-7, atol=1e-9, err_msg=what)
    assert a[1] == b[1], f"{what}: requires_grad torch {a[1]} vs autogradlab {b[1]}"


def _compare_snapshots(ts, gs, where):
    assert len(ts["grads"]) == len(gs["grads"])
    for j, (a, b) in enumerate(zip(ts["grads"], gs["grads"])):
        _same_values(a, b, f"{where}: leaf {j} .grad")
    for k, (a, b) in enumerate(zip(ts["retained"], gs["retained"])):
        assert a[0] == b[0], f"{where}: non-leaf {k} retains_grad torch {a[0]} vs autogradlab {b[0]}"
        _same_values(a[1], b[1], f"{where}: retained non-leaf {k} .grad")
    if ts["result"] is None or gs["result"] is None:
        assert ts["result"] is None and gs["result"] is None
    else:
        for i, (a, b) in enumerate(zip(ts["result"], gs["result"])):
            _same_values(a, b, f"{where}: grad() result {i}")


def _reaches(fn, targets):
    """True if the torch node ``fn`` leads (strictly below it) to one of ``targets`` (nodes)."""
    seen, stack = set(), [f for f, _ in fn.next_functions if f is not None]
    while stack:
        n = stack.pop()
        if n in targets:
            return True
        if n in seen:
            continue
        seen.add(n)
        stack.extend(f for f, _ in n.next_functions if f is not None)
    return False


def _vector_matmul(prog):
    """Whether the program has a matmul of a 1-D operand (PyTorch: unsqueeze, mm and squeeze nodes)."""
    return any(name == "matmul" and len(prog["shapes"][args[0]]) == 1 for name, args, _ in prog["steps"])


def _torch_only_nodes(tw, call):
    """Step indices whose grad_fn PyTorch runs but autogradlab does not (documented difference 1):
    a non-leaf ``backward(inputs=)`` input whose node leads to no other input."""
    if call["kind"] == "grad" or call["inputs"] is None:
        return set()
    inputs = [tw.tensors[i] for i in call["inputs"]]
    nodes = {}
    for i, t in zip(call["inputs"], inputs):
        if t.grad_fn is not None:
            nodes[t.grad_fn] = i
        elif t.requires_grad:
            nodes[_accumulator(t)] = i
    only = set()
    for fn, i in nodes.items():
        if isinstance(i, int) and tw.tensors[i].grad_fn is fn and not _reaches(fn, set(nodes) - {fn}):
            only.add(tw.grad_fns.index(fn) if fn in tw.grad_fns else -1)
    return only


def _lone_root_outside_inputs(tw, call, hooks):
    """PyTorch always evaluates the node of a single root (no GraphRoot is made): its tensor hooks
    and retain_grad run even when ``inputs=`` prunes it. autogradlab runs only the pruned graph.
    True when that happened to a root with hooks or a retained gradient."""
    if call["derived"] or call["inputs"] is None or len(call["roots"]) != 1:
        return False
    root = tw.tensors[call["roots"][0]]
    if not root.requires_grad or not (root.grad_fn is None or call["roots"][0] in hooks or root.retains_grad):
        return False
    targets = set()
    for i in call["inputs"]:
        t = tw.tensors[i]
        if t.requires_grad:
            targets.add(t.grad_fn if t.grad_fn is not None else _accumulator(t))
    node = root.grad_fn if root.grad_fn is not None else _accumulator(root)
    return node not in targets and not _reaches(node, targets)


def _accumulator(t):
    return t.view_as(t).grad_fn.next_functions[0][0]


def run_differential(prog):
    tw, gw = World(torch, prog), World(ag, prog)
    values_rng = np.random.default_rng(prog["seed"] + 1)
    for c, call in enumerate(prog["calls"]):
        where = f"call {c} ({call['kind']})"
        seed_values = []
        for r, kind in zip(call["roots"], call["seeds"]):
            shape = prog["shapes"][r]
            if kind == "badshape":
                shape = (2,) + tuple(shape)
            seed_values.append(values_rng.uniform(-1.5, 1.5, size=shape))
        te = tw.call(call, seed_values)
        ge = gw.call(call, seed_values)
        if isinstance(te, str) or isinstance(ge, str):
            assert te == ge == "skip", f"{where}: only one framework had roots to derive"
            continue
        extra = _torch_only_nodes(tw, call)
        if extra and ge is None and "second time" in str(te):
            return  # PyTorch ran (and found freed) a non-leaf input's own node; autogradlab need not
        assert type(te) is type(ge), (f"{where}: torch raised {te!r}, autogradlab raised {ge!r}")
        if _lone_root_outside_inputs(tw, call, prog["hooks"]):
            return  # PyTorch runs the hooks of a lone root even when pruned (see the docstring)
        if te is not None:
            if "second time" in str(te):
                assert "second time" in str(ge)
                return  # PyTorch may have accumulated part of the pass before raising: stop here
            if "not have been used" in str(te):
                assert "not have been used" in str(ge)
                return  # PyTorch runs the pass (retained grads fill) before raising; autogradlab refuses first
            ts, gs = tw.snapshot(), gw.snapshot()
            _compare_snapshots(dict(ts, retained=[]), dict(gs, retained=[]), where)
            if [r[0] for r in ts["retained"]] != [r[0] for r in gs["retained"]]:
                return  # PyTorch's backward(inputs=) calls retain_grad() on inputs before validating them
            continue
        # (PyTorch's heap also held nodes autogradlab does not run, or has nodes autogradlab does not make: see the
        # docstring)
        exact = not extra and not _vector_matmul(prog)
        t_order = [tok for tok in tw.order(exact) if not (isinstance(tok, tuple) and tok[0] == "op"
                                                           and tok[1] in extra)]
        # dropping a node can leave two leaf sets side by side: merge them again
        merged = []
        for tok in t_order:
            if isinstance(tok, frozenset) and merged and isinstance(merged[-1], frozenset):
                merged[-1] = merged[-1] | tok
            else:
                merged.append(tok)
        assert merged == gw.order(exact), f"{where}: node order differs"
        _compare_snapshots(tw.snapshot(), gw.snapshot(), where)
        ran_extra = any(tok in tw.log for tok in (("op", i) for i in extra))
        retain = call["retain"] if call["retain"] is not None else call["create"]
        if ran_extra and not retain:
            return  # PyTorch freed a node autogradlab kept: later calls may legitimately differ


FAST = settings(max_examples=800, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


pytestmark = pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True:UserWarning")


# found by hypothesis: a vector @ matrix whose two leaves PyTorch releases one node apart (see the docstring)
VECTOR_MATMUL = {
    "seed": 0, "leaves": [((3,), True), ((3, 3), True)],
    "steps": [("matmul", (0, 1), None), ("neg", (2,), None), ("neg", (2,), None), ("neg", (3,), None),
              ("neg", (3,), None), ("neg", (4,), None), ("neg", (6,), None), ("neg", (8,), None), ("neg", (9,), None),
              ("neg", (9,), None)],
    "shapes": [(3,), (3, 3)] + [(3,)] * 10,
    "calls": [{"kind": "backward", "roots": [6], "seeds": ["rand"], "seeds_as_none": False, "retain": None,
               "create": False, "inputs": None, "allow_unused": None, "materialize": True, "derived": False}],
    "hooks": {0: "double", 7: "record", 10: "record"}, "retained": [2], "early_accumulators": False}


@FAST
@given(programs(FIRST_ORDER_OPS))
@example(prog=VECTOR_MATMUL)
def test_random_first_order_programs_match_torch(prog):
    run_differential(prog)


@settings(FAST, max_examples=500)
@given(programs(SECOND_ORDER_OPS, max_steps=6, second_order=True))
def test_random_higher_order_programs_match_torch(prog):
    run_differential(prog)


def test_a_node_hook_that_edits_a_full_sums_gradient_in_place_is_seen_like_torch():
    # s (0-d) * y (3x4): s's gradient is a full sum of g * y; a post-hook adding 1 to it in place
    # changes what reaches s.grad, as in torch, whatever the shapes
    grads = []
    for lib in (ag, torch):
        s = lib.tensor(2.0, requires_grad=True)
        y = lib.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
        out = s * y
        out.grad_fn.register_hook(lambda gi, go: gi[0].add_(1.0) and None)
        out.sum().backward()
        grads.append(float(s.grad))
    assert grads[0] == grads[1] == 67.0
