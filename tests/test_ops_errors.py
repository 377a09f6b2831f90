"""Bad input gives a clear error: what is wrong (naming the shapes, dims, dtypes, devices
involved) and, where there is one, how to fix it."""
import re

import numpy as np
import pytest

import autogradlab as ag
from autogradlab.tensor import Tensor


def m(text):
    """A ``match=`` pattern for a literal piece of the message."""
    return re.escape(text)


# -- shapes -------------------------------------------------------------------------------------

@pytest.mark.parametrize("op", ["+", "-", "*", "/", "**", "maximum"])
def test_broadcasting_mismatch_names_both_shapes_and_the_dim(op):
    a, b = ag.randn(2, 3), ag.randn(4)
    fn = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b,
          "**": lambda: a.abs() ** b, "maximum": lambda: ag.maximum(a, b)}[op]
    with pytest.raises(ValueError, match=m("(2, 3)") + ".*" + m("(4,)") + ".*cannot be broadcast.*dim -1.*3.*4"):
        fn()


def test_broadcasting_mismatch_in_where_names_all_three_shapes():
    with pytest.raises(ValueError, match=r"where: .*condition \(2,\).*self \(3,\).*other \(2,\)"):
        ag.where(ag.tensor([True, False]), ag.randn(3), ag.randn(2))


def test_in_place_op_whose_result_would_grow_names_both_shapes():
    with pytest.raises(RuntimeError, match=m("add_: the result has shape (2, 3)") + ".*" + m("shape (3,)")):
        ag.randn(3).add_(ag.randn(2, 3))


@pytest.mark.parametrize("a, b, pattern", [
    ((2, 3), (4, 5), "(2, 3) and (4, 5) cannot be multiplied: the last dim of the first (3) must equal the "
                     "second-to-last dim of the second (4)"),
    ((3,), (4,), "(3,) and (4,) cannot be multiplied: the last dim of the first (3) must equal the only dim"),
    ((2, 3, 4), (5, 4, 6), "(2, 3, 4) and (5, 4, 6) cannot be multiplied: their batch dims (2,) and (5,)"),
])
def test_matmul_mismatch_names_both_shapes(a, b, pattern):
    with pytest.raises(ValueError, match=m("matmul: shapes " + pattern)):
        ag.randn(*a) @ ag.randn(*b)


def test_matmul_with_a_0d_operand_says_to_use_mul():
    with pytest.raises(RuntimeError, match=m("got shapes (3,) and ()") + ".*use \\* for scalars"):
        ag.matmul(ag.randn(3), ag.tensor(2.0))


@pytest.mark.parametrize("fn, pattern", [
    (lambda: ag.dot(ag.randn(3), ag.randn(4)),
     "dot: expected two 1-D tensors of the same length, got shapes (3,) and (4,)"),
    (lambda: ag.outer(ag.randn(3, 1), ag.randn(4)), "outer: expected two 1-D tensors, got shapes (3, 1) and (4,)"),
])
def test_dot_and_outer_name_the_shapes(fn, pattern):
    with pytest.raises(RuntimeError, match=m(pattern)):
        fn()


@pytest.mark.parametrize("shape, pattern", [
    ((4, 4), "reshape: shape [4, 4] is invalid for input of size 6 (shape (2, 3)): the new shape must have 6 elements"),
    ((4, -1), "reshape: shape [4, -1] is invalid for input of size 6"),
    ((-1, -1), "reshape: only one dim can be -1 (inferred), got shape [-1, -1] for a tensor of shape (2, 3)"),
])
def test_reshape_to_an_impossible_shape(shape, pattern):
    with pytest.raises(RuntimeError, match=m(pattern)):
        ag.randn(2, 3).reshape(*shape)
    with pytest.raises(RuntimeError, match=m(pattern)):
        ag.randn(2, 3).view(shape)


@pytest.mark.parametrize("dims, error, pattern", [
    ((0, 3), IndexError, "permute: dim 3 is out of range for a tensor of shape (2, 3) (expected dims in [-2, 1])"),
    ((0, -3), IndexError, "permute: dim -3 is out of range"),
    ((0, 0), RuntimeError, "permute: dims [0, 0] must be a permutation of 0..1 for a tensor of shape (2, 3)"),
    ((1,), RuntimeError, "permute: dims [1] must be a permutation of 0..1"),
    ((2, 1, 0), IndexError, "permute: dim 2 is out of range"),
])
def test_permute_with_bad_dims(dims, error, pattern):
    with pytest.raises(error, match=m(pattern)):
        ag.randn(2, 3).permute(*dims)


