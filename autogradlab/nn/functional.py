"""Layers and losses as plain functions (``import autogradlab.nn.functional as F``).

Each one is a few differentiable ops, so its gradient comes from the engine;
the docstrings give the math. The losses live in :mod:`autogradlab.nn.losses`
and the convolutions in :mod:`autogradlab.nn.convolution`; both are here too.
"""
from __future__ import annotations

import math
import numbers
import warnings

import numpy

from .. import backend, creation
from ..grad_mode import no_grad
from ..ops import elementwise as E
from ..ops import reduce as R
from ..ops import shape as S
from ..ops.inplace import in_place
from ..ops.registry import apply, defop
from ..tensor import Tensor
from .convolution import (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d, adaptive_max_pool1d,
                          adaptive_max_pool2d, adaptive_max_pool3d, avg_pool1d, avg_pool2d, avg_pool3d, conv1d,
                          conv2d, conv3d, conv_transpose1d, conv_transpose2d, conv_transpose3d, max_pool1d, max_pool2d,
                          max_pool3d,
                          max_unpool1d, max_unpool2d, max_unpool3d, pad)
from .convolution import fold, unfold
from .losses import (binary_cross_entropy, binary_cross_entropy_with_logits, cross_entropy, huber_loss, l1_loss,
                     logsigmoid, mse_loss, nll_loss, smooth_l1_loss)
from .distance import check_float as _check_float
from .distance import cosine_similarity, normalize, pairwise_distance, pdist
from .losses import cosine_embedding_loss, hinge_embedding_loss, kl_div, margin_ranking_loss, triplet_margin_loss
from .losses import (ctc_loss, gaussian_nll_loss, multi_margin_loss, multilabel_soft_margin_loss, poisson_nll_loss,
                     soft_margin_loss)
from .sampling import interpolate, pixel_shuffle, pixel_unshuffle

__all__ = ["normalize", "cosine_similarity", "pairwise_distance", "kl_div", "margin_ranking_loss",
           "hinge_embedding_loss", "cosine_embedding_loss", "triplet_margin_loss",
           "linear", "relu", "tanh", "sigmoid", "softmax", "log_softmax", "leaky_relu", "elu", "silu", "softplus",
           "gelu", "mse_loss", "l1_loss", "huber_loss", "smooth_l1_loss", "cross_entropy", "nll_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "one_hot", "embedding", "layer_norm",
           "batch_norm", "pad", "conv1d", "conv2d", "conv3d", "max_pool3d", "avg_pool3d", "adaptive_avg_pool3d",
           "adaptive_max_pool3d", "max_unpool3d", "conv_transpose1d",
           "conv_transpose2d", "conv_transpose3d", "max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d",
           "scaled_dot_product_attention", "hardtanh", "relu6", "hardsigmoid", "hardswish", "softsign", "logsigmoid",
           "mish", "selu", "celu", "tanhshrink", "hardshrink", "softshrink", "threshold", "prelu", "glu",
           "dropout2d", "softmin", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "group_norm",
           "instance_norm", "bilinear", "adaptive_max_pool1d", "adaptive_max_pool2d",
           "interpolate", "pixel_shuffle", "pixel_unshuffle", "max_unpool1d", "max_unpool2d", "poisson_nll_loss",
           "gaussian_nll_loss", "soft_margin_loss", "multilabel_soft_margin_loss", "multi_margin_loss", "ctc_loss",
           "pdist",
           "gumbel_softmax", "upsample", "fold", "unfold"]


def linear(input, weight, bias=None):
    """y = x @ W^T + b, with W of shape (out_features, in_features)."""
    if input.ndim == 0:
        raise RuntimeError(f"linear: the input is a 0-d tensor (a single number); it needs at least one dim of "
                           f"{weight.shape[-1]} features: x.reshape(1) for one feature, or x.reshape(1, -1) for a batch "
                           f"of one")
    if input.shape[-1] != weight.shape[-1]:
        raise RuntimeError(f"linear: input has {input.shape[-1]} features (shape {tuple(input.shape)}) but "
                           f"the weight expects {weight.shape[-1]} (weight shape {tuple(weight.shape)}, "
                           f"i.e. (out_features, in_features))")
    out = input @ weight.T
    return out if bias is None else out + bias


def relu(input, inplace=False):
    """max(x, 0)."""
    if _in_place(inplace):
        return in_place("relu_", relu)(input)
    return E.relu(input)


def tanh(input):
    """(e^x - e^-x) / (e^x + e^-x)."""
    return E.tanh(input)


def sigmoid(input):
    """1 / (1 + e^-x)."""
    return E.sigmoid(input)


def _leaky_relu_grad(xp, g, x, negative_slope):
    return xp.where(x > 0, g, g * negative_slope)   # (a select: an infinite g stays on its side)


def leaky_relu_backward(g, x, negative_slope):
    """leaky_relu's VJP as an op of its own (PyTorch's leaky_relu_backward): recorded, it depends on x with
    derivative 0, so the gradient of a gradient is zeros, not an error."""
    return apply(LEAKY_RELU_BACKWARD, (g, x), {"negative_slope": negative_slope})


LEAKY_RELU = defop("leaky_relu", ("self",), save=("self",), math="x where x > 0, else s*x;  dx = g, or g*s",
                   forward=lambda xp, x, negative_slope: xp.where(x > 0, x, x * negative_slope),
                   vjp=lambda g, ctx: (leaky_relu_backward(g, ctx.self, ctx.negative_slope),),
                   formulas=("1 or negative_slope",))

LEAKY_RELU_BACKWARD = defop(
    "leaky_relu_backward", ("grad", "self"), save=("self",), save_if={"self": 0},
    math="g where x > 0, else g*s;  dg = gg where x > 0, else gg*s, dx = 0", forward=_leaky_relu_grad,
    vjp=lambda gg, ctx: (leaky_relu_backward(gg, ctx.self, ctx.negative_slope) if ctx.needs_input_grad[0]
                         else None, E.zeros_gradient(gg) if ctx.needs_input_grad[1] else None),
    formulas=("1 or negative_slope", "0"))


