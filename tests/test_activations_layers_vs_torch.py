"""Activations and small layers, run in both libraries on the same data: ``F.hardshrink``, ``F.softshrink``,
``F.threshold``, ``F.prelu`` and ``F.glu`` (values, first and second derivatives, exactly at and just beside
their kinks, at +-inf and NaN, float16), ``F.dropout2d`` (its properties: whole channels, the scaling, p = 0 and
1, eval, PyTorch's warnings), the modules ``PReLU``, ``GLU``, ``Hardshrink``, ``Softshrink``, ``Threshold``,
``Unflatten``, ``ZeroPad1d/2d``, ``ConstantPad1d/2d`` and ``Dropout2d`` (outputs, reprs, parameters,
``state_dict`` keys), the errors torch raises, and finite differences in float64."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import ON_CUPY, import_torch
from torch_compare import both_raise, close, pair

import autogradlab as ag
import autogradlab.nn as nn
import autogradlab.nn.functional as F
from autogradlab.testing import gradcheck, gradgradcheck

torch = import_torch()
TF = torch.nn.functional


def _data(shape, seed, dtype="float64", scale=2.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype)


def _around(kinks, dtype):
    """Each kink, its float neighbours on both sides, +-inf, NaN and some ordinary values, in ``dtype``."""
    dtype = np.dtype(dtype)
    points = [np.asarray(k, dtype) for k in kinks]
    near = [np.nextafter(p, np.asarray(side, dtype)) for p in points for side in (-np.inf, np.inf)]
    extra = np.array([-np.inf, np.inf, np.nan, -3.0, -0.7, 0.0, -0.0, 0.2, 1.5, 40.0], dtype)
    return np.concatenate([np.array(points + near, dtype), extra, _data(11, 0, dtype)])


def _same_values(name, ours, theirs):
    """Equal bit for bit, signed zeros too; but softshrink's 0 for a small negative x is -0 or +0 in PyTorch by
    where it sits (its CPU scalar tail computes x*0, its vectorized loop a plain 0): ours is +0."""
    close(ours, theirs, rtol=0, atol=0)
    o, t = ours.detach().numpy(), theirs.detach().numpy()
    if name != "softshrink":
        assert (np.signbit(o) == np.signbit(t))[~np.isnan(t)].all()
    assert not np.signbit(o[o == 0]).any() or name != "softshrink"


# (name, kwargs, the kinks); prelu's weight is a 1-element tensor
ELEMENTWISE = [("hardshrink", {}, [-0.5, 0.5]), ("hardshrink", {"lambd": 0.3}, [-0.3, 0.3]),
               ("hardshrink", {"lambd": 0.0}, [0.0]), ("hardshrink", {"lambd": -1.0}, [-1.0, 1.0]),
               ("softshrink", {}, [-0.5, 0.5]), ("softshrink", {"lambd": 0.3}, [-0.3, 0.3]),
               ("softshrink", {"lambd": 0.0}, [0.0]),
               ("threshold", {"threshold": 0.5, "value": -2.0}, [0.5]),
               ("threshold", {"threshold": 0.1, "value": 20.0}, [0.1]),
               ("threshold", {"threshold": -1.0, "value": 0.0}, [-1.0]),
               ("threshold", {"threshold": 0.3, "value": 7.0}, [0.3]),
               ("prelu", {"weight": 0.25}, [0.0]), ("prelu", {"weight": -0.7}, [0.0])]
IDS = [f"{n}-{k}" for n, k, _ in ELEMENTWISE]


def _call(lib, name, x, kwargs):
    fn = getattr(lib.nn.functional, name)
    if name == "prelu":   # (a weight of the input's dtype and device, as either library needs)
        dtype = getattr(ag, x.dtype.name) if lib is ag else x.dtype
        return fn(x, lib.tensor([kwargs["weight"]], dtype=dtype))
    return fn(x, **kwargs)


@pytest.mark.parametrize("name, kwargs, kinks", ELEMENTWISE, ids=IDS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_values_and_gradients_match_torch_at_and_beside_the_kinks(name, kwargs, kinks, dtype):
    """Values bit for bit (signed zeros included), the gradient for a random upstream gradient bit for bit, at
    each kink exactly (where PyTorch's derivative takes a side), one float either side, at +-inf and NaN."""
    x_np = _around(kinks, dtype)
    if ON_CUPY and dtype == "float32":   # (CuPy's kernels flush float32 subnormals to zero; PyTorch's do not)
        x_np = x_np[~((x_np != 0) & (np.abs(x_np) < np.finfo(np.float32).tiny))]
    x, tx = pair(x_np, requires_grad=True)
    y, ty = _call(ag, name, x, kwargs), _call(torch, name, tx, kwargs)
    _same_values(name, y, ty)
    g, tg = pair(_data(x_np.shape, 1, dtype))
    (gx,), (tgx,) = ag.autograd.grad(y, x, g), torch.autograd.grad(ty, tx, tg)
    _same_gradients(name, x_np, gx, tgx, g)


def _same_gradients(name, x_np, ours, theirs, g):
    """Equal bit for bit; but at a NaN input of the shrinks, PyTorch's CPU gradient depends on where the NaN
    sits (its vectorized loop gives 0, its scalar tail and CUDA give g): ours is g, as the formula reads."""
    ours, theirs = ours.detach().numpy(), theirs.detach().numpy()
    if name in ("hardshrink", "softshrink"):
        nan = np.isnan(x_np)
        np.testing.assert_array_equal(ours[nan], g.numpy()[nan])
        ours, theirs = ours[~nan], theirs[~nan]
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("name, kwargs, kinks", ELEMENTWISE, ids=IDS)
def test_second_derivatives_match_torch_including_kinks(name, kwargs, kinks):
    """PyTorch records each gradient as a function of x (derivative 0) and of the upstream gradient: the
    gradient of the gradient is zeros for x, not an error, and the mask again for the upstream gradient."""
    x_np = _around(kinks, "float64")
    x, tx = pair(x_np, requires_grad=True)
    g, tg = pair(_data(x_np.shape, 2), requires_grad=True)
    (gx,) = ag.autograd.grad(_call(ag, name, x, kwargs), x, g, create_graph=True)
    (tgx,) = torch.autograd.grad(_call(torch, name, tx, kwargs), tx, tg, create_graph=True)
    assert gx.requires_grad and tgx.requires_grad
    v, tv = pair(_data(x_np.shape, 3))
    hx, hg = ag.autograd.grad((gx * v).sum(), [x, g])
    thx, thg = torch.autograd.grad((tgx * tv).sum(), [tx, tg])
    close(hx, thx, rtol=0, atol=0)
    _same_gradients(name, x_np, hg, thg, v)
    (ones_x,) = ag.autograd.grad(ag.autograd.grad(_call(ag, name, x, kwargs).sum(), x, create_graph=True)[0].sum(), x)
    assert not ones_x.detach().numpy().any()   # (a constant upstream gradient: still recorded in x, zeros)


@pytest.mark.parametrize("name, kwargs, kinks", ELEMENTWISE, ids=IDS)
def test_float16_matches_torch(name, kwargs, kinks):
    """float16: hardshrink and prelu compare in float16 (lambd rounded to float16, as PyTorch's); softshrink
    and threshold compute in float32 and round once (a float16 0.30005 is above a threshold of 0.3)."""
    x_np = np.concatenate([_around(kinks, "float16"), np.array([0.3, -0.3, 0.1, -0.1], "float16")])
    x, tx = pair(x_np, requires_grad=True)
    y, ty = _call(ag, name, x, kwargs), _call(torch, name, tx, kwargs)
    assert y.dtype == ag.float16
    _same_values(name, y, ty)
    g, tg = pair(_data(x_np.shape, 4, "float16"))
    (gx,), (tgx,) = ag.autograd.grad(y, x, g), torch.autograd.grad(ty, tx, tg)
    assert gx.dtype == ag.float16
    _same_gradients(name, x_np, gx, tgx, g)


def test_threshold_of_integers_truncates_threshold_and_value_as_torch():
    for th, value in [(-0.5, 7), (-0.5, -7.7), (1.5, 3), (0, -1)]:
        x, tx = pair(np.arange(-3, 4, dtype="int64"))
        y, ty = F.threshold(x, th, value), TF.threshold(tx, th, value)
        assert y.dtype == ag.int64 and y.tolist() == ty.tolist()
    x, tx = pair(np.arange(-3, 4, dtype="int32"))
    assert F.threshold(x, 0.5, -7.7).dtype == ag.int32 and F.threshold(x, 0.5, -7.7).tolist() == \
        TF.threshold(tx, 0.5, -7.7).tolist()


@pytest.mark.parametrize("name, kwargs", [("hardshrink", {"lambd": 0.4}), ("softshrink", {"lambd": 0.4}),
                                          ("threshold", {"threshold": 0.4, "value": -1.0})])
def test_shrinks_and_threshold_pass_finite_differences_away_from_their_kinks(name, kwargs):
    x_np = _data((4, 5), 5)
    x_np[np.abs(np.abs(x_np) - 0.4) < 0.05] = 1.0   # (finite differences need a step that stays on one side)
    x = ag.tensor(x_np, requires_grad=True)
    assert gradcheck(lambda v: getattr(F, name)(v, **kwargs), (x,))
    assert gradgradcheck(lambda v: getattr(F, name)(v, **kwargs), (x,))


# -- prelu ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape, slopes", [((5,), 1), ((), 1), ((4, 3), 1), ((4, 3), 3), ((2, 3, 4), 1),
                                           ((2, 3, 4), 3), ((2, 3, 2, 2), 1), ((2, 3, 2, 2), 3)])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_prelu_values_and_gradients_for_one_and_per_channel_weights_match_torch(shape, slopes, dtype):
    x_np = _data(shape, 6, dtype)
    x_np.reshape(-1)[:3] = [0.0, -0.0, np.nan][:x_np.size]   # (0 takes the slope, as PyTorch's)
    x, tx = pair(x_np, requires_grad=True)
    w, tw = pair(np.array([0.25, -0.5, 1.5][:slopes], dtype), requires_grad=True)
    y, ty = F.prelu(x, w), TF.prelu(tx, tw)
    close(y, ty, rtol=0, atol=0)
    g, tg = pair(_data(shape, 7, dtype))
    gx, gw = ag.autograd.grad(y, [x, w], g)
    tgx, tgw = torch.autograd.grad(ty, [tx, tw], tg)
    close(gx, tgx, rtol=0, atol=0)
    tol = {"float64": 1e-14, "float32": 1e-6}[dtype]   # (the weight's gradient is a sum: the order may differ)
    close(gw, tgw, rtol=tol, atol=tol)


