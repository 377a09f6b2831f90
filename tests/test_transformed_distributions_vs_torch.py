"""``TransformedDistribution``, the transforms and ``constraints`` side by side with torch 2.13: log_prob, cdf and
icdf through chains of transforms (tanh, affine with tensor and negative scales, exp, sigmoid, softplus, power,
affine over whole events, an ``Independent`` base) with gradients for the base's parameters; the transforms'
calls, inverses and log-Jacobians; the tanh-squashed policy of SAC, whose cache keeps x's digits; the reprs,
equalities and checks."""
from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import host, import_torch
from torch_compare import both_raise

import autogradlab as ag

torch = import_torch()


def _programs(T):
    """name -> tensor, each a function of the base's parameters (whose gradients are compared too)."""
    D = T.distributions
    TT = D.transforms
    f64 = T.float64
    mu = T.tensor([0.3, -1.2, 2.0], dtype=f64, requires_grad=True)
    sd = T.tensor([0.5, 1.0, 0.3], dtype=f64, requires_grad=True)
    out = {}
    squashed = D.TransformedDistribution(D.Normal(mu, sd), [TT.TanhTransform(cache_size=1)])
    out["tanh log_prob"] = squashed.log_prob(T.tensor([0.2, -0.9, 0.99], dtype=f64))
    scales = T.tensor([2.0, -3.0, 0.5], dtype=f64)
    affine_exp = D.TransformedDistribution(D.Normal(mu, sd), [TT.AffineTransform(1.0, scales), TT.ExpTransform()])
    y = T.tensor([0.5, 2.0, 3.0], dtype=f64)
    out["affine-exp log_prob"] = affine_exp.log_prob(y)
    out["affine-exp cdf (a negative scale)"] = affine_exp.cdf(y)
    out["affine-exp icdf"] = affine_exp.icdf(T.tensor([0.2, 0.5, 0.7], dtype=f64))
    sigmoid = D.TransformedDistribution(D.Normal(mu, sd), [TT.SigmoidTransform()])
    p = T.tensor([0.1, 0.5, 0.95], dtype=f64)
    out["sigmoid log_prob"], out["sigmoid cdf"] = sigmoid.log_prob(p), sigmoid.cdf(p)
    softplus_power = D.TransformedDistribution(D.Normal(mu, sd), [TT.SoftplusTransform(), TT.PowerTransform(2.0)])
    out["softplus-power log_prob"] = softplus_power.log_prob(p)
    events = D.TransformedDistribution(D.Normal(mu, sd), [TT.AffineTransform(0.0, scales, event_dim=1)])
    out["affine over events log_prob"] = events.log_prob(y)
    out["affine over events shapes"] = T.tensor([len(events.batch_shape), len(events.event_shape)])
    independent = D.TransformedDistribution(D.Independent(D.Normal(mu, sd), 1), [TT.TanhTransform()])
    out["independent base log_prob"] = independent.log_prob(T.tensor([0.2, -0.9, 0.99], dtype=f64))
    out["independent base shapes"] = T.tensor([len(independent.batch_shape), len(independent.event_shape)])
    chain = TT.ComposeTransform([TT.ExpTransform(), TT.AffineTransform(0.0, -1.0)])
    x = T.tensor([0.3, 1.0], dtype=f64)
    out["compose"], out["compose inverse"] = chain(x), chain.inv(chain(x))
    out["compose log-Jacobian"] = chain.log_abs_det_jacobian(x, chain(x))
    out["inverse's log-Jacobian"] = TT.TanhTransform().inv.log_abs_det_jacobian(T.tensor([0.5], dtype=f64),
                                                                                T.tensor([0.55], dtype=f64))
    out["identity"] = TT.identity_transform(x)
    for name, value in list(out.items()):
        if value.requires_grad:
            grads = T.autograd.grad(value.sum(), [mu, sd], allow_unused=True, retain_graph=True)
            out[name + ": gradients"] = T.cat([g if g is not None else T.zeros(3, dtype=f64) for g in grads])
    return out


def test_log_prob_cdf_icdf_and_transforms_match_torch_with_gradients():
    ours, theirs = _programs(ag), _programs(torch)
    assert ours.keys() == theirs.keys()
    for name in theirs:
        o, t = ours[name], theirs[name]
        assert tuple(o.shape) == tuple(t.shape), name
        np.testing.assert_allclose(host(o.detach().data), t.detach().numpy(), rtol=1e-10, atol=1e-14, err_msg=name)


