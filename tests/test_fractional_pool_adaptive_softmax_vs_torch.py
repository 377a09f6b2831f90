"""Fractional max pooling (``nn/fractional_pooling.py``) and ``AdaptiveLogSoftmaxWithLoss``
(``nn/adaptive_softmax.py``), side by side with torch 2.13 in float64: values, indices and gradients with the
same ``_random_samples`` (and the same parameters) in both libraries, the random regions' structure, and the
refusals with torch's error classes."""
import warnings

import numpy as np
import pytest

import autogradlab as ag
from autogradlab.nn.adaptive_softmax import AdaptiveLogSoftmaxWithLoss
from autogradlab.nn.fractional_pooling import (FractionalMaxPool2d, FractionalMaxPool3d, fractional_max_pool2d,
                                               fractional_max_pool2d_with_indices, fractional_max_pool3d,
                                               fractional_max_pool3d_with_indices)
from conftest import host, import_torch
from torch_compare import both_raise

torch = import_torch()
_rng = np.random.default_rng(20261207)


def _np(t):
    """Either library's tensor as a NumPy array."""
    return host(t.detach().data) if isinstance(t, ag.Tensor) else t.detach().numpy()


# -- fractional max pooling --------------------------------------------------------------------------------------

OURS = {2: fractional_max_pool2d, 3: fractional_max_pool3d}
THEIRS = {2: torch.nn.functional.fractional_max_pool2d, 3: torch.nn.functional.fractional_max_pool3d}


def _samples(x, dims, dtype=np.float64):
    batch = 1 if x.ndim == dims + 1 else x.shape[0]
    return _rng.random((batch, x.shape[-dims - 1], dims)).astype(dtype)


def _pool_both(dims, x, samples, kernel_size, **kwargs):
    """Values, indices and the input's gradient (for a random upstream gradient) in both libraries."""
    results = []
    for T, pool in ((ag, OURS[dims]), (torch, THEIRS[dims])):
        xt = T.tensor(x, requires_grad=True)
        out, where = pool(xt, kernel_size, return_indices=True, _random_samples=T.tensor(samples), **kwargs)
        upstream = np.random.default_rng(5).standard_normal(tuple(out.shape)).astype(x.dtype)
        out.backward(T.tensor(upstream))
        results.append((_np(out), _np(where), _np(xt.grad)))
    return results


POOL_CASES = {
    "2d batched, output_size": (2, (2, 3, 9, 11), (2, 3), {"output_size": (4, 5)}),
    "2d batched, square kernel 3, int output_size": (2, (2, 2, 10, 10), 3, {"output_size": 5}),
    "2d kernel 1": (2, (1, 2, 6, 7), 1, {"output_size": (4, 3)}),
    "2d output fills the input (m + k - 1 = n)": (2, (2, 2, 8, 9), 2, {"output_size": (7, 8)}),
    "2d output size 1": (2, (1, 3, 5, 6), (2, 2), {"output_size": 1}),
    "2d output_ratio": (2, (2, 3, 12, 10), 2, {"output_ratio": (0.5, 0.6)}),
    "2d output_ratio as a list": (2, (2, 1, 9, 9), (3, 2), {"output_ratio": [0.4, 0.75]}),
    "2d unbatched": (2, (3, 9, 8), 2, {"output_size": (5, 4)}),
    "2d unbatched, output_ratio": (2, (2, 11, 7), (2, 3), {"output_ratio": (0.5, 0.5)}),
    "3d batched, output_size": (3, (2, 2, 6, 7, 8), (2, 3, 2), {"output_size": (3, 3, 4)}),
    "3d cubic kernel, int output_size": (3, (1, 3, 7, 7, 7), 2, {"output_size": 4}),
    "3d largest fitting output (m + k - 1 = n - 1)": (3, (1, 2, 6, 7, 8), 2, {"output_size": (4, 5, 6)}),
    "3d output_ratio": (3, (2, 2, 8, 6, 9), 2, {"output_ratio": (0.5, 0.5, 0.4)}),
    "3d output_ratio one number": (3, (1, 2, 8, 8, 8), (1, 2, 3), {"output_ratio": 0.5}),
    "3d unbatched": (3, (2, 6, 7, 5), (2, 2, 1), {"output_size": (3, 4, 2)}),
}


@pytest.mark.parametrize("name", POOL_CASES)
def test_fractional_max_pool_matches_torch(name):
    dims, shape, kernel, kwargs = POOL_CASES[name]
    x = _rng.standard_normal(shape)
    (ours, where, grad), (theirs, their_where, their_grad) = _pool_both(dims, x, _samples(x, dims), kernel, **kwargs)
    assert ours.shape == theirs.shape and where.dtype == their_where.dtype == np.int64
    np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(where, their_where)
    np.testing.assert_allclose(grad, their_grad, rtol=1e-14, atol=0)


