"""PyTorch names course labs reach for, run in both libraries on the same data: ``erf``, ``F.gelu`` and
``nn.GELU`` (both approximations), ``tril``/``triu``, ``flip``, ``F.embedding`` and ``nn.Embedding`` (padding rows,
repeated indices, ``max_norm``, ``from_pretrained``). Values, dtypes, gradients, second derivatives, reprs and
error classes are compared; gradients are also checked against finite differences in float64. (The generic
gradient checks of the ops ``erf``, ``tril``, ``triu`` and ``flip`` are in ``test_ops_gradcheck.py``.)"""
from __future__ import annotations

import numpy as np
import pytest
from conftest import import_torch, shares_memory
from torch_compare import both_raise, close, pair

import autogradlab as ag
import autogradlab.nn as nn
import autogradlab.nn.functional as F
from autogradlab.testing import gradcheck, gradgradcheck

torch = import_torch()
TF = torch.nn.functional
NAN, INF = float("nan"), float("inf")


def _data(shape, seed, dtype="float32", scale=1.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype)


def _backward_both(y, ty, seed=9):
    g = _data(tuple(ty.shape), seed, str(ty.dtype).removeprefix("torch."))
    y.backward(ag.tensor(g))
    ty.backward(torch.tensor(g))


# -- erf -------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_erf_values_and_gradient_match_torch(dtype):
    data = np.concatenate([_data(200, 1, "float64", 2.0), [0.0, -0.0, 1e-8, 3.0, 6.0, -6.0, 30.0, NAN, INF, -INF]])
    x, tx = pair(data.astype(dtype), requires_grad=True)
    y, ty = ag.erf(x), torch.erf(tx)
    tol = {"float16": 1e-3, "float32": 2e-7, "float64": 1e-15}[dtype]
    close(y, ty, rtol=tol, atol=tol)
    _backward_both(y, ty)
    close(x.grad, tx.grad, rtol=4 * tol, atol=4 * tol)


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
def test_erf_of_integers_is_float32_as_in_torch(dtype):
    a, ta = pair(np.array([0, 1, 2, -3][:2 if dtype == "bool" else 4]).astype(dtype))
    close(a.erf(), ta.erf(), rtol=1e-7, atol=1e-7)


def test_erf_gradients_against_finite_differences_to_second_order():
    x = ag.tensor(_data((3, 4), 2, "float64", 1.5), requires_grad=True)
    assert gradcheck(ag.erf, (x,))
    assert gradgradcheck(ag.erf, (x,))


# -- gelu ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_gelu_values_and_gradient_match_torch(approximate, dtype):
    data = np.concatenate([_data(300, 3, "float64", 4.0), [0.0, 1e-6, -1e-6, 10.0, -10.0, 60.0, -60.0, NAN]])
    x, tx = pair(data.astype(dtype), requires_grad=True)
    y, ty = F.gelu(x, approximate=approximate), TF.gelu(tx, approximate=approximate)
    tol = {"float16": 2e-3, "float32": 2e-6, "float64": 1e-14}[dtype]
    close(y, ty, rtol=tol, atol=tol)
    _backward_both(y, ty)
    close(x.grad, tx.grad, rtol=4 * tol, atol=4 * tol)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_second_derivative_matches_torch(approximate):
    x, tx = pair(_data(50, 4, "float64", 3.0), requires_grad=True)
    (g,) = ag.autograd.grad(F.gelu(x, approximate=approximate).sum(), x, create_graph=True)
    (tg,) = torch.autograd.grad(TF.gelu(tx, approximate=approximate).sum(), tx, create_graph=True)
    close(g, tg, rtol=1e-12, atol=1e-12)
    g.sum().backward()
    tg.sum().backward()
    close(x.grad, tx.grad, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_against_finite_differences(approximate):
    x = ag.tensor(_data((2, 5), 5, "float64", 2.0), requires_grad=True)
    assert gradcheck(lambda t: F.gelu(t, approximate=approximate), (x,))
    assert gradgradcheck(lambda t: F.gelu(t, approximate=approximate), (x,))


def test_gelu_module_and_errors_as_torch():
    assert repr(nn.GELU()) == repr(torch.nn.GELU())
    assert repr(nn.GELU("tanh")) == repr(torch.nn.GELU("tanh"))
    x, tx = pair(_data((2, 3), 6))
    close(nn.GELU("tanh")(x), torch.nn.GELU("tanh")(tx))
    both_raise(lambda: F.gelu(x, approximate="exact"), lambda: TF.gelu(tx, approximate="exact"))
    both_raise(lambda: F.gelu(x, "tanh"), lambda: TF.gelu(tx, "tanh"))   # approximate is keyword-only
    with pytest.raises(NotImplementedError):   # (torch: "not implemented for 'Long'"; here the same class, as for
        TF.gelu(torch.tensor([1, 2]))          # elu and silu, saying how to convert)
    with pytest.raises(NotImplementedError, match="floating point.*float32"):
        F.gelu(ag.tensor([1, 2]))


# -- tril, triu ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["tril", "triu"])
@pytest.mark.parametrize("diagonal", [-5, -1, 0, 1, 3, 7])
@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (2, 5, 3), (0, 3)])
def test_triangles_match_torch(name, diagonal, shape):
    x, tx = pair(_data(shape, 7), requires_grad=True)
    y, ty = getattr(ag, name)(x, diagonal), getattr(torch, name)(tx, diagonal)
    close(y, ty, rtol=0, atol=0)
    close(getattr(x, name)(diagonal=diagonal), getattr(tx, name)(diagonal=diagonal), rtol=0, atol=0)
    _backward_both(y, ty)
    close(x.grad, tx.grad, rtol=0, atol=0)


@pytest.mark.parametrize("dtype", ["int64", "bool", "float16"])
def test_triangles_keep_the_dtype(dtype):
    a, ta = pair(np.ones((3, 3), dtype=dtype))
    close(ag.tril(a, -1), torch.tril(ta, -1), rtol=0, atol=0)
    close(ag.triu(a), torch.triu(ta), rtol=0, atol=0)


def test_numpy_integers_are_taken_as_ints_as_in_torch():
    a, ta = pair(_distinct((3, 4), 50))
    close(ag.tril(a, np.int64(1)), torch.tril(ta, np.int64(1)), rtol=0, atol=0)
    close(ag.topk(a, np.int64(2)).values, torch.topk(ta, np.int64(2)).values, rtol=0, atol=0)
    both_raise(lambda: ag.sort(a, 1, False, True), lambda: torch.sort(ta, 1, False, True))   # stable: keyword-only


def test_triangle_errors_as_torch():
    v, tv = pair(_data(3, 8))
    m, tm = pair(_data((3, 3), 8))
    both_raise(lambda: ag.tril(v), lambda: torch.tril(tv))
    both_raise(lambda: ag.triu(ag.tensor(1.0)), lambda: torch.triu(torch.tensor(1.0)))
    both_raise(lambda: ag.tril(m, 1.5), lambda: torch.tril(tm, 1.5))
    with pytest.raises(RuntimeError, match="at least 2 dimensions.*unsqueeze"):
        ag.tril(v)


