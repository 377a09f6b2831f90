"""Samplers and the rest of PyTorch's DataLoader signature: ``sampler=``, ``batch_sampler=``,
``batch_size=None`` (with ``default_convert``), ``loader.sampler`` / ``loader.batch_sampler``, and the worker
options (checked as torch checks them, then nothing to do). Deterministic results are compared with
torch.utils.data's; random ones are checked for what the sampler promises (which indices, how many, each
once or weighted), reproducible under ``manual_seed`` and a ``Generator``."""
import collections

import numpy as np
import pytest
from conftest import host, import_torch
from torch_compare import both_raise

import autogradlab as ag
from autogradlab.utils import data as D

torch = import_torch()
T = torch.utils.data

Point = collections.namedtuple("Point", "x label")


def _plain(batch):
    """A batch (ours or torch's) as nested (container type, leaves) with tensors as (dtype, shape, values)."""
    if isinstance(batch, (ag.Tensor, torch.Tensor)):
        array = host(batch.data) if isinstance(batch, ag.Tensor) else batch.numpy()
        return ("tensor", array.dtype.name, tuple(array.shape), array.tolist())
    if isinstance(batch, dict):
        return (type(batch).__name__, {k: _plain(v) for k, v in batch.items()})
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return ("namedtuple", [_plain(v) for v in batch])
    if isinstance(batch, (list, tuple)):
        return (type(batch).__name__, [_plain(v) for v in batch])
    return ("leaf", batch)


def _both_datasets(n=10):
    X = np.arange(2 * n, dtype=np.float32).reshape(n, 2)
    y = np.arange(n) % 3
    return (D.TensorDataset(ag.tensor(X), ag.tensor(y)),
            T.TensorDataset(torch.from_numpy(X.copy()), torch.from_numpy(y.copy())))


# -- deterministic samplers, side by side -----------------------------------------------------------

@pytest.mark.parametrize("n, batch_size, drop_last", [(7, 3, False), (7, 3, True), (6, 3, True), (2, 5, False)])
def test_batch_sampler_over_sequential_matches_torch(n, batch_size, drop_last):
    ours = D.BatchSampler(D.SequentialSampler(range(n)), batch_size, drop_last)
    theirs = T.BatchSampler(T.SequentialSampler(range(n)), batch_size, drop_last)
    assert list(ours) == list(theirs) and len(ours) == len(theirs)


@pytest.mark.parametrize("make", [
    lambda M, ds: M.DataLoader(ds, batch_size=4, sampler=[9, 8, 7, 1, 2]),
    lambda M, ds: M.DataLoader(ds, batch_size=2, sampler=M.SequentialSampler(ds), drop_last=True),
    lambda M, ds: M.DataLoader(ds, batch_sampler=[[1, 2], [3], [0, 5, 6]]),
    lambda M, ds: M.DataLoader(ds, batch_sampler=M.BatchSampler(range(5), 2, False)),
    lambda M, ds: M.DataLoader(ds, batch_size=None),
    lambda M, ds: M.DataLoader(ds, batch_size=None, sampler=[4, 0]),
    lambda M, ds: M.DataLoader(ds, batch_size=3, shuffle=False, sampler=None, batch_sampler=None),
], ids=["sampler-list", "sampler-drop-last", "batch-sampler-lists", "batch-sampler", "no-batching",
        "no-batching-sampler", "explicit-defaults"])
def test_loader_with_samplers_matches_torch(make):
    ours_ds, theirs_ds = _both_datasets()
    ours, theirs = make(D, ours_ds), make(T, theirs_ds)
    assert len(ours) == len(theirs)
    assert [_plain(b) for b in ours] == [_plain(b) for b in theirs]


def test_loader_sampler_attributes_match_torchs_kinds():
    ds = list(range(5))
    for M in (D, T):
        assert isinstance(M.DataLoader(ds).sampler, M.SequentialSampler)
        assert isinstance(M.DataLoader(ds, shuffle=True).sampler, M.RandomSampler)
        assert isinstance(M.DataLoader(ds, batch_size=2).batch_sampler, M.BatchSampler)
        assert M.DataLoader(ds, batch_size=2).batch_sampler.batch_size == 2
        assert M.DataLoader(ds, batch_size=None).batch_sampler is None
        assert M.DataLoader(ds, batch_sampler=[[0]]).batch_size is None


