"""Exports of a player: one self-contained HTML file, and an animated GIF.

The HTML file holds every frame inline (the SVG template once, then each frame's slot values as
changes from the frame before), the captions with plain-HTML formulas (MathJax cannot load
offline), the side panels, a small script and CSS. It needs no network and no kernel, and uses the
widget's CSS classes (``agl-player``, ``agl-prev``, ``agl-next``, ``agl-next-accumulate``,
``agl-next-free``, ``agl-play``, ``agl-slider``, ``agl-graph``, ``agl-caption``, ``agl-panel``), so
the browser tests that drive the widget drive the file too.
"""
from __future__ import annotations

import html
import io
import json
import re

from . import layout, style
from .frames import Frames

__all__ = ["export_data", "frames_from_export", "player_html", "save_gif"]

PAGE_CSS = """
body { font: 14px/1.4 Helvetica, Arial, sans-serif; margin: 16px; color: #1a1a1a; background: #ffffff; }
@media (prefers-color-scheme: dark) { body { color: #e6e6e6; background: #1e1e1e; } }
.agl-player { display: flex; flex-direction: column; gap: 6px; max-width: 100%; }
.agl-controls, .agl-buttons { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; }
.agl-player button { font: inherit; padding: 3px 10px; border-radius: 3px; border: 1px solid #888;
  background: #f0f0f0; color: #111; cursor: pointer; }
.agl-player button:disabled { opacity: 0.45; cursor: default; }
.agl-slider { display: flex; align-items: center; gap: 6px; }
.agl-slider input[type=range] { width: min(60vw, 420px); }
.agl-slider .widget-readout { min-width: 3em; font-variant-numeric: tabular-nums; }
.agl-speed { width: 5em; }
.agl-body { display: flex; align-items: flex-start; gap: 12px; }
.agl-graph { flex: 1 1 auto; min-width: 0; overflow: auto; }
.agl-panel { flex: 0 0 auto; max-width: 320px; overflow: auto; }
.agl-caption { min-height: 3em; }
.agl-caption code { font-size: 90%; }
.agl-formula { font-family: "Cambria Math", "STIX Two Math", Georgia, serif; font-size: 110%; }
.agl-player i.fa { font-style: normal; }
"""

_SCRIPT = r"""
(function () {
  "use strict";
  var box = document.getElementById("agl-player");
  var D = JSON.parse(document.getElementById("agl-data").textContent);
  var S = D.strings, P = D.parts, n = D.steps.length, first = D.steps[0];
  var frames = [D.base.slice()];
  for (var k = 1; k < n; k++) {
    var f = frames[k - 1].slice(), d = D.deltas[k - 1];
    for (var j = 0; j < d.length; j += 2) { f[d[j]] = d[j + 1]; }
    frames.push(f);
  }
  function svg(k) {
    var f = frames[k], out = [P[0]];
    for (var j = 0; j < f.length; j++) { out.push(S[f[j]], P[j + 1]); }
    return out.join("");
  }
  function q(sel) { return box.querySelector(sel); }
  var graph = q(".agl-graph"), caption = q(".agl-caption"), panel = q(".agl-panel");
  var range = q(".agl-slider input[type=range]"), readout = q(".agl-slider .widget-readout");
  var prev = q(".agl-prev"), next = q(".agl-next"), nacc = q(".agl-next-accumulate"), nfree = q(".agl-next-free");
  var start = q(".agl-play-start"), pause = q(".agl-play-pause"), speed = q(".agl-speed");
  var cur = -1, timer = null;
  function show(k) {
    k = Math.max(0, Math.min(n - 1, k));
    if (k !== cur) {
      cur = k;
      graph.innerHTML = svg(k);
      caption.innerHTML = S[D.captions[k]];
      panel.innerHTML = S[D.panels[k]];
    }
    range.value = String(first + k);
    readout.textContent = String(first + k);
    prev.disabled = k === 0;
    next.disabled = k === n - 1;
    nacc.disabled = D.next_acc[k] < 0;
    nfree.disabled = D.next_free[k] < 0;
  }
  function stop() {
    if (timer !== null) { clearInterval(timer); timer = null; }
    pause.disabled = true;
    start.disabled = false;
  }
  function play() {
    stop();
    if (cur >= n - 1) { show(0); }
    var ms = Math.max(20, parseInt(speed.value, 10) || D.interval);
    timer = setInterval(function () { if (cur >= n - 1) { stop(); } else { show(cur + 1); } }, ms);
    start.disabled = true; pause.disabled = false;
  }
  prev.addEventListener("click", function () { show(cur - 1); });
  next.addEventListener("click", function () { show(cur + 1); });
  nacc.addEventListener("click", function () { if (D.next_acc[cur] >= 0) { show(D.next_acc[cur] - first); } });
  nfree.addEventListener("click", function () { if (D.next_free[cur] >= 0) { show(D.next_free[cur] - first); } });
  function fromRange() { show(parseInt(range.value, 10) - first); }
  range.addEventListener("input", fromRange);
  range.addEventListener("change", fromRange);
  start.addEventListener("click", play);
  pause.addEventListener("click", stop);
  speed.addEventListener("change", function () { if (timer !== null) { play(); } });
  stop();
  show(0);
})();
"""


