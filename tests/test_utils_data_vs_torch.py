"""utils.data: Dataset, TensorDataset, ConcatDataset, Subset, random_split, default_collate and DataLoader
behave as torch.utils.data's do where the result is deterministic (batches, lengths, structure, dtypes,
errors), and where it is random, as a split / shuffle must (a partition; each sample once per epoch;
reproducible under manual_seed)."""
import collections
import warnings

import numpy as np
import pytest
from conftest import host, import_torch

import autogradlab as ag
from autogradlab import data as toolkit_data
from autogradlab.utils import data as D

torch = import_torch()
T = torch.utils.data


# -- helpers -----------------------------------------------------------------------------------------

def _plain(batch):
    """A batch (ours or torch's) as nested Python containers of (dtype name, shape, values) leaves, with the
    container types kept, so two batches compare with ==."""
    if isinstance(batch, ag.Tensor):
        array = host(batch.data)
        return ("tensor", array.dtype.name, tuple(array.shape), array.tolist())
    if isinstance(batch, torch.Tensor):
        array = batch.numpy()
        return ("tensor", array.dtype.name, tuple(array.shape), array.tolist())
    if isinstance(batch, dict):
        return (type(batch).__name__, {k: _plain(v) for k, v in batch.items()})
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return ("namedtuple", type(batch).__name__, [_plain(v) for v in batch])
    if isinstance(batch, (list, tuple)):
        return (type(batch).__name__, [_plain(v) for v in batch])
    return ("leaf", batch)


def _swap(sample, to_torch):
    """A sample made of our tensors as the same sample made of torch's (or unchanged, when to_torch is False)."""
    if not to_torch:
        return sample
    if isinstance(sample, ag.Tensor):
        return torch.from_numpy(host(sample.data).copy())
    if isinstance(sample, dict):
        return type(sample)({k: _swap(v, True) for k, v in sample.items()})
    if isinstance(sample, tuple) and hasattr(sample, "_fields"):
        return type(sample)(*(_swap(v, True) for v in sample))
    if isinstance(sample, (list, tuple)):
        return type(sample)(_swap(v, True) for v in sample)
    return sample


Point = collections.namedtuple("Point", "x label")

SAMPLES = {   # sample i -> what a lab's Dataset.__getitem__ might return
    "tensor and int label": lambda i: (ag.tensor([float(i), -i / 2], dtype="float32"), i % 3),
    "numpy array and float target": lambda i: (np.arange(3, dtype=np.float32) * i, 0.5 * i),
    "dict": lambda i: {"x": ag.tensor([[i, i + 1]]), "name": f"s{i}", "flag": i % 2 == 0},
    "numpy scalars": lambda i: (np.float32(i) / 4, np.int64(i), np.bool_(i % 2)),
    "nested list": lambda i: [i, [float(i), ag.tensor(i * 1.5)]],
    "namedtuple": lambda i: Point(ag.tensor([i, 2 * i], dtype="float64"), i),
    "bare tensor": lambda i: ag.tensor([i, i * i]),
}


def _dataset_classes(sample):
    """The same Dataset subclass written against autogradlab and against torch."""

    class Ours(D.Dataset):
        def __len__(self):
            return 7

        def __getitem__(self, i):
            return sample(i)

    class Theirs(T.Dataset):
        def __len__(self):
            return 7

        def __getitem__(self, i):
            return _swap(sample(i), True)

    return Ours(), Theirs()


def _tensors(n=10):
    X = ag.arange(2 * n, dtype=ag.float32).reshape(n, 2)
    y = ag.arange(n) % 3
    return X, y


def _torch_of(*tensors):
    return [torch.from_numpy(host(t.data).copy()) for t in tensors]


# -- DataLoader: batches without shuffle ----------------------------------------------------------

@pytest.mark.parametrize("kind", sorted(SAMPLES))
@pytest.mark.parametrize("batch_size, drop_last", [(1, False), (3, False), (3, True), (7, False), (10, True)])
def test_dataset_subclass_batches_match_torch(kind, batch_size, drop_last):
    ours, theirs = _dataset_classes(SAMPLES[kind])
    a = D.DataLoader(ours, batch_size=batch_size, drop_last=drop_last)
    b = T.DataLoader(theirs, batch_size=batch_size, drop_last=drop_last)
    assert len(a) == len(b)
    assert [_plain(x) for x in a] == [_plain(x) for x in b]


