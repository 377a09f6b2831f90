"""Python numbers as operands (``h * 0.999``, ``2 - x``, ``x ** 2``): kept out of the graph as constants.

A number becomes a 0-d array of the dtype PyTorch gives it (``elementwise.constant``), goes to the
forward as it is and gets no edge; a VJP that needs it (``d(x*c)/dx = c``) reads it back as a saved
parameter. These tests check that nothing users see changed: result dtypes and values for every
tensor dtype x number kind x operator (against torch), gradients and second derivatives through
constants, what ``grad_fn`` keeps, and how a trace shows the constant.
"""
from __future__ import annotations


import numpy as np
import pytest
from conftest import ON_NUMPY, host, import_torch

import autogradlab as ag
from autogradlab.autograd import grad

torch = import_torch()

DTYPES = ["float16", "float32", "float64", "int64", "bool"]
NUMBERS = [True, False, 3, -2, 0, 0.5, -2.5]
OPERATORS = {
    "a + n": lambda a, n: a + n, "n + a": lambda a, n: n + a,
    "a - n": lambda a, n: a - n, "n - a": lambda a, n: n - a,
    "a * n": lambda a, n: a * n, "n * a": lambda a, n: n * a,
    "a / n": lambda a, n: a / n, "n / a": lambda a, n: n / a,
    "a ** n": lambda a, n: a ** n, "n ** a": lambda a, n: n ** a,
    "a < n": lambda a, n: a < n, "n >= a": lambda a, n: n >= a, "a == n": lambda a, n: a == n,
    "maximum(a, n)": lambda a, n: (torch.maximum(a, torch.tensor(n)) if isinstance(a, torch.Tensor)
                                   else a.maximum(n)),
}
VALUES = {"float16": [0.5, -1.5, 2.0, 0.0], "float32": [0.5, -1.5, 2.0, 0.0], "float64": [0.5, -1.5, 2.0, 0.0],
          "int64": [1, -3, 2, 0], "bool": [True, False, True, False]}


def _known_difference(expr, number, dtype):
    """Differences that predate number constants (the same with constant Tensors), kept visible."""
    if "-" in expr and (dtype == "bool" or isinstance(number, bool)):
        return "torch refuses - with a bool operand; NumPy computes it"
    return None


def _run(fn, module, dtype, number):
    a = module.tensor(VALUES[dtype], dtype=getattr(module, dtype))
    try:
        with np.errstate(all="ignore"):
            return fn(a, number), None
    except Exception as exc:  # noqa: BLE001  (compared: both must raise, or neither)
        return None, exc


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("number", NUMBERS, ids=repr)
@pytest.mark.parametrize("expr", OPERATORS)
def test_number_operands_give_torchs_dtype_and_values(expr, number, dtype):
    if expr.startswith("maximum") and dtype == "bool":
        pytest.skip("torch.maximum(bool, number tensor) promotes a 0-d tensor, not a number: not this rule")
    reason = _known_difference(expr, number, dtype)
    if reason:
        pytest.xfail(reason)
    ours, our_error = _run(OPERATORS[expr], ag, dtype, number)
    theirs, their_error = _run(OPERATORS[expr], torch, dtype, number)
    if their_error is not None or our_error is not None:
        # where torch refuses (bool - bool, an int to a negative int power) we refuse too
        assert their_error is not None and our_error is not None, (our_error, their_error)
        return
    assert str(theirs.dtype).removeprefix("torch.") == ours.dtype.name
    assert ours.grad_fn is None and not ours.requires_grad
    tolerance = 2e-3 if dtype == "float16" else 1e-6
    np.testing.assert_allclose(ours.numpy().astype(float), theirs.numpy().astype(float), rtol=tolerance,
                               atol=tolerance, equal_nan=True)


