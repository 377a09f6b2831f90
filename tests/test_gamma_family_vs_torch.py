"""``Gamma``, ``Chi2``, ``Beta``, ``Dirichlet`` and ``Poisson`` side by side with ``torch.distributions`` 2.13:
log_prob, entropy, means, modes, variances and KL divergences with their gradients, the parameter and support
checks; and ``rsample``: its draws' statistics, and its implicit gradient dx/d(alpha) against an independent
reference (finite differences of the Gamma CDF's series) and against torch's own approximation."""
from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import gamma_cdf, host, import_torch
from torch_compare import both_raise

import autogradlab as ag
from autogradlab.ops.special_functions import _gamma_sample_slope

torch = import_torch()

A = np.array([[0.5, 2.0, 3.0], [1.5, 0.7, 4.0]])
B = np.array([[1.0, 0.5, 2.0], [3.0, 1.0, 0.2]])
X = np.array([[0.3, 1.0, 2.0], [4.0, 0.1, 9.0]])
SIMPLEX = np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])


def _run(build):
    """``build(T, D, a, b)`` -> tensors, for both libraries; the gradients of their sum for ``a`` and ``b``
    are appended. Returns (ours, torch's)."""
    results = []
    for T in (ag, torch):
        a, b = T.tensor(A, requires_grad=True), T.tensor(B, requires_grad=True)
        outs = build(T, T.distributions, a, b)
        sum(o.sum() for o in outs).backward()
        results.append(outs + [p.grad if p.grad is not None else T.zeros(p.shape, dtype=p.dtype) for p in (a, b)])
    return results


CASES = {
    "gamma": lambda T, D, a, b: [D.Gamma(a, b).log_prob(T.tensor(X)), D.Gamma(a, b).entropy(), D.Gamma(a, b).mean,
                                 D.Gamma(a, b).mode, D.Gamma(a, b).variance, D.Gamma(a, b).stddev],
    "gamma-cdf": lambda T, D, a, b: [D.Gamma(a.detach(), b).cdf(T.tensor(X)), D.Chi2(a.detach()).cdf(T.tensor(X))],
    "gamma-number-rate": lambda T, D, a, b: [D.Gamma(a, 2.0).log_prob(T.tensor(X)), D.Gamma(3.0, b).entropy()],
    "gamma-at-zero": lambda T, D, a, b: [D.Gamma(a + 0.5, b).log_prob(T.zeros(2, 3, dtype=T.float64))],
    "chi2": lambda T, D, a, b: [D.Chi2(a * 2).log_prob(T.tensor(X)), D.Chi2(a).entropy(), D.Chi2(a).mean,
                                D.Chi2(a).variance, D.Chi2(a).df],
    "dirichlet": lambda T, D, a, b: [D.Dirichlet(a).log_prob(T.tensor(SIMPLEX)), D.Dirichlet(a).entropy(),
                                     D.Dirichlet(a).mean, D.Dirichlet(a).variance, D.Dirichlet(a + 1).mode],
    "dirichlet-corner-modes": lambda T, D, a, b: [D.Dirichlet(a * 0.1).mode, D.Dirichlet(a).mode],
    "beta": lambda T, D, a, b: [D.Beta(a, b).log_prob(T.tensor(X / 10)), D.Beta(a, b).entropy(), D.Beta(a, b).mean,
                                D.Beta(a, b).variance, D.Beta(a, b).mode, D.Beta(a, b).concentration1,
                                D.Beta(a, b).concentration0],
    "poisson": lambda T, D, a, b: [D.Poisson(a).log_prob(T.tensor([[0.0, 1.0, 3.0], [7.0, 0.0, 2.0]])),
                                   D.Poisson(b).mean, D.Poisson(b).variance, D.Poisson(a).mode],
    "kl-gamma": lambda T, D, a, b: [D.kl_divergence(D.Gamma(a, b), D.Gamma(b, a))],
    "kl-chi2": lambda T, D, a, b: [D.kl_divergence(D.Chi2(a), D.Chi2(b))],
    "kl-beta": lambda T, D, a, b: [D.kl_divergence(D.Beta(a, b), D.Beta(b + 1, a))],
    "kl-dirichlet": lambda T, D, a, b: [D.kl_divergence(D.Dirichlet(a), D.Dirichlet(b))],
    "kl-poisson": lambda T, D, a, b: [D.kl_divergence(D.Poisson(a), D.Poisson(b))],
}