def _in_place(inplace):
    """Whether ``inplace=True`` asks for PyTorch's memory saving: then the activation is written into its input,
    as ``x.relu_()`` (with an in-place op's checks: not on a leaf that requires grad)."""
    if not isinstance(inplace, bool):
        raise TypeError(f"inplace must be True or False, got {inplace!r}")
    return inplace


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x where x > 0, else negative_slope*x; d/dx = 1, or negative_slope (also at 0, as in PyTorch)."""
    if _in_place(inplace):
        return in_place("leaky_relu_", leaky_relu)(input, negative_slope=negative_slope)
    _check_float(input, "input", "leaky_relu", NotImplementedError)
    return apply(LEAKY_RELU, (input,), {"negative_slope": negative_slope})


def _half_in_float32(fn, input, *args):
    """``fn(input, *args)`` computed in float32 for a float16 input and rounded back once, as PyTorch computes
    half-precision activations (rounding after each of their several ops loses digits, e^11 overflows float16)."""
    return fn(input.to(numpy.float32), *args).to(numpy.float16)


def elu(input, alpha=1.0, inplace=False):
    """x where x > 0, else alpha*(e^x - 1); d/dx = 1, or alpha*e^x (also at 0, as in PyTorch)."""
    if _in_place(inplace):
        return in_place("elu_", elu)(input, alpha=alpha)
    _check_float(input, "input", "elu", NotImplementedError)
    if input.dtype == numpy.float16:
        return _half_in_float32(elu, input, alpha)
    # (the exponential sees x only where x <= 0, else 0: for a large x, or a NaN, which goes the way of x as in
    # PyTorch, the branch not taken stays finite, so its gradient is 0; e^x - 1, not expm1, whose VJP g*(y + 1)
    # cancels far left)
    return E.where(input <= 0, (E.exp(E.where(input <= 0, input, 0.0)) - 1) * alpha, input)


def silu(input, inplace=False):
    """x*sigmoid(x) (also called swish); d/dx = s*(1 + x*(1 - s))."""
    if _in_place(inplace):
        return in_place("silu_", silu)(input)
    _check_float(input, "input", "silu", NotImplementedError)
    if input.dtype == numpy.float16:
        return _half_in_float32(silu, input)
    return input * E.sigmoid(input)


def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + e^(beta*x))/beta, a smooth relu; x itself where beta*x > threshold (they agree there to float
    precision); d/dx = sigmoid(beta*x)."""
    _check_float(input, "input", "softplus", NotImplementedError)
    if input.dtype == numpy.float16:
        return _half_in_float32(softplus, input, beta, threshold)
    z = input * beta
    # (e^min(z, threshold): the branch not taken never overflows, so its gradient is 0, not NaN; a select, not
    # clamp, so that a NaN passes its gradient on, as in PyTorch)
    return E.where(z > threshold, input, E.log1p(E.exp(E.where(z > threshold, threshold, z))) / beta)


def _hardtanh_forward(xp, x, min_val, max_val):
    # (a NaN fails both tests and stays NaN, as in PyTorch)
    return xp.where(x <= min_val, xp.asarray(min_val, x.dtype), xp.where(x >= max_val, xp.asarray(max_val, x.dtype), x))


def _hardtanh_grad(xp, g, x, min_val, max_val):
    return xp.where((x <= min_val) | (x >= max_val), xp.zeros_like(g), g)   # (NaN: passes g on)


def hardtanh_backward(g, x, min_val, max_val):
    """hardtanh's VJP as an op of its own (PyTorch's hardtanh_backward): recorded, it depends on x with
    derivative 0, so the gradient of a gradient is zeros, not an error."""
    return apply(HARDTANH_BACKWARD, (g, x), {"min_val": min_val, "max_val": max_val})


HARDTANH = defop("hardtanh", ("self",), save=("self",), math="x clipped to [lo, hi];  dx = g strictly inside, else 0",
                 forward=_hardtanh_forward,
                 vjp=lambda g, ctx: (hardtanh_backward(g, ctx.self, ctx.min_val, ctx.max_val),),
                 formulas=("1 strictly inside, else 0",))

HARDTANH_BACKWARD = defop(
    "hardtanh_backward", ("grad", "self"), save=("self",), save_if={"self": 0},
    math="g strictly inside [lo, hi], else 0;  dg = gg there, else 0, dx = 0", forward=_hardtanh_grad,
    vjp=lambda gg, ctx: (hardtanh_backward(gg, ctx.self, ctx.min_val, ctx.max_val) if ctx.needs_input_grad[0]
                         else None, E.zeros_gradient(gg) if ctx.needs_input_grad[1] else None),
    formulas=("1 strictly inside, else 0", "0"))


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """x clipped to [min_val, max_val]; d/dx = 1 strictly inside, 0 at the bounds and outside (PyTorch's).
    (A NaN stays NaN and passes its gradient on, as in PyTorch.)"""
    if _in_place(inplace):
        return in_place("hardtanh_", hardtanh)(input, min_val=min_val, max_val=max_val)
    if min_val > max_val:
        raise ValueError(f"min_val cannot be greater than max_val (got min_val={min_val}, max_val={max_val})")
    if input.dtype == numpy.bool_:
        raise RuntimeError("Bool inputs not supported for hardtanh: convert them first, e.g. x.float()")
    if input.dtype.kind != "f":   # (integers: clipped, their dtype kept; nothing to differentiate)
        return E.clamp(input, int(math.ceil(min_val)), int(math.floor(max_val)))
    return apply(HARDTANH, (input,), {"min_val": float(min_val), "max_val": float(max_val)})


def relu6(input, inplace=False):
    """min(max(x, 0), 6): :func:`hardtanh` on [0, 6]."""
    return hardtanh(input, 0.0, 6.0, inplace)


def hardsigmoid(input, inplace=False):
    """0 for x <= -3, 1 for x >= 3, x/6 + 1/2 between; d/dx = 1/6 strictly between, else 0."""
    if _in_place(inplace):
        return in_place("hardsigmoid_", hardsigmoid)(input)
    _check_float(input, "input", "hardsigmoid", NotImplementedError)
    if input.dtype == numpy.float16:
        return _half_in_float32(hardsigmoid, input)
    # ((x + 3)/6, not x/6 + 1/2, which cancels near -3; a NaN: NaN with gradient 0, as PyTorch's, through a branch
    # detached from the graph)
    inside = (input > -3.0) & (input < 3.0)
    return E.where(inside, (input + 3.0) / 6.0, E.where(input <= -3.0, 0.0, E.where(input >= 3.0, 1.0,
                                                                                   input.detach())))


def hardswish(input, inplace=False):
    """x * relu6(x + 3) / 6: 0 for x <= -3, x for x >= 3, x(x + 3)/6 between; d/dx = (2x + 3)/6 strictly
    between, else 0 or 1 (PyTorch's slopes at -3 and 3)."""
    if _in_place(inplace):
        return in_place("hardswish_", hardswish)(input)
    _check_float(input, "input", "hardswish", NotImplementedError)
    # (a NaN takes the last branch: NaN, passing its gradient on, as in PyTorch; the middle branch sees x only
    # where it is taken, so the others send it no NaN back)
    middle = E.where((input > -3.0) & (input < 3.0), input, 0.0)
    return E.where(input <= -3.0, 0.0, E.where(input < 3.0, middle * (middle + 3.0) / 6.0, input))