GRAD_EXPRS = {
    "x * 0.999": lambda x: x * 0.999, "0.5 * x": lambda x: 0.5 * x, "x + 2": lambda x: x + 2,
    "1 - x": lambda x: 1 - x, "x / 3": lambda x: x / 3, "3.0 / x": lambda x: 3.0 / x,
    "x ** 3": lambda x: x ** 3, "2 ** x": lambda x: 2 ** x, "x ** 0.5": lambda x: x ** 0.5,
    "x.maximum(0.7)": lambda x: (torch.maximum(x, torch.tensor(0.7, dtype=x.dtype)) if isinstance(x, torch.Tensor)
                                 else x.maximum(0.7)),
    "chain": lambda x: ((x * 0.999 + 0.001).tanh() * 2 - 1) ** 2 / 4,
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("expr", GRAD_EXPRS)
def test_first_and_second_derivatives_through_number_operands_match_torch(expr, dtype):
    values = [0.5, 1.5, 2.0, 0.7]
    x = ag.tensor(values, dtype=getattr(ag, dtype), requires_grad=True)
    tx = torch.tensor(values, dtype=getattr(torch, dtype), requires_grad=True)
    y, ty = GRAD_EXPRS[expr](x), GRAD_EXPRS[expr](tx)
    assert y.dtype.name == dtype and str(ty.dtype) == f"torch.{dtype}"
    (g,) = grad(y.sum(), x, create_graph=True)
    (tg,) = torch.autograd.grad(ty.sum(), tx, create_graph=True)
    tolerance = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy(), rtol=tolerance, atol=tolerance)
    assert g.dtype.name == dtype and g.requires_grad == tg.requires_grad
    if not tg.requires_grad:   # a linear function: its gradient is a constant
        return
    (gg,) = grad(g.sum(), x, allow_unused=True, materialize_grads=True)
    (tgg,) = torch.autograd.grad(tg.sum(), tx, allow_unused=True, materialize_grads=True)
    np.testing.assert_allclose(gg.numpy(), tgg.numpy(), rtol=tolerance, atol=tolerance)


def test_a_number_operand_is_no_tensor_and_has_no_edge_but_is_kept_for_the_vjp():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x * 0.5
    # one input needs a gradient: one edge, and None for the number, as before
    assert [type(n).__name__ if n is not None else None for n, _ in y.grad_fn.next_functions] == \
        ["AccumulateGrad", None]
    assert y.grad_fn.saved_tensor_names == ("other",)   # d(x*c)/dx = c: c is kept (x is not needed)
    kept = y.grad_fn._saved_other   # (an array of the backend's kind: read its value with float())
    assert float(kept) == 0.5 and kept.dtype == np.float32
    (1.0 - x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [-1.0, -1.0])


def test_a_kept_number_is_freed_with_the_saved_tensors():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 0.5).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_int_and_bool_tensors_with_numbers_follow_torch_and_stay_out_of_the_graph():
    i = ag.tensor([1, 2, 3])
    assert (i * 0.5).dtype == np.float32 and (i * 2).dtype == np.int64 and (i / 2).dtype == np.float32
    b = ag.tensor([True, False])
    assert (b * 2).dtype == np.int64 and (b + True).dtype == np.bool_ and (b * 1.5).dtype == np.float32
    np.testing.assert_array_equal((b * 2).numpy(), [2, 0])


def test_a_trace_shows_the_number_as_a_constant_input_as_before():
    x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")
    with ag.trace() as tape:
        y = (x * 0.5).sum()
        y.backward()
    op = [e for e in tape.events if type(e).__name__ == "OpRecorded"][0]
    assert op.op == "mul" and [r.name for r in op.inputs] == ["x", "x0"]
    constant = op.inputs[1]
    assert constant.shape == () and constant.dtype == "float32" and constant.leaf and not constant.requires_grad
    assert op.input_values[1].data == (0.5,) and op.saved == ("other",)
    freed = [e for e in tape.events if type(e).__name__ == "SavedFreed"]
    assert [(e.names, e.nbytes) for e in freed] == [(("other",), 4)]   # the float32 constant: 4 bytes
    np.testing.assert_array_equal(x.grad.numpy(), [0.5, 0.5])


PACKED = {"x * 0.5": lambda x, y: x * 0.5, "x * y": lambda x, y: x * y, "x.tanh()": lambda x, y: x.tanh(),
          "x ** 2": lambda x, y: x ** 2, "1 - x": lambda x, y: 1 - x}