def test_tensor_and_int_label_batch_is_tensor_and_int64():
    ours, _ = _dataset_classes(SAMPLES["tensor and int label"])
    xb, yb = next(iter(D.DataLoader(ours, batch_size=4)))
    assert isinstance(xb, ag.Tensor) and xb.shape == (4, 2) and xb.dtype == np.float32
    assert isinstance(yb, ag.Tensor) and yb.shape == (4,) and yb.dtype == np.int64


@pytest.mark.parametrize("batch_size, drop_last", [(1, False), (4, False), (4, True), (10, False), (32, True)])
def test_tensor_dataset_batches_match_torch(batch_size, drop_last):
    X, y = _tensors(10)
    a = D.DataLoader(D.TensorDataset(X, y), batch_size=batch_size, drop_last=drop_last)
    b = T.DataLoader(T.TensorDataset(*_torch_of(X, y)), batch_size=batch_size, drop_last=drop_last)
    assert len(a) == len(b)
    assert [_plain(x) for x in a] == [_plain(x) for x in b]     # lists [xb, yb], as torch's


def test_single_tensor_and_list_of_samples_match_torch():
    X, y = _tensors(5)
    (tX,) = _torch_of(X)
    assert [_plain(b) for b in D.DataLoader(X, batch_size=2)] == [_plain(b) for b in T.DataLoader(tX, batch_size=2)]
    samples = [(float(i), i) for i in range(5)]                  # a list is a dataset of samples, as in torch
    assert ([_plain(b) for b in D.DataLoader(samples, batch_size=2)]
            == [_plain(b) for b in T.DataLoader(samples, batch_size=2)])
    assert ([_plain(b) for b in D.DataLoader(range(5), batch_size=3)]
            == [_plain(b) for b in T.DataLoader(range(5), batch_size=3)])


@pytest.mark.parametrize("n", [0, 1, 5, 6, 7, 12])
@pytest.mark.parametrize("batch_size", [1, 2, 3, 6, 13])
@pytest.mark.parametrize("drop_last", [False, True])
def test_len_loader_matches_torch(n, batch_size, drop_last):
    a = D.DataLoader(list(range(n)), batch_size=batch_size, drop_last=drop_last)
    b = T.DataLoader(list(range(n)), batch_size=batch_size, drop_last=drop_last)
    assert len(a) == len(b) == len(list(a)) == len(list(b))


def test_custom_collate_fn_gets_the_list_of_samples_as_torch():
    ours, theirs = _dataset_classes(SAMPLES["numpy array and float target"])
    a = list(D.DataLoader(ours, batch_size=3, collate_fn=lambda batch: [s[1] for s in batch]))
    b = list(T.DataLoader(theirs, batch_size=3, collate_fn=lambda batch: [s[1] for s in batch]))
    assert a == b == [[0.0, 0.5, 1.0], [1.5, 2.0, 2.5], [3.0]]


def test_num_workers_loads_in_process_with_the_same_batches():
    """Decision: num_workers > 0 is accepted and ignored (batches are loaded in this process); torch's
    workers change the speed, not the batches, so the result equals torch's with num_workers=0."""
    ours, theirs = _dataset_classes(SAMPLES["tensor and int label"])
    a = [_plain(b) for b in D.DataLoader(ours, batch_size=3, num_workers=4, pin_memory=True)]
    assert a == [_plain(b) for b in D.DataLoader(ours, batch_size=3, num_workers=0)]
    assert a == [_plain(b) for b in T.DataLoader(theirs, batch_size=3, num_workers=0)]


# -- default_collate directly ----------------------------------------------------------------------

COLLATE_CASES = {
    "tensors": [ag.tensor([1.0, 2.0]), ag.tensor([3.0, 4.0])],
    "ints": [1, 2, 3],
    "floats": [1.5, 2, 3],          # (the first sample's type decides: float64)
    "bools": [True, False],
    "ints and bools": [1, True],
    "float32 arrays": [np.ones((2, 2), np.float32), np.zeros((2, 2), np.float32)],
    "int arrays": [np.arange(3), np.arange(3) + 1],
    "0-d arrays": [np.array(1.5), np.array(2.5)],
    "numpy scalars": [np.float64(1), np.float64(2)],
    "strings": ["a", "b"],
    "dicts": [{"a": 1, "b": "x", "c": 0.5}, {"a": 2, "b": "y", "c": 1.5}],
    "ordered dicts": [collections.OrderedDict(k=1), collections.OrderedDict(k=2)],
    "tuples": [(1, 2.0), (3, 4.0)],
    "lists": [[1, 2.0], [3, 4.0]],
    "nested": [(1, {"z": [1.0, (2, 3)]}), (4, {"z": [5.0, (6, 7)]})],
    "namedtuples": [Point(1.0, 2), Point(3.0, 4)],
}


