"""Convolution and pooling (``F.conv2d``, ``F.max_pool2d``, ``F.avg_pool2d``, ``F.pad`` and the modules ``Conv2d``,
``MaxPool2d``, ``AvgPool2d``, ``Flatten``) run in both libraries on the same data: values, gradients of input,
weight and bias, second derivatives, ties in max pooling (ReLU zeros), reprs, initialisation bounds, errors; and
finite differences in float64."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import ON_CUPY, import_torch
from torch_compare import both_raise as _both_raise
from torch_compare import close
from torch_compare import pair as _pair

import autogradlab as ag
import autogradlab.nn as nn
import autogradlab.nn.functional as F
from autogradlab.testing import gradcheck, gradgradcheck

torch = import_torch()
TF = torch.nn.functional
NAN, INF = float("nan"), float("inf")


def _close(ours, theirs, rtol=1e-5, atol=1e-5):
    close(ours, theirs, rtol, atol)


def _data(shape, seed, dtype="float32"):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


CONVS = [  # (input shape, weight shape, kwargs)
    ((2, 3, 7, 6), (4, 3, 3, 3), {}),
    ((2, 3, 7, 6), (4, 3, 3, 2), {"stride": 2, "padding": 1}),
    ((1, 2, 9, 9), (3, 2, 3, 3), {"stride": (2, 1), "padding": (0, 2), "dilation": (2, 1)}),
    ((2, 4, 5, 5), (6, 2, 3, 3), {"groups": 2, "padding": "same"}),
    ((2, 4, 6, 5), (4, 1, 2, 4), {"groups": 4, "padding": "same"}),     # depthwise; odd padding: 1 more at the end
    ((1, 2, 6, 7), (3, 2, 3, 2), {"padding": "same", "dilation": (2, 3)}),
    ((2, 3, 5, 5), (2, 3, 5, 5), {"padding": "valid"}),
    ((3, 6, 6), (2, 3, 3, 3), {}),                                                     # unbatched
    ((2, 1, 4, 4), (1, 1, 1, 1), {"stride": 3}),
]


@pytest.mark.parametrize("x_shape, w_shape, kwargs", CONVS)
@pytest.mark.parametrize("with_bias", [True, False])
@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel:UserWarning")   # (torch's, on speed)
def test_conv2d_values_and_gradients_match_torch(x_shape, w_shape, kwargs, with_bias):
    x, tx = _pair(_data(x_shape, 1), requires_grad=True)
    w, tw = _pair(_data(w_shape, 2), requires_grad=True)
    b, tb = _pair(_data(w_shape[:1], 3), requires_grad=True) if with_bias else (None, None)
    y, ty = F.conv2d(x, w, b, **kwargs), TF.conv2d(tx, tw, tb, **kwargs)
    _close(y, ty)
    g = _data(tuple(ty.shape), 4)
    y.backward(ag.tensor(g))
    ty.backward(torch.tensor(g))
    for ours, theirs in [(x, tx), (w, tw)] + ([(b, tb)] if with_bias else []):
        _close(ours.grad, theirs.grad, rtol=1e-4, atol=1e-4)


def test_conv2d_second_derivatives_match_torch():
    x, tx = _pair(_data((1, 2, 5, 5), 5, "float64"), requires_grad=True)
    w, tw = _pair(_data((3, 2, 3, 3), 6, "float64"), requires_grad=True)
    (gx,) = ag.autograd.grad(F.conv2d(x, w, stride=2, padding=1).square().sum(), [x], create_graph=True)
    (tgx,) = torch.autograd.grad(TF.conv2d(tx, tw, stride=2, padding=1).square().sum(), [tx], create_graph=True)
    _close(gx, tgx, rtol=1e-10, atol=1e-10)
    hx, hw = ag.autograd.grad(gx.square().sum(), [x, w])
    thx, thw = torch.autograd.grad(tgx.square().sum(), [tx, tw])
    _close(hx, thx, rtol=1e-9, atol=1e-9)
    _close(hw, thw, rtol=1e-9, atol=1e-9)


def test_conv2d_and_pooling_pass_finite_differences():
    x = ag.tensor(_data((1, 2, 5, 5), 7, "float64"), requires_grad=True)
    w = ag.tensor(_data((2, 1, 2, 3), 8, "float64"), requires_grad=True)
    b = ag.tensor(_data((2,), 9, "float64"), requires_grad=True)
    assert gradcheck(lambda x, w, b: F.conv2d(x, w, b, stride=(1, 2), padding=1, groups=2), (x, w, b))
    assert gradgradcheck(lambda x, w: F.conv2d(x, w, groups=2, dilation=2), (x, w))
    assert gradcheck(lambda x: F.max_pool2d(x, 3, stride=2, padding=1), (x,))
    assert gradcheck(lambda x: F.avg_pool2d(x, 2, stride=1, padding=1, count_include_pad=False), (x,))


POOLS = [((2, 3, 6, 6), {"kernel_size": 2}), ((2, 3, 7, 5), {"kernel_size": 3, "stride": 2, "padding": 1}),
         ((1, 2, 8, 8), {"kernel_size": (2, 3), "stride": (1, 2), "padding": (1, 0)}), ((3, 5, 5), {"kernel_size": 2})]


@pytest.mark.parametrize("x_shape, kwargs", POOLS)
def test_max_pool2d_matches_torch_also_on_ties(x_shape, kwargs):
    data = np.maximum(_data(x_shape, 10), 0.0)          # after a ReLU: windows of zeros, ties everywhere
    data[..., 0, :2] = 1.5                              # and a tie of two non-zero values
    x, tx = _pair(data, requires_grad=True)
    y, ty = F.max_pool2d(x, **kwargs), TF.max_pool2d(tx, **kwargs)
    _close(y, ty, rtol=0, atol=0)
    g = _data(tuple(ty.shape), 11)
    y.backward(ag.tensor(g))
    ty.backward(torch.tensor(g))
    _close(x.grad, tx.grad, rtol=1e-6, atol=1e-6)       # each window's gradient to its first largest element


def test_max_pool2d_with_dilation_matches_torch():
    x, tx = _pair(_data((1, 2, 7, 7), 12), requires_grad=True)
    y, ty = F.max_pool2d(x, 2, stride=1, dilation=2), TF.max_pool2d(tx, 2, stride=1, dilation=2)
    _close(y, ty)
    y.sum().backward()
    ty.sum().backward()
    _close(x.grad, tx.grad)


@pytest.mark.parametrize("x_shape, kwargs", POOLS)
@pytest.mark.parametrize("count_include_pad", [True, False])
def test_avg_pool2d_matches_torch(x_shape, kwargs, count_include_pad):
    x, tx = _pair(_data(x_shape, 13), requires_grad=True)
    y = F.avg_pool2d(x, count_include_pad=count_include_pad, **kwargs)
    ty = TF.avg_pool2d(tx, count_include_pad=count_include_pad, **kwargs)
    _close(y, ty)
    g = _data(tuple(ty.shape), 14)
    y.backward(ag.tensor(g))
    ty.backward(torch.tensor(g))
    _close(x.grad, tx.grad)


@pytest.mark.parametrize("shape, pad, value", [((2, 3), (1, 2), None), ((2, 3, 4), (0, 1, 2, 0), 5.0),
                                               ((2, 3), (-1, 1), None), ((1, 2, 3, 3), (1, 1, 1, 1, 1, 0), -1.0)])
def test_pad_matches_torch(shape, pad, value):
    x, tx = _pair(_data(shape, 15), requires_grad=True)
    y, ty = F.pad(x, pad, value=value), TF.pad(tx, pad, value=value)
    _close(y, ty, rtol=0, atol=0)
    g = _data(tuple(ty.shape), 16)
    y.backward(ag.tensor(g))
    ty.backward(torch.tensor(g))
    _close(x.grad, tx.grad, rtol=0, atol=0)


@pytest.mark.parametrize("args, kwargs", [((3, 8, 3), {}), ((3, 8, (3, 5)), {"stride": 2, "padding": 1, "dilation": 2,
                                                                            "bias": False}),
                                          ((4, 8, 3), {"groups": 2, "padding": "same"})])
def test_conv2d_module_prints_initialises_and_computes_as_torch(args, kwargs):
    ours, theirs = nn.Conv2d(*args, **kwargs), torch.nn.Conv2d(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    fan_in = ours.weight.shape[1] * ours.weight.shape[2] * ours.weight.shape[3]
    assert np.abs(ours.weight.detach().numpy()).max() <= 1 / np.sqrt(fan_in)     # PyTorch's default bound
    ours.load_state_dict({k: ag.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    x, tx = _pair(_data((2, args[0], 9, 8), 17))
    _close(ours(x), theirs(tx))


def test_pooling_and_flatten_modules_print_and_compute_as_torch():
    x, tx = _pair(_data((2, 3, 6, 6), 18))
    for ours, theirs in [(nn.MaxPool2d(2), torch.nn.MaxPool2d(2)),
                         (nn.MaxPool2d(3, stride=1, padding=1), torch.nn.MaxPool2d(3, stride=1, padding=1)),
                         (nn.AvgPool2d(2), torch.nn.AvgPool2d(2)),
                         (nn.AvgPool2d(3, 1, 1, count_include_pad=False),
                          torch.nn.AvgPool2d(3, 1, 1, count_include_pad=False)),
                         (nn.Flatten(), torch.nn.Flatten()), (nn.Flatten(0, 2), torch.nn.Flatten(0, 2))]:
        assert repr(ours) == repr(theirs)
        _close(ours(x), theirs(tx))


def test_a_small_cnn_trains_like_torchs():
    """Conv-ReLU-Pool-Flatten-Linear: the same weights and data give the same loss and gradients."""
    def cnn(lib):
        return lib.nn.Sequential(lib.nn.Conv2d(1, 4, 3, padding=1), lib.nn.ReLU(), lib.nn.MaxPool2d(2),
                                 lib.nn.Conv2d(4, 6, 3), lib.nn.ReLU(), lib.nn.Flatten(), lib.nn.Linear(6, 3))
    ours, theirs = cnn(ag), cnn(torch)
    ours.load_state_dict({k: ag.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    x, tx = _pair(_data((5, 1, 6, 6), 19))
    y, ty = ag.tensor(np.array([0, 2, 1, 1, 0])), torch.tensor([0, 2, 1, 1, 0])
    loss, tloss = F.cross_entropy(ours(x), y), TF.cross_entropy(theirs(tx), ty)
    _close(loss, tloss)
    loss.backward()
    tloss.backward()
    for (name, p), (_, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
        _close(p.grad, tp.grad, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("call", [
    lambda m, r: m.nn.functional.conv2d(r(2, 4, 5, 5), r(8, 3, 3, 3)),
    lambda m, r: m.nn.functional.conv2d(r(2, 3, 2, 2), r(8, 3, 3, 3)),
    lambda m, r: m.nn.functional.conv2d(r(2, 3, 5, 5), r(8, 3, 3, 3), padding="same", stride=2),
    lambda m, r: m.nn.functional.conv2d(r(2, 4, 5, 5), r(6, 2, 3, 3), groups=4),
    lambda m, r: m.nn.functional.conv2d(r(5, 5), r(8, 3, 3, 3)),
    lambda m, r: m.nn.functional.conv2d(r(2, 3, 5, 5), r(8, 3, 3, 3), bias=r(7)),
    lambda m, r: m.nn.functional.conv2d(r(2, 3, 5, 5).double(), r(8, 3, 3, 3)),
    lambda m, r: m.nn.functional.conv2d(r(2, 3, 5, 5), r(8, 3, 3, 3), padding=-1),
    lambda m, r: m.nn.functional.conv2d(r(2, 3, 5, 5), r(8, 3, 3, 3), stride=0),
    lambda m, r: m.nn.functional.conv2d(r(2, 3, 5, 5), r(8, 3, 3, 3), padding="full"),
    lambda m, r: m.nn.functional.max_pool2d(r(1, 1, 4, 4), 2, padding=2),
    lambda m, r: m.nn.functional.avg_pool2d(r(1, 1, 4, 4), 2, padding=2),
    lambda m, r: m.nn.functional.pad(r(2, 3), (1, 2, 1)),
    lambda m, r: m.nn.Conv2d(3, 5, 3, groups=2),
    lambda m, r: m.nn.Conv2d(3, 6, 3, stride=2, padding="same"),
    lambda m, r: m.nn.Conv2d(3, 6, 3, padding_mode="mirror"),
    lambda m, r: m.nn.functional.conv2d(r(2, 4, 5, 5), r(4, 4, 3, 3), groups=0),
    lambda m, r: m.nn.functional.pad(r(2, 3), (-4, 2)),
    lambda m, r: m.nn.functional.pad(r(2, 3), (-3, -1)),
    lambda m, r: m.nn.functional.pad(r(2, 3), (1.0, 1)),
])
def test_errors_as_in_torch(call):
    _both_raise(lambda: call(ag, lambda *s: ag.randn(*s)), lambda: call(torch, lambda *s: torch.randn(*s)))


@pytest.mark.parametrize("data, kwargs", [
    ([[[[NAN, 1.0], [NAN, 2.0]]]], {"kernel_size": 2}),                                 # two NaNs: the last one
    ([[[[-INF, 1.0], [3.0, -INF]]]], {"kernel_size": 2, "stride": 1, "padding": 1}),    # -inf windows, padding
    ([[[[-INF, -INF, 2.0], [-INF, -INF, NAN], [0.5, 1.0, NAN]]]], {"kernel_size": 2, "stride": 1, "padding": 1}),
    ([[[[1.0, 1.0, 1.0, 1.0]] * 4]], {"kernel_size": 3, "stride": 1, "padding": 1, "dilation": 1}),
])
def test_max_pool2d_sends_the_gradient_where_torch_does_with_nan_and_infinities(data, kwargs):
    x, tx = _pair(np.array(data, "float32"), requires_grad=True)
    y, ty = F.max_pool2d(x, **kwargs), TF.max_pool2d(tx, **kwargs)
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
    g = _data(tuple(ty.shape), 20)
    y.backward(ag.tensor(g))
    ty.backward(torch.tensor(g))
    # (where windows overlap, one element sums several gradients: a GPU adds them with atomics, in any order)
    _close(x.grad, tx.grad, rtol=5e-7 if ON_CUPY else 0, atol=0)


def test_integer_max_pooling_pads_with_the_smallest_integer_as_torch():
    x, tx = _pair(np.array([[[[-5, 2, 7], [1, -9, 3], [4, 4, -1]]]], "int64"))
    _close(F.max_pool2d(x, 2, stride=1, padding=1), TF.max_pool2d(tx, 2, stride=1, padding=1), rtol=0, atol=0)


def test_avg_pool2d_sums_float16_in_float32_as_torch_and_refuses_integers():
    x, tx = _pair(_data((2, 3, 8, 8), 21, "float16") * 40)
    _close(F.avg_pool2d(x, 3, stride=1, padding=1), TF.avg_pool2d(tx, 3, stride=1, padding=1), rtol=0, atol=0)
    with pytest.raises(TypeError, match=r"\.float\(\)"):
        F.avg_pool2d(ag.tensor(np.ones((1, 1, 4, 4), "int64")), 2)


def test_one_element_tuples_are_pairs_as_in_torch():
    x, tx = _pair(_data((1, 2, 7, 7), 22))
    w, tw = _pair(_data((3, 2, 3, 3), 23))
    _close(F.conv2d(x, w, stride=(2,), padding=(1,)), TF.conv2d(tx, tw, stride=(2,), padding=(1,)))
    _close(F.max_pool2d(x, (2,), stride=(1,)), TF.max_pool2d(tx, (2,), stride=(1,)))
    _close(F.avg_pool2d(x, (3,), stride=(2,)), TF.avg_pool2d(tx, (3,), stride=(2,)))


def test_conv2d_bias_starts_within_pytorchs_bound_and_fills_it():
    ag.manual_seed(0)
    conv = nn.Conv2d(4, 64, 3)                                  # fan_in 36: bound 1/6 for weight and bias
    for t in (conv.weight, conv.bias):
        a = np.abs(t.detach().numpy())
        assert a.max() <= 1 / 6 and a.max() > 0.9 / 6


# -- one dimension: conv1d, max_pool1d, avg_pool1d and their modules ----------------------------------------------

CONVS_1D = [  # (input shape, weight shape, kwargs)
    ((2, 3, 9), (4, 3, 3), {}),
    ((2, 3, 9), (4, 3, 2), {"stride": 2, "padding": 1}),
    ((1, 2, 11), (3, 2, 3), {"stride": (3,), "padding": (2,), "dilation": 2}),
    ((2, 4, 7), (6, 2, 3), {"groups": 2, "padding": "same"}),
    ((2, 4, 6), (4, 1, 4), {"groups": 4, "padding": "same"}),
    ((2, 3, 5), (2, 3, 5), {"padding": "valid"}),
    ((3, 8), (2, 3, 3), {}),                                                  # unbatched
]


@pytest.mark.parametrize("x_shape, w_shape, kwargs", CONVS_1D)
@pytest.mark.parametrize("with_bias", [True, False])
@pytest.mark.filterwarnings("ignore:Using padding='same' with even kernel:UserWarning")
def test_conv1d_values_and_gradients_match_torch(x_shape, w_shape, kwargs, with_bias):
    x, tx = _pair(_data(x_shape, 31), requires_grad=True)
    w, tw = _pair(_data(w_shape, 32), requires_grad=True)
    b, tb = _pair(_data(w_shape[:1], 33), requires_grad=True) if with_bias else (None, None)
    y, ty = F.conv1d(x, w, b, **kwargs), TF.conv1d(tx, tw, tb, **kwargs)
    _close(y, ty)
    g = _data(tuple(ty.shape), 34)
    y.backward(ag.tensor(g))
    ty.backward(torch.tensor(g))
    for ours, theirs in [(x, tx), (w, tw)] + ([(b, tb)] if with_bias else []):
        _close(ours.grad, theirs.grad, rtol=1e-4, atol=1e-4)


POOLS_1D = [((2, 3, 8), {"kernel_size": 2}), ((2, 3, 9), {"kernel_size": 3, "stride": 2, "padding": 1}),
            ((1, 2, 10), {"kernel_size": (3,), "stride": (1,), "padding": (1,)}), ((3, 7), {"kernel_size": 2})]


@pytest.mark.parametrize("x_shape, kwargs", POOLS_1D)
def test_pool1d_matches_torch_also_on_ties(x_shape, kwargs):
    data = np.maximum(_data(x_shape, 35), 0.0)          # after a ReLU: ties of zeros
    data[..., :2] = 1.5
    for name, extra in [("max_pool1d", {}), ("max_pool1d", {"dilation": 2}), ("avg_pool1d", {}),
                        ("avg_pool1d", {"count_include_pad": False})]:
        if "dilation" in extra and x_shape[-1] < 9:
            continue
        x, tx = _pair(data, requires_grad=True)
        y, ty = getattr(F, name)(x, **kwargs, **extra), getattr(TF, name)(tx, **kwargs, **extra)
        _close(y, ty, rtol=1e-6, atol=1e-7)
        g = _data(tuple(ty.shape), 36)
        y.backward(ag.tensor(g))
        ty.backward(torch.tensor(g))
        _close(x.grad, tx.grad, rtol=1e-6, atol=1e-6)


def test_conv1d_and_pool1d_pass_finite_differences_to_second_order():
    x = ag.tensor(_data((2, 2, 7), 37, "float64"), requires_grad=True)
    w = ag.tensor(_data((3, 2, 3), 38, "float64"), requires_grad=True)
    assert gradcheck(lambda a, b: F.conv1d(a, b, stride=2, padding=1), (x, w))
    assert gradgradcheck(lambda a, b: F.conv1d(a, b, dilation=2), (x, w))
    assert gradcheck(lambda a: F.max_pool1d(a, 3, 2, 1), (x,))
    assert gradcheck(lambda a: F.avg_pool1d(a, 2, 1, 1, count_include_pad=False), (x,))


@pytest.mark.parametrize("args, kwargs", [((3, 8, 3), {}), ((3, 8, 5), {"stride": 2, "padding": 1, "dilation": 2,
                                                                        "bias": False}),
                                          ((4, 8, 3), {"groups": 2, "padding": "same"})])
def test_conv1d_module_prints_initialises_and_computes_as_torch(args, kwargs):
    ours, theirs = nn.Conv1d(*args, **kwargs), torch.nn.Conv1d(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert ours.weight.shape == tuple(theirs.weight.shape)
    fan_in = ours.weight.shape[1] * ours.weight.shape[2]
    assert np.abs(ours.weight.detach().numpy()).max() <= 1 / np.sqrt(fan_in)     # PyTorch's default bound
    ours.load_state_dict({k: ag.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    x, tx = _pair(_data((2, args[0], 12), 39))
    _close(ours(x), theirs(tx))


def test_pool1d_modules_print_and_compute_as_torch():
    x, tx = _pair(_data((2, 3, 9), 40))
    for ours, theirs in [(nn.MaxPool1d(2), torch.nn.MaxPool1d(2)),
                         (nn.MaxPool1d(3, stride=1, padding=1), torch.nn.MaxPool1d(3, stride=1, padding=1)),
                         (nn.AvgPool1d(2), torch.nn.AvgPool1d(2)),
                         (nn.AvgPool1d(3, 1, 1, count_include_pad=False),
                          torch.nn.AvgPool1d(3, 1, 1, count_include_pad=False))]:
        assert repr(ours) == repr(theirs)
        _close(ours(x), theirs(tx))


def test_a_small_1d_cnn_trains_like_torchs():
    """Conv1d-ReLU-MaxPool1d-Flatten-Linear over sequences: the same loss and gradients."""
    def cnn(lib):
        return lib.nn.Sequential(lib.nn.Conv1d(2, 4, 3, padding=1), lib.nn.ReLU(), lib.nn.MaxPool1d(2),
                                 lib.nn.Conv1d(4, 3, 3), lib.nn.ReLU(), lib.nn.AvgPool1d(2), lib.nn.Flatten(),
                                 lib.nn.Linear(3, 2))
    ours, theirs = cnn(ag), cnn(torch)
    ours.load_state_dict({k: ag.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    x, tx = _pair(_data((5, 2, 10), 41))
    y, ty = ag.tensor(np.array([0, 1, 1, 0, 1])), torch.tensor([0, 1, 1, 0, 1])
    loss, tloss = F.cross_entropy(ours(x), y), TF.cross_entropy(theirs(tx), ty)
    _close(loss, tloss)
    loss.backward()
    tloss.backward()
    for (name, p), (_, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
        _close(p.grad, tp.grad, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("call", [
    lambda m, r: m.nn.functional.conv1d(r(5), r(2, 1, 3)),
    lambda m, r: m.nn.functional.conv1d(r(2, 3, 5), r(2, 2, 3)),
    lambda m, r: m.nn.functional.conv1d(r(2, 3, 5), r(2, 3, 3, 1)),
    lambda m, r: m.nn.functional.conv1d(r(2, 3, 5), r(2, 3, 7)),
    lambda m, r: m.nn.functional.conv1d(r(2, 3, 5), r(2, 3, 3), stride=0),
    lambda m, r: m.nn.functional.conv1d(r(2, 3, 5), r(2, 3, 3), padding="same", stride=2),
    lambda m, r: m.nn.functional.max_pool1d(r(5), 2),
    lambda m, r: m.nn.functional.max_pool1d(r(2, 3, 5), 2, padding=2),
    lambda m, r: m.nn.functional.avg_pool1d(r(2, 2, 2, 5), 2),
    lambda m, r: m.nn.Conv1d(3, 5, 3, groups=2),
])
def test_1d_errors_as_in_torch(call):
    _both_raise(lambda: call(ag, lambda *s: ag.randn(*s)), lambda: call(torch, lambda *s: torch.randn(*s)))


@pytest.mark.parametrize("call", [
    lambda m, r: m.nn.functional.conv1d(r(2, 4, 9), r(6, 4, 4), groups=4),
    lambda m, r: m.nn.functional.conv1d(r(2, 4, 9), r(6, 2, 4), groups=4),
    lambda m, r: m.nn.functional.conv1d(r(2, 4, 9), r(6, 4, 4), bias=r(5)),
    lambda m, r: m.nn.functional.conv1d(r(2, 4, 9).double(), r(6, 4, 4)),
    lambda m, r: m.nn.functional.conv1d(r(1, 2, 5), r(3, 2, 3), stride=(2, 2)),
    lambda m, r: m.nn.functional.max_pool1d(r(1, 2, 3), 5),
    lambda m, r: m.nn.functional.avg_pool1d(r(1, 2, 3), 5),
])
def test_1d_errors_name_the_1d_shapes(call):
    _both_raise(lambda: call(ag, lambda *s: ag.randn(*s)), lambda: call(torch, lambda *s: torch.randn(*s)))
    with pytest.raises(Exception) as caught:   # noqa: PT011
        call(ag, lambda *s: ag.randn(*s))
    assert "x 1" not in str(caught.value) and "1 x" not in str(caught.value) and ", 1, " not in str(caught.value)
    assert "conv2d" not in str(caught.value) and "pool2d" not in str(caught.value)


def test_max_pool1d_is_no_max_pool2d_as_in_torch():
    assert not isinstance(nn.MaxPool1d(2), nn.MaxPool2d)
    assert isinstance(torch.nn.MaxPool1d(2), torch.nn.MaxPool1d) and not isinstance(torch.nn.MaxPool1d(2),
                                                                                   torch.nn.MaxPool2d)


# -- ceil_mode, return_indices, divisor_override ------------------------------------------------------------

CEIL_POOLS = [  # (input shape, kwargs): sizes where rounding the output size up adds a last, partial window
    ((1, 2, 7, 7), {"kernel_size": 2}),
    ((2, 1, 8, 9), {"kernel_size": 3, "stride": 2}),
    ((1, 2, 6, 7), {"kernel_size": 3, "stride": 2, "padding": 1}),     # the last window would start in the padding
    ((1, 1, 5, 5), {"kernel_size": 2, "stride": 2, "padding": 1}),
    ((1, 3, 9, 10), {"kernel_size": (3, 2), "stride": (2, 3), "padding": (1, 0)}),
    ((3, 4, 4), {"kernel_size": 3, "stride": 3}),                                               # unbatched
]


@pytest.mark.parametrize("x_shape, kwargs", CEIL_POOLS)
@pytest.mark.parametrize("ceil_mode", [True, False])
def test_pooling_with_ceil_mode_matches_torch(x_shape, kwargs, ceil_mode):
    data = np.maximum(_data(x_shape, 40), 0.0)            # ties of zeros for max pooling
    cases = [("max_pool2d", {}), ("avg_pool2d", {"count_include_pad": True}),
             ("avg_pool2d", {"count_include_pad": False}), ("avg_pool2d", {"divisor_override": 3})]
    k = kwargs["kernel_size"]
    if "padding" not in kwargs and min(x_shape[-2:]) >= 2 * (max(k) if isinstance(k, tuple) else k) - 1:
        cases.append(("max_pool2d", {"dilation": 2}))     # (where a dilated window fits)
    for name, extra in cases:
        x, tx = _pair(data, requires_grad=True)
        y = getattr(F, name)(x, ceil_mode=ceil_mode, **kwargs, **extra)
        ty = getattr(TF, name)(tx, ceil_mode=ceil_mode, **kwargs, **extra)
        assert tuple(y.shape) == tuple(ty.shape), (name, extra)
        _close(y, ty, rtol=1e-6, atol=1e-7)
        g = _data(tuple(ty.shape), 41)
        y.backward(ag.tensor(g))
        ty.backward(torch.tensor(g))
        _close(x.grad, tx.grad, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("x_shape, kwargs", CEIL_POOLS + POOLS)
def test_max_pool2d_returns_torchs_indices(x_shape, kwargs):
    data = np.maximum(_data(x_shape, 42), 0.0)
    data[..., 0, :2] = 1.5                                 # a tie of two non-zero values
    x, tx = _pair(data, requires_grad=True)
    for ceil_mode in (False, True):
        (y, i), (ty, ti) = (F.max_pool2d(x, return_indices=True, ceil_mode=ceil_mode, **kwargs),
                            TF.max_pool2d(tx, return_indices=True, ceil_mode=ceil_mode, **kwargs))
        _close(y, ty, rtol=0, atol=0)
        assert i.dtype == ag.int64 and not i.requires_grad
        np.testing.assert_array_equal(i.numpy(), ti.numpy())
        y.sum().backward()                                # the values still carry the gradient
        ty.sum().backward()
    _close(x.grad, tx.grad, rtol=0, atol=0)


def test_max_pool1d_returns_torchs_indices_and_the_modules_pass_the_options_on():
    data = np.maximum(_data((2, 3, 11), 43), 0.0)
    x, tx = _pair(data)
    (y, i), (ty, ti) = (F.max_pool1d(x, 3, stride=2, ceil_mode=True, return_indices=True),
                        TF.max_pool1d(tx, 3, stride=2, ceil_mode=True, return_indices=True))
    _close(y, ty, rtol=0, atol=0)
    np.testing.assert_array_equal(i.numpy(), ti.numpy())
    _close(F.avg_pool1d(x, 3, stride=2, ceil_mode=True, count_include_pad=False),
           TF.avg_pool1d(tx, 3, stride=2, ceil_mode=True, count_include_pad=False), rtol=1e-6, atol=1e-7)
    image, timage = _pair(_data((1, 2, 7, 7), 44))
    for ours, theirs in [(nn.MaxPool2d(2, ceil_mode=True, return_indices=True), torch.nn.MaxPool2d(2, ceil_mode=True,
                                                                                                   return_indices=True)),
                         (nn.AvgPool2d(3, 2, ceil_mode=True, divisor_override=2),
                          torch.nn.AvgPool2d(3, 2, ceil_mode=True, divisor_override=2))]:
        got, want = ours(image), theirs(timage)
        for a, b in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)


def test_ceil_mode_and_its_options_pass_finite_differences():
    x = ag.tensor(_data((1, 2, 5, 6), 45, "float64"), requires_grad=True)
    assert gradcheck(lambda a: F.avg_pool2d(a, 2, ceil_mode=True, count_include_pad=False), (x,))
    assert gradcheck(lambda a: F.avg_pool2d(a, 3, 2, 1, ceil_mode=True, divisor_override=5), (x,))
    assert gradgradcheck(lambda a: F.max_pool2d(a, 2, ceil_mode=True), (x,))


@pytest.mark.parametrize("call", [
    lambda m, r: m.nn.functional.avg_pool2d(r(1, 1, 4, 4), 2, divisor_override=0),
    lambda m, r: m.nn.functional.avg_pool2d(r(1, 1, 4, 4), 2, divisor_override=2.5),
])
def test_divisor_override_errors_as_in_torch(call):
    _both_raise(lambda: call(ag, lambda *s: ag.randn(*s)), lambda: call(torch, lambda *s: torch.randn(*s)))


@pytest.mark.parametrize("name, args, shape, refused_without", [
    ("max_pool2d", (3, 2), (1, 1, 2, 2), True), ("avg_pool2d", (3, 2), (1, 1, 2, 2), True),   # a kernel over the input
    ("max_pool2d", (3, 2, 0, 2), (1, 1, 4, 7), True), ("max_pool2d", (4, 3, 1), (2, 1, 3, 5), False),
    ("max_pool1d", (3, 2), (1, 2, 2), True), ("avg_pool1d", (3, 2), (1, 2, 2), True),
])
def test_ceil_mode_keeps_a_window_wider_than_the_input_as_torch(name, args, shape, refused_without):
    """(Found by a review against torch: with ceil_mode the output size is rounded up, so one window may cover
    more than the whole input; without it, both refuse.)"""
    x, tx = _pair(_data(shape, 46), requires_grad=True)
    y, ty = getattr(F, name)(x, *args, ceil_mode=True), getattr(TF, name)(tx, *args, ceil_mode=True)
    _close(y, ty, rtol=1e-6, atol=1e-7)
    y.sum().backward()
    ty.sum().backward()
    _close(x.grad, tx.grad, rtol=1e-6, atol=1e-7)
    if refused_without:
        _both_raise(lambda: getattr(F, name)(x, *args), lambda: getattr(TF, name)(tx, *args))


@pytest.mark.parametrize("call", [   # (found by a review against torch)
    lambda m, r: m.nn.functional.max_pool2d(r(1, 1, 7, 7), 3, 1, 2, 2),        # pad > kernel // 2, dilated or not
    lambda m, r: m.nn.functional.max_pool1d(r(1, 1, 7), 3, 1, 2, 2),
    lambda m, r: m.nn.functional.max_pool2d(r(1, 1, 4, 4) > 0, 2),             # bool images
    lambda m, r: m.nn.functional.max_pool2d(r(2, 0, 4, 4), 2),                 # no channels
    lambda m, r: m.nn.functional.avg_pool2d(r(2, 0, 4, 4), 2),
    lambda m, r: m.nn.functional.conv_transpose2d(r(1, 1, 1, 1), r(1, 1, 1, 1), padding=1),   # output too small
    lambda m, r: m.nn.functional.conv_transpose1d(r(1, 1, 2), r(1, 1, 2), padding=2),
    lambda m, r: m.nn.functional.conv_transpose2d(r(1, 1, 0, 3), r(1, 1, 2, 2)),   # an empty image
    lambda m, r: m.nn.functional.conv_transpose2d(r(1, 4, 3, 3), r(4, 1, 2, 2), groups=3),
])
def test_pooling_and_transposed_convolution_errors_as_in_torch(call):
    _both_raise(lambda: call(ag, lambda *s: ag.randn(*s)), lambda: call(torch, lambda *s: torch.randn(*s)))


def test_transposed_convolution_errors_name_the_callers_function_and_shapes():
    with pytest.raises(RuntimeError, match=r"conv_transpose1d: .*weight of size \[4, 1, 2\], expected input\[1, 3, 2\]"):
        F.conv_transpose1d(ag.ones(1, 3, 2), ag.ones(4, 1, 2))
    with pytest.raises(RuntimeError, match=r"conv_transpose1d: given input size per channel: \(2\)"):
        F.conv_transpose1d(ag.ones(1, 1, 2), ag.ones(1, 1, 2), padding=2)
    with pytest.raises(RuntimeError, match=r"divisible by 3 at dimension 0"):
        F.conv_transpose2d(ag.ones(1, 4, 3, 3), ag.ones(4, 1, 2, 2), groups=3)





# -- transposed convolutions ------------------------------------------------------------------------------

TRANSPOSED = [  # (input shape, weight shape (in, out/groups, kh, kw), kwargs)
    ((2, 4, 5, 6), (4, 3, 3, 3), {}),
    ((2, 4, 5, 6), (4, 3, 3, 2), {"stride": 2, "padding": 1, "output_padding": 1}),
    ((1, 4, 4, 4), (4, 2, 3, 3), {"groups": 2, "stride": (2, 3), "dilation": (2, 1), "padding": (2, 1)}),
    ((3, 5, 5), (3, 2, 2, 2), {"stride": 3, "padding": 2, "output_padding": (2, 0)}),        # unbatched
    ((2, 6, 3, 3), (6, 1, 4, 4), {"groups": 6, "stride": 2, "padding": 3, "dilation": 2, "output_padding": 1}),
]


@pytest.mark.parametrize("x_shape, w_shape, kwargs", TRANSPOSED)
@pytest.mark.parametrize("with_bias", [True, False])
def test_conv_transpose2d_values_and_gradients_match_torch(x_shape, w_shape, kwargs, with_bias):
    x, tx = _pair(_data(x_shape, 50, "float64"), requires_grad=True)
    w, tw = _pair(_data(w_shape, 51, "float64"), requires_grad=True)
    b, tb = _pair(_data((w_shape[1] * kwargs.get("groups", 1),), 52, "float64"), requires_grad=True) if with_bias \
        else (None, None)
    y, ty = F.conv_transpose2d(x, w, b, **kwargs), TF.conv_transpose2d(tx, tw, tb, **kwargs)
    assert tuple(y.shape) == tuple(ty.shape)
    _close(y, ty, rtol=1e-12, atol=1e-12)
    g = _data(tuple(ty.shape), 53, "float64")
    y.backward(ag.tensor(g))
    ty.backward(torch.tensor(g))
    for ours, theirs in [(x, tx), (w, tw)] + ([(b, tb)] if with_bias else []):
        _close(ours.grad, theirs.grad, rtol=1e-12, atol=1e-12)


def test_conv_transpose_second_derivatives_and_finite_differences():
    x = ag.tensor(_data((1, 2, 3, 3), 54, "float64"), requires_grad=True)
    w = ag.tensor(_data((2, 2, 2, 3), 55, "float64"), requires_grad=True)
    b = ag.tensor(_data((2,), 56, "float64"), requires_grad=True)
    def f(x, w, b):
        return F.conv_transpose2d(x, w, b, stride=2, padding=(1, 0), output_padding=(1, 0))
    assert gradcheck(f, (x, w, b)) and gradgradcheck(f, (x, w, b))
    s = ag.tensor(_data((1, 2, 5), 57, "float64"), requires_grad=True)
    k = ag.tensor(_data((2, 3, 3), 58, "float64"), requires_grad=True)
    assert gradcheck(lambda s, k: F.conv_transpose1d(s, k, stride=2, padding=1, output_padding=1), (s, k))
    (tx, tw, tb) = (torch.tensor(t.detach().numpy(), requires_grad=True) for t in (x, w, b))
    gx, = ag.autograd.grad((f(x, w, b) ** 2).sum(), x, create_graph=True)
    tgx, = torch.autograd.grad((TF.conv_transpose2d(tx, tw, tb, stride=2, padding=(1, 0), output_padding=(1, 0)) ** 2)
                               .sum(), tx, create_graph=True)
    gx.sum().backward()
    tgx.sum().backward()
    for ours, theirs in [(x, tx), (w, tw), (b, tb)]:
        _close(ours.grad, theirs.grad, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("x_shape, w_shape, kwargs", [((2, 4, 7), (4, 3, 3), {}),
                                                      ((1, 4, 6), (4, 2, 2), {"stride": 3, "padding": 1,
                                                                              "output_padding": 2, "groups": 2}),
                                                      ((4, 5), (4, 1, 3), {"dilation": 2, "stride": 2})])
def test_conv_transpose1d_matches_torch(x_shape, w_shape, kwargs):
    x, tx = _pair(_data(x_shape, 59), requires_grad=True)
    w, tw = _pair(_data(w_shape, 60), requires_grad=True)
    y, ty = F.conv_transpose1d(x, w, **kwargs), TF.conv_transpose1d(tx, tw, **kwargs)
    _close(y, ty)
    y.sum().backward()
    ty.sum().backward()
    _close(x.grad, tx.grad)
    _close(w.grad, tw.grad)


@pytest.mark.parametrize("cls, args, kwargs, x_shape", [
    ("ConvTranspose2d", (3, 4, 3), {"stride": 2, "padding": 1, "output_padding": 1}, (2, 3, 5, 5)),
    ("ConvTranspose2d", (4, 6, (2, 3)), {"groups": 2, "dilation": 2, "bias": False}, (1, 4, 4, 3)),
    ("ConvTranspose1d", (3, 2, 4), {"stride": 2}, (2, 3, 6)),
])
def test_conv_transpose_modules_print_initialise_and_compute_as_torch(cls, args, kwargs, x_shape):
    ours, theirs = getattr(nn, cls)(*args, **kwargs), getattr(torch.nn, cls)(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert tuple(ours.weight.shape) == tuple(theirs.weight.shape)
    fan_in = int(np.prod(ours.weight.shape[1:]))               # (out/groups * kernel: PyTorch's, from the weight)
    assert np.abs(ours.weight.detach().numpy()).max() <= 1 / np.sqrt(fan_in)
    ours.load_state_dict({k: ag.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    x, tx = _pair(_data(x_shape, 61))
    _close(ours(x), theirs(tx))


def test_conv_transpose_output_size_picks_the_output_padding_as_torch():
    ours, theirs = nn.ConvTranspose2d(2, 3, 3, stride=3, padding=1), torch.nn.ConvTranspose2d(2, 3, 3, stride=3, padding=1)
    ours.load_state_dict({k: ag.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    x, tx = _pair(_data((1, 2, 4, 4), 62))
    for size in [(10, 10), (11, 12), (1, 3, 12, 10), [12, 11]]:
        _close(ours(x, output_size=size), theirs(tx, output_size=size))
    for size in [(9, 10), (10, 13), (1, 10, 10, 10, 10)]:
        _both_raise(lambda: ours(x, output_size=size), lambda: theirs(tx, output_size=size))


@pytest.mark.parametrize("call", [
    lambda m, r: m.nn.functional.conv_transpose2d(r(1, 4, 3, 3), r(3, 2, 3, 3)),                  # channels
    lambda m, r: m.nn.functional.conv_transpose2d(r(1, 4, 3, 3), r(4, 2, 3, 3), stride=2, output_padding=2),
    lambda m, r: m.nn.functional.conv_transpose2d(r(1, 4, 3, 3), r(4, 2, 3, 3), r(3)),                # bias size
    lambda m, r: m.nn.functional.conv_transpose2d(r(1, 4, 3, 3), r(4, 2, 3, 3), groups=3),
    lambda m, r: m.nn.ConvTranspose2d(3, 4, 3, padding_mode="reflect"),
    lambda m, r: m.nn.ConvTranspose2d(3, 4, 3, groups=2),
])
def test_conv_transpose_errors_as_in_torch(call):
    _both_raise(lambda: call(ag, lambda *s: ag.randn(*s)), lambda: call(torch, lambda *s: torch.randn(*s)))


# -- adaptive average pooling ------------------------------------------------------------------------------

@pytest.mark.parametrize("shape, size", [((2, 3, 7, 9), (3, 4)), ((2, 3, 5, 5), 1), ((3, 6, 6), (2, None)),
                                         ((1, 2, 4, 7), (5, 9)), ((1, 1, 10, 3), (4, 3)), ((2, 2, 6, 6), (6, 1))])
def test_adaptive_avg_pool2d_matches_torch(shape, size):
    x, tx = _pair(_data(shape, 70, "float64"), requires_grad=True)
    y, ty = F.adaptive_avg_pool2d(x, size), TF.adaptive_avg_pool2d(tx, size)
    _close(y, ty, rtol=1e-12, atol=1e-12)
    g = _data(tuple(ty.shape), 71, "float64")
    y.backward(ag.tensor(g))
    ty.backward(torch.tensor(g))
    _close(x.grad, tx.grad, rtol=1e-12, atol=1e-12)
    module, tmodule = nn.AdaptiveAvgPool2d(size), torch.nn.AdaptiveAvgPool2d(size)
    assert repr(module) == repr(tmodule)
    _close(module(x), tmodule(tx), rtol=1e-12, atol=1e-12)


def test_adaptive_avg_pool1d_float16_second_derivatives_and_errors_as_torch():
    x, tx = _pair(_data((2, 3, 11), 72, "float64"), requires_grad=True)
    for size in (4, 11, 1, (5,)):
        _close(F.adaptive_avg_pool1d(x, size), TF.adaptive_avg_pool1d(tx, size), rtol=1e-12, atol=1e-12)
    assert repr(nn.AdaptiveAvgPool1d(3)) == repr(torch.nn.AdaptiveAvgPool1d(3))
    h, th = _pair(_data((1, 2, 9, 9), 73, "float16") * 20)
    _close(F.adaptive_avg_pool2d(h, (4, 2)), TF.adaptive_avg_pool2d(th, (4, 2)), rtol=2e-3, atol=2e-3)
    g, = ag.autograd.grad((F.adaptive_avg_pool1d(x, 4) ** 2).sum(), x, create_graph=True)
    tg, = torch.autograd.grad((TF.adaptive_avg_pool1d(tx, 4) ** 2).sum(), tx, create_graph=True)
    (g ** 2).sum().backward()
    (tg ** 2).sum().backward()
    _close(x.grad, tx.grad, rtol=1e-10, atol=1e-12)
    assert gradcheck(lambda a: F.adaptive_avg_pool2d(a, (2, 3)), (ag.tensor(_data((1, 1, 5, 4), 74, "float64"),
                                                                           requires_grad=True),))
    for call in (lambda m: m.nn.functional.adaptive_avg_pool2d(m.ones(2, 3), 2),
                 lambda m: m.nn.functional.adaptive_avg_pool2d(m.ones(1, 2, 3, 3), (1, 2, 3)),
                 lambda m: m.nn.functional.adaptive_avg_pool1d(m.ones(1, 2, 3, 3), 2)):
        _both_raise(lambda: call(ag), lambda: call(torch))


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("cls, shape, kwargs", [
    ("Conv2d", (2, 2, 6, 7), {"kernel_size": 3, "padding": 1}),
    ("Conv2d", (2, 2, 6, 7), {"kernel_size": (3, 2), "padding": (2, 1), "stride": 2}),
    ("Conv2d", (2, 2, 6, 7), {"kernel_size": 4, "padding": "same", "dilation": (1, 2)}),   # odd total: right +1
    ("Conv2d", (2, 2, 6, 7), {"kernel_size": 3, "padding": "valid"}),
    ("Conv2d", (2, 6, 5), {"kernel_size": 3, "padding": 2}),                               # unbatched
    ("Conv1d", (3, 2, 8), {"kernel_size": 3, "padding": 2, "dilation": 2}),
    ("Conv1d", (2, 9), {"kernel_size": 4, "padding": "same"}),                             # unbatched
])
def test_conv_padding_modes_match_torch_in_values_gradients_and_repr(mode, cls, shape, kwargs):
    """PyTorch pads the input in that mode (F.pad) and convolves it unpadded: values, the gradients of input,
    weight and bias, the repr (it names the mode) and the state dict (the mode adds no entry)."""
    channels = shape[-3] if cls == "Conv2d" else shape[-2]
    torch.manual_seed(3)
    theirs = getattr(torch.nn, cls)(channels, 3, padding_mode=mode, **kwargs).double()
    ours = getattr(nn, cls)(channels, 3, padding_mode=mode, dtype=ag.float64, **kwargs)
    assert repr(ours) == repr(theirs) and list(ours.state_dict()) == list(theirs.state_dict())
    ours.load_state_dict({k: ag.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    x, tx = _pair(_data(shape, 31, "float64"), requires_grad=True)
    y, ty = ours(x), theirs(tx)
    close(y, ty, rtol=1e-12, atol=1e-12)
    g = _data(tuple(ty.shape), 32, "float64")
    y.backward(ag.tensor(g))
    ty.backward(torch.tensor(g))
    close(x.grad, tx.grad, rtol=1e-12, atol=1e-12)
    close(ours.weight.grad, theirs.weight.grad, rtol=1e-12, atol=1e-12)
    close(ours.bias.grad, theirs.bias.grad, rtol=1e-12, atol=1e-12)


def test_a_reflect_padding_as_wide_as_the_input_is_refused_as_in_torch():
    _both_raise(lambda: nn.Conv2d(1, 1, 3, padding=3, padding_mode="reflect")(ag.randn(1, 1, 3, 3)),
                lambda: torch.nn.Conv2d(1, 1, 3, padding=3, padding_mode="reflect")(torch.randn(1, 1, 3, 3)))


def test_conv_padding_modes_pass_finite_differences():
    conv = nn.Conv2d(2, 2, 3, padding=1, padding_mode="circular", dtype=ag.float64)
    x = ag.tensor(_data((1, 2, 4, 5), 33, "float64"), requires_grad=True)
    assert gradcheck(lambda t, w: F.conv2d(F.pad(t, conv._mode_padding, mode="circular"), w), (x, conv.weight))
    assert gradcheck(lambda t: conv(t), (x,)) and gradgradcheck(lambda t: conv(t) ** 2, (x,))


UNPOOLS = [  # (n, input shape, pool kwargs, unpool kwargs)
    (2, (2, 3, 6, 6), {"kernel_size": 2}, {}),
    (2, (2, 3, 7, 6), {"kernel_size": 3, "stride": 2, "padding": 1}, {"output_size": (7, 6)}),  # (default: 7x5)
    (2, (2, 3, 7, 6), {"kernel_size": 2}, {"output_size": (7, 6)}),
    (2, (1, 2, 7, 7), {"kernel_size": 3, "stride": 2}, {"output_size": (1, 2, 8, 7)}),
    (2, (3, 5, 4), {"kernel_size": (2, 1), "stride": (2, 1)}, {}),                      # unbatched
    (1, (2, 3, 9), {"kernel_size": 3, "stride": 2, "padding": 1}, {}),
    (1, (3, 8), {"kernel_size": 2}, {"output_size": [9]}),                             # unbatched
]


@pytest.mark.parametrize("n, shape, pool, unpool", UNPOOLS)
def test_max_unpool_puts_the_pooled_values_back_as_torch(n, shape, pool, unpool):
    """Pool with indices, unpool: values, shape, and the gradient back through both to the input."""
    x, tx = _pair(_data(shape, 41, "float64"), requires_grad=True)
    pool_fn, unpool_fn = f"max_pool{n}d", f"max_unpool{n}d"
    (y, i), (ty, ti) = getattr(F, pool_fn)(x, return_indices=True, **pool), getattr(TF, pool_fn)(
        tx, return_indices=True, **pool)
    args = {k: pool[k] for k in ("stride", "padding") if k in pool}
    u = getattr(F, unpool_fn)(y, i, pool["kernel_size"], **args, **unpool)
    tu = getattr(TF, unpool_fn)(ty, ti, pool["kernel_size"], **args, **unpool)
    close(u, tu, rtol=0, atol=0)
    g = _data(tuple(tu.shape), 42, "float64")
    u.backward(ag.tensor(g))
    tu.backward(torch.tensor(g))
    close(x.grad, tx.grad, rtol=0, atol=0)


def test_max_unpool_modules_print_and_compute_as_torch():
    for cls, args, shape in (("MaxUnpool2d", (2,), (2, 3, 4, 4)), ("MaxUnpool2d", ((3, 2), (2, 1), 1), (1, 2, 5, 5)),
                             ("MaxUnpool1d", (3, 2), (2, 3, 9))):
        ours, theirs = getattr(nn, cls)(*args), getattr(torch.nn, cls)(*args)
        assert repr(ours) == repr(theirs)
        pool = cls.replace("Unpool", "Pool")
        x, tx = _pair(_data(shape, 43))
        (y, i), (ty, ti) = (getattr(nn, pool)(*args, return_indices=True)(x),
                            getattr(torch.nn, pool)(*args, return_indices=True)(tx))
        close(ours(y, i), theirs(ty, ti), rtol=0, atol=0)


@pytest.mark.parametrize("call", [
    lambda m, t: m.nn.functional.max_unpool2d(*t(), 2, output_size=(9, 9)),
    lambda m, t: m.nn.functional.max_unpool2d(*t(), 2, output_size=(1, 2, 3)),
    lambda m, t: m.nn.functional.max_unpool2d(t()[0], t()[1].int(), 2),
    lambda m, t: m.nn.functional.max_unpool2d(t()[0], t()[1][:1], 2),
    lambda m, t: m.nn.functional.max_unpool2d(t()[0][0, 0], t()[1][0, 0], 2),
    lambda m, t: m.nn.functional.max_unpool2d(t()[0], t()[1] + 100, 2),
    lambda m, t: m.nn.functional.max_unpool2d(t()[0], t()[1] - 100, 2),
    lambda m, t: m.nn.functional.max_unpool2d(*t(), 3, 2, 1),   # an index past the default 5x5 output
])
def test_max_unpool_errors_as_in_torch(call):
    data = _data((2, 3, 6, 6), 44)

    def pooled(lib):
        return lambda: lib.nn.functional.max_pool2d(lib.tensor(data), 2, return_indices=True)
    _both_raise(lambda: call(ag, pooled(ag)), lambda: call(torch, pooled(torch)))


def test_max_unpool_passes_finite_differences():
    x = ag.tensor(_data((1, 2, 4, 4), 45, "float64"))
    y, i = F.max_pool2d(x, 2, return_indices=True)
    y = y.detach().requires_grad_()
    assert gradcheck(lambda t: F.max_unpool2d(t, i, 2), (y,))
    assert gradgradcheck(lambda t: F.max_unpool2d(t, i, 2) ** 2, (y,))


def test_max_unpool_edge_shapes_as_torch():
    """An empty batch, an output of size 0, an empty window, a padding larger than the output, integer input."""
    empty_batch = {m: m.nn.functional.max_unpool2d(m.zeros(0, 3, 2, 2), m.zeros(0, 3, 2, 2, dtype=m.int64), 2)
                   for m in (ag, torch)}
    assert tuple(empty_batch[ag].shape) == tuple(empty_batch[torch].shape) == (0, 3, 4, 4)
    nothing = {m: m.nn.functional.max_unpool1d(m.zeros(1, 1, 1), m.zeros(1, 1, 1, dtype=m.int64), 2, 2, 1)
               for m in (ag, torch)}
    assert tuple(nothing[ag].shape) == tuple(nothing[torch].shape) == (1, 1, 0)
    for call in (lambda m: m.nn.functional.max_unpool1d(m.zeros(1, 1, 1), m.zeros(1, 1, 1, dtype=m.int64), 2, 2, 3),
                 lambda m: m.nn.functional.max_unpool1d(m.zeros(1, 1, 0), m.zeros(1, 1, 0, dtype=m.int64), 2),
                 lambda m: m.nn.functional.max_unpool1d(m.zeros(1, 1, 2, dtype=m.int64),
                                                        m.zeros(1, 1, 2, dtype=m.int64), 2)):
        _both_raise(lambda: call(ag), lambda: call(torch))


def test_conv1d_same_padding_takes_an_input_shorter_than_the_kernel_as_torch():
    for k, d, length in ((3, 1, 1), (4, 2, 2)):
        torch.manual_seed(0)
        theirs = torch.nn.Conv1d(1, 2, k, padding="same", dilation=d).double()
        ours = nn.Conv1d(1, 2, k, padding="same", dilation=d, dtype=ag.float64)
        ours.load_state_dict({n: ag.tensor(v.detach().numpy()) for n, v in theirs.state_dict().items()})
        x, tx = _pair(_data((2, 1, length), 46, "float64"))
        close(ours(x), theirs(tx), rtol=1e-12, atol=1e-12)
