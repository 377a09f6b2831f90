"""The rest of torch.nn's everyday layers and functions (``nn/more_functional.py``, ``nn/more_layers.py``,
``LazyInstanceNorm*``, ``nn.Buffer``): side by side with torch 2.13, values and gradients in float64, the
random ones by their masks' structure and statistics, and the errors."""
import warnings

import numpy as np
import pytest

import autogradlab as ag
from conftest import import_torch
from torch_compare import both_raise

torch = import_torch()
_rng = np.random.default_rng(20261130)


def _run(call, inputs, ours_kwargs=None):
    """``call(T, *tensors)`` in both libraries: the outputs and every input's gradient for one random seed."""
    results = []
    for T in (ag, torch):
        xs = [T.tensor(a, requires_grad=a.dtype.kind == "f") for a in inputs]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = call(T, *xs)
        outs = out if isinstance(out, tuple) else (out,)
        seed = np.random.default_rng(7).standard_normal(tuple(outs[0].shape))
        outs[0].backward(T.tensor(seed))
        results.append(([o.detach().numpy() for o in outs], [x.grad.numpy() if x.grad is not None else None
                                                             for x in xs]))
    return results


def _check(call, *inputs, rtol=1e-10, atol=1e-12):
    (ours, our_grads), (theirs, their_grads) = _run(call, inputs)
    for o, t in zip(ours, theirs):
        assert o.shape == t.shape
        np.testing.assert_allclose(o, t, rtol=rtol, atol=atol)
    for o, t in zip(our_grads, their_grads):
        if t is None:
            assert o is None
        else:
            np.testing.assert_allclose(o, t, rtol=rtol, atol=atol)


X3 = _rng.standard_normal((2, 6, 5))
X4 = _rng.standard_normal((2, 4, 5, 6))
X5 = _rng.standard_normal((2, 3, 4, 4, 5))
POS3 = np.abs(X3) + 0.1

