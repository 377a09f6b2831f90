"""Statistics (``median``, ``nanmedian``, ``kthvalue``, ``quantile``, ``nanquantile``, ``nansum``, ``nanmean``,
``std_mean``, ``var_mean``, ``cov``, ``corrcoef``), joining (``atleast_*d``, ``hstack``, ``vstack``, ``dstack``,
``column_stack``, ``tensor_split``, ``block_diag``, ``cartesian_prod``) and ``rot90``, ``take``, ``unfold``,
``diag_embed``, ``tensordot``, ``inner``, run in both libraries on the same inputs: values (NaN where NaN),
indices, dtypes, shapes, gradients (ties and NaN included) and the class of every error PyTorch raises.
(Smooth gradients are checked by finite differences in ``test_ops_gradcheck.py``'s table.)"""
from __future__ import annotations

import numpy as np
import pytest
from conftest import host, import_torch

import autogradlab as ag

torch = import_torch()

NAN = float("nan")


def _pair(value, dtype=None, requires_grad=False):
    arr = np.array(value, dtype=dtype)
    return (ag.tensor(arr, requires_grad=requires_grad),
            torch.tensor(arr, requires_grad=requires_grad))


def _leaves(results):
    if isinstance(results, (tuple, list)):
        return [r for x in results for r in _leaves(x)]
    return [results]


def _same(ours, theirs):
    ours, theirs = _leaves(ours), _leaves(theirs)
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        assert tuple(o.shape) == tuple(t.shape)
        assert o.dtype.name == str(t.dtype).removeprefix("torch."), (o.dtype, t.dtype)
        np.testing.assert_allclose(host(o.detach().data), t.detach().numpy(), rtol=1e-6, atol=1e-12)


def _same_outcome(call, *values, dtype=None, grad=False):
    """``call(M, *tensors)`` in both libraries: the same results (and, with ``grad``, the same gradient of
    the first result's weighted sum), or the same class of error."""
    ours_in, theirs_in = zip(*[_pair(v, dtype, grad) for v in values]) if values else ((), ())
    try:
        expected = call(torch, *theirs_in)
    except Exception as exc:   # noqa: BLE001  (whatever torch raises, ours must raise too)
        with pytest.raises(type(exc)):
            call(ag, *ours_in)
        return
    got = call(ag, *ours_in)
    _same(got, expected)
    if grad:
        first_t, first_o = _leaves(expected)[0], _leaves(got)[0]
        weights = np.random.default_rng(0).standard_normal(tuple(first_t.shape))
        (first_t * torch.tensor(weights)).sum().backward()
        (first_o * ag.tensor(weights)).sum().backward()
        for o, t in zip(ours_in, theirs_in):
            np.testing.assert_allclose(host(o.grad.data), t.grad.numpy(), rtol=1e-6, atol=1e-12)


MATRIX = [[3.0, NAN, 1.0, 2.0], [2.0, 2.0, 5.0, 1.0], [NAN, NAN, NAN, NAN]]
TIES = [[1.0, 2.0, 2.0, 3.0], [4.0, 4.0, 4.0, 0.0]]


# -- order statistics ----------------------------------------------------------------------------------

UNIQUE = [[3.0, NAN, 1.0, 2.0], [2.5, 2.0, 5.0, 1.0], [NAN, 4.0, 1.5, 0.0]]


@pytest.mark.parametrize("name", ["median", "nanmedian"])
@pytest.mark.parametrize("data", [UNIQUE, TIES, [[5.0]], [2.0, 1.0, 2.0, 2.0], [NAN, 1.0]], ids=str)
def test_median_whole_tensor(name, data):
    """Over every element: the lower median; tied elements (or the NaNs) share the gradient equally."""
    _same_outcome(lambda M, a: getattr(M, name)(a), data, grad=True)


