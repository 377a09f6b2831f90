"""Every op against PyTorch: forward values, dtypes and gradients (with a random upstream gradient).

The cases are the gradient-check table (``test_ops_gradcheck.CASES``): each case
function takes the array library first, so it runs unchanged on ``torch``.
Known, deliberate differences are tested (and documented) at the end.
"""
from __future__ import annotations

import zlib

import numpy as np
import pytest
from conftest import import_torch
from hypothesis import given, strategies as st

import autogradlab as ag
from autogradlab.autograd import grad

from test_ops_gradcheck import ALL, BINARY, HYPOTHESIS, _values, broadcastable

torch = import_torch()

TORCH_CASES = [p for p in ALL if p.values[1].torch]


def _tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _dtype_name(t):
    return str(t.dtype).removeprefix("torch.") if isinstance(t, torch.Tensor) else t.dtype.name


def _host(t):
    return t.detach().numpy()


def assert_same(ours, theirs, rtol=1e-10, atol=1e-12):
    """Same shape, same dtype, same values (NaN where the other has NaN)."""
    assert tuple(ours.shape) == tuple(theirs.shape), (tuple(ours.shape), tuple(theirs.shape))
    assert _dtype_name(ours) == _dtype_name(theirs)
    np.testing.assert_allclose(_host(ours), _host(theirs), rtol=rtol, atol=atol)


def compare(fn_ours, fn_torch, arrays, seed=0, requires_grad=None, rtol=1e-10):
    """Run both on the same inputs; compare outputs, then gradients for one random upstream gradient."""
    requires_grad = requires_grad or [True] * len(arrays)
    xs = [ag.tensor(a, requires_grad=r) for a, r in zip(arrays, requires_grad)]
    ts = [torch.tensor(a, requires_grad=r) for a, r in zip(arrays, requires_grad)]
    outs, touts = _tuple(fn_ours(*xs)), _tuple(fn_torch(*ts))
    assert len(outs) == len(touts)
    for o, t in zip(outs, touts):
        assert_same(o, t, rtol=rtol)
        assert o.requires_grad == t.requires_grad
    pairs = [(o, t) for o, t in zip(outs, touts) if t.requires_grad]
    if not pairs:
        return
    rng = np.random.default_rng(seed)
    vs = [rng.standard_normal(o.shape).astype(_dtype_name(o)) for o, _ in pairs]
    wrt = [(x, t) for x, t, r in zip(xs, ts, requires_grad) if r]
    seeds = [ag.tensor(v, device=o.device) for v, (o, _) in zip(vs, pairs)]
    ours = grad([o for o, _ in pairs], [x for x, _ in wrt], seeds, allow_unused=True)
    theirs = torch.autograd.grad([t for _, t in pairs], [t for _, t in wrt], [torch.tensor(v) for v in vs],
                                 allow_unused=True)
    for i, (g, tg) in enumerate(zip(ours, theirs)):
        shape = wrt[i][0].shape
        g = _host(g) if g is not None else np.zeros(shape)
        tg = _host(tg) if tg is not None else np.zeros(shape)
        np.testing.assert_allclose(g, tg, rtol=rtol, atol=1e-12, err_msg=f"gradient of input {i}")


@pytest.mark.parametrize("name, case", TORCH_CASES)
def test_matches_torch(name, case):
    compare(lambda *xs: case.fn(ag, *xs), lambda *ts: case.fn(torch, *ts), case.arrays("torch"),
            seed=zlib.crc32(case.id.encode()), rtol=case.torch_rtol)


TORCH_BINARY = {"maximum": torch.maximum, "minimum": torch.minimum}


@pytest.mark.parametrize("name", sorted(BINARY))
@HYPOTHESIS
@given(shapes=broadcastable, seed=st.integers(0, 2**32 - 1))
def test_binary_ops_match_torch_on_random_broadcast_shapes(name, shapes, seed):
    arrays = _values(name, np.random.default_rng(seed), shapes.input_shapes)
    compare(BINARY[name], TORCH_BINARY.get(name, BINARY[name]), [np.asarray(a) for a in arrays], seed)


# -- scalars on either side and the reflected operators ------------------------------------------

