"""Tensor: an array plus what autograd needs to know about it.

``_data`` is a NumPy or CuPy array, the storage the engine and the VJPs work on;
``data`` is PyTorch's: a tensor over the same memory, cut from the graph. ``grad_fn`` is the node that made the
tensor (``None`` for leaves); ``requires_grad`` says whether gradients flow to
it; ``grad`` is where ``backward`` accumulates them for leaves. Every tensor
gets a creation number (``_id``) for stable naming, and a version counter
(``_vc``, shared with views) that in-place ops bump so a node can tell when a
tensor it saved was changed behind its back. A view also remembers its base and
how to take it again (``_view``), so that after an in-place change to the base
its history can be rebuilt from the base's new history (see ``ops.registry``).

This module knows nothing above it (no import of the graph, the ops or the
engine). The layers above attach their methods: :mod:`autogradlab.ops.methods`
the ops as methods and operators (``a + b``, ``a.sum()``, ``a.to(...)``),
:mod:`autogradlab.graph` the autograd hooks (``register_hook``,
``retain_grad``), :mod:`autogradlab.engine` ``backward``.
"""
from __future__ import annotations

import itertools
import math
import operator
import sys
import warnings

import numpy

from . import backend, printing
from .grad_mode import is_grad_enabled

__all__ = ["Tensor", "tensor"]

_tensor_counter = itertools.count()

FLOAT_DTYPES = (numpy.dtype("float16"), numpy.dtype("float32"), numpy.dtype("float64"))
COMPLEX_DTYPES = (numpy.dtype("complex64"), numpy.dtype("complex128"))
_DEFAULT_FLOAT = [numpy.dtype("float32")]   # (one slot, set by dtypes.set_default_dtype)


def default_float() -> numpy.dtype:
    """The dtype of a float made without a dtype (``tensor([1.5])``, ``zeros(3)``, ``int_tensor / 2``): PyTorch's
    default dtype, float32 unless ``set_default_dtype`` changed it."""
    return _DEFAULT_FLOAT[0]


def complex_of(dtype) -> numpy.dtype:
    """The complex dtype whose parts are ``dtype`` (float64 -> complex128); for float16, whose complex twin NumPy
    lacks, and for integers and bools: complex64, the default complex dtype's width (PyTorch's complex32 aside)."""
    dtype = numpy.dtype(dtype)
    return numpy.dtype("complex128") if dtype.kind in "fc" and dtype.itemsize in (8, 16) else numpy.dtype("complex64")


def default_complex() -> numpy.dtype:
    """The dtype of a Python complex number made into a tensor: complex64, or complex128 when the default
    float dtype is float64 (as PyTorch)."""
    return complex_of(_DEFAULT_FLOAT[0])


def _check_float(dtype, what="only Tensors of floating point and complex dtype can require gradients"):
    if numpy.dtype(dtype) not in FLOAT_DTYPES and numpy.dtype(dtype) not in COMPLEX_DTYPES:
        raise RuntimeError(f"{what}, but this tensor has dtype {numpy.dtype(dtype).name}. "
                           f"Create it with dtype=float32 (or float64), e.g. tensor([1.0, 2.0]).")


class Size(tuple):
    """PyTorch's ``torch.Size``: a tuple of ints, ``Size([2, 3]) == (2, 3)``, with ``numel()``. A tensor's
    ``.shape`` here is a plain tuple (it prints ``(2, 3)``); ``Size(x.shape)`` makes one of these."""

    def __new__(cls, sizes=()):
        return super().__new__(cls, (operator.index(n) for n in sizes))

    def numel(self):
        return math.prod(self)

    def __repr__(self):
        return f"autogradlab.Size({list(self)})"


