"""Matrix functions, as ``torch.linalg`` has them: inverse, determinant, the matrix exponential, solve, the
Cholesky, symmetric-eigen, singular value and QR decompositions.

Each forward is the array library's ``linalg`` routine on the last two dims (batches of matrices work);
each VJP is the textbook formula written with ``@``, ``.mT`` and these same functions, which take arrays
and Tensors alike, so a VJP recorded under ``create_graph=True`` differentiates again.
"""
from __future__ import annotations

from collections import namedtuple

import math
import numbers

import numpy

from ..backend import xp_of
from ..grad_mode import is_grad_enabled
from ..tensor import Tensor
from .registry import apply, apply_unary, defop, expect_tensor, on_arrays
from .shape import TRIU, cat

SlogdetResult = namedtuple("slogdet", ["sign", "logabsdet"])
EighResult = namedtuple("eigh", ["eigenvalues", "eigenvectors"])
SvdResult = namedtuple("svd", ["U", "S", "Vh"])
QrResult = namedtuple("qr", ["Q", "R"])
LstsqResult = namedtuple("lstsq", ["solution", "residuals", "rank", "singular_values"])


class LinAlgError(RuntimeError):
    """A matrix that a routine cannot take: singular for ``inv``/``solve``, not positive-definite for
    ``cholesky``, no convergence for ``svd``/``eigh`` (PyTorch's ``torch.linalg.LinAlgError``, a RuntimeError
    too)."""


def _call(op, *args, **params):
    """The op on Tensors (recorded), or its forward on arrays (inside a VJP on arrays)."""
    if isinstance(args[0], Tensor):
        return apply(op, args, params or None) if len(args) > 1 or params else apply_unary(op, args[0])
    return on_arrays(op, args, params or None)


def _linalg(xp, name, a, *rest, **options):
    """``xp.linalg.<name>``, with NumPy's LinAlgError said as PyTorch says it (a RuntimeError); CuPy
    raises none (a singular matrix gives infinities or NaN there)."""
    try:
        return getattr(xp.linalg, name)(a, *rest, **options)
    except numpy.linalg.LinAlgError as exc:
        what = {"cholesky": "the input is not positive-definite (a symmetric matrix with every eigenvalue > 0)",
                "svd": "the algorithm did not converge (does the input hold infinities or NaN?)",
                "eigh": "the algorithm did not converge (does the input hold infinities or NaN?)",
                "eigvalsh": "the algorithm did not converge (does the input hold infinities or NaN?)",
                }.get(name, "the input matrix is singular (its determinant is 0)")
        raise LinAlgError(f"linalg.{name}: the computation could not be completed because {what}: {exc}. "
                           f"Check the matrix (e.g. its eigenvalues), or add a small multiple of the "
                           f"identity to it.") from None


_TAKE_COMPLEX = ("inv", "solve", "det", "matrix_exp")   # (their complex gradients: ops.complex_numbers)


def _matrices(name, A):
    expect_tensor(A, name)
    if A.ndim < 2:
        raise RuntimeError(f"linalg.{name}: The input tensor A must have at least 2 dimensions, got shape "
                           f"{tuple(A.shape)}")
    if A.dtype.kind != "f" and not (A.dtype.kind == "c" and name in _TAKE_COMPLEX):
        raise RuntimeError(f"linalg.{name}: Expected a floating point tensor as input. Got {A.dtype.name}: "
                           f"convert it first, e.g. A.double()"
                           + (" (complex matrices: only inv, solve, det and matrix_exp here)" if A.dtype.kind == "c"
                              else ""))
    if A.dtype.itemsize < 4:
        raise RuntimeError(f"linalg.{name}: Low precision dtypes not supported. Got {A.dtype.name}: convert it "
                           f"first, e.g. A.float()")


def _square(name, A):
    _matrices(name, A)
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.{name}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]}x{A.shape[-1]} (shape {tuple(A.shape)})")


def _per_matrix(g):
    """A gradient per matrix (shape ``(...)``) spread over its matrix (``(..., 1, 1)``)."""
    return g[..., None, None]


# -- inverse and determinant ---------------------------------------------------------------------

INV = defop("inv", ("self",), save=("result",), math="Y = A^-1;  dA = -Y^T g Y^T",
            forward=lambda xp, a: _linalg(xp, "inv", a),
            vjp=lambda g, ctx: (-(ctx.result.mT @ g @ ctx.result.mT),),
            formulas=("-Y^T g Y^T",))

