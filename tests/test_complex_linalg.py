"""Complex matrices in ``autogradlab.linalg``: the decompositions (cholesky, eigh, svd, qr), slogdet, pinv,
lstsq and the norms built on them, and ``linalg.eig``/``eigvals`` (complex for real matrices too). Values and
gradients against torch for batches in complex128 and complex64, second derivatives through
``create_graph=True``, finite differences, the check that a loss does not depend on the eigenvectors' phases,
and the errors.

A decomposition's complex vectors are fixed only up to a phase each, so the losses here are built from
quantities those phases leave alone (``abs(V)``, ``V diag(w) V^H``, ...), as a user's must be."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import import_torch

import autogradlab as ag
from autogradlab.testing import gradcheck

torch = import_torch()
RNG = np.random.default_rng(11)


def _complex(*shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def _general(*shape):
    """Well-conditioned complex square matrices."""
    return _complex(*shape) * 0.4 + 2 * np.eye(shape[-1])


def _hermitian(*shape):
    """Hermitian positive-definite matrices with well-separated eigenvalues."""
    a = _complex(*shape)
    return a @ np.swapaxes(a, -1, -2).conj() + shape[-1] * np.eye(shape[-1])


def _real_general(*shape):
    return RNG.standard_normal(shape) + 0.5 * np.eye(shape[-1])


def _parts(T, out):
    return tuple(out) if isinstance(out, tuple) else (out,)


def _abs_of(T, out, *which):
    """The outputs, with those at ``which`` (phase-dependent vectors) replaced by their absolute values."""
    return tuple(x.abs() if i in which else x for i, x in enumerate(out))


def _reconstruct(T, U, S, Vh):
    k = S.shape[-1]
    return (U[..., :, :k] * S[..., None, :].to(U.dtype)) @ Vh[..., :k, :]


CASES = {
    "slogdet": (lambda T, a: tuple(T.linalg.slogdet(a)), _general, (2, 3, 3)),
    "logdet": (lambda T, a: T.logdet(a), _general, (3, 3)),
    "cholesky": (lambda T, a: T.linalg.cholesky(a), _hermitian, (2, 3, 3)),
    "cholesky upper": (lambda T, a: T.linalg.cholesky(a, upper=True), _hermitian, (3, 3)),
    "cholesky of the lower triangle": (lambda T, a: T.linalg.cholesky(a + T.triu(a * 0.3j + 1, 1)), _hermitian, (3, 3)),
    "cholesky upper of the upper triangle": (lambda T, a: T.linalg.cholesky(a + T.tril(a * 0.3j + 1, -1), upper=True),
                                             _hermitian, (3, 3)),
    "eigvalsh": (lambda T, a: T.linalg.eigvalsh(a), _hermitian, (2, 4, 4)),
    "eigvalsh UPLO=U": (lambda T, a: T.linalg.eigvalsh(a, UPLO="U"), _hermitian, (4, 4)),
    "eigh": (lambda T, a: _abs_of(T, T.linalg.eigh(a), 1), _hermitian, (2, 4, 4)),
    "eigh V diag(w) V^H": (lambda T, a: (lambda w, v: (v * w[..., None, :].to(v.dtype)) @ v.mH)(*T.linalg.eigh(a)),
                           _hermitian, (3, 3)),
    "svdvals": (lambda T, a: T.linalg.svdvals(a), _complex, (2, 4, 3)),
    "svd square": (lambda T, a: _abs_of(T, T.linalg.svd(a), 0, 2), _complex, (3, 3)),
    "svd tall": (lambda T, a: _abs_of(T, T.linalg.svd(a, full_matrices=False), 0, 2), _complex, (2, 5, 3)),
    "svd wide": (lambda T, a: _abs_of(T, T.linalg.svd(a, full_matrices=False), 0, 2), _complex, (3, 5)),
    "svd full tall": (lambda T, a: _abs_of(T, T.linalg.svd(a), 0, 2), _complex, (5, 3)),
    "svd U S Vh": (lambda T, a: _reconstruct(T, *T.linalg.svd(a)), _complex, (2, 3, 5)),
    "svd U U^H": (lambda T, a: (lambda u: u @ u.mH)(T.linalg.svd(a, full_matrices=False)[0]), _complex, (5, 3)),
    "svd Vh^H Vh": (lambda T, a: (lambda vh: vh.mH @ vh)(T.linalg.svd(a, full_matrices=False)[2]), _complex, (3, 5)),
    "qr square": (lambda T, a: tuple(T.linalg.qr(a)), _complex, (2, 3, 3)),
    "qr tall": (lambda T, a: tuple(T.linalg.qr(a)), _complex, (5, 3)),
    "qr wide": (lambda T, a: tuple(T.linalg.qr(a)), _complex, (2, 3, 5)),
    "qr Q alone": (lambda T, a: T.linalg.qr(a)[0], _complex, (5, 3)),
    "qr R alone": (lambda T, a: T.linalg.qr(a)[1], _complex, (3, 5)),
    "pinv tall": (lambda T, a: T.linalg.pinv(a), _complex, (2, 5, 3)),
    "pinv wide": (lambda T, a: T.linalg.pinv(a), _complex, (3, 5)),
    "pinv hermitian": (lambda T, a: T.linalg.pinv(a, hermitian=True), _hermitian, (3, 3)),
    "lstsq tall": (lambda T, a: T.linalg.lstsq(a, a[..., :2] * 1j + 1).solution, _complex, (2, 5, 3)),
    "lstsq wide": (lambda T, a: T.linalg.lstsq(a, a[..., :2] * 1j + 1).solution, _complex, (3, 5)),
    "lstsq gelsd": (lambda T, a: tuple(T.linalg.lstsq(a, a[..., :2] * 1j + 1, driver="gelsd")[:2]), _complex, (5, 3)),
    "cond": (lambda T, a: T.linalg.cond(a), _complex, (2, 4, 3)),
    "matrix_norm nuc": (lambda T, a: T.linalg.matrix_norm(a, "nuc"), _complex, (3, 4)),
    "matrix_norm 2": (lambda T, a: T.linalg.matrix_norm(a, 2), _complex, (2, 3, 3)),
    "matrix_norm -2": (lambda T, a: T.linalg.matrix_norm(a, -2), _complex, (4, 3)),
    "eigvals": (lambda T, a: T.linalg.eigvals(a), _general, (2, 3, 3)),
    "eigvals of a real matrix": (lambda T, a: T.linalg.eigvals(a), _real_general, (2, 4, 4)),
    "eig": (lambda T, a: _abs_of(T, T.linalg.eig(a), 1), _general, (2, 3, 3)),
    "eig of a real matrix": (lambda T, a: _abs_of(T, T.linalg.eig(a), 1), _real_general, (4, 4)),
    "eig V diag(L) V^-1": (lambda T, a: (lambda w, v: (v * w[..., None, :]) @ T.linalg.inv(v))(*T.linalg.eig(a)),
                           _general, (3, 3)),
    "vecdot": (lambda T, a: T.linalg.vecdot(a, a * 2 + 1j), _complex, (3, 4)),
    "solve_triangular": (lambda T, a: T.linalg.solve_triangular(a, a * 1j + 1, upper=True), _general, (2, 3, 3)),
    "householder_product": (lambda T, a: T.linalg.householder_product(a, a[..., 0, :2] * 0.3), _complex, (2, 4, 3)),
    "cholesky_solve": (lambda T, a: T.cholesky_solve(a, T.linalg.cholesky(a @ a.mH)), _general, (3, 3)),
    "cholesky_inverse upper": (lambda T, a: T.cholesky_inverse(T.linalg.cholesky(a @ a.mH, upper=True), upper=True),
                               _general, (3, 3)),
    "older svd's V": (lambda T, a: (lambda u, s, v: (v * s.to(v.dtype)) @ v.mH)(*T.svd(a)), _complex, (4, 3)),
}


def _loss(T, outs, weights):
    """A real number from every output: Re(sum(y * w)) per complex output, sum(y * w) per real one."""
    total = 0
    for y, w in zip(outs, weights):
        s = (y * T.tensor(w)).sum()
        total = total + (s.real if s.is_complex() else s)
    return total


def _weights(outs):
    return [_complex(*y.shape) if y.is_complex() else RNG.standard_normal(tuple(y.shape)) for y in outs]


def _same(ours, theirs, rtol, atol):
    theirs = theirs.detach()
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
    np.testing.assert_allclose(ours.detach().numpy(), theirs.numpy(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
@pytest.mark.parametrize("name", list(CASES))
def test_values_and_gradients_as_torch(name, dtype):
    f, make, shape = CASES[name]
    data = make(*shape)
    data = data.astype(dtype if np.iscomplexobj(data) else {"complex128": "float64", "complex64": "float32"}[dtype])
    tol = {"rtol": 1e-9, "atol": 1e-10} if dtype == "complex128" else {"rtol": 2e-3, "atol": 2e-3}
    a, t = ag.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    outs, touts = _parts(ag, f(ag, a)), _parts(torch, f(torch, t))
    for y, ty in zip(outs, touts, strict=True):
        _same(y, ty, **tol)
    weights = _weights(touts)
    _loss(ag, outs, weights).backward()
    _loss(torch, touts, weights).backward()
    _same(a.grad, t.grad, **tol)


SECOND_ORDER = ["slogdet", "cholesky", "eigh", "svd tall", "qr wide", "pinv tall", "eig", "eigvals of a real matrix"]


@pytest.mark.parametrize("name", SECOND_ORDER)
def test_second_derivatives_through_create_graph_as_torch(name):
    """The gradient of |dL/dA|^2: each VJP recorded as a graph of its own and differentiated again."""
    f, make, shape = CASES[name]
    data = make(*shape)
    weights = None
    got = []
    for T in (ag, torch):
        a = T.tensor(data, requires_grad=True)
        outs = _parts(T, f(T, a))
        weights = weights or _weights(outs)
        (g,) = T.autograd.grad(_loss(T, outs, weights), a, create_graph=True)
        (g * g.conj()).real.sum().backward() if g.is_complex() else (g * g).sum().backward()
        got.append(a.grad)
    _same(*got, rtol=1e-8, atol=1e-9)


@pytest.mark.parametrize("f", [
    lambda a: ag.linalg.cholesky(a @ a.mH + 3 * ag.eye(3, dtype=a.dtype)),
    lambda a: ag.linalg.eigvals(a),
    lambda a: ag.linalg.eig(a).eigenvectors.abs(),
    lambda a: ag.linalg.eigvalsh(a + a.mH),
    lambda a: ag.linalg.svdvals(a),
    lambda a: ag.linalg.qr(a).R,
    lambda a: ag.linalg.slogdet(a).sign,
    lambda a: ag.linalg.pinv(a),
], ids=["cholesky", "eigvals", "eig |V|", "eigvalsh", "svdvals", "qr R", "slogdet sign", "pinv"])
def test_gradients_by_finite_differences(f):
    """dL/dRe A + i dL/dIm A, checked against finite differences of the pairs (Re A, Im A)."""
    a = ag.tensor(_general(3, 3), requires_grad=True)
    assert gradcheck(f, (a,), eps=1e-6, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("vectors", ["eigh", "eig", "svd U", "svd Vh", "older svd V"])
def test_a_loss_that_depends_on_the_vectors_phases_is_refused_as_torch(vectors):
    data = _hermitian(3, 3)
    pick = {"eigh": lambda T, a: T.linalg.eigh(a).eigenvectors, "eig": lambda T, a: T.linalg.eig(a).eigenvectors,
            "svd U": lambda T, a: T.linalg.svd(a).U, "svd Vh": lambda T, a: T.linalg.svd(a, full_matrices=False).Vh,
            "older svd V": lambda T, a: T.svd(a).V}[vectors]
    for T in (ag, torch):
        a = T.tensor(data, requires_grad=True)
        with pytest.raises(RuntimeError, match="phase" if T is ag else "e\\^\\{i phi\\}"):
            pick(T, a).real.sum().backward()   # (Re V changes when a column is multiplied by e^(i phi))


def test_a_loss_of_both_singular_vectors_free_of_their_phases_is_not_refused():
    """U diag(S) Vh and U Vh keep their value when a pair (U's column, Vh's row) takes e^(i phi) and e^(-i phi):
    each factor's part of the check may be large, their sum is 0."""
    data = _complex(4, 3)
    grads = []
    for T in (ag, torch):
        a = T.tensor(data, requires_grad=True)
        u, s, vh = T.linalg.svd(a, full_matrices=False)
        (u @ vh).real.sum().backward()
        grads.append(a.grad)
    _same(*grads, rtol=1e-9, atol=1e-10)


