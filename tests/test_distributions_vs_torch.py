"""``autogradlab.distributions`` side by side with ``torch.distributions`` 2.13: log_prob, entropy, cdf, KL
divergences, means and variances with their gradients (a VAE's KL term, a policy gradient through log_prob),
sample shapes and dtypes, sample statistics, and the parameter and support checks."""
import math

import numpy as np
import pytest
from conftest import host, import_torch
from torch_compare import both_raise, close

import autogradlab as ag

torch = import_torch()
LOC, SCALE = np.array([0.5, -1.0, 2.0]), np.array([1.5, 0.3, 0.8])
LOGITS = np.array([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]])
PROBS = np.array([0.2, 0.9, 0.5])


def _run(build):
    """``build(T, D, params)`` -> a list of tensors; the params' gradients of their sum are appended."""
    results = []
    for T in (ag, torch):
        params = [T.tensor(LOC, requires_grad=True), T.tensor(SCALE, requires_grad=True),
                  T.tensor(LOGITS, requires_grad=True), T.tensor(PROBS, requires_grad=True)]
        outs = build(T, T.distributions, params)
        sum(o.sum() for o in outs).backward()
        results.append(outs + [p.grad if p.grad is not None else T.zeros(p.shape, dtype=p.dtype) for p in params])
    return results


