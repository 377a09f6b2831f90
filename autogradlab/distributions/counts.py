"""Count distributions beyond the Binomial and Poisson: ``Multinomial`` (how many of ``total_count`` draws
fall in each of K categories) and ``NegativeBinomial`` (failures before ``total_count`` successes; a
Gamma-Poisson mixture, the over-dispersed Poisson of count-data regression)."""
from __future__ import annotations

import math

import numpy

from .. import backend
from ..creation import arange, generator
from ..grad_mode import no_grad
from ..nn import functional as F
from ..ops import elementwise as E
from ..ops.special_functions import lgamma
from ..tensor import Tensor
from . import constraints
from .discrete import Binomial, _OverCategorical
from .distribution import _as_tensor, _BinaryTrials, _check, _probs_or_logits, _validating

__all__ = ["Multinomial", "NegativeBinomial"]


class Multinomial(_OverCategorical):
    """Counts x (a vector over K categories, summing to n = ``total_count``):
    log p(x) = lgamma(n + 1) - sum_k lgamma(x_k + 1) + sum_k x_k log p_k. ``total_count`` is an int (it matters
    for ``sample`` and ``entropy``; ``log_prob`` reads n from the counts, as PyTorch's)."""

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if isinstance(total_count, bool) or not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported: total_count must be an int")
        if total_count < 0 and _validating(validate_args):
            raise ValueError(f"Multinomial: total_count must be a count of trials (an int >= 0), got {total_count}")
        self.total_count = total_count
        super().__init__(probs, logits, validate_args)

    @property
    def support(self):
        """Counts >= 0 summing to at most ``total_count`` (PyTorch's ``constraints.multinomial``)."""
        return constraints.multinomial(self.total_count)

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        with no_grad():
            k, n = self._categorical._num_events, self.total_count
            probs = backend.to_host(self.probs.detach()._data).astype(numpy.float64)
            probs = probs / probs.sum(-1, keepdims=True)
            shape = tuple(sample_shape) + self.batch_shape
            flat = numpy.broadcast_to(probs, shape + (k,)).reshape(-1, k)
            host = numpy.stack([generator().multinomial(n, row) for row in flat]) if flat.shape[0] else \
                numpy.zeros((0, k))
            device = self.probs.device
            return Tensor._make(backend.asarray(host.reshape(shape + (k,)).astype(self.probs.dtype), device),
                                False, None, device)

    def log_prob(self, value):
        value = _as_tensor(value, self.probs)
        v = value.detach()
        # (PyTorch's constraints.multinomial: counts >= 0 within the total; whole numbers are not required)
        self._check_value(value, (v >= 0).all(-1) & (v.sum(-1) <= self.total_count),
                          f"Multinomial(upper_bound={self.total_count})")
        logits = self.logits
        # (a count of 0 in a category of probability 0 contributes 0, not 0 * -inf)
        logits = E.where((value == 0) & E.isinf(logits), 0.0, logits)
        return lgamma(value.sum(-1) + 1) - lgamma(value + 1).sum(-1) + (logits * value).sum(-1)

    def entropy(self):
        """n H(categorical) - lgamma(n + 1) + sum_k E[lgamma(x_k + 1)], each x_k a Binomial(n, p_k)."""
        n = self.total_count
        binomial = Binomial(n, self.probs, validate_args=False)
        support = arange(n + 1, dtype=self.probs.dtype, device=self.probs.device)
        support = support.reshape((-1,) + (1,) * (len(self.batch_shape) + 1))
        weighted = (E.exp(binomial.log_prob(support)) * lgamma(support + 1)).sum(0).sum(-1)
        return n * self._categorical.entropy() - math.lgamma(n + 1) + weighted


class NegativeBinomial(_BinaryTrials):
    """The number of failures before ``total_count`` successes, each trial a success with probability 1 - p
    (PyTorch's convention: ``probs`` is the failure probability): log p(k) = lgamma(k + r) - lgamma(k + 1) -
    lgamma(r) + r log(1 - p) + k log p, with r = ``total_count`` > 0 (not necessarily whole)."""

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0), "logits": constraints.real}

    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        probs, logits = _probs_or_logits(probs, logits, "NegativeBinomial")
        given = probs if probs is not None else logits
        self.total_count = _as_tensor(total_count, given)
        shape = numpy.broadcast_shapes(tuple(self.total_count.shape), tuple(given.shape))
        self.total_count, given = self.total_count.expand(*shape), given.expand(*shape)
        probs, logits = (given, None) if probs is not None else (None, given)
        if _validating(validate_args):
            _check("total_count", self.total_count, self.total_count.detach() >= 0, "GreaterThanEq(lower_bound=0.0)",
                   self)
        self._set_probs(probs, logits, lambda p: (p >= 0) & (p < 1), "HalfOpenInterval(lower_bound=0.0, "
                        "upper_bound=1.0)", validate_args)
        super().__init__(shape, validate_args=validate_args)

    def _params(self):
        return {"total_count": self.total_count, **super()._params()}

    @property
    def mean(self):
        return self.total_count * E.exp(self.logits)

    @property
    def mode(self):
        return E.clamp(E.floor((self.total_count - 1) * E.exp(self.logits)), min=0.0)

    @property
    def variance(self):
        return self.mean / E.sigmoid(-self.logits)

    def sample(self, sample_shape=()):
        """A Poisson draw whose rate is a Gamma(total_count, e^-logits) draw."""
        with no_grad():
            shape = self._shape(sample_shape)
            r = numpy.broadcast_to(backend.to_host(self.total_count.detach()._data), shape).astype(numpy.float64)
            odds = numpy.broadcast_to(backend.to_host(E.exp(self.logits.detach())._data), shape).astype(numpy.float64)
            rates = generator().standard_gamma(numpy.maximum(r, numpy.finfo(numpy.float64).tiny)) * odds
            host = numpy.where(r > 0, generator().poisson(rates), 0).astype(self.logits.dtype)
            device = self.logits.device
            return Tensor._make(backend.asarray(host, device), False, None, device)

    def log_prob(self, value):
        value = _as_tensor(value, self.total_count)
        v = value.detach()
        self._check_value(value, (v >= 0) & (E.floor(v) == v) & ~E.isinf(v), "IntegerGreaterThan(lower_bound=0)")
        r, logits = self.total_count, self.logits
        unnormalized = r * F.logsigmoid(-logits) + value * F.logsigmoid(logits)
        normalization = lgamma(r + value) - lgamma(1.0 + value) - lgamma(r)
        # (r + k = 0: the only outcome of zero trials, probability 1; lgamma(0) would be inf there)
        return unnormalized + E.where(r + value == 0.0, 0.0, normalization)
