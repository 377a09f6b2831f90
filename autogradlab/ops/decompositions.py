"""Matrix functions, as ``torch.linalg`` has them: inverse, determinant, the matrix exponential, solve, the
Cholesky, Hermitian (real: symmetric) and general eigen-, singular value and QR decompositions.

Each forward is the array library's ``linalg`` routine on the last two dims (batches of matrices work);
each VJP is the textbook formula written with ``@``, ``_h`` (the conjugate transpose ``A^H``: for real
matrices ``A^T``) and these same functions, which take arrays and Tensors alike, so a VJP recorded under
``create_graph=True`` differentiates again. Complex matrices: the formulas are PyTorch's, which for a real
loss give ``dL/dRe A + i dL/dIm A``; the decompositions' complex factors are fixed only up to a phase per
vector, and a loss that depends on those phases has no gradient (the backward says so, as PyTorch's).
"""
from __future__ import annotations


import math
import numbers

import numpy

from ..backend import eig as _eig
from ..backend import to_host, xp_of
from ..grad_mode import is_grad_enabled
from ..tensor import Tensor
from ..return_types import return_type
from .linalg import left_out
from .registry import apply, apply_unary, defop, expect_tensor, on_arrays
from .shape import TRIU, cat, stack

SlogdetResult = return_type("slogdet", ["sign", "logabsdet"])
EighResult = return_type("linalg_eigh", ["eigenvalues", "eigenvectors"])
EigResult = return_type("linalg_eig", ["eigenvalues", "eigenvectors"])
SvdResult = return_type("linalg_svd", ["U", "S", "Vh"])
QrResult = return_type("linalg_qr", ["Q", "R"])
LstsqResult = return_type("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])


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
        what = {"cholesky": "the input is not positive-definite (a Hermitian, for real numbers symmetric, matrix with "
                             "every eigenvalue > 0)",
                "svd": "the algorithm did not converge (does the input hold infinities or NaN?)",
                "eigh": "the algorithm did not converge (does the input hold infinities or NaN?)",
                "eigvalsh": "the algorithm did not converge (does the input hold infinities or NaN?)",
                }.get(name, "the input matrix is singular (its determinant is 0)")
        raise LinAlgError(f"linalg.{name}: the computation could not be completed because {what}: {exc}. "
                           f"Check the matrix (e.g. its eigenvalues), or add a small multiple of the "
                           f"identity to it.") from None


def _matrices(name, A):
    expect_tensor(A, name)
    if A.ndim < 2:
        raise RuntimeError(f"linalg.{name}: The input tensor A must have at least 2 dimensions, got shape "
                           f"{tuple(A.shape)}")
    if A.dtype.kind not in "fc":
        raise RuntimeError(f"linalg.{name}: Expected a floating point or complex tensor as input. Got "
                           f"{A.dtype.name}: convert it first, e.g. A.double()")
    if A.dtype.itemsize < 4:
        raise RuntimeError(f"linalg.{name}: Low precision dtypes not supported. Got {A.dtype.name}: convert it "
                           f"first, e.g. A.float()")


def _square(name, A):
    _matrices(name, A)
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.{name}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]}x{A.shape[-1]} (shape {tuple(A.shape)})")


def _h(a):
    """``a^H``: each matrix's conjugate transpose (for real matrices, the transpose)."""
    return a.mT.conj() if a.dtype.kind == "c" else a.mT


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


def _cofactors_recorded(A):
    """adj(A)^T in recorded ops: entry (i, j) is (-1)^(i+j) det(A without row i and column j). Finite at a
    singular A too, and differentiable again (each minor's det records its own VJP): n^2 determinants, for
    the recorded backward (``create_graph=True``) of a singular or nearly singular A only."""
    n = A.shape[-1]
    if n == 1:
        return A * 0.0 + 1.0
    others = [[k for k in range(n) if k != i] for i in range(n)]
    rows = []
    for i in range(n):
        without_row = A[..., others[i], :]
        rows.append(stack([det(without_row[..., others[j]]) * float((-1) ** (i + j)) for j in range(n)], -1))
    return stack(rows, -2)


