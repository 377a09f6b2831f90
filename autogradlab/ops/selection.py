"""Ops that write into or pick out of a tensor by index: ``scatter``, ``scatter_add``, ``index_add``,
``take_along_dim``, ``masked_select`` (differentiable: built from ``getitem``, ``put`` and ``index_add_into``,
whose gradients they inherit), and the index-valued ``nonzero``, ``argwhere``, ``unique``, ``bincount`` and
``count_nonzero`` (not differentiable: their results never require grad). Index arrays are computed from
the index tensors on their device; the data is only ever reached through the ops."""
from __future__ import annotations

import numbers
import warnings

import numpy

from ..backend import scatter_add as scatter_add_at
from ..backend import scatter_extreme, scatter_multiply
from ..backend import asarray, to_host, xp_of
from ..grad_mode import is_grad_enabled
from ..tensor import Tensor
from . import inplace as I
from . import elementwise as E
from .elementwise import ALL_FLOATS, add, fits, mul, ordered
from .rearrange import check_index_vector
from .reduce import reduction_dims, single_dim
from .registry import apply, broadcast_shape, defop, expect_tensor
from .shape import expand, gather, getitem, index_add_into, positions_along, put, reshape


def _check_bounds(idx, n, d, name):
    picks = to_host(idx)
    if picks.size and (picks.min() < 0 or picks.max() >= n):
        bad = int(picks.min()) if picks.min() < 0 else int(picks.max())
        raise RuntimeError(f"{name}(): index {bad} is out of bounds for dimension {d} with size {n}; "
                           f"indices count from 0 and are not negative")


def _scatter_index(name, a, dim, index, src):
    """Check ``scatter``/``scatter_add``'s arguments as PyTorch does; return ``(positions, src values)``:
    the full index to write at and the part of ``src`` that is written (``src[:index.shape]``)."""
    expect_tensor(a, name)
    if not isinstance(index, Tensor):
        raise TypeError(f"{name}(): index must be a Tensor of integers, got {type(index).__name__}: wrap it with "
                        f"autogradlab.tensor(..., dtype=autogradlab.int64)")
    d = single_dim(dim, a.ndim, name)
    if index.dtype not in (numpy.int64, numpy.int32):
        raise RuntimeError(f"{name}(): Expected dtype int64 (or int32) for index, got {index.dtype.name}: convert "
                           f"it with index.long()")
    if isinstance(src, Tensor) and src.dtype != a.dtype:
        raise RuntimeError(f"{name}(): Expected self.dtype to be equal to src.dtype, got {a.dtype.name} and "
                           f"{src.dtype.name}: convert src with src.to({a.dtype.name})")
    sizes = [max(t.ndim, 1) for t in (a, index, src) if isinstance(t, Tensor)]
    if len(set(sizes)) != 1:
        raise RuntimeError(f"{name}(): Index tensor must have the same number of dimensions as self tensor "
                           f"(and src): got shapes {tuple(index.shape)} for index and {tuple(a.shape)} for self; "
                           f"add dims with index.unsqueeze(...)")
    a_shape, i_shape = a.shape or (1,), index.shape or (1,)
    s_shape = (src.shape or (1,)) if isinstance(src, Tensor) else i_shape
    if index.numel() and any(i_shape[k] > s_shape[k] or (k != d and i_shape[k] > a_shape[k])
                             for k in range(len(i_shape))):
        raise RuntimeError(f"{name}(): Expected index {list(index.shape)} to be no larger than self "
                           f"{list(a.shape)} apart from dimension {d} and to be no larger than src "
                           f"{list(s_shape)}")
    idx = index._data.reshape(i_shape).astype(numpy.int64)
    _check_bounds(idx, a_shape[d], d, name)
    positions = positions_along(idx, d)
    if not isinstance(src, Tensor):
        return positions, src
    src = reshape(src, s_shape)
    if s_shape != i_shape:   # (only the first index.shape elements of src are written)
        src = getitem(src, tuple(slice(0, n) for n in i_shape))
    return positions, src


