"""``torch.func``'s transforms, so ``from torch.func import grad, vmap`` ports: ``grad``, ``grad_and_value``,
``vjp``, ``jvp``, ``jacrev``, ``jacfwd``, ``hessian``, ``vmap`` and ``functional_call``.

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

import numpy

from . import backend
from .creation import get_rng_state, set_rng_state, zeros, zeros_like
from .engine import grad as _autograd_grad
from .graph_walk import reach
from .grad_mode import enable_grad
from .ops.rearrange import movedim
from .ops.shape import reshape, stack, unbind
from .tensor import Tensor

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap", "functional_call"]

_depth = [0]   # how many transforms are running: inside one, results keep their graph


def _argnums(argnums, n_args, name):
    many = isinstance(argnums, tuple)
    picks = argnums if many else (argnums,)
    if many and not picks:
        raise RuntimeError(f"{name}: argnums must be non-empty")
    for a in picks:
        if isinstance(a, bool) or not isinstance(a, int) or not -n_args <= a < n_args:
            raise RuntimeError(f"{name}: Got argnums={argnums!r}, but the function has {n_args} positional "
                               f"arguments: each argnum must be an int in [{-n_args}, {n_args})")
    normalized = tuple(a % n_args for a in picks)
    if len(set(normalized)) != len(normalized):
        raise RuntimeError(f"{name}: argnums must be unique, got {argnums!r}")
    return normalized, many


def _flatten(tree):
    """The tensors of a pytree (a tensor, or dicts / lists / tuples of them), in order, and how to rebuild it."""
    if isinstance(tree, dict):
        parts = [_flatten(v) for v in tree.values()]
        return [t for leaves, _ in parts for t in leaves], ("dict", list(tree), [b for _, b in parts])
    if isinstance(tree, (list, tuple)):
        parts = [_flatten(v) for v in tree]
        return [t for leaves, _ in parts for t in leaves], (type(tree), None, [b for _, b in parts])
    return [tree], None


def _same_structure(given, expected, what, of):
    """Refuse a pytree whose structure (containers, dict keys and their order) differs from the one it pairs
    with: its tensors would be matched by position to the wrong ones (PyTorch's RuntimeError)."""
    if given != expected:
        raise RuntimeError(f"Expected pytree structure of {what} to be the same as pytree structure of {of}: "
                           f"got {_shown(given)}, expected {_shown(expected)}")


def _shown(spec):
    """A pytree structure as PyTorch shows it, ``*`` for each tensor: ``{'a': *, 'b': (*, *)}``."""
    if spec is None:
        return "*"
    kind, keys, children = spec
    if kind == "dict":
        return "{" + ", ".join(f"{k!r}: {_shown(c)}" for k, c in zip(keys, children)) + "}"
    inner = ", ".join(_shown(c) for c in children)
    return f"[{inner}]" if kind is list else f"({inner}{',' if len(children) == 1 else ''})"


def _unflatten(leaves, spec):
    """The pytree ``spec`` describes, with ``leaves`` (an iterator) in place of its tensors."""
    if spec is None:
        return next(leaves)
    kind, keys, children = spec
    values = [_unflatten(leaves, c) for c in children]
    if kind == "dict":
        return dict(zip(keys, values))
    return kind(*values) if hasattr(kind, "_fields") else kind(values)   # (a namedtuple: (values, indices))


def _fresh(x, name, index):
    """What the function gets for an input to differentiate with respect to: a new alias of ``x`` (a view, so
    the result keeps its graph back to ``x`` when ``x`` requires grad, as PyTorch's), or a new leaf. The
    gradient is with respect to this alias alone, not to other uses of ``x`` (a closure, the same tensor
    passed twice)."""
    if not isinstance(x, Tensor):
        raise ValueError(f"{name}: argument {index} to differentiate with respect to is a {type(x).__name__}, "
                         f"expected a Tensor (or a dict, list or tuple of them)")
    if x.dtype.kind != "f":
        raise RuntimeError(f"{name}: only Tensors of floating point dtype can require gradients (argument "
                           f"{index} is {x.dtype.name}); convert it with .float()")
    return x.view_as(x) if x.requires_grad else x.detach().requires_grad_(True)


def _prepare(args, picks, name):
    """``(args with fresh inputs at picks, the fresh input tensors, their pytree specs)``."""
    args, specs, fresh = list(args), {}, []
    for i in picks:
        leaves, specs[i] = _flatten(args[i])
        made = [_fresh(t, name, i) for t in leaves]
        fresh += made
        args[i] = _unflatten(iter(made), specs[i])
    return args, fresh, specs


def _keeps_graph(args, outputs, fresh):
    """Whether results keep their graph: inside another transform, or when the outputs depend on a tensor that
    requires grad besides the fresh inputs (an input that required grad, a closure's parameter)."""
    if _depth[0] > 1 or any(isinstance(t, Tensor) and t.requires_grad for t in _flatten(list(args))[0]):
        return True
    ours = {id(t) for t in fresh}
    roots = [o.grad_fn for o in outputs if isinstance(o, Tensor) and o.grad_fn is not None]
    for node in reach(roots)[0]:
        variable = getattr(node, "variable", None)
        if variable is not None and id(variable) not in ours:
            return True
    return False


def _detached(tree, keep):
    if keep:
        return tree
    leaves, spec = _flatten(tree)
    return _unflatten(iter([t.detach() if isinstance(t, Tensor) else t for t in leaves]), spec)


def _split_aux(out, has_aux, name):
    if not has_aux:
        return out, None
    if not isinstance(out, tuple) or len(out) != 2:
        raise RuntimeError(f"{name}(f, ..., has_aux=True): f must return a pair (output, aux), got "
                           f"{type(out).__name__}")
    return out


def _call(func, args, kwargs, picks, has_aux, name):
    """Run ``func`` on fresh inputs at ``picks`` with gradients on: ``(output, aux, fresh inputs, specs)``."""
    call_args, fresh, specs = _prepare(args, picks, name)
    with enable_grad():
        out, aux = _split_aux(func(*call_args, **kwargs), has_aux, name)
    return out, aux, fresh, specs


def _gradients(output, fresh, cotangent, keep):
    """d<output, cotangent>/d(each fresh input), zeros where the output does not depend on one."""
    if not output.requires_grad:
        return [zeros_like(x) for x in fresh]
    grads = _autograd_grad(output, fresh, cotangent, retain_graph=True, create_graph=keep, allow_unused=True)
    return [zeros_like(x) if g is None else g for x, g in zip(fresh, grads)]


def grad_and_value(func, argnums=0, has_aux=False):
    """A function returning ``(gradient, value)`` of ``func``, whose output must be a scalar tensor. With
    ``has_aux``, ``func`` returns ``(scalar, aux)`` and the result is ``(gradient, (value, aux))``, as PyTorch's.
    The gradient is with respect to argument ``argnums`` (a tuple of them: a tuple of gradients), in that
    argument's shape (a dict of tensors gives a dict of gradients); an input the output does not depend on
    gets zeros."""
    def wrapper(*args, **kwargs):
        picks, many = _argnums(argnums, len(args), "grad_and_value(f)(*args)")
        _depth[0] += 1
        try:
            out, aux, fresh, specs = _call(func, args, kwargs, picks, has_aux, "grad_and_value")
            if not isinstance(out, Tensor) or out.ndim != 0:
                what = f"tensor with {out.ndim} dims" if isinstance(out, Tensor) else type(out).__name__
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                                   f"{what}. Maybe you wanted to use the vjp or jacrev APIs instead?")
            keep = _keeps_graph(args, [out], fresh)
            flat = iter(_gradients(out, fresh, None, keep))
            grads = tuple(_unflatten(flat, specs[i]) for i in picks)
        finally:
            _depth[0] -= 1
        gradient = grads if many else grads[0]
        value, aux = _detached(out, keep), _detached(aux, keep)
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
    """``(output, vjp_fn)``: ``vjp_fn(v)`` is the tuple of ``v^T J`` for each primal (in its shape), J the
    Jacobian of ``func`` at ``primals``; ``v`` has the output's shape (a pytree of tensors for a pytree
    output). With ``has_aux``: ``(output, vjp_fn, aux)``."""
    picks = tuple(range(len(primals)))
    _depth[0] += 1
    try:
        out, aux, fresh, specs = _call(func, primals, {}, picks, has_aux, "vjp")
        outs, out_spec = _flatten(out)
        keep = _keeps_graph(primals, outs, fresh)
    finally:
        _depth[0] -= 1

    def vjp_fn(cotangents):
        given, given_spec = _flatten(cotangents)
        _same_structure(given_spec, out_spec, "cotangents", "outputs to the function")
        if len(given) != len(outs) or any(not isinstance(v, Tensor) or v.shape != o.shape
                                          for v, o in zip(given, outs)):
            raise RuntimeError(f"vjp_fn: expected cotangents of the output's shapes "
                               f"{[tuple(o.shape) for o in outs]}, got "
                               f"{[tuple(getattr(v, 'shape', ())) for v in given]}")
        pairs = [(o, v) for o, v in zip(outs, given) if o.requires_grad]
        if not pairs:
            flat = iter([zeros_like(x) for x in fresh])
        else:
            grads = _autograd_grad([o for o, _ in pairs], fresh, [v for _, v in pairs], retain_graph=True,
                                   create_graph=keep, allow_unused=True)
            flat = iter([zeros_like(x) if g is None else g for x, g in zip(fresh, grads)])
        return tuple(_unflatten(flat, specs[i]) for i in picks)

    value, aux = _detached(out, keep), _detached(aux, keep)
    return (value, vjp_fn, aux) if has_aux else (value, vjp_fn)


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(func(*primals), J t)``: the output and its directional derivative along ``tangents`` (a tensor per
    primal, in its shape), J the Jacobian of ``func`` at ``primals`` -- forward mode's product. Computed here
    in reverse mode by the double-vjp trick: with a dummy cotangent u, w(u) = u^T J is linear in u, and the
    gradient of <w(u), t> with respect to u is J t. With ``has_aux``: ``(output, J t, aux)``."""
    for what, value in (("primals", primals), ("tangents", tangents)):
        if not isinstance(value, tuple):
            raise RuntimeError(f"jvp(f, primals, tangents): Expected {what} to be a tuple, got "
                               f"{type(value).__name__}: write jvp(f, (x,), (t,))")
    given, given_spec = _flatten(tangents)
    _same_structure(given_spec, _flatten(primals)[1], "tangents", "primals")
    picks = tuple(range(len(primals)))
    _depth[0] += 1
    try:
        out, aux, fresh, _ = _call(func, primals, {}, picks, has_aux, "jvp")
        if len(given) != len(fresh) or any(not isinstance(t, Tensor) or t.shape != x.shape
                                           for t, x in zip(given, fresh)):
            raise RuntimeError(f"jvp: expected tangents of the primals' shapes {[tuple(x.shape) for x in fresh]}, "
                               f"got {[tuple(getattr(t, 'shape', ())) for t in given]}")
        outs, out_spec = _flatten(out)
        keep = _keeps_graph(primals, outs, fresh)
        dummies = [zeros_like(o).requires_grad_(True) for o in outs]
        pairs = [(o, u) for o, u in zip(outs, dummies) if o.requires_grad]
        products = [zeros_like(o) for o in outs]
        if pairs:
            w = _autograd_grad([o for o, _ in pairs], fresh, [u for _, u in pairs], retain_graph=True,
                               create_graph=True, allow_unused=True)
            terms = [(g, t) for g, t in zip(w, given) if g is not None and g.requires_grad]
            if terms:
                jt = _autograd_grad([g for g, _ in terms], dummies, [t for _, t in terms], retain_graph=True,
                                    create_graph=keep, allow_unused=True)
                products = [zeros_like(o) if d is None else d for o, d in zip(outs, jt)]
    finally:
        _depth[0] -= 1
    value = _detached(out, keep)
    product = _detached(_unflatten(iter(products), out_spec), keep)
    return (value, product, _detached(aux, keep)) if has_aux else (value, product)


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None):
    """The Jacobian of ``func`` as a function: ``jacrev(f)(x)`` has shape ``output.shape + x.shape``, one
    backward pass per output element. A tuple of ``argnums`` gives a tuple (one Jacobian per input), a tuple
    or dict output a tuple or dict of those."""
    def wrapper(*args, **kwargs):
        picks, many = _argnums(argnums, len(args), "jacrev")
        _depth[0] += 1
        try:
            out, aux, fresh, specs = _call(func, args, kwargs, picks, has_aux, "jacrev")
            outs, out_spec = _flatten(out)
            keep = _keeps_graph(args, outs, fresh)
            per_output = []
            for o in outs:
                flat = reshape(o, (-1,))
                rows = [_gradients(flat[k], fresh, None, keep) for k in range(flat.shape[0])]
                blocks = [reshape(stack([r[j] for r in rows], 0), tuple(o.shape) + tuple(x.shape)) if rows
                          else zeros(tuple(o.shape) + tuple(x.shape), dtype=x.dtype, device=x.device)
                          for j, x in enumerate(fresh)]
                blocks = iter(blocks)
                per_input = tuple(_unflatten(blocks, specs[i]) for i in picks)
                per_output.append(per_input if many else per_input[0])
        finally:
            _depth[0] -= 1
        result = _unflatten(iter(per_output), out_spec)
        return (result, _detached(aux, keep)) if has_aux else result
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
    (an int: that dim of every tensor in the argument, which may be a dict, list or tuple of tensors; None: the
    argument given whole to every call), ``out_dims`` per output (a tuple or dict matching the outputs). Runs one
    call per slice (see the module's note), and one on zero slices for a batch of size 0, which gives an empty
    result of the right shape; gradients flow through the slicing and stacking. ``randomness``: "error" (a
    random draw inside raises, as PyTorch's default), "different" or "same" (each sample draws the same)."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got "
                           f"{randomness}")

    def wrapper(*args, **kwargs):
        if isinstance(in_dims, list):
            raise ValueError("vmap: in_dims must be an int, None or a tuple (one entry per argument), not a list")
        dims = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args)
        if len(dims) != len(args):
            raise ValueError(f"vmap(f, in_dims={in_dims!r})(*args): in_dims has {len(dims)} entries for "
                             f"{len(args)} positional arguments")
        sizes, slices = set(), []
        for i, (a, d) in enumerate(zip(args, dims)):
            if d is None:
                slices.append(None)
                continue
            leaves, spec = _flatten(a)
            if isinstance(d, bool) or not isinstance(d, numbers.Integral) or not all(isinstance(t, Tensor)
                                                                                   for t in leaves):
                raise ValueError(f"vmap: in_dim={d!r} for argument {i} ({type(a).__name__}); a mapped argument "
                                 f"must be a Tensor (or a dict, list or tuple of them) with an int in_dim (None to "
                                 f"pass it whole)")
            for t in leaves:
                if not -t.ndim <= d < t.ndim:
                    raise ValueError(f"vmap: in_dim={d} is out of bounds for argument {i}'s tensor of shape "
                                     f"{tuple(t.shape)}")
                sizes.add(t.shape[d])
            slices.append((spec, [unbind(t, d) for t in leaves]))
        if len(sizes) != 1:
            raise ValueError(f"vmap: expected all mapped arguments to have the same size along their in_dim, got "
                             f"sizes {sorted(sizes)}" if sizes else "vmap: at least one argument must be mapped "
                             "(an int in_dim)")

        def call(k):
            taken = [a if s is None else _unflatten(iter([parts[k] for parts in s[1]]), s[0])
                     for a, s in zip(args, slices)]
            return func(*taken, **kwargs)
        n = sizes.pop()
        if n == 0:   # one call on stand-in slices, still on the graph (see _stand_in)
            for a, d, s in zip(args, dims, slices):
                if s is not None:
                    s[1][:] = [[_stand_in(t, d)] for t in _flatten(a)[0]]
        results = _calls(call, max(n, 1), randomness)
        if not all(isinstance(t, Tensor) for t in _flatten(results[0])[0]):
            raise ValueError(f"vmap: the function must return tensors (or dicts, lists, tuples of them), got "
                             f"{type(results[0]).__name__}")

        def stacked(parts, d):
            if d is None:   # (an output not mapped: every call's is the same, as PyTorch's out_dims=None)
                return parts[0]
            out = stack(parts, 0)
            return movedim(out if n else out.narrow(0, 0, 0), 0, d)
        flat = [_flatten(r) for r in results]   # (any pytree: a dict of gradients, a (value, grads) pair, ...)
        if any(spec != flat[0][1] for _, spec in flat[1:]):
            raise ValueError("vmap: the function returned outputs of different structures for different samples")
        dims = _out_dims(out_dims, results[0])
        leaves = [stacked([leaves[j] for leaves, _ in flat], d) for j, d in enumerate(dims)]
        return _unflatten(iter(leaves), flat[0][1])
    return wrapper


def _calls(call, n, randomness):
    """``call(k)`` for each sample k, with PyTorch's ``randomness``: "different" draws anew in each call,
    "same" replays the random stream, so every sample draws the same numbers, "error" refuses a draw."""
    start = get_rng_state()
    results = []
    for k in range(n):
        if randomness == "same":
            set_rng_state(start)
        results.append(call(k))
        if randomness == "error" and k == 0 and not bool((get_rng_state() == start).all()):
            set_rng_state(start)
            raise RuntimeError("vmap: called random operation while in randomness error mode. Please either use "
                               "the 'same' or 'different' randomness flags on vmap or perform the randomness "
                               "operation out of vmap")
    return results


def _out_dims(out_dims, tree):
    """One out_dim per tensor of the output ``tree``: an int (or None) for all of a subtree, or a dict / tuple
    / list shaped as it."""
    if out_dims is None or isinstance(out_dims, int):
        return [out_dims] * len(_flatten(tree)[0])
    if isinstance(tree, dict):
        if not isinstance(out_dims, dict) or set(out_dims) != set(tree):
            raise ValueError(f"vmap: out_dims has keys {sorted(out_dims) if isinstance(out_dims, dict) else out_dims}"
                             f" but the function returned {sorted(tree)}")
        return [d for key in tree for d in _out_dims(out_dims[key], tree[key])]
    if isinstance(tree, (tuple, list)) and isinstance(out_dims, (tuple, list)):
        if len(out_dims) != len(tree):
            raise ValueError(f"vmap: out_dims has {len(out_dims)} entries but the function returned {len(tree)} "
                             f"outputs")
        return [d for sub, part in zip(out_dims, tree) for d in _out_dims(sub, part)]
    raise ValueError(f"vmap: out_dims={out_dims!r} does not fit the output's structure ({type(tree).__name__})")


def _stand_in(t, dim):
    """A slice for the one call vmap makes over a batch of size 0, to learn the output's shape: the sum over
    the empty dim (zeros, on the graph) plus fixed normal numbers for floats, so functions that refuse zeros
    (an inverse, a Cholesky factor) still run; zeros for integers and bools (indices stay in range)."""
    zeros = t.sum(dim).to(t.dtype)
    if t.dtype.kind != "f":
        return zeros
    values = numpy.random.default_rng(0).standard_normal(tuple(zeros.shape)).astype(t.dtype)
    return zeros + Tensor._make(backend.asarray(values, t.device), False, None, t.device)


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with some of its parameters and buffers replaced by the given tensors (by
    their dotted names, as ``named_parameters`` gives them) for this one call; the module is left as it was.
    A name the module does not have is refused even with ``strict=False`` (PyTorch ignores it there)."""
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
    if tie_weights:   # (a tensor shared by several modules is replaced everywhere it appears, as PyTorch's)
        slots = {}
        for mod_name, mod in module.named_modules():
            for table in (mod._parameters, mod._buffers):
                for leaf, t in table.items():
                    if t is not None:
                        slots.setdefault(id(t), []).append(f"{mod_name}.{leaf}" if mod_name else leaf)
        for name in list(values):
            for alias in slots.get(id(known[name]), []):
                values.setdefault(alias, values[name])
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