@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_median_along_a_dim(name):
    """Values, indices and gradient (all of it to the index) where the median's element is unique."""
    for dim in (0, 1, -1):
        _same_outcome(lambda M, a: getattr(M, name)(a, dim), UNIQUE, grad=True)
        _same_outcome(lambda M, a: getattr(a, name)(dim, keepdim=True), UNIQUE, grad=True)


@pytest.mark.parametrize("call, first", [
    (lambda M, a: M.median(a, 1), [1, 0, 0, 0]), (lambda M, a: M.nanmedian(a, 1), [1, 0, 0, 1]),
    (lambda M, a: M.kthvalue(a, 2, 1), [1, 0, 1, 3]), (lambda M, a: M.median(a, 0, keepdim=True), [[2, 2, 2, 2]]),
], ids=["median", "nanmedian", "kthvalue", "median-keepdim"])
def test_ties_and_all_nan_slices_pick_the_first_in_sorted_order(call, first):
    """PyTorch's index for tied values (or among NaNs) is whichever its selection algorithm leaves there; ours
    is the first in stable sorted order (NaN last). Same values as PyTorch; each index points at an element
    with that value; all of the gradient goes to it."""
    data = [[1.0, 2.0, 2.0, 3.0], [4.0, 4.0, 4.0, 0.0], [NAN, NAN, NAN, NAN], [NAN, 2.0, NAN, 2.0]]
    a = ag.tensor(data, requires_grad=True)
    ours, theirs = call(ag, a), call(torch, torch.tensor(data))
    np.testing.assert_array_equal(host(ours.values.detach().data), theirs.values.numpy())
    assert host(ours.indices.data).tolist() == first
    dim = 0 if len(first) == 1 else 1
    index = np.array(first) if dim == 0 else np.array(first)[:, None]
    np.testing.assert_array_equal(np.take_along_axis(np.array(data), index, dim).reshape(-1),
                                  theirs.values.numpy().reshape(-1))
    ours.values.sum().backward()
    expected = np.zeros((4, 4))
    np.put_along_axis(expected, index, 1.0, dim)
    np.testing.assert_array_equal(host(a.grad.data), expected)


@pytest.mark.parametrize("call", [
    lambda M, a: M.median(a), lambda M, a: M.median(a, 0), lambda M, a: M.nanmedian(a, 0, True),
    lambda M, a: M.kthvalue(a, 1, 0), lambda M, a: M.median(a, 1),
], ids=["whole", "dim", "nan-keepdim", "kthvalue", "dim-out-of-range"])
@pytest.mark.parametrize("data", [7.0, [], [[]], [3, 1, 2], [True, False]], ids=str)
def test_order_statistics_edge_cases(call, data):
    """0-d, empty (torch: NaN for the whole median, IndexError along an empty dim), integer and bool input."""
    _same_outcome(call, data)


@pytest.mark.parametrize("k", [1, 2, 3, 4, 0, 5])
def test_kthvalue(k):
    _same_outcome(lambda M, a: M.kthvalue(a, k, 1), UNIQUE, grad=True)
    _same_outcome(lambda M, a: a.kthvalue(k, 0, keepdim=True), [[4.0, 1.0], [2.0, 2.0], [0.5, 3.0], [1.0, 7.0]])


def test_kthvalue_refuses_a_float_k():
    with pytest.raises(TypeError, match="'k' must be int"):
        ag.kthvalue(ag.tensor([1.0, 2.0]), 1.0)


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
def test_quantile_every_interpolation_and_shape(name, interpolation):
    rng = np.random.default_rng(3)
    data = rng.standard_normal((3, 5))
    data[1, 2] = NAN
    fn = lambda M, *args, **kw: getattr(M, name)(*args, interpolation=interpolation, **kw)  # noqa: E731
    q = [0.0, 0.125, 0.5, 0.6, 1.0]
    for dim in (None, 0, 1, -1):
        for keepdim in (False, True):
            _same_outcome(lambda M, a: fn(M, a, 0.3, dim=dim, keepdim=keepdim), data, grad=True)
            _same_outcome(lambda M, a: fn(M, a, M.tensor(q, dtype=M.float64), dim, keepdim), data, grad=True)
            _same_outcome(lambda M, a: fn(M, a, M.tensor(0.25, dtype=M.float64), dim, keepdim), data)
    _same_outcome(lambda M, a: fn(M, a, 0.5), [[NAN, NAN], [1.0, 2.0]], grad=True)
    _same_outcome(lambda M, a: fn(M, a, 0.5, 1), [[NAN, NAN], [1.0, 2.0]])
    _same_outcome(lambda M, a: fn(M, a, 0.4), [2.5], dtype=np.float32, grad=True)