def softsign(input):
    """x / (1 + |x|); d/dx = 1 / (1 + |x|)^2."""
    return input / (E.abs(input) + 1)


def mish(input, inplace=False):
    """x * tanh(softplus(x)) (Misra, 2019)."""
    if _in_place(inplace):
        return in_place("mish_", mish)(input)
    _check_float(input, "input", "mish", NotImplementedError)
    if input.dtype == numpy.float16:
        return _half_in_float32(mish, input)
    return input * E.tanh(softplus(input))


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def selu(input, inplace=False):
    """scale * elu(x, alpha) with PyTorch's (Klambauer et al.'s) alpha = 1.6733 and scale = 1.0507, which keep
    a layer's activations at mean 0 and variance 1."""
    if _in_place(inplace):
        return in_place("selu_", selu)(input)
    return elu(input, _SELU_ALPHA) * _SELU_SCALE


def celu(input, alpha=1.0, inplace=False):
    """x where x > 0, else alpha*(e^(x/alpha) - 1): elu whose slope at 0 is 1 from both sides."""
    if _in_place(inplace):
        return in_place("celu_", celu)(input, alpha=alpha)
    _check_float(input, "input", "celu", NotImplementedError)
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    if input.dtype == numpy.float16:
        return _half_in_float32(celu, input, alpha)
    return E.where(input <= 0, (E.exp(E.where(input <= 0, input, 0.0) / alpha) - 1) * alpha, input)


def tanhshrink(input):
    """x - tanh(x)."""
    if input.dtype == numpy.float16:
        return _half_in_float32(tanhshrink, input)
    return input - E.tanh(input)


def _scalar_of(value, dtype, what, name):
    """``value`` as a number of ``dtype`` (an integer dtype truncates it toward 0, as PyTorch does); a
    RuntimeError where it does not fit, as PyTorch's."""
    info = numpy.finfo(dtype) if dtype.kind == "f" else numpy.iinfo(dtype)
    finite = math.isfinite(value)
    if finite and not info.min <= value <= info.max or not finite and dtype.kind != "f":
        raise RuntimeError(f"{name}: {what}={value} cannot be converted to the input's dtype {dtype.name} "
                           f"without overflow (its range is [{info.min}, {info.max}])")
    return float(value) if dtype.kind == "f" else int(value)


def _dead_zone_grad(xp, g, x, lo, hi):
    return xp.where((x >= lo) & (x <= hi), xp.zeros_like(g), g)   # (a NaN is outside: passes g on)


def dead_zone_backward(g, x, lo, hi):
    """The VJP of hardshrink, softshrink (zone [-lambd, lambd]) and threshold (zone [-inf, threshold]) as an op
    of its own (PyTorch's hardshrink_backward, softshrink_backward, threshold_backward): g where x is outside
    [lo, hi], else 0. Recorded, it depends on x with derivative 0, so the gradient of a gradient is zeros."""
    return apply(DEAD_ZONE_BACKWARD, (g, x), {"lo": lo, "hi": hi})


DEAD_ZONE_BACKWARD = defop(
    "dead_zone_backward", ("grad", "self"), save=("self",), save_if={"self": 0},
    math="g outside [lo, hi], else 0;  dg = gg outside, else 0, dx = 0", forward=_dead_zone_grad,
    vjp=lambda gg, ctx: (dead_zone_backward(gg, ctx.self, ctx.lo, ctx.hi) if ctx.needs_input_grad[0] else None,
                         E.zeros_gradient(gg) if ctx.needs_input_grad[1] else None),
    formulas=("0 on [lo, hi], else 1", "0"))


def _softshrink_forward(xp, x, lambd):
    if x.dtype == numpy.float16:   # (in float32, rounded once, as PyTorch; its gradient's mask stays in float16)
        return _softshrink_forward(xp, x.astype(numpy.float32), lambd).astype(numpy.float16)
    # (a NaN fails every test and stays NaN)
    return xp.where((x >= -lambd) & (x <= lambd), xp.zeros_like(x), xp.where(x > 0, x - lambd, x + lambd))


HARDSHRINK = defop("hardshrink", ("self",), save=("self",), math="0 on [-l, l], else x;  dx = g outside, else 0",
                   forward=lambda xp, x, lambd: xp.where((x >= -lambd) & (x <= lambd), xp.zeros_like(x), x),
                   vjp=lambda g, ctx: (dead_zone_backward(g, ctx.self, -ctx.lambd, ctx.lambd),),
                   formulas=("0 on [-lambd, lambd], else 1",))

SOFTSHRINK = defop("softshrink", ("self",), save=("self",),
                   math="0 on [-l, l], else x - l*sign(x);  dx = g outside, else 0", forward=_softshrink_forward,
                   vjp=lambda g, ctx: (dead_zone_backward(g, ctx.self, -ctx.lambd, ctx.lambd),),
                   formulas=("0 on [-lambd, lambd], else 1",))

THRESHOLD = defop("threshold", ("self",), save=("self",), math="x where x > t, else v;  dx = g where x > t, else 0",
                  forward=lambda xp, x, threshold, value: xp.where(x <= threshold, xp.asarray(value, x.dtype), x),
                  vjp=lambda g, ctx: (dead_zone_backward(g, ctx.self, -math.inf, ctx.threshold),),
                  formulas=("1 where x > threshold, else 0",))


def hardshrink(input, lambd=0.5):
    """0 where -lambd <= x <= lambd, else x; d/dx = 0 there (at +-lambd too, as in PyTorch), else 1.
    (``lambd`` is taken in the input's dtype; a NaN stays NaN and passes its gradient on, as in PyTorch.)"""
    _check_float(input, "input", "hardshrink", NotImplementedError)   # (no integer kernel, as in PyTorch)
    return apply(HARDSHRINK, (input,), {"lambd": _scalar_of(lambd, input.dtype, "lambd", "hardshrink")})


def softshrink(input, lambd=0.5):
    """x - lambd where x > lambd, x + lambd where x < -lambd, else 0; d/dx = 1 outside [-lambd, lambd], 0 on
    it. (A NaN stays NaN, gradient 1.)"""
    _check_float(input, "input", "softshrink", NotImplementedError)   # (no integer kernel, as in PyTorch)
    top = float(numpy.finfo(input.dtype).max)
    if not 0 <= lambd <= top:   # (a NaN fails too)
        raise RuntimeError(f"softshrink: lambd must be in [0, {top:g}] for dtype {input.dtype.name}, got {lambd}")
    return apply(SOFTSHRINK, (input,), {"lambd": float(lambd)})


