"""``torch.func``'s transforms, so ``from torch.func import grad, vmap`` ports: ``grad``, ``grad_and_value``,
``vjp``, ``jacrev``, ``jacfwd``, ``hessian``, ``vmap`` and ``functional_call``.

A transform takes a function and returns a new one::

    df = grad(lambda x: (x ** 3).sum())      # df(x) = 3 x^2
    d2f = grad(grad(lambda x: x ** 3))       # transforms nest: d2f(x) = 6x
    per_sample = vmap(grad(loss), in_dims=(None, 0, 0))(params, X, y)

They are built on the engine: ``grad`` runs ``autograd.grad`` on fresh leaves (keeping the graph when it is
nested in another transform, or when its inputs require grad, so the outer one can differentiate the result).
``jacfwd`` gives the same Jacobian as ``jacrev``, computed in reverse mode, one backward pass per output
element. ``vmap`` calls the function once per slice of the mapped dims and stacks the results: PyTorch's
vmap runs one batched call instead, with the same values.
"""
from __future__ import annotations

import numbers

from .creation import zeros_like
from .engine import grad as _autograd_grad
from .grad_mode import enable_grad
from .ops.rearrange import movedim
from .ops.shape import reshape, stack, unbind
from .tensor import Tensor

__all__ = ["grad", "grad_and_value", "vjp", "jacrev", "jacfwd", "hessian", "vmap", "functional_call"]

_depth = [0]   # how many transforms are running: inside one, results keep their graph


def _argnums(argnums, n_args, name):
    many = isinstance(argnums, tuple)
    picks = argnums if many else (argnums,)
    for a in picks:
        if isinstance(a, bool) or not isinstance(a, int) or not -n_args <= a < n_args:
            raise RuntimeError(f"{name}: Got argnums={argnums!r}, but the function has {n_args} positional "
                               f"arguments: each argnum must be an int in [{-n_args}, {n_args})")
    return tuple(a % n_args for a in picks), many


def _flatten(tree):
    """The tensors of a pytree (a tensor, or dicts / lists / tuples of them), in order, and how to rebuild it."""
    if isinstance(tree, dict):
        parts = [_flatten(v) for v in tree.values()]
        return [t for leaves, _ in parts for t in leaves], ("dict", list(tree), [b for _, b in parts])
    if isinstance(tree, (list, tuple)):
        parts = [_flatten(v) for v in tree]
        return [t for leaves, _ in parts for t in leaves], (type(tree), None, [b for _, b in parts])
    return [tree], None


def _unflatten(leaves, spec):
    """The pytree ``spec`` describes, with ``leaves`` (an iterator) in place of its tensors."""
    if spec is None:
        return next(leaves)
    kind, keys, children = spec
    values = [_unflatten(leaves, c) for c in children]
    return dict(zip(keys, values)) if kind == "dict" else kind(values)


def _leaf(x, name, index):
    """A tensor to differentiate with respect to: itself if it already requires grad (the result keeps the
    graph to it, as PyTorch's), else a fresh leaf."""
    if not isinstance(x, Tensor):
        raise RuntimeError(f"{name}: argument {index} to differentiate with respect to is a "
                           f"{type(x).__name__}, expected a Tensor (or a dict, list or tuple of them)")
    if x.dtype.kind != "f":
        raise RuntimeError(f"{name}: only Tensors of floating point dtype can require gradients (argument "
                           f"{index} is {x.dtype.name}); convert it with .float()")
    return x if x.requires_grad else x.detach().requires_grad_(True)


def _keeps_graph(args):
    return _depth[0] > 1 or any(isinstance(t, Tensor) and t.requires_grad for t in _flatten(list(args))[0])


def _split_aux(out, has_aux, name):
    if not has_aux:
        return out, None
    if not isinstance(out, tuple) or len(out) != 2:
        raise RuntimeError(f"{name}(f, ..., has_aux=True): f must return a pair (output, aux), got "
                           f"{type(out).__name__}")
    return out