CASES = {
    "rms_norm": (lambda T, x, w: T.nn.functional.rms_norm(x, (5,), w, 1e-6), X3, _rng.standard_normal(5)),
    "rms_norm default eps, two dims": (lambda T, x: T.nn.functional.rms_norm(x, (6, 5)), X3),
    "torch.rms_norm": (lambda T, x: T.rms_norm(x, [5]), X3) if False else (lambda T, x: T.nn.RMSNorm(5)(x), X3),
    "RMSNorm module float64": (lambda T, x: T.nn.RMSNorm([6, 5], eps=1e-3, dtype=T.float64)(x), X3),
    "local_response_norm 3-d": (lambda T, x: T.nn.functional.local_response_norm(x, 3), X3),
    "LocalResponseNorm 4-d even size": (lambda T, x: T.nn.LocalResponseNorm(4, 0.01, 0.5, 2.0)(x), X4),
    "local_response_norm 5-d": (lambda T, x: T.nn.functional.local_response_norm(x, 5, 1e-2), X5),
    "lp_pool1d p=2": (lambda T, x: T.nn.functional.lp_pool1d(x, 2, 3), X3),
    "LPPool1d p=3 stride ceil": (lambda T, x: T.nn.LPPool1d(3, 2, stride=2, ceil_mode=True)(x), POS3),
    "lp_pool2d p=1.5": (lambda T, x: T.nn.functional.lp_pool2d(x, 1.5, (2, 3)), np.abs(X4) + 0.1),
    "LPPool2d p=2": (lambda T, x: T.nn.LPPool2d(2, 2)(x), X4),
    "lp_pool3d p=2": (lambda T, x: T.nn.functional.lp_pool3d(x, 2, 2), X5),
    "LPPool3d stride": (lambda T, x: T.nn.LPPool3d(4, (2, 2, 3), stride=(1, 2, 2))(x), X5),
    "Softmax2d": (lambda T, x: T.nn.Softmax2d()(x), X4),
    "Softmax2d unbatched": (lambda T, x: T.nn.Softmax2d()(x), X3),
    "rrelu eval": (lambda T, x: T.nn.functional.rrelu(x, 0.1, 0.3), X3),
    "RReLU eval module": (lambda T, x: T.nn.RReLU().eval()(x), X3),
    "channel_shuffle": (lambda T, x: T.nn.ChannelShuffle(3)(x), X3),
    "channel_shuffle 4-d": (lambda T, x: T.nn.functional.channel_shuffle(x, 2), X4),
    "ZeroPad3d": (lambda T, x: T.nn.ZeroPad3d((1, 0, 2, 1, 0, 1))(x), X5),
    "ConstantPad3d": (lambda T, x: T.nn.ConstantPad3d(1, 2.5)(x), X5),
    "ReflectionPad3d": (lambda T, x: T.nn.ReflectionPad3d((1, 2, 1, 0, 2, 1))(x), X5),
    "ReplicationPad3d": (lambda T, x: T.nn.ReplicationPad3d(2)(x), X5),
    "CircularPad3d": (lambda T, x: T.nn.CircularPad3d((1, 1, 2, 0, 1, 2))(x), X5),
    "multilabel_margin_loss": (lambda T, x, y: T.nn.functional.multilabel_margin_loss(x, y), X3[:, :, 0],
                               np.array([[3, 0, -1, 1, 2, 4], [5, 5, 2, -1, 0, 0]])),
    "MultiLabelMarginLoss none 1-d": (lambda T, x, y: T.nn.MultiLabelMarginLoss(reduction="none")(x, y), X3[0, 0],
                                      np.array([4, 1, 2, 3, 0])),
    "MultiLabelMarginLoss sum": (lambda T, x, y: T.nn.MultiLabelMarginLoss(reduction="sum")(x, y), X3[:, 0],
                                 np.array([[-1, 0, 1, 2, 3], [0, 1, 2, 3, 4]])),
    "triplet_margin_with_distance_loss": (lambda T, a, p, n: T.nn.functional.triplet_margin_with_distance_loss(
        a, p, n), X3[0], X3[1], X3[0] * 0.5),
    "TripletMarginWithDistanceLoss swap cosine": (lambda T, a, p, n: T.nn.TripletMarginWithDistanceLoss(
        distance_function=lambda u, v: 1 - T.nn.functional.cosine_similarity(u, v), margin=0.5, swap=True,
        reduction="none")(a, p, n), X3[0], X3[1], X3[0] * 0.5 + 1),
    "max_pool2d_with_indices": (lambda T, x: T.nn.functional.max_pool2d_with_indices(x, 2), X4),
    "max_pool1d_with_indices": (lambda T, x: T.nn.functional.max_pool1d_with_indices(x, 2, 1), X3),
    "max_pool3d_with_indices": (lambda T, x: T.nn.functional.max_pool3d_with_indices(x, 2), X5),
    "adaptive_max_pool2d_with_indices": (lambda T, x: T.nn.functional.adaptive_max_pool2d_with_indices(x, 3), X4),
    "adaptive_max_pool1d_with_indices": (lambda T, x: T.nn.functional.adaptive_max_pool1d_with_indices(x, 2), X3),
    "adaptive_max_pool3d_with_indices": (lambda T, x: T.nn.functional.adaptive_max_pool3d_with_indices(x, 2), X5),
    "upsample_nearest": (lambda T, x: T.nn.functional.upsample_nearest(x, scale_factor=2), X4),
    "upsample_bilinear": (lambda T, x: T.nn.functional.upsample_bilinear(x, (7, 9)), X4),
    "elu_ of a non-leaf": (lambda T, x: T.nn.functional.elu_(x * 1, 0.5), X3),
    "elu_ writes its input": (lambda T, x: _written(T.nn.functional.elu_, x * 1, 0.5), X3),
    "rrelu_ writes its input": (lambda T, x: _written(T.nn.functional.rrelu_, x * 2), X3),
    "threshold_ writes its input": (lambda T, x: _written(T.nn.functional.threshold_, x * 1, 0.1, 3.0), X3),
    "relu_": (lambda T, x: T.nn.functional.relu_(x * 1), X3),
    "leaky_relu_": (lambda T, x: T.nn.functional.leaky_relu_(x * 1, 0.2), X3),
    "hardtanh_": (lambda T, x: T.nn.functional.hardtanh_(x * 1, -0.5, 0.7), X3),
    "celu_": (lambda T, x: T.nn.functional.celu_(x * 1, 2.0), X3),
    "selu_": (lambda T, x: T.nn.functional.selu_(x * 1), X3),
    "threshold_": (lambda T, x: T.nn.functional.threshold_(x * 1, 0.2, -1.0), X3),
    "rrelu_ eval": (lambda T, x: T.nn.functional.rrelu_(x * 1), X3),
    "alpha_dropout eval": (lambda T, x: T.nn.functional.alpha_dropout(x, 0.3), X3),
    "dropout1d eval": (lambda T, x: T.nn.Dropout1d(0.4).eval()(x), X3),
}