def export_data(frames: Frames, interval: int = 500) -> dict:
    """Everything the exported page needs, as JSON-ready data (strings are stored once)."""
    strings, index = [], {}

    def sid(s):
        i = index.get(s)
        if i is None:
            i = index[s] = len(strings)
            strings.append(s)
        return i
    base, deltas, prev = None, [], None
    captions, panels, next_acc, next_free = [], [], [], []
    for step in frames.steps:
        vals = [sid(v) for v in frames.slot_values(step)]
        if prev is None:
            base = vals
        else:
            d = []
            for j, (a, b) in enumerate(zip(prev, vals)):
                if a != b:
                    d += [j, b]
            deltas.append(d)
        prev = vals
        captions.append(sid(frames.caption(step, math=False)))
        panels.append(sid(frames.panel(step)))
        na, nf = frames.next_of_kind(step, "Accumulated"), frames.next_of_kind(step, "SavedFreed")
        next_acc.append(-1 if na is None else na)
        next_free.append(-1 if nf is None else nf)
    return {"format": "autogradlab-player", "version": 1, "steps": frames.steps, "interval": int(interval),
            "parts": frames.template.parts, "strings": strings, "base": base, "deltas": deltas,
            "captions": captions, "panels": panels, "next_acc": next_acc, "next_free": next_free}


def frames_from_export(data: dict) -> list:
    """The SVG of every frame of an export's data, rebuilt as its script does (for tests)."""
    parts, strings = data["parts"], data["strings"]
    cur, out = list(data["base"]), []
    for k in range(len(data["steps"])):
        if k:
            d = data["deltas"][k - 1]
            for j in range(0, len(d), 2):
                cur[d[j]] = d[j + 1]
        pieces = [parts[0]]
        for j, s in enumerate(cur):
            pieces += [strings[s], parts[j + 1]]
        out.append("".join(pieces))
    return out