def _with_nans(xp, a, routine):
    """``routine(a)`` per matrix, NaN where the matrix holds a NaN (LU may give 0 or -inf for it)."""
    with numpy.errstate(invalid="ignore"):
        value = routine(a)
    return xp.where(xp.isnan(a).any(axis=(-2, -1)), xp.nan, value)


def _cofactors(a):
    """The matrix of cofactors, adj(A)^T = det(A) A^-T, from the SVD A = U diag(s) Vh: det(U) det(Vh) U
    diag(prod of the other s) Vh, finite at a singular A too (on arrays: a VJP's first order)."""
    xp = xp_of(a)
    u, s, vh = xp.linalg.svd(a)
    ones = xp.ones(s.shape[:-1] + (1,), dtype=s.dtype)
    before = xp.cumprod(xp.concatenate([ones, s[..., :-1]], -1), -1)                      # s_0 ... s_(i-1)
    after = xp.flip(xp.cumprod(xp.concatenate([ones, xp.flip(s, -1)[..., :-1]], -1), -1), -1)   # s_(i+1) ...
    sign = xp.linalg.det(u) * xp.linalg.det(vh)
    if a.dtype.kind == "c":   # (A^-T = conj(U) diag(1/s) conj(Vh) for complex A = U diag(s) Vh)
        u, vh = u.conj(), vh.conj()
    return sign[..., None, None] * ((u * (before * after)[..., None, :]) @ vh)


def _det_vjp(g, ctx):
    """dA = g adj(A)^T = g det(A) A^-T (recorded: with the inverse, for an invertible A)."""
    if isinstance(g, Tensor):
        return (_per_matrix(g * ctx.result) * _call(INV, ctx.self).mT,)
    return (_per_matrix(g) * _cofactors(ctx.self),)


DET = defop("det", ("self",), save=("self", "result"), math="d = det A;  dA = g adj(A)^T = g d A^-T",
            forward=lambda xp, a: _with_nans(xp, a, xp.linalg.det), vjp=_det_vjp,
            formulas=("adj(A)^T",))

LOGABSDET = defop("logabsdet", ("self",), save=("self",), math="log|det A|;  dA = g A^-T",
                  forward=lambda xp, a: _with_nans(xp, a, lambda m: xp.linalg.slogdet(m)[1]),
                  vjp=lambda g, ctx: (_per_matrix(g) * _call(INV, ctx.self).mT,),
                  formulas=("A^-T",))


def inv(A):
    """The inverse of each square matrix: ``inv(A) @ A = I``. A singular matrix raises on the CPU."""
    _square("inv", A)
    return apply_unary(INV, A)


def det(A):
    """The determinant of each square matrix; its gradient is ``det(A) * inv(A)^T`` (A must be invertible
    for the gradient; PyTorch also handles a singular A there)."""
    _square("det", A)
    return apply_unary(DET, A)


def slogdet(A):
    """``(sign, logabsdet)``: det A = sign * exp(logabsdet), without overflow for large matrices. Only
    ``logabsdet`` has a gradient, ``inv(A)^T``."""
    _square("slogdet", A)
    with numpy.errstate(invalid="ignore"):
        sign = Tensor._make(xp_of(A._data).linalg.slogdet(A._data)[0], False, None, A.device)
    return SlogdetResult(sign, apply_unary(LOGABSDET, A))


def logdet(A):
    """``log(det A)``: NaN where the determinant is negative, -inf where it is 0 (as in PyTorch)."""
    from .elementwise import where
    sign, logabsdet = slogdet(A)
    return where(sign < 0, float("nan"), logabsdet)   # (PyTorch's: no gradient where the determinant is < 0)


def _expm(xp, a):
    """exp(A) = sum_k A^k / k!, by scaling and squaring: exp(A) = exp(A / 2^s)^(2^s), with s making the
    1-norm of A / 2^s at most 1/2, where 18 terms of the series leave an error below 1e-22. Computed in
    float64 or complex128 (float32 squared s times would lose digits), rounded once to A's dtype."""
    if a.size == 0:
        return a.copy()
    bad = ~xp.isfinite(a).all(axis=(-2, -1))   # (a matrix holding inf or NaN: NaN, the others as usual)
    a64 = xp.where(bad[..., None, None], 0.0, a.astype(numpy.complex128 if a.dtype.kind == "c" else numpy.float64))
    norm = float(xp.abs(a64).sum(axis=-2).max())   # (the largest 1-norm in the batch)
    s = max(0, math.ceil(math.log2(norm / 0.5))) if norm > 0.5 else 0
    x = a64 / 2.0 ** s
    term = result = xp.broadcast_to(xp.eye(a.shape[-1]), a.shape)
    for k in range(1, 19):
        term = (term @ x) / k
        result = result + term
    for _ in range(s):
        result = result @ result
    return xp.where(bad[..., None, None], xp.nan, result).astype(a.dtype, copy=False)


