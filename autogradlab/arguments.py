"""The arguments of ``backward()`` and ``grad()``: checked and seeded before anything runs.

As in PyTorch's ``torch/autograd/__init__.py``: every argument is turned into a
tuple, every root and seed checked (shape, dtype, device), implicit seeds made
(ones for a one-element root) and ``retain_graph`` defaulted to ``create_graph``.
A call with bad arguments raises here, so it leaves every ``.grad`` as it was;
the engine's loop then assumes clean inputs. (:func:`grad_variant` also lives
here: ``grad()`` with named inputs or a batch of vectors, which it turns into
plain ``grad()`` calls, one pass per vector.)
"""
from __future__ import annotations

import warnings

from .creation import ones, ones_like, zeros_like
from .graph import NO_DERIVATIVE, NO_SECOND_DERIVATIVE, AccumulateGrad, GradientEdge, as_grad_tensor
from .graph_walk import node_of
from .ops.elementwise import to_dtype
from .ops.registry import refresh_view
from .ops.shape import stack
from .tensor import Tensor

__all__ = ["backward_arguments", "grad_arguments", "grad_variant", "check_runnable", "grad_results",
           "unused_input_error"]


def backward_arguments(tensors, grad_tensors, retain_graph, create_graph, grad_variables, inputs):
    """``backward``'s arguments as ``(roots, seeds, implicit, retain_graph, inputs)``."""
    if (type(tensors) is Tensor and grad_tensors is None and grad_variables is None and inputs is None
            and tensors._requires_grad and tensors._view is None and tensors._data.size == 1):
        # the common call, loss.backward(): what the general path below gives it, with no checks to fail
        return (tensors,), [_implicit_seed(tensors)], (True,), bool(create_graph if retain_graph is None
                                                                       else retain_graph), None
    if grad_variables is not None:
        warnings.warn("'grad_variables' is deprecated. Use 'grad_tensors' instead.", DeprecationWarning,
                      stacklevel=3)
        if grad_tensors is not None:
            raise RuntimeError("'grad_tensors' and 'grad_variables' (deprecated) arguments both passed to "
                               "backward(). Please only use 'grad_tensors'.")
        grad_tensors = grad_variables
    roots = _as_tuple(tensors, "tensors", allow_edges=True)
    _refresh_views(roots)
    if inputs is not None:
        inputs = _as_tuple(inputs.values() if isinstance(inputs, dict) else inputs, "inputs", allow_edges=True)
        if not inputs:
            raise RuntimeError("'inputs' argument to backward() cannot be empty.")
        _refresh_views(inputs)
        _check_inputs(inputs)
        inputs = tuple({id(t): t for t in inputs}.values())  # an input named twice accumulates once
    seeds = _make_seeds(roots, grad_tensors, create_graph, "grad_tensors", "tensors")
    _check_roots(roots, "tensors")
    implicit = tuple(s is None for s in seeds)
    seeds = [s if s is not None else _implicit_seed(r) for r, s in zip(roots, seeds)]
    return roots, seeds, implicit, bool(create_graph if retain_graph is None else retain_graph), inputs


def _allow_unused(allow_unused, materialize_grads):
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    return materialize_grads if allow_unused is None else allow_unused


def grad_arguments(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads):
    """``grad``'s arguments as ``(roots, inputs, seeds, implicit, retain_graph, allow_unused)``."""
    allow_unused = _allow_unused(allow_unused, materialize_grads)
    if (type(outputs) is Tensor and grad_outputs is None and outputs._requires_grad
            and outputs._view is None and outputs._data.size == 1):
        # the common call, grad(loss, params): what the general path below gives it, with no checks to fail
        given = (inputs,) if isinstance(inputs, Tensor) else inputs
        if type(given) in (tuple, list) and given and all(
                [isinstance(t, Tensor) and t._requires_grad and t._view is None for t in given]):
            return ((outputs,), tuple(given), [_implicit_seed(outputs)], (True,),
                    bool(create_graph if retain_graph is None else retain_graph), allow_unused)
    roots = _as_tuple(outputs, "outputs", allow_edges=True)
    inputs = _as_tuple(inputs, "inputs", allow_edges=True)
    _refresh_views(roots)
    if not inputs:
        raise RuntimeError("grad requires at least one input: 'inputs' is empty")
    _refresh_views(inputs)
    for i, t in enumerate(inputs):
        if isinstance(t, Tensor) and not t.requires_grad:
            raise RuntimeError(f"One of the differentiated Tensors does not require grad: inputs[{i}] "
                               f"(shape {_shape(t)}). Create it with requires_grad=True.")
    seeds = _make_seeds(roots, grad_outputs, create_graph, "grad_outputs", "outputs")
    _check_roots(roots, "outputs")
    implicit = tuple(s is None for s in seeds)
    seeds = [s if s is not None else _implicit_seed(r) for r, s in zip(roots, seeds)]
    retain_graph = bool(create_graph if retain_graph is None else retain_graph)
    return roots, inputs, seeds, implicit, retain_graph, allow_unused


