"""Edge cases of this round's new functions that a review found wrong, side by side with torch 2.13: infinities
and NaN, mixed integer dtypes, half precision, empty inputs, keyword names, and the error classes of bad input."""
import math
import warnings

import numpy as np
import pytest

import autogradlab as ag
from conftest import import_torch
from torch_compare import both_raise

torch = import_torch()


def _values(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(ag), call(torch)


def _same(ours, theirs, rtol=1e-12):
    if isinstance(theirs, tuple):
        for o, t in zip(ours, theirs):
            _same(o, t, rtol)
        return
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol, equal_nan=True)


VALUES = {
    "shift of int32 by int64": lambda T: T.bitwise_left_shift(T.tensor([1], dtype=T.int32), T.tensor([40])),
    "shift of uint8 by int8": lambda T: T.tensor([1, 3], dtype=T.uint8) << T.tensor([2, 1], dtype=T.int8),
    "right shift of int16 by int32": lambda T: T.tensor([-64], dtype=T.int16) >> T.tensor([3], dtype=T.int32),
    "lp_pool1d inf": lambda T: T.nn.functional.lp_pool1d(T.tensor([[[1.0, -4.0, 2.0, 0.5, -0.5, 3.0]]]), math.inf, 2),
    "lp_pool2d -inf": lambda T: T.nn.functional.lp_pool2d(T.tensor([[[[1.0, -4.0], [2.0, 0.5]]]]), -math.inf, 2),
    "grid_sample of a NaN position, zeros": lambda T: T.nn.functional.grid_sample(
        T.ones(1, 1, 3, 4), T.tensor([[[[math.nan, 0.0], [0.2, 0.1]]]]), align_corners=False),
    "grid_sample with no channels": lambda T: T.nn.functional.grid_sample(T.zeros(2, 0, 5, 6), T.zeros(2, 4, 7, 2),
                                                                          align_corners=False),
    "rms_norm float16": lambda T: T.nn.functional.rms_norm(T.tensor([[300.0, 400.0, -500.0, 1.0],
                                                                     [1e-3, 2e-3, -1e-3, 1e-3]], dtype=T.float16), (4,)),
    "rms_norm float32 with a float64 weight": lambda T: T.nn.functional.rms_norm(
        T.tensor([[1.0, 2.0]]), (2,), T.tensor([1.0, 3.0], dtype=T.float64)),
    "new of a Size": lambda T: T.tensor([1.0]).new(T.Size([2, 3])).zero_(),
    "unique_consecutive over an empty dim": lambda T: T.unique_consecutive(T.zeros(0, 2), True, True, dim=0),
    "diagonal_scatter casts src": lambda T: T.diagonal_scatter(T.zeros(3, 3, dtype=T.float64), T.tensor([7, 8, 9])),
    "trace(input=)": lambda T: T.trace(input=T.tensor([[1.0, 2.0], [3.0, 4.0]])),
    "embedding_bag without bags": lambda T: T.nn.functional.embedding_bag(
        T.tensor([], dtype=T.int64), T.ones(5, 2), T.tensor([], dtype=T.int64)),
    "torch.index_reduce": lambda T: T.index_reduce(T.ones(3, 2), 0, T.tensor([0, 0]), T.full((2, 2), 3.0), "prod"),
    "kl of Bernoullis where q gives 0 or 1": lambda T: T.distributions.kl_divergence(
        T.distributions.Bernoulli(probs=T.tensor([0.3, 0.0, 1.0, 0.5])),
        T.distributions.Bernoulli(probs=T.tensor([0.0, 0.0, 1.0, 1.0]))),
    "kl of Categoricals where q gives 0": lambda T: T.distributions.kl_divergence(
        T.distributions.Categorical(probs=T.tensor([[0.2, 0.3, 0.5], [0.0, 0.5, 0.5]])),
        T.distributions.Categorical(probs=T.tensor([0.0, 0.5, 0.5]))),
    "stick-breaking of a large x": lambda T: _stick(T, [20.0, 0.0]),
}


def _stick(T, x):
    x = T.tensor(x, requires_grad=True)
    t = T.distributions.StickBreakingTransform()
    y = t(x)
    log_det = t.log_abs_det_jacobian(x, y)
    (grad,) = T.autograd.grad(log_det, x)
    return y, log_det, grad, t.inv(y)