def size_arguments(args, name):
    """The shape PyTorch's ``Tensor(*args)`` (and ``FloatTensor(*args)``) reads from its arguments: ints, a
    ``Size``, a 0-d integer array, or nothing (an empty 1-d tensor); None when ``args`` is one piece of data."""
    def whole(n):
        return isinstance(n, (int, numpy.integer)) and not isinstance(n, bool)
    if not args:
        return (0,)
    if len(args) == 1:
        only = args[0]
        if isinstance(only, Size):
            return tuple(only)
        if getattr(only, "ndim", None) == 0 and getattr(only, "dtype", None) is not None and only.dtype.kind in "iu" \
                and not isinstance(only, Tensor):
            return (int(only),)
        if not whole(only):
            return None
    if not all(whole(n) for n in args):
        raise TypeError(f"{name}() takes data or a size as ints, got {args!r}: for data with a dtype use "
                        f"autogradlab.tensor(data, dtype=...)")
    return tuple(int(n) for n in args)


class Tensor:
    """An n-dimensional array that can record the ops applied to it."""

    __slots__ = ("_data", "_grad", "_requires_grad", "_grad_fn", "name", "device", "_id", "_vc",
                 "_retains_grad", "_hooks", "_post_acc_hooks", "_acc_ref", "_view", "__weakref__")

    __array_priority__ = 1000  # numpy_array * tensor -> Tensor.__rmul__

    def __init__(self, *data, dtype=None, device=None, requires_grad=False, name=None):
        """PyTorch's ``Tensor(data)``: float32 (the default float) unless ``dtype`` says otherwise;
        ``Tensor(2, 3)``: a 2x3 tensor of zeros. ``tensor(data)`` is the usual way: it keeps data's dtype."""
        shape = size_arguments(data, "Tensor")
        if shape is None and isinstance(data[0], Tensor):   # (an alias, as PyTorch's Tensor(t))
            t = data[0].view_as(data[0])
        else:
            t = tensor(numpy.zeros(shape) if shape is not None else data[0], dtype=dtype or default_float(),
                       device=device, requires_grad=requires_grad, name=name)
        for slot in Tensor.__slots__[:-1]:
            setattr(self, slot, getattr(t, slot))

    @classmethod
    def _make(cls, data, requires_grad=False, grad_fn=None, device=None):
        """Wrap an array already on its device (the fast constructor ops use)."""
        t = object.__new__(cls)
        t._data = data
        t._grad = None
        t._requires_grad = requires_grad
        t._grad_fn = grad_fn
        t.name = None
        # (one device object per device, so x.device.type works; the check costs a few ns per tensor)
        t.device = device if type(device) is backend.device else backend.as_device(
            device if device is not None else backend.device_of(data))
        t._id = next(_tensor_counter)
        t._vc = [0]
        t._retains_grad = False
        t._hooks = t._post_acc_hooks = t._acc_ref = t._view = None
        return t

    # -- properties --------------------------------------------------------------
    @property
    def data(self):
        """PyTorch's ``.data``: a tensor over the same memory that does not require grad and has its own
        version counter, so a change through it (``w.data -= lr * w.grad.data``, ``w.grad.data.zero_()``)
        is invisible to autograd: no history, no version bump (prefer ``with no_grad():`` and ``detach()``).
        Assigning it (``x.data = y``) is autograd's business: :mod:`autogradlab.graph` attaches the setter."""
        return Tensor._make(self._data, False, None, self.device)

    @property
    def grad_fn(self):
        """The node that made this tensor (None for a leaf). A view whose base was changed in place after
        the view was taken first takes its history from the base again, as PyTorch regenerates it."""
        if self._view is not None and self._view[2] != self._vc[0]:
            self._refresh_view()
        return self._grad_fn

    @grad_fn.setter
    def grad_fn(self, node):
        self._grad_fn = node

    def _refresh_view(self):
        """Take a stale view again from its base (attached by ``ops.registry``, which knows how)."""

    @property
    def requires_grad(self) -> bool:
        if self._view is not None and self._view[2] != self._vc[0]:
            self._refresh_view()   # (a stale view of a base that now requires grad requires grad too)
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        if not isinstance(value, (bool, numpy.bool_)):
            raise RuntimeError(f"requires_grad must be a bool, got {type(value).__name__} {value!r}")
        if self.grad_fn is not None:   # (PyTorch: even True, on a tensor that already requires grad)
            raise RuntimeError("you can only change requires_grad flags of leaf variables.")
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad=True):
        """Switch gradient tracking on a leaf (in place); returns ``self``."""
        _check_bool(requires_grad, "requires_grad_", "requires_grad")
        if self.grad_fn is not None and not requires_grad:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a "
                "computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        if requires_grad:
            _check_float(self.dtype)
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def is_leaf(self) -> bool:
        """True when no op made this tensor (``grad_fn is None``): tensors made by the user, and results
        computed without recording (no grad mode, or no input requiring grad)."""
        return self.grad_fn is None

    @property
    def grad(self):
        if self._grad is None and self.grad_fn is not None and not self._retains_grad:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its "
                ".grad attribute won't be populated during autograd.backward(). If you indeed want "
                "the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the "
                "non-leaf Tensor.", UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad must be a Tensor or None, got {type(value).__name__}")
            if value.shape != self.shape:
                raise RuntimeError(f"assigned grad has data of a different size: grad shape "
                                   f"{tuple(value.shape)}, tensor shape {tuple(self.shape)}")
            if value.dtype != self.dtype:
                raise RuntimeError(f"assigned grad has dtype {value.dtype.name}, tensor has {self.dtype.name}")
            if value.device != self.device:
                raise RuntimeError(f"assigned grad is on {value.device}, tensor is on {self.device}")
        self._grad = value

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    @property
    def shape(self):
        return self._data.shape

    def size(self, dim=None):
        return self._data.shape if dim is None else self._data.shape[dim]

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    @property
    def dtype(self):
        return self._data.dtype

    @property
    def _version(self) -> int:
        return self._vc[0]

    def numel(self) -> int:
        return int(self._data.size)

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    # -- conversion --------------------------------------------------------------
    def item(self):
        if self._data.size != 1:
            raise RuntimeError(f"item(): only a one-element tensor can be converted to a Python scalar, "
                             f"this one has shape {tuple(self.shape)} ({self.numel()} elements)")
        return backend.to_host(self._data).reshape(()).item()

    def numpy(self, *, force=False):
        """The data as a host NumPy array (a copy for CUDA tensors). A tensor that requires grad is refused
        while grad mode is on, as in PyTorch (under ``no_grad``, as in a custom Function's forward, it is read);
        ``force=True`` reads it always (as ``detach().cpu().numpy()``)."""
        if self._requires_grad and not force and is_grad_enabled():
            raise RuntimeError("Can't call numpy() on a Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return backend.to_host(self._data)

    def tolist(self):
        return backend.to_host(self._data).tolist()

    def __array__(self, dtype=None, copy=None):
        """NumPy's conversion (``numpy.asarray(t)``, ``plt.imshow(t)``): the values on the host, as
        ``numpy()`` gives them (a tensor that requires grad is refused while grad mode is on, as in PyTorch)."""
        if copy is False and self.device != "cpu":
            raise ValueError("a tensor on a GPU can't be read as a NumPy array without a copy: use t.cpu().numpy()")
        host = self.numpy()
        if dtype is not None:
            return host.astype(dtype, copy=bool(copy))
        return host.copy() if copy and host is self._data else host

    def data_ptr(self):
        """The address of the first element (tensors that share memory from the same start have the same)."""
        return backend.data_ptr(self._data)

    def _real_item(self, what):
        """``item()``, a complex number only with imaginary part 0 (then its real part), as PyTorch converts."""
        if self._data.size != 1:   # (float(t), int(t): PyTorch's ValueError, where t.item() raises RuntimeError)
            raise ValueError(f"only one element tensors can be converted to Python scalars, this one has shape "
                             f"{tuple(self.shape)} ({self.numel()} elements)")
        value = self.item()
        if isinstance(value, complex):
            if value.imag:
                raise RuntimeError(f"value {value} cannot be converted to {what}: take .real, .imag or .abs() first")
            value = value.real
        return value

    def __float__(self):
        return float(self._real_item("a float"))

    def __complex__(self):
        if self._data.size != 1:
            raise ValueError(f"only one element tensors can be converted to Python scalars, this one has shape "
                             f"{tuple(self.shape)} ({self.numel()} elements)")
        return complex(self.item())

    def __int__(self):
        return int(self._real_item("an int"))

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError(f"Boolean value of a tensor with {self.numel()} elements is ambiguous")
        return bool(self.item())

    def __index__(self):
        if self._data.dtype.kind not in "iu" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def detach(self):
        """A new leaf over the same data, cut from the graph (shares the version counter)."""
        t = Tensor._make(self._data, False, None, self.device)
        t._vc = self._vc
        return t

    def detach_(self):
        """Cut this tensor from the graph in place (not a view: its history is its base's, as in PyTorch)."""
        if self._view is not None:
            raise RuntimeError("can't detach a view in place (its history comes from its base): use "
                               "t = t.detach() instead")
        self._grad_fn = None
        self._requires_grad = False
        return self

    def zero_grad(self):
        """Set ``.grad`` to None (as ``optimizer.zero_grad(set_to_none=True)`` does)."""
        self._grad = None

    # -- display -------------------------------------------------------------------
    def __repr__(self):
        host = backend.to_host(self._data)
        body = printing.values_text(host, len("tensor("))   # (PyTorch's layout and number format)
        extras = []   # (in PyTorch's order: device, size, dtype, grad_fn or requires_grad)
        if self.device != "cpu":
            extras.append(f"device='{self.device}'")
        if host.size == 0 and host.ndim != 1:   # (an empty tensor prints as [] whatever its shape: add it)
            extras.append(f"size={tuple(host.shape)}")
        # (the dtype unless float32; int64 and bool are told by the values, except when there are none)
        if host.dtype != default_float() and (host.dtype != default_complex() or host.size == 0) and (
                host.size == 0 or host.dtype not in (numpy.dtype("int64"), numpy.dtype("bool"))):
            extras.append(f"dtype={host.dtype.name}")
        if self.grad_fn is not None:
            extras.append(f"grad_fn=<{self.grad_fn.name()}>")
        elif self._requires_grad:
            extras.append("requires_grad=True")
        if self.name:
            extras.append(f"name='{self.name}'")
        return printing.with_suffixes("tensor(" + body, extras, len("tensor("))

    def __format__(self, spec):
        """As PyTorch: a 0-d tensor formats as its number (``f"{loss:.4f}"``), any other only without a spec (a
        0-d Parameter too: it prints as ``Parameter containing: ...``)."""
        if self._data.ndim == 0 and type(self) is Tensor:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __hash__(self):
        return self._id

    def __reduce__(self):
        """Pickling keeps data, dtype, device, requires_grad and name; never the graph."""
        if self.grad_fn is not None and self._requires_grad:
            raise RuntimeError("Can't pickle a non-leaf tensor that requires grad: pickle t.detach() instead")
        return (_rebuild, (type(self), backend.to_host(self._data), self.device, self._requires_grad, self.name))

    def __deepcopy__(self, memo):
        """A copy of a leaf: new memory, same class, flags, name and (copied) ``.grad``."""
        if self.grad_fn is not None and self._requires_grad:
            raise RuntimeError("Only tensors created explicitly by the user (graph leaves) support deepcopy; "
                               "copy t.detach() instead")
        new = Tensor._make(self._data.copy(), self._requires_grad, None, self.device)
        new.__class__ = type(self)
        new.name = self.name
        memo[id(self)] = new
        if self._grad is not None:
            new._grad = self._grad.__deepcopy__(memo)
        return new

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))


