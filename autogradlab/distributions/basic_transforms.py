"""The Transform base and the elementwise transforms of ``torch.distributions.transforms`` (the package's
``transforms`` module gathers these with the others): invertible maps y = f(x) with log |det df/dx|, which a
``TransformedDistribution`` needs for its density, log p_Y(y) = log p_X(x) - log |det df/dx| at x = f^-1(y).

Each transform gives ``t(x)``, its inverse ``t.inv(y)`` (a transform too), ``log_abs_det_jacobian(x, y)``, its
``domain`` and ``codomain`` (constraints), ``bijective`` and ``sign`` (+1 increasing, -1 decreasing). With
``cache_size=1`` a transform remembers its last (x, y), so ``t.inv(t(x))`` is that very x: a tanh-squashed
policy (SAC) needs it, as ``atanh(tanh(x))`` loses x's digits once tanh(x) rounds towards +-1.
"""
from __future__ import annotations

import math
import numbers

import numpy

from ..nn import functional as F
from ..ops import elementwise as E
from ..tensor import Tensor
from . import constraints

__all__ = ["Transform", "ComposeTransform", "ExpTransform", "PowerTransform", "SigmoidTransform", "TanhTransform",
           "SoftplusTransform", "AbsTransform", "AffineTransform", "identity_transform"]


def _sum_rightmost(value, dims):
    """``value`` summed over its last ``dims`` dims (a log-Jacobian per event)."""
    return value.reshape(tuple(value.shape[:value.ndim - dims]) + (-1,)).sum(-1) if dims > 0 else value


class Transform:
    """An invertible map with its log |det Jacobian|; subclasses give ``_call``, ``_inverse`` and
    ``log_abs_det_jacobian``."""

    bijective = False
    domain = constraints.real
    codomain = constraints.real
    sign = 1

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached_x_y = None, None
        self._inv = None

    @property
    def event_dim(self):
        return self.domain.event_dim

    @property
    def inv(self):
        """The inverse transform: ``t.inv(y)`` is x, ``t.inv.inv`` is ``t``."""
        if self._inv is None:
            self._inv = _InverseTransform(self)
        return self._inv

    def with_cache(self, cache_size=1):
        return self if self._cache_size == cache_size else type(self)(cache_size=cache_size)

    def __call__(self, x):
        if self._cache_size == 0:
            return self._call(x)
        cached_x, cached_y = self._cached_x_y
        if x is cached_x:
            return cached_y
        y = self._call(x)
        self._cached_x_y = x, y
        return y

    def _inv_call(self, y):
        if self._cache_size == 0:
            return self._inverse(y)
        cached_x, cached_y = self._cached_x_y
        if y is cached_y:
            return cached_x
        x = self._inverse(y)
        self._cached_x_y = x, y
        return x

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError(f"{type(self).__name__} has no inverse")

    def log_abs_det_jacobian(self, x, y):
        raise NotImplementedError(f"{type(self).__name__} has no log |det Jacobian| (it is not bijective)")

    def forward_shape(self, shape):
        return shape

    def inverse_shape(self, shape):
        return shape

    def __eq__(self, other):
        return type(self) is type(other)

    def __hash__(self):
        return hash(type(self))

    def __repr__(self):
        return f"{type(self).__name__}()"


class _InverseTransform(Transform):
    """The inverse of a transform: its call is the other's inverse, its log-Jacobian the other's negated."""

    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    def with_cache(self, cache_size=1):
        """The inverse of the forward transform with that cache."""
        return self if self._cache_size == cache_size else self._inv.with_cache(cache_size).inv

    @property
    def domain(self):
        return self._inv.codomain

    @property
    def codomain(self):
        return self._inv.domain

    @property
    def bijective(self):
        return self._inv.bijective

    @property
    def sign(self):
        return self._inv.sign

    @property
    def inv(self):
        return self._inv

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    def __hash__(self):
        return hash((_InverseTransform, self._inv))

    def __repr__(self):
        return f"_InverseTransform({self._inv!r})"


