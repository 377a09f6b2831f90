"""``autogradlab.linalg``: PyTorch's ``torch.linalg`` names, so ``torch.linalg.solve(A, b)`` ports by changing
the import. The matrix functions with gradients of their own are in ``ops/decompositions.py``; the rest here
are built from other ops (and differentiate through them)."""
from __future__ import annotations

import math

import numpy

from .backend import asarray, to_host
from .creation import eye as _eye
from .nn.distance import vector_norm as _vector_norm   # (where F.normalize and the distances use it)
from .ops import linalg as _products
from .ops import reduce as _R
from .ops.decompositions import slogdet as _slogdet
from .ops.decompositions import (LinAlgError, cholesky, det, eig, eigh, eigvals, eigvalsh, inv, lstsq, matrix_exp,
                                 matrix_power, matrix_rank, pinv, qr, solve, svd, svdvals)
from .ops.elementwise import where
from .ops.lu import cholesky_ex, inv_ex, lu, lu_factor, lu_factor_ex, lu_solve, solve_ex
from .ops.rearrange import diagonal as _diagonal
from .ops.registry import expect_tensor
from .ops.shape import stack as _stack
from .return_types import return_type
from .tensor import Tensor

__all__ = ["LinAlgError", "inv", "det", "slogdet", "solve", "lstsq", "cholesky", "eig", "eigvals", "eigh", "eigvalsh", "svd", "svdvals",
           "qr", "vector_norm", "matrix_norm", "norm", "matrix_power", "multi_dot", "cross", "vecdot", "pinv", "matrix_rank",
           "cond", "matrix_exp", "solve_triangular", "householder_product", "matmul", "diagonal", "vander", "tensorinv",
           "tensorsolve", "lu_factor", "lu_factor_ex", "lu", "lu_solve", "inv_ex", "solve_ex", "cholesky_ex"]

_LinalgSlogdet = return_type("linalg_slogdet", ["sign", "logabsdet"])


def slogdet(A):
    """``(sign, logabsdet)`` of each matrix: ``det(A) = sign * exp(logabsdet)`` (see ``autogradlab.slogdet``)."""
    return _LinalgSlogdet(*_slogdet(A))


def cross(input, other, *, dim=-1):
    """The cross product of 3-vectors along ``dim`` (the last by default, as ``torch.linalg.cross``; the older
    ``autogradlab.cross`` takes the first dim of size 3 when not told)."""
    return _products.cross(input, other, dim)


