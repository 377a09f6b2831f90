"""The tape: the events of one ``trace()``, with the tape-local ids and names. The engine calls
its methods (only while the tape is active); readers use ``table``, ``replay`` and the JSON form."""
from __future__ import annotations

import functools
import json
import linecache
import os
import sys
import sysconfig

from ..grad_mode import state
from ..graph import AccumulateGrad
from . import records
from .jsonio import _decode_event, _encode, _refs_of
from .records import (MAX_ELEMENTS, Accumulated, BackwardFinished, BackwardPlan, BackwardStarted,
                      GradientComputed, HookRan, NodePruned, NodeStarted, OpRecorded, PlannedNode, SavedFreed,
                      Seeded, SourceLine, TensorRef, Value, _dtype_name)
from .replay import ReplayState, replay
from .text import _row

_LETTERS = "abcdefgh"
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # .../autogradlab/


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


class Tape:
    """The events of one ``trace()``: a list plus the tape-local ids and names."""

    def __init__(self, max_elements: int = MAX_ELEMENTS, stats: bool = False):
        self.events: list = []
        self.max_elements = max_elements
        self.stats = bool(stats)       # arrays too large for a table get Stats (mean, std, NaN/inf, histogram)
        self._tensor_ids: dict = {}    # global creation number -> tape-local id
        self._tensor_refs: dict = {}   # tape-local id -> TensorRef
        self._node_ids: dict = {}      # node seq -> tape-local id
        self._node_output: dict = {}   # tape-local node id -> TensorRef of its output
        self._leaves = self._computed = 0
        self._passes = 0
        self._pass_counts = [0, 0, 0]  # nodes run, contributions, bytes freed
        self._values: dict = {}        # (tensor creation number, version) -> Value
        self._pass_arrays: dict = {}   # id(array) -> (array, Value), for the pass in progress
        self._sources: dict = {}       # (code object, line) -> SourceLine, so a loop's line is read once

    # -- ids, names and snapshots --------------------------------------------------------
    def _emit(self, cls, **fields):
        event = cls(step=len(self.events), **fields)
        self.events.append(event)
        return event

    def value(self, tensor_or_array) -> Value:
        """A snapshot; a tensor seen again at the same version reuses its snapshot (the same
        gradient shows up in NodeStarted, GradientComputed and Accumulated). Within a backward
        pass the arrays it moves are memoised too: the engine never changes one in place
        before the pass ends (``_pass_arrays`` keeps them alive, so their ids stay theirs)."""
        if hasattr(tensor_or_array, "_vc"):
            key = (tensor_or_array._id, tensor_or_array._vc[0])
            hit = self._values.get(key)
            if hit is None:
                if len(self._values) > 4096:
                    self._values.clear()
                hit = self._values[key] = records.snapshot(tensor_or_array.data, self.max_elements, self.stats)
            return hit
        hit = self._pass_arrays.get(id(tensor_or_array))   # an array: a gradient of a pass
        if hit is None or hit[0] is not tensor_or_array:
            hit = self._pass_arrays[id(tensor_or_array)] = (
                tensor_or_array, records.snapshot(tensor_or_array, self.max_elements, self.stats))
        return hit[1]

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

    def source_line(self):
        """The user's line that is running: the first frame outside the autogradlab package (a
        ``sys._getframe`` walk; the line's text is read once per code object and line). Its file is
        kept without the machine's path (:meth:`SourceLine.portable`: ``<cell>``, relative to the
        current directory, or the base name), so a saved tape names no home directory."""
        f = sys._getframe(1)
        while f is not None and f.f_code.co_filename.startswith(_PACKAGE_DIR):
            f = f.f_back
        if f is None:
            return None
        key = (f.f_code, f.f_lineno)
        src = self._sources.get(key)
        if src is None:
            file = f.f_code.co_filename
            src = SourceLine(file, f.f_lineno, linecache.getline(file, f.f_lineno, f.f_globals).strip()).portable()
            self._sources[key] = src
        return src

    def forward_traceback(self) -> tuple:
        """Anomaly mode's forward traceback, as the user's frames (outside autogradlab and outside
        Python's library and installed packages), outermost first, each a :class:`SourceLine` with its
        function."""
        frames = []
        f = sys._getframe(1)
        lib = _library_dirs()
        while f is not None:
            file = f.f_code.co_filename
            if not file.startswith(_PACKAGE_DIR) and not file.startswith(lib):
                key = ("tb", f.f_code, f.f_lineno)
                src = self._sources.get(key)
                if src is None:
                    src = self._sources[key] = SourceLine(
                        file, f.f_lineno, linecache.getline(file, f.f_lineno, f.f_globals).strip(),
                        f.f_code.co_name).portable()
                frames.append(src)
            f = f.f_back
        return tuple(reversed(frames))

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
                          input_values=tuple(self.value(t) if t.grad_fn is None else None for t in inputs),
                          source=self.source_line(),
                          traceback=self.forward_traceback() if state.anomaly else None)

    def backward_started(self, roots, retain_graph, create_graph, inputs, is_grad, plan=None):
        """``plan``: the engine's plan (``root_nodes``, ``input_nodes``, ``order``, ``pruned``,
        ``deps``, ``runs``, ``needed``), turned into a :class:`BackwardPlan`."""
        self._pass_arrays = {}
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

    def hook_values(self, grads) -> tuple:
        """Snapshots of the gradient(s) a hook gets or leaves (an array or Tensor, or a list of them,
        one per input, None where there is none), taken now: a hook may change a gradient in place."""
        if not isinstance(grads, (list, tuple)):
            grads = (grads,)
        return tuple(None if g is None else records.snapshot(g.data if hasattr(g, "_vc") else g,
                                                             self.max_elements, self.stats) for g in grads)

    def hook_ran(self, kind, node, changed, before=None, after=None):
        """``before``: :meth:`hook_values` taken before the hook ran; ``after``: the gradient(s) the pass
        goes on with (as :meth:`hook_values` takes them)."""
        return self._emit(HookRan, hook=kind, node_id=self.node_id(node), changed=bool(changed),
                          before=before, after=None if after is None and before is None else self.hook_values(after))

    def backward_finished(self):
        self._pass_arrays = {}
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
                tape.events.append(_decode_event(raw))
            except (KeyError, TypeError, ValueError) as exc:
                raise ValueError(f"Tape.from_json: event {i} is malformed: {exc}") from None
            if tape.events[-1].step != i:
                raise ValueError(f"Tape.from_json: event {i} has step {tape.events[-1].step}, expected {i}")
        for e in tape.events:
            for ref in _refs_of(e):
                tape._tensor_refs.setdefault(ref.tensor_id, ref)
        return tape
