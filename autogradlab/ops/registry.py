"""How an op is declared, and how applying it records a graph node.

An op is one :class:`OpDef`: its *forward* on raw arrays (through the array
module ``xp`` the backend chose) and its *vector-Jacobian product*, side by
side. The VJP is written once, with operators and this package's functions
(``where``, ``exp``, ``sum``, ...), so it runs on either kind of value:

* on **Tensors** when the backward is recorded (``create_graph=True``): the
  VJP's own ops build the graph that higher-order derivatives need;
* on **arrays** otherwise (the common case): ``ctx.self`` and friends give the
  saved arrays and every package function called on arrays just runs the op's
  forward (:func:`apply` below), so the backward allocates no Tensor or node.

    mul = defop("mul", ("self", "other"), save=("self", "other"),
                forward=lambda xp, a, b: a * b,
                vjp=lambda g, ctx: (g * ctx.other, g * ctx.self),
                formulas=("b", "a"), math="a * b")

Broadcasting is undone for every op in one place (:meth:`graph.Node.apply`
sums each gradient back to its input's shape), never inside a VJP.
"""
from __future__ import annotations

import inspect
import os
import traceback
import weakref

import numpy

from ..backend import on_cpu_array_module, shares_memory, xp_for, xp_of
from ..grad_mode import state
from ..graph import _SHARED_CONSTANTS, _node_counter, OpNode, RESULT, declare_fields, save_param, save_tensor
from ..tensor import Tensor

__all__ = ["OpDef", "defop", "apply", "apply_unary", "apply_binary", "REGISTRY", "holomorphic"]

REGISTRY: dict[str, "OpDef"] = {}
_make = Tensor._make   # (the fast constructor, looked up once)
_new = object.__new__
_NDARRAY = numpy.ndarray
_CPU_XP = None  # numpy (or a test's stand-in, see backend.use_cpu_array_module): kept at hand


def _set_cpu_xp(xp):
    global _CPU_XP
    _CPU_XP = xp


on_cpu_array_module(_set_cpu_xp)


SAVES_RESULT = "the output alone"                       # OpDef.save_kind
SAVES_CROSSWISE = "each of two inputs for the other's gradient"