def _written(fn, t, *args):
    out = fn(t, *args)
    assert out is t
    return t


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch_values_and_gradients(name):
    call, *inputs = CASES[name]
    _check(call, *inputs)


def test_rms_norm_at_the_top_level_and_its_default_eps_are_torchs():
    x = X3.astype(np.float32) * 1e-4
    _check(lambda T, x: T.rms_norm(x, [5]), x, rtol=1e-6, atol=1e-9)
    _check(lambda T, x: T.nn.functional.rms_norm(x, (5,)), X3 * 1e-9)   # (eps matters here: the dtype's epsilon)


# -- the random ones: masks of the right structure, the right statistics ----------------------------------

def test_dropout1d_and_3d_zero_whole_channels_and_scale_the_rest():
    ag.manual_seed(0)
    for fn, shape, spatial in ((ag.nn.functional.dropout1d, (40, 30, 7), 1),
                               (ag.nn.functional.dropout3d, (20, 30, 2, 3, 2), 3),
                               (ag.nn.functional.dropout1d, (30, 7), 1), (ag.nn.functional.dropout3d, (40, 2, 3, 2), 3)):
        x = ag.ones(*shape, requires_grad=True)
        y = fn(x, 0.3)
        values = y.detach().numpy().reshape(*shape[:-spatial], -1)
        assert np.isclose(values, 0.0).sum() + np.isclose(values, 1 / 0.7).sum() == values.size
        assert (values.min(-1) == values.max(-1)).all()   # one draw per channel
        assert 0.1 < (values[..., 0] == 0).mean() < 0.5
        y.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), y.detach().numpy())


def test_alpha_dropout_keeps_mean_zero_and_variance_one_with_torchs_affine_map():
    ag.manual_seed(1)
    x = ag.randn(200000, dtype=ag.float64, requires_grad=True)
    y = ag.nn.functional.alpha_dropout(x, 0.2, training=True)
    assert abs(y.mean().item()) < 0.01 and abs(y.std().item() - 1) < 0.01
    # the map is torch's: each output is a x + b (kept) or a (-alpha') + b (dropped)
    a = 1 / np.sqrt((1.7580993408473766 ** 2 * 0.2 + 1) * 0.8)
    b = 1.7580993408473766 * a * 0.2
    t = torch.tensor(x.detach().numpy())
    ty = torch.nn.functional.alpha_dropout(t, 0.2, training=True).numpy()
    assert (np.isclose(ty, a * t.numpy() + b, rtol=1e-12) | np.isclose(ty, -1.7580993408473766 * a + b)).all()
    dropped = np.isclose(y.detach().numpy(), -1.7580993408473766 * a + b, rtol=1e-12)
    np.testing.assert_allclose(y.detach().numpy()[~dropped], a * x.detach().numpy()[~dropped] + b, rtol=1e-12)
    np.testing.assert_allclose(y.detach().numpy()[dropped], -1.7580993408473766 * a + b, rtol=1e-12)
    assert 0.18 < dropped.mean() < 0.22
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.where(dropped, 0.0, a), rtol=1e-12)


def test_feature_alpha_dropout_draws_once_per_channel():
    ag.manual_seed(2)
    y = ag.nn.FeatureAlphaDropout(0.5).train()(ag.zeros(50, 40, 3, 2)).numpy().reshape(50, 40, -1)
    assert (y.min(-1) == y.max(-1)).all() and 0.4 < (y[..., 0] < y.max()).mean() < 0.6