def grad_variant(grad, outputs, inputs, grad_outputs, retain_graph, create_graph, only_inputs, allow_unused,
                 is_grads_batched, materialize_grads):
    """``grad`` with named inputs (a dict: the result is a dict with the same names), with a batch of
    vectors (``is_grads_batched``: one VJP per row of each grad_output, stacked), or with the deprecated
    ``only_inputs`` (ignored, as in PyTorch)."""
    if not only_inputs:
        warnings.warn("grad(only_inputs=False) is deprecated and ignored: grad() only ever computes the "
                      "inputs' gradients. To accumulate gradients into the leaves' .grad, call backward().",
                      FutureWarning, stacklevel=3)
    if isinstance(inputs, dict):
        results = grad(outputs, tuple(inputs.values()), grad_outputs, retain_graph, create_graph, True,
                       allow_unused, is_grads_batched, materialize_grads)
        return dict(zip(inputs, results))
    if not is_grads_batched:
        return grad(outputs, inputs, grad_outputs, retain_graph, create_graph, True, allow_unused, False,
                    materialize_grads)
    allow_unused = _allow_unused(allow_unused, materialize_grads)
    batches = _unbatch(_as_tuple(outputs, "outputs", allow_edges=True), grad_outputs)
    keep = bool(create_graph if retain_graph is None else retain_graph)
    per_vector = [grad(outputs, inputs, vectors, True if b < len(batches) - 1 else keep, create_graph,
                       allow_unused=allow_unused) for b, vectors in enumerate(batches)]
    stacked = [None if rows[0] is None else stack(rows) for rows in zip(*per_vector)]
    # (as PyTorch: an unused input's zeros come after the batch, so they have no batch dim)
    return grad_results(_as_tuple(inputs, "inputs", allow_edges=True), stacked, allow_unused, materialize_grads,
                        create_graph)


def _unbatch(roots, grad_outputs):
    """``is_grads_batched``: the grad_outputs as one list per vector of the batch (row ``b`` of each)."""
    given = (grad_outputs,) if isinstance(grad_outputs, Tensor) else (
        tuple(grad_outputs) if grad_outputs is not None and _iterable(grad_outputs) else ())
    if len(given) != len(roots) or not all(isinstance(g, Tensor) for g in given):
        raise RuntimeError(f"grad(is_grads_batched=True) needs grad_outputs: one Tensor per output ({len(roots)} "
                           f"here) whose first dim is the batch of vectors and whose other dims are the output's "
                           f"shape, e.g. an identity matrix for a Jacobian")
    sizes = []
    for i, (root, g) in enumerate(zip(roots, given)):
        if g.ndim == 0 or _shape(g)[1:] != _shape(_root_meta(root)):
            raise RuntimeError(f"grad(is_grads_batched=True) reads the first dim of each grad_output as the batch "
                               f"and the others as its output's shape, but grad_outputs[{i}] has shape {_shape(g)} "
                               f"and outputs[{i}] has shape {_shape(_root_meta(root))}: give it shape "
                               f"(batch, {', '.join(map(str, _shape(_root_meta(root))))})")
        sizes.append(g.shape[0])
    if len(set(sizes)) > 1:
        raise RuntimeError(f"grad(is_grads_batched=True): every grad_output needs the same batch size (its first "
                           f"dim), but they have {sizes}")
    if sizes[0] == 0:
        raise RuntimeError("grad(is_grads_batched=True) got an empty batch (first dim 0): there is no vector to "
                           "take a vector-Jacobian product with")
    return [[g[b] for g in given] for b in range(sizes[0])]


