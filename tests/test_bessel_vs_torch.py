"""The Bessel functions J_0, J_1, Y_0, Y_1 and the modified K_0, K_1 (and e^x K) of ``autogradlab.special``: values against
mpmath (to the last digits) and torch (whose J_0 and J_1 are off by up to 3e-7 near x = 5.5), their edge values,
dtypes, and their gradients, which PyTorch's lack, against the textbook derivatives and finite differences."""
from __future__ import annotations

import mpmath
import numpy as np
import pytest
from conftest import import_torch

import autogradlab as ag
from autogradlab.testing import gradcheck, gradgradcheck

torch = import_torch()
mpmath.mp.dps = 30

X = np.concatenate([[1e-300, 1e-10, 1e-3, 0.5, 1.0, 1.99, 2.0, 2.01, 3.0, 5.51, 10.0, 24.9, 25.0, 25.1, 30.0, 100.0,
                     700.0, 1e4, 1e6, -0.5, -7.3, -30.0], np.linspace(0.01, 60.0, 120)])
EXACT = {
    "bessel_j0": lambda x: mpmath.besselj(0, x),
    "bessel_j1": lambda x: mpmath.besselj(1, x),
    "bessel_y0": lambda x: mpmath.bessely(0, x),
    "bessel_y1": lambda x: mpmath.bessely(1, x),
    "modified_bessel_k0": lambda x: mpmath.besselk(0, x),
    "modified_bessel_k1": lambda x: mpmath.besselk(1, x),
    "scaled_modified_bessel_k0": lambda x: mpmath.exp(x) * mpmath.besselk(0, x),
    "scaled_modified_bessel_k1": lambda x: mpmath.exp(x) * mpmath.besselk(1, x),
}


@pytest.mark.parametrize("name", list(EXACT))
def test_values_against_mpmath_and_torch(name):
    x = X if name.startswith("bessel_j") else X[X > 0]
    ours = getattr(ag.special, name)(ag.tensor(x)).numpy()
    exact = np.array([float(EXACT[name](mpmath.mpf(float(v)))) for v in x])
    np.testing.assert_allclose(ours, exact, rtol=2e-13, atol=1e-15)   # (J's zeros: to 1e-15 absolutely)
    np.testing.assert_allclose(ours, getattr(torch.special, name)(torch.tensor(x)).numpy(), rtol=1e-5, atol=5e-7)


@pytest.mark.parametrize("name", list(EXACT))
def test_edges_and_dtypes_as_torch(name):
    edges = np.array([0.0, -1.0, np.inf, -np.inf, np.nan, 800.0])
    ours = getattr(ag.special, name)(ag.tensor(edges)).numpy()
    theirs = getattr(torch.special, name)(torch.tensor(edges)).numpy()
    np.testing.assert_allclose(ours[[0, 2, 3, 4]], theirs[[0, 2, 3, 4]], rtol=0, atol=0)   # (NaN where theirs is)
    if not name.startswith("bessel_j"):
        assert np.isnan(ours[1]) and np.isnan(theirs[1])
    np.testing.assert_allclose(ours[5], theirs[5], rtol=1e-12, atol=1e-300)
    for data in ([1.5, 2.5], [1, 2]):   # float32 stays float32; integers compute in the default float
        assert getattr(ag.special, name)(ag.tensor(data)).dtype.name == \
            str(getattr(torch.special, name)(torch.tensor(data)).dtype).removeprefix("torch.")


DERIVATIVE = {
    "bessel_j0": lambda x: -mpmath.besselj(1, x),
    "bessel_j1": lambda x: (mpmath.besselj(0, x) - mpmath.besselj(2, x)) / 2,
    "bessel_y0": lambda x: -mpmath.bessely(1, x),
    "bessel_y1": lambda x: (mpmath.bessely(0, x) - mpmath.bessely(2, x)) / 2,
    "modified_bessel_k0": lambda x: -mpmath.besselk(1, x),
    "modified_bessel_k1": lambda x: -(mpmath.besselk(0, x) + mpmath.besselk(2, x)) / 2,
    "scaled_modified_bessel_k0": lambda x: mpmath.exp(x) * (mpmath.besselk(0, x) - mpmath.besselk(1, x)),
    "scaled_modified_bessel_k1": lambda x: mpmath.exp(x) * (mpmath.besselk(1, x) - (mpmath.besselk(0, x)
                                                                                    + mpmath.besselk(2, x)) / 2),
}


@pytest.mark.parametrize("name", list(DERIVATIVE))
def test_gradients_are_the_textbook_derivatives(name):
    x = np.array([0.3, 1.5, 2.5, 7.0, 31.0])
    t = ag.tensor(x, requires_grad=True)
    getattr(ag.special, name)(t).sum().backward()
    exact = np.array([float(DERIVATIVE[name](mpmath.mpf(v))) for v in x])
    np.testing.assert_allclose(t.grad.numpy(), exact, rtol=1e-12, atol=1e-15)
    assert gradcheck(getattr(ag.special, name), (ag.tensor(x, requires_grad=True),))
    assert gradgradcheck(getattr(ag.special, name), (ag.tensor(x, requires_grad=True),))


def test_j1s_slope_at_zero_is_one_half():
    t = ag.tensor([0.0], dtype=ag.float64, requires_grad=True)
    ag.special.bessel_j1(t).sum().backward()
    assert t.grad.tolist() == [0.5]


def test_far_and_tiny_arguments():
    """e^x K(x) far out (the asymptotic series: no quadrature step that rounds to 0), and the smallest positive
    float for Y (log(x) - log 2, where x/2 underflows)."""
    far = np.array([1e18, 1e300])
    for name in ("scaled_modified_bessel_k0", "scaled_modified_bessel_k1"):
        exact = np.array([float(EXACT[name](mpmath.mpf(v))) for v in far])
        np.testing.assert_allclose(getattr(ag.special, name)(ag.tensor(far)).numpy(), exact, rtol=1e-14)
    tiny = ag.tensor([5e-324])
    assert np.isclose(ag.special.bessel_y0(tiny).item(), torch.special.bessel_y0(torch.tensor([5e-324])).item(),
                      rtol=1e-14)
    assert ag.special.bessel_y1(tiny).item() == -np.inf
