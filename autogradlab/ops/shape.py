"""Shape ops: the data is rearranged, never changed, so each VJP rearranges ``g`` back."""
from __future__ import annotations

import math
import numbers
import operator
import re
import warnings

import numpy

from ..backend import asarray, scatter_add, shares_memory
from ..backend import xp_of
from ..backend import broadcast_to as broadcast_view
from ..graph import sum_to
from ..tensor import Tensor
from ..return_types import return_type
from .elementwise import result_type, to_dtype
from .reduce import expand_back, normalize_dims, single_dim
from .registry import apply, apply_one, defop, expect_tensor


def _size_args(sizes):
    """Sizes (or dims) given as ``f(2, 3)`` or ``f((2, 3))``: ints only (a float or a bool is refused, as
    PyTorch refuses it: ``reshape(6.0)`` is almost always a division that should have been ``//``)."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = sizes[0]
    try:
        if any(type(n) is bool for n in sizes):
            raise TypeError
        return tuple(map(operator.index, sizes))
    except TypeError:
        raise TypeError(f"sizes and dims must be ints, got {tuple(sizes)!r}; a size computed by division "
                        f"needs // (or int(...))") from None


def _reshape_forward(xp, a, shape):
    return a.reshape(shape)


RESHAPE = defop("reshape", ("self",), math="reshape(a);  da = reshape_back(g)", view="if_shared",
                forward=_reshape_forward,
                vjp=lambda g, ctx: (g.reshape(ctx._input_shapes[0]),), formulas=("1",))

def _transpose_vjp(g, ctx):
    d0, d1 = ctx.params["dim0"], ctx.params["dim1"]
    return (transpose(g, d0, d1) if isinstance(g, Tensor) else g.swapaxes(d0, d1),)


TRANSPOSE = defop("transpose", ("self",), math="swap axes i, j;  da = swap_back(g)", view=True,
                  forward=lambda xp, a, dim0, dim1: a.swapaxes(dim0, dim1),
                  vjp=_transpose_vjp, formulas=("1",))

PERMUTE = defop("permute", ("self",), math="permute axes;  da = inverse_permute(g)", view=True,
                forward=lambda xp, a, dims: a.transpose(dims),
                vjp=lambda g, ctx: (permute(g, tuple(numpy.argsort(ctx.dims).tolist())),), formulas=("1",))

def _expand_forward(xp, a, shape):
    """A view repeating ``a`` over ``shape`` (read-only where it repeats an element: a write there would race);
    one that repeats none (new size-1 dims, or no elements at all) is ``a`` reshaped, writable as PyTorch's."""
    if math.prod(shape) == a.size:
        return a.reshape(shape)
    return broadcast_view(a, shape)


EXPAND = defop("expand", ("self",), math="broadcast a to a shape;  da = g summed over broadcast axes",
               view=True,
               forward=_expand_forward,
               vjp=lambda g, ctx: (g,), formulas=("1",))  # Node.apply sums g back to a's shape

SUM_TO_SIZE = defop("sum_to_size", ("self",), math="sum a down to a shape;  da = g expanded",
                    forward=lambda xp, a, shape: sum_to(a, shape),
                    vjp=lambda g, ctx: (expand_back(g, ctx._input_shapes[0], (), True),), formulas=("1",))


def _index_vjp(g, ctx):
    return (index_add_into(g, ctx._input_shapes[0], ctx.index),)


def _view_forward(xp, a, index, advanced):
    # with an Ellipsis, even a full integer index (a[1, 1], a[-1] of a vector) gives a 0-d view, not a copy
    parts = index if isinstance(index, tuple) else (index,)
    return a[parts if any(p is Ellipsis for p in parts) else parts + (Ellipsis,)]


GETITEM = defop("getitem", ("self",), math="a[index] (ints, slices, None, ...: a view);  da = zeros with g at index",
                view=True,
                forward=_view_forward,
                vjp=_index_vjp, formulas=("1 at index",), arrays=False)

# integer / bool array indexing copies (not a view, as in PyTorch), and an index may repeat
INDEX = defop("index", ("self",), save=("index",),
              math="a[index] (integer/bool arrays: a copy);  da = zeros with g added at index (repeats add up)",
              # (an advanced index copies: laid out row by row, as PyTorch's copy, so .view() works on it)
              forward=lambda xp, a, index, advanced: xp.ascontiguousarray(a[index]) if advanced else a[index],
              vjp=_index_vjp, formulas=("1 at index",), arrays=False)


def _scatter_forward(xp, g, shape, index, advanced):
    out = xp.zeros(shape, dtype=g.dtype)
    if advanced:
        scatter_add(out, index, g)   # repeated indices accumulate, as numpy.add.at does
    else:
        out[index] = g
    return out


def _index_put_forward(xp, a, values, index):
    out = a.copy()
    out[index] = values
    return out


