"""What a round of differential fuzzing of ``nn.functional`` against torch 2.13 found wrong, each fixed and
checked side by side: the result dtypes of three losses given mixed float dtypes, ``multi_margin_loss``'s weight
check, an empty batch in ``group_norm`` and ``fold``, ``max_pool3d``'s indices for a window of padding alone,
and ``stride=()``."""
import numpy as np
import pytest
from conftest import import_torch
from torch_compare import both_raise, same_results

import autogradlab as ag

torch = import_torch()

LOSSES = {"huber": lambda F, a, b: F.huber_loss(a, b), "soft-margin": lambda F, a, b: F.soft_margin_loss(a, b),
          "bce-with-logits": lambda F, a, b: F.binary_cross_entropy_with_logits(a, b),
          "bce-with-logits-pos-weight": lambda F, a, b: F.binary_cross_entropy_with_logits(
              a, b.to(a.dtype), pos_weight=b),
          "mse": lambda F, a, b: F.mse_loss(a, b), "l1": lambda F, a, b: F.l1_loss(a, b)}


@pytest.mark.parametrize("loss", LOSSES.values(), ids=LOSSES.keys())
@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("float64", "float32")], ids=["32-64", "64-32"])
def test_losses_of_mixed_float_dtypes_come_out_in_torchs_dtype(loss, dtypes):
    """huber and soft margin in the input's dtype, bce with logits in the target's, mse and l1 promoted."""
    def run(T):
        a = T.tensor([0.3, -1.2, 2.0], dtype=getattr(T, dtypes[0]), requires_grad=True)
        b = T.tensor([0.5, 1.0, 0.0], dtype=getattr(T, dtypes[1]))
        out = loss(T.nn.functional, a, b)
        if loss is LOSSES["huber"]:   # (torch's huber backward fails on mixed dtypes: "Found dtype Double ...")
            return out
        out.backward()
        return out, a.grad
    same_results(run, rtol=1e-6)


@pytest.mark.parametrize("weight", [lambda T: T.ones(2), lambda T: T.ones(3, dtype=T.float64)],
                         ids=["wrong-size", "wrong-dtype"])
def test_multi_margin_loss_checks_its_weight_as_torch(weight):
    def call(T):
        return T.nn.functional.multi_margin_loss(T.zeros(2, 3), T.tensor([0, 1]), weight=weight(T))
    both_raise(lambda: call(ag), lambda: call(torch))
    same_results(lambda T: T.nn.functional.multi_margin_loss(T.tensor([[0.1, 0.5, -0.2], [1.0, 0.0, 0.3]]),
                                                             T.tensor([0, 2]), weight=T.tensor([1.0, 2.0, 3.0])))


def test_an_empty_batch_goes_through_group_norm_and_fold_as_torch():
    same_results(lambda T: (T.nn.functional.group_norm(T.zeros(0, 4, 3), 2), T.nn.GroupNorm(2, 4)(T.zeros(0, 4, 3, 3)),
                            T.nn.functional.fold(T.zeros(0, 8, 4), (3, 3), 2)))


def test_max_pool3d_indices_of_a_window_of_padding_alone_do_not_crash():
    """torch's own index there is out of range; ours is -1, as the 1-d and 2-d pools give; values match."""
    x = np.arange(12.0).reshape(1, 1, 1, 3, 4)
    out, where = ag.nn.functional.max_pool3d(ag.tensor(x), 2, padding=1, dilation=2, ceil_mode=True,
                                             return_indices=True)
    theirs = torch.nn.functional.max_pool3d(torch.tensor(x), 2, padding=1, dilation=2, ceil_mode=True)
    np.testing.assert_array_equal(out.numpy(), theirs.numpy())
    assert (where.numpy() == -1).all()


