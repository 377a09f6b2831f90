"""Module hooks, with PyTorch's names and calling conventions: code that watches or edits what flows through a
layer (activations for a plot, Grad-CAM's gradients, a feature extractor) ports unchanged.

- ``register_forward_pre_hook(hook)``: ``hook(module, args)`` before ``forward``; may return new args.
- ``register_forward_hook(hook)``: ``hook(module, args, output)`` after it; may return a new output.
- ``register_full_backward_pre_hook(hook)``: ``hook(module, grad_output)`` when the gradient of the output is
  known; may return a new ``grad_output``.
- ``register_full_backward_hook(hook)``: ``hook(module, grad_input, grad_output)`` when the gradient of the
  input is known (one entry per positional argument, None where it is not a tensor that requires grad); may
  return a new ``grad_input``.

A backward hook works through two tensor hooks: one on the output, one on an alias of the input made at the
call (the alias is what ``forward`` and the forward hooks see, as in PyTorch). So it needs a ``forward`` that
returns one tensor and takes at most one tensor that requires grad; other modules get an error that says so.
"""
from __future__ import annotations

import warnings

from ..grad_mode import state
from ..graph import _add_hook
from ..tensor import Tensor

KINDS = ("forward_pre", "forward", "backward_pre", "backward")


def register(module, kind, hook, prepend=False, with_kwargs=False, always_call=False):
    """Add ``hook`` to ``module``'s hooks of ``kind``; returns the handle that removes it."""
    if module.__dict__.get("_hooks") is None:
        object.__setattr__(module, "_hooks", {k: {} for k in KINDS} | {"kwargs": set(), "always": set()})
    hooks = module._hooks
    handle = _add_hook(hooks[kind], hook)
    if prepend:
        rest = [(k, v) for k, v in hooks[kind].items() if k != handle.id]
        hooks[kind].clear()
        hooks[kind][handle.id] = hook
        hooks[kind].update(rest)
    if with_kwargs:
        hooks["kwargs"].add(handle.id)
    if always_call:
        hooks["always"].add(handle.id)
    return handle


def call(module, args, kwargs):
    """``module(*args, **kwargs)`` with its hooks: pre-hooks, forward, forward hooks, backward hooks set up."""
    hooks = module._hooks
    for key, hook in list(hooks["forward_pre"].items()):
        if key in hooks["kwargs"]:
            result = hook(module, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(f"forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                       f"but got {result}.")
                args, kwargs = result
        else:
            result = hook(module, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
    watch = (hooks["backward"] or hooks["backward_pre"]) and state.grad_enabled
    if watch:
        backward = _BackwardCall(module, args)
        args = backward.args
    try:
        output = module.forward(*args, **kwargs)
    except Exception:
        for key, hook in list(hooks["forward"].items()):
            if key in hooks["always"]:
                try:
                    hook(module, args, kwargs, None) if key in hooks["kwargs"] else hook(module, args, None)
                except Exception:   # (the forward's own error is the one to see)
                    pass
        raise
    for key, hook in list(hooks["forward"].items()):
        result = hook(module, args, kwargs, output) if key in hooks["kwargs"] else hook(module, args, output)
        if result is not None:
            output = result
    if watch:
        output = backward.watch_output(output)
    return output


class _BackwardCall:
    """One call's backward hooks: the gradient of its output (run through the backward pre-hooks) is kept
    until the gradient of its input arrives, then both go to the full backward hooks."""

    def __init__(self, module, args):
        self.module, self.n_args, self.grad_output = module, len(args), None
        wanted = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
        if len(wanted) > 1:
            raise NotImplementedError(
                f"{type(module).__name__}: a full backward hook here needs a forward that takes at most one "
                f"tensor that requires grad (this call has {len(wanted)}, at positions {wanted}); register "
                f"tensor hooks (t.register_hook) on the inputs instead")
        self.index = wanted[0] if wanted else None
        if self.index is not None:   # (an alias of the input: its gradient is the module's grad_input)
            args = list(args)
            alias = args[self.index].view_as(args[self.index])
            alias.register_hook(self.on_input)
            args[self.index] = alias
        self.args = tuple(args)

    def watch_output(self, output):
        """Hook the output's gradient; returns the output (a fresh alias when forward returned its input as
        it was, so the two hooks see the gradient in order: the output's first)."""
        if not isinstance(output, Tensor):
            raise NotImplementedError(f"{type(self.module).__name__}: a full backward hook here needs a forward "
                                      f"that returns one tensor, not a {type(output).__name__}")
        if self.index is not None and output is self.args[self.index]:
            output = output.view_as(output)
        if output.requires_grad:
            output.register_hook(self.on_output)
        return output

    def on_output(self, grad):
        hooks = self.module._hooks
        for hook in list(hooks["backward_pre"].values()):
            result = hook(self.module, (grad,))
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 1):
                    raise RuntimeError(f"a backward pre-hook returned {result!r}, but the module has one output: "
                                       f"return a tuple (grad_output,) or None")
                grad = result[0]
        self.grad_output = (grad,)
        if self.index is None:    # (no input requires grad: the hooks run now, with grad_input all None)
            if hooks["backward"]:
                warnings.warn(f"{type(self.module).__name__}: the full backward hook runs when the gradient of the "
                              f"module's output is known, with grad_input all None, because no input requires "
                              f"grad (as in PyTorch, which warns too)", UserWarning, stacklevel=2)
            grad_input = (None,) * self.n_args
            for hook in list(hooks["backward"].values()):
                result = hook(self.module, grad_input, self.grad_output)
                if result is not None and any(g is not None for g in result):
                    raise RuntimeError("a full backward hook can't return a gradient for an input that does not "
                                       "require grad: return None")
        return grad

    def on_input(self, grad):
        grad_input = tuple(grad if i == self.index else None for i in range(self.n_args))
        for hook in list(self.module._hooks["backward"].values()):
            result = hook(self.module, grad_input, self.grad_output)
            if result is not None:
                result = tuple(result)
                if len(result) != self.n_args:
                    raise RuntimeError(f"a full backward hook returned {len(result)} gradients, but the module's "
                                       f"forward takes {self.n_args} positional arguments: return one per "
                                       f"argument (None where there is none)")
                grad_input = result
        return grad_input[self.index]
