"""``F.affine_grid`` and ``F.grid_sample`` (``nn/grid_sampling.py``), side by side with torch 2.13: 2-d and 3-d,
both ``align_corners``, every mode and padding rule, gradients for the image and for ``theta``, also where the
sampling points fall exactly on pixels and edges (an identity map), and by finite differences."""
import warnings

import numpy as np
import pytest

import autogradlab as ag
from conftest import import_torch
from torch_compare import both_raise

torch = import_torch()


def _run(T, d, theta, image, size, align, mode, padding, seed):
    x, t = T.tensor(image, requires_grad=True), T.tensor(theta, requires_grad=True)
    grid = T.nn.functional.affine_grid(t, size, align_corners=align)
    y = T.nn.functional.grid_sample(x, grid, mode=mode, padding_mode=padding, align_corners=align)
    y.backward(T.tensor(np.random.default_rng(seed).standard_normal(tuple(y.shape))))
    return [grid.detach().numpy(), y.detach().numpy(), x.grad.numpy(),
            None if t.grad is None else t.grad.numpy()]


@pytest.mark.parametrize("d", [2, 3])
@pytest.mark.parametrize("warp", ["random", "identity", "wide"])
@pytest.mark.parametrize("align", [True, False])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
def test_matches_torch_values_and_gradients(d, warp, align, mode, padding):
    rng = np.random.default_rng([d, len(warp), int(align), len(mode), len(padding)])
    n, c = 2, 3
    spatial = (4, 5) if d == 2 else (3, 4, 5)
    image = rng.standard_normal((n, c) + spatial)
    scale = {"random": 0.3, "identity": 0.0, "wide": 1.0}[warp]
    theta = np.tile(np.eye(d, d + 1), (n, 1, 1)) * (1.0 if warp == "identity" else 1.5)
    theta = theta + rng.normal(0, scale, (n, d, d + 1))
    size = (n, c) + (spatial if warp == "identity" else ((6, 7) if d == 2 else (3, 6, 7)))
    ours, theirs = (_run(T, d, theta, image, size, align, mode, padding, 5) for T in (ag, torch))
    if mode == "nearest":   # (the positions' gradient is zeros in both: the output is piecewise constant in them)
        assert ours[3] is not None and not ours[3].any() and not theirs[3].any()
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o, t, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align", [True, False])
def test_bilinear_gradients_match_finite_differences(padding, align):
    rng = np.random.default_rng(3)
    image = ag.tensor(rng.standard_normal((1, 2, 4, 5)), requires_grad=True)
    grid = ag.tensor(rng.uniform(-1.2, 1.2, (1, 3, 3, 2)), requires_grad=True)   # (off the pixels: smooth there)
    assert ag.autograd.gradcheck(
        lambda x, g: ag.nn.functional.grid_sample(x, g, padding_mode=padding, align_corners=align), (image, grid))


def test_an_affine_grid_of_the_identity_reproduces_the_image():
    image = ag.tensor(np.random.default_rng(4).standard_normal((2, 3, 5, 6)))
    theta = ag.tensor(np.tile(np.eye(2, 3), (2, 1, 1)))
    for align in (True, False):
        grid = ag.nn.functional.affine_grid(theta, (2, 3, 5, 6), align_corners=align)
        out = ag.nn.functional.grid_sample(image, grid, align_corners=align)
        np.testing.assert_allclose(out.numpy(), image.numpy(), atol=1e-12)


def test_align_corners_left_out_warns_and_is_false_as_in_torch():
    theta = np.tile(np.eye(2, 3), (1, 1, 1)) * 0.7
    for T in (ag, torch):
        with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
            grid = T.nn.functional.affine_grid(T.tensor(theta), (1, 1, 3, 4))
        np.testing.assert_allclose(grid.numpy(), T.nn.functional.affine_grid(
            T.tensor(theta), (1, 1, 3, 4), align_corners=False).numpy())


