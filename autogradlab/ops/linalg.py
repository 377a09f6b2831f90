"""Linear algebra: ``matmul`` (1-D, 2-D and batched, NumPy's rules), ``dot`` and ``outer``; ``mm``, ``mv``
and ``bmm`` are matmul for exactly the shapes their names say; ``einsum``; ``cross``, ``kron``, ``cdist``,
``tensordot`` and ``inner``, built from other ops."""
from __future__ import annotations

import math
import operator
import warnings

import numpy

from ..backend import broadcast_to as broadcast_view, xp_of
from ..grad_mode import state
from ..tensor import Tensor
from .elementwise import mul, promote, where
from .rearrange import diagonal
from .reduce import vector_norm
from .registry import apply, apply_binary, broadcast_shape, defop, not_a_tensor
from .shape import cat, expand, permute, reshape


def _matmul_forward(xp, a, b, ta=False, tb=False):
    return (a.mT if ta else a) @ (b.mT if tb else b)


def transposed_matmul(a, b, ta, tb):
    """``op(a) @ op(b)`` for operands of 2 or more dims, ``op`` transposing the last two where asked
    (``ta``, ``tb``): what matmul's VJP computes, one recorded op under create_graph (not a transpose,
    then a product) and one ``matmul`` call on arrays."""
    if type(a) is Tensor and type(b) is Tensor:
        return apply_binary(MATMUL, a, b, {"ta": ta, "tb": tb} if ta or tb else None)
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return apply(MATMUL, (a, b), {"ta": ta, "tb": tb} if ta or tb else None)
    return _matmul_forward(None, a, b, ta, tb)   # (a VJP on arrays: nothing to record)


def _matmul_vjp(g, ctx):
    """C = op(A) @ op(B) (``op`` transposes when the op's ``ta``/``tb`` says so; a user's ``@`` has
    neither): dop(A) = g @ op(B)^T, dop(B) = op(A)^T @ g, each again one product with flags, so a
    recorded backward has no transpose nodes. Only the operand each gradient needs was saved (A for
    dB, B for dA); batch dims are summed away by the shared unbroadcast in Node.apply."""
    need_a, need_b = ctx.needs_input_grad
    params = ctx.params
    shapes = ctx._input_shapes
    if params is None and (len(shapes[0]) == 1 or len(shapes[1]) == 1):
        return _matmul_vector_vjp(g, ctx, need_a, need_b)
    ta, tb = (params["ta"], params["tb"]) if params else (False, False)
    da = db = None
    if need_a:   # dA = g @ op(B)^T, or its transpose op(B) @ g^T when A was used transposed
        da = transposed_matmul(ctx.other, g, tb, True) if ta else transposed_matmul(g, ctx.other, False, not tb)
    if need_b:   # dB = op(A)^T @ g, or its transpose g^T @ op(A) when B was used transposed
        db = transposed_matmul(g, ctx.self, True, ta) if tb else transposed_matmul(ctx.self, g, not ta, False)
    return da, db


def _matmul_vector_vjp(g, ctx, need_a, need_b):
    """The VJP when an operand is 1-D (a user's ``@`` only): lift it to a matrix, then as above."""
    a_1d, b_1d = len(ctx._input_shapes[0]) == 1, len(ctx._input_shapes[1]) == 1
    # g lacks the dims the 1-D operands dropped: put them back, b's first (g is 0-d for vector @ vector)
    # (indexing with None adds a dim on arrays and Tensors alike)
    g2 = g[..., None] if b_1d else g                     # (..., m) -> (..., m, 1)
    g2 = g2[..., None, :] if a_1d else g2                # (..., n) -> (..., 1, n)
    da = db = None
    if need_a:
        b = ctx.other
        b2 = b[:, None] if b_1d else b                   # (k,) -> (k, 1)
        da = g2 @ b2.mT
        da = da.squeeze(-2) if a_1d else da
    if need_b:
        a = ctx.self
        a2 = a[None, :] if a_1d else a                   # (k,) -> (1, k)
        db = a2.mT @ g2
        db = db.squeeze(-1) if b_1d else db
    return da, db


