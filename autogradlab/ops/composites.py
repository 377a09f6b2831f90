"""PyTorch's ops that are short compositions of the registered ones, and its other spellings, so lab code
that uses them ports: ``addcmul``, ``addcdiv``, ``addmv``, ``addr``, ``baddbmm``, ``addbmm``, ``fmax``,
``fmin``, ``cummax``, ``cummin``, ``logical_and`` / ``or`` / ``xor``, ``float_power``, ``logaddexp2``,
``fliplr``, ``flipud``, ``hsplit`` / ``vsplit`` / ``dsplit``, ``index_fill``, ``index_copy``, ``isposinf``,
``isneginf``, ``isreal``, ``vdot``, ``fill_diagonal_``, ``copysign``, ``ldexp``, ``diagflat``, ``vander``,
``combinations``, ``trapezoid``, ``cumulative_trapezoid``.

Each is written with the ops it is made of, so its gradient is theirs: the graph shows those ops (``addcmul``
appears as a ``mul`` and an ``add``). The math is in each docstring.
"""
from __future__ import annotations

import itertools
import math
import numbers

import numpy

from ..backend import asarray, to_host
from ..tensor import Tensor, _promoted, default_float
from ..return_types import return_type
from . import elementwise as E
from .joining import tensor_split
from .linalg import bmm, dot, left_out, mv, outer
from .rearrange import diag, index_select, narrow
from .reduce import cumsum, single_dim
from .registry import apply, expect_tensor
from .selection import index_add
from .shape import flip, gather, reshape, split, stack

__all__ = ["masked_scatter", "add", "sub", "div", "addcmul", "addcdiv", "addmv", "addr", "baddbmm", "addbmm", "fmax", "fmin", "cummax", "cummin",
           "logical_and", "logical_or", "logical_xor", "float_power", "logaddexp2", "fliplr", "flipud", "hsplit",
           "vsplit", "dsplit", "index_fill", "index_copy", "isposinf", "isneginf", "isreal", "vdot",
           "fill_diagonal_", "split_with_sizes", "copysign", "ldexp", "diagflat", "vander", "combinations",
           "trapezoid", "cumulative_trapezoid", "trapz"]

CummaxResult = return_type("cummax", ["values", "indices"])
CumminResult = return_type("cummin", ["values", "indices"])


def _scaled(t, factor):
    return t if factor == 1 else t * factor


def _check_alpha(input, other, alpha, what="alpha"):
    """PyTorch's checks of a scalar factor (``alpha``, ``beta``) against the result's dtype: a bool factor only for
    a bool result, a float one (even 2.0) not for an integer result, a complex one only for a complex result."""
    def complex_operand(x):
        return isinstance(x, complex) or getattr(getattr(x, "dtype", None), "kind", "") == "c"
    if isinstance(alpha, bool) and not (E._is_bool(input) and E._is_bool(other)):
        raise RuntimeError(f"Boolean {what} only supported for Boolean results (got {what}={alpha}): use 1 or 0")
    if E._integers(input) and E._integers(other) and isinstance(alpha, float):
        raise RuntimeError(f"For integral input tensors, argument {what} must not be a floating point number "
                           f"(got {what}={alpha}): give an int, or convert the tensors to floats first")
    if isinstance(alpha, complex) and not (complex_operand(input) or complex_operand(other)):
        raise RuntimeError(f"For non-complex input tensors, argument {what} must not be a complex number (got "
                           f"{what}={alpha}): convert the tensors to a complex dtype first")


def _in_result_dtype(operands, *tensors):
    """``tensors`` cast to the result dtype of all ``operands`` (each a Tensor), as PyTorch computes its scaled
    and fused ops: promoted first, then multiplied (an int16 minus a uint8 times -1 must not wrap around in
    uint8; two float16 factors beside float32 multiply in float32, not in float16 where 300 * 300 is inf)."""
    common = E.result_type(*operands)
    return tuple(t if t.dtype == common else E.to_dtype(t, common) for t in tensors)


