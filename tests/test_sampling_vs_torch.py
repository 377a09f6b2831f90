"""Resampling (``F.interpolate``, ``F.pixel_shuffle``, ``F.pixel_unshuffle`` and the modules ``Upsample``,
``UpsamplingNearest2d``, ``UpsamplingBilinear2d``, ``PixelShuffle``, ``PixelUnshuffle``) run in both libraries on
the same data: output sizes, values and input gradients in float64 (to rounding) and float32, for integer and
non-integer scale factors up and down, sizes as ints and tuples, both ``align_corners``, odd and size-1 dims;
finite differences in float64; reprs; errors of the same class as torch's."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import import_torch
from torch_compare import both_raise, close, pair

import autogradlab as ag
import autogradlab.nn as nn
import autogradlab.nn.functional as F
from autogradlab.testing import gradcheck

torch = import_torch()
TF = torch.nn.functional

TOLERANCE = {"float64": 1e-12, "float32": 1e-5}


def _data(shape, seed, dtype="float64"):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _check_against_torch(shape, dtype, seed, **kwargs):
    """Values and input gradient of ``interpolate(x, **kwargs)`` against torch's."""
    x, tx = pair(_data(shape, seed, dtype), requires_grad=True)
    y, ty = F.interpolate(x, **kwargs), TF.interpolate(tx, **kwargs)
    tol = TOLERANCE[dtype]
    close(y, ty, rtol=tol, atol=tol)
    if _torchs_1d_nearest_backward_disagrees_with_its_forward(shape, **kwargs):
        return   # (see test_1d_nearest_gradient_is_the_forwards_where_torchs_backward_is_not)
    g = _data(tuple(ty.shape), seed + 1, dtype)
    y.backward(ag.tensor(g))
    ty.backward(torch.tensor(g))
    close(x.grad, tx.grad, rtol=10 * tol, atol=10 * tol)


def _torchs_1d_nearest_backward_disagrees_with_its_forward(shape, mode="nearest", scale_factor=None,
                                                            recompute_scale_factor=None, **_):
    """torch's 1-d (and 3-d) nearest forward maps by 1/scale_factor even where a length stays or doubles, but its
    backward then copies (or halves) as the 2-d kernel does, so its gradient is not its forward's."""
    if len(shape) == 4 or mode != "nearest" or scale_factor is None or recompute_scale_factor:
        return False
    dims = len(shape) - 2
    factors = scale_factor if isinstance(scale_factor, (tuple, list)) else (scale_factor,) * dims
    for n, factor in zip(shape[2:], factors):
        out = int(n * factor)
        if out in (n, 2 * n) and factor != out / n:
            return True
    return False


SCALES = [0.5, 0.7, 1/3, 1.0, 1.3, 1.7, 2, 2.5, 3, 4.0]
RESIZES = ([{"scale_factor": s} for s in SCALES] + [{"scale_factor": s, "recompute_scale_factor": True}
                                                   for s in (0.7, 1.3, 2.5)]
           + [{"size": n} for n in (1, 3, 8, 13)] + [{"size": (6,)}, {"size": [11]}])
MODES_1D = [{"mode": "nearest"}, {"mode": "nearest-exact"}, {"mode": "linear"},
            {"mode": "linear", "align_corners": False}, {"mode": "linear", "align_corners": True}]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("mode", MODES_1D, ids=lambda m: "-".join(str(v) for v in m.values()))
@pytest.mark.parametrize("resize", RESIZES, ids=repr)
def test_interpolate_1d_matches_torch(dtype, mode, resize):
    for length in (1, 2, 5, 7, 10):
        if "scale_factor" in resize and int(length * resize["scale_factor"]) < 1:
            continue   # (no output: the error tests cover it)
        _check_against_torch((2, 3, length), dtype, length, **mode, **resize)


RESIZES_2D = ([{"scale_factor": s} for s in (0.5, 0.6, 1.3, 2, 2.5, (2, 3), (1.5, 0.75), (0.34, 1.1))]
              + [{"scale_factor": (1.7, 2.3), "recompute_scale_factor": True}]
              + [{"size": n} for n in (1, 4, 9)] + [{"size": (5, 2)}, {"size": [1, 7]}, {"size": (12, 3)}])
