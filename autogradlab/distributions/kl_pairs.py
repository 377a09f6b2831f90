"""The KL divergences that the distributions' own modules do not register: the pairs across families (a Beta
against a Normal, an Exponential against a Gumbel, a Uniform against a Pareto...), and the pairs within the
families whose modules leave them out (Binomial, Cauchy, ContinuousBernoulli, Geometric, Gumbel, HalfNormal,
OneHotCategorical, Pareto, Uniform, and two TransformedDistributions through the same transforms). Together
with theirs, these are the pairs PyTorch registers; HalfCauchy, LogNormal and InverseGamma pairs are here too
(PyTorch's are TransformedDistributions, whose pair gives the KL of their bases).

Where q gives probability 0 to a set that p does not, KL(p || q) is +inf: for every element of the batch when
the supports never nest (a Normal against a Gamma), or for the elements where they do not (a Uniform reaching
below 0 against an Exponential), as PyTorch decides it. Those elements get no gradient: the formula is
evaluated at harmless stand-in parameters there, so no NaN comes back to the real ones."""
from __future__ import annotations

import math

from ..creation import full
from ..ops import elementwise as E
from ..ops.special import xlogy
from ..ops.special_functions import digamma, lgamma
from .continuous import Exponential, Laplace, Normal, Uniform
from .discrete import Bernoulli, Binomial, Geometric, OneHotCategorical
from .gamma_family import Beta, Gamma, Poisson
from .kl import kl_divergence, register_kl
from .more_continuous import Cauchy, Gumbel, HalfCauchy, HalfNormal, LogNormal
from .positive import ContinuousBernoulli, InverseGamma, Pareto
from .transformed import TransformedDistribution

__all__ = []

_EULER_GAMMA = 0.5772156649015329
_LOG_2PI = math.log(2 * math.pi)


def _infinite(like):
    """+inf in ``like``'s shape, dtype and device, a constant (no gradient): PyTorch's answer shaped like p's
    parameter."""
    return full(tuple(like.shape), math.inf, dtype=like.dtype, device=like.device)


def _mean_log_uniform(low, high):
    """E[log x] for x ~ U[low, high] with 0 <= low < high: (h log h - l log l) / (h - l) - 1."""
    return (xlogy(high, high) - xlogy(low, low)) / (high - low) - 1


# -- within a family ------------------------------------------------------------------------------------------

@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    """n (p log(p/q) + log(1 - p) - log(1 - q)) for equal n; inf where n_p > n_q (n_p < n_q has no closed form)."""
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + E.log1p(-p.probs) - E.log1p(-q.probs))
    return E.where(p.total_count > q.total_count, math.inf, kl)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    """log(((s_p + s_q)^2 + (m_p - m_q)^2) / (4 s_p s_q))."""
    return E.log((p.scale + q.scale) ** 2 + (p.loc - q.loc) ** 2) - E.log(4 * p.scale * q.scale)


@register_kl(HalfCauchy, HalfCauchy)
def _kl_halfcauchy_halfcauchy(p, q):
    """log((s_p + s_q)^2 / (4 s_p s_q)): the KL of the Cauchy laws they fold (PyTorch's TransformedDistribution)."""
    return E.log((p.scale + q.scale) ** 2) - E.log(4 * p.scale * q.scale)


@register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p, q):
    """The KL of the normal laws of log X (one bijection applied to both leaves the KL as it was)."""
    return kl_divergence(Normal(p.loc, p.scale, validate_args=False), Normal(q.loc, q.scale, validate_args=False))