@pytest.mark.parametrize("name", ["batch_size", "sampler", "batch_sampler", "drop_last", "dataset"])
def test_loader_settings_cannot_change_after_it_is_made_as_in_torch(name):
    for M in (D, T):
        loader = M.DataLoader(list(range(4)))
        with pytest.raises(ValueError, match=name):
            setattr(loader, name, getattr(loader, name))


SAMPLES = {
    "numpy array": np.arange(3, dtype=np.float32),
    "numpy scalar": np.float32(2.5),
    "tuple of array and int": (np.ones(2), 3),
    "namedtuple": Point(np.zeros(1), 4),
    "dict": {"a": np.ones(1, np.int32), "b": "text"},
    "list": [np.ones(1), 1.5],
    "number": 1.5,
    "string": "s",
}


@pytest.mark.parametrize("case", sorted(SAMPLES))
def test_default_convert_matches_torch(case):
    assert _plain(D.default_convert(SAMPLES[case])) == _plain(T.default_convert(SAMPLES[case]))


class _Pair(list):
    pass


@pytest.mark.parametrize("batch", [
    [np.int32(1), np.float32(2.5)], [np.float32(1), np.float64(2)], [np.int64(1), np.int32(2)],
    [_Pair([1, 2.0]), _Pair([3, 4.0])],
], ids=["int32-float32", "float32-float64", "int64-int32", "list-subclass"])
def test_default_collate_promotes_and_keeps_types_as_torch(batch):
    ours, theirs = D.default_collate(batch), T.default_collate(batch)
    assert type(ours).__name__ == type(theirs).__name__      # (Tensor and Tensor; _Pair and _Pair)
    assert _plain(ours) == _plain(theirs)


# -- errors, side by side --------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [
    dict(sampler=[0, 1], shuffle=True), dict(batch_sampler=[[0]], batch_size=2),
    dict(batch_sampler=[[0]], shuffle=True), dict(batch_sampler=[[0]], sampler=[0]),
    dict(batch_sampler=[[0]], drop_last=True), dict(batch_size=None, drop_last=True), dict(timeout=-1),
    dict(prefetch_factor=2), dict(persistent_workers=True), dict(multiprocessing_context="spawn"),
], ids=str)
def test_loader_refuses_what_torch_refuses(kwargs):
    with pytest.raises(Exception) as theirs:
        T.DataLoader(list(range(4)), **kwargs)
    with pytest.raises(type(theirs.value), match="DataLoader"):
        D.DataLoader(list(range(4)), **kwargs)


@pytest.mark.parametrize("kwargs", [
    dict(num_workers=2, prefetch_factor=4, persistent_workers=True, timeout=5.0, multiprocessing_context="spawn"),
    dict(worker_init_fn=print, pin_memory=True, pin_memory_device="cuda", in_order=False),
], ids=["workers", "worker-init"])
def test_worker_options_are_accepted_and_change_no_batch(kwargs):
    ours_ds, theirs_ds = _both_datasets(5)
    batches = [_plain(b) for b in D.DataLoader(ours_ds, batch_size=2, **kwargs)]
    assert batches == [_plain(b) for b in T.DataLoader(theirs_ds, batch_size=2)]


@pytest.mark.parametrize("call", [
    lambda M: M.RandomSampler(range(5), num_samples=0), lambda M: M.RandomSampler(range(5), replacement=1),
    lambda M: M.BatchSampler(range(5), 0, False), lambda M: M.BatchSampler(range(5), 2, 1),
    lambda M: M.WeightedRandomSampler([1, 2], 0), lambda M: M.WeightedRandomSampler([[1, 2]], 3),
    lambda M: list(M.WeightedRandomSampler([1, 2], 3, replacement=False)),
    lambda M: list(M.WeightedRandomSampler([1, -2], 3)),
], ids=["num-samples-0", "replacement-int", "batch-0", "drop-last-int", "weighted-0", "weighted-2d",
        "weighted-too-many", "weighted-negative"])
def test_samplers_refuse_what_torch_refuses(call):
    both_raise(lambda: call(D), lambda: call(T))


# -- random samplers: what they promise ---------------------------------------------------------------

@pytest.mark.parametrize("num_samples", [None, 3, 12])
def test_random_sampler_without_replacement_is_permutations(num_samples):
    ours, theirs = D.RandomSampler(range(5), num_samples=num_samples), T.RandomSampler(range(5),
                                                                                         num_samples=num_samples)
    order = list(ours)
    assert len(order) == len(ours) == len(theirs) == len(list(theirs))
    for lo in range(0, len(order), 5):
        piece = order[lo:lo + 5]
        assert len(set(piece)) == len(piece) and set(piece) <= set(range(5))


