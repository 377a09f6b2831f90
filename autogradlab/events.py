"""Step events: the engine tells its story, one typed record per step.

    with autogradlab.trace() as tape:
        y = (x * w).sum()
        y.backward()
    print(tape.table())

Each event is a frozen record with a ``step`` number (0, 1, 2, ... in this
tape). Tensors and nodes are named by ids local to the tape, given in order of
first appearance (``tensor_id``, ``node_id``), and by human names: the
tensor's ``name=``, else ``x0, x1, ...`` for leaves and ``t0, t1, ...`` for
computed tensors. Values are host NumPy snapshots (:class:`Value`), summarised
above ``max_elements``. Events never hold live Tensors or nodes, so a tape can
be saved as JSON, loaded elsewhere and replayed.

Nothing here runs unless a tape is active: the engine checks one thread-local
(``state.tape``) and does no event work otherwise.
"""
from __future__ import annotations

import dataclasses
import functools
import json
import math
from dataclasses import dataclass, field

import numpy

from . import backend, engine
from .grad_mode import state
from .graph import AccumulateGrad

__all__ = ["Value", "TensorRef", "PlannedNode", "BackwardPlan", "OpRecorded", "BackwardStarted", "Seeded", "NodeStarted", "GradientComputed",
           "Accumulated", "SavedFreed", "NodePruned", "HookRan", "BackwardFinished", "EVENT_TYPES",
           "Tape", "trace", "explain", "steps", "ReplayState", "describe"]

MAX_ELEMENTS = 64  # default: arrays with more elements are summarised, not copied


# ---------------------------------------------------------------------------------------
# Values and references
# ---------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Value:
    """A host snapshot of an array: every element (``data``, flattened) or, for large
    arrays, a summary (``data`` is None; ``min``, ``max``, ``norm`` are set)."""

    shape: tuple
    dtype: str
    data: tuple | None = None
    min: float | None = None
    max: float | None = None
    norm: float | None = None

    def array(self):
        """The snapshot as a NumPy array (only for full snapshots)."""
        if self.data is None:
            raise ValueError(f"this value of shape {self.shape} was summarised (min/max/norm only); "
                             f"trace with a larger max_elements to keep every element")
        return numpy.array(self.data, dtype=self.dtype).reshape(self.shape)

    def short(self, digits=4) -> str:
        """A rounded, fixed text form for tables: ``1.5``, ``[1, 2.5]`` or ``<3x4: min.. max.. |.|..>``."""
        if self.data is None:
            return (f"<{'x'.join(map(str, self.shape))}: min {_fmt(self.min, digits)} max "
                    f"{_fmt(self.max, digits)} norm {_fmt(self.norm, digits)}>")
        if not self.shape:
            return _fmt(self.data[0], digits)
        return _nested(self.array(), digits)


def format_number(x, digits=4) -> str:
    """A number as short rounded text: ``1.5``, ``0.3333``, ``-2``, ``nan`` (Python or NumPy scalars)."""
    if isinstance(x, (bool, numpy.bool_)):
        return str(bool(x))
    if isinstance(x, (int, numpy.integer)):
        return str(int(x))
    x = float(x)
    if math.isnan(x) or math.isinf(x):
        return str(x)
    text = f"{x:.{digits}g}"
    return "0" if text in ("-0", "0") else text


def format_array(arr, digits=4) -> str:
    """A host array as nested lists of :func:`format_number` text: ``[[1, 2.5], [0, -1]]``."""
    if arr.ndim == 0:
        return format_number(arr.item(), digits)
    return "[" + ", ".join(format_array(a, digits) for a in arr) + "]"


_fmt, _nested = format_number, format_array


_DTYPE_NAMES: dict = {}


def _dtype_name(dtype) -> str:
    """``dtype.name``, cached (NumPy computes it in Python on every access)."""
    name = _DTYPE_NAMES.get(dtype)
    if name is None:
        name = _DTYPE_NAMES[dtype] = dtype.name
    return name


