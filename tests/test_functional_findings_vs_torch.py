"""Less common nn.functional ops and norms against torch 2.13: what a differential check of about 5,000 cases
found wrong, each fixed and checked side by side."""
from __future__ import annotations

import itertools

import pytest
from conftest import import_torch
from torch_compare import both_raise, same_results

import autogradlab as ag

torch = import_torch()


def _second(T, case):
    """A second derivative through a 2-norm of an all-zero slice: through the incoming gradient it is 0."""
    F = T.nn.functional
    if case == "vector_norm":
        a = T.tensor(2.0, dtype=T.float64, requires_grad=True)
        b = T.zeros(2, dtype=T.float64, requires_grad=True)
        (gb,) = T.autograd.grad(a * T.linalg.vector_norm(b), [b], create_graph=True)
        return T.autograd.grad(gb.sum(), [a])[0]
    if case == "cosine_similarity":
        x1 = T.tensor([[0.7, -0.2]], dtype=T.float64, requires_grad=True)
        x2 = T.zeros(1, 2, dtype=T.float64, requires_grad=True)
        (g2,) = T.autograd.grad(F.cosine_similarity(x1, x2).sum(), x2, create_graph=True)
        return T.autograd.grad(g2.sum(), x1)[0]
    w = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
    x = T.tensor([[0.0, 0.0], [1.0, 2.0]], dtype=T.float64, requires_grad=True)
    (gx,) = T.autograd.grad((F.pairwise_distance(x, x, eps=0.0) * w).sum(), x, create_graph=True)
    return T.autograd.grad(gx.pow(2).sum(), w)[0]


@pytest.mark.parametrize("case", ["vector_norm", "cosine_similarity", "pairwise_distance"])
def test_a_second_derivative_through_a_zero_norms_gradient_is_torchs_not_nan(case):
    """A gradient penalty at a zero vector: the norm's VJP divided the incoming gradient by the 0 norm before
    masking, so the derivative through that gradient was NaN (torch: 0, or the finite value)."""
    same_results(lambda T: _second(T, case))


def test_the_second_derivative_through_the_zero_norms_input_stays_torchs_nan():
    def through_input(T):
        b = T.zeros(2, dtype=T.float64, requires_grad=True)
        (gb,) = T.autograd.grad(3.0 * b.norm(), [b], create_graph=True)
        return T.autograd.grad(gb.sum(), [b])[0]
    same_results(through_input)


@pytest.mark.parametrize("dtype, mode, padding, align, where, value", itertools.product(
    ["float32", "float64"], ["bilinear", "nearest", "bicubic"], ["border", "reflection", "zeros"], [False, True],
    ["x", "y"], ["nan", "inf", "-inf"]))
def test_grid_sample_reads_a_non_finite_image_coordinate_where_torch_does(dtype, mode, padding, align, where, value):
    """An image reads a NaN coordinate (and an inf one reflected) at its first pixel, as torch's image kernels;
    it read the last."""
    def run(T):
        x = T.arange(9.0, dtype=getattr(T, dtype)).reshape(1, 1, 3, 3)
        point = [float(value), 0.0] if where == "x" else [0.0, float(value)]
        grid = T.tensor(point, dtype=getattr(T, dtype)).reshape(1, 1, 1, 2)
        return T.nn.functional.grid_sample(x, grid, mode=mode, padding_mode=padding, align_corners=align)
    same_results(run)


@pytest.mark.parametrize("mode, padding, value", itertools.product(
    ["bilinear", "nearest"], ["border", "reflection", "zeros"], ["nan", "inf", "0.3"]))
def test_grid_sample_reads_a_non_finite_volume_coordinate_where_torch_does(mode, padding, value):
    """A volume reads it at its last voxel, and with zeros padding skips it (0; it was NaN)."""
    def run(T):
        x = T.arange(27.0, dtype=T.float64).reshape(1, 1, 3, 3, 3)
        grid = T.tensor([float(value), 0.2, -0.4], dtype=T.float64).reshape(1, 1, 1, 1, 3)
        return T.nn.functional.grid_sample(x, grid, mode=mode, padding_mode=padding, align_corners=False)
    same_results(run)


@pytest.mark.parametrize("bags", ["all padding", "no rows"])
def test_embedding_bag_max_of_empty_bags_still_hangs_from_the_weight(bags):
    """Zeros that do not require grad made backward raise; torch's give the weight a zero gradient."""
    def run(T):
        w = T.ones(3, 2, requires_grad=True)
        if bags == "all padding":
            out = T.nn.functional.embedding_bag(T.tensor([[0, 0]]), w, mode="max", padding_idx=0)
        else:
            out = T.nn.functional.embedding_bag(T.tensor([], dtype=T.int64), w, T.tensor([0]), mode="max")
        assert out.requires_grad
        out.sum().backward()
        return w.grad
    same_results(run)


