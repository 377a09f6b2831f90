"""The matrix-product family against torch 2.13: what a differential check of about 10,000 cases found wrong,
each fixed and checked side by side (values, dtypes and shapes, or the same error class)."""
from __future__ import annotations

import pytest
from conftest import import_torch
from torch_compare import both_raise, same_results

import autogradlab as ag

torch = import_torch()


@pytest.mark.parametrize("call", [
    # addr promotes all three first: uint8 vectors beside a float input did wrap, float16 ones overflowed,
    # float32 ones lost digits beside a float64 input; a 0-d input counts as dimensioned (it is expanded)
    lambda T: T.addr(T.zeros(1, 1), T.tensor([200], dtype=T.uint8), T.tensor([2], dtype=T.uint8)),
    lambda T: T.addr(T.zeros(1, 1, dtype=T.float64), T.tensor([300.0], dtype=T.float16),
                     T.tensor([300.0], dtype=T.float16)),
    lambda T: T.addr(T.zeros(1, 1, dtype=T.float64), T.tensor([1.1]), T.tensor([1.7])),
    lambda T: T.addr(T.tensor(0.0, dtype=T.float64), T.ones(2), T.ones(2)),
    lambda T: T.addr(T.zeros(2, 2, dtype=T.float16), T.tensor([True, False]), T.tensor([True, True]), alpha=0.5),
    lambda T: T.addr(T.zeros(2, 2, dtype=T.int64), T.ones(2), T.ones(2), alpha=2.0),   # (a float result)
    # addbmm keeps an integer dtype (its batch sum promoted int32 to int64)
    lambda T: T.addbmm(T.zeros(2, 2, dtype=T.int32), T.ones(1, 2, 2, dtype=T.int32), T.ones(1, 2, 2, dtype=T.int32)),
    # cross without dim: the first dim of size 3 in input's own shape, not in the broadcast shape
    lambda T: T.cross(T.ones(1, 3), T.tensor([[1.0, 2, 3], [4, 5, 6], [7, 8, 10]])),
    lambda T: T.cross(T.tensor([[1.0], [2], [3]]), T.tensor([[1.0, 2, 3], [4, 5, 6], [7, 8, 10]])),
    lambda T: T.linalg.multi_dot([T.ones(3), T.ones(3, 4), T.ones(4)]),
    lambda T: T.zeros(2, 2).addmm_(T.ones(2, 2), T.ones(2, 2)),
], ids=["addr uint8", "addr float16", "addr float32 in float64", "addr 0-d input", "addr bool alpha=0.5",
        "addr int input float alpha", "addbmm int32", "cross dim of input (1, 3)", "cross dim of input (3, 1)",
        "multi_dot vector ends", "addmm_"])
def test_the_matrix_products_give_torchs_values_and_dtypes(call):
    same_results(call, rtol=0)


@pytest.mark.parametrize("call", [
    lambda T: T.addmv(T.zeros(2, dtype=T.float64), T.ones(2, 2), T.ones(2)),
    lambda T: T.baddbmm(T.zeros(1, 2, 2, dtype=T.float64), T.ones(1, 2, 2), T.ones(1, 2, 2)),
    lambda T: T.addbmm(T.zeros(2, 2, dtype=T.float64), T.ones(1, 2, 2), T.ones(1, 2, 2)),
    lambda T: T.addr(T.zeros(2, 2, dtype=T.bool), T.ones(2), T.ones(2), alpha=True),   # (the result is float)
    lambda T: T.linalg.multi_dot([T.ones(2, 2, 3), T.ones(3, 4)]),
    lambda T: T.linalg.multi_dot([T.ones(3), T.ones(2, 3, 4), T.ones(4)]),
    lambda T: T.cross(T.ones(3, 3), T.ones(1, 3)),
], ids=["addmv mixed dtypes", "baddbmm mixed dtypes", "addbmm mixed dtypes", "addr bool alpha, float result",
        "multi_dot 3-d first", "multi_dot 3-d middle", "cross input's dim 0 against other's 1"])
def test_what_torch_refuses_is_refused(call):
    both_raise(lambda: call(ag), lambda: call(torch))


@pytest.mark.parametrize("call", [
    lambda T, a: T.mm(a, a), lambda T, a: a @ a, lambda T, a: T.bmm(a[None], a[None]), lambda T, a: T.mv(a, a[0]),
    lambda T, a: T.dot(a[0], a[0]), lambda T, a: T.inner(a, a), lambda T, a: T.tensordot(a, a, 1),
    lambda T, a: T.linalg.multi_dot([a, a]), lambda T, a: T.linalg.cross(a.expand(3, 3), a.expand(3, 3)),
], ids=["mm", "@", "bmm", "mv", "dot", "inner", "tensordot", "multi_dot", "cross"])
def test_bool_products_raise_torchs_not_implemented_error(call):
    """torch has no bool kernel for them (NotImplementedError); these raised RuntimeError."""
    both_raise(lambda: call(ag, ag.ones(3, 3, dtype=ag.bool)), lambda: call(torch, torch.ones(3, 3, dtype=torch.bool)))
