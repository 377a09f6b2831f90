"""Multinomial, NegativeBinomial (``distributions/counts.py``), RelaxedBernoulli, RelaxedOneHotCategorical
(``relaxed.py``), Weibull, Pareto, InverseGamma, FisherSnedecor, Kumaraswamy (``positive.py``) and
``register_kl`` (``kl.py``): side by side with torch 2.13 (values, gradients of every parameter, the checks),
the samples by their statistics, and the pathwise gradients by their expectation."""
import warnings

import numpy as np
import pytest

import autogradlab as ag
from conftest import import_torch
from torch_compare import both_raise

torch = import_torch()
D, TD = ag.distributions, torch.distributions
_rng = np.random.default_rng(20261201)

A, B = _rng.uniform(0.6, 4.0, 4), _rng.uniform(0.6, 4.0, 4)
PROBS = _rng.dirichlet(np.ones(5), 3)
X_POS = _rng.uniform(0.2, 3.0, 4)

# name -> (constructor taking a library and its parameter tensors, parameters, value for log_prob/cdf)
LAWS = {
    "Weibull": (lambda T, a, b: T.distributions.Weibull(a, b), (A, B), X_POS),
    "Pareto": (lambda T, a, b: T.distributions.Pareto(a, b), (A, B), A * _rng.uniform(1.0, 3.0, 4)),
    "InverseGamma": (lambda T, a, b: T.distributions.InverseGamma(a, b), (A + 2, B), X_POS),
    "FisherSnedecor": (lambda T, a, b: T.distributions.FisherSnedecor(a, b), (A * 2, B * 3), X_POS),
    "Kumaraswamy": (lambda T, a, b: T.distributions.Kumaraswamy(a, b), (A, B), _rng.uniform(0.05, 0.95, 4)),
    "NegativeBinomial probs": (lambda T, r, p: T.distributions.NegativeBinomial(r, probs=p), (A, B / 5),
                               np.array([0.0, 3, 1, 7])),
    "NegativeBinomial logits": (lambda T, r, l: T.distributions.NegativeBinomial(r, logits=l), (A, B - 2),
                                np.array([2.0, 0, 5, 1])),
    "Multinomial": (lambda T, p: T.distributions.Multinomial(6, probs=p), (PROBS,),
                    np.array([[1.0, 2, 0, 3, 0], [6, 0, 0, 0, 0], [2, 1, 1, 1, 1]])),
    "Multinomial logits": (lambda T, l: T.distributions.Multinomial(4, logits=l), (np.log(PROBS),),
                           np.array([1.0, 1, 0, 2, 0])),
    "ContinuousBernoulli probs": (lambda T, p: T.distributions.ContinuousBernoulli(probs=p),
                                  (np.array([0.1, 0.4995, 0.5, 0.7, 0.999]),), np.array([0.2, 0.9, 0.5, 0.0, 1.0])),
    "ContinuousBernoulli logits": (lambda T, l: T.distributions.ContinuousBernoulli(logits=l),
                                   (np.array([-3.0, -0.001, 0.0, 0.8, 6.0]),), np.array([0.2, 0.9, 0.5, 0.0, 1.0])),
    "RelaxedBernoulli": (lambda T, p: T.distributions.RelaxedBernoulli(T.tensor(0.6, dtype=T.float64), probs=p),
                         (B / 5,), _rng.uniform(0.05, 0.95, 4)),
    "RelaxedOneHotCategorical": (lambda T, l: T.distributions.RelaxedOneHotCategorical(
        T.tensor(0.4, dtype=T.float64), logits=l), (np.log(PROBS),), _rng.dirichlet(np.ones(5), 3)),
}
ATTRIBUTES = ("mean", "mode", "variance", "entropy", "log_prob", "cdf", "icdf")


def _make(name, T):
    make, params, _ = LAWS[name]
    tensors = [T.tensor(p, requires_grad=True) for p in params]
    return make(T, *tensors), tensors


def _value(name, attribute, law, T):
    value = LAWS[name][2]
    if attribute in ("mean", "mode", "variance"):
        return getattr(law, attribute)
    if attribute == "entropy":
        return law.entropy()
    arg = np.clip(value, 0.05, 0.95) if attribute == "icdf" else value
    return getattr(law, attribute)(T.tensor(arg))


