"""More distributions of positive quantities and proportions, for survival, extreme-value and Bayesian labs:
``Weibull``, ``Pareto``, ``InverseGamma``, ``FisherSnedecor`` (the F distribution), ``Kumaraswamy`` (a
Beta-like law on (0, 1) whose CDF has a closed form) and ``ContinuousBernoulli`` (the normalised Bernoulli
likelihood on [0, 1], for VAEs of grey-level images). Each has ``rsample``: an inverse-CDF transform of a
uniform draw (Weibull, Pareto, Kumaraswamy) or of Gamma draws (InverseGamma, FisherSnedecor), so gradients
reach the parameters. PyTorch builds the first four as transformed distributions; these are the same laws
written out, with the same values."""
from __future__ import annotations

import math

import numpy

from ..creation import rand
from ..ops import elementwise as E
from ..ops import shape as S
from ..ops.special_functions import digamma, lgamma
from . import constraints
from ..nn import functional as F
from .exponential_family import ExponentialFamily
from .distribution import (_BinaryTrials, Distribution, _as_tensor, _check, _probs_or_logits, _two, clamp_probs,
                           _validating)
from .gamma_family import Gamma

__all__ = ["Weibull", "Pareto", "InverseGamma", "FisherSnedecor", "Kumaraswamy", "ContinuousBernoulli"]

_EULER = 0.57721566490153286061   # the Euler-Mascheroni constant


def _positive(name, value, owner):
    _check(name, value, value.detach() > 0, "GreaterThan(lower_bound=0.0)", owner)


class _TwoPositive(Distribution):
    """A distribution of two positive parameters, named by ``names``."""

    names = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.arg_constraints = {name: constraints.positive for name in cls.names}

    def __init__(self, first, second, validate_args=None):
        a, b = _two(first, second)
        for name, value in zip(self.names, (a, b)):
            setattr(self, name, value)
            if _validating(validate_args):
                _positive(name, value, self)
        super().__init__(a.shape, validate_args=validate_args)

    def _params(self):
        return {name: getattr(self, name) for name in self.names}

    def _uniform(self, sample_shape):
        like = getattr(self, self.names[0])
        return rand(self._shape(sample_shape), dtype=like.dtype, device=like.device)


class Weibull(_TwoPositive):
    """P(X > x) = exp(-(x/scale)^k), k = ``concentration``: log p(x) = log(k/scale) + (k - 1) log(x/scale) -
    (x/scale)^k for x > 0; a draw is scale (-log(1 - u))^(1/k)."""

    names = ("scale", "concentration")

    support = constraints.positive
    has_rsample = True

    def __init__(self, scale, concentration, validate_args=None):
        super().__init__(scale, concentration, validate_args)

    def rsample(self, sample_shape=()):
        return self.scale * (-E.log1p(-self._uniform(sample_shape))) ** (1 / self.concentration)

    def log_prob(self, value):
        value = _as_tensor(value, self.scale)
        self._check_value(value, value.detach() > 0, "GreaterThan(lower_bound=0.0)")
        k, z = self.concentration, value / self.scale
        return E.log(k / self.scale) + (k - 1) * E.log(z) - z ** k

    def cdf(self, value):
        return -E.expm1(-(_as_tensor(value, self.scale) / self.scale) ** self.concentration)

    def icdf(self, value):
        return self.scale * (-E.log1p(-_as_tensor(value, self.scale))) ** (1 / self.concentration)

    @property
    def mean(self):
        return self.scale * E.exp(lgamma(1 + 1 / self.concentration))

    @property
    def mode(self):
        k = self.concentration
        return self.scale * ((k - 1) / k) ** (1 / k)

    @property
    def variance(self):
        k = self.concentration
        return self.scale ** 2 * (E.exp(lgamma(1 + 2 / k)) - E.exp(2 * lgamma(1 + 1 / k)))

    def entropy(self):
        k = self.concentration
        return _EULER * (1 - 1 / k) + E.log(self.scale / k) + 1


