"""Fractional max pooling (Graham, 2014, https://arxiv.org/abs/1412.6071), as ``torch.nn.functional``'s
``fractional_max_pool2d`` / ``fractional_max_pool3d`` and the modules ``FractionalMaxPool2d`` /
``FractionalMaxPool3d``.

The windows have a fixed size k, but their starts step by a pseudo-random amount, so an input of n elements
shrinks to any m outputs (m + k - 1 <= n), not only to n / stride. Along one dim, with u a number in [0, 1)
drawn once per (sample, channel), alpha = (n - k) / (m - 1) and

    start[i] = floor((i + u) * alpha) - floor(u * alpha)      for i < m - 1,      start[m - 1] = n - k,

computed in the input's dtype, as PyTorch computes it (``_random_samples`` of shape (N, C, 2) or (N, C, 3)
holds the u's: for 2-d, u[0] steps along the width and u[1] along the height; for 3-d, u[0], u[1], u[2] along
time, height and width). Output j is the largest element of the window that starts at start[j].

The starts are found on the host (they are small integer tables), every window is read with ``gather``, and
the element each output takes is read with ``gather`` again, so the gradient (and its gradient) comes from the
engine: each output's gradient goes back to the element it came from, and adds up where windows overlap."""
from __future__ import annotations

import numbers

import numpy

from .. import backend, creation
from ..ops import elementwise as E
from ..ops import reduce as R
from ..ops import shape as S
from ..tensor import Tensor
from .module import Module

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d", "fractional_max_pool2d_with_indices",
           "fractional_max_pool3d_with_indices", "FractionalMaxPool2d", "FractionalMaxPool3d"]

_DIM_NAMES = {2: ("height", "width"), 3: ("time", "height", "width")}


# -- the functions --------------------------------------------------------------------------------------------

def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """``out[n, c, i, j] = max of x[n, c, rows[i] : rows[i] + kh, cols[j] : cols[j] + kw]`` with the pseudo-random
    starts of the module docstring; returns ``(out, indices)``, indices = ``row * W + col`` of each maximum
    (int64), whatever ``return_indices`` says. Input (N, C, H, W) or (C, H, W); ``output_ratio`` r gives the
    output size ``int(H * r[0]), int(W * r[1])``."""
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, _random_samples, 2)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """:func:`fractional_max_pool2d_with_indices` over (N, C, T, H, W) or (C, T, H, W): windows of
    ``kt x kh x kw`` with pseudo-random starts along each dim; indices = ``(t * H + h) * W + w``."""
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, _random_samples, 3)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """The maximum of each ``kh x kw`` window, the windows placed with pseudo-random steps so that the output is
    ``output_size`` (or ``output_ratio`` times the input's size). ``return_indices=True``: ``(out, indices)``."""
    out = fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio, return_indices,
                                             _random_samples)
    return out if return_indices else out[0]


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """:func:`fractional_max_pool2d` in three dims: the maximum of each ``kt x kh x kw`` window."""
    out = fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio, return_indices,
                                             _random_samples)
    return out if return_indices else out[0]


# -- checks, in PyTorch's order -------------------------------------------------------------------------------

def _sizes(value, dims, what, name):
    """An int or ``dims`` ints (a kernel or an output size) as a tuple of ``dims`` ints."""
    if isinstance(value, numbers.Integral):
        return (int(value),) * dims
    if not isinstance(value, (tuple, list)) or not all(isinstance(v, numbers.Integral) for v in value):
        raise TypeError(f"{name}(): argument '{what}' must be an int or a tuple of {dims} ints, got {value!r}")
    if len(value) != dims:
        ints = "Ints" if dims == 2 else "three Ints"
        raise RuntimeError(f"{name}: {what} must either be a single Int or tuple of {ints}, got {value!r}")
    return tuple(int(v) for v in value)


def _size_from_ratio(input, output_ratio, dims, name):
    """``int(n * r)`` for each of the last ``dims`` sizes n and ratios r. PyTorch's 2-d function takes
    ``len(output_ratio)``, so it wants a tuple there; the 3-d one also takes one number for all three."""
    if dims == 2:
        if not isinstance(output_ratio, (tuple, list)):
            raise TypeError(f"{name}: output_ratio must be a pair of numbers, got {output_ratio!r} (PyTorch's "
                            f"function takes its len(): write ({output_ratio!r}, {output_ratio!r}))")
        if len(output_ratio) > 2:
            raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple of Ints.")
    ratios = (output_ratio,) * dims if isinstance(output_ratio, numbers.Real) else tuple(output_ratio)
    if len(ratios) < dims:
        raise IndexError(f"{name}: output_ratio {output_ratio!r} has fewer than {dims} values")
    if len(ratios) > dims:
        raise ValueError(f"{name}: output_ratio {output_ratio!r} has more than {dims} values")
    if input.ndim < dims:
        raise IndexError(f"{name}: the input has {input.ndim} dims, fewer than the {dims} pooled")
    return [int(n * r) for n, r in zip(input.shape[-dims:], ratios)]