def _matrix_exp_vjp(g, ctx):
    """dA = L(A^T, g), the Frechet derivative of exp at A^T in the direction g: the top-right block of
    exp([[A^T, g], [0, A^T]]) (g scaled to at most 1 first: L is linear in g)."""
    at, n = ctx.self.mT, ctx.self.shape[-1]
    scale = float(abs(g).max()) if g.size else 0.0   # (a host number: the scaling is no part of the graph)
    if not scale or not math.isfinite(scale):
        scale = 1.0
    g = g / scale
    if isinstance(g, Tensor):
        block = cat([cat([at, g], -1), cat([g * 0, at], -1)], -2)
    else:
        xp = xp_of(g)
        block = xp.concatenate([xp.concatenate([at, g], -1), xp.concatenate([xp.zeros_like(g), at], -1)], -2)
    return (_call(MATRIX_EXP, block)[..., :n, n:] * scale,)


MATRIX_EXP = defop("matrix_exp", ("self",), save=("self",), math="exp(A) = sum_k A^k / k!;  dA = L_exp(A^T, g)",
                   forward=_expm, vjp=_matrix_exp_vjp, formulas=("L_exp(A^T, .)",))


def matrix_exp(A):
    """The exponential of each square matrix, ``I + A + A^2/2! + ...`` (``exp(t A) x0`` solves x' = A x);
    for a skew-symmetric A it is a rotation (an orthogonal matrix)."""
    _square("matrix_exp", A)
    return apply_unary(MATRIX_EXP, A)


def matrix_power(A, n):
    """``A @ A @ ... @ A`` (``n`` factors, by repeated squaring); ``n = 0`` the identity, ``n < 0`` powers of
    ``inv(A)``."""
    expect_tensor(A, "matrix_power")
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but it has shape "
                           f"{tuple(A.shape)}")
    if not isinstance(n, numbers.Integral) or isinstance(n, (bool, numpy.bool_)):
        raise TypeError(f"linalg.matrix_power: n must be an int, got {type(n).__name__}")
    n = int(n)
    if n == 0:
        from ..creation import eye
        return eye(A.shape[-1], dtype=A.dtype, device=A.device).expand(tuple(A.shape)).clone()
    base, n = (inv(A), -n) if n < 0 else (A, n)
    result = None
    while n:
        if n & 1:
            result = base if result is None else result @ base
        n >>= 1
        if n:
            base = base @ base
    return result if result is not A else A.clone()   # (a new tensor, as PyTorch's, even for n = 1)


# -- solve -------------------------------------------------------------------------------------------

def _solve_forward(xp, a, b, vector=False):
    if vector:   # (b is one right-hand side per matrix: solved as a column)
        return _linalg(xp, "solve", a, b[..., None])[..., 0]
    return _linalg(xp, "solve", a, b)


def _solve_vjp(g, ctx):
    """X = A^-1 B:  dB = A^-T g,  dA = -dB X^T (an outer product for a vector B)."""
    vector = ctx.vector
    gb = _call(SOLVE, ctx.self.mT, g, vector=vector)
    ga = None
    if ctx.needs_input_grad[0]:
        x = ctx.result
        ga = -(gb[..., :, None] * x[..., None, :]) if vector else -(gb @ x.mT)
    return ga, gb if ctx.needs_input_grad[1] else None


SOLVE = defop("solve", ("self", "other"), save=("self", "result"), math="X = A^-1 B;  dB = A^-T g, dA = -dB X^T",
              forward=_solve_forward, vjp=_solve_vjp, formulas=("-(A^-T g) X^T", "A^-T g"))


