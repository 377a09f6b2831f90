"""What a round of differential fuzzing of shape ops, layers and signatures against torch 2.13 found wrong, each
fixed and checked side by side: shape ops that changed nothing handed their input back (so ``no_grad`` did not
detach the result), copies made by advanced indexing came back in NumPy's layout (``.view()`` refused them),
torch's keyword names ``input=``/``other=``, GroupNorm's keyword-only ``bias``, ``histogram``'s default bins,
bicubic resampling at an unchanged size, NaN spreading in adaptive average pooling, ``grid_sample`` reading an
inf outside the image, and the shuffles returning views."""
import numpy as np
import pytest
from conftest import import_torch
from torch_compare import same_results

import autogradlab as ag

torch = import_torch()

UNCHANGED = {
    "squeeze()": lambda T, x: x.squeeze(), "squeeze(0)": lambda T, x: x.squeeze(0),
    "squeeze function": lambda T, x: T.squeeze(x), "expand(same)": lambda T, x: x.expand(2, 3),
    "expand_as(self)": lambda T, x: x.expand_as(x), "broadcast_to(same)": lambda T, x: T.broadcast_to(x, (2, 3)),
    "1-d T": lambda T, x: x[0].T,
}


@pytest.mark.parametrize("op", list(UNCHANGED))
def test_a_shape_op_that_changes_nothing_still_gives_a_new_view_as_torch(op):
    """With the input handed back, ``with no_grad(): y = x.squeeze()`` left y in x's graph, and the gradient
    through ``x * y`` came out doubled; an in-place reshape of y changed x."""
    def run(T):
        w = T.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        x = w * 1
        with T.no_grad():
            y = UNCHANGED[op](T, x)
        (x[0] * y.reshape(-1)[:3]).sum().backward()
        z = T.zeros(2, 3)
        UNCHANGED[op](T, z).unsqueeze_(0)
        return w.grad, T.tensor(z.shape), T.tensor(y is x)
    same_results(run, rtol=0)


COPIES = {
    "index_select(dim=1)": lambda T, x: x.index_select(1, T.tensor([0, 2])),
    "x[:, t]": lambda T, x: x[:, T.tensor([0, 2])], "roll(1, 1)": lambda T, x: x.roll(1, 1),
    "repeat_interleave(dim=1)": lambda T, x: x.repeat_interleave(2, dim=1),
    "diag_embed(dims 0, 2)": lambda T, x: T.diag_embed(x, 0, 0, 2), "diag_embed(-1)": lambda T, x: T.diag_embed(x, -1),
    "tril of a permuted 3-d": lambda T, x: T.tril(x.reshape(2, 3, 4).transpose(0, 2)),
}


@pytest.mark.parametrize("op", list(COPIES))
def test_copies_come_back_row_by_row_as_torch(op):
    def run(T):
        x = T.arange(24.0).reshape(4, 6)
        y = COPIES[op](T, x)
        return y.view(-1), T.tensor(y.stride()), T.tensor(y.is_contiguous())
    same_results(run, rtol=0)