def snapshot(array, max_elements=MAX_ELEMENTS) -> Value:
    """Copy an array (NumPy or CuPy) to the host as a :class:`Value`."""
    host = backend.to_host(array)
    shape, dtype = tuple(int(n) for n in host.shape), _dtype_name(host.dtype)
    if host.size <= max_elements:
        return Value(shape, dtype, tuple(host.reshape(-1).tolist()))
    flat = host.reshape(-1)
    if flat.dtype.kind != "f":
        flat = flat.astype(numpy.float64)
    return Value(shape, dtype, None, float(flat.min()), float(flat.max()),
                 float(numpy.sqrt(numpy.dot(flat, flat, out=None).astype(numpy.float64))))


@dataclass(frozen=True, slots=True)
class TensorRef:
    """Which tensor an event is about: tape-local id, name, shape, dtype, device."""

    tensor_id: int
    name: str
    shape: tuple
    dtype: str
    device: str
    leaf: bool
    requires_grad: bool


# ---------------------------------------------------------------------------------------
# The event kinds
# ---------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class OpRecorded:
    """Forward: an op ran with grad recording and created node ``node_id``."""
    step: int
    node_id: int
    op: str
    node_name: str
    inputs: tuple          # TensorRef per input
    output: TensorRef
    saved: tuple           # names of the tensors the node keeps for backward
    formulas: tuple        # local derivative per input, e.g. "d(a * b)/da = b"
    value: Value
    input_values: tuple    # per input: its Value when the op ran for leaves and constants, None for
                           # computed inputs (their value is in their own OpRecorded.value)


@dataclass(frozen=True, slots=True)
class PlannedNode:
    """One node of a backward plan (see :class:`BackwardPlan`).

    ``status`` is "run" (its vector-Jacobian product runs; for an AccumulateGrad node: it adds
    into its leaf's ``.grad``), "receive" (a non-leaf named in ``inputs=`` that nothing below it
    needs: it gets its gradient but passes nothing on) or "pruned" (``inputs=`` cut it: no path
    from it leads to an input). ``edges[i]`` is the node id that input ``i``'s gradient goes to
    (None: that input needs no gradient); ``dependencies`` is how many contributions the node
    waits for before it is ready (0 for the roots' nodes and for pruned nodes).
    """
    node_id: int
    node_name: str         # "MulBackward", "AccumulateGrad", ...
    op: str                # the op's name ("mul"); "accumulate_grad" for a leaf's node
    output: TensorRef      # the tensor whose gradient the node receives (its leaf for AccumulateGrad)
    edges: tuple           # per op input: the receiving node id, or None
    dependencies: int
    status: str            # "run" | "receive" | "pruned"


@dataclass(frozen=True, slots=True)
class BackwardPlan:
    """What the engine decided before running anything: every node reached from the roots.

    ``nodes`` come in the order the engine will start them (the ready-queue order: a node
    starts once all its consumers have run, the latest-created ready node first, a leaf's
    AccumulateGrad before any op node), then the pruned nodes in walk order. ``roots`` gives
    the node id of each root; ``inputs`` the node id of each ``inputs=`` entry (None without).

    In a tape's JSON a plan is an object tagged ``"@": "BackwardPlan"`` with ``nodes`` a list of
    objects tagged ``"@": "PlannedNode"`` (their ``output`` a ``"@": "TensorRef"`` object).
    """
    roots: tuple
    inputs: tuple | None
    nodes: tuple           # PlannedNode per node


@dataclass(frozen=True, slots=True)
class BackwardStarted:
    """A backward pass begins (``api`` is "backward" or "grad"); ``pass_index`` counts passes in this tape."""
    step: int
    pass_index: int
    api: str
    roots: tuple
    retain_graph: bool
    create_graph: bool
    inputs: tuple | None
    plan: BackwardPlan | None = None   # what the pass will do (see BackwardPlan): the nodes in the
                                       # order they start, their edges, dependency counts and what
                                       # inputs= pruned; None only in tapes saved before plans existed


@dataclass(frozen=True, slots=True)
class Seeded:
    """Root ``root_index`` receives its seed (ones when ``implicit``, else the given gradient)."""
    step: int
    root_index: int
    tensor: TensorRef
    node_id: int
    seed: Value
    implicit: bool


@dataclass(frozen=True, slots=True)
class NodeStarted:
    """Node ``node_id`` runs with the summed gradient of its output (``grad`` None: nothing reached it)."""
    step: int
    node_id: int
    node_name: str
    output: TensorRef
    grad: Value | None


