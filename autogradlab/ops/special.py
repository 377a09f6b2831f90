"""Elementwise functions lab code meets in losses and data cleaning, with PyTorch's names: ``xlogy``, ``logit``
and ``sinc`` (ops of their own: their values and gradients at 0, or at the clamp's edges, are set by convention,
as PyTorch sets them), and ``nan_to_num``, built from ``where`` (the replaced elements get no gradient)."""
from __future__ import annotations

import math
import numbers

import numpy

from ..tensor import Tensor, default_float
from .complex_numbers import complex as complex_from_parts
from .elementwise import (cos, half_in_float32, isinf, isnan, log, log1p, mul, ordered, promote_float,
                          result_type, sign, sin, sub, to_dtype, trunc, where)
from .registry import apply, defop, expect_tensor

__all__ = ["xlogy", "xlog1py", "entr", "nan_to_num", "logit", "sinc", "frac", "deg2rad", "rad2deg", "sgn",
           "heaviside"]


def _xlogy_forward(xp, x, y):
    with numpy.errstate(divide="ignore", invalid="ignore"):
        return xp.where((x == 0) & ~xp.isnan(y), 0, x * xp.log(y))


def _xlogy_vjp(g, ctx):
    x, y = ctx.self, ctx.other
    need_x, need_y = ctx.needs_input_grad
    with numpy.errstate(divide="ignore", invalid="ignore"):
        if need_x:   # xlogy(g, y), as PyTorch has it, but 0 where x = 0 and y <= 0 (there log y is -inf or NaN);
            # (written g * L, L = log y but 0 where g = 0 and log y is infinite: 0 * log 0 is 0, and where log y is
            # finite the derivative in g stays log y, which a jvp through this VJP reads)
            log_y = log(y)
            dx = where((x == 0) & (y <= 0), 0.0, g * where((g == 0) & isinf(log_y), 0.0, log_y))
        return (dx if need_x else None, g * x / y if need_y else None)


XLOGY = defop("xlogy", ("self", "other"), save=("self", "other"),
              math="x * log(y), 0 where x = 0 (unless y is NaN);  dx = g*log(y) (0 where x = 0 and y <= 0), dy = g*x/y",
              forward=_xlogy_forward, vjp=_xlogy_vjp, formulas=("log(y)", "x/y"))


def _xlog_pair(op, name, input, other):
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError(f"{name}(): at least one argument must be a Tensor, got {type(input).__name__} and "
                        f"{type(other).__name__}")
    x, y = promote_float(input, other)
    if x.dtype != y.dtype:   # (two dimensioned floats of different widths: both in the wider one, log y too)
        wide = result_type(x, y)
        x, y = to_dtype(x, wide), to_dtype(y, wide)
    if x.dtype.kind != "f":
        x, y = to_dtype(x, default_float()), to_dtype(y, default_float())
    return apply(op, (x, y))


def xlogy(input, other):
    """``input * log(other)``, with 0 where ``input`` is 0 (so ``0 * log(0)`` is 0, as entropy and cross-entropy
    sums want it), NaN where ``other`` is NaN. Either may be a number; integers compute in float32."""
    return _xlog_pair(XLOGY, "xlogy", input, other)


def _xlog1py_forward(xp, x, y):
    with numpy.errstate(divide="ignore", invalid="ignore"):
        return xp.where((x == 0) & ~xp.isnan(y), 0, x * xp.log1p(y))


def _xlog1py_vjp(g, ctx):
    x, y = ctx.self, ctx.other
    need_x, need_y = ctx.needs_input_grad
    with numpy.errstate(divide="ignore", invalid="ignore"):
        if need_x:   # as xlogy's, with log1p(y): 0 where x = 0 and y <= -1
            log1p_y = log1p(y)
            dx = where((x == 0) & (y <= -1), 0.0, g * where((g == 0) & isinf(log1p_y), 0.0, log1p_y))
        return (dx if need_x else None, g * x / (y + 1.0) if need_y else None)


