"""PyTorch's remaining top-level names and Tensor methods (``ops/integers.py``, ``ops/counting.py``,
``ops/writes.py``, ``windows.py``, ``torch_level.py`` and the in-place forms in ``ops/methods.py``): side by side
with torch 2.13, values, dtypes, gradients and error classes."""
import warnings

import numpy as np
import pytest

import autogradlab as ag
from conftest import import_torch
from torch_compare import both_raise

torch = import_torch()
_rng = np.random.default_rng(20261129)


def _same(ours, theirs, rtol=1e-12, atol=0.0):
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        if hasattr(theirs, "_fields"):
            assert ours._fields == theirs._fields
        for o, t in zip(ours, theirs):
            _same(o, t, rtol, atol)
        return
    if not isinstance(theirs, torch.Tensor):   # (a bool or a number)
        assert ours == theirs and type(ours) is type(theirs)
        return
    assert isinstance(ours, ag.Tensor), type(ours)
    if ours.dtype == ag.float32:   # (NumPy's float32 exp and torch's may differ in the last place)
        rtol = max(rtol, 3e-7)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch."), (ours.dtype, theirs.dtype)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol, atol=atol)


def _both(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(ag), call(torch)


_I = [12, 18, -7, 0, 5, -40]
_J = [8, 27, 21, 5, 0, 6]

VALUES = {
    "gcd": lambda T: T.gcd(T.tensor(_I), T.tensor(_J)),
    "lcm": lambda T: T.lcm(T.tensor(_I), T.tensor(_J)),
    "gcd int32 broadcast": lambda T: T.gcd(T.tensor([[6], [10]], dtype=T.int32), T.tensor([4, 15], dtype=T.int32)),
    "gcd_ method": lambda T: T.tensor(_I).gcd_(T.tensor(_J)),
    "lcm method": lambda T: T.tensor(_I).lcm(T.tensor(_J)),
    "<<": lambda T: T.tensor(_I) << 2,
    ">>": lambda T: T.tensor(_I) >> T.tensor([1, 0, 2, 3, 1, 4]),
    "bitwise_left_shift uint8 overflow": lambda T: T.bitwise_left_shift(T.tensor([200, 3], dtype=T.uint8), 1),
    "bitwise_right_shift": lambda T: T.bitwise_right_shift(T.tensor(_I), 1),
    "shift by the width or more": lambda T: T.tensor([5, -5], dtype=T.int32) >> 40,
    "shift left by a negative count": lambda T: T.tensor([5, -5]) << T.tensor([-1, 65]),
    "number << tensor": lambda T: 3 << T.tensor([1, 2]),
    "<<= in place": lambda T: _iop(T.tensor(_I), "__ilshift__", 3),
    "bitwise_and method": lambda T: T.tensor(_I).bitwise_and(T.tensor(_J)),
    "bitwise_or_ in place": lambda T: T.tensor(_I).bitwise_or_(T.tensor(_J)),
    "bitwise_xor of masks": lambda T: T.tensor([True, False, True]).bitwise_xor(T.tensor([True, True, False])),
    "&= in place": lambda T: _iop(T.tensor(_I), "__iand__", T.tensor(_J)),
    "bitwise_not_": lambda T: T.tensor(_I).bitwise_not_(),
    "frexp float32": lambda T: T.frexp(T.tensor([0.0, 1.5, -3.2, 1e-40, float("inf"), -0.0, 1024.0])),
    "frexp float64 method": lambda T: T.tensor([3.0, -1e-310, 7e300], dtype=T.float64).frexp(),
    "nextafter": lambda T: T.nextafter(T.tensor([1.0, 0.0, 2.0]), T.tensor([2.0, -1.0, 2.0])),
    "nextafter_ float64": lambda T: T.tensor([1.0, -0.0], dtype=T.float64).nextafter_(T.tensor([0.0, 1.0],
                                                                                              dtype=T.float64)),
    "unique_consecutive": lambda T: T.unique_consecutive(T.tensor([1, 1, 2, 2, 3, 1, 1])),
    "unique_consecutive inverse counts": lambda T: T.unique_consecutive(T.tensor([[1, 1], [1, 2]]),
                                                                         return_inverse=True, return_counts=True),
    "unique_consecutive dim 0": lambda T: T.unique_consecutive(T.tensor([[1, 2], [1, 2], [3, 4], [1, 2]]),
                                                                return_inverse=True, return_counts=True, dim=0),
    "unique_consecutive dim 1 method": lambda T: T.tensor([[1, 1, 2], [3, 3, 3]]).unique_consecutive(
        return_counts=True, dim=1),
    "unique_consecutive empty": lambda T: T.unique_consecutive(T.tensor([], dtype=T.int64), return_counts=True),
    "unravel_index": lambda T: T.unravel_index(T.tensor([5, 7, 0, -1]), (3, 4)),
    "unravel_index 2-d indices": lambda T: T.unravel_index(T.tensor([[5], [23]]), (2, 3, 4)),
    "unravel_index wraps around": lambda T: T.unravel_index(T.tensor([12, -13, 13, -1]), (3, 4)),
    "index_put with a list": lambda T: T.index_put(T.zeros(3), [T.tensor([0])], T.ones(1)),
    "scalar_tensor": lambda T: T.scalar_tensor(3),
    "scalar_tensor float64": lambda T: T.scalar_tensor(2.5, dtype=T.float64),
    "rsub": lambda T: T.rsub(T.tensor([1.0, 2.0]), 3),
    "rsub tensors alpha": lambda T: T.rsub(T.tensor([1.0, 2.0]), T.tensor([5.0, 7.0]), alpha=2),
    "detach": lambda T: T.detach(T.tensor([1.0, 2.0])),
    "exp_ at the top level": lambda T: T.exp_(T.tensor([0.5, 1.0])),
    "clamp_ at the top level": lambda T: T.clamp_(T.tensor([-2.0, 0.5, 3.0]), min=-1.0, max=1.0),
    "zero_ at the top level": lambda T: T.zero_(T.tensor([1.0, 2.0])),
    "fill_ at the top level": lambda T: T.fill_(T.tensor([1.0, 2.0]), 7.0),
    "eq_": lambda T: T.ones(2, 3).eq_(T.tensor([1.0, 0.0, 1.0])),
    "lt_ of ints": lambda T: T.tensor([1, 5, 3]).lt_(3),
    "greater_equal_": lambda T: T.tensor([1.0, 5.0, 3.0]).greater_equal_(T.tensor([2.0, 5.0, 1.0])),
    "not_equal_": lambda T: T.tensor([1.0, 5.0, 3.0]).not_equal_(5.0),
    "logical_and_": lambda T: T.tensor([1.0, 0.0, 2.0]).logical_and_(T.tensor([1.0, 1.0, 0.0])),
    "logical_not_": lambda T: T.tensor([1, 0, 2]).logical_not_(),
    "logical_xor_ of bools": lambda T: T.tensor([True, False]).logical_xor_(T.tensor([True, True])),
    "cumsum_": lambda T: T.tensor([[1.0, 2.0], [3.0, 4.0]]).cumsum_(0),
    "cumprod_": lambda T: T.tensor([1.0, 2.0, 3.0]).cumprod_(0),
    "copysign_": lambda T: T.tensor([1.0, -2.0]).copysign_(T.tensor([-1.0, 1.0])),
    "heaviside_": lambda T: T.tensor([-1.0, 0.0, 2.0]).heaviside_(T.tensor([0.5])),
    "float_power_ float64": lambda T: T.tensor([2.0, 3.0], dtype=T.float64).float_power_(2),
    "diagflat method": lambda T: T.tensor([1.0, 2.0]).diagflat(1),
    "ldexp method": lambda T: T.tensor([1.0, 2.0]).ldexp(T.tensor([3, -1])),
    "is_nonzero method": lambda T: T.tensor([3]).is_nonzero(),
    "is_inference": lambda T: (T.is_inference(T.ones(2)), T.ones(2).is_inference()),
    "index_put": lambda T: T.index_put(T.zeros(3, 2), (T.tensor([0, 2]),), T.tensor([1.0, 2.0])),
    "index_put accumulate repeated": lambda T: T.zeros(4).index_put((T.tensor([1, 1, 3, -1]),),
                                                                    T.tensor([1.0, 2.0, 3.0, 4.0]), True),
    "index_put_ accumulate 2-d": lambda T: T.ones(3, 4).index_put_(
        (T.tensor([0, 2, 0]), T.tensor([1, 3, 1])), T.tensor(5.0), accumulate=True),
    "index_put accumulate rows": lambda T: T.zeros(3, 2).index_put((T.tensor([2, 2]),), T.tensor([1.0, 2.0]),
                                                                   accumulate=True),
    "index_put mask accumulate": lambda T: T.zeros(2, 2).index_put((T.tensor([[True, False], [True, True]]),),
                                                                   T.tensor([1.0, 2.0, 3.0]), accumulate=True),
    "put": lambda T: T.put(T.zeros(2, 3), T.tensor([0, 5, -2]), T.tensor([1.0, 2.0, 3.0])),
    "put_ accumulate": lambda T: T.ones(2, 2).put_(T.tensor([[1, 1]]), T.tensor([[2.0, 3.0]]), accumulate=True),
    "select_scatter": lambda T: T.select_scatter(T.zeros(2, 3), T.tensor([1.0, 2.0]), 1, -1),
    "slice_scatter": lambda T: T.slice_scatter(T.zeros(4, 2), T.ones(2, 2), 0, 1, None, 2),
    "slice_scatter dim 1 method": lambda T: T.zeros(2, 5).slice_scatter(T.ones(2, 2), dim=1, start=3),
    "diagonal_scatter": lambda T: T.diagonal_scatter(T.zeros(3, 3), T.tensor([1.0, 2.0]), 1),
    "diagonal_scatter dims": lambda T: T.zeros(2, 3, 3).diagonal_scatter(T.ones(3, 2), 0, 0, 2),
    "index_reduce prod": lambda T: T.ones(5, 3).index_reduce(0, T.tensor([0, 4, 2, 0]), _SOURCE(T), "prod"),
    "index_reduce mean without self": lambda T: T.ones(5, 3).index_reduce(0, T.tensor([0, 4, 2, 0]), _SOURCE(T),
                                                                          "mean", include_self=False),
    "index_reduce_ amax dim 1": lambda T: T.zeros(4, 2).index_reduce_(1, T.tensor([1, 1, 0]), _SOURCE(T), "amax"),
    "index_reduce amin": lambda T: T.full((5, 3), 6.0).index_reduce(0, T.tensor([3, 3, 1, 0]), _SOURCE(T), "amin"),
    "apply_": lambda T: T.tensor([1.0, -2.0, 3.5]).apply_(lambda v: v * v + 1),
    "apply_ of ints on a view": lambda T: _base_after(T.arange(6).reshape(2, 3), lambda t: t[:, 1].apply_(abs)),
    "map_": lambda T: T.tensor([[1.0, 2.0], [3.0, 4.0]]).map_(T.tensor([10.0, 20.0]), lambda u, v: u * v - 1),
    "new sizes": lambda T: T.tensor([1.0], dtype=T.float64).new(2, 3).zero_(),
    "new data": lambda T: T.tensor([1], dtype=T.int32).new([4, 5]),
    "new empty": lambda T: T.tensor([1.0]).new(),
    "mode": lambda T: T.mode(T.tensor([[1, 2, 2, 3], [4, 4, 1, 1]]), 1),
    "mode keepdim dim 0": lambda T: T.tensor([[1.0, 2.0], [1.0, 3.0], [2.0, 3.0]]).mode(0, keepdim=True),
    "mode 0-d": lambda T: T.mode(T.tensor(4.0)),
    "mode 1-d float": lambda T: T.mode(T.tensor([0.5, 2.0, 0.5, 2.0, -1.0])),
}


def _SOURCE(T):
    return T.tensor([[1.0, 2, 3], [4, 5, 6], [7, 8, 9], [10, 11, 12]])


def _base_after(base, write):
    write(base)
    return base


def _iop(t, name, other):
    out = getattr(t, name)(other)
    assert out is t
    return t


@pytest.mark.parametrize("name", sorted(VALUES))
def test_values_and_dtypes_match_torch(name):
    if name.startswith(("apply_", "map_")) and str(ag.get_default_device()) != "cpu":
        with pytest.raises(TypeError, match="only implemented on CPU"):   # (as torch's on a GPU)
            VALUES[name](ag)
        return
    ours, theirs = _both(VALUES[name])
    _same(ours, theirs)


@pytest.mark.parametrize("seed", range(6))
def test_mode_of_random_small_integers_picks_torchs_value_and_index(seed):
    X = np.random.default_rng(seed).integers(0, 4, (5, 7))
    ours, theirs = ag.mode(ag.tensor(X), -1), torch.mode(torch.tensor(X), -1)
    _same(ours, theirs)


def test_mode_values_take_the_gradient_at_the_index():
    X = np.array([[1.0, 2.0, 2.0, 3.0], [4.0, 4.0, 1.0, 1.0]])
    a, t = ag.tensor(X, requires_grad=True), torch.tensor(X, requires_grad=True)
    (ag.mode(a, 1).values * ag.tensor([2.0, 3.0])).sum().backward()
    (torch.mode(t, 1).values * torch.tensor([2.0, 3.0])).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), t.grad.numpy())


