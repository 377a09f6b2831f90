"""``weight_norm`` and ``spectral_norm`` (PyTorch's ``nn.utils`` forms): a layer's weight becomes a function of
other parameters, recomputed by a forward pre-hook before each call, so the gradient reaches those parameters.

- ``weight_norm(layer)``: ``weight = g * v / ||v||`` (the norm of each output unit's row, for ``dim=0``), with
  the parameters ``weight_g`` (a length per unit) and ``weight_v`` (a direction): length and direction learn
  separately (Salimans and Kingma, 2016).
- ``spectral_norm(layer)``: ``weight = weight_orig / sigma``, sigma the largest singular value of the weight
  (as a matrix, rows along ``dim``), estimated by power iteration with the buffers ``weight_u`` and
  ``weight_v``, one iteration per call in training mode: a Linear layer is then about 1-Lipschitz (power
  iteration estimates sigma from below; for a convolution the reshaped matrix's norm only approximates the
  operator's), which keeps a GAN's discriminator in check (Miyato et al., 2018). No gradient flows through
  u and v.

``remove_weight_norm`` / ``remove_spectral_norm`` put a plain ``weight`` parameter back, with the value it has.
``nn.utils.parametrizations`` has both as parametrizations (PyTorch's newer form).
"""
from __future__ import annotations

import warnings

from ...grad_mode import no_grad
from ...ops import elementwise as E
from ...ops import linalg as L
from ...ops import reduce as R
from ...sampling import normal
from ..layers import ConvTranspose1d, ConvTranspose2d
from ..parameter import Parameter

__all__ = ["weight_norm", "remove_weight_norm", "spectral_norm", "remove_spectral_norm"]


def _pre_hooks(module):
    hooks = module.__dict__.get("_hooks")
    return hooks["forward_pre"] if hooks else {}


def _find(module, kind, name):
    """The key and hook of ``kind`` on ``module`` for the parameter ``name``; (None, None) if there is none."""
    for key, hook in _pre_hooks(module).items():
        if isinstance(hook, kind) and hook.name == name:
            return key, hook
    return None, None


# -- weight_norm --------------------------------------------------------------------------------------------

def _norm_except_dim(v, dim):
    """The 2-norm of ``v`` over every dim but ``dim`` (size 1 there; |v| for a 1-d ``v``); of all of ``v`` when
    dim is -1 (PyTorch's code for None)."""
    if dim == -1:
        return R.norm(v)
    others = [d for d in range(v.ndim) if d != dim % v.ndim]
    return R.norm(v, 2, others, keepdim=True) if others else E.abs(v)


