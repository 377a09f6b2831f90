"""Counting and positions with PyTorch's names: ``mode`` (the most frequent value along a dim, and where it is),
``unique_consecutive`` (runs of equal values collapsed to one) and ``unravel_index`` (flat positions as
coordinates). ``mode``'s values take the gradient at the index returned, as ``max(dim)``'s do; the rest are
integers, not differentiable."""
from __future__ import annotations


import numpy

from ..backend import asarray, to_host
from ..tensor import Tensor
from ..return_types import return_type
from .elementwise import ordered
from .reduce import single_dim
from .registry import expect_tensor
from .shape import gather

__all__ = ["mode", "unique_consecutive", "unravel_index"]

ModeResult = return_type("mode", ["values", "indices"])


def _host_mode(row):
    """The most frequent value of a 1-D host array (the smallest of the tied; NaN last) and its last position."""
    values, counts = numpy.unique(row, return_counts=True)   # (sorted: the first of the most frequent is the smallest)
    value = values[numpy.argmax(counts)]
    hits = numpy.flatnonzero((row == value) | (numpy.isnan(row) & numpy.isnan(value)) if row.dtype.kind == "f"
                             else row == value)
    return hits[-1]


def mode(input, dim=-1, keepdim=False):
    """``(values, indices)``: along ``dim``, the value that occurs most often (of several as frequent, the
    smallest) and the last position where it occurs. The gradient of ``values`` goes to that position."""
    expect_tensor(input, "mode")
    ordered("mode", input)
    d = single_dim(dim, input.ndim, "mode")
    if input.ndim and input.shape[d] == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size (shape {tuple(input.shape)})")
    host = numpy.moveaxis(to_host(input._data).reshape(input.shape or (1,)), d, -1)
    rows = host.reshape(-1, host.shape[-1])
    where = numpy.array([_host_mode(r) for r in rows], dtype=numpy.int64).reshape(host.shape[:-1] + (1,))
    index = numpy.moveaxis(where, -1, d) if input.ndim else where.reshape(())
    index_t = Tensor._make(asarray(index, input.device), False, None, input.device)
    values = gather(input, d, index_t) if input.ndim else input * 1
    if not keepdim and input.ndim:
        values, index_t = values.squeeze(d), index_t.squeeze(d)
    return ModeResult(values, index_t)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Each run of equal consecutive elements (``dim=None``: of the flattened input; else of slices along
    ``dim``) collapsed to one; with ``return_inverse`` which run each element is in (input's shape, or one per
    slice), with ``return_counts`` each run's length. Not differentiable: the values require no grad (PyTorch's
    are marked as requiring grad when the input does, with no usable gradient)."""
    expect_tensor(input, "unique_consecutive")
    ordered("unique_consecutive", input)
    host = to_host(input._data)
    if dim is None:
        flat = host.reshape(-1)
        starts = numpy.ones(flat.shape[0], dtype=bool)
        starts[1:] = flat[1:] != flat[:-1]
        values, inverse_shape = flat[starts], host.shape
    else:
        d = single_dim(dim, input.ndim, "unique_consecutive")
        moved = numpy.moveaxis(host, d, 0)
        starts = numpy.ones(moved.shape[0], dtype=bool)
        if moved.shape[0] > 1:
            starts[1:] = (moved[1:] != moved[:-1]).reshape(moved.shape[0] - 1, -1).any(axis=1)
        values, inverse_shape = numpy.moveaxis(moved[starts], 0, d), (moved.shape[0],)
    inverse = (numpy.cumsum(starts) - 1).astype(numpy.int64).reshape(inverse_shape)
    counts = numpy.diff(numpy.append(numpy.flatnonzero(starts), starts.shape[0])).astype(numpy.int64)
    out = [Tensor._make(asarray(numpy.ascontiguousarray(values), input.device), False, None, input.device)]
    for wanted, array in ((return_inverse, inverse), (return_counts, counts)):
        if wanted:
            out.append(Tensor._make(asarray(array, input.device), False, None, input.device))
    return out[0] if len(out) == 1 else tuple(out)


def unravel_index(indices, shape):
    """The coordinates of flat (row-major) positions in a tensor of ``shape``: a tuple of int64 tensors, one per
    dim, each of ``indices``' shape. Each coordinate is taken modulo its size, as PyTorch does (-1 is the last
    element; a position past the end wraps around: it is not checked)."""
    if isinstance(shape, int):
        shape = (shape,)
    indices = indices if isinstance(indices, Tensor) else Tensor._make(numpy.asarray(indices), False, None, "cpu")
    if indices.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype.name}")
    if any(n < 0 for n in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {tuple(shape)}")
    host = to_host(indices._data).astype(numpy.int64)
    coords = []
    for n in reversed(tuple(shape)):   # (each coordinate floor-modulo its size, as PyTorch: no range check, so
        coords.append(numpy.mod(host, n) if n else host * 0)   # -1 is the last element and 12 of (3, 4) wraps to 0)
        host = numpy.floor_divide(host, n) if n else host
    return tuple(Tensor._make(asarray(c, indices.device), False, None, indices.device) for c in reversed(coords))