def _draw_samples(input, dims, name):
    """One u per (sample, channel) and pooled dim, uniform on [0, 1), from the library's generator."""
    if input.ndim < dims + 1:
        raise IndexError(f"{name}: the input has {input.ndim} dims, fewer than channels and {dims} pooled dims")
    if input.dtype.kind != "f":
        raise NotImplementedError(f'"check_uniform_bounds" not implemented for \'{input.dtype.name}\': '
                                  f'{name} pools floating-point inputs; convert it, e.g. x.float()')
    batch = 1 if input.ndim == dims + 1 else input.shape[0]
    return creation.rand(batch, input.shape[-dims - 1], dims, dtype=input.dtype, device=input.device)


def _check_input(input, kernel, out, dims, name):
    """The input's rank, its non-batch sizes, and that each output fits: ``m + k - 1 <= n`` in 2-d, and
    ``m + k - 1 < n`` in 3-d (PyTorch's 3-d check is strict)."""
    where = name if dims == 2 else f"{name}_out"
    if input.ndim not in (dims + 1, dims + 2):
        raise RuntimeError(f"{where}(): Expected {dims + 1}D or {dims + 2}D tensor, but got: {list(input.shape)}")
    first = input.ndim - dims - 1
    for d in range(first, input.ndim):
        if input.shape[d] == 0:
            raise RuntimeError(f"{where}(): Expected input to have non-zero size for non-batch dimensions, but "
                               f"got {list(input.shape)} with dimension {d} being empty.")
    for n, k, m, dim in zip(input.shape[-dims:], kernel, out, _DIM_NAMES[dims]):
        fits = m + k - 1 <= n if dims == 2 else m + k - 1 < n
        if not fits:
            raise RuntimeError(f"{where}(): pool {dim} {k} too large relative to input {dim} {n} (for an output "
                               f"{dim} of {m})")
    if any(k <= 0 for k in kernel):   # (PyTorch reads past the windows here: a difference, on purpose)
        raise RuntimeError(f"{name}: kernel_size must be positive, got {kernel}")
    if any(m < 0 for m in out):
        raise RuntimeError(f"{name}: Trying to create tensor with negative dimension: output_size {out}")


def _check_samples(samples, input, dims):
    """``_random_samples``: the input's dtype, (at least N, C, dims), as PyTorch checks it."""
    if samples.dtype != input.dtype:
        raise RuntimeError(f"Expect _random_samples to have the same dtype as input ({samples.dtype.name} vs "
                           f"{input.dtype.name})")
    if samples.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.ndim}")
    batched = input.ndim == dims + 2
    batch, channels = (input.shape[0], input.shape[1]) if batched else (1, input.shape[0])
    if samples.shape[0] < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples.shape[1] != channels:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != dims:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {dims}; got {samples.shape[2]}.")


# -- the pooling ----------------------------------------------------------------------------------------------

def _starts(u, n, k, m):
    """Window starts along one dim, shape ``u.shape + (m,)``: ``trunc((i + u) * alpha) - trunc(u * alpha)``,
    alpha = (n - k) / (m - 1), in u's dtype, and the last window ending at the last element (C++'s cast to int
    truncates, which is the floor for the u's in [0, 1))."""
    kind = u.dtype.type
    starts = numpy.empty(u.shape + (m,), dtype=numpy.int64)
    if m > 1:
        alpha = kind(n - k) / kind(m - 1)
        steps = numpy.arange(m - 1).astype(u.dtype)
        with numpy.errstate(invalid="ignore", over="ignore"):
            ahead = numpy.trunc((steps + u[..., None]) * alpha) - numpy.trunc(u[..., None] * alpha)
        if not numpy.isfinite(ahead).all():
            raise RuntimeError("fractional max pooling: _random_samples must be finite")
        starts[..., :-1] = ahead.astype(numpy.int64)
    if m > 0:
        starts[..., -1] = n - k
    return starts


def _window_places(samples, sizes, kernel, out):
    """Each window element's place in its (flattened) plane: (N, C, *out, *kernel), C order, so the last axis
    of the kernel varies fastest: PyTorch's scan order. ``samples[n, c, d]`` steps along pooled dim d, except in
    2-d, where u[0] is the width's and u[1] the height's."""
    dims = len(sizes)
    us = [samples[..., 1], samples[..., 0]] if dims == 2 else [samples[..., d] for d in range(3)]
    places = numpy.zeros(samples.shape[:2] + tuple(out) + tuple(kernel), dtype=numpy.int64)
    for d, (u, n, k, m) in enumerate(zip(us, sizes, kernel, out)):
        along = _starts(u, n, k, m)[..., None] + numpy.arange(k)            # (N, C, m, k)
        stride = int(numpy.prod(sizes[d + 1:], dtype=numpy.int64))       # (row-major place in the plane)
        shape = [1] * dims * 2
        shape[d], shape[dims + d] = m, k
        places = places + (along * stride).reshape(samples.shape[:2] + tuple(shape))
    return places


