"""Distances and the losses built on them, run in both libraries on the same data: ``F.normalize``,
``F.cosine_similarity``, ``F.pairwise_distance`` and the losses ``kl_div``, ``margin_ranking_loss``,
``hinge_embedding_loss``, ``cosine_embedding_loss``, ``triplet_margin_loss`` (values and the gradient of every
differentiable input, float64 to 1e-10 and float32, over shapes, dims, broadcasting, p and every reduction), their
edge cases (zero vectors, norms below eps, ties at the hinge), second derivatives, finite differences, the
errors torch raises, the warnings it gives, and the modules (outputs and reprs)."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from conftest import import_torch
from torch_compare import both_raise, close, pair

import autogradlab as ag
import autogradlab.nn as nn
import autogradlab.nn.functional as F
from autogradlab.testing import gradcheck, gradgradcheck

# (NumPy's warnings where torch, too, gives NaN: an empty mean, 0/0 in the gradient of t*log t at t = 0)
pytestmark = pytest.mark.filterwarnings("ignore:Mean of empty slice:RuntimeWarning",
                                        "ignore:invalid value encountered:RuntimeWarning")

torch = import_torch()
TF = torch.nn.functional

TOL = {"float64": {"rtol": 1e-10, "atol": 1e-12}, "float32": {"rtol": 2e-5, "atol": 2e-6}}
REDUCTIONS = ["none", "sum", "mean"]
INF = math.inf


def _data(shape, seed, dtype="float64", scale=1.0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * scale).astype(dtype)


def _signs(shape, seed, dtype="float64"):
    return np.where(np.random.default_rng(seed).random(shape) < 0.5, -1.0, 1.0).astype(dtype)


def _run_both(ours, theirs, arrays, dtype, grads=None, seed=99, tol=None):
    """``ours(*ag tensors)`` and ``theirs(*torch tensors)`` on ``arrays``: same values; then the same gradient of
    each input listed in ``grads`` (indices; all by default) for a random upstream gradient."""
    grads = range(len(arrays)) if grads is None else grads
    pairs = [pair(a, requires_grad=i in grads) for i, a in enumerate(arrays)]
    y = ours(*(p[0] for p in pairs))
    ty = theirs(*(p[1] for p in pairs))
    close(y, ty, **TOL[dtype])
    if not grads:
        return y, ty
    g = _data(tuple(ty.shape), seed, dtype)
    y.backward(ag.tensor(g))
    ty.backward(torch.tensor(g))
    for i in grads:
        ours_grad, theirs_grad = pairs[i][0].grad, pairs[i][1].grad
        assert (ours_grad is None) == (theirs_grad is None)
        if theirs_grad is not None:
            close(ours_grad, theirs_grad, **(tol or TOL[dtype]))
    return y, ty


def _second_derivatives_match(ours, theirs, arrays):
    """d/dx of |dy/dx . g|^2 (a second derivative), float64, in both libraries."""
    pairs = [pair(a, requires_grad=True) for a in arrays]
    xs, txs = [p[0] for p in pairs], [p[1] for p in pairs]
    y, ty = ours(*xs), theirs(*txs)
    g = _data(tuple(ty.shape), 5)
    gs = ag.autograd.grad((y * ag.tensor(g)).sum(), xs, create_graph=True)
    tgs = torch.autograd.grad((ty * torch.tensor(g)).sum(), txs, create_graph=True)
    hs = ag.autograd.grad(sum((gx * gx).sum() for gx in gs), xs)
    ths = torch.autograd.grad(sum((tgx * tgx).sum() for tgx in tgs), txs)
    for h, th in zip(hs, ths):   # (absolute error in units of the largest entry: they reach 1e8 with tiny norms,
        # and an entry near 0 then carries that entry's rounding, which moves with the BLAS kernels)
        close(h, th, rtol=1e-9, atol=max(1e-10, 1e-14 * float(np.abs(th.numpy()).max())))


# -- F.normalize --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape, dim", [((3, 4), 1), ((3, 4), -1), ((3, 4), 0), ((2, 3, 4), (1, 2)), ((5,), 0),
                                        ((), 0), ((2, 3, 4), -2)])
@pytest.mark.parametrize("p", [2.0, 1, INF, -INF, 3.0, 0.5, 0])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_normalize_values_and_gradients_match_torch(shape, dim, p, dtype):
    x = _data(shape, 1, dtype)
    _run_both(lambda x: F.normalize(x, p, dim), lambda x: TF.normalize(x, p, dim), [x], dtype)


@pytest.mark.parametrize("p", [2.0, 1, INF, 3.0, 0.5, -1.0])
def test_normalize_of_zero_and_tiny_rows_divides_by_eps_like_torch(p):
    x = _data((4, 3), 2)
    x[0] = 0.0          # a zero row stays zero, with a finite gradient
    x[1] = [1e-14, -2e-14, 0.0]   # a norm below eps: divided by eps
    x[2, 1] = 0.0       # one zero entry: |0|^(p-1) is not taken
    _, ty = _run_both(lambda x: F.normalize(x, p), lambda x: TF.normalize(x, p), [x], "float64")
    assert not ty.detach()[0].any()


@pytest.mark.parametrize("eps", [1e-12, 0.5, 10.0])
def test_normalize_eps_matches_torch(eps):
    x = _data((3, 5), 3)
    _run_both(lambda x: F.normalize(x, dim=-1, eps=eps), lambda x: TF.normalize(x, dim=-1, eps=eps), [x], "float64")


def test_normalize_into_out_matches_torch_and_refuses_a_graph():
    x, tx = pair(_data((3, 4), 4))
    out, tout = pair(np.zeros((3, 4)))
    assert F.normalize(x, out=out) is out
    TF.normalize(tx, out=tout)
    close(out, tout, **TOL["float64"])
    xg, txg = pair(_data((3, 4), 4), requires_grad=True)
    before = out.detach().numpy().copy()
    both_raise(lambda: F.normalize(xg, out=out), lambda: TF.normalize(txg, out=tout))
    np.testing.assert_array_equal(out.detach().numpy(), before)   # nothing written before the error


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.nn.functional.normalize(x, dim=2),                 # dim out of range
    lambda lib, x: lib.nn.functional.normalize(x.to(lib.int64)),          # integers
])
def test_normalize_errors_match_torch(call):
    x, tx = pair(_data((3, 4), 5))
    both_raise(lambda: call(ag, x), lambda: call(torch, tx))


def test_normalize_gradients_pass_finite_differences():
    x = ag.tensor(_data((3, 4), 6), requires_grad=True)
    assert gradcheck(lambda x: F.normalize(x), (x,))
    assert gradcheck(lambda x: F.normalize(x, p=3.0, dim=0), (x,))
    assert gradgradcheck(lambda x: F.normalize(x), (x,))
    _second_derivatives_match(lambda x: F.normalize(x), lambda x: TF.normalize(x), [_data((3, 4), 6)])


# -- F.cosine_similarity ------------------------------------------------------------------------------------

@pytest.mark.parametrize("s1, s2, dim", [((3, 4), (3, 4), 1), ((3, 4), (4,), 1), ((3, 4), (4,), -1),
                                         ((3, 1, 4), (5, 4), 2), ((3, 1, 4), (5, 4), 0), ((4,), (4,), 0),
                                         ((2, 3, 4), (2, 3, 4), 0), ((), (), 0), ((0, 4), (0, 4), 1),
                                         ((3, 0), (3, 0), 1)])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_cosine_similarity_values_and_gradients_match_torch(s1, s2, dim, dtype):
    # (0-d: the gradient is exactly 0, torch's float32 leaves a rounding residue of 1e-5: float64 checks it)
    grads = [] if s1 == () and dtype == "float32" else None
    _run_both(lambda a, b: F.cosine_similarity(a, b, dim), lambda a, b: TF.cosine_similarity(a, b, dim),
              [_data(s1, 7, dtype), _data(s2, 8, dtype)], dtype, grads=grads)


@pytest.mark.parametrize("eps", [1e-8, 1e-3, 0.5])
def test_cosine_similarity_of_zero_and_tiny_vectors_matches_torch(eps):
    # the norms are clamped to eps in value only: the gradient still flows through them, as in torch
    a, b = _data((4, 3), 9), _data((4, 3), 10)
    a[0] = 0.0
    a[1] = [1e-9, 2e-9, 0.0]
    b[2] = 0.0
    b[3] = a[3] * 1e-4
    _run_both(lambda a, b: F.cosine_similarity(a, b, eps=eps), lambda a, b: TF.cosine_similarity(a, b, eps=eps),
              [a, b], "float64")
    # second derivatives with norms below eps (not at 0 exactly, where the norm's second derivative is NaN)
    a[0], b[2] = a[1] * 0.5, a[1] * -3.0
    _second_derivatives_match(lambda a, b: F.cosine_similarity(a, b, eps=eps),
                              lambda a, b: TF.cosine_similarity(a, b, eps=eps), [a, b])


def test_cosine_similarity_of_zero_vectors_with_eps_zero_is_nan_like_torch():
    y, ty = _run_both(lambda a, b: F.cosine_similarity(a, b, eps=0.0),
                      lambda a, b: TF.cosine_similarity(a, b, eps=0.0), [np.zeros((2, 3)), np.zeros((2, 3))],
                      "float64", grads=[])
    assert np.isnan(y.detach().numpy()).all()


def test_cosine_similarity_of_mixed_dtypes_matches_torch():
    a, ta = pair(_data((3, 4), 11, "float32"))
    b, tb = pair(_data((3, 4), 12))
    close(F.cosine_similarity(a, b), TF.cosine_similarity(ta, tb), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("s1, s2, kw", [((3, 4), (3, 5), {}), ((3, 4), (3, 4), {"dim": 2}),
                                        ((4,), (4,), {}), ((3, 4), (3, 4), {"dim": -3})])
def test_cosine_similarity_errors_match_torch(s1, s2, kw):
    a, ta = pair(_data(s1, 13))
    b, tb = pair(_data(s2, 14))
    both_raise(lambda: F.cosine_similarity(a, b, **kw), lambda: TF.cosine_similarity(ta, tb, **kw))


def test_cosine_similarity_of_integers_raises_like_torch():
    a, ta = pair(np.arange(6).reshape(2, 3))
    both_raise(lambda: F.cosine_similarity(a, a), lambda: TF.cosine_similarity(ta, ta))
    with pytest.raises(RuntimeError, match="floating point.*to\\(autogradlab.float32\\)"):
        F.cosine_similarity(a, a)


def test_cosine_similarity_gradients_pass_finite_differences():
    a = ag.tensor(_data((3, 4), 15), requires_grad=True)
    b = ag.tensor(_data((4,), 16), requires_grad=True)
    assert gradcheck(lambda a, b: F.cosine_similarity(a, b), (a, b))
    assert gradgradcheck(lambda a, b: F.cosine_similarity(a, b), (a, b))


# -- F.pairwise_distance ------------------------------------------------------------------------------------

PAIRWISE_SHAPES = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 3, 4), (2, 1, 4)), ((4,), (4,)), ((), ()), ((1,), ()),
                   ((0, 4), (0, 4)), ((3, 0), (3, 0))]


@pytest.mark.parametrize("s1, s2, p", [(s1, s2, p) for s1, s2 in PAIRWISE_SHAPES
                                       for p in (2.0, 1.0, INF, -INF, 3.0, 1.5, -1.0)
                                       if not (0 in s1[-1:] and (p < 0 or p == INF))])   # (errors: tested below)
@pytest.mark.parametrize("keepdim", [False, True])
def test_pairwise_distance_values_and_gradients_match_torch(s1, s2, p, keepdim):
    for dtype in ("float64", "float32"):
        _run_both(lambda a, b: F.pairwise_distance(a, b, p, keepdim=keepdim),
                  lambda a, b: TF.pairwise_distance(a, b, p, keepdim=keepdim),
                  [_data(s1, 17, dtype), _data(s2, 18, dtype)], dtype)


def test_pairwise_distance_with_p_0_counts_like_torch():
    a, b = _data((3, 4), 19), _data((3, 4), 20)
    b[0] = a[0] + 1e-6          # x1 - x2 + eps is exactly... not quite 0: counted as torch counts
    b[1, :2] = a[1, :2]
    _run_both(lambda a, b: F.pairwise_distance(a, b, 0), lambda a, b: TF.pairwise_distance(a, b, 0), [a, b],
              "float64", grads=[])


@pytest.mark.parametrize("eps", [0.0, 1e-6, 0.3])
@pytest.mark.parametrize("p", [2.0, 1.0, 3.0])
def test_pairwise_distance_between_equal_vectors_matches_torch(eps, p):
    # eps moves the difference off 0, where the norm has its kink; with eps = 0 the gradient is torch's 0
    a = _data((3, 4), 21)
    _run_both(lambda a, b: F.pairwise_distance(a, b, p, eps), lambda a, b: TF.pairwise_distance(a, b, p, eps),
              [a, a.copy()], "float64")


@pytest.mark.parametrize("s1, s2, p", [((3, 4), (3, 5), 2.0), ((3, 4), (2, 4), 1.0), ((3, 0), (3, 0), INF),
                                      ((3, 0), (3, 0), -INF), ((3, 0), (3, 0), -1.0)])
def test_pairwise_distance_errors_match_torch(s1, s2, p):
    a, ta = pair(_data(s1, 22))
    b, tb = pair(_data(s2, 23))
    both_raise(lambda: F.pairwise_distance(a, b, p), lambda: TF.pairwise_distance(ta, tb, p))


def test_pairwise_distance_shape_error_names_both_shapes():
    with pytest.raises(RuntimeError, match=r"shapes \(3, 4\), \(3, 5\) do not broadcast"):
        F.pairwise_distance(ag.ones(3, 4), ag.ones(3, 5))


def test_pairwise_distance_gradients_pass_finite_differences():
    a = ag.tensor(_data((3, 4), 24), requires_grad=True)
    b = ag.tensor(_data((3, 4), 25), requires_grad=True)
    for p in (2.0, 1.0, 3.0, INF):
        assert gradcheck(lambda a, b: F.pairwise_distance(a, b, p), (a, b))
    for p in (2.0, 3.0):
        assert gradgradcheck(lambda a, b: F.pairwise_distance(a, b, p), (a, b))
    _second_derivatives_match(lambda a, b: F.pairwise_distance(a, b, 3.0),
                              lambda a, b: TF.pairwise_distance(a, b, 3.0), [_data((3, 4), 24), _data((3, 4), 25)])


# -- F.kl_div -----------------------------------------------------------------------------------------------

def _log_probs(shape, seed, dtype="float64"):
    x = _data(shape, seed)
    return (x - np.log(np.exp(x).sum(-1, keepdims=True))).astype(dtype)


@pytest.mark.parametrize("reduction", ["none", "sum", "batchmean", "mean"])
@pytest.mark.parametrize("log_target", [False, True])
@pytest.mark.parametrize("s1, s2", [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 3, 4), (2, 3, 4)), ((5,), (5,)),
                                    ((), ())])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_kl_div_values_and_gradients_match_torch(reduction, log_target, s1, s2, dtype):
    x = _log_probs(s1, 26, dtype) if s1 else np.asarray(-0.7, dtype)
    t = _log_probs(s2, 27, dtype) if s2 else np.asarray(-1.2, dtype)
    t = t if log_target else np.exp(t)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)   # (reduction='mean': tested below)
        _run_both(lambda x, t: F.kl_div(x, t, reduction=reduction, log_target=log_target),
                  lambda x, t: TF.kl_div(x, t, reduction=reduction, log_target=log_target), [x, t], dtype)


def test_kl_div_takes_0_log_0_as_0_like_torch():
    # the value is 0 where the target is 0; the target's gradient there is torch's NaN (d/dt t*log t = log 0 + 1)
    x = _log_probs((2, 4), 28)
    t = np.array([[0.0, 0.5, 0.5, 0.0], [0.25, 0.25, 0.25, 0.25]])
    y, _ = _run_both(lambda x, t: F.kl_div(x, t, reduction="none"), lambda x, t: TF.kl_div(x, t, reduction="none"),
                     [x, t], "float64")
    assert y.detach().numpy()[0, 0] == 0.0


def test_kl_div_of_a_negative_target_is_nan_like_torch():
    y, _ = _run_both(lambda x, t: F.kl_div(x, t, reduction="none"), lambda x, t: TF.kl_div(x, t, reduction="none"),
                     [np.array([-1.0, -2.0]), np.array([-0.5, 0.5])], "float64", grads=[0])
    assert np.isnan(y.detach().numpy()[0])


def test_kl_div_mean_warns_as_torch_does_and_batchmean_does_not():
    x, tx = pair(_log_probs((3, 4), 29))
    t, tt = pair(np.exp(_log_probs((3, 4), 30)))
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size") as theirs:
        TF.kl_div(tx, tt)
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size") as ours:
        F.kl_div(x, t)
    assert str(ours[0].message).split(".")[0] == str(theirs[0].message).split(".")[0]
    assert ours[0].filename == __file__   # (pointing at the caller)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        close(F.kl_div(x, t, reduction="batchmean"), TF.kl_div(tx, tt, reduction="batchmean"), **TOL["float64"])


@pytest.mark.parametrize("size_average, reduce", [(False, None), (None, False), (True, True), (False, True)])
@pytest.mark.parametrize("reduction", ["mean", "batchmean"])
def test_kl_div_legacy_arguments_match_torch(size_average, reduce, reduction):
    x, tx = pair(_log_probs((3, 4), 31))
    t, tt = pair(np.exp(_log_probs((3, 4), 32)))
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        theirs = TF.kl_div(tx, tt, size_average, reduce, reduction)
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        ours = F.kl_div(x, t, size_average, reduce, reduction)
    close(ours, theirs, **TOL["float64"])


def test_kl_div_batchmean_of_an_empty_batch_is_nan_like_torch():
    y, _ = _run_both(lambda x, t: F.kl_div(x, t, reduction="batchmean"),
                     lambda x, t: TF.kl_div(x, t, reduction="batchmean"), [np.zeros((0, 3)), np.zeros((0, 3))],
                     "float64", grads=[])
    assert np.isnan(y.detach().numpy())


@pytest.mark.parametrize("call", [
    lambda lib, x, t: lib.nn.functional.kl_div(x, t, reduction="avg"),
    lambda lib, x, t: lib.nn.functional.kl_div(x, t, reduction=None),
    lambda lib, x, t: lib.nn.functional.kl_div(x, t[:, :2], reduction="sum"),
    lambda lib, x, t: lib.nn.functional.kl_div(x.to(lib.int64), t.to(lib.int64), reduction="sum"),
])
def test_kl_div_errors_match_torch(call):
    x, tx = pair(_log_probs((3, 4), 33))
    t, tt = pair(np.exp(_log_probs((3, 4), 34)))
    both_raise(lambda: call(ag, x, t), lambda: call(torch, tx, tt))


def test_kl_div_bad_reduction_message_lists_the_choices():
    with pytest.raises(ValueError, match="avg is not a valid value for reduction.*'batchmean'"):
        F.kl_div(ag.zeros(2, 3), ag.ones(2, 3), reduction="avg")


def test_kl_div_gradients_pass_finite_differences():
    x = ag.tensor(_log_probs((3, 4), 35), requires_grad=True)
    t = ag.tensor(np.exp(_log_probs((3, 4), 36)), requires_grad=True)
    for log_target in (False, True):
        assert gradcheck(lambda x, t: F.kl_div(x, t, reduction="batchmean", log_target=log_target), (x, t))
        assert gradgradcheck(lambda x, t: F.kl_div(x, t, reduction="sum", log_target=log_target), (x, t))
    _second_derivatives_match(lambda x, t: F.kl_div(x, t, reduction="none"),
                              lambda x, t: TF.kl_div(x, t, reduction="none"),
                              [_log_probs((3, 4), 35), np.exp(_log_probs((3, 4), 36))])


# -- F.margin_ranking_loss ----------------------------------------------------------------------------------

@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("s1, s2, st", [((5,), (5,), (5,)), ((4, 1), (1, 4), (4, 4)), ((5,), (5,), (1,)),
                                        ((0,), (0,), (0,))])
@pytest.mark.parametrize("margin", [0, 0.5])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_margin_ranking_loss_values_and_gradients_match_torch(reduction, s1, s2, st, margin, dtype):
    arrays = [_data(s1, 37, dtype), _data(s2, 38, dtype), _signs(st, 39, dtype)]
    _run_both(lambda a, b, y: F.margin_ranking_loss(a, b, y, margin, reduction=reduction),
              lambda a, b, y: TF.margin_ranking_loss(a, b, y, margin, reduction=reduction), arrays, dtype)


def test_margin_ranking_loss_at_the_hinge_passes_the_gradient_like_torch():
    a = np.array([1.0, 2.0, 3.0, 0.5])
    b = np.array([1.0, 1.5, 3.5, 0.0])   # margin 0.5: -y*(a - b) + 0.5 = 0 at two of them
    y = np.array([1.0, 1.0, -1.0, -1.0])
    _run_both(lambda a, b, y: F.margin_ranking_loss(a, b, y, 0.5, reduction="sum"),
              lambda a, b, y: TF.margin_ranking_loss(a, b, y, 0.5, reduction="sum"), [a, b, y], "float64")


@pytest.mark.parametrize("st, kw", [((), {}), ((3,), {}), ((5,), {"reduction": "avg"}), ((5, 1), {})])
def test_margin_ranking_loss_errors_match_torch(st, kw):
    (a, ta), (b, tb), (y, ty) = pair(_data((5,), 40)), pair(_data((5,), 41)), pair(_signs(st, 42))
    both_raise(lambda: F.margin_ranking_loss(a, b, y, **kw), lambda: TF.margin_ranking_loss(ta, tb, ty, **kw))


def test_margin_ranking_loss_dimension_error_names_the_shapes():
    with pytest.raises(RuntimeError, match=r"same number of dims.*target \(\)"):
        F.margin_ranking_loss(ag.ones(3), ag.ones(3), ag.tensor(1.0))


# -- F.hinge_embedding_loss ---------------------------------------------------------------------------------

@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("sx, st", [((6,), (6,)), ((4, 1), (4,)), ((2, 3), (1, 3)), ((6,), (1,))])
@pytest.mark.parametrize("margin", [1.0, 0.3])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_hinge_embedding_loss_values_and_gradients_match_torch(reduction, sx, st, margin, dtype):
    arrays = [np.abs(_data(sx, 43, dtype)), _signs(st, 44, dtype)]
    _run_both(lambda x, y: F.hinge_embedding_loss(x, y, margin, reduction=reduction),
              lambda x, y: TF.hinge_embedding_loss(x, y, margin, reduction=reduction), arrays, dtype, grads=[0])


def test_hinge_embedding_loss_with_other_targets_and_at_the_margin_matches_torch():
    x = np.array([0.5, 0.5, 2.0, 2.0, 1.0, -0.5])
    y = np.array([0.0, 2.0, 0.5, 1.0, -1.0, -1.0])   # neither 1 nor -1: both terms, as in torch
    _run_both(lambda x, y: F.hinge_embedding_loss(x, y, reduction="none"),
              lambda x, y: TF.hinge_embedding_loss(x, y, reduction="none"), [x, y], "float64", grads=[0])


@pytest.mark.parametrize("st, kw", [((3,), {}), ((6,), {"reduction": "bad"})])
def test_hinge_embedding_loss_errors_match_torch(st, kw):
    (x, tx), (y, ty) = pair(_data((6,), 45)), pair(_signs(st, 46))
    both_raise(lambda: F.hinge_embedding_loss(x, y, **kw), lambda: TF.hinge_embedding_loss(tx, ty, **kw))


# -- F.cosine_embedding_loss --------------------------------------------------------------------------------

@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("s1, s2, st", [((5, 3), (5, 3), (5,)), ((5, 3), (1, 3), (5,)), ((5, 3), (5, 3), (1,)),
                                        ((3,), (3,), ()), ((0, 3), (0, 3), (0,))])
@pytest.mark.parametrize("margin", [0, 0.3, -0.2])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_cosine_embedding_loss_values_and_gradients_match_torch(reduction, s1, s2, st, margin, dtype):
    arrays = [_data(s1, 47, dtype), _data(s2, 48, dtype), _signs(st, 49, dtype)]
    _run_both(lambda a, b, y: F.cosine_embedding_loss(a, b, y, margin, reduction=reduction),
              lambda a, b, y: TF.cosine_embedding_loss(a, b, y, margin, reduction=reduction), arrays, dtype,
              grads=[0, 1])


def test_cosine_embedding_loss_of_zero_vectors_and_other_targets_matches_torch():
    a, b = _data((4, 3), 50), _data((4, 3), 51)
    a[0] = 0.0
    b[1] = 0.0
    y = np.array([1.0, -1.0, 0.0, 2.0])   # neither 1 nor -1: loss 0
    # (a zero vector's gradient is 1/sqrt(1e-12)-large and ill-conditioned: torch's rounding differs by 2e-9)
    _run_both(lambda a, b, y: F.cosine_embedding_loss(a, b, y, reduction="none"),
              lambda a, b, y: TF.cosine_embedding_loss(a, b, y, reduction="none"), [a, b, y], "float64", grads=[0, 1],
              tol={"rtol": 1e-8, "atol": 1e-12})


@pytest.mark.parametrize("s1, s2, st", [((5, 3), (5, 3), (5, 1)), ((5, 3), (3,), (5,)), ((3,), (3,), (5,)),
                                        ((5, 3), (5, 2), (5,)), ((5, 3), (5, 3), (2,)), ((2, 5, 3), (2, 5, 3), (5,))])
def test_cosine_embedding_loss_errors_match_torch(s1, s2, st):
    (a, ta), (b, tb), (y, ty) = pair(_data(s1, 52)), pair(_data(s2, 53)), pair(_signs(st, 54))
    both_raise(lambda: F.cosine_embedding_loss(a, b, y), lambda: TF.cosine_embedding_loss(ta, tb, ty))


def test_cosine_embedding_loss_target_error_says_what_fits():
    with pytest.raises(RuntimeError, match=r"1D target tensor expects 2D input tensors.*\[3\] and \[3\]"):
        F.cosine_embedding_loss(ag.ones(3), ag.ones(3), ag.ones(3))


# -- F.triplet_margin_loss ----------------------------------------------------------------------------------

@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("shape", [(5, 4), (4,), (2, 3, 4)])
@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("p", [2.0, 1.0, INF, 3.0])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_triplet_margin_loss_values_and_gradients_match_torch(reduction, shape, swap, p, dtype):
    arrays = [_data(shape, 55, dtype), _data(shape, 56, dtype), _data(shape, 57, dtype)]
    _run_both(lambda a, pos, neg: F.triplet_margin_loss(a, pos, neg, 1.5, p, swap=swap, reduction=reduction),
              lambda a, pos, neg: TF.triplet_margin_loss(a, pos, neg, 1.5, p, swap=swap, reduction=reduction),
              arrays, dtype)


@pytest.mark.parametrize("eps", [0.0, 1e-6, 0.1])
def test_triplet_margin_loss_with_broadcasting_and_eps_matches_torch(eps):
    arrays = [_data((5, 4), 58), _data((1, 4), 59), _data((5, 4), 60)]
    _run_both(lambda a, pos, neg: F.triplet_margin_loss(a, pos, neg, 0.5, eps=eps, swap=True),
              lambda a, pos, neg: TF.triplet_margin_loss(a, pos, neg, 0.5, eps=eps, swap=True), arrays, "float64")


def test_triplet_margin_loss_of_an_empty_batch_is_nan_like_torch():
    y, _ = _run_both(F.triplet_margin_loss, TF.triplet_margin_loss, [np.zeros((0, 4))] * 3, "float64", grads=[])
    assert np.isnan(y.detach().numpy())


@pytest.mark.parametrize("sp, kw", [((4,), {}), ((5, 3), {}), ((2, 4), {}), ((5, 4), {"margin": 0.0}),
                                    ((5, 4), {"margin": -1.0}), ((5, 4), {"reduction": "bad"})])
def test_triplet_margin_loss_errors_match_torch(sp, kw):
    (a, ta), (pos, tpos), (neg, tneg) = pair(_data((5, 4), 61)), pair(_data(sp, 62)), pair(_data((5, 4), 63))
    both_raise(lambda: F.triplet_margin_loss(a, pos, neg, **kw), lambda: TF.triplet_margin_loss(ta, tpos, tneg, **kw))


def test_triplet_margin_loss_dimension_error_names_each_input():
    with pytest.raises(RuntimeError, match=r"anchor \(5, 4\), positive \(4,\), negative \(5, 4\)"):
        F.triplet_margin_loss(ag.ones(5, 4), ag.ones(4), ag.ones(5, 4))


# -- finite differences for the losses ----------------------------------------------------------------------

def test_loss_gradients_pass_finite_differences():
    a = ag.tensor(_data((4, 3), 64), requires_grad=True)
    b = ag.tensor(_data((4, 3), 65), requires_grad=True)
    c = ag.tensor(_data((4, 3), 66), requires_grad=True)
    y = ag.tensor(_signs((4,), 67))
    y2 = ag.tensor(_signs((4, 3), 68), requires_grad=True)
    checks = [
        (lambda a, b, y2: F.margin_ranking_loss(a, b, y2, 0.3), (a, b, y2)),
        (lambda a: F.hinge_embedding_loss(a.abs(), y2.detach(), 2.0), (a,)),
        (lambda a, b: F.cosine_embedding_loss(a, b, y, -0.5), (a, b)),
        (lambda a, b, c: F.triplet_margin_loss(a, b, c, 3.0), (a, b, c)),
        (lambda a, b, c: F.triplet_margin_loss(a, b, c, 3.0, p=1.5, swap=True), (a, b, c)),
    ]
    for fn, inputs in checks:
        assert gradcheck(fn, inputs)
        assert gradgradcheck(fn, inputs)
    _second_derivatives_match(lambda a, b: F.cosine_embedding_loss(a, b, ag.tensor(_signs((4,), 67)), -0.5),
                              lambda a, b: TF.cosine_embedding_loss(a, b, torch.tensor(_signs((4,), 67)), -0.5),
                              [_data((4, 3), 64), _data((4, 3), 65)])
    _second_derivatives_match(lambda a, b, c: F.triplet_margin_loss(a, b, c, 3.0, swap=True),
                              lambda a, b, c: TF.triplet_margin_loss(a, b, c, 3.0, swap=True),
                              [_data((4, 3), 64), _data((4, 3), 65), _data((4, 3), 66)])


# -- modules ------------------------------------------------------------------------------------------------

MODULES = [
    ("CosineSimilarity", {}, 2), ("CosineSimilarity", {"dim": 0, "eps": 1e-3}, 2),
    ("PairwiseDistance", {}, 2), ("PairwiseDistance", {"p": 1.0, "eps": 0.0, "keepdim": True}, 2),
    ("PairwiseDistance", {"p": INF}, 2),
    ("KLDivLoss", {"reduction": "batchmean"}, "kl"), ("KLDivLoss", {"reduction": "sum", "log_target": True}, "kl"),
    ("KLDivLoss", {"reduction": "none"}, "kl"),
    ("MarginRankingLoss", {}, "order"), ("MarginRankingLoss", {"margin": 0.5, "reduction": "sum"}, "order"),
    ("HingeEmbeddingLoss", {}, "hinge"), ("HingeEmbeddingLoss", {"margin": 2.0, "reduction": "none"}, "hinge"),
    ("CosineEmbeddingLoss", {}, "rank"), ("CosineEmbeddingLoss", {"margin": 0.2, "reduction": "sum"}, "rank"),
    ("TripletMarginLoss", {}, 3),
    ("TripletMarginLoss", {"margin": 0.5, "p": 1.0, "swap": True, "reduction": "none"}, 3),
]


def _module_inputs(kind, kwargs):
    if kind == "kl":
        target = _log_probs((4, 3), 70)
        return [_log_probs((4, 3), 69), target if kwargs.get("log_target") else np.exp(target)]
    if kind == "rank":
        return [_data((4, 3), 71), _data((4, 3), 72), _signs((4,), 73)]
    if kind == "order":
        return [_data((5,), 77), _data((5,), 78), _signs((5,), 79)]
    if kind == "hinge":
        return [np.abs(_data((4, 3), 74)), _signs((4, 3), 75)]
    return [_data((4, 3), 76 + i) for i in range(kind)]


@pytest.mark.parametrize("name, kwargs, kind", MODULES)
def test_modules_match_torch_in_output_gradient_and_repr(name, kwargs, kind):
    ours, theirs = getattr(nn, name)(**kwargs), getattr(torch.nn, name)(**kwargs)
    assert repr(ours) == repr(theirs)
    assert isinstance(ours, nn.Module)
    arrays = _module_inputs(kind, kwargs)
    grads = [0] if kind == "hinge" else [0, 1] if kind == "rank" else None
    _run_both(ours, theirs, arrays, "float64", grads=grads)


def test_module_settings_have_torchs_attribute_names():
    for name, kwargs, _ in MODULES:
        ours, theirs = getattr(nn, name)(**kwargs), getattr(torch.nn, name)(**kwargs)
        for attr in ("dim", "eps", "norm", "keepdim", "reduction", "log_target", "margin", "p", "swap"):
            assert getattr(ours, attr, "-") == getattr(theirs, attr, "-"), (name, attr)


def test_kl_div_loss_with_mean_warns_on_each_call_like_torch():
    ours, theirs = nn.KLDivLoss(), torch.nn.KLDivLoss()
    x, tx = pair(_log_probs((2, 3), 80))
    t, tt = pair(np.exp(_log_probs((2, 3), 81)))
    with pytest.warns(UserWarning, match="'batchmean'"):
        close(ours(x, t), theirs(tx, tt), **TOL["float64"])


@pytest.mark.parametrize("name", ["KLDivLoss", "MarginRankingLoss", "HingeEmbeddingLoss", "CosineEmbeddingLoss",
                                  "TripletMarginLoss"])
def test_loss_modules_read_legacy_arguments_like_torch(name):
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        theirs = getattr(torch.nn, name)(size_average=False)
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        ours = getattr(nn, name)(size_average=False)
    assert ours.reduction == theirs.reduction == "sum"
    assert repr(ours) == repr(theirs)


def test_new_names_are_exported():
    for name in ("normalize", "cosine_similarity", "pairwise_distance", "kl_div", "margin_ranking_loss",
                 "hinge_embedding_loss", "cosine_embedding_loss", "triplet_margin_loss"):
        assert name in F.__all__ and callable(getattr(F, name))
    for name in ("CosineSimilarity", "PairwiseDistance", "KLDivLoss", "MarginRankingLoss", "HingeEmbeddingLoss",
                 "CosineEmbeddingLoss", "TripletMarginLoss"):
        assert name in nn.__all__ and issubclass(getattr(nn, name), nn.Module)


# -- found by a differential fuzz against torch ---------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda lib, x, y: lib.nn.functional.pairwise_distance(x, y, p=0),
    lambda lib, x, y: lib.nn.functional.normalize(x, p=0, dim=1),
    lambda lib, x, y: lib.nn.functional.triplet_margin_loss(x, y, y.flip(0), p=0),
])
def test_p_0_norms_are_in_the_graph_with_a_zero_gradient_like_torch(call):
    """torch's p = 0 "norm" (the count of nonzero elements) is in the graph with a zero gradient: backward runs."""
    (x, tx), (y, ty) = pair(_data((4, 3), 90), requires_grad=True), pair(_data((4, 3), 91), requires_grad=True)
    out, tout = call(ag, x, y), call(torch, tx, ty)
    close(out, tout, **TOL["float64"])
    assert out.requires_grad and tout.requires_grad
    g = _data(tuple(tout.shape), 92)
    out.backward(ag.tensor(g))
    tout.backward(torch.tensor(g))
    for ours, theirs in ((x, tx), (y, ty)):   # (where torch leaves .grad None, here it is zero)
        expected = np.zeros((4, 3)) if theirs.grad is None else theirs.grad.numpy()
        got = np.zeros((4, 3)) if ours.grad is None else ours.grad.numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dim", [1, -2, (0, 1)])
