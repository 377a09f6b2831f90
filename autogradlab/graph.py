"""The recorded graph: nodes, saved tensors, hooks and gradient edges.

A *node* is the backward of one op. It knows where gradients go next
(``next_functions``: one edge per input), what the op saved for its
vector-Jacobian product, and the hooks users attached. Leaves that require
grad get an :class:`AccumulateGrad` node whose job is to add into ``.grad``.

Nodes are numbered by a creation counter (``seq``), never by ``id()``: the
engine runs later-created nodes first among those ready, as PyTorch does, and
events name nodes by this number.
"""
from __future__ import annotations

import itertools
import weakref
from collections import namedtuple

import numpy

from .grad_mode import state
from .tensor import Tensor, _check_float

__all__ = ["Node", "OpNode", "declare_fields", "AccumulateGrad", "accumulate_into", "save_tensor", "save_constant",
           "save_param", "saved_array", "saved_tensor_of", "check_saved_version", "saved_nbytes", "Packed", "RESULT",
           "PARAM", "share_constant", "forget_constants", "RemovableHandle", "GradientEdge",
           "get_gradient_edge", "saved_tensors_hooks", "FREED_MESSAGE"]

_node_counter = itertools.count()
_handle_counter = itertools.count()

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)

GradientEdge = namedtuple("GradientEdge", ["node", "output_nr"])
GradientEdge.__doc__ = "Where a tensor's gradient enters the graph: a node and which of its outputs."


def get_gradient_edge(tensor) -> GradientEdge:
    """The edge of ``tensor``: its ``grad_fn`` (or its leaf accumulator) and output number 0."""
    if not tensor.requires_grad:
        raise RuntimeError("get_gradient_edge: the tensor does not require grad, so it has no gradient edge.")
    return GradientEdge(tensor.grad_fn if tensor.grad_fn is not None else tensor._grad_accumulator(), 0)



#: nodes recorded with an input that has no derivative, while that input requires grad (``zeta``'s x,
#: ``gammainc``'s a): node -> (the input's index, why). A pass that needs that input's gradient is refused
#: while it plans, before any work (PyTorch raises in the middle of the pass).
NO_DERIVATIVE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()

#: nodes whose VJP runs on arrays only: their first derivative exists, not their second (a Gamma draw's, in
#: ``rsample``): node -> why. A pass with ``create_graph=True`` that would run one is refused while it plans.
NO_SECOND_DERIVATIVE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


class RemovableHandle:
    """Returned by every ``register_*hook``; ``handle.remove()`` detaches the hook."""

    __slots__ = ("_hooks", "id")

    def __init__(self, hooks: dict):
        self.id = next(_handle_counter)
        self._hooks = hooks

    def remove(self):
        self._hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _add_hook(hooks: dict, fn) -> RemovableHandle:
    if not callable(fn):
        raise TypeError(f"a hook must be callable, got {type(fn).__name__}")
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle


class saved_tensors_hooks:
    """Context manager: ops recorded inside pass each saved tensor through ``pack``
    when saving and through ``unpack`` when the backward reads it back. What the hooks keep is theirs
    to keep right: as in PyTorch, no in-place change since is checked (a packed clone gives the old
    value, the tensor itself the new one)."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self):
        state.saved_hooks.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        state.saved_hooks.pop()
        return False


# -- what a node keeps for its backward -------------------------------------------------------
#
# Each value a node saves is a plain tuple ``(source, data, vc, version)``: most recorded ops save one
# or two, and a tuple costs about a quarter of what an object of a class of our own costs to make and
# to free (measured in benchmarks/PROFILE.md).
#
#   source   where the value came from: the input Tensor itself; RESULT, the node's own output (read
#            back through the node's weak reference to it: the output owns the node, so a strong
#            reference would make a cycle); PARAM, a value that is no tensor (an index op's indices, a
#            Python number's constant); or a Packed, what a saved_tensors_hooks pack hook returned
#   data     the array a VJP on arrays reads (the value itself for a PARAM; None when packed)
#   vc       the version counter the tensor shares with its views (a one-item list), and
#   version  its value when the tensor was saved: an in-place change since makes them differ

RESULT = "the op's output"
PARAM = "a parameter"
_NEVER_CHANGED = (0,)   # a PARAM's version counter: nothing changes it in place


class Packed:
    """A tensor kept through ``saved_tensors_hooks``: what ``pack(tensor)`` returned, given back to
    ``unpack`` when the backward reads it, the tensor's shape (for error messages), and its place in the
    graph (``edge``: its ``grad_fn``, a leaf's AccumulateGrad, RESULT for the node's own output, or None when
    it needs no gradient), which the unpacked tensor is given back, as PyTorch does: a pack hook that
    detaches (to copy or move the values) must not cut the higher-order gradients off."""

    __slots__ = ("packed", "unpack", "shape", "edge")

    def __init__(self, packed, unpack, shape, edge=None):
        self.packed, self.unpack, self.shape, self.edge = packed, unpack, shape, edge

    def __repr__(self):
        return f"<Packed {self.packed!r}>"


class Checked(int):
    """What ``utils.checkpoint``'s pack hook returns for an input of the checkpointed function: the number of
    the value its re-run in the backward reads, from the input as it is then; so an in-place change to the
    input since is checked, as for a tensor saved without hooks. (What any other pack hook returns is the
    hook's to keep right: PyTorch checks no version then, and neither does this.)"""


def save_tensor(tensor, node=None):
    """Keep ``tensor`` for a backward, with the version it has now: as it is, or when it is ``node``'s
    own output as RESULT (no strong reference), or through the innermost ``saved_tensors_hooks``
    pack hook if one is active."""
    vc = tensor._vc
    version = vc[0]
    hooks = state.saved_hooks
    if hooks:
        pack, unpack = hooks[-1]
        packed = pack(tensor)
        if type(packed) is not Checked:
            vc, version = _NEVER_CHANGED, 0
        edge = None if not tensor._requires_grad else RESULT if node is not None else (
            tensor._grad_fn or tensor._grad_accumulator())
        return (Packed(packed, unpack, tuple(tensor.shape), edge), None, vc, version)
    return (tensor if node is None else RESULT, tensor._data, vc, version)


def save_param(value):
    """Keep ``value``, no tensor, for a backward: it is released with the saved tensors, as PyTorch
    releases its saved indices and scalars, and its version check always passes."""
    return (PARAM, value, _NEVER_CHANGED, 0)


def saved_array(saved):
    """What a VJP on arrays reads back: the saved array (or parameter), or the packed tensor's array."""
    source, data, _, _ = saved
    return data if type(source) is not Packed else source.unpack(source.packed)._data


def saved_tensor_of(saved, node):
    """What a VJP on Tensors reads back (``create_graph=True``, custom Functions): the input tensor; for
    the output, the original tensor while it lives, else a new tensor over the same data with ``node``
    as its ``grad_fn`` (so higher-order gradients still flow through it); a parameter as it is; a packed
    tensor through its unpack hook."""
    source, data, _, _ = saved
    if source is RESULT:
        t = node._out_ref() if node._out_ref is not None else None
        return t if t is not None and t._data is data else Tensor._make(data, True, node)
    if source is PARAM:
        return data
    if type(source) is Packed:
        return _unpacked(source, node)
    if source._data is not data:   # (its data was replaced since: unsqueeze_, t_, ... or a `.data =`)
        change = (f"changed its shape in place (unsqueeze_, t_, ...; shape {list(data.shape)} then, "
                  f"{list(source.shape)} now)" if data.shape != source._data.shape else "had its .data replaced")
        raise RuntimeError(f"a tensor saved by {node.name()} for the backward {change} since: a backward that "
                           f"records its own graph (create_graph=True) cannot use it; use the out-of-place op "
                           f"(unsqueeze, t, ...) or assign .data after the backward")
    return source


def _unpacked(source, node):
    """The unpack hook's tensor, with the saved tensor's place in the graph when the hook's tensor lacks it."""
    t = source.unpack(source.packed)
    edge = source.edge
    if edge is None or not isinstance(t, Tensor):
        return t
    if edge is RESULT:
        edge = node
    if t._grad_fn is edge or (t._grad_fn is None and t._acc_ref is not None and t._acc_ref() is edge):
        return t   # (the hook gave the tensor back with its history)
    if type(edge) is AccumulateGrad:   # a leaf: a tensor whose gradient goes to the leaf's .grad
        leaf = Tensor._make(t._data, True, None, t.device)
        leaf._acc_ref = weakref.ref(edge)
        return leaf
    return Tensor._make(t._data, True, edge, t.device)


def check_saved_version(saved, node, name):
    """Refuse to use ``saved`` if its tensor was changed in place since it was saved."""
    source, data, vc, version = saved
    if vc[0] != version:
        shape = "x".join(map(str, data.shape if data is not None else source.shape))   # the saved tensor's
        raise RuntimeError(
            f"one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: the tensor saved as '{name}' by {node.name()} (shape [{shape}]) "
            f"is at version {vc[0]}; expected version {version} instead. "
            f"Use an out-of-place op (x = x + y instead of x += y), or clone the tensor before "
            f"modifying it."
        )


def saved_nbytes(saved) -> int:
    """The bytes ``saved`` holds (a tuple of arrays for a parameter such as an index's; 0 when packed:
    the hooks decide what is kept)."""
    data = saved[1]
    if type(data) is not tuple:
        return int(getattr(data, "nbytes", 0))
    return sum(int(getattr(p, "nbytes", 0)) for p in data)


_SHARED_CONSTANTS: dict = {}   # id of a shared read-only constant array -> its one saved value


def share_constant(array, replaces=None):
    """Register a read-only constant that many nodes may save (``elementwise.constant`` shares the
    0-d array of a Python number operand): they then share one saved value of it. The one it
    ``replaces`` is no longer shared."""
    if replaces is not None:
        _SHARED_CONSTANTS.pop(id(replaces), None)
    _SHARED_CONSTANTS[id(array)] = save_param(array)   # (it keeps the array alive: the id stays its own)


def forget_constants():
    """Stop sharing (nodes keep the saved values they hold)."""
    _SHARED_CONSTANTS.clear()


def save_constant(array):
    """Keep a constant (an array operand that is no Tensor) for a backward: its shared saved value
    when it has one, else a new one."""
    saved = _SHARED_CONSTANTS.get(id(array))
    return save_param(array) if saved is None else saved


def _saved_input(name, doc):
    """A property of Node reading the saved tensor ``name`` (what ``Node.saved_tensor`` does, in one
    call: these are read once per VJP; tests/test_fast_paths_agree.py checks that the two agree).
    Missing: AttributeError, and ``__getattr__`` explains."""
    def read(node):
        saved = node._saved
        s = saved.get(name) if saved is not None else None
        if s is None:
            raise AttributeError(name)
        source, data, vc, version = s
        if vc[0] != version:
            check_saved_version(s, node, name)
        if node._arrays:
            return data if type(source) is not Packed else saved_array(s)
        return saved_tensor_of(s, node)
    return property(read, doc=doc)


class Node:
    """The backward of one recorded op.

    ``edges[i]`` is the node that receives the gradient of input ``i`` (``None``
    when that input needs no gradient); ``next_functions`` shows the same as
    PyTorch's ``(node, 0)`` pairs. ``apply(grad)`` returns one gradient per input.
    """

    __slots__ = ("seq", "op", "edges", "params", "_saved", "_input_shapes", "_input_dtypes",
                 "_pre_hooks", "_post_hooks", "_tensor_pre_hooks", "_retain_ref", "_traceback",
                 "_freed", "_out_ref", "_out_shape", "_out_dtype", "_out_device", "_needs", "_arrays",
                 "__weakref__")

    priority = 1  # ready queue: lower priority first, then later-created (higher seq) first

    def __init__(self, op, edges, params, input_shapes, input_dtypes, out=None, device=None):
        """``out``: the tensor the op made (on ``device``), remembered by weak reference (it owns the
        node), with its shape, dtype and device for when it is gone."""
        self.seq = next(_node_counter)
        self.op = op
        self.edges = edges
        self.params = params
        self._saved = None
        self._input_shapes = input_shapes
        self._input_dtypes = input_dtypes
        self._pre_hooks = self._post_hooks = self._tensor_pre_hooks = self._retain_ref = self._traceback = None
        self._freed = self._arrays = False   # _arrays: True while its VJP runs on arrays (ctx.self gives arrays)
        self._needs = None     # needs_input_grad, made on first read
        if out is None:
            self._out_ref = self._out_shape = self._out_dtype = self._out_device = None
        else:
            data = out._data
            self._out_ref = weakref.ref(out)
            self._out_shape = data.shape
            self._out_dtype = data.dtype
            self._out_device = device

    @property
    def _out_meta(self):
        """(weak reference to the output tensor, its shape, dtype, device), or None for a leaf's node."""
        return None if self._out_ref is None else (self._out_ref, self._out_shape, self._out_dtype, self._out_device)

    # -- identity -----------------------------------------------------------
    def name(self) -> str:
        """PyTorch-style name, e.g. ``MulBackward``."""
        return self.op.node_name

    def __repr__(self):
        return f"<{self.name()}>"

    @property
    def next_functions(self):
        return tuple((edge, 0) if edge is not None else (None, 0) for edge in self.edges)

    @property
    def needs_input_grad(self):
        """Per input: does it need a gradient? (``edges[i] is not None``)"""
        needs = self._needs
        if needs is None:
            edges = self.edges
            if len(edges) == 2:   # (most ops: no list comprehension to call)
                needs = (edges[0] is not None, edges[1] is not None)
            else:
                needs = tuple([edge is not None for edge in edges])
            self._needs = needs
        return needs

    # -- introspection (public: the viz's draw(tensor) uses only these) ---------------
    @property
    def op_name(self) -> str:
        """The op's name, e.g. ``mul`` for ``MulBackward``."""
        return self.op.name

    def sequence_nr(self) -> int:
        """The creation number: later-created nodes run first among ready ones (PyTorch's rule)."""
        return self.seq

    @property
    def saved_tensor_names(self) -> tuple:
        """Names of the tensors this node keeps (or kept, once freed) for its backward."""
        return self._freed or tuple(self._saved or ())

    @property
    def freed(self) -> bool:
        """True once the saved tensors were released by a backward without ``retain_graph``."""
        return bool(self._freed)

    # -- saved tensors --------------------------------------------------------
    def saved_tensor(self, name):
        """What the op saved as ``name``: a Tensor, or its array while the VJP runs on arrays."""
        saved = self._saved
        if saved is None:
            raise RuntimeError(FREED_MESSAGE if self._freed else f"{self.name()} saved nothing")
        s = saved[name]
        if s is None:   # (a custom Function's save_for_backward(..., None, ...))
            return None
        check_saved_version(s, self, name)
        return saved_array(s) if self._arrays else saved_tensor_of(s, self)

    # the saved inputs and result most VJPs read, as properties (an op's other saved values and its
    # parameters are properties of OpNode, declared with the op)
    self = _saved_input("self", "the saved input ``self``")
    other = _saved_input("other", "the saved input ``other``")
    result = _saved_input("result", "the saved output")

    def check_runnable(self):
        """Refuse (before a pass does any work) if this node was freed or a tensor it saved was
        modified in place since."""
        if self._freed:
            raise RuntimeError(FREED_MESSAGE + f" (the freed node is {self.name()})")
        if self._saved:
            for name, saved in self._saved.items():
                if saved is not None:
                    check_saved_version(saved, self, name)

    def free_saved(self, count_bytes=False) -> int:
        """Drop the saved tensors (``retain_graph=False``); returns the bytes released if asked."""
        if not self._saved:
            return 0
        freed = 0
        if count_bytes:
            for s in self._saved.values():
                if s is not None:
                    freed += saved_nbytes(s)
        self._freed = tuple(self._saved)   # truthy: remembers what was freed
        self._saved = None
        return freed

    # -- the chain rule step ----------------------------------------------------
    def apply(self, grad):
        """One gradient per input (a sequence: the VJP's own tuple when every gradient already fits its
        input): the op's vjp, then broadcasting and dtype undone.

        ``grad`` is a Tensor when the backward is recorded (``create_graph=True``), else an
        array: an op whose VJP is written for both (``op.arrays``) then runs on arrays and
        allocates no Tensor; any other op gets its gradient wrapped, and unwrapped after.
        """
        if isinstance(grad, Tensor):
            return self._fit_to_inputs(self.op.vjp(grad, self), Tensor.sum_to_size, Tensor.to)
        op = self.op
        if not op.arrays:
            out = self._fit_to_inputs(op.vjp(Tensor._make(_as_array(grad)), self), Tensor.sum_to_size, Tensor.to)
            return [None if g is None else g._data for g in out]
        self._arrays = True
        try:
            grads = op.vjp(grad, self)
        finally:
            self._arrays = False
        out = grads   # copied into a list only if a gradient must change (by index: no tuple per input)
        edges, shapes, dtypes = self.edges, self._input_shapes, self._input_dtypes
        for i in range(len(grads)):
            g = grads[i]
            if g is not None:
                if edges[i] is None:
                    fitted = None
                else:
                    fitted = g if g.shape == shapes[i] else sum_to(g, shapes[i])
                    dtype = dtypes[i]
                    if fitted.dtype is not dtype and fitted.dtype != dtype:
                        if fitted.dtype.kind == "c" and dtype.kind != "c":   # a real input: the real part
                            fitted = fitted.real                             # (PyTorch's rule)
                        fitted = fitted.astype(dtype)
                if fitted is not g:
                    if out is grads:
                        out = list(grads)
                    out[i] = fitted
        return out

    def made_new(self, gi, g, grads_in) -> bool:
        """Did this node's VJP make ``gi`` as a new array that nothing else holds, so that a leaf
        may take it as ``.grad`` without a copy? Yes for one of our own ops' VJPs on arrays with no
        hooks around it, unless ``gi`` is the gradient it received passed on, a view, or sent twice."""
        return (self.op.arrays and gi is not g and getattr(gi, "base", gi) is None
                and not self._pre_hooks and not self._post_hooks and sum(x is gi for x in grads_in) == 1)

    def _fit_to_inputs(self, grads, sum_to_shape, cast):
        """Each input's gradient summed back to the input's shape (undoing broadcasting) and cast to
        its dtype; None where the input takes no gradient. (``apply`` does the same inline for arrays, a
        call less per node; tests/test_fast_paths_agree.py checks that the two agree.)"""
        out = []
        for g, shape, dtype, edge in zip(grads, self._input_shapes, self._input_dtypes, self.edges):
            if g is None or edge is None:
                out.append(None)
                continue
            data = g._data   # (its shape and dtype read off the array: no Tensor property to call)
            if data.shape != shape:
                g = sum_to_shape(g, shape)
                data = g._data
            if data.dtype != dtype:
                if data.dtype.kind == "c" and dtype.kind != "c":   # a real input: the real part, as above
                    g = g.real
                g = cast(g, dtype)
            out.append(g)
        return out

    # -- hooks -----------------------------------------------------------------
    def register_prehook(self, fn) -> RemovableHandle:
        """``fn(grad_outputs) -> new grad_outputs or None`` runs before this node."""
        if self._pre_hooks is None:
            self._pre_hooks = {}
        return _add_hook(self._pre_hooks, fn)

    def register_hook(self, fn) -> RemovableHandle:
        """``fn(grad_inputs, grad_outputs) -> new grad_inputs or None`` runs after this node."""
        if self._post_hooks is None:
            self._post_hooks = {}
        return _add_hook(self._post_hooks, fn)

    def _register_tensor_hook(self, fn) -> RemovableHandle:
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = {}
        return _add_hook(self._tensor_pre_hooks, fn)


class OpNode(Node):
    """The node of one of this package's ops (``registry.apply`` makes it). Its op's parameters and
    saved values read as attributes: ``ctx.dims`` or ``ctx.keepdim`` in a VJP, ``grad_fn._saved_self``
    as in PyTorch. Each is a property, added by :func:`declare_fields` when the op is declared.

    (A ``__getattr__`` would do it in one place, but Python 3.11 then reads *every* attribute of every
    node the slow way, even ``node.edges`` in the engine's loop: that cost 17% of a backward node.)
    """

    __slots__ = ()


def _field(name, attr):
    """The property ``OpNode.<attr>``: the op's saved value ``name`` (a Tensor, or its array while the
    VJP runs on arrays), else its parameter ``name``."""
    def read(node):
        saved = node._saved
        if saved is not None and name in saved:
            return node.saved_tensor(name)
        params = node.params
        if params and name in params:
            return params[name]
        if name in node.op.save and node._freed:
            raise RuntimeError(FREED_MESSAGE)
        raise AttributeError(f"{node.name()} has no saved tensor or parameter {attr!r}")
    return property(read, doc=f"the op's saved value or parameter {name!r}")


def declare_fields(names):
    """Make each op parameter or saved value in ``names`` readable on OpNode, as ``node.<name>`` and
    ``node._saved_<name>`` (once per name: ops share them). A name that would hide one of Node's own
    attributes is refused."""
    for name in names:
        for attr in (name, "_saved_" + name):
            current = getattr(OpNode, attr, None)
            if getattr(current, "fget", None) is not None and getattr(current.fget, "declared", False):
                continue   # declared by an earlier op
            if current is not None and attr not in ("self", "other", "result"):
                raise ValueError(f"an op's parameter or saved value {name!r} would hide Node.{attr}: rename it")
            if attr in ("self", "other", "result"):
                continue   # Node's own fast readers (_saved_input) serve them
            prop = _field(name, attr)
            prop.fget.declared = True
            setattr(OpNode, attr, prop)


def sum_to(a, shape):
    """Sum the broadcast axes of array ``a`` away so that it has ``shape`` (the unbroadcast rule).
    The common case (only leading axes, e.g. a bias) is one reduction giving a new array, not a view."""
    have = a.shape
    lead = len(have) - len(shape)
    if lead > 0 and have[lead:] == shape:   # (the common case: leading axes only)
        return _sum_axes(a, tuple(range(lead)), False)
    kept = tuple([i + lead for i, n in enumerate(shape) if n == 1 and have[i + lead] != 1])
    if kept:
        a = _sum_axes(a, kept, True)
    if lead > 0:
        a = _sum_axes(a, tuple(range(lead)), False)
    return a if a.shape == shape else a.reshape(shape)


def _sum_axes(a, axes, keepdims):
    # (ndarray.sum is numpy.add.reduce behind a Python wrapper: called directly, one call less)
    if type(a) is numpy.ndarray:
        return _as_array(numpy.add.reduce(a, axes, None, None, keepdims))
    return a.sum(axis=axes, keepdims=keepdims)


def _as_array(g):
    """NumPy gives scalars for 0-d results; Tensors always hold arrays."""
    return numpy.asarray(g) if isinstance(g, numpy.generic) else g


def as_grad_tensor(g, device=None):
    """A gradient that travels as an array, as a Tensor (for ``.grad``, hooks and ``grad()`` results)."""
    return Tensor._make(_as_array(g), False, None, device)


def accumulate_into(tensor, g, owned=False):
    """``tensor.grad += g``: what the engine does at a leaf, a retained tensor or an ``inputs=``
    tensor. The first gradient becomes ``.grad``: copied, unless ``owned`` (a sum the engine made,
    or a new array from a VJP: ``Node.made_new``), as PyTorch steals such buffers; ``.grad``
    never aliases a seed, a user's tensor or another ``.grad``."""
    old = tensor._grad
    if isinstance(g, Tensor):  # create_graph: out of place, so the sum is recorded
        tensor._grad = g.clone() if old is None else old + g
    elif old is None:
        tensor._grad = as_grad_tensor(g if owned else g.copy(), tensor.device)
    elif tensor.grad_fn is not None:  # a retained non-leaf: out of place, as PyTorch
        tensor._grad = as_grad_tensor(old._data + g, tensor.device)
    else:
        old._data += g  # in place, as PyTorch does: references to .grad see the update
        old._vc[0] += 1


class _AccumulateOp:
    name = "accumulate_grad"
    node_name = "AccumulateGrad"
    save = ()
    arrays = True


class AccumulateGrad(Node):
    """The node of a leaf that requires grad: the engine adds what reaches it into ``variable.grad``.

    It outranks every op node in the ready queue (``priority`` 0), so a leaf
    accumulates as soon as its gradient is complete (PyTorch does the same).
    """

    __slots__ = ("variable", "_created")
    priority = 0

    def __init__(self, variable):
        super().__init__(_AccumulateOp, (), None, (variable.shape,), (variable.dtype,))
        self.variable = variable
        # Leaves ready at once tie in the ready queue, as in PyTorch (which gives every AccumulateGrad
        # the same sequence number): one seq for all, and the heap itself decides which runs first.
        self._created, self.seq = self.seq, 0

    def __lt__(self, other):   # (the queue compares two tied leaves themselves: neither comes first)
        return False

    def sequence_nr(self) -> int:
        """When it was made (its ``seq`` is every leaf's 0, for the ready queue's tie)."""
        return self._created

    def __repr__(self):
        v = self.variable
        return f"<AccumulateGrad of {v.name or 'a leaf'} {tuple(v.shape)}>"


# ---------------------------------------------------------------------------------------
# The autograd methods of Tensor (attached here, so tensor.py needs no import of this module)
# ---------------------------------------------------------------------------------------

def retain_grad(self):
    """Keep ``.grad`` for this non-leaf tensor during backward (no-op on leaves)."""
    if not self._requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if self.grad_fn is not None and not self._retains_grad:
        self.grad_fn._retain_ref = weakref.ref(self)
    self._retains_grad = self.grad_fn is not None or self._retains_grad


def register_hook(self, hook) -> RemovableHandle:
    """``hook(grad) -> new grad or None`` runs when this tensor's gradient is computed."""
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self.grad_fn is not None:
        return self.grad_fn._register_tensor_hook(hook)
    if self._hooks is None:
        self._hooks = {}
    return _add_hook(self._hooks, hook)


def register_post_accumulate_grad_hook(self, hook) -> RemovableHandle:
    """``hook(tensor)`` runs after the gradient was accumulated into this leaf's ``.grad``."""
    if self.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self._post_acc_hooks is None:
        self._post_acc_hooks = {}
    return _add_hook(self._post_acc_hooks, hook)


def grad_accumulator(self) -> AccumulateGrad:
    """The leaf's AccumulateGrad node, made on first use and shared while the graph lives."""
    node = self._acc_ref() if self._acc_ref is not None else None
    if node is None:
        node = AccumulateGrad(self)
        self._acc_ref = weakref.ref(node)
    return node


def set_data(self, value):
    """``x.data = y``: ``x`` takes ``y``'s memory (its shape and dtype too), keeping its own history. A view
    given memory of its own is no view any more; a trace sees ``x`` as a tensor of its own from here on."""
    if not isinstance(value, Tensor):
        raise TypeError(f"x.data = ... takes a tensor (as in PyTorch), got {type(value).__name__}: "
                        f"wrap it first, x.data = autogradlab.as_tensor(value)")
    if value._data is self._data:   # (w.data -= ...: written in place through .data, then assigned back)
        return
    if self._requires_grad:
        _check_float(value.dtype, "data set to a tensor that requires gradients must be floating point "
                                  "(as in PyTorch)")
    self._data, self.device, self._view = value._data, value.device, None
    if state.tape is not None:
        state.tape.tensor_replaced(self)


Tensor.data = property(Tensor.data.fget, set_data, doc=Tensor.data.__doc__)
Tensor.retain_grad = retain_grad
Tensor.register_hook = register_hook
Tensor.register_post_accumulate_grad_hook = register_post_accumulate_grad_hook
Tensor._grad_accumulator = grad_accumulator
