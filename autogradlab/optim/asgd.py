"""ASGD, averaged stochastic gradient descent (Polyak and Juditsky, 1992): SGD with a step size that decays
and, from step ``t0`` on, a running average of the iterates (PyTorch's formulas)."""
from __future__ import annotations

from ..backend import xp_of
from .optimizer import Optimizer, _scalar

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """For each parameter p with gradient g (-g with ``maximize``, plus ``weight_decay * p``), at step t:

        p  <- p * (1 - lambd * eta) - eta * g         (eta starts at lr)
        ax <- ax + mu * (p - ax)                      (the average of the iterates; mu = 1 copies p)
        eta <- lr / (1 + lambd * lr * t) ** alpha
        mu  <- 1 / max(1, t - t0)

    The parameter itself follows the SGD steps; the averaged iterate ``ax`` is in the optimizer's state
    (``opt.state[p]["ax"]``): copy it into the model to evaluate the average.
    """

    _scalar_state = {"step": int, "eta": float, "mu": float}

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        self._check_at_least_zero(lr=lr, weight_decay=weight_decay)
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                                      maximize=maximize, **self._switches(foreach=foreach, capturable=capturable,
                                                                          differentiable=differentiable)))

    def step(self, closure=None):
        loss = self._loss_of(closure)
        for group in self._groups_for_step():
            lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
            for p, param, grad in self._params_with_grad(group):
                grad = self._direction(group, param, grad)
                state = self._buffers.setdefault(p, {})
                if not state:   # (PyTorch's order of the state's names)
                    state.update(step=0, eta=_scalar(lr), mu=1.0, ax=xp_of(param).zeros_like(param))
                state["step"] += 1

                eta, mu, ax = state["eta"], state["mu"], state["ax"]
                param *= 1 - lambd * eta
                param -= eta * grad
                if mu != 1:
                    ax += (param - ax) * mu
                else:
                    ax[...] = param
                state["eta"] = _scalar(lr / (1 + lambd * lr * state["step"]) ** alpha)
                state["mu"] = _scalar(1 / max(1, state["step"] - t0))
                self._updated(p)
        return loss