MATMUL = defop("matmul", ("self", "other"), save=("self", "other"), save_if={"self": 1, "other": 0},
               math="A @ B;  dA = g @ B^T, dB = A^T @ g",
               forward=_matmul_forward,
               vjp=_matmul_vjp, formulas=("g @ B^T", "A^T @ g"))

DOT = defop("dot", ("self", "other"), save=("self", "other"), save_if={"self": 1, "other": 0}, math="sum_i a_i b_i;  da = g*b, db = g*a",
            forward=lambda xp, a, b: xp.dot(a, b),
            vjp=lambda g, ctx: (g * ctx.other if ctx.needs_input_grad[0] else None,
                                g * ctx.self if ctx.needs_input_grad[1] else None), formulas=("b", "a"))


def _same_dtype(name, a, b):
    """Products take operands of one dtype, as in PyTorch (no promotion: a float32 model fed float64 data
    is a mistake to see, not to hide)."""
    if isinstance(a, Tensor) and isinstance(b, Tensor) and a.dtype != b.dtype:
        raise RuntimeError(f"{name}: expected both operands to have the same dtype, but got {a.dtype.name} and "
                           f"{b.dtype.name}; convert one first, e.g. b.to(a.dtype)")
    if (isinstance(a, Tensor) and a.dtype.kind == "b") or (isinstance(b, Tensor) and b.dtype.kind == "b"):
        raise NotImplementedError(f"{name} of bool tensors is not supported (as in PyTorch, no bool kernel): convert "
                                  f"them first, e.g. a.to(autogradlab.int64)")


def matmul(input, other):
    """Matrix product with NumPy's rules for 1-D and batched operands."""
    if type(input) is Tensor and type(other) is Tensor:   # two matrices that fit (the common case): nothing to check
        x, y = input._data, other._data
        if x.ndim == 2 and y.ndim == 2 and x.dtype is y.dtype and x.shape[1] == y.shape[0] and x.dtype.kind != "b":
            return apply_binary(MATMUL, input, other)
    _same_dtype("matmul", input, other)
    input, other = promote(input, other)
    if input.ndim == 0 or other.ndim == 0:
        raise RuntimeError(f"matmul: both arguments need at least 1 dimension, got shapes "
                           f"{tuple(input.shape)} and {tuple(other.shape)} (use * for scalars)")
    k_a = input.shape[-1]
    k_b = other.shape[0] if other.ndim == 1 else other.shape[-2]
    if k_a != k_b:
        raise ValueError(f"matmul: shapes {tuple(input.shape)} and {tuple(other.shape)} cannot be multiplied: "
                         f"the last dim of the first ({k_a}) must equal the "
                         f"{'only' if other.ndim == 1 else 'second-to-last'} dim of the second ({k_b})")
    batch_a, batch_b = input.shape[:-2], other.shape[:-2]
    try:
        if batch_a and batch_b:   # (NumPy's check costs microseconds: only where batch dims meet)
            numpy.broadcast_shapes(batch_a, batch_b)
    except ValueError:
        raise ValueError(f"matmul: shapes {tuple(input.shape)} and {tuple(other.shape)} cannot be multiplied: their "
                         f"batch dims {tuple(batch_a)} and {tuple(batch_b)} cannot be broadcast together "
                         f"(sizes must be equal or 1, compared from the right)") from None
    if input.ndim >= 3 and other.ndim <= 2 and other._requires_grad and state.grad_enabled and input.numel():
        # as PyTorch: fold the batch dims into rows and do one matrix product; dB needs A, and what is
        # kept is the folded A (a copy when A's batch dims cannot merge without one, e.g. expanded)
        out = apply(MATMUL, (input.reshape(-1, k_a), other)).reshape(input.shape[:-1] + other.shape[1:])
        out._vc, out._view = [0], None   # not a view: the product is new memory (PyTorch's _unsafe_view)
        return out
    if type(input) is Tensor and type(other) is Tensor:
        return apply_binary(MATMUL, input, other)
    return apply(MATMUL, (input, other))