def threshold(input, threshold, value, inplace=False):
    """x where x > threshold, else value; d/dx = 1 where x > threshold, else 0 (at the threshold too).
    (A NaN stays NaN and passes its gradient on; an integer input takes both numbers truncated, as in PyTorch.)"""
    if _in_place(inplace):   # (``threshold`` here is the number: the function is _threshold_function)
        return in_place("threshold_", _threshold_function)(input, threshold=threshold, value=value)
    if input.dtype == numpy.bool_:
        raise NotImplementedError("threshold is not implemented for bool tensors (as in PyTorch); convert the "
                                  "input first, e.g. x.float()")
    value = _scalar_of(value, input.dtype, "value", "threshold")
    if input.dtype == numpy.float16:   # (compared in float32, as PyTorch does: 0.3 is not rounded to float16)
        return _half_in_float32(_threshold, input, float(threshold), value)
    return _threshold(input, _scalar_of(threshold, input.dtype, "threshold", "threshold"), value)


_threshold_function = threshold


def _threshold(input, threshold, value):
    return apply(THRESHOLD, (input,), {"threshold": threshold, "value": value})


def _where_not_positive(x, value):
    # (x >= 0, not x > 0: the same values where x is 0, as value is then x*g = 0, and PyTorch's second
    # derivatives, which take 0 as positive; the engine sums the result to the weight's shape)
    return E.where(x >= 0, 0.0, value)


def prelu_backward(g, x, weight):
    """prelu's VJP for x as an op of its own: g where x > 0, else w*g. Recorded, it depends on x with
    derivative 0 (and on w with derivative g where x <= 0), as PyTorch's."""
    return apply(PRELU_BACKWARD, (g, x, weight), {})


PRELU = defop("prelu", ("self", "weight"), save=("self", "weight"), save_if={"weight": 0},
              math="x where x > 0, else w*x;  dx = g, or w*g;  dw = 0, or x*g",
              forward=lambda xp, x, weight: xp.where(x > 0, x, weight * x),
              vjp=lambda g, ctx: (prelu_backward(g, ctx.self, ctx.weight) if ctx.needs_input_grad[0] else None,
                                  _where_not_positive(ctx.self, ctx.self * g) if ctx.needs_input_grad[1] else None),
              formulas=("1 or w", "0 or x"))

PRELU_BACKWARD = defop(   # (its own derivatives take x = 0 as positive, as PyTorch's do)
    "prelu_backward", ("grad", "self", "weight"), save=("grad", "self", "weight"), save_if={"grad": 2, "weight": 0},
    math="g where x > 0, else w*g;  dg = gg where x >= 0, else w*gg;  dx = 0;  dw = 0 where x >= 0, else g*gg",
    forward=lambda xp, g, x, weight: xp.where(x > 0, g, weight * g),
    vjp=lambda gg, ctx: (E.where(ctx.self >= 0, gg, ctx.weight * gg) if ctx.needs_input_grad[0] else None,
                         E.zeros_gradient(gg) if ctx.needs_input_grad[1] else None,
                         _where_not_positive(ctx.self, ctx.grad * gg) if ctx.needs_input_grad[2] else None),
    formulas=("1 or w", "0", "0 or g"))


def prelu(input, weight):
    """x where x > 0, else w*x, with one slope w for all or one per channel (dim 1, of size C = weight.numel());
    d/dx = 1, or w (also at 0, as in PyTorch); d/dw = the sum of g*x over the x <= 0 it scales."""
    _check_float(input, "input", "prelu", NotImplementedError)   # (no integer kernel, as in PyTorch)
    if weight.dtype != input.dtype:
        raise RuntimeError(f"prelu: the weight's dtype ({weight.dtype.name}) must be the input's "
                           f"({input.dtype.name}): no type promotion here, as in PyTorch; convert one of them")
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: the weight must be a scalar or 1-D tensor (one slope, or one per channel), "
                           f"got shape {tuple(weight.shape)}")
    if input.dtype == numpy.float16:   # (x*w is exact in float32: one rounding, and the weight's sum in float32)
        return prelu(input.to(numpy.float32), weight.to(numpy.float32)).to(numpy.float16)
    n = weight.numel()
    if n == 1:
        weight = weight.reshape(())
    else:
        if input.ndim == 0:
            raise RuntimeError(f"prelu: a 0-dim input takes a weight of one element, got {n}")
        channels = input.shape[1] if input.ndim > 1 else 1
        if n != channels:
            raise RuntimeError(f"prelu: the weight has {n} slopes but the input (shape {tuple(input.shape)}) has "
                               f"{channels} channels in dim 1: give one slope, or one per channel")
        weight = weight.reshape((n,) + (1,) * (input.ndim - 2))   # (C, 1, ..., 1): broadcasts along dim 1
    return apply(PRELU, (input, weight), {})


def glu(input, dim=-1):
    """a * sigmoid(b), with a and b the first and second halves of ``input`` along ``dim`` (the gated linear
    unit, Dauphin et al. 2017); d/da = sigmoid(b), d/db = a*sigmoid(b)*(1 - sigmoid(b))."""
    if input.ndim == 0:
        raise RuntimeError("glu: a 0-dim tensor cannot be halved; give a tensor whose dim has an even size")
    _check_float(input, "input", "glu", NotImplementedError)   # (no integer kernel, as in PyTorch)
    d = R.normalize_dims(dim, input.ndim, "glu")[0]
    if input.shape[d] % 2:
        raise RuntimeError(f"glu: the halved dim must have an even size, but dim {d} of shape "
                           f"{tuple(input.shape)} has size {input.shape[d]}")
    if input.dtype == numpy.float16:
        return _half_in_float32(glu, input, d)
    a, b = S.chunk(input, 2, d)
    return a * E.sigmoid(b)