def test_rrelu_training_draws_slopes_in_the_range_and_uses_them_as_the_gradient():
    ag.manual_seed(3)
    x = ag.tensor(-np.ones(10000), requires_grad=True)
    y = ag.nn.functional.rrelu(x, 0.1, 0.3, training=True)
    slopes = -y.detach().numpy()
    assert 0.1 <= slopes.min() and slopes.max() <= 0.3 and abs(slopes.mean() - 0.2) < 0.005
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), slopes)


# -- nn.Buffer and LazyInstanceNorm ----------------------------------------------------------------------------

def test_buffer_assigned_to_a_module_is_a_buffer_as_in_torch():
    for nn in (ag.nn, torch.nn):
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.mean = nn.Buffer(ag.zeros(3) if nn is ag.nn else torch.zeros(3))
                self.scratch = nn.Buffer(ag.ones(2) if nn is ag.nn else torch.ones(2), persistent=False)
                self.weight = nn.Parameter(ag.ones(2) if nn is ag.nn else torch.ones(2))

        m = Model()
        assert [n for n, _ in m.named_buffers()] == ["mean", "scratch"]
        assert list(m.state_dict()) == ["weight", "mean"]
        assert [n for n, _ in m.named_parameters()] == ["weight"]
    b = ag.nn.Buffer(ag.tensor([1.0, 2.0]))
    assert isinstance(b, ag.Tensor) and not b.requires_grad and type(b + 1) is ag.Tensor


@pytest.mark.parametrize("dims", [1, 2, 3])
def test_lazy_instance_norm_becomes_an_affine_tracking_instance_norm_as_torch(dims):
    shape = (2, 3) + (4,) * dims
    X = _rng.standard_normal(shape)
    ours, theirs = getattr(ag.nn, f"LazyInstanceNorm{dims}d")(), getattr(torch.nn, f"LazyInstanceNorm{dims}d")()
    x, t = ag.tensor(X, dtype=ag.float32), torch.tensor(X, dtype=torch.float32)
    np.testing.assert_allclose(ours(x).detach().numpy(), theirs(t).detach().numpy(), rtol=1e-5, atol=1e-6)
    assert type(ours).__name__ == type(theirs).__name__ == f"InstanceNorm{dims}d"
    assert ours.affine and ours.track_running_stats and tuple(ours.weight.shape) == (3,)
    np.testing.assert_allclose(ours.running_mean.numpy(), theirs.running_mean.numpy(), rtol=1e-5, atol=1e-7)


# -- errors --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda T: T.nn.functional.rms_norm(T.ones(2, 3), (4,)), lambda T: T.nn.functional.rms_norm(T.ones(2, 3), (3,),
                                                                                                T.ones(2)),
    lambda T: T.nn.functional.local_response_norm(T.ones(2, 3), 2),
    lambda T: T.nn.functional.dropout1d(T.ones(2, 3, 4, 5), 0.5),
    lambda T: T.nn.functional.dropout1d(T.ones(2, 3), 1.5), lambda T: T.nn.AlphaDropout(-0.1),
    lambda T: T.nn.functional.channel_shuffle(T.ones(2, 3, 4), 2), lambda T: T.nn.functional.channel_shuffle(T.ones(2, 4), 2),
    lambda T: T.nn.functional.channel_shuffle(T.ones(2, 4, 3), 0),
    lambda T: T.nn.Softmax2d()(T.ones(2, 3)),
    lambda T: T.nn.functional.multilabel_margin_loss(T.ones(2, 3), T.ones(3, dtype=T.int64)),
    lambda T: T.nn.functional.triplet_margin_with_distance_loss(T.ones(2), T.ones(2), T.ones(2), margin=0.0),
])
def test_bad_arguments_raise_torchs_error_class(call):
    both_raise(lambda: call(ag), lambda: call(torch))


def test_dropout3d_of_another_rank_warns_and_draws_per_index_of_dim_0_as_torch():
    with pytest.warns(UserWarning, match="dropout3d"):
        y = ag.nn.functional.dropout3d(ag.ones(200, 3), 0.5)
    with pytest.warns(UserWarning, match="dropout3d"):
        torch.nn.functional.dropout3d(torch.ones(2, 3), 0.5)
    values = y.numpy()
    assert (values.min(1) == values.max(1)).all() and 0.35 < (values[:, 0] == 0).mean() < 0.65


