"""Elementwise ops. Each entry: forward on arrays, then its vector-Jacobian product.

``g`` is the gradient flowing in (same shape as the output); ``ctx`` reads
back what the op saved (``ctx.self``, ``ctx.other``, ``ctx.result``) and the
op's parameters. A VJP returns one gradient per input, in the output's
(broadcast) shape: :meth:`Node.apply` sums it back to the input's shape.
"""
from __future__ import annotations

import functools
import math
import numbers
import warnings

import numpy

from ..backend import asarray, erf as _erf_array, to_host, xp_of
from ..grad_mode import no_grad, state
from ..graph import _SHARED_CONSTANTS, OpNode, forget_constants, share_constant
from ..tensor import (_CATEGORY, Tensor, _promoted, complex_of, default_complex, default_float,   # (PyTorch's)
                      integer_values)
from .registry import (apply, apply_binary, apply_one, apply_unary, defop, holomorphic, not_a_tensor, on_arrays,
                       set_conjugate)


# -- coercion of Python numbers and mixed dtypes (PyTorch's rules) ----------------------

def number_dtype(value, dtype):
    """The dtype a Python number takes next to a tensor of ``dtype`` (PyTorch's rules).

    The tensor's dtype (``float32_tensor * 2.0`` stays float32), except that a float
    number with an int or bool tensor gives float32 (PyTorch's default dtype), an
    int number with a bool tensor gives int64, and a complex number with a real tensor
    the complex dtype of its width.
    """
    kind = dtype.kind
    if isinstance(value, _COMPLEX_NUMBERS):   # 1j next to float64 is complex128; next to an integer, complex64
        return dtype if kind == "c" else complex_of(dtype) if kind == "f" else default_complex()
    if kind in "fc" or type(value) is bool:
        return dtype
    if isinstance(value, float):
        return default_float()
    return numpy.dtype("int64") if kind == "b" else dtype


_COMPLEX_NUMBERS = (complex, numpy.complexfloating)   # (a Python complex, NumPy's complex64 and complex128)
_CONSTANTS: dict = {}   # number -> its read-only 0-d NumPy array (of the dtype it was last asked in), shared
_DEVICE_CONSTANTS: dict = {}   # (number, device) -> the same off NumPy (a GPU's, the strict backend's)


def constant(value, like: Tensor, dtype=None):
    """A Python number operand as a *constant*: a 0-d array of :func:`number_dtype` on ``like``'s device.

    Ops take it as it is (no Tensor, no edge in the graph: nothing flows back to a number),
    and a VJP that needs it reads it back like a saved parameter. The array of a number is made
    once per device and shared (``h * 0.999`` in a loop makes one; on a GPU, making one takes longer
    than the product it is for); the nodes that save it share one saved value of it too
    (``graph.save_constant``). On the CPU it is read-only; a GPU's array has no such flag, and
    nothing writes into a constant (on the CPU any such write would raise).
    """
    data = like._data
    dtype = _constant_dtype(value, data.dtype) if dtype is None else dtype
    on_numpy = type(data) is numpy.ndarray
    cache, key = (_CONSTANTS, value) if on_numpy else (_DEVICE_CONSTANTS, (value, like.device))
    old = cache.get(key)
    if old is not None and old.dtype == dtype:
        return old
    number = _wrapped(value, dtype)
    new = numpy.array(number, dtype) if on_numpy else asarray(number, like.device, dtype)
    if value:   # (0.0 == -0.0 as a key: zeros are made each time; a NaN key matches only its own float object)
        if len(cache) >= 1024:   # a program making ever new numbers: start again
            cache.clear()
            forget_constants()
        if on_numpy:
            new.flags.writeable = False
        cache[key] = new
        share_constant(new, old)
    return new


def _constant_dtype(value, dtype):
    """:func:`number_dtype`, answered at once for the commonest case: a real number next to a float tensor."""
    return dtype if dtype.kind == "f" and not isinstance(value, _COMPLEX_NUMBERS) else number_dtype(value, dtype)


def _wrapped(value, dtype):
    """A Python int as an integer ``dtype`` holds it: one out of its range wraps around, as in PyTorch (NumPy 2
    refuses to make such an array)."""
    if dtype.kind in "iu" and type(value) is int:
        info = numpy.iinfo(dtype)
        if not info.min <= value <= info.max:
            return int(numpy.array(value, numpy.int64).astype(dtype))
    return value


def _fresh_constant(value, like: Tensor):
    """:func:`constant`, but a new writable array (for a constant wrapped as a Tensor)."""
    dtype = _constant_dtype(value, like._data.dtype)
    return asarray(_wrapped(value, dtype), like.device, dtype)


def as_tensor_like(value, like: Tensor) -> Tensor:
    """A constant Tensor for a number or array operand, on ``like``'s device (numbers as :func:`constant`)."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (int, float, complex)):
        return Tensor._make(_fresh_constant(value, like), False, None, like.device)
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        if numpy.dtype(value.dtype).kind not in _CATEGORY:   # (before it is copied: CuPy takes no such array)
            raise TypeError(f"unsupported operand dtype {numpy.dtype(value.dtype).name}: tensors hold bool, integer "
                            f"or floating point numbers (convert an object or string array first)")
        return Tensor._make(asarray(value, like.device), False, None, like.device)
    raise TypeError(f"unsupported operand type {type(value).__name__}: use a Tensor or a number")




def promote(a, b):
    """Coerce two operands, at least one a Tensor: a Python number becomes a :func:`constant`, an
    array a constant Tensor. Then PyTorch's rule: of operands in the same category (bool, integer,
    float), a dimensioned one's dtype wins over a 0-d one's (``float32[3] * float64[]`` is float32);
    where an int/bool operand meets a float one, it is cast to that float dtype."""
    if not isinstance(b, Tensor):
        b = constant(b, a) if isinstance(b, (int, float, complex)) else as_tensor_like(b, a)
    elif not isinstance(a, Tensor):
        a = constant(a, b) if isinstance(a, (int, float, complex)) else as_tensor_like(a, b)
    da, db = a.dtype, b.dtype
    if da is db or da == db:
        return a, b
    if da.kind not in _CATEGORY or db.kind not in _CATEGORY:
        raise TypeError(f"unsupported operand dtypes {da.name} and {db.name}: tensors hold bool, integer or "
                        f"floating point numbers (convert an object or string array first)")
    if _CATEGORY[da.kind] == _CATEGORY[db.kind]:
        a_scalar, b_scalar = a.ndim == 0, b.ndim == 0
        if a_scalar and not b_scalar:
            a = _cast(a, db)
        elif b_scalar and not a_scalar:
            b = _cast(b, da)
        return a, b   # (both 0-d or both dimensioned: the array library promotes, as PyTorch does)
    if "c" in (da.kind, db.kind):   # (PyTorch's rule for a complex operand: result_type's)
        dtype = result_type(a, b)
        return (a if da == dtype else _cast(a, dtype)), (b if db == dtype else _cast(b, dtype))
    if da.kind == "f":
        b = _cast(b, da)
    elif db.kind == "f":
        a = _cast(a, db)
    return a, b


def promote_float(a, b):
    """:func:`promote` for an op that computes in floats (``/``, ``atan2``, ``xlogy``...): where neither operand
    holds floats, each goes to the default float dtype on its own first, so a number keeps its value
    (``uint8 / -3`` divides by -3, not by the 253 that -3 becomes as a uint8, as in PyTorch)."""
    def floating(x):
        return isinstance(x, (float, complex)) or getattr(getattr(x, "dtype", None), "kind", "") in ("f", "c")
    if not floating(a) and not floating(b):
        a, b = ((_cast(x, default_float()) if hasattr(x, "dtype") else float(x)) for x in (a, b))
    return promote(a, b)


_FLOAT16, _FLOAT32 = numpy.dtype("float16"), numpy.dtype("float32")


def _float16_by_number(op, tensor, number):
    """A float16 tensor times (or over) a Python number, as PyTorch's CPU kernels compute it: the number as a
    float32 constant (not rounded to float16 first), the product in float32, rounded to float16 once (the op's
    ``float16`` parameter). Rounding the number first changed the last bit of a third of ``x * 0.1``."""
    return apply(op, (tensor, constant(number, tensor, _FLOAT32)), {"float16": True})


def _cast(operand, dtype):
    return to_dtype(operand, dtype) if isinstance(operand, Tensor) else operand.astype(dtype)


def _binary(op, float16_numbers=False):
    """The public function of a binary op. ``float16_numbers`` (mul): a float16 tensor and a number as
    :func:`_float16_by_number` computes them."""
    def fn(input, other):
        if type(input) is Tensor:  # the common cases need no coercion
            data = input._data
            if type(other) is Tensor and data.dtype is other._data.dtype:
                return apply_binary(op, input, other)
            # x * 0.5: 0.5 takes x's dtype (but float16 times a number computes in float32: _float16_by_number)
            if type(other) is float and (dtype := data.dtype).kind == "f":
                if float16_numbers and dtype is _FLOAT16:
                    return _float16_by_number(op, input, other)
                shared = _CONSTANTS.get(other)   # (constant(other, input), its first lines inline)
                if shared is not None and shared.dtype is dtype and type(data) is numpy.ndarray:
                    return apply_binary(op, input, shared)
                return apply(op, (input, constant(other, input)))
            if type(other) is numpy.ndarray and other.dtype is data.dtype and type(data) is numpy.ndarray:
                shared = _SHARED_CONSTANTS.get(id(other))   # a number's shared array, read back by a VJP
                if shared is not None and shared[1] is other:   # under create_graph (any other array: promote)
                    return apply_binary(op, input, other)
        if not isinstance(input, Tensor) and not isinstance(other, Tensor):
            return on_arrays(op, (input, other))  # inside a VJP on arrays
        if float16_numbers and type(other) in (int, float) and isinstance(input, Tensor) \
                and input._data.dtype is _FLOAT16:   # (an int number, or a Tensor subclass: nn.Parameter)
            return _float16_by_number(op, input, other)
        if float16_numbers and type(input) in (int, float) and other._data.dtype is _FLOAT16:   # (0.1 * x)
            return _float16_by_number(op, other, input)
        return apply(op, promote(input, other))
    fn.__name__ = op.name
    fn.__doc__ = op.__doc__
    return fn


def _unary(op):
    def fn(input):
        if type(input) is Tensor:
            return apply_unary(op, input)
        # (an array: inside a VJP)
        return on_arrays(op, (input,)) if type(input) is numpy.ndarray else apply(op, (input,))
    fn.__name__ = op.name
    fn.__doc__ = op.__doc__
    return fn


def _floating_unary(op):
    """A unary op whose result is a float whatever the input (exp, log, sqrt, sin, cos, tanh, sigmoid):
    as in PyTorch, an int or bool tensor is computed in the default float dtype (float32)."""
    def fn(input):
        if type(input) is Tensor and input._data.dtype.kind == "f":
            return apply_unary(op, input)
        if type(input) is numpy.ndarray:   # inside a VJP that runs on arrays
            return on_arrays(op, (input,))
        if isinstance(input, Tensor) and input.dtype.kind in "biu":
            input = to_dtype(input, default_float())
        elif isinstance(input, Tensor) and input.dtype.kind == "c" and op.complex_op is None:
            raise NotImplementedError(f"{op.name} is not supported for complex tensors in autogradlab (the complex "
                                      f"functions that are: exp, log, sqrt, sin, cos, tan, tanh, sigmoid and kin)")
        return apply(op, (input,))
    fn.__name__ = op.name
    fn.__doc__ = op.__doc__
    return fn


# -- complex numbers: conjugation, and the VJP of a holomorphic op ----------------------

CONJ = defop("conj", ("self",), math="conj a (x - iy for a = x + iy);  da = conj(g)",
             forward=lambda xp, a: xp.conj(a),   # (no local factor: the gradient itself is conjugated)
             vjp=lambda g, ctx: (conj(g),), complex_vjp="same")


def conj(a):
    """The complex conjugate ``x - iy`` of ``a = x + iy``; a real tensor (or array) is its own, returned as it is."""
    if a.dtype.kind != "c":
        return a
    return apply_one(CONJ, a)


set_conjugate(conj)   # (what a holomorphic op's complex VJP conjugates with: see registry.holomorphic)

# the parts of z = x + iy are views of it (as NumPy's and PyTorch's); a real gradient g comes back as g (for x)
# or as i*g (for y): a real loss's gradient is dL/dx + i dL/dy
REAL = defop("real", ("self",), math="Re a;  da = g (x for a = x + iy)",
             forward=lambda xp, a: a.real, view=True,
             vjp=lambda g, ctx: (g,), complex_vjp="same", formulas=("1",))

IMAG = defop("imag", ("self",), math="Im a;  da = i*g (y for a = x + iy)",
             forward=lambda xp, a: a.imag, view=True,
             vjp=lambda g, ctx: (g * 1j,), complex_vjp="same", formulas=("i",))


def _angle_vjp(g, ctx):
    z = ctx.self
    r2 = z.real * z.real + z.imag * z.imag if not isinstance(z, Tensor) else real(z) ** 2 + imag(z) ** 2
    return (g * (z * 1j) / where(r2 == 0, 1.0, r2),)


def _angle_forward(xp, a):
    if a.dtype.kind == "c":
        return xp.angle(a).astype(a.real.dtype)
    return xp.where(a < 0, numpy.pi, xp.where(a != a, a, 0)).astype(a.dtype)   # (-0.0 is 0 and NaN NaN, as PyTorch)


ANGLE = defop("angle", ("self",), save=("self",),
              math="arg a;  da = g*i*a/|a|^2, 0 at 0 (arg a = atan2(y, x) for a = x + iy)",
              forward=_angle_forward, complex_vjp=_angle_vjp,
              vjp=lambda g, ctx: (zeros_gradient(g),), formulas=("i*a/|a|^2",))


def real(a):
    """The real part ``x`` of ``a = x + iy``, a view of ``a``; a real tensor is returned as it is."""
    if a.dtype.kind != "c":
        return a
    return apply_one(REAL, a)


def imag(a):
    """The imaginary part ``y`` of ``a = x + iy``, a view of ``a`` (a real tensor has none: an error)."""
    if a.dtype.kind != "c":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes: a real tensor's "
                           "imaginary part is 0 (use zeros_like(t)), or make it complex first (t * (1 + 0j))")
    return apply_one(IMAG, a)


def angle(a):
    """The argument of each element: ``atan2(y, x)`` for complex ``a``; for a real ``a``, pi where it is
    negative and 0 elsewhere (a float tensor), as PyTorch's ``angle``."""
    if a.dtype.kind in "biu":
        a = to_dtype(a, default_float())
    return apply_one(ANGLE, a)



