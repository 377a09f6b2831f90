"""The classical orthogonal polynomials of ``torch.special``: Chebyshev (T, U, V, W, and shifted to [0, 1]),
Hermite (H and He), Laguerre (L) and Legendre (P), each p_n(x) evaluated by its three-term recurrence

    p_0 = 1,  p_1 = first(x),  p_(k+1) = a_k(x) p_k - b_k p_(k-1),

written with Tensor ops, so its gradient (and every higher one) is the chain rule through the recurrence
(PyTorch's have none). ``n`` is a number or a tensor of degrees, one per element (broadcast against ``x``),
truncated to integers as PyTorch does; a negative degree gives 0.
"""
from __future__ import annotations

import numbers

import numpy

from ..backend import to_host, xp_of
from ..tensor import Tensor, default_float
from . import elementwise as E
from .registry import expect_tensor

__all__ = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
           "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
           "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
           "laguerre_polynomial_l", "legendre_polynomial_p"]


def _evaluate(name, input, n, first, step):
    """p_n(input) by the recurrence p_(k+1) = step(k, x, p_k, p_(k-1)) from p_0 = 1 and p_1 = first(x)."""
    if not isinstance(input, Tensor) and isinstance(n, Tensor):   # (PyTorch takes a number for x too, as a 0-d
        input = E.as_tensor_like(float(input), n if n.dtype.kind == "f" else n.to(default_float()))   # tensor)
    expect_tensor(input, name)
    if input.dtype.kind == "c" or input.dtype == numpy.float16:
        raise NotImplementedError(f"{name} is not implemented for {input.dtype.name} (as in PyTorch): pass float32 "
                                  f"or float64 x")
    if isinstance(n, Tensor):
        dtype = E.result_type(input, n)
        degrees = to_host(n._data)
    elif isinstance(n, numbers.Real):
        dtype, degrees = input.dtype, numpy.asarray(float(n))
    else:
        raise TypeError(f"{name}(): n must be a number or a tensor of degrees, got {type(n).__name__}")
    x = E.to_dtype(input, dtype if dtype.kind == "f" else default_float())
    with numpy.errstate(invalid="ignore"):   # (a NaN or infinite degree: no polynomial, 0 as below)
        degrees = numpy.where(numpy.isfinite(degrees), numpy.trunc(degrees), -1).astype(numpy.int64)
    top = int(degrees.max()) if degrees.size else -1
    per_element = degrees.ndim > 0
    shape = numpy.broadcast_shapes(tuple(x.shape), degrees.shape) if per_element else tuple(x.shape)
    chosen = _constant(0, shape, x)   # (a negative degree: 0)
    wanted = E.as_tensor_like(degrees, x) if per_element else None
    before, p = None, None
    for k in range(top + 1):   # p_k in turn, keeping the last two (and, per element, the one each asks for)
        before, p = p, (_constant(1, tuple(x.shape), x) if k == 0
                        else first(x) * 1 if k == 1   # (* 1: a new tensor, never x itself)
                        else step(k - 1, x, p, before))
        if per_element:
            chosen = E.where(wanted == k, p, chosen)
    return chosen if per_element or top < 0 else p


def _constant(value, shape, like):
    """A constant tensor of ``value`` in ``like``'s dtype and device."""
    xp = xp_of(like._data)
    return Tensor._make(xp.full(shape, value, dtype=like.dtype), False, None, like.device)


def _chebyshev(name, first, shifted=False):
    def polynomial(input, n, *, out=None):
        _no_out(name, out)

        def start(x):
            return first(2 * x - 1 if shifted else x)
        def step(k, x, p, q):   # p_(k+1) = 2 x p_k - p_(k-1)
            return 2 * (2 * x - 1 if shifted else x) * p - q
        return _evaluate(name, input, n, start, step)
    polynomial.__name__ = name
    return polynomial


