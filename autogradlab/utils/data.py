"""``torch.utils.data``'s names: datasets, splitting them, and the ``DataLoader`` that batches them.

    from autogradlab.utils.data import DataLoader, Dataset, TensorDataset, random_split

    train, val = random_split(TensorDataset(X, y), [0.8, 0.2])
    loader = DataLoader(train, batch_size=64, shuffle=True)
    for epoch in range(10):
        for xb, yb in loader:          # a new order every epoch, drawn from the library generator
            ...

A *dataset* is anything with ``len(ds)`` and ``ds[i]`` (one sample: a tensor, a number, a NumPy array,
or a tuple / list / dict of those). The loader takes ``batch_size`` samples at a time and *collates*
them with :func:`default_collate`: tensors and arrays are stacked along a new first dimension, numbers
become a tensor, and the structure around them (tuple, dict) is kept, so a dataset whose samples are
``(image, label)`` gives batches ``[images (B, ...), labels (B,)]``.

The toolkit's own extras (not in PyTorch): ``DataLoader((X, y), ...)`` reads a tuple of tensors as a
``TensorDataset``, and ``seed=`` gives a loader its own seeded shuffle. ``autogradlab.data`` (the toy
datasets) re-exports ``DataLoader`` and ``TensorDataset`` from here.

Randomness (``shuffle=True``, :func:`random_split`) comes from ``generator=``: ``None`` means the
library generator, so ``autogradlab.manual_seed`` makes it reproducible; an ``autogradlab.Generator``
(``Generator().manual_seed(42)``, PyTorch's idiom) or a ``numpy.random.Generator`` is used as given.
"""
from __future__ import annotations

import bisect
import collections.abc
import math
import numbers
import operator
import warnings
from typing import Generic, TypeVar

import numpy

from .. import backend, creation
from ..ops.shape import stack
from ..tensor import Tensor, tensor

__all__ = ["Dataset", "TensorDataset", "ConcatDataset", "Subset", "random_split", "default_collate",
           "DataLoader", "DatasetArgumentError"]

T_co = TypeVar("T_co", covariant=True)


class DatasetArgumentError(ValueError, AssertionError):
    """A dataset built from arguments that do not fit together (tensors of different lengths, no datasets).

    PyTorch raises ``AssertionError`` for these; the fault is a bad value, hence ``ValueError``. This class
    is both, so an ``except`` written for either (here or in torch code) catches it."""


# -- datasets ------------------------------------------------------------------------------------

class Dataset(Generic[T_co]):
    """The base class of map-style datasets: subclass it and define ``__getitem__(i)`` (sample i) and
    ``__len__()``. ``a + b`` is ``ConcatDataset([a, b])``: a's samples, then b's.

        class Squares(Dataset):
            def __init__(self, n): self.n = n
            def __len__(self): return self.n
            def __getitem__(self, i): return autogradlab.tensor([float(i)]), i * i
    """

    def __getitem__(self, index) -> T_co:
        raise NotImplementedError(f"{type(self).__name__} subclasses Dataset but defines no __getitem__: add "
                                  f"`def __getitem__(self, index):` returning sample `index` (and `__len__`)")

    def __add__(self, other: Dataset) -> ConcatDataset:
        return ConcatDataset([self, other])


class TensorDataset(Dataset):
    """Tensors that share their first dimension; item i is ``tuple(t[i] for t in tensors)``."""

    def __init__(self, *tensors: Tensor):
        if not tensors:
            raise DatasetArgumentError("TensorDataset needs at least one tensor, e.g. TensorDataset(X, y)")
        for i, t in enumerate(tensors):
            if not isinstance(t, Tensor):
                raise TypeError(f"TensorDataset: argument {i} is a {type(t).__name__}, expected a Tensor "
                                f"(convert it with autogradlab.tensor(...))")
            if t.ndim == 0 or t.shape[0] != tensors[0].shape[0]:
                raise DatasetArgumentError("Size mismatch between tensors: shapes "
                                           + ", ".join(str(tuple(t.shape)) for t in tensors)
                                           + " (all need the same first dimension, one row per sample)")
        self.tensors = tuple(tensors)

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


