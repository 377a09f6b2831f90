"""PyTorch's torch-level matrix functions beside torch.linalg (``autogradlab/older_names.py``), the matrix
trace (``trace(x)`` of a tensor, while ``trace()`` stays the recorder) and ``logcumsumexp``: side by side with
torch 2.13, values, dtypes, gradients and errors, and by finite differences in float64."""
import warnings

import numpy as np
import pytest

import autogradlab as ag
from conftest import import_torch
from torch_compare import both_raise

torch = import_torch()
_rng = np.random.default_rng(20261129)


def _pair(array):
    return ag.tensor(array, requires_grad=True), torch.tensor(array, requires_grad=True)


def _close(ours, theirs, rtol=1e-10, atol=1e-12):
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol, atol=atol)


# -- the matrix trace, and trace() the recorder ------------------------------------------------------------

def test_trace_of_a_matrix_is_torchs_value_dtype_and_gradient():
    M = _rng.standard_normal((3, 4))
    (a, t) = _pair(M)
    ours, theirs = ag.trace(a), torch.trace(t)
    _close(ours, theirs)
    assert a.trace().item() == ours.item()
    ours.backward()
    theirs.backward()
    np.testing.assert_array_equal(a.grad.numpy(), t.grad.numpy())
    assert ag.trace(ag.arange(9).reshape(3, 3)).dtype == ag.int64 == ag.tensor(torch.trace(
        torch.arange(9).reshape(3, 3)).item()).dtype


def test_trace_without_a_tensor_is_still_the_recorder():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    with ag.trace(max_elements=4) as tape:
        (x * 3).sum().backward()
    assert isinstance(tape, ag.Tape) and len(tape.events) > 0
    assert isinstance(ag.trace(), ag.trace)


@pytest.mark.parametrize("call", [lambda T: T.trace(T.ones(3)), lambda T: T.ones(2, 2, 2).trace(),
                                  lambda T: T.ones(3).H, lambda T: T.ones(3).adjoint(),
                                  lambda T: T.chain_matmul(T.ones(2, 2), T.ones(2)),
                                  lambda T: T.chain_matmul(T.ones(2, 3), T.ones(2, 3)),
                                  lambda T: T.renorm(T.ones(3), 2, 0, 1.0),
                                  lambda T: T.renorm(T.ones(2, 3), -1, 0, 1.0),
                                  lambda T: T.renorm(T.ones(2, 3), 2, 2, 1.0),
                                  lambda T: T.renorm(T.ones(2, 3), 2, 0, -1.0),
                                  lambda T: T.cholesky_solve(T.ones(3, 2), T.ones(2, 2)),
                                  lambda T: T.cholesky_solve(T.ones(3), T.eye(3)),
                                  lambda T: T.cholesky_inverse(T.ones(2, 3)),
                                  lambda T: T.logcumsumexp(T.tensor([1, 2]), 0),
                                  lambda T: T.logcumsumexp(T.ones(2, 3), 2)])
def test_bad_arguments_raise_torchs_error_class(call):
    both_raise(lambda: call(ag), lambda: call(torch))


# -- svd and qr with PyTorch's older arguments -----------------------------------------------------------

@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 3)])
@pytest.mark.parametrize("some", [True, False])
def test_svd_gives_U_S_V_as_torch_with_sign_free_gradients(shape, some):
    A = _rng.standard_normal(shape)
    (a, t) = _pair(A)
    ours, theirs = ag.svd(a, some=some), torch.svd(t, some=some)
    assert type(ours).__name__ == "svd" and ours._fields == ("U", "S", "V")
    k = min(shape[-2:])   # (the vectors past the k-th: any basis of the rest, no gradient)
    for o, th in zip(ours, theirs):   # (each pair of vectors up to a common sign)
        _close(abs(o[..., :k]) if o.ndim == len(shape) else o, th[..., :k].abs() if th.ndim == len(shape) else th)
    _close(ours.U[..., :, :k] @ ag.diag_embed(ours.S) @ ours.V[..., :, :k].mT, t)
    for factor in (ours.U, ours.V):   # (all their columns orthonormal)
        _close(factor.mT @ factor, ag.eye(factor.shape[-1], dtype=ag.float64).expand(*factor.shape[:-2], -1, -1))
    loss = lambda r: (r[0][..., :k] ** 2 * 0.3).sum() + (r[2][..., :k] ** 2).sum() + r[1].sum()  # noqa: E731
    loss(ours).backward()
    loss(theirs).backward()
    np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-8, atol=1e-10)


