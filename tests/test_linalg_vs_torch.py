"""``autogradlab.linalg`` (and the top-level ``inverse``, ``det``, ``logdet``, ``slogdet``, ``cholesky``,
``matrix_power``) against ``torch.linalg``: values and gradients for batches of matrices in float64 and
float32, second derivatives, finite differences, and the errors."""
from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import host, import_torch
from torch_compare import both_raise, close, pair

import autogradlab as ag
from autogradlab.testing import gradcheck, gradgradcheck

torch = import_torch()

TOL = {"float64": {"rtol": 1e-10, "atol": 1e-10}, "float32": {"rtol": 2e-4, "atol": 2e-4}}


def _rng(seed):
    return np.random.default_rng(seed)


def _matrices(shape, seed):
    """Well-conditioned square matrices: random plus a multiple of the identity."""
    n = shape[-1]
    return _rng(seed).standard_normal(shape) + 2.0 * np.eye(n)


def _spd(shape, seed):
    """Symmetric positive-definite matrices with well-separated eigenvalues."""
    a = _rng(seed).standard_normal(shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def _values_and_gradients(ours_fn, torch_fn, arrays, dtype, seed=7, tol=None):
    xs = [pair(a.astype(dtype), requires_grad=True) for a in arrays]
    y, ty = ours_fn(*(x for x, _ in xs)), torch_fn(*(t for _, t in xs))
    close(y, ty, **(tol or TOL[dtype]))
    g = _rng(seed).standard_normal(tuple(ty.shape)).astype(dtype)
    y.backward(ag.tensor(g))
    ty.backward(torch.tensor(g))
    for x, t in xs:
        close(x.grad, t.grad, **(tol or TOL[dtype]))


SHAPES = [(4, 4), (3, 5, 5), (2, 1, 3, 3)]
SQUARE_CASES = [
    ("inv", lambda a: ag.linalg.inv(a), lambda a: torch.linalg.inv(a)),
    ("inverse", lambda a: ag.inverse(a), lambda a: torch.inverse(a)),
    ("det", lambda a: ag.linalg.det(a), lambda a: torch.linalg.det(a)),
    ("det top-level", lambda a: ag.det(a), lambda a: torch.det(a)),
    ("slogdet.logabsdet", lambda a: ag.linalg.slogdet(a).logabsdet, lambda a: torch.linalg.slogdet(a).logabsdet),
    ("matrix_power 3", lambda a: ag.linalg.matrix_power(a, 3), lambda a: torch.linalg.matrix_power(a, 3)),
    ("matrix_power -2", lambda a: ag.linalg.matrix_power(a, -2), lambda a: torch.linalg.matrix_power(a, -2)),
    ("matrix_power 1", lambda a: ag.matrix_power(a, 1), lambda a: torch.matrix_power(a, 1)),
    ("matrix_norm fro", lambda a: ag.linalg.matrix_norm(a), lambda a: torch.linalg.matrix_norm(a)),
    ("matrix_norm 1", lambda a: ag.linalg.matrix_norm(a, 1), lambda a: torch.linalg.matrix_norm(a, 1)),
    ("matrix_norm -1", lambda a: ag.linalg.matrix_norm(a, -1), lambda a: torch.linalg.matrix_norm(a, -1)),
    ("matrix_norm inf keepdim", lambda a: ag.linalg.matrix_norm(a, math.inf, keepdim=True),
     lambda a: torch.linalg.matrix_norm(a, math.inf, keepdim=True)),
    ("matrix_norm -inf", lambda a: ag.linalg.matrix_norm(a, -math.inf), lambda a: torch.linalg.matrix_norm(a, -math.inf)),
    ("norm of every element", lambda a: ag.linalg.norm(a), lambda a: torch.linalg.norm(a)),
    ("norm over one dim", lambda a: ag.linalg.norm(a, 3, dim=-1), lambda a: torch.linalg.norm(a, 3, dim=-1)),
    ("norm over two dims", lambda a: ag.linalg.norm(a, 1, dim=(-1, -2)), lambda a: torch.linalg.norm(a, 1, dim=(-1, -2))),
    ("vector_norm", lambda a: ag.linalg.vector_norm(a, 0.5, dim=(0, -1)), lambda a: torch.linalg.vector_norm(a, 0.5, dim=(0, -1))),
    ("matrix_norm nuc", lambda a: ag.linalg.matrix_norm(a, "nuc"), lambda a: torch.linalg.matrix_norm(a, "nuc")),
    ("matrix_norm 2", lambda a: ag.linalg.matrix_norm(a, 2), lambda a: torch.linalg.matrix_norm(a, 2)),
    ("matrix_norm -2 keepdim", lambda a: ag.linalg.matrix_norm(a, -2, keepdim=True),
     lambda a: torch.linalg.matrix_norm(a, -2, keepdim=True)),
    ("norm nuc over dims (0, -1)", lambda a: ag.linalg.norm(a, "nuc", dim=(0, -1)),
     lambda a: torch.linalg.norm(a, "nuc", dim=(0, -1))),
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name, ours, theirs", SQUARE_CASES, ids=[c[0] for c in SQUARE_CASES])
def test_square_matrix_functions_match_torch(name, ours, theirs, shape, dtype):
    _values_and_gradients(ours, theirs, [_matrices(shape, 1)], dtype)


SPD_CASES = [
    ("cholesky", lambda a: ag.linalg.cholesky(a), lambda a: torch.linalg.cholesky(a)),
    ("cholesky upper", lambda a: ag.linalg.cholesky(a, upper=True), lambda a: torch.linalg.cholesky(a, upper=True)),
    ("cholesky top-level", lambda a: ag.cholesky(a), lambda a: torch.linalg.cholesky(a)),  # (torch's: deprecated)
    ("logdet", lambda a: ag.logdet(a), lambda a: torch.logdet(a)),
    ("eigvalsh", lambda a: ag.linalg.eigvalsh(a), lambda a: torch.linalg.eigvalsh(a)),
    ("eigh eigenvalues", lambda a: ag.linalg.eigh(a).eigenvalues, lambda a: torch.linalg.eigh(a).eigenvalues),
    # each eigenvector only up to its sign: a loss of products within one column does not see it
    ("eigh eigenvectors squared", lambda a: ag.linalg.eigh(a).eigenvectors ** 2,
     lambda a: torch.linalg.eigh(a).eigenvectors ** 2),
    ("eigh V diag(f(w)) V^T", lambda a: _rebuilt(ag, a), lambda a: _rebuilt(torch, a)),
]


def _rebuilt(lib, a):
    w, v = lib.linalg.eigh(a)
    return (v * w.sqrt()[..., None, :]) @ v.mT   # the matrix square root: sign-free


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name, ours, theirs", SPD_CASES, ids=[c[0] for c in SPD_CASES])
def test_symmetric_positive_definite_functions_match_torch(name, ours, theirs, shape, dtype):
    _values_and_gradients(ours, theirs, [_spd(shape, 2)], dtype)


@pytest.mark.parametrize("UPLO", ["L", "U"])
def test_eigh_reads_one_triangle_and_its_gradient_is_torchs(UPLO):
    """A matrix that is not symmetric: the triangle UPLO is what LAPACK reads, in both libraries."""
    _values_and_gradients(lambda a: ag.linalg.eigvalsh(a, UPLO), lambda a: torch.linalg.eigvalsh(a, UPLO),
                          [_matrices((2, 4, 4), 3)], "float64")
    _values_and_gradients(lambda a: ag.linalg.eigh(a, UPLO)[1] ** 2, lambda a: torch.linalg.eigh(a, UPLO)[1] ** 2,
                          [_matrices((2, 4, 4), 3)], "float64")


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("a_shape, b_shape, kwargs", [
    ((4, 4), (4, 2), {}), ((4, 4), (4,), {}), ((3, 4, 4), (3, 4), {}),      # a vector per matrix
    ((3, 4, 4), (4, 2), {}), ((3, 4, 4), (2, 3, 4, 1), {}),                  # batch dims broadcast
    ((4, 4), (2, 4), {"left": False}), ((2, 3, 3), (2, 5, 3), {"left": False}),
], ids=str)
def test_solve_matches_torch(a_shape, b_shape, kwargs, dtype):
    b = _rng(4).standard_normal(b_shape)
    _values_and_gradients(lambda x, y: ag.linalg.solve(x, y, **kwargs), lambda x, y: torch.linalg.solve(x, y, **kwargs),
                          [_matrices(a_shape, 5), b], dtype)


def _svd_loss(lib, full):
    """A loss of every factor that does not see the singular vectors' signs, nor (full_matrices=True) the
    basis chosen for the vectors past the k-th: each factor's first k vectors, squared."""
    def loss(a):
        u, s, vh = lib.linalg.svd(a, full_matrices=full)
        k = s.shape[-1]
        return (u[..., :, :k] ** 2 * s[..., None, :]) @ vh[..., :k, :] ** 2 + (u[..., :, :k] ** 2).sum(-1, keepdim=True)
    return loss


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("full", [False, True])
@pytest.mark.parametrize("shape", [(4, 4), (6, 3), (3, 6), (2, 5, 4), (2, 3, 5)], ids=str)
def test_svd_matches_torch_in_every_factor(shape, full, dtype):
    _values_and_gradients(_svd_loss(ag, full), _svd_loss(torch, full), [_rng(12).standard_normal(shape)], dtype)
    _values_and_gradients(ag.linalg.svdvals, torch.linalg.svdvals, [_rng(13).standard_normal(shape)], dtype)
    low_rank = {lib: (lambda a, lib=lib: (lambda r: (r.U[..., :2] * r.S[..., None, :2]) @ r.Vh[..., :2, :])(
        lib.linalg.svd(a, full_matrices=full))) for lib in (ag, torch)}
    _values_and_gradients(low_rank[ag], low_rank[torch], [_rng(14).standard_normal(shape)], dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape", [(4, 4), (6, 3), (3, 6), (2, 5, 4), (2, 3, 5)], ids=str)
def test_qr_matches_torch_in_each_factor_and_both(shape, dtype):
    """LAPACK's signs in both libraries, so Q and R compare as they are; a tall, square and wide A."""
    a = _rng(16).standard_normal(shape)
    _values_and_gradients(lambda x: ag.linalg.qr(x).Q, lambda x: torch.linalg.qr(x).Q, [a], dtype)
    _values_and_gradients(lambda x: ag.linalg.qr(x).R, lambda x: torch.linalg.qr(x).R, [a], dtype)
    both = {lib: (lambda x, lib=lib: (lambda q, r: q.sum(-1, keepdim=True) * r[..., :1, :])(*lib.linalg.qr(x)))
            for lib in (ag, torch)}
    _values_and_gradients(both[ag], both[torch], [a], dtype)


def test_qr_modes_as_torch():
    x, t = pair(_rng(17).standard_normal((3, 5)))
    for mode in ("complete", "r"):
        (q, r), (tq, tr) = ag.linalg.qr(x, mode=mode), torch.linalg.qr(t, mode=mode)
        close(q, tq)
        close(r, tr)
    tall, t_tall = pair(_rng(20).standard_normal((5, 3)))
    (q, r), (tq, tr) = ag.linalg.qr(tall, mode="complete"), torch.linalg.qr(t_tall, mode="complete")
    close(q, tq)      # (the 5 x 5 Q; not differentiable, as in PyTorch)
    close(r, tr)
    with pytest.raises(NotImplementedError, match="mode='reduced'"):
        ag.linalg.qr(ag.ones(5, 3, requires_grad=True), mode="complete")


def test_svd_factors_rebuild_the_matrix():
    a = ag.tensor(_rng(15).standard_normal((2, 5, 3)))
    u, s, vh = ag.linalg.svd(a, full_matrices=False)
    np.testing.assert_allclose(((u * s[..., None, :]) @ vh).numpy(), a.numpy(), atol=1e-12)
    assert u.shape == (2, 5, 3) and s.shape == (2, 3) and vh.shape == (2, 3, 3)
    assert ag.linalg.svd(a).U.shape == (2, 5, 5)
    assert (np.diff(s.numpy(), axis=-1) <= 0).all()          # descending


def test_slogdet_sign_and_logdet_of_a_negative_determinant_as_torch():
    a = np.array([[[0.0, 1.0], [1.0, 0.0]], [[2.0, 0.0], [0.0, 3.0]]])
    x, t = pair(a)
    (s, la), (ts, tla) = ag.linalg.slogdet(x), torch.linalg.slogdet(t)
    close(s, ts, rtol=0, atol=0)
    close(la, tla)
    assert not s.requires_grad
    close(ag.logdet(x), torch.logdet(t))     # NaN for the negative determinant, as in PyTorch
    assert np.isnan(host(ag.logdet(x).data)[0])


def test_matrix_power_zero_is_the_identity_with_a_zero_gradient():
    x, t = pair(_matrices((2, 3, 3), 6), requires_grad=True)
    y, ty = ag.linalg.matrix_power(x, 0), torch.linalg.matrix_power(t, 0)
    close(y, ty, rtol=0, atol=0)
    y.sum().backward()
    ty.sum().backward()
    assert y.requires_grad and ty.requires_grad        # (backward through it works, as in torch)
    close(x.grad, t.grad, rtol=0, atol=0)


def test_multi_dot_and_vecdot_match_torch():
    a, b, c = (_rng(s).standard_normal(shape) for s, shape in ((8, (3,)), (9, (3, 4)), (10, (4,))))
    _values_and_gradients(lambda x, y, z: ag.linalg.multi_dot([x, y, z]),
                          lambda x, y, z: torch.linalg.multi_dot([x, y, z]), [a, b, c], "float64")
    _values_and_gradients(lambda x, y: ag.linalg.vecdot(x, y, dim=0), lambda x, y: torch.linalg.vecdot(x, y, dim=0),
                          [b, b[::-1].copy()], "float64")


@pytest.mark.parametrize("fn", [
    lambda a: ag.linalg.inv(a), lambda a: ag.linalg.det(a), lambda a: ag.linalg.slogdet(a).logabsdet,
    lambda a: ag.linalg.solve(a, a[..., 0]), lambda a: ag.linalg.matrix_power(a, -3),
    lambda a: ag.linalg.cholesky(a @ a.mT), lambda a: ag.linalg.eigvalsh(a @ a.mT),
    lambda a: ag.linalg.eigh(a @ a.mT).eigenvectors ** 2, lambda a: ag.logdet(a @ a.mT),
    lambda a: ag.linalg.svdvals(a[..., :2]), _svd_loss(ag, False), lambda a: _svd_loss(ag, True)(a[..., :2, :]),
    lambda a: ag.linalg.matrix_norm(a, "nuc"), lambda a: ag.linalg.qr(a).Q, lambda a: ag.linalg.qr(a[..., :2, :]).R,
], ids=["inv", "det", "logabsdet", "solve", "matrix_power", "cholesky", "eigvalsh", "eigh", "logdet", "svdvals",
        "svd", "svd wide full", "nuclear norm", "qr Q", "qr R wide"])
def test_first_and_second_derivatives_pass_finite_differences(fn):
    x = ag.tensor(_matrices((2, 3, 3), 11), requires_grad=True)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


@pytest.mark.parametrize("call", [
    lambda m, r: m.linalg.inv(r(3, 4)),
    lambda m, r: m.linalg.inv(r(3)),
    lambda m, r: m.linalg.inv(m.ones(2, 2, dtype=m.int64)),
    lambda m, r: m.linalg.det(r(2, 3)),
    lambda m, r: m.linalg.solve(r(3, 3), r(4)),
    lambda m, r: m.linalg.solve(r(3, 3), r(3, 3).double()),
    lambda m, r: m.linalg.eigh(r(3, 3), UPLO="X"),
    lambda m, r: m.linalg.matrix_norm(r(3)),
    lambda m, r: m.linalg.matrix_norm(r(3, 3), "fancy"),
    lambda m, r: m.linalg.norm(r(2, 3, 3), 2),
    lambda m, r: m.linalg.matrix_power(r(2, 3), 2),
    lambda m, r: m.linalg.multi_dot([r(3, 3)]),
    lambda m, r: m.linalg.svd(r(3)),
    lambda m, r: m.linalg.qr(r(3, 3), mode="full"),
    lambda m, r: m.linalg.svdvals(m.ones(2, 2, dtype=m.int64)),
])
def test_errors_as_in_torch(call):
    both_raise(lambda: call(ag, lambda *s: ag.randn(*s)), lambda: call(torch, lambda *s: torch.randn(*s)))


@pytest.mark.parametrize("call", [lambda m: m.linalg.inv(m.zeros(3, 3)), lambda m: m.linalg.cholesky(-m.eye(3)),
                                  lambda m: m.linalg.solve(m.zeros(2, 2), m.ones(2))])
def test_a_matrix_the_routine_cannot_take_raises_a_linalg_error_as_torch(call):
    """PyTorch's torch.linalg.LinAlgError and ours: each a RuntimeError of its own library."""
    with pytest.raises(torch.linalg.LinAlgError):
        call(torch)
    with pytest.raises(ag.linalg.LinAlgError):
        call(ag)
    assert issubclass(ag.linalg.LinAlgError, RuntimeError)


def test_errors_say_what_to_do_and_change_nothing():
    x = ag.zeros(3, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="singular.*add a small multiple of the identity"):
        ag.linalg.inv(x)
    with pytest.raises(RuntimeError, match="not positive-definite"):
        ag.linalg.cholesky(-ag.eye(3))
    assert x.grad is None


def test_the_names_are_torch_linalgs():
    for name in ag.linalg.__all__:
        assert hasattr(torch.linalg, name), name
    for name in ("inverse", "det", "logdet", "slogdet", "cholesky", "matrix_power"):
        assert hasattr(torch, name) and callable(getattr(ag, name)), name


@pytest.mark.parametrize("name, args", [("inverse", ()), ("det", ()), ("logdet", ()), ("matrix_power", (3,))])
def test_tensor_methods_as_torchs(name, args):
    _values_and_gradients(lambda a: getattr(a @ a.mT + ag.eye(3, dtype=ag.float64), name)(*args),
                          lambda a: getattr(a @ a.mT + torch.eye(3, dtype=torch.float64), name)(*args),
                          [_rng(18).standard_normal((2, 3, 3))], "float64")
    x, t = pair(_spd((3, 3), 19))
    close(x.slogdet().logabsdet, t.slogdet().logabsdet)
    close(x.cholesky(), torch.linalg.cholesky(t))   # (torch's Tensor.cholesky is deprecated for this one)


def test_solve_with_left_false_checks_shapes_as_torch():
    """X A = B: B is never a batch of vectors there; a B that would be one is refused, as in PyTorch."""
    for a_shape, b_shape in (((3, 3, 3), (3, 3)), ((2, 3, 3), (2, 3)), ((3, 3), (3,))):
        both_raise(lambda: ag.linalg.solve(ag.randn(*a_shape), ag.randn(*b_shape), left=False),
                   lambda: torch.linalg.solve(torch.randn(*a_shape), torch.randn(*b_shape), left=False))
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        ag.linalg.solve(ag.eye(3), ag.tensor(1.0))


def test_matrix_power_one_is_a_new_tensor_and_takes_numpy_ints():
    b = ag.eye(2)
    y = ag.linalg.matrix_power(b, 1)
    assert y is not b
    y.mul_(5)
    assert host(b.data).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    close(ag.linalg.matrix_power(b, np.int64(3)), torch.linalg.matrix_power(torch.eye(2), 3))


def test_det_gradient_at_a_singular_matrix_is_the_cofactor_matrix():
    """d det / dA = adj(A)^T, finite where A is singular: by finite differences, and against the cofactors from
    the minors on a 3x3 of rank 2. (PyTorch 2.13 gives zeros wherever its LU finds an exact zero pivot: on the
    2x2 [[1, 2], [2, 4]] always, on this 3x3 on some CPUs and not others, as the last bits of its LU kernels
    fall. But det(A + e E_11) = e on the 2x2: the derivative there is 1, as ours says.)"""
    singular = ag.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=ag.float64, requires_grad=True)
    assert gradcheck(lambda a: ag.linalg.det(a), (singular,))
    (g,) = ag.autograd.grad(ag.linalg.det(singular), singular)
    np.testing.assert_allclose(g.numpy(), [[4.0, -2.0], [-2.0, 1.0]], atol=1e-12)
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
    cofactors = [[(-1) ** (i + j) * np.linalg.det(np.delete(np.delete(a, i, 0), j, 1)) for j in range(3)]
                 for i in range(3)]
    x = ag.tensor(a, requires_grad=True)
    ag.linalg.det(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), cofactors, atol=1e-12)
    assert np.abs(cofactors).max() == pytest.approx(4.0)
    batch = ag.tensor(np.stack([[[1.0, 2.0], [2.0, 4.0]], np.eye(2)]), requires_grad=True)
    ag.linalg.det(batch).sum().backward()      # one singular matrix does not stop the batch's backward
    np.testing.assert_allclose(batch.grad.numpy()[1], np.eye(2))


def test_nan_in_a_matrix_gives_nan_determinants_as_torch():
    a = np.array([[[np.nan, 1.0], [1.0, 1.0]], [[2.0, 0.0], [0.0, 3.0]]])
    x, t = pair(a)
    close(ag.linalg.det(x), torch.linalg.det(t))
    close(ag.linalg.slogdet(x).logabsdet, torch.linalg.slogdet(t).logabsdet)


def test_logdet_of_a_negative_determinant_sends_no_gradient_as_torch():
    _values_and_gradients(lambda x: ag.logdet(x), lambda x: torch.logdet(x),
                          [np.stack([[[0.1, 1.0], [1.0, 0.1]], 2 * np.eye(2)])], "float64")


def test_cholesky_upper_reads_the_upper_triangle_as_torch():
    a = np.array([[4.0, 1.0], [3.0, 5.0]])   # (not symmetric: which triangle is read shows)
    _values_and_gradients(lambda x: ag.linalg.cholesky(x, upper=True),
                          lambda x: torch.linalg.cholesky(x, upper=True), [a], "float64")
    _values_and_gradients(lambda x: ag.cholesky(x, True), lambda x: torch.linalg.cholesky(x, upper=True), [a],
                          "float64")


def test_lowercase_uplo_and_low_precision_as_torch():
    a = _spd((3, 3), 21)
    _values_and_gradients(lambda x: ag.linalg.eigvalsh(x, "u"), lambda x: torch.linalg.eigvalsh(x, "u"), [a],
                          "float64")
    with pytest.raises(RuntimeError, match="Low precision"):
        ag.linalg.inv(ag.eye(2, dtype=ag.float16))


@pytest.mark.parametrize("call", [
    lambda m: m.linalg.norm(m.ones(3), "fro"), lambda m: m.linalg.norm(m.ones(3, 3), "nuc", dim=0),
    lambda m: m.linalg.norm(m.ones(3, 3), "fro", dim=(-1,)), lambda m: m.linalg.matrix_norm(m.ones(2, 3), 1, dim=(1, 1)),
])
def test_norm_arguments_checked_as_torch(call):
    both_raise(lambda: call(ag), lambda: call(torch))


def test_norms_of_empty_matrices_as_torch():
    for ord_ in ("nuc", 2, "fro", 1, math.inf):   # 0 (the smallest of nothing, for -1 and -2, raises in both)
        close(ag.linalg.matrix_norm(ag.zeros(3, 0, 0), ord_), torch.linalg.matrix_norm(torch.zeros(3, 0, 0), ord_))
    for ord_ in (-2, -1):
        both_raise(lambda: ag.linalg.matrix_norm(ag.zeros(3, 0, 0), ord_),
                   lambda: torch.linalg.matrix_norm(torch.zeros(3, 0, 0), ord_))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("a_shape, b_shape", [((5, 3), (5, 2)), ((3, 5), (3, 2)), ((2, 6, 4), (2, 6, 3)),
                                              ((5, 3), (5,)), ((4, 4), (4, 1))], ids=str)
def test_lstsq_matches_torchs_default_driver(a_shape, b_shape, dtype):
    """Tall: the least-squares solution; wide: the smallest solution; a vector B; values and both gradients."""
    a, b = _rng(22).standard_normal(a_shape), _rng(23).standard_normal(b_shape)
    _values_and_gradients(lambda x, y: ag.linalg.lstsq(x, y).solution, lambda x, y: torch.linalg.lstsq(x, y).solution,
                          [a, b], dtype)
    ours, theirs = ag.linalg.lstsq(ag.tensor(a), ag.tensor(b)), torch.linalg.lstsq(torch.tensor(a), torch.tensor(b))
    assert host(ours.rank.data).tolist() == theirs.rank.tolist()
    assert tuple(ours.residuals.shape) == tuple(theirs.residuals.shape) == (0,)


@pytest.mark.parametrize("driver", ["gelsd", "gelss", "gels", "gelsy"])
@pytest.mark.parametrize("b_shape", [(2, 6, 3), (2, 6)], ids=str)
def test_lstsq_drivers_give_torchs_residuals_rank_and_singular_values(driver, b_shape):
    a, b = _rng(26).standard_normal((2, 6, 4)), _rng(27).standard_normal(b_shape)
    for field in ("solution", "residuals"):
        if driver == "gelsy" and field == "residuals":
            continue
        _values_and_gradients(lambda x, y: getattr(ag.linalg.lstsq(x, y, driver=driver), field),
                              lambda x, y: getattr(torch.linalg.lstsq(x, y, driver=driver), field),
                              [a, b], "float64")
    ours = ag.linalg.lstsq(ag.tensor(a), ag.tensor(b), driver=driver)
    theirs = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver=driver)
    for field in ("residuals", "rank", "singular_values"):
        close(getattr(ours, field), getattr(theirs, field), **TOL["float64"])


