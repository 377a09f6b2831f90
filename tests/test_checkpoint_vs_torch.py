"""Gradient checkpointing (``autogradlab.utils.checkpoint``) side by side with ``torch.utils.checkpoint``: the
same gradients as without it (first and second order, inputs and parameters), the activations not kept after
the forward, dropout's mask drawn again the same, and the reentrant form's warnings and refusals."""
import gc
import tracemalloc
import warnings

import numpy as np
import pytest
from conftest import import_torch
from torch_compare import both_raise, close

import autogradlab as ag

torch = import_torch()
X = np.array([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]])


def _block(T, dropout=0.0):
    """Linear(3, 4) -> tanh -> (dropout) -> Linear(4, 3), with fixed float64 weights."""
    first, second = T.nn.Linear(3, 4).double(), T.nn.Linear(4, 3).double()
    with T.no_grad():
        first.weight.copy_(T.tensor(np.cos(np.arange(12.0)).reshape(4, 3)))
        second.weight.copy_(T.tensor(np.sin(np.arange(12.0)).reshape(3, 4)))
        first.bias.fill_(0.1)
        second.bias.fill_(-0.2)
    return T.nn.Sequential(first, T.nn.Tanh(), T.nn.Dropout(dropout), second)


def _gradients(T, checkpointed, dropout=0.0, seed=0):
    T.manual_seed(seed)
    block = _block(T, dropout)
    x = T.tensor(X, requires_grad=True)
    T.manual_seed(seed + 1)
    h = T.utils.checkpoint.checkpoint(block, x, use_reentrant=False) if checkpointed else block(x)
    (h * h).sum().backward()
    after = T.rand(3)                    # the random stream after the backward
    return [x.grad] + [p.grad for p in block.parameters()], h, after


@pytest.mark.parametrize("checkpointed", [False, True])
def test_the_gradients_are_the_same_with_and_without_checkpoint_and_as_torchs(checkpointed):
    ours, h, _ = _gradients(ag, checkpointed)
    theirs, th, _ = _gradients(torch, checkpointed)
    close(h, th, rtol=1e-12, atol=1e-14)
    for a, b in zip(ours, theirs):
        close(a, b, rtol=1e-12, atol=1e-14)


def test_dropout_inside_draws_the_same_mask_again_and_the_random_stream_goes_on_as_without():
    plain, h_plain, after_plain = _gradients(ag, False, dropout=0.5, seed=3)
    again, h_again, after_again = _gradients(ag, True, dropout=0.5, seed=3)
    assert np.array_equal(h_plain.detach().numpy(), h_again.detach().numpy())
    for a, b in zip(plain, again):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert after_plain.tolist() == after_again.tolist()
    _, h_kept_all, _ = _gradients(ag, False, dropout=0.0, seed=3)
    assert not np.allclose(h_plain.detach().numpy(), h_kept_all.detach().numpy())     # (dropout did drop)
    for T in (ag, torch):                # (torch: the same with its own generator)
        a, ha, _ = _gradients(T, False, dropout=0.5, seed=5)
        b, hb, _ = _gradients(T, True, dropout=0.5, seed=5)
        assert all(np.array_equal(p.numpy(), q.numpy()) for p, q in zip(a, b))


def test_second_derivatives_through_a_checkpoint_as_torch():
    results = []
    for T in (ag, torch):
        x = T.tensor([0.5, -1.0, 2.0], dtype=T.float64, requires_grad=True)
        y = T.utils.checkpoint.checkpoint(lambda t: T.tanh(t * t) * t.exp(), x, use_reentrant=False)
        g, = T.autograd.grad(y.sum(), x, create_graph=True)
        h, = T.autograd.grad((g * g).sum(), x)
        results.append((g, h))
    for a, b in zip(*results):
        close(a, b, rtol=1e-12, atol=1e-14)


def test_the_activations_inside_are_not_kept_after_the_forward():
    """A chain of ten ops on a million float64 elements: without checkpoint the graph keeps about one 8 MB
    array per op after the forward; with it, none (each op's saved value is replaced by its number)."""
    x = ag.ones(1_000_000, dtype=ag.float64, requires_grad=True)

    def chain(t):
        for _ in range(10):
            t = ag.sin(t) * 1.01
        return t
    kept = {}
    for checkpointed in (False, True):
        gc.collect()
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        y = ag.utils.checkpoint.checkpoint(chain, x, use_reentrant=False) if checkpointed else chain(x)
        gc.collect()
        kept[checkpointed] = (tracemalloc.get_traced_memory()[0] - before) / 8e6    # in arrays of x's size
        tracemalloc.stop()
        y.sum().backward()
        if checkpointed:
            np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12)
        else:
            expected = x.grad.numpy().copy()
        x.grad = None
        del y
    assert kept[False] >= 9 and kept[True] <= 1.5, kept     # (the output itself is one array)


def test_checkpoint_sequential_as_torch():
    results = []
    for T in (ag, torch):
        model = T.nn.Sequential(*[m for _ in range(2) for m in _block(T)])     # 8 layers
        x = T.tensor(X, requires_grad=True)
        out = T.utils.checkpoint.checkpoint_sequential(model, 3, x, use_reentrant=False)
        out.sum().backward()
        results.append([out, x.grad] + [p.grad for p in model.parameters()])
    for a, b in zip(*results):
        close(a, b, rtol=1e-12, atol=1e-14)
    for segments in (0, 9):
        with pytest.raises(ValueError, match="segments must be an int from 1 to the number of layers"):
            ag.utils.checkpoint.checkpoint_sequential(ag.nn.Sequential(*[ag.nn.Tanh()] * 8), segments, ag.ones(2))