@pytest.mark.parametrize("dims", [2, 3])
def test_ties_nans_and_minus_infinity_pick_torchs_element(dims):
    """Few distinct values (many ties, overlapping windows whose gradients add up), NaNs and a window of -inf:
    the element chosen is torch's (the first largest in scan order, the last NaN, the first of all -inf)."""
    shape = (2, 2, 9, 10) if dims == 2 else (2, 2, 7, 8, 9)
    x = _rng.integers(0, 3, shape).astype(np.float64)
    (ours, where, grad), (theirs, their_where, their_grad) = _pool_both(dims, x, _samples(x, dims), 3, output_size=4)
    np.testing.assert_array_equal(where, their_where)
    np.testing.assert_array_equal(grad, their_grad)
    x[0, 0].flat[[3, 5, 12, 13, 40]] = np.nan
    x[1, 1] = -np.inf
    (ours, where, grad), (theirs, their_where, their_grad) = _pool_both(dims, x, _samples(x, dims), 3, output_size=4)
    np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(where, their_where)
    np.testing.assert_array_equal(grad, their_grad)


# u's for which (i + u) * alpha rounds to the other side of an integer in float32 than in float64 (found by search:
# n=41, k=3, m=13 with u=0.36842095851898193; n=29 with 0.23076915740966797; n=23 with 0.19999989867210388)
_FLOAT32_SENSITIVE = {2: ((1, 2, 41, 23), (0.19999989867210388, 0.36842095851898193)),
                      3: ((1, 2, 41, 29, 23), (0.36842095851898193, 0.23076915740966797, 0.19999989867210388))}


@pytest.mark.parametrize("dims", [2, 3])
def test_the_steps_are_computed_in_float32_for_float32(dims):
    """The starts' formula runs in the input's dtype: float32 samples give torch's float32 windows, which here
    differ from what the same u's give in float64."""
    shape, sensitive = _FLOAT32_SENSITIVE[dims]
    x = _rng.standard_normal(shape).astype(np.float32)
    samples = _samples(x, dims, np.float32)
    samples[0, 0] = sensitive
    (ours, where, grad), (theirs, their_where, their_grad) = _pool_both(dims, x, samples, 3, output_size=13)
    np.testing.assert_array_equal(where, their_where)
    np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_allclose(grad, their_grad, rtol=1e-6)
    in_float64 = THEIRS[dims](torch.tensor(x.astype(np.float64)), 3, 13, return_indices=True,
                              _random_samples=torch.tensor(samples.astype(np.float64)))[1]
    assert (_np(in_float64) != their_where).any()   # (so this test would see a float64 formula)


def test_second_derivative_matches_torch():
    """The pooling is a gather, so the gradient of the gradient (w.r.t. the upstream gradient) is too."""
    x = _rng.standard_normal((2, 2, 8, 9))
    samples, v = _samples(x, 2), _rng.standard_normal((2, 2, 8, 9))
    results = []
    for T in (ag, torch):
        xt = T.tensor(x, requires_grad=True)
        out = T.nn.functional.tanh(
            OURS[2](xt, 2, (4, 5), _random_samples=T.tensor(samples)) if T is ag else
            THEIRS[2](xt, 2, (4, 5), _random_samples=T.tensor(samples)))
        (g,) = T.autograd.grad((out * out).sum(), xt, create_graph=True)
        (gg,) = T.autograd.grad((g * T.tensor(v)).sum(), xt)
        results.append((_np(g), _np(gg)))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12, atol=1e-14)


def test_with_indices_forms_and_return_indices():
    x = _rng.standard_normal((2, 3, 9, 9))
    s = _samples(x, 2)
    ours = fractional_max_pool2d_with_indices(ag.tensor(x), 2, (4, 4), _random_samples=ag.tensor(s))
    theirs = torch.nn.functional.fractional_max_pool2d_with_indices(torch.tensor(x), 2, (4, 4),
                                                                     _random_samples=torch.tensor(s))
    assert isinstance(ours, tuple) and len(ours) == 2
    np.testing.assert_array_equal(_np(ours[0]), _np(theirs[0]))
    np.testing.assert_array_equal(_np(ours[1]), _np(theirs[1]))
    alone = fractional_max_pool2d(ag.tensor(x), 2, (4, 4), _random_samples=ag.tensor(s))
    assert isinstance(alone, ag.Tensor)
    np.testing.assert_array_equal(_np(alone), _np(theirs[0]))
    x5 = _rng.standard_normal((1, 2, 6, 6, 6))
    s5 = _samples(x5, 3)
    ours = fractional_max_pool3d_with_indices(ag.tensor(x5), 2, 3, _random_samples=ag.tensor(s5))
    theirs = torch.nn.functional.fractional_max_pool3d_with_indices(torch.tensor(x5), 2, 3,
                                                                     _random_samples=torch.tensor(s5))
    np.testing.assert_array_equal(_np(ours[1]), _np(theirs[1]))
    assert isinstance(fractional_max_pool3d(ag.tensor(x5), 2, 3, _random_samples=ag.tensor(s5)), ag.Tensor)