@pytest.mark.parametrize("slopes", [1, 3])
def test_prelu_second_derivatives_match_torch(slopes):
    x_np = _data((2, 3, 4), 8)
    x_np[0, 0, :2] = [0.0, np.nan]
    x, tx = pair(x_np, requires_grad=True)
    w, tw = pair(np.array([0.25, -0.5, 1.5][:slopes]), requires_grad=True)
    g, tg = pair(_data((2, 3, 4), 9), requires_grad=True)
    gx, gw = ag.autograd.grad(F.prelu(x, w), [x, w], g, create_graph=True)
    tgx, tgw = torch.autograd.grad(TF.prelu(tx, tw), [tx, tw], tg, create_graph=True)
    v, tv = pair(_data((2, 3, 4), 10))
    ours = ag.autograd.grad((gx * v).sum() + gw.sum() * 0.7, [x, w, g])
    theirs = torch.autograd.grad((tgx * tv).sum() + tgw.sum() * 0.7, [tx, tw, tg])
    for o, t in zip(ours, theirs):
        close(o, t, rtol=1e-14, atol=1e-14)


def test_prelu_gradient_of_gradient_without_a_weight_gradient_is_zeros_as_torch():
    x, tx = pair(_data((2, 3), 11), requires_grad=True)
    w, tw = pair(np.array([0.25]))
    (gx,), (tgx,) = (ag.autograd.grad(F.prelu(x, w).sum(), x, create_graph=True),
                     torch.autograd.grad(TF.prelu(tx, tw).sum(), tx, create_graph=True))
    assert gx.requires_grad == tgx.requires_grad
    close(ag.autograd.grad(gx.sum(), x)[0], torch.autograd.grad(tgx.sum(), tx)[0], rtol=0, atol=0)