def test_frexp_mantissa_gradient_is_torchs():
    X = np.array([3.0, -0.4, 1000.0, 1e-3])
    a, t = ag.tensor(X, requires_grad=True), torch.tensor(X, requires_grad=True)
    ag.frexp(a).mantissa.sum().backward()
    torch.frexp(t).mantissa.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), t.grad.numpy())
    assert not ag.frexp(a).exponent.requires_grad


WRITES = {
    "index_put": (lambda T, x, v: T.index_put(x, (T.tensor([0, 2]), T.tensor([1, 0])), v), (3, 2), (2,)),
    "index_put accumulate": (lambda T, x, v: T.index_put(x, (T.tensor([1, 1, 2]),), v, True), (3, 2), (3, 2)),
    "put accumulate": (lambda T, x, v: T.put(x, T.tensor([1, 1, 4]), v, accumulate=True), (2, 3), (3,)),
    "select_scatter": (lambda T, x, v: T.select_scatter(x, v, 0, 1), (3, 2), (2,)),
    "slice_scatter": (lambda T, x, v: T.slice_scatter(x, v, 1, 0, 3, 2), (3, 4), (3, 2)),
    "diagonal_scatter": (lambda T, x, v: T.diagonal_scatter(x, v, -1), (3, 3), (2,)),
}


