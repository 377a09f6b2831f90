"""Ops that copy, pick or move elements, built from the shape ops (each gradient comes from theirs):
``repeat``/``tile``, ``repeat_interleave``, ``roll``, ``narrow``, ``movedim``/``swapaxes``,
``index_select``, ``diagonal`` (a view, its own op), ``diag``, ``diag_embed``, ``meshgrid``, ``diff``, ``rot90``, ``take`` and
``unfold``. Index arrays that depend only on sizes are made on the tensor's device; the data is only ever
reached through the ops."""
from __future__ import annotations

import numbers
import operator
import warnings

import numpy

from ..backend import asarray, diagonal_view, to_host, xp_of
from ..tensor import Tensor
from .elementwise import clone, ne, sub
from .reduce import normalize_dims, single_dim
from .inplace import COPY_SLICES, _copy_slices_forward
from .registry import apply, apply_one, defop, expect_tensor
from .shape import _size_args, cat, expand, flip, getitem, permute, put, reshape, sort, transpose


def _index(values, device):
    """An int64 index array on ``device``, always a copy of its own: an op keeps it for the backward, so a
    user's index tensor written in place later (``i.fill_(2)``) must not move the gradient."""
    return asarray(numpy.array(values, dtype=numpy.int64), device)


def _along(dim, ndim, index):
    """An index that picks ``index`` along ``dim`` and everything along the other dims."""
    return (slice(None),) * dim + (index,) + (slice(None),) * (ndim - dim - 1)


def repeat(input, *sizes, repeats=None):
    """``a`` repeated ``sizes[i]`` times along dim i (leading sizes add dims): out[i] = a[i % n].
    Built as expand then reshape, so the gradient sums the copies; always a copy, as in PyTorch."""
    sizes = sizes or ((repeats,) if repeats is not None else ())
    if not sizes:
        raise TypeError('repeat() missing 1 required positional arguments: "repeats" (one size per dim)')
    sizes = _size_args(sizes)
    if len(sizes) < input.ndim:
        raise RuntimeError(f"Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                           f"tensor: repeat got {len(sizes)} sizes {list(sizes)} for a {input.ndim}-D tensor; give one "
                           f"size per dim (1 keeps a dim as it is)")
    if any(r < 0 for r in sizes):
        raise RuntimeError(f"repeat: sizes must be non-negative, got {list(sizes)}")
    shape = (1,) * (len(sizes) - input.ndim) + tuple(input.shape)
    spread = tuple(n for s in shape for n in (1, s))            # a new size-1 dim before each dim
    copies = tuple(n for r, s in zip(sizes, shape) for n in (r, s))
    out = reshape(expand(reshape(input, spread), copies), tuple(r * s for r, s in zip(sizes, shape)))
    return clone(out) if out._view is not None else out   # (reshape kept a view of a: copy it)


def tile(input, dims):
    """:func:`repeat`, with ``dims`` padded by leading 1s when it has fewer entries than ``a`` has dims."""
    expect_tensor(input, "tile")
    if not isinstance(dims, (tuple, list)):
        raise TypeError(f"tile(): argument 'dims' (position 2) must be tuple of ints, not {type(dims).__name__}: "
                        f"write tile(x, ({dims!r},))")
    dims = _size_args(tuple(dims))
    sizes = (1,) * (input.ndim - len(dims)) + dims
    return repeat(input, *sizes) if sizes else clone(input)   # (a 0-d tensor tiled by ())


def _tile_method(a, *dims):
    if not dims:
        raise TypeError('tile() missing 1 required positional arguments: "dims" (one count per dim)')
    return tile(a, dims[0] if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims)


def check_index_vector(index, name):
    """PyTorch's errors for an index Tensor that is not a vector (1-D or 0-D) of int64 or int32."""
    if index.dtype not in (numpy.int64, numpy.int32):
        raise RuntimeError(f"{name}(): Expected dtype int32 or int64 for index, got {index.dtype.name}: convert it "
                           f"with index.long()")
    if index.ndim > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector, got shape {tuple(index.shape)}; flatten it "
                         f"with index.reshape(-1)")


