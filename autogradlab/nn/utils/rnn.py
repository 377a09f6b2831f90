"""Variable-length sequences in one tensor, with ``torch.nn.utils.rnn``'s names: ``pad_sequence`` (the usual
``collate_fn`` for sentences of different lengths) and its inverse ``unpad_sequence``, and packed sequences
(``pack_padded_sequence``, ``pad_packed_sequence``, ``pack_sequence``, ``unpack_sequence``) that the recurrent
layers take so that each sequence stops at its own length::

    batch = pad_sequence([s1, s2, s3], batch_first=True)   # (3, longest, features), short ones padded with 0
    packed = pack_padded_sequence(batch, lengths, batch_first=True, enforce_sorted=False)
    output, h_n = lstm(packed)                              # h_n: each sequence's state at its last element
    padded, lengths = pad_packed_sequence(output, batch_first=True)

A ``PackedSequence`` is PyTorch's: the sequences sorted longest first, their elements interleaved step by step
(``data``: every sequence's element 0, then every element 1 of those that have one, ...), ``batch_sizes[t]``
sequences at step t. Built from indexing, ``cat`` and ``stack``, so gradients flow through it all.
"""
from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy

from ... import backend, creation
from ...ops import shape as S
from ...tensor import Tensor

__all__ = ["pad_sequence", "unpad_sequence", "PackedSequence", "pack_padded_sequence", "pad_packed_sequence",
           "pack_sequence", "unpack_sequence"]


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Sequences of shapes (L_i, *) as one tensor (L_max, B, *), or (B, L_max, *) with ``batch_first``; each
    padded with ``padding_value`` after its end (``padding_side="left"``: before its start)."""
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if isinstance(sequences, Tensor):
        sequences = list(S.unbind(sequences, 0))
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    for i, s in enumerate(sequences):
        if not isinstance(s, Tensor):
            raise TypeError(f"pad_sequence: sequence {i} is a {type(s).__name__}, expected a Tensor")
    trailing = tuple(sequences[0].shape[1:])
    for i, s in enumerate(sequences):
        if s.ndim == 0 or tuple(s.shape[1:]) != trailing:
            raise RuntimeError(f"pad_sequence: sequence {i} has shape {tuple(s.shape)}, but every sequence must be "
                               f"(length, {', '.join(map(str, trailing))}) like sequence 0's {tuple(sequences[0].shape)}")
    if isinstance(padding_value, bool) or not isinstance(padding_value, numbers.Number):
        raise TypeError(f"pad_sequence: padding_value must be a number, got {type(padding_value).__name__}")
    longest = max(s.shape[0] for s in sequences)
    padded, dtype = [], sequences[0].dtype   # (the first sequence's dtype, as PyTorch)
    for s in sequences:
        s = s if s.dtype == dtype else s.to(dtype)
        missing = longest - s.shape[0]
        if missing:
            fill = creation.full((missing, *trailing), padding_value, dtype=dtype, device=s.device)
            s = S.cat([s, fill] if padding_side == "right" else [fill, s], 0)
        padded.append(s)
    return S.stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The inverse of :func:`pad_sequence` (right padding): the list of sequences, sequence i cut to
    ``lengths[i]``."""
    if not batch_first:
        padded_sequences = S.transpose(padded_sequences, 0, 1)
    lengths = lengths.tolist() if isinstance(lengths, Tensor) else list(lengths)
    if len(lengths) != padded_sequences.shape[0]:
        raise RuntimeError(f"unpad_sequence: {len(lengths)} lengths for a batch of {padded_sequences.shape[0]} "
                           f"sequences")
    return [padded_sequences[i, :int(n)] for i, n in enumerate(lengths)]


