"""The LU decomposition, as ``torch.linalg`` has it: ``lu_factor`` (``A = P L U`` packed into one matrix, with
LAPACK's pivots), ``lu``, ``lu_solve``, and the ``_ex`` functions that report a failure in ``info`` instead
of raising (``lu_factor_ex``, ``inv_ex``, ``solve_ex``, ``cholesky_ex``).

The factorization is Gaussian elimination with partial pivoting, written out here (NumPy has none): at step
j the row with the largest |a_ij| (|Re| + |Im| for complex numbers, as LAPACK) at or below row j is swapped
up, and multiples of row j are taken from the rows below. One op records it, and its VJP is PyTorch's
formula; ``lu_solve`` is two triangular solves, so its gradient is theirs.
"""
from __future__ import annotations

import math

import numpy

from ..backend import raises_for_singular, to_host, xp_of
from ..tensor import Tensor
from ..return_types import return_type
from .decompositions import (INV, LinAlgError, _call, _constant_like, _h, _host, _linalg, _matrices, _square, cholesky,
                             inv, solve)
from .elementwise import where
from .registry import apply, defop, expect_tensor
from .shape import cat

LuFactorResult = return_type("linalg_lu_factor", ["LU", "pivots"])
LuFactorExResult = return_type("linalg_lu_factor_ex", ["LU", "pivots", "info"])
LuResult = return_type("linalg_lu", ["P", "L", "U"])
InvExResult = return_type("linalg_inv_ex", ["inverse", "info"])
SolveExResult = return_type("linalg_solve_ex", ["result", "info"])
CholeskyExResult = return_type("linalg_cholesky_ex", ["L", "info"])


_PANEL = 64   # the columns eliminated one by one before the rest of the matrix is updated by one matrix product


def _eliminate(xp, a, search=True):
    """Gaussian elimination on each matrix of ``a`` (m x n, k = min(m, n) steps): ``(lu, pivots, info)``, with L's
    multipliers below lu's diagonal (its ones left out) and U on and above it; pivots[j] the row (from 1) that
    step j swapped with row j (``search=False``: no swaps, the rows as given); info the first step (from 1)
    whose pivot is 0, else 0.

    Blocked, as LAPACK's getrf: the steps of a panel of ``_PANEL`` columns update that panel only; then U's
    rows to its right are L11^-1 A12 (forward substitution) and the rows below lose L21 U12 in one product.
    Each entry takes the same subtractions as one step at a time would, in another order."""
    m, n = a.shape[-2:]
    batch = a.shape[:-2]
    lu = a.reshape((math.prod(batch), m, n)).copy()
    count, k = lu.shape[0], min(m, n)
    pivots = xp.zeros((count, k), numpy.int32)
    info = xp.zeros((count,), numpy.int32)
    every = xp.arange(count)
    for start in range(0, k, _PANEL):
        end = min(start + _PANEL, k)
        for j in range(start, end):
            if search:
                column = lu[:, j:, j]
                size = abs(column.real) + abs(column.imag) if lu.dtype.kind == "c" else abs(column)
                p = j + xp.argmax(size, axis=1)   # (the first of equal candidates, as LAPACK's)
                row_j, row_p = lu[every, j, :].copy(), lu[every, p, :].copy()
                lu[every, j, :], lu[every, p, :] = row_p, row_j
            else:
                p = xp.full((count,), j)
            pivots[:, j] = p + 1
            pivot = lu[:, j, j]
            zero = pivot == 0
            info = xp.where((info == 0) & zero, j + 1, info)
            # the multipliers (a zero pivot leaves its column as it is: every entry below is 0 too, with search)
            lu[:, j + 1:, j] = xp.where(zero[:, None], lu[:, j + 1:, j],
                                        lu[:, j + 1:, j] / xp.where(zero, 1, pivot)[:, None])
            lu[:, j + 1:, j + 1:end] -= lu[:, j + 1:, j:j + 1] * lu[:, j:j + 1, j + 1:end]
        if end < n:
            for j in range(start, end):   # U12 = L11^-1 A12
                lu[:, j + 1:end, end:] -= lu[:, j + 1:end, j:j + 1] * lu[:, j:j + 1, end:]
            if end < m:
                lu[:, end:, end:] -= lu[:, end:, start:end] @ lu[:, start:end, end:]
    return lu.reshape(a.shape), pivots.reshape(batch + (k,)), info.reshape(batch)