def test_prelu_passes_finite_differences():
    x_np = _data((2, 3, 2), 12)
    x_np[np.abs(x_np) < 0.05] = 0.5
    x = ag.tensor(x_np, requires_grad=True)
    w = ag.tensor([0.3, -0.4, 1.2], dtype=ag.float64, requires_grad=True)
    assert gradcheck(F.prelu, (x, w))
    assert gradgradcheck(F.prelu, (x, w))


def test_prelu_float16_with_per_channel_weights_matches_torch():
    x, tx = pair(_data((2, 3, 4), 13, "float16"), requires_grad=True)
    w, tw = pair(np.array([0.25, -0.5, 1.5], "float16"), requires_grad=True)
    y, ty = F.prelu(x, w), TF.prelu(tx, tw)
    close(y, ty, rtol=0, atol=0)
    g, tg = pair(_data((2, 3, 4), 14, "float16"))
    gx, gw = ag.autograd.grad(y, [x, w], g)
    tgx, tgw = torch.autograd.grad(ty, [tx, tw], tg)
    close(gx, tgx, rtol=0, atol=0)
    close(gw, tgw, rtol=2e-3, atol=2e-3)


# -- glu ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape, dim", [((4,), -1), ((3, 6), -1), ((3, 6), 1), ((4, 3), 0), ((2, 4, 3), 1),
                                        ((2, 3, 0), 2)])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_glu_values_and_gradients_match_torch(shape, dim, dtype):
    x, tx = pair(_data(shape, 15, dtype), requires_grad=True)
    y, ty = F.glu(x, dim), TF.glu(tx, dim)
    tol = {"float64": (1e-15, 1e-15), "float32": (1e-6, 1e-7)}[dtype]
    close(y, ty, *tol)
    g, tg = pair(_data(ty.shape, 16, dtype))
    close(ag.autograd.grad(y, x, g)[0], torch.autograd.grad(ty, tx, tg)[0], *tol)