@dataclass(frozen=True, slots=True)
class GradientComputed:
    """One chain-rule edge: ``contribution = upstream x local derivative`` for input ``input_index``."""
    step: int
    node_id: int
    node_name: str
    input_index: int
    to_node_id: int
    input: TensorRef | None
    upstream: Value
    formula: str
    contribution: Value


@dataclass(frozen=True, slots=True)
class Accumulated:
    """A contribution is added somewhere: ``where`` is "buffer" (pending sum at a fan-in),
    "leaf" (a leaf's ``.grad``), "retained" (a ``retain_grad`` tensor), "input" (a non-leaf in
    ``inputs=``) or "captured" (a result of ``autograd.grad``)."""
    step: int
    where: str
    node_id: int
    tensor: TensorRef | None
    before: Value | None
    contribution: Value
    after: Value


@dataclass(frozen=True, slots=True)
class SavedFreed:
    """Node ``node_id`` released its saved tensors after running (``retain_graph=False``)."""
    step: int
    node_id: int
    node_name: str
    names: tuple
    nbytes: int


@dataclass(frozen=True, slots=True)
class NodePruned:
    """Node ``node_id`` is not run: no path from it leads to the requested ``inputs``."""
    step: int
    node_id: int
    node_name: str
    output: TensorRef      # the tensor whose gradient is not computed (for AccumulateGrad: its leaf)


@dataclass(frozen=True, slots=True)
class HookRan:
    """A hook ran: ``hook`` is "tensor", "node_pre", "node_post" or "post_accumulate"."""
    step: int
    hook: str
    node_id: int
    changed: bool


@dataclass(frozen=True, slots=True)
class BackwardFinished:
    """The pass ended: how many nodes ran, contributions passed on, bytes of saved tensors freed."""
    step: int
    pass_index: int
    nodes_run: int
    contributions: int
    bytes_freed: int


EVENT_TYPES = {cls.__name__: cls for cls in (OpRecorded, BackwardStarted, Seeded, NodeStarted, GradientComputed,
                                             Accumulated, SavedFreed, NodePruned, HookRan, BackwardFinished)}


# ---------------------------------------------------------------------------------------
# The tape: the engine calls these methods (only while the tape is active)
# ---------------------------------------------------------------------------------------

_LETTERS = "abcdefgh"


@functools.lru_cache(maxsize=None)
def _formula(op, i):
    expr = op.math.split(";")[0].strip() if op.math else op.name
    local = op.formulas[i] if i < len(op.formulas) else ""
    var = _LETTERS[i] if len(op.formulas) > 1 else "a"
    return f"d({expr})/d{var} = {local}" if local else ""


