"""The LU decomposition and the rest of ``torch.linalg``'s names: ``lu_factor``/``lu_factor_ex``/``lu``/
``lu_solve`` (values, LAPACK's pivots, gradients of square, wide and tall matrices, real and complex, second
derivatives), ``inv_ex``/``solve_ex``/``cholesky_ex`` (``info`` and ``check_errors``), ``tensorinv``,
``tensorsolve``, ``vander``, ``diagonal`` and ``matmul``, against torch."""
from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from conftest import import_torch

import autogradlab as ag
from autogradlab.testing import gradcheck, gradgradcheck

torch = import_torch()
RNG = np.random.default_rng(5)


def _real(*shape):
    return RNG.standard_normal(shape)


def _complex(*shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def _as_real(T, y):
    """A complex output as its (x, y) pairs (torch's lu_solve may hand back a lazily conjugated view)."""
    if not y.is_complex():
        return y
    return T.view_as_real(y.resolve_conj() if T is torch else y)


def _compare(f, *arrays, rtol=1e-9, atol=1e-11):
    """Values and gradients of every output of ``f(T, *tensors)``, against torch's."""
    ours = [ag.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    outs, touts = f(ag, *ours), f(torch, *theirs)
    outs, touts = (outs, touts) if isinstance(outs, tuple) else ((outs,), (touts,))
    loss, tloss = 0, 0
    for y, ty in zip(outs, touts, strict=True):
        y, ty = _as_real(ag, y), _as_real(torch, ty)
        assert tuple(y.shape) == tuple(ty.shape) and y.dtype.name == str(ty.dtype).removeprefix("torch.")
        np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=rtol, atol=atol)
        if ty.requires_grad:
            w = RNG.standard_normal(tuple(ty.shape))
            loss, tloss = loss + (y * ag.tensor(w)).sum(), tloss + (ty * torch.tensor(w)).sum()
    loss.backward()
    tloss.backward()
    for a, t in zip(ours, theirs):
        np.testing.assert_allclose(a.grad.numpy(), t.grad.resolve_conj().numpy(), rtol=rtol, atol=atol)


SHAPES = [(4, 4), (2, 3, 3), (3, 5), (2, 5, 3), (1, 1)]


@pytest.mark.parametrize("make", [_real, _complex], ids=["real", "complex"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_lu_factor_and_lu_as_torch(shape, make):
    data = make(*shape)
    for T in (ag, torch):   # LAPACK's pivots: a swap per step, counted from 1
        pivots = T.linalg.lu_factor(T.tensor(data)).pivots
        assert pivots.dtype == T.int32
    np.testing.assert_array_equal(ag.linalg.lu_factor(ag.tensor(data)).pivots.numpy(),
                                  torch.linalg.lu_factor(torch.tensor(data)).pivots.numpy())
    _compare(lambda T, a: T.linalg.lu_factor(a).LU, data)
    _compare(lambda T, a: tuple(T.linalg.lu(a)), data)
    P, L, U = ag.linalg.lu(ag.tensor(data))
    np.testing.assert_allclose((P.to(L.dtype) @ L @ U).numpy(), data, atol=1e-12)


@pytest.mark.parametrize("shape", [(150, 150), (2, 70, 140), (140, 70)], ids=str)
@pytest.mark.parametrize("make", [_real, _complex], ids=["real", "complex"])
def test_blocked_elimination_agrees_with_torch_and_with_one_step_at_a_time(shape, make, monkeypatch):
    """Past one panel (``_PANEL`` columns) the rows below are updated by a matrix product: the pivots stay
    LAPACK's, and the packed factor, its pivots and info those of one step at a time (to rounding), also for
    pivot=False and for a matrix with a zero column in the second panel (a zero pivot there in every order)."""
    from autogradlab.ops import lu as lu_module
    k = min(shape[-2:])
    assert k > lu_module._PANEL
    data = make(*shape)
    singular = data.copy()
    singular[..., k - 5] = 0
    for a in (data, singular):
        LU, pivots, info = ag.linalg.lu_factor_ex(ag.tensor(a))
        tLU, tpivots, tinfo = torch.linalg.lu_factor_ex(torch.tensor(a))
        np.testing.assert_array_equal(pivots.numpy(), tpivots.numpy())
        np.testing.assert_array_equal(info.numpy(), tinfo.numpy())
        np.testing.assert_allclose(LU.numpy(), tLU.numpy(), rtol=1e-8, atol=1e-10)
    assert (info.numpy() == k - 4).all()
    dominant = data + k * np.eye(*shape[-2:])   # (no pivoting is stable only for such a matrix)
    cases = [(data, True), (singular, True), (dominant, False), (dominant * (singular != 0), False)]
    blocked = [lu_module._eliminate(np, a, search=s) for a, s in cases]
    monkeypatch.setattr(lu_module, "_PANEL", 10 ** 6)
    for (a, s), (lu, piv, info) in zip(cases, blocked):
        one_lu, one_piv, one_info = lu_module._eliminate(np, a, search=s)
        np.testing.assert_array_equal(piv, one_piv)
        np.testing.assert_array_equal(info, one_info)
        np.testing.assert_allclose(lu, one_lu, rtol=1e-9, atol=1e-10)


def test_pivots_follow_lapack_for_complex_numbers():
    """LAPACK picks the pivot of largest |Re| + |Im|, not of largest |z|: here 2.9+2.9j (|z| 4.10) over 4.2."""
    data = np.array([[2.9 + 2.9j, 1], [4.2, 2]])
    assert ag.linalg.lu_factor(ag.tensor(data)).pivots.tolist() == \
        torch.linalg.lu_factor(torch.tensor(data)).pivots.tolist() == [1, 2]


@pytest.mark.parametrize("make", [_real, _complex], ids=["real", "complex"])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve_as_torch(left, adjoint, make):
    a = make(2, 4, 4) + 3 * np.eye(4)
    b = make(2, 4, 3) if left else make(2, 3, 4)

    def f(T, a, b):
        LU, pivots = T.linalg.lu_factor(a)
        return T.linalg.lu_solve(LU, pivots, b, left=left, adjoint=adjoint)
    _compare(f, a, b, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("f", [
    lambda a: ag.linalg.lu_factor(a).LU,
    lambda a: ag.linalg.lu(a[..., :2, :]).U,
    lambda a: ag.linalg.lu(a[..., :, :2]).L,
    lambda a: (lambda LU, p: ag.linalg.lu_solve(LU, p, a.mT))(*ag.linalg.lu_factor(a)),
], ids=["square", "wide U", "tall L", "lu_solve"])
def test_first_and_second_derivatives_by_finite_differences(f):
    a = ag.tensor(_real(3, 3) + 2 * np.eye(3), requires_grad=True)
    assert gradcheck(f, (a,)) and gradgradcheck(f, (a,))


def test_a_singular_matrix_is_factored_and_reported_as_torch():
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    batch = np.stack([singular, np.eye(2) + 0.5])
    for T in (ag, torch):
        LU, pivots, info = T.linalg.lu_factor_ex(T.tensor(batch))
        assert info.tolist() == [2, 0] and info.dtype == T.int32 and pivots.tolist() == [[2, 2], [1, 2]]
        assert float(LU[0, 1, 1]) == 0.0
        assert T.linalg.lu(T.tensor(singular)).U[1, 1].item() == 0.0   # (lu never checks)
        with pytest.raises(RuntimeError, match="U\\[2,2\\] is zero"):
            T.linalg.lu_factor(T.tensor(batch))
        for call in (lambda: T.linalg.inv_ex(T.tensor(batch)), lambda: T.linalg.solve_ex(T.tensor(batch), T.tensor(batch))):
            assert call().info.tolist() == [2, 0]
        with pytest.raises(RuntimeError, match="singular"):
            T.linalg.inv_ex(T.tensor(batch), check_errors=True)
        with pytest.raises(RuntimeError, match="singular"):
            T.linalg.solve_ex(T.tensor(batch), T.tensor(batch), check_errors=True)


def test_the_ex_functions_give_answers_and_gradients_where_info_is_zero():
    """Where info is 0 the result and its gradient are inv's, solve's, cholesky's; elsewhere NaN (no answer)."""
    singular, good = np.array([[1.0, 2.0], [2.0, 4.0]]), np.array([[2.0, 1.0], [1.0, 3.0]])
    batch = np.stack([singular, good])
    a, t = ag.tensor(batch, requires_grad=True), torch.tensor(good, requires_grad=True)
    inverse = ag.linalg.inv_ex(a).inverse
    assert np.isnan(inverse[0].detach().numpy()).all()
    (inverse[1] ** 2).sum().backward()
    (torch.linalg.inv(t) ** 2).sum().backward()
    np.testing.assert_allclose(a.grad[1].numpy(), t.grad.numpy(), rtol=1e-12)
    assert not a.grad[0].numpy().any()
    result = ag.linalg.solve_ex(ag.tensor(batch), ag.tensor(batch[..., 0])).result   # (a vector per matrix)
    assert np.isnan(result[0].numpy()).all()
    np.testing.assert_allclose(result[1].numpy(), np.linalg.solve(good, good[:, 0]))
    not_definite = np.array([[1.0, 2.0], [2.0, 1.0]])
    spd = np.stack([not_definite, good, np.eye(2) * 4])
    for T in (ag, torch):
        assert T.linalg.cholesky_ex(T.tensor(spd)).info.tolist() == [2, 0, 0]
        assert T.linalg.cholesky_ex(T.tensor(spd), upper=True).info.tolist() == [2, 0, 0]
        with pytest.raises(RuntimeError, match="leading minor of order 2 is not positive-definite"):
            T.linalg.cholesky_ex(T.tensor(not_definite), check_errors=True)
    L = ag.linalg.cholesky_ex(ag.tensor(spd)).L
    assert np.isnan(L[0].numpy()).all()
    np.testing.assert_allclose(L[1:].numpy(), torch.linalg.cholesky(torch.tensor(spd[1:])).numpy(), rtol=1e-12)


def test_cholesky_info_names_the_first_failing_minor():
    """info is the order of the first leading minor that is not positive-definite, as LAPACK's (3 here)."""
    data = np.diag([4.0, 1.0, -1.0, 2.0])
    data[0, 1] = data[1, 0] = 0.5
    for T in (ag, torch):
        assert T.linalg.cholesky_ex(T.tensor(data)).info.item() == 3


def test_no_pivoting_where_torchs_cpu_refuses():
    """pivot=False: the rows as given (PyTorch's CPU build raises); a zero pivot is reported."""
    data = np.array([[2.0, 1.0], [4.0, 5.0]])
    LU, pivots, info = ag.linalg.lu_factor_ex(ag.tensor(data), pivot=False)
    assert pivots.tolist() == [1, 2] and info.item() == 0
    np.testing.assert_allclose(LU.numpy(), [[2.0, 1.0], [2.0, 3.0]])
    P, L, U = ag.linalg.lu(ag.tensor(data), pivot=False)
    assert P.numel() == 0 and np.allclose((L @ U).numpy(), data)
    assert ag.linalg.lu_factor_ex(ag.tensor([[0.0, 1.0], [1.0, 0.0]]), pivot=False).info.item() == 1
    with pytest.raises(RuntimeError, match="not implemented on the CPU"):
        torch.linalg.lu_factor(torch.tensor(data), pivot=False)


@pytest.mark.parametrize("call, match", [
    (lambda T: T.linalg.lu_factor(T.tensor([1.0, 2.0])), "at least 2 dimensions|2 or more dimensions"),
    (lambda T: T.linalg.lu_factor(T.tensor([[1, 2], [3, 4]])), "floating point|not implemented for 'Long'"),
    (lambda T: T.linalg.lu_solve(*T.linalg.lu_factor(T.eye(3, dtype=T.float64)), T.ones(2, 2, dtype=T.float64)),
     "Incompatible shapes of A and B for the equation AX = B \\(3x3 and 2x2\\)"),
    (lambda T: T.linalg.lu_solve(*T.linalg.lu_factor(T.eye(3, dtype=T.float64)), T.ones(3, 2)),
     "Expected LU and B to have the same dtype"),
    (lambda T: T.linalg.tensorinv(T.ones(4, 5, 8, 3), ind=2), "prod\\(self.shape\\[ind:\\]\\) == prod"),
    (lambda T: T.linalg.tensorinv(T.ones(4, 4), ind=0), "strictly positive integer for 'ind'"),
    (lambda T: T.linalg.vander(T.ones(3), N=1), "N must be greater than 1"),
])
def test_bad_calls_raise_as_torch(call, match):
    for T in (ag, torch):
        with pytest.raises(RuntimeError, match=match):
            call(T)


@pytest.mark.parametrize("name", ["tensorinv", "tensorinv ind=1", "tensorsolve", "tensorsolve dims", "vander",
                                  "vander N", "diagonal", "diagonal dims", "matmul"])
def test_the_other_linalg_names_as_torch(name):
    eye6 = np.eye(6).reshape(2, 3, 6)
    f, arrays = {
        "tensorinv": (lambda T, a: T.linalg.tensorinv(a), [_real(2, 3, 6) + eye6]),
        "tensorinv ind=1": (lambda T, a: T.linalg.tensorinv(a, ind=1), [_real(4, 2, 2) + np.eye(4).reshape(4, 2, 2)]),
        "tensorsolve": (lambda T, a, b: T.linalg.tensorsolve(a, b), [_real(2, 3, 6) + eye6, _real(2, 3)]),
        "tensorsolve dims": (lambda T, a, b: T.linalg.tensorsolve(a, b, dims=(0,)),
                             [_real(6, 2, 3) + np.eye(6).reshape(6, 2, 3), _real(3, 2)]),
        "vander": (lambda T, x: T.linalg.vander(x), [_real(2, 3)]),
        "vander N": (lambda T, x: T.linalg.vander(x, N=5), [_real(4)]),
        "diagonal": (lambda T, a: T.linalg.diagonal(a, offset=1), [_real(2, 3, 4)]),
        "diagonal dims": (lambda T, a: T.linalg.diagonal(a, dim1=0, dim2=2), [_real(3, 2, 3)]),
        "matmul": (lambda T, a, b: T.linalg.matmul(a, b), [_real(2, 3), _real(3, 4)]),
    }[name]
    _compare(f, *arrays)


def test_a_traced_lu_backward_tells_its_steps():
    a = ag.tensor(_real(3, 3), requires_grad=True, name="A")
    with ag.trace() as tape:
        ag.linalg.lu_factor(a).LU.sum().backward()
    steps = [e.node_name for e in tape.of_kind("GradientComputed")]
    assert "LuFactorBackward" in steps
    json.loads(tape.to_json())   # (the op's pivots, a parameter, travel as plain JSON)


def test_the_older_names_as_torch():
    """torch.lu (packed, get_infos=), torch.lu_solve and torch.triangular_solve (the older order of arguments,
    with a warning that they go), torch.lu_unpack, torch.orgqr, and Tensor.H (the conjugate transpose)."""
    a, b = _real(3, 3) + 2 * np.eye(3), _real(3, 2)

    def older(T, a, b):
        with pytest.warns(UserWarning, match="deprecated"):
            LU, pivots = T.lu(a)
        P, L, U = T.lu_unpack(LU, pivots)
        with pytest.warns(UserWarning, match="deprecated"):
            x = T.lu_solve(b, LU, pivots)
        with pytest.warns(UserWarning, match="deprecated"):
            t = T.triangular_solve(b, a, upper=False, transpose=True)
        return LU, L, U, x, t.solution, t.cloned_coefficient, T.orgqr(a, a[0, :2] * 0.5)
    _compare(older, a, b)
    for T in (ag, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert T.lu(T.tensor([[1.0, 2.0], [2.0, 4.0]]), get_infos=True)[2].item() == 2   # (no error: in info)
            assert T.tensor(a).lu()[1].tolist() == T.lu(T.tensor(a))[1].tolist()
        with pytest.raises(RuntimeError, match="tau dtype"):
            T.orgqr(T.tensor(a), T.ones(2))
    z = _complex(2, 3)
    np.testing.assert_array_equal(ag.tensor(z).H.numpy(), torch.tensor(z).H.resolve_conj().numpy())


def test_the_ex_functions_never_raise_for_a_matrix_singular_to_rounding():
    """arange(1, 10) as a 3x3 matrix is singular; LAPACK's elimination may meet an exact 0 or a tiny pivot, so
    info may be 0 or not (torch: 0 here), but there is no error, and the other matrices of the batch are solved."""
    batch = np.stack([np.arange(1.0, 10.0).reshape(3, 3), np.eye(3) * 2])
    for name, expected in (("inv_ex", np.eye(3) / 2), ("solve_ex", np.eye(3))):
        call = getattr(ag.linalg, name)
        out, info = call(ag.tensor(batch)) if name == "inv_ex" else call(ag.tensor(batch), ag.tensor(batch))
        assert info[1].item() == 0
        np.testing.assert_allclose(out[1].numpy(), expected, rtol=1e-12)
        assert info[0].item() == 0 or np.isnan(out[0].numpy()).all()


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (3, 0), (0, 3)], ids=str)
def test_empty_matrices_as_torch(shape):
    def shapes(outs):
        return [tuple(t.shape) for t in outs]
    for call in (lambda T, x: T.linalg.lu(x), lambda T, x: T.linalg.lu_factor_ex(x),
                 lambda T, x: T.linalg.inv_ex(x), lambda T, x: T.linalg.cholesky_ex(x)):
        if shape[-1] != shape[-2] and call.__code__.co_names[-1] in ("inv_ex", "cholesky_ex"):
            continue
        assert shapes(call(ag, ag.zeros(*shape, dtype=ag.float64))) == \
            shapes(call(torch, torch.zeros(*shape, dtype=torch.float64)))


def test_the_gradient_through_the_lu_of_a_singular_matrix_is_nan_as_torch():
    for T in (ag, torch):
        a = T.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=T.float64, requires_grad=True)
        T.linalg.lu(a).L.sum().backward()
        assert np.isnan(a.grad.numpy()).all()


def test_lu_solve_checks_its_pivots_and_refuses_a_singular_factor():
    LU, pivots = ag.linalg.lu_factor(ag.eye(2, dtype=ag.float64))
    for bad, match in ((pivots.to(ag.int64), "int32"), (ag.zeros_like(pivots), "between 1 and 2"),
                       (pivots[:1], "pivots.shape")):
        with pytest.raises(RuntimeError, match=match):
            ag.linalg.lu_solve(LU, bad, ag.ones(2, 1, dtype=ag.float64))
    LU, pivots, info = ag.linalg.lu_factor_ex(ag.tensor([[1.0, 2.0], [2.0, 4.0]]))
    with pytest.raises(ag.linalg.LinAlgError, match="0 on its diagonal"):   # (torch: infinities)
        ag.linalg.lu_solve(LU, pivots, ag.ones(2, 1))


def test_triangular_solve_broadcasts_its_copy_of_A_as_torch():
    for T in (ag, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = T.triangular_solve(T.ones(2, 3, 2, dtype=T.float64), T.eye(3, dtype=T.float64))
        assert tuple(out.cloned_coefficient.shape) == (2, 3, 3)