class ComposeTransform(Transform):
    """``parts`` applied in order: y = f_n(... f_1(x)); its log-Jacobian the sum of theirs along the way."""

    def __init__(self, parts, cache_size=0):
        self.parts = [p.with_cache(cache_size) for p in parts] if cache_size else list(parts)
        super().__init__(cache_size=cache_size)

    def with_cache(self, cache_size=1):
        return self if self._cache_size == cache_size else ComposeTransform(self.parts, cache_size=cache_size)

    @property
    def domain(self):
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        event_dim = self.parts[-1].codomain.event_dim   # (the events the whole chain ends with, taken back)
        for part in reversed(self.parts):   # (at least each part's own event dims, where one sits mid-chain)
            event_dim = max(event_dim + part.domain.event_dim - part.codomain.event_dim, part.domain.event_dim)
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @property
    def codomain(self):
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim = max(event_dim + part.codomain.event_dim - part.domain.event_dim, part.codomain.event_dim)
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @property
    def bijective(self):
        return all(p.bijective for p in self.parts)

    @property
    def sign(self):
        sign = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    @property
    def inv(self):
        if self._inv is None:
            self._inv = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv._inv = self
        return self._inv

    def _call(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return E.zeros_gradient(x)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        total, event_dim = None, self.domain.event_dim
        for part, a, b in zip(self.parts, xs[:-1], xs[1:]):
            term = _sum_rightmost(part.log_abs_det_jacobian(a, b), event_dim - part.domain.event_dim)
            total = term if total is None else total + term
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return total

    def forward_shape(self, shape):
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    def __hash__(self):
        return hash(tuple(self.parts))

    def __repr__(self):
        inner = ",\n    ".join(repr(p) for p in self.parts)
        return f"{type(self).__name__}(\n    {inner}\n)"


identity_transform = ComposeTransform([])


class ExpTransform(Transform):
    """y = e^x; log |dy/dx| = x."""

    bijective = True
    codomain = constraints.positive

    def _call(self, x):
        return E.exp(x)

    def _inverse(self, y):
        return E.log(y)

    def log_abs_det_jacobian(self, x, y):
        return x


class PowerTransform(Transform):
    """y = x^exponent on the positive numbers; log |dy/dx| = log |exponent y / x|."""

    bijective = True
    domain = constraints.positive
    codomain = constraints.positive

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.exponent = exponent

    def with_cache(self, cache_size=1):
        return self if self._cache_size == cache_size else PowerTransform(self.exponent, cache_size=cache_size)

    @property
    def sign(self):
        if isinstance(self.exponent, numbers.Real):
            return 1 if self.exponent > 0 else -1
        return E.sign(self.exponent)

    def _call(self, x):
        return x ** self.exponent

    def _inverse(self, y):
        return y ** (1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return E.log(E.abs(self.exponent * y / x))

    def __eq__(self, other):
        return isinstance(other, PowerTransform) and self.exponent is other.exponent

    def __hash__(self):
        return hash((PowerTransform, id(self.exponent)))


def _finfo(t):
    return numpy.finfo(t.dtype)


class SigmoidTransform(Transform):
    """y = 1/(1 + e^-x), kept inside (0, 1); log |dy/dx| = -softplus(-x) - softplus(x)."""

    bijective = True
    codomain = constraints.unit_interval

    def _call(self, x):
        info = _finfo(x)
        return E.clamp(E.sigmoid(x), float(info.tiny), 1.0 - float(info.eps))

    def _inverse(self, y):
        info = _finfo(y)
        y = E.clamp(y, float(info.tiny), 1.0 - float(info.eps))
        return E.log(y) - E.log1p(-y)

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x) - F.softplus(x)


class TanhTransform(Transform):
    """y = tanh x; log |dy/dx| = log(1 - tanh^2 x) = 2 (log 2 - x - softplus(-2x)), without cancellation."""

    bijective = True
    codomain = constraints.interval(-1.0, 1.0)

    def _call(self, x):
        return E.tanh(x)

    def _inverse(self, y):
        return E.atanh(y)

    def log_abs_det_jacobian(self, x, y):
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))


class SoftplusTransform(Transform):
    """y = log(1 + e^x); x = y + log(-expm1(-y)); log |dy/dx| = -softplus(-x)."""

    bijective = True
    codomain = constraints.positive

    def _call(self, x):
        return F.softplus(x)

    def _inverse(self, y):
        return y + E.log(-E.expm1(-y))

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x)


class AbsTransform(Transform):
    """y = |x| (not bijective: its inverse gives the positive root)."""

    codomain = constraints.positive

    def _call(self, x):
        return E.abs(x)

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """y = loc + scale x over events of ``event_dim`` dims; log |dy/dx| = log |scale| per element, summed over
    each event."""

    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc, self.scale, self._event_dim = loc, scale, event_dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self._event_dim, cache_size=cache_size)

    @property
    def event_dim(self):
        return self._event_dim

    @property
    def domain(self):
        return constraints.independent(constraints.real, self._event_dim) if self._event_dim else constraints.real

    codomain = domain

    @property
    def sign(self):
        if isinstance(self.scale, numbers.Real):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return E.sign(self.scale)

    def forward_shape(self, shape):
        """A tensor ``loc`` or ``scale`` broadcasts the shape it moves (as ``loc + scale * x`` does)."""
        return numpy.broadcast_shapes(tuple(shape), tuple(getattr(self.loc, "shape", ())),
                                      tuple(getattr(self.scale, "shape", ())))

    inverse_shape = forward_shape

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        if isinstance(self.scale, Tensor):
            result = E.log(E.abs(self.scale)) + E.zeros_gradient(x)
        else:
            result = E.zeros_gradient(x) + math.log(abs(float(self.scale)))
        return _sum_rightmost(result, self._event_dim)

    def __eq__(self, other):
        """Equal locs and scales, element by element (PyTorch's test: two TransformedDistributions through equal
        maps have a KL divergence)."""
        if not isinstance(other, AffineTransform):
            return False
        return all(a == b if isinstance(a, numbers.Number) and isinstance(b, numbers.Number) else bool((a == b).all())
                   for a, b in ((self.loc, other.loc), (self.scale, other.scale)))

    def __hash__(self):
        return hash(AffineTransform)   # (equal transforms may hold different tensors)