def test_the_sign_of_a_complex_determinant_has_a_gradient_a_real_ones_has_none_as_torch():
    z, r = _general(3, 3), RNG.standard_normal((3, 3)) + 2 * np.eye(3)
    for T in (ag, torch):
        assert T.linalg.slogdet(T.tensor(z, requires_grad=True)).sign.requires_grad
        sign = T.linalg.slogdet(T.tensor(r, requires_grad=True)).sign
        assert not sign.requires_grad or sign.grad_fn is not None   # (torch: a node whose gradient is 0)
    assert not ag.linalg.slogdet(ag.tensor(r, requires_grad=True)).sign.requires_grad


def test_eig_of_a_real_matrix_is_complex_and_its_gradient_real_as_torch():
    data = np.array([[0.0, -1.0], [1.0, 0.0]])   # a rotation: eigenvalues +-i
    for dtype, complex_dtype in (("float64", "complex128"), ("float32", "complex64")):
        a = ag.tensor(data.astype(dtype), requires_grad=True)
        w, v = ag.linalg.eig(a)
        assert w.dtype.name == v.dtype.name == complex_dtype
        assert sorted(w.detach().numpy().imag.round(6).tolist()) == [-1.0, 1.0]
        w.imag.sum().backward()
        assert a.grad.dtype.name == dtype
    identity = ag.linalg.eigvals(ag.eye(3, dtype=ag.float64))
    assert identity.dtype.name == "complex128" and identity.tolist() == [1, 1, 1]