XLOG1PY = defop("xlog1py", ("self", "other"), save=("self", "other"),
                math="x * log(1 + y), 0 where x = 0 (unless y is NaN);  dx = g*log(1 + y), dy = g*x/(1 + y)",
                forward=_xlog1py_forward, vjp=_xlog1py_vjp, formulas=("log(1 + y)", "x/(1 + y)"))


def xlog1py(input, other):
    """``input * log1p(other)``, with 0 where ``input`` is 0: the ``xlogy`` of ``1 + other``, exact for small
    ``other``. Either may be a number; integers compute in float32."""
    return _xlog_pair(XLOG1PY, "xlog1py", input, other)


def _entr_forward(xp, a):
    with numpy.errstate(all="ignore"):
        inside = xp.where(a > 0, -a * xp.log(xp.where(a > 0, a, 1)), 0).astype(a.dtype)
        return xp.where(a < 0, -numpy.inf, xp.where(a != a, a, inside)).astype(a.dtype)   # (NaN stays NaN)


def _entr_vjp(g, a):
    with numpy.errstate(divide="ignore", invalid="ignore"):   # (at 0: +inf; below: NaN, as in PyTorch)
        return (-(log(a) + 1.0) * g,)


ENTR = defop("entr", ("self",), save=("self",),
             math="-a ln a (0 at 0, -inf below);  da = -g*(ln a + 1)",
             forward=_entr_forward,
             vjp=lambda g, ctx: _entr_vjp(g, ctx.self),
             formulas=("-(ln a + 1)",))


def entr(input):
    """``-input * ln(input)`` elementwise, the terms of an entropy: 0 at 0, -inf for negative values."""
    expect_tensor(input, "entr")
    if input.dtype.kind != "f":
        input = to_dtype(input, default_float())
    return apply(ENTR, (input,))


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """``input`` with NaN replaced by ``nan``, +inf by ``posinf`` and -inf by ``neginf`` (by default the dtype's
    largest and lowest finite values); the replaced elements get no gradient. Integers come back as a copy."""
    expect_tensor(input, "nan_to_num")
    for name, value in (("nan", nan), ("posinf", posinf), ("neginf", neginf)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Real)):
            raise TypeError(f"nan_to_num(): argument '{name}' must be a float or None, not {type(value).__name__}")
    nan = 0.0 if nan is None else nan
    if input.dtype.kind == "c":   # (each part on its own, as PyTorch)
        return complex_from_parts(*(nan_to_num(part, nan, posinf, neginf) for part in (input.real, input.imag)))
    if input.dtype.kind != "f":
        return input.clone()
    info = numpy.finfo(input.dtype)
    high = float(info.max) if posinf is None else posinf
    low = float(info.min) if neginf is None else neginf
    out = where(isnan(input), float(nan), input)
    out = where(isinf(input) & (input > 0), float(high), out)
    return where(isinf(input) & (input < 0), float(low), out)


def _logit_forward(xp, a, eps):
    # (as PyTorch clamps: below eps to eps, else above 1 - eps to 1 - eps, also when eps > 0.5)
    z = a if eps is None else xp.where(a < eps, a.dtype.type(eps), xp.where(a > 1 - eps, a.dtype.type(1 - eps), a))
    with numpy.errstate(divide="ignore", invalid="ignore"):
        return xp.log(z / (1 - z))


def _logit_vjp(g, ctx):
    a, eps = ctx.self, ctx.eps
    with numpy.errstate(divide="ignore", invalid="ignore"):
        grad = g / (a * (1 - a))
        if eps is None:   # (outside [0, 1] the logit is NaN, and so is its gradient, as in PyTorch)
            return (where((a < 0) | (a > 1), float("nan"), grad),)
        return (where((a < eps) | (a > 1 - eps), 0.0, grad),)


