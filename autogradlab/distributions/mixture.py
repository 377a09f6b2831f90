"""``MixtureSameFamily``: a mixture of K components of one family, as in a Gaussian mixture model. With mixture
weights pi_k (a ``Categorical``) and component densities p_k,

    log p(x) = logsumexp_k (log pi_k + log p_k(x)),

so the gradient reaches both the weights and the components' parameters (fitting a GMM by gradient descent).
A draw picks a component from the ``Categorical``, then draws from it (no ``rsample``: the pick is discrete).
"""
from __future__ import annotations

from ..grad_mode import no_grad
from ..ops import reduce as R
from .discrete import Categorical
from .distribution import Distribution

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """``mixture_distribution`` (a Categorical over K) picks one of ``component_distribution``'s last K batch
    elements: its batch shape is the components' without that last dim, its events theirs."""

    arg_constraints = {}

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of Categorical (its weights)")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of Distribution")
        mixture_batch, component_batch = mixture_distribution.batch_shape, component_distribution.batch_shape[:-1]
        for a, b in zip(reversed(mixture_batch), reversed(component_batch)):
            if a != 1 and b != 1 and a != b:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mixture_batch}) is not compatible with "
                                 f"`component_distribution.batch_shape`({component_batch})")
        k_mixture, k_components = mixture_distribution.param_shape[-1], component_distribution.batch_shape[-1:]
        if (k_mixture,) != tuple(k_components):
            raise ValueError(f"`mixture_distribution component` ({k_mixture}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({k_components[0] if k_components else None})")
        self.mixture_distribution, self.component_distribution = mixture_distribution, component_distribution
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(component_batch, component_distribution.event_shape, validate_args=validate_args)

    def _params(self):
        return {}

    def expand(self, batch_shape, _instance=None):
        """The mixture over a larger batch: the weights expanded to ``batch_shape``, the components to
        ``batch_shape + (K,)``."""
        batch_shape = tuple(batch_shape)
        k = self.component_distribution.batch_shape[-1]
        new = _instance if _instance is not None else type(self).__new__(type(self))
        MixtureSameFamily.__init__(new, self.mixture_distribution.expand(batch_shape),
                                   self.component_distribution.expand(batch_shape + (k,)),
                                   validate_args=self._validate)
        return new

    def __repr__(self):
        return f"MixtureSameFamily(\n  {self.mixture_distribution},\n  {self.component_distribution})"

    @property
    def support(self):
        return self.component_distribution.support

    def _pad(self, x):
        """x with a dim for the K components (before its event dims)."""
        return x.unsqueeze(-1 - self._event_ndims)

    def _weights(self):
        """The mixture probabilities, shaped to broadcast against the components' values (K before the events)."""
        probs = self.mixture_distribution.probs
        mixture_ndims = len(self.mixture_distribution.batch_shape)   # (PyTorch's rule: a 1-d mixture batch lines up
        lead = 0 if mixture_ndims == 1 else max(len(self.batch_shape) - mixture_ndims, 0)   # with the last batch dim)
        k = probs.shape[-1]
        return probs.reshape(tuple(probs.shape[:-1]) + (1,) * lead + (k,) + (1,) * self._event_ndims)

    @property
    def mean(self):
        return (self._weights() * self.component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self):
        """E[Var(X | k)] + Var(E[X | k]), the law of total variance."""
        weights, means = self._weights(), self.component_distribution.mean
        within = (weights * self.component_distribution.variance).sum(-1 - self._event_ndims)
        between = (weights * (means - self._pad(self.mean)) ** 2).sum(-1 - self._event_ndims)
        return within + between

    def log_prob(self, value):
        if self._validate:
            self._check_value(value, self.support.check(value.detach()), repr(self.support))
        log_weights = R.log_softmax(self.mixture_distribution.logits, -1)
        return R.logsumexp(self.component_distribution.log_prob(self._pad(value)) + log_weights, -1)

    def cdf(self, value):
        return (self.component_distribution.cdf(self._pad(value)) * self.mixture_distribution.probs).sum(-1)

    def sample(self, sample_shape=()):
        with no_grad():
            picks = self.mixture_distribution.sample(sample_shape)           # (S, B): which component
            draws = self.component_distribution.sample(sample_shape)         # (S, B, K, E)
            at = len(tuple(sample_shape)) + len(self.batch_shape)
            index = picks.reshape(tuple(picks.shape) + (1,) * (self._event_ndims + 1))
            index = index.expand(tuple(picks.shape) + (1,) + tuple(self.event_shape))
            return draws.gather(at, index).squeeze(at)
