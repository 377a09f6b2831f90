"""Operator details that lab code meets when it ports to PyTorch, each checked against torch:
``number / t`` is ``reciprocal(t) * number`` (the graph keeps ``1/t``), products refuse mixed dtypes,
``view`` refuses a layout it cannot view without copying, and ``t == None`` is False."""
from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import import_torch
from torch_compare import both_raise

import autogradlab as ag

torch = import_torch()
BOTH = pytest.mark.parametrize("M", [torch, ag], ids=["torch", "autogradlab"])


def _number_over(M):
    x = M.tensor([0.5, 2.0], requires_grad=True)
    y = 2.0 / x
    with M.no_grad():
        x.add_(1.0)            # the graph kept 1/x, not x: the change in place does not matter
    y.sum().backward()
    i = M.tensor([1, 2])
    return y.tolist(), x.grad.tolist(), str(y.dtype).replace("torch.", ""), (2 / i).tolist(), \
        str((2 / i).dtype).replace("torch.", ""), i.reciprocal().tolist()


def test_a_number_over_a_tensor_multiplies_its_reciprocal():
    assert _number_over(ag) == _number_over(torch)
    x = ag.tensor([0.5, 2.0], requires_grad=True)
    y = 2.0 / x
    assert y.grad_fn.name() == "MulBackward" and y.grad_fn.next_functions[0][0].name() == "ReciprocalBackward"


@BOTH
def test_products_refuse_mixed_dtypes(M):
    a, b = M.ones(2, 3), M.ones(3, 2, dtype=M.float64)
    for product in (lambda: a @ b, lambda: M.matmul(a, b.to(M.int64)), lambda: M.ones(3) @ M.ones(3, dtype=M.float64),
                    lambda: M.dot(M.ones(2), M.ones(2, dtype=M.float64))):
        with pytest.raises(RuntimeError, match="dtype"):
            product()
    assert (a @ b.to(M.float32)).shape == (2, 2)


@BOTH
def test_view_refuses_a_layout_it_cannot_view(M):
    x = M.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="reshape"):
        x.T.view(-1)
    assert tuple(x.T.view(3, 2).shape) == (3, 2) and tuple(x.T.reshape(-1).shape) == (6,)
    v = (x * 1).view(3, 2)
    with M.no_grad():
        v[0, 0] = 5.0
    assert v.tolist()[0][0] == 5.0


@BOTH
def test_equality_with_something_that_is_not_an_operand_is_identity(M):
    x = M.tensor([1.0, 2.0])
    assert (x == None) is False and (x != None) is True     # noqa: E711  (the point of the test)
    assert (x == "a") is False and (x == [1.0, 2.0]) is False and (x != object()) is True
    assert None not in [x] and x in [None, x]
    assert (x == 1.0).tolist() == [True, False] and (x != M.tensor([1.0, 0.0])).tolist() == [False, True]


NAN, INF = float("nan"), float("inf")
EDGE_CASES = {
    "relu": lambda M, x: M.relu(x), "abs": lambda M, x: M.abs(x), "sign": lambda M, x: M.sign(x),
    "maximum, x first": lambda M, x: M.maximum(x, M.zeros(3, dtype=M.float64)),
    "maximum, x second": lambda M, x: M.maximum(M.zeros(3, dtype=M.float64), x),
    "minimum": lambda M, x: M.minimum(x, M.zeros(3, dtype=M.float64)),
    "maximum of ties": lambda M, x: M.maximum(x, M.tensor([NAN, 1.0, 0.0], dtype=M.float64)),
    "max()": lambda M, x: x.max(), "min()": lambda M, x: M.min(x), "amax(dim)": lambda M, x: M.amax(x, 0),
    "x ** 0.0": lambda M, x: x ** 0.0, "x ** zeros": lambda M, x: x ** M.zeros(3, dtype=M.float64),
}


def _edge(M, case, values):
    def plain(t):
        return [("nan" if v != v else v) for v in t.detach().reshape(-1).tolist()]
    x = M.tensor(values, dtype=M.float64, requires_grad=True)
    y = EDGE_CASES[case](M, x)
    y.sum().backward()
    return plain(y), plain(x.grad)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")   # (NumPy warns about the NaN it makes; torch does not)