def index_select(input, dim, index):
    """The entries ``index`` names along ``dim`` (``index``: a 1-D or 0-D int64/int32 tensor), in its order;
    repeats allowed, and their gradients add up."""
    expect_tensor(input, "index_select")
    if not isinstance(index, Tensor):
        raise TypeError(f"index_select(): argument 'index' (position 3) must be Tensor, not {type(index).__name__}: "
                        f"wrap it with autogradlab.tensor(..., dtype=autogradlab.int64)")
    d = single_dim(dim, input.ndim, "index_select")
    check_index_vector(index, "index_select")
    n = input.shape[d] if input.ndim else 1
    picks = to_host(index._data).reshape(-1)
    if input.ndim == 0 and picks.size != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {picks.size} value(s)")
    if picks.size and n == 0:
        raise RuntimeError(f"index_select(): self indexing axis dim should be positive: dim {d} of shape "
                           f"{tuple(input.shape)} is empty, so no index can pick from it")
    if picks.size and (picks.min() < 0 or picks.max() >= n):
        bad = int(picks.min()) if picks.min() < 0 else int(picks.max())
        # (IndexError as PyTorch, but RuntimeError along dim 1, as its dim-1 kernel raises)
        raise (RuntimeError if d == 1 else IndexError)(
            f"index_select(): index {bad} is out of range for dim {d} of size {n} (input shape {tuple(input.shape)}); "
            f"indices count from 0 and are not negative")
    if input.ndim == 0:
        return clone(input)
    return getitem(input, _along(d, input.ndim, _index(picks, input.device)), copy=False)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each entry along ``dim`` repeated ``repeats`` times (an int, or one count per entry) next to itself:
    [a, b] with 2 gives [a, a, b, b]. ``dim=None`` flattens first. Given only counts (an int tensor),
    the indices 0, 1, ... repeated by them."""
    if repeats is None:   # repeat_interleave(counts): arange(len(counts)) repeated by the counts
        if input.ndim != 1:
            raise RuntimeError(f"repeat_interleave only accept 1D vector as repeat, got shape {tuple(input.shape)}")
        counts = _counts(input)
        out = numpy.repeat(numpy.arange(counts.size), counts).astype(input.dtype)   # (in the counts' dtype)
        return Tensor._make(asarray(out, input.device), device=input.device)
    expect_tensor(input, "repeat_interleave")
    if dim is None:
        input, d = reshape(input, (-1,)), 0
    elif input.ndim == 0:
        raise IndexError(f"Dimension out of range: repeat_interleave got dim={dim} for a 0-d tensor; leave dim "
                         f"out (None) to repeat its one value")
    else:
        d = single_dim(dim, input.ndim, "repeat_interleave")
    n = input.shape[d] if input.ndim else 1
    if isinstance(repeats, Tensor):
        if repeats.ndim > 1:
            raise RuntimeError(f"repeats must be 0-dim or 1-dim tensor, got shape {tuple(repeats.shape)}")
        counts = _counts(repeats)
        if counts.size == 1:
            counts = numpy.repeat(counts, n)
        if counts.size != n:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                               f"{counts.size} and input.size({d}) = {n}")
    else:
        if operator.index(_int_arg(repeats, "repeats", "repeat_interleave")) < 0:
            raise RuntimeError(f"Repeats must be non-negative, got {repeats}")
        counts = numpy.full(n, operator.index(repeats))
    picks = numpy.repeat(numpy.arange(n), counts)
    if output_size is not None and output_size != picks.size:
        raise RuntimeError(f"repeat_interleave: output_size {output_size} differs from the {picks.size} entries "
                           f"the repeats give")
    return index_select(input, d, Tensor._make(_index(picks, input.device), device=input.device))


def _int_arg(value, name, op):
    """``value`` if it is an int (not a bool or a float: PyTorch refuses them with a TypeError)."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError(f"{op}(): {name} must be an int, got {type(value).__name__} {value!r}; convert it "
                        f"with int(...)")
    return value


def _counts(repeats):
    """The counts in an int64/int32 tensor, on the host (PyTorch has no kernel for other dtypes)."""
    if repeats.dtype not in (numpy.int64, numpy.int32):
        raise NotImplementedError(f"repeat_interleave: repeats must be int64 or int32, got {repeats.dtype.name}; "
                                  f"convert them with repeats.long()")
    counts = to_host(repeats._data).reshape(-1)
    if counts.size and counts.min() < 0:
        raise RuntimeError("repeats can not be negative")
    return counts


