"""The simplex and Cholesky transforms, the structural transforms (``distributions/more_transforms.py``) and
``biject_to`` / ``transform_to`` (``constraint_registry.py``), side by side with torch 2.13: values, inverses,
log |det J| and their gradients, and densities pushed through them."""
import numpy as np
import pytest

import autogradlab as ag
from conftest import import_torch

torch = import_torch()
D, TD = ag.distributions, torch.distributions
_rng = np.random.default_rng(20261202)
X = _rng.standard_normal((3, 4))


def _close(ours, theirs, rtol=1e-12, atol=1e-13):
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol, atol=atol)


TRANSFORMS = {
    "stick-breaking": (lambda M, T: M.StickBreakingTransform(), X),
    "softmax": (lambda M, T: M.SoftmaxTransform(), X),
    "lower-cholesky": (lambda M, T: M.LowerCholeskyTransform(), _rng.standard_normal((2, 3, 3))),
    "reshape": (lambda M, T: M.ReshapeTransform((4,), (2, 2)), X),
    "independent exp": (lambda M, T: M.IndependentTransform(M.ExpTransform(), 1), X),
    "cdf of a normal": (lambda M, T: M.CumulativeDistributionTransform(
        M.Normal(T.tensor(0.3, dtype=T.float64), T.tensor(1.7, dtype=T.float64))), X),
}


class _TorchNames:
    """torch's transforms and distributions under one roof, as ag.distributions has them."""

    def __getattr__(self, name):
        return getattr(TD.transforms, name, None) or getattr(TD, name)


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_transform_values_inverses_and_log_det_match_torch(name):
    make, x = TRANSFORMS[name]
    results = []
    for T, M in ((ag, D), (torch, _TorchNames())):
        t = make(M, T)
        xs = T.tensor(x, requires_grad=True)
        y = t(xs)
        back = t.inv(y)
        try:
            log_det = t.log_abs_det_jacobian(xs, y)
        except NotImplementedError:
            log_det = None
        loss = y.sum() + (0 if log_det is None else log_det.sum()) + (back ** 2).sum()
        loss.backward()
        results.append((y, back, log_det, xs.grad, t.bijective))
    (y, back, log_det, grad, bijective), (ty, tback, tlog_det, tgrad, tbijective) = results
    _close(y, ty)
    _close(back, tback)
    assert (log_det is None) == (tlog_det is None) and bijective == tbijective
    if log_det is not None:
        _close(log_det, tlog_det)
    _close(grad, tgrad, rtol=1e-10, atol=1e-12)


def test_stick_breaking_shapes_and_inverse():
    t = D.StickBreakingTransform()
    y = t(ag.tensor(X))
    assert y.shape == (3, 5) and t.forward_shape((3, 4)) == (3, 5) and t.inverse_shape((3, 5)) == (3, 4)
    np.testing.assert_allclose(y.sum(-1).numpy(), 1.0, rtol=1e-12)
    np.testing.assert_allclose(t.inv(y).numpy(), X, rtol=1e-10, atol=1e-12)
    assert np.allclose(t(ag.zeros(4, dtype=ag.float64)).numpy(), 0.2)   # (x = 0: the uniform vector)


def test_a_logistic_normal_density_through_stick_breaking_is_torchs():
    loc, scale = _rng.standard_normal(3), _rng.uniform(0.5, 1.5, 3)
    value = _rng.dirichlet(np.ones(4), 5)
    ours = D.TransformedDistribution(D.Independent(D.Normal(ag.tensor(loc), ag.tensor(scale)), 1),
                                     D.StickBreakingTransform())
    theirs = TD.TransformedDistribution(TD.Independent(TD.Normal(torch.tensor(loc), torch.tensor(scale)), 1),
                                        TD.StickBreakingTransform())
    assert ours.event_shape == tuple(theirs.event_shape) == (4,)
    _close(ours.log_prob(ag.tensor(value)), theirs.log_prob(torch.tensor(value)), rtol=1e-10)


CONSTRAINTS = {
    "real": lambda C: C.real, "real_vector": lambda C: C.real_vector, "positive": lambda C: C.positive,
    "nonnegative": lambda C: C.nonnegative, "greater_than": lambda C: C.greater_than(1.5),
    "greater_than_eq": lambda C: C.greater_than_eq(-2.0), "less_than": lambda C: C.less_than(0.5),
    "interval": lambda C: C.interval(-2.0, 3.0), "half_open_interval": lambda C: C.half_open_interval(0.0, 4.0),
    "unit_interval": lambda C: C.unit_interval, "simplex": lambda C: C.simplex,
    "independent": lambda C: C.independent(C.positive, 1),
    "lower_cholesky": lambda C: C.lower_cholesky, "corr_cholesky": lambda C: C.corr_cholesky,
}


@pytest.mark.parametrize("name", sorted(CONSTRAINTS))
@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
def test_registries_give_torchs_transform(name, registry):
    x = _rng.standard_normal((2, 3, 3)) if name == "lower_cholesky" else _rng.standard_normal((2, 6)) \
        if name == "corr_cholesky" else X
    try:
        theirs = getattr(TD, registry)(CONSTRAINTS[name](TD.constraints))
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            getattr(D, registry)(CONSTRAINTS[name](D.constraints))
        return
    ours = getattr(D, registry)(CONSTRAINTS[name](D.constraints))
    xs, txs = ag.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    y, ty = ours(xs), theirs(txs)
    _close(y, ty)
    assert bool(CONSTRAINTS[name](D.constraints).check(y).all())
    _close(ours.inv(y), theirs.inv(ty), rtol=1e-9, atol=1e-11)
    if ours.bijective:
        _close(ours.log_abs_det_jacobian(xs, y), theirs.log_abs_det_jacobian(txs, ty))


def test_your_own_constraint_registers_and_an_integer_set_is_refused():
    class Odd(D.constraints.Constraint):
        def check(self, value):
            return value == value

    with pytest.raises(NotImplementedError, match="register"):
        D.biject_to(Odd())
    D.biject_to.register(Odd, lambda c: D.ExpTransform())
    assert isinstance(D.biject_to(Odd()), D.ExpTransform)
    with pytest.raises(NotImplementedError, match="integers"):
        D.transform_to(D.constraints.nonnegative_integer)
    with pytest.raises(TypeError):
        D.biject_to.register(int, lambda c: D.ExpTransform())


def test_lower_cholesky_constraint_checks_as_torch():
    for value in (np.tril(_rng.uniform(0.1, 1, (3, 3))), _rng.standard_normal((3, 3)),
                  np.tril(_rng.standard_normal((2, 3, 3)))):
        ours = D.constraints.lower_cholesky.check(ag.tensor(value)).numpy()
        theirs = TD.constraints.lower_cholesky.check(torch.tensor(value)).numpy()
        np.testing.assert_array_equal(ours, theirs)


def test_the_transforms_module_holds_every_transform_as_torchs_does():
    """``from torch.distributions.transforms import StickBreakingTransform`` ports: every transform of torch's
    module is in ours, the same objects as the package's names."""
    assert set(TD.transforms.__all__) <= set(D.transforms.__all__)
    for name in D.transforms.__all__:
        assert getattr(D.transforms, name) is getattr(D, name, getattr(D.transforms, name)), name
        assert hasattr(TD.transforms, name), name

