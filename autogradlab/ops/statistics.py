"""Statistics lab code reaches for, with PyTorch's names: the order statistics ``median``, ``nanmedian``,
``kthvalue``, ``quantile`` and ``nanquantile``; ``nansum`` and ``nanmean``; ``std_mean`` and ``var_mean``;
``cov`` and ``corrcoef``.

An order statistic picks an element, so its gradient goes to the element picked: along a dim, all of it to
the index returned (as ``max(dim)``); over the whole tensor, shared equally by the elements equal to the
median (as ``max()``, PyTorch's rule). A quantile between two elements is ``lerp`` of the two, so each gets
its share. NaN sorts last: ``median`` and ``quantile`` of a slice holding NaN are NaN, the ``nan`` versions
leave NaN out. The rest are built from ``where``, ``sum``, ``matmul`` and friends, whose gradients they take.
"""
from __future__ import annotations

import numbers
import warnings

import numpy

from ..backend import asarray, to_host, xp_of
from ..tensor import Tensor, default_float
from ..return_types import return_type
from .complex_numbers import complex as complex_from_parts
from .elementwise import clamp, isnan, lerp, logical_not, ordered, sqrt, to_dtype, where
from .linalg import matmul
from .rearrange import diagonal, movedim
from .reduce import (_at_indices_forward, _at_indices_vjp, _whole_extreme_vjp, mean, single_dim, std, sum,
                     var)
from .registry import apply, apply_one, defop, expect_tensor
from .shape import gather, reshape, sort

__all__ = ["aminmax", "median", "nanmedian", "kthvalue", "quantile", "nanquantile", "nansum", "nanmean", "std_mean", "var_mean",
           "cov", "corrcoef"]

MedianResult = return_type("median", ["values", "indices"])
NanmedianResult = return_type("nanmedian", ["values", "indices"])
KthvalueResult = return_type("kthvalue", ["values", "indices"])
AminmaxResult = return_type("aminmax", ["min", "max"])


# -- order statistics: which sorted position to take ----------------------------------------------------
def _nans(xp, data, axis):
    """How many NaNs each slice along ``axis`` holds (kept as a size-1 axis)."""
    if data.dtype.kind != "f":
        return xp.zeros(data.shape[:axis] + (1,) + data.shape[axis + 1:], dtype=numpy.int64)
    return xp.isnan(data).sum(axis=axis, keepdims=True)


