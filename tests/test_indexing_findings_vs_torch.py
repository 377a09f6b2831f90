"""Indexing and index-based writes against torch 2.13: what a differential check of about 27,000 cases found
wrong, each fixed and checked side by side."""
from __future__ import annotations

import warnings

import pytest
from conftest import import_torch
from torch_compare import both_raise, same_results

import autogradlab as ag

torch = import_torch()


def _mask_fill(T, dtype, value, first):
    y = T.zeros(2, 3, dtype=getattr(T, dtype))
    mask = T.tensor([True, False, True])
    if first == "slice":
        y[:, mask] = value(T)
    else:
        y[0, mask] = value(T)
    return y


@pytest.mark.parametrize("call", [
    # uint8 is torch's old mask, also with accumulate=True (it was read as positions: [5, 10, 0])
    lambda T: T.index_put(T.zeros(3), (T.tensor([1, 0, 1], dtype=T.uint8),), T.tensor(5.0), accumulate=True),
    # one bool mask beside slices or ints and a one-element value of another dtype: a fill, as torch
    lambda T: _mask_fill(T, "float64", lambda T: T.tensor(1.5), "slice"),
    lambda T: _mask_fill(T, "int64", lambda T: T.tensor(2.7), "int"),
], ids=["index_put uint8 accumulate", "mask after a slice, 0-d float32 into float64", "mask after an int, 0-d into int"])
def test_index_writes_are_torchs(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # (torch warns that uint8 indexing is deprecated)
        same_results(call)


def test_writing_a_value_that_requires_grad_into_an_integer_tensor_records_nothing():
    """An integer tensor takes no gradient: t[0] = v made it require grad and sent v a gradient."""
    for T in (ag, torch):
        v = T.tensor([1.5, 2.5], requires_grad=True)
        y = T.tensor([[1, 2], [3, 4]])
        y[0] = v
        z = T.tensor([[1, 2], [3, 4]])
        z[:] = v
        assert not y.requires_grad and y.grad_fn is None and not z.requires_grad, T.__name__
        assert y.tolist() == [[1, 2], [3, 4]] and z.tolist() == [[1, 2], [1, 2]]


@pytest.mark.parametrize("dtype", ["uint8", "int32", "int16"])
def test_put_takes_only_int64_positions(dtype):
    """A uint8 index was read as a mask: [5, 6, 7] for positions [2, 1, 1]."""
    both_raise(lambda: ag.zeros(3).put_(ag.tensor([2, 1, 1], dtype=getattr(ag, dtype)), ag.tensor([5.0, 6.0, 7.0])),
               lambda: torch.zeros(3).put_(torch.tensor([2, 1, 1], dtype=getattr(torch, dtype)),
                                           torch.tensor([5.0, 6.0, 7.0])))
