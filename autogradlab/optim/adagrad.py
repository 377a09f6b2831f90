"""Adagrad: divide each step by the root of the sum of all squared gradients so far (PyTorch's formulas)."""
from __future__ import annotations

from ..backend import xp_of
from ..nn.lazy import UninitializedParameter
from .optimizer import Optimizer, _as_pairs

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """For each parameter p with gradient g, at step t = 1, 2, ...:

        g <- -g  (maximize)            g <- g + weight_decay * p   (if weight_decay)
        clr <- lr / (1 + (t - 1) * lr_decay)
        s <- s + g^2                   (sum, starting at initial_accumulator_value)
        p <- p - clr * g / (sqrt(s) + eps)

    Each coordinate's step shrinks as its squared gradients add up: weights with large or frequent
    gradients slow down first.

    As in PyTorch, the state is made when the optimizer is built, for every parameter (a state dict lists
    parameters that never had a gradient, at step 0), and every ``sum`` starts at the optimizer's
    ``initial_accumulator_value``: a param group's own ``initial_accumulator_value`` is kept but not used.
    """

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        self._check_at_least_zero(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                                  initial_accumulator_value=initial_accumulator_value, eps=eps)
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value, maximize=maximize,
                                      **self._switches(foreach=foreach, differentiable=differentiable, fused=fused)))
        for group in self.param_groups:
            for p in group["params"]:
                if isinstance(p, UninitializedParameter):
                    raise ValueError("Adagrad makes its state when it is built, but it was given an uninitialized "
                                     "parameter (of a lazy layer): call the model once on a batch (net(X)) before "
                                     "building the optimizer, as in PyTorch")
                self._buffers[p] = self._new_state(_as_pairs(p._data) if p._data.dtype.kind == "c" else p._data)

    def _new_state(self, param):
        """step 0, and a ``sum`` full of the optimizer's (not the group's) ``initial_accumulator_value``."""
        return {"step": 0, "sum": xp_of(param).full_like(param, self.defaults["initial_accumulator_value"])}

    def step(self, closure=None):
        loss = self._loss_of(closure)
        for group in self._groups_for_step():
            lr, lr_decay, eps = group["lr"], group["lr_decay"], group["eps"]
            for p, param, grad in self._params_with_grad(group):
                xp = xp_of(param)
                grad = self._direction(group, param, grad)
                state = self._buffers.get(p)
                if not state:   # (a group added later, or a state dict loaded without this parameter's state)
                    state = self._buffers[p] = self._new_state(param)
                state["step"] += 1

                clr = lr / (1 + (state["step"] - 1) * lr_decay)
                s = state["sum"]
                s += grad * grad
                param -= clr * (grad / (xp.sqrt(s) + eps))
                self._updated(p)
        return loss
