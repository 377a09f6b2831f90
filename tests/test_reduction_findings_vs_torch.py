"""Reductions against torch 2.13: what a differential check of about 6,400 cases found wrong, each fixed and
checked side by side."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import import_torch
from torch_compare import same_results

import autogradlab as ag

torch = import_torch()


def _parts(z):
    return z.real.clone(), z.imag.clone()


def _halves(T, n):
    return T.tensor(np.where(np.arange(n) % 2 == 0, 1.0, 0.5).astype(np.float16), requires_grad=True)


@pytest.mark.parametrize("n", [1000, 70000])
@pytest.mark.parametrize("op", ["var", "std", "nanmean", "mean"])
def test_float16_statistics_of_more_than_65504_elements_are_not_zero(op, n):
    """The count became inf in float16 (past 65504): var, std and nanmean were 0, and so was mean's gradient."""
    def run(T):
        x = _halves(T, n)
        y = x.var() if op == "var" else x.std() if op == "std" else T.nanmean(x) if op == "nanmean" else x.mean()
        (g,) = T.autograd.grad(y, [x])
        return y.detach(), g[:4]
    same_results(run, rtol=0)


@pytest.mark.parametrize("call", [
    lambda T: T.cumsum(T.full((10**6,), 0.1), 0)[-4:],
    lambda T: T.cumsum(T.tensor([3e38, 3e38, -3e38]), 0),
    lambda T: T.cumprod(T.tensor([1e-30, 1e-30, 1e30, 1e30]), 0),
    lambda T: T.cumprod(T.tensor(np.random.default_rng(3).uniform(0.97, 1.03, (8, 1500)).astype(np.float16)), 1),
    lambda T: T.cumsum(T.full((60000,), 0.1, dtype=T.float16), 0),
    lambda T: _parts(T.cumsum(T.tensor((np.random.default_rng(4).normal(size=20000)
                                        + 1j * np.random.default_rng(5).normal(size=20000)).astype(np.complex64)), 0)),
    lambda T: T.cumprod(T.tensor([1, 2, 3, 100]), 0, dtype=T.int8),
    lambda T: T.ones(3, 4, dtype=T.float64).std(dim=0, correction=None),
], ids=["cumsum of a million 0.1s", "cumsum past float32's largest", "cumprod below float32's smallest",
        "cumprod of float16 rows", "cumsum of float16 (once rounded)", "cumsum of complex64", "cumprod dtype=int8",
        "std correction=None"])
def test_running_sums_and_products_are_torchs(call):
    """float32 (complex64) running sums and products accumulate in float64 (complex128), float16 ones in float32,
    and each result is rounded once, as torch's CPU kernels (the million 0.1s came to 100958; float16 went
    through float32 and float64, rounded twice); cumprod keeps the dtype it is given."""
    same_results(call, rtol=0)


@pytest.mark.parametrize("case", ["random rows", "sum past float16's largest"])
def test_float16_nanmean_is_torchs(case):
    """The float16 sum, divided by the count in float32 (the count alone is past float16 at 65504)."""
    def run(T):
        if case == "random rows":
            return T.nanmean(T.tensor(np.random.default_rng(6).normal(size=(500, 300)).astype(np.float16)), 1)
        return T.nanmean(T.full((1000,), 100.0, dtype=T.float16))
    same_results(run, rtol=0)


def test_float16_sinc_is_computed_in_float32():
    """pi * x in float16 lost x's digits: sinc(1) was 3e-4 (torch -0.0) and every |x| past 20860 NaN. The values
    are torch's; the gradient, rounded once from float32, is the true slope (torch's, in float16 steps, is 0 at
    0.001 where the slope is -pi^2 x / 3)."""
    x = np.linspace(-300, 300, 6001).astype(np.float16)
    x = np.concatenate([x, np.array([21000.0, 65504.0, 1e-3], dtype=np.float16)])
    ours, theirs = ag.sinc(ag.tensor(x)), torch.sinc(torch.tensor(x))
    np.testing.assert_array_equal(np.abs(ours.numpy()), np.abs(theirs.numpy()))   # (up to the sign of a zero)
    a = ag.tensor(np.array([1e-3, 88.7], dtype=np.float16), requires_grad=True)
    ag.sinc(a).sum().backward()
    exact = [-np.pi ** 2 * 1e-3 / 3, (np.cos(np.pi * 88.6875) * np.pi * 88.6875 - np.sin(np.pi * 88.6875))
             / (np.pi * 88.6875 ** 2)]
    np.testing.assert_allclose(a.grad.numpy().astype(float), exact, rtol=2e-3)


@pytest.mark.parametrize("n, x", [(1, -1e-8), (1, -1e-20), (2, -2 - 1e-9), (1, -3 + 1e-7), (3, -1.3), (2, -7.25)])
def test_polygamma_just_left_of_a_pole_keeps_its_digits(n, x):
    """cot(pi x) from x - floor(x) rounded the distance to the pole away: polygamma(1, -1e-8) was off by 2e-8
    relative, and at -1e-20 by a factor of 1e7 (digamma's gradient with it). Against mpmath."""
    mpmath = pytest.importorskip("mpmath")
    got = ag.polygamma(n, ag.tensor([x], dtype=ag.float64)).item()
    assert got == pytest.approx(float(mpmath.polygamma(n, mpmath.mpf(x))), rel=1e-13)


@pytest.mark.parametrize("call", [
    lambda T: T.aminmax(T.zeros(0, 3), dim=0), lambda T: T.aminmax(T.zeros(0, 3)),
    lambda T: T.abs(T.tensor([True])), lambda T: T.tensor([True]).abs(),
    lambda T: T.nn.Transformer.generate_square_subsequent_mask(3, dtype=T.int64),
], ids=["aminmax over an empty dim", "aminmax of nothing", "abs of bools", "Tensor.abs of bools",
        "causal mask of int64"])
def test_what_torch_refuses_is_refused_with_its_class(call):
    """aminmax over an empty dim is torch's IndexError and abs of bools its NotImplementedError (both were
    RuntimeError)."""
    from torch_compare import both_raise
    both_raise(lambda: call(ag), lambda: call(torch))


def test_a_bool_causal_mask_is_torchs():
    """generate_square_subsequent_mask(dtype=bool): True above the diagonal (it refused bool)."""
    same_results(lambda T: T.nn.Transformer.generate_square_subsequent_mask(4, dtype=T.bool).to(T.int64), rtol=0)
