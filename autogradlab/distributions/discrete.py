"""The discrete distributions: ``Bernoulli`` (one trial), ``Categorical`` (one of K) and ``OneHotCategorical``
(the same as a one-hot vector), ``Geometric`` (failures before the first success) and ``Binomial`` (successes in
``total_count`` trials). Each takes ``probs=`` or ``logits=``; ``log_prob`` is differentiable in them (a REINFORCE
gradient: ``-(dist.log_prob(action) * advantage).sum()``), ``sample`` a constant.
"""
from __future__ import annotations

import math

import numpy

from .. import backend
from ..creation import arange, eye, generator, rand
from ..grad_mode import no_grad
from ..nn import functional as F
from ..ops import elementwise as E
from ..ops import reduce as R
from ..ops import shape as S
from ..ops.special_functions import lgamma
from ..sampling import multinomial
from ..tensor import Tensor
from . import constraints
from .exponential_family import ExponentialFamily
from .distribution import (Distribution, _as_tensor, _BinaryTrials, _check, _probs_or_logits, clamp_probs,
                           _validating)
from .kl import register_kl

__all__ = ["Bernoulli", "Categorical", "OneHotCategorical", "OneHotCategoricalStraightThrough", "Geometric",
           "Binomial"]


class Bernoulli(_BinaryTrials, ExponentialFamily):
    """1 with probability p, else 0: log p(x) = x log p + (1 - x) log(1 - p), from the logits for stability."""

    support = constraints.boolean

    _mean_carrier_measure = 0

    @property
    def _natural_params(self):
        """(logit p,)."""
        return (self.logits,)

    def _log_normalizer(self, x):
        """A = log(1 + e^x) = -logsigmoid(-x) (stable, and smooth at 0 to every order)."""
        return -F.logsigmoid(-x)

    def __init__(self, probs=None, logits=None, validate_args=None):
        probs, logits = _probs_or_logits(probs, logits, "Bernoulli")
        self._set_probs(probs, logits, lambda p: (p >= 0) & (p <= 1), "Interval(lower_bound=0.0, upper_bound=1.0)",
                        validate_args)
        super().__init__((probs if probs is not None else logits).shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.probs

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    @property
    def mode(self):
        """1 where p > 1/2, 0 where p < 1/2, NaN at 1/2 (PyTorch's)."""
        p = self.probs.detach()
        return E.where(p == 0.5, math.nan, E.to_dtype(p > 0.5, p.dtype))

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

    has_enumerate_support = True

    def enumerate_support(self, expand=True):
        """0 and 1 (in the parameters' dtype)."""
        like = self._probs if self._probs is not None else self._logits
        return self._support_of(arange(2, dtype=like.dtype, device=like.device), expand)


class Categorical(Distribution):
    """One of K categories (the last dim of ``probs`` or ``logits``): log p(k) = logits_k - logsumexp(logits)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.independent(constraints.real, 1)}

    def __init__(self, probs=None, logits=None, validate_args=None):
        probs, logits = _probs_or_logits(probs, logits, "Categorical")
        given = probs if probs is not None else logits
        if given.ndim < 1:
            raise ValueError("`probs` or `logits` parameter must be at least one-dimensional.")
        # (as in PyTorch, the parameter is checked once normalised: all-zero probs or an infinite logit give NaN)
        if probs is not None:
            probs = probs / probs.sum(-1, keepdim=True)
            if _validating(validate_args):
                p = probs.detach()
                ok = (p >= 0).all(-1) & ((p.sum(-1) - 1).abs() < 1e-6)
                _check("probs", probs, ok, "Simplex()", self)
        else:
            logits = logits - R.logsumexp(logits, -1, keepdim=True)
            if _validating(validate_args):
                _check("logits", logits, ~E.isnan(logits.detach()), "IndependentConstraint(Real(), 1)", self)
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
        return E.log(clamp_probs(self._probs))

    @property
    def param_shape(self):
        return self.batch_shape + (self._num_events,)

    @property
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    has_enumerate_support = True

    def enumerate_support(self, expand=True):
        """0, 1, ..., K - 1 (int64)."""
        like = self._probs if self._probs is not None else self._logits
        return self._support_of(arange(self._num_events, device=like.device), expand)

    @property
    def mean(self):
        """NaN: categories have no order (PyTorch's)."""
        return E.zeros_gradient(self.probs[..., 0]) + math.nan

    @property
    def variance(self):
        return E.zeros_gradient(self.probs[..., 0]) + math.nan

    @property
    def mode(self):
        return self.probs.argmax(-1)

    def sample(self, sample_shape=()):
        with no_grad():
            probs = self.probs.detach().reshape(-1, self._num_events)
            draws = multinomial(probs, math.prod(sample_shape) or 1, replacement=True)   # (n rows, k draws)
            return draws.T.reshape(tuple(sample_shape) + self.batch_shape)

    def log_prob(self, value):
        if not isinstance(value, Tensor) or value.dtype.kind not in "iuf":
            raise ValueError("Categorical.log_prob takes category indices: a Tensor of integers (whole floats "
                             "count, as in PyTorch)")
        v = value.detach()
        whole = v == v.floor() if v.dtype.kind == "f" else True
        self._check_value(value, (v >= 0) & (v < self._num_events) & whole,
                          f"IntegerInterval(lower_bound=0, upper_bound={self._num_events - 1})")
        logits = self.logits
        value = value.long().unsqueeze(-1)
        value, logits = S.broadcast_tensors(value, logits)
        return logits.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self):
        logits = E.clamp(self.logits, min=float(numpy.finfo(self.logits.dtype).min))
        return -(logits * self.probs).sum(-1)


class _OverCategorical(Distribution):
    """A distribution of events of length K built on a ``Categorical`` (its ``probs`` or ``logits`` over the last
    dim): OneHotCategorical, Multinomial, ExpRelaxedCategorical."""

    arg_constraints = Categorical.arg_constraints

    def __init__(self, probs, logits, validate_args):
        self._categorical = Categorical(probs=probs, logits=logits, validate_args=validate_args)
        super().__init__(self._categorical.batch_shape, (self._categorical._num_events,), validate_args=validate_args)

    def _params(self):
        return self._categorical._params()

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def param_shape(self):
        return self._categorical.param_shape


class OneHotCategorical(_OverCategorical):
    """A ``Categorical`` whose values are one-hot vectors of length K (the event)."""

    support = constraints.one_hot

    def __init__(self, probs=None, logits=None, validate_args=None):
        super().__init__(probs, logits, validate_args)

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        probs = self.probs
        return F.one_hot(probs.argmax(-1), probs.shape[-1]).to(probs.dtype)

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        probs = self.probs
        return F.one_hot(self._categorical.sample(sample_shape), probs.shape[-1]).to(probs.dtype)

    def log_prob(self, value):
        value = _as_tensor(value, self.probs)
        v = value.detach()
        self._check_value(value, (((v == 0) | (v == 1)).all(-1)) & (v.sum(-1) == 1), "OneHot()")
        return self._categorical.log_prob(v.argmax(-1))

    def entropy(self):
        return self._categorical.entropy()

    has_enumerate_support = True

    def enumerate_support(self, expand=True):
        """The K one-hot vectors (rows of the identity, in the parameters' dtype)."""
        probs = self.probs
        return self._support_of(eye(probs.shape[-1], dtype=probs.dtype, device=probs.device), expand)


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """A ``OneHotCategorical`` with the straight-through ``rsample``: the one-hot draw going forward, the gradient
    of ``probs`` going back (draw + probs - probs.detach(), whose value is the draw)."""

    has_rsample = True

    def rsample(self, sample_shape=()):
        probs = self.probs
        return self.sample(sample_shape) + (probs - probs.detach())


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
        whole = (value.detach() >= 0) & (E.floor(value.detach()) == value.detach()) & E.isfinite(value.detach())
        self._check_value(value, whole, "IntegerGreaterThan(lower_bound=0)")
        probs = self.probs
        value, probs = S.broadcast_tensors(value, probs)
        certain = (probs.detach() == 1) & (value.detach() == 0)   # (0 * log 0: 0, with no NaN in the gradient)
        return value * E.log1p(-E.where(certain, 0.0, probs)) + E.log(probs)

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs


class Binomial(_BinaryTrials):
    """Successes in ``total_count`` independent trials: log p(k) = log C(n, k) + k log p + (n - k) log(1 - p)."""

    arg_constraints = {"total_count": constraints.nonnegative_integer, **_BinaryTrials.arg_constraints}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        probs, logits = _probs_or_logits(probs, logits, "Binomial")
        given = probs if probs is not None else logits
        self.total_count = _as_tensor(total_count, given)
        self.total_count, given = S.broadcast_tensors(self.total_count, given)
        probs, logits = (given, None) if probs is not None else (None, given)
        if _validating(validate_args):
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

    has_enumerate_support = True

    def enumerate_support(self, expand=True):
        """0, 1, ..., n, for one n shared by the whole batch."""
        n = self.total_count.detach()
        if float(n.max()) != float(n.min()):
            raise NotImplementedError("Inhomogeneous total count not supported by `enumerate_support`: the "
                                      "batch's total_count differ, so their supports have different lengths")
        return self._support_of(arange(int(n.max()) + 1, dtype=n.dtype, device=n.device), expand)

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
            host = numpy.asarray(generator().binomial(n, p)).astype(self.probs.dtype)
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


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    """sum_k p_k (log p_k - log q_k): inf where q_k = 0 < p_k, and a p_k = 0 term is 0."""
    t = p.probs * (p.logits - q.logits)
    t = E.where((q.probs == 0).expand(*t.shape), math.inf, t)
    return E.where((p.probs == 0).expand(*t.shape), 0.0, t).sum(-1)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    """p log(p/q) + (1 - p) log((1 - p)/(1 - q)), each log from the logits (softplus); inf where q gives 0 to
    what p does not."""
    success = p.probs * (F.softplus(-q.logits) - F.softplus(-p.logits))
    success = E.where(p.probs == 0, 0.0, E.where(q.probs == 0, math.inf, success))   # (q = 0 < p: inf)
    failure = (1 - p.probs) * (F.softplus(q.logits) - F.softplus(p.logits))
    failure = E.where(p.probs == 1, 0.0, E.where(q.probs == 1, math.inf, failure))
    return success + failure
