"""From a graph model and a step's state to what is drawn: nodes, their label lines, classes, edges.

:class:`Display` decides *what* is drawn (one drawing node per tensor and per op, or, for graphs
larger than ``max_nodes``, repeated op chains collapsed into one "×N" node and the farthest nodes
folded into one summary node). The ``*_texts`` and ``*_classes`` functions say how each drawing
node looks at a step; :func:`to_dot` writes it all as a ``graphviz.Digraph``. The same functions
feed the static drawing and the player's frames, so both always agree.
"""
from __future__ import annotations

import math
from collections import deque

from . import style
from .model import Fold, GraphModel

__all__ = [
    "ROLES",
    "DEdge",
    "DNode",
    "Display",
    "edge_classes",
    "edge_text",
    "fmt",
    "node_classes",
    "node_texts",
    "to_dot",
]

# the label lines of each drawing-node kind, top to bottom
ROLES = {
    "tensor": ("title", "meta", "value", "grad"),
    "op": ("title", "sub", "saves", "status"),
    "chain": ("title", "sub", "saves", "status"),
    "summary": ("title", "sub"),
}


class DNode:
    """One node of the drawing: a tensor, an op, a collapsed chain of ops, or the summary node."""

    __slots__ = (
        "backward",
        "dom_id",
        "kind",
        "member_set",
        "members",
        "name",
        "omitted",
        "op",
        "op_ids",
        "ops",
        "step",
        "tensor",
    )

    def __init__(self, name, dom_id, kind, members, backward=False, step=-1):
        self.name, self.dom_id, self.kind = name, dom_id, kind
        self.members = members
        self.member_set = set(members)
        self.backward, self.step = backward, step
        self.tensor = self.op = None
        self.ops = []
        self.omitted = 0
        self.op_ids = frozenset()


class DEdge:
    """One edge of the drawing; ``members`` are the model edges it stands for: (node id, input index or "out")."""

    __slots__ = ("dom_id", "dst", "members", "src", "step")

    def __init__(self, dom_id, src, dst, step):
        self.dom_id, self.src, self.dst, self.step = dom_id, src, dst, step
        self.members = []