def solve(A, B, *, left=True):
    """The ``X`` with ``A @ X = B`` (``left=False``: ``X @ A = B``), without forming ``inv(A)``. ``B`` is one
    vector per matrix when it is 1-D or has ``A``'s shape without its last dim (PyTorch's rule); batch dims
    broadcast."""
    _square("solve", A)
    expect_tensor(B, "solve")
    if B.dtype != A.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{A.dtype.name} and B of type {B.dtype.name} instead")
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    if B.ndim == 0 or (vector and not left):
        raise RuntimeError(f"linalg.solve: {'B must have at least 2 dimensions' if left else 'Vector case is not supported when left=False'}"
                           f" (B has shape {tuple(B.shape)})")
    size = B.shape[-1] if vector else (B.shape[-2] if left else B.shape[-1])
    if size != A.shape[-1]:
        equation, b_shape = ("AX = B", B.shape[-1:] if vector else B.shape[-2:]) if left else ("XA = B", B.shape[-2:])
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation {equation} "
                           f"({'x'.join(map(str, A.shape[-2:]))} and {'x'.join(map(str, b_shape))})")
    if not left:   # X A = B  <=>  A^T X^T = B^T
        return apply(SOLVE, (A.mT, B.mT), {"vector": False}).mT
    return apply(SOLVE, (A, B), {"vector": vector})


# -- Cholesky ----------------------------------------------------------------------------------------

def _cholesky_vjp(g, ctx):
    """A = L L^T:  dA = sym(L^-T phi(L^T g) L^-1), phi: the lower triangle with its diagonal halved."""
    lower = ctx.result
    n = lower.shape[-1]
    half_lower = _constant_like(numpy.tril(numpy.ones((n, n))) - 0.5 * numpy.eye(n), lower)   # phi as a mask
    inv_lower = _call(INV, lower)
    s = inv_lower.mT @ ((lower.mT @ g) * half_lower) @ inv_lower
    return (0.5 * (s + s.mT),)


CHOLESKY = defop("cholesky", ("self",), save=("result",), math="A = L L^T;  dA = sym(L^-T phi(L^T g) L^-1)",
                 forward=lambda xp, a: _linalg(xp, "cholesky", a), vjp=_cholesky_vjp,
                 formulas=("sym(L^-T phi(L^T g) L^-1)",))


def cholesky(A, upper=False):
    """The lower triangular ``L`` with ``L @ L^T = A`` for a symmetric positive-definite ``A`` (only its lower
    triangle is read); ``upper=True`` gives the upper ``U`` with ``U^T @ U = A``, from ``A``'s upper triangle.
    A matrix that is not positive-definite raises on the CPU."""
    _square("cholesky", A)
    return apply_unary(CHOLESKY, A.mT).mT if upper else apply_unary(CHOLESKY, A)


# -- the eigen-decomposition of a symmetric matrix -----------------------------------------------------
# (LAPACK reads one triangle, UPLO; the gradients are PyTorch's: a symmetric dA over the whole matrix)

def _eigvalsh_vjp(g, ctx):
    """dA = V diag(g) V^T."""
    v = _call(EIGENVECTORS, ctx.self, UPLO=ctx.UPLO)
    return ((v * g[..., None, :]) @ v.mT,)


def _eigenvectors_vjp(g, ctx):
    """dA = V K V^T, K = skew(V^T g) / (w_j - w_i) off the diagonal (PyTorch's formula); equal eigenvalues
    make it infinite, as there."""
    v = ctx.result
    w = _call(EIGVALSH, ctx.self, UPLO=ctx.UPLO)
    gap = w[..., None, :] - w[..., :, None] + _constant_like(numpy.eye(v.shape[-1]), w)   # 1 on the diagonal
    m = v.mT @ g
    return (v @ ((0.5 * (m - m.mT)) / gap) @ v.mT,)


EIGVALSH = defop("eigvalsh", ("self",), save=("self",), math="w = eigenvalues of A;  dA = V diag(g) V^T",
                 forward=lambda xp, a, UPLO="L": _linalg(xp, "eigvalsh", a, UPLO=UPLO), vjp=_eigvalsh_vjp,
                 formulas=("V diag(g) V^T",))

EIGENVECTORS = defop("eigenvectors", ("self",), save=("self", "result"),
                     math="V = eigenvectors of A;  dA = V (skew(V^T g) / (w_j - w_i)) V^T",
                     forward=lambda xp, a, UPLO="L": _linalg(xp, "eigh", a, UPLO=UPLO)[1], vjp=_eigenvectors_vjp,
                     formulas=("V (skew(V^T g) / (w_j - w_i)) V^T",))


def _uplo(name, UPLO):
    if not isinstance(UPLO, str) or UPLO.upper() not in ("L", "U"):
        raise RuntimeError(f"linalg.{name}: UPLO must be 'L' (the lower triangle is read) or 'U' (the upper), "
                           f"got {UPLO!r}")
    return UPLO.upper()