@pytest.mark.parametrize("expr", PACKED)
def test_saved_tensor_hooks_pack_the_same_tensors_as_torch_and_never_a_number(expr):
    """A number kept for the VJP is a scalar, as in PyTorch: pack hooks see tensors only."""
    counts = []
    for module in (ag, torch):
        hooks = module.autograd.graph.saved_tensors_hooks
        packed = []
        x = module.tensor([1.0, 2.0], requires_grad=True)
        y = module.tensor([3.0, 4.0], requires_grad=True)
        with hooks(lambda t: packed.append(tuple(t.shape)) or t, lambda t: t):
            out = PACKED[expr](x, y)
        out.sum().backward()
        counts.append(packed)
    assert counts[0] == counts[1]


def test_a_tensor_kept_through_hooks_is_read_as_the_hook_gives_it_as_torch():
    """Through saved_tensors_hooks torch checks no version: the identity hook gives the changed tensor back."""
    def run(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            a = x * 1.0
            y = a * x
        with lib.no_grad():
            a.mul_(2)
        y.sum().backward()
        return x.grad.numpy()
    np.testing.assert_array_equal(run(ag), run(torch))


# -- 0-d tensor operands: of the same category (bool, integer, float) a dimensioned tensor's dtype wins ----

ZERO_D_DTYPES = ["bool", "int32", "int64", "float16", "float32", "float64"]   # (the dtypes autogradlab names)
ZERO_D_OPS = {"a + b": lambda a, b: a + b, "a * b": lambda a, b: a * b, "b * a": lambda a, b: b * a,
              "a / b": lambda a, b: a / b, "maximum": lambda a, b: (torch.maximum(a, b) if isinstance(a, torch.Tensor)
                                                                     else ag.maximum(a, b)),
              "where": lambda a, b: (torch.where(a > 0, a, b) if isinstance(a, torch.Tensor)
                                     else ag.where(a > 0, a, b))}


def _pair(module, da, sa, db, sb):
    va, vb = np.array([1, 2, 3][:int(np.prod(sa))]).reshape(sa), np.full(sb, 2)
    return (module.tensor(va.astype(da), dtype=getattr(module, da)),
            module.tensor(vb.astype(db), dtype=getattr(module, db)))


@pytest.mark.parametrize("shapes", [((3,), ()), ((), (3,)), ((), ()), ((3,), (3,))], ids=str)
@pytest.mark.parametrize("expr, da, db", [
    (e, da, db) for e in ZERO_D_OPS for da in ZERO_D_DTYPES for db in ZERO_D_DTYPES
    if not (e == "maximum" and "bool" in (da, db) and da != db)])   # (torch.maximum refuses bool with another)
def test_zero_d_tensor_operands_give_torchs_dtype(expr, da, db, shapes):
    fn, (sa, sb) = ZERO_D_OPS[expr], shapes
    want = fn(*_pair(torch, da, sa, db, sb))
    got = fn(*_pair(ag, da, sa, db, sb))
    assert str(got.dtype) == str(want.dtype).replace("torch.", ""), (da, sa, db, sb)
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.numpy().astype(float), want.numpy().astype(float), rtol=1e-3)


@pytest.mark.parametrize("shapes", [((3,), ()), ((), (3,)), ((), ()), ((3,), (3,))], ids=str)
@pytest.mark.parametrize("db", ["float16", "float32", "float64"])
@pytest.mark.parametrize("da", ["float16", "float32", "float64"])
def test_zero_d_tensor_operands_give_torchs_result_and_grad_dtypes(da, db, shapes):
    (sa, sb), out = shapes, {}
    for m in (ag, torch):
        a, b = _pair(m, da, sa, db, sb)
        a.requires_grad_(True)
        b.requires_grad_(True)
        y = (a * b + b).sum()
        y.backward()
        out[m.__name__] = [str(t.dtype).replace("torch.", "") for t in (y, a.grad, b.grad)] + [
            a.grad.numpy().astype(float).tolist(), b.grad.numpy().astype(float).tolist()]
    assert out["autogradlab"] == out["torch"]


# -- the shared constants (elementwise.constant makes the array of a number once per device) --------

