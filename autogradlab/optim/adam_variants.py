"""Three variants of Adam with PyTorch's formulas and names: ``Adamax`` (an infinity norm in place of the
squared average), ``NAdam`` (Nesterov momentum) and ``RAdam`` (the variance of the adaptive step rectified,
plain momentum SGD while it is too uncertain)."""
from __future__ import annotations

import math

from ..backend import xp_of
from .optimizer import Optimizer, _scalar

__all__ = ["Adamax", "NAdam", "RAdam"]


def _check(lr, betas, eps, weight_decay, **more):
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    for i, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {beta} (must be in [0, 1))")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")
    for name, value in more.items():
        if not 0.0 <= value:
            raise ValueError(f"Invalid {name} value: {value}")


class _AdamLike(Optimizer):
    @staticmethod
    def _decayed(group, param, grad):
        """``grad`` with ``maximize`` and the weight decay applied: in the gradient (an L2 penalty), or on the
        parameter itself with ``decoupled_weight_decay`` (as AdamW)."""
        grad = -grad if group["maximize"] else grad
        if group["weight_decay"] != 0:
            if group.get("decoupled_weight_decay"):
                param *= 1 - group["lr"] * group["weight_decay"]
            else:
                grad = grad + group["weight_decay"] * param
        return grad


class Adamax(_AdamLike):
    """Each step t = 1, 2, ...:  m <- beta1*m + (1 - beta1)*g,  u <- max(beta2*u, |g| + eps),
    p <- p - lr / (1 - beta1^t) * m / u  (Kingma & Ba, 2015, section 7.1)."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        _check(lr, betas, eps, weight_decay)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      maximize=maximize, **self._switches(foreach=foreach, capturable=capturable,
                                                                          differentiable=differentiable)))

    def step(self, closure=None):
        loss = self._loss_of(closure)
        for group in self._groups_for_step():
            lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
            for p, param, grad in self._params_with_grad(group):
                state = self._state_of(p, param, "exp_avg", "exp_inf")
                state["step"] += 1
                grad = self._decayed(group, param, grad)
                m, u = state["exp_avg"], state["exp_inf"]
                m += (1 - beta1) * (grad - m)
                xp_of(param).maximum(u * beta2, abs(grad) + eps, out=u)
                param -= lr / (1 - beta1 ** state["step"]) * (m / u)
                self._updated(p)
        return loss


class NAdam(_AdamLike):
    """Adam with Nesterov momentum (Dozat, 2016): the momentum factor mu_t = beta1 * (1 - 0.96^(t *
    momentum_decay) / 2) and their running product P_t; each step, with v-hat = v / (1 - beta2^t),
    p <- p - lr * [(1 - mu_t)/(1 - P_t) * g + mu_{t+1}/(1 - P_t mu_{t+1}) * m] / (sqrt(v-hat) + eps)."""

    _scalar_state = {"step": int, "mu_product": float}

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _check(lr, betas, eps, weight_decay, momentum_decay=momentum_decay)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay, decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize, **self._switches(foreach=foreach, capturable=capturable,
                                                                          differentiable=differentiable)))

    def step(self, closure=None):
        loss = self._loss_of(closure)
        for group in self._groups_for_step():
            lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
            for p, param, grad in self._params_with_grad(group):
                state = self._buffers.setdefault(p, {})
                if not state:   # (in PyTorch's order)
                    zeros = xp_of(param).zeros_like
                    state.update(step=0, mu_product=1.0, exp_avg=zeros(param), exp_avg_sq=zeros(param))
                state["step"] += 1
                t = state["step"]
                grad = self._decayed(group, param, grad)
                mu = beta1 * (1.0 - 0.5 * 0.96 ** (t * group["momentum_decay"]))
                mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((t + 1) * group["momentum_decay"]))
                state["mu_product"] = _scalar(state["mu_product"] * _scalar(mu))   # (in default-dtype floats, as torch)
                product = state["mu_product"]
                m, v = state["exp_avg"], state["exp_avg_sq"]
                m += (1 - beta1) * (grad - m)
                v *= beta2
                v += (1 - beta2) * grad * grad
                denom = xp_of(param).sqrt(v / (1 - beta2 ** t)) + eps
                param -= lr * (1.0 - mu) / (1.0 - product) * (grad / denom)
                param -= lr * mu_next / (1.0 - product * mu_next) * (m / denom)
                self._updated(p)
        return loss


class RAdam(_AdamLike):
    """Adam with the variance of its adaptive step rectified (Liu et al., 2020): with rho_inf = 2/(1 - beta2)
    - 1 and rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t), m-hat = m / (1 - beta1^t), each step
    p <- p - lr * m-hat * r_t * sqrt(1 - beta2^t) / (sqrt(v) + eps) while rho_t > 5 (r_t the rectification
    sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))), else p <- p - lr * m-hat."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        _check(lr, betas, eps, weight_decay)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                                      **self._switches(foreach=foreach, capturable=capturable,
                                                       differentiable=differentiable)))

    def step(self, closure=None):
        loss = self._loss_of(closure)
        for group in self._groups_for_step():
            lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
            rho_inf = 2 / (1 - beta2) - 1
            for p, param, grad in self._params_with_grad(group):
                state = self._state_of(p, param, "exp_avg", "exp_avg_sq")
                state["step"] += 1
                t = state["step"]
                grad = self._decayed(group, param, grad)
                m, v = state["exp_avg"], state["exp_avg_sq"]
                m += (1 - beta1) * (grad - m)
                v *= beta2
                v += (1 - beta2) * grad * grad
                correction2 = 1 - beta2 ** t
                m_hat = m / (1 - beta1 ** t)
                rho_t = rho_inf - 2 * t * beta2 ** t / correction2
                if rho_t > 5.0:
                    rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
                    param -= m_hat * lr * (math.sqrt(correction2) / (xp_of(param).sqrt(v) + eps)) * rect
                else:
                    param -= m_hat * lr
                self._updated(p)
        return loss
