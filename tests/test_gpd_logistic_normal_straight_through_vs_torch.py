"""``GeneralizedPareto``, ``LogisticNormal`` and ``OneHotCategoricalStraightThrough`` side by side with torch 2.13
(values, gradients, shapes, reprs, checks). torch's GeneralizedPareto only runs in float64 under a float64
default dtype (it compares with a float32 ``tensor(0.0)``), so these tests set torch's default for their
duration. Where torch's GeneralizedPareto is not the derivative (its gradient in the concentration c at c = 0
and at c = -1, and its values for 0 < |c| <= 1e-8), ours is checked against finite differences and mpmath."""
import math

import numpy as np
import pytest
from conftest import host, import_torch
from torch_compare import both_raise, close

import autogradlab as ag
from autogradlab.testing import gradcheck

torch = import_torch()

C = np.array([-1.0, -0.5, 0.0, 1e-9, -1e-9, 0.3, 1.5])
LOC = np.array([0.1, -0.4, 0.0, 1.0, 0.2, 0.5, -2.0])
SCALE = np.array([2.0, 1.5, 1.0, 0.5, 3.0, 0.7, 1.2])
Z = np.array([0.4, 1.2, 1.45, 0.3, 2.0, 4.0, 7.5])   # (inside the support: z < -1/c where c < 0)
X = LOC + SCALE * Z
EXACT_IN_TORCH = np.abs(C) > 1e-8
pytestmark = pytest.mark.usefixtures("torch_float64_default")


def _gpd(T, requires_grad=False):
    params = [T.tensor(v, dtype=T.float64, requires_grad=requires_grad) for v in (LOC, SCALE, C)]
    return params, T.distributions.GeneralizedPareto(*params)


def _everything(T):
    params, d = _gpd(T, requires_grad=True)
    x, u = T.tensor(X, dtype=T.float64), T.tensor(np.linspace(0.05, 0.95, 7), dtype=T.float64)
    out = {"log_prob": d.log_prob(x), "log_survival_function": d.log_survival_function(x),
           "log_cdf": d.log_cdf(x), "cdf": d.cdf(x), "icdf": d.icdf(u), "entropy": d.entropy(), "mode": d.mode,
           "mean": d.mean, "variance": d.variance}
    grads = {}
    for name, value in out.items():
        if name not in ("mean", "variance"):   # (NaN where undefined)
            grads[name] = T.autograd.grad(value.sum(), params, retain_graph=True, allow_unused=True)
    return out, grads


def test_generalized_pareto_values_and_gradients_match_torch_where_torch_is_exact():
    ours, theirs = _everything(ag), _everything(torch)
    for name in ours[0]:
        a, b = host(ours[0][name].detach().data), theirs[0][name].detach().numpy()
        np.testing.assert_allclose(a[EXACT_IN_TORCH], b[EXACT_IN_TORCH], rtol=1e-12, atol=1e-14, err_msg=name)
        np.testing.assert_allclose(a, b, rtol=1e-7, err_msg=name)   # (0 < |c| <= 1e-8: the series' c term)
    for name in ours[1]:
        for i, (a, b) in enumerate(zip(ours[1][name], theirs[1][name])):
            assert (a is None) == (b is None), f"{name} grad {i}"
            if b is None:   # (entropy and mode do not use every parameter)
                continue
            a, b = host(a.data), b.numpy()
            keep = EXACT_IN_TORCH & (C != -1) if i == 2 else EXACT_IN_TORCH
            np.testing.assert_allclose(a[keep], b[keep], rtol=1e-10, atol=1e-14, err_msg=f"{name} grad {i}")


@pytest.mark.parametrize("method", ["log_prob", "log_survival_function", "cdf", "icdf"])
def test_generalized_pareto_gradients_are_the_derivatives_at_c_0_and_c_minus_1(method):
    """At c = 0 torch's gradient in c is 0 and at c = -1 it is 1; the derivatives are z^2/2 - z and log(1 - z)
    for log_prob. Ours passes the float64 finite-difference check everywhere, those points included."""
    argument = np.linspace(0.05, 0.95, 7) if method == "icdf" else X
    for i in range(len(C)):
        if method != "icdf" and abs(C[i]) <= 1e-8 and C[i] != 0:
            continue   # (a finite difference of c across 0 straddles the series and the exact formula)
        params = [ag.tensor(v[i:i + 1], dtype=ag.float64, requires_grad=True) for v in (LOC, SCALE, C)]
        value = ag.tensor(argument[i:i + 1], dtype=ag.float64)
        assert gradcheck(lambda a, s, c: getattr(ag.distributions.GeneralizedPareto(a, s, c, validate_args=False),
                                                 method)(value), params, eps=1e-7, atol=1e-6, rtol=1e-5)
    (c,) = [ag.tensor([0.0, -1.0], dtype=ag.float64, requires_grad=True)]
    z = np.array([1.45, 0.4])
    log_prob = ag.distributions.GeneralizedPareto(0.0, 1.0, c).log_prob(ag.tensor(z, dtype=ag.float64))
    log_prob.sum().backward()
    np.testing.assert_allclose(host(c.grad.data), [z[0] ** 2 / 2 - z[0], math.log(1 - z[1])], rtol=1e-12)