def _scaled_in_result_dtype(input, other, alpha):
    """``alpha * other`` in the dtype ``input + other`` has."""
    if E._is_bool(input) and E._is_bool(other):   # (a bool result: the factor as a bool, so True + True is True)
        alpha = bool(alpha)
    if alpha != 1 and isinstance(input, Tensor) and isinstance(other, Tensor):
        other, = _in_result_dtype((input, other), other)
    return _scaled(other, alpha)


def add(input, other, *rest, alpha=1):
    """``input + alpha * other`` (PyTorch's ``add`` with its ``alpha``; ``a + b`` is the operator)."""
    other, alpha = E.legacy_alpha("add", other, rest, alpha)
    _check_alpha(input, other, alpha)
    return E.add(input, _scaled_in_result_dtype(input, other, alpha))


def sub(input, other, *rest, alpha=1):
    """``input - alpha * other``."""
    other, alpha = E.legacy_alpha("sub", other, rest, alpha)
    E.refuse_bool_subtraction(input, other)   # (before other is scaled: a bool times 2 is no bool any more)
    _check_alpha(input, other, alpha)
    return E.sub(input, _scaled_in_result_dtype(input, other, alpha))


def div(input, other, *, rounding_mode=None):
    """``input / other``; ``rounding_mode="trunc"`` rounds the quotient toward 0, ``"floor"`` toward -inf.
    Rounded quotients of integers stay integers; of floats, their derivative is 0, as PyTorch's (``a // b``
    itself is not differentiable)."""
    if rounding_mode is None:
        return E.div(input, other)
    for t in (input, other):
        if isinstance(t, Tensor):
            E.ordered(f"div(rounding_mode={rounding_mode!r})", t)
    if rounding_mode not in ("floor", "trunc"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"{rounding_mode!r}")
    if E._integers(input) and E._integers(other):
        if rounding_mode == "floor":
            return E.floor_divide(input, other)
        if E._is_bool(input) and E._is_bool(other):
            raise NotImplementedError("div(rounding_mode='trunc') of two bool operands is not implemented (as in "
                                      "PyTorch): convert one, e.g. mask.to(autogradlab.int64)")
        like = input if isinstance(input, Tensor) else other   # (a number in the tensor's dtype first, as PyTorch)
        a, b = (E.as_tensor_like(x, like) for x in E.promote(input, other))
        dtype = E.result_type(a, b)   # (a bool next to an integer: that integer's dtype)
        a, b = E.to_dtype(a, dtype), E.to_dtype(b, dtype)
        # (a - fmod(a, b)) // b: a multiple of b, divided exactly; fmod takes a's sign, so a - fmod(a, b) lies
        # between 0 and a and never overflows (|a| // |b| did: |-128| is -128 in int8)
        return E.floor_divide(a - E.fmod(a, b), b)
    return (E.div_floor if rounding_mode == "floor" else E.div_trunc)(input, other)


def _as_integer_if(tensors, value):
    """A scalar as PyTorch casts it for integer tensors (0.5 becomes 0), unchanged otherwise."""
    return int(value) if all(E._integers(t) for t in tensors) else value


def _in_common_dtype(input, tensor1, tensor2):
    """``addcmul``/``addcdiv``'s factors in the dtype of all three operands (see :func:`_in_result_dtype`)."""
    operands = (input, tensor1, tensor2)
    if all(isinstance(t, Tensor) for t in operands):
        return _in_result_dtype(operands, tensor1, tensor2)
    return tensor1, tensor2


def addcmul(input, tensor1, tensor2, *, value=1):
    """``input + value * (tensor1 * tensor2)`` (elementwise, broadcast)."""
    value = _as_integer_if((input, tensor1, tensor2), value)
    tensor1, tensor2 = _in_common_dtype(input, tensor1, tensor2)
    return E.add(input, _scaled(tensor1 * tensor2, value))


