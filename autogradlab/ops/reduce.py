"""Reductions (``dim`` may be an int, a tuple or None for all; ``keepdim`` as in PyTorch)
and the softmax family. The VJP of a reduction puts the reduced axes back and expands."""
from __future__ import annotations

import builtins
import math
import operator
import warnings

import numpy

from ..backend import arg_extreme, broadcast_to, xp_of
from ..tensor import Tensor, default_float
from ..return_types import return_type
from .elementwise import abs, eq, exp, half_in_float32, masked, maximum, minimum, ordered, to_dtype, where
from .registry import apply, apply_one, apply_unary, defop, expect_tensor, on_arrays


_add_reduce = numpy.add.reduce
_ALL_DIMS = [tuple(range(n)) for n in range(9)]   # dim=None: every axis (made once per ndim)


def normalize_dims(dim, ndim, op="reduction"):
    """``dim`` (int, tuple or None) as a sorted tuple of non-negative axes."""
    if dim is None:
        return _ALL_DIMS[ndim] if ndim < len(_ALL_DIMS) else tuple(range(ndim))
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    out, size = [], builtins.max(ndim, 1)  # (this module defines its own max, min and sum)
    for d in dims:
        try:
            if type(dim) is bool:   # (x.sum(True): an int to Python, but a keepdim in the wrong place; PyTorch
                raise TypeError     # refuses it too, though it reads True inside a tuple as 1)
            d = operator.index(d)
        except TypeError:
            raise TypeError(f"{op}: dim must be an int or a tuple of ints, got {dim!r}") from None
        if not -size <= d < size:
            raise IndexError(f"{op}: dim {d} is out of range for a tensor with {ndim} dimension(s) "
                             f"(expected a dim in [{-size}, {size - 1}])")
        if d % size in out:
            raise RuntimeError(f"{op}: dim {d % size} appears more than once in dims {dims}; list each dim once")
        out.append(d % size)
    return tuple(sorted(out))


def reduction_dims(dim, ndim, op):
    """A reduction's ``dim`` as :func:`normalize_dims` gives it, except that an empty list or tuple
    means every axis, as ``None`` does (PyTorch reads ``x.sum(dim=[])`` as a full sum)."""
    if isinstance(dim, (tuple, list)) and not dim:
        dim = None
    return normalize_dims(dim, ndim, op)


def single_dim(dim, ndim, op):
    """``dim`` (one int, possibly negative) as a non-negative axis, for ops along one dim."""
    if isinstance(dim, (bool, tuple, list)) or dim is None:
        raise TypeError(f"{op}: dim must be a single int, got {dim!r}")
    return normalize_dims(dim, ndim, op)[0]


def expand_back(g, shape, dims, keepdim):
    """Undo a reduction over ``dims``: put size-1 axes back (if dropped) and expand to ``shape``."""
    if not keepdim and dims != tuple(range(len(dims))):  # (reduced leading dims come back by broadcasting)
        g = g.reshape(tuple(1 if i in dims else n for i, n in enumerate(shape)))
    return g.expand(shape) if isinstance(g, Tensor) else broadcast_to(g, shape)


def _count(shape, dims):
    n = 1
    for d in dims:
        n *= shape[d]
    return n


def _sum_forward(xp, a, dims, keepdim):
    if a.dtype.kind == "u":   # (unsigned integers sum as int64, as in PyTorch; NumPy's default is uint64)
        return a.sum(axis=dims, keepdims=keepdim, dtype="int64")
    # (NumPy's ndarray.sum is add.reduce behind a Python wrapper: called directly, 0.2 us less)
    return _add_reduce(a, dims, None, None, keepdim) if type(a) is numpy.ndarray else a.sum(axis=dims, keepdims=keepdim)


SUM = defop("sum", ("self",), math="sum_i a_i;  da = g (expanded)",
            forward=_sum_forward,
            vjp=lambda g, ctx: (expand_back(g, ctx._input_shapes[0], ctx.dims, ctx.keepdim),),
            formulas=("1",))

def _mean(xp, a, dims, keepdim):
    """a.mean; the mean of nothing is NaN, quietly (NumPy warns "Mean of empty slice", PyTorch does not)."""
    if a.size:
        return a.mean(axis=dims, keepdims=keepdim)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return a.mean(axis=dims, keepdims=keepdim)


def _over_count(g, n):
    """``g / n`` for a count ``n``: a float16 ``g`` divided in float32 and rounded once, as PyTorch divides by a
    number (in float16 a count past 65504 is inf, and the gradient 0)."""
    if not isinstance(g, Tensor) and g.dtype == numpy.float16:
        return (g.astype(numpy.float32) / n).astype(numpy.float16)
    return g / n


