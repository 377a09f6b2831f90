"""Differential fuzzing against PyTorch: random programs, one description, two interpreters.

A *program* is plain data made by :func:`generate` from a seed: float64 leaves (some with tied
values), then *steps* (an op making a new tensor, an in-place op on an existing one, or a tensor
hook), then *calls* (``backward`` / ``Tensor.backward`` / ``autograd.grad`` with several roots,
``inputs=``, ``retain_graph``, ``create_graph`` and second-order calls on the gradients it made).
:class:`World` interprets the same program with ``torch`` or with ``autogradlab``. After every
step and every call both must agree: either both raise (the error classes mapped by
:data:`SAME_ERROR`) or neither does, and then every value, every ``.grad`` and every result of
``grad()`` agree (rtol 1e-7) along with ``requires_grad``. The programs cover broadcasting,
reductions with ties, views and integer/slice/array indexing, item assignment (slices, integers and
lists: copy_slices and index_put), seeds holding an inf or a NaN, in-place ops (on bases with views,
on constants, aliasing their operand, on saved tensors), fan-out and hooks.

The generator asks a torch interpretation of the program so far for shapes and values (it never
needs its own shape rules), and leaves out exactly these cases (README, "Differences from PyTorch"):

* an in-place op on an ``expand()``ed view: PyTorch writes the shared memory for some ops (``zero_``,
  ``fill_``, ``pow_``) and refuses for others; autogradlab's expanded views are read-only and it raises;
* ``std``/``var`` over a slice of identical values: PyTorch's result there depends on memory
  layout (exactly 0 along a strided dim, ``1e-17`` and a gradient of about 0.4 along a contiguous
  one); autogradlab gives exactly 0 and gradient 0 for every layout;
* an op with a kink (``relu``, ``abs``, ``clamp``, ``max``...) on computed values that nearly tie
  or sit near the kink: the last bit of a sum may differ between the libraries and decide the
  branch. On the leaves themselves (bit-identical in both) ties are kept, so the tie rules are tested;
* after a call that raised, the program stops: PyTorch may have accumulated part of the pass
  before raising, autogradlab validates before any work;
* ``backward(inputs=)`` names leaves only: with a non-leaf input PyTorch also runs that input's
  own ``grad_fn`` (and frees it); tensor hooks that change the gradient sit on leaves only
  (PyTorch hands a non-leaf ``grad()`` input back before or after its hooks, depending on the graph).

CI runs ``AUTOGRADLAB_FUZZ_COUNT`` programs (default 500) from ``AUTOGRADLAB_FUZZ_SEED``
(default 0). A longer run, e.g. before a release or after touching ``ops/`` or ``engine.py``::

    AUTOGRADLAB_FUZZ_COUNT=20000 AUTOGRADLAB_FUZZ_SEED=1000 .venv/bin/python -m pytest tests/test_fuzz_vs_torch.py -q

A failure names the program's seed; ``AUTOGRADLAB_FUZZ_SEED=<seed> AUTOGRADLAB_FUZZ_COUNT=1``
reruns just that one, and ``print_program(generate(seed))`` shows it.
"""
from __future__ import annotations

import os
import random

import numpy as np
import pytest

import autogradlab as ag
from conftest import import_torch

torch = import_torch()

COUNT = int(os.environ.get("AUTOGRADLAB_FUZZ_COUNT", "500"))
SEED = int(os.environ.get("AUTOGRADLAB_FUZZ_SEED", "0"))
SHAPES = [(), (1,), (3,), (2, 1), (1, 3), (2, 3), (3, 3), (2, 1, 3)]
GRID = [-1.0, -0.5, 0.0, 0.5, 1.0]        # tied leaf values: ties and kinks hit exactly
RTOL, ATOL = 1e-7, 1e-9
# our error class -> the torch error classes it stands for
SAME_ERROR = {RuntimeError: (RuntimeError,), ValueError: (RuntimeError, ValueError),
              IndexError: (IndexError, RuntimeError), TypeError: (TypeError, RuntimeError)}


