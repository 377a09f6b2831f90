"""``autogradlab.fft``: PyTorch's ``torch.fft`` names, with gradients (by PyTorch's complex convention).

Every transform is one DFT op (``ops/spectral.py``, whose VJP is the adjoint transform) with the other ops
around it: a real input is made complex, ``n=`` pads with zeros or cuts, a real transform keeps half of the
spectrum (``rfft``), and its inverse rebuilds the other half from the conjugate symmetry (``irfft``); the
Hermitian transforms are those of the conjugate, with the other scaling (``hfft``, ``ihfft``). Their
gradients are the chain rule through those ops.
"""
from __future__ import annotations

import numbers

import numpy

from .creation import zeros
from .ops.elementwise import conj, real, to_dtype
from .ops.rearrange import narrow, roll
from .ops.reduce import normalize_dims
from .ops.registry import expect_tensor
from .ops.shape import cat, flip
from .ops.spectral import fft_nd
from .tensor import Tensor, complex_of, default_float, tensor

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn", "irfftn",
           "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_NORMS = ("backward", "ortho", "forward")


def _checked(input, name, norm, real_only=False):
    expect_tensor(input, name)
    if norm is None:
        norm = "backward"
    if norm not in _NORMS:
        raise RuntimeError(f"{name}: Invalid normalization mode: {norm!r}; use 'backward' (the default), 'ortho' or "
                         f"'forward'")
    kind = input.dtype.kind
    if input.dtype == numpy.float16:
        raise RuntimeError(f"{name}: Unsupported dtype Half (float16): transform float32 or float64, e.g. x.float()")
    if real_only and kind == "c":
        raise RuntimeError(f"{name} expects a real input tensor, but got {input.dtype.name}: use fft for complex "
                           f"ones")
    if kind in "biu":
        input = to_dtype(input, default_float())
    return input, norm


def _as_complex(a):
    return a if a.dtype.kind == "c" else to_dtype(a, complex_of(a.dtype))


_ONE_DIM = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")


def _dims(input, dim, s, name):
    """The dims to transform (>= 0, in order) and their lengths: ``dim`` (all dims, or the last len(s)), ``s``."""
    nd = input.ndim
    if nd == 0 and name in _ONE_DIM:   # (a 1-d transform of a 0-d tensor; fftn's all-dims of it is itself)
        raise IndexError(f"{name}: Dimension specified as -1 but tensor has no dimensions (a transform needs at "
                         f"least one: x.reshape(1))")
    if s is not None and len(s) > nd:
        raise RuntimeError(f"{name}: Got shape with {len(s)} values but input tensor only has {nd} dimensions")
    if dim is None:
        dims = list(range(nd - len(s), nd)) if s is not None else list(range(nd))
    else:
        normalize_dims(dim, nd, name)   # (the checks: each dim in range, none twice)
        dims = [d % nd for d in ([dim] if isinstance(dim, int) else dim)]   # (in the order given: s pairs with it)
    if s is None:
        sizes = [input.shape[d] for d in dims]
    else:
        sizes = list(s)
        if len(sizes) != len(dims):
            raise RuntimeError(f"{name}: When given, dim and shape arguments must have the same length (got s={s}, "
                               f"dim={dim})")
        sizes = [input.shape[d] if n == -1 else n for d, n in zip(dims, sizes)]
    for n in sizes:
        if n < 1:
            raise RuntimeError(f"{name}: Invalid number of data points ({n}) specified: give n >= 1")
    return dims, sizes


def _resized(a, dim, n):
    """``a`` cut to ``n`` entries along ``dim``, or padded with zeros to ``n`` (what ``n=`` means)."""
    have = a.shape[dim]
    if n < have:
        return narrow(a, dim, 0, n)
    if n > have:
        shape = list(a.shape)
        shape[dim] = n - have
        return cat([a, zeros(*shape, dtype=a.dtype, device=a.device)], dim)
    return a


def _at_least_one(dims, name):
    """A real or Hermitian transform halves its last dim: it needs one (a complex one with none copies)."""
    if not dims:
        raise RuntimeError(f"{name} must transform at least one axis (dim is empty, or the input is 0-d)")


def _one_length(n, name):
    """``n=`` of a 1-D transform as ``s``: None, or a length >= 1 (-1, which ``s`` takes as "as it is", is not one)."""
    if n is None:
        return None
    if n < 1:
        raise RuntimeError(f"{name}: Invalid number of data points ({n}) specified: give n >= 1")
    return (n,)


def _complex_transform(input, s, dim, norm, inverse, name):
    input, norm = _checked(input, name, norm)
    dims, sizes = _dims(input, dim, s, name)
    a = _as_complex(input)
    for d, n in zip(dims, sizes):
        a = _resized(a, d, n)
    return fft_nd(a, dims, inverse, norm)