class Tape:
    """The events of one ``trace()``: a list plus the tape-local ids and names."""

    def __init__(self, max_elements: int = MAX_ELEMENTS):
        self.events: list = []
        self.max_elements = max_elements
        self._tensor_ids: dict = {}    # global creation number -> tape-local id
        self._tensor_refs: dict = {}   # tape-local id -> TensorRef
        self._node_ids: dict = {}      # node seq -> tape-local id
        self._node_output: dict = {}   # tape-local node id -> TensorRef of its output
        self._leaves = self._computed = 0
        self._passes = 0
        self._pass_counts = [0, 0, 0]  # nodes run, contributions, bytes freed
        self._values: dict = {}        # (tensor creation number, version) -> Value

    # -- ids, names and snapshots --------------------------------------------------------
    def _emit(self, cls, **fields):
        event = cls(step=len(self.events), **fields)
        self.events.append(event)
        return event

    def value(self, tensor_or_array) -> Value:
        """A snapshot; a tensor seen again at the same version reuses its snapshot (the same
        gradient shows up in NodeStarted, GradientComputed and Accumulated)."""
        key = None
        if hasattr(tensor_or_array, "_vc"):
            key = (tensor_or_array._id, tensor_or_array._vc[0])
            hit = self._values.get(key)
            if hit is not None:
                return hit
            data = tensor_or_array.data
        else:  # an array (a gradient of a pass without create_graph)
            data = tensor_or_array
        value = snapshot(data, self.max_elements)
        if key is not None:
            if len(self._values) > 4096:
                self._values.clear()
            self._values[key] = value
        return value

    def tensor_ref(self, t) -> TensorRef:
        local = self._tensor_ids.get(t._id)
        if local is None:
            local = self._tensor_ids[t._id] = len(self._tensor_ids)
            if t.name:
                name = t.name
            elif t.grad_fn is None:
                name, self._leaves = f"x{self._leaves}", self._leaves + 1
            else:
                name, self._computed = f"t{self._computed}", self._computed + 1
            self._tensor_refs[local] = TensorRef(local, name, tuple(t.shape), _dtype_name(t.dtype), t.device,
                                                 t.grad_fn is None, bool(t.requires_grad))
        return self._tensor_refs[local]

    def node_id(self, node) -> int:
        """Tape-local id; a leaf's AccumulateGrad keeps one id across passes (it is keyed by its
        leaf, since the engine makes a new accumulator once the old graph is gone)."""
        key = ("leaf", node.variable._id) if isinstance(node, AccumulateGrad) else node.seq
        local = self._node_ids.get(key)
        if local is None:
            local = self._node_ids[key] = len(self._node_ids)
        return local

    def _output_of(self, node) -> TensorRef:
        """The tensor a node produced (for AccumulateGrad: its leaf)."""
        nid = self.node_id(node)
        ref = self._node_output.get(nid)
        if ref is None:
            if isinstance(node, AccumulateGrad):
                ref = self.tensor_ref(node.variable)
            else:
                out_ref, shape, dtype, device = node._out_meta
                live = out_ref()
                if live is not None:
                    ref = self.tensor_ref(live)
                else:  # the tensor is gone (a temporary): name it from what its node remembers
                    local = len(self._tensor_ids)
                    self._tensor_ids[("node", node.seq)] = local
                    name, self._computed = f"t{self._computed}", self._computed + 1
                    ref = TensorRef(local, name, tuple(shape), dtype.name, device, False, True)
                    self._tensor_refs[local] = ref
            self._node_output[nid] = ref
        return ref

    def _ref_of(self, t) -> TensorRef:
        """A tensor's ref; for a GradientEdge, the ref of the tensor its node produces."""
        return self.tensor_ref(t) if hasattr(t, "_id") else self._output_of(t.node)

    def snapshot_grad(self, t):
        return None if t._grad is None else self.value(t._grad)

    # -- the engine's calls -------------------------------------------------------------------
    def op_recorded(self, node, inputs, out):
        ins = tuple(self.tensor_ref(t) for t in inputs)
        ref = self.tensor_ref(out)
        self._node_output[self.node_id(node)] = ref
        op = node.op
        formulas = tuple(_formula(op, i) for i in range(len(inputs))) if op.formulas else ()
        return self._emit(OpRecorded, node_id=self.node_id(node), op=op.name, node_name=node.name(),
                          inputs=ins, output=ref, saved=tuple(node._saved or ()),
                          formulas=formulas, value=self.value(out),
                          input_values=tuple(self.value(t) if t.grad_fn is None else None for t in inputs))

    def backward_started(self, roots, retain_graph, create_graph, inputs, is_grad, plan=None):
        """``plan``: the engine's plan (``root_nodes``, ``input_nodes``, ``order``, ``pruned``,
        ``deps``, ``runs``, ``needed``), turned into a :class:`BackwardPlan`."""
        self._pass_counts = [0, 0, 0]
        roots_refs = tuple(self._ref_of(r) for r in roots)
        inputs_refs = None if inputs is None else tuple(self._ref_of(t) for t in inputs)
        event = self._emit(BackwardStarted, pass_index=self._passes, api="grad" if is_grad else "backward",
                           roots=roots_refs, retain_graph=retain_graph, create_graph=create_graph,
                           inputs=inputs_refs, plan=None if plan is None else self._plan(plan))
        return event

    def _plan(self, plan) -> BackwardPlan:
        # tape-local ids are handed out in the order the pass's later events first mention the
        # nodes (pruned nodes, the roots, then each node run followed by the nodes it sends to),
        # so a tape's ids do not depend on whether the plan is read
        for node in plan.pruned:
            self._output_of(node)
        for node in plan.root_nodes:
            self.node_id(node)
        for node in plan.order:
            self._output_of(node)
            if node in plan.runs:
                for child in node.edges:
                    if child is not None and child in plan.needed:
                        self._output_of(child)

        def planned(node, status):
            return PlannedNode(node_id=self.node_id(node), node_name=node.name(), op=node.op.name,
                               output=self._output_of(node),
                               edges=tuple(None if c is None else self.node_id(c) for c in node.edges),
                               dependencies=plan.deps.get(node, 0) if status != "pruned" else 0,
                               status=status)

        nodes = [planned(n, "run" if n in plan.runs else "receive") for n in plan.order]
        nodes += [planned(n, "pruned") for n in plan.pruned]
        return BackwardPlan(roots=tuple(self.node_id(n) for n in plan.root_nodes),
                            inputs=None if plan.input_nodes is None else tuple(self.node_id(n) for n in plan.input_nodes),
                            nodes=tuple(nodes))

    def seeded(self, i, root, node, seed, implicit):
        return self._emit(Seeded, root_index=i, tensor=self._ref_of(root), node_id=self.node_id(node),
                          seed=self.value(seed), implicit=bool(implicit))

    def node_pruned(self, node):
        return self._emit(NodePruned, node_id=self.node_id(node), node_name=node.name(),
                          output=self._output_of(node))

    def node_started(self, node, g):
        self._pass_counts[0] += 1
        return self._emit(NodeStarted, node_id=self.node_id(node), node_name=node.name(),
                          output=self._output_of(node), grad=None if g is None else self.value(g))

    def gradient_computed(self, node, i, child, upstream, contribution):
        self._pass_counts[1] += 1
        return self._emit(GradientComputed, node_id=self.node_id(node), node_name=node.name(), input_index=i,
                          to_node_id=self.node_id(child), input=self._output_of(child),
                          upstream=self.value(upstream), formula=_formula(node.op, i),
                          contribution=self.value(contribution))

    def accumulated(self, where, node, tensor, before, contribution, after=None):
        """``before`` is a Value or a Tensor; ``after`` defaults to the tensor's new ``.grad``."""
        if before is not None and not isinstance(before, Value):
            before = self.value(before)
        contribution_value = self.value(contribution)
        after = self.value(tensor._grad if after is None else after)
        return self._emit(Accumulated, where=where, node_id=self.node_id(node),
                          tensor=None if tensor is None or not hasattr(tensor, "_id") else self.tensor_ref(tensor),
                          before=before, contribution=contribution_value, after=after)

    def saved_freed(self, node, names, nbytes):
        self._pass_counts[2] += nbytes
        return self._emit(SavedFreed, node_id=self.node_id(node), node_name=node.name(), names=tuple(names),
                          nbytes=int(nbytes))

    def hook_ran(self, kind, node, changed):
        return self._emit(HookRan, hook=kind, node_id=self.node_id(node), changed=bool(changed))

    def backward_finished(self):
        runs, contributions, freed = self._pass_counts
        event = self._emit(BackwardFinished, pass_index=self._passes, nodes_run=runs,
                           contributions=contributions, bytes_freed=freed)
        self._passes += 1
        return event

    # -- reading a tape ------------------------------------------------------------------
    def __len__(self):
        return len(self.events)

    def __iter__(self):
        return iter(self.events)

    def of_kind(self, *kinds):
        """The events of the given classes (or class names)."""
        names = {k if isinstance(k, str) else k.__name__ for k in kinds}
        return [e for e in self.events if type(e).__name__ in names]

    def tensor_names(self) -> dict:
        """tape-local tensor id -> name."""
        return {i: r.name for i, r in sorted(self._tensor_refs.items())}

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
                   "events": [_encode(e) for e in self.events]}
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
        tape = cls(max_elements=payload.get("max_elements", MAX_ELEMENTS))
        for i, raw in enumerate(events):
            try:
                tape.events.append(_decode_event(raw))
            except (KeyError, TypeError, ValueError) as exc:
                raise ValueError(f"Tape.from_json: event {i} is malformed: {exc}") from None
            if tape.events[-1].step != i:
                raise ValueError(f"Tape.from_json: event {i} has step {tape.events[-1].step}, expected {i}")
        for e in tape.events:
            for ref in _refs_of(e):
                tape._tensor_refs.setdefault(ref.tensor_id, ref)
        return tape


