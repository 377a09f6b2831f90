"""The everyday continuous distributions: ``Normal``, ``Uniform``, ``Exponential``, ``Laplace``,
``MultivariateNormal`` (given its covariance, precision or Cholesky factor) and ``LogisticNormal`` (a Normal
carried onto the simplex), with the KL divergences between two of a kind, between two ``Independent``s, and
among the (low-rank) multivariate normals."""
from __future__ import annotations

import math

import numpy

from .. import linalg
from ..creation import eye, rand, randn
from ..ops import elementwise as E
from ..ops.special_functions import erfinv
from ..older_names import cholesky_solve
from . import constraints
from .exponential_family import ExponentialFamily
from .distribution import (Distribution, Independent, _as_tensor, _CentredAtLoc, _check, _LocationScale, _two,
                           _precision_to_scale_tril, _validating)
from .kl import kl_divergence, register_kl
from .low_rank import LowRankMultivariateNormal
from .more_transforms import StickBreakingTransform
from .transformed import TransformedDistribution

__all__ = ["Normal", "Uniform", "Exponential", "Laplace", "MultivariateNormal", "LogisticNormal"]


class Normal(_LocationScale, ExponentialFamily):
    """N(loc, scale^2): log p(x) = -(x - loc)^2 / (2 scale^2) - log scale - log sqrt(2 pi)."""

    support = constraints.real

    _mean_carrier_measure = 0

    @property
    def _natural_params(self):
        """(mu / sigma^2, -1 / (2 sigma^2))."""
        return self.loc / self.scale ** 2, -0.5 / self.scale ** 2

    def _log_normalizer(self, x, y):
        """A = -x^2 / (4y) + log(pi / -y) / 2."""
        return -0.25 * x ** 2 / y + 0.5 * E.log(-math.pi / y)

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
        self._check_value(value, ~E.isnan(value.detach()), "Real()")
        return -((value - self.loc) ** 2) / (2 * self.variance) - E.log(self.scale) - math.log(math.sqrt(2 * math.pi))

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + E.log(self.scale)

    def cdf(self, value):
        return 0.5 * (1 + E.erf((_as_tensor(value, self.loc) - self.loc) / (self.scale * math.sqrt(2))))

    def icdf(self, value):
        return self.loc + self.scale * erfinv(2 * _as_tensor(value, self.loc) - 1) * math.sqrt(2)


class Uniform(Distribution):
    """U[low, high): log p(x) = -log(high - low) inside, -inf outside."""

    has_rsample = True

    @property
    def arg_constraints(self):
        """Each bound is constrained by the other: low below high, high above low."""
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = _two(low, high)
        if _validating(validate_args):
            _check("low", self.low, self.low.detach() < self.high.detach(),
                   f"LessThan(upper_bound={self.high.detach()})", self)
        super().__init__(self.low.shape, validate_args=validate_args)

    def _params(self):
        return {"low": self.low, "high": self.high}

    @property
    def support(self):
        return constraints.interval(self.low, self.high)

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def variance(self):
        return (self.high - self.low) ** 2 / 12

    @property
    def mode(self):
        """NaN: every point is as likely (PyTorch's)."""
        return E.zeros_gradient(self.low) + math.nan

    def cdf(self, value):
        value = _as_tensor(value, self.low)
        v = value.detach()
        self._check_value(value, (v >= self.low.detach()) & (v <= self.high.detach()), repr(self.support))
        return E.clamp((value - self.low) / (self.high - self.low), 0.0, 1.0)

    def icdf(self, value):
        return self.low + _as_tensor(value, self.low) * (self.high - self.low)

    def rsample(self, sample_shape=()):
        u = rand(self._shape(sample_shape), dtype=self.low.dtype, device=self.low.device)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        value = _as_tensor(value, self.low)
        inside = (self.low.detach() <= value.detach()) & (value.detach() < self.high.detach())
        self._check_value(value, inside | (value.detach() == self.high.detach()),   # (the support is closed; the
                          repr(self.support))                                       # density at high is 0)
        return E.where(inside, -E.log(self.high - self.low), float("-inf"))

    def entropy(self):
        return E.log(self.high - self.low)