class WeightNorm:
    """The forward pre-hook of ``weight_norm``: ``name = name_g * name_v / ||name_v||``."""

    what = "weight_norm"

    def __init__(self, name, dim):
        self.name, self.dim = name, dim

    def compute_weight(self, module):
        g, v = getattr(module, self.name + "_g"), getattr(module, self.name + "_v")
        return E.mul(v, E.div(g, _norm_except_dim(v, self.dim)))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Replace ``module.<name>`` by ``<name>_g * <name>_v / ||<name>_v||`` (norms over every dim but ``dim``;
    ``dim=None``: of the whole tensor), recomputed before each call; returns the module. Deprecated, as in
    PyTorch, for ``nn.utils.parametrizations.weight_norm``."""
    warnings.warn("`autogradlab.nn.utils.weight_norm` is deprecated in favor of "
                  "`autogradlab.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=2)
    if _find(module, WeightNorm, name)[1] is not None:
        raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
    dim = -1 if dim is None else dim
    weight = getattr(module, name)
    if not -weight.ndim <= dim < weight.ndim:
        raise IndexError(f"weight_norm: Dimension out of range (expected to be in range of [{-weight.ndim}, "
                         f"{weight.ndim - 1}], but got {dim}); dim=None normalises the whole tensor")
    hook = WeightNorm(name, dim)
    with no_grad():
        g = _norm_except_dim(weight, dim)
    del module._parameters[name]
    module.register_parameter(name + "_g", Parameter(g))
    module.register_parameter(name + "_v", Parameter(weight.detach()))
    setattr(module, name, hook.compute_weight(module))
    module.register_forward_pre_hook(hook)
    return module


def remove_weight_norm(module, name="weight"):
    """Undo :func:`weight_norm`: ``module.<name>`` is a parameter again, with the value it has now."""
    return _remove(module, WeightNorm, name, ("_g", "_v"))


# -- spectral_norm ------------------------------------------------------------------------------------------

def _normalize(x, eps):
    """``x / max(||x||, eps)``."""
    return E.div(x, E.clamp(R.norm(x), min=eps))


class SpectralNorm:
    """The forward pre-hook of ``spectral_norm``: ``name = name_orig / (u . W v)``, u and v from power
    iteration on W (``name_orig`` as a matrix, rows along ``dim``), updated in place in training mode."""

    what = "spectral_norm"

    def __init__(self, name, n_power_iterations, dim, eps):
        self.name, self.n_power_iterations, self.dim, self.eps = name, n_power_iterations, dim, eps

    def matrix(self, weight):
        """The weight as a matrix: ``dim`` first, the rest flattened into columns."""
        if self.dim != 0:
            weight = weight.movedim(self.dim, 0)
        return weight.reshape(weight.shape[0], -1)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u, v = getattr(module, self.name + "_u"), getattr(module, self.name + "_v")
        w = self.matrix(weight)
        if do_power_iteration:
            with no_grad():                         # v <- W^T u / |.|, u <- W v / |.|, kept in the buffers
                for _ in range(self.n_power_iterations):
                    v.copy_(_normalize(L.mv(w.t(), u), self.eps))
                    u.copy_(_normalize(L.mv(w, v), self.eps))
                u, v = u.clone(), v.clone()         # (the graph keeps these values; the buffers move on)
        sigma = L.dot(u, L.mv(w, v))
        return E.div(weight, sigma)

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide ``module.<name>`` by its largest singular value (``n_power_iterations`` of power iteration per
    call in training mode), recomputed before each call; ``dim`` (default 0, 1 for ConvTranspose) is the
    output dim. Returns the module."""
    if n_power_iterations <= 0:
        raise ValueError(f"Expected n_power_iterations to be positive, but got "
                         f"n_power_iterations={n_power_iterations}")
    if _find(module, SpectralNorm, name)[1] is not None:
        raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d)) else 0
    weight = module._parameters[name]
    hook = SpectralNorm(name, n_power_iterations, dim, eps)
    with no_grad():
        rows, columns = hook.matrix(weight).shape
        kind = dict(dtype=weight.dtype, device=weight.device)
        u = _normalize(normal(0.0, 1.0, size=(rows,), **kind), eps)
        v = _normalize(normal(0.0, 1.0, size=(columns,), **kind), eps)
    delattr(module, name)
    module.register_parameter(name + "_orig", weight)
    setattr(module, name, weight.detach())
    module.register_buffer(name + "_u", u)
    module.register_buffer(name + "_v", v)
    module.register_forward_pre_hook(hook)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undo :func:`spectral_norm`: ``module.<name>`` is a parameter again, the normalised weight it has now."""
    return _remove(module, SpectralNorm, name, ("_u", "_v", "_orig"), do_power_iteration=False)


def _remove(module, kind, name, parts, **compute):
    """Put back a plain parameter ``name`` with the value ``kind``'s hook computes now; drop the hook and the
    parameters and buffers it computed from (``name`` + each of ``parts``)."""
    key, hook = _find(module, kind, name)
    if hook is None:
        raise ValueError(f"{kind.what} of '{name}' not found in {module}")
    with no_grad():
        weight = hook.compute_weight(module, **compute)
    for attribute in (name, *(name + part for part in parts)):
        delattr(module, attribute)
    module.register_parameter(name, Parameter(weight.detach()))
    del _pre_hooks(module)[key]
    return module