# (a Dirichlet's or Beta's mode where every concentration is below 1 is a corner put in place of 0/0, and the
# gradient through that 0/0 is NaN, in both libraries: NumPy warns of it)
@pytest.mark.filterwarnings("ignore:invalid value encountered in divide:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:divide by zero encountered in divide:RuntimeWarning")
@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_match_torch(name):
    ours, theirs = _run(CASES[name])
    assert len(ours) == len(theirs)
    for i, (o, t) in enumerate(zip(ours, theirs)):
        assert tuple(o.shape) == tuple(t.shape)
        assert o.dtype.name == str(t.dtype).removeprefix("torch.")
        gradient = i >= len(ours) - 2   # (1e-8: an entropy's gradient holds trigamma, torch's good to 5e-10)
        np.testing.assert_allclose(host(o.detach().data), t.detach().numpy(), rtol=1e-8 if gradient else 1e-12,
                                   atol=1e-9 if gradient else 1e-14)


def test_float32_parameters_give_float32_results_as_torch():
    for T in (ag, torch):
        g = T.distributions.Gamma(T.tensor([2.0, 0.5]), 1.5)
        assert str(g.log_prob(T.tensor([1.0, 0.2])).dtype).endswith("float32")
        assert str(g.rsample((3,)).dtype).endswith("float32")
        d = T.distributions.Dirichlet(T.tensor([2.0, 0.5, 1.0]))
        assert str(d.rsample().dtype).endswith("float32")


# -- the checks -------------------------------------------------------------------------------------

CHECKS = [
    lambda T: T.distributions.Gamma(T.tensor([1.0, -1.0]), 1.0),
    lambda T: T.distributions.Gamma(1.0, T.tensor([0.0])),
    lambda T: T.distributions.Gamma(2.0, 1.0).log_prob(T.tensor([-0.5])),
    lambda T: T.distributions.Chi2(T.tensor([-3.0])),
    lambda T: T.distributions.Gamma(2.0, 1.0).cdf(T.tensor([-1.0])),
    lambda T: T.distributions.Dirichlet(T.tensor([1.0, 0.0])),
    lambda T: T.distributions.Dirichlet(T.tensor(2.0)),
    lambda T: T.distributions.Dirichlet(T.tensor([1.0, 2.0])).log_prob(T.tensor([0.5, 0.6])),
    lambda T: T.distributions.Dirichlet(T.tensor([1.0, 2.0])).log_prob(T.tensor([-0.5, 1.5])),
    lambda T: T.distributions.Beta(T.tensor([1.0]), T.tensor([-2.0])),
    lambda T: T.distributions.Beta(2.0, 3.0).log_prob(T.tensor([1.5])),
    lambda T: T.distributions.Poisson(T.tensor([-1.0])),
    lambda T: T.distributions.Poisson(T.tensor([2.0])).log_prob(T.tensor([1.5])),
    lambda T: T.distributions.Poisson(T.tensor([2.0])).log_prob(T.tensor([-1.0])),
    lambda T: T.distributions.Poisson(T.tensor([2.0])).rsample(),
    lambda T: T.distributions.Poisson(T.tensor([2.0])).entropy(),
]


@pytest.mark.parametrize("call", CHECKS, ids=range(len(CHECKS)))
def test_parameters_and_values_are_checked_as_torch(call):
    both_raise(lambda: call(ag), lambda: call(torch))


def test_checks_can_be_turned_off_as_torch():
    for T in (ag, torch):
        g = T.distributions.Gamma(T.tensor([2.0]), 1.0, validate_args=False)
        assert math.isnan(g.log_prob(T.tensor([-0.5])).item()) or g.log_prob(T.tensor([-0.5])).item() < 0
        T.distributions.Poisson(T.tensor([2.0]), validate_args=False).log_prob(T.tensor([1.5]))


# -- rsample and its implicit gradient ------------------------------------------------------------

def _slope_by_differences(a, x, h=1e-5):
    """-(dP/da) / (dP/dx), dP/da by a central difference of the series, dP/dx the density."""
    dp_da = (gamma_cdf(a + h, x) - gamma_cdf(a - h, x)) / (2 * h)
    density = math.exp((a - 1) * math.log(x) - x - math.lgamma(a))
    return -dp_da / density


