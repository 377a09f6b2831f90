"""The graph a drawing shows, and the state of each frame, folded from a tape's events.

The viz layer reads events only. :class:`GraphModel` turns a :class:`~autogradlab.events.Tape`
into tensors, ops and edges with the tape's own local ids; :class:`Fold` replays the events one
at a time and says what each step changed (so the player redraws only what moved).

The one exception is :func:`walk`, used by ``draw(tensor)`` (and by ``play_backward(root)`` when the
call raises before any event): it
follows a live tensor's graph through the public introspection API (``grad_fn.name()``,
``grad_fn.next_functions``, ``AccumulateGrad.variable``, and autogradlab's documented node
introspection ``op_name``, ``sequence_nr()``, ``saved_tensor_names`` and ``freed``) and synthesises the
``OpRecorded`` records a forward trace would have given, so one renderer serves both.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

from .. import events as ev

__all__ = ["Fold", "GraphModel", "OpNode", "TensorNode", "as_model", "walk"]


@dataclass
class TensorNode:
    """A tensor of the drawing: tape-local id, name, shape, dtype, and what kind it is."""

    tid: int
    name: str
    shape: tuple | None
    dtype: str | None
    leaf: bool
    requires_grad: bool
    value: ev.Value | None = None
    producer: int | None = None      # node id of the op that made it
    step: int = -1                   # first step it appears on (-1: there from the start)
    backward: bool = False           # made while a backward pass ran (create_graph=True)
    root: bool = False               # a backward pass started from it

    @property
    def kind(self) -> str:
        """``param`` (leaf that requires grad), ``const`` (leaf that does not) or ``computed``."""
        if self.producer is not None or not self.leaf:
            return "computed"
        return "param" if self.requires_grad else "const"


@dataclass
class OpNode:
    """A recorded op (its backward node): inputs by tensor id per position, output tensor id."""

    nid: int
    op: str
    node_name: str
    inputs: dict = field(default_factory=dict)   # input index -> tensor id
    output: int | None = None
    saved: tuple = ()
    formulas: tuple = ()
    step: int = -1
    backward: bool = False
    inferred: bool = False           # known from backward events only (no OpRecorded)


@functools.lru_cache(maxsize=1024)
def _op_from_node_name(node_name: str) -> str:
    """``MulBackward`` -> ``mul``, ``LogSoftmaxBackward`` -> ``log_softmax`` (cached: a pass repeats them)."""
    base = node_name.removesuffix("Backward")
    out = []
    for i, ch in enumerate(base):
        if ch.isupper() and i:
            out.append("_")
        out.append(ch.lower())
    return "".join(out) or node_name


class GraphModel:
    """Tensors, ops and edges of a tape (plus, for ``draw(tensor)``, a walked graph)."""

    def __init__(self):
        self.tensors: dict[int, TensorNode] = {}
        self.ops: dict[int, OpNode] = {}
        self.node_tensor: dict[int, int] = {}     # node id -> tensor id (op: its output; AccumulateGrad: its leaf)
        self.acc_nodes: set[int] = set()           # node ids of AccumulateGrad nodes
        self.consumers: dict[int, list] = {}       # tensor id -> [(op node id, input index)]
        self.events: list = []
        self.tape = None
        self.static = None                         # a Fold to start from (draw(tensor): live grads)
        self.pass_starts: list[int] = []           # steps of BackwardStarted events
        self.has_backward = False
        self._pruned_unknown: list = []

    # -- building --------------------------------------------------------------------------
    def _tensor(self, ref: ev.TensorRef, step=-1, backward=False) -> TensorNode:
        t = self.tensors.get(ref.tensor_id)
        if t is None:
            t = self.tensors[ref.tensor_id] = TensorNode(ref.tensor_id, ref.name, ref.shape, ref.dtype,
                                                         ref.leaf, ref.requires_grad, step=step, backward=backward)
        return t

    def _add_op(self, e, step, backward):
        op = OpNode(e.node_id, e.op, e.node_name, {i: r.tensor_id for i, r in enumerate(e.inputs)},
                    e.output.tensor_id, tuple(e.saved), tuple(e.formulas), step, backward)
        self.ops[e.node_id] = op
        for i, r in enumerate(e.inputs):
            self._tensor(r, step, backward)
            self.consumers.setdefault(r.tensor_id, []).append((e.node_id, i))
        for r, v in zip(e.inputs, getattr(e, "input_values", ())):
            t = self.tensors[r.tensor_id]
            if v is not None and t.value is None and t.producer is None:   # leaves and constants
                t.value = v
        out = self._tensor(e.output, step, backward)
        out.producer = e.node_id
        if e.value is not None:
            out.value = e.value
        self.node_tensor[e.node_id] = e.output.tensor_id

    def _link(self, nid, ref, node_name=None, acc=False):
        """Node ``nid`` is about tensor ``ref`` (its output, or its leaf for AccumulateGrad)."""
        if ref is None:
            return
        self._tensor(ref)
        is_acc = acc or node_name == "AccumulateGrad" or (ref.leaf and nid not in self.ops)
        self.node_tensor.setdefault(nid, ref.tensor_id)
        if is_acc:
            self.acc_nodes.add(nid)
            return
        op = self.ops.get(nid)
        if op is None and node_name is not None:
            op = self.ops[nid] = OpNode(nid, _op_from_node_name(node_name), node_name, inferred=True)
        if op is not None and op.inferred and op.output is None:
            op.output = self.node_tensor[nid]
            out = self.tensors[op.output]
            if out.producer is None:
                out.producer = nid

    def _infer_op(self, nid, node_name):
        if nid not in self.ops and nid not in self.acc_nodes and node_name != "AccumulateGrad":
            self.ops[nid] = OpNode(nid, _op_from_node_name(node_name), node_name, {}, None, inferred=True)

    @classmethod
    def from_events(cls, events, structure=(), acc_links=(), tape=None) -> GraphModel:
        m = cls()
        m.tape = tape
        m.events = list(events)
        for rec in structure:
            m._add_op(rec, -1, False)
        for nid, ref in acc_links:
            m._link(nid, ref, acc=True)
        depth = 0
        for e in m.events:
            kind = type(e)
            if kind is ev.OpRecorded:
                if e.node_id not in m.ops or m.ops[e.node_id].inferred:
                    m._add_op(e, e.step, depth > 0)
            elif kind is ev.BackwardStarted:
                depth += 1
                m.has_backward = True
                m.pass_starts.append(e.step)
                for r in e.roots:
                    m._tensor(r).root = True
                if getattr(e, "plan", None) is not None:
                    m._add_plan(e.plan)
            elif kind is ev.BackwardFinished:
                depth = max(0, depth - 1)
            elif kind is ev.Seeded:
                m._tensor(e.tensor).root = True
                m._link(e.node_id, e.tensor)
            elif kind is ev.NodeStarted:
                m._link(e.node_id, e.output, e.node_name)
            elif kind is ev.GradientComputed:
                m._infer_op(e.node_id, e.node_name)
                if e.input is not None:
                    m._link(e.to_node_id, e.input)
                    op = m.ops.get(e.node_id)
                    if op is not None and op.inferred and e.input_index not in op.inputs:
                        op.inputs[e.input_index] = e.input.tensor_id
                        m.consumers.setdefault(e.input.tensor_id, []).append((e.node_id, e.input_index))
            elif kind is ev.Accumulated:
                if e.tensor is not None and e.where != "buffer":
                    m._link(e.node_id, e.tensor, acc=e.where == "leaf")
            elif kind is ev.NodePruned:
                ref = getattr(e, "output", None)
                if ref is not None:
                    m._link(e.node_id, ref, e.node_name)
                elif e.node_name == "AccumulateGrad":
                    m._pruned_unknown.append(e.node_id)
                else:
                    m._infer_op(e.node_id, e.node_name)
        m._match_pruned_leaves()
        return m

    def _add_plan(self, plan):
        """The engine's plan names every node of the pass, its output and where each input's gradient
        goes: the whole graph, even the parts no event of the pass will touch (pruned nodes)."""
        outputs = {pn.node_id: pn.output for pn in plan.nodes}
        for pn in plan.nodes:
            if pn.node_name == "AccumulateGrad":
                self._link(pn.node_id, pn.output, acc=True)
                continue
            self._link(pn.node_id, pn.output, pn.node_name)
            op = self.ops.get(pn.node_id)
            if op is None or not op.inferred:
                continue
            for i, child in enumerate(pn.edges):
                ref = outputs.get(child) if child is not None else None
                if ref is not None and i not in op.inputs:
                    self._tensor(ref)
                    op.inputs[i] = ref.tensor_id
                    self.consumers.setdefault(ref.tensor_id, []).append((pn.node_id, i))

    def _match_pruned_leaves(self):
        """A pruned AccumulateGrad names no tensor: give it a leaf that requires grad and has no node yet."""
        unknown = [n for n in self._pruned_unknown if n not in self.node_tensor]
        if not unknown:
            return
        linked = {self.node_tensor[n] for n in self.acc_nodes if n in self.node_tensor}
        free = sorted(t.tid for t in self.tensors.values() if t.kind == "param" and t.tid not in linked)
        for nid, tid in zip(sorted(unknown), free):
            self.node_tensor[nid] = tid
            self.acc_nodes.add(nid)

    # -- questions ---------------------------------------------------------------------------
    def key_of_node(self, nid):
        """Drawing key of node ``nid``: its op, or for AccumulateGrad its leaf tensor."""
        if nid in self.ops:
            return ("o", nid)
        tid = self.node_tensor.get(nid)
        return None if tid is None else ("t", tid)

    def tensor_key_of_node(self, nid):
        """Key of the tensor whose gradient node ``nid`` receives (where its pending sum sits)."""
        tid = self.node_tensor.get(nid)
        if tid is None and nid in self.ops:
            tid = self.ops[nid].output
        return None if tid is None else ("t", tid)

    def name(self, tid) -> str:
        t = self.tensors.get(tid)
        return t.name if t is not None else f"tensor {tid}"


# ---------------------------------------------------------------------------------------
# Fold: the state after each step, and what each step changed
# ---------------------------------------------------------------------------------------

class Fold:
    """The engine's state as the events tell it, advanced one event at a time.

    ``apply(e)`` returns the drawing keys it changed (``("t", tid)``, ``("o", nid)``), the edges
    it changed (``(nid, input_index)``) and whether everything must be redrawn (a new pass).
    """

    def __init__(self, model: GraphModel):
        self.model = model
        self.step = -1
        self.event = None
        self.ran: set = set()
        self.pruned: set = set()
        self.freed: set = set()
        self.node_grad: dict = {}       # node id -> gradient it ran with (this pass)
        self.buffers: dict = {}         # node id -> pending sum (this pass)
        self.seeds: dict = {}           # tensor id -> seed (this pass)
        self.edge_grad: dict = {}       # (node id, input index) -> (step, contribution) (this pass)
        self.grads: dict = {}           # tensor id -> .grad (leaves, retain_grad, non-leaf inputs=)
        self.captured: dict = {}        # tensor id -> autograd.grad result (this pass)
        self.current = None             # node id running now
        self.active = None              # drawing key highlighted at this step
        self.active_edge = None         # (node id, input index) of this step's chain-rule edge
        self.acc = None                 # (tensor id, before, after) when this step adds into a .grad
        self.pass_event = None          # the BackwardStarted of the pass in progress
        self.passes = 0

    def copy_static(self, other: Fold):
        self.grads = dict(other.grads)
        self.freed = set(other.freed)
        self.captured = dict(other.captured)

    def apply(self, e):
        m = self.model
        dirty, dirty_edges, everything = set(), set(), False
        self._mark_highlights(dirty, dirty_edges)   # last step's highlights go away
        self.step, self.event = e.step, e
        self.active = self.active_edge = self.acc = None
        kind = type(e)
        if kind is ev.OpRecorded:
            op = m.ops.get(e.node_id)
            self.active = ("o", e.node_id)
            if op is not None:
                dirty.update(("t", t) for t in op.inputs.values())
                if op.output is not None:
                    dirty.add(("t", op.output))
                dirty_edges.update((e.node_id, i) for i in op.inputs)
                dirty_edges.add((e.node_id, "out"))
        elif kind is ev.BackwardStarted:
            everything = True
            self.ran, self.pruned, self.node_grad, self.buffers = set(), set(), {}, {}
            self.seeds, self.edge_grad, self.captured, self.current = {}, {}, {}, None
            self.pass_event = e
            self.passes += 1
            if e.roots:
                self.active = ("t", e.roots[0].tensor_id)
        elif kind is ev.Seeded:
            old = self.buffers.get(e.node_id)
            self.buffers[e.node_id] = e.seed if old is None else ev.add_values(old, e.seed)
            self.seeds[e.tensor.tensor_id] = e.seed
            self.active = ("t", e.tensor.tensor_id)
        elif kind is ev.NodeStarted:
            if self.current is not None:
                dirty.add(m.key_of_node(self.current))
            self.current = e.node_id
            self.ran.add(e.node_id)
            self.buffers.pop(e.node_id, None)
            if e.grad is not None:
                self.node_grad[e.node_id] = e.grad
            self.active = m.key_of_node(e.node_id)
            dirty.add(m.tensor_key_of_node(e.node_id))
        elif kind is ev.GradientComputed:
            self.edge_grad[(e.node_id, e.input_index)] = (e.step, e.contribution)
            self.active = m.key_of_node(e.node_id)
            self.active_edge = (e.node_id, e.input_index)
            dirty_edges.add(self.active_edge)
        elif kind is ev.Accumulated:
            if e.where == "buffer":
                self.buffers[e.node_id] = e.after
                self.active = m.tensor_key_of_node(e.node_id)
            else:
                tid = e.tensor.tensor_id if e.tensor is not None else m.node_tensor.get(e.node_id)
                if e.where == "captured":
                    self.captured[tid] = e.after
                else:
                    self.grads[tid] = e.after
                self.acc = (tid, e.before, e.after)
                self.active = ("t", tid)
        elif kind is ev.SavedFreed:
            self.freed.add(e.node_id)
            self.active = m.key_of_node(e.node_id)
        elif kind is ev.NodePruned:
            self.pruned.add(e.node_id)
            self.active = m.key_of_node(e.node_id)
            dirty.add(m.tensor_key_of_node(e.node_id))
        elif kind is ev.HookRan:
            self.active = m.key_of_node(e.node_id)
        elif kind is ev.BackwardFinished:
            self.current = None
            everything = True  # "ran" marks and pass-local labels stay, but the pass is over
        self._mark_highlights(dirty, dirty_edges)   # this step's highlights appear
        dirty.discard(None)
        return dirty, dirty_edges, everything

    def _mark_highlights(self, dirty, dirty_edges):
        """The node, edge and accumulating tensor highlighted at the current step need redrawing."""
        if self.active is not None:
            dirty.add(self.active)
        if self.active_edge is not None:
            dirty_edges.add(self.active_edge)
        if self.acc is not None:
            dirty.add(("t", self.acc[0]))

    @classmethod
    def at(cls, model: GraphModel, step: int | None) -> Fold:
        """The state after step ``step`` (all events when None; before any event when -1)."""
        f = cls(model)
        if model.static is not None:
            f.copy_static(model.static)
        for e in model.events:
            if step is not None and e.step > step:
                break
            f.apply(e)
        return f


# ---------------------------------------------------------------------------------------
# Walking a live graph (public introspection API only)
# ---------------------------------------------------------------------------------------

def _is_accumulator(node) -> bool:
    return node.name() == "AccumulateGrad" and hasattr(node, "variable")


def is_freed(node) -> bool:
    """True if the node's saved tensors were freed (``grad_fn.freed``; nothing is unpacked)."""
    return bool(getattr(node, "freed", False))