def _order(xp, pivots, m):
    """The row order the pivots' swaps make: ``perm`` with ``A[perm] = L U`` (so ``P[perm[i], i] = 1``)."""
    batch, k = pivots.shape[:-1], pivots.shape[-1]
    perm = xp.broadcast_to(xp.arange(m), batch + (m,)).reshape((math.prod(batch), m)).copy()
    swaps = pivots.reshape((math.prod(batch), k)).astype(numpy.int64) - 1
    every = xp.arange(perm.shape[0])
    for j in range(k):
        here, there = perm[:, j].copy(), perm[every, swaps[:, j]].copy()
        perm[:, j], perm[every, swaps[:, j]] = there, here
    return perm.reshape(batch + (m,))


def _rows_in_order(xp, a, perm):
    return xp.take_along_axis(a, perm[..., :, None], axis=-2)


def _permutation(xp, pivots, m, dtype):
    """P, with A = P L U: P[r, i] = 1 where r = perm[i]."""
    perm = _order(xp, pivots, m)
    return (xp.arange(m)[:, None] == perm[..., None, :]).astype(dtype)


def _lu_forward(xp, a, pivots):
    """The elimination of A's rows in the pivots' order (no search: the pivots were found once, by lu_factor)."""
    return _eliminate(xp, _rows_in_order(xp, a, _order(xp, pivots, a.shape[-2])), search=False)[0]


def _masks(like, m, n, k):
    """The masks that pick L's multipliers (m x k, below the diagonal) and U (k x n, on and above it)."""
    below = _constant_like(numpy.tril(numpy.ones((m, k)), -1), like)
    upper = _constant_like(numpy.triu(numpy.ones((k, n))), like)
    return below, upper


def _lu_vjp(g, ctx):
    """A = P L U:  dA = P L^-H (tril(L^H gL, -1) + triu(gU U^H)) U^-H for a square A (PyTorch's formula). A wide A
    = P L [U1 U2] adds P L^-H gU2 for A2 and takes gL - L^-H gU2 U2^H; a tall P [L1; L2] U adds gL2 U^-H for the
    rows of L2 and takes gU - L2^H gL2 U^-H."""
    packed = ctx.result
    m, n = packed.shape[-2:]
    k = min(m, n)
    below, upper = _masks(packed, m, n, k)
    lower = packed[..., :, :k] * below + _constant_like(numpy.eye(m, k), packed)   # L, m x k (ones on the diagonal)
    u = packed[..., :k, :] * upper                                                  # U, k x n
    g_lower, g_upper = g[..., :, :k] * below, g[..., :k, :] * upper
    square_below = _constant_like(numpy.tril(numpy.ones((k, k)), -1), packed)
    square_upper = _constant_like(numpy.triu(numpy.ones((k, k))), packed)
    l1, u1 = lower[..., :k, :], u[..., :, :k]
    inner_l = _h(l1) @ g_lower[..., :k, :]                # L1^H gL1
    inner_u = g_upper[..., :, :k] @ _h(u1)                # gU1 U1^H
    if m < n:   # (U2 = L^-1 P^T A2)
        inner_l = inner_l - g_upper[..., :, k:] @ _h(u[..., :, k:])
    if m > n:   # (L2 = P^T A2 U^-1)
        inner_u = inner_u - _h(lower[..., k:, :]) @ g_lower[..., k:, :]
    l1_inv_h, u1_inv_h = _h(_call(INV, l1)), _h(_inverse_or_nan(u1))
    ga = l1_inv_h @ (inner_l * square_below + inner_u * square_upper) @ u1_inv_h
    if m < n:
        ga = _join(ga, l1_inv_h @ g_upper[..., :, k:], -1)
    if m > n:
        ga = _join(ga, g_lower[..., k:, :] @ u1_inv_h, -2)
    p = _permutation(xp_of(_host(packed)), ctx.pivots, m, packed.dtype)
    return (_constant_like(p, packed) @ ga,)


def _inverse_or_nan(u):
    """U^-1 of triangular matrices (arrays or Tensors), NaN for one with a 0 on its diagonal: a singular A's
    gradient through its LU is NaN, as PyTorch's."""
    data = _host(u)
    xp = xp_of(data)
    bad = (xp.diagonal(data, 0, -2, -1) == 0).any(-1)
    if not bool(bad.any()):
        return _call(INV, u)
    if isinstance(u, Tensor):
        return _guarded(u, bad, lambda m: _call(INV, m))
    flags = bad[..., None, None]
    return xp.where(flags, numpy.nan, _call(INV, xp.where(flags, xp.eye(u.shape[-1], dtype=u.dtype), u)))


def _join(a, b, dim):
    return cat([a, b], dim) if isinstance(a, Tensor) else xp_of(a).concatenate([a, b], dim)