def roll(input, shifts, dims=None):
    """``a`` shifted ``shifts`` places along ``dims``, wrapping around: out[i] = a[(i - shift) % n]. With
    ``dims=None`` the tensor is flattened, rolled and given its shape back."""
    expect_tensor(input, "roll")
    shifts = _size_args((shifts,) if isinstance(shifts, int) else tuple(shifts))
    if dims is None or dims == () or dims == []:   # (PyTorch reads no dims as None: the flattened tensor)
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0 (give dims= for "
                               f"more than one shift)")
        return reshape(roll(reshape(input, (-1,)), shifts, 0), tuple(input.shape))
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if not shifts:
        raise RuntimeError("`shifts` required: give roll at least one shift")
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    if input.ndim == 0:
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions: roll a 0-d tensor with "
                         f"dims=None")
    out = input
    for shift, dim in zip(shifts, dims):
        d = single_dim(dim, input.ndim, "roll")
        n = input.shape[d]
        if n:
            out = getitem(out, _along(d, input.ndim, _index((numpy.arange(n) - shift) % n, input.device)), copy=False)
    return out


def narrow(input, dim, start, length):
    """``length`` entries along ``dim`` from ``start`` (negative: counted from the end): a view."""
    expect_tensor(input, "narrow")
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor: unsqueeze it first, or index it")
    d = single_dim(dim, input.ndim, "narrow")
    n = input.shape[d]
    start = operator.index(_int_arg(start, "start", "narrow"))
    length = operator.index(_int_arg(length, "length", "narrow"))
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got {start})")
    if start < 0:   # (counted from the end; start == n is kept: an empty slice at the end)
        start += n
    if start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return getitem(input, _along(d, input.ndim, slice(start, start + length)))


