"""Higher-level derivatives built from the engine's ``grad``: ``vjp``, ``jvp``, ``jacobian``,
``hessian``, ``hvp`` (the ``torch.autograd.functional`` API)."""
from __future__ import annotations

import functools

from ..creation import zeros_like
from ..engine import grad
from ..grad_mode import enable_grad
from ..ops.shape import stack
from ..tensor import Tensor

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _recording(function):
    """Run ``function`` with recording on, as PyTorch's do: under ``no_grad`` they still differentiate."""
    @functools.wraps(function)
    def with_grad(*args, **kwargs):
        with enable_grad():
            return function(*args, **kwargs)
    return with_grad


def _tuple(x, what="inputs", fn="the function"):
    """``(values as a tuple, whether given as a tuple)``; each value must be a Tensor (a list is not a tuple
    here, as in PyTorch)."""
    values, is_tuple = (x, True) if isinstance(x, tuple) else ((x,), False)
    for i, t in enumerate(values):
        if not isinstance(t, Tensor):
            raise TypeError(f"The {what} given to {fn} must be either a Tensor or a tuple of Tensors but the "
                            f"value at index {i} has type {type(t).__name__}"
                            + (": write a tuple, (x, y)" if isinstance(t, list) else ""))
    return values, is_tuple


def _outputs(values, fn):
    return _tuple(values, "outputs of the user-provided function", fn)


def _check_v(v, other, what, fn):
    """PyTorch's checks of ``v`` against the tensors it pairs with (``what``: "outputs" or "inputs")."""
    vs, _ = _tuple(v, "v", fn)
    if len(vs) != len(other):
        raise RuntimeError(f"{fn}: v is a tuple of invalid length: should be {len(other)} (one per {what[:-1]}) "
                           f"but got {len(vs)}")
    for i, (vi, o) in enumerate(zip(vs, other)):
        if tuple(vi.shape) != tuple(o.shape):
            raise RuntimeError(f"{fn}: Entry {i} in v has invalid size: should be {tuple(o.shape)} (the shape of "
                               f"{what[:-1]} {i}) but got {tuple(vi.shape)}")
    return vs


def _prepare(inputs, create_graph):
    """Fresh differentiable inputs: a detached leaf per input (kept in the graph with create_graph)."""
    return tuple(t * 1 if (create_graph and t.requires_grad) else t.detach().requires_grad_(True) for t in inputs)


def _grads(outputs, inputs, grad_outputs, create_graph, strict, what, asked=None):
    """The gradients of ``outputs`` with respect to ``inputs`` (zeros where unused). ``strict`` refuses an input
    the outputs do not depend on and, when the caller asked for a graph (``asked``: its ``create_graph``), a
    gradient that does not depend on the inputs (a linear function's), as PyTorch does."""
    asked = create_graph if asked is None else asked
    needs = [o for o in outputs if o.requires_grad]
    if not needs:
        if strict:
            raise RuntimeError(f"{what}: the output of the function does not depend on the inputs "
                               f"(strict=True)")
        return tuple(zeros_like(t) for t in inputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    gs = grad([o for o, _ in pairs], inputs, [g for _, g in pairs], create_graph=create_graph,
              retain_graph=True, allow_unused=True)
    result = []
    for i, (t, g) in enumerate(zip(inputs, gs)):
        if g is None:
            if strict:
                raise RuntimeError(f"{what}: output is independent of input {i} (strict=True)")
            g = zeros_like(t)
        elif strict and asked and not g.requires_grad:
            second = "hessian" if what in ("hessian", "hvp") else "jacobian"
            raise RuntimeError(f"{what}: the {second} of the function is independent of input {i} (strict=True "
                               f"with create_graph=True needs every derivative to depend on the inputs)")
        result.append(g if create_graph else g.detach())
    return tuple(result)


def _unpack(values, is_tuple):
    return values if is_tuple else values[0]


@_recording
def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T J)``; ``v`` may be omitted for a one-element output."""
    inputs, in_tuple = _tuple(inputs, fn="vjp")
    xs = _prepare(inputs, create_graph)
    outs, out_tuple = _outputs(func(*xs), "vjp")
    if v is None:
        if len(outs) != 1 or outs[0].numel() != 1:
            raise RuntimeError(f"vjp: The vector v can only be None if the user-provided function returns a "
                               f"single Tensor with a single element; it returned {len(outs)} of shapes "
                               f"{[tuple(o.shape) for o in outs]}")
        vs = (zeros_like(outs[0]) + 1,)
    else:
        vs = _check_v(v, outs, "outputs", "vjp")
    gs = _grads(outs, xs, vs, create_graph, strict, "vjp")
    outs = tuple(o if create_graph else o.detach() for o in outs)
    return _unpack(outs, out_tuple), _unpack(gs, in_tuple)


def _single_input_v(xs, fn):
    if len(xs) != 1 or xs[0].numel() != 1:
        raise RuntimeError(f"{fn}: The vector v can only be None if the input to the user-provided function is "
                           f"a single Tensor with a single element; give v, one tensor per input")
    return (zeros_like(xs[0]) + 1,)


@_recording
def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J v)`` by the double-vjp trick: J v = d/du (u^T J)^T v."""
    inputs, in_tuple = _tuple(inputs, fn="jvp")
    xs = _prepare(inputs, True)
    vs = _single_input_v(xs, "jvp") if v is None else _check_v(v, xs, "inputs", "jvp")
    outs, out_tuple = _outputs(func(*xs), "jvp")
    us = tuple(zeros_like(o).requires_grad_(True) for o in outs)
    gu = _grads(outs, xs, us, True, strict, "jvp", create_graph)
    # inputs the outputs do not depend on contribute nothing to J v: leave their terms out
    pairs = [(g, v) for g, v in zip(gu, vs) if g.requires_grad]
    jv = grad([g for g, _ in pairs], us, [v for _, v in pairs], create_graph=create_graph, allow_unused=True,
              retain_graph=True) if pairs else (None,) * len(us)
    for i, g in enumerate(jv):
        if strict and (g is None or (create_graph and not g.requires_grad)):
            raise RuntimeError(f"jvp: output {i} is independent of the inputs along v" if g is None else
                               f"jvp: the jacobian of the function is independent of the inputs at output {i} "
                               f"(strict=True with create_graph=True needs every derivative to depend on them)")
    jv = tuple(zeros_like(o) if g is None else (g if create_graph else g.detach()) for o, g in zip(outs, jv))
    outs = tuple(o if create_graph else o.detach() for o in outs)
    return _unpack(outs, out_tuple), _unpack(jv, out_tuple)