CASES = {
    "normal": lambda T, D, p: [D.Normal(p[0], p[1]).log_prob(T.tensor([0.2, 0.1, 2.5])),
                               D.Normal(p[0], p[1]).entropy(), D.Normal(p[0], p[1]).cdf(T.tensor([0.0, -1.0, 3.0])),
                               D.Normal(p[0], p[1]).mean, D.Normal(p[0], p[1]).stddev, D.Normal(p[0], p[1]).variance],
    "normal-number-parameters": lambda T, D, p: [D.Normal(0.0, 2.0).log_prob(p[0]), D.Normal(p[0], 1.0).entropy()],
    "vae-kl": lambda T, D, p: [D.kl_divergence(D.Normal(p[0], p[1]), D.Normal(T.zeros(3, dtype=T.float64),
                                                                               T.ones(3, dtype=T.float64)))],
    "uniform": lambda T, D, p: [D.Uniform(p[0] - p[1], p[0] + p[1]).log_prob(p[0].detach()),
                                D.Uniform(p[0] - p[1], p[0] + p[1]).entropy(),
                                D.Uniform(p[0] - p[1], p[0] + p[1]).mean, D.Uniform(p[0] - p[1], p[0] + p[1]).variance],
    "bernoulli-probs": lambda T, D, p: [D.Bernoulli(probs=p[3]).log_prob(T.tensor([1.0, 0.0, 1.0], dtype=T.float64)),
                                        D.Bernoulli(probs=p[3]).entropy(), D.Bernoulli(probs=p[3]).logits],
    "bernoulli-logits": lambda T, D, p: [D.Bernoulli(logits=p[0]).log_prob(T.tensor([1.0, 0.0, 1.0], dtype=T.float64)),
                                         D.Bernoulli(logits=p[0]).entropy(), D.Bernoulli(logits=p[0]).probs],
    "categorical-logits": lambda T, D, p: [D.Categorical(logits=p[2]).log_prob(T.tensor([2, 0])),
                                           D.Categorical(logits=p[2]).entropy(), D.Categorical(logits=p[2]).probs,
                                           D.Categorical(logits=p[2]).logits],
    "categorical-probs": lambda T, D, p: [D.Categorical(probs=p[2].exp()).log_prob(T.tensor([[1, 2], [0, 0]])),
                                          D.Categorical(probs=p[2].exp()).entropy()],
    "kl-categorical": lambda T, D, p: [D.kl_divergence(D.Categorical(logits=p[2]), D.Categorical(logits=p[2] ** 2))],
    "kl-bernoulli": lambda T, D, p: [D.kl_divergence(D.Bernoulli(probs=p[3]), D.Bernoulli(logits=p[0]))],
    "exponential": lambda T, D, p: [D.Exponential(p[1]).log_prob(T.tensor([0.2, 0.0, 2.5], dtype=T.float64)),
                                    D.Exponential(p[1]).entropy(), D.Exponential(p[1]).mean,
                                    D.Exponential(p[1]).variance, D.Exponential(p[1]).stddev,
                                    D.Exponential(p[1]).cdf(T.tensor([0.5, 1.0, 3.0], dtype=T.float64)),
                                    D.Exponential(p[1]).icdf(p[3]), D.Exponential(p[1]).mode],
    "laplace": lambda T, D, p: [D.Laplace(p[0], p[1]).log_prob(T.tensor([0.2, 0.1, 2.5], dtype=T.float64)),
                                D.Laplace(p[0], p[1]).entropy(), D.Laplace(p[0], p[1]).mean,
                                D.Laplace(p[0], p[1]).variance, D.Laplace(p[0], p[1]).stddev,
                                D.Laplace(p[0], p[1]).cdf(T.tensor([0.0, -1.5, 3.0], dtype=T.float64)),
                                D.Laplace(p[0], p[1]).icdf(p[3])],
    "mvn-scale-tril": lambda T, D, p: _mvn_stats(T, D.MultivariateNormal(p[0], scale_tril=_tril(T, p))),
    "mvn-covariance": lambda T, D, p: _mvn_stats(T, D.MultivariateNormal(
        p[0], covariance_matrix=_tril(T, p) @ _tril(T, p).mT + T.eye(3, dtype=T.float64))),
    "mvn-precision": lambda T, D, p: _mvn_stats(T, D.MultivariateNormal(
        p[0], precision_matrix=_tril(T, p) @ _tril(T, p).mT + T.eye(3, dtype=T.float64))),
    "mvn-batched-loc": lambda T, D, p: _mvn_stats(T, D.MultivariateNormal(
        T.stack([p[0], p[0] * p[3]]), scale_tril=_tril(T, p))),
    "independent-normal": lambda T, D, p: [
        D.Independent(D.Normal(p[2], p[1].exp()), 1).log_prob(T.tensor(LOGITS[::-1].copy())),
        D.Independent(D.Normal(p[2], p[1].exp()), 2).log_prob(T.tensor(LOGITS * 0.5)),
        D.Independent(D.Normal(p[2], p[1].exp()), 1).entropy(), D.Independent(D.Normal(p[0], p[1]), 1).mean,
        D.Independent(D.Normal(p[0], p[1]), 1).variance],
    "kl-exponential": lambda T, D, p: [D.kl_divergence(D.Exponential(p[1]), D.Exponential(p[3]))],
    "kl-laplace": lambda T, D, p: [D.kl_divergence(D.Laplace(p[0], p[1]), D.Laplace(p[0] * p[3], p[3]))],
    "kl-mvn": lambda T, D, p: [D.kl_divergence(
        D.MultivariateNormal(p[0], scale_tril=_tril(T, p)),
        D.MultivariateNormal(p[0] * p[3], covariance_matrix=_tril(T, p).mT @ _tril(T, p) + T.eye(3, dtype=T.float64)))],
    "kl-mvn-batched": lambda T, D, p: [D.kl_divergence(
        D.MultivariateNormal(T.stack([p[0], p[0] ** 2]), scale_tril=_tril(T, p)),
        D.MultivariateNormal(T.zeros(3, dtype=T.float64), scale_tril=T.diag_embed(p[3])))],
    "kl-independent-vae": lambda T, D, p: [D.kl_divergence(
        D.Independent(D.Normal(p[2], p[1].exp()), 1),
        D.Independent(D.Normal(T.zeros(2, 3, dtype=T.float64), T.ones(2, 3, dtype=T.float64)), 1))],
}


def _tril(T, p):
    """A lower-triangular matrix with a positive diagonal, from the parameters (so gradients reach them)."""
    return T.diag_embed(p[1]) + T.outer(p[0], p[3]).tril(-1)


def _mvn_stats(T, d):
    x = T.tensor([[0.2, 0.1, 2.5], [-1.0, 0.5, 0.0]], dtype=T.float64)
    return [d.log_prob(x[:, None] if len(d.batch_shape) else x), d.entropy(), d.mean, d.variance, d.scale_tril,
            d.covariance_matrix, d.precision_matrix, d.mode]


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_match_torch(name):
    ours, theirs = _run(CASES[name])
    for a, b in zip(ours, theirs):
        close(a, b, rtol=1e-10, atol=1e-12)