def _nearly_singular(a):
    """Whether any matrix of ``a`` is singular to working precision (smallest/largest singular value)."""
    s = numpy.linalg.svd(to_host(a).astype(numpy.complex128 if a.dtype.kind == "c" else numpy.float64),
                         compute_uv=False)
    return bool((s[..., -1] <= s[..., 0] * numpy.finfo(a.dtype).eps ** 0.5).any()) if s.size else False


def _det_vjp(g, ctx):
    """dA = g adj(A)^T = g det(A) A^-T. Recorded (``create_graph``): with the inverse for an invertible A, else
    with the cofactors as determinants of minors (PyTorch's second derivative exists at a singular A too)."""
    if isinstance(g, Tensor):
        A = ctx.self
        if A.dtype.kind != "c" and _nearly_singular(A._data):
            return (_per_matrix(g) * _cofactors_recorded(A),)
        return (_per_matrix(g * ctx.result) * _call(INV, A).mT,)
    return (_per_matrix(g) * _cofactors(ctx.self),)


DET = defop("det", ("self",), save=("self", "result"), math="d = det A;  dA = g adj(A)^T = g d A^-T",
            forward=lambda xp, a: _with_nans(xp, a, xp.linalg.det), vjp=_det_vjp,
            formulas=("adj(A)^T",))

LOGABSDET = defop("logabsdet", ("self",), save=("self",), math="log|det A|;  dA = g A^-H",
                  forward=lambda xp, a: _with_nans(xp, a, lambda m: xp.linalg.slogdet(m)[1]),
                  vjp=lambda g, ctx: (_per_matrix(g) * _h(_call(INV, ctx.self)),),
                  formulas=("A^-H",), complex_vjp="same")


def _det_sign_vjp(g, ctx):
    """sign = e^{i theta}, theta = Im log det A, d log det A = tr(A^-1 dA):  dA = i Im(g conj(sign)) A^-H."""
    sign = ctx.result
    return (_per_matrix((g * sign.conj()).imag * 1j) * _h(_call(INV, ctx.self)),)


DET_SIGN = defop("det_sign", ("self",), save=("self", "result"), complex_vjp="same",
                 math="sign = det A / |det A| (complex A);  dA = i Im(g conj(sign)) A^-H",
                 forward=lambda xp, a: _with_nans(xp, a, lambda m: xp.linalg.slogdet(m)[0]),
                 vjp=_det_sign_vjp, formulas=("i Im(. conj(sign)) A^-H",))


def inv(A):
    """The inverse of each square matrix: ``inv(A) @ A = I``. A singular matrix raises on the CPU."""
    _square("inv", A)
    return apply_unary(INV, A)


def det(A):
    """The determinant of each square matrix; its gradient is the cofactor matrix adj(A)^T (``det(A) *
    inv(A)^T`` for an invertible A), also at a singular A, to any order."""
    _square("det", A)
    return apply_unary(DET, A)


def slogdet(A):
    """``(sign, logabsdet)``: det A = sign * exp(logabsdet), without overflow for large matrices.
    ``logabsdet``'s gradient is ``inv(A)^H``; the sign has one for a complex A (a number on the unit circle),
    none for a real A (+-1, or 0)."""
    _square("slogdet", A)
    if A.dtype.kind == "c":
        return SlogdetResult(apply_unary(DET_SIGN, A), apply_unary(LOGABSDET, A))
    with numpy.errstate(invalid="ignore"):
        sign = Tensor._make(xp_of(A._data).linalg.slogdet(A._data)[0], False, None, A.device)
    return SlogdetResult(sign, apply_unary(LOGABSDET, A))