def test_lstsq_of_a_wide_matrix_has_its_rank_where_torchs_gelsy_errs():
    """A decided difference (README): torch 2.13's default driver called this full-rank matrix rank 1 here (a
    known bug whose result depends on memory, so the test does not assert torch's)."""
    a, b = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 7.0]]), np.array([[1.0], [2.0]])
    assert np.linalg.matrix_rank(a) == 2
    ours = ag.linalg.lstsq(ag.tensor(a), ag.tensor(b))
    assert ours.rank.item() == 2
    close(ours.solution, torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver="gelsd").solution, rtol=1e-12)


RANK_DEFICIENT = {   # (the smallest of the least-squares solutions: torch's 'gelsd' gives it)
    "tall-rank-1": np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]),
    "wide-rank-1": np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]]),
    "batch-of-full-and-deficient": np.stack([np.eye(3), np.array([[0.0, 1, 0], [0, 0, 1], [0, 0, 0]])]),
}


@pytest.mark.parametrize("name", sorted(RANK_DEFICIENT))
@pytest.mark.parametrize("driver", [None, "gelsy", "gelsd", "gelss"])
def test_lstsq_of_a_rank_deficient_matrix_is_the_smallest_solution_as_torchs_gelsd(name, driver):
    a = RANK_DEFICIENT[name]
    b = np.sin(np.arange(1.0, 1.0 + a.shape[-2] * 2)).reshape(a.shape[-2], 2) + np.zeros(a.shape[:-2] + (1, 1))
    _values_and_gradients(lambda x, y: ag.linalg.lstsq(x, y, driver=driver).solution,
                          lambda x, y: torch.linalg.lstsq(x, y, driver="gelsd").solution, [a, b], "float64")
    ours = ag.linalg.lstsq(ag.tensor(a), ag.tensor(b), driver=driver)
    close(ours.rank, torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver="gelsd").rank)
    assert tuple(ours.residuals.shape) == (0,)      # (none for a rank-deficient A, as torch)