@pytest.mark.parametrize("values", [[NAN, 1.0, -2.0], [INF, -INF, 0.0], [1.0, 1.0, NAN], [2.0, -1.0, 2.0]],
                         ids=["nan first", "infinities", "tie and nan", "ties"])
@pytest.mark.parametrize("case", list(EDGE_CASES))
def test_values_and_gradients_at_nan_and_infinity_are_pytorchs(case, values):
    assert _edge(ag, case, values) == _edge(torch, case, values)


UPSTREAM = {   # ops whose backward selects (where a multiply by a mask would turn an inf or NaN g into NaN)
    "relu": lambda M, x: M.relu(x), "tanh": lambda M, x: M.tanh(x), "sigmoid": lambda M, x: M.sigmoid(x),
    "clamp": lambda M, x: M.clamp(x, -0.5, 0.5), "clamp(min)": lambda M, x: M.clamp(x, min=0.0),
    "clamp(max)": lambda M, x: M.clamp(x, max=0.0),
    "maximum": lambda M, x: M.maximum(x, M.zeros(3, dtype=M.float64)),
    "where": lambda M, x: M.where(x > 0, x, M.zeros(3, dtype=M.float64)),
    "max()": lambda M, x: x.max().expand(3), "min()": lambda M, x: x.min().expand(3),
    "max(dim)": lambda M, x: M.max(x.reshape(1, 3), 1)[0].expand(3),
    "min(dim)": lambda M, x: M.min(x.reshape(1, 3), 1)[0].expand(3),
    "max(dim) of ties": lambda M, x: M.max(x.reshape(3, 1).expand(3, 2), 1)[0],
    "relu of each 0-d element": lambda M, x: M.stack([M.relu(x[0]), M.relu(x[1]), M.clamp(x[2], min=0.0)]),
}


def _upstream(M, case, values, seed, create_graph):
    x = M.tensor(values, dtype=M.float64, requires_grad=True)
    y = UPSTREAM[case](M, x)
    (g,) = M.autograd.grad(y, x, M.tensor(seed, dtype=M.float64), create_graph=create_graph)
    return [("nan" if v != v else round(v, 12)) for v in g.detach().tolist()]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("create_graph", [False, True], ids=["arrays", "recorded"])
@pytest.mark.parametrize("seed", [[INF, INF, INF], [NAN, 1.0, -INF]], ids=["inf", "nan and -inf"])
@pytest.mark.parametrize("values", [[-1.0, 0.0, 2.0], [3.0, 1.0, NAN]], ids=["kinks", "nan"])
@pytest.mark.parametrize("case", list(UPSTREAM))
def test_an_infinite_or_nan_gradient_flows_back_as_in_pytorch(case, values, seed, create_graph):
    """Where the gradient arriving is inf or NaN, the elements an op's backward does not select get exactly 0
    (relu, clamp, max: a select, as PyTorch's), and tanh's g*(1 - y^2) stays inf (g - g*y*y would be NaN)."""
    assert _upstream(ag, case, values, seed, create_graph) == _upstream(torch, case, values, seed, create_graph)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("shapes", [((2, 3), (2, 3)), ((3,), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2,)),
                                    ((), ()), ((2,), ())])
def test_masked_is_a_select_bit_for_bit(dtype, shapes):
    """elementwise.masked(g, keep) on arrays: g's own bits where keep holds (-0.0, inf and NaN included),
    +0.0 elsewhere, broadcast either way: what numpy.where(keep, g, 0) gives, without its branches."""
    from autogradlab.ops.elementwise import masked
    rng = np.random.default_rng(len(dtype) + sum(map(len, shapes)))
    g_shape, keep_shape = shapes
    g = rng.choice(np.array([1.5, -0.0, INF, -INF, NAN, -2.25]), g_shape).astype(dtype)
    keep = rng.random(keep_shape) < 0.5   # (a NumPy bool scalar for shape (), as a 0-d comparison gives)
    got, want = masked(g, keep), np.where(keep, g, np.zeros((), dtype))
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}"))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("op", ["sigmoid", "tanh", "relu"])
def test_second_order_through_an_infinite_first_gradient_is_pytorchs(op):
    """sigmoid_backward and tanh_backward are one node each, as PyTorch records them: the derivative in y is one
    product (gg*g*(1 - 2y) for sigmoid), not the sum of the product rule's two terms (inf - inf = NaN)."""
    def run(M):
        x = M.tensor([0.5, -1.0, 2.0], dtype=M.float64, requires_grad=True)
        (g,) = M.autograd.grad(getattr(M, op)(x), x, M.tensor([INF, 1.0, -2.0], dtype=M.float64), create_graph=True)
        (gg,) = M.autograd.grad((g * g).sum(), x, allow_unused=True, materialize_grads=True)
        return str(g.detach().tolist()), str(gg.tolist()), g.grad_fn is not None
    assert run(ag) == run(torch)