@register_kl(InverseGamma, InverseGamma)
def _kl_inversegamma_inversegamma(p, q):
    """The KL of the Gamma laws of 1/X."""
    return kl_divergence(Gamma(p.concentration, p.rate, validate_args=False),
                         Gamma(q.concentration, q.rate, validate_args=False))


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    """E_p[x] (logit l_p - logit l_q) + log C(l_p) + log(1 - l_p) - log C(l_q) - log(1 - l_q)."""
    return (p.mean * (p.logits - q.logits) + p._log_norm() + E.log1p(-p.probs) - q._log_norm()
            - E.log1p(-q.probs))


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    """-H(p) - log(1 - p_q) / p_p - logit p_q (E_p[k] = 1/p_p - 1 failures)."""
    return -p.entropy() - E.log1p(-q.probs) / p.probs - q.logits


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    """log(s_q/s_p) + (m_p - m_q)/s_q + euler (s_p/s_q - 1) + exp((m_q - m_p)/s_q + lgamma(1 + s_p/s_q)) - 1."""
    ratio, gap = p.scale / q.scale, (p.loc - q.loc) / q.scale
    return -E.log(ratio) + gap + _EULER_GAMMA * (ratio - 1) + E.exp(lgamma(1 + ratio) - gap) - 1


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    """(r - 1 - log r) / 2 with r = (s_p/s_q)^2: the KL of the two centred Normals."""
    ratio = (p.scale / q.scale) ** 2
    return 0.5 * (ratio - 1 - E.log(ratio))


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    """The KL of the two Categoricals underneath."""
    return kl_divergence(p._categorical, q._categorical)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    """a_q log(s_p/s_q) - log(a_q/a_p) + a_q/a_p - 1; inf where s_p < s_q (p below q's support)."""
    ratio = q.alpha / p.alpha
    kl = q.alpha * E.log(p.scale / q.scale) - E.log(ratio) + ratio - 1
    return E.where(p.scale < q.scale, math.inf, kl)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    """The base distributions' KL, when both go through equal transforms (a bijection leaves the KL as it is)."""
    if p.transforms != q.transforms:
        raise NotImplementedError("kl_divergence(TransformedDistribution, TransformedDistribution): the two "
                                  "transform their bases differently")
    if p.event_shape != q.event_shape:
        raise NotImplementedError("kl_divergence(TransformedDistribution, TransformedDistribution): the two have "
                                  "different event shapes")
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    """log((h_q - l_q) / (h_p - l_p)); inf where q's interval does not contain p's."""
    kl = E.log((q.high - q.low) / (p.high - p.low))
    return E.where((q.low > p.low) | (q.high < p.high), math.inf, kl)


# -- across families: finite -------------------------------------------------------------------------------------

@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    """-H(p) - p log rate + rate (log 0! = log 1! = 0)."""
    return -p.entropy() - p.probs * E.log(q.rate) + q.rate


def _cross_entropy_continuous_bernoulli(p, q):
    """-E_p[log q(x)] for q a ContinuousBernoulli(l) and p on [0, 1]: -E_p[x] logit l - log(1 - l) - log C(l)."""
    return -p.mean * q.logits - E.log1p(-q.probs) - q._log_norm()


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p, q):
    """-H(p) - E_p[x] logit l - log(1 - l) - log C(l)."""
    return -p.entropy() + _cross_entropy_continuous_bernoulli(p, q)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p, q):
    """-log(h - l) - (h + l)/2 logit c - log(1 - c) - log C(c); inf where l <= 0 or h >= 1 (PyTorch's test)."""
    kl = -p.entropy() + _cross_entropy_continuous_bernoulli(p, q)
    return E.where((p.high >= 1) | (p.low <= 0), math.inf, kl)


@register_kl(Beta, Exponential)
@register_kl(ContinuousBernoulli, Exponential)
@register_kl(Gamma, Exponential)
def _kl_positive_exponential(p, q):
    """-H(p) - log rate + rate E_p[x]."""
    return -p.entropy() - E.log(q.rate) + q.rate * p.mean


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    """-H(p) + lgamma(k) - k log r - (k - 1)(digamma(a) - digamma(a + b)) + r a/(a + b)."""
    a, b, k = p.concentration1, p.concentration0, q.concentration
    return (-p.entropy() + lgamma(k) - k * E.log(q.rate) - (k - 1) * (digamma(a) - digamma(a + b))
            + q.rate * p.mean)