@pytest.mark.parametrize("case", sorted(COLLATE_CASES))
def test_default_collate_matches_torch(case):
    batch = COLLATE_CASES[case]
    assert _plain(D.default_collate(batch)) == _plain(T.default_collate([_swap(s, True) for s in batch]))


@pytest.mark.parametrize("batch", [
    [ag.zeros(3), ag.zeros(2)],                 # tensors of different shapes
    [np.zeros(3), np.zeros(2)],                 # arrays of different shapes
    [(1, 2), (1, 2, 3)],                        # samples with different numbers of parts
    [object(), object()],                       # not batchable
    [np.array(["a"]), np.array(["b"])],         # string arrays
], ids=["tensor shapes", "array shapes", "sequence lengths", "object", "string array"])
def test_default_collate_errors_match_torch(batch):
    with pytest.raises(Exception) as theirs:
        T.default_collate([_swap(s, True) for s in batch])
    with pytest.raises(Exception) as ours:
        D.default_collate(batch)
    assert type(ours.value) is type(theirs.value)
    assert "collate" in str(ours.value)       # (ours names where it went wrong)


# -- Dataset, ConcatDataset, Subset ----------------------------------------------------------------

def test_concat_dataset_indexing_matches_torch_including_negative_indices():
    parts = [list(range(3)), list(range(10, 12)), [], list(range(20, 24))]
    ours, theirs = D.ConcatDataset(parts), T.ConcatDataset(parts)
    n = len(theirs)
    assert len(ours) == n == 9 and ours.cumulative_sizes == theirs.cumulative_sizes
    assert [ours[i] for i in range(-n, n)] == [theirs[i] for i in range(-n, n)]
    for bad in (n, -n - 1):
        with pytest.raises(Exception) as t_err:
            theirs[bad]
        with pytest.raises(type(t_err.value)):
            ours[bad]


def test_concat_dataset_of_tensor_datasets_matches_torch():
    X, y = _tensors(6)
    tX, ty = _torch_of(X, y)
    ours = D.ConcatDataset([D.TensorDataset(X[:4], y[:4]), D.TensorDataset(X[4:], y[4:])])
    theirs = T.ConcatDataset([T.TensorDataset(tX[:4], ty[:4]), T.TensorDataset(tX[4:], ty[4:])])
    assert [_plain(list(ours[i])) for i in range(-6, 6)] == [_plain(list(theirs[i])) for i in range(-6, 6)]
    assert ([_plain(b) for b in D.DataLoader(ours, batch_size=4)]
            == [_plain(b) for b in T.DataLoader(theirs, batch_size=4)])


def test_dataset_plus_gives_concat_dataset_as_torch():
    a, ta = _dataset_classes(SAMPLES["bare tensor"])
    X, _ = _tensors(3)
    ours = a + D.TensorDataset(X) + a
    theirs = ta + T.TensorDataset(*_torch_of(X)) + ta
    assert isinstance(ours, D.ConcatDataset) and len(ours) == len(theirs) == 17
    assert isinstance(ours.datasets[0], D.ConcatDataset)         # (a + b) + c nests, as in torch
    assert [_plain(ours[i]) for i in range(-17, 17)] == [_plain(theirs[i]) for i in range(-17, 17)]


def test_subset_matches_torch():
    base = list(range(100, 110))
    indices = [7, 2, 2, 9, 0]
    ours, theirs = D.Subset(base, indices), T.Subset(base, indices)
    assert len(ours) == len(theirs) == 5
    assert [ours[i] for i in range(-5, 5)] == [theirs[i] for i in range(-5, 5)]
    X, y = _tensors(10)
    ours = D.Subset(D.TensorDataset(X, y), indices)
    theirs = T.Subset(T.TensorDataset(*_torch_of(X, y)), indices)
    assert ([_plain(b) for b in D.DataLoader(ours, batch_size=2)]
            == [_plain(b) for b in T.DataLoader(theirs, batch_size=2)])
    with pytest.raises(IndexError):
        theirs[5]
    with pytest.raises(IndexError):
        ours[5]


