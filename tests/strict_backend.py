"""A strict stand-in for CuPy, for testing on machines without a GPU.

Its arrays behave like CuPy's in the one way that matters for portability:
they refuse implicit conversion to host NumPy (``numpy.asarray(a)`` raises,
as it does for a CuPy array) and only ``.get()`` copies them to the host. The
array module that goes with them (:data:`xp`) wraps NumPy's functions the way
CuPy mirrors them. A test double, not part of the shipped package: with
``AUTOGRADLAB_STRICT_BACKEND=1`` in the environment, ``tests/conftest.py``
installs it through ``autogradlab.backend.use_cpu_array_module`` so that
``backend.xp_for("cpu")`` hands out this module, and running the op and engine
test suites that way catches any code path that would call NumPy directly on
device data. A script outside pytest gets the same with
``PYTHONPATH=tests AUTOGRADLAB_CPU_XP=strict_backend``.
"""
from __future__ import annotations

import collections

import numpy

__all__ = ["HostlessArray", "StrictArray", "xp", "wrap", "unwrap", "HOST_TRANSFERS"]

#: How often device data crossed to the host, by route (``get``, ``item``, ``__float__``...). On a
#: GPU each of these is a copy and a synchronisation; the tests read this to prove that a backward
#: pass nobody listens to makes none.
HOST_TRANSFERS: collections.Counter = collections.Counter()


def unwrap(v):
    if isinstance(v, HostlessArray):
        return v.a
    if isinstance(v, tuple):
        return tuple(unwrap(x) for x in v)
    if isinstance(v, list):
        return [unwrap(x) for x in v]
    return v


def wrap(v, cls=None):
    """NumPy results as arrays of ``cls`` (StrictArray by default; another HostlessArray class stands for
    another device: ``fake_cuda.FakeCudaArray``)."""
    if isinstance(v, numpy.ndarray):
        return (cls or StrictArray)(v)
    if isinstance(v, numpy.generic):  # CuPy returns 0-d arrays where NumPy returns scalars
        return (cls or StrictArray)(numpy.asarray(v))
    if isinstance(v, tuple):
        return tuple(wrap(x, cls) for x in v)
    return v


def _binary(name):
    def method(self, other):
        return wrap(getattr(self.a, name)(self._operand(other)), type(self))
    method.__name__ = name
    return method


def _unary(name):
    def method(self):
        return wrap(getattr(self.a, name)(), type(self))
    method.__name__ = name
    return method


def _inplace(name):
    def method(self, other):
        getattr(self.a, name)(self._operand(other))
        return self
    method.__name__ = name
    return method


class HostlessArray:
    """An array that, like a CuPy array, will not silently become a NumPy array (the machinery of
    :class:`StrictArray`, the "cpu" stand-in, and ``fake_cuda.FakeCudaArray``, a GPU's: sibling classes, so
    neither is taken for the other)."""

    __slots__ = ("a",)
    __array_priority__ = 2000

    def __init__(self, a):
        self.a = a

    def __array__(self, *args, **kwargs):
        raise TypeError("Implicit conversion to a NumPy array is not allowed (strict backend, as with "
                        "CuPy). Please use .get() to construct a NumPy array explicitly.")

    def __array_ufunc__(self, *args, **kwargs):
        raise TypeError("a NumPy ufunc was called on a strict (device) array: go through the backend's "
                        "array module (xp) instead of numpy")

    def __array_function__(self, *args, **kwargs):
        raise TypeError("a NumPy function was called on a strict (device) array: go through the "
                        "backend's array module (xp) instead of numpy")

    @classmethod
    def _operand(cls, v):
        """The NumPy value behind an operand (a subclass may refuse some, as CuPy refuses host arrays)."""
        return unwrap(v)

    def get(self):
        HOST_TRANSFERS["get"] += 1
        return self.a.copy()

    # attributes and methods CuPy arrays have
    shape = property(lambda self: self.a.shape)
    dtype = property(lambda self: self.a.dtype)
    ndim = property(lambda self: self.a.ndim)
    size = property(lambda self: self.a.size)
    nbytes = property(lambda self: self.a.nbytes)
    T = property(lambda self: type(self)(self.a.T))
    mT = property(lambda self: type(self)(numpy.swapaxes(self.a, -1, -2)))

    def __getattr__(self, name):  # sum, max, reshape, astype, copy, squeeze, argmax, any, ...
        if name.startswith("__"):   # never leak __array_interface__ and friends to NumPy
            raise AttributeError(name)
        attr, cls, operand = getattr(self.a, name), type(self), self._operand
        if callable(attr):
            return lambda *args, **kwargs: wrap(attr(*[operand(a) for a in args],
                                                     **{k: operand(v) for k, v in kwargs.items()}), cls)
        return wrap(attr, cls)

    def __getitem__(self, index):
        return wrap(self.a[self._operand(index)], type(self))

    def __setitem__(self, index, value):
        self.a[self._operand(index)] = self._operand(value)

    def __len__(self):
        return len(self.a)

    def __bool__(self):
        HOST_TRANSFERS["__bool__"] += 1
        return bool(self.a)

    def __float__(self):
        HOST_TRANSFERS["__float__"] += 1
        return float(self.a)

    def __int__(self):
        HOST_TRANSFERS["__int__"] += 1
        return int(self.a)

    def __index__(self):
        HOST_TRANSFERS["__index__"] += 1
        return self.a.__index__()

    def __repr__(self):
        return f"{type(self).__name__}({self.a!r})"

    def item(self):
        HOST_TRANSFERS["item"] += 1
        return self.a.item()

    def tolist(self):
        HOST_TRANSFERS["tolist"] += 1
        return self.a.tolist()


