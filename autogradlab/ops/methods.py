"""Attach the ops to :class:`Tensor` as methods and operators: one explicit table,
so a reader can see what ``a + b`` or ``a.sum(1)`` calls."""
from __future__ import annotations

import functools
import numbers
import warnings

import numpy

from .. import backend, creation as C, sampling as M
from ..dtypes import strided
from ..grad_mode import state
from ..tensor import Size, Tensor, tensor
from . import decompositions as D, elementwise as E, inplace as I, linalg as L, rearrange as A, reduce as R
from . import composites as O, searching as H, selection as X, shape as S, special as P, statistics as Q
from . import counting as K, integers as N, log_cumsum as LC, special_functions as G, writes as W
from .joining import tensor_split
from .registry import apply_one


_FLOAT16, _FLOAT32, _FLOAT64, _INT32, _INT64, _BOOL = map(numpy.dtype, ("float16", "float32", "float64", "int32",
                                                                       "int64", "bool"))


def _reflected(fn):
    return lambda self, other: fn(other, self)


def _T(a):
    """Every dim reversed: ``permute(n-1, ..., 0)``, with dims that need no checking (a new view also for a 0-d
    or 1-d tensor, as PyTorch's)."""
    return apply_one(S.PERMUTE, a, {"dims": tuple(range(a.ndim - 1, -1, -1))})


def _mT(a, name="mT"):
    if a.ndim == 0:   # (a number is its own transpose: PyTorch's 0-d .mT, with its warning)
        warnings.warn(f"Tensor.{name} is deprecated on 0-D tensors. This function is the identity in these cases."
                      if name == "mT" else f"Tensor.{name} is deprecated on 0-D tensors. Consider using x.conj().",
                      UserWarning, stacklevel=3)
        return a
    if a.ndim < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices, got a "
                           f"{a.ndim}-D tensor of shape {tuple(a.shape)}")
    return apply_one(S.TRANSPOSE, a, {"dim0": a.ndim - 2, "dim1": a.ndim - 1})   # (transpose(a, -2, -1))


_DTYPE_NAMES = {"bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"}


def to_arguments(args, kwargs, where="to"):
    """PyTorch's ways of saying where a ``to`` goes: ``to(device)``, ``to(dtype)``, ``to(device, dtype)``,
    ``to(tensor)`` (its device and dtype), an int for ``cuda:<int>``, the keywords ``device=``, ``dtype=``,
    ``copy=``, and ``non_blocking=`` and ``memory_format=`` (accepted, without effect here). Returns
    ``(device, dtype, copy)``, None where not given."""
    kwargs = dict(kwargs)
    device, dtype, copy = kwargs.pop("device", None), kwargs.pop("dtype", None), kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"{where}() got an unexpected keyword argument '{next(iter(kwargs))}'")
    rest = list(args)
    first = rest[0] if rest else None
    if isinstance(first, str) and first in _DTYPE_NAMES:   # (a dtype by name: to("float64"))
        first = numpy.dtype(first)
        rest[0] = first
    if isinstance(first, Tensor):
        rest.pop(0)
        device, dtype = first.device, first.dtype
    elif isinstance(first, str) or (isinstance(first, numbers.Integral) and not isinstance(first, bool)):
        device = rest.pop(0)
        device = f"cuda:{device}" if isinstance(device, numbers.Integral) else device
        if rest and not isinstance(rest[0], bool):
            dtype = rest.pop(0)
    elif rest and not isinstance(first, bool):
        dtype = rest.pop(0)
    if len(rest) > 2 or not all(isinstance(flag, bool) for flag in rest):
        raise TypeError(f"{where}() received an invalid combination of arguments {args!r}: expected (device, "
                        f"dtype), (dtype), or (tensor), then non_blocking and copy as bools")
    if len(rest) == 2:
        copy = rest[1]
    return device, dtype, copy


def _to(self, *args, **kwargs):
    """``to(device)`` moves the data; ``to(dtype)`` casts (differentiable); both at once, as PyTorch takes them
    (:func:`to_arguments`). Returns ``self`` when nothing changes, unless ``copy=True``."""
    if not kwargs and len(args) == 1:   # (the usual x.to(device) or x.to(dtype), answered at once)
        target = args[0]
        if target is self.device or target is self.dtype:
            return self
        if isinstance(target, numpy.dtype):
            return E.cast(self, target)
    device, dtype, copy = to_arguments(args, kwargs)
    out = self
    if device is not None:
        device = backend.normalize_device(device)
        if device != out.device:
            out = E.to_device(out, device)
    if dtype is not None:
        out = E.cast(out, numpy.dtype(dtype))
    return E.clone(out) if copy and out is self else out


