"""The one module that knows about array libraries.

Every op reaches NumPy or CuPy through :func:`xp_for`, never by importing
``numpy`` for tensor data itself. CuPy is imported lazily, only when a CUDA
device is asked for, so ``import autogradlab`` never touches it.

A device is a string: ``"cpu"``, ``"cuda"`` or ``"cuda:N"``.
"""
from __future__ import annotations

import os

import numpy

__all__ = ["normalize_device", "xp_for", "xp_of", "device_of", "to_host", "asarray", "scatter_add",
           "partial_overlap", "shares_memory"]

_cupy = None  # the cupy module, once loaded

# Tests set AUTOGRADLAB_STRICT_BACKEND=1 to run "cpu" tensors on arrays that, like CuPy's,
# refuse implicit conversion to NumPy (see strict_backend.py).
if os.environ.get("AUTOGRADLAB_STRICT_BACKEND") == "1":
    from .strict_backend import StrictArray as _StrictArray, xp as _cpu_xp
else:
    _StrictArray, _cpu_xp = None, numpy


class DeviceError(RuntimeError):
    """A device was asked for that this machine cannot provide."""


def _from_environment():
    if os.environ.get("AUTOGRADLAB_DEFAULT_DEVICE"):
        set_default_device(os.environ["AUTOGRADLAB_DEFAULT_DEVICE"])


def _load_cupy():
    global _cupy
    if _cupy is None:
        try:
            import cupy  # noqa: F401  (optional dependency)
        except ImportError as exc:  # pragma: no cover - depends on the machine
            raise DeviceError(
                "device='cuda' needs CuPy, which is not installed. Install the GPU extra that matches "
                "your NVIDIA driver: pip install 'autogradlab[gpu]' (CUDA 12, cupy-cuda12x) or "
                "pip install 'autogradlab[gpu-cuda13]' (CUDA 13, cupy-cuda13x); any CuPy build works. "
                "Or use device='cpu'."
            ) from exc
        try:
            if cupy.cuda.runtime.getDeviceCount() < 1:
                raise DeviceError("device='cuda': CuPy is installed but no GPU is visible. Use device='cpu'.")
        except cupy.cuda.runtime.CUDARuntimeError as exc:  # pragma: no cover
            raise DeviceError(f"device='cuda': CuPy could not reach a GPU ({exc}). Use device='cpu'.") from exc
        _cupy = cupy
    return _cupy


_default_device = "cpu"


def set_default_device(device) -> None:
    """Where factory functions put tensors when no ``device=`` is given (PyTorch's name).
    ``AUTOGRADLAB_DEFAULT_DEVICE=cuda`` in the environment sets it at import (the test suites use this)."""
    global _default_device
    _default_device = normalize_device(device if device is not None else "cpu")


def get_default_device() -> str:
    return _default_device


def normalize_device(device) -> str:
    """Return the canonical device string: ``"cpu"`` or ``"cuda:N"`` (None: the default device)."""
    if device is None:
        return _default_device
    name = str(device).strip().lower()
    if name == "cpu":
        return "cpu"
    if name == "cuda":
        return "cuda:0"
    if name.startswith("cuda:") and name[5:].isdigit():
        return name
    raise ValueError(f"unknown device {device!r}: use 'cpu', 'cuda' or 'cuda:N'")


def xp_for(device: str):
    """The array module for a (normalized) device: numpy for cpu, cupy for cuda."""
    if device == "cpu":
        return _cpu_xp
    return _load_cupy()


def xp_of(array):
    """The array module an array belongs to."""
    if _StrictArray is not None and isinstance(array, _StrictArray):
        return _cpu_xp
    if isinstance(array, numpy.ndarray) or numpy.isscalar(array):
        return numpy
    if _cupy is not None and isinstance(array, _cupy.ndarray):
        return _cupy
    module = type(array).__module__.split(".")[0]
    if module == "cupy":
        return _load_cupy()
    return numpy


def device_of(array) -> str:
    """The device string an array lives on."""
    if _cupy is not None and isinstance(array, _cupy.ndarray):
        return f"cuda:{array.device.id}"
    return "cpu"


def asarray(data, device: str, dtype=None):
    """Put ``data`` (array, list, scalar) on ``device`` as an array of ``dtype``."""
    xp = xp_for(device)
    if device == "cpu":
        host = numpy.asarray(to_host(data), dtype=dtype)
        return host if _StrictArray is None else _StrictArray(host)
    with xp.cuda.Device(int(device.split(":")[1])):
        return xp.asarray(data, dtype=dtype)


def scatter_add(out, index, values):
    """``out[index] += values`` where repeated indices accumulate (NumPy's ``add.at``)."""
    if _cupy is not None and isinstance(out, _cupy.ndarray):  # pragma: no cover - needs a GPU
        import cupyx
        cupyx.scatter_add(out, index, values)
    else:
        xp_of(out).add.at(out, index, values)


def shares_memory(a, b) -> bool:
    """True when arrays ``a`` and ``b`` may share memory (``reshape`` made a view, not a copy)."""
    if _StrictArray is not None and isinstance(a, _StrictArray):
        a, b = a.a, getattr(b, "a", b)
    return bool(xp_of(a).may_share_memory(a, b))


def partial_overlap(a, b) -> bool:
    """True when arrays ``a`` and ``b`` may share memory without being the same elements in the same
    layout (PyTorch refuses such an operand in an in-place op; the very same array is fine)."""
    if a is b:
        return False
    if _StrictArray is not None and isinstance(a, _StrictArray):
        a, b = a.a, getattr(b, "a", b)
    if not xp_of(a).may_share_memory(a, b):
        return False
    return not (a.shape == b.shape and a.strides == b.strides and _address(a) == _address(b))


def _address(array):
    if isinstance(array, numpy.ndarray):
        return array.__array_interface__["data"][0]
    return array.data.ptr  # cupy


def to_host(array):
    """A host NumPy copy (or view) of an array, for display and ``.numpy()``."""
    if isinstance(array, numpy.ndarray):
        return array
    if _cupy is not None and isinstance(array, _cupy.ndarray):
        return _cupy.asnumpy(array)
    get = getattr(array, "get", None)  # the strict test backend and cupy both offer .get()
    if get is not None and not isinstance(array, (list, tuple, dict)):
        return get()
    return numpy.asarray(array)


_from_environment()