def test_lstsq_passes_finite_differences_and_checks_its_arguments():
    a = ag.tensor(_rng(24).standard_normal((5, 3)), requires_grad=True)
    b = ag.tensor(_rng(25).standard_normal((5, 2)), requires_grad=True)
    assert gradcheck(lambda x, y: ag.linalg.lstsq(x, y).solution, (a, b))
    assert gradgradcheck(lambda x, y: ag.linalg.lstsq(x, y).solution, (a, b))
    for call in (lambda m: m.linalg.lstsq(m.ones(5, 3), m.ones(4, 2)),
                 lambda m: m.linalg.lstsq(m.ones(5, 3), m.ones(5, 2, dtype=m.float64)),
                 lambda m: m.linalg.lstsq(m.ones(5, 3), m.ones(5, 2), driver="fast")):
        both_raise(lambda: call(ag), lambda: call(torch))


# -- pseudo-inverse, rank and condition number -----------------------------------------------------------

@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (2, 4, 4), (2, 1, 3, 2)], ids=str)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_pinv_matches_torch(shape, dtype):
    for seed, ours, theirs in ((21, lambda a: ag.linalg.pinv(a), lambda a: torch.linalg.pinv(a)),
                               (22, lambda a: ag.pinverse(a), lambda a: torch.pinverse(a)),
                               (23, lambda a: a.pinverse(), lambda a: a.pinverse())):
        a = _rng(seed).standard_normal(shape)
        # the gradient's rounding error grows as eps * cond^2 (it holds pinv twice): float32's tolerance scaled by
        # the matrices' condition numbers (seed 23 draws one of 167), so a BLAS's kernels can't push it over
        tol = None if dtype == "float64" else {"rtol": 2e-4 + 2e-6 * float(np.linalg.cond(a).max()) ** 2,
                                               "atol": 2e-4 + 2e-6 * float(np.linalg.cond(a).max()) ** 2}
        _values_and_gradients(ours, theirs, [a], dtype, tol=tol)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_pinv_of_a_symmetric_matrix_through_its_eigenvalues_matches_torch(dtype):
    _values_and_gradients(lambda a: ag.linalg.pinv(a @ a.mT - 2.0, hermitian=True),
                          lambda a: torch.linalg.pinv(a @ a.mT - 2.0, hermitian=True),
                          [_rng(24).standard_normal((2, 3, 3))], dtype)