LOGIT = defop("logit", ("self",), save=("self",),
              math="log(z/(1 - z)), z = clamp(a, eps, 1 - eps);  da = g/(a(1 - a)) (0 outside [eps, 1 - eps])",
              forward=_logit_forward, vjp=_logit_vjp, formulas=("1/(a(1 - a))",))


def logit(input, eps=None):
    """``log(z / (1 - z))``, the inverse of ``sigmoid``, with ``z = clamp(input, eps, 1 - eps)`` when ``eps`` is
    given (then the elements outside [eps, 1 - eps] get no gradient). Its derivative is ``1 / (z (1 - z))``."""
    expect_tensor(input, "logit")
    if eps is not None and (isinstance(eps, bool) or not isinstance(eps, numbers.Real)):
        raise TypeError(f"logit(): argument 'eps' must be a float or None, not {type(eps).__name__}")
    if input.dtype.kind != "f":
        input = to_dtype(input, default_float())
    return apply(LOGIT, (input,), {"eps": None if eps is None else float(eps)})


def _sinc_forward(xp, a):
    scaled = xp.where(a == 0, 1, a) * math.pi   # (a denominator that is never 0)
    with numpy.errstate(invalid="ignore"):      # (sin of an infinity: NaN, as in PyTorch)
        return xp.where(a == 0, 1, xp.sin(scaled) / scaled).astype(a.dtype)


# sinc'(a) = pi (s cos s - sin s) / s^2 with s = pi a; for |s| < 1/2 its Taylor series, pi * sum over n >= 1 of
# (-1)^n 2n s^(2n-1) / (2n+1)!, because the formula loses every digit to cancellation as s -> 0.
_SINC_SERIES = tuple((-1) ** n * 2 * n / math.factorial(2 * n + 1) for n in range(8, 0, -1))


def _sinc_vjp(g, ctx):
    a = ctx.self
    if not isinstance(a, Tensor) and a.dtype == numpy.float16:   # (in float32, rounded once, as the forward)
        return (g * _sinc_slope(a.astype(numpy.float32)).astype(numpy.float16),)
    return (g * _sinc_slope(a),)


def _sinc_slope(a):
    s = a * math.pi
    small = abs(s) < 0.5
    series = _SINC_SERIES[0]
    for c in _SINC_SERIES[1:]:   # (Horner's rule in s^2)
        series = series * (s * s) + c
    wide = where(small, 1.0, a) * math.pi      # (the formula where it is exact; 1 elsewhere, never 0)
    return where(small, math.pi * s * series, (wide * cos(wide) - sin(wide)) / (wide * wide) * math.pi)


SINC = defop("sinc", ("self",), save=("self",), math="sin(pi a)/(pi a), 1 at 0;  da = g*(pi a cos(pi a) - "
             "sin(pi a))/(pi a^2) (its Taylor series near 0, so 0 at 0)", forward=half_in_float32(_sinc_forward),
             vjp=_sinc_vjp, formulas=("(pi a cos(pi a) - sin(pi a))/(pi a^2)",), complex_vjp="holomorphic")


def sinc(input):
    """The normalised sinc, ``sin(pi x) / (pi x)``, 1 at x = 0 (where its gradient is 0). Near 0 the gradient
    is its Taylor series, accurate to the last digits (and twice differentiable: -pi^2/3 at 0). Holomorphic
    for complex numbers."""
    expect_tensor(input, "sinc")
    if input.dtype.kind not in "fc":
        input = to_dtype(input, default_float())
    return apply(SINC, (input,))


def _spherical_j0_forward(xp, a):
    with numpy.errstate(all="ignore"):
        small = abs(a) < 1e-3   # (1 - x^2/6 + x^4/120 there: sin(x)/x would lose digits to the division)
        value = xp.where(small, 1 - a * a / 6 + a ** 4 / 120, xp.sin(a) / xp.where(small, 1, a))
        return xp.where(xp.isinf(a), 0, value).astype(a.dtype)