def addcdiv(input, tensor1, tensor2, *, value=1):
    """``input + value * (tensor1 / tensor2)`` (elementwise, broadcast; Adam's update has this form)."""
    if E._integers(tensor1) and E._integers(tensor2):
        raise RuntimeError("Integer division with addcdiv is no longer supported: convert tensor1 or tensor2 to "
                           "floats (as PyTorch asks)")
    tensor1, tensor2 = _in_common_dtype(input, tensor1, tensor2)
    return E.add(input, _scaled(tensor1 / tensor2, value))


def _beta_alpha(input, product, beta, alpha, name):
    """``beta * input + alpha * product``, input broadcast to the product's shape (never the other way); with
    beta = 0 the input's values are not read (a NaN there does not spread) and its gradient is 0, as in
    PyTorch; so with alpha = 0 for the product of ``addmv`` and ``addbmm`` (PyTorch's ``addr`` and ``baddbmm``
    do read it). Integer tensors take the scalars as integers; bool ones take them as bools."""
    expect_tensor(input, name)
    try:
        fits = numpy.broadcast_shapes(tuple(input.shape), tuple(product.shape)) == tuple(product.shape)
    except ValueError:
        fits = False
    if not fits:
        raise RuntimeError(f"{name}: input of shape {tuple(input.shape)} does not broadcast to the product's shape "
                           f"{tuple(product.shape)}")
    beta, alpha = (_as_integer_if((input, product), v) for v in (beta, alpha))
    product = left_out(product) if alpha == 0 and name in ("addmv", "addbmm") else _scaled(product, alpha)
    if beta == 0:
        return E.add(product, left_out(input))
    return E.add(_scaled(input, beta), product)


def _one_dtype(name, input, *factors):
    """``addmv``, ``baddbmm`` and ``addbmm`` take ``input`` in the factors' dtype, as PyTorch's (and ``addmm``)."""
    if isinstance(input, Tensor) and any(isinstance(t, Tensor) and t.dtype != input.dtype for t in factors):
        raise RuntimeError(f"{name}: input is {input.dtype.name} but the factors are "
                           f"{' and '.join(t.dtype.name for t in factors if isinstance(t, Tensor))}; all must have the "
                           f"same dtype (convert with .to(...))")


