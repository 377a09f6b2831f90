"""Layers: ``Linear``, the activations, ``Sequential``, ``MLP``, and the losses as modules."""
from __future__ import annotations

import math
import numbers
import warnings
from collections import OrderedDict

from .. import creation
from ..grad_mode import no_grad
from ..tensor import Tensor
from . import functional as F
from . import convolution, init
from .losses import legacy_reduction
from .module import Module
from .parameter import Parameter

__all__ = ["Linear", "ReLU", "Tanh", "Sigmoid", "LeakyReLU", "ELU", "SiLU", "GELU", "Softplus", "Identity", "Softmax",
           "Hardtanh", "ReLU6", "Hardsigmoid", "Hardswish", "Mish", "SELU", "CELU", "Softsign", "LogSigmoid",
           "Tanhshrink", "Softmin", "GroupNorm", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
           "LogSoftmax", "Dropout", "LayerNorm", "BatchNorm1d", "BatchNorm2d", "Conv1d", "Conv2d",
           "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "MaxPool1d",
           "MaxPool2d", "AvgPool1d", "AvgPool2d", "Flatten", "Embedding", "Sequential", "ModuleList", "ModuleDict",
           "ParameterList", "ParameterDict", "MLP",
           "MSELoss", "L1Loss", "HuberLoss", "SmoothL1Loss", "NLLLoss", "CrossEntropyLoss", "BCELoss",
           "BCEWithLogitsLoss", "KLDivLoss", "MarginRankingLoss", "HingeEmbeddingLoss", "CosineEmbeddingLoss",
           "PoissonNLLLoss", "GaussianNLLLoss", "SoftMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss",
           "TripletMarginLoss", "Unfold", "Fold"]


