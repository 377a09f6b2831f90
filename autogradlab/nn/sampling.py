"""Resampling: ``interpolate`` (nearest, nearest-exact, linear, bilinear, bicubic, trilinear, area),
``pixel_shuffle`` and ``pixel_unshuffle``, and the modules ``Upsample``, ``UpsamplingNearest2d``,
``UpsamplingBilinear2d``, ``PixelShuffle``, ``PixelUnshuffle``, with PyTorch's names, sizes, values and errors.

The one idea: resampling is separable. Along each spatial dim, output position j reads from a source
coordinate ``src(j)`` of the input, which depends only on the sizes. Nearest takes ``x[..., i(j), ...]`` with
one integer index array (advanced indexing); linear takes two neighbours and blends them,
``(1 - t) * x[i0] + t * x[i1]``, with the weights as constant tensors. Doing one dim after the other gives
bilinear. The indices and weights are computed here, with NumPy, from the sizes alone; every operation on the
data is an engine op, so the gradients (each output's gradient added back to the inputs it read, times its
weight) come from the engine; a third dim gives trilinear (and nearest and area for volumes). ``pixel_shuffle``
moves channels into space with one reshape and one permute.

Bicubic blends four neighbours, ``x[i - 1], ..., x[i + 2]`` (clamped at the borders), with Keys' cubic
convolution weights (a = -0.75, PyTorch's). Not here (NotImplementedError): lanczos, ``antialias=True``. Unlike PyTorch
2.13: where a scale_factor leaves a 1-d or 3-d nearest length unchanged or doubles it, PyTorch's backward sends the
gradient elsewhere than its forward read from; here it is the forward's. ``pixel_unshuffle`` of an empty
batch gets its proper shape (PyTorch returns the input's).
"""
from __future__ import annotations

import numbers

import numpy

from .. import backend
from ..ops import shape as S
from ..tensor import Tensor
from .convolution import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d
from .module import Module

__all__ = ["interpolate", "pixel_shuffle", "pixel_unshuffle", "Upsample", "UpsamplingNearest2d",
           "UpsamplingBilinear2d", "PixelShuffle", "PixelUnshuffle"]

