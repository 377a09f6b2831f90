"""Adam and AdamW (PyTorch's formulas, including ``amsgrad``)."""
from __future__ import annotations

import math

from ..backend import xp_of
from .optimizer import Optimizer

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """For each parameter p with gradient g, at step t = 1, 2, ...:

        g <- g + weight_decay * p              (Adam: L2 penalty in the gradient)
        p <- p * (1 - lr * weight_decay)       (AdamW, or decoupled_weight_decay=True, instead)
        m <- beta1*m + (1 - beta1)*g           v <- beta2*v + (1 - beta2)*g^2
        v_hat <- max(v_hat, v) (amsgrad)  or  v_hat <- v
        p <- p - lr / (1 - beta1^t) * m / (sqrt(v_hat) / sqrt(1 - beta2^t) + eps)
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        if not 0.0 <= lr:   # (NaN refused too, as PyTorch refuses it)
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        for i, beta in enumerate(betas):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {beta} (must be in [0, 1))")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize,
                                      **self._switches(foreach=foreach, capturable=capturable,
                                                       differentiable=differentiable, fused=fused),
                                      decoupled_weight_decay=bool(decoupled_weight_decay)))

    def step(self, closure=None):
        loss = self._loss_of(closure)
        for group in self._groups_for_step():
            lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
            weight_decay, amsgrad = group["weight_decay"], group["amsgrad"]
            for p, param, grad in self._params_with_grad(group):
                xp = xp_of(param)
                if group["maximize"]:
                    grad = -grad
                state = self._buffers.setdefault(p, {})
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = xp.zeros_like(param)
                    state["exp_avg_sq"] = xp.zeros_like(param)
                    if amsgrad:
                        state["max_exp_avg_sq"] = xp.zeros_like(param)
                state["step"] += 1
                t, m, v = state["step"], state["exp_avg"], state["exp_avg_sq"]

                if weight_decay != 0:
                    if group["decoupled_weight_decay"]:
                        param *= 1 - lr * weight_decay
                    else:
                        grad = grad + weight_decay * param
                m += (1 - beta1) * (grad - m)          # = beta1*m + (1 - beta1)*g
                v *= beta2
                v += (1 - beta2) * grad * grad
                if amsgrad:
                    v_hat = state["max_exp_avg_sq"]
                    xp.maximum(v_hat, v, out=v_hat)
                else:
                    v_hat = v
                step_size = lr / (1 - beta1 ** t)
                denom = xp.sqrt(v_hat) / math.sqrt(1 - beta2 ** t) + eps
                param -= step_size * (m / denom)
                self._updated(p)
        return loss


class AdamW(Adam):
    """Adam with decoupled weight decay: ``p <- p * (1 - lr * weight_decay)`` before the Adam step
    (Loshchilov & Hutter), instead of adding ``weight_decay * p`` to the gradient."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize, foreach=foreach,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def load_state_dict(self, state_dict):
        """As Adam's, and the groups stay decoupled (an Adam checkpoint loaded here still steps as AdamW, as in
        PyTorch)."""
        super().load_state_dict(state_dict)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