def _median_position(n, nans, skip_nan):
    """The sorted position of the lower median: of all ``n`` elements (the first NaN if there is one), or
    of the ones that are not NaN (``skip_nan``; position 0, a NaN, if all are)."""
    if skip_nan:
        valid = n - nans
        return ((valid - 1) // 2).clip(0, None)
    return ((n - 1) // 2) * (nans == 0) + (n - nans) * (nans > 0)


def _picked(data, axis, position):
    """The index along ``axis`` of the element at sorted position ``position(n, nans)`` (NaN last, ties in
    their order in ``data``), with ``axis`` kept as size 1."""
    xp = xp_of(data)
    order = xp.argsort(data, axis=axis, kind="stable")
    k = position(data.shape[axis], _nans(xp, data, axis))
    return xp.take_along_axis(order, k.astype(numpy.int64), axis=axis).astype(numpy.int64)


def _whole_median_forward(xp, a, skip_nan):
    flat = a.reshape(-1)
    if flat.size == 0:
        return xp.full((), numpy.nan, dtype=a.dtype)
    index = _picked(flat, 0, lambda n, nans: _median_position(n, nans, skip_nan))
    return flat[index].reshape(())


MEDIAN = defop("median", ("self",), save=("self", "result"),
               math="the lower median of every element;  da = g*[a = median]/(number of ties)",
               forward=_whole_median_forward, vjp=_whole_extreme_vjp, formulas=("[a = median]",), arrays=False)

MEDIAN_DIM = defop("median_dim", ("self", "indices"), save=("indices",),
                   math="(values, indices) = lower median along dim;  da = g at the returned index (0 elsewhere)",
                   forward=_at_indices_forward, vjp=_at_indices_vjp, formulas=("[index = median]", ""), arrays=False)

KTHVALUE = defop("kthvalue", ("self", "indices"), save=("indices",),
                 math="(values, indices) = k-th smallest along dim;  da = g at the returned index (0 elsewhere)",
                 forward=_at_indices_forward, vjp=_at_indices_vjp, formulas=("[index = k-th]", ""), arrays=False)


def _along_dim(a, dim, keepdim, name, op, position, result_type):
    """``(values, indices)`` of the element at sorted position ``position(n, nans)`` along ``dim``."""
    d = single_dim(dim, a.ndim, name)
    if a.ndim == 0:   # dim 0 / -1 of a 0-d tensor: its one element, at index 0
        index = xp_of(a._data).zeros((), dtype=numpy.int64)
    else:
        if a.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size: the input has shape "
                             f"{tuple(a.shape)}. Reduce over another dim.")
        index = _picked(a._data, d, position)
        if not keepdim:
            index = index.squeeze(axis=d)
    indices = Tensor._make(index, False, None, a.device)
    return result_type(apply(op, (a, indices), {"dim": d, "keepdim": bool(keepdim)}), indices)


def _not_bool(a, name):
    if a.dtype.kind == "b":
        raise NotImplementedError(f"{name}(): not implemented for bool tensors (as in PyTorch): convert first, e.g. "
                                  f"a.to(autogradlab.int64)")


def _median(a, dim, keepdim, skip_nan, name, result_type):
    expect_tensor(a, name)
    if dim is not None:
        single_dim(dim, a.ndim, name)   # (a dim out of range is said first, as PyTorch says it)
    _not_bool(a, name)
    if dim is None:
        return apply_one(MEDIAN, a, {"skip_nan": skip_nan})
    return _along_dim(a, dim, keepdim, name, MEDIAN_DIM, lambda n, nans: _median_position(n, nans, skip_nan),
                      result_type)


def median(input, dim=None, keepdim=False):
    """``median(a)``: the lower median of every element (of 2m elements the m-th smallest), NaN if any is;
    tied elements share the gradient. ``median(a, dim)``: ``(values, indices)`` along ``dim``, all of the
    gradient to the index returned."""
    return _median(ordered("median", input), dim, keepdim, False, "median", MedianResult)


def nanmedian(input, dim=None, keepdim=False):
    """:func:`median` of the elements that are not NaN (NaN where all are)."""
    return _median(ordered("nanmedian", input), dim, keepdim, True, "nanmedian", NanmedianResult)


def kthvalue(input, k, dim=-1, keepdim=False):
    """``(values, indices)``: the ``k``-th smallest element along ``dim`` (k = 1: the smallest; NaN counts as the
    largest) and where it is; its gradient goes to that index."""
    expect_tensor(input, "kthvalue")
    ordered("kthvalue", input)
    if isinstance(k, Tensor) and k.ndim == 0 and k.dtype.kind in "iu":   # (a 0-d integer tensor, as PyTorch takes)
        k = int(to_host(k._data))
    if type(k) is bool or not isinstance(k, numbers.Integral):
        raise TypeError(f"kthvalue(): argument 'k' must be int, not {type(k).__name__}")
    d = single_dim(dim, input.ndim, "kthvalue")
    _not_bool(input, "kthvalue")
    n = input.shape[d] if input.ndim else 1
    if n == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size: the input has shape "
                         f"{tuple(input.shape)}")
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}: k = {k}, but dim {d} "
                           f"has {n} elements (shape {tuple(input.shape)}); k counts from 1")
    return _along_dim(input, d, keepdim, "kthvalue", KTHVALUE, lambda n, nans: nans * 0 + (k - 1),
                      KthvalueResult)


