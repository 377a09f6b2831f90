"""``CatTransform``, ``StackTransform`` (``distributions/joined_transforms.py``), ``PositiveDefiniteTransform``
and the ``cat`` / ``stack`` constraints side by side with torch 2.13: the maps, their inverses, log |det J| (joined
or summed by torch's rule), gradients, domains and codomains, the registries' transforms, and the refusals."""
import numpy as np
import pytest
from conftest import host, import_torch
from torch_compare import both_raise, close

import autogradlab as ag

torch = import_torch()
_rng = np.random.default_rng(20261129)


def _cat_programs(T):
    TT, C = T.distributions.transforms, T.distributions.constraints
    return {
        "cat dim 0": (TT.CatTransform([TT.ExpTransform(), TT.identity_transform, TT.AffineTransform(1.0, -2.0)],
                                      dim=0, lengths=[2, 1, 3]), (6, 4)),
        "cat dim -1": (TT.CatTransform([TT.SigmoidTransform(), TT.ExpTransform()], dim=-1, lengths=[3, 2]), (4, 5)),
        "cat with event transforms": (TT.CatTransform([TT.IndependentTransform(TT.ExpTransform(), 1),
                                                       TT.IndependentTransform(TT.SigmoidTransform(), 1)], dim=-1,
                                                      lengths=[3, 2]), (4, 5)),
        "cat over a batch dim of events": (TT.CatTransform([TT.StickBreakingTransform(), TT.StickBreakingTransform()],
                                                           dim=0, lengths=[1, 2]), (3, 4)),
        "stack dim 1": (TT.StackTransform([TT.ExpTransform(), TT.TanhTransform(), TT.identity_transform], dim=1),
                        (4, 3)),
        "stack of events": (TT.StackTransform([TT.StickBreakingTransform(), TT.StickBreakingTransform()], dim=0),
                            (2, 5, 3)),
        "registry cat": (T.distributions.biject_to(C.cat([C.real, C.positive, C.interval(-1.0, 2.0)], -1,
                                                         [2, 2, 1])), (3, 5)),
        "registry stack": (T.distributions.transform_to(C.stack([C.positive, C.unit_interval], 0)), (2, 4)),
    }


@pytest.mark.parametrize("name", sorted(_cat_programs(ag)))
def test_joined_transforms_match_torch(name):
    (ours, shape), (theirs, _) = _cat_programs(ag)[name], _cat_programs(torch)[name]
    x = _rng.standard_normal(shape) * 0.7
    outs = []
    for T, t in ((ag, ours), (torch, theirs)):
        xs = T.tensor(x, dtype=T.float64, requires_grad=True)
        y = t(xs)
        back = t.inv(y.detach())
        log_det = t.log_abs_det_jacobian(xs, y) if t.bijective else T.zeros(())
        (grad,) = T.autograd.grad(y.sum() + log_det.sum(), [xs])
        checks = [t.codomain.check(y.detach()), t.domain.check(xs.detach())]
        outs.append([y, back, log_det, grad] + checks)
        assert (t.domain.event_dim, t.codomain.event_dim, t.bijective) == \
            (theirs.domain.event_dim, theirs.codomain.event_dim, theirs.bijective)
    for a, b in zip(*outs):
        close(a, b, rtol=1e-10, atol=1e-12)


def test_positive_definite_transform_matches_torch_and_lands_in_its_codomain():
    x = _rng.standard_normal((3, 4, 4))
    outs = []
    for T in (ag, torch):
        t = T.distributions.transform_to(T.distributions.constraints.positive_definite)
        xs = T.tensor(x, requires_grad=True)
        y = t(xs)
        assert bool(t.codomain.check(y.detach()).all())
        (grad,) = T.autograd.grad((y * y).sum(), [xs])
        outs.append([y, t.inv(y.detach()), grad])
        assert repr(t) == "PositiveDefiniteTransform()"
    for a, b in zip(*outs):
        close(a, b, rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(host(outs[0][1].data), np.tril(x, -1) + np.tril(np.triu(x)), rtol=1e-9, atol=1e-10)


def test_cat_and_stack_constraints_check_as_torchs():
    value = np.array([[0.5, -1.0, 2.0, 0.3], [-0.2, 3.0, -4.0, 0.9]])
    for build in (lambda C: C.cat([C.positive, C.real, C.unit_interval], -1, [1, 2, 1]),
                  lambda C: C.stack([C.positive, C.unit_interval], 0),
                  lambda C: C.cat([C.simplex, C.real_vector], 0, [1, 1]),
                  lambda C: C.stack([C.nonnegative_integer, C.real], 0)):
        ours, theirs = build(ag.distributions.constraints), build(torch.distributions.constraints)
        assert (ours.event_dim, ours.is_discrete) == (theirs.event_dim, theirs.is_discrete)
        np.testing.assert_array_equal(ours.check(ag.tensor(value)).numpy(), theirs.check(torch.tensor(value)).numpy())


def test_joined_transforms_are_equal_only_to_themselves_and_cache():
    TT = ag.distributions.transforms
    a = TT.CatTransform([TT.ExpTransform()], lengths=[2])
    assert a == a and a != TT.CatTransform([TT.ExpTransform()], lengths=[2])
    cached = TT.StackTransform([TT.TanhTransform(), TT.TanhTransform()], dim=0, cache_size=1)
    x = ag.tensor([[10.0], [0.5]], dtype=ag.float64)
    assert cached.inv(cached(x)) is not None and np.allclose(cached.inv(cached(x)).numpy()[0], 10.0)


REFUSALS = [
    lambda T: T.distributions.transforms.CatTransform([T.distributions.transforms.ExpTransform()], lengths=[1, 2]),
    lambda T: T.distributions.transforms.CatTransform([T.distributions.transforms.ExpTransform()], lengths=[2])(
        T.ones(3)),
    lambda T: T.distributions.transforms.StackTransform([T.distributions.transforms.ExpTransform()], dim=0)(
        T.ones(2, 3)),
    lambda T: T.distributions.transforms.StackTransform([T.distributions.transforms.ExpTransform()], dim=3)(
        T.ones(1, 3)),
    lambda T: T.distributions.transforms.CatTransform([1.0]),
    lambda T: T.distributions.constraints.cat([T.distributions.constraints.real], 0, [1, 1]),
    lambda T: T.distributions.biject_to(T.distributions.constraints.positive_definite),
]


@pytest.mark.parametrize("call", REFUSALS, ids=range(len(REFUSALS)))
def test_refusals_are_torchs(call):
    both_raise(lambda: call(ag), lambda: call(torch))


def test_parts_of_different_event_dims_sum_their_log_dets_as_torch():
    """An elementwise part beside an event part: its log |det J| is summed over the event first, then the parts
    are added (``dim`` lies inside the event)."""
    x = _rng.standard_normal((4, 5))
    outs = []
    for T in (ag, torch):
        TT = T.distributions.transforms
        t = TT.CatTransform([TT.IndependentTransform(TT.ExpTransform(), 1), TT.TanhTransform()], dim=-1,
                            lengths=[3, 2])
        xs = T.tensor(x, requires_grad=True)
        y = t(xs)
        log_det = t.log_abs_det_jacobian(xs, y)
        outs.append([y, log_det, T.autograd.grad(log_det.sum(), [xs])[0]])
    assert tuple(outs[0][1].shape) == (4,)
    for a, b in zip(*outs):
        close(a, b, rtol=1e-10, atol=1e-12)