def logdet(A):
    """``log(det A)``: NaN where the determinant is negative, -inf where it is 0 (as in PyTorch); for a
    complex A the complex logarithm ``log(sign) + logabsdet``."""
    from .elementwise import log, where
    sign, logabsdet = slogdet(A)
    if A.dtype.kind == "c":
        return log(sign) + logabsdet
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
        # (the identity, recorded as depending on A with gradient 0, as PyTorch's: backward through it works)
        return eye(A.shape[-1], dtype=A.dtype, device=A.device) + left_out(A)
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

def _cholesky_forward(xp, a, upper=False):
    if upper:   # U = L^H, L the factor of the matrix whose upper triangle A holds
        return _h(_linalg(xp, "cholesky", _h(a)))
    return _linalg(xp, "cholesky", a)


def _cholesky_vjp(g, ctx):
    """A = L L^H:  dA = L^-H phi(L^H g) L^-1, phi(X) = (tril(X) + tril(X, -1)^H) / 2 (PyTorch's formula; for a
    real A the result is symmetric); for A = U^H U the same with L = U^H and g^H."""
    lower, g = (_h(ctx.result), _h(g)) if ctx.upper else (ctx.result, g)
    n = lower.shape[-1]
    x = _h(lower) @ g
    on_and_below, below = (_constant_like(numpy.tril(numpy.ones((n, n)), k), lower) for k in (0, -1))   # masks
    inv_lower = _call(INV, lower)
    return (_h(inv_lower) @ (0.5 * (x * on_and_below + _h(x * below))) @ inv_lower,)


CHOLESKY = defop("cholesky", ("self",), save=("result",), math="A = L L^H;  dA = L^-H phi(L^H g) L^-1",
                 forward=_cholesky_forward, vjp=_cholesky_vjp, complex_vjp="same",
                 formulas=("L^-H phi(L^H g) L^-1",))


def cholesky(A, upper=False):
    """The lower triangular ``L`` with ``L @ L^H = A`` for a Hermitian (real: symmetric) positive-definite ``A``
    (only its lower triangle is read); ``upper=True`` gives the upper ``U`` with ``U^H @ U = A``, from ``A``'s
    upper triangle. A matrix that is not positive-definite raises on the CPU."""
    _square("cholesky", A)
    return apply(CHOLESKY, (A,), {"upper": bool(upper)})


# -- the eigen-decomposition of a Hermitian (real: symmetric) matrix -------------------------------------
# (LAPACK reads one triangle, UPLO; the gradients are PyTorch's: a Hermitian dA over the whole matrix)

def _diagonal(x):
    """The diagonal of each matrix, as a vector."""
    return x.diagonal(0, -2, -1)


def _host(x):
    """A Tensor's or an array's values as they are (no graph): for checks."""
    return x._data if isinstance(x, Tensor) else x


def _phase_free(name, vectors, d, tolerance=1e-2):
    """PyTorch's check that a loss does not depend on the phases of complex ``vectors``: each is only fixed up to
    a factor e^(i phi), which changes the loss by phi Im d (d the diagonal of V^H g), so Im d must be 0 (within
    ``tolerance``)."""
    data = _host(d)
    if data.dtype.kind == "c" and data.size and bool((abs(data.imag) > tolerance).any()):
        raise RuntimeError(f"{name}: the loss depends on the phases of the {vectors}, which are only fixed up to "
                           f"a factor e^(i phi) each, so it has no gradient (PyTorch refuses it too). Build the loss "
                           f"from quantities that do not change with those phases, such as abs(V) or V @ V.mH")


def _eigvalsh_vjp(g, ctx):
    """dA = V diag(g) V^H."""
    v = _call(EIGENVECTORS, ctx.self, UPLO=ctx.UPLO)
    return ((v * g[..., None, :]) @ _h(v),)


def _eigenvectors_vjp(g, ctx):
    """dA = V K V^H, K = skew(V^H g) / (w_j - w_i) off the diagonal, skew(X) = (X - X^H) / 2 (PyTorch's
    formula); equal eigenvalues make it infinite, as there."""
    v = ctx.result
    w = _call(EIGVALSH, ctx.self, UPLO=ctx.UPLO)
    gap = w[..., None, :] - w[..., :, None] + _eye_like(w)   # 1 on the diagonal
    m = _h(v) @ g
    _phase_free("linalg.eigh", "eigenvectors", _diagonal(m))
    return (v @ ((0.5 * (m - _h(m))) / gap) @ _h(v),)


