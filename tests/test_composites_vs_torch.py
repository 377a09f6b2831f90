"""PyTorch's short compositions and other spellings (ops.composites and the alias table), side by side with
torch 2.13: values, dtypes, shapes and the gradient of every differentiable input (float64 to 1e-10), the
in-place forms (``t.exp_()`` and kin: the same values, the version bump, the leaf refusal), and the errors."""
import numpy as np
import pytest
from conftest import host, import_torch
from torch_compare import both_raise, close

import autogradlab as ag

torch = import_torch()
TOL = dict(rtol=1e-10, atol=1e-12)
RNG = np.random.default_rng(0)
A, B, C = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4)), RNG.uniform(0.5, 2.0, (3, 4))
M, V, W = RNG.standard_normal((3, 5)), RNG.standard_normal(5), RNG.standard_normal(3)
B1, B2 = RNG.standard_normal((2, 3, 5)), RNG.standard_normal((2, 5, 4))
NAN = float("nan")
WITH_NAN = np.array([[1.0, NAN, 3.0, 2.0], [NAN, NAN, -1.0, 4.0], [0.5, 2.0, 2.0, -3.0]])
TIES = np.array([[1.0, 3.0, 3.0, 2.0], [5.0, 1.0, 5.0, 0.0], [2.0, 2.0, 2.0, 2.0]])


def _np(t):
    return host(t.detach().data) if isinstance(t, ag.Tensor) else t.detach().numpy()


