"""``torch.distributions``' everyday part, for VAE and reinforcement-learning labs: ``Normal``, ``Uniform``,
``Bernoulli``, ``Categorical`` and ``kl_divergence`` between two of a kind. ``log_prob``, ``entropy`` and
``rsample`` (the reparameterised sample, ``loc + scale * eps``) are built from differentiable ops, so gradients
reach the parameters (a policy gradient through ``log_prob``, a VAE's KL term); ``sample`` is a constant.
Draws come from the library's generator (``manual_seed``). Parameters are checked as PyTorch checks them.

    dist = Categorical(logits=policy(state))
    action = dist.sample()
    loss = -(dist.log_prob(action) * advantage).sum()
"""
from __future__ import annotations

import math
import numbers

import numpy

from .creation import rand, randn
from .grad_mode import no_grad
from .nn import functional as F
from .ops import elementwise as E
from .ops import reduce as R
from .ops import shape as S
from .sampling import multinomial
from .tensor import Tensor, default_float, tensor

__all__ = ["Distribution", "Normal", "Uniform", "Bernoulli", "Categorical", "kl_divergence"]


def _as_tensor(value, like=None):
    if isinstance(value, Tensor):
        return value
    if not isinstance(value, numbers.Real):
        raise TypeError(f"a distribution's parameter must be a Tensor or a number, got {type(value).__name__}")
    dtype = like.dtype if like is not None and like.dtype.kind == "f" else default_float()
    return tensor(float(value), dtype=dtype, device=None if like is None else like.device)


def _two(a, b):
    """Two parameters as tensors of one shape (a number takes the other's dtype)."""
    a = _as_tensor(a, b if isinstance(b, Tensor) else None)
    b = _as_tensor(b, a)
    return S.broadcast_tensors(a, b) if a.shape != b.shape else (a, b)


def _check(name, value, ok, constraint, owner):
    """PyTorch's validation of a parameter: every element satisfies ``constraint``."""
    if not bool(ok.all()):
        raise ValueError(f"Expected parameter {name} ({type(value).__name__} of shape {tuple(value.shape)}) of "
                         f"distribution {type(owner).__name__} to satisfy the constraint {constraint}, but found "
                         f"invalid values:\n{value}")


class Distribution:
    """What every distribution has: ``batch_shape``, ``sample(sample_shape)`` (no gradient), ``log_prob``."""

    has_rsample = False

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self.batch_shape, self.event_shape = tuple(batch_shape), tuple(event_shape)
        self._validate = validate_args is not False

    def _check_value(self, value, ok, support):
        """PyTorch's check of ``log_prob``'s argument: inside the support, or a ValueError."""
        if self._validate and not bool(ok.all()):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be "
                             f"within the support ({support}) of the distribution {self}, but found invalid "
                             f"values:\n{value}")

    def _shape(self, sample_shape):
        return tuple(sample_shape) + self.batch_shape + self.event_shape

    def sample(self, sample_shape=()):
        with no_grad():
            return self.rsample(sample_shape).detach()

    def rsample(self, sample_shape=()):
        raise NotImplementedError(f"{type(self).__name__} has no reparameterised sample (has_rsample is False): "
                                  f"use sample(), and log_prob for a gradient (REINFORCE)")

    @property
    def stddev(self):
        return E.sqrt(self.variance)

    def __repr__(self):
        shown = ", ".join(f"{k}: {v.shape if v.ndim else v}" for k, v in self._params().items())
        return f"{type(self).__name__}({shown})"


