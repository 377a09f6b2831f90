"""The rest of ``nn.functional``'s everyday names, built from the functions in :mod:`.functional` (``nn``'s
``__init__`` attaches them to it, so ``F.rms_norm`` works and ``functional`` does not import this module):

- normalisation: ``rms_norm``, ``local_response_norm``;
- pooling: ``lp_pool1d/2d/3d``, and ``max_pool*_with_indices`` / ``adaptive_max_pool*_with_indices``;
- dropout: ``dropout1d``, ``dropout3d``, ``alpha_dropout``, ``feature_alpha_dropout``;
- activations: ``rrelu``, and the in-place forms ``relu_``, ``elu_``, ``leaky_relu_``, ``hardtanh_``, ``celu_``,
  ``selu_``, ``threshold_``, ``rrelu_``;
- ``channel_shuffle``, the deprecated ``upsample_nearest`` / ``upsample_bilinear``, and the losses
  ``multilabel_margin_loss`` and ``triplet_margin_with_distance_loss``.

The math is in each docstring; each gradient comes from the ops it is made of."""
from __future__ import annotations

import math
import numbers
import warnings

import numpy

from .. import backend, creation
from ..dtypes import finfo
from ..ops import elementwise as E
from ..ops import reduce as R
from ..ops.inplace import in_place
from ..tensor import Tensor
from . import functional as F
from .losses import _reduce, legacy_reduction

__all__ = ["rms_norm", "local_response_norm", "lp_pool1d", "lp_pool2d", "lp_pool3d", "dropout1d", "dropout3d",
           "alpha_dropout", "feature_alpha_dropout", "rrelu", "rrelu_", "relu_", "elu_", "leaky_relu_", "hardtanh_",
           "celu_", "selu_", "threshold_", "channel_shuffle", "upsample_nearest", "upsample_bilinear",
           "multilabel_margin_loss", "triplet_margin_with_distance_loss", "max_pool1d_with_indices",
           "max_pool2d_with_indices", "max_pool3d_with_indices", "adaptive_max_pool1d_with_indices",
           "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d_with_indices", "linear_cross_entropy"]


# -- normalisation ------------------------------------------------------------------------------------------

