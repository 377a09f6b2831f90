"""Custom differentiable ops: subclass :class:`Function` and write ``forward`` and ``backward``.

    class Cube(Function):
        @staticmethod
        def forward(ctx, x):            # y = x^3
            ctx.save_for_backward(x)
            return x * x * x
        @staticmethod
        def backward(ctx, g):           # dx = g * 3x^2
            (x,) = ctx.saved_tensors
            return g * 3 * x * x

    y = Cube.apply(x)

``forward`` runs with grad mode off on Tensors; ``backward`` gets one gradient
per output and returns one gradient (or None) per ``forward`` argument. The
``ctx`` is the graph node itself, so ``y.grad_fn`` is where ``ctx`` lives.
A ``forward`` may return a tuple (or list) of outputs: each output's
``grad_fn`` is then a small node ``<NameBackward[i]>`` that sends its gradient
to the Function's node (PyTorch makes the Function's node every output's own).

PyTorch 2's other form works too: ``forward(x)`` without ``ctx``, and a
``setup_context(ctx, inputs, output)`` that saves what ``backward`` needs
(``inputs`` holds every argument, defaults filled in).
"""
from __future__ import annotations

import inspect
import traceback
import weakref

import numpy

from . import backend
from .grad_mode import no_grad, state
from .graph import FREED_MESSAGE, Node, check_saved_version, save_tensor, saved_tensor_of
from .ops.inplace import _check as check_inplace
from .ops.inplace import _rebase as rebase_view
from .ops.registry import OpDef
from .ops.shape import cat
from .tensor import Tensor

__all__ = ["Function", "FunctionCtx"]


class FunctionCtx(Node):
    """The node of a custom Function; also the ``ctx`` its forward and backward receive."""

    # no __slots__: users may store anything on ctx (ctx.scale = 2), even under the names
    # built-in ops read their saved tensors by
    self = other = result = None
    _outputs = None           # several outputs: per output (shape, dtype, device), None for a non-tensor
    _materialize = True       # an output no gradient reached gets zeros (False: None), as PyTorch's default

    def save_for_backward(self, *tensors):
        """Keep tensors for backward; they are checked for in-place changes when read back."""
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"save_for_backward can only save tensors (or None), but argument {i} "
                                f"is a {type(t).__name__}; store other values as ctx attributes")
        self._to_save = tensors

    @property
    def saved_tensors(self):
        if self._freed:
            raise RuntimeError(FREED_MESSAGE)
        if not self._saved:
            return ()
        out = []
        for name, saved in self._saved.items():
            if saved is None:
                out.append(None)
                continue
            check_saved_version(saved, self, name)
            out.append(saved_tensor_of(saved, self))
        return tuple(out)

    @property
    def needs_input_grad(self):
        return self._needs_input_grad

    def mark_non_differentiable(self, *tensors):
        """Say an output has no gradient (an index, a mask): it is returned with ``requires_grad=False``."""
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        """``False``: ``backward`` gets None, not zeros, for an output no gradient reached (or one marked
        non-differentiable). A Function with one output always gets its gradient."""
        self._materialize = bool(value)

    def mark_dirty(self, *tensors):
        """Say forward changed these inputs in place (each must be returned): as after a built-in in-place op,
        the input itself is the output, its history going on through this node, its version one higher."""
        self._dirty = tensors

    def __getattr__(self, attr):  # plain attribute semantics for user data
        raise AttributeError(f"ctx has no attribute {attr!r}")