def test_glu_default_dim_extremes_and_nan_match_torch():
    x_np = np.array([[1.0, -2.0, np.nan, 0.0, 800.0, -800.0, np.inf, 3.0],
                     [np.nan, 0.5, 2.0, -np.inf, 1.0, np.inf, -1.0, 0.0]])
    x, tx = pair(x_np, requires_grad=True)
    y, ty = F.glu(x), TF.glu(tx)
    close(y, ty, rtol=1e-15, atol=0)
    g, tg = pair(_data(ty.shape, 17))
    close(ag.autograd.grad(y, x, g)[0], torch.autograd.grad(ty, tx, tg)[0], rtol=1e-15, atol=1e-300)


def test_glu_second_derivatives_and_finite_differences():
    x, tx = pair(_data((3, 4), 18), requires_grad=True)
    g, tg = pair(_data((3, 2), 19), requires_grad=True)
    (gx,), (tgx,) = (ag.autograd.grad(F.glu(x), x, g, create_graph=True),
                     torch.autograd.grad(TF.glu(tx), tx, tg, create_graph=True))
    v, tv = pair(_data((3, 4), 20))
    for o, t in zip(ag.autograd.grad((gx * v).sum(), [x, g]), torch.autograd.grad((tgx * tv).sum(), [tx, tg])):
        close(o, t, rtol=1e-13, atol=1e-14)
    assert gradcheck(lambda a: F.glu(a, 0), (ag.tensor(_data((4, 3), 21), requires_grad=True),))
    assert gradgradcheck(lambda a: F.glu(a, 0), (ag.tensor(_data((4, 3), 21), requires_grad=True),))