class OpDef:
    """A differentiable op: forward on arrays + VJP in Tensor ops + its math in words.

    ``save`` names what the VJP reads back: input names and/or ``"result"`` (or a parameter's
    name: it is then released with the saved tensors, so a second backward raises as in PyTorch);
    ``save_if={"self": 1}`` keeps ``self`` only when input 1 needs a gradient
    (``a * b`` needs ``a`` only for ``db``), as PyTorch saves only what it needs;
    ``"result"`` may be conditional too. (``save_kind`` is derived from these: it marks the two
    commonest rules, which ``_record`` applies without its general loop.)
    ``complex_vjp`` is the VJP for complex values, where it differs: PyTorch's convention for a
    holomorphic ``f`` sends ``g * conj(f'(z))`` back (``mul``: ``g*conj(b)``), so that a real loss's
    gradient is ``dL/dx + i dL/dy``. ``complex_vjp="same"`` says the real VJP holds as it is (its local
    derivatives are real: add, sum, reshape), ``"holomorphic"`` that :func:`holomorphic` makes it from the
    real one (exp, mul, matmul); an op with none refuses complex inputs when recording.
    ``arrays=False`` marks a VJP that only runs on Tensors (it is handed wrapped
    arrays when no graph is recorded: slower, same result).
    ``formulas`` gives, per input, the local derivative as a short string
    (events and the player show ``d(a*b)/da = b``). ``view`` marks ops whose
    output shares memory with input 0 (they share its version counter);
    ``view="if_shared"`` (reshape) when the output is a view only if the array
    library could make one, else a copy with a version counter of its own.
    The forward's parameters after ``xp`` and the inputs (``dims``, ``keepdim``) are the op's
    *parameters*, passed as keywords: the node keeps them, and a VJP reads them as ``ctx.dims``.

    The VJP's contract on arrays: each gradient it returns is ``g`` itself, a view of ``g``, or a
    fresh array (``g * b``, ``g.sum(...)``), never a saved or input array (nor the op's result)
    returned as it is. ``Node.made_new`` relies on it: a fresh array that is no view is taken as a
    leaf's ``.grad`` without a copy, so returning ``ctx.result`` for ``exp`` would make ``.grad``
    share memory with ``y`` (return ``g * ctx.result``; a copy if you must return a saved array).
    """

    __slots__ = ("name", "node_name", "inputs", "save", "forward", "vjp", "formulas", "math",
                 "view", "differentiable", "save_inputs", "save_result", "save_params", "arrays", "param_names",
                 "last_shapes", "save_kind", "complex_op")

    def __init__(self, name, inputs, forward, vjp, save=(), formulas=None, math="", view=False, save_if=None,
                 arrays=True, complex_vjp=None, complex_formulas=None):
        self.name = name
        self.arrays = arrays  # False: the VJP needs Tensors (methods arrays lack): it gets them wrapped
        self.node_name = "".join(p.capitalize() for p in name.split("_")) + "Backward"
        self.inputs = tuple(inputs)
        self.save = tuple(save)
        self.forward = forward
        self.vjp = vjp
        self.differentiable = vjp is not None
        self.formulas = tuple(formulas) if formulas else ("",) * len(self.inputs)
        self.math = math
        self.view = view
        # (name, input position, the input whose gradient needs it or None for "always")
        save_if = save_if or {}
        self.save_inputs = tuple((n, self.inputs.index(n), save_if.get(n)) for n in self.save if n in self.inputs)
        # parameters kept like saved tensors (an index op's indices, as PyTorch keeps them): freed with them
        self.save_params = tuple(n for n in self.save if n != "result" and n not in self.inputs)
        # False, or (the input whose gradient needs the result, or None for "always")
        self.save_result = "result" in self.save and (save_if.get("result"),)
        self.param_names = _param_names(forward, len(self.inputs))
        self.last_shapes = (None, None)   # (key, triple) of the node recorded last: see _record
        # which of the two commonest saving rules this op has, if any (``_record`` writes those two out,
        # without its general loop): the output alone (exp, tanh, relu, softmax, ...), or two inputs each
        # kept for the other's gradient (mul, matmul, dot)
        if self.save_result == (None,) and not self.save_inputs and not self.save_params:
            self.save_kind = SAVES_RESULT
        elif (len(self.save_inputs) == 2 and not self.save_result and not self.save_params
              and [(i, needed_by) for _, i, needed_by in self.save_inputs] == [(0, 1), (1, 0)]):
            self.save_kind = SAVES_CROSSWISE
        else:
            self.save_kind = None
        self.complex_op = None   # the op that records a node for complex inputs (see set_complex_vjp)
        if complex_vjp is not None:
            self.set_complex_vjp(complex_vjp, complex_formulas)

    def set_complex_vjp(self, complex_vjp, formulas=None):
        """Let the op take complex inputs: with the VJP it has (``"same"``), with the one :func:`holomorphic`
        makes of it (``"holomorphic"``) or with ``complex_vjp``, held by a twin of this op that only the nodes
        of complex inputs get. The twin's ``formulas`` (what events and the player show) are given, or for a
        holomorphic op the conjugates of the real ones."""
        if complex_vjp == "same":
            self.complex_op = self
            return
        if complex_vjp == "holomorphic":
            complex_vjp = holomorphic(self.vjp)
            formulas = formulas or tuple(f"conj({f})" if f else f for f in self.formulas)
        twin = _new(OpDef)
        for slot in OpDef.__slots__:
            setattr(twin, slot, getattr(self, slot))
        twin.vjp, twin.complex_op, twin.last_shapes = complex_vjp, twin, (None, None)
        twin.formulas = tuple(formulas) if formulas else self.formulas
        self.complex_op = twin

    @property
    def __doc__(self):
        return f"{self.name}: {self.math}"

    def __repr__(self):
        return f"<op {self.name}: {self.math}>"


_CONJUGATE = [None]   # conj(), set by ops.elementwise (where the conj op is declared)


def set_conjugate(conj):
    _CONJUGATE[0] = conj