SCALAR_EXPRS = {
    "x + 2": lambda x: x + 2, "2 + x": lambda x: 2 + x, "x - 2": lambda x: x - 2, "2 - x": lambda x: 2 - x,
    "x * 2.5": lambda x: x * 2.5, "2.5 * x": lambda x: 2.5 * x, "x / 3": lambda x: x / 3,
    "3 / x": lambda x: 3 / x, "x ** 2": lambda x: x ** 2, "2 ** x": lambda x: 2 ** x,
    "x ** 0.5": lambda x: x ** 0.5, "0.5 ** x": lambda x: 0.5 ** x, "-x": lambda x: -x,
    "abs(x)": lambda x: abs(x), "x.pow(3)": lambda x: x.pow(3),
}


@pytest.mark.parametrize("expr", SCALAR_EXPRS)
def test_scalar_operands_match_torch(expr):
    compare(SCALAR_EXPRS[expr], SCALAR_EXPRS[expr], [np.array([[0.5, 1.5, 2.0], [0.7, 3.0, 1.1]])])


# -- dtype rules ---------------------------------------------------------------------------------

DTYPE_EXPRS = {
    "f32 * 2.0": (lambda m: m.ones(3, dtype=m.float32) * 2.0),
    "f32 * 2": (lambda m: m.ones(3, dtype=m.float32) * 2),
    "2.0 - f32": (lambda m: 2.0 - m.ones(3, dtype=m.float32)),
    "f64 * 2.0": (lambda m: m.ones(3, dtype=m.float64) * 2.0),
    "int * 0.5": (lambda m: m.arange(3) * 0.5),
    "int * 2": (lambda m: m.arange(3) * 2),
    "int / 2": (lambda m: m.arange(3) / 2),
    "int / int": (lambda m: m.arange(3) / m.arange(1, 4)),
    "int ** 2": (lambda m: m.arange(3) ** 2),
    "int ** 0.5": (lambda m: m.arange(3) ** 0.5),
    "f32 + f64": (lambda m: m.ones(3, dtype=m.float32) + m.ones(3, dtype=m.float64)),
    "f64 - f32": (lambda m: m.ones(3, dtype=m.float64) - m.ones(3, dtype=m.float32)),
    "int + f32": (lambda m: m.arange(3) + m.ones(3, dtype=m.float32)),
    "bool + int": (lambda m: m.tensor([True, False]) + m.tensor([1, 2])),
    "bool * 1.5": (lambda m: m.tensor([True, False]) * 1.5),
    "f32.sum()": (lambda m: m.ones(2, 3, dtype=m.float32).sum()),
    "int.sum()": (lambda m: m.arange(3).sum()),
    "f32.mean(0)": (lambda m: m.ones(2, 3, dtype=m.float32).mean(0)),
    "where(c, 1.0, 0.0)": (lambda m: m.where(m.tensor([True, False]), 1.0, 0.0)),
    "f32.to(f64)": (lambda m: m.ones(2, dtype=m.float32).to(m.float64)),
}


@pytest.mark.parametrize("expr", DTYPE_EXPRS)
def test_dtype_rules_match_torch(expr):
    ours, theirs = DTYPE_EXPRS[expr](ag), DTYPE_EXPRS[expr](torch)
    assert_same(ours, theirs, rtol=1e-6)


def test_float32_grad_stays_float32_and_mixed_grads_come_back_in_each_inputs_dtype():
    a = ag.tensor([1.0, 2.0], requires_grad=True)
    b = ag.tensor([3.0, 4.0], dtype=ag.float64, requires_grad=True)
    (a * 2.0).sum().backward()
    assert a.grad.dtype == np.float32
    (a * b).sum().backward()
    assert a.grad.dtype == np.float32 and b.grad.dtype == np.float64


def test_cast_to_int_does_not_require_grad():
    x = ag.tensor([1.5, 2.5], requires_grad=True)
    tx = torch.tensor([1.5, 2.5], requires_grad=True)
    assert x.to(ag.int64).requires_grad is tx.to(torch.int64).requires_grad is False


# -- comparisons: bool tensors that never require grad ---------------------------------------------

COMPARISONS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
               ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
               "< scalar": lambda a, b: a < 0.5, "2.0 >= x": lambda a, b: 2.0 >= a}
ARRAYS = [np.array([[0.0, 1.0, -2.0], [3.0, 1.0, 0.5]]), np.array([1.0, 1.0, 0.0])]