def test_a_policy_gradient_through_log_prob_matches_torch():
    """REINFORCE: -(log_prob(action) * advantage).mean() over a batch of fixed actions."""
    grads = []
    for T in (ag, torch):
        w = T.tensor(np.cos(np.arange(12.0)).reshape(4, 3), requires_grad=True)
        states = T.tensor(np.sin(np.arange(20.0)).reshape(5, 4))
        dist = T.distributions.Categorical(logits=states @ w)
        actions, advantage = T.tensor([0, 2, 1, 1, 0]), T.tensor([1.0, -0.5, 2.0, 0.1, -1.0], dtype=T.float64)
        (-(dist.log_prob(actions) * advantage).mean() - 0.01 * dist.entropy().mean()).backward()
        grads.append(w.grad)
    close(*grads, rtol=1e-10)


def test_samples_have_torchs_shapes_and_dtypes_and_the_right_statistics():
    ag.manual_seed(0)
    for T in (ag, torch):
        D = T.distributions
        n = D.Normal(T.tensor(LOC), T.tensor(SCALE))
        assert tuple(n.sample().shape) == (3,) and tuple(n.sample((4, 2)).shape) == (4, 2, 3)
        assert not n.sample().requires_grad
        c = D.Categorical(logits=T.tensor(LOGITS))
        draw = c.sample((7,))
        assert tuple(draw.shape) == (7, 2) and str(draw.dtype).endswith("int64")
        b = D.Bernoulli(probs=T.tensor(PROBS))
        assert tuple(b.sample((5,)).shape) == (5, 3) and str(b.sample().dtype).endswith("float64")
        assert tuple(D.Uniform(0.0, 1.0).sample((2,)).shape) == (2,)
    loc = ag.tensor(LOC, requires_grad=True)
    z = ag.distributions.Normal(loc, ag.tensor(SCALE)).rsample((20000,))
    assert z.requires_grad
    np.testing.assert_allclose(host(z.detach().data).mean(0), LOC, atol=4 * SCALE.max() / math.sqrt(20000))
    np.testing.assert_allclose(host(z.detach().data).std(0), SCALE, rtol=0.03)
    counts = np.bincount(host(ag.distributions.Categorical(probs=ag.tensor([0.1, 0.6, 0.3])).sample((20000,)).data),
                         minlength=3) / 20000
    np.testing.assert_allclose(counts, [0.1, 0.6, 0.3], atol=0.015)
    assert abs(float(ag.distributions.Bernoulli(probs=0.25).sample((20000,)).mean()) - 0.25) < 0.015


def test_new_distributions_sample_with_torchs_shapes_and_the_right_statistics():
    for T in (ag, torch):
        D = T.distributions
        mvn = D.MultivariateNormal(T.zeros(2, 3, dtype=T.float64), scale_tril=T.eye(3, dtype=T.float64))
        assert tuple(mvn.sample((4,)).shape) == (4, 2, 3) and (mvn.batch_shape, mvn.event_shape) == ((2,), (3,))
        ind = D.Independent(D.Normal(T.zeros(2, 3), T.ones(2, 3)), 1)
        assert (tuple(ind.batch_shape), tuple(ind.event_shape), tuple(ind.sample((5,)).shape)) == ((2,), (3,),
                                                                                                   (5, 2, 3))
        assert tuple(D.Exponential(T.ones(3)).sample((2,)).shape) == tuple(D.Laplace(0.0, 1.0).sample((2, 3)).shape[
            :1]) + (3,)
    ag.manual_seed(1)
    cov = np.array([[2.0, 0.6, 0.0], [0.6, 1.0, -0.3], [0.0, -0.3, 0.5]])
    loc = ag.tensor(LOC, requires_grad=True)
    z = ag.distributions.MultivariateNormal(loc, covariance_matrix=ag.tensor(cov)).rsample((40000,))
    z.sum().backward()                                   # (d sum / d loc = number of draws, for each component)
    np.testing.assert_allclose(host(loc.grad.data), [40000.0] * 3)
    np.testing.assert_allclose(np.cov(host(z.detach().data).T), cov, atol=0.05)
    rate = ag.tensor([0.5, 2.0], requires_grad=True)
    e = ag.distributions.Exponential(rate).rsample((40000,))
    np.testing.assert_allclose(host(e.detach().data).mean(0), [2.0, 0.5], rtol=0.03)
    assert (host(e.detach().data) >= 0).all()
    e.mean(0).sum().backward()        # (d E[x] / d rate = -1 / rate^2, through the reparameterised draw)
    np.testing.assert_allclose(host(rate.grad.data), [-4.0, -0.25], rtol=0.03)
    lap = host(ag.distributions.Laplace(1.0, 2.0).rsample((40000,)).data)
    assert abs(np.median(lap) - 1.0) < 0.05 and abs(np.abs(lap - 1.0).mean() - 2.0) < 0.05