@pytest.mark.parametrize("kwargs", [{}, {"rtol": 0.3}, {"atol": 1.0}, {"atol": 1.0, "rtol": 0.5}, {"hermitian": True},
                                    {"hermitian": True, "atol": 0.5}], ids=str)
def test_pinv_and_matrix_rank_of_rank_deficient_matrices_as_torch(kwargs):
    """Singular values under the tolerance count as 0: the rank, and the pseudo-inverse of the rest."""
    a = _rng(25).standard_normal((3, 4, 2))
    low_rank = a @ np.swapaxes(a, -1, -2) * np.array([1.0, 0.1, 3.0])[:, None, None]   # 4x4 of rank 2, symmetric
    x, t = pair(low_rank)
    close(ag.linalg.pinv(x, **kwargs), torch.linalg.pinv(t, **kwargs), rtol=1e-8, atol=1e-8)
    assert host(ag.linalg.matrix_rank(x, **kwargs).data).tolist() == torch.linalg.matrix_rank(t, **kwargs).tolist()
    rank = ag.linalg.matrix_rank(x)
    assert rank.dtype == ag.int64 and not rank.requires_grad


def test_pinv_passes_finite_differences_first_and_second_order():
    for fn in (lambda a: ag.linalg.pinv(a), lambda a: ag.linalg.pinv(a.mT)):
        x = ag.tensor(_rng(26).standard_normal((2, 3, 4)), requires_grad=True)
        assert gradcheck(fn, (x,))
        assert gradgradcheck(fn, (x,))