_LINEAR_MODES = {3: "linear", 4: "bilinear", 5: "trilinear"}   # input rank -> the linear mode for it
_IN_TORCH = {"nearest": (3, 4, 5), "nearest-exact": (3, 4, 5), "area": (3, 4, 5), "linear": (3,),
             "bilinear": (4,), "bicubic": (4,), "lanczos": (4,), "trilinear": (5,)}   # PyTorch's modes: ranks


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize the spatial dims of (N, C, L), (N, C, H, W) or (N, C, D, H, W) to ``size``, or to
    floor(n * scale_factor), one dim after the other.

    Along each dim, output j reads input coordinate src(j), with ``scale = in / out`` (or 1 / scale_factor
    when a scale_factor is given and not recomputed):
    nearest: x[floor(j * scale)]; nearest-exact: x[floor((j + 0.5) * scale)];
    linear/bilinear/trilinear: src = (j + 0.5) * scale - 0.5 (clamped at 0), or j * (in - 1) / (out - 1) with
    ``align_corners=True``; out = (1 - t) * x[floor(src)] + t * x[floor(src) + 1], t = src - floor(src).
    bicubic: the same src (not clamped), four neighbours with Keys' weights (see ``_cubic_source``).
    area: the mean over each output's window (``adaptive_avg_pool``).
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"interpolate: input must be a Tensor, got {type(input).__name__}")
    if mode in ("nearest", "nearest-exact", "area"):
        if align_corners is not None:
            raise ValueError(f"align_corners option can only be set with the interpolating modes: linear | "
                             f"bilinear | bicubic | trilinear; mode={mode!r} takes no align_corners: leave it "
                             f"out (None)")
    elif align_corners is None:
        align_corners = False
    sizes, scales = _output_sizes(input, size, scale_factor, recompute_scale_factor, mode)
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError(f"Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a "
                         f"4-D tensor as input (got mode={mode!r} with a {input.ndim}-D input)")
    _check_mode(input, mode, align_corners, antialias)
    if mode == "area":   # (PyTorch's definition: adaptive average pooling to the output size)
        if input.dtype.kind != "f":
            raise NotImplementedError(f'"adaptive_avg_pool{input.ndim - 2}d" not implemented for {input.dtype.name} '
                                      f"input: interpolate 'area' averages, so it needs floating point; convert "
                                      f"with x.float()")
        return (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[input.ndim - 3](input, sizes)
    _check_sizes(input, sizes)
    kind = "nearest" if mode.startswith("nearest") else "linear"
    if not (input.dtype.kind == "f" or (kind == "nearest" and input.dtype == numpy.uint8)):
        raise NotImplementedError(f'"compute_indices_weights_{kind}" not implemented for {input.dtype.name} '
                                  f"input: interpolate {mode!r} needs floating point; convert with x.float()")
    half = kind == "linear" and input.dtype == numpy.float16   # (blended in float32, rounded once, as PyTorch)
    out = input.to(numpy.float32) if half else input
    for k, (n_in, n_out, scale) in enumerate(zip(input.shape[2:], sizes, scales)):
        dim = 2 + k - input.ndim   # (counted from the end: -2 for H, -1 for W)
        if kind == "nearest":
            out = _take(out, dim, _nearest_source(n_in, n_out, scale, mode == "nearest-exact", input.dtype,
                                                    shortcuts=mode == "nearest" and input.ndim == 4))
        elif n_out == n_in and mode != "bicubic":   # (the same size: PyTorch's linear kernels copy, whatever the
            # scale_factor; its bicubic one resamples by the scale given)
            out = _take(out, dim, numpy.arange(n_in))
        elif mode == "bicubic":
            out = _blend(out, dim, *_cubic_source(n_in, n_out, scale, align_corners, out.dtype))
        else:
            out = _blend(out, dim, *_linear_source(n_in, n_out, scale, align_corners, out.dtype))
    return out.to(numpy.float16) if half else out


def _output_sizes(input, size, scale_factor, recompute_scale_factor, mode):
    """The output size of each spatial dim, and the scale factor each dim's coordinates use (None: in/out)."""
    dims = input.ndim - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined: give size= for an exact output "
                         "size, or scale_factor= to multiply the input's, not both")
    if size is None and scale_factor is None:
        raise ValueError("either size or scale_factor should be defined: give size= (the output's spatial size) "
                         "or scale_factor= (a multiplier of the input's)")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dims:
                raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input "
                                 f"with spatial dimensions of {list(input.shape[2:])} and output size of {size}: "
                                 f"give the input as (N, C, d1, ..., dK) and size as (o1, ..., oK)")
            if not all(isinstance(n, numbers.Integral) for n in size):
                raise TypeError(f"expected size to be one of int or Tuple[int] or Tuple[int, int], but got size "
                                f"with types {[type(n) for n in size]}")
        if recompute_scale_factor:   # (PyTorch's order: after a tuple's checks, before an int's)
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size: leave it out, or "
                             "give scale_factor= instead of size=")
        if not isinstance(size, (list, tuple)):
            if not isinstance(size, numbers.Integral) or isinstance(size, bool):
                raise TypeError(f"interpolate: size must be an int or a tuple of ints, got {size!r}")
            size = (size,) * dims
        return tuple(int(n) for n in size), (None,) * dims
    if isinstance(scale_factor, (list, tuple)):
        if len(scale_factor) != dims:
            raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got input "
                             f"with spatial dimensions of {list(input.shape[2:])} and scale_factor of shape "
                             f"{scale_factor}: give the input as (N, C, d1, ..., dK) and scale_factor as "
                             f"(s1, ..., sK)")
        scales = tuple(scale_factor)
    else:
        scales = (scale_factor,) * dims
    if not all(isinstance(s, numbers.Real) and not isinstance(s, bool) for s in scales):
        raise TypeError(f"interpolate: scale_factor must be a number or a tuple of numbers, got {scale_factor!r}")
    if not all(numpy.isfinite(float(s)) for s in scales):
        raise RuntimeError(f"interpolate: scale_factor {scale_factor!r} gives no output size (the size is "
                           f"floor(input size * scale_factor), which cannot be converted to an integer); give a "
                           f"finite scale_factor")
    sizes = tuple(int(n * float(s)) for n, s in zip(input.shape[2:], scales))   # (truncated, as PyTorch)
    if recompute_scale_factor or mode == "area":   # the coordinates then use in/out, not the given factor
        scales = (None,) * dims
    return sizes, tuple(None if s is None else float(s) for s in scales)