def holomorphic(vjp):
    """The complex VJP of an op that is holomorphic in each input (mul, exp, sin, matmul, ...), made from its
    real one. PyTorch sends ``g * conj(f'(z))`` back, so that a real loss L's gradient is ``dL/dx + i dL/dy``;
    the real VJP computes ``g * f'(z)``, so ``conj(vjp(conj(g)))`` is it."""
    def complex_vjp(g, ctx):
        conj = _CONJUGATE[0]
        return tuple(None if gi is None else conj(gi) for gi in vjp(conj(g), ctx))
    complex_vjp.__name__ = f"holomorphic_{getattr(vjp, '__name__', 'vjp')}"
    return complex_vjp


def defop(name, inputs, forward, vjp, **kwargs) -> OpDef:
    """Declare an op and put it in :data:`REGISTRY` (the gradient checks iterate over it). The VJP
    returns ``g``, a view of ``g`` or a fresh array per input, never a saved/input array (see
    :class:`OpDef`)."""
    if name in REGISTRY:
        raise ValueError(f"op {name!r} is already registered")
    op = OpDef(name, inputs, forward, vjp, **kwargs)
    declare_fields(op.param_names + op.save)   # the node reads them as ctx.<name>
    REGISTRY[name] = op
    return op


def _param_names(forward, n_inputs):
    """The names of an op's parameters: the forward's arguments after ``xp`` and the inputs (after
    ``*arrays`` for a variadic op such as cat); none for a custom Function's (its forward is its own)."""
    if forward is None:
        return ()
    args = list(inspect.signature(forward).parameters.values())[1:]
    if any(a.kind is a.VAR_POSITIONAL for a in args):
        return tuple(a.name for a in args if a.kind is a.KEYWORD_ONLY)
    return tuple(a.name for a in args[n_inputs:] if a.kind is not a.VAR_KEYWORD)


def _input_names(op, inputs):
    """A name per input: the op's own names, or ``tensors[i]`` for variadic ops (cat, stack)."""
    if len(op.inputs) == len(inputs):
        return op.inputs
    return tuple(f"{op.inputs[0] if op.inputs else 'input'}[{i}]" for i in range(len(inputs)))


def _device_error(op, inputs):
    where = ", ".join(f"{n} on {t.device}" for n, t in zip(_input_names(op, inputs), inputs)
                      if isinstance(t, Tensor))   # (a constant is made on its tensor's device)
    return RuntimeError(
        f"{op.name}: expected all tensors to be on the same device, but got {where}. "
        f"Move them with .to(device) first."
    )


def _broadcast_error(op, inputs):
    """A ValueError naming the shapes and the first dim where they cannot be broadcast."""
    names, shapes = _input_names(op, inputs), [tuple(t.shape) for t in inputs]
    listing = " and ".join(f"{n} {s}" for n, s in zip(names, shapes))
    detail = ""
    for k in range(1, max(len(s) for s in shapes) + 1):  # compared from the last dim
        sizes = {(n, s[-k]) for n, s in zip(names, shapes) if len(s) >= k and s[-k] != 1}
        if len({size for _, size in sizes}) > 1:
            sizes = sorted(sizes, key=lambda p: names.index(p[0]))
            detail = (f": in dim {-k} the sizes "
                      + " vs ".join(f"{size} ({n})" for n, size in sizes) + " differ and none is 1")
            break
    return ValueError(
        f"{op.name}: the shapes of {listing} cannot be broadcast together{detail}. Sizes are compared "
        f"from the last dim and must be equal or 1; reshape or unsqueeze an operand so they line up.")


def broadcast_shape(name, *shapes):
    """The shape that ``shapes`` broadcast to, or a RuntimeError (the class PyTorch raises in the functions that
    check this themselves: cross, masked_select, the distances and losses) naming them."""
    try:
        return numpy.broadcast_shapes(*(tuple(s) for s in shapes))
    except ValueError:
        raise RuntimeError(f"{name}: shapes {', '.join(str(tuple(s)) for s in shapes)} do not broadcast: each "
                           f"dim, counted from the right, must be equal or 1 in all but one of them") from None


