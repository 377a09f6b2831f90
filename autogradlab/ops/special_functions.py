"""The special functions of ``torch.special`` beyond ``erf``, with their derivatives, under PyTorch's names.

* the gamma family: ``lgamma`` (``gammaln``), ``digamma`` (``psi``), ``polygamma``, ``mvlgamma``
  (``multigammaln``) and the Hurwitz ``zeta``; each one's derivative is the next one;
* the error function's: ``erfc``, ``erfcx`` (scaled), ``erfinv``; the standard normal's CDF ``ndtr``, its
  inverse ``ndtri`` and ``log_ndtr``;
* the modified Bessel functions of the first kind ``i0``, ``i1`` and their scaled forms ``i0e``, ``i1e``;
* the regularised incomplete gamma functions ``gammainc`` and ``gammaincc`` (the Gamma CDF and its complement),
  and ``standard_gamma_draw``, which makes a Gamma draw differentiable in its shape (Gamma, Beta and Dirichlet
  ``rsample``).

Everything is computed in float64 and rounded once to the input's float dtype (an integer input computes in
the default float dtype, as in PyTorch). ``lgamma`` and the error-function family go element by element
through Python's ``math`` (:func:`backend.per_element`); the others are written with whole-array operations,
so they run on any array module.
"""
from __future__ import annotations

import math
import numbers
import statistics
from fractions import Fraction

import numpy

from ..backend import per_element, to_host, xp_of
from ..graph import NO_DERIVATIVE, NO_SECOND_DERIVATIVE
from ..tensor import Tensor, default_float
from .elementwise import _floating_unary, exp, log, mul, promote_float, sign, to_dtype, where
from .registry import apply, defop, expect_tensor