@pytest.mark.parametrize("op", COMPARISONS)
def test_comparisons_give_bool_without_grad(op):
    compare(COMPARISONS[op], COMPARISONS[op], ARRAYS)
    out = COMPARISONS[op](*(ag.tensor(a, requires_grad=True) for a in ARRAYS))
    assert out.dtype == np.dtype(bool) and out.grad_fn is None and not out.requires_grad


def test_sign_is_flat_like_torch_so_relu_and_abs_have_second_derivatives():
    """sign's derivative is 0 (not undefined): its result requires grad, as torch's does, so the
    gradients of relu and abs stay connected to their input and grad-of-grad is 0, not an error."""
    x = ag.tensor(ARRAYS[0], requires_grad=True)
    tx = torch.tensor(ARRAYS[0], requires_grad=True)
    assert_same(x.sign(), tx.sign())
    assert x.sign().requires_grad and tx.sign().requires_grad
    for op in ("relu", "abs"):
        (g,) = ag.autograd.grad(getattr(x, op)().sum(), x, create_graph=True)
        (tg,) = torch.autograd.grad(getattr(tx, op)().sum(), tx, create_graph=True)
        (gg,) = ag.autograd.grad(g.sum(), x)
        (tgg,) = torch.autograd.grad(tg.sum(), tx)
        np.testing.assert_array_equal(gg.numpy(), tgg.numpy(force=True))


# -- indexing ---------------------------------------------------------------------------------------

def test_repeated_integer_indices_accumulate_like_add_at():
    arrays = [np.arange(12.0).reshape(4, 3)]
    index = [0, 3, 0, 0, 2]
    compare(lambda x: x[index] * 2, lambda x: x[index] * 2, arrays, seed=3)
    x = ag.tensor(arrays[0], requires_grad=True)
    x[index].sum().backward()
    expected = np.zeros((4, 3))
    np.add.at(expected, index, 1.0)
    np.testing.assert_array_equal(x.grad.numpy(), expected)


@pytest.mark.parametrize("kind", ["int-tensor", "bool-mask", "bool-rows", "mixed", "2d-int"])
def test_advanced_indexing_matches_torch(kind):
    mask = np.array([[True, False, True], [False, True, True], [False, False, False], [True, True, False]])
    index = {"int-tensor": lambda m: (m.tensor([[1, 1], [3, 0]]),),
             "bool-mask": lambda m: (m.tensor(mask),),
             "bool-rows": lambda m: (m.tensor([True, False, True, True]),),
             "mixed": lambda m: (slice(1, None), m.tensor([2, 2, 0])),
             "2d-int": lambda m: (m.tensor([0, 0, 3]), m.tensor([1, 1, 2]))}[kind]
    compare(lambda x: x[index(ag)], lambda x: x[index(torch)], [np.arange(12.0).reshape(4, 3) / 7], seed=5)


def test_advanced_indexing_copies_so_in_place_on_its_result_is_allowed():
    def fn(m, x):
        y = x.exp()[[0, 0, 1]]
        y.mul_(2)
        return y
    compare(lambda x: fn(ag, x), lambda x: fn(torch, x), [np.array([0.1, 0.2, 0.3])])


# -- in-place ops on non-leaf tensors -----------------------------------------------------------------

def test_retain_grad_then_in_place_keeps_the_new_values_gradient():
    def fn(m, x):
        y = x * 2
        y.retain_grad()
        y.mul_(3)
        (y * y).sum().backward()
        return y.grad
    ours = fn(ag, ag.tensor([1.0, 2.0], dtype=ag.float64, requires_grad=True))
    theirs = fn(torch, torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True))
    assert_same(ours, theirs)


def test_in_place_chain_matches_torch():
    def fn(x, y):
        t = x * 1
        t += y
        t *= y
        t -= 1.5
        t /= 2
        t.add_(y, alpha=0.5).sub_(x).mul_(x).clamp_(-3.0, 3.0)
        return t
    rng = np.random.default_rng(7)
    compare(fn, fn, [rng.uniform(0.1, 0.9, (2, 3)), rng.uniform(0.1, 0.9, 3)], seed=7)


# -- edge cases where both libraries define the gradient by convention --------------------------------