def _refs_of(e):
    for f in dataclasses.fields(e):
        v = getattr(e, f.name)
        if isinstance(v, TensorRef):
            yield v
        elif isinstance(v, tuple):
            yield from (x for x in v if isinstance(x, TensorRef))
        elif isinstance(v, BackwardPlan):
            yield from (n.output for n in v.nodes)


# -- JSON encoding: tagged objects, NaN/inf as strings (plain JSON has no NaN) ---------------

def _enc(v):
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return {"float": repr(v)}
    if isinstance(v, _TAGGED):
        return {"@": type(v).__name__, **{f.name: _enc(getattr(v, f.name)) for f in dataclasses.fields(v)}}
    if isinstance(v, tuple):
        return [_enc(x) for x in v]
    return v


_TAGGED = (Value, TensorRef, PlannedNode, BackwardPlan)  # the records nested inside events


def _encode(e):
    return {"kind": type(e).__name__, **{f.name: _enc(getattr(e, f.name)) for f in dataclasses.fields(e)}}


def _dec(v):
    if isinstance(v, list):
        return tuple(_dec(x) for x in v)
    if isinstance(v, dict):
        if set(v) == {"float"}:
            if v["float"] not in ("nan", "inf", "-inf"):
                raise ValueError(f"bad float {v['float']!r}")
            return float(v["float"])
        tag = v.get("@")
        cls = {c.__name__: c for c in _TAGGED}.get(tag)
        if cls is None:
            raise ValueError(f"unknown object tag {tag!r}")
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: _dec(x) for k, x in v.items() if k != "@" and k in names})
    return v