def not_a_tensor(name, got):
    """The TypeError for an op given something that is not a Tensor where it needs one (a Python number,
    a list): what it got and how to make a Tensor of it, as PyTorch's "must be Tensor"."""
    what = type(got).__name__
    shown = repr(got) if len(repr(got)) <= 40 else repr(got)[:37] + "..."
    return TypeError(f"{name}() expects a Tensor, but got {what} {shown}: wrap it with "
                     f"autogradlab.tensor({shown}) (a Python number or list has no dtype, device or gradient)")


def expect_tensor(a, name):
    """Raise :func:`not_a_tensor` unless ``a`` is a Tensor (or an array: a VJP running on arrays)."""
    if type(a) is not Tensor and not hasattr(a, "ndim"):   # (a Tensor's ndim is a property: not run)
        raise not_a_tensor(name, a)


def _forward_error(op, inputs, exc):
    """Explain a failing forward: a broadcasting mismatch, or the array library's message with the shapes."""
    if len(inputs) > 1:
        try:
            numpy.broadcast_shapes(*(tuple(t.shape) for t in inputs))
        except ValueError:
            return _broadcast_error(op, inputs)
    shapes = ", ".join(f"{n} {tuple(t.shape)} {t.dtype.name}" for n, t in zip(_input_names(op, inputs), inputs))
    return ValueError(f"{op.name}: {exc} (inputs: {shapes})")


def apply(op: OpDef, inputs, params=None):
    """Run ``op`` forward; if grad mode is on and an input requires grad, record a node.

    ``inputs`` are Tensors and *constants*: arrays already of the right dtype and device
    (what a Python number operand becomes, see ``elementwise.constant``). A constant goes to
    the forward as it is and gets no edge (nothing flows back to it), as PyTorch keeps scalar
    operands out of the graph. Given no Tensor at all (a VJP running on arrays), just run the
    forward on them.
    """
    switches = state.__dict__   # this thread's grad mode, tape, ...: one thread-local lookup, not one per read
    grad_enabled = switches["grad_enabled"]
    recording = grad_enabled and op.differentiable
    records = False
    device = None
    arrays, edges = [], []   # per input: what the forward gets, where its gradient goes (None: nowhere)
    for t in inputs:
        if isinstance(t, Tensor):
            if t._view is not None and grad_enabled and t._view[2] != t._vc[0]:
                refresh_view(t)
            if t.device is not device:   # (the first Tensor, or one on another device)
                if device is not None and t.device != device:
                    raise _device_error(op, inputs)
                device = t.device
            arrays.append(t._data)
            if recording and t._requires_grad:
                edge = t._grad_fn
                if edge is None:   # a leaf: its AccumulateGrad (made on first use, then kept by weak reference)
                    edge = t._acc_ref() if t._acc_ref is not None else None
                    if edge is None:
                        edge = t._grad_accumulator()
                edges.append(edge)
                records = True
            else:
                edges.append(None)
        elif type(t) is _NDARRAY or hasattr(t, "dtype"):  # a constant (an array of any array library)
            arrays.append(t)
            edges.append(None)
        else:   # a number or list given where a Tensor goes (ag.exp(2.0))
            raise not_a_tensor(op.name, t)
    if device is None:
        return on_arrays(op, inputs, params)
    xp = _CPU_XP if device == "cpu" else xp_for(device)
    try:
        if len(arrays) == 1:
            data = op.forward(xp, arrays[0], **params) if params else op.forward(xp, arrays[0])
        else:
            data = op.forward(xp, *arrays, **params) if params else op.forward(xp, *arrays)
    except ValueError as exc:
        raise _forward_error(op, inputs, exc) from None
    if type(data) is not _NDARRAY and isinstance(data, numpy.generic):  # NumPy reductions give scalars: keep 0-d arrays
        data = numpy.asarray(data)

    out = _make(data, records, None, device)
    if op.view and (op.view is True or shares_memory(data, arrays[0])):
        out._vc = inputs[0]._vc
        out._view = _view_of(op, inputs[0], params)
    if records:
        _record(op, inputs, arrays, tuple(edges), params, out, device, switches)
    return out


