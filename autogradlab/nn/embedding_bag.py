"""``EmbeddingBag`` / ``F.embedding_bag``: for each bag of indices, the sum, mean or max of their embedding rows,
without making the (indices, embedding_dim) tensor of ``Embedding`` first in PyTorch (here it is made, then
reduced: the same numbers and gradients). A bag is a row of a 2-D ``input``, or, for a 1-D ``input``, the run
from one ``offsets`` entry to the next (fastText-style bags of words).

    out[b] = reduce over i in bag b of  w_i * weight[input[i]]     (w_i = per_sample_weights, 'sum' only)

Indices equal to ``padding_idx`` are left out of their bag (and of a mean's count); an empty bag gives zeros.
Gradients: 'sum' and 'mean' add the (scaled) row gradient into each row used; 'max' sends each feature's
gradient to the (first) row that gave the maximum. ``scale_grad_by_freq`` and ``sparse`` are not supported (as for
``Embedding``: a dense gradient, the numbers ``sparse=True`` gives)."""
from __future__ import annotations

import numpy

from .. import backend, creation
from ..grad_mode import no_grad
from ..ops import elementwise as E
from ..ops.selection import index_add
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["embedding_bag", "EmbeddingBag"]


def _bags(input, offsets, include_last_offset):
    """(flat indices, the bag of each, number of bags) from a 2-D input or a 1-D input with offsets."""
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError(f"if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets).__name__}")
        rows, length = input.shape
        bag_of = numpy.repeat(numpy.arange(rows), length)
        return input.reshape(-1), bag_of, rows
    if input.ndim != 1:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    if not isinstance(offsets, Tensor) or offsets.ndim != 1:
        raise ValueError(f"offsets has to be a 1D Tensor but got {None if offsets is None else offsets.ndim}")
    starts = backend.to_host(offsets._data).astype(numpy.int64)
    if starts.size and starts[0] != 0:
        raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {starts[0]}")
    if starts.size and (numpy.diff(starts) < 0).any() or (starts.size and starts[-1] > input.shape[0]):
        raise RuntimeError(f"offsets must be non-decreasing and at most the input's length {input.shape[0]}, got "
                           f"{starts.tolist()}")
    if include_last_offset:   # (the last entry closes the last bag; PyTorch reads that bag to the input's end)
        starts = starts[:-1]
    if not starts.size:   # (no bags)
        return input[:0], numpy.zeros(0, dtype=numpy.int64), 0
    bags = len(starts)
    counts = numpy.diff(numpy.append(starts, input.shape[0]))
    return input, numpy.repeat(numpy.arange(bags), counts), bags


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """One vector per bag: the 'sum', 'mean' or 'max' of the bag's embedding rows (see the module docstring)."""
    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"mode has to be one of sum, mean or max, got {mode!r}")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  f"GitHub.")
    if per_sample_weights is not None and per_sample_weights.dtype != weight.dtype:
        raise RuntimeError(f"embedding_bag: per_sample_weights ({per_sample_weights.dtype.name}) must have the "
                           f"weight's dtype ({weight.dtype.name}): convert it, per_sample_weights.to(weight.dtype)")
    if per_sample_weights is not None and tuple(per_sample_weights.shape) != tuple(input.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({tuple(per_sample_weights.shape)}) is not None, then "
                         f"it must have the same shape as the input ({tuple(input.shape)})")
    flat, bag_of, bags = _bags(input, offsets, include_last_offset)
    host = backend.to_host(flat._data)
    outside = numpy.flatnonzero((host < 0) | (host >= weight.shape[0]))
    if outside.size:
        raise RuntimeError(f"Index {outside[0]} of input takes value {host[outside[0]]} which is not in the valid "
                           f"range [0, {weight.shape[0]})")
    rows = F.embedding(flat, weight, None, max_norm, norm_type, scale_grad_by_freq, sparse)   # (n, d)
    device = weight.device
    keep = numpy.ones(flat.shape[0], dtype=bool)
    if padding_idx is not None:
        row = F._padding_row(padding_idx, weight.shape[0])
        keep = host != row
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.reshape(-1).unsqueeze(-1)
    bag_of, kept = bag_of[keep], numpy.flatnonzero(keep)
    if not keep.all():
        rows = rows[Tensor._make(backend.asarray(kept, device), False, None, device)]
    target = Tensor._make(backend.asarray(bag_of.astype(numpy.int64), device), False, None, device)
    zeros = creation.zeros(bags, weight.shape[1], dtype=weight.dtype, device=device)
    if mode == "max":
        return _bag_max(rows, bag_of, bags, zeros)
    total = index_add(zeros, 0, target, rows)
    if mode == "sum":
        return total
    counts = numpy.maximum(numpy.bincount(bag_of, minlength=bags), 1).astype(numpy.dtype(weight.dtype))
    return total / Tensor._make(backend.asarray(counts[:, None], device), False, None, device)


