"""The 3-d layers (video, medical volumes) side by side with torch 2.13: ``conv3d`` / ``Conv3d`` (strides,
padding numbers and strings, dilation, groups, every ``padding_mode``), ``max_pool3d`` / ``MaxPool3d`` (ties,
NaN, padding, dilation, ``ceil_mode``), ``avg_pool3d`` / ``AvgPool3d`` (``count_include_pad``, ``ceil_mode``),
``BatchNorm3d`` and ``InstanceNorm3d``: values, input and parameter gradients, second derivatives, errors."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import import_torch
from torch_compare import both_raise, close, run_both

import autogradlab as ag

torch = import_torch()
X = np.random.default_rng(0).standard_normal((2, 4, 5, 6, 7))



@pytest.mark.parametrize("options", [
    {}, {"stride": (2, 1, 2), "padding": (1, 0, 1), "dilation": (2, 1, 1)}, {"padding": "same", "dilation": (1, 2, 1)},
    {"padding": "valid", "stride": 2}, {"groups": 2, "padding": 1}, {"groups": 4, "bias": False}],
    ids=["plain", "strided-padded-dilated", "same", "valid", "groups", "depthwise-no-bias"])
def test_conv3d_as_torchs_first_and_second_order(options):
    options = dict(options)
    groups, with_bias = options.get("groups", 1), options.pop("bias", True)
    rng = np.random.default_rng(1)
    w, b = rng.standard_normal((8, 4 // groups, 2, 3, 2)), rng.standard_normal(8)

    def run(T):
        x, W = T.tensor(X, requires_grad=True), T.tensor(w, requires_grad=True)
        B = T.tensor(b, requires_grad=True) if with_bias else None
        y = T.nn.functional.conv3d(x, W, B, **options)
        (gx,) = T.autograd.grad((y * y).sum(), x, create_graph=True)
        (gx.sin().sum() + (y ** 3).mean()).backward()
        return [y, x.grad, W.grad] + ([B.grad] if with_bias else [])
    for ours, theirs in zip(*run_both(run)):
        close(ours, theirs, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("padding_mode", ["zeros", "reflect", "replicate", "circular"])
def test_conv3d_layer_as_torchs(padding_mode):
    def run(T):
        T.manual_seed(0)
        layer = T.nn.Conv3d(4, 3, (2, 3, 3), stride=(1, 2, 1), padding=1, padding_mode=padding_mode).double()
        with T.no_grad():
            layer.weight.copy_(T.tensor(np.random.default_rng(2).standard_normal(tuple(layer.weight.shape))))
            layer.bias.copy_(T.tensor([0.1, -0.2, 0.3]))
        y = layer(T.tensor(X[0]))            # (an unbatched volume, (C, D, H, W))
        (y ** 2).sum().backward()
        return repr(layer), [y, layer.weight.grad, layer.bias.grad], [n for n, _ in layer.named_parameters()]
    (text_ours, got_ours, names_ours), (text_theirs, got_theirs, names_theirs) = run_both(run)
    assert text_ours == text_theirs and names_ours == names_theirs
    for ours, theirs in zip(got_ours, got_theirs):
        close(ours, theirs, rtol=1e-10, atol=1e-10)


def test_a_conv3d_layer_initialises_within_torchs_range():
    layer = ag.nn.Conv3d(4, 6, 3)
    bound = 1 / np.sqrt(4 * 27)
    assert tuple(layer.weight.shape) == (6, 4, 3, 3, 3) and np.abs(layer.weight.detach().numpy()).max() <= bound


def _with_ties_and_nan(T):
    data = np.round(X * 2) / 2            # (ties)
    data[0, 1, 2, 3, 4] = np.nan
    return T.tensor(data, requires_grad=True)


@pytest.mark.parametrize("options", [
    {"kernel_size": 2}, {"kernel_size": (3, 2, 3), "stride": (2, 1, 2), "padding": 1, "dilation": (1, 2, 1)},
    {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}, {"kernel_size": (2, 3, 2), "stride": 1}],
    ids=["k2", "strided-padded-dilated", "ceil", "stride-1"])
def test_max_pool3d_picks_torchs_element(options):
    def run(T):
        x = _with_ties_and_nan(T)
        y = T.nn.functional.max_pool3d(x, **options)
        y.nan_to_num(0.0).exp().sum().backward()
        layer = T.nn.MaxPool3d(**options)
        return [y, x.grad, layer(x.detach())], repr(layer)
    (ours, text_ours), (theirs, text_theirs) = run_both(run)
    assert text_ours == text_theirs
    for a, b in zip(ours, theirs):
        close(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("options", [
    {"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1}, {"kernel_size": 3, "stride": 2, "padding": 1,
                                                                          "count_include_pad": False},
    {"kernel_size": (2, 3, 3), "stride": 2, "padding": (1, 1, 0), "ceil_mode": True},
    {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False}],
    ids=["k2", "padded", "padded-not-counted", "ceil", "ceil-not-counted"])
def test_avg_pool3d_as_torchs(options):
    def run(T):
        x = T.tensor(X, requires_grad=True)
        y = T.nn.functional.avg_pool3d(x, **options)
        (y * y.exp()).sum().backward()
        return [y, x.grad, T.nn.AvgPool3d(**options)(x.detach()[0])]
    for a, b in zip(*run_both(run)):
        close(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kind", ["batch", "instance"])
def test_3d_normalisation_trains_and_evaluates_as_torchs(kind):
    def run(T):
        layer = (T.nn.BatchNorm3d(4) if kind == "batch" else T.nn.InstanceNorm3d(4, affine=True,
                                                                                    track_running_stats=True)).double()
        x = T.tensor(X, requires_grad=True)
        y = layer(x)
        (y * T.tensor(X[::-1].copy())).sum().backward()
        layer.eval()
        return [y, x.grad, layer.weight.grad, layer.running_mean, layer.running_var, layer(T.tensor(X * 0.5))]
    for a, b in zip(*run_both(run)):
        close(a, b, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("call", [
    lambda T: T.nn.functional.conv3d(T.ones(2, 3, 4, 4), T.ones(2, 3, 2, 2, 2)),
    lambda T: T.nn.functional.conv3d(T.ones(1, 3, 4, 4, 4), T.ones(2, 2, 2, 2, 2)),
    lambda T: T.nn.functional.conv3d(T.ones(1, 3, 2, 4, 4), T.ones(2, 3, 3, 2, 2)),
    lambda T: T.nn.functional.conv3d(T.ones(1, 3, 4, 4, 4), T.ones(2, 3, 2, 2, 2), stride=2, padding="same"),
    lambda T: T.nn.BatchNorm3d(3)(T.ones(2, 3, 4, 4)),
    lambda T: T.nn.functional.max_pool3d(T.ones(1, 4, 4), 2),
], ids=["4d-weight-on-4d-input", "channels", "kernel-deeper-than-input", "same-strided", "batchnorm-4d",
        "pool-3d-input"])
def test_3d_errors_are_torchs(call):
    both_raise(lambda: call(ag), lambda: call(torch))


@pytest.mark.parametrize("options", [{"kernel_size": 2}, {"kernel_size": (3, 2, 3), "stride": (2, 1, 2),
                                                          "padding": 1, "dilation": (1, 2, 1), "ceil_mode": True}],
                         ids=["k2", "strided-padded-dilated-ceil"])
def test_max_pool3d_indices_are_torchs(options):
    def run(T):
        x = _with_ties_and_nan(T).detach()
        values, where = T.nn.functional.max_pool3d(x, return_indices=True, **options)
        one_values, one_where = T.nn.MaxPool3d(return_indices=True, **options)(x[0])
        return [values, one_values], [where.numpy(), one_where.numpy()]
    (values, where), (their_values, their_where) = run_both(run)
    for a, b in zip(values, their_values):
        close(a, b)
    for a, b in zip(where, their_where):
        assert a.dtype == b.dtype and np.array_equal(a, b)


@pytest.mark.parametrize("options", [{"kernel_size": 2, "divisor_override": 3},
                                     {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True,
                                      "divisor_override": 5}], ids=["k2", "ceil-padded"])
def test_avg_pool3d_divisor_override_as_torchs(options):
    def run(T):
        x = T.tensor(X, requires_grad=True)
        y = T.nn.functional.avg_pool3d(x, **options)
        (y * y).sum().backward()
        return [y, x.grad]
    for a, b in zip(*run_both(run)):
        close(a, b, rtol=1e-12, atol=1e-12)
    both_raise(lambda: ag.nn.functional.avg_pool3d(ag.tensor(X), 2, divisor_override=0),
               lambda: torch.nn.functional.avg_pool3d(torch.tensor(X), 2, divisor_override=0))


@pytest.mark.parametrize("output_size", [1, (2, 3, 4), (None, 2, 5), (3, 4, 3)],
                         ids=["global", "smaller", "a-None", "uneven"])
def test_adaptive_3d_pools_as_torchs(output_size):
    def run(T):
        x = _with_ties_and_nan(T)
        avg = T.nn.functional.adaptive_avg_pool3d(x.nan_to_num(0.5), output_size)
        top, where = T.nn.functional.adaptive_max_pool3d(x, output_size, return_indices=True)
        (avg.exp().sum() + top.nan_to_num(0.0).sin().sum()).backward()
        layers = [T.nn.AdaptiveAvgPool3d(output_size), T.nn.AdaptiveMaxPool3d(output_size)]
        one = [layer(x.detach()[0].nan_to_num(0.5)) for layer in layers]
        return [avg, top, x.grad] + one, where.numpy(), [repr(layer) for layer in layers]
    (ours, where, text), (theirs, their_where, their_text) = run_both(run)
    assert text == their_text and np.array_equal(where, their_where)
    for a, b in zip(ours, theirs):
        close(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("options", [{"kernel_size": 2}, {"kernel_size": (2, 3, 2), "stride": (2, 2, 1),
                                                          "padding": (1, 1, 0)}], ids=["k2", "strided-padded"])
def test_max_unpool3d_puts_max_pool3ds_values_back_as_torch(options):
    def run(T):
        x = T.tensor(X, requires_grad=True)
        values, where = T.nn.functional.max_pool3d(x, return_indices=True, **options)
        back = T.nn.functional.max_unpool3d(values, where, output_size=X.shape[-3:], **options)
        sized = T.nn.MaxUnpool3d(**options)(values.detach(), where, output_size=X.shape)
        (back * back.exp()).sum().backward()
        return [back, sized, x.grad], repr(T.nn.MaxUnpool3d(**options))
    (ours, text), (theirs, their_text) = run_both(run)
    assert text == their_text
    for a, b in zip(ours, theirs):
        close(a, b, rtol=1e-12, atol=1e-12)
    both_raise(lambda: ag.nn.functional.max_unpool3d(ag.ones(1, 1, 2, 2, 2), ag.zeros(1, 1, 2, 2, 2).long(), 2,
                                                     output_size=(9, 9, 9)),
               lambda: torch.nn.functional.max_unpool3d(torch.ones(1, 1, 2, 2, 2),
                                                        torch.zeros(1, 1, 2, 2, 2).long(), 2, output_size=(9, 9, 9)))


@pytest.mark.parametrize("options", [
    {}, {"stride": 2, "padding": 1, "output_padding": 1}, {"stride": (1, 2, 3), "padding": (0, 1, 1),
                                                            "output_padding": (0, 1, 2), "dilation": (2, 1, 1)},
    {"groups": 2, "stride": 2, "dilation": 2, "output_padding": 1}, {"groups": 4, "bias": False}],
    ids=["plain", "strided-padded", "mixed", "groups-dilated", "depthwise-no-bias"])
def test_conv_transpose3d_as_torchs_first_and_second_order(options):
    options = dict(options)
    groups, with_bias = options.get("groups", 1), options.pop("bias", True)
    rng = np.random.default_rng(3)
    w, b = rng.standard_normal((4, 6 // groups if groups != 4 else 1, 2, 3, 2)), rng.standard_normal(
        6 if groups != 4 else 4)

    def run(T):
        x, W = T.tensor(X, requires_grad=True), T.tensor(w, requires_grad=True)
        B = T.tensor(b, requires_grad=True) if with_bias else None
        y = T.nn.functional.conv_transpose3d(x, W, B, **options)
        (gx,) = T.autograd.grad((y * y).sum(), x, create_graph=True)
        (gx.sin().sum() + (y ** 3).mean()).backward()
        return [y, x.grad, W.grad] + ([B.grad] if with_bias else [])
    for ours, theirs in zip(*run_both(run)):
        close(ours, theirs, rtol=1e-10, atol=1e-10)


def test_conv_transpose3d_layers_and_output_size_as_torchs():
    def run(T):
        T.manual_seed(0)
        layer = T.nn.ConvTranspose3d(4, 3, (2, 3, 3), stride=(1, 2, 2), padding=1).double()
        with T.no_grad():
            layer.weight.copy_(T.tensor(np.random.default_rng(4).standard_normal(tuple(layer.weight.shape))))
            layer.bias.copy_(T.tensor([0.1, -0.2, 0.3]))
        y = layer(T.tensor(X), output_size=(4, 12, 14))
        unbatched = layer(T.tensor(X[0]))
        (y ** 2).sum().backward()
        lazy = T.nn.LazyConvTranspose3d(2, 3, dtype=T.float64)
        lazy(T.tensor(X))
        return repr(layer), [y, unbatched, layer.weight.grad, layer.bias.grad], type(lazy).__name__, \
            tuple(lazy.weight.shape)
    (text, got, lazy_name, lazy_shape), (t_text, t_got, t_lazy_name, t_lazy_shape) = run_both(run)
    assert text == t_text and (lazy_name, lazy_shape) == (t_lazy_name, t_lazy_shape) == ("ConvTranspose3d",
                                                                                       (4, 2, 3, 3, 3))
    for ours, theirs in zip(got, t_got):
        close(ours, theirs, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("call", [
    lambda T: T.nn.functional.conv_transpose3d(T.ones(1, 3, 4, 4, 4), T.ones(2, 2, 2, 2, 2)),
    lambda T: T.nn.functional.conv_transpose3d(T.ones(1, 2, 4, 4, 4), T.ones(2, 2, 2, 2, 2), stride=2,
                                               output_padding=2),
    lambda T: T.nn.functional.conv_transpose3d(T.ones(1, 2, 2, 2, 2), T.ones(2, 2, 1, 1, 1), padding=2),
    lambda T: T.nn.functional.conv_transpose3d(T.ones(2, 4, 4, 4), T.ones(2, 2, 2, 2)),
    lambda T: T.nn.ConvTranspose3d(2, 2, 2, padding_mode="reflect"),
], ids=["channels", "output-padding-too-big", "too-small", "4d-weight", "padding-mode"])
def test_conv_transpose3d_errors_are_torchs(call):
    both_raise(lambda: call(ag), lambda: call(torch))