EIGVALSH = defop("eigvalsh", ("self",), save=("self",), math="w = eigenvalues of A;  dA = V diag(g) V^H",
                 forward=lambda xp, a, UPLO="L": _linalg(xp, "eigvalsh", a, UPLO=UPLO), vjp=_eigvalsh_vjp,
                 formulas=("V diag(g) V^H",), complex_vjp="same")

EIGENVECTORS = defop("eigenvectors", ("self",), save=("self", "result"),
                     math="V = eigenvectors of A;  dA = V (skew(V^H g) / (w_j - w_i)) V^H",
                     forward=lambda xp, a, UPLO="L": _linalg(xp, "eigh", a, UPLO=UPLO)[1], vjp=_eigenvectors_vjp,
                     formulas=("V (skew(V^H g) / (w_j - w_i)) V^H",), complex_vjp="same")


def _uplo(name, UPLO):
    if not isinstance(UPLO, str) or UPLO.upper() not in ("L", "U"):
        raise RuntimeError(f"linalg.{name}: UPLO must be 'L' (the lower triangle is read) or 'U' (the upper), "
                           f"got {UPLO!r}")
    return UPLO.upper()


def eigvalsh(A, UPLO="L"):
    """The eigenvalues of each Hermitian (real: symmetric) matrix, real and ascending; only the triangle ``UPLO``
    is read."""
    _square("eigvalsh", A)
    return apply(EIGVALSH, (A,), {"UPLO": _uplo("eigvalsh", UPLO)})


def eigh(A, UPLO="L"):
    """``(eigenvalues, eigenvectors)`` of each Hermitian (real: symmetric) matrix: ``A = V diag(w) V^H``, ``w``
    real and ascending, the columns of ``V`` orthonormal, each only up to its sign (complex: a phase e^(i phi)),
    so a loss that depends on those has no meaningful gradient (for complex ones the backward says so, as
    PyTorch's); only the triangle ``UPLO`` is read."""
    _square("eigh", A)
    uplo = {"UPLO": _uplo("eigh", UPLO)}
    return EighResult(apply(EIGVALSH, (A,), uplo), apply(EIGENVECTORS, (A,), uplo))


# -- the eigen-decomposition of a general square matrix -------------------------------------------------
# A = V diag(L) V^-1, L and V complex (a real A's eigenvalues come in conjugate pairs); one op per output, as
# eigh. The eigenvectors have length 1, each only up to a phase e^(i phi).

def _eigvals_vjp(g, ctx):
    """dA = V^-H diag(g) V^H (for a real A its real part: graph.Node.apply takes it)."""
    vh = _h(_call(EIG_VECTORS, ctx.self))
    return (_call(SOLVE, vh, g[..., :, None] * vh, vector=False),)


def _eig_vectors_vjp(g, ctx):
    """PyTorch's formula (linalg_eig_backward): X = V^H g less V^H V diag(Re diag(V^H g)) (what keeps each
    vector's length 1), R = X / conj(L_j - L_i) off the diagonal;  dA = V^-H R V^H."""
    v = ctx.result
    vh = _h(v)
    w = _call(EIGVALS, ctx.self)
    x = vh @ g
    d = _diagonal(x)
    _phase_free("linalg.eig", "eigenvectors", d)
    x = x - vh @ (v * d.real[..., None, :])
    gap = (w[..., None, :] - w[..., :, None]).conj() + _eye_like(w)   # 1 on the diagonal
    return (_call(SOLVE, vh, (x / gap) @ vh, vector=False),)


EIGVALS = defop("eigvals", ("self",), save=("self",), complex_vjp="same",
                math="L = eigenvalues of A = V diag(L) V^-1;  dA = V^-H diag(g) V^H",
                forward=lambda xp, a: _eig(a)[0], vjp=_eigvals_vjp, formulas=("V^-H diag(g) V^H",))

