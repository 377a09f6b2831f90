"""What the kernel sends the browser player, once: the tape's events and the graph to draw.

:func:`player_data` reads events only (a :class:`~autogradlab.events.Tape`, or a graph model folded
from one). It returns plain JSON-ready data:

- ``events``: the tape's events as :meth:`Tape.to_json` encodes them, less each ``OpRecorded``'s ``source``;
- ``sources``: node id -> ``{"where": "cell, line 3", "text": ...}``, the user's line that created it
  (no machine path: a file shows as its base name);
- ``tracebacks``: node id -> the forward traceback anomaly mode recorded for it (``[{"where", "text",
  "function"}]``, the user's frames, outermost first; only ops recorded under ``detect_anomaly()``);
- ``nodes``: what is drawn, one entry per tensor box / op ellipse (or collapsed chain), with its
  label lines, its kind, and ``engine_nodes``: the tape-local node ids whose state it shows (an op's
  node; a leaf's ``AccumulateGrad``), so the browser can mark it done, pending, freed or pruned;
- ``edges`` and ``edge_of``: each chain-rule edge ``(node id, input index)`` -> the drawn edge;
- ``detail``: when a large graph is collapsed (``"op ×N"`` chains, a summary node), each group node lists
  its ``members`` (keys of the uncollapsed drawing) and ``detail`` holds those members' own entries, the
  uncollapsed edges that touch them and the uncollapsed ``edge_of``, so the browser can expand a group;
- ``captions``: each event in words with its chain-rule formula and numbers (HTML, no MathJax);
- ``start`` / ``end``: the steps the player covers; ``error``: an optional last "error" frame;
- ``diff`` (only from :func:`diff_data`): the nodes that differ between two runs, with both numbers.

The browser lays the graph out once (Graphviz in WebAssembly) and computes every frame from the
events itself, so stepping needs no kernel.
"""
from __future__ import annotations


from .. import events as ev
from . import captions
from .model import GraphModel, as_model
from .render import Display, fmt

__all__ = ["PHASES", "diff_data", "player_data", "tape_names"]

PHASES = ("backward", "forward", "all")
_TITLES = {"backward": "backward pass", "forward": "forward pass", "all": "forward and backward"}
FORMAT = "autogradlab-player"
VERSION = 2


def _shape(shape):
    if shape is None:
        return ""
    return "scalar" if len(shape) == 0 else "[" + ", ".join(map(str, shape)) + "]"


def tape_names(tape, names) -> dict:
    """Tape-local tensor id -> display name, from ``names``: a module (its ``named_parameters()``,
    giving ``0.weight``), a mapping ``name -> tensor``, or an iterable of ``(name, tensor)`` pairs."""
    if names is None or tape is None:
        return {}
    if hasattr(names, "named_parameters"):
        pairs = list(names.named_parameters())
    elif hasattr(names, "items"):
        pairs = list(names.items())
    else:
        pairs = list(names)
    ids = getattr(tape, "_tensor_ids", {})
    out = {}
    for name, t in pairs:
        local = ids.get(getattr(t, "_id", None))
        if local is not None:
            out[local] = str(name)
    return out


def _phase_range(model: GraphModel, phase):
    n = len(model.events)
    first_bw = model.pass_starts[0] if model.pass_starts else None
    if phase is None:
        phase = "backward" if first_bw is not None else "forward"
    if phase not in PHASES:
        raise ValueError(f"phase must be one of {PHASES}, got {phase!r}")
    if phase == "backward":
        if first_bw is None:
            raise ValueError("this tape has no backward pass: trace the .backward() call too, "
                             "or use phase='forward' to watch the graph being recorded")
        return phase, first_bw, n - 1
    if phase == "forward":
        hi = (first_bw - 1) if first_bw is not None else n - 1
        if hi < 0:
            raise ValueError("this tape has no forward events (the graph was built outside the trace); "
                             "use phase='backward', or record the forward inside `with trace():`")
        return phase, 0, hi
    return phase, 0, n - 1


_TAGS = {"param": " (leaf)", "const": " (constant)"}   # after a tensor's name, by its kind


