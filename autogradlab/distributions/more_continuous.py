"""More continuous distributions, each with ``rsample``: the location-scale ``Cauchy`` and ``Gumbel``, the
half-distributions ``HalfNormal`` and ``HalfCauchy`` (|X| for X centred at 0), ``LogNormal`` (e^X for a normal X)
and ``StudentT`` (a normal over the root of a chi-squared: its gradient in ``df`` comes through the Gamma draw's
implicit reparameterisation); and ``VonMises``, the normal distribution of the circle (``sample`` only).
"""
from __future__ import annotations

import math

import numpy

from ..creation import full, rand, randn
from ..ops import elementwise as E
from ..ops import shape as S
from .. import backend
from ..creation import generator
from ..grad_mode import no_grad
from ..ops.special_functions import digamma, erfinv, i0e, i1e, lgamma
from ..tensor import Tensor
from . import constraints
from .distribution import (Distribution, _as_tensor, _CentredAtLoc, _check, _LocationScale, _two, _validating)
from .gamma_family import Chi2

__all__ = ["Cauchy", "Gumbel", "HalfNormal", "HalfCauchy", "LogNormal", "StudentT", "VonMises"]

_EULER_GAMMA = 0.5772156649015329
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _open_unit(shape, like):
    """Uniform draws in (0, 1), neither end (so that log u and log(-log u) stay finite)."""
    info = numpy.finfo(like.dtype)
    u = rand(shape, dtype=like.dtype, device=like.device)
    return E.clamp(u, float(info.tiny), 1.0 - float(info.eps))


def _constant(like, value):
    """A tensor of ``value`` in ``like``'s shape, dtype and device, with no gradient (an undefined moment)."""
    return full(tuple(like.shape), value, dtype=like.dtype, device=like.device)


def _real(dist, value):
    """``value``, checked to be real (not NaN) as PyTorch checks a real support."""
    dist._check_value(value, value.detach() == value.detach(), "Real()")
    return value


def _nonnegative(dist, value):
    dist._check_value(value, value.detach() >= 0, "GreaterThanEq(lower_bound=0.0)")