def test_an_empty_stride_means_the_kernel_size_as_torch():
    same_results(lambda T: (*T.nn.functional.max_pool3d(T.arange(48.0).reshape(1, 1, 3, 4, 4), 2,
                                                        return_indices=True, stride=()),
                            T.nn.functional.max_pool2d(T.arange(16.0).reshape(1, 1, 4, 4), 2, stride=()),
                            T.nn.functional.avg_pool1d(T.arange(16.0).reshape(1, 1, 16), 2, stride=())), rtol=0)


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_a_recurrent_layer_with_a_parametrized_weight_runs_as_torch(kind):
    """weight_norm on a recurrent weight (the AWD-LSTM setup): the layer reads the computed weight."""
    torch.manual_seed(0)
    saved = {k: v.detach().numpy().copy() for k, v in getattr(torch.nn, kind)(3, 4, num_layers=2).state_dict().items()}

    def run(T):
        layer = getattr(T.nn, kind)(3, 4, num_layers=2)
        layer.load_state_dict({k: T.tensor(v) for k, v in saved.items()})
        layer = T.nn.utils.parametrizations.weight_norm(layer, name="weight_hh_l1")
        x = T.tensor(np.linspace(-1, 1, 30).reshape(5, 2, 3), dtype=T.float32, requires_grad=True)
        out = layer(x)[0]
        (out * out).sum().backward()
        return (out, x.grad) + tuple(p.grad for p in layer.parameters())
    same_results(run, rtol=1e-4)


def test_embedding_bag_max_sends_a_tied_features_gradient_to_the_first_row_as_torch():
    def run(T):
        weight = T.tensor([[1.0, 2.0], [1.0, 3.0], [0.0, 3.0]], requires_grad=True)
        out = T.nn.functional.embedding_bag(T.tensor([0, 1, 2, 2, 0]), weight, T.tensor([0, 3, 3]), mode="max")
        (out * T.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).sum().backward()
        padded = T.tensor([[1.0, 2.0], [1.0, 3.0], [0.0, 3.0]], requires_grad=True)
        skipped = T.nn.functional.embedding_bag(T.tensor([0, 1, 2, 1]), padded, T.tensor([0, 2]), mode="max",
                                                padding_idx=1)
        skipped.sum().backward()
        return out, weight.grad, skipped, padded.grad
    same_results(run, rtol=0)


BICUBIC = [((3, 4), {"size": (6, 7)}), ((5, 5), {"size": (2, 3)}), ((1, 3), {"scale_factor": 2.0}),
           ((4, 1), {"scale_factor": (0.5, 1.7)}), ((5, 5), {"size": (5, 5)}),
           ((3, 4), {"scale_factor": 1.3, "recompute_scale_factor": True})]


@pytest.mark.parametrize("shape, resize", BICUBIC, ids=[f"{s}-{r}" for s, r in BICUBIC])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_bicubic_interpolation_matches_torch_values_and_gradients(shape, resize, align_corners, dtype):
    x = np.random.default_rng(sum(shape)).normal(size=(2, 3) + shape)

    def run(T):
        image = T.tensor(x, dtype=getattr(T, dtype), requires_grad=True)
        out = T.nn.functional.interpolate(image, mode="bicubic", align_corners=align_corners, **resize)
        (out * T.arange(float(out.numel()), dtype=out.dtype).reshape(out.shape).cos()).sum().backward()
        return out, image.grad
    same_results(run, rtol=1e-9 if dtype == "float64" else 2e-4)


def test_bicubic_upsample_in_half_precision_as_torch():
    x = np.random.default_rng(1).normal(size=(1, 2, 3, 4))
    same_results(lambda T: T.nn.Upsample(scale_factor=2, mode="bicubic")(T.tensor(x, dtype=T.float16)), rtol=1e-3)


@pytest.mark.parametrize("call", [
    lambda T: T.nn.functional.pad(T.zeros(2, dtype=T.uint8), (1, 1), value=-1),
    lambda T: T.nn.functional.pad(T.zeros(2, dtype=T.float16), (1, 1), value=1e40),
    lambda T: T.full((2,), 1e40), lambda T: T.full((2,), 65519.0, dtype=T.float16),
    lambda T: T.full((1,), 1e40 + 1j, dtype=T.complex64)],
    ids=["pad-uint8-negative", "pad-half-overflow", "full-float32-overflow", "full-half-overflow", "full-complex"])