LU_FACTOR = defop("lu_factor", ("self",), save=("result",), complex_vjp="same",
                  math="A = P L U (packed: L below the diagonal, U on and above);  "
                       "dA = P L^-H (tril(L^H gL, -1) + triu(gU U^H)) U^-H",
                  forward=_lu_forward, vjp=_lu_vjp, formulas=("P L^-H (tril(L^H gL, -1) + triu(gU U^H)) U^-H",))


def _constant(array, like):
    return Tensor._make(array, False, None, like.device)


def _failures(name, info, what):
    """LinAlgError naming the first matrix whose ``info`` is not 0, saying ``what(info)`` of it."""
    host = to_host(info)
    bad = numpy.flatnonzero(host)
    if bad.size:
        batch = f" (matrix {int(bad[0])} of the batch)" if host.ndim else ""
        raise LinAlgError(f"linalg.{name}{batch}: {what(int(host.reshape(-1)[bad[0]]))}")


def lu_factor_ex(A, *, pivot=True, check_errors=False):
    """``(LU, pivots, info)``: ``A = P L U`` packed into ``LU`` (L's multipliers below the diagonal, its ones
    left out; U on and above), ``pivots[j]`` the row (counting from 1, as LAPACK) swapped with row j at step j,
    ``info`` the first step (from 1) whose pivot was 0 (a singular matrix), else 0. ``pivot=False``: no row
    swaps (PyTorch's CPU build refuses that; it fails where a pivot is 0, e.g. [[0, 1], [1, 0]])."""
    _matrices("lu_factor_ex", A)
    _, pivots, info = _eliminate(xp_of(A._data), A._data, search=bool(pivot))
    if check_errors:
        _failures("lu_factor_ex", info, lambda j: f"U[{j},{j}] is zero: the matrix is singular")
    packed = apply(LU_FACTOR, (A,), {"pivots": pivots})
    return LuFactorExResult(packed, _constant(pivots, A), _constant(info, A))


def lu_factor(A, *, pivot=True):
    """``(LU, pivots)`` of :func:`lu_factor_ex`; a singular matrix raises (``lu_solve`` would divide by 0)."""
    _matrices("lu_factor", A)
    packed, pivots, info = lu_factor_ex(A, pivot=pivot)
    _failures("lu_factor", info._data, lambda j: f"U[{j},{j}] is zero, so lu_solve would divide by zero (the "
                                                 f"matrix is singular). To factor it anyway, call linalg.lu(A) or "
                                                 f"linalg.lu_factor_ex(A)")
    return LuFactorResult(packed, pivots)


def lu(A, *, pivot=True):
    """``(P, L, U)`` with ``A = P L U``: P a permutation matrix, L unit lower triangular (m x k), U upper
    triangular (k x n), k = min(m, n). A singular matrix is factored too (U has a zero on its diagonal).
    ``pivot=False``: no row swaps, and P is empty."""
    _matrices("lu", A)
    packed, pivots, _ = lu_factor_ex(A, pivot=pivot)
    return lu_unpack(packed, pivots, unpack_pivots=bool(pivot))


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """``(P, L, U)`` from ``lu_factor``'s packed ``LU`` and pivots: L its part below the diagonal with ones on the
    diagonal (m x k), U its part on and above (k x n), P the permutation the pivots' swaps make (A = P L U).
    ``unpack_data=False`` leaves L and U empty, ``unpack_pivots=False`` P. L and U take the gradient back to
    the parts of LU they came from."""
    expect_tensor(LU_data, "lu_unpack")
    _matrices("lu_unpack", LU_data)
    m, n = LU_data.shape[-2:]
    k = min(m, n)
    xp = xp_of(LU_data._data)
    empty = _constant(xp.zeros((0,), LU_data.dtype), LU_data)
    lower = upper = p = empty
    if unpack_data:
        lower = LU_data[..., :, :k].tril(-1) + _constant(xp.eye(m, k, dtype=LU_data.dtype), LU_data)
        upper = LU_data[..., :k, :].triu()
    if unpack_pivots:
        pivots = LU_pivots._data if isinstance(LU_pivots, Tensor) else xp.asarray(LU_pivots)
        if pivots.dtype != numpy.int32:
            raise RuntimeError(f"torch.lu_unpack: LU_pivots is expected to be a tensor of int32 dtype (got "
                               f"{pivots.dtype.name}): pass the pivots lu_factor returned")
        host = to_host(pivots)
        if host.size and (host.min() < 1 or host.max() > m):
            raise RuntimeError(f"pivots passed to lu_unpack must be between 1 and LU.size(-2) = {m} inclusive: "
                               f"did you pass the pivots lu_factor returned?")
        p = _constant(_permutation(xp, pivots, m, LU_data.dtype), LU_data)
    return LuResult(p, lower, upper)