def _decode_event(raw):
    if not isinstance(raw, dict) or raw.get("kind") not in EVENT_TYPES:
        raise ValueError(f"unknown event kind {raw.get('kind') if isinstance(raw, dict) else raw!r}")
    cls = EVENT_TYPES[raw["kind"]]
    names = [f.name for f in dataclasses.fields(cls)]
    if cls is BackwardStarted:  # tapes saved before plans existed have none
        names = [n for n in names if n != "plan" or n in raw]
    missing = [n for n in names if n not in raw]
    if missing:
        raise KeyError(f"{raw['kind']} lacks field(s) {missing}")
    return cls(**{n: _dec(raw[n]) for n in names})


# ---------------------------------------------------------------------------------------
# Text: table rows and plain-words explanations
# ---------------------------------------------------------------------------------------

def _v(value, digits):
    return "-" if value is None else value.short(digits)


def _row(e, d):
    node = str(getattr(e, "node_id", ""))
    name = getattr(e, "node_name", "")
    node = f"{node} {name}".strip()
    if isinstance(e, OpRecorded):
        return (node, e.output.name, f"{e.op}({', '.join(r.name for r in e.inputs)}) = {e.value.short(d)}"
                + (f"  saves {', '.join(e.saved)}" if e.saved else ""))
    if isinstance(e, BackwardStarted):
        extra = f" inputs=[{', '.join(r.name for r in e.inputs)}]" if e.inputs is not None else ""
        return ("", ", ".join(r.name for r in e.roots),
                f"{e.api} pass {e.pass_index} retain_graph={e.retain_graph} create_graph={e.create_graph}{extra}")
    if isinstance(e, Seeded):
        return (node, e.tensor.name, f"seed {e.seed.short(d)}" + (" (implicit)" if e.implicit else ""))
    if isinstance(e, NodeStarted):
        return (node, e.output.name, f"grad in {_v(e.grad, d)}")
    if isinstance(e, GradientComputed):
        who = e.input.name if e.input else "?"
        return (node, who, f"{e.upstream.short(d)} x [{e.formula}] = {e.contribution.short(d)} -> node {e.to_node_id}")
    if isinstance(e, Accumulated):
        who = e.tensor.name if e.tensor else f"buffer of node {e.node_id}"
        return (str(e.node_id), who, f"{e.where}: {_v(e.before, d)} + {e.contribution.short(d)} = {e.after.short(d)}")
    if isinstance(e, SavedFreed):
        return (node, "", f"freed {', '.join(e.names)} ({e.nbytes} bytes)")
    if isinstance(e, NodePruned):
        return (node, e.output.name, "pruned: not on a path to inputs")
    if isinstance(e, HookRan):
        return (node, "", f"{e.hook} hook ran" + (", changed the gradient" if e.changed else ""))
    if isinstance(e, BackwardFinished):
        return ("", "", f"pass {e.pass_index} done: {e.nodes_run} nodes ran, {e.contributions} contributions, "
                        f"{e.bytes_freed} bytes freed")
    return ("", "", "")