@BOTH
def test_relu_records_its_backward_as_one_threshold_backward(M):
    """A recorded backward of relu is one node, PyTorch's threshold_backward: its derivative in relu's output
    is a constant 0 (a result that requires no grad), in the gradient a select again."""
    x = M.tensor([-1.0, 2.0, 3.0], dtype=M.float64, requires_grad=True)
    y = x.relu()
    (g,) = M.autograd.grad(y, x, M.tensor([1.0, 2.0, 3.0], dtype=M.float64, requires_grad=True), create_graph=True)
    name = g.grad_fn.name() if M is ag else type(g.grad_fn).__name__
    assert name.rstrip("0") == "ThresholdBackwardBackward"
    dy, = M.autograd.grad(g.sum(), y, retain_graph=True)
    assert dy.tolist() == [0.0, 0.0, 0.0] and not dy.requires_grad
    v = g.grad_fn.next_functions[0][0]
    assert v is not None and (g * g).sum().requires_grad


CLAMP_TENSORS = {   # x, its dtype, then each bound and its dtype (None: left out)
    "min only": ([1.0, 2.0, 3.0], "float32", [2.0, 2.0, 2.0], "float32", None, None),
    "max only": ([1.0, 2.0, 3.0], "float32", None, None, [2.0], "float32"),
    "broadcast bounds": ([[1.0, 2.0, 3.0], [0.0, 5.0, -1.0]], "float64", [0.5, 2.0, 4.0], "float64",
                         [[1.0], [3.0]], "float64"),
    "0-d float64 bound": ([1.0, 2.0, 3.0], "float32", 2.0, "float64", None, None),
    "float64 bound": ([1.0, 2.0, 3.0], "float32", [2.0, 2.0, 2.0], "float64", None, None),
    "ints": ([1, 2, 3], "int64", [2, 2, 2], "int64", [2, 3, 2], "int64"),
    "int x, float max": ([1, 2, 3], "int64", None, None, [2.5, 2.5, 2.5], "float32"),
    "int x, float min, int max": ([1, 2, 3], "int64", [1.5, 1.5, 1.5], "float32", [2, 2, 2], "int64"),
    "int32 x, int64 max": ([1, 2, 3], "int32", None, None, [2, 2, 2], "int64"),
    "min above max": ([1.0, 2.0, 3.0], "float64", [3.0, 3.0, 3.0], "float64", [1.0, 1.0, 1.0], "float64"),
    "ties and NaN": ([1.0, 2.0, NAN], "float64", [1.0, NAN, 0.0], "float64", [1.0, 3.0, 2.0], "float64"),
    "NaN, and max below min": ([NAN, 5.0], "float64", [3.0, NAN], "float64", [1.0, 2.0], "float64"),
    "min equal to max": ([0.0, 2.0], "float64", [1.0, 1.0], "float64", [1.0, 1.0], "float64"),
    "an infinite min only": ([1.0, 2.0], "float64", [INF, 0.0], "float64", None, None),
    "compared in the result's dtype": ([0.0, 0.1], "float16", 0.1, "float64", [1.0, 0.1], "float32"),
}


def _clamp_tensors(M, case):
    xv, xd, lo, lod, hi, hid = CLAMP_TENSORS[case]

    def make(v, d):
        return None if v is None else M.tensor(v, dtype=getattr(M, d), requires_grad=d.startswith("float"))
    x, a, b = make(xv, xd), make(lo, lod), make(hi, hid)
    y = M.clamp(x, a, b)
    seen = [str(y.detach().tolist()), str(y.dtype).replace("torch.", "")]
    if y.requires_grad:
        y.backward(M.ones(y.shape, dtype=y.dtype) * 1.5)
        seen += [None if t is None or t.grad is None else t.grad.tolist() for t in (x, a, b)]
    return seen


