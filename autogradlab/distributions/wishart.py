"""``Wishart``: the law of the p x p matrix X = sum_k x_k x_k^T over ``df`` Gaussian vectors x_k ~ N(0, Sigma) (df
need not be a whole number, only > p - 1): a prior over covariance matrices. With Sigma = L L^T,

    log p(X) = (df - p - 1)/2 log det X - tr(Sigma^-1 X)/2 - df (p/2 log 2 + log det L) - ln Gamma_p(df/2).

A draw is Bartlett's: X = (L A)(L A)^T with A lower triangular, sqrt(chi2(df - i)) on its diagonal and N(0, 1)
below it, so ``rsample`` is differentiable in Sigma and, through the chi-squared draws, in df.
"""
from __future__ import annotations

import math
import numbers
import warnings

import numpy

from .. import linalg
from ..creation import arange, eye, randn, zeros
from ..ops import elementwise as E
from ..ops.rearrange import diag_embed
from ..ops.special_functions import digamma, mvlgamma
from ..older_names import cholesky_solve
from ..tensor import Tensor, tensor
from . import constraints
from .exponential_family import ExponentialFamily
from .distribution import _as_tensor, _check, _precision_to_scale_tril, _validating
from .gamma_family import Chi2

__all__ = ["Wishart"]

_LOG_2 = math.log(2.0)