class Cauchy(_LocationScale):
    """1 / (pi scale (1 + z^2)), z = (x - loc) / scale: log p(x) = -log(pi scale) - log1p(z^2). Its mean and
    variance do not exist (NaN and inf, as PyTorch gives them)."""

    support = constraints.real

    @property
    def mean(self):
        return _constant(self.loc, math.nan)

    @property
    def variance(self):
        return _constant(self.loc, math.inf)

    def rsample(self, sample_shape=()):
        u = _open_unit(self._shape(sample_shape), self.loc)
        return self.loc + self.scale * E.tan(math.pi * (u - 0.5))

    def log_prob(self, value):
        z = (_real(self, _as_tensor(value, self.loc)) - self.loc) / self.scale
        return -math.log(math.pi) - E.log(self.scale) - E.log1p(z * z)

    def entropy(self):
        return math.log(4 * math.pi) + E.log(self.scale)

    def cdf(self, value):
        return E.atan((_as_tensor(value, self.loc) - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return E.tan(math.pi * (_as_tensor(value, self.loc) - 0.5)) * self.scale + self.loc


class Gumbel(_LocationScale):
    """The distribution of a maximum: log p(x) = -log scale - z - e^-z, z = (x - loc) / scale; a draw is
    loc - scale log(-log u)."""

    support = constraints.real

    @property
    def mean(self):
        return self.loc + self.scale * _EULER_GAMMA

    @property
    def variance(self):
        return (math.pi ** 2 / 6) * self.scale ** 2

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    def rsample(self, sample_shape=()):
        u = _open_unit(self._shape(sample_shape), self.loc)
        return self.loc - self.scale * E.log(-E.log(u))

    def log_prob(self, value):
        z = (_real(self, _as_tensor(value, self.loc)) - self.loc) / self.scale
        return -(E.log(self.scale) + z + E.exp(-z))

    def entropy(self):
        return E.log(self.scale) + (1 + _EULER_GAMMA)

    def cdf(self, value):
        return E.exp(-E.exp(-(_as_tensor(value, self.loc) - self.loc) / self.scale))

    def icdf(self, value):
        return self.loc - self.scale * E.log(-E.log(_as_tensor(value, self.loc)))


class _Half(Distribution):
    """|X| for X centred at 0 with ``scale`` > 0: twice X's density on [0, inf)."""

    arg_constraints = {"scale": constraints.positive}

    support = constraints.nonnegative

    has_rsample = True

    def __init__(self, scale, validate_args=None):
        self.scale = _as_tensor(scale)
        if _validating(validate_args):
            _check("scale", self.scale, self.scale.detach() > 0, "GreaterThan(lower_bound=0.0)", self)
        super().__init__(self.scale.shape, validate_args=validate_args)

    def _params(self):
        return {"scale": self.scale}

    @property
    def mode(self):
        return E.zeros_gradient(self.scale)


class HalfNormal(_Half):
    """|X| for X ~ N(0, scale^2): log p(x) = log 2 - x^2 / (2 scale^2) - log scale - log sqrt(2 pi), x >= 0."""

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self):
        return self.scale ** 2 * (1 - 2 / math.pi)

    def rsample(self, sample_shape=()):
        eps = randn(self._shape(sample_shape), dtype=self.scale.dtype, device=self.scale.device)
        return E.abs(eps * self.scale)

    def log_prob(self, value):
        value = _as_tensor(value, self.scale)
        _nonnegative(self, value)
        z = value / self.scale
        return E.where(value >= 0, math.log(2) - 0.5 * z * z - E.log(self.scale) - _LOG_SQRT_2PI, -math.inf)

    def entropy(self):
        return 0.5 * math.log(math.pi * math.e / 2) + E.log(self.scale)

    def cdf(self, value):
        value = _as_tensor(value, self.scale)
        _nonnegative(self, value)
        return E.erf(value / (self.scale * math.sqrt(2)))

    def icdf(self, value):
        return erfinv(_as_tensor(value, self.scale)) * self.scale * math.sqrt(2)


class HalfCauchy(_Half):
    """|X| for X ~ Cauchy(0, scale): log p(x) = log 2 - log(pi scale) - log1p((x / scale)^2), x >= 0."""

    @property
    def mean(self):
        return _constant(self.scale, math.inf)

    @property
    def variance(self):
        return _constant(self.scale, math.inf)

    def rsample(self, sample_shape=()):
        u = _open_unit(self._shape(sample_shape), self.scale)
        return E.abs(self.scale * E.tan(math.pi * (u - 0.5)))

    def log_prob(self, value):
        value = _as_tensor(value, self.scale)
        _nonnegative(self, value)
        z = value / self.scale
        return E.where(value >= 0, math.log(2 / math.pi) - E.log(self.scale) - E.log1p(z * z), -math.inf)

    def entropy(self):
        return math.log(2 * math.pi) + E.log(self.scale)

    def cdf(self, value):
        value = _as_tensor(value, self.scale)
        _nonnegative(self, value)
        return E.atan(value / self.scale) * (2 / math.pi)

    def icdf(self, value):
        return E.tan(_as_tensor(value, self.scale) * (math.pi / 2)) * self.scale


class LogNormal(_LocationScale):
    """e^X for X ~ N(loc, scale^2): log p(x) = -(log x - loc)^2 / (2 scale^2) - log scale - log sqrt(2 pi) - log x
    for x > 0."""

    support = constraints.positive

    @property
    def mean(self):
        return E.exp(self.loc + self.scale ** 2 / 2)

    @property
    def mode(self):
        return E.exp(self.loc - self.scale ** 2)

    @property
    def variance(self):
        s2 = self.scale ** 2
        return E.expm1(s2) * E.exp(2 * self.loc + s2)

    @property
    def stddev(self):
        return E.sqrt(self.variance)

    def rsample(self, sample_shape=()):
        eps = randn(self._shape(sample_shape), dtype=self.loc.dtype, device=self.loc.device)
        return E.exp(self.loc + eps * self.scale)

    def log_prob(self, value):
        value = _as_tensor(value, self.loc)
        self._check_value(value, value.detach() > 0, "GreaterThan(lower_bound=0.0)")
        log_x = E.log(value)
        z = (log_x - self.loc) / self.scale
        return -0.5 * z * z - E.log(self.scale) - _LOG_SQRT_2PI - log_x

    def entropy(self):
        return 0.5 + _LOG_SQRT_2PI + E.log(self.scale) + self.loc

    def cdf(self, value):
        value = _as_tensor(value, self.loc)   # (0 is taken: log 0 = -inf, the CDF 0, as PyTorch's)
        self._check_value(value, value.detach() >= 0, "GreaterThanEq(lower_bound=0.0)")
        return 0.5 * (1 + E.erf((E.log(value) - self.loc) / (self.scale * math.sqrt(2))))

    def icdf(self, value):
        return E.exp(self.loc + self.scale * erfinv(2 * _as_tensor(value, self.loc) - 1) * math.sqrt(2))


class StudentT(Distribution):
    """Student's t with ``df`` degrees of freedom, shifted by ``loc`` and stretched by ``scale``:
    log p(x) = lgamma((df+1)/2) - lgamma(df/2) - log(scale sqrt(pi df)) - (df+1)/2 log(1 + z^2/df). A draw is
    loc + scale * N / sqrt(Chi2(df) / df)."""

    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}

    support = constraints.real

    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        like = next((v for v in (df, loc, scale) if hasattr(v, "dtype")), None)
        df, loc, scale = (_as_tensor(v, like) for v in (df, loc, scale))
        self.df, self.loc, self.scale = S.broadcast_tensors(df, loc, scale)
        if _validating(validate_args):
            _check("df", self.df, self.df.detach() > 0, "GreaterThan(lower_bound=0.0)", self)
            _check("loc", self.loc, ~E.isnan(self.loc.detach()), "Real()", self)
            _check("scale", self.scale, self.scale.detach() > 0, "GreaterThan(lower_bound=0.0)", self)
        self._chi2 = Chi2(self.df, validate_args=False)
        super().__init__(self.df.shape, validate_args=validate_args)

    def _params(self):
        return {"df": self.df, "loc": self.loc, "scale": self.scale}

    @property
    def mean(self):
        return E.where(self.df > 1, self.loc, float("nan"))

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        df = self.df
        finite = self.scale ** 2 * df / E.where(df > 2, df - 2, 1.0)
        return E.where(df > 2, finite, E.where(df > 1, float("inf"), float("nan")))

    def rsample(self, sample_shape=()):
        shape = self._shape(sample_shape)
        normal = randn(shape, dtype=self.df.dtype, device=self.df.device)
        chi2 = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * normal * E.rsqrt(chi2 / self.df)

    def log_prob(self, value):
        z = (_real(self, _as_tensor(value, self.df)) - self.loc) / self.scale
        df = self.df
        norm = (E.log(self.scale) + 0.5 * E.log(df) + 0.5 * math.log(math.pi) + lgamma(0.5 * df)
                - lgamma(0.5 * (df + 1)))
        return -0.5 * (df + 1) * E.log1p(z * z / df) - norm

    def entropy(self):
        df = self.df
        log_beta = lgamma(0.5 * df) + math.lgamma(0.5) - lgamma(0.5 * (df + 1))
        return (E.log(self.scale) + 0.5 * (df + 1) * (digamma(0.5 * (df + 1)) - digamma(0.5 * df))
                + 0.5 * E.log(df) + log_beta)