# -- arithmetic ------------------------------------------------------------------------

ADD = defop("add", ("self", "other"), math="a + b;  da = g, db = g",
            forward=lambda xp, a, b: a + b,
            vjp=lambda g, ctx: (g, g), complex_vjp="same",
            formulas=("1", "1"))

SUB = defop("sub", ("self", "other"), math="a - b;  da = g, db = -g",
            forward=lambda xp, a, b: a - b,
            vjp=lambda g, ctx: (g, -g if ctx.needs_input_grad[1] else None), complex_vjp="same",
            formulas=("1", "-1"))

def _mul_vjp(g, ctx):
    need_a, need_b = ctx.needs_input_grad   # (read once: the backward's most common VJP)
    a = ctx.self if need_b else None
    b = ctx.other if need_a else None
    if a is b and a is not None:   # a * a: one product, sent to both (the engine adds them: one op fewer)
        ga = g * a
        return ga, ga
    return g * b if need_a else None, g * a if need_b else None


MUL = defop("mul", ("self", "other"), save=("self", "other"), save_if={"self": 1, "other": 0},
            math="a * b;  da = g*b, db = g*a",
            forward=lambda xp, a, b, float16=False: (a * b).astype(_FLOAT16) if float16 else a * b,
            vjp=_mul_vjp, complex_vjp="holomorphic",
            formulas=("b", "a"))

def _div_vjp(g, ctx):
    b = ctx.other   # db as (a/b)/b, not a/(b*b): b*b overflows for |b| > 1e154 (PyTorch's order too)
    return (g / b if ctx.needs_input_grad[0] else None,
            -g * (ctx.self / b / b) if ctx.needs_input_grad[1] else None)


DIV = defop("div", ("self", "other"), save=("self", "other"), save_if={"self": 1},
            math="a / b;  da = g/b, db = -g*(a/b)/b",
            forward=lambda xp, a, b, float16=False: (a / b).astype(_FLOAT16) if float16 else a / b,
            vjp=_div_vjp, complex_vjp="holomorphic",
            formulas=("1/b", "-a/b^2"))


# floor division and its remainder round toward -inf (Python's and PyTorch's rule): 7 // -2 == -4, 7 % -2 == -1

def _remainder_forward(xp, a, b):
    r = xp.fmod(a, b)   # the sign of a; then moved by b where the signs differ, as PyTorch computes it (so a
    return xp.where((r != 0) & ((r < 0) != (b < 0)), r + b, r)   # zero keeps a's sign: -4.0 % 2 is -0.0)


def _remainder_vjp(g, ctx):
    need_a, need_b = ctx.needs_input_grad
    if not need_b:
        return g, None
    quotient = (div_floor(ctx.self, ctx.other) if isinstance(g, Tensor)   # (recorded: flat, but connected to a
                else xp_of(g).floor_divide(ctx.self, ctx.other))           # and b, as PyTorch's div(floor))
    return (g if need_a else None), -g * quotient


REMAINDER = defop("remainder", ("self", "other"), save=("self", "other"), save_if={"self": 1, "other": 1},
                  math="a - b*floor(a/b);  da = g, db = -g*floor(a/b)",
                  forward=_remainder_forward, vjp=_remainder_vjp, formulas=("1", "-floor(a/b)"))

# floor(a / b) as PyTorch's div(a, b, rounding_mode="floor"): differentiable, with derivative 0 (what remainder's
# recorded backward is made of; ``a // b`` itself is not differentiable, as PyTorch's floor_divide has none)
def _div_floor_forward(xp, a, b):
    with numpy.errstate(divide="ignore", invalid="ignore"):
        return xp.floor_divide(a, b)


DIV_FLOOR = defop("div_floor", ("self", "other"), math="floor(a / b);  da = 0, db = 0",
                  forward=_div_floor_forward,
                  vjp=lambda g, ctx: (zeros_gradient(g), zeros_gradient(g)), formulas=("0", "0"))


def _div_trunc_forward(xp, a, b):
    with numpy.errstate(divide="ignore", invalid="ignore"):
        return xp.trunc(a / b)


# trunc(a / b), PyTorch's div(a, b, rounding_mode="trunc") of floats: derivative 0, also where b = 0
DIV_TRUNC = defop("div_trunc", ("self", "other"), math="trunc(a / b);  da = 0, db = 0",
                  forward=_div_trunc_forward,
                  vjp=lambda g, ctx: (zeros_gradient(g), zeros_gradient(g)), formulas=("0", "0"))


def _pow_vjp(g, ctx):
    # PyTorch's conventions at the edges: da = 0 where b = 0 (even at a = 0, where
    # b*a^(b-1) would be 0*inf), and db = 0 where a = 0 and b >= 0 (a^b*log(a) would be 0*-inf).
    a, b = ctx.self, ctx.other
    da = db = None
    if ctx.needs_input_grad[0]:
        if isinstance(g, Tensor) and not isinstance(b, Tensor):   # recording, and b a number: decide on its value
            da = g * b * a ** (b - 1) if b != 0 else zeros_gradient(g)
        else:   # (a ** 0 is flat, also at inf and NaN)
            da = where(b == 0, 0.0, g * b * a ** where(b == 0, 1.0, b - 1))
    if ctx.needs_input_grad[1]:
        db = g * ctx.result * log(where((a == 0) * (b >= 0), 1.0, a))
    return da, db


def _pow_forward(xp, a, b):
    """``a ** b``; integers to negative integer powers as PyTorch computes them (NumPy refuses them, CuPy
    computes garbage): 1 for a base of 1, +-1 for -1 by the exponent's parity, else 0."""
    if a.dtype.kind in "biu" and b.dtype.kind == "i":
        negative = b < 0
        return xp.where(negative, xp.where(a == 1, 1, xp.where(a == -1, 1 - 2 * (b % 2), 0)).astype(a.dtype),
                        a ** xp.where(negative, 0, b))
    return a ** b


def _pow_complex_vjp(g, ctx):
    """PyTorch's complex pow: da = g*conj(b*a^(b-1)) (0 where b = 0), db = g*conj(a^b*log(a)) (0 where a = 0 and
    b is real and >= 0)."""
    a, b = ctx.self, ctx.other
    da = db = None
    if ctx.needs_input_grad[0]:
        da = g * conj(where(b == 0, 0.0, b * a ** where(b == 0, 1.0, b - 1)))
    if ctx.needs_input_grad[1]:
        bb = b._data if isinstance(b, Tensor) else b   # (a mask: nothing to record)
        flat = (a == 0) * (b == 0) if bb.dtype.kind != "c" else (a == 0) * ((bb.imag == 0) & (bb.real >= 0))
        db = g * conj(ctx.result * log(where(flat, 1.0, a)))
    return da, db


