"""``LowRankMultivariateNormal``: a Gaussian over vectors of n whose covariance is a low-rank part plus a
diagonal, Sigma = W W^T + diag(d) (``cov_factor`` W of n x r, ``cov_diag`` d > 0), as in factor analysis and
low-rank VAE posteriors. Its density needs only r x r work, through the capacitance matrix C = I + W^T D^-1 W:

    log det Sigma = log det C + sum log d,    x^T Sigma^-1 x = x^T D^-1 x - z^T C^-1 z,  z = W^T D^-1 x

(the matrix determinant lemma and the Woodbury identity). A draw is loc + W e_r + sqrt(d) e_n."""
from __future__ import annotations

import math

from .. import linalg
from ..creation import eye, randn
from ..ops import elementwise as E
from ..ops import shape as S
from . import constraints
from .distribution import _as_tensor, _CentredAtLoc, _validating

__all__ = ["LowRankMultivariateNormal"]


class LowRankMultivariateNormal(_CentredAtLoc):
    """N(loc, W W^T + diag(cov_diag)) over vectors of n (the event); batch dims broadcast."""

    arg_constraints = {"loc": constraints.real_vector, "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}

    _shared_by_batch = ("_unbroadcasted_cov_factor", "_unbroadcasted_cov_diag")

    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.ndim < 1:
            raise ValueError("loc must be at least one-dimensional.")
        n = loc.shape[-1]
        if cov_factor.ndim < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional leading batch dimensions")
        if cov_factor.shape[-2] != n:
            raise ValueError(f"cov_factor must be a batch of matrices with shape {n} x m")
        if cov_diag.shape[-1:] != (n,):
            raise ValueError(f"cov_diag must be a batch of vectors with shape {(n,)}")
        if _validating(validate_args) and not bool((cov_diag.detach() > 0).all()):
            raise ValueError(f"Expected parameter cov_diag (Tensor of shape {tuple(cov_diag.shape)}) of distribution "
                             f"{type(self).__name__} to satisfy the constraint IndependentConstraint(GreaterThan("
                             f"lower_bound=0.0), 1), but found invalid values:\n{cov_diag}")
        batch = tuple(S.broadcast_shapes(tuple(loc.shape[:-1]), tuple(cov_factor.shape[:-2]),
                                         tuple(cov_diag.shape[:-1])))
        self.loc = loc.expand(*batch, n)
        self.cov_factor = cov_factor.expand(*batch, *cov_factor.shape[-2:])
        self.cov_diag = cov_diag.expand(*batch, n)
        self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag = cov_factor, cov_diag
        super().__init__(batch, (n,), validate_args=validate_args)

    def _params(self):
        return {"loc": self.loc, "cov_factor": self.cov_factor, "cov_diag": self.cov_diag}

    def _capacitance_tril(self):
        """The Cholesky factor of C = I + W^T D^-1 W (r x r)."""
        W, d = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        r = W.shape[-1]
        inner = (W / d.unsqueeze(-1)).mT @ W
        return linalg.cholesky(inner + eye(r, dtype=W.dtype, device=W.device))

    def _log_det(self):
        """log det Sigma = 2 sum log diag(chol C) + sum log d."""
        return (2 * E.log(self._capacitance_tril().diagonal(0, -2, -1)).sum(-1)
                + E.log(self._unbroadcasted_cov_diag).sum(-1))

    @property
    def variance(self):
        return ((self._unbroadcasted_cov_factor ** 2).sum(-1) + self._unbroadcasted_cov_diag).expand(
            *self.batch_shape, *self.event_shape)

    @property
    def covariance_matrix(self):
        W, d = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        return (W @ W.mT + d.diag_embed()).expand(*self.batch_shape, *self.event_shape, *self.event_shape)

    @property
    def precision_matrix(self):
        """Sigma^-1 = D^-1 - D^-1 W C^-1 W^T D^-1 (Woodbury)."""
        W, d = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        scaled = W / d.unsqueeze(-1)                                   # D^-1 W
        half = linalg.solve_triangular(self._capacitance_tril(), scaled.mT, upper=False)   # L^-1 W^T D^-1
        return ((1 / d).diag_embed() - half.mT @ half).expand(*self.batch_shape, *self.event_shape,
                                                              *self.event_shape)

    @property
    def scale_tril(self):
        return linalg.cholesky(self.covariance_matrix)

    def rsample(self, sample_shape=()):
        W = self._unbroadcasted_cov_factor
        shape = tuple(sample_shape) + self.batch_shape
        eps_w = randn(*shape, W.shape[-1], dtype=self.loc.dtype, device=self.loc.device)
        eps_d = randn(*shape, *self.event_shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + (W @ eps_w.unsqueeze(-1)).squeeze(-1) + E.sqrt(self._unbroadcasted_cov_diag) * eps_d

    def log_prob(self, value):
        value = _as_tensor(value, self.loc)
        diff = value - self.loc
        W, d = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        z = ((W / d.unsqueeze(-1)).mT @ diff.unsqueeze(-1))              # W^T D^-1 x
        batch = S.broadcast_shapes(tuple(z.shape[:-2]), tuple(W.shape[:-2]))
        L = self._capacitance_tril()
        L = L.expand(*batch, *L.shape[-2:])
        half = linalg.solve_triangular(L, z.expand(*batch, *z.shape[-2:]), upper=False).squeeze(-1)
        mahalanobis = (diff ** 2 / d).sum(-1) - (half ** 2).sum(-1)
        n = self.event_shape[0]
        return -0.5 * (n * math.log(2 * math.pi) + self._log_det() + mahalanobis)

    def entropy(self):
        n = self.event_shape[0]
        return (0.5 * n * (1.0 + math.log(2 * math.pi)) + 0.5 * self._log_det()).expand(*self.batch_shape)
