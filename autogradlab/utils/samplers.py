"""Samplers, ``torch.utils.data``'s: which sample indices a :class:`~autogradlab.utils.data.DataLoader`
takes, in which order. A sampler is any iterable of indices (with ``len``); a *batch* sampler yields lists
of indices, one list per batch.

    loader = DataLoader(ds, batch_size=32, sampler=SubsetRandomSampler(train_indices))

Random samplers draw from ``generator=`` as the rest of the library does: None means the library
generator (``autogradlab.manual_seed`` repeats it), or an ``autogradlab.Generator`` / NumPy ``Generator``.
Each ``iter()`` (each epoch) draws anew. The indices are PyTorch's in kind and count, not in value: the
numbers come from NumPy's streams.
"""
from __future__ import annotations

import numbers
from collections.abc import Iterator
from typing import Generic, TypeVar

from .. import creation
from ..sampling import multinomial
from ..tensor import Tensor, tensor

T_co = TypeVar("T_co", covariant=True)

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
           "BatchSampler"]


def _stream(generator, name):
    """The NumPy stream behind ``generator=``: the library's (seeded by ``manual_seed``) for None, an
    ``autogradlab.Generator``'s, or a ``numpy.random.Generator`` as it is; ``name`` prefixes a refusal."""
    try:
        return creation.generator(generator)
    except TypeError as exc:
        raise TypeError(f"{name}: {exc}") from None


def _check_positive(value, what):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{what} should be a positive integer value, but got {what}={value!r}")


def _check_bool(value, what, error=ValueError):
    if not isinstance(value, bool):
        raise error(f"{what} should be a boolean value, but got {what}={value!r} (write True or False)")


class Sampler(Generic[T_co]):
    """The base class: subclass it with ``__iter__`` (yielding indices) and, usually, ``__len__``
    (``class MySampler(Sampler[int])``, as in PyTorch)."""

    def __iter__(self) -> Iterator[int]:
        raise NotImplementedError(f"{type(self).__name__} subclasses Sampler but defines no __iter__: add "
                                  f"`def __iter__(self):` yielding the sample indices")


class SequentialSampler(Sampler):
    """``0, 1, ..., len(data_source) - 1``, in order (a loader's sampler when it does not shuffle)."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """Indices in random order (a loader's sampler under ``shuffle=True``). Without replacement, each epoch is
    a permutation; ``num_samples`` larger than the dataset chains permutations, smaller cuts one short. With
    ``replacement=True``, ``num_samples`` independent uniform draws."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        _check_bool(replacement, "replacement", TypeError)
        if generator is not None:
            _stream(generator, "RandomSampler")
        self.data_source, self.replacement, self._num_samples = data_source, replacement, num_samples
        self.generator = generator
        _check_positive(self.num_samples, "num_samples")   # (after the default: an empty dataset is refused)

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n, rng = len(self.data_source), _stream(self.generator, "RandomSampler")
        if self.replacement:
            return iter(rng.integers(0, n, size=self.num_samples).tolist())
        full, rest = divmod(self.num_samples, n) if n else (0, 0)
        order = [i for _ in range(full) for i in rng.permutation(n).tolist()]
        return iter(order + (rng.permutation(n).tolist()[:rest] if rest else []))

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given ``indices``, in a new random order each epoch (e.g. a validation split of one dataset)."""

    def __init__(self, indices, generator=None):
        if generator is not None:
            _stream(generator, "SubsetRandomSampler")
        self.indices, self.generator = indices, generator

    def __iter__(self):
        order = _stream(self.generator, "SubsetRandomSampler").permutation(len(self.indices))
        return iter([self.indices[i] for i in order.tolist()])

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probability ``weights[i] / sum(weights)`` (e.g. to rebalance
    classes); with ``replacement=False`` no index repeats, so ``num_samples`` is at most ``len(weights)`` (once
    the positive weights run out, the zero-weight indices come, in random order, as in PyTorch). ``weights`` is
    kept as a float64 tensor and checked when drawn, so it may be changed in between."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        _check_positive(num_samples, "num_samples")
        _check_bool(replacement, "replacement")
        w = weights.detach().double() if isinstance(weights, Tensor) else tensor(weights, dtype="float64")
        if w.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(w.shape)}")
        if generator is not None:
            _stream(generator, "WeightedRandomSampler")
        self.weights, self.num_samples, self.replacement, self.generator = w, num_samples, replacement, generator

    def __iter__(self):
        picks = multinomial(self.weights, self.num_samples, self.replacement, generator=self.generator)
        return iter(picks.tolist())

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Groups another sampler's indices into lists of ``batch_size`` (the last one shorter, unless
    ``drop_last``): ``BatchSampler(SequentialSampler(range(5)), 2, False)`` gives [0, 1], [2, 3], [4]."""

    def __init__(self, sampler, batch_size, drop_last):
        _check_positive(batch_size, "batch_size")
        _check_bool(drop_last, "drop_last")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
