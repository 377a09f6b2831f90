"""Random sampling beyond ``rand``/``randn`` (PyTorch's "Random sampling" names): draws shaped like a tensor
(``rand_like``, ``randn_like``, ``randint_like``), draws whose parameters are tensors (``normal``, ``bernoulli``,
``poisson``, ``multinomial``), ``empty``/``empty_like``, ``logspace``, and the in-place fills
``Tensor.uniform_``, ``normal_``, ``bernoulli_``, ``random_``, ``exponential_``.

Every draw comes from ``generator=`` as in :mod:`autogradlab.creation` (None: the library generator, so
``autogradlab.manual_seed`` repeats it). A sample is a constant: PyTorch records a node whose gradient is 0
for ``normal(mean, std)`` and ``bernoulli(p)``; here the sample simply does not require grad. To differentiate
through a sample, write it as ``mean + std * randn_like(std)`` (the reparameterization trick).
"""
from __future__ import annotations

import math
import numbers

import numpy

from . import backend
from .creation import _check_fits, _even_steps, _finish, _float, _sizes, _stream, _whole
from .ops.inplace import _fill
from .tensor import Tensor, default_float

__all__ = ["rand_like", "randn_like", "randint_like", "normal", "bernoulli", "poisson", "multinomial", "empty",
           "empty_like", "logspace"]


def _or(value, default):
    """``value`` unless it is None. (Not ``value or default``: a NumPy dtype is falsy, as it has no fields.)"""
    return default if value is None else value


def _host(t):
    return backend.to_host(t.detach()._data)


def _shaped_like(input, name):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}() expects a Tensor to take the shape, dtype and device of, but got "
                        f"{type(input).__name__}: wrap it with autogradlab.tensor(...)")
    return input.shape


def _check_floating(dtype, name):
    if numpy.dtype(dtype).kind != "f":
        raise NotImplementedError(f"{name}() draws floating-point numbers, but the dtype is {numpy.dtype(dtype)}: "
                                  f"pass dtype=autogradlab.float32 (or a float tensor)")


def rand_like(input, *, generator=None, dtype=None, device=None, requires_grad=False):
    """Uniform on [0, 1), with ``input``'s shape, dtype and device."""
    shape, dtype, device = _shaped_like(input, "rand_like"), _or(dtype, input.dtype), _or(device, input.device)
    _check_floating(dtype, "rand_like")
    return _finish(_stream(generator).random(shape), numpy.dtype(dtype), device, requires_grad)


def randn_like(input, *, generator=None, dtype=None, device=None, requires_grad=False):
    """Standard normal, with ``input``'s shape, dtype and device."""
    shape, dtype, device = _shaped_like(input, "randn_like"), _or(dtype, input.dtype), _or(device, input.device)
    _check_floating(dtype, "randn_like")
    return _finish(_stream(generator).standard_normal(shape), numpy.dtype(dtype), device, requires_grad)


def randint_like(input, low=0, high=None, *, generator=None, dtype=None, device=None, requires_grad=False):
    """Integers uniform in [low, high) (``randint_like(x, high)`` or ``randint_like(x, low, high)``), with
    ``input``'s shape, dtype and device (so a float input gives whole numbers as floats, as PyTorch)."""
    shape = _shaped_like(input, "randint_like")
    low, high = (0, low) if high is None else (low, high)
    low, high = _whole(low, "low", "randint_like"), _whole(high, "high", "randint_like")
    if low >= high:
        raise RuntimeError(f"randint_like() draws from [low, high), so low must be less than high, got low={low}, "
                           f"high={high}")
    _check_fits(numpy.dtype(_or(dtype, input.dtype)), low, high - 1, "randint_like", "low", "high - 1")
    return _finish(_stream(generator).integers(low, high, size=shape), numpy.dtype(_or(dtype, input.dtype)),
                   _or(device, input.device), requires_grad)