def test_causal_mask_softmax_matches_torch():
    """An attention-style use: scores masked above the diagonal with -inf, then softmax along the last dim."""
    s, ts = pair(_data((2, 4, 4), 9), requires_grad=True)
    keep, tkeep = ag.tril(ag.ones(4, 4)) == 1, torch.tril(torch.ones(4, 4)) == 1
    p = ag.softmax(s.masked_fill(~keep, -INF), -1)
    tp = torch.softmax(ts.masked_fill(~tkeep, -INF), -1)
    close(p, tp)
    _backward_both(p, tp)
    close(s.grad, ts.grad, rtol=1e-5, atol=1e-6)


# -- flip ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dims", [(0,), (1,), (-1,), (0, 2), (2, 0, 1), ()])
def test_flip_matches_torch(dims):
    x, tx = pair(_data((2, 3, 4), 10), requires_grad=True)
    y, ty = ag.flip(x, dims), torch.flip(tx, dims)
    close(y, ty, rtol=0, atol=0)
    if dims:
        close(x.flip(*dims), tx.flip(*dims), rtol=0, atol=0)
    close(x.flip(list(dims)), tx.flip(list(dims)), rtol=0, atol=0)
    close(x.flip(dims=list(dims)), tx.flip(dims=list(dims)), rtol=0, atol=0)
    _backward_both(y * y, ty * ty)
    close(x.grad, tx.grad)


def test_flip_is_a_copy_as_in_torch():
    x = ag.arange(6.0).reshape(2, 3)
    y = x.flip(1)
    y.add_(100)
    np.testing.assert_array_equal(x.numpy(), np.arange(6.0).reshape(2, 3))
    assert x._version == 0


def test_flip_of_0d_and_integers_and_errors_as_torch():
    s, ts = pair(np.array(2.5, dtype="float32"))
    close(ag.flip(s, [0]), torch.flip(ts, [0]), rtol=0, atol=0)
    a, ta = pair(np.arange(6).reshape(2, 3))
    close(a.flip(0), ta.flip(0), rtol=0, atol=0)
    both_raise(lambda: ag.flip(a, [0, 0]), lambda: torch.flip(ta, [0, 0]))
    both_raise(lambda: ag.flip(a, [0, -2]), lambda: torch.flip(ta, [0, -2]))
    both_raise(lambda: ag.flip(a, [2]), lambda: torch.flip(ta, [2]))
    both_raise(lambda: ag.flip(a, 0), lambda: torch.flip(ta, 0))
    both_raise(lambda: a.flip(), lambda: ta.flip())


# -- embedding -------------------------------------------------------------------------------------------------

def _embedding_pair(rows=6, dim=3, seed=11, dtype="float32"):
    w, tw = pair(_data((rows, dim), seed, dtype), requires_grad=True)
    return w, tw


@pytest.mark.parametrize("index", [[[0, 5, 2, 2], [1, 1, 1, 4]], [3], 2, [], [[[0], [5]]]])
@pytest.mark.parametrize("padding_idx", [None, 1, -1])
@pytest.mark.parametrize("index_dtype", ["int64", "int32"])
def test_embedding_matches_torch(index, padding_idx, index_dtype):
    w, tw = _embedding_pair()
    i, ti = pair(np.array(index, dtype=index_dtype))
    y, ty = F.embedding(i, w, padding_idx=padding_idx), TF.embedding(ti, tw, padding_idx=padding_idx)
    close(y, ty, rtol=0, atol=0)
    _backward_both(y, ty)
    close(w.grad, tw.grad, rtol=1e-6, atol=1e-6)


def test_embedding_gradient_against_finite_differences():
    w = ag.tensor(_data((5, 2), 12, "float64"), requires_grad=True)
    idx = ag.tensor([[4, 0, 4], [2, 3, 3]])
    assert gradcheck(lambda t: F.embedding(idx, t) ** 2, (w,))
    # padding_idx: the same gradient with row 3's left out (finite differences would see row 3: by design it
    # gets none)
    F.embedding(idx, w, padding_idx=3).pow(2).sum().backward()
    padded = w.grad.numpy().copy()
    w.grad = None
    F.embedding(idx, w).pow(2).sum().backward()
    expected = w.grad.numpy().copy()
    expected[3] = 0
    np.testing.assert_array_equal(padded, expected)
    assert padded[2].any() and not padded[3].any()
    assert gradgradcheck(lambda t: F.embedding(idx, t) ** 2, (w,))


@pytest.mark.parametrize("max_norm, norm_type", [(1.0, 2.0), (0.5, 1.0), (2.0, 3.0), (0.8, INF), (100.0, 2.0),
                                                (2.5, 0.0)])
def test_embedding_max_norm_renormalises_the_rows_used_in_place_as_torch(max_norm, norm_type):
    w, tw = _embedding_pair(rows=7, dim=4, seed=13)
    i, ti = pair(np.array([[0, 3, 3], [6, 2, 0]]))
    y = F.embedding(i, w, max_norm=max_norm, norm_type=norm_type)
    ty = TF.embedding(ti, tw, max_norm=max_norm, norm_type=norm_type)
    close(y, ty, rtol=1e-6, atol=1e-7)
    close(w, tw, rtol=1e-6, atol=1e-7)   # the weight itself changed, rows 1, 4 and 5 untouched
    assert (w._version > 0) == (tw._version > 0)
    _backward_both(y, ty)
    close(w.grad, tw.grad, rtol=1e-6, atol=1e-6)


def test_embedding_module_matches_torch():
    for kwargs in [{}, {"padding_idx": 2}, {"padding_idx": -1}, {"max_norm": 1.0}, {"max_norm": 2.0, "norm_type": 1.0}]:
        ours, theirs = nn.Embedding(10, 4, **kwargs), torch.nn.Embedding(10, 4, **kwargs)
        assert repr(ours) == repr(theirs)
        assert ours.padding_idx == theirs.padding_idx
        assert list(ours.state_dict()) == list(theirs.state_dict())
        assert ours.weight.shape == tuple(theirs.weight.shape) and ours.weight.requires_grad
        if ours.padding_idx is not None:
            assert not ours.weight[ours.padding_idx].detach().numpy().any()
    ag.manual_seed(0)
    big = nn.Embedding(2000, 50).weight.detach().numpy()   # N(0, 1), as PyTorch initialises it
    assert abs(big.mean()) < 0.01 and abs(big.std() - 1) < 0.01