def movedim(input, source, destination):
    """The dims ``source`` moved to the places ``destination``; the others keep their order. A view."""
    expect_tensor(input, "movedim")
    if isinstance(source, int) != isinstance(destination, int):
        raise TypeError(f"movedim(): source and destination must both be ints or both be tuples of ints, got "
                        f"{source!r} and {destination!r}")
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(src)} dims) should contain "
                           f"the same number of dims as destination ({list(dst)} dims)")
    given = {"source": src, "destination": dst}
    src = [normalize_dims(d, input.ndim, "movedim")[0] for d in src]   # (out of range: IndexError, checked first)
    dst = [normalize_dims(d, input.ndim, "movedim")[0] for d in dst]
    for name, dims in (("source", src), ("destination", dst)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({list(given[name])})")
    if input.ndim == 0:   # (dims 0 and -1 name the one place a 0-d tensor has)
        return input
    order = [None] * input.ndim
    for s, t in zip(src, dst):
        order[t] = s
    rest = iter(d for d in range(input.ndim) if d not in src)
    return permute(input, *[next(rest) if o is None else o for o in order])


def swapaxes(input, axis0, axis1):
    """:func:`transpose` under NumPy's name."""
    return transpose(input, axis0, axis1)


def swapdims(input, dim0, dim1):
    """:func:`transpose` under another of PyTorch's names."""
    return transpose(input, dim0, dim1)


def _repeat_interleave_method(a, repeats, dim=None, *, output_size=None):
    # (the method needs ``repeats``: only the function takes counts alone)
    return repeat_interleave(a, repeats, dim, output_size=output_size)


def _diagonal_vjp(g, ctx):
    """da = zeros with g on the diagonal: the region the view reads, replaced by g (copy_slices)."""
    steps = ((DIAGONAL, {"offset": ctx.offset, "dim1": ctx.dim1, "dim2": ctx.dim2}),)
    xp = xp_of(g._data if isinstance(g, Tensor) else g)
    zeros = xp.zeros(ctx._input_shapes[0], dtype=g.dtype)
    if isinstance(g, Tensor):
        return (apply(COPY_SLICES, (Tensor._make(zeros, False, None, g.device), g), {"steps": steps}),)
    return (_copy_slices_forward(xp, zeros, g, steps),)


DIAGONAL = defop("diagonal", ("self",), view=True, complex_vjp="same",
                 forward=lambda xp, a, offset, dim1, dim2: diagonal_view(a, offset, dim1, dim2), vjp=_diagonal_vjp,
                 math="a[..., i, i + offset] over dim1, dim2, as a last dim (a view);  da = g on that diagonal, 0 "
                      "elsewhere", formulas=("1 on the diagonal",))


def diagonal(input, offset=0, dim1=0, dim2=1):
    """The entries a[..., i, i + offset] of the matrices spanned by ``dim1`` and ``dim2``, as a new last dim: a
    view, as in PyTorch, so ``A.diagonal().add_(1e-3)`` writes into ``A``."""
    expect_tensor(input, "diagonal")
    d1, d2 = single_dim(dim1, input.ndim, "diagonal"), single_dim(dim2, input.ndim, "diagonal")
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return apply_one(DIAGONAL, input, {"offset": operator.index(offset), "dim1": d1, "dim2": d2})


def diag(input, diagonal=0):
    """A 1-D ``a``: the square matrix with ``a`` on diagonal ``diagonal`` (0: the main one, > 0 above, < 0
    below) and zeros elsewhere; a 2-D ``a``: that diagonal, as a 1-D tensor."""
    expect_tensor(input, "diag")
    if input.ndim == 2:
        return clone(_diagonal(input, diagonal))   # (a copy, as PyTorch's: diag is no view)
    if input.ndim != 1:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")
    n = input.shape[0]
    size = n + abs(diagonal)
    zeros = Tensor._make(asarray(numpy.zeros((size, size), input.dtype), input.device), device=input.device)
    i = numpy.arange(n)
    rows, cols = _index(i + max(-diagonal, 0), input.device), _index(i + max(diagonal, 0), input.device)
    return put(zeros, (rows, cols), input)


_diagonal = diagonal


def meshgrid(*tensors, indexing=None):
    """Coordinate grids: for 1-D tensors of sizes n_1..n_k, k tensors of shape (n_1, ..., n_k), the i-th
    varying along dim i (``indexing="ij"``); ``"xy"`` swaps the first two dims (Cartesian, as NumPy's default).
    Each is an expanded view, so its gradient sums over the other dims."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    for t in tensors:
        expect_tensor(t, "meshgrid")
        if t.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got one of shape "
                               f"{tuple(t.shape)}; flatten it first")
    if len({t.dtype for t in tensors}) > 1:
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    swap = indexing == "xy" and len(tensors) >= 2
    ordered = (tensors[1], tensors[0], *tensors[2:]) if swap else tensors
    shape = tuple(t.numel() if t.ndim else 1 for t in ordered)
    grids = []
    for i, t in enumerate(ordered):
        along = [1] * len(ordered)
        along[i] = shape[i]
        grids.append(expand(reshape(t, tuple(along)), shape))
    if swap:   # (back in the order given: x's grid first)
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The n-th forward difference along ``dim``: out[i] = a[i + 1] - a[i], ``n`` times (bools: a[i + 1] != a[i]);
    ``prepend``/``append`` are joined on first."""
    expect_tensor(input, "diff")
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = single_dim(dim, input.ndim, "diff")
    if n == 0:
        return clone(input)   # (n = 0: a copy of a alone, prepend and append left out, as in PyTorch)
    parts = [input]
    for name, extra in (("prepend", prepend), ("append", append)):
        if extra is None:
            continue
        expect_tensor(extra, f"diff({name}=...)")
        if extra.ndim != input.ndim or any(extra.shape[k] != input.shape[k] for k in range(input.ndim) if k != d):
            raise RuntimeError(f"diff expects the shape of tensor to {name} to match that of input except along the "
                               f"differencing dimension; input shape {tuple(input.shape)}, {name} shape "
                               f"{tuple(extra.shape)}")
        parts = [extra, *parts] if name == "prepend" else [*parts, extra]
    out = cat(parts, d) if len(parts) > 1 else input   # (cat casts to PyTorch's common dtype)
    for _ in range(n):
        m = out.shape[d]
        if m == 0:
            break
        later = getitem(out, _along(d, out.ndim, slice(1, m)))
        earlier = getitem(out, _along(d, out.ndim, slice(0, m - 1)))
        out = ne(later, earlier) if out.dtype == numpy.bool_ else sub(later, earlier)
    return out


def rot90(input, k=1, dims=(0, 1)):
    """``input`` turned by 90 degrees ``k`` times in the plane of ``dims``, from the first dim towards the
    second (for a matrix and k = 1: counter-clockwise, as NumPy's ``rot90``): a flip and a transpose."""
    expect_tensor(input, "rot90")
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"rot90(): argument 'k' must be int, not {type(k).__name__}")
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = (normalize_dims(d, input.ndim, "rot90")[0] for d in dims)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    k %= 4
    if k == 1:
        return transpose(flip(input, (d1,)), d0, d1)
    if k == 2:
        return flip(input, (d0, d1))
    if k == 3:
        return transpose(flip(input, (d0,)), d0, d1)
    return clone(input)


def take(input, index):
    """The elements of ``input`` read as one flat vector (row-major), at ``index`` (negative: from the end);
    the result has ``index``'s shape. Repeated indices add up their gradients."""
    expect_tensor(input, "take")
    expect_tensor(index, "take(index=...)")
    if index.dtype != numpy.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {index.dtype.name}: convert it "
                           f"with index.long()")
    n = input.numel()
    if index.numel():
        picked = to_host(index._data)
        bad = picked[(picked >= n) | (picked < -n)]
        if bad.size:
            raise IndexError(f"out of range: tried to access index {int(bad[0])} on a tensor of {n} elements.")
    return getitem(reshape(input, (-1,)), index)


