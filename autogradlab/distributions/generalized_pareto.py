"""``GeneralizedPareto``: the law of the excess over a high threshold (peaks over threshold, the tails of
losses). With z = (x - loc) / scale and concentration c,

    P(X > x) = (1 + c z)^(-1/c)        (c = 0: e^(-z)),

on z >= 0, and z <= -1/c too when c < 0. c = 0 is the Exponential, c = -1 the Uniform on [loc, loc + scale], and
c > 0 with loc = scale / c the Pareto. A draw is the inverse cdf of a uniform draw, so ``rsample`` is
differentiable in all three parameters.
"""
from __future__ import annotations

import math

import numpy

from ..creation import rand
from ..ops import elementwise as E
from ..ops import shape as S
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution, _as_tensor, _check, _validating

__all__ = ["GeneralizedPareto"]



def _finite(term):
    """A series' correction term, 0 where it is not finite: there (z or log(1 - p) infinite, at the ends of the
    support) c is 0 and the leading term alone is the answer; 0 * inf would make it NaN."""
    return E.where(E.isfinite(term), term, 0.0)


class GeneralizedPareto(Distribution):
    """P(X > x) = (1 + c (x - loc) / scale)^(-1/c) for ``loc``, ``scale`` > 0 and ``concentration`` c (any real)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}

    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        like = next((p for p in (loc, scale, concentration) if isinstance(p, Tensor)), None)
        loc, scale, concentration = (_as_tensor(p, like) for p in (loc, scale, concentration))
        self.loc, self.scale, self.concentration = S.broadcast_tensors(loc, scale, concentration)
        if _validating(validate_args):
            _check("loc", self.loc, ~E.isnan(self.loc.detach()), "Real()", self)
            _check("scale", self.scale, self.scale.detach() > 0, "GreaterThan(lower_bound=0.0)", self)
            _check("concentration", self.concentration, ~E.isnan(self.concentration.detach()), "Real()", self)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def _params(self):
        return {"loc": self.loc, "scale": self.scale, "concentration": self.concentration}

    def _split(self, u):
        """(|c u| is small, c with 1 there, c with 0 elsewhere), u = z or log(1 - p). Where c u is small the exact
        formulas' log1p(c u) / c cancels, and their gradient in c with it, so those elements take the series in
        c to its c^2 term instead, exact to rounding while |c u| <= eps^(1/3) of the dtype (PyTorch takes the
        c = 0 limit alone for |c| <= 1e-8, whose gradient in c is 0: a fit started at c = 0 never moves c). The
        exact formulas see a harmless 1 in those places, so nothing is 0/0."""
        c = self.concentration
        near = (c.detach() == 0) | (E.abs(c.detach() * u.detach()) <= float(numpy.finfo(c.dtype).eps) ** (1 / 3))
        return near, E.where(near, 1.0, c), E.where(near, c, 0.0)   # (c = 0 is near also at u = +-inf: 0 inf)

    @property
    def support(self):
        c = self.concentration
        upper = E.where(c < 0, self.loc - self.scale / E.where(c < 0, c, -1.0), math.inf)
        return constraints.interval(self.loc, upper)

    def _z(self, value):
        value = _as_tensor(value, self.loc)
        if self._validate:
            self._check_value(value, self.support.check(value.detach()), repr(self.support))
        return (value - self.loc) / self.scale

    def log_prob(self, value):
        """-log scale - (1/c + 1) log(1 + c z); for small c z, -log scale - z - c (z - z^2/2) - c^2 (z^3/3 - z^2/2)."""
        z = self._z(value)
        near, c, c0 = self._split(z)
        power, cz = 1 / c + 1, c * z
        far_end = (power == 0) & (cz <= -1)   # (c = -1, the Uniform, at its upper end: 0 log 0 is 0)
        exact = power * E.log1p(E.where(far_end, 0.0, cz))
        series = z + c0 * _finite(z - z * z / 2) + c0 * c0 * _finite(z * z * z / 3 - z * z / 2)
        return -E.log(self.scale) - E.where(near, series, exact)

    def log_survival_function(self, value):
        """log P(X > x) = -log(1 + c z) / c; for small c z, -z + c z^2 / 2 - c^2 z^3 / 3."""
        z = self._z(value)
        near, c, c0 = self._split(z)
        return E.where(near, -z + c0 * _finite(z * z / 2) - c0 * c0 * _finite(z * z * z / 3), -E.log1p(c * z) / c)

    def log_cdf(self, value):
        return E.log1p(-E.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return E.exp(self.log_cdf(value))

    def icdf(self, value):
        """loc + scale ((1 - u)^(-c) - 1) / c; for small c L, loc + scale (-L + c L^2 / 2 - c^2 L^3 / 6) with
        L = log(1 - u)."""
        L = E.log1p(-_as_tensor(value, self.loc))
        near, c, c0 = self._split(L)
        series = -L + c0 * _finite(L * L / 2) - c0 * c0 * _finite(L * L * L / 6)
        return self.loc + self.scale * E.where(near, series, E.expm1(-c * L) / c)

    def rsample(self, sample_shape=()):
        return self.icdf(rand(self._shape(sample_shape), dtype=self.loc.dtype, device=self.loc.device))

    @property
    def mean(self):
        """loc + scale / (1 - c) for c < 1; NaN (no finite mean) otherwise."""
        c = self.concentration
        finite = c < 1
        return E.where(finite, self.loc + self.scale / (1 - E.where(finite, c, 0.5)), math.nan)

    @property
    def variance(self):
        """scale^2 / ((1 - c)^2 (1 - 2c)) for c < 1/2; NaN otherwise."""
        c = self.concentration
        finite = c < 0.5
        safe = E.where(finite, c, 0.25)
        return E.where(finite, self.scale ** 2 / ((1 - safe) ** 2 * (1 - 2 * safe)), math.nan)

    @property
    def mode(self):
        return self.loc

    def entropy(self):
        """log scale + c + 1."""
        return E.log(self.scale) + self.concentration + 1