def test_more_samples_than_the_batch_uses_the_first_rows():
    x = _rng.standard_normal((2, 2, 8, 8))
    s = _rng.random((5, 2, 2))
    ours = fractional_max_pool2d(ag.tensor(x), 2, 4, return_indices=True, _random_samples=ag.tensor(s))
    theirs = THEIRS[2](torch.tensor(x), 2, 4, return_indices=True, _random_samples=torch.tensor(s))
    np.testing.assert_array_equal(_np(ours[1]), _np(theirs[1]))


def test_empty_batch_and_empty_output():
    x = _rng.standard_normal((0, 2, 8, 8))
    no_samples = np.zeros((0, 2, 2))
    out = fractional_max_pool2d(ag.tensor(x), 2, 4, _random_samples=ag.tensor(no_samples))
    theirs = THEIRS[2](torch.tensor(x), 2, 4, _random_samples=torch.tensor(no_samples))
    assert tuple(out.shape) == tuple(theirs.shape) == (0, 2, 4, 4)
    x = _rng.standard_normal((1, 2, 8, 8))
    out = fractional_max_pool2d(ag.tensor(x), 2, 0, _random_samples=ag.tensor(_samples(x, 2)))
    assert tuple(out.shape) == (1, 2, 0, 0)
    x = _rng.standard_normal((1, 2, 5, 5, 5))
    out = fractional_max_pool3d(ag.tensor(x), 2, 0, _random_samples=ag.tensor(_samples(x, 3)))
    assert tuple(out.shape) == (1, 2, 0, 0, 0)


MODULE_CASES = {
    "FractionalMaxPool2d output_size": (2, (2, 3, 10, 9), lambda T, s: T.nn.FractionalMaxPool2d(
        3, output_size=(5, 4), return_indices=True, _random_samples=s)),
    "FractionalMaxPool2d output_ratio one number": (2, (2, 2, 12, 12), lambda T, s: T.nn.FractionalMaxPool2d(
        (2, 3), output_ratio=0.5, return_indices=True, _random_samples=s)),
    "FractionalMaxPool2d unbatched": (2, (3, 9, 9), lambda T, s: T.nn.FractionalMaxPool2d(
        2, output_size=4, return_indices=True, _random_samples=s)),
    "FractionalMaxPool3d output_size": (3, (2, 2, 7, 6, 8), lambda T, s: T.nn.FractionalMaxPool3d(
        2, output_size=(3, 3, 4), return_indices=True, _random_samples=s)),
    "FractionalMaxPool3d output_ratio": (3, (1, 2, 8, 8, 10), lambda T, s: T.nn.FractionalMaxPool3d(
        (2, 2, 3), output_ratio=(0.5, 0.4, 0.5), return_indices=True, _random_samples=s)),
}

OUR_MODULES = type("OurModules", (), {"FractionalMaxPool2d": FractionalMaxPool2d,
                                      "FractionalMaxPool3d": FractionalMaxPool3d})


@pytest.mark.parametrize("name", MODULE_CASES)
def test_modules_match_torch(name):
    dims, shape, make = MODULE_CASES[name]
    x = _rng.standard_normal(shape)
    s = _samples(x, dims)
    results = []
    for T, nn in ((ag, OUR_MODULES), (torch, torch.nn)):
        pool = make(type("T", (), {"nn": nn}), T.tensor(s))
        xt = T.tensor(x, requires_grad=True)
        out, where = pool(xt)
        out.backward(T.tensor(np.random.default_rng(2).standard_normal(tuple(out.shape))))
        results.append((_np(out), _np(where), _np(xt.grad), list(pool.state_dict()), pool.kernel_size,
                        pool.output_size, pool.output_ratio, repr(pool)))
    for ours, theirs in zip(*results):
        if isinstance(ours, np.ndarray):
            np.testing.assert_array_equal(ours, theirs)
        else:
            assert ours == theirs


def test_module_without_samples_has_no_buffer_in_its_state_dict():
    for T, nn in ((ag, OUR_MODULES), (torch, torch.nn)):
        pool = nn.FractionalMaxPool2d(2, output_size=3)
        assert list(pool.state_dict()) == [] and pool._random_samples is None
        assert tuple(pool(T.tensor(_rng.standard_normal((2, 3, 8, 8)))).shape) == (2, 3, 3, 3)