def grad_and_value(func, argnums=0, has_aux=False):
    """A function returning ``(gradient, value)`` of ``func``, whose output must be a scalar tensor. With
    ``has_aux``, ``func`` returns ``(scalar, aux)`` and the result is ``(gradient, (value, aux))``, as PyTorch's.
    The gradient is with respect to argument ``argnums`` (a tuple of them: a tuple of gradients); an input the
    output does not depend on gets zeros."""
    def wrapper(*args, **kwargs):
        picks, many = _argnums(argnums, len(args), "grad_and_value(f)(*args)")
        _depth[0] += 1
        try:
            keep = _keeps_graph(args)
            args, specs = list(args), {}
            for i in picks:   # (an argument may be a dict, list or tuple of tensors: gradients in its shape)
                leaves, specs[i] = _flatten(args[i])
                args[i] = _unflatten(iter([_leaf(t, "grad_and_value(f)(*args)", i) for t in leaves]), specs[i])
            with enable_grad():
                out, aux = _split_aux(func(*args, **kwargs), has_aux, "grad_and_value")
            if not isinstance(out, Tensor) or out.ndim != 0:
                what = f"tensor with {out.ndim} dims" if isinstance(out, Tensor) else type(out).__name__
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                                   f"{what}. Maybe you wanted to use the vjp or jacrev APIs instead?")
            inputs = [t for i in picks for t in _flatten(args[i])[0]]
            flat = (_autograd_grad(out, inputs, create_graph=keep, allow_unused=True)
                    if out.requires_grad else [None] * len(inputs))
            flat = iter([zeros_like(x) if g is None else g for x, g in zip(inputs, flat)])
            grads = tuple(_unflatten(flat, specs[i]) for i in picks)
        finally:
            _depth[0] -= 1
        gradient = grads if many else grads[0]
        value = out if keep else out.detach()
        return (gradient, (value, aux)) if has_aux else (gradient, value)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of ``func`` (a scalar-valued function) as a function: ``grad(f)(x)`` is df/dx (with
    ``has_aux``: ``(df/dx, aux)``)."""
    both = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        gradient, value = both(*args, **kwargs)
        return (gradient, value[1]) if has_aux else gradient
    return wrapper


def vjp(func, *primals, has_aux=False):
    """``(output, vjp_fn)``: ``vjp_fn(v)`` is the tuple of ``v^T J`` for each primal, J the Jacobian of
    ``func`` at ``primals`` (with ``has_aux``: ``(output, vjp_fn, aux)``)."""
    _depth[0] += 1
    try:
        keep = _keeps_graph(primals)
        leaves = [_leaf(p, "vjp", i) for i, p in enumerate(primals)]
        with enable_grad():
            out, aux = _split_aux(func(*leaves), has_aux, "vjp")
    finally:
        _depth[0] -= 1

    def vjp_fn(cotangents):
        if not isinstance(out, Tensor) or not isinstance(cotangents, Tensor) or cotangents.shape != out.shape:
            raise RuntimeError(f"vjp_fn: expected a cotangent of the output's shape {tuple(out.shape)}, got "
                               f"{tuple(getattr(cotangents, 'shape', ()))}")
        if not out.requires_grad:
            return tuple(zeros_like(x) for x in leaves)
        grads = _autograd_grad(out, leaves, cotangents, retain_graph=True, create_graph=keep, allow_unused=True)
        return tuple(zeros_like(x) if g is None else g for x, g in zip(leaves, grads))

    value = out if keep else out.detach()
    return (value, vjp_fn, aux) if has_aux else (value, vjp_fn)


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None):
    """The Jacobian of ``func`` as a function: ``jacrev(f)(x)`` has shape ``output.shape + x.shape`` (a tuple
    of them for a tuple of ``argnums``), one backward pass per output element."""
    def wrapper(*args, **kwargs):
        picks, many = _argnums(argnums, len(args), "jacrev")
        _depth[0] += 1
        try:
            keep = _keeps_graph(args)
            args = list(args)
            for i in picks:
                args[i] = _leaf(args[i], "jacrev", i)
            with enable_grad():
                out, aux = _split_aux(func(*args, **kwargs), has_aux, "jacrev")
            inputs = [args[i] for i in picks]
            rows = [[] for _ in inputs]
            flat = reshape(out, (-1,))
            for k in range(flat.shape[0]):
                grads = (_autograd_grad(flat[k], inputs, retain_graph=True, create_graph=keep, allow_unused=True)
                         if flat.requires_grad else [None] * len(inputs))
                for row, x, g in zip(rows, inputs, grads):
                    row.append(zeros_like(x) if g is None else g)
            jacobians = tuple(reshape(stack(row, 0), tuple(out.shape) + tuple(x.shape)) if row
                              else zeros_like(x).reshape(tuple(out.shape) + tuple(x.shape))
                              for row, x in zip(rows, inputs))
        finally:
            _depth[0] -= 1
        result = jacobians if many else jacobians[0]
        return (result, aux) if has_aux else result
    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian of ``func``, as :func:`jacrev` computes it (PyTorch computes it in forward mode: the same
    values)."""
    return jacrev(func, argnums, has_aux=has_aux)


