"""Grad mode: whether ops record a graph. Thread-local, like PyTorch's.

``no_grad``, ``enable_grad``, ``inference_mode`` and ``set_grad_enabled`` work as
context managers and as decorators (``@no_grad`` with or without the parentheses,
as in PyTorch); ``set_grad_enabled(False)`` called as a plain function also
switches the mode for the rest of the thread.
"""
from __future__ import annotations

import functools
import inspect
import threading

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
           "is_inference_mode_enabled", "state"]


class _State(threading.local):
    """Per-thread switches the engine and ops read on their hot paths."""

    def __init__(self):
        self.grad_enabled = True
        self.inference = False      # inside inference_mode()
        self.inference_grad = False  # enable_grad inside inference_mode: grad mode on, recording still off
        self.anomaly = False        # autograd.detect_anomaly()
        self.tape = None            # the active events.Tape, or None (nobody listens)
        self.saved_hooks = []       # stack of (pack, unpack) from saved_tensors_hooks


state = _State()


def is_grad_enabled() -> bool:
    """True in grad mode: new ops record a graph (except inside ``inference_mode``, as PyTorch's)."""
    return state.grad_enabled or state.inference_grad


def _switch(on):
    """Set grad mode; returns what to restore. Inside ``inference_mode`` turning it on records nothing."""
    prev = state.grad_enabled, state.inference_grad
    state.grad_enabled, state.inference_grad = on and not state.inference, on and state.inference
    return prev


class _GradModeContext:
    """Base for the three switches: a context manager that is also a decorator."""

    _target = True

    def __new__(cls, *args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not kwargs and cls is not set_grad_enabled:
            return cls()(args[0])      # @no_grad written without the parentheses
        return super().__new__(cls)

    def __enter__(self):
        self._prev = _switch(self._target)

    def __exit__(self, *exc):
        state.grad_enabled, state.inference_grad = self._prev
        return False

    def __call__(self, fn):
        if inspect.isgeneratorfunction(fn):
            return self._wrap_generator(fn)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(*self._args()):
                return fn(*args, **kwargs)

        return wrapper

    def _wrap_generator(self, fn):
        """A generator function decorated: each step of the generator (to its next ``yield``) runs in the mode,
        and the caller's code between steps in its own, as in PyTorch."""
        def mode():
            return self.__class__(*self._args())

        @functools.wraps(fn)
        def generator(*args, **kwargs):
            with mode():
                steps = fn(*args, **kwargs)
            try:
                with mode():
                    item = next(steps)
                while True:
                    try:
                        sent = yield item
                    except GeneratorExit:
                        with mode():
                            steps.close()
                        raise
                    except BaseException as exc:   # (thrown in by the caller: passed on inside the mode)
                        with mode():
                            item = steps.throw(exc)
                    else:
                        with mode():
                            item = steps.send(sent)
            except StopIteration as done:
                return done.value

        return generator

    def _args(self):
        return ()


class no_grad(_GradModeContext):
    """Ops inside record no graph (results have ``requires_grad=False``)."""

    _target = False


class enable_grad(_GradModeContext):
    """Re-enable recording inside a ``no_grad`` block."""

    _target = True


class inference_mode(_GradModeContext):
    """PyTorch's no_grad for evaluation and serving (there it also skips version counting, for speed); here
    it is ``no_grad``, and :func:`is_inference_mode_enabled` says True inside. ``enable_grad`` inside turns
    grad mode on, yet ops still record nothing; ``inference_mode(False)`` turns recording back on (PyTorch's
    rules)."""

    def __init__(self, mode: bool = True):
        self._mode = bool(mode)

    def __enter__(self):
        self._prev = state.grad_enabled, state.inference_grad, state.inference
        state.grad_enabled, state.inference_grad, state.inference = not self._mode, False, self._mode

    def __exit__(self, *exc):
        state.grad_enabled, state.inference_grad, state.inference = self._prev
        return False

    def _args(self):
        return (self._mode,)


def is_inference_mode_enabled() -> bool:
    """True inside ``inference_mode()``."""
    return state.inference


class set_grad_enabled(_GradModeContext):
    """``set_grad_enabled(mode)``: as a function it sets the mode now; as a context it restores on exit."""

    def __init__(self, mode: bool):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, not "
                            f"{type(mode).__name__}: write True or False")
        self._target = mode
        self._prev = _switch(self._target)

    def __enter__(self):
        pass  # already switched in __init__

    def _args(self):
        return (self._target,)

    def __call__(self, fn):
        state.grad_enabled, state.inference_grad = self._prev  # a decorator: undo the switch __init__ made
        return super().__call__(fn)