class Exponential(ExponentialFamily):
    """rate * exp(-rate x) for x >= 0: log p(x) = log rate - rate x; a draw is Exponential(1) / rate."""

    arg_constraints = {"rate": constraints.positive}

    support = constraints.nonnegative

    _mean_carrier_measure = 0

    @property
    def _natural_params(self):
        """(-rate,)."""
        return (-self.rate,)

    def _log_normalizer(self, x):
        """A = -log(-x)."""
        return -E.log(-x)

    has_rsample = True

    def __init__(self, rate, validate_args=None):
        self.rate = _as_tensor(rate)
        if _validating(validate_args):
            _check("rate", self.rate, self.rate.detach() > 0, "GreaterThan(lower_bound=0.0)", self)
        super().__init__(self.rate.shape, validate_args=validate_args)

    def _params(self):
        return {"rate": self.rate}

    @property
    def mean(self):
        return 1 / self.rate

    @property
    def mode(self):
        return E.zeros_gradient(self.rate)

    @property
    def variance(self):
        return self.rate ** -2

    @property
    def stddev(self):
        return 1 / self.rate

    def rsample(self, sample_shape=()):
        u = rand(self._shape(sample_shape), dtype=self.rate.dtype, device=self.rate.device)
        return -E.log1p(-u) / self.rate     # (-log(1 - u): Exponential(1), u in [0, 1) keeps it finite)

    def log_prob(self, value):
        value = _as_tensor(value, self.rate)
        self._check_value(value, value.detach() >= 0, "GreaterThanEq(lower_bound=0.0)")
        return E.log(self.rate) - self.rate * value

    def entropy(self):
        return 1.0 - E.log(self.rate)

    def cdf(self, value):
        value = _as_tensor(value, self.rate)
        self._check_value(value, value.detach() >= 0, "GreaterThanEq(lower_bound=0.0)")
        return 1 - E.exp(-self.rate * value)

    def icdf(self, value):
        return -E.log1p(-_as_tensor(value, self.rate)) / self.rate


class Laplace(_LocationScale):
    """exp(-|x - loc| / scale) / (2 scale): log p(x) = -log(2 scale) - |x - loc| / scale."""

    support = constraints.real

    @property
    def variance(self):
        return 2 * self.scale ** 2

    @property
    def stddev(self):
        return math.sqrt(2) * self.scale

    def rsample(self, sample_shape=()):
        tiny = float(numpy.finfo(self.loc.dtype).eps)   # (u in (-1, 1): log1p(-|u|) stays finite)
        u = rand(self._shape(sample_shape), dtype=self.loc.dtype, device=self.loc.device) * (2 - tiny) - (1 - tiny)
        return self.loc - self.scale * E.sign(u) * E.log1p(-E.abs(u))

    def log_prob(self, value):
        value = _as_tensor(value, self.loc)
        self._check_value(value, ~E.isnan(value.detach()), "Real()")
        return -E.log(2 * self.scale) - E.abs(value - self.loc) / self.scale

    def entropy(self):
        return 1 + E.log(2 * self.scale)

    def cdf(self, value):
        d = _as_tensor(value, self.loc) - self.loc
        return 0.5 - 0.5 * E.sign(d) * E.expm1(-E.abs(d) / self.scale)

    def icdf(self, value):
        t = _as_tensor(value, self.loc) - 0.5
        return self.loc - self.scale * E.sign(t) * E.log1p(-2 * E.abs(t))


def _mahalanobis(scale_tril, diff):
    """||L^-1 d||^2 per vector: d^T (L L^T)^-1 d, by a triangular solve."""
    shape = numpy.broadcast_shapes(tuple(scale_tril.shape[:-2]), tuple(diff.shape[:-1]))
    L = scale_tril.expand(*shape, *scale_tril.shape[-2:])
    solved = linalg.solve_triangular(L, diff.expand(*shape, diff.shape[-1]).unsqueeze(-1), upper=False)
    return (solved.squeeze(-1) ** 2).sum(-1)


