"""The one module that knows about array libraries.

Every op reaches NumPy or CuPy through :func:`xp_for`, never by importing
``numpy`` for tensor data itself. CuPy is imported lazily, only when a CUDA
device is asked for, so ``import autogradlab`` never touches it.

A device is a string: ``"cpu"``, ``"cuda"`` or ``"cuda:N"``.
"""
from __future__ import annotations

import importlib
import math
import os
import warnings

import numpy

__all__ = ["device", "use_cpu_array_module", "on_cpu_array_module", "normalize_device", "xp_for", "xp_of", "device_of", "to_host", "asarray", "scatter_add", "erf", "per_element", "eig",
           "partial_overlap", "shares_memory"]

_cupy = None  # the cupy module, once loaded

# PyTorch computes log(0) = -inf, 0/0 = nan, exp(1000) = inf and a float32 cast of 1e40 = inf silently; NumPy
# warns for each. The warnings NumPy raises from inside autogradlab's own code (ops, VJPs, this module) are
# silenced, so a student's output shows what torch's would; NumPy called from other code warns as before.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"autogradlab(\.|$)",
                        message=r"(divide by zero|invalid value|overflow|underflow) encountered"
                                r"|Mean of empty slice|Degrees of freedom <= 0")

# The array module behind "cpu" tensors: NumPy, unless a test installs a stand-in (see
# use_cpu_array_module; the test suite's strict backend, tests/strict_backend.py, is one).
_CpuArray = None          # the stand-in's array type (None: plain NumPy arrays)
_cpu_xp = numpy
_host_view = None         # stand-in array -> the NumPy array it wraps (no copy)
_cpu_xp_listeners = []    # callbacks of modules that keep the cpu module at hand (ops.registry)


def on_cpu_array_module(callback) -> None:
    """Call ``callback(xp)`` now and whenever :func:`use_cpu_array_module` changes the "cpu" array
    module (for a module that looks it up once, on a hot path)."""
    _cpu_xp_listeners.append(callback)
    callback(_cpu_xp)


def use_cpu_array_module(xp=None, unwrap=None) -> None:
    """Run "cpu" tensors on another array module (a test double), or on NumPy again with no arguments.

    ``xp`` mirrors NumPy's functions; ``xp.ndarray`` is its array type, whose constructor wraps a NumPy
    array without copying, and ``unwrap(a)`` returns the NumPy array that ``a`` wraps (for memory-overlap
    checks). Call it before any tensor is made: tensors already made keep their arrays. The environment
    variable ``AUTOGRADLAB_CPU_XP=some.module`` does the same at import with that module's ``xp`` and
    ``unwrap``."""
    global _CpuArray, _cpu_xp, _host_view
    if xp is None:
        _CpuArray, _cpu_xp, _host_view = None, numpy, None
    else:
        array_type = getattr(xp, "ndarray", None)
        if not isinstance(array_type, type) or not callable(unwrap):
            raise TypeError("use_cpu_array_module(xp, unwrap): xp needs an ndarray attribute (its array type) "
                            f"and unwrap must be a function from its arrays to NumPy arrays; got xp={xp!r}, "
                            f"unwrap={unwrap!r}")
        _CpuArray, _cpu_xp, _host_view = array_type, xp, unwrap
    for callback in _cpu_xp_listeners:
        callback(_cpu_xp)


def _from_cpu_xp_variable():
    name = os.environ.get("AUTOGRADLAB_CPU_XP", "").strip()
    if not name:
        return
    try:
        module = importlib.import_module(name)
    except ImportError as exc:
        raise ImportError(f"AUTOGRADLAB_CPU_XP={name!r} names a module that cannot be imported ({exc}). "
                          "Put its folder on PYTHONPATH (the test suite's strict backend lives in tests/: "
                          "PYTHONPATH=tests AUTOGRADLAB_CPU_XP=strict_backend), or unset the variable to "
                          "use NumPy.") from exc
    if not hasattr(module, "xp") or not hasattr(module, "unwrap"):
        raise ImportError(f"AUTOGRADLAB_CPU_XP={name!r}: the module {module.__file__} must define xp (an "
                          "array module mirroring NumPy, with an ndarray type) and unwrap (array -> NumPy "
                          "array); it defines neither or only one.")
    use_cpu_array_module(module.xp, module.unwrap)