def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """The ``X`` with ``A X = B`` (``left=False``: ``X A = B``; ``adjoint=True``: ``A^H`` for ``A``) from
    ``lu_factor``'s ``(LU, pivots)`` of A = P L U: a permutation and two triangular solves
    (``X = U^-1 L^-1 P^T B``), so the gradient reaches L's multipliers, U and B."""
    expect_tensor(LU, "lu_solve")
    expect_tensor(B, "lu_solve")
    _square("lu_solve", LU)
    n = LU.shape[-1]
    if B.ndim < 2:
        raise RuntimeError(f"linalg.lu_solve: The input tensor B must have at least 2 dimensions (shape "
                           f"{tuple(B.shape)}); for one vector b use b.unsqueeze(-1)")
    if (B.shape[-2] if left else B.shape[-1]) != n:
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    if B.dtype != LU.dtype:
        raise RuntimeError(f"linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
                           f"{LU.dtype.name} and B of type {B.dtype.name} instead")
    expect_tensor(pivots, "lu_solve")
    if pivots.dtype != numpy.int32:
        raise RuntimeError(f"linalg.lu_solve: pivots should be a Tensor of scalar type int32 (got {pivots.dtype.name}):"
                           f" pass the pivots lu_factor returned")
    if tuple(pivots.shape) != tuple(LU.shape[:-1]):
        raise RuntimeError(f"linalg.lu_solve: Expected LU.shape[:-1] = {tuple(LU.shape[:-1])} and pivots.shape to be "
                           f"the same, but got pivots with shape {tuple(pivots.shape)} instead")
    host = to_host(pivots._data)
    if host.size and (host.min() < 1 or host.max() > n):
        raise RuntimeError(f"linalg.lu_solve: pivots must be between 1 and {n} (rows counted from 1, as LAPACK): "
                           f"pass the pivots lu_factor returned")
    xp = xp_of(LU._data)
    if LU.numel() and bool((xp.diagonal(LU._data, 0, -2, -1) == 0).any()):
        raise LinAlgError("linalg.lu_solve: U has a 0 on its diagonal (the factored matrix is singular), so A X = B "
                          "has no unique solution (PyTorch gives infinities or NaN here). Check info from "
                          "lu_factor_ex before solving")
    p = _constant(_permutation(xp, pivots._data, n, LU.dtype), LU)
    eye = _constant(xp.eye(n, dtype=LU.dtype), LU)
    lower, upper = LU.tril(-1) + eye, LU.triu()
    if not left:   # X A = B  <=>  A^H X^H = B^H
        return lu_solve(LU, pivots, _h(B), adjoint=not adjoint).mH if B.dtype.kind == "c" else \
            lu_solve(LU, pivots, B.mT, adjoint=not adjoint).mT
    if adjoint:    # A^H = U^H L^H P^T:  X = P L^-H U^-H B
        return p @ solve(_h(lower), solve(_h(upper), B))
    return solve(upper, solve(lower, p.mT @ B))


# -- the _ex functions: a failure in info, not an exception ---------------------------------------------------
# Each first runs the usual routine on the whole batch (NumPy raises for a singular or indefinite matrix). Only
# when that fails are the matrices tried one by one, and the ones that fail are set aside: their info comes
# from our own elimination (the step of its first zero pivot, or, where rounding made that pivot tiny rather
# than 0, of its smallest one), and their result is NaN. CuPy raises nothing: there every matrix is eliminated.

def _info(A, routine, info_of, near=None):
    """Per matrix, 0 where ``routine`` (an array function, e.g. inv) takes it, else ``info_of`` of it (our own
    factorization's, for a batch); where that is 0 although the routine failed (rounding), ``near`` of it, or 1."""
    xp = xp_of(A._data)
    n = A.shape[-1]
    batch = tuple(A.shape[:-2])
    try:
        routine(xp, A._data)
        if raises_for_singular(A._data):
            return xp.zeros(batch, numpy.int32)
        return info_of(xp, A._data)   # (CuPy raises nothing: our own factorization says which matrices fail)
    except LinAlgError:
        pass
    flat = A._data.reshape((math.prod(batch), n, n))
    info = numpy.zeros(flat.shape[0], numpy.int32)
    for i in range(flat.shape[0]):
        try:
            routine(xp, flat[i])
        except LinAlgError:
            info[i] = int(to_host(info_of(xp, flat[i]))) or (near(xp, flat[i]) if near else 1)
    return xp.asarray(info.reshape(batch))