def _call_backward(g, ctx):
    if state.tape is not None:   # (user code may write into the gradients it gets: what was told stays told)
        state.tape.keep_values()
    grads = ctx._fn_class.backward(ctx, *(_per_output(ctx, g) if ctx._outputs is not None else (g,)))
    if not isinstance(grads, tuple):
        grads = (grads,)
    n_args = len(ctx._arg_is_tensor)
    if len(grads) < n_args:  # (more than n_args is fine only if the extras are None; checked below)
        raise RuntimeError(f"function {ctx.name()} returned an incorrect number of gradients "
                           f"(expected {n_args}, got {len(grads)}): return one gradient (or None) per "
                           f"argument of forward")
    if any(gr is not None for gr in grads[n_args:]):
        raise RuntimeError(f"function {ctx.name()} returned an incorrect number of gradients (expected "
                           f"{n_args}, got {len(grads)}): return one gradient (or None) per argument of forward")
    out, k = [], 0
    for i, (gr, is_t) in enumerate(zip(grads, ctx._arg_is_tensor)):
        if gr is not None and not is_t:  # as PyTorch: a non-tensor argument gets no gradient
            raise RuntimeError(f"function {ctx.name()} returned a gradient different than None at position "
                               f"{i + 1}, but the corresponding forward input was not a Tensor")
        if not is_t:
            continue
        if gr is not None and not isinstance(gr, Tensor):
            raise TypeError(f"function {ctx.name()} returned a {type(gr).__name__} as the gradient at index "
                            f"{i}: return a Tensor (wrap arrays with autogradlab.tensor) or None")
        if not ctx._needs_input_grad[i]:   # (an input that needs no gradient: its tensor is dropped unchecked,
            gr = None                      # as PyTorch's engine drops it)
        if gr is not None:
            shape = tuple(ctx._input_shapes[k])
            if not _sums_to(tuple(gr.shape), shape):
                raise RuntimeError(f"function {ctx.name()} returned an invalid gradient at index {i} - got "
                                   f"{list(gr.shape)} but expected shape compatible with {list(shape)}")
        out.append(gr)
        k += 1
    return tuple(out)


def _per_output(ctx, g):
    """The packed gradient of a Function with several outputs, cut back into one gradient per output (zeros
    where none arrived, or None with ``set_materialize_grads(False)``; None for a non-tensor output). Which
    arrived is in the packed gradient itself: each output's node adds 1 to a flag of its own."""
    flags = backend.to_host(g.detach()._data)[ctx._flags_start:]
    grads = []
    for i, meta in enumerate(ctx._outputs):
        if meta is None:
            grads.append(None)
        elif i in ctx._slices and flags[ctx._slices[i][2] - ctx._flags_start] != 0:
            start, stop, _ = ctx._slices[i]
            grads.append(g[start:stop].reshape(meta[0]).to(meta[1]))
        else:
            grads.append(g.new_zeros(meta[0], dtype=meta[1]) if ctx._materialize else None)
    return grads


def _slice_gradient(g, node):
    """The VJP of ``<NameBackward[i]>``: output i's gradient in its slice of the packed gradient and 1 in its
    flag, zeros elsewhere (the other outputs' slices get theirs from their own nodes; the engine sums them)."""
    start, stop, flag = node.params["span"]
    total = node._input_shapes[0][0]
    if isinstance(g, Tensor):   # (create_graph: in Tensor ops, so the packing is differentiated too)
        flat = g.reshape(-1)
        return (cat([flat.new_zeros(start), flat, flat.new_zeros(flag - stop), flat.new_ones(1),
                     flat.new_zeros(total - flag - 1)]),)
    full = backend.xp_of(g).zeros(total, dtype=g.dtype)
    full[start:stop] = g.reshape(-1)
    full[flag] = 1
    return (full,)