_from_cpu_xp_variable()


class DeviceError(RuntimeError):
    """A device was asked for that this machine cannot provide."""


def _from_environment():
    if os.environ.get("AUTOGRADLAB_DEFAULT_DEVICE"):
        set_default_device(os.environ["AUTOGRADLAB_DEFAULT_DEVICE"])


def _cuda_stand_in():
    """The array module ``AUTOGRADLAB_CUDA_XP=some.module`` names in place of CuPy (that module's ``xp``:
    the test suite's ``tests/fake_cuda.py`` runs the device suites without a GPU), or None."""
    name = os.environ.get("AUTOGRADLAB_CUDA_XP", "").strip()
    if not name:
        return None
    try:
        return importlib.import_module(name).xp
    except (ImportError, AttributeError) as exc:
        raise DeviceError(f"AUTOGRADLAB_CUDA_XP={name!r} names no module with an xp (an array module mirroring "
                          f"CuPy) that can be imported ({exc}). The test suite's stand-in lives in tests/: "
                          "PYTHONPATH=tests AUTOGRADLAB_CUDA_XP=fake_cuda; or unset the variable to use "
                          "CuPy.") from exc


def _load_cupy():
    global _cupy
    if _cupy is None:
        try:
            cupy = _cuda_stand_in()
            if cupy is None:
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


_default_device = None   # (set below, once the device class exists)


def set_default_device(device) -> None:
    """Where factory functions put tensors when no ``device=`` is given (PyTorch's name).
    ``AUTOGRADLAB_DEFAULT_DEVICE=cuda`` in the environment sets it at import (the test suites use this)."""
    global _default_device
    _default_device = normalize_device(device if device is not None else "cpu")


def get_default_device() -> str:
    return _default_device


class device(str):
    """PyTorch's ``torch.device``: ``device("cuda")``, ``device("cuda", 1)``, ``device("cpu")``, with ``.type``
    and ``.index``. It is the device's name as a string ("cpu", "cuda", "cuda:1"), so it goes wherever a device
    is taken (``x.to(dev)``, ``device=dev``) and compares equal to that name."""

    def __new__(cls, type, index=None):
        name = str(type)
        if index is not None:
            if ":" in name:
                raise RuntimeError(f"device(): type {type!r} already names an index; write device('cuda', "
                                   f"{index}) or device('cuda:{index}')")
            name = f"{name}:{int(index)}"
        kind, _, number = name.partition(":")
        if (kind not in ("cpu", "cuda") or (number and not number.isdigit())
                or (kind == "cpu" and number not in ("", "0"))):
            raise RuntimeError(f"device(): expected 'cpu', 'cuda' or 'cuda:N' (lower case, as PyTorch), got {name!r}")
        self = super().__new__(cls, name)
        self.type, self.index = kind, int(number) if number else None
        return self

    def __repr__(self):
        return f"device(type={self.type!r}" + (f", index={self.index})" if self.index is not None else ")")


_DEVICES = {}   # name -> its one device object


def as_device(name):
    """The one :class:`device` object of a canonical name ("cpu", "cuda:0"): what ``tensor.device`` holds, so
    ``x.device.type`` works as in PyTorch and ``x.device == "cpu"`` as before."""
    found = _DEVICES.get(name)
    if found is None:
        found = _DEVICES[name] = device(name)
    return found


def normalize_device(device) -> str:
    """Return the canonical device: ``"cpu"`` or ``"cuda:N"`` (None: the default device), as a :class:`device`
    (a ``str``)."""
    if device is None:
        return _default_device
    name = str(device).strip().lower()
    if name in ("cpu", "cpu:0"):
        return as_device("cpu")
    if name == "cuda":
        return as_device("cuda:0")
    if name.startswith("cuda:") and name[5:].isdigit():
        return as_device(name)
    raise ValueError(f"unknown device {str(device)!r}: use 'cpu', 'cuda' or 'cuda:N'")