def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    """``input`` with ``src[i][j]`` written along ``dim`` where ``index`` says (for dim=0:
    ``out[index[i][j]][j] = src[i][j]``); ``src`` a tensor or a number. Where an index repeats, one of the
    writes wins (PyTorch leaves which one unspecified). Gradients: ``dinput = g`` with zeros where written,
    ``dsrc = gather(g, dim, index)``."""
    if src is None:   # (PyTorch's scatter(input, dim, index, value=...) spelling)
        src = value
    if reduce is not None:   # (PyTorch's older form: scatter_reduce's 'sum' and 'prod', with the input's values)
        if reduce not in ("add", "multiply"):
            raise RuntimeError(f"scatter(): reduce argument must be either add or multiply, got {reduce!r} (for "
                               f"'mean', 'amax' or 'amin' use scatter_reduce)")
        if isinstance(src, Tensor):
            warnings.warn("The reduce argument of torch.scatter with Tensor src is deprecated and will be removed "
                          "in a future PyTorch release. Use torch.scatter_reduce instead for more reduction "
                          "options.", UserWarning, stacklevel=2)
        elif isinstance(src, numbers.Number):
            src = Tensor._make(xp_of(input._data).full(tuple(index.shape), src, dtype=input.dtype), False, None,
                               input.device)
        return scatter_reduce(input, dim, index, src, "sum" if reduce == "add" else "prod")
    if not isinstance(src, (Tensor, numbers.Number)):
        raise TypeError(f"scatter(): src must be a Tensor or a number, got {type(src).__name__}")
    src = fits(src, input.dtype, "scatter", ALL_FLOATS)
    positions, src = _scatter_index("scatter", input, dim, index, src)
    if input.ndim == 0:
        return reshape(put(reshape(input, 1), positions, src), ())
    return put(input, positions, src)


def scatter_add(input, dim, index, src):
    """``input`` with ``src[i][j]`` added along ``dim`` where ``index`` says (for dim=0:
    ``out[index[i][j]][j] += src[i][j]``); repeated indices add up. Gradients: ``dinput = g``,
    ``dsrc = gather(g, dim, index)``."""
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_add(): argument 'src' (position 4) must be Tensor, not {type(src).__name__}")
    positions, src = _scatter_index("scatter_add", input, dim, index, src)
    shape = input.shape or (1,)
    return add(input, reshape(index_add_into(src, shape, positions), input.shape))


def _extreme_at_forward(xp, a, src, index, result, self_share, src_share):
    return result.copy()


def _extreme_at_vjp(g, ctx):
    # the gradient goes to the values equal to the result, split evenly among ties: shares made with the result
    index, self_share, src_share = ctx.index, ctx.self_share, ctx.src_share
    if isinstance(g, Tensor):   # recording: the shares are constants
        return mul(g, self_share), mul(getitem(g, index, copy=False), src_share)
    return g * self_share, g[index] * src_share


SCATTER_EXTREME = defop("scatter_extreme", ("self", "src"), save=("index", "self_share", "src_share"),
                        math="the largest (smallest) of a and the src values sent to each position;  da = g * [a is "
                             "it] / ties, dsrc = g[index] * [src is it] / ties",
                        forward=_extreme_at_forward, vjp=_extreme_at_vjp,
                        formulas=("1/ties where a is the extreme", "1/ties where src is the extreme"))


def _prod_at_forward(xp, a, src, index, own):
    out = xp.where(own, a, a.dtype.type(1))
    scatter_multiply(out, index, src)
    return out