MEAN = defop("mean", ("self",), math="sum_i a_i / n;  da = g/n (expanded)",
             forward=_mean,
             vjp=lambda g, ctx: (_over_count(expand_back(g, ctx._input_shapes[0], ctx.dims, ctx.keepdim),
                                             _count(ctx._input_shapes[0], ctx.dims)),),
             formulas=("1/n",))


def _extreme_vjp(g, ctx):
    # the gradient is shared equally among tied extreme elements (PyTorch's amax/amin rule)
    shape, dims = ctx._input_shapes[0], ctx.dims
    result = expand_back(ctx.result.detach(), shape, dims, ctx.keepdim)
    mask = (ctx.self.detach() == result).to(g.dtype)
    return (mask * expand_back(g, shape, dims, ctx.keepdim) / mask.sum(dims, keepdim=True),)


AMAX = defop("amax", ("self",), save=("self", "result"),
             math="max_i a_i;  da = g*[a = max]/(number of ties)",
             forward=lambda xp, a, dims, keepdim: a.max(axis=dims, keepdims=keepdim),
             vjp=_extreme_vjp, formulas=("[a = max]",), arrays=False)

AMIN = defop("amin", ("self",), save=("self", "result"),
             math="min_i a_i;  da = g*[a = min]/(number of ties)",
             forward=lambda xp, a, dims, keepdim: a.min(axis=dims, keepdims=keepdim),
             vjp=_extreme_vjp, formulas=("[a = min]",), arrays=False)


def _logsumexp_forward(xp, a, dims, keepdim):
    if a.size == 0:   # an empty sum is 0, and its log -inf (as PyTorch gives)
        out = xp.full([1 if i in dims else n for i, n in enumerate(a.shape)], -xp.inf, dtype=a.dtype)
        return out if keepdim else out.squeeze(axis=dims)
    m = (a.real if a.dtype.kind == "c" else a).max(axis=dims, keepdims=True)   # (complex: shifted by real parts)
    m = xp.where(xp.isfinite(m), m, 0)
    out = xp.log(xp.exp(a - m).sum(axis=dims, keepdims=True)) + m
    return out if keepdim else out.squeeze(axis=dims)


LOGSUMEXP = defop("logsumexp", ("self",), save=("self", "result"),
                  math="log sum_i e^(a_i);  da = g*softmax(a)",
                  forward=_logsumexp_forward,
                  vjp=lambda g, ctx: (expand_back(g, ctx._input_shapes[0], ctx.dims, ctx.keepdim)
                                      * exp(ctx.self - expand_back(ctx.result, ctx._input_shapes[0],
                                                                   ctx.dims, ctx.keepdim)),),
                  complex_vjp="holomorphic", formulas=("softmax(a)",))


