"""The LKJ distribution over Cholesky factors of correlation matrices (``LKJCholesky``), a prior for the
correlations of a multivariate model, and ``CorrCholeskyTransform``, the bijection from R^(d(d-1)/2) onto those
factors that lets an optimiser or a sampler work in unconstrained coordinates.

A Cholesky factor L of a d x d correlation matrix is lower triangular with a positive diagonal and rows of unit
length: row i is (w_i, sqrt(1 - |w_i|^2), 0, ...) for a point w_i of the open unit ball of R^i. LKJ(eta) gives the
correlation matrix L L^T a density proportional to det(L L^T)^(eta - 1); on L (through its strictly lower
entries) that is a product over the rows, each row independent:

    p(L) = prod_{i=1}^{d-1} (1 - |w_i|^2)^(eta - 1 + (d - 1 - i)/2) / c_i,
    c_i = pi^(i/2) Gamma(eta + (d - 1 - i)/2) / Gamma(eta + (d - 1)/2),

so |w_i|^2 ~ Beta(i/2, eta + (d - 1 - i)/2) with a uniform direction: the onion method's draw.
"""
from __future__ import annotations

import math
import numbers

import numpy

from .. import linalg
from ..creation import arange, eye, randn
from ..grad_mode import no_grad
from ..nn import functional as F
from ..ops import elementwise as E
from ..ops import reduce as R
from ..ops.special_functions import lgamma, mvlgamma
from . import constraints
from .distribution import Distribution, _as_tensor, _check, _validating
from .gamma_family import Beta
from .basic_transforms import Transform

__all__ = ["LKJCholesky", "CorrCholeskyTransform"]


def _tril_mask(n, diagonal):
    """The positions (i, j) with j <= i + ``diagonal`` of an n x n matrix, as a NumPy mask (an index)."""
    rows = numpy.arange(n)
    return rows < rows.reshape(-1, 1) + (diagonal + 1)


def _tril_to_vec(matrix, diagonal=-1):
    """The entries of ``matrix`` on and below ``diagonal``, row by row, as a vector (batch dims kept)."""
    return matrix[..., _tril_mask(matrix.shape[-1], diagonal)]


def _vec_to_strict_tril(vec):
    """A vector of d(d-1)/2 entries laid out row by row below the diagonal of a d x d matrix, zeros elsewhere:
    the vector padded with a leading 0, then read at the index of each matrix position (0 off the triangle)."""
    n = _lower_size(vec.shape[-1])
    where = numpy.zeros((n, n), dtype=numpy.int64)
    where[_tril_mask(n, -1)] = numpy.arange(1, vec.shape[-1] + 1)
    return F.pad(vec, (1, 0))[..., where]


def _lower_size(length):
    """The d with d(d-1)/2 = ``length``, or a ValueError."""
    d = round((0.25 + 2 * length) ** 0.5 + 0.5)
    if d * (d - 1) // 2 != length:
        raise ValueError("Input is not a flattened lower-diagonal number")
    return d