def _index_put_vjp(g, ctx):
    # the elements written over are gone from a: it gets g with zeros there; the values get g read back at
    # index (a value written to two places gets both; Node.apply sums g[index] back to the values' shape)
    need_a, need_v = ctx.needs_input_grad
    index = ctx.index
    if isinstance(g, Tensor):   # recording: the same two ops
        return (put(g, index, 0.0) if need_a else None, getitem(g, index, copy=False) if need_v else None)
    return (_index_put_forward(None, g, 0, index) if need_a else None, g[index] if need_v else None)


# t[index] = v with integer/bool array indices (PyTorch's index_put_): written in place by inplace.py
INDEX_PUT = defop("index_put", ("self", "values"), save=("index",),
                  math="a with a[index] = v (integer/bool arrays);  da = g with zeros at index, dv = g[index]",
                  forward=_index_put_forward, vjp=_index_put_vjp, formulas=("1 except at index", "1 at index"))

SCATTER_ADD = defop("index_add_into", ("self",), math="zeros(shape) with a added at index;  da = g[index]",
                    forward=_scatter_forward,
                    vjp=lambda g, ctx: (g[ctx.index],), formulas=("1 at index",))

CAT = defop("cat", ("tensors",), math="concatenate along dim;  da_i = slice i of g",
            forward=lambda xp, *arrays, dim, bounds: xp.concatenate(arrays, axis=dim),
            vjp=lambda g, ctx: tuple(g[(slice(None),) * ctx.dim + (slice(lo, hi),)]
                                     for lo, hi in ctx.bounds),
            formulas=("1",))

STACK = defop("stack", ("tensors",), math="stack along a new dim;  da_i = g[..., i, ...]",
              forward=lambda xp, *arrays, dim, count: xp.stack(arrays, axis=dim),
              vjp=lambda g, ctx: tuple(g[(slice(None),) * ctx.dim + (i,)] for i in range(ctx.count)),
              formulas=("1",))


# -- the public functions -------------------------------------------------------------------

def reshape(input, *sizes, shape=None):
    """Same data, new shape (one dim may be -1); the shape as numbers, a tuple, or ``shape=``."""
    expect_tensor(input, "reshape")
    shape = _size_args(sizes if shape is None else (shape,))
    numel = input.numel()
    target = shape
    if -1 in shape:
        known = 1
        for n in shape:
            known *= n if n != -1 else 1
        if shape.count(-1) == 1 and known and numel % known == 0:
            target = tuple(numel // known if n == -1 else n for n in shape)
        if shape.count(-1) > 1:
            raise RuntimeError(f"reshape: only one dim can be -1 (inferred), got shape {list(shape)} for a "
                               f"tensor of shape {tuple(input.shape)}")
    if math.prod(target) != numel or -1 in target or (shape and min(shape) < -1):
        raise RuntimeError(f"reshape: shape {list(shape)} is invalid for input of size {input.numel()} (shape "
                           f"{tuple(input.shape)}): the new shape must have {input.numel()} elements in all; "
                           f"write -1 for one dim to have it inferred")
    return apply_one(RESHAPE, input, {"shape": target})


def view(input, *sizes, size=None):
    """``reshape`` that must share ``input``'s memory, as PyTorch's ``view``: where the layout cannot be
    seen with the new shape without a copy (a transposed matrix flattened), it raises."""
    shape = _size_args(sizes if size is None else (size,))
    try:   # (checked on the array first: a refused view records nothing)
        probe = input._data.reshape(shape)
    except ValueError:
        probe = None   # (reshape raises its own error)
    if probe is not None and probe.size and not shares_memory(probe, input._data):
        raise RuntimeError(f"view: a tensor of shape {tuple(input.shape)} laid out as this one is (e.g. transposed) "
                           f"cannot be viewed as {list(probe.shape)} without copying its data: use .reshape(...), "
                           f"which copies when it must, or .contiguous() first")
    return reshape(input, shape)


def flatten(input, start_dim=0, end_dim=-1):
    """Merge dims ``start_dim..end_dim`` into one."""
    expect_tensor(input, "flatten")
    if input.ndim == 0:
        return reshape(input, 1)
    s, e = normalize_dims(start_dim, input.ndim, "flatten")[0], normalize_dims(end_dim, input.ndim, "flatten")[0]
    if s > e:
        raise ValueError(f"flatten: start_dim ({start_dim}) must not come after end_dim ({end_dim})")
    merged = math.prod(input.shape[s:e + 1])
    return reshape(input, input.shape[:s] + (merged,) + input.shape[e + 1:])


def transpose(input, dim0, dim1):
    """Swap two dims."""
    expect_tensor(input, "transpose")
    ndim = input.ndim
    if type(dim0) is int and type(dim1) is int and -ndim <= dim0 < ndim and -ndim <= dim1 < ndim:
        return apply_one(TRANSPOSE, input, {"dim0": dim0 % ndim, "dim1": dim1 % ndim})   # (the common case)
    d0, d1 = (single_dim(d, ndim, "transpose") for d in (dim0, dim1))
    if input.ndim == 0:   # dims 0 / -1 of a 0-d tensor, as in PyTorch: nothing to swap
        return reshape(input, ())
    return apply_one(TRANSPOSE, input, {"dim0": d0, "dim1": d1})


def t(input):
    """The transpose of a matrix (``transpose(a, 0, 1)``); a tensor of 0 or 1 dims as it is (a view)."""
    expect_tensor(input, "t")
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor of at most 2 dims, got shape {tuple(input.shape)}: use "
                           f"transpose(a, dim0, dim1) to say which two dims to swap, or a.mT for the last two")
    return transpose(input, 0, input.ndim - 1 if input.ndim else 0)