def test_generalized_pareto_near_c_0_is_exact_against_mpmath():
    import mpmath
    mpmath.mp.dps = 40
    _, d = _gpd(ag)
    ours = host(d.log_prob(ag.tensor(X, dtype=ag.float64)).data)
    survival = host(d.log_survival_function(ag.tensor(X, dtype=ag.float64)).data)
    for i in np.flatnonzero(~EXACT_IN_TORCH & (C != 0)):
        c, z = mpmath.mpf(C[i]), mpmath.mpf(Z[i])
        np.testing.assert_allclose(ours[i], float(-mpmath.log(SCALE[i]) - (1 / c + 1) * mpmath.log1p(c * z)),
                                   rtol=1e-14)
        np.testing.assert_allclose(survival[i], float(-mpmath.log1p(c * z) / c), rtol=1e-14)


def test_generalized_pareto_samples_support_and_shapes():
    ag.manual_seed(3)
    d = ag.distributions.GeneralizedPareto(ag.tensor(0.5), ag.tensor([1.0, 2.0]), ag.tensor([-0.5, 0.2]))
    theirs = torch.distributions.GeneralizedPareto(torch.tensor(0.5), torch.tensor([1.0, 2.0]),
                                                   torch.tensor([-0.5, 0.2]))
    draws = d.sample((20_000,))
    assert tuple(draws.shape) == (20_000, 2) and draws.dtype == ag.float32 and d.has_rsample
    assert bool(d.support.check(draws).all())
    np.testing.assert_allclose(host(draws.data).mean(0), host(d.mean.data), rtol=0.03)
    assert (tuple(d.batch_shape), tuple(d.event_shape)) == (tuple(theirs.batch_shape), tuple(theirs.event_shape))
    numbers = ag.distributions.GeneralizedPareto(0.0, 1.0, 0.1)
    assert tuple(numbers.batch_shape) == () and numbers.loc.dtype == ag.float32
    assert repr(numbers).replace("0.10000000149011612", "0.1") == \
        repr(torch.distributions.GeneralizedPareto(0.0, 1.0, 0.1))   # (torch's default dtype is float64 here)


def test_a_generalized_pareto_rsample_gradient_is_its_mean_s_derivative():
    """d/d scale of E[X] = 1 / (1 - c): the average pathwise gradient of a large draw."""
    ag.manual_seed(5)
    scale = ag.tensor(2.0, dtype=ag.float64, requires_grad=True)
    ag.distributions.GeneralizedPareto(0.0, scale, 0.2).rsample((40_000,)).mean().backward()
    assert abs(scale.grad.item() - 1 / 0.8) < 0.05


def _logistic_normal(T):
    loc = T.tensor([[0.3, -1.0, 0.5], [0.0, 2.0, -0.2]], dtype=T.float64, requires_grad=True)
    scale = T.tensor([0.7, 1.5, 0.4], dtype=T.float64, requires_grad=True)
    d = T.distributions.LogisticNormal(loc, scale)
    y = T.tensor([[0.1, 0.2, 0.3, 0.4], [0.25, 0.5, 0.05, 0.2]], dtype=T.float64)
    log_prob = d.log_prob(y)
    grads = T.autograd.grad(log_prob.sum(), [loc, scale])
    one = T.distributions.LogisticNormal(T.tensor(0.3, dtype=T.float64), T.tensor(2.0, dtype=T.float64))
    return d, log_prob, grads, one, one.log_prob(T.tensor([0.4, 0.6], dtype=T.float64))


def test_logistic_normal_matches_torch():
    ours, theirs = _logistic_normal(ag), _logistic_normal(torch)
    for i in (0, 3):
        assert (tuple(ours[i].batch_shape), tuple(ours[i].event_shape)) == \
            (tuple(theirs[i].batch_shape), tuple(theirs[i].event_shape))
        assert repr(ours[i]) == repr(theirs[i]) and ours[i].has_rsample
        assert tuple(ours[i].rsample((5,)).shape) == tuple(theirs[i].rsample((5,)).shape)
        assert repr(ours[i].support) == repr(theirs[i].support)
    close(ours[1], theirs[1], rtol=1e-12)
    close(ours[4], theirs[4], rtol=1e-12)
    for a, b in zip(ours[2], theirs[2]):
        close(a, b, rtol=1e-12)
    close(ours[0].loc, theirs[0].loc)
    close(ours[0].scale, theirs[0].scale)
    draws = ours[0].sample((100,))
    np.testing.assert_allclose(host(draws.sum(-1).data), 1.0, rtol=1e-12)