# -- quantiles ---------------------------------------------------------------------------------------------
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _check_quantile(name, a, q, interpolation):
    """PyTorch's checks, in its words; returns q as an array of a's dtype (0-d for a number)."""
    expect_tensor(a, name)
    if a.dtype not in (numpy.float32, numpy.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype, got {a.dtype.name}: "
                           f"convert it first, e.g. a.double()")
    if a.numel() == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if isinstance(q, Tensor):
        if q.ndim > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor, got shape {tuple(q.shape)}")
        if q.dtype != a.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor: q is {q.dtype.name}, "
                               f"the input {a.dtype.name}; convert it with q.to(input.dtype)")
        values = to_host(q._data)
        if not ((values >= 0) & (values <= 1)).all():
            raise RuntimeError(f"{name}() q values must be in the range [0, 1], got {values.tolist()}")
        q = q._data
    elif isinstance(q, numbers.Real):   # (True counts as 1, as in PyTorch)
        if not 0 <= q <= 1:
            raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
        q = asarray(q, a.device, a.dtype)
    else:
        raise TypeError(f"{name}(): q must be a float or a Tensor, got {type(q).__name__}")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest, "
                           f"but got {interpolation}")
    return q


def _quantile(name, a, q, dim, keepdim, interpolation, skip_nan):
    qs = _check_quantile(name, a, q, interpolation)
    if dim is None:
        x = reshape(a, (-1,))
    else:
        d = single_dim(dim, a.ndim, name)
        x = movedim(a, d, -1) if a.ndim else reshape(a, (1,))
    values = sort(x, -1).values   # NaN last
    data = values._data
    xp = xp_of(data)
    n = data.shape[-1]
    nans = _nans(xp, data, data.ndim - 1)                      # (..., 1)
    qs = qs.reshape((1,) * (data.ndim - 1) + (-1,)) if qs.ndim else qs.reshape((1,) * data.ndim)
    if skip_nan:   # positions among the values that are not NaN; a slice of NaNs only takes its first (NaN)
        scale = (n - nans - 1).astype(data.dtype)
        ranks = qs * scale
        scale = xp.where(ranks < 0, data.dtype.type(0), scale)
        ranks = xp.where(ranks < 0, data.dtype.type(0), ranks)
    else:          # a slice holding NaN takes its last element, a NaN
        scale = xp.where(nans > 0, data.dtype.type(0), data.dtype.type(n - 1))
        ranks = xp.where(nans > 0, data.dtype.type(n - 1), qs * data.dtype.type(n - 1))
    if interpolation in ("lower", "higher", "nearest"):
        ranks = {"lower": xp.floor, "higher": xp.ceil, "nearest": xp.round}[interpolation](ranks)
    below = xp.floor(ranks)

    def at(positions):
        index = Tensor._make(xp.broadcast_to(positions.astype(numpy.int64), ranks.shape).copy(), False, None,
                             a.device)
        return gather(values, -1, index)

    out = at(below)
    if interpolation in ("linear", "midpoint"):
        weight = xp.full(ranks.shape, 0.5, dtype=data.dtype) if interpolation == "midpoint" else ranks - below
        weight = Tensor._make(weight, False, None, a.device)
        if interpolation == "linear" and isinstance(q, Tensor) and q.requires_grad:
            # the weight q*scale - below has d/dq = scale (PyTorch's gradient for q); its value stays exact
            # (where a NaN fixed the rank, the weight is a constant, so no NaN gradient reaches q)
            q_grid = reshape(q, qs.shape)
            moving = weight + (q_grid - q_grid.detach()) * Tensor._make(scale, False, None, a.device)
            weight = where(Tensor._make(scale != 0, False, None, a.device), moving, weight)
        out = lerp(out, at(xp.ceil(ranks)), weight)
    # out: (..., Q), the reduced dim gone; keepdim puts it back as size 1; the q dim goes first (a number q or a
    # 0-d one: none)
    if keepdim:
        kept = (1,) * a.ndim if dim is None else tuple(1 if i == d else n for i, n in enumerate(a.shape))
        out = reshape(out, kept + (out.shape[-1],))
    if out.ndim > 1:
        out = movedim(out, -1, 0)
    return reshape(out, out.shape[1:]) if not isinstance(q, Tensor) or q.ndim == 0 else out