def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)``."""
    _one_dtype("addmv", input, mat, vec)
    return _beta_alpha(input, mv(mat, vec), beta, alpha, "addmv")


def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """``beta * input + alpha * outer(vec1, vec2)``, all three first cast to their promoted dtype, as PyTorch
    computes it (uint8 vectors beside a float input are multiplied as floats; for bools, ``(beta and input) or
    (alpha and vec1_i and vec2_j)``)."""
    for t in (input, vec1, vec2):
        expect_tensor(t, "addr")
    common = _promoted([input.dtype, vec1.dtype, vec2.dtype])   # (input counts as dimensioned: it is expanded)
    input, vec1, vec2 = (t if t.dtype == common else E.to_dtype(t, common) for t in (input, vec1, vec2))
    for what, value in (("beta", beta), ("alpha", alpha)):   # (PyTorch checks addr's factors; addmm's it casts)
        _check_alpha(input, input, value, what)
    if common == numpy.bool_:
        both = E.bitwise_and(reshape(vec1, (-1, 1)), reshape(vec2, (1, -1)))
        return _beta_alpha(E.bitwise_and(input, bool(beta)), E.bitwise_and(both, bool(alpha)), 1, 1, "addr")
    return _beta_alpha(input, outer(vec1, vec2), beta, alpha, "addr")


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * bmm(batch1, batch2)`` (one matrix product per batch entry)."""
    _one_dtype("baddbmm", input, batch1, batch2)
    return _beta_alpha(input, bmm(batch1, batch2), beta, alpha, "baddbmm")


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum_b batch1[b] @ batch2[b]`` (the batch's products summed, in their dtype)."""
    _one_dtype("addbmm", input, batch1, batch2)
    products = bmm(batch1, batch2)
    return _beta_alpha(input, products.sum(0, dtype=products.dtype), beta, alpha, "addbmm")


def fmax(input, other):
    """The larger of each pair, a NaN counting as missing (``fmax(nan, 1)`` is 1; NaN only where both are);
    at a tie the gradient goes to ``input``, as PyTorch's."""
    E.ordered("fmax", input, RuntimeError), E.ordered("fmax", other, RuntimeError)
    take_input = (input >= other) | E.isnan(other)
    return E.where(take_input, input, other)


def fmin(input, other):
    """The smaller of each pair, a NaN counting as missing; at a tie the gradient goes to ``input``."""
    E.ordered("fmin", input, RuntimeError), E.ordered("fmin", other, RuntimeError)
    take_input = (input <= other) | E.isnan(other)
    return E.where(take_input, input, other)


def _running_extreme(input, dim, larger, name, result):
    expect_tensor(input, name)
    d = single_dim(dim, input.ndim, name) if input.ndim else 0
    host = to_host(input.detach()._data)
    values = host.reshape(1) if host.ndim == 0 else host
    accumulate = (numpy.maximum if larger else numpy.minimum).accumulate
    with numpy.errstate(invalid="ignore"):
        running = accumulate(values, axis=d)
        # the index of the running extreme: the last element that equals it (ties take the later one, as
        # PyTorch's); once a NaN appears the running extreme is NaN, which only a later NaN "equals"
        positions = numpy.arange(values.shape[d]).reshape([-1 if k == d else 1 for k in range(values.ndim)])
        hits = (values == running) | numpy.isnan(values)
        indices = numpy.maximum.accumulate(numpy.where(hits, positions, 0), axis=d)
    index = Tensor._make(asarray(indices.reshape(host.shape).astype(numpy.int64), input.device), False, None,
                         input.device)
    if input.ndim == 0:
        return result(input.clone(), index)
    return result(gather(input, d, index), index)


def cummax(input, dim):
    """``(values, indices)``: the running maximum along ``dim`` and where it was found (the later of tied
    elements; a NaN, once seen); the gradient goes to that element."""
    return _running_extreme(E.ordered("cummax", input), dim, True, "cummax", CummaxResult)


def cummin(input, dim):
    """``(values, indices)``: the running minimum along ``dim`` and where it was found."""
    return _running_extreme(E.ordered("cummin", input), dim, False, "cummin", CumminResult)


def _nonzero(t):
    return t if isinstance(t, Tensor) and t.dtype.kind == "b" else t != 0


def logical_and(input, other):
    """True where both are nonzero (any dtype)."""
    return _nonzero(input) & _nonzero(other)


def logical_or(input, other):
    """True where either is nonzero (any dtype)."""
    return _nonzero(input) | _nonzero(other)


def logical_xor(input, other):
    """True where exactly one is nonzero (any dtype)."""
    return _nonzero(input) ^ _nonzero(other)


def float_power(input, exponent):
    """``input ** exponent`` computed in float64 (whatever the dtypes), or in complex128 where either is
    complex, as PyTorch's ``float_power``."""
    values = (input, exponent)
    wide = numpy.dtype("complex128") if any(
        (v.dtype.kind == "c") if isinstance(v, Tensor) else isinstance(v, complex) for v in values) \
        else numpy.dtype("float64")

    def widened(x):
        return E.to_dtype(x, wide) if isinstance(x, Tensor) else (complex(x) if wide.kind == "c" else float(x))
    return E.pow(widened(input), widened(exponent))


def logaddexp2(input, other):
    """``log2(2^a + 2^b)``, without overflow: ``logaddexp(a ln 2, b ln 2) / ln 2``; real numbers only (as
    PyTorch's)."""
    for t in (input, other):
        if isinstance(t, Tensor) and t.dtype.kind == "c":
            raise NotImplementedError(f"logaddexp2() is not implemented for {t.dtype.name} (as in PyTorch): use "
                                      f"logaddexp(a * ln 2, b * ln 2) / ln 2, which takes complex numbers")
    if not isinstance(input, Tensor):
        raise TypeError(f"logaddexp2(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    a, b = E._floats_pair("logaddexp2", input, other)
    common = E.result_type(a, b)   # (cast first, then scaled: float16 with float32 computes in float32)
    a, b = E.to_dtype(a, common), E.to_dtype(b, common)
    return E.logaddexp(a * math.log(2.0), b * math.log(2.0)) / math.log(2.0)


def fliplr(input):
    """Columns reversed: ``flip(input, [1])`` (at least 2-D)."""
    expect_tensor(input, "fliplr")
    if input.ndim < 2:
        raise RuntimeError(f"fliplr(): Input must be >= 2-d, got shape {tuple(input.shape)}")
    return flip(input, [1])


def flipud(input):
    """Rows reversed: ``flip(input, [0])`` (at least 1-D)."""
    expect_tensor(input, "flipud")
    if input.ndim < 1:
        raise RuntimeError("flipud(): Input must be >= 1-d, got a 0-d tensor")
    return flip(input, [0])


def _split_along(input, sections, dim, min_ndim, name):
    expect_tensor(input, name)
    if input.ndim < min_ndim:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_ndim} dimension, but got a tensor "
                           f"with {input.ndim} dimensions!")
    if isinstance(sections, numbers.Integral) and not isinstance(sections, bool):
        if sections == 0 or input.shape[dim] % sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                               f"dimension {input.shape[dim]} is not divisible by the split_size {sections}!")
    return tensor_split(input, sections, dim)