def _edge(t):
    """Where the gradient of Tensor ``t`` (which requires grad) goes: its ``grad_fn``, or for a leaf its
    AccumulateGrad (made on first use, then kept by weak reference)."""
    edge = t._grad_fn
    if edge is None:
        edge = t._acc_ref() if t._acc_ref is not None else None
        if edge is None:
            edge = t._grad_accumulator()
    return edge


def apply_unary(op, a, params=None):
    """``apply(op, (a,), params)`` for a Tensor ``a`` (exp, tanh, sum, softmax, transpose, ...): the
    same steps without the loop over inputs. A view waiting to be refreshed takes :func:`apply`.
    (tests/test_fast_paths_agree.py checks that the two make the same tensor and node.)"""
    switches = state.__dict__
    grad_enabled = switches["grad_enabled"]
    if grad_enabled and a._view is not None and a._view[2] != a._vc[0]:
        return apply(op, (a,), params)
    device, x = a.device, a._data
    xp = _CPU_XP if device == "cpu" else xp_for(device)
    try:
        data = op.forward(xp, x, **params) if params else op.forward(xp, x)
    except ValueError as exc:
        raise _forward_error(op, (a,), exc) from None
    if type(data) is not _NDARRAY and isinstance(data, numpy.generic):
        data = numpy.asarray(data)
    records = grad_enabled and a._requires_grad and op.differentiable
    out = _make(data, records, None, device)
    if op.view and (op.view is True or shares_memory(data, x)):   # (a view shares a's version counter)
        out._vc = a._vc
        out._view = _view_of(op, a, params)
    if records:
        _record(op, (a,), (x,), (a._grad_fn or _edge(a),), params, out, device, switches)
    return out


def apply_one(op, a, params=None):
    """``apply(op, (a,), params)``: by :func:`apply_unary` when ``a`` is a Tensor (not a subclass, not an
    array of a VJP running on arrays)."""
    return apply_unary(op, a, params) if type(a) is Tensor else apply(op, (a,), params)


def apply_binary(op, a, b, params=None):
    """``apply(op, (a, b), params)`` for a Tensor ``a`` and a Tensor or NumPy constant ``b`` on its
    device, for an op that makes no view (every binary operator, matmul): the same steps without the
    loop over inputs. Two devices or a view waiting to be refreshed take :func:`apply`.
    (tests/test_fast_paths_agree.py checks that the two make the same tensor and node.)"""
    switches = state.__dict__
    grad_enabled = switches["grad_enabled"]
    device = a.device
    constant = type(b) is _NDARRAY
    if op.view or (b.device is not device if not constant else device != "cpu") or grad_enabled and (
            a._view is not None and a._view[2] != a._vc[0]
            or not constant and b._view is not None and b._view[2] != b._vc[0]):
        return apply(op, (a, b), params)
    x, y = a._data, (b if constant else b._data)
    xp = _CPU_XP if device == "cpu" else xp_for(device)
    try:
        data = op.forward(xp, x, y, **params) if params else op.forward(xp, x, y)
    except ValueError as exc:
        raise _forward_error(op, (a, b), exc) from None
    if type(data) is not _NDARRAY and isinstance(data, numpy.generic):
        data = numpy.asarray(data)
    if not (grad_enabled and op.differentiable):
        return _make(data, False, None, device)
    a_edge = (a._grad_fn or _edge(a)) if a._requires_grad else None   # (a call only for a leaf)
    b_edge = (b._grad_fn or _edge(b)) if not constant and b._requires_grad else None
    if a_edge is None and b_edge is None:
        return _make(data, False, None, device)
    out = _make(data, True, None, device)
    _record(op, (a, b), (x, y), (a_edge, b_edge), params, out, device, switches)
    return out