def _node_entry(disp: Display, dn, names, show_values):
    m = disp.model
    if dn.kind == "tensor":
        t = dn.tensor
        name = names.get(t.tid, t.name)
        tag = _TAGS.get(t.kind, "")
        if t.root and t.kind == "computed":
            tag = " (root)"
        lines = [name + tag, " ".join([x for x in (t.dtype or "", _shape(t.shape)) if x])]
        if show_values and t.value is not None:
            lines.append("= " + fmt(t.value, 30))
        acc = disp.acc_of.get(t.tid)
        producer = disp.producer_of.get(t.tid)
        return {"key": dn.name, "kind": t.kind, "lines": [x for x in lines if x], "tensor": t.tid,
                "root": bool(t.root), "grad_slot": t.kind != "const",
                "engine_nodes": [acc] if acc is not None else [],
                "grad_from": producer, "tooltip": f"{name}{tag}: {lines[1]}",
                "value": ev._enc(t.value) if t.value is not None else None}
    if dn.kind in ("op", "chain"):
        o = dn.op
        title = o.op if dn.kind == "op" else f"{o.op} \u00d7{len(dn.ops)}"
        sub = f"{o.node_name} #{o.nid}" if dn.kind == "op" else f"{o.node_name} #{dn.ops[0].nid}\u2026#{dn.ops[-1].nid}"
        lines = [title, sub]
        if o.saved:
            lines.append("saves: " + ", ".join(o.saved))
        formulas = [f for f in o.formulas if f]
        return {"key": dn.name, "kind": "op" if dn.kind == "op" else "group", "lines": lines, "tensor": None,
                "root": False, "grad_slot": False, "engine_nodes": sorted(dn.op_ids),
                "formulas": formulas, "backward": bool(dn.backward),
                "value": (ev._enc(m.tensors[o.output].value)
                          if dn.kind == "op" and o.output in m.tensors and m.tensors[o.output].value is not None
                          else None),
                "tooltip": "\n".join([f"{title} ({sub})", *formulas])}
    ids = sorted(k[1] for k in dn.members if k[0] == "o")
    ids += sorted(nid for k in dn.members if k[0] == "t" for nid in [disp.acc_of.get(k[1])] if nid is not None)
    return {"key": dn.name, "kind": "group", "lines": [f"\u2026 {len(dn.members)} more nodes",
                                                      f"folded (max_nodes={disp.max_nodes})"],
            "tensor": None, "root": False, "grad_slot": False, "engine_nodes": ids,
            "tooltip": disp.note()}


def player_data(source, *, phase=None, error=None, names=None, max_nodes: int = 400, show_values: bool = True,
                rankdir: str = "BT", title: str | None = None, height: str = "520px", speed: float = 2.0) -> dict:
    """The data the browser player needs, as JSON-ready Python objects (see the module docstring)."""
    model = as_model(source)
    phase, lo, hi = _phase_range(model, phase) if model.events else ("all", 0, -1)
    if hi < lo and error is None and not model.tensors:
        raise ValueError("nothing to play: the tape is empty")
    disp = Display(model, max_nodes)
    tape = model.tape
    names = tape_names(tape, names)
    nodes = [_node_entry(disp, dn, names, show_values) for dn in disp.nodes.values()]
    edges = [{"id": e.dom_id, "src": disp.nodes[e.src].name, "dst": disp.nodes[e.dst].name,
              "backward": bool(disp.nodes[e.src].backward and disp.nodes[e.dst].backward)}
             for e in disp.edges.values()]
    edge_of = {f"{nid}-{i}": disp.edges[ekey].dom_id for (nid, i), ekey in disp.edge_of.items() if i != "out"}
    tensor_node = {}
    for key, dk in disp.owner.items():
        if key[0] == "t" and dk in disp.nodes:
            tensor_node[str(key[1])] = disp.nodes[dk].name
    detail = _detail(model, disp, names, show_values)
    events = ev.jsonio.encode_events(model.events)   # plain JSON data (records they share, encoded once)
    sources = {}  # node id -> the user's line that created it, without the machine's path to the file
    tracebacks = {}  # node id -> anomaly mode's forward traceback (the user's frames, outermost first)
    has_forward = False
    for e, raw in zip(model.events, events):
        if not isinstance(e, ev.OpRecorded):   # (the only events with a source line or a traceback)
            continue
        has_forward = True
        if raw.pop("source", None) is not None:
            sources[str(e.node_id)] = {"where": e.source.label(), "text": e.source.text}
        if raw.pop("traceback", None) is not None:
            tracebacks[str(e.node_id)] = [{"where": f.label(), "text": f.text, "function": f.function}
                                          for f in e.traceback]
    caps = [captions.caption(model, e, tex=False)[1] for e in model.events]
    if names:  # names given by `names=` replace x0, x1, ... in the captions too
        caps = [_rename(c, model, names) for c in caps]
    err = captions.error_caption(hi + 1, error)[1] if error is not None else None
    first_bw = model.pass_starts[0] if model.pass_starts else len(model.events)
    static = model.static     # a walked graph's state before the tape starts (play_backward, draw(tensor))
    initial = {"freed": sorted(static.freed) if static is not None else [],
               "grads": {str(t): ev._enc(v) for t, v in sorted(static.grads.items())} if static is not None else {}}
    return {
        "format": FORMAT, "version": VERSION, "title": title or _TITLES[phase],
        "phase": phase, "start": lo, "end": hi, "error": err,
        "events": events, "captions": caps, "initial": initial, "sources": sources, "tracebacks": tracebacks,
        "nodes": nodes, "edges": edges, "edge_of": edge_of, "tensor_node": tensor_node,
        "has_forward": has_forward, "first_backward": first_bw,
        "detail": detail, "note": disp.note(), "rankdir": rankdir, "height": height, "speed": speed,
    }


