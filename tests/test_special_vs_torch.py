"""``xlogy``, ``nan_to_num``, ``logit``, ``sinc`` and ``autogradlab.special`` against torch 2.13: values (NaN and
infinities included), dtypes, gradients at the conventions' points (x = 0 for xlogy and sinc, the clamp's edges
for logit, the replaced elements of nan_to_num) and the errors."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import host, import_torch

import autogradlab as ag

torch = import_torch()

NAN, INF = float("nan"), float("inf")


def _same(ours, theirs, rtol=1e-6):
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
    np.testing.assert_allclose(host(ours.detach().data), theirs.detach().numpy(), rtol=rtol, atol=1e-30)


def _values_and_gradients(call, *values, dtype="float64"):
    ours = [ag.tensor(np.array(v, dtype=dtype), requires_grad=True) for v in values]
    theirs = [torch.tensor(np.array(v, dtype=dtype), requires_grad=True) for v in values]
    out, expected = call(ag, *ours), call(torch, *theirs)
    _same(out, expected)
    weights = np.arange(1.0, 1.0 + expected.numel()).reshape(tuple(expected.shape)).astype(dtype)
    (expected * torch.tensor(weights)).sum().backward()
    (out * ag.tensor(weights)).sum().backward()
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(host(o.grad.data), t.grad.numpy(), rtol=1e-6, atol=1e-30)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_xlogy_values_and_gradients(dtype):
    x = [0.0, 0.0, 2.0, -1.5, 3.0, 0.0]
    y = [0.5, 2.0, 3.0, 0.25, NAN, NAN]
    _values_and_gradients(lambda M, a, b: M.xlogy(a, b), x, y, dtype=dtype)
    _values_and_gradients(lambda M, a, b: a.xlogy(b), [[1.0], [0.0]], [2.0, 0.5], dtype=dtype)   # broadcast


def test_xlogy_at_zero_zero_is_zero_and_its_y_gradient_nan_as_torch():
    _values_and_gradients(lambda M, a, b: M.xlogy(a, b), [0.0, 1.0], [0.0, 2.0])


@pytest.mark.parametrize("call", [
    lambda M: M.xlogy(2, M.tensor([3.0, 0.5])), lambda M: M.xlogy(M.tensor([0.0, 2.0]), 3),
    lambda M: M.xlogy(M.tensor([0, 1]), M.tensor([2, 3])), lambda M: M.xlogy(M.tensor([0, 1]), 2.5),
    lambda M: M.xlogy(M.tensor([1.0], dtype=M.float16), M.tensor([2.0])),
], ids=["number-x", "number-y", "integers", "integer-and-float", "mixed-floats"])
def test_xlogy_numbers_and_dtypes(call):
    _same(call(ag), call(torch))


def test_xlogy_needs_a_tensor():
    with pytest.raises(TypeError):
        ag.xlogy(1.0, 2.0)
    with pytest.raises(TypeError):
        torch.xlogy(1.0, 2.0)


@pytest.mark.parametrize("kwargs", [{}, {"nan": 2.0}, {"posinf": 9.0, "neginf": -9.0}, {"nan": -1.0, "posinf": 0.5}],
                         ids=str)
@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_nan_to_num(kwargs, dtype):
    data = [NAN, INF, -INF, 1.5, -0.0]
    if dtype == "float16":
        _same(ag.nan_to_num(ag.tensor(np.array(data, dtype)), **kwargs),
              torch.nan_to_num(torch.tensor(np.array(data, dtype)), **kwargs))
        return
    _values_and_gradients(lambda M, a: M.nan_to_num(a, **kwargs), data, dtype=dtype)
    _values_and_gradients(lambda M, a: a.nan_to_num(**kwargs), data, dtype=dtype)


def test_nan_to_num_of_integers_is_a_copy():
    a = ag.tensor([1, 2])
    out = ag.nan_to_num(a)
    _same(out, torch.nan_to_num(torch.tensor([1, 2])))
    out[0] = 5
    assert a[0].item() == 1


@pytest.mark.parametrize("eps", [None, 0.1, 0.25, 0.0])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_logit(eps, dtype):
    data = [0.0, 0.25, 0.5, 0.9, 1.0, 1.5, -0.5]
    if eps is None:   # (outside [0, 1]: NaN values; the gradient 1/(z(1-z)) is still a number there)
        _values_and_gradients(lambda M, a: M.logit(a), data[1:4], dtype=dtype)
        _same(ag.logit(ag.tensor(np.array(data, dtype))), torch.logit(torch.tensor(np.array(data, dtype))))
        return
    _values_and_gradients(lambda M, a: M.logit(a, eps), data, dtype=dtype)
    _values_and_gradients(lambda M, a: a.logit(eps=eps), data, dtype=dtype)


def test_logit_of_integers_is_float32():
    _same(ag.logit(ag.tensor([0, 1])), torch.logit(torch.tensor([0, 1])))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_sinc(dtype):
    _values_and_gradients(lambda M, a: M.sinc(a), [0.0, 0.5, 1.0, -2.5, 0.2, 3.0], dtype=dtype)
    _values_and_gradients(lambda M, a: a.sinc(), [[0.0, 0.25]], dtype=dtype)
    _same(ag.sinc(ag.tensor([0, 2])), torch.sinc(torch.tensor([0, 2])))
    _same(ag.sinc(ag.tensor([NAN, INF])), torch.sinc(torch.tensor([NAN, INF])))


def test_sinc_gradient_near_zero_keeps_its_digits_and_has_a_second_derivative():
    """A decided difference (README): torch's formula cancels near 0 (in float32 at 1e-4 it is 3x off, and its
    second derivative at 0 is NaN); here the Taylor series gives float64 torch's values in float32 too, and
    -pi^2/3 at 0."""
    import mpmath   # (torch's own dependency, through sympy: exact derivatives to compare with)
    mpmath.mp.dps = 40
    points = [0.0, 1e-9, 1e-4, 1e-2, 0.1, 0.159, 0.16, -0.3, 0.5, 2.5]

    def exact(n):
        return np.array([float(mpmath.diff(lambda t: mpmath.sinc(mpmath.pi * t), mpmath.mpf(p), n)) for p in points])
    slope, curvature = exact(1), exact(2)
    assert curvature[0] == pytest.approx(-np.pi ** 2 / 3, rel=1e-15)
    torch32 = torch.tensor(points, requires_grad=True)
    torch.sinc(torch32).sum().backward()
    assert abs(torch32.grad[2].item() / slope[2] - 1) > 1    # (what torch's float32 gradient does at 1e-4)
    for dtype, rtol in (("float64", 1e-13), ("float32", 1e-5)):
        x = ag.tensor(np.array(points, dtype=dtype), requires_grad=True)
        g, = ag.autograd.grad(ag.sinc(x).sum(), x, create_graph=True)
        np.testing.assert_allclose(host(g.detach().data), slope, rtol=rtol, atol=1e-30)
        h, = ag.autograd.grad(g.sum(), x)
        np.testing.assert_allclose(host(h.data), curvature, rtol=rtol)


@pytest.mark.parametrize("name, args", [("expit", ()), ("logit", (0.05,)), ("erf", ()), ("exp2", ()), ("expm1", ()),
                                        ("log1p", ()), ("sinc", ()), ("softmax", (1,)), ("log_softmax", (0,)),
                                        ("logsumexp", (1,))])
def test_special_namespace_is_torch_specials(name, args):
    assert name in ag.special.__all__ and hasattr(torch.special, name)
    data = [[0.1, 0.5, 0.7], [0.2, 0.9, 0.3]]
    _values_and_gradients(lambda M, a: getattr(M.special, name)(a, *args), data)
    _same(ag.special.xlogy(ag.tensor([0.0, 2.0]), ag.tensor([0.0, 3.0])),
          torch.special.xlogy(torch.tensor([0.0, 2.0]), torch.tensor([0.0, 3.0])))
    _same(ag.special.round(ag.tensor([0.5, 1.5, -2.5])), torch.special.round(torch.tensor([0.5, 1.5, -2.5])))
    assert set(ag.special.__all__) <= set(dir(torch.special))