def _rtruediv(self, other):
    """``other / self`` for a number or array ``other``: ``reciprocal(self) * other``, as PyTorch computes
    it (the graph keeps ``1/self``, not ``self``, so changing ``self`` in place later is fine)."""
    return E.mul(E.reciprocal(self), other)


def _equality(compare):
    """``==`` / ``!=`` against a Tensor, a number or an array; against anything else (None, a string, a
    list) Python's own answer (by identity: ``t == None`` is False), as PyTorch gives."""
    def fn(self, other):
        if isinstance(other, (Tensor, numbers.Number)) or hasattr(other, "dtype"):
            return compare(self, other)
        return NotImplemented
    fn.__name__ = compare.__name__
    return fn


def _check_source_overlap(t, index, value, given_0d):
    """``t[index] = v`` refuses a ``v`` that partly overlaps ``t[index]`` (a basic index), judged as PyTorch's
    copy does: a ``v`` of the target's shape as it is, a 0-d one never (it is read before anything is
    written), any other once broadcast to the target's shape (its repeated elements are not judged; without
    repeats, any overlap is partial: ``t[0] = t`` for a 1x1 ``t``)."""
    if not isinstance(value, Tensor) or given_0d:
        return
    try:
        target = t._data[index]
        broadcast = value.shape != target.shape
        source = backend.broadcast_to(value._data, target.shape) if broadcast else value._data
    except (IndexError, ValueError):
        return   # (the assignment raises its own, clearer error)
    # (broadcast, a source is never the target's own elements in its own layout: a new dim has step 0)
    overlaps = backend.overlap if broadcast else backend.partial_overlap
    if value.device == t.device and overlaps(target, source):
        raise I.overlap_error("__setitem__", value.shape, target.shape)


def _check_index_put_value(t, index, value):
    """``t[index] = v`` with array indices takes a ``v`` of ``t``'s dtype that shares no memory with ``t``, as
    PyTorch's ``index_put_`` does (its writes could change ``v`` while it is read). As in PyTorch, a bool mask
    as the only array index (beside slices, ints, ``...``) and a ``v`` of one element (read once, as a fill value)
    is let through either way."""
    if not isinstance(value, Tensor):
        return
    arrays = [i for i in (index if isinstance(index, tuple) else (index,)) if getattr(i, "dtype", None) is not None]
    if len(arrays) == 1 and arrays[0].dtype == bool and value.numel() == 1:
        return
    if value.dtype != t.dtype:
        raise RuntimeError(f"t[index] = v with an integer or boolean array index needs v of t's dtype (as PyTorch's "
                           f"index_put_), got {t.dtype.name} for t and {value.dtype.name} for v: convert v first "
                           f"(v.to(t.dtype))")
    if value.device == t.device and backend.overlap(t._data, value._data):
        raise RuntimeError(f"t[index] = v with an integer or boolean array index: v (shape {tuple(value.shape)}) "
                           f"shares memory with t (shape {tuple(t.shape)}), so some of its elements could be "
                           f"written before they are read. PyTorch refuses this too: pass v.clone().")


def _takes_all(t, basic) -> bool:
    """Whether ``t[basic]`` (a basic index) is all of ``t``, element for element (``t[:]``, ``t[...]``,
    ``t[0:n]``)."""
    try:
        part = _target(t._data, basic)   # (a view, also of one element: NumPy's t[()] is a number)
    except (IndexError, TypeError):
        return False   # (getitem below raises its own, clearer error)
    return backend.same_elements(part, t._data)


def _target(data, basic):
    """The elements ``t[basic] = v`` writes, as a view (NumPy gives a scalar for one element; a trailing ``...``
    makes it a 0-d view of the same memory)."""
    index = basic if isinstance(basic, tuple) else (basic,)
    if not any(i is Ellipsis for i in index):
        index = index + (Ellipsis,)
    return data[index]


