"""More of ``torch.distributions.transforms``: maps onto the simplex (``SoftmaxTransform``,
``StickBreakingTransform``), onto lower-triangular matrices with a positive diagonal
(``LowerCholeskyTransform``) and onto positive definite ones (``PositiveDefiniteTransform``), and the
structural ones ``ReshapeTransform``, ``IndependentTransform`` and
``CumulativeDistributionTransform`` (a distribution's CDF as a map onto [0, 1])."""
from __future__ import annotations

import math

import numpy

from .. import linalg
from ..creation import arange, zeros
from ..nn import functional as F
from ..ops import elementwise as E
from ..ops import reduce as R
from . import constraints
from .basic_transforms import Transform, _sum_rightmost

__all__ = ["SoftmaxTransform", "StickBreakingTransform", "LowerCholeskyTransform", "PositiveDefiniteTransform",
           "ReshapeTransform", "IndependentTransform", "CumulativeDistributionTransform"]


class SoftmaxTransform(Transform):
    """y = softmax(x) over the last dim, onto the simplex; not bijective (adding a constant to x changes
    nothing), so its inverse log(y) is one of many and it has no log |det Jacobian|."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def _call(self, x):
        e = E.exp(x - R.amax(x, -1, keepdim=True).detach())
        return e / e.sum(-1, keepdim=True)

    def _inverse(self, y):
        return E.log(y)


class StickBreakingTransform(Transform):
    """A bijection from R^(K-1) onto the K-simplex: z_i = sigmoid(x_i - log(K - i)) breaks off a share z_i of
    what is left, y_i = z_i prod_{j<i} (1 - z_j), the last y the rest. x = 0 gives the uniform vector.
    log |det J| = sum_i (-x'_i + logsigmoid(x'_i) + log y_i), x'_i = x_i - log(K - i)."""

    bijective = True
    domain = constraints.real_vector
    codomain = constraints.simplex

    @staticmethod
    def _offsets(n, like):
        """log(K - i) for i = 1..n (K = n + 1), as a constant of ``like``'s dtype and device."""
        return E.log(arange(n, 0, -1, dtype=like.dtype, device=like.device))

    def _call(self, x):
        info = numpy.finfo(x.dtype)   # (kept inside (0, 1), as PyTorch's clipped sigmoid: no -inf log |det J|)
        z = E.clamp(E.sigmoid(x - self._offsets(x.shape[-1], x)), float(info.tiny), 1.0 - float(info.eps))
        left = R.cumprod(1 - z, -1)
        return F.pad(z, (0, 1), value=1.0) * F.pad(left, (1, 0), value=1.0)

    def _inverse(self, y):
        crop = y[..., :-1]
        rest = E.clamp(1 - R.cumsum(crop, -1), min=float(numpy.finfo(y.dtype).tiny))
        return E.log(crop) - E.log(rest) + self._offsets(crop.shape[-1], y)

    def log_abs_det_jacobian(self, x, y):
        shifted = x - self._offsets(x.shape[-1], x)
        return (-shifted + F.logsigmoid(shifted) + E.log(y[..., :-1])).sum(-1)

    def forward_shape(self, shape):
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        return tuple(shape[:-1]) + (shape[-1] - 1,)


class LowerCholeskyTransform(Transform):
    """A square matrix to a lower-triangular one with a positive diagonal (a Cholesky factor): the strictly
    lower part kept, the diagonal exponentiated; the inverse takes the log of the diagonal."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def _call(self, x):
        return x.tril(-1) + E.exp(x.diagonal(0, -2, -1)).diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + E.log(y.diagonal(0, -2, -1)).diag_embed()


class PositiveDefiniteTransform(Transform):
    """A square matrix to a positive definite one, L L^T with L = LowerCholeskyTransform()(x); the inverse
    takes the Cholesky factor back."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def _call(self, x):
        L = LowerCholeskyTransform()(x)
        return L @ L.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(linalg.cholesky(y))


class ReshapeTransform(Transform):
    """Events of ``in_shape`` reshaped to ``out_shape`` (the same number of elements); log |det J| = 0."""

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape, self.out_shape = tuple(in_shape), tuple(out_shape)
        if math.prod(self.in_shape) != math.prod(self.out_shape):
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @property
    def domain(self):
        return constraints.independent(constraints.real, len(self.in_shape))

    @property
    def codomain(self):
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size=1):
        return self if self._cache_size == cache_size else ReshapeTransform(self.in_shape, self.out_shape,
                                                                            cache_size=cache_size)

    def _call(self, x):
        batch = tuple(x.shape[:x.ndim - len(self.in_shape)])
        return x.reshape(batch + self.out_shape)

    def _inverse(self, y):
        batch = tuple(y.shape[:y.ndim - len(self.out_shape)])
        return y.reshape(batch + self.in_shape)

    def log_abs_det_jacobian(self, x, y):
        batch = tuple(x.shape[:x.ndim - len(self.in_shape)])
        return zeros(tuple(batch), dtype=x.dtype, device=x.device)

    def forward_shape(self, shape):
        cut = len(shape) - len(self.in_shape)
        if cut < 0 or tuple(shape[cut:]) != self.in_shape:
            raise ValueError(f"Shape mismatch: expected {tuple(shape[cut:])} but got {self.in_shape}")
        return tuple(shape[:cut]) + self.out_shape

    def inverse_shape(self, shape):
        cut = len(shape) - len(self.out_shape)
        if cut < 0 or tuple(shape[cut:]) != self.out_shape:
            raise ValueError(f"Shape mismatch: expected {tuple(shape[cut:])} but got {self.out_shape}")
        return tuple(shape[:cut]) + self.in_shape


class IndependentTransform(Transform):
    """``base_transform`` with its last ``reinterpreted_batch_ndims`` dims read as one event: the log |det J|
    summed over them."""

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__(cache_size=cache_size)

    def with_cache(self, cache_size=1):
        return self if self._cache_size == cache_size else IndependentTransform(
            self.base_transform, self.reinterpreted_batch_ndims, cache_size=cache_size)

    @property
    def domain(self):
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @property
    def codomain(self):
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _call(self, x):
        return self.base_transform(x)

    def _inverse(self, y):
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y), self.reinterpreted_batch_ndims)

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)

    def __repr__(self):
        return f"IndependentTransform({self.base_transform!r}, {self.reinterpreted_batch_ndims})"


class CumulativeDistributionTransform(Transform):
    """y = F(x), the CDF of ``distribution``, onto [0, 1]; its inverse is the ``icdf``, and log |dF/dx| is the
    log-density (a copula's building block)."""

    bijective = True
    codomain = constraints.unit_interval
    sign = 1

    def __init__(self, distribution, cache_size=0):
        self.distribution = distribution
        super().__init__(cache_size=cache_size)

    def with_cache(self, cache_size=1):
        return self if self._cache_size == cache_size else CumulativeDistributionTransform(
            self.distribution, cache_size=cache_size)

    @property
    def domain(self):
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)