def hsplit(input, sections):
    """Split into ``sections`` equal parts (or at the given indices) along dim 1 (dim 0 of a 1-D tensor)."""
    return _split_along(input, sections, 1 if getattr(input, "ndim", 1) > 1 else 0, 1, "hsplit")


def vsplit(input, sections):
    """Split along dim 0 (at least 2-D)."""
    return _split_along(input, sections, 0, 2, "vsplit")


def dsplit(input, sections):
    """Split along dim 2 (at least 3-D)."""
    return _split_along(input, sections, 2, 3, "dsplit")


def split_with_sizes(input, split_sizes, dim=0):
    """Pieces of the given sizes along ``dim`` (``split`` with a list)."""
    return split(input, list(split_sizes), dim)


def _index_mask(input, dim, index, name):
    """A bool tensor of input's shape, True in the slices along ``dim`` that ``index`` names."""
    expect_tensor(input, name)
    if not isinstance(index, Tensor) or index.dtype != numpy.int64 or index.ndim > 1:
        raise IndexError(f"{name}(): index must be a 1-D (or 0-d) int64 tensor (Expected dtype int64 for index), "
                         f"got {getattr(index, 'dtype', type(index).__name__)}: convert it with index.long()")
    d = single_dim(dim, input.ndim, name) if input.ndim else 0
    n = input.shape[d] if input.ndim else 1
    picks = to_host(index._data).reshape(-1).astype(numpy.int64)
    if picks.size and (picks.max() >= n or picks.min() < -n):
        raise IndexError(f"{name}(): index {int(picks.max())} is out of bounds for dimension {d} with size {n}")
    hit = numpy.zeros(n, dtype=bool)
    hit[picks] = True
    shape = [n if k == d else 1 for k in range(max(input.ndim, 1))]
    mask = Tensor._make(asarray(hit.reshape(shape), input.device), False, None, input.device)
    return (mask if input.ndim else reshape(mask, ())), d