def dot(input, tensor):
    """Inner product of two 1-D tensors of the same length."""
    _same_dtype("dot", input, tensor)
    input, tensor = promote(input, tensor)
    if input.ndim != 1 or tensor.ndim != 1 or input.shape != tensor.shape:
        raise RuntimeError(f"dot: expected two 1-D tensors of the same length, got shapes "
                           f"{tuple(input.shape)} and {tuple(tensor.shape)}")
    return apply(DOT, (input, tensor))


def outer(input, vec2):
    """``a[:, None] * b[None, :]`` (composite)."""
    if input.ndim != 1 or vec2.ndim != 1:
        raise RuntimeError(f"outer: expected two 1-D tensors, got shapes {tuple(input.shape)} and {tuple(vec2.shape)}")
    return input.unsqueeze(1) * vec2.unsqueeze(0)


def _product_of(name, a, b, a_ndim, b_ndim, what):
    """The checks of ``mm``, ``mv`` and ``bmm``: tensors of exactly the dims each takes (``matmul``
    takes them all), of one dtype."""
    for arg, t, ndim in (("first", a, a_ndim), ("second", b, b_ndim)):
        if not isinstance(t, Tensor):
            raise not_a_tensor(name, t)
        if t.ndim != ndim:
            raise RuntimeError(f"{name}: the {arg} operand must be {what[arg]} ({ndim}-D), got a {t.ndim}-D tensor "
                               f"of shape {tuple(t.shape)}; matmul() takes any of these shapes")
    _same_dtype(name, a, b)


def mm(input, mat2):
    """Matrix times matrix: ``(n, k) @ (k, m)``, strictly 2-D (:func:`matmul` also takes other shapes)."""
    _product_of("mm", input, mat2, 2, 2, {"first": "a matrix", "second": "a matrix"})
    return matmul(input, mat2)


def left_out(t):
    """0 in ``t``'s shape and dtype (a bool ``t``: int64), with a zero gradient for ``t``: a term that PyTorch
    leaves out (beta = 0, alpha = 0 in ``addmm``), so that its inf or NaN does not reach the result (``0 * inf``
    would be NaN)."""
    everywhere = Tensor._make(xp_of(t._data).ones(t.shape, dtype=bool), False, None, t.device)
    return where(everywhere, 0 if t.dtype.kind in "iub" else 0.0, t)


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """beta*input + alpha*(mat1 @ mat2) for matrices (n, k) and (k, m), ``input`` broadcast to (n, m); with
    beta = 0 ``input`` is left out (its NaN or inf does not reach the result), as in PyTorch, and gets no gradient
    (PyTorch: zeros); with alpha = 0 the product is. A shape mismatch raises ``ValueError``, as every shape
    mismatch here."""
    for name, m in (("mat1", mat1), ("mat2", mat2)):
        if not isinstance(m, Tensor):
            raise not_a_tensor("addmm", m)
        if m.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {m.ndim}-D tensor; reshape it to 2-D first")
    if isinstance(input, Tensor) and input.dtype != mat1.dtype:
        raise RuntimeError(f"addmm: input is {input.dtype.name} but the matrices are {mat1.dtype.name}; all three "
                           f"must have the same dtype (convert with .to(...))")
    if all(m.dtype.kind in "iu" for m in (mat1, mat2)):   # (integers take the scalars as integers: 0.5 is 0)
        beta, alpha = int(beta), int(alpha)
    product = mm(mat1, mat2)
    product = left_out(product) if alpha == 0 else product if alpha == 1 else product * alpha
    out_shape = product.shape
    if not isinstance(input, Tensor):
        raise not_a_tensor("addmm", input)
    try:
        fits = numpy.broadcast_shapes(tuple(input.shape), tuple(out_shape)) == tuple(out_shape)
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"addmm: input of shape {tuple(input.shape)} cannot be broadcast to the product's shape "
                           f"{tuple(out_shape)}; give input that shape, or one that broadcasts to it")
    if beta == 0:
        return product
    scaled = input if beta == 1 else input * beta
    return scaled + product


def mv(input, vec):
    """Matrix times vector: ``(n, k) @ (k,)`` gives ``(n,)``."""
    _product_of("mv", input, vec, 2, 1, {"first": "a matrix", "second": "a vector"})
    return matmul(input, vec)