@pytest.mark.parametrize("case", list(CLAMP_TENSORS))
def test_clamp_with_tensor_bounds_is_pytorchs(case):
    """clamp with Tensor bounds (one clamp_tensor op): PyTorch's dtype, value (NaN in a bound gives NaN; min above
    max gives max) and gradients (a at a tie with a bound, never a NaN element; a bound where it was picked)."""
    assert _clamp_tensors(ag, case) == _clamp_tensors(torch, case)


MASKED_FILLS = {
    "a number": lambda M, x, v: x.masked_fill(M.tensor([True, False, True]), 2.5),
    "a 0-d tensor, the mask broadcast": lambda M, x, v: x.masked_fill(M.tensor([[True, False, True], [False] * 3]), v),
    "a function, NaN into inf": lambda M, x, v: M.masked_fill(x * INF, M.tensor([False, True, False]), NAN),
    "a float into ints": lambda M, x, v: M.tensor([1, 2, 3]).masked_fill(M.tensor([True, False, True]), 2.7),
    "in place": lambda M, x, v: (x * 1).masked_fill_(M.tensor([True, False, False]), v),
    "a float mask": lambda M, x, v: x.masked_fill(M.tensor([1.0, 0.0, 1.0]), 0.0),
    "a NumPy mask": lambda M, x, v: x.masked_fill(np.array([True, False, True]), 0.0),
    "a value with dims": lambda M, x, v: x.masked_fill(M.tensor([True, False, True]), M.tensor([1.0, 2.0])),
    "in place, a mask larger than t": lambda M, x, v: (x * 1).masked_fill_(M.tensor([[True, False, False]] * 2), v),
}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("case", list(MASKED_FILLS))
def test_masked_fill_is_pytorchs(case):
    """masked_fill: PyTorch's value, dtype (the tensor's), gradients (none where filled; the sum of them to a 0-d
    value tensor) and errors (a bool mask, a 0-d value, an in-place result of the tensor's shape)."""
    def run(M):
        x = M.tensor([0.5, -1.0, 2.0], dtype=M.float64, requires_grad=True)
        v = M.tensor(7.0, dtype=M.float32, requires_grad=True)
        try:
            y = MASKED_FILLS[case](M, x, v)
        except (RuntimeError, TypeError) as exc:
            return type(exc).__name__
        seen = [str(y.detach().tolist()), str(y.dtype).replace("torch.", "")]
        if y.requires_grad:
            (y * M.arange(y.numel(), dtype=y.dtype).reshape(y.shape)).sum().backward()
            seen += [None if t.grad is None else str(t.grad.tolist()) for t in (x, v)]
        return seen
    assert run(ag) == run(torch)


EMPTY = {   # ops on tensors with no elements, forward and backward
    "exp": lambda M, x: M.exp(x), "relu": lambda M, x: M.relu(x), "sum(0)": lambda M, x: x.sum(0),
    "sum(-1)": lambda M, x: x.sum(-1), "mean(-1)": lambda M, x: x.mean(-1), "var": lambda M, x: x.var(),
    "amax(-1)": lambda M, x: M.amax(x, -1), "amax(0)": lambda M, x: M.amax(x, 0), "amax()": lambda M, x: M.amax(x),
    "max()": lambda M, x: x.max(), "max(0)": lambda M, x: M.max(x, 0)[0], "max(-1)": lambda M, x: M.max(x, -1)[0],
    "softmax(-1)": lambda M, x: M.softmax(x, -1), "log_softmax(0)": lambda M, x: M.log_softmax(x, 0),
    "logsumexp(-1)": lambda M, x: M.logsumexp(x, -1), "matmul": lambda M, x: x @ M.ones(x.shape[-1], 3, dtype=M.float64),
    "cat": lambda M, x: M.cat([x, x], -1), "index by a mask": lambda M, x: x[x > 0],
    "t[mask] = 0": lambda M, x: (lambda t: (t.__setitem__(t > 0, 0.0), t)[1])(x * 1),
    "clamp": lambda M, x: M.clamp(x, -1.0, 1.0), "masked_fill": lambda M, x: x.masked_fill(x > 0, 1.0),
}