def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``x / sqrt(mean(x^2) + eps) * weight``, the mean over the last ``len(normalized_shape)`` dims (Zhang &
    Sennrich, 2019): LayerNorm without centring. ``eps`` defaults to the machine epsilon of the dtype it computes
    in (float32 for a float16 input), as PyTorch's."""
    shape = (normalized_shape,) if isinstance(normalized_shape, numbers.Integral) else tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(shape):]) != shape or input.ndim < len(shape):
        raise RuntimeError(f"rms_norm: normalized_shape={list(shape)} must be the last dims of the input, but the "
                           f"input has shape {tuple(input.shape)}: it should be (*, {', '.join(map(str, shape))})")
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError(f"rms_norm: weight has shape {tuple(weight.shape)} but should have normalized_shape "
                           f"{shape}")
    F._check_float(input, "input", "rms_norm", NotImplementedError)   # (no integer kernel, as in PyTorch)
    # (as PyTorch: half precision is computed in float32, with float32's epsilon, and the result takes the input's
    # dtype whatever the weight's)
    x = input.float() if input.dtype == numpy.float16 else input
    eps = finfo(x.dtype).eps if eps is None else eps
    dims = tuple(range(-len(shape), 0))
    out = x * E.rsqrt(R.mean(x * x, dims, keepdim=True) + eps)
    return (out if weight is None else out * weight).to(input.dtype)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """``x / (k + alpha * mean(x^2 over size neighbouring channels))^beta`` (Krizhevsky et al., 2012): channel c
    looks at channels c - size//2 to c + (size-1)//2, zeros past the ends, the mean always over ``size``."""
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.ndim} dimensions)")
    if input.numel() == 0:
        return input
    squares = F.pad((input * input).movedim(1, -1), (size // 2, (size - 1) // 2))   # channels last, zeros around
    channels = input.shape[1]
    window = squares[..., 0:channels]
    for j in range(1, size):
        window = window + squares[..., j:j + channels]
    return input / ((window.movedim(-1, 1) * (alpha / size) + k) ** beta)


# -- pooling --------------------------------------------------------------------------------------------------

def _lp_pool(name, average, largest, input, norm_type, kernel_size, stride, ceil_mode, dims):
    sizes = (kernel_size,) * dims if isinstance(kernel_size, numbers.Integral) else tuple(kernel_size)
    if norm_type == math.inf:    # (the limit p -> inf: the largest |x| of each window; -inf: the smallest)
        return largest(E.abs(input), sizes, stride, 0, 1, ceil_mode)
    if norm_type == -math.inf:
        return -largest(-E.abs(input), sizes, stride, 0, 1, ceil_mode)
    out = average(input ** norm_type, sizes, stride, 0, ceil_mode)
    # (sign(out) * relu(|out|): PyTorch's way of keeping a negative mean's sign, for odd powers of negatives)
    return (E.sign(out) * E.relu(E.abs(out)) * math.prod(sizes)) ** (1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """``(sum of x^p over each window)^(1/p)``: p = 1 sums, large p approaches the max (p = inf: the largest |x|)."""
    return _lp_pool("lp_pool1d", F.avg_pool1d, F.max_pool1d, input, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """:func:`lp_pool1d` over (kh, kw) windows."""
    return _lp_pool("lp_pool2d", F.avg_pool2d, F.max_pool2d, input, norm_type, kernel_size, stride, ceil_mode, 2)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """:func:`lp_pool1d` over (kd, kh, kw) windows."""
    return _lp_pool("lp_pool3d", F.avg_pool3d, F.max_pool3d, input, norm_type, kernel_size, stride, ceil_mode, 3)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    """``max_pool1d(..., return_indices=True)``."""
    return F.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    """``max_pool2d(..., return_indices=True)``."""
    return F.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    """``max_pool3d(..., return_indices=True)``."""
    return F.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=True):
    """``adaptive_max_pool1d(..., return_indices=True)``."""
    return F.adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=True):
    """``adaptive_max_pool2d(..., return_indices=True)``."""
    return F.adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=True):
    """``adaptive_max_pool3d(..., return_indices=True)``."""
    return F.adaptive_max_pool3d(input, output_size, True)


# -- dropout --------------------------------------------------------------------------------------------------

def _check_p(p):
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _keep(p, shape, input):
    """A float mask of ``shape`` on ``input``'s device: 1 with probability 1 - p (the seeded generator)."""
    keep = creation.generator().random(tuple(shape)) >= p
    return Tensor._make(backend.asarray(keep.astype(input.dtype), input.device), False, None, input.device)


def _channel_mask_shape(name, input, spatial):
    """(N, C, 1, ...) for a batched input of ``spatial`` dims, (C, 1, ...) for an unbatched one."""
    if input.ndim not in (spatial + 1, spatial + 2):
        raise RuntimeError(f"{name}: Expected {spatial + 1}D or {spatial + 2}D input, but received a {input.ndim}D "
                           f"input. Note that {name} exists to provide channel-wise dropout on inputs with "
                           f"{spatial} spatial dimension{'s' if spatial > 1 else ''}, a channel dimension, and an "
                           f"optional batch dimension")
    lead = input.ndim - spatial
    return tuple(input.shape[:lead]) + (1,) * spatial


def _scaled(input, keep, p, inplace):
    mask = keep / (1.0 - p)
    return input.mul_(mask) if inplace else input * mask


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, L) or (C, L), each with probability ``p``, the rest scaled by 1/(1-p)
    (only when training); d/dinput = the mask."""
    _check_p(p)
    shape = _channel_mask_shape("dropout1d", input, 1)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        return F._all_dropped(input, inplace)
    F._check_scalable("dropout1d", input)
    return _scaled(input, _keep(p, shape, input), p, inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W), each with probability ``p``, the rest scaled
    by 1/(1-p) (only when training). Another rank warns, as in PyTorch, and is read as unbatched: one draw per
    index of dim 0."""
    _check_p(p)
    if input.ndim not in (4, 5):
        warnings.warn(f"dropout3d: Received a {input.ndim}-D input to dropout3d, which is deprecated and will "
                      f"result in an error in a future release. To retain the behavior and silence this warning, "
                      f"please use dropout instead. Note that dropout3d exists to provide channel-wise dropout on "
                      f"inputs with 3 spatial dimensions, a channel dimension, and an optional batch dimension "
                      f"(i.e. 4D or 5D inputs).", UserWarning, stacklevel=2)
    shape = tuple(input.shape[:2 if input.ndim == 5 else 1]) + (1,) * (input.ndim - (2 if input.ndim == 5 else 1))
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        return F._all_dropped(input, inplace)
    F._check_scalable("dropout3d", input)
    return _scaled(input, _keep(p, shape, input), p, inplace)


_SELU_SATURATION = 1.7580993408473766   # -(SELU's scale * alpha): where SELU's outputs saturate