class _Packed(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None = None
    unsorted_indices: Tensor | None = None


class PackedSequence(_Packed):
    """Sequences packed step by step (see the module's note): ``data`` (sum of lengths, *), ``batch_sizes``
    (int64, one per step, on the CPU), and the permutation to the longest-first order and back (None when the
    sequences came sorted). ``to``, ``cpu``, ``cuda``, ``float``, ``double`` convert ``data`` (and move the
    permutations along), as PyTorch's."""
    __slots__ = ()

    def _with(self, convert):
        move = (lambda t: t if t is None else t.to(convert(self.data).device))
        data = convert(self.data)
        return PackedSequence(data, self.batch_sizes, move(self.sorted_indices), move(self.unsorted_indices))

    def to(self, *args, **kwargs):
        return self._with(lambda t: t.to(*args, **kwargs))

    def cpu(self):
        return self._with(lambda t: t.cpu())

    def cuda(self, device=None):
        return self._with(lambda t: t.cuda(device))

    def float(self):
        return self._with(lambda t: t.float())

    def double(self):
        return self._with(lambda t: t.double())

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda


def _index(values, device):
    return Tensor._make(backend.asarray(numpy.asarray(values, dtype=numpy.int64), device), False, None, device)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch (L, B, *) (``batch_first``: (B, L, *)) of sequences of ``lengths``. With
    ``enforce_sorted`` the lengths must already be longest first; otherwise the batch is sorted here and the
    permutation kept."""
    lengths = numpy.asarray(lengths.tolist() if isinstance(lengths, Tensor) else lengths, dtype=numpy.int64)
    if lengths.ndim != 1 or numpy.any(lengths <= 0):
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that "
                           "is <= 0")
    if batch_first:
        input = S.transpose(input, 0, 1)
    if lengths.size != input.shape[1] or lengths.max() > input.shape[0]:
        raise RuntimeError(f"pack_padded_sequence: {lengths.size} lengths (at most {lengths.max()}) for a padded "
                           f"batch of {input.shape[1]} sequences of {input.shape[0]} steps")
    sorted_indices = unsorted_indices = None
    if enforce_sorted:
        if numpy.any(numpy.diff(lengths) > 0):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You "
                               "can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                               "sidestep this requirement if you do not need ONNX exportability.")
    else:
        order = numpy.argsort(-lengths, kind="stable")
        sorted_indices = _index(order, input.device)
        unsorted_indices = _index(numpy.argsort(order, kind="stable"), input.device)
        input, lengths = input[:, sorted_indices], lengths[order]
    batch_sizes = numpy.array([int((lengths > t).sum()) for t in range(int(lengths[0]))], dtype=numpy.int64)
    data = S.cat([input[t, :n] for t, n in enumerate(batch_sizes.tolist())], 0)
    return PackedSequence(data, _index(batch_sizes, "cpu"), sorted_indices, unsorted_indices)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The inverse of :func:`pack_padded_sequence`: ``(padded, lengths)``, the sequences in their original order,
    padded with ``padding_value`` to the longest (or to ``total_length``)."""
    data, batch_sizes = sequence.data, sequence.batch_sizes.tolist()
    steps = len(batch_sizes)
    if total_length is not None and total_length < steps:
        raise ValueError(f"Expected total_length to be at least the length of the longest sequence in input, but "
                         f"got total_length={total_length} and max sequence length being {steps}")
    rows, start = [], 0
    for n in batch_sizes:
        rows.append(data[start:start + n])
        start += n
    batch, trailing = batch_sizes[0], tuple(data.shape[1:])
    padded = []
    for t in range(max(steps, total_length or 0)):
        n = batch_sizes[t] if t < steps else 0
        step = rows[t] if t < steps else data[:0]
        if n < batch:
            fill = creation.full((batch - n, *trailing), padding_value, dtype=data.dtype, device=data.device)
            step = S.cat([step, fill], 0)
        padded.append(step)
    out = S.stack(padded, 0)                                            # (L, B, *), longest first
    lengths = numpy.array([sum(1 for n in batch_sizes if n > b) for b in range(batch)], dtype=numpy.int64)
    if sequence.unsorted_indices is not None:
        out = out[:, sequence.unsorted_indices]
        lengths = lengths[backend.to_host(sequence.unsorted_indices._data)]
    return (S.transpose(out, 0, 1) if batch_first else out), _index(lengths, "cpu")


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of sequences (L_i, *): ``pack_padded_sequence(pad_sequence(sequences), lengths)``."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences a :class:`PackedSequence` holds, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