POW = defop("pow", ("self", "other"), save=("self", "other", "result"), save_if={"result": 1},
            math="a ** b;  da = g*b*a^(b-1), db = g*a^b*log(a)",
            forward=_pow_forward,
            vjp=_pow_vjp, complex_vjp=_pow_complex_vjp,
            formulas=("b*a^(b-1)", "a^b*log(a)"), complex_formulas=("conj(b*a^(b-1))", "conj(a^b*log(a))"))

RECIPROCAL = defop("reciprocal", ("self",), save=("result",), math="y = 1/a;  da = -g*y^2",
                   forward=lambda xp, a: xp.reciprocal(a),
                   vjp=lambda g, ctx: (-g * (ctx.result * ctx.result),),   # (PyTorch's order: y*y first)
                   complex_vjp="holomorphic", formulas=("-1/a^2",))

NEG = defop("neg", ("self",), math="-a;  da = -g",
            forward=lambda xp, a: -a,
            vjp=lambda g, ctx: (-g,), complex_vjp="same",
            formulas=("-1",))

# -- transcendental and activation functions -------------------------------------------

EXP = defop("exp", ("self",), save=("result",), math="e^a;  da = g*e^a",
            forward=lambda xp, a: xp.exp(a),
            vjp=lambda g, ctx: (g * ctx.result,),
            complex_vjp="holomorphic", formulas=("exp(a)",))

LOG = defop("log", ("self",), save=("self",), math="ln a;  da = g/a",
            forward=lambda xp, a: xp.log(a),
            vjp=lambda g, ctx: (g / ctx.self,),
            complex_vjp="holomorphic", formulas=("1/a",))

LOG1P = defop("log1p", ("self",), save=("self",), math="ln(1 + a);  da = g/(1 + a)",
              forward=lambda xp, a: xp.log1p(a),   # (exact near 0, where log(1 + a) loses a's digits)
              vjp=lambda g, ctx: (g / (ctx.self + _one_like(ctx.self)),),
              complex_vjp="holomorphic", formulas=("1/(1 + a)",))

EXPM1 = defop("expm1", ("self",), save=("result",), math="y = e^a - 1;  da = g*(y + 1)",
              forward=lambda xp, a: xp.expm1(a),   # (exact near 0, where exp(a) - 1 loses a's digits)
              vjp=lambda g, ctx: (g * (ctx.result + _one_like(ctx.result)),),
              complex_vjp="holomorphic", formulas=("exp(a)",))

ERF = defop("erf", ("self",), save=("self",),
            math="erf a = 2/sqrt(pi) * integral of e^(-t^2) from 0 to a;  da = g*2/sqrt(pi)*e^(-a^2)",
            forward=lambda xp, a: _erf_array(a),
            vjp=lambda g, ctx: (exp(-(ctx.self * ctx.self)) * 1.1283791670955126 * g,),   # 2/sqrt(pi)
            formulas=("2/sqrt(pi)*exp(-a^2)",))

LOG2 = defop("log2", ("self",), save=("self",), math="log_2 a;  da = g/(a*ln 2)",
             forward=lambda xp, a: xp.log2(a),
             vjp=lambda g, ctx: (g / (ctx.self * 0.6931471805599453),),
             complex_vjp="holomorphic", formulas=("1/(a*ln 2)",))

LOG10 = defop("log10", ("self",), save=("self",), math="log_10 a;  da = g/(a*ln 10)",
              forward=lambda xp, a: xp.log10(a),
              vjp=lambda g, ctx: (g / (ctx.self * 2.302585092994046),),
              complex_vjp="holomorphic", formulas=("1/(a*ln 10)",))

EXP2 = defop("exp2", ("self",), save=("result",), math="y = 2^a;  da = g*y*ln 2",
             forward=lambda xp, a: xp.exp2(a),
             vjp=lambda g, ctx: (g * ctx.result * 0.6931471805599453,),
             complex_vjp="holomorphic", formulas=("2^a*ln 2",))

SQRT = defop("sqrt", ("self",), save=("result",), math="sqrt(a);  da = g/(2*sqrt(a))",
             forward=lambda xp, a: xp.sqrt(a),
             vjp=lambda g, ctx: (g / (2 * ctx.result),),
             complex_vjp="holomorphic", formulas=("1/(2*sqrt(a))",))

RSQRT = defop("rsqrt", ("self",), save=("result",), math="y = 1/sqrt(a);  da = -g*y^3/2",
              forward=lambda xp, a: 1 / xp.sqrt(a),
              vjp=lambda g, ctx: (-0.5 * g * ctx.result ** 3,),
              complex_vjp="holomorphic", formulas=("-1/(2*a^(3/2))",))

SIN = defop("sin", ("self",), save=("self",), math="sin a;  da = g*cos(a)",
            forward=lambda xp, a: xp.sin(a),
            vjp=lambda g, ctx: (g * cos(ctx.self),),
            complex_vjp="holomorphic", formulas=("cos(a)",))

COS = defop("cos", ("self",), save=("self",), math="cos a;  da = -g*sin(a)",
            forward=lambda xp, a: xp.cos(a),
            vjp=lambda g, ctx: (-g * sin(ctx.self),),
            complex_vjp="holomorphic", formulas=("-sin(a)",))

TAN = defop("tan", ("self",), save=("result",), math="y = tan a;  da = g*(1 + y^2)",
            forward=lambda xp, a: xp.tan(a),
            vjp=lambda g, ctx: (g * (_one_like(ctx.result) + ctx.result * ctx.result),),
            complex_vjp="holomorphic", formulas=("1 + tan(a)^2",))

ASIN = defop("asin", ("self",), save=("self",), math="arcsin a;  da = g/sqrt(1 - a^2)",
             forward=lambda xp, a: xp.arcsin(a),
             vjp=lambda g, ctx: (g * rsqrt(-ctx.self * ctx.self + _one_like(ctx.self)),),
             complex_vjp="holomorphic", formulas=("1/sqrt(1 - a^2)",))

ACOS = defop("acos", ("self",), save=("self",), math="arccos a;  da = -g/sqrt(1 - a^2)",
             forward=lambda xp, a: xp.arccos(a),
             vjp=lambda g, ctx: (g * -rsqrt(-ctx.self * ctx.self + _one_like(ctx.self)),),
             complex_vjp="holomorphic", formulas=("-1/sqrt(1 - a^2)",))

ATAN = defop("atan", ("self",), save=("self",), math="arctan a;  da = g/(1 + a^2)",
             forward=lambda xp, a: xp.arctan(a),
             vjp=lambda g, ctx: (g / (ctx.self * ctx.self + _one_like(ctx.self)),),
             complex_vjp="holomorphic", formulas=("1/(1 + a^2)",))

def _atan2_vjp(g, ctx):
    a, b = ctx.self, ctx.other
    squared = a * a + b * b
    with numpy.errstate(divide="ignore"):   # (PyTorch's 1/r^2, 0 where r is 0: the gradient at the origin is 0)
        reciprocal = where(squared == 0, 0.0, 1 / squared)
    return (g * b * reciprocal if ctx.needs_input_grad[0] else None,
            g * -a * reciprocal if ctx.needs_input_grad[1] else None)


ATAN2 = defop("atan2", ("self", "other"), save=("self", "other"),
              math="the angle of the point (b, a);  da = g*b/(a^2 + b^2), db = -g*a/(a^2 + b^2) (0 at a = b = 0)",
              forward=lambda xp, a, b: xp.arctan2(a, b),
              vjp=_atan2_vjp, formulas=("b/(a^2 + b^2)", "-a/(a^2 + b^2)"))

SINH = defop("sinh", ("self",), save=("self",), math="sinh a;  da = g*cosh(a)",
             forward=lambda xp, a: xp.sinh(a),
             vjp=lambda g, ctx: (g * cosh(ctx.self),),
             complex_vjp="holomorphic", formulas=("cosh(a)",))

COSH = defop("cosh", ("self",), save=("self",), math="cosh a;  da = g*sinh(a)",
             forward=lambda xp, a: xp.cosh(a),
             vjp=lambda g, ctx: (g * sinh(ctx.self),),
             complex_vjp="holomorphic", formulas=("sinh(a)",))

ASINH = defop("asinh", ("self",), save=("self",), math="arsinh a;  da = g/sqrt(a^2 + 1)",
              forward=lambda xp, a: xp.arcsinh(a),
              vjp=lambda g, ctx: (g * rsqrt(ctx.self * ctx.self + _one_like(ctx.self)),),
              complex_vjp="holomorphic", formulas=("1/sqrt(a^2 + 1)",))

ACOSH = defop("acosh", ("self",), save=("self",), math="arcosh a (a >= 1);  da = g/sqrt(a^2 - 1)",
              forward=lambda xp, a: xp.arccosh(a),
              vjp=lambda g, ctx: (g * rsqrt(ctx.self * ctx.self - _one_like(ctx.self)),),
              complex_vjp=holomorphic(lambda g, ctx: (g * rsqrt(ctx.self - 1) * rsqrt(ctx.self + 1),)),
              formulas=("1/sqrt(a^2 - 1)",),   # (complex: sqrt(a - 1)*sqrt(a + 1), arccosh's own branch)
              complex_formulas=("conj(1/(sqrt(a - 1)*sqrt(a + 1)))",))

ATANH = defop("atanh", ("self",), save=("self",), math="artanh a (|a| < 1);  da = g/(1 - a^2)",
              forward=lambda xp, a: xp.arctanh(a),
              vjp=lambda g, ctx: (g / (-ctx.self * ctx.self + _one_like(ctx.self)),),
              complex_vjp="holomorphic", formulas=("1/(1 - a^2)",))

_ONE = {numpy.dtype(t): numpy.ones((), t) for t in ("float16", "float32", "float64")}
for _one in _ONE.values():
    _one.flags.writeable = False


def _one_like(y):
    """1 for ``1 - y`` in a VJP: on the CPU a 0-d array of y's dtype (a Python number costs NumPy a conversion
    on every call), else the number."""
    return _ONE.get(y.dtype, 1) if type(y) is numpy.ndarray else 1


def _tanh_grad(xp, g, y):
    return g * (_one_like(y) - y * y)   # (PyTorch's order: inf where g is inf; g - g*y*y makes that NaN)


