"""``nn.utils.parametrizations``, as PyTorch's: ``weight_norm`` and ``spectral_norm`` written as
parametrizations (:mod:`.parametrize`) rather than the forward pre-hooks of ``nn.utils.weight_norm``.

- ``weight_norm(layer)``: ``layer.weight = g * v / ||v||`` (norms over every dim but ``dim``), from
  ``layer.parametrizations.weight.original0`` (g) and ``original1`` (v).
- ``spectral_norm(layer)``: ``layer.weight = W / sigma``, sigma W's largest singular value (W as a matrix,
  rows along ``dim``) estimated by power iteration: 15 iterations when registered, then one per read in
  training mode, in the buffers ``_u`` and ``_v`` of ``layer.parametrizations.weight[0]``. No gradient flows
  through u and v.
- ``orthogonal(layer)``: ``layer.weight`` stays orthogonal (orthonormal columns, or rows for a wide matrix)
  whatever the optimizer does: it is ``base @ Q(X)``, Q the exponential of a skew-symmetric matrix
  (``"matrix_exp"``), its Cayley transform (``"cayley"``) or a product of Householder reflections
  (``"householder"``, the default for a non-square weight) of the trainable X, and ``base`` the weight made
  orthogonal when registered (``use_trivialization=True``, PyTorch's default).
"""
from __future__ import annotations

import numpy

from ... import backend, linalg
from ...creation import eye, randn
from ...grad_mode import no_grad
from ...ops import elementwise as E
from ...ops import linalg as L
from ...ops import shape as S
from ...tensor import Tensor
from ...sampling import normal
from ..layers import ConvTranspose1d, ConvTranspose2d
from ..module import Module
from . import parametrize
from .weight_norms import _norm_except_dim, _normalize

__all__ = ["weight_norm", "spectral_norm", "orthogonal"]


