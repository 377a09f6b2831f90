"""PyTorch's questions about dtypes: the default float dtype, a dtype's limits (``finfo``, ``iinfo``), and how
dtypes combine (``promote_types``, ``can_cast``). A dtype here is a NumPy dtype (``autogradlab.float32`` is
``numpy.dtype("float32")``), so ``finfo`` and ``iinfo`` are NumPy's, whose ``eps``, ``max``, ``min``, ``tiny``
and ``bits`` mean what PyTorch's do."""
from __future__ import annotations

import numpy

from . import tensor as _tensor
from .tensor import _CATEGORY, FLOAT_DTYPES, Tensor, _promoted, default_float

__all__ = ["get_default_dtype", "set_default_dtype", "is_floating_point", "finfo", "iinfo", "promote_types", "can_cast",
           "layout", "strided"]


class layout:
    """How a tensor's elements lie in memory. Here every tensor is dense, as a NumPy array: its layout is
    ``strided``, PyTorch's default (``t.layout == autogradlab.strided``; ``t.is_sparse`` is False)."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"autogradlab.{self.name}"

    def __reduce__(self):
        return self.name   # (a pickled layout is the module's one object)


strided = layout("strided")


def get_default_dtype() -> numpy.dtype:
    """The dtype of floats made without a dtype (``tensor([1.5])``, ``randn(3)``, a layer's parameters):
    float32, as in PyTorch, unless ``set_default_dtype`` changed it."""
    return default_float()


def set_default_dtype(d) -> None:
    """Make ``d`` (float16, float32 or float64) the dtype of every float made without a dtype from now on:
    Python floats, ``zeros``/``randn``/``arange(0., 1.)``, new layers' parameters, an integer tensor divided.
    Tensors already made keep theirs; a NumPy array keeps its own; ``float32_tensor * 2.5`` stays float32."""
    if not (isinstance(d, numpy.dtype) or isinstance(d, type) and issubclass(d, numpy.generic)) \
            or numpy.dtype(d) not in FLOAT_DTYPES:   # (a dtype, not a name or Python's float, as PyTorch)
        raise TypeError(f"set_default_dtype(): only floating-point types are supported as the default type, "
                        f"got {d!r}; pass autogradlab.float64 (or float32, float16)")
    _tensor._DEFAULT_FLOAT[0] = numpy.dtype(d)


def is_floating_point(input) -> bool:
    """True for a tensor of a floating-point dtype (float16, float32, float64)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"is_floating_point(): argument 'input' must be Tensor, not {type(input).__name__}")
    return input.dtype.kind == "f"


class finfo:
    """The limits of a float dtype (default: float32), as Python floats as PyTorch gives them:
    ``finfo(float32).eps`` is 2**-23; also ``bits``, ``max``, ``min``, ``tiny`` (= ``smallest_normal``),
    ``resolution`` and ``dtype`` (its name)."""

    def __init__(self, type=None):
        dtype = numpy.dtype(default_float() if type is None else type)
        if dtype.kind != "f":
            raise TypeError(f"finfo() takes a floating-point dtype, got {dtype}; for integers use iinfo({dtype})")
        info = numpy.finfo(dtype)
        self.bits, self.dtype = int(info.bits), dtype.name
        self.eps, self.max, self.min = float(info.eps), float(info.max), float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


def iinfo(type) -> numpy.iinfo:
    """The limits of an integer dtype: ``iinfo(int64).max`` is 2**63 - 1."""
    dtype = numpy.dtype(type)
    if dtype.kind not in "iu":
        raise TypeError(f"iinfo() takes an integer dtype, got {dtype}; for floats use finfo({dtype})")
    return numpy.iinfo(dtype)


def promote_types(type1, type2) -> numpy.dtype:
    """The dtype an op on tensors of these two dtypes gives: the higher category (bool < integer < float)
    wins; within one category the wider dtype (``int32`` and ``float16`` give float16, as PyTorch)."""
    return _promoted({numpy.dtype(type1), numpy.dtype(type2)})


def can_cast(from_, to) -> bool:
    """Whether PyTorch's ops cast ``from_`` to ``to`` on their own: never to a lower category (float to
    integer, integer to bool); within a category always (float64 to float32 too)."""
    return _CATEGORY[numpy.dtype(from_).kind] <= _CATEGORY[numpy.dtype(to).kind]