def _tanh_vjp(g, ctx):
    # recorded (create_graph): one tanh_backward node, as PyTorch records it; on arrays: the same math inline
    y = ctx.result
    return (tanh_backward(g, y) if isinstance(g, Tensor) else _tanh_grad(None, g, y),)


TANH = defop("tanh", ("self",), save=("result",), math="tanh a;  da = g*(1 - tanh(a)^2)",
             forward=lambda xp, a: xp.tanh(a),
             vjp=_tanh_vjp, complex_vjp="holomorphic",
             formulas=("1 - tanh(a)^2",))


def _tanh_backward_vjp(gg, ctx):
    need_g, need_y = ctx.needs_input_grad
    y = ctx.output
    if isinstance(gg, Tensor):   # recorded: again one tanh_backward node for dg
        return (tanh_backward(gg, y) if need_g else None, gg * y * ctx.grad * -2.0 if need_y else None)
    return (_tanh_grad(None, gg, y) if need_g else None, gg * y * ctx.grad * -2.0 if need_y else None)


# tanh's VJP as one op of its own (PyTorch's tanh_backward): what a recorded backward of tanh is made of
TANH_BACKWARD = defop("tanh_backward", ("grad", "output"), save=("grad", "output"), save_if={"grad": 1},
                      math="g*(1 - y^2);  dg = gg*(1 - y^2), dy = -2*gg*g*y",
                      forward=_tanh_grad, vjp=_tanh_backward_vjp, complex_vjp="holomorphic",
                      formulas=("1 - y^2", "-2*g*y"))


def half_in_float32(forward):
    """``forward`` computing a float16 input in float32 and rounding once at the end, as PyTorch's CPU kernels
    do (a float16 running sum stops growing at 2048; exp and its quotients lose digits on the way)."""
    @functools.wraps(forward)   # (its signature names the op's parameters)
    def wide(xp, a, *args, **kwargs):
        if a.dtype == numpy.float16:
            return forward(xp, a.astype(numpy.float32), *args, **kwargs).astype(numpy.float16)
        return forward(xp, a, *args, **kwargs)
    return wide


def _sigmoid_forward(xp, a):
    # 1/(1+e^-a) for a >= 0 and e^a/(1+e^a) for a < 0: never overflows (complex numbers: the formula itself)
    if a.dtype.kind == "c":
        return 1 / (1 + xp.exp(-a))
    e = xp.exp(-xp.abs(a))
    return xp.where(a >= 0, 1 / (1 + e), e / (1 + e)).astype(a.dtype, copy=False)


def _sigmoid_grad(xp, g, y):
    return g * (_one_like(y) - y) * y   # (PyTorch's order)


def _sigmoid_vjp(g, ctx):
    # recorded (create_graph): one sigmoid_backward node, as PyTorch records it; on arrays: the same math inline
    y = ctx.result
    return (sigmoid_backward(g, y) if isinstance(g, Tensor) else _sigmoid_grad(None, g, y),)


SIGMOID = defop("sigmoid", ("self",), save=("result",), math="s = 1/(1+e^-a);  da = g*(1-s)*s",
                forward=half_in_float32(_sigmoid_forward), vjp=_sigmoid_vjp, complex_vjp="holomorphic",
                formulas=("s*(1-s)",))


def _sigmoid_backward_vjp(gg, ctx):
    # dy is one product, gg*g*(1 - 2y) (the product rule through g*(1-y)*y would add two terms, inf - inf where
    # gg*g is infinite; PyTorch's single product is not)
    need_g, need_y = ctx.needs_input_grad
    y = ctx.output
    dg = (sigmoid_backward(gg, y) if isinstance(gg, Tensor) else _sigmoid_grad(None, gg, y)) if need_g else None
    return dg, gg * ctx.grad * (1 - 2 * y) if need_y else None


# sigmoid's VJP as one op of its own (PyTorch's sigmoid_backward): what a recorded backward of sigmoid is made of
SIGMOID_BACKWARD = defop("sigmoid_backward", ("grad", "output"), save=("grad", "output"), save_if={"grad": 1},
                         math="g*(1-y)*y;  dg = gg*(1-y)*y, dy = gg*g*(1 - 2y)",
                         forward=_sigmoid_grad, vjp=_sigmoid_backward_vjp, complex_vjp="holomorphic",
                         formulas=("(1-y)*y", "g*(1 - 2y)"))

def _relu_grad(xp, g, y):
    return masked(g, ~(y <= 0))   # g where y > 0 or y is NaN (as in PyTorch), else exactly 0


def _relu_vjp(g, ctx):
    # recorded (create_graph): one threshold_backward node, as PyTorch records it; on arrays: the same select
    y = ctx.result
    return (threshold_backward(g, y) if isinstance(g, Tensor) else _relu_grad(None, g, y),)


def fits(value, dtype, name, range_checked=()):
    """``value`` (a number or a Tensor) written into a tensor of ``dtype``: a number into an integer dtype only
    where it fits (:func:`integer_values`), into a float dtype named in ``range_checked`` only where it is in
    range (or inf or NaN): PyTorch checks per op, so ``fill_`` refuses 70000 for float16 (``ALL_FLOATS``) while
    indexing writes inf there and refuses only 1e39 for float32 (``WIDE_FLOATS``). A complex value goes into a
    real tensor only with imaginary parts of 0, then as its real part (PyTorch's rule). Else RuntimeError, where
    NumPy would wrap around, overflow or drop the imaginary parts with a warning."""
    if dtype.kind == "c":
        return value
    if dtype.kind in "iu" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return integer_values(value, dtype, name)
    if dtype.kind == "f" and dtype.name in range_checked and _beyond(value, _LARGEST[dtype]):
        raise RuntimeError(f"{name}: value {value} cannot be converted to type {dtype.name} without overflow (its "
                           f"largest is {_LARGEST[dtype]:g}): use a wider dtype, e.g. x.double()")
    if isinstance(value, _COMPLEX_NUMBERS):
        if value.imag != 0:
            raise RuntimeError(f"{name}: value {value} cannot be converted to type {dtype.name} without overflow "
                               f"(its imaginary part would be lost): write into a complex tensor")
        return value.real
    if isinstance(value, Tensor) and value.dtype.kind == "c":
        if bool((value._data.imag != 0).any()):
            raise RuntimeError(f"{name}: a complex tensor with nonzero imaginary parts can't be written into a "
                               f"{dtype.name} tensor: write into a complex tensor, or write value.real")
        return real(value)
    return value


def _beyond(value, largest):
    """Is ``value`` a finite real number (an int, or a float other than inf and NaN) above ``largest`` in size?"""
    if type(value) is bool or not isinstance(value, (int, float)):
        return False
    if isinstance(value, float) and not math.isfinite(value):
        return False
    return value > largest or value < -largest   # (this module's abs is the tensor op)


_LARGEST = {numpy.dtype(t): float(numpy.finfo(t).max) for t in ("float16", "float32", "float64")}
ALL_FLOATS, WIDE_FLOATS = ("float16", "float32", "float64"), ("float32", "float64")


def _number_fits(tensor, number, name, range_checked=ALL_FLOATS):
    """A Python number operand, checked as PyTorch checks it before it computes in ``tensor``'s dtype: an int
    for an integer tensor (300 for int8), a float for an integer one in the default float dtype, any number for
    a float tensor whose dtype is in ``range_checked`` (70000 for float16); RuntimeError, where NumPy would
    wrap around or overflow to inf."""
    if not isinstance(tensor, Tensor) or type(number) not in (int, float) or tensor.dtype.kind not in "iuf":
        return number
    dtype = tensor.dtype if tensor.dtype.kind == "f" or type(number) is int else default_float()
    return fits(number, dtype, name, range_checked)


def ordered(name, a, error=NotImplementedError):
    """``a``, unless it is complex: complex numbers have no order (PyTorch's NotImplementedError, or for some ops
    its RuntimeError)."""
    if getattr(a, "dtype", None) is not None and a.dtype.kind == "c":   # (a VJP may pass a Python number)
        raise error(f"{name} is not supported for complex tensors: complex numbers have no order. "
                    f"Compare a real number made of them instead: z.real, z.abs() or z.angle()")
    return a


def real_only(name, *operands):
    """Refuse complex operands for an op with no complex formula here (rather than drop their imaginary parts)."""
    for x in operands:
        if getattr(getattr(x, "dtype", None), "kind", "") == "c" or isinstance(x, complex):
            raise NotImplementedError(f"{name}: this op does not take complex numbers in autogradlab (it would "
                                      f"lose their imaginary parts): give it z.real, z.imag or z.abs()")


def _no_bools(name, a, error=RuntimeError):
    if a.dtype.kind == "b":   # (PyTorch refuses these too: abs has no bool kernel, NotImplementedError)
        raise error(f"{name} of a bool tensor is not supported: convert it first, e.g. x.to(autogradlab.int64)")
    return a


RELU = defop("relu", ("self",), save=("result",), math="max(a, 0);  da = g where a > 0, else 0",
             forward=lambda xp, a: xp.maximum(ordered("relu", _no_bools("relu", a)), 0), vjp=_relu_vjp,
             formulas=("[a > 0]",))


def _threshold_backward_vjp(gg, ctx):
    need_g, need_y = ctx.needs_input_grad
    dg = None
    if need_g:   # (y was saved only for this one)
        y = ctx.output
        dg = threshold_backward(gg, y) if isinstance(gg, Tensor) else _relu_grad(None, gg, y)
    return dg, zeros_gradient(gg) if need_y else None   # (the mask is flat in y: a constant 0, as PyTorch's)


# relu's VJP as one op of its own (PyTorch's threshold_backward at threshold 0): a recorded backward of relu
THRESHOLD_BACKWARD = defop("threshold_backward", ("grad", "output"), save=("output",), save_if={"output": 0},
                           math="g where y > 0 (or NaN), else 0;  dg = gg where y > 0 (or NaN), else 0, dy = 0",
                           forward=_relu_grad, vjp=_threshold_backward_vjp, formulas=("[y > 0]", "0"))

def _abs_complex_vjp(g, ctx):
    """|z| = sqrt(x^2 + y^2): dz = g*z/|z|, and 0 at z = 0 (PyTorch's sgn(z); recorded, its derivative is 0
    there too: the select, not z/1, is what the second derivative sees)."""
    z = ctx.self
    r = abs(z)
    nonzero = r != 0
    return (g * masked(z / where(nonzero, r, 1.0), nonzero),)


ABS = defop("abs", ("self",), save=("self",), math="|a|;  da = g*sign(a)  (complex: g*a/|a|)",
            forward=lambda xp, a: xp.abs(_no_bools("abs", a, NotImplementedError)),
            vjp=lambda g, ctx: (g * sign(ctx.self),), complex_vjp=_abs_complex_vjp,
            formulas=("sign(a)",), complex_formulas=("a/|a|",))