def eigvalsh(A, UPLO="L"):
    """The eigenvalues of each symmetric matrix, ascending; only the triangle ``UPLO`` is read."""
    _square("eigvalsh", A)
    return apply(EIGVALSH, (A,), {"UPLO": _uplo("eigvalsh", UPLO)})


def eigh(A, UPLO="L"):
    """``(eigenvalues, eigenvectors)`` of each symmetric matrix: ``A = V diag(w) V^T``, ``w`` ascending, the
    columns of ``V`` orthonormal, each only up to its sign (so a loss that depends on those signs has no
    meaningful gradient); only the triangle ``UPLO`` is read."""
    _square("eigh", A)
    uplo = {"UPLO": _uplo("eigh", UPLO)}
    return EighResult(apply(EIGVALSH, (A,), uplo), apply(EIGENVECTORS, (A,), uplo))


# -- the singular value decomposition ----------------------------------------------------------------
# A = U diag(S) Vh with k = min(m, n) singular values (the reduced form). Three ops, one per factor, each
# computing the decomposition: the gradient of a loss of several factors is the sum of theirs (PyTorch's
# formula is linear in gU, gS and gVh), and a loss of the values alone needs no singular vectors' gradient.

def _svd_values(xp, a):
    return _linalg(xp, "svd", a, compute_uv=False)


def _svd_vectors(part):
    def forward(xp, a, full=False):
        return _linalg(xp, "svd", a, full_matrices=full)[part]
    return forward


def _svdvals_vjp(g, ctx):
    """dA = U diag(g) Vh."""
    u, vh = _call(SVD_U, ctx.self, full=False), _call(SVD_VH, ctx.self, full=False)
    return ((u * g[..., None, :]) @ vh,)


def _svd_vectors_vjp(g, ctx, left):
    """PyTorch's formula (svd_backward) for gU alone (``left``) or gVh alone: with E_jk = S_k^2 - S_j^2 and
    X - X^T (twice X's antisymmetric part) of X = U^T gU or Vh gVh^T, K = (X - X^T) S / E or S (X - X^T) / E;
    then dA = U K Vh, plus, for a tall (wide) A, the part of gU (gVh) outside the span of U (V). Equal
    singular values make it infinite, as there."""
    a = ctx.self
    m, n = a.shape[-2], a.shape[-1]
    k = min(m, n)
    s = _call(SVDVALS, a)
    if left:
        u, vh = ctx.result, _call(SVD_VH, a, full=False)
        if ctx.full and m != n:   # (U's columns past the k-th are any basis of the rest: no gradient)
            u, g = u[..., :, :k], g[..., :, :k]
    else:
        u, vh = _call(SVD_U, a, full=False), ctx.result
        if ctx.full and m != n:   # (Vh's rows past the k-th, likewise)
            vh, g = vh[..., :k, :], g[..., :k, :]
    s2 = s * s
    gap = s2[..., None, :] - s2[..., :, None] + _constant_like(numpy.eye(k), s)   # E, with 1 on the diagonal
    if left:
        x = u.mT @ g
        ga = u @ ((x - x.mT) / gap * s[..., None, :]) @ vh
        if m > n:   # the part of gU outside U's columns: (I - U U^T) gU S^-1 Vh
            g_over_s = g / s[..., None, :]
            ga = ga + (g_over_s - u @ (u.mT @ g_over_s)) @ vh
    else:
        x = vh @ g.mT
        ga = u @ (s[..., :, None] * (x - x.mT) / gap) @ vh
        if m < n:   # U S^-1 gVh (I - V Vh)
            s_inv_g = g / s[..., :, None]
            ga = ga + u @ (s_inv_g - (s_inv_g @ vh.mT) @ vh)
    return (ga,)


SVDVALS = defop("svdvals", ("self",), save=("self",), math="S = singular values of A;  dA = U diag(g) Vh",
                forward=_svd_values, vjp=_svdvals_vjp, formulas=("U diag(g) Vh",))

SVD_U = defop("svd_u", ("self",), save=("self", "result"), math="U of A = U diag(S) Vh;  dA = U ((X - X^T) S / E) Vh + ..., X = U^T g",
              forward=_svd_vectors(0), vjp=lambda g, ctx: _svd_vectors_vjp(g, ctx, True),
              formulas=("U ((X - X^T) S / E) Vh + (I - U U^T) g S^-1 Vh, X = U^T g",))

