"""A stand-in for CuPy and one GPU, for running the device suites on machines without one.

``AUTOGRADLAB_CUDA_XP=fake_cuda`` (with ``tests/`` on ``PYTHONPATH``) makes ``autogradlab.backend`` load
this module's :data:`xp` where it would load ``cupy``: ``device="cuda"`` then works on any machine,
and its arrays are :class:`FakeCudaArray`, kept apart from the host's as CuPy keeps them:

* a NumPy array never becomes one silently, nor one a NumPy array: ``numpy.asarray(a)`` raises, a NumPy
  function or ufunc given one raises, and an op mixing one with a NumPy array raises (CuPy's
  ``TypeError``), while a Python or NumPy scalar is fine. Only ``xp.asarray`` (host to device) and
  ``.get()`` / ``xp.asnumpy`` (device to host) cross, each a copy;
* each has a ``.device`` (``.id`` 0) and ``.data.ptr``, as CuPy's do.

So the suites run with ``AUTOGRADLAB_DEFAULT_DEVICE=cuda`` find what assumes the CPU: a layer built on
the CPU by default, a test that writes a NumPy array into a device tensor, a repr that expects "cpu".

It also does what CuPy 14 was seen to do on an H100 (``dev.sh gpu-check``), where NumPy differs:

* ``flags`` has no ``writeable`` (CuPy's arrays cannot be read-only, so an ``expand``ed view is writable);
* ``argmax``/``argmin`` with several NaNs give the *last* (CuPy's parallel reduction may give any);
* ``add.at`` refuses bool and integers narrower than 32 bits (CuPy's TypeError);
* ``asarray`` refuses object and string data (CuPy's ValueError), and makes a Python number's array
  by filling it, so ``-0.0`` becomes ``+0.0`` (CuPy fills a zero with a memset);
* ``cupyx.scipy.special``'s functions give float64 for float16.

What it cannot show is what only a real GPU shows (float32 subnormals flushed to zero, other CuPy
numerics, its missing functions): ``dev.sh gpu-check`` runs the same suites on one where there is one.

A test double, never shipped. (It also stands in for the functions of ``cupyx.scipy.special`` that autogradlab
calls: erf, erfc, gammaln, erfcx, erfinv, ndtri, log_ndtr.)
"""
from __future__ import annotations

import sys
import types

import numpy

from strict_backend import HostlessArray, _StrictModule, unwrap

__all__ = ["FakeCudaArray", "xp"]


class _Pointer:
    __slots__ = ("ptr",)

    def __init__(self, ptr):
        self.ptr = ptr


class FakeCudaArray(HostlessArray):
    """An array "on the GPU": no implicit host conversion (as the strict backend's), and no host operands."""

    __slots__ = ()
    device = types.SimpleNamespace(id=0)

    @classmethod
    def _operand(cls, v):
        if isinstance(v, numpy.ndarray) or (isinstance(v, HostlessArray) and not isinstance(v, cls)):
            raise TypeError(f"Unsupported type {type(v)} (fake_cuda, as CuPy: a host array is not a device "
                            f"operand; move it with xp.asarray(...) first)")
        if isinstance(v, (tuple, list)):
            return type(v)(cls._operand(x) for x in v)
        return unwrap(v)

    @property
    def data(self):   # CuPy's MemoryPointer: its .ptr is the address of the first element
        return _Pointer(self.a.__array_interface__["data"][0])

    @property
    def flags(self):
        return _Flags(self.a.flags)

    def argmax(self, axis=None, keepdims=False):
        return _last_nan(self.a, numpy.argmax, axis, keepdims)

    def argmin(self, axis=None, keepdims=False):
        return _last_nan(self.a, numpy.argmin, axis, keepdims)


class _Flags:
    """CuPy's ``Flags``: ``c_contiguous``, ``f_contiguous``, ``owndata`` (also as ``flags["C_CONTIGUOUS"]``),
    and no ``writeable``."""

    def __init__(self, flags):
        self.c_contiguous, self.f_contiguous, self.owndata = flags.c_contiguous, flags.f_contiguous, flags.owndata

    def __getitem__(self, name):
        return getattr(self, name.lower())


def _last_nan(a, pick, axis, keepdims):
    """NumPy's ``pick`` (the first of ties), except that where there are NaNs the last NaN is given."""
    index = numpy.asarray(pick(a, axis=axis, keepdims=keepdims))
    if a.dtype.kind in "fc":
        nan = numpy.isnan(a)
        last = (a.size if axis is None else a.shape[axis]) - 1 - numpy.argmax(
            nan.reshape(-1)[::-1] if axis is None else numpy.flip(nan, axis), axis=axis, keepdims=keepdims)
        index = numpy.where(nan.any(axis=axis, keepdims=keepdims), last, index)
    return FakeCudaArray(numpy.asarray(index))