def test_vecdot_conjugates_its_first_argument_and_takes_one_dtype_as_torch():
    x, y = _complex(4), _complex(4)
    for T in (ag, torch):
        assert np.isclose(T.linalg.vecdot(T.tensor(x), T.tensor(y)).item(), np.vdot(x, y))
        assert np.isclose(T.linalg.vecdot(T.tensor(x), T.tensor(x)).item(), np.sum(np.abs(x) ** 2))
        with pytest.raises(RuntimeError, match="same dtype"):
            T.linalg.vecdot(T.tensor(x), T.tensor(y.real))
        with pytest.raises(RuntimeError, match="floating point or complex"):
            T.linalg.vecdot(T.tensor([1, 2]), T.tensor([3, 4]))


def test_matrix_rank_of_complex_matrices_as_torch():
    low = _complex(4, 2) @ _complex(2, 4)
    for hermitian, data in ((False, low), (True, low @ low.conj().T)):
        assert ag.linalg.matrix_rank(ag.tensor(data), hermitian=hermitian).item() == \
            torch.linalg.matrix_rank(torch.tensor(data), hermitian=hermitian).item() == 2
    tolerance = ag.tensor([1e3])   # (a tolerance tensor is real, for a complex matrix too)
    assert ag.linalg.matrix_rank(ag.tensor(low[None]), atol=tolerance).item() == \
        torch.linalg.matrix_rank(torch.tensor(low[None]), atol=torch.tensor([1e3])).item()