def walk(root) -> list:
    """The nodes of ``root``'s graph (ops and AccumulateGrad), in creation order."""
    fn = root.grad_fn
    if fn is None:
        return []
    seen, stack, nodes = {fn}, [fn], []
    while stack:
        node = stack.pop()
        nodes.append(node)
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                stack.append(child)
    nodes.sort(key=lambda n: n.sequence_nr())
    return nodes


def _structure(root, nodes, node_ids, tensor_ref, known_outputs, max_elements):
    """Synthesise the OpRecorded records (step -1) a forward trace would have given.

    ``tensor_ref``: live tensor -> TensorRef (root and leaves); ``known_outputs``: node id ->
    TensorRef already given to that node's output (by the tape's events). Other computed tensors
    get fresh ids and the names ``t0, t1, ...`` in creation order (their shape is unknown: the
    public API does not reach an op's output tensor).
    """
    ops = [n for n in nodes if not _is_accumulator(n)]
    refs = {n: tensor_ref(n.variable) for n in nodes if _is_accumulator(n)}
    acc_links = [(node_ids[n], r) for n, r in refs.items()]
    root_ref = tensor_ref(root)
    used = {r.tensor_id for r in refs.values()} | {r.tensor_id for r in known_outputs.values()}
    used.add(root_ref.tensor_id)
    names = {r.name for r in refs.values()} | {r.name for r in known_outputs.values()} | {root_ref.name}
    next_id, counter = 0, 0
    for n in ops:
        nid = node_ids[n]
        if n is root.grad_fn:
            refs[n] = root_ref
        elif nid in known_outputs:
            refs[n] = known_outputs[nid]
        else:
            while next_id in used:
                next_id += 1
            while f"t{counter}" in names:
                counter += 1
            refs[n] = ev.TensorRef(next_id, f"t{counter}", None, None, str(root.device), False, True)
            used.add(next_id)
            names.add(f"t{counter}")
    records, positions = [], {}
    for n in ops:
        nid = node_ids[n]
        live = [(i, c) for i, (c, _) in enumerate(n.next_functions) if c is not None]
        positions[nid] = [i for i, _ in live]
        value = ev.snapshot(root._data, max_elements) if n is root.grad_fn else None
        records.append(ev.OpRecorded(step=-1, node_id=nid, op=n.op_name, node_name=n.name(),
                                     inputs=tuple(refs[c] for _, c in live), output=refs[n],
                                     saved=n.saved_tensor_names, formulas=(), value=value,
                                     input_values=()))
    return records, acc_links, positions