def _lu_info(xp, a):
    """The step (from 1) of LU's first zero pivot per matrix, else 0."""
    return _eliminate(xp, a)[2]


def _smallest_pivot(xp, a):
    """The step (from 1) of a matrix's smallest LU pivot (where rounding left a tiny one rather than 0)."""
    return int(to_host(xp.argmin(abs(xp.diagonal(_eliminate(xp, a)[0]))))) + 1


def _guarded(A, info, compute, trailing=2):
    """``compute(A)``, with every matrix whose ``info`` is not 0 replaced by the identity first and its result by
    NaN after (PyTorch leaves LAPACK's partial work there; either way the value is no answer). ``trailing``: the
    result's dims past the batch (2 for a matrix, 1 for a vector)."""
    bad = info != 0
    if not bool(bad.any()):
        return compute(A)
    eye = _constant(xp_of(A._data).eye(A.shape[-1], dtype=A.dtype), A)
    flags = _constant(bad, A)
    out = compute(where(flags[..., None, None], eye, A))
    return where(flags.reshape(*bad.shape, *(1,) * trailing), float("nan"), out)


def inv_ex(A, *, check_errors=False):
    """``(inverse, info)``: ``inv(A)`` where info is 0; NaN for a singular matrix, whose info is the step (from 1)
    of LU's first zero pivot (``check_errors=True``: raise then)."""
    _square("inv_ex", A)
    info = _info(A, lambda xp, a: _linalg(xp, "inv", a), _lu_info, _smallest_pivot)
    if check_errors:
        _failures("inv_ex", info, lambda j: f"The diagonal element {j} is zero, the inversion could not be "
                                            f"completed because the input matrix is singular")
    return InvExResult(_guarded(A, info, inv), _constant(info, A))


def solve_ex(A, B, *, left=True, check_errors=False):
    """``(result, info)``: ``solve(A, B, left=left)`` where info is 0 (as :func:`inv_ex`'s), NaN elsewhere."""
    _square("solve_ex", A)
    info = _info(A, lambda xp, a: _linalg(xp, "inv", a), _lu_info, _smallest_pivot)
    if check_errors:
        _failures("solve_ex", info, lambda j: f"The solver failed because the input matrix is singular (U[{j},{j}] "
                                              f"is zero)")
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    result = _guarded(A, info, lambda a: solve(a, B, left=left), 1 if vector else 2)
    return SolveExResult(result, _constant(info, A))


def _cholesky_info(xp, a, upper):
    """Per matrix, the order (from 1) of the first leading minor that is not positive-definite, else 0: the
    step of an unblocked Cholesky factorization whose a_jj - sum_k |l_jk|^2 is not > 0 (LAPACK's info)."""
    n = a.shape[-1]
    lower = (_h(a) if upper else a).reshape((math.prod(a.shape[:-2]), n, n))
    factor = xp.zeros_like(lower)
    info = xp.zeros((lower.shape[0],), numpy.int32)
    for j in range(n):
        row = factor[:, j, :j]
        d = (lower[:, j, j] - (row * row.conj()).sum(-1)).real
        failed = ~(d > 0)   # (NaN fails too)
        info = xp.where((info == 0) & failed, j + 1, info)
        root = xp.sqrt(xp.where(failed, 1.0, d))
        factor[:, j, j] = root
        below = lower[:, j + 1:, j] - (factor[:, j + 1:, :j] * row.conj()[:, None, :]).sum(-1)
        factor[:, j + 1:, j] = below / root[:, None]
    return info.reshape(a.shape[:-2])


def cholesky_ex(A, *, upper=False, check_errors=False):
    """``(L, info)``: ``cholesky(A, upper=upper)`` where info is 0, NaN elsewhere; info is the order (from 1) of
    the first leading minor that is not positive-definite (``check_errors=True``: raise then)."""
    _square("cholesky_ex", A)
    routine = (lambda xp, a: _linalg(xp, "cholesky", _h(a))) if upper else (lambda xp, a: _linalg(xp, "cholesky", a))
    info = _info(A, routine, lambda xp, a: _cholesky_info(xp, a, bool(upper)))
    if check_errors:
        _failures("cholesky_ex", info, lambda j: f"The factorization could not be completed because the input is "
                                                 f"not positive-definite (the leading minor of order {j} is not "
                                                 f"positive-definite)")
    return CholeskyExResult(_guarded(A, info, lambda a: cholesky(a, upper=upper)), _constant(info, A))
