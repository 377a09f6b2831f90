"""PyTorch's torch-level matrix functions that predate ``torch.linalg`` or sit beside it, so lab code that
calls them ports: ``torch.svd`` (``some=``, and V rather than Vh), ``torch.qr`` (``some=``), ``ger``,
``chain_matmul``, ``adjoint``, ``cholesky_solve``, ``cholesky_inverse``, ``renorm``, ``lu`` (packed, with
``get_infos=``), ``lu_solve`` and ``triangular_solve`` (their arguments in the older order), ``orgqr``, and the matrix trace
(``Tensor.trace()``; ``autogradlab.trace(x)`` of a tensor is it too, while ``trace()`` with no tensor stays
the event recorder).

Each is written with the ops it is made of, so its gradient is theirs (the math is in each docstring)."""
from __future__ import annotations

import numbers
import warnings

from .creation import eye, zeros
from .linalg import householder_product, multi_dot, solve_triangular, svd as _svd, qr as _qr, svdvals, vector_norm
from .ops.lu import lu_factor_ex
from .ops.lu import lu_solve as _lu_solve
from .ops.elementwise import where
from .ops.inplace import in_place
from .ops.linalg import outer
from .ops.rearrange import diagonal
from .ops.reduce import sum as _sum
from .ops.registry import expect_tensor
from .tensor import Tensor
from .return_types import return_type

__all__ = ["matrix_trace", "svd", "qr", "ger", "chain_matmul", "adjoint", "cholesky_solve", "cholesky_inverse",
           "renorm", "lu", "lu_solve", "triangular_solve", "orgqr"]

OldSvdResult = return_type("svd", ["U", "S", "V"])
OldQrResult = return_type("qr", ["Q", "R"])
TriangularSolveResult = return_type("triangular_solve", ["solution", "cloned_coefficient"])


def matrix_trace(input):
    """The sum of a matrix's diagonal, ``sum_i A[i, i]`` (integers sum as int64); its gradient is the identity
    times g. PyTorch's ``torch.trace`` / ``Tensor.trace``."""
    expect_tensor(input, "trace")
    if input.dtype.kind == "b":
        raise NotImplementedError("trace: not implemented for bool (as in PyTorch); convert first: x.long()")
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim} (shape "
                           f"{tuple(input.shape)}); for a batch of matrices use x.diagonal(dim1=-2, dim2=-1).sum(-1)")
    return _sum(diagonal(input))


def svd(input, some=True, compute_uv=True):
    """``(U, S, V)`` with ``A = U diag(S) V^H``: ``linalg.svd(A, full_matrices=not some)`` with ``V = Vh^H``.
    ``compute_uv=False``: S alone is computed (its gradient is ``linalg.svdvals``'), U and V are zeros of
    shape (m, m) and (n, n), as in PyTorch."""
    expect_tensor(input, "svd")
    if not compute_uv:
        m, n = input.shape[-2:] if input.ndim >= 2 else (0, 0)
        S = svdvals(input)
        U, V = (zeros(*input.shape[:-2], k, k, dtype=input.dtype, device=input.device) for k in (m, n))
        return OldSvdResult(U, S, V)
    U, S, Vh = _svd(input, full_matrices=not some)
    return OldSvdResult(U, S, Vh.mH)


def qr(input, some=True):
    """``(Q, R)`` with ``A = Q R``: ``linalg.qr(A, 'reduced' if some else 'complete')``."""
    return OldQrResult(*_qr(input, "reduced" if some else "complete"))


def ger(input, vec2):
    """The outer product ``input[i] * vec2[j]`` (``outer``'s older name)."""
    return outer(input, vec2)


def chain_matmul(*matrices):
    """``matrices[0] @ matrices[1] @ ...`` of 2-D tensors (``linalg.multi_dot``'s older form)."""
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices; pass them as arguments: "
                           "chain_matmul(A, B, C)")
    for i, m in enumerate(matrices):
        expect_tensor(m, "chain_matmul")
        if m.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {m.ndim}, expected 2 instead (chain_matmul: matrix {i} has "
                               f"shape {tuple(m.shape)})")
    for i in range(1, len(matrices)):
        if matrices[i - 1].shape[1] != matrices[i].shape[0]:
            raise RuntimeError(f"chain_matmul(): matrices {i - 1} and {i} with shapes "
                               f"{list(matrices[i - 1].shape)} and {list(matrices[i].shape)} cannot be multiplied")
    return matrices[0].clone() if len(matrices) == 1 else multi_dot(matrices)


def adjoint(input):
    """The conjugate transpose of the last two dims; for real tensors their transpose (a view)."""
    expect_tensor(input, "adjoint")
    if input.ndim == 0:   # (a number: its conjugate, as PyTorch's 0-d adjoint, with its warning)
        warnings.warn("adjoint() is deprecated on 0-D tensors. Consider using x.conj().", UserWarning, stacklevel=2)
        return input.conj()
    if input.ndim < 2:
        raise RuntimeError(f"tensor.adjoint() is only supported on matrices or batches of matrices. Got "
                           f"{input.ndim}-D tensor.")
    return input.transpose(-2, -1).conj()


def _factor_checks(name, B, L):
    for what, t in (("B", B), ("L", L)):
        expect_tensor(t, name)
        if t.ndim < 2:
            raise RuntimeError(f"{name}: {what} should have at least 2 dimensions, but has {t.ndim} dimensions "
                               f"instead (shape {tuple(t.shape)})")
    if L.shape[-1] != L.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {L.shape[-2]} by "
                           f"{L.shape[-1]} matrices")


