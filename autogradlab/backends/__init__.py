"""``torch.backends``, for the switches every ``set_seed()`` helper in lab code sets::

    torch.backends.cudnn.deterministic = True      # (or: import torch.backends.cudnn as cudnn)
    torch.backends.cudnn.benchmark = False

Nothing here is a cuDNN (or MPS) kernel: convolutions are NumPy's or CuPy's, and give the same numbers on
every run (an autogradlab run is deterministic), so the switches are kept as set and change nothing.
(Not to be confused with ``autogradlab.backend``, which reaches NumPy or CuPy.)
"""
from __future__ import annotations

from . import cuda, cudnn, mps

__all__ = ["cudnn", "mps", "cuda", "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled"]

_deterministic = {"mode": False, "warn_only": False}


def use_deterministic_algorithms(mode, *, warn_only=False):
    """PyTorch's switch to refuse nondeterministic kernels. Every op here is deterministic already, so this
    records the setting (for ``are_deterministic_algorithms_enabled``) and changes nothing else."""
    if not isinstance(mode, bool):
        raise TypeError(f"use_deterministic_algorithms expects a bool, but got {type(mode).__name__}")
    _deterministic.update(mode=mode, warn_only=bool(warn_only))


def are_deterministic_algorithms_enabled() -> bool:
    return _deterministic["mode"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _deterministic["warn_only"]