@pytest.mark.skipif(not ON_NUMPY, reason="read-only arrays are NumPy's (the test below runs everywhere)")
def test_a_number_used_again_is_one_shared_read_only_array_and_one_saved_param():
    x = ag.tensor([0.5, 2.0], requires_grad=True)
    y1, y2 = x * 0.75, x * 0.75
    c1, c2 = y1.grad_fn._saved["other"], y2.grad_fn._saved["other"]
    assert c1 is c2 and c1[1] is c2[1]           # one saved value, one array, for every node that keeps 0.75
    assert not c1[1].flags.writeable               # (a saved value is (source, data, vc, version))
    with pytest.raises(ValueError):
        c1[1][...] = 1.0                           # nobody can change the number under another node
    (y1.sum() + y2.sum()).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.5, 1.5])
    assert y1.grad_fn.freed and y2.grad_fn.freed   # freeing a node leaves the shared constant alone
    z = x * 0.75
    z.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.25, 2.25])


def test_on_every_backend_a_number_used_again_is_one_array_of_the_backends_kind():
    """dev.sh's strict and stand-in-GPU passes run this off NumPy: there too a number's array is made once
    per device (on a GPU making one costs more than the product), of the backend's kind and the right dtype."""
    x = ag.tensor([0.5, 2.0], requires_grad=True)
    y1, y2, y3 = x * 0.625, x * 0.625, x.double() * 0.625
    c1, c2, c3 = (y.grad_fn._saved["other"] for y in (y1, y2, y3))
    assert c1 is c2 and c1[1] is c2[1]                          # (source, data, vc, version)
    assert type(c1[1]) is type(x._data) and float(host(c1[1])) == 0.625
    assert c3[1].dtype == np.float64 and c1[1].dtype == np.float32   # another dtype: another array
    (y1.sum() + y2.sum()).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.25, 1.25])


def test_the_same_number_next_to_another_dtype_gets_that_dtype():
    """... except next to float16, where mul keeps it in float32 and rounds the product once (as PyTorch)."""
    for dtype in ("float32", "float64", "float16", "float32"):
        x = ag.tensor([1.0, 3.0], dtype=dtype, requires_grad=True)
        y = x * 0.1
        kept = "float32" if dtype == "float16" else dtype
        assert y.dtype == np.dtype(dtype)
        assert y.grad_fn._saved["other"][1].dtype == np.dtype(kept)   # (source, data, vc, version)
        expected = (x.detach().numpy().astype(kept) * np.array(0.1, kept)).astype(dtype)
        np.testing.assert_array_equal(y.detach().numpy(), expected)


@pytest.mark.parametrize("number", [0.0, -0.0, float("nan"), float("inf"), -float("inf")])
def test_signed_zeros_nan_and_infinities_as_operands_match_torch(number):
    a = ag.tensor([1.0, -2.0, 0.0], requires_grad=True)
    t = torch.tensor([1.0, -2.0, 0.0], requires_grad=True)
    for make in (lambda v: v * number, lambda v: v / 2.0 * number, lambda v: v * 0.0 * number):
        mine, ref = make(a), make(t)
        np.testing.assert_array_equal(mine.detach().numpy(), ref.detach().numpy())
        number_signs = ~np.isnan(ref.detach().numpy())   # (a NaN's sign is the hardware's: a GPU's NaN has none)
        assert (np.signbit(mine.detach().numpy()) == torch.signbit(ref.detach()).numpy())[number_signs].all()
        mine.sum().backward()
        ref.sum().backward()
        np.testing.assert_array_equal(a.grad.numpy(), t.grad.numpy())
        grad_signs = ~np.isnan(t.grad.numpy())
        assert (np.signbit(a.grad.numpy()) == torch.signbit(t.grad).numpy())[grad_signs].all()
        a.grad = t.grad = None


def test_many_different_numbers_keep_the_cache_bounded_and_results_right():
    from autogradlab.ops import elementwise
    x = ag.tensor([2.0], dtype="float64", requires_grad=True)
    total = x * 0.0
    for i in range(1, 3000):
        total = total + x * (i / 7)
    assert len(elementwise._CONSTANTS) <= 1024 and len(elementwise._DEVICE_CONSTANTS) <= 1024
    total.backward()
    assert abs(x.grad.item() - sum(i / 7 for i in range(1, 3000))) < 1e-6


