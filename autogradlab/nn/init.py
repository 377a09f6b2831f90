"""Weight initialisation, in place, with PyTorch's formulas.

Every function overwrites the tensor's values with fresh ones drawn from the one
seeded generator (``autogradlab.manual_seed``), records no graph (so it works on
parameters that require grad, inside or outside ``no_grad``) and returns the tensor.

For a weight of shape ``(fan_out, fan_in, *kernel)``: ``fan_in = shape[1] * prod(kernel)``,
``fan_out = shape[0] * prod(kernel)``.
"""
from __future__ import annotations

import math
import warnings

import numpy

from .. import backend, creation
from ..tensor import Tensor

__all__ = ["calculate_gain", "uniform_", "normal_", "constant_", "zeros_", "ones_", "xavier_uniform_",
           "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "trunc_normal_", "orthogonal_", "eye_", "dirac_",
           "sparse_"]


def _fill(tensor, host_values):
    """Write host values into the tensor's memory (on its device, in its dtype)."""
    tensor._data[...] = backend.asarray(numpy.asarray(host_values), tensor.device, tensor.dtype)
    tensor._vc[0] += 1
    return tensor


def calculate_gain(nonlinearity, param=None):
    """The factor that keeps activations' variance steady through ``nonlinearity``:
    linear/sigmoid 1, tanh 5/3, relu sqrt(2), leaky_relu sqrt(2 / (1 + slope^2)), selu 3/4."""
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid", "identity")
    if nonlinearity in linear:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity!r}: use linear, sigmoid, tanh, relu, "
                     f"leaky_relu or selu")


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.ndim < 2:
        raise ValueError(f"Fan in and fan out can not be computed for tensor with fewer than 2 dimensions "
                         f"(this one has shape {tuple(tensor.shape)})")
    receptive_field = int(numpy.prod(tensor.shape[2:])) if tensor.ndim > 2 else 1
    return tensor.shape[1] * receptive_field, tensor.shape[0] * receptive_field


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill with samples of U(a, b) (from ``generator``, an ``autogradlab.Generator``; None: the library's)."""
    return _fill(tensor, creation.generator(generator).uniform(a, b, size=tensor.shape))


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill with samples of N(mean, std^2)."""
    return _fill(tensor, creation.generator(generator).normal(mean, std, size=tensor.shape))


def constant_(tensor, val):
    """Fill with ``val``."""
    return _fill(tensor, numpy.full(tensor.shape, val))


def zeros_(tensor):
    return constant_(tensor, 0.0)


def ones_(tensor):
    return constant_(tensor, 1.0)


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """U(-a, a) with a = gain * sqrt(6 / (fan_in + fan_out))  (Glorot & Bengio, 2010)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std  # a uniform on [-a, a] has standard deviation a / sqrt(3)
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """N(0, std^2) with std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """U(-bound, bound) with bound = gain * sqrt(3 / fan)  (He et al., 2015);
    ``fan`` is fan_in or fan_out (``mode``), gain = calculate_gain(nonlinearity, a)."""
    if 0 in tensor.shape:
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """N(0, std^2) with std = gain / sqrt(fan)."""
    if 0 in tensor.shape:
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)


_ERFC = numpy.frompyfunc(math.erfc, 1, 1)


def _normal_cdf(x):
    """Phi(x) = erfc(-x / sqrt 2) / 2, precise far into the lower tail (for arrays too)."""
    if isinstance(x, numpy.ndarray):
        return 0.5 * _ERFC(-x / math.sqrt(2.0)).astype(numpy.float64)
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """N(mean, std^2) truncated to [a, b] (absolute bounds, as PyTorch's). Where most draws land inside
    (the usual a = -2, b = 2 around a mean of 0), draws outside are drawn again; otherwise each value is
    Phi^-1(u) for u uniform between Phi(alpha) and Phi(beta) (Phi the standard normal's distribution
    function, alpha and beta the standardized bounds; an upper tail is drawn as the mirror of a lower one, where
    Phi keeps its digits), inverted by bisection. Like PyTorch's, it warns when the mean lies more than 2 std
    outside [a, b]."""
    if not a < b:
        raise ValueError(f"trunc_normal_: the bounds must satisfy a < b, got a={a}, b={b}")
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may "
                      "be incorrect.", UserWarning, stacklevel=2)
    rng, shape = creation.generator(generator), tensor.shape
    if std <= 0:
        return _fill(tensor, numpy.full(shape, min(max(mean, a), b)))
    alpha, beta = (a - mean) / std, (b - mean) / std
    if _normal_cdf(beta) - _normal_cdf(alpha) >= 0.3:   # rejection: exact, and few draws are redrawn
        values, outside = numpy.empty(shape), numpy.ones(shape, dtype=bool)
        while outside.any():
            values[outside] = rng.normal(mean, std, size=int(outside.sum()))
            outside = (values < a) | (values > b)
        return _fill(tensor, values)
    mirror = alpha > 0                              # an upper tail: draw -x from [-beta, -alpha]
    lo_bound, hi_bound = (-beta, -alpha) if mirror else (alpha, beta)
    target = rng.uniform(_normal_cdf(lo_bound), _normal_cdf(hi_bound), size=shape)
    lo, hi = numpy.full(shape, max(lo_bound, -40.0)), numpy.full(shape, min(hi_bound, 40.0))
    for _ in range(64):                             # bisection on Phi(x) = target
        mid = (lo + hi) / 2
        below = _normal_cdf(mid) < target
        lo, hi = numpy.where(below, mid, lo), numpy.where(below, hi, mid)
    x = (lo + hi) / 2
    return _fill(tensor, numpy.clip(mean + std * (-x if mirror else x), a, b))


def orthogonal_(tensor, gain=1.0, generator=None):
    """A (semi-)orthogonal matrix times ``gain`` (Saxe et al., 2013): the Q of the QR decomposition of a normal
    draw, its columns' signs fixed by R's diagonal so that Q is uniformly distributed. Dims after the first
    are flattened into columns."""
    if tensor.ndim < 2:
        raise ValueError(f"Only tensors with 2 or more dimensions are supported (this one has shape "
                         f"{tuple(tensor.shape)})")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = creation.generator(generator).normal(0.0, 1.0, size=(rows, cols))
    if rows < cols:
        flat = flat.T
    q, r = numpy.linalg.qr(flat)
    q *= numpy.sign(numpy.diag(r))
    if rows < cols:
        q = q.T
    return _fill(tensor, gain * q.reshape(tensor.shape))


def eye_(tensor):
    """The identity matrix (ones on the main diagonal of a 2-D tensor, also a rectangular one)."""
    if tensor.ndim != 2:
        raise ValueError(f"Only tensors with 2 dimensions are supported (this one has shape {tuple(tensor.shape)})")
    return _fill(tensor, numpy.eye(*tensor.shape))


def dirac_(tensor, groups=1):
    """A convolution weight that passes its input through: a 1 at the kernel's centre linking input channel i
    to output channel i (within each of ``groups``), zeros elsewhere."""
    if tensor.ndim not in (3, 4, 5):
        raise ValueError(f"Only tensors with 3, 4, or 5 dimensions are supported (this one has shape "
                         f"{tuple(tensor.shape)})")
    if tensor.shape[0] % groups != 0:
        raise ValueError(f"dim 0 must be divisible by groups (shape {tuple(tensor.shape)}, groups={groups})")
    per_group = tensor.shape[0] // groups
    values = numpy.zeros(tensor.shape)
    centre = tuple(n // 2 for n in tensor.shape[2:])
    for g in range(groups):
        for d in range(min(per_group, tensor.shape[1])):
            values[(g * per_group + d, d) + centre] = 1
    return _fill(tensor, values)


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """N(0, std^2), then in each column ``ceil(sparsity * rows)`` entries, chosen at random, set to 0
    (Martens, 2010). 2-D tensors only."""
    if tensor.ndim != 2:
        raise ValueError(f"Only tensors with 2 dimensions are supported (this one has shape {tuple(tensor.shape)})")
    rows, cols = tensor.shape
    rng = creation.generator(generator)
    values = rng.normal(0.0, std, size=(rows, cols))
    zeros = int(math.ceil(sparsity * rows))
    for c in range(cols):
        values[rng.permutation(rows)[:zeros], c] = 0
    return _fill(tensor, values)



def _old_name(initializer):
    """PyTorch's name without the trailing underscore, from before the in-place names: the same initializer,
    with PyTorch's FutureWarning that the name is deprecated."""
    new, old = initializer.__name__, initializer.__name__[:-1]

    def deprecated(*args, **kwargs):
        warnings.warn(f"`nn.init.{old}` is now deprecated in favor of `nn.init.{new}`.", FutureWarning, stacklevel=2)
        return initializer(*args, **kwargs)
    deprecated.__name__ = deprecated.__qualname__ = old
    deprecated.__doc__ = f"The deprecated name of :func:`{new}` (it warns, and does the same)."
    return deprecated


uniform, normal, constant, eye, dirac = (_old_name(f) for f in (uniform_, normal_, constant_, eye_, dirac_))
xavier_uniform, xavier_normal = _old_name(xavier_uniform_), _old_name(xavier_normal_)
kaiming_uniform, kaiming_normal = _old_name(kaiming_uniform_), _old_name(kaiming_normal_)
orthogonal, sparse = _old_name(orthogonal_), _old_name(sparse_)
