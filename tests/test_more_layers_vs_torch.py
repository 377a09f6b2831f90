"""More layers run in both libraries on the same data: ``F.pad``'s ``reflect``, ``replicate`` and ``circular``
modes and their modules, ``F.instance_norm`` with ``InstanceNorm1d``/``InstanceNorm2d``,
``F.adaptive_max_pool1d``/``2d`` with their modules, and ``F.bilinear`` with ``Bilinear``: values, first and
second derivatives, finite differences in float64, modules over training steps and in evaluation (outputs,
parameters, buffers, ``state_dict`` keys, reprs), and the errors torch raises."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import import_torch
from torch_compare import both_raise, close, pair

import autogradlab as ag
import autogradlab.nn as nn
import autogradlab.nn.functional as F
from autogradlab.testing import gradcheck, gradgradcheck

torch = import_torch()
TOL = {"float64": {"rtol": 1e-12, "atol": 1e-12}, "float32": {"rtol": 1e-4, "atol": 1e-4}}


def _data(shape, seed, dtype="float64", scale=2.0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * scale + rng.standard_normal()).astype(dtype)


def _values_and_gradients_match(fn, tfn, arrays, dtype, seed=99):
    """fn(*ours) against tfn(*theirs): the value, and the gradient of every input for a random upstream."""
    pairs = [pair(a.astype(dtype), requires_grad=True) for a in arrays]
    y, ty = fn(*[p[0] for p in pairs]), tfn(*[p[1] for p in pairs])
    close(y, ty, **TOL[dtype])
    g = _data(tuple(ty.shape), seed, dtype)
    y.backward(ag.tensor(g))
    ty.backward(torch.tensor(g))
    for ours, theirs in pairs:
        close(ours.grad, theirs.grad, **TOL[dtype])


def _second_derivatives_match(fn, tfn, arrays, seed=98):
    """d/dinputs of |d(fn . g)/dinput0|^2 in both libraries (float64)."""
    pairs = [pair(a, requires_grad=True) for a in arrays]
    ours, theirs = [p[0] for p in pairs], [p[1] for p in pairs]
    y, ty = fn(*ours), tfn(*theirs)
    g = _data(tuple(ty.shape), seed)
    (gx,) = ag.autograd.grad((y * ag.tensor(g)).sum(), [ours[0]], create_graph=True)
    (tgx,) = torch.autograd.grad((ty * torch.tensor(g)).sum(), [theirs[0]], create_graph=True)
    close(gx, tgx, rtol=1e-10, atol=1e-12)
    got = ag.autograd.grad((gx * gx).sum(), ours, allow_unused=True)
    want = torch.autograd.grad((tgx * tgx).sum(), theirs, allow_unused=True)
    for a, b in zip(got, want):
        assert (a is None) == (b is None)
        if b is not None:
            close(a, b, rtol=1e-9, atol=1e-10)


def _same_state(ours, theirs, values=True, **tol):
    """The same parameter, buffer and state_dict names, and (``values``) the same values."""
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    for (_, a), (_, b) in zip(ours.state_dict().items(), theirs.state_dict().items()):
        if not values:
            assert tuple(a.shape) == tuple(b.shape)
        elif b.dtype.is_floating_point:
            close(a, b, **tol)
        else:
            np.testing.assert_array_equal(a.numpy(), b.numpy())


# -- F.pad: reflect, replicate, circular ----------------------------------------------------------------------

PADS = [((2, 3, 5), (2, 1)), ((3, 5), (0, 4)), ((2, 3, 5), (-1, 3)), ((2, 3, 5), (3, -2)),
        ((1, 2, 4, 5), (1, 2, 3, 0)), ((2, 4, 5), (2, -1, 1, 3)), ((1, 2, 3, 4, 5), (1, 2, 1, 1, 2, 1)),
        ((2, 3, 4, 5), (1, 1, 0, 2, 1, 0))]


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape, amounts", PADS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_pad_modes_match_torch_in_values_and_gradients(mode, shape, amounts, dtype):
    if mode == "reflect" and max(amounts) >= min(shape[len(shape) - len(amounts) // 2:]):
        amounts = tuple(min(a, 1) for a in amounts)
    _values_and_gradients_match(lambda x: F.pad(x, amounts, mode), lambda x: torch.nn.functional.pad(x, amounts, mode),
                                [_data(shape, 1)], dtype)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_modes_second_derivatives_and_finite_differences(mode):
    f = lambda lib: lambda x: lib.nn.functional.pad(x, (2, 1, 1, 2), mode).square()   # noqa: E731
    _second_derivatives_match(f(ag), f(torch), [_data((2, 3, 4), 2)])
    x = ag.tensor(_data((2, 3, 4), 3), requires_grad=True)
    assert gradcheck(lambda x: F.pad(x, (2, 1, 1, 2), mode), (x,))
    assert gradgradcheck(lambda x: F.pad(x, (2, 1, 1, 2), mode).square(), (x,))


def test_pad_modes_keep_integers_and_an_empty_batch_as_torch():
    for mode in ("reflect", "replicate", "circular"):
        a = np.arange(12).reshape(1, 3, 4)
        x, tx = pair(a)
        close(F.pad(x, (2, 1), mode), torch.nn.functional.pad(tx, (2, 1), mode))
        x, tx = pair(np.zeros((0, 2, 3)))
        close(F.pad(x, (1, 1), mode), torch.nn.functional.pad(tx, (1, 1), mode))
        x, tx = pair(_data((1, 2, 3), 4))
        close(F.pad(x, (1, 1), mode, value=0.0), torch.nn.functional.pad(tx, (1, 1), mode, value=0.0))


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape, amounts", [((3,), (1, 1)), ((2, 3), (1, 1, 1, 1)), ((1, 2, 3), (1, 1, 1, 1, 1, 1)),
                                            ((1, 1, 2, 3), (1, 1)), ((1, 1, 1, 2, 3), (1, 1, 1, 1)),
                                            ((1, 2, 3), (1,)), ((1, 2, 3), (1, 1, 1, 1, 1, 1, 1, 1)),
                                            ((1, 2, 3), (4, 0)), ((1, 2, 3), (-3, 0)), ((1, 2, 3), (-2, -1)),
                                            ((1, 0, 3), (1, 1)), ((1, 2, 0), (1, 1)), ((1, 2, 3), (1.0, 1))])
def test_pad_modes_accept_and_refuse_what_torch_does(mode, shape, amounts):
    """Where torch raises, the same class; where it accepts (a cut to nothing, circular's empty channel...),
    the same result."""
    x, tx = pair(_data(shape, 5))
    try:
        want = torch.nn.functional.pad(tx, amounts, mode)
    except Exception:   # noqa: BLE001
        both_raise(lambda: F.pad(x, amounts, mode), lambda: torch.nn.functional.pad(tx, amounts, mode))
    else:
        close(F.pad(x, amounts, mode), want)


def test_pad_errors_say_what_is_wrong_and_how_to_fix_it():
    x = ag.tensor(_data((1, 2, 3), 6))
    with pytest.raises(RuntimeError, match="less than the corresponding input dimension"):
        F.pad(x, (3, 0), "reflect")
    with pytest.raises(RuntimeError, match="doesn't take in value.*mode='constant'"):
        F.pad(x, (1, 1), "replicate", value=2.0)
    with pytest.raises(NotImplementedError, match="Padding size 4 is not supported for 2D.*mode='constant'"):
        F.pad(ag.tensor(_data((2, 3), 6)), (1, 1, 1, 1), "circular")
    with pytest.raises(RuntimeError, match="wrapping around more than once"):
        F.pad(x, (4, 0), "circular")
    with pytest.raises(NotImplementedError, match="Unrecognised padding mode.*'reflect'"):
        F.pad(x, (1, 1), "mirror")


@pytest.mark.parametrize("cls, padding, shape", [("ReflectionPad1d", 2, (2, 3, 5)), ("ReflectionPad1d", (1, 3), (3, 5)),
                                                 ("ReflectionPad2d", 1, (2, 3, 4, 5)),
                                                 ("ReflectionPad2d", (1, 0, 2, 3), (3, 4, 5)),
                                                 ("ReplicationPad1d", (4, 0), (2, 3, 3)),
                                                 ("ReplicationPad2d", (2, 1, 0, 3), (1, 2, 3, 4)),
                                                 ("CircularPad1d", 3, (2, 3, 5)),
                                                 ("CircularPad2d", [1, 2, 2, 1], (2, 3, 4))])
def test_pad_modules_match_torch(cls, padding, shape):
    ours, theirs = getattr(nn, cls)(padding), getattr(torch.nn, cls)(padding)
    assert repr(ours) == repr(theirs)
    assert ours.padding == theirs.padding
    assert list(ours.state_dict()) == list(theirs.state_dict()) == []
    _values_and_gradients_match(ours, theirs, [_data(shape, 7)], "float64")


# -- F.instance_norm and InstanceNorm1d/2d --------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(2, 3, 5), (3, 2, 4, 3), (1, 3, 2)])
@pytest.mark.parametrize("affine", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_instance_norm_values_and_gradients_match_torch(shape, affine, dtype):
    c = shape[1]
    arrays = [_data(shape, 10)] + ([_data((c,), 11), _data((c,), 12)] if affine else [])
    f = lambda lib: lambda x, *wb: lib.nn.functional.instance_norm(x, weight=wb[0] if wb else None,  # noqa: E731
                                                                    bias=wb[1] if wb else None)
    tol = TOL[dtype] if dtype == "float64" else {"rtol": 1e-4, "atol": 1e-4}
    pairs = [pair(a.astype(dtype), requires_grad=True) for a in arrays]
    y, ty = f(ag)(*[p[0] for p in pairs]), f(torch)(*[p[1] for p in pairs])
    close(y, ty, **({"rtol": 1e-10, "atol": 1e-10} if dtype == "float64" else tol))
    g = _data(shape, 13, dtype)
    y.backward(ag.tensor(g))
    ty.backward(torch.tensor(g))
    for ours, theirs in pairs:
        close(ours.grad, theirs.grad, **({"rtol": 1e-9, "atol": 1e-9} if dtype == "float64" else tol))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_instance_norm_running_statistics_and_evaluation_match_torch(dtype):
    rm, trm = pair(_data((3,), 14, dtype, scale=0.5))
    rv, trv = pair(np.abs(_data((3,), 15, dtype)) + 0.5)
    for step in range(3):
        x, tx = pair(_data((4, 3, 5), 16 + step, dtype), requires_grad=True)
        y = F.instance_norm(x, rm, rv, momentum=0.3, eps=1e-3)
        ty = torch.nn.functional.instance_norm(tx, trm, trv, momentum=0.3, eps=1e-3)
        close(y, ty, rtol=1e-5, atol=1e-5)
        close(rm, trm, rtol=1e-6, atol=1e-6)
        close(rv, trv, rtol=1e-6, atol=1e-6)
    assert not rm.requires_grad and rm.grad_fn is None
    _values_and_gradients_match(lambda x: F.instance_norm(x, rm, rv, use_input_stats=False),
                                lambda x: torch.nn.functional.instance_norm(x, trm, trv, use_input_stats=False),
                                [_data((2, 3, 4), 19)], dtype)


def test_instance_norm_second_derivatives_and_finite_differences():
    f = lambda lib: lambda x, w: lib.nn.functional.instance_norm(x, weight=w)   # noqa: E731
    _second_derivatives_match(f(ag), f(torch), [_data((2, 3, 4), 20), _data((3,), 21)])
    x = ag.tensor(_data((2, 3, 4), 22), requires_grad=True)
    w, b = (ag.tensor(_data((3,), s), requires_grad=True) for s in (23, 24))
    assert gradcheck(lambda x, w, b: F.instance_norm(x, weight=w, bias=b), (x, w, b))
    assert gradgradcheck(lambda x, w: F.instance_norm(x, weight=w), (x, w))


def _copy_parameters(ours, theirs):
    for i, (name, t) in enumerate(theirs.state_dict().items()):
        if t.dtype.is_floating_point:
            t.copy_(torch.tensor(np.abs(_data(tuple(t.shape), 100 + i, "float32")) + 0.1))
    ours.load_state_dict({k: ag.tensor(v.numpy()) for k, v in theirs.state_dict().items()})


@pytest.mark.parametrize("cls, shape", [("InstanceNorm1d", (4, 3, 5)), ("InstanceNorm1d", (3, 5)),
                                        ("InstanceNorm2d", (2, 3, 3, 4)), ("InstanceNorm2d", (3, 2, 5))])
@pytest.mark.parametrize("kwargs", [{}, {"affine": True}, {"track_running_stats": True},
                                    {"affine": True, "track_running_stats": True, "momentum": 0.4},
                                    {"track_running_stats": True, "momentum": None}, {"affine": True, "bias": False},
                                    {"eps": 1e-2}])
def test_instance_norm_modules_match_torch_over_training_steps_and_in_eval(cls, shape, kwargs):
    ours, theirs = getattr(nn, cls)(3, **kwargs), getattr(torch.nn, cls)(3, **kwargs)
    assert repr(ours) == repr(theirs)
    _same_state(ours, theirs)
    _copy_parameters(ours, theirs)
    for step in range(3):
        x, tx = pair(_data(shape, 30 + step, "float32"), requires_grad=True)
        y, ty = ours(x), theirs(tx)
        close(y, ty, rtol=1e-4, atol=1e-5)
        y.square().sum().backward()
        ty.square().sum().backward()
        close(x.grad, tx.grad, rtol=1e-3, atol=1e-4)
        _same_state(ours, theirs, rtol=1e-5, atol=1e-6)
    for (_, p), (_, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
        close(p.grad, tp.grad, rtol=1e-4, atol=1e-4)
    ours.eval()
    theirs.eval()
    x, tx = pair(_data(shape, 40, "float32"))
    close(ours(x), theirs(tx), rtol=1e-4, atol=1e-5)
    _same_state(ours, theirs, rtol=1e-5, atol=1e-6)


def test_instance_norm_warns_as_torch_when_channels_differ_without_affine():
    x, tx = pair(_data((2, 4, 5), 41, "float32"))
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        ty = torch.nn.InstanceNorm1d(3)(tx)
    with pytest.warns(UserWarning, match="does not match num_features") as ours:
        y = nn.InstanceNorm1d(3)(x)
    assert len(ours) == len(theirs) == 1 and str(ours[0].message) == str(theirs[0].message)
    close(y, ty, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("call", [
    lambda m, x: m.nn.functional.instance_norm(x(2, 3, 1)),
    lambda m, x: m.nn.functional.instance_norm(x(2, 3)),
    lambda m, x: m.nn.functional.instance_norm(x(2, 3, 4), running_mean=m.zeros(3)),
    lambda m, x: m.nn.functional.instance_norm(x(2, 3, 4), use_input_stats=False),
    lambda m, x: m.nn.functional.instance_norm(x(2, 3, 4), m.zeros(4), m.ones(4)),
    lambda m, x: m.nn.functional.instance_norm(x(2, 3, 4), weight=m.ones(4)),
    lambda m, x: m.nn.functional.instance_norm(x(2, 3, 4).double(), weight=m.ones(3)),
    lambda m, x: m.nn.functional.instance_norm(m.ones(2, 3, 4, dtype=m.int64)),
    lambda m, x: m.nn.InstanceNorm1d(3, affine=True)(x(2, 4, 5)),
    lambda m, x: m.nn.InstanceNorm1d(3)(x(2, 3, 4, 5)),
    lambda m, x: m.nn.InstanceNorm2d(3)(x(4, 5)),
    lambda m, x: m.nn.InstanceNorm1d(3)(x(3, 1)),
])
def test_instance_norm_errors_as_torch(call):
    both_raise(lambda: call(ag, lambda *s: ag.randn(*s)), lambda: call(torch, lambda *s: torch.randn(*s)))


def test_a_failed_instance_norm_call_changes_no_running_statistic():
    m = nn.InstanceNorm1d(3, affine=True, track_running_stats=True)
    m(ag.randn(2, 3, 4))
    before = {k: v.numpy().copy() for k, v in m.state_dict().items()}
    for bad in (ag.randn(2, 3, 1), ag.randn(2, 4, 4), ag.randn(2, 3, 4).double()):
        with pytest.raises((ValueError, RuntimeError)):
            m(bad)
    for k, v in m.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), before[k])
    with pytest.raises(ValueError, match="more than 1 spatial element"):
        F.instance_norm(ag.randn(2, 3))


# -- adaptive max pooling -------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape, size", [((2, 3, 5, 7), (3, 4)), ((3, 5, 7), 2), ((1, 2, 4, 4), (4, None)),
                                         ((2, 1, 3, 5), (5, 8)), ((2, 2, 6, 6), 1), ((0, 2, 3, 4), 2)])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_adaptive_max_pool2d_matches_torch_in_values_indices_and_gradients(shape, size, dtype):
    _values_and_gradients_match(lambda x: F.adaptive_max_pool2d(x, size),
                                lambda x: torch.nn.functional.adaptive_max_pool2d(x, size), [_data(shape, 50)], dtype)
    x, tx = pair(_data(shape, 50, dtype))
    (y, i), (ty, ti) = F.adaptive_max_pool2d(x, size, True), torch.nn.functional.adaptive_max_pool2d(tx, size, True)
    close(y, ty, **TOL[dtype])
    close(i, ti)


@pytest.mark.parametrize("shape, size", [((2, 3, 7), 3), ((3, 5), (2,)), ((2, 2, 3), 5), ((2, 2, 4), 0)])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_adaptive_max_pool1d_matches_torch_in_values_indices_and_gradients(shape, size, dtype):
    if size != 0:   # (torch's backward refuses an empty output; ours gives zeros)
        _values_and_gradients_match(lambda x: F.adaptive_max_pool1d(x, size),
                                    lambda x: torch.nn.functional.adaptive_max_pool1d(x, size), [_data(shape, 51)],
                                    dtype)
    x, tx = pair(_data(shape, 51, dtype))
    (y, i), (ty, ti) = F.adaptive_max_pool1d(x, size, True), torch.nn.functional.adaptive_max_pool1d(tx, size, True)
    close(y, ty, **TOL[dtype])
    close(i, ti)


def test_adaptive_max_pool_picks_ties_nans_and_infinities_as_torch():
    nan, inf = float("nan"), float("inf")
    rows = [[1.0, 3, 3, nan, 2, nan, -inf, -inf, -inf], [2.0, 2, 2, 5, 5, 1, 0, 0, 0]]
    for size in (1, 2, 3, 4, 5):
        x, tx = pair(np.array([rows]), requires_grad=True)
        (y, i), (ty, ti) = F.adaptive_max_pool1d(x, size, True), torch.nn.functional.adaptive_max_pool1d(tx, size, True)
        close(y, ty)
        close(i, ti)
        y.sum().backward()
        ty.sum().backward()
        close(x.grad, tx.grad)
    x, tx = pair(np.array([[[1.0, 1], [1, 1]], [[0, 2], [2, 0]]]), requires_grad=True)
    (y, i), (ty, ti) = F.adaptive_max_pool2d(x, 1, True), torch.nn.functional.adaptive_max_pool2d(tx, 1, True)
    close(i, ti)


def test_adaptive_max_pool_second_derivatives_and_finite_differences():
    f = lambda lib: lambda x: lib.nn.functional.adaptive_max_pool2d(x, (2, 3)).square()   # noqa: E731
    _second_derivatives_match(f(ag), f(torch), [_data((2, 3, 5, 4), 52)])
    x = ag.tensor(_data((2, 5, 4), 53), requires_grad=True)
    assert gradcheck(lambda x: F.adaptive_max_pool2d(x, (2, 3)), (x,))
    assert gradgradcheck(lambda x: F.adaptive_max_pool1d(x, 3).square(), (x,))


@pytest.mark.parametrize("cls, size, shape", [("AdaptiveMaxPool2d", (3, None), (2, 3, 5, 4)),
                                              ("AdaptiveMaxPool2d", 2, (3, 5, 4)), ("AdaptiveMaxPool1d", 3, (2, 3, 7))])
def test_adaptive_max_pool_modules_match_torch(cls, size, shape):
    ours, theirs = getattr(nn, cls)(size), getattr(torch.nn, cls)(size)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict()) == []
    _values_and_gradients_match(ours, theirs, [_data(shape, 54)], "float64")
    ours, theirs = getattr(nn, cls)(size, return_indices=True), getattr(torch.nn, cls)(size, return_indices=True)
    assert repr(ours) == repr(theirs)
    x, tx = pair(_data(shape, 55))
    close(ours(x)[1], theirs(tx)[1])


@pytest.mark.parametrize("call", [
    lambda m, x: m.nn.functional.adaptive_max_pool2d(x(4, 5), 2),
    lambda m, x: m.nn.functional.adaptive_max_pool2d(x(4, 5), (2, 2)),
    lambda m, x: m.nn.functional.adaptive_max_pool2d(x(1, 2, 3, 4, 5), 2),
    lambda m, x: m.nn.functional.adaptive_max_pool2d(x(2, 3, 4), (2, 3, 4)),
    lambda m, x: m.nn.functional.adaptive_max_pool2d(x(2, 3, 4), (-1, 2)),
    lambda m, x: m.nn.functional.adaptive_max_pool2d(x(2, 3, 4), 2.0),
    lambda m, x: m.nn.functional.adaptive_max_pool2d(x(2, 0, 4), 2),
    lambda m, x: m.nn.functional.adaptive_max_pool2d(m.ones(2, 3, 4, dtype=m.int64), 2),
    lambda m, x: m.nn.functional.adaptive_max_pool1d(x(4), 2),
    lambda m, x: m.nn.functional.adaptive_max_pool1d(x(1, 2, 3, 4), 2),
    lambda m, x: m.nn.functional.adaptive_max_pool1d(x(2, 3), (1, 2)),
    lambda m, x: m.nn.functional.adaptive_max_pool1d(x(2, 0), 1),
])
def test_adaptive_max_pool_errors_as_torch(call):
    both_raise(lambda: call(ag, lambda *s: ag.randn(*s)), lambda: call(torch, lambda *s: torch.randn(*s)))


# -- F.bilinear and Bilinear ----------------------------------------------------------------------------------

@pytest.mark.parametrize("lead", [(5,), (), (2, 3), (0,)])
@pytest.mark.parametrize("with_bias", [True, False])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_bilinear_values_and_gradients_match_torch(lead, with_bias, dtype):
    arrays = [_data(lead + (2,), 60), _data(lead + (3,), 61), _data((4, 2, 3), 62)] + \
        ([_data((4,), 63)] if with_bias else [])
    _values_and_gradients_match(F.bilinear, torch.nn.functional.bilinear, arrays, dtype)


def test_bilinear_second_derivatives_and_finite_differences():
    arrays = [_data((5, 2), 64), _data((5, 3), 65), _data((4, 2, 3), 66), _data((4,), 67)]
    _second_derivatives_match(F.bilinear, torch.nn.functional.bilinear, arrays)
    tensors = [ag.tensor(a, requires_grad=True) for a in arrays]
    assert gradcheck(F.bilinear, tuple(tensors))
    assert gradgradcheck(F.bilinear, tuple(tensors))


@pytest.mark.parametrize("bias", [True, False])
def test_bilinear_module_matches_torch_over_training_steps(bias):
    ours, theirs = nn.Bilinear(2, 3, 4, bias=bias), torch.nn.Bilinear(2, 3, 4, bias=bias)
    assert repr(ours) == repr(theirs)
    _same_state(ours, theirs, values=False)   # (names and shapes: the initial values come from each library's seed)
    ag.manual_seed(0)
    torch.manual_seed(0)   # (both seeded: the checks below are statistical, and must not depend on the run)
    bound = 1 / np.sqrt(4)   # torch's: U(-1/sqrt(in1_features), 1/sqrt(in1_features)), weight and bias alike
    ours_big, theirs_big = nn.Bilinear(4, 9, 60, bias=bias), torch.nn.Bilinear(4, 9, 60, bias=bias)
    for p, tp in zip(ours_big.parameters(), theirs_big.parameters()):
        for values in (p.detach().numpy(), tp.detach().numpy()):
            assert 0.9 * bound < np.abs(values).max() <= bound
            if values.size > 1000:   # (the weight's 2,160 values: their mean's spread is about 0.012 * bound)
                assert abs(values.mean()) < 0.1 * bound
    ag.manual_seed(5)
    first = [p.detach().numpy().copy() for p in nn.Bilinear(2, 3, 4, bias=bias).parameters()]
    ag.manual_seed(5)
    again = [p.detach().numpy() for p in nn.Bilinear(2, 3, 4, bias=bias).parameters()]
    assert len(first) == len(again) == (2 if bias else 1)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    ours.load_state_dict({k: ag.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    opt, topt = ag.optim.SGD(ours.parameters(), lr=0.1), torch.optim.SGD(theirs.parameters(), lr=0.1)
    for step in range(3):
        (a, ta), (b, tb) = pair(_data((6, 2), 70 + step, "float32")), pair(_data((6, 3), 80 + step, "float32"))
        y, ty = ours(a, b), theirs(ta, tb)
        close(y, ty, rtol=1e-5, atol=1e-5)
        opt.zero_grad()
        topt.zero_grad()
        y.square().mean().backward()
        ty.square().mean().backward()
        opt.step()
        topt.step()
        _same_state(ours, theirs, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("call", [
    lambda m, x: m.nn.functional.bilinear(x(5, 2), x(4, 3), x(4, 2, 3), x(4)),
    lambda m, x: m.nn.functional.bilinear(x(5, 2), x(5, 3), x(4, 2, 3), x(3)),
    lambda m, x: m.nn.functional.bilinear(x(5, 3), x(5, 3), x(4, 2, 3), x(4)),
    lambda m, x: m.nn.functional.bilinear(x(5, 2), x(5, 4), x(4, 2, 3), x(4)),
    lambda m, x: m.nn.functional.bilinear(x(5, 2), x(5, 2, 3), x(4, 2, 3), x(4)),
    lambda m, x: m.nn.functional.bilinear(x(5, 2).double(), x(5, 3), x(4, 2, 3), x(4)),
    lambda m, x: m.nn.Bilinear(2, 3, 4)(x(5, 3), x(5, 3)),
])
def test_bilinear_errors_as_torch(call):
    both_raise(lambda: call(ag, lambda *s: ag.randn(*s)), lambda: call(torch, lambda *s: torch.randn(*s)))


def test_new_names_are_exported():
    for name in ("instance_norm", "bilinear", "adaptive_max_pool1d", "adaptive_max_pool2d"):
        assert name in F.__all__ and callable(getattr(F, name))
    for name in ("ReflectionPad1d", "ReflectionPad2d", "ReplicationPad1d", "ReplicationPad2d", "CircularPad1d",
                 "CircularPad2d", "InstanceNorm1d", "InstanceNorm2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
                 "Bilinear"):
        assert name in nn.__all__ and getattr(nn, name) is getattr(nn.layers, name)