class Normal(Distribution):
    """N(loc, scale^2): log p(x) = -(x - loc)^2 / (2 scale^2) - log scale - log sqrt(2 pi)."""

    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = _two(loc, scale)
        if validate_args is not False:
            _check("loc", self.loc, E.isfinite(self.loc.detach()), "Real()", self)
            _check("scale", self.scale, self.scale.detach() > 0, "GreaterThan(lower_bound=0.0)", self)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def _params(self):
        return {"loc": self.loc, "scale": self.scale}

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self.scale ** 2

    @property
    def stddev(self):
        return self.scale

    def rsample(self, sample_shape=()):
        eps = randn(self._shape(sample_shape), dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        value = _as_tensor(value, self.loc)
        return -((value - self.loc) ** 2) / (2 * self.variance) - E.log(self.scale) - math.log(math.sqrt(2 * math.pi))

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + E.log(self.scale)

    def cdf(self, value):
        return 0.5 * (1 + E.erf((_as_tensor(value, self.loc) - self.loc) / (self.scale * math.sqrt(2))))


class Uniform(Distribution):
    """U[low, high): log p(x) = -log(high - low) inside, -inf outside."""

    has_rsample = True

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = _two(low, high)
        if validate_args is not False:
            _check("low", self.low, self.low.detach() < self.high.detach(),
                   f"LessThan(upper_bound={self.high.detach()})", self)
        super().__init__(self.low.shape, validate_args=validate_args)

    def _params(self):
        return {"low": self.low, "high": self.high}

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def variance(self):
        return (self.high - self.low) ** 2 / 12

    def rsample(self, sample_shape=()):
        u = rand(self._shape(sample_shape), dtype=self.low.dtype, device=self.low.device)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        value = _as_tensor(value, self.low)
        inside = (self.low.detach() <= value.detach()) & (value.detach() < self.high.detach())
        self._check_value(value, inside, f"Interval(lower_bound={self.low.detach()}, upper_bound={self.high.detach()})")
        return E.where(inside, -E.log(self.high - self.low), float("-inf"))

    def entropy(self):
        return E.log(self.high - self.low)


def _probs_or_logits(probs, logits, name):
    if (probs is None) == (logits is None):
        raise ValueError(f"{name}: either `probs` or `logits` must be specified, but not both.")
    return (_as_tensor(probs), None) if probs is not None else (None, _as_tensor(logits))


class Bernoulli(Distribution):
    """1 with probability p, else 0: log p(x) = x log p + (1 - x) log(1 - p), from the logits for stability."""

    def __init__(self, probs=None, logits=None, validate_args=None):
        probs, logits = _probs_or_logits(probs, logits, "Bernoulli")
        if probs is not None and validate_args is not False:
            _check("probs", probs, (probs.detach() >= 0) & (probs.detach() <= 1), "Interval(lower_bound=0.0, "
                   "upper_bound=1.0)", self)
        self._probs, self._logits = probs, logits
        super().__init__((probs if probs is not None else logits).shape, validate_args=validate_args)

    def _params(self):
        return {"probs": self.probs} if self._probs is not None else {"logits": self.logits}

    @property
    def probs(self):
        return self._probs if self._probs is not None else E.sigmoid(self._logits)

    @property
    def logits(self):
        if self._logits is not None:
            return self._logits
        eps = float(numpy.finfo(self._probs.dtype).eps)
        p = E.clamp(self._probs, eps, 1 - eps)
        return E.log(p) - E.log1p(-p)

    @property
    def mean(self):
        return self.probs

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        with no_grad():
            p = self.probs.detach().expand(*self._shape(sample_shape))
            return E.to_dtype(rand(p.shape, dtype=p.dtype, device=p.device) < p, p.dtype)

    def log_prob(self, value):
        logits = self.logits
        value = _as_tensor(value, logits)
        self._check_value(value, (value.detach() == 0) | (value.detach() == 1), "Boolean()")
        return -F.binary_cross_entropy_with_logits(*S.broadcast_tensors(logits, value), reduction="none")

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")


class Categorical(Distribution):
    """One of K categories (the last dim of ``probs`` or ``logits``): log p(k) = logits_k - logsumexp(logits)."""

    def __init__(self, probs=None, logits=None, validate_args=None):
        probs, logits = _probs_or_logits(probs, logits, "Categorical")
        given = probs if probs is not None else logits
        if given.ndim < 1:
            raise ValueError("`probs` or `logits` parameter must be at least one-dimensional.")
        if probs is not None:
            if validate_args is not False:
                _check("probs", probs, probs.detach() >= 0, "Simplex()", self)
            probs = probs / probs.sum(-1, keepdim=True)
        else:
            logits = logits - R.logsumexp(logits, -1, keepdim=True)
        self._probs, self._logits = probs, logits
        self._num_events = given.shape[-1]
        super().__init__(given.shape[:-1], validate_args=validate_args)

    def _params(self):
        return {"probs": self.probs} if self._probs is not None else {"logits": self.logits}

    @property
    def probs(self):
        return self._probs if self._probs is not None else R.softmax(self._logits, -1)

    @property
    def logits(self):
        if self._logits is not None:
            return self._logits
        eps = float(numpy.finfo(self._probs.dtype).eps)
        return E.log(E.clamp(self._probs, eps, 1 - eps))

    @property
    def param_shape(self):
        return self.batch_shape + (self._num_events,)

    def sample(self, sample_shape=()):
        with no_grad():
            probs = self.probs.detach().reshape(-1, self._num_events)
            draws = multinomial(probs, math.prod(sample_shape) or 1, replacement=True)   # (n rows, k draws)
            return draws.T.reshape(tuple(sample_shape) + self.batch_shape)

    def log_prob(self, value):
        if not isinstance(value, Tensor) or value.dtype.kind not in "iu":
            raise ValueError("Categorical.log_prob takes category indices: an integer Tensor")
        self._check_value(value, (value.detach() >= 0) & (value.detach() < self._num_events),
                          f"IntegerInterval(lower_bound=0, upper_bound={self._num_events - 1})")
        logits = self.logits
        value = value.unsqueeze(-1)
        value, logits = S.broadcast_tensors(value, logits)
        return logits.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self):
        logits = E.clamp(self.logits, min=float(numpy.finfo(self.logits.dtype).min))
        return -(logits * self.probs).sum(-1)


def kl_divergence(p, q):
    """KL(p || q) = E_p[log p - log q], in closed form for two ``Normal`` (log(s_q/s_p) + (s_p^2 + (m_p -
    m_q)^2) / (2 s_q^2) - 1/2), two ``Categorical`` or two ``Bernoulli``."""
    if isinstance(p, Normal) and isinstance(q, Normal):
        ratio = (p.scale / q.scale) ** 2
        return 0.5 * (ratio + ((p.loc - q.loc) / q.scale) ** 2 - 1 - E.log(ratio))
    if isinstance(p, Categorical) and isinstance(q, Categorical):
        return (p.probs * (p.logits - q.logits)).sum(-1)
    if isinstance(p, Bernoulli) and isinstance(q, Bernoulli):
        return (p.probs * (F.softplus(-q.logits) - F.softplus(-p.logits))
                + (1 - p.probs) * (F.softplus(q.logits) - F.softplus(p.logits)))
    raise NotImplementedError(f"kl_divergence({type(p).__name__}, {type(q).__name__}): only two Normal, two "
                              f"Categorical or two Bernoulli distributions have a closed form here")
