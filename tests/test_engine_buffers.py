"""Where the engine's gradients live: a leaf takes the array a VJP made as its ``.grad`` (no copy),
and ``.grad`` still never shares memory with a seed, a hook's tensor, another ``.grad`` or a view.

PyTorch's AccumulateGrad steals a gradient nobody else holds; autogradlab decides it from how the
array was made (a new array from one of its own VJPs, not passed through, not a view).
"""
import numpy as np
import pytest

import autogradlab as ag
from conftest import shares_memory
from autogradlab import backend
from autogradlab.ops import linalg


@pytest.fixture
def recorded_matmul_grads(monkeypatch):
    """The arrays the matmul VJP returns, in order (the VJP itself is unchanged)."""
    made = []
    vjp = linalg.MATMUL.vjp

    def recording(g, ctx):
        out = vjp(g, ctx)
        made.extend(x for x in out if x is not None)
        return out

    monkeypatch.setattr(linalg.MATMUL, "vjp", recording)
    return made


def test_a_leaf_takes_the_array_its_vjp_made_without_copying(recorded_matmul_grads):
    x = ag.tensor(np.ones((3, 4), dtype=np.float32))
    w = ag.tensor(np.full((4, 2), 0.5, dtype=np.float32), requires_grad=True)
    (x @ w).sum().backward()
    assert len(recorded_matmul_grads) == 1
    assert w.grad._data is recorded_matmul_grads[0]          # taken, not copied
    np.testing.assert_allclose(w.grad.numpy(), np.full((4, 2), 3.0))
    w.grad._data += 1                                          # and it is writable: .grad is its own
    assert w.grad.numpy()[0, 0] == 4.0


def test_a_second_backward_still_adds_in_place_into_the_taken_gradient(recorded_matmul_grads):
    x = ag.tensor(np.ones((3, 4), dtype=np.float32))
    w = ag.tensor(np.full((4, 2), 0.5, dtype=np.float32), requires_grad=True)
    (x @ w).sum().backward()
    first = w.grad
    (x @ w).sum().backward()
    assert w.grad is first
    np.testing.assert_allclose(first.numpy(), np.full((4, 2), 6.0))
    assert not shares_memory(first._data, recorded_matmul_grads[1])


def test_a_broadcast_bias_gradient_is_a_new_array_of_the_bias_shape():
    x = ag.tensor(np.ones((5, 3), dtype=np.float32), requires_grad=True)
    b = ag.tensor(np.zeros(3, dtype=np.float32), requires_grad=True)
    (x + b).sum().backward()
    assert b.grad.shape == (3,) and backend.writable(b.grad._data) and b.grad._data.base is None
    np.testing.assert_allclose(b.grad.numpy(), [5.0, 5.0, 5.0])
    assert not shares_memory(b.grad._data, x.grad._data)


def test_a_gradient_passed_through_to_two_leaves_is_copied_for_each():
    a = ag.tensor(np.ones(3, dtype=np.float32), requires_grad=True)
    b = ag.tensor(np.ones(3, dtype=np.float32), requires_grad=True)
    seed = ag.tensor(np.arange(3, dtype=np.float32))
    (a + b).backward(seed)                                     # add's VJP sends the seed itself twice
    for t in (a, b):
        assert not shares_memory(t.grad._data, seed._data)
    assert not shares_memory(a.grad._data, b.grad._data)
    a.grad._data += 10
    np.testing.assert_allclose(seed.numpy(), [0, 1, 2])
    np.testing.assert_allclose(b.grad.numpy(), [0, 1, 2])


def test_a_gradient_a_hook_kept_is_not_taken_as_grad(recorded_matmul_grads):
    x = ag.tensor(np.ones((2, 2), dtype=np.float32))
    w = ag.tensor(np.ones((2, 2), dtype=np.float32), requires_grad=True)
    kept = []
    w.register_hook(lambda g: kept.append(g))
    (x @ w).sum().backward()
    assert not shares_memory(w.grad._data, kept[0]._data)
    w.grad._data += 1
    np.testing.assert_allclose(kept[0].numpy(), np.full((2, 2), 2.0))


def test_a_node_post_hooks_gradient_is_not_taken_as_grad():
    x = ag.tensor(np.ones(3, dtype=np.float32))
    w = ag.tensor(np.ones(3, dtype=np.float32), requires_grad=True)
    mine = ag.tensor(np.full(3, 7.0, dtype=np.float32))
    y = x * w
    y.grad_fn.register_hook(lambda grads_in, grads_out: (None, mine))
    y.sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [7, 7, 7])
    assert not shares_memory(w.grad._data, mine._data)


def test_a_vjp_that_returns_a_view_of_its_gradient_is_copied():
    w = ag.tensor(np.ones((2, 3), dtype=np.float32), requires_grad=True)
    seed = ag.tensor(np.arange(6, dtype=np.float32))
    w.reshape(6).backward(seed)                              # reshape's VJP: a view of the seed
    assert not shares_memory(w.grad._data, seed._data)
    np.testing.assert_allclose(w.grad.numpy(), np.arange(6).reshape(2, 3))


def test_duplicated_roots_are_planned_once_and_seeded_twice():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    ag.autograd.backward([y, y])
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 8.0])