def bmm(input, mat2):
    """A batch of matrix products: ``(B, n, k) @ (B, k, m)``, the batch sizes equal (not broadcast)."""
    _product_of("bmm", input, mat2, 3, 3, {"first": "a batch of matrices", "second": "a batch of matrices"})
    if input.shape[0] != mat2.shape[0]:
        raise RuntimeError(f"bmm: the batch sizes differ: {input.shape[0]} matrices in the first operand (shape "
                           f"{tuple(input.shape)}) and {mat2.shape[0]} in the second (shape {tuple(mat2.shape)}); "
                           f"bmm does not broadcast (matmul does)")
    return matmul(input, mat2)


# -- einsum: one op for one or two operands; more are contracted two at a time --------------------------------

def _einsum_forward(xp, *arrays, equation):
    return xp.einsum(equation, *arrays, optimize=len(arrays) > 1)   # (two operands: a BLAS product, as matmul)


def _letters(subscripts):
    return subscripts.replace("...", "")


def _gradient_of_operand(g, out, mine, others, shape):
    """The gradient of the operand with subscripts ``mine`` (of ``shape``) in ``einsum(mine, *others -> out)``:
    ``einsum(out, *others -> mine)`` of g and the other operands, where a letter that only ``mine`` has, summed
    away by the forward, comes back by broadcasting. (Broadcast size-1 dims are summed back by Node.apply, as
    for any op.)"""
    elsewhere = out + "".join(s for s, _ in others)
    keep = "".join(ch for ch in mine if ch in elsewhere)
    if keep != out or others:
        g = _contract(",".join([out] + [s for s, _ in others]) + "->" + keep, g, *[t for _, t in others])
    sizes = dict(zip(keep, g.shape))
    # broadcast back: to the operand's size, or to g's where the operand's is 1 (Node.apply sums that back)
    target = tuple(n if sizes.get(ch, 1) == 1 else sizes[ch] for ch, n in zip(mine, shape))
    if keep == mine and tuple(g.shape) == target:
        return g
    g = g.reshape(tuple(sizes.get(ch, 1) for ch in mine))
    return expand(g, target) if isinstance(g, Tensor) else broadcast_view(g, target)


def _einsum_vjp(g, ctx):
    inputs, out = ctx.equation.split("->")
    subs = inputs.split(",")
    grads = []
    for k, need in enumerate(ctx.needs_input_grad):
        if not need:   # (and the other operand may not have been saved: it is read only for this gradient)
            grads.append(None)
            continue
        # the other operand (a binary einsum's): a's gradient reads b, b's reads a
        others = [] if len(subs) == 1 else [(subs[1 - k], ctx.other if k == 0 else ctx.self)]
        grads.append(_gradient_of_operand(g, out, subs[k], others, ctx._input_shapes[k]))
    return tuple(grads)


EINSUM = defop("einsum", ("self",),
               math="einsum(equation, a): sums over the letters not in the output;  "
                    "da = g rearranged to a's letters, broadcast over letters a alone has",
               forward=_einsum_forward, vjp=_einsum_vjp, formulas=("1",))

EINSUM2 = defop("einsum2", ("self", "other"), save=("self", "other"), save_if={"self": 1, "other": 0},
                math="einsum(equation, a, b);  da = einsum(out, b -> a's letters) of g and b, db likewise",
                forward=_einsum_forward, vjp=_einsum_vjp, formulas=("b", "a"))