class Display:
    """What is drawn for ``model`` (nodes recorded up to ``upto``; all when None)."""

    def __init__(self, model: GraphModel, max_nodes: int = 200, upto: int | None = None, min_chain: int = 3):
        self.model = model
        self.max_nodes = max(int(max_nodes), 2)
        m = model
        ops = sorted((o for o in m.ops.values() if upto is None or o.step <= upto), key=lambda o: (o.step, o.nid))
        op_ids = {o.nid for o in ops}
        tensors = {tid: t for tid, t in m.tensors.items() if upto is None or t.step <= upto}
        # model nodes in forward order: each op's new inputs, the op, its output; then the rest (a dict
        # as an ordered set: setting a key again keeps its first place)
        order = {}
        for o in ops:
            for i in sorted(o.inputs):
                if o.inputs[i] in tensors:
                    order["t", o.inputs[i]] = None
            order["o", o.nid] = None
            if o.output in tensors:
                order["t", o.output] = None
        for tid in sorted(tensors):
            order["t", tid] = None
        self.acc_of = {tid: nid for nid, tid in m.node_tensor.items() if nid in m.acc_nodes}
        self.producer_of = {}
        for nid, tid in m.node_tensor.items():
            if nid in m.ops:
                self.producer_of.setdefault(tid, nid)
        for o in m.ops.values():
            if o.output is not None:
                self.producer_of.setdefault(o.output, o.nid)

        owner = {k: k for k in order}
        groups = {}          # group key -> list of model keys (chains)
        self.collapsed_ops = 0
        if len(order) > self.max_nodes:
            groups = self._chains(ops, op_ids, tensors, min_chain)
            for gkey, members in groups.items():
                for k in members:
                    owner[k] = gkey
            self.collapsed_ops = sum(sum(1 for k in g if k[0] == "o") for g in groups.values())

        # drawing nodes
        self.nodes: dict = {}
        for k in order:
            dk = owner[k]
            if dk in self.nodes:
                continue
            if dk[0] == "chain":
                members = groups[dk]
                first = members[0][1]
                d = DNode(f"c{first}", f"agl-node-chain-{first}", "chain", members)
                d.ops = [m.ops[n] for kind, n in members if kind == "o"]
                d.op = d.ops[0]
                d.op_ids = frozenset(o.nid for o in d.ops)
                d.backward = all(o.backward for o in d.ops)
                d.step = min(o.step for o in d.ops)
            elif dk[0] == "t":
                t = tensors[dk[1]]
                d = DNode(f"t{t.tid}", f"agl-node-tensor-{t.tid}", "tensor", [dk], t.backward, t.step)
                d.tensor = t
            else:
                o = m.ops[dk[1]]
                d = DNode(f"o{o.nid}", f"agl-node-op-{o.nid}", "op", [dk], o.backward, o.step)
                d.op = o
                d.op_ids = frozenset((o.nid,))
            self.nodes[dk] = d

        # model edges -> drawing edges
        def model_edges():
            for o in ops:
                for i in sorted(o.inputs):
                    if o.inputs[i] in tensors:
                        yield ("t", o.inputs[i]), ("o", o.nid), (o.nid, i), o.step
                if o.output in tensors:
                    yield ("o", o.nid), ("t", o.output), (o.nid, "out"), o.step

        self.omitted = 0
        if len(self.nodes) > self.max_nodes:
            owner = self._truncate(owner, model_edges)
        self.owner = owner
        self.edges: dict = {}
        nodes = self.nodes
        for src, dst, member, step in model_edges():
            a, b = owner[src], owner[dst]
            if a == b:
                continue
            na, nb = nodes[a], nodes[b]
            plain = na.kind in ("tensor", "op") and nb.kind in ("tensor", "op")
            da, db = na.name, nb.name
            if plain and member[1] != "out":
                ekey, dom = (a, b, member[1]), f"agl-edge-{da}-{db}-{member[1]}"
            else:
                ekey, dom = (a, b), f"agl-edge-{da}-{db}"
            e = self.edges.get(ekey)
            if e is None:
                e = self.edges[ekey] = DEdge(dom, a, b, step)
            e.members.append(member)
            e.step = min(e.step, step)
        self.edge_of = {}    # model edge -> drawing edge key
        for ekey, e in self.edges.items():
            for member in e.members:
                self.edge_of[member] = ekey

    # -- collapsing -------------------------------------------------------------------------
    def _chains(self, ops, op_ids, tensors, min_chain):
        """Runs of the same op where each output feeds only the next op: one node each."""
        m = self.model
        succ, pred = {}, {}
        for o in ops:
            for i in sorted(o.inputs):
                tid = o.inputs[i]
                t = tensors.get(tid)
                p = t.producer if t is not None else None
                if p is None or p not in op_ids or p in succ or o.nid in pred:
                    continue
                po = m.ops[p]
                users = [c for c in m.consumers.get(tid, ()) if c[0] in op_ids]
                if po.op != o.op or po.backward != o.backward or len(users) != 1 or t.root:
                    continue
                succ[p], pred[o.nid] = o.nid, p
        groups = {}
        for o in ops:
            if o.nid in pred:
                continue
            run = [o.nid]
            while run[-1] in succ:
                run.append(succ[run[-1]])
            if len(run) < min_chain:
                continue
            members = []
            for n in run:
                members.append(("o", n))
                if n != run[-1]:
                    members.append(("t", m.ops[n].output))
            inside, taken = set(run), set(members)
            for n in run:  # constants used only inside the chain (x * 1.01 in a loop) go with it
                for tid in m.ops[n].inputs.values():
                    t = tensors.get(tid)
                    if t is not None and t.kind == "const" and ("t", tid) not in taken and \
                            all(c[0] in inside for c in m.consumers.get(tid, ())):
                        members.append(("t", tid))
                        taken.add(("t", tid))
            groups[("chain", run[0])] = members
        return groups

    def _truncate(self, owner, model_edges):
        """Keep the ``max_nodes - 1`` drawing nodes nearest the outputs; fold the rest into one node."""
        preds, has_out = {k: [] for k in self.nodes}, set()
        for src, dst, _, _ in model_edges():
            a, b = owner[src], owner[dst]
            if a != b:
                preds[b].append(a)
                has_out.add(a)
        keys = list(self.nodes)
        rank = {k: i for i, k in enumerate(keys)}
        budget = self.max_nodes - 1
        kept, queue = [], deque()
        seen = set()
        starts = [k for k in reversed(keys) if k not in has_out] + list(reversed(keys))
        for s in starts:
            if len(kept) >= budget:
                break
            if s in seen:
                continue
            seen.add(s)
            queue.append(s)
            while queue and len(kept) < budget:
                k = queue.popleft()
                kept.append(k)
                for p in sorted(set(preds[k]), key=lambda x: -rank[x]):
                    if p not in seen:
                        seen.add(p)
                        queue.append(p)
        keep = set(kept)
        dropped = [k for k in keys if k not in keep]
        summary = DNode("s", "agl-node-summary", "summary", [], False,
                        min((self.nodes[k].step for k in dropped), default=-1))
        for k in dropped:
            d = self.nodes.pop(k)
            summary.members.extend(d.members)
            summary.omitted += 1
        summary.member_set = set(summary.members)
        self.omitted = sum(1 for _ in summary.members)
        self.nodes[("summary",)] = summary
        return {k: (v if v in keep else ("summary",)) for k, v in owner.items()}

    # -- questions ----------------------------------------------------------------------------
    def node_of(self, key):
        """The drawing node that shows model key ``key`` (None if not drawn)."""
        dk = self.owner.get(key)
        return None if dk is None else self.nodes.get(dk)

    def note(self) -> str:
        """What the drawing left out, in words ("" when everything is drawn)."""
        parts = []
        if self.collapsed_ops:
            n_chains = sum(1 for d in self.nodes.values() if d.kind == "chain")
            parts.append(f"{self.collapsed_ops} repeated ops drawn as {n_chains} chain node"
                         f"{'s' if n_chains != 1 else ''} (×N)")
        if self.omitted:
            parts.append(f"{self.omitted} nodes farthest from the output folded into one summary node")
        if not parts:
            return ""
        return "; ".join(parts) + f" to stay within max_nodes={self.max_nodes}. tape.table() lists every step."