def _outputs(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def _compare(call, arrays, grad_of=(0,)):
    results = []
    for T in (ag, torch):
        tensors = [T.tensor(a, requires_grad=i in grad_of) for i, a in enumerate(arrays)]
        outs = [o for o in _outputs(call(T, *tensors))]
        differentiable = [o for o in outs if o.requires_grad]
        if differentiable:
            sum(((o * T.tensor(np.linspace(0.5, 1.5, o.numel()).reshape(tuple(o.shape)))).sum()
                 for o in differentiable)).backward()
        results.append((outs, [tensors[i].grad for i in grad_of]))
    (ours, our_grads), (theirs, their_grads) = results
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a.requires_grad == b.requires_grad
        close(a, b, **TOL)
    for a, b in zip(our_grads, their_grads):
        assert (a is None) == (b is None)
        if a is not None:
            close(a, b, **TOL)


CASES = {
    "add-alpha": (lambda T, a, b: T.add(a, b, alpha=2.5), (A, B), (0, 1)),
    "add-method-alpha": (lambda T, a, b: a.add(b, alpha=-1), (A, B), (0, 1)),
    "sub-alpha": (lambda T, a, b: T.sub(a, b, alpha=0.5), (A, B), (0, 1)),
    "subtract": (lambda T, a, b: T.subtract(a, b), (A, B), (0, 1)),
    "div-trunc": (lambda T, a, b: T.div(a, b, rounding_mode="trunc"), (A * 5, C), (0,)),
    "div-floor-ints": (lambda T, a, b: T.div(a, b, rounding_mode="floor"), (np.array([-7, 7, 3]), np.array([2, -2, 3])),
                       ()),
    "div-trunc-ints": (lambda T, a, b: T.div(a, b, rounding_mode="trunc"), (np.array([-7, 7, 3]), np.array([2, -2, 3])),
                       ()),
    "div-trunc-number": (lambda T, a: a.div(2, rounding_mode="trunc"), (np.array([-7, 7, 3]),), ()),
    "divide": (lambda T, a, b: T.divide(a, b), (A, C), (0, 1)),
    "true_divide": (lambda T, a, b: T.true_divide(a, b), (A, C), (0, 1)),
    "addcmul": (lambda T, a, b, c: T.addcmul(a, b, c, value=0.5), (A, B, C), (0, 1, 2)),
    "addcdiv": (lambda T, a, b, c: a.addcdiv(b, c, value=-2), (A, B, C), (0, 1, 2)),
    "addmv": (lambda T, w, m, v: T.addmv(w, m, v, beta=0.5, alpha=2), (W, M, V), (0, 1, 2)),
    "addmv-beta0": (lambda T, w, m, v: T.addmv(w, m, v, beta=0), (W, M, V), (0, 1, 2)),
    "addmv-beta0-nan": (lambda T, w, m, v: T.addmv(w, m, v, beta=0), (np.full(3, NAN), M, V), (0, 1, 2)),
    "addr": (lambda T, a, w, v: T.addr(a, w, v[:4], alpha=3), (A, W, V), (0, 1, 2)),
    "baddbmm": (lambda T, i, b1, b2: T.baddbmm(i, b1, b2, beta=2, alpha=0.5), (np.ones((2, 3, 4)), B1, B2), (0, 1, 2)),
    "addbmm": (lambda T, a, b1, b2: T.addbmm(a, b1, b2), (A, B1, B2), (0, 1, 2)),
    "fmax": (lambda T, a, b: T.fmax(a, b), (WITH_NAN, TIES), (0, 1)),
    "fmin": (lambda T, a, b: a.fmin(b), (TIES, WITH_NAN), (0, 1)),
    "fmax-ties": (lambda T, a, b: T.fmax(a, b), (TIES, TIES.copy()), (0, 1)),
    "cummax": (lambda T, a: T.cummax(a, 1), (TIES,), (0,)),
    "cummin": (lambda T, a: a.cummin(0), (TIES,), (0,)),
    "cummax-nan": (lambda T, a: T.cummax(a, 1), (WITH_NAN,), (0,)),
    "cummin-last-dim": (lambda T, a: T.cummin(a, -1), (A,), (0,)),
    "logical": (lambda T, a, b: (T.logical_and(a, b), T.logical_or(a, b), T.logical_xor(a, b)),
                (np.array([0.0, 1.0, 2.0, 0.0]), np.array([0, 0, 3, 1])), ()),
    "logical-bools": (lambda T, a, b: a.logical_xor(b), (np.array([True, False, True]), np.array([True, True, False])),
                      ()),
    "float_power": (lambda T, a, b: T.float_power(a, b), (C.astype(np.float32), B), (0, 1)),
    "float_power-number": (lambda T, a: a.float_power(2), (np.array([1, 2, 3]),), ()),
    "logaddexp2": (lambda T, a, b: T.logaddexp2(a, b), (A * 30, B), (0, 1)),
    "fliplr": (lambda T, a: T.fliplr(a), (A,), (0,)),
    "flipud": (lambda T, a: a.flipud(), (A,), (0,)),
    "hsplit": (lambda T, a: T.hsplit(a, 2), (A,), (0,)),
    "hsplit-indices": (lambda T, a: a.hsplit([1, 3]), (A,), (0,)),
    "vsplit": (lambda T, a: T.vsplit(a, [1]), (A,), (0,)),
    "dsplit": (lambda T, a: T.dsplit(a, 2), (B2,), (0,)),
    "split_with_sizes": (lambda T, a: a.split_with_sizes([1, 3], 1), (A,), (0,)),
    "index_fill": (lambda T, a: T.index_fill(a, 1, T.tensor([0, 2]), -1.0), (A,), (0,)),
    "index_fill-tensor-value": (lambda T, a, v: a.index_fill(0, T.tensor([1]), v), (A, np.array(2.5)), (0, 1)),
    "index_copy": (lambda T, a, s: T.index_copy(a, 1, T.tensor([3, 0]), s), (A, B[:, :2].copy()), (0, 1)),
    "isposinf-isneginf": (lambda T, a: (T.isposinf(a), T.isneginf(a), T.isreal(a)),
                          (np.array([1.0, np.inf, -np.inf, NAN]),), ()),
    "vdot": (lambda T, a, b: T.vdot(a, b), (V, V[::-1].copy()), (0, 1)),
    "asinh-acosh-atanh": (lambda T, a: (T.asinh(a), T.acosh(a * a + 1.5), T.atanh(a / 3)), (A,), (0,)),
    "arc-names": (lambda T, a: (T.arcsinh(a), T.arccos(a / 3), T.arcsin(a / 3), T.arctan(a), T.arctanh(a / 3)),
                  (A,), (0,)),
    "other-names": (lambda T, a, b: (T.absolute(a), T.multiply(a, b), T.negative(a), T.fix(a * 3), a.positive(),
                                     T.greater(a, b), T.greater_equal(a, b), T.less(a, b), T.less_equal(a, b),
                                     T.not_equal(a, b)), (A, B), (0, 1)),
    "where-method": (lambda T, a, b: a.where(a > 0, b), (A, B), (0, 1)),
    "view_as": (lambda T, a, b: a.view_as(b), (A, np.zeros((4, 3))), (0,)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_match_torch(name):
    call, arrays, grad_of = CASES[name]
    _compare(call, arrays, grad_of)


IN_PLACE = [("exp_", ()), ("log_", ()), ("sqrt_", ()), ("abs_", ()), ("neg_", ()), ("sigmoid_", ()), ("tanh_", ()),
            ("relu_", ()), ("floor_", ()), ("round_", ()), ("trunc_", ()), ("frac_", ()), ("sin_", ()),
            ("reciprocal_", ()), ("square_", ()), ("sign_", ()), ("clamp_min_", (1.0,)), ("clamp_max_", (1.0,)),
            ("clip_", (0.8, 1.2)), ("tril_", ()), ("triu_", (1,)), ("lerp_", ("other", 0.3)),
            ("addcmul_", ("other", "other")), ("addcdiv_", ("other", "other")), ("atan2_", ("other",)),
            ("hypot_", ("other",)), ("fmod_", (0.7,)), ("deg2rad_", ()), ("multiply_", ("other",)),
            ("subtract_", ("other",)), ("divide_", ("other",)), ("true_divide_", ("other",)), ("erf_", ()),
            ("log1p_", ()), ("expm1_", ()), ("rsqrt_", ()), ("cosh_", ()), ("atan_", ()), ("nan_to_num_", ()),
            ("index_fill_", (1, "index", 0.0)), ("xlogy_", ("other",))]


@pytest.mark.parametrize("name, args", IN_PLACE, ids=[n for n, _ in IN_PLACE])
def test_in_place_forms_match_torch(name, args):
    x = np.abs(A) + 0.5
    other = C
    results = []
    for T in (ag, torch):
        made = [T.tensor(other) if a == "other" else T.tensor([0, 2]) if a == "index" else a for a in args]
        leaf = T.tensor(x, requires_grad=True)
        t = leaf * 1.0                                   # (a non-leaf: its in-place op is recorded)
        version = t._version
        out = getattr(t, name)(*made)
        assert out is t and t._version > version
        (t * T.tensor(np.linspace(0.5, 1.5, t.numel()).reshape(t.shape))).sum().backward()
        results.append((t, leaf.grad))
    close(results[0][0], results[1][0], **TOL)
    close(results[0][1], results[1][1], **TOL)


def test_in_place_forms_refuse_a_leaf_and_an_integer_result_type_as_torch():
    for T in (ag, torch):
        with pytest.raises(RuntimeError, match="leaf"):
            T.ones(2, requires_grad=True).exp_()
    both_raise(lambda: ag.tensor([1, 2]).exp_(), lambda: torch.tensor([1, 2]).exp_())


@pytest.mark.parametrize("shape, wrap", [((3, 3), False), ((5, 3), False), ((7, 3), True), ((3, 5), True),
                                         ((3, 3, 3), False)])
def test_fill_diagonal_matches_torch(shape, wrap):
    ours = ag.zeros(*shape).fill_diagonal_(2.0, wrap=wrap)
    theirs = torch.zeros(*shape).fill_diagonal_(2.0, wrap=wrap)
    np.testing.assert_array_equal(_np(ours), theirs.numpy())


@pytest.mark.parametrize("call", [
    lambda T: T.div(T.ones(2), 2, rounding_mode="round"), lambda T: T.fliplr(T.ones(3)),
    lambda T: T.flipud(T.tensor(1.0)), lambda T: T.hsplit(T.ones(3, 4), 3), lambda T: T.vsplit(T.ones(4), 2),
    lambda T: T.dsplit(T.ones(2, 2), 2), lambda T: T.zeros(3).fill_diagonal_(1.0),
    lambda T: T.zeros(2, 3, 3).fill_diagonal_(1.0), lambda T: T.index_fill(T.ones(3), 0, T.tensor([5]), 0.0),
    lambda T: T.tensor([True]).positive(), lambda T: T.ones(3).cummax(1),
], ids=["div-mode", "fliplr-1d", "flipud-0d", "hsplit-indivisible", "vsplit-1d", "dsplit-2d", "fill-diagonal-1d",
        "fill-diagonal-unequal", "index-fill-range", "positive-bool", "cummax-dim"])
def test_refuses_what_torch_refuses(call):
    both_raise(lambda: call(ag), lambda: call(torch))


def test_questions_about_layout_match_torch():
    for T in (ag, torch):
        t = T.zeros(2, 3, dtype=T.float64)
        assert (t.stride(), t.stride(1), t.is_contiguous(), t.t().is_contiguous()) == ((3, 1), 1, True, False)
        assert (t.ndimension(), t.itemsize, t.nbytes, t.is_cpu or T is ag, t.is_complex()) == (2, 8, 48, True, False)
        assert t.is_signed() and not T.zeros(1, dtype=T.uint8).is_signed() and t.is_same_size(T.ones(2, 3))


# -- from a second review against torch 2.13 -------------------------------------------------------------------

INTS = np.array([[1, 2, 3], [4, 5, 6]])


@pytest.mark.parametrize("call", [
    lambda T: T.index_copy(T.tensor(INTS), 1, T.tensor([2, 0]), T.tensor([[7, 8], [9, 10]])),
    lambda T: T.index_fill(T.tensor(INTS), 1, T.tensor([1]), 2.5),
    lambda T: T.index_fill(T.tensor([True, False]), 0, T.tensor([1]), True),
    lambda T: T.addcmul(T.tensor([1]), T.tensor([2]), T.tensor([3]), value=0.5),
    lambda T: T.addmv(T.tensor([1, 1]), T.ones(2, 2, dtype=T.int64), T.ones(2, dtype=T.int64), beta=0.5),
    lambda T: T.addmv(T.tensor([1, 1]), T.ones(2, 2, dtype=T.int64), T.ones(2, dtype=T.int64), beta=0),
    lambda T: T.addcmul(T.tensor([1.0], dtype=T.float16), T.tensor([100.0], dtype=T.float16),
                        T.tensor([0.01], dtype=T.float16), value=1000),
    lambda T: T.searchsorted(T.tensor([1, 4, 5, 7]), 4.5),
    lambda T: T.bucketize(T.tensor([4.5, 1.0]), T.tensor([1, 4, 5, 7])),
    lambda T: T.histc(T.tensor([0.1, 0.2, 0.3, 0.7, 0.9, 1.0]), bins=10, min=0, max=1),
    lambda T: T.aminmax(T.zeros(0, 3), dim=1),
], ids=["index_copy-ints", "index_fill-ints-float", "index_fill-bools", "addcmul-ints", "addmv-ints-beta",
        "addmv-ints-beta0", "addcmul-float16", "searchsorted-float-among-ints", "bucketize-number",
        "histc-float32-edges", "aminmax-empty-dim"])
def test_dtypes_and_edges_match_torch(call):
    ours, theirs = _outputs(call(ag)), _outputs(call(torch))
    for a, b in zip(ours, theirs):
        close(a, b, rtol=1e-3, atol=0)


@pytest.mark.parametrize("call", [
    lambda T: T.add(T.tensor([1]), T.tensor([2]), alpha=0.5),
    lambda T: T.addcdiv(T.tensor([1]), T.tensor([2]), T.tensor([3])),
    lambda T: T.addmv(T.ones(3, 2), T.ones(2, 2), T.ones(2)),
    lambda T: T.index_fill(T.ones(3), 0, T.tensor([0], dtype=T.int32), 5.0),
    lambda T: T.index_copy(T.ones(3), 0, T.tensor([0]), T.ones(1, dtype=T.int64)),
    lambda T: T.histc(T.ones(3), bins=3.5),
], ids=["add-int-float-alpha", "addcdiv-ints", "addmv-input-broadcasts-up", "index-int32", "index_copy-dtypes",
        "histc-float-bins"])
def test_more_refusals_match_torch(call):
    both_raise(lambda: call(ag), lambda: call(torch))


def test_multi_margin_loss_has_no_gradient_at_the_hinge_as_torch():
    grads = []
    for T, F in ((ag, ag.nn.functional), (torch, torch.nn.functional)):
        x = T.tensor([[1.0, 0.0, 0.0], [2.0, 1.0, 0.5]], dtype=T.float64, requires_grad=True)
        F.multi_margin_loss(x, T.tensor([0, 0])).backward()
        grads.append(_np(x.grad))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


def test_div_in_place_takes_a_rounding_mode_as_torch():
    ours, theirs = ag.tensor([7.0, -7.0]), torch.tensor([7.0, -7.0])
    ours.div_(2, rounding_mode="trunc")
    theirs.div_(2, rounding_mode="trunc")
    close(ours, theirs)


def test_layout_answers_for_empty_and_unsigned_tensors():
    assert ag.zeros(0, 3).stride() == torch.zeros(0, 3).stride()
    assert ag.tensor([1], dtype=np.uint16).type().endswith(".Uint16Tensor")


def test_printing_with_no_edge_items_and_forced_scientific_zeros():
    for M in (ag, torch):
        M.set_printoptions(edgeitems=0, threshold=5)
        try:
            assert "..." in str(M.ones(10, 10))                 # (summarised, without a crash)
        finally:
            M.set_printoptions(profile="default")
    for M in (ag, torch):
        M.set_printoptions(sci_mode=True)
        try:
            assert str(M.tensor([0.0])).startswith("tensor([0.]")
        finally:
            M.set_printoptions(profile="default")
