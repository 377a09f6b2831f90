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
    return new._data


def _hook_name(fn):
    return getattr(fn, "__name__", type(fn).__name__)


def _check_same_kind(fn, new, old, which="the gradient"):
    """A gradient a hook returned may replace ``old`` but keep its size, dtype and device (PyTorch's rule)."""
    for what, old_v, new_v in (("size", tuple(old.shape), tuple(new.shape)), ("dtype", old.dtype, new.dtype),
                               ("device", old.device, new.device)):
        if old_v != new_v:
            raise RuntimeError(f"hook '{_hook_name(fn)}' has changed the {what} of {which}: it got {old_v} and "
                               f"returned {new_v}; return a gradient of the same {what}")


def checked_hook_result(fn, new, g):
    """A tensor hook may replace the gradient, but not change what kind of thing it is."""
    if not isinstance(new, Tensor):
        raise TypeError(f"hook '{_hook_name(fn)}' returned a {type(new).__name__}: a tensor hook must return a "
                        f"Tensor (the new gradient) or None")
    _check_same_kind(fn, new, g)
    return new


def checked_node_hook_result(fn, new, olds, kind):
    """A node hook's answer (``kind``: "pre", over the node's output gradients, or "post", over its inputs'):
    a tuple with one entry per gradient in ``olds``, each None or a Tensor of the same size, dtype and
    device; a gradient that was None stays None (PyTorch's checks, made before the pass uses any of it)."""
    name, per = _hook_name(fn), ("output" if kind == "pre" else "input")
    if not isinstance(new, tuple):
        raise TypeError(f"{kind}-hook '{name}' returned a {type(new).__name__}: a node {kind}-hook must return "
                        f"a tuple with one gradient per {per} of the node (here {len(olds)}), or None to keep them")
    if len(new) != len(olds):
        raise RuntimeError(f"{kind}-hook '{name}' returned {len(new)} gradient(s), but the node has {len(olds)} "
                           f"{per}(s): return a tuple with one gradient (or None) per {per}")
    for i, (n, o) in enumerate(zip(new, olds)):
        if n is None:
            continue
        if not isinstance(n, Tensor):
            raise TypeError(f"{kind}-hook '{name}' returned a {type(n).__name__} as gradient {i}: each entry must "
                            f"be a Tensor or None")
        if o is None:
            raise RuntimeError(f"{kind}-hook '{name}' returned a gradient for {per} {i}, which had none (None: "
                               f"nothing flows there); a hook can't replace a None gradient with a value")
        _check_same_kind(fn, n, o, f"gradient {i}")
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
    """``hook(leaf)`` after the gradient was added into the leaf's ``.grad``; it acts on the leaf (an
    optimizer step on ``leaf.grad``, say) and returns None."""
    for fn in list(var._post_acc_hooks.values()):
        before = tape.hook_values(var._grad) if tape is not None else None
        answer = fn(var)
        if answer is not None:   # (as PyTorch: the gradient is in .grad already; the answer would be lost)
            raise (RuntimeError if isinstance(answer, Tensor) else TypeError)(
                f"post-accumulate-grad hook '{_hook_name(fn)}' returned a {type(answer).__name__}: these hooks "
                f"must return None. To change the gradient, change tensor.grad in place inside the hook, or "
                f"use tensor.register_hook, whose answer replaces the gradient")
        if tape is not None:
            events.append(tape.hook_ran("post_accumulate", node, False, before, var._grad))


def run_node_pre_hooks(node, g, tape, events):
    """``hook(grad_outputs) -> new grad_outputs or None`` before the node's VJP (a leaf's AccumulateGrad
    too). Returns the gradient the node goes on with: None if a hook answered ``(None,)`` (then the node
    sends nothing, as in PyTorch)."""
    for fn in list(node._pre_hooks.values()):
        before = tape.hook_values(g) if tape is not None else None
        olds = (_as_tensor(g),)
        new = fn(olds)
        if new is not None:
            g = _like(checked_node_hook_result(fn, new, olds, "pre")[0], g)
        if tape is not None:
            events.append(tape.hook_ran("node_pre", node, new is not None, before, g))
    return g


def run_node_post_hooks(node, grads_in, g, tape, events):
    """``hook(grad_inputs, grad_outputs) -> new grad_inputs or None`` after the node's VJP."""
    for fn in list(node._post_hooks.values()):
        before = tape.hook_values(grads_in) if tape is not None else None
        olds = tuple(_as_tensor(gi) for gi in grads_in)
        new = fn(olds, (_as_tensor(g),))
        if new is not None:
            grads_in = [_like(gi, g) for gi in checked_node_hook_result(fn, new, olds, "post")]
        if tape is not None:
            events.append(tape.hook_ran("node_post", node, new is not None, before, grads_in))
    return grads_in
