"""``LKJCholesky`` and ``CorrCholeskyTransform`` (``distributions/lkj.py``) side by side with torch 2.13 in float64:
log-densities and their gradients in the concentration, the transform both ways with its log |det J|, shapes,
``expand``, reprs and refusals. What does not lean on torch: the normaliser against the product of the rows'
ball integrals, log |det J| against a finite-difference Jacobian, and the draws against LKJ's marginals.

The draws are checked against the law, not against torch's sampler: torch 2.13 draws row i >= 2 of the factor
with a squared length ~ Beta(i - 1/2, ...) where the onion method has Beta(i/2, ...), so its correlations with
the third variable and later are too spread (dim=3, eta=1: variance 0.30 where LKJ has 1/4)."""
import math

import numpy as np
import pytest
from conftest import host, import_torch
from torch_compare import both_raise, close

import autogradlab as ag
from autogradlab.distributions import constraints
from autogradlab.distributions.lkj import CorrCholeskyTransform, LKJCholesky
from autogradlab.testing import gradcheck

torch = import_torch()
TD = torch.distributions
_rng = np.random.default_rng(20260611)

DIMS = (2, 3, 5)
ETAS = (0.5, 1.0, 3.7)


def _lkj(T):
    """``LKJCholesky`` of ``T`` (ours is not exported from ``autogradlab.distributions`` yet)."""
    return LKJCholesky if T is ag else T.distributions.LKJCholesky


def _corr(T):
    """``CorrCholeskyTransform`` of ``T``."""
    return CorrCholeskyTransform if T is ag else T.distributions.transforms.CorrCholeskyTransform


