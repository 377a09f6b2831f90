"""Normalisation layers and ``Tensor.copy_``, run in both libraries on the same data: ``F.layer_norm`` and
``F.batch_norm`` (values, first and second derivatives, the running statistics they update), the modules
``LayerNorm``, ``BatchNorm1d`` and ``BatchNorm2d`` over several training steps and in evaluation (outputs,
running statistics, ``num_batches_tracked``, ``state_dict`` keys and values, reprs), the errors torch raises,
float16, and finite differences in float64."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import import_torch
from torch_compare import both_raise as _both_raise
from torch_compare import close as _close
from torch_compare import pair as _pair

import autogradlab as ag
import autogradlab.nn as nn
import autogradlab.nn.functional as F
from autogradlab.testing import gradcheck, gradgradcheck

torch = import_torch()


def _data(shape, seed, dtype="float32", scale=3.0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * scale + rng.standard_normal()).astype(dtype)


# -- F.layer_norm -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape, normalized", [((4, 5), (5,)), ((2, 3, 4), (3, 4)), ((6,), (6,)), ((2, 1, 3), (1, 3))])
@pytest.mark.parametrize("affine", ["none", "weight", "both"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_layer_norm_values_and_gradients_match_torch(shape, normalized, affine, dtype):
    x, tx = _pair(_data(shape, 1, dtype), requires_grad=True)
    w, tw = _pair(_data(normalized, 2, dtype), requires_grad=True)
    b, tb = _pair(_data(normalized, 3, dtype), requires_grad=True)
    args = {"none": ((None, None), (None, None)), "weight": ((w, None), (tw, None)), "both": ((w, b), (tw, tb))}
    (ow, ob), (thw, thb) = args[affine]
    y = F.layer_norm(x, normalized, ow, ob)
    ty = torch.nn.functional.layer_norm(tx, normalized, thw, thb)
    _close(y, ty)
    g = _data(shape, 4, dtype)
    y.backward(ag.tensor(g))
    ty.backward(torch.tensor(g))
    for ours, theirs in [(x, tx), (w, tw), (b, tb)]:
        if theirs.grad is None:
            assert ours.grad is None
        else:
            _close(ours.grad, theirs.grad, rtol=1e-4, atol=1e-5)


def test_layer_norm_of_a_constant_row_is_zero_with_finite_gradients():
    x, tx = _pair(np.full((2, 4), 3.0), requires_grad=True)
    y, ty = F.layer_norm(x, (4,)), torch.nn.functional.layer_norm(tx, (4,))
    _close(y, ty)
    assert not y.detach().numpy().any()
    y.backward(ag.tensor(_data((2, 4), 5, "float64")))
    ty.backward(torch.tensor(_data((2, 4), 5, "float64")))
    _close(x.grad, tx.grad)
    assert np.isfinite(x.grad.numpy()).all()


def test_layer_norm_gradients_pass_finite_differences():
    x = ag.tensor(_data((3, 4), 9, "float64"), requires_grad=True)
    w = ag.tensor(_data((4,), 10, "float64"), requires_grad=True)
    b = ag.tensor(_data((4,), 11, "float64"), requires_grad=True)
    assert gradcheck(lambda x, w, b: F.layer_norm(x, (4,), w, b), (x, w, b))
    assert gradgradcheck(lambda x, w: F.layer_norm(x, (4,), w), (x, w))


# -- F.batch_norm -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(5, 3), (4, 3, 2), (2, 3, 2, 2)])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_batch_norm_values_gradients_and_running_stats_match_torch(shape, training, dtype):
    x, tx = _pair(_data(shape, 12, dtype), requires_grad=True)
    w, tw = _pair(_data((3,), 13, dtype), requires_grad=True)
    b, tb = _pair(_data((3,), 14, dtype), requires_grad=True)
    rm, trm = _pair(_data((3,), 15, dtype, scale=0.5))
    rv, trv = _pair(np.abs(_data((3,), 16, dtype)) + 0.5)
    y = F.batch_norm(x, rm, rv, w, b, training=training, momentum=0.3, eps=1e-3)
    ty = torch.nn.functional.batch_norm(tx, trm, trv, tw, tb, training=training, momentum=0.3, eps=1e-3)
    _close(y, ty)
    _close(rm, trm, rtol=1e-6, atol=1e-7)    # moved toward the batch's mean when training, untouched otherwise
    _close(rv, trv, rtol=1e-6, atol=1e-7)    # ... toward its unbiased variance
    g = _data(shape, 17, dtype)
    y.backward(ag.tensor(g))
    ty.backward(torch.tensor(g))
    for ours, theirs in [(x, tx), (w, tw), (b, tb)]:
        _close(ours.grad, theirs.grad, rtol=1e-4, atol=1e-5)


def test_batch_norm_without_running_stats_or_affine_matches_torch():
    x, tx = _pair(_data((6, 2, 3), 18), requires_grad=True)
    y = F.batch_norm(x, None, None, training=True)
    ty = torch.nn.functional.batch_norm(tx, None, None, training=True)
    _close(y, ty)
    y.backward(ag.tensor(_data((6, 2, 3), 19)))
    ty.backward(torch.tensor(_data((6, 2, 3), 19)))
    _close(x.grad, tx.grad, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("shape, norm", [
    ((3, 4), lambda lib, x, w: lib.nn.functional.layer_norm(x, (4,), w)),
    ((5, 2), lambda lib, x, w: lib.nn.functional.batch_norm(x, None, None, w, training=True))])
def test_second_derivatives_match_torch(shape, norm):
    x, tx = _pair(_data(shape, 20, "float64"), requires_grad=True)
    w, tw = _pair(_data(shape[-1:], 21, "float64"), requires_grad=True)
    g = _data(shape, 22, "float64")
    (gx,) = ag.autograd.grad((norm(ag, x, w) * ag.tensor(g)).sum(), [x], create_graph=True)
    (tgx,) = torch.autograd.grad((norm(torch, tx, tw) * torch.tensor(g)).sum(), [tx], create_graph=True)
    _close(gx, tgx, rtol=1e-10, atol=1e-12)
    hx, hw = ag.autograd.grad((gx * gx).sum(), [x, w])
    thx, thw = torch.autograd.grad((tgx * tgx).sum(), [tx, tw])
    _close(hx, thx, rtol=1e-9, atol=1e-10)
    _close(hw, thw, rtol=1e-9, atol=1e-10)


def test_batch_norm_gradients_pass_finite_differences():
    x = ag.tensor(_data((4, 3, 2), 23, "float64"), requires_grad=True)
    w = ag.tensor(_data((3,), 24, "float64"), requires_grad=True)
    b = ag.tensor(_data((3,), 25, "float64"), requires_grad=True)
    rm, rv = ag.tensor(_data((3,), 26, "float64")), ag.tensor(np.abs(_data((3,), 27, "float64")) + 0.5)
    assert gradcheck(lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), (x, w, b))
    assert gradgradcheck(lambda x, w: F.batch_norm(x, None, None, w, training=True), (x, w))
    assert gradcheck(lambda x, w, b: F.batch_norm(x, rm, rv, w, b, training=False), (x, w, b))


@pytest.mark.parametrize("fn", ["layer_norm", "batch_norm"])
def test_float16_is_normalised_in_float32_and_rounded_once_as_in_torch(fn):
    x, tx = _pair(_data((8, 4), 28, "float16", scale=40.0), requires_grad=True)
    w, tw = _pair(_data((4,), 29, "float32"))      # float16 input with float32 parameters: allowed in both
    if fn == "layer_norm":
        y, ty = F.layer_norm(x, (4,), w), torch.nn.functional.layer_norm(tx, (4,), tw)
    else:
        rm, trm = _pair(np.zeros(4, "float32"))
        rv, trv = _pair(np.ones(4, "float32"))
        y = F.batch_norm(x, rm, rv, w, training=True)
        ty = torch.nn.functional.batch_norm(tx, trm, trv, tw, training=True)
        _close(rm, trm, rtol=1e-5, atol=1e-6)
        _close(rv, trv, rtol=1e-5, atol=1e-6)
    _close(y, ty, rtol=1e-3, atol=1e-3)
    y.sum().backward()
    ty.sum().backward()
    _close(x.grad, tx.grad, rtol=1e-2, atol=1e-2)


def test_an_empty_batch_gives_an_empty_result_and_leaves_the_running_stats_as_torch():
    x, tx = _pair(np.zeros((0, 3), "float32"), requires_grad=True)
    rm, trm = _pair(np.zeros(3, "float32"))
    rv, trv = _pair(np.ones(3, "float32"))
    w, tw = _pair(np.full(3, 2.0, "float32"), requires_grad=True)
    y = F.batch_norm(x, rm, rv, w, training=True)
    ty = torch.nn.functional.batch_norm(tx, trm, trv, tw, training=True)
    _close(y, ty)
    _close(rm, trm, rtol=0, atol=0)
    _close(rv, trv, rtol=0, atol=0)
    assert y.requires_grad == ty.requires_grad
    _close(F.layer_norm(x, (3,)), torch.nn.functional.layer_norm(tx, (3,)))


# -- the modules --------------------------------------------------------------------------------------------

def _copy_parameters(ours, theirs):
    """Give both modules the same (random, not default) weights and running statistics."""
    for i, (name, t) in enumerate(theirs.state_dict().items()):
        if t.dtype.is_floating_point:
            t.copy_(torch.tensor(np.abs(_data(tuple(t.shape), 100 + i, str(t.dtype).removeprefix("torch."))) + 0.1))
    ours.load_state_dict({k: ag.tensor(v.numpy()) for k, v in theirs.state_dict().items()})


@pytest.mark.parametrize("cls, shape", [("BatchNorm1d", (6, 3)), ("BatchNorm1d", (4, 3, 5)),
                                        ("BatchNorm2d", (2, 3, 2, 2))])
@pytest.mark.parametrize("kwargs", [{}, {"momentum": None}, {"affine": False}, {"bias": False},
                                    {"track_running_stats": False}, {"eps": 1e-2, "momentum": 0.5}])
def test_batch_norm_modules_match_torch_over_training_steps_and_in_eval(cls, shape, kwargs):
    ours, theirs = getattr(nn, cls)(3, **kwargs), getattr(torch.nn, cls)(3, **kwargs)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _copy_parameters(ours, theirs)
    for step in range(3):
        x, tx = _pair(_data(shape, 30 + step), requires_grad=True)
        y, ty = ours(x), theirs(tx)
        _close(y, ty)
        y.square().sum().backward()
        ty.square().sum().backward()
        _close(x.grad, tx.grad, rtol=1e-4, atol=1e-4)
        for (name, a), (tname, b) in zip(ours.state_dict().items(), theirs.state_dict().items()):
            assert name == tname
            _close(a, b, rtol=1e-5, atol=1e-6)
    for (name, p), (_, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
        _close(p.grad, tp.grad, rtol=1e-4, atol=1e-4)
    ours.eval()
    theirs.eval()
    x, tx = _pair(_data((1,) + shape[1:], 40))
    if not kwargs.get("track_running_stats", True) and len(shape) == 2:
        _both_raise(lambda: ours(x), lambda: theirs(tx))   # eval without running statistics uses the batch's:
        x, tx = _pair(_data((2,) + shape[1:], 40))         # one value per channel is refused there too
    _close(ours(x), theirs(tx))
    assert list(ours.state_dict()) == list(theirs.state_dict())


@pytest.mark.parametrize("args, kwargs", [((5,), {}), (((2, 5),), {}), ((5,), {"elementwise_affine": False}),
                                          ((5,), {"bias": False}), (([5],), {"eps": 1e-3})])
def test_layer_norm_module_matches_torch(args, kwargs):
    ours, theirs = nn.LayerNorm(*args, **kwargs), torch.nn.LayerNorm(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _copy_parameters(ours, theirs)
    x, tx = _pair(_data((3, 2, 5), 41), requires_grad=True)
    y, ty = ours(x), theirs(tx)
    _close(y, ty)
    y.square().sum().backward()
    ty.square().sum().backward()
    _close(x.grad, tx.grad, rtol=1e-4, atol=1e-4)
    for p, tp in zip(ours.parameters(), theirs.parameters()):
        _close(p.grad, tp.grad, rtol=1e-4, atol=1e-4)
    ours.eval()
    _close(ours(x), ty)                                     # the same in eval


def test_batch_norm_in_a_model_casts_and_round_trips_through_save(tmp_path):
    model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.ReLU(), nn.LayerNorm(3))
    model(ag.randn(8, 2))
    model.double()
    bn = model[1]
    assert bn.running_mean.dtype.name == "float64" and bn.num_batches_tracked.dtype.name == "int64"
    ag.save(model.state_dict(), tmp_path / "m.npz")
    fresh = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.ReLU(), nn.LayerNorm(3)).double()
    fresh.load_state_dict(ag.load(tmp_path / "m.npz"))
    assert fresh[1].num_batches_tracked.item() == 1
    np.testing.assert_array_equal(fresh[1].running_var.numpy(), bn.running_var.numpy())
    fresh[1].reset_running_stats()
    assert fresh[1].num_batches_tracked.item() == 0 and (fresh[1].running_var.numpy() == 1).all()


def test_reset_parameters_also_resets_the_running_statistics_as_torch():
    ours, theirs = nn.BatchNorm1d(3), torch.nn.BatchNorm1d(3)
    _copy_parameters(ours, theirs)
    ours(ag.randn(8, 3) + 2)
    theirs(torch.randn(8, 3) + 2)
    ours.reset_parameters()
    theirs.reset_parameters()
    for (name, a), (_, b) in zip(ours.state_dict().items(), theirs.state_dict().items()):
        _close(a, b, rtol=0, atol=0)


def test_half_precision_running_statistics_are_blended_in_float32_and_rounded_once_as_torch():
    ours, theirs = nn.BatchNorm1d(3).half(), torch.nn.BatchNorm1d(3).half()
    for step in range(3):
        x, tx = _pair(_data((16, 3), 60 + step, "float16", scale=5.0))
        _close(ours(x), theirs(tx), rtol=1e-3, atol=1e-3)
        _close(ours.running_mean, theirs.running_mean, rtol=0, atol=0)
        _close(ours.running_var, theirs.running_var, rtol=0, atol=0)


def test_sizes_may_be_numpy_integers_as_in_torch():
    x, tx = _pair(_data((2, 3), 61))
    ours, theirs = nn.LayerNorm(np.int64(3)), torch.nn.LayerNorm(np.int64(3))
    assert ours.normalized_shape == (3,)                # (a plain int: torch keeps np.int64(3) and prints it)
    _close(ours(x), theirs(tx))
    _close(F.layer_norm(x, (np.int64(3),)), torch.nn.functional.layer_norm(tx, (np.int64(3),)))


def test_running_stats_are_updated_in_place_and_take_no_gradient():
    bn = nn.BatchNorm1d(2)
    mean_before, version = bn.running_mean, bn.running_mean._version
    x = ag.randn(4, 2, requires_grad=True)
    bn(x).sum().backward()
    assert bn.running_mean is mean_before and bn.running_mean._version > version
    assert not bn.running_mean.requires_grad and bn.running_mean.grad_fn is None


# -- errors -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("call", [
    lambda m, x: m.nn.functional.layer_norm(x(2, 3), (4,)),
    lambda m, x: m.nn.functional.layer_norm(x(2, 3), ()),
    lambda m, x: m.nn.functional.layer_norm(x(2, 3), 3),
    lambda m, x: m.nn.functional.layer_norm(x(2, 3), (3,), weight=m.ones(2)),
    lambda m, x: m.nn.functional.layer_norm(x(2, 3).double(), (3,), weight=m.ones(3)),
    lambda m, x: m.nn.functional.batch_norm(x(2, 3), m.zeros(4), m.ones(4)),
    lambda m, x: m.nn.functional.batch_norm(x(2, 3), None, None, training=False),
    lambda m, x: m.nn.functional.batch_norm(x(2, 3), m.zeros(3), m.ones(3), weight=m.ones(2)),
    lambda m, x: m.nn.functional.batch_norm(x(1, 3), m.zeros(3), m.ones(3), training=True),
    lambda m, x: m.nn.functional.batch_norm(x(2, 3).double(), m.zeros(3), m.ones(3)),
    lambda m, x: m.nn.BatchNorm1d(3)(x(1, 3)),
    lambda m, x: m.nn.BatchNorm1d(3)(x(1, 3, 1)),
    lambda m, x: m.nn.BatchNorm1d(3)(x(2, 3, 4, 5)),
    lambda m, x: m.nn.BatchNorm1d(3)(x(2, 4)),
    lambda m, x: m.nn.BatchNorm2d(3)(x(2, 3, 4)),
    lambda m, x: m.nn.LayerNorm(3)(x(2, 4)),
    lambda m, x: m.nn.BatchNorm1d(3)(x(2, 3).double()),
    lambda m, x: m.nn.functional.batch_norm(x(2, 3), m.zeros(3), None, training=True),
    lambda m, x: m.nn.functional.batch_norm(x(2, 3), m.zeros(3, requires_grad=True), m.ones(3), training=True),
    lambda m, x: m.nn.functional.batch_norm(x(2, 3), m.zeros(3), m.ones(3, requires_grad=True)),
])
def test_errors_as_in_torch(call):
    _both_raise(lambda: call(ag, lambda *s: ag.randn(*s)), lambda: call(torch, lambda *s: torch.randn(*s)))


def test_integer_input_is_refused_with_a_hint():
    """(NotImplementedError, torch's class: its normalizations have no integer kernel.)"""
    with pytest.raises(NotImplementedError, match="floating point"):
        nn.BatchNorm1d(3)(ag.tensor([[1, 2, 3], [4, 5, 6]]))
    with pytest.raises(NotImplementedError, match="floating point"):
        F.layer_norm(ag.tensor([[1, 2, 3]]), (3,))


def test_a_failed_call_changes_no_running_statistic():
    """torch counts a failed training call in num_batches_tracked; here a call that raises changes nothing."""
    bn = nn.BatchNorm1d(3)
    bn(ag.randn(4, 3))
    before = {k: v.numpy().copy() for k, v in bn.state_dict().items()}
    for bad in (ag.randn(1, 3), ag.randn(2, 4), ag.randn(2, 3).double()):
        with pytest.raises((ValueError, RuntimeError)):
            bn(bad)
    for k, v in bn.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), before[k])