def test_pow_gradients_at_zero_match_torch():
    def fn(a, b):
        return a ** b
    compare(fn, fn, [np.array([0.0, 0.0, 0.0, 2.0]), np.array([0.0, 1.0, 2.0, 0.0])])


@pytest.mark.parametrize("op", ["maximum", "minimum"])
def test_ties_in_maximum_minimum_split_the_gradient_like_torch(op):
    compare(getattr(ag, op), getattr(torch, op), [np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.0, 3.0])])


def test_full_max_shares_ties_equally_like_torch():
    compare(lambda x: x.max(), lambda x: x.max(), [np.array([[3.0, 1.0], [3.0, 3.0]])])
    compare(lambda x: x.amax(1), lambda x: x.amax(1), [np.array([[3.0, 1.0, 3.0], [0.0, 2.0, 2.0]])])


@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("keepdim", [False, True])
def test_max_min_along_dim_with_ties_give_all_the_gradient_to_the_first_index_like_torch(op, keepdim):
    data = np.array([[2.0, 5.0, 5.0, 2.0], [1.0, 0.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]])
    compare(lambda x: tuple(getattr(x, op)(1, keepdim)), lambda x: tuple(getattr(x, op)(1, keepdim)), [data])
    ours, theirs = getattr(ag.tensor(data), op)(1, keepdim), getattr(torch.tensor(data), op)(1, keepdim)
    np.testing.assert_array_equal(ours.indices.numpy(), theirs.indices.numpy())   # the first of the ties
    x = ag.tensor([[1.0, 1.0], [0.0, 2.0]], requires_grad=True)
    ag.max(x, 1).values.sum().backward()
    assert x.grad.tolist() == [[1.0, 0.0], [0.0, 1.0]]


def test_max_along_dim_returns_the_index_of_the_first_nan_like_torch():
    data = np.array([[2.0, np.nan, 5.0, np.nan]])
    compare(lambda x: tuple(x.max(1)), lambda x: tuple(x.max(1)), [data])


def test_max_along_dim_saves_only_the_indices_like_torch():
    for change in ("input", "values"):
        x = ag.tensor([[1.0, 3.0], [2.0, 0.0]], requires_grad=True)
        b = x * 1
        values, _ = b.max(1)
        (b if change == "input" else values).add_(1.0)    # torch allows both: it saved neither
        values.sum().backward()
        assert x.grad.tolist() == [[0.0, 1.0], [1.0, 0.0]]
    b = ag.tensor([[1.0, 3.0]], requires_grad=True) * 1
    values, indices = b.max(1)
    indices.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        values.sum().backward()


@pytest.mark.parametrize("reduce", ["max", "min", "amax", "amin"])
def test_max_of_an_empty_tensor_raises_our_own_error_naming_the_op(reduce):
    with pytest.raises(RuntimeError, match=rf"{reduce}\(\): the input has shape \(0, 3\) with no elements"):
        getattr(ag.zeros((0, 3)), reduce)()
    with pytest.raises(RuntimeError):
        getattr(torch.zeros((0, 3)), reduce)()
    with pytest.raises(IndexError, match=r"dim 0 has size 0"):
        getattr(ag.zeros((0, 3)), reduce)(0)
    with pytest.raises(IndexError):
        getattr(torch.zeros((0, 3)), reduce)(0)
    compare(lambda x: getattr(x, reduce)(1), lambda x: getattr(x, reduce)(1), [np.zeros((0, 3))])


def test_clamp_with_tensor_bounds_matches_torch_even_when_min_exceeds_max():
    lo = np.array([-0.5, 0.5, 2.0, 0.0])
    hi = np.array([0.5, 1.5, 1.0, 0.25])
    compare(lambda a, b, c: ag.clamp(a, b, c), lambda a, b, c: torch.clamp(a, b, c),
            [np.array([-1.0, 1.0, 1.5, 0.75]), lo, hi])


def test_std_of_constant_data_has_zero_gradient_like_torch():
    x = ag.tensor([1.0, 1.0, 1.0], requires_grad=True)
    tx = torch.tensor([1.0, 1.0, 1.0], requires_grad=True)
    x.std().backward()
    tx.std().backward()
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())