def test_embedding_from_pretrained_as_torch():
    w, tw = pair(_data((5, 3), 14))
    ours, theirs = nn.Embedding.from_pretrained(w), torch.nn.Embedding.from_pretrained(tw)
    assert repr(ours) == repr(theirs)
    assert ours.weight.requires_grad is theirs.weight.requires_grad is False
    assert shares_memory(ours.weight._data, w._data)    # shared, not copied, as in torch
    i, ti = pair(np.array([4, 0]))
    close(ours(i), theirs(ti), rtol=0, atol=0)
    trainable = nn.Embedding.from_pretrained(w, freeze=False, padding_idx=0)
    ttrainable = torch.nn.Embedding.from_pretrained(tw, freeze=False, padding_idx=0)
    assert repr(trainable) == repr(ttrainable) and trainable.weight.requires_grad
    _backward_both(trainable(i), ttrainable(ti))
    close(trainable.weight.grad, ttrainable.weight.grad, rtol=0, atol=0)


def test_embedding_errors_as_torch_and_leave_the_weight_alone():
    w, tw = _embedding_pair()
    before = w.detach().numpy().copy()
    cases = [
        (lambda: F.embedding(ag.tensor([1.0]), w), lambda: TF.embedding(torch.tensor([1.0]), tw)),
        (lambda: F.embedding(ag.tensor([6]), w), lambda: TF.embedding(torch.tensor([6]), tw)),
        (lambda: F.embedding(ag.tensor([-1]), w), lambda: TF.embedding(torch.tensor([-1]), tw)),
        (lambda: F.embedding(ag.tensor([1]), w[0]), lambda: TF.embedding(torch.tensor([1]), tw[0])),
        (lambda: F.embedding([1], w), lambda: TF.embedding([1], tw)),
        (lambda: F.embedding(ag.tensor([0, 9]), w, max_norm=0.1), lambda: TF.embedding(torch.tensor([0, 9]), tw,
                                                                                        max_norm=0.1)),
    ]
    for ours, theirs in cases:
        both_raise(ours, theirs)
    np.testing.assert_array_equal(w.detach().numpy(), before)   # the failed max_norm call renormalised nothing
    assert w._version == 0
    # PyTorch asserts (AssertionError) on a padding_idx out of range; here a ValueError says which range
    for bad in (6, -7):
        with pytest.raises(AssertionError):
            torch.nn.Embedding(6, 3, padding_idx=bad)
        with pytest.raises(ValueError, match=r"padding_idx .* must be in \[-6, 5\]"):
            nn.Embedding(6, 3, padding_idx=bad)
        with pytest.raises(ValueError, match="padding_idx"):
            F.embedding(ag.tensor([0]), w, padding_idx=bad)
    with pytest.raises(NotImplementedError, match="sparse"):
        nn.Embedding(6, 3, sparse=True)
    with pytest.raises(NotImplementedError, match="scale_grad_by_freq"):
        F.embedding(ag.tensor([0]), w, scale_grad_by_freq=True)
    with pytest.raises(ValueError, match="2-D"):
        nn.Embedding.from_pretrained(ag.zeros(3))


# -- sort, argsort, topk ---------------------------------------------------------------------------------------

def _distinct(shape, seed, dtype="float32"):
    """Values without ties (PyTorch's unstable sort may order ties either way)."""
    n = int(np.prod(shape))
    return (np.random.default_rng(seed).permutation(n) - n / 2).reshape(shape).astype(dtype) / 4


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_and_argsort_match_torch(dtype, dim, descending):
    a, ta = pair(_distinct((4, 5), 15, dtype), requires_grad=dtype != "int64")
    (v, i), (tv, ti) = ag.sort(a, dim, descending), torch.sort(ta, dim, descending)
    close(v, tv, rtol=0, atol=0)
    close(i, ti, rtol=0, atol=0)
    close(a.argsort(dim=dim, descending=descending), ta.argsort(dim=dim, descending=descending), rtol=0, atol=0)
    v2, i2 = a.sort(dim=dim, descending=descending)
    close(v2, tv, rtol=0, atol=0)
    if dtype != "int64":
        _backward_both(v * v, tv * tv)
        close(a.grad, ta.grad)


@pytest.mark.parametrize("descending", [False, True])
def test_sort_of_ties_nan_and_signed_zeros_is_torchs_stable_sort(descending):
    data = np.array([[3.0, NAN, 1.0, 3.0, -0.0, 0.0, NAN, -INF, INF, 1.0]], dtype="float32")
    a, ta = pair(data, requires_grad=True)
    (v, i), (tv, ti) = ag.sort(a, descending=descending), torch.sort(ta, descending=descending, stable=True)
    close(i, ti, rtol=0, atol=0)
    np.testing.assert_array_equal(np.signbit(v.detach().numpy()), np.signbit(tv.detach().numpy()))
    close(ag.argsort(a, descending=descending, stable=True), torch.argsort(ta, descending=descending, stable=True),
          rtol=0, atol=0)
    _backward_both(v, tv)
    close(a.grad, ta.grad, rtol=0, atol=0)


@pytest.mark.parametrize("k, dim, largest", [(1, -1, True), (3, 1, True), (5, 1, False), (0, 1, True), (2, 0, False)])
def test_topk_matches_torch(k, dim, largest):
    a, ta = pair(_distinct((4, 5), 16), requires_grad=True)
    (v, i), (tv, ti) = ag.topk(a, k, dim, largest), torch.topk(ta, k, dim, largest)
    close(v, tv, rtol=0, atol=0)
    close(i, ti, rtol=0, atol=0)
    v2, _ = a.topk(k, dim=dim, largest=largest, sorted=False)
    close(v2, tv, rtol=0, atol=0)
    _backward_both(v * 3, tv * 3)
    close(a.grad, ta.grad, rtol=0, atol=0)


def test_topk_of_ties_picks_the_same_values_as_torch():
    a, ta = pair(np.array([[2.0, 5.0, 5.0, 1.0, 5.0, NAN]], dtype="float32"))
    for largest in (True, False):
        for k in range(7):
            close(ag.topk(a, k, largest=largest).values, torch.topk(ta, k, largest=largest).values, rtol=0, atol=0)
    assert ag.topk(a, 3).indices.tolist() == [[5, 1, 2]]   # ties: the first in a first (documented)