class _WeightNorm(Module):
    """``v * g / ||v||`` from ``(g, v)``; ``right_inverse(W)`` gives ``(||W||, W)``."""

    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return E.mul(weight_v, E.div(weight_g, _norm_except_dim(weight_v, self.dim)))

    def right_inverse(self, weight):
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Reparametrize ``module.<name>`` as ``g * v / ||v||`` (``dim=None``: one norm for the whole tensor), with
    ``g`` and ``v`` the parameters ``parametrizations.<name>.original0`` and ``original1``. Returns the module."""
    weight = getattr(module, name, None)
    if weight is not None and dim is not None and not -weight.ndim <= dim < weight.ndim:
        raise IndexError(f"weight_norm: Dimension out of range (expected to be in range of [{-weight.ndim}, "
                         f"{weight.ndim - 1}], but got {dim}); dim=None normalises the whole tensor")
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _SpectralNorm(Module):
    """``W / sigma``, sigma = u . W v with u, v from power iteration (a 1-d W: ``W / ||W||``)."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if not -ndim <= dim < ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got "
                             f"{dim})")
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim, self.eps = dim % ndim, eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            rows, columns = self._matrix(weight).shape
            kind = dict(dtype=weight.dtype, device=weight.device)
            self.register_buffer("_u", _normalize(normal(0.0, 1.0, size=(rows,), **kind), eps))
            self.register_buffer("_v", _normalize(normal(0.0, 1.0, size=(columns,), **kind), eps))
            self._power_method(self._matrix(weight), 15)

    def _matrix(self, weight):
        """The weight as a matrix: ``dim`` first, the rest flattened into columns."""
        if self.dim != 0:
            weight = weight.movedim(self.dim, 0)
        return weight.reshape(weight.shape[0], -1)

    def _power_method(self, w, iterations):
        """u <- W v / |.|, v <- W^T u / |.|, written into the buffers."""
        with no_grad():
            for _ in range(iterations):
                self._u.copy_(_normalize(L.mv(w, self._v), self.eps))
                self._v.copy_(_normalize(L.mv(w.t(), self._u), self.eps))

    def forward(self, weight):
        if weight.ndim == 1:
            return _normalize(weight, self.eps)
        w = self._matrix(weight)
        if self.training:
            self._power_method(w, self.n_power_iterations)
        sigma = L.dot(self._u.clone(), L.mv(w, self._v.clone()))   # (clones: the buffers move on)
        return E.div(weight, sigma)

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Reparametrize ``module.<name>`` as itself divided by its largest singular value; ``dim`` (default 0,
    1 for a ConvTranspose) is the output dim. Returns the module."""
    weight = getattr(module, name, None)
    if weight is None or not hasattr(weight, "shape"):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d)) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


# -- orthogonal ------------------------------------------------------------------------------------------------

def _orthonormalized(A):
    """The Q of A = QR with R's diagonal made positive: the orthonormal columns closest in spirit to A's (the
    same Q LAPACK's geqrf and householder_product give, signs fixed)."""
    Q, R = linalg.qr(A)
    return Q * E.sign(R.diagonal(0, -2, -1)).unsqueeze(-2)


def _is_orthogonal(Q):
    n, k = Q.shape[-2], Q.shape[-1]
    tolerance = 10 * n * float(numpy.finfo(Q.dtype).eps)
    return bool(E.isclose(Q.mT @ Q, eye(k, dtype=Q.dtype, device=Q.device), rtol=1e-5, atol=tolerance).all())


class _Orthogonal(Module):
    """Q(X) for a tall X (n >= k; a wide weight is handled transposed): ``"matrix_exp"`` exp(A), ``"cayley"``
    (I - A/2)^-1 (I + A/2), A the skew-symmetric matrix from X's strictly lower triangle (padded to n x n, first
    k columns kept); ``"householder"`` the product of the reflections below X's diagonal, each column signed by
    X's diagonal (as an integer, as PyTorch does). With a ``base`` buffer the weight is base @ Q(X)."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        self.shape, self.orthogonal_map = tuple(weight.shape), orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X, n, k = X.mT, k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            X = X.tril()
            if n != k:
                X = S.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], n, n - k)], -1)
            A = X - X.mT
            if self.orthogonal_map == "matrix_exp":
                Q = linalg.matrix_exp(A)
            else:
                I = eye(n, dtype=A.dtype, device=A.device)
                Q = linalg.solve(I - 0.5 * A, I + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(-1)
            tau = 2.0 / (1.0 + (A * A).sum(-2))
            Q = linalg.householder_product(A, tau)
            Q = Q * E.to_dtype(X.diagonal(0, -2, -1).detach(), "int32").unsqueeze(-2)
        if "base" in self._buffers:
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def right_inverse(self, Q):
        """Assigning an orthogonal weight: with a base, the base becomes it (made orthogonal if it is not; a
        tall one completed with random columns) and X the point where Q(X) = I; without one, only the
        Householder map can be inverted (Q's QR reflectors)."""
        if tuple(Q.shape) != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. Got a tensor of shape "
                             f"{tuple(Q.shape)}.")
        given = Q
        n, k = Q.shape[-2], Q.shape[-1]
        transposed = n < k
        if transposed:
            Q, n, k = Q.mT, k, n
        if "base" not in self._buffers:
            if self.orthogonal_map != "householder":
                raise NotImplementedError("It is not possible to assign to the matrix exponential or the Cayley "
                                          "parametrizations when use_trivialization=False.")
            return _householder_point(Q).mT if transposed else _householder_point(Q)
        if n == k:
            base = Q.clone() if _is_orthogonal(Q) else _orthonormalized(Q)
        else:
            extra = randn(*Q.shape[:-2], n, n - k, dtype=Q.dtype, device=Q.device)
            base = _orthonormalized(S.cat([Q, extra], -1))
        self.base = base
        rows, columns = given.shape[-2], given.shape[-1]
        return -eye(rows, columns, dtype=given.dtype, device=given.device).expand(*given.shape).clone()


def _householder_point(Q):
    """The X whose Householder map gives Q: LAPACK's QR reflectors below the diagonal (``numpy.linalg.qr``'s
    raw mode is geqrf), R's diagonal signs on it (flipped where a reflector is unused, tau = 0)."""
    host = backend.to_host(Q.detach()._data)
    flat = host.reshape((-1,) + host.shape[-2:])
    out = numpy.empty_like(flat)
    for i, matrix in enumerate(flat):
        h, tau = numpy.linalg.qr(matrix, mode="raw")
        a = h.T.copy()
        d = numpy.sign(numpy.diagonal(a)).copy()
        d[tau == 0] *= -1
        numpy.fill_diagonal(a, d)
        out[i] = a
    data = backend.asarray(out.reshape(host.shape).astype(host.dtype), Q.device)
    return Tensor._make(data, False, None, Q.device)


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Keep ``module.<name>`` (a matrix, or a batch of them) orthogonal: a parametrization by ``"matrix_exp"``,
    ``"cayley"`` or ``"householder"`` (default: matrix_exp for a square weight, householder otherwise). Returns
    the module; its weight starts as the registered one made orthogonal."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.shape[-2] == weight.shape[-1] else "householder"
    if orthogonal_map not in ("matrix_exp", "cayley", "householder"):
        raise ValueError(f'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". Got: '
                         f'{orthogonal_map}')
    parametrize.register_parametrization(module, name, _Orthogonal(weight, orthogonal_map,
                                                                   use_trivialization=use_trivialization),
                                         unsafe=True)
    return module