@pytest.mark.parametrize("alpha", [0.05, 0.5, 1.0, 3.0, 20.0, 150.0])
def test_the_implicit_gradient_of_a_gamma_draw_against_differences_of_its_cdf_and_torchs(alpha):
    rng = np.random.default_rng(int(alpha * 100))
    x = np.maximum(rng.gamma(alpha, size=12), np.finfo(np.float64).tiny)
    x = x[x > 1e-30]   # (the series' differences need a representable x^a)
    ours = _gamma_sample_slope(np, np.full_like(x, alpha), x)
    reference = np.array([_slope_by_differences(alpha, v, h=1e-5 * alpha) for v in x])
    np.testing.assert_allclose(ours, reference, rtol=1e-6)
    theirs = torch._standard_gamma_grad(torch.tensor(np.full_like(x, alpha)), torch.tensor(x)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=5e-3)   # (torch's: a fitted approximation)


def test_gamma_rsample_gradient_flows_to_both_parameters_and_has_the_right_expectation():
    """E[x] = a / rate, so the mean over many draws of dx/da is about 1/rate and of dx/d rate about -a/rate^2."""
    ag.manual_seed(3)
    a = ag.tensor([0.7, 2.5], dtype=ag.float64, requires_grad=True)
    rate = ag.tensor([2.0, 0.5], dtype=ag.float64, requires_grad=True)
    n = 20_000
    draws = ag.distributions.Gamma(a, rate).rsample((n,))
    assert tuple(draws.shape) == (n, 2) and draws.requires_grad
    (draws.sum(0) / n).sum().backward()
    np.testing.assert_allclose(host(a.grad.data), [1 / 2.0, 1 / 0.5], rtol=0.03)
    np.testing.assert_allclose(host(rate.grad.data), [-0.7 / 4.0, -2.5 / 0.25], rtol=0.03)
    np.testing.assert_allclose(host(draws.detach().mean(0).data), [0.35, 5.0], rtol=0.03)


def test_dirichlet_and_beta_rsample_lie_on_the_simplex_with_the_right_mean_and_its_gradient():
    ag.manual_seed(4)
    c = ag.tensor([0.5, 2.0, 1.5], dtype=ag.float64, requires_grad=True)
    n = 20_000
    draws = ag.distributions.Dirichlet(c).rsample((n,))
    np.testing.assert_allclose(host(draws.detach().sum(-1).data), np.ones(n), rtol=1e-12)
    assert (host(draws.detach().data) >= 0).all()
    mean0 = draws[:, 0].mean()   # E[x_0] = c_0 / sum c: d/dc = (sum c - c_0, -c_0, -c_0) / (sum c)^2
    mean0.backward()
    total = 4.0
    np.testing.assert_allclose(mean0.item(), 0.5 / total, rtol=0.03)
    np.testing.assert_allclose(host(c.grad.data), np.array([total - 0.5, -0.5, -0.5]) / total ** 2, rtol=0.06)
    a = ag.tensor(2.0, dtype=ag.float64, requires_grad=True)
    beta = ag.distributions.Beta(a, 3.0).rsample((n,))
    assert ((host(beta.detach().data) >= 0) & (host(beta.detach().data) <= 1)).all()
    beta.mean().backward()   # E[x] = a / (a + b): d/da = b / (a + b)^2 = 0.12
    np.testing.assert_allclose(a.grad.item(), 0.12, rtol=0.06)


def test_sample_is_a_constant_and_poisson_samples_are_counts():
    ag.manual_seed(5)
    g = ag.distributions.Gamma(ag.tensor([2.0], requires_grad=True), 1.0)
    assert g.sample((4,)).requires_grad is False
    counts = host(ag.distributions.Poisson(ag.tensor([3.0, 0.5])).sample((10_000,)).data)
    assert counts.dtype == np.float32 and (counts == np.floor(counts)).all() and (counts >= 0).all()
    np.testing.assert_allclose(counts.mean(0), [3.0, 0.5], rtol=0.05)


def test_a_second_derivative_through_a_gamma_draw_is_refused_with_a_reason():
    a = ag.tensor([2.0], dtype=ag.float64, requires_grad=True)
    x = ag.distributions.Gamma(a, 1.0).rsample()
    with pytest.raises(NotImplementedError, match="second derivative of a Gamma draw"):
        ag.autograd.grad(x.sum(), a, create_graph=True)
