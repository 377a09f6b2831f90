"""In-place ops (``add_``, ``x += y``, ...): compute out of place, write the result back
into the same memory, bump the version counter, and move the tensor's history on.

A node that saved this tensor before the change will see the new version and
refuse to run its backward (see :func:`graph.check_saved_version`). Writing into a view
also moves its base's history on (:data:`COPY_SLICES`: the old base with the
view's region replaced), as PyTorch does.
"""
from __future__ import annotations

import weakref

from ..backend import partial_overlap, shares_memory, writable, xp_of
from ..grad_mode import no_grad, state
from ..tensor import _CATEGORY, Tensor
from . import elementwise as E
from .registry import RESHAPED, apply, defop, refresh_view, view_steps


def _check(self, opname):
    if not state.grad_enabled:
        return
    if self._requires_grad and self._grad_fn is None:
        raise RuntimeError(
            f"{opname}: a leaf Variable that requires grad is being used in an in-place operation. "
            f"Wrap parameter updates in `with autogradlab.no_grad():`, or use an out-of-place op.")
    base = self._view[0] if self._view is not None else None
    if base is not None and base._requires_grad and not self._requires_grad:
        raise RuntimeError(
            f"{opname}: a view was created in no_grad mode (of a tensor that requires grad) and is being modified "
            f"in place with grad mode on. Whether autograd should see that change is ambiguous, so it is refused, "
            f"as PyTorch does: make the view and change it both inside the no_grad block (not tracked) or both "
            f"outside it (tracked).")
    if base is not None and base._requires_grad and base._grad_fn is None:
        raise RuntimeError(
            f"{opname}: a view of a leaf Variable that requires grad is being used in an in-place operation "
            f"(the view has shape {tuple(self.shape)}, the leaf {tuple(base.shape)}). Wrap parameter updates "
            f"in `with autogradlab.no_grad():`, or .clone() the leaf and work on the clone.")


def reshape_in_place(self, opname, view):
    """``t.unsqueeze_(0)``, ``t.squeeze_()``, ``t.t_()``, ``t.transpose_(0, 1)``: ``t`` takes the shape of
    ``view(t)`` (the same memory, no copy) and, while recording, its history goes on through that view.
    No value changes, so the version stays; a node that saved ``t`` keeps the array it saved (a VJP on
    Tensors refuses the reshaped one: graph.saved_tensor_of), and a view taken of ``t`` before refuses to be
    written through or taken again (registry.view_steps), its steps being for the old layout."""
    if state.grad_enabled and self._view is not None and self._view[2] != self._vc[0]:
        refresh_view(self)
    _check(self, opname)
    out = view(self)
    self._data = out._data
    if state.grad_enabled:     # (under no_grad a parameter stays a leaf that requires grad)
        self._grad_fn, self._requires_grad = out._grad_fn, out._requires_grad
        if out._grad_fn is not None:
            out._grad_fn._out_ref = weakref.ref(self)
    if self._view is None:   # (forgotten with the tensor)
        if self._id not in RESHAPED:
            weakref.finalize(self, RESHAPED.pop, self._id, None)
        RESHAPED[self._id] = RESHAPED.get(self._id, 0) + 1
    else:                      # (a view of a view: the root base is unchanged, its steps go on)
        self._view = out._view
    if state.tape is not None:     # (a trace sees it as the view op's output from here on)
        state.tape.tensor_became(self, out)
    return self


def _check_no_overlap(self, opname, args):
    for a in args:
        if isinstance(a, Tensor) and a.device == self.device and partial_overlap(self._data, a._data):
            raise overlap_error(opname, a.shape, self.shape)


def overlap_error(opname, operand_shape, written_shape):
    return RuntimeError(
        f"{opname}: the operand (shape {tuple(operand_shape)}) shares memory with the tensor being written "
        f"(shape {tuple(written_shape)}): some elements of the input tensor and the written-to tensor "
        f"refer to a single memory location (e.g. t.mul_(t[0])), so the result would depend on the "
        f"order of the writes. PyTorch refuses this too: .clone() the operand first "
        f"(t.mul_(t[0].clone())).")


def read_only_error(opname, shape):
    """Writing into memory that repeats elements (or is read-only): PyTorch refuses it too."""
    return RuntimeError(f"{opname}: this tensor (shape {tuple(shape)}) is read-only: a view made by expand() or "
                        f"broadcast_to() (they repeat memory instead of copying it), or the memory of a read-only "
                        f"NumPy array given to from_numpy(). Use the out-of-place op, or .clone() it first.")