@pytest.mark.parametrize("call", [
    lambda T: T.nn.functional.affine_grid(T.ones(1, 2, 3, dtype=T.int64), (1, 1, 2, 2), False),
    lambda T: T.nn.functional.affine_grid(T.ones(1, 2, 3), (1, 1, 2), False),
    lambda T: T.nn.functional.affine_grid(T.ones(1, 3, 4), (1, 1, 2, 2), False),
    lambda T: T.nn.functional.affine_grid(T.ones(1, 2, 3), (1, 1, 0, 2), False),
    lambda T: T.nn.functional.grid_sample(T.ones(1, 1, 2, 2), T.ones(1, 2, 2, 2), mode="cubic", align_corners=False),
    lambda T: T.nn.functional.grid_sample(T.ones(1, 1, 2, 2), T.ones(1, 2, 2, 2), padding_mode="wrap",
                                          align_corners=False),
    lambda T: T.nn.functional.grid_sample(T.ones(1, 1, 2, 2), T.ones(1, 2, 2, 3), align_corners=False),
    lambda T: T.nn.functional.grid_sample(T.ones(2, 1, 2, 2), T.ones(1, 2, 2, 2), align_corners=False),
    lambda T: T.nn.functional.grid_sample(T.ones(1, 1, 2, 2), T.ones(1, 2, 2, 2, 2), align_corners=False),
])
def test_bad_arguments_raise_torchs_error_class(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both_raise(lambda: call(ag), lambda: call(torch))


@pytest.mark.parametrize("warp", ["random", "identity", "wide"])
@pytest.mark.parametrize("align", [True, False])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
def test_bicubic_matches_torch_values_and_gradients(warp, align, padding):
    """Images only (torch refuses volumes): values, the image's gradient and theta's, also on the pixels."""
    rng = np.random.default_rng([7, len(warp), int(align), len(padding)])
    n, c, spatial = 2, 3, (4, 5)
    image = rng.standard_normal((n, c) + spatial)
    scale = {"random": 0.3, "identity": 0.0, "wide": 1.0}[warp]
    theta = np.tile(np.eye(2, 3), (n, 1, 1)) * (1.0 if warp == "identity" else 1.5) + rng.normal(0, scale, (n, 2, 3))
    size = (n, c) + (spatial if warp == "identity" else (6, 7))
    ours, theirs = (_run(T, 2, theta, image, size, align, "bicubic", padding, 5) for T in (ag, torch))
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o, t, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
def test_bicubic_gradients_match_finite_differences(padding):
    rng = np.random.default_rng(8)
    image = ag.tensor(rng.standard_normal((1, 2, 4, 5)), requires_grad=True)
    grid = ag.tensor(rng.uniform(-1.2, 1.2, (1, 3, 3, 2)), requires_grad=True)
    assert ag.autograd.gradcheck(lambda x, g: ag.nn.functional.grid_sample(
        x, g, mode="bicubic", padding_mode=padding, align_corners=False), (image, grid))


def test_bicubic_weights_sum_to_one_and_volumes_are_refused_as_torch():
    """A constant image reads back its constant between pixels (away from the edges, whose taps are padding);
    a linear one does not (a = -0.75 is not Keys' -1/2: the taps' first moment at t = 0.3 is 0.342)."""
    h, w = 8, 9
    yy, xx = np.meshgrid(np.arange(h, dtype=float), np.arange(w, dtype=float), indexing="ij")
    image = ag.tensor(np.full((1, 1, h, w), 2.5))
    points = np.array([[3.3, 2.6], [4.75, 3.1], [5.5, 4.9]])   # (x, y) in pixels
    grid = ag.tensor((points * 2 / (np.array([w, h]) - 1) - 1)[None, None])   # (align_corners=True)
    out = ag.nn.functional.grid_sample(image, grid, mode="bicubic", align_corners=True)
    np.testing.assert_allclose(out.numpy().ravel(), 2.5, rtol=1e-12)
    linear = ag.nn.functional.grid_sample(ag.tensor(xx[None, None]), grid, mode="bicubic", align_corners=True)
    np.testing.assert_allclose(linear.numpy().ravel()[0], 3 + 0.342, rtol=1e-12)
    both_raise(lambda: ag.nn.functional.grid_sample(ag.ones(1, 1, 2, 2, 2), ag.zeros(1, 1, 1, 1, 3),
                                                    mode="bicubic", align_corners=False),
               lambda: torch.nn.functional.grid_sample(torch.ones(1, 1, 2, 2, 2), torch.zeros(1, 1, 1, 1, 3),
                                                       mode="bicubic", align_corners=False))


@pytest.mark.parametrize("bad", [float("inf"), -float("inf"), float("nan")])
def test_nearest_reads_an_infinite_or_nan_position_as_torch_and_its_grid_gradient_stays_zero(bad):
    outs = []
    for T in (ag, torch):
        grid = T.tensor([[[[bad, 0.0], [0.3, 0.2]]]], dtype=T.float64, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("error")   # (no inf - inf on the way)
            out = T.nn.functional.grid_sample(T.tensor(np.arange(16.0).reshape(1, 1, 4, 4)), grid, mode="nearest",
                                              align_corners=False)
            out.sum().backward()
        outs.append((out.detach().numpy(), grid.grad.numpy()))
    np.testing.assert_array_equal(outs[0][0], outs[1][0])
    np.testing.assert_array_equal(outs[0][1], outs[1][1])