class CorrCholeskyTransform(Transform):
    """x in R^(d(d-1)/2) (row by row below the diagonal) to the Cholesky factor of a correlation matrix: with
    r_ij = tanh(x_ij), y_ij = r_ij prod_{k<j} sqrt(1 - r_ik^2) and y_ii = prod_{k<i} sqrt(1 - r_ik^2), a signed
    stick-breaking of each row's unit length. log |det J| is taken against y's strictly lower entries."""

    bijective = True
    domain = constraints.real_vector
    codomain = constraints.corr_cholesky

    def _call(self, x):
        """r = tanh(x) (kept inside (-1, 1)), laid out below the diagonal; y = (r + I) * the shifted cumulative
        product of sqrt(1 - r^2) along each row."""
        eps = float(numpy.finfo(x.dtype).eps)
        r = _vec_to_strict_tril(E.clamp(E.tanh(x), -1 + eps, 1 - eps))
        left = R.cumprod(E.sqrt(1 - r ** 2), -1)
        return (r + eye(r.shape[-1], dtype=r.dtype, device=r.device)) * F.pad(left[..., :-1], (1, 0), value=1.0)

    def _inverse(self, y):
        """x_ij = atanh(y_ij / sqrt(1 - sum_{k<j} y_ik^2)), the share of what is left of the row's length."""
        left = F.pad((1 - R.cumsum(y * y, -1))[..., :-1], (1, 0), value=1.0)
        return E.atanh(_tril_to_vec(y, -1) / E.sqrt(_tril_to_vec(left, -1)))

    def log_abs_det_jacobian(self, x, y):
        """dy_ij/dr_ij = sqrt(1 - sum_{k<j} y_ik^2), so the stick-breaking part is 1/2 sum log(1 - cumsum(y^2))
        over the entries (i, m), m <= i - 2; dr/dx adds sum log(1 - tanh^2 x) = 2 sum (log 2 - x - softplus(-2x))."""
        left = 1 - R.cumsum(y * y, -1)
        sticks = 0.5 * E.log(_tril_to_vec(left, -2)).sum(-1)
        return sticks - 2 * (x + F.softplus(-2 * x) - math.log(2.0)).sum(-1)

    def forward_shape(self, shape):
        """(..., d(d-1)/2) -> (..., d, d)."""
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        d = _lower_size(shape[-1])
        return tuple(shape[:-1]) + (d, d)

    def inverse_shape(self, shape):
        """(..., d, d) -> (..., d(d-1)/2)."""
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return tuple(shape[:-2]) + (d * (d - 1) // 2,)


class LKJCholesky(Distribution):
    """LKJ(``concentration`` eta) over the Cholesky factors L of ``dim`` x ``dim`` correlation matrices: L L^T
    has density proportional to det(L L^T)^(eta - 1) (eta = 1: uniform over correlation matrices; larger eta
    pulls towards the identity)."""

    arg_constraints = {"concentration": constraints.positive}

    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if isinstance(dim, bool) or not isinstance(dim, numbers.Integral):
            raise TypeError(f"LKJCholesky: dim must be an int (the matrices are dim x dim), got "
                            f"{type(dim).__name__} {dim!r}")
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        self.concentration = _as_tensor(concentration)
        if _validating(validate_args):
            _check("concentration", self.concentration, self.concentration.detach() > 0,
                   "GreaterThan(lower_bound=0.0)", self)
        super().__init__(self.concentration.shape, (dim, dim), validate_args=validate_args)

    def _params(self):
        return {"concentration": self.concentration}

    def sample(self, sample_shape=()):
        """The onion method (Lewandowski, Kurowicka and Joe 2009, sec. 3.2), every row of L at once: row i >= 1
        is w = sqrt(y) u with y ~ Beta(i/2, eta + (dim - 1 - i)/2) and u uniform on the unit sphere of R^i (a
        normal vector over its length), then sqrt(1 - |w|^2) on the diagonal; row 0 is (1, 0, ..., 0). (torch
        2.13 draws y ~ Beta(i - 1/2, ...), which is the same law only for row 1.)"""
        sample_shape = tuple(sample_shape)
        with no_grad():
            eta = self.concentration.detach()
            i = arange(1, self.dim, dtype=eta.dtype, device=eta.device)
            y = Beta(i / 2, eta.unsqueeze(-1) + (self.dim - 1 - i) / 2, validate_args=False).sample(sample_shape)
            u = randn(self._shape(sample_shape), dtype=eta.dtype, device=eta.device).tril(-1)[..., 1:, :]
            w = F.pad(E.sqrt(y).unsqueeze(-1) * u / linalg.vector_norm(u, dim=-1, keepdim=True), (0, 0, 1, 0))
            tiny = float(numpy.finfo(w.dtype).tiny)   # (a row whose y rounds to 1 keeps a positive diagonal)
            return w + E.sqrt(E.clamp(1 - (w ** 2).sum(-1), min=tiny)).diag_embed()

    def log_prob(self, value):
        """sum_{i=2}^{dim} (2 (eta - 1) + dim - i) log L_ii - log Z, with (d = dim, a = eta + (d - 1)/2)
        log Z = (d - 1)/2 log pi + log Gamma_{d-1}(a - 1/2) - (d - 1) lgamma(a), Gamma_p the multivariate gamma."""
        value = _as_tensor(value, self.concentration)
        if self._validate and tuple(value.shape[-2:]) != self.event_shape:
            raise ValueError(f"The right-most size of value must match event_shape: {tuple(value.shape)} vs "
                             f"{self.event_shape}.")
        self._check_value(value, self.support.check(value.detach()), repr(self.support))
        eta, d = self.concentration, self.dim
        order = 2 * (eta - 1).unsqueeze(-1) + (d - arange(2, d + 1, dtype=eta.dtype, device=eta.device))
        unnormalised = (order * E.log(value.diagonal(0, -2, -1)[..., 1:])).sum(-1)
        a = eta + 0.5 * (d - 1)
        log_z = 0.5 * (d - 1) * math.log(math.pi) + mvlgamma(a - 0.5, d - 1) - (d - 1) * lgamma(a)
        return unnormalised - log_z