def _fix_positions(m: GraphModel, positions):
    """Walked records list only the inputs that have a node (constants have none): put each back at
    its real input position, so edge ids and gradient labels use the op's own input index."""
    for nid, pos in positions.items():
        op = m.ops.get(nid)
        if op is None or list(op.inputs) == pos:
            continue
        tids = [op.inputs[i] for i in sorted(op.inputs)]
        for tid in set(tids):
            m.consumers[tid] = [(n, j) for n, j in m.consumers.get(tid, []) if n != nid]
        op.inputs = dict(zip(pos, tids))
        for i, tid in op.inputs.items():
            m.consumers.setdefault(tid, []).append((nid, i))


def _leaf_state(nodes, node_ids, tensor_ref, max_elements, static):
    for n in nodes:
        if _is_accumulator(n) and n.variable.grad is not None:
            static.grads[tensor_ref(n.variable).tensor_id] = ev.snapshot(n.variable.grad._data, max_elements)
        elif not _is_accumulator(n) and is_freed(n):
            static.freed.add(node_ids[n])


def model_of_tensor(root, max_elements=ev.MAX_ELEMENTS) -> GraphModel:
    """``draw(tensor)``: the graph behind ``root``, walked through the public API. Node ids follow
    creation order (as a forward trace would number them); leaves are named ``x0, x1, ...``."""
    nodes = walk(root)
    ordered = [n for n in nodes if not _is_accumulator(n)] + [n for n in nodes if _is_accumulator(n)]
    node_ids = {n: i for i, n in enumerate(ordered)}
    refs, counters = {}, {"x": 0, "t": 0}

    def tensor_ref(t):
        if id(t) not in refs:
            leaf = t.grad_fn is None
            prefix = "x" if leaf else "t"
            name = t.name or f"{prefix}{counters[prefix]}"
            counters[prefix] += not t.name
            refs[id(t)] = (t, ev.TensorRef(len(refs), name, tuple(t.shape), t.dtype.name, str(t.device), leaf,
                                           bool(t.requires_grad)))
        return refs[id(t)][1]

    for n in nodes:  # leaves get the first ids, in the order ops use them
        if not _is_accumulator(n):
            for child, _ in n.next_functions:
                if child is not None and _is_accumulator(child):
                    tensor_ref(child.variable)
    if root.grad_fn is not None:
        # the root is the last computed tensor: the ops before it make t0, t1, ... (ids in creation order)
        before = sum(1 for n in nodes if not _is_accumulator(n)) - 1
        root_ref = ev.TensorRef(len(refs) + before, root.name or f"t{before}", tuple(root.shape), root.dtype.name,
                                str(root.device), False, bool(root.requires_grad))
        refs[id(root)] = (root, root_ref)
    root_ref = tensor_ref(root)
    if root.grad_fn is None:
        m = GraphModel()
        t = m._tensor(root_ref)
        t.value, t.root = ev.snapshot(root._data, max_elements), True
        m.static = Fold(m)
        if root.requires_grad and root.grad is not None:
            m.static.grads[root_ref.tensor_id] = ev.snapshot(root.grad._data, max_elements)
        return m
    records, acc_links, positions = _structure(root, nodes, node_ids, tensor_ref, {}, max_elements)
    m = GraphModel.from_events([], structure=records, acc_links=acc_links)
    _fix_positions(m, positions)
    m.tensors[root_ref.tensor_id].root = True
    for t, ref in refs.values():
        if t.grad_fn is None:
            m.tensors[ref.tensor_id].value = ev.snapshot(t._data, max_elements)
    m.static = Fold(m)
    _leaf_state(nodes, node_ids, tensor_ref, max_elements, m.static)
    return m


def as_model(source) -> GraphModel:
    """A GraphModel from a Tape, a ``steps`` iterator (its tape), a model, or a tensor."""
    if isinstance(source, GraphModel):
        return source
    tape = source if isinstance(source, ev.Tape) else getattr(source, "tape", None)
    if isinstance(tape, ev.Tape):
        return GraphModel.from_events(tape.events, tape=tape)
    if hasattr(source, "grad_fn") and hasattr(source, "data"):
        return model_of_tensor(source)
    raise TypeError(f"draw/play expect a Tape (from `with autogradlab.trace() as tape:`) or a Tensor, "
                    f"got {type(source).__name__}")