def _prod_at_vjp(g, ctx):
    """d a = g * (the product of the src values at a's position) where a takes part; d src_j = g * (the
    product of everything else at its position): result / src_j, or, for the one zero src value at a
    position, the product with it taken as 1 (with two zeros there, 0). Recorded for a second derivative,
    two zeros at one position are refused, as in PyTorch (this formula's mixed derivative there is wrong)."""
    a, src, index, own, result = ctx.self, ctx.src, ctx.index, ctx.own, ctx.result
    xp = xp_of(src._data)
    ones_src = _constant(xp.ones(src.shape, a.dtype), a)
    srcs_only = apply(SCATTER_PROD, (_constant(xp.ones(a.shape, a.dtype), a), src), {"index": index, "own": own})
    grad_a = E.where(_constant(own, a), mul(g, srcs_only), 0.0)
    zero = src._data == 0
    zeros_at = xp.zeros(a.shape, numpy.int64)   # (how many zero src values each position receives)
    scatter_add_at(zeros_at, index, zero.astype(numpy.int64))
    if isinstance(g, Tensor) and is_grad_enabled() and bool((zeros_at > 1).any()):   # (as PyTorch: see README)
        raise RuntimeError("scatter_reduce(): Double backward is unsupported for src when >1 zeros in src are "
                           "scattered to the same position in self")
    single = _constant(zero & (zeros_at[index] == 1), a)
    without = apply(SCATTER_PROD, (a, E.where(single, ones_src, src)), {"index": index, "own": own})
    others = E.where(single, getitem(without, index, copy=False),
                     E.div(getitem(result, index, copy=False), E.where(_constant(zero, a), ones_src, src)))
    return grad_a, mul(getitem(g, index, copy=False), others)


def _constant(array, like):
    """An array already on ``like``'s device, as a constant Tensor there."""
    return Tensor._make(array, False, None, like.device)


SCATTER_PROD = defop("scatter_prod", ("self", "src"), save=("self", "src", "result"), arrays=False,
                     math="a (where it takes part) times the src values sent to each position;  da = g * prod(src "
                          "there), dsrc_j = g[index] * prod(everything else there)",
                     forward=_prod_at_forward, vjp=_prod_at_vjp,
                     formulas=("prod of the src values there", "prod of the others there"))


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """``input`` with the ``src`` values that ``index`` sends to each position (as ``scatter_add`` sends them:
    for dim=0, ``src[i][j]`` to ``out[index[i][j]][j]``) reduced together: ``reduce`` is 'sum', 'prod', 'mean',
    'amax' or 'amin'; ``include_self=False`` leaves the input's own value out where something arrives.
    Gradients: 'sum' as ``scatter_add``, 'prod' the product of the others, 'mean' the same divided by each
    position's count, 'amax'/'amin' to every value equal to the result, split evenly among ties (as PyTorch)."""
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)     # (PyTorch takes these spellings too)
    if reduce in ("amax", "amin"):
        for t in (input, src):
            if isinstance(t, Tensor):
                ordered(f"scatter_reduce({reduce!r})", t)
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise RuntimeError(f"scatter_reduce(): reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce!r}")
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_reduce(): argument 'src' (position 4) must be Tensor, not {type(src).__name__}")
    positions, src = _scatter_index("scatter_reduce", input, dim, index, src)
    shape = input.shape or (1,)
    a = reshape(input, shape)
    xp = xp_of(a._data)
    arrives = xp.zeros(shape, numpy.int64)     # how many src values each position receives
    scatter_add_at(arrives, positions, xp.ones(src.shape, numpy.int64))
    own = xp.ones(shape, bool) if include_self else arrives == 0    # where the input's own value takes part
    if reduce == "prod":
        return reshape(apply(SCATTER_PROD, (a, src), {"index": positions, "own": own}), input.shape)
    if reduce in ("sum", "mean"):
        total = add(mul(a, own.astype(a.dtype)), reshape(index_add_into(src, shape, positions), shape))
        if reduce == "sum":
            return reshape(total, input.shape)
        count = xp.maximum(arrives + own, 1).astype(a.dtype)
        mean = E.div(total, count) if a.dtype.kind == "f" else E.floor_divide(total, count)
        return reshape(mean, input.shape)
    largest = reduce == "amax"
    result = a._data.copy()
    if not include_self:      # (where something arrives, start from the identity of max / min)
        if a.dtype.kind == "f":
            start = -numpy.inf if largest else numpy.inf
        elif a.dtype.kind == "b":
            start = not largest
        else:
            start = numpy.iinfo(a.dtype).min if largest else numpy.iinfo(a.dtype).max
        result[arrives > 0] = start
    scatter_extreme(result, positions, src._data, largest)
    self_is = own & (a._data == result)
    src_is = src._data == result[positions]
    ties = self_is.astype(numpy.int64)
    scatter_add_at(ties, positions, src_is.astype(numpy.int64))
    ties = xp.maximum(ties, 1).astype(a.dtype)
    self_share, src_share = self_is / ties, src_is / ties[positions]
    if a.dtype.kind == "f":   # (a NaN result: NaN gradients to what took part, as PyTorch's 0 ties give)
        self_share[own & xp.isnan(result)] = numpy.nan
        src_share[xp.isnan(result[positions])] = numpy.nan
    out = apply(SCATTER_EXTREME, (a, src), {"index": positions, "result": result, "self_share": self_share,
                                            "src_share": src_share})
    return reshape(out, input.shape)