def test_sort_and_topk_of_0d_and_errors_as_torch():
    s, ts = pair(np.array(2.5, dtype="float32"))
    for ours, theirs in [(ag.sort(s), torch.sort(ts)), (ag.topk(s, 1), torch.topk(ts, 1)),
                         (ag.topk(s, 0), torch.topk(ts, 0))]:
        close(ours.values, theirs.values, rtol=0, atol=0)
        close(ours.indices, theirs.indices, rtol=0, atol=0)
    close(ag.argsort(s), torch.argsort(ts), rtol=0, atol=0)
    a, ta = pair(_distinct((2, 3), 17))
    both_raise(lambda: ag.topk(a, 4), lambda: torch.topk(ta, 4))
    both_raise(lambda: ag.topk(a, -1), lambda: torch.topk(ta, -1))
    both_raise(lambda: ag.topk(a, 1.0), lambda: torch.topk(ta, 1.0))
    both_raise(lambda: ag.sort(a, 2), lambda: torch.sort(ta, 2))
    both_raise(lambda: ag.argsort(a, -3), lambda: torch.argsort(ta, -3))
    both_raise(lambda: ag.topk(ag.tensor([True, False]), 1), lambda: torch.topk(torch.tensor([True, False]), 1))
    b, tb = pair(np.array([True, False, True]))
    (v, i), (tv, ti) = ag.sort(b), torch.sort(tb, stable=True)
    close(v, tv, rtol=0, atol=0)
    close(i, ti, rtol=0, atol=0)


def test_sort_and_topk_gradients_against_finite_differences():
    a = ag.tensor(_distinct((3, 4), 18, "float64"), requires_grad=True)
    assert gradcheck(lambda t: ag.sort(t, 1, descending=True).values ** 2, (a,))
    assert gradcheck(lambda t: ag.topk(t, 2, dim=0).values ** 2, (a,))
    assert gradgradcheck(lambda t: ag.sort(t, 0).values ** 3, (a,))


# -- losses ----------------------------------------------------------------------------------------------------

REDUCTIONS = ["mean", "sum", "none"]


def _regression_pair(seed, shape=(4, 5)):
    x, tx = pair(_data(shape, seed, "float64", 2.0), requires_grad=True)
    y, ty = pair(_data(shape, seed + 1, "float64", 2.0))
    return x, tx, y, ty


def _loss_both(loss, tloss, x, tx):
    close(loss, tloss, rtol=1e-12, atol=1e-12)
    _backward_both(loss, tloss)
    close(x.grad, tx.grad, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("delta", [1.0, 0.3, 2.5])
@pytest.mark.parametrize("weighted", [False, True])
def test_huber_loss_matches_torch(reduction, delta, weighted):
    x, tx, y, ty = _regression_pair(19)
    with torch.no_grad():   # a point exactly at the switch |d| = delta, one at d = 0, and d = +-inf
        ty[0, :4] = torch.tensor([0.0, 1.0, 0.0, 0.0], dtype=ty.dtype)
        tx[0, :4] = torch.tensor([delta, 1.0, INF, -INF], dtype=tx.dtype)
    with ag.no_grad():      # (as torch code would: tensor to tensor, on the tensors' device)
        x[0, :4], y[0, :4] = ag.tensor(tx[0, :4].detach().numpy()), ag.tensor(ty[0, :4].detach().numpy())
    w, tw = pair(np.abs(_data((4, 5), 20, "float64"))) if weighted else (None, None)
    _loss_both(F.huber_loss(x, y, reduction=reduction, delta=delta, weight=w),
               TF.huber_loss(tx, ty, reduction=reduction, delta=delta, weight=tw), x, tx)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("beta", [1.0, 0.3, 0.0])
def test_smooth_l1_loss_matches_torch(reduction, beta):
    x, tx, y, ty = _regression_pair(21)
    with torch.no_grad():   # exactly at the switch |d| = beta, and d = +-inf
        ty[0, :3] = 0.0
        tx[0, :3] = torch.tensor([beta, INF, -INF], dtype=tx.dtype)
    with ag.no_grad():
        x[0, :3], y[0, :3] = ag.tensor(tx[0, :3].detach().numpy()), ag.tensor(ty[0, :3].detach().numpy())
    _loss_both(F.smooth_l1_loss(x, y, reduction=reduction, beta=beta),
               TF.smooth_l1_loss(tx, ty, reduction=reduction, beta=beta), x, tx)


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_weighted_mse_and_l1_match_torch(name, reduction):
    x, tx, y, ty = _regression_pair(22)
    w, tw = pair(np.abs(_data((4, 5), 23, "float64")))
    _loss_both(getattr(F, name)(x, y, reduction=reduction, weight=w),
               getattr(TF, name)(tx, ty, reduction=reduction, weight=tw), x, tx)


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("name", ["mse_loss", "l1_loss"])
def test_weights_summing_to_zero_give_nan_without_a_warning_as_torch(name):
    x, tx, y, ty = _regression_pair(52)
    w, tw = pair(np.zeros((4, 5)))
    close(getattr(F, name)(x, y, weight=w), getattr(TF, name)(tx, ty, weight=tw), rtol=0, atol=0)


@pytest.mark.parametrize("size_average, reduce", [(False, None), (None, False), (True, True), (False, True)])
def test_deprecated_size_average_and_reduce_are_read_as_torch_reads_them(size_average, reduce):
    x, tx, y, ty = _regression_pair(24)
    for name in ("mse_loss", "l1_loss", "smooth_l1_loss"):
        with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
            ours = getattr(F, name)(x, y, size_average=size_average, reduce=reduce)
        with pytest.warns(UserWarning):
            theirs = getattr(TF, name)(tx, ty, size_average=size_average, reduce=reduce)
        close(ours, theirs, rtol=1e-12, atol=1e-12)
    with pytest.warns(UserWarning):
        module = nn.MSELoss(size_average=size_average, reduce=reduce)
    with pytest.warns(UserWarning):
        tmodule = torch.nn.MSELoss(size_average=size_average, reduce=reduce)
    assert module.reduction == tmodule.reduction


def _classification(seed, n=6, c=4):
    x, tx = pair(_data((n, c), seed, "float64", 2.0), requires_grad=True)
    labels = np.random.default_rng(seed).integers(0, c, n)
    return x, tx, labels


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore", [None, -100, 2])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.2])
def test_cross_entropy_weight_ignore_index_label_smoothing_match_torch(reduction, weighted, ignore, label_smoothing):
    x, tx, labels = _classification(25)
    if ignore is not None:
        labels[[1, 4]] = ignore
    y, ty = pair(labels)
    w, tw = pair(np.array([0.5, 2.0, 1.0, 3.0])) if weighted else (None, None)
    kwargs = {"reduction": reduction, "label_smoothing": label_smoothing}
    if ignore is not None:
        kwargs["ignore_index"] = ignore
    _loss_both(F.cross_entropy(x, y, w, **kwargs), TF.cross_entropy(tx, ty, tw, **kwargs), x, tx)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore", [None, 0])
def test_nll_loss_weight_and_ignore_index_match_torch(reduction, weighted, ignore):
    x, tx, labels = _classification(26)
    logp, tlogp = ag.log_softmax(x, 1), torch.log_softmax(tx, 1)
    y, ty = pair(labels)
    w, tw = pair(np.array([0.5, 2.0, 1.0, 3.0])) if weighted else (None, None)
    kwargs = {"reduction": reduction} | ({"ignore_index": ignore} if ignore is not None else {})
    _loss_both(F.nll_loss(logp, y, w, **kwargs), TF.nll_loss(tlogp, ty, tw, **kwargs), x, tx)
    module, tmodule = nn.NLLLoss(w, **kwargs), torch.nn.NLLLoss(tw, **kwargs)
    close(module(logp, y), tmodule(tlogp, ty), rtol=1e-12, atol=1e-12)
    assert list(module.state_dict()) == list(tmodule.state_dict())


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.3])
def test_cross_entropy_with_class_probabilities_matches_torch(reduction, weighted, label_smoothing):
    x, tx, _ = _classification(27)
    p = np.random.default_rng(27).dirichlet(np.ones(4), 6)
    y, ty = pair(p)
    w, tw = pair(np.array([0.5, 2.0, 1.0, 3.0])) if weighted else (None, None)
    _loss_both(F.cross_entropy(x, y, w, reduction=reduction, label_smoothing=label_smoothing),
               TF.cross_entropy(tx, ty, tw, reduction=reduction, label_smoothing=label_smoothing), x, tx)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.2])