@pytest.mark.parametrize("call", [
    lambda M, a: M.quantile(a, 1.5), lambda M, a: M.quantile(a, -0.1), lambda M, a: M.quantile(a.long(), 0.5),
    lambda M, a: M.quantile(a, M.tensor([0.5], dtype=M.float32)), lambda M, a: M.quantile(a, 0.5, interpolation="x"),
    lambda M, a: M.quantile(a, M.tensor([[0.5]], dtype=M.float64)), lambda M, a: M.quantile(a, M.tensor([1.5],
                                                                                                     dtype=M.float64)),
    lambda M, a: M.quantile(a[:0], 0.5), lambda M, a: M.quantile(a, 0.5, dim=2), lambda M, a: M.nanquantile(a, 2.0),
], ids=["q>1", "q<0", "integer", "q-dtype", "interpolation", "q-2d", "q-tensor>1", "empty", "dim", "nan-q"])
def test_quantile_errors(call):
    _same_outcome(call, [[1.0, 2.0], [3.0, 4.0]])


# -- sums and means without NaN, moments ----------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda M, a: M.nansum(a), lambda M, a: M.nansum(a, 1), lambda M, a: a.nansum((0, 1), keepdim=True),
    lambda M, a: M.nanmean(a), lambda M, a: M.nanmean(a, 0), lambda M, a: a.nanmean(1, keepdim=True),
    lambda M, a: M.nansum(a, dtype=M.float32),
], ids=["nansum", "nansum-dim", "nansum-keepdim", "nanmean", "nanmean-dim", "nanmean-keepdim", "nansum-dtype"])
def test_nansum_nanmean(call):
    _same_outcome(call, MATRIX[:2], grad=True)
    _same_outcome(call, MATRIX)


def test_an_all_nan_slice_sends_no_gradient():
    """Its nanmean is NaN (0/0), as PyTorch's; its gradient here is 0, not PyTorch's NaN (0 times the
    infinite 1/count): no element of the slice took part in the mean."""
    a = ag.tensor(MATRIX, requires_grad=True)
    a.nanmean(1).sum().backward()
    assert np.isnan(host(ag.nanmean(a.detach(), 1).data)[2])
    np.testing.assert_array_equal(host(a.grad.data)[2], 0.0)
    np.testing.assert_allclose(host(a.grad.data)[1], 0.25)


def test_nansum_nanmean_of_integers():
    _same_outcome(lambda M, a: M.nansum(a), [[1, 2], [3, 4]])
    _same_outcome(lambda M, a: M.nansum(a, 0), [True, False])
    _same_outcome(lambda M, a: M.nanmean(a), [[1, 2], [3, 4]])   # torch refuses: not floating point


@pytest.mark.parametrize("name", ["std_mean", "var_mean"])
@pytest.mark.parametrize("call", [
    lambda M, f, a: f(a), lambda M, f, a: f(a, 1), lambda M, f, a: f(a, 0, keepdim=True),
    lambda M, f, a: f(a, (0, 1), correction=0), lambda M, f, a: f(a, False), lambda M, f, a: f(a, 1, True, True),
    lambda M, f, a: f(a, 1, correction=2),
], ids=["all", "dim", "keepdim", "correction0", "unbiased-positional", "dim-unbiased-keepdim", "correction2"])
def test_std_mean_var_mean(name, call):
    rng = np.random.default_rng(1)
    _same_outcome(lambda M, a: call(M, getattr(M, name), a), rng.standard_normal((3, 4)), grad=True)


