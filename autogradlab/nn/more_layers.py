"""The rest of ``torch.nn``'s everyday layers, each a thin module over a function of
:mod:`.more_functional` or :mod:`.functional`: ``RMSNorm``, ``LocalResponseNorm``, ``LPPool1d/2d/3d``,
``Softmax2d``, ``Dropout1d``, ``Dropout3d``, ``AlphaDropout``, ``FeatureAlphaDropout``, ``RReLU``,
``ChannelShuffle``, the 3-d pads (``ZeroPad3d``, ``ConstantPad3d``, ``ReflectionPad3d``, ``ReplicationPad3d``,
``CircularPad3d``), the losses ``MultiLabelMarginLoss`` and ``TripletMarginWithDistanceLoss``, and ``Buffer``
(a tensor that a module registers as a buffer when assigned: ``self.mean = nn.Buffer(torch.zeros(3))``)."""
from __future__ import annotations

import math
import numbers

from .. import creation
from ..tensor import Tensor
from . import functional as F
from . import init
from . import more_functional as G
from .layers import ConstantPad1d, Linear, _DropoutNd, _IndexPadNd
from .module import Module
from .parameter import Parameter

__all__ = ["RMSNorm", "LocalResponseNorm", "LPPool1d", "LPPool2d", "LPPool3d", "Softmax2d", "Dropout1d", "Dropout3d",
           "AlphaDropout", "FeatureAlphaDropout", "RReLU", "ChannelShuffle", "ZeroPad3d", "ConstantPad3d",
           "ReflectionPad3d", "ReplicationPad3d", "CircularPad3d", "MultiLabelMarginLoss",
           "TripletMarginWithDistanceLoss", "Buffer", "LinearCrossEntropyLoss"]


class RMSNorm(Module):
    """``x / sqrt(mean(x^2) + eps) * weight`` over the last dims (``normalized_shape``): LayerNorm without
    the centring or the bias, as in LLaMA-style transformers. ``eps=None``: the dtype's machine epsilon."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, numbers.Integral) else normalized_shape
        self.normalized_shape = tuple(int(n) for n in shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        self.register_parameter("weight", Parameter(creation.ones(self.normalized_shape, dtype=dtype, device=device))
                                if elementwise_affine else None)

    def reset_parameters(self):
        if self.weight is not None:
            init.ones_(self.weight)

    def forward(self, x):
        return G.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


class LocalResponseNorm(Module):
    """Each channel divided by ``(k + alpha * mean of the squares of size neighbouring channels)^beta``."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return G.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class _LPPoolNd(Module):
    function = None

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def forward(self, input):
        return type(self).function(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    """``(sum of x^p over each window of the last dim)^(1/p)``."""

    function = staticmethod(G.lp_pool1d)


class LPPool2d(_LPPoolNd):
    """``(sum of x^p over each (kh, kw) window)^(1/p)``."""

    function = staticmethod(G.lp_pool2d)


class LPPool3d(_LPPoolNd):
    """``(sum of x^p over each (kd, kh, kw) window)^(1/p)``."""

    function = staticmethod(G.lp_pool3d)


class Softmax2d(Module):
    """Softmax over the channels at each position: dim -3 of (N, C, H, W) or (C, H, W)."""

    def forward(self, input):
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D instead")
        return F.softmax(input, -3)


class Dropout1d(_DropoutNd):
    """Whole channels of (N, C, L) or (C, L) zeroed with probability ``p`` while training."""

    def forward(self, input):
        return G.dropout1d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Whole channels of (N, C, D, H, W) or (C, D, H, W) zeroed with probability ``p`` while training."""

    def forward(self, input):
        return G.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Dropout for SELU networks (keeps mean 0 and variance 1) while training."""

    def forward(self, input):
        return G.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels while training."""

    def forward(self, input):
        return G.feature_alpha_dropout(input, self.p, self.training)


class RReLU(Module):
    """Leaky ReLU whose negative slope is drawn from [lower, upper] per element while training, and their mean
    in evaluation."""

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return G.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}{', inplace=True' if self.inplace else ''}"


class ChannelShuffle(Module):
    """Channels regrouped: (N, C, *) read as ``groups`` x C/groups, transposed (ShuffleNet)."""

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return G.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"


class ConstantPad3d(ConstantPad1d):
    """``value`` added around the last three dims: padding (left, right, top, bottom, front, back), or an int."""

    def __init__(self, padding, value):
        Module.__init__(self)
        self.padding = tuple(padding) if isinstance(padding, (tuple, list)) else (padding,) * 6
        self.value = value


class ZeroPad3d(ConstantPad3d):
    """Zeros added around the last three dims."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ReflectionPad3d(_IndexPadNd):
    """The last three dims mirrored at their edges; padding (left, right, top, bottom, front, back)."""

    mode, sides = "reflect", 6


class ReplicationPad3d(_IndexPadNd):
    """The nearest edge element of the last three dims repeated."""

    mode, sides = "replicate", 6


class CircularPad3d(_IndexPadNd):
    """The last three dims wrapped around."""

    mode, sides = "circular", 6


class MultiLabelMarginLoss(Module):
    """:func:`~.more_functional.multilabel_margin_loss` as a module."""

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.size_average, self.reduce, self.reduction = size_average, reduce, reduction

    def forward(self, input, target):
        return G.multilabel_margin_loss(input, target, self.size_average, self.reduce, self.reduction)


class TripletMarginWithDistanceLoss(Module):
    """:func:`~.more_functional.triplet_margin_with_distance_loss` as a module."""

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__()
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} "
                             f"instead")
        self.distance_function, self.margin, self.swap, self.reduction = distance_function, margin, swap, reduction

    def forward(self, anchor, positive, negative):
        return G.triplet_margin_with_distance_loss(anchor, positive, negative,
                                                   distance_function=self.distance_function, margin=self.margin,
                                                   swap=self.swap, reduction=self.reduction)


