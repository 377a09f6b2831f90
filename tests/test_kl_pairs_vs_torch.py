"""The KL divergences of ``distributions/kl_pairs.py`` (the pairs across families, and within the families whose
modules do not register them), side by side with torch 2.13: for every pair, a batch of p and q in float64 whose
parameters require grad, the values (+inf exactly where torch has it), and the gradient of the finite entries'
sum with respect to every parameter. A few finite pairs are also checked against E_p[log p - log q] found by
numerical integration (mpmath) of densities written out here, so that a formula shared with torch is checked on
its own; and the registry is checked to hold every pair torch registers (but the ExponentialFamily one)."""
import autogradlab.distributions.kl_pairs  # noqa: F401  (registers the pairs)

import math
import warnings

import mpmath
import numpy as np
import pytest

import autogradlab as ag
from autogradlab.distributions import kl_pairs
from conftest import import_torch
from torch_compare import both_raise, close

torch = import_torch()
_rng = np.random.default_rng(20261207)
N = 6   # (the batch)


def _real():
    return _rng.normal(0.0, 1.5, N)


def _positive(low=0.5, high=3.0):
    return _rng.uniform(low, high, N)


def _probs():
    return _rng.uniform(0.05, 0.95, N)


def _t(T, values):
    return T.tensor(np.asarray(values, dtype=np.float64))


# family -> a constructor from a library T and the parameter tensors (all of which require grad)
MAKE = {
    "Normal": lambda T, a, b: T.distributions.Normal(a, b),
    "Laplace": lambda T, a, b: T.distributions.Laplace(a, b),
    "Gumbel": lambda T, a, b: T.distributions.Gumbel(a, b),
    "Cauchy": lambda T, a, b: T.distributions.Cauchy(a, b),
    "HalfNormal": lambda T, s: T.distributions.HalfNormal(s),
    "Exponential": lambda T, r: T.distributions.Exponential(r),
    "Gamma": lambda T, a, b: T.distributions.Gamma(a, b),
    "Beta": lambda T, a, b: T.distributions.Beta(a, b),
    "Uniform": lambda T, low, high: T.distributions.Uniform(low, high),
    "Pareto": lambda T, s, a: T.distributions.Pareto(s, a),
    "ContinuousBernoulli": lambda T, p: T.distributions.ContinuousBernoulli(probs=p),
    "ContinuousBernoulli logits": lambda T, l: T.distributions.ContinuousBernoulli(logits=l),
    "Bernoulli": lambda T, p: T.distributions.Bernoulli(probs=p),
    "Geometric": lambda T, p: T.distributions.Geometric(probs=p),
    "Geometric logits": lambda T, l: T.distributions.Geometric(logits=l),
    "OneHotCategorical": lambda T, p: T.distributions.OneHotCategorical(probs=p),
    "OneHotCategorical logits": lambda T, l: T.distributions.OneHotCategorical(logits=l),
    "Poisson": lambda T, r: T.distributions.Poisson(r),
    "Binomial p": lambda T, p: T.distributions.Binomial(_t(T, [5, 5, 7, 3, 4, 6]), probs=p),
    "Binomial q": lambda T, l: T.distributions.Binomial(_t(T, [5, 5, 5, 3, 4, 6]), logits=l),
    "HalfCauchy": lambda T, s: T.distributions.HalfCauchy(s),
    "LogNormal": lambda T, a, b: T.distributions.LogNormal(a, b),
    "InverseGamma": lambda T, a, b: T.distributions.InverseGamma(a, b),
    "LogNormal-like": lambda T, a, b: T.distributions.TransformedDistribution(
        T.distributions.Normal(a, b), [T.distributions.transforms.ExpTransform()]),
}