def describe(e, digits=4) -> str:
    """One event in plain words, with its numbers."""
    d = digits
    if isinstance(e, OpRecorded):
        return (f"forward: {e.output.name} = {e.op}({', '.join(r.name for r in e.inputs)}) = {e.value.short(d)}; "
                f"node {e.node_id} ({e.node_name}) records it" + (f" and saves {', '.join(e.saved)}" if e.saved else ""))
    if isinstance(e, BackwardStarted):
        return (f"{e.api}() starts from {', '.join(r.name for r in e.roots)} "
                f"(retain_graph={e.retain_graph}, create_graph={e.create_graph}"
                + (f", inputs={[r.name for r in e.inputs]}" if e.inputs is not None else "") + ")")
    if isinstance(e, Seeded):
        how = "ones, because it has one element" if e.implicit else "the gradient you passed"
        return f"seed: d{e.tensor.name}/d{e.tensor.name} = {e.seed.short(d)} ({how})"
    if isinstance(e, NodeStarted):
        if e.grad is None:
            return f"node {e.node_id} ({e.node_name}) runs, but no gradient reached {e.output.name}"
        return f"node {e.node_id} ({e.node_name}) runs: the gradient of {e.output.name} is {e.grad.short(d)}"
    if isinstance(e, GradientComputed):
        return (f"  chain rule: upstream {e.upstream.short(d)} x local [{e.formula}] = {e.contribution.short(d)}, "
                f"sent to {e.input.name if e.input else 'node ' + str(e.to_node_id)}")
    if isinstance(e, Accumulated):
        name = e.tensor.name if e.tensor is not None else "an input"
        target = {"buffer": f"the pending sum for node {e.node_id}", "leaf": f"{name}.grad",
                  "retained": f"{name}.grad (retain_grad)", "input": f"{name}.grad (inputs=)",
                  "captured": f"the result for {name}"}[e.where]
        return f"  accumulate into {target}: {_v(e.before, d)} + {e.contribution.short(d)} = {e.after.short(d)}"
    if isinstance(e, SavedFreed):
        return f"  node {e.node_id} frees what it saved: {', '.join(e.names)} ({e.nbytes} bytes); retain_graph is False"
    if isinstance(e, NodePruned):
        return (f"node {e.node_id} ({e.node_name}) is skipped: the gradient of {e.output.name} "
                f"does not lead to any of inputs=")
    if isinstance(e, HookRan):
        return f"  a {e.hook} hook on node {e.node_id} ran" + (" and replaced the gradient" if e.changed else "")
    if isinstance(e, BackwardFinished):
        return (f"done: {e.nodes_run} nodes ran, {e.contributions} contributions, "
                f"{e.bytes_freed} bytes of saved tensors freed")
    return repr(e)


# ---------------------------------------------------------------------------------------
# Replay: fold events into the engine's state at a step
# ---------------------------------------------------------------------------------------

@dataclass
class ReplayState:
    """The engine's state after some step: gradients by tensor id, pending fan-in sums by node id,
    and which nodes have run, been freed or pruned."""

    step: int = -1
    grads: dict = field(default_factory=dict)      # tensor_id -> Value (.grad of leaves/retained/inputs)
    captured: dict = field(default_factory=dict)   # tensor_id -> Value (autograd.grad results)
    buffers: dict = field(default_factory=dict)    # node_id -> Value (pending sums)
    ran: list = field(default_factory=list)
    freed: list = field(default_factory=list)
    pruned: list = field(default_factory=list)
    recorded: list = field(default_factory=list)   # node ids created so far (forward)
    current: int | None = None                     # the node running now
    event: object = None


