"""Variable-length sequences in one tensor, with ``torch.nn.utils.rnn``'s names: ``pad_sequence`` (the usual
``collate_fn`` for sentences of different lengths) and its inverse ``unpad_sequence``.

    batch = pad_sequence([s1, s2, s3], batch_first=True)   # (3, longest, features), short ones padded with 0

Built from ``cat`` and ``stack``, so the gradient of each sequence is its slice of the padded tensor's.
PyTorch's packed sequences (``pack_padded_sequence``) are not here: the recurrent layers take padded batches.
"""
from __future__ import annotations

import numbers

from ... import creation
from ...ops import shape as S
from ...tensor import Tensor

__all__ = ["pad_sequence", "unpad_sequence"]


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
    padded = []
    for s in sequences:
        missing = longest - s.shape[0]
        if missing:
            fill = creation.full((missing, *trailing), padding_value, dtype=s.dtype, device=s.device)
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