@pytest.mark.parametrize("shape", [(2, 4, 3), (2, 4, 3, 2)], ids=["sequence", "image"])
def test_cross_entropy_and_nll_loss_take_a_class_per_position_as_torch(reduction, weighted, label_smoothing, shape):
    """Logits (N, C, d1, ...) with a class index per position (N, d1, ...): per-token language models and
    segmentation; ignore_index on some positions, and class probabilities of the input's shape."""
    x, tx = pair(_data(shape, 61, "float64", 2.0), requires_grad=True)
    labels = np.random.default_rng(61).integers(0, shape[1], (shape[0],) + shape[2:])
    labels.reshape(-1)[[1, 5]] = -100
    y, ty = pair(labels)
    w, tw = pair(np.array([0.5, 2.0, 1.0, 3.0])) if weighted else (None, None)
    kwargs = {"reduction": reduction}
    _loss_both(F.cross_entropy(x, y, w, label_smoothing=label_smoothing, **kwargs),
               TF.cross_entropy(tx, ty, tw, label_smoothing=label_smoothing, **kwargs), x, tx)
    logp, tlogp = ag.log_softmax(x, 1).detach(), torch.log_softmax(tx, 1).detach()
    close(F.nll_loss(logp, y, w, **kwargs), TF.nll_loss(tlogp, ty, tw, **kwargs), rtol=1e-12, atol=1e-12)
    close(nn.CrossEntropyLoss(w, **kwargs)(x, y), torch.nn.CrossEntropyLoss(tw, **kwargs)(tx, ty), rtol=1e-12)
    p = np.random.default_rng(62).dirichlet(np.ones(shape[1]), (shape[0],) + shape[2:])
    p, tp = pair(np.moveaxis(p, -1, 1).copy())
    close(F.cross_entropy(x, p, w, **kwargs), TF.cross_entropy(tx, tp, tw, **kwargs), rtol=1e-12, atol=1e-12)


def test_a_class_per_position_target_of_the_wrong_shape_and_a_uint8_target_as_torch():
    with pytest.raises(RuntimeError, match="target size"):
        TF.cross_entropy(torch.zeros(2, 3, 4), torch.zeros(2, 3, dtype=torch.int64))
    with pytest.raises(ValueError, match=r"one class index per position, shape \(2, 4\), got \(2, 3\)"):
        F.cross_entropy(ag.zeros(2, 3, 4), ag.zeros(2, 3, dtype=ag.int64))   # (the README's ValueError for shapes)
    close(F.cross_entropy(ag.tensor([[0.0, 1.0, 2.0], [1.0, 0.0, 0.0]]), ag.tensor([0, 2], dtype=ag.uint8)),
          TF.cross_entropy(torch.tensor([[0.0, 1.0, 2.0], [1.0, 0.0, 0.0]]), torch.tensor([0, 2], dtype=torch.uint8)))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("label_smoothing", [0.0, 0.1])
@pytest.mark.parametrize("weighted", [False, True])
def test_an_ignored_row_of_infinities_or_nan_counts_for_nothing_as_in_torch(reduction, label_smoothing, weighted):
    """Padded positions are where ignore_index is used, and their logits may be masked with -inf (or be NaN)."""
    data = _data((4, 3), 51, "float64")
    data[1] = [-INF, 0.0, -INF]
    data[3] = [NAN, 1.0, 2.0]
    x, tx = pair(data, requires_grad=True)
    y, ty = pair(np.array([2, -100, 0, -100]))
    w, tw = pair(np.array([0.5, 2.0, 1.0])) if weighted else (None, None)
    kwargs = {"reduction": reduction, "label_smoothing": label_smoothing}
    loss, tloss = F.cross_entropy(x, y, w, **kwargs), TF.cross_entropy(tx, ty, tw, **kwargs)
    close(loss, tloss, rtol=1e-12, atol=1e-12)
    assert np.isfinite(loss.detach().numpy()).all()
    _backward_both(loss, tloss)
    close(x.grad, tx.grad, rtol=1e-12, atol=1e-12)   # (the NaN row's gradient is NaN in both: log_softmax's)
    assert np.isfinite(x.grad.numpy()[:3]).all()
    logp, tlogp = pair(np.where(np.isnan(data), NAN, data), requires_grad=True)
    close(F.nll_loss(logp, y, w, reduction=reduction), TF.nll_loss(tlogp, ty, tw, reduction=reduction),
          rtol=1e-12, atol=1e-12)


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("label_smoothing", [0.0, 0.1])
def test_every_sample_ignored_gives_nan_as_torch_without_a_warning(label_smoothing):
    x, tx, _ = _classification(28)
    y, ty = pair(np.full(6, -100))
    loss = F.cross_entropy(x, y, label_smoothing=label_smoothing)
    tloss = TF.cross_entropy(tx, ty, label_smoothing=label_smoothing)
    close(loss, tloss, rtol=0, atol=0)
    _backward_both(loss, tloss)
    close(x.grad, tx.grad, rtol=0, atol=0)
    assert np.isnan(F.nll_loss(ag.log_softmax(x, 1), y).item())


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("pos_weight_shape", [(5,), (4, 5), (1,)])
def test_bce_with_logits_pos_weight_matches_torch(reduction, pos_weight_shape):
    x, tx = pair(_data((4, 5), 29, "float64", 3.0), requires_grad=True)
    y, ty = pair((np.random.default_rng(29).random((4, 5)) > 0.5).astype("float64"))
    pw, tpw = pair(np.abs(_data(pos_weight_shape, 30, "float64")) + 0.2)
    w, tw = pair(np.abs(_data((5,), 31, "float64")))
    _loss_both(F.binary_cross_entropy_with_logits(x, y, w, reduction=reduction, pos_weight=pw),
               TF.binary_cross_entropy_with_logits(tx, ty, tw, reduction=reduction, pos_weight=tpw), x, tx)
    module = nn.BCEWithLogitsLoss(pos_weight=pw, reduction=reduction)
    tmodule = torch.nn.BCEWithLogitsLoss(pos_weight=tpw, reduction=reduction)
    close(module(x, y), tmodule(tx, ty), rtol=1e-12, atol=1e-12)
    assert list(module.state_dict()) == list(tmodule.state_dict())