def test_the_sac_policy_finds_its_draw_in_the_cache_and_keeps_its_digits():
    """In float32 tanh(8) rounds to a few ulps below 1, and atanh of that is 7.97, not 8. With the cache, log_prob
    of a draw is log N(x) - log(1 - tanh^2 x) at the drawn x itself, as in torch."""
    for T in (ag, torch):
        D = T.distributions
        mu = T.tensor([4.0, 0.0], requires_grad=True)
        dist = D.TransformedDistribution(D.Normal(mu, 0.001), [D.transforms.TanhTransform(cache_size=1)])
        action = dist.rsample()
        x = dist.transforms[0].inv(action)
        base = D.Normal(mu, 0.001)
        expected = base.log_prob(x) - dist.transforms[0].log_abs_det_jacobian(x, action)
        got = dist.log_prob(action)
        assert x is dist.transforms[0]._cached_x_y[0] if T is ag else True
        np.testing.assert_array_equal(host(got.detach().data) if T is ag else got.detach().numpy(),
                                      host(expected.detach().data) if T is ag else expected.detach().numpy())
        got.sum().backward()
        assert mu.grad is not None
    uncached = ag.distributions.transforms.TanhTransform()
    far = ag.tensor([8.0])
    assert abs(uncached.inv(uncached(far)).item() - 8.0) > 0.01   # (what the cache saves)


def test_samples_shapes_and_rsample_gradient():
    ag.manual_seed(11)
    mu = ag.tensor([0.0, 1.0], dtype=ag.float64, requires_grad=True)
    D = ag.distributions
    dist = D.TransformedDistribution(D.Normal(mu, 0.5), [D.transforms.ExpTransform()])
    draws = dist.rsample((30_000,))
    assert tuple(draws.shape) == (30_000, 2) and dist.has_rsample
    assert dist.sample((4,)).requires_grad is False
    draws.mean(0).sum().backward()   # E[e^X] = e^(mu + s^2/2): its derivative is itself
    np.testing.assert_allclose(host(mu.grad.data), np.exp(np.array([0.0, 1.0]) + 0.125), rtol=0.03)


def test_reprs_equalities_and_constraints_are_torchs():
    for name in ("ExpTransform", "SigmoidTransform", "TanhTransform", "SoftplusTransform", "AbsTransform"):
        ours, theirs = getattr(ag.distributions.transforms, name)(), getattr(torch.distributions.transforms, name)()
        assert repr(ours) == repr(theirs) and repr(ours.inv) == repr(theirs.inv)
        assert repr(ours.domain) == repr(theirs.domain) and repr(ours.codomain) == repr(theirs.codomain)
        assert ours.inv.inv is ours and ours == type(ours)() and ours.bijective == theirs.bijective
    for T in (ag, torch):
        TT = T.distributions.transforms
        chain = TT.ComposeTransform([TT.ExpTransform(), TT.AffineTransform(0.0, -1.0)])
        assert chain.sign == -1 and repr(chain.domain) == "Real()"
        assert repr(TT.AffineTransform(1.0, 2.0, event_dim=1).domain) == "IndependentConstraint(Real(), 1)"
    C, TC = ag.distributions.constraints, torch.distributions.constraints
    pairs = [(C.real, TC.real), (C.positive, TC.positive), (C.nonnegative, TC.nonnegative),
             (C.unit_interval, TC.unit_interval), (C.interval(-1.0, 1.0), TC.interval(-1.0, 1.0)),
             (C.half_open_interval(0.0, 1.0), TC.half_open_interval(0.0, 1.0)), (C.less_than(1.0), TC.less_than(1.0)),
             (C.greater_than_eq(0.5), TC.greater_than_eq(0.5)), (C.boolean, TC.boolean),
             (C.nonnegative_integer, TC.nonnegative_integer), (C.positive_integer, TC.positive_integer),
             (C.integer_interval(0, 3), TC.integer_interval(0, 3)), (C.real_vector, TC.real_vector),
             (C.simplex, TC.simplex), (C.independent(C.positive, 1), TC.independent(TC.positive, 1))]
    values = np.array([[0.0, 1.0, -1.0], [0.5, 2.0, float("nan")], [1.0, 0.0, 0.0]])
    for ours, theirs in pairs:
        assert repr(ours) == repr(theirs)
        assert (ours.event_dim, ours.is_discrete) == (theirs.event_dim, theirs.is_discrete), repr(ours)
        np.testing.assert_array_equal(host(ours.check(ag.tensor(values)).data),
                                      theirs.check(torch.tensor(values)).numpy(), err_msg=repr(ours))


ERRORS = [
    lambda T: T.distributions.TransformedDistribution(T.distributions.Normal(0.0, 1.0), ["not a transform"]),
    lambda T: T.distributions.transforms.ExpTransform(cache_size=2),
    lambda T: T.distributions.TransformedDistribution(T.distributions.Normal(T.zeros(2), 1.0),
                                                      [T.distributions.transforms.TanhTransform()]).log_prob(
        T.tensor([0.5, 1.5])),
    lambda T: T.distributions.transforms.AbsTransform().log_abs_det_jacobian(T.tensor([1.0]), T.tensor([1.0])),
    lambda T: T.distributions.TransformedDistribution(
        T.distributions.Normal(T.zeros(()), 1.0), [T.distributions.transforms.AffineTransform(0.0, 1.0, event_dim=1)]),
]