def _parse_einsum(equation, operands):
    """``(input subscripts, output subscripts)`` of ``equation`` (spaces dropped; no ``->``: the letters used
    once, sorted, after any ``...``), checked against the operands."""
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): the equation must be a string such as 'ij,jk->ik', got {equation!r}")
    equation = equation.replace(" ", "")
    lhs, arrow, out = equation.partition("->")
    subs = lhs.split(",")
    if len(subs) > len(operands):
        raise RuntimeError(f"einsum(): fewer operands were provided than specified in the equation {equation!r}")
    if len(subs) < len(operands):
        raise RuntimeError(f"einsum(): more operands were provided than specified in the equation {equation!r}")
    for s in subs + ([out] if arrow else []):
        letters = _letters(s)
        if (letters and not (letters.isascii() and letters.isalpha())) or s.count("...") > 1 or "." in letters:
            raise RuntimeError(f"einsum(): invalid subscripts {s!r} in {equation!r}: letters a-z and A-Z, and at "
                               f"most one '...'")
    if not arrow:
        counts = {}
        for ch in _letters(lhs.replace(",", "")):
            counts[ch] = counts.get(ch, 0) + 1
        out = ("..." if "..." in lhs else "") + "".join(sorted(ch for ch, n in counts.items() if n == 1))
    for ch in _letters(out):
        if _letters(out).count(ch) > 1:
            raise RuntimeError(f"einsum(): output subscript {ch} appears more than once in the output")
        if ch not in lhs:
            raise RuntimeError(f"einsum(): output subscript {ch} does not appear in the equation for any input "
                               f"operand")
    sizes, ellipses = {}, []
    for k, (s, t) in enumerate(zip(subs, operands)):
        letters = _letters(s)
        if len(letters) > t.ndim or ("..." not in s and len(letters) != t.ndim):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(letters)}) does not match "
                               f"the number of dimensions ({t.ndim}) for operand {k}"
                               + ("" if "..." in s else " and no ellipsis was given"))
        head, _, tail = s.partition("...")
        dims = tuple(t.shape[:len(head)]) + tuple(t.shape[t.ndim - len(tail):]) if "..." in s else tuple(t.shape)
        own = {}
        for ch, n in zip(letters, dims):
            if own.setdefault(ch, n) != n:
                raise RuntimeError(f"einsum(): subscript {ch} is repeated for operand {k} but the sizes don't match, "
                                   f"{own[ch]} != {n}")
            seen = sizes.setdefault(ch, n)
            if n != seen and 1 not in (n, seen):
                raise RuntimeError(f"einsum(): subscript {ch} has size {n} for operand {k} which does not broadcast "
                                   f"with previously seen size {seen}")
            sizes[ch] = n if seen == 1 else seen
        if "..." in s:
            ellipses.append(tuple(t.shape[len(head):t.ndim - len(tail)]))
    try:
        numpy.broadcast_shapes(*ellipses)
    except ValueError:
        raise RuntimeError(f"einsum(): the dims that '...' stands for do not broadcast: {ellipses}") from None
    return subs, out