def check_runnable(plan, inputs, allow_unused, create_graph=False):
    """Checks a pass makes on its plan before any work (and before anything is freed): every node
    that will run can (not freed, nothing it saved changed in place, no gradient asked of an input without a
    derivative, and with ``create_graph`` none whose VJP has no derivative of its own), taken in walk order so
    the node an error names is deterministic; with ``allow_unused=False``, every input is reached."""
    runs = plan.runs
    for node in plan.nodes:
        saved = node._saved
        if saved:   # the version test of graph.check_saved_version, inline: it runs for every node
            for s in saved.values():
                if s is not None and s[2][0] != s[3] and node in runs:   # (source, data, vc, version)
                    node.check_runnable()   # raises, naming the tensor
        elif node._freed and node in runs:
            node.check_runnable()
    if NO_DERIVATIVE:
        for node, (index, why) in list(NO_DERIVATIVE.items()):
            edge = node.edges[index]
            if node in runs and edge is not None and edge in plan.needed:
                raise NotImplementedError(why)
    if create_graph and NO_SECOND_DERIVATIVE:
        for node, why in list(NO_SECOND_DERIVATIVE.items()):
            if node in runs:
                raise NotImplementedError(why)
    if not allow_unused:
        for i, t in enumerate(inputs):
            if node_of(t) not in plan.needed:
                raise unused_input_error(i)


def grad_results(inputs, captured, allow_unused, materialize_grads, create_graph):
    """What ``autograd.grad`` returns: one gradient per input as a Tensor; an input that no root
    reaches raises (unless ``allow_unused``), or gets zeros with ``materialize_grads``."""
    result = []
    for i, (t, g) in enumerate(zip(inputs, captured)):
        if g is not None and not isinstance(g, Tensor):
            g = as_grad_tensor(g, t.device if isinstance(t, Tensor) else None)
        if g is None:
            if not allow_unused:
                raise unused_input_error(i)
            if materialize_grads:
                if not isinstance(t, Tensor):
                    raise RuntimeError("materialize_grads cannot be used when the given input is a GradientEdge")
                g = zeros_like(t, requires_grad=create_graph)  # as PyTorch
        result.append(g)
    return tuple(result)


def _iterable(value) -> bool:
    """A list, tuple or any other iterable of tensors, as PyTorch takes (``model.parameters()`` is a
    generator); not a string, and not an array (its error names the array, not its first element)."""
    return hasattr(value, "__iter__") and not isinstance(value, (str, bytes)) and not hasattr(value, "dtype")


def _as_tuple(value, argname, allow_edges=False):
    if isinstance(value, (Tensor, GradientEdge)):
        value = (value,)
    elif _iterable(value):
        value = tuple(value)
    else:
        raise TypeError(f"{argname} must be a Tensor or a sequence of Tensors, got {type(value).__name__}")
    for i, v in enumerate(value):
        if isinstance(v, GradientEdge) and allow_edges:
            continue
        if not isinstance(v, Tensor):
            raise TypeError(f"{argname}[{i}] must be a Tensor, got {type(v).__name__}")
    return tuple(value)


def _shape(t):
    return tuple(t.shape)