def _record(op, inputs, arrays, edges, params, out, device, switches):
    """Make ``out``'s node: where each input's gradient goes (``edges``), each input's shape and dtype
    (to fit its gradient there), and what the VJP reads back, kept only where a gradient that needs
    it is wanted. (The node is made here without a Python ``__init__`` call, one per recorded op:
    tests/test_fast_paths_agree.py checks it against ``OpNode(...)``.)"""
    data = out._data
    if len(arrays) == 2:
        a, b = arrays
        key = (data.shape, a.shape, b.shape, a.dtype, b.dtype)
    elif len(arrays) == 1:
        a = arrays[0]
        key = (data.shape, a.shape, a.dtype)
    else:
        key = (data.shape, *[a.shape for a in arrays], *[a.dtype for a in arrays])
    last = op.last_shapes   # (the op's previous key and triple: a loop records the same shapes again)
    if key == last[0]:
        meta = last[1]
    else:
        meta = _SHAPES_SEEN.get(key)
        if meta is None:
            meta = _shapes_seen(key, len(arrays))
        if data.dtype.kind == "c" or any(a.dtype.kind == "c" for a in arrays):   # (complex: its complex VJP;
            op = _for_complex(op)                                                 # never kept as last)
        else:
            op.last_shapes = (key, meta)
    out._grad_fn = node = _new(OpNode)
    node.seq = next(_node_counter)
    node.op = op
    node.edges = edges
    node.params = params
    node._input_shapes, node._input_dtypes, node._out_shape = meta
    node._out_dtype = data.dtype
    node._out_device = device
    node._out_ref = weakref.ref(out)
    node._saved = node._pre_hooks = node._post_hooks = node._tensor_pre_hooks = None
    node._retain_ref = node._traceback = node._needs = None
    node._freed = node._arrays = False
    if op.save:
        # (saved_tensors_hooks: then save_tensor packs each value, and only the general loop calls it)
        packing = switches["saved_hooks"]
        kind = None if packing else op.save_kind
        # The two commonest rules, written out: the dict the general loop below would make, without its
        # loop (tests/test_fast_paths_agree.py checks that the two agree).
        if kind is SAVES_RESULT:   # an op that keeps only its output (exp, tanh, relu, softmax, ...)
            vc = out._vc
            node._saved = {"result": (RESULT, data, vc, vc[0])}
        elif kind is SAVES_CROSSWISE:   # a * b (or a @ b): a is needed only for b's gradient, b for a's
            node._saved = saved = {}
            if edges[1] is not None:
                t = inputs[0]
                name = op.save_inputs[0][0]   # input 0's name ("self")
                if isinstance(t, Tensor):   # (save_tensor(t), inline)
                    vc = t._vc
                    saved[name] = (t, t._data, vc, vc[0])
                else:   # a constant, as it is (save_constant(t), inline)
                    saved[name] = _SHARED_CONSTANTS.get(id(t)) or save_param(t)
            if edges[0] is not None:
                t = inputs[1]
                name = op.save_inputs[1][0]   # input 1's name ("other")
                if isinstance(t, Tensor):
                    vc = t._vc
                    saved[name] = (t, t._data, vc, vc[0])
                else:
                    saved[name] = _SHARED_CONSTANTS.get(id(t)) or save_param(t)
        else:   # the general rule
            saved = {}
            for name, i, needed_by in op.save_inputs:
                if needed_by is None or edges[needed_by] is not None:
                    t = inputs[i]
                    if isinstance(t, Tensor):   # (save_tensor(t), inline unless packing)
                        vc = t._vc
                        saved[name] = save_tensor(t) if packing else (t, t._data, vc, vc[0])
                    else:   # a constant, as it is (save_constant(t), inline)
                        saved[name] = _SHARED_CONSTANTS.get(id(t)) or save_param(t)
            for name in op.save_params:
                saved[name] = save_param(params[name])
            if op.save_result and (op.save_result[0] is None or edges[op.save_result[0]] is not None):
                vc = out._vc   # (save_tensor(out, node), inline unless packing)
                saved["result"] = save_tensor(out, node) if packing else (RESULT, data, vc, vc[0])
            node._saved = saved
    if switches["anomaly"]:
        node._traceback = _forward_traceback()
    tape = switches["tape"]
    if tape is not None:  # (a constant operand is told as the constant tensor it stands for)
        tape.op_recorded(node, inputs, out)


def _for_complex(op):
    """The op whose VJP is right for complex inputs, or NotImplementedError (raised before anything is
    recorded) for an op whose complex gradient is not written yet."""
    if op.complex_op is None:
        raise NotImplementedError(
            f"{op.name}: its gradient for complex inputs is not implemented in autogradlab yet (PyTorch's "
            f"complex VJPs conjugate each local derivative, and this op's has not been checked that way). "
            f"Compute it without gradients (under no_grad), or write it with .real and .imag parts.")
    return op.complex_op