def index_fill(input, dim, index, value):
    """``input`` with the slices along ``dim`` at ``index`` set to ``value`` (a number or a 0-d tensor,
    which then gets their gradient); the rest keeps input's gradient."""
    mask, _ = _index_mask(input, dim, index, "index_fill")
    if input.dtype.kind != "c" and (isinstance(value, (complex, numpy.complexfloating))
                                    or isinstance(value, Tensor) and value.dtype.kind == "c"):
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not supported: fill a "
                           "complex tensor, or give value.real")
    if isinstance(value, Tensor) and value.ndim != 0:
        raise IndexError(f"index_fill_(): only supports a 0-dimensional value tensor, but got tensor with "
                         f"{value.ndim} dimension(s)")
    fill = E.to_dtype(value, input.dtype) if isinstance(value, Tensor) else _in_dtype(value, input)
    return E.where(mask, fill, input)


def index_copy(input, dim, index, source):
    """``input`` with its slices along ``dim`` at ``index`` replaced by ``source``'s, in order (``index[i]``
    takes ``source``'s slice i). Where an index repeats, the last of its slices is written (as PyTorch's CPU
    loop writes them one by one; PyTorch calls the result undefined), and only it gets a gradient."""
    mask, d = _index_mask(input, dim, index, "index_copy")
    if not isinstance(source, Tensor) or source.dtype != input.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{input.dtype.name} and (source) {getattr(source, 'dtype', type(source).__name__)}")
    cleared = E.where(mask, _in_dtype(0, input), input)
    index = index.reshape(-1) if index.ndim == 0 else index
    if index.numel() != (source.shape[d] if source.ndim else 1):
        raise IndexError(f"index_copy_(): Number of indices ({index.numel()}) should be equal to source.size(dim) "
                           f"({source.shape[d] if source.ndim else 1}), for dim: {d}")
    picks = to_host(index._data) % (input.shape[d] if input.ndim else 1)
    last = numpy.unique(picks[::-1], return_index=True)[1]   # (each index's last place, counted from the end)
    if len(last) < len(picks) and source.ndim:
        kept = numpy.sort(len(picks) - 1 - last)
        index, source = index[kept], index_select(source, d, Tensor._make(asarray(kept, source.device), False,
                                                                          None, source.device))
    return index_add(cleared, d, index, source)


def masked_scatter(input, mask, source):
    """``input`` with the positions where ``mask`` (broadcast to input's shape) holds filled, in row-major
    order, from ``source``'s first elements: the k-th True takes ``source.flatten()[k]``. Each gets the gradient
    of where it went; the rest of ``source`` none."""
    expect_tensor(input, "masked_scatter")
    if not isinstance(mask, Tensor) or mask.dtype.kind != "b":
        raise RuntimeError(f"masked_scatter_: expected a bool mask tensor, got "
                           f"{getattr(mask, 'dtype', type(mask).__name__)}")
    if not isinstance(source, Tensor) or source.dtype != input.dtype:
        raise RuntimeError(f"masked_scatter_: expected self and source to have same dtypes but got "
                           f"{input.dtype.name} and {getattr(source, 'dtype', type(source).__name__)}")
    shape = numpy.broadcast_shapes(tuple(input.shape), tuple(mask.shape))   # (both broadcast, as PyTorch's)
    input = input.expand(*shape) if tuple(input.shape) != shape else input
    mask = mask.expand(*shape) if tuple(mask.shape) != shape else mask
    flat = mask.reshape(-1)
    wanted = int(flat.sum().item())
    if wanted > source.numel():
        raise RuntimeError(f"masked_scatter: the mask has {wanted} True elements, but source has only "
                           f"{source.numel()} to place: give a source with at least that many")
    order = E.clamp(flat.to(numpy.int64).cumsum(0) - 1, min=0)    # (the k-th True reads source's k-th element)
    taken = source.reshape(-1)[order].reshape(*input.shape) if source.numel() else _in_dtype(0, input)
    return E.where(mask, taken, input)