SVD_VH = defop("svd_vh", ("self",), save=("self", "result"), math="Vh of A = U diag(S) Vh;  dA = U (S (X - X^T) / E) Vh + ..., X = Vh g^T",
               forward=_svd_vectors(2), vjp=lambda g, ctx: _svd_vectors_vjp(g, ctx, False),
               formulas=("U (S (X - X^T) / E) Vh + U S^-1 g (I - V Vh), X = Vh g^T",))


def svdvals(A):
    """The singular values of each matrix, descending (k = min(m, n) of them)."""
    _matrices("svdvals", A)
    return apply_unary(SVDVALS, A)


def svd(A, full_matrices=True):
    """``(U, S, Vh)`` with ``A = U diag(S) Vh``; ``full_matrices=False`` gives the reduced form (U m x k, Vh
    k x n, k = min(m, n)), else U is m x m and Vh n x n, their vectors past the k-th getting no gradient
    (any basis of the rest would do). Each pair of singular vectors only up to a common sign, so a loss that
    depends on the signs has no meaningful gradient; equal singular values make the vectors' gradient
    infinite (as in PyTorch)."""
    _matrices("svd", A)
    full = {"full": bool(full_matrices)}
    return SvdResult(apply(SVD_U, (A,), full), apply_unary(SVDVALS, A), apply(SVD_VH, (A,), full))


# -- the QR decomposition ------------------------------------------------------------------------------
# A = Q R, Q with orthonormal columns, R upper triangular (k = min(m, n) of each). One op per factor, as svd.

def _qr_vjp(g, ctx, part):
    """PyTorch's formula (linalg_qr_backward) for gQ alone or gR alone. For m >= n: M = gR R^T - Q^T gQ,
    dA = (Q sym(triu(M)) + gQ) R^-T, sym keeping the diagonal once. For m < n, A = [X | Y] with X = Q U
    square: dY = Q gR_Y, and X's gradient is the square case's with gQ + Y gR_Y^T."""
    a = ctx.self
    q, r = (ctx.result, _call(QR_R, a)) if part == 0 else (_call(QR_Q, a), ctx.result)
    m, n = a.shape[-2], a.shape[-1]
    g_q, g_r = (g, None) if part == 0 else (None, g)
    if m < n:
        y, r = a[..., :, m:], r[..., :, :m]
        if g_r is not None:
            g_y = q @ g_r[..., :, m:]
            g_q, g_r = y @ g_r[..., :, m:].mT, g_r[..., :, :m]
        else:
            g_y = _constant_like(numpy.zeros(tuple(y.shape)), y)   # (Q does not depend on Y)
    if g_q is None:         # M = gR R^T - Q^T gQ, with the missing one 0
        inner = g_r @ r.mT
    elif g_r is None:
        inner = -(q.mT @ g_q)
    else:
        inner = g_r @ r.mT - q.mT @ g_q
    upper = _call(TRIU, inner, diagonal=0)
    diagonal = _call(TRIU, upper.mT, diagonal=0)       # (upper's diagonal alone: the lower part of upper^T is 0)
    sym = upper + upper.mT - diagonal                  # the symmetric matrix with upper's triangle, diagonal once
    ga = q @ sym if g_q is None else q @ sym + g_q
    ga = ga @ _call(INV, r).mT
    if m < n:
        ga = cat([ga, g_y], -1) if isinstance(ga, Tensor) else xp_of(ga).concatenate([ga, g_y], -1)
    return (ga,)


QR_Q = defop("qr_q", ("self",), save=("self", "result"), math="Q of A = Q R;  dA = (Q sym(triu(-Q^T g)) + g) R^-T",
             forward=lambda xp, a: xp.linalg.qr(a)[0], vjp=lambda g, ctx: _qr_vjp(g, ctx, 0),
             formulas=("(Q sym(triu(-Q^T g)) + g) R^-T",))
QR_R = defop("qr_r", ("self",), save=("self", "result"), math="R of A = Q R;  dA = Q sym(triu(g R^T)) R^-T",
             forward=lambda xp, a: xp.linalg.qr(a)[1], vjp=lambda g, ctx: _qr_vjp(g, ctx, 1),
             formulas=("Q sym(triu(g R^T)) R^-T",))