@pytest.mark.parametrize("call", [
    lambda T: T.distributions.Exponential(T.tensor([1.0, -1.0])),
    lambda T: T.distributions.Exponential(T.tensor([1.0])).log_prob(T.tensor([-0.5])),
    lambda T: T.distributions.Exponential(T.tensor([1.0])).cdf(T.tensor([-1.0])),
    lambda T: T.distributions.Laplace(0.0, 0.0),
    lambda T: T.distributions.MultivariateNormal(T.zeros(2), T.eye(2), scale_tril=T.eye(2)),
    lambda T: T.distributions.MultivariateNormal(T.zeros(2)),
    lambda T: T.distributions.MultivariateNormal(T.tensor(0.0), T.eye(1)),
    lambda T: T.distributions.MultivariateNormal(T.zeros(2), covariance_matrix=T.tensor([[1.0, 2.0], [2.0, 1.0]])),
    lambda T: T.distributions.MultivariateNormal(T.zeros(2), covariance_matrix=T.tensor([[1.0, 0.5], [0.0, 1.0]])),
    lambda T: T.distributions.MultivariateNormal(T.zeros(2), scale_tril=T.tensor([[1.0, 0.5], [0.0, 1.0]])),
    lambda T: T.distributions.MultivariateNormal(T.zeros(2), scale_tril=T.tensor([[1.0, 0.0], [0.5, -1.0]])),
    lambda T: T.distributions.MultivariateNormal(T.zeros(2), scale_tril=T.ones(2)),
    lambda T: T.distributions.Independent(T.distributions.Normal(T.zeros(3), T.ones(3)), 2),
    lambda T: T.distributions.kl_divergence(
        T.distributions.MultivariateNormal(T.zeros(2), T.eye(2)), T.distributions.MultivariateNormal(T.zeros(3),
                                                                                                       T.eye(3))),
], ids=["exponential-negative-rate", "exponential-negative-value", "exponential-cdf-negative-value", "laplace-zero-scale", "mvn-two-matrices",
        "mvn-no-matrix", "mvn-scalar-loc", "mvn-not-positive-definite", "mvn-not-symmetric", "mvn-tril-not-lower",
        "mvn-tril-negative-diagonal", "mvn-tril-a-vector", "independent-too-many-dims", "kl-mvn-different-sizes"])
def test_new_distributions_check_as_torch(call):
    both_raise(lambda: call(ag), lambda: call(torch))


@pytest.mark.parametrize("call", [
    lambda T: T.distributions.Normal(0.0, -1.0),
    lambda T: T.distributions.Normal(T.tensor([0.0, 1.0]), T.tensor([1.0, 0.0])),
    lambda T: T.distributions.Bernoulli(probs=T.tensor([0.5, 1.5])),
    lambda T: T.distributions.Bernoulli(probs=T.tensor([0.5]), logits=T.tensor([0.0])),
    lambda T: T.distributions.Categorical(probs=T.tensor([0.5, -0.1, 0.6])),
    lambda T: T.distributions.Uniform(2.0, 1.0),
    lambda T: T.distributions.Uniform(0.0, 2.0).log_prob(T.tensor([0.5, 3.0])),
    lambda T: T.distributions.Categorical(logits=T.zeros(3)).log_prob(T.tensor(3)),
    lambda T: T.distributions.Bernoulli(probs=T.tensor([0.5])).log_prob(T.tensor([0.5])),
], ids=["negative-scale", "zero-scale", "probs-above-1", "probs-and-logits", "negative-probs", "low-above-high",
        "outside-uniform", "category-out-of-range", "bernoulli-not-0-or-1"])
def test_parameters_and_values_are_checked_as_torch(call):
    both_raise(lambda: call(ag), lambda: call(torch))


def test_checks_can_be_turned_off_as_torch():
    for T in (ag, torch):
        assert float(T.distributions.Uniform(0.0, 2.0, validate_args=False).log_prob(T.tensor(3.0))) == -math.inf


def test_an_infinite_loc_is_real_as_in_torch_and_nan_is_not():
    for T in (ag, torch):
        D = T.distributions
        for make in (lambda v: D.Normal(v, 1.0), lambda v: D.Laplace(v, 1.0),
                     lambda v: D.MultivariateNormal(T.tensor([v, 0.0]), T.eye(2))):
            make(float("inf"))
            with pytest.raises(ValueError, match="Real"):
                make(float("nan"))
