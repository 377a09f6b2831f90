"""More of PyTorch's names, side by side with torch 2.13: searchsorted, bucketize, isin, histc, signbit,
tril_indices/triu_indices (no gradient), and frac, deg2rad, rad2deg, sgn, heaviside, aminmax, ravel, unflatten,
select, msort, dist, cosine_similarity, pairwise_distance (values, dtypes, shapes, gradients and errors)."""
import numpy as np
import pytest
from conftest import host, import_torch
from torch_compare import both_raise

import autogradlab as ag

torch = import_torch()


def _np(t):
    return host(t.detach().data) if isinstance(t, ag.Tensor) else t.detach().numpy()


def _same(ours, theirs):
    if isinstance(theirs, tuple):
        assert type(ours).__name__ == type(theirs).__name__.split(".")[-1] or len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _same(a, b)
        return
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
    assert ours.requires_grad == theirs.requires_grad
    np.testing.assert_allclose(_np(ours), _np(theirs), rtol=1e-6, atol=1e-12)


def _both(value, dtype=None, requires_grad=False):
    arr = np.array(value, dtype=dtype)
    return (ag.tensor(arr, requires_grad=requires_grad), torch.tensor(arr, requires_grad=requires_grad))


SEQ = [1, 3, 3, 5, 7]

NO_GRADIENT = {
    "searchsorted": lambda M, T: M.searchsorted(T(SEQ), T([[3, 6], [9, 0]])),
    "searchsorted-right": lambda M, T: M.searchsorted(T(SEQ), T([3, 3, 8]), right=True),
    "searchsorted-side": lambda M, T: M.searchsorted(T(SEQ), T([3]), side="right"),
    "searchsorted-rows": lambda M, T: M.searchsorted(T([[1, 3], [2, 4]]), T([[2], [5]]), right=True),
    "searchsorted-int32": lambda M, T: M.searchsorted(T(SEQ), T([4]), out_int32=True),
    "searchsorted-number": lambda M, T: M.searchsorted(T(SEQ), 4),
    "searchsorted-floats": lambda M, T: M.searchsorted(T([0.5, 1.5]), T([1.0, 2.0])),
    "bucketize": lambda M, T: M.bucketize(T([3, 6, 9]), T([1, 3, 5, 7])),
    "bucketize-right": lambda M, T: M.bucketize(T([[3, 6], [1, 0]]), T([1, 3, 5, 7]), right=True),
    "isin": lambda M, T: M.isin(T([[1, 2], [3, 4]]), T([2, 3])),
    "isin-invert": lambda M, T: M.isin(T([1, 2, 3]), T([2]), invert=True),
    "isin-number": lambda M, T: M.isin(T([1.0, 2.0]), 2.0),
    "histc": lambda M, T: M.histc(T([1.0, 2, 1, 4]), bins=4, min=0, max=3),
    "histc-auto-range": lambda M, T: M.histc(T([1.0, 2, 1, 4]), bins=3),
    "histc-default-bins": lambda M, T: M.histc(T([0.5, 2.0])),
    "histc-method": lambda M, T: T([0.1, 0.2, 0.9]).histc(2, 0, 1),
    "histc-one-value": lambda M, T: M.histc(T([2.0, 2.0]), bins=4),
    "signbit": lambda M, T: M.signbit(T([-1.5, 0.0, -0.0, 2.0, float("-inf")])),
    "signbit-ints": lambda M, T: T([-1, 0, 3]).signbit(),
    "tril_indices": lambda M, T: M.tril_indices(3, 3),
    "tril_indices-offset": lambda M, T: M.tril_indices(3, 4, -1),
    "triu_indices": lambda M, T: M.triu_indices(3, 4, 1),
    "triu_indices-empty": lambda M, T: M.triu_indices(0, 3),
}


@pytest.mark.parametrize("name", sorted(NO_GRADIENT))
def test_answers_without_gradient_match_torch(name):
    call = NO_GRADIENT[name]
    _same(call(ag, ag.tensor), call(torch, torch.tensor))


@pytest.mark.parametrize("call", [
    lambda M, T: M.searchsorted(T([[1, 3]]), T([[1], [2]])), lambda M, T: M.searchsorted(T(SEQ), T([1]), side="up"),
    lambda M, T: M.searchsorted(T(SEQ), T([1]), right=True, side="left"),
    lambda M, T: M.bucketize(T([1]), T([[1, 2]])), lambda M, T: M.histc(T([1, 2])),
    lambda M, T: M.histc(T([1.0]), bins=0), lambda M, T: M.histc(T([1.0]), min=3, max=1),
    lambda M, T: M.frac(T([1, 2])), lambda M, T: M.heaviside(T([1.0]), T([1])),
    lambda M, T: M.heaviside(T([1.0]), 0.5), lambda M, T: M.aminmax(T([])),
    lambda M, T: T([[1.0, 2.0]]).select(1, 5), lambda M, T: T([1.0, 2.0]).unflatten(0, (3, -1)),
], ids=["searchsorted-rows", "bad-side", "opposite-sides", "bucketize-2d", "histc-ints", "histc-no-bins",
        "histc-range", "frac-ints", "heaviside-dtypes", "heaviside-number", "aminmax-empty", "select-range",
        "unflatten-sizes"])