@pytest.mark.parametrize("call", [
    lambda M, a: M.cov(a), lambda M, a: M.cov(a, correction=0), lambda M, a: M.cov(a[0]),
    lambda M, a: M.cov(a, fweights=M.tensor([1, 2, 0, 3, 1])),
    lambda M, a: M.cov(a, aweights=M.tensor([0.5, 1.0, 2.0, 0.1, 1.0], dtype=M.float64)),
    lambda M, a: M.cov(a, correction=3, fweights=M.tensor([1, 2, 1, 3, 1]),
                       aweights=M.tensor([0.5, 1.0, 2.0, 0.1, 1.0], dtype=M.float64)),
    lambda M, a: M.cov(a, correction=0, aweights=M.tensor([0.5, 1.0, 2.0, 0.1, 1.0], dtype=M.float64)),
    lambda M, a: M.cov(a[:, :1]),
    lambda M, a: M.corrcoef(a), lambda M, a: M.corrcoef(a[0]), lambda M, a: a.corrcoef(), lambda M, a: a.cov(),
], ids=["plain", "correction0", "vector", "fweights", "aweights", "both", "aweights-correction0", "one-observation",
        "corrcoef", "corrcoef-vector", "corrcoef-method", "cov-method"])
def test_cov_and_corrcoef(call):
    rng = np.random.default_rng(2)
    _same_outcome(call, rng.standard_normal((3, 5)), grad=True)


@pytest.mark.parametrize("call", [
    lambda M, a: M.cov(a[None]), lambda M, a: M.cov(a, fweights=M.tensor([1.0, 2.0, 1.0])),
    lambda M, a: M.cov(a, fweights=M.tensor([1, 2])), lambda M, a: M.cov(a, fweights=M.tensor([1, -2, 1])),
    lambda M, a: M.cov(a, aweights=M.tensor([1, 2, 1])),
    lambda M, a: M.cov(a, aweights=M.tensor([-1.0, 2.0, 1.0], dtype=M.float64)),
    lambda M, a: M.cov(a, fweights=M.tensor([[1, 2, 1]])), lambda M, a: M.cov(a.long()),
], ids=["3d", "float-fweights", "short-fweights", "negative-fweights", "integer-aweights", "negative-aweights",
        "2d-fweights", "integer-input"])
def test_cov_errors_and_integer_input(call):
    _same_outcome(call, [[1.0, 2.0, 4.0], [3.0, 1.0, 0.0]])


def test_cov_warns_when_nothing_is_left_to_divide_by():
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        out = ag.cov(ag.tensor([[1.0, 2.0]]), correction=2)
    assert np.isinf(host(out.data)) or np.isnan(host(out.data))


# -- joining and splitting ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["hstack", "vstack", "row_stack", "dstack", "column_stack"])
@pytest.mark.parametrize("shapes", [[(), ()], [(3,), (2,)], [(3,), (3,)], [(2, 3), (2, 1)], [(1, 3), (3,)],
                                    [(2, 2, 1), (2, 2, 3)], [(2, 3), (3, 3)]], ids=str)
def test_stacking(name, shapes):
    rng = np.random.default_rng(4)
    values = [rng.standard_normal(s) for s in shapes]
    if name == "row_stack":
        pytest.importorskip("numpy")
    _same_outcome(lambda M, *ts: getattr(M, name)(list(ts)), *values, grad=True)


def test_stacking_promotes_dtypes_and_refuses_nothing():
    ours = ag.hstack([ag.tensor([1, 2]), ag.tensor([3.0])])
    theirs = torch.hstack([torch.tensor([1, 2]), torch.tensor([3.0])])
    _same(ours, theirs)
    for name in ("hstack", "vstack", "dstack", "column_stack"):
        with pytest.raises(RuntimeError, match="non-empty"):
            getattr(ag, name)([])
        with pytest.raises(RuntimeError):
            getattr(torch, name)([])


