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
import multiprocessing
import numbers
import operator
import warnings
from typing import Generic, TypeVar

import numpy

from .. import backend, creation
from ..ops.shape import stack
from ..tensor import Tensor, tensor
from .samplers import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                       WeightedRandomSampler, _stream)

__all__ = ["Dataset", "IterableDataset", "ChainDataset", "TensorDataset", "ConcatDataset", "Subset", "StackDataset",
           "random_split", "get_worker_info", "default_collate", "default_convert", "DataLoader",
           "DatasetArgumentError", "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler"]

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


class IterableDataset(Dataset[T_co], collections.abc.Iterable):
    """The base class of datasets read as a stream: subclass it with ``__iter__`` yielding samples (a file read
    line by line, samples generated on the fly); without one, making it raises TypeError, as in PyTorch. A
    DataLoader takes the samples in order, ``batch_size`` at a time; ``a + b`` is ``ChainDataset([a, b])``."""

    def __add__(self, other) -> ChainDataset:
        return ChainDataset([self, other])


class ChainDataset(IterableDataset):
    """Iterable datasets one after another: all of the first's samples, then the second's, ..."""

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for dataset in self.datasets:
            if not isinstance(dataset, IterableDataset):
                raise DatasetArgumentError(f"ChainDataset only supports IterableDataset, got "
                                           f"{type(dataset).__name__}")
            yield from dataset

    def __len__(self) -> int:
        return sum(len(d) for d in self.datasets)


class _InfiniteConstantSampler(Sampler):
    """An iterable dataset's loader's sampler (PyTorch's): None forever, as the dataset picks its samples."""

    def __iter__(self):
        while True:
            yield None


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


class Subset(Dataset[T_co]):
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


class StackDataset(Dataset):
    """Datasets of equal length side by side: item i is ``(a[i], b[i], ...)`` for ``StackDataset(a, b, ...)``,
    or ``{"x": a[i], "y": b[i]}`` for ``StackDataset(x=a, y=b)`` (one form or the other, not both)."""

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("StackDataset takes its datasets either by position (items are tuples) or by name "
                             "(items are dicts), not both")
        if not (args or kwargs):
            raise ValueError("StackDataset needs at least one dataset, e.g. StackDataset(images, labels)")
        self.datasets = args or kwargs
        lengths = [len(d) for d in (args or kwargs.values())]
        if len(set(lengths)) != 1:
            raise ValueError(f"Size mismatch between datasets: their lengths are {lengths}; stacked datasets "
                             f"need one sample each per index")
        self._length = lengths[0]

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {name: d[index] for name, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices):
        """Items ``indices`` at once, each dataset asked through its own ``__getitems__`` where it has one."""
        parts = self.datasets.values() if isinstance(self.datasets, dict) else self.datasets
        columns = []
        for d in parts:
            many = getattr(d, "__getitems__", None)
            column = list(many(indices)) if callable(many) else [d[i] for i in indices]
            if len(column) != len(indices):
                raise ValueError(f"Nested dataset's output size mismatch: expected {len(indices)} samples, "
                                 f"got {len(column)}")
            columns.append(column)
        if isinstance(self.datasets, dict):
            return [dict(zip(self.datasets, row)) for row in zip(*columns)]
        return [tuple(row) for row in zip(*columns)]

    def __len__(self) -> int:
        return self._length


def get_worker_info():
    """The worker process's id, count, seed and dataset copy, in a DataLoader worker; ``None`` in the main
    process. Samples always load in the main process here (whatever ``num_workers``), so this is always
    ``None``, and an ``IterableDataset`` that splits its work by worker yields all of it, once."""
    return None