# ---------------------------------------------------------------------------------------
# Text
# ---------------------------------------------------------------------------------------

def _num(x, digits=4):
    if isinstance(x, (bool, int)):
        return str(x)
    if math.isnan(x) or math.isinf(x):
        return str(x)
    text = f"{x:.{digits}g}"
    return "0" if text in ("-0", "0") else text


def _shape(shape):
    if shape is None:
        return ""
    return "scalar" if len(shape) == 0 else "[" + ", ".join(map(str, shape)) + "]"


_FMT_CACHE: dict = {}


def fmt(v, limit: int = 30) -> str:
    """A value for a label: ``Value.short()``, or a min/max summary when that is longer than ``limit``."""
    if v is None:
        return "None"
    key = (id(v), limit)
    hit = _FMT_CACHE.get(key)
    if hit is not None and hit[0] is v:
        return hit[1]
    text = v.short()
    if len(text) > limit:
        dims = "x".join(map(str, v.shape))
        if v.data is not None and v.dtype.startswith("complex"):   # (no order: the range of the magnitudes)
            sizes = [abs(x) for x in v.data]
            text = f"<{dims}: |.| {_num(min(sizes), 3)}..{_num(max(sizes), 3)}>"
        elif v.data is not None:
            vals = [float(x) for x in v.data]
            text = f"<{dims}: {_num(min(vals), 3)}..{_num(max(vals), 3)}>"
        elif v.dtype.startswith("complex"):
            text = f"<{dims}: |.| {_num(v.min, 3)}..{_num(v.max, 3)}>"
        else:
            text = f"<{dims}: {_num(v.min, 3)}..{_num(v.max, 3)}>"
    if len(_FMT_CACHE) > 50000:
        _FMT_CACHE.clear()
    _FMT_CACHE[key] = (v, text)
    return text