def xp_for(device: str):
    """The array module for a (normalized) device: numpy for cpu, cupy for cuda."""
    if device == "cpu":
        return _cpu_xp
    return _load_cupy()


def xp_of(array):
    """The array module an array belongs to."""
    if _CpuArray is not None and isinstance(array, _CpuArray):
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
        return host if _CpuArray is None else _CpuArray(host)
    with xp.cuda.Device(int(device.split(":")[1])):
        if type(data) is float and data == 0 and math.copysign(1.0, data) < 0:
            return -xp.zeros((), dtype=dtype)   # (CuPy fills a number's array: a zero by a memset, which drops the sign)
        if dtype is not None and isinstance(data, (list, tuple, int)):   # (numbers read as NumPy reads them, then
            data = numpy.asarray(data)                                    # cast: -7 as uint8 wraps, as on the CPU)
        return xp.asarray(data, dtype=dtype)


def scatter_add(out, index, values):
    """``out[index] += values`` where repeated indices accumulate (NumPy's ``add.at``). Off NumPy, bools and
    integers narrower than 32 bits add in int64 and are cast back (CuPy's ``add.at`` takes neither)."""
    xp = xp_of(out)
    if type(out) is not numpy.ndarray and out.dtype.kind in "biu" and out.dtype.itemsize < 4:
        wide = out.astype("int64")
        scatter_add(wide, index, values.astype("int64"))
        out[...] = wide != 0 if out.dtype.kind == "b" else wide.astype(out.dtype)
    elif _cupy is not None and isinstance(out, _cupy.ndarray) and not hasattr(_cupy.add, "at"):  # pragma: no cover
        import cupyx   # (CuPy before 13; CuPy 14 deprecates cupyx.scatter_add for cupy.add.at)
        cupyx.scatter_add(out, index, values)
    else:
        xp.add.at(out, index, values)


def scatter_extreme(out, index, values, largest):
    """``out[index] = max(out[index], values)`` (or min) where repeated indices all take part (NumPy's
    ``maximum.at``; CuPy before 13: ``cupyx.scatter_max``)."""
    xp = xp_of(out)
    ufunc = xp.maximum if largest else xp.minimum
    if _cupy is not None and isinstance(out, _cupy.ndarray) and not hasattr(ufunc, "at"):  # pragma: no cover
        import cupyx
        (cupyx.scatter_max if largest else cupyx.scatter_min)(out, index, values)
    else:
        with numpy.errstate(invalid="ignore"):   # (a NaN is the max, quietly, as in PyTorch)
            ufunc.at(out, index, values)


def scatter_multiply(out, index, values):
    """``out[index] *= values`` where repeated indices all take part (NumPy's ``multiply.at``; on a GPU whose
    CuPy has no ``multiply.at``, on the host)."""
    xp = xp_of(out)
    if hasattr(xp.multiply, "at"):
        xp.multiply.at(out, index, values)
    else:   # pragma: no cover  (CuPy without multiply.at)
        host = to_host(out)
        numpy.multiply.at(host, tuple(to_host(i) for i in index), to_host(values))
        out[...] = xp.asarray(host)


_PER_ELEMENT: dict = {}   # Python function -> its NumPy ufunc (numpy.frompyfunc), made once


def per_element(array, scalar_fn, gpu_name):
    """``scalar_fn`` (a function of one Python float) applied to each element: in float64, rounded once to
    the array's dtype. It is the route for the special functions NumPy has none of (erf, lgamma, erfinv, ...):
    each element goes through Python's ``math`` (about 0.1-1 us an element). On a GPU the same function
    comes from CuPy, as ``cupyx.scipy.special.<gpu_name>``."""
    if _cupy is not None and isinstance(array, _cupy.ndarray):  # pragma: no cover - needs a GPU
        import cupyx.scipy.special   # (it gives float64 for float16: cast back)
        with numpy.errstate(all="ignore"):
            return getattr(cupyx.scipy.special, gpu_name)(array).astype(array.dtype, copy=False)
    ufunc = _PER_ELEMENT.get(scalar_fn)
    if ufunc is None:
        ufunc = _PER_ELEMENT[scalar_fn] = numpy.frompyfunc(scalar_fn, 1, 1)
    host = _host_view(array) if _CpuArray is not None and isinstance(array, _CpuArray) else array
    with numpy.errstate(all="ignore"):   # (an infinity is an answer here, e.g. lgamma at a pole)
        out = numpy.asarray(ufunc(host.astype(numpy.float64)), dtype=numpy.float64).astype(host.dtype, copy=False)
    return out if host is array else _CpuArray(out)