def test_the_straight_through_sample_is_one_hot_and_passes_probs_gradient():
    ag.manual_seed(2)
    grads = []
    for T in (ag, torch):
        logits = T.tensor([[1.0, -0.5, 0.3], [0.0, 2.0, -1.0]], dtype=T.float64, requires_grad=True)
        d = T.distributions.OneHotCategoricalStraightThrough(logits=logits)
        assert d.has_rsample and type(d).__name__ == "OneHotCategoricalStraightThrough"
        draw = d.rsample((4,))
        assert tuple(draw.shape) == (4, 2, 3) and draw.requires_grad
        np.testing.assert_array_equal(np.sort(draw.detach().numpy(), -1)[..., ::-1][..., 0], 1.0)
        np.testing.assert_allclose(draw.detach().numpy().sum(-1), 1.0, rtol=1e-12)
        weights = T.tensor(np.arange(24.0).reshape(4, 2, 3), dtype=T.float64)
        grads.append(T.autograd.grad((draw * weights).sum(), [logits])[0])
    close(*grads, rtol=1e-12)   # (the draw's value drops out: d/dlogits of sum_w w * probs)
    assert isinstance(ag.distributions.OneHotCategoricalStraightThrough(ag.tensor([0.5, 0.5])),
                      ag.distributions.OneHotCategorical)


REFUSALS = [
    lambda T: T.distributions.GeneralizedPareto(T.tensor([0.0]), T.tensor([0.0]), T.tensor([0.1])),
    lambda T: T.distributions.GeneralizedPareto(T.tensor([float("nan")]), T.tensor([1.0]), T.tensor([0.1])),
    lambda T: T.distributions.GeneralizedPareto(T.tensor([0.0]), T.tensor([1.0]), T.tensor([float("nan")])),
    lambda T: T.distributions.GeneralizedPareto(T.tensor([0.0]), T.tensor([1.0]), T.tensor([0.1])).log_prob(
        T.tensor([-0.5])),
    lambda T: T.distributions.GeneralizedPareto(T.tensor([0.0]), T.tensor([1.0]), T.tensor([-0.5])).log_prob(
        T.tensor([2.5])),
    lambda T: T.distributions.LogisticNormal(T.tensor([0.0]), T.tensor([-1.0])),
    lambda T: T.distributions.LogisticNormal(T.tensor([0.0]), T.tensor([1.0])).log_prob(T.tensor([0.5, 0.6])),
    lambda T: T.distributions.OneHotCategoricalStraightThrough(T.tensor([0.5, -0.5])),
]


@pytest.mark.parametrize("call", REFUSALS, ids=range(len(REFUSALS)))
def test_refusals_are_torchs(call):
    both_raise(lambda: call(ag), lambda: call(torch))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("c", [1e-6, -3e-5, 2e-8, 1e-3, 0.2])
def test_generalized_pareto_gradient_in_c_is_right_near_c_0_in_each_dtype(dtype, c):
    """Where c z is small, log1p(c z) / c cancels (in float32 already at c = 1e-6): the series takes over below
    eps^(1/3), so the gradient in c keeps its digits (against mpmath's derivative)."""
    import mpmath
    mpmath.mp.dps = 40
    z = np.array([0.5, 1.0, 3.0])
    conc = ag.tensor(c, dtype=getattr(ag, dtype), requires_grad=True)
    d = ag.distributions.GeneralizedPareto(0.0, 1.0, conc)
    value = ag.tensor(z, dtype=getattr(ag, dtype))
    grads = [ag.autograd.grad(getattr(d, m)(value).sum(), [conc])[0].item()
             for m in ("log_prob", "log_survival_function")]

    def log_prob(cc, zz):
        return -(1 / cc + 1) * mpmath.log1p(cc * zz)

    def log_survival(cc, zz):
        return -mpmath.log1p(cc * zz) / cc
    exact = [float(sum(mpmath.diff(lambda cc: f(cc, mpmath.mpf(zz)), mpmath.mpf(c)) for zz in z))
             for f in (log_prob, log_survival)]
    np.testing.assert_allclose(grads, exact, rtol=2e-4 if dtype == "float32" else 1e-9)
