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
"""
from __future__ import annotations

import traceback
import weakref

from .grad_mode import no_grad, state
from .graph import FREED_MESSAGE, Node, check_saved_version, save_tensor, saved_tensor_of
from .ops.registry import OpDef
from .tensor import Tensor

__all__ = ["Function", "FunctionCtx"]


class FunctionCtx(Node):
    """The node of a custom Function; also the ``ctx`` its forward and backward receive."""

    # no __slots__: users may store anything on ctx (ctx.scale = 2), even under the names
    # built-in ops read their saved tensors by
    self = other = result = None

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
        """PyTorch's switch for passing None instead of zeros for unused outputs; a Function here has one
        output, whose gradient is always there, so it changes nothing."""

    def mark_dirty(self, *tensors):
        """Say forward changed these inputs in place. Returning such an input is always fine here: the output
        becomes a new tensor over the same memory, with this node as its ``grad_fn``."""

    def __getattr__(self, attr):  # plain attribute semantics for user data
        raise AttributeError(f"ctx has no attribute {attr!r}")


def _call_backward(g, ctx):
    grads = ctx._fn_class.backward(ctx, g)
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
        if gr is not None:
            if not isinstance(gr, Tensor):
                raise TypeError(f"function {ctx.name()} returned a {type(gr).__name__} as the gradient at index "
                                f"{i}: return a Tensor (wrap arrays with autogradlab.tensor) or None")
            shape = tuple(ctx._input_shapes[k])
            if not _sums_to(tuple(gr.shape), shape):
                raise RuntimeError(f"function {ctx.name()} returned an invalid gradient at index {i} - got "
                                   f"{list(gr.shape)} but expected shape compatible with {list(shape)}")
        out.append(gr)
        k += 1
    return tuple(out)


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
    def _ctx_type(cls):
        """The node class of this Function, ``<Name>Backward`` (PyTorch's ``type(y.grad_fn).__name__``)."""
        kind = cls.__dict__.get("_ctx_class")
        if kind is None:
            kind = type(cls.__name__ + "Backward", (FunctionCtx,), {"__module__": cls.__module__})
            cls._ctx_class = kind
        return kind

    @classmethod
    def apply(cls, *args, **kwargs):
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
            out = cls.forward(ctx, *args, **kwargs)
        if not isinstance(out, Tensor):
            raise TypeError(f"{cls.__name__}.forward must return a single Tensor (autogradlab custom "
                            f"Functions have one output), got {type(out).__name__}")
        if any(out is t for t in ctx.__dict__.get("_non_differentiable", ())):
            return out if not any(out is t for t in tensors) else Tensor._make(out._data, False, None, out.device)
        if not requires:
            return out
        if out._grad_fn is not None or any(out is t for t in tensors):
            out = Tensor._make(out._data, False, None, out.device)  # a fresh output tensor for the node
        out._requires_grad = True
        out._grad_fn = ctx
        if state.anomaly:  # where the op was made, for anomaly mode's NaN report (as for built-in ops)
            ctx._traceback = "".join(traceback.format_stack()[:-1])
        ctx._out_ref, ctx._out_shape, ctx._out_dtype, ctx._out_device = weakref.ref(out), out.shape, out.dtype, out.device
        ctx._saved = {f"saved_tensors[{i}]": (None if t is None else save_tensor(t, ctx if t is out else None))
                      for i, t in enumerate(ctx._to_save)}
        ctx._to_save = ()
        tape = state.tape
        if tape is not None:
            tape.op_recorded(ctx, tensors, out)
        return out