def unfold(input, dimension, size, step):
    """Every window of ``size`` consecutive entries along ``dimension``, starting ``step`` apart, as a new last
    dim: the windows' count takes ``dimension``'s place. PyTorch returns a view; this is a copy (writing into
    it leaves ``input`` unchanged), and overlapping windows add up their gradients."""
    expect_tensor(input, "unfold")
    for name, value in (("dimension", dimension), ("size", size), ("step", step)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise TypeError(f"unfold(): argument '{name}' must be int, not {type(value).__name__}")
    d = single_dim(dimension, input.ndim, "unfold")   # (a 0-d tensor takes dim 0 or -1: its one element)
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if input.ndim == 0:
        if not 0 <= size <= 1:
            raise RuntimeError(f"maximum size for tensor at dimension 0 is 1 but size is {size}" if size > 1
                               else f"size is {size} but must be >= 0")
        return reshape(input, (1,))[:size]
    n = input.shape[d]
    if not 0 <= size <= n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}" if size > n
                           else f"size is {size} but must be >= 0")
    count = (n - size) // step + 1
    windows = numpy.arange(count)[:, None] * step + numpy.arange(size)[None, :]
    picked = getitem(input, _along(d, input.ndim, _index(windows, input.device)), copy=False)
    return movedim(picked, d + 1, -1)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Each vector along ``input``'s last dim put on diagonal ``offset`` of a square matrix (zeros elsewhere),
    the matrices lying in dims ``dim1`` and ``dim2`` of the result. Its gradient is ``g``'s diagonal."""
    expect_tensor(input, "diag_embed")
    ndim = input.ndim + 1
    d1, d2 = (normalize_dims(d, ndim, "diag_embed")[0] for d in (dim1, dim2))
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = input.shape[-1] if input.ndim else 1
    size = n + abs(offset)
    batch = tuple(input.shape[:-1])
    zeros = Tensor._make(xp_of(input._data).zeros(batch + (size, size), dtype=input.dtype), False, None,
                         input.device)
    i = numpy.arange(n)
    rows, cols = _index(i + max(-offset, 0), input.device), _index(i + max(offset, 0), input.device)
    values = input if input.ndim else reshape(input, (1,))
    out = put(zeros, (slice(None),) * len(batch) + (rows, cols), values)
    out = movedim(out, (ndim - 2, ndim - 1), (d1, d2)) if (d1, d2) != (ndim - 2, ndim - 1) else out
    return out.contiguous()   # (a fresh result laid out row by row, as PyTorch's: .view() works on it)


def ravel(input):
    """Every element in one dim, row by row: ``reshape(-1)`` (a view where the memory allows)."""
    expect_tensor(input, "ravel")
    return reshape(input, (-1,))


def unflatten(input, dim, sizes):
    """Split dim ``dim`` into several of ``sizes`` (one may be -1): ``unflatten(x, 1, (2, 3))`` turns shape
    (n, 6) into (n, 2, 3). The inverse of ``flatten``."""
    expect_tensor(input, "unflatten")
    d = single_dim(dim, input.ndim, "unflatten")
    sizes = tuple(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    known = 1
    for n in sizes:
        known *= n if n != -1 else 1
    n = input.shape[d]
    if sizes.count(-1) > 1 or (-1 not in sizes and known != n) or (-1 in sizes and (known == 0 or n % known)):
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {dim} "
                           f"({n}) in the input tensor")
    sizes = tuple(n // known if size == -1 else size for size in sizes)   # (the -1 from this dim alone: the
    return reshape(input, tuple(input.shape[:d]) + sizes + tuple(input.shape[d + 1:]))   # tensor may be empty)


def select(input, dim, index):
    """The slice at ``index`` along ``dim``, that dim removed: ``select(x, 1, 0)`` is ``x[:, 0]`` (a view)."""
    expect_tensor(input, "select")
    d = single_dim(dim, input.ndim, "select")
    n = input.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input.shape)} at "
                         f"dimension {dim}")
    return getitem(input, (slice(None),) * d + (operator.index(index),))


def msort(input):
    """``input`` sorted along its first dim (``sort(input, dim=0).values``)."""
    expect_tensor(input, "msort")
    return sort(input, 0).values
