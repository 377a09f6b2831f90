"""The tape: the events of one ``trace()``, with the tape-local ids and names. The engine calls
its methods (only while the tape is active); readers use ``table``, ``replay`` and the JSON form."""
from __future__ import annotations

import functools
import json
import linecache
import os
import sys
import sysconfig

import numpy

from ..grad_mode import state
from ..graph import AccumulateGrad
from ..tensor import Tensor
from . import records
from .jsonio import _decode_event, _refs_of, encode_events
from .records import (MAX_ELEMENTS, Accumulated, BackwardFinished, BackwardPlan, BackwardStarted,
                      GradientComputed, HookRan, NodePruned, NodeStarted, OpRecorded, PlannedNode, SavedFreed,
                      Seeded, SourceLine, TensorRef, Value, _dtype_name)
from .replay import ReplayState, replay
from .text import _row

_LETTERS = "abcdefgh"
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # .../autogradlab/
# Keyed by id(code object), not by the code object: its hash is recomputed from its constants and
# names at every lookup. Each entry holds its code object, so no other one can take that id meanwhile.
_INSIDE: dict = {}   # id(code) -> (code, whether it is autogradlab's own: a source line is never there)
_SOURCES: dict = {}  # working directory -> {(id(code), instruction offset): (code, SourceLine)}


@functools.lru_cache(maxsize=1)
def _library_dirs() -> tuple:
    """Where Python's own library and installed packages live: frames there (IPython's, pytest's) are
    not the user's, and an anomaly-mode traceback leaves them out."""
    paths = sysconfig.get_paths()
    dirs = {os.path.abspath(paths[k]) + os.sep for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths}
    return tuple(sorted(dirs))


@functools.lru_cache(maxsize=None)
def _formula(op, i):
    expr = op.math.split(";")[0].strip() if op.math else op.name
    local = op.formulas[i] if i < len(op.formulas) else ""
    var = _LETTERS[i] if len(op.formulas) > 1 else "a"
    return f"d({expr})/d{var} = {local}" if local else ""


_FORMULAS: dict = {}
_SAVED_NAMES: dict = {}   # the names a node saves, as a tuple, shared by the ops that save the same ones
COPY_ELEMENTS = 1 << 16   # values up to this size are copied when recorded, larger ones summarised at once


def _formulas(op, n):
    """Every input's formula of ``op`` with ``n`` inputs (cached per op)."""
    key = (op, n)
    hit = _FORMULAS.get(key)
    if hit is None:
        hit = _FORMULAS[key] = tuple(_formula(op, i) for i in range(n))
    return hit


class _Pending:
    """An array a backward pass moves, held (not copied) until the pass ends; then, if anything
    besides the tape could still write to it, a copy takes its place. ``value`` is its Value once
    built."""
    __slots__ = ("array", "value")

    def __init__(self, array):
        self.array, self.value = array, None


def _refcount_of_a_held_array() -> int:
    """``sys.getrefcount`` of an array only a :class:`_Pending` holds, read as ``_keep_pending`` reads
    it (the handle, the local name, the call's argument: 3 on CPython 3.10-3.13; measured, not assumed)."""
    pending = _Pending(numpy.empty(1))
    a = pending.array
    return sys.getrefcount(a)


class _Held:
    """What :meth:`Tape.snapshot_grad` returns (an Accumulated event's ``before``)."""
    __slots__ = ("held",)

    def __init__(self, held):
        self.held = held


# -- Building events from the pending records: ``builder(val, ref, step, *fields)``; ``val`` turns a
# held copy into its Value, ``ref`` a tape-local tensor id into its TensorRef.

def _build_op(val, ref, step, n, nid, op, node_name, out, saved, formulas, value, source, traceback, *ins):
    # (``ins``: the ``n`` inputs' ids, then their held values: flat, no tuples per op while recording)
    return OpRecorded(step, nid, op, node_name, tuple([ref(i) for i in ins[:n]]), ref(out), saved, formulas,
                      val(value), tuple([val(v) for v in ins[n:]]), source, traceback)