@pytest.mark.parametrize("name", sorted(LAWS))
@pytest.mark.parametrize("attribute", ATTRIBUTES)
def test_values_and_gradients_match_torch(name, attribute):
    results = []
    for T in (ag, torch):
        law, params = _make(name, T)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = _value(name, attribute, law, T)
        except NotImplementedError:
            results.append(None)
            continue
        grads = None
        if out.requires_grad and np.isfinite(out.detach().numpy()).all():
            try:
                (out * 1.0).sum().backward()
                grads = [p.grad.numpy() if p.grad is not None else None for p in params]
            except (NotImplementedError, RuntimeError):   # (the Gamma CDF's concentration: in neither library)
                grads = None
        results.append((out.detach().numpy(), grads))
    ours, theirs = results
    if theirs is None or ours is None:   # (what torch has not, we have not, and the other way round)
        assert ours is None and theirs is None, f"{name}.{attribute}: one library has it, the other not"
        return
    if name == "Kumaraswamy" and attribute == "mode":   # (torch's formula mixes the parameters: see the test below)
        return
    assert (ours[1] is None) == (theirs[1] is None)
    rtol = 1e-6 if name.startswith("Multinomial") and attribute == "entropy" else 1e-10   # (torch: lgamma(n+1) in float32)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=rtol, atol=1e-12)
    if theirs[1] is not None and ours[1] is not None:
        for o, t in zip(*(r[1] for r in results)):
            if t is not None:
                np.testing.assert_allclose(o, t, rtol=max(rtol, 1e-9), atol=1e-11)


SAMPLED = {
    "ContinuousBernoulli": lambda M: M.ContinuousBernoulli(torch_or(M, [0.2, 0.9])),
    "Weibull": lambda M: M.Weibull(torch_or(M, [1.5, 0.7]), torch_or(M, [2.0, 0.8])),
    "Pareto": lambda M: M.Pareto(torch_or(M, [1.0, 2.0]), torch_or(M, [3.0, 4.5])),
    "InverseGamma": lambda M: M.InverseGamma(torch_or(M, [3.0, 5.0]), torch_or(M, [2.0, 1.0])),
    "FisherSnedecor": lambda M: M.FisherSnedecor(torch_or(M, [5.0, 8.0]), torch_or(M, [9.0, 12.0])),
    "Kumaraswamy": lambda M: M.Kumaraswamy(torch_or(M, [2.0, 0.8]), torch_or(M, [3.0, 1.5])),
}


def torch_or(M, values):
    return (ag if M is D else torch).tensor(values, dtype=ag.float64 if M is D else torch.float64,
                                            requires_grad=True)


@pytest.mark.parametrize("name", sorted(SAMPLED))
def test_rsample_mean_and_its_pathwise_gradient_agree_with_the_mean(name):
    ag.manual_seed(11)
    law = SAMPLED[name](D)
    draws = law.rsample((200000,))
    assert draws.shape == (200000, 2)
    assert bool((draws > 0).all()) and (name != "Kumaraswamy" or bool((draws < 1).all()))
    mean = law.mean
    sd = law.stddev.detach().numpy()
    np.testing.assert_allclose(draws.mean(0).detach().numpy(), mean.detach().numpy(), atol=float(6 * sd.max() / 447))
    params = [getattr(law, n) for n in law.names] if hasattr(law, "names") else [law.probs]
    pathwise = ag.autograd.grad(draws.mean(0).sum(), params)   # E[d x / d theta] = d E[x] / d theta
    exact = ag.autograd.grad(mean.sum(), params, allow_unused=True)   # (F's mean has no df1 in it)
    for p, e in zip(pathwise, exact):
        np.testing.assert_allclose(p.numpy(), 0.0 if e is None else e.numpy(), rtol=0.05, atol=0.02)


def test_negative_binomial_and_multinomial_samples_have_their_moments():
    ag.manual_seed(12)
    nb = D.NegativeBinomial(ag.tensor([2.5, 3.0], dtype=ag.float64), probs=ag.tensor([0.3, 0.6], dtype=ag.float64))
    draws = nb.sample((100000,)).numpy()
    assert (draws == np.floor(draws)).all() and (draws >= 0).all()
    np.testing.assert_allclose(draws.mean(0), nb.mean.numpy(), rtol=0.02)
    np.testing.assert_allclose(draws.var(0), nb.variance.numpy(), rtol=0.05)
    m = D.Multinomial(7, probs=ag.tensor(PROBS))
    counts = m.sample((20000,)).numpy()
    assert counts.shape == (20000, 3, 5) and (counts.sum(-1) == 7).all()
    np.testing.assert_allclose(counts.mean(0), m.mean.numpy(), atol=0.05)