class Pareto(_TwoPositive):
    """P(X > x) = (scale/x)^alpha for x >= scale: log p(x) = log alpha + alpha log scale - (alpha + 1) log x; a
    draw is scale (1 - u)^(-1/alpha)."""

    names = ("scale", "alpha")

    has_rsample = True

    def __init__(self, scale, alpha, validate_args=None):
        super().__init__(scale, alpha, validate_args)

    @property
    def support(self):
        return constraints.greater_than_eq(self.scale)

    def rsample(self, sample_shape=()):
        return self.scale * E.exp(-E.log1p(-self._uniform(sample_shape)) / self.alpha)

    def log_prob(self, value):
        value = _as_tensor(value, self.scale)
        self._check_value(value, value.detach() >= self.scale.detach(), f"GreaterThanEq(lower_bound={self.scale})")
        return E.log(self.alpha) + self.alpha * E.log(self.scale) - (self.alpha + 1) * E.log(value)

    def cdf(self, value):
        value = _as_tensor(value, self.scale)
        self._check_value(value, value.detach() >= self.scale.detach(), f"GreaterThanEq(lower_bound={self.scale})")
        return 1 - (self.scale / value) ** self.alpha

    def icdf(self, value):
        return self.scale * E.exp(-E.log1p(-_as_tensor(value, self.scale)) / self.alpha)

    @property
    def mean(self):
        a = E.clamp(self.alpha, min=1.0)   # (inf for alpha <= 1, as PyTorch)
        return a * self.scale / (a - 1)

    @property
    def mode(self):
        return self.scale

    @property
    def variance(self):
        a = E.clamp(self.alpha, min=2.0)   # (inf for alpha <= 2)
        return self.scale ** 2 * a / ((a - 1) ** 2 * (a - 2))

    def entropy(self):
        return E.log(self.scale / self.alpha) + (1 + 1 / self.alpha)


class InverseGamma(_TwoPositive):
    """1/X for X ~ Gamma(concentration, rate): log p(x) = a log b - lgamma(a) - (a + 1) log x - b/x for x > 0."""

    names = ("concentration", "rate")

    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        super().__init__(concentration, rate, validate_args)

    def rsample(self, sample_shape=()):
        return 1 / Gamma(self.concentration, self.rate, validate_args=False).rsample(sample_shape)

    def log_prob(self, value):
        value = _as_tensor(value, self.rate)
        self._check_value(value, value.detach() > 0, "GreaterThan(lower_bound=0.0)")
        a, b = self.concentration, self.rate
        return a * E.log(b) - lgamma(a) - (a + 1) * E.log(value) - b / value

    def cdf(self, value):
        """P(1/X <= x) = P(X >= 1/x) = 1 - Gamma's CDF at 1/x."""
        value = _as_tensor(value, self.rate)
        self._check_value(value, value.detach() > 0, "GreaterThan(lower_bound=0.0)")
        return 1 - Gamma(self.concentration, self.rate, validate_args=False).cdf(1 / value)

    @property
    def mean(self):
        a = self.concentration
        with numpy.errstate(divide="ignore"):   # (at a = 1 the branch not taken divides by 0: no warning, as torch)
            return E.where(a > 1, self.rate / (a - 1), math.inf)

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        a = self.concentration
        with numpy.errstate(divide="ignore"):
            return E.where(a > 2, self.rate ** 2 / ((a - 1) ** 2 * (a - 2)), math.inf)

    def entropy(self):
        a = self.concentration
        return a + E.log(self.rate) + lgamma(a) - (1 + a) * digamma(a)


class FisherSnedecor(_TwoPositive):
    """The F distribution: (X1/df1) / (X2/df2) for chi-square X1, X2 of df1 and df2 degrees of freedom.
    log p(x) = lgamma((d1 + d2)/2) - lgamma(d1/2) - lgamma(d2/2) + (d1/2) log(d1/d2) + (d1/2 - 1) log x -
    ((d1 + d2)/2) log(1 + d1 x / d2)."""

    names = ("df1", "df2")

    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        super().__init__(df1, df2, validate_args)

    def rsample(self, sample_shape=()):
        half1, half2 = 0.5 * self.df1, 0.5 * self.df2
        x1 = Gamma(half1, half1, validate_args=False).rsample(sample_shape)
        x2 = Gamma(half2, half2, validate_args=False).rsample(sample_shape)
        tiny = float(numpy.finfo(x2.dtype).tiny)
        return E.clamp(x1 / E.clamp(x2, min=tiny), min=tiny)

    def log_prob(self, value):
        value = _as_tensor(value, self.df1)
        self._check_value(value, value.detach() > 0, "GreaterThan(lower_bound=0.0)")
        h1, h2, ratio = 0.5 * self.df1, 0.5 * self.df2, self.df1 / self.df2
        return (lgamma(h1 + h2) - lgamma(h1) - lgamma(h2) + h1 * E.log(ratio) + (h1 - 1) * E.log(value)
                - (h1 + h2) * E.log1p(ratio * value))

    @property
    def mean(self):
        d2 = self.df2
        return E.where(d2 > 2, d2 / (d2 - 2), math.nan)

    @property
    def mode(self):
        d1, d2 = self.df1, self.df2
        return E.where(d1 > 2, (d1 - 2) / d1 * d2 / (d2 + 2), math.nan)

    @property
    def variance(self):
        d1, d2 = self.df1, self.df2
        return E.where(d2 > 4, 2 * d2 ** 2 * (d1 + d2 - 2) / (d1 * (d2 - 2) ** 2 * (d2 - 4)), math.nan)