# ---------------------------------------------------------------------------------------
# the ops a step can name: op(lib, a, b, param) -> tensor
# ---------------------------------------------------------------------------------------

def _max_dim(lib, a, d, keep):
    return a.max(d, keepdim=keep).values


OPS = {
    # smooth elementwise, unary and binary (broadcasting)
    "neg": lambda L, a, b, p: -a,
    "tanh": lambda L, a, b, p: a.tanh(),
    "sigmoid": lambda L, a, b, p: a.sigmoid(),
    "sin": lambda L, a, b, p: a.sin(),
    "exp_tanh": lambda L, a, b, p: a.tanh().exp(),
    "sqrt1": lambda L, a, b, p: (a * a + 1).sqrt(),
    "log1": lambda L, a, b, p: (a * a + 1).log(),
    "mul_c": lambda L, a, b, p: a * p,
    "add_c": lambda L, a, b, p: p + a,
    "pow_c": lambda L, a, b, p: a ** p,
    "clone": lambda L, a, b, p: a.clone(),
    "add": lambda L, a, b, p: a + b,
    "sub": lambda L, a, b, p: a - b,
    "mul": lambda L, a, b, p: a * b,
    "div1": lambda L, a, b, p: a / (b * b + 1),
    "matmul": lambda L, a, b, p: a @ b,
    "stack": lambda L, a, b, p: L.stack([a, b], p),
    "cat": lambda L, a, b, p: L.cat([a, b], p),
    # kinks and ties
    "relu": lambda L, a, b, p: a.relu(),
    "abs": lambda L, a, b, p: a.abs(),
    "clamp": lambda L, a, b, p: a.clamp(-0.5, 0.5),
    "maximum": lambda L, a, b, p: L.maximum(a, b),
    "minimum": lambda L, a, b, p: L.minimum(a, b),
    "max_all": lambda L, a, b, p: a.max(),
    "amax": lambda L, a, b, p: a.amax(p[0], keepdim=p[1]),
    "max_dim": lambda L, a, b, p: a.max(p[0], keepdim=p[1]).values,
    "min_dim": lambda L, a, b, p: a.min(p[0], keepdim=p[1]).values,
    # reductions
    "sum_all": lambda L, a, b, p: a.sum(),
    "sum_dim": lambda L, a, b, p: a.sum(p[0], keepdim=p[1]),
    "mean_dim": lambda L, a, b, p: a.mean(p[0], keepdim=p[1]),
    "std_dim": lambda L, a, b, p: a.std(p[0], keepdim=p[1]),
    "var_dim": lambda L, a, b, p: a.var(p[0], keepdim=p[1]),
    "var_all": lambda L, a, b, p: a.var(),
    "logsumexp": lambda L, a, b, p: a.logsumexp(p[0]),
    "softmax": lambda L, a, b, p: a.softmax(p[0]),
    "prod_dim": lambda L, a, b, p: a.prod(p[0], keepdim=p[1]),
    "square": lambda L, a, b, p: a.square(),
    "log1p1": lambda L, a, b, p: (a * a).log1p(),
    "expm1": lambda L, a, b, p: a.tanh().expm1(),
    "rem1": lambda L, a, b, p: a % (b * b + 0.5),
    # views and indexing
    "select": lambda L, a, b, p: a[p],
    "select2": lambda L, a, b, p: a[p[0], p[1]],
    "slice": lambda L, a, b, p: a[p[0]:p[1]],
    "transpose": lambda L, a, b, p: a.transpose(0, -1),
    "t": lambda L, a, b, p: a.t(),
    "flatten": lambda L, a, b, p: a.reshape(-1),
    "unsqueeze": lambda L, a, b, p: a.unsqueeze(p),
    "expand": lambda L, a, b, p: a.expand(*p),
    "index": lambda L, a, b, p: a[list(p)],
}
BINARY = {"add", "sub", "mul", "div1", "matmul", "maximum", "minimum", "stack", "cat", "rem1"}
KINKS = {"relu", "abs", "clamp", "maximum", "minimum", "max_all", "amax", "max_dim", "min_dim", "rem1"}
SMOOTH = [n for n in OPS if n not in KINKS]
INPLACE = {
    "add_": lambda t, o, p: t.add_(o),
    "sub_": lambda t, o, p: t.sub_(o),
    "mul_": lambda t, o, p: t.mul_(o),
    "mul_c_": lambda t, o, p: t.mul_(p),
    "zero_": lambda t, o, p: t.zero_(),
    "fill_": lambda t, o, p: t.fill_(p),
    "pow_": lambda t, o, p: t.pow_(2.0),
    "setitem": lambda t, o, p: t.__setitem__(p, o),
}


