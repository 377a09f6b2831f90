"""``autogradlab.special``'s orthogonal polynomials against ``torch.special``'s: values for degrees given as a number
or a tensor (broadcast, truncated, negative), dtypes; and their gradients, which PyTorch's lack, against the
textbook derivatives and finite differences (first and second order)."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import import_torch

import autogradlab as ag
from autogradlab.ops.polynomials import __all__ as NAMES
from autogradlab.testing import gradcheck, gradgradcheck

torch = import_torch()
X = np.array([-2.0, -1.0, -0.7, -0.3, 0.0, 0.25, 0.5, 1.0, 1.5, 3.0])


def _close(ours, theirs):
    theirs = theirs.numpy()
    assert ours.dtype.name == theirs.dtype.name
    np.testing.assert_allclose(ours.numpy(), theirs, rtol=1e-12, atol=1e-12 * max(1.0, np.abs(theirs).max()))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("n", [-1, 0, 1, 2, 3, 6, 7, 15, 2.7])
def test_values_for_one_degree_as_torch(name, n):
    _close(getattr(ag.special, name)(ag.tensor(X), n), getattr(torch.special, name)(torch.tensor(X), n))


@pytest.mark.parametrize("name", NAMES)
def test_a_degree_per_element_broadcast_as_torch(name):
    degrees = np.array([[0], [1], [4], [9], [-2]])   # (5, 1) against x's (10,): a (5, 10) table
    ours = getattr(ag.special, name)(ag.tensor(X), ag.tensor(degrees))
    _close(ours, getattr(torch.special, name)(torch.tensor(X), torch.tensor(degrees)))


@pytest.mark.parametrize("x, n", [
    (lambda T: T.tensor([0.5, 2.0]), 3),                                   # float32 stays float32
    (lambda T: T.tensor([1, 2]), 2),                                       # integers: the default float
    (lambda T: 0.5, lambda T: T.tensor([2, 3])),                           # x a number
    (lambda T: T.tensor([0.5], dtype=T.float64), lambda T: T.tensor([2])),
    (lambda T: T.tensor(0.5, dtype=T.float64), lambda T: T.tensor([2.0, 3.0])),   # a 0-d x: n's float32
])
def test_dtypes_as_torch(x, n):
    def call(T):
        return T.special.legendre_polynomial_p(x(T), n(T) if callable(n) else n)
    ours, theirs = call(ag), call(torch)
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


DERIVATIVES = {   # d/dx p_n, the textbook identities
    "chebyshev_polynomial_t": lambda x, n: n * torch.special.chebyshev_polynomial_u(x, n - 1),
    "hermite_polynomial_h": lambda x, n: 2 * n * torch.special.hermite_polynomial_h(x, n - 1),
    "hermite_polynomial_he": lambda x, n: n * torch.special.hermite_polynomial_he(x, n - 1),
    "legendre_polynomial_p": lambda x, n: n * (x * torch.special.legendre_polynomial_p(x, n)
                                               - torch.special.legendre_polynomial_p(x, n - 1)) / (x * x - 1),
    "laguerre_polynomial_l": lambda x, n: n * (torch.special.laguerre_polynomial_l(x, n)
                                               - torch.special.laguerre_polynomial_l(x, n - 1)) / x,
    "shifted_chebyshev_polynomial_t": lambda x, n: 2 * n * torch.special.chebyshev_polynomial_u(2 * x - 1, n - 1),
}


@pytest.mark.parametrize("name", list(DERIVATIVES))
@pytest.mark.parametrize("n", [1, 4, 9])
def test_the_gradient_is_the_textbook_derivative(name, n):
    x = np.array([-0.9, -0.3, 0.2, 0.45, 0.8, 1.7])
    t = ag.tensor(x, requires_grad=True)
    getattr(ag.special, name)(t, n).sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), DERIVATIVES[name](torch.tensor(x), n).numpy(), rtol=1e-10)


@pytest.mark.parametrize("name", NAMES)
def test_first_and_second_derivatives_by_finite_differences(name):
    x = ag.tensor([-0.8, -0.2, 0.35, 0.6, 0.9], dtype=ag.float64, requires_grad=True)
    degrees = ag.tensor([0, 2, 3, 5, 1])
    f = (lambda t: getattr(ag.special, name)(t, 4)), (lambda t: getattr(ag.special, name)(t, degrees))
    for fn in f:
        assert gradcheck(fn, (x,)) and gradgradcheck(fn, (x,))


def test_bad_arguments():
    with pytest.raises(NotImplementedError, match="complex"):
        ag.special.chebyshev_polynomial_t(ag.tensor([1j]), 2)
    with pytest.raises(TypeError, match="n must be a number or a tensor"):
        ag.special.chebyshev_polynomial_t(ag.tensor([0.5]), "2")


def test_modified_bessel_names_are_i0_and_i1_as_torch():
    x = np.array([0.0, 0.3, 2.0, 10.0, -3.0])
    for ours, theirs in (("modified_bessel_i0", "modified_bessel_i0"), ("modified_bessel_i1", "modified_bessel_i1")):
        np.testing.assert_allclose(getattr(ag.special, ours)(ag.tensor(x)).numpy(),
                                   getattr(torch.special, theirs)(torch.tensor(x)).numpy(), rtol=1e-14)


def test_spherical_bessel_j0_as_torch_with_its_derivative():
    """j_0(x) = sin(x)/x: values against torch (1 at 0, 0 at +-inf), and its gradient (torch's has none) against
    j_0'(x) = (x cos x - sin x) / x^2, exact near 0 too."""
    x = np.array([0.0, 1e-9, 0.3, -2.0, 10.0, 1e3, np.inf, -np.inf, np.nan])
    np.testing.assert_allclose(ag.special.spherical_bessel_j0(ag.tensor(x)).numpy(),
                               torch.special.spherical_bessel_j0(torch.tensor(x)).numpy(), rtol=1e-14, atol=1e-300)
    assert ag.special.spherical_bessel_j0(ag.tensor([1, 2])).dtype == ag.float32
    points = np.array([1e-6, 0.5, -3.0, 20.0])
    t = ag.tensor(np.append(points, np.inf), requires_grad=True)
    ag.special.spherical_bessel_j0(t).sum().backward()
    with np.errstate(all="ignore"):   # (the formula cancels near 0: its Taylor series -x/3 + x^3/30 there)
        exact = np.where(abs(points) < 1e-3, -points / 3 + points ** 3 / 30,
                         (points * np.cos(points) - np.sin(points)) / points ** 2)
    np.testing.assert_allclose(t.grad.numpy(), np.append(exact, 0.0), rtol=1e-12, atol=1e-300)
    assert gradgradcheck(ag.special.spherical_bessel_j0, (ag.tensor(points, requires_grad=True),))


def test_degree_one_is_a_new_tensor_and_odd_degrees_as_torch():
    x = ag.tensor([0.3, 0.5])
    for name in ("chebyshev_polynomial_t", "hermite_polynomial_he", "legendre_polynomial_p"):
        y = getattr(ag.special, name)(x, 1)
        assert y is not x and y.tolist() == x.tolist()
    for n in (True, ag.tensor([float("nan"), 2.0])):
        ours = ag.special.legendre_polynomial_p(ag.tensor([0.5]), n)
        theirs = torch.special.legendre_polynomial_p(torch.tensor([0.5]), torch.tensor([float("nan"), 2.0])
                                                     if isinstance(n, ag.Tensor) else n)
        assert ours.tolist() == theirs.tolist()
    for T in (ag, torch):
        with pytest.raises(NotImplementedError):
            T.special.legendre_polynomial_p(T.tensor([0.5], dtype=T.float16), 2)


def test_spherical_bessel_j0_far_out_is_sin_x_over_x():
    x = np.array([933.0928, 965967.25, 949387717927.582, 901337038951742.0])
    np.testing.assert_allclose(ag.special.spherical_bessel_j0(ag.tensor(x)).numpy(), np.sin(x) / x, rtol=1e-15)
    np.testing.assert_allclose(ag.special.spherical_bessel_j0(ag.tensor(x[:2], dtype=ag.float32)).numpy(),
                               torch.special.spherical_bessel_j0(torch.tensor(x[:2], dtype=torch.float32)).numpy(),
                               rtol=1e-6)
