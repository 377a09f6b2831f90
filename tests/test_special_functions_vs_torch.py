"""The special functions (``lgamma``, ``digamma``, ``polygamma``, ``mvlgamma``, ``zeta``, ``erfc``, ``erfcx``,
``erfinv``, ``ndtr``, ``ndtri``, ``log_ndtr``, ``i0``, ``i0e``, ``i1``, ``i1e``, ``xlog1py``, ``entr``) against
torch 2.13 over wide grids in float64 (tails, poles, infinities, NaN), in float32 and float16, their methods and
in-place forms, gradients at the conventions' points, and the errors; where torch's own value is inexact (its
trigamma, ``ndtr``'s left tail, ``i0`` near float64's end) against an independent reference instead. The
gradients on random inputs, first and second order, are in ``test_ops_gradcheck.py`` / ``test_ops_torch.py``."""
from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import host, import_torch

import autogradlab as ag

torch = import_torch()

NAN, INF = float("nan"), float("inf")
_rng = np.random.default_rng(11)
# a wide grid: a fine sweep, random values, tiny and huge magnitudes, the special functions' switch points
GRID = np.concatenate([np.linspace(-40.0, 40.0, 1601), _rng.standard_normal(200) * 3,
                       10.0 ** _rng.uniform(-300, 300, 100), -(10.0 ** _rng.uniform(-5, 3, 100)),
                       [0.0, -0.0, 0.5, 1.0, 2.0, 1.4616321449683622, 25.0, 26.6, -26.6, 29.99, 30.0, 30.01, 700.0,
                        1e-10, INF, -INF, NAN]])
UNIT = np.concatenate([np.linspace(-1.0, 1.0, 801), 1 - 10.0 ** -_rng.uniform(1, 16, 60),
                       -1 + 10.0 ** -_rng.uniform(1, 16, 60), 10.0 ** -_rng.uniform(1, 300, 40),
                       [1.0, -1.0, 0.0, -0.0, 1.5, -2.0, INF, NAN]])
PROBABILITY = np.concatenate([np.linspace(0.0, 1.0, 801), 10.0 ** -_rng.uniform(1, 300, 100),
                              1 - 10.0 ** -_rng.uniform(1, 16, 60), [-0.5, 1.5, NAN]])


def _ours(fn, values, dtype="float64"):
    return host(fn(ag.tensor(np.asarray(values, dtype=dtype))).data)


def _theirs(fn, values, dtype="float64"):
    return fn(torch.tensor(np.asarray(values, dtype=dtype))).numpy()


def _agree(ours, theirs, rtol, atol=0.0):
    """Equal where both are NaN or the same infinity (signs of zeros aside), else close."""
    assert ours.dtype == theirs.dtype, (ours.dtype, theirs.dtype)
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol)


