"""What a round of differential fuzzing of sorting, selection and statistics against torch 2.13 found wrong,
each fixed and checked side by side: ``quantile``'s gradient for a tensor ``q``, ``histc``'s bin of an element
on a bin edge, ``trapezoid`` with too few sample points, NaN in ``unique(dim=)``, ``searchsorted``'s checks."""
import numpy as np
import pytest
from conftest import import_torch
from torch_compare import both_raise, same_results

import autogradlab as ag

torch = import_torch()
NAN = float("nan")

QUANTILES = [([0.0, 1.0, 3.0, 7.0], [0.5], None, False), ([0.0, 1.0, 3.0, 7.0], 0.3, None, False),
             ([[0.0, 1.0, 3.0, 7.0], [2.0, NAN, 1.0, 5.0]], [0.2, 0.9], 1, True),
             ([[NAN, NAN], [1.0, 2.0]], [0.5], 1, False), ([[4.0, 1.0, 3.0], [2.0, 8.0, 1.0]], [0.0, 1.0, 0.7], 0, False)]


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
@pytest.mark.parametrize("case", range(len(QUANTILES)))
def test_quantile_gives_a_tensor_q_its_gradient_as_torch(name, case):
    """Linear interpolation between the sorted values at q*(n - 1): d/dq = (above - below) * (n - 1) (n: the
    values not NaN, for nanquantile); none where a NaN fixed the position. An all-NaN slice of nanquantile reads
    (and sends its gradient to) its first element, as torch."""
    data, q, dim, keepdim = QUANTILES[case]

    def run(T):
        x = T.tensor(data, dtype=T.float64, requires_grad=True)
        qt = T.tensor(q, dtype=T.float64, requires_grad=True)
        out = getattr(T, name)(x, qt, dim=dim, keepdim=keepdim)
        weights = T.arange(1.0, out.numel() + 1, dtype=T.float64).reshape(out.shape)
        gx, gq = T.autograd.grad((out * weights).sum(), [x, qt], allow_unused=True, materialize_grads=True)
        return out, gx, gq
    same_results(run, rtol=1e-12)


def test_histc_bins_an_element_on_an_edge_as_torch():
    """(x - min) * bins / (max - min), multiplied first: dividing first put 0.3 of [0, 0.9] in 3 bins into the
    second bin; 4,000 random one-decimal histograms now all match."""
    rng = np.random.default_rng(0)
    for trial in range(1500):
        data = np.round(rng.uniform(-3, 3, rng.integers(1, 8)), 1).astype(["float32", "float64"][trial % 2])
        bins = int(rng.integers(1, 12))
        low, high = ((0, 0) if trial % 3 == 0 else
                     (round(float(rng.uniform(-3, 0)), 1), round(float(rng.uniform(0.1, 3)), 1)))
        assert ag.histc(ag.tensor(data), bins, low, high).tolist() == \
            torch.histc(torch.tensor(data), bins, low, high).tolist(), (data, bins, low, high)
    same_results(lambda T: T.histc(T.tensor([0.3], dtype=T.float64), 3, 0, 0.9), rtol=0)


REFUSED = {
    "trapezoid with too few points": lambda T: T.trapezoid(T.tensor([[0.0, 1, 2], [3, 4, 5]]), T.tensor([1.0, 3.0])),
    "cumulative_trapezoid with too few points": lambda T: T.cumulative_trapezoid(
        T.tensor([[0.0, 1, 2], [3, 4, 5]]), T.tensor([1.0, 3.0])),
    "a sorter shorter than the sequence": lambda T: T.searchsorted(
        T.tensor([1.0, 2, 3, 4]), T.tensor([2.5, 3.5]), sorter=T.tensor([0, 1, 2])),
    "an int32 sorter": lambda T: T.searchsorted(
        T.tensor([1.0, 2, 3, 4]), T.tensor([2.5]), sorter=T.tensor([0, 1, 2, 3], dtype=T.int32)),
    "a sorter index out of range": lambda T: T.searchsorted(
        T.tensor([1.0, 2, 3, 4]), T.tensor([2.5]), sorter=T.tensor([0, 1, 2, 7])),
    "0-d boundaries": lambda T: T.searchsorted(T.tensor(1.0), T.tensor([2.5])),
}


@pytest.mark.parametrize("call", list(REFUSED))
def test_refused_as_torch(call):
    both_raise(lambda: REFUSED[call](ag), lambda: REFUSED[call](torch))


def test_what_those_checks_let_through_as_torch():
    same_results(lambda T: (T.trapezoid(T.tensor([[0.0, 1, 2], [3, 4, 5]]), T.tensor([1.0, 3.0, 4.0])),
                            T.searchsorted(T.tensor([3.0, 1, 2, 4]), T.tensor([2.5, 3.5]),
                                           sorter=T.tensor([1, 2, 0, 3]))), rtol=0)


def test_unique_along_a_dim_keeps_each_nan_apart():
    """As torch (and as ``unique()`` without dim), two NaNs are two values: NumPy's 1-D path merged them."""
    values, counts = ag.unique(ag.tensor([NAN, NAN, -1.0]), dim=0, return_counts=True)
    theirs = torch.unique(torch.tensor([NAN, NAN, -1.0]), dim=0, return_counts=True)[0]
    assert values.shape == tuple(theirs.shape) == (3,)
    assert counts.tolist() == [1, 1, 1] and int(np.isnan(values.numpy()).sum()) == 2