class LinearCrossEntropyLoss(Module):
    """A linear layer (``self.linear``, in_features -> num_classes * prod(out_features)) and cross-entropy in
    one module: ``loss(x, target)`` is :func:`~.more_functional.linear_cross_entropy` with its weight seen as
    (num_classes, *out_features, in_features)."""

    def __init__(self, in_features, num_classes, *, out_features=(), bias=False, device=None, dtype=None,
                 reduction="mean", weight=None, ignore_index=None, label_smoothing=0.0, options=None):
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got {tuple(weight.shape)}")
        if not 0 <= label_smoothing <= 1.0:
            raise RuntimeError(f"expected label_smoothing to be in range [0, 1], got {label_smoothing}")
        super().__init__()
        self.reduction, self.num_classes, self.out_features = reduction, num_classes, tuple(out_features)
        self.ignore_index, self.label_smoothing, self.options = ignore_index, label_smoothing, options
        self.register_buffer("weight", weight)
        self.linear = Linear(in_features, num_classes * math.prod(self.out_features), bias=bias, device=device,
                             dtype=dtype)

    def forward(self, input, target):
        shape = (self.num_classes, *self.out_features)
        bias = None if self.linear.bias is None else self.linear.bias.reshape(shape)
        return G.linear_cross_entropy(input, self.linear.weight.reshape(*shape, self.linear.in_features), target,
                                      linear_bias=bias, weight=self.weight, reduction=self.reduction,
                                      ignore_index=self.ignore_index, label_smoothing=self.label_smoothing,
                                      options=self.options)

    def extra_repr(self):
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, out_features="
                f"{self.out_features}, bias={self.linear.bias is not None}, reduction={self.reduction}, "
                f"ignore_index={self.ignore_index}, label_smoothing={self.label_smoothing}, options={self.options}")


class Buffer(Tensor):
    """A tensor that a module registers as a buffer when it is assigned to one of its attributes:
    ``self.mean = nn.Buffer(torch.zeros(3))`` in ``__init__`` is ``self.register_buffer("mean", ...)``;
    ``persistent=False`` leaves it out of ``state_dict()``. ``Buffer(t)`` shares ``t``'s data (detached, as
    PyTorch's); ops on it return plain tensors."""

    __slots__ = ("persistent",)

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = creation.zeros(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Buffer(): data must be a Tensor, got {type(data).__name__}; wrap it with "
                            f"autogradlab.tensor(...)")
        b = cls._make(data._data, data.requires_grad, None, data.device)
        b._vc = data._vc   # (shares memory with ``data``, so it shares the version counter too)
        b.persistent = bool(persistent)
        return b

    def __init__(self, data=None, *, persistent=True):
        pass   # (everything happened in __new__)