def erf(array):
    """The error function of each element, erf x = 2/sqrt(pi) * integral from 0 to x of e^(-t^2) dt, by
    Python's ``math.erf`` (see :func:`per_element`)."""
    return per_element(array, math.erf, "erf")


def raises_for_singular(array) -> bool:
    """Whether the array module's ``linalg`` raises LinAlgError for a singular (or not positive-definite) matrix:
    NumPy's does; CuPy's gives infinities or NaN instead."""
    return not (_cupy is not None and isinstance(array, _cupy.ndarray))


def eig(array):
    """``(eigenvalues, eigenvectors)`` of each square matrix by LAPACK's general solver (geev): complex (the
    matrix's complex dtype) even where every eigenvalue is real, each eigenvector of length 1. CuPy has no
    general eigensolver: there the matrices are solved on the host and the results moved back (PyTorch's GPU
    route also solves on the host). A matrix holding an infinity or NaN gives NaN (LAPACK refuses it).
    NumPy solves float32 matrices in float64 and rounds the results, so the order of nearly equal eigenvalues
    may differ from PyTorch's (which solves in float32)."""
    complex_dtype = numpy.result_type(array.dtype, numpy.complex64)
    on_gpu = _cupy is not None and isinstance(array, _cupy.ndarray)
    xp = numpy if on_gpu else xp_of(array)
    host = _cupy.asnumpy(array) if on_gpu else array
    bad = ~xp.isfinite(host).all(axis=(-2, -1))        # (LAPACK refuses infinities and NaN: NaN for those)
    if bool(bad.any()):
        host = xp.where(bad[..., None, None], xp.eye(host.shape[-1], dtype=host.dtype), host)
    w, v = xp.linalg.eig(host)
    nan = complex(numpy.nan, numpy.nan)
    w = xp.where(bad[..., None], nan, w).astype(complex_dtype, copy=False)
    v = xp.where(bad[..., None, None], nan, v).astype(complex_dtype, copy=False)
    return (_cupy.asarray(w), _cupy.asarray(v)) if on_gpu else (w, v)


def broadcast_to(array, shape):
    """``xp.broadcast_to(array, shape)``: a read-only view repeating ``array`` over ``shape``. For a
    contiguous NumPy array (the gradient of a sum, a bias's gradient expanded back) the view is made
    directly: stride 0 along each repeated axis, the array's own stride along the others. That takes
    about a tenth of ``numpy.broadcast_to``'s time, which handles the general case in Python. A NumPy
    scalar (what NumPy gives for arithmetic on 0-d arrays, e.g. ``g * c`` in the VJP of ``loss * c``) is
    taken as the 0-d array it stands for."""
    if type(array) is not numpy.ndarray and isinstance(array, numpy.generic):
        array = numpy.asarray(array)
    if type(array) is numpy.ndarray:
        lead = len(shape) - array.ndim
        if lead >= 0 and array.flags.c_contiguous:
            if array.shape == shape[lead:]:   # only new leading axes (a bias's gradient; a full sum's: 0-d)
                strides = (0,) * lead + array.strides
            else:
                strides = [0] * lead
                for n, m, s in zip(array.shape, shape[lead:], array.strides):
                    if n == m or n == 1:
                        strides.append(s if n == m else 0)
                    else:
                        strides = None   # not broadcastable: NumPy's own error below
                        break
            if strides is not None:
                view = numpy.ndarray(shape, array.dtype, array, 0, tuple(strides))
                view.flags.writeable = False
                return view
    return xp_of(array).broadcast_to(array, shape)