class StrictArray(HostlessArray):
    """The strict backend's "cpu" array."""

    __slots__ = ()


for _n in ("add", "radd", "sub", "rsub", "mul", "rmul", "truediv", "rtruediv", "pow", "rpow", "matmul",
           "rmatmul", "lt", "le", "gt", "ge", "eq", "ne", "and", "rand", "or", "ror", "xor", "mod", "floordiv"):
    setattr(HostlessArray, f"__{_n}__", _binary(f"__{_n}__"))
for _n in ("neg", "abs", "invert", "pos"):
    setattr(HostlessArray, f"__{_n}__", _unary(f"__{_n}__"))
for _n in ("iadd", "isub", "imul", "itruediv", "ipow", "iand", "ior"):
    setattr(HostlessArray, f"__{_n}__", _inplace(f"__{_n}__"))
HostlessArray.__hash__ = None


class _Ufunc:
    """A NumPy ufunc seen through the strict module (keeps ``.at`` for scatter-add)."""

    def __init__(self, ufunc, cls):
        self._u, self._cls = ufunc, cls

    def _args(self, args, kwargs):
        operand = self._cls._operand
        return [operand(a) for a in args], {k: operand(v) for k, v in kwargs.items()}

    def __call__(self, *args, **kwargs):
        args, kwargs = self._args(args, kwargs)
        return wrap(self._u(*args, **kwargs), self._cls)

    def at(self, a, index, b):
        args, _ = self._args((a, index, b), {})
        self._u.at(*args)

    def reduce(self, *args, **kwargs):
        args, kwargs = self._args(args, kwargs)
        return wrap(self._u.reduce(*args, **kwargs), self._cls)


class _StrictModule:
    """The array module of strict arrays: NumPy's functions, taking and returning arrays of ``cls``."""

    def __init__(self, cls=StrictArray, name="strict_backend.xp"):
        self.ndarray, self.__name__ = cls, name

    _numpy = numpy   # (the module whose functions it wraps: numpy, or numpy.linalg for xp.linalg)

    def __getattr__(self, name):
        attr = getattr(self._numpy, name)
        if name in ("linalg", "fft"):   # (xp.linalg.inv, xp.fft.fftn, as CuPy has them: arrays of cls in and out)
            sub = _StrictModule(self.ndarray, f"{self.__name__}.{name}")
            sub._numpy = attr
            return sub
        if isinstance(attr, numpy.ufunc):
            return _Ufunc(attr, self.ndarray)
        if callable(attr) and not isinstance(attr, type):
            cls = self.ndarray

            def fn(*args, **kwargs):
                operand = cls._operand
                return wrap(attr(*[operand(a) for a in args], **{k: operand(v) for k, v in kwargs.items()}), cls)
            fn.__name__ = name
            return fn
        return attr

    def asarray(self, data, dtype=None):
        cls = self.ndarray
        if isinstance(data, cls):
            return data if dtype is None else cls(data.a.astype(dtype))
        if isinstance(data, HostlessArray):   # an array of another stand-in device
            raise TypeError(f"{cls.__name__} cannot take a {type(data).__name__} directly: copy it with .get() first")
        return cls(numpy.array(unwrap(data), dtype=dtype))

    def asnumpy(self, a):
        return a.get() if isinstance(a, HostlessArray) else numpy.asarray(a)


xp = _StrictModule()