@pytest.mark.parametrize("name", ["atleast_1d", "atleast_2d", "atleast_3d"])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4)], ids=str)
def test_atleast(name, shape):
    value = np.arange(float(np.prod(shape))).reshape(shape)
    _same_outcome(lambda M, a: getattr(M, name)(a), value, grad=True)
    _same_outcome(lambda M, a: getattr(M, name)(a, a * 2), value)
    _same_outcome(lambda M, a: getattr(M, name)([a]), value)
    ours = ag.tensor(np.zeros((2, 3, 4)))
    assert getattr(ag, name)(ours) is ours   # already has the dims: the tensor itself, as in PyTorch


@pytest.mark.parametrize("cuts", [3, 1, 7, 9, 0, -1, [1, 5, 9], [4, 2], [-2], [], (0, 3)], ids=str)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_tensor_split(cuts, dim):
    value = np.arange(14.0).reshape(2, 7) if dim else np.arange(14.0).reshape(7, 2)
    _same_outcome(lambda M, a: M.tensor_split(a, cuts, dim), value, grad=True)
    if isinstance(cuts, int) and cuts > 0:
        _same_outcome(lambda M, a: a.tensor_split(M.tensor(cuts), dim), value)
    if isinstance(cuts, list) and cuts:
        _same_outcome(lambda M, a: M.tensor_split(a, M.tensor(cuts), dim=dim), value)


def test_tensor_split_errors():
    _same_outcome(lambda M, a: M.tensor_split(a, 2), 3.0)
    _same_outcome(lambda M, a: M.tensor_split(a, M.tensor([1.0])), [1.0, 2.0])
    _same_outcome(lambda M, a: M.tensor_split(a, M.tensor([[1]])), [1.0, 2.0])


@pytest.mark.parametrize("shapes", [[(2, 2), (3,)], [(), (2, 3), (1,)], [(0, 2), (2, 0)], [(2, 2)]], ids=str)
def test_block_diag(shapes):
    rng = np.random.default_rng(5)
    _same_outcome(lambda M, *ts: M.block_diag(*ts), *[rng.standard_normal(s) for s in shapes], grad=True)


def test_block_diag_dtypes_errors_and_nothing():
    _same(ag.block_diag(ag.tensor(1), ag.tensor([2.0, 3.0]), ag.ones(2, 2, dtype=ag.int32)),
          torch.block_diag(torch.tensor(1), torch.tensor([2.0, 3.0]), torch.ones(2, 2, dtype=torch.int32)))
    _same(ag.block_diag(), torch.block_diag())
    _same_outcome(lambda M, a: M.block_diag(a), np.ones((2, 2, 2)))


def test_cartesian_prod():
    _same_outcome(lambda M, a, b, c: M.cartesian_prod(a, b, c), [1.0, 2.0], [3.0, 4.0, 5.0], [6.0], grad=True)
    _same_outcome(lambda M, a: M.cartesian_prod(a), [1.0, 2.0], grad=True)
    _same_outcome(lambda M, a: M.cartesian_prod(a, a.long()), [1.0, 2.0])
    _same_outcome(lambda M, a: M.cartesian_prod(a, a), [[1.0, 2.0]])


# -- rot90, take, unfold, diag_embed -------------------------------------------------------------------

@pytest.mark.parametrize("k", [-5, -1, 0, 1, 2, 3, 4, 6])
@pytest.mark.parametrize("dims", [(0, 1), (1, 0), (2, 0), (-1, 1), (0, 0), (0,), (0, 3), (0, -3)], ids=str)
def test_rot90(k, dims):
    _same_outcome(lambda M, a: M.rot90(a, k, list(dims)), np.arange(24.0).reshape(2, 3, 4), grad=True)