@pytest.mark.parametrize("p", [None, 2, -2, "fro", "nuc", 1, -1, math.inf, -math.inf])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_cond_matches_torch(p, dtype):
    """Values; gradients against torch's where its backward runs (for p 'fro', 'nuc', 1, -1, inf, -inf PyTorch
    2.13's backward fails: it writes into its inverse in place), else by finite differences."""
    if p not in (None, 2, -2):
        x, t = pair(_matrices((2, 3, 3), 27).astype(dtype))
        close(ag.linalg.cond(x, p), torch.linalg.cond(t, p), **TOL[dtype])
        assert gradcheck(lambda a: ag.linalg.cond(a, p), (ag.tensor(_matrices((2, 3, 3), 27), requires_grad=True),))
        return
    _values_and_gradients(lambda a: ag.linalg.cond(a, p), lambda a: torch.linalg.cond(a, p),
                          [_matrices((2, 3, 3), 27)], dtype)
    if p in (None, 2, -2):   # any shape, from the singular values
        _values_and_gradients(lambda a: ag.linalg.cond(a, p), lambda a: torch.linalg.cond(a, p),
                              [_rng(28).standard_normal((2, 3, 5))], dtype)


def test_cond_of_a_singular_matrix_is_inf_as_torch():
    batch = np.array([[[1.0, 2.0], [2.0, 4.0]], [[1.0, 0.0], [0.0, 2.0]]])
    for p in ("fro", 1, math.inf):
        x, t = pair(batch)
        close(ag.linalg.cond(x, p), torch.linalg.cond(t, p))
    close(ag.linalg.cond(ag.zeros(0, 0)), torch.linalg.cond(torch.zeros(0, 0)))


