"""PyTorch's out-of-place writes: a copy of ``input`` with ``src`` written into one part of it.
``select_scatter`` (one index along a dim), ``slice_scatter`` (a slice), ``diagonal_scatter`` (a diagonal),
``index_put`` (advanced indices, or adding there with ``accumulate=True``), ``put`` (flat indices) and
``index_reduce`` (rows of ``source`` reduced into the rows ``index`` names).

Each clones ``input`` and writes through a view of the clone, so the gradient is that of the write: ``input``
gets ``g`` with the written part zeroed, ``src`` gets ``g`` at the written part (summed where ``accumulate`` adds
several values at one place)."""
from __future__ import annotations

import numpy

from ..backend import asarray, to_host
from ..tensor import Tensor
from . import elementwise as E
from .reduce import single_dim
from .registry import expect_tensor
from .selection import index_add, scatter_reduce
from .shape import broadcast_to, reshape

__all__ = ["select_scatter", "slice_scatter", "diagonal_scatter", "index_put", "put", "index_reduce"]


def _same_shape(name, view, src):
    if tuple(view.shape) != tuple(src.shape):
        raise RuntimeError(f"{name}: expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(view.shape)}")


def _written(name, input, src, where):
    """A clone of ``input`` with ``src`` copied into ``where(clone)`` (a view of the clone)."""
    expect_tensor(input, name)
    expect_tensor(src, name)
    out = E.clone(input)
    part = where(out)
    _same_shape(name, part, src)
    part.copy_(src)   # (copy_ casts src to input's dtype, as PyTorch's scatters do)
    return out


def select_scatter(input, src, dim, index):
    """``input`` with ``input.select(dim, index)`` replaced by ``src``."""
    d = single_dim(dim, input.ndim, "select_scatter")
    return _written("select_scatter", input, src, lambda t: t[(slice(None),) * d + (index,)])


def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """``input`` with ``input[..., start:end:step, ...]`` (along ``dim``) replaced by ``src``."""
    d = single_dim(dim, input.ndim, "slice_scatter")
    if step is None or step <= 0:
        raise RuntimeError(f"slice_scatter: slice step must be positive, got {step}")
    return _written("slice_scatter", input, src, lambda t: t[(slice(None),) * d + (slice(start, end, step),)])


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """``input`` with its ``offset``-th diagonal over ``dim1`` and ``dim2`` replaced by ``src`` (written at the
    diagonal's flat positions, as :func:`put` writes)."""
    expect_tensor(input, "diagonal_scatter")
    expect_tensor(src, "diagonal_scatter")
    positions = numpy.arange(input.numel(), dtype=numpy.int64).reshape(tuple(input.shape))
    d1, d2 = single_dim(dim1, input.ndim, "diagonal_scatter"), single_dim(dim2, input.ndim, "diagonal_scatter")
    on_diagonal = numpy.ascontiguousarray(numpy.diagonal(positions, offset, d1, d2))
    _same_shape("diagonal_scatter", on_diagonal, src)
    index = Tensor._make(asarray(on_diagonal, input.device), False, None, input.device)
    return put(input, index, src if src.dtype == input.dtype else E.to_dtype(src, input.dtype))


