"""Sampling an image at arbitrary points, for spatial transformer networks (Jaderberg et al., 2015) and image
warping: ``affine_grid`` (where an affine map sends each output pixel) and ``grid_sample`` (the input's values
there, interpolated). Both are written with differentiable ops, so the gradient reaches the image and the
sampling positions (hence ``theta``).

Coordinates are normalised: -1 and 1 are the input's edges. With ``align_corners=True`` they are the centres
of the corner pixels, ``x = (u + 1) / 2 * (W - 1)``; with ``False`` (the default) the outer edges of the corner
pixels, ``x = ((u + 1) W - 1) / 2``. Bilinear (trilinear for volumes) interpolation mixes the 2^d pixels around
a point with weights ``prod (1 - |x - x_corner|)``, so the gradient in x is the slope between pixels."""
from __future__ import annotations

import itertools
import math
import warnings

import numpy

from ..ops import elementwise as E
from ..tensor import Tensor
from ..creation import linspace, ones
from ..ops.shape import stack

__all__ = ["affine_grid", "grid_sample"]

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                  "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                  "grid_sample for details.")


def _align(align_corners):
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=3)
        return False
    return bool(align_corners)


def _base(n, align_corners, like):
    """The normalised coordinates of n pixel centres along one dim: from -1 to 1 (align_corners), or those
    scaled by (n - 1)/n, the centres of n equal cells of [-1, 1]."""
    if n == 1:
        return linspace(0.0, 0.0, 1, dtype=like.dtype, device=like.device)
    line = linspace(-1.0, 1.0, n, dtype=like.dtype, device=like.device)
    return line if align_corners else line * ((n - 1) / n)


def affine_grid(theta, size, align_corners=None):
    """For each output pixel (N, H, W) the input position ``theta @ (x, y, 1)`` it reads, as (x, y) in the last
    dim: shape (N, H, W, 2) for a batch of 2x3 ``theta`` and ``size`` = (N, C, H, W); (N, D, H, W, 3) for 3x4
    ``theta`` and (N, C, D, H, W)."""
    align_corners = _align(align_corners)
    if not isinstance(theta, Tensor) or theta.dtype.kind != "f":
        raise ValueError(f"Expected theta to have floating point type, but got "
                         f"{getattr(theta, 'dtype', type(theta).__name__)}")
    size = tuple(int(s) for s in size)
    if len(size) not in (4, 5):
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {list(size)}.")
    d = len(size) - 2
    if theta.ndim != 3 or tuple(theta.shape[-2:]) != (d, d + 1):
        raise ValueError(f"Expected a batch of {d}D affine matrices of shape Nx{d}x{d + 1} for size {list(size)}. "
                         f"Got {list(theta.shape)}.")
    spatial = size[2:]
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                      "of affine_grid for details.", UserWarning, stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {list(size)}")
    if theta.shape[0] != size[0]:
        raise RuntimeError(f"affine_grid: theta holds {theta.shape[0]} matrices but size asks for a batch of "
                           f"{size[0]}")
    # the homogeneous coordinates (x, y[, z], 1) of every output pixel, x along the last spatial dim
    axes = [_base(n, align_corners, theta) for n in reversed(spatial)]   # x, y[, z]
    columns = []
    for k, axis in enumerate(axes):
        shape = [1] * d
        shape[d - 1 - k] = axis.shape[0]
        columns.append(axis.reshape(*shape).expand(*spatial))
    columns.append(ones(*spatial, dtype=theta.dtype, device=theta.device))
    base = stack(columns, -1)
    points = base.reshape(1, -1, d + 1)                    # (1, P, d + 1)
    grid = points @ theta.transpose(1, 2)                  # (N, P, d)
    return grid.reshape(size[0], *spatial, d)


def _unnormalize(u, size, align_corners):
    return (u + 1) / 2 * (size - 1) if align_corners else ((u + 1) * size - 1) / 2


def _reflect(x, twice_low, twice_high):
    """x reflected into [twice_low/2, twice_high/2] as often as needed (a mirror at each end); slope +-1."""
    if twice_low == twice_high:
        return x * 0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    x = x - low
    x = E.where(x < 0, -x, x)   # (|x| with slope +1 at 0, as PyTorch's)
    extra = E.fmod(x, span)
    even = E.fmod(E.floor(x / span), 2) == 0
    return E.where(even, extra + low, span - extra + low)


def _clip(x, size, nan_at):
    """x kept in [0, size - 1]; its gradient 1 strictly inside and 0 on the edges too, and NaN read at ``nan_at``
    (PyTorch's rules here: the first pixel for images, the last for volumes)."""
    edge = E.where(E.isnan(x), float(nan_at), E.clamp(x, 0.0, float(size - 1))).detach()
    return E.where((x > 0) & (x < size - 1), x, edge)


def _source(u, size, padding_mode, align_corners, volume):
    """The pixel coordinate that normalised ``u`` reads along a dim of ``size`` pixels, after the padding rule (a
    NaN, or an inf reflected, reads the first pixel of an image and the last of a ``volume``, as in PyTorch)."""
    x = _unnormalize(u, size, align_corners)
    nan_at = size - 1 if volume else 0
    if padding_mode == "border":
        return _clip(x, size, nan_at)
    if padding_mode == "reflection":
        return _clip(_reflect(x, 0, 2 * (size - 1)) if align_corners else _reflect(x, -1, 2 * size - 1), size, nan_at)
    return x