def _detail(model, disp: Display, names, show_values):
    """The uncollapsed drawing of every group node's members: ``{"members": {group key: [member keys]}, "nodes", "edges", "edge_of"}``;
    None when nothing is collapsed."""
    groups = {dn.name: dn for dn in disp.nodes.values() if dn.kind not in ("tensor", "op")}
    if not groups:
        return None
    full = Display(model, max_nodes=10 ** 9)
    members, owner = {}, {}
    for key, dn in groups.items():
        keys = []
        for mk in dn.members:
            fn = full.nodes.get(mk)
            if fn is not None and fn.name not in owner:
                owner[fn.name] = key
                keys.append(fn.name)
        members[key] = keys
    nodes = [_node_entry(full, dn, names, show_values) for dn in full.nodes.values() if dn.name in owner]
    edges = []
    for e in full.edges.values():
        src, dst = full.nodes[e.src].name, full.nodes[e.dst].name
        if src in owner or dst in owner:
            edges.append({"id": e.dom_id, "src": src, "dst": dst,
                          "backward": bool(full.nodes[e.src].backward and full.nodes[e.dst].backward)})
    edge_of = {f"{nid}-{i}": full.edges[ekey].dom_id for (nid, i), ekey in full.edge_of.items() if i != "out"}
    tensor_node = {str(k[1]): full.nodes[dk].name for k, dk in full.owner.items()
                   if k[0] == "t" and dk in full.nodes and full.nodes[dk].name in owner}
    return {"members": members, "nodes": nodes, "edges": edges, "edge_of": edge_of, "tensor_node": tensor_node}


def _rename(text, model, names):
    import re
    for tid, new in names.items():
        old = model.name(tid)
        text = re.sub(rf"(?<![\w.]){re.escape(old)}(?![\w])", new, text)
    return text


# ---------------------------------------------------------------------------------------
# Diff: two tapes of the same graph
# ---------------------------------------------------------------------------------------

def _values_at(data, lo: int, hi: int) -> dict:
    """Drawn node key -> {"value": Value-json, "grad": Value-json} at the end of steps ``lo..hi``: a tensor's
    forward value and its .grad after step ``hi`` (it accumulates over passes), else the gradient its
    producer last ran with in ``lo..hi``; an op's gradient is the one it last received in ``lo..hi``."""
    out = {}
    ran_with = {}
    grads = {int(t): v for t, v in (data.get("initial") or {}).get("grads", {}).items()}
    for e in data["events"][:hi + 1]:
        if e["kind"] == "NodeStarted" and e.get("grad") is not None and e["step"] >= lo:
            ran_with[e["node_id"]] = e["grad"]
        elif e["kind"] == "Accumulated" and e["where"] != "buffer" and e.get("tensor"):
            grads[e["tensor"]["tensor_id"]] = e["after"]
    for n in data["nodes"]:
        g = None
        if n["tensor"] is not None and n["tensor"] in grads:
            g = grads[n["tensor"]]
        elif n.get("grad_from") is not None:
            g = ran_with.get(n["grad_from"])
        elif n["kind"] in ("op", "group") and n["engine_nodes"]:
            g = ran_with.get(n["engine_nodes"][-1])
        # an op's value is its output's, which has a box of its own: compare it there only
        out[n["key"]] = {"value": n.get("value") if n["tensor"] is not None else None, "grad": g}
    return out