class _AddWithAt:
    """``cupy.add``: its ``at`` takes int32, int64, uint32, uint64 and floats only."""

    def __init__(self, add):
        self._add = add

    def __call__(self, *args, **kwargs):
        return self._add(*args, **kwargs)

    def at(self, a, index, b):
        if a.dtype.kind in "biu" and a.dtype.itemsize < 4:
            raise TypeError("cupy.add.at only supports int32, int64, float16, float32, float64, uint32, uint64 "
                            "as data type (fake_cuda, as CuPy)")
        self._add.at(a, index, b)

    def reduce(self, *args, **kwargs):
        return self._add.reduce(*args, **kwargs)


class _Device:
    """``cupy.cuda.Device(n)``: a context manager; there is one device, 0."""

    def __init__(self, device=0):
        if int(device) != 0:
            raise _CUDARuntimeError(f"cudaErrorInvalidDevice: invalid device ordinal {device} (fake_cuda has one)")
        self.id = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def synchronize(self):
        """Nothing is queued: the stand-in computes at once."""


class _CUDARuntimeError(RuntimeError):
    pass


class _FakeCupy(_StrictModule):
    """The array module of :class:`FakeCudaArray`, with CuPy's ``cuda`` namespace."""

    def __init__(self):
        super().__init__(FakeCudaArray, "fake_cuda.xp")
        self.cuda = types.SimpleNamespace(
            Device=_Device,
            runtime=types.SimpleNamespace(getDeviceCount=lambda: 1, CUDARuntimeError=_CUDARuntimeError))

    def __getattr__(self, name):
        attr = super().__getattr__(name)
        return _AddWithAt(attr) if name == "add" else attr

    def asarray(self, data, dtype=None):
        if isinstance(data, (bool, int, float)) and not isinstance(data, FakeCudaArray):
            if data == 0:   # (CuPy fills a number's array; a zero with a memset, which has no sign)
                data = abs(data)
        kind = numpy.dtype(dtype).kind if dtype is not None else None
        if kind is None and not isinstance(data, FakeCudaArray):
            kind = getattr(data, "dtype", None).kind if hasattr(data, "dtype") else numpy.asarray(data).dtype.kind
        if kind in ("O", "U", "S", "V"):
            raise ValueError(f"Unsupported dtype {numpy.asarray(data).dtype if dtype is None else dtype} "
                             f"(fake_cuda, as CuPy)")
        return super().asarray(data, dtype)

    def diagonal(self, a, offset=0, axis1=0, axis2=1):   # (CuPy's is a writable view; NumPy's is read-only)
        view = numpy.diagonal(unwrap(a), offset, axis1, axis2)
        if unwrap(a).flags.writeable:
            view.flags.writeable = True
        return FakeCudaArray(view)

    def may_share_memory(self, a, b, max_work=None):   # (CuPy's: by the bounds of the two arrays)
        return bool(numpy.may_share_memory(unwrap(a), unwrap(b)))

    shares_memory = may_share_memory


xp = _FakeCupy()


def _per_element(name):
    """``cupyx.scipy.special.<name>`` for these arrays: each element through autogradlab's own float64 function
    of that name (``math.erf``, ``math.erfc``, ``lgamma``, ...), giving float64 for float16, as CuPy's."""
    def call(a):
        import math

        from autogradlab.ops import special_functions as kernels
        fn = {"erf": math.erf, "erfc": math.erfc, "gammaln": kernels._lgamma_scalar,
              "erfcx": kernels._erfcx_scalar, "erfinv": kernels._erfinv_scalar, "ndtri": kernels._ndtri_scalar,
              "log_ndtr": kernels._log_ndtr_scalar}[name]
        host = a.a.astype(numpy.float64)
        with numpy.errstate(all="ignore"):
            out = numpy.vectorize(fn, otypes=[numpy.float64])(host)
            return FakeCudaArray(out if a.dtype == numpy.float16 else out.astype(a.dtype))
    return call


def _install_cupyx():
    """``cupyx.scipy.special``'s functions that autogradlab calls, for these arrays (only in a process that asked
    for this stand-in)."""
    special = types.ModuleType("cupyx.scipy.special")
    for name in ("erf", "erfc", "gammaln", "erfcx", "erfinv", "ndtri", "log_ndtr"):
        setattr(special, name, _per_element(name))
    scipy = types.ModuleType("cupyx.scipy")
    scipy.special = special
    cupyx = types.ModuleType("cupyx")
    cupyx.scipy = scipy
    sys.modules.update({"cupyx": cupyx, "cupyx.scipy": scipy, "cupyx.scipy.special": special})


_install_cupyx()