UNARY = {   # name -> (our function, torch's, inputs)
    "lgamma": (ag.lgamma, torch.lgamma, GRID),
    "gammaln": (ag.special.gammaln, torch.special.gammaln, GRID),
    "digamma": (ag.digamma, torch.digamma, GRID),
    "psi": (ag.special.psi, torch.special.psi, GRID[np.abs(GRID) < 1e15]),
    "erfc": (ag.erfc, torch.erfc, GRID),
    "erfcx": (ag.special.erfcx, torch.special.erfcx, GRID),
    "erfinv": (ag.erfinv, torch.erfinv, UNIT),
    "ndtri": (ag.special.ndtri, torch.special.ndtri, PROBABILITY),
    "log_ndtr": (ag.special.log_ndtr, torch.special.log_ndtr, GRID),
    "ndtr": (ag.special.ndtr, torch.special.ndtr, GRID[GRID > -5.0]),   # (torch's left tail: see below)
    "i0": (ag.i0, torch.i0, GRID[np.abs(GRID) <= 700]),                  # (past 713: see below)
    "i1": (ag.special.i1, torch.special.i1, GRID[np.abs(GRID) <= 700]),
    "i0e": (ag.special.i0e, torch.special.i0e, GRID),
    "i1e": (ag.special.i1e, torch.special.i1e, GRID),
    "entr": (ag.special.entr, torch.special.entr, GRID),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_values_in_float64_over_a_wide_grid_match_torch(name):
    ours, theirs, values = UNARY[name]
    # (1e-12: the gamma functions near their zeros, where both are right to about 1e-18 absolute)
    _agree(_ours(ours, values), _theirs(theirs, values), rtol=1e-12, atol=1e-16)


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype, rtol", [("float32", 2e-6), ("float16", 2e-3)])
def test_values_keep_float32_and_float16_and_match_torch(name, dtype, rtol):
    ours, theirs, values = UNARY[name]
    with np.errstate(over="ignore"):
        values = np.asarray(values, dtype=dtype)
    got = _ours(ours, values, dtype)
    try:
        expected = _theirs(theirs, values, dtype)
    except NotImplementedError:   # (torch has no float16 erfcx, log_ndtr, ndtri: ours rounds its float64 value)
        assert dtype == "float16"
        with np.errstate(over="ignore"):
            expected = _ours(ours, values.astype("float64")).astype(dtype)
        theirs = ours
    finite = np.isfinite(expected)
    assert got.dtype == np.dtype(dtype)
    # the same infinities and NaNs; finite values rounded once from float64 (torch's float32 kernels are a
    # few ulps off theirs: compare each with the float64 value rounded)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    np.testing.assert_array_equal(got[np.isinf(expected)], expected[np.isinf(expected)])
    with np.errstate(over="ignore"):
        exact = (_theirs if theirs is not ours else _ours)(theirs, values.astype("float64")).astype(dtype)
    np.testing.assert_allclose(got[finite], exact[finite], rtol=rtol, atol=float(np.finfo(dtype).tiny))


@pytest.mark.parametrize("name", ["lgamma", "digamma", "erfc", "erfinv", "i0"])
def test_integers_compute_in_the_default_float_dtype_as_torch(name):
    ours, theirs, _ = UNARY[name]
    got = ours(ag.tensor([0, 1, 2]))
    expected = theirs(torch.tensor([0, 1, 2]))
    assert got.dtype.name == str(expected.dtype).removeprefix("torch.") == "float32"
    np.testing.assert_allclose(host(got.data), expected.numpy(), rtol=1e-6)


# -- where torch's value is inexact: an independent reference --------------------------------------

def _trigamma_by_sum(x):
    """sum over k of 1/(x + k)^2: 100,000 terms summed exactly (fsum), the rest by Euler-Maclaurin."""
    n = 100_000
    a = x + n
    return math.fsum(1.0 / (x + k) ** 2 for k in range(n)) + 1 / a + 1 / (2 * a * a) + 1 / (6 * a ** 3)


def test_trigamma_is_exact_to_the_last_digits_where_torchs_series_is_not():
    xs = [0.3, 1.0, 3.6051902596, 5.4344845619815505, 9.0115822597, 14.5]
    got = host(ag.polygamma(1, ag.tensor(xs, dtype=ag.float64)).data)
    reference = np.array([_trigamma_by_sum(x) for x in xs])
    np.testing.assert_allclose(got, reference, rtol=3e-15)
    theirs = torch.polygamma(1, torch.tensor(xs, dtype=torch.float64)).numpy()
    np.testing.assert_allclose(theirs, reference, rtol=1e-8)   # torch's: good to about 5e-10 here
    assert np.abs(theirs / reference - 1).max() > 1e-12        # (the difference the tolerance above allows)


@pytest.mark.parametrize("n", [2, 3, 5])
def test_higher_polygammas_match_torch_at_positive_and_negative_non_integers(n):
    xs = np.concatenate([np.linspace(0.05, 60.0, 400), -np.arange(0, 8) - 0.3, -np.arange(0, 8) - 0.71])
    _agree(_ours(lambda t: ag.polygamma(n, t), xs), _theirs(lambda t: torch.polygamma(n, t), xs), rtol=1e-10)


def test_polygamma_at_the_poles_is_inf_and_zero_at_infinity():
    """At 0, -1, -2, ... torch's trigamma gives huge finite numbers (6.6e32 at -1) from rounding; the function
    has a double pole there, +inf. At +inf every polygamma of order >= 1 tends to 0."""
    poles = ag.tensor([0.0, -1.0, -2.0, -7.0], dtype=ag.float64)
    assert np.all(host(ag.polygamma(1, poles).data) == INF)
    assert np.all(host(ag.polygamma(3, poles).data) == INF)
    assert np.all(torch.polygamma(1, torch.tensor([-1.0, -2.0], dtype=torch.float64)).numpy() > 1e28)
    assert np.all(host(ag.polygamma(2, ag.tensor([INF], dtype=ag.float64)).data) == 0.0)
    assert np.isnan(host(ag.polygamma(1, ag.tensor([NAN], dtype=ag.float64)).data)).all()


def test_ndtr_keeps_its_left_tail_where_torchs_rounds_to_zero():
    xs = [-8.38, -10.0, -20.0, -37.0]
    got = host(ag.special.ndtr(ag.tensor(xs, dtype=ag.float64)).data)
    reference = np.array([0.5 * math.erfc(-x / math.sqrt(2)) for x in xs])
    np.testing.assert_allclose(got, reference, rtol=1e-14)
    assert (torch.special.ndtr(torch.tensor(xs[:2], dtype=torch.float64)).numpy() == 0.0).all()


def test_i0_and_i1_stay_finite_up_to_float64s_end_where_torchs_overflow():
    xs = np.array([710.0, 713.0, -713.0])
    scaled = host(ag.special.i0e(ag.tensor(xs)).data)
    got = host(ag.i0(ag.tensor(xs)).data)
    np.testing.assert_allclose(np.log(got), np.log(scaled) + np.abs(xs), rtol=1e-14)   # i0 = i0e e^|x|
    got1 = host(ag.special.i1(ag.tensor(xs)).data)
    np.testing.assert_allclose(got1, host(ag.special.i1e(ag.tensor(xs)).data) * np.exp(np.abs(xs) / 2) *
                               np.exp(np.abs(xs) / 2), rtol=1e-14)
    assert got1[2] < 0 and np.isfinite(got1).all()
    assert torch.i0(torch.tensor([713.0], dtype=torch.float64)).item() == INF
    assert host(ag.i0(ag.tensor([714.0], dtype=ag.float64)).data)[0] == INF   # (past float64: inf)


@pytest.mark.parametrize("x", [0.1, 1.0, 2.5, 10.0, 29.9, 30.1, 55.0])
def test_i0_against_numpys_and_the_series_switch_is_seamless(x):
    got = ag.i0(ag.tensor([x, -x], dtype=ag.float64))
    np.testing.assert_allclose(host(got.data), np.i0([x, -x]), rtol=2e-15)


def test_known_values_and_inverses():
    f64 = ag.float64
    euler_gamma = 0.5772156649015329
    assert ag.digamma(ag.tensor([1.0], dtype=f64)).item() == pytest.approx(-euler_gamma, rel=1e-15)
    zeta = ag.special.zeta(ag.tensor([2.0, 4.0], dtype=f64), ag.tensor([1.0, 1.0], dtype=f64))
    np.testing.assert_allclose(host(zeta.data), [math.pi ** 2 / 6, math.pi ** 4 / 90], rtol=1e-15)
    x = ag.tensor(np.linspace(-5.5, 3.0, 18), dtype=f64)   # (past 3, 1 - Phi(x) keeps too few digits)
    np.testing.assert_allclose(host(ag.special.ndtri(ag.special.ndtr(x)).data), host(x.data), rtol=1e-12, atol=1e-14)
    y = ag.tensor(np.linspace(-0.999, 0.999, 41), dtype=f64)
    np.testing.assert_allclose(host(ag.erf(ag.erfinv(y)).data), host(y.data), rtol=1e-15, atol=1e-16)
    lg = host(ag.lgamma(ag.tensor([0.5, 3.7, -2.5, 171.6], dtype=f64)).data)
    np.testing.assert_allclose(lg, [math.lgamma(v) for v in (0.5, 3.7, -2.5, 171.6)], rtol=1e-15)
    assert host(ag.lgamma(ag.tensor([1e308], dtype=f64)).data)[0] == INF   # (past float64: inf, not an error)


# -- zeta, mvlgamma and the two-argument functions -----------------------------------------------

@pytest.mark.parametrize("s", [1.5, 2.0, 3.0, 7.5])
def test_zeta_matches_torch_for_positive_and_negative_q(s):
    q = np.concatenate([np.linspace(-10.25, 50.0, 241), 10.0 ** _rng.uniform(-5, 5, 60), [0.0, -3.0, -INF, NAN]])
    # (q = -inf: inf, as torch's, which takes it for one more pole)
    _agree(_ours(lambda t: ag.special.zeta(s, t), q), _theirs(lambda t: torch.special.zeta(s, t), q), rtol=1e-13)
    # at q = +inf every term is 0, and so is ours; torch's is NaN
    assert host(ag.special.zeta(s, ag.tensor([INF], dtype=ag.float64)).data)[0] == 0.0
    assert math.isnan(torch.special.zeta(s, torch.tensor([INF], dtype=torch.float64)).item())


def test_zeta_domain_and_its_arguments_match_torch():
    x = [2.0, 1.0, 0.5, 3.0, 3.0, 2.0, 2.5]
    q = [1.0, 1.0, 1.0, -0.5, -1.0, 0.0, -0.5]
    ours = ag.special.zeta(ag.tensor(x, dtype=ag.float64), ag.tensor(q, dtype=ag.float64))
    theirs = torch.special.zeta(torch.tensor(x, dtype=torch.float64), torch.tensor(q, dtype=torch.float64))
    _agree(host(ours.data), theirs.numpy(), rtol=1e-14)
    for x, q in ((ag.tensor([2, 3]), ag.tensor([1, 2])), (ag.tensor([2.0]), 1.5), (3, ag.tensor([2.0]))):
        tx, tq = (torch.tensor(host(v.data)) if isinstance(v, ag.Tensor) else v for v in (x, q))
        got, expected = ag.special.zeta(x, q), torch.special.zeta(tx, tq)
        assert got.dtype.name == str(expected.dtype).removeprefix("torch.")
        np.testing.assert_allclose(host(got.data), expected.numpy(), rtol=1e-6)
    with pytest.raises(TypeError, match="at least one argument must be a Tensor"):
        ag.special.zeta(2, 3)
    with pytest.raises(TypeError):
        torch.special.zeta(2, 3)


def test_zeta_refuses_a_gradient_for_x_before_the_pass_does_any_work():
    """As in PyTorch the forward runs, and a backward that needs x's gradient raises; here while it plans, so
    no .grad changes (PyTorch raises in the middle of the pass)."""
    q = ag.tensor([1.5], requires_grad=True)
    x = ag.tensor([2.0], requires_grad=True)
    other = ag.tensor([3.0], requires_grad=True)
    loss = ag.special.zeta(x, q).sum() + other.sum()
    with pytest.raises(NotImplementedError, match="x.detach"):
        loss.backward(retain_graph=True)
    assert other.grad is None and q.grad is None and x.grad is None
    tx, tq = torch.tensor([2.0], requires_grad=True), torch.tensor([1.5], requires_grad=True)
    with pytest.raises(NotImplementedError):
        torch.special.zeta(tx, tq).sum().backward()
    # only q's gradient: allowed, in both
    (g,) = ag.autograd.grad(loss, [q])
    (tg,) = torch.autograd.grad(torch.special.zeta(tx, tq).sum(), [tq])
    np.testing.assert_allclose(host(g.data), tg.numpy(), rtol=1e-6)
    ag.special.zeta(x.detach(), q).sum().backward()
    np.testing.assert_allclose(host(q.grad.data), tg.numpy(), rtol=1e-6)


def test_gammainc_matches_mpmath_and_torch_and_differentiates_in_x_only():
    import mpmath
    mpmath.mp.dps = 30
    rng = np.random.default_rng(21)
    a = np.concatenate([10.0 ** rng.uniform(-3, 3.5, 300), [0.5, 1.0, 2.0, 0.0, -1.0, 1.0, 2.0, INF, 3.0]])
    x = np.concatenate([a[:300] * np.exp(rng.normal(0, 0.5, 300)), [1.0, 0.0, 3.0, 1.0, 1.0, -1.0, INF, 1.0, NAN]])
    for ours_fn, torch_fn, upper in ((ag.special.gammainc, torch.special.gammainc, False),
                                     (ag.special.gammaincc, torch.special.gammaincc, True)):
        ours = host(ours_fn(ag.tensor(a), ag.tensor(x)).data)
        theirs = torch_fn(torch.tensor(a), torch.tensor(x)).numpy()
        # the edges (0, inf, negative, NaN) as torch's; the values to about 1e-9 of torch's (its asymptotic
        # series near x = a is good to about 1e-9) and to 1e-11 of mpmath's (for a in the thousands the prefactor's
        # exponent a ln x - x - lgamma(a + 1) is a difference of numbers near 1e4: a few ulps of those)
        _agree(ours, theirs, rtol=1e-8, atol=1e-300)
        reference = np.array([float(mpmath.gammainc(ai, xi, mpmath.inf, regularized=True) if upper else
                                    mpmath.gammainc(ai, 0, xi, regularized=True)) for ai, xi in zip(a[:300], x[:300])])
        np.testing.assert_allclose(ours[:300], reference, rtol=1e-11, atol=1e-300)
    a_t, x_t = ag.tensor([2.5, 0.7], requires_grad=True), ag.tensor([1.5, 3.0], requires_grad=True)
    ta, tx = torch.tensor([2.5, 0.7], requires_grad=True), torch.tensor([1.5, 3.0], requires_grad=True)
    (g,) = ag.autograd.grad(ag.special.gammaincc(a_t, x_t).sum(), [x_t])
    (tg,) = torch.autograd.grad(torch.special.gammaincc(ta, tx).sum(), [tx])
    np.testing.assert_allclose(host(g.data), tg.numpy(), rtol=1e-6)
    with pytest.raises(NotImplementedError, match="a.detach"):
        ag.special.gammainc(a_t, x_t).sum().backward()
    with pytest.raises(NotImplementedError):
        torch.special.gammainc(ta, tx).sum().backward()
    with pytest.raises(TypeError, match="both arguments must be Tensors"):
        ag.special.gammainc(2.0, x_t)
    assert ag.special.gammainc(ag.tensor([2]), ag.tensor([1])).dtype == ag.float32


def test_mvlgamma_matches_torch_and_refuses_p_below_1():
    values = np.linspace(1.6, 9.0, 30)
    for p in (1, 2, 3, 5):
        _agree(_ours(lambda t: ag.mvlgamma(t, p), values), _theirs(lambda t: torch.mvlgamma(t, p), values),
               rtol=1e-13)
    with pytest.raises(RuntimeError, match="greater than or equal to 1"):
        ag.mvlgamma(ag.tensor([2.0]), 0)
    with pytest.raises(RuntimeError):
        torch.mvlgamma(torch.tensor([2.0]), 0)
    with pytest.raises(TypeError, match="must be an int"):
        ag.special.multigammaln(ag.tensor([2.0]), 1.5)


def test_polygamma_refuses_negative_and_non_integer_orders():
    with pytest.raises(RuntimeError, match="does not support negative n"):
        ag.polygamma(-1, ag.tensor([1.0]))
    with pytest.raises(RuntimeError, match="does not support negative n"):
        torch.polygamma(-1, torch.tensor([1.0]))
    with pytest.raises(TypeError, match="must be an int"):
        ag.polygamma(1.0, ag.tensor([1.0]))
    assert ag.polygamma(0, ag.tensor([1.0])).grad_fn is None   # (n = 0 is digamma)
    np.testing.assert_allclose(host(ag.polygamma(0, ag.tensor([2.5])).data),
                               host(ag.digamma(ag.tensor([2.5])).data))


def test_xlog1py_at_its_conventions_matches_torch():
    x = [0.0, 0.0, 1.0, 0.0, 2.0, -1.5]
    y = [-1.0, -2.0, NAN, NAN, 1e-18, 0.5]
    ours = ag.special.xlog1py(ag.tensor(x, dtype=ag.float64), ag.tensor(y, dtype=ag.float64))
    theirs = torch.special.xlog1py(torch.tensor(x, dtype=torch.float64), torch.tensor(y, dtype=torch.float64))
    _agree(host(ours.data), theirs.numpy(), rtol=1e-15)
    for a, b in ((2.0, ag.tensor([1.0])), (ag.tensor([1, 2]), ag.tensor([1, 2])), (ag.tensor([0.5]), 3)):
        ta, tb = (torch.tensor(host(v.data)) if isinstance(v, ag.Tensor) else v for v in (a, b))
        got, expected = ag.special.xlog1py(a, b), torch.special.xlog1py(ta, tb)
        assert got.dtype.name == str(expected.dtype).removeprefix("torch.")
        np.testing.assert_allclose(host(got.data), expected.numpy(), rtol=1e-6)
    with pytest.raises(TypeError, match="at least one argument must be a Tensor"):
        ag.special.xlog1py(1.0, 2.0)


# -- gradients where the conventions decide them -----------------------------------------------

GRADIENT_POINTS = {   # name -> (call on the library m, values): values where the derivative is a convention
    "xlog1py": (lambda m, a, b: m.special.xlog1py(a, b), [0.0, 1.0, 0.0, 2.0], [-1.0, 0.5, 3.0, -0.5]),
    "entr": (lambda m, a: m.special.entr(a), [0.0, 1.0, 0.5, 2.0]),
    "i0": (lambda m, a: m.i0(a), [0.0, -1.0, 2.0]),
    "i0e": (lambda m, a: m.special.i0e(a), [0.0, -1.0, 2.0, -35.0, 40.0]),
    "i1": (lambda m, a: m.special.i1(a), [0.0, -1.0, 0.5]),
    "i1e": (lambda m, a: m.special.i1e(a), [0.0, -1.0, 0.5, 31.0, -50.0]),
    "erfinv": (lambda m, a: m.erfinv(a), [0.0, 1.0, -1.0, 0.5]),
    "ndtri": (lambda m, a: m.special.ndtri(a), [0.0, 1.0, 0.5, 1e-10]),
    "log_ndtr": (lambda m, a: m.special.log_ndtr(a), [-40.0, -1.0, 0.0, 5.0, 40.0]),
    "lgamma": (lambda m, a: m.lgamma(a), [0.0, 1.0, 2.0, -2.5]),
    "erfcx": (lambda m, a: m.special.erfcx(a), [-5.0, 0.0, 26.0, 100.0]),
    "ndtr": (lambda m, a: m.special.ndtr(a), [-3.0, 0.0, 2.0]),
    "erfc": (lambda m, a: m.erfc(a), [-3.0, 0.0, 2.0]),
}


@pytest.mark.parametrize("name", sorted(GRADIENT_POINTS))
def test_gradients_at_the_conventions_points_match_torch(name):
    call, *values = GRADIENT_POINTS[name]
    ours = [ag.tensor(np.array(v), dtype=ag.float64, requires_grad=True) for v in values]
    theirs = [torch.tensor(np.array(v), dtype=torch.float64, requires_grad=True) for v in values]
    out, expected = call(ag, *ours), call(torch, *theirs)
    out.backward(ag.ones_like(out))   # (not .sum(): erfinv(1) + erfinv(-1) would be NaN, with a warning)
    expected.backward(torch.ones_like(expected))
    for o, t in zip(ours, theirs):
        _agree(host(o.grad.data), t.grad.numpy(), rtol=1e-12)


# -- methods and in-place forms ---------------------------------------------------------------------

METHODS = [("lgamma", ()), ("digamma", ()), ("erfc", ()), ("erfinv", ()), ("i0", ()), ("polygamma", (2,)),
           ("mvlgamma", (2,))]


@pytest.mark.parametrize("name, args", METHODS)
def test_methods_and_in_place_forms_match_torch(name, args):
    values = np.array([1.3, 0.2, 0.7, 2.9]) if name != "erfinv" else np.array([0.3, -0.2, 0.7, 0.9])
    a, t = ag.tensor(values, requires_grad=True), torch.tensor(values, requires_grad=True)
    _agree(host(getattr(a, name)(*args).data), getattr(t, name)(*args).detach().numpy(), rtol=1e-12)
    # in place on a non-leaf: the gradient flows through the op's derivative
    a2, t2 = a * 1.0, t * 1.0
    assert getattr(a2, name + "_")(*args) is a2
    getattr(t2, name + "_")(*args)
    _agree(host(a2.data), t2.detach().numpy(), rtol=1e-12)
    a2.sum().backward()
    t2.sum().backward()
    _agree(host(a.grad.data), t.grad.numpy(), rtol=1e-8)   # (1e-8: torch's trigamma, for digamma_)
    with pytest.raises(RuntimeError, match="leaf"):
        getattr(ag.tensor(values, requires_grad=True), name + "_")(*args)


# -- the names ------------------------------------------------------------------------------------

def test_torch_special_names_are_there_and_alias_as_in_torch():
    for name in ("gammaln", "digamma", "psi", "polygamma", "multigammaln", "zeta", "erfc", "erfcx", "erfinv", "ndtr",
                 "ndtri", "log_ndtr", "i0", "i0e", "i1", "i1e", "xlog1py", "entr", "gammainc", "gammaincc"):
        assert hasattr(torch.special, name) and callable(getattr(ag.special, name)), name
    assert ag.special.gammaln is ag.lgamma and ag.special.psi is ag.digamma
    assert ag.special.multigammaln is ag.mvlgamma
    for name in ("lgamma", "digamma", "polygamma", "mvlgamma", "erfc", "erfinv", "i0"):
        assert hasattr(torch, name) and getattr(ag, name) is getattr(ag.special, name, getattr(ag, name))


def test_constants_newaxis_and_vmap_are_torchs():
    for name in ("pi", "e", "inf"):
        assert getattr(ag, name) == getattr(torch, name)
    assert math.isnan(ag.nan) and math.isnan(torch.nan)
    assert ag.newaxis is None and torch.newaxis is None
    x = ag.arange(6).reshape(2, 3)
    assert tuple(x[:, ag.newaxis].shape) == tuple(torch.arange(6).reshape(2, 3)[:, torch.newaxis].shape)
    assert ag.vmap is ag.func.vmap
    np.testing.assert_allclose(host(ag.vmap(lambda r: r.sum())(x.double()).data), [3.0, 12.0])


def test_trigamma_far_to_the_left_sums_its_terms_in_chunks_and_meets_the_reflection_formula():
    """psi1(x) + psi1(1 - x) = pi^2 / sin^2(pi x): at x = -10000.3 the series sums ten thousand terms first
    (in chunks of arrays, not one Python step each)."""
    x = -10000.25
    ours = ag.polygamma(1, ag.tensor([x, 1 - x], dtype=ag.float64))
    values = host(ours.data)
    np.testing.assert_allclose(values.sum(), math.pi ** 2 / math.sin(math.pi * x) ** 2, rtol=1e-10)


@pytest.mark.parametrize("name", ["zeta", "gammainc", "gammaincc"])
@pytest.mark.parametrize("dtypes", [("float64", "float32"), ("float32", "float64"), ("float64", "float64"),
                                    ("int64", "float32"), ("float32", "bool")], ids=str)
@pytest.mark.parametrize("shapes", [((), (3,)), ((3,), ()), ((), ()), ((3,), (3,))], ids=str)
def test_two_argument_special_functions_promote_as_torch(name, dtypes, shapes):
    """A 0-d float64 with a dimensioned float32 computes in float32 (the dimensioned operand's dtype wins within
    a category), as every binary op does; two 0-d or two dimensioned operands take the wider."""
    results = []
    for T in (ag, torch):
        a, b = ((T.arange(3, dtype=T.float64) if shape else T.tensor(1.0, dtype=T.float64)) + start
                for shape, start in zip(shapes, (1.5, 2.0)))
        a, b = a.to(getattr(T, dtypes[0])), b.to(getattr(T, dtypes[1]))
        results.append(getattr(T.special, name)(a, b))
    assert results[0].dtype.name == str(results[1].dtype).removeprefix("torch.")
    np.testing.assert_allclose(host(results[0].data), results[1].numpy(), rtol=2e-6)