def test_glu_float16_computes_in_float32_and_rounds_once_as_torch():
    """The values as PyTorch's, bit for bit; the gradient is PyTorch's float32 gradient rounded once (PyTorch's
    own float16 backward rounds sigmoid(b) to float16 first, and is off by up to about 1% from it)."""
    x_np, g_np = _data((4, 64), 22, "float16", scale=4.0), _data((4, 32), 23, "float16")
    x, tx = pair(x_np, requires_grad=True)
    y, ty = F.glu(x), TF.glu(tx)
    assert y.dtype == ag.float16
    close(y, ty, rtol=0, atol=0)
    (gx,), (tgx,) = ag.autograd.grad(y, x, ag.tensor(g_np)), torch.autograd.grad(ty, tx, torch.tensor(g_np))
    assert gx.dtype == ag.float16
    tx32 = torch.tensor(x_np.astype("float32"), requires_grad=True)
    (tgx32,) = torch.autograd.grad(TF.glu(tx32), tx32, torch.tensor(g_np.astype("float32")))
    close(gx, tgx32.half(), rtol=0, atol=0)
    close(gx, tgx, rtol=1.5e-2, atol=3e-3)


# -- errors ---------------------------------------------------------------------------------------------------

def _t(lib, shape, dtype="float32"):
    arr = np.ones(shape, dtype)
    return ag.tensor(arr) if lib is ag else torch.tensor(arr)


ERRORS = {
    "softshrink negative lambd": (lambda lib: lib.nn.functional.softshrink(_t(lib, 3), -0.1), "lambd"),
    "softshrink nan lambd": (lambda lib: lib.nn.functional.softshrink(_t(lib, 3), float("nan")), "lambd"),
    "softshrink lambd beyond float16": (lambda lib: lib.nn.functional.softshrink(_t(lib, 3, "float16"), 1e5),
                                        "65504"),
    "softshrink lambd beyond float32": (lambda lib: lib.nn.functional.softshrink(_t(lib, 3), 1e39), "lambd"),
    "hardshrink lambd beyond float16": (lambda lib: lib.nn.functional.hardshrink(_t(lib, 3, "float16"), 1e5),
                                        "overflow"),
    "hardshrink of integers": (lambda lib: lib.nn.functional.hardshrink(_t(lib, 3, "int64")), "floating"),
    "hardshrink of bools": (lambda lib: lib.nn.functional.hardshrink(_t(lib, 3, "bool")), "floating"),
    "softshrink of integers": (lambda lib: lib.nn.functional.softshrink(_t(lib, 3, "int64")), "floating"),
    "threshold of bools": (lambda lib: lib.nn.functional.threshold(_t(lib, 3, "bool"), 0, 1), "bool"),
    "threshold value beyond float16": (lambda lib: lib.nn.functional.threshold(_t(lib, 3, "float16"), 0.0, 1e5),
                                       "value"),
    "threshold value beyond int32": (lambda lib: lib.nn.functional.threshold(_t(lib, 3, "int32"), 0, 1e10),
                                     "value"),
    "glu of a 0-dim tensor": (lambda lib: lib.nn.functional.glu(_t(lib, ())), "0-dim"),
    "glu of an odd size": (lambda lib: lib.nn.functional.glu(_t(lib, 3)), "even"),
    "glu of an odd size in dim 1": (lambda lib: lib.nn.functional.glu(_t(lib, (2, 3)), 1), "dim 1"),
    "glu dim out of range": (lambda lib: lib.nn.functional.glu(_t(lib, (2, 4)), 2), "range"),
    "glu of integers": (lambda lib: lib.nn.functional.glu(_t(lib, 4, "int64")), "floating"),
    "prelu slopes vs channels": (lambda lib: lib.nn.functional.prelu(_t(lib, (2, 3)), _t(lib, 2)), "channels"),
    "prelu 2-D weight": (lambda lib: lib.nn.functional.prelu(_t(lib, (2, 3)), _t(lib, (1, 3))), "1-D"),
    "prelu slopes on a 1-D input": (lambda lib: lib.nn.functional.prelu(_t(lib, 3), _t(lib, 3)), "channels"),
    "prelu slopes on a 0-dim input": (lambda lib: lib.nn.functional.prelu(_t(lib, ()), _t(lib, 3)), "0-dim"),
    "prelu dtypes differ": (lambda lib: lib.nn.functional.prelu(_t(lib, (2, 3)), _t(lib, 3, "float64")), "dtype"),
    "prelu of integers": (lambda lib: lib.nn.functional.prelu(_t(lib, (2, 3), "int64"), _t(lib, 3, "int64")),
                          "floating"),
    "dropout2d p above 1": (lambda lib: lib.nn.functional.dropout2d(_t(lib, (2, 3, 4, 4)), 1.5), "between 0 and 1"),
    "dropout2d p below 0": (lambda lib: lib.nn.functional.dropout2d(_t(lib, (2, 3, 4, 4)), -0.1), "between 0 and 1"),
    "dropout2d of a 1-D input": (lambda lib: lib.nn.functional.dropout2d(_t(lib, 3), 0.5), "2 dimensions"),
    "Dropout2d p above 1": (lambda lib: lib.nn.Dropout2d(1.5), "between 0 and 1"),
    "Unflatten of a list size": (lambda lib: lib.nn.Unflatten(1, 6), "tuple of ints"),
    "Unflatten of a float size": (lambda lib: lib.nn.Unflatten(1, (2, 3.0)), "pos 1"),
    "Unflatten sizes that do not multiply up": (lambda lib: lib.nn.Unflatten(1, (2, 4))(_t(lib, (2, 10))), "10"),
    "Unflatten dim out of range": (lambda lib: lib.nn.Unflatten(2, (2, 5))(_t(lib, (2, 10))), "range"),
    "Unflatten empty sizes": (lambda lib: lib.nn.Unflatten(1, ())(_t(lib, (2, 10))), "empty"),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_errors_are_torchs_class_with_a_message_that_says_what_is_wrong(case):
    call, says = ERRORS[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # (dropout2d warns about a 1-D input before it raises)
        both_raise(lambda: call(ag), lambda: call(torch))
        with pytest.raises(Exception, match=says):
            call(ag)


# -- dropout2d ------------------------------------------------------------------------------------------------

def _warnings_of(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [(w.category, str(w.message)) for w in caught]


@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 4), (2, 3, 4, 4), (2, 3, 2, 2, 2)])
@pytest.mark.parametrize("training", [True, False])
def test_dropout2d_warns_as_torch_by_rank(shape, training):
    ours = _warnings_of(lambda: F.dropout2d(ag.ones(*shape), 0.5, training))
    theirs = _warnings_of(lambda: TF.dropout2d(torch.ones(*shape), 0.5, training))
    assert ours == theirs
    assert len(ours) == (0 if len(shape) == 4 else 1)


