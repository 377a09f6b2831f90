"""Helpers for tests that run the same call in autogradlab and in torch and compare what comes out."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import import_torch

import autogradlab as ag


def pair(arr, requires_grad=False):
    """The same data as an autogradlab tensor and a torch tensor (each its own copy)."""
    torch = import_torch()
    arr = np.asarray(arr)
    return (ag.tensor(arr.copy(), requires_grad=requires_grad),
            torch.tensor(arr.copy(), requires_grad=requires_grad))


def run_both(run):
    """``run(T)`` written once against a module ``T``, run with autogradlab and with torch: (ours, theirs)."""
    return run(ag), run(import_torch())


def close_all(ours, theirs, rtol=1e-12, atol=1e-12):
    """Two lists, element by element: :func:`close` where torch's is a tensor, both None where it is None."""
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        if b is None:
            assert a is None
        else:
            close(a, b, rtol=rtol, atol=atol)


def close(ours, theirs, rtol=2e-5, atol=2e-6):
    """Same shape, dtype and values (to float rounding; NaN where NaN)."""
    theirs = theirs.detach()
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
    np.testing.assert_allclose(ours.detach().numpy().astype("float64"), theirs.numpy().astype("float64"),
                               rtol=rtol, atol=atol)


def same_results(call, rtol=1e-6):
    """``call(T)`` with autogradlab and with torch (warnings aside) gives a tensor, or a tuple of them, of the same
    dtypes, shapes and values (to ``rtol``; NaN where NaN)."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = call(ag), call(import_torch())
    ours, theirs = (ours, theirs) if isinstance(ours, tuple) else ((ours,), (theirs,))
    for o, t in zip(ours, theirs, strict=True):
        assert (o.dtype.name, tuple(o.shape)) == (str(t.dtype).removeprefix("torch."), tuple(t.shape))
        np.testing.assert_allclose(np.asarray(o.detach().tolist(), dtype=np.float64),
                                   np.asarray(t.detach().tolist(), dtype=np.float64), rtol=rtol, equal_nan=True)


def both_raise(ours, theirs):
    """``theirs()`` raises; ``ours()`` must raise the same exception class."""
    with pytest.raises(Exception) as caught:   # noqa: PT011  (whatever torch raises, ours must raise the same)
        theirs()
    with pytest.raises(caught.type):
        ours()


def exp_function(T):
    """A custom ``Function`` of module ``T`` (autogradlab or torch): exp, saving its output for the backward."""
    class Exp(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            y, = ctx.saved_tensors
            return g * y
    return Exp