@pytest.mark.parametrize("name", sorted(WRITES))
def test_writes_send_the_gradient_to_the_input_outside_and_to_src_inside(name):
    call, shape, src_shape = WRITES[name]
    X, V, G = _rng.standard_normal(shape), _rng.standard_normal(src_shape), _rng.standard_normal(shape)
    grads = []
    for T in (ag, torch):
        x, v = T.tensor(X, requires_grad=True), T.tensor(V, requires_grad=True)
        out = call(T, x, v)
        out.backward(T.tensor(G))
        grads.append((out.detach().numpy(), x.grad.numpy(), v.grad.numpy()))
    for ours, theirs in zip(*grads):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    x = ag.tensor(X, requires_grad=True)
    assert ag.autograd.gradcheck(lambda x, v: call(ag, x, v), (x, ag.tensor(V, requires_grad=True)))


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_gradients_are_torchs(reduce, include_self):
    X, S = _rng.standard_normal((5, 3)), _rng.standard_normal((4, 3))
    S[3] = S[0] if reduce in ("amax", "amin") else S[3]   # (a tie, shared as torch shares it)
    grads = []
    for T in (ag, torch):
        x, s = T.tensor(X, requires_grad=True), T.tensor(S, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = x.index_reduce(0, T.tensor([0, 4, 2, 0]), s, reduce, include_self=include_self)
        out.backward(T.tensor(np.arange(15.0).reshape(5, 3)))
        grads.append((out.detach().numpy(), x.grad.numpy(), s.grad.numpy()))
    for ours, theirs in zip(*grads):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)