KEYWORDS = {
    "sum(input=)": lambda T, x: T.sum(input=x), "exp(input=)": lambda T, x: T.exp(input=x),
    "neg(input=)": lambda T, x: T.neg(input=x), "floor(input=)": lambda T, x: T.floor(input=x),
    "round(input=)": lambda T, x: T.round(input=x), "sign(input=)": lambda T, x: T.sign(input=x),
    "square(input=)": lambda T, x: T.square(input=x),
    "mul(input=, other=)": lambda T, x: T.mul(input=x, other=x), "x.mul(other=)": lambda T, x: x.mul(other=x),
    "eq(input=, other=)": lambda T, x: T.eq(input=x, other=x), "x.lt(other=)": lambda T, x: x.lt(other=0.5),
    "maximum(input=, other=)": lambda T, x: T.maximum(input=x, other=x * 2),
    "matmul(input=, other=)": lambda T, x: T.matmul(input=x, other=x),
    "remainder(other=)": lambda T, x: T.remainder(x, other=1.5), "x.true_divide(other=)": lambda T, x:
        x.true_divide(other=2), "isclose(other=)": lambda T, x: T.isclose(x, other=x),
    "floor_divide(input=, other=)": lambda T, x: T.floor_divide(input=x, other=2.0),
    "bitwise_and(other=)": lambda T, x: T.bitwise_and(x > 1, other=x < 4),
    "mean(input=, dim=)": lambda T, x: T.mean(input=x, dim=0), "amax(input=)": lambda T, x: T.amax(input=x, dim=1),
    "softmax(input=, dim=)": lambda T, x: T.softmax(input=x, dim=1),
    "reshape(input=, shape=)": lambda T, x: T.reshape(input=x, shape=(4,)),
    "x.reshape(shape=)": lambda T, x: x.reshape(shape=(4, 1)), "x.view(size=)": lambda T, x: x.view(size=(4,)),
    "x.permute(dims=)": lambda T, x: x.permute(dims=(1, 0)), "permute(input=, dims=)": lambda T, x: T.permute(
        input=x, dims=(1, 0)), "x.expand(size=)": lambda T, x: x.expand(size=(3, 2, 2)),
    "transpose(input=)": lambda T, x: T.transpose(input=x, dim0=0, dim1=1),
    "flatten(input=)": lambda T, x: T.flatten(input=x), "roll(input=)": lambda T, x: T.roll(input=x, shifts=1),
    "index_select(input=)": lambda T, x: T.index_select(input=x, dim=1, index=T.tensor([1])),
    "mm(input=, mat2=)": lambda T, x: T.mm(input=x, mat2=x), "mv(input=, vec=)": lambda T, x: T.mv(input=x, vec=x[0]),
    "dot(input=, tensor=)": lambda T, x: T.dot(input=x[0], tensor=x[1]),
    "outer(input=, vec2=)": lambda T, x: T.outer(input=x[0], vec2=x[1]),
}


@pytest.mark.parametrize("call", list(KEYWORDS))
def test_torchs_keyword_names_are_taken(call):
    """Lab code that names the arguments (``torch.mul(input=a, other=b)``) ports unchanged."""
    same_results(lambda T: KEYWORDS[call](T, T.tensor([[1.0, 2.0], [3.0, 4.0]])), rtol=1e-6)


def test_groupnorm_takes_bias_by_keyword_only_and_histogram_defaults_to_100_bins_as_torch():
    for T in (ag, torch):   # (the 5th positional argument is the device: bias stays True)
        assert T.nn.GroupNorm(2, 4, 1e-5, True, None).bias is not None
        assert T.nn.GroupNorm(2, 4, bias=False).bias is None
        assert T.nn.LazyBatchNorm1d(bias=False).bias is None
    same_results(lambda T: T.histogram(T.tensor([1.0, 2.0, 3.0, 2.5])), rtol=1e-6)


def test_bicubic_resamples_a_dim_whose_size_the_scale_leaves_unchanged_as_torch():
    """floor(3 * 1.3) = 3: torch's linear kernels copy then, its bicubic one resamples by 1/1.3."""
    def run(T):
        x = T.tensor(np.arange(12.0).reshape(1, 1, 3, 4), requires_grad=True)
        y = T.nn.functional.interpolate(x, scale_factor=(1.3, 2.0), mode="bicubic")
        (y * T.arange(float(y.numel()), dtype=T.float64).reshape(y.shape)).sum().backward()
        return y, x.grad
    same_results(run, rtol=1e-10)


def test_adaptive_average_pooling_keeps_a_nan_in_its_own_windows_as_torch():
    """A product with a matrix of window weights spread an inf or NaN to every window (0 * inf); the windows
    are now gathered, and the gradients stay those of the averages."""
    rng = np.random.default_rng(0)
    for trial in range(60):
        nd = 1 + trial % 3
        shape = (1 + trial % 2, 2) + tuple(int(v) for v in rng.integers(1, 7, nd))
        data = rng.normal(size=shape)
        data.flat[rng.integers(data.size)] = [np.inf, np.nan, -np.inf][trial % 3]
        out = tuple(int(v) for v in rng.integers(1, 8, nd))
        name = f"adaptive_avg_pool{nd}d"

        def run(T):
            x = T.tensor(data, requires_grad=True)
            y = getattr(T.nn.functional, name)(x, out)
            y.backward(T.ones(y.shape, dtype=T.float64))
            return y, x.grad
        same_results(run, rtol=1e-10)
    same_results(lambda T: T.nn.functional.interpolate(T.tensor([[[1.0, float("inf"), 2.0, 3.0, 4.0, 5.0]]]),
                                                       size=3, mode="area"), rtol=1e-6)