def _implicit_dim(name, ndim):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                  f"as an argument.", UserWarning, stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-x) along ``dim``: the smallest gets the most weight (``dtype``: computed in that dtype)."""
    if dtype is not None:
        input = input.to(dtype)
    return R.softmax(-input, _implicit_dim("softmin", input.ndim) if dim is None else dim)


_GELU_APPROXIMATIONS = ("none", "tanh")


def gelu(input, *, approximate="none"):
    """x*Phi(x), Phi the standard normal CDF: x/2*(1 + erf(x/sqrt(2))); d/dx = Phi(x) + x*phi(x).
    ``approximate="tanh"``: x/2*(1 + tanh(sqrt(2/pi)*(x + 0.044715*x^3))), as PyTorch computes them."""
    _check_float(input, "input", "gelu", NotImplementedError)
    if approximate not in _GELU_APPROXIMATIONS:
        raise RuntimeError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    if input.dtype == numpy.float16:
        return gelu(input.to(numpy.float32), approximate=approximate).to(numpy.float16)
    if approximate == "tanh":   # sqrt(2/pi) = 0.7978845608028654
        inner = (input + input * input * input * 0.044715) * 0.7978845608028654
        return input * 0.5 * (E.tanh(inner) + 1.0)
    return input * 0.5 * (E.erf(input * 0.7071067811865476) + 1.0)   # 1/sqrt(2)


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """e^x_i / sum_j e^x_j along ``dim`` (in ``dtype`` if given: the input is cast first). Without ``dim``,
    PyTorch's old rule picks one, with its warning."""
    return R.softmax(input, _implicit_dim("softmax", input.ndim) if dim is None else dim, dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """x_i - log sum_j e^x_j along ``dim`` (stable; in ``dtype`` if given; without ``dim`` as softmax)."""
    return R.log_softmax(input, _implicit_dim("log_softmax", input.ndim) if dim is None else dim, dtype)


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """A differentiable sample of a category: softmax((logits + g) / tau) with Gumbel noise g = -log E, E
    exponential (Jang et al., 2016). ``hard=True`` returns the one-hot of the sample whose gradient is the soft
    sample's (the straight-through estimator: y_hard - y_soft.detach() + y_soft). The noise comes from the
    library generator. (``eps`` is unused, as in PyTorch.)"""
    _check_float(logits, "logits", "gumbel_softmax", RuntimeError)
    noise = creation.generator(None).exponential(size=logits.shape)
    gumbels = -E.log(Tensor._make(backend.asarray(noise, logits.device, logits.dtype), False, None, logits.device))
    y_soft = R.softmax((logits + gumbels) / tau, dim)
    if not hard:
        return y_soft
    index = y_soft.argmax(dim, keepdim=True)
    y_hard = creation.zeros_like(y_soft.detach()).scatter(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """PyTorch's deprecated name for :func:`interpolate` (it warns, as PyTorch does)."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
                  UserWarning, stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` and scale the rest by ``1/(1-p)`` (only when training).
    d/dinput = mask/(1-p). The mask comes from the generator seeded by ``autogradlab.manual_seed``.
    ``inplace=True`` writes the result into ``input`` (an in-place op, recorded as ``mul_``) and returns it."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0 or inplace and input.numel() == 0:
        return input
    if p == 1.0:
        return _all_dropped(input, inplace)
    _check_scalable("dropout", input)
    keep = creation.generator().random(tuple(input.shape)) >= p
    mask = Tensor._make(backend.asarray(keep.astype(input.dtype) / (1.0 - p), input.device), False, None,
                        input.device)
    return input.mul_(mask) if inplace else input * mask


def _all_dropped(input, inplace):
    """Dropout with p = 1: zeros of the input's dtype (a float input times 0.0, so its NaN stays NaN, as torch)."""
    if input.dtype.kind in "fc":
        return input.mul_(0.0) if inplace else input * 0.0
    return input.zero_() if inplace else creation.zeros_like(input)


def _check_scalable(name, input):
    """Dropout scales what it keeps by 1/(1-p): an integer or bool tensor cannot hold that (PyTorch's error)."""
    if input.dtype.kind not in "fc":
        raise RuntimeError(f"{name}: result type Float can't be cast to the desired output type "
                           f"{input.dtype.name}: dropout needs a float tensor (x.float())")


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels, each ``input[n, c]`` with probability ``p``, and scale the rest by ``1/(1-p)`` (only
    when training): the mask has shape (N, C, 1, ..., 1); d/dinput = mask. As PyTorch, a 3-D input is read as
    (N, C, L), with a warning; other ranks than 3 and 4 warn too."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (3, 4):
        warnings.warn(f"dropout2d: Received a {input.ndim}-D input to dropout2d, which is deprecated and will "
                      "result in an error in a future release. To retain the behavior and silence this warning, "
                      "please use dropout instead. Note that dropout2d exists to provide channel-wise dropout on "
                      "inputs with 2 spatial dimensions, a channel dimension, and an optional batch dimension "
                      "(i.e. 3D or 4D inputs).", UserWarning, stacklevel=2)
    if input.ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                      "This behavior will change in a future release to interpret the input as one without a "
                      "batch dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, "
                      "please switch to using dropout1d instead.", UserWarning, stacklevel=2)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        return _all_dropped(input, inplace)
    _check_scalable("dropout2d", input)
    if input.ndim < 2:
        raise RuntimeError(f"Feature dropout requires at least 2 dimensions in the input (N, C, ...), got shape "
                           f"{tuple(input.shape)}; use dropout for elementwise dropout")
    n, c = input.shape[:2]
    keep = creation.generator().random((n, c) + (1,) * (input.ndim - 2)) >= p
    scale = (keep / (1.0 - p)).astype(input.dtype)   # (1/(1-p) rounded once to the input's dtype, as PyTorch)
    mask = Tensor._make(backend.asarray(scale, input.device), False, None, input.device)
    return input.mul_(mask) if inplace else input * mask


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """softmax(q k^T * scale + mask) v over the last two dims: query (..., L, E), key (..., S, E), value (..., S, Ev);
    scale = 1/sqrt(E) unless given. ``is_causal``: query i sees the keys j <= i; a bool ``attn_mask`` keeps the
    scores where it is True, a float one is added to them. A query that sees no key gets zeros (and no gradient),
    as in PyTorch. ``dropout_p`` drops attention weights whenever it is not 0 (pass 0.0 when evaluating).
    float16 is computed in float32 and rounded once, as PyTorch does on the CPU."""
    name = "scaled_dot_product_attention"
    for what, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}: {what} must be a Tensor, got {type(t).__name__}")
        if t.dtype.kind != "f" or t.dtype != query.dtype:
            raise RuntimeError(f"{name}: query, key and value must be floating point of one dtype, got "
                               f"{query.dtype.name}, {key.dtype.name} and {value.dtype.name}")
        if t.ndim < 2:
            raise RuntimeError(f"{name}: {what} must be at least 2 dimensional, (..., L or S, E), got shape "
                               f"{tuple(t.shape)}")
    if enable_gqa:
        raise NotImplementedError(f"{name}: enable_gqa is not available here; repeat the key and value heads first")
    if is_causal and attn_mask is not None:
        raise RuntimeError(f"{name}: give attn_mask or is_causal=True, not both (for a causal mask combined with "
                           f"yours: attn_mask=yours & autogradlab.tril(ones(L, S, dtype=bool)))")
    if not 0.0 <= dropout_p <= 1.0:
        raise RuntimeError(f"{name}: dropout_p must be between 0 and 1, got {dropout_p}")
    n_query, n_key = query.shape[-2], key.shape[-2]
    try:
        batch = numpy.broadcast_shapes(query.shape[:-2], key.shape[:-2], value.shape[:-2])
    except ValueError:
        batch = None
    if batch is None or query.shape[-1] != key.shape[-1] or n_key != value.shape[-2]:
        raise RuntimeError(f"{name}: query {tuple(query.shape)}, key {tuple(key.shape)} and value "
                           f"{tuple(value.shape)} do not fit: query and key need the same last dim (E), key and "
                           f"value the same number of keys (S), and the leading dims must broadcast")
    scores_shape = tuple(batch) + (n_query, n_key)
    if attn_mask is not None:
        if attn_mask.dtype != numpy.bool_ and attn_mask.dtype not in (query.dtype, numpy.float32):
            raise RuntimeError(f"{name}: Expected attn_mask dtype to be bool or float or to match query dtype, got "
                               f"{attn_mask.dtype.name}; a 0/1 mask of integers should be .bool()")
        try:
            fits = numpy.broadcast_shapes(tuple(attn_mask.shape), scores_shape) == scores_shape
        except ValueError:
            fits = False
        if not fits:
            raise RuntimeError(f"{name}: attn_mask of shape {tuple(attn_mask.shape)} does not broadcast to the scores' "
                               f"shape {scores_shape} (..., L, S)")
    if query.dtype == numpy.float16:
        def wide(t):
            return None if t is None else t if t.dtype == numpy.bool_ else t.to(numpy.float32)
        out = scaled_dot_product_attention(wide(query), wide(key), wide(value), wide(attn_mask), dropout_p,
                                           is_causal, scale)
        return out.to(numpy.float16)
    if scale is None:
        scale = 1.0 / math.sqrt(query.shape[-1]) if query.shape[-1] else 1.0   # (E = 0: every score is 0)
    scores = query @ key.transpose(-2, -1) * scale
    keep = None
    if is_causal:
        keep = S.tril(creation.ones(n_query, n_key, dtype="bool", device=query.device))
    elif attn_mask is not None and attn_mask.dtype == numpy.bool_:
        keep = attn_mask
    elif attn_mask is not None:
        scores = scores + attn_mask.to(query.dtype)
    if keep is not None:
        scores = E.masked_fill(scores, ~keep, -math.inf)
    # a row of -inf (a query that sees nothing): its weights are zeros, not softmax's 0/0, and it sends nothing back
    dead = R.all(scores == -math.inf, -1, keepdim=True)
    weights = E.where(dead, 0.0, R.softmax(E.where(dead, 0.0, scores), -1))
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    return weights @ value