@register_kl(Beta, Normal)
@register_kl(ContinuousBernoulli, Normal)
def _kl_unit_interval_normal(p, q):
    """-H(p) + log(s sqrt(2 pi)) + (Var_p + (E_p[x] - m)^2) / (2 s^2)."""
    return (-p.entropy() + 0.5 * _LOG_2PI + E.log(q.scale)
            + (p.variance + (p.mean - q.loc) ** 2) / (2 * q.scale ** 2))


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    """-H(p) + log(h - l); inf where [l, h] does not cover [0, 1]."""
    kl = -p.entropy() + E.log(q.high - q.low)
    return E.where((q.low > 0) | (q.high < 1), math.inf, kl)


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p, q):
    """-H(p) + log(h - l); inf where l >= 0 or h <= 1 (PyTorch's test: an interval ending at 0 or 1 too)."""
    kl = -p.entropy() + E.log(q.high - q.low)
    return E.where((q.low >= 0) | (q.high <= 1), math.inf, kl)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    """-k log(r/rate) + r/rate + lgamma(k) + euler (k - 1) - 1 (E_p[log x] = -euler - log rate)."""
    ratio, k = q.rate / p.rate, q.concentration
    return -k * E.log(ratio) + ratio + lgamma(k) + _EULER_GAMMA * (k - 1) - 1


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    """log(rate s) - 1 + 1/(rate s) - m/s + e^(m/s) rate s / (rate s + 1)."""
    prod, shift = p.rate * q.scale, q.loc / q.scale
    return E.log(prod) - 1 + 1 / prod - shift + E.exp(shift) * prod / (prod + 1)


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    """log(rate s sqrt(2 pi)) - 1 + (2/rate^2 - 2 m/rate + m^2) / (2 s^2)."""
    return (E.log(p.rate * q.scale) + 0.5 * _LOG_2PI - 1
            + (2 / p.rate ** 2 - 2 * q.loc / p.rate + q.loc ** 2) / (2 * q.scale ** 2))


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p, q):
    """-H(p) + log s + (a/r - m)/s + e^(m/s) (1 + 1/(r s))^(-a) (E_p[e^(-x/s)] = (1 + 1/(r s))^(-a))."""
    a, prod, shift = p.concentration, p.rate * q.scale, q.loc / q.scale
    return -p.entropy() + E.log(q.scale) + a / prod - shift + E.exp(shift - a * E.log1p(1 / prod))


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p, q):
    """-H(p) + log(s sqrt(2 pi)) + ((a^2 + a)/r^2 - 2 m a/r + m^2) / (2 s^2)."""
    a, r = p.concentration, p.rate
    return (-p.entropy() + E.log(q.scale) + 0.5 * _LOG_2PI
            + ((a * a + a) / r ** 2 - 2 * q.loc * a / r + q.loc ** 2) / (2 * q.scale ** 2))


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p, q):
    """log(s_q sqrt(2 pi)/s_p) + (pi s_p/s_q)^2/12 + (m_p + euler s_p - m_q)^2/(2 s_q^2) - euler - 1."""
    ratio = p.scale / q.scale
    centre = (p.loc + _EULER_GAMMA * p.scale - q.loc) / q.scale
    return -E.log(ratio) + 0.5 * _LOG_2PI + (math.pi * ratio) ** 2 / 12 + 0.5 * centre ** 2 - _EULER_GAMMA - 1


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    """log(s sqrt(2 pi)/(2 b)) - 1 + (2 b^2 + (m_p - m_q)^2) / (2 s^2)."""
    return (E.log(q.scale / p.scale) + 0.5 * _LOG_2PI - math.log(2) - 1
            + (2 * p.scale ** 2 + (p.loc - q.loc) ** 2) / (2 * q.scale ** 2))


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    """log(s_q/s_p) - 1/2 log(2 pi e) + (m_p - m_q)/s_q + exp((m_q - m_p)/s_q + s_p^2/(2 s_q^2))."""
    gap = (p.loc - q.loc) / q.scale
    return (E.log(q.scale / p.scale) - 0.5 * (1 + _LOG_2PI) + gap
            + E.exp(0.5 * (p.scale / q.scale) ** 2 - gap))


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    """log(b/s) - 1/2 log(pi e/2) + (s sqrt(2/pi) e^(-d^2/(2 s^2)) + d erf(d/(s sqrt 2))) / b, d = m_p - m_q."""
    d = p.loc - q.loc
    mean_abs = (math.sqrt(2 / math.pi) * p.scale * E.exp(-0.5 * (d / p.scale) ** 2)
                + d * E.erf(d / (p.scale * math.sqrt(2))))   # (E_p|x - m_q|)
    return E.log(q.scale / p.scale) - 0.5 * (1 + math.log(math.pi / 2)) + mean_abs / q.scale


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p, q):
    """log(a/(s rate)) - 1/a - 1 + rate a s/(a - 1); inf where a <= 1 (p has no mean)."""
    bad = p.alpha <= 1
    a = E.where(bad, 2.0, p.alpha)
    kl = E.log(a / (p.scale * q.rate)) - 1 / a - 1 + q.rate * a * p.scale / (a - 1)
    return E.where(bad, math.inf, kl)


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p, q):
    """log a - k (log s + 1/a) + lgamma(k) - k log r + r a s/(a - 1) - 1; inf where a <= 1."""
    bad = p.alpha <= 1
    a, k = E.where(bad, 2.0, p.alpha), q.concentration
    mean_log = E.log(p.scale) + 1 / a   # (E_p[log x])
    kl = E.log(a) - k * mean_log + lgamma(k) - k * E.log(q.rate) + q.rate * a * p.scale / (a - 1) - 1
    return E.where(bad, math.inf, kl)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p, q):
    """log(sd sqrt(2 pi) a/s) - 1/a - 1 + (Var_p + (E_p[x] - m)^2) / (2 sd^2); inf where a <= 2 (no variance)."""
    bad = p.alpha <= 2
    a = E.where(bad, 3.0, p.alpha)
    mean = a * p.scale / (a - 1)
    variance = a * (p.scale / (a - 1)) ** 2 / (a - 2)
    kl = (E.log(q.scale * a / p.scale) + 0.5 * _LOG_2PI - 1 / a - 1
          + (variance + (mean - q.loc) ** 2) / (2 * q.scale ** 2))
    return E.where(bad, math.inf, kl)


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    """-log(h - l) - (a - 1) E_p[log x] - (b - 1) E_p[log(1 - x)] + log B(a, b); inf outside [0, 1]."""
    bad = (p.high > 1) | (p.low < 0)
    low, high = E.where(bad, 0.25, p.low), E.where(bad, 0.75, p.high)
    a, b = q.concentration1, q.concentration0
    kl = (-E.log(high - low) - (a - 1) * _mean_log_uniform(low, high) - (b - 1) * _mean_log_uniform(1 - high, 1 - low)
          + lgamma(a) + lgamma(b) - lgamma(a + b))
    return E.where(bad, math.inf, kl)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    """rate (h + l)/2 - log((h - l) rate); inf where l < 0."""
    kl = q.rate * (p.high + p.low) / 2 - E.log((p.high - p.low) * q.rate)
    return E.where(p.low < 0, math.inf, kl)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    """-log(h - l) + lgamma(k) - k log r - (k - 1) E_p[log x] + r (h + l)/2; inf where l < 0."""
    bad = p.low < 0
    low, high = E.where(bad, 1.0, p.low), E.where(bad, 2.0, p.high)
    k = q.concentration
    kl = (-E.log(high - low) + lgamma(k) - k * E.log(q.rate) - (k - 1) * _mean_log_uniform(low, high)
          + q.rate * (high + low) / 2)
    return E.where(bad, math.inf, kl)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    """log(s/(h - l)) + (z_h + z_l)/2 + s (e^(-z_l) - e^(-z_h))/(h - l), z = (x - m)/s."""
    width = q.scale / (p.high - p.low)
    z_high, z_low = (p.high - q.loc) / q.scale, (p.low - q.loc) / q.scale
    return E.log(width) + 0.5 * (z_high + z_low) + width * (E.exp(-z_low) - E.exp(-z_high))


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    """log(s sqrt(2 pi)/(h - l)) + ((h - l)^2/12 + ((h + l)/2 - m)^2) / (2 s^2)."""
    width = p.high - p.low
    return (E.log(q.scale / width) + 0.5 * _LOG_2PI
            + (width ** 2 / 12 + ((p.high + p.low) / 2 - q.loc) ** 2) / (2 * q.scale ** 2))


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    """-log(h - l) - log a - a log s + (a + 1) E_p[log x]; inf where l < s (p below q's support)."""
    bad = p.low < q.scale
    low, high = E.where(bad, 1.0, p.low), E.where(bad, 2.0, p.high)
    a = q.alpha
    kl = -E.log(high - low) - E.log(a) - a * E.log(q.scale) + (a + 1) * _mean_log_uniform(low, high)
    return E.where(bad, math.inf, kl)