def index_add(input, dim, index, source, *, alpha=1):
    """``input`` with ``alpha * source`` added along ``dim`` at the entries ``index`` names (for dim=0:
    ``out[index[i]] += alpha * source[i]``); repeated indices add up. Gradients: ``dinput = g``,
    ``dsource = alpha * index_select(g, dim, index)``."""
    expect_tensor(input, "index_add")
    expect_tensor(source, "index_add")
    if not isinstance(index, Tensor):
        raise TypeError(f"index_add(): argument 'index' (position 3) must be Tensor, not {type(index).__name__}")
    d = single_dim(dim, input.ndim, "index_add")
    check_index_vector(index, "index_add")
    a_shape, s_shape = input.shape or (1,), source.shape or (1,)
    if len(a_shape) != len(s_shape) or any(a_shape[k] != s_shape[k] for k in range(len(a_shape)) if k != d):
        raise RuntimeError(f"index_add(): source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(input.shape)} source.shape = "
                           f"{list(source.shape)}")
    if index.numel() != s_shape[d]:
        raise RuntimeError(f"index_add_(): Number of indices ({index.numel()}) should be equal to "
                           f"source.size(dim): ({s_shape[d]}), for dim: {d}")
    if source.dtype != input.dtype:
        raise RuntimeError(f"index_add_(): self ({input.dtype.name}) and source ({source.dtype.name}) must have "
                           f"the same scalar type: convert source with source.to({input.dtype.name})")
    idx = index._data.reshape(-1).astype(numpy.int64)
    _check_bounds(idx, a_shape[d], d, "index_add")
    # source entry j goes to position idx[j] along d: the same full index scatter uses, for source's shape
    xp = xp_of(idx)
    positions = positions_along(xp.broadcast_to(idx.reshape((-1,) + (1,) * (len(s_shape) - d - 1)), s_shape), d)
    if input.dtype.kind in "biu":   # (on integers PyTorch takes alpha as an integer: 2.5 counts as 2)
        alpha = int(alpha)
    if alpha != 1:
        source = mul(source, alpha)
    added = index_add_into(reshape(source, s_shape), a_shape, positions)
    return add(input, reshape(added, input.shape))


