"""The ops that write or pick by index (``scatter``, ``scatter_add``, ``index_add``, ``take_along_dim``,
``masked_select``, ``nonzero``, ``argwhere``, ``unique``, ``bincount``, ``count_nonzero``), and ``cumprod``,
``hypot``, ``logaddexp``, ``fmod``, ``cross``, ``kron``, ``cdist``, run in both libraries on the same data:
values, dtypes, the first and second gradient of every input (float64), finite differences, and the exception
class torch raises."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import import_torch
from torch_compare import both_raise, close

import autogradlab as ag
from autogradlab.testing import gradcheck, gradgradcheck

torch = import_torch()


def _data(shape, seed, dtype="float64"):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _same(ours, theirs):
    assert ours.dtype == np.dtype(str(theirs.dtype).removeprefix("torch.")), (ours.dtype, theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12, atol=1e-12)


def _run(call_ag, call_torch, arrays, int_args=(), square=True, second=True):
    """Call both on float64 leaves made from ``arrays`` (each squared first unless ``square=False``, so the
    second derivative of a linear op is not zero) and the integer tensors ``int_args``; compare the output,
    the gradient of sum(out * w) for every leaf, and (unless ``second=False``) the gradient of sum(grad * v)."""
    ours = [ag.tensor(a.copy(), requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a.copy(), requires_grad=True) for a in arrays]
    ints_ag = [ag.tensor(np.asarray(i)) for i in int_args]
    ints_t = [torch.tensor(np.asarray(i)) for i in int_args]
    out = call_ag(*[x * x if square else x for x in ours], *ints_ag)
    tout = call_torch(*[x * x if square else x for x in theirs], *ints_t)
    _same(out, tout)
    w = _data(tuple(tout.shape), 99)
    grads = ag.autograd.grad((out * ag.tensor(w)).sum(), ours, create_graph=True)
    tgrads = torch.autograd.grad((tout * torch.tensor(w)).sum(), theirs, create_graph=True)
    for g, tg in zip(grads, tgrads):
        _same(g, tg)
    if not second:
        return
    v = [_data(a.shape, 50 + k) for k, a in enumerate(arrays)]
    for g, tg, x in zip(_second(ag, grads, ours, v), _second(torch, tgrads, theirs, v), ours):
        if g is None or tg is None:   # (not connected on one side: the other must be 0 or not connected either)
            assert g is None or not g.detach().numpy().any()
            assert tg is None or not tg.detach().numpy().any()
        else:
            _same(g, tg)


def _second(lib, grads, leaves, v):
    """The gradient of sum(grads * v) for each leaf (None: not connected to it)."""
    loss = sum((g * lib.tensor(vk)).sum() for g, vk in zip(grads, v))
    if not loss.requires_grad:
        return [None] * len(leaves)
    return lib.autograd.grad(loss, leaves, allow_unused=True)


def _ints(values, dtype=np.int64):
    return np.asarray(values, dtype=dtype)


# -- scatter, scatter_add, index_add, take_along_dim ------------------------------------------------------------

SCATTER_CASES = [  # (input shape, dim, index, src shape): scatter's indices unique along dim
    ((3, 4), 0, [[0, 1, 2, 0]], (1, 4)),
    ((3, 4), 1, [[3, 0], [1, 2]], (2, 2)),
    ((3, 4), -1, [[2], [0], [1]], (3, 1)),
    ((2, 3, 2), 1, [[[2, 0], [0, 2]]], (1, 2, 2)),
    ((3, 4), 0, np.zeros((2, 0)), (2, 0)),        # empty index: input unchanged
    ((), 0, 0, ()),                                # 0-d
]


@pytest.mark.parametrize("shape, dim, index, src_shape", SCATTER_CASES)
def test_scatter(shape, dim, index, src_shape):
    _run(lambda a, s, i: ag.scatter(a, dim, i, s), lambda a, s, i: torch.scatter(a, dim, i, s),
         [_data(shape, 1), _data(src_shape, 2)], [_ints(index)])
    _run(lambda a, s, i: a.scatter(dim, i, s), lambda a, s, i: a.scatter(dim, i, s),
         [_data(shape, 1), _data(src_shape, 2)], [_ints(index, np.int32)])


@pytest.mark.parametrize("scatter", ["scatter", "scatter_add"])
def test_src_larger_than_index(scatter):
    """Only src's corner of index's shape is written. Torch's backward fails here (its gradient for src has
    index's shape, not src's); ours puts zeros where src was not read."""
    a, s, i = _data((3, 4), 1), _data((2, 3), 2), _ints([[3, 0], [1, 2]])
    x, src = ag.tensor(a, requires_grad=True), ag.tensor(s, requires_grad=True)
    out = getattr(ag, scatter)(x, 1, ag.tensor(i), src)
    _same(out, getattr(torch, scatter)(torch.tensor(a), 1, torch.tensor(i), torch.tensor(s)))
    out.sum().backward()
    np.testing.assert_array_equal(src.grad.numpy(), [[1, 1, 0], [1, 1, 0]])
    assert gradcheck(lambda x, src: getattr(ag, scatter)(x, 1, ag.tensor(i), src * src), (x, src))


def test_scatter_a_number_and_int_and_bool_dtypes():
    _run(lambda a, i: ag.scatter(a, 1, i, 2.5), lambda a, i: torch.scatter(a, 1, i, 2.5),
         [_data((2, 3), 3)], [_ints([[2, 0], [1, 1]])[:, :1]])
    for dtype, value in (("int64", 7), ("int32", -2), ("bool", True)):
        base = np.zeros((2, 3), dtype=dtype)
        index = _ints([[2], [0]])
        src = np.ones((2, 1), dtype=dtype)
        _same(ag.scatter(ag.tensor(base), 1, ag.tensor(index), ag.tensor(src)),
              torch.scatter(torch.tensor(base), 1, torch.tensor(index), torch.tensor(src)))
        _same(ag.scatter(ag.tensor(base), 1, ag.tensor(index), value),
              torch.scatter(torch.tensor(base), 1, torch.tensor(index), value))


SCATTER_ADD_CASES = SCATTER_CASES + [  # repeated indices add up
    ((3, 4), 0, [[0, 0, 2, 0], [0, 1, 2, 0]], (2, 4)),
    ((2, 5), -1, [[1, 1, 1], [4, 0, 4]], (2, 3)),
]


@pytest.mark.parametrize("shape, dim, index, src_shape", SCATTER_ADD_CASES)
def test_scatter_add(shape, dim, index, src_shape):
    _run(lambda a, s, i: ag.scatter_add(a, dim, i, s), lambda a, s, i: torch.scatter_add(a, dim, i, s),
         [_data(shape, 4), _data(src_shape, 5)], [_ints(index)])
    _run(lambda a, s, i: a.scatter_add(dim, i, s), lambda a, s, i: a.scatter_add(dim, i, s),
         [_data(shape, 4), _data(src_shape, 5)], [_ints(index, np.int32)])


@pytest.mark.parametrize("reduce", ["sum", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("shape, dim, index, src_shape", SCATTER_ADD_CASES, ids=str)
def test_scatter_reduce(shape, dim, index, src_shape, reduce, include_self):
    """GNN message passing's aggregation: values, gradients and second derivatives as torch's (random values:
    no ties), and gradcheck against finite differences."""
    def call(a, s, i):
        return a.scatter_reduce(dim, i, s, reduce, include_self=include_self)
    _run(call, call, [_data(shape, 4), _data(src_shape, 5)], [_ints(index)], second=reduce in ("sum", "mean"))
    x, src = (ag.tensor(_data(s_, k), requires_grad=True) for s_, k in ((shape, 6), (src_shape, 7)))
    assert gradcheck(lambda x, src: ag.scatter_reduce(x, dim, ag.tensor(_ints(index)), src, reduce,
                                                      include_self=include_self), (x, src))


def test_scatter_reduce_splits_the_gradient_among_ties_and_keeps_integers():
    """Ties: torch's gradient split, except (a decided difference, README) when the input's own value ties the
    result but include_self=False leaves it out: torch still counts it among the ties, halving the gradient
    of the src value that is the maximum; here the src value gets all of it, as finite differences say."""
    g = [1.0, 2.0, 3.0, 4.0]
    results = []
    for T in (ag, torch):
        x = T.tensor([1.0, 5.0, 3.0, 2.0], requires_grad=True)
        src = T.tensor([4.0, 5.0, 1.0, 7.0, 7.0], requires_grad=True)
        index = T.tensor([0, 1, 1, 3, 3])
        row = []
        for reduce in ("amax", "amin"):
            out = x.scatter_reduce(0, index, src, reduce=reduce)
            row.append([out.tolist()] + [t.tolist() for t in T.autograd.grad(out, (x, src), T.tensor(g))])
        out = x.scatter_reduce(0, index, src, reduce="amax", include_self=False)
        gx, gs = T.autograd.grad(out, (x, src), T.tensor(g))
        row.append((out.tolist(), gx.tolist(), gs.tolist()))
        ints = T.tensor([-1, 5, 3, 2]).scatter_reduce(0, T.tensor([0, 0, 2]), T.tensor([-4, 1, 8]), "mean")
        row.append((ints.tolist(), str(ints.dtype)))
        results.append(row)
    (ours, theirs) = results
    assert ours[:2] == theirs[:2] and ours[3][0] == theirs[3][0] == [-2, 5, 5, 2]
    assert ours[2][:2] == theirs[2][:2]
    assert ours[2][2] == [1.0, 2.0, 0.0, 2.0, 2.0] and theirs[2][2] == [1.0, 1.0, 0.0, 2.0, 2.0]
    x = ag.tensor([1.0, 5.0], dtype=ag.float64, requires_grad=True)
    src = ag.tensor([5.0, 1.0], dtype=ag.float64, requires_grad=True)
    assert gradcheck(lambda s: ag.scatter_reduce(x.detach(), 0, ag.tensor([1, 1]), s, "amax",
                                                 include_self=False), (src,))


def test_scatter_reduce_of_bools_and_of_a_nan_as_torch():
    results = []
    for T in (ag, torch):
        flags, index, sent = T.tensor([True, False, False]), T.tensor([0, 1]), T.tensor([False, True])
        bools = [flags.scatter_reduce(0, index, sent, reduce, include_self=False).tolist()
                 for reduce in ("amax", "amin")]
        x = T.tensor([1.0, 2.0], requires_grad=True)
        src = T.tensor([float("nan"), 3.0], requires_grad=True)
        out = x.scatter_reduce(0, T.tensor([0, 0]), src, "amax")
        out.sum().backward()
        results.append((bools, str(out.tolist()), str(x.grad.tolist()), str(src.grad.tolist())))
    assert results[0] == results[1]
    assert results[0][0] == [[False, True, False], [False, True, False]] and "nan" in results[0][3]


def test_scatter_reduce_in_place_and_its_errors_as_torch():
    for T in (ag, torch):
        t = T.zeros(3)
        t.scatter_reduce_(0, T.tensor([0, 0, 2]), T.tensor([1.0, 3.0, 2.0]), "amax", include_self=False)
        assert t.tolist() == [3.0, 0.0, 2.0]
        assert t.scatter_reduce(0, T.tensor([1, 1]), T.tensor([3.0, 7.0]), "max").tolist() == [3.0, 7.0, 2.0]
    both_raise(lambda: ag.zeros(3).scatter_reduce(0, ag.tensor([0]), ag.ones(1), "add"),
               lambda: torch.zeros(3).scatter_reduce(0, torch.tensor([0]), torch.ones(1), "add"))
    both_raise(lambda: ag.zeros(3).scatter_reduce(0, ag.tensor([5]), ag.ones(1), "sum"),
               lambda: torch.zeros(3).scatter_reduce(0, torch.tensor([5]), torch.ones(1), "sum"))
    for T in (ag, torch):
        t = T.tensor([2.0, 0.5, 3.0])
        t.scatter_reduce_(0, T.tensor([0, 0, 2]), T.tensor([1.5, 4.0, 2.0]), "prod")
        assert t.tolist() == [12.0, 0.5, 6.0]


@pytest.mark.parametrize("include_self", [True, False], ids=["with-self", "without-self"])
@pytest.mark.parametrize("zeros", ["none", "one-src-zero", "two-src-zeros", "zero-self", "everywhere"])
def test_scatter_reduce_prod_first_and_second_order_as_torch(include_self, zeros):
    """The product's gradient is the product of the others: zeros among the factors (one, two, in the input
    itself) are where a formula that divides by the value would go wrong."""
    rng = np.random.default_rng(7)
    x, src, index = rng.standard_normal((3, 4)), rng.standard_normal((5, 4)), rng.integers(0, 3, (5, 4))
    index[:, 1] = [0, 0, 1, 1, 2]
    if zeros in ("one-src-zero", "everywhere"):
        src[0, 1] = 0.0
    if zeros in ("two-src-zeros", "everywhere"):
        src[2, 1] = src[3, 1] = 0.0
    if zeros in ("zero-self", "everywhere"):
        x[2, 1] = 0.0
    two_zeros = zeros in ("two-src-zeros", "everywhere")   # (both refuse a second derivative there)
    results = []
    for T in (ag, torch):
        a, s = T.tensor(x, requires_grad=True), T.tensor(src, requires_grad=True)
        out = a.scatter_reduce(0, T.tensor(index), s, "prod", include_self=include_self)
        if two_zeros:   # (ours refuses to record the gradient, torch its backward: see README's differences)
            with pytest.raises(RuntimeError, match="Double backward is unsupported"):
                recorded = T.autograd.grad((out * out.cos()).sum(), (a, s), create_graph=True, retain_graph=True)
                sum(g.sum() for g in recorded).backward()
        ga, gs = T.autograd.grad((out * out.cos()).sum(), (a, s), create_graph=not two_zeros)
        if not two_zeros:
            (ga.sin().sum() + (gs * gs).sum()).backward()
        results.append([out, ga, gs] + ([] if two_zeros else [a.grad, s.grad]))
    for ours, theirs in zip(*results):
        close(ours, theirs, rtol=1e-10, atol=1e-12)
    a = ag.tensor(x, requires_grad=True)
    s = ag.tensor(src, requires_grad=True)
    assert gradcheck(lambda a, s: a.scatter_reduce(0, ag.tensor(index), s, "prod", include_self=include_self),
                     (a, s))
    if not two_zeros:
        assert gradgradcheck(lambda a, s: a.scatter_reduce(0, ag.tensor(index), s, "prod",
                                                           include_self=include_self), (a, s))


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
def test_scatter_add_integers_and_bools(dtype):
    base, src, index = np.ones((2, 3), dtype=dtype), np.ones((2, 2), dtype=dtype), _ints([[0, 0], [2, 2]])
    _same(ag.scatter_add(ag.tensor(base), 1, ag.tensor(index), ag.tensor(src)),
          torch.scatter_add(torch.tensor(base), 1, torch.tensor(index), torch.tensor(src)))


INDEX_ADD_CASES = [  # (input shape, dim, index, source shape, alpha)
    ((3, 4), 0, [0, 2], (2, 4), 1),
    ((3, 4), 0, [2, 2, 0, 2], (4, 4), 2.5),       # repeats add up
    ((3, 4), -1, [1, 1, 3], (3, 3), -1),
    ((2, 3, 4), 1, [0], (2, 1, 4), 1),
    ((3, 4), 1, [], (3, 0), 1),
    ((), 0, 0, (), 3),                            # 0-d input, index and source
]


@pytest.mark.parametrize("shape, dim, index, source_shape, alpha", INDEX_ADD_CASES)
def test_index_add(shape, dim, index, source_shape, alpha):
    _run(lambda a, s, i: ag.index_add(a, dim, i, s, alpha=alpha),
         lambda a, s, i: torch.index_add(a, dim, i, s, alpha=alpha),
         [_data(shape, 6), _data(source_shape, 7)], [_ints(index)])
    _run(lambda a, s, i: a.index_add(dim, i, s, alpha=alpha), lambda a, s, i: a.index_add(dim, i, s, alpha=alpha),
         [_data(shape, 6), _data(source_shape, 7)], [_ints(index, np.int32)])


@pytest.mark.parametrize("dtype, alpha", [("int64", 2), ("int32", 3), ("bool", 1), ("int64", 2.5), ("int32", -1.5)])
def test_index_add_integers_and_bools(dtype, alpha):
    base, source, index = np.ones((3, 2), dtype=dtype), np.full((2, 2), 3).astype(dtype), _ints([2, 2])
    _same(ag.index_add(ag.tensor(base), 0, ag.tensor(index), ag.tensor(source), alpha=alpha),
          torch.index_add(torch.tensor(base), 0, torch.tensor(index), torch.tensor(source), alpha=alpha))


TAKE_CASES = [  # (input shape, indices, dim)
    ((3, 4), [[0, -1]], 1),                      # negative indices count from the end; broadcast along dim 0
    ((3, 4), [[2, 2, 0, 1]], 0),
    ((3, 1), [[0, 0], [0, 0], [0, 0]], -1),
    ((2, 1, 3), np.zeros((1, 4, 2)), 2),          # both broadcast
    ((3, 4), [[5, 0], [11, 11]], None),           # of the flattened input
    ((), 0, None),
    ((3, 4), np.zeros((3, 0)), 1),
]


@pytest.mark.parametrize("shape, indices, dim", TAKE_CASES)
def test_take_along_dim(shape, indices, dim):
    _run(lambda a, i: ag.take_along_dim(a, i, dim), lambda a, i: torch.take_along_dim(a, i, dim),
         [_data(shape, 8)], [_ints(indices)])
    _run(lambda a, i: a.take_along_dim(i, dim=dim), lambda a, i: a.take_along_dim(i, dim=dim),
         [_data(shape, 8)], [_ints(indices)])


def test_take_along_dim_of_ints():
    a, i = np.arange(6).reshape(2, 3), _ints([[2], [0]])
    _same(ag.take_along_dim(ag.tensor(a), ag.tensor(i), 1), torch.take_along_dim(torch.tensor(a), torch.tensor(i), 1))


def test_gradients_match_finite_differences():
    index = ag.tensor(_ints([[0, 0, 2, 0], [1, 1, 2, 0]]))
    a, s = ag.tensor(_data((3, 4), 9), requires_grad=True), ag.tensor(_data((2, 4), 10), requires_grad=True)
    assert gradcheck(lambda a, s: ag.scatter_add(a, 0, index, s * s), (a, s))
    assert gradgradcheck(lambda a, s: ag.scatter_add(a * a, 0, index, s * s), (a, s))
    assert gradcheck(lambda a, s: ag.scatter(a, 0, index[:1], s * s), (a, s))
    assert gradcheck(lambda a, s: ag.index_add(a, 1, ag.tensor(_ints([3, 3])), a[:, :2] * a[:, 1:3], alpha=2),
                     (a, s))
    assert gradcheck(lambda a: ag.take_along_dim(a * a, ag.tensor(_ints([[1, -1]])), 1), (a,))
    assert gradgradcheck(lambda a: ag.masked_select(a * a, a > 0), (a,))


# -- in place -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, args", [("scatter_", (0, [[2, 0, 1, 1]], (1, 4))),
                                        ("scatter_add_", (1, [[0, 0], [3, 3], [1, 2]], (3, 2))),
                                        ("index_add_", (0, [2, 2], (2, 4)))])
def test_inplace_versions(name, args):
    dim, index, src_shape = args
    a, s = _data((3, 4), 11), _data(src_shape, 12)
    x, tx = ag.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    src, tsrc = ag.tensor(s, requires_grad=True), torch.tensor(s, requires_grad=True)
    y, ty = x * 1, tx * 1
    returned, treturned = getattr(y, name)(dim, ag.tensor(_ints(index)), src), \
        getattr(ty, name)(dim, torch.tensor(_ints(index)), tsrc)
    assert returned is y and treturned is ty
    _same(y, ty)
    w = _data((3, 4), 13)
    (y * ag.tensor(w)).sum().backward()
    (ty * torch.tensor(w)).sum().backward()
    _same(x.grad, tx.grad)
    _same(src.grad, tsrc.grad)
    leaf, tleaf = ag.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    both_raise(lambda: getattr(leaf, name)(dim, ag.tensor(_ints(index)), src),
               lambda: getattr(tleaf, name)(dim, torch.tensor(_ints(index)), tsrc))


def test_inplace_scatter_of_a_number_and_a_tensor_that_does_not_record():
    x, tx = ag.zeros(2, 3, dtype=ag.float64), torch.zeros(2, 3, dtype=torch.float64)
    i = _ints([[2], [0]])
    x.scatter_(1, ag.tensor(i), 4.5)
    tx.scatter_(1, torch.tensor(i), 4.5)
    _same(x, tx)
    x.scatter_add_(1, ag.tensor(i), ag.ones(2, 1, dtype=ag.float64))
    tx.scatter_add_(1, torch.tensor(i), torch.ones(2, 1, dtype=torch.float64))
    _same(x, tx)
    x.index_add_(1, ag.tensor(_ints([1, 1])), ag.ones(2, 2, dtype=ag.float64), alpha=-2)
    tx.index_add_(1, torch.tensor(_ints([1, 1])), torch.ones(2, 2, dtype=torch.float64), alpha=-2)
    _same(x, tx)


def test_a_refused_inplace_write_changes_nothing():
    x = ag.tensor(_data((3, 4), 14))
    before = x.numpy().copy()
    with pytest.raises(RuntimeError, match="out of bounds"):
        x.scatter_(0, ag.tensor(_ints([[0, 5, 0, 0]])), ag.ones(1, 4, dtype=ag.float64))
    with pytest.raises(RuntimeError, match="same scalar type"):
        x.index_add_(0, ag.tensor(_ints([0])), ag.ones(1, 4))
    np.testing.assert_array_equal(x.numpy(), before)
    assert x._version == 0


# -- errors -------------------------------------------------------------------------------------------------------

def _pair(values, dtype="float32"):
    return ag.tensor(np.asarray(values, dtype=dtype)), torch.tensor(np.asarray(values, dtype=dtype))


ERRORS = {  # name -> (a call on our tensors, the same on torch's, a fragment of our message)
    "scatter float index": (lambda m, x, i: m.scatter(x, 0, i.float(), m.ones(1, 4)), "int64"),
    "scatter index out of bounds": (lambda m, x, i: m.scatter(x, 0, i * 3, m.ones(1, 4)), "out of bounds"),
    "scatter negative index": (lambda m, x, i: m.scatter(x, 0, -i - 1, m.ones(1, 4)), "out of bounds"),
    "scatter src dtype": (lambda m, x, i: m.scatter(x, 0, i, m.ones(1, 4, dtype=m.float64)), "src.dtype"),
    "scatter src too small": (lambda m, x, i: m.scatter(x, 0, i, m.ones(1, 3)), "no larger than"),
    "scatter index dims": (lambda m, x, i: m.scatter(x, 0, i[0], m.ones(4)), "same number of dimensions"),
    "scatter dim": (lambda m, x, i: m.scatter(x, 2, i, m.ones(1, 4)), "dim"),
    "scatter_add src number": (lambda m, x, i: m.scatter_add(x, 0, i, 1.0), "Tensor"),
    "scatter_add index too big": (lambda m, x, i: m.scatter_add(x, 0, m.zeros(1, 5, dtype=m.int64),
                                                                m.ones(1, 5)), "no larger than"),
    "index_add out of bounds": (lambda m, x, i: m.index_add(x, 0, i[0, :2] + 3, m.ones(2, 4)), "out of bounds"),
    "index_add source shape": (lambda m, x, i: m.index_add(x, 0, i[0, :2], m.ones(2, 3)), "shape"),
    "index_add count": (lambda m, x, i: m.index_add(x, 0, i[0, :2], m.ones(3, 4)), "Number of indices"),
    "index_add 2-d index": (lambda m, x, i: m.index_add(x, 0, i[:, :2], m.ones(2, 4)), "vector"),
    "index_add dtype": (lambda m, x, i: m.index_add(x, 0, i[0, :2], m.ones(2, 4, dtype=m.float64)), "scalar type"),
    "index_add float index": (lambda m, x, i: m.index_add(x, 0, i[0, :2].float(), m.ones(2, 4)), "int32 or int64"),
    "take_along_dim int32": (lambda m, x, i: m.take_along_dim(x, i.int(), 1), "Long"),
    "take_along_dim dims": (lambda m, x, i: m.take_along_dim(x, i[0], 1), "same number of dimensions"),
    "take_along_dim 0-d dim": (lambda m, x, i: m.take_along_dim(x[0, 0], i[0, 0], 0), "dim"),
    "masked_select float mask": (lambda m, x, i: m.masked_select(x, m.ones(4)), "BoolTensor"),
    "masked_select shapes": (lambda m, x, i: m.masked_select(x, m.ones(3, dtype=m.bool)), "broadcast"),
    "bincount negative": (lambda m, x, i: m.bincount(i[0] - 1), "non-negative"),
    "bincount 2-d": (lambda m, x, i: m.bincount(i), "1-d"),
    "bincount floats": (lambda m, x, i: m.bincount(x[0]), "integers"),
    "bincount minlength": (lambda m, x, i: m.bincount(i[0], minlength=-1), "minlength"),
    "bincount weights": (lambda m, x, i: m.bincount(i[0], weights=m.ones(3)), "weights"),
    "count_nonzero repeated dim": (lambda m, x, i: m.count_nonzero(x, dim=(0, 0)), "more than once"),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(name):
    call, fragment = ERRORS[name]
    (x, tx), (i, ti) = _pair(np.zeros((3, 4))), _pair([[0, 1, 2, 0]], "int64")
    both_raise(lambda: call(ag, x, i), lambda: call(torch, tx, ti))
    with pytest.raises(Exception, match=fragment):
        call(ag, x, i)


def test_unique_along_dim_0_of_a_vector_is_the_plain_unique_as_torch():
    for T in (ag, torch):
        assert T.unique(T.tensor([3, 1, 3, 2]), dim=0).tolist() == [1, 2, 3]


# -- masked_select and the index-valued ops -------------------------------------------------------------------

@pytest.mark.parametrize("shape, mask", [((2, 3), [[True, False, True], [False, False, True]]),
                                         ((2, 3), [True, False, True]),      # the mask broadcasts
                                         ((3,), [[True, False, True], [True, True, False]]),   # the input does
                                         ((), True), ((), False), ((0, 3), [True, False, True]),
                                         ((2, 3), np.zeros((2, 3), bool))])
def test_masked_select(shape, mask):
    m = np.asarray(mask, dtype=bool)
    _run(lambda a: ag.masked_select(a, ag.tensor(m)), lambda a: torch.masked_select(a, torch.tensor(m)),
         [_data(shape, 15)])
    _run(lambda a: a.masked_select(ag.tensor(m)), lambda a: a.masked_select(torch.tensor(m)), [_data(shape, 15)])


def test_masked_select_of_ints():
    a, m = np.arange(6, dtype=np.int32).reshape(2, 3), np.array([False, True, True])
    _same(ag.masked_select(ag.tensor(a), ag.tensor(m)), torch.masked_select(torch.tensor(a), torch.tensor(m)))


INDEX_INPUTS = [np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]]), np.array([0, 3, 3, 0, 1]), np.array(2.0),
                np.array(0), np.zeros((0, 2)), np.array([[True, False], [True, True]]),
                np.array([[[0, 1], [1, 0]]], dtype=np.int32)]


@pytest.mark.parametrize("k", range(len(INDEX_INPUTS)))
def test_nonzero_argwhere_count_nonzero_unique(k):
    a = INDEX_INPUTS[k]
    x, tx = ag.tensor(a), torch.tensor(a)
    _same(ag.nonzero(x), torch.nonzero(tx))
    _same(x.nonzero(), tx.nonzero())
    _same(ag.argwhere(x), torch.argwhere(tx))
    ours, theirs = ag.nonzero(x, as_tuple=True), torch.nonzero(tx, as_tuple=True)
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        _same(o, t)
    _same(ag.count_nonzero(x), torch.count_nonzero(tx))
    for dim in range(-x.ndim, x.ndim):
        _same(x.count_nonzero(dim=dim), tx.count_nonzero(dim=dim))
    if x.ndim >= 2:
        _same(ag.count_nonzero(x, dim=(0, -1)), torch.count_nonzero(tx, dim=(0, -1)))
    _same(ag.count_nonzero(x, dim=()), torch.count_nonzero(tx, dim=()))
    for inverse in (False, True):
        for counts in (False, True):
            for is_sorted in (True, False):
                ours = ag.unique(x, sorted=is_sorted, return_inverse=inverse, return_counts=counts)
                theirs = torch.unique(tx, sorted=is_sorted, return_inverse=inverse, return_counts=counts)
                ours, theirs = (ours, theirs) if isinstance(theirs, tuple) else ((ours,), (theirs,))
                assert len(ours) == len(theirs)
                for o, t in zip(ours, theirs):
                    _same(o, t)
    _same(x.unique(), tx.unique())


def test_index_valued_results_do_not_require_grad():
    x = ag.tensor(_data((2, 3), 16), requires_grad=True)
    for out in (ag.nonzero(x), ag.argwhere(x), ag.unique(x), ag.count_nonzero(x), *ag.nonzero(x, as_tuple=True),
                ag.bincount(ag.tensor(_ints([0, 1, 1])), weights=x[0])):
        assert not out.requires_grad


@pytest.mark.parametrize("values, weights, minlength", [([0, 2, 2, 5], None, 0), ([1, 1], None, 4), ([], None, 0),
                                                        ([], None, 3), ([0, 2, 2], "float32", 0),
                                                        ([0, 2, 2], "float64", 5), ([0, 2, 2], "int64", 0),
                                                        ([3], "bool", 0)])
def test_bincount(values, weights, minlength):
    for dtype in ("int64", "int32", "uint8"):
        v = np.asarray(values, dtype=dtype)
        w = None if weights is None else np.asarray([1.5, -2.0, 3.25][:len(values)], dtype=weights)
        ours = ag.bincount(ag.tensor(v), None if w is None else ag.tensor(w), minlength=minlength)
        theirs = torch.bincount(torch.tensor(v), None if w is None else torch.tensor(w), minlength=minlength)
        _same(ours, theirs)
    _same(ag.tensor(v).bincount(minlength=minlength), torch.tensor(v).bincount(minlength=minlength))


# -- cumprod, hypot, logaddexp, fmod, cross, kron, cdist --------------------------------------------------------

CUMPROD_INPUTS = {
    "no zeros": _data((3, 4), 20),
    "one zero": np.array([[2.0, 0.0, 3.0, -1.5], [1.5, 2.0, -0.5, 0.0]]),
    "two zeros": np.array([[2.0, 0.0, 3.0, 0.0, 5.0], [0.0, 0.0, 1.5, 2.0, -1.0]]),
    "all zeros": np.zeros((2, 3)),
}


@pytest.mark.parametrize("name", CUMPROD_INPUTS)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumprod(name, dim):
    a = CUMPROD_INPUTS[name]
    _run(lambda x: ag.cumprod(x, dim), lambda x: torch.cumprod(x, dim), [a], square=False)
    _run(lambda x: x.cumprod(dim=dim), lambda x: x.cumprod(dim=dim), [a], square=False)


@pytest.mark.parametrize("shape, dim", [((), 0), ((), -1), ((0, 3), 0), ((0, 3), 1), ((2, 3, 4), 1), ((5,), 0)])
def test_cumprod_shapes(shape, dim):
    _run(lambda x: ag.cumprod(x, dim), lambda x: torch.cumprod(x, dim), [_data(shape, 21)], square=False)


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool", "float32"])
def test_cumprod_dtypes(dtype):
    a = np.array([[1, 2, 0], [3, 1, 2]]).astype(dtype)
    _same(ag.cumprod(ag.tensor(a), 1), torch.cumprod(torch.tensor(a), 1))
    _same(ag.cumprod(ag.tensor(a), 0, dtype=ag.float64), torch.cumprod(torch.tensor(a), 0, dtype=torch.float64))


def test_cumprod_gradient_with_zeros_matches_finite_differences():
    x = ag.tensor(CUMPROD_INPUTS["two zeros"], requires_grad=True)
    assert gradcheck(lambda x: ag.cumprod(x, 1), (x,))
    assert gradgradcheck(lambda x: ag.cumprod(x, 1), (x,))


@pytest.mark.parametrize("name", ["hypot", "logaddexp", "fmod"])
@pytest.mark.parametrize("shapes", [((2, 3), (2, 3)), ((2, 3), (3,)), ((), (2,)), ((0, 2), (2,))])
def test_binary_elementwise(name, shapes):
    # fmod away from its jumps (where a/b is whole): |b| in [1.5, 2.5], a not near a multiple of it
    sign = np.where(_data(shapes[1], 24) > 0, 1.0, -1.0)
    arrays = [_data(shapes[0], 22), sign * (1.5 + np.abs(_data(shapes[1], 23)) % 1.0)]
    if name == "fmod":
        arrays[0] = np.round(arrays[0] * 3) + 0.3
    _run(lambda a, b: getattr(ag, name)(a, b), lambda a, b: getattr(torch, name)(a, b), arrays, square=False)
    _run(lambda a, b: getattr(a, name)(b), lambda a, b: getattr(a, name)(b), arrays, square=False)


def test_binary_elementwise_edges():
    z = np.array([0.0, 3.0, -np.inf, np.inf, 1e300])
    w = np.array([0.0, -4.0, -np.inf, 1.0, 1e300])
    for name in ("hypot", "logaddexp"):
        with np.errstate(all="ignore"):   # (hypot at 0, 0: a NaN gradient in both)
            _run(lambda a, b: getattr(ag, name)(a, b), lambda a, b: getattr(torch, name)(a, b), [z[:2], w[:2]],
                 square=False)
            _same(getattr(ag, name)(ag.tensor(z), ag.tensor(w)), getattr(torch, name)(torch.tensor(z), torch.tensor(w)))
    _run(lambda a: ag.fmod(a, 2.5), lambda a: torch.fmod(a, 2.5), [np.array([-4.0, 4.0, 0.3])], square=False)
    _same(ag.fmod(ag.tensor([5.0, -5.0, 0.0]), ag.tensor([0.0, 0.0, 0.0])),
          torch.fmod(torch.tensor([5.0, -5.0, 0.0]), torch.tensor([0.0, 0.0, 0.0])))


@pytest.mark.parametrize("a, b", [([5, -5, 7, -7], [3, 3, -2, -2]), ([5, -5], 3), ([5, -5], 2.5)])
def test_fmod_of_integers(a, b):
    for dtype in ("int64", "int32"):
        x, tx = ag.tensor(np.asarray(a, dtype)), torch.tensor(np.asarray(a, dtype))
        y, ty = (b, b) if not isinstance(b, list) else (ag.tensor(np.asarray(b, dtype)),
                                                         torch.tensor(np.asarray(b, dtype)))
        _same(ag.fmod(x, y), torch.fmod(tx, ty))


def test_float32_with_a_0d_float64_keeps_float32():
    a, b = np.ones(3, np.float32), np.array(2.0)
    for name in ("hypot", "logaddexp", "fmod"):
        _same(getattr(ag, name)(ag.tensor(a), ag.tensor(b)), getattr(torch, name)(torch.tensor(a), torch.tensor(b)))


@pytest.mark.parametrize("shapes, dim", [(((3,), (3,)), 0), (((2, 3), (2, 3)), 1), (((2, 3), (1, 3)), -1),
                                         (((3, 4), (3, 4)), 0), (((2, 3, 3), (2, 3, 3)), 1), (((0, 3), (0, 3)), 1)])
def test_cross(shapes, dim):
    arrays = [_data(s, 30 + k) for k, s in enumerate(shapes)]
    _run(lambda a, b: ag.cross(a, b, dim=dim), lambda a, b: torch.cross(a, b, dim=dim), arrays)
    _run(lambda a, b: a.cross(b, dim), lambda a, b: a.cross(b, dim), arrays)


def test_cross_without_dim_warns_and_takes_the_first_dim_of_size_3():
    a, b = _data((2, 3, 3), 31), _data((2, 3, 3), 32)
    with pytest.warns(UserWarning, match="dim"):
        ours = ag.cross(ag.tensor(a), ag.tensor(b))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(ours, torch.cross(torch.tensor(a), torch.tensor(b)))
    i = np.array([[1, 0, 0], [0, 2, 0]])
    j = i[::-1].copy()
    _same(ag.cross(ag.tensor(i), ag.tensor(j), dim=1), torch.cross(torch.tensor(i), torch.tensor(j), dim=1))


@pytest.mark.parametrize("shapes", [((2, 3), (3, 2)), ((2,), (3,)), ((2, 2), (3,)), ((), (2, 2)), ((2, 1, 2), (2, 3)),
                                    ((0, 2), (2, 2))])
def test_kron(shapes):
    arrays = [_data(s, 40 + k) for k, s in enumerate(shapes)]
    _run(lambda a, b: ag.kron(a, b), lambda a, b: torch.kron(a, b), arrays)
    _run(lambda a, b: a.kron(b), lambda a, b: a.kron(b), arrays)
    i, j = np.arange(4).reshape(2, 2), np.array([True, False])
    _same(ag.kron(ag.tensor(i), ag.tensor(j)), torch.kron(torch.tensor(i), torch.tensor(j)))
    _same(ag.kron(ag.tensor(i), ag.tensor(arrays[0])), torch.kron(torch.tensor(i), torch.tensor(arrays[0])))


@pytest.mark.parametrize("p", [2.0, 1.0, 2, 1])
@pytest.mark.parametrize("shapes", [((3, 2), (4, 2)), ((2, 3, 2), (2, 1, 2)), ((2, 3, 2), (1, 4, 2)), ((0, 2), (3, 2)),
                                    ((1, 3), (2, 3))])
def test_cdist(p, shapes):
    arrays = [_data(s, 50 + k) for k, s in enumerate(shapes)]
    # (torch has no second derivative for cdist; ours is checked by finite differences)
    _run(lambda a, b: ag.cdist(a, b, p=p), lambda a, b: torch.cdist(a, b, p=p), arrays, square=False, second=False)
    if p == 2:
        assert gradgradcheck(lambda a, b: ag.cdist(a, b, p=p), tuple(ag.tensor(x, requires_grad=True) for x in arrays))


@pytest.mark.parametrize("p", [2.0, 1.0])
def test_cdist_gradient_at_zero_distance_is_zero_as_torch(p):
    a = np.array([[1.0, 2.0], [0.5, -1.0]])
    x, tx = ag.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    ag.cdist(x, x * 1, p=p).sum().backward()
    torch.cdist(tx, tx * 1, p=p).sum().backward()
    _same(x.grad, tx.grad)


MORE_ERRORS = {
    "cumprod dim": lambda m: m.cumprod(m.ones(2, 3), 2),
    "hypot ints": lambda m: m.hypot(m.ones(2, dtype=m.int64), m.ones(2, dtype=m.int64)),
    "hypot number": lambda m: m.hypot(m.ones(2), 4.0),
    "logaddexp ints": lambda m: m.logaddexp(m.ones(2, dtype=m.int64), m.ones(2, dtype=m.int64)),
    "logaddexp number": lambda m: m.logaddexp(m.ones(2), 4.0),
    "fmod ints by 0": lambda m: m.fmod(m.ones(2, dtype=m.int64), m.zeros(2, dtype=m.int64)),
    "fmod ints by number 0": lambda m: m.fmod(m.ones(2, dtype=m.int64), 0),
    "fmod bools": lambda m: m.fmod(m.ones(2, dtype=m.bool), m.ones(2, dtype=m.bool)),
    "fmod number first": lambda m: m.fmod(3.0, m.ones(2)),
    "cross length": lambda m: m.cross(m.ones(2, 4), m.ones(2, 4), dim=1),
    "cross dtypes": lambda m: m.cross(m.ones(2, 3), m.ones(2, 3, dtype=m.float64), dim=1),
    "cross dim": lambda m: m.cross(m.ones(2, 3), m.ones(2, 3), dim=2),
    "cross shapes": lambda m: m.cross(m.ones(2, 3), m.ones(4, 3), dim=1),
    "kron number": lambda m: m.kron(m.ones(2), 2.0),
    "cdist 1-d": lambda m: m.cdist(m.ones(3), m.ones(4, 3)),
    "cdist columns": lambda m: m.cdist(m.ones(2, 3), m.ones(4, 2)),
    "cdist ints": lambda m: m.cdist(m.ones(2, 3, dtype=m.int64), m.ones(4, 3, dtype=m.int64)),
    "cdist negative p": lambda m: m.cdist(m.ones(2, 3), m.ones(4, 3), p=-1.0),
    "cdist dtypes": lambda m: m.cdist(m.ones(2, 3), m.ones(4, 3, dtype=m.float64)),
}


@pytest.mark.parametrize("name", MORE_ERRORS)
def test_more_errors_match_torch(name):
    both_raise(lambda: MORE_ERRORS[name](ag), lambda: MORE_ERRORS[name](torch))