def _is_active(d: DNode, f: Fold) -> bool:
    return f.active is not None and f.active in d.member_set


def node_texts(disp: Display, d: DNode, f: Fold, show_values: bool = True) -> dict:
    """role -> text for drawing node ``d`` at the fold's step ("" = no such line now)."""
    mark = style.ACTIVE_MARK if _is_active(d, f) else ""
    if d.kind == "tensor":
        t = d.tensor
        tag = {"param": "  (leaf)", "const": "  (constant)"}.get(t.kind, "")
        if t.root and t.kind == "computed":
            tag = "  (root)"
        meta = " ".join(x for x in (t.dtype or "", _shape(t.shape)) if x)
        value = "= " + fmt(t.value, 34) if show_values and t.value is not None else ""
        return {"title": mark + t.name + tag, "meta": meta, "value": value, "grad": _grad_text(disp, t, f)}
    if d.kind == "op":
        o = d.op
        saves = ""
        if o.saved:
            saves = ("freed: " if o.nid in f.freed else "saves: ") + ", ".join(o.saved)
        if o.nid in f.pruned:
            status = "pruned"
        elif f.current == o.nid and o.nid in f.ran:
            status = "running"
        elif o.nid in f.ran:
            status = "ran"
        else:
            status = ""
        return {"title": mark + o.op, "sub": f"{o.node_name} #{o.nid}", "saves": saves, "status": status}
    if d.kind == "chain":
        o, n = d.op, len(d.ops)
        ids = d.op_ids
        freed, ran, pruned = len(ids & f.freed), len(ids & f.ran), len(ids & f.pruned)
        first, last = d.ops[0].nid, d.ops[-1].nid
        saves = ""
        if o.saved:
            saves = ("saves: " if not freed else f"freed {freed}/{n}: ") + ", ".join(o.saved)
        status = ", ".join(p for p in ((f"ran {ran}/{n}" if ran else ""), (f"pruned {pruned}/{n}" if pruned else ""))
                           if p)
        return {"title": f"{mark}{o.op} \u00d7{n}", "sub": f"{o.node_name} #{first}\u2026#{last}",
                "saves": saves, "status": status}
    return {"title": f"{mark}\u2026 {len(d.members)} more nodes",
            "sub": f"not drawn (max_nodes={disp.max_nodes})"}


def _grad_text(disp: Display, t, f: Fold) -> str:
    kind = t.kind
    if kind == "const":
        return ""
    if f.acc is not None and f.acc[0] == t.tid:
        return f"grad: {fmt(f.acc[1], 20)} \u2192 {fmt(f.acc[2], 20)}"
    if kind == "param":
        nid = disp.acc_of.get(t.tid)
        g = f.grads.get(t.tid)
        if t.tid in f.captured:
            return f"grad(): {fmt(f.captured[t.tid])}"
        if nid is not None and nid in f.pruned:
            return f"grad: {fmt(g)} (pruned)"
        pending = f.buffers.get(nid) if nid is not None else None
        if pending is not None:
            return f"grad: {fmt(g, 20)} + pending {fmt(pending, 20)}"
        if g is None and f.passes == 0:
            return ""
        return f"grad: {fmt(g)}"
    nid = disp.producer_of.get(t.tid)
    pending = f.buffers.get(nid) if nid is not None else None
    if pending is not None:
        seed = f.seeds.get(t.tid)
        return f"grad: {fmt(pending)} ({'seed' if seed is pending else 'pending'})"
    if nid is not None and nid in f.node_grad:
        return f"grad: {fmt(f.node_grad[nid])}"
    if t.tid in f.grads:
        return f"grad: {fmt(f.grads[t.tid])}"
    if t.tid in f.captured:
        return f"grad(): {fmt(f.captured[t.tid])}"
    return ""