def test_svd_without_uv_gives_zeros_and_svdvals_gradient():
    A = _rng.standard_normal((4, 3))
    (a, t) = _pair(A)
    ours, theirs = a.svd(compute_uv=False), t.svd(compute_uv=False)
    for o, th in zip(ours, theirs):
        _close(o, th)
    ours.S.sum().backward()
    theirs.S.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-10)


@pytest.mark.parametrize("shape", [(4, 3), (3, 5)])
@pytest.mark.parametrize("some", [True, False])
def test_qr_with_some_is_torchs(shape, some):
    A = _rng.standard_normal(shape)
    if not some and shape[0] > shape[1]:   # (complete Q of a tall matrix: no gradient, in either)
        ours, theirs = ag.qr(ag.tensor(A), some=False), torch.qr(torch.tensor(A), some=False)
        for o, th in zip(ours, theirs):
            _close(o, th)
        return
    (a, t) = _pair(A)
    ours, theirs = a.qr(some=some), torch.qr(t, some=some)
    for o, th in zip(ours, theirs):
        _close(o, th)
    (ours.Q.sum() + (ours.R ** 2).sum()).backward()
    (theirs.Q.sum() + (theirs.R ** 2).sum()).backward()
    np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-9, atol=1e-11)


# -- products and transposes ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["ger", "chain_matmul 1", "chain_matmul 3", "adjoint", "mH", "H", "H of a 0-d"])
def test_products_and_transposes_match_torch(name):
    calls = {
        "ger": (lambda T, a: T.ger(a[0], a[1, :3]), (2, 4)),
        "chain_matmul 1": (lambda T, a: T.chain_matmul(a), (2, 3)),
        "chain_matmul 3": (lambda T, a: T.chain_matmul(a, a.T * 2, a + 1), (3, 3)),
        "adjoint": (lambda T, a: T.adjoint(a) * a.adjoint(), (2, 3, 3)),
        "mH": (lambda T, a: a.mH @ a, (2, 4, 3)),
        "H": (lambda T, a: a.H @ a, (4, 3)),
        "H of a 0-d": (lambda T, a: a.H * 2, ()),
    }
    call, shape = calls[name]
    (a, t) = _pair(_rng.standard_normal(shape))
    with warnings.catch_warnings():   # (torch warns once: chain_matmul is deprecated, and so is H of a 0-d)
        warnings.simplefilter("ignore", UserWarning)
        theirs = call(torch, t)
    ours = call(ag, a)
    _close(ours, theirs)
    seed = _rng.standard_normal(tuple(theirs.shape))
    ours.backward(ag.tensor(seed))
    theirs.backward(torch.tensor(seed))
    np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


# -- the Cholesky factor's solves -------------------------------------------------------------------------

def _factor(batch=()):
    M = _rng.standard_normal((*batch, 3, 3))
    return np.linalg.cholesky(M @ np.swapaxes(M, -1, -2) + 3 * np.eye(3))


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("batch", [(), (2,)])
def test_cholesky_solve_and_inverse_are_torchs_on_the_triangle_they_read(upper, batch):
    lower = _factor(batch)
    F = np.swapaxes(lower, -1, -2).copy() if upper else lower
    B = _rng.standard_normal((*batch, 3, 2))
    read = np.triu(np.ones((3, 3), bool)) if upper else np.tril(np.ones((3, 3), bool))
    for call in (lambda T, f, b: T.cholesky_solve(b, f, upper=upper) ** 2,
                 lambda T, f, b: f.cholesky_inverse(upper) * (b[..., :1] + 1)):
        (f, tf), (b, tb) = _pair(F), _pair(B)
        ours, theirs = call(ag, f, b), call(torch, tf, tb)
        _close(ours, theirs)
        seed = _rng.standard_normal(tuple(theirs.shape))
        ours.backward(ag.tensor(seed))
        theirs.backward(torch.tensor(seed))
        np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy(), rtol=1e-9, atol=1e-11)
        np.testing.assert_allclose(f.grad.numpy()[..., read], tf.grad.numpy()[..., read], rtol=1e-9, atol=1e-11)
        # the other triangle is not read: no gradient there (torch's formula gives one)
        assert not f.grad.numpy()[..., ~read].any() and tf.grad.numpy()[..., ~read].any()
    inverse = ag.cholesky_inverse(ag.tensor(F), upper=upper).numpy()
    np.testing.assert_allclose(inverse, np.linalg.inv(lower @ np.swapaxes(lower, -1, -2)), rtol=1e-10)