@pytest.mark.parametrize("dims", [2, 3])
def test_drawn_samples_come_from_the_librarys_generator(dims):
    """Without ``_random_samples``: ``rand(N, C, dims)`` from the library's generator, so the same seed gives the
    same regions, and those u's given to torch give torch's regions (values and indices)."""
    shape = (2, 3, 13, 11) if dims == 2 else (2, 2, 9, 8, 10)
    x = ag.tensor(_rng.standard_normal(shape))
    ag.manual_seed(123)
    first, first_where = OURS[dims](x, 2, output_size=5, return_indices=True)
    ag.manual_seed(123)
    again, again_where = OURS[dims](x, 2, output_size=5, return_indices=True)
    np.testing.assert_array_equal(_np(first_where), _np(again_where))
    np.testing.assert_array_equal(_np(first), _np(again))
    ag.manual_seed(123)
    drawn = ag.rand(shape[0], shape[1], dims, dtype=ag.float64)
    theirs, their_where = THEIRS[dims](torch.tensor(_np(x)), 2, output_size=5, return_indices=True,
                                       _random_samples=torch.tensor(_np(drawn)))
    np.testing.assert_array_equal(_np(first_where), _np(their_where))
    np.testing.assert_array_equal(_np(first), _np(theirs))
    different = [_np(OURS[dims](x, 2, output_size=5, return_indices=True)[1]) for _ in range(5)]
    assert any((d != _np(first_where)).any() for d in different)


@pytest.mark.parametrize("dims", [2, 3])
def test_drawn_regions_cover_the_input_as_torchs_do(dims):
    """An increasing input puts each window's maximum at its last element, so the indices show the starts: the
    first window starts at 0, the last ends at the last element, and the steps are floor or ceil of
    alpha = (n - k) / (m - 1), as torch's. The unbatched form draws one row of samples."""
    sizes, kernel, out = ((23, 17), (3, 2), (8, 6)) if dims == 2 else ((11, 13, 9), (2, 3, 2), (5, 4, 4))
    plane = int(np.prod(sizes))
    for T, pool in ((ag, OURS[dims]), (torch, THEIRS[dims])):
        T.manual_seed(7)
        for shape in ((3, 2) + sizes, (2,) + sizes):
            x = T.arange(int(np.prod(shape)), dtype=T.float64).reshape(shape)
            values, where = pool(x, kernel, out, return_indices=True)
            where = _np(where).reshape((-1,) + out)
            assert tuple(values.shape) == shape[:-dims] + out
            np.testing.assert_array_equal(_np(values).reshape(where.shape) % plane, where)
            places = np.unravel_index(where, sizes)        # each pooled dim's coordinate of every maximum
            for d, (n, k, m) in enumerate(zip(sizes, kernel, out)):
                lines = np.moveaxis(places[d], d + 1, -1).reshape(-1, m) - (k - 1)   # the starts along dim d
                alpha = (n - k) / (m - 1)
                assert (lines[:, 0] == 0).all() and (lines[:, -1] == n - k).all(), T.__name__
                assert np.isin(np.diff(lines, axis=1), [np.floor(alpha), np.ceil(alpha)]).all(), T.__name__


X4 = _rng.standard_normal((2, 3, 8, 9))
S4 = _rng.random((2, 3, 2))
X5 = _rng.standard_normal((2, 3, 6, 7, 8))
S5 = _rng.random((2, 3, 3))