def test_dataset_errors_match_torch_classes():
    X, _ = _tensors(4)
    with pytest.raises(AssertionError):
        T.TensorDataset(torch.zeros(4), torch.zeros(3))
    with pytest.raises(AssertionError) as ours:       # also a ValueError (tests/test_data.py checks that)
        D.TensorDataset(X, ag.zeros(3))
    assert isinstance(ours.value, ValueError) and "(4, 2), (3,)" in str(ours.value)
    with pytest.raises(AssertionError):
        T.ConcatDataset([])
    with pytest.raises(AssertionError, match="at least one dataset"):
        D.ConcatDataset([])
    with pytest.raises(NotImplementedError):
        T.Dataset()[0]
    with pytest.raises(NotImplementedError, match="__getitem__"):
        D.Dataset()[0]


# -- random_split ---------------------------------------------------------------------------------------

FRACTIONS = [[0.5, 0.5], [0.8, 0.2], [0.7, 0.2, 0.1], [1 / 3, 1 / 3, 1 / 3], [0.25, 0.25, 0.25, 0.25],
             [0.6, 0.3, 0.1], [0.9, 0.05, 0.05], [0.1] * 10, [1.0], [0.0, 1.0]]


@pytest.mark.parametrize("fractions", FRACTIONS, ids=str)
@pytest.mark.parametrize("n", [1, 2, 3, 7, 10, 11, 99, 100, 101, 1001])
def test_random_split_lengths_from_fractions_match_torch(fractions, n):
    with warnings.catch_warnings(record=True) as theirs_warned:
        warnings.simplefilter("always")
        theirs = [len(s) for s in T.random_split(range(n), fractions, generator=torch.Generator().manual_seed(0))]
    with warnings.catch_warnings(record=True) as ours_warned:
        warnings.simplefilter("always")
        ours = [len(s) for s in D.random_split(range(n), fractions)]
    assert ours == theirs and sum(ours) == n
    assert len(ours_warned) == len(theirs_warned)         # one warning per empty split, as torch
    assert all(issubclass(w.category, UserWarning) for w in ours_warned)


@pytest.mark.parametrize("lengths", [[3, 7], [0, 10], [10], [1, 1, 8]], ids=str)
def test_random_split_is_a_partition_and_reproducible(lengths):
    ds = list(range(100, 110))
    ag.manual_seed(3)
    first = D.random_split(ds, lengths)
    assert [len(s) for s in first] == lengths and all(isinstance(s, D.Subset) for s in first)
    members = [x for s in first for x in (s[i] for i in range(len(s)))]
    assert sorted(members) == ds                                  # disjoint and covering
    ag.manual_seed(3)
    again = D.random_split(ds, lengths)
    assert [s.indices for s in again] == [s.indices for s in first]
    by_generator = D.random_split(ds, lengths, generator=np.random.default_rng(3))
    assert [s.indices for s in by_generator] == [s.indices for s in first]   # (manual_seed's generator)


def test_random_split_differs_between_seeds():
    ag.manual_seed(0)
    a = D.random_split(range(50), [0.5, 0.5])[0].indices
    ag.manual_seed(1)
    b = D.random_split(range(50), [0.5, 0.5])[0].indices
    assert sorted(a) != sorted(b)


@pytest.mark.parametrize("lengths", [[3, 3], [0.5, 0.6], [1.5, -0.5], [2.5, 7.5]], ids=str)
def test_random_split_errors_match_torch_classes(lengths):
    with pytest.raises(Exception) as theirs:
        T.random_split(range(10), lengths, generator=torch.Generator().manual_seed(0))
    with pytest.raises(Exception) as ours:
        D.random_split(range(10), lengths)
    assert type(ours.value) is type(theirs.value) and "random_split" in str(ours.value)


def test_random_split_rejects_a_generator_it_cannot_use():
    with pytest.raises(TypeError, match="numpy.random.Generator"):
        D.random_split(range(4), [2, 2], generator=torch.Generator())


# -- DataLoader: shuffle and arguments -------------------------------------------------------------