# ---------------------------------------------------------------------------------------
# one framework's interpretation of a program
# ---------------------------------------------------------------------------------------

class World:
    """The tensors of one program in one framework (``torch`` or ``autogradlab``)."""

    def __init__(self, lib, program):
        self.lib = lib
        self.tensors = []             # one per leaf and per op step (None where the step raised)
        self.leaves = []
        self.result = None            # what the last grad() returned
        for values, requires_grad in program["leaves"]:
            t = lib.tensor(np.array(values, dtype=np.float64), dtype=lib.float64, requires_grad=requires_grad)
            self.tensors.append(t)
            self.leaves.append(t)

    def step(self, step):
        """Run one step; returns the exception it raised, or None."""
        kind, name, args, param = step
        try:
            if kind == "op":
                a = self.tensors[args[0]]
                b = self.tensors[args[1]] if len(args) > 1 else None
                self.tensors.append(OPS[name](self.lib, a, b, param))
            elif kind == "inplace":
                other = self.tensors[args[1]] if len(args) > 1 else None
                INPLACE[name](self.tensors[args[0]], other, param)
            else:   # a tensor hook: "double" the gradient flowing through, or only look at it
                self.tensors[args[0]].register_hook((lambda g: g * 2) if name == "double" else (lambda g: None))
        except Exception as exc:  # noqa: BLE001 (compared with the other framework's)
            if kind == "op":
                self.tensors.append(None)
            return exc
        return None

    def call(self, call):
        """Run one backward/grad call; returns the exception it raised, or None."""
        lib, A = self.lib, self.lib.autograd
        if call["derived"]:     # second order: the gradients the previous call made, squared and summed
            sources = self.result if self.result is not None else [t.grad for t in self.leaves]
            roots = [(g * g).sum() for g in sources if g is not None]
            seeds = None
        else:
            roots = [self.tensors[i] for i in call["roots"]]
            seeds = [None if s is None else lib.tensor(np.array(s), dtype=lib.float64) for s in call["seeds"]]
        inputs = None if call["inputs"] is None else [self.tensors[i] for i in call["inputs"]]
        kw = dict(retain_graph=call["retain"], create_graph=call["create"])
        self.result = None
        try:
            if not roots:
                raise RuntimeError("no roots")   # (both frameworks agree on this one by construction)
            if call["kind"] == "grad":
                self.result = list(A.grad(roots, inputs or self.leaves[:1], seeds, allow_unused=True, **kw))
            elif call["kind"] == "tensor_backward":
                roots[0].backward(None if seeds is None else seeds[0], inputs=inputs, **kw)
            else:
                A.backward(roots, seeds, inputs=inputs, **kw)
        except Exception as exc:  # noqa: BLE001
            self.result = None
            return exc
        return None


def _value(t):
    if t is None:
        return None
    host = t.detach().numpy(force=True) if isinstance(t, torch.Tensor) else t.detach().numpy()  # (ZeroTensor)
    return np.array(host, dtype=np.float64), bool(t.requires_grad)


def _same(theirs, ours, what):
    if theirs is None or ours is None:
        assert theirs is None and ours is None, f"{what}: torch {theirs!r}, autogradlab {ours!r}"
        return
    assert theirs[0].shape == ours[0].shape, f"{what}: shape torch {theirs[0].shape}, autogradlab {ours[0].shape}"
    np.testing.assert_allclose(ours[0], theirs[0], rtol=RTOL, atol=ATOL, err_msg=what)
    assert theirs[1] == ours[1], f"{what}: requires_grad torch {theirs[1]}, autogradlab {ours[1]}"