def _record_several(cls, ctx, inputs, outputs, requires):
    """Record a Function whose forward returned several outputs. The Function's node gets one hidden output,
    the differentiable outputs' values flattened and joined ("packed", then a flag per output); output i
    hangs from it by a node ``<NameBackward[i]>`` whose VJP puts i's gradient in its slice and 1 in its flag;
    ``backward`` gets the slices back (a flag still 0: no gradient reached that output)."""
    non_diff, dirty = ctx.__dict__.get("_non_differentiable", ()), ctx.__dict__.get("_dirty", ())
    results, differentiable = [], []
    for o in outputs:
        if isinstance(o, Tensor):
            diff = requires and o.dtype.kind == "f" and not any(o is t for t in non_diff)
            if not any(o is t for t in dirty) and (any(o is t for t in inputs) or (diff and o._grad_fn is not None)):
                o = Tensor._make(o._data, False, None, o.device)   # (as for one output)
            if diff:
                differentiable.append((len(results), o))
        results.append(o)
    _check_dirty_returned(ctx, results)
    ctx._outputs = tuple((tuple(o.shape), o.dtype, o.device) if isinstance(o, Tensor) else None for o in results)
    ctx._slices = {}
    _save(ctx)
    if not differentiable:
        return tuple(results)
    if state.anomaly:   # (where the op was made, for anomaly mode's NaN report)
        ctx._traceback = "".join(traceback.format_stack()[:-2])
    dtype, start = numpy.result_type(*[o.dtype for _, o in differentiable]), 0
    ctx._flags_start = sum(o._data.size for _, o in differentiable)
    for rank, (i, o) in enumerate(differentiable):
        ctx._slices[i] = (start, start + o._data.size, ctx._flags_start + rank)
        start += o._data.size
    first = differentiable[0][1]
    xp = backend.xp_of(first._data)
    packed = Tensor._make(xp.concatenate([o._data.reshape(-1).astype(dtype) for _, o in differentiable]
                                         + [xp.ones(len(differentiable), dtype)]), True, ctx, first.device)
    ctx._out_ref, ctx._out_shape, ctx._out_dtype, ctx._out_device = weakref.ref(packed), packed.shape, dtype, \
        first.device
    tape = state.tape
    if tape is not None:
        tape.op_recorded(ctx, inputs, packed)
    for i, o in differentiable:
        kind, op = cls._output_node(i)
        node = kind(op, (ctx,), {"index": i, "span": ctx._slices[i]}, (packed.shape,), (dtype,), out=o,
                    device=o.device)
        if any(o is t for t in dirty):
            _continue_history(o, node)
        else:
            o._requires_grad, o._grad_fn = True, node
        if tape is not None:
            tape.op_recorded(node, [packed], o)
    return tuple(results)


def _check_dirty_returned(ctx, outputs):
    if not all(any(t is o for o in outputs) for t in ctx.__dict__.get("_dirty", ())):
        raise RuntimeError("Some elements marked as dirty during the forward method were not returned as output. "
                           "The inputs that are modified inplace must all be outputs of the Function.")


def _continue_history(x, node):
    """``mark_dirty``: the input ``x``, changed in place by forward and returned, takes ``node`` as its
    ``grad_fn`` (a view: through its base's history, as any in-place op on a view), one version on."""
    check_inplace(x, f"{type(node).__name__}")
    x._vc[0] += 1
    if x._view is not None:
        rebase_view(x, Tensor._make(x._data, True, node, x.device))
        return
    if x._retains_grad and x._grad_fn is not None:
        x._grad_fn._retain_ref = None   # (.grad now belongs to the new value)
    x._grad_fn, x._requires_grad = node, True
    if x._retains_grad:
        node._retain_ref = weakref.ref(x)


def _save(ctx, out=None):
    """``save_for_backward``'s tensors, kept on the node (``out``, the one output, saved as the output)."""
    ctx._saved = {f"saved_tensors[{i}]": (None if t is None else save_tensor(t, ctx if t is out else None))
                  for i, t in enumerate(ctx._to_save)}
    ctx._to_save = ()


def _sums_to(got, shape):
    """True when a gradient of shape ``got`` can be summed down to ``shape`` (broadcasting undone)."""
    if len(got) < len(shape):
        return False
    tail = got[len(got) - len(shape):]
    return all(n == m or m == 1 for n, m in zip(tail, shape))