def test_apply_and_map_refuse_a_tensor_that_requires_grad_and_change_nothing():
    x = ag.tensor([1.0, 2.0], requires_grad=True, device="cpu")
    for call in (lambda: x.apply_(abs), lambda: x.map_(x, max)):
        with pytest.raises(RuntimeError, match="detach"):
            call()
    assert x.tolist() == [1.0, 2.0]
    with pytest.raises(RuntimeError, match="read-only|expanded"):
        ag.ones(1, device="cpu").expand(3).apply_(abs)


@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
                                  "kaiser_window"])
@pytest.mark.parametrize("n", [0, 1, 2, 5, 16])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows_match_torch(name, n, periodic):
    ours, theirs = getattr(ag, name)(n, periodic), getattr(torch, name)(n, periodic)
    _same(ours, theirs, rtol=1e-6, atol=1e-7)   # (torch computes in float32, ours in float64 rounded once)
    ours = getattr(ag, name)(n, periodic, dtype=ag.float64)
    theirs = getattr(torch, name)(n, periodic, dtype=torch.float64)
    _same(ours, theirs, rtol=1e-12, atol=1e-15)


def test_window_arguments_match_torch():
    _same(ag.hamming_window(7, False, 0.6, 0.4), torch.hamming_window(7, False, 0.6, 0.4), rtol=1e-6)
    _same(ag.kaiser_window(9, False, 5.0), torch.kaiser_window(9, False, 5.0), rtol=1e-5, atol=1e-7)
    w = ag.hann_window(4, requires_grad=True)
    assert w.requires_grad and w.is_leaf