class ConcatDataset(Dataset):
    """Datasets one after another: with lengths 3 and 2, index 3 is the second dataset's sample 0.

    ``cumulative_sizes[k]`` is the number of samples in datasets 0..k; sample i lives in the first dataset
    whose cumulative size exceeds i (a binary search). Negative indices count from the end."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise DatasetArgumentError("ConcatDataset needs at least one dataset, got an empty iterable")
        self.cumulative_sizes, total = [], 0
        for k, d in enumerate(self.datasets):
            if not hasattr(d, "__len__"):
                raise TypeError(f"ConcatDataset: dataset {k} ({type(d).__name__}) has no __len__, so its "
                                f"samples cannot be numbered")
            total += len(d)
            self.cumulative_sizes.append(total)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        try:
            idx = operator.index(idx)
        except TypeError:
            raise TypeError(f"ConcatDataset indices must be integers, got {type(idx).__name__}; take several "
                            f"samples with a Subset or a list comprehension") from None
        n = len(self)
        if idx < 0:
            if -idx > n:
                raise ValueError(f"index {idx} is out of range for a ConcatDataset of {n} samples "
                                 f"(a negative index counts from the end: -{n} is the first sample)")
            idx += n
        if idx >= n:
            raise IndexError(f"index {idx} is out of range for a ConcatDataset of {n} samples")
        k = bisect.bisect_right(self.cumulative_sizes, idx)
        return self.datasets[k][idx - (self.cumulative_sizes[k - 1] if k else 0)]


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, renumbered 0..len(indices)-1: ``sub[j]`` is
    ``dataset[indices[j]]``. (:func:`random_split` returns these.)"""

    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self) -> int:
        return len(self.indices)


# -- random_split ------------------------------------------------------------------------------------

def _numpy_generator(generator, name):
    """The NumPy stream behind ``generator=``: the library's (seeded by ``manual_seed``) for None, an
    ``autogradlab.Generator``'s, or a ``numpy.random.Generator`` as it is."""
    try:
        return creation.generator(generator)
    except TypeError as exc:
        raise TypeError(f"{name}: {exc}") from None


