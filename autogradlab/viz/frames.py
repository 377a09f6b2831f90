"""Every frame of a player, computed once; one ``dot`` layout shared by all of them.

:class:`Frames` folds the tape's events in order. After each step it recomputes only the drawing
nodes and edges that the step changed (their classes and label lines), so a frame is a list of
slot values. Then it lays the graph out once, with each label line as wide as its widest value
over all frames, and each frame is that SVG with its slot values filled in. The widget and the
HTML export both draw from here, so they show the same frames.
"""
from __future__ import annotations

import bisect
import html

from .. import events as ev
from . import captions, layout, style
from .model import Fold, GraphModel, as_model
from .render import (
    ROLES,
    Display,
    edge_classes,
    edge_text,
    fmt,
    node_classes,
    node_texts,
    to_dot,
)

__all__ = ["PHASES", "Frames"]

PHASES = ("backward", "forward", "all")

_WIDE = set("mwMW@%")
_NARROW = set("il1.,:;|!'()[] tfjrI")


def _width(text: str) -> float:
    return sum(0.85 if ch in _WIDE else 0.3 if ch in _NARROW else 0.6 for ch in text)


class Frames:
    """The frames of ``source`` (a Tape, or a model) for one phase.

    ``phase``: "backward" (default when the tape has a backward pass: from its first
    ``BackwardStarted`` to the end), "forward" (the ops being recorded, before any backward) or
    "all". ``error``: an exception (or message) shown as one last frame.
    """

    def __init__(self, source, *, phase=None, error=None, show_values=True, max_nodes=200, rankdir="BT",
                 legend=True):
        model = as_model(source)
        self.model: GraphModel = model
        self.show_values, self.rankdir, self.legend = show_values, rankdir, legend
        events = model.events
        n = len(events)
        first_bw = model.pass_starts[0] if model.pass_starts else None
        if phase is None:
            phase = "backward" if first_bw is not None else "forward"
        if phase not in PHASES:
            raise ValueError(f"phase must be one of {PHASES}, got {phase!r}")
        if n == 0:
            lo, hi = 0, -1      # a walked graph and no events (play_backward whose call raised at once)
        elif phase == "backward":
            if first_bw is None:
                raise ValueError("this tape has no backward pass: trace the .backward() call too, "
                                 "or use phase='forward' to watch the graph being recorded")
            lo, hi = first_bw, n - 1
        elif phase == "forward":
            lo, hi = 0, (first_bw - 1 if first_bw is not None else n - 1)
            if hi < lo:
                raise ValueError("this tape has no forward events (the graph was built outside the trace); "
                                 "use phase='backward', or record the forward inside `with trace():`")
        else:
            lo, hi = 0, n - 1
        if hi < lo and error is None and not model.tensors:
            raise ValueError("nothing to play: the tape is empty")
        self.phase, self.error = phase, error
        self.first = lo
        self.steps = list(range(lo, hi + 1))
        if error is not None or not self.steps:
            self.steps.append(hi + 1 if hi >= lo else lo)
        self.error_step = self.steps[-1] if error is not None else None
        self.last = self.steps[-1]
        upto = hi if hi >= lo else None
        if phase == "backward" or not model.events:
            upto = None
        self.display = Display(model, max_nodes, upto=upto)
        self._leaves = sorted(t.tid for t in model.tensors.values() if t.kind == "param")
        self._leaf_set = set(self._leaves)
        self._slots()
        self._fold(lo, hi)
        self._layout()
        kinds = {"Accumulated": [], "SavedFreed": [], "NodeStarted": [], "GradientComputed": []}
        for s in range(lo, hi + 1):
            k = type(events[s]).__name__
            if k in kinds:
                kinds[k].append(s)
        self._kind_steps = kinds

    # -- slots ------------------------------------------------------------------------------------
    def _slots(self):
        keys = []
        d = self.display
        for dn in d.nodes.values():
            keys.append(("cls", dn.dom_id))
            keys.extend(("text", dn.dom_id, role) for role in ROLES[dn.kind])
        for e in d.edges.values():
            keys.append(("cls", e.dom_id))
            keys.append(("text", e.dom_id, "label"))
        keys.append(("cls", "agl-cluster-backward"))
        self.keys = keys
        self.index = {k: i for i, k in enumerate(keys)}
        self.longest = [""] * len(keys)
        self._widths = [0.0] * len(keys)
        self._esc = {}

    def _set(self, vals, idx, text, is_text):
        hit = self._esc.get(text)
        if hit is None:
            hit = self._esc[text] = (html.escape(text, quote=True), _width(text))
        if is_text and hit[1] > self._widths[idx]:
            self._widths[idx], self.longest[idx] = hit[1], text
        vals[idx] = hit[0]

    def _node_vals(self, vals, dn, f):
        self._set(vals, self.index[("cls", dn.dom_id)], node_classes(self.display, dn, f), False)
        texts = node_texts(self.display, dn, f, self.show_values)
        for role in ROLES[dn.kind]:
            self._set(vals, self.index[("text", dn.dom_id, role)], texts[role], True)

    def _edge_vals(self, vals, e, f):
        self._set(vals, self.index[("cls", e.dom_id)], edge_classes(self.display, e, f), False)
        self._set(vals, self.index[("text", e.dom_id, "label")], edge_text(self.display, e, f), True)

    def _cluster_vals(self, vals, f):
        back = [dn for dn in self.display.nodes.values() if dn.backward]
        shown = any(dn.step <= f.step for dn in back)
        self._set(vals, self.index[("cls", "agl-cluster-backward")], "cluster" + ("" if shown else " agl-hidden"),
                  False)

    def _all_vals(self, vals, f):
        for dn in self.display.nodes.values():
            self._node_vals(vals, dn, f)
        for e in self.display.edges.values():
            self._edge_vals(vals, e, f)
        self._cluster_vals(vals, f)

    # -- the fold -----------------------------------------------------------------------------------
    def _fold(self, lo, hi):
        m, disp = self.model, self.display
        f = Fold(m)
        if m.static is not None:
            f.copy_static(m.static)
        for e in m.events[:max(lo, 0)]:
            f.apply(e)
        vals = [""] * len(self.keys)
        self._all_vals(vals, f)
        frames, panels = [], []
        panel = self._panel(f)
        for s in range(lo, hi + 1):
            e = m.events[s]
            dirty, dirty_edges, everything = f.apply(e)
            vals = list(vals)
            if everything:
                self._all_vals(vals, f)
            else:
                done = set()
                for key in dirty:
                    dn = disp.node_of(key)
                    if dn is not None and dn.dom_id not in done:
                        done.add(dn.dom_id)
                        self._node_vals(vals, dn, f)
                for member in dirty_edges:
                    ekey = disp.edge_of.get(member)
                    if ekey is not None:
                        self._edge_vals(vals, disp.edges[ekey], f)
                if type(e) is ev.OpRecorded:
                    self._cluster_vals(vals, f)
            if type(e) in (ev.Accumulated, ev.Seeded, ev.NodeStarted, ev.BackwardStarted, ev.NodePruned,
                           ev.BackwardFinished):
                panel = self._panel(f)
            frames.append(vals)
            panels.append(panel)
        if self.error is not None or not frames:
            if self.error is not None and frames:
                vals = list(vals)
                f.active = f.active_edge = f.acc = None
                self._all_vals(vals, f)
            frames.append(vals)
            panels.append(panel)
        self._frames, self._panels = frames, panels
        self.final_fold = f

    def _panel(self, f: Fold) -> str:
        """The side panel: each leaf's .grad, other .grad values, autograd.grad results, pending sums."""
        m, esc = self.model, html.escape
        acc_tid = f.acc[0] if f.acc is not None else None
        rows = []

        def row(name, value, changed=False):
            cls = ' class="agl-changed"' if changed else ""
            mark = " \u2190" if changed else ""
            rows.append(f"<tr{cls}><td>{esc(name)}</td><td class=\"agl-num\">{esc(value)}{mark}</td></tr>")
        leaves = self._leaves
        rows.append('<tr><th colspan="2">leaf .grad</th></tr>')
        if not leaves:
            rows.append('<tr><td colspan="2">(no leaf requires grad)</td></tr>')
        for tid in leaves:
            row(m.name(tid), fmt(f.grads.get(tid), 60), tid == acc_tid)
        others = sorted(tid for tid in f.grads if tid not in self._leaf_set)
        if others:
            rows.append('<tr><th colspan="2">.grad of non-leaves (retain_grad / inputs=)</th></tr>')
            for tid in others:
                row(m.name(tid), fmt(f.grads[tid], 60), tid == acc_tid)
        if f.captured:
            rows.append('<tr><th colspan="2">autograd.grad results</th></tr>')
            for tid in sorted(f.captured):
                row(m.name(tid), fmt(f.captured[tid], 60), tid == acc_tid)
        rows.append('<tr><th colspan="2">pending sums (fan-in buffers)</th></tr>')
        if not f.buffers:
            rows.append('<tr><td colspan="2">none</td></tr>')
        for nid in sorted(f.buffers):
            key = m.tensor_key_of_node(nid)
            who = m.name(key[1]) if key is not None else "?"
            row(f"{who} (node #{nid})", fmt(f.buffers[nid], 60), key == f.active)
        return f"<style>{style.PANEL_CSS}</style><table class=\"agl-panel-table\">{''.join(rows)}</table>"

    # -- layout ----------------------------------------------------------------------------------------
    def _layout(self):
        disp = self.display
        texts, roles = {}, {}
        for dn in disp.nodes.values():
            present = []
            for role in ROLES[dn.kind]:
                text = self.longest[self.index[("text", dn.dom_id, role)]]
                if text:
                    texts[(dn.name, role)] = text
                    present.append(role)
            roles[dn.dom_id] = present
        for e in disp.edges.values():
            text = self.longest[self.index[("text", e.dom_id, "label")]]
            if text:
                texts[e.dom_id] = text
            roles[e.dom_id] = ["label"] if text else []
        g = to_dot(disp, self.final_fold, show_values=self.show_values, rankdir=self.rankdir, legend_on=self.legend,
                   texts=texts)
        self.dot_source = g.source
        svg = layout.run_dot(g.source).decode("utf-8")
        self.layout_calls = 1
        self.template = t = layout.SvgTemplate(svg, roles, style.SVG_CSS)
        self._src = [self.index.get(k, -1) if k[0] != "root" else -2 for k in t.slot_keys]
        self._defaults = t.defaults

    # -- frames ----------------------------------------------------------------------------------------
    def __len__(self):
        return len(self.steps)

    def _k(self, step: int) -> int:
        if step < self.steps[0] or step > self.steps[-1]:
            raise IndexError(f"step {step} is outside this player's frames {self.steps[0]}..{self.steps[-1]}")
        return step - self.steps[0]

    def slot_values(self, step: int) -> list:
        """The template's slot values for ``step`` (escaped), in the template's order."""
        vals = self._frames[self._k(step)]
        root = f'data-step="{step}" class="agl-svg{" agl-error" if step == self.error_step else ""}"'
        return [root if i == -2 else (vals[i] if i >= 0 else d) for i, d in zip(self._src, self._defaults)]

    def svg(self, step: int) -> str:
        """The inline SVG of frame ``step`` (same layout in every frame)."""
        return self.template.render(self.slot_values(step))

    def event(self, step: int):
        if step == self.error_step or not (0 <= step < len(self.model.events)):
            return None
        return self.model.events[step]

    def caption(self, step: int, math: bool = True) -> str:
        """The caption of ``step``: HTML with $LaTeX$ (math=True) or plain HTML formulas."""
        self._k(step)
        if step == self.error_step:
            return captions.error_caption(step, self.error)[0 if math else 1]
        e = self.event(step)
        if e is None:
            return "<b>The graph</b> (no events)."
        return captions.caption(self.model, e)[0 if math else 1]

    def panel(self, step: int) -> str:
        return self._panels[self._k(step)]

    def next_of_kind(self, step: int, kind: str):
        """The first step after ``step`` whose event is ``kind`` (e.g. "Accumulated"), or None."""
        steps = self._kind_steps.get(kind, [])
        i = bisect.bisect_right(steps, step)
        return steps[i] if i < len(steps) else None
