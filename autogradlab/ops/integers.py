"""Integer and bit-level functions with PyTorch's names: ``gcd``, ``lcm``, ``bitwise_left_shift``,
``bitwise_right_shift`` (``<<``, ``>>``), ``frexp``, ``nextafter``. None is differentiable: each is a step
function of its input (a gradient of 0 almost everywhere), so their results require no grad (PyTorch's
``nextafter`` of a float tensor that requires grad is marked as requiring grad, with no usable gradient);
``frexp``'s mantissa excepted, which has PyTorch's derivative: ``x = m 2^e`` with ``e`` a step function, so
``da = g 2^-e``."""
from __future__ import annotations

import numbers

import numpy

from ..backend import xp_of
from ..tensor import Tensor
from ..return_types import return_type
from .elementwise import _binary, as_tensor_like, promote, to_dtype
from .registry import apply_one, defop, expect_tensor

__all__ = ["gcd", "lcm", "bitwise_left_shift", "bitwise_right_shift", "frexp", "nextafter"]

FrexpResult = return_type("frexp", ["mantissa", "exponent"])


def _shift_forward(left):
    def forward(xp, a, b):
        # (NumPy refuses shifts by a negative count and wraps counts past the width; PyTorch gives 0 there, or -1
        # for a negative number shifted right)
        width = a.dtype.itemsize * 8
        count = xp.clip(b, 0, width - 1)
        if left:
            out = xp.left_shift(a, count.astype(a.dtype))
            return xp.where((b < 0) | (b >= width), xp.zeros_like(out), out)
        out = xp.right_shift(a, count.astype(a.dtype))
        return xp.where((b < 0) | (b >= width), xp.where(a < 0, -1, 0).astype(a.dtype), out)
    return forward


GCD = defop("gcd", ("self", "other"), forward=lambda xp, a, b: xp.gcd(a, b), vjp=None,
            math="the greatest common divisor of |a| and |b| (0 for two zeros)")
LCM = defop("lcm", ("self", "other"), forward=lambda xp, a, b: xp.lcm(a, b), vjp=None,
            math="the least common multiple of |a| and |b| (0 if either is 0)")
LEFT_SHIFT = defop("bitwise_left_shift", ("self", "other"), forward=_shift_forward(True), vjp=None, math="a << b")
RIGHT_SHIFT = defop("bitwise_right_shift", ("self", "other"), forward=_shift_forward(False), vjp=None,
                    math="a >> b (arithmetic: the sign stays)")
NEXTAFTER = defop("nextafter", ("self", "other"), forward=lambda xp, a, b: xp.nextafter(a, b), vjp=None,
                  math="the next representable number after a towards b")


def _integer_pair(name, op, input, other):
    expect_tensor(input, name)
    a, b = promote(input, other)
    if a.dtype.kind not in "iu" or b.dtype.kind not in "iu":
        kind = a.dtype.name if a.dtype.kind not in "iu" else b.dtype.name
        raise NotImplementedError(f"{name}: not implemented for {kind} (as in PyTorch): it takes integer "
                                  f"tensors; convert first, e.g. x.long()")
    return _binary(op)(a, b)


def gcd(input, other):
    """The greatest common divisor of each pair of integers, ``gcd(12, 18) = 6`` (``gcd(0, 0) = 0``)."""
    return _integer_pair("gcd", GCD, input, other)


def lcm(input, other):
    """The least common multiple of each pair of integers, ``lcm(4, 6) = 12`` (0 when either is 0)."""
    return _integer_pair("lcm", LCM, input, other)


def _shift(name, op, input, other):
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError(f"{name}: expected a Tensor, got {type(input).__name__} and {type(other).__name__}")
    if isinstance(input, numbers.Number) and not isinstance(input, bool):   # (2 << t: the number as a tensor)
        input = as_tensor_like(input, other)
    a, b = promote(input, other)
    if a.dtype != b.dtype:   # (two tensors of different integer types: PyTorch's common type, int32 and int64 give int64)
        common = numpy.result_type(a.dtype, b.dtype)
        a, b = to_dtype(a, common), to_dtype(b, common)
    if a.dtype.kind not in "iu":
        raise NotImplementedError(f"{name}: not implemented for {a.dtype.name} (as in PyTorch): shifts take "
                                  f"integer tensors")
    return _binary(op)(a, b)


def bitwise_left_shift(input, other):
    """``input << other``: each integer's bits moved left (``x * 2**other`` while it fits)."""
    return _shift("bitwise_left_shift", LEFT_SHIFT, input, other)


def bitwise_right_shift(input, other):
    """``input >> other``: each integer's bits moved right, the sign kept (``floor(x / 2**other)``)."""
    return _shift("bitwise_right_shift", RIGHT_SHIFT, input, other)


def nextafter(input, other):
    """The floating-point number next to ``input`` in the direction of ``other`` (``input`` where they are equal)."""
    expect_tensor(input, "nextafter")
    a, b = promote(input, other)
    if a.dtype.kind != "f":
        raise NotImplementedError(f"nextafter: not implemented for {a.dtype.name} (as in PyTorch): it takes "
                                  f"floating tensors")
    return _binary(NEXTAFTER)(a, b)


def _frexp_mantissa_vjp(g, ctx):
    x = ctx.self._data if isinstance(ctx.self, Tensor) else ctx.self
    xp = xp_of(x)
    scale = xp.exp2(xp.frexp(x)[1].astype(x.dtype))   # (2^e, exact: a power of two)
    return (g / scale,)


FREXP_MANTISSA = defop("frexp_mantissa", ("self",), save=("self",), forward=lambda xp, a: xp.frexp(a)[0],
                       vjp=_frexp_mantissa_vjp, math="m with a = m 2^e, 0.5 <= |m| < 1;  da = g 2^-e",
                       formulas=("2^-e",))


def frexp(input):
    """``(mantissa, exponent)`` with ``input = mantissa * 2**exponent``, ``0.5 <= |mantissa| < 1`` (0 and
    0 for 0; inf and NaN keep themselves with exponent 0). The exponent is int32, as in PyTorch; the mantissa's
    gradient is ``g * 2**-exponent``."""
    expect_tensor(input, "frexp")
    if input.dtype.kind != "f":
        raise RuntimeError(f"torch.frexp() only supports floating-point dtypes, got {input.dtype.name}")
    exponent = xp_of(input._data).frexp(input._data)[1].astype(numpy.int32)
    return FrexpResult(apply_one(FREXP_MANTISSA, input), Tensor._make(exponent, False, None, input.device))
