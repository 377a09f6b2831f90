"""RMSprop: divide each step by a running root-mean-square of the gradient (PyTorch's formulas)."""
from __future__ import annotations

from ..backend import xp_of
from .optimizer import Optimizer

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """For each parameter p with gradient g, every step:

        g <- -g  (maximize)            g <- g + weight_decay * p   (if weight_decay)
        v <- alpha*v + (1 - alpha)*g^2                       (square_avg)
        m <- alpha*m + (1 - alpha)*g,   d <- sqrt(v - m^2) + eps    (centered: m is grad_avg)
        d <- sqrt(v) + eps                                    (not centered)
        b <- momentum*b + g/d,  p <- p - lr*b  (if momentum)  or  p <- p - lr * g/d

    eps is added after the square root; ``centered`` divides by an estimate of the gradient's standard deviation
    instead of its root mean square.
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        self._check_at_least_zero(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                                      weight_decay=weight_decay, maximize=maximize,
                                      **self._switches(capturable=capturable, foreach=foreach,
                                                       differentiable=differentiable)))

    def step(self, closure=None):
        loss = self._loss_of(closure)
        for group in self._groups_for_step():
            lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
            momentum, centered = group["momentum"], group["centered"]
            for p, param, grad in self._params_with_grad(group):
                xp = xp_of(param)
                grad = self._direction(group, param, grad)
                state = self._state_of(p, param, "square_avg")
                if momentum > 0 and "momentum_buffer" not in state:   # (also when momentum is turned on later)
                    state["momentum_buffer"] = xp.zeros_like(param)
                if centered and "grad_avg" not in state:
                    state["grad_avg"] = xp.zeros_like(param)
                state["step"] += 1

                v = state["square_avg"]
                v *= alpha
                v += (1 - alpha) * grad * grad
                if centered:
                    m = state["grad_avg"]
                    m += (1 - alpha) * (grad - m)      # = alpha*m + (1 - alpha)*g
                    denom = xp.sqrt(v - m * m) + eps
                else:
                    denom = xp.sqrt(v) + eps
                if momentum > 0:
                    buf = state["momentum_buffer"]
                    buf *= momentum
                    buf += grad / denom
                    param -= lr * buf
                else:
                    param -= lr * (grad / denom)
                self._updated(p)
        return loss
