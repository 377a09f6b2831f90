"""``ExponentialFamily``: the distributions whose density is

    p(x) = exp(<t(x), theta> - A(theta) + k(x)),

theta the natural parameters, t(x) the sufficient statistics, A the log-normalizer and k the carrier measure
(Normal, Exponential, Bernoulli, Gamma, Beta, Dirichlet, Poisson, ContinuousBernoulli, Wishart). The mean of
t(x) is the gradient of A, so the engine itself gives their entropies and KL divergences (Bregman divergences of
A; Nielsen and Nock):

    H(p) = A(theta) - <theta, grad A(theta)> - E[k(x)]
    KL(p || q) = A(theta_q) - A(theta_p) - <theta_q - theta_p, grad A(theta_p)>
"""
from __future__ import annotations

import numpy

from ..engine import grad
from .distribution import Distribution
from .kl import register_kl

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """A distribution of an exponential family: each gives ``_natural_params`` (a tuple of tensors), its
    ``_log_normalizer(*natural_params)`` and ``_mean_carrier_measure`` E[k(x)]."""

    @property
    def _natural_params(self):
        raise NotImplementedError(f"{type(self).__name__} does not give its natural parameters")

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError(f"{type(self).__name__} does not give its log-normalizer")

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError(f"{type(self).__name__} does not give its mean carrier measure")

    def _normalizer_and_gradients(self):
        """A(theta) and grad A(theta), both differentiable in the parameters theta is made of (PyTorch detaches
        theta here, so no gradient reaches the parameters of p in the KL below); a theta that needs no gradient
        becomes a fresh leaf, to be differentiated at."""
        thetas = [theta if theta.requires_grad else theta.detach().requires_grad_()
                  for theta in self._natural_params]
        log_normalizer = self._log_normalizer(*thetas)
        return thetas, log_normalizer, grad(log_normalizer.sum(), thetas, create_graph=True)

    def entropy(self):
        """A(theta) - <theta, grad A(theta)> - E[k(x)], the gradient from the engine."""
        thetas, log_normalizer, gradients = self._normalizer_and_gradients()
        result = log_normalizer - self._mean_carrier_measure
        for theta, g in zip(thetas, gradients):
            result = result - (theta * g).reshape(*self.batch_shape, -1).sum(-1)
        return result


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """A(theta_q) - A(theta_p) - <theta_q - theta_p, grad A(theta_p)>, for two of one family."""
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential families cannot be "
                                  "computed using Bregman divergences: register a closed form with register_kl")
    thetas, log_normalizer, gradients = p._normalizer_and_gradients()
    result = q._log_normalizer(*q._natural_params) - log_normalizer
    batch = len(numpy.broadcast_shapes(p.batch_shape, q.batch_shape))
    for theta_p, theta_q, g in zip(thetas, q._natural_params, gradients):
        term = (theta_q - theta_p) * g   # (summed over each parameter's own event dims: Wishart's df has none,
        result = result - term.reshape(*term.shape[:batch], -1).sum(-1)   # PyTorch sums its batch dims too)
    return result