@pytest.mark.parametrize("call, pattern", [
    (lambda x: x.sum(2), "sum: dim 2 is out of range for a tensor with 2 dimension(s) (expected a dim in [-2, 1])"),
    (lambda x: x.mean(-3), "mean: dim -3 is out of range"),
    (lambda x: x.amax((0, 5)), "amax: dim 5 is out of range"),
    (lambda x: x.max(2), "max: dim 2 is out of range"),
    (lambda x: x.var(4), "var: dim 4 is out of range"),
    (lambda x: x.logsumexp(2), "logsumexp: dim 2 is out of range"),
    (lambda x: x.softmax(-3), "softmax: dim -3 is out of range"),
    (lambda x: x.log_softmax(2), "log_softmax: dim 2 is out of range"),
    (lambda x: x.transpose(0, 2), "transpose: dim 2 is out of range"),
    (lambda x: x.squeeze(5), "squeeze: dim 5 is out of range"),
    (lambda x: x.unsqueeze(3), "unsqueeze: dim 3 is out of range for a tensor with 2 dims (expected a dim in [-3, 2])"),
    (lambda x: x.flatten(0, 4), "flatten: dim 4 is out of range"),
    (lambda x: x.split(1, 2), "split: dim 2 is out of range"),
    (lambda x: x.chunk(2, -3), "chunk: dim -3 is out of range"),
    (lambda x: x.unbind(2), "unbind: dim 2 is out of range"),
    (lambda x: ag.cat([x, x], 2), "cat: dim 2 is out of range"),
    (lambda x: ag.stack([x, x], 3), "stack: dim 3 is out of range for stacking tensors of shape (2, 3) "
                                    "(the result has 3 dims: expected a dim in [-3, 2])"),
])
def test_dim_out_of_range(call, pattern):
    with pytest.raises(IndexError, match=m(pattern)):
        call(ag.randn(2, 3))


def test_a_dim_listed_twice_is_refused():
    with pytest.raises(RuntimeError, match=m("sum: dim 0 appears more than once in dims (0, -2)")):
        ag.randn(2, 3).sum((0, -2))


@pytest.mark.parametrize("call", [lambda x: x.softmax(None), lambda x: x.max((0, 1))])
def test_ops_along_one_dim_refuse_a_tuple_or_none(call):
    with pytest.raises(TypeError, match="dim must be a single int"):
        call(ag.randn(2, 3))


@pytest.mark.parametrize("tensors, pattern", [
    ([(2, 3), (3, 4)], "cat: sizes of tensors must match except in dimension 0: tensor 0 has shape (2, 3) but "
                       "tensor 1 has shape (3, 4)"),
    ([(2, 3), (2, 3), (2, 4)], "tensor 0 has shape (2, 3) but tensor 2 has shape (2, 4)"),
    ([(2, 3), (3,)], "cat: tensors must have the same number of dims: tensor 0 has shape (2, 3) but tensor 1 has "
                     "shape (3,)"),
])
def test_cat_with_mismatched_shapes_names_both(tensors, pattern):
    with pytest.raises(RuntimeError, match=m(pattern)):
        ag.cat([ag.randn(*s) for s in tensors])


def test_stack_with_mismatched_shapes_names_both():
    with pytest.raises(RuntimeError, match=m("got (2, 3) at entry 0 and (3, 2) at entry 1")):
        ag.stack([ag.randn(2, 3), ag.randn(3, 2)])


@pytest.mark.parametrize("call, error, pattern", [
    (lambda: ag.cat([]), ValueError, "cat() expects a non-empty list or tuple of tensors"),
    (lambda: ag.stack([]), RuntimeError, "stack() expects a non-empty list or tuple of tensors"),
    (lambda: ag.stack(ag.randn(2)), TypeError, "stack() expects a non-empty list or tuple of tensors"),
    (lambda: ag.cat([ag.randn(2), [1.0]]), TypeError, "cat(): expected a Tensor at position 1, got list"),
    (lambda: ag.randn(5).split([2, 2]), RuntimeError, "split: sizes [2, 2] add up to 4, but dim 0 has size 5"),
    (lambda: ag.randn(5).split(0), ValueError, "split: split_size must be positive, got 0"),
    (lambda: ag.randn(5).chunk(0), ValueError, "chunk: chunks must be a positive number, got 0"),
    (lambda: ag.randn(2, 3).expand(4, 3), RuntimeError, "expand: the expanded size of the tensor (4) must match "
                                                        "the existing size (2) at non-singleton dimension 0"),
    (lambda: ag.randn(2, 3).expand(3), RuntimeError, "expand: the number of sizes provided (1) must be greater "
                                                     "or equal to the number of dimensions in the tensor (2)"),
    (lambda: ag.randn(3).expand(-1, 3), RuntimeError, "expand: the expanded size -1 is not allowed at dim 0"),
    (lambda: ag.randn(2, 3).sum_to_size(4), RuntimeError, "sum_to_size: size [4] is not expandable to size [2, 3]"),
    (lambda: ag.randn(3)[5], IndexError, "index 5 is invalid for a tensor of shape (3,)"),
    # (NumPy checks array indices; CuPy does not, so this one is on the CPU)
    (lambda: ag.randn(3, 2, device="cpu")[[0, 3]], IndexError, "is invalid for a tensor of shape (3, 2)"),
    (lambda: ag.randn(2).clamp(), RuntimeError, "clamp: at least one of 'min' or 'max' must not be None"),
    (lambda: ag.randn(2).clamp("a"), TypeError, "clamp: min must be a number, a Tensor or None, got str"),
    (lambda: ag.randn(2) + "a", TypeError, "unsupported operand type str: use a Tensor or a number"),
])
def test_other_bad_arguments(call, error, pattern):
    with pytest.raises(error, match=m(pattern)):
        call()