def _factors(dim, shape):
    """Cholesky factors of correlation matrices of ``shape`` + (dim, dim), float64, spread over the support."""
    x = torch.tensor(_rng.normal(scale=1.2, size=shape + (dim * (dim - 1) // 2,)))
    return TD.transforms.CorrCholeskyTransform()(x).numpy()


def _log_prob_and_grad(T, dim, concentration, value):
    eta = T.tensor(concentration, dtype=T.float64, requires_grad=True)
    log_prob = _lkj(T)(dim, eta).log_prob(T.tensor(value, dtype=T.float64))
    (grad,) = T.autograd.grad(log_prob.sum(), [eta])
    return log_prob, grad


# -- log_prob ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dim", DIMS)
@pytest.mark.parametrize("eta", ETAS)
def test_log_prob_and_its_gradient_in_the_concentration_match_torch(dim, eta):
    concentration = np.array([eta, 0.3 * eta, eta + 2.0])   # (a batch of 3)
    value = _factors(dim, (4, 3))                             # (4 draws of the batch)
    ours, theirs = _log_prob_and_grad(ag, dim, concentration, value), _log_prob_and_grad(torch, dim, concentration,
                                                                                         value)
    close(ours[0], theirs[0], rtol=1e-10, atol=1e-12)
    close(ours[1], theirs[1], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dim", DIMS)
def test_one_value_broadcasts_against_a_batch_of_concentrations_as_in_torch(dim):
    concentration, value = np.array([[0.5], [1.0], [3.7]]), _factors(dim, ())
    ours, theirs = _log_prob_and_grad(ag, dim, concentration, value), _log_prob_and_grad(torch, dim, concentration,
                                                                                         value)
    assert tuple(ours[0].shape) == (3, 1)
    close(ours[0], theirs[0], rtol=1e-10, atol=1e-12)
    close(ours[1], theirs[1], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dim", DIMS)
@pytest.mark.parametrize("eta", ETAS)
def test_log_prob_is_normalised_row_by_row(dim, eta):
    """At L = I every row's factor is 1, so log p(I) = -log Z, and Z is the product over rows i = 1..d-1 of
    the integral over the unit ball of R^i of (1 - |w|^2)^(eta - 1 + (d - 1 - i)/2):
    pi^(i/2) Gamma(eta + (d - 1 - i)/2) / Gamma(eta + (d - 1)/2)."""
    log_z = sum(i / 2 * math.log(math.pi) + math.lgamma(eta + (dim - 1 - i) / 2) - math.lgamma(eta + (dim - 1) / 2)
                for i in range(1, dim))
    got = LKJCholesky(dim, ag.tensor(eta, dtype=ag.float64)).log_prob(ag.eye(dim, dtype=ag.float64))
    assert got.item() == pytest.approx(-log_z, rel=1e-12, abs=1e-12)


def test_log_prob_of_a_2x2_factor_is_the_density_of_its_correlation():
    """dim=2: L = [[1, 0], [r, sqrt(1 - r^2)]] and p(r) = (1 - r^2)^(eta - 1) / B(1/2, eta), which integrates to
    1 over (-1, 1) (checked here by quadrature)."""
    r = np.linspace(-1, 1, 200_001)[1:-1]
    value = np.zeros((r.size, 2, 2))
    value[:, 0, 0], value[:, 1, 0], value[:, 1, 1] = 1.0, r, np.sqrt(1 - r ** 2)
    density = np.exp(host(LKJCholesky(2, ag.tensor(3.7, dtype=ag.float64)).log_prob(ag.tensor(value)).data))
    expected = (1 - r ** 2) ** 2.7 * math.gamma(4.2) / (math.sqrt(math.pi) * math.gamma(3.7))
    np.testing.assert_allclose(density, expected, rtol=1e-10)
    assert np.trapezoid(density, r) == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("dim", DIMS)
def test_log_prob_gradients_pass_finite_differences(dim):
    value = ag.tensor(_factors(dim, (2,)))
    eta = ag.tensor([0.7, 2.5], dtype=ag.float64, requires_grad=True)
    assert gradcheck(lambda c: LKJCholesky(dim, c).log_prob(value), [eta], eps=1e-7, atol=1e-7, rtol=1e-6)
    free = ag.tensor(_factors(dim, (2,)), requires_grad=True)   # (in the value too, its support not checked)
    assert gradcheck(lambda v: LKJCholesky(dim, ag.tensor(1.3, dtype=ag.float64), validate_args=False).log_prob(v),
                     [free], eps=1e-7, atol=1e-7, rtol=1e-6)


# -- CorrCholeskyTransform ---------------------------------------------------------------------------------

def _transform_all(T, x):
    x = T.tensor(x, requires_grad=True)
    t = _corr(T)()
    y = t(x)
    ladj = t.log_abs_det_jacobian(x, y)
    weights = T.tensor(np.linspace(0.5, 1.5, y.shape[-1] ** 2).reshape(y.shape[-2:]))
    grad_y, grad_ladj = T.autograd.grad((y * weights).sum(), [x], retain_graph=True)[0], \
        T.autograd.grad(ladj.sum(), [x], retain_graph=True)[0]
    back = t.inv(y.detach())
    return y, ladj, grad_y, grad_ladj, back


@pytest.mark.parametrize("dim", DIMS)
def test_corr_cholesky_transform_matches_torch_both_ways(dim):
    x = _rng.normal(scale=1.5, size=(3, 2, dim * (dim - 1) // 2))
    ours, theirs = _transform_all(ag, x), _transform_all(torch, x)
    for a, b in zip(ours, theirs):
        close(a, b, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(host(ours[-1].detach().data), x, rtol=1e-10, atol=1e-12)   # (the round trip)
    assert bool(constraints.corr_cholesky.check(ours[0].detach()).all())


@pytest.mark.parametrize("dim", DIMS)
def test_corr_cholesky_log_det_is_that_of_the_jacobian_onto_the_strictly_lower_entries(dim):
    n = dim * (dim - 1) // 2
    x, h = _rng.normal(size=n), 1e-6
    t, below = CorrCholeskyTransform(), np.tril(np.ones((dim, dim), dtype=bool), -1)

    def lower(v):
        return host(t(ag.tensor(v)).data)[below]

    jacobian = np.stack([(lower(x + h * e) - lower(x - h * e)) / (2 * h) for e in np.eye(n)], axis=1)
    x_t = ag.tensor(x)
    assert t.log_abs_det_jacobian(x_t, t(x_t)).item() == pytest.approx(np.linalg.slogdet(jacobian)[1], abs=1e-7)


def test_corr_cholesky_transform_shapes_and_attributes_are_torchs():
    ours, theirs = CorrCholeskyTransform(), TD.transforms.CorrCholeskyTransform()
    assert repr(ours) == repr(theirs) and ours.bijective and theirs.bijective
    assert repr(ours.domain) == repr(theirs.domain) and repr(ours.codomain) == repr(theirs.codomain)
    assert (ours.domain.event_dim, ours.codomain.event_dim) == (theirs.domain.event_dim, theirs.codomain.event_dim)
    assert repr(ours.inv.domain) == repr(theirs.inv.domain)
    for shape in [(6,), (4, 1), (2, 3, 10)]:
        assert tuple(ours.forward_shape(shape)) == tuple(theirs.forward_shape(torch.Size(shape)))
        assert tuple(ours.inverse_shape(ours.forward_shape(shape))) == shape
    y = ours(ag.zeros(7, 3, dtype=ag.float64))
    assert tuple(y.shape) == (7, 3, 3)
    np.testing.assert_array_equal(host(y.data), np.broadcast_to(np.eye(3), (7, 3, 3)))   # (x = 0: the identity)


@pytest.mark.parametrize("call", [lambda t, T: t.forward_shape((4,)), lambda t, T: t.forward_shape(()),
                                  lambda t, T: t.inverse_shape((3, 4)), lambda t, T: t.inverse_shape((3,))])
def test_corr_cholesky_transform_refuses_shapes_as_torch(call):
    both_raise(lambda: call(CorrCholeskyTransform(), ag), lambda: call(TD.transforms.CorrCholeskyTransform(), torch))


# -- sample --------------------------------------------------------------------------------------------------

def test_samples_have_torchs_shape_and_dtype_and_lie_in_the_support():
    ag.manual_seed(11)
    eta = ag.tensor([0.5, 1.0, 3.7], dtype=ag.float64, requires_grad=True)
    ours, theirs = LKJCholesky(4, eta), TD.LKJCholesky(4, torch.tensor([0.5, 1.0, 3.7], dtype=torch.float64))
    draws = ours.sample((500, 2))
    assert tuple(draws.shape) == tuple(theirs.sample((500, 2)).shape) == (500, 2, 3, 4, 4)
    assert draws.dtype == ag.float64 and not draws.requires_grad and not ours.has_rsample
    assert bool(constraints.corr_cholesky.check(draws).all())
    assert bool(ours.support.check(draws).all())
    np.testing.assert_array_equal(host(draws.data)[..., 0, :], np.broadcast_to([1.0, 0, 0, 0], (500, 2, 3, 4)))
    one = LKJCholesky(2).sample()
    assert tuple(one.shape) == (2, 2) and one.dtype == ag.float32 == ag.get_default_dtype()
    assert bool(constraints.corr_cholesky.check(one))
    for dim in (2, 3, 5):   # (small concentrations: rows near unit length, diagonals near 0)
        assert bool(constraints.corr_cholesky.check(LKJCholesky(dim, 0.05).sample((2000,))).all())


def test_samples_are_seeded_by_the_librarys_generator():
    ag.manual_seed(4)
    first = host(LKJCholesky(3, 2.0).sample((5,)).data)
    ag.manual_seed(4)
    np.testing.assert_array_equal(host(LKJCholesky(3, 2.0).sample((5,)).data), first)


@pytest.mark.parametrize("eta", ETAS)
def test_every_correlation_of_a_dim_3_draw_has_lkjs_marginal(eta):
    """Under LKJ(eta) in dim d every r_ij is Beta(a, a) on [-1, 1], a = eta - 1 + d/2: r^2 ~ Beta(1/2, a), so
    E r = 0, Var r = 1/(2a + 1) = 1/(2 eta + d - 1) and E r^4 = 3 / ((2a + 1)(2a + 3)). Each estimate from
    20,000 seeded draws is held to 4 standard errors."""
    ag.manual_seed(2026)
    dim, n = 3, 20_000
    L = host(LKJCholesky(dim, ag.tensor(eta, dtype=ag.float64)).sample((n,)).data)
    corr = L @ np.swapaxes(L, -1, -2)
    a = eta - 1 + dim / 2
    var, fourth = 1 / (2 * a + 1), 3 / ((2 * a + 1) * (2 * a + 3))
    assert var == pytest.approx(1 / (2 * eta + dim - 1))
    np.testing.assert_allclose(np.diagonal(corr, 0, -2, -1), 1.0, rtol=1e-12)
    for i, j in [(0, 1), (0, 2), (1, 2)]:
        r = corr[:, i, j]
        assert abs(r.mean()) < 4 * math.sqrt(var / n), (i, j)
        assert abs((r ** 2).mean() - var) < 4 * math.sqrt((fourth - var ** 2) / n), (i, j, (r ** 2).mean(), var)


def test_a_batch_of_concentrations_draws_each_from_its_own_law():
    ag.manual_seed(7)
    etas = np.array([0.5, 8.0])
    L = host(LKJCholesky(3, ag.tensor(etas, dtype=ag.float64)).sample((20_000,)).data)
    r = (L @ np.swapaxes(L, -1, -2))[..., 2, 1]
    var = 1 / (2 * etas + 2)
    np.testing.assert_allclose((r ** 2).mean(0), var, rtol=0.05)


# -- expand, repr, refusals ----------------------------------------------------------------------------------

def test_expand_matches_torch_and_sends_gradients_to_the_original():
    value = _factors(3, (4, 2))

    def run(T):
        eta = T.tensor([1.5, 0.4], dtype=T.float64, requires_grad=True)
        big = _lkj(T)(3, eta).expand((4, 2))
        log_prob = big.log_prob(T.tensor(value))
        (grad,) = T.autograd.grad(log_prob.sum(), [eta])
        return big, log_prob, grad

    (big, log_prob, grad), (tbig, tlog_prob, tgrad) = run(ag), run(torch)
    assert (tuple(big.batch_shape), tuple(big.event_shape)) == (tuple(tbig.batch_shape), tuple(tbig.event_shape))
    assert tuple(big.concentration.shape) == (4, 2) and big.dim == 3
    close(log_prob, tlog_prob, rtol=1e-10, atol=1e-12)
    close(grad, tgrad, rtol=1e-10, atol=1e-12)
    assert tuple(big.sample((5,)).shape) == (5, 4, 2, 3, 3)
    scalar = LKJCholesky(2, 2.0).expand((3,))
    assert tuple(scalar.batch_shape) == (3,) and tuple(scalar.sample().shape) == (3, 2, 2)
    with pytest.raises(ValueError):   # (the expanded copy keeps the checks)
        scalar.log_prob(ag.eye(2) * 2)


def test_repr_shapes_and_constraints_are_torchs():
    for make in (lambda T: _lkj(T)(3, 2.0), lambda T: _lkj(T)(4),
                 lambda T: _lkj(T)(2, T.tensor(0.5))):
        ours, theirs = make(ag), make(torch)
        assert repr(ours) == repr(theirs)
        assert (tuple(ours.batch_shape), tuple(ours.event_shape)) == (tuple(theirs.batch_shape),
                                                                      tuple(theirs.event_shape))
        assert ours.concentration.dtype == ag.float32 and ours.has_rsample is theirs.has_rsample is False
    ours, theirs = LKJCholesky(3, ag.tensor([1.0, 2.0])), TD.LKJCholesky(3, torch.tensor([1.0, 2.0]))
    assert repr(ours) == repr(theirs).replace("torch.Size([2])", "(2,)")   # (shapes print as tuples here)
    assert {k: repr(v) for k, v in ours.arg_constraints.items()} == {k: repr(v) for k, v in
                                                                   theirs.arg_constraints.items()}
    assert repr(ours.support) == repr(theirs.support) and ours.support.event_dim == theirs.support.event_dim == 2


_NOT_A_FACTOR = {
    "upper triangular": np.array([[1.0, 0.0, 0.0], [0.0, 0.6, 0.8], [0.0, 0.0, 1.0]]),
    "a row longer than 1": np.array([[1.0, 0.0, 0.0], [0.6, 0.9, 0.0], [0.0, 0.0, 1.0]]),
    "a negative diagonal": np.array([[1.0, 0.0, 0.0], [0.6, -0.8, 0.0], [0.0, 0.0, 1.0]]),
    "NaN": np.array([[1.0, 0.0, 0.0], [np.nan, 0.8, 0.0], [0.0, 0.0, 1.0]]),
}


@pytest.mark.parametrize("call", [
    lambda T: _lkj(T)(1, 1.0),
    lambda T: _lkj(T)(0),
    lambda T: _lkj(T)(3, 0.0),
    lambda T: _lkj(T)(3, T.tensor([1.0, -0.5])),
    lambda T: _lkj(T)(3, T.tensor(float("nan"))),
    lambda T: _lkj(T)(3, 1.0).rsample(),
    lambda T: _lkj(T)(3, 1.0).mean,
    lambda T: _lkj(T)(3, 1.0).log_prob(T.eye(2)),
    *[(lambda v: lambda T: _lkj(T)(3, 1.0).log_prob(T.tensor(v, dtype=T.float32)))(v)
      for v in _NOT_A_FACTOR.values()],
], ids=["dim=1", "dim=0", "concentration=0", "concentration<0", "concentration=nan", "rsample", "mean",
        "2x2 value for dim=3", *_NOT_A_FACTOR])
def test_refusals_are_torchs(call):
    both_raise(lambda: call(ag), lambda: call(torch))


def test_the_checks_can_be_turned_off_as_in_torch():
    value = _NOT_A_FACTOR["a row longer than 1"]

    def run(T):
        return _lkj(T)(3, T.tensor(2.0, dtype=T.float64), validate_args=False).log_prob(
            T.tensor(value))

    close(run(ag), run(torch), rtol=1e-12)
    with pytest.raises(ValueError, match="CorrCholesky"):
        LKJCholesky(3, ag.tensor(2.0, dtype=ag.float64)).log_prob(ag.tensor(value))
    with pytest.raises(ValueError, match="Expected dim to be an integer greater than or equal to 2. Found dim=1."):
        LKJCholesky(1)