def _default(family):
    """Parameters (a list of arrays, batch N) for a family."""
    if family in ("Normal", "Laplace", "Gumbel", "Cauchy"):
        return [_real(), _positive()]
    if family in ("HalfNormal", "Exponential", "Poisson", "HalfCauchy"):
        return [_positive()]
    if family in ("Gamma", "Beta", "InverseGamma"):
        return [_positive(), _positive()]
    if family == "Uniform":
        low = _real()
        return [low, low + _positive()]
    if family == "Pareto":   # (alpha <= 1 and <= 2 in the batch, edges included: no mean or no variance there)
        return [_positive(), np.array([0.5, 1.0, 1.5, 2.0, 3.0, 4.0])]
    if family == "ContinuousBernoulli":   # (0.4995: inside PyTorch's lims, the Taylor series)
        return [np.array([0.1, 0.4995, 0.3, 0.7, 0.93, 0.55])]
    if family == "ContinuousBernoulli logits":
        return [np.array([-2.0, 0.001, 1.2, -0.7, 3.0, 0.4])]
    if family in ("Bernoulli", "Geometric", "Binomial p"):
        return [_probs()]
    if family in ("Geometric logits", "Binomial q"):
        return [_real()]
    if family == "OneHotCategorical":
        return [_rng.dirichlet(np.ones(4), N)]
    if family == "OneHotCategorical logits":
        return [_rng.normal(0.0, 1.0, (N, 4))]
    if family in ("LogNormal-like", "LogNormal"):
        return [_real(), _positive()]
    raise KeyError(family)


CASES = {}   # (P, Q) -> (p's family, p's parameters, q's family, q's parameters)


def _case(pair, p_family=None, p_params=None, q_family=None, q_params=None):
    p_family, q_family = p_family or pair[0], q_family or pair[1]
    CASES[pair] = (p_family, p_params if p_params is not None else _default(p_family),
                   q_family, q_params if q_params is not None else _default(q_family))


# within a family
_case(("Binomial", "Binomial"), "Binomial p", None, "Binomial q")   # (n_p = 7 > n_q = 5 in one entry: inf)
_case(("Cauchy", "Cauchy"))
_case(("ContinuousBernoulli", "ContinuousBernoulli"), None, None, "ContinuousBernoulli logits")
_case(("Geometric", "Geometric"), None, None, "Geometric logits")
_case(("Gumbel", "Gumbel"))
_case(("HalfNormal", "HalfNormal"))
_case(("OneHotCategorical", "OneHotCategorical"), None, None, "OneHotCategorical logits")
_case(("Pareto", "Pareto"), None, [np.array([1.0, 2.0, 0.5, 1.5, 3.0, 0.7]), _positive()],
      None, [np.array([0.5, 2.5, 0.5, 1.0, 3.5, 0.2]), _positive()])
_case(("TransformedDistribution", "TransformedDistribution"), "LogNormal-like", None, "LogNormal-like")
# (torch's are TransformedDistributions, whose pair gives their bases' KL; here classes of their own)
_case(("HalfCauchy", "HalfCauchy"))
_case(("LogNormal", "LogNormal"))
_case(("InverseGamma", "InverseGamma"))
_case(("Uniform", "Uniform"), None, [np.array([0.0, -1.0, 0.5, 2.0, -3.0, 0.2]),
                                    np.array([1.0, 1.0, 0.9, 4.0, 0.0, 0.3])],
      None, [np.array([-0.5, -0.5, 0.5, 2.5, -4.0, 0.1]), np.array([1.5, 2.0, 1.0, 3.0, 1.0, 0.4])])
# across families, finite or infinite in places
_case(("Bernoulli", "Poisson"))
_case(("Beta", "ContinuousBernoulli"))
_case(("Beta", "Exponential"))
_case(("Beta", "Gamma"))
_case(("Beta", "Normal"))
_case(("Beta", "Uniform"), None, None, None, [np.array([-0.5, 0.1, -1.0, 0.0, -0.2, 0.0]),
                                               np.array([1.5, 2.0, 0.9, 1.0, 3.0, 1.2])])
_case(("ContinuousBernoulli", "Exponential"))
_case(("ContinuousBernoulli", "Normal"))
_case(("ContinuousBernoulli", "Uniform"), None, None, None, [np.array([-0.5, 0.1, -1.0, 0.0, -0.2, -0.3]),
                                                             np.array([1.5, 2.0, 0.9, 1.0, 1.0, 1.2])])
_case(("Exponential", "Gamma"))
_case(("Exponential", "Gumbel"))
_case(("Exponential", "Normal"))
_case(("Gamma", "Exponential"))
_case(("Gamma", "Gumbel"))
_case(("Gamma", "Normal"))
_case(("Gumbel", "Normal"))
_case(("Laplace", "Normal"))
_case(("Normal", "Gumbel"))
_case(("Normal", "Laplace"))
_case(("Pareto", "Exponential"))
_case(("Pareto", "Gamma"))
_case(("Pareto", "Normal"))
_case(("Uniform", "Beta"), None, [np.array([0.1, -0.2, 0.3, 0.05, 1.5, 0.2]),
                                  np.array([0.9, 0.5, 1.2, 0.4, 2.0, 0.6])])
