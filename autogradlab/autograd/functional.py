"""Higher-level derivatives built from the engine's ``grad``: ``vjp``, ``jvp``, ``jacobian``,
``hessian``, ``hvp`` (the ``torch.autograd.functional`` API)."""
from __future__ import annotations

from ..creation import zeros_like
from ..engine import grad
from ..ops.shape import stack
from ..tensor import Tensor

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _tuple(x):
    return (tuple(x), True) if isinstance(x, (tuple, list)) else ((x,), False)


def _prepare(inputs, create_graph):
    """Fresh differentiable inputs: a detached leaf per input (kept in the graph with create_graph)."""
    out = []
    for i, t in enumerate(inputs):
        if not isinstance(t, Tensor):
            raise TypeError(f"inputs[{i}] must be a Tensor, got {type(t).__name__}")
        out.append(t * 1 if (create_graph and t.requires_grad) else t.detach().requires_grad_(True))
    return tuple(out)


def _grads(outputs, inputs, grad_outputs, create_graph, strict, what):
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
        result.append(g if create_graph else g.detach())
    return tuple(result)


def _unpack(values, is_tuple):
    return values if is_tuple else values[0]


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T J)``; ``v`` may be omitted for a one-element output."""
    inputs, in_tuple = _tuple(inputs)
    xs = _prepare(inputs, create_graph)
    outs, out_tuple = _tuple(func(*xs))
    if v is None:
        for o in outs:
            if o.numel() != 1:
                raise RuntimeError(f"vjp: v can only be omitted for one-element outputs; the output has "
                                   f"shape {tuple(o.shape)}")
        vs = tuple(zeros_like(o) + 1 for o in outs)
    else:
        vs, _ = _tuple(v)
    for i, (o, vi) in enumerate(zip(outs, vs)):
        if tuple(vi.shape) != tuple(o.shape):
            raise RuntimeError(f"vjp: v[{i}] has shape {tuple(vi.shape)} but the output has shape "
                               f"{tuple(o.shape)}")
    gs = _grads(outs, xs, vs, create_graph, strict, "vjp")
    outs = tuple(o if create_graph else o.detach() for o in outs)
    return _unpack(outs, out_tuple), _unpack(gs, in_tuple)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J v)`` by the double-vjp trick: J v = d/du (u^T J)^T v."""
    inputs, in_tuple = _tuple(inputs)
    xs = _prepare(inputs, True)
    outs, out_tuple = _tuple(func(*xs))
    if v is None:
        for x in xs:
            if x.numel() != 1:
                raise RuntimeError("jvp: v can only be omitted for one-element inputs")
        vs = tuple(zeros_like(x) + 1 for x in xs)
    else:
        vs, _ = _tuple(v)
    us = tuple(zeros_like(o).requires_grad_(True) for o in outs)
    gu = _grads(outs, xs, us, True, strict, "jvp")
    # inputs the outputs do not depend on contribute nothing to J v: leave their terms out
    pairs = [(g, v) for g, v in zip(gu, vs) if g.requires_grad]
    jv = grad([g for g, _ in pairs], us, [v for _, v in pairs], create_graph=create_graph, allow_unused=True,
              retain_graph=True) if pairs else (None,) * len(us)
    jv = tuple(zeros_like(o) if g is None else (g if create_graph else g.detach()) for o, g in zip(outs, jv))
    outs = tuple(o if create_graph else o.detach() for o in outs)
    return _unpack(outs, out_tuple), _unpack(jv, out_tuple)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian: for output o and input x, a tensor of shape ``o.shape + x.shape``."""
    inputs, in_tuple = _tuple(inputs)
    xs = _prepare(inputs, create_graph)
    outs, out_tuple = _tuple(func(*xs))
    table = []
    for o in outs:
        rows = [[] for _ in xs]
        flat = o.reshape(-1)
        for k in range(flat.numel()):
            gs = _grads((flat[k],), xs, (None,), create_graph, strict, "jacobian") if o.requires_grad \
                else tuple(zeros_like(x) for x in xs)
            for j, g in enumerate(gs):
                rows[j].append(g)
        table.append(tuple(stack(r).reshape(tuple(o.shape) + tuple(x.shape)) if r
                           else zeros_like(x).reshape((0,) + tuple(x.shape))
                           for r, x in zip(rows, xs)))
    if not out_tuple:
        return _unpack(table[0], in_tuple)
    return tuple(_unpack(t, in_tuple) for t in table)


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False):
    """The Hessian of a scalar function: the Jacobian of its gradient."""
    inputs, in_tuple = _tuple(inputs)

    def gradient(*xs):
        out = func(*xs)
        if not isinstance(out, Tensor) or out.numel() != 1:
            raise RuntimeError("hessian: the function must return a single one-element Tensor")
        return _grads((out,), xs, (None,), True, strict, "hessian")

    h = jacobian(gradient, inputs if in_tuple else inputs[0], create_graph=create_graph, strict=strict)
    return h if in_tuple else h[0]


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), H v)`` for a scalar ``func`` (H is symmetric, so this equals v^T H)."""
    return vhp(func, inputs, v, create_graph, strict)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^T H)``: grad of (grad f . v)."""
    inputs, in_tuple = _tuple(inputs)
    xs = _prepare(inputs, True)
    out = func(*xs)
    if not isinstance(out, Tensor) or out.numel() != 1:
        raise RuntimeError("vhp/hvp: the function must return a single one-element Tensor")
    vs, _ = _tuple(v) if v is not None else (tuple(zeros_like(x) + 1 for x in xs), None)
    gs = _grads((out,), xs, (None,), True, strict, "hvp")
    dot = None
    for g, vi in zip(gs, vs):
        term = (g * vi).sum()
        dot = term if dot is None else dot + term
    if not dot.requires_grad:
        hv = tuple(zeros_like(x) for x in xs)
    else:
        hv = _grads((dot,), xs, (None,), create_graph, strict, "hvp")
    return (out if create_graph else out.detach()), _unpack(hv, in_tuple)
