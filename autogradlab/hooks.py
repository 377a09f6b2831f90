"""Running the hooks users attach, during a backward pass.

The engine calls these only when a hook is attached, so a pass without hooks pays
nothing. Hooks always see Tensors (as in PyTorch), also when the pass itself moves
plain arrays (no ``create_graph``): the gradient is wrapped for the hook and the
hook's answer unwrapped after. A hook that returns a value replaces the gradient.
"""
from __future__ import annotations

from .graph import _as_array
from .tensor import Tensor

__all__ = ["run_tensor_hooks", "run_post_accumulate_hooks", "run_node_pre_hooks", "run_node_post_hooks"]


def _as_tensor(g):
    return g if g is None or isinstance(g, Tensor) else Tensor._make(_as_array(g))


def _like(new, g):
    """``new`` (a Tensor or None from a hook) in the kind of value the pass moves (``g``'s)."""
    if new is None or isinstance(g, Tensor):
        return new
    return new.data


def checked_hook_result(fn, new, g):
    """A tensor hook may replace the gradient, but not change what kind of thing it is."""
    name = getattr(fn, "__name__", type(fn).__name__)
    if not isinstance(new, Tensor):
        raise TypeError(f"hook '{name}' returned a {type(new).__name__}: a tensor hook must return a Tensor "
                        f"(the new gradient) or None")
    for what, old_v, new_v in (("size", g.shape, new.shape), ("dtype", g.dtype, new.dtype),
                               ("device", g.device, new.device)):
        if old_v != new_v:
            raise RuntimeError(f"hook '{name}' has changed the {what} of the gradient: it got {old_v} and "
                               f"returned {new_v}; return a gradient of the same {what}")
    return new


def run_tensor_hooks(hooks, g, node, tape, events):
    """``hook(grad) -> new grad or None`` for each hook on the tensor ``node`` made (or on a leaf)."""
    gt = _as_tensor(g)
    for fn in list(hooks.values()):
        before = tape.hook_values(gt) if tape is not None else None
        new = fn(gt)
        if new is not None:
            gt = checked_hook_result(fn, new, gt)
        if tape is not None:
            events.append(tape.hook_ran("tensor", node, new is not None, before, gt))
    return _like(gt, g)


def run_post_accumulate_hooks(var, node, tape, events):
    """``hook(leaf)`` after the gradient was added into the leaf's ``.grad``."""
    for fn in list(var._post_acc_hooks.values()):
        before = tape.hook_values(var._grad) if tape is not None else None
        fn(var)
        if tape is not None:
            events.append(tape.hook_ran("post_accumulate", node, False, before, var._grad))


def run_node_pre_hooks(node, g, tape, events):
    """``hook(grad_outputs) -> new grad_outputs or None`` before the node's VJP."""
    for fn in list(node._pre_hooks.values()):
        before = tape.hook_values(g) if tape is not None else None
        new = fn((_as_tensor(g),))
        if new is not None:
            g = _like(new[0], g)
        if tape is not None:
            events.append(tape.hook_ran("node_pre", node, new is not None, before, g))
    return g


def run_node_post_hooks(node, grads_in, g, tape, events):
    """``hook(grad_inputs, grad_outputs) -> new grad_inputs or None`` after the node's VJP."""
    for fn in list(node._post_hooks.values()):
        before = tape.hook_values(grads_in) if tape is not None else None
        new = fn(tuple(_as_tensor(gi) for gi in grads_in), (_as_tensor(g),))
        if new is not None:
            grads_in = [_like(gi, g) for gi in new]
        if tape is not None:
            events.append(tape.hook_ran("node_post", node, new is not None, before, grads_in))
    return grads_in