def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """The ``q``-th quantiles (``q`` a float or a 1-D tensor in [0, 1], of input's dtype) over ``dim`` (every
    element by default): the value at sorted position ``q*(n - 1)``, between two elements ``lerp`` of them
    (``interpolation``: linear, lower, higher, midpoint or nearest). A tensor ``q`` adds a leading dim, one
    entry per q. NaN where a slice holds NaN."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """:func:`quantile` of the elements that are not NaN (NaN where all are)."""
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


# -- sums and means that leave NaN out, moments -------------------------------------------------------------
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """The sum with NaN counted as 0 (their gradient is 0)."""
    expect_tensor(input, "nansum")
    if dtype is not None:
        input = to_dtype(input, dtype)
    if input.dtype.kind == "f":
        input = where(isnan(input), 0.0, input)
    return sum(input, dim, keepdim, dtype=dtype)   # (dtype: kept for integers too, as PyTorch)


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """The mean of the elements that are not NaN: ``nansum / (number not NaN)`` (NaN where all are)."""
    expect_tensor(input, "nanmean")
    if input.dtype.kind != "f":
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{input.dtype.name}: convert it first, e.g. a.float()")
    if dtype is not None:
        input = to_dtype(input, dtype)
    counted = sum(logical_not(isnan(input)), dim, keepdim)
    if input.dtype == numpy.float16:   # (the float16 sum divided in float32, as PyTorch divides by a number: a
        total = to_dtype(nansum(input, dim, keepdim), numpy.dtype("float32"))   # count past 65504 is inf in float16)
        return to_dtype(total / counted, input.dtype)
    return nansum(input, dim, keepdim) / counted


def _moment_and_mean(fn, input, dim, unbiased, keepdim, correction):
    if isinstance(dim, bool):   # PyTorch's older form: std_mean(a, unbiased)
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError("std_mean/var_mean: give either unbiased or correction, not both")
    return (fn(input, dim, 1 if correction is None else correction, keepdim, unbiased=unbiased),
            mean(input, dim, keepdim))


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(std(input, dim), mean(input, dim))`` in one call (a plain tuple, as in PyTorch)."""
    return _moment_and_mean(std, input, dim, unbiased, keepdim, correction)


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(var(input, dim), mean(input, dim))`` in one call."""
    return _moment_and_mean(var, input, dim, unbiased, keepdim, correction)


# -- covariance and correlation -----------------------------------------------------------------------------
def _weights(name, w, n, integral, device):
    if w is None:
        return None
    expect_tensor(w, f"cov({name}=...)")
    if w.ndim > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
                           f"{w.ndim} dimensions")
    if w.numel() != n:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in the "
                           f"input but got {w.numel()} != {n}")
    if integral and w.dtype.kind not in "iu":
        raise RuntimeError(f"cov(): expected {name} to have integral dtype but got {name} with "
                           f"{w.dtype.name} dtype")
    if not integral and w.dtype.kind != "f":
        raise RuntimeError(f"cov(): expected {name} to have floating point dtype but got {name} with "
                           f"{w.dtype.name} dtype")
    if w.numel() and bool(to_host((w._data < 0).any())):
        raise RuntimeError(f"cov(): {name} cannot be negative")
    if w.device != device:
        raise RuntimeError(f"cov(): {name} is on {w.device} but the input on {device}; move it with .to()")
    return w


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of ``input`` (observations in its columns; a 1-D
    input, or a single row, is one variable, giving a 0-d tensor): ``(x - mean) @ (x - mean)^H / (N -
    correction)`` (``^H``: the conjugate transpose, for real x the transpose), with ``fweights`` (integer repeat counts) and ``aweights`` (importance) per observation as
    NumPy's ``cov``."""
    expect_tensor(input, "cov")
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.ndim} dimensions")
    if input.dtype.kind == "b":
        raise RuntimeError("cov(): bool dtype is not supported for input: convert it first, e.g. x.float()")
    if isinstance(correction, bool) or not isinstance(correction, numbers.Integral):
        raise TypeError(f"cov(): argument 'correction' must be int, not {type(correction).__name__}")
    x = reshape(input, (1, -1)) if input.ndim < 2 else input
    n = x.shape[1]
    fw = _weights("fweights", fweights, n, True, input.device)
    aw = _weights("aweights", aweights, n, False, input.device)
    float_weights = aw is not None and aw.dtype.kind == "f"   # (PyTorch's result type: the wider float of input
    if x.dtype.kind == "f":                                   # and aweights; the default float for two integers)
        dtype = aw.dtype if float_weights and aw.dtype.itemsize > x.dtype.itemsize else x.dtype
    elif x.dtype.kind == "c":
        dtype = numpy.result_type(x.dtype, aw.dtype) if float_weights else x.dtype
    else:
        dtype = aw.dtype if float_weights else default_float()
    if x.dtype != dtype:
        x = to_dtype(x, dtype)
    w = fw if aw is None else aw if fw is None else fw * aw
    if w is None:
        avg = mean(x, 1, keepdim=True)
        norm = n - correction
    else:
        real = numpy.finfo(x.dtype).dtype   # (the weights stay real for a complex x)
        w = to_dtype(w, real) if w.dtype != real else w
        w_sum = sum(w)
        if float(to_host(w_sum._data)) == 0:
            raise RuntimeError("cov(): weights sum to zero, can't be normalized: give some observation a weight "
                               "above 0")
        avg = sum(x * w, 1, keepdim=True) / w_sum
        if correction == 0:
            norm = w_sum
        elif aw is None:
            norm = w_sum - correction
        else:
            norm = w_sum - correction * sum(w * to_dtype(aw, real)) / w_sum
    if (float(to_host(norm._data)) if isinstance(norm, Tensor) else norm) <= 0:
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations: the result is infinite or NaN.", UserWarning, stacklevel=2)
    norm = clamp(norm, min=0) if isinstance(norm, Tensor) else max(norm, 0)
    centered = x - avg
    product = matmul(centered, (centered if w is None else centered * w).mH)
    c = product / norm
    return reshape(c, ()) if c.shape == (1, 1) else c   # (one variable: a 0-d tensor, as PyTorch squeezes it)