def test_random_sampler_with_replacement_draws_uniformly_with_repeats():
    ag.manual_seed(0)
    draws = list(D.RandomSampler(range(4), replacement=True, num_samples=4000))
    counts = np.bincount(draws, minlength=4)
    assert len(draws) == 4000 and counts.min() > 850 and counts.max() < 1150


def test_subset_random_sampler_gives_each_index_once_in_new_orders():
    indices = [7, 3, 9, 1, 4, 8]
    sampler = D.SubsetRandomSampler(indices, generator=ag.Generator().manual_seed(1))
    epochs = [list(sampler) for _ in range(4)]
    assert all(sorted(e) == sorted(indices) for e in epochs)
    assert len({tuple(e) for e in epochs}) > 1 and len(sampler) == len(T.SubsetRandomSampler(indices))


def test_weighted_random_sampler_follows_the_weights():
    sampler = D.WeightedRandomSampler(ag.tensor([0.0, 1.0, 3.0]), 8000, generator=ag.Generator().manual_seed(2))
    counts = np.bincount(list(sampler), minlength=3)
    assert counts[0] == 0 and 0.2 < counts[1] / 8000 < 0.3
    once = list(D.WeightedRandomSampler([1.0, 1.0, 5.0, 1.0], 4, replacement=False))
    assert sorted(once) == [0, 1, 2, 3]


def test_random_samplers_repeat_under_manual_seed_and_a_generator():
    def run(**kw):
        return [list(D.RandomSampler(range(8), **kw)), list(D.SubsetRandomSampler([2, 4, 6], **kw)),
                list(D.WeightedRandomSampler([1, 2, 3], 5, **kw))]
    ag.manual_seed(3)
    first = run()
    ag.manual_seed(3)
    assert run() == first
    assert run(generator=ag.Generator().manual_seed(5)) == run(generator=ag.Generator().manual_seed(5))


def test_shuffle_draws_as_before_from_the_library_generator():
    """shuffle=True is a RandomSampler drawing one permutation per epoch, so a seeded loader's order is
    NumPy's permutation from the same seed (the lessons' printed numbers depend on it)."""
    ag.manual_seed(6)
    order = [int(v) for xb in D.DataLoader(ag.arange(9), batch_size=4, shuffle=True) for v in host(xb.data)]
    assert order == np.random.default_rng(6).permutation(9).tolist()


def test_a_sampler_subclass_needs_iter():
    class Half(D.Sampler):
        pass
    with pytest.raises(NotImplementedError, match="__iter__"):
        iter(Half())


# -- from a review against torch 2.13 ------------------------------------------------------------------------

def test_samplers_loaders_and_subsets_are_generic_as_torchs():
    for M in (D, T):
        class Evens(M.Sampler[int]):
            def __init__(self, n):
                self.n = n

            def __iter__(self):
                return iter(range(0, self.n, 2))

            def __len__(self):
                return (self.n + 1) // 2
        assert list(M.DataLoader(list(range(6)), sampler=Evens(6), batch_size=None)) == [0, 2, 4]
        assert M.DataLoader[int] is not None and M.Subset[int] is not None


def test_weighted_sampler_without_replacement_takes_zero_weights_last_as_torch():
    for M in (D, T):
        picks = list(M.WeightedRandomSampler([1.0, 1.0, 0.0], 3, replacement=False))
        assert sorted(picks) == [0, 1, 2] and picks[2] == 2
        with pytest.raises(RuntimeError):
            list(M.WeightedRandomSampler([1.0, 1.0], 3, replacement=False))


def test_weighted_sampler_keeps_its_weights_as_a_float64_tensor_checked_when_drawn():
    ours, theirs = D.WeightedRandomSampler([1, 2], 3), T.WeightedRandomSampler([1, 2], 3)
    assert isinstance(ours.weights, ag.Tensor) and ours.weights.dtype.name == "float64" == \
        str(theirs.weights.dtype).removeprefix("torch.")
    for sampler in (ours, theirs):
        with (ag.no_grad() if sampler is ours else torch.no_grad()):
            sampler.weights.fill_(0.0)
        with pytest.raises(RuntimeError):
            list(sampler)


@pytest.mark.parametrize("make", [lambda M: M.RandomSampler([]), lambda M: M.DataLoader([], shuffle=True),
                                  lambda M: M.RandomSampler([], replacement=True)],
                         ids=["random-sampler", "shuffled-loader", "replacement"])