# -- normalisation -------------------------------------------------------------------------------


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """(x - mean) / sqrt(var + eps) * weight + bias, with the mean and the biased variance taken over the last
    ``len(normalized_shape)`` dims: each sample is normalised on its own."""
    if isinstance(normalized_shape, numbers.Integral) or not all(isinstance(n, numbers.Integral)
                                                                 for n in normalized_shape):
        raise TypeError(f"layer_norm: normalized_shape must be a tuple of ints, got {normalized_shape!r}; "
                        f"for the last dim alone write ({normalized_shape},) (nn.LayerNorm also takes an int)")
    shape = tuple(int(n) for n in normalized_shape)
    _check_float(input, "input", "layer_norm", NotImplementedError)
    if not shape:
        raise RuntimeError("layer_norm: normalized_shape is empty; give the trailing dims to normalise over, "
                           "e.g. (x.shape[-1],)")
    if tuple(input.shape[input.ndim - len(shape):]) != shape or input.ndim < len(shape):
        raise RuntimeError(f"layer_norm: normalized_shape={list(shape)} must be the last dims of the input, but "
                           f"the input has shape {tuple(input.shape)}: it should be (*, {', '.join(map(str, shape))})")
    for t, what in ((weight, "weight"), (bias, "bias")):
        if t is not None and tuple(t.shape) != shape:
            raise RuntimeError(f"layer_norm: {what} has shape {tuple(t.shape)} but should have normalized_shape "
                               f"{shape}")
    _check_parameter_dtypes(input, "layer_norm", weight=weight, bias=bias)
    dims = tuple(range(-len(shape), 0))
    x, weight, bias = (_in_compute_dtype(t, input) for t in (input, weight, bias))
    return _scale_and_shift(_normalize(x, R.mean(x, dims, keepdim=True), R.var(x, dims, 0, keepdim=True), eps),
                            weight, bias).to(input.dtype)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """(x - mean) / sqrt(var + eps) * weight + bias, with the mean and the biased variance taken over each
    group of ``C / num_groups`` channels (and every position) of each sample; ``weight`` and ``bias`` are
    per channel (Wu & He, 2018)."""
    _check_float(input, "input", "group_norm", NotImplementedError)
    if input.ndim < 2:
        raise RuntimeError(f"group_norm: expected at least 2 dims (N, C, *), got shape {tuple(input.shape)}")
    n, c = input.shape[:2]
    if not isinstance(num_groups, numbers.Integral) or num_groups < 1 or c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input.shape)} and num_groups={num_groups}")
    for t, what in ((weight, "weight"), (bias, "bias")):
        if t is not None and tuple(t.shape) != (c,):
            raise RuntimeError(f"Expected {what} to be a vector of size equal to the number of channels in input, "
                               f"but got {what} of shape {list(t.shape)} and input of shape {list(input.shape)}")
    _check_parameter_dtypes(input, "group_norm", weight=weight, bias=bias)
    x, weight, bias = (_in_compute_dtype(t, input) for t in (input, weight, bias))
    groups = S.reshape(x, (n, num_groups, c // num_groups * math.prod(input.shape[2:])))   # (no -1: N may be 0)
    normed = S.reshape(_normalize(groups, R.mean(groups, -1, keepdim=True), R.var(groups, -1, 0, keepdim=True),
                                  eps), tuple(input.shape))
    per_channel = (1, c) + (1,) * (input.ndim - 2)
    return _scale_and_shift(normed, weight, bias, per_channel).to(input.dtype)


def _per_channel(name, input, given):
    """The input's channel count (dim 1), after checking that each given statistic or parameter has one value per
    channel (PyTorch's RuntimeError)."""
    channels = input.shape[1]
    for what, t in given.items():
        if t is not None and t.numel() != channels:
            raise RuntimeError(f"{name}: {what} should contain {channels} elements (one per channel: the input has "
                               f"shape {tuple(input.shape)}, channels in dim 1) not {t.numel()}")
    return channels


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    """(x - mean) / sqrt(var + eps) * weight + bias for each channel (dim 1), over the batch and every other dim.

    Training uses the batch's mean and biased variance, and moves ``running_mean``/``running_var`` (when given)
    in place toward the batch's mean and unbiased variance: r <- (1 - momentum)*r + momentum*batch. Evaluation
    uses the running statistics, so one sample is normalised the same whatever batch it comes in."""
    _check_float(input, "input", "batch_norm", NotImplementedError)
    if input.ndim < 2:
        raise RuntimeError(f"batch_norm: the input has shape {tuple(input.shape)}, but it needs a batch dim and a "
                           f"channel dim, (N, C) or (N, C, ...): x.unsqueeze(0) for one sample")
    if (running_mean is None) != (running_var is None):
        raise ValueError("batch_norm: running_mean and running_var must either both be None or neither be None")
    for what, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and t.requires_grad:
            raise RuntimeError(f"batch_norm is not differentiable with respect to {what}: it is a statistic, not a "
                               f"parameter; keep it as a buffer (register_buffer), or pass {what}.detach()")
    given = {"running_mean": running_mean, "running_var": running_var, "weight": weight, "bias": bias}
    channels = _per_channel("batch_norm", input, given)
    if not training and running_mean is None:
        raise RuntimeError("batch_norm: running_mean and running_var must be given in evaluation mode "
                           "(training=False); pass training=True to use the batch's own statistics")
    if training and input.numel() // max(channels, 1) == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                         f"{tuple(input.shape)}: a batch of one has no variance; use a larger batch, or eval()")
    _check_parameter_dtypes(input, "batch_norm", **given)
    shape = (1, channels) + (1,) * (input.ndim - 2)          # one value per channel, broadcast over the rest
    x, weight, bias = (_in_compute_dtype(t, input) for t in (input, weight, bias))
    if input.numel() == 0:   # an empty batch: nothing to normalise, nothing learned about the statistics
        return _scale_and_shift(x.clone(), weight, bias, shape).to(input.dtype)
    if not training:
        mean, var = (_in_compute_dtype(t, input).reshape(shape) for t in (running_mean, running_var))
        return _scale_and_shift(_normalize(x, mean, var, eps), weight, bias, shape).to(input.dtype)
    dims = (0,) + tuple(range(2, input.ndim))
    mean, var = R.mean(x, dims, keepdim=True), R.var(x, dims, 0, keepdim=True)
    n = input.numel() // channels
    with no_grad():
        for running, batch in ((running_mean, mean), (running_var, var * (n / (n - 1)))):
            if running is not None:   # (blended in the compute dtype, float32 for float16, and rounded once)
                blended = batch.reshape(running.shape) * momentum + _in_compute_dtype(running, input) * (1 - momentum)
                running.copy_(blended.to(running.dtype))
    return _scale_and_shift(_normalize(x, mean, var, eps), weight, bias, shape).to(input.dtype)


def bilinear(input1, input2, weight, bias=None):
    """y[..., o] = sum_{i,j} x1[..., i] * weight[o, i, j] * x2[..., j] + bias[o]: one bilinear form per output,
    ``weight`` of shape (out_features, in1_features, in2_features), x1 and x2 with the same leading dims."""
    for what, t in (("input1", input1), ("input2", input2), ("weight", weight)):
        if not isinstance(t, Tensor):
            raise TypeError(f"bilinear(): {what} must be a Tensor, got {type(t).__name__}")
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}")
    for d in range(input1.ndim - 1):
        if input1.shape[d] != input2.shape[d]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {d}: got {input1.shape[d]} "
                               f"and {input2.shape[d]}")
    if weight.ndim != 3:
        raise RuntimeError(f"bilinear(): weight must be (out_features, in1_features, in2_features), got shape "
                           f"{tuple(weight.shape)}")
    o, in1, in2 = weight.shape
    for what, t, n in (("input1", input1, in1), ("input2", input2, in2)):
        if t.shape[-1] != n:
            raise RuntimeError(f"bilinear(): {what} size does not match weight size: got {t.shape[-1]} but "
                               f"expected {n}")
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != o):
        got = bias.shape[-1] if bias.ndim else 1
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {got} but expected {o}")
    given = [t for t in (input1, input2, weight, bias) if t is not None]
    if len({t.dtype for t in given}) > 1:
        raise RuntimeError(f"All tensors must have the same dtype, got " + ", ".join(
            f"{n}: {t.dtype.name}" for n, t in zip(("input1", "input2", "weight", "bias"), given)) +
            "; convert them to one dtype")
    lead = tuple(input1.shape[:-1])
    x1, x2 = S.reshape(input1, (-1, in1)), S.reshape(input2, (-1, in2))
    # (x1 @ weight) for every o at once: (B, in1) @ (in1, o*in2) -> (B, o, in2), then the dot with x2
    u = S.reshape(x1 @ S.reshape(S.permute(weight, (1, 0, 2)), (in1, o * in2)), (-1, o, in2))
    out = R.sum(u * S.unsqueeze(x2, -2), -1)
    if bias is not None:
        out = out + bias
    return S.reshape(out, lead + (o,))


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """(x - mean) / sqrt(var + eps) * weight + bias with the mean and the biased variance of each channel of
    each sample, over its positions (dims 2 on). With ``running_mean``/``running_var`` given, they move toward
    the batch's average of those means and of the unbiased variances: r <- (1 - momentum)*r + momentum*stat;
    ``use_input_stats=False`` normalises with them instead (evaluation)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"instance_norm: input must be a Tensor, got {type(input).__name__}")
    if input.dtype.kind != "f":   # (PyTorch's class for an integer input here)
        raise NotImplementedError(f"instance_norm: not implemented for {input.dtype.name}; convert the input with "
                                  f".float()")
    if use_input_stats and math.prod(input.shape[2:]) == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"{tuple(input.shape)}: instance_norm wants (N, C, L), (N, C, H, W) or (N, C, D, H, W), "
                         f"and the variance of one element is not defined")
    if (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither be None")
    if not use_input_stats and running_mean is None:
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false: "
                           "pass them, or use_input_stats=True")
    given = {"running_mean": running_mean, "running_var": running_var, "weight": weight, "bias": bias}
    channels = _per_channel("instance_norm", input, given)
    _check_parameter_dtypes(input, "instance_norm", **given)
    shape = (1, channels) + (1,) * (input.ndim - 2)
    x, weight, bias = (_in_compute_dtype(t, input) for t in (input, weight, bias))
    if not use_input_stats:
        mean, var = (_in_compute_dtype(t, input).reshape(shape) for t in (running_mean, running_var))
        return _scale_and_shift(_normalize(x, mean, var, eps), weight, bias, shape).to(input.dtype)
    dims = tuple(range(2, input.ndim))
    mean, var = R.mean(x, dims, keepdim=True), R.var(x, dims, 0, keepdim=True)
    if running_mean is not None:
        n = math.prod(input.shape[2:])
        with no_grad():   # (the average over the batch of each sample's statistics)
            for running, stat in ((running_mean, mean), (running_var, var * (n / (n - 1)))):
                blended = R.mean(stat, 0).reshape(running.shape) * momentum + \
                    _in_compute_dtype(running, input) * (1 - momentum)
                running.copy_(blended.to(running.dtype))
    return _scale_and_shift(_normalize(x, mean, var, eps), weight, bias, shape).to(input.dtype)


def _normalize(x, mean, var, eps):
    return (x - mean) * E.rsqrt(var + eps)


def _scale_and_shift(x, weight, bias, shape=None):
    if weight is not None:
        x = x * (weight if shape is None else weight.reshape(shape))
    if bias is not None:
        x = x + (bias if shape is None else bias.reshape(shape))
    return x


def _in_compute_dtype(t, input):
    """float16 is normalised in float32 and rounded once at the end, as PyTorch does on the CPU."""
    return None if t is None else t.to(numpy.float32) if input.dtype == numpy.float16 else t


def _check_parameter_dtypes(input, name, **tensors):
    for what, t in tensors.items():
        if t is not None and t.dtype != input.dtype and not (input.dtype == numpy.float16 and t.dtype == numpy.float32):
            raise RuntimeError(f"{name}: {what} is {t.dtype.name} but the input is {input.dtype.name}; they must "
                               f"match: convert the input (x.to({t.dtype.name})) or the model (model.to("
                               f"{input.dtype.name}))")


def _padding_row(padding_idx, num_embeddings):
    """``padding_idx`` as a row number in [0, num_embeddings) (a negative one counts from the end), or None."""
    if padding_idx is None:
        return None
    if type(padding_idx) is bool or not isinstance(padding_idx, numbers.Integral):
        raise TypeError(f"embedding: padding_idx must be an int or None, got {padding_idx!r}")
    if not -num_embeddings <= padding_idx < num_embeddings:
        raise ValueError(f"embedding: padding_idx {padding_idx} is not a row of the weight: with {num_embeddings} "
                         f"embeddings it must be in [{-num_embeddings}, {num_embeddings - 1}]")
    return int(padding_idx) % num_embeddings


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """Row ``i`` of ``weight`` (num_embeddings, embedding_dim) for each index ``i`` in ``input``: ``weight[input]``,
    of shape ``input.shape + (embedding_dim,)``. Its gradient adds ``g`` into each row used (twice for an index
    used twice); none reaches row ``padding_idx``. With ``max_norm``, each row used whose ``norm_type``-norm
    is above it is first scaled down to that norm, in place (as PyTorch does: the weight changes)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"embedding: input must be a Tensor of integer indices, got {type(input).__name__}: wrap "
                        f"it with autogradlab.tensor(..., dtype=autogradlab.int64)")
    if not isinstance(weight, Tensor) or weight.ndim != 2:
        raise RuntimeError(f"embedding: the weight must be a 2-D Tensor (num_embeddings, embedding_dim), got "
                           f"{tuple(weight.shape) if isinstance(weight, Tensor) else type(weight).__name__}")
    if input.dtype not in (numpy.int64, numpy.int32):
        raise RuntimeError(f"embedding: input must hold int64 (or int32) indices, got dtype {input.dtype.name}: "
                           f"convert it with input.to(autogradlab.int64)")
    if sparse or scale_grad_by_freq:
        raise NotImplementedError("embedding: sparse=True and scale_grad_by_freq=True are not supported; leave "
                                  "them False (a dense gradient, the same numbers as sparse=True gives)")
    n = weight.shape[0]
    row = _padding_row(padding_idx, n)
    if input.numel():
        lo, hi = int(input._data.min()), int(input._data.max())
        if lo < 0 or hi >= n:
            raise IndexError(f"embedding: index {lo if lo < 0 else hi} is out of range: the weight has {n} rows, "
                             f"so indices must be in [0, {n - 1}]")
    if max_norm is not None:
        _renorm_rows(weight, input, max_norm, norm_type)
    out = weight[input]
    if row is not None:   # the padding row's positions pass their value on, but no gradient
        out = E.where((input == row).unsqueeze(-1), out.detach(), out)
    return out


