"""``ctc_loss`` / ``CTCLoss`` side by side with torch 2.13, through ``log_softmax`` as every CTC model calls it:
padded and concatenated targets, repeated labels (a blank between them), empty targets, another blank,
samples of different lengths, one unbatched sample, the three reductions, float32, impossible alignments
with and without ``zero_infinity``, and the errors; against finite differences too."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import import_torch
from torch_compare import both_raise, close

import autogradlab as ag
from autogradlab.testing import gradcheck, gradgradcheck

torch = import_torch()
LOGITS = np.random.default_rng(0).standard_normal((8, 3, 5))


def _ctc(T, logits, targets, input_lengths, target_lengths, **options):
    x = T.tensor(logits, requires_grad=True)
    lengths = [T.tensor(v) if isinstance(v, list) else v for v in (input_lengths, target_lengths)]
    loss = T.nn.functional.ctc_loss(x.log_softmax(-1), T.tensor(targets), *lengths, **options)
    loss.sum().backward()
    return loss, x.grad


CASES = {
    "padded": ([[1, 2, 3], [2, 2, 0], [4, 1, 4]], [8, 7, 6], [3, 2, 3], {}),
    "concatenated": ([1, 2, 3, 2, 2, 4, 1, 4], [8, 7, 6], [3, 2, 3], {}),
    "repeats-need-blanks": ([[2, 2, 2], [3, 3, 1], [1, 1, 0]], [8, 8, 4], [3, 3, 2], {}),
    "an-empty-target": ([[1, 2], [0, 0], [3, 0]], [8, 5, 3], [2, 0, 1], {}),
    "blank-4": ([[0, 1, 2], [3, 3, 0], [2, 0, 1]], [8, 6, 7], [3, 2, 3], {"blank": 4}),
    "sum": ([[1, 2, 3], [2, 2, 0], [4, 1, 4]], [8, 7, 6], [3, 2, 3], {"reduction": "sum"}),
    "none": ([[1, 2, 3], [2, 2, 0], [4, 1, 4]], [8, 7, 6], [3, 2, 3], {"reduction": "none"}),
    "lengths-as-tuples": ([[1, 2, 3], [2, 2, 0], [4, 1, 4]], (8, 7, 6), (3, 2, 3), {}),
    "impossible-zeroed": ([[1, 1, 1], [2, 3, 0], [4, 4, 4]], [4, 7, 8], [3, 2, 3],
                          {"zero_infinity": True, "reduction": "none"}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_ctc_loss_as_torchs(name):
    targets, input_lengths, target_lengths, options = CASES[name]
    (loss, grad), (their_loss, their_grad) = (_ctc(T, LOGITS, targets, input_lengths, target_lengths, **options)
                                              for T in (ag, torch))
    close(loss, their_loss, rtol=1e-10, atol=1e-10)
    close(grad, their_grad, rtol=1e-9, atol=1e-10)


def test_one_unbatched_sample_and_float32_and_the_layer():
    for reduction in ("mean", "sum", "none"):
        results = []
        for T in (ag, torch):
            x = T.tensor(LOGITS[:, 0], requires_grad=True)
            loss = T.nn.functional.ctc_loss(x.log_softmax(-1), T.tensor([1, 2, 2]), T.tensor(8), T.tensor(3),
                                            reduction=reduction)
            loss.backward()
            results.append((loss, x.grad))
        for a, b in zip(*results):
            close(a, b, rtol=1e-10, atol=1e-10)
    results = []
    for T in (ag, torch):
        x = T.tensor(LOGITS.astype(np.float32), requires_grad=True)
        layer = T.nn.CTCLoss(blank=0, zero_infinity=True)
        loss = layer(x.log_softmax(-1), T.tensor([[1, 2, 3], [2, 2, 0], [4, 1, 4]]), T.tensor([8, 7, 6]),
                     T.tensor([3, 2, 3]))
        loss.backward()
        results.append((loss, x.grad, repr(layer)))
    close(results[0][0], results[1][0], rtol=1e-5, atol=1e-5)
    close(results[0][1], results[1][1], rtol=1e-4, atol=1e-5)
    assert results[0][2] == results[1][2]


def test_an_impossible_alignment_costs_infinity_as_in_torch():
    """Three equal labels need five steps: in four, no alignment exists. The loss is inf in both; torch's
    gradient for that sample is NaN, ours 0 (the other samples' gradients agree)."""
    targets, input_lengths, target_lengths = [[1, 1, 1], [2, 3, 0], [4, 4, 4]], [4, 7, 8], [3, 2, 3]
    (loss, grad), (their_loss, their_grad) = (_ctc(T, LOGITS, targets, input_lengths, target_lengths,
                                                   reduction="none") for T in (ag, torch))
    assert np.isinf(loss.detach().numpy()[0]) and np.isinf(their_loss.detach().numpy()[0])
    close(loss[1:], their_loss[1:], rtol=1e-10)
    close(grad[:, 1:], their_grad[:, 1:], rtol=1e-9, atol=1e-10)
    assert np.isnan(their_grad.numpy()[:4, 0]).all() and (grad.numpy()[:, 0] == 0).all()


def test_ctc_loss_is_the_derivative_of_its_recursion_to_second_order():
    """Finite differences in float64 with respect to the log-probabilities themselves (PyTorch's gradient
    there assumes a log_softmax follows: see README's differences), and second derivatives, which PyTorch's
    CTC backward does not have."""
    targets = ag.tensor([[1, 2, 2], [3, 1, 0]])

    def loss(lp):
        return ag.nn.functional.ctc_loss(lp, targets, ag.tensor([5, 4]), ag.tensor([3, 2]), reduction="sum")
    lp = ag.tensor(LOGITS[:5, :2], requires_grad=True)
    assert gradcheck(lambda x: loss(x.log_softmax(-1)), (lp,))
    assert gradcheck(loss, (lp,))
    assert gradgradcheck(lambda x: loss(x.log_softmax(-1)), (lp,))


@pytest.mark.parametrize("change", [{"input_lengths": [9, 7, 6]}, {"target_lengths": [4, 2, 3]}, {"blank": 5},
                                    {"reduction": "average"}],
                         ids=["input-longer-than-T", "target-longer-than-its-row", "blank-out-of-range",
                              "unknown-reduction"])
def test_ctc_errors_are_torchs(change):
    def call(T):
        arguments = {"input_lengths": [8, 7, 6], "target_lengths": [3, 2, 3]} | change
        options = {k: v for k, v in change.items() if k in ("blank", "reduction")}
        return lambda: T.nn.functional.ctc_loss(T.tensor(LOGITS).log_softmax(-1),
                                                T.tensor([[1, 2, 3], [2, 2, 0], [4, 1, 4]]),
                                                T.tensor(arguments["input_lengths"]),
                                                T.tensor(arguments["target_lengths"]), **options)
    both_raise(call(ag), call(torch))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_label_of_probability_zero_makes_the_alignment_impossible_as_in_torch(dtype):
    """A class masked with -inf before log_softmax: no alignment can emit it. inf, or 0 with zero_infinity."""
    for zero_infinity in (False, True):
        results = []
        for T in (ag, torch):
            masked = T.zeros(4, 2, 3, dtype=getattr(T, dtype))
            masked[:, 0, 2] = float("-inf")
            logits = masked.requires_grad_()
            loss = T.nn.functional.ctc_loss(logits.log_softmax(-1), T.tensor([[2], [2]]), T.tensor([4, 4]),
                                            T.tensor([1, 1]), reduction="none", zero_infinity=zero_infinity)
            loss.sum().backward()
            results.append((loss, logits.grad))
        (loss, grad), (their_loss, their_grad) = results
        close(loss, their_loss, rtol=1e-6)
        assert float(loss[0]) == (0.0 if zero_infinity else float("inf"))
        close(grad[:, 1], their_grad[:, 1], rtol=1e-6, atol=1e-7)      # (the possible sample: as torch)
        assert (grad.numpy()[:, 0] == 0).all()