# -- random_split ------------------------------------------------------------------------------------

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
    lengths = [v.item() if isinstance(v, Tensor) else v for v in lengths]   # (a tensor of lengths, as torch takes)
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
    order = _stream(generator, "random_split").permutation(n).tolist()
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
    * Python float: float64 tensor; int: int64 tensor (bool: bool tensor); str / bytes: the batch as is (a
      tuple of them for a position of tuple samples, as PyTorch's);
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
        if all(getattr(item, "dtype", None) == elem.dtype for item in batch):   # (a Python number: no dtype)
            return creation.as_tensor(numpy.asarray(batch))
        return stack([creation.as_tensor(item) for item in batch], 0)   # (mixed dtypes promote as PyTorch's)
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
        return type(elem)(*(default_collate(field) for field in zip(*batch)))   # (strings stay a tuple)
    if isinstance(elem, collections.abc.Sequence):
        if any(len(sample) != len(elem) for sample in batch):
            raise RuntimeError(f"default_collate: the samples are sequences of different lengths "
                               f"{sorted({len(s) for s in batch})}; each needs the same number of parts")
        collated = [default_collate(position) for position in zip(*batch)]   # (strings: a tuple, as PyTorch's)
        return collated if isinstance(elem, tuple) else _same_sequence_type(elem, collated)
    raise TypeError(f"default_collate: cannot batch samples of type {type(elem).__name__}; a sample must be "
                    f"tensors, NumPy arrays, numbers, strings, or dicts / tuples / lists of them "
                    f"(or pass DataLoader(..., collate_fn=your_function))")


def _same_sequence_type(elem, items):
    """``items`` as a sequence of ``elem``'s type (a list subclass stays itself), or a list if that type
    cannot be built from a list."""
    try:
        return type(elem)(items)
    except TypeError:
        return items


def default_convert(data):
    """One sample as a batch-less loader gives it (``DataLoader(..., batch_size=None)``): NumPy arrays and
    scalars become tensors, inside dicts, namedtuples and sequences too (a tuple becomes a list, as in
    PyTorch); tensors, numbers and strings stay as they are."""
    if isinstance(data, numpy.ndarray) and data.dtype.kind not in "SaUO":
        return creation.as_tensor(data)
    if isinstance(data, (numpy.bool_, numpy.number)):
        return creation.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        converted = {key: default_convert(value) for key, value in data.items()}
        try:
            return type(data)(converted)
        except TypeError:
            return converted
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _same_sequence_type(data, [default_convert(d) for d in data])
    return data


def _stacked_rows(dataset, indices):
    """``default_collate([dataset[i] for i in indices])`` for a Tensor, a TensorDataset or a Subset of one,
    computed by indexing each tensor once with all the indices (a copy, as stacking makes); None for any
    other dataset. The same batch, without making a tensor per sample."""
    if not all(isinstance(i, numbers.Integral) and not isinstance(i, bool) for i in indices):
        return None   # (the dataset's own indexing says what is wrong with the index)
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

class DataLoader(Generic[T_co]):
    """Iterate over ``dataset`` in batches of ``batch_size`` samples, collated by ``collate_fn``
    (:func:`default_collate` by default). ``len(loader)`` is the number of batches. PyTorch's signature.

    Which samples, in which order, is the *sampler*'s choice (``loader.sampler``), grouped into lists of
    indices by the *batch sampler* (``loader.batch_sampler``, a :class:`BatchSampler` of ``batch_size``):

    * ``shuffle=True`` uses a :class:`RandomSampler`: a new order each epoch (each ``for`` loop) from
      ``generator`` (None: the library generator, reproducible under ``autogradlab.manual_seed``) or, with
      ``seed=`` (not in PyTorch), from the loader's own generator seeded once. Otherwise a
      :class:`SequentialSampler`: 0, 1, 2, ...
    * ``sampler=`` gives the order yourself (a Sampler, or any iterable of indices with ``len``), e.g.
      ``SubsetRandomSampler(indices)``; ``batch_sampler=`` gives whole batches (lists of indices) and so
      replaces ``batch_size``, ``shuffle``, ``sampler`` and ``drop_last``.
    * ``drop_last=True`` drops a final batch shorter than ``batch_size``.
    * ``batch_size=None`` turns batching off: each sample comes alone, through :func:`default_convert`.
    * ``num_workers``, ``pin_memory``, ``timeout``, ``worker_init_fn``, ``multiprocessing_context``,
      ``prefetch_factor``, ``persistent_workers``, ``pin_memory_device`` and ``in_order`` are checked as
      PyTorch checks them and then have nothing to do: samples are loaded in this process. In PyTorch,
      workers change how fast batches come, not which batches or their order, and a dataset held in memory
      as tensors gains nothing from them.

    ``dataset`` may also be a tuple of tensors ``(X, y)`` (read as ``TensorDataset(X, y)``; not in
    PyTorch) or a single Tensor (batches are row blocks of it). For a Tensor, a TensorDataset, or a Subset
    of either, the loader indexes the tensors once per batch instead of stacking sample by sample; the
    batches are the same.
    """

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", in_order=True, seed=None):
        if isinstance(dataset, tuple):
            if not all(isinstance(t, Tensor) for t in dataset):
                raise TypeError(f"DataLoader: a tuple dataset is read as tensors (X, y, ...) sharing their first "
                                f"dimension, but it holds {', '.join(type(t).__name__ for t in dataset)}; for a "
                                f"dataset of samples pass a list or a Dataset")
            dataset = TensorDataset(*dataset)
        if not isinstance(dataset, IterableDataset) and (not hasattr(dataset, "__len__")
                                                         or not hasattr(dataset, "__getitem__")):
            raise TypeError(f"DataLoader: dataset must have __len__ and __getitem__ (a Dataset subclass, a "
                            f"TensorDataset, a list of samples, a Tensor or a tuple of tensors), got "
                            f"{type(dataset).__name__}")
        _check_workers(num_workers, timeout, multiprocessing_context, prefetch_factor, persistent_workers)
        iterable = isinstance(dataset, IterableDataset)
        if iterable:
            for name, value in (("shuffle", shuffle), ("sampler", sampler), ("batch_sampler", batch_sampler)):
                if value not in (None, False):
                    raise ValueError(f"DataLoader with IterableDataset: expected unspecified {name} option, but got "
                                     f"{name}={value!r} (an iterable dataset gives its samples in its own order)")
            sampler = _InfiniteConstantSampler()
        if sampler is not None and shuffle not in (None, False):
            raise ValueError("DataLoader: sampler option is mutually exclusive with shuffle (the sampler chooses "
                             "the order; for a shuffled subset use sampler=SubsetRandomSampler(indices))")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle not in (None, False) or sampler is not None or drop_last:
                raise ValueError("DataLoader: batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last (the batch sampler already decides them)")
            batch_size, drop_last = None, False
        elif batch_size is None:
            if drop_last:
                raise ValueError("DataLoader: batch_size=None option disables auto-batching and is mutually "
                                 "exclusive with drop_last")
        elif not isinstance(batch_size, numbers.Integral) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"DataLoader: batch_size must be a positive integer (or None: no batching), got "
                             f"batch_size={batch_size!r}")
        if batch_sampler is None and batch_size is not None and not isinstance(drop_last, bool):
            raise ValueError(f"DataLoader: drop_last must be True or False, got drop_last={drop_last!r}")
        if seed is not None and (generator is not None or sampler is not None or batch_sampler is not None):
            raise ValueError("DataLoader: give seed= or generator=, not both, and seed= (the loader's own shuffle) "
                             "not with sampler= or batch_sampler= (a sampler takes its own generator=)")
        if generator is not None:
            _stream(generator, "DataLoader")       # (checked now, not at the first batch)
        own = numpy.random.default_rng(seed) if seed is not None else None
        if sampler is None:
            sampler = (RandomSampler(dataset, generator=own or generator) if shuffle
                       else SequentialSampler(dataset))
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, int(batch_size), drop_last)
        settings = dict(dataset=dataset, batch_size=batch_size, drop_last=drop_last, sampler=sampler,
                        batch_sampler=batch_sampler, generator=generator, seed=seed, num_workers=int(num_workers),
                        collate_fn=collate_fn if collate_fn is not None
                        else default_collate if batch_sampler is not None else default_convert,
                        pin_memory=bool(pin_memory), timeout=timeout, worker_init_fn=worker_init_fn,
                        multiprocessing_context=multiprocessing_context,
                        prefetch_factor=2 if num_workers > 0 and prefetch_factor is None else prefetch_factor,
                        persistent_workers=persistent_workers, pin_memory_device=pin_memory_device,
                        in_order=in_order, _iterable=iterable)
        for name, value in settings.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_made", True)

    _FIXED = ("dataset", "batch_size", "batch_sampler", "sampler", "drop_last", "persistent_workers")

    def __setattr__(self, name, value):
        if name in self._FIXED and self.__dict__.get("_made"):   # (a subclass may set them before __init__)
            raise ValueError(f"DataLoader: the {name} attribute cannot be set after the loader is made (as in "
                             f"PyTorch): make a new DataLoader(..., {name}=...)")
        object.__setattr__(self, name, value)

    def __len__(self) -> int:
        if self._iterable:   # (only a dataset with a __len__ has one; as PyTorch, the batches it makes)
            n = len(self.dataset)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)

    def __iter__(self):
        if self._iterable:
            yield from self._iterable_batches()
            return
        if self.batch_sampler is None:
            for index in self.sampler:
                yield self.collate_fn(self.dataset[index])
            return
        for indices in self.batch_sampler:
            yield self._batch(list(indices))

    def _iterable_batches(self):
        """An iterable dataset's samples, ``batch_size`` at a time (one by one without batching)."""
        if self.batch_size is None:
            for sample in self.dataset:
                yield self.collate_fn(sample)
            return
        batch = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def _batch(self, indices):
        if self.collate_fn is default_collate:
            rows = _stacked_rows(self.dataset, indices)
            if rows is not None:
                return rows
        many = getattr(self.dataset, "__getitems__", None)   # (PyTorch's hook: a dataset that reads a batch at once)
        return self.collate_fn(many(indices) if many else [self.dataset[i] for i in indices])