def fft(input, n=None, dim=-1, norm=None):
    """The discrete Fourier transform along ``dim``: ``X_k = sum_j x_j e^(-2 pi i jk/n)`` (``n=`` pads or cuts the
    input first; ``norm``: 'backward' (no scaling), 'ortho' (1/sqrt(n)) or 'forward' (1/n))."""
    return _complex_transform(input, _one_length(n, "fft"), dim, norm, False, "fft")


def ifft(input, n=None, dim=-1, norm=None):
    """The inverse transform along ``dim``: ``x_j = (1/n) sum_k X_k e^(2 pi i jk/n)`` with the default norm."""
    return _complex_transform(input, _one_length(n, "ifft"), dim, norm, True, "ifft")


def fft2(input, s=None, dim=(-2, -1), norm=None):
    """The 2-D transform over ``dim`` (the last two)."""
    return _complex_transform(input, s, dim, norm, False, "fft2")


def ifft2(input, s=None, dim=(-2, -1), norm=None):
    """The inverse 2-D transform over ``dim`` (the last two)."""
    return _complex_transform(input, s, dim, norm, True, "ifft2")


def fftn(input, s=None, dim=None, norm=None):
    """The N-D transform over ``dim`` (every dim, or the last ``len(s)``)."""
    return _complex_transform(input, s, dim, norm, False, "fftn")


def ifftn(input, s=None, dim=None, norm=None):
    """The inverse N-D transform over ``dim`` (every dim, or the last ``len(s)``)."""
    return _complex_transform(input, s, dim, norm, True, "ifftn")