class Wishart(ExponentialFamily):
    """Wishart(df, Sigma) over p x p positive definite matrices, Sigma given as ``covariance_matrix``,
    ``precision_matrix`` (Sigma^-1) or ``scale_tril`` (L); its mean is df Sigma."""

    support = constraints.positive_definite
    has_rsample = True
    _shared_by_batch = ("_unbroadcasted_scale_tril",)
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {"covariance_matrix": constraints.positive_definite, "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky, "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None, validate_args=None):
        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:   # (AssertionError, as PyTorch raises here)
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        what = ("covariance_matrix" if covariance_matrix is not None else "precision_matrix"
                if precision_matrix is not None else "scale_tril")
        matrix = _as_tensor(given[0])
        if matrix.ndim < 2:
            raise ValueError(f"{what} must be at least two-dimensional, with optional leading batch dimensions")
        p = matrix.shape[-1]
        if isinstance(df, Tensor):
            batch = tuple(numpy.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(df.shape)))
            df = df.expand(*batch)
        elif isinstance(df, numbers.Real):
            batch = tuple(matrix.shape[:-2])
            df = tensor(float(df), dtype=matrix.dtype, device=matrix.device)
        else:
            raise TypeError(f"Wishart: df must be a Tensor or a number, got {type(df).__name__}")
        if bool((df.detach() <= p - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        if _validating(validate_args):
            constraint = constraints.lower_cholesky if what == "scale_tril" else constraints.positive_definite
            _check(what, matrix, constraint.check(matrix.detach()), repr(constraint), self)
        if bool((df.detach() < p).any()):
            warnings.warn("Low df values detected. Singular samples are highly likely to occur for ndim - 1 < df < "
                          "ndim.", stacklevel=2)
        self.df = df
        if what == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif what == "covariance_matrix":
            self._unbroadcasted_scale_tril = linalg.cholesky(matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(matrix)
        self._given = (what, matrix)
        super().__init__(batch, (p, p), validate_args=validate_args)

    def _params(self):
        return {self._given[0]: self._given[1].expand(*self.batch_shape, *self.event_shape), "df": self.df}

    @property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(*self.batch_shape, *self.event_shape)

    @property
    def covariance_matrix(self):
        """Sigma: as given, else L L^T."""
        L = self._unbroadcasted_scale_tril
        given = self._given[1] if self._given[0] == "covariance_matrix" else L @ L.mT
        return given.expand(*self.batch_shape, *self.event_shape)

    @property
    def precision_matrix(self):
        """Sigma^-1: as given, else solved from L."""
        L = self._unbroadcasted_scale_tril
        identity = eye(L.shape[-1], dtype=L.dtype, device=L.device)
        given = self._given[1] if self._given[0] == "precision_matrix" else cholesky_solve(identity, L)
        return given.expand(*self.batch_shape, *self.event_shape)

    def _df_as_matrix(self):
        return self.df.reshape(*self.batch_shape, 1, 1)

    @property
    def mean(self):
        """df Sigma."""
        return self._df_as_matrix() * self.covariance_matrix

    @property
    def mode(self):
        """(df - p - 1) Sigma where df > p + 1; NaN otherwise."""
        factor = self._df_as_matrix() - self.event_shape[-1] - 1
        return E.where(factor > 0, factor, math.nan) * self.covariance_matrix

    @property
    def variance(self):
        """Var X_ij = df (Sigma_ij^2 + Sigma_ii Sigma_jj)."""
        V = self.covariance_matrix
        diagonal = V.diagonal(0, -2, -1)
        return self._df_as_matrix() * (V ** 2 + diagonal.unsqueeze(-1) * diagonal.unsqueeze(-2))

    def _half_log_det(self):
        """log det L = (log det Sigma) / 2."""
        return E.log(self._unbroadcasted_scale_tril.diagonal(0, -2, -1)).sum(-1)

    def _bartlett(self, sample_shape):
        """(L A)(L A)^T: A's diagonal sqrt(chi2(df - i)), i = 0..p-1; below it N(0, 1); above it 0."""
        L = self._unbroadcasted_scale_tril
        p = self.event_shape[-1]
        chi2 = Chi2(self.df.unsqueeze(-1) - arange(p, dtype=L.dtype, device=L.device), validate_args=False)
        diagonal = E.clamp(E.sqrt(chi2.rsample(sample_shape)), min=float(numpy.finfo(L.dtype).eps))
        shape = tuple(sample_shape) + self.batch_shape
        rows, cols = numpy.tril_indices(p, -1)
        below = zeros(*shape, p, p, dtype=L.dtype, device=L.device)   # (no gradient: filled in place)
        below[..., rows.tolist(), cols.tolist()] = randn(*shape, len(rows), dtype=L.dtype, device=L.device)
        factor = L @ (diag_embed(diagonal) + below)
        return factor @ factor.mT

    def rsample(self, sample_shape=(), max_try_correction=10):
        """A Bartlett draw; a draw that came out singular (df near p - 1, in floating point) is drawn again, up
        to ``max_try_correction`` times, with a warning."""
        sample = self._bartlett(sample_shape)
        bad = ~self.support.check(sample.detach())
        if bool(bad.any()):
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                sample = E.where(bad.unsqueeze(-1).unsqueeze(-1), self._bartlett(sample_shape), sample)
                bad = ~self.support.check(sample.detach())
                if not bool(bad.any()):
                    break
        return sample

    def log_prob(self, value):
        value = _as_tensor(value, self._unbroadcasted_scale_tril)
        if self._validate:
            self._check_value(value, self.support.check(value.detach()), repr(self.support))
        nu, p = self.df, self.event_shape[-1]
        trace = cholesky_solve(value, self._unbroadcasted_scale_tril).diagonal(0, -2, -1).sum(-1)
        return (-nu * (p * _LOG_2 / 2 + self._half_log_det()) - mvlgamma(nu / 2, p)
                + (nu - p - 1) / 2 * linalg.slogdet(value).logabsdet - trace / 2)

    @property
    def _natural_params(self):
        """(-Sigma^-1 / 2, (df - p - 1) / 2)."""
        return -self.precision_matrix / 2, (self.df - self.event_shape[-1] - 1) / 2

    def _log_normalizer(self, x, y):
        """A = (y + (p + 1)/2) (p log 2 - log det(-2x)) + ln Gamma_p(y + (p + 1)/2)."""
        p = self.event_shape[-1]
        return (y + (p + 1) / 2) * (p * _LOG_2 - linalg.slogdet(-2 * x).logabsdet) + mvlgamma(y + (p + 1) / 2, p)

    def entropy(self):
        """(p + 1)(p/2 log 2 + log det L) + ln Gamma_p(df/2) - (df - p - 1)/2 psi_p(df/2) + df p / 2."""
        nu, p = self.df, self.event_shape[-1]
        half = nu / 2
        multi_digamma = digamma(half.unsqueeze(-1) - arange(p, dtype=nu.dtype, device=nu.device) / 2).sum(-1)
        return ((p + 1) * (p * _LOG_2 / 2 + self._half_log_det()) + mvlgamma(half, p)
                - (nu - p - 1) / 2 * multi_digamma + nu * p / 2)
