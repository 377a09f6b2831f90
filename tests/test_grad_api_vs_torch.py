"""``autograd.grad``'s whole signature, as PyTorch's: positional order, named inputs (a dict in, a dict
out), ``is_grads_batched`` (one vector-Jacobian product per row of each grad_output, stacked) and the
deprecated ``only_inputs``; each compared with torch on the same program."""
from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
from conftest import import_torch

import autogradlab as ag

torch = import_torch()


def test_grad_and_backward_take_pytorchs_parameters_in_pytorchs_order():
    for mine, theirs in ((ag.autograd.grad, torch.autograd.grad), (ag.autograd.backward, torch.autograd.backward),
                         (ag.Tensor.backward, torch.Tensor.backward)):
        ours, pytorchs = inspect.signature(mine).parameters, inspect.signature(theirs).parameters
        assert list(ours) == list(pytorchs)
        assert [p.default for p in ours.values()] == [p.default for p in pytorchs.values()]


def _program(M):
    x = M.tensor([1.0, 2.0], requires_grad=True)
    w = M.tensor([3.0, 4.0], requires_grad=True)
    unused = M.tensor([1.0, 1.0], requires_grad=True)
    return x, w, unused, x * x * w


def _plain(r):
    if isinstance(r, dict):
        return {k: _plain(v) for k, v in r.items()}
    if isinstance(r, (tuple, list)):
        return [_plain(v) for v in r]
    return None if r is None else np.asarray(r.detach().numpy()).tolist()


CALLS = {
    "a Jacobian, batched": lambda M, x, w, u, y: M.autograd.grad(y, x, M.eye(2), retain_graph=True,
                                                                 is_grads_batched=True),
    "two inputs, batched": lambda M, x, w, u, y: M.autograd.grad(y, [x, w], M.eye(2), retain_graph=True,
                                                                 is_grads_batched=True),
    "three vectors": lambda M, x, w, u, y: M.autograd.grad(y, [x], M.tensor([[1.0, 0.0], [0.0, 1.0], [2.0, 3.0]]),
                                                           retain_graph=True, is_grads_batched=True),
    "two outputs, batched": lambda M, x, w, u, y: M.autograd.grad([y, y.sum()], x, [M.ones(3, 2), M.ones(3)],
                                                                  retain_graph=True, is_grads_batched=True),
    "unused, batched": lambda M, x, w, u, y: M.autograd.grad(y, [x, u], M.eye(2), retain_graph=True,
                                                             is_grads_batched=True, allow_unused=True),
    "materialized, batched": lambda M, x, w, u, y: M.autograd.grad(y, [x, u], M.eye(2), retain_graph=True,
                                                                   is_grads_batched=True, materialize_grads=True),
    "named inputs": lambda M, x, w, u, y: M.autograd.grad(y.sum(), {"x": x, "w": w}, retain_graph=True),
    "named inputs, batched": lambda M, x, w, u, y: M.autograd.grad(y, {"x": x}, M.eye(2), retain_graph=True,
                                                                   is_grads_batched=True),
    "positionally": lambda M, x, w, u, y: M.autograd.grad(y.sum(), [x, u], None, True, False, True, True),
}


@pytest.mark.parametrize("call", list(CALLS))
def test_grad_variants_give_what_pytorch_gives(call):
    theirs = _plain(CALLS[call](torch, *_program(torch)))
    mine = _plain(CALLS[call](ag, *_program(ag)))
    assert mine == theirs


BAD = {
    "no grad_outputs": lambda M, x, w, u, y: M.autograd.grad(y, x, None, retain_graph=True, is_grads_batched=True),
    "no batch dim": lambda M, x, w, u, y: M.autograd.grad(y, x, M.ones(2), retain_graph=True, is_grads_batched=True),
    "wrong shape": lambda M, x, w, u, y: M.autograd.grad(y, x, M.ones(3, 3), retain_graph=True,
                                                         is_grads_batched=True),
    "batch sizes differ": lambda M, x, w, u, y: M.autograd.grad([y, y.sum()], x, [M.ones(3, 2), M.ones(2)],
                                                                retain_graph=True, is_grads_batched=True),
    "unused": lambda M, x, w, u, y: M.autograd.grad(y, [x, u], M.eye(2), retain_graph=True, is_grads_batched=True),
}


@pytest.mark.parametrize("call", list(BAD))
def test_bad_batched_calls_raise_before_anything_runs(call):
    with pytest.raises((RuntimeError, ValueError)):
        BAD[call](torch, *_program(torch))
    x, w, u, y = _program(ag)
    with pytest.raises(RuntimeError) as err:
        BAD[call](ag, x, w, u, y)
    assert "is_grads_batched" in str(err.value) or "not have been used" in str(err.value)
    assert all(t.grad is None for t in (x, w, u))
    (y * 1.0).sum().backward()   # the graph was not freed by the failed call
    assert x.grad is not None


@pytest.mark.parametrize("M", [torch, ag], ids=["torch", "autogradlab"])
def test_a_batched_grad_frees_the_graph_unless_retained_and_records_under_create_graph(M):
    x, w, u, y = _program(M)
    (jac,) = M.autograd.grad(y, x, M.eye(2), create_graph=True, is_grads_batched=True)
    assert jac.requires_grad and jac.grad_fn is not None
    (jac * M.eye(2)).sum().backward()             # d/dx and d/dw of the Jacobian's diagonal 2*x*w
    assert x.grad.tolist() == [6.0, 8.0] and w.grad.tolist() == [2.0, 4.0]
    x, w, u, y = _program(M)
    M.autograd.grad(y, x, M.eye(2), is_grads_batched=True)
    with pytest.raises(RuntimeError, match="second time"):
        M.autograd.grad(y, x, M.ones(2))


@pytest.mark.parametrize("M", [torch, ag], ids=["torch", "autogradlab"])
def test_only_inputs_false_is_ignored_with_a_future_warning(M):
    x, w, u, y = _program(M)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (g,) = M.autograd.grad(y.sum(), x, only_inputs=False)
    assert g.tolist() == [6.0, 16.0] and x.grad is None
    assert [w.category for w in caught] == [FutureWarning]


@pytest.mark.parametrize("M", [torch, ag], ids=["torch", "autogradlab"])
def test_backward_takes_named_inputs(M):
    x, w, u, y = _program(M)
    y.sum().backward(inputs={"x": x})
    assert x.grad.tolist() == [6.0, 16.0] and w.grad is None