def test_relaxed_samples_lie_in_their_support_pick_like_the_probabilities_and_harden_as_it_cools():
    ag.manual_seed(13)
    logits = ag.tensor(np.log(PROBS[0]), requires_grad=True)
    law = D.RelaxedOneHotCategorical(ag.tensor(0.5, dtype=ag.float64), logits=logits)
    draws = law.rsample((50000,))
    np.testing.assert_allclose(draws.sum(-1).detach().numpy(), 1.0, rtol=1e-12)
    # the Gumbel-max property, at any temperature: argmax of a draw is category k with probability p_k
    picks = np.bincount(draws.detach().numpy().argmax(-1), minlength=5) / 50000
    np.testing.assert_allclose(picks, PROBS[0], atol=0.01)
    (draws[:, 0].mean()).backward()
    assert logits.grad is not None and logits.grad.numpy()[0] > 0   # (raising logit 0 raises its weight)
    cold = D.RelaxedOneHotCategorical(ag.tensor(0.01, dtype=ag.float64), logits=logits).rsample((1000,))
    assert (cold.detach().numpy().max(-1) > 0.99).mean() > 0.95
    bern = D.RelaxedBernoulli(ag.tensor(0.05, dtype=ag.float64), probs=ag.tensor([0.3], dtype=ag.float64))
    x = bern.rsample((20000,)).numpy()
    assert ((x > 0) & (x < 1)).all() and abs((x > 0.5).mean() - 0.3) < 0.015


# -- register_kl -------------------------------------------------------------------------------------------

def test_register_kl_adds_a_pair_and_the_most_specific_one_wins():
    class Wide(D.Normal):
        pass

    class Narrow(Wide):
        pass

    calls = []

    @D.register_kl(Wide, D.Normal)
    def _wide(p, q):
        calls.append("wide")
        return p.loc * 0

    p, q = Narrow(0.0, 1.0), D.Normal(0.0, 2.0)
    D.kl_divergence(p, q)

    @D.register_kl(Narrow, D.Normal)
    def _narrow(p, q):
        calls.append("narrow")
        return p.loc * 0

    D.kl_divergence(p, q)
    D.kl_divergence(Wide(0.0, 1.0), q)
    assert calls == ["wide", "narrow", "wide"]
    # the built-in pair still serves Normal, Normal, and equals torch's
    np.testing.assert_allclose(D.kl_divergence(D.Normal(0.0, 1.0), q).item(),
                               TD.kl_divergence(TD.Normal(0.0, 1.0), TD.Normal(0.0, 2.0)).item(), rtol=1e-6)


def test_an_ambiguous_pair_warns_as_in_torch():
    class P(D.Normal):
        pass

    class Q(D.Normal):
        pass

    @D.register_kl(P, D.Normal)
    def _p(p, q):
        return p.loc * 0

    @D.register_kl(D.Normal, Q)
    def _q(p, q):
        return p.loc * 0 + 1

    with pytest.warns(RuntimeWarning, match="Ambiguous kl_divergence"):
        D.kl_divergence(P(0.0, 1.0), Q(0.0, 1.0))


def test_register_kl_refuses_what_is_not_a_distribution_type_and_an_unknown_pair_says_how_to_add_it():
    with pytest.raises(TypeError, match="Distribution subclass"):   # (torch 2.13's check lets int through)
        D.register_kl(int, D.Normal)
    with pytest.raises(NotImplementedError, match="register_kl"):
        D.kl_divergence(D.Cauchy(0.0, 1.0), D.Normal(0.0, 1.0))