# -- across families: supports that never nest (+inf everywhere) ---------------------------------------------------

@register_kl(Normal, Beta)
@register_kl(Normal, ContinuousBernoulli)
@register_kl(Normal, Exponential)
@register_kl(Normal, Gamma)
@register_kl(Normal, Pareto)
@register_kl(Normal, Uniform)
@register_kl(Laplace, Beta)
@register_kl(Laplace, ContinuousBernoulli)
@register_kl(Laplace, Exponential)
@register_kl(Laplace, Gamma)
@register_kl(Laplace, Pareto)
@register_kl(Laplace, Uniform)
@register_kl(Gumbel, Beta)
@register_kl(Gumbel, ContinuousBernoulli)
@register_kl(Gumbel, Exponential)
@register_kl(Gumbel, Gamma)
@register_kl(Gumbel, Pareto)
@register_kl(Gumbel, Uniform)
def _kl_real_line_infinity(p, q):
    """+inf: p has mass on all of the real line, q only on a half-line or an interval."""
    return _infinite(p.loc)


@register_kl(Exponential, Beta)
@register_kl(Exponential, ContinuousBernoulli)
@register_kl(Exponential, Pareto)
@register_kl(Exponential, Uniform)
def _kl_exponential_infinity(p, q):
    """+inf: p has mass on all of [0, inf), q only on an interval or above its scale."""
    return _infinite(p.rate)


