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

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        self._check_at_least_zero(lr=lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho} (must be in [0, 1]; the averages' decay, e.g. 0.9)")
        self._check_at_least_zero(eps=eps, weight_decay=weight_decay)
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      **self._switches(foreach=foreach, capturable=capturable,
                                                       differentiable=differentiable)))

    def step(self, closure=None):
        loss = self._loss_of(closure)
        for group in self._groups_for_step():
            lr, rho, eps = group["lr"], group["rho"], group["eps"]
            for p, param, grad in self._params_with_grad(group):
                xp = xp_of(param)
                grad = self._direction(group, param, grad)
                state = self._state_of(p, param, "square_avg", "acc_delta")
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