@pytest.mark.parametrize("shape", [(0,), (2, 0), (0, 3)], ids=str)
@pytest.mark.parametrize("case", list(EMPTY))
def test_ops_on_empty_tensors_are_pytorchs(case, shape):
    """Empty in, empty out (a softmax over an empty dim too); the max of nothing raises as in PyTorch (IndexError
    for a dim given, RuntimeError for the whole tensor)."""
    def run(M):
        x = M.zeros(*shape, dtype=M.float64, requires_grad=True)
        try:
            y = EMPTY[case](M, x)
            y.sum().backward()
        except (RuntimeError, ValueError) as exc:   # (a ValueError of ours is a RuntimeError of PyTorch's)
            return "RuntimeError" if isinstance(exc, ValueError) or type(exc) is RuntimeError else type(exc).__name__
        except IndexError:
            return "IndexError"
        return tuple(y.shape), str(y.detach().tolist()), tuple(x.grad.shape), str(x.grad.tolist())
    assert run(ag) == run(torch)


NON_FLOAT = {   # integer and bool tensors through ops that compute in floats, or refuse them
    "var": lambda M, x: x.var(), "std": lambda M, x: x.std(0), "softmax": lambda M, x: M.softmax(x, 0),
    "log_softmax": lambda M, x: M.log_softmax(x, 0), "logsumexp": lambda M, x: M.logsumexp(x, 0),
    "clamp(0.5, 1.5)": lambda M, x: M.clamp(x, 0.5, 1.5), "clamp(0, 1)": lambda M, x: M.clamp(x, 0, 1),
    "relu": lambda M, x: M.relu(x), "abs": lambda M, x: M.abs(x), "sign": lambda M, x: M.sign(x),
    "x @ x": lambda M, x: x @ x, "dot": lambda M, x: M.dot(x, x), "x // 2": lambda M, x: x // 2,
    "7 // x": lambda M, x: 7 // (x + 3), "x % -2": lambda M, x: x % -2, "x.remainder(x + 3)": lambda M, x: x.remainder(x + 3),
    "x.remainder(x + 4)": lambda M, x: x.remainder(x + 4), "x // 0": lambda M, x: x // 0,
    "cumsum": lambda M, x: x.cumsum(0), "x // x": lambda M, x: x // x, "x % x": lambda M, x: x % x,
    "x //= 2, in place": lambda M, x: (lambda t: (t[:2].__ifloordiv__(2), t)[1])(x.clone()),
}


NORMS = {
    "rows, one of them zero": lambda M, x: x.norm(dim=1),
    "all": lambda M, x: x.norm(), "p=1 by rows": lambda M, x: x.norm(p=1, dim=1),
    "fro, keepdim": lambda M, x: M.norm(x, "fro", 0, True), "0-d": lambda M, x: M.norm(x[0, 0] - 2.0),
    "of integers": lambda M, x: M.tensor([3, 4]).norm(),
}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")   # (recorded, NumPy warns of the 0/0 that torch keeps too)
@pytest.mark.parametrize("case", list(NORMS))
def test_norm_is_pytorchs_with_gradient_zero_where_the_norm_is_zero(case):
    def run(M):
        x = M.tensor([[3.0, 4.0], [0.0, 0.0]], dtype=M.float64, requires_grad=True)
        try:
            n = NORMS[case](M, x)
        except RuntimeError:
            return "RuntimeError"
        (g,) = M.autograd.grad(n.sum(), x, create_graph=True)
        (h,) = M.autograd.grad(g.sum(), x, allow_unused=True)   # (NaN on a zero row, in torch too)
        host = None if h is None else (h.detach().numpy(force=True) if M is torch else h.numpy())   # (ZeroTensor)
        second = None if h is None else [("nan" if v != v else round(v, 12)) for v in host.reshape(-1).tolist()]
        return n.tolist(), g.tolist(), second
    assert run(ag) == run(torch)


@pytest.mark.parametrize("call", [
    lambda T, x: x.norm(), lambda T, x: x.norm(2), lambda T, x: x.norm("fro"), lambda T, x: x.norm(1),
    lambda T, x: x.norm(p=math.inf), lambda T, x: x.norm(-math.inf, 1), lambda T, x: x.norm(0.5), lambda T, x: x.norm(3, 0),
    lambda T, x: T.norm(x, -1), lambda T, x: x.norm("nuc"), lambda T, x: x.norm("nuc", (1, 0), True),
    lambda T, x: T.norm(x, "fro", (0, 1)), lambda T, x: x.norm(None, 1), lambda T, x: x.norm(1, dtype=T.float64),
], ids=["default", "2", "fro", "1", "inf", "-inf dim", "0.5", "3 dim", "-1", "nuc", "nuc dims keepdim", "fro dims",
        "None dim", "dtype"])