@pytest.mark.parametrize("call", [
    lambda m, r: m.linalg.pinv(r(3)), lambda m, r: m.linalg.pinv(m.ones(2, 2, dtype=m.int64)),
    lambda m, r: m.linalg.matrix_rank(m.ones(2, 2, dtype=m.int64)), lambda m, r: m.linalg.cond(r(2, 3), "fro"),
    lambda m, r: m.linalg.cond(r(2, 2), 3), lambda m, r: m.linalg.cond(r(3)), lambda m, r: m.linalg.matrix_rank(r(3)),
])
def test_pinv_rank_cond_errors_as_in_torch(call):
    both_raise(lambda: call(ag, lambda *s: ag.randn(*s)), lambda: call(torch, lambda *s: torch.randn(*s)))


# -- matrix_exp ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("shape,scale", [((3, 3), 1.0), ((2, 4, 4), 3.0), ((5, 5), 0.01), ((3, 3), 40.0),
                                         ((1, 1), 2.0), ((2, 0, 0), 1.0)],
                         ids=["3x3", "batched", "small", "large norm", "1x1", "empty"])
def test_matrix_exp_values_and_gradients_as_torchs(dtype, shape, scale):
    rng = _rng(3)
    a = (rng.standard_normal(shape) * scale).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    results = []
    for T in (ag, torch):
        x = T.tensor(a.copy(), requires_grad=True)
        y = T.linalg.matrix_exp(x)
        y.backward(T.tensor(g.copy()))
        results.append((y, x.grad, T.matrix_exp(x.detach()), x.detach().matrix_exp()))
    rtol = TOL[dtype]["rtol"]
    for ours, theirs in zip(*results):   # (to the precision of the largest entry: exp's entries span decades)
        close(ours, theirs, rtol=rtol, atol=rtol * max(1.0, float(theirs.detach().abs().max()) if theirs.numel()
                                                        else 1.0))