def inplace(self: Tensor, opname: str, fn, *args):
    """Run ``fn(self, *args)`` out of place and write its result into ``self``."""
    if state.grad_enabled and self._view is not None and self._view[2] != self._vc[0]:
        refresh_view(self)   # its base changed since: continue from the base's current history
    _check(self, opname)
    # (t[i] = v is checked by ops.methods._setitem, after broadcasting v; masked_fill_ reads its 0-d value
    # once, before writing, and PyTorch does not check it either)
    if opname not in ("__setitem__", "masked_fill_"):
        _check_no_overlap(self, opname, args)
    records = state.grad_enabled and (self._requires_grad or any(
        isinstance(a, Tensor) and a._requires_grad for a in args))
    if records and self._view is not None and RESHAPED:
        view_steps(self)      # (a view of a base reshaped in place since: refused before anything is written)
    if records:
        # the history continues from a snapshot of the old value, so nodes that need the
        # old value (mul_, div_) keep a correct copy of it
        old = Tensor._make(self._data.copy(), self._requires_grad, self._grad_fn, self.device)
        if state.tape is not None:   # (a trace sees the snapshot as the tensor it was taken of)
            state.tape.tensor_aliased(old, self)
        result = fn(old, *args)
    else:
        with no_grad():
            result = fn(self, *args)
    if result.shape != self.shape:
        raise RuntimeError(f"{opname}: the result has shape {tuple(result.shape)}, but an in-place op must keep "
                           f"the shape {tuple(self.shape)} of the tensor it writes into (the other operand may "
                           f"only broadcast to it); use the out-of-place op instead")
    if result.dtype != self.dtype and _CATEGORY[result.dtype.kind] > _CATEGORY[self.dtype.kind]:   # (PyTorch's rule:
        # a result of a higher category, float into an integer tensor, cannot be written; uint8 += int64 can)
        raise RuntimeError(f"{opname}: result type {result.dtype.name} can't be cast to the desired "
                           f"output type {self.dtype.name}; use the out-of-place op, or convert the "
                           f"tensor first (x.to(float32))")
    if self.dtype.kind == "c" and result.dtype.kind != "c":   # (z.abs_(): PyTorch refuses a real result too)
        raise RuntimeError(f"In-place {opname.rstrip('_')} is not supported for complex tensors: its result is real "
                           f"({result.dtype.name}); use the out-of-place op, z.{opname.rstrip('_')}()")
    if not writable(self._data):
        raise read_only_error(opname, self.shape)
    self._data[...] = result._data
    self._vc[0] += 1
    if records and self._view is not None:
        _rebase(self, result)
    elif records:
        previous = self._grad_fn
        if self._retains_grad and previous is not None:
            previous._retain_ref = None  # .grad now belongs to the new value (as in PyTorch)
        self._grad_fn = result._grad_fn
        self._requires_grad = result._requires_grad
        if self._grad_fn is not None:
            self._grad_fn._out_ref = weakref.ref(self)   # the op's output is self from here on
            if self._retains_grad:
                self._grad_fn._retain_ref = weakref.ref(self)
        if previous is not None and previous._out_ref is not None and previous._out_ref() is self:
            previous._out_ref = weakref.ref(old)   # (its output, the old value, lives on in the snapshot only)
        if state.tape is not None:   # (a trace sees self as the op's output from here on, value and all)
            state.tape.tensor_became(self, result)
    return self


# -- an in-place op on a view: the base's history goes on through COPY_SLICES ---------------

def _replay_arrays(xp, array, steps):
    for op, params in steps:
        array = op.forward(xp, array, **params) if params else op.forward(xp, array)
    return array


def _copy_slices_forward(xp, base, src, steps):
    out = base.copy(order="K")          # the same memory layout, so the view steps replay as views
    region = _replay_arrays(xp, out, steps)
    if shares_memory(region, out):
        region[...] = src
    else:   # a step copied (``base`` is laid out unlike the forward's base, e.g. a transposed gradient,
        # and a reshape cannot view it): write through the region's flat positions instead
        where = _replay_arrays(xp, xp.arange(out.size).reshape(out.shape), steps)
        xp.put(out, where, xp.broadcast_to(src, where.shape))
    return out


def _copy_slices_vjp(g, ctx):
    # d base = g with the view's region zeroed; d src = g seen through the same view steps
    steps = ctx.steps
    zeros = Tensor._make(xp_of(g._data).zeros(ctx._input_shapes[1], dtype=ctx._input_dtypes[1]), False, None,
                         g.device)   # (the source's dtype: a real view of a complex base, z.real, takes real zeros)
    src_grad = g
    for op, params in steps:
        src_grad = apply(op, (src_grad,), params)
    return apply(COPY_SLICES, (g, zeros), {"steps": steps}), src_grad