def qr(A, mode="reduced"):
    """``(Q, R)`` with ``A = Q R``: Q's k = min(m, n) columns orthonormal, R upper triangular (k x n), as
    LAPACK signs them (PyTorch's too). ``mode='complete'`` gives the m x m Q (not differentiable for a tall A,
    as in PyTorch); ``mode='r'``
    gives R alone (Q empty), without a gradient, as in PyTorch."""
    _matrices("qr", A)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
                           f"'r', or 'complete'")
    m, n = A.shape[-2], A.shape[-1]
    if mode == "complete" and m > n:   # (Q's columns past the n-th: any basis of the rest, so no gradient)
        if A.requires_grad and is_grad_enabled():
            raise NotImplementedError("linalg.qr: mode='complete' with more rows than columns is not "
                                      "differentiable (as in PyTorch): use mode='reduced', or detach A")
        q, r = xp_of(A._data).linalg.qr(A._data, mode="complete")
        return QrResult(Tensor._make(q, False, None, A.device), Tensor._make(r, False, None, A.device))
    if mode == "r":
        r = Tensor._make(xp_of(A._data).linalg.qr(A._data)[1], False, None, A.device)
        return QrResult(Tensor._make(xp_of(A._data).zeros((0,), A.dtype), False, None, A.device), r)
    return QrResult(apply_unary(QR_Q, A), apply_unary(QR_R, A))


# -- least squares ---------------------------------------------------------------------------------------

def lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares solution of ``A X = B``: the ``X`` that minimises ||A X - B||, and among those the
    smallest. For an ``A`` of full rank it is built from ``qr`` and ``solve`` (tall: R X = Q^T B; wide: A^T = Q R
    and X = Q R^-T B); for a rank-deficient one from ``pinv`` (rank from the singular values above ``rcond``
    times the largest), so its gradient is theirs. The other fields as PyTorch's CPU drivers give them: 'gelsy'
    (the default) ``rank``; 'gelsd' and 'gelss' also ``residuals`` (||A X - B||^2 per column, for a tall A of
    full rank) and ``singular_values``; 'gels' ``residuals`` alone."""
    _matrices("lstsq", A)
    expect_tensor(B, "lstsq")
    if B.dtype != A.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
                           f"input's dtype {A.dtype.name} and other's dtype {B.dtype.name}")
    if driver not in (None, "gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(f"torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, "
                           f"gelss), got {driver!r}")
    m, n = A.shape[-2], A.shape[-1]
    vector = B.ndim == A.ndim - 1      # (B a vector per matrix: solved as one column, as in PyTorch)
    rhs = B.unsqueeze(-1) if vector else B
    if rhs.shape[-2] != m:
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match other.size(-2), got {m} and "
                           f"{rhs.shape[-2]}")
    xp = xp_of(A._data)
    values = xp.linalg.svd(A._data, compute_uv=False)
    cut = float(numpy.finfo(A.dtype).eps) * max(m, n) if rcond is None else float(rcond)
    ranks = (values > cut * values[..., :1]).sum(-1).astype(numpy.int64)
    full = bool((ranks == min(m, n)).all())
    if not full:     # (the smallest of the minimisers, as gelsy and gelsd give it)
        x = pinv(A, rtol=cut) @ rhs
    elif m >= n:
        q, r = qr(A)
        x = solve(r, q.mT @ rhs)
    else:
        q, r = qr(A.mT)
        x = q @ solve(r.mT, rhs)

    def constant(array):
        return Tensor._make(array, False, None, A.device)
    empty = constant(xp.zeros((0,), A.dtype))
    residuals = empty
    if driver in ("gels", "gelsd", "gelss") and m > n and full:
        residuals = ((A @ x - rhs) ** 2).sum(-2)
    rank = constant(xp.zeros((0,), numpy.int64)) if driver == "gels" else constant(ranks)
    singular = constant(values) if driver in ("gelsd", "gelss") else empty
    return LstsqResult(x[..., 0] if vector else x, residuals, rank, singular)


# -- pseudo-inverse and rank ----------------------------------------------------------------------------

def _tolerance(xp, values, shape, dtype, atol, rtol):
    """PyTorch's cut-off for singular values (or |eigenvalues|) ``values``: max(atol, rtol * the largest), with
    rtol = eps * max(m, n) where it is not given, unless atol > 0 is (then 0). ``atol`` and ``rtol`` are numbers
    or arrays, one per matrix (broadcast against the batch)."""
    atol = 0.0 if atol is None else (atol[..., None] if hasattr(atol, "ndim") else atol)
    if rtol is None:
        rtol = xp.where(xp.asarray(atol) > 0, 0.0, float(numpy.finfo(dtype).eps) * max(shape[-2:]))
    elif hasattr(rtol, "ndim"):
        rtol = rtol[..., None]
    largest = values.max(axis=-1, keepdims=True) if values.shape[-1] else xp.zeros(values.shape[:-1] + (1,), dtype)
    return xp.maximum(atol, rtol * largest)


def _tolerances(name, A, atol, rtol, hermitian):
    """Tolerances given as Tensors become arrays of A's dtype; ``hermitian`` needs square matrices."""
    if hermitian and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.{name}(hermitian=True): A must be batches of square (symmetric) matrices, but "
                           f"they are {A.shape[-2]} by {A.shape[-1]} matrices; leave hermitian=False for others")
    return tuple(t.detach()._data.astype(A.dtype) if isinstance(t, Tensor) else t for t in (atol, rtol))