# -- Tensor.copy_ -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dst_dtype, src, src_dtype", [("float32", [1.5, -2.5, 3.0], "float32"),
                                                      ("float32", [[1.5], [2.0]], "float64"),
                                                      ("int64", [1.7, -2.7, 3.0], "float32"),
                                                      ("float64", 4.0, "float32")])
def test_copy_broadcasts_and_casts_as_in_torch(dst_dtype, src, src_dtype):
    d, td = _pair(np.zeros((2, 3), dst_dtype))
    s, ts = _pair(np.array(src, src_dtype))
    assert d.copy_(s) is d
    td.copy_(ts)
    _close(d, td, rtol=0, atol=0)


def test_copying_into_an_integer_tensor_records_nothing_as_torch():
    d, td = _pair(np.zeros(3, "int64"))
    s, ts = _pair(np.array([1.5, 2.5, -1.0]), requires_grad=True)
    d.copy_(s, non_blocking=False)
    td.copy_(ts, non_blocking=False)
    assert d.requires_grad is td.requires_grad is False and d.grad_fn is None
    _close(d, td, rtol=0, atol=0)


def test_copy_sends_the_gradient_to_src_and_none_to_the_old_value():
    d, td = _pair(_data((2, 3), 50), requires_grad=True)
    s, ts = _pair(_data((3,), 51, "float64"), requires_grad=True)
    y, ty = d * 2, td * 2
    y.copy_(s)
    ty.copy_(ts)
    g = _data((2, 3), 52)
    (y * ag.tensor(g)).sum().backward()
    (ty * torch.tensor(g)).sum().backward()
    _close(s.grad, ts.grad, rtol=1e-6)
    _close(d.grad, td.grad)                     # zeros: the old value was overwritten