def corrcoef(input):
    """Pearson's correlation coefficients of the rows of ``input``: ``cov / sqrt(var_i * var_j)``, clipped to
    [-1, 1] (complex: each part clipped, as PyTorch's; a 1-D input: ``cov / cov``, 1 or NaN)."""
    expect_tensor(input, "corrcoef")
    if input.ndim > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.ndim} dimensions")
    c = cov(input)
    if c.ndim == 0:
        return c / c
    stddev = sqrt(diagonal(c))
    c = c / reshape(stddev, (-1, 1))
    c = c / reshape(stddev, (1, -1))
    if c.dtype.kind == "c":
        return complex_from_parts(clamp(c.real, -1, 1), clamp(c.imag, -1, 1))
    return clamp(c, -1, 1)


def aminmax(input, *, dim=None, keepdim=False):
    """``(min, max)`` of every element, or along ``dim``: ``amin`` and ``amax`` together (tied extremes share
    the gradient, as theirs do)."""
    expect_tensor(input, "aminmax")
    if dim is None and input.numel() == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                           "identity")
    if dim is not None and input.ndim and input.shape[dim] == 0:   # (PyTorch's class differs for a dim)
        raise IndexError(f"aminmax: Expected reduction dim {dim} to have non-zero size (min and max of nothing "
                         f"are undefined)")
    if dim is None and keepdim and input.ndim:
        dims = tuple(range(input.ndim))
        return AminmaxResult(input.amin(dims, keepdim=True), input.amax(dims, keepdim=True))
    dims = () if dim is None else dim
    return AminmaxResult(input.amin(dims, keepdim=keepdim), input.amax(dims, keepdim=keepdim))