def _same_error(te, ge, what):
    if te is None or ge is None:
        assert te is None and ge is None, f"{what}: torch raised {te!r}, autogradlab raised {ge!r}"
        return
    allowed = SAME_ERROR.get(type(ge), (type(ge),))
    assert isinstance(te, allowed), f"{what}: torch raised {te!r}, autogradlab raised {ge!r}"


def check(program):
    """Interpret ``program`` in both frameworks and compare after every step and call."""
    tw, gw = World(torch, program), World(ag, program)
    for k, step in enumerate(program["steps"]):
        where = f"seed {program['seed']}, step {k} {step[:2]}"
        te, ge = tw.step(step), gw.step(step)
        _same_error(te, ge, where)
        if te is None and step[0] != "hook":
            i = len(tw.tensors) - 1 if step[0] == "op" else step[2][0]
            _same(_value(tw.tensors[i]), _value(gw.tensors[i]), where)
    for c, call in enumerate(program["calls"]):
        where = f"seed {program['seed']}, call {c} ({call['kind']})"
        te, ge = tw.call(call), gw.call(call)
        _same_error(te, ge, where)
        if te is not None:
            return      # PyTorch may have accumulated part of the pass before raising
        for j, (a, b) in enumerate(zip(tw.leaves, gw.leaves)):
            _same(_value(a.grad), _value(b.grad), f"{where}: leaf {j} .grad")
        if tw.result is not None:
            for j, (a, b) in enumerate(zip(tw.result, gw.result)):
                _same(_value(a), _value(b), f"{where}: grad() result {j}")


# ---------------------------------------------------------------------------------------
# the generator
# ---------------------------------------------------------------------------------------

def _spread_ok(values, gap=1e-6):
    """No two values closer than ``gap`` unless equal... (equal values count too: near ties)."""
    flat = np.sort(np.asarray(values, dtype=np.float64).ravel())
    return flat.size < 2 or np.min(np.diff(flat)) > gap


def _kink_safe(name, a, b, exact):
    """Whether a kink op on these torch values is decided the same way in both libraries."""
    if exact:
        return True
    x = a.detach().numpy()
    if name in ("relu", "abs"):
        return np.all(np.abs(x) > 1e-6)
    if name == "clamp":
        return np.all(np.abs(np.abs(x) - 0.5) > 1e-6)
    if name in ("maximum", "minimum"):
        try:
            return np.all(np.abs(x - b.detach().numpy()) > 1e-6)
        except ValueError:
            return True     # shapes that do not broadcast: both raise
    if name == "rem1":   # a % d jumps where a / d is a whole number
        try:
            q = x / (b.detach().numpy() ** 2 + 0.5)
        except ValueError:
            return True
        return np.all(np.abs(q - np.round(q)) > 1e-6)
    return _spread_ok(x)


def _no_flat_slice(a, dim):
    """std/var: no reduced slice whose values are (nearly) all equal (see the module docstring)."""
    x = a.detach().numpy()
    if x.size == 0:
        return True
    dims = tuple(range(x.ndim)) if dim is None else (dim % x.ndim,)
    spread = x.max(axis=dims) - x.min(axis=dims)
    return np.all(spread > 1e-6 * (1 + np.abs(x).max()))


