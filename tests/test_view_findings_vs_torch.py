"""What a round of differential fuzzing of indexing, views and in-place writes against torch 2.13 found wrong,
each fixed and checked side by side: an index mixing integers with arrays reads the integers first (as
``select``), a ``...`` spanning no dim parts nothing, a NumPy integer or a 0-d integer tensor is an integer (a
view to write through, not a copy), ``x **= 2`` is in place, and ``v[()] = z`` on a 0-d view records."""
import itertools

import numpy as np
import pytest
from conftest import import_torch
from torch_compare import same_results

import autogradlab as ag

torch = import_torch()

PARTS = {
    "1": lambda T: 1, "-2": lambda T: -2, ":": lambda T: slice(None), "1:3": lambda T: slice(1, 3),
    "None": lambda T: None, "...": lambda T: Ellipsis, "t": lambda T: T.tensor([0, 2, 1]),
    "list": lambda T: [1, 0, 1], "np.int64": lambda T: np.int64(2), "t0": lambda T: T.tensor(1),
    "mask": lambda T: T.tensor([True, False, True, True]),
}
#: every index of two or three parts with at least one integer and one array, and a few of four
MIXED = [combo for k in (2, 3) for combo in itertools.product(PARTS, repeat=k)
         if combo.count("...") <= 1 and any(p in ("1", "-2", "np.int64", "t0") for p in combo)
         and any(p in ("t", "list", "mask") for p in combo)]
MIXED += [("1", ":", "...", "t"), (":", "t", "...", "t"), ("...", "1", ":", "t"), ("t", "None", "1", ":"),
          ("None", "1", "t", "..."), (":", "list", "...", "-2")]


def _index(T, combo):
    return tuple(PARTS[p](T) for p in combo)


@pytest.mark.parametrize("combo", MIXED, ids=[" ".join(c) for c in MIXED])
def test_an_index_mixing_integers_and_arrays_reads_and_writes_as_torch(combo):
    """torch applies the integers first and the arrays to what is left (``x[1, :, t]`` is ``x[1][:, t]``, t's
    dim in place), where NumPy counts the integer as one more array (t's dim first): read, write, gradients."""
    def read(T):
        x = T.tensor(np.arange(120.0).reshape(4, 5, 6), requires_grad=True)
        out = (x * 1)[_index(T, combo)]
        (out * out).sum().backward()
        return out, x.grad

    def write(T):
        x = T.tensor(np.arange(120.0).reshape(4, 5, 6), requires_grad=True)
        y = x * 1
        shape = tuple(y[_index(T, combo)].shape)
        v = T.tensor(np.arange(float(np.prod(shape))).reshape(shape) + 1000, requires_grad=True)
        y[_index(T, combo)] = v * 2
        (y * y).sum().backward()
        return y, x.grad, v.grad
    try:
        torch_shape = (torch.zeros(4, 5, 6)[_index(torch, combo)]).shape
    except (IndexError, RuntimeError):
        with pytest.raises((IndexError, RuntimeError)):
            ag.zeros(4, 5, 6)[_index(ag, combo)]
        return
    assert tuple(ag.zeros(4, 5, 6)[_index(ag, combo)].shape) == tuple(torch_shape)
    same_results(read, rtol=0)
    same_results(write, rtol=0)


def test_an_ellipsis_spanning_no_dim_leaves_the_arrays_side_by_side_as_torch():
    t = [0, 2, 1]
    same_results(lambda T: T.arange(30.0).reshape(5, 6)[T.tensor(t), ..., T.tensor(t)], rtol=0)
    same_results(lambda T: T.arange(120.0).reshape(4, 5, 6)[:, T.tensor(t), ..., T.tensor(t)], rtol=0)


@pytest.mark.parametrize("integer", [lambda T: np.int64(1), lambda T: T.tensor(1), lambda T: np.array(1)],
                         ids=["numpy-int64", "0-d-tensor", "0-d-array"])
def test_a_numpy_integer_or_a_0_d_integer_tensor_indexes_a_view_as_torch(integer):
    """A view: writes through it reach the base and its history, and a leaf that requires grad refuses them."""
    def through_a_view(T):
        x = T.ones(3, 2, requires_grad=True)
        y = x * 2
        y[integer(T)].zero_()
        y[integer(T)] += 5
        (y * y).sum().backward()
        plain = T.ones(3, 2)
        view = plain[integer(T)]
        view.fill_(7)
        return y, x.grad, plain
    same_results(through_a_view, rtol=0)
    with pytest.raises(RuntimeError):
        ag.ones(3, 2, requires_grad=True)[integer(ag)].mul_(5)
    with pytest.raises(RuntimeError):
        torch.ones(3, 2, requires_grad=True)[integer(torch)].mul_(5)


def test_ipow_is_in_place_as_torch():
    def run(T):
        x = T.full((3,), 2.0)
        view = x[:2]
        x **= 2
        leaf = T.full((3,), 2.0, requires_grad=True)
        y = leaf * 1
        y **= 3
        y.sum().backward()
        return x, view, y, leaf.grad
    same_results(run, rtol=0)


def test_writing_into_a_0_d_view_with_an_empty_index_records_as_torch():
    def run(T):
        x = T.zeros(5)
        z = T.tensor(1.0, requires_grad=True)
        one = x[3]
        one[()] = z * 2
        (x * x).sum().backward()
        return x, z.grad
    same_results(run, rtol=0)


def test_saved_tensors_hooks_own_what_they_keep_no_version_check_as_torch():
    """A pack hook's value is the hook's to keep right: a clone packed, then the tensor changed, gives the old
    value's gradient; the tensor itself packed gives the new value's; torch checks no version either way."""
    def run(T):
        grads = []
        for pack in (lambda t: t.clone(), lambda t: t):
            x = T.ones(3, requires_grad=True)
            with T.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
                y = (x * x).sum()
            with T.no_grad():
                x.add_(1)
            y.backward()
            grads.append(x.grad)
        return tuple(grads)
    same_results(run, rtol=0)


def test_a_python_bool_spans_no_dim_beside_an_ellipsis_as_torch():
    same_results(lambda T: T.arange(24.0).reshape(2, 3, 4)[T.tensor([0, 1]), ..., True, 0], rtol=0)
    same_results(lambda T: T.arange(4.0).reshape(2, 2)[:, ..., True], rtol=0)


def test_a_bad_index_read_in_two_steps_is_named_as_given():
    with pytest.raises(IndexError, match=r"index \(1, slice\(None, None, None\), tensor\(\[0, 9\].*\)\) is invalid "
                                         r"for a tensor of shape \(2, 3, 4\): index 9 is out of bounds with size 4"):
        ag.zeros(2, 3, 4)[1, :, ag.tensor([0, 9])]