def cholesky_solve(B, L, upper=False):
    """The ``X`` with ``A X = B`` for ``A = L L^H`` (``upper=True``: ``A = U^H U``; for real factors ``^T``),
    given the Cholesky factor: two triangular solves, ``L Y = B`` then ``L^H X = Y``. Only the factor's triangle
    is read, so its gradient reaches that triangle alone (PyTorch's also reaches the other one, which its result
    does not depend on)."""
    _factor_checks("cholesky_solve", B, L)
    if B.shape[-2] != L.shape[-1]:
        raise RuntimeError(f"cholesky_solve: Incompatible matrix sizes for the equation AX = B: each A matrix is "
                           f"{L.shape[-1]} by {L.shape[-1]} but each B matrix is {B.shape[-2]} by {B.shape[-1]}")
    lower = L.mH if upper else L   # (A = lower lower^H either way)
    return solve_triangular(lower.mH, solve_triangular(lower, B, upper=False), upper=True)


def cholesky_inverse(L, upper=False):
    """``(L L^H)^-1`` (``upper=True``: ``(U^H U)^-1``) from the Cholesky factor, by :func:`cholesky_solve` of
    the identity."""
    expect_tensor(L, "cholesky_inverse")
    if L.ndim < 2 or L.shape[-1] != L.shape[-2]:
        raise RuntimeError(f"cholesky_inverse: A must be batches of square matrices, but it has shape "
                           f"{tuple(L.shape)}")
    identity = eye(L.shape[-1], dtype=L.dtype, device=L.device).expand(*L.shape)
    return cholesky_solve(identity, L, upper)


def renorm(input, p, dim, maxnorm):
    """Each slice ``input.select(dim, i)`` whose ``p``-norm exceeds ``maxnorm`` scaled down to it:
    ``x * where(n > maxnorm, maxnorm / (n + 1e-7), 1)`` with ``n`` the slice's norm (PyTorch's formula,
    whose 1e-7 keeps a scaled slice's norm just under ``maxnorm``); complex input too."""
    expect_tensor(input, "renorm")
    if input.dtype.kind not in "fc":
        raise RuntimeError(f"renorm: expected a floating tensor, got {input.dtype.name}; convert it first: x.float()")
    if not isinstance(p, numbers.Real) or p <= 0:
        raise RuntimeError(f"renorm: non-positive-norm not supported (p={p!r}); use p > 0")
    if not isinstance(maxnorm, numbers.Real) or maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm!r}")
    if input.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions")
    d = dim % input.ndim if -input.ndim <= dim < input.ndim else None
    if d is None:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-input.ndim}, {input.ndim - 1}], "
                         f"but got {dim})")
    others = tuple(i for i in range(input.ndim) if i != d)
    norm = vector_norm(input, p, others, keepdim=True)
    return input * where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)


def lu(A, pivot=True, get_infos=False):
    """``(LU, pivots)`` of ``linalg.lu_factor_ex`` (with ``get_infos=True`` also ``info``); a singular matrix is
    factored without an error, as PyTorch's (which warns that ``torch.lu`` goes)."""
    warnings.warn("torch.lu is deprecated in favour of linalg.lu_factor (or linalg.lu_factor_ex, which also "
                  "returns info)", UserWarning, stacklevel=2)
    packed, pivots, info = lu_factor_ex(A, pivot=pivot)
    return (packed, pivots, info) if get_infos else (packed, pivots)


def lu_solve(b, LU_data, LU_pivots):
    """``linalg.lu_solve(LU_data, LU_pivots, b)``: the older order of the arguments (PyTorch warns that it goes)."""
    warnings.warn("torch.lu_solve is deprecated in favour of linalg.lu_solve, whose arguments come in the other "
                  "order: X = linalg.lu_solve(LU, pivots, B)", UserWarning, stacklevel=2)
    return _lu_solve(LU_data, LU_pivots, b)


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """``(solution, cloned_coefficient)``: the X with ``A X = b`` (``transpose=True``: ``A^T X = b``) for the
    triangle of ``A`` named by ``upper``, and a copy of ``A`` (PyTorch warns that it goes: use
    ``linalg.solve_triangular(A, b, upper=upper)``)."""
    warnings.warn("torch.triangular_solve is deprecated in favour of linalg.solve_triangular, whose arguments come "
                  "in the other order and which returns no copy of A: X = linalg.solve_triangular(A, B, upper=True)",
                  UserWarning, stacklevel=2)
    expect_tensor(A, "triangular_solve")
    matrix = A.mT if transpose else A   # (the transpose of an upper triangle is a lower one)
    solution = solve_triangular(matrix, b, upper=upper != bool(transpose), unitriangular=unitriangular)
    return TriangularSolveResult(solution, A.expand(*solution.shape[:-2], *A.shape[-2:]).clone())


def orgqr(input, tau):
    """``linalg.householder_product(input, tau)``, LAPACK's name for it."""
    return householder_product(input, tau)


def attach():
    """The Tensor methods of these functions (this layer attaches them, as ``ops.methods`` attaches its own)."""
    Tensor.trace = matrix_trace
    Tensor.adjoint = adjoint
    Tensor.mH = property(adjoint)
    Tensor.H = property(_H)
    Tensor.ger = ger
    Tensor.svd = svd
    Tensor.qr = qr
    Tensor.cholesky_solve = cholesky_solve
    Tensor.cholesky_inverse = cholesky_inverse
    Tensor.renorm = renorm
    Tensor.renorm_ = in_place("renorm_", renorm)
    Tensor.lu = lu
    Tensor.lu_solve = lu_solve
    Tensor.triangular_solve = triangular_solve
    Tensor.orgqr = orgqr


def _H(input):
    """The conjugate transpose of a matrix (a 0-d tensor is its own)."""
    if input.ndim not in (0, 2):
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {input.ndim}-D tensor.")
    return adjoint(input) if input.ndim == 2 else input