def zero_grads(tensors, set_to_none=True):
    """Clear the ``.grad`` of each tensor: set it to None, or fill it with 0 in place (and cut it
    from any graph). ``Module.zero_grad`` and ``Optimizer.zero_grad`` both use this."""
    for t in tensors:
        if t._grad is None:
            continue
        if set_to_none:
            t._grad = None
        else:   # (as PyTorch: a .grad with history is detached; one without, a view of a flat buffer say, is
            if t._grad._grad_fn is not None:   # only marked as needing no gradient, then written through)
                t._grad.detach_()
            else:
                t._grad._requires_grad = False
            t._grad._data[...] = 0
            t._grad._vc[0] += 1   # an in-place change, as zero_() is: a new version


def _rebuild(cls, host, device, requires_grad, name):
    t = tensor(host, dtype=host.dtype, device=device, requires_grad=requires_grad, name=name)
    t.__class__ = cls  # Parameter and other subclasses add no slots
    return t


def _infer_dtype(data):
    """PyTorch's defaults: Python floats -> float32, ints -> int64, bools -> bool; arrays keep theirs. In a list,
    each element counts with its own (a NumPy scalar or array with its dtype), promoted as PyTorch promotes:
    ``[1.0, numpy.float64(2)]`` is float64, ``[numpy.int32(1), numpy.int32(2)]`` int32."""
    if hasattr(data, "dtype"):
        return None
    flat = data
    while isinstance(flat, (list, tuple)) and flat:
        flat = flat[0]
    if isinstance(data, (list, tuple)):
        try:
            host = numpy.asarray(data)
        except OverflowError:
            host = numpy.asarray(data, dtype=object)
        kind = host.dtype.kind
        if kind == "O" and all(type(x) in (int, float, bool) for x in _leaves(data)):
            kind = "f" if any(type(x) is float for x in _leaves(data)) else "i"   # (an int beyond int64)
    else:
        kind = "i" if type(flat) is int else numpy.asarray(flat).dtype.kind   # (an int beyond int64: see below)
    if isinstance(data, (list, tuple)) and kind in "fiubc":
        return _promoted(_leaf_dtypes(data))
    if kind == "f":
        return default_float()
    if kind == "c":
        return default_complex()
    if kind in "iu":
        return numpy.dtype("int64")
    if kind == "b":
        return numpy.dtype("bool")
    raise TypeError(f"tensor(): unsupported data of type {type(data).__name__} (dtype kind {kind!r}); "
                    f"pass numbers, nested lists of numbers, or a numeric array")