# -- dtypes ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda: ag.tensor([1, 2], requires_grad=True),
    lambda: ag.arange(3).requires_grad_(),
    lambda: ag.zeros(2, dtype=ag.int64, requires_grad=True),
    lambda: ag.tensor([True], requires_grad=True),
])
def test_requires_grad_on_a_non_float_dtype_names_the_dtype(make):
    with pytest.raises(RuntimeError, match=r"only Tensors of floating point and complex dtype can require gradients"
                                           r".*dtype (int64|bool)"
                                           r".*Create it with dtype=float32"):
        make()


@pytest.mark.parametrize("data, kw, pattern", [
    (np.array([1 + 2j], object), {}, "unsupported dtype object"),
    ([1.0], {"dtype": np.dtype("M8[s]")}, "unsupported dtype datetime64[s]"),
    (np.array(["a", "b"]), {}, "unsupported dtype str32"),
    (["a", "b"], {}, "unsupported data of type list (dtype kind 'U')"),
    ([b"a"], {}, "unsupported data of type list (dtype kind 'S')"),
])
def test_unsupported_dtype_is_named(data, kw, pattern):
    with pytest.raises(TypeError, match=m(pattern) + ".*float32, float64|" + m(pattern) + ".*pass numbers"):
        ag.tensor(data, **kw)


def test_where_needs_a_bool_condition():
    with pytest.raises(RuntimeError, match=m("where: condition must be a bool tensor, got dtype int64")):
        ag.where(ag.tensor([1, 0]), ag.randn(2), ag.randn(2))


def test_mean_of_integers_says_to_cast():
    with pytest.raises(RuntimeError, match=m("Input dtype must be floating point, got int64; use a.to(float32)")):
        ag.arange(3).mean()


def test_in_place_op_that_would_change_the_dtype():
    with pytest.raises(RuntimeError, match=m("mul_: result type float32 can't be cast to the desired output type "
                                             "int64")):
        ag.arange(3).mul_(0.5)


def test_integer_to_negative_integer_power_names_the_inputs():
    with pytest.raises(RuntimeError, match=r"Integers to negative integer powers are not allowed. \(pow: the base "
                                           r"is int64, the exponent -1; use a float base, e.g. x.float\(\) \*\* -1\)"):
        ag.tensor([2]) ** -1   # (checked before computing: NumPy would refuse it, a GPU compute garbage)


# -- in-place ops and autograd ------------------------------------------------------------------------

@pytest.mark.parametrize("name, call", [
    ("add_", lambda x: x.add_(1)), ("sub_", lambda x: x.sub_(1)), ("mul_", lambda x: x.mul_(2)),
    ("div_", lambda x: x.div_(2)), ("zero_", lambda x: x.zero_()), ("fill_", lambda x: x.fill_(1.0)),
    ("clamp_", lambda x: x.clamp_(0, 1)), ("pow_", lambda x: x.pow_(2)),
])
def test_in_place_op_on_a_leaf_that_requires_grad_raises(name, call):
    x = ag.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=m(f"{name}: a leaf Variable that requires grad is being used in an "
                                             f"in-place operation") + ".*no_grad"):
        call(x)
    with ag.no_grad():
        call(x)  # allowed: parameter updates


@pytest.mark.parametrize("op", ["+=", "-=", "*=", "/="])
def test_augmented_assignment_on_a_leaf_that_requires_grad_raises(op):
    x = ag.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        exec(f"x {op} 2", {"x": x})


