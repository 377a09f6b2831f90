"""Stochastic gradient descent, with momentum, Nesterov and weight decay (PyTorch's formulas)."""
from __future__ import annotations

from ..backend import xp_of
from .optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    """For each parameter p with gradient g, every step:

        g <- g + weight_decay * p                       (if weight_decay)
        b <- g  (first step),  b <- momentum*b + (1 - dampening)*g  (after)   (if momentum)
        g <- g + momentum*b  (nesterov)  or  g <- b
        p <- p - lr * g
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        if lr < 0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                                      **self._switches(foreach=foreach, differentiable=differentiable, fused=fused)))

    def step(self, closure=None):
        loss = self._loss_of(closure)
        for group in self._groups_for_step():
            lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
            weight_decay, nesterov = group["weight_decay"], group["nesterov"]
            for p, param, grad in self._params_with_grad(group):
                d_p = -grad if group["maximize"] else grad
                if weight_decay != 0:
                    d_p = d_p + weight_decay * param
                if momentum != 0:
                    state = self._buffers.setdefault(p, {})
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        # (xp.array: a copy, and an array even for a 0-d parameter, where -grad is a number)
                        buf = state["momentum_buffer"] = xp_of(param).array(d_p)
                    else:
                        buf *= momentum
                        buf += (1 - dampening) * d_p
                    d_p = d_p + momentum * buf if nesterov else buf
                param -= lr * d_p
                self._updated(p)
        return loss