@pytest.mark.parametrize("reduce", ["std", "var"])
def test_std_and_var_of_identical_values_are_exactly_zero_with_zero_gradient(reduce):
    """The issue's repro: torch reduces a strided dim with Welford's method (exact zeros); the values
    are centred after shifting by the first element, so any layout gives exact zeros here."""
    x = np.array([[0.36457239618607573, 0.294132496655526]])
    compare(lambda a: getattr(ag.stack([a, a, a], dim=1), reduce)(1),
            lambda a: getattr(torch.stack([a, a, a], dim=1), reduce)(1), [x])
    t = ag.tensor(x, requires_grad=True)
    out = getattr(ag.stack([t, t, t], dim=1), reduce)(1)
    out.sum().backward()
    assert out.tolist() == [[0.0, 0.0]] and t.grad.tolist() == [[0.0, 0.0]]
    ones = ag.tensor([0.1, 0.1, 0.1], requires_grad=True)      # also over a contiguous dim
    getattr(ones, reduce)().backward()
    assert ones.grad.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("reduce", ["std", "var"])
def test_std_and_var_nan_cases_match_torch(reduce):
    compare(lambda a: getattr(a, reduce)(), lambda a: getattr(a, reduce)(), [np.array([0.5])])  # n - 1 = 0
    compare(lambda a: getattr(a, reduce)(), lambda a: getattr(a, reduce)(), [np.array([0.5, np.nan])])
    for bad in (np.nan, np.inf):   # a NaN/inf upstream gradient on constant data: still 0 for std
        x, tx = ag.tensor([0.5, 0.5], requires_grad=True), torch.tensor([0.5, 0.5], requires_grad=True)
        getattr(x, reduce)().backward(ag.tensor(bad, dtype=ag.float64))
        getattr(tx, reduce)().backward(torch.tensor(bad, dtype=torch.float64))
        np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())


def test_var_saves_its_input_so_a_later_inplace_change_raises_like_torch():
    for lib in (ag, torch):
        b = lib.tensor([1.0, 2.0, 3.0], requires_grad=True) * 1
        v = b.var()
        b.mul_(2.0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            v.backward()


def test_pow_with_a_scalar_exponent_saves_its_input_not_its_output_like_torch():
    for lib in (ag, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = (x * 1.0).pow(2.0)
        y.add_(1.0)
        y.sum().backward()
        assert x.grad.tolist() == [2.0, 4.0]
        y = 2.0 ** (x * 1.0)       # a tensor exponent: the result is needed (and saved) in both
        y.add_(1.0)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int32", "int64"])
@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid"])
def test_floating_unary_ops_compute_an_int_or_bool_tensor_in_float32_like_torch(name, dtype):
    """exp(int) is float32 in PyTorch (its default dtype), not NumPy's float64 (or float16 for bool), and
    sigmoid of an int tensor is its float sigmoid, not an int; a function and a method alike."""
    values = np.array([0, 1, 2, 5], dtype=dtype) if dtype != "bool" else np.array([False, True, True, False])
    want = getattr(torch, name)(torch.tensor(values))
    for got in (getattr(ag, name)(ag.tensor(values)), getattr(ag.tensor(values), name)()):
        assert got.dtype == np.dtype(str(want.dtype).replace("torch.", "")) == np.float32
        assert not got.requires_grad
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=0)


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [[], ()], ids=["[]", "()"])
@pytest.mark.parametrize("name", ["sum", "mean", "amax", "amin", "var", "std"])
def test_a_reduction_over_an_empty_dim_list_reduces_every_axis_like_torch(name, dim, keepdim):
    """``x.sum(dim=[])`` is a full sum in PyTorch (not "sum over nothing"): value, shape and gradient.
    (torch 2.13's own var/std backward reads dim=[] as no reduction and divides by n - 1 = 0, giving
    inf/NaN gradients for the full variance it computed: their gradient is compared with dim=None's.)"""
    values = np.array([[1.0, -2.0, 3.5], [0.5, 4.0, -1.0]])
    x = ag.tensor(values, requires_grad=True)
    xt = torch.tensor(values, requires_grad=True)
    got, want = getattr(x, name)(dim=dim, keepdim=keepdim), getattr(xt, name)(dim=dim, keepdim=keepdim)
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12)
    if name in ("var", "std"):
        want = getattr(xt, name)(dim=None, keepdim=keepdim)
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12)
    got.sum().backward()
    want.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-12)