@pytest.mark.parametrize("kind", ["tensor dataset", "dataset subclass", "subset"])
@pytest.mark.parametrize("batch_size", [1, 3, 10])
def test_shuffle_gives_each_sample_once_per_epoch_and_new_orders(kind, batch_size):
    X, _ = _tensors(10)         # X[i] = (2i, 2i + 1)
    y = ag.arange(10)           # y[i] = i, so a row and its label stay paired when X[:, 0] == 2y

    class Pairs(D.Dataset):
        def __len__(self):
            return 10

        def __getitem__(self, i):
            return X[i], int(y[i].item())

    dataset = {"tensor dataset": D.TensorDataset(X, y), "dataset subclass": Pairs(),
               "subset": D.Subset(D.TensorDataset(X, y), list(range(9, -1, -1)))}[kind]
    ag.manual_seed(0)
    loader = D.DataLoader(dataset, batch_size=batch_size, shuffle=True)
    epochs = []
    for _ in range(3):
        order = []
        for xb, yb in loader:
            np.testing.assert_array_equal(host(xb.data)[:, 0], 2 * host(yb.data))   # rows stay paired
            order += host(yb.data).tolist()
        assert sorted(order) == list(range(10))
        epochs.append(order)
    assert len({tuple(e) for e in epochs}) > 1
    ag.manual_seed(0)
    assert [[host(yb.data).tolist() for _, yb in loader] for _ in range(3)] == \
           [[e[i:i + batch_size] for i in range(0, 10, batch_size)] for e in epochs]


def test_fast_path_batches_equal_the_sample_by_sample_batches():
    X, y = _tensors(11)

    class Same(D.Dataset):
        def __len__(self):
            return 11

        def __getitem__(self, i):
            return X[i], y[i]

    for fast, slow in [(D.TensorDataset(X, y), Same()), (D.Subset(D.TensorDataset(X, y), [4, 1, 8]),
                                                          D.Subset(Same(), [4, 1, 8]))]:
        ag.manual_seed(5)
        a = [_plain(b) for b in D.DataLoader(fast, batch_size=4, shuffle=True)]
        ag.manual_seed(5)
        b = [_plain(b) for b in D.DataLoader(slow, batch_size=4, shuffle=True)]
        assert a == b


def test_fast_path_batches_are_copies_as_torch_stacks():
    X, y = _tensors(4)
    xb, _ = next(iter(D.DataLoader(D.TensorDataset(X, y), batch_size=2)))
    xb.data[...] = -1
    assert host(X.data).min() == 0


def test_generator_from_manual_seed_and_seed_argument():
    X, y = _tensors(12)
    ds = D.TensorDataset(X, y)
    a = [host(b[1].data).tolist() for b in D.DataLoader(ds, batch_size=5, shuffle=True, generator=ag.manual_seed(4))]
    b = [host(b[1].data).tolist() for b in D.DataLoader(ds, batch_size=5, shuffle=True,
                                                        generator=np.random.default_rng(4))]
    c = [host(b[1].data).tolist() for b in D.DataLoader(ds, batch_size=5, shuffle=True, seed=4)]
    assert a == b == c
    with pytest.raises(TypeError, match="numpy.random.Generator"):
        D.DataLoader(ds, shuffle=True, generator=torch.Generator())
    with pytest.raises(ValueError, match="seed= or generator="):
        D.DataLoader(ds, shuffle=True, generator=np.random.default_rng(0), seed=0)


@pytest.mark.parametrize("kwargs", [dict(batch_size=0), dict(batch_size=1.5), dict(batch_size=True),
                                    dict(drop_last=1), dict(num_workers=-1)], ids=str)
def test_loader_argument_errors_match_torch_classes(kwargs):
    with pytest.raises(Exception) as theirs:
        T.DataLoader(list(range(4)), **kwargs)
    with pytest.raises(Exception) as ours:
        D.DataLoader(list(range(4)), **kwargs)
    assert type(ours.value) is type(theirs.value) and "DataLoader" in str(ours.value)


def test_loader_rejects_what_is_not_a_dataset():
    with pytest.raises(TypeError, match="__len__ and __getitem__"):
        D.DataLoader(iter(range(3)))
    with pytest.raises(TypeError, match="tuple dataset"):
        D.DataLoader((np.zeros(3), np.zeros(3)))


# -- one implementation, torch's names -------------------------------------------------------------

def test_one_implementation_under_both_names_and_torch_names_exist():
    from autogradlab.utils.data import DataLoader, TensorDataset
    assert DataLoader is toolkit_data.DataLoader and TensorDataset is toolkit_data.TensorDataset
    assert ag.utils.data is D
    for name in D.__all__:
        if name != "DatasetArgumentError":
            assert hasattr(T, name), name


def test_toolkit_extras_still_work_with_torch_shaped_batches():
    X, y = _tensors(5)
    batches = list(toolkit_data.DataLoader((X, y), batch_size=2, shuffle=True, seed=0))
    assert [len(b) for b in batches] == [2, 2, 2] and all(isinstance(b, list) for b in batches)
    assert sorted(v for _, yb in batches for v in host(yb.data).tolist()) == sorted(host(y.data).tolist())