def test_copy_errors_as_in_torch():
    _both_raise(lambda: ag.zeros(3, requires_grad=True).copy_(ag.ones(3)),
                lambda: torch.zeros(3, requires_grad=True).copy_(torch.ones(3)))
    with pytest.raises(RuntimeError):
        torch.zeros(3).copy_(torch.ones(4))
    with pytest.raises(ValueError, match="cannot be broadcast"):   # (shapes that do not broadcast: ValueError
        ag.zeros(3).copy_(ag.ones(4))                             # here for every op, as in NumPy)


def test_copy_refuses_what_is_not_a_tensor_and_says_how_to_wrap_it():
    with pytest.raises(TypeError, match="autogradlab.tensor"):
        ag.zeros(3).copy_([1.0, 2.0, 3.0])


# -- GroupNorm ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("groups, channels, shape", [(2, 4, (3, 4, 5)), (1, 4, (2, 4, 3, 3)), (4, 4, (2, 4, 6)),
                                                     (2, 4, (2, 4)), (3, 6, (1, 6, 2, 2, 2))])
@pytest.mark.parametrize("affine", [True, False])
def test_group_norm_matches_torch_in_values_and_every_gradient(groups, channels, shape, affine):
    torch.manual_seed(0)
    theirs = torch.nn.GroupNorm(groups, channels, affine=affine).double()
    ours = nn.GroupNorm(groups, channels, affine=affine, dtype=ag.float64)
    assert repr(ours) == repr(theirs) and list(ours.state_dict()) == list(theirs.state_dict())
    if affine:
        with torch.no_grad():
            theirs.weight.normal_()
            theirs.bias.normal_()
        ours.load_state_dict({k: ag.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    x, tx = _pair(np.random.default_rng(1).standard_normal(shape), requires_grad=True)
    y, ty = ours(x), theirs(tx)
    _close(y, ty, 1e-12, 1e-12)
    g = np.random.default_rng(2).standard_normal(shape)
    y.backward(ag.tensor(g))
    ty.backward(torch.tensor(g))
    _close(x.grad, tx.grad, 1e-10, 1e-12)
    if affine:
        _close(ours.weight.grad, theirs.weight.grad, 1e-10, 1e-12)
        _close(ours.bias.grad, theirs.bias.grad, 1e-10, 1e-12)


def test_group_norm_second_derivatives_float16_and_errors_as_torch():
    x, tx = _pair(np.random.default_rng(3).standard_normal((2, 4, 3)), requires_grad=True)
    w, tw = _pair(np.random.default_rng(4).standard_normal(4), requires_grad=True)
    g, = ag.autograd.grad((F.group_norm(x, 2, w) ** 2).sum(), x, create_graph=True)
    tg, = torch.autograd.grad((torch.nn.functional.group_norm(tx, 2, tw) ** 2).sum(), tx, create_graph=True)
    g.sum().backward()
    tg.sum().backward()
    _close(x.grad, tx.grad, 1e-9, 1e-11)
    _close(w.grad, tw.grad, 1e-9, 1e-11)
    h, th = _pair(np.random.default_rng(5).standard_normal((2, 4, 8)).astype("float16") * 30)
    _close(F.group_norm(h, 2), torch.nn.functional.group_norm(th, 2), 2e-3, 2e-3)
    for call in (lambda m: m.nn.GroupNorm(3, 4), lambda m: m.nn.functional.group_norm(m.ones(2, 4, 3), 3),
                 lambda m: m.nn.GroupNorm(2, 4)(m.ones(2, 6, 3))):
        _both_raise(lambda: call(ag), lambda: call(torch))