def _without_ellipsis(subs, out, operands):
    """The subscripts with each ``...`` written as letters of its own (right-aligned across operands, as
    broadcasting aligns dims), so that NumPy can also sum the broadcast dims away ("...ij->ij")."""
    if "..." not in "".join(subs):
        return subs, out
    widths = [t.ndim - len(_letters(s)) if "..." in s else 0 for s, t in zip(subs, operands)]
    free = [ch for ch in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" if ch not in "".join(subs) + out]
    if max(widths) > len(free):
        raise RuntimeError(f"einsum(): '...' stands for {max(widths)} dims, more than the letters left to name them")
    names = "".join(free[:max(widths)])
    subs = [s.replace("...", names[len(names) - w:]) for s, w in zip(subs, widths)]
    return subs, out.replace("...", names)


def einsum(equation, *operands):
    """Sums of products named by subscripts, as ``torch.einsum``: ``einsum("ij,jk->ik", a, b)`` is ``a @ b``,
    ``einsum("bij->bji", x)`` a transpose, ``einsum("i,i->", u, v)`` a dot product, ``einsum("ij->j", a)`` a sum
    over rows; without ``->`` the output is the letters used once, sorted; ``...`` stands for broadcast dims.
    Each letter not in the output is summed over. More than two operands are contracted two at a time, left
    to right. The gradient of an operand is an einsum of g with the other operands back to its subscripts (a
    letter it alone has is broadcast back); a letter repeated within one operand (``"ii->i"``) is its diagonal,
    taken first (with ``diagonal``'s gradient). The sublist form ``einsum(a, [0, 1], b, [1, 2], [0, 2])`` names
    the letters by numbers (0-25 A-Z, 26-51 a-z, as PyTorch; ``...`` as ``Ellipsis``)."""
    if isinstance(equation, Tensor):
        equation, operands = _from_sublists((equation,) + operands)
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for t in operands:
        if not isinstance(t, Tensor):
            raise not_a_tensor("einsum", t)
    if operands and operands[0].dtype == numpy.float16:   # (summed in float32 and rounded once, as PyTorch)
        return _contract(equation, *[t.to(numpy.float32) for t in operands]).to(numpy.float16)
    return _contract(equation, *operands)


_SUBLIST_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"   # (PyTorch's: 0-25 A-Z, 26-51 a-z)


def _from_sublists(args):
    """``(equation, operands)`` of the sublist form: operand, its subscripts, ..., then the output's, if given."""
    def letters(sublist):
        if not isinstance(sublist, (list, tuple)):
            raise TypeError(f"einsum(): in the sublist form each operand is followed by a list of its subscripts "
                            f"(ints in [0, 52) or Ellipsis), got {type(sublist).__name__}")
        out = ""
        for i in sublist:
            if i is Ellipsis:
                out += "..."
            elif hasattr(i, "__index__") and not isinstance(i, bool) and 0 <= operator.index(i) < len(_SUBLIST_LETTERS):
                out += _SUBLIST_LETTERS[operator.index(i)]
            else:
                raise ValueError(f"einsum(): subscript in subscript list is not within the valid range [0, 52), "
                                 f"got {i!r}")
        return out
    pairs = len(args) // 2 * 2
    operands = tuple(args[0:pairs:2])
    equation = ",".join(letters(s) for s in args[1:pairs:2])
    if len(args) > pairs:
        equation += "->" + letters(args[-1])
    return equation, operands


def _diagonals(k, subscripts, t):
    """Operand ``k`` with each repeated letter (``"ii"``) replaced by its diagonal, a last dim of that letter."""
    while len(set(subscripts)) < len(subscripts):
        letter = next(ch for ch in subscripts if subscripts.count(ch) > 1)
        i = subscripts.index(letter)
        j = subscripts.index(letter, i + 1)
        if t.shape[i] != t.shape[j]:
            raise RuntimeError(f"einsum(): subscript {letter} is repeated for operand {k} but the sizes don't match, "
                               f"{t.shape[i]} != {t.shape[j]}")
        t = diagonal(t, 0, i, j)
        subscripts = subscripts[:i] + subscripts[i + 1:j] + subscripts[j + 1:] + letter
    return subscripts, t


def _contract(equation, *operands):
    """:func:`einsum` on Tensors or, in a VJP, on arrays."""
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    subs, out = _parse_einsum(equation, operands)
    for k, t in enumerate(operands[1:], 1):
        if t.dtype != operands[0].dtype:
            raise RuntimeError(f"einsum(): operand {k} is {t.dtype.name} but operand 0 is {operands[0].dtype.name}: "
                               f"give them one dtype, e.g. x.to({operands[0].dtype.name})")
    subs, out = _without_ellipsis(subs, out, operands)
    subs, operands = list(subs), list(operands)
    for k, t in enumerate(operands):
        if isinstance(t, Tensor):
            subs[k], operands[k] = _diagonals(k, subs[k], t)
    # two at a time: keep the letters still needed (by a later operand or the output)
    while len(operands) > 2:
        (s0, s1), rest = subs[:2], subs[2:]
        needed = set(_letters(out)) | set(_letters("".join(rest)))
        keep = ("..." if "..." in s0 + s1 else "") + "".join(dict.fromkeys(ch for ch in _letters(s0 + s1)
                                                                          if ch in needed))
        merged = apply(EINSUM2, (operands[0], operands[1]), {"equation": f"{s0},{s1}->{keep}"})
        subs, operands = [keep] + rest, [merged] + operands[2:]
    op = EINSUM if len(operands) == 1 else EINSUM2
    return apply(op, tuple(operands), {"equation": ",".join(subs) + "->" + out})


# -- cross, kron, cdist: built from other ops (their gradients come from those) ------------------------------

def cross(input, other, dim=None):
    """The cross product of 3-vectors along ``dim`` (``input`` and ``other`` broadcast against each other):
    ``c = (a1 b2 - a2 b1, a2 b0 - a0 b2, a0 b1 - a1 b0)``. ``dim=None`` (deprecated in PyTorch, which warns):
    the first dim of size 3. Gradients: ``da = b x g``, ``db = g x a``."""
    for t in (input, other):
        if not isinstance(t, Tensor):
            raise not_a_tensor("cross", t)
    if input.dtype != other.dtype:
        raise RuntimeError(f"cross(): expected scalar type {input.dtype.name} but found {other.dtype.name}: "
                           f"convert other with other.to({input.dtype.name})")
    if input.dtype.kind == "b":
        raise NotImplementedError("cross of bool tensors is not supported (as in PyTorch, no bool kernel): convert "
                                  "them first, e.g. a.to(autogradlab.int64)")
    if input.ndim != other.ndim:
        raise RuntimeError(f"linalg.cross: inputs must have the same number of dimensions, got shapes "
                           f"{tuple(input.shape)} and {tuple(other.shape)}")
    shape = broadcast_shape("cross()", input.shape, other.shape)
    if dim is None:
        warnings.warn("Using cross without specifying the dim arg is deprecated (as in PyTorch): pass dim "
                      "explicitly (torch.linalg.cross uses dim=-1)", UserWarning, stacklevel=2)
        if 3 not in input.shape:   # (input's own shape, not the broadcast one: PyTorch's rule)
            raise RuntimeError(f"cross(): no dimension of size 3 in input (shape {tuple(input.shape)}): give dim")
        d = list(input.shape).index(3)
    else:
        if not -len(shape) <= dim < max(len(shape), 1):
            raise IndexError(f"cross(): dim {dim} is out of range for tensors with {len(shape)} dims")
        d = dim % len(shape)
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {d} must have length 3. Got {input.shape[d]} and "
                           f"{other.shape[d]}")
    a, b = expand(input, shape), expand(other, shape)
    a0, a1, a2 = (a.narrow(d, k, 1) for k in range(3))
    b0, b1, b2 = (b.narrow(d, k, 1) for k in range(3))
    return cat([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], d)


