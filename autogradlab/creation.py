"""Factory functions (``zeros``, ``randn``, ...) with PyTorch's names and defaults.

Random numbers come from one seeded NumPy generator on the host (then moved to
the device), so ``manual_seed(0)`` gives the same values on CPU and GPU.
"""
from __future__ import annotations

import warnings

import numpy

from . import backend
from .tensor import DEFAULT_FLOAT, Tensor, _check_float, tensor

__all__ = ["zeros", "ones", "full", "zeros_like", "ones_like", "full_like", "rand", "randn", "randint",
           "arange", "linspace", "eye", "manual_seed", "randperm", "from_numpy", "as_tensor"]

_rng = numpy.random.default_rng(0)


def manual_seed(seed: int):
    """Seed the generator behind ``rand``, ``randn``, ``randint``, ``randperm`` and ``nn.init``."""
    global _rng
    _rng = numpy.random.default_rng(int(seed))
    return _rng


def generator():
    return _rng


def _sizes(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    return tuple(int(s) for s in size)


def _finish(host, dtype, device, requires_grad, name=None):
    device = backend.normalize_device(device)
    data = backend.asarray(host, device, dtype)
    t = Tensor._make(data, False, None, device)
    if requires_grad:
        _check_float(data.dtype)
        t._requires_grad = True
    t.name = name
    return t


def _float(dtype):
    return numpy.dtype(dtype) if dtype is not None else DEFAULT_FLOAT


def zeros(*size, dtype=None, device=None, requires_grad=False):
    return _finish(numpy.zeros(_sizes(size)), _float(dtype), device, requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False):
    return _finish(numpy.ones(_sizes(size)), _float(dtype), device, requires_grad)


def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    if dtype is None:
        dtype = numpy.dtype("int64") if isinstance(fill_value, (int, bool)) and not isinstance(fill_value, bool) \
            else numpy.dtype("bool") if isinstance(fill_value, bool) else DEFAULT_FLOAT
    return _finish(numpy.full(_sizes((size,)), fill_value), dtype, device, requires_grad)


def _like(t, fill, dtype, device, requires_grad, name):
    if not isinstance(t, Tensor):   # (as PyTorch: a number or list has no shape, dtype or device to copy)
        raise TypeError(f"{name}() expects a Tensor to take the shape, dtype and device of, but got "
                        f"{type(t).__name__} {t!r:.40}: wrap it with autogradlab.tensor(...), or use "
                        f"{name[:-5]}(size) for a given size")
    xp = backend.xp_for(t.device if device is None else backend.normalize_device(device))
    dev = t.device if device is None else backend.normalize_device(device)
    data = xp.empty(t.shape, dtype=t.dtype if dtype is None else numpy.dtype(dtype))
    data.fill(fill)   # (what numpy.full does, without its Python wrapper: half the time for a small seed)
    out = Tensor._make(data, False, None, dev)
    if requires_grad:
        _check_float(data.dtype)
        out._requires_grad = True
    return out


def zeros_like(t, dtype=None, device=None, requires_grad=False):
    return _like(t, 0, dtype, device, requires_grad, "zeros_like")


def ones_like(t, dtype=None, device=None, requires_grad=False):
    return _like(t, 1, dtype, device, requires_grad, "ones_like")


def full_like(t, fill_value, dtype=None, device=None, requires_grad=False):
    return _like(t, fill_value, dtype, device, requires_grad, "full_like")


def rand(*size, dtype=None, device=None, requires_grad=False):
    """Uniform on [0, 1)."""
    return _finish(_rng.random(_sizes(size)), _float(dtype), device, requires_grad)


def randn(*size, dtype=None, device=None, requires_grad=False):
    """Standard normal."""
    return _finish(_rng.standard_normal(_sizes(size)), _float(dtype), device, requires_grad)


def randint(low, high, size, dtype=None, device=None):
    return _finish(_rng.integers(low, high, size=tuple(size)), numpy.dtype(dtype or "int64"), device, False)


def randperm(n, device=None):
    return _finish(_rng.permutation(n), numpy.dtype("int64"), device, False)


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False):
    if end is None:
        start, end = 0, start
    host = numpy.arange(start, end, step)
    if dtype is None:
        dtype = numpy.dtype("int64") if all(isinstance(v, int) for v in (start, end, step)) else DEFAULT_FLOAT
    return _finish(host, dtype, device, requires_grad)


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False):
    return _finish(numpy.linspace(start, end, steps), _float(dtype), device, requires_grad)


def eye(n, m=None, dtype=None, device=None, requires_grad=False):
    return _finish(numpy.eye(n, m), _float(dtype), device, requires_grad)


def from_numpy(array) -> Tensor:
    """A CPU tensor that shares ``array``'s memory (no copy, as PyTorch's): a write to either shows in the
    other. (Writes through NumPy bypass the version counter that guards saved tensors: do not change an
    array in place while a graph that used it waits for its backward.)"""
    if not isinstance(array, numpy.ndarray):
        raise TypeError(f"from_numpy() expects a NumPy array, got {type(array).__name__}: use tensor(...) for a "
                        f"number or a list (it copies)")
    if array.dtype.kind not in "fiub" or array.dtype.itemsize > 8:
        raise TypeError(f"from_numpy(): unsupported dtype {array.dtype.name}; tensors hold floats (16 to 64 bits), "
                        f"integers or bools")
    if not array.dtype.isnative:
        raise ValueError(f"from_numpy(): the array's bytes are in the other byte order ({array.dtype.str}); "
                         f"convert it first: array.astype(array.dtype.newbyteorder('='))")
    if not array.flags.writeable:
        warnings.warn("from_numpy(): the NumPy array is not writable, and the tensor shares its memory, so an "
                      "in-place op on the tensor will raise. Pass array.copy() for a tensor you can change.",
                      UserWarning, stacklevel=2)
    return Tensor._make(backend.asarray(array, "cpu"), False, None, "cpu")


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """``data`` as a tensor, without a copy where none is needed: a Tensor already of ``dtype`` on ``device``
    comes back as it is (else converted, differentiably, as ``data.to(...)``); a NumPy array of ``dtype``, for
    the CPU, is shared as :func:`from_numpy` shares it; anything else is copied, as by :func:`tensor`."""
    if isinstance(data, Tensor):
        out = data if dtype is None else data.to(numpy.dtype(dtype))
        return out if device is None else out.to(backend.normalize_device(device))
    if (isinstance(data, numpy.ndarray) and (dtype is None or numpy.dtype(dtype) == data.dtype)
            and backend.normalize_device(device) == "cpu"):
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)