def test_a_fill_value_beyond_the_dtype_is_refused_as_torch(call):
    both_raise(lambda: call(ag), lambda: call(torch))


def test_fill_values_within_the_dtype_as_torch():
    same_results(lambda T: (T.nn.functional.pad(T.zeros(2, dtype=T.int64), (1, 1), value=2.5),
                            T.nn.functional.pad(T.zeros(2, dtype=T.int8), (1, 1), value=127),
                            T.nn.functional.pad(T.zeros(2), (1, 1), value=float("inf")),
                            T.full((2,), 65504.0, dtype=T.float16), T.full((2,), -1, dtype=T.uint8)), rtol=0)


def test_embedding_bag_refuses_per_sample_weights_of_another_dtype_as_torch():
    def call(T):
        return T.nn.functional.embedding_bag(T.tensor([0, 1]), T.ones(3, 2, dtype=T.float64), T.tensor([0]),
                                             mode="sum", per_sample_weights=T.ones(2))
    both_raise(lambda: call(ag), lambda: call(torch))


LOGISTIC = {
    "bce-with-logits": lambda T, x, t: T.nn.functional.binary_cross_entropy_with_logits(x, t, reduction="none"),
    "bce-with-logits-pos-weight": lambda T, x, t: T.nn.functional.binary_cross_entropy_with_logits(
        x, t, reduction="none", pos_weight=T.full((8,), 2.0, dtype=x.dtype)),
    "BCEWithLogitsLoss": lambda T, x, t: T.nn.BCEWithLogitsLoss(reduction="sum")(x, t),
    "multilabel-soft-margin": lambda T, x, t: T.nn.functional.multilabel_soft_margin_loss(
        x.reshape(2, 4), t.reshape(2, 4), reduction="none"),
    "Bernoulli-log-prob": lambda T, x, t: T.distributions.Bernoulli(logits=x).log_prob((t > 0.5).to(x.dtype)),
    "Bernoulli-entropy": lambda T, x, t: T.distributions.Bernoulli(logits=x).entropy(),
}


@pytest.mark.parametrize("loss", list(LOGISTIC))
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_logistic_losses_second_derivative_at_zero_logits_as_torch(loss, dtype):
    """Written with max(x, 0) and |x|, these had a zero (or halved) second derivative at a logit of exactly 0,
    where Newton's method from zero weights starts: now smooth, and the gradient is torch's s(x) - y to the
    last bit also where s(x) is tiny (x = -40)."""
    def run(T):
        x = T.tensor([0.0, 0.0, 0.0, 3.0, -2.5, -40.0, 40.0, 1.0], dtype=getattr(T, dtype), requires_grad=True)
        t = T.tensor([0.0, 1.0, 0.3, 0.5, 0.0, 0.0, 1.0, 1.0], dtype=getattr(T, dtype))
        g, = T.autograd.grad(LOGISTIC[loss](T, x, t).sum(), x, create_graph=True)
        h, = T.autograd.grad(g.sum(), x)
        return g, h[:5]   # (beyond |x| = 37 the Hessian is s(x)(1 - s(x)) ~ 4e-18, which torch rounds to 0)
    same_results(run, rtol=1e-5 if dtype == "float32" else 1e-12)