def _build_started(val, ref, step, pass_index, api, roots, retain_graph, create_graph, inputs, plan):
    if plan is not None:
        plan_roots, plan_inputs, flat = plan
        nodes, i, end = [], 0, len(flat)
        while i < end:   # (flat: id, name, op, output, dependencies, status, the number of edges, the edges)
            nid, name, op, out, deps, status, n = flat[i:i + 7]
            nodes.append(PlannedNode(nid, name, op, ref(out), tuple(flat[i + 7:i + 7 + n]), deps, status))
            i += 7 + n
        plan = BackwardPlan(plan_roots, plan_inputs, tuple(nodes))
    return BackwardStarted(step, pass_index, api, tuple([ref(r) for r in roots]), retain_graph, create_graph,
                           None if inputs is None else tuple([ref(r) for r in inputs]), plan)


def _build_seeded(val, ref, step, i, tensor, nid, seed, implicit):
    return Seeded(step, i, ref(tensor), nid, val(seed), implicit)


def _build_pruned(val, ref, step, nid, name, out):
    return NodePruned(step, nid, name, ref(out))


def _build_freed(val, ref, step, nid, name, names, nbytes):
    return SavedFreed(step, nid, name, names, nbytes)


def _build_hook(val, ref, step, hook, nid, changed, before, after):
    return HookRan(step, hook, nid, changed, before, after)


def _build_finished(val, ref, step, pass_index, nodes_run, contributions, bytes_freed):
    return BackwardFinished(step, pass_index, nodes_run, contributions, bytes_freed)


def _build_node_started(val, ref, step, nid, name, out, g):
    return NodeStarted(step, nid, name, ref(out), val(g))


def _build_gradient(val, ref, step, nid, name, i, to, out, upstream, formula, contribution):
    return GradientComputed(step, nid, name, i, to, ref(out), val(upstream), formula, val(contribution))


def _build_accumulated(val, ref, step, where, nid, tensor, before, contribution, after):
    return Accumulated(step, where, nid, None if tensor is None else ref(tensor), val(before), val(contribution),
                       val(after))


_ONLY_THE_HANDLE = _refcount_of_a_held_array()

#: builder -> how many fields it takes after ``step`` (pending events lie flat in one list)
_ARITY = {b: b.__code__.co_argcount - 3 for b in (
    _build_op, _build_started, _build_seeded, _build_pruned, _build_node_started, _build_gradient,
    _build_accumulated, _build_freed, _build_hook, _build_finished)}


def _same_values(before, after) -> bool:
    """Whether two tuples of Values (or None) hold the same numbers (NaN equal to NaN); for a summarised
    Value (a large array), the same summary (min, max, norm)."""
    def same(x):
        return "nan" if x != x else x

    def key(v):
        if v is None:
            return v
        numbers = v.data if v.data is not None else (v.min, v.max, v.norm)
        return (v.shape, v.dtype, tuple(same(x) for x in numbers))
    return len(before) == len(after) and all(key(a) == key(b) for a, b in zip(before, after))