EIG_VECTORS = defop("eig_vectors", ("self",), save=("self", "result"), complex_vjp="same",
                    math="V = eigenvectors of A;  dA = V^-H (X / conj(L_j - L_i)) V^H, X = V^H g - V^H V Re diag(V^H g)",
                    forward=lambda xp, a: _eig(a)[1], vjp=_eig_vectors_vjp,
                    formulas=("V^-H (X / conj(L_j - L_i)) V^H",))


def eigvals(A):
    """The eigenvalues of each square matrix, complex (a real matrix's too), in LAPACK's order (not sorted)."""
    _square("eigvals", A)
    return apply_unary(EIGVALS, A)


def eig(A):
    """``(eigenvalues, eigenvectors)`` of each square matrix: ``A @ V = V @ diag(L)``, both complex, each column
    of V of length 1 and fixed only up to a phase e^(i phi) (a loss that depends on those phases has no
    gradient; the backward says so). Equal eigenvalues make the eigenvectors' gradient NaN or infinite (a
    division by their 0 gap, as in PyTorch). For a Hermitian (real: symmetric) matrix ``eigh`` is faster and
    exact about it."""
    _square("eig", A)
    return EigResult(apply_unary(EIGVALS, A), apply_unary(EIG_VECTORS, A))


# -- the singular value decomposition ----------------------------------------------------------------
# A = U diag(S) Vh with k = min(m, n) singular values (the reduced form). Two ops, each computing the
# decomposition: the singular values, and the singular vectors U and Vh packed into one array (so that their
# VJP sees gU and gVh together, as PyTorch's formula and its check of the vectors' phases need). The gradient of
# a loss of both is the sum of theirs (the formula is linear in gS), and a loss of the values alone needs no
# vectors' gradient.

def _svd_values(xp, a):
    return _linalg(xp, "svd", a, compute_uv=False)


def _svd_packed(xp, a, full=False):
    """U (m x cu) and Vh (r x n) of A = U diag(S) Vh in one array: U in the top rows, Vh below, zeros around."""
    u, _, vh = _linalg(xp, "svd", a, full_matrices=full)
    m, cu, r, n = u.shape[-2], u.shape[-1], vh.shape[-2], vh.shape[-1]
    packed = xp.zeros(a.shape[:-2] + (m + r, max(cu, n)), dtype=u.dtype)
    packed[..., :m, :cu] = u
    packed[..., m:, :n] = vh
    return packed


def _unpacked(packed, m, n, full):
    """(U, Vh) from :func:`_svd_packed`'s array (or its gradient)."""
    cu, r = (m, n) if full else (min(m, n),) * 2
    return packed[..., :m, :cu], packed[..., m:m + r, :n]


def _svdvals_vjp(g, ctx):
    """dA = U diag(g) Vh."""
    m, n = ctx.self.shape[-2:]
    u, vh = _unpacked(_call(SVD_VECTORS, ctx.self, full=False), m, n, False)
    return ((u * g[..., None, :]) @ vh,)