@pytest.mark.parametrize("call", [
    lambda T: T.distributions.Weibull(T.tensor([-1.0]), T.tensor([1.0])),
    lambda T: T.distributions.Pareto(T.tensor([1.0]), T.tensor([0.0])),
    lambda T: T.distributions.Pareto(T.tensor([1.0]), T.tensor([2.0])).log_prob(T.tensor([0.5])),
    lambda T: T.distributions.Kumaraswamy(T.tensor([1.0]), T.tensor([2.0])).log_prob(T.tensor([1.5])),
    lambda T: T.distributions.InverseGamma(T.tensor([1.0]), T.tensor([-2.0])),
    lambda T: T.distributions.FisherSnedecor(T.tensor([0.0]), T.tensor([2.0])),
    lambda T: T.distributions.NegativeBinomial(T.tensor([2.0]), probs=T.tensor([1.0])),
    lambda T: T.distributions.NegativeBinomial(T.tensor([-2.0]), probs=T.tensor([0.5])),
    lambda T: T.distributions.NegativeBinomial(T.tensor([2.0]), probs=T.tensor([0.5]), logits=T.tensor([0.0])),
    lambda T: T.distributions.NegativeBinomial(T.tensor([2.0]), probs=T.tensor([0.5])).log_prob(T.tensor([1.5])),
    lambda T: T.distributions.ContinuousBernoulli(probs=T.tensor([1.5]), validate_args=True),
    lambda T: T.distributions.ContinuousBernoulli(probs=T.tensor([0.5]), logits=T.tensor([0.0])),
    lambda T: T.distributions.ContinuousBernoulli(probs=T.tensor([0.3])).log_prob(T.tensor([1.5])),
    lambda T: T.distributions.Multinomial(3, probs=T.tensor([0.5, -0.5])),
    lambda T: T.distributions.Multinomial(T.tensor([3, 4]), probs=T.tensor([0.5, 0.5])),
    lambda T: T.distributions.RelaxedOneHotCategorical(T.tensor(1.0), probs=T.tensor([0.5, 0.5]),
                                                       logits=T.tensor([0.0, 0.0])),
])
def test_bad_parameters_and_values_raise_torchs_error_class(call):
    both_raise(lambda: call(ag), lambda: call(torch))


def test_a_negative_temperature_is_refused_where_torch_takes_it():
    with pytest.raises(ValueError, match="temperature"):
        D.RelaxedBernoulli(ag.tensor(-1.0), probs=ag.tensor([0.5]))
    TD.RelaxedBernoulli(torch.tensor(-1.0), probs=torch.tensor([0.5]))   # (torch checks only probs and logits)


def test_validate_args_false_leaves_the_temperature_unchecked_as_torch():
    for T in (D, TD):
        for relaxed in (T.RelaxedBernoulli, T.RelaxedOneHotCategorical):
            tensor = ag.tensor if T is D else torch.tensor
            d = relaxed(tensor(0.0), probs=tensor([0.5, 0.5]), validate_args=False)
            assert float(d.temperature) == 0.0


@pytest.mark.parametrize("a, b", [(2.0, 3.0), (1.5, 1.2), (4.0, 2.0)])
def test_kumaraswamy_mode_is_the_densitys_maximum_where_torchs_is_nan(a, b):
    law = D.Kumaraswamy(ag.tensor(a, dtype=ag.float64), ag.tensor(b, dtype=ag.float64))
    grid = np.linspace(1e-6, 1 - 1e-6, 200001)
    assert abs(law.mode.item() - grid[law.log_prob(ag.tensor(grid)).numpy().argmax()]) < 1e-5
    assert np.isnan(TD.Kumaraswamy(torch.tensor(a), torch.tensor(b)).mode.item())


# -- LowRankMultivariateNormal ---------------------------------------------------------------------------------

@pytest.mark.parametrize("batched", [False, True])
def test_low_rank_mvn_matches_torch_with_gradients(batched):
    rng = np.random.default_rng(int(batched))
    lead = (2,) if batched else ()
    loc, W, d = rng.standard_normal(lead + (4,)), rng.standard_normal(lead + (4, 2)), rng.uniform(0.5, 2, lead + (4,))
    x = rng.standard_normal((3,) + lead + (4,))
    results = []
    for T in (ag, torch):
        params = [T.tensor(a, requires_grad=True) for a in (loc, W, d)]
        p = T.distributions.LowRankMultivariateNormal(*params)
        q = T.distributions.MultivariateNormal(T.tensor(loc * 0.5), covariance_matrix=T.tensor(np.eye(4) * 2.0))
        r = T.distributions.LowRankMultivariateNormal(T.tensor(loc[..., ::-1].copy()), T.tensor(W * 0.5),
                                                      T.tensor(d + 1))
        values = [p.log_prob(T.tensor(x)), p.entropy(), p.variance, p.covariance_matrix, p.precision_matrix,
                  p.scale_tril, T.distributions.kl_divergence(p, q), T.distributions.kl_divergence(p, r),
                  T.distributions.kl_divergence(q, p)]
        sum(v.sum() for v in values).backward()
        results.append([v.detach().numpy() for v in values] + [t.grad.numpy() for t in params])
        assert tuple(p.batch_shape) == lead and tuple(p.event_shape) == (4,)
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-11)