def test_rot90_needs_two_dims():
    _same_outcome(lambda M, a: M.rot90(a), [1.0, 2.0])
    _same_outcome(lambda M, a: a.rot90(), [[1.0, 2.0], [3.0, 4.0]], grad=True)


@pytest.mark.parametrize("index", [[[0, 5], [-1, 2]], [0, 0, 0], [], 3, [6], [-7], [-6]], ids=str)
def test_take(index):
    _same_outcome(lambda M, a: M.take(a, M.tensor(index)), np.arange(6.0).reshape(2, 3), grad=True)
    _same_outcome(lambda M, a: a.take(M.tensor(index, dtype=M.int32)), np.arange(6.0))


@pytest.mark.parametrize("dim, size, step", [(0, 3, 2), (1, 2, 1), (1, 3, 3), (-1, 1, 5), (1, 0, 1), (1, 4, 1),
                                             (1, 2, 0), (2, 1, 1), (1, -1, 1)])
def test_unfold(dim, size, step):
    _same_outcome(lambda M, a: a.unfold(dim, size, step), np.arange(12.0).reshape(4, 3), grad=True)


def test_unfold_of_a_scalar_and_a_copy():
    _same_outcome(lambda M, a: a.unfold(0, 1, 1), 5.0, grad=True)
    _same_outcome(lambda M, a: a.unfold(0, 2, 1), 5.0)
    a = ag.arange(5.0)
    windows = a.unfold(0, 2, 1)
    windows[0, 0] = 100.0   # a copy here (PyTorch: a view): the input stays as it was
    assert a[0].item() == 0.0


@pytest.mark.parametrize("offset, dim1, dim2", [(0, -2, -1), (1, -2, -1), (-2, -2, -1), (0, 0, 2), (1, 2, 0),
                                                (0, 1, -1), (0, 0, 0), (0, 3, 0)])
def test_diag_embed(offset, dim1, dim2):
    rng = np.random.default_rng(6)
    _same_outcome(lambda M, a: M.diag_embed(a, offset, dim1, dim2), rng.standard_normal((2, 3)), grad=True)
    _same_outcome(lambda M, a: a.diag_embed(offset), [1, 2, 3])


def test_diag_embed_of_a_scalar():
    _same_outcome(lambda M, a: M.diag_embed(a), 2.0, grad=True)


# -- tensordot and inner -----------------------------------------------------------------------------------

@pytest.mark.parametrize("dims", [0, 1, 2, ([1], [0]), ([0, 1], [1, 0]), [[-1], [0]], ([2], [0]), ([0], [0]),
                                  ([0], [0, 1]), -1, 3], ids=str)
def test_tensordot(dims):
    rng = np.random.default_rng(7)
    _same_outcome(lambda M, a, b: M.tensordot(a, b, dims=dims), rng.standard_normal((2, 3)),
                  rng.standard_normal((3, 2)), grad=True)


@pytest.mark.parametrize("shapes", [[(2, 3), (4, 3)], [(3,), (3,)], [(), (2, 3)], [(2, 3), ()], [(2, 3), (2,)],
                                    [(2, 1, 3), (3,)]], ids=str)
def test_inner(shapes):
    rng = np.random.default_rng(8)
    _same_outcome(lambda M, a, b: M.inner(a, b), *[rng.standard_normal(s) for s in shapes], grad=True)
    _same_outcome(lambda M, a, b: a.inner(b), *[rng.standard_normal(s) for s in shapes])


# -- a review's findings against torch 2.13, each a case where the two differed -----------------------------