def test_norm_takes_every_p_as_torch(call):
    """torch.norm / Tensor.norm: a number p is linalg.vector_norm's, 'fro' the 2-norm, 'nuc' the nuclear norm."""
    data = np.array([[3.0, -4.0, 0.5], [0.0, 2.0, -1.0]], dtype=np.float32)
    results = []
    for T in (ag, torch):
        x = T.tensor(data, requires_grad=True)
        y = call(T, x)
        y.sum().backward()
        results.append((np.asarray(y.tolist()), str(y.dtype).removeprefix("torch."), x.grad.numpy()))
    (y, dtype, grad), (ty, tdtype, tgrad) = results
    assert dtype == tdtype
    np.testing.assert_allclose(y, ty, rtol=1e-6)
    np.testing.assert_allclose(grad, tgrad, rtol=1e-5, atol=1e-7)


def test_norm_refuses_a_narrowing_dtype_and_a_matrix_norm_of_a_vector_as_torch():
    both_raise(lambda: ag.tensor([3.0, 4.0], dtype=ag.float64).norm(dtype=ag.float32),
               lambda: torch.tensor([3.0, 4.0], dtype=torch.float64).norm(dtype=torch.float32))
    both_raise(lambda: ag.tensor([3.0, 4.0]).norm("nuc"), lambda: torch.tensor([3.0, 4.0]).norm("nuc"))