def _cubic_weights(t):
    """The weights of the taps at -1, 0, 1, 2 from the floor, t the fraction past it: Keys' cubic convolution with
    a = -0.75 (PyTorch's), W(x) = (a + 2)|x|^3 - (a + 3)|x|^2 + 1 for |x| <= 1, a|x|^3 - 5a|x|^2 + 8a|x| - 4a for
    1 < |x| < 2."""
    a = -0.75

    def near(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return far(t + 1), near(t), near(1 - t), far(2 - t)


def _padded_tap(x, size, padding_mode, align_corners):
    """The pixel a bicubic tap at whole coordinate x reads after the padding rule ('zeros': x itself, 0 outside)."""
    if padding_mode == "border":
        return E.clamp(x, 0.0, float(size - 1))
    if padding_mode == "reflection":
        x = _reflect(x, 0, 2 * (size - 1)) if align_corners else _reflect(x, -1, 2 * size - 1)
        return E.clamp(x, 0.0, float(size - 1))
    return x


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """The values of ``input`` (N, C, H, W) at the points of ``grid`` (N, H_out, W_out, 2), each (x, y) in
    normalised coordinates (x along W): shape (N, C, H_out, W_out); likewise for volumes (N, C, D, H, W) with a
    grid (N, D_out, H_out, W_out, 3). ``mode``: 'bilinear' (trilinear for volumes), 'nearest' (rounding half to
    even) or 'bicubic' (images only: 16 taps weighted by Keys' cubic convolution, a = -0.75); ``padding_mode``:
    'zeros' (outside reads 0), 'border' (the nearest edge pixel) or 'reflection' (the image mirrored at its
    edges). Gradients reach ``input`` and ``grid`` (for 'nearest' the grid's gradient is 0: the output is piecewise
    constant in it). A NaN position reads NaN with 'zeros' padding, the far edge with the others (PyTorch's CPU
    kernels vary there)."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    align_corners = _align(align_corners)
    if input.ndim not in (4, 5) or grid.ndim != input.ndim:
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but got "
                           f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    d = input.ndim - 2
    if mode == "bicubic" and d != 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if grid.shape[0] != input.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if grid.shape[-1] != d:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {d} in last dimension, but got grid with "
                           f"sizes {list(grid.shape)}")
    if input.dtype != grid.dtype:
        raise RuntimeError(f"grid_sampler(): expected input and grid to have same dtype, but input has "
                           f"{input.dtype.name} and grid has {grid.dtype.name}")
    n, c = input.shape[0], input.shape[1]
    sizes = tuple(input.shape[2:])                  # (H, W) or (D, H, W)
    out_spatial = tuple(grid.shape[1:-1])
    # source coordinates per spatial dim, in input order (grid's last dim lists them from the last dim: x first)
    coords = [_source(grid[..., d - 1 - k], sizes[k], padding_mode, align_corners, d == 3) for k in range(d)]
    flat = input.reshape(n, c, math.prod(sizes))
    strides = [math.prod(sizes[k + 1:]) for k in range(d)]
    device = input.device

    def read(corner):
        """input at the integer coordinates ``corner`` (one tensor per dim; no history), 0 outside."""
        inside, index = None, 0
        for k, (x, size) in enumerate(zip(corner, sizes)):
            ok = (x >= 0) & (x <= size - 1)   # (False for NaN: such a point reads 0, times its NaN weight)
            inside = ok if inside is None else inside & ok
            index = index + E.where(ok, x, 0.0) * strides[k]
        index = E.to_dtype(index, numpy.dtype("int64")).reshape(n, 1, -1).expand(n, c, math.prod(out_spatial))
        values = flat.gather(2, index).reshape(n, c, *out_spatial)
        inside = inside.unsqueeze(1)   # (outside, the element read stands in: selected away, not multiplied by 0,
        return E.where(inside, values, 0.0), E.to_dtype(inside, input.dtype)   # which an inf there makes NaN)

    if mode == "bicubic":   # (taps at -1, 0, 1, 2 from the floor of the unpadded position; each tap padded)
        positions = [_unnormalize(grid[..., d - 1 - k], sizes[k], align_corners) for k in range(d)]
        floors = [E.floor(x).detach() for x in positions]
        weights = [_cubic_weights(x - f) for x, f in zip(positions, floors)]
        out = None
        for i, j in itertools.product(range(4), repeat=2):   # (i along H, j along W)
            corner = [_padded_tap(floors[0] + i - 1, sizes[0], padding_mode, align_corners),
                      _padded_tap(floors[1] + j - 1, sizes[1], padding_mode, align_corners)]
            values, inside = read(corner)
            term = values * ((weights[0][i] * weights[1][j]).unsqueeze(1) * inside)
            out = term if out is None else out + term
        return out
    if mode == "nearest":
        rounded = [E.round(x) for x in coords]
        values, inside = read([r.detach() for r in rounded])
        for r in rounded:   # (times exactly 1, whose gradient is round's, 0: grid.grad is zeros, as torch's;
            finite = E.where(E.isfinite(r), r, 0.0)   # an infinite or NaN position reads as before, no inf - inf)
            inside = inside * (1 + (finite - finite.detach())).unsqueeze(1)
        return values * inside
    floors = [E.floor(x).detach() for x in coords]
    out = None
    for offsets in itertools.product((0, 1), repeat=d):
        corner = [f + o for f, o in zip(floors, offsets)]
        weight = None
        for x, f, o in zip(coords, floors, offsets):
            w = x - f if o else 1 - (x - f)   # (the bilinear weight: linear in x, slope +-1 also at a pixel)
            weight = w if weight is None else weight * w
        values, inside = read(corner)
        term = values * (weight.unsqueeze(1) * inside)
        if d == 3:   # (a volume skips a corner outside, where an image multiplies it: NaN at a NaN position, as torch)
            term = E.where(inside > 0, term, 0.0)
        out = term if out is None else out + term
    return out