def _eps(dtype) -> float:
    """The spacing of a float dtype's numbers next to 1 (0 for an integer or bool dtype)."""
    import numpy
    try:
        dt = numpy.dtype(dtype)
    except TypeError:
        return 0.0
    return float(numpy.finfo(dt).eps) if dt.kind in "fc" else 0.0


def _same(a, b, rtol) -> bool:
    """Whether two Value-jsons show the same numbers: ``|x - y| <= max(rtol * max(|x|, |y|), atol)``
    elementwise, with ``atol = max(rtol * m, eps)`` (``m`` the largest magnitude in either, ``eps`` the
    coarser float dtype's spacing at 1), so an exact 0 and float32 rounding noise next to it (``0.1 + 0.2
    - 0.3``) count as the same, as do small entries of a tensor whose large ones agree."""
    if a is None or b is None:
        return a is b
    if a.get("data") is None or b.get("data") is None:
        return a == b
    if a["shape"] != b["shape"]:
        return False
    xs, ys = _numbers(a["data"]), _numbers(b["data"])
    numbers = [abs(v) for v in (*xs, *ys) if not isinstance(v, dict)]
    atol = max(rtol * max(numbers, default=0.0), _eps(a.get("dtype")), _eps(b.get("dtype")))
    for x, y in zip(xs, ys):
        if isinstance(x, dict) or isinstance(y, dict):        # nan / inf, encoded
            if x != y:
                return False
        elif abs(x - y) > max(rtol * max(abs(x), abs(y)), atol):
            return False
    return True


def _numbers(data):
    """A Value-json's elements with each finite complex number as a Python complex (its encoded parts joined);
    NaN and inf, as encoded, stay dicts (compared as they are)."""
    out = []
    for v in data:
        if isinstance(v, dict) and "complex" in v:
            re, im = v["complex"]
            v = v if isinstance(re, dict) or isinstance(im, dict) else complex(re, im)
        out.append(v)
    return out


def _pass_ranges(data) -> list:
    """(first step, last step) of each backward pass of the data's tape, in order."""
    ranges, start = [], None
    for e in data["events"]:
        if e["kind"] == "BackwardStarted":
            start = e["step"]
        elif e["kind"] == "BackwardFinished" and start is not None:
            ranges.append((start, e["step"]))
            start = None
    if start is not None:                    # a pass that raised: it runs to the last event
        ranges.append((start, len(data["events"]) - 1))
    return ranges


def _compare(keys, va, vb, rtol):
    changed = {}
    for key in keys:
        what = [f for f in ("value", "grad") if not _same(va[key][f], vb[key][f], rtol)]
        if what:
            changed[key] = {"fields": what, "a": va[key], "b": vb[key]}
    return {"keys": [k for k in keys if k in changed], "nodes": changed}


def _expected_grads(data, tape, expected) -> dict:
    """Drawn tensor key -> the gradient a user expects there (a Value-json), from ``expected``: a mapping
    whose keys are tensor names (as drawn: ``x``, ``t0``, ``0.weight``) or the tensors themselves."""
    import numpy

    from ..tensor import Tensor
    by_name = {}
    for n in data["nodes"]:
        if n["tensor"] is not None:
            by_name[n["lines"][0].split(" (")[0]] = n
    ids = getattr(tape, "_tensor_ids", {})
    out = {}
    for k, v in expected.items():
        if isinstance(k, Tensor):
            local = ids.get(k._id)
            node = next((n for n in data["nodes"] if n["tensor"] == local), None) if local is not None else None
            label = f"a tensor of shape {tuple(k.shape)}"
        else:
            node, label = by_name.get(str(k)), repr(k)
        if node is None:
            raise ValueError(f"viz.diff(expected=...): {label} is not a tensor of this tape's graph; name one of "
                             f"{sorted(by_name)} (or pass the tensor itself)")
        arr = numpy.asarray(v.numpy() if isinstance(v, Tensor) else v)
        arr = arr.astype(numpy.complex128 if arr.dtype.kind == "c" else numpy.float64)
        shape = node["value"]["shape"] if node.get("value") else None
        if shape is not None and list(arr.shape) != list(shape):
            raise ValueError(f"viz.diff(expected=...): the gradient given for {node['lines'][0]} has shape "
                             f"{tuple(arr.shape)}, but the tensor has shape {tuple(shape)}")
        out[node["key"]] = ev._enc(ev.snapshot(arr, max(arr.size, 1)))
    return out


