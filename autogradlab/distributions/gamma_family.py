"""The distributions built on the gamma function, for Bayesian and count-data labs: ``Gamma``, ``Chi2``,
``Beta``, ``Dirichlet`` and ``Poisson``.

Gamma, Beta and Dirichlet have ``rsample``: a Gamma(a, 1) draw x is differentiable in its shape a by *implicit
reparameterisation*, dx/da = -(dF/da) / (dF/dx) with F the CDF held fixed (``ops.special_functions``); a
Dirichlet draw is a vector of Gamma draws divided by its sum, a Beta draw the first of a two-entry Dirichlet's.
The per-draw gradient of a Dirichlet or Beta sample therefore differs from PyTorch's (which differentiates the
Dirichlet's own CDF), while its expectation, the gradient of E[f(x)], is the same.
"""
from __future__ import annotations

import numpy

from .. import backend
from ..creation import generator
from ..ops import elementwise as E
from ..ops import shape as S
from ..ops.special import xlogy
from ..ops.special_functions import digamma, gammainc, lgamma, standard_gamma_draw
from ..sampling import poisson
from ..tensor import Tensor
from . import constraints
from .exponential_family import ExponentialFamily
from .distribution import _as_tensor, _check, _two, _validating
from .kl import kl_divergence, register_kl

__all__ = ["Gamma", "Chi2", "Beta", "Dirichlet", "Poisson"]


def _gamma_draws(concentration, shape):
    """Gamma(concentration, 1) draws of ``shape`` from the library's generator (NumPy's, on the host), at least
    the dtype's smallest normal number, as PyTorch clamps them; a constant of concentration's dtype and device."""
    alpha = backend.to_host(concentration.detach()._data).astype(numpy.float64)
    draws = generator().standard_gamma(numpy.broadcast_to(alpha, shape))
    tiny = numpy.finfo(concentration.dtype).tiny
    host = numpy.maximum(draws, tiny).astype(concentration.dtype)
    return Tensor._make(backend.asarray(host, concentration.device), False, None, concentration.device)


def _positive(name, value, owner):
    _check(name, value, value.detach() > 0, "GreaterThan(lower_bound=0.0)", owner)


class Gamma(ExponentialFamily):
    """rate^c x^(c-1) e^(-rate x) / Gamma(c) for x >= 0: log p(x) = c log rate + (c - 1) log x - rate x - lgamma(c),
    with shape ``concentration`` c > 0 and ``rate`` > 0 (mean c / rate)."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}

    support = constraints.nonnegative

    has_rsample = True

    _mean_carrier_measure = 0

    @property
    def _natural_params(self):
        """(c - 1, -rate)."""
        return self.concentration - 1, -self.rate

    def _log_normalizer(self, x, y):
        """A = lgamma(x + 1) + (x + 1) log(-1/y)."""
        return lgamma(x + 1) + (x + 1) * E.log(-1 / y)

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = _two(concentration, rate)
        if _validating(validate_args):
            _positive("concentration", self.concentration, self)
            _positive("rate", self.rate, self)
        super().__init__(self.concentration.shape, validate_args=validate_args)

    def _params(self):
        return {"concentration": self.concentration, "rate": self.rate}

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return E.clamp((self.concentration - 1) / self.rate, min=0)

    @property
    def variance(self):
        return self.concentration / self.rate ** 2

    def rsample(self, sample_shape=()):
        shape = self._shape(sample_shape)
        alpha = S.expand(self.concentration, shape)
        return standard_gamma_draw(alpha, _gamma_draws(alpha, shape)) / S.expand(self.rate, shape)

    def log_prob(self, value):
        value = _as_tensor(value, self.rate)
        self._check_value(value, value.detach() >= 0, "GreaterThanEq(lower_bound=0.0)")
        c, rate = self.concentration, self.rate
        return xlogy(c, rate) + xlogy(c - 1, value) - rate * value - lgamma(c)

    def entropy(self):
        c = self.concentration
        return c - E.log(self.rate) + lgamma(c) + (1.0 - c) * digamma(c)

    def cdf(self, value):
        """P(concentration, rate * value), the regularised incomplete gamma function (differentiable in the
        rate and the value; not in the concentration, as in PyTorch)."""
        value = _as_tensor(value, self.rate)
        self._check_value(value, value.detach() >= 0, "GreaterThanEq(lower_bound=0.0)")
        return gammainc(self.concentration, self.rate * value)


class Chi2(Gamma):
    """The chi-squared distribution with ``df`` degrees of freedom: Gamma(df / 2, 1 / 2)."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args=None):
        df = _as_tensor(df)
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def _params(self):
        return {"df": self.df}

    @property
    def df(self):
        return self.concentration * 2


