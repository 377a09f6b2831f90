"""Utilities for training loops, with PyTorch's names (``nn.utils``): clipping gradients, a model's
parameters as one vector, ``weight_norm`` and ``spectral_norm`` (``weight_norms.py``), and (``nn.utils.rnn``)
padding sequences of different lengths into one tensor.

    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)   # the usual guard against exploding gradients
    optimizer.step()
"""
from __future__ import annotations

import math
import warnings

import numpy

from ... import backend
from ...grad_mode import no_grad
from ...ops import elementwise as E
from ...ops import reduce as R
from ...ops import shape as S
from ...tensor import Tensor, default_float
from . import rnn  # noqa: F401  (torch.nn.utils.rnn's pad_sequence, unpad_sequence)
from . import parametrizations, parametrize  # noqa: F401  (torch.nn.utils.parametrize, .parametrizations)
from .weight_norms import remove_spectral_norm, remove_weight_norm, spectral_norm, weight_norm

__all__ = ["clip_grad_norm_", "clip_grads_with_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm",
           "parameters_to_vector", "vector_to_parameters", "rnn", "weight_norm", "remove_weight_norm", "spectral_norm", "remove_spectral_norm"]


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def _vector_norm(t, p):
    """The ``p``-norm of all of ``t``'s elements (inf: the largest |x|, -inf: the smallest, 0: how many are not 0);
    float16 summed in float32 and rounded once, as PyTorch does."""
    if t.dtype == numpy.float16:
        return _vector_norm(t.to(numpy.float32), p).to(numpy.float16)
    a = E.abs(t.reshape(-1))
    if p == math.inf:
        return R.amax(a) if a.numel() else a.sum()
    if p == -math.inf:
        return R.amin(a) if a.numel() else a.sum() + math.inf
    if p == 0:
        return E.to_dtype(a != 0, t.dtype).sum()
    if p == 1:
        return a.sum()
    if p == 2:
        return R.norm(a)
    return (a ** p).sum() ** (1.0 / p)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The ``norm_type``-norm of all the tensors together, as if they were one vector: the norm of their norms
    (each in its own dtype, the total in the dtype they promote to)."""
    if isinstance(tensors, Tensor):
        tensors = [tensors]
    tensors = list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return Tensor._make(numpy.zeros((), dtype=default_float()), False, None, "cpu")
    with no_grad():
        dtype = numpy.result_type(*[t.dtype for t in tensors])
        total = _vector_norm(S.stack([_vector_norm(t, norm_type).to(dtype) for t in tensors]), norm_type)
    if error_if_nonfinite and not bool(backend.to_host(E.isfinite(total)._data)):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so "
                           f"it cannot be clipped. To disable this error and scale the gradients by the non-finite "
                           f"norm anyway, set `error_if_nonfinite=False`")
    return total


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scale the gradients of ``parameters`` in place so that their total ``norm_type``-norm (as one vector) is
    at most ``max_norm``: each ``.grad`` times min(1, max_norm/(total + 1e-6)). Returns the total norm before
    clipping. (``foreach`` is taken and ignored, as a speed option.)"""
    parameters = [parameters] if isinstance(parameters, Tensor) else list(parameters)   # (read twice: a generator
    total = get_total_norm(_grads(parameters), norm_type, error_if_nonfinite)          # such as parameters() once)
    clip_grads_with_norm_(parameters, max_norm, total)
    return total


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients of ``parameters`` in place by min(1, max_norm/(total_norm + 1e-6)), for a
    ``total_norm`` found already (by :func:`get_total_norm`): the second half of :func:`clip_grad_norm_`."""
    grads = _grads(parameters)
    if not grads:
        return
    if not isinstance(total_norm, Tensor):
        total_norm = Tensor._make(numpy.asarray(float(total_norm)), False, None, grads[0].device)
    with no_grad(), numpy.errstate(invalid="ignore"):   # (a non-finite total: NaN where inf was, as in PyTorch)
        scale = E.clamp(float(max_norm) / (total_norm + 1e-6), max=1.0)
        for g in grads:
            g.mul_(scale.to(g.dtype))


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The old name of :func:`clip_grad_norm_` (PyTorch warns that it is deprecated, and so does this)."""
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient of ``parameters`` in place to [-clip_value, clip_value]."""
    clip_value = float(clip_value)
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(-clip_value, clip_value)


def parameters_to_vector(parameters):
    """All the parameters flattened and joined into one 1-D tensor (differentiable)."""
    return S.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Write the consecutive pieces of the 1-D ``vec`` into the parameters (each takes as many elements as it
    holds, reshaped to it), in place."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected a Tensor, got {type(vec).__name__}")
    parameters = list(parameters)
    total = sum(p.numel() for p in parameters)
    if vec.ndim != 1 or vec.shape[0] != total:
        raise ValueError(f"vector_to_parameters: vec has shape {tuple(vec.shape)}, but the parameters hold {total} "
                         f"elements: expected shape ({total},)")
    with no_grad():
        start = 0
        for p in parameters:
            n = p.numel()
            p.copy_(vec[start:start + n].reshape(p.shape))
            start += n