def _renorm_rows(weight, input, max_norm, norm_type):
    """Scale each row of ``weight`` that ``input`` uses and whose ``norm_type``-norm exceeds ``max_norm`` down to
    ``max_norm`` (by max_norm/(norm + 1e-7), as PyTorch's embedding_renorm_), in place, unrecorded."""
    with no_grad():
        rows = Tensor._make(backend.xp_of(input._data).unique(input._data).astype(numpy.int64), False, None,
                            input.device)
        used = E.abs(weight[rows])
        if norm_type == float("inf"):
            norms = R.amax(used, 1, keepdim=True)
        elif norm_type == 0:   # (the "0-norm": how many are not zero)
            norms = E.to_dtype(used != 0, weight.dtype).sum(1, keepdim=True)
        else:
            norms = (used ** norm_type).sum(1, keepdim=True) ** (1.0 / norm_type)
        scale = E.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        weight[rows] = weight[rows] * scale


def one_hot(input, num_classes=-1):
    """Integer labels (N,) -> a (N, num_classes) int64 tensor of 0s with a 1 at each label."""
    if input.dtype != numpy.int64:   # (PyTorch takes int64 labels only, as its losses do)
        raise RuntimeError(f"one_hot is only applicable to index tensor of type LongTensor (int64), got "
                           f"{input.dtype.name}: convert the labels with labels.long()")
    labels = backend.to_host(input._data)
    if labels.size and int(labels.min()) < 0:
        raise RuntimeError(f"one_hot: Class values must be non-negative, got {int(labels.min())} (a label such as -1 "
                           f"or -100 that marks 'ignore' has no column: drop those rows first)")
    if num_classes == -1:
        if not labels.size:
            raise RuntimeError("one_hot: Can not infer total number of classes from empty tensor: pass num_classes")
        num_classes = int(labels.max()) + 1
    if labels.size and int(labels.max()) >= num_classes:
        raise RuntimeError(f"one_hot: Class values must be smaller than num_classes ({num_classes}), got "
                           f"{int(labels.max())}")
    host = numpy.eye(num_classes, dtype="int64")[labels]
    return Tensor._make(backend.asarray(host, input.device), False, None, input.device)