POOL_REFUSALS = {
    "no output_size nor output_ratio": lambda T, x, s: T.nn.functional.fractional_max_pool2d(x, 2),
    "output_ratio of three": lambda T, x, s: T.nn.functional.fractional_max_pool2d(x, 2, output_ratio=(.5, .5, .5)),
    "2-d output_ratio one number (torch takes its len)":
        lambda T, x, s: T.nn.functional.fractional_max_pool2d(x, 2, output_ratio=0.5),
    "output_ratio of one": lambda T, x, s: T.nn.functional.fractional_max_pool2d(x, 2, output_ratio=(0.5,)),
    "output_ratio past 1: too large": lambda T, x, s: T.nn.functional.fractional_max_pool2d(
        x, 2, output_ratio=(1.5, 1.5), _random_samples=s),
    "output too large": lambda T, x, s: T.nn.functional.fractional_max_pool2d(x, 2, 8, _random_samples=s),
    "kernel too large": lambda T, x, s: T.nn.functional.fractional_max_pool2d(x, (8, 2), 2, _random_samples=s),
    "kernel of three": lambda T, x, s: T.nn.functional.fractional_max_pool2d(x, (2, 2, 2), 3, _random_samples=s),
    "kernel of one": lambda T, x, s: T.nn.functional.fractional_max_pool2d(x, (2,), 3, _random_samples=s),
    "float kernel": lambda T, x, s: T.nn.functional.fractional_max_pool2d(x, 2.0, 3, _random_samples=s),
    "output of three": lambda T, x, s: T.nn.functional.fractional_max_pool2d(x, 2, (3, 3, 3), _random_samples=s),
    "float output": lambda T, x, s: T.nn.functional.fractional_max_pool2d(x, 2, 3.0, _random_samples=s),
    "None in the output size": lambda T, x, s: T.nn.functional.fractional_max_pool2d(x, 2, (None, 3),
                                                                                    _random_samples=s),
    "negative output": lambda T, x, s: T.nn.functional.fractional_max_pool2d(x, 2, -1, _random_samples=s),
    "5-d input": lambda T, x, s: T.nn.functional.fractional_max_pool2d(x[None], 2, 3, _random_samples=s),
    "2-d input with samples": lambda T, x, s: T.nn.functional.fractional_max_pool2d(x[0, 0], 2, 3,
                                                                                   _random_samples=s),
    "2-d input, samples drawn": lambda T, x, s: T.nn.functional.fractional_max_pool2d(x[0, 0], 2, 3),
    "no channels": lambda T, x, s: T.nn.functional.fractional_max_pool2d(x[:, :0], 2, 3, _random_samples=s[:, :0]),
    "empty height": lambda T, x, s: T.nn.functional.fractional_max_pool2d(x[:, :, :0], 2, 3, _random_samples=s),
    "samples of another dtype": lambda T, x, s: T.nn.functional.fractional_max_pool2d(
        x, 2, 3, _random_samples=s.float()),
    "samples of 2 dims": lambda T, x, s: T.nn.functional.fractional_max_pool2d(x, 2, 3, _random_samples=s[0]),
    "samples for fewer in the batch": lambda T, x, s: T.nn.functional.fractional_max_pool2d(
        x, 2, 3, _random_samples=s[:1]),
    "samples for other channels": lambda T, x, s: T.nn.functional.fractional_max_pool2d(
        x, 2, 3, _random_samples=s[:, :2]),
    "samples of 3 per channel": lambda T, x, s: T.nn.functional.fractional_max_pool2d(
        x, 2, 3, _random_samples=T.cat([s, s[..., :1]], -1)),
    "samples a list": lambda T, x, s: T.nn.functional.fractional_max_pool2d(x, 2, 3, _random_samples=[[[.1, .2]]]),
    "unbatched, samples without their batch dim": lambda T, x, s: T.nn.functional.fractional_max_pool2d(
        x[0], 2, 3, _random_samples=s[0]),
    "integer input, samples drawn": lambda T, x, s: T.nn.functional.fractional_max_pool2d(x.long(), 2, 3),
    "integer input, float samples": lambda T, x, s: T.nn.functional.fractional_max_pool2d(x.long(), 2, 3,
                                                                                         _random_samples=s),
    "integer input, integer samples": lambda T, x, s: T.nn.functional.fractional_max_pool2d(
        x.long(), 2, 3, _random_samples=s.long()),
    "module: neither size": lambda T, x, s: T.nn.FractionalMaxPool2d(2),
    "module: both sizes": lambda T, x, s: T.nn.FractionalMaxPool2d(2, output_size=3, output_ratio=0.5),
    "module: ratio 1": lambda T, x, s: T.nn.FractionalMaxPool2d(2, output_ratio=1.0),
    "module: ratio 0": lambda T, x, s: T.nn.FractionalMaxPool2d(2, output_ratio=(0.5, 0.0)),
    "module: ratio of one": lambda T, x, s: T.nn.FractionalMaxPool2d(2, output_ratio=(0.5,)),
    "module: too large an output": lambda T, x, s: T.nn.FractionalMaxPool2d(2, output_size=9)(x),
}

POOL3D_REFUSALS = {
    "no size": lambda T, x, s: T.nn.functional.fractional_max_pool3d(x, 2),
    "output_ratio of two": lambda T, x, s: T.nn.functional.fractional_max_pool3d(x, 2, output_ratio=(.5, .5),
                                                                                 _random_samples=s),
    "strict fit: m + k - 1 = n": lambda T, x, s: T.nn.functional.fractional_max_pool3d(x, 2, (5, 2, 2),
                                                                                        _random_samples=s),
    "strict fit in the width": lambda T, x, s: T.nn.functional.fractional_max_pool3d(x, 2, (2, 2, 7),
                                                                                     _random_samples=s),
    "kernel of two": lambda T, x, s: T.nn.functional.fractional_max_pool3d(x, (2, 2), 3, _random_samples=s),
    "output of two": lambda T, x, s: T.nn.functional.fractional_max_pool3d(x, 2, (3, 3), _random_samples=s),
    "3-d input, samples drawn": lambda T, x, s: T.nn.functional.fractional_max_pool3d(x[0, 0], 2, 2),
    "3-d input with samples": lambda T, x, s: T.nn.functional.fractional_max_pool3d(x[0, 0], 2, 2,
                                                                                   _random_samples=s),
    "empty depth": lambda T, x, s: T.nn.functional.fractional_max_pool3d(x[:, :, :0], 2, 2, _random_samples=s),
    "samples of 2 per channel": lambda T, x, s: T.nn.functional.fractional_max_pool3d(
        x, 2, 3, _random_samples=s[..., :2]),
    "samples for fewer in the batch": lambda T, x, s: T.nn.functional.fractional_max_pool3d(
        x, 2, 3, _random_samples=s[:1]),
    "samples of another dtype": lambda T, x, s: T.nn.functional.fractional_max_pool3d(
        x, 2, 3, _random_samples=s.float()),
    "integer input": lambda T, x, s: T.nn.functional.fractional_max_pool3d(x.long(), 2, 3),
    "module: kernel 0": lambda T, x, s: T.nn.FractionalMaxPool3d(0, output_size=2),
    "module: a kernel of (2, 0, 2)": lambda T, x, s: T.nn.FractionalMaxPool3d((2, 0, 2), output_size=2),
    "module: neither size": lambda T, x, s: T.nn.FractionalMaxPool3d(2),
    "module: both sizes": lambda T, x, s: T.nn.FractionalMaxPool3d(2, output_size=2, output_ratio=0.5),
    "module: ratio past 1": lambda T, x, s: T.nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.5, 1.5)),
}


