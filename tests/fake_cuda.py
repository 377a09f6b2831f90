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
What they cannot find is what only a real GPU shows (CuPy's own numerics, its missing functions):
``tests/test_devices.py`` runs the same suites on one where there is one.

A test double, never shipped. (It also stands in for ``cupyx.scipy.special.erf``, the one function of
``cupyx`` that autogradlab calls.)
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


class _CUDARuntimeError(RuntimeError):
    pass


class _FakeCupy(_StrictModule):
    """The array module of :class:`FakeCudaArray`, with CuPy's ``cuda`` namespace."""

    def __init__(self):
        super().__init__(FakeCudaArray, "fake_cuda.xp")
        self.cuda = types.SimpleNamespace(
            Device=_Device,
            runtime=types.SimpleNamespace(getDeviceCount=lambda: 1, CUDARuntimeError=_CUDARuntimeError))

    def may_share_memory(self, a, b, max_work=None):   # (CuPy's: by the bounds of the two arrays)
        return bool(numpy.may_share_memory(unwrap(a), unwrap(b)))

    shares_memory = may_share_memory


xp = _FakeCupy()


def _erf(a):
    import math
    host = a.a.astype(numpy.float64)
    return FakeCudaArray(numpy.vectorize(math.erf, otypes=[numpy.float64])(host).astype(a.dtype))


def _install_cupyx():
    """``cupyx.scipy.special.erf`` for these arrays (only in a process that asked for this stand-in)."""
    special = types.ModuleType("cupyx.scipy.special")
    special.erf = _erf
    scipy = types.ModuleType("cupyx.scipy")
    scipy.special = special
    cupyx = types.ModuleType("cupyx")
    cupyx.scipy = scipy
    sys.modules.update({"cupyx": cupyx, "cupyx.scipy": scipy, "cupyx.scipy.special": special})


_install_cupyx()