def generate(seed):
    """A random program (plain data) for ``seed``; the same seed always gives the same program."""
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    leaves = []
    for _ in range(rng.randint(1, 4)):
        shape = rng.choice(SHAPES)
        if rng.random() < 0.3:
            values = nrng.choice(GRID, size=shape)
        else:
            values = nrng.uniform(-1.5, 1.5, size=shape)
        leaves.append((values.tolist(), rng.random() < 0.8))
    leaves.append((nrng.uniform(-1, 1, size=(3, 3)).tolist(), rng.random() < 0.7))   # a weight for matmul
    program = dict(seed=seed, leaves=leaves, steps=[], calls=[])
    tw = World(torch, program)                        # the oracle for shapes and values
    exact = set(range(len(leaves)))                   # bit-identical in both libraries
    expanded = set()                                  # expand() views and views of them
    second_order = rng.random() < 0.3

    def pick():
        live = [i for i, t in enumerate(tw.tensors) if t is not None]
        u = rng.random()
        return live[-1] if u < 0.35 else rng.choice(live[-3:] if u < 0.6 else live)

    def emit(step):
        program["steps"].append(step)
        return tw.step(step)

    for _ in range(rng.randint(3, 12)):
        u = rng.random()
        if u < 0.12:
            _inplace_step(rng, tw, pick, emit, exact, expanded)
            continue
        if u < 0.18:
            i = pick()
            t = tw.tensors[i]
            if t._base is not None and t._version:
                continue    # torch 2.13 segfaults in register_hook on a view whose base changed in place
            kind = "double" if t.grad_fn is None and rng.random() < 0.5 else "record"
            emit(("hook", kind, (i,), None))
            continue
        name = rng.choice(SMOOTH if second_order and rng.random() < 0.7 else list(OPS))
        a = pick()
        ta = tw.tensors[a]
        args, param = (a,), None
        if name in BINARY:
            b = len(leaves) - 1 if name == "matmul" and rng.random() < 0.7 else pick()
            args = (a, b)
        tb = tw.tensors[args[1]] if len(args) > 1 else None
        nd = ta.ndim
        if name in ("mul_c", "add_c"):
            param = rng.choice([-1.5, 0.5, 2.0])
        elif name == "pow_c":
            param = rng.choice([2.0, 3.0, 2])
        elif name in ("amax", "max_dim", "min_dim", "sum_dim", "mean_dim", "std_dim", "var_dim", "prod_dim"):
            if nd == 0 and name not in ("max_dim", "min_dim", "sum_dim", "prod_dim"):
                continue
            param = (rng.randint(-max(nd, 1), max(nd, 1) - 1), rng.random() < 0.5)
        elif name in ("logsumexp", "softmax"):
            if nd == 0:
                continue
            param = (rng.randint(-nd, nd - 1),)
        elif name in ("stack", "cat"):
            param = rng.randint(-1, 0)
        elif name == "select":
            if nd == 0:
                continue
            param = rng.randint(-ta.shape[0], ta.shape[0] - 1)
        elif name == "select2":
            if nd < 2:
                continue
            param = (rng.randrange(ta.shape[0]), rng.randint(-ta.shape[1], ta.shape[1] - 1))
        elif name == "slice":
            if nd == 0:
                continue
            lo = rng.randrange(ta.shape[0])
            param = (lo, rng.randint(lo + 1, ta.shape[0]))
        elif name == "unsqueeze":
            param = rng.randint(-nd - 1, nd)
        elif name in ("expand", "t"):
            if nd > 2:
                continue
            if name == "expand":
                param = (2,) + tuple(3 if n == 1 else n for n in ta.shape)
        elif name == "index":
            if nd == 0:
                continue
            param = tuple(rng.randrange(ta.shape[0]) for _ in range(rng.randint(1, 3)))   # repeats add up
        if name in KINKS and not _kink_safe(name, ta, tb, a in exact and (tb is None or args[1] in exact)):
            continue
        if name in ("std_dim", "var_dim", "var_all") and not _no_flat_slice(ta, param[0] if param else None):
            continue
        raised = emit(("op", name, args, param))
        new, out = len(tw.tensors) - 1, tw.tensors[-1]
        if raised is None and a in exact and name in ("neg", "clone", "select", "select2", "slice",
                                                      "transpose", "t", "flatten", "unsqueeze"):
            exact.add(new)
        if raised is None and (name == "expand" or a in expanded) and out._base is not None:
            expanded.add(new)

    requiring = [i for i, t in enumerate(tw.tensors) if t is not None and t.requires_grad]
    leaf_inputs = [i for i in range(len(leaves)) if leaves[i][1]]
    create_before = False
    for c in range(rng.randint(1, 3)):
        derived = second_order and create_before and rng.random() < 0.6
        if c and rng.random() < 0.3:
            roots = list(program["calls"][-1]["roots"])
        else:
            pool = requiring if requiring and rng.random() < 0.9 else list(range(len(tw.tensors)))
            roots = [rng.choice(pool) for _ in range(rng.randint(1, 3))]
            roots = [r for r in roots if tw.tensors[r] is not None] or [0]
        seeds = []
        for r in roots:
            shape = tuple(tw.tensors[r].shape)
            if int(np.prod(shape)) == 1 and rng.random() < 0.6:
                seeds.append(None)
            else:
                seed = nrng.uniform(-1.5, 1.5, size=shape)
                if seed.size and rng.random() < 0.5:   # an infinite or NaN gradient arriving (training diverging)
                    seed.reshape(-1)[rng.randrange(seed.size)] = rng.choice([np.inf, -np.inf, np.nan])
                seeds.append(seed.tolist())
        kind = rng.choice(["backward", "backward", "tensor_backward", "grad"])
        if kind == "tensor_backward":
            roots, seeds = roots[:1], seeds[:1]
        inputs = None
        if kind == "grad" or (leaf_inputs and rng.random() < 0.35):
            pool = leaf_inputs if kind != "grad" else (requiring or [0])
            if not pool:
                pool = [0]
            inputs = sorted({rng.choice(pool) for _ in range(rng.randint(1, 2))})
        create = second_order and rng.random() < 0.6
        program["calls"].append(dict(kind=kind, roots=roots, seeds=seeds, inputs=inputs, derived=derived,
                                     retain=rng.choice([None, True, True, False]), create=create))
        create_before = create_before or create
    return program