def test_low_rank_mvn_samples_have_its_covariance():
    ag.manual_seed(14)
    W = ag.tensor([[1.0, 0.5], [0.0, 1.0], [-1.0, 0.3]], dtype=ag.float64)
    p = D.LowRankMultivariateNormal(ag.zeros(3, dtype=ag.float64), W, ag.tensor([0.5, 1.0, 0.2], dtype=ag.float64))
    draws = p.rsample((200000,)).numpy()
    np.testing.assert_allclose(np.cov(draws.T), p.covariance_matrix.numpy(), atol=0.03)


@pytest.mark.parametrize("call", [
    lambda T: T.distributions.LowRankMultivariateNormal(T.zeros(3), T.ones(3, 1), T.tensor([1.0, -1.0, 1.0])),
    lambda T: T.distributions.LowRankMultivariateNormal(T.zeros(3), T.ones(2, 1), T.ones(3)),
    lambda T: T.distributions.LowRankMultivariateNormal(T.zeros(3), T.ones(3), T.ones(3)),
    lambda T: T.distributions.LowRankMultivariateNormal(T.zeros(3), T.ones(3, 1), T.ones(2)),
])
def test_low_rank_mvn_errors_are_torchs(call):
    both_raise(lambda: call(ag), lambda: call(torch))


# -- VonMises -------------------------------------------------------------------------------------------------

def test_von_mises_matches_torch_and_is_exact_against_mpmath():
    import mpmath
    loc, k, x = np.array([0.3, -2.0, 1.0, 0.0]), np.array([0.5, 4.0, 60.0, 1e-3]), np.array([0.1, 3.0, 1.05, 2.0])
    results = []
    for T in (ag, torch):
        l, c = T.tensor(loc, requires_grad=True), T.tensor(k, requires_grad=True)
        p = T.distributions.VonMises(l, c)
        lp, var = p.log_prob(T.tensor(x)), p.variance
        (lp.sum() + var.sum()).backward()
        results.append([lp.detach().numpy(), var.detach().numpy(), l.grad.numpy(), c.grad.numpy()])
        assert np.array_equal(p.mean.detach().numpy(), loc) and np.array_equal(p.mode.detach().numpy(), loc)
    # (torch's Bessel functions are polynomial fits, good to about 1e-7; its variance 1 - I1/I0 cancels them at a
    # large concentration: 1e-4 off at k = 60, where ours agrees with mpmath to the last digits)
    for ours, theirs, rtol in zip(*results, (2e-6, 2e-4, 2e-6, 2e-6)):
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=1e-9)
    exact_lp = [float(kk * mpmath.cos(xx - ll) - mpmath.log(2 * mpmath.pi * mpmath.besseli(0, kk)))
                for ll, kk, xx in zip(loc, k, x)]
    exact_var = [float(1 - mpmath.besseli(1, kk) / mpmath.besseli(0, kk)) for kk in k]
    np.testing.assert_allclose(results[0][0], exact_lp, rtol=1e-13)
    np.testing.assert_allclose(results[0][1], exact_var, rtol=1e-12)


def test_von_mises_samples_have_its_circular_mean_and_resultant_length():
    ag.manual_seed(15)
    k = np.array([2.0, 0.5, 50.0, 1e-6])
    law = D.VonMises(ag.tensor([0.3, 3.0, -1.0, 0.0], dtype=ag.float64), ag.tensor(k, dtype=ag.float64))
    draws = law.sample((100000,)).numpy()
    assert draws.min() >= -np.pi and draws.max() < np.pi
    resultant = np.exp(1j * draws).mean(0)
    np.testing.assert_allclose(np.abs(resultant), 1 - law.variance.numpy(), atol=0.006)
    np.testing.assert_allclose(np.angle(resultant[:3]), [0.3, 3.0, -1.0], atol=0.03)


@pytest.mark.parametrize("call", [
    lambda T: T.distributions.VonMises(T.tensor([0.0]), T.tensor([0.0])),
    lambda T: T.distributions.VonMises(T.tensor([float("nan")]), T.tensor([1.0])),
])
def test_von_mises_checks_are_torchs(call):
    both_raise(lambda: call(ag), lambda: call(torch))