_SHAPES_SEEN: dict = {}   # (output shape, input shapes..., input dtypes...) -> what a node keeps of them


def _shapes_seen(key, n):
    """The input shapes, input dtypes and output shape of a node, as one shared triple per combination
    seen: a graph of ten thousand ``mul`` nodes on the same shapes keeps one tuple of shapes, not ten
    thousand (each tuple a node keeps is also an object the garbage collector has to visit). Cleared
    past 4,096 combinations, so a program whose shapes keep changing does not grow it without end."""
    if len(_SHAPES_SEEN) >= 4096:
        _SHAPES_SEEN.clear()
    meta = _SHAPES_SEEN[key] = (key[1:1 + n], key[1 + n:], key[0])
    return meta


_OPS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "")


def _forward_traceback():
    """Anomaly mode's record of where an op was called: the Python stack up to the caller's line,
    without the frames inside this package's ops (the operator, apply, _record: their number varies)."""
    frames = traceback.extract_stack()
    while frames and frames[-1].filename.startswith(_OPS_DIR):
        frames.pop()
    return "".join(traceback.format_list(frames))


def on_arrays(op: OpDef, arrays, params=None):
    """The op's forward on arrays, nothing recorded: what package functions do inside a VJP
    that runs on arrays."""
    first = arrays[0]
    xp = _CPU_XP if type(first) is numpy.ndarray else xp_of(first)
    return op.forward(xp, *arrays, **params) if params else op.forward(xp, *arrays)


# -- views whose base changed in place ------------------------------------------------------

#: root tensors whose layout changed in place (``unsqueeze_``, ``t_``, ...): their ``_id`` -> how many times.
#: A view remembers the count when taken; one taken before a change can't be taken again from the base.
RESHAPED = {}


def _view_of(op, source, params):
    """What a view remembers: (its base, the view ops that take it from the base, the version then, the
    base's layout count then)."""
    if source._view is None:
        return source, ((op, params),), source._vc[0], RESHAPED.get(source._id, 0) if RESHAPED else 0
    base, steps, _, layout = source._view
    return base, steps + ((op, params),), source._vc[0], layout


def view_steps(t):
    """``(base, steps)`` of view ``t``: how to take it again from its base; refused when the base changed its
    layout in place since (the steps assume the old one)."""
    base, steps, _, layout = t._view
    if RESHAPED and RESHAPED.get(base._id, 0) != layout:
        raise RuntimeError(f"this view (shape {tuple(t.shape)}) was taken from a tensor that has since changed "
                           f"its shape in place (unsqueeze_, squeeze_, t_ or transpose_; now shape "
                           f"{tuple(base.shape)}), so autograd can't follow it any more: take the view again "
                           f"after the change, or use the out-of-place op (unsqueeze, t, ...)")
    return base, steps


def refresh_view(t):
    """The memory of view ``t`` was changed in place (through its base) after ``t``'s history was
    recorded: take the view again from the base, so that ``t``'s history continues from the base's
    current one (PyTorch regenerates a view's ``grad_fn`` the same way). Nodes recorded from ``t``
    before the change keep the old history, which is right for the values they saw."""
    base, steps = view_steps(t)
    fresh, enabled = base, state.grad_enabled
    state.grad_enabled = True   # (also when backward() is called under no_grad)
    try:
        for op, params in steps:
            fresh = apply(op, (fresh,), params)
    finally:
        state.grad_enabled = enabled
    old, node = t._grad_fn, fresh._grad_fn
    if old is not None and old._retain_ref is not None:
        old._retain_ref = None
    t._grad_fn, t._requires_grad = node, fresh._requires_grad
    if node is not None:
        node._out_ref = weakref.ref(t)
        if t._retains_grad:
            node._retain_ref = weakref.ref(t)
    t._view = (base, steps, t._vc[0], t._view[3])


# tensor.py's grad_fn and requires_grad call it (tensor.py imports nothing above it)
Tensor._refresh_view = refresh_view