def node_classes(disp: Display, d: DNode, f: Fold) -> str:
    """The node's SVG classes: graphviz's ``node`` + kind + state (agl-active, agl-freed, ...)."""
    cls = ["node"]
    if d.kind == "tensor":
        t = d.tensor
        cls += ["agl-tensor", "agl-" + t.kind]
        if t.root:
            cls.append("agl-root")
        nid = disp.acc_of.get(t.tid) if t.kind == "param" else disp.producer_of.get(t.tid)
        if nid is not None and nid in f.buffers:
            cls.append("agl-pending")
        if t.kind == "param" and nid is not None and nid in f.pruned:
            cls.append("agl-pruned")
    elif d.kind in ("op", "chain"):
        cls.append("agl-op")
        ids = d.op_ids
        if d.kind == "chain":
            cls.append("agl-chain")
        if d.op.saved and ids <= f.freed:
            cls.append("agl-freed")
        if ids <= f.pruned:
            cls.append("agl-pruned")
        if not ids.isdisjoint(f.ran):
            cls.append("agl-ran")
    else:
        cls.append("agl-summary")
    if d.backward:
        cls.append("agl-backward")
    if d.step > f.step:
        cls.append("agl-hidden")
    if _is_active(d, f):
        cls.append("agl-active")
    return " ".join(cls)


def edge_text(disp: Display, e: DEdge, f: Fold) -> str:
    """The gradient this edge carried in the current pass (latest contribution), or ""."""
    best = None
    for member in e.members:
        hit = f.edge_grad.get(member)
        if hit is not None and (best is None or hit[0] > best[0]):
            best = hit
    return "" if best is None else "grad " + fmt(best[1], 22)


def edge_classes(disp: Display, e: DEdge, f: Fold) -> str:
    cls = ["edge"]
    if e.step > f.step:
        cls.append("agl-hidden")
    if f.active_edge is not None and f.active_edge in e.members:
        cls.append("agl-edge-active")
    return " ".join(cls)


# ---------------------------------------------------------------------------------------
# DOT
# ---------------------------------------------------------------------------------------

def _label(lines):
    import graphviz
    return graphviz.nohtml("\\n".join(line.replace("\\", "\\\\") for line in lines))


def _node_attrs(d: DNode):
    if d.kind == "tensor":
        attrs = dict(style.TENSOR_STYLE[d.tensor.kind])
        if d.tensor.root and d.tensor.kind == "computed":
            attrs.update(fillcolor=style.ROOT_FILL, peripheries="2")
        return attrs
    if d.kind == "op":
        attrs = dict(style.OP_STYLE)
        if d.backward:
            attrs["fillcolor"] = style.BACKWARD_OP_FILL
        return attrs
    if d.kind == "chain":
        attrs = dict(style.CHAIN_STYLE)
        if d.backward:
            attrs["fillcolor"] = style.BACKWARD_OP_FILL
        return attrs
    return dict(style.SUMMARY_STYLE)


def _state_attrs(attrs, classes):
    if "agl-freed" in classes:
        attrs.update(style.FREED_ATTRS)
    if "agl-pruned" in classes:
        attrs["style"] = attrs.get("style", "filled").replace(",bold", "").replace(",dotted", "") + \
            "," + style.PRUNED_STYLE
        attrs["fontcolor"] = "#444444"
    if "agl-active" in classes:
        attrs.update(style.ACTIVE_ATTRS)
    return attrs


def _cell(text, fill, border="1", cell_style=None, color=None):
    extra = f' STYLE="{cell_style}"' if cell_style else ""
    extra += f' COLOR="{color}"' if color else ""
    return f'<TD BGCOLOR="{fill}" BORDER="{border}"{extra}><FONT COLOR="{style.TEXT}">{text}</FONT></TD>'