def test_matrix_exp_of_a_skew_matrix_is_a_rotation_and_of_a_diagonal_the_elementwise_exp():
    rng = _rng(4)
    a = rng.standard_normal((4, 4))
    q = ag.linalg.matrix_exp(ag.tensor(a - a.T)).numpy()
    np.testing.assert_allclose(q @ q.T, np.eye(4), atol=1e-13)
    np.testing.assert_allclose(ag.matrix_exp(ag.tensor(np.diag([0.5, -2.0, 7.0]))).numpy(),
                               np.diag(np.exp([0.5, -2.0, 7.0])), rtol=1e-14)
    t = 0.3   # (d/dt exp(tA) = A exp(tA): a step of an ODE x' = A x)
    step = ag.matrix_exp(ag.tensor(a * (t + 1e-6))).numpy() - ag.matrix_exp(ag.tensor(a * (t - 1e-6))).numpy()
    np.testing.assert_allclose(step / 2e-6, a @ ag.matrix_exp(ag.tensor(a * t)).numpy(), rtol=1e-6, atol=1e-8)


def test_matrix_exp_passes_gradcheck_and_gradgradcheck():
    a = ag.tensor(_rng(5).standard_normal((2, 3, 3)), requires_grad=True)
    assert gradcheck(ag.linalg.matrix_exp, (a,))
    assert gradgradcheck(ag.linalg.matrix_exp, (a,))


def test_matrix_exp_of_nan_is_nan_and_bad_input_is_refused_as_torch():
    both = [T.linalg.matrix_exp(T.tensor([[float("nan"), 0.0], [0.0, 1.0]], dtype=T.float64)) for T in (ag, torch)]
    assert np.isnan(both[0].numpy()).all() == np.isnan(both[1].numpy()).all()
    assert np.isnan(both[0].numpy()).any()
    for make in (lambda T: T.ones(2, 3), lambda T: T.ones(3), lambda T: T.ones(2, 2, dtype=T.int64)):
        both_raise(lambda: ag.linalg.matrix_exp(make(ag)), lambda: torch.linalg.matrix_exp(make(torch)))


# -- solve_triangular -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("upper", [False, True], ids=["lower", "upper"])
@pytest.mark.parametrize("left", [True, False], ids=["AX=B", "XA=B"])
@pytest.mark.parametrize("unitriangular", [False, True], ids=["diagonal", "unit"])
@pytest.mark.parametrize("shapes", [((3, 3), (3, 2)), ((2, 3, 3), (3, 3)), ((3, 3), (2, 3, 3)), ((2, 2, 2), (2, 2))],
                         ids=["matrix", "batched-A", "batched-B", "B-that-looks-like-vectors"])