def _in_dtype(x, dtype, name):
    """``x`` cast to ``dtype`` first, as PyTorch's norms take ``dtype=``: a float or complex input, a dtype of its
    kind (real for real, complex for complex) and no narrower (float64 to float32 would lose digits)."""
    if dtype is None:
        return x
    expect_tensor(x, name)
    dtype = numpy.dtype(dtype)
    if x.dtype.kind not in "fc":
        raise RuntimeError(f"linalg.{name}: Expected a floating point or complex tensor as input. Got "
                           f"{x.dtype.name}: convert it first, e.g. x.double()")
    if (dtype.kind == "c") != (x.dtype.kind == "c") or dtype.kind not in "fc":
        raise RuntimeError(f"linalg.{name}: dtype should be {'complex' if x.dtype.kind == 'c' else 'real'} for "
                           f"{'complex' if x.dtype.kind == 'c' else 'real'} inputs, but got {dtype.name}")
    if dtype.itemsize < x.dtype.itemsize:
        raise RuntimeError(f"linalg.{name}: the dtype of the input ({x.dtype.name}) should be convertible without "
                           f"narrowing to the specified dtype ({dtype.name})")
    return x.to(dtype)


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """||x||_ord over ``dim`` (every element by default): (sum |x_i|^ord)^(1/ord); max |x_i| for inf, min for
    -inf, the count of nonzero x_i for 0."""
    return _vector_norm(_in_dtype(x, dtype, "vector_norm"), ord, dim, keepdim)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """A norm of each matrix (the two ``dim``): 'fro' (the root of the sum of squares), 1 / -1 (the largest /
    smallest column sum of |a_ij|), inf / -inf (the same over rows), 'nuc' (the sum of the singular values),
    2 / -2 (the largest / smallest singular value)."""
    A = _in_dtype(A, dtype, "matrix_norm")
    expect_tensor(A, "matrix_norm")
    if A.ndim < 2:
        raise RuntimeError(f"linalg.matrix_norm: The input tensor A must have at least 2 dimensions, got shape "
                           f"{tuple(A.shape)}")
    dims = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
    if len(dims) != 2 or not all(isinstance(d, int) and -A.ndim <= d < A.ndim for d in dims) \
            or dims[0] % A.ndim == dims[1] % A.ndim:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple of different dims of A (shape "
                           f"{tuple(A.shape)}), got {dim!r}")
    rows, cols = (d % A.ndim for d in dims)
    if ord == "fro":
        return vector_norm(A, 2, (rows, cols), keepdim)
    if ord in (1, -1, math.inf, -math.inf):
        across, pick = (rows, cols) if ord in (1, -1) else (cols, rows)   # sum down a column, pick over columns
        sums = _R.sum(A.abs(), across, keepdim=True)
        if A.shape[pick] == 0 and ord > 0:   # (the largest of no sums: 0, as PyTorch; the smallest raises)
            out = _R.sum(sums, pick, keepdim=True)
        else:
            out = (_R.amax if ord > 0 else _R.amin)(sums, pick, keepdim=True)
        return out if keepdim else out.squeeze((rows, cols))
    if ord in ("nuc", 2, -2):   # from the singular values: their sum, the largest, the smallest
        values = svdvals(A.movedim((rows, cols), (-2, -1)))
        empty = values.shape[-1] == 0 and ord == 2   # (no singular values: the largest is taken as 0, as PyTorch)
        out = _R.sum(values, -1) if ord == "nuc" or empty else (_R.amax if ord == 2 else _R.amin)(values, -1)
        return out.unsqueeze(min(rows, cols)).unsqueeze(max(rows, cols)) if keepdim else out
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """``vector_norm`` or ``matrix_norm``, as PyTorch picks: with ``dim`` one dim a vector norm, two a matrix
    norm; without it, a 1-D ``A`` a vector norm, a 2-D ``A`` a matrix norm, and with ``ord=None`` the
    2-norm of every element."""
    A = _in_dtype(A, dtype, "norm")
    expect_tensor(A, "norm")
    if dim is not None:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        if len(dims) == 1:
            if isinstance(ord, str):
                raise RuntimeError(f"linalg.norm: ord={ord!r} is a matrix norm: dim must be a 2-tuple, got {dim!r}")
            return vector_norm(A, 2 if ord is None else ord, dims, keepdim)
        return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim)
    if ord is None:
        return vector_norm(A, 2, None, keepdim)
    if A.ndim == 1:
        if isinstance(ord, str):
            raise RuntimeError(f"linalg.norm: ord={ord!r} is a matrix norm, but A is a vector (shape "
                               f"{tuple(A.shape)}); use a number, e.g. ord=2")
        return vector_norm(A, ord, None, keepdim)
    if A.ndim == 2:
        return matrix_norm(A, ord, (-2, -1), keepdim)
    raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got "
                       f"{A.ndim}D.")


def _torch_norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """``torch.norm`` and ``Tensor.norm`` (PyTorch's older function): a number ``p`` is :func:`vector_norm` over
    ``dim`` (every element by default), ``"fro"`` the 2-norm over at most two dims, ``"nuc"`` the nuclear norm
    of the matrices in ``dim`` (the last two... of a 2-D input by default); ``dtype`` casts ``input`` first."""
    expect_tensor(input, "norm")
    if out is not None:
        raise TypeError("norm(): out= is not supported here; use the returned tensor")
    _R._floats_only(input, "norm", "fc")
    if dtype is not None:
        if numpy.promote_types(input.dtype, dtype) != numpy.dtype(dtype):
            raise RuntimeError(f"norm: the dtype of the input ({input.dtype.name}) should be convertible without "
                               f"narrowing to the specified dtype ({numpy.dtype(dtype).name}), as in PyTorch: cast "
                               f"the input yourself (input.to(...)) to compute in a narrower dtype")
        input = input.to(dtype)
    if p is None:
        p = 2
    if isinstance(p, str):
        dims = None if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
        if p == "fro" and (dims is None or len(dims) <= 2):
            return _R.norm(input, 2, dim, keepdim)
        return matrix_norm(input, p, tuple(range(input.ndim)) if dims is None else dims, keepdim)
    if p in (1, 2) and not isinstance(p, bool):
        return _R.norm(input, p, dim, keepdim)
    return vector_norm(input, p, dim, keepdim)


def multi_dot(tensors):
    """``tensors[0] @ tensors[1] @ ...``, the first may be a vector (a row) and the last a vector (a column)."""
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    for i, t in enumerate(tensors):   # (PyTorch's checks: a batch of matrices is not a chain of them)
        expect_tensor(t, "multi_dot")
        ends = i in (0, len(tensors) - 1)
        if t.ndim != 2 and not (ends and t.ndim == 1):
            which = "first" if i == 0 else "last" if i == len(tensors) - 1 else f"tensor {i}"
            raise RuntimeError(f"multi_dot(): {which} tensor must be {'1D or 2D' if ends else '2D'} but got "
                               f"{t.ndim}D (only the first and the last may be vectors)")
    out = tensors[0]
    for t in tensors[1:]:
        out = out @ t
    return out