def test_loss_modules_match_torch():
    x, tx, y, ty = _regression_pair(32)
    for ours, theirs in [(nn.HuberLoss(), torch.nn.HuberLoss()),
                         (nn.HuberLoss("sum", 0.5), torch.nn.HuberLoss("sum", 0.5)),
                         (nn.SmoothL1Loss(beta=0.5), torch.nn.SmoothL1Loss(beta=0.5)),
                         (nn.SmoothL1Loss(reduction="none"), torch.nn.SmoothL1Loss(reduction="none"))]:
        close(ours(x, y), theirs(tx, ty), rtol=1e-12, atol=1e-12)
    for ours, theirs in [(nn.HuberLoss(), torch.nn.HuberLoss()), (nn.SmoothL1Loss(), torch.nn.SmoothL1Loss()),
                         (nn.NLLLoss(), torch.nn.NLLLoss()), (nn.CrossEntropyLoss(), torch.nn.CrossEntropyLoss())]:
        assert repr(ours) == repr(theirs)
    c, tc, labels = _classification(33)
    lab, tlab = pair(labels)
    w, tw = pair(np.array([1.0, 2.0, 0.5, 1.0]))
    ce = nn.CrossEntropyLoss(weight=w, ignore_index=1, label_smoothing=0.1)
    tce = torch.nn.CrossEntropyLoss(weight=tw, ignore_index=1, label_smoothing=0.1)
    close(ce(c, lab), tce(tc, tlab), rtol=1e-12, atol=1e-12)
    assert list(ce.state_dict()) == list(tce.state_dict()) == ["weight"]


def test_loss_errors_as_torch():
    x, tx, y, ty = _regression_pair(34)
    both_raise(lambda: F.huber_loss(x, y, delta=0.0), lambda: TF.huber_loss(tx, ty, delta=0.0))
    both_raise(lambda: F.smooth_l1_loss(x, y, beta=-1.0), lambda: TF.smooth_l1_loss(tx, ty, beta=-1.0))
    both_raise(lambda: F.mse_loss(x, y, weight=ag.ones(5, dtype=ag.float64)),
               lambda: TF.mse_loss(tx, ty, weight=torch.ones(5, dtype=torch.float64)))
    both_raise(lambda: F.huber_loss(x, y, reduction="avg"), lambda: TF.huber_loss(tx, ty, reduction="avg"))
    c, tc, labels = _classification(35)
    lab, tlab = pair(labels)
    both_raise(lambda: F.cross_entropy(c, lab, ag.ones(3, dtype=ag.float64)),
               lambda: TF.cross_entropy(tc, tlab, torch.ones(3, dtype=torch.float64)))
    both_raise(lambda: F.cross_entropy(c, lab, label_smoothing=1.5),
               lambda: TF.cross_entropy(tc, tlab, label_smoothing=1.5))
    bad, tbad = pair(np.array([0, 1, 2, 3, 4, -100]))
    both_raise(lambda: F.cross_entropy(c, bad), lambda: TF.cross_entropy(tc, tbad))
    p, tp = pair(np.full((6, 4), 0.25))
    both_raise(lambda: F.cross_entropy(c, p, ignore_index=0), lambda: TF.cross_entropy(tc, tp, ignore_index=0))
    with pytest.raises(TypeError, match="class probabilities, which must be floating point"):
        F.cross_entropy(c, ag.zeros(6, 4, dtype=ag.int64))
    with pytest.raises(IndexError, match="^sort: dim 2"):
        ag.sort(c, 2)
    with pytest.raises(IndexError, match=r"or ignore_index=-100"):
        F.nll_loss(c, bad)


# -- einsum ------------------------------------------------------------------------------------------------------

EINSUMS = [  # (equation, operand shapes)
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]), ("bij->bji", [(2, 3, 4)]), ("i,i->", [(3,), (3,)]),
    ("ij->j", [(2, 3)]), ("ij->", [(2, 3)]), ("ij", [(2, 3)]), ("ji", [(2, 3)]), ("ij,kl->ijkl", [(2, 3), (1, 2)]),
    ("i,j->ij", [(3,), (2,)]), ("...ij,...jk", [(5, 2, 3), (3, 4)]), ("i...->...", [(2, 3, 4)]),
    ("...ij->ij", [(4, 2, 3)]), ("...->", [(2, 3)]), ("i...j,j->i", [(2, 4, 5, 3), (3,)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]), ("abc,cd,de->ae", [(2, 3, 4), (4, 5), (5, 2)]),
    ("ij,ij->ij", [(1, 3), (4, 3)]), ("iz,zj->iz", [(2, 1), (3, 2)]), ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),
    ("ijz,jk->ik", [(2, 3, 6), (3, 4)]), ("Ba,aB", [(2, 3), (3, 2)]), (" i j , j k -> i k ", [(2, 3), (3, 4)]),
    (",ij->ij", [(), (2, 3)]), ("ij,ij,ij->", [(2, 3), (2, 3), (2, 3)]),
]