# (it keeps its view steps like a saved tensor: a second backward through it raises, as PyTorch's CopySlices)
COPY_SLICES = defop("copy_slices", ("self", "src"), save=("steps",),
                    math="a with view(a) replaced by s;  da = g with the view zeroed, ds = view(g)",
                    forward=_copy_slices_forward, vjp=_copy_slices_vjp, formulas=("1 outside the view", "1"),
                    arrays=False)


def _rebase(view, result):
    """``view`` (taken from ``base`` by view ops) was just written in place with ``result``: the base's
    history becomes 'old base with the view's region replaced by result' (PyTorch's CopySlices),
    and the view takes its history from the base again."""
    base, steps = view_steps(view)
    old_base = Tensor._make(base._data, base._requires_grad, base._grad_fn, base.device)
    new_base = apply(COPY_SLICES, (old_base, result), {"steps": steps})
    if base._retains_grad and base._grad_fn is not None:
        base._grad_fn._retain_ref = None
    base._grad_fn, base._requires_grad = new_base._grad_fn, True
    new_base._grad_fn._out_ref = weakref.ref(base)
    if base._retains_grad:
        base._grad_fn._retain_ref = weakref.ref(base)
    refresh_view(view)


def _scaled(b, alpha):
    if alpha == 1:
        return b
    return E.mul(b, alpha) if isinstance(b, Tensor) else b * alpha


def add_(self, other, *rest, alpha=1):
    other, alpha = E.legacy_alpha("add_", other, rest, alpha)
    return inplace(self, "add_", lambda a, b: E.add(a, _scaled(b, alpha)), other)


def sub_(self, other, *rest, alpha=1):
    other, alpha = E.legacy_alpha("sub_", other, rest, alpha)
    return inplace(self, "sub_", lambda a, b: E.sub(a, _scaled(b, alpha)), other)


def mul_(self, other):
    return inplace(self, "mul_", E.mul, other)


def div_(self, other):
    return inplace(self, "div_", E.div, other)


def pow_(self, other):
    return inplace(self, "pow_", E.pow, other)


def floor_divide_(self, other):
    return inplace(self, "floor_divide_", E.floor_divide, other)


def remainder_(self, other):
    return inplace(self, "remainder_", E.remainder, other)


def clamp_(self, min=None, max=None):
    return inplace(self, "clamp_", lambda a: E.clamp(a, min, max))


def masked_fill_(self, mask, value):
    return inplace(self, "masked_fill_", lambda a, v: E.masked_fill(a, mask, v), value)


def in_place(name, fn):
    """The in-place form ``t.<name>(...)`` of the out-of-place ``fn``: ``t.exp_()`` writes ``exp(t)`` into
    ``t`` (with the checks and the history of :func:`inplace`)."""
    def method(self, *args, **kwargs):
        return inplace(self, name, lambda a, *xs: fn(a, *xs, **kwargs), *args)
    method.__name__ = name
    return method


def zero_(self):
    """Set every element to 0; the gradient to the old value is zero."""
    return _fill(self, 0, "zero_")


def fill_(self, value):
    """Set every element to ``value``; the gradient to the old value is zero."""
    return _fill(self, value, "fill_")


def copy_(self, src, non_blocking=False):
    """Write ``src`` (broadcast to this shape, cast to this dtype) into this tensor; the gradient goes to
    ``src`` (summed over what was broadcast), none to the old value. An integer or bool tensor takes no
    gradient, so copying into one records nothing. (``non_blocking`` is accepted; copies are synchronous.)"""
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'src' must be a Tensor, not {type(src).__name__}; wrap it with "
                        f"autogradlab.tensor(...)")
    if self.dtype.kind not in "fc":
        with no_grad():
            return _fill(self, src, "copy_")
    return _fill(self, src, "copy_")


def _fill(self, value, opname):
    value = E.fits(value, self.dtype, opname, E.ALL_FLOATS)
    if not isinstance(value, Tensor):     # a number: the FILL op, which saves nothing (as PyTorch's)
        return inplace(self, opname, lambda a: apply(FILL, (a,), {"value": value}))
    # a tensor value gets the gradient (COPY, which saves nothing either); it is an argument of
    # inplace, so whether it requires grad decides recording
    return inplace(self, opname, lambda a, v: apply(COPY, (a, v)), value)


FILL = defop("fill", ("self",), math="value everywhere;  da = 0",
             forward=lambda xp, a, value: xp.full_like(a, value),
             vjp=lambda g, ctx: (E.zeros_gradient(g),), formulas=("0",))


COPY = defop("copy", ("self", "src"), math="s, broadcast to a's shape;  da = 0, ds = g",
             forward=lambda xp, a, v: xp.broadcast_to(v, a.shape).astype(a.dtype),
             vjp=lambda g, ctx: (E.zeros_gradient(g) if ctx.needs_input_grad[0] else None, g), formulas=("0", "1"))