_PYTHON_DTYPES = {bool: numpy.dtype("bool"), int: numpy.dtype("int64")}   # (a float: the default float)
_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}   # bool < integer < float < complex, as PyTorch ranks them


def _leaf_dtypes(data) -> set:
    """The dtype each element of a nested list brings: a NumPy scalar's or array's own, else its Python type's
    default (checked first: ``numpy.float64`` is also a Python float)."""
    found, too_big = set(), None
    for item in _leaves(data):
        if isinstance(item, (numpy.generic, numpy.ndarray)):
            found.add(item.dtype)
            continue
        found.add(_PYTHON_DTYPES.get(type(item)) or (default_float() if isinstance(item, float)
                                                       else default_complex() if isinstance(item, complex)
                                                       else numpy.dtype("int64")))
        if type(item) is int and not -(1 << 63) <= item < (1 << 63):
            too_big = item
    if too_big is not None and not any(d.kind == "f" for d in found):   # (among floats it is a float, as PyTorch)
        raise ValueError(f"tensor(): the integer {too_big} does not fit int64 (PyTorch's 'Overflow when "
                         f"unpacking long long'); write it as a float ({float(too_big)!r}) or keep it smaller")
    return found


def _numbers_of(data):
    """A nested list whose one-element tensors become NumPy scalars of their dtype (PyTorch takes
    ``tensor([loss1, loss2])`` of 0-d tensors); a larger tensor cannot be one number."""
    if isinstance(data, (list, tuple)):
        return [_numbers_of(x) for x in data]
    if isinstance(data, Tensor):
        if data.numel() != 1:
            raise ValueError(f"only one element tensors can be converted to Python scalars (got one of shape "
                             f"{tuple(data.shape)}); to join tensors use autogradlab.stack(...)")
        return backend.to_host(data._data).reshape(())[()]
    return data