def test_a_node_remembers_its_output_weakly_with_its_shape_dtype_and_device():
    x = ag.tensor([[1.0, 2.0]], requires_grad=True)
    y = (x * 2.0).tanh()
    node = y.grad_fn
    ref, shape, dtype, device = node._out_meta
    assert ref() is y and shape == (1, 2) and dtype == np.dtype("float32") and device == x.device
    del y
    ref, shape, dtype, device = node._out_meta
    assert ref() is None and shape == (1, 2)


def test_a_saved_output_read_back_after_its_tensor_is_gone_still_carries_the_graph():
    # d2/dx2 tanh(x) = -2 tanh(x) (1 - tanh(x)^2): tanh's VJP reads its saved output, whose tensor
    # is a temporary here (nothing holds tanh(x) but the graph)
    x = ag.tensor([0.3, -1.2], dtype="float64", requires_grad=True)
    (g,) = grad(ag.tanh(x * 1.0).sum(), x, create_graph=True)
    (h,) = grad(g.sum(), x)
    t = np.tanh(np.array([0.3, -1.2]))
    np.testing.assert_allclose(h.numpy(), -2 * t * (1 - t * t), rtol=1e-12)


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool"])
def test_an_integer_tensor_to_a_negative_int_power_is_refused_as_in_torch(dtype):
    """PyTorch's RuntimeError, with its words, on every backend (NumPy raised a ValueError of its own; CuPy
    computes garbage): checked before anything is computed."""
    a, t = ag.tensor([1, 2, 3], dtype=dtype), torch.tensor([1, 2, 3], dtype=getattr(torch, dtype))
    with pytest.raises(RuntimeError) as theirs:
        t ** -2
    with pytest.raises(RuntimeError) as ours:
        a ** -2
    assert str(ours.value).startswith(str(theirs.value)) and f"the base is {dtype}" in str(ours.value)
    np.testing.assert_array_equal(host((a ** 2)._data), (t ** 2).numpy())   # a non-negative power is fine


def test_integer_tensors_to_integer_tensor_powers_and_numpy_int_exponents_as_torch():
    """Negative integer exponents in a tensor: PyTorch's integer results (1 for 1, +-1 for -1, else 0); NumPy
    refused them. A NumPy integer exponent is refused like a Python int."""
    for base, exp in (([2, -1, 1, 0, -1, 3], [-2, -2, -3, -2, -3, 2]), ([2, -1, 1, 0], -2), ([True, False], [-1, 2])):
        ours = ag.tensor(base) ** ag.tensor(exp)
        theirs = torch.tensor(base) ** torch.tensor(exp)
        assert host(ours._data).tolist() == theirs.tolist() and ours.dtype.name == str(theirs.dtype)[6:]
    assert host((2 ** ag.tensor([-2, 1, -1, 0]))._data).tolist() == (2 ** torch.tensor([-2, 1, -1, 0])).tolist()
    for dtype in ("int64", "uint8"):
        with pytest.raises(RuntimeError, match="Integers to negative integer powers"):
            ag.tensor([2, 1], dtype=dtype) ** np.int64(-2)


@pytest.mark.parametrize("expr", ["a - 3", "a * -3", "a < -3", "a + 300", "-3 - a", "a == 253"])
def test_a_number_out_of_an_integer_dtypes_range_wraps_around_as_in_torch(expr):
    data = np.array([0, 1, 5, 200, 255], "uint8")
    ours, theirs = eval(expr, {"a": ag.tensor(data)}), eval(expr, {"a": torch.tensor(data)})
    assert host(ours._data).tolist() == theirs.tolist() and ours.dtype.name == str(theirs.dtype)[6:]


# -- numbers a tensor's dtype cannot hold -------------------------------------------------------------------
# PyTorch checks a number before it writes or computes it in a tensor's dtype, per op: an int8 tensor refuses
# 300 in where, clamp, pow, fill_ and masked_fill (NumPy wraps it to 44), a float16 one refuses 70000 in clamp,
# fill_, masked_fill, scatter and pow (NumPy makes it inf), while its where and indexing write inf for float16
# and refuse only 1e39 for float32. Each case: both raise, or both give the same dtype and values.

OUT_OF_RANGE = [300, -1, -255, -256, 255, 70000, 65505.0, 65520.0, 1e5, 3.5e38, 1e39, 1e309, float("inf"),
                float("nan"), 2.5, 128]