def _bag_max(rows, bag_of, bags, zeros):
    """Each bag's largest value of each feature, taken from the first row that has it (PyTorch's: at a tie the
    gradient goes to that row alone); 0 for an empty bag."""
    values = backend.to_host(rows.detach()._data)
    m, d = values.shape
    best = numpy.full((bags, d), -numpy.inf, dtype=values.dtype)
    numpy.maximum.at(best, bag_of, values)
    of_row = best[bag_of]
    is_best = (values == of_row) | (numpy.isnan(values) & numpy.isnan(of_row))
    first = numpy.full((bags, d), m)
    numpy.minimum.at(first, bag_of, numpy.where(is_best, numpy.arange(m)[:, None], m))
    filled = first < m
    if not filled.any():   # (every bag empty, so no rows: zeros that still hang from the weight, as PyTorch's)
        return zeros + rows.sum() * 0
    device = rows.device
    picked = rows[Tensor._make(backend.asarray(numpy.minimum(first, m - 1), device), False, None, device),
                  Tensor._make(backend.asarray(numpy.arange(d), device), False, None, device)]
    return E.where(Tensor._make(backend.asarray(filled, device), False, None, device), picked, zeros)


class EmbeddingBag(Module):
    """A table of ``num_embeddings`` rows of ``embedding_dim``, read a bag at a time (see
    :func:`embedding_bag`); initialised from N(0, 1), row ``padding_idx`` zeros."""

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                 mode="mean", sparse=False, _weight=None, include_last_offset=False, padding_idx=None, device=None,
                 dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = int(num_embeddings), int(embedding_dim)
        self.max_norm, self.norm_type, self.scale_grad_by_freq = max_norm, norm_type, scale_grad_by_freq
        self.mode, self.sparse, self.include_last_offset = mode, sparse, include_last_offset
        self.padding_idx = F._padding_row(padding_idx, self.num_embeddings)
        if _weight is None:
            self.weight = Parameter(creation.zeros(num_embeddings, embedding_dim, dtype=dtype, device=device))
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (self.num_embeddings, self.embedding_dim):
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight)

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input, offsets=None, per_sample_weights=None):
        return embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type, self.scale_grad_by_freq,
                             self.mode, self.sparse, per_sample_weights, self.include_last_offset, self.padding_idx)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                        mode="mean", sparse=False, include_last_offset=False, padding_idx=None):
        """An EmbeddingBag whose weight is ``embeddings`` (2-D, shared); ``freeze``: no gradient."""
        if embeddings.ndim != 2:
            raise ValueError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        bag = cls(rows, cols, max_norm, norm_type, scale_grad_by_freq, mode, sparse, embeddings,
                  include_last_offset, padding_idx)
        bag.weight.requires_grad_(not freeze)
        return bag

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            s += ", scale_grad_by_freq=True"
        s += f", mode='{self.mode}'"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s
