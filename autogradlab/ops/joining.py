"""Joining and splitting with PyTorch's (and NumPy's) names: ``atleast_1d/2d/3d``, ``hstack``, ``vstack``
(``row_stack``), ``dstack``, ``column_stack``, ``tensor_split``, ``block_diag`` and ``cartesian_prod``.

Each is ``reshape``, ``cat``, ``stack``, ``meshgrid`` or slicing underneath, so its gradient is theirs: the
gradient of a joined tensor is cut back into the pieces, and a piece's gradient is put back in place.
"""
from __future__ import annotations

import numbers

import numpy

from ..backend import asarray, get_default_device, to_host, xp_of
from ..tensor import Tensor, default_float
from .elementwise import result_type, to_dtype
from .rearrange import meshgrid
from .reduce import single_dim
from .registry import expect_tensor
from .shape import _check_sequence, cat, getitem, reshape, stack


def _tensors(args, name):
    """``f(a, b)`` or ``f([a, b])``: the tensors, and whether they came as one sequence."""
    listed = len(args) == 1 and isinstance(args[0], (list, tuple))
    tensors = list(args[0]) if listed else list(args)
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}(): expected a Tensor at position {i}, got {type(t).__name__}")
    return tensors, listed


def _at_least(args, ndim, shape_of, name):
    tensors, listed = _tensors(args, name)
    out = tuple(t if t.ndim >= ndim else reshape(t, shape_of(t)) for t in tensors)
    return out[0] if len(out) == 1 and not listed else out


def atleast_1d(*tensors):
    """Each tensor with at least 1 dim: a 0-d one becomes shape (1,); others are returned as they are."""
    return _at_least(tensors, 1, lambda t: (1,), "atleast_1d")


def atleast_2d(*tensors):
    """At least 2 dims: 0-d becomes (1, 1), a vector of n (1, n)."""
    return _at_least(tensors, 2, lambda t: (1,) * (2 - t.ndim) + tuple(t.shape), "atleast_2d")


def atleast_3d(*tensors):
    """At least 3 dims: 0-d becomes (1, 1, 1), a vector of n (1, n, 1), an m x n matrix (m, n, 1)."""
    shapes = {0: lambda t: (1, 1, 1), 1: lambda t: (1, t.shape[0], 1), 2: lambda t: tuple(t.shape) + (1,)}
    return _at_least(tensors, 3, lambda t: shapes[t.ndim](t), "atleast_3d")


def _joined(tensors, name):
    """The tensors to join: a non-empty list or tuple of Tensors (PyTorch: a RuntimeError for none)."""
    if isinstance(tensors, (list, tuple)) and not tensors:
        raise RuntimeError(f"{name}(): expects a non-empty TensorList")
    return _check_sequence(tensors, name)


def hstack(tensors):
    """Join side by side: along dim 0 for vectors (0-d tensors count as vectors of 1), else along dim 1."""
    parts = atleast_1d(_joined(tensors, "hstack"))
    return cat(parts, 0 if parts[0].ndim == 1 else 1)


def vstack(tensors):
    """Join one below the other: rows (vectors become 1 x n rows), along dim 0."""
    return cat(atleast_2d(_joined(tensors, "vstack")), 0)


row_stack = vstack


def dstack(tensors):
    """Join along the third dim (depth), after :func:`atleast_3d`."""
    return cat(atleast_3d(_joined(tensors, "dstack")), 2)


def column_stack(tensors):
    """Join as columns: 0-d and 1-d tensors become columns (n x 1), then everything is joined along dim 1."""
    parts = [reshape(t, (t.numel(), 1)) if t.ndim <= 1 else t for t in _joined(tensors, "column_stack")]
    return cat(parts, 1)


def tensor_split(input, indices_or_sections, dim=0):
    """Views of ``input`` cut along ``dim``: into ``n`` nearly equal parts (an int: the first ``size % n`` one
    element longer), or at the given indices (a list or 1-D tensor: ``[:i0], [i0:i1], ..., [ik:]``, clipped
    to the size, so a part may be empty)."""
    expect_tensor(input, "tensor_split")
    if input.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = single_dim(dim, input.ndim, "tensor_split")
    cuts = indices_or_sections
    if isinstance(cuts, Tensor):
        if cuts.dtype != numpy.int64:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have int64 (long) dtype, but "
                               f"got {cuts.dtype.name}: convert it with .long()")
        if cuts.ndim > 1:
            raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {cuts.ndim} dims")
        cuts = int(to_host(cuts._data)) if cuts.ndim == 0 else [int(i) for i in to_host(cuts._data)]
    n = input.shape[d]
    if isinstance(cuts, numbers.Integral) and not isinstance(cuts, bool):
        if cuts <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {cuts}")
        size, longer = divmod(n, cuts)
        bounds, lo = [], 0
        for i in range(cuts):
            hi = lo + size + (i < longer)
            bounds.append((lo, hi))
            lo = hi
    elif isinstance(cuts, (list, tuple)):
        edges = [0, *(int(i) for i in cuts), n]
        bounds = list(zip(edges[:-1], edges[1:]))
    else:
        raise TypeError(f"tensor_split(): indices_or_sections must be an int, a list of ints or an integer tensor, "
                        f"got {type(cuts).__name__}")
    lead = (slice(None),) * d
    return tuple(getitem(input, lead + (slice(lo, hi),)) for lo, hi in bounds)   # (Python's slicing clips them)


def block_diag(*tensors):
    """The tensors as blocks on the diagonal of one matrix, zeros elsewhere (0-d: a 1 x 1 block; 1-d of n: a
    1 x n block), in their common dtype."""
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"block_diag(): expected a Tensor at position {i}, got {type(t).__name__}")
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.ndim} dimensions")
    if not tensors:
        device = get_default_device()
        return Tensor._make(asarray(numpy.zeros((1, 0), default_float()), device), False, None, device)
    dtype = result_type(*tensors)   # (of the blocks as given: a 0-d one counts as a number, as in PyTorch)
    blocks = [reshape(t, (1,) * (2 - t.ndim) + tuple(t.shape)) for t in tensors]
    width = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        r, c = b.shape
        pads = [Tensor._make(xp_of(b._data).zeros((r, k), dtype=dtype), False, None, b.device)
                for k in (left, width - left - c)]
        rows.append(cat([pads[0], b if b.dtype == dtype else to_dtype(b, dtype), pads[1]], 1))
        left += c
    return cat(rows, 0)


def cartesian_prod(*tensors):
    """Every combination of one element from each vector, as rows (``itertools.product`` order): shape
    (n1*n2*..., k); one vector is returned as it is."""
    for i, t in enumerate(tensors):
        expect_tensor(t, "cartesian_prod")
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)} at position {i}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([reshape(g, (-1,)) for g in grids], 1)