_case(("Uniform", "ContinuousBernoulli"), None, [np.array([0.1, 0.0, 0.2, -0.1, 0.3, 0.05]),
                                                 np.array([0.9, 0.5, 1.0, 0.5, 0.35, 0.6])])
_ACROSS_ZERO = [np.array([-0.5, 0.2, 1.0, -2.0, 0.5, 3.0]), np.array([0.5, 0.7, 3.0, -1.0, 3.5, 3.7])]
_case(("Uniform", "Exponential"), None, _ACROSS_ZERO)
_case(("Uniform", "Gamma"), None, _ACROSS_ZERO)
_case(("Uniform", "Gumbel"))
_case(("Uniform", "Normal"))
_case(("Uniform", "Pareto"), None, [np.array([0.6, 0.5, 1.0, 2.5, 0.9, -1.0]),
                                    np.array([1.0, 2.0, 1.5, 4.0, 1.1, 2.0])],
      None, [np.array([0.5, 1.0, 0.3, 2.0, 1.0, 0.1]), _positive()])
# across families whose supports never nest: +inf for the whole batch
for _p, _qs in {"Normal": "Beta ContinuousBernoulli Exponential Gamma Pareto Uniform",
                "Laplace": "Beta ContinuousBernoulli Exponential Gamma Pareto Uniform",
                "Gumbel": "Beta ContinuousBernoulli Exponential Gamma Pareto Uniform",
                "Exponential": "Beta ContinuousBernoulli Pareto Uniform",
                "Gamma": "Beta ContinuousBernoulli Pareto Uniform",
                "Pareto": "Beta ContinuousBernoulli Uniform",
                "Beta": "Pareto", "ContinuousBernoulli": "Pareto", "Poisson": "Bernoulli Binomial"}.items():
    for _q in _qs.split():
        _case((_p, _q), None, None, "Binomial q" if _q == "Binomial" else None)

#: Pairs where torch's gradient of the finite entries' sum is NaN at some entries that are +inf (their formula is
#: evaluated at the parameters there, x log x of a negative x, a / (a - 1) at a = 1, and 0 * NaN or 0 * inf comes
#: back); ours is 0 there: those entries are not in the sum.
NAN_IN_TORCH = {("Uniform", "Beta"), ("Uniform", "Gamma"), ("Uniform", "Pareto"), ("Pareto", "Exponential"),
                ("Pareto", "Gamma"), ("Pareto", "Normal")}

#: Pairs whose gradient in p's parameters goes through trigamma (p's entropy, digamma of p's concentration), which
#: torch computes to only ~5e-10 relative: compared to 5e-9 there (ours against mpmath in the test below).
TRIGAMMA_IN_TORCH = {pair for pair in CASES if pair[0] in ("Beta", "Gamma")}


def _build(T, family, params):
    tensors = [T.tensor(np.array(p, dtype=np.float64), requires_grad=True) for p in params]
    return MAKE[family](T, *tensors), tensors


def _kl_both(pair):
    """For each library: (kl, p's parameter tensors, q's parameter tensors)."""
    p_family, p_params, q_family, q_params = CASES[pair]
    out = []
    for T in (ag, torch):
        p, p_tensors = _build(T, p_family, p_params)
        q, q_tensors = _build(T, q_family, q_params)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            kl = T.distributions.kl_divergence(p, q)
        out.append((kl, p_tensors + q_tensors))
    return out