def _extremum_vjp(larger):
    """The VJP of ``maximum`` (``larger``) or ``minimum``: the gradient goes to the side that won, half to
    each side of a tie and all of it to both where a NaN is compared (nothing won), as in PyTorch."""
    def vjp(g, ctx):
        a, b = ctx.self, ctx.other
        shared = where(a == b, g * 0.5, g)
        lost_a, lost_b = (a < b, a > b) if larger else (a > b, a < b)
        return (where(lost_a, 0.0, shared) if ctx.needs_input_grad[0] else None,
                where(lost_b, 0.0, shared) if ctx.needs_input_grad[1] else None)
    return vjp


MAXIMUM = defop("maximum", ("self", "other"), save=("self", "other"),
                math="max(a, b);  da = g*([a > b] + [a = b]/2), db = g*([b > a] + [a = b]/2)",
                forward=lambda xp, a, b: xp.maximum(ordered("maximum", a, RuntimeError),
                                                    ordered("maximum", b, RuntimeError)),
                vjp=_extremum_vjp(True),
                formulas=("[a > b] + [a = b]/2", "[b > a] + [a = b]/2"))

MINIMUM = defop("minimum", ("self", "other"), save=("self", "other"),
                math="min(a, b);  da = g*([a < b] + [a = b]/2), db = g*([b < a] + [a = b]/2)",
                forward=lambda xp, a, b: xp.minimum(ordered("minimum", a, RuntimeError),
                                                    ordered("minimum", b, RuntimeError)),
                vjp=_extremum_vjp(False),
                formulas=("[a < b] + [a = b]/2", "[b < a] + [a = b]/2"))


def _clamp_forward(xp, a, min=None, max=None):
    return xp.clip(a, min, max)


def _clamp_vjp(g, ctx):
    a, inside = ctx.self, None
    if ctx.min is not None:
        inside = a >= ctx.min
    if ctx.max is not None:
        upper = a <= ctx.max
        inside = upper if inside is None else inside & upper
    return (masked(g, inside),)


CLAMP = defop("clamp", ("self",), save=("self",), math="min(max(a, lo), hi);  da = g*[lo <= a <= hi]",
              forward=_clamp_forward, vjp=_clamp_vjp, formulas=("[lo <= a <= hi]",))


def _clamp_tensor_forward(xp, a, lo, hi, given, dtype):
    cast = [t.astype(dtype, copy=False) for t in (a, lo, hi)]   # (PyTorch's result type of the three)
    return xp.minimum(xp.maximum(cast[0], cast[1]), cast[2])    # (a NaN anywhere gives NaN)


def _clamp_tensor_vjp(g, ctx):
    # PyTorch's rule: a gets g inside [lo, hi]; lo where it was picked (a < lo < hi); hi where it was picked
    # (a > hi, or hi < lo: then hi is the result everywhere). Each comparison with a NaN is false, so a NaN a
    # or lo gets nothing, but hi below lo still gets g. With one bound given, only its own test counts. (On
    # Tensors: each comparison takes its own two operands' dtype, as PyTorch's do)
    need_a, need_lo, need_hi = ctx.needs_input_grad
    a, lo, hi, given = ctx.self, ctx.min, ctx.max, ctx.given
    keep_lo = (a < lo) & (lo < hi) if given == "both" else a < lo
    keep_hi = (a > hi) | (hi < lo) if given == "both" else a > hi
    keep_a = (a >= lo) & (a <= hi) if given == "both" else (a >= lo if given == "min" else a <= hi)
    return (masked(g, keep_a) if need_a else None,
            masked(g, keep_lo) if need_lo else None,
            masked(g, keep_hi) if need_hi else None)


# clamp with Tensor bounds (PyTorch's clamp.Tensor): the bounds broadcast, and may take a gradient. A bound
# left out is a constant (the lowest or highest value of the dtype); ``given`` says which were given
CLAMP_TENSOR = defop("clamp_tensor", ("self", "min", "max"), save=("self", "min", "max"),
                     math="min(max(a, lo), hi);  da = g*[lo <= a <= hi], dlo = g*[a < lo < hi], "
                          "dhi = g*[a > hi or hi < lo]",
                     forward=_clamp_tensor_forward, vjp=_clamp_tensor_vjp, arrays=False,
                     formulas=("[lo <= a <= hi]", "[a < lo < hi]", "[a > hi or hi < lo]"))

WHERE = defop("where", ("condition", "self", "other"), save=("condition",),
              math="c ? a : b;  da = g*[c], db = g*[not c]",
              forward=lambda xp, c, a, b: xp.where(c, a, b),
              vjp=lambda g, ctx: (None, where(ctx.condition, g, 0.0), where(ctx.condition, 0.0, g)),
              formulas=("", "[c]", "[not c]"))

# -- casts and moves (their VJP is the identity; Node.apply casts the gradient back) ------

def _cast_forward(xp, a, dtype):
    if a.dtype.kind == "c" and dtype.kind not in "cb":   # (to bool: nonzero, either part)
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=2)
        a = a.real
    with numpy.errstate(invalid="ignore", over="ignore"):   # (NaN to an integer, 1e6 to float16: PyTorch casts
        return a.astype(dtype)                              # them without a warning; CuPy gives none either)


TO_DTYPE = defop("to_dtype", ("self",), math="cast(a);  da = cast_back(g)",
                 forward=_cast_forward,
                 vjp=lambda g, ctx: (g,), formulas=("1",))

TO_DEVICE = defop("to_device", ("self",), math="move(a);  da = move_back(g)",
                  forward=lambda xp, a, source: a,  # not called: to_device moves the data (source: where from)
                  vjp=lambda g, ctx: (g.to(ctx.source),), formulas=("1",), arrays=False)

# sign is flat: its derivative is 0 (not undefined), so abs's gradient stays connected to its input
# and a second derivative through it is 0, as in PyTorch
def _sign_forward(xp, a):
    s = xp.sign(a)
    return xp.where(s != s, 0, s) if s.dtype.kind == "f" else s   # (PyTorch's sign of NaN is 0)


SIGN = defop("sign", ("self",), math="sign(a);  da = 0",
             forward=_sign_forward,
             vjp=lambda g, ctx: (zeros_gradient(g),), formulas=("0",))


def _copysign_vjp(g, ctx):
    a, need_a, need_b = ctx.self, *ctx.needs_input_grad
    return (g * where(a == 0, 0.0, ctx.result / a) if need_a else None, zeros_gradient(g) if need_b else None)


# b only lends its sign bit: its gradient is 0 (PyTorch's zeros, not None: b stays in the graph)
COPYSIGN = defop("copysign", ("self", "other"), save=("self", "result"), save_if={"self": 0, "result": 0},
                 math="|a| with b's sign;  da = g*out/a (+-1; 0 at a = 0), db = 0",
                 forward=lambda xp, a, b: xp.copysign(a, b),
                 vjp=_copysign_vjp, formulas=("out/a", "0"))


def _rounding(name, forward):
    """floor, ceil, round, trunc: flat between whole numbers, so their gradient is 0 (as PyTorch's, whose
    result requires grad: unlike a // b they stay in the graph); an integer tensor comes back as a copy."""
    return defop(name, ("self",), math=f"{name}(a);  da = 0", formulas=("0",), forward=forward,
                 vjp=lambda g, ctx: (zeros_gradient(g),))


FLOOR = _rounding("floor", lambda xp, a: xp.floor(a) if ordered("floor", a).dtype.kind == "f" else a.copy())
CEIL = _rounding("ceil", lambda xp, a: xp.ceil(a) if ordered("ceil", a).dtype.kind == "f" else a.copy())
TRUNC = _rounding("trunc", lambda xp, a: xp.trunc(a) if ordered("trunc", a).dtype.kind == "f" else a.copy())
def _round_forward(xp, a, decimals):
    if ordered("round", a).dtype.kind != "f" or not decimals:
        return xp.round(a) if a.dtype.kind == "f" else a.copy()
    # a * 10^decimals rounded, then divided back (times back for decimals < 0); float16 in float32, as PyTorch
    # (94.7 * 100 is past float16's precision); a huge 10^decimals overflows to inf, quietly as in PyTorch
    with numpy.errstate(over="ignore", invalid="ignore"):
        wide = a.astype(numpy.float32) if a.dtype == numpy.float16 else a
        return xp.round(wide, decimals).astype(a.dtype, copy=False)


ROUND = _rounding("round", _round_forward)


_SAME_SIZE_UINT = {2: numpy.uint16, 4: numpy.uint32, 8: numpy.uint64}


def masked(g, keep):
    """``g`` where the bool ``keep`` holds, else exactly 0: a select, as PyTorch's backward of relu, clamp and
    max takes (``g * keep`` would be NaN where an infinite or NaN ``g`` meets a 0). Recording, a ``where``; on
    arrays (a gradient: float16, 32 or 64), the same select without branches (NumPy's ``where`` on a random
    mask is several times slower): ``g``'s bits kept where ``keep`` holds, all cleared (+0.0) elsewhere."""
    uint = None if isinstance(g, Tensor) else _SAME_SIZE_UINT.get(g.dtype.itemsize)   # (complex128: none)
    if uint is None or isinstance(keep, Tensor):
        return where(keep, g, 0.0)
    xp = xp_of(g)
    if keep.shape != g.shape:   # (broadcast_to is slow Python: only where needed)
        keep = xp.broadcast_to(keep, numpy.broadcast_shapes(keep.shape, g.shape))
    bits = xp.asarray(keep).astype(uint)   # 1 where kept, 0 elsewhere (asarray: NumPy gives 0-d results as scalars)
    xp.negative(bits, out=bits)    # every bit set where kept
    bits &= g.view(uint)
    return bits.view(g.dtype)


def zeros_gradient(g):
    """A constant 0 gradient (no history, also where g is inf or NaN), as PyTorch's zeros_like(grad)."""
    if isinstance(g, Tensor):
        return Tensor._make(xp_of(g._data).zeros_like(g._data), False, None, g.device)
    return xp_of(g).zeros_like(g)

# -- not differentiable: results never require grad --------------------------------------