class Kumaraswamy(_TwoPositive):
    """On (0, 1): P(X <= x) = 1 - (1 - x^a)^b, a = ``concentration1``, b = ``concentration0``: log p(x) = log a +
    log b + (a - 1) log x + (b - 1) log(1 - x^a); a draw is (1 - u^(1/b))^(1/a)."""

    names = ("concentration1", "concentration0")

    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        super().__init__(concentration1, concentration0, validate_args)

    def rsample(self, sample_shape=()):
        u = self._uniform(sample_shape)
        return (1 - u ** (1 / self.concentration0)) ** (1 / self.concentration1)

    def log_prob(self, value):
        value = _as_tensor(value, self.concentration1)
        self._check_value(value, (value.detach() >= 0) & (value.detach() <= 1),
                          "Interval(lower_bound=0.0, upper_bound=1.0)")
        a, b = self.concentration1, self.concentration0
        return E.log(a) + E.log(b) + (a - 1) * E.log(value) + (b - 1) * E.log1p(-value ** a)

    def cdf(self, value):
        value = _as_tensor(value, self.concentration1)
        self._check_value(value, (value.detach() >= 0) & (value.detach() <= 1),
                          "Interval(lower_bound=0.0, upper_bound=1.0)")
        return 1 - (1 - value ** self.concentration1) ** self.concentration0

    def icdf(self, value):
        return (1 - (1 - _as_tensor(value, self.concentration1)) ** (1 / self.concentration0)) ** (
            1 / self.concentration1)

    def _moment(self, n):
        """E[X^n] = b B(1 + n/a, b) = b Gamma(1 + n/a) Gamma(b) / Gamma(1 + n/a + b)."""
        a, b = self.concentration1, self.concentration0
        return b * E.exp(lgamma(1 + n / a) + lgamma(b) - lgamma(1 + n / a + b))

    @property
    def mean(self):
        return self._moment(1)

    @property
    def mode(self):
        a, b = self.concentration1, self.concentration0
        value = ((a - 1) / (a * b - 1)) ** (1 / a)
        return E.where((a < 1) | (b < 1), math.nan, value)

    @property
    def variance(self):
        return self._moment(2) - self._moment(1) ** 2

    def entropy(self):
        """(1 - 1/b) + (1 - 1/a) H_b - log(a b), with H_b = digamma(b + 1) + euler the b-th harmonic number."""
        a, b = self.concentration1, self.concentration0
        return (1 - 1 / b) + (1 - 1 / a) * (digamma(b + 1) + _EULER) - E.log(a) - E.log(b)