@pytest.mark.parametrize("name", sorted(VALUES))
def test_values_match_torch(name):
    ours, theirs = _values(VALUES[name])
    _same(ours, theirs, rtol=1e-3 if "float16" in name else 1e-6)


@pytest.mark.parametrize("values", [[0.0, math.inf, 0.0], [0.0, math.inf, math.inf, 1.0], [1.0, math.nan, 0.0],
                                    [2.0, -1.0, math.inf]])
def test_logcumsumexp_gradient_past_an_infinity_is_torchs(values):
    grads = []
    for T in (ag, torch):
        a = T.tensor(values, dtype=T.float64, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            T.logcumsumexp(a, 0).sum().backward()
        grads.append(a.grad.numpy())
    np.testing.assert_allclose(*grads, equal_nan=True)


def test_logcumsumexp_gradient_of_a_leading_minus_infinity_is_0_where_torchs_is_nan():
    a = ag.tensor([-math.inf, 0.0, 2.0], dtype=ag.float64, requires_grad=True)
    ag.logcumsumexp(a, 0).sum().backward()
    t = torch.tensor([-math.inf, 0.0, 2.0], dtype=torch.float64, requires_grad=True)
    torch.logcumsumexp(t, 0).sum().backward()
    assert a.grad[0].item() == 0.0 and math.isnan(t.grad[0].item())
    np.testing.assert_allclose(a.grad.numpy()[1:], t.grad.numpy()[1:], rtol=1e-12)


def test_lp_pool_infinity_has_max_pools_gradient():
    x = np.array([[[1.0, -4.0, 2.0, 0.5, -0.5, 3.0]]])
    grads = []
    for T in (ag, torch):
        a = T.tensor(x, requires_grad=True)
        T.nn.functional.lp_pool1d(a, math.inf, 2).sum().backward()
        grads.append(a.grad.numpy())
    np.testing.assert_array_equal(*grads)


def test_grid_sample_of_non_finite_positions_gives_values_not_an_error():
    for padding in ("border", "reflection"):
        out = ag.nn.functional.grid_sample(ag.ones(1, 1, 3, 4), ag.tensor([[[[math.nan, 0.0], [math.inf, -math.inf]]]]),
                                           padding_mode=padding, align_corners=False)
        np.testing.assert_array_equal(out.numpy(), 1.0)   # (an image of ones: every edge reads 1)


@pytest.mark.parametrize("name, kwargs", [("Weibull", {"scale": 1.0, "concentration": 2.0}),
                                          ("Pareto", {"scale": 1.0, "alpha": 2.0}),
                                          ("InverseGamma", {"concentration": 3.0, "rate": 2.0}),
                                          ("FisherSnedecor", {"df1": 3.0, "df2": 5.0}),
                                          ("Kumaraswamy", {"concentration1": 2.0, "concentration0": 3.0})])
def test_distributions_take_torchs_parameter_names_as_keywords(name, kwargs):
    ours = getattr(ag.distributions, name)(**{k: ag.tensor(v) for k, v in kwargs.items()})
    theirs = getattr(torch.distributions, name)(**{k: torch.tensor(v) for k, v in kwargs.items()})
    np.testing.assert_allclose(ours.mean.numpy(), theirs.mean.numpy(), rtol=1e-6)


@pytest.mark.parametrize("call", [
    lambda T: T.tensor([True]) << T.tensor([True]),
    lambda T: T.slice_scatter(T.zeros(4), T.ones(4), 0, None, None, -1),
    lambda T: T.index_put(T.zeros(3), (T.tensor([1.0]),), T.ones(1), True),
    lambda T: T.trace(T.ones(2, 2, dtype=T.bool)),
    lambda T: T.rsub(T.tensor([1, 2]), 3, alpha=1.5),
    lambda T: T.tensor([2.0]).float_power_(2),
    lambda T: T.nn.functional.alpha_dropout(T.tensor([1, 2]), 0.5, True),
    lambda T: T.nn.functional.feature_alpha_dropout(T.ones(3), 0.5, True),
    lambda T: T.distributions.Multinomial(5, T.tensor([0.2, 0.3, 0.5])).log_prob(T.tensor([3.0, 3.0, 1.0])),
])
def test_bad_input_raises_torchs_error_class(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both_raise(lambda: call(ag), lambda: call(torch))


# -- from a review of the previous round's additions (special functions, distributions, transforms) ---------

def test_polygamma_of_far_negative_and_zeta_of_large_s_are_exact_and_quick():
    import mpmath
    x = np.array([-50.3, -2.5, -0.7, -1e4 + 0.25])   # (far enough for a 10,000-term sum; mpmath slows past it)
    for n in (1, 2, 3):
        ours = ag.special.polygamma(n, ag.tensor(x, dtype=ag.float64)).numpy()
        exact = [float(mpmath.polygamma(n, v)) for v in x]
        np.testing.assert_allclose(ours, exact, rtol=1e-9)   # (by reflection: no million-term sum)
    s, q = np.array([1e9, 50.0, 41.0, 2.0]), np.array([2.0, 0.5, 3.0, 1.5])
    ours = ag.special.zeta(ag.tensor(s, dtype=ag.float64), ag.tensor(q, dtype=ag.float64)).numpy()
    np.testing.assert_allclose(ours, [float(mpmath.zeta(a, b)) for a, b in zip(s, q)], rtol=1e-13)
    a = ag.tensor([-1e4 + 0.25], dtype=ag.float64, requires_grad=True)
    ag.digamma(a).backward()   # (trigamma there: reflection again)
    np.testing.assert_allclose(a.grad.numpy(), [float(mpmath.polygamma(1, -1e4 + 0.25))], rtol=1e-8)


def test_a_refused_second_derivative_through_rsample_changes_no_grad():
    concentration = ag.tensor([2.0, 3.0], requires_grad=True)
    w = ag.tensor([1.0, 1.0], requires_grad=True)
    loss = ag.distributions.Gamma(concentration, 1.0).rsample().sum() + (w ** 2).sum()
    with pytest.raises(NotImplementedError, match="create_graph"):
        loss.backward(create_graph=True)
    assert w.grad is None and concentration.grad is None
    loss.backward()
    assert w.grad.tolist() == [2.0, 2.0] and concentration.grad is not None


def test_transforms_take_a_cache_as_torchs():
    D = ag.distributions
    for t in (D.ComposeTransform([D.ExpTransform()]).with_cache(1), D.ExpTransform().inv.with_cache(1),
              D.ComposeTransform([D.ExpTransform().inv], cache_size=1)):
        x = ag.tensor([0.5, 2.0])
        assert t.inv(t(x)) is x


HALF_AND_BOUNDED = {
    "HalfNormal below 0": lambda T: T.distributions.HalfNormal(T.tensor(1.0), validate_args=False).log_prob(
        T.tensor([-1.0, 1.0])),
    "HalfCauchy below 0": lambda T: T.distributions.HalfCauchy(T.tensor(1.0), validate_args=False).log_prob(
        T.tensor([-1.0, 1.0])),
    "LogNormal cdf at 0": lambda T: T.distributions.LogNormal(T.tensor(0.0), T.tensor(1.0)).cdf(T.tensor([0.0, 1.0])),
    "Categorical mean, mode, variance": lambda T: (lambda d: (d.mean, d.mode, d.variance))(
        T.distributions.Categorical(probs=T.tensor([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]]))),
    "Bernoulli mode": lambda T: T.distributions.Bernoulli(probs=T.tensor([0.2, 0.5, 0.7])).mode,
    "Uniform mode, cdf, icdf": lambda T: (lambda d: (d.mode, d.cdf(T.tensor([0.5, 2.5])), d.icdf(T.tensor(0.3))))(
        T.distributions.Uniform(T.tensor([0.0, 1.0]), T.tensor([2.0, 3.0]))),
}


@pytest.mark.parametrize("name", sorted(HALF_AND_BOUNDED))
def test_distribution_values_the_previous_round_missed_match_torch(name):
    ours, theirs = _values(HALF_AND_BOUNDED[name])
    _same(ours, theirs, rtol=1e-6)


def test_uniform_cdf_checks_its_support_as_torch():
    both_raise(lambda: ag.distributions.Uniform(ag.tensor(0.0), ag.tensor(2.0)).cdf(ag.tensor(3.0)),
               lambda: torch.distributions.Uniform(torch.tensor(0.0), torch.tensor(2.0)).cdf(torch.tensor(3.0)))


@pytest.mark.parametrize("name", ["copysign float32 by float64", "copysign int by float64", "copysign by a 0-d float64",
                                  "copysign of a 0-d by float64", "ldexp past float32's 2^127",
                                  "ldexp negative exponent"])
def test_copysign_dtype_and_ldexp_range_are_torchs(name):
    calls = {
        "copysign float32 by float64": lambda T: T.copysign(T.tensor([1.0, 2.0]), T.tensor([-1.0, 1.0], dtype=T.float64)),
        "copysign int by float64": lambda T: T.copysign(T.tensor([1, 2]), T.tensor([-1.0, 1.0], dtype=T.float64)),
        "copysign by a 0-d float64": lambda T: T.copysign(T.tensor([1.0, 2.0]), T.tensor(-1.0, dtype=T.float64)),
        "copysign of a 0-d by float64": lambda T: T.copysign(T.tensor(1.0), T.tensor([-1.0], dtype=T.float64)),
        "ldexp past float32's 2^127": lambda T: T.ldexp(T.tensor([0.1, 0.25]), T.tensor([128, 129])),
        "ldexp negative exponent": lambda T: T.ldexp(T.tensor([3.0, 1.0]), T.tensor([-1, -149])),
    }
    ours, theirs = _values(calls[name])
    _same(ours, theirs, rtol=1e-6)


def test_a_composed_transform_with_an_event_transform_mid_chain_has_torchs_event_shape():
    results = []
    for T in (ag, torch):
        D = T.distributions
        base = D.Normal(T.zeros(3, dtype=T.float64), T.ones(3, dtype=T.float64))
        chain = [D.ExpTransform(), D.AffineTransform(T.tensor([0.5, 1.0, 2.0], dtype=T.float64),
                                                     T.tensor([2.0, 1.0, 0.5], dtype=T.float64), event_dim=1),
                 D.ExpTransform()]
        d = D.TransformedDistribution(base, chain)
        value = np.exp(np.array([0.5, 1.0, 2.0]) + np.array([2.0, 1.0, 0.5]) * np.exp([[0.1, -0.2, 0.3]]))
        results.append((tuple(d.event_shape), d.log_prob(T.tensor(value, dtype=T.float64)).numpy()))
    assert results[0][0] == results[1][0] == (3,)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)