@pytest.mark.parametrize("call", [
    lambda M, a: M.cov(a[:1]), lambda M, a: M.corrcoef(a[:1]),
    lambda M, a: M.cov(a.float(), aweights=M.tensor([0.2, 0.3, 1.0], dtype=M.float64)),
    lambda M, a: M.cov(a.long(), aweights=M.tensor([0.2, 0.3, 1.0], dtype=M.float64)),
    lambda M, a: M.cov(a, fweights=M.tensor([0, 0, 0])), lambda M, a: M.cov(a, aweights=M.zeros(3, dtype=M.float64)),
    lambda M, a: M.cov(a > 1), lambda M, a: M.cov(a, correction=0.5), lambda M, a: M.corrcoef(a[None]),
    lambda M, a: M.tensordot(a, a.T, dims=M.tensor([1])),
    lambda M, a: M.tensordot(a, a.T, dims=M.tensor(1)), lambda M, a: M.tensordot(a, a.T, dims=(1, 0)),
    lambda M, a: M.tensordot(a, a.T, dims=1.0),
    lambda M, a: M.block_diag(M.tensor(1.0, dtype=M.float64), a.float()),
    lambda M, a: M.rot90(a, 1.7), lambda M, a: a.unfold(0, 2.0, 1), lambda M, a: a[0, 0].unfold(0, 0, 1),
    lambda M, a: a[0, 0].unfold(0, -1, 1), lambda M, a: a[0, 0].unfold(3, 1, 1), lambda M, a: a[:0, 0].unfold(1, 1, 0),
    lambda M, a: M.tensor_split(a, M.tensor([1, 2], dtype=M.int32), 1),
    lambda M, a: M.hstack([]), lambda M, a: M.vstack([]), lambda M, a: M.dstack([]), lambda M, a: M.column_stack([]),
    lambda M, a: M.atleast_1d([1, 2]), lambda M, a: M.std_mean(a, unbiased=True, correction=1),
    lambda M, a: M.nan_to_num(a, "a"), lambda M, a: M.logit(a, "a"), lambda M, a: M.nan_to_num(a / 0, nan=None),
    lambda M, a: M.kthvalue(a, M.tensor(2)), lambda M, a: M.quantile(a, True),
    lambda M, a: M.nanmean(a.long(), dtype=M.float64),
    lambda M, a: M.logit(M.tensor([0.1, 0.9], dtype=M.float64), eps=0.6),
    lambda M, a: M.xlogy(M.tensor([0.7], dtype=M.float64), M.tensor([0.3])),
    lambda M, a: M.special.softmax(a, 1, dtype=M.float32), lambda M, a: M.special.log_softmax(a, 0, dtype=M.float32),
    lambda M, a: M.nn.functional.softmax(a, 1, dtype=M.float32),
])
def test_review_cases_match_torch(call):
    _same_outcome(call, [[1.0, 2.0, 4.0], [0.0, 1.0, 1.0]])


def test_logit_gradient_outside_zero_one_is_nan_as_torch():
    _same_outcome(lambda M, a: M.logit(a), [-0.5, 2.0, 0.25], grad=True)


def test_tensor_tolerances_and_older_positional_forms_of_pinv_and_matrix_rank():
    for call in (lambda M: M.linalg.pinv(M.eye(3).expand(2, 3, 3), rtol=M.tensor([0.1, 0.1])),
                 lambda M: M.linalg.matrix_rank(M.eye(3).expand(2, 3, 3), atol=M.tensor([0.5, 2.0])),
                 lambda M: M.linalg.pinv(M.eye(3), rtol=M.tensor([0.1])),
                 lambda M: M.linalg.pinv(M.tensor([[2.0, 0.0], [0.0, 0.1]]), 0.5),
                 lambda M: M.linalg.matrix_rank(M.tensor([[2.0, 0.0], [0.0, 0.1]]), 0.5),
                 lambda M: M.linalg.matrix_rank(M.tensor([[2.0, 0.0], [0.0, 0.1]]), hermitian=True, atol=0.05)):
        _same(call(ag), call(torch))
    with pytest.raises(RuntimeError, match="square"):
        ag.linalg.pinv(ag.ones(2, 3), hermitian=True)
    with pytest.raises(RuntimeError):
        torch.linalg.pinv(torch.ones(2, 3), hermitian=True)