__all__ = ["lgamma", "digamma", "polygamma", "mvlgamma", "zeta", "erfc", "erfcx", "erfinv", "ndtr", "ndtri",
           "log_ndtr", "i0", "i0e", "i1", "i1e", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_k0", "modified_bessel_k1",
           "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "gammainc", "gammaincc", "standard_gamma_draw"]

_INF, _NAN = math.inf, math.nan
_SQRT2 = math.sqrt(2.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_NORMAL = statistics.NormalDist()   # its inv_cdf is Wichura's algorithm AS241, accurate to about 1e-16


# -- scalar kernels: one Python float in, one out (through backend.per_element) -------------------

def _lgamma_scalar(x):
    """ln |Gamma(x)|; +inf at the poles 0, -1, -2, ... and past float64's range."""
    try:
        return math.lgamma(x)
    except (ValueError, OverflowError):
        return _INF


def _exp_of_square(x):
    """e^(x^2), with x^2 split into its rounded value and the rounding error (Dekker), so that the error of
    squaring (up to x^2 ulps of the result) does not reach the result."""
    c = 134217729.0 * x    # 2^27 + 1: x = hi + lo, each half of the mantissa
    hi = c - (c - x)
    lo = x - hi
    square = x * x
    tail = ((hi * hi - square) + 2.0 * hi * lo) + lo * lo
    return math.exp(square) * (1.0 + tail)


def _erfcx_scalar(x):
    """e^(x^2) erfc(x), which stays finite for large x where erfc underflows."""
    if x < -27.0:       # 2 e^(x^2) is past float64 (from x = -26.64 on)
        return _INF
    if x < 25.0:
        try:
            return _exp_of_square(x) * math.erfc(x)
        except OverflowError:   # x < -26.6: e^(x^2) past float64
            return _INF
    if x != x:
        return x
    # past 25: the asymptotic series 1/(x sqrt(pi)) * sum_k (-1)^k (2k - 1)!! / (2 x^2)^k (8 terms: 1e-19)
    term, total, half_inv_square = 1.0, 1.0, 0.5 / (x * x)
    for k in range(1, 9):
        term *= -(2 * k - 1) * half_inv_square
        total += term
    return total / (x * math.sqrt(math.pi))


def _ndtri_scalar(p):
    """The z with Phi(z) = p (Phi the standard normal CDF): -inf at 0, +inf at 1, NaN outside [0, 1]."""
    if p == 0.0:
        return -_INF
    if p == 1.0:
        return _INF
    if not 0.0 < p < 1.0:
        return _NAN
    return _NORMAL.inv_cdf(p)


def _erfinv_scalar(y):
    """The x with erf(x) = y: from ndtri, as erf x = 2 Phi(x sqrt 2) - 1, then one Newton step."""
    if not -1.0 <= y <= 1.0:
        return _NAN
    if y == 0.0 or abs(y) == 1.0:
        return y if y == 0.0 else math.copysign(_INF, y)
    a = abs(y)
    x = -_NORMAL.inv_cdf(0.5 * (1.0 - a)) / _SQRT2   # (1 - a is exact for a >= 1/2)
    slope = _TWO_OVER_SQRT_PI * math.exp(-x * x)
    if a < 0.5:   # 1 - a lost a's last digits: erf(x) - a finds them again
        x -= (math.erf(x) - a) / slope
    else:         # near 1, through erfc, which keeps the digits of 1 - a
        x += (math.erfc(x) - (1.0 - a)) / slope
    return math.copysign(x, y)


def _log_ndtr_scalar(x):
    """ln Phi(x), finite far into the left tail, where Phi(x) underflows (x < -38)."""
    if x < -1.0:
        if x == -_INF:
            return -_INF
        t = -x / _SQRT2      # Phi(x) = erfc(t)/2 = erfcx(t) e^(-t^2) / 2
        return math.log(0.5 * _erfcx_scalar(t)) - t * t
    return math.log1p(-0.5 * math.erfc(x / _SQRT2))


def _quiet(vjp):
    """A VJP whose infinities are answers (erfinv's slope at +-1, lgamma's at its poles): no NumPy warnings."""
    def run(g, ctx):
        with numpy.errstate(all="ignore"):
            return vjp(g, ctx)
    return run


def _float64(a):
    return a.astype(numpy.float64)


def _rounded(array, dtype):
    with numpy.errstate(over="ignore"):   # (past the dtype's range: inf, quietly)
        return array.astype(dtype)


# -- the gamma family --------------------------------------------------------------------------

def _digamma_array(xp, a):
    """psi(x) = Gamma'(x)/Gamma(x): shifted up with psi(x) = psi(x + 1) - 1/x, then its asymptotic series;
    below 1/2 by reflection, psi(x) = psi(1 - x) - pi/tan(pi x)."""
    x = _float64(a)
    with numpy.errstate(all="ignore"):
        reflect = x < 0.5
        y = xp.where(reflect, 1.0 - x, x)
        shift = xp.zeros_like(y)
        for _ in range(10):   # y >= 1/2 here, so ten steps bring it to 10 or more
            small = y < 10.0
            shift = shift - xp.where(small, 1.0 / y, 0.0)
            y = xp.where(small, y + 1.0, y)
        w = 1.0 / (y * y)     # ln y - 1/(2y) - sum_k B_2k / (2k y^2k)
        series = w * (1 / 12 - w * (1 / 120 - w * (1 / 252 - w * (1 / 240 - w * (1 / 132 - w * (
            691 / 32760 - w / 12))))))
        psi = shift + xp.log(y) - 0.5 / y - series
        psi = xp.where(reflect, psi - math.pi / xp.tan(math.pi * (x - xp.round(x))), psi)   # (tan: period pi)
        psi = xp.where(x == 0.0, xp.where(xp.signbit(x), _INF, -_INF), psi)   # (as PyTorch: -inf at +0)
        psi = xp.where((x < 0.0) & (x == xp.floor(x)), _NAN, psi)
        return psi.astype(a.dtype)   # (a float32 past its range: inf)


# B_2k / (2k)! for k = 1..12 (B_2k the Bernoulli numbers): the Euler-Maclaurin tail of the zeta sum
_BERNOULLI_2K = (Fraction(1, 6), Fraction(-1, 30), Fraction(1, 42), Fraction(-1, 30), Fraction(5, 66),
                 Fraction(-691, 2730), Fraction(7, 6), Fraction(-3617, 510), Fraction(43867, 798),
                 Fraction(-174611, 330), Fraction(854513, 138), Fraction(-236364091, 2730))
_TAIL = tuple(float(b / math.factorial(2 * k)) for k, b in enumerate(_BERNOULLI_2K, start=1))


def _zeta_arrays(xp, s, q):
    """The Hurwitz zeta function zeta(s, q) = sum over k >= 0 of (q + k)^-s, for float64 arrays: the first
    terms summed until q + k reaches max(10, s), the rest by Euler-Maclaurin. +inf at s = 1 and at
    q = 0, -1, -2, ... (and -inf); NaN for s < 1, and for q <= 0 unless s is whole (as PyTorch)."""
    with numpy.errstate(all="ignore"):
        s, q = s + xp.zeros_like(q), q + xp.zeros_like(s)
        reach = xp.maximum(10.0, s)
        pole = (q <= 0) & (q == xp.floor(q))
        undefined = pole | ((q <= 0) & (s != xp.floor(s))) | (s <= 1.0)   # (set below, whatever the sum)
        # a large s: the terms fall so fast that those with (q/(q + k))^s < e^-40 add nothing, and the
        # Euler-Maclaurin tail would not converge (s far above q + m): sum the few first terms alone
        direct = (s > 40.0) & (q > 0)
        # how many first terms each element sums itself: m, until q + m reaches max(10, s)
        m = xp.where(xp.isfinite(q) & xp.isfinite(s) & ~undefined, xp.maximum(xp.ceil(reach - q), 0.0), 0.0)
        m = xp.where(direct, xp.minimum(m, xp.ceil(q * xp.expm1(40.0 / s)) + 2.0), m)
        need = int(to_host(xp.max(m))) if q.size else 0
        total = xp.zeros_like(q)
        # those terms k = 0 .. m-1, a chunk of k at a time (a far negative q needs millions; a big array few)
        chunk = max(1, min(need, (1 << 20) // max(q.size, 1)))
        for start in range(0, need, chunk):
            k = xp.arange(start, min(start + chunk, need), dtype=numpy.float64)
            terms = (q[..., None] + k) ** -s[..., None]
            total = total + xp.where(k < m[..., None], terms, 0.0).sum(-1)
        a = q + m
        tail = a ** (1.0 - s) / (s - 1.0) + 0.5 * a ** -s
        factor, inv_square = s * a ** (-s - 1.0), 1.0 / (a * a)
        for k, coefficient in enumerate(_TAIL, start=1):   # B_2k/(2k)! * s(s+1)...(s+2k-2) * a^(-s-2k+1)
            tail = tail + coefficient * factor
            factor = factor * (s + 2 * k - 1) * (s + 2 * k) * inv_square
        total = total + xp.where(direct, 0.0, tail)
        total = xp.where(xp.isposinf(q), 0.0, total)   # (every term tends to 0; PyTorch gives NaN)
        total = xp.where((q <= 0) & ~pole & (s != xp.floor(s)), _NAN, xp.where(pole, _INF, total))
        total = xp.where(s == 1.0, _INF, xp.where(s < 1.0, _NAN, total))
    return total


def _cot_derivative_polynomial(n):
    """P_n with d^n/dx^n cot(pi x) = pi^n P_n(cot(pi x)): P_0(c) = c, P_(k+1)(c) = -(1 + c^2) P_k'(c)."""
    p = numpy.polynomial.Polynomial([0.0, 1.0])
    for _ in range(n):
        p = -numpy.polynomial.Polynomial([1.0, 0.0, 1.0]) * p.deriv()
    return p


def _polygamma_forward(xp, a, n):
    if n == 0:
        return _digamma_array(xp, a)
    x = _float64(a)   # psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x)
    with numpy.errstate(all="ignore"):
        # a negative x (not a pole) by reflection, psi^(n)(x) = (-1)^n psi^(n)(1 - x) - pi^(n+1) P_n(cot(pi x)):
        # its zeta sum then starts at 1 - x > 1 instead of stepping up from far below 0
        reflect = (x < 0) & (x != xp.floor(x))
        argument = xp.where(reflect, 1.0 - x, x)
        out = (-1.0) ** (n + 1) * float(math.factorial(n)) * _zeta_arrays(xp, xp.full_like(x, n + 1.0), argument)
        cot = 1.0 / xp.tan(math.pi * (x - xp.round(x)))   # (pi x reduced to [-pi/2, pi/2] first: x - round(x)
        # is exact, where x - floor(x) rounds the distance to a pole just left of it away)
        coefficients = _cot_derivative_polynomial(n).coef
        cot_term = sum(float(c) * cot ** k for k, c in enumerate(coefficients) if c)
        out = xp.where(reflect, (-1.0) ** n * out - math.pi ** (n + 1) * cot_term, out)
        return out.astype(a.dtype)


def _mvlgamma_forward(xp, a, p):
    x = _float64(a)   # ln Gamma_p(x) = p(p-1)/4 ln pi + sum over i < p of ln Gamma(x - i/2)
    out = sum(per_element(x - 0.5 * i, _lgamma_scalar, "gammaln") for i in range(p))
    with numpy.errstate(all="ignore"):
        return (out + p * (p - 1) / 4 * math.log(math.pi)).astype(a.dtype)


LGAMMA = defop("lgamma", ("self",), save=("self",), math="ln |Gamma(a)|;  da = g*digamma(a)",
               forward=lambda xp, a: per_element(a, _lgamma_scalar, "gammaln"),
               vjp=_quiet(lambda g, ctx: (g * digamma(ctx.self),)),
               formulas=("digamma(a)",))

DIGAMMA = defop("digamma", ("self",), save=("self",), math="psi(a) = Gamma'(a)/Gamma(a);  da = g*polygamma(1, a)",
                forward=_digamma_array,
                vjp=_quiet(lambda g, ctx: (g * polygamma(1, ctx.self),)),
                formulas=("polygamma(1, a)",))

POLYGAMMA = defop("polygamma", ("self",), save=("self",),
                  math="psi^(n)(a), the n-th derivative of digamma;  da = g*polygamma(n + 1, a)",
                  forward=_polygamma_forward,
                  vjp=_quiet(lambda g, ctx: (g * polygamma(ctx.n + 1, ctx.self),)),
                  formulas=("polygamma(n + 1, a)",))

MVLGAMMA = defop("mvlgamma", ("self",), save=("self",),
                 math="p(p-1)/4 ln pi + sum over i < p of lgamma(a - i/2);  da = g * sum of digamma(a - i/2)",
                 forward=_mvlgamma_forward,
                 vjp=_quiet(lambda g, ctx: (g * sum(digamma(ctx.self - 0.5 * i) for i in range(ctx.p)),)),
                 formulas=("sum of digamma(a - i/2)",))


def _zeta_vjp(g, ctx):
    x, q = ctx.self, ctx.other
    return (None, g * -x * zeta(x + 1.0, q) if ctx.needs_input_grad[1] else None)


ZETA = defop("zeta", ("self", "other"), save=("self", "other"),
             math="sum over k >= 0 of (q + k)^-x;  dq = -g*x*zeta(x + 1, q) (none for x)",
             forward=lambda xp, x, q: _rounded(_zeta_arrays(xp, _float64(x), _float64(q)), q.dtype),
             vjp=_quiet(_zeta_vjp), formulas=("(not implemented)", "-x*zeta(x + 1, q)"))


def _converged(xp, step, total, n):
    """Every 32 terms, one look from the host: is each series' last step below 1e-17 of its sum?"""
    return n % 32 == 0 and not bool(to_host(xp.any(xp.abs(step) > 1e-17 * xp.abs(total))))


def _regularized_gamma(xp, a, x, upper):
    """P(a, x) = gamma(a, x) / Gamma(a), the lower regularised incomplete gamma function (Q = 1 - P when
    ``upper``): below x = a + 1 by its power series e^-x x^a / Gamma(a + 1) * sum_n x^n / ((a+1)...(a+n)), above
    it Q by its continued fraction (Lentz's method), each where it converges fast."""
    a, x = _float64(a), _float64(x)
    a, x = a + xp.zeros_like(x), x + xp.zeros_like(a)
    with numpy.errstate(all="ignore"):
        low = x < a + 1.0
        xs = xp.where(low, x, 0.5 * (a + 1.0))         # (series: only where it converges fast)
        term = xp.ones_like(xs)
        total = xp.ones_like(xs)
        for n in range(1, 100_000):
            term = term * xs / (a + n)
            total = total + term
            if _converged(xp, term, total, n):
                break
        p_series = xp.exp(a * xp.log(xs) - xs - per_element(a + 1.0, _lgamma_scalar, "gammaln")) * total
        xc = xp.where(low, a + 1.0, x)                  # (continued fraction: only above a + 1)
        tiny = 1e-300
        b = xc + 1.0 - a
        c = xp.full_like(xc, 1.0 / tiny)
        d = 1.0 / b
        h = d
        for i in range(1, 100_000):
            an = -i * (i - a)
            b = b + 2.0
            d = an * d + b
            d = xp.where(xp.abs(d) < tiny, tiny, d)
            c = b + an / c
            c = xp.where(xp.abs(c) < tiny, tiny, c)
            d = 1.0 / d
            delta = d * c
            h = h * delta
            if _converged(xp, delta - 1.0, xp.ones_like(delta), i):
                break
        q_cf = xp.exp(a * xp.log(xc) - xc - per_element(a, _lgamma_scalar, "gammaln")) * h
        out = xp.where(low, 1.0 - p_series if upper else p_series, q_cf if upper else 1.0 - q_cf)
        edge_p = xp.where(x == 0, 0.0, xp.where(xp.isposinf(x) | (a == 0), 1.0, xp.where(xp.isposinf(a), 0.0, _NAN)))
        edge = (x == 0) | xp.isposinf(x) | (a == 0) | xp.isposinf(a)
        out = xp.where(edge, 1.0 - edge_p if upper else edge_p, out)
        return xp.where((a < 0) | (x < 0) | xp.isnan(a) | xp.isnan(x), _NAN, out)


def _gammainc_vjp(g, ctx):
    a, x = ctx.self, ctx.other   # dP/dx = x^(a-1) e^-x / Gamma(a), the Gamma(a, 1) density; Q's is its negative
    slope = exp((a - 1.0) * log(x) - x - lgamma(a))
    return (None, g * (-slope if ctx.upper else slope))


GAMMAINC = defop("gammainc", ("self", "other"), save=("self", "other"),
                 math="P(a, x) = integral of t^(a-1) e^-t from 0 to x / Gamma(a);  dx = g*x^(a-1) e^-x / Gamma(a)",
                 forward=lambda xp, a, x, upper: _rounded(_regularized_gamma(xp, a, x, upper), x.dtype),
                 vjp=_quiet(_gammainc_vjp), formulas=("(not implemented)", "x^(a-1) e^-x / Gamma(a)"))


# -- the error function's family -------------------------------------------------------------------

ERFC = defop("erfc", ("self",), save=("self",), math="1 - erf(a);  da = -g*2/sqrt(pi)*e^(-a^2)",
             forward=lambda xp, a: per_element(a, math.erfc, "erfc"),
             vjp=_quiet(lambda g, ctx: (exp(-(ctx.self * ctx.self)) * -_TWO_OVER_SQRT_PI * g,)),
             formulas=("-2/sqrt(pi)*exp(-a^2)",))

ERFCX = defop("erfcx", ("self",), save=("self", "result"), math="y = e^(a^2) erfc(a);  da = g*(2a*y - 2/sqrt(pi))",
              forward=lambda xp, a: per_element(a, _erfcx_scalar, "erfcx"),
              vjp=_quiet(lambda g, ctx: (g * (2.0 * ctx.self * ctx.result - _TWO_OVER_SQRT_PI),)),
              formulas=("2a*erfcx(a) - 2/sqrt(pi)",))

ERFINV = defop("erfinv", ("self",), save=("result",), math="y with erf(y) = a;  da = g*sqrt(pi)/2*e^(y^2)",
               forward=lambda xp, a: per_element(a, _erfinv_scalar, "erfinv"),
               vjp=_quiet(lambda g, ctx: (exp(ctx.result * ctx.result) * (0.5 * math.sqrt(math.pi)) * g,)),
               formulas=("sqrt(pi)/2*exp(erfinv(a)^2)",))

NDTRI = defop("ndtri", ("self",), save=("result",), math="y with Phi(y) = a;  da = g*sqrt(2 pi)*e^(y^2/2)",
              forward=lambda xp, a: per_element(a, _ndtri_scalar, "ndtri"),
              vjp=_quiet(lambda g, ctx: (exp(ctx.result * ctx.result * 0.5) * math.sqrt(2.0 * math.pi) * g,)),
              formulas=("sqrt(2 pi)*exp(ndtri(a)^2/2)",))

LOG_NDTR = defop("log_ndtr", ("self",), save=("self", "result"),
                 math="y = ln Phi(a);  da = g*e^(-a^2/2 - y)/sqrt(2 pi)",
                 forward=lambda xp, a: per_element(a, _log_ndtr_scalar, "log_ndtr"),
                 vjp=_quiet(lambda g, ctx: (exp(ctx.self * ctx.self * -0.5 - ctx.result) * _INV_SQRT_2PI * g,)),
                 formulas=("exp(-a^2/2 - log_ndtr(a))/sqrt(2 pi)",))


# -- modified Bessel functions of the first kind ---------------------------------------------------

def _bessel_i(xp, a, order, scaled):
    """I_0 or I_1 (order), times e^-|x| when ``scaled``: the power series up to |x| = 30, where its terms
    are all positive; past it the asymptotic series e^|x|/sqrt(2 pi |x|) * sum_k (-1)^k c_k(order)/|x|^k."""
    x = _float64(a)
    with numpy.errstate(all="ignore"):
        ax = xp.abs(x)
        quarter_square = 0.25 * x * x      # I_v(x) = (x/2)^v * sum_k (x^2/4)^k / (k! (k + v)!)
        term = xp.ones_like(x)
        series = xp.ones_like(x)
        for k in range(1, 60):
            term = term * quarter_square / (k * (k + order))
            series = series + term
        if order == 1:
            series = series * (0.5 * ax)
        small = series * xp.exp(-ax) if scaled else series
        inv = 1.0 / ax                     # c_k(v) = prod over j <= k of (4v^2 - (2j - 1)^2) / (8j)
        term = xp.ones_like(x)
        tail = xp.ones_like(x)
        for k in range(1, 25):
            term = term * -((4 * order * order - (2 * k - 1) ** 2) / (8.0 * k)) * inv
            tail = tail + term
        tail = tail * (_INV_SQRT_2PI / xp.sqrt(ax))
        large = tail if scaled else tail * xp.exp(0.5 * ax) * xp.exp(0.5 * ax)   # (halves: later overflow)
        out = xp.where(ax <= 30.0, small, large)
        out = xp.where(xp.isinf(x), 0.0 if scaled else _INF, out)
        if order == 1:   # I_1 is odd
            out = xp.where(x < 0, -out, out)
        return out.astype(a.dtype)


def _i1_over_x(x):
    """i1(x)/x, with its limit 1/2 at 0 (a safe denominator: no 0/0 on the branch ``where`` drops)."""
    at_zero = x == 0
    return where(at_zero, 0.5, i1(x) / where(at_zero, 1.0, x))


def _i1e_over_x(x):
    at_zero = x == 0
    return where(at_zero, 0.5, i1e(x) / where(at_zero, 1.0, x))


I0 = defop("i0", ("self",), save=("self",), math="I_0(a) = sum_k (a/2)^2k / k!^2;  da = g*i1(a)",
           forward=lambda xp, a: _bessel_i(xp, a, 0, False),
           vjp=_quiet(lambda g, ctx: (g * i1(ctx.self),)),
           formulas=("i1(a)",))

I0E = defop("i0e", ("self",), save=("self", "result"), math="y = e^-|a| I_0(a);  da = g*(i1e(a) - sign(a)*y)",
            forward=lambda xp, a: _bessel_i(xp, a, 0, True),
            vjp=_quiet(lambda g, ctx: (g * (i1e(ctx.self) - sign(ctx.self) * ctx.result),)),
            formulas=("i1e(a) - sign(a)*i0e(a)",))

I1 = defop("i1", ("self",), save=("self",), math="I_1(a);  da = g*(i0(a) - i1(a)/a) (1/2 at 0)",
           forward=lambda xp, a: _bessel_i(xp, a, 1, False),
           vjp=_quiet(lambda g, ctx: (g * (i0(ctx.self) - _i1_over_x(ctx.self)),)),
           formulas=("i0(a) - i1(a)/a",))

I1E = defop("i1e", ("self",), save=("self",), math="e^-|a| I_1(a);  da = g*(i0e(a) - i1e(a)*(sign(a) + 1/a))",
            forward=lambda xp, a: _bessel_i(xp, a, 1, True),
            vjp=_quiet(lambda g, ctx: (g * (i0e(ctx.self) - i1e(ctx.self) * sign(ctx.self) - _i1e_over_x(ctx.self)),)),
            formulas=("i0e(a) - i1e(a)*(sign(a) + 1/a)",))


# -- Bessel functions of the first kind, and modified ones of the second kind -----------------------------

_EULER_GAMMA = 0.5772156649015329
_CHUNK = 1 << 15   # (elements at a time through a quadrature: its (elements x points) table stays small)


def _pieces(xp, x, pieces):
    """A function of the 1-D float64 ``x`` defined piece by piece: ``pieces`` is a list of (mask, fn), each fn run
    on the elements of its mask only (a chunk at a time), the rest NaN."""
    out = xp.full(x.shape, xp.nan)
    for mask, fn in pieces:
        part = x[mask]
        if part.shape[0]:
            out[mask] = xp.concatenate([fn(part[i:i + _CHUNK]) for i in range(0, part.shape[0], _CHUNK)])
    return out


def _asymptotic(x, order, xp):
    """Hankel's asymptotic series for x > 25 (their smallest term there is below e^-50): ``(P, Q, S)`` with P and
    Q the even and odd terms of sum_k (+-) a_k(v)/x^k (for J and Y) and S = sum_k a_k(v)/x^k (for e^x K), where
    a_k = prod over j <= k of (4v^2 - (2j - 1)^2)/(8j)."""
    p, q, total, term = xp.ones_like(x), xp.zeros_like(x), xp.ones_like(x), xp.ones_like(x)
    for k in range(1, 40):
        term = term * ((4 * order * order - (2 * k - 1) ** 2) / (8.0 * k)) / x
        total = total + term
        if k % 2:
            q = q + term * (1 if k % 4 == 1 else -1)
        else:
            p = p + term * (-1 if k % 4 == 2 else 1)
    return p, q, total


def _hankel(x, order, xp, second=False):
    """J_v(x) (``second``: Y_v(x)) for x > 25: sqrt(2/(pi x)) (P cos chi - Q sin chi) (Y: P sin chi + Q cos chi),
    chi = x - (v/2 + 1/4) pi."""
    p, q, _ = _asymptotic(x, order, xp)
    # cos and sin of chi through those of x (no rounding of x - 3 pi/4 for a large x), times sqrt 2
    c, s = xp.cos(x), xp.sin(x)
    cos_chi, sin_chi = ((c + s, s - c) if order == 0 else (s - c, -(s + c)))
    if second:
        return xp.sqrt(1.0 / (math.pi * x)) * (p * sin_chi + q * cos_chi)
    return xp.sqrt(1.0 / (math.pi * x)) * (p * cos_chi - q * sin_chi)


def _series_j(z, order, xp):
    """J_v(z) = sum_k (-1)^k (z/2)^(2k+v) / (k! (k+v)!), for |z| <= 2 (no cancellation to speak of)."""
    term = (0.5 * z) ** order
    series = term
    for k in range(1, 30):
        term = term * -(0.25 * z * z) / (k * (k + order))
        series = series + term
    return series


def _bessel_j(xp, a, order):
    """J_0 or J_1: for |x| <= 2 the power series; up to 25 the trapezoidal rule on J_v(x) = (1/2 pi) integral over
    a period of cos(v t - x sin t) dt (96 points: exact to rounding, the integrand being periodic and analytic);
    beyond, Hankel's asymptotic series. J_0 is even, J_1 odd; NaN at +-inf and NaN, as PyTorch's."""
    x = _float64(a)
    flat = xp.abs(x).reshape(-1)
    angles = xp.arange(96) * (2 * math.pi / 96)

    def middle(ax):
        return xp.cos(order * angles - ax[:, None] * xp.sin(angles)).mean(axis=1)
    with numpy.errstate(all="ignore"):
        out = _pieces(xp, flat, [(flat <= 2, lambda z: _series_j(z, order, xp)),
                                 ((flat > 2) & (flat <= 25), middle),
                                 ((flat > 25) & (flat < xp.inf), lambda z: _hankel(z, order, xp))]).reshape(x.shape)
        if order == 1:
            out = xp.where(x < 0, -out, out)
    return out.astype(a.dtype)


def _bessel_y(xp, a, order):
    """Y_0 or Y_1 for x > 0: for x <= 2 the power series (Y_0 = (2/pi) ((ln(x/2) + gamma) J_0 + sum_k (-1)^(k+1)
    H_k (x^2/4)^k / k!^2), Y_1 = -2/(pi x) + (2/pi) ln(x/2) J_1 - (1/pi) sum_k (-1)^k (psi(k+1) + psi(k+2))
    (x/2)^(2k+1) / (k! (k+1)!)); up to 25 Gauss-Legendre quadrature (100 points) on Y_v(x) = (1/pi) integral
    from 0 to pi of sin(x sin t - v t) dt - (1/pi) integral from 0 to inf of (e^(vt) + (-1)^v e^(-vt))
    e^(-x sinh t) dt; beyond, Hankel's asymptotic series. -inf at 0, NaN below 0 and at inf, as PyTorch's."""
    x = _float64(a).reshape(-1)

    def series(z):
        quarter = 0.25 * z * z
        j = _series_j(z, order, xp)
        log_half = xp.log(z) - math.log(2.0)   # (not log(z/2): z/2 underflows for the smallest z)
        if order == 0:
            term, harmonic, total = xp.ones_like(z), 0.0, xp.zeros_like(z)
            for k in range(1, 30):
                harmonic += 1.0 / k
                term = term * quarter / (k * k)
                total = total + (harmonic if k % 2 else -harmonic) * term
            return (2 / math.pi) * ((log_half + _EULER_GAMMA) * j + total)
        term, total = 0.5 * z, (1 - 2 * _EULER_GAMMA) * 0.5 * z   # (psi(1) + psi(2) = 1 - 2 gamma)
        digamma_k1, digamma_k2 = -_EULER_GAMMA, 1 - _EULER_GAMMA
        for k in range(1, 30):
            term = term * -quarter / (k * (k + 1))
            digamma_k1, digamma_k2 = digamma_k1 + 1.0 / k, digamma_k2 + 1.0 / (k + 1)
            total = total + (digamma_k1 + digamma_k2) * term
        return -2 / math.pi / z + (2 / math.pi) * log_half * j - total / math.pi
    nodes, weights = (xp.asarray(v) for v in numpy.polynomial.legendre.leggauss(100))

    def middle(v):
        angle = (nodes + 1) * (math.pi / 2)
        oscillating = (xp.sin(v[:, None] * xp.sin(angle) - order * angle) * weights).sum(axis=1) / 2
        reach = xp.arcsinh(50.0 / v)   # (where x sinh t = 50)
        t = (nodes + 1) * (0.5 * reach[:, None])
        decaying = ((xp.exp(order * t) + (-1) ** order * xp.exp(-order * t)) * xp.exp(-v[:, None] * xp.sinh(t))
                    * weights).sum(axis=1) * (0.5 * reach)
        return oscillating - decaying / math.pi
    with numpy.errstate(all="ignore"):
        out = _pieces(xp, x, [((x > 0) & (x <= 2), series), ((x > 2) & (x <= 25), middle),
                              ((x > 25) & (x < xp.inf), lambda z: _hankel(z, order, xp, second=True))])
        out = xp.where(x == 0, -xp.inf, out)
    return out.reshape(a.shape).astype(a.dtype)


def _bessel_k_scaled(xp, a, order):
    """e^x K_0(x) or e^x K_1(x) for x >= 0: for x <= 2 the power series (K_0 = -(ln(x/2) + gamma) I_0 + sum_k
    H_k (x^2/4)^k / k!^2, K_1 = 1/x + ln(x/2) I_1 - (x/4) sum_k (psi(k+1) + psi(k+2)) (x^2/4)^k / (k! (k+1)!));
    up to 25 the trapezoidal rule on e^x K_v(x) = integral from 0 to inf of e^(-2x sinh^2(t/2)) cosh(v t) dt
    (even and analytic in t: exact to rounding with 128 points up to where the integrand is below e^-50); beyond,
    the asymptotic series sqrt(pi/(2x)) sum_k a_k(v)/x^k."""
    x = _float64(a).reshape(-1)

    def series(z):
        quarter = 0.25 * z * z
        i0, i1 = _bessel_i(xp, z, 0, False), _bessel_i(xp, z, 1, False)
        term, harmonic, total = xp.ones_like(z), 0.0, xp.zeros_like(z)
        digamma_k1, digamma_k2 = -_EULER_GAMMA, 1 - _EULER_GAMMA   # psi(1), psi(2)
        for k in range(0, 30):
            if order == 0:
                if k:
                    harmonic += 1.0 / k
                    term = term * quarter / (k * k)
                    total = total + harmonic * term
            else:
                if k:
                    term = term * quarter / (k * (k + 1))
                    digamma_k1, digamma_k2 = digamma_k1 + 1.0 / k, digamma_k2 + 1.0 / (k + 1)
                total = total + (digamma_k1 + digamma_k2) * term
        log_half = xp.log(z) - math.log(2.0)
        value = -(log_half + _EULER_GAMMA) * i0 + total if order == 0 else 1.0 / z + log_half * i1 - 0.25 * z * total
        return value * xp.exp(z)

    def quadrature(v):
        reach = xp.arccosh(1.0 + 50.0 / v)   # (where 2v sinh^2(t/2) = 50)
        h = reach / 128
        t = h[:, None] * xp.arange(129)
        f = xp.exp(-2.0 * v[:, None] * xp.sinh(0.5 * t) ** 2) * xp.cosh(order * t)
        return h * (f.sum(axis=1) - 0.5 * f[:, 0])

    def far(v):
        return xp.sqrt(math.pi / (2 * v)) * _asymptotic(v, order, xp)[2]
    with numpy.errstate(all="ignore"):
        out = _pieces(xp, x, [((x > 0) & (x <= 2), series), ((x > 2) & (x <= 25), quadrature),
                              ((x > 25) & (x < xp.inf), far)])
        out = xp.where(x == 0, xp.inf, xp.where(x == xp.inf, 0.0, out))
    return out.reshape(a.shape)


def _bessel_k(xp, a, order, scaled):
    value = _bessel_k_scaled(xp, a, order)
    if not scaled:
        with numpy.errstate(all="ignore"):
            x = _float64(a)
            value = xp.where(xp.isinf(value), value, value * xp.exp(-x))
    return _rounded(value, a.dtype)


def _over_x(values, x):
    """values / x with a 0 where x is 0 (where the caller's limit takes over)."""
    at_zero = x == 0
    return where(at_zero, 0.0, values / where(at_zero, 1.0, x))


BESSEL_J0 = defop("bessel_j0", ("self",), save=("self",), math="J_0(a);  da = -g*J_1(a)",
                  forward=lambda xp, a: _bessel_j(xp, a, 0),
                  vjp=_quiet(lambda g, ctx: (-g * bessel_j1(ctx.self),)), formulas=("-J_1(a)",))

BESSEL_J1 = defop("bessel_j1", ("self",), save=("self",), math="J_1(a);  da = g*(J_0(a) - J_1(a)/a) (1/2 at 0)",
                  forward=lambda xp, a: _bessel_j(xp, a, 1),
                  vjp=_quiet(lambda g, ctx: (g * (bessel_j0(ctx.self) - where(ctx.self == 0, 0.5, _over_x(
                      bessel_j1(ctx.self), ctx.self))),)),
                  formulas=("J_0(a) - J_1(a)/a",))

BESSEL_Y0 = defop("bessel_y0", ("self",), save=("self",), math="Y_0(a);  da = -g*Y_1(a)",
                  forward=lambda xp, a: _bessel_y(xp, a, 0),
                  vjp=_quiet(lambda g, ctx: (-g * bessel_y1(ctx.self),)), formulas=("-Y_1(a)",))

BESSEL_Y1 = defop("bessel_y1", ("self",), save=("self",), math="Y_1(a);  da = g*(Y_0(a) - Y_1(a)/a)",
                  forward=lambda xp, a: _bessel_y(xp, a, 1),
                  vjp=_quiet(lambda g, ctx: (g * (bessel_y0(ctx.self) - bessel_y1(ctx.self) / ctx.self),)),
                  formulas=("Y_0(a) - Y_1(a)/a",))

BESSEL_K0 = defop("modified_bessel_k0", ("self",), save=("self",), math="K_0(a);  da = -g*K_1(a)",
                  forward=lambda xp, a: _bessel_k(xp, a, 0, False),
                  vjp=_quiet(lambda g, ctx: (-g * modified_bessel_k1(ctx.self),)), formulas=("-K_1(a)",))

BESSEL_K1 = defop("modified_bessel_k1", ("self",), save=("self",), math="K_1(a);  da = -g*(K_0(a) + K_1(a)/a)",
                  forward=lambda xp, a: _bessel_k(xp, a, 1, False),
                  vjp=_quiet(lambda g, ctx: (-g * (modified_bessel_k0(ctx.self)
                                                   + modified_bessel_k1(ctx.self) / ctx.self),)),
                  formulas=("-(K_0(a) + K_1(a)/a)",))

BESSEL_K0E = defop("scaled_modified_bessel_k0", ("self",), save=("self", "result"),
                   math="y = e^a K_0(a);  da = g*(y - e^a K_1(a))",
                   forward=lambda xp, a: _bessel_k(xp, a, 0, True),
                   vjp=_quiet(lambda g, ctx: (g * (ctx.result - scaled_modified_bessel_k1(ctx.self)),)),
                   formulas=("e^a (K_0(a) - K_1(a))",))

BESSEL_K1E = defop("scaled_modified_bessel_k1", ("self",), save=("self", "result"),
                   math="y = e^a K_1(a);  da = g*(y - e^a K_0(a) - y/a)",
                   forward=lambda xp, a: _bessel_k(xp, a, 1, True),
                   vjp=_quiet(lambda g, ctx: (g * (ctx.result - scaled_modified_bessel_k0(ctx.self)
                                                   - ctx.result / ctx.self),)),
                   formulas=("e^a (K_1(a) - K_0(a) - K_1(a)/a)",))


# -- the package functions --------------------------------------------------------------------------

def _floating(x, name):
    """A Tensor in a float dtype (integers and bools compute in the default float dtype, as in PyTorch),
    or an array as it is (inside a VJP that runs on arrays)."""
    if not isinstance(x, Tensor):
        if hasattr(x, "dtype") and hasattr(x, "shape"):
            return x
        expect_tensor(x, name)
    return x if x.dtype.kind == "f" else to_dtype(x, default_float())


def _float_pair(x, y, name):
    """Two Tensors in one float dtype by PyTorch's promotion: a dimensioned operand's dtype wins over a 0-d one's
    of the same category (``float32[3]`` with ``float64[]`` is float32), else the wider; integers and bools
    compute in the default float dtype."""
    x, y = promote_float(x, y)
    if x.dtype != y.dtype:
        wide = numpy.promote_types(x.dtype, y.dtype)
        x, y = to_dtype(x, wide), to_dtype(y, wide)
    return _floating(x, name), _floating(y, name)


def _unary(op, name, doc):
    """The package function of a unary op: elementwise's own wrapper (an integer input in the default float
    dtype, arrays inside a VJP run on at once), with its docstring."""
    fn = _floating_unary(op)
    fn.__qualname__, fn.__doc__ = name, doc
    return fn


lgamma = _unary(LGAMMA, "lgamma", "ln |Gamma(input)|, the log of the gamma function's absolute value (+inf at "
                "0, -1, -2, ...). Its derivative is ``digamma``.")
digamma = _unary(DIGAMMA, "digamma", "psi(input) = Gamma'(x)/Gamma(x), the derivative of ``lgamma`` (-inf at "
                 "+0, NaN at -1, -2, ...). Its derivative is ``polygamma(1, input)``.")
erfc = _unary(ERFC, "erfc", "1 - erf(input), keeping its digits where erf is near 1.")
erfcx = _unary(ERFCX, "erfcx", "e^(x^2) erfc(x), the scaled complementary error function: finite where erfc "
               "underflows (x > 26).")
erfinv = _unary(ERFINV, "erfinv", "The inverse of erf: the y with erf(y) = input (+-inf at +-1, NaN outside "
                "[-1, 1]).")
ndtri = _unary(NDTRI, "ndtri", "The inverse of the standard normal CDF: the z with Phi(z) = input (the "
               "normal quantile function).")
log_ndtr = _unary(LOG_NDTR, "log_ndtr", "ln Phi(input), the log of the standard normal CDF, finite far into "
                  "its left tail.")
i0 = _unary(I0, "i0", "I_0(input), the modified Bessel function of the first kind of order 0.")
i0e = _unary(I0E, "i0e", "e^-|x| I_0(x), which stays finite where I_0 overflows (|x| > 713).")
i1 = _unary(I1, "i1", "I_1(input), the modified Bessel function of the first kind of order 1.")
i1e = _unary(I1E, "i1e", "e^-|x| I_1(x), which stays finite where I_1 overflows.")
bessel_j0 = _unary(BESSEL_J0, "bessel_j0", "J_0(input), the Bessel function of the first kind of order 0.")
bessel_j1 = _unary(BESSEL_J1, "bessel_j1", "J_1(input), the Bessel function of the first kind of order 1.")
bessel_y0 = _unary(BESSEL_Y0, "bessel_y0", "Y_0(input), the Bessel function of the second kind of order 0 (x > 0; "
                   "-inf at 0).")
bessel_y1 = _unary(BESSEL_Y1, "bessel_y1", "Y_1(input), the Bessel function of the second kind of order 1 (x > 0; "
                   "-inf at 0).")
modified_bessel_k0 = _unary(BESSEL_K0, "modified_bessel_k0", "K_0(input), the modified Bessel function of the "
                            "second kind of order 0 (x > 0; inf at 0).")
modified_bessel_k1 = _unary(BESSEL_K1, "modified_bessel_k1", "K_1(input), the modified Bessel function of the "
                            "second kind of order 1 (x > 0; inf at 0).")
scaled_modified_bessel_k0 = _unary(BESSEL_K0E, "scaled_modified_bessel_k0", "e^x K_0(x), finite where K_0 "
                                   "underflows.")
scaled_modified_bessel_k1 = _unary(BESSEL_K1E, "scaled_modified_bessel_k1", "e^x K_1(x), finite where K_1 "
                                   "underflows.")


def ndtr(input):
    """Phi(input), the standard normal CDF: erfc(-x/sqrt 2)/2 (accurate in the left tail). Its derivative is
    the normal density e^(-x^2/2)/sqrt(2 pi)."""
    return mul(erfc(mul(_floating(input, "ndtr"), -1.0 / _SQRT2)), 0.5)


def _whole_number(value, what, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name}(): argument '{what}' must be an int, not {type(value).__name__}")
    return int(value)


def polygamma(n, input):
    """psi^(n)(input), the n-th derivative of ``digamma`` (``polygamma(0, x)`` is ``digamma(x)``): for n >= 1,
    (-1)^(n+1) n! zeta(n + 1, x). Its derivative is ``polygamma(n + 1, input)``."""
    n = _whole_number(n, "n", "polygamma")
    if n < 0:
        raise RuntimeError(f"polygamma(n, x) does not support negative n (got n={n}): n counts derivatives of "
                           f"digamma; for lgamma itself call lgamma(x)")
    return apply(POLYGAMMA, (_floating(input, "polygamma"),), {"n": n})


def mvlgamma(input, p):
    """ln Gamma_p(input), the log of the multivariate gamma function of dimension ``p`` (in the Wishart
    density): p(p-1)/4 ln pi + the sum over i < p of lgamma(input - i/2)."""
    p = _whole_number(p, "p", "mvlgamma")
    if p < 1:
        raise RuntimeError(f"mvlgamma(): p has to be greater than or equal to 1 (got p={p}): it is the "
                           f"dimension of the multivariate gamma function")
    return apply(MVLGAMMA, (_floating(input, "mvlgamma"),), {"p": p})


def _without_derivative(out, index, why):
    """``out``, its node noted as having no derivative for input ``index`` when that input requires grad: a
    backward that needs that gradient is refused while it plans, before any work (``graph.NO_DERIVATIVE``)."""
    node = out.grad_fn
    if node is not None and node.edges[index] is not None:
        NO_DERIVATIVE[node] = (index, why)
    return out


def _incomplete_gamma(input, other, upper):
    name = "gammaincc" if upper else "gammainc"
    if not isinstance(input, Tensor) or not isinstance(other, Tensor):
        if hasattr(input, "shape") and hasattr(other, "shape") and not isinstance(input, Tensor):
            return apply(GAMMAINC, (input, other), {"upper": upper})   # (arrays: a VJP running on arrays)
        raise TypeError(f"{name}(): both arguments must be Tensors (as in PyTorch), got {type(input).__name__} and "
                        f"{type(other).__name__}")
    a, x = _float_pair(input, other, name)
    return _without_derivative(apply(GAMMAINC, (a, x), {"upper": upper}), 0,
                               f"{name}(a, x): the derivative with respect to a (input) is not implemented, as in "
                               f"PyTorch. Pass a.detach() if you need the gradient for x only.")


def gammainc(input, other):
    """P(a, x), the lower regularised incomplete gamma function: the Gamma(a, 1) CDF at x (``input`` is a,
    ``other`` is x). Differentiable in x, its derivative the Gamma density; as in PyTorch, not in a."""
    return _incomplete_gamma(input, other, False)


def gammaincc(input, other):
    """Q(a, x) = 1 - P(a, x), the upper regularised incomplete gamma function (``input`` a, ``other`` x)."""
    return _incomplete_gamma(input, other, True)


def zeta(input, other):
    """The Hurwitz zeta function zeta(x, q) = sum over k >= 0 of (q + k)^-x (``zeta(x, 1)`` is Riemann's).
    Either argument may be a number. Differentiable in ``other`` (q); as in PyTorch, not in ``input`` (x): a
    backward that needs x's gradient is refused before it starts."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        if hasattr(input, "shape") and hasattr(other, "shape"):   # (arrays: a VJP running on arrays)
            return apply(ZETA, (input, other))
        raise TypeError(f"zeta(): at least one argument must be a Tensor, got {type(input).__name__} and "
                        f"{type(other).__name__}")
    x, q = _float_pair(input, other, "zeta")
    return _without_derivative(apply(ZETA, (x, q)), 0, "zeta(x, q): the derivative with respect to x is not "
                               "implemented, as in PyTorch. Pass x.detach() if you need the gradient for q only.")


# -- a Gamma draw's derivative with respect to its shape (implicit reparameterisation) -------------

def _gamma_sample_slope(xp, alpha, x):
    """dx/d(alpha) of a Gamma(alpha, 1) draw x, holding its CDF P(alpha, x) fixed: -(dP/d alpha) / (dP/dx).
    With P = e^-x x^alpha / Gamma(alpha + 1) * sum_n c_n, c_n = x^n Gamma(alpha + 1) / Gamma(alpha + n + 1),
    it is -(x / alpha) * sum_n c_n (ln x - psi(alpha + n + 1)): the common factor cancels. The series loses
    about -log10(1 - P) digits to cancellation far in the upper tail, where draws almost never fall."""
    a, x = _float64(alpha), _float64(x)
    with numpy.errstate(all="ignore"):
        log_x = xp.log(x)
        psi = _digamma_array(xp, a + 1.0)
        term = xp.ones_like(x + a)
        total = log_x - psi
        for n in range(1, 100_000):
            psi = psi + 1.0 / (a + n)           # psi(a + n + 1) = psi(a + n) + 1/(a + n)
            term = term * x / (a + n)
            step = term * (log_x - psi)
            total = total + step
            if _converged(xp, step, total, n):
                break
        return -(x / a) * total


_NO_SECOND = ("backward(create_graph=True) through a Gamma, Beta or Dirichlet rsample: the second derivative of a "
              "Gamma draw with respect to its shape is not implemented (PyTorch's isn't either); take the first "
              "derivative only")


def _standard_gamma_vjp(g, ctx):
    if isinstance(g, Tensor):   # (refused while the pass plans: graph.NO_SECOND_DERIVATIVE; kept as a guard)
        raise NotImplementedError(_NO_SECOND)
    slope = _gamma_sample_slope(xp_of(ctx.sample), ctx.self, ctx.sample)
    return (g * slope.astype(ctx.sample.dtype), None)


STANDARD_GAMMA = defop("standard_gamma", ("self", "sample"), save=("self", "sample"),
                       math="x, a Gamma(alpha, 1) draw;  d alpha = g * dx/d alpha at a fixed CDF P(alpha, x)",
                       forward=lambda xp, alpha, sample: sample.copy(),
                       vjp=_standard_gamma_vjp, formulas=("dx/d alpha (CDF fixed)", "(none)"))


def standard_gamma_draw(concentration, sample):
    """``sample`` (Gamma(concentration, 1) draws, a constant) as a differentiable function of
    ``concentration``: the implicit reparameterisation of Gamma, Beta and Dirichlet ``rsample``. A backward with
    ``create_graph=True`` through it is refused while it plans, before any ``.grad`` changes."""
    out = apply(STANDARD_GAMMA, (concentration, sample))
    if out.grad_fn is not None:
        NO_SECOND_DERIVATIVE[out.grad_fn] = _NO_SECOND
    return out