@register_kl(Gamma, Beta)
@register_kl(Gamma, ContinuousBernoulli)
@register_kl(Gamma, Pareto)
@register_kl(Gamma, Uniform)
def _kl_gamma_infinity(p, q):
    """+inf: p has mass on all of [0, inf), q only on an interval or above its scale."""
    return _infinite(p.concentration)


@register_kl(Pareto, Beta)
@register_kl(Pareto, ContinuousBernoulli)
@register_kl(Pareto, Uniform)
def _kl_pareto_infinity(p, q):
    """+inf: p has mass on all of [scale, inf), q only on a bounded interval."""
    return _infinite(p.scale)


@register_kl(Beta, Pareto)
def _kl_beta_infinity(p, q):
    """+inf: p has mass near 0, where a Pareto (scale > 0) has none."""
    return _infinite(p.concentration1)


@register_kl(ContinuousBernoulli, Pareto)
def _kl_continuous_bernoulli_infinity(p, q):
    """+inf: p has mass near 0, where a Pareto (scale > 0) has none."""
    return _infinite(p.probs)


@register_kl(Poisson, Bernoulli)
@register_kl(Poisson, Binomial)
def _kl_poisson_infinity(p, q):
    """+inf: p gives every count a chance, q none above its number of trials."""
    return _infinite(p.rate)