@pytest.mark.parametrize("call", [
    lambda T: T.gcd(T.tensor([1.5]), T.tensor([2.0])), lambda T: T.lcm(T.tensor([2]), T.tensor([2.0])),
    lambda T: T.tensor([1.5]) << 1, lambda T: T.bitwise_right_shift(T.tensor([1.0]), 1),
    lambda T: T.nextafter(T.tensor([1]), T.tensor([2])), lambda T: T.frexp(T.tensor([1, 2])),
    lambda T: T.mode(T.ones(2, 0), 1), lambda T: T.mode(T.ones(2), 1),
    lambda T: T.unravel_index(T.tensor([1.0]), (3,)),
    lambda T: T.unravel_index(T.tensor([1]), (-1, 2)),
    lambda T: T.select_scatter(T.zeros(2, 3), T.ones(3), 1, 0), lambda T: T.slice_scatter(T.zeros(4), T.ones(3)),
    lambda T: T.diagonal_scatter(T.zeros(3, 3), T.ones(2)), lambda T: T.index_put(T.zeros(3), T.tensor([0]), T.ones(1)),
    lambda T: T.zeros(3).index_put_((T.tensor([3]),), T.ones(1), accumulate=True),
    lambda T: T.zeros(3).put_(T.tensor([0, 1]), T.ones(3)), lambda T: T.zeros(3).put_(T.tensor([0.0]), T.ones(1)),
    lambda T: T.hann_window(-1), lambda T: T.hann_window(3, dtype=T.int64), lambda T: T.hann_window(2.5),
    lambda T: T.set_num_threads(0), lambda T: T.tensor([1.0, 2.0]).is_nonzero(),
    lambda T: T.tensor([1, 2]).float_power_(2), lambda T: T.exp_([1.0]),
    lambda T: T.ones(3).index_reduce(0, T.tensor([0]), T.ones(1), "sum"),
    lambda T: T.ones(3, 2).index_reduce(0, T.tensor([0, 1]), T.ones(3, 2), "prod"),
    lambda T: T.ones(3, 2).index_reduce(0, T.tensor([0, 1]), T.ones(2, 3), "prod"),
])
def test_bad_arguments_raise_torchs_error_class(call):
    both_raise(lambda: call(ag), lambda: call(torch))


def test_in_place_comparison_on_a_leaf_that_requires_grad_is_refused_and_changes_nothing():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError):
        x.eq_(1.0)
    assert x.tolist() == [1.0, 2.0] and x.grad is None
    y = x * 1
    y.gt_(1.5)   # (a non-leaf: written; a comparison is not differentiable, so y no longer requires grad)
    assert y.tolist() == [0.0, 1.0] and not y.requires_grad and y.grad_fn is None


def test_every_top_level_in_place_name_is_the_method():
    for name in ag.torch_level.IN_PLACE_NAMES:
        assert hasattr(torch, name), name   # (each is PyTorch's too)
        assert getattr(ag, name).__name__ == name and hasattr(ag.Tensor, name), name


def test_thread_counts():
    assert isinstance(ag.get_num_threads(), int) and ag.get_num_threads() >= 1
    assert ag.get_num_interop_threads() == 1
    ag.set_num_interop_threads(2)