def permute(input, *order, dims=None):
    """Reorder all dims (given as numbers, a tuple, or ``dims=``)."""
    expect_tensor(input, "permute")
    dims = _size_args(order if dims is None else (dims,))
    ndim = input.ndim
    if sorted(dims) == list(range(ndim)):   # (the common case: every dim once, none negative)
        return apply_one(PERMUTE, input, {"dims": dims})
    size = max(ndim, 1)
    bad = [d for d in dims if not -size <= d < size]
    if bad:
        raise IndexError(f"permute: dim {bad[0]} is out of range for a tensor of shape {tuple(input.shape)} "
                         f"(expected dims in [{-size}, {size - 1}])")
    norm = tuple(d % size for d in dims) if input.ndim else ()
    if len(dims) != input.ndim or sorted(norm) != list(range(input.ndim)):
        raise RuntimeError(f"permute: dims {list(dims)} must be a permutation of 0..{input.ndim - 1} "
                           f"for a tensor of shape {tuple(input.shape)}")
    return apply_one(PERMUTE, input, {"dims": norm})


def expand(input, *sizes, size=None):
    """Broadcast to ``sizes`` (-1 keeps a dim; or ``size=``) without copying."""
    expect_tensor(input, "expand")
    sizes = _size_args(sizes if size is None else (size,))
    have = input.shape
    lead = len(sizes) - len(have)
    if lead < 0:
        raise RuntimeError(f"expand: the number of sizes provided ({len(sizes)}) must be greater or "
                           f"equal to the number of dimensions in the tensor ({input.ndim}), shape "
                           f"{tuple(input.shape)}")
    shape = sizes
    if sizes and min(sizes) < 0:   # -1 keeps a dim; anything lower is refused
        for i, s in enumerate(sizes):
            if s < -1 or (s == -1 and i < lead):
                raise RuntimeError(f"expand: the expanded size {s} is not allowed at dim {i} of target sizes "
                                   f"{list(sizes)} for a tensor of shape {tuple(input.shape)}: sizes must be >= 0, "
                                   f"and -1 (keep the size) only in dims the tensor already has")
        shape = tuple(have[i - lead] if s == -1 else s for i, s in enumerate(sizes))
    for i, n in enumerate(have):
        if n != 1 and n != shape[i + lead]:
            raise RuntimeError(f"expand: the expanded size of the tensor ({shape[i + lead]}) must match the "
                               f"existing size ({n}) at non-singleton dimension {i + lead}. Target sizes: "
                               f"{list(sizes)}. Tensor sizes: {list(input.shape)}")
    if shape == have:
        return input
    return apply_one(EXPAND, input, {"shape": shape})


def broadcast_to(a, shape):
    return expand(a, tuple(shape))


def broadcast_shapes(*shapes) -> tuple:
    """The shape that tensors of ``shapes`` broadcast to (each an int or a tuple): sizes aligned on the
    right, each dim the one size that is not 1."""
    shapes = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    try:
        return tuple(numpy.broadcast_shapes(*shapes))
    except ValueError:
        raise RuntimeError(f"broadcast_shapes(): the shapes {', '.join(map(str, shapes))} do not broadcast: "
                           f"aligned on the right, each dim must be equal or 1") from None


def broadcast_tensors(*tensors) -> tuple:
    """Each tensor expanded to the shape they broadcast to (views, as ``expand`` makes them); the gradient of
    each is summed back over what was broadcast."""
    for i, t in enumerate(tensors):
        expect_tensor(t, f"broadcast_tensors (argument {i})")
    shape = broadcast_shapes(*(t.shape for t in tensors))
    return tuple(expand(t, shape) for t in tensors)


def sum_to_size(a, *shape):
    """Sum broadcast dims away until ``a`` has ``shape`` (the shared unbroadcast helper)."""
    shape = _size_args(shape)
    have = a.shape
    if shape == have:
        return a
    lead = len(have) - len(shape)   # ``shape`` must expand to ``have``: each size 1 or a's, aligned right
    fits = lead >= 0
    if fits:
        for n, m in zip(shape, have[lead:]):
            if n != 1 and n != m:
                fits = False
                break
    if not fits:
        raise RuntimeError(f"sum_to_size: size {list(shape)} is not expandable to size {list(have)}")
    return apply_one(SUM_TO_SIZE, a, {"shape": shape})