def _setitem(self, index, value):
    """``t[index] = value``: while recording, an in-place copy into the view ``t[index]`` (so ``t``'s
    history goes on through copy_slices, as in PyTorch); with integer/bool array indices (no view) an
    in-place ``index_put``, as PyTorch's ``index_put_``."""
    basic, advanced = S._canonical_index(index, self.device)
    if advanced:
        basic, rest = S.torch_order(basic, self.ndim)
        if rest is not None:   # (PyTorch's order: t[1, :, idx] = v writes t[1][:, idx])
            return _setitem(S.getitem(self, basic, copy=False), rest, value)
    value = E.fits(value, self.dtype, "__setitem__", E.WIDE_FLOATS)
    given_0d = isinstance(value, Tensor) and value.ndim == 0
    if isinstance(value, Tensor) and value.shape != self._data[basic].shape:
        # as PyTorch's copy into the target: a value of another shape loses its leading size-1 dims first
        size = value.shape
        while size and size[0] == 1:
            size = size[1:]
        if size != value.shape:
            value = value.reshape(size)
    if advanced:
        _check_index_put_value(self, basic, value)
    else:
        _check_source_overlap(self, basic, value, given_0d)
    if state.grad_enabled and self._data.dtype.kind in "fc" and (   # (an integer tensor takes no gradient)
            self._requires_grad or (isinstance(value, Tensor) and value._requires_grad)):
        if not isinstance(value, (Tensor, bool, int, float)):   # a list or an array
            value = Tensor._make(backend.asarray(value, self.device, self.dtype), False, None, self.device)
        if advanced:   # integer/bool array indices: no view to write through; PyTorch's index_put_, in place
            I.inplace(self, "__setitem__", lambda old, v: S.put(old, basic, v), value)
        elif _takes_all(self, basic):   # t[:] = v, t[...] = v: PyTorch copies into t itself
            I._fill(self, value, "__setitem__")
        else:
            I._fill(S.getitem(self, index), value, "__setitem__")
        return
    I._check(self, "__setitem__")   # (a view made under no_grad of a tensor that requires grad: refused)
    target = _target(self._data, basic)
    if not backend.writable(target):   # (the target only: a row of an expanded tensor may repeat none)
        raise I.read_only_error("__setitem__", target.shape)
    self._data[basic] = value._data if isinstance(value, Tensor) else value
    self._vc[0] += 1


def _new(fill):
    """``t.new_zeros(size)`` and kin: a new tensor of ``size`` with ``t``'s dtype and device unless given."""
    def new(self, *size, dtype=None, device=None, requires_grad=False):
        shape = C._sizes(size, "new_zeros" if fill == 0 else "new_ones")
        return C.full(shape, fill, dtype=self.dtype if dtype is None else dtype,
                      device=self.device if device is None else device, requires_grad=requires_grad)
    return new


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    return C.full(C._sizes((size,)), fill_value, dtype=self.dtype if dtype is None else dtype,
                  device=self.device if device is None else device, requires_grad=requires_grad)


def _new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    """A copy of ``data`` as a new leaf, with ``t``'s dtype and device unless given (PyTorch's ``new_tensor``)."""
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
                      "(PyTorch's advice too), rather than tensor.new_tensor(sourceTensor)", UserWarning, stacklevel=2)
    values = backend.to_host(data.detach()._data) if isinstance(data, Tensor) else data
    return tensor(values, dtype=self.dtype if dtype is None else dtype,
                  device=self.device if device is None else device, requires_grad=requires_grad)


def _elementwise_in_place(a, name, callable, other=None):
    """``a.apply_(f)``: ``a[i] = f(a[i])``; ``a.map_(b, f)``: ``a[i] = f(a[i], b[i])`` (b broadcast to a), each call a
    Python number in and out. On a CPU tensor that requires no grad, as PyTorch's (nothing records a Python
    function)."""
    if a.requires_grad:
        raise RuntimeError(f"Can't call {name}() on Variable that requires grad. Use var.detach().{name}() instead.")
    if a.device != "cpu":
        raise TypeError(f"{name}() is only implemented on CPU tensors (this one is on {a.device}): move it with .cpu()")
    if not backend.writable(a._data):
        raise I.read_only_error(name, a.shape)
    values = a._data.reshape(-1).tolist()
    if other is None:
        results = [callable(v) for v in values]
    else:
        pairs = numpy.broadcast_to(backend.to_host(other._data), a.shape).reshape(-1).tolist()
        results = [callable(v, w) for v, w in zip(values, pairs)]
    a._data[...] = numpy.asarray(results, dtype=a.dtype).reshape(a.shape)
    a._vc[0] += 1
    return a


def _legacy_new(self, *args, **kwargs):
    """``t.new(2, 3)``: a new tensor of that size (zeros here) with ``t``'s dtype and device; ``t.new(data)`` a
    tensor of ``data`` in them; ``t.new()`` an empty one. (PyTorch's legacy constructor.)"""
    if len(args) == 1 and not isinstance(args[0], (int, Size)):   # (a Size is a shape, a tuple or list data)
        return _new_tensor(self, args[0], **kwargs)
    if len(args) == 1 and isinstance(args[0], Size):
        args = tuple(args[0])
    return _new(0)(self, *args, **kwargs) if args else _new(0)(self, 0, **kwargs)


def _positive(a):
    if a.dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported (as in PyTorch): convert the mask "
                           "first, e.g. mask.to(autogradlab.int64)")
    return a


def _stride(self, dim=None):
    """The step in elements between neighbours along each dim (PyTorch's ``stride()``), or along ``dim``."""
    steps = tuple(s // self.dtype.itemsize for s in self._data.strides)
    if self.numel() == 0:   # (NumPy gives an empty array zero steps; PyTorch the contiguous ones)
        steps = tuple(int(numpy.prod(self.shape[k + 1:])) for k in range(self.ndim))
    return steps if dim is None else steps[dim]


_TYPE_NAMES = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor", "int64": "LongTensor",
               "int32": "IntTensor", "int16": "ShortTensor", "int8": "CharTensor", "uint8": "ByteTensor",
               "bool": "BoolTensor"}


