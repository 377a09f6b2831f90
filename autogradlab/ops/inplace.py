"""In-place ops (``add_``, ``x += y``, ...): compute out of place, write the result back
into the same memory, bump the version counter, and move the tensor's history on.

A node that saved this tensor before the change will see the new version and
refuse to run its backward (see :class:`graph.SavedTensor`).
"""
from __future__ import annotations

import weakref

from ..backend import partial_overlap, xp_of
from ..grad_mode import no_grad, state
from ..tensor import Tensor
from . import elementwise as E
from .registry import apply, defop


def _check(self, opname):
    if not state.grad_enabled:
        return
    if self._requires_grad and self.grad_fn is None:
        raise RuntimeError(
            f"{opname}: a leaf Variable that requires grad is being used in an in-place operation. "
            f"Wrap parameter updates in `with autogradlab.no_grad():`, or use an out-of-place op.")
    if self.grad_fn is not None and self.grad_fn.op.view and self._view is not None:
        raise RuntimeError(
            f"{opname}: in-place modification of a view (made by the view op '{self.grad_fn.op.name}'; "
            f"reshape also makes view, flatten, squeeze and unsqueeze) of shape {tuple(self.shape)} is not "
            f"supported by autogradlab while recording a graph; use the out-of-place op, or .clone() the "
            f"view first.")


def _check_no_overlap(self, opname, args):
    for a in args:
        if isinstance(a, Tensor) and a.device == self.device and partial_overlap(self.data, a.data):
            raise RuntimeError(
                f"{opname}: the operand (shape {tuple(a.shape)}) shares memory with the tensor being written "
                f"(shape {tuple(self.shape)}): some elements of the input tensor and the written-to tensor "
                f"refer to a single memory location (e.g. t.mul_(t[0])), so the result would depend on the "
                f"order of the writes. PyTorch refuses this too: .clone() the operand first "
                f"(t.mul_(t[0].clone())).")


def inplace(self: Tensor, opname: str, fn, *args):
    """Run ``fn(self, *args)`` out of place and write its result into ``self``."""
    _check(self, opname)
    _check_no_overlap(self, opname, args)
    records = state.grad_enabled and (self._requires_grad or any(
        isinstance(a, Tensor) and a._requires_grad for a in args))
    if records and not self._requires_grad and getattr(self.data, "base", None) is not None:
        raise RuntimeError(
            f"{opname}: this tensor (shape {tuple(self.shape)}) is a view into another tensor's memory "
            f"(made by slicing, reshape, ...). Writing a result that requires grad into it would hide that "
            f"gradient from the other tensor, and autogradlab does not track views through in-place ops. "
            f"Build the result out of place (e.g. with cat or where), or .clone() the view first.")
    if records:
        # the history continues from a snapshot of the old value, so nodes that need the
        # old value (mul_, div_) keep a correct copy of it
        old = Tensor._make(self.data.copy(), self._requires_grad, self.grad_fn, self.device)
        result = fn(old, *args)
    else:
        with no_grad():
            result = fn(self, *args)
    if result.shape != self.shape:
        raise RuntimeError(f"{opname}: the result has shape {tuple(result.shape)}, but an in-place op must keep "
                           f"the shape {tuple(self.shape)} of the tensor it writes into (the other operand may "
                           f"only broadcast to it); use the out-of-place op instead")
    if result.dtype != self.dtype and not (result.dtype.kind == self.dtype.kind):
        raise RuntimeError(f"{opname}: result type {result.dtype.name} can't be cast to the desired "
                           f"output type {self.dtype.name}; use the out-of-place op, or convert the "
                           f"tensor first (x.to(float32))")
    flags = getattr(self.data, "flags", None)
    if flags is not None and not getattr(flags, "writeable", True):
        raise RuntimeError(f"{opname}: this tensor (shape {tuple(self.shape)}) is a read-only view: expand() "
                           f"and broadcast_to() repeat memory instead of copying it, so it cannot be written "
                           f"in place. Use the out-of-place op, or .clone() it first.")
    self.data[...] = result.data
    self._vc[0] += 1
    if records:
        if self._retains_grad and self.grad_fn is not None:
            self.grad_fn._retain_ref = None  # .grad now belongs to the new value (as in PyTorch)
        self.grad_fn = result.grad_fn
        self._requires_grad = result._requires_grad
        if self.grad_fn is not None and self._retains_grad:
            self.grad_fn._retain_ref = weakref.ref(self)
    return self


def _scaled(b, alpha):
    if alpha == 1:
        return b
    return E.mul(b, alpha) if isinstance(b, Tensor) else b * alpha


def add_(self, other, alpha=1):
    return inplace(self, "add_", lambda a, b: E.add(a, _scaled(b, alpha)), other)


def sub_(self, other, alpha=1):
    return inplace(self, "sub_", lambda a, b: E.sub(a, _scaled(b, alpha)), other)


def mul_(self, other):
    return inplace(self, "mul_", E.mul, other)


def div_(self, other):
    return inplace(self, "div_", E.div, other)


def pow_(self, other):
    return inplace(self, "pow_", E.pow, other)


def clamp_(self, min=None, max=None):
    return inplace(self, "clamp_", lambda a: E.clamp(a, min, max))


def zero_(self):
    """Set every element to 0; the gradient to the old value is zero."""
    return _fill(self, 0, "zero_")


def fill_(self, value):
    """Set every element to ``value``; the gradient to the old value is zero."""
    return _fill(self, value, "fill_")


def _fill(self, value, opname):
    if not isinstance(value, Tensor):     # a number: the FILL op, which saves nothing (as PyTorch's)
        return inplace(self, opname, lambda a: apply(FILL, (a,), {"value": value}))

    def filled(a):                        # a 0-d tensor value gets the gradient: where(True, value, a)
        everywhere = Tensor._make(xp_of(a.data).ones(a.shape, dtype=bool), False, None, a.device)
        return E.where(everywhere, value, a)
    return inplace(self, opname, filled)


FILL = defop("fill", ("self",), math="value everywhere;  da = 0",
             forward=lambda xp, a, value: xp.full_like(a, value),
             vjp=lambda g, ctx: (g * 0,), formulas=("0",))