def _softmax_forward(xp, a, dim):
    if a.size == 0:   # (nothing to normalize; NumPy's max has no value for an empty dim)
        return a.copy()
    e = xp.exp(a - a.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


SOFTMAX = defop("softmax", ("self",), save=("result",),
                math="y = e^a / sum e^a;  da = y*(g - sum(g*y))",
                forward=half_in_float32(_softmax_forward),
                vjp=lambda g, ctx: (ctx.result * (g - sum(g * ctx.result, ctx.dim, keepdim=True)),),
                formulas=("y*(I - y^T)",))

def _log_softmax_forward(xp, a, dim):
    # (a - m) - log(sum(e^(a - m))) with m the row's max: two passes over a besides the exp and the sum;
    # a row with an infinite max gives NaN as in PyTorch (inf - inf)
    if a.size == 0:   # (nothing to normalize; NumPy's max has no value for an empty dim)
        return a.copy()
    shifted = a - a.max(axis=dim, keepdims=True)
    return shifted - xp.log(xp.exp(shifted).sum(axis=dim, keepdims=True))


LOG_SOFTMAX = defop("log_softmax", ("self",), save=("result",),
                    math="y = a - logsumexp(a);  da = g - e^y*sum(g)",
                    forward=half_in_float32(_log_softmax_forward),
                    vjp=lambda g, ctx: (g - exp(ctx.result) * sum(g, ctx.dim, keepdim=True),),
                    formulas=("I - softmax(a)",))


def _norm_vjp(g, ctx):
    # d sqrt(sum a^2) / da = a / norm, 0 where the norm is 0 (PyTorch's choice there: no NaN). Recorded, as
    # PyTorch: g times the masked a / norm, so a second derivative through g is 0 there (g's own path has no
    # 0/0), while the one through a stays PyTorch's NaN
    shape, dims, keepdim = ctx._input_shapes[0], ctx.dims, ctx.keepdim
    n = expand_back(ctx.result, shape, dims, keepdim)
    nonzero = n != 0
    if not isinstance(g, Tensor):   # (on arrays: no NumPy warning for the 0/0 that the select drops)
        n = where(nonzero, n, 1.0)
    return (expand_back(g, shape, dims, keepdim) * masked(ctx.self / n, nonzero),)


def _norm_forward(xp, a, dims, keepdim):
    squares = a * a if a.dtype.kind != "c" else (a * a.conj()).real   # (|a_i|^2)
    return xp.sqrt(squares.sum(axis=dims, keepdims=keepdim))


NORM = defop("norm", ("self",), save=("self", "result"),
             math="sqrt(sum_i |a_i|^2);  da = g*a/norm (0 where norm = 0)",
             forward=_norm_forward, vjp=_norm_vjp, formulas=("a/norm",),
             complex_vjp="same")   # (for complex a too: d|a|^2 = 2a by PyTorch's convention)


def norm(input, p="fro", dim=None, keepdim=False):
    """The 2-norm ``sqrt(sum a^2)`` over ``dim`` (every dim by default; ``p=2`` or ``"fro"``), or the 1-norm
    ``sum |a|`` (``p=1``). Where the 2-norm is 0 its gradient is 0, as in PyTorch."""
    expect_tensor(input, "norm")
    _floats_only(input, "norm", "fc")
    if p == 1:
        return sum(abs(input), dim, keepdim)
    if p not in (2, "fro"):
        raise RuntimeError(f"norm: p={p!r} is not supported here: use p=2 (the default, also 'fro') or p=1")
    dims = reduction_dims(dim, input.ndim, "norm") if input.ndim else ()
    return apply_one(NORM, input, {"dims": dims, "keepdim": bool(keepdim)})


def vector_norm(x, p=2.0, dim=None, keepdim=False):
    """||x||_p over ``dim`` (every dim by default): (sum_i |x_i|^p)^(1/p); max |x_i| for p = inf, min |x_i| for
    p = -inf, the count of nonzero x_i for p = 0 (a zero gradient). Where the norm is 0, its gradient is 0, as in
    PyTorch; elsewhere d/dx_i = sign(x_i) |x_i|^(p-1) / norm^(p-1)."""
    if dim is not None:   # (a 0-d x takes dim 0 or -1 only, as in PyTorch: an IndexError otherwise)
        reduction_dims(dim, x.ndim, "vector_norm")
    if p == 2:
        return norm(x, 2, dim, keepdim)
    if p < 0 or p == math.inf:   # (a max, a min or a sum of |x|^p = inf: nothing to give over no element)
        for d in (reduction_dims(dim, x.ndim, "vector_norm") if x.ndim else ()):
            if x.shape[d] == 0:
                raise RuntimeError(f"vector_norm: the {p} norm over dim {d}, which is empty (shape "
                                   f"{tuple(x.shape)}), is undefined; use p > 0, or reduce over another dim")
    size = abs(x)
    if p == 1:
        return sum(size, dim, keepdim)
    if p == math.inf:
        return amax(size, dim, keepdim)   # (ties share the gradient, as in PyTorch)
    if p == -math.inf:
        return amin(size, dim, keepdim)
    # |x_i|^p only where x_i is not 0 (there its slope is 0 or infinite; PyTorch takes 0): 0 for p >= 0, inf for
    # p < 0, which makes the norm 0. For p = 0 each |x_i|^0 is 1: the count, with a zero gradient (as PyTorch's)
    nonzero = x != 0
    total = sum(where(nonzero, where(nonzero, size, 1.0) ** p, 0.0 if p >= 0 else math.inf), dim, keepdim)
    if p == 0:
        return total
    if p < 0:
        with numpy.errstate(divide="ignore"):
            return total ** (1.0 / p)
    zero = total == 0   # (the root only where the sum is not 0: its slope there is infinite)
    return where(zero, 0.0, where(zero, 1.0, total) ** (1.0 / p))


def _prod_forward(xp, a, dim, keepdim):
    # (integers and bools multiply as int64, as in PyTorch)
    return a.prod(axis=dim, keepdims=keepdim, dtype="int64" if a.dtype.kind in "biu" else None)


def _prod_vjp(g, ctx):
    # d prod(a) / da_i = the product of the other elements. While no element is 0 that is y / a_i (PyTorch's
    # formula). In a slice with zeros, y / a_i is still right away from the zeros (0, and its derivative in the
    # zero, which y keeps), and at a zero it is: with one zero, the product R of the nonzero elements; with two,
    # the other zero times R, written (S - a_i)*R with S the sum over the zeros: 0, but with a's derivative
    # (d/da_j of a_i*a_j*R is a_i*R); with more, 0.
    a, y, dim = ctx.self, ctx.result, ctx.dim
    if a.ndim == 0:
        return (g,)
    dims = tuple(range(a.ndim)) if dim is None else (dim,)
    g, y = (expand_back(t, a.shape, dims, ctx.keepdim) for t in (g, y))   # (back to a's shape)
    zero = a == 0
    if not (zero._data if isinstance(zero, Tensor) else zero).any():
        return (g * (y / a),)
    safe = where(zero, 1, a)    # (a with its zeros as 1: no 0/0, in either order of derivative)
    count, at_zeros = sum(zero, dim, keepdim=True), sum(where(zero, a, 0), dim, keepdim=True)
    rest = prod(safe, dim, keepdim=True) if dim is not None else prod(safe)
    at_zero = where(count == 1, rest, where(count == 2, (at_zeros - a) * rest, 0))
    return (g * where(zero, at_zero, y / safe),)


PROD = defop("prod", ("self",), save=("self", "result"),
             math="prod_i a_i;  da_i = g*(product of the other a_j)",
             forward=_prod_forward, vjp=_prod_vjp, formulas=("product of the others",))


def prod(input, dim=None, keepdim=False, *, dtype=None):
    """The product of the elements along ``dim`` (one dim; all of them by default). Integers and bools give
    int64; ``dtype`` casts the input first. Its gradient is the product of the other elements, also where
    some are 0."""
    expect_tensor(input, "prod")
    if dtype is not None:   # (and the result in it: integers would multiply as int64)
        return to_dtype(prod(to_dtype(input, dtype), dim, keepdim), dtype)
    if dim is None:
        if keepdim:
            raise TypeError("prod(): keepdim=True needs a dim (as in PyTorch): a.prod(dim, keepdim=True)")
        return apply_one(PROD, input, {"dim": None, "keepdim": False})
    d = single_dim(dim, input.ndim, "prod")
    return apply_one(PROD, input, {"dim": None if input.ndim == 0 else d, "keepdim": bool(keepdim)})


# the dtype PyTorch's CPU kernels accumulate running sums and products in, each result rounded once (a million
# 0.1s summed in float32 steps came to 100958); unsigned integers sum as int64 (NumPy's default is uint64)
_ACCUMULATOR = {numpy.dtype(k): numpy.dtype(v) for k, v in (("float16", "float32"), ("float32", "float64"),
                                                             ("complex64", "complex128"))}


def _running_sums(xp, a, dim, reverse):
    """Cumulative sums along ``dim``, from the start (``reverse``: from the end), in ``_ACCUMULATOR``'s dtype."""
    a1 = a.reshape(1) if a.ndim == 0 else a
    wide = _ACCUMULATOR.get(a.dtype)
    dtype = numpy.dtype("int64") if a.dtype.kind == "u" else wide
    if reverse:
        sums = xp.flip(xp.cumsum(xp.flip(a1, axis=dim), axis=dim, dtype=dtype), axis=dim)
    else:
        sums = xp.cumsum(a1, axis=dim, dtype=dtype)
    return (sums if wide is None else sums.astype(a.dtype)).reshape(a.shape)


def _cumsum_vjp(g, ctx):
    # a_i is in every partial sum from i on: da_i = sum_{j >= i} g_j, the running sum taken from the other end
    return (apply_one(CUMSUM, g, {"dim": ctx.dim, "reverse": not ctx.reverse}),)


CUMSUM = defop("cumsum", ("self",),
               math="y_i = sum_{j <= i} a_j along dim (reverse: j >= i);  da_i = sum_{j >= i} g_j (reverse: j <= i)",
               forward=_running_sums, vjp=_cumsum_vjp, formulas=("[j >= i]",))


def cumsum(input, dim, *, dtype=None):
    """Running sums along ``dim``: ``y[i] = a[0] + ... + a[i]`` (integers and bools sum as int64, as in PyTorch;
    ``dtype`` casts the input first)."""
    expect_tensor(input, "cumsum")
    if dtype is not None:   # (and the result in it: integers would sum as int64)
        return to_dtype(cumsum(to_dtype(input, dtype), dim), dtype)
    d = single_dim(dim, input.ndim, "cumsum")
    return apply_one(CUMSUM, input, {"dim": d, "reverse": False})


def cumprod(input, dim, *, dtype=None):
    """Running products along ``dim``: ``y[i] = a[0] * ... * a[i]`` (integers and bools as int64). Built as
    ``y[i] = prod_j m[i, j]`` with ``m[i, j] = a[j]`` for ``j <= i`` and 1 after, so its gradient is ``prod``'s,
    exact where ``a`` has zeros: ``da[j] = sum_{i >= j} g[i] * (product of a[:i+1] without a[j])``. (Clear rather
    than fast: it holds n x n factors for a dim of n, fine for a lab's dims, costly past a few thousand.)"""
    expect_tensor(input, "cumprod")
    d = single_dim(dim, input.ndim, "cumprod")
    if dtype is not None:   # (and the result in it: integers would multiply as int64)
        return to_dtype(cumprod(to_dtype(input, numpy.dtype(dtype)), d), numpy.dtype(dtype))
    wide = _ACCUMULATOR.get(input.dtype)   # (multiplied in the accumulator's dtype, each product rounded once)
    if wide is not None:
        return to_dtype(_running_products(to_dtype(input, wide), d), input.dtype)
    return _running_products(input, d)


def _running_products(input, d):
    if input.ndim == 0:
        return prod(input)
    x = input.movedim(d, -1)   # (Tensor methods: shape ops import this module)
    n = x.shape[-1]
    xp = xp_of(x._data)
    lower = xp.tril(xp.ones((n, n), dtype=bool))   # lower[i, j]: j <= i
    rows = where(lower, x.unsqueeze(-2), 1)        # rows[..., i, j] = a[j] if j <= i else 1
    return prod(rows, -1).movedim(-1, d)


def _reduce(op, a, dim, keepdim):
    kind = type(a)
    if kind is Tensor or kind is numpy.ndarray:   # the common cases, nothing to check: every axis, or one in range
        ndim = a._data.ndim if kind is Tensor else a.ndim
        if dim is None:
            params = {"dims": normalize_dims(None, ndim), "keepdim": bool(keepdim)}
        elif type(dim) is int and -ndim <= dim < ndim:
            params = {"dims": (dim % ndim,), "keepdim": bool(keepdim)}
        else:
            params = None
        if params is not None:   # (an array: inside a VJP that runs on arrays)
            return apply_unary(op, a, params) if kind is Tensor else on_arrays(op, (a,), params)
    expect_tensor(a, op.name)
    dims = reduction_dims(dim, a.ndim, op.name)
    if a.ndim == 0:
        dims = ()  # a 0-d tensor accepts dim 0 / -1, as in PyTorch; there is nothing to reduce
    params = {"dims": dims, "keepdim": bool(keepdim)}
    return apply_one(op, a, params)


def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over ``dim`` (all axes by default); ``dtype`` casts the input first (PyTorch's)."""
    if dtype is not None:   # (and the result in it: integers would sum as int64)
        return to_dtype(_reduce(SUM, to_dtype(input, dtype), dim, keepdim), dtype)
    return _reduce(SUM, input, dim, keepdim)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean over ``dim`` (all axes by default); ``dtype`` casts the input first (PyTorch's)."""
    expect_tensor(input, "mean")
    if dtype is not None:
        input = to_dtype(input, dtype)
    if input.dtype.kind not in "fc":
        raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be floating point, "
                           f"got {input.dtype.name}; use a.to(float32).mean()")
    return _reduce(MEAN, input, dim, keepdim)


def amax(input, dim=None, keepdim=False):
    """The largest element over ``dim`` (all by default); tied elements share the gradient equally."""
    expect_tensor(input, "amax")
    ordered("amax", input)
    _check_not_empty("amax", input, reduction_dims(dim, input.ndim, "amax") if input.ndim else (), _every_dim(dim))
    return _reduce(AMAX, input, dim, keepdim)


def amin(input, dim=None, keepdim=False):
    """The smallest element over ``dim`` (all by default); tied elements share the gradient equally."""
    expect_tensor(input, "amin")
    ordered("amin", input)
    _check_not_empty("amin", input, reduction_dims(dim, input.ndim, "amin") if input.ndim else (), _every_dim(dim))
    return _reduce(AMIN, input, dim, keepdim)


def _whole_extreme_vjp(g, ctx):
    # max(a) / min(a) of every element: shared equally among the elements equal to it, or among the NaNs
    # when it is NaN (PyTorch's rule for the whole-tensor max; amax over dims has no NaN case)
    a, result = ctx.self.detach(), ctx.result.detach()
    mask = (a == result) | ((a != a) & (result != result))
    return (masked(g / mask.sum(), mask),)   # (a select: 0 elsewhere also for an infinite g, as in PyTorch)


MAX = defop("max", ("self",), save=("self", "result"), math="max_i a_i;  da = g*[a = max]/(number of ties)",
            forward=lambda xp, a: a.max(), vjp=_whole_extreme_vjp, formulas=("[a = max]",), arrays=False)

MIN = defop("min", ("self",), save=("self", "result"), math="min_i a_i;  da = g*[a = min]/(number of ties)",
            forward=lambda xp, a: a.min(), vjp=_whole_extreme_vjp, formulas=("[a = min]",), arrays=False)

MaxResult = return_type("max", ["values", "indices"])
MinResult = return_type("min", ["values", "indices"])


def _at_indices_forward(xp, a, indices, dim, keepdim):
    if a.ndim == 0:   # max(dim=0) of a 0-d tensor: the element itself (a new tensor, not a view)
        return a.copy()
    picked = xp.take_along_axis(a, xp.expand_dims(indices, dim) if not keepdim else indices, axis=dim)
    return picked if keepdim else picked.squeeze(axis=dim)


def _at_indices_vjp(g, ctx):
    # all of g goes to the index the forward returned (one per slice), as in PyTorch
    shape, dim = ctx._input_shapes[0], ctx.dim
    if not shape:
        return (g, None)
    indices = ctx.indices if ctx.keepdim else ctx.indices.unsqueeze(dim)
    positions = arange_along(shape, dim, indices.device)
    return (masked(expand_back(g, shape, (dim,), ctx.keepdim), eq(positions, indices)), None)


def arange_along(shape, dim, device):
    """``0, 1, ..., shape[dim] - 1`` laid out along ``dim`` (size 1 elsewhere): position numbers."""
    from ..creation import arange
    return arange(shape[dim], device=device).reshape(tuple(-1 if i == dim else 1 for i in range(len(shape))))


MAX_DIM = defop("max_dim", ("self", "indices"), save=("indices",),
                math="(values, indices) = max along dim;  da = g at the returned index (0 elsewhere)",
                forward=_at_indices_forward, vjp=_at_indices_vjp, formulas=("[index = argmax]", ""), arrays=False)

MIN_DIM = defop("min_dim", ("self", "indices"), save=("indices",),
                math="(values, indices) = min along dim;  da = g at the returned index (0 elsewhere)",
                forward=_at_indices_forward, vjp=_at_indices_vjp, formulas=("[index = argmin]", ""), arrays=False)


def _extreme_with_indices(a, dim, keepdim, op, arg, result_type):
    d = single_dim(dim, a.ndim, result_type.__name__)
    if a.ndim == 0:  # a 0-d tensor accepts dim 0 / -1: its one element, at index 0
        idx = xp_of(a._data).zeros((), dtype="int64")
    else:
        _check_not_empty(result_type.__name__, a, (d,))
        idx = arg_extreme(a._data, arg, d, bool(keepdim)).astype("int64")  # the first of ties, the first NaN
    indices = Tensor._make(idx, False, None, a.device)
    return result_type(apply(op, (a, indices), {"dim": d, "keepdim": bool(keepdim)}), indices)


def _every_dim(dim) -> bool:
    """Whether ``dim`` asks for a reduction over every dim (None, or an empty tuple or list, as in PyTorch)."""
    return dim is None or (isinstance(dim, (tuple, list)) and not dim)


def _check_not_empty(name, a, dims, whole=False):
    """The max or min of nothing is undefined: say so (as PyTorch does) before NumPy's own error: for the
    whole tensor (``whole``, no dim given) a RuntimeError, for a dim given of size 0 an IndexError."""
    if whole and a.numel() == 0:
        raise RuntimeError(f"{name}(): the input has shape {tuple(a.shape)} with no elements, and the "
                           f"{name[-3:]} of nothing is undefined. Check the shape first, or reduce over a "
                           f"dim that is not empty with {name}(dim=...).")
    for d in dims:
        if a.shape[d] == 0:
            raise IndexError(f"{name}(): dim {d} has size 0 in the input of shape {tuple(a.shape)}: "
                             f"there is nothing to take the {name[-3:]} of along it. Reduce over another dim.")


def max(input, dim=None, keepdim=False, *, other=None):
    """``max(a)``: the largest element (ties share the gradient equally, as ``amax``; a NaN is the
    largest, and the NaNs share it).
    ``max(a, dim)``: ``(values, indices)`` along ``dim``; the index is the first of tied maxima and
    all of the gradient goes to it (as in PyTorch)."""
    if other is not None:   # (PyTorch's max(input, other=...): elementwise, as maximum)
        if dim is not None:
            raise TypeError("max(): give either dim or other, not both")
        return maximum(input, other)
    if isinstance(dim, Tensor):
        return maximum(input, dim)
    expect_tensor(input, "max")
    ordered("max", input, NotImplementedError if dim is None else RuntimeError)
    if dim is None:
        _check_not_empty("max", input, tuple(range(input.ndim)), whole=True)
        return apply_one(MAX, input)
    return _extreme_with_indices(input, dim, keepdim, MAX_DIM, "argmax", MaxResult)


def min(input, dim=None, keepdim=False, *, other=None):
    """``min(a)``: the smallest element. ``min(a, dim)``: ``(values, indices)`` along ``dim``
    (the first of tied minima gets all of the gradient)."""
    if other is not None:   # (PyTorch's min(input, other=...): elementwise, as minimum)
        if dim is not None:
            raise TypeError("min(): give either dim or other, not both")
        return minimum(input, other)
    if isinstance(dim, Tensor):
        return minimum(input, dim)
    expect_tensor(input, "min")
    ordered("min", input, NotImplementedError if dim is None else RuntimeError)
    if dim is None:
        _check_not_empty("min", input, tuple(range(input.ndim)), whole=True)
        return apply_one(MIN, input)
    return _extreme_with_indices(input, dim, keepdim, MIN_DIM, "argmin", MinResult)


def _centered_forward(xp, a, dims):
    """``a - mean(a)`` over ``dims``, computed after shifting by the first element of each slice:
    the shift cancels in the math, and identical values give exact zeros (as in PyTorch)."""
    first = a[tuple(slice(0, 1) if i in dims else slice(None) for i in range(a.ndim))]
    shifted = a - first
    return shifted - shifted.mean(axis=dims, keepdims=True)


def _centered(a, dims):
    """``a - mean(a)`` as Tensor ops, shifted by a constant as :func:`_centered_forward` is."""
    first = a.detach()[tuple(slice(0, 1) if i in dims else slice(None) for i in range(a.ndim))]
    shifted = a - first
    return shifted - shifted.mean(dims, keepdim=True)


def _var_forward(xp, a, dims, keepdim, correction):
    centered = _centered_forward(xp, a, dims)
    squares = centered * centered if a.dtype.kind != "c" else (centered * centered.conj()).real   # (|a - mean|^2)
    return squares.sum(axis=dims, keepdims=keepdim) / _maxzero(_count(a.shape, dims) - correction)


def _var_vjp(g, ctx):
    shape, dims = ctx._input_shapes[0], ctx.dims
    dof = _maxzero(_count(shape, dims) - ctx.correction)
    scale = 2 / dof if dof else float("inf")  # n <= correction: 2/0, so NaN gradients as in PyTorch
    return (expand_back(g, shape, dims, ctx.keepdim) * _centered(ctx.self, dims) * scale,)


VAR = defop("var", ("self",), save=("self",),
            math="sum(|a - mean|^2) / (n - c);  da = g*2*(a - mean)/(n - c)",
            forward=_var_forward, vjp=_var_vjp, formulas=("2*(a - mean)/(n - c)",), arrays=False,
            complex_vjp="same")   # (for complex a too: d|w|^2 = 2w by PyTorch's convention)


def _maxzero(n):
    return n if n > 0 else 0


def _std_forward(xp, a, dims, keepdim, correction):
    return xp.sqrt(_var_forward(xp, a, dims, keepdim, correction))


def _std_vjp(g, ctx):
    # d std / da = (a - mean) / ((n - correction) * std); where std is 0 (constant data) the
    # gradient is 0, as in PyTorch, instead of 0/0
    shape, dims = ctx._input_shapes[0], ctx.dims
    s = ctx.result
    flat = s == 0
    dof = _maxzero(_count(shape, dims) - ctx.correction)
    coeff = where(flat, 0.0, g / (where(flat, 1.0, s) * dof))
    return (expand_back(coeff, shape, dims, ctx.keepdim) * _centered(ctx.self, dims),)


STD = defop("std", ("self",), save=("self", "result"),
            math="sqrt(sum(|a - mean|^2) / (n - c));  da = g*(a - mean)/((n - c)*std), 0 where std = 0",
            forward=_std_forward, vjp=_std_vjp, formulas=("(a - mean)/((n - c)*std)",), arrays=False,
            complex_vjp="same")


def _floats_only(a, name, kinds="f", error=RuntimeError):
    """var, std, norm, softmax and log_softmax take floating point tensors (as PyTorch: no silent float64;
    mean says so in its own words, which its test reads); var and std complex ones too (``kinds="fc"``).
    ``error``: PyTorch's class (softmax's kernels for integers are missing: NotImplementedError)."""
    if a.dtype.kind not in kinds:
        raise error(f"{name} only supports floating point tensors, but got {a.dtype.name}: convert it first, "
                    f"e.g. x.to(autogradlab.float32)")


def _moment(op, a, dim, correction, keepdim, unbiased):
    expect_tensor(a, op.name)
    _floats_only(a, op.name, "fc")
    if isinstance(dim, bool) and unbiased is None:   # (PyTorch's older form var(x, unbiased): x.std(False))
        dim, unbiased = None, dim
    if unbiased is not None:
        correction = 1 if unbiased else 0
    if correction is None:   # (PyTorch's default, spelt out)
        correction = 1
    dims = reduction_dims(dim, a.ndim, op.name) if a.ndim else ()  # dim 0 / -1 of a 0-d tensor: nothing to reduce
    if a.dtype == numpy.float16:   # (in float32, as PyTorch: a count past 65504 is inf in float16, the result 0)
        return to_dtype(_moment(op, to_dtype(a, numpy.dtype("float32")), dims, correction, keepdim, None),
                        a.dtype)
    return apply(op, (a,), {"dims": dims, "keepdim": bool(keepdim), "correction": correction})


def var(input, dim=None, correction=1, keepdim=False, *, unbiased=None):
    """Variance ``sum((a - mean)^2) / (n - correction)``; exactly 0 for identical values."""
    return _moment(VAR, input, dim, correction, keepdim, unbiased)


def std(input, dim=None, correction=1, keepdim=False, *, unbiased=None):
    """Standard deviation ``sqrt(var(a))``, with gradient 0 (not NaN) where the data is constant."""
    return _moment(STD, input, dim, correction, keepdim, unbiased)


def logsumexp(input, dim, keepdim=False):
    """``log(sum(exp(a), dim))`` computed stably (an integer or bool tensor in float32, as in PyTorch)."""
    if isinstance(input, Tensor) and input.dtype.kind in "biu":
        input = to_dtype(input, default_float())
    return _reduce(LOGSUMEXP, input, dim, keepdim)


def softmax(input, dim, dtype=None):
    """``exp(a) / sum(exp(a), dim)`` computed stably (in ``dtype`` if given: a cast first, as PyTorch)."""
    expect_tensor(input, "softmax")
    if dtype is not None:
        input = to_dtype(input, dtype)
    _floats_only(input, "softmax", error=NotImplementedError)
    d = single_dim(dim, input.ndim, "softmax")
    return apply_one(SOFTMAX, input, {"dim": d})


def log_softmax(input, dim, dtype=None):
    """``a - logsumexp(a, dim)`` (in ``dtype`` if given: a cast first)."""
    expect_tensor(input, "log_softmax")
    if dtype is not None:
        input = to_dtype(input, dtype)
    _floats_only(input, "log_softmax", error=NotImplementedError)
    d = single_dim(dim, input.ndim, "log_softmax")
    return apply_one(LOG_SOFTMAX, input, {"dim": d})


# -- not differentiable: indices and truth values ----------------------------------------------

def _index_forward(pick):
    def forward(xp, a, dim, keepdim):
        if a.ndim == 0:   # (a 0-d tensor's one element, at index 0)
            return xp.zeros((), dtype="int64")
        if dim is None:   # over every element, as if flattened: a flat index
            return xp.full((1,) * a.ndim if keepdim else (), arg_extreme(a, pick), dtype="int64")
        return arg_extreme(a, pick, dim, keepdim).astype("int64", copy=False)
    return forward


ARGMAX = defop("argmax", ("self",), forward=_index_forward("argmax"), vjp=None,
               math="the index of the largest a_i (the first of ties, and a NaN counts as the largest)")
ARGMIN = defop("argmin", ("self",), forward=_index_forward("argmin"), vjp=None,
               math="the index of the smallest a_i (the first of ties, and a NaN counts as the smallest)")
def _truth_forward(name):
    def forward(xp, a, dims, keepdim):
        out = getattr(xp, name)(a, axis=dims, keepdims=keepdim)
        return out.astype(a.dtype) if a.dtype == numpy.uint8 else out   # (bytes in, bytes out: PyTorch's rule)
    return forward


ALL = defop("all", ("self",), forward=_truth_forward("all"), vjp=None, math="every a_i is nonzero")
ANY = defop("any", ("self",), forward=_truth_forward("any"), vjp=None, math="some a_i is nonzero")


def _index_of_extreme(op, a, dim, keepdim):
    expect_tensor(a, op.name)
    if a.dtype.kind == "b":
        raise RuntimeError(f"{op.name}(): does not support bool input (as in PyTorch): convert it first, "
                           f"e.g. mask.to(autogradlab.int64).{op.name}()")
    if dim is None:
        if a.numel() == 0:
            raise IndexError(f"{op.name}(): the input has shape {tuple(a.shape)} with no elements, so there is no "
                             f"index to give. Check the shape first, or give a dim that is not empty.")
        return apply_one(op, a, {"dim": None, "keepdim": bool(keepdim)})
    d = single_dim(dim, a.ndim, op.name)
    if a.ndim:
        _check_not_empty(op.name, a, (d,))
    return apply_one(op, a, {"dim": d, "keepdim": bool(keepdim)})


def argmax(input, dim=None, keepdim=False):
    """The index of the largest element along ``dim`` (int64; the first of ties, a NaN counts as the largest);
    with no dim, the index into the flattened tensor. Not differentiable: indices have no gradient."""
    return _index_of_extreme(ARGMAX, ordered("argmax", input, RuntimeError), dim, keepdim)


def argmin(input, dim=None, keepdim=False):
    """The index of the smallest element along ``dim`` (see :func:`argmax`)."""
    return _index_of_extreme(ARGMIN, ordered("argmin", input, RuntimeError), dim, keepdim)


def _truth(op, a, dim, keepdim):
    expect_tensor(a, op.name)
    # (unlike sum's, an empty tuple of dims reduces none, as in PyTorch: each element's own truth)
    dims = normalize_dims(dim, a.ndim, op.name)
    if a.ndim == 0:   # (dims 0 and -1 of a 0-d tensor, as in PyTorch: nothing to reduce)
        dims = ()
    return apply_one(op, a, {"dims": dims, "keepdim": bool(keepdim)})


def all(input, dim=None, keepdim=False):
    """Whether every element over ``dim`` (all by default) is nonzero, as a bool tensor."""
    return _truth(ALL, input, dim, keepdim)


def any(input, dim=None, keepdim=False):
    """Whether some element over ``dim`` (all by default) is nonzero, as a bool tensor."""
    return _truth(ANY, input, dim, keepdim)