class Linear(Module):
    """y = x @ W^T + b with W of shape (out_features, in_features).

    Initialised as PyTorch does: ``kaiming_uniform_(W, a=sqrt(5))``, which is
    U(-1/sqrt(in_features), 1/sqrt(in_features)), and b from the same range.
    """

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features = int(in_features), int(out_features)
        self.weight = Parameter(creation.zeros(out_features, in_features, dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(creation.zeros(out_features, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_weight_and_bias(self.weight, self.bias)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Bilinear(Module):
    """y[o] = x1^T weight[o] x2 + bias[o], weight of shape (out_features, in1_features, in2_features).

    Initialised as PyTorch does: weight and bias from U(-1/sqrt(in1_features), 1/sqrt(in1_features)).
    """

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in1_features, self.in2_features = int(in1_features), int(in2_features)
        self.out_features = int(out_features)
        self.weight = Parameter(creation.zeros(out_features, in1_features, in2_features, dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(creation.zeros(out_features, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


def _reset_weight_and_bias(weight, bias):
    """PyTorch's default for Linear and Conv2d: ``kaiming_uniform_(weight, a=sqrt(5))``, i.e.
    U(-1/sqrt(fan_in), 1/sqrt(fan_in)), and the bias from the same range."""
    init.kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = init._calculate_fan_in_and_fan_out(weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        init.uniform_(bias, -bound, bound)


class Embedding(Module):
    """A lookup table: ``Embedding(n, d)(idx)`` is ``weight[idx]``, one row of ``weight`` (n, d) per index.

    Initialised as PyTorch does, from N(0, 1), with row ``padding_idx`` (if given) zeros; that row gets no
    gradient. ``Embedding.from_pretrained(weights)`` wraps a given table (shared, not copied; frozen unless
    ``freeze=False``)."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, device=None, dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = int(num_embeddings), int(embedding_dim)
        self.padding_idx = F._padding_row(padding_idx, self.num_embeddings)
        self.max_norm, self.norm_type = max_norm, norm_type
        if sparse or scale_grad_by_freq:
            F.embedding(creation.zeros(0, dtype="int64"), creation.zeros(1, 1), sparse=sparse,
                        scale_grad_by_freq=scale_grad_by_freq)   # (its NotImplementedError, when built)
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            self.weight = Parameter(creation.zeros(num_embeddings, embedding_dim, dtype=dtype, device=device),
                                    requires_grad=not _freeze)
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (self.num_embeddings, self.embedding_dim):
                raise ValueError(f"Embedding: the weight's shape {tuple(_weight.shape)} is not (num_embeddings, "
                                 f"embedding_dim) = {(self.num_embeddings, self.embedding_dim)}")
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, sparse=False):
        """An Embedding whose weight is ``embeddings`` (2-D, shared, not copied); ``freeze``: no gradient."""
        if embeddings.ndim != 2:
            raise ValueError(f"Embedding.from_pretrained: embeddings must be 2-D (num_embeddings, embedding_dim), "
                             f"got shape {tuple(embeddings.shape)}")
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse, _weight=embeddings,
                   _freeze=freeze)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            s += ", scale_grad_by_freq=True"
        if self.sparse:
            s += ", sparse=True"
        return s


class _Activation(Module):
    """An activation with PyTorch's ``inplace`` flag (True: the result is written into the input)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def extra_repr(self, *settings):
        return ", ".join(settings + (("inplace=True",) if self.inplace else ()))


class ReLU(_Activation):
    """max(x, 0)."""

    def forward(self, input):
        return F.relu(input, self.inplace)


class Tanh(Module):
    """tanh(x)."""

    def forward(self, input):
        return F.tanh(input)


class Sigmoid(Module):
    """1 / (1 + e^-x)."""

    def forward(self, input):
        return F.sigmoid(input)


class LeakyReLU(_Activation):
    """x where x > 0, else negative_slope*x."""

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__(inplace)
        self.negative_slope = negative_slope

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return super().extra_repr(f"negative_slope={self.negative_slope}")


class ELU(_Activation):
    """x where x > 0, else alpha*(e^x - 1)."""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__(inplace)
        self.alpha = alpha

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return super().extra_repr(f"alpha={self.alpha}")


class SiLU(_Activation):
    """x*sigmoid(x)."""

    def forward(self, input):
        return F.silu(input, self.inplace)


class Hardtanh(_Activation):
    """x clipped to [min_val, max_val] (``F.hardtanh``)."""

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__(inplace)
        if max_val <= min_val:
            raise AssertionError(f"max_val ({max_val}) must be greater than min_val ({min_val})")
        self.min_val, self.max_val = min_val, max_val

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return super().extra_repr(f"min_val={self.min_val}", f"max_val={self.max_val}")


class ReLU6(Hardtanh):
    """min(max(x, 0), 6) (``F.relu6``): a Hardtanh on [0, 6], as in PyTorch."""

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def forward(self, input):
        return F.relu6(input, self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Hardsigmoid(_Activation):
    """A piecewise-linear sigmoid (``F.hardsigmoid``)."""

    def forward(self, input):
        return F.hardsigmoid(input, self.inplace)

    def extra_repr(self):
        return ""   # (PyTorch does not show inplace here)


class Hardswish(_Activation):
    """x * hardsigmoid(x) (``F.hardswish``)."""

    def forward(self, input):
        return F.hardswish(input, self.inplace)

    def extra_repr(self):
        return ""   # (PyTorch does not show inplace here)


class Threshold(_Activation):
    """x where x > threshold, else value (``F.threshold``)."""

    def __init__(self, threshold, value, inplace=False):
        super().__init__(inplace)
        self.threshold, self.value = threshold, value

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return super().extra_repr(f"threshold={self.threshold}", f"value={self.value}")


class _Shrink(Module):
    """An activation with a dead zone [-lambd, lambd] (PyTorch's repr shows lambd alone)."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def extra_repr(self):
        return f"{self.lambd}"


class Hardshrink(_Shrink):
    """0 where -lambd <= x <= lambd, else x (``F.hardshrink``)."""

    def forward(self, input):
        return F.hardshrink(input, self.lambd)


class Softshrink(_Shrink):
    """x moved toward 0 by lambd, and 0 where |x| <= lambd (``F.softshrink``)."""

    def forward(self, input):
        return F.softshrink(input, self.lambd)


class PReLU(Module):
    """x where x > 0, else a*x, with the slope a learnt: one (``num_parameters=1``) or one per channel (dim 1),
    each starting at ``init`` (``F.prelu``)."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters, self.init = num_parameters, init
        self.weight = Parameter(creation.zeros(num_parameters, dtype=dtype, device=device))
        self.reset_parameters()

    def reset_parameters(self):
        init.constant_(self.weight, self.init)   # (``init`` here is the nn.init module; self.init the number)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class GLU(Module):
    """a * sigmoid(b) over the two halves of ``dim`` (``F.glu``)."""

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class Mish(_Activation):
    """x * tanh(softplus(x)) (``F.mish``)."""

    def forward(self, input):
        return F.mish(input, self.inplace)


class SELU(_Activation):
    """scale * elu(x, alpha) with the self-normalising constants (``F.selu``)."""

    def forward(self, input):
        return F.selu(input, self.inplace)


class CELU(_Activation):
    """x where x > 0, else alpha*(e^(x/alpha) - 1) (``F.celu``)."""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__(inplace)
        self.alpha = alpha

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return super().extra_repr(f"alpha={self.alpha}")


class Softsign(Module):
    """x / (1 + |x|) (``F.softsign``)."""

    def forward(self, input):
        return F.softsign(input)


class LogSigmoid(Module):
    """log(sigmoid(x)), computed stably (``F.logsigmoid``)."""

    def forward(self, input):
        return F.logsigmoid(input)


class Tanhshrink(Module):
    """x - tanh(x) (``F.tanhshrink``)."""

    def forward(self, input):
        return F.tanhshrink(input)


class Softmin(Module):
    """softmax(-x) along ``dim`` (``F.softmin``)."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmin(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class GELU(Module):
    """x*Phi(x) (Phi the standard normal CDF), or its tanh approximation (``approximate="tanh"``)."""

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class Softplus(Module):
    """log(1 + e^(beta*x))/beta (x where beta*x > threshold)."""

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class Identity(Module):
    """x."""

    def forward(self, input):
        return input


class Softmax(Module):
    """e^x_i / sum_j e^x_j along ``dim``."""

    def __init__(self, dim=None):   # (None: F.softmax picks the dim, with its warning, as PyTorch)
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    """x_i - log sum_j e^x_j along ``dim``."""

    def forward(self, input):
        return F.log_softmax(input, self.dim)


class _Normalization(Module):
    """What the normalisation layers share: the affine ``weight`` (starting at ones) and ``bias`` (zeros)."""

    def _affine_parameters(self, shape, weight, bias, device, dtype):
        self.register_parameter("weight", Parameter(creation.ones(tuple(shape), dtype=dtype, device=device))
                                if weight else None)
        self.register_parameter("bias", Parameter(creation.zeros(tuple(shape), dtype=dtype, device=device))
                                if bias else None)

    def reset_parameters(self):
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)


class LayerNorm(_Normalization):
    """(x - mean) / sqrt(var + eps) * weight + bias over the last dims (``normalized_shape``), each sample on
    its own; the same in training and evaluation."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, numbers.Integral) else normalized_shape
        self.normalized_shape = tuple(int(n) for n in shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        self._affine_parameters(self.normalized_shape, elementwise_affine, elementwise_affine and bias, device, dtype)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class _BatchNorm(_Normalization):
    """Batch normalisation (``F.batch_norm``) with running statistics as buffers. In ``train()`` each batch is
    normalised by its own mean and variance, and ``running_mean``/``running_var`` follow them (momentum, or a
    plain average of every batch when momentum is None); in ``eval()`` the running statistics are used."""

    _version = 2   # (PyTorch's: version 2 added ``num_batches_tracked``)

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None, *, bias=True):
        super().__init__()
        self.num_features, self.eps, self.momentum = int(num_features), eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self._affine_parameters((self.num_features,), affine, affine and bias, device, dtype)
        if track_running_stats:
            self.register_buffer("running_mean", creation.zeros(self.num_features, dtype=dtype, device=device))
            self.register_buffer("running_var", creation.ones(self.num_features, dtype=dtype, device=device))
            self.register_buffer("num_batches_tracked", creation.tensor(0, dtype="int64", device=device))
        else:
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(name, None)

    def _state_defaults(self, version):
        """A state_dict of a version before 2 (or one rebuilt without ``_metadata``) may lack
        ``num_batches_tracked``: it keeps its value (0 in a fresh layer), as in PyTorch."""
        if (version is None or version < 2) and self.num_batches_tracked is not None:
            return {"num_batches_tracked": self.num_batches_tracked}
        return {}

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        super().reset_parameters()

    def forward(self, input):
        if input.ndim not in self._ndims:
            raise ValueError(f"expected {self._dims} input (got {input.ndim}D input): {type(self).__name__} "
                             f"wants {self._layout}, channels in dim 1")
        counting = self.training and self.track_running_stats and self.num_batches_tracked is not None
        momentum = 0.0 if self.momentum is None else self.momentum
        if counting and self.momentum is None:   # a plain average: the n-th batch counts 1/n
            momentum = 1.0 / (int(self.num_batches_tracked.item()) + 1)
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        keep = not self.training or self.track_running_stats
        out = F.batch_norm(input, self.running_mean if keep else None, self.running_var if keep else None,
                           self.weight, self.bias, use_batch, momentum, self.eps)
        if counting:   # (after the call: one that fails counts nothing)
            self.num_batches_tracked.add_(1)
        return out

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of (N, C) or (N, C, L) input, per channel C (see ``_BatchNorm``)."""

    _ndims, _dims, _layout = (2, 3), "2D or 3D", "(N, C) or (N, C, L)"


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of (N, C, H, W) input, per channel C (see ``_BatchNorm``)."""

    _ndims, _dims, _layout = (4,), "4D", "(N, C, H, W)"


class BatchNorm3d(_BatchNorm):
    """Batch normalisation of (N, C, D, H, W) input, per channel C (see ``_BatchNorm``)."""

    _ndims, _dims, _layout = (5,), "5D", "(N, C, D, H, W)"


class _InstanceNorm(_BatchNorm):
    """Instance normalisation (``F.instance_norm``): each channel of each sample normalised over its positions.
    Without ``track_running_stats`` (the default) training and evaluation are the same; with it, training moves
    the running statistics and evaluation uses them. An unbatched input (one sample) is taken as a batch of one."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def forward(self, input):
        batched = self._unbatched + 1
        if input.ndim not in (self._unbatched, batched):
            raise ValueError(f"expected {self._unbatched}D or {batched}D input (got {input.ndim}D input): "
                             f"{type(self).__name__} wants {self._layout}")
        if input.ndim == self._unbatched:
            return self.forward(input.unsqueeze(0)).squeeze(0)
        if input.shape[1] != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim=1 to match num_features ({self.num_features}), but "
                                 f"got: {input.shape[1]}.")
            warnings.warn("input's size at dim=1 does not match num_features. You can silence this warning by not "
                          "passing in num_features, which is not used because affine=False", stacklevel=2)
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                               self.training or not self.track_running_stats,
                               0.0 if self.momentum is None else self.momentum, self.eps)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of (N, C, L) or (C, L) input (see ``_InstanceNorm``)."""

    _unbatched, _layout = 2, "(N, C, L) or (C, L)"


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of (N, C, H, W) or (C, H, W) input (see ``_InstanceNorm``)."""

    _unbatched, _layout = 3, "(N, C, H, W) or (C, H, W)"


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of (N, C, D, H, W) or (C, D, H, W) input (see ``_InstanceNorm``)."""

    _unbatched, _layout = 4, "(N, C, D, H, W) or (C, D, H, W)"


class _ConvNd(Module):
    """A convolution layer over ``n`` dims (``Conv1d``: 1, ``Conv2d``: 2) with ``out_channels`` learned kernels of
    shape (in_channels/groups, *kernel_size).

    Initialised as PyTorch does: ``kaiming_uniform_(weight, a=sqrt(5))``, i.e. U(-1/sqrt(fan_in), 1/sqrt(fan_in))
    with fan_in = in_channels/groups * the kernel's size, and the bias from the same range."""

    n = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups:
            raise ValueError(f"in_channels must be divisible by groups ({in_channels} channels, {groups} groups)")
        if out_channels % groups:
            raise ValueError(f"out_channels must be divisible by groups ({out_channels} channels, {groups} groups)")
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError(f"padding_mode must be one of 'zeros', 'reflect', 'replicate' or 'circular', but got "
                             f"padding_mode={padding_mode!r}")
        if isinstance(padding, str) and padding not in ("same", "valid"):
            raise ValueError(f"Invalid padding string {padding!r}, should be one of ('valid', 'same')")
        def sizes(value, what, least):
            return convolution._ntuple(value, what, least, self.n)
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size, self.stride = sizes(kernel_size, "kernel_size", 1), sizes(stride, "stride", 1)
        self.padding = padding if isinstance(padding, str) else sizes(padding, "padding", 0)
        self.dilation, self.padding_mode = sizes(dilation, "dilation", 1), padding_mode
        if padding == "same" and self.stride != (1,) * self.n:
            raise ValueError("padding='same' is not supported for strided convolutions")
        # F.pad's (left, right) pairs, last dim first, for a padding_mode other than zeros (PyTorch pads first,
        # then convolves unpadded); 'same' puts the odd one of an even kernel's padding on the right
        if padding == "valid":
            self._mode_padding = (0, 0) * self.n
        elif padding == "same":
            totals = [d * (k - 1) for d, k in zip(self.dilation, self.kernel_size)]
            self._mode_padding = tuple(x for t in reversed(totals) for x in (t // 2, t - t // 2))
        else:
            self._mode_padding = tuple(x for p in reversed(self.padding) for x in (p, p))
        self.weight = Parameter(creation.zeros(out_channels, in_channels // groups, *self.kernel_size, dtype=dtype,
                                               device=device))
        self.register_parameter("bias", Parameter(creation.zeros(out_channels, dtype=dtype, device=device))
                                if bias else None)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_weight_and_bias(self.weight, self.bias)

    def extra_repr(self):
        text = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * self.n:
            text += f", padding={self.padding}"
        if self.dilation != (1,) * self.n:
            text += f", dilation={self.dilation}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        if self.padding_mode != "zeros":
            text += f", padding_mode={self.padding_mode}"
        return text

    def _convolve(self, conv, input):
        if self.padding_mode == "zeros":
            return conv(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)
        # reflect, replicate, circular: pad the input that way, then convolve without padding (as PyTorch)
        return conv(F.pad(input, self._mode_padding, mode=self.padding_mode), self.weight, self.bias, self.stride,
                    0, self.dilation, self.groups)


class Conv1d(_ConvNd):
    """A 1-d convolution (``F.conv1d``) over signals (N, C, L): kernels of shape (in_channels/groups, k).
    ``padding_mode`` 'reflect', 'replicate' or 'circular' pads the input so (``F.pad``) instead of with zeros."""

    n = 1

    def forward(self, input):
        return self._convolve(F.conv1d, input)


class Conv2d(_ConvNd):
    """A 2-d convolution (``F.conv2d``) over images (N, C, H, W): kernels of shape (in_channels/groups, kh, kw).
    ``padding_mode`` 'reflect', 'replicate' or 'circular' pads the input so (``F.pad``) instead of with zeros."""

    def forward(self, input):
        return self._convolve(F.conv2d, input)


class Conv3d(_ConvNd):
    """A 3-d convolution (``F.conv3d``) over volumes (N, C, D, H, W): kernels of shape (in_channels/groups, kd,
    kh, kw). ``padding_mode`` 'reflect', 'replicate' or 'circular' pads the input so (``F.pad``)."""

    n = 3

    def forward(self, input):
        return self._convolve(F.conv3d, input)


class _ConvTransposeNd(Module):
    """A transposed convolution layer over ``n`` dims (``F.conv_transpose2d``, the adjoint of a convolution):
    ``in_channels`` kernels of shape (out_channels/groups, *kernel_size), initialised as PyTorch does (its
    fan_in is then out_channels/groups * the kernel's size). ``forward(input, output_size)`` picks the
    output_padding that gives that size, as PyTorch does."""

    n = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"in_channels and out_channels must be divisible by groups ({in_channels} and "
                             f"{out_channels} channels, {groups} groups)")
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        if isinstance(padding, str):
            raise ValueError(f"{type(self).__name__}: padding must be numbers, not {padding!r} (as in PyTorch)")

        def sizes(value, what, least):
            return convolution._ntuple(value, what, least, self.n)
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size, self.stride = sizes(kernel_size, "kernel_size", 1), sizes(stride, "stride", 1)
        self.padding, self.dilation = sizes(padding, "padding", 0), sizes(dilation, "dilation", 1)
        self.output_padding, self.padding_mode = sizes(output_padding, "output_padding", 0), padding_mode
        self.weight = Parameter(creation.zeros(in_channels, out_channels // groups, *self.kernel_size, dtype=dtype,
                                               device=device))
        self.register_parameter("bias", Parameter(creation.zeros(out_channels, dtype=dtype, device=device))
                                if bias else None)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_weight_and_bias(self.weight, self.bias)

    def _output_padding(self, input, output_size):
        """``output_padding``, or the one that makes the output ``output_size`` (its last ``n`` numbers)."""
        if output_size is None:
            return self.output_padding
        output_size = tuple(int(v) for v in output_size)
        batch_dims = input.ndim - self.n
        if len(output_size) == batch_dims + self.n:
            output_size = output_size[batch_dims:]
        if len(output_size) != self.n:
            raise ValueError(f"ConvTranspose{self.n}D: for {input.ndim}D input, output_size must have {self.n} or "
                             f"{self.n + batch_dims} elements (got {len(output_size)})")
        smallest = [(n - 1) * s - 2 * p + d * (k - 1) + 1 for n, s, p, d, k in
                    zip(input.shape[-self.n:], self.stride, self.padding, self.dilation, self.kernel_size)]
        largest = [lo + s - 1 for lo, s in zip(smallest, self.stride)]
        if any(not lo <= want <= hi for want, lo, hi in zip(output_size, smallest, largest)):
            raise ValueError(f"requested an output size of {list(output_size)}, but valid sizes range from "
                             f"{smallest} to {largest} (for an input of {list(input.shape[-self.n:])})")
        return tuple(want - lo for want, lo in zip(output_size, smallest))

    def extra_repr(self):
        text = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * self.n:
            text += f", padding={self.padding}"
        if self.dilation != (1,) * self.n:
            text += f", dilation={self.dilation}"
        if self.output_padding != (0,) * self.n:
            text += f", output_padding={self.output_padding}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        return text


class ConvTranspose1d(_ConvTransposeNd):
    """A 1-d transposed convolution (``F.conv_transpose1d``) over signals (N, C, L)."""

    n = 1

    def forward(self, input, output_size=None):
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups, self.dilation)


class ConvTranspose2d(_ConvTransposeNd):
    """A 2-d transposed convolution (``F.conv_transpose2d``) over images (N, C, H, W): it upsamples by ``stride``."""

    def forward(self, input, output_size=None):
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups, self.dilation)


class ConvTranspose3d(_ConvTransposeNd):
    """A 3-d transposed convolution (``F.conv_transpose3d``) over volumes (N, C, D, H, W)."""

    n = 3

    def forward(self, input, output_size=None):
        return F.conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups, self.dilation)


class GroupNorm(_Normalization):
    """Normalise each group of ``num_channels / num_groups`` channels of each sample (``F.group_norm``); the
    same in training and evaluation."""

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        self._affine_parameters((num_channels,), affine, affine and bias, device, dtype)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class AdaptiveAvgPool2d(Module):
    """The mean of windows chosen so the output is ``output_size`` (``F.adaptive_avg_pool2d``); ``1`` gives
    global average pooling."""

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(AdaptiveAvgPool2d):
    """:class:`AdaptiveAvgPool2d` along the last dim of a signal (``F.adaptive_avg_pool1d``)."""

    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveMaxPool2d(Module):
    """The largest value of windows chosen so the output is ``output_size`` (``F.adaptive_max_pool2d``)."""

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool3d(AdaptiveAvgPool2d):
    """:class:`AdaptiveAvgPool2d` over volumes (``F.adaptive_avg_pool3d``)."""

    def forward(self, input):
        return F.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool3d(AdaptiveMaxPool2d):
    """:class:`AdaptiveMaxPool2d` over volumes (``F.adaptive_max_pool3d``)."""

    def forward(self, input):
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool1d(AdaptiveMaxPool2d):
    """:class:`AdaptiveMaxPool2d` along the last dim of a signal (``F.adaptive_max_pool1d``)."""

    def forward(self, input):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class _MaxPoolNd(Module):
    """The largest value of each ``kernel_size`` window; stride defaults to the kernel size."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool2d(_MaxPoolNd):
    """The largest value of each ``kernel_size`` window of an image (``F.max_pool2d``)."""

    def forward(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                            self.return_indices)


class _MaxUnpoolNd(Module):
    """Max pooling's values put back where its indices say, zeros elsewhere; stride defaults to the kernel size.
    ``forward(input, indices, output_size=None)``."""

    n = 2

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        def sizes(value, what, least):
            return convolution._ntuple(value, what, least, self.n)
        self.kernel_size = sizes(kernel_size, "kernel_size", 1)
        self.stride = self.kernel_size if stride is None else sizes(stride, "stride", 1)
        self.padding = sizes(padding, "padding", 0)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """``F.max_unpool1d``: ``MaxPool1d(..., return_indices=True)``'s values back in place, zeros elsewhere."""

    n = 1

    def forward(self, input, indices, output_size=None):
        return F.max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool2d(_MaxUnpoolNd):
    """``F.max_unpool2d``: ``MaxPool2d(..., return_indices=True)``'s values back in place, zeros elsewhere."""

    def forward(self, input, indices, output_size=None):
        return F.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class MaxUnpool3d(_MaxUnpoolNd):
    """``F.max_unpool3d``: ``MaxPool3d(..., return_indices=True)``'s values back in place, zeros elsewhere."""

    n = 3

    def forward(self, input, indices, output_size=None):
        return F.max_unpool3d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


class AvgPool2d(Module):
    """The mean of each ``kernel_size`` window (``F.avg_pool2d``); stride defaults to the kernel size."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input):
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxPool1d(_MaxPoolNd):
    """The largest value of each ``kernel_size`` window of the last dim (``F.max_pool1d``)."""

    def forward(self, input):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                            self.return_indices)


class MaxPool3d(_MaxPoolNd):
    """The largest value of each ``kernel_size`` window of a volume (``F.max_pool3d``)."""

    def forward(self, input):
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode,
                            self.return_indices)


class AvgPool3d(AvgPool2d):
    """The mean of each ``kernel_size`` window of a volume (``F.avg_pool3d``); stride defaults to the kernel."""

    def forward(self, input):
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class AvgPool1d(Module):
    """The mean of each ``kernel_size`` window of the last dim (``F.avg_pool1d``); stride defaults to the kernel."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        single = convolution._single
        self.kernel_size = (single(kernel_size, "kernel_size", 1),)
        self.stride = self.kernel_size if stride is None else (single(stride, "stride", 1),)
        self.padding = (single(padding, "padding", 0),)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class Unfold(Module):
    """Every sliding block of an image as a column: (N, C, H, W) -> (N, C*kh*kw, L) (see
    ``functional.unfold``)."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, "
                f"stride={self.stride}")


class Fold(Module):
    """Columns put back as blocks of an image, overlaps summed: (N, C*kh*kw, L) -> (N, C, H, W) (see
    ``functional.fold``)."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input):
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class Flatten(Module):
    """Dims ``start_dim`` to ``end_dim`` made one (by default all but the batch dim: (N, C, H, W) -> (N, C*H*W))."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Dim ``dim`` made several, of sizes ``unflattened_size`` (one may be -1, inferred): Flatten's inverse,
    e.g. Unflatten(1, (C, H, W)) takes (N, C*H*W) to (N, C, H, W)."""

    def __init__(self, dim, unflattened_size):
        super().__init__()
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError(f"unflattened_size must be a tuple of ints, but found type "
                            f"{type(unflattened_size).__name__}")
        for i, size in enumerate(unflattened_size):
            if not isinstance(size, int):
                raise TypeError(f"unflattened_size must be tuple of ints, but found element of type "
                                f"{type(size).__name__} at pos {i}")
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, input):
        d = input.dim() + self.dim if self.dim < 0 else self.dim
        if not 0 <= d < input.dim():
            raise IndexError(f"Unflatten: dim {self.dim} is out of range for an input of {input.dim()} dims "
                             f"(shape {tuple(input.shape)})")
        sizes, n = list(self.unflattened_size), input.shape[d]
        if not sizes:
            raise RuntimeError("Unflatten: unflattened_size must be non-empty")
        known = math.prod(k for k in sizes if k != -1)
        if -1 in sizes and known and n % known == 0:   # (the -1 is n / the others, checked here, not by reshape:
            sizes[sizes.index(-1)] = n // known        # an empty tensor would let any sizes through)
        if math.prod(sizes) != n or min(sizes) < 0:
            raise RuntimeError(f"unflatten: Provided sizes {list(self.unflattened_size)} don't multiply up to the "
                               f"size of dim {d} ({n}) in the input tensor of shape {tuple(input.shape)}")
        return input.reshape(tuple(input.shape[:d]) + tuple(sizes) + tuple(input.shape[d + 1:]))

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class _ConstantPadNd(Module):
    """``F.pad`` with a constant around the last dims; ``padding`` an int (every side) or one amount per side."""

    def __init__(self, padding, value, sides):
        super().__init__()
        self.padding = tuple(padding) if isinstance(padding, (tuple, list)) else (padding,) * sides
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """``value`` added around the last dim: ``padding`` = (left, right), or an int for both."""

    def __init__(self, padding, value):
        super().__init__(padding, value, 2)


class ConstantPad2d(_ConstantPadNd):
    """``value`` added around the last two dims: ``padding`` = (left, right, top, bottom), or an int for all."""

    def __init__(self, padding, value):
        super().__init__(padding, value, 4)


class ZeroPad1d(ConstantPad1d):
    """Zeros added around the last dim (``ConstantPad1d`` with value 0)."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Zeros added around the last two dims (``ConstantPad2d`` with value 0)."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class _IndexPadNd(Module):
    """``F.pad`` with ``mode`` around the last dims; ``padding`` an int (every side) or one amount per side."""

    mode, sides = "constant", 2   # (each subclass: its mode, and 2 sides for 1-d, 4 for 2-d)

    def __init__(self, padding):
        super().__init__()
        self.padding = tuple(padding) if isinstance(padding, (tuple, list)) else (padding,) * self.sides

    def forward(self, input):
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self):
        return f"{self.padding}"


class ReflectionPad1d(_IndexPadNd):
    """The last dim mirrored at its ends, the edge not repeated: [1, 2, 3] padded by 2 is [3, 2, 1, 2, 3, 2, 1]."""

    mode, sides = "reflect", 2


class ReflectionPad2d(_IndexPadNd):
    """The last two dims mirrored at their edges (``ReflectionPad1d`` along each); padding (left, right, top,
    bottom)."""

    mode, sides = "reflect", 4


class ReplicationPad1d(_IndexPadNd):
    """The last dim's end elements repeated: [1, 2, 3] padded by 2 is [1, 1, 1, 2, 3, 3, 3]."""

    mode, sides = "replicate", 2


class ReplicationPad2d(_IndexPadNd):
    """The nearest edge element of the last two dims repeated; padding (left, right, top, bottom)."""

    mode, sides = "replicate", 4


class CircularPad1d(_IndexPadNd):
    """The last dim wrapped around: [1, 2, 3] padded by 2 is [2, 3, 1, 2, 3, 1, 2]."""

    mode, sides = "circular", 2


class CircularPad2d(_IndexPadNd):
    """The last two dims wrapped around, as on a torus; padding (left, right, top, bottom)."""

    mode, sides = "circular", 4


class _DropoutNd(Module):
    """Dropout's settings: the probability ``p`` (checked) and ``inplace``."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Randomly zero elements with probability ``p`` while training (``model.train()``); identity in ``eval()``."""

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Randomly zero whole channels (N, C, H, W)[n, c] with probability ``p`` while training (``F.dropout2d``);
    identity in ``eval()``."""

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class _Numbered:
    """List methods over a container's children, as PyTorch's containers have them: after an insert or a
    delete the children are renumbered 0, 1, 2, ...; ``c[i] = m`` keeps the name at i."""

    def _renumber(self, modules):
        self._modules.clear()
        for i, m in enumerate(modules):
            self.add_module(str(i), m)

    def insert(self, index, module):
        n = len(self._modules)
        if isinstance(self, Sequential) and not -n <= index <= n:   # (a ModuleList inserts as a list does)
            raise IndexError(f"Index out of range: {index} (this {type(self).__name__} has {n} modules)")
        if not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._renumber(modules)
        return self if isinstance(self, Sequential) else None   # (PyTorch's: Sequential's returns itself)

    def __setitem__(self, index, module):
        self.add_module(list(self._modules)[index], module)

    def __delitem__(self, index):
        modules = list(self._modules.values())
        del modules[index]
        self._renumber(modules)

    def pop(self, index=-1):
        module = list(self._modules.values())[index]
        del self[index]
        return module

    def extend(self, modules):
        for m in modules:
            self.append(m)
        return self


class ModuleList(_Numbered, Module):
    """A list of modules whose parameters the parent sees (a plain Python list would hide them)."""

    def __init__(self, modules=()):
        super().__init__()
        for m in modules:
            self.append(m)

    def append(self, module):
        self.add_module(str(len(self._modules)), module)
        return self

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        return ModuleList(list(self) + list(other))

    def __getitem__(self, index):
        items = list(self._modules.values())
        return ModuleList(items[index]) if isinstance(index, slice) else items[index]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ModuleList has no forward: iterate over it in your module's forward")

    def __repr__(self):
        """As PyTorch prints it: a run of neighbours that print alike is one entry, ``(0-5): 6 x Layer(...)``."""
        if not self._modules:
            return f"{type(self).__name__}()"
        runs = []   # [first index, last index, repr]
        for i, module in enumerate(self._modules.values()):
            text = repr(module)
            if runs and runs[-1][2] == text:
                runs[-1][1] = i
            else:
                runs.append([i, i, text])
        lines = [f"  ({a}): {text}" if a == b else f"  ({a}-{b}): {b - a + 1} x {text}" for a, b, text in runs]
        return f"{type(self).__name__}(\n" + "\n".join(line.replace("\n", "\n  ") for line in lines) + "\n)"


class _DictAccess:
    """A dict's reading side, and ``del`` / ``pop`` / ``clear``, over one of a module's stores (``_store``: the
    name of that dict, ``"_modules"`` or ``"_parameters"``); each container says how a value goes in."""

    _store = ""

    def __getitem__(self, key):
        return getattr(self, self._store)[key]

    def __delitem__(self, key):
        del getattr(self, self._store)[key]

    def __len__(self):
        return len(getattr(self, self._store))

    def __iter__(self):
        return iter(getattr(self, self._store))

    def __contains__(self, key):
        return key in getattr(self, self._store)

    def keys(self):
        return getattr(self, self._store).keys()

    def items(self):
        return getattr(self, self._store).items()

    def values(self):
        return getattr(self, self._store).values()

    def pop(self, key):
        return getattr(self, self._store).pop(key)

    def clear(self):
        getattr(self, self._store).clear()


class ModuleDict(_DictAccess, Module):
    """A dict of modules whose parameters the parent sees, in insertion order (``d["encoder"]``, ``d.items()``)."""

    _store = "_modules"

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def update(self, modules):
        """Add (or replace) modules from a mapping or from ``(name, module)`` pairs."""
        for i, item in enumerate(modules.items() if hasattr(modules, "items") else modules):
            if len(item) != 2:
                raise ValueError(f"ModuleDict update sequence element #{i} has length {len(item)}; 2 is required "
                                 f"(a (name, module) pair)")
            self[item[0]] = item[1]

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ModuleDict has no forward: call its modules in your module's forward")


class _ParameterContainer(Module):
    @staticmethod
    def _as_parameter(value):
        """A Tensor that is not a Parameter becomes one (sharing its data), as in PyTorch."""
        if isinstance(value, Parameter) or value is None:
            return value
        if isinstance(value, Tensor):
            return Parameter(value, requires_grad=value.requires_grad or value.dtype.kind == "f")
        raise TypeError(f"{type(value).__name__} is not a Tensor: a parameter container holds Parameters")

    def extra_repr(self):
        return "\n".join(f"({name}): Parameter containing: [{p.dtype.name} of size "
                         f"{'x'.join(map(str, p.shape)) or '()'}]" for name, p in self._parameters.items()
                         if p is not None)

    def __repr__(self):
        body = self.extra_repr()
        return f"{type(self).__name__}(" + ("\n    " + body.replace("\n", "\n    ") + "\n" if body else "") + ")"

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} has no forward: use its parameters in your module's "
                                  f"forward")


class ParameterList(_ParameterContainer):
    """A list of Parameters the parent sees (``plist[0]``, ``plist.append(p)``); a plain Tensor becomes one."""

    def __init__(self, values=None):
        super().__init__()
        for value in values or ():
            self.append(value)

    def append(self, value):
        self.register_parameter(str(len(self._parameters)), self._as_parameter(value))
        return self

    def extend(self, values):
        if isinstance(values, Tensor) or not hasattr(values, "__iter__"):
            raise TypeError(f"ParameterList.extend should be called with an iterable, but got "
                            f"{type(values).__name__} (a tensor is one value: append it)")
        for value in values:
            self.append(value)
        return self

    __iadd__ = extend

    def __getitem__(self, index):
        items = list(self._parameters.values())
        return ParameterList(items[index]) if isinstance(index, slice) else items[index]

    def __setitem__(self, index, value):
        n = len(self._parameters)
        if not -n <= index < n:
            raise IndexError(f"index {index} is out of range for a ParameterList of {n}")
        self.register_parameter(str(index % n), self._as_parameter(value))

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters.values())


class ParameterDict(_DictAccess, _ParameterContainer):
    """A dict of Parameters the parent sees (``pdict["scale"]``); a plain Tensor becomes one."""

    _store = "_parameters"

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __setitem__(self, key, value):
        self.register_parameter(key, self._as_parameter(value))

    def update(self, parameters):
        """Add (or replace) parameters from a mapping or from ``(name, tensor)`` pairs; a plain ``dict`` is taken in
        the order of its sorted keys, as PyTorch takes it (an ``OrderedDict`` or pairs keep their order)."""
        if type(parameters) is dict:
            items = sorted(parameters.items())
        else:
            items = list(parameters.items() if hasattr(parameters, "items") else parameters)
        for key, value in items:
            self[key] = value

    def get(self, key, default=None):
        return self._parameters.get(key, default)

    def setdefault(self, key, default=None):
        if key not in self._parameters:
            self[key] = default
        return self._parameters[key]


class Sequential(_Numbered, Module):
    """Modules applied one after another: ``Sequential(a, b, c)(x) == c(b(a(x)))``.

    Also takes an ``OrderedDict`` of named modules; ``seq[i]`` and ``len(seq)`` work.
    """

    def __init__(self, *modules):
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], OrderedDict):
            for name, m in modules[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(modules):
                self.add_module(str(i), m)

    def forward(self, input):
        for m in self._modules.values():
            input = m(input)
        return input

    def __getitem__(self, index):
        items = list(self._modules.values())
        if isinstance(index, slice):   # (the modules keep their names, and the class if it is built as ours)
            kind = type(self) if type(self).__init__ is Sequential.__init__ else Sequential
            return kind(OrderedDict(list(self._modules.items())[index]))
        if not -len(items) <= index < len(items):
            raise IndexError(f"index {index} is out of range: this Sequential has {len(items)} modules")
        return items[index]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def __add__(self, other):
        """A new Sequential of this one's modules, then ``other``'s (the same module objects)."""
        return Sequential(*self, *_sequential(other, "+"))

    def __iadd__(self, other):
        return self.extend(_sequential(other, "+="))

    def __mul__(self, times):
        """A new Sequential of this one's modules ``times`` times over (the same module objects, so their
        parameters are shared: ``copy.deepcopy`` each for layers of their own)."""
        return Sequential(*(list(self) * _factor(self, times)))

    __rmul__ = __mul__

    def __imul__(self, times):
        return self.extend(list(self) * (_factor(self, times) - 1))


def _sequential(other, op):
    if not isinstance(other, Sequential):
        raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given "
                         f"(Sequential {op} Sequential)")
    return list(other)


def _factor(seq, times):
    if not isinstance(times, int) or isinstance(times, bool):
        raise TypeError(f"unsupported operand type(s) for *: {type(seq)} and {type(times)}")
    if times <= 0:
        raise ValueError(f"Non-positive multiplication factor {times} for {type(seq)}")
    return times


_ACTIVATIONS = {"relu": ReLU, "tanh": Tanh, "sigmoid": Sigmoid}


class MLP(Sequential):
    """A multi-layer perceptron: ``MLP([2, 32, 32, 2])`` is
    Linear(2, 32), act, Linear(32, 32), act, Linear(32, 2); no activation after the last layer,
    so the output is logits (for cross_entropy) or raw values (for mse_loss).

    ``activation``: "relu", "tanh", "sigmoid", or a Module class such as ``nn.ReLU``.
    """

    def __init__(self, sizes, activation="relu", bias=True):
        sizes = [int(s) for s in sizes]
        if len(sizes) < 2:
            raise ValueError(f"MLP needs at least an input and an output size, got sizes={sizes}")
        if isinstance(activation, str):
            if activation.lower() not in _ACTIVATIONS:
                raise ValueError(f"MLP: unknown activation {activation!r}; use one of {sorted(_ACTIVATIONS)} "
                                 f"or pass a Module class")
            activation = _ACTIVATIONS[activation.lower()]
        layers = []
        for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
            layers.append(Linear(n_in, n_out, bias=bias))
            if i < len(sizes) - 2:
                layers.append(activation())
        super().__init__(*layers)
        self.sizes = sizes


class _Loss(Module):
    """A loss as a module: ``reduction`` (or PyTorch's deprecated ``size_average``/``reduce``, read as it reads
    them), and the class weights as a buffer (saved with the model, moved and cast by ``.to()``)."""

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.reduction = legacy_reduction(size_average, reduce, reduction, type(self).__name__)

    def extra_repr(self):
        return ""   # (PyTorch's losses show no settings: MSELoss(reduction='sum') prints as MSELoss())


class MSELoss(_Loss):
    """mean (x - y)^2 (see ``functional.mse_loss``)."""

    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """mean |x - y| (see ``functional.l1_loss``)."""

    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class HuberLoss(_Loss):
    """mean of d^2/2 where |d| < delta, else delta*(|d| - delta/2), d = x - y (see ``functional.huber_loss``)."""

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class SmoothL1Loss(_Loss):
    """mean of d^2/(2*beta) where |d| < beta, else |d| - beta/2 (see ``functional.smooth_l1_loss``)."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class BCELoss(_Loss):
    """mean of -[y log x + (1-y) log(1 - x)] for probabilities x (see ``functional.binary_cross_entropy``)."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)

    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, self.weight, reduction=self.reduction)


class NLLLoss(_Loss):
    """mean -w[y] * logp[y] for log-probabilities (N, C) and class indices (N,) (see ``functional.nll_loss``)."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, self.weight, ignore_index=self.ignore_index, reduction=self.reduction)


class CrossEntropyLoss(_Loss):
    """mean -log softmax(x)[y] for logits (N, C) and class indices (N,) (see ``functional.cross_entropy``)."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                 label_smoothing=0.0):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, self.weight, ignore_index=self.ignore_index, reduction=self.reduction,
                               label_smoothing=self.label_smoothing)


class BCEWithLogitsLoss(_Loss):
    """mean of -[p*y log s(x) + (1-y) log(1 - s(x))], computed stably from logits x (see
    ``functional.binary_cross_entropy_with_logits``)."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight, reduction=self.reduction,
                                                  pos_weight=self.pos_weight)


class KLDivLoss(_Loss):
    """KL(target || model) from log-probabilities, t*(log t - x) per element (see ``functional.kl_div``)."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        # ('batchmean' is KLDivLoss's own; the deprecated flags, when given, replace it, as in PyTorch)
        super().__init__(size_average, reduce, "mean" if reduction == "batchmean" else reduction)
        if reduction == "batchmean" and size_average is None and reduce is None:
            self.reduction = "batchmean"
        self.log_target = log_target

    def forward(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class MarginRankingLoss(_Loss):
    """mean max(0, -y*(x1 - x2) + margin) (see ``functional.margin_ranking_loss``)."""

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.margin_ranking_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class HingeEmbeddingLoss(_Loss):
    """mean of x where y = 1, max(0, margin - x) where y = -1 (see ``functional.hinge_embedding_loss``)."""

    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input, target):
        return F.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class PoissonNLLLoss(_Loss):
    """mean of e^x - y x, the Poisson negative log-likelihood (see ``functional.poisson_nll_loss``)."""

    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input, target):
        return F.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full, eps=self.eps,
                                  reduction=self.reduction)


class CTCLoss(_Loss):
    """-log p(target | input) summed over every alignment (see ``functional.ctc_loss``): speech and handwriting
    models whose output is longer than its label sequence. ``forward(log_probs, targets, input_lengths,
    target_lengths)``."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(None, None, reduction)
        self.blank, self.zero_infinity = blank, zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank, self.reduction,
                          self.zero_infinity)


class GaussianNLLLoss(_Loss):
    """mean of (log var + (x - y)^2 / var) / 2 (see ``functional.gaussian_nll_loss``)."""

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(None, None, reduction)
        self.full, self.eps = full, eps

    def forward(self, input, target, var):
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps, reduction=self.reduction)


class SoftMarginLoss(_Loss):
    """mean of log(1 + e^(-y x)) (see ``functional.soft_margin_loss``)."""

    def forward(self, input, target):
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_Loss):
    """per-class binary cross-entropy of logits, averaged over classes (see
    ``functional.multilabel_soft_margin_loss``)."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)

    def forward(self, input, target):
        return F.multilabel_soft_margin_loss(input, target, weight=self.weight, reduction=self.reduction)


class MultiMarginLoss(_Loss):
    """the multi-class hinge, sum over j != y of max(0, margin - x[y] + x[j])^p / C (see
    ``functional.multi_margin_loss``)."""

    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError(f"MultiMarginLoss: only p == 1 and p == 2 supported, got p={p}")
        self.p, self.margin = p, margin
        self.register_buffer("weight", weight)

    def forward(self, input, target):
        return F.multi_margin_loss(input, target, p=self.p, margin=self.margin, weight=self.weight,
                                   reduction=self.reduction)


class CosineEmbeddingLoss(_Loss):
    """mean of 1 - cos(x1, x2) where y = 1, max(0, cos(x1, x2) - margin) where y = -1 (see
    ``functional.cosine_embedding_loss``)."""

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return F.cosine_embedding_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """mean max(0, d(a, p) - d(a, n) + margin), d the p-norm distance (see ``functional.triplet_margin_loss``)."""

    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        if not margin > 0:   # (refused when built, as in PyTorch)
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead; give "
                             f"a positive margin such as 1.0")
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p, eps=self.eps,
                                     swap=self.swap, reduction=self.reduction)