def _svd_vectors_vjp(g, ctx):
    """PyTorch's formula (svd_backward): with E_jk = S_k^2 - S_j^2 (1 on the diagonal), Su = X - X^H of
    X = U^H gU and Sv = Y - Y^H of Y = Vh gVh^H, K = (Su S + S Sv) / E (complex: plus diag(Su_jj / 2 S_j));
    dA = U K Vh, plus, for a tall A, (I - U U^H) gU S^-1 Vh, for a wide one U S^-1 gVh (I - V Vh). Complex
    vectors are fixed only up to a common phase per pair, so Im diag(Su + Sv) must be 0 (within 1e-2): a loss
    that depends on the phases is refused, as PyTorch's. Equal singular values make it infinite, as there."""
    a = ctx.self
    m, n = a.shape[-2], a.shape[-1]
    k = min(m, n)
    u, vh = _unpacked(ctx.result, m, n, ctx.full)
    g_u, g_vh = _unpacked(g, m, n, ctx.full)
    if ctx.full and m != n:   # (the vectors past the k-th are any basis of the rest: no gradient)
        u, vh, g_u, g_vh = u[..., :, :k], vh[..., :k, :], g_u[..., :, :k], g_vh[..., :k, :]
    s = _call(SVDVALS, a)
    x, y = _h(u) @ g_u, vh @ _h(g_vh)
    skew_u, skew_v = x - _h(x), y - _h(y)
    if skew_u.dtype.kind == "c":
        phase_u, phase_v = _diagonal(skew_u), _diagonal(skew_v)
        _phase_free("linalg.svd", "singular vectors (each pair of U's column and Vh's row)",
                    phase_u + phase_v, tolerance=1e-2 + 1e-2 * abs(_host(phase_v).imag))
    gap = (s * s)[..., None, :] - (s * s)[..., :, None] + _eye_like(s)   # E, with 1 on the diagonal
    k_matrix = (skew_u * s[..., None, :] + s[..., :, None] * skew_v) / gap
    if skew_u.dtype.kind == "c":
        k_matrix = k_matrix + _diagonal(skew_u)[..., None] * _eye_like(skew_u) / (2 * s[..., :, None])
    if m > n:     # the part of gU outside U's columns: (I - U U^H) gU S^-1 Vh
        g_over_s = g_u / s[..., None, :]
        return ((u @ k_matrix + g_over_s - u @ (_h(u) @ g_over_s)) @ vh,)
    if m < n:     # U S^-1 gVh (I - V Vh)
        s_inv_g = g_vh / s[..., :, None]
        return (u @ (k_matrix @ vh + s_inv_g - (s_inv_g @ _h(vh)) @ vh),)
    return (u @ k_matrix @ vh,)


SVDVALS = defop("svdvals", ("self",), save=("self",), math="S = singular values of A;  dA = U diag(g) Vh",
                forward=_svd_values, vjp=_svdvals_vjp, formulas=("U diag(g) Vh",), complex_vjp="same")

SVD_VECTORS = defop("svd_vectors", ("self",), save=("self", "result"), complex_vjp="same",
                    math="U, Vh of A = U diag(S) Vh;  dA = U ((Su S + S Sv) / E) Vh + ..., Su = U^H gU - gU^H U",
                    forward=_svd_packed, vjp=_svd_vectors_vjp,
                    formulas=("U ((Su S + S Sv) / E) Vh + (I - U U^H) gU S^-1 Vh + U S^-1 gVh (I - V Vh)",))


def svdvals(A):
    """The singular values of each matrix, descending (k = min(m, n) of them)."""
    _matrices("svdvals", A)
    return apply_unary(SVDVALS, A)


def svd(A, full_matrices=True):
    """``(U, S, Vh)`` with ``A = U diag(S) Vh``; ``full_matrices=False`` gives the reduced form (U m x k, Vh
    k x n, k = min(m, n)), else U is m x m and Vh n x n, their vectors past the k-th getting no gradient
    (any basis of the rest would do). Each pair of singular vectors only up to a common sign (complex: a common
    phase e^(i phi)), so a loss that depends on it has no meaningful gradient; equal singular values make the
    vectors' gradient infinite (as in PyTorch)."""
    _matrices("svd", A)
    full = bool(full_matrices)
    u, vh = _unpacked(apply(SVD_VECTORS, (A,), {"full": full}), A.shape[-2], A.shape[-1], full)
    return SvdResult(u, apply_unary(SVDVALS, A), vh)


# -- the QR decomposition ------------------------------------------------------------------------------
# A = Q R, Q with orthonormal columns, R upper triangular (k = min(m, n) of each). One op per factor.