def _in_dtype(value, like):
    """A number as a 0-d tensor of ``like``'s dtype and device (2.5 into an int64 tensor is 2, as PyTorch)."""
    return Tensor._make(asarray(numpy.asarray(value).astype(like.dtype), like.device), False, None, like.device)


def isposinf(input):
    """True where an element is +inf."""
    return E.isinf(input) & (input > 0)


def isneginf(input):
    """True where an element is -inf."""
    return E.isinf(input) & (input < 0)


def isreal(input):
    """True where the element is a real number: everywhere for a real dtype, where the imaginary part is 0
    for a complex one."""
    expect_tensor(input, "isreal")
    if input.dtype.kind == "c":
        return E.eq(E.imag(input), 0)
    return Tensor._make(asarray(numpy.ones(input.shape, dtype=bool), input.device), False, None, input.device)


def vdot(input, other):
    """The dot product of two 1-D tensors, conjugating the first: ``sum conj(a_i) b_i`` (for real numbers,
    ``dot``)."""
    return dot(E.conj(input), other)


def fill_diagonal_(self, fill_value, wrap=False):
    """Write ``fill_value`` on the main diagonal, in place (a matrix, or a tensor whose dims are all equal);
    ``wrap=True`` starts the diagonal again below a tall matrix's square top, as NumPy's and PyTorch's."""
    expect_tensor(self, "fill_diagonal_")
    if self.ndim < 2:
        raise RuntimeError(f"fill_diagonal_(): dimensions must larger than 1, got shape {tuple(self.shape)}")
    if self.ndim > 2 and len(set(self.shape)) != 1:
        raise RuntimeError(f"fill_diagonal_(): all dimensions of input must be of equal length, got shape "
                           f"{tuple(self.shape)}")
    mask = numpy.zeros(self.shape, dtype=bool)
    numpy.fill_diagonal(mask, True, wrap=wrap)
    return self.masked_fill_(Tensor._make(asarray(mask, self.device), False, None, self.device), fill_value)



# -- more of PyTorch's top-level functions ---------------------------------------------------------------------

def _floating(t, complex_ok=False):
    """``t`` if it holds floats (or, ``complex_ok``, complex numbers), else cast to the default float dtype
    (which refuses complex numbers)."""
    return t if t.dtype.kind == "f" or (complex_ok and t.dtype.kind == "c") else E.to_dtype(t, default_float())


def copysign(input, other):
    """|input| with the sign of ``other`` (its sign bit: -0.0 counts as negative); a float result. Its
    gradient is +-1 (0 where input is 0, as PyTorch); ``other``'s is 0."""
    expect_tensor(input, "copysign")
    E.real_only("copysign", input, other)
    magnitude, other = E.promote_float(input, other)   # (PyTorch's promotion; integers compute in floats)
    other = E.as_tensor_like(other, magnitude)
    dtype = numpy.promote_types(magnitude.dtype, other.dtype)   # (two floats promotion left apart: the wider)
    magnitude, other = (t if t.dtype == dtype else E.to_dtype(t, dtype) for t in (magnitude, other))
    return apply(E.COPYSIGN, (magnitude, other))


def ldexp(input, other):
    """input * 2^other (``other`` usually integer exponents); a float result (complex for a complex input)."""
    expect_tensor(input, "ldexp")
    # 2^e in two halves, so that 2^e itself never overflows where input * 2^e is still a number (0.1 * 2^128)
    x = input
    if isinstance(other, Tensor) and other.dtype.kind == "f" and input.dtype.kind in "biu":
        x = E.to_dtype(input, other.dtype)   # (an integer input takes a float exponent's dtype, as PyTorch promotes)
    x = _floating(x, complex_ok=True)
    if isinstance(other, Tensor):
        e = E.to_dtype(other, numpy.int64) if other.dtype == numpy.bool_ else other
    else:   # (a number: a real exponent, in the float dtype of x's parts)
        e = Tensor._make(asarray(numpy.asarray(float(other), numpy.finfo(x.dtype).dtype), x.device), False, None,
                         x.device)
    half = E.floor(E.to_dtype(e, numpy.finfo(x.dtype).dtype) / 2) if e.dtype.kind != "f" else E.floor(e / 2)
    rest = e - half
    if e.dtype.kind == "f":   # (an infinite exponent in the first half alone: inf - inf would be NaN)
        infinite = E.isinf(e)
        half, rest = E.where(infinite, e, half), E.where(infinite, 0.0, rest)
    return x * 2.0 ** half * 2.0 ** rest