@pytest.mark.parametrize("pair", sorted(CASES), ids=lambda pair: "-".join(pair))
def test_value_and_gradients_match_torch(pair):
    (ours, our_params), (theirs, their_params) = _kl_both(pair)
    close(ours, theirs, rtol=1e-10, atol=1e-12)   # (shape, dtype, values: inf exactly where torch's is inf)
    finite = np.isfinite(theirs.detach().numpy())
    assert ours.requires_grad == theirs.requires_grad, "a constant +inf in one library, a formula in the other"
    if not theirs.requires_grad:
        assert not finite.any(), "a finite KL that no parameter reaches"
        return
    assert finite.any(), "every case with a formula has finite entries to differentiate"
    for T, kl, params in ((ag, ours, our_params), (torch, theirs, their_params)):
        T.where(T.isfinite(kl), kl, T.zeros_like(kl)).sum().backward()
    for i, (o, t) in enumerate(zip(our_params, their_params)):
        assert (o.grad is None) == (t.grad is None), f"parameter {i}: a gradient in one library only"
        if t.grad is None:
            continue
        t_grad, o_grad = t.grad.numpy(), o.grad.numpy()
        bad = ~np.isfinite(t_grad)
        if pair in NAN_IN_TORCH:
            assert (o_grad[bad] == 0).all(), f"parameter {i}: ours {o_grad[bad]} where torch's is NaN"
        else:
            assert not bad.any(), f"parameter {i}: torch's gradient {t_grad} (not listed in NAN_IN_TORCH)"
        atol = 5e-9 if pair in TRIGAMMA_IN_TORCH else 1e-11
        np.testing.assert_allclose(o_grad[~bad], t_grad[~bad], rtol=1e-9, atol=atol, err_msg=f"parameter {i}")
        assert np.isfinite(o_grad).all()


def test_nan_in_torch_lists_only_pairs_where_torch_gives_nan():
    for pair in NAN_IN_TORCH:
        (_, _), (theirs, params) = _kl_both(pair)
        torch.where(torch.isfinite(theirs), theirs, torch.zeros_like(theirs)).sum().backward()
        assert any(p.grad is not None and not torch.isfinite(p.grad).all() for p in params), pair


def test_the_pairs_cover_torchs_registry_and_each_is_tested():
    from autogradlab.distributions.kl import _REGISTRY
    from torch.distributions.kl import _KL_REGISTRY
    names = lambda registry: {(p.__name__, q.__name__) for p, q in registry}   # noqa: E731
    missing = names(_KL_REGISTRY) - names(_REGISTRY)
    assert not missing, f"torch registers KL pairs that autogradlab does not: {sorted(missing)}"
    here = {(p.__name__, q.__name__) for (p, q), fun in _REGISTRY.items() if fun.__module__ == kl_pairs.__name__}
    assert here == set(CASES), (sorted(here - set(CASES)), sorted(set(CASES) - here))
    assert len(here) == 75   # (72 of the 87 pairs torch 2.13 registers, and 3 it reaches through its transforms)


@pytest.mark.parametrize("pair", sorted(CASES), ids=lambda pair: "-".join(pair))
def test_the_lookup_finds_the_pair_registered_here(pair):
    from autogradlab.distributions.kl import _lookup
    p_family, p_params, q_family, q_params = CASES[pair]
    p, _ = _build(ag, p_family, p_params)
    q, _ = _build(ag, q_family, q_params)
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # (no ambiguity warning)
        fun = _lookup(type(p), type(q))
    assert fun.__module__ == kl_pairs.__name__ and fun is getattr(kl_pairs, fun.__name__)


def test_infinite_everywhere_is_shaped_like_ps_batch():
    """PyTorch's +inf takes p's shape even when q's batch is larger; a finite one broadcasts."""
    for T in (ag, torch):
        D = T.distributions
        p = D.Normal(_t(T, [0.0, 1.0, 2.0]), _t(T, [1.0, 1.0, 1.0]))
        q = D.Gamma(_t(T, [[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]]), _t(T, [1.0, 1.0, 1.0]))
        assert tuple(D.kl_divergence(p, q).shape) == (3,)
        q = D.Laplace(_t(T, [[0.0], [1.0]]), _t(T, [1.0, 2.0, 3.0]))
        assert tuple(D.kl_divergence(p, q).shape) == (2, 3)


def test_uniform_on_the_edges_of_the_unit_interval():
    """Uniform(0, 1) against a Beta is finite (x log x is 0 at 0); against a ContinuousBernoulli it is +inf, and a
    ContinuousBernoulli against Uniform(0, 1) too, as PyTorch's tests count touching as outside."""
    def run(T):
        D = T.distributions
        u = D.Uniform(_t(T, [0.0, 0.0, 0.5]), _t(T, [1.0, 0.5, 1.0]))
        return [D.kl_divergence(u, D.Beta(_t(T, 2.0), _t(T, 3.0))),
                D.kl_divergence(u, D.ContinuousBernoulli(_t(T, 0.3))),
                D.kl_divergence(D.ContinuousBernoulli(_t(T, [0.3, 0.3])), D.Uniform(_t(T, [0.0, -1.0]),
                                                                                  _t(T, [1.0, 2.0])))]
    ours, theirs = run(ag), run(torch)
    for o, t in zip(ours, theirs):
        close(o, t, rtol=1e-10, atol=1e-12)
    assert np.isfinite(ours[0].numpy()).all() and np.isinf(ours[1].numpy()).all()
    assert np.isinf(ours[2].numpy()[0]) and np.isfinite(ours[2].numpy()[1])