def test_mixture_mean_and_variance_with_a_one_dim_mixture_batch_are_torchs():
    results = []
    for T in (ag, torch):
        D = T.distributions
        mixture = D.MixtureSameFamily(D.Categorical(logits=T.tensor(np.arange(6.0).reshape(2, 3) / 3)),
                                      D.Normal(T.tensor(np.arange(24.0).reshape(4, 2, 3) / 5),
                                               T.ones(4, 2, 3, dtype=T.float64)))
        results.append((mixture.mean.numpy(), mixture.variance.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


@pytest.mark.parametrize("call", [
    lambda T: T.distributions.Bernoulli(logits=T.tensor([math.nan])),
    lambda T: T.distributions.Categorical(logits=T.tensor([math.nan, 1.0])),
    lambda T: T.distributions.Categorical(probs=T.tensor([0.0, 0.0])),
    lambda T: T.distributions.Poisson(T.tensor(2.0)).log_prob(T.tensor(math.inf)),
    lambda T: T.distributions.Geometric(T.tensor(0.3)).log_prob(T.tensor(math.inf)),
    lambda T: T.distributions.Cauchy(T.tensor(0.0), T.tensor(1.0)).log_prob(T.tensor(math.nan)),
    lambda T: T.distributions.Gumbel(T.tensor(0.0), T.tensor(1.0)).log_prob(T.tensor(math.nan)),
    lambda T: T.distributions.StudentT(T.tensor(3.0)).log_prob(T.tensor(math.nan)),
])
def test_distributions_refuse_what_torch_refuses(call):
    both_raise(lambda: call(ag), lambda: call(torch))


@pytest.mark.parametrize("shape, dim", [((0,), None), ((0, 3), 0), ((2, 0), 1), ((0, 3), None)], ids=str)
def test_the_mean_of_nothing_is_nan_quietly_as_torchs(shape, dim):
    """NumPy warns "Mean of empty slice"; PyTorch gives NaN silently (an empty batch's loss), and so does this."""
    outs = []
    for T in (ag, torch):
        x = T.zeros(*shape, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            m = x.mean() if dim is None else x.mean(dim)
            m.sum().backward()
        outs.append((m.detach().numpy(), tuple(x.grad.shape)))
    np.testing.assert_array_equal(outs[0][0], outs[1][0])
    assert outs[0][1] == outs[1][1]
