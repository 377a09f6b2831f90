"""Rprop, resilient backpropagation (Riedmiller and Braun, 1993): each weight has its own step size, which
grows while its gradient keeps its sign and shrinks when the sign flips; only the gradient's sign is used
(PyTorch's formulas)."""
from __future__ import annotations

from ..backend import xp_of
from .optimizer import Optimizer

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """For each parameter p with gradient g (-g with ``maximize``), every step, elementwise:

        s <- s * eta_plus    where g * g_prev > 0      (the same sign again: speed up)
        s <- s * eta_minus   where g * g_prev < 0      (the sign flipped: we overshot, slow down,
                                                        and skip this step: g <- 0 there)
        s <- clip(s, step_min, step_max)
        p <- p - sign(g) * s
        g_prev <- g

    Every step size starts at ``lr`` (the lr when the parameter first steps: a scheduler's later lr changes
    nothing, as in PyTorch). Meant for full-batch training: the sign of a mini-batch gradient is noisy.
    """

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False,
                 foreach=None, maximize=False, differentiable=False):
        self._check_at_least_zero(lr=lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]} (need 0 < eta_minus < 1 < eta_plus, "
                             f"e.g. etas=(0.5, 1.2))")
        super().__init__(params, dict(lr=lr, etas=tuple(etas), step_sizes=tuple(step_sizes), maximize=maximize,
                                      **self._switches(foreach=foreach, capturable=capturable,
                                                       differentiable=differentiable)))

    def step(self, closure=None):
        loss = self._loss_of(closure)
        for group in self._groups_for_step():
            (eta_minus, eta_plus), (step_min, step_max) = group["etas"], group["step_sizes"]
            for p, param, grad in self._params_with_grad(group):
                xp = xp_of(param)
                grad = xp.array(-grad if group["maximize"] else grad)   # (a copy; an array also when 0-d)
                state = self._buffers.setdefault(p, {})
                if not state:
                    state.update(step=0, prev=xp.zeros_like(param),
                                 step_size=xp.full_like(grad, group["lr"]))
                state["step"] += 1
                same = grad * state["prev"]
                factor = xp.where(same > 0, eta_plus, xp.where(same < 0, eta_minus, 1.0)).astype(param.dtype)
                step_size = state["step_size"]
                step_size *= factor
                xp.clip(step_size, step_min, step_max, out=step_size)
                grad[same < 0] = 0                     # (a flipped sign: no step now, and no flip next time)
                param -= xp.sign(grad) * step_size
                self._updated(p)
                state["prev"][...] = grad
        return loss
