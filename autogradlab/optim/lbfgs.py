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

``line_search_fn="strong_wolfe"`` chooses each step length t by a line search (Nocedal and Wright,
*Numerical Optimization*, algorithms 3.5 and 3.6, with cubic interpolation as in minFunc) instead of taking
t = lr: a t with enough decrease, f(x + t d) <= f(x) + c1 t g.d, and a flat enough slope,
|g(x + t d).d| <= c2 |g.d|, as PyTorch's does (c1 = 1e-4, c2 = 0.9; the search may use what is left of ``max_eval``).
"""
from __future__ import annotations

import math
from collections import namedtuple

from .. import backend
from ..grad_mode import no_grad
from .optimizer import Optimizer, _as_pairs

__all__ = ["LBFGS"]

C1, C2 = 1e-4, 0.9          # the sufficient decrease and the curvature conditions' constants
BRACKET_TOLERANCE = 1e-9    # a bracket narrower than this (times max |d|) ends the search
Point = namedtuple("Point", "t f g slope")   # a step length, the loss and its gradient there, and g.d


def cubic_minimum(t1, f1, slope1, t2, f2, slope2, low=None, high=None):
    """Where the cubic through (t1, f1) and (t2, f2) with slopes slope1 and slope2 has its minimum, clipped to
    [low, high] (by default the interval between t1 and t2); its midpoint when the cubic has no minimum.
    With e = slope1 + slope2 - 3 (f1 - f2) / (t1 - t2) and r = sqrt(e^2 - slope1 slope2), for t1 < t2:
    t = t2 - (t2 - t1) (slope2 + r - e) / (slope2 - slope1 + 2 r)."""
    if low is None:
        low, high = min(t1, t2), max(t1, t2)
    e = slope1 + slope2 - 3 * (f1 - f2) / (t1 - t2)
    r_squared = e * e - slope1 * slope2
    if r_squared < 0:
        return (low + high) / 2
    r = math.sqrt(r_squared)
    if t1 > t2:                      # (the formula is for t1 <= t2: swap the two points)
        t1, f1, slope1, t2, f2, slope2 = t2, f2, slope2, t1, f1, slope1
    top, bottom = slope2 + r - e, slope2 - slope1 + 2 * r
    if bottom == 0:                  # (f is linear between them: no minimum inside, go to the end it falls to)
        return high if top < 0 else low if top > 0 else (low + high) / 2
    return min(max(t2 - (t2 - t1) * top / bottom, low), high)


def strong_wolfe(evaluate, t, d, f0, g0, slope0, max_steps):
    """A step length t along d with f(t) <= f0 + C1 t slope0 and |slope(t)| <= -C2 slope0, where f(t), its
    gradient and slope(t) = g(t).d come from ``evaluate(t)``. First grow t until [t_prev, t] brackets such a
    point, then shrink the bracket by cubic interpolation ("zoom"), in at most ``max_steps`` evaluations after
    the first. Returns (f, g, t, evaluations)."""
    def point(t):
        f, g = evaluate(t)
        return Point(t, f, g, float(g.dot(d)))
    step_size = float(abs(d).max())
    start = before = Point(0.0, f0, g0, slope0)
    now, calls, found, bracket = point(t), 1, False, None
    while calls <= max_steps:      # 1. bracketing: the first t that overshoots, or that is good
        if now.f > f0 + C1 * now.t * slope0 or (calls > 2 and now.f >= before.f):
            bracket = [before, now]
            break
        if abs(now.slope) <= -C2 * slope0:
            bracket, found = [now], True
            break
        if now.slope >= 0:
            bracket = [before, now]
            break
        t_next = cubic_minimum(before.t, before.f, before.slope, now.t, now.f, now.slope,
                               low=now.t + 0.01 * (now.t - before.t), high=10 * now.t)
        before, now = now, point(t_next)
        calls += 1
    if bracket is None:                  # (no bracket in the budget: between 0 and the last t)
        bracket = [start, now]
    lo = 0 if len(bracket) == 1 or bracket[0].f <= bracket[1].f else 1
    stuck = False
    while not found and calls <= max_steps:     # 2. zoom: shrink [lo, hi] around a good t
        a, b = bracket
        if abs(b.t - a.t) * step_size < BRACKET_TOLERANCE:
            break
        left, right = min(a.t, b.t), max(a.t, b.t)
        t = cubic_minimum(a.t, a.f, a.slope, b.t, b.f, b.slope)
        margin = 0.1 * (right - left)
        if min(right - t, t - left) < margin:       # too close to an end: move it in, unless that helped once
            if stuck or t >= right or t <= left:
                t = right - margin if abs(t - right) < abs(t - left) else left + margin
                stuck = False
            else:
                stuck = True
        else:
            stuck = False
        new = point(t)
        calls += 1
        hi = 1 - lo
        if new.f > f0 + C1 * new.t * slope0 or new.f >= bracket[lo].f:
            bracket[hi] = new                        # not lower than the low end: the new high end
            lo = 0 if bracket[0].f <= bracket[1].f else 1
        else:
            if abs(new.slope) <= -C2 * slope0:
                found = True
            elif new.slope * (bracket[hi].t - bracket[lo].t) >= 0:
                bracket[hi] = bracket[lo]            # the slope points away from hi: the old low end replaces it
            bracket[lo] = new
    best = bracket[lo]
    return best.f, best.g, best.t, calls


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
        if line_search_fn not in (None, "strong_wolfe"):
            raise RuntimeError(f"LBFGS(line_search_fn={line_search_fn!r}): only 'strong_wolfe' is supported "
                               f"(or None: steps of lr times the L-BFGS direction)")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(params, dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                                      tolerance_change=tolerance_change, history_size=history_size,
                                      line_search_fn=line_search_fn))
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    _flat_state = True   # (its state: vectors over every parameter, kept with the first)

    def _flat_grad(self):
        """Every parameter's gradient in one real vector (zeros where there is none; a complex parameter's as
        (x, y) pairs, as PyTorch's LBFGS reads one through view_as_real)."""
        parts = [_real(p.grad._data).reshape(-1) if p.grad is not None
                 else backend.xp_of(p._data).zeros(_real(p._data).size, _real(p._data).dtype) for p in self._params]
        return backend.xp_of(parts[0]).concatenate(parts)

    def _move(self, t, d):
        """p <- p + t * d, each parameter its slice of d."""
        offset = 0
        for p in self._params:
            target = _real(p._data, writable=True)
            n = target.size
            target += (t * d[offset:offset + n]).reshape(target.shape).astype(target.dtype, copy=False)
            self._updated(p)
            offset += n

    def _evaluate_along(self, closure, start, t, d):
        """The loss and flat gradient at ``start + t d``; the parameters are back at ``start`` afterwards."""
        with no_grad():
            self._move(t, d)
        loss = float(self._loss_of(closure))
        g = self._flat_grad()
        with no_grad():
            for p, array in zip(self._params, start):
                p._data[...] = array
                self._updated(p)
        return loss, g

    def step(self, closure):
        group = self._groups_for_step()[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        state = self._buffers.setdefault(self._params[0], {})
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
            if group["line_search_fn"] is not None:     # t from a line search that ends where it evaluated
                start = [p._data.copy() for p in self._params]
                loss, g, t, calls = strong_wolfe(lambda t_: self._evaluate_along(closure, start, t_, d), t, d,
                                                 loss, g, float(g.dot(d)), max_eval - evals)
                with no_grad():
                    self._move(t, d)
                evals += calls
                state["func_evals"] += calls
            else:
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


def _real(a, writable=False):
    """``a``, or a complex ``a`` as (x, y) pairs over its memory."""
    return _as_pairs(a, writable) if a.dtype.kind == "c" else a
