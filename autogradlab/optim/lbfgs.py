"""L-BFGS (PyTorch's, after minFunc): a quasi-Newton method that builds an approximation of the inverse Hessian
from the last ``history_size`` steps and gradient changes. ``step(closure)`` runs up to ``max_iter``
iterations, calling ``closure()`` (which recomputes the loss and calls ``backward``) for each new gradient:

    opt = optim.LBFGS([image], lr=1)
    def closure():
        opt.zero_grad()
        loss = style_loss(image)
        loss.backward()
        return loss
    opt.step(closure)
"""
from __future__ import annotations

from .. import backend
from ..grad_mode import no_grad
from .optimizer import Optimizer

__all__ = ["LBFGS"]


class LBFGS(Optimizer):
    """Each iteration: the direction d = -H g, H the inverse-Hessian approximation of the two-loop recursion
    over the stored pairs (s = the step, y = the change of gradient, kept when y.s > 1e-10), scaled by
    y.s / y.y; then p <- p + t d, with t = lr (on the very first iteration min(1, 1/|g|_1) * lr). It stops at
    ``max_iter`` iterations, ``max_eval`` closure calls, a gradient below ``tolerance_grad`` (largest element),
    or a step or loss change below ``tolerance_change``. Its one parameter group holds every parameter."""

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if line_search_fn is not None:
            raise NotImplementedError(f"LBFGS(line_search_fn={line_search_fn!r}) is not available here: the steps "
                                      f"are lr times the L-BFGS direction (line_search_fn=None, PyTorch's default)")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(params, dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                                      tolerance_change=tolerance_change, history_size=history_size,
                                      line_search_fn=line_search_fn))
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _flat_grad(self):
        """Every parameter's gradient in one vector (zeros where there is none)."""
        parts = [p.grad._data.reshape(-1) if p.grad is not None else backend.xp_of(p._data).zeros(p.numel(), p.dtype)
                 for p in self._params]
        return backend.xp_of(parts[0]).concatenate(parts)

    def _move(self, t, d):
        """p <- p + t * d, each parameter its slice of d."""
        offset = 0
        for p in self._params:
            n = p.numel()
            p._data += (t * d[offset:offset + n]).reshape(p.shape).astype(p.dtype, copy=False)
            self._updated(p)
            offset += n

    def step(self, closure):
        group = self._groups_for_step()[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        state = self.state.setdefault(self._params[0], {})
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        first_loss = self._loss_of(closure)
        loss, evals = float(first_loss), 1
        state["func_evals"] += 1
        g = self._flat_grad()
        if abs(g).max() <= tolerance_grad:
            return first_loss
        d, t = state.get("d"), state.get("t")
        dirs, steps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        h_diag, g_prev, loss_prev = state.get("H_diag"), state.get("prev_flat_grad"), state.get("prev_loss")

        for n_iter in range(1, max_iter + 1):
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d, dirs, steps, ro, h_diag = -g, [], [], [], 1
            else:
                y, s = g - g_prev, d * t
                ys = y.dot(s)
                if ys > 1e-10:                  # (a pair that keeps H positive definite)
                    if len(dirs) == group["history_size"]:
                        del dirs[0], steps[0], ro[0]
                    dirs.append(y)
                    steps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / y.dot(y)
                alphas = [None] * len(dirs)       # the two-loop recursion: d = -H g
                q = -g
                for i in reversed(range(len(dirs))):
                    alphas[i] = steps[i].dot(q) * ro[i]
                    q = q - alphas[i] * dirs[i]
                d = q * h_diag
                for i in range(len(dirs)):
                    d = d + (alphas[i] - dirs[i].dot(d) * ro[i]) * steps[i]
            g_prev, loss_prev = g.copy(), loss
            t = min(1.0, 1.0 / float(abs(g).sum())) * lr if state["n_iter"] == 1 else lr
            if g.dot(d) > -tolerance_change:   # (not a descent direction any more)
                break
            with no_grad():
                self._move(t, d)
            if n_iter != max_iter:
                loss = float(self._loss_of(closure))
                g = self._flat_grad()
                evals += 1
                state["func_evals"] += 1
            if (n_iter == max_iter or evals >= max_eval or abs(g).max() <= tolerance_grad
                    or abs(d * t).max() <= tolerance_change or abs(loss - loss_prev) < tolerance_change):
                break
        state.update(d=d, t=t, old_dirs=dirs, old_stps=steps, ro=ro, H_diag=h_diag, prev_flat_grad=g_prev,
                     prev_loss=loss_prev)
        return first_loss