def test_errors_as_torch_raises_them():
    def binomials(T):
        D = T.distributions
        return D.kl_divergence(D.Binomial(_t(T, [3.0, 5.0]), _t(T, [0.5, 0.5])),
                               D.Binomial(_t(T, [4.0, 5.0]), _t(T, [0.5, 0.5])))

    def transforms_differ(T):
        D = T.distributions
        base = D.Normal(_t(T, [0.0]), _t(T, [1.0]))
        return D.kl_divergence(D.TransformedDistribution(base, [D.transforms.ExpTransform()]),
                               D.TransformedDistribution(base, [D.transforms.SigmoidTransform()]))

    for run in (binomials, transforms_differ):
        both_raise(lambda: run(ag), lambda: run(torch))


# -- independent of torch: E_p[log p - log q] by numerical integration ----------------------------------------------

mpmath.mp.dps = 30
_LOG_SQRT_2PI = mpmath.log(2 * mpmath.pi) / 2
_EULER = mpmath.euler


def _normal(m, s):
    return lambda x: -((x - m) / s) ** 2 / 2 - mpmath.log(s) - _LOG_SQRT_2PI


def _laplace(m, b):
    return lambda x: -mpmath.log(2 * b) - abs(x - m) / b


def _gumbel(m, s):
    return lambda x: -mpmath.log(s) - (x - m) / s - mpmath.exp(-(x - m) / s)


def _cauchy(m, s):
    return lambda x: -mpmath.log(mpmath.pi * s) - mpmath.log(1 + ((x - m) / s) ** 2)


def _gamma(a, r):
    return lambda x: a * mpmath.log(r) + (a - 1) * mpmath.log(x) - r * x - mpmath.loggamma(a)


def _exponential(r):
    return lambda x: mpmath.log(r) - r * x


def _beta(a, b):
    return lambda x: ((a - 1) * mpmath.log(x) + (b - 1) * mpmath.log(1 - x) + mpmath.loggamma(a + b)
                      - mpmath.loggamma(a) - mpmath.loggamma(b))


def _uniform(low, high):
    return lambda x: -mpmath.log(high - low)


def _pareto(s, a):
    return lambda x: mpmath.log(a) + a * mpmath.log(s) - (a + 1) * mpmath.log(x)


def _continuous_bernoulli(lam):
    lam = mpmath.mpf(lam)
    norm = 2 * mpmath.atanh(1 - 2 * lam) / (1 - 2 * lam)
    return lambda x: mpmath.log(norm) + x * mpmath.log(lam) + (1 - x) * mpmath.log(1 - lam)


def _half_normal(s):
    return lambda x: mpmath.log(2) - (x / s) ** 2 / 2 - mpmath.log(s) - _LOG_SQRT_2PI