@pytest.mark.parametrize("call", ERRORS, ids=range(len(ERRORS)))
def test_errors_are_torchs(call):
    both_raise(lambda: call(ag), lambda: call(torch))


def test_names_are_where_torch_has_them():
    for name in ("TransformedDistribution", "Transform", "ComposeTransform", "ExpTransform", "PowerTransform",
                 "SigmoidTransform", "TanhTransform", "SoftplusTransform", "AbsTransform", "AffineTransform",
                 "identity_transform"):
        assert hasattr(torch.distributions, name) and hasattr(ag.distributions, name), name
        assert getattr(ag.distributions.transforms, name, None) is getattr(ag.distributions, name) or \
            name == "TransformedDistribution"
    assert math.isclose(ag.distributions.Normal(1.0, 2.0).icdf(ag.tensor(0.975)).item(),
                        torch.distributions.Normal(1.0, 2.0).icdf(torch.tensor(0.975)).item(), rel_tol=1e-6)


SUPPORTS = {
    "Normal": lambda T: T.distributions.Normal(0.0, 1.0),
    "Uniform": lambda T: T.distributions.Uniform(T.tensor([0.0]), T.tensor([2.0])),
    "Bernoulli": lambda T: T.distributions.Bernoulli(T.tensor([0.3])),
    "Categorical": lambda T: T.distributions.Categorical(T.tensor([0.3, 0.7])),
    "OneHotCategorical": lambda T: T.distributions.OneHotCategorical(T.tensor([0.3, 0.7])),
    "Exponential": lambda T: T.distributions.Exponential(2.0),
    "Laplace": lambda T: T.distributions.Laplace(0.0, 1.0),
    "MultivariateNormal": lambda T: T.distributions.MultivariateNormal(T.zeros(2), T.eye(2)),
    "Independent": lambda T: T.distributions.Independent(T.distributions.Normal(T.zeros(3), 1.0), 1),
    "Gamma": lambda T: T.distributions.Gamma(2.0, 1.0),
    "Chi2": lambda T: T.distributions.Chi2(3.0),
    "Beta": lambda T: T.distributions.Beta(2.0, 1.0),
    "Dirichlet": lambda T: T.distributions.Dirichlet(T.tensor([1.0, 2.0])),
    "Poisson": lambda T: T.distributions.Poisson(2.0),
    "Cauchy": lambda T: T.distributions.Cauchy(0.0, 1.0),
    "Gumbel": lambda T: T.distributions.Gumbel(0.0, 1.0),
    "HalfNormal": lambda T: T.distributions.HalfNormal(1.0),
    "HalfCauchy": lambda T: T.distributions.HalfCauchy(1.0),
    "LogNormal": lambda T: T.distributions.LogNormal(0.0, 1.0),
    "StudentT": lambda T: T.distributions.StudentT(3.0),
    "Geometric": lambda T: T.distributions.Geometric(T.tensor([0.3])),
    "Binomial": lambda T: T.distributions.Binomial(5, T.tensor([0.3])),
    "TransformedDistribution": lambda T: T.distributions.TransformedDistribution(
        T.distributions.Normal(0.0, 1.0), [T.distributions.transforms.SigmoidTransform()]),
}


@pytest.mark.parametrize("name", sorted(SUPPORTS))
def test_every_distribution_has_torchs_support(name):
    ours, theirs = SUPPORTS[name](ag).support, SUPPORTS[name](torch).support
    if name not in ("Uniform", "Binomial"):   # (their bounds are tensors: printed by each library)
        assert repr(ours) == repr(theirs)
    assert (ours.event_dim, ours.is_discrete) == (theirs.event_dim, theirs.is_discrete)
    values = np.array([[0.0, 1.0], [0.5, 0.5], [-1.0, 3.0], [1.0, 0.0]])
    np.testing.assert_array_equal(host(ours.check(ag.tensor(values)).data),
                                  theirs.check(torch.tensor(values)).numpy())


def test_affine_transforms_are_equal_by_value_so_their_distributions_have_a_kl_as_in_torch():
    outs = []
    for T in (ag, torch):
        D, TT = T.distributions, T.distributions.transforms
        a, b = TT.AffineTransform(T.tensor([1.0, 2.0]), 2.0), TT.AffineTransform(T.tensor([1.0, 2.0]), 2.0)
        flags = [a == b, a == TT.AffineTransform(T.tensor([1.0, 3.0]), 2.0), a == TT.AffineTransform(1.0, 2.0),
                 TT.AffineTransform(1.0, -2.0) == TT.AffineTransform(1.0, -2.0)]
        p = D.TransformedDistribution(D.Normal(T.zeros(2), 1.0), [a])
        q = D.TransformedDistribution(D.Normal(T.ones(2), 2.0), [b])
        outs.append((flags, D.kl_divergence(p, q).numpy()))
    assert outs[0][0] == outs[1][0] == [True, False, False, True]
    np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-6)