def _leaves(data):
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(item)
        else:
            yield item


def _promoted(dtypes) -> numpy.dtype:
    """PyTorch's promotion of several dtypes: the highest category wins; within it, NumPy's wider dtype (a
    signed and an unsigned integer meet in at least int16). No dtypes (an empty list): float32."""
    if not dtypes:
        return default_float()
    top = max(_CATEGORY[d.kind] for d in dtypes)
    ours = [d for d in dtypes if _CATEGORY[d.kind] == top or top == 3 and d.kind == "f"]   # (float64 widens complex64)
    result = numpy.result_type(*ours)
    return numpy.promote_types(result, numpy.int16) if {d.kind for d in ours} == {"i", "u"} else result


def _check_bool(value, fn, name):
    """PyTorch's TypeError for a flag given as something other than a bool (``requires_grad=1``)."""
    if not isinstance(value, (bool, numpy.bool_)):
        raise TypeError(f"{fn}(): argument '{name}' must be bool, not {type(value).__name__}: write True or False")


def _check_supported(dtype):
    if dtype.kind not in "fiubc" or dtype.kind == "c" and dtype not in COMPLEX_DTYPES:
        raise TypeError(f"tensor(): unsupported dtype {dtype.name}; use float32, float64, int64, bool or "
                        f"complex64/complex128")