def _check_mode(input, mode, align_corners, antialias):
    """A mode that fits the input's rank and is implemented here; else PyTorch's error for it, or
    NotImplementedError for what PyTorch has and autogradlab does not."""
    rank = input.ndim
    if (rank in (3, 4, 5) and mode in ("nearest", "nearest-exact", "area")) or _LINEAR_MODES.get(rank) == mode \
            or (rank == 4 and mode == "bicubic"):
        if antialias:   # (only bilinear and bicubic get here with antialias: the check before lets nothing else)
            raise NotImplementedError("interpolate: antialias=True (an anti-aliasing filter for shrinking) is not "
                                      "implemented in autogradlab; use antialias=False, or shrink in steps of at "
                                      "most 2x")
        return
    if rank == 4 and mode == "lanczos" and align_corners:
        raise ValueError("Lanczos mode does not support align_corners=True: leave align_corners out")
    if rank == 4 and mode == "lanczos" and not antialias:
        raise ValueError("Lanczos mode requires antialias=True")
    if rank in _IN_TORCH.get(mode, ()):
        raise NotImplementedError(f"interpolate: mode={mode!r} for a {rank}-D input is not implemented in "
                                  f"autogradlab (PyTorch has it); here: 'nearest', 'nearest-exact' and 'area' for "
                                  f"3-D, 4-D and 5-D inputs, 'linear' for 3-D, 'bilinear' and 'bicubic' for 4-D, "
                                  f"'trilinear' for 5-D")
    if rank in (3, 4, 5) and mode in ("linear", "bilinear", "trilinear"):
        wanted = {"linear": 3, "bilinear": 4, "trilinear": 5}[mode]
        raise NotImplementedError(f"Got {rank}D input, but {mode} mode needs {wanted}D input: 'linear' is for "
                                  f"(N, C, L), 'bilinear' for (N, C, H, W), 'trilinear' for (N, C, D, H, W)")
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {rank}D) for the "
                              f"modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
                              f"nearest-exact (got {mode}); autogradlab has nearest, nearest-exact and area (3-D, "
                              f"4-D and 5-D), linear (3-D), bilinear and bicubic (4-D) and trilinear (5-D)")


def _check_sizes(input, sizes):
    """Every input and output spatial size at least 1, and some channels (PyTorch's RuntimeErrors)."""
    names = ("D", "H", "W")[-len(sizes):] if sizes else ()
    if any(n < 1 for n in tuple(input.shape[2:]) + sizes):
        given = ", ".join(f"{a}: {n}" for a, n in zip(names, input.shape[2:]))
        made = ", ".join(f"{a}: {n}" for a, n in zip(names, sizes))
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({given}) and output "
                           f"({made}): a scale_factor below 1 must still leave at least one element")
    if any(n == 0 for n in input.shape[1:2]):
        raise RuntimeError(f"Non-empty {input.ndim}D data tensor expected but got a tensor with sizes "
                           f"{list(input.shape)} (no channels)")


def _inverse_scale(n_in, n_out, scale, acc):
    """Input coordinates per output step: 1 / scale_factor when one was given, else in / out (in ``acc``)."""
    return acc(1.0 / scale) if scale is not None and scale > 0 else acc(n_in) / acc(n_out)


