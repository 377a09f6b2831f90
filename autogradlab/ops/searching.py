"""Questions about values that have no gradient, with PyTorch's names: where values would go in a sorted
sequence (``searchsorted``, ``bucketize``), which elements occur in a set (``isin``), a histogram (``histc``),
the sign bit (``signbit``), and the indices of a triangle (``tril_indices``, ``triu_indices``). Each answer is
a new tensor that does not require grad (integers, bools, or counts)."""
from __future__ import annotations

import numbers

import numpy

from .. import backend
from ..backend import to_host, xp_of
from ..creation import _even_steps
from ..return_types import return_type
from ..tensor import Tensor
from .elementwise import ordered
from .registry import expect_tensor

__all__ = ["searchsorted", "bucketize", "isin", "histc", "signbit", "tril_indices", "triu_indices"]


def _result(array, device):
    return Tensor._make(array, False, None, device)


def _side(right, side, name):
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"{name}(): side can only be 'left' or 'right', got {side!r}")
        if right and side == "left":
            raise RuntimeError(f"{name}(): side and right can't be set to opposites, got side of left while right "
                               f"was True")
        return side
    return "right" if right else "left"


def _values_of(values, like, name):
    if isinstance(values, Tensor):
        return values._data, values.shape
    if isinstance(values, bool) or not isinstance(values, numbers.Real):
        raise TypeError(f"{name}(): values must be a Tensor or a number, not {type(values).__name__}")
    return backend.asarray(values, like.device), ()   # (its own dtype: 4.5 among ints falls after 4)


def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None, sorter=None):
    """For each of ``values``, the index where it would be inserted into ``sorted_sequence`` (sorted along its
    last dim) to keep it sorted: before equal elements (``side="left"``) or after them (``right=True``). A 1-D
    sequence serves every value; an N-D one holds one sequence per row of ``values``."""
    expect_tensor(sorted_sequence, "searchsorted")
    ordered("searchsorted", sorted_sequence)
    if isinstance(values, Tensor):
        ordered("searchsorted", values)
    side = _side(right, side, "searchsorted")
    data, shape = _values_of(values, sorted_sequence, "searchsorted")
    seq = sorted_sequence._data
    if seq.ndim == 0:
        raise RuntimeError("searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension: "
                           "give the sorted sequence as a 1-D tensor")
    if sorter is not None:
        _check_sorter(sorter, sorted_sequence)
        seq = xp_of(seq).take_along_axis(seq, sorter._data, axis=-1)
    xp, dtype = xp_of(seq), numpy.int32 if out_int32 else numpy.int64
    if seq.ndim <= 1:
        return _result(xp.searchsorted(seq.reshape(-1), data, side=side).astype(dtype), sorted_sequence.device)
    if tuple(seq.shape[:-1]) != tuple(shape[:-1]):
        raise RuntimeError(f"searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions "
                           f"of boundaries tensor and input value tensor must match, but we got boundaries "
                           f"tensor {list(seq.shape)} and input value tensor {list(shape)}")
    rows, row_values = seq.reshape(-1, seq.shape[-1]), data.reshape(-1, shape[-1])
    found = xp.stack([xp.searchsorted(r, v, side=side) for r, v in zip(rows, row_values)])
    return _result(found.reshape(shape).astype(dtype), sorted_sequence.device)


def _check_sorter(sorter, sequence):
    """PyTorch's checks of ``searchsorted``'s ``sorter``: int64 indices, one per element, each in range."""
    if not isinstance(sorter, Tensor) or sorter.dtype != numpy.int64:
        raise RuntimeError(f"searchsorted(): sorter must be a tensor of long dtype (the indices that sort the "
                           f"sequence, as argsort gives them), got {getattr(sorter, 'dtype', type(sorter).__name__)}")
    if tuple(sorter.shape) != tuple(sequence.shape):
        raise RuntimeError(f"searchsorted(): boundary and sorter must have the same size, but got boundary tensor "
                           f"{list(sequence.shape)} and sorter tensor {list(sorter.shape)}")
    indices = to_host(sorter._data)
    if indices.size and (indices.min() < 0 or indices.max() >= sequence.shape[-1]):
        raise RuntimeError(f"searchsorted(): sorter index out of range: its values must lie in [0, "
                           f"{sequence.shape[-1] - 1}]")