def take_along_dim(input, indices, dim=None):
    """The elements of ``input`` that ``indices`` names along ``dim``, ``input`` and ``indices`` broadcast
    against each other along the other dims (``dim=None``: of the flattened input). As ``gather``:
    ``dinput = zeros with g added at the indices``. Negative indices count from the end."""
    expect_tensor(input, "take_along_dim")
    if not isinstance(indices, Tensor):
        raise TypeError(f"take_along_dim(): argument 'indices' (position 2) must be Tensor, not "
                        f"{type(indices).__name__}")
    if indices.dtype != numpy.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{indices.dtype.name}: convert it with indices.long()")
    if dim is None:
        input, indices, d = reshape(input, -1), reshape(indices, -1), 0
    else:
        d = single_dim(dim, input.ndim, "take_along_dim")
        if input.ndim != indices.ndim:
            raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of "
                               f"dimensions, but got {input.ndim} dimensions for input, and {indices.ndim} "
                               f"dimensions for indices")
        if input.ndim == 0:
            raise IndexError(f"take_along_dim(): Dimension specified as {dim} but tensor has no dimensions; "
                             f"leave dim=None to index a 0-d tensor")
        shape = list(numpy.broadcast_shapes(*[s[:d] + (1,) + s[d + 1:] for s in (input.shape, indices.shape)]))
        input = expand(input, shape[:d] + [input.shape[d]] + shape[d + 1:])
        indices = expand(indices, shape[:d] + [indices.shape[d]] + shape[d + 1:])
    n = input.shape[d]
    idx = indices._data
    picks = to_host(idx)
    if picks.size and (picks.min() < -n or picks.max() >= n):
        bad = int(picks.min()) if picks.min() < -n else int(picks.max())
        raise IndexError(f"take_along_dim(): index {bad} is out of bounds for dimension {d} with size {n}")
    wrapped = Tensor._make(idx % n if n else idx, False, None, indices.device)
    return gather(input, d, wrapped)


def masked_select(input, mask):
    """The elements of ``input`` where ``mask`` (bool; the two broadcast against each other) is True, as a
    1-D tensor in order. ``dinput = zeros with g where mask is True``."""
    expect_tensor(input, "masked_select")
    if not isinstance(mask, Tensor) or mask.dtype != numpy.bool_:
        raise RuntimeError(f"masked_select: expected BoolTensor for mask, got "
                           f"{getattr(mask, 'dtype', type(mask).__name__)}: make it with a comparison "
                           f"(x > 0) or mask.bool()")
    shape = broadcast_shape("masked_select", input.shape, mask.shape)
    keep = xp_of(mask._data).broadcast_to(mask._data, shape)
    return getitem(reshape(expand(input, shape), -1), keep.reshape(-1))


# -- index-valued results: computed on the arrays, never requiring grad ----------------------------------------

def _unique_slices(input, d, return_inverse, return_counts):
    """``unique(dim=d)``: the distinct slices along ``d``, sorted lexicographically; the inverse says which one
    each slice of ``input`` is (one entry per slice), the counts how often each occurs."""
    values, inverse, counts = numpy.unique(to_host(input._data), axis=d, return_inverse=True, return_counts=True,
                                           equal_nan=False)   # (each NaN distinct, as PyTorch and dim=None keep it)
    out = [_result(asarray(numpy.ascontiguousarray(values), input.device), input)]
    if return_inverse:
        out.append(_result(asarray(inverse.reshape(-1).astype(numpy.int64), input.device), input))
    if return_counts:
        out.append(_result(asarray(counts.astype(numpy.int64), input.device), input))
    return out[0] if len(out) == 1 else tuple(out)


def _result(array, like):
    return Tensor._make(array, False, None, like.device)


def nonzero(input, *, as_tuple=False):
    """The positions of the nonzero elements, one row each (shape ``(n, ndim)``, int64), in order; with
    ``as_tuple=True``, one 1-D tensor per dim (a 0-d input counts as 1-d)."""
    expect_tensor(input, "nonzero")
    data = input._data
    xp = xp_of(data)
    rows = xp.argwhere(data).astype(numpy.int64)
    if as_tuple:
        if input.ndim == 0:
            return (_result(xp.zeros(int(rows.shape[0]), dtype=numpy.int64), input),)
        return tuple(_result(xp.ascontiguousarray(rows[:, k]), input) for k in range(input.ndim))
    return _result(rows, input)


def where(condition, input=None, other=None):
    """``where(condition, input, other)``: ``input`` where ``condition`` holds, else ``other`` (differentiable);
    ``where(condition)`` alone is ``nonzero(condition, as_tuple=True)``, as in PyTorch."""
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    return E.where(condition, input, other)


