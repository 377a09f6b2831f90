"""``Cauchy``, ``Gumbel``, ``HalfNormal``, ``HalfCauchy``, ``LogNormal``, ``StudentT``, ``Geometric``, ``Binomial``
and ``OneHotCategorical`` side by side with ``torch.distributions`` 2.13: every attribute (log_prob, entropy, mean,
mode, variance, stddev, cdf, icdf) with its gradient for each parameter, probabilities at 0 and 1, the checks,
and the samples' shapes, dtypes and statistics, with ``rsample``'s gradient by its expectation."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import host, import_torch
from torch_compare import both_raise

import autogradlab as ag

torch = import_torch()

LOC, SCALE = np.array([0.5, -1.0, 2.0]), np.array([1.5, 0.3, 0.8])
X, LEVELS = np.array([0.7, 0.2, 2.5]), np.array([0.2, 0.6, 0.9])
PROBS, LOGITS = np.array([0.2, 0.5, 0.9]), np.array([0.3, -1.0, 2.0])
COUNTS = np.array([0.0, 2.0, 5.0])

BUILD = {   # name -> (distribution from (library, D, loc, scale, probs, logits), value for log_prob)
    "cauchy": (lambda T, D, l, s, p, g: D.Cauchy(l, s), X),
    "gumbel": (lambda T, D, l, s, p, g: D.Gumbel(l, s), X),
    "half-normal": (lambda T, D, l, s, p, g: D.HalfNormal(s), X),
    "half-cauchy": (lambda T, D, l, s, p, g: D.HalfCauchy(s), X),
    "log-normal": (lambda T, D, l, s, p, g: D.LogNormal(l, s), X),
    "student-t": (lambda T, D, l, s, p, g: D.StudentT(s * 3, l, s), X),
    "student-t-small-df": (lambda T, D, l, s, p, g: D.StudentT(s + 0.5, l, s), X),
    "geometric-probs": (lambda T, D, l, s, p, g: D.Geometric(p), COUNTS),
    "geometric-logits": (lambda T, D, l, s, p, g: D.Geometric(logits=g), COUNTS),
    "geometric-certain": (lambda T, D, l, s, p, g: D.Geometric(T.where(p > 0.8, 1.0, p)), np.array([0., 0., 0.])),
    "binomial-probs": (lambda T, D, l, s, p, g: D.Binomial(5, p), COUNTS),
    "binomial-logits": (lambda T, D, l, s, p, g: D.Binomial(T.tensor([5.0, 7.0, 6.0], dtype=T.float64), logits=g),
                        COUNTS),
    "binomial-edges": (lambda T, D, l, s, p, g: D.Binomial(5, p * T.tensor([0.0, 1.0, 1.0 / 0.9], dtype=T.float64)),
                       np.array([0.0, 2.0, 5.0])),
    "one-hot-categorical": (lambda T, D, l, s, p, g: D.OneHotCategorical(logits=g), np.array([0.0, 1.0, 0.0])),
    "one-hot-categorical-probs": (lambda T, D, l, s, p, g: D.OneHotCategorical(probs=p), np.array([1.0, 0.0, 0.0])),
}
ATTRIBUTES = ("log_prob", "entropy", "mean", "mode", "variance", "stddev", "cdf", "icdf")


def _outcomes(T, name):
    """Each attribute's value and its gradients for the four parameters, or the error's type."""
    build, value = BUILD[name]
    params = [T.tensor(v, requires_grad=True) for v in (LOC, SCALE, PROBS, LOGITS)]
    dist = build(T, T.distributions, *params)
    found = {}
    for attribute in ATTRIBUTES:
        try:
            if attribute in ("log_prob", "cdf"):
                out = getattr(dist, attribute)(T.tensor(value))
            elif attribute == "icdf":
                out = dist.icdf(T.tensor(LEVELS))
            elif attribute == "entropy":
                out = dist.entropy()
            else:
                out = getattr(dist, attribute)
        except (NotImplementedError, ValueError) as error:
            found[attribute] = type(error)
            continue
        grads = []
        if out.requires_grad:
            grads = T.autograd.grad(out.sum(), params, allow_unused=True, retain_graph=True)
        found[attribute] = (out, [g for g in grads])
    return found


@pytest.mark.parametrize("name", sorted(BUILD))
def test_every_attribute_and_its_gradients_match_torch(name):
    ours, theirs = _outcomes(ag, name), _outcomes(torch, name)
    for attribute in ATTRIBUTES:
        o, t = ours[attribute], theirs[attribute]
        if isinstance(t, type):
            assert o is t, (attribute, o, t)
            continue
        assert not isinstance(o, type), (attribute, o)
        (out, grads), (t_out, t_grads) = o, t
        assert tuple(out.shape) == tuple(t_out.shape), attribute
        assert out.dtype.name == str(t_out.dtype).removeprefix("torch."), attribute
        np.testing.assert_allclose(host(out.detach().data), t_out.detach().numpy(), rtol=1e-10, atol=1e-14,
                                   err_msg=attribute)
        assert len(grads) == len(t_grads), attribute   # (both differentiable, or neither)
        for g, tg in zip(grads, t_grads):
            g = np.zeros(3) if g is None else host(g.data)
            tg = np.zeros(3) if tg is None else tg.numpy()
            np.testing.assert_allclose(g, tg, rtol=1e-8, atol=1e-12, err_msg=f"{attribute} gradient")


CHECKS = [
    lambda T: T.distributions.Cauchy(0.0, T.tensor([-1.0])),
    lambda T: T.distributions.Gumbel(T.tensor([float("nan")]), 1.0),
    lambda T: T.distributions.HalfNormal(T.tensor([0.0])),
    lambda T: T.distributions.HalfNormal(T.tensor([1.0])).log_prob(T.tensor([-0.5])),
    lambda T: T.distributions.HalfCauchy(T.tensor([1.0])).log_prob(T.tensor([-0.5])),
    lambda T: T.distributions.LogNormal(0.0, T.tensor([1.0])).log_prob(T.tensor([-0.5])),
    lambda T: T.distributions.StudentT(T.tensor([-1.0])),
    lambda T: T.distributions.Geometric(T.tensor([0.0])),
    lambda T: T.distributions.Geometric(T.tensor([1.5])),
    lambda T: T.distributions.Geometric(T.tensor([0.5])).log_prob(T.tensor([1.5])),
    lambda T: T.distributions.Geometric(T.tensor([0.5]), T.tensor([0.0])),
    lambda T: T.distributions.Binomial(T.tensor([2.5]), T.tensor([0.5])),
    lambda T: T.distributions.Binomial(5, T.tensor([1.5])),
    lambda T: T.distributions.Binomial(5, T.tensor([0.5])).log_prob(T.tensor([6.0])),
    lambda T: T.distributions.Binomial(T.tensor([5.0, 3.0]), T.tensor([0.5, 0.5])).entropy(),
    lambda T: T.distributions.OneHotCategorical(T.tensor([0.5, 0.5])).log_prob(T.tensor([1.0, 1.0])),
    lambda T: T.distributions.Geometric(T.tensor([0.5])).rsample(),
]


@pytest.mark.parametrize("call", CHECKS, ids=range(len(CHECKS)))
def test_parameters_and_values_are_checked_as_torch(call):
    both_raise(lambda: call(ag), lambda: call(torch))


SAMPLED = {   # name -> (distribution from the library and its float64 parameters, the true mean and variance)
    "cauchy": (lambda D, a: D.Cauchy(a, 0.5), None),     # (median 1.5: checked apart)
    "gumbel": (lambda D, a: D.Gumbel(a, 0.5), (1.5 + 0.5 * 0.5772156649015329, (np.pi * 0.5) ** 2 / 6)),
    "half-normal": (lambda D, a: D.HalfNormal(a), (1.5 * np.sqrt(2 / np.pi), 1.5 ** 2 * (1 - 2 / np.pi))),
    "log-normal": (lambda D, a: D.LogNormal(a * 0.2, 0.3), (np.exp(0.3 + 0.045), np.expm1(0.09) * np.exp(0.69))),
    "student-t": (lambda D, a: D.StudentT(a * 4, 1.0, 2.0), (1.0, 4.0 * 6.0 / 4.0)),
    "geometric": (lambda D, a: D.Geometric(a / 5), (1 / 0.3 - 1, (1 / 0.3 - 1) / 0.3)),
    "binomial": (lambda D, a: D.Binomial(10, a / 5), (3.0, 10 * 0.3 * 0.7)),
}


@pytest.mark.parametrize("name", sorted(SAMPLED))
def test_samples_have_torchs_shapes_and_dtypes_and_the_right_statistics(name):
    build, moments = SAMPLED[name]
    ag.manual_seed(7)
    a = ag.tensor(1.5, dtype=ag.float64)
    ours = build(ag.distributions, a).sample((40_000,))
    theirs = build(torch.distributions, torch.tensor(1.5, dtype=torch.float64)).sample((40_000,))
    assert tuple(ours.shape) == tuple(theirs.shape) and ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
    assert ours.requires_grad is False
    values = host(ours.data)
    if moments is None:
        assert abs(np.median(values) - 1.5) < 0.03
        return
    mean, variance = moments
    assert abs(values.mean() - mean) < 4 * np.sqrt(variance / len(values))
    assert abs(values.var() / variance - 1) < 0.1
    ag.manual_seed(8)
    assert tuple(build(ag.distributions, ag.tensor([1.5, 1.0])).sample((3,)).shape) == (3, 2)


@pytest.mark.parametrize("name", ["gumbel", "half-normal", "log-normal", "student-t"])
def test_rsample_gradients_have_the_expectation_of_the_mean(name):
    """d E[x] / da, averaged over draws, against the derivative of the closed-form mean (central differences)."""
    build, _ = SAMPLED[name]
    ag.manual_seed(9)
    a = ag.tensor(1.5, dtype=ag.float64, requires_grad=True)
    draws = build(ag.distributions, a).rsample((40_000,))
    draws.mean().backward()

    def mean_at(v):
        return float(host(build(ag.distributions, ag.tensor(v, dtype=ag.float64)).mean.detach().data))

    expected = (mean_at(1.5 + 1e-6) - mean_at(1.5 - 1e-6)) / 2e-6
    assert a.grad.item() == pytest.approx(expected, rel=0.05, abs=0.01)   # (StudentT's mean is loc: 0 here)


def test_one_hot_categorical_samples_are_one_hot_with_the_right_frequencies():
    ag.manual_seed(10)
    d = ag.distributions.OneHotCategorical(probs=ag.tensor([0.2, 0.5, 0.3]))
    draws = host(d.sample((20_000,)).data)
    assert draws.shape == (20_000, 3) and draws.dtype == np.float32
    assert ((draws == 0) | (draws == 1)).all() and (draws.sum(-1) == 1).all()
    np.testing.assert_allclose(draws.mean(0), [0.2, 0.5, 0.3], atol=0.015)
    assert d.event_shape == (3,) and d.batch_shape == ()


def _mixtures(T, rng):
    """A 1-d Gaussian mixture, a batch of 2-d ones (Independent components) and a MultivariateNormal one."""
    D = T.distributions
    logits = T.tensor(rng.standard_normal(3), requires_grad=True)
    mu, sd = T.tensor(rng.standard_normal(3), requires_grad=True), T.tensor(rng.uniform(0.5, 2, 3), requires_grad=True)
    mixture = D.MixtureSameFamily(D.Categorical(logits=logits), D.Normal(mu, sd))
    x = T.tensor(np.linspace(-3, 3, 7))
    outs = [mixture.log_prob(x), mixture.mean, mixture.variance, mixture.cdf(x)]
    mu2 = T.tensor(rng.standard_normal((4, 3, 2)), requires_grad=True)
    batch = D.MixtureSameFamily(D.Categorical(probs=T.tensor(np.full((4, 3), 1 / 3))),
                                D.Independent(D.Normal(mu2, 1.0), 1))
    outs += [batch.log_prob(T.tensor(rng.standard_normal((5, 4, 2)))), batch.mean, batch.variance]
    full = D.MixtureSameFamily(D.Categorical(logits=logits), D.MultivariateNormal(mu2[0], T.eye(2, dtype=T.float64)))
    outs += [full.log_prob(T.tensor(rng.standard_normal((6, 2)))), full.mean]
    grads = T.autograd.grad(sum(o.sum() for o in outs), [logits, mu, sd, mu2])
    shapes = [tuple(batch.sample((7,)).shape), tuple(mixture.sample().shape), tuple(batch.batch_shape),
              tuple(batch.event_shape)]
    return outs + list(grads), shapes


def test_mixture_same_family_matches_torch_with_gradients_for_weights_and_components():
    ours, our_shapes = _mixtures(ag, np.random.default_rng(12))
    theirs, their_shapes = _mixtures(torch, np.random.default_rng(12))
    assert our_shapes == their_shapes == [(7, 4, 2), (), (4,), (2,)]
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(host(o.detach().data), t.detach().numpy(), rtol=1e-10, atol=1e-14)


def test_mixture_samples_pick_components_by_their_weights():
    ag.manual_seed(13)
    D = ag.distributions
    weights = ag.tensor([0.2, 0.5, 0.3], dtype=ag.float64)
    mixture = D.MixtureSameFamily(D.Categorical(probs=weights), D.Normal(ag.tensor([-10.0, 0.0, 10.0]), 0.5))
    draws = host(mixture.sample((20_000,)).data)
    shares = [np.mean(draws < -5), np.mean(np.abs(draws) < 5), np.mean(draws > 5)]
    np.testing.assert_allclose(shares, [0.2, 0.5, 0.3], atol=0.015)
    assert not mixture.has_rsample


@pytest.mark.parametrize("call", [
    lambda T: T.distributions.MixtureSameFamily(T.distributions.Normal(0.0, 1.0), T.distributions.Normal(0.0, 1.0)),
    lambda T: T.distributions.MixtureSameFamily(T.distributions.Categorical(T.ones(3)), "a normal"),
    lambda T: T.distributions.MixtureSameFamily(T.distributions.Categorical(T.ones(3)),
                                                T.distributions.Normal(T.zeros(4), 1.0)),
    lambda T: T.distributions.MixtureSameFamily(T.distributions.Categorical(T.ones(2, 3)),
                                                T.distributions.Normal(T.zeros(5, 3), 1.0)),
], ids=["not-categorical", "not-a-distribution", "k-mismatch", "batch-mismatch"])
def test_mixture_errors_are_torchs(call):
    both_raise(lambda: call(ag), lambda: call(torch))
