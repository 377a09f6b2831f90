"""Norms, distances and similarities between vectors, with PyTorch's names and signatures.

    normalize(x, p, dim)              x / max(||x||_p, eps) along ``dim``: unit-length slices
    cosine_similarity(x1, x2, dim)    sum(x1/max(||x1||, eps) * x2/max(||x2||, eps)) along ``dim``
    pairwise_distance(x1, x2, p)      ||x1 - x2 + eps||_p along the last dim

and the modules ``CosineSimilarity`` and ``PairwiseDistance``. Each is a few differentiable ops, so the
gradients come from the engine. The p-norm (:func:`vector_norm`) is (sum_i |x_i|^p)^(1/p); p = inf is
max |x_i|, p = -inf min |x_i|, p = 0 the number of nonzero x_i.
"""
from __future__ import annotations

import numpy

from ..backend import asarray
from ..grad_mode import is_grad_enabled, no_grad
from ..ops import elementwise as E
from ..ops import reduce as R
from ..ops.reduce import vector_norm
from ..ops.registry import broadcast_shape
from ..tensor import Tensor
from .module import Module

__all__ = ["normalize", "cosine_similarity", "pairwise_distance", "vector_norm", "dist", "pdist", "CosineSimilarity",
           "PairwiseDistance"]


def check_float(t, what, name, error=TypeError, complex_ok=False):
    """``error`` (PyTorch's class for ``name``: TypeError for most losses, RuntimeError for the distances,
    kl_div and gumbel_softmax, NotImplementedError for an activation or a normalization with no integer kernel)
    unless ``t`` is a floating-point
    Tensor (or, ``complex_ok``, a complex one), saying how to convert it."""
    if not isinstance(t, Tensor):
        raise TypeError(f"{name}: {what} must be a Tensor, got {type(t).__name__}")
    if t.dtype.kind != "f" and not (complex_ok and t.dtype.kind == "c"):
        raise error(f"{name}: {what} must be floating point, got dtype {t.dtype.name} "
                    f"(shape {tuple(t.shape)}); convert it with .to(autogradlab.float32)")


def floating_inputs(name, *tensors, complex_ok=False):
    """PyTorch's RuntimeError unless each of ``tensors`` is a floating-point (or, ``complex_ok``, complex) Tensor
    (a TypeError if not a Tensor)."""
    for t in tensors:
        check_float(t, "each input", name, RuntimeError, complex_ok)


def _broadcast_pair(x1, x2, name):
    shape = broadcast_shape(name, x1.shape, x2.shape)
    return (x1 if x1.shape == shape else x1.expand(shape)), (x2 if x2.shape == shape else x2.expand(shape))


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """x / max(||x||_p, eps) along ``dim`` (an int or a tuple): each slice scaled to p-norm 1; a slice of norm
    below eps is divided by eps instead (a zero slice stays zero); complex x too. ``out``: written there (not
    recorded)."""
    floating_inputs("normalize", input, complex_ok=True)
    result = input / E.clamp(vector_norm(input, p, dim, keepdim=True), min=eps)
    if out is None:
        return result
    if is_grad_enabled() and (input.requires_grad or out.requires_grad):
        raise RuntimeError("normalize: out= is not differentiable, but the input (or out) requires grad; drop "
                           "out= (y = normalize(x)) or compute under autogradlab.no_grad()")
    if out.shape != result.shape:
        raise RuntimeError(f"normalize: out has shape {tuple(out.shape)} but the result has {tuple(result.shape)}; "
                           f"give an out of the input's shape")
    with no_grad():
        out.copy_(result)
    return out


def _at_least(norm, eps):
    """max(norm, eps) in value, while the gradient passes through as if it were ``norm`` (PyTorch clamps the
    norms in cosine_similarity outside autograd): eps + (norm - norm) where norm < eps, else norm."""
    return E.where(norm < eps, (norm - norm.detach()) + eps, norm)


def dist(input, other, p=2):
    """The ``p``-norm of ``input - other`` over every element (broadcast): ``||input - other||_p``."""
    return vector_norm(E.sub(input, other), p)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """cos(angle) between x1 and x2 along ``dim`` (which is dropped): sum(x1/max(||x1||, eps) *
    x2/max(||x2||, eps)), each divided by its own norm first so the result stays in [-1, 1]. x1 and x2
    broadcast; ``dim`` counts in the broadcast shape."""
    for t in (x1, x2):
        if not isinstance(t, Tensor):
            raise TypeError(f"cosine_similarity: expected Tensor inputs, got {type(t).__name__}")
    dtype = E.result_type(x1, x2)   # (an integer input takes the other's floating dtype, as in PyTorch)
    if dtype.kind != "f":
        raise RuntimeError(f"cosine_similarity: expected common dtype to be floating point, yet common dtype is "
                           f"{dtype.name}; convert an input with x.to(autogradlab.float32)")
    x1, x2 = _broadcast_pair(x1.to(dtype), x2.to(dtype), "cosine_similarity")
    d = R.single_dim(dim, x1.ndim, "cosine_similarity")
    with numpy.errstate(invalid="ignore", divide="ignore"):   # (eps = 0 and a zero vector: 0/0 = NaN, as in PyTorch)
        unit1 = x1 / _at_least(vector_norm(x1, 2, d, keepdim=True), eps)
        unit2 = x2 / _at_least(vector_norm(x2, 2, d, keepdim=True), eps)
        return R.sum(unit1 * unit2, d)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """||x1 - x2 + eps||_p along the last dim (x1 and x2 broadcast): eps keeps the distance between two equal
    vectors away from the norm's kink at 0, so it has a gradient."""
    x1, x2 = _broadcast_pair(x1, x2, "pairwise_distance")
    diff = x1 - x2 + eps
    return vector_norm(diff, p, -1 if diff.ndim else None, keepdim)


def pdist(input, p=2):
    """The ``p``-norm distance between every pair of rows i < j of ``input`` (N, M), as one vector of
    N(N-1)/2 distances, pair (0, 1) first (the upper triangle, row by row)."""
    check_float(input, "input", "pdist")
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D (shape {tuple(input.shape)})")
    if p < 0:
        raise RuntimeError(f"pdist only supports non-negative p values, got p={p}")
    n = input.shape[0]
    rows, cols = (asarray(index, input.device) for index in numpy.triu_indices(n, 1))
    return vector_norm(input[rows] - input[cols], p, -1)


class CosineSimilarity(Module):
    """cos(angle) between x1 and x2 along ``dim`` (see ``functional.cosine_similarity``)."""

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        return cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """||x1 - x2 + eps||_p along the last dim (see ``functional.pairwise_distance``)."""

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2):
        return pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