INF = mpmath.inf
# (p's family, its parameters, q's family, its parameters, p's log density, q's, where p lives: the points to split
# the integral at; a Gumbel's lower tail, e^(-e^(-z)), is cut where it is far below the tolerance, as is a Normal's
# against a Gumbel, whose log density there is -e^(-z): mpmath's quadrature would stall on those)
INTEGRATED = [
    ("Beta", [2.5, 1.5], "Normal", [0.2, 0.7], _beta(2.5, 1.5), _normal(0.2, 0.7), [0, 1]),
    ("Beta", [1.5, 3.0], "Gamma", [2.0, 1.5], _beta(1.5, 3.0), _gamma(2.0, 1.5), [0, 1]),
    ("Beta", [3.0, 2.0], "ContinuousBernoulli", [0.8], _beta(3.0, 2.0), _continuous_bernoulli(0.8), [0, 1]),
    ("ContinuousBernoulli", [0.3], "Normal", [0.4, 0.5], _continuous_bernoulli(0.3), _normal(0.4, 0.5), [0, 1]),
    ("ContinuousBernoulli", [0.2], "ContinuousBernoulli", [0.9], _continuous_bernoulli(0.2),
     _continuous_bernoulli(0.9), [0, 1]),
    ("Exponential", [1.3], "Gumbel", [0.5, 1.2], _exponential(1.3), _gumbel(0.5, 1.2), [0, 1, INF]),
    ("Exponential", [0.7], "Gamma", [2.5, 1.1], _exponential(0.7), _gamma(2.5, 1.1), [0, 1, INF]),
    ("Gamma", [2.5, 1.5], "Gumbel", [1.0, 0.8], _gamma(2.5, 1.5), _gumbel(1.0, 0.8), [0, 1, INF]),
    ("Gamma", [1.7, 0.9], "Normal", [1.0, 2.0], _gamma(1.7, 0.9), _normal(1.0, 2.0), [0, 1, INF]),
    ("Gumbel", [0.3, 1.4], "Gumbel", [-0.5, 0.9], _gumbel(0.3, 1.4), _gumbel(-0.5, 0.9), [0.3 - 14, 0.3, 0.3 + 140]),
    ("Gumbel", [0.3, 1.4], "Normal", [0.5, 2.0], _gumbel(0.3, 1.4), _normal(0.5, 2.0), [0.3 - 14, 0.3, 0.3 + 140]),
    ("Laplace", [0.5, 0.8], "Normal", [-0.2, 1.3], _laplace(0.5, 0.8), _normal(-0.2, 1.3), [-INF, 0.5, INF]),
    ("Normal", [0.4, 0.9], "Gumbel", [-0.1, 1.6], _normal(0.4, 0.9), _gumbel(-0.1, 1.6), [0.4 - 36, 0.4, 0.4 + 36]),
    ("Normal", [0.4, 0.9], "Laplace", [1.1, 0.6], _normal(0.4, 0.9), _laplace(1.1, 0.6), [-INF, 0.4, 1.1, INF]),
    ("Cauchy", [0.2, 1.1], "Cauchy", [-1.0, 0.4], _cauchy(0.2, 1.1), _cauchy(-1.0, 0.4), [-INF, -1.0, 0.2, INF]),
    ("HalfNormal", [0.8], "HalfNormal", [1.9], _half_normal(0.8), _half_normal(1.9), [0, 1, INF]),
    ("Pareto", [1.5, 3.5], "Normal", [2.0, 1.5], _pareto(1.5, 3.5), _normal(2.0, 1.5), [1.5, 3, INF]),
    ("Pareto", [1.5, 2.5], "Gamma", [2.0, 0.7], _pareto(1.5, 2.5), _gamma(2.0, 0.7), [1.5, 3, INF]),
    ("Pareto", [0.8, 1.6], "Exponential", [0.9], _pareto(0.8, 1.6), _exponential(0.9), [0.8, 3, INF]),
    ("Pareto", [2.0, 1.5], "Pareto", [1.5, 2.5], _pareto(2.0, 1.5), _pareto(1.5, 2.5), [2.0, 4, INF]),
    ("Uniform", [0.1, 0.7], "Beta", [2.0, 0.6], _uniform(0.1, 0.7), _beta(2.0, 0.6), [0.1, 0.7]),
    ("Uniform", [0.2, 2.5], "Gamma", [1.5, 2.0], _uniform(0.2, 2.5), _gamma(1.5, 2.0), [0.2, 2.5]),
    ("Uniform", [-1.0, 2.0], "Gumbel", [0.5, 0.7], _uniform(-1.0, 2.0), _gumbel(0.5, 0.7), [-1.0, 2.0]),
    ("Uniform", [1.2, 3.0], "Pareto", [1.0, 2.2], _uniform(1.2, 3.0), _pareto(1.0, 2.2), [1.2, 3.0]),
    ("Uniform", [0.2, 0.6], "ContinuousBernoulli", [0.7], _uniform(0.2, 0.6), _continuous_bernoulli(0.7),
     [0.2, 0.6]),
]


@pytest.mark.parametrize("case", INTEGRATED, ids=lambda c: f"{c[0]}-{c[2]}")
def test_value_against_numerical_integration(case):
    p_family, p_params, q_family, q_params, log_p, log_q, points = case
    p, _ = _build(ag, p_family, p_params)
    q, _ = _build(ag, q_family, q_params)
    ours = float(ag.distributions.kl_divergence(p, q).detach().item())
    exact = mpmath.quad(lambda x: mpmath.exp(log_p(x)) * (log_p(x) - log_q(x)), points)
    assert ours == pytest.approx(float(exact), rel=1e-9, abs=1e-12)