class Dirichlet(ExponentialFamily):
    """On the simplex (x_i >= 0, sum x_i = 1): log p(x) = sum (c_i - 1) log x_i + lgamma(sum c) - sum lgamma(c_i),
    for a vector ``concentration`` c > 0 (its last dim is the event)."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}

    support = constraints.simplex

    has_rsample = True

    @property
    def _natural_params(self):
        """(c,)."""
        return (self.concentration,)

    def _log_normalizer(self, x):
        """A = sum lgamma(x_i) - lgamma(sum x_i)."""
        return lgamma(x).sum(-1) - lgamma(x.sum(-1))

    def __init__(self, concentration, validate_args=None):
        if not isinstance(concentration, Tensor) or concentration.ndim < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        if _validating(validate_args):
            _check("concentration", concentration, concentration.detach() > 0, "IndependentConstraint("
                   "GreaterThan(lower_bound=0.0), 1)", self)
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args)

    def _params(self):
        return {"concentration": self.concentration}

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self):
        c = self.concentration
        inner = E.clamp(c - 1, min=0)
        with numpy.errstate(invalid="ignore"):   # (0/0 where every c_i < 1: replaced below)
            mode = inner / inner.sum(-1, keepdim=True)
        below = (c < 1).all(-1)   # (every c_i < 1: the density peaks at every corner; PyTorch's pick is the first)
        if bool(below.any()):
            corner = c.detach() * 0
            corner[..., 0] = 1
            mode = E.where(below.unsqueeze(-1), corner, mode)
        return mode

    @property
    def variance(self):
        c = self.concentration
        total = c.sum(-1, keepdim=True)
        return c * (total - c) / (total ** 2 * (total + 1))

    def rsample(self, sample_shape=()):
        shape = self._shape(sample_shape)
        alpha = S.expand(self.concentration, shape)
        draws = standard_gamma_draw(alpha, _gamma_draws(alpha, shape))
        x = draws / draws.sum(-1, keepdim=True)
        # as PyTorch, each share within [tiny, the largest number below 1]: with small concentrations one draw
        # can swamp the rest, and a share of exactly 1 (or 0) has log_prob inf; the gradient passes unclamped
        info = numpy.finfo(x.dtype)
        kept = E.clamp(x.detach(), min=float(info.tiny), max=float(numpy.nextafter(x.dtype.type(1), 0)))
        return x + (kept - x.detach())

    def _on_simplex(self, value):
        inside = (value.detach() >= 0).all(-1)
        return inside & (E.abs(value.detach().sum(-1) - 1) < 1e-6)

    def log_prob(self, value):
        value = _as_tensor(value, self.concentration)
        self._check_value(value, self._on_simplex(value), "Simplex()")
        c = self.concentration
        return xlogy(c - 1.0, value).sum(-1) + lgamma(c.sum(-1)) - lgamma(c).sum(-1)

    def entropy(self):
        c = self.concentration
        k, total = c.shape[-1], c.sum(-1)
        return (lgamma(c).sum(-1) - lgamma(total) - (k - total) * digamma(total)
                - ((c - 1.0) * digamma(c)).sum(-1))


class Beta(ExponentialFamily):
    """x^(a-1) (1-x)^(b-1) / B(a, b) on [0, 1], with ``concentration1`` a > 0 and ``concentration0`` b > 0: the
    first entry of a Dirichlet([a, b])."""

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}

    support = constraints.unit_interval

    has_rsample = True

    @property
    def _natural_params(self):
        """(a, b)."""
        return self.concentration1, self.concentration0

    def _log_normalizer(self, x, y):
        """A = lgamma(x) + lgamma(y) - lgamma(x + y)."""
        return lgamma(x) + lgamma(y) - lgamma(x + y)

    def __init__(self, concentration1, concentration0, validate_args=None):
        a, b = _two(concentration1, concentration0)
        self._dirichlet = Dirichlet(S.stack([a, b], -1), validate_args=validate_args)
        super().__init__(a.shape, validate_args=validate_args)

    def _params(self):
        return {"concentration1": self.concentration1, "concentration0": self.concentration0}

    @property
    def concentration1(self):
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self):
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total ** 2 * (total + 1))

    def rsample(self, sample_shape=()):
        return self._dirichlet.rsample(sample_shape)[..., 0]

    def log_prob(self, value):
        value = _as_tensor(value, self.concentration1)
        self._check_value(value, (value.detach() >= 0) & (value.detach() <= 1),
                          "Interval(lower_bound=0.0, upper_bound=1.0)")
        return self._dirichlet.log_prob(S.stack([value, 1.0 - value], -1))

    def entropy(self):
        return self._dirichlet.entropy()


class Poisson(ExponentialFamily):
    """rate^k e^(-rate) / k! for k = 0, 1, 2, ...: log p(k) = k log rate - rate - lgamma(k + 1)."""

    arg_constraints = {"rate": constraints.nonnegative}

    support = constraints.nonnegative_integer

    @property
    def _natural_params(self):
        """(log rate,)."""
        return (E.log(self.rate),)

    def _log_normalizer(self, x):
        """A = e^x."""
        return E.exp(x)

    def __init__(self, rate, validate_args=None):
        self.rate = _as_tensor(rate)
        if _validating(validate_args):
            _check("rate", self.rate, self.rate.detach() >= 0, "GreaterThanEq(lower_bound=0.0)", self)
        super().__init__(self.rate.shape, validate_args=validate_args)

    def _params(self):
        return {"rate": self.rate}

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return E.floor(self.rate.detach())

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=()):
        return poisson(S.expand(self.rate.detach(), self._shape(sample_shape)))

    def log_prob(self, value):
        value = _as_tensor(value, self.rate)
        whole = (value.detach() >= 0) & (E.floor(value.detach()) == value.detach()) & E.isfinite(value.detach())
        self._check_value(value, whole, "IntegerGreaterThan(lower_bound=0)")
        return xlogy(value, self.rate) - self.rate - lgamma(value + 1)


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    """a_q log(b_p/b_q) + lgamma(a_q) - lgamma(a_p) + (a_p - a_q) digamma(a_p) + (b_q - b_p) a_p/b_p (Chi2 too)."""
    return (q.concentration * E.log(p.rate / q.rate) + lgamma(q.concentration) - lgamma(p.concentration)
            + (p.concentration - q.concentration) * digamma(p.concentration)
            + (q.rate - p.rate) * (p.concentration / p.rate))


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    """The KL of the two-component Dirichlets."""
    return kl_divergence(p._dirichlet, q._dirichlet)


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    """lgamma(sum a_p) - lgamma(sum a_q) - sum (lgamma(a_p) - lgamma(a_q)) + sum (a_p - a_q)(digamma(a_p) -
    digamma(sum a_p))."""
    cp, cq = p.concentration, q.concentration
    total_p = cp.sum(-1)
    return (lgamma(total_p) - lgamma(cq.sum(-1)) - (lgamma(cp) - lgamma(cq)).sum(-1)
            + ((cp - cq) * (digamma(cp) - digamma(total_p).unsqueeze(-1))).sum(-1))


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    """r_p (log r_p - log r_q) - (r_p - r_q)."""
    return p.rate * (E.log(p.rate) - E.log(q.rate)) - (p.rate - q.rate)