def _type(self, dtype=None, non_blocking=False):
    """No argument: the type's name, PyTorch's way ("autogradlab.FloatTensor"); with a dtype, or such a name
    (``"torch.DoubleTensor"`` too), the tensor cast to it."""
    if dtype is None:
        where = "" if self.device == "cpu" else "cuda."
        name = _TYPE_NAMES.get(self.dtype.name, f"{self.dtype.name.capitalize()}Tensor")
        return f"autogradlab.{where}{name}"
    if isinstance(getattr(dtype, "dtype", None), numpy.dtype) and isinstance(dtype, type):   # (FloatTensor)
        dtype = dtype.dtype
    if isinstance(dtype, str) and dtype.endswith("Tensor"):
        names = {v: k for k, v in _TYPE_NAMES.items()}
        kind = dtype.rsplit(".", 1)[-1]
        if kind not in names:
            raise ValueError(f"invalid type: {dtype!r}; use a dtype or one of {sorted(names)}")
        dtype = names[kind]
    return E.cast(self, numpy.dtype(dtype))


def _get_device(self) -> int:
    """-1 for the CPU (PyTorch's answer), else the GPU's index."""
    return -1 if self.device == "cpu" else int(self.device.partition(":")[2] or 0)


METHODS = {
    # arithmetic operators (Python numbers allowed on either side)
    "__add__": E.add, "__radd__": _reflected(E.add), "__sub__": E.sub, "__rsub__": _reflected(E.sub),
    "__mul__": E.mul, "__rmul__": _reflected(E.mul), "__truediv__": E.div,
    "__rtruediv__": _rtruediv, "__pow__": E.pow, "__rpow__": _reflected(E.pow),
    "__floordiv__": E.floor_divide, "__rfloordiv__": _reflected(E.floor_divide),
    "__mod__": E.remainder, "__rmod__": _reflected(E.remainder),
    "__matmul__": L.matmul, "__rmatmul__": _reflected(L.matmul), "__neg__": E.neg, "__abs__": E.abs,
    "__lt__": E.lt, "__le__": E.le, "__gt__": E.gt, "__ge__": E.ge,
    "__eq__": _equality(E.eq), "__ne__": _equality(E.ne),
    "__invert__": E.bitwise_not, "__and__": E.bitwise_and, "__rand__": _reflected(E.bitwise_and),
    "__or__": E.bitwise_or, "__ror__": _reflected(E.bitwise_or), "__xor__": E.bitwise_xor,
    "__rxor__": _reflected(E.bitwise_xor), "logical_not": E.logical_not, "bitwise_not": E.bitwise_not,
    "__getitem__": S.getitem, "__setitem__": _setitem,
    # in-place
    "__iadd__": I.add_, "__isub__": I.sub_, "__imul__": I.mul_, "__itruediv__": I.div_, "__ipow__": I.pow_,
    "__ifloordiv__": I.floor_divide_, "__imod__": I.remainder_, "floor_divide_": I.floor_divide_,
    "remainder_": I.remainder_,
    "add_": I.add_, "sub_": I.sub_, "mul_": I.mul_, "pow_": I.pow_,
    "clamp_": I.clamp_, "zero_": I.zero_, "fill_": I.fill_, "copy_": I.copy_,
    "masked_fill_": I.masked_fill_,
    # named methods
    "add": E.add, "sub": E.sub, "mul": E.mul, "div": E.div, "pow": E.pow, "neg": E.neg,
    "floor_divide": E.floor_divide, "remainder": E.remainder,
    "abs": E.abs, "exp": E.exp, "log": E.log, "sqrt": E.sqrt, "sin": E.sin, "cos": E.cos,
    "tanh": E.tanh, "sigmoid": E.sigmoid, "reciprocal": E.reciprocal, "relu": E.relu, "sign": E.sign, "clamp": E.clamp,
    "clip": E.clamp, "maximum": E.maximum, "minimum": E.minimum, "clone": E.clone, "masked_fill": E.masked_fill,
    "lt": E.lt, "le": E.le, "gt": E.gt, "ge": E.ge, "eq": E.eq, "ne": E.ne,
    "sum": R.sum, "mean": R.mean, "max": R.max, "min": R.min, "amax": R.amax, "amin": R.amin,
    "var": R.var, "std": R.std, "logsumexp": R.logsumexp, "softmax": R.softmax, "cumsum": R.cumsum, "norm": R.norm,
    "log_softmax": R.log_softmax, "logcumsumexp": LC.logcumsumexp,
    "reshape": S.reshape, "view": S.view, "flatten": S.flatten, "transpose": S.transpose,
    "permute": S.permute, "expand": S.expand_new, "broadcast_to": S.broadcast_to_new,
    "sum_to_size": S.sum_to_size, "squeeze": S.squeeze_new, "unsqueeze": S.unsqueeze,
    "split": S.split, "chunk": S.chunk, "unbind": S.unbind,
    "matmul": L.matmul, "dot": L.dot, "outer": L.outer,
    "expand_as": lambda a, other: S.expand_new(a, other.shape),
    "reshape_as": lambda a, other: S.reshape(a, other.shape),
    "contiguous": lambda a: a if backend.is_contiguous(a._data) else E.clone(a),
    "log1p": E.log1p, "expm1": E.expm1, "square": E.square, "log2": E.log2, "log10": E.log10, "exp2": E.exp2,
    "rsqrt": E.rsqrt, "tan": E.tan, "asin": E.asin, "acos": E.acos, "atan": E.atan, "sinh": E.sinh, "cosh": E.cosh,
    "floor": E.floor, "ceil": E.ceil, "round": E.round, "trunc": E.trunc,
    "isnan": E.isnan, "isinf": E.isinf, "isfinite": E.isfinite,
    "isclose": E.isclose, "allclose": E.allclose, "equal": E.equal,
    "argmax": R.argmax, "argmin": R.argmin, "all": R.all, "any": R.any, "prod": R.prod,
    "erf": E.erf, "tril": S.tril, "triu": S.triu, "flip": S.flip_method,
    "sort": S.sort, "argsort": S.argsort, "topk": S.topk,
    "t": S.t, "mm": L.mm, "mv": L.mv, "bmm": L.bmm, "gather": S.gather, "addmm": L.addmm,
    "repeat": A.repeat, "tile": A._tile_method, "repeat_interleave": A._repeat_interleave_method, "roll": A.roll,
    "narrow": A.narrow, "movedim": A.movedim, "moveaxis": A.movedim, "swapaxes": A.swapaxes,
    "swapdims": A.swapdims, "index_select": A.index_select, "diagonal": A.diagonal, "diag": A.diag,
    "diff": A.diff, "atan2": E.atan2, "arctan2": E.atan2, "lerp": E.lerp,
    "scatter": X.scatter, "scatter_add": X.scatter_add, "scatter_reduce": X.scatter_reduce, "index_add": X.index_add,
    "take_along_dim": X.take_along_dim,
    "scatter_": X.scatter_, "scatter_add_": X.scatter_add_, "scatter_reduce_": X.scatter_reduce_,
    "index_add_": X.index_add_,
    "masked_select": X.masked_select, "nonzero": X.nonzero, "argwhere": X.argwhere, "unique": X.unique,
    "bincount": X.bincount, "count_nonzero": X.count_nonzero,
    "cumprod": R.cumprod, "hypot": E.hypot, "logaddexp": E.logaddexp, "fmod": E.fmod, "cross": L.cross,
    "kron": L.kron, "inverse": D.inv, "det": D.det, "logdet": D.logdet, "slogdet": D.slogdet,
    "cholesky": D.cholesky, "matrix_power": D.matrix_power, "matrix_exp": D.matrix_exp, "pinverse": D.pinverse,
    "median": Q.median, "nanmedian": Q.nanmedian, "kthvalue": Q.kthvalue, "quantile": Q.quantile,
    "nanquantile": Q.nanquantile, "nansum": Q.nansum, "nanmean": Q.nanmean, "cov": Q.cov, "corrcoef": Q.corrcoef,
    "tensor_split": tensor_split, "rot90": A.rot90, "take": A.take, "unfold": A.unfold, "diag_embed": A.diag_embed,
    "inner": L.inner, "xlogy": P.xlogy, "nan_to_num": P.nan_to_num, "logit": P.logit, "sinc": P.sinc,
    "frac": P.frac, "deg2rad": P.deg2rad, "rad2deg": P.rad2deg, "sgn": P.sgn, "heaviside": P.heaviside,
    "aminmax": Q.aminmax, "ravel": A.ravel, "unflatten": A.unflatten, "select": A.select, "msort": A.msort,
    "histc": H.histc, "histogram": H.histogram, "signbit": H.signbit,
    "igamma": G.gammainc, "igammac": G.gammaincc,
    "lgamma": G.lgamma, "digamma": G.digamma, "polygamma": lambda a, n: G.polygamma(n, a), "mvlgamma": G.mvlgamma,
    "erfc": G.erfc, "erfinv": G.erfinv, "i0": G.i0,
    # short compositions and PyTorch's other spellings (ops.composites)
    "add": O.add, "sub": O.sub, "div": O.div, "addcmul": O.addcmul, "addcdiv": O.addcdiv, "addmv": O.addmv,
    "addr": O.addr, "baddbmm": O.baddbmm, "addbmm": O.addbmm, "fmax": O.fmax, "fmin": O.fmin,
    "cummax": O.cummax, "cummin": O.cummin, "logical_and": O.logical_and, "logical_or": O.logical_or,
    "logical_xor": O.logical_xor, "float_power": O.float_power, "logaddexp2": O.logaddexp2,
    "fliplr": O.fliplr, "flipud": O.flipud, "hsplit": O.hsplit, "vsplit": O.vsplit, "dsplit": O.dsplit,
    "split_with_sizes": O.split_with_sizes, "index_fill": O.index_fill, "index_copy": O.index_copy,
    "masked_scatter": O.masked_scatter,
    "isposinf": O.isposinf, "isneginf": O.isneginf, "isreal": O.isreal, "vdot": O.vdot,
    "fill_diagonal_": O.fill_diagonal_, "asinh": E.asinh, "acosh": E.acosh, "atanh": E.atanh,
    "absolute": E.abs, "arccos": E.acos, "arcsin": E.asin, "arctan": E.atan, "arcsinh": E.asinh,
    "arccosh": E.acosh, "arctanh": E.atanh, "multiply": E.mul, "subtract": O.sub, "divide": O.div,
    "true_divide": E.div, "negative": E.neg, "greater": E.gt, "greater_equal": E.ge, "less": E.lt,
    "less_equal": E.le, "not_equal": E.ne, "fix": E.trunc, "positive": lambda a: _positive(a),
    "view_as": lambda a, other: S.view(a, other.shape), "ndimension": lambda a: a.ndim,
    "is_complex": lambda a: a.dtype.kind == "c", "conj": E.conj, "conj_physical": E.conj,
    "resolve_conj": lambda a: a, "resolve_neg": lambda a: a, "is_conj": lambda a: False, "is_neg": lambda a: False,
    "angle": E.angle, "is_signed": lambda a: a.dtype.kind in "if",
    "is_same_size": lambda a, other: tuple(a.shape) == tuple(other.shape),
    "is_contiguous": lambda a, memory_format=None: backend.is_contiguous(a._data), "stride": _stride,
    "where": lambda a, condition, other: E.where(condition, a, other),
    # bits and integers (ops.integers), counting (ops.counting), out-of-place writes (ops.writes)
    "bitwise_and": E.bitwise_and, "bitwise_or": E.bitwise_or, "bitwise_xor": E.bitwise_xor,
    "bitwise_left_shift": N.bitwise_left_shift, "bitwise_right_shift": N.bitwise_right_shift,
    "__lshift__": N.bitwise_left_shift, "__rshift__": N.bitwise_right_shift,
    "__rlshift__": _reflected(N.bitwise_left_shift), "__rrshift__": _reflected(N.bitwise_right_shift),
    "gcd": N.gcd, "lcm": N.lcm, "nextafter": N.nextafter, "frexp": N.frexp,
    "copysign": O.copysign, "ldexp": O.ldexp, "diagflat": O.diagflat,
    "mode": K.mode, "unique_consecutive": K.unique_consecutive,
    "index_put": W.index_put, "put": W.put, "select_scatter": W.select_scatter, "slice_scatter": W.slice_scatter,
    "diagonal_scatter": W.diagonal_scatter, "is_inference": lambda a: False, "index_reduce": W.index_reduce,
    "apply_": lambda a, callable: _elementwise_in_place(a, "apply_", callable),
    "map_": lambda a, other, callable: _elementwise_in_place(a, "map_", callable, other), "new": _legacy_new,
    "is_nonzero": lambda a: _is_nonzero(a),
    # random draws (the in-place fills write as copy_ does)
    "uniform_": M.uniform_, "normal_": M.normal_, "bernoulli_": M.bernoulli_, "random_": M.random_,
    "exponential_": M.exponential_, "bernoulli": M.bernoulli, "multinomial": M.multinomial,
    # new tensors like this one, and questions about it
    "new_zeros": _new(0), "new_ones": _new(1), "new_empty": _new(0), "new_full": _new_full,
    "new_tensor": _new_tensor, "is_floating_point": lambda a: a.dtype.kind == "f",
    "nelement": lambda a: a.numel(), "element_size": lambda a: a.dtype.itemsize, "get_device": _get_device,
    "clamp_min": lambda a, min: E.clamp(a, min=min), "clamp_max": lambda a, max: E.clamp(a, max=max),
    # dtype and device
    "float": lambda a: E.cast(a, _FLOAT32), "double": lambda a: E.cast(a, _FLOAT64),
    "half": lambda a: E.cast(a, _FLOAT16), "long": lambda a: E.cast(a, _INT64),
    "int": lambda a: E.cast(a, _INT32), "bool": lambda a: E.cast(a, _BOOL),
    "byte": lambda a: E.cast(a, numpy.dtype("uint8")), "char": lambda a: E.cast(a, numpy.dtype("int8")),
    "short": lambda a: E.cast(a, numpy.dtype("int16")), "type": _type,
    "to": _to, "cpu": lambda a: _to(a, "cpu"),
    "cuda": lambda a, device=None: _to(a, "cuda" if device is None else f"cuda:{device}"),
    "type_as": lambda a, other: _to(a, other.dtype),
}


