"""The discrete Fourier transform over some dims of a complex tensor: the one op ``autogradlab.fft`` is built
on (its padding, real inputs and half spectra are other ops around it).

The DFT is linear, ``y = F x`` with ``F[j, k] = e^(-2 pi i jk / n)`` scaled by the ``norm`` (``"backward"``: 1,
``"ortho"``: 1/sqrt(n), ``"forward"``: 1/n); the inverse has the conjugate kernel. Its VJP by PyTorch's complex
convention is ``F^H g``: the inverse transform with the dual scaling (``"backward"`` <-> ``"forward"``), so the VJP is
the op itself, inverted.
"""
from __future__ import annotations

from .registry import apply_one, defop

__all__ = ["fft_nd", "DUAL_NORM"]

#: the scaling of F^H when F is scaled by the key (F^H = n * inverse unscaled: 1/n moves to the other side)
DUAL_NORM = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _fft_forward(xp, a, dims, inverse, norm):
    transform = xp.fft.ifftn if inverse else xp.fft.fftn
    return transform(a, axes=dims, norm=norm).astype(a.dtype, copy=False)   # (complex64 stays complex64)


FFT = defop("fft", ("self",), math="y = F a (F the DFT over dims, or its inverse);  da = F^H g",
            forward=_fft_forward,
            vjp=lambda g, ctx: (fft_nd(g, ctx.dims, not ctx.inverse, DUAL_NORM[ctx.norm]),),
            complex_vjp="same", formulas=("F^H",))


def fft_nd(a, dims, inverse=False, norm="backward"):
    """The DFT (or with ``inverse``, its inverse) of complex ``a`` over ``dims`` (a tuple of dims >= 0), no padding."""
    return apply_one(FFT, a, {"dims": tuple(dims), "inverse": bool(inverse), "norm": norm})