MODES_2D = [{"mode": "nearest"}, {"mode": "nearest-exact"}, {"mode": "bilinear"},
            {"mode": "bilinear", "align_corners": True}]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("mode", MODES_2D, ids=lambda m: "-".join(str(v) for v in m.values()))
@pytest.mark.parametrize("resize", RESIZES_2D, ids=repr)
def test_interpolate_2d_matches_torch(dtype, mode, resize):
    for shape in ((2, 3, 4, 5), (1, 2, 7, 3), (2, 1, 1, 6), (1, 1, 1, 1), (1, 2, 3, 3)):
        factors = resize.get("scale_factor", 1)
        factors = factors if isinstance(factors, tuple) else (factors, factors)
        if min(int(n * f) for n, f in zip(shape[2:], factors)) < 1:
            continue
        _check_against_torch(shape, dtype, sum(shape), **mode, **resize)


RESIZES_3D = ([{"scale_factor": s} for s in (0.5, 1.3, 2, (2, 0.5, 1.5), (0.34, 1.1, 3))]
              + [{"scale_factor": (1.7, 2.3, 0.8), "recompute_scale_factor": True}]
              + [{"size": n} for n in (1, 4)] + [{"size": (5, 2, 3)}, {"size": [1, 7, 2]}])
MODES_3D = [{"mode": "nearest"}, {"mode": "nearest-exact"}, {"mode": "trilinear"},
            {"mode": "trilinear", "align_corners": True}, {"mode": "area"}]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("mode", MODES_3D, ids=lambda m: "-".join(str(v) for v in m.values()))
@pytest.mark.parametrize("resize", RESIZES_3D, ids=repr)
def test_interpolate_3d_matches_torch(dtype, mode, resize):
    for shape in ((2, 3, 4, 5, 3), (1, 2, 1, 3, 6), (1, 1, 1, 1, 1)):
        factors = resize.get("scale_factor", 1)
        factors = factors if isinstance(factors, tuple) else (factors,) * 3
        if min(int(n * f) for n, f in zip(shape[2:], factors)) < 1:
            continue
        if mode["mode"] == "area" and "scale_factor" in resize:
            continue   # (area takes the sizes: scale factors are covered by the other modes)
        _check_against_torch(shape, dtype, sum(shape), **mode, **resize)


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact", "linear"])
def test_a_scale_factor_maps_coordinates_by_its_inverse_not_by_in_over_out(mode):
    """length 5 * 1.7 -> 8 outputs: with scale_factor=1.7 the coordinates step by 1/1.7, with size=8 by 5/8
    (torch's rule when recompute_scale_factor is not set): the two give different values, each torch's."""
    x = ag.tensor(np.arange(5.0).reshape(1, 1, 5))
    by_factor, by_size = F.interpolate(x, scale_factor=1.7, mode=mode), F.interpolate(x, size=8, mode=mode)
    assert by_factor.shape == by_size.shape == (1, 1, 8)
    assert not np.allclose(by_factor.numpy(), by_size.numpy())
    tx = torch.arange(5.0, dtype=torch.float64).reshape(1, 1, 5)
    close(by_factor, TF.interpolate(tx, scale_factor=1.7, mode=mode), rtol=0, atol=1e-15)
    close(by_size, TF.interpolate(tx, size=8, mode=mode), rtol=0, atol=1e-15)
    recomputed = F.interpolate(x, scale_factor=1.7, mode=mode, recompute_scale_factor=True)
    close(recomputed, TF.interpolate(tx, size=8, mode=mode), rtol=0, atol=1e-15)


def test_2d_nearest_copies_a_dim_that_keeps_its_size_and_1d_does_not():
    """torch's 2-d nearest kernel copies a dim whose size a scale_factor leaves unchanged (3 * 1.3 -> 3);
    its 1-d kernel maps by 1/1.3 even then."""
    x = ag.tensor(np.arange(3.0).reshape(1, 1, 1, 3))
    assert F.interpolate(x, scale_factor=1.3).numpy().ravel().tolist() == [0.0, 1.0, 2.0]
    assert F.interpolate(x[0], scale_factor=1.3).numpy().ravel().tolist() == [0.0, 0.0, 1.0]
    tx = torch.arange(3.0, dtype=torch.float64).reshape(1, 1, 1, 3)
    close(F.interpolate(x, scale_factor=1.3), TF.interpolate(tx, scale_factor=1.3), rtol=0, atol=0)
    close(F.interpolate(x[0], scale_factor=1.3), TF.interpolate(tx[0], scale_factor=1.3), rtol=0, atol=0)