class _Ours:
    """``T.nn.functional.fractional_max_pool*`` / ``T.nn.FractionalMaxPool*`` and ``T.cat`` for our modules."""
    cat = staticmethod(ag.cat)
    nn = type("nn", (), {"FractionalMaxPool2d": FractionalMaxPool2d, "FractionalMaxPool3d": FractionalMaxPool3d,
                         "functional": type("F", (), {"fractional_max_pool2d": staticmethod(fractional_max_pool2d),
                                                      "fractional_max_pool3d": staticmethod(fractional_max_pool3d)})})


@pytest.mark.parametrize("name", POOL_REFUSALS)
def test_fractional_max_pool2d_refusals(name):
    call = POOL_REFUSALS[name]
    both_raise(lambda: call(_Ours, ag.tensor(X4), ag.tensor(S4)), lambda: call(torch, torch.tensor(X4),
                                                                                torch.tensor(S4)))


@pytest.mark.parametrize("name", POOL3D_REFUSALS)
def test_fractional_max_pool3d_refusals(name):
    call = POOL3D_REFUSALS[name]
    both_raise(lambda: call(_Ours, ag.tensor(X5), ag.tensor(S5)), lambda: call(torch, torch.tensor(X5),
                                                                                torch.tensor(S5)))


def test_a_kernel_of_zero_is_refused():
    """Torch (2.13) accepts a kernel of 0 or less in the functions and reads past its empty windows (-inf values,
    indices outside the input): refused here."""
    for k in (0, -1, (2, 0)):
        with pytest.raises(RuntimeError, match="kernel_size"):
            fractional_max_pool2d(ag.tensor(X4), k, 3, _random_samples=ag.tensor(S4))
    with pytest.raises(RuntimeError, match="kernel_size"):
        fractional_max_pool3d(ag.tensor(X5), (1, 0, 1), 2, _random_samples=ag.tensor(S5))


# -- adaptive softmax ---------------------------------------------------------------------------------------------

def _pair_of_models(in_features=8, n_classes=10, cutoffs=(3, 6), div_value=4.0, head_bias=False, edit=None):
    """Torch's model as it initialises itself (float64), and ours with its state dict loaded through NumPy;
    ``edit(name, array)`` may change a parameter first."""
    torch.manual_seed(11)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # (torch warns about initialising the zero-size Linears)
        theirs = torch.nn.AdaptiveLogSoftmaxWithLoss(in_features, n_classes, cutoffs, div_value, head_bias,
                                                     dtype=torch.float64)
    state = {name: value.numpy().copy() for name, value in theirs.state_dict().items()}
    if edit is not None:
        for name in state:
            state[name] = edit(name, state[name])
        theirs.load_state_dict({name: torch.tensor(value) for name, value in state.items()})
    ours = AdaptiveLogSoftmaxWithLoss(in_features, n_classes, cutoffs, div_value, head_bias, dtype=ag.float64)
    assert list(ours.state_dict()) == list(state)
    ours.load_state_dict({name: ag.tensor(value) for name, value in state.items()})
    return ours, theirs


ASM_CASES = {
    "two clusters, no head bias": ({"cutoffs": (3, 6)}, [0, 4, 9, 2, 7, 5, 3, 3]),
    "head bias, three clusters, div 1.5": ({"cutoffs": [2, 5, 8], "div_value": 1.5, "head_bias": True},
                                           [9, 1, 5, 8, 0, 4, 2, 6]),
    "zero-width projections (8 // 4^2 = 0)": ({"cutoffs": (3, 5, 9), "head_bias": True}, [0, 3, 5, 9, 4, 8, 1, 6]),
    "one cluster, all targets in it": ({"cutoffs": [4], "n_classes": 7}, [4, 5, 6, 6, 4, 5, 5, 4]),
    "all targets in the shortlist": ({"cutoffs": (5, 8), "in_features": 6}, [0, 1, 2, 3, 4, 0, 1, 2]),
    "batch of one": ({"cutoffs": (3, 6)}, [7]),
}