def test_an_empty_dataset_cannot_be_shuffled_as_in_torch(make):
    with pytest.raises(ValueError, match="num_samples"):
        make(T)
    with pytest.raises(ValueError, match="num_samples"):
        make(D)


@pytest.mark.parametrize("kwargs", [dict(num_workers=2, prefetch_factor=-1),
                                    dict(num_workers=2, multiprocessing_context="x"),
                                    dict(num_workers=2, multiprocessing_context=3)], ids=str)
def test_worker_options_are_checked_as_torch_checks_them(kwargs):
    with pytest.raises(Exception) as theirs:
        T.DataLoader(list(range(4)), **kwargs)
    with pytest.raises(type(theirs.value), match="DataLoader"):
        D.DataLoader(list(range(4)), **kwargs)


def test_worker_defaults_and_falsy_drop_last_without_batching_as_torch():
    for M in (D, T):
        assert M.DataLoader(list(range(4)), num_workers=2).prefetch_factor == 2
        assert M.DataLoader(list(range(4))).prefetch_factor is None
        assert len(M.DataLoader(list(range(4)), batch_size=None, drop_last=0)) == 4


def test_a_float_index_from_a_sampler_is_refused_as_torch():
    ours_ds, theirs_ds = _both_datasets(5)
    with pytest.raises(IndexError):
        list(T.DataLoader(theirs_ds, batch_size=2, sampler=[1.7, 2.2]))
    with pytest.raises(IndexError):
        list(D.DataLoader(ours_ds, batch_size=2, sampler=[1.7, 2.2]))


def test_a_loader_subclass_may_set_its_settings_before_init_as_in_torch():
    for M in (D, T):
        class Loader(M.DataLoader):
            def __init__(self, data):
                self.dataset = data
                super().__init__(data, batch_size=2)
        assert len(Loader(list(range(5)))) == 3


# -- iterable datasets --------------------------------------------------------------------------------------

def _streams(M, n, with_len=False):
    class Stream(M.IterableDataset):
        def __iter__(self):
            return iter([(float(i), i % 2) for i in range(n)])

    class Sized(Stream):
        def __len__(self):
            return n
    return Sized() if with_len else Stream()


@pytest.mark.parametrize("kwargs", [dict(batch_size=2), dict(batch_size=2, drop_last=True), dict(batch_size=None),
                                    dict(batch_size=5), dict()], ids=str)
def test_iterable_datasets_batch_in_order_as_torch(kwargs):
    ours = [_plain(b) for b in D.DataLoader(_streams(D, 5), **kwargs)]
    assert ours == [_plain(b) for b in T.DataLoader(_streams(T, 5), **kwargs)]


@pytest.mark.parametrize("kwargs", [dict(batch_size=2), dict(batch_size=2, drop_last=True), dict(batch_size=None)],
                         ids=str)
def test_an_iterable_loaders_length_as_torch(kwargs):
    assert len(D.DataLoader(_streams(D, 5, True), **kwargs)) == len(T.DataLoader(_streams(T, 5, True), **kwargs))
    for M in (D, T):
        with pytest.raises(TypeError):
            len(M.DataLoader(_streams(M, 5), **kwargs))


@pytest.mark.parametrize("kwargs", [dict(shuffle=True), dict(sampler=[0]), dict(batch_sampler=[[0]])], ids=str)
def test_an_iterable_dataset_refuses_an_order_as_torch(kwargs):
    with pytest.raises(ValueError, match="IterableDataset"):
        T.DataLoader(_streams(T, 3), **kwargs)
    with pytest.raises(ValueError, match="IterableDataset"):
        D.DataLoader(_streams(D, 3), **kwargs)


def test_chained_iterable_datasets_as_torch():
    for M in (D, T):
        chained = M.ChainDataset([_streams(M, 2, True), _streams(M, 3, True)])
        assert [x for x, _ in chained] == [0.0, 1.0, 0.0, 1.0, 2.0] and len(chained) == 5
        assert [x for x, _ in _streams(M, 1) + _streams(M, 2)] == [0.0, 0.0, 1.0]
        with pytest.raises(TypeError, match="__iter__"):
            M.IterableDataset()


def test_a_chain_of_something_else_is_refused_as_torch():
    for M in (D, T):
        with pytest.raises(AssertionError):
            list(M.ChainDataset([[1, 2]]))