def _spherical_j0_vjp(g, ctx):
    x = ctx.self
    small = abs(x) < 1e-3
    safe = where(small | isinf(x), 1.0, x)
    slope = where(small, x * (x * x / 30 - 1.0 / 3), (cos(safe) - ctx.result) / safe)   # (cos x - j_0(x)) / x
    return (g * where(isinf(x), 0.0, slope),)


SPHERICAL_J0 = defop("spherical_bessel_j0", ("self",), save=("self", "result"),
                     math="j_0(a) = sin(a)/a, 1 at 0;  da = g*(cos(a) - j_0(a))/a (its Taylor series near 0)",
                     forward=_spherical_j0_forward, vjp=_spherical_j0_vjp, formulas=("(cos(a) - j_0(a))/a",))


def spherical_bessel_j0(input):
    """The spherical Bessel function j_0(x) = sin(x)/x, 1 at 0 and 0 at +-inf (as PyTorch's); its Taylor series
    near 0. Differentiable to any order: j_0' = (cos x - j_0(x))/x."""
    expect_tensor(input, "spherical_bessel_j0")
    if input.dtype.kind == "c":
        raise NotImplementedError("spherical_bessel_j0 is not implemented for complex tensors (as in PyTorch): use "
                                  "sinc(z / pi)")
    return apply(SPHERICAL_J0, (input if input.dtype.kind == "f" else to_dtype(input, default_float()),))


def frac(input):
    """The fractional part ``x - trunc(x)`` (with x's sign: frac(-1.5) is -0.5); its gradient is 1."""
    expect_tensor(input, "frac")
    if input.dtype.kind != "f":
        raise NotImplementedError(f"frac() is not implemented for {input.dtype.name}: integers have no fractional "
                                  f"part (convert with input.float())")
    return sub(input, trunc(input))


def _angle(input, factor, name):
    expect_tensor(input, name)
    return mul(input if input.dtype.kind == "f" else to_dtype(input, default_float()), factor)


def deg2rad(input):
    """Degrees to radians: ``x * pi / 180`` (integers give float32)."""
    return _angle(input, math.pi / 180.0, "deg2rad")


def rad2deg(input):
    """Radians to degrees: ``x * 180 / pi`` (integers give float32)."""
    return _angle(input, 180.0 / math.pi, "rad2deg")


def sgn(input):
    """The sign, -1, 0 or 1 (for real numbers PyTorch's ``sgn`` is ``sign``; its gradient is 0); for complex
    numbers ``z/|z|``, 0 at 0 (with gradient 0 there, as PyTorch's)."""
    expect_tensor(input, "sgn")
    if input.dtype.kind == "c":
        r = input.abs()
        zero = r == 0
        return where(zero, 0.0, input / where(zero, 1.0, r))
    return sign(input)


def heaviside(input, values):
    """The step function: 0 where ``input`` < 0, 1 where > 0, and ``values`` (broadcast) where it is 0. Both
    tensors of one dtype, as PyTorch requires. PyTorch has no derivative for it; here ``values`` gets the
    gradient where ``input`` is 0 (the step itself has none)."""
    expect_tensor(input, "heaviside")
    ordered("heaviside", input, RuntimeError)
    if not isinstance(values, Tensor):
        raise TypeError(f"heaviside(): argument 'values' must be a Tensor, not {type(values).__name__}: write "
                        f"heaviside(x, autogradlab.tensor({values!r}))")
    if input.dtype != values.dtype:
        raise RuntimeError(f"heaviside is not yet implemented for tensors with different dtypes ({input.dtype.name} "
                           f"and {values.dtype.name}): convert one, e.g. values.to(input.dtype)")
    step = to_dtype(input.detach() > 0, input.dtype)
    return where(input.detach() == 0, values, step)