def test_top_level_names_of_the_new_functions_are_nn_functionals():
    x = ag.tensor(X3)
    np.testing.assert_allclose(ag.rms_norm(x, [5]).numpy(), ag.nn.functional.rms_norm(x, (5,)).numpy())
    np.testing.assert_allclose(ag.channel_shuffle(x, 2).numpy(), torch.channel_shuffle(torch.tensor(X3), 2).numpy())
    np.testing.assert_allclose(ag.rrelu(x).numpy(), torch.rrelu(torch.tensor(X3)).numpy(), rtol=1e-12)
    np.testing.assert_array_equal(ag.alpha_dropout(x, 0.5, False).numpy(), X3)
    for name in ("selu_", "celu_", "threshold_", "rrelu_", "alpha_dropout_", "dropout_", "feature_alpha_dropout_"):
        assert hasattr(torch, name) and callable(getattr(ag, name))
    t = x * 1
    assert ag.selu_(t) is t
    np.testing.assert_allclose(t.numpy(), torch.selu(torch.tensor(X3)).numpy(), rtol=1e-12)


def test_a_buffer_of_a_list_is_refused_with_a_hint():
    with pytest.raises(TypeError, match="wrap it with autogradlab.tensor"):
        ag.nn.Buffer([1.0, 2.0])


# -- EmbeddingBag ---------------------------------------------------------------------------------------------

_W = _rng.standard_normal((10, 4))
BAGS = {
    "max with an empty bag": dict(input=[1, 2, 4, 5, 4, 3, 2, 9], offsets=[0, 4, 4], mode="max"),
    "mean with an empty bag": dict(input=[1, 2, 4, 5, 4, 3, 2, 9], offsets=[0, 4, 4], mode="mean"),
    "sum include_last_offset": dict(input=[1, 2, 4, 5, 4, 3, 2, 9], offsets=[0, 3, 6, 7], mode="sum",
                                    include_last_offset=True),
    "2-d mean with padding": dict(input=[[1, 2, 0], [4, 0, 0], [0, 0, 0]], mode="mean", padding_idx=0),
    "per_sample_weights": dict(input=[1, 2, 4, 5, 1], offsets=[0, 2], mode="sum", per_sample_weights=[0.5, 1, 2, -1, 3]),
    "max with padding": dict(input=[1, 2, 4, 5, 0], offsets=[0, 2], mode="max", padding_idx=0),
    "2-d sum with repeats": dict(input=[[3, 3, 7], [7, 1, 1]], mode="sum"),
    "max_norm": dict(input=[1, 2, 4, 5], offsets=[0, 1], mode="mean", max_norm=1.0),
}