def test_solve_triangular_as_torchs(upper, left, unitriangular, shapes):
    rng = _rng(6)
    a = rng.standard_normal(shapes[0]) + 3.0 * np.eye(shapes[0][-1])   # (the other triangle is not read)
    b = rng.standard_normal(shapes[1])
    if not left:
        b = np.swapaxes(b, -1, -2)
    results = []
    for T in (ag, torch):
        A, B = T.tensor(a, requires_grad=True), T.tensor(b, requires_grad=True)
        X = T.linalg.solve_triangular(A, B, upper=upper, left=left, unitriangular=unitriangular)
        (X * X).sum().backward()
        results.append((X, A.grad, B.grad))
    for ours, theirs in zip(*results):
        close(ours, theirs, **TOL["float64"])


@pytest.mark.parametrize("make", [lambda T: (T.eye(2), T.ones(2)), lambda T: (T.eye(2), T.ones(3, 1)),
                                  lambda T: (T.ones(2, 3), T.ones(2, 1))], ids=["vector-B", "rows", "not-square"])
def test_solve_triangular_refuses_as_torch(make):
    both_raise(lambda: ag.linalg.solve_triangular(*make(ag), upper=False),
               lambda: torch.linalg.solve_triangular(*make(torch), upper=False))


def test_matrix_exp_of_a_batch_makes_nan_only_the_matrices_holding_inf_or_nan():
    nan, inf = float("nan"), float("inf")
    data = [[[nan, 0.0], [0.0, 1.0]], [[1.0, 0.5], [0.0, 1.0]], [[inf, 0.0], [0.0, 0.0]]]
    ours, theirs = ag.matrix_exp(ag.tensor(data)), torch.matrix_exp(torch.tensor(data))
    close(ours, theirs)
    assert np.isnan(ours.numpy()[[0, 2]]).all() and np.isfinite(ours.numpy()[1]).all()


def test_solve_triangular_of_a_singular_triangle_is_refused_where_torch_gives_infinities():
    A, B = [[1.0, 2.0], [0.0, 0.0]], [[1.0], [1.0]]
    assert np.isinf(torch.linalg.solve_triangular(torch.tensor(A), torch.tensor(B), upper=True).numpy()).all()
    with pytest.raises(ag.linalg.LinAlgError, match="singular"):
        ag.linalg.solve_triangular(ag.tensor(A), ag.tensor(B), upper=True)


def test_linalg_cross_takes_the_last_dim_by_default_as_torch():
    """(``autogradlab.linalg.cross`` was ``autogradlab.cross``, whose dim=None picks the first dim of size 3.)"""
    data, other = np.arange(9.0).reshape(3, 3), np.array([[1.0, 0.0, 2.0]] * 3)
    close(ag.linalg.cross(ag.tensor(data), ag.tensor(other)), torch.linalg.cross(torch.tensor(data), torch.tensor(other)))
    close(ag.linalg.cross(ag.tensor(data), ag.tensor(other), dim=0),
          torch.linalg.cross(torch.tensor(data), torch.tensor(other), dim=0))



SINGULAR = {"rank-1 2x2": [[1.0, 2.0], [2.0, 4.0]], "rank-2 3x3": [[1.0, 2, 3], [4, 5, 6], [7, 8, 9]],
            "rank-2 3x3 with a zero row": [[1.0, 2, 0], [0, 1, 0], [0, 0, 0]],
            "rank-1 3x3": [[1.0, 2, 3], [2, 4, 6], [3, 6, 9]]}


@pytest.mark.parametrize("name", list(SINGULAR))
def test_det_has_second_derivatives_at_a_singular_matrix_as_torch(name):
    """With ``create_graph`` the gradient was det(A) inv(A)^T, which raised at a singular A (a Hessian of det
    there, Newton on a determinant); now the cofactors as determinants of minors: torch's values (to its
    rounding: its SVD-based path leaves about 1e-16 where the exact value is 0)."""
    def run(T):
        A = T.tensor(SINGULAR[name], dtype=T.float64, requires_grad=True)
        g, = T.autograd.grad(T.linalg.det(A), A, create_graph=True)
        weights = T.arange(1.0, A.numel() + 1, dtype=T.float64).reshape(A.shape)
        h, = T.autograd.grad((g * weights).sum(), A)
        hessian = T.autograd.functional.hessian(T.linalg.det, A.detach()).reshape(A.numel(), A.numel())
        return [t.detach().numpy() for t in (g, h, hessian)]
    for ours, theirs in zip(run(ag), run(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-7, atol=1e-9)


def test_det_derivatives_of_every_order_at_the_zero_matrix():
    """The cofactors of a 2x2 are linear in A: the second derivative is a constant, the third 0 (torch gives NaN
    at the zero matrix, and about 0.1 instead of 0 at a rank-1 one: its SVD-based path)."""
    for m in ([[0.0, 0.0], [0.0, 0.0]], [[1.0, 2.0], [2.0, 4.0]]):
        A = ag.tensor(m, dtype=ag.float64, requires_grad=True)
        g, = ag.autograd.grad(ag.linalg.det(A), A, create_graph=True)
        h, = ag.autograd.grad((g * ag.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=ag.float64)).sum(), A, create_graph=True)
        k, = ag.autograd.grad((h * h).sum(), A, allow_unused=True, materialize_grads=True)
        assert h.tolist() == [[4.0, -3.0], [-2.0, 1.0]] and k.tolist() == [[0.0, 0.0], [0.0, 0.0]]