def index_put(input, indices, values, accumulate=False):
    """``input`` with ``values`` written at ``input[indices]`` (``indices`` a tuple of index tensors, one per
    leading dim, or masks), or added there with ``accumulate=True``: then a place named several times gets
    every value named for it (``out[i] = out[i] + v`` would keep one)."""
    expect_tensor(input, "index_put")
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put(): argument 'indices' must be tuple of Tensors, not {type(indices).__name__}")
    values = values if isinstance(values, Tensor) else E.as_tensor_like(values, input)
    if not accumulate:
        out = E.clone(input)
        out[tuple(indices)] = values
        return out
    # accumulate: turn the indices into flat positions over the indexed leading dims, then index_add there
    positions = []
    for i in indices:
        if not isinstance(i, Tensor):
            raise TypeError("index_put(accumulate=True): indices must be tensors")
        if i.dtype.kind not in "biu":
            raise IndexError(f"tensors used as indices must be long, int, byte or bool tensors, got {i.dtype.name}")
        if i.dtype.kind == "b" or i.dtype == numpy.uint8:   # a mask (uint8: PyTorch's old one): the positions
            positions.extend(Tensor._make(p, False, None, input.device) for p in i._data.nonzero())
        else:
            positions.append(i)
    k = len(positions)
    if k > input.ndim:
        raise IndexError(f"index_put: too many indices for tensor of dimension {input.ndim} (got {k})")
    lead, rest = tuple(input.shape[:k]), tuple(input.shape[k:])
    for p, n in zip(positions, lead):
        host = to_host(p._data)
        if host.size and (host.min() < -n or host.max() >= n):
            raise IndexError(f"index_put: index {int(host.max() if host.max() >= n else host.min())} is out of "
                             f"bounds for dimension with size {n}")
    index_shape = numpy.broadcast_shapes(*(tuple(p.shape) for p in positions))
    flat = 0
    for p, n in zip(positions, lead):   # row-major position over the leading dims, negatives wrapped
        flat = flat * n + E.remainder(broadcast_to(p, index_shape), n)
    flat = reshape(flat, (-1,)) if isinstance(flat, Tensor) else flat
    count = int(numpy.prod(index_shape, dtype=numpy.int64))
    source = reshape(broadcast_to(values, index_shape + rest), (count,) + rest)
    grouped = reshape(input, (int(numpy.prod(lead, dtype=numpy.int64)),) + rest)
    return reshape(index_add(grouped, 0, E.to_dtype(flat, numpy.dtype("int64")), source), tuple(input.shape))


def put(input, index, source, accumulate=False):
    """``input`` with ``source`` written (or added, ``accumulate=True``) at the flat positions ``index`` of it,
    as if ``input`` were 1-D (negative positions count from the end)."""
    expect_tensor(input, "put")
    expect_tensor(index, "put")
    if index.dtype != numpy.int64:   # (a uint8 one would be read as a mask)
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {index.dtype.name}: convert it "
                           f"with index.long()")
    if index.numel() != (source.numel() if isinstance(source, Tensor) else 1):
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                           f"source.numel() = {source.numel() if isinstance(source, Tensor) else 1}, index.numel() "
                           f"= {index.numel()}")
    flat = index_put(reshape(input, (-1,)), (reshape(index, (-1,)),),
                     reshape(source, (-1,)) if isinstance(source, Tensor) else source, accumulate)
    return reshape(flat, tuple(input.shape))


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """``input`` with each slice ``source.select(dim, i)`` reduced into ``input.select(dim, index[i])``: ``reduce``
    is 'prod', 'mean', 'amax' or 'amin' (``include_self=False`` leaves the input's own value out where something
    arrives). It is ``scatter_reduce`` with ``index`` spread over ``source``'s shape, so its gradients are that
    op's (PyTorch's rules for ties and zeros)."""
    expect_tensor(input, "index_reduce")
    expect_tensor(index, "index_reduce")
    expect_tensor(source, "index_reduce")
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    d = single_dim(dim, input.ndim, "index_reduce")
    if index.ndim > 1 or index.dtype.kind not in "iu":
        raise IndexError(f"index_reduce_(): Index is supposed to be a vector of integers, got shape "
                         f"{tuple(index.shape)} of {index.dtype.name}")
    if source.ndim != input.ndim or any(a != b for i, (a, b) in enumerate(zip(source.shape, input.shape)) if i != d):
        raise RuntimeError(f"index_reduce_(): source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(input.shape)} source.shape = "
                           f"{list(source.shape)}")
    if index.numel() != (source.shape[d] if source.ndim else 1):
        raise RuntimeError(f"index_reduce_(): Number of indices ({index.numel()}) should be equal to "
                           f"source.size(dim) ({source.shape[d] if source.ndim else 1})")
    shape = [1] * source.ndim
    if source.ndim:
        shape[d] = -1
    spread = reshape(index, tuple(shape)).expand(*source.shape) if source.ndim else index.reshape(())
    return scatter_reduce(input, d, spread, source, reduce, include_self=include_self)