def arg_extreme(array, pick, axis=None, keepdims=False):
    """``array.argmax`` (``pick="argmax"``) or ``argmin`` along ``axis``: the first of ties and, where there
    are NaNs, the first NaN (NumPy's rule and PyTorch's). CuPy's parallel reduction may pick any of several
    NaNs, so off NumPy the first NaN is found separately."""
    index = getattr(array, pick)(axis=axis, keepdims=keepdims)
    if type(array) is numpy.ndarray or array.dtype.kind not in "fc":
        return index
    nan = xp_of(array).isnan(array)
    return xp_of(array).where(nan.any(axis=axis, keepdims=keepdims), nan.argmax(axis=axis, keepdims=keepdims), index)


def diagonal_view(array, offset, dim1, dim2):
    """The diagonal of ``array`` as a view that can be written where ``array`` can (NumPy hands out a read-only
    one; CuPy's is writable and has no such flag)."""
    view = xp_of(array).diagonal(array, offset, dim1, dim2)
    if not getattr(view.flags, "writeable", True) and writable(array):
        view.flags.writeable = True
    return view


def writable(array) -> bool:
    """Whether an in-place write into ``array`` is safe: not read-only (NumPy's flag: broadcast views,
    read-only memory) and no axis that repeats one element (a stride of 0, as ``expand`` makes: CuPy's
    views have no read-only flag, and a write there would race)."""
    if not getattr(getattr(array, "flags", None), "writeable", True):
        return False
    return array.size == 0 or all(step != 0 or n <= 1 for step, n in zip(array.strides, array.shape))


def shares_memory(a, b) -> bool:
    """True when arrays ``a`` and ``b`` may share memory (``reshape`` made a view, not a copy)."""
    if _CpuArray is not None and isinstance(a, _CpuArray):
        a, b = _host_view(a), (_host_view(b) if isinstance(b, _CpuArray) else b)
    return bool(xp_of(a).may_share_memory(a, b))


def data_ptr(a) -> int:
    """The address of array ``a``'s first element (NumPy's, or CuPy's device pointer)."""
    if _CpuArray is not None and isinstance(a, _CpuArray):
        a = _host_view(a)
    interface = getattr(a, "__array_interface__", None)
    return int(interface["data"][0]) if interface is not None else int(a.data.ptr)   # (CuPy: a MemoryPointer)


def overlap(a, b) -> bool:
    """True when arrays ``a`` and ``b`` may share memory, judged as PyTorch judges an operand of a write:
    only arrays that fill one block of memory (it calls other layouts, such as every other element, too
    hard to tell and lets them through; NumPy then computes as if the operand were a copy)."""
    if _CpuArray is not None and isinstance(a, _CpuArray):
        a, b = _host_view(a), (_host_view(b) if isinstance(b, _CpuArray) else b)
    return _dense(a) and _dense(b) and bool(xp_of(a).may_share_memory(a, b))


def partial_overlap(a, b) -> bool:
    """True when arrays ``a`` and ``b`` :func:`overlap` without being the same elements in the same layout
    (PyTorch refuses such an operand in an in-place op; the very same array is fine)."""
    return a is not b and overlap(a, b) and not same_elements(a, b)


def is_contiguous(array) -> bool:
    """Row-major and without gaps (what ``view`` can always reshape)."""
    return bool(array.flags.c_contiguous)


def same_elements(a, b) -> bool:
    """Whether ``a`` and ``b`` are the same elements in the same order: same shape, same start, and the
    same step along every axis longer than 1 (a reversed view is not; along an axis of size 1 NumPy may
    give one view a 0 step and another the row's, never stepped along either way)."""
    if _CpuArray is not None and isinstance(a, _CpuArray):
        a, b = _host_view(a), (_host_view(b) if isinstance(b, _CpuArray) else b)
    return a.shape == b.shape and _address(a) == _address(b) and all(
        sa == sb for sa, sb, n in zip(a.strides, b.strides, a.shape) if n != 1)


def _dense(array) -> bool:
    """Whether the elements fill one block of memory, each once, in some order of the axes (PyTorch's
    ``is_non_overlapping_and_dense``: a transposed matrix is, every other element is not)."""
    expected = array.itemsize
    for stride, n in sorted((s, n) for s, n in zip(array.strides, array.shape) if n != 1):
        if stride != expected:
            return False
        expected *= n
    return True


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


_default_device = as_device("cpu")
_from_environment()