def diff_data(tape_a, tape_b=None, *, passes=None, expected=None, rtol: float = 1e-6, **kwargs) -> dict:
    """Two runs of the same graph, to be shown side by side with their differences marked.

    ``diff_data(tape_a, tape_b)``: two tapes (two training steps, a hand-computed tape against the
    engine's). ``diff_data(tape)`` (or ``passes=(i, j)``): two backward passes of one tape, by default
    the first and the second (``retain_graph=True``: the leaves' ``.grad`` has accumulated).

    ``diff_data(tape, expected={"x": ..., "w": ...})``: gradients you computed by hand (keyed by the
    tensors' drawn names or by the tensors) against the engine's, in one player: the tensors whose
    gradient is not the engine's are marked, both numbers in their panel.

    Returns the player data of the second run with ``diff``: ``keys`` (the drawn nodes whose forward
    value or gradient differ: relative tolerance ``rtol``, and an absolute one of ``rtol`` times the
    tensor's largest magnitude or the dtype's eps, whichever is larger, so float32 noise next to an
    exact 0 is not a difference), ``nodes`` (each with both runs' numbers),
    ``labels`` (what to call the two runs) and ``left``: the first run, which the front end draws
    beside the second (``{"start", "end", "title"}`` into the same events for two passes; ``{"data"}``,
    its own player data, for another tape)."""
    if expected is not None:
        if tape_b is not None or passes is not None:
            raise ValueError("expected= compares one tape's gradients with yours: call viz.diff(tape, expected=...)")
        b = player_data(tape_a, **kwargs)
        want = _expected_grads(b, tape_a, expected)
        got = _values_at(b, 0, len(b["events"]) - 1)
        changed = {}
        for key, g in want.items():
            if not _same(g, got[key]["grad"], rtol):
                changed[key] = {"fields": ["grad"], "a": {"value": None, "grad": g}, "b": got[key]}
        b["diff"] = {"keys": [n["key"] for n in b["nodes"] if n["key"] in changed], "nodes": changed,
                     "labels": ["yours", "engine"], "checked": sorted(want)}
        b["title"] = kwargs.get("title") or (f"diff: your gradients and the engine's, {len(changed)} of "
                                             f"{len(want)} differ (marked)")
        return b
    if tape_b is None:
        b = player_data(tape_a, **{"phase": "backward", **kwargs})
        ranges = _pass_ranges(b)
        i, j = (0, 1) if passes is None else passes
        if len(ranges) < 2 or not (0 <= i < len(ranges) and 0 <= j < len(ranges)) or i == j:
            raise ValueError(f"viz.diff(tape) compares two backward passes of one tape (passes={passes or (0, 1)}), "
                             f"but this tape has {len(ranges)}: run backward(retain_graph=True) and then backward() "
                             "again inside the same trace, or pass two tapes")
        keys = [n["key"] for n in b["nodes"]]
        (lo_a, hi_a), (lo_b, hi_b) = ranges[i], ranges[j]
        diff = _compare(keys, _values_at(b, lo_a, hi_a), _values_at(b, lo_b, hi_b), rtol)
        diff["labels"] = [f"pass {i}", f"pass {j}"]
        diff["left"] = {"start": lo_a, "end": hi_a, "title": f"pass {i}"}
        b["start"], b["end"], b["error"] = lo_b, hi_b, None
        b["title"] = kwargs.get("title") or f"diff: backward pass {i} (left) and pass {j} (right), nodes that differ marked"
        b["diff"] = diff
        return b
    if passes is not None:
        raise ValueError("passes= picks two passes of one tape: call viz.diff(tape, passes=(i, j)) with one tape")
    a, b = player_data(tape_a, **kwargs), player_data(tape_b, **kwargs)
    keys_a = [(n["key"], n["kind"]) for n in a["nodes"]]
    keys_b = [(n["key"], n["kind"]) for n in b["nodes"]]
    if keys_a != keys_b:
        raise ValueError("viz.diff compares two tapes of the same graph (the same ops in the same order); these "
                         f"draw different graphs ({len(keys_a)} and {len(keys_b)} nodes)")
    last_a, last_b = len(a["events"]) - 1, len(b["events"]) - 1
    diff = _compare([k for k, _ in keys_b], _values_at(a, 0, last_a), _values_at(b, 0, last_b), rtol)
    diff["labels"] = ["first", "second"]
    a["title"] = "first tape"
    diff["left"] = {"data": a, "title": "first tape"}
    b["diff"] = diff
    b["title"] = kwargs.get("title") or "diff: first tape (left) and second tape (right), nodes that differ marked"
    return b