def matmul(input, other):
    """``input @ other`` (``autogradlab.matmul``)."""
    return _products.matmul(input, other)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonal of each matrix (the last two dims, unless told): ``A[..., i, i + offset]``."""
    return _diagonal(A, offset, dim1, dim2)


def vander(x, *, N=None):
    """The Vandermonde matrix of each vector (the last dim): column j is ``x^j``, j = 0 .. N-1 (N = x's length
    unless given, at least 2); batches of vectors give batches of matrices."""
    expect_tensor(x, "vander")
    if x.ndim == 0:
        raise RuntimeError("linalg.vander: x must have at least one dimension (a vector, or a batch of them)")
    if x.dtype == numpy.bool_ or x.dtype == numpy.float16:
        raise RuntimeError(f"linalg.vander supports floating point, complex, and integer tensors, but got "
                           f"{x.dtype.name}")
    if x.dtype.kind in "iu":
        x = x.to(numpy.int64)   # (integers in int64, as PyTorch's)
    n = x.shape[-1] if N is None else N
    if not isinstance(n, int) or n <= 1:
        raise RuntimeError(f"N must be greater than 1., got N={n!r}")
    return _stack([x ** k for k in range(n)], -1)


def tensorinv(A, ind=2):
    """The tensor ``X`` with ``tensordot(X, A, ind) = I`` (and ``tensordot(A, X, A.ndim - ind) = I``): ``A``'s
    first ``ind`` dims and its others read as the rows and columns of a square matrix, which is inverted;
    ``X`` has shape ``A.shape[ind:] + A.shape[:ind]``."""
    expect_tensor(A, "tensorinv")
    if not isinstance(ind, int) or isinstance(ind, bool) or ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind!r}")
    rows, cols = math.prod(A.shape[:ind]), math.prod(A.shape[ind:])
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows} (shape {tuple(A.shape)}, ind={ind})")
    return inv(A.reshape(rows, cols)).reshape(*A.shape[ind:], *A.shape[:ind])


def tensorsolve(A, B, dims=None):
    """The tensor ``X`` with ``tensordot(A, X, X.ndim) = B``: ``A``'s first ``B.ndim`` dims and its others read
    as the rows and columns of a square matrix (``dims``: dims of ``A`` moved to the end first), then
    ``solve``; ``X`` has shape ``A.shape[B.ndim:]``."""
    expect_tensor(A, "tensorsolve")
    expect_tensor(B, "tensorsolve")
    if dims is not None:
        dims = (dims,) if isinstance(dims, int) else tuple(dims)
        A = A.movedim(dims, tuple(range(A.ndim - len(dims), A.ndim)))
    rows, cols = math.prod(A.shape[:B.ndim]), math.prod(A.shape[B.ndim:])
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {cols} != {rows} (A's shape "
                           f"{tuple(A.shape)}, B's {tuple(B.shape)})")
    return solve(A.reshape(rows, cols), B.reshape(rows)).reshape(*A.shape[B.ndim:])


def vecdot(x, y, *, dim=-1):
    """The dot product along ``dim`` (batch dims broadcast): ``sum(conj(x) * y, dim)``, conjugating ``x`` for
    complex vectors (so ``vecdot(x, x)`` is the squared length, a real number); both of one floating dtype."""
    if not isinstance(x, Tensor) or not isinstance(y, Tensor):
        raise TypeError("linalg.vecdot(): x and y must be Tensors")
    if x.dtype != y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{x.dtype.name} and y of type {y.dtype.name} instead: convert one, e.g. y.to(x.dtype)")
    if x.dtype.kind not in "fc":
        raise RuntimeError(f"linalg.vecdot: Expected a floating point or complex tensor as input. Got "
                           f"{x.dtype.name}: convert it first, e.g. x.double()")
    return _R.sum((x.conj() if x.dtype.kind == "c" else x) * y, dim)


_NORMS = (None, "fro", "nuc", math.inf, -math.inf, 1, -1, 2, -2)


def cond(A, p=None):
    """The condition number of each matrix, ``norm(A, p) * norm(inv(A), p)``: for p = None or 2 the largest over
    the smallest singular value (-2: its reciprocal), from ``svdvals`` (any shape); for 'fro', 'nuc', 1, -1, inf,
    -inf from the inverse (square matrices; inf for a singular one, as PyTorch gives)."""
    expect_tensor(A, "cond")
    if p not in _NORMS or isinstance(p, bool):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if A.ndim < 2:
        raise RuntimeError(f"linalg.cond: The input tensor A must have at least 2 dimensions, got shape "
                           f"{tuple(A.shape)}")
    if p in (None, 2, -2):
        if A.shape[-1] == 0 or A.shape[-2] == 0:   # (no singular values: 0, as PyTorch gives)
            return _R.sum(A.detach(), (-2, -1))
        values = svdvals(A)
        largest, smallest = values[..., 0], values[..., -1]
        return smallest / largest if p == -2 else largest / smallest
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.cond(ord={p}): A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if A.shape[-1] == 0:
        return _R.sum(A.detach(), (-2, -1))
    try:
        return matrix_norm(A, p) * matrix_norm(inv(A), p)
    except LinAlgError:   # some matrices are singular: inf for them, the others as usual
        host = to_host(A.detach()._data)
        singular = numpy.array([_is_singular(m) for m in host.reshape((-1,) + host.shape[-2:])]).reshape(host.shape[:-2])
        flags = Tensor._make(asarray(singular, A.device), False, None, A.device)
        eye = numpy.broadcast_to(numpy.eye(A.shape[-1], dtype=host.dtype), host.shape)
        safe = where(flags[..., None, None], Tensor._make(asarray(eye, A.device), False, None, A.device), A)
        return where(flags, math.inf, matrix_norm(safe, p) * matrix_norm(inv(safe), p))


def _is_singular(matrix) -> bool:
    try:
        numpy.linalg.inv(matrix)
    except numpy.linalg.LinAlgError:
        return True
    return False


def solve_triangular(A, B, *, upper, left=True, unitriangular=False):
    """The ``X`` with ``A @ X = B`` (``left=False``: ``X @ A = B``) for a triangular ``A``: only its upper
    (``upper=True``) or lower triangle is read, and with ``unitriangular=True`` not its diagonal either (ones).
    ``B`` is a matrix (or a batch of them); batch dims broadcast. The gradient reaches only the triangle read."""
    expect_tensor(A, "solve_triangular")
    expect_tensor(B, "solve_triangular")
    if B.ndim < 2:
        raise RuntimeError("linalg.solve_triangular: The input tensor B must have at least 2 dimensions; "
                           "for one vector b use b.unsqueeze(-1) and take column 0 of the result")
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.solve_triangular: A must be batches of square matrices, but it has shape "
                           f"{tuple(A.shape)}")
    n = A.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    triangle = A.triu(1 if unitriangular else 0) if upper else A.tril(-1 if unitriangular else 0)
    if unitriangular:
        triangle = triangle + _eye(n, dtype=A.dtype, device=A.device)
    batch = numpy.broadcast_shapes(tuple(A.shape[:-2]), tuple(B.shape[:-2]))   # (B stays a matrix for solve)
    return solve(triangle.expand(*batch, n, n), B.expand(*batch, *B.shape[-2:]), left=left)


def householder_product(A, tau):
    """The first n columns of H_1 H_2 ... H_k, with H_i = I - tau_i v_i v_i^H and v_i = (0, ..., 0, 1,
    A[i+1:, i]) (the Householder vectors LAPACK's QR leaves below A's diagonal; k = tau's last size).
    Built from products, so gradients reach A and tau."""
    expect_tensor(A, "householder_product")
    expect_tensor(tau, "householder_product")
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.householder_product: input must have at least 2 dimensions.")
    m, n = A.shape[-2], A.shape[-1]
    k = tau.shape[-1] if tau.ndim else 0
    if m < n:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if n < k:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    if tau.dtype != A.dtype:
        raise RuntimeError(f"torch.linalg.householder_product: tau dtype {tau.dtype.name} does not match input dtype "
                           f"{A.dtype.name}: convert one, e.g. tau.to(A.dtype)")
    if tau.ndim != A.ndim - 1 or tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(f"torch.linalg.householder_product: Expected batch dimensions of tau to be equal to "
                           f"input.shape[:-2], but got {tuple(tau.shape[:-1])}")
    eye = _eye(m, dtype=A.dtype, device=A.device)
    rows = numpy.arange(m)
    Q = eye[:, :n].expand(*A.shape[:-2], m, n)
    for i in reversed(range(k)):   # Q <- H_i Q, the last reflector first
        below = Tensor._make(asarray((rows > i).astype(numpy.dtype(A.dtype)), A.device), False, None, A.device)
        v = A[..., :, i] * below + eye[i]
        Q = Q - tau[..., i, None, None] * v[..., :, None] * (v[..., None, :].conj() @ Q)
    return Q
