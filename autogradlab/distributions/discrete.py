"""More discrete distributions: ``Geometric`` (failures before the first success) and ``Binomial`` (successes
in ``total_count`` trials). Each takes ``probs=`` or ``logits=``; ``log_prob`` is differentiable in them (a
REINFORCE gradient), ``sample`` a constant.
"""
from __future__ import annotations

import numpy

from .. import backend
from ..creation import arange, generator, rand
from ..grad_mode import no_grad
from ..nn import functional as F
from ..ops import elementwise as E
from ..ops import shape as S
from ..ops.special_functions import lgamma
from ..tensor import Tensor
from . import constraints
from .distribution import _as_tensor, _BinaryTrials, _check, _probs_or_logits

__all__ = ["Geometric", "Binomial"]


class Geometric(_BinaryTrials):
    """The number of failures before the first success, success probability p: log p(k) = k log(1 - p) + log p."""

    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        probs, logits = _probs_or_logits(probs, logits, "Geometric")
        self._set_probs(probs, logits, lambda p: (p > 0) & (p <= 1), "Interval(lower_bound=0.0, upper_bound=1.0)",
                        validate_args)
        super().__init__((probs if probs is not None else logits).shape, validate_args=validate_args)

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return E.zeros_gradient(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=()):
        with no_grad():
            p = self.probs.detach()
            u = E.clamp(rand(self._shape(sample_shape), dtype=p.dtype, device=p.device),
                        float(numpy.finfo(p.dtype).tiny))
            return E.floor(E.log(u) / E.log1p(-p))

    def log_prob(self, value):
        value = _as_tensor(value, self.probs)
        whole = (value.detach() >= 0) & (E.floor(value.detach()) == value.detach())
        self._check_value(value, whole, "IntegerGreaterThan(lower_bound=0)")
        probs = self.probs
        value, probs = S.broadcast_tensors(value, probs)
        certain = (probs.detach() == 1) & (value.detach() == 0)   # (0 * log 0: 0, with no NaN in the gradient)
        return value * E.log1p(-E.where(certain, 0.0, probs)) + E.log(probs)

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs


class Binomial(_BinaryTrials):
    """Successes in ``total_count`` independent trials: log p(k) = log C(n, k) + k log p + (n - k) log(1 - p)."""

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        probs, logits = _probs_or_logits(probs, logits, "Binomial")
        given = probs if probs is not None else logits
        self.total_count = _as_tensor(total_count, given)
        self.total_count, given = S.broadcast_tensors(self.total_count, given)
        probs, logits = (given, None) if probs is not None else (None, given)
        if validate_args is not False:
            n = self.total_count.detach()
            _check("total_count", self.total_count, (n >= 0) & (E.floor(n) == n), "IntegerGreaterThan(lower_bound=0)",
                   self)
        self._set_probs(probs, logits, lambda p: (p >= 0) & (p <= 1), "Interval(lower_bound=0.0, upper_bound=1.0)",
                        validate_args)
        super().__init__(given.shape, validate_args=validate_args)

    def _params(self):
        return {"total_count": self.total_count, **super()._params()}

    @property
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return E.minimum(E.floor((self.total_count + 1) * self.probs), self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        with no_grad():
            shape = self._shape(sample_shape)
            n = numpy.broadcast_to(backend.to_host(self.total_count.detach()._data), shape).astype(numpy.int64)
            p = numpy.broadcast_to(backend.to_host(self.probs.detach()._data), shape).astype(numpy.float64)
            host = generator().binomial(n, p).astype(self.probs.dtype)
            device = self.probs.device
            return Tensor._make(backend.asarray(host, device), False, None, device)

    def log_prob(self, value):
        value = _as_tensor(value, self.total_count)
        v, n = value.detach(), self.total_count.detach()
        self._check_value(value, (v >= 0) & (v <= n) & (E.floor(v) == v),
                          f"IntegerInterval(lower_bound=0, upper_bound={self.total_count})")
        n, logits = self.total_count, self.logits
        log_choose = lgamma(n + 1) - lgamma(value + 1) - lgamma(n - value + 1)
        # k log p + (n - k) log(1 - p) = k * logits - n * log(1 + e^logits), the softplus without overflow
        return log_choose + value * logits - n * E.logaddexp(E.zeros_gradient(logits), logits)

    def entropy(self):
        n = self.total_count.detach()
        top = int(n.max().item()) if n.numel() else 0
        if n.numel() and int(n.min().item()) != top:
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        probs = self.probs
        support = arange(top + 1, dtype=probs.dtype, device=probs.device).reshape((-1,) + (1,) * len(self.batch_shape))
        log_prob = self.log_prob(support)
        return -(E.exp(log_prob) * log_prob).sum(0)