@pytest.mark.parametrize("equation, shapes", EINSUMS, ids=[e for e, _ in EINSUMS])
def test_einsum_matches_torch_with_gradients(equation, shapes):
    ours, theirs = zip(*[pair(_data(s, 40 + k, "float64"), requires_grad=True) for k, s in enumerate(shapes)])
    y, ty = ag.einsum(equation, *ours), torch.einsum(equation, *theirs)
    close(y, ty, rtol=1e-12, atol=1e-12)
    _backward_both(y, ty)
    for a, b in zip(ours, theirs):
        close(a.grad, b.grad, rtol=1e-12, atol=1e-12)
    close(ag.einsum(equation, list(ours)), torch.einsum(equation, list(theirs)), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("equation, shapes", [("ij,jk->ik", [(2, 3), (3, 2)]), ("bi,bj->ij", [(3, 2), (3, 2)]),
                                              ("ij,jk,k->i", [(2, 3), (3, 2), (2,)])])
def test_einsum_second_derivatives_match_torch_and_finite_differences(equation, shapes):
    ours, theirs = zip(*[pair(_data(s, 50 + k, "float64"), requires_grad=True) for k, s in enumerate(shapes)])
    loss = (ag.einsum(equation, *ours) ** 2).sum()
    tloss = (torch.einsum(equation, *theirs) ** 2).sum()
    grads = ag.autograd.grad(loss, ours, create_graph=True)
    tgrads = torch.autograd.grad(tloss, theirs, create_graph=True)
    sum((g * g).sum() for g in grads).backward()
    sum((g * g).sum() for g in tgrads).backward()
    for a, b in zip(ours, theirs):
        close(a.grad, b.grad, rtol=1e-11, atol=1e-11)
    fresh = [ag.tensor(a.detach().numpy(), requires_grad=True) for a in ours]
    assert gradcheck(lambda *t: ag.einsum(equation, *t), tuple(fresh))
    assert gradgradcheck(lambda *t: ag.einsum(equation, *t), tuple(fresh))


@pytest.mark.parametrize("equation, shapes", [("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("...ii->...i", [(2, 3, 3)]),
                                             ("iji->j", [(3, 2, 3)]), ("iiii->i", [(2, 2, 2, 2)]),
                                             ("bii,bj->bij", [(2, 3, 3), (2, 4)])])
def test_einsum_of_a_diagonal_and_its_gradient_as_torch(equation, shapes):
    """A letter repeated within one operand is its diagonal, taken first with diagonal's gradient."""
    pairs = [pair(_data(shape, 55 + k, "float64")) for k, shape in enumerate(shapes)]
    ours = [a.requires_grad_() for a, _ in pairs]
    theirs = [ta.requires_grad_() for _, ta in pairs]
    y, ty = ag.einsum(equation, *ours), torch.einsum(equation, *theirs)
    close(y, ty, rtol=1e-12, atol=1e-12)
    w = np.linspace(0.5, 1.5, ty.numel()).reshape(tuple(ty.shape))
    (y * ag.tensor(w)).sum().backward()
    (ty * torch.tensor(w)).sum().backward()
    for a, ta in zip(ours, theirs):
        close(a.grad, ta.grad, rtol=1e-12, atol=1e-12)
    with ag.no_grad():
        close(ag.einsum(equation, *ours), ty, rtol=1e-12, atol=1e-12)
    assert gradgradcheck(lambda *t: ag.einsum(equation, *t), tuple(ours))


@pytest.mark.parametrize("equation, shapes", [
    ("ij,jk->ik", [(2, 3), (4, 4)]), ("ij,jk->il", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3)]), ("ij", [(2, 3), (2,)]),
    ("ijk", [(2, 3)]), ("ij->ii", [(2, 2)]), ("i.j", [(2, 3)]), ("i......j", [(2, 3)]),
])
def test_einsum_errors_as_torch(equation, shapes):
    ours, theirs = zip(*[pair(_data(s, 60 + k)) for k, s in enumerate(shapes)])
    both_raise(lambda: ag.einsum(equation, *ours), lambda: torch.einsum(equation, *theirs))
    a, ta = pair(_data((2, 3), 61))
    b, tb = pair(_data((3, 2), 62, "float64"))
    both_raise(lambda: ag.einsum("ij,jk", a, b), lambda: torch.einsum("ij,jk", ta, tb))


@pytest.mark.parametrize("equation, shapes, needs", [
    ("ij,jk->ik", [(2, 3), (3, 4)], (False, True)), ("jk,ij->ik", [(3, 4), (2, 3)], (True, False)),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)], (False, True, False)), ("i,i->", [(3,), (3,)], (True, False)),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)], (False, True)),
])
def test_einsum_of_operands_some_without_gradient_matches_torch(equation, shapes, needs):
    """Data times a weight: only one operand requires grad (the common case), also to second order."""
    ours, theirs = zip(*[pair(_data(s, 70 + k, "float64"), requires_grad=need)
                         for k, (s, need) in enumerate(zip(shapes, needs))])
    y, ty = ag.einsum(equation, *ours), torch.einsum(equation, *theirs)
    _backward_both(y, ty)
    for a, b in zip(ours, theirs):
        assert (a.grad is None) == (b.grad is None)
        if a.grad is not None:
            close(a.grad, b.grad, rtol=1e-12, atol=1e-12)
    wanted = [a for a, need in zip(ours, needs) if need]
    twanted = [b for b, need in zip(theirs, needs) if need]
    grads = ag.autograd.grad((ag.einsum(equation, *ours) * 2).sum(), wanted, create_graph=True)
    tgrads = torch.autograd.grad((torch.einsum(equation, *theirs) * 2).sum(), twanted, create_graph=True)
    for g, tg in zip(grads, tgrads):
        close(g, tg, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("equation, shapes", [("ij->", [(0, 3)]), ("i,j->", [(0,), (3,)]), ("i,i->i", [(1,), (0,)]),
                                              ("ij,j->i", [(2, 1), (0,)]), ("ij,jk->ik", [(2, 0), (0, 3)])])
def test_einsum_over_empty_dims_matches_torch(equation, shapes):
    ours, theirs = zip(*[pair(np.ones(s), requires_grad=True) for s in shapes])
    y, ty = ag.einsum(equation, *ours), torch.einsum(equation, *theirs)
    close(y, ty, rtol=0, atol=0)
    y.sum().backward()
    ty.sum().backward()
    for a, b in zip(ours, theirs):
        close(a.grad, b.grad, rtol=0, atol=0)


def test_einsum_of_float16_sums_in_float32_as_torch():
    a, ta = pair(_data((4, 2048), 80, "float16"))
    b, tb = pair(_data((2048, 4), 81, "float16"))
    y, ty = ag.einsum("ij,jk->ik", a, b), torch.einsum("ij,jk->ik", ta, tb)
    assert y.dtype == ag.float16
    close(y, ty, rtol=2e-3, atol=0.05)
    exact = torch.einsum("ij,jk->ik", ta.double(), tb.double())
    assert np.abs(y.numpy().astype(float) - exact.numpy()).max() < 0.05


def test_einsum_refuses_what_torch_refuses():
    a, ta = pair(_data((2, 3), 82))
    for eq, ops, tops in [("...i,...i", [a, ag.ones(4, 3)], [ta, torch.ones(4, 3)]),
                          ("ii->i", [ag.ones(1, 3)], [torch.ones(1, 3)]),
                          ("i\u00e9", [a], [ta])]:
        both_raise(lambda: ag.einsum(eq, *ops), lambda: torch.einsum(eq, *tops))
    both_raise(lambda: ag.einsum("ij", np.ones((2, 3))), lambda: torch.einsum("ij", np.ones((2, 3))))
    both_raise(lambda: ag.einsum(a, [0, 60]), lambda: torch.einsum(ta, [0, 60]))
    both_raise(lambda: ag.einsum("ii", ag.ones(2, 3, requires_grad=True)), lambda: torch.einsum("ii", torch.ones(2, 3)))


def test_einsum_sublist_form_as_torch():
    (a, ta), (b, tb) = pair(_data((2, 3), 83, "float64")), pair(_data((3, 4), 84, "float64"))
    close(ag.einsum(a, [0, 1], b, [1, 2], [0, 2]), torch.einsum(ta, [0, 1], tb, [1, 2], [0, 2]), rtol=1e-12, atol=1e-12)
    close(ag.einsum(a, [0, 27], b, [27, 2]), torch.einsum(ta, [0, 27], tb, [27, 2]), rtol=1e-12, atol=1e-12)
    cube, tcube = pair(_data((2, 3, 3), 85, "float64"))
    close(ag.einsum(cube, [Ellipsis, 0, 0], [Ellipsis, 0]), torch.einsum(tcube, [Ellipsis, 0, 0], [Ellipsis, 0]),
          rtol=1e-12, atol=1e-12)


# -- scaled_dot_product_attention --------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, mask", [({}, None), ({"is_causal": True}, None), ({"scale": 0.3}, None),
                                          ({}, "bool"), ({}, "float"), ({}, "a query that sees nothing"),
                                          ({"is_causal": True, "scale": 2.0}, None), ({}, "broadcast bool")])