def empty(*size, dtype=None, device=None, requires_grad=False, **keyword):
    """A tensor of ``size`` to be written into. PyTorch leaves its memory as it finds it; here it is zeros, so
    a program that reads it before writing prints the same numbers on every run."""
    shape = _sizes(size, "empty", keyword)
    return _finish(numpy.zeros(shape), _float(dtype), device, requires_grad)


def empty_like(input, *, dtype=None, device=None, requires_grad=False):
    """:func:`empty` with ``input``'s shape, dtype and device (zeros here)."""
    shape = _shaped_like(input, "empty_like")
    return _finish(numpy.zeros(shape), numpy.dtype(_or(dtype, input.dtype)), _or(device, input.device),
                   requires_grad)


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    """``steps`` numbers from ``base**start`` to ``base**end``, evenly spaced in the exponent."""
    steps = _whole(steps, "steps", "logspace")
    if steps < 0:
        raise RuntimeError(f"logspace(): number of steps must be non-negative, got steps={steps}")
    dtype = _float(dtype)
    if not steps:
        return _finish(numpy.zeros(0), dtype, device, requires_grad)
    if dtype.kind in "iu" and steps > 1:   # (PyTorch: the ends as integers, the exponents between them as floats)
        start, end = int(start), int(end)
    exponents = _even_steps(float(start), float(end), steps, numpy.float64, fused=False)   # (float64: torch's
    # values to the last bit; float32 within a rounding: torch computes its exponents in float32)
    # one C pow per element, as PyTorch's kernel does: NumPy's power takes a vector path on CPUs with AVX-512,
    # which may round the last bit the other way (10**2.5), so the values would change with the machine
    values = numpy.array([_pow(float(base), e) for e in exponents.tolist()], dtype=numpy.float64)
    return _finish(numpy.trunc(values) if dtype.kind in "iu" else values, dtype, device, requires_grad)


def _pow(base, exponent):
    """``base ** exponent`` by the C library's pow, with PyTorch's nan and inf where Python's raises."""
    odd = exponent.is_integer() and exponent % 2 == 1
    try:
        return math.pow(base, exponent)
    except ValueError:       # (zero to a negative power: inf; a negative base to a fractional power: nan)
        return math.copysign(math.inf, base) if base == 0 and odd else math.inf if base == 0 else math.nan
    except OverflowError:
        return -math.inf if base < 0 and odd else math.inf


# -- draws with tensor parameters ------------------------------------------------------------------

def _parameter(value, name, what):
    """A number or tensor parameter as a host float array (and its dtype, when it is a tensor)."""
    if isinstance(value, Tensor):
        _check_floating(value.dtype, name)
        return _host(value), value.dtype, value.device
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}(): argument '{what}' must be a float or a Tensor, not {type(value).__name__}")
    return numpy.asarray(float(value)), None, None


def normal(mean, std=1.0, size=None, *, generator=None, dtype=None, device=None, requires_grad=False):
    """Normal draws, PyTorch's forms: ``normal(mean, std)`` with a tensor mean and/or std (one draw per
    element of their broadcast shape), or ``normal(mean, std, size)`` with two numbers. ``std`` must be >= 0."""
    if not isinstance(mean, Tensor) and not isinstance(std, Tensor) and size is None:
        raise TypeError("normal(mean, std) with two numbers needs a size: normal(0.0, 1.0, size=(3,)), or give "
                        "mean or std as a Tensor")
    m, m_dtype, m_device = _parameter(mean, "normal", "mean")
    s, s_dtype, s_device = _parameter(std, "normal", "std")
    if numpy.any(~(s >= 0)):
        raise RuntimeError(f"normal expects std >= 0.0, but found std {s.min() if not numpy.isnan(s).any() else 'nan'}")
    if size is not None:
        if not isinstance(size, (tuple, list)):
            raise TypeError(f"normal(): argument 'size' must be a tuple of ints, not {type(size).__name__}: write "
                            f"size=({size!r},)")
        shape = _sizes((size,))
    else:
        try:
            shape = numpy.broadcast_shapes(m.shape, s.shape)
        except ValueError:
            raise RuntimeError(f"normal(): mean of shape {m.shape} and std of shape {s.shape} do not broadcast "
                               f"together") from None
    out_dtype = _or(dtype, _or(m_dtype, _or(s_dtype, default_float())))
    draws = m + s * _stream(generator).standard_normal(shape)
    return _finish(draws, numpy.dtype(out_dtype), _or(device, _or(m_device, s_device)), requires_grad)