def test_refuses_what_torch_refuses(call):
    both_raise(lambda: call(ag, ag.tensor), lambda: call(torch, torch.tensor))


X = [[-1.5, 0.25, 2.7], [0.0, 3.5, -0.75]]

DIFFERENTIABLE = {
    "frac": lambda M, x: M.frac(x), "frac-method": lambda M, x: x.frac(),
    "deg2rad": lambda M, x: M.deg2rad(x), "rad2deg": lambda M, x: x.rad2deg(), "sgn": lambda M, x: M.sgn(x),
    "aminmax": lambda M, x: M.aminmax(x)[0] * 2 + M.aminmax(x)[1],
    "aminmax-dim": lambda M, x: M.aminmax(x, dim=1)[1] - M.aminmax(x, dim=1).min,
    "aminmax-keepdim": lambda M, x: x.aminmax(dim=0, keepdim=True).max * x,
    "ravel": lambda M, x: M.ravel(x) * M.arange(6, dtype=M.float64), "unflatten": lambda M, x: x.unflatten(1, (3, 1)),
    "unflatten-minus-one": lambda M, x: M.unflatten(x, -1, (-1, 1)), "select": lambda M, x: M.select(x, 1, -1),
    "select-method": lambda M, x: x.select(0, 1) * 3, "msort": lambda M, x: M.msort(x) * M.tensor([[1.0], [2.0]],
                                                                                               dtype=M.float64),
    "dist": lambda M, x: M.dist(x, M.ones(2, 3, dtype=M.float64)), "dist-p3": lambda M, x: x.dist(M.zeros(3, dtype=M.float64), 3),
    "dist-inf": lambda M, x: M.dist(x, M.zeros(2, 3, dtype=M.float64), float("inf")),
    "cosine_similarity": lambda M, x: M.cosine_similarity(x, x.flip(0)),
    "pairwise_distance": lambda M, x: M.pairwise_distance(x, x * 2),
}


@pytest.mark.parametrize("name", sorted(DIFFERENTIABLE))
def test_values_and_gradients_match_torch(name):
    call = DIFFERENTIABLE[name]
    ours_x, theirs_x = _both(X, np.float64, requires_grad=True)
    ours, theirs = call(ag, ours_x), call(torch, theirs_x)
    _same(ours, theirs)
    weights = np.random.default_rng(0).standard_normal(tuple(theirs.shape))
    (ours * ag.tensor(weights)).sum().backward()
    (theirs * torch.tensor(weights)).sum().backward()
    g = theirs_x.grad   # (sgn's is a ZeroTensor, which numpy() refuses)
    theirs_grad = np.zeros(tuple(g.shape)) if g._is_zerotensor() else g.numpy()
    np.testing.assert_allclose(_np(ours_x.grad), theirs_grad, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", ["int64", "bool", "float32"])
def test_angle_conversions_take_torchs_dtype(dtype):
    ours, theirs = _both([1, 0, 2], dtype)
    _same(ag.deg2rad(ours), torch.deg2rad(theirs))
    _same(ag.rad2deg(ours), torch.rad2deg(theirs))


def test_heaviside_values_match_torch_and_values_get_the_gradient_where_input_is_zero():
    """Decision: torch has no derivative for heaviside (its backward raises); here `values` gets g where x == 0
    and the step itself gives none."""
    ours, theirs = _both(X, np.float64)
    _same(ag.heaviside(ours, ag.tensor([0.5, 2.0, 3.0], dtype=ag.float64)),
          torch.heaviside(theirs, torch.tensor([0.5, 2.0, 3.0], dtype=torch.float64)))
    x = ag.tensor([-1.0, 0.0, 2.0, 0.0])
    values = ag.tensor([0.5, 0.5, 0.5, 0.5], requires_grad=True)
    ag.heaviside(x, values).sum().backward()
    assert _np(values.grad).tolist() == [0.0, 1.0, 0.0, 1.0]


def test_select_and_ravel_are_views_as_in_torch():
    for M in (ag, torch):
        x = M.zeros(2, 3)
        view = x.select(1, 2)
        flat = M.ravel(x)
        with M.no_grad():
            view.fill_(5.0)
            flat[0] = 7.0
        assert x[0, 2].item() == 5.0 and x[0, 0].item() == 7.0