def _lengths_from_fractions(n, fractions):
    """Integer lengths for fractions summing to 1: floor(n * f) each, then the remaining samples handed
    out one at a time to splits 0, 1, 2, ... (round-robin), so 10 samples at [0.5, 0.25, 0.25] give
    floors [5, 2, 2] and the one left over goes to split 0: [6, 2, 2]."""
    lengths = []
    for i, f in enumerate(fractions):
        if not 0 <= f <= 1:
            raise ValueError(f"random_split: fraction {f} at index {i} is not between 0 and 1")
        lengths.append(math.floor(n * f))
    for i in range(n - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(f"random_split: split {i} gets 0 of the {n} samples (fraction {fractions[i]}), "
                          f"an empty dataset", UserWarning, stacklevel=3)
    return lengths


def random_split(dataset, lengths, generator=None) -> list[Subset]:
    """Split ``dataset`` into non-overlapping :class:`Subset` s of the given ``lengths``, at random.

    ``lengths`` are integers summing to ``len(dataset)``, or fractions summing to 1 (then turned into
    integers: see :func:`_lengths_from_fractions`). One random permutation of ``range(len(dataset))`` is
    cut into consecutive pieces of those lengths, so every sample lands in exactly one split. The
    permutation comes from ``generator`` (None: the library generator, reproducible under
    ``autogradlab.manual_seed``).
    """
    lengths = list(lengths)
    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        lengths = _lengths_from_fractions(n, lengths)
    if sum(lengths) != n:
        raise ValueError(f"random_split: the lengths {lengths} sum to {sum(lengths)}, but the dataset has {n} "
                         f"samples; they must be equal (or give fractions that sum to 1)")
    for i, length in enumerate(lengths):
        if not isinstance(length, numbers.Integral) or isinstance(length, bool):
            raise TypeError(f"random_split: length {length!r} at index {i} is not an integer; give integer "
                            f"lengths summing to len(dataset) = {n}, or fractions summing to 1")
        if length < 0:
            raise ValueError(f"random_split: length {length} at index {i} is negative")
    order = _numpy_generator(generator, "random_split").permutation(n).tolist()
    splits, start = [], 0
    for length in lengths:
        splits.append(Subset(dataset, order[start:start + length]))
        start += length
    return splits


# -- collate ------------------------------------------------------------------------------------

def _check_same_shape(batch):
    first = tuple(batch[0].shape)
    for i, item in enumerate(batch):
        if tuple(item.shape) != first:
            raise RuntimeError(f"default_collate: sample 0 has shape {first} but sample {i} has shape "
                               f"{tuple(item.shape)}; stacking a batch needs one shape: resize or pad the "
                               f"samples, or pass DataLoader(..., collate_fn=your_function)")


def default_collate(batch):
    """Samples -> one batch, by the type of the first sample (as ``torch.utils.data.default_collate``):

    * Tensor: ``stack`` along a new dimension 0 (shape (B, ...));
    * NumPy array: the same, as a tensor; a NumPy scalar: a tensor of its dtype;
    * Python float: float64 tensor; int: int64 tensor (bool: bool tensor); str / bytes: the list as is;
    * dict: a dict (the same mapping type) collating each key's values;
    * namedtuple: the same namedtuple of collated fields; tuple: a *list* of collated positions (as
      PyTorch, whose DataLoader gives ``[xb, yb]`` for ``(x, y)`` samples); list: a list of them.
    """
    elem = batch[0]
    if isinstance(elem, Tensor):
        _check_same_shape(batch)
        return stack(list(batch), 0)
    if isinstance(elem, numpy.ndarray):
        if elem.dtype.kind in "SaUO":
            raise TypeError(f"default_collate: NumPy arrays of dtype {elem.dtype} (strings or objects) cannot "
                            f"become a tensor; convert them to numbers in __getitem__, or pass collate_fn=")
        _check_same_shape(batch)
        return creation.as_tensor(numpy.stack(batch))
    if isinstance(elem, (numpy.bool_, numpy.number)):
        return creation.as_tensor(numpy.asarray(batch))
    if isinstance(elem, float):
        return tensor(batch, dtype="float64")
    if isinstance(elem, int):
        return tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        collated = {key: default_collate([sample[key] for sample in batch]) for key in elem}
        try:
            return type(elem)(collated)
        except TypeError:          # a mapping type that cannot be built from a dict
            return collated
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):   # a namedtuple
        return type(elem)(*(default_collate(list(field)) for field in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(sample) != len(elem) for sample in batch):
            raise RuntimeError(f"default_collate: the samples are sequences of different lengths "
                               f"{sorted({len(s) for s in batch})}; each needs the same number of parts")
        return [default_collate(list(position)) for position in zip(*batch)]
    raise TypeError(f"default_collate: cannot batch samples of type {type(elem).__name__}; a sample must be "
                    f"tensors, NumPy arrays, numbers, strings, or dicts / tuples / lists of them "
                    f"(or pass DataLoader(..., collate_fn=your_function))")


def _stacked_rows(dataset, indices):
    """``default_collate([dataset[i] for i in indices])`` for a Tensor, a TensorDataset or a Subset of one,
    computed by indexing each tensor once with all the indices (a copy, as stacking makes); None for any
    other dataset. The same batch, without making a tensor per sample."""
    while type(dataset) is Subset:
        indices = [int(dataset.indices[i]) for i in indices]
        dataset = dataset.dataset
    if isinstance(dataset, Tensor):
        return dataset[backend.asarray(numpy.asarray(indices, dtype=numpy.int64), dataset.device)]
    if type(dataset) is TensorDataset:
        index = numpy.asarray(indices, dtype=numpy.int64)
        return [t[backend.asarray(index, t.device)] for t in dataset.tensors]
    return None


# -- DataLoader ------------------------------------------------------------------------------------

class DataLoader:
    """Iterate over ``dataset`` in batches of ``batch_size`` samples, collated by ``collate_fn``
    (:func:`default_collate` by default). ``len(loader)`` is the number of batches.

    * ``shuffle=True`` draws a new order each epoch (each ``for`` loop) from ``generator`` (None: the
      library generator, reproducible under ``autogradlab.manual_seed``) or, with ``seed=`` (not in
      PyTorch), from the loader's own generator seeded once. Every sample appears exactly once per epoch.
    * ``drop_last=True`` drops a final batch shorter than ``batch_size``.
    * ``num_workers`` is accepted and the samples are loaded in this process whatever its value: in
      PyTorch, worker processes change how fast batches come, not which batches or their order, and a
      dataset held in memory as tensors gains nothing from them. ``pin_memory`` is accepted and ignored
      for the same reason (it only speeds up copies to a GPU).

    ``dataset`` may also be a tuple of tensors ``(X, y)`` (read as ``TensorDataset(X, y)``; not in
    PyTorch) or a single Tensor (batches are row blocks of it). For a Tensor, a TensorDataset, or a Subset
    of either, the loader indexes the tensors once per batch instead of stacking sample by sample; the
    batches are the same.
    """

    def __init__(self, dataset, batch_size=1, shuffle=None, *, num_workers=0, collate_fn=None,
                 pin_memory=False, drop_last=False, generator=None, seed=None):
        if isinstance(dataset, tuple):
            if not all(isinstance(t, Tensor) for t in dataset):
                raise TypeError(f"DataLoader: a tuple dataset is read as tensors (X, y, ...) sharing their first "
                                f"dimension, but it holds {', '.join(type(t).__name__ for t in dataset)}; for a "
                                f"dataset of samples pass a list or a Dataset")
            dataset = TensorDataset(*dataset)
        if not hasattr(dataset, "__len__") or not hasattr(dataset, "__getitem__"):
            raise TypeError(f"DataLoader: dataset must have __len__ and __getitem__ (a Dataset subclass, a "
                            f"TensorDataset, a list of samples, a Tensor or a tuple of tensors), got "
                            f"{type(dataset).__name__}")
        if (not isinstance(batch_size, numbers.Integral) or isinstance(batch_size, bool)) or batch_size <= 0:
            raise ValueError(f"DataLoader: batch_size must be a positive integer, got batch_size={batch_size!r}"
                             + (" (batching cannot be turned off here: use batch_size=1)" if batch_size is None
                                else ""))
        if not isinstance(drop_last, bool):
            raise ValueError(f"DataLoader: drop_last must be True or False, got drop_last={drop_last!r}")
        if not isinstance(num_workers, numbers.Integral) or num_workers < 0:
            raise ValueError(f"DataLoader: num_workers must be an integer >= 0, got {num_workers!r}; samples "
                             f"are loaded in this process whatever the value (use num_workers=0)")
        if seed is not None and generator is not None:
            raise ValueError("DataLoader: give seed= or generator=, not both (both choose the shuffle's generator)")
        if generator is not None:
            _numpy_generator(generator, "DataLoader")       # (checked now, not at the first batch)
        self.dataset, self.batch_size, self.drop_last = dataset, int(batch_size), drop_last
        self.shuffle, self.generator, self.seed = bool(shuffle), generator, seed
        self.num_workers, self.pin_memory = int(num_workers), bool(pin_memory)
        self.collate_fn = default_collate if collate_fn is None else collate_fn
        self._own_rng = numpy.random.default_rng(seed) if seed is not None else None

    def __len__(self) -> int:
        n = len(self.dataset)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            rng = self._own_rng or _numpy_generator(self.generator, "DataLoader")
            order = rng.permutation(n).tolist()
        else:
            order = list(range(n))
        stop = n - n % self.batch_size if self.drop_last else n
        for lo in range(0, stop, self.batch_size):
            yield self._batch(order[lo:lo + self.batch_size])

    def _batch(self, indices):
        if self.collate_fn is default_collate:
            rows = _stacked_rows(self.dataset, indices)
            if rows is not None:
                return rows
        return self.collate_fn([self.dataset[i] for i in indices])