def _float_power_(a, exponent):
    """float_power in place: only into a float64 tensor (its result is float64), as PyTorch."""
    if a.dtype != _FLOAT64:
        raise RuntimeError(f"the base given to float_power_ has dtype {a.dtype.name} but the operation's result "
                           f"requires dtype float64")
    return O.float_power(a, exponent)


def _kept_dtype(fn):
    """``fn`` (a comparison or logical op, giving bools) with its result in the first operand's dtype."""
    def kept(a, *args, **kwargs):
        return E.to_dtype(fn(a, *args, **kwargs), a.dtype)
    return kept


def _is_nonzero(a):
    if a.numel() != 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return a.item() != 0   # (NaN counts as nonzero, as in Python)


#: in-place forms made from the out-of-place ops: ``t.exp_()`` writes ``exp(t)`` into ``t``
IN_PLACE = {
    "exp_": E.exp, "log_": E.log, "log2_": E.log2, "log10_": E.log10, "log1p_": E.log1p, "expm1_": E.expm1,
    "exp2_": E.exp2, "sqrt_": E.sqrt, "rsqrt_": E.rsqrt, "abs_": E.abs, "absolute_": E.abs, "neg_": E.neg,
    "negative_": E.neg, "sigmoid_": E.sigmoid, "tanh_": E.tanh, "relu_": E.relu, "floor_": E.floor,
    "ceil_": E.ceil, "round_": E.round, "trunc_": E.trunc, "fix_": E.trunc, "frac_": P.frac, "sin_": E.sin,
    "cos_": E.cos, "tan_": E.tan, "asin_": E.asin, "acos_": E.acos, "atan_": E.atan, "arcsin_": E.asin,
    "arccos_": E.acos, "arctan_": E.atan, "sinh_": E.sinh, "cosh_": E.cosh, "asinh_": E.asinh,
    "acosh_": E.acosh, "atanh_": E.atanh, "arcsinh_": E.asinh, "arccosh_": E.acosh, "arctanh_": E.atanh, "reciprocal_": E.reciprocal, "square_": E.square, "sign_": E.sign,
    "sgn_": P.sgn, "erf_": E.erf, "clamp_min_": lambda a, min: E.clamp(a, min=min),
    "clamp_max_": lambda a, max: E.clamp(a, max=max), "clip_": E.clamp, "lerp_": E.lerp, "tril_": S.tril,
    "triu_": S.triu, "addcmul_": O.addcmul, "addcdiv_": O.addcdiv, "atan2_": E.atan2, "arctan2_": E.atan2,
    "hypot_": E.hypot, "fmod_": E.fmod, "deg2rad_": P.deg2rad, "rad2deg_": P.rad2deg, "xlogy_": P.xlogy,
    "logit_": P.logit, "sinc_": P.sinc, "nan_to_num_": P.nan_to_num, "multiply_": E.mul, "subtract_": O.sub,
    "divide_": O.div, "div_": O.div, "true_divide_": E.div, "index_fill_": O.index_fill,
    "index_copy_": O.index_copy, "masked_scatter_": O.masked_scatter,
    "addmm_": L.addmm, "addmv_": O.addmv, "addr_": O.addr, "baddbmm_": O.baddbmm, "addbmm_": O.addbmm,
    "igamma_": G.gammainc, "igammac_": G.gammaincc,
    "lgamma_": G.lgamma, "digamma_": G.digamma, "polygamma_": lambda a, n: G.polygamma(n, a),
    "mvlgamma_": G.mvlgamma, "erfc_": G.erfc, "erfinv_": G.erfinv, "i0_": G.i0,
    "bitwise_and_": E.bitwise_and, "bitwise_or_": E.bitwise_or, "bitwise_xor_": E.bitwise_xor,
    "__iand__": E.bitwise_and, "__ior__": E.bitwise_or, "__ixor__": E.bitwise_xor, "bitwise_not_": E.bitwise_not,
    "bitwise_left_shift_": N.bitwise_left_shift, "bitwise_right_shift_": N.bitwise_right_shift,
    "__ilshift__": N.bitwise_left_shift, "__irshift__": N.bitwise_right_shift,
    "gcd_": N.gcd, "lcm_": N.lcm, "nextafter_": N.nextafter, "copysign_": O.copysign, "ldexp_": O.ldexp,
    "heaviside_": P.heaviside, "cumsum_": R.cumsum, "cumprod_": R.cumprod,
    "index_put_": W.index_put, "put_": W.put, "index_reduce_": W.index_reduce, "float_power_": _float_power_,
    # comparisons and logical ops in place: the result in this tensor's dtype (1 or 0), as in PyTorch
    **{f"{name}_": _kept_dtype(fn) for name, fn in (
        ("eq", E.eq), ("ne", E.ne), ("lt", E.lt), ("le", E.le), ("gt", E.gt), ("ge", E.ge), ("greater", E.gt),
        ("greater_equal", E.ge), ("less", E.lt), ("less_equal", E.le), ("not_equal", E.ne),
        ("logical_and", O.logical_and), ("logical_or", O.logical_or), ("logical_xor", O.logical_xor),
        ("logical_not", E.logical_not))},
}