@pytest.mark.parametrize("name", ["inv", "det", "cholesky", "eig", "eigvals", "svd", "qr", "pinv"])
def test_integer_matrices_are_refused_naming_the_fix_as_torch(name):
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor as input.*e.g. A.double()"):
        getattr(ag.linalg, name)(ag.tensor([[1, 2], [3, 4]]))
    with pytest.raises(RuntimeError):   # (torch's message says the same, but for eig: "Unknown Complex ScalarType")
        getattr(torch.linalg, name)(torch.tensor([[1, 2], [3, 4]]))


def test_eig_of_a_matrix_holding_nan_gives_nan_for_it():
    data = np.stack([np.array([[1.0, np.nan], [0.0, 1.0]]), np.array([[1.0, 2.0], [3.0, 4.0]])])
    w, v = ag.linalg.eig(ag.tensor(data))
    assert np.isnan(w[0].numpy().real).all() and np.isnan(v[0].numpy().imag).all()
    np.testing.assert_allclose(np.sort(w[1].numpy().real), np.sort(np.linalg.eigvals(data[1]).real))


def test_a_complex_tolerance_is_refused_as_torch():
    for T in (ag, torch):
        with pytest.raises(RuntimeError, match="complex"):
            T.linalg.pinv(T.eye(2, dtype=T.complex128), atol=T.tensor(1j))