def test_cholesky_solve_gradients_match_finite_differences():
    lower, B = _factor(), _rng.standard_normal((3, 2))
    assert ag.autograd.gradcheck(lambda f, b: ag.cholesky_solve(b, f.tril()), (ag.tensor(lower, requires_grad=True),
                                                                               ag.tensor(B, requires_grad=True)))


# -- renorm -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("p, dim, maxnorm", [(2, 0, 1.5), (1, 1, 2.0), (3, -1, 0.8), (2.5, 1, 100.0)])
def test_renorm_matches_torch_and_finite_differences(p, dim, maxnorm):
    X = _rng.standard_normal((3, 4, 2))
    (a, t) = _pair(X)
    ours, theirs = ag.renorm(a, p, dim, maxnorm), torch.renorm(t, p, dim, maxnorm)
    _close(ours, theirs)
    seed = _rng.standard_normal(X.shape)
    ours.backward(ag.tensor(seed))
    theirs.backward(torch.tensor(seed))
    np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-9, atol=1e-12)
    assert ag.autograd.gradcheck(lambda z: z.renorm(p, dim, maxnorm), (ag.tensor(X, requires_grad=True),))


def test_renorm_in_place_writes_the_tensor_as_torch():
    X = _rng.standard_normal((2, 3)).astype(np.float32) * 4
    ours, theirs = ag.tensor(X), torch.tensor(X)
    assert ours.renorm_(2, 0, 1.0) is ours
    theirs.renorm_(2, 0, 1.0)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


# -- logcumsumexp -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_logcumsumexp_matches_torch_also_at_extremes(dtype):
    X = np.array([[-1000.0, 0.0, 1000.0, -np.inf, 5.0, np.inf, 3.0],
                  [-np.inf, -np.inf, 2.0, -3.0, 40.0, -40.0, np.nan]]).astype(dtype)
    ours, theirs = ag.logcumsumexp(ag.tensor(X), 1), torch.logcumsumexp(torch.tensor(X), 1)
    assert ours.dtype.name == dtype
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-3 if dtype == "float16" else 1e-6)
    wide = _rng.standard_normal((3, 50)).astype(dtype) * 30
    np.testing.assert_allclose(ag.tensor(wide).logcumsumexp(-1).numpy(),
                               torch.tensor(wide).logcumsumexp(-1).numpy(), rtol=2e-3 if dtype == "float16" else 1e-5)


def test_logcumsumexp_first_and_second_derivatives_are_torchs():
    X, G = _rng.standard_normal((4, 6)) * 3, _rng.standard_normal((4, 6))
    results = []
    for T in (ag, torch):
        a, g = T.tensor(X, requires_grad=True), T.tensor(G, requires_grad=True)
        (d,) = T.autograd.grad(T.logcumsumexp(a, 1), a, g, create_graph=True)
        results.append([d.detach().numpy()] + [r.numpy() for r in T.autograd.grad((d * d).sum(), (a, g))])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


def test_logcumsumexp_second_derivative_where_the_gradient_is_0_is_exact_where_torchs_is_nan():
    # d(sum_j dx_j)/dg_i = sum_{j <= i} e^(x_j - y_i) = 1 exactly; torch's log|g| makes it NaN where g_i = 0.
    # The VJP's wheres keep log(0) and -inf - (-inf) out of the graph.
    X, G = np.array([-3.0, 0.5, -1.0, 2.0]), np.array([1.0, 0.0, -2.0, 0.0])
    results = []
    for T in (ag, torch):
        a, g = T.tensor(X, requires_grad=True), T.tensor(G, requires_grad=True)
        (d,) = T.autograd.grad(T.logcumsumexp(a, 0), a, g, create_graph=True)
        results.append([d.detach().numpy()] + [r.numpy() for r in T.autograd.grad(d.sum(), (a, g))])
    (d, da, dg), (td, tda, tdg) = results
    np.testing.assert_allclose(d, td, rtol=1e-12)
    np.testing.assert_allclose(da, tda, atol=1e-12)
    np.testing.assert_allclose(dg, np.ones(4), rtol=1e-12)
    assert np.isnan(tdg[G == 0]).all() and np.allclose(tdg[G != 0], 1.0)