def _qr_vjp(g, ctx, part):
    """PyTorch's formula (linalg_qr_backward) for gQ alone or gR alone. For m >= n: M = gR R^H - Q^H gQ,
    dA = (Q herm(triu(M)) + gQ) R^-H, herm(T) = T + T^H keeping the diagonal's real part once. For m < n,
    A = [X | Y] with X = Q U square: dY = Q gR_Y, and X's gradient is the square case's with gQ + Y gR_Y^H."""
    a = ctx.self
    q, r = (ctx.result, _call(QR_R, a)) if part == 0 else (_call(QR_Q, a), ctx.result)
    m, n = a.shape[-2], a.shape[-1]
    g_q, g_r = (g, None) if part == 0 else (None, g)
    if m < n:
        y, r = a[..., :, m:], r[..., :, :m]
        if g_r is not None:
            g_y = q @ g_r[..., :, m:]
            g_q, g_r = y @ _h(g_r[..., :, m:]), g_r[..., :, :m]
        else:
            g_y = _constant_like(numpy.zeros(tuple(y.shape)), y)   # (Q does not depend on Y)
    if g_q is None:         # M = gR R^H - Q^H gQ, with the missing one 0
        inner = g_r @ _h(r)
    elif g_r is None:
        inner = -(_h(q) @ g_q)
    else:
        inner = g_r @ _h(r) - _h(q) @ g_q
    upper = _call(TRIU, inner, diagonal=0)
    diagonal = _call(TRIU, upper.mT, diagonal=0)       # (upper's diagonal alone: the lower part of upper^T is 0)
    if diagonal.dtype.kind == "c":
        diagonal = diagonal.real
    herm = upper + _h(upper) - diagonal                # the Hermitian matrix with upper's triangle, diagonal once
    ga = q @ herm if g_q is None else q @ herm + g_q
    ga = ga @ _h(_call(INV, r))
    if m < n:
        ga = cat([ga, g_y], -1) if isinstance(ga, Tensor) else xp_of(ga).concatenate([ga, g_y], -1)
    return (ga,)


QR_Q = defop("qr_q", ("self",), save=("self", "result"), math="Q of A = Q R;  dA = (Q herm(triu(-Q^H g)) + g) R^-H",
             forward=lambda xp, a: xp.linalg.qr(a)[0], vjp=lambda g, ctx: _qr_vjp(g, ctx, 0), complex_vjp="same",
             formulas=("(Q herm(triu(-Q^H g)) + g) R^-H",))
QR_R = defop("qr_r", ("self",), save=("self", "result"), math="R of A = Q R;  dA = Q herm(triu(g R^H)) R^-H",
             forward=lambda xp, a: xp.linalg.qr(a)[1], vjp=lambda g, ctx: _qr_vjp(g, ctx, 1), complex_vjp="same",
             formulas=("Q herm(triu(g R^H)) R^-H",))


def qr(A, mode="reduced"):
    """``(Q, R)`` with ``A = Q R``: Q's k = min(m, n) columns orthonormal, R upper triangular (k x n), as
    LAPACK signs them (PyTorch's too). ``mode='complete'`` gives the m x m Q (not differentiable for a tall A,
    as in PyTorch); ``mode='r'``
    gives R alone (Q empty), with the gradient of the reduced mode's R (PyTorch's backward refuses it)."""
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
    if mode == "r":   # (R with its gradient, where PyTorch's backward raises: R is the reduced mode's)
        return QrResult(Tensor._make(xp_of(A._data).zeros((0,), A.dtype), False, None, A.device),
                        apply_unary(QR_R, A))
    return QrResult(apply_unary(QR_Q, A), apply_unary(QR_R, A))


# -- least squares ---------------------------------------------------------------------------------------