def _check_strategy(strategy, vectorize, create_graph, strict, fn):
    """PyTorch's checks of jacobian's options. Both strategies give the same numbers here (row by row, in
    reverse mode), so ``vectorize`` and ``strategy`` change no result."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(f'{fn}: Expected strategy to be either "forward-mode" or "reverse-mode", got '
                             f'{strategy!r}')
    if strict and vectorize:
        raise RuntimeError(f"{fn}: `strict=True` and `vectorize=True` are not supported together. Please either "
                           f"set `strict=False` or `vectorize=False`.")
    if strategy == "forward-mode" and (create_graph or not vectorize):
        raise NotImplementedError(f"{fn}: strategy='forward-mode' needs vectorize=True and create_graph=False "
                                  f"(as in PyTorch); the default 'reverse-mode' has neither limit")


@_recording
def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian: for output o and input x, a tensor of shape ``o.shape + x.shape``."""
    _check_strategy(strategy, vectorize, create_graph, strict, "jacobian")
    inputs, in_tuple = _tuple(inputs, fn="jacobian")
    xs = _prepare(inputs, create_graph)
    outs, out_tuple = _outputs(func(*xs), "jacobian")
    table = []
    for o in outs:
        rows = [[] for _ in xs]
        flat = o.reshape(-1)
        for k in range(flat.numel()):
            gs = _grads((flat[k],), xs, (None,), create_graph, strict, "jacobian")
            for j, g in enumerate(gs):
                rows[j].append(g)
        table.append(tuple(stack(r).reshape(tuple(o.shape) + tuple(x.shape)) if r
                           else zeros_like(x).reshape((0,) + tuple(x.shape))
                           for r, x in zip(rows, xs)))
    if not out_tuple:
        return _unpack(table[0], in_tuple)
    return tuple(_unpack(t, in_tuple) for t in table)


@_recording
def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar function: the Jacobian of its gradient."""
    _check_strategy(outer_jacobian_strategy, vectorize, create_graph, strict, "hessian")
    inputs, in_tuple = _tuple(inputs, fn="hessian")

    def gradient(*xs):
        out = func(*xs)
        if not isinstance(out, Tensor) or out.numel() != 1:
            raise RuntimeError("hessian: the function must return a single one-element Tensor")
        return _grads((out,), xs, (None,), True, strict, "hessian", create_graph)

    h = jacobian(gradient, inputs if in_tuple else inputs[0], create_graph=create_graph, strict=strict)
    return h if in_tuple else h[0]


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), H v)`` for a scalar ``func`` (H is symmetric, so this equals v^T H)."""
    return vhp(func, inputs, v, create_graph, strict)


@_recording
def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T H)``: grad of (grad f . v)."""
    inputs, in_tuple = _tuple(inputs, fn="vhp")
    xs = _prepare(inputs, True)
    vs = _single_input_v(xs, "vhp") if v is None else _check_v(v, xs, "inputs", "vhp")
    out = func(*xs)
    if not isinstance(out, Tensor) or out.numel() != 1:
        raise RuntimeError("vhp/hvp: the function must return a single one-element Tensor")
    gs = _grads((out,), xs, (None,), True, strict, "hvp", False)
    dot = None
    for g, vi in zip(gs, vs):
        term = (g * vi).sum()
        dot = term if dot is None else dot + term
    if not dot.requires_grad and not strict:
        hv = tuple(zeros_like(x) for x in xs)
    else:
        hv = _grads((dot,), xs, (None,), create_graph, strict, "hvp")
    return (out if create_graph else out.detach()), _unpack(hv, in_tuple)