def rfftn(input, s=None, dim=None, norm=None, _name="rfftn"):
    """The transform of a real input over ``dim``, keeping along the last of them only the frequencies
    0 .. n//2 (the rest are their conjugates)."""
    input, norm = _checked(input, _name, norm, real_only=True)
    dims, sizes = _dims(input, dim, s, _name)
    _at_least_one(dims, _name)
    full = _complex_transform(input, sizes, dims, norm, False, _name)
    return narrow(full, dims[-1], 0, sizes[-1] // 2 + 1)


def rfft(input, n=None, dim=-1, norm=None):
    """The transform of a real input along ``dim``: frequencies 0 .. n//2 (``n // 2 + 1`` of them)."""
    return rfftn(input, _one_length(n, "rfft"), (dim,), norm, _name="rfft")


def rfft2(input, s=None, dim=(-2, -1), norm=None):
    """:func:`rfftn` over the last two dims."""
    return rfftn(input, s, dim, norm, _name="rfft2")


def irfftn(input, s=None, dim=None, norm=None, _name="irfftn"):
    """The inverse of :func:`rfftn`: a real output, with ``s`` (default: twice the last dim less 2, the others
    as they are) its sizes over ``dim``. The missing half of the spectrum is the conjugate of the given one."""
    input, norm = _checked(input, _name, norm)
    dims, _ = _dims(input, dim, None if s is None else [1 if n == -1 else n for n in s], _name)   # (the checks)
    _at_least_one(dims, _name)
    last = dims[-1]
    given = list(s) if s is not None else [-1] * len(dims)
    sizes = [input.shape[d] if n == -1 else n for d, n in zip(dims[:-1], given[:-1])]
    sizes.append(2 * (input.shape[last] - 1) if given[-1] == -1 else given[-1])
    if sizes[-1] < 1:
        raise RuntimeError(f"{_name}: Invalid number of data points ({sizes[-1]}) specified: give n >= 1")
    a = _as_complex(input)
    for d, n in zip(dims[:-1], sizes[:-1]):
        a = _resized(a, d, n)
    if len(dims) > 1:
        a = fft_nd(a, dims[:-1], True, norm)
    n = sizes[-1]
    half = _resized(a, last, n // 2 + 1)
    mirrored = conj(flip(narrow(half, last, 1, n - n // 2 - 1), (last,)))   # X[n-k] = conj(X[k])
    full = cat([half, mirrored], last)
    return real(fft_nd(full, (last,), True, norm))


def irfft(input, n=None, dim=-1, norm=None):
    """The inverse of :func:`rfft`: ``n`` real values (default: ``2 * (input.shape[dim] - 1)``)."""
    return irfftn(input, _one_length(n, "irfft"), (dim,), norm, _name="irfft")


def irfft2(input, s=None, dim=(-2, -1), norm=None):
    """:func:`irfftn` over the last two dims."""
    return irfftn(input, s, dim, norm, _name="irfft2")


_DUAL = {"backward": "forward", "forward": "backward", "ortho": "ortho"}   # (the scaling of the other direction)


def hfftn(input, s=None, dim=None, norm=None, _name="hfftn"):
    """The transform of a signal with Hermitian symmetry (x[-j] = conj(x[j])), given by its half as ``rfftn``
    gives a spectrum: a real output, ``irfftn(conj(input))`` with the dual scaling (the default, 'backward',
    scales nothing here)."""
    input, norm = _checked(input, _name, norm)
    return irfftn(conj(_as_complex(input)), s, dim, _DUAL[norm], _name=_name)


def hfft(input, n=None, dim=-1, norm=None):
    """:func:`hfftn` along ``dim``: ``n`` real values (default: ``2 * (input.shape[dim] - 1)``)."""
    return hfftn(input, _one_length(n, "hfft"), (dim,), norm, _name="hfft")


def hfft2(input, s=None, dim=(-2, -1), norm=None):
    """:func:`hfftn` over the last two dims."""
    return hfftn(input, s, dim, norm, _name="hfft2")


def ihfftn(input, s=None, dim=None, norm=None, _name="ihfftn"):
    """The inverse of :func:`hfftn`, of a real input: ``conj(rfftn(input))`` with the dual scaling (the default
    divides by the number of points), the half spectrum."""
    input, norm = _checked(input, _name, norm, real_only=True)
    return conj(rfftn(input, s, dim, _DUAL[norm], _name=_name))


def ihfft(input, n=None, dim=-1, norm=None):
    """:func:`ihfftn` along ``dim``."""
    return ihfftn(input, _one_length(n, "ihfft"), (dim,), norm, _name="ihfft")


def ihfft2(input, s=None, dim=(-2, -1), norm=None):
    """:func:`ihfftn` over the last two dims."""
    return ihfftn(input, s, dim, norm, _name="ihfft2")


def fftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False):
    """The frequency of each entry of an ``n``-point transform with sample spacing ``d``: 0, 1, ..., then the
    negative ones, over ``d * n``."""
    n = _count(n, "fftfreq")
    k = numpy.concatenate([numpy.arange(0, (n + 1) // 2), numpy.arange(-(n // 2), 0)])
    return _frequencies(k, n, d, dtype, device, requires_grad, "fftfreq")


def rfftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False):
    """The frequencies of :func:`rfft`'s ``n // 2 + 1`` entries: 0, 1, ..., n // 2, over ``d * n``."""
    n = _count(n, "rfftfreq")
    return _frequencies(numpy.arange(0, n // 2 + 1), n, d, dtype, device, requires_grad, "rfftfreq")


def _frequencies(k, n, d, dtype, device, requires_grad, name):
    """``k / (d * n)`` as PyTorch computes it, to the last bit: ``k`` in ``dtype`` times ``1 / (d * n)`` in it."""
    if isinstance(d, Tensor) and d.ndim == 0 and d.dtype.kind in "biuf":   # (PyTorch takes a 0-d tensor)
        d = d.item()
    if not isinstance(d, numbers.Real):   # (a bool counts, as in PyTorch: True is 1)
        raise TypeError(f"{name}(): argument 'd' must be a real number (the sample spacing), not {type(d).__name__}")
    dtype = numpy.dtype(dtype or default_float())
    if dtype.kind == "c":
        raise NotImplementedError(f"{name}: a complex dtype is not supported (as in PyTorch): the frequencies are "
                                  f"real, ask for a float dtype")
    if dtype.kind != "f":
        raise RuntimeError(f"{name} requires a floating point dtype, got {dtype.name}")
    with numpy.errstate(all="ignore"):   # (a tiny d, or n = 0: 1/(d*n) is inf, and 0 * inf NaN, as in PyTorch)
        values = k.astype(dtype) * (numpy.float64(1.0) / (numpy.float64(d) * n)).astype(dtype)
    return tensor(values, dtype=dtype, device=device, requires_grad=requires_grad)


def _count(n, name):
    if not isinstance(n, numbers.Integral) or isinstance(n, bool) or n < 0:
        raise RuntimeError(f"{name}: n must be a non-negative int (the transform's length), got {n!r}")
    return int(n)


def fftshift(input, dim=None):
    """The zero frequency moved to the middle: each of ``dim`` (default: all) rolled by half its length."""
    dims = list(range(input.ndim)) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    return roll(input, [input.shape[d] // 2 for d in dims], dims)


def ifftshift(input, dim=None):
    """The inverse of :func:`fftshift`."""
    dims = list(range(input.ndim)) if dim is None else [dim] if isinstance(dim, int) else list(dim)
    return roll(input, [-(input.shape[d] // 2) for d in dims], dims)