def _spectrum(xp, a, hermitian):
    """``(values, left, right)`` with A = left diag(values) right: the SVD, or for a symmetric A the eigen
    decomposition A = Q diag(w) Q^T (``values`` then |w|, largest first, and right = diag(sign w) Q^T)."""
    if not hermitian:
        u, s, vh = _linalg(xp, "svd", a, full_matrices=False)
        return s, u, vh
    w, q = _linalg(xp, "eigh", a)
    return xp.abs(w), q, xp.swapaxes(q, -1, -2) * xp.sign(w)[..., :, None]


def _pinv_forward(xp, a, atol, rtol, hermitian):
    values, left, right = _spectrum(xp, a, hermitian)
    keep = values > _tolerance(xp, values, a.shape, a.dtype, atol, rtol)
    inverted = xp.where(keep, 1 / xp.where(keep, values, 1), 0)
    return (xp.swapaxes(right, -1, -2) * inverted[..., None, :]) @ xp.swapaxes(left, -1, -2)


def _pinv_vjp(g, ctx):
    # dP = -P dA P + P P^T dA^T (I - A P) + (I - P A) dA^T P^T P, read as <g, dP> = <dA, .>
    A, P = ctx.self, ctx.result
    Pt, gt = P.mT, g.mT
    return (-(Pt @ g @ Pt) + (gt - A @ (P @ gt)) @ (P @ Pt) + (Pt @ P) @ (gt - (gt @ P) @ A),)


PINV = defop("pinv", ("self",), save=("self", "result"), math="P = A^+ (from the SVD);  dA = -P^T g P^T + "
             "(I - A P) g^T P P^T + P^T P g^T (I - P A)",
             forward=_pinv_forward, vjp=_pinv_vjp, formulas=("-P^T g P^T + (I - A P) g^T P P^T + P^T P g^T (I - P A)",))


def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None):
    """The Moore-Penrose pseudo-inverse of each matrix, from its SVD with the singular values below
    ``max(atol, rtol * largest)`` taken as 0 (default rtol: eps * max(m, n); numbers, or tensors with one value
    per matrix; PyTorch's older ``rcond`` is ``rtol``); ``hermitian=True`` reads a symmetric A through its
    eigenvalues. Its gradient (Golub and Pereyra's) holds where the rank does not change."""
    _matrices("pinv", A)
    if rcond is not None:
        atol, rtol = 0.0, rcond
    atol, rtol = _tolerances("pinv", A, atol, rtol, hermitian)
    return apply(PINV, (A,), {"atol": atol, "rtol": rtol, "hermitian": bool(hermitian)})


def pinverse(input, rcond=1e-15):
    """PyTorch's older name: ``pinv(input, rtol=rcond)``."""
    return pinv(input, rtol=rcond)


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None):
    """The number of singular values (|eigenvalues| with ``hermitian``) above ``max(atol, rtol * largest)``
    (default rtol: eps * max(m, n); PyTorch's older ``tol`` is ``atol`` alone), per matrix (int64, no gradient)."""
    _matrices("matrix_rank", A)
    if tol is not None:
        atol, rtol = tol, 0.0
    atol, rtol = _tolerances("matrix_rank", A, atol, rtol, hermitian)
    xp = xp_of(A._data)
    if hermitian:
        values = xp.abs(_linalg(xp, "eigvalsh", A._data))
    else:
        values = _linalg(xp, "svd", A._data, compute_uv=False)
    rank = (values > _tolerance(xp, values, A.shape, A.dtype, atol, rtol)).sum(-1).astype(numpy.int64)
    return Tensor._make(rank, False, None, A.device)


def _constant_like(host, like):
    """A host array as a constant of ``like``'s kind (array or Tensor), dtype and device."""
    if isinstance(like, Tensor):
        return Tensor._make(xp_of(like._data).asarray(host.astype(like.dtype)), False, None, like.device)
    return xp_of(like).asarray(host.astype(like.dtype))