def _nearest_source(n_in, n_out, scale, exact, dtype, shortcuts):
    """The input index each output position copies, in PyTorch's arithmetic: float32 for nearest
    (``shortcuts``: PyTorch's 2-d nearest copies a dim that keeps its size and doubles one that doubles);
    for nearest-exact the pixel-centre rule round((j + 0.5) * scale - 0.5) in float32, or float64 for
    float64 inputs (one rounding in the product, as a fused multiply-add)."""
    j = numpy.arange(n_out)
    if shortcuts and n_out in (n_in, 2 * n_in):   # (whatever the scale_factor)
        return j * n_in // n_out
    if not exact:
        src = numpy.floor(j.astype(numpy.float32) * _inverse_scale(n_in, n_out, scale, numpy.float32))
    else:
        acc = numpy.float64 if dtype == numpy.float64 else numpy.float32
        step = numpy.float64(_inverse_scale(n_in, n_out, scale, acc))
        centre = numpy.maximum((step * (j + 0.5) - 0.5).astype(acc), 0)
        src = numpy.floor((centre + acc(0.5)).astype(numpy.float32))
    return numpy.minimum(src.astype(numpy.int64), n_in - 1)


def _linear_source(n_in, n_out, scale, align_corners, dtype):
    """The two neighbours i0, i1 each output position blends and their weights 1 - t, t (float32 for every
    dtype but float64, as PyTorch computes them)."""
    acc = numpy.float64 if dtype == numpy.float64 else numpy.float32
    j = numpy.arange(n_out).astype(acc)
    if align_corners:
        step = acc(n_in - 1) / acc(n_out - 1) if n_out > 1 else acc(0)
        src = step * j
    else:
        step = numpy.float64(_inverse_scale(n_in, n_out, scale, acc))   # (one rounding, as a fused multiply-add)
        src = numpy.maximum((step * (j.astype(numpy.float64) + 0.5) - 0.5).astype(acc), acc(0))
    i0 = numpy.minimum(numpy.floor(src).astype(numpy.int64), n_in - 1)
    t = numpy.clip(src - i0.astype(acc), 0, 1).astype(acc)
    i1 = i0 + (i0 < n_in - 1)
    return i0, i1, (acc(1) - t), t


_CUBIC_A = -0.75   # (Keys' cubic convolution parameter, PyTorch's)


def _cubic_source(n_in, n_out, scale, align_corners, dtype):
    """The four neighbours i - 1 .. i + 2 (clamped to the input) each output position blends, i = floor(src),
    and Keys' weights for t = src - i: w(d) = (a + 2)|d|^3 - (a + 3)|d|^2 + 1 for |d| <= 1,
    a|d|^3 - 5a|d|^2 + 8a|d| - 4a for 1 < |d| < 2, at d = t + 1, t, 1 - t, 2 - t (src not clamped, as PyTorch's)."""
    acc = numpy.float64 if dtype == numpy.float64 else numpy.float32
    j = numpy.arange(n_out).astype(acc)
    if align_corners:
        src = (acc(n_in - 1) / acc(n_out - 1) if n_out > 1 else acc(0)) * j
    else:
        src = (numpy.float64(_inverse_scale(n_in, n_out, scale, acc)) * (j.astype(numpy.float64) + 0.5)
               - 0.5).astype(acc)
    i = numpy.floor(src).astype(numpy.int64)
    t = (src - i.astype(acc)).astype(acc)
    a = acc(_CUBIC_A)

    def near(d):   # |d| <= 1
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d):   # 1 < |d| < 2
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
    one = acc(1)
    weights = (far(t + one), near(t), near(one - t), far(acc(2) - t))
    return tuple(numpy.clip(i + k, 0, n_in - 1) for k in (-1, 0, 1, 2)) + weights


