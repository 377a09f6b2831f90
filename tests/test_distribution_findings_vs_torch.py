"""What a round of differential fuzzing of ``distributions`` against torch 2.13 found wrong, each fixed and
checked side by side: a precision matrix turned into a Cholesky factor without an inverse (an ill-conditioned
one lost ten nats), Beta and Dirichlet samples kept below 1 (a share of exactly 1 had log_prob inf),
GeneralizedPareto with concentration 0 at the ends of its support, and four checks of ``validate_args``."""
import numpy as np
import pytest
from conftest import import_torch
from torch_compare import both_raise, same_results

import autogradlab as ag

torch = import_torch()

HILBERT = np.array([[1.0 / (i + j + 1) for j in range(10)] for i in range(10)])   # (condition number ~1.6e13)


def test_an_ill_conditioned_precision_matrix_keeps_its_digits_as_torch():
    """``cholesky(inv(P))`` lost about 10 nats of log_prob for the 10x10 Hilbert matrix; torch factors the
    flipped P instead, accurate to about 1e-6 here. The given matrix is returned as given."""
    x = np.random.default_rng(0).normal(size=10)

    def run(T):
        P = T.tensor(HILBERT, dtype=T.float64)
        normal = T.distributions.MultivariateNormal(T.zeros(10, dtype=T.float64), precision_matrix=P)
        wishart = T.distributions.Wishart(T.tensor(12.0, dtype=T.float64), precision_matrix=P)
        value = T.tensor(np.eye(10) * 3 + 0.1, dtype=T.float64)
        return (normal.log_prob(T.tensor(x, dtype=T.float64)), normal.entropy(), normal.precision_matrix,
                wishart.log_prob(value), wishart.precision_matrix)
    same_results(run, rtol=1e-7)


def test_precision_and_covariance_and_their_gradients_as_torch():
    P = np.array([[2.0, 0.5, 0.1], [0.5, 1.5, 0.2], [0.1, 0.2, 1.0]])

    def run(T):
        p = T.tensor(P, dtype=T.float64, requires_grad=True)
        loc = T.tensor([0.1, 0.2, 0.3], dtype=T.float64, requires_grad=True)
        d = T.distributions.MultivariateNormal(loc, precision_matrix=p)
        d.log_prob(T.tensor([0.3, -1.0, 2.0], dtype=T.float64)).backward()
        c = T.tensor(P, dtype=T.float64)
        batched = T.distributions.MultivariateNormal(T.zeros(2, 3, dtype=T.float64), precision_matrix=c)
        return (p.grad, loc.grad, d.covariance_matrix, d.scale_tril,
                T.distributions.MultivariateNormal(loc, covariance_matrix=c).precision_matrix,
                batched.precision_matrix, batched.covariance_matrix)
    same_results(run, rtol=1e-10)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_beta_and_dirichlet_samples_stay_below_one(dtype):
    """With concentrations of 0.01 a third of the draws were exactly 1.0 (log_prob inf); torch clamps each
    share to [tiny, the largest number below 1]. The gradient of rsample is unchanged by the clamp."""
    ag.manual_seed(0)
    dt = getattr(ag, dtype)
    beta = ag.distributions.Beta(ag.tensor(0.01, dtype=dt), ag.tensor(0.01, dtype=dt))
    s = beta.sample((2000,))
    assert 0 < s.min().item() and s.max().item() < 1 and np.isfinite(beta.log_prob(s).numpy()).all()
    dirichlet = ag.distributions.Dirichlet(ag.tensor([0.05] * 3, dtype=dt))
    s = dirichlet.sample((1000,))
    assert s.max().item() < 1 and np.isfinite(dirichlet.log_prob(s).numpy()).all()
    weights = ag.tensor([1.0, 2.0, 3.0], dtype=ag.float64)
    grads = []
    for share in (lambda c: ag.distributions.Dirichlet(c).rsample(),
                  lambda c: (lambda g: g / g.sum())(ag.distributions.Gamma(c, ag.ones(3, dtype=ag.float64))
                                                    .rsample())):   # (the same draws, normalized unclamped)
        c = ag.tensor([0.5, 2.0, 3.0], dtype=ag.float64, requires_grad=True)
        ag.manual_seed(1)
        (share(c) * weights).sum().backward()
        grads.append(c.grad.tolist())
    assert grads[0] == grads[1] and all(g != 0 for g in grads[0])


def test_generalized_pareto_with_zero_concentration_at_the_ends_as_torch():
    """c = 0 is the Exponential: cdf(inf) = 1, icdf(1) = inf, log_prob(inf) = -inf (all NaN before)."""
    def run(T):
        d = T.distributions.GeneralizedPareto(T.tensor(0.0), T.tensor(1.0), T.tensor(0.0))
        v = T.tensor([0.0, 0.5, 3.0, float("inf")])
        return d.cdf(v), d.icdf(T.tensor([0.0, 0.3, 0.99, 1.0])), d.log_prob(v)
    same_results(run, rtol=1e-6)


REFUSED = {
    "Multinomial with total_count -1": lambda T: T.distributions.Multinomial(
        -1, probs=T.tensor([0.5, 0.5]), validate_args=True).mean,
    "VonMises log_prob of NaN": lambda T: T.distributions.VonMises(
        T.tensor(0.0), T.tensor(1.0), validate_args=True).log_prob(T.tensor(float("nan"))),
    "NegativeBinomial log_prob of inf": lambda T: T.distributions.NegativeBinomial(
        T.tensor(5.0), probs=T.tensor(0.3), validate_args=True).log_prob(T.tensor(float("inf"))),
    "a transformed cdf outside the base's support": lambda T: T.distributions.TransformedDistribution(
        T.distributions.Normal(T.tensor(0.0), T.tensor(1.0)),
        [T.distributions.transforms.ExpTransform(), T.distributions.transforms.AffineTransform(T.tensor(1.0),
                                                                                               T.tensor(3.0))],
        validate_args=True).cdf(T.tensor(0.5)),
}


@pytest.mark.parametrize("call", list(REFUSED))
def test_validate_args_refuses_what_torch_refuses(call):
    both_raise(lambda: REFUSED[call](ag), lambda: REFUSED[call](torch))


def test_validate_args_accepts_what_torch_accepts():
    """Multinomial's support is counts >= 0 within the total (whole numbers are not asked for)."""
    def run(T):
        affine = T.distributions.transforms.AffineTransform(T.tensor(1.0), T.tensor(3.0))
        transformed = T.distributions.TransformedDistribution(
            T.distributions.Normal(T.tensor(0.0), T.tensor(1.0)),
            [T.distributions.transforms.ExpTransform(), affine], validate_args=True)
        return (T.distributions.Multinomial(3, probs=T.tensor([0.5, 0.5]), validate_args=True).log_prob(
            T.tensor([0.5, 2.5])), transformed.cdf(T.tensor(2.5)))
    same_results(run, rtol=1e-6)
