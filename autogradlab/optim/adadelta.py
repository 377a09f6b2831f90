"""Adadelta: steps scaled by the ratio of two running root-mean-squares (PyTorch's formulas)."""
from __future__ import annotations

from ..backend import xp_of
from .optimizer import Optimizer

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """For each parameter p with gradient g, every step:

        g <- -g  (maximize)            g <- g + weight_decay * p   (if weight_decay)
        v <- rho*v + (1 - rho)*g^2                             (square_avg)
        delta <- sqrt(u + eps) / sqrt(v + eps) * g             (u: acc_delta, the updates' square average)
        u <- rho*u + (1 - rho)*delta^2
        p <- p - lr * delta

    eps is added inside both square roots. The step has the units of p (Zeiler, 2012), so lr=1.0 is the default
    and a scheduler's lr scales it.
    """

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, *, maximize=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr} (must be >= 0)")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho} (must be in [0, 1]; the averages' decay, e.g. 0.9)")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps} (must be >= 0; it keeps the division finite)")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay} (must be >= 0; 0 turns it off)")
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize))

    def step(self, closure=None):
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            lr, rho, eps, weight_decay = group["lr"], group["rho"], group["eps"], group["weight_decay"]
            for p, param, grad in self._params_with_grad(group):
                xp = xp_of(param)
                if group["maximize"]:
                    grad = -grad
                if weight_decay != 0:
                    grad = grad + weight_decay * param
                state = self.state.setdefault(p, {})
                if not state:
                    state["step"] = 0
                    state["square_avg"] = xp.zeros_like(param)
                    state["acc_delta"] = xp.zeros_like(param)
                state["step"] += 1

                v, u = state["square_avg"], state["acc_delta"]
                v *= rho
                v += (1 - rho) * grad * grad
                delta = xp.sqrt(u + eps) / xp.sqrt(v + eps) * grad
                u *= rho
                u += (1 - rho) * delta * delta
                param -= lr * delta
                self._updated(p)
        return loss