def test_normalize_of_a_0d_tensor_checks_the_dim_like_torch(dim):
    x, tx = pair(np.array(2.0))
    both_raise(lambda: F.normalize(x, dim=dim), lambda: TF.normalize(tx, dim=dim))
    close(F.normalize(x, dim=0), TF.normalize(tx, dim=0))


def test_cosine_similarity_promotes_an_integer_input_like_torch():
    a, ta = pair(_data((3, 4), 92), requires_grad=True)
    b, tb = pair(np.arange(12).reshape(3, 4) - 5)
    _run_both(lambda x: F.cosine_similarity(x, b), lambda x: TF.cosine_similarity(x, tb), [_data((3, 4), 92)],
              "float64")
    both_raise(lambda: F.cosine_similarity(a, b, dim=2), lambda: TF.cosine_similarity(ta, tb, dim=2))   # IndexError
    both_raise(lambda: F.cosine_similarity(b, b, dim=2), lambda: TF.cosine_similarity(tb, tb, dim=2))   # dtype first
    with pytest.raises(RuntimeError, match="floating point.*x.to"):
        F.cosine_similarity(b, b)


@pytest.mark.parametrize("size_average, reduce", [(False, None), (None, False), (True, True)])
def test_kl_div_loss_legacy_flags_replace_batchmean_like_torch(size_average, reduce):
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        theirs = torch.nn.KLDivLoss(size_average, reduce, reduction="batchmean")
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        ours = nn.KLDivLoss(size_average, reduce, reduction="batchmean")
    assert ours.reduction == theirs.reduction
    x, tx = pair(_log_probs((3, 4), 93))
    t, tt = pair(np.exp(_log_probs((3, 4), 94)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # ('mean' warns in both)
        close(ours(x, t), theirs(tx, tt), **TOL["float64"])


def test_triplet_margin_is_checked_first_and_when_the_module_is_built_like_torch():
    a, ta = pair(_data((3, 4), 95))
    p, tp = pair(_data((4,), 96))
    both_raise(lambda: F.triplet_margin_loss(a, p, a, margin=0), lambda: TF.triplet_margin_loss(ta, tp, ta, margin=0))
    with pytest.raises(ValueError, match="greater than 0, got -1"):
        torch.nn.TripletMarginLoss(margin=-1)
    with pytest.raises(ValueError, match="greater than 0, got -1.*positive margin"):
        nn.TripletMarginLoss(margin=-1)