_COMPARE = {
    name: defop(name, ("self", "other"), forward=f, vjp=None, math=sym)
    for name, f, sym in [
        ("lt", lambda xp, a, b: ordered("lt", a) < ordered("lt", b), "a < b"),
        ("le", lambda xp, a, b: ordered("le", a) <= ordered("le", b), "a <= b"),
        ("gt", lambda xp, a, b: ordered("gt", a) > ordered("gt", b), "a > b"),
        ("ge", lambda xp, a, b: ordered("ge", a) >= ordered("ge", b), "a >= b"),
        ("eq", lambda xp, a, b: a == b, "a == b"), ("ne", lambda xp, a, b: a != b, "a != b"),
    ]
}

# masks (bool tensors; on integers, bits): ~m, m1 & m2, m1 | m2, m1 ^ m2
_LOGIC = {
    "bitwise_not": defop("bitwise_not", ("self",), forward=lambda xp, a: xp.invert(a), vjp=None, math="~a"),
    "logical_not": defop("logical_not", ("self",), forward=lambda xp, a: xp.logical_not(a), vjp=None,
                         math="not a"),
    **{name: defop(name, ("self", "other"), forward=f, vjp=None, math=sym) for name, f, sym in [
        ("bitwise_and", lambda xp, a, b: a & b, "a & b"), ("bitwise_or", lambda xp, a, b: a | b, "a | b"),
        ("bitwise_xor", lambda xp, a, b: a ^ b, "a ^ b")]},
}

FLOOR_DIVIDE = defop("floor_divide", ("self", "other"), vjp=None,
                     forward=lambda xp, a, b: xp.floor_divide(ordered("floor_divide", a), ordered("floor_divide", b)),
                     math="floor(a / b)")   # (not differentiable, as PyTorch's floor_divide, whose derivative is missing)

# what each element is: NaN, infinite, or neither (an integer or a bool is never NaN or infinite)
ISNAN = defop("isnan", ("self",), vjp=None, math="a is NaN",
              forward=lambda xp, a: xp.isnan(a) if a.dtype.kind in "fc" else xp.full(a.shape, False))
ISINF = defop("isinf", ("self",), vjp=None, math="a is +inf or -inf",
              forward=lambda xp, a: xp.isinf(a) if a.dtype.kind in "fc" else xp.full(a.shape, False))
ISFINITE = defop("isfinite", ("self",), vjp=None, math="a is not NaN nor infinite",
                 forward=lambda xp, a: xp.isfinite(a) if a.dtype.kind in "fc" else xp.full(a.shape, True))


def _isclose_forward(xp, a, b, rtol, atol, equal_nan):
    # PyTorch's computation, step for step: equal elements (infinities included) are close; others when
    # their difference is finite and within atol + |rtol*b|, computed in b's float dtype (float32 for
    # integers and bools)
    close = a == b
    if equal_nan and a.dtype.kind in "fc":   # (a complex number is NaN when either part is)
        close |= xp.isnan(a) & xp.isnan(b)
    if rtol == 0 and atol == 0:
        return close
    if a.dtype.kind not in "fc":
        a, b = a.astype(default_float()), b.astype(default_float())
    with numpy.errstate(invalid="ignore", over="ignore"):   # (inf - inf is NaN, not close: no warning to give)
        allowed = atol + xp.abs(rtol * b)
        actual = xp.abs(a - b)
    return close | (xp.isfinite(actual) & (actual <= allowed))


ISCLOSE = defop("isclose", ("self", "other"), forward=_isclose_forward, vjp=None,
                math="|a - b| <= atol + rtol*|b| (or a = b)")

# -- the public functions ----------------------------------------------------------------

add, _sub, maximum, minimum, tanh_backward, sigmoid_backward, threshold_backward = map(
    _binary, (ADD, SUB, MAXIMUM, MINIMUM, TANH_BACKWARD, SIGMOID_BACKWARD, THRESHOLD_BACKWARD))
mul = _binary(MUL, float16_numbers=True)


def _is_bool(x):
    return type(x) is bool or (isinstance(x, Tensor) and x.dtype.kind == "b")


def _masks(name, *operands):
    """The operands of a mask op: bool or integer tensors (or numbers), never floats (as in PyTorch)."""
    for t in operands:
        if isinstance(t, float) or getattr(t, "dtype", numpy.dtype(bool)).kind not in "biu":
            what = type(t).__name__ if isinstance(t, float) else t.dtype.name
            raise TypeError(f"{name} takes bool (or integer) tensors, got {what}: make a mask first, "
                            f"e.g. (x > 0) & (y > 0)")


def bitwise_not(input):
    """``~a``: a mask inverted (the bits of an integer tensor)."""
    _masks("~ (bitwise_not)", input)
    return apply(_LOGIC["bitwise_not"], (input,))


def logical_not(input):
    """``a == 0`` as a bool tensor (``not`` of each element)."""
    return apply(_LOGIC["logical_not"], (input,))


def _mask_op(name, symbol):
    op = _binary(_LOGIC[name])

    def fn(input, other):
        _masks(f"{symbol} ({name})", input, other)
        return op(input, other)
    fn.__name__, fn.__doc__ = name, f"``a {symbol} b`` of two masks (bits of integer tensors)."
    return fn


def legacy_alpha(name, other, rest, alpha):
    """``(other, alpha)`` of ``add``/``sub``: also the old ``x.add_(alpha, other)`` form of PyTorch 0.x
    tutorials (``p.data.add_(-lr, p.grad.data)``), deprecated with a warning, as in PyTorch."""
    if not rest:
        return other, alpha
    scalar = (isinstance(other, numbers.Number) and not isinstance(other, bool)) or (
        isinstance(other, Tensor) and other.ndim == 0 and other.dtype.kind != "b")
    if len(rest) == 1 and scalar and isinstance(rest[0], (Tensor, numbers.Number)) and alpha == 1:
        if isinstance(other, Tensor):
            other = other.item()
        warnings.warn(f"{name}(Number alpha, Tensor other) is deprecated (as in PyTorch): write "
                      f"{name}(other, alpha=alpha)", UserWarning, stacklevel=3)
        return rest[0], other
    raise TypeError(f"{name}() takes the other operand and alpha as a keyword, {name}(other, alpha=2), "
                    f"or the deprecated {name}(alpha, other); got {len(rest) + 1} positional arguments")


def _integers(x):
    """Whether operand ``x`` (a Tensor, an array or a number) holds integers or bools."""
    return isinstance(x, (bool, int)) or getattr(x, "dtype", numpy.dtype(float)).kind in "biu"


def _integer_division(op):
    div = _binary(op)

    def fn(input, other):
        if _is_bool(input) and _is_bool(other):
            raise RuntimeError(f"{op.name} of two bool operands is not supported (as in PyTorch): convert one, "
                               f"e.g. mask.to(autogradlab.int64)")
        if (_integers(input) and _integers(other) and not (isinstance(input, Tensor) and input.numel() == 0)
                and not numpy.all(to_host(other._data if isinstance(other, Tensor) else other) != 0)):
            # (NumPy would give 0 and a warning; PyTorch raises)
            raise RuntimeError(f"ZeroDivisionError: {op.name} of integers by 0 (a // 0 and a % 0 are undefined)")
        return div(input, other)
    fn.__name__ = op.name
    return fn


floor_divide, _remainder, div_floor = _integer_division(FLOOR_DIVIDE), _integer_division(REMAINDER), _binary(DIV_FLOOR)
div_trunc = _binary(DIV_TRUNC)
floor_divide.__doc__ = "``a // b``: the quotient rounded toward -inf (not differentiable: flat almost everywhere)."


def remainder(input, other):
    """``a % b``: ``a - b * floor(a / b)``, with the sign of ``b`` (a zero keeps ``a``'s sign, as in PyTorch).
    A number ``% t`` is not differentiable, as in PyTorch, which has no derivative for it."""
    for t in (input, other):
        if isinstance(t, Tensor):
            ordered("remainder", t)
    if not isinstance(input, Tensor):
        with no_grad():
            return _remainder(input, other)
    return _remainder(input, other)

bitwise_and, bitwise_or, bitwise_xor = (_mask_op(n, s) for n, s in (("bitwise_and", "&"), ("bitwise_or", "|"),
                                                                    ("bitwise_xor", "^")))


def neg(input):
    """``-a`` (not of a bool tensor: PyTorch refuses it too; invert a mask with ``~``)."""
    if _is_bool(input):
        raise RuntimeError("negation (the - operator) of a bool tensor is not supported: to invert a mask use "
                           "~mask or mask.logical_not()")
    return _neg(input)


def refuse_bool_subtraction(a, b):
    if _is_bool(a) or _is_bool(b):
        raise RuntimeError("subtraction (the - operator) with a bool tensor or True/False is not supported: to "
                           "invert a mask use ~mask or mask.logical_not(); to compare two masks use mask1 ^ mask2")


def sub(a, b):
    """``a - b``. Not with a bool tensor or True/False (PyTorch refuses it too): invert a mask with ``~``."""
    refuse_bool_subtraction(a, b)
    return _sub(a, b)
_neg, relu, abs, _sign = map(_unary, (NEG, RELU, ABS, SIGN))


def sign(input):
    """-1, 0 or 1 by the sign of each element (of a bool tensor: itself, as in PyTorch)."""
    if input.dtype.kind == "c":
        raise NotImplementedError("Unlike NumPy, sign is not meant for complex numbers (as in PyTorch): use sgn, "
                                  "z/|z| (0 at 0)")
    return input.clone() if isinstance(input, Tensor) and input.dtype.kind == "b" else _sign(input)
exp, log, sqrt, sin, cos, tanh, sigmoid, reciprocal, log1p, expm1 = map(
    _floating_unary, (EXP, LOG, SQRT, SIN, COS, TANH, SIGMOID, RECIPROCAL, LOG1P, EXPM1))
log2, log10, exp2, rsqrt, tan, asin, acos, atan, sinh, cosh, erf = map(
    _floating_unary, (LOG2, LOG10, EXP2, RSQRT, TAN, ASIN, ACOS, ATAN, SINH, COSH, ERF))
asinh, acosh, atanh = map(_floating_unary, (ASINH, ACOSH, ATANH))


def _no_rounding_of_bools(name, a):
    if _is_bool(a):   # (NotImplementedError, a RuntimeError, as PyTorch's)
        raise NotImplementedError(f"{name}() of a bool tensor is not supported (as in PyTorch): a mask is whole "
                                  f"already; convert it if you need numbers, e.g. mask.to(autogradlab.float32)")


def _whole(op):
    def fn(input):
        _no_rounding_of_bools(op.name, input)
        return apply_unary(op, input) if type(input) is Tensor else apply(op, (input,))
    fn.__name__, fn.__doc__ = op.name, f"{op.name}(a), elementwise (its gradient is 0; an integer tensor: a copy)."
    return fn


floor, ceil, trunc = map(_whole, (FLOOR, CEIL, TRUNC))