def _first_max(windows):
    """Which element of each window (last axis) PyTorch takes: the first largest, or the last NaN if there is
    one (its scan keeps a value when ``value > best or isnan(value)``); the first when all are -inf."""
    values = windows.detach()
    nan = values != values
    count = values.shape[-1]
    last_nan = (count - 1) - R.argmax(S.flip(E.where(nan, 1, 0), (-1,)), -1, keepdim=True)
    first_max = R.argmax(E.where(nan, -numpy.inf, values), -1, keepdim=True)
    return E.where(R.any(nan, -1, keepdim=True), last_nan, first_max)


def _fractional_max_pool(input, kernel_size, output_size, output_ratio, samples, dims):
    """``(out, indices)`` for :func:`fractional_max_pool2d_with_indices` (dims=2) and the 3-d form."""
    name = f"fractional_max_pool{dims}d"
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}: input must be a Tensor, got {type(input).__name__}")
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        output_size = _size_from_ratio(input, output_ratio, dims, name)
    if samples is None:
        samples = _draw_samples(input, dims, name)
    kernel = _sizes(kernel_size, dims, "kernel_size", name)
    out = _sizes(output_size, dims, "output_size", name)
    if not isinstance(samples, Tensor):
        raise TypeError(f"{name}(): argument '_random_samples' must be a Tensor, not {type(samples).__name__}")
    _check_input(input, kernel, out, dims, name)
    _check_samples(samples, input, dims)
    if input.dtype.kind != "f":
        raise NotImplementedError(f'"{name}" not implemented for \'{input.dtype.name}\': convert the input, e.g. '
                                  f'x.float()')
    if input.ndim == dims + 1:   # unbatched: one sample, the first row of u's
        pooled, where = _fractional_max_pool(S.unsqueeze(input, 0), kernel, out, None, samples, dims)
        return S.squeeze(pooled, 0), S.squeeze(where, 0)

    n, c = input.shape[:2]
    sizes = tuple(input.shape[2:])
    u = backend.to_host(samples.detach()._data)[:n]
    places = _window_places(u, sizes, kernel, out)                              # (N, C, *out, *kernel)
    window = int(numpy.prod(kernel))
    flat_places = numpy.ascontiguousarray(places.reshape(n, c, int(numpy.prod(out)) * window))
    at = Tensor._make(backend.asarray(flat_places, input.device, numpy.int64), False, None, input.device)
    planes = S.reshape(input, (n, c, int(numpy.prod(sizes))))
    windows = S.reshape(S.gather(planes, 2, at), (n, c) + out + (window,))    # (N, C, *out, k...)
    choice = _first_max(windows)
    pooled = S.squeeze(S.gather(windows, -1, choice), -1)
    where = S.squeeze(S.gather(S.reshape(at, tuple(windows.shape)), -1, choice), -1)
    return pooled, where


# -- the modules ----------------------------------------------------------------------------------------------

def _repeat(value, dims):
    """PyTorch's ``_pair`` / ``_triple``: a sequence as a tuple, anything else repeated ``dims`` times."""
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * dims


class _FractionalMaxPoolNd(Module):
    dims = None

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        name = type(self).__name__
        self.kernel_size = _repeat(kernel_size, self.dims)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _repeat(output_size, self.dims) if output_size is not None else None
        self.output_ratio = _repeat(output_ratio, self.dims) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None:
            if not all(0 < self.output_ratio[d] < 1 for d in range(self.dims)):
                raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        pool = fractional_max_pool2d if self.dims == 2 else fractional_max_pool3d
        return pool(input, self.kernel_size, self.output_size, self.output_ratio, self.return_indices,
                    _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """The maximum of each ``kh x kw`` window of (N, C, H, W) or (C, H, W), the windows stepping pseudo-randomly
    so the output is ``output_size``, or ``output_ratio`` (each in (0, 1)) times the input's size. New steps
    each call, unless ``_random_samples`` (N, C, 2) is given."""

    dims = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """:class:`FractionalMaxPool2d` over (N, C, T, H, W) or (C, T, H, W), with ``kt x kh x kw`` windows;
    ``_random_samples`` is (N, C, 3)."""

    dims = 3

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        if ((isinstance(kernel_size, int) and kernel_size <= 0)
                or (isinstance(kernel_size, (tuple, list)) and not all(k > 0 for k in kernel_size))):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        super().__init__(kernel_size, output_size, output_ratio, return_indices, _random_samples)