def _alpha(input, p, training, inplace, shape):
    """Alpha dropout (Klambauer et al., 2017): a dropped element becomes SELU's saturation value -alpha', and
    ``a x + b`` then restores mean 0 and variance 1: a = ((1 - p)(1 + p alpha'^2))^-1/2, b = a alpha' p.
    ``out = a keep x + a alpha' (keep - 1) + a alpha' p``; d/dinput = a keep."""
    _check_p(p)
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if input.dtype.kind != "f":
        raise RuntimeError(f"result type Float can't be cast to the desired output type {input.dtype.name}: alpha "
                           f"dropout needs a floating input")
    if p == 1.0:
        return input.mul_(0.0) if inplace else input * 0.0
    keep = _keep(p, shape, input)
    a = 1.0 / math.sqrt((_SELU_SATURATION ** 2 * p + 1) * (1 - p))
    shift = (keep - 1) * (_SELU_SATURATION * a) + _SELU_SATURATION * a * p
    return input.mul_(keep * a).add_(shift) if inplace else input * (keep * a) + shift


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for SELU networks: keeps the activations' mean 0 and variance 1 (see ``_alpha``). Off unless
    ``training=True`` (PyTorch's default here)."""
    return _alpha(input, p, training, inplace, tuple(input.shape))


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """:func:`alpha_dropout` of whole channels: one draw per (N, C), broadcast over the other dims."""
    if training and input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2) if input.ndim >= 2 else tuple(input.shape)
    return _alpha(input, p, training, inplace, shape)


# -- activations ----------------------------------------------------------------------------------------------

def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomized leaky ReLU (Xu et al., 2015): ``x`` for x > 0, ``a x`` at and below 0, with a slope ``a`` drawn
    uniformly from [lower, upper] for each element while training, and ``(lower + upper) / 2`` otherwise."""
    F._check_float(input, "input", "rrelu", NotImplementedError)   # (no integer kernel, as in PyTorch)
    if lower > upper:
        raise RuntimeError(f"rrelu: Lower bound should be less than or equal to the upper bound, got lower={lower} "
                           f"and upper={upper}")
    if training:
        draws = creation.generator().uniform(lower, upper, tuple(input.shape))
        slope = Tensor._make(backend.asarray(draws.astype(input.dtype), input.device), False, None, input.device)
    else:
        slope = (lower + upper) / 2
    if inplace:
        return in_place("rrelu_", lambda a: E.where(a > 0, a, a * slope))(input)
    return E.where(input > 0, input, input * slope)   # (the slope at 0 too, as PyTorch's and leaky_relu's)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """:func:`rrelu` in place."""
    return rrelu(input, lower, upper, training, True)


# the in-place activations write into ``input``, as ``x.relu_()`` and ``F.relu(x, inplace=True)`` do

def relu_(input):
    """:func:`~.functional.relu` written into ``input``."""
    return in_place("relu_", F.relu)(input)


def elu_(input, alpha=1.0):
    """:func:`~.functional.elu` written into ``input``."""
    return in_place("elu_", F.elu)(input, alpha=alpha)


def leaky_relu_(input, negative_slope=0.01):
    """:func:`~.functional.leaky_relu` written into ``input``."""
    return in_place("leaky_relu_", F.leaky_relu)(input, negative_slope=negative_slope)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """:func:`~.functional.hardtanh` written into ``input``."""
    return in_place("hardtanh_", F.hardtanh)(input, min_val=min_val, max_val=max_val)


def celu_(input, alpha=1.0):
    """:func:`~.functional.celu` written into ``input``."""
    return in_place("celu_", F.celu)(input, alpha=alpha)


def selu_(input):
    """:func:`~.functional.selu` written into ``input``."""
    return in_place("selu_", F.selu)(input)


def threshold_(input, threshold, value):
    """:func:`~.functional.threshold` written into ``input``."""
    return in_place("threshold_", F.threshold)(input, threshold=threshold, value=value)


# -- rearranging and resampling ------------------------------------------------------------------------------

def channel_shuffle(input, groups):
    """(N, C, *) with its C channels, seen as ``groups`` rows of C/groups, read column by column (ShuffleNet,
    Zhang et al., 2018): channel ``g * (C/groups) + i`` moves to ``i * groups + g``."""
    if input.ndim < 3:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"sizes {list(input.shape)}")
    if isinstance(groups, bool) or not isinstance(groups, numbers.Integral) or groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    n, c, rest = input.shape[0], input.shape[1], tuple(input.shape[2:])
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    out = input.reshape(n, groups, c // groups, *rest).transpose(1, 2).reshape(n, c, *rest)
    return out.clone() if out._view is not None else out   # (always new memory, as PyTorch's: see pixel_shuffle)


def upsample_nearest(input, size=None, scale_factor=None):
    """PyTorch's deprecated name for ``interpolate(..., mode='nearest')`` (it warns, as PyTorch does)."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  UserWarning, stacklevel=2)
    return F.interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """PyTorch's deprecated name for ``interpolate(..., mode='bilinear', align_corners=True)`` (it warns)."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  UserWarning, stacklevel=2)
    return F.interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# -- losses ---------------------------------------------------------------------------------------------------

def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """For each sample, ``sum over its labels j and the other classes i of max(0, 1 - (x[j] - x[i])) / C``: each
    true class should score a margin of 1 above every other class. ``target`` holds the labels' indices,
    ending at the first -1 (or the row's end). Input (C) or (N, C), target of the same shape, int64."""
    reduction = legacy_reduction(size_average, reduce, reduction, "multilabel_margin_loss")
    if input.ndim not in (1, 2) or tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"multilabel_margin_loss: expected input of shape (C) or (N, C) and a target of the "
                           f"same shape, got {tuple(input.shape)} and {tuple(target.shape)}")
    if target.dtype.kind not in "iu":
        raise RuntimeError(f"multilabel_margin_loss: expected target of dtype int64, got {target.dtype.name}")
    x = input if input.ndim == 2 else input.reshape(1, -1)
    labels = backend.to_host(target._data).reshape(x.shape).astype(numpy.int64)
    c = x.shape[1]
    if labels.size and (labels.min() < -1 or labels.max() >= c):
        raise RuntimeError(f"multilabel_margin_loss: target values must be in [-1, {c - 1}] (-1 ends the list)")
    valid = numpy.cumprod(labels != -1, axis=1).astype(bool)           # the labels before the first -1
    is_label = numpy.zeros(x.shape, dtype=bool)                         # is_label[n, i]: i is one of n's labels
    rows, cols = numpy.nonzero(valid)
    is_label[rows, labels[rows, cols]] = True
    picks = numpy.where(valid, labels, 0)                               # (a label's score; masked where invalid)
    device = input.device

    def constant(array, dtype):
        return Tensor._make(backend.asarray(array.astype(dtype), device), False, None, device)

    scores = x.gather(1, constant(picks, numpy.int64))                  # x[n, labels[n, j]]
    margins = E.relu(1 - scores.unsqueeze(2) + x.unsqueeze(1))          # (N, J, C): 1 - (x[j] - x[i])
    mask = constant(valid[:, :, None] & ~is_label[:, None, :], x.dtype)
    per_sample = (margins * mask).sum((1, 2)) / c
    return _reduce(per_sample if input.ndim == 2 else per_sample.reshape(()), reduction, "multilabel_margin_loss")


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0,
                                      swap=False, reduction="mean"):
    """``max(d(anchor, positive) - d(anchor, negative) + margin, 0)``, with ``d`` your ``distance_function``
    (``pairwise_distance`` by default); ``swap=True`` uses the smaller of d(a, n) and d(p, n)."""
    if margin <= 0:
        raise ValueError(f"triplet_margin_with_distance_loss: expected margin to be greater than 0, got {margin} "
                         f"instead")
    d = distance_function if distance_function is not None else F.pairwise_distance
    positive_distance, negative_distance = d(anchor, positive), d(anchor, negative)
    if swap:
        negative_distance = E.minimum(negative_distance, d(positive, negative))
    return _reduce(E.clamp(positive_distance - negative_distance + margin, min=0.0), reduction,
                   "triplet_margin_with_distance_loss")