def round(input, *, decimals=0):
    """Each element to the nearest whole number (ties to even, as PyTorch), or to ``decimals`` places (to tens,
    hundreds, ... for a negative ``decimals``). Its gradient is 0."""
    if not isinstance(decimals, int) or isinstance(decimals, bool):
        raise TypeError(f"round(): decimals must be an int, got {type(decimals).__name__} {decimals!r:.40}")
    _no_rounding_of_bools("round", input)
    if decimals and isinstance(input, Tensor) and input.dtype.kind != "f":
        raise NotImplementedError(f"round(decimals={decimals}) of an integer tensor is not supported (as in "
                                  f"PyTorch): round(a) gives it back, or convert it first: a.to(autogradlab.float32)")
    return apply(ROUND, (input,), {"decimals": decimals})


lt, le, gt, ge, eq, ne = (_binary(_COMPARE[n]) for n in ("lt", "le", "gt", "ge", "eq", "ne"))
isnan, isinf, isfinite = map(_unary, (ISNAN, ISINF, ISFINITE))


def square(input):
    """``a * a``, recorded as PyTorch records it: ``a ** 2`` (a bool tensor gives int64)."""
    if not isinstance(input, Tensor):
        raise not_a_tensor("square", input)
    return pow(input, 2)


def _closeness_args(name, a, b, rtol, atol):
    """Check the arguments of isclose/allclose; give the tolerances back as Python floats."""
    for t in (a, b):
        if not isinstance(t, Tensor):
            raise not_a_tensor(name, t)
    if a.dtype != b.dtype:
        raise RuntimeError(f"{name}(): a is {a.dtype.name} and b is {b.dtype.name}: compare tensors of one dtype "
                           f"(as PyTorch requires), e.g. {name}(a, b.to(a.dtype))")
    if a.device != b.device:
        raise RuntimeError(f"{name}(): a is on {a.device} and b on {b.device}: move one first, e.g. b.to(a.device)")
    tolerances = []
    for tol, value in (("rtol", rtol), ("atol", atol)):
        if not isinstance(value, (numbers.Real, Tensor)) or isinstance(value, Tensor) and value.numel() != 1:
            raise TypeError(f"{name}(): {tol} must be a number, got {type(value).__name__} {value!r:.40}")
        value = float(value)
        if not value >= 0:
            raise RuntimeError(f"{name}(): {tol} must be 0 or more, got {value}")
        tolerances.append(value)
    return tolerances


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|a - b| <= atol + rtol*|b|`` as a bool tensor (``a`` and ``b`` broadcast, of one dtype).
    Equal infinities are close; NaNs are close to each other only with ``equal_nan=True``."""
    rtol, atol = _closeness_args("isclose", input, other, rtol, atol)
    return apply(ISCLOSE, (input, other), {"rtol": rtol, "atol": atol, "equal_nan": bool(equal_nan)})


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    """Whether every element of ``a`` is close to ``b``'s (see :func:`isclose`), as a Python bool."""
    _closeness_args("allclose", input, other, rtol, atol)   # (its errors name allclose)
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


def equal(input, other) -> bool:
    """Whether ``a`` and ``b`` have the same shape and equal elements (a NaN equals nothing), as a Python bool."""
    for t in (input, other):
        if not isinstance(t, Tensor):
            raise not_a_tensor("equal", t)
    if input.device != other.device:
        raise RuntimeError(f"equal(): input is on {input.device} and other on {other.device}: move one first, "
                           f"e.g. other.to(input.device)")
    return input.shape == other.shape and bool((input._data == other._data).all())


def div(input, other):
    """``a / b``: true division; integer or bool operands give PyTorch's default float (float32)."""
    if isinstance(input, Tensor) and type(other) in (int, float) and input._data.dtype is _FLOAT16:
        return _float16_by_number(DIV, input, other)
    return apply(DIV, promote_float(input, other))


def atan2(input, other):
    """The angle (radians, in [-pi, pi]) of the point (other, input), i.e. arctan(input/other) in the right
    quadrant; integer or bool operands give PyTorch's default float (float32)."""
    if not isinstance(other, Tensor):
        raise TypeError(f"atan2(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}: "
                        f"wrap it with autogradlab.tensor(...)")
    real_only("atan2", input, other)
    return apply(ATAN2, promote_float(input, other))


def lerp(input, end, weight):
    """input + weight*(end - input): the straight line from input (weight 0) to end (weight 1); d/dinput = 1 -
    weight, d/dend = weight, d/dweight = end - input. ``weight``: a number or a tensor (broadcast). Computed as
    PyTorch does, from the nearer end: end - (end - input)*(1 - weight) for |weight| >= 0.5, so weight 1 gives
    exactly ``end``; float16 in float32, rounded once."""
    if not isinstance(input, Tensor) or not isinstance(end, Tensor):
        raise TypeError(f"lerp(): input and end must be Tensors, got {type(input).__name__} and {type(end).__name__}")
    if input.dtype.kind not in "fc":
        raise NotImplementedError(f"lerp: not implemented for {input.dtype.name} tensors; convert them with .float()")
    if end.dtype != input.dtype:
        raise RuntimeError(f"expected dtype {input.dtype.name} for `end` but got dtype {end.dtype.name}; convert it "
                           f"with end.to(input.dtype)")
    if isinstance(weight, Tensor) and weight.dtype != input.dtype:
        if weight.ndim:   # (a 0-d weight counts as a number, as in PyTorch's type promotion)
            raise RuntimeError(f"expected dtype {input.dtype.name} for `weight` but got dtype {weight.dtype.name}; "
                               f"convert it with weight.to(input.dtype)")
        weight = to_dtype(weight, input.dtype)
    if input.dtype == numpy.float16:
        wide = [to_dtype(t, numpy.float32) if isinstance(t, Tensor) else t for t in (input, end, weight)]
        return to_dtype(lerp(*wide), numpy.float16)
    step = sub(end, input)
    if not isinstance(weight, Tensor):
        return add(input, mul(step, weight)) if -0.5 < weight.real < 0.5 else sub(end, mul(step, 1 - weight))
    return where(abs(weight) < 0.5, add(input, mul(step, weight)), sub(end, mul(step, 1 - weight)))


def pow(a, exponent):
    """``a ** exponent`` (either may be a number)."""
    if (isinstance(a, Tensor) and a.dtype.kind in "biu" and isinstance(exponent, numbers.Integral)
            and not isinstance(exponent, (bool, numpy.bool_)) and exponent < 0):
        raise RuntimeError(f"Integers to negative integer powers are not allowed. (pow: the base is {a.dtype.name}, "
                           f"the exponent {exponent}; use a float base, e.g. x.float() ** {exponent})")
    if _is_bool(a) and _is_bool(exponent):   # (PyTorch's: a bool tensor to True is itself, to False all True)
        if isinstance(exponent, Tensor) or not isinstance(a, Tensor):
            raise NotImplementedError('"pow" is not implemented for a bool exponent tensor (as in PyTorch): '
                                      'convert one operand, e.g. x.to(autogradlab.int64)')
        return bitwise_or(a, not exponent)
    if isinstance(a, Tensor) and (a.dtype == numpy.float16 or a.dtype.kind in "iu" and type(exponent) is int):
        exponent = _number_fits(a, exponent, "pow")   # (other exponents stay doubles in PyTorch's kernel)
    a, exponent = promote(a, exponent)
    return apply(POW, (a, exponent))


def clamp(a, min=None, max=None):
    """Limit values to ``[min, max]`` (either bound may be None).

    Number bounds use the ``clamp`` op; Tensor bounds (which may require grad and
    broadcast) the ``clamp_tensor`` op: ``a`` gets ``g`` inside the bounds, a bound
    gets ``g`` where it was the value picked (PyTorch's rules, NaN and ``min > max`` included).
    """
    for t in (a, min, max):
        if isinstance(t, Tensor):
            ordered("clamp", t)
    if min is None and max is None:
        raise RuntimeError("clamp: at least one of 'min' or 'max' must not be None (as PyTorch): give a bound")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return _clamp_tensor(a, min, max)
    for name, bound in (("min", min), ("max", max)):
        if bound is not None and not isinstance(bound, numbers.Real):
            raise TypeError(f"clamp: {name} must be a number, a Tensor or None, got {type(bound).__name__}")
    if a.dtype.kind in "biu" and (isinstance(min, float) or isinstance(max, float)):
        a = to_dtype(a, default_float())   # (an integer tensor with a float bound: float32, as in PyTorch)
    min, max = _number_fits(a, min, "clamp"), _number_fits(a, max, "clamp")
    return apply(CLAMP, (a,), {"min": min, "max": max})


def _clamp_tensor(a, lo, hi):
    """``clamp(a, lo, hi)`` with a Tensor bound, computed in PyTorch's result type of the three; a bound left
    out is that dtype's lowest (highest) value, a constant."""
    given = "both" if lo is not None and hi is not None else ("min" if lo is not None else "max")
    lo, hi = (None if b is None else as_tensor_like(b, a) for b in (lo, hi))
    dtype = result_type(*[t for t in (a, lo, hi) if t is not None])
    lowest, highest = (-numpy.inf, numpy.inf) if dtype.kind == "f" else (
        (numpy.iinfo(dtype).min, numpy.iinfo(dtype).max) if dtype.kind in "iu" else (False, True))
    lo = asarray(lowest, a.device, dtype) if lo is None else lo
    hi = asarray(highest, a.device, dtype) if hi is None else hi
    return apply(CLAMP_TENSOR, (a, lo, hi), {"given": given, "dtype": dtype})


def result_type(*tensors):
    """PyTorch's result dtype of an op on ``tensors``: the highest category (bool < integer < float < complex)
    wins, and within it the dimensioned tensors' dtypes decide (a 0-d tensor only where no dimensioned one has
    it; a 0-d complex one next to dimensioned floats gives their width's complex dtype)."""
    dimensioned = [t.dtype for t in tensors if t.ndim]
    zero_d = [t.dtype for t in tensors if not t.ndim]
    if not dimensioned or not zero_d:
        return _promoted(dimensioned or zero_d)
    dtype, other = _promoted(dimensioned), _promoted(zero_d)
    if _CATEGORY[other.kind] <= _CATEGORY[dtype.kind]:
        return dtype
    return complex_of(dtype) if other.kind == "c" and dtype.kind == "f" else other   # (float32[3], complex128[])