class VonMises(_CentredAtLoc):
    """An angle around ``loc`` (radians), as concentrated as ``concentration`` k: p(x) = e^(k cos(x - loc)) /
    (2 pi I0(k)), read modulo 2 pi. log p uses I0's scaled form, k (cos(x - loc) - 1) - log(2 pi i0e(k)), so a
    large k does not overflow. ``mean`` and ``variance`` are the circular ones: loc, and 1 - I1(k)/I0(k).
    Samples by Best and Fisher's (1979) rejection method, in float64, in [-pi, pi)."""

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}

    support = constraints.real

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = _two(loc, concentration)
        if _validating(validate_args):
            _check("loc", self.loc, ~E.isnan(self.loc.detach()), "Real()", self)
            _check("concentration", self.concentration, self.concentration.detach() > 0,
                   "GreaterThan(lower_bound=0.0)", self)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def _params(self):
        return {"loc": self.loc, "concentration": self.concentration}

    @property
    def variance(self):
        return 1 - i1e(self.concentration) / i0e(self.concentration)

    def log_prob(self, value):
        value = _as_tensor(value, self.loc)
        self._check_value(value, ~E.isnan(value.detach()), "Real()")
        k = self.concentration
        return k * (E.cos(value - self.loc) - 1) - math.log(2 * math.pi) - E.log(i0e(k))

    def sample(self, sample_shape=()):
        with no_grad():
            shape = self._shape(sample_shape)
            loc = numpy.broadcast_to(backend.to_host(self.loc.detach()._data), shape).astype(numpy.float64)
            k = numpy.broadcast_to(backend.to_host(self.concentration.detach()._data), shape).astype(numpy.float64)
            angles = _best_fisher(k.reshape(-1)).reshape(shape)
            host = numpy.mod(angles + loc + math.pi, 2 * math.pi) - math.pi
            device = self.loc.device
            return Tensor._make(backend.asarray(host.astype(self.loc.dtype), device), False, None, device)


def _best_fisher(k):
    """Von Mises(0, k) draws, one per entry of ``k`` (Best & Fisher, 1979): a wrapped-Cauchy proposal, accepted by
    one of two tests; the rounds repeat for the entries not yet accepted."""
    rng = generator()
    tau = 1 + numpy.sqrt(1 + 4 * k ** 2)
    rho = (tau - numpy.sqrt(2 * tau)) / (2 * k)
    r = numpy.where(k < 1e-5, 1 / k + k, (1 + rho ** 2) / (2 * rho))   # (its limit for a tiny k)
    out, todo = numpy.zeros_like(k), numpy.arange(k.size)
    while todo.size:
        u1, u2, u3 = rng.random((3, todo.size))
        z = numpy.cos(math.pi * u1)
        f = (1 + r[todo] * z) / (r[todo] + z)
        c = k[todo] * (r[todo] - f)
        with numpy.errstate(divide="ignore", invalid="ignore"):
            accept = (c * (2 - c) - u2 > 0) | (numpy.log(c / u2) + 1 - c >= 0)
        out[todo[accept]] = numpy.sign(u3[accept] - 0.5) * numpy.arccos(numpy.clip(f[accept], -1, 1))
        todo = todo[~accept]
    return out