WRITES = {
    "a ** n": lambda T, a, n: a ** n,
    "where(c, a, n)": lambda T, a, n: T.where(a > 1, a, n), "where(c, n, a)": lambda T, a, n: T.where(a > 1, n, a),
    "clamp(max=n)": lambda T, a, n: a.clamp(max=n), "clamp(min=n)": lambda T, a, n: T.clamp(a, min=n),
    "fill_(n)": lambda T, a, n: a.fill_(n), "a[0] = n": lambda T, a, n: a.__setitem__(0, n) or a,
    "masked_fill": lambda T, a, n: a.masked_fill(a > 1, n), "full": lambda T, a, n: T.full((2,), n, dtype=a.dtype),
    "scatter": lambda T, a, n: a.scatter(0, T.tensor([0]), n),
}


def _outcome(T, dtype, write, number):
    a = T.tensor([1, 2, 3], dtype=getattr(T, dtype))
    try:
        with np.errstate(all="ignore"):
            out = write(T, a, number)
    except (RuntimeError, OverflowError, ValueError) as exc:
        return type(exc).__name__ if type(exc) is not RuntimeError else "RuntimeError"
    return str(out.dtype).split(".")[-1], [None if v != v else v for v in host(out).tolist()]


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "int64", "float16", "float32", "float64"])
@pytest.mark.parametrize("write", list(WRITES))
def test_a_number_the_dtype_cannot_hold_is_refused_where_torch_refuses_it(dtype, write):
    for number in OUT_OF_RANGE:
        ours, theirs = _outcome(ag, dtype, WRITES[write], number), _outcome(torch, dtype, WRITES[write], number)
        assert ours == theirs, (dtype, write, number)


@pytest.mark.parametrize("number", [0.1, 1 / 3, 3.3, 1e-3, 70000.0, 2049, -7])
def test_float16_times_or_over_a_number_is_torchs_to_the_last_bit(number):
    """PyTorch's CPU kernels keep the number in float32 and round the product once: rounding 0.1 to float16 first
    changed the last bit of a third of x * 0.1. Values, both orders, 1/x's product, and the gradients."""
    x = np.linspace(-100, 100, 2001).astype(np.float16)
    x = x[x != 0]
    g = x[::-1].copy()
    ops = {"x * n": lambda a: a * number, "n * x": lambda a: number * a, "x / n": lambda a: a / number,
           "n / x": lambda a: number / a}
    for name, op in ops.items():
        a, t = ag.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        ours, theirs = op(a), op(t)
        assert ours.dtype == ag.float16, name
        np.testing.assert_array_equal(host(ours.detach()), theirs.detach().numpy(), err_msg=name)
        ours.backward(ag.tensor(g))
        theirs.backward(torch.tensor(g))
        np.testing.assert_array_equal(host(a.grad), t.grad.numpy(), err_msg=f"{name}: the gradient")


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_reciprocals_gradient_multiplies_in_torchs_order(dtype):
    """-g * (y * y), PyTorch's order: (-g * y) * y differs in the last bit (a third of float16 values)."""
    rng = np.random.default_rng(7)
    x, g = rng.normal(size=5000).astype(dtype), rng.normal(size=5000).astype(dtype)
    a, t = ag.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    a.reciprocal().backward(ag.tensor(g))
    t.reciprocal().backward(torch.tensor(g))
    np.testing.assert_array_equal(host(a.grad), t.grad.numpy())


def test_a_float16_parameter_times_a_number_is_torchs_too():
    """A Tensor subclass takes the slow path of mul and div: the same single rounding there (nn.Parameter)."""
    x = np.linspace(-100, 100, 2001).astype(np.float16)
    p, tp = ag.nn.Parameter(ag.tensor(x)), torch.nn.Parameter(torch.tensor(x))
    for name, op in {"p * n": lambda a: a * 0.1, "n * p": lambda a: 0.1 * a, "p / n": lambda a: a / 0.1}.items():
        np.testing.assert_array_equal(host(op(p).detach()), op(tp).detach().numpy(), err_msg=name)
    with ag.no_grad():
        p.mul_(0.9)
    with torch.no_grad():
        tp.mul_(0.9)
    np.testing.assert_array_equal(host(p.detach()), tp.detach().numpy(), err_msg="p.mul_(0.9)")