@pytest.mark.parametrize("name", sorted(BAGS))
def test_embedding_bag_matches_torch(name):
    case = dict(BAGS[name])
    results = []
    for T in (ag, torch):
        w = T.tensor(_W, requires_grad=True)
        kwargs = {k: (T.tensor(v, dtype=T.float64) if k == "per_sample_weights" else T.tensor(v) if k == "offsets"
                      else v) for k, v in case.items() if k != "input"}
        y = T.nn.functional.embedding_bag(T.tensor(case["input"]), w, **kwargs)
        y.backward(T.tensor(np.arange(y.numel(), dtype=float).reshape(tuple(y.shape))))
        results.append((y.detach().numpy(), w.grad.numpy(), w.detach().numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)


def test_embedding_bag_module_and_from_pretrained_as_torch():
    for T in (ag, torch):
        T.manual_seed(0)
        bag = T.nn.EmbeddingBag(10, 3, mode="sum", padding_idx=2)
        assert tuple(bag.weight.shape) == (10, 3) and not bag.weight[2].detach().numpy().any()
        frozen = T.nn.EmbeddingBag.from_pretrained(T.tensor(_W), mode="max")
        assert not frozen.weight.requires_grad
        out = frozen(T.tensor([[1, 2], [3, 3]]))
        np.testing.assert_allclose(out.numpy(), np.stack([_W[[1, 2]].max(0), _W[3]]))
    assert repr(ag.nn.EmbeddingBag(10, 3, mode="sum")) == repr(torch.nn.EmbeddingBag(10, 3, mode="sum"))


@pytest.mark.parametrize("call", [
    lambda T: T.nn.functional.embedding_bag(T.tensor([1, 2]), T.ones(5, 2), T.tensor([0]), mode="mean",
                                            per_sample_weights=T.ones(2)),
    lambda T: T.nn.functional.embedding_bag(T.tensor([[1, 2]]), T.ones(5, 2), T.tensor([0])),
    lambda T: T.nn.functional.embedding_bag(T.tensor([1, 2]), T.ones(5, 2)),
    lambda T: T.nn.functional.embedding_bag(T.tensor([1, 2]), T.ones(5, 2), T.tensor([1])),
    lambda T: T.nn.functional.embedding_bag(T.tensor([1, 2]), T.ones(5, 2), T.tensor([0]), mode="median"),
    lambda T: T.nn.functional.embedding_bag(T.tensor([1, 7]), T.ones(5, 2), T.tensor([0])),
])
def test_embedding_bag_errors_are_torchs(call):
    both_raise(lambda: call(ag), lambda: call(torch))


def _lce_case(T, case):
    rng = np.random.default_rng(len(case))
    f64 = T.float64
    out_features = (2,) if "K-dim" in case else ()
    x = T.tensor(rng.standard_normal((5, 4) if "unbatched" not in case else (4,)), dtype=f64, requires_grad=True)
    w = T.tensor(rng.standard_normal((3, *out_features, 4)), dtype=f64, requires_grad=True)
    b = T.tensor(rng.standard_normal((3, *out_features)), dtype=f64, requires_grad=True) if "bias" in case else None
    batch = () if "unbatched" in case else (5,)
    if "probabilities" in case:
        target = T.softmax(T.tensor(rng.standard_normal((*batch, 3, *out_features)), dtype=f64), 1 if batch else 0)
    else:
        target = T.tensor(rng.integers(0, 3, (*batch, *out_features)))
        if "ignore" in case:
            target[0] = 1
    kwargs = {"linear_bias": b, "reduction": "none" if "none" in case else "sum" if "sum" in case else "mean",
              "label_smoothing": 0.2 if "smoothing" in case else 0.0,
              "ignore_index": 1 if "ignore" in case else None,
              "weight": T.tensor([0.5, 2.0, 1.0], dtype=f64) if "weight" in case else None}
    loss = T.nn.functional.linear_cross_entropy(x, w, target, **kwargs)
    params = [p for p in (x, w, b) if p is not None]
    return [loss] + list(T.autograd.grad(loss.sum(), params))


@pytest.mark.parametrize("case", ["classes", "classes bias weight", "unbatched", "K-dim bias", "probabilities",
                                  "classes none", "classes sum smoothing", "ignore weight", "K-dim smoothing sum"])
def test_linear_cross_entropy_is_linear_then_cross_entropy_as_torchs(case):
    for a, b in zip(_lce_case(ag, case), _lce_case(torch, case)):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-14)