def kron(input, other):
    """The Kronecker product: every element ``a[i]`` times the whole of ``b``, block ``i`` of the result
    (``out[i*n + k] = a[i] * b[k]`` in each dim; the fewer dims padded with leading 1s). Built as a broadcast
    product of ``a`` reshaped to ``(a0, 1, a1, 1, ...)`` and ``b`` to ``(1, b0, 1, b1, ...)``."""
    for t in (input, other):
        if not isinstance(t, Tensor):
            raise not_a_tensor("kron", t)
    ndim = max(input.ndim, other.ndim)
    sa = (1,) * (ndim - input.ndim) + tuple(input.shape)
    sb = (1,) * (ndim - other.ndim) + tuple(other.shape)
    a = input.reshape(tuple(n for m in sa for n in (m, 1)))
    b = other.reshape(tuple(n for m in sb for n in (1, m)))
    return (a * b).reshape(tuple(m * n for m, n in zip(sa, sb)))


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """The ``p``-norm distance between each row of ``x1`` (..., P, M) and each row of ``x2`` (..., R, M):
    ``out[..., i, j] = ||x1[..., i, :] - x2[..., j, :]||_p`` (any p >= 0, inf included; batch dims broadcast).
    Built from the differences and ``norm``, so the gradient is ``g*(x1_i - x2_j)/d_ij`` for p = 2 (0 where d = 0,
    as PyTorch's), ``g*sign(x1_i - x2_j)`` for p = 1, and :func:`~autogradlab.ops.reduce.vector_norm`'s for the
    rest (tied largest differences share the gradient for p = inf). (PyTorch computes p = 2 through a matrix
    product for more than 25 rows, whose rounding differs slightly.)"""
    for t in (x1, x2):
        if not isinstance(t, Tensor):
            raise not_a_tensor("cdist", t)
    if compute_mode not in ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                            "donot_use_mm_for_euclid_dist"):
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode: use "
                         f"'use_mm_for_euclid_dist_if_necessary', 'use_mm_for_euclid_dist' or "
                         f"'donot_use_mm_for_euclid_dist'")
    if x1.ndim < 2 or x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, got shapes {tuple(x1.shape)} and "
                           f"{tuple(x2.shape)}: make a single point a row with x.unsqueeze(0)")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"cdist: X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: "
                           f"{x2.shape[-1]}")
    if x1.dtype.kind != "f" or x2.dtype.kind != "f":
        raise RuntimeError(f"cdist only supports floating-point dtypes, got {x1.dtype.name} and {x2.dtype.name}: "
                           f"convert with .float()")
    if x1.dtype != x2.dtype:
        raise RuntimeError(f"cdist: expected scalar type {x1.dtype.name} but found {x2.dtype.name}: convert x2 "
                           f"with x2.to({x1.dtype.name})")
    if p < 0:
        raise RuntimeError(f"cdist only supports non-negative p values, got p={p}")
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)   # (..., P, R, M)
    if p == 1 or x1.shape[-1] == 0:   # (no features: every distance 0, for every p)
        return diff.abs().sum(-1)
    return diff.norm(dim=-1) if p == 2 else vector_norm(diff, p, -1)