def argwhere(input):
    """``nonzero(input)``: the positions of the nonzero elements, shape ``(n, ndim)``."""
    return nonzero(input)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements of ``input``, sorted (also with ``sorted=False``, as PyTorch's CPU unique);
    optionally where each element of ``input`` is among them (``inverse``, input's shape) and how often each
    occurs (``counts``), both int64. With ``dim``, the distinct slices along that dim instead."""
    expect_tensor(input, "unique")
    ordered("unique", input)
    if dim is not None:
        return _unique_slices(input, single_dim(dim, input.ndim, "unique"), return_inverse, return_counts)
    data = input._data
    values, inverse, counts = xp_of(data).unique(data.reshape(-1), return_inverse=True, return_counts=True,
                                                 equal_nan=False)   # (each NaN its own, as PyTorch)
    out = [_result(values, input)]
    if return_inverse:
        out.append(_result(inverse.astype(numpy.int64).reshape(input.shape), input))
    if return_counts:
        out.append(_result(counts.astype(numpy.int64), input))
    return out[0] if len(out) == 1 else tuple(out)


def bincount(input, weights=None, minlength=0):
    """How often each value ``0, 1, ..., max`` occurs in the 1-D non-negative integer ``input`` (at least
    ``minlength`` counts); with ``weights``, the sum of their weights instead (float32 weights give float32,
    other weights float64). Not differentiable (PyTorch has no derivative for it either)."""
    expect_tensor(input, "bincount")
    if input.dtype.kind not in "iu":
        raise NotImplementedError(f"bincount() is not implemented for {input.dtype.name} input: it counts "
                                  f"integers; convert with input.long()")
    if minlength < 0:
        raise RuntimeError(f"bincount(): minlength should be >= 0, got {minlength}")
    data = input._data
    if input.ndim != 1 or (data.size and int(to_host(data).min()) < 0):
        raise RuntimeError(f"bincount only supports 1-d non-negative integral inputs, got shape "
                           f"{tuple(input.shape)}; flatten with input.reshape(-1)")
    if weights is not None and (weights.ndim != 1 or weights.shape[0] != input.shape[0]):
        raise RuntimeError(f"bincount(): weights should be 1-d and have the same length as input, got shapes "
                           f"{tuple(weights.shape)} and {tuple(input.shape)}")
    xp = xp_of(data)
    if weights is None:
        return _result(xp.bincount(data, minlength=minlength).astype(numpy.int64), input)
    dtype = numpy.float32 if weights.dtype == numpy.float32 else numpy.float64
    return _result(xp.bincount(data, weights._data.astype(numpy.float64), minlength=minlength).astype(dtype), input)


def count_nonzero(input, dim=None):
    """How many elements are nonzero, over ``dim`` (an int or a tuple of ints; all dims by default), int64."""
    expect_tensor(input, "count_nonzero")
    dims = reduction_dims(dim, input.ndim, "count_nonzero")   # (() means all dims; a repeated dim raises)
    data = input._data
    return _result(xp_of(data).count_nonzero(data, axis=dims if input.ndim else None).astype(numpy.int64)
                   .reshape(tuple(n for k, n in enumerate(input.shape) if k not in dims)), input)


# -- in place: the out-of-place op, written back (ops.inplace checks leaves, overlap, versions) ----------------

def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
    return I.inplace(self, "scatter_", lambda old, *s: scatter(old, dim, index, s[0] if s else value,
                                                                reduce=reduce), *([src] if src is not None else []))


def scatter_add_(self, dim, index, src):
    return I.inplace(self, "scatter_add_", lambda old, s: scatter_add(old, dim, index, s), src)


def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    return I.inplace(self, "scatter_reduce_", lambda old, s: scatter_reduce(old, dim, index, s, reduce,
                                                                            include_self=include_self), src)


def index_add_(self, dim, index, source, *, alpha=1):
    return I.inplace(self, "index_add_", lambda old, s: index_add(old, dim, index, s, alpha=alpha), source)


__all__ = ["scatter", "scatter_add", "scatter_reduce", "index_add", "take_along_dim", "masked_select", "nonzero",
           "argwhere", "unique", "bincount", "count_nonzero", "scatter_", "scatter_add_", "scatter_reduce_",
           "index_add_"]