@pytest.mark.parametrize("length, size", [(2, 41), (26, 11), (28, 23), (24, 37), (17, 10), (30, 11), (2, 49),
                                          (30, 22), (26, 46)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nearest_modes_and_linear_pick_torchs_index_where_a_coordinate_lands_on_an_integer(length, size, dtype):
    """Sizes where j * in / out or (j + 0.5) * in / out is an integer in exact arithmetic: the index depends on
    how torch rounds (nearest: float32; nearest-exact and linear: float32 with one rounding in the product for
    float32 inputs, float64 for float64)."""
    # torch's own choice there depends on its CPU kernels: its vectorized (AVX2/AVX-512) ones, which ours follows,
    # and its scalar fallback (ATEN_CPU_CAPABILITY=default, or a CPU without AVX2) can round such a product apart
    vectorized = torch.backends.cpu.get_cpu_capability() in ("AVX2", "AVX512")
    for mode in ("nearest", "nearest-exact", "linear"):
        x, tx = pair(np.arange(length, dtype=dtype).reshape(1, 1, length))
        ours, theirs = F.interpolate(x, size=size, mode=mode), TF.interpolate(tx, size=size, mode=mode)
        if vectorized or mode == "linear" or dtype == "float64":
            close(ours, theirs, rtol=0, atol=1e-5 if mode == "linear" else 0)
            continue
        j = np.arange(size)
        offset = 0.5 if mode == "nearest-exact" else 0.0
        exact = ((j + offset) * length) % size == 0    # (where the product is an integer in exact arithmetic)
        ours_values, their_values = ours.numpy().ravel(), theirs.numpy().ravel()
        np.testing.assert_array_equal(ours_values[~exact], their_values[~exact])
        assert (np.abs(ours_values[exact] - their_values[exact]) <= 1).all()   # (a neighbour's index at most)


def test_1d_nearest_gradient_is_the_forwards_where_torchs_backward_is_not():
    """Length 3 * 1.3 -> 3: torch's forward reads x[0], x[0], x[1] (by 1/1.3) but its backward sends the
    gradient to x[0], x[1], x[2] (a copy). Here the gradient comes from the forward: each input gets the
    gradients of the outputs that read it, which finite differences confirm."""
    x, tx = pair(np.arange(3.0).reshape(1, 1, 3), requires_grad=True)
    y, ty = F.interpolate(x, scale_factor=1.3), TF.interpolate(tx, scale_factor=1.3)
    close(y, ty, rtol=0, atol=0)
    assert y.detach().numpy().ravel().tolist() == [0.0, 0.0, 1.0]
    y.backward(ag.tensor(np.array([[[1.0, 2.0, 3.0]]])))
    ty.backward(torch.tensor([[[1.0, 2.0, 3.0]]], dtype=torch.float64))
    assert x.grad.numpy().ravel().tolist() == [3.0, 3.0, 0.0]
    assert tx.grad.numpy().ravel().tolist() == [1.0, 2.0, 3.0]   # (torch's: not the forward's gradient)
    x = ag.tensor(_data((1, 2, 3), 6), requires_grad=True)
    assert gradcheck(lambda x: F.interpolate(x, scale_factor=1.3), (x,))


def test_3d_nearest_gradient_is_the_forwards_where_torchs_backward_is_not():
    """The same in 3-d: depth 3 * 1.3 -> 3 reads depths 0, 0, 1; torch's backward copies instead."""
    x, tx = pair(np.arange(3.0).reshape(1, 1, 3, 1, 1), requires_grad=True)
    y, ty = F.interpolate(x, scale_factor=1.3), TF.interpolate(tx, scale_factor=1.3)
    close(y, ty, rtol=0, atol=0)
    y.backward(ag.tensor(np.array([1.0, 2.0, 3.0]).reshape(1, 1, 3, 1, 1)))
    ty.backward(torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64).reshape(1, 1, 3, 1, 1))
    assert x.grad.numpy().ravel().tolist() == [3.0, 3.0, 0.0]
    assert tx.grad.numpy().ravel().tolist() == [1.0, 2.0, 3.0]   # (torch's: not the forward's gradient)
    x = ag.tensor(_data((1, 2, 3, 2, 2), 7), requires_grad=True)
    assert gradcheck(lambda x: F.interpolate(x, scale_factor=(1.3, 1.5, 2.0)), (x,))
    assert gradcheck(lambda x: F.interpolate(x, size=(4, 3, 3), mode="trilinear"), (x,))


def test_float16_matches_torch():
    for mode, shape in [("nearest", (1, 2, 5, 4)), ("bilinear", (1, 2, 5, 4)), ("linear", (2, 3, 7))]:
        x, tx = pair(_data(shape, 3, "float16"))
        close(F.interpolate(x, scale_factor=1.5, mode=mode), TF.interpolate(tx, scale_factor=1.5, mode=mode),
              rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("shape, size", [((2, 3, 9), 4), ((2, 3, 9), 13), ((1, 2, 7, 6), (3, 4)),
                                         ((1, 2, 5, 5), (8, 2))])
def test_area_mode_matches_torch(shape, size):
    _check_against_torch(shape, "float64", 5, size=size, mode="area")
    _check_against_torch(shape, "float32", 5, scale_factor=0.5, mode="area")


@pytest.mark.parametrize("call", [
    lambda x: F.interpolate(x, scale_factor=1.7, mode="nearest"),
    lambda x: F.interpolate(x, size=(7, 2), mode="nearest-exact"),
    lambda x: F.interpolate(x, scale_factor=(1.5, 0.6), mode="bilinear"),
    lambda x: F.interpolate(x, size=(2, 6), mode="bilinear", align_corners=True),
    lambda x: F.interpolate(x[:, :, 0], scale_factor=2.5, mode="linear"),
    lambda x: F.interpolate(x[:, :, 0], size=1, mode="linear", align_corners=True),
    lambda x: F.pixel_shuffle(x[:, :, :2], 2),
    lambda x: F.pixel_unshuffle(x[:, :, 1:], 2),
])
def test_gradients_pass_finite_differences(call):
    x = ag.tensor(_data((1, 4, 5, 4), 21), requires_grad=True)
    assert gradcheck(call, (x,))


@pytest.mark.parametrize("shape, factor", [((1, 8, 3, 3), 2), ((2, 3, 9, 2, 4), 3), ((4, 5, 6), 1), ((0, 4, 2, 2), 2),
                                           ((3, 2, 18, 2, 2), 3)])
def test_pixel_shuffle_and_unshuffle_match_torch(shape, factor):
    x, tx = pair(_data(shape, 30, "float32"), requires_grad=True)
    y, ty = F.pixel_shuffle(x, factor), TF.pixel_shuffle(tx, factor)
    close(y, ty, rtol=0, atol=0)
    back, tback = F.pixel_unshuffle(y, factor), TF.pixel_unshuffle(ty, factor)
    close(back, tx, rtol=0, atol=0)   # (each undoes the other)
    g = _data(tuple(ty.shape), 31, "float32")
    if shape[0] == 0:   # torch 2.13's pixel_unshuffle returns an empty input's shape unchanged (so its pixel_shuffle
        assert tuple(tback.shape) == tuple(ty.shape) != tuple(back.shape)   # backward fails): not copied here
        y.backward(ag.tensor(g))
        assert x.grad.shape == shape
        return
    close(back, tback, rtol=0, atol=0)
    y.backward(ag.tensor(g))
    ty.backward(torch.tensor(g))
    close(x.grad, tx.grad, rtol=0, atol=0)


def _module_pairs():
    return [(nn.Upsample(scale_factor=2), torch.nn.Upsample(scale_factor=2)),
            (nn.Upsample(scale_factor=(1.5, 2)), torch.nn.Upsample(scale_factor=(1.5, 2))),
            (nn.Upsample(size=(7, 3), mode="bilinear"), torch.nn.Upsample(size=(7, 3), mode="bilinear")),
            (nn.Upsample(size=9, mode="nearest-exact"), torch.nn.Upsample(size=9, mode="nearest-exact")),
            (nn.Upsample(scale_factor=2.5, mode="bilinear", align_corners=True),
             torch.nn.Upsample(scale_factor=2.5, mode="bilinear", align_corners=True)),
            (nn.Upsample(scale_factor=1.7, mode="bilinear", recompute_scale_factor=True),
             torch.nn.Upsample(scale_factor=1.7, mode="bilinear", recompute_scale_factor=True)),
            (nn.UpsamplingNearest2d(scale_factor=3), torch.nn.UpsamplingNearest2d(scale_factor=3)),
            (nn.UpsamplingNearest2d(size=(5, 8)), torch.nn.UpsamplingNearest2d(size=(5, 8))),
            (nn.UpsamplingBilinear2d(scale_factor=2), torch.nn.UpsamplingBilinear2d(scale_factor=2)),
            (nn.UpsamplingBilinear2d(size=6), torch.nn.UpsamplingBilinear2d(size=6)),
            (nn.PixelShuffle(2), torch.nn.PixelShuffle(2)), (nn.PixelUnshuffle(2), torch.nn.PixelUnshuffle(2))]


@pytest.mark.parametrize("index", range(len(_module_pairs())))
def test_modules_print_and_compute_as_torch(index):
    ours, theirs = _module_pairs()[index]
    assert repr(ours) == repr(theirs)
    for name in ("size", "scale_factor", "mode", "align_corners", "recompute_scale_factor"):
        assert getattr(ours, name, None) == getattr(theirs, name, None)
    x, tx = pair(_data((2, 4, 4, 6), 40, "float32"), requires_grad=True)
    y, ty = ours(x), theirs(tx)
    close(y, ty, rtol=1e-5, atol=1e-5)
    y.sum().backward()
    ty.sum().backward()
    close(x.grad, tx.grad, rtol=1e-5, atol=1e-5)


def test_upsampling_bilinear2d_keeps_the_corners():
    """UpsamplingBilinear2d is bilinear with align_corners=True: the corner pixels come out unchanged."""
    data = _data((1, 1, 3, 4), 41)
    y = nn.UpsamplingBilinear2d(scale_factor=3)(ag.tensor(data)).numpy()
    np.testing.assert_allclose(y[..., [0, 0, -1, -1], [0, -1, 0, -1]], data[..., [0, 0, -1, -1], [0, -1, 0, -1]])
    plain = F.interpolate(ag.tensor(data), scale_factor=3, mode="bilinear").numpy()
    assert not np.allclose(plain, y)   # (align_corners=False spreads the same pixels differently)


def test_outputs_stay_on_the_inputs_device_and_record_a_graph():
    x = ag.tensor(_data((1, 4, 3, 3), 50), requires_grad=True)
    for y in (F.interpolate(x, scale_factor=2, mode="bilinear"), F.interpolate(x, size=5),
              F.pixel_unshuffle(F.pixel_shuffle(F.interpolate(x, size=4), 2), 2)):
        assert y.device == x.device and y.grad_fn is not None and y.requires_grad


@pytest.mark.parametrize("call", [
    lambda m, r: m.nn.functional.interpolate(r(1, 1, 5, 4), size=3, scale_factor=2),
    lambda m, r: m.nn.functional.interpolate(r(1, 1, 5, 4)),
    lambda m, r: m.nn.functional.interpolate(r(1, 1, 5, 4), scale_factor=2, align_corners=False),
    lambda m, r: m.nn.functional.interpolate(r(1, 1, 5, 4), scale_factor=2, mode="nearest-exact",
                                             align_corners=True),
    lambda m, r: m.nn.functional.interpolate(r(1, 1, 5, 4), scale_factor=2, mode="area", align_corners=True),
    lambda m, r: m.nn.functional.interpolate(r(1, 1, 5, 4), size=3, recompute_scale_factor=True),
    lambda m, r: m.nn.functional.interpolate(r(1, 1, 5, 4), size=(3,)),
    lambda m, r: m.nn.functional.interpolate(r(1, 1, 5), size=(3, 4)),
    lambda m, r: m.nn.functional.interpolate(r(1, 1, 5, 4), scale_factor=(3, 2, 1)),
    lambda m, r: m.nn.functional.interpolate(r(1, 1, 5, 4), size=(3.0, 2)),
    lambda m, r: m.nn.functional.interpolate(r(1, 1, 5, 4), size=(3, None)),
    lambda m, r: m.nn.functional.interpolate(r(1, 1, 5), size=2.5),
    lambda m, r: m.nn.functional.interpolate(r(1, 1, 5), scale_factor="2"),
    lambda m, r: m.nn.functional.interpolate(r(1, 1, 5, 4), scale_factor=(2, None)),
    lambda m, r: m.nn.functional.interpolate(r(1, 1, 5, 4), scale_factor=2, mode="linear"),
    lambda m, r: m.nn.functional.interpolate(r(1, 1, 5), scale_factor=2, mode="bilinear"),
    lambda m, r: m.nn.functional.interpolate(r(1, 1, 5), scale_factor=2, mode="bicubic"),
    lambda m, r: m.nn.functional.interpolate(r(1, 1, 5, 4), scale_factor=2, mode="trilinear"),
    lambda m, r: m.nn.functional.interpolate(r(1, 1, 5, 4), scale_factor=2, mode="cubic"),
    lambda m, r: m.nn.functional.interpolate(r(2, 5), scale_factor=2),
    lambda m, r: m.nn.functional.interpolate(r(5), size=3, mode="linear"),
    lambda m, r: m.nn.functional.interpolate(r(1, 1, 5, 4), scale_factor=2, antialias=True),
    lambda m, r: m.nn.functional.interpolate(r(1, 1, 5), scale_factor=2, mode="linear", antialias=True),
    lambda m, r: m.nn.functional.interpolate(r(1, 1, 5, 4), scale_factor=2, mode="lanczos"),
    lambda m, r: m.nn.functional.interpolate(r(1, 1, 5, 4), scale_factor=0.1),
    lambda m, r: m.nn.functional.interpolate(r(1, 1, 5), scale_factor=0.0, mode="linear"),
    lambda m, r: m.nn.functional.interpolate(r(1, 1, 5), scale_factor=-2.0),
    lambda m, r: m.nn.functional.interpolate(r(1, 1, 5, 4), size=(0, 3), mode="bilinear"),
    lambda m, r: m.nn.functional.interpolate(r(1, 1, 5), size=-1),
    lambda m, r: m.nn.functional.interpolate(r(1, 1, 0), size=3),
    lambda m, r: m.nn.functional.interpolate(r(2, 0, 3), scale_factor=2),
    lambda m, r: m.nn.functional.interpolate(r(1, 1, 5).long(), scale_factor=2),
    lambda m, r: m.nn.functional.interpolate(r(1, 1, 5).long(), scale_factor=2, mode="linear"),
    lambda m, r: m.nn.functional.pixel_shuffle(r(4, 3), 2),
    lambda m, r: m.nn.functional.pixel_shuffle(r(1, 4, 3, 3), 0),
    lambda m, r: m.nn.functional.pixel_shuffle(r(1, 4, 3, 3), -2),
    lambda m, r: m.nn.functional.pixel_shuffle(r(1, 6, 3, 3), 2),
    lambda m, r: m.nn.functional.pixel_shuffle(r(1, 4, 3, 3), 2.0),
    lambda m, r: m.nn.functional.pixel_unshuffle(r(4, 4), 2),
    lambda m, r: m.nn.functional.pixel_unshuffle(r(1, 1, 4, 4), 0),
    lambda m, r: m.nn.functional.pixel_unshuffle(r(1, 1, 3, 4), 2),
    lambda m, r: m.nn.functional.pixel_unshuffle(r(1, 1, 4, 3), 2),
    lambda m, r: m.nn.functional.pixel_unshuffle(r(1, 1, 4, 4), 2.0),
    lambda m, r: m.nn.Upsample(scale_factor=[2, 2]),
    lambda m, r: m.nn.Upsample(scale_factor=2, mode="bilinear")(r(1, 1, 5)),
    lambda m, r: m.nn.UpsamplingNearest2d(scale_factor=2)(r(1, 1, 5, 4, 3, 2)),
    lambda m, r: m.nn.PixelShuffle(3)(r(1, 4, 2, 2)),
])
def test_errors_as_in_torch(call):
    both_raise(lambda: call(ag, lambda *s: ag.randn(*s)), lambda: call(torch, lambda *s: torch.randn(*s)))


@pytest.mark.parametrize("shape, call, words", [
    ((1, 1, 5, 4), lambda x: F.interpolate(x, size=3, scale_factor=2), ["size", "scale_factor", "not both"]),
    ((1, 1, 5, 4), lambda x: F.interpolate(x), ["size=", "scale_factor="]),
    ((1, 1, 5, 4), lambda x: F.interpolate(x, scale_factor=2, align_corners=True),
     ["align_corners", "'nearest'", "leave it out"]),
    ((1, 1, 5, 4), lambda x: F.interpolate(x, size=(3,)), ["[5, 4]", "(3,)", "(o1, ..., oK)"]),
    ((1, 1, 5, 4), lambda x: F.interpolate(x, scale_factor=2, mode="linear"), ["4D", "linear", "3D", "'bilinear'"]),
    ((1, 1, 5, 4), lambda x: F.interpolate(x, scale_factor=0.1), ["greater than 0", "H: 5, W: 4", "H: 0, W: 0"]),
    ((1, 1, 5, 4), lambda x: F.pixel_shuffle(x, 3), ["divisible", "size(-3)=1", "multiple of 9"]),
    ((1, 1, 4, 5), lambda x: F.pixel_unshuffle(x, 2), ["width", "size(-1)=5", "multiple of 2"]),
])
def test_error_messages_say_what_is_wrong_and_how_to_fix_it(shape, call, words):
    with pytest.raises(Exception) as caught:   # noqa: PT011  (the class is checked against torch above)
        call(ag.randn(*shape))
    for word in words:
        assert word in str(caught.value), (word, str(caught.value))


@pytest.mark.parametrize("call", [
    lambda x: F.interpolate(x, scale_factor=2, mode="bicubic", antialias=True),
    lambda x: F.interpolate(x, scale_factor=2, mode="bilinear", antialias=True),
    lambda x: F.interpolate(x, scale_factor=2, mode="lanczos", antialias=True),
])
def test_what_torch_has_and_autogradlab_does_not_raises_not_implemented(call):
    """torch computes these (antialias, lanczos); here they say so."""
    with pytest.raises(NotImplementedError, match="autogradlab"):
        call(ag.randn(1, 1, 5, 4))


# -- found by a differential fuzz against torch ---------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["int64", "uint8"])
@pytest.mark.parametrize("shape", [(1, 2, 6), (1, 2, 4, 6)])
def test_area_of_an_integer_input_raises_not_implemented_like_torch(dtype, shape):
    x, tx = pair(np.arange(np.prod(shape)).reshape(shape).astype(dtype))
    both_raise(lambda: F.interpolate(x, size=3, mode="area"), lambda: TF.interpolate(tx, size=3, mode="area"))
    with pytest.raises(NotImplementedError, match="x.float()"):
        F.interpolate(x, size=3, mode="area")


@pytest.mark.parametrize("size", [5.0, (3, 2.0), 0])
def test_recompute_scale_factor_with_a_size_is_refused_first_like_torch(size):
    x, tx = pair(_data((1, 1, 5, 4), 60))
    both_raise(lambda: F.interpolate(x, size=size, recompute_scale_factor=True),
               lambda: TF.interpolate(tx, size=size, recompute_scale_factor=True))


@pytest.mark.parametrize("scale_factor", [float("inf"), float("nan"), (2.0, float("inf"))])
def test_a_non_finite_scale_factor_raises_runtime_error_like_torch(scale_factor):
    x, tx = pair(_data((1, 1, 5, 4), 61))
    both_raise(lambda: F.interpolate(x, scale_factor=scale_factor),
               lambda: TF.interpolate(tx, scale_factor=scale_factor))
    with pytest.raises(RuntimeError, match="finite scale_factor"):
        F.interpolate(x, scale_factor=scale_factor)


def test_random_from_and_none_draws_from_from_up_as_torch():
    """``random_(10, None)`` is [10, the dtype's top]; it drew from [0, 10) (read as ``random_(10)``)."""
    for T in (ag, torch):
        T.manual_seed(0)
        ints, floats = T.zeros(2000, dtype=T.int64).random_(10, None), T.zeros(2000).random_(100, None)
        small = T.zeros(200, dtype=T.uint8).random_(200, None)
        assert int(ints.min()) >= 10 and int(ints.max()) > 2 ** 40
        assert 100 <= float(floats.min()) and float(floats.max()) <= 2 ** 24
        assert int(small.min()) >= 200
        assert int(T.zeros(200, dtype=T.int64).random_(5).max()) < 5