def _shape_of(data):
    """The shape nested lists make, or the reason they make none: "mixed" (a list holding both lists and
    numbers) or "ragged" (lists of different lengths at one depth)."""
    if not isinstance(data, (list, tuple)):
        return ()
    shapes = {_shape_of(x) for x in data}
    if "mixed" in shapes or len({len(s) for s in shapes if not isinstance(s, str)}) > 1:
        return "mixed"
    if "ragged" in shapes or len(shapes) > 1:
        return "ragged"
    return (len(data),) + (shapes.pop() if shapes else ())


def _not_a_grid(data):
    """The error for nested lists NumPy found "inhomogeneous": PyTorch's TypeError for a list of lists and
    numbers, ValueError for rows of different lengths."""
    shape = _shape_of(data)
    return (TypeError if shape == "mixed" else ValueError)(
        "tensor(): the nested lists are not a grid: "
        + ("a list holds both numbers and lists" if shape == "mixed" else "rows at one depth have different "
           "lengths") + "; every row at one depth needs the same length (pad the short ones, or keep them as "
                        "separate tensors)")


_INTEGER_BOUNDS = {}   # dtype -> (lowest int, lowest float, highest, bits): see integer_values


def _integer_bounds(dtype):
    if dtype not in _INTEGER_BOUNDS:
        info = numpy.iinfo(dtype)
        unsigned = info.min == 0
        _INTEGER_BOUNDS[dtype] = (-info.max if unsigned else info.min, 0 if unsigned else info.min, info.max,
                                  info.bits)
    return _INTEGER_BOUNDS[dtype]