def masked_fill(a, mask, value):
    """``a`` with ``value`` where the bool ``mask`` holds (PyTorch's ``masked_fill``; ``mask`` broadcasts):
    ``where(mask, value, a)`` in ``a``'s dtype, so ``a`` gets ``g`` where the mask does not hold and a 0-d
    ``value`` tensor the sum of ``g`` where it does."""
    if not isinstance(mask, Tensor):
        raise TypeError(f"masked_fill takes the mask as a bool Tensor, got {type(mask).__name__}: wrap it with "
                        f"autogradlab.tensor(mask), or make one with a comparison, e.g. x > 0")
    if mask.dtype.kind != "b":
        raise RuntimeError(f"masked_fill only supports boolean masks, but got a mask with dtype {mask.dtype.name}: "
                           f"make one with a comparison, e.g. x > 0")
    if isinstance(value, Tensor) and value.ndim != 0:
        raise RuntimeError(f"masked_fill only supports a 0-dimensional value tensor, but got a tensor of shape "
                           f"{tuple(value.shape)}: use where(mask, values, a) to fill from a tensor")
    out = where(mask, fits(value, a.dtype, "masked_fill", ALL_FLOATS), a)
    return out if out.dtype == a.dtype else to_dtype(out, a.dtype)


def where(condition, a, b):
    """Pick ``a`` where ``condition`` holds, else ``b``."""
    if not any(isinstance(t, Tensor) for t in (condition, a, b)):  # inside a VJP on arrays
        return on_arrays(WHERE, (condition, a, b))
    like = next((t for t in (a, b, condition) if isinstance(t, Tensor)), None)
    if like is None:
        raise TypeError("where: at least one of condition, a, b must be a Tensor")
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):   # two numbers: their own dtype, as PyTorch's
        kind = (numpy.dtype(bool) if type(a) is bool and type(b) is bool else
                default_complex() if isinstance(a, _COMPLEX_NUMBERS) or isinstance(b, _COMPLEX_NUMBERS) else
                default_float() if isinstance(a, float) or isinstance(b, float) else numpy.dtype("int64"))
        a = Tensor._make(asarray(a, like.device, kind), False, None, like.device)
    if isinstance(a, Tensor):   # (a number beside a tensor: checked against the tensor's dtype)
        b = _number_fits(a, b, "where", WIDE_FLOATS)
    if isinstance(b, Tensor):
        a = _number_fits(b, a, "where", WIDE_FLOATS)
    a, b = promote(a, b)
    if isinstance(condition, bool) or (hasattr(condition, "dtype") and not isinstance(condition, Tensor)):
        condition = Tensor._make(asarray(condition, like.device, bool), False, None, like.device)
    condition = as_tensor_like(condition, like)
    if condition.dtype.kind != "b":
        raise RuntimeError(f"where: condition must be a bool tensor, got dtype {condition.dtype.name}: compare "
                           f"to get one, e.g. where(t != 0, a, b)")   # (PyTorch's class)
    return apply(WHERE, (condition, a, b))


def to_dtype(a, dtype):
    """Cast to ``dtype``; the gradient is cast back to ``a``'s dtype. A complex ``a`` is never cast to a real
    dtype here, where an op would lose its imaginary part without a word: NotImplementedError (a user's
    ``z.to(float32)`` is :func:`cast`, which warns as PyTorch does)."""
    dtype = numpy.dtype(dtype)
    if a.dtype == dtype:
        return a
    if a.dtype.kind == "c" and dtype.kind not in "cb":
        raise NotImplementedError(
            f"this op does not take complex numbers in autogradlab (it would compute in {dtype.name} and lose "
            f"the imaginary parts): give it z.real, z.imag or z.abs(), or cast with z.to({dtype.name}) yourself")
    return cast(a, dtype)


def cast(a, dtype):
    """``a.to(dtype)``: a complex tensor cast to a real dtype keeps its real parts, with PyTorch's warning."""
    dtype = numpy.dtype(dtype)
    if a.dtype == dtype:
        return a
    if dtype.kind not in "fc":  # integer / bool results are not differentiable (as in PyTorch)
        a = a.detach()
    return apply(TO_DTYPE, (a,), {"dtype": dtype})


def to_device(a, device):
    """Copy to ``device``; the gradient is copied back."""
    host = to_host(a._data)  # through the host: works for any pair of devices (and the strict backend)
    data = asarray(host.copy() if device == "cpu" else host, device)
    requires = state.grad_enabled and a._requires_grad
    out = Tensor._make(data, requires, None, device)
    if requires:
        node = OpNode(TO_DEVICE, (a._grad_fn or a._grad_accumulator(),), {"source": a.device},
                    (a.shape,), (a.dtype,), out, device)
        out._grad_fn = node
        tape = state.tape
        if tape is not None:
            tape.op_recorded(node, (a,), out)
    return out


CLONE = defop("clone", ("self",), math="copy of a;  da = g",
              forward=lambda xp, a: a.copy(),
              vjp=lambda g, ctx: (g,), formulas=("1",))


def clone(a):
    """A copy with its own memory (differentiable)."""
    return apply(CLONE, (a,))


# -- hypot, logaddexp, fmod ----------------------------------------------------------------------------------

def _hypot_vjp(g, ctx):
    scaled = g / ctx.result   # (0/0 = NaN where a = b = 0, as in PyTorch)
    return (scaled * ctx.self if ctx.needs_input_grad[0] else None,
            scaled * ctx.other if ctx.needs_input_grad[1] else None)


HYPOT = defop("hypot", ("self", "other"), save=("self", "other", "result"),
              math="r = sqrt(a^2 + b^2) (without overflow);  da = g*a/r, db = g*b/r",
              forward=lambda xp, a, b: xp.hypot(a, b), vjp=_hypot_vjp, formulas=("a/r", "b/r"))


def _logaddexp_vjp(g, ctx):
    a, b = ctx.self, ctx.other
    return (g / (1 + exp(b - a)) if ctx.needs_input_grad[0] else None,
            g / (1 + exp(a - b)) if ctx.needs_input_grad[1] else None)


def _logaddexp_forward(xp, a, b):
    with numpy.errstate(invalid="ignore"):   # (-inf and -inf: -inf, as in PyTorch)
        return xp.logaddexp(a, b)


LOGADDEXP = defop("logaddexp", ("self", "other"), save=("self", "other"),
                  math="log(e^a + e^b) (without overflow);  da = g/(1 + e^(b-a)), db = g/(1 + e^(a-b))",
                  forward=_logaddexp_forward, vjp=_logaddexp_vjp, formulas=("1/(1 + e^(b-a))", "1/(1 + e^(a-b))"))


def _fmod_forward(xp, a, b):
    with numpy.errstate(invalid="ignore", divide="ignore"):   # (x fmod 0.0 is NaN, as in PyTorch)
        return xp.fmod(a, b)


def _fmod_vjp(g, ctx):
    need_a, need_b = ctx.needs_input_grad
    return (g if need_a else None), (-g * trunc(ctx.self / ctx.other) if need_b else None)


FMOD = defop("fmod", ("self", "other"), save=("self", "other"), save_if={"self": 1, "other": 1},
             math="a - b*trunc(a/b) (the sign of a);  da = g, db = -g*trunc(a/b)",
             forward=_fmod_forward, vjp=_fmod_vjp, formulas=("1", "-trunc(a/b)"))


def _floats_pair(name, input, other):
    """The two Tensors of hypot / logaddexp, promoted; at least one must hold floats, as in PyTorch."""
    if not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}: "
                        f"wrap it with autogradlab.tensor(...)")
    real_only(name, input, other)
    if input.dtype.kind != "f" and other.dtype.kind != "f":
        raise NotImplementedError(f"{name}() is not implemented for {input.dtype.name} and {other.dtype.name} "
                                  f"tensors (as in PyTorch): convert one with .float()")
    return promote(input, other)


def hypot(input, other):
    """``sqrt(input^2 + other^2)``, the length of the hypotenuse, computed without overflow; float tensors only.
    Gradients: ``input/r`` and ``other/r``."""
    return apply(HYPOT, _floats_pair("hypot", input, other))


def logaddexp(input, other):
    """``log(exp(input) + exp(other))`` computed without overflow. Gradients: ``sigmoid(input - other)`` and
    ``sigmoid(other - input)``. Complex numbers: PyTorch's formula, built from ops with complex gradients (see
    :func:`log_add_exp_complex`)."""
    if isinstance(input, Tensor) and isinstance(other, Tensor) and "c" in (input.dtype.kind, other.dtype.kind):
        return log_add_exp_complex(*promote(input, other), where=where, log=log, log1p=log1p, exp=exp)
    return apply(LOGADDEXP, _floats_pair("logaddexp", input, other))


def log_add_exp_complex(a, b, where, log, log1p, exp):
    """``log(e^a + e^b)`` of complex a and b, PyTorch's way: with m the one of larger real part (a where they tie)
    and n the other, ``m + log1p(e^(n - m))``, whose imaginary part is m's plus an angle within +-pi/2 (of
    ``1 + e^(n - m)``, whose real part is > 0). Where both real parts are -inf: n; both +inf: ``log(e^a + e^b)``.
    Written once for Tensors and arrays: ``where``, ``log``, ``log1p`` and ``exp`` are given."""
    first = a.real >= b.real
    larger, smaller = where(first, a, b), where(first, b, a)
    tied_infinite = (larger.real == smaller.real) & (abs(larger.real) == numpy.inf)
    safe_larger, safe_smaller = where(tied_infinite, 0, larger), where(tied_infinite, 0, smaller)
    usual = safe_larger + log1p(exp(safe_smaller - safe_larger))
    if not bool(tied_infinite.any()):
        return usual
    at_plus_infinity = tied_infinite & (larger.real > 0)
    direct = log(exp(where(at_plus_infinity, a, 0)) + exp(where(at_plus_infinity, b, 0)))
    return where(tied_infinite, where(at_plus_infinity, direct, smaller), usual)


def fmod(input, other):
    """The C remainder ``input - other*trunc(input/other)``, with the sign of ``input`` (``remainder`` takes the sign
    of ``other``); ``other`` a tensor or a number. Gradients: ``1`` and ``-trunc(input/other)``."""
    if not isinstance(input, Tensor):
        raise TypeError(f"fmod(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    ordered("fmod", input)
    if _is_bool(input) and _is_bool(other):
        raise NotImplementedError("fmod() is not implemented for bool tensors (as in PyTorch): convert one, e.g. "
                                  "mask.to(autogradlab.int64)")
    if (_integers(input) and _integers(other) and input.numel()
            and not numpy.all(to_host(other._data if isinstance(other, Tensor) else other) != 0)):
        raise RuntimeError("ZeroDivisionError: fmod of integers by 0 is undefined")
    return apply(FMOD, promote(input, other))