@pytest.mark.parametrize("name", ASM_CASES)
def test_adaptive_softmax_matches_torch(name):
    kwargs, target = ASM_CASES[name]
    ours, theirs = _pair_of_models(**kwargs)
    x = _rng.standard_normal((len(target), ours.in_features)) * 2
    results = []
    for T, model in ((ag, ours), (torch, theirs)):
        xt = T.tensor(x, requires_grad=True)
        result = model(xt, T.tensor(np.array(target)))
        assert type(result).__name__ == "_ASMoutput" and result._fields == ("output", "loss")
        result.loss.backward()
        grads = {n: None if p.grad is None else _np(p.grad) for n, p in model.named_parameters()}
        results.append((_np(result.output), _np(result.loss), _np(xt.grad), grads,
                        _np(model.log_prob(T.tensor(x))), _np(model.predict(T.tensor(x)))))
    (out, loss, x_grad, grads, log_prob, predicted), (t_out, t_loss, t_x_grad, t_grads, t_log_prob, t_pred) = results
    assert out.shape == t_out.shape and loss.shape == t_loss.shape == ()
    np.testing.assert_allclose(out, t_out, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(loss, t_loss, rtol=1e-13)
    np.testing.assert_allclose(x_grad, t_x_grad, rtol=1e-12, atol=1e-15)
    assert list(grads) == list(t_grads)
    for n in grads:
        if t_grads[n] is None:   # (a cluster no target is in)
            assert grads[n] is None, n
            continue
        assert grads[n].shape == t_grads[n].shape
        np.testing.assert_allclose(grads[n], t_grads[n], rtol=1e-12, atol=1e-15, err_msg=n)
    np.testing.assert_allclose(log_prob, t_log_prob, rtol=1e-13, atol=1e-14)
    np.testing.assert_array_equal(predicted, t_pred)
    assert predicted.dtype == np.int64
    for attribute in ("in_features", "n_classes", "cutoffs", "div_value", "head_bias", "shortlist_size",
                      "n_clusters", "head_size"):
        assert getattr(ours, attribute) == getattr(theirs, attribute), attribute
    assert repr(ours) == repr(theirs)


def test_adaptive_softmax_unbatched_and_int32_targets():
    ours, theirs = _pair_of_models(cutoffs=(3, 6), head_bias=True)
    x = _rng.standard_normal(8)
    for target in (1, 5, 9):
        results = []
        for T, model in ((ag, ours), (torch, theirs)):
            model.zero_grad()
            xt = T.tensor(x, requires_grad=True)
            result = model(xt, T.tensor(target))
            result.loss.backward()
            results.append((_np(result.output), _np(result.loss), _np(xt.grad),
                            [_np(p.grad) for p in model.parameters() if p.grad is not None]))
        (out, loss, x_grad, grads), (t_out, t_loss, t_x_grad, t_grads) = results
        assert out.shape == t_out.shape == ()
        np.testing.assert_allclose(out, t_out, rtol=1e-13)
        np.testing.assert_allclose(loss, t_loss, rtol=1e-13)
        np.testing.assert_allclose(x_grad, t_x_grad, rtol=1e-12, atol=1e-15)
        assert len(grads) == len(t_grads)
        for g, t_g in zip(grads, t_grads):
            np.testing.assert_allclose(g, t_g, rtol=1e-12, atol=1e-15)
    x = _rng.standard_normal((4, 8))
    target = np.array([0, 9, 4, 2], dtype=np.int32)
    np.testing.assert_allclose(_np(ours(ag.tensor(x), ag.tensor(target)).output),
                               _np(theirs(torch.tensor(x), torch.tensor(target)).output), rtol=1e-13)


@pytest.mark.parametrize("where", ["shortlist", "clusters", "mixed"])
def test_adaptive_softmax_predict_paths(where):
    """predict's three paths in torch: every row's head picks the shortlist, every row a cluster, or some."""
    def edit(name, value):
        if name == "head.bias":
            value = value.copy()
            if where == "shortlist":
                value[:3] += 50.0
            elif where == "clusters":
                value[3:] += 50.0
        return value
    ours, theirs = _pair_of_models(cutoffs=(3, 6), head_bias=True, edit=edit)
    x = _rng.standard_normal((12, 8)) * 4
    predicted, t_predicted = _np(ours.predict(ag.tensor(x))), _np(theirs.predict(torch.tensor(x)))
    np.testing.assert_array_equal(predicted, t_predicted)
    inside = predicted < 3
    assert inside.all() if where == "shortlist" else (~inside).all() if where == "clusters" else 0 < inside.sum() < 12
    np.testing.assert_array_equal(predicted, _np(theirs.log_prob(torch.tensor(x)).argmax(1)))


def test_adaptive_softmax_default_init_and_reset():
    """Made with the library's defaults (no dtype): Linear's initialisation ranges and torch's shapes; an empty
    batch gives an empty output and a NaN loss, as torch's."""
    model = AdaptiveLogSoftmaxWithLoss(16, 20, [4, 10], div_value=2.0, head_bias=True)
    shapes = {n: tuple(p.shape) for n, p in model.named_parameters()}
    assert shapes == {"head.weight": (6, 16), "head.bias": (6,), "tail.0.0.weight": (8, 16),
                      "tail.0.1.weight": (6, 8), "tail.1.0.weight": (4, 16), "tail.1.1.weight": (10, 4)}
    before = _np(model.tail[1][1].weight).copy()
    assert np.abs(before).max() <= 1 / np.sqrt(4)
    model.reset_parameters()
    assert (_np(model.tail[1][1].weight) != before).any()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = model(ag.zeros(0, 16), ag.zeros(0, dtype=ag.int64))
    assert tuple(result.output.shape) == (0,) and np.isnan(_np(result.loss))
    assert tuple(model.log_prob(ag.zeros(0, 16)).shape) == (0, 20)
    assert tuple(model.predict(ag.zeros(0, 16)).shape) == (0,)


ASM_REFUSALS = {
    "no cutoffs": lambda T, m, x: T.nn.AdaptiveLogSoftmaxWithLoss(8, 10, []),
    "unsorted cutoffs": lambda T, m, x: T.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [5, 3]),
    "a cutoff of 0": lambda T, m, x: T.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [0, 3]),
    "a cutoff of n_classes": lambda T, m, x: T.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 10]),
    "repeated cutoffs": lambda T, m, x: T.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 3]),
    "a fractional cutoff": lambda T, m, x: T.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3.5]),
    "a float cutoff": lambda T, m, x: T.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3.0]),
    "cutoffs an int": lambda T, m, x: T.nn.AdaptiveLogSoftmaxWithLoss(8, 10, 3),
    "a string cutoff": lambda T, m, x: T.nn.AdaptiveLogSoftmaxWithLoss(8, 10, "3"),
    "one class": lambda T, m, x: T.nn.AdaptiveLogSoftmaxWithLoss(8, 1, [1]),
    "a target of n_classes": lambda T, m, x: m(x, T.tensor([0, 4, 10, 2])),
    "a negative target": lambda T, m, x: m(x, T.tensor([0, -1, 3, 2])),
    "unbatched target out of range": lambda T, m, x: m(x[0], T.tensor(10)),
    "batch sizes differ": lambda T, m, x: m(x, T.tensor([0, 1, 2])),
    "3-d input": lambda T, m, x: m(x[None], T.tensor([1])),
    "1-d input with a 1-d target": lambda T, m, x: m(x[0], T.tensor([1, 2, 3, 4, 5, 6, 7, 8])),
    "2-d input with a 0-d target": lambda T, m, x: m(x, T.tensor(1)),
    "2-d target": lambda T, m, x: m(x, T.tensor([[0, 1, 2, 3]])),
    "float target": lambda T, m, x: m(x, T.tensor([0.0, 1.0, 2.0, 3.0], dtype=T.float64)),
    "float target in a cluster": lambda T, m, x: m(x, T.tensor([0.0, 1.0, 5.0, 3.0], dtype=T.float64)),
    "int16 target": lambda T, m, x: m(x, T.tensor([0, 1, 2, 3], dtype=T.int16)),
    "bool target": lambda T, m, x: m(x, T.tensor([True, False, True, True])),
    "wrong number of features": lambda T, m, x: m(x[:, :7], T.tensor([0, 4, 9, 2])),
    "float32 input, float64 model": lambda T, m, x: m(x.float(), T.tensor([0, 4, 9, 2])),
    "log_prob unbatched": lambda T, m, x: m.log_prob(x[0]),
    "predict unbatched": lambda T, m, x: m.predict(x[0]),
    "log_prob of 3 dims": lambda T, m, x: m.log_prob(x[None]),
    "log_prob wrong features": lambda T, m, x: m.log_prob(x[:, :5]),
}


@pytest.mark.parametrize("name", ASM_REFUSALS)
def test_adaptive_softmax_refusals(name):
    ours, theirs = _pair_of_models(cutoffs=(3, 6))
    x = _rng.standard_normal((4, 8))
    our_nn = type("T", (), {"nn": type("nn", (), {"AdaptiveLogSoftmaxWithLoss": AdaptiveLogSoftmaxWithLoss}),
                            "tensor": staticmethod(ag.tensor), "float64": ag.float64, "int16": ag.int16})
    call = ASM_REFUSALS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both_raise(lambda: call(our_nn, ours, ag.tensor(x)), lambda: call(torch, theirs, torch.tensor(x)))
