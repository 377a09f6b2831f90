"""Anomaly mode: remember where each op was created, and stop at the first NaN gradient."""
from __future__ import annotations

from .grad_mode import state

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
    that produces NaN raises naming the op and showing that traceback."""

    def __enter__(self):
        self._prev = state.anomaly
        state.anomaly = True
        return self

    def __exit__(self, *exc):
        state.anomaly = self._prev
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with detect_anomaly():
                return fn(*args, **kwargs)
        return wrapper