class Function:
    """Base class for custom ops; call them with ``MyFunction.apply(*args)``."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("a Function subclass must implement forward(ctx, *args)")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("a Function subclass must implement backward(ctx, *grad_outputs) "
                                  "to be differentiated")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Written instead of taking ``ctx`` in ``forward``: save what ``backward`` needs from the
        arguments (``inputs``, a tuple) and the result (``output``). Runs right after ``forward``."""
        raise NotImplementedError("setup_context is optional: define it in your Function subclass, with a "
                                  "forward that takes no ctx")

    @classmethod
    def _op(cls):
        op = cls.__dict__.get("_opdef")
        if op is None:
            op = OpDef(cls.__name__, ("input",), forward=None, vjp=_call_backward, arrays=False,
                       math=f"custom Function {cls.__name__}", formulas=("custom",))
            op.node_name = cls.__name__ + "Backward"
            cls._opdef = op
        return op

    @classmethod
    def _output_node(cls, i):
        """The node class and op of ``<NameBackward[i]>``: output i of a Function with several outputs."""
        kinds = cls.__dict__.get("_output_kinds")
        if kinds is None:
            kinds = cls._output_kinds = {}
        if i not in kinds:
            op = OpDef("output", ("packed",), forward=None, vjp=_slice_gradient, formulas=("1 on its slice",),
                       math=f"output {i} of custom Function {cls.__name__}")
            op.node_name = f"{cls.__name__}Backward[{i}]"
            kinds[i] = (type(op.node_name, (Node,), {"__slots__": (), "__module__": cls.__module__}), op)
        return kinds[i]

    @classmethod
    def _ctx_type(cls):
        """The node class of this Function, ``<Name>Backward`` (PyTorch's ``type(y.grad_fn).__name__``)."""
        kind = cls.__dict__.get("_ctx_class")
        if kind is None:
            kind = type(cls.__name__ + "Backward", (FunctionCtx,), {"__module__": cls.__module__})
            cls._ctx_class = kind
        return kind

    @classmethod
    def apply(cls, *args, **kwargs):
        separate = cls.setup_context is not Function.setup_context   # (PyTorch 2's form: forward has no ctx)
        if separate:   # (as PyTorch: keywords and defaults become positional arguments, for setup_context)
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            if bound.kwargs:   # (a keyword-only argument: PyTorch hands forward its arguments by position)
                raise TypeError(f"forward() got an unexpected keyword argument '{next(iter(bound.kwargs))}': with "
                                f"setup_context, {cls.__name__}.forward's arguments must be positional")
            args, kwargs = tuple(bound.args), {}
        tensors = [a for a in args if isinstance(a, Tensor)]
        requires = state.grad_enabled and any(t._requires_grad for t in tensors)
        ctx = cls._ctx_type()(cls._op(),
                          tuple((t.grad_fn or t._grad_accumulator()) if t._requires_grad else None
                                for t in tensors) if requires else tuple(None for _ in tensors),
                          None, tuple(t.shape for t in tensors), tuple(t.dtype for t in tensors))
        ctx._fn_class = cls
        ctx._to_save = ()
        ctx._arg_is_tensor = tuple(isinstance(a, Tensor) for a in args)
        ctx._needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad and requires for a in args)
        with no_grad():
            if separate:
                out = cls.forward(*args)
                cls.setup_context(ctx, args, out)
            else:
                out = cls.forward(ctx, *args, **kwargs)
        if isinstance(out, tuple):
            return _record_several(cls, ctx, tensors, out, requires)
        if isinstance(out, list):   # (PyTorch returns a list as one untracked object: no gradient would flow)
            raise TypeError(f"{cls.__name__}.forward returned a list; return several outputs as a tuple: "
                            f"return a, b (PyTorch would hand the list back untracked, without gradients)")
        if not isinstance(out, Tensor):
            raise TypeError(f"{cls.__name__}.forward must return a Tensor or a tuple of outputs, got "
                            f"{type(out).__name__}")
        _check_dirty_returned(ctx, (out,))
        # an integer or bool output is never differentiable (PyTorch's rule), nor one marked so
        if out.dtype.kind not in "fc" or any(out is t for t in ctx.__dict__.get("_non_differentiable", ())):
            return out if not any(out is t for t in tensors) else Tensor._make(out._data, False, None, out.device)
        if not requires:
            return out
        if any(out is t for t in ctx.__dict__.get("_dirty", ())):
            _continue_history(out, ctx)
        else:
            if out._grad_fn is not None or any(out is t for t in tensors):
                out = Tensor._make(out._data, False, None, out.device)  # a fresh output tensor for the node
            out._requires_grad = True
            out._grad_fn = ctx
        if state.anomaly:  # where the op was made, for anomaly mode's NaN report (as for built-in ops)
            ctx._traceback = "".join(traceback.format_stack()[:-1])
        ctx._out_ref, ctx._out_shape, ctx._out_dtype, ctx._out_device = weakref.ref(out), out.shape, out.dtype, out.device
        _save(ctx, out)
        tape = state.tape
        if tape is not None:
            tape.op_recorded(ctx, tensors, out)
        return out
