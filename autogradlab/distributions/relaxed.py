"""Continuous relaxations of discrete choices, for VAEs with discrete latents (Maddison et al., 2017; Jang et
al., 2017): ``RelaxedBernoulli`` and ``RelaxedOneHotCategorical`` (the Concrete / Gumbel-softmax
distributions), and their log-space bases ``LogitRelaxedBernoulli`` and ``ExpRelaxedCategorical``. Each
``rsample`` is differentiable in the probabilities, and approaches a hard sample as ``temperature`` goes to 0.

- ``LogitRelaxedBernoulli(t, p)``: ``x = (logit p + log u - log(1 - u)) / t`` for u uniform (logistic noise);
  ``log p(x) = log t + d - 2 log(1 + e^d)`` with ``d = logit p - t x``.
- ``RelaxedBernoulli``: ``sigmoid(x)``, a ``TransformedDistribution``.
- ``ExpRelaxedCategorical(t, p)``: ``x = s - logsumexp(s)``, ``s = (log p + g) / t`` with g Gumbel noise;
  ``log p(x) = lgamma(K) + (K - 1) log t + sum_k (l_k - t x_k) - K logsumexp_k(l_k - t x_k)`` (l the
  normalised logits).
- ``RelaxedOneHotCategorical``: ``exp(x)``, a point of the simplex.
"""
from __future__ import annotations

import math

import numpy

from ..creation import rand
from ..ops import elementwise as E
from ..ops import reduce as R
from ..ops import shape as S
from . import constraints
from .discrete import Bernoulli, _OverCategorical
from .distribution import Distribution, _as_tensor, _check, _validating, clamp_probs
from .transformed import TransformedDistribution
from .basic_transforms import ExpTransform, SigmoidTransform

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli", "ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


def _temperature(temperature, like, owner, validate_args):
    """The temperature as a tensor; checked > 0 unless ``validate_args=False`` (PyTorch never checks it)."""
    t = _as_tensor(temperature, like)
    if _validating(validate_args):
        _check("temperature", t, t.detach() > 0, "GreaterThan(lower_bound=0.0)", owner)
    return t


class LogitRelaxedBernoulli(Distribution):
    """The logit of a relaxed Bernoulli sample: logistic noise added to the logits, divided by ``temperature``."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}

    _shared_by_batch = ("temperature",)

    support = constraints.real
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._bernoulli = Bernoulli(probs, logits, validate_args=validate_args)
        given = self._bernoulli._probs if self._bernoulli._probs is not None else self._bernoulli._logits
        self.temperature = _temperature(temperature, given, self, validate_args)
        shape = numpy.broadcast_shapes(tuple(self.temperature.shape), tuple(given.shape))
        super().__init__(shape, validate_args=validate_args)

    def _params(self):
        return self._bernoulli._params()

    @property
    def probs(self):
        return self._bernoulli.probs

    @property
    def logits(self):
        return self._bernoulli.logits

    def rsample(self, sample_shape=()):
        shape = self._shape(sample_shape)
        probs = clamp_probs(S.expand(self.probs, shape))
        u = clamp_probs(rand(tuple(shape), dtype=probs.dtype, device=probs.device))
        return (E.log(u) - E.log1p(-u) + E.log(probs) - E.log1p(-probs)) / self.temperature

    def log_prob(self, value):
        value = _as_tensor(value, self.temperature)
        diff = self.logits - value * self.temperature
        return E.log(self.temperature) + diff - 2 * E.log1p(E.exp(diff))


class _Relaxed(TransformedDistribution):
    """A relaxed distribution: its base's ``temperature``, ``probs`` and ``logits``, pushed through a transform."""

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def probs(self):
        return self.base_dist.probs

    @property
    def logits(self):
        return self.base_dist.logits


class RelaxedBernoulli(_Relaxed):
    """A point of (0, 1) near 0 or 1, more so as ``temperature`` falls: ``sigmoid`` of a
    :class:`LogitRelaxedBernoulli` sample. ``rsample`` is differentiable in ``probs``/``logits``."""

    arg_constraints = LogitRelaxedBernoulli.arg_constraints

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        super().__init__(LogitRelaxedBernoulli(temperature, probs, logits, validate_args), SigmoidTransform(),
                         validate_args=validate_args)

    support = constraints.unit_interval


class ExpRelaxedCategorical(_OverCategorical):
    """The log of a relaxed one-hot sample: ``log softmax((log p + Gumbel noise) / temperature)`` over the last
    dim (an event of K)."""

    _shared_by_batch = ("temperature",)

    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        super().__init__(probs, logits, validate_args)
        given = self._categorical._probs if self._categorical._probs is not None else self._categorical._logits
        self.temperature = _temperature(temperature, given, self, validate_args)

    def rsample(self, sample_shape=()):
        shape = self._shape(sample_shape)
        logits = S.expand(self.logits, shape)
        u = clamp_probs(rand(tuple(shape), dtype=logits.dtype, device=logits.device))
        scores = (logits - E.log(-E.log(u))) / self.temperature   # (-log(-log u): Gumbel(0, 1) noise)
        return scores - R.logsumexp(scores, -1, keepdim=True)

    def log_prob(self, value):
        value = _as_tensor(value, self.temperature)
        k = self._categorical._num_events
        log_scale = math.lgamma(k) + (k - 1) * E.log(self.temperature)
        score = self.logits - value * self.temperature
        return (score - R.logsumexp(score, -1, keepdim=True)).sum(-1) + log_scale


class RelaxedOneHotCategorical(_Relaxed):
    """A point of the simplex near a corner, more so as ``temperature`` falls (Gumbel-softmax): ``exp`` of an
    :class:`ExpRelaxedCategorical` sample. ``rsample`` is differentiable in ``probs``/``logits``."""

    arg_constraints = ExpRelaxedCategorical.arg_constraints

    support = constraints.simplex

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        super().__init__(ExpRelaxedCategorical(temperature, probs, logits, validate_args), ExpTransform(),
                         validate_args=validate_args)