def replay(events, upto=None) -> ReplayState:
    s = ReplayState()
    for e in events:
        if upto is not None and e.step > upto:
            break
        s.step, s.event = e.step, e
        if isinstance(e, OpRecorded):
            s.recorded.append(e.node_id)
        elif isinstance(e, BackwardStarted):
            s.buffers, s.current, s.ran, s.pruned = {}, None, [], []
            s.captured = {}
        elif isinstance(e, Seeded):
            old = s.buffers.get(e.node_id)
            s.buffers[e.node_id] = e.seed if old is None else add_values(old, e.seed)
        elif isinstance(e, NodeStarted):
            s.current = e.node_id
            s.ran.append(e.node_id)
            s.buffers.pop(e.node_id, None)
        elif isinstance(e, Accumulated):
            if e.where == "buffer":
                s.buffers[e.node_id] = e.after
            elif e.where == "captured":
                s.captured[e.tensor.tensor_id] = e.after
            else:
                s.grads[e.tensor.tensor_id] = e.after
        elif isinstance(e, SavedFreed):
            s.freed.append(e.node_id)
        elif isinstance(e, NodePruned):
            s.pruned.append(e.node_id)
        elif isinstance(e, BackwardFinished):
            s.current = None
    return s


def add_values(a: Value, b: Value) -> Value:
    """The sum of two full snapshots (two seeds meeting in one buffer); ``b`` if either was summarised."""
    if a.data is None or b.data is None:
        return b
    return snapshot(a.array() + b.array(), max(len(a.data), 1))


# ---------------------------------------------------------------------------------------
# Entry points: trace, explain, steps
# ---------------------------------------------------------------------------------------

class trace:
    """``with trace() as tape:`` records the forward and backward events of everything inside."""

    def __init__(self, max_elements: int = MAX_ELEMENTS):
        self.tape = Tape(max_elements)

    def __enter__(self) -> Tape:
        self._prev = state.tape
        state.tape = self.tape
        return self.tape

    def __exit__(self, *exc):
        state.tape = self._prev
        return False


def explain(root, file=None, **backward_kwargs) -> Tape:
    """Run ``root.backward(**backward_kwargs)`` under a trace and print the chain-rule story,
    one line per step. Returns the tape."""
    with trace() as tape:
        root.backward(**backward_kwargs)
    for e in tape.events:
        print(f"[{e.step}] {describe(e)}", file=file)
    return tape


class steps:
    """Drive the real engine one event at a time, like a debugger:

        it = steps(loss)
        next(it)          # BackwardStarted
        next(it)          # Seeded ... inspect x.grad, it.state() between calls

    Validation happens at once (bad arguments raise here). Between two ``next``
    calls, leaf ``.grad`` values are the engine's partial results. Leaving a
    ``for`` loop with ``break`` only pauses the pass (``next`` resumes it);
    ``it.close()`` stops it where it is: gradients accumulated so far stay,
    nodes that already ran have freed their saved tensors (without
    ``retain_graph``), the rest are untouched.
    """

    def __init__(self, root, gradient=None, retain_graph=None, create_graph=False, inputs=None,
                 max_elements=MAX_ELEMENTS):
        self.tape = Tape(max_elements)
        self._engine_mode = None
        prev, state.tape = state.tape, self.tape
        try:
            self._gen = engine.backward_steps(root, gradient, retain_graph, create_graph, None, inputs)
        finally:
            state.tape = prev
        self.done = False

    def __iter__(self):
        return self

    def __next__(self):
        if self.done:
            raise StopIteration
        prev_tape, user_mode = state.tape, state.grad_enabled
        state.tape = self.tape
        if self._engine_mode is not None:
            state.grad_enabled = self._engine_mode
        try:
            event = next(self._gen)
        except StopIteration:
            self.done = True
            raise
        finally:
            self._engine_mode = state.grad_enabled
            state.tape, state.grad_enabled = prev_tape, user_mode
        return event

    def state(self) -> ReplayState:
        """The engine's state so far, folded from the events."""
        return self.tape.replay()

    def run(self):
        """Run the rest of the pass; returns the tape."""
        for _ in self:
            pass
        return self.tape

    def close(self):
        if not self.done:
            self.done = True
            user_mode = state.grad_enabled
            self._gen.close()
            state.grad_enabled = user_mode
