"""Anomaly mode: remember where each op was created, and stop at the first NaN gradient."""
from __future__ import annotations

import functools

from .backend import xp_of
from .grad_mode import state
from .tensor import Tensor

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled"]


def is_anomaly_enabled() -> bool:
    return state.anomaly


class set_detect_anomaly:
    """``set_detect_anomaly(True)`` switches anomaly mode on now (and restores it when used with ``with``)."""

    def __init__(self, mode: bool):
        self._prev = state.anomaly
        state.anomaly = bool(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        state.anomaly = self._prev
        return False


class detect_anomaly:
    """Context manager/decorator: ops record their forward traceback, and a backward
    that produces NaN raises naming the op and showing that traceback. The backward reads
    the mode at each node, as PyTorch does: switched on from inside a hook, it checks the rest of that pass."""

    def __enter__(self):
        self._prev = state.anomaly
        state.anomaly = True
        return self

    def __exit__(self, *exc):
        state.anomaly = self._prev
        return False

    def __call__(self, fn):

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with detect_anomaly():
                return fn(*args, **kwargs)
        return wrapper


def check_nan(node, grads):
    """The engine calls this after each VJP in anomaly mode: a NaN in any gradient stops the pass,
    naming the op and where it was created."""
    for i, g in enumerate(grads):
        if g is None:
            continue
        data = g._data if isinstance(g, Tensor) else g
        if data.dtype.kind in "fc" and bool(xp_of(data).isnan(data).any()):
            where = node._traceback or "(enable anomaly mode before the forward pass to see where the op was created)\n"
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.\n"
                               f"Traceback of forward call that caused the error:\n{where}")