class ContinuousBernoulli(_BinaryTrials, ExponentialFamily):
    """On [0, 1]: p(x) = C(l) l^x (1 - l)^(1 - x), with l = ``probs`` (or sigmoid of ``logits``) and C(l) =
    2 artanh(1 - 2l) / (1 - 2l) the constant that makes it a density (Loaiza-Ganem & Cunningham, 2019). Near
    l = 1/2 the closed forms divide 0 by 0, so inside ``lims`` (0.499, 0.501) they are replaced by their Taylor
    series in l - 1/2, as in PyTorch. ``rsample`` is the inverse CDF of a uniform draw."""

    support = constraints.unit_interval
    has_rsample = True

    _mean_carrier_measure = 0

    @property
    def _natural_params(self):
        """(logit l,)."""
        return (self.logits,)

    def _log_normalizer(self, x):
        """A = log|(e^x - 1) / x|; near x = 0 (inside ``lims`` shifted by -1/2, as PyTorch reads them), its
        series x/2 + x^2/24 - x^4/2880."""
        outside = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut = E.where(outside, x, self._lims[0] - 0.5)
        closed = E.log(E.abs(E.expm1(cut))) - E.log(E.abs(cut))
        return E.where(outside, closed, 0.5 * x + x ** 2 / 24.0 - x ** 4 / 2880.0)

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        probs, logits = _probs_or_logits(probs, logits, "ContinuousBernoulli")
        if probs is not None:
            if _validating(validate_args) and not bool(((probs.detach() >= 0) & (probs.detach() <= 1)).all()):
                raise ValueError("The parameter probs has invalid values")
            probs = clamp_probs(probs)
        self._set_probs(probs, logits, lambda p: p == p, "Interval(lower_bound=0.0, upper_bound=1.0)", False)
        self._lims = lims
        super().__init__((probs if probs is not None else logits).shape, validate_args=validate_args)

    @property
    def probs(self):
        if self._probs is not None:
            return self._probs
        return clamp_probs(E.sigmoid(self._logits))

    def _stable(self):
        """Where l is far enough from 1/2 for the closed forms."""
        p = self.probs
        return (p <= self._lims[0]) | (p > self._lims[1])

    def _cut(self):
        """l where the closed forms hold, a harmless lims[0] elsewhere (so no 0/0 even in a discarded branch)."""
        return E.where(self._stable(), self.probs, self._lims[0])

    def _log_norm(self):
        """log C(l) = log|log(1 - l) - log l| - log|1 - 2l|; near 1/2, log 2 + (4/3) x + (104/45) x^2, x = (l - 1/2)^2."""
        c = self._cut()
        below = E.where(c <= 0.5, c, 0.0)
        above = E.where(c >= 0.5, c, 1.0)
        closed = E.log(E.abs(E.log1p(-c) - E.log(c))) - E.where(c <= 0.5, E.log1p(-2.0 * below),
                                                               E.log(2.0 * above - 1.0))
        x = (self.probs - 0.5) ** 2
        return E.where(self._stable(), closed, math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x)

    @property
    def mean(self):
        c = self._cut()
        closed = c / (2.0 * c - 1.0) + 1.0 / (E.log1p(-c) - E.log(c))
        x = self.probs - 0.5
        return E.where(self._stable(), closed, 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x ** 2) * x)

    @property
    def variance(self):
        c = self._cut()
        closed = c * (c - 1.0) / (1.0 - 2.0 * c) ** 2 + 1.0 / (E.log1p(-c) - E.log(c)) ** 2
        x = (self.probs - 0.5) ** 2
        return E.where(self._stable(), closed, 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x)

    def log_prob(self, value):
        value = _as_tensor(value, self.probs)
        self._check_value(value, (value.detach() >= 0) & (value.detach() <= 1),
                          "Interval(lower_bound=0.0, upper_bound=1.0)")
        logits, value = S.broadcast_tensors(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none") + self._log_norm()

    def cdf(self, value):
        value = _as_tensor(value, self.probs)
        self._check_value(value, (value.detach() >= 0) & (value.detach() <= 1),
                          "Interval(lower_bound=0.0, upper_bound=1.0)")
        c = self._cut()
        closed = (c ** value * (1.0 - c) ** (1.0 - value) + c - 1.0) / (2.0 * c - 1.0)
        inside = E.where(self._stable(), closed, value)
        return E.where(value <= 0.0, 0.0, E.where(value >= 1.0, 1.0, inside))

    def icdf(self, value):
        value = _as_tensor(value, self.probs)
        c = self._cut()
        closed = (E.log1p(-c + value * (2.0 * c - 1.0)) - E.log1p(-c)) / (E.log(c) - E.log1p(-c))
        return E.where(self._stable(), closed, value)

    def rsample(self, sample_shape=()):
        return self.icdf(rand(self._shape(sample_shape), dtype=self.probs.dtype, device=self.probs.device))

    def entropy(self):
        log0, log1 = E.log1p(-self.probs), E.log(self.probs)
        return self.mean * (log0 - log1) - self._log_norm() - log0
