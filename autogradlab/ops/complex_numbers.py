"""Complex numbers: which ops take them, and the ops that build and take apart a complex tensor.

PyTorch's convention, followed here: for a real loss ``L`` of ``z = x + iy``, ``z.grad`` is
``dL/dx + i dL/dy`` (the conjugate Wirtinger derivative, doubled), so gradient descent on ``z`` works as on
the pair ``(x, y)``. A VJP therefore sends ``g * conj(f'(z))`` back through a holomorphic op, and a real
input's gradient is the real part of what reaches it (``graph.Node.apply``).

An op takes complex inputs with a gradient only where its complex VJP was written and checked against
PyTorch (``OpDef.complex_op``); any other raises NotImplementedError naming the op, before anything is
recorded. The conjugate, the parts and the angle are in :mod:`.elementwise` with the other elementwise ops.
"""
from __future__ import annotations

import numpy

from ..tensor import Tensor, complex_of
from . import decompositions, inplace, linalg, reduce, shape   # noqa: F401  (their ops are marked below)
from .elementwise import cos, imag, real, sin
from .registry import REGISTRY, apply, apply_one, defop, expect_tensor

__all__ = ["view_as_real", "view_as_complex", "complex", "polar", "as_pairs", "from_pairs", "LINEAR_OPS",
           "HOLOMORPHIC_OPS"]

#: Ops whose VJP is right for complex values as written: each moves, sums or copies values (its local
#: derivatives are real constants), so ``g``'s real and imaginary parts go back untouched.
LINEAR_OPS = ("to_dtype", "to_device", "clone", "where", "sum", "mean", "cumsum", "reshape", "transpose",
              "permute", "expand", "sum_to_size", "getitem", "index", "index_put", "index_add_into", "cat",
              "stack", "tril", "triu", "flip", "copy_slices", "copy", "fill", "einsum")

#: Ops holomorphic in each input: their complex VJP is ``conj(vjp(conj(g)))`` (see ``registry.holomorphic``).
HOLOMORPHIC_OPS = ("matmul", "dot", "einsum2", "prod", "inv", "solve", "det", "matrix_exp")

for _name in LINEAR_OPS:
    REGISTRY[_name].set_complex_vjp("same")
for _name in HOLOMORPHIC_OPS:
    REGISTRY[_name].set_complex_vjp("holomorphic")


def as_pairs(a):
    """Complex array ``a`` as its (x, y) pairs in a last dim of 2: a real array over the same memory."""
    return a.reshape(a.shape + (1,)).view(a.real.dtype)


def from_pairs(a):
    """The inverse of :func:`as_pairs`: real array ``a`` with a last dim of 2 read as complex numbers."""
    return a.view(complex_of(a.dtype)).reshape(a.shape[:-1])


def _view_as_real_forward(xp, a):
    return as_pairs(a)


def _view_as_complex_forward(xp, a):
    return from_pairs(a)


VIEW_AS_REAL = defop("view_as_real", ("self",), view=True, complex_vjp="same",
                     math="x + iy -> (x, y) in a last dim of 2;  da = g[..., 0] + i*g[..., 1]",
                     forward=_view_as_real_forward,
                     vjp=lambda g, ctx: (view_as_complex(g.contiguous() if isinstance(g, Tensor)
                                                         else g if g.flags.c_contiguous else g.copy()),),
                     formulas=("1",))

VIEW_AS_COMPLEX = defop("view_as_complex", ("self",), view=True, complex_vjp="same",
                        math="(x, y) in a last dim of 2 -> x + iy;  da = (Re g, Im g)",
                        forward=_view_as_complex_forward,
                        vjp=lambda g, ctx: (view_as_real(g),), formulas=("1",))


def view_as_real(input):
    """A complex tensor's numbers as pairs ``(x, y)`` in a new last dim of size 2: a real view of the same
    memory (writing to it writes to ``input``)."""
    expect_tensor(input, "view_as_real")
    if input.dtype.kind != "c":
        raise RuntimeError(f"view_as_real is only supported for complex tensors, got {input.dtype.name}: a "
                           f"real tensor already is its real part")
    return apply_one(VIEW_AS_REAL, input)


def view_as_complex(input):
    """A float tensor whose last dim has size 2 read as complex numbers ``x + iy``, a view of the same
    memory. Its last dim must be contiguous (stride 1) and the others even strides, as in PyTorch."""
    expect_tensor(input, "view_as_complex")
    data = input._data if isinstance(input, Tensor) else input
    if data.dtype not in (numpy.dtype("float32"), numpy.dtype("float64")):
        raise RuntimeError(f"view_as_complex is only supported for float and double tensors, but got a tensor "
                           f"of scalar type: {data.dtype.name}")
    if data.ndim == 0 or data.shape[-1] != 2:
        raise RuntimeError(f"Tensor must have a last dimension of size 2, got shape {tuple(data.shape)}")
    item = data.itemsize
    if data.strides[-1] != item or any(s % (2 * item) for s in data.strides[:-1]):
        raise RuntimeError("Tensor must have a last dimension with stride 1 and even strides elsewhere: call "
                           ".contiguous() first")
    return apply_one(VIEW_AS_COMPLEX, input) if isinstance(input, Tensor) else _view_as_complex_forward(None, data)


def complex(real, imag):
    """The complex tensor ``real + i*imag`` of two float tensors of one dtype (float32 gives complex64).
    Gradients: each part gets its part of the incoming gradient."""
    for name, part in (("real", real), ("imag", imag)):
        expect_tensor(part, "complex")
        if part.dtype not in (numpy.dtype("float32"), numpy.dtype("float64")):
            raise RuntimeError(f"complex(): expected both inputs to be float or double tensors, but got {name} "
                               f"of dtype {part.dtype.name}")
    if real.dtype != imag.dtype:
        raise RuntimeError(f"complex(): expected object of scalar type {real.dtype.name} but got scalar type "
                           f"{imag.dtype.name} for second argument (give both parts one dtype)")
    return apply(COMPLEX, (real, imag))


def _complex_forward(xp, x, y):
    # the pairs (x, y) read as complex numbers (not x + 1j*y: 1j*inf would make a NaN real part)
    return _view_as_complex_forward(xp, xp.stack(xp.broadcast_arrays(x, y), axis=-1))


COMPLEX = defop("complex", ("real", "imag"), math="x + iy;  dx = Re g, dy = Im g", complex_vjp="same",
                forward=_complex_forward,   # (formulas: the factors, conjugated; a real input takes the real part)
                vjp=lambda g, ctx: (_real_part(g), _imag_part(g)), formulas=("conj(1)", "conj(i)"))


def _real_part(g):
    return g.real.copy() if not isinstance(g, Tensor) else real(g)


def _imag_part(g):
    return g.imag.copy() if not isinstance(g, Tensor) else imag(g)


def polar(abs, angle):
    """The complex tensor ``abs * (cos(angle) + i sin(angle))``, from float tensors of one dtype."""
    return complex(abs * cos(angle), abs * sin(angle))