def test_linear_cross_entropy_loss_module_loads_torchs_weights_and_matches():
    torch.manual_seed(3)
    theirs = torch.nn.LinearCrossEntropyLoss(4, 3, out_features=(2,), bias=True, dtype=torch.float64,
                                             label_smoothing=0.1)
    ours = ag.nn.LinearCrossEntropyLoss(4, 3, out_features=(2,), bias=True, dtype=ag.float64, label_smoothing=0.1)
    ours.load_state_dict({k: ag.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    assert repr(ours) == repr(theirs)
    x, t = np.random.default_rng(1).standard_normal((5, 4)), np.random.default_rng(2).integers(0, 3, (5, 2))
    a, b = ours(ag.tensor(x), ag.tensor(t)), theirs(torch.tensor(x), torch.tensor(t))
    a.backward()
    b.backward()
    np.testing.assert_allclose(a.item(), b.item(), rtol=1e-12)
    np.testing.assert_allclose(ours.linear.weight.grad.numpy(), theirs.linear.weight.grad.numpy(), rtol=1e-10)


@pytest.mark.parametrize("call", [
    lambda T: T.nn.functional.linear_cross_entropy(T.ones(2, 3, 4), T.ones(3, 4), T.zeros(2, dtype=T.int64)),
    lambda T: T.nn.functional.linear_cross_entropy(T.ones(2, 4), T.ones(3, 5), T.zeros(2, dtype=T.int64)),
    lambda T: T.nn.functional.linear_cross_entropy(T.ones(2, 4), T.ones(3, 4), T.zeros(2, dtype=T.int64),
                                                   linear_bias=T.ones(4)),
    lambda T: T.nn.functional.linear_cross_entropy(T.ones(4), T.ones(3, 2, 4), T.zeros(2, dtype=T.int64)),
    lambda T: T.nn.functional.linear_cross_entropy(T.ones(2, 4), T.ones(3, 4), T.ones(2, 3) / 3, ignore_index=0),
    lambda T: T.nn.LinearCrossEntropyLoss(4, 3, weight=T.ones(2)),
    lambda T: T.nn.LinearCrossEntropyLoss(4, 3, label_smoothing=1.5),
], ids=range(7))
def test_linear_cross_entropy_refusals_are_torchs(call):
    both_raise(lambda: call(ag), lambda: call(torch))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("loss, target", [("cross_entropy", "class"), ("cross_entropy", "probabilities"),
                                          ("cross_entropy", "ignored"), ("nll_loss", "class"),
                                          ("nll_loss", "ignored")])
def test_one_sample_losses_without_a_batch_dim_are_torchs(loss, reduction, target):
    """``F.cross_entropy(logits (C,), class ())``: PyTorch's unbatched form (as a single sample, then its batch dim
    dropped for 'none'), with the class weights and ignore_index."""
    outs = []
    for T in (ag, torch):
        x = T.tensor([0.3, -1.2, 2.0, 0.5], dtype=T.float64, requires_grad=True)
        y = (T.softmax(T.tensor([1.0, 0.0, 2.0, -1.0], dtype=T.float64), 0) if target == "probabilities"
             else T.tensor(2))
        kwargs = {"reduction": reduction, "weight": T.tensor([1.0, 2.0, 0.5, 1.5], dtype=T.float64)}
        if target == "ignored":
            kwargs["ignore_index"] = 2
        if loss == "cross_entropy":
            kwargs["label_smoothing"] = 0.1 if target != "ignored" else 0.0
        value = getattr(T.nn.functional, loss)(x, y, **kwargs)
        grad = T.autograd.grad(value.sum(), [x], allow_unused=True)[0]
        outs.append((value, grad))
    (a, ga), (b, gb) = outs
    assert tuple(a.shape) == tuple(b.shape) == ()
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(ga.numpy(), gb.numpy(), rtol=1e-12, atol=1e-15)


def test_a_linear_layer_fed_the_wrong_number_of_features_raises_torchs_class():
    both_raise(lambda: ag.nn.functional.linear(ag.ones(2, 3), ag.ones(4, 5)),
               lambda: torch.nn.functional.linear(torch.ones(2, 3), torch.ones(4, 5)))
    both_raise(lambda: ag.nn.Linear(5, 4)(ag.ones(2, 3)), lambda: torch.nn.Linear(5, 4)(torch.ones(2, 3)))


def test_review_refusals_are_torchs():
    both_raise(lambda: ag.nn.functional.cross_entropy(ag.tensor([1.0, 2.0, 0.5]), ag.tensor([[0.2, 0.3, 0.5]])),
               lambda: torch.nn.functional.cross_entropy(torch.tensor([1.0, 2.0, 0.5]),
                                                         torch.tensor([[0.2, 0.3, 0.5]])))
    both_raise(lambda: ag.nn.functional.nll_loss(ag.tensor([1.0, 2.0, 0.5]), ag.tensor([[1]])),
               lambda: torch.nn.functional.nll_loss(torch.tensor([1.0, 2.0, 0.5]), torch.tensor([[1]])))
    both_raise(lambda: ag.nn.RNN(3, 4, proj_size=2), lambda: torch.nn.RNN(3, 4, proj_size=2))
    both_raise(lambda: ag.distributions.LKJCholesky(3.0, 1.0), lambda: torch.distributions.LKJCholesky(3.0, 1.0))