def test_dropout2d_zeros_whole_channels_and_scales_the_rest():
    ag.manual_seed(0)
    x = ag.tensor(_data((40, 50, 3, 4), 24, "float32") + 10.0)   # (no zeros of its own)
    p = 0.3
    y = F.dropout2d(x, p)
    ratio = y.numpy() / x.numpy()
    per_channel = ratio.reshape(40, 50, -1)
    assert np.allclose(per_channel, per_channel[:, :, :1])       # one factor per (n, c)
    factors = np.unique(np.round(per_channel[:, :, 0], 5))
    np.testing.assert_allclose(factors, [0.0, 1 / (1 - p)], rtol=1e-6)
    dropped = (per_channel[:, :, 0] == 0).mean()
    assert abs(dropped - p) < 0.05                               # 2000 channels: within 5 standard errors
    assert y.dtype == x.dtype and tuple(y.shape) == tuple(x.shape)


def test_dropout2d_of_a_3d_input_drops_channels_of_n_c_l_as_torch():
    ag.manual_seed(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = F.dropout2d(ag.ones(30, 20, 5), 0.5).numpy()
    assert np.allclose(y, y[:, :, :1])                           # constant along L: the (N, C) mask
    assert 0 < (y[:, :, 0] == 0).mean() < 1
    np.testing.assert_allclose(np.unique(y), [0.0, 2.0])


def test_dropout2d_gradient_flows_only_through_kept_channels():
    ag.manual_seed(2)
    x = ag.tensor(_data((4, 6, 3, 3), 25), requires_grad=True)
    y = F.dropout2d(x, 0.4)
    g = _data((4, 6, 3, 3), 26)
    y.backward(ag.tensor(g))
    factor = y.detach().numpy()[:, :, :1, :1] / x.detach().numpy()[:, :, :1, :1]
    np.testing.assert_allclose(x.grad.numpy(), g * factor, rtol=1e-12)
    assert (factor == 0).any() and (factor != 0).any()


def test_dropout2d_is_seeded_by_autogradlabs_generator():
    ag.manual_seed(3)
    a = F.dropout2d(ag.ones(8, 8, 2, 2)).numpy()
    ag.manual_seed(3)
    b = F.dropout2d(ag.ones(8, 8, 2, 2)).numpy()
    np.testing.assert_array_equal(a, b)


def test_dropout2d_p0_eval_and_empty_return_the_input_as_torch():
    for lib in (ag, torch):
        x = lib.ones(2, 3, 4, 4)
        assert lib.nn.functional.dropout2d(x, 0.0) is x
        assert lib.nn.functional.dropout2d(x, 0.5, training=False) is x
        empty = lib.ones(0, 3, 4, 4)
        assert lib.nn.functional.dropout2d(empty, 0.5) is empty


def test_dropout2d_p1_zeros_everything_and_nan_stays_nan_as_torch():
    x_np = _data((2, 3, 2, 2), 27)
    x_np[0, 0, 0, 0], x_np[1, 2, 0, 1] = np.nan, np.inf
    x, tx = pair(x_np, requires_grad=True)
    y, ty = F.dropout2d(x, 1.0), TF.dropout2d(tx, 1.0)
    close(y, ty, rtol=0, atol=0)
    g, tg = pair(_data((2, 3, 2, 2), 28))
    close(ag.autograd.grad(y, x, g)[0], torch.autograd.grad(ty, tx, tg)[0], rtol=0, atol=0)


def test_dropout2d_inplace_writes_into_its_input():
    ag.manual_seed(4)
    x = ag.tensor(_data((3, 5, 2, 2), 29) + 10.0)
    before = x.numpy().copy()
    y = F.dropout2d(x, 0.5, inplace=True)
    assert y is x
    assert not np.array_equal(x.numpy(), before)
    leaf, tleaf = ag.ones(2, 3, 2, 2, requires_grad=True), torch.ones(2, 3, 2, 2, requires_grad=True)
    both_raise(lambda: F.dropout2d(leaf, 0.5, inplace=True), lambda: TF.dropout2d(tleaf, 0.5, inplace=True))


def test_dropout2d_float16_keeps_its_dtype_and_scale():
    ag.manual_seed(5)
    y = F.dropout2d(ag.ones(10, 10, 2, 2, dtype=ag.float16), 0.3)
    assert y.dtype == ag.float16
    np.testing.assert_allclose(np.unique(y.numpy().astype("float64")), [0.0, float(np.float16(1 / 0.7))])


def test_dropout2d_module_trains_and_evaluates():
    m, tm = nn.Dropout2d(0.5), torch.nn.Dropout2d(0.5)
    assert repr(m) == repr(tm) and list(m.state_dict()) == list(tm.state_dict()) == []
    ag.manual_seed(6)
    y = m(ag.ones(6, 6, 2, 2)).numpy()
    assert np.allclose(y, y[:, :, :1, :1]) and set(np.unique(y)) == {0.0, 2.0}
    m.eval()
    x = ag.ones(6, 6, 2, 2)
    assert m(x) is x
    assert not isinstance(m, nn.Dropout) and not isinstance(tm, torch.nn.Dropout)


# -- modules --------------------------------------------------------------------------------------------------

MODULES = ["PReLU()", "PReLU(3)", "PReLU(num_parameters=2, init=-0.1)", "GLU()", "GLU(dim=1)", "Hardshrink()",
           "Hardshrink(0.3)", "Softshrink()", "Softshrink(lambd=0.25)", "Threshold(0.1, 20)",
           "Threshold(0.1, 20.0, inplace=True)", "Unflatten(1, (2, 5))", "Unflatten(-1, [2, -1])", "ZeroPad2d(2)",
           "ZeroPad2d((1, 0, 2, 3))", "ConstantPad2d(1, 3.5)", "ConstantPad2d((0, 1, 2, 0), -1)", "ZeroPad1d(3)",
           "ZeroPad1d((1, 2))", "ConstantPad1d(2, 0.5)", "ConstantPad1d((3, 0), 7)", "Dropout2d()",
           "Dropout2d(0.2, True)"]


@pytest.mark.parametrize("spec", MODULES)
def test_module_repr_parameters_and_state_dict_match_torch(spec):
    ours, theirs = eval(f"nn.{spec}"), eval(f"torch.nn.{spec}")   # noqa: S307  (our own literal specs)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    ours_params = [(n, p.detach().numpy()) for n, p in ours.named_parameters()]
    theirs_params = [(n, p.detach().numpy()) for n, p in theirs.named_parameters()]
    assert [n for n, _ in ours_params] == [n for n, _ in theirs_params]
    for (_, o), (_, t) in zip(ours_params, theirs_params):
        assert o.dtype == t.dtype
        np.testing.assert_array_equal(o, t)


MODULE_CALLS = [("PReLU(3)", (2, 3, 4)), ("PReLU()", (2, 5)), ("GLU()", (2, 6)), ("GLU(1)", (2, 4, 3)),
                ("Hardshrink(0.3)", (3, 4)), ("Softshrink()", (3, 4)), ("Threshold(0.1, 20.0)", (3, 4)),
                ("Unflatten(1, (2, 5))", (3, 10)), ("Unflatten(-1, (2, -1))", (3, 2, 6)),
                ("ZeroPad2d((1, 0, 2, 3))", (2, 3, 4, 4)), ("ZeroPad2d(1)", (3, 4, 4)),
                ("ConstantPad2d(1, 3.5)", (2, 2, 3, 3)), ("ZeroPad1d((1, 2))", (2, 3, 4)),
                ("ConstantPad1d((3, 0), -1.0)", (2, 4))]


@pytest.mark.parametrize("spec, shape", MODULE_CALLS)
def test_module_outputs_and_gradients_match_torch(spec, shape):
    ours, theirs = eval(f"nn.{spec}"), eval(f"torch.nn.{spec}")   # noqa: S307  (our own literal specs)
    x, tx = pair(_data(shape, 30, "float32"), requires_grad=True)
    y, ty = ours(x), theirs(tx)
    close(y, ty)
    g, tg = pair(_data(tuple(ty.shape), 31, "float32"))
    y.backward(g)
    ty.backward(tg)
    close(x.grad, tx.grad)
    for (n, p), (tn, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert n == tn
        close(p.grad, tp.grad, rtol=1e-5, atol=1e-6)


def test_prelu_module_takes_device_and_dtype_and_learns_its_weight():
    m, tm = nn.PReLU(3, dtype=ag.float64), torch.nn.PReLU(3, dtype=torch.float64)
    assert m.weight.dtype == ag.float64 and m.init == tm.init == 0.25 and m.num_parameters == 3
    m.weight.data = ag.tensor(np.array([0.1, -0.2, 0.3])).data
    with torch.no_grad():
        tm.weight.copy_(torch.tensor([0.1, -0.2, 0.3], dtype=torch.float64))
    x, tx = pair(_data((4, 3, 5), 32), requires_grad=True)
    m(x).sum().backward()
    tm(tx).sum().backward()
    close(m.weight.grad, tm.weight.grad, rtol=1e-14, atol=1e-14)
    close(x.grad, tx.grad, rtol=0, atol=0)
    m.reset_parameters()
    assert m.weight.tolist() == [0.25, 0.25, 0.25]


@pytest.mark.parametrize("dim, sizes", [(1, (2, 2)), (1, (-1, 2)), (1, (-1, -1)), (0, (2, 2))])
def test_unflatten_checks_the_sizes_on_empty_tensors_too(dim, sizes):
    # (reshape alone lets wrong sizes through when another dim is 0: the element counts are both 0)
    both_raise(lambda: nn.Unflatten(dim, sizes)(ag.zeros(0, 3)), lambda: torch.nn.Unflatten(dim, sizes)(torch.zeros(0, 3)))


@pytest.mark.parametrize("dim, sizes", [(0, (2, -1)), (1, (-1, 1)), (1, (3, 1))])
def test_unflatten_of_an_empty_tensor_gives_torchs_shape(dim, sizes):
    ours, theirs = nn.Unflatten(dim, sizes)(ag.zeros(0, 3)), torch.nn.Unflatten(dim, sizes)(torch.zeros(0, 3))
    assert tuple(ours.shape) == tuple(theirs.shape)
