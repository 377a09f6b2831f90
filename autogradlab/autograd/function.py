"""``autogradlab.autograd.function``, as ``torch.autograd.function``: ``Function``, its ``ctx`` class, and the
``once_differentiable`` decorator for a ``backward`` written on values only (NumPy, say) that cannot itself
be differentiated."""
from __future__ import annotations

import functools

from ..function import Function, FunctionCtx
from ..grad_mode import no_grad, state
from ..tensor import Tensor

__all__ = ["Function", "FunctionCtx", "once_differentiable"]


class _DifferentiatedTwice(Function):
    """Stands on the result of a ``once_differentiable`` backward when a graph was asked for: its own
    backward refuses, so a second derivative through it fails loudly instead of coming out 0."""

    @staticmethod
    def forward(ctx, result, *grads):
        return result

    @staticmethod
    def backward(ctx, g):
        raise RuntimeError("trying to differentiate twice a function that was marked with @once_differentiable: "
                           "its backward runs without recording a graph; write it with tensor ops (and drop the "
                           "decorator) to take a second derivative")


def once_differentiable(backward):
    """Decorate a Function's ``backward`` that must run without recording (it leaves tensors for arrays). It
    runs under ``no_grad``; when a graph was asked for (``create_graph=True`` and gradients that require
    grad), its results carry a node that refuses a second backward, as in PyTorch."""
    @functools.wraps(backward)
    def wrapper(ctx, *grads):
        with no_grad():
            results = backward(ctx, *grads)
        graph = [g for g in grads if isinstance(g, Tensor) and g.requires_grad]
        if not (state.grad_enabled and graph):
            return results

        def guarded(r):
            return _DifferentiatedTwice.apply(r, *graph) if isinstance(r, Tensor) else r
        return tuple(guarded(r) for r in results) if isinstance(results, tuple) else guarded(results)
    return wrapper