def squeeze(input, dim=None):
    """Drop size-1 dims (all, or just ``dim``)."""
    expect_tensor(input, "squeeze")
    if dim is None:
        shape = tuple(n for n in input.shape if n != 1)
    else:
        dims = normalize_dims(dim, input.ndim, "squeeze")
        shape = tuple(n for i, n in enumerate(input.shape) if not (i in dims and n == 1))
    return reshape(input, shape) if shape != input.shape else input


def new_view(result, a):
    """``result``, or a new view of ``a`` where a shape op changed nothing and handed ``a`` back. PyTorch's shape
    ops always give a new tensor, so ``with no_grad(): y = x.squeeze()`` is detached from x's graph and
    ``y.unsqueeze_(0)`` leaves x's shape alone; the user-facing forms below do the same, while the library's own
    calls keep the unchanged input (no extra node in the graphs the lessons draw)."""
    return reshape(a, a.shape) if result is a else result


def squeeze_new(a, dim=None):
    return new_view(squeeze(a, dim), a)


def expand_new(a, *sizes, size=None):
    out = expand(a, *sizes, size=size)   # (unchanged: an expand node all the same, PyTorch's ExpandBackward0)
    return apply_one(EXPAND, a, {"shape": a.shape}) if out is a else out


def broadcast_to_new(a, shape):
    return expand_new(a, tuple(shape))


for _public, _op in ((squeeze_new, squeeze), (expand_new, expand), (broadcast_to_new, broadcast_to)):
    _public.__name__, _public.__qualname__, _public.__doc__ = _op.__name__, _op.__name__, _op.__doc__


def unsqueeze(input, dim):
    """Insert a size-1 dim at ``dim``."""
    if not -(input.ndim + 1) <= dim <= input.ndim:
        raise IndexError(f"unsqueeze: dim {dim} is out of range for a tensor with {input.ndim} dims "
                         f"(expected a dim in [{-(input.ndim + 1)}, {input.ndim}])")
    d = dim % (input.ndim + 1)
    return reshape(input, input.shape[:d] + (1,) + input.shape[d:])


def _sequence_as_tuple(index):
    """PyTorch's (and old NumPy's) rule for a list index: fewer than 32 entries, one of them a tensor, a list or
    tuple, a slice, ``...`` or None, makes it a tuple of indices, one per dim (with PyTorch's warning)."""
    return len(index) < 32 and any(isinstance(i, (Tensor, list, tuple, slice)) or i is Ellipsis or i is None
                                   for i in index)


def _canonical_index(index, device="cpu", copy=True):
    """Turn Tensor / list parts of an index into arrays on ``device``; report whether it is 'advanced'.
    Array parts are copied (unless ``copy=False``, for an index made here already): a node keeps the index
    as it was when recorded, whatever is written into the index tensor afterwards (PyTorch raises then)."""
    if isinstance(index, list) and _sequence_as_tuple(index):
        warnings.warn("Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed "
                      "in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
                      "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error or "
                      "a different result", UserWarning, stacklevel=3)
        index = tuple(index)   # (x[[t0, t2]] is x[t0, t2], and x[[[0, 1], [1, 0]]] is x[[0, 1], [1, 0]])
    parts = index if isinstance(index, tuple) else (index,)
    out, advanced = [], False
    for p in parts:
        if isinstance(p, Tensor):
            if p.dtype == numpy.uint8:   # (a mask, as PyTorch reads it, with its warning)
                warnings.warn("indexing with dtype uint8 is now deprecated, please use a dtype bool instead "
                              "(index.bool())", UserWarning, stacklevel=3)
                p, advanced = p._data.astype(bool), True
            elif p.ndim == 0 and p.dtype.kind in "iu":
                p = int(p.item())   # (a 0-d integer tensor is an integer, as in PyTorch: a view, not a copy)
            else:
                p, advanced = (p._data.copy() if copy else p._data), True
        elif isinstance(p, list):   # (a new array; an empty list indexes nothing, as int64)
            p, advanced = (asarray(p, device) if p else asarray(numpy.zeros(0, numpy.int64), device)), True
        elif isinstance(p, numpy.ndarray) and not (p.ndim == 0 and p.dtype.kind in "iu" and p.dtype != numpy.uint8):
            on_device = asarray(p, device)             # (p itself on the CPU: then copied)
            p, advanced = (on_device.copy() if copy and on_device is p else on_device), True
        elif isinstance(p, (numpy.integer, numpy.ndarray)):   # (a NumPy integer, 0-d or not: an integer, a view)
            p = int(p)
        elif hasattr(p, "shape") and hasattr(p, "dtype"):   # a CuPy array
            p, advanced = (p.copy() if copy else p), True
        elif isinstance(p, bool):   # (a 0-d mask: t[True] adds a dim of 1, t[False] one of 0; no view to write through)
            advanced = True
        elif isinstance(p, slice) and p.step is not None and operator.index(p.step) <= 0:
            raise ValueError(f"step must be greater than zero (as in PyTorch), got the slice {p}"
                             + ("; to reverse the order along a dim, use t.flip(dim)" if p.step else ""))
        out.append(p)
    return (tuple(out) if isinstance(index, tuple) or len(out) != 1 else out[0]), advanced