def _check_workers(num_workers, timeout, multiprocessing_context, prefetch_factor, persistent_workers):
    """PyTorch's checks of the worker options, which then change nothing here (samples load in this process)."""
    if not isinstance(num_workers, numbers.Integral) or isinstance(num_workers, bool) or num_workers < 0:
        raise ValueError(f"DataLoader: num_workers must be an integer >= 0, got {num_workers!r}; samples "
                         f"are loaded in this process whatever the value (use num_workers=0)")
    if timeout < 0:
        raise ValueError(f"DataLoader: timeout option should be non-negative, got timeout={timeout!r}")
    if prefetch_factor is not None and num_workers > 0 and prefetch_factor < 0:
        raise ValueError(f"DataLoader: prefetch_factor option should be non-negative, got {prefetch_factor}")
    if multiprocessing_context is not None and num_workers > 0:
        methods = multiprocessing.get_all_start_methods()
        if isinstance(multiprocessing_context, str) and multiprocessing_context not in methods:
            raise ValueError(f"DataLoader: multiprocessing_context option should specify a valid start method in "
                             f"{methods}, but got multiprocessing_context={multiprocessing_context!r}")
        if not isinstance(multiprocessing_context, (str, multiprocessing.context.BaseContext)):
            raise TypeError(f"DataLoader: multiprocessing_context option should be a valid context object or a "
                            f"string specifying the start method, but got "
                            f"multiprocessing_context={multiprocessing_context!r}")
    if num_workers == 0:
        for given, name in [(multiprocessing_context is not None, "multiprocessing_context"),
                            (prefetch_factor is not None, "prefetch_factor"),
                            (bool(persistent_workers), "persistent_workers")]:
            if given:
                raise ValueError(f"DataLoader: {name} only applies to worker processes (num_workers > 0), but "
                                 f"num_workers=0; drop {name}= (as PyTorch requires)")