@pytest.mark.parametrize("batched", [True, False])
def test_scaled_dot_product_attention_matches_torch(kwargs, mask, batched):
    lead = (2, 2) if batched else ()
    (q, tq), (k, tk), (v, tv) = (pair(_data(lead + s, 90 + i, "float64"), requires_grad=True)
                                 for i, s in enumerate([(3, 4), (5, 4), (5, 6)]))
    m = tm = None
    rng = np.random.default_rng(95)
    if mask in ("bool", "a query that sees nothing"):
        keep = rng.random((3, 5)) > 0.3
        if mask == "a query that sees nothing":
            keep[1] = False
        m, tm = pair(keep)
    elif mask == "broadcast bool":
        m, tm = pair(rng.random((1, 5)) > 0.3)
    elif mask == "float":
        m, tm = pair(rng.standard_normal((3, 5)))
    y = F.scaled_dot_product_attention(q, k, v, attn_mask=m, **kwargs)
    ty = TF.scaled_dot_product_attention(tq, tk, tv, attn_mask=tm, **kwargs)
    close(y, ty, rtol=1e-12, atol=1e-12)
    _backward_both(y, ty)
    for a, b in ((q, tq), (k, tk), (v, tv)):
        close(a.grad, b.grad, rtol=1e-11, atol=1e-12)
    assert np.isfinite(q.grad.numpy()).all()


def test_scaled_dot_product_attention_second_derivative_and_finite_differences():
    (q, tq), (k, tk), (v, tv) = (pair(_data(s, 96 + i, "float64"), requires_grad=True)
                                 for i, s in enumerate([(3, 2), (4, 2), (4, 2)]))
    loss = (F.scaled_dot_product_attention(q, k, v, is_causal=True) ** 2).sum()
    tloss = (TF.scaled_dot_product_attention(tq, tk, tv, is_causal=True) ** 2).sum()
    g = ag.autograd.grad(loss, (q, k, v), create_graph=True)
    tg = torch.autograd.grad(tloss, (tq, tk, tv), create_graph=True)
    sum((x * x).sum() for x in g).backward()
    sum((x * x).sum() for x in tg).backward()
    for a, b in ((q, tq), (k, tk), (v, tv)):
        close(a.grad, b.grad, rtol=1e-10, atol=1e-11)
    fresh = tuple(ag.tensor(t.detach().numpy(), requires_grad=True) for t in (q, k, v))
    assert gradcheck(lambda *t: F.scaled_dot_product_attention(*t), fresh)


def test_scaled_dot_product_attention_dropout_and_errors_as_torch():
    (q, tq), (k, tk), (v, tv) = (pair(_data(s, 97 + i)) for i, s in enumerate([(3, 4), (5, 4), (5, 6)]))
    close(F.scaled_dot_product_attention(q, k, v, dropout_p=1.0),
          TF.scaled_dot_product_attention(tq, tk, tv, dropout_p=1.0), rtol=0, atol=0)   # every weight dropped
    m, tm = pair(np.ones((3, 5), dtype=bool))
    both_raise(lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=True),
               lambda: TF.scaled_dot_product_attention(tq, tk, tv, attn_mask=tm, is_causal=True))
    both_raise(lambda: F.scaled_dot_product_attention(q, v, k), lambda: TF.scaled_dot_product_attention(tq, tv, tk))


def test_scaled_dot_product_attention_in_float16_edge_shapes_and_mask_dtypes_as_torch():
    (q, tq), (k, tk), (v, tv) = (pair(_data(s, 98 + i, "float16")) for i, s in enumerate([(16, 64), (64, 64),
                                                                                        (64, 8)]))
    y, ty = F.scaled_dot_product_attention(q, k, v), TF.scaled_dot_product_attention(tq, tk, tv)
    assert y.dtype == ag.float16
    close(y, ty, rtol=2e-3, atol=2e-3)                 # computed in float32 and rounded once, as torch on the CPU
    m, tm = pair(_data((16, 64), 101, "float32"))      # a float32 mask on float16 scores: cast, as torch
    close(F.scaled_dot_product_attention(q, k, v, attn_mask=m), TF.scaled_dot_product_attention(tq, tk, tv,
                                                                                             attn_mask=tm),
          rtol=2e-3, atol=2e-3)
    (q0, tq0), (k0, tk0), (v0, tv0) = (pair(np.zeros(s)) for s in [(2, 0), (3, 0), (3, 4)])   # E = 0
    v0, tv0 = pair(_data((3, 4), 102, "float64"))
    close(F.scaled_dot_product_attention(q0, k0, v0), TF.scaled_dot_product_attention(tq0, tk0, tv0), rtol=1e-12,
          atol=1e-12)
    a, ta = pair(_data((3, 4), 103))
    b, tb = pair(_data((5, 4), 104))
    c, tc = pair(_data((5, 6), 105))
    for bad, tbad in [(ag.tensor(np.ones((3, 5), np.uint8)), torch.tensor(np.ones((3, 5), np.uint8))),
                      (ag.tensor(np.ones((3, 5), np.int64)), torch.tensor(np.ones((3, 5), np.int64))),
                      (ag.ones(2, 3, 5, dtype=ag.bool), torch.ones(2, 3, 5, dtype=torch.bool))]:
        both_raise(lambda: F.scaled_dot_product_attention(a, b, c, attn_mask=bad),
                   lambda: TF.scaled_dot_product_attention(ta, tb, tc, attn_mask=tbad))
    both_raise(lambda: F.scaled_dot_product_attention(a[0], b[0], c[0]),
               lambda: TF.scaled_dot_product_attention(ta[0], tb[0], tc[0]))
    both_raise(lambda: F.scaled_dot_product_attention(a, b, c, dropout_p=1.5),
               lambda: TF.scaled_dot_product_attention(ta, tb, tc, dropout_p=1.5))
    both_raise(lambda: F.scaled_dot_product_attention(a.expand(2, 3, 4), b.expand(3, 5, 4), c),
               lambda: TF.scaled_dot_product_attention(ta.expand(2, 3, 4), tb.expand(3, 5, 4), tc))