def integer_values(values, dtype, name="tensor()"):
    """Python numbers (one, or an array made of them) as PyTorch writes them into an integer ``dtype``: each
    must fit, except that an unsigned type also takes negative integers down to -max, wrapped (-1 into uint8 is
    255; not -1.0); else RuntimeError, where NumPy would wrap 300 to 44 without a word. An integer beyond int64
    is PyTorch's ValueError."""
    low_int, low_float, high, bits = _integer_bounds(dtype)
    if type(values) is int or type(values) is float:   # (one number: the common case, kept quick)
        if type(values) is int and not -(1 << 63) <= values < (1 << 63):
            raise ValueError(f"Overflow when unpacking long long: {values} does not fit in 64 bits")
        if not (low_int if type(values) is int else low_float) <= values <= high:   # (NaN fails too)
            raise _overflow(name, dtype, values, low_float, high)
        return values % (1 << bits) if values < 0 and low_float == 0 else values
    array = numpy.asarray(values)
    if array.dtype.kind == "O" or (array.dtype.kind == "u" and array.size and array.max() >= 1 << 63) or (
            array.dtype.kind == "f" and isinstance(values, (list, tuple))
            and any(type(x) is int and not -(1 << 63) <= x < (1 << 63) for x in _leaves(values))):
        raise ValueError(f"Overflow when unpacking long long: an integer in {name} does not fit in 64 bits")
    if array.dtype.kind not in "iuf" or not array.size:
        return values
    with numpy.errstate(invalid="ignore"):
        lo, hi = array.min(), array.max()
    low = low_float if array.dtype.kind == "f" else low_int
    if not (low <= lo and hi <= high):   # (NaN fails both)
        raise _overflow(name, dtype, lo if not low <= lo else hi, low_float, high)
    if low_float == 0 and lo < 0:
        return array.astype(numpy.int64) % (1 << bits)
    return values


def _overflow(name, dtype, bad, low, high):
    return RuntimeError(f"{name}: value cannot be converted to type {dtype.name} without overflow: {bad} is outside "
                        f"[{low}, {high}]; use a wider dtype (e.g. int64), or wrap the values yourself (x % 256)")


def tensor(data, dtype=None, device=None, requires_grad=False, name=None) -> Tensor:
    """Make a leaf tensor from a number, a nested list or an array (the data is copied)."""
    if isinstance(data, Tensor):
        if not sys._getframe(1).f_globals.get("__name__", "").startswith("autogradlab"):   # (the user's call)
            warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
                          "or sourceTensor.detach().clone().requires_grad_(True), rather than "
                          "torch.tensor(sourceTensor).", UserWarning, stacklevel=2)
        data = data._data
    elif isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in _leaves(data)):
        data = _numbers_of(data)
    device = backend.normalize_device(device)
    _check_bool(requires_grad, "tensor", "requires_grad")
    try:
        return _leaf(data, dtype, device, requires_grad, name)
    except ValueError as exc:
        if "inhomogeneous" in str(exc) and isinstance(data, (list, tuple)):
            raise _not_a_grid(data) from None
        raise


def _leaf(data, dtype, device, requires_grad, name):
    """:func:`tensor`'s work: the dtype (given, or PyTorch's default for the data), then a copy on ``device``."""
    if dtype is None:
        dtype = _infer_dtype(data)
    if dtype is None and hasattr(data, "dtype"):   # an array's own dtype, checked before it is copied
        dtype = numpy.dtype(data.dtype)
    if dtype is not None:
        dtype = numpy.dtype(dtype)
        _check_supported(dtype)
        if dtype.kind != "c" and not hasattr(data, "dtype") and any(
                isinstance(x, (complex, numpy.complexfloating)) for x in _leaves(data)):
            raise TypeError(f"tensor(): a complex number can't be held in a {dtype.name} tensor (must be real "
                            f"number, not complex): leave dtype out, or pass dtype=complex64 / complex128")
        if dtype.kind in "iu" and not hasattr(data, "dtype"):   # (Python numbers: checked; arrays cast as they are)
            data = integer_values(data, dtype)
    arr = backend.asarray(data, device, dtype)
    _check_supported(arr.dtype)
    arr = arr.copy()
    t = Tensor._make(arr, False, None, device)
    if requires_grad:
        _check_float(arr.dtype)
        t._requires_grad = True
    t.name = name
    return t