def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The bucket of each element of ``input`` among the sorted 1-D ``boundaries``: ``i`` such that
    ``boundaries[i-1] < x <= boundaries[i]`` (with ``right=True``: ``boundaries[i-1] <= x < boundaries[i]``)."""
    expect_tensor(boundaries, "bucketize")
    if boundaries.ndim != 1:
        raise RuntimeError(f"bucketize(): boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """True where an element of ``elements`` occurs in ``test_elements`` (False with ``invert=True``)."""
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin(): at least one of elements and test_elements must be a Tensor")
    like = elements if isinstance(elements, Tensor) else test_elements
    for t in (elements, test_elements):
        if isinstance(t, Tensor):
            ordered("isin", t, RuntimeError)
    a = elements._data if isinstance(elements, Tensor) else backend.asarray(elements, like.device)
    b = test_elements._data if isinstance(test_elements, Tensor) else backend.asarray(test_elements, like.device)
    return _result(xp_of(a).isin(a, b, assume_unique=assume_unique, invert=invert), like.device)


def histc(input, bins=100, min=0, max=0):
    """Counts of ``input``'s elements in ``bins`` equal bins between ``min`` and ``max`` (both 0: the data's
    smallest and largest); elements outside are not counted, ``max`` falls in the last bin. Float, as input."""
    expect_tensor(input, "histc")
    if input.dtype.kind != "f":
        raise NotImplementedError(f"histc() is not implemented for {input.dtype.name}: it counts floats; convert "
                                  f"with input.float()")
    if isinstance(bins, bool) or not isinstance(bins, numbers.Integral):
        raise TypeError(f"histc(): argument 'bins' must be int, not {type(bins).__name__}")
    if bins <= 0:
        raise RuntimeError(f"histc(): bins must be > 0, but got {bins}")
    host = to_host(input._data).astype(numpy.float64).reshape(-1)
    low, high = float(min), float(max)
    if low == high and host.size:
        low, high = float(host.min()), float(host.max())
    if low == high:
        low, high = low - 1, high + 1
    if low > high:
        raise RuntimeError(f"histc(): max must be larger than min, got min={min}, max={max}")
    if not (numpy.isfinite(low) and numpy.isfinite(high)):
        raise RuntimeError(f"histc(): range of [{low}, {high}] is not finite")
    values = to_host(input._data).reshape(-1)             # (binned in the input's dtype, as PyTorch bins them)
    kept = values[(values >= low) & (values <= high)]
    first, last = values.dtype.type(low), values.dtype.type(high)
    # (x - min) * bins / (max - min), in that order, as PyTorch computes it: an element on a bin's edge lands
    # where PyTorch puts it (dividing first put 0.3 of [0, 0.9] in 3 bins into the second)
    position = ((kept - first) * values.dtype.type(bins) / (last - first)).astype(numpy.int64)
    counts = numpy.bincount(numpy.minimum(position, int(bins) - 1), minlength=int(bins))
    return _result(backend.asarray(counts.astype(input.dtype), input.device), input.device)


def histogram(input, bins=100, *, range=None, weight=None, density=False):
    """``(hist, bin_edges)``: how many of ``input``'s elements (or how much ``weight``) fall in each bin. ``bins``
    is a count of equal bins over ``range`` (default: the data's smallest to largest; half a unit either side
    when they are equal, [0, 1] with no data) or a 1-D tensor of the edges. A bin holds its left edge; the last
    also its right one. ``density=True`` divides by the total and the bin widths (an area of 1)."""
    expect_tensor(input, "histogram")
    if input.dtype.kind != "f":
        raise NotImplementedError(f'"histogramdd" not implemented for {input.dtype.name}: it counts floats; '
                                  f'convert with input.float()')
    values = to_host(input._data).reshape(-1).astype(numpy.float64)
    if isinstance(bins, Tensor):
        edges = to_host(bins._data).astype(input.dtype)
        if bins.ndim != 1 or edges.size < 2 or (numpy.diff(edges) < 0).any():
            raise RuntimeError(f"torch.histogram(): bins must be a 1-D tensor of at least two edges in increasing "
                               f"order, got shape {tuple(bins.shape)}")
    else:
        if isinstance(bins, bool) or not isinstance(bins, numbers.Integral):
            raise TypeError(f"histogram(): argument 'bins' must be int or a Tensor of edges, not "
                            f"{type(bins).__name__}")
        if bins <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
        low, high = (float(range[0]), float(range[1])) if range is not None else (
            (float(values.min()), float(values.max())) if values.size else (0.0, 1.0))
        if low > high:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {low} max {high} for "
                               f"dimension 0")
        if low == high:   # (all the data one value: a bin of width 1 around it)
            low, high = low - 0.5, high + 0.5
        edges = _even_steps(low, high, int(bins) + 1, {2: numpy.float16, 4: numpy.float32}.get(
            input.dtype.itemsize, numpy.float64)).astype(input.dtype)
    weights = None
    if weight is not None:
        if not isinstance(weight, Tensor) or tuple(weight.shape) != tuple(input.shape):
            raise RuntimeError(f"histogram(): weight must be a tensor of the input's shape {tuple(input.shape)}")
        weights = to_host(weight._data).reshape(-1).astype(numpy.float64)
    hist, _ = numpy.histogram(values, bins=edges.astype(numpy.float64), weights=weights, density=bool(density))
    return HISTOGRAM(*(Tensor._make(backend.asarray(a.astype(input.dtype), input.device), False, None, input.device)
                       for a in (hist, edges)))


HISTOGRAM = return_type("histogram", ("hist", "bin_edges"))


def signbit(input):
    """True where the sign bit is set: negative numbers, and -0.0 (which ``x < 0`` misses)."""
    expect_tensor(input, "signbit")
    ordered("signbit", input)
    data = input._data
    return _result(xp_of(data).signbit(data) if data.dtype.kind != "b" else xp_of(data).zeros(data.shape, bool),
                   input.device)


def _triangle(row, col, offset, dtype, device, lower, name):
    for what, value in (("row", row), ("col", col), ("offset", offset)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise TypeError(f"{name}(): argument '{what}' must be int, not {type(value).__name__}")
    if row < 0 or col < 0:
        raise RuntimeError(f"{name}(): row and col must be non-negative, got row={row}, col={col}")
    rows, cols = (numpy.tril_indices if lower else numpy.triu_indices)(row, offset, col)
    indices = numpy.stack([rows, cols]).astype(numpy.dtype(dtype or "int64"))
    device = backend.normalize_device(device)
    return _result(backend.asarray(indices, device), device)


def tril_indices(row, col, offset=0, *, dtype=None, device=None):
    """The (row, column) indices of the lower triangle of a ``row`` x ``col`` matrix, as a 2 x N tensor, row
    by row (``offset`` > 0 takes diagonals above the main one too)."""
    return _triangle(row, col, offset, dtype, device, True, "tril_indices")


def triu_indices(row, col, offset=0, *, dtype=None, device=None):
    """The (row, column) indices of the upper triangle of a ``row`` x ``col`` matrix, as a 2 x N tensor."""
    return _triangle(row, col, offset, dtype, device, False, "triu_indices")