def bernoulli(input, p=None, *, generator=None):
    """0 or 1 per element, 1 with probability ``input`` (or with ``p`` for every element, when given); the
    dtype and device of ``input``. The probabilities must lie in [0, 1]."""
    if not isinstance(input, Tensor):
        raise TypeError(f"bernoulli(): argument 'input' must be a Tensor, not {type(input).__name__}")
    if input.dtype.kind != "f" and p is None:
        raise NotImplementedError(f"bernoulli() of a {input.dtype} tensor: the probabilities must be floats "
                                  f"(write input.float())")
    probs = numpy.broadcast_to(numpy.asarray(float(p)), input.shape) if p is not None else _host(input)
    if numpy.any(~((probs >= 0) & (probs <= 1))):
        raise RuntimeError(f"bernoulli(): the probabilities must lie in [0, 1], got values from {probs.min()} to "
                           f"{probs.max()}")
    draws = _stream(generator).random(input.shape) < probs
    return _finish(draws, input.dtype, input.device, False)


def poisson(input, generator=None):
    """A Poisson draw per element with rate ``input`` (>= 0), as floats of ``input``'s dtype."""
    if not isinstance(input, Tensor):
        raise TypeError(f"poisson(): argument 'input' must be a Tensor, not {type(input).__name__}")
    _check_floating(input.dtype, "poisson")
    rates = _host(input)
    if numpy.any(~(rates >= 0)) or numpy.any(numpy.isinf(rates)):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative and finite")
    return _finish(_stream(generator).poisson(rates), input.dtype, input.device, False)


def _without_replacement(rng, weights, k):
    """``k`` distinct indices, each next one drawn with probability proportional to the remaining weights
    (the exponential-keys method: the k smallest of ``E_i / w_i``); indices of weight 0 come last, in random
    order, as PyTorch draws them once the others run out."""
    with numpy.errstate(divide="ignore"):
        keys = numpy.where(weights > 0, rng.exponential(size=weights.shape) / weights, numpy.inf)
    order = numpy.lexsort((rng.random(weights.shape), keys))
    return order[:k]


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """``num_samples`` indices drawn with probability proportional to the weights ``input`` (1-D, or 2-D: one
    draw per row), int64. Without replacement no index repeats, so ``num_samples`` is at most the number of
    weights. The weights must be finite and >= 0, and some must be > 0."""
    if not isinstance(input, Tensor):
        raise TypeError(f"multinomial(): argument 'input' must be a Tensor, not {type(input).__name__}")
    if input.dtype.kind != "f":
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got {input.dtype} "
                           f"(write input.float())")
    if input.ndim not in (1, 2):
        raise RuntimeError(f"multinomial(): prob_dist must be 1 or 2 dim, got shape {tuple(input.shape)}")
    num_samples = _whole(num_samples, "num_samples", "multinomial")
    if num_samples <= 0:
        raise RuntimeError(f"multinomial(): cannot sample n_sample <= 0 samples (num_samples={num_samples})")
    if input.shape[-1] > 2 ** 24:
        raise RuntimeError(f"multinomial(): number of categories cannot exceed 2^24, got {input.shape[-1]}")
    if not replacement and num_samples > input.shape[-1]:
        raise RuntimeError(f"multinomial(): cannot sample n_sample > prob_dist.size(-1) samples without "
                           f"replacement ({num_samples} > {input.shape[-1]}); pass replacement=True")
    rows = _host(input).astype(numpy.float64).reshape(-1, input.shape[-1])
    if not numpy.all(numpy.isfinite(rows)) or numpy.any(rows < 0):
        raise RuntimeError("multinomial(): probability tensor contains either `inf`, `nan` or element < 0")
    if numpy.any(rows.sum(axis=1) <= 0):
        raise RuntimeError("multinomial(): invalid multinomial distribution (sum of probabilities <= 0): every "
                           "row needs a positive weight")
    rng = _stream(generator)
    picks = [rng.choice(len(w), size=num_samples, p=w / w.sum()) if replacement
             else _without_replacement(rng, w, num_samples) for w in rows]
    out = numpy.asarray(picks, dtype=numpy.int64).reshape(input.shape[:-1] + (num_samples,))
    return _finish(out, numpy.dtype("int64"), input.device, False)