def test_discrete_values_against_sums():
    """Binomial, Geometric, OneHotCategorical and Bernoulli-Poisson, by summing p (log p - log q) over the counts."""
    def binomial(n, pr):
        return lambda k: (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * math.log(pr)
                          + (n - k) * math.log1p(-pr))
    D = ag.distributions
    cases = [
        (D.Binomial(_t(ag, 6.0), _t(ag, 0.3)), D.Binomial(_t(ag, 6.0), _t(ag, 0.55)),
         binomial(6, 0.3), binomial(6, 0.55), range(7)),
        (D.Geometric(_t(ag, 0.35)), D.Geometric(_t(ag, 0.6)), lambda k: k * math.log1p(-0.35) + math.log(0.35),
         lambda k: k * math.log1p(-0.6) + math.log(0.6), range(400)),
        (D.Bernoulli(_t(ag, 0.3)), D.Poisson(_t(ag, 1.7)), lambda k: math.log(0.3 if k else 0.7),
         lambda k: k * math.log(1.7) - 1.7 - math.lgamma(k + 1), range(2)),
        (D.OneHotCategorical(_t(ag, [0.1, 0.2, 0.7])), D.OneHotCategorical(_t(ag, [0.5, 0.3, 0.2])),
         lambda k: math.log([0.1, 0.2, 0.7][k]), lambda k: math.log([0.5, 0.3, 0.2][k]), range(3)),
    ]
    for p, q, log_p, log_q, support in cases:
        exact = math.fsum(math.exp(log_p(k)) * (log_p(k) - log_q(k)) for k in support)
        assert float(D.kl_divergence(p, q).item()) == pytest.approx(exact, rel=1e-10)


def _gamma_scores(a, r):
    """d log p / d(concentration, rate) of a Gamma(a, r)."""
    return [lambda x: mpmath.log(r) + mpmath.log(x) - mpmath.digamma(a), lambda x: a / r - x]


def _beta_scores(a, b):
    """d log p / d(concentration1, concentration0) of a Beta(a, b)."""
    return [lambda x: mpmath.log(x) + mpmath.digamma(a + b) - mpmath.digamma(a),
            lambda x: mpmath.log(1 - x) + mpmath.digamma(a + b) - mpmath.digamma(b)]


@pytest.mark.parametrize("case", [
    ("Gamma", [1.7, 0.9], "Normal", [1.0, 2.0], _gamma(1.7, 0.9), _normal(1.0, 2.0), _gamma_scores(1.7, 0.9),
     [0, 1, INF]),
    ("Gamma", [2.5, 1.5], "Gumbel", [1.0, 0.8], _gamma(2.5, 1.5), _gumbel(1.0, 0.8), _gamma_scores(2.5, 1.5),
     [0, 1, INF]),
    ("Beta", [1.5, 3.0], "Gamma", [2.0, 1.5], _beta(1.5, 3.0), _gamma(2.0, 1.5), _beta_scores(1.5, 3.0), [0, 1]),
    ("Beta", [2.5, 1.5], "Normal", [0.2, 0.7], _beta(2.5, 1.5), _normal(0.2, 0.7), _beta_scores(2.5, 1.5), [0, 1]),
], ids=lambda c: f"{c[0]}-{c[2]}")
def test_gradient_in_ps_parameters_against_integration(case):
    """dKL/dtheta = E_p[(d log p / dtheta)(log p - log q)] (the score's mean is 0): where torch's trigamma leaves
    its gradient ~1e-9 off, ours is to be right to 1e-10."""
    p_family, p_params, q_family, q_params, log_p, log_q, scores, points = case
    p, p_tensors = _build(ag, p_family, p_params)
    q, _ = _build(ag, q_family, q_params)
    ag.distributions.kl_divergence(p, q).backward()
    for tensor, score in zip(p_tensors, scores):
        exact = mpmath.quad(lambda x: mpmath.exp(log_p(x)) * score(x) * (log_p(x) - log_q(x)), points)
        assert float(tensor.grad.item()) == pytest.approx(float(exact), rel=1e-10, abs=1e-12)