def hessian(func, argnums=0):
    """The matrix of second derivatives of a scalar function: ``jacfwd(jacrev(func))``."""
    return jacfwd(jacrev(func, argnums), argnums)


def _tree(value):
    return isinstance(value, (tuple, list))


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``func`` mapped over a dim of its inputs: ``vmap(f)(X)`` stacks ``f(X[i])``. ``in_dims`` per argument
    (an int, or None for an argument given whole to every call), ``out_dims`` per output. Runs one call per
    slice (see the module's note); gradients flow through the slicing and stacking."""
    def wrapper(*args, **kwargs):
        dims = in_dims if isinstance(in_dims, (tuple, list)) else (in_dims,) * len(args)
        if len(dims) != len(args):
            raise ValueError(f"vmap(f, in_dims={in_dims!r})(*args): in_dims has {len(dims)} entries for "
                             f"{len(args)} positional arguments")
        sizes = set()
        for i, (a, d) in enumerate(zip(args, dims)):
            if d is None:
                continue
            if not isinstance(a, Tensor) or isinstance(d, bool) or not isinstance(d, numbers.Integral):
                raise ValueError(f"vmap: in_dim={d!r} for argument {i} ({type(a).__name__}); a mapped argument "
                                 f"must be a Tensor with an int in_dim (None to pass it whole)")
            if not -a.ndim <= d < a.ndim:
                raise ValueError(f"vmap: in_dim={d} is out of bounds for argument {i} of shape {tuple(a.shape)}")
            sizes.add(a.shape[d])
        if len(sizes) != 1:
            raise ValueError(f"vmap: expected all mapped arguments to have the same size along their in_dim, got "
                             f"sizes {sorted(sizes)}" if sizes else "vmap: at least one argument must be mapped "
                             "(an int in_dim)")
        slices = [unbind(a, d) if d is not None else None for a, d in zip(args, dims)]
        results = [func(*(a if s is None else s[k] for a, s in zip(args, slices)), **kwargs)
                   for k in range(sizes.pop())]
        if isinstance(results[0], dict):   # (e.g. the gradients of a functional call's parameters)
            return {key: movedim(stack([r[key] for r in results], 0), 0, out_dims) for key in results[0]}
        if _tree(results[0]):
            outs = out_dims if isinstance(out_dims, (tuple, list)) else (out_dims,) * len(results[0])
            return type(results[0])(movedim(stack([r[j] for r in results], 0), 0, d)
                                    for j, d in enumerate(outs))
        return movedim(stack(results, 0), 0, out_dims)
    return wrapper


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with some of its parameters and buffers replaced by the given tensors (by
    their dotted names, as ``named_parameters`` gives them) for this one call; the module is left as it was."""
    values = {}
    for d in (parameter_and_buffer_dicts if isinstance(parameter_and_buffer_dicts, (tuple, list))
              else (parameter_and_buffer_dicts,)):
        values.update(d)
    known = dict(module.named_parameters()) | dict(module.named_buffers())
    unknown = [name for name in values if name not in known]
    missing = sorted(set(known) - set(values)) if strict else []
    if unknown or missing:
        raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:"
                           + (f" Unexpected key(s): {', '.join(map(repr, unknown))}." if unknown else "")
                           + (f" Missing key(s): {', '.join(map(repr, missing))}." if missing else "")
                           + f" (functional_call takes the names of named_parameters(): {sorted(known)})")
    swapped = []
    try:
        for name, value in values.items():
            owner = module
            *path, leaf = name.split(".")
            for part in path:
                owner = owner._modules[part]
            table = owner._parameters if leaf in owner._parameters else owner._buffers
            swapped.append((table, leaf, table[leaf]))
            table[leaf] = value
        args = () if args is None else args if isinstance(args, tuple) else (args,)
        return module(*args, **(kwargs or {}))
    finally:
        for table, leaf, old in reversed(swapped):
            table[leaf] = old