@pytest.mark.parametrize("kind", ["parameter", "buffer", "method"])
def test_a_class_attribute_cannot_hide_a_parameter_or_buffer_as_torch(kind):
    """``scale = 1.0`` on the class, then ``self.scale = nn.Parameter(...)``: torch refuses (KeyError), where the
    class attribute used to win every read, so the registered parameter was never used or trained."""
    def build(T):
        class Model(T.nn.Module):
            scale = 1.0

            def __init__(self):
                super().__init__()
                value = T.tensor([3.0])
                if kind == "parameter":
                    self.scale = T.nn.Parameter(value)
                elif kind == "buffer":
                    self.scale = T.nn.Buffer(value)
                else:
                    self.eval = T.nn.Parameter(value)
        return Model()
    both_raise(lambda: build(ag), lambda: build(torch))
    for T in (ag, torch):   # (re-assigning a registered one, or a name only the instance has, is fine)
        m = T.nn.Linear(2, 2)
        m.weight = T.nn.Parameter(T.zeros(2, 2))
        m.extra = T.nn.Parameter(T.ones(1))
        m.extra = T.nn.Parameter(T.ones(2))
        assert [n for n, _ in m.named_parameters()] == ["weight", "bias", "extra"]


def test_zero_grad_without_set_to_none_zeroes_a_view_gradient_as_torch():
    """A ``.grad`` that is a view of a flat buffer (``p.grad = flat[i:j]``) is zeroed through the view."""
    def run(T):
        p, q = T.nn.Parameter(T.ones(3)), T.nn.Parameter(T.ones(2))
        flat = T.ones(8)
        p.grad, q.grad = flat[:3], flat[5:7]
        m = T.nn.Module()
        m.p = p
        m.zero_grad(set_to_none=False)
        T.optim.SGD([q]).zero_grad(set_to_none=False)
        return flat, p.grad
    same_results(run, rtol=0)


def test_batchnorm_loads_a_state_dict_without_num_batches_tracked_as_torch():
    """A state_dict rebuilt without ``_metadata`` (a dict comprehension) or saved before version 2 lacks
    ``num_batches_tracked``: torch keeps the layer's own count; with ``_metadata`` of version 2 it is missing."""
    def run(T):
        model = T.nn.Sequential(T.nn.Linear(2, 3), T.nn.BatchNorm1d(3))
        model[1].num_batches_tracked.fill_(5)
        rebuilt = {k: v for k, v in model.state_dict().items() if not k.endswith("num_batches_tracked")}
        result = model.load_state_dict(rebuilt)
        loose = model.load_state_dict({}, strict=False)
        kept = model.state_dict()
        del kept["1.num_batches_tracked"]
        return (list(result.missing_keys), list(loose.missing_keys), model[1].num_batches_tracked.item(),
                dict(kept._metadata), kept)
    ours, theirs = run(ag), run(torch)
    assert ours[:4] == theirs[:4]
    assert ours[3] == {"": {"version": 1}, "0": {"version": 1}, "1": {"version": 2}}
    load = lambda T, state: T.nn.Sequential(T.nn.Linear(2, 3), T.nn.BatchNorm1d(3)).load_state_dict(state)
    both_raise(lambda: load(ag, ours[4]), lambda: load(torch, theirs[4]))


@pytest.mark.parametrize("batch", [[np.float64(1.5), 2.0], [np.float32(1.5), 2.0], [np.int64(3), 2],
                                   [np.float32(1.5), 2], [np.int32(2), True]],
                         ids=["f64-float", "f32-float", "i64-int", "f32-int", "i32-bool"])
def test_default_collate_of_numpy_scalars_and_python_numbers_as_torch(batch):
    same_results(lambda T: T.utils.data.default_collate(batch), rtol=0)


@pytest.mark.parametrize("dtype", ["int32", "uint8", "float32"])
def test_one_hot_takes_int64_labels_only_as_torch(dtype):
    """int32 labels worked here and fail in torch: code written here must port."""
    both_raise(lambda: ag.nn.functional.one_hot(ag.tensor([0, 1], dtype=getattr(ag, dtype))),
               lambda: torch.nn.functional.one_hot(torch.tensor([0, 1], dtype=getattr(torch, dtype))))
    same_results(lambda T: T.nn.functional.one_hot(input=T.tensor([0, 2]), num_classes=3), rtol=0)