def diagflat(input, offset=0):
    """A square matrix with the flattened ``input`` on its ``offset``-th diagonal."""
    expect_tensor(input, "diagflat")
    return diag(reshape(input, (-1,)), offset)


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of a vector: column j is x^(N-1-j) (x^j when ``increasing``); N defaults to
    len(x)."""
    expect_tensor(x, "vander")
    if x.ndim != 1:
        raise RuntimeError(f"x must be a one-dimensional tensor, got shape {list(x.shape)}")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError(f"N must be non-negative, got N={N}")
    if x.dtype.kind in "biu":
        x = x.to(numpy.int64)   # (bools and integers in int64, as PyTorch's)
    powers = [E.pow(x, k) for k in range(n)]
    if not powers:
        return reshape(x[:0], (x.shape[0], 0)) * 1
    return stack(powers if increasing else powers[::-1], 1)


def combinations(input, r=2, with_replacement=False):
    """The r-element combinations of a vector's elements, as rows (``itertools.combinations`` order, or
    ``combinations_with_replacement``): gathered from ``input``, so each row's gradient goes back to them."""
    expect_tensor(input, "combinations")
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return input[:0] * 1
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = list(pick(range(input.shape[0]), r))
    index = numpy.array(rows, dtype=numpy.int64).reshape(len(rows), r)
    return input[asarray(index, input.device)]


def _trapezoid_parts(y, x, dx, dim, name):
    expect_tensor(y, name)
    if x is not None and dx is not None:
        raise TypeError(f"{name}(): pass the sample points x or their spacing dx, not both")
    dim = single_dim(dim, y.ndim, name)
    n = y.shape[dim]
    left, right = narrow(y, dim, 0, max(n - 1, 0)), narrow(y, dim, min(1, n), max(n - 1, 0))
    total = left + right
    mean = _floating(total, complex_ok=True) * 0.5
    if x is None:
        return mean * (1.0 if dx is None else dx), dim
    if x.ndim == 1:   # (points along dim alone: shaped to broadcast there)
        if x.shape[0] != n:   # (one gap would broadcast over them all: PyTorch refuses it)
            raise RuntimeError(f"{name}(): there must be one `x` value for each sample point: x has "
                               f"{x.shape[0]}, y has {n} along dim {dim}")
        gaps = x[1:] - x[:-1]
        gaps = reshape(gaps, (-1,) + (1,) * (y.ndim - 1 - dim))
    else:
        gaps = narrow(x, dim, min(1, n), max(n - 1, 0)) - narrow(x, dim, 0, max(n - 1, 0))
    return mean * gaps, dim


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The trapezoidal rule along ``dim``: sum of (x[i+1] - x[i]) * (y[i] + y[i+1]) / 2, with sample points
    ``x`` (a vector along ``dim`` or y's shape) or a constant spacing ``dx`` (default 1)."""
    pieces, dim = _trapezoid_parts(y, x, dx, dim, "trapezoid")
    return pieces.sum(dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running trapezoidal rule along ``dim``: the integral up to each sample point but the first."""
    pieces, dim = _trapezoid_parts(y, x, dx, dim, "cumulative_trapezoid")
    return cumsum(pieces, dim)


trapz = trapezoid