@pytest.mark.parametrize("mode", ["nearest", "bilinear", "bicubic"])
def test_grid_sample_outside_the_image_reads_zero_even_beside_an_inf_as_torch(mode):
    def run(T):
        x = T.tensor([[[[float("inf"), 1.0], [2.0, 3.0]]]], dtype=T.float64, requires_grad=True)
        grid = T.tensor([[[[5.0, 5.0], [0.5, 0.5]]]], dtype=T.float64, requires_grad=True)
        y = T.nn.functional.grid_sample(x, grid, mode=mode, align_corners=True)
        y[0, 0, 0, 0].backward()
        return y, grid.grad[..., 0, :], x.grad
    same_results(run, rtol=0)


@pytest.mark.parametrize("shuffle", ["channel_shuffle(1)", "pixel_shuffle(1)", "pixel_unshuffle(1)",
                                     "pixel_shuffle of one pixel"])
def test_the_shuffles_always_return_new_memory_as_torch(shuffle):
    def run(T):
        F = T.nn.functional
        x = T.arange(8.0).reshape(1, 2, 2, 2) if shuffle != "pixel_shuffle of one pixel" else \
            T.arange(4.0).reshape(1, 4, 1, 1)
        y = {"channel_shuffle(1)": lambda: F.channel_shuffle(x, 1), "pixel_shuffle(1)": lambda: F.pixel_shuffle(x, 1),
             "pixel_unshuffle(1)": lambda: F.pixel_unshuffle(x, 1),
             "pixel_shuffle of one pixel": lambda: F.pixel_shuffle(x, 2)}[shuffle]()
        y.view(-1)[0] = 100.0
        w = T.ones(1, 4, 1, 1, dtype=T.float64, requires_grad=True)
        z = F.pixel_shuffle(w.sigmoid(), 2)
        z.mul_(2)   # (a view of sigmoid's output would have changed what its backward reads)
        z.sum().backward()
        return x, w.grad
    same_results(run, rtol=1e-12)


def test_the_like_constructors_take_input_by_name_and_options_by_keyword_only_as_torch():
    def run(T):
        x = T.ones(2, 3)
        return T.zeros_like(input=x), T.full_like(input=x, fill_value=3), T.ones_like(x, dtype=T.int64)
    same_results(run, rtol=0)
    for T in (ag, torch):   # (a dtype given by position is refused by both)
        with pytest.raises(TypeError):
            T.zeros_like(T.ones(2), T.float64)


def _node_names(t):
    """The names of the nodes behind ``t``, depth first (torch's AccumulateGrad has a namespace prefix)."""
    out, stack, seen = [], [t.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        out.append(node.name().split("::")[-1].rstrip("0123456789"))
        stack.extend(child for child, _ in node.next_functions)
    return out


@pytest.mark.parametrize("make", [
    lambda L, y: y.expand(2, 3), lambda L, y: y.expand(-1, 3), lambda L, y: y.expand_as(y),
    lambda L, y: y.broadcast_to((2, 3)), lambda L, y: L.broadcast_to(y, (2, 3)),
    lambda L, y: L.autograd.grad((y.sum(1, keepdim=True) * y.detach()[:, :1]).sum(), y, create_graph=True)[0],
], ids=["expand", "expand -1", "expand_as", "method broadcast_to", "broadcast_to", "keepdim sum's gradient"])
def test_an_expand_that_changes_nothing_records_torchs_expand_node(make):
    """A user's expand to the same shape (and the sum's VJP under create_graph, which calls it) records
    ExpandBackward, as torch; it was a ReshapeBackward."""
    ours = make(ag, ag.randn(2, 3, dtype=ag.float64, requires_grad=True))
    theirs = make(torch, torch.randn(2, 3, dtype=torch.float64, requires_grad=True))
    assert _node_names(ours) == _node_names(theirs)


def test_the_librarys_own_expands_add_no_node():
    """linalg.cross broadcasts its operands with the library's own expand: no node where the shape stays (it
    recorded a ReshapeBackward per operand)."""
    a, b = (ag.randn(4, 3, dtype=ag.float64, requires_grad=True) for _ in range(2))
    names = _node_names(ag.linalg.cross(a, b))
    assert "ReshapeBackward" not in names and "ExpandBackward" not in names, names
    assert "ExpandBackward" in _node_names(ag.linalg.cross(a, b[:1]))   # (a real broadcast is one)