def torch_order(index, ndim):
    """An array index (made by ``_canonical_index``) read in PyTorch's order, where NumPy's differs: the
    integers first (each removes its dim, as ``select``), then the arrays on what is left (NumPy counts such
    an integer as one more array, so that ``x[1, :, t]`` would put t's dim first); and a ``...`` that spans
    no dim does not part the arrays around it. Returns ``(index, None)``, or ``(first, rest)`` for
    ``(x[first])[rest]``."""
    if not isinstance(index, tuple):
        return index, None
    parts = index
    if any(p is Ellipsis for p in parts):   # (None, ... and a Python bool span no dim of the tensor)
        spanned = sum(0 if p is None or p is Ellipsis or isinstance(p, bool) else
                      p.ndim if getattr(p, "dtype", None) == bool else 1 for p in parts)
        if spanned == ndim:
            parts = tuple(p for p in parts if p is not Ellipsis)
            index = parts
    if not any(type(p) is int for p in parts) or any(isinstance(p, bool) for p in parts):
        return index, None   # (with a Python bool too, NumPy's order stays: a rare mix)
    first, rest = [], []
    for p in parts:
        if type(p) is int:
            first.append(p)
        elif p is None or isinstance(p, slice):
            first.append(p)
            rest.append(slice(None))
        elif p is Ellipsis:
            first.append(p)
            rest.append(p)
        else:   # an array: a mask spans its number of dims, integers one
            first.extend([slice(None)] * (p.ndim if p.dtype == bool else 1))
            rest.append(p)
    return tuple(first), tuple(rest)


def getitem(a, index, copy=True):
    """``a[index]``: basic slicing, and integer/bool array indexing (repeated indices accumulate in backward).
    (``copy=False``: ``index`` is one this module made, whose arrays need no copy.)"""
    given = index
    index, advanced = _canonical_index(index, a.device, copy)
    if advanced:
        index, rest = torch_order(index, a.ndim)
        if rest is not None:
            try:
                return getitem(getitem(a, index, copy=False), rest, copy=False)
            except IndexError as exc:   # (named by the index given, not the two it was read as)
                why = re.sub(r" for axis \d+", "", str(exc).rsplit(": ", 1)[-1])   # (the axis of the second step)
                raise IndexError(f"index {given!r} is invalid for a tensor of shape {tuple(a.shape)}: {why}") \
                    from None
    try:   # (a bad index fails in the op's forward, before anything is recorded)
        return apply_one(INDEX if advanced else GETITEM, a, {"index": index, "advanced": advanced})
    except IndexError as exc:
        raise IndexError(f"index {index!r} is invalid for a tensor of shape {tuple(a.shape)}: {exc}") from None


def gather(input, dim, index, *, sparse_grad=False):
    """Along ``dim``, the element ``index`` names; elsewhere the same position (for dim=1:
    ``out[i][j] = a[i][index[i][j]]``). ``index`` has a's number of dims, and no dim larger than a's but
    ``dim``. Built as ``a[...]`` with integer arrays, so its gradient adds ``g`` back at the indices (twice
    where an index repeats), to any order. ``sparse_grad=True`` (PyTorch: a sparse gradient) gives the same
    gradient, dense: there are no sparse tensors here."""
    expect_tensor(input, "gather")
    if not isinstance(index, Tensor):
        raise TypeError(f"gather(): index must be a Tensor of integers, got {type(index).__name__}: wrap it with "
                        f"autogradlab.tensor(..., dtype=autogradlab.int64)")
    if index.dtype not in (numpy.int64, numpy.int32):
        raise RuntimeError(f"gather(): index must hold int64 (or int32) integers, got {index.dtype.name}: convert "
                           f"it with index.to(autogradlab.int64)")
    d = single_dim(dim, input.ndim, "gather")
    if max(index.ndim, 1) != max(input.ndim, 1):   # (a 0-d tensor counts as 1-d, as in PyTorch)
        raise RuntimeError(f"gather(): index must have as many dims as the input ({input.ndim}), got shape "
                           f"{tuple(index.shape)}; add dims with index.unsqueeze(...)")
    if input.ndim == 0 or index.ndim == 0:
        return gather(input.reshape(-1), 0, index.reshape(-1)).reshape(index.shape)
    if index.numel() == 0:   # (nothing to take: PyTorch checks no shapes either)
        return getitem(input.reshape(-1), asarray(numpy.zeros(index.shape, numpy.int64), input.device))
    too_big = [k for k in range(input.ndim) if k != d and index.shape[k] > input.shape[k]]
    if too_big:
        raise RuntimeError(f"gather(): index shape {tuple(index.shape)} is larger than the input's "
                           f"{tuple(input.shape)} in dim {too_big[0]}; only dim {d} (the one gathered along) may "
                           f"differ")
    idx = index._data
    lo, hi = int(idx.min()), int(idx.max())
    if lo < 0 or hi >= input.shape[d]:
        raise RuntimeError(f"gather(): index {lo if lo < 0 else hi} is out of bounds for dim {d} of size "
                           f"{input.shape[d]} (input shape {tuple(input.shape)}); indices count from 0 and are not "
                           f"negative")
    return getitem(input, positions_along(idx, d))


