"""Reductions against torch 2.13: what a differential check of about 6,400 cases found wrong, each fixed and
checked side by side."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import import_torch
from torch_compare import same_results

import autogradlab as ag

torch = import_torch()


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
    lambda T: T.cumprod(T.tensor([1.0, 2.0, 3.0, 100.0], dtype=T.float16), 0),
    lambda T: T.cumprod(T.tensor([1, 2, 3, 100]), 0, dtype=T.int8),
    lambda T: T.ones(3, 4, dtype=T.float64).std(dim=0, correction=None),
], ids=["cumsum of a million 0.1s", "cumsum past float32's largest", "cumprod below float32's smallest",
        "cumprod of float16", "cumprod dtype=int8", "std correction=None"])
def test_running_sums_and_products_are_torchs(call):
    """float32 running sums and products accumulate in float64 and round each result once, as torch's CPU
    kernels (the million 0.1s came to 100958); cumprod keeps the dtype it is given."""
    same_results(call, rtol=0)