def player_html(frames: Frames, title: str = "autogradlab player", interval: int = 500) -> str:
    """The exported page as a string."""
    data = export_data(frames, interval)
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    lo, hi = frames.steps[0], frames.steps[-1]
    first_svg = frames.svg(lo)
    esc = html.escape
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(title)}</title>
<style>{PAGE_CSS}{style.PANEL_CSS}</style>
</head>
<body>
<div class="agl-player" id="agl-player">
<div class="agl-controls">
<div class="agl-play widget-play">
<button type="button" class="agl-play-start" title="play"><i class="fa fa-play"></i> \u25b6 play</button>
<button type="button" class="agl-play-pause" title="pause"><i class="fa fa-pause"></i> \u275a\u275a pause</button>
</div>
<div class="agl-slider widget-slider"><label>step</label>
<input type="range" min="{lo}" max="{hi}" step="1" value="{lo}" aria-label="step">
<span class="widget-readout">{lo}</span></div>
<label>ms/step <input type="number" class="agl-speed" min="50" max="5000" step="50" value="{int(interval)}"></label>
</div>
<div class="agl-buttons">
<button type="button" class="agl-prev">\u25c0 back</button>
<button type="button" class="agl-next">next \u25b6</button>
<button type="button" class="agl-next-accumulate">next accumulate</button>
<button type="button" class="agl-next-free">next free</button>
</div>
<div class="agl-caption">{frames.caption(lo, math=False)}</div>
<div class="agl-body">
<div class="agl-graph">{first_svg}</div>
<div class="agl-panel">{frames.panel(lo)}</div>
</div>
</div>
<script type="application/json" id="agl-data">{payload}</script>
<script>{_SCRIPT}</script>
</body>
</html>
"""


# ---------------------------------------------------------------------------------------
# GIF
# ---------------------------------------------------------------------------------------

_POINTS = re.compile(r'points="([^"]*)"')
_ELLIPSE = re.compile(r'cx="([-\d.]+)" cy="([-\d.]+)" rx="([-\d.]+)" ry="([-\d.]+)"')


def _geometry(svg: str) -> dict:
    """dom id -> (x, y, width, height) in points (graphviz coordinates, y up) for each node."""
    geo = {}
    for m in re.finditer(r'<g id="(agl-node-[^"]*)" class="[^"]*">(.*?)</g>', svg, re.DOTALL):
        xs, ys = [], []
        for pts in _POINTS.findall(m.group(2)):
            for p in pts.split():
                x, y = p.split(",")
                xs.append(float(x))
                ys.append(float(y))
        for cx, cy, rx, ry in _ELLIPSE.findall(m.group(2)):
            cx, cy, rx, ry = map(float, (cx, cy, rx, ry))
            xs += [cx - rx, cx + rx]
            ys += [cy - ry, cy + ry]
        if xs:
            geo[m.group(1)] = ((min(xs) + max(xs)) / 2, -(min(ys) + max(ys)) / 2, max(xs) - min(xs), max(ys) - min(ys))
    return geo


def save_gif(frames: Frames, path, *, fps: float = 2.0, dpi: int = 96):
    """One GIF frame per step: each drawn by ``neato -n2`` at the positions of the player's layout
    (so nothing moves), with the step's description underneath. Needs Pillow."""
    try:
        from PIL import Image, ImageDraw
    except ImportError:
        raise ImportError("save_gif needs Pillow: pip install pillow (save_html needs nothing extra)") from None
    from pathlib import Path

    from .. import events as ev
    from .model import Fold
    from .render import to_dot

    geo = _geometry(frames.svg(frames.steps[0]))
    model, disp = frames.model, frames.display
    f = Fold(model)
    if model.static is not None:
        f.copy_static(model.static)
    images = []
    events = model.events
    for e in events[:frames.steps[0]]:
        f.apply(e)
    for step in frames.steps:
        if step < len(events) and step != frames.error_step:
            f.apply(events[step])
        g = to_dot(disp, f, show_values=frames.show_values, rankdir=frames.rankdir, legend_on=False, hidden="invis")
        for dn in disp.nodes.values():
            if dn.dom_id in geo:
                x, y, w, h = geo[dn.dom_id]
                g.node(dn.name, pos=f"{x:.2f},{y:.2f}!", width=f"{w / 72:.3f}", height=f"{h / 72:.3f}",
                       fixedsize="true")
        g.attr(dpi=str(dpi), splines="true", bgcolor="white")
        png = layout.run_dot(g.source, fmt="png", engine="neato", count=False, args=("-n2",))
        img = Image.open(io.BytesIO(png)).convert("RGB")
        if step == frames.error_step:
            text = f"step {step}: error: {frames.error}"
        else:
            text = f"step {step}: {ev.describe(events[step]).strip()}" if step < len(events) else f"step {step}"
        strip = Image.new("RGB", (img.width, 34), "white")
        ImageDraw.Draw(strip).text((6, 4), text[:160], fill=(17, 17, 17))
        canvas = Image.new("RGB", (img.width, img.height + strip.height), "white")
        canvas.paste(img, (0, 0))
        canvas.paste(strip, (0, img.height))
        images.append(canvas)
    width = max(i.width for i in images)
    height = max(i.height for i in images)
    out = []
    for i in images:
        c = Image.new("RGB", (width, height), "white")
        c.paste(i, (0, 0))
        out.append(c.convert("P", palette=Image.Palette.ADAPTIVE))
    path = Path(path)
    out[0].save(path, save_all=True, append_images=out[1:], duration=int(1000 / max(fps, 0.1)), loop=0)
    return path