# -- in-place fills (Tensor methods) ----------------------------------------------------------------

def _fill_with(self, draws, name):
    """Write ``draws`` (a host array of self's shape) into ``self`` in place, as ``copy_`` does: under
    ``no_grad`` for a parameter (as ``nn.init`` does), refused for a leaf that requires grad otherwise."""
    sample = _finish(draws, self.dtype, self.device, False)
    return _fill(self, sample, name)


def uniform_(self, a=0.0, b=1.0, *, generator=None):
    """Fill with draws uniform on [a, b)."""
    _check_floating(self.dtype, "uniform_")
    if not a <= b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={a} > to={b}")
    return _fill_with(self, _stream(generator).uniform(float(a), float(b), self.shape), "uniform_")


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Fill with normal draws of ``mean`` and ``std``."""
    _check_floating(self.dtype, "normal_")
    if std < 0:
        raise RuntimeError(f"normal_ expects std >= 0.0, but found std {std}")
    return _fill_with(self, _stream(generator).normal(float(mean), float(std), self.shape), "normal_")


def bernoulli_(self, p=0.5, *, generator=None):
    """Fill with 0 or 1, 1 with probability ``p`` (a number, or a tensor of probabilities broadcast to self)."""
    probs = _host(p) if isinstance(p, Tensor) else float(p)
    if numpy.any(~((numpy.asarray(probs) >= 0) & (numpy.asarray(probs) <= 1))):
        raise RuntimeError(f"bernoulli_(): p must lie in [0, 1], got {p}")
    return _fill_with(self, _stream(generator).random(self.shape) < probs, "bernoulli_")


#: random_()'s upper bound without one given: the dtype's largest value + 1, or the float dtypes' 2^mantissa + 1
_RANDOM_TOP = {"float16": 2 ** 11 + 1, "float32": 2 ** 24 + 1, "float64": 2 ** 53 + 1, "bool": 2}


_TO_NOT_GIVEN = object()


def random_(self, from_=None, to=_TO_NOT_GIVEN, *, generator=None):
    """Fill with integers uniform in [from_, to): ``random_(to)`` is [0, to), ``random_()`` every whole number
    the dtype holds exactly from 0 up, and ``random_(from_, None)`` from ``from_`` up (PyTorch's forms)."""
    top = _RANDOM_TOP.get(self.dtype.name) or int(numpy.iinfo(self.dtype).max) + 1
    if from_ is None and to in (None, _TO_NOT_GIVEN):
        low, high = 0, top
    elif to is _TO_NOT_GIVEN:
        low, high = 0, from_
    else:
        low, high = from_ or 0, top if to is None else to
    low, high = _whole(low, "from", "random_"), _whole(high, "to", "random_")
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    _check_fits(self.dtype, low, high - 1, "random_", "from", "to - 1")
    whole = self.dtype if self.dtype.kind in "biu" else numpy.int64   # (drawn in the tensor's own integers)
    draws = _stream(generator).integers(low, high, size=self.shape, dtype=whole)
    return _fill_with(self, draws, "random_")


def exponential_(self, lambd=1.0, *, generator=None):
    """Fill with exponential draws of rate ``lambd`` (mean 1/lambd)."""
    _check_floating(self.dtype, "exponential_")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    return _fill_with(self, _stream(generator).exponential(1.0 / float(lambd), self.shape), "exponential_")