def test_in_place_on_a_view_of_a_leaf_says_to_clone_and_on_a_saved_result_raises_at_backward():
    x = ag.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"mul_: a view of a leaf Variable that requires grad .*\.clone\(\)"):
        x[0:2].mul_(2)
    y = x.exp()
    y[0:2].mul_(2)               # allowed (as in PyTorch), but exp saved its result, which changed
    with pytest.raises(RuntimeError, match="saved as 'result' by ExpBackward .* is at version 1; expected "
                                           "version 0"):
        y.sum().backward()
    assert x.grad is None


def test_item_assignment_into_a_leaf_that_requires_grad_raises():
    x = ag.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="view of a leaf Variable that requires grad"):
        x[0] = 1.0
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        x[[0, 2]] = 1.0
    assert x.grad is None and x._version == 0


def test_modified_saved_tensor_is_reported_at_backward():
    x = ag.randn(3, requires_grad=True)
    y = x.exp()
    z = y.sum()
    y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation.*'result' by ExpBackward"):
        z.backward()


# -- devices --------------------------------------------------------------------------------------

def fake_cuda(*shape):
    """A tensor that claims to live on cuda:0 (the device check runs before any array work)."""
    t = Tensor._make(np.ones(shape), False, None, "cpu")  # host data: no op may get past the check
    t.device = "cuda:0"
    return t


@pytest.mark.parametrize("call, where", [
    (lambda c, g: c + g, "add: expected all tensors to be on the same device, but got self on cpu, other on cuda:0"),
    (lambda c, g: g * c, "mul: expected all tensors to be on the same device, but got self on cuda:0, other on cpu"),
    (lambda c, g: c @ g, "matmul: expected all tensors to be on the same device, but got self on cpu, other on cuda:0"),
    (lambda c, g: ag.where(c > 0, c, g), "where: expected all tensors to be on the same device, but got condition "
                                         "on cpu, self on cpu, other on cuda:0"),
    (lambda c, g: ag.where(c > 0, 1.0, g), "where: expected all tensors to be on the same device, but got "
                                           "condition on cpu, other on cuda:0"),   # (1.0: a constant, no tensor)
    (lambda c, g: ag.cat([c, c, g]), "cat: expected all tensors to be on the same device, but got tensors[0] on "
                                     "cpu, tensors[1] on cpu, tensors[2] on cuda:0"),
    (lambda c, g: ag.stack([g, c]), "stack: expected all tensors to be on the same device, but got tensors[0] on "
                                    "cuda:0, tensors[1] on cpu"),
])
def test_mixing_devices_names_which_tensor_is_where(call, where):
    c = ag.ones(3, 3, dtype=ag.float64, requires_grad=True, device="cpu")
    with pytest.raises(RuntimeError, match=m(where) + ".*" + m(".to(device)")):
        call(c, fake_cuda(3, 3))


@pytest.mark.parametrize("call, name, shown", [
    (lambda: ag.exp(2.0), "exp", "float 2.0"), (lambda: ag.tanh(1), "tanh", "int 1"),
    (lambda: ag.relu(-1.0), "relu", "float -1.0"), (lambda: ag.sum(3.0), "sum", "float 3.0"),
    (lambda: ag.mean([1.0, 2.0]), "mean", "list [1.0, 2.0]"), (lambda: ag.amax(1.0), "amax", "float 1.0"),
    (lambda: ag.max(1.0), "max", "float 1.0"), (lambda: ag.std(1.0), "std", "float 1.0"),
    (lambda: ag.softmax(1.0, 0), "softmax", "float 1.0"), (lambda: ag.reshape(1.0, 1), "reshape", "float 1.0"),
    (lambda: ag.flatten(1.0), "flatten", "float 1.0"), (lambda: ag.permute(1.0, 0), "permute", "float 1.0"),
    (lambda: ag.expand(1.0, 2), "expand", "float 1.0"), (lambda: ag.unbind(1.0), "unbind", "float 1.0"),
])
def test_a_number_where_a_tensor_goes_is_a_type_error_that_says_how_to_make_a_tensor(call, name, shown):
    with pytest.raises(TypeError) as err:    # (as torch: "exp(): argument 'input' must be Tensor, not float")
        call()
    msg = str(err.value)
    assert msg.startswith(f"{name}() expects a Tensor, but got {shown}") and "autogradlab.tensor(" in msg


@pytest.mark.parametrize("call, name", [(lambda: ag.zeros_like(2.0), "zeros_like"),
                                        (lambda: ag.ones_like([1.0, 2.0]), "ones_like"),
                                        (lambda: ag.full_like(1, 3.0), "full_like")])
def test_a_like_function_given_no_tensor_says_what_to_pass(call, name):
    with pytest.raises(TypeError, match=m(f"{name}() expects a Tensor") + ".*autogradlab.tensor"):
        call()
