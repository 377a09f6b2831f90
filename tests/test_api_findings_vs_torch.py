"""A second round of differential checks against torch 2.13: where lab code written here would not run, or
would run differently, under torch. Each finding is fixed and checked side by side with torch."""
import warnings

import numpy as np
import pytest
from conftest import import_torch
from torch_compare import both_raise

import autogradlab as ag

torch = import_torch()


def _values(t):
    return str(t.dtype).removeprefix("torch."), tuple(t.shape), np.asarray(t.detach().tolist(), dtype=np.float64)


def _same(call, rtol=1e-7):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = call(ag), call(torch)
    ours, theirs = (ours, theirs) if isinstance(ours, tuple) else ((ours,), (theirs,))
    for o, t in zip(ours, theirs, strict=True):
        (dtype, shape, values), (tdtype, tshape, tvalues) = _values(o), _values(t)
        assert (dtype, shape) == (tdtype, tshape)
        np.testing.assert_allclose(values, tvalues, rtol=rtol, equal_nan=True)


@pytest.mark.parametrize("index", [slice(None, None, -1), slice(4, 0, -2), slice(None, None, 0),
                                   (slice(None), slice(None, None, -1))])
def test_a_slice_step_below_1_is_refused_in_reads_and_writes_as_torch(index):
    def read(T):
        return T.ones(5, 5)[index]

    def write(T):
        x = T.ones(5, 5)
        x[index] = 2.0
    both_raise(lambda: read(ag), lambda: read(torch))
    x = ag.ones(5, 5, requires_grad=True)
    before = x * 1
    both_raise(lambda: write(ag), lambda: write(torch))
    both_raise(lambda: before.__setitem__(index, 3.0), lambda: torch.ones(5, 5).__setitem__(index, 3.0))
    assert (before.detach().numpy() == 1).all()   # (refused before anything was written)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumsum_gradient_sums_from_the_end_without_a_negative_step_as_torch(dim):
    a = np.random.default_rng(3).normal(size=(3, 4))

    def run(T):
        x = T.tensor(a, requires_grad=True)
        y = x.cumsum(dim)
        (g,) = T.autograd.grad((y * y).sum(), x, create_graph=True)
        (gg,) = T.autograd.grad((g * g).sum(), x)
        return y, g, gg
    _same(run)
