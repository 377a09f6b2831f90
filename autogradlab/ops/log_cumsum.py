"""``logcumsumexp``: running sums in log space, ``y_i = log(e^a_0 + ... + e^a_i)`` along a dim, with a VJP
whose every exponent is at most 0, so neither order of derivative overflows."""
from __future__ import annotations

import numpy

from ..backend import xp_of
from ..tensor import Tensor
from . import elementwise as E
from .elementwise import exp, where
from .reduce import single_dim
from .registry import apply_one, defop, expect_tensor
from .shape import cat


def _logcumsumexp_forward(xp, a, dim):
    if a.ndim == 0:
        return a.copy()
    if a.dtype.kind == "c":   # y_i = logaddexp(y_(i-1), a_i) in PyTorch's order, which decides the branch of the
        out = a.copy()       # logarithm (the multiple of 2 pi i) each imaginary part lands on
        with numpy.errstate(invalid="ignore", over="ignore"):
            for i in range(1, a.shape[dim]):
                here, before = ((slice(None),) * dim + (i,), (slice(None),) * dim + (i - 1,))
                out[here] = E.log_add_exp_complex(out[before], a[here], xp.where, xp.log, xp.log1p, xp.exp)
        return out
    if xp is numpy:   # (NumPy's running logaddexp: one pass, each step as exact as logaddexp)
        with numpy.errstate(invalid="ignore"):
            return numpy.logaddexp.accumulate(a, axis=dim)
    # elsewhere (CuPy has no ufunc.accumulate): a scan of ceil(log2(n)) whole-array steps, each position
    # taking in the partial sum that ends `shift` places before it
    out, n, shift = a.copy(), a.shape[dim], 1
    while shift < n:
        later = (slice(None),) * dim + (slice(shift, None),)
        earlier = (slice(None),) * dim + (slice(None, n - shift),)
        out[later] = xp.logaddexp(out[later], out[earlier])
        shift *= 2
    return out


def _logcumsumexp_vjp(g, ctx):
    # da_j = sum_{i >= j} g_i e^(a_j - y_i) = e^(a_j - y_j) s_j, where s_j = sum_{i >= j} g_i e^(y_j - y_i) runs
    # backwards as s_j = g_j + e^(y_j - y_{j+1}) s_{j+1}. y never decreases, so every factor is at most 1: no
    # overflow, and s is linear in g (its derivative in g is exact, also where g is 0).
    if not ctx._input_shapes[0]:
        return (g,)
    a, y, d = ctx.self, ctx.result, ctx.dim
    n = y.shape[d]

    def part(t, start, stop):
        return t[(slice(None),) * d + (slice(start, stop),)]

    def joined(head, tail):
        return cat([head, tail], d) if isinstance(head, Tensor) else xp_of(head).concatenate([head, tail], d)

    before, after = part(y, None, -1), part(y, 1, None)
    # e^(y_j - y_{j+1}) for j < n - 1; where both are -inf (a and y are -inf from the start) or both +inf (past a
    # +inf) the factor is 0: the first adds nothing, and past a +inf the gradient of a_j is NaN anyway (e^(a_j - y_j)
    # below), while a NaN here would spread to the finite elements before it
    both_infinite = (before == after) & E.isinf(after)
    decay = exp(where(both_infinite, -numpy.inf, before - where(both_infinite | (after == -numpy.inf), 0, after)))
    # the scan: after the step of `shift`, s_j sums the terms i < j + 2 shift, and decay_j is the product of the
    # factors from j to j + 2 shift - 1
    s, shift = g, 1
    while shift < n:
        s = joined(part(s, None, n - shift) + decay * part(s, shift, None), part(s, n - shift, None))
        decay = part(decay, None, n - 2 * shift) * part(decay, shift, n - shift)
        shift *= 2
    return (exp(a - where(a == -numpy.inf, 0, y)) * s,)   # (e^(a_j - y_j); 0 where a_j is -inf)


LOGCUMSUMEXP = defop("logcumsumexp", ("self",), save=("self", "result"), complex_vjp="holomorphic",
                     math="y_i = log sum_{j <= i} e^(a_j) along dim;  da_j = sum_{i >= j} g_i e^(a_j - y_i)",
                     forward=_logcumsumexp_forward, vjp=_logcumsumexp_vjp, formulas=("e^(a_j - y_i) [j <= i]",))


def logcumsumexp(input, dim):
    """Running log-sum-exp along ``dim``: ``y[i] = log(e^a[0] + ... + e^a[i])``, computed without overflow
    (PyTorch's; floating or complex inputs: for complex ones each step is ``logaddexp``'s, in PyTorch's order,
    which fixes the imaginary parts)."""
    expect_tensor(input, "logcumsumexp")
    d = single_dim(dim, input.ndim, "logcumsumexp")
    if input.dtype.kind not in "fc":
        raise NotImplementedError(f"logcumsumexp: not implemented for {input.dtype.name} (as in PyTorch); "
                                  f"convert first: x.float()")
    return apply_one(LOGCUMSUMEXP, input, {"dim": d})