def tensordot(a, b, dims=2):
    """Sum of products over paired dims: ``dims`` an int n (a's last n dims with b's first n) or two lists
    (``([1, 0], [0, 1])``: a's dim 1 with b's dim 0, a's 0 with b's 1). The result has a's other dims, then
    b's. Built as permute, reshape and one matmul, whose gradients it takes."""
    for t in (a, b):
        if not isinstance(t, Tensor):
            raise not_a_tensor("tensordot", t)
    if isinstance(dims, Tensor):   # (a 0-d or one-element tensor is an int; a 2 x n one two lists)
        dims = dims.tolist()
        dims = dims[0] if isinstance(dims, list) and len(dims) == 1 and isinstance(dims[0], int) else dims
    if isinstance(dims, float):
        raise RuntimeError(f"tensordot expects dims to be an int or two lists of dims, got {dims!r}")
    if isinstance(dims, (list, tuple)) and len(dims) == 2 and all(isinstance(d, int) for d in dims):
        raise TypeError(f"tensordot(): dims={dims!r} is two ints: write dims=([{dims[0]}], [{dims[1]}]) to pair one "
                        f"dim of each, or dims=n for a's last n dims with b's first n")
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        dims_a, dims_b = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    else:
        dims_a, dims_b = ([d] if isinstance(d, int) else list(d) for d in dims)
        if len(dims_a) != len(dims_b):
            raise RuntimeError(f"both dimension lists should have same length, got {dims_a} and {dims_b}")
        dims_a = [d % a.ndim if -a.ndim <= d < a.ndim else _dim_error(d, a.ndim) for d in dims_a]
        dims_b = [d % b.ndim if -b.ndim <= d < b.ndim else _dim_error(d, b.ndim) for d in dims_b]
    for da, db in zip(dims_a, dims_b):
        if a.shape[da] != b.shape[db]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[da]} in dim {da} "
                               f"and second has size {b.shape[db]} in dim {db}")
    free_a = [d for d in range(a.ndim) if d not in dims_a]
    free_b = [d for d in range(b.ndim) if d not in dims_b]
    k = math.prod(a.shape[d] for d in dims_a)
    left = reshape(permute(a, *free_a, *dims_a), (math.prod(a.shape[d] for d in free_a), k))
    right = reshape(permute(b, *dims_b, *free_b), (k, math.prod(b.shape[d] for d in free_b)))
    return reshape(matmul(left, right), tuple(a.shape[d] for d in free_a) + tuple(b.shape[d] for d in free_b))


def _dim_error(d, ndim):
    raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {d})")


def inner(input, other):
    """The dot product over the last dim: ``sum_k a[..., k] * b[..., k]`` for every pair of a's and b's other
    positions (shape a.shape[:-1] + b.shape[:-1]); a 0-d operand multiplies instead."""
    for t in (input, other):
        if not isinstance(t, Tensor):
            raise not_a_tensor("inner", t)
    if input.ndim == 0 or other.ndim == 0:
        return mul(input, other)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, ([-1], [-1]))
