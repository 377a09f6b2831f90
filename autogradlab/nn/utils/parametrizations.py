"""``nn.utils.parametrizations``, as PyTorch's: ``weight_norm`` and ``spectral_norm`` written as
parametrizations (:mod:`.parametrize`) rather than the forward pre-hooks of ``nn.utils.weight_norm``.

- ``weight_norm(layer)``: ``layer.weight = g * v / ||v||`` (norms over every dim but ``dim``), from
  ``layer.parametrizations.weight.original0`` (g) and ``original1`` (v).
- ``spectral_norm(layer)``: ``layer.weight = W / sigma``, sigma W's largest singular value (W as a matrix,
  rows along ``dim``) estimated by power iteration: 15 iterations when registered, then one per read in
  training mode, in the buffers ``_u`` and ``_v`` of ``layer.parametrizations.weight[0]``. No gradient flows
  through u and v.
"""
from __future__ import annotations

from ...grad_mode import no_grad
from ...ops import elementwise as E
from ...ops import linalg as L
from ...sampling import normal
from ..layers import ConvTranspose1d, ConvTranspose2d
from ..module import Module
from . import parametrize
from .weight_norms import _norm_except_dim, _normalize

__all__ = ["weight_norm", "spectral_norm"]


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
