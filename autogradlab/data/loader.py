"""``TensorDataset`` and ``DataLoader``: minibatches out of tensors.

    loader = DataLoader(TensorDataset(X, y), batch_size=64, shuffle=True, seed=0)
    for epoch in range(10):
        for xb, yb in loader:          # a new (seeded) order every epoch
            ...

(``DataLoader((X, y), ...)`` also works here; PyTorch needs the ``TensorDataset``.)
"""
from __future__ import annotations

import numpy

from .. import backend, creation
from ..tensor import Tensor

__all__ = ["TensorDataset", "DataLoader"]


class TensorDataset:
    """Tensors that share their first dimension; item i is ``(t[i] for t in tensors)``."""

    def __init__(self, *tensors):
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        for i, t in enumerate(tensors):
            if not isinstance(t, Tensor):
                raise TypeError(f"TensorDataset: argument {i} is a {type(t).__name__}, expected a Tensor")
            if t.ndim == 0 or t.shape[0] != tensors[0].shape[0]:
                raise ValueError("Size mismatch between tensors: shapes "
                                 + ", ".join(str(tuple(t.shape)) for t in tensors)
                                 + " (all need the same first dimension)")
        self.tensors = tuple(tensors)

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


class DataLoader:
    """Iterate over a dataset in minibatches of ``batch_size``.

    ``shuffle=True`` draws a new order each epoch (each ``for`` loop) from a generator
    seeded with ``seed`` (or, with ``seed=None``, from the library generator), so a
    seeded loader gives the same sequence of epochs every run. ``drop_last`` drops a
    final short batch. Every sample appears exactly once per epoch.
    """

    def __init__(self, dataset, batch_size=1, shuffle=False, seed=None, drop_last=False):
        if isinstance(dataset, (tuple, list)):
            dataset = TensorDataset(*dataset)
        self.single = isinstance(dataset, Tensor)
        if self.single:
            dataset = TensorDataset(dataset)
        if not hasattr(dataset, "__len__") or not hasattr(dataset, "__getitem__"):
            raise TypeError(f"DataLoader: dataset must be a TensorDataset, a tuple of tensors or a Tensor, "
                            f"got {type(dataset).__name__}")
        if int(batch_size) < 1:
            raise ValueError(f"batch_size should be a positive integer, got {batch_size}")
        self.dataset, self.batch_size = dataset, int(batch_size)
        self.shuffle, self.drop_last, self.seed = bool(shuffle), bool(drop_last), seed
        self._rng = numpy.random.default_rng(seed) if seed is not None else None

    def __len__(self):
        n = len(self.dataset)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def __iter__(self):
        n = len(self.dataset)
        order = None
        if self.shuffle:
            order = (self._rng or creation.generator()).permutation(n)
        stop = n - n % self.batch_size if self.drop_last else n
        for lo in range(0, stop, self.batch_size):
            hi = min(lo + self.batch_size, n)
            index = slice(lo, hi) if order is None else self._index(order[lo:hi])
            batch = self.dataset[index]
            yield batch[0] if self.single else batch

    def _index(self, idx):
        tensors = getattr(self.dataset, "tensors", None)
        device = tensors[0].device if tensors else "cpu"
        return backend.asarray(idx, device)