def _dense(t):
    """PyTorch's "non-overlapping and dense": the elements fill one block of memory (in some order of the dims)."""
    expected = 1
    for stride, n in sorted((s, n) for s, n in zip(t.stride(), t.shape) if n != 1):
        if stride != expected:
            return False
        expected *= n
    return True


def _inplace_step(rng, tw, pick, emit, exact, expanded):
    name = rng.choice(list(INPLACE))
    target = pick()
    t = tw.tensors[target]
    args = (target,)
    if name in ("add_", "sub_", "mul_", "setitem"):
        args = (target, pick())
    if target in expanded:
        return      # writing into an expanded view: PyTorch may write the shared memory, ours is read-only
    param = rng.choice([0.5, -2.0, 3.0])
    if name == "setitem":           # t[i] = other, t[lo:] = other, or t[[i, 0]] = other (index_put_)
        if t.ndim == 0:
            return
        i = rng.randrange(t.shape[0])
        param = rng.choice([i, slice(i, None), [i], [i, 0]])
    if len(args) > 1:
        source = tw.tensors[args[1]]
        if (source.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()
                and not (_dense(source) and _dense(t))):
            return   # an operand in t's own memory that PyTorch finds too hard to check: it writes element by
            #          element, so what it reads depends on its kernel's order (NumPy reads a copy)
    emit(("inplace", name, args, param))
    memory = t.untyped_storage().data_ptr()   # the target, its base and its other views changed
    exact.difference_update(i for i, u in enumerate(tw.tensors)
                            if u is not None and u.untyped_storage().data_ptr() == memory)


def print_program(program):
    """The program, one line per leaf, step and call (for reading a failure)."""
    for i, (values, req) in enumerate(program["leaves"]):
        print(f"leaf {i}: shape {np.shape(values)} requires_grad={req} {values}")
    for k, step in enumerate(program["steps"]):
        print(f"step {k}: {step}")
    for c, call in enumerate(program["calls"]):
        print(f"call {c}: {call}")


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_random_programs_match_torch():
    for seed in range(SEED, SEED + COUNT):
        check(generate(seed))
