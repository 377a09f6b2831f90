"""``TransformedDistribution``: the distribution of y = f(x) for x from a base distribution and f a chain of
``transforms``. Its density is the base's at x = f^-1(y), divided by |det df/dx| there:

    log p_Y(y) = log p_X(f^-1(y)) - log |det J_f(f^-1(y))|

A tanh-squashed Gaussian policy (SAC) is
``TransformedDistribution(Normal(mu, sigma), [TanhTransform(cache_size=1)])``: ``rsample`` draws x, gives
tanh x, and ``log_prob`` of that very tensor finds x in the transform's cache.
"""
from __future__ import annotations

from ..grad_mode import no_grad
from .distribution import Distribution, Independent
from .basic_transforms import ComposeTransform, Transform, _sum_rightmost

__all__ = ["TransformedDistribution"]


class TransformedDistribution(Distribution):
    """``base_distribution`` pushed through ``transforms`` (a Transform or a list, applied in order)."""

    arg_constraints = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        if isinstance(transforms, Transform):
            transforms = [transforms]
        elif not isinstance(transforms, list) or not all(isinstance(t, Transform) for t in transforms):
            raise ValueError("transforms must be a Transform or a list of Transforms")
        self.transforms = transforms
        chain = ComposeTransform(transforms)
        base_shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        base_event_dim = len(base_distribution.event_shape)
        if len(base_shape) < chain.domain.event_dim:
            raise ValueError(f"base_distribution needs at least {chain.domain.event_dim} dimensions, but got "
                             f"{len(base_shape)} (its shape is {base_shape})")
        shape = chain.forward_shape(base_shape)
        grown = tuple(chain.inverse_shape(shape))   # (an affine map with a larger loc or scale grows the batch)
        if grown != base_shape:
            base_distribution = base_distribution.expand(grown[:len(grown) - base_event_dim])
        if chain.domain.event_dim > base_event_dim:   # (the transforms take whole events of the base's batch dims)
            base_distribution = Independent(base_distribution, chain.domain.event_dim - base_event_dim)
        self.base_dist = base_distribution
        event_dim = chain.codomain.event_dim + max(base_event_dim - chain.domain.event_dim, 0)
        cut = len(shape) - event_dim
        super().__init__(shape[:cut], shape[cut:], validate_args=validate_args)

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    @property
    def support(self):
        return ComposeTransform(self.transforms).codomain if self.transforms else self.base_dist.support

    def _params(self):
        return {}

    def __repr__(self):
        return f"{type(self).__name__}()"

    def sample(self, sample_shape=()):
        with no_grad():
            x = self.base_dist.sample(sample_shape)
            for transform in self.transforms:
                x = transform(x)
            return x

    def rsample(self, sample_shape=()):
        x = self.base_dist.rsample(sample_shape)
        for transform in self.transforms:
            x = transform(x)
        return x

    def log_prob(self, value):
        if self._validate and self.transforms:
            self._check_value(value, self.support.check(value.detach()), repr(self.support))
        event_dim = len(self.event_shape)
        log_prob, y = 0.0, value
        for transform in reversed(self.transforms):
            x = transform.inv(y)
            event_dim += transform.domain.event_dim - transform.codomain.event_dim
            log_prob = log_prob - _sum_rightmost(transform.log_abs_det_jacobian(x, y),
                                                 event_dim - transform.domain.event_dim)
            y = x
        return log_prob + _sum_rightmost(self.base_dist.log_prob(y), event_dim - len(self.base_dist.event_shape))

    def _monotonize(self, value):
        """A CDF value as the transformed variable's: where the chain decreases (sign -1), P(Y <= y) is
        1 - P(X <= x), i.e. sign * (value - 1/2) + 1/2 (sign may be a tensor: an affine map's per element)."""
        sign = 1
        for transform in self.transforms:
            sign = sign * transform.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value):
        for transform in reversed(self.transforms):
            value = transform.inv(value)
        if self._validate:   # (as PyTorch: the value taken back must lie in the base's support)
            self.base_dist._validate_sample(value)
        return self._monotonize(self.base_dist.cdf(value))

    def icdf(self, value):
        value = self.base_dist.icdf(self._monotonize(value))
        for transform in self.transforms:
            value = transform(value)
        return value