def positions_along(idx, d):
    """The full index that puts ``idx[i, j, ...]`` along dim ``d`` and ``i, j, ...`` along the others (what
    ``gather`` reads and ``scatter`` writes): the index itself along ``d``, and along every other dim k an
    ``arange(n_k)`` that broadcasts."""
    xp = xp_of(idx)
    return tuple(idx if k == d else xp.arange(n).reshape((n,) + (1,) * (idx.ndim - k - 1))
                 for k, n in enumerate(idx.shape))


def index_put(a, index, values):
    """``a`` with ``a[index] = values`` for integer/bool array indices, out of place (``values`` broadcast to
    ``a[index]``; a number is a constant). ``t[index] = v`` on a tensor that records writes it in place."""
    return put(a, _canonical_index(index, a.device)[0], values)


def put(a, index, values):
    """:func:`index_put` with an ``index`` already made by ``_canonical_index`` (its arrays are not copied)."""
    if not isinstance(values, Tensor):   # (a number, as a constant of a's dtype, or an array)
        values = asarray(values, a.device, a.dtype)
    try:
        return apply(INDEX_PUT, (a, values), {"index": index})
    except IndexError as exc:
        raise IndexError(f"index {index!r} is invalid for a tensor of shape {tuple(a.shape)}: {exc}") from None
    except ValueError:
        target = a._data[index].shape
        raise RuntimeError(f"t[index] = v: v of shape {tuple(values.shape)} cannot be broadcast to the "
                           f"{tuple(target)} elements the index picks out of t (shape {tuple(a.shape)}); give "
                           f"v that shape, or one that broadcasts to it") from None


def index_add_into(g, shape, index):
    """A zero tensor of ``shape`` with ``g`` added at ``index`` (the VJP of ``getitem``)."""
    index, advanced = _canonical_index(index, g.device, copy=False)  # (a no-op for the index getitem saved)
    return apply(SCATTER_ADD, (g,), {"shape": tuple(shape), "index": index, "advanced": advanced})


def cat(tensors, dim=0):
    """Concatenate along an existing dim."""
    tensors = _check_sequence(tensors, "cat")
    shaped = [t for t in tensors if t.shape != (0,)]
    d = normalize_dims(dim, (shaped or tensors)[0].ndim, "cat")[0]
    if shaped and len(shaped) < len(tensors):   # (PyTorch's legacy rule: a 1-D empty tensor, torch.tensor([]) that
        empty = shaped[0].shape[:d] + (0,) + shaped[0].shape[d + 1:]   # a loop starts from, joins anything)
        tensors = [t if t.shape != (0,) else reshape(t, empty) for t in tensors]
    for i, t in enumerate(tensors):
        if t.ndim != tensors[0].ndim:
            raise RuntimeError(f"cat: tensors must have the same number of dims: tensor 0 has shape "
                               f"{tuple(tensors[0].shape)} but tensor {i} has shape {tuple(t.shape)}; "
                               f"unsqueeze or reshape one of them")
        if t.shape[:d] + t.shape[d + 1:] != tensors[0].shape[:d] + tensors[0].shape[d + 1:]:
            raise RuntimeError(f"cat: sizes of tensors must match except in dimension {d}: tensor 0 has "
                               f"shape {tuple(tensors[0].shape)} but tensor {i} has shape {tuple(t.shape)}")
    bounds, lo = [], 0
    for t in tensors:
        bounds.append((lo, lo + t.shape[d]))
        lo += t.shape[d]
    return apply(CAT, _promoted(tensors), {"dim": d, "bounds": tuple(bounds)})


def _promoted(tensors):
    """The tensors in PyTorch's common dtype (int64 with float32 gives float32, where NumPy would give float64),
    each cast by a differentiable op where it differs."""
    if all(t.dtype == tensors[0].dtype for t in tensors):
        return tuple(tensors)
    dtype = result_type(*tensors)
    return tuple(t if t.dtype == dtype else to_dtype(t, dtype) for t in tensors)


def stack(tensors, dim=0):
    """Join along a new dim."""
    tensors = _check_sequence(tensors, "stack")
    for i, t in enumerate(tensors):
        if t.shape != tensors[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {tuple(tensors[0].shape)} "
                               f"at entry 0 and {tuple(t.shape)} at entry {i}")
    n = tensors[0].ndim + 1
    if not -n <= dim < n:
        raise IndexError(f"stack: dim {dim} is out of range for stacking tensors of shape {tuple(tensors[0].shape)} "
                         f"(the result has {n} dims: expected a dim in [{-n}, {n - 1}])")
    d = dim % n
    return apply(STACK, _promoted(tensors), {"dim": d, "count": len(tensors)})