class MultivariateNormal(_CentredAtLoc):
    """N(loc, Sigma) over vectors (the last dim), given ``covariance_matrix`` Sigma, ``precision_matrix`` Sigma^-1
    or ``scale_tril`` L (Sigma = L L^T, kept as L): log p(x) = -(d log 2pi + ||L^-1 (x - loc)||^2) / 2 -
    sum log diag L; a draw is loc + L eps, eps ~ N(0, I)."""

    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}

    _shared_by_batch = ("_unbroadcasted_scale_tril",)

    support = constraints.real_vector

    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        loc = _as_tensor(loc)
        if loc.ndim < 1:
            raise ValueError("loc must be at least one-dimensional.")
        matrix = _as_tensor(given[0], loc)
        what = ("covariance_matrix" if covariance_matrix is not None else "precision_matrix"
                if precision_matrix is not None else "scale_tril")
        if matrix.ndim < 2:
            raise ValueError(f"{what} must be at least two-dimensional, with optional leading batch dimensions")
        if _validating(validate_args):
            _check("loc", loc, ~E.isnan(loc.detach()), "IndependentConstraint(Real(), 1)", self)
            constraint = constraints.lower_cholesky if scale_tril is not None else constraints.positive_definite
            _check(what, matrix, constraint.check(matrix.detach()), repr(constraint), self)
        batch = numpy.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1]))
        d = loc.shape[-1]
        self.loc = loc.expand(*batch, d)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = matrix
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = linalg.cholesky(matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(matrix)
        self._given = (what, matrix)
        super().__init__(batch, (d,), validate_args=validate_args)

    def _params(self):
        return {"loc": self.loc, self._given[0]: self._given[1]}

    @property
    def scale_tril(self):
        L = self._unbroadcasted_scale_tril
        return L.expand(*self.batch_shape, *L.shape[-2:])

    @property
    def covariance_matrix(self):
        """Sigma: as given, else L L^T."""
        L = self._unbroadcasted_scale_tril
        given = self._given[1] if self._given[0] == "covariance_matrix" else L @ L.mT
        return given.expand(*self.batch_shape, *L.shape[-2:])

    @property
    def precision_matrix(self):
        """Sigma^-1: as given, else solved from L (L^-T L^-1, no inverse of L L^T)."""
        L = self._unbroadcasted_scale_tril
        identity = eye(L.shape[-1], dtype=L.dtype, device=L.device)
        given = self._given[1] if self._given[0] == "precision_matrix" else cholesky_solve(identity, L)
        return given.expand(*self.batch_shape, *L.shape[-2:])

    @property
    def variance(self):
        return (self._unbroadcasted_scale_tril ** 2).sum(-1).expand(*self.batch_shape, *self.event_shape)

    def rsample(self, sample_shape=()):
        eps = randn(self._shape(sample_shape), dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def _half_log_det(self):
        return E.log(self._unbroadcasted_scale_tril.diagonal(0, -2, -1)).sum(-1)

    def log_prob(self, value):
        value = _as_tensor(value, self.loc)
        self._check_value(value, ~E.isnan(value.detach()), "IndependentConstraint(Real(), 1)")
        d = self.event_shape[0]
        m = _mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        return -0.5 * (d * math.log(2 * math.pi) + m) - self._half_log_det()

    def entropy(self):
        d = self.event_shape[0]
        return (0.5 * d * (1.0 + math.log(2 * math.pi)) + self._half_log_det()).expand(*self.batch_shape)


class LogisticNormal(TransformedDistribution):
    """A point of the K-simplex made from a Gaussian x in R^(K-1) (``loc``, ``scale``) by the stick-breaking map
    (``StickBreakingTransform``): log p(y) = log N(x) - log |det J| at x = f^-1(y). A topic model's prior."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}

    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base = Normal(loc, scale, validate_args=validate_args)
        if not base.batch_shape:   # (one number is a 1-vector: a point on the 2-simplex)
            base = base.expand((1,))
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)

    @property
    def loc(self):
        return self.base_dist.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.base_dist.scale


# -- KL divergences of the distributions above (the others' are registered in their modules) -------------------

@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    """log(s_q/s_p) + (s_p^2 + (m_p - m_q)^2) / (2 s_q^2) - 1/2."""
    ratio = (p.scale / q.scale) ** 2
    return 0.5 * (ratio + ((p.loc - q.loc) / q.scale) ** 2 - 1 - E.log(ratio))


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    """r - log r - 1 with r = rate_q / rate_p."""
    ratio = q.rate / p.rate
    return ratio - E.log(ratio) - 1


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    """-log(b_p/b_q) + |m_p - m_q| / b_q + (b_p/b_q) e^(-|m_p - m_q| / b_p) - 1."""
    ratio, gap = p.scale / q.scale, E.abs(p.loc - q.loc)
    return -E.log(ratio) + gap / q.scale + ratio * E.exp(-gap / p.scale) - 1


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p, q):
    """(log det S_q - log det S_p + tr(S_q^-1 S_p) + (m_q - m_p)^T S_q^-1 (m_q - m_p) - n) / 2."""
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with different event shapes cannot "
                         "be computed")
    Lp, Lq = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    batch = numpy.broadcast_shapes(tuple(Lp.shape[:-2]), tuple(Lq.shape[:-2]))
    n = p.event_shape[0]
    trace = (linalg.solve_triangular(Lq.expand(*batch, n, n), Lp.expand(*batch, n, n), upper=False) ** 2
             ).sum((-2, -1))   # (tr(Sq^-1 Sp) = ||Lq^-1 Lp||_F^2)
    return q._half_log_det() - p._half_log_det() + 0.5 * (trace + _mahalanobis(Lq, q.loc - p.loc) - n)


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    """The base distributions' KL, summed over the reinterpreted dims."""
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError("kl_divergence(Independent, Independent): the two reinterpret a different "
                                  "number of batch dims")
    return p._sum(kl_divergence(p.base_dist, q.base_dist))


def _as_full(p):
    """A Gaussian over vectors as a MultivariateNormal (a LowRankMultivariateNormal's full covariance)."""
    return MultivariateNormal(p.loc, covariance_matrix=p.covariance_matrix) if isinstance(
        p, LowRankMultivariateNormal) else p


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
@register_kl(LowRankMultivariateNormal, MultivariateNormal)
@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_low_rank(p, q):
    """The Gaussians' KL, through their full covariances (n x n: fine for a lab's n)."""
    return _kl_mvn_mvn(_as_full(p), _as_full(q))
