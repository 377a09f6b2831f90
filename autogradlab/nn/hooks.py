"""Module hooks, with PyTorch's names and calling conventions: code that watches or edits what flows through a
layer (activations for a plot, Grad-CAM's gradients, a feature extractor) ports unchanged.

- ``register_forward_pre_hook(hook)``: ``hook(module, args)`` before ``forward``; may return new args.
- ``register_forward_hook(hook)``: ``hook(module, args, output)`` after it; may return a new output.
- ``register_full_backward_pre_hook(hook)``: ``hook(module, grad_output)`` when the gradient of the output is
  known; may return a new ``grad_output``.
- ``register_full_backward_hook(hook)``: ``hook(module, grad_input, grad_output)`` when the gradient of the
  input is known (one entry per positional argument, None where it is not a tensor that requires grad); may
  return a new ``grad_input``.

A backward hook works through two identity nodes, as PyTorch's do: one over the tensors the call takes that
require grad (their aliases are what ``forward`` and the forward hooks see), one over the tensors it returns
(one tensor, or a tuple or list of them). Each node's backward gets all its tensors' gradients at once: the
outputs' node runs the pre-hooks and keeps ``grad_output``, the inputs' node runs the full hooks.
"""
from __future__ import annotations

import warnings

from ..function import Function
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


class BackwardHookFunction(Function):
    """The tensors given, as aliases, in one node (PyTorch's name for it): its backward hands all their gradients
    to ``on_grads`` at once (None where none arrived) and passes on what that returns."""

    @staticmethod
    def forward(ctx, on_grads, *tensors):
        ctx.on_grads = on_grads
        ctx.set_materialize_grads(False)
        return tuple(t.view_as(t) for t in tensors)

    @staticmethod
    def backward(ctx, *grads):
        return (None,) + tuple(ctx.on_grads(grads))


class _BackwardCall:
    """One call's backward hooks: the gradients of its outputs (run through the backward pre-hooks) are kept
    until the gradients of its inputs arrive, then both go to the full backward hooks."""

    def __init__(self, module, args):
        self.module, self.n_args, self.grad_output = module, len(args), None
        self.wanted = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
        if self.wanted:   # (aliases of the inputs: their gradients are the module's grad_input)
            args = list(args)
            aliases = BackwardHookFunction.apply(self.on_inputs, *(args[i] for i in self.wanted))
            for i, alias in zip(self.wanted, aliases):
                args[i] = alias
        self.args = tuple(args)

    def watch_output(self, output):
        """The output, its tensors that require grad passed through one identity node (a tensor, or a tuple or
        list of them, other values kept as they are)."""
        single = isinstance(output, Tensor)
        if not single and not isinstance(output, (tuple, list)):
            raise NotImplementedError(f"{type(self.module).__name__}: a full backward hook here needs a forward "
                                      f"that returns a tensor, or a tuple or list of them, not a "
                                      f"{type(output).__name__}")
        items = [output] if single else list(output)
        self.outputs = [i for i, o in enumerate(items) if isinstance(o, Tensor)]
        watched = [i for i in self.outputs if items[i].requires_grad]
        if watched:
            self.watched = watched
            for i, alias in zip(watched, BackwardHookFunction.apply(self.on_outputs, *(items[i] for i in watched))):
                items[i] = alias
        if single:
            return items[0]
        if hasattr(output, "_fields"):   # (a namedtuple stays one)
            return type(output)(*items)
        return type(output)(items)

    def on_outputs(self, grads):
        """The outputs' gradients: through the backward pre-hooks, kept as ``grad_output`` (one entry per
        tensor output, None for one without a gradient)."""
        hooks = self.module._hooks
        by_position = dict(zip(self.watched, grads))
        grad_output = tuple(by_position.get(i) for i in self.outputs)
        for hook in list(hooks["backward_pre"].values()):
            result = hook(self.module, grad_output)
            if result is not None:
                result = tuple(result) if isinstance(result, (tuple, list)) else (result,)
                if len(result) != len(grad_output):
                    raise RuntimeError(f"a backward pre-hook returned {len(result)} gradients, but the module has "
                                       f"{len(grad_output)} tensor outputs: return one per output (or None)")
                grad_output = result
        self.grad_output = grad_output
        if not self.wanted and hooks["backward"]:   # (no input requires grad: the hooks run now, grad_input None)
            warnings.warn(f"{type(self.module).__name__}: the full backward hook runs when the gradient of the "
                          f"module's output is known, with grad_input all None, because no input requires "
                          f"grad (as in PyTorch, which warns too)", UserWarning, stacklevel=2)
            for hook in list(hooks["backward"].values()):
                result = hook(self.module, (None,) * self.n_args, grad_output)
                if result is not None and any(g is not None for g in result):
                    raise RuntimeError("a full backward hook can't return a gradient for an input that does not "
                                       "require grad: return None")
        return tuple(grad_output[self.outputs.index(i)] for i in self.watched)

    def on_inputs(self, grads):
        """The inputs' gradients, as ``grad_input`` (one entry per positional argument, None where it is not a
        tensor that requires grad), through the full backward hooks; what they return goes on."""
        by_position = dict(zip(self.wanted, grads))
        grad_input = tuple(by_position.get(i) for i in range(self.n_args))
        for hook in list(self.module._hooks["backward"].values()):
            result = hook(self.module, grad_input, self.grad_output)
            if result is not None:
                result = tuple(result)
                if len(result) != self.n_args:
                    raise RuntimeError(f"a full backward hook returned {len(result)} gradients, but the module's "
                                       f"forward takes {self.n_args} positional arguments: return one per "
                                       f"argument (None where there is none)")
                grad_input = result
        return tuple(grad_input[i] for i in self.wanted)