def legend(g, rankdir):
    """The legend: one node holding a table whose cells are drawn in each kind's and state's style."""
    tensor, op_fill = style.TENSOR_STYLE, style.OP_STYLE["fillcolor"]
    rows = [
        (_cell("x (leaf): requires grad", tensor["param"]["fillcolor"], "2"),
         _cell("op: ellipse", op_fill, "1", "rounded")),
        (_cell("c (constant): no grad", tensor["const"]["fillcolor"], "1", "dotted"),
         _cell("\u25b6 active: this step", op_fill, "3", "rounded", style.ACTIVE)),
        (_cell("t0: computed (box)", tensor["computed"]["fillcolor"]),
         _cell("freed: saves released", style.FREED_FILL, "1", "rounded")),
        (_cell("y (root): backward start", style.ROOT_FILL, "2"),
         _cell("pruned (inputs=)", op_fill, "1", "dashed")),
    ]
    body = "".join(f"<TR>{a}{b}</TR>" for a, b in rows)
    label = (f'<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="3" CELLPADDING="2">'
             f'<TR><TD COLSPAN="2" BORDER="0"><FONT COLOR="{style.GREY}">legend (edges: gradient sent back '
             f'along them)</FONT></TD></TR>{body}</TABLE>>')
    with g.subgraph(name="legend") as sub:
        sub.node("legend", label, shape="plain", id="agl-legend", fontsize="8")


def to_dot(disp: Display, f: Fold, *, show_values=True, rankdir="BT", legend_on=True, texts=None,
           title=None, graph_cls=None, hidden="skip"):
    """The drawing as a ``graphviz.Digraph``.

    With ``texts`` (the player's layout pass: (node name, role) / edge id -> text), every node and
    edge is drawn with those texts and its kind's base style, so one layout fits every frame.
    Without it, the drawing shows the state at ``f`` with DOT attributes (a static picture); nodes
    not recorded yet at ``f`` are left out (``hidden="skip"``) or drawn invisible (``"invis"``).
    """
    import graphviz

    cls = graph_cls or graphviz.Digraph
    g = cls(name="autograd", format="svg")
    g.attr(rankdir=rankdir, bgcolor="transparent", fontname=style.FONT, fontsize="11", fontcolor=style.GREY,
           nodesep="0.3", ranksep="0.35", id="agl-graph", pad="0.1")
    g.attr("node", fontname=style.FONT, fontsize="11", color=style.BORDER, fontcolor=style.TEXT, margin="0.1,0.04",
           height="0.3")
    g.attr("edge", color=style.GREY, fontcolor=style.GREY, fontname=style.FONT, fontsize="10", arrowsize="0.7")
    note = disp.note()
    if title or note:
        g.attr(label=graphviz.nohtml("\\n".join(x for x in (title, note) if x)), labelloc="t", labeljust="l")
    layout = texts is not None

    def emit(target, d):
        if layout:
            lines = [texts.get((d.name, role), "") for role in ROLES[d.kind]]
            attrs = _node_attrs(d)
        else:
            classes = node_classes(disp, d, f)
            t = node_texts(disp, d, f, show_values)
            lines = [t[role] for role in ROLES[d.kind]]
            attrs = _state_attrs(_node_attrs(d), classes.split())
            if "agl-hidden" in classes:
                if hidden == "skip":
                    return
                attrs["style"] = "invis"
        target.node(d.name, _label([x for x in lines if x]), id=d.dom_id, **attrs)

    drawn = [d for d in disp.nodes.values()]
    back = [d for d in drawn if d.backward]
    for d in drawn:
        if not d.backward:
            emit(g, d)
    if back and (layout or hidden != "skip" or any(d.step <= f.step for d in back)):
        with g.subgraph(name="cluster_backward") as c:
            c.attr(label="recorded during backward (create_graph=True)", id="agl-cluster-backward",
                   style="dashed,rounded", color=style.GREY, fontcolor=style.GREY, fontsize="10")
            for d in back:
                emit(c, d)
    for e in disp.edges.values():
        a, b = disp.nodes[e.src], disp.nodes[e.dst]
        if layout:
            text = texts.get(e.dom_id, "")
            attrs = {}
        else:
            text = edge_text(disp, e, f)
            attrs = {}
            if e.step > f.step or a.step > f.step or b.step > f.step:
                if hidden == "skip":
                    continue
                attrs["style"] = "invis"
            if "agl-edge-active" in edge_classes(disp, e, f):
                attrs = {"color": style.ACTIVE, "fontcolor": style.ACTIVE, "penwidth": "2.5"}
        if text:
            attrs["label"] = _label([text])
        g.edge(a.name, b.name, id=e.dom_id, **attrs)
    if legend_on:
        legend(g, rankdir)
    return g