def test_floor_division_and_a_number_modulo_a_tensor_are_not_differentiable():
    """PyTorch has no derivative for a // b nor for number % t (it records them, and the backward raises); here
    their results need no grad (README: differences), while t % number is differentiable in both."""
    t = ag.tensor([5.5, -3.25], requires_grad=True)
    assert not (2.5 % t).requires_grad and not (t // 2).requires_grad and not ag.floor_divide(t, t).requires_grad
    (t % 2).sum().backward()
    assert t.grad.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("divisor", [2.0, -2.0, 1.5, -0.75])
def test_remainder_of_floats_is_pytorchs_signed_zeros_and_second_order_included(divisor):
    """a % b: a zero result keeps a's sign (PyTorch's fmod-based rule; NumPy's remainder gives it b's); the
    gradient in b, -g*floor(a/b), stays connected to a and b (a zero second derivative, not a cut)."""
    def run(M):
        a = M.tensor([-4.0, 4.0, 3.5, -3.5, 0.0, -0.0], dtype=M.float64, requires_grad=True)
        b = M.full((6,), divisor, dtype=M.float64, requires_grad=True)
        y = a % b
        ga, gb = M.autograd.grad((y * y).sum(), (a, b), create_graph=True)
        second = M.autograd.grad((gb * gb).sum(), (a, b))
        t = a.detach().clone()
        t %= divisor
        return [repr(v) for v in y.tolist()], gb.tolist(), [g.tolist() for g in second], [repr(v) for v in t.tolist()]
    assert run(ag) == run(torch)


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
@pytest.mark.parametrize("case", list(NON_FLOAT))
def test_integer_and_bool_tensors_are_taken_or_refused_as_in_pytorch(case, dtype):
    """The dtype and value PyTorch gives (logsumexp of integers in float32, an integer clamped to a float bound in
    float32, // and % rounding toward -inf), or an error where PyTorch refuses (var, softmax of integers; relu,
    abs and products of bools)."""
    def run(M):
        x = M.tensor([True, False, True] if dtype == "bool" else [5, -3, 2], dtype=getattr(M, dtype))
        try:
            y = NON_FLOAT[case](M, x)
        except (RuntimeError, TypeError, ValueError) as exc:   # (NotImplementedError is a RuntimeError)
            return "TypeError" if isinstance(exc, TypeError) else "RuntimeError"
        return str(y.dtype).replace("torch.", ""), [repr(round(v, 5)) for v in y.reshape(-1).tolist()]
    assert run(ag) == run(torch)


def _outcome(fn):
    try:
        out = fn()
    except (RuntimeError, TypeError, ValueError, IndexError) as exc:
        return type(exc).__name__
    return out.tolist(), str(out.dtype).replace("torch.", "")


ARGUMENTS = {
    "float - True": lambda M: M.tensor([1.0, 2.0]) - True,
    "True - float": lambda M: True - M.tensor([1.0, 2.0]),
    "mask - 2": lambda M: M.tensor([True, False]) - 2,
    "mask - mask": lambda M: M.tensor([True, False]) - M.tensor([True, True]),
    "-mask": lambda M: -M.tensor([True, False]),
    "~mask": lambda M: ~M.tensor([True, False]),
    "~ints": lambda M: ~M.tensor([1, 2]),
    "~floats": lambda M: ~M.tensor([1.0, 2.0]),
    "mask & mask": lambda M: M.tensor([True, False]) & M.tensor([True, True]),
    "mask | True": lambda M: M.tensor([True, False]) | True,
    "False ^ mask": lambda M: False ^ M.tensor([True, False]),
    "ints & ints": lambda M: M.tensor([6, 3]) & M.tensor([3, 3]),
    "logical_not of ints": lambda M: M.logical_not(M.tensor([0, 2])),
    "reshape(6.0)": lambda M: M.arange(6.0).reshape(6.0),
    "reshape(2, 3.0)": lambda M: M.arange(6.0).reshape(2, 3.0),
    "expand(2, 3.0)": lambda M: M.ones(3).expand(2, 3.0),
    "transpose(True, 0)": lambda M: M.ones(2, 3).transpose(True, 0),
    "sum(True)": lambda M: M.ones(2, 3).sum(True),
    "sum(dim=(0, True))": lambda M: M.ones(2, 3).sum((0, True)),
    "where(mask, 1, 2)": lambda M: M.where(M.tensor([True, False]), 1, 2),
    "where(mask, 1.0, 2)": lambda M: M.where(M.tensor([True, False]), 1.0, 2),
    "where(mask, True, False)": lambda M: M.where(M.tensor([True, False]), True, False),
    "logsumexp over an empty dim": lambda M: M.logsumexp(M.ones(0, 2), 0),
    "logsumexp over an empty dim, keepdim": lambda M: M.logsumexp(M.ones(0, 2), 0, keepdim=True),
}


@pytest.mark.parametrize("case", list(ARGUMENTS))
def test_masks_sizes_and_numbers_behave_as_in_pytorch(case):
    assert _outcome(lambda: ARGUMENTS[case](ag)) == _outcome(lambda: ARGUMENTS[case](torch))


def test_the_errors_for_bools_and_floats_say_what_to_write_instead():
    with pytest.raises(RuntimeError, match=r"~mask"):
        ag.tensor([True, False]) - ag.tensor([True, True])
    with pytest.raises(TypeError, match=r"//"):
        ag.arange(6.0).reshape(6 / 2, 2)
    with pytest.raises(TypeError, match=r"\(x > 0\) & \(y > 0\)"):
        ag.tensor([1.0]) | ag.tensor([True])
    with pytest.raises(TypeError, match="object"):
        ag.tensor([1.0]) + np.array([1.0], dtype=object)


@BOTH
def test_contiguous_copies_a_layout_view_cannot_take_and_a_refused_view_records_nothing(M):
    x = M.ones(2, 3, requires_grad=True)
    assert x.T.contiguous().view(-1).shape == (6,)
    y = x * 1
    assert y.contiguous() is y                     # already row-major: itself
    if M is ag:
        with ag.trace() as tape:
            with pytest.raises(RuntimeError):
                y.T.view(-1)
        assert [e.op for e in tape.of_kind("OpRecorded")] == ["permute"]   # (.T, then nothing)


@BOTH
def test_sign_sends_constant_zeros_even_for_an_infinite_or_nan_gradient(M):
    x = M.tensor([float("inf"), 1.0, float("nan")], requires_grad=True)
    M.sign(x).backward(M.tensor([float("inf"), float("nan"), 1.0]))
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


@BOTH
def test_detaching_a_view_in_place_raises(M):
    base = M.ones(3, requires_grad=True) * 1
    with pytest.raises(RuntimeError, match="detach"):
        base[:2].detach_()
    assert base.detach_() is base and base.grad_fn is None
