"""Window functions with PyTorch's names and arguments: ``hann_window``, ``hamming_window``, ``blackman_window``,
``bartlett_window``, ``kaiser_window``. Each is ``window_length`` samples of a curve over ``n = 0 .. N - 1``,
computed in float64 and rounded once to ``dtype`` (default: the default float). ``periodic=True`` (the default,
for spectral analysis) gives the first N samples of the symmetric window of N + 1, so ``M = N`` below;
``periodic=False`` gives the symmetric window, ``M = N - 1``."""
from __future__ import annotations

import numpy

from .creation import _finish
from .tensor import default_float

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]


def _window(name, window_length, periodic, dtype, curve):
    if isinstance(window_length, bool) or not isinstance(window_length, (int, numpy.integer)):
        raise TypeError(f"{name}(): argument 'window_length' must be int, not {type(window_length).__name__}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    dtype = default_float() if dtype is None else numpy.dtype(dtype)
    if dtype.kind != "f":
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype.name}")
    if window_length <= 1:
        return numpy.ones(window_length), dtype
    m = window_length if periodic else window_length - 1
    return curve(numpy.arange(window_length, dtype=numpy.float64), m), dtype


def _make(name, curve, window_length, periodic, dtype, device, requires_grad):
    values, dtype = _window(name, window_length, periodic, dtype, curve)
    return _finish(values, dtype, device, requires_grad)


def _cosine_sum(*coefficients):
    """``sum_k (-1)^k a_k cos(2 pi k n / M)``: Hann (0.5, 0.5), Hamming (alpha, beta), Blackman (0.42, 0.5, 0.08)."""
    def curve(n, m):
        return sum((-1) ** k * a * numpy.cos(2 * numpy.pi * k * n / m) for k, a in enumerate(coefficients))
    return curve


def hann_window(window_length, periodic=True, *, dtype=None, device=None, requires_grad=False):
    """``0.5 - 0.5 cos(2 pi n / M)``: from 0 up to 1 and back."""
    return _make("hann_window", _cosine_sum(0.5, 0.5), window_length, periodic, dtype, device, requires_grad)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None, device=None,
                   requires_grad=False):
    """``alpha - beta cos(2 pi n / M)``: Hann's shape, raised so its ends are ``alpha - beta`` (0.08)."""
    return _make("hamming_window", _cosine_sum(alpha, beta), window_length, periodic, dtype, device, requires_grad)


def blackman_window(window_length, periodic=True, *, dtype=None, device=None, requires_grad=False):
    """``0.42 - 0.5 cos(2 pi n / M) + 0.08 cos(4 pi n / M)``."""
    return _make("blackman_window", _cosine_sum(0.42, 0.5, 0.08), window_length, periodic, dtype, device,
                 requires_grad)


def bartlett_window(window_length, periodic=True, *, dtype=None, device=None, requires_grad=False):
    """The triangle ``1 - |2 n / M - 1|``."""
    return _make("bartlett_window", lambda n, m: 1 - numpy.abs(2 * n / m - 1), window_length, periodic, dtype,
                 device, requires_grad)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, device=None, requires_grad=False):
    """``I0(beta sqrt(1 - (2 n / M - 1)^2)) / I0(beta)``, ``I0`` the modified Bessel function of order 0: larger
    ``beta``, narrower window."""
    def curve(n, m):
        return numpy.i0(beta * numpy.sqrt(numpy.clip(1 - (2 * n / m - 1) ** 2, 0, None))) / numpy.i0(beta)
    return _make("kaiser_window", curve, window_length, periodic, dtype, device, requires_grad)