def test_the_reentrant_form_warns_and_refuses_as_torch():
    for T in (ag, torch):
        layer = T.nn.Linear(3, 1)
        with pytest.warns(UserWarning, match="use_reentrant"):
            T.utils.checkpoint.checkpoint(layer, T.ones(3, requires_grad=True))
        with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
            out = T.utils.checkpoint.checkpoint(layer, T.ones(3), use_reentrant=True)
        assert not out.requires_grad             # so the layer's weight would get no gradient
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert T.utils.checkpoint.checkpoint(layer, T.ones(3), use_reentrant=False).requires_grad
    both_raise(lambda: ag.utils.checkpoint.checkpoint(lambda t, s: t * s, ag.ones(1, requires_grad=True),
                                                     s=2.0, use_reentrant=True),
               lambda: torch.utils.checkpoint.checkpoint(lambda t, s: t * s, torch.ones(1, requires_grad=True),
                                                         s=2.0, use_reentrant=True))
    y = ag.utils.checkpoint.checkpoint(lambda t, s: t * s, ag.ones(1, requires_grad=True), s=2.0,
                                       use_reentrant=False)
    assert y.item() == 2.0


def test_a_function_that_does_other_ops_when_run_again_is_refused_as_torch():
    for T in (ag, torch):
        calls = []

        def moody(t):
            calls.append(1)
            return t.sin().exp() if len(calls) == 1 else t.sin()    # the second run saves fewer tensors
        y = T.utils.checkpoint.checkpoint(moody, T.ones(2, requires_grad=True), use_reentrant=False)
        with pytest.raises(RuntimeError, match="saved 2 tensors .* but 1|different number of tensors"):
            y.sum().backward()
    for T in (ag, torch):   # (saves more the second time: the re-run stops early, so neither notices)
        calls = []

        def greedy(t):
            calls.append(1)
            return t.sin() if len(calls) == 1 else t.sin().exp()
        x = T.ones(2, requires_grad=True)
        T.utils.checkpoint.checkpoint(greedy, x, use_reentrant=False).sum().backward()
        assert np.allclose(x.grad.numpy(), np.cos(1.0))
    calls = []

    def greedy(t):
        calls.append(1)
        return t.sin() if len(calls) == 1 else t.sin().exp()
    y = ag.utils.checkpoint.checkpoint(greedy, ag.ones(2, requires_grad=True), use_reentrant=False,
                                       early_stop=False)
    with pytest.raises(RuntimeError, match="saved 1 tensors for the backward when it ran, but 2"):
        y.sum().backward()


def test_the_rerun_stops_once_it_has_what_the_backward_needs_as_torch():
    """A function that changes a tensor it saved, after saving it (``y = x.exp(); y.mul_(2)``): the re-run
    stops before the change, so the saved value is the one the forward saved (early_stop, PyTorch's
    default); with early_stop=False both libraries run it to the end and double the gradient alike."""
    for early_stop in (True, False):
        grads = []
        for T in (ag, torch):
            def f(x):
                y = x.exp()
                y.mul_(2)
                return y
            x = T.tensor([0.5, 1.0, 2.0], dtype=T.float64, requires_grad=True)
            T.utils.checkpoint.checkpoint(f, x, use_reentrant=False, early_stop=early_stop).sum().backward()
            grads.append(x.grad)
        close(*grads, rtol=1e-12, atol=1e-14)
        expected = 2 * np.exp([0.5, 1.0, 2.0]) * (1 if early_stop else 2)
        np.testing.assert_allclose(grads[0].numpy(), expected, rtol=1e-12)


def test_an_in_place_change_to_the_output_is_fine_and_to_an_input_is_caught_as_torch():
    """``out = checkpoint(block, x); out += x`` (a residual block): what the re-run makes again is not checked;
    an in-place change to an input after the forward still is (the re-run would read the changed value)."""
    results = []
    for T in (ag, torch):
        block = T.nn.Sequential(_block(T), T.nn.Tanh())     # (tanh saves its output: the one changed in place)
        x = T.tensor(X, requires_grad=True)
        out = T.utils.checkpoint.checkpoint(block, x, use_reentrant=False)
        out += x
        out.sum().backward()
        results.append([x.grad] + [p.grad for p in block.parameters()])
        y = T.tensor(X) * 1
        y.requires_grad_(True)
        h = y * 1
        out = T.utils.checkpoint.checkpoint(lambda t: t.sin() * t, h, use_reentrant=False)
        h.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.sum().backward()
    for a, b in zip(*results):
        close(a, b, rtol=1e-12, atol=1e-14)


def test_the_context_fn_and_keyword_checks_as_torch():
    import contextlib
    for T in (ag, torch):
        entered = []

        @contextlib.contextmanager
        def note(what):
            entered.append(what)
            yield
        x = T.ones(2, requires_grad=True)
        y = T.utils.checkpoint.checkpoint(lambda t: t.exp(), x, use_reentrant=False,
                                          context_fn=lambda: (note("forward"), note("recompute")),
                                          determinism_check="none", debug=False)
        assert entered == ["forward"]
        y.sum().backward()
        assert entered == ["forward", "recompute"]
        with pytest.raises(ValueError, match="determinism_check"):
            T.utils.checkpoint.checkpoint(lambda t: t.exp(), x, use_reentrant=False, determinism_check="sometimes")
        with pytest.raises(ValueError, match="Unexpected keyword arguments"):
            T.utils.checkpoint.checkpoint_sequential(T.nn.Sequential(T.nn.Tanh()), 1, x, use_reentrant=False,
                                                     scale=2)