def split(input, split_size_or_sections, dim=0):
    """Pieces of ``a`` along ``dim``: equal pieces of a size, or a list of sizes (views via slicing)."""
    if input.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor (this one is 0-d): reshape it first, "
                           "e.g. t.reshape(1)")
    d = normalize_dims(dim, input.ndim, "split")[0]
    n = input.shape[d]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step <= 0:
            raise ValueError(f"split: split_size must be positive, got {step}")
        sizes = [min(step, n - lo) for lo in range(0, n, step)] or [0]   # (an empty dim: one empty piece, as PyTorch)
    else:
        sizes = list(split_size_or_sections)
        if any(size < 0 for size in sizes):
            raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                               f"split_sizes={sizes}")
        if sum(sizes) != n:
            raise RuntimeError(f"split: sizes {sizes} add up to {sum(sizes)}, but dim {d} has size {n} "
                               f"(shape {tuple(input.shape)})")
    out, lo = [], 0
    for s in sizes:
        out.append(getitem(input, (slice(None),) * d + (slice(lo, lo + s),)))
        lo += s
    return tuple(out)


def chunk(input, chunks, dim=0):
    """At most ``chunks`` pieces of equal size (the last may be smaller) along ``dim``."""
    if chunks <= 0:
        raise ValueError(f"chunk: chunks must be a positive number, got {chunks}")
    d = normalize_dims(dim, input.ndim, "chunk")[0]
    n = input.shape[d]
    if n == 0:  # as PyTorch: an empty dim gives `chunks` empty pieces
        return tuple(getitem(input, (slice(None),) * d + (slice(0, 0),)) for _ in range(chunks))
    return split(input, -(-n // chunks), dim)


def unbind(input, dim=0):
    """The slices of ``a`` along ``dim``, with that dim removed."""
    expect_tensor(input, "unbind")
    d = normalize_dims(dim, input.ndim, "unbind")[0]
    return tuple(getitem(input, (slice(None),) * d + (i,)) for i in range(input.shape[d]))


def _check_sequence(tensors, name):
    if isinstance(tensors, Tensor):
        raise TypeError(f"{name}() expects a non-empty list or tuple of tensors, got a Tensor: wrap it, [t]")
    if not tensors:   # (PyTorch's classes: cat's ValueError, stack's RuntimeError)
        raise (ValueError if name == "cat" else RuntimeError)(f"{name}() expects a non-empty list or tuple of tensors")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}(): expected a Tensor at position {i}, got {type(t).__name__}")
    return list(tensors)


# -- triangles and flips --------------------------------------------------------------------

TRIL = defop("tril", ("self",), math="a with the elements above diagonal k zeroed;  da = tril(g, k)",
             forward=lambda xp, a, diagonal: xp.ascontiguousarray(xp.tril(a, diagonal)),
             vjp=lambda g, ctx: (tril(g, ctx.diagonal),), formulas=("1 on and below diagonal k, else 0",))

TRIU = defop("triu", ("self",), math="a with the elements below diagonal k zeroed;  da = triu(g, k)",
             forward=lambda xp, a, diagonal: xp.ascontiguousarray(xp.triu(a, diagonal)),
             vjp=lambda g, ctx: (triu(g, ctx.diagonal),), formulas=("1 on and above diagonal k, else 0",))

FLIP = defop("flip", ("self",), math="a reversed along dims;  da = flip(g, dims)",
             forward=lambda xp, a, dims: xp.flip(a, axis=dims).copy(),   # (a copy, as PyTorch's flip)
             vjp=lambda g, ctx: (apply_one(FLIP, g, {"dims": ctx.dims}),), formulas=("1",))


def _triangle(op, a, diagonal):
    expect_tensor(a, op.name)
    if a.ndim < 2:
        raise RuntimeError(f"{op.name}: input tensor must have at least 2 dimensions (it applies to the last two), "
                           f"got shape {tuple(a.shape)}; for a vector, make a matrix first (e.g. a.unsqueeze(0))")
    if type(diagonal) is bool or not isinstance(diagonal, numbers.Integral):
        raise TypeError(f"{op.name}: diagonal must be an int, got {diagonal!r}")
    return apply_one(op, a, {"diagonal": int(diagonal)})


def tril(input, diagonal=0):
    """The lower triangle of the last two dims: ``a[..., i, j]`` where ``j - i <= diagonal``, else 0
    (``diagonal=0``: the main diagonal and below; -1 leaves it out, 1 adds the first above). Its gradient is
    ``tril(g, diagonal)``."""
    return _triangle(TRIL, input, diagonal)


def triu(input, diagonal=0):
    """The upper triangle of the last two dims: ``a[..., i, j]`` where ``j - i >= diagonal``, else 0. Its
    gradient is ``triu(g, diagonal)``."""
    return _triangle(TRIU, input, diagonal)


def flip(input, dims):
    """``a`` with the order of the elements reversed along each of ``dims`` (a tuple or list of ints; the method
    also takes them one by one: ``a.flip(0, 1)``). A copy, not a view, as in PyTorch. Its gradient is ``g``
    flipped back."""
    expect_tensor(input, "flip")
    if not isinstance(dims, (tuple, list)):
        raise TypeError(f"flip(): dims must be a tuple or list of ints, got {dims!r}: write flip(a, ({dims!r},)) "
                        f"or a.flip({dims!r})")
    dims = normalize_dims(tuple(dims), input.ndim, "flip")
    return apply_one(FLIP, input, {"dims": dims if input.ndim else ()})   # (dim 0 of a 0-d tensor: nothing to reverse)


def flip_method(a, *dims, **kwargs):
    """``Tensor.flip``: dims one by one (``a.flip(0, 1)``), as one tuple or list (``a.flip([0, 1])``), or
    ``a.flip(dims=[0, 1])``."""
    if kwargs.keys() - {"dims"} or (dims and kwargs):
        raise TypeError(f"flip() takes the dims, one by one, as a list, or as dims=: got {dims!r} and {kwargs!r}")
    if "dims" in kwargs:
        dims = (kwargs["dims"],)
    if not dims:
        raise TypeError("flip() missing its dims: name the dims to reverse, e.g. a.flip(0)")
    return flip(a, dims[0] if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims)


# -- sorting: the order is found on the arrays, the values taken with gather (so their gradient goes back) ----

SortResult = return_type("sort", ["values", "indices"])
TopkResult = return_type("topk", ["values", "indices"])


def _order(a, d, descending):
    """The positions that sort ``a`` along dim ``d`` (int64): stable, ties in their order in ``a``, NaN the
    largest (last ascending, first descending), as PyTorch's ``stable=True`` sorts."""
    data = a._data
    xp = xp_of(data)
    if not descending:
        return xp.argsort(data, axis=d, kind="stable").astype(numpy.int64)
    # descending and stable: sort the reversed array ascending, read that order backwards, map positions back
    n = data.shape[d]
    reversed_order = xp.argsort(xp.flip(data, axis=d), axis=d, kind="stable")
    return ((n - 1) - xp.flip(reversed_order, axis=d)).astype(numpy.int64)


def _sort_dim(a, dim, name):
    expect_tensor(a, name)
    if a.dtype.kind == "c":
        raise RuntimeError(f"{name}: complex numbers have no order")
    return single_dim(dim, a.ndim, name)


def argsort(input, dim=-1, descending=False, *, stable=False):
    """The indices that sort ``a`` along ``dim`` (int64). Ties keep their order (always stable here: PyTorch's
    ``stable=False`` may order ties either way), NaN sorts as the largest."""
    d = _sort_dim(input, dim, "argsort")
    if input.ndim == 0:
        return Tensor._make(xp_of(input._data).zeros((), dtype=numpy.int64), False, None, input.device)
    return Tensor._make(_order(input, d, descending), False, None, input.device)


def sort(input, dim=-1, descending=False, *, stable=False):
    """``(values, indices)``: ``a`` sorted along ``dim`` and where each value came from, ``values = gather(a,
    dim, indices)``, so the gradient of a value goes back to the element it came from. Ties keep their order."""
    d = _sort_dim(input, dim, "sort")
    indices = argsort(input, d, descending)
    return SortResult(gather(input, d, indices) if input.ndim else input.clone(), indices)


def topk(input, k, dim=-1, largest=True, sorted=True):
    """``(values, indices)`` of the ``k`` largest elements along ``dim`` (the ``k`` smallest with
    ``largest=False``), largest first (smallest first); of tied elements the first in ``a`` comes first (PyTorch
    may pick or order ties either way). The values' gradient goes back to the elements they came from; the
    others get 0. ``sorted=False`` is taken and still sorts."""
    d = _sort_dim(input, dim, "topk")
    if type(k) is bool or not isinstance(k, numbers.Integral):
        raise TypeError(f"topk: k must be an int, got {k!r}")
    k = int(k)
    n = input.shape[d] if input.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError(f"topk: k ({k}) is out of range: dim {d} has {n} elements (shape {tuple(input.shape)})")
    if input.dtype.kind == "b":
        raise RuntimeError("topk: bool tensors are not supported (as in PyTorch): convert first, e.g. "
                           "a.to(autogradlab.int64)")
    if input.ndim == 0:   # (k = 0 or 1: the element itself, as PyTorch gives it)
        return TopkResult(input.clone(), argsort(input))
    order = _order(input, d, largest)
    keep = (slice(None),) * d + (slice(0, k),)
    indices = Tensor._make(order[keep], False, None, input.device)
    return TopkResult(gather(input, d, indices), indices)
