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

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False, *,
                 maximize=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr} (must be >= 0)")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps} (must be >= 0; it keeps the division finite)")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum} (must be >= 0; 0 turns momentum off)")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay} (must be >= 0; 0 turns it off)")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha} (must be >= 0; the square average's decay, e.g. 0.99)")
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                                      weight_decay=weight_decay, maximize=maximize))

    def step(self, closure=None):
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
            weight_decay, momentum, centered = group["weight_decay"], group["momentum"], group["centered"]
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