def _take(x, dim, index):
    """``x`` indexed along ``dim`` (negative) by an integer array: x[..., index, :, ...]."""
    return S.getitem(x, (Ellipsis, index) + (slice(None),) * (-1 - dim), copy=False)


def _blend(x, dim, *indices_then_weights):
    """w0 * x[i0] + w1 * x[i1] (+ ...) along ``dim``, given as ``i0, i1, ..., w0, w1, ...``; the weights are
    constants shaped to broadcast along it."""
    def weight(w):
        w = w.reshape((-1,) + (1,) * (-1 - dim))
        return Tensor._make(backend.asarray(w, x.device, w.dtype), False, None, x.device)
    half = len(indices_then_weights) // 2
    terms = [_take(x, dim, i) * weight(w)   # (weights in x's dtype)
             for i, w in zip(indices_then_weights[:half], indices_then_weights[half:])]
    out = terms[0]
    for term in terms[1:]:
        out = out + term
    return out


# -- pixel shuffle: channels to space and back ----------------------------------------------------------------

def pixel_shuffle(input, upscale_factor):
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r): out[..., c, h*r + i, w*r + j] = x[..., c*r*r + i*r + j, h, w]."""
    r = _factor(upscale_factor, "pixel_shuffle", "upscale_factor")
    _check_rank(input, "pixel_shuffle")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    *batch, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}: give it a multiple "
                           f"of {r * r} channels")
    b = len(batch)
    x = S.reshape(input, (*batch, c // (r * r), r, r, h, w))
    x = S.permute(x, (*range(b), b, b + 3, b + 1, b + 4, b + 2))            # (*, C, H, r, W, r)
    return _new_memory(S.reshape(x, (*batch, c // (r * r), h * r, w * r)))


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W), the inverse of :func:`pixel_shuffle`."""
    r = _factor(downscale_factor, "pixel_unshuffle", "downscale_factor")
    _check_rank(input, "pixel_unshuffle")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    *batch, c, h, w = input.shape
    for what, n, d in (("height", h, -2), ("width", w, -1)):
        if n % r:
            raise RuntimeError(f"pixel_unshuffle expects {what} to be divisible by downscale_factor, but "
                               f"input.size({d})={n} is not divisible by {r}: crop or pad it to a multiple of {r}")
    b = len(batch)
    x = S.reshape(input, (*batch, c, h // r, r, w // r, r))
    x = S.permute(x, (*range(b), b, b + 2, b + 4, b + 1, b + 3))            # (*, C, r, r, H, W)
    return _new_memory(S.reshape(x, (*batch, c * r * r, h // r, w // r)))


def _new_memory(out):
    """``out``, copied where the reshapes made a view of the input (a factor of 1, one pixel): PyTorch's shuffles
    always return new memory, so writing into the result never changes the input."""
    return out.clone() if out._view is not None else out


def _factor(value, name, what):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise TypeError(f"{name}(): argument '{what}' (position 2) must be int, not {type(value).__name__}")
    return int(value)


def _check_rank(input, name):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}: input must be a Tensor, got {type(input).__name__}")
    if input.ndim < 3:
        raise RuntimeError(f"{name} expects input to have at least 3 dimensions, but got input with {input.ndim} "
                           f"dimension(s): images are (*, C, H, W)")


# -- modules ----------------------------------------------------------------------------------------------------

class Upsample(Module):
    """Resize to ``size`` or by ``scale_factor`` with :func:`interpolate` (a scale_factor is kept as a float)."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(s) for s in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode, self.align_corners = mode, align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                           recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        given = f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None else f"size={self.size!r}"
        return f"{given}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """``Upsample(size, scale_factor, mode="nearest")`` for images."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """``Upsample(size, scale_factor, mode="bilinear", align_corners=True)``: the corners' pixels stay put."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class PixelShuffle(Module):
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r) (:func:`pixel_shuffle`): sub-pixel upsampling."""

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W) (:func:`pixel_unshuffle`)."""

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"