def _make_seeds(roots, grad_tensors, create_graph, argname, rootname):
    """One seed per root: the given gradient (checked) or ones for a one-element root."""
    roots = [_root_meta(r) for r in roots]   # a GradientEdge root: the shape/dtype/device its node makes
    if grad_tensors is None:
        grad_tensors = (None,) * len(roots)
    elif isinstance(grad_tensors, Tensor):
        grad_tensors = (grad_tensors,)
    elif _iterable(grad_tensors):
        grad_tensors = tuple(grad_tensors)
    else:
        raise TypeError(f"{argname} must be a Tensor, a sequence of Tensors (or None), or None; got "
                        f"{type(grad_tensors).__name__}. For a scalar output just call backward(); "
                        f"otherwise pass e.g. ones_like(output).")
    for i, g in enumerate(grad_tensors):   # before the count: a list of numbers is one gradient, not many
        if g is not None and not isinstance(g, Tensor):
            raise TypeError(f"{argname}[{i}] is a {type(g).__name__}: gradients can be either Tensors or None. "
                            f"Pass each gradient as a Tensor of its output's shape, e.g. "
                            f"{argname}=tensor([1.0, 1.0, 1.0]) rather than the list [1.0, 1.0, 1.0].")
    if len(grad_tensors) != len(roots):
        raise RuntimeError(f"got {len(roots)} tensor(s) in {rootname} but {len(grad_tensors)} gradient(s) in "
                           f"{argname}: give exactly one gradient (or None) per tensor")
    seeds = []
    for i, (root, g) in enumerate(zip(roots, grad_tensors)):
        if g is None:
            if root.requires_grad and root.numel() != 1:
                raise RuntimeError(
                    f"grad can be implicitly created only for scalar outputs: {rootname}[{i}] has shape "
                    f"{_shape(root)} ({root.numel()} elements). Pass {argname}[{i}], a tensor of shape "
                    f"{_shape(root)} (often ones_like), or reduce the output to a scalar first (e.g. .sum()).")
            seeds.append(None)
            continue
        if _shape(g) != _shape(root):
            raise RuntimeError(f"Mismatch in shape: {argname}[{i}] has a shape of {_shape(g)} and "
                               f"{rootname}[{i}] has a shape of {_shape(root)}. The gradient must have "
                               f"exactly the output's shape (it is not broadcast).")
        if (g.dtype.kind == "c") != (root.dtype.kind == "c"):   # (an integer or bool seed is cast, as PyTorch's)
            raise RuntimeError(f"For complex Tensors, both grad_output and output are required to have the same "
                               f"dtype. Mismatch in dtype: {argname}[{i}] has a dtype of {g.dtype.name} and "
                               f"{rootname}[{i}] has a dtype of {root.dtype.name}.")
        if g.device != root.device:
            raise RuntimeError(f"{argname}[{i}] is on device {g.device} but {rootname}[{i}] is on device "
                               f"{root.device}: move the gradient with .to('{root.device}')")
        seeds.append(g)
    out = []
    for root, g in zip(roots, seeds):
        if g is None:
            out.append(None)
            continue
        if g.dtype != root.dtype:  # PyTorch casts a seed to the output's dtype (recorded under create_graph)
            g = to_dtype(g if create_graph else g.detach(), root.dtype)
        out.append(g if create_graph else g.detach())
    return out


class _EdgeOutput:
    """What a GradientEdge root stands for: the output its node produces (shape, dtype, device)."""

    requires_grad = True

    def __init__(self, shape, dtype, device):
        self.shape, self.dtype, self.device = tuple(shape), dtype, device

    def numel(self):
        n = 1
        for d in self.shape:
            n *= d
        return n


def _root_meta(root):
    if isinstance(root, Tensor):
        return root
    if isinstance(root.node, AccumulateGrad):
        return root.node.variable
    _, shape, dtype, device = root.node._out_meta
    return _EdgeOutput(shape, dtype, device)


def _implicit_seed(root):
    dtype = _root_meta(root).dtype
    if dtype.kind == "c":
        raise RuntimeError(
            f"grad can be implicitly created only for real scalar outputs but got {dtype.name}: backpropagate "
            f"a real number made of the complex output (z.real, z.abs() ** 2), or pass its gradient, a complex "
            f"tensor of its shape")
    if isinstance(root, Tensor):
        return ones_like(root)
    meta = _root_meta(root)
    return ones(meta.shape, dtype=meta.dtype, device=meta.device)


def _check_roots(roots, rootname):
    for i, r in enumerate(roots):
        if isinstance(r, Tensor) and not r.requires_grad:
            raise RuntimeError(
                f"element {i} of {rootname} does not require grad and does not have a grad_fn: nothing "
                f"it depends on requires grad, or it was computed inside no_grad() or inference_mode(), or (for a "
                f"second derivative) from a gradient taken without create_graph=True. Create the inputs with "
                f"requires_grad=True and compute it with gradients on.")


def _refresh_views(tensors):
    """A view whose base was changed in place since its history was recorded takes its history
    from the base again (as when an op uses it), so roots and inputs see the current graph."""
    for t in tensors:
        if isinstance(t, Tensor) and t._view is not None and t._view[2] != t._vc[0]:
            refresh_view(t)



def unused_input_error(i):
    return RuntimeError(f"One of the differentiated Tensors appears to not have been used in the graph "
                        f"(inputs[{i}]). Set allow_unused=True if this is the desired behavior.")


def _check_inputs(inputs):
    for i, t in enumerate(inputs):
        if isinstance(t, GradientEdge) and not isinstance(t.node, AccumulateGrad):
            raise TypeError(f"inputs[{i}] is the GradientEdge of a computed tensor: backward() has no .grad to "
                            f"put its gradient in. Pass the tensor itself, or use autograd.grad(outputs, "
                            f"[edge]) to get the gradient returned.")
        if isinstance(t, Tensor) and not t.requires_grad:
            raise RuntimeError(f"inputs[{i}] (shape {_shape(t)}) does not require grad, so no gradient "
                               f"can be accumulated into it. Create it with requires_grad=True.")