def lstsq(A, B, rcond=None, *, driver=None):
    """The least-squares solution of ``A X = B``: the ``X`` that minimises ||A X - B||, and among those the
    smallest. For an ``A`` of full rank it is built from ``qr`` and ``solve`` (tall: R X = Q^H B; wide: A^H = Q R
    and X = Q R^-H B); for a rank-deficient one from ``pinv`` (rank from the singular values above ``rcond``
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
        x = solve(r, _h(q) @ rhs)
    else:
        q, r = qr(_h(A))
        x = q @ solve(_h(r), rhs)

    def constant(array):
        return Tensor._make(array, False, None, A.device)
    empty = constant(xp.zeros((0,), values.dtype))   # (real, for a complex A too)
    residuals = empty
    if driver in ("gels", "gelsd", "gelss") and m > n and full:
        residuals = ((A @ x - rhs).abs() ** 2).sum(-2)
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
        raise RuntimeError(f"linalg.{name}(hermitian=True): A must be batches of square (Hermitian) matrices, but "
                           f"they are {A.shape[-2]} by {A.shape[-1]} matrices; leave hermitian=False for others")
    real = numpy.finfo(A.dtype).dtype   # (for a complex A, its real dtype)
    for what, t in (("atol", atol), ("rtol", rtol)):
        if (t.dtype.kind if isinstance(t, Tensor) else "c" if isinstance(t, complex) else "f") == "c":
            raise RuntimeError(f"linalg.{name}: {what} must be a real number or a real tensor (a tolerance for the "
                               f"singular values), got a complex one")
    return tuple(t.detach()._data.astype(real) if isinstance(t, Tensor) else t for t in (atol, rtol))


def _spectrum(xp, a, hermitian):
    """``(values, left, right)`` with A = left diag(values) right: the SVD, or for a Hermitian A the eigen
    decomposition A = Q diag(w) Q^H (``values`` then |w|, and right = diag(sign w) Q^H)."""
    if not hermitian:
        u, s, vh = _linalg(xp, "svd", a, full_matrices=False)
        return s, u, vh
    w, q = _linalg(xp, "eigh", a)
    return xp.abs(w), q, _h(q) * xp.sign(w)[..., :, None]


def _pinv_forward(xp, a, atol, rtol, hermitian):
    values, left, right = _spectrum(xp, a, hermitian)
    keep = values > _tolerance(xp, values, a.shape, values.dtype, atol, rtol)
    inverted = xp.where(keep, 1 / xp.where(keep, values, 1), 0)
    return (_h(right) * inverted[..., None, :]) @ _h(left)


def _pinv_vjp(g, ctx):
    # dP = -P dA P + P P^H dA^H (I - A P) + (I - P A) dA^H P^H P, read as <g, dP> = <dA, .>
    A, P = ctx.self, ctx.result
    Ph, gh = _h(P), _h(g)
    return (-(Ph @ g @ Ph) + (gh - A @ (P @ gh)) @ (P @ Ph) + (Ph @ P) @ (gh - (gh @ P) @ A),)


PINV = defop("pinv", ("self",), save=("self", "result"), math="P = A^+ (from the SVD);  dA = -P^H g P^H + "
             "(I - A P) g^H P P^H + P^H P g^H (I - P A)", complex_vjp="same",
             forward=_pinv_forward, vjp=_pinv_vjp, formulas=("-P^H g P^H + (I - A P) g^H P P^H + P^H P g^H (I - P A)",))


def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None):
    """The Moore-Penrose pseudo-inverse of each matrix, from its SVD with the singular values below
    ``max(atol, rtol * largest)`` taken as 0 (default rtol: eps * max(m, n); numbers, or tensors with one value
    per matrix; PyTorch's older ``rcond`` is ``rtol``); ``hermitian=True`` reads a Hermitian A through its
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
    rank = (values > _tolerance(xp, values, A.shape, values.dtype, atol, rtol)).sum(-1).astype(numpy.int64)
    return Tensor._make(rank, False, None, A.device)


def _eye_like(like):
    """The identity matrix of ``like``'s last size, a constant of its kind, dtype and device (broadcasting over its
    batch)."""
    return _constant_like(numpy.eye(like.shape[-1]), like)


def _constant_like(host, like):
    """A host array as a constant of ``like``'s kind (array or Tensor), dtype and device."""
    if isinstance(like, Tensor):
        return Tensor._make(xp_of(like._data).asarray(host.astype(like.dtype)), False, None, like.device)
    return xp_of(like).asarray(host.astype(like.dtype))