chebyshev_polynomial_t = _chebyshev("chebyshev_polynomial_t", lambda x: x)
chebyshev_polynomial_t.__doc__ = "Chebyshev's T_n(x) = cos(n arccos x) on [-1, 1]: T_0 = 1, T_1 = x, T_(k+1) = 2x T_k - T_(k-1)."
chebyshev_polynomial_u = _chebyshev("chebyshev_polynomial_u", lambda x: 2 * x)
chebyshev_polynomial_u.__doc__ = "Chebyshev's U_n(x) = sin((n+1) t)/sin t, x = cos t: U_1 = 2x, then as T."
chebyshev_polynomial_v = _chebyshev("chebyshev_polynomial_v", lambda x: 2 * x - 1)
chebyshev_polynomial_v.__doc__ = "Chebyshev's V_n(x) = cos((n+1/2) t)/cos(t/2), x = cos t: V_1 = 2x - 1, then as T."
chebyshev_polynomial_w = _chebyshev("chebyshev_polynomial_w", lambda x: 2 * x + 1)
chebyshev_polynomial_w.__doc__ = "Chebyshev's W_n(x) = sin((n+1/2) t)/sin(t/2), x = cos t: W_1 = 2x + 1, then as T."
shifted_chebyshev_polynomial_t = _chebyshev("shifted_chebyshev_polynomial_t", lambda x: x, shifted=True)
shifted_chebyshev_polynomial_t.__doc__ = "T_n(2x - 1): Chebyshev's T on [0, 1]."
shifted_chebyshev_polynomial_u = _chebyshev("shifted_chebyshev_polynomial_u", lambda x: 2 * x, shifted=True)
shifted_chebyshev_polynomial_u.__doc__ = "U_n(2x - 1): Chebyshev's U on [0, 1]."
shifted_chebyshev_polynomial_v = _chebyshev("shifted_chebyshev_polynomial_v", lambda x: 2 * x - 1, shifted=True)
shifted_chebyshev_polynomial_v.__doc__ = "V_n(2x - 1): Chebyshev's V on [0, 1]."
shifted_chebyshev_polynomial_w = _chebyshev("shifted_chebyshev_polynomial_w", lambda x: 2 * x + 1, shifted=True)
shifted_chebyshev_polynomial_w.__doc__ = "W_n(2x - 1): Chebyshev's W on [0, 1]."


def hermite_polynomial_h(input, n, *, out=None):
    """The physicists' Hermite H_n(x): H_0 = 1, H_1 = 2x, H_(k+1) = 2x H_k - 2k H_(k-1)."""
    _no_out("hermite_polynomial_h", out)
    return _evaluate("hermite_polynomial_h", input, n, lambda x: 2 * x, lambda k, x, p, q: 2 * x * p - 2 * k * q)


def hermite_polynomial_he(input, n, *, out=None):
    """The probabilists' Hermite He_n(x): He_0 = 1, He_1 = x, He_(k+1) = x He_k - k He_(k-1)."""
    _no_out("hermite_polynomial_he", out)
    return _evaluate("hermite_polynomial_he", input, n, lambda x: x, lambda k, x, p, q: x * p - k * q)


def laguerre_polynomial_l(input, n, *, out=None):
    """Laguerre's L_n(x): L_0 = 1, L_1 = 1 - x, L_(k+1) = ((2k + 1 - x) L_k - k L_(k-1)) / (k + 1)."""
    _no_out("laguerre_polynomial_l", out)
    return _evaluate("laguerre_polynomial_l", input, n, lambda x: 1 - x,
                     lambda k, x, p, q: ((2 * k + 1 - x) * p - k * q) / (k + 1))


def legendre_polynomial_p(input, n, *, out=None):
    """Legendre's P_n(x): P_0 = 1, P_1 = x, P_(k+1) = ((2k + 1) x P_k - k P_(k-1)) / (k + 1)."""
    _no_out("legendre_polynomial_p", out)
    return _evaluate("legendre_polynomial_p", input, n, lambda x: x,
                     lambda k, x, p, q: ((2 * k + 1) * x * p - k * q) / (k + 1))


def _no_out(name, out):
    if out is not None:
        raise TypeError(f"{name}(): out= is not supported here; use the returned tensor")