def test_dropout_of_an_integer_tensor_is_torchs():
    for call in (lambda T: T.nn.functional.dropout(T.tensor([1, 2, 3]), 1.0, training=True),
                 lambda T: T.nn.functional.dropout(T.tensor([1, 2, 3]), 0.0, training=True),
                 lambda T: T.nn.functional.dropout2d(T.ones(2, 3, 4, dtype=T.int64), 1.0)):
        same_results(call)
    for inplace in (False, True):   # (bools stay bools)
        ours = ag.nn.functional.dropout(ag.tensor([True, False]), 1.0, inplace=inplace)
        theirs = torch.nn.functional.dropout(torch.tensor([True, False]), 1.0, inplace=inplace)
        assert (ours.dtype.name, ours.tolist()) == (str(theirs.dtype)[6:], theirs.tolist())


@pytest.mark.parametrize("call", [
    lambda T: T.nn.functional.dropout(T.tensor([1, 2, 3]), 0.5, training=True),
    lambda T: T.nn.functional.dropout1d(T.ones(2, 3, 4, dtype=T.int64), 0.5),
    lambda T: T.nn.functional.dropout2d(T.ones(2, 3, 4, dtype=T.int64), 0.5),
    lambda T: T.nn.functional.dropout3d(T.ones(2, 3, 4, 2, 2, dtype=T.int64), 0.5),
    lambda T: T.nn.functional.pad(T.ones(1, 1, 3), (-2, -2), mode="circular"),
    lambda T: T.cdist(T.ones(2, 3), T.ones(2, 3), compute_mode="bogus"),
], ids=["dropout int", "dropout1d int", "dropout2d int", "dropout3d int", "circular pad cut past empty",
        "cdist compute_mode"])
def test_what_torch_refuses_is_refused(call):
    both_raise(lambda: call(ag), lambda: call(torch))


@pytest.mark.parametrize("call", [
    lambda F, x: F.elu(x), lambda F, x: F.selu(x), lambda F, x: F.celu(x), lambda F, x: F.silu(x),
    lambda F, x: F.softplus(x), lambda F, x: F.hardsigmoid(x), lambda F, x: F.hardswish(x), lambda F, x: F.mish(x),
    lambda F, x: F.logsigmoid(x), lambda F, x: F.leaky_relu(x), lambda F, x: F.gelu(x),
    lambda F, x: F.softmax(x, dim=-1), lambda F, x: F.log_softmax(x, dim=-1), lambda F, x: F.softmin(x, dim=-1),
    lambda F, x: F.gumbel_softmax(x), lambda F, x: F.layer_norm(x, (2,)), lambda F, x: F.rms_norm(x, (2,)),
    lambda F, x: F.group_norm(x.reshape(1, 2, 2), 1), lambda F, x: F.batch_norm(x, None, None, training=True),
    lambda F, x: x.softmax(-1), lambda F, x: x.log_softmax(-1), lambda F, x: F.rrelu(x),
], ids=["elu", "selu", "celu", "silu", "softplus", "hardsigmoid", "hardswish", "mish", "logsigmoid", "leaky_relu",
        "gelu", "softmax", "log_softmax", "softmin", "gumbel_softmax", "layer_norm", "rms_norm", "group_norm",
        "batch_norm", "Tensor.softmax", "Tensor.log_softmax", "rrelu"])
def test_an_integer_input_raises_torchs_error_class(call):
    """torch's kernels for these have no integer version: NotImplementedError (gumbel_softmax: RuntimeError);
    these raised TypeError or RuntimeError, with the same hint."""
    both_raise(lambda: call(ag.nn.functional, ag.tensor([[1, 2], [3, 4]])),
               lambda: call(torch.nn.functional, torch.tensor([[1, 2], [3, 4]])))


@pytest.mark.parametrize("call", [
    lambda T: T.nn.LSTMCell(3, 4)(T.randn(2, 3), T.randn(2, 2, 4)),
    lambda T: T.nn.LSTM(3, 4)(T.randn(5, 2, 3), T.randn(2, 1, 2, 4)),
    lambda T: T.nn.GRU(3, 4, bias=0), lambda T: T.nn.LSTM(3, 4, bias=1),
], ids=["LSTMCell stacked hx", "LSTM stacked hx", "GRU bias=0", "LSTM bias=1"])
def test_recurrent_layers_refuse_what_torch_refuses(call):
    """One stacked tensor as an LSTM's (h, c) was split along its first dim and run; an int bias was taken."""
    both_raise(lambda: call(ag), lambda: call(torch))