# -- a linear layer and cross-entropy in one call ---------------------------------------------------------------

def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None, reduction="mean",
                         ignore_index=None, label_smoothing=0.0, options=None):
    """cross_entropy(x W^T + b, target) with W of shape (C, *out_features, in_features): logits
    (N, C, *out_features). PyTorch fuses the two and works through the batch in chunks to save the logits'
    memory (``options``); here they run one after the other, so the values and gradients are the same and
    ``options`` changes nothing."""
    if input.ndim not in (1, 2):
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.ndim}")
    if linear_weight.ndim < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got {linear_weight.ndim}")
    if input.shape[-1] != linear_weight.shape[-1]:
        raise RuntimeError(f"expected equal input and linear_weight last dimensions (in_features), got "
                           f"{input.shape[-1]} and {linear_weight.shape[-1]}, respectively")
    classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(classes, *out_features)}, got {tuple(linear_bias.shape)}")
    if out_features and input.ndim == 1:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape {tuple(linear_weight.shape)} "
                           f"requires batched input, (N, {input.shape[-1]}), got unbatched input with shape "
                           f"{tuple(input.shape)}")
    batch = tuple(input.shape[:-1])
    if tuple(target.shape) == (*batch, classes, *out_features) and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    flat_bias = None if linear_bias is None else linear_bias.reshape(-1)
    logits = F.linear(input, linear_weight.reshape(-1, input.shape[-1]), flat_bias)
    logits = logits.reshape(*batch, classes, *out_features)
    return F.cross_entropy(logits, target, weight, ignore_index=-100 if ignore_index is None else ignore_index,
                           reduction=reduction, label_smoothing=label_smoothing)