class Tape:
    """The events of one ``trace()``: a list plus the tape-local ids and names.

    Recording is lazy: while the engine runs, the tape hands out ids and names (in order of first
    appearance, exactly as they read later) and notes each event's fields in one flat list, with a
    private copy of every array a Value will show (a copy is one memcpy on the array's device; a Value
    needs a host transfer and a list of floats or a summary). A gradient the pass moves is not even
    copied unless something besides the tape still holds it when the pass ends (or when a hook is
    about to run). Events, their Values and TensorRefs are built the first time the tape is read
    (``events``, iteration, ``table()``, ``to_json()``, the player). So each value shown is as it was at
    its step, whatever happens to the tensor later (an in-place op, an optimizer step); past
    ``PENDING_BYTES`` of arrays held, the tape builds what it has and lets go of them."""

    PENDING_BYTES = 64 << 20   # bytes of copies held before the pending events are built
    stepping = False           # autogradlab.steps() sets it: the engine then yields every event

    def __init__(self, max_elements: int = MAX_ELEMENTS, stats: bool = False):
        self._events: list = []        # built events
        self._raw: list = []           # pending events, flat: builder, its fields, next builder, ...
        self._n = 0                    # events recorded (built or pending)
        self._pending_bytes = 0
        self.max_elements = max_elements
        self.stats = bool(stats)       # arrays too large for a table get Stats (mean, std, NaN/inf, histogram)
        self._tensor_ids: dict = {}    # global creation number -> tape-local id
        self._tensor_refs: dict = {}   # tape-local id -> TensorRef (or the tuple of its fields, until read)
        self._node_ids: dict = {}      # node seq -> tape-local id
        self._node_output: dict = {}   # tape-local node id -> tape-local id of its output tensor
        self._leaves = self._computed = 0
        self._passes = 0
        self._pass_counts = [0, 0, 0]  # nodes run, contributions, bytes freed
        self._pass_nodes: dict = {}    # node -> node id, for the pass in progress
        self._values: dict = {}        # (tensor creation number, version) -> copy of its data (or its Value)
        self._pass_arrays: dict = {}   # id(array) -> _Pending, for the pass in progress
        self._added_into: dict = {}    # id(a .grad's array the pass moved) -> (it, its _Pending, holding a copy)
        # (id(code), instruction offset) -> (code, SourceLine), shared by the tapes made in one working directory (a
        # SourceLine's file is relative to it), so a loop's line, or a training step's, is read once
        self._sources: dict = _SOURCES.setdefault(os.getcwd(), {})
        if len(self._sources) > 100_000:
            self._sources.clear()

    @property
    def events(self) -> list:
        """The events, in step order (pending ones are built first)."""
        if self._raw:
            self._build()
        return self._events

    # -- ids, names and snapshots --------------------------------------------------------
    def _emit(self, builder, *fields):
        """Record one event (built later by ``builder``); returns its step. (One flat list, no tuple
        per event: fewer objects for the garbage collector to visit while a long pass is traced.)"""
        step = self._n
        self._n = step + 1
        raw = self._raw
        raw.append(builder)
        raw.extend(fields)
        return step

    def _hold(self, tensor_or_array):
        """What a Value will show, kept cheaply until the tape is read.

        A tensor (a forward value, a leaf's ``.grad``) may be written in place later: it is copied
        (or summarised, if large); seen again at the same version in this tape, it is kept once.
        An array that a backward pass moves (a gradient) is held as it is: the engine writes to
        one in place before its pass ends only when it is a leaf's ``.grad`` that the pass adds into
        (a seed that is that ``.grad``), and :meth:`snapshot_grad`, which runs before every such add,
        copies it first; ``backward_finished`` copies the ones that anything else still holds. One
        seen again in the pass is held once (``_pass_arrays`` keeps them alive, so their ids stay
        theirs)."""
        if type(tensor_or_array) is numpy.ndarray:   # (the common case first: a gradient on the CPU)
            hit = self._pass_arrays.get(id(tensor_or_array))
            if hit is None or hit.array is not tensor_or_array:
                added = self._added_into.get(id(tensor_or_array)) if self._added_into else None
                if added is not None and added[0] is tensor_or_array:   # (the seed that was this .grad, held
                    return added[1]                                     # again after its add: as it came in)
                hit = self._pass_arrays[id(tensor_or_array)] = _Pending(tensor_or_array)
                self._pending_bytes += tensor_or_array.nbytes
            return hit
        if hasattr(tensor_or_array, "_vc"):
            key = (tensor_or_array._id, tensor_or_array._vc[0])
            hit = self._values.get(key)
            if hit is None:
                if len(self._values) > 4096:
                    self._values.clear()
                data = tensor_or_array._data
                pending = self._pass_arrays.get(id(data)) if self._pass_arrays else None
                if pending is not None and pending.array is data:   # a .grad that is a gradient the
                    hit = pending                                    # pass holds: one Value for both
                else:
                    hit = self._keep(data)
                self._values[key] = hit
            return hit
        hit = self._pass_arrays.get(id(tensor_or_array))   # an array of another device
        if hit is None or hit.array is not tensor_or_array:
            hit = self._pass_arrays[id(tensor_or_array)] = _Pending(tensor_or_array)
            self._pending_bytes += tensor_or_array.nbytes
        return hit

    def _keep(self, array):
        """A copy of an array, its Value made when the tape is read (a memcpy is cheaper than the
        Value's list of floats or summary); an array over ``COPY_ELEMENTS`` is summarised now instead
        (copies that large cost more than the summary once the allocator has to find fresh memory
        for them every step, and would keep megabytes per step alive). Copies held are bounded by
        ``PENDING_BYTES``."""
        if array.size > COPY_ELEMENTS:
            return records.snapshot(array, self.max_elements, self.stats)
        copy = array.copy()
        self._pending_bytes += copy.nbytes
        return copy

    def _end_pass(self):
        """The pass is over: from now on anyone may write to the arrays it moved. Those only the tape
        still holds stay as they are; the others are copied now."""
        self._keep_pending()
        self._pass_arrays = {}
        self._added_into = {}
        self._pass_nodes = {}

    def _keep_pending(self):
        """Keep now (a copy, or a summary if large) every array the pass holds that anything besides
        the tape could write to (at the pass's end, and before a hook runs: a hook may change a
        gradient in place)."""
        getrefcount, ndarray = sys.getrefcount, numpy.ndarray
        for pending in self._pass_arrays.values():
            if pending.value is not None:
                pending.array = None
                continue
            a = pending.array
            if type(a) is Value:   # (summarised already)
                continue
            # only the handle holds it (a view of `a` would hold one more reference)
            if type(a) is ndarray and a.base is None and getrefcount(a) == _ONLY_THE_HANDLE:
                continue
            pending.array = self._keep(a)

    def value(self, tensor_or_array) -> Value:
        """A :class:`Value` of a tensor (at its current version) or of an array, now."""
        held = self._hold(tensor_or_array)
        if type(held) is _Pending:
            held = held.value or held.array
        return held if type(held) is Value else records.snapshot(held, self.max_elements, self.stats)

    def _build(self):
        """Turn the pending records into events: each array held becomes a Value once (one held for
        several events gives them one Value), then the tape lets go of the arrays."""
        memo, limit, stats = {}, self.max_elements, self.stats

        def val(a):
            if a is None or type(a) is Value:
                return a
            if type(a) is _Pending:
                v = a.value
                if v is None:
                    held = a.array
                    v = a.value = held if type(held) is Value else records.snapshot(held, limit, stats)
                return v
            v = memo.get(id(a))
            if v is None:
                v = memo[id(a)] = records.snapshot(a, limit, stats)
            return v

        raw, self._raw = self._raw, []
        events, ref, i, end = self._events, self._ref, 0, len(raw)
        while i < end:
            builder = raw[i]
            k = _ARITY[builder]
            if builder is _build_op:   # its field count depends on its number of inputs (the next field)
                k += 2 * raw[i + 1]
            events.append(builder(val, ref, len(events), *raw[i + 1:i + 1 + k]))
            i += 1 + k
        for key, held in self._values.items():   # later events of the same tensor version reuse the Value
            if type(held) is not Value:
                self._values[key] = val(held)
        self._pending_bytes = 0

    def tensor_became(self, t, result):
        """An in-place op made ``t`` its ``result`` (``add_``'s sum, ``unsqueeze_``'s view): from here on the tape
        sees ``t`` as that op's output (or, if the op was not recorded, as a tensor of its own), value and all."""
        self.tensor_replaced(t)
        if result._id in self._tensor_ids:
            self._tensor_ids[t._id] = self._tensor_ids[result._id]

    def tensor_aliased(self, alias, t):
        """``alias`` stands for ``t`` as it is now (an in-place op records on a snapshot of ``t``'s old value): it
        takes ``t``'s id, so the op's input is the tensor the forward had."""
        self._tensor_ids[alias._id] = self._tid(t)

    def tensor_replaced(self, t):
        """``t.data = ...`` gave ``t`` other memory: from here on the tape sees it as a tensor of its own."""
        self._tensor_ids.pop(t._id, None)
        for key in [key for key in self._values if key[0] == t._id]:
            del self._values[key]

    def _tid(self, t) -> int:
        """A tensor's tape-local id; the first time, its name too (``name=``, else ``x0, x1, ...`` for
        leaves and ``t0, t1, ...`` for computed tensors) and the fields of its TensorRef."""
        local = self._tensor_ids.get(t._id)
        if local is None:
            local = self._tensor_ids[t._id] = len(self._tensor_ids)
            leaf = t._grad_fn is None
            if t.name:
                name = t.name
            elif leaf:
                name, self._leaves = f"x{self._leaves}", self._leaves + 1
            else:
                name, self._computed = f"t{self._computed}", self._computed + 1
            data = t._data
            self._tensor_refs[local] = (local, name, data.shape, data.dtype, t.device, leaf, t._requires_grad)
        return local

    def _constant(self, array, device) -> int:
        """The id of a constant operand an op got as an array (a Python number, made no Tensor): named
        and described exactly as the constant Tensor it stands for would be."""
        local = len(self._tensor_ids)
        self._tensor_ids[("constant", local)] = local
        name, self._leaves = f"x{self._leaves}", self._leaves + 1
        self._tensor_refs[local] = (local, name, array.shape, array.dtype, device, True, False)
        return local

    def _ref(self, local) -> TensorRef:
        ref = self._tensor_refs[local]
        if type(ref) is tuple:
            local, name, shape, dtype, device, leaf, requires_grad = ref
            ref = self._tensor_refs[local] = TensorRef(local, name, tuple(shape), _dtype_name(dtype), str(device),
                                                       leaf, bool(requires_grad))   # (a plain str, for the viz)
        return ref

    def tensor_ref(self, t) -> TensorRef:
        return self._ref(self._tid(t))

    def node_id(self, node) -> int:
        """Tape-local id; a leaf's AccumulateGrad keeps one id across passes (it is keyed by its
        leaf, since the engine makes a new accumulator once the old graph is gone)."""
        key = node.seq if node.priority else ("leaf", node.variable._id)
        local = self._node_ids.get(key)
        if local is None:
            local = self._node_ids[key] = len(self._node_ids)
        return local

    def _out_id(self, node) -> int:
        """The tape-local id of the tensor a node produced (for AccumulateGrad: its leaf)."""
        nid = self.node_id(node)
        local = self._node_output.get(nid)
        if local is None:
            if isinstance(node, AccumulateGrad):
                local = self._tid(node.variable)
            else:
                out_ref, shape, dtype, device = node._out_meta
                live = out_ref()
                if live is not None:
                    local = self._tid(live)
                else:  # the tensor is gone (a temporary): name it from what its node remembers
                    local = len(self._tensor_ids)
                    self._tensor_ids[("node", node.seq)] = local
                    name, self._computed = f"t{self._computed}", self._computed + 1
                    self._tensor_refs[local] = (local, name, shape, dtype, device, False, True)
            self._node_output[nid] = local
        return local

    def _output_of(self, node) -> TensorRef:
        """The TensorRef of the tensor a node produced (for AccumulateGrad: its leaf)."""
        return self._ref(self._out_id(node))

    def _tid_of(self, t) -> int:
        """A tensor's id; for a GradientEdge, the id of the tensor its node produces."""
        return self._tid(t) if hasattr(t, "_id") else self._out_id(t.node)

    def _node(self, node) -> int:
        """The id of a node of the pass in progress; its output tensor's id is then in ``_node_output``
        (and its name is ``node.op.node_name``)."""
        nid = self._pass_nodes.get(node)
        if nid is None:   # (node_id, inline: the plan asks this for every node of a pass)
            ids = self._node_ids
            key = node.seq if node.priority else ("leaf", node.variable._id)
            nid = ids.get(key)
            if nid is None:
                nid = ids[key] = len(ids)
            if nid not in self._node_output:
                self._out_id(node)
            self._pass_nodes[node] = nid
        return nid

    def snapshot_grad(self, t):
        """What ``t.grad`` holds now (kept for an Accumulated event's ``before``), or None. It runs
        right before ``accumulate_into``, which may add into ``t.grad``'s array in place: if the
        pass holds that array uncopied (the seed was this ``.grad``), it is copied first."""
        grad = t._grad
        if grad is None:
            return None
        # the pass's own hold of that array first: an earlier pass of this tape may have held the same .grad
        # (same id and version), and that entry, copied when its pass ended, is not the one this pass moves
        moving = self._pass_arrays.get(id(grad._data)) if self._pass_arrays else None
        if moving is not None and moving.array is grad._data and moving.value is None:
            moving.array = self._keep(grad._data)
            self._added_into[id(grad._data)] = (grad._data, moving)
        return _Held(self._hold(grad))

    def source_line(self):
        """The user's line that is running: the first frame outside the autogradlab package (a
        ``sys._getframe`` walk, knowing each code object's place once; the line's text is read once
        per code object and line). Its file is kept without the machine's path
        (:meth:`SourceLine.portable`: ``<cell>``, relative to the current directory, or the base name),
        so a saved tape names no home directory."""
        # Frame 1 is op_recorded, frame 2 its caller, always the package's own (registry.apply,
        # elementwise, function.py): the walk starts above them, one frame object fewer to make.
        f = sys._getframe(3)
        while f is not None:
            code = f.f_code
            known = _INSIDE.get(id(code))
            if known is None or known[0] is not code:
                known = _INSIDE[id(code)] = (code, code.co_filename.startswith(_PACKAGE_DIR))
            if not known[1]:
                break
            f = f.f_back
        if f is None:
            return None
        key = (id(code), f.f_lasti)   # (the instruction: cheaper to read than its line number)
        known = self._sources.get(key)
        if known is not None and known[0] is code:
            return known[1]
        file, line = code.co_filename, f.f_lineno
        src = SourceLine(file, line, linecache.getline(file, line, f.f_globals).strip()).portable()
        self._sources[key] = (code, src)
        return src

    def forward_traceback(self) -> tuple:
        """Anomaly mode's forward traceback, as the user's frames (outside autogradlab and outside
        Python's library, its frozen modules and installed packages), outermost first, each a
        :class:`SourceLine` with its function."""
        frames = []
        f = sys._getframe(1)
        lib = _library_dirs()
        while f is not None:
            file = f.f_code.co_filename
            if not file.startswith((_PACKAGE_DIR, "<frozen ")) and not file.startswith(lib):
                key = ("tb", f.f_code, f.f_lineno)
                src = self._sources.get(key)
                if src is None:
                    src = self._sources[key] = SourceLine(
                        file, f.f_lineno, linecache.getline(file, f.f_lineno, f.f_globals).strip(),
                        f.f_code.co_name).portable()
                frames.append(src)
            f = f.f_back
        return tuple(reversed(frames))

    # -- the engine's calls (each records one event and returns its step) ----------------------
    def op_recorded(self, node, inputs, out):
        ids, values = self._tensor_ids, self._values
        ins, leaf_values = [], []
        for t in inputs:
            if type(t) is not Tensor and not isinstance(t, Tensor):   # a constant operand, given as an array
                ins.append(self._constant(t, out.device))
                # (a 0-d one is a Python number's, made for this op alone: nothing writes to it, no copy)
                leaf_values.append(t if t.ndim == 0 else self._keep(t))
                continue
            local = ids.get(t._id)
            ins.append(self._tid(t) if local is None else local)
            if t._grad_fn is None:   # a leaf or a constant: its value now (kept once per version)
                held = values.get((t._id, t._vc[0]))
                leaf_values.append(self._hold(t) if held is None else held)
            else:                   # computed: its value is in its own OpRecorded
                leaf_values.append(None)
        # the output and its node are new: their ids and names are handed out here (``_tid`` and
        # ``node_id``, inline: this runs for every op of a traced forward)
        data = out._data
        if out._id in ids:   # (a custom Function may return a tensor the tape has seen)
            out_id = self._tid(out)
        else:
            out_id = ids[out._id] = len(ids)
            if out.name:
                name = out.name
            else:
                name, self._computed = f"t{self._computed}", self._computed + 1
            self._tensor_refs[out_id] = (out_id, name, data.shape, data.dtype, out.device, False, out._requires_grad)
        node_ids = self._node_ids
        nid = node_ids.get(node.seq)
        if nid is None:
            nid = node_ids[node.seq] = len(node_ids)
        self._node_output[nid] = out_id
        if data.size > COPY_ELEMENTS:   # (``_keep``, inline: a new tensor has no earlier copy to look up)
            value = records.snapshot(data, self.max_elements, self.stats)
        else:
            value = data.copy()
            self._pending_bytes += value.nbytes
        source = self.source_line()
        op = node.op
        step = self._n
        self._n = step + 1
        saved = node._saved
        if saved:   # (one tuple per distinct list of names, not one per op)
            saved = tuple(saved)
            saved = _SAVED_NAMES.setdefault(saved, saved)
        raw = self._raw
        raw += (_build_op, len(ins), nid, op.name, op.node_name, out_id, saved or (),
                _formulas(op, len(ins)) if op.formulas else (), value, source,
                self.forward_traceback() if state.anomaly else None)
        raw += ins
        raw += leaf_values
        if self._pending_bytes > self.PENDING_BYTES:
            self._build()
        return step

    def backward_started(self, roots, retain_graph, create_graph, inputs, is_grad, plan=None):
        """``plan``: the engine's plan (``root_nodes``, ``input_nodes``, ``order``, ``pruned``,
        ``deps``, ``runs``, ``needed``), turned into a :class:`BackwardPlan`."""
        self._end_pass()   # (a pass that raised left its arrays held)
        self._pass_counts = [0, 0, 0]
        roots_ids = tuple([self._tid_of(r) for r in roots])
        inputs_ids = None if inputs is None else tuple([self._tid_of(t) for t in inputs])
        return self._emit(_build_started, self._passes, "grad" if is_grad else "backward", roots_ids,
                          retain_graph, create_graph, inputs_ids, None if plan is None else self._plan(plan))

    def _plan(self, plan):
        # tape-local ids are handed out in the order the pass's later events first mention the
        # nodes (pruned nodes, the roots, then each node run followed by the nodes it sends to),
        # so a tape's ids do not depend on whether the plan is read
        see, node_id, info, outs = self._node, self.node_id, self._pass_nodes, self._node_output
        for node in plan.pruned:
            see(node)
        for node in plan.root_nodes:
            node_id(node)
        runs, needed, deps = plan.runs, plan.needed, plan.deps
        # PlannedNode fields, flat (no tuples per node): id, name, op, output, dependencies, status,
        # the number of edges, then each edge's node id; the records are made when the tape is read
        nodes = []
        extend = nodes.extend
        for node in plan.order:
            nid = info.get(node)
            if nid is None:
                nid = see(node)
            edges = node.edges
            op = node.op
            if node in runs:
                status = "run"
                for child in edges:
                    if child is not None and child not in info and child in needed:
                        see(child)
            else:
                status = "receive"
            extend((nid, op.node_name, op.name, outs[nid], deps.get(node, 0), status, len(edges)))
            for child in edges:   # (a loop, not a comprehension: no frame made per node)
                nodes.append(None if child is None else info[child] if child in info else node_id(child))
        for node in plan.pruned:
            nid, op = info[node], node.op
            extend((nid, op.node_name, op.name, outs[nid], 0, "pruned", len(node.edges)))
            extend([None if c is None else info[c] if c in info else node_id(c) for c in node.edges])
        return (tuple(node_id(n) for n in plan.root_nodes),
                None if plan.input_nodes is None else tuple(node_id(n) for n in plan.input_nodes), nodes)

    def seeded(self, i, root, node, seed, implicit):
        return self._emit(_build_seeded, i, self._tid_of(root), self.node_id(node), self._hold(seed),
                          bool(implicit))

    def node_pruned(self, node):
        nid = self._node(node)
        return self._emit(_build_pruned, nid, node.op.node_name, self._node_output[nid])

    # (the per-node calls below write their fields straight into the pending list: they run for
    # every node of a traced pass)
    def node_started(self, node, g):
        self._pass_counts[0] += 1
        nid = self._pass_nodes.get(node)
        if nid is None:
            nid = self._node(node)
        step = self._n
        self._n = step + 1
        self._raw += (_build_node_started, nid, node.op.node_name, self._node_output[nid],
                      None if g is None else self._hold(g))
        return step

    def gradient_computed(self, node, i, child, upstream, contribution):
        self._pass_counts[1] += 1
        nodes, hold = self._pass_nodes, self._hold
        nid = nodes.get(node)
        if nid is None:
            nid = self._node(node)
        to = nodes.get(child)
        if to is None:
            to = self._node(child)
        op = node.op
        step = self._n
        self._n = step + 1
        self._raw += (_build_gradient, nid, op.node_name, i, to, self._node_output[to], hold(upstream),
                      _formula(op, i), hold(contribution))
        if self._pending_bytes > self.PENDING_BYTES:
            self._build()
        return step

    def accumulated(self, where, node, tensor, before, contribution, after=None):
        """``before``: None, a Value, what :meth:`snapshot_grad` returned, or an array/Tensor;
        ``after`` defaults to the tensor's new ``.grad``."""
        hold = self._hold
        if before is not None and type(before) is not Value:
            before = before.held if type(before) is _Held else hold(before)
        contribution_held = hold(contribution)
        after = contribution_held if after is contribution else hold(tensor._grad if after is None else after)
        step = self._n
        self._n = step + 1
        nid = self._pass_nodes.get(node)
        self._raw += (_build_accumulated, where, self._node(node) if nid is None else nid,
                      None if tensor is None or not hasattr(tensor, "_id") else self._tid(tensor),
                      before, contribution_held, after)
        return step

    def saved_freed(self, node, names, nbytes):
        self._pass_counts[2] += nbytes
        nid = self._pass_nodes.get(node)
        if nid is None:
            nid = self._node(node)
        step = self._n
        self._n = step + 1
        names = tuple(names)
        self._raw += (_build_freed, nid, node.op.node_name, _SAVED_NAMES.setdefault(names, names), int(nbytes))
        return step

    def keep_values(self):
        """User code is about to run (a custom Function's backward) and may write into the gradients it gets:
        every value the pass has told so far is kept as it is now."""
        self._keep_pending()

    def hook_values(self, grads) -> tuple:
        """Snapshots of the gradient(s) a hook gets or leaves (an array or Tensor, or a list of them,
        one per input, None where there is none), taken now: a hook may change a gradient in place."""
        self._keep_pending()   # what the pass told so far stays as it was, whatever the hook does
        if not isinstance(grads, (list, tuple)):
            grads = (grads,)
        return tuple(None if g is None else records.snapshot(g._data if hasattr(g, "_vc") else g,
                                                             self.max_elements, self.stats) for g in grads)

    def hook_ran(self, kind, node, changed, before=None, after=None):
        """``before``: :meth:`hook_values` taken before the hook ran; ``after``: the gradient(s) the pass
        goes on with (as :meth:`hook_values` takes them). ``changed``: the hook returned new gradients; a
        hook that wrote into them in place (``g.mul_(3)``, a post-accumulate hook scaling ``.grad``) counts
        as changing them too."""
        after = None if after is None and before is None else self.hook_values(after)
        changed = bool(changed) or (before is not None and not _same_values(before, after))
        return self._emit(_build_hook, kind, self._node(node), changed, before, after)

    def backward_finished(self):
        self._end_pass()
        runs, contributions, freed = self._pass_counts
        step = self._emit(_build_finished, self._passes, runs, contributions, freed)
        self._passes += 1
        if self._pending_bytes > self.PENDING_BYTES:
            self._build()
        return step

    # -- reading a tape ------------------------------------------------------------------
    def __len__(self):
        return self._n

    def __iter__(self):
        return iter(self.events)

    def of_kind(self, *kinds):
        """The events of the given classes (or class names)."""
        names = {k if isinstance(k, str) else k.__name__ for k in kinds}
        return [e for e in self.events if type(e).__name__ in names]

    def tensor_names(self) -> dict:
        """tape-local tensor id -> name."""
        return {i: self._ref(i).name for i in sorted(self._tensor_refs)}

    def table(self, digits: int = 4) -> str:
        """A deterministic fixed-width table: one row per event, floats rounded to ``digits``."""
        rows = [("step", "event", "node", "tensor", "detail")]
        for e in self.events:
            rows.append((str(e.step), type(e).__name__, *_row(e, digits)))
        widths = [max(len(r[i]) for r in rows) for i in range(4)]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r[:4], widths)) + "  " + r[4] for r in rows]
        return "\n".join(line.rstrip() for line in lines)

    def replay(self, upto: int | None = None) -> "ReplayState":
        """The engine's state after the events with ``step <= upto`` (all events by default)."""
        return replay(self.events, upto)

    # -- JSON -----------------------------------------------------------------------------
    def to_json(self, indent=None) -> str:
        """Plain JSON (no pickle): loading it never runs code."""
        payload = {"format": "autogradlab-tape", "version": 1, "max_elements": self.max_elements,
                   "events": encode_events(self.events)}
        if self.stats:
            payload["stats"] = True
        return json.dumps(payload, indent=indent, sort_keys=True, allow_nan=False)

    @classmethod
    def from_json(cls, text: str) -> "Tape":
        """Rebuild a tape from :meth:`to_json` output; malformed input raises ``ValueError``."""
        try:
            payload = json.loads(text)
        except (TypeError, json.JSONDecodeError) as exc:
            raise ValueError(f"Tape.from_json: not valid JSON ({exc})") from None
        if not isinstance(payload, dict) or payload.get("format") != "autogradlab-tape":
            raise ValueError("Tape.from_json: not an autogradlab tape (expected an object with "
                             "\"format\": \"autogradlab-tape\")")
        if payload.get("version") != 1:
            raise ValueError(f"Tape.from_json: unsupported tape version {payload.get('version')!r} (expected 1)")
        events = payload.get("events")
        if not isinstance(events, list):
            raise ValueError("Tape.from_json: \"events\" must be a list")
        tape = cls(max_elements=payload.get("max_elements", MAX_ELEMENTS), stats=bool(payload.get("stats", False)))
        for i, raw in enumerate(events):
            try:
                tape._events.append(_decode_event(raw))
                tape._n += 1
            except (KeyError, TypeError, ValueError) as exc:
                raise ValueError(f"Tape.from_json: event {i} is malformed: {exc}") from None
            if tape._events[-1].step != i:
                raise ValueError(f"Tape.from_json: event {i} has step {tape._events[-1].step}, expected {i}")
        for e in tape._events:
            for ref in _refs_of(e):
                tape._tensor_refs.setdefault(ref.tensor_id, ref)
        return tape