#: the functions and methods that take NumPy's spellings too, ``axis=`` for ``dim=`` and ``keepdims=`` for
#: ``keepdim=`` (as PyTorch's do: d2l writes ``X.sum(axis=0, keepdims=True)``)
NUMPY_SPELLINGS = ("sum", "mean", "prod", "amax", "amin", "max", "min", "argmax", "argmin", "std", "var", "all",
                   "any", "logsumexp", "cumsum", "cumprod", "cummax", "cummin", "median", "nanmedian", "nansum",
                   "nanmean", "count_nonzero", "softmax", "log_softmax", "cat", "concat", "concatenate", "stack",
                   "norm", "squeeze", "unsqueeze", "sort", "argsort", "topk", "chunk", "unbind", "index_select",
                   "gather", "var_mean", "std_mean", "aminmax", "diff", "quantile", "nanquantile", "kthvalue",
                   "narrow", "split", "select", "take_along_dim", "repeat_interleave")


def numpy_spellings(fn, module="autogradlab", qualname=None):
    """``fn`` taking ``axis=`` as ``dim=`` and ``keepdims=`` as ``keepdim=``; found by pickle as
    ``module.qualname`` (the top-level function, or the method ``Tensor.<name>``)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if kwargs:
            for numpy_name, name in (("axis", "dim"), ("keepdims", "keepdim")):
                if numpy_name in kwargs:
                    if name in kwargs:
                        raise TypeError(f"{fn.__name__}() got both {name}= and its NumPy spelling {numpy_name}=")
                    kwargs[name] = kwargs.pop(numpy_name)
        return fn(*args, **kwargs)
    wrapper.__module__, wrapper.__qualname__ = module, qualname or fn.__name__
    return wrapper


#: in-place changes of shape (the same memory): ``t.unsqueeze_(0)``
RESHAPE_IN_PLACE = {"unsqueeze_": S.unsqueeze, "squeeze_": S.squeeze, "t_": S.t, "transpose_": S.transpose,
                    "swapdims_": S.transpose,
                    "swapaxes_": lambda a, axis0, axis1: S.transpose(a, axis0, axis1)}


def _reshaping(name, view):
    def method(self, *args, **kwargs):
        return I.reshape_in_place(self, name, lambda t: view(t, *args, **kwargs))
    method.__name__ = name
    method.__doc__ = f"In place: this tensor takes the shape of ``{name[:-1]}(...)`` (the same memory)."
    return method


def attach():
    for name, fn in METHODS.items():
        setattr(Tensor, name, numpy_spellings(fn, "autogradlab.tensor", f"Tensor.{name}")
                if name in NUMPY_SPELLINGS else fn)
    for name, fn in RESHAPE_IN_PLACE.items():
        setattr(Tensor, name, _reshaping(name, fn))
    for name, fn in IN_PLACE.items():
        setattr(Tensor, name, I.in_place(name, fn))
    Tensor.T = property(_T)
    Tensor.is_cuda = property(lambda a: a.device != "cpu")
    Tensor.is_cpu = property(lambda a: a.device == "cpu")
    Tensor.layout = property(lambda a: strided)   # (every tensor here is dense, none sparse, quantized or nested)
    for name in ("is_sparse", "is_sparse_csr", "is_quantized", "is_meta", "is_mkldnn", "is_nested"):
        setattr(Tensor, name, property(lambda a: False))
    Tensor.itemsize = property(lambda a: a.dtype.itemsize)
    Tensor.nbytes = property(lambda a: a.numel() * a.dtype.itemsize)
    Tensor.mT = property(_mT)
    Tensor.mH = property(lambda a: E.conj(_mT(a, "mH")))   # the conjugate transpose (for real numbers, mT)
    Tensor.H = property(lambda a: E.conj(_T(a)) if a.ndim == 2 else _T(a))
    Tensor.real = property(E.real)
    Tensor.imag = property(E.imag)
