// The autogradlab player: lays a tape's graph out once with Graphviz (compiled to WebAssembly) and
// steps through the tape's events in the browser, restyling that one picture with d3 transitions.
//
// Used two ways, by the same code:
//   - as an anywidget ES module (default export: render({model, el})), the data in model "data";
//   - from a self-contained HTML file: mount(element, data).
// The kernel sends the tape once (autogradlab.viz.playerdata.player_data); every frame is computed
// here, so stepping needs no kernel.
//
// DOM contract (the browser tests rely on it): the root has class agl-player and data-step (the
// index of the event shown, -1 before the first); each graph node is <g class="node agl-node ..."
// id="agl-n-<key>" data-key="<key>" data-engine-nodes="3 7">, marked with one of the classes
// agl-done / agl-pending / agl-current / agl-pruned (during a pass) and agl-freed; edges are
// <g class="edge agl-edge" id="agl-e-<node>-<input>">.

import { instance as graphviz } from "@viz-js/viz";
import { select } from "d3-selection";
import "d3-transition";
import { zoom, zoomIdentity } from "d3-zoom";
import { easeCubicInOut } from "d3-ease";

const KINDS = [
  { kind: "Seeded", label: "seed", title: "next seed (a root receives its starting gradient)" },
  { kind: "GradientComputed", label: "chain rule", title: "next chain-rule step (upstream × local derivative)" },
  { kind: "Accumulated", label: "accumulate", title: "next accumulation (a gradient is added to a sum or a .grad)" },
  { kind: "SavedFreed", label: "free", title: "next free (a node releases its saved tensors)" },
  { kind: "NodePruned", label: "prune", title: "next prune (a node skipped because of inputs=)" },
  { kind: "HookRan", label: "hook", title: "next hook (the gradient before and after it is in the caption)" },
];
const SPEEDS = [0.5, 1, 2, 4, 8];

// ------------------------------------------------------------------------------------------
// Values: the tape's JSON encoding of autogradlab.events.Value
// ------------------------------------------------------------------------------------------

// the user's line that created a node (issue 15): "cell, line 3" or "train.py, line 12", and its text
const escSource = (t) => String(t).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

export function sourceHtml(src) {
  return `<span class="agl-source-where">${escSource(src.where)}</span>` +
    (src.text ? `: <code class="agl-source-text">${escSource(src.text)}</code>` : "");
}

// the caption's lines at the first NaN/inf gradient: where it appears, and where its op was created
// (anomaly mode's forward traceback: the innermost user frame)
export function anomalyNote(data, anomaly, k) {
  if (!anomaly || k !== anomaly.step) return "";
  const tb = (data.tracebacks || {})[anomaly.opNode];
  const e = data.events[k];
  let h = `<div class="agl-anomaly-note">⚠ the first NaN/inf gradient of this tape appears here (node #${anomaly.opNode}${e && e.node_name ? " " + escSource(e.node_name) : ""}).`;
  if (tb && tb.length) {
    const f = tb[tb.length - 1];
    h += ` Forward traceback (anomaly mode): <span class="agl-source-where">${escSource(f.where)}</span>` +
      (f.function ? ` in <code>${escSource(f.function)}</code>` : "") + (f.text ? `: <code class="agl-source-text">${escSource(f.text)}</code>` : "") +
      (tb.length > 1 ? ` (${tb.length} frames: click the node)` : "");
  } else {
    h += " Run the forward pass under <code>autograd.detect_anomaly()</code> to record where its op was created.";
  }
  return h + "</div>";
}

// the caption's line under a step of a node that has a source line
export function sourceNote(data, e) {
  const src = e && e.node_id !== undefined && e.node_id !== null && (data.sources || {})[e.node_id];
  return src ? `<div class="agl-source">created at ${sourceHtml(src)}</div>` : "";
}

function num(x) {
  if (x === null || x === undefined) return "?";
  if (typeof x === "object" && "complex" in x) {   // x + iy as 1.5-2j (each part as a number below)
    const [re, im] = x.complex;
    const imText = num(im);
    return `${num(re)}${imText.startsWith("-") ? "" : "+"}${imText}j`;
  }
  if (typeof x === "object" && "float" in x) return x.float;
  if (typeof x === "boolean") return String(x);
  if (Number.isInteger(x)) return String(x);
  let t = Number(x).toPrecision(4);
  if (t.includes("e")) {
    let [m, e] = t.split("e");
    if (m.includes(".")) m = m.replace(/0+$/, "").replace(/\.$/, "");
    const sign = e[0] === "-" ? "-" : "+";
    e = e.replace(/^[+-]/, "").padStart(2, "0");
    t = `${m}e${sign}${e}`;
  } else if (t.includes(".")) {
    t = t.replace(/0+$/, "").replace(/\.$/, "");
  }
  return t === "-0" ? "0" : t;
}

function nested(data, shape, off = 0) {
  if (shape.length === 0) return num(data[off]);
  const [n, ...rest] = shape;
  const size = rest.reduce((a, b) => a * b, 1);
  const parts = [];
  for (let i = 0; i < n; i++) parts.push(nested(data, rest, off + i * size));
  return `[${parts.join(", ")}]`;
}

export function shortValue(v) {
  if (v === null || v === undefined) return "—";
  if (v.data === null || v.data === undefined) {
    return `<${v.shape.join("x")}: min ${num(v.min)} max ${num(v.max)} norm ${num(v.norm)}>`;
  }
  return nested(v.data, v.shape);
}

// A value in the side panel: a small tensor as a table of its numbers; a large one as summary
// statistics and a histogram, both computed in the kernel (Value.stats, trace(stats=True)); without
// them its min, max and norm.
const escT = escSource;
const TABLE_MAX = 12;   // autogradlab.events.records.TABLE_SIDE: larger arrays get Stats in the kernel

export function isSmall(v) {
  if (!v || v.data === null || v.data === undefined) return false;
  if (v.shape.length > 2) return false;
  const cols = v.shape.length ? v.shape[v.shape.length - 1] : 1;
  const rows = v.shape.length === 2 ? v.shape[0] : 1;
  return cols <= TABLE_MAX && rows <= TABLE_MAX;
}

export function histogramSvg(st) {
  const counts = st.hist || [], n = counts.length, top = Math.max(1, ...counts);
  const W = 160, H = 48;
  let bars = "";
  counts.forEach((c, i) => {
    const h = c ? Math.max(1, (c / top) * (H - 2)) : 0;
    const a = st.lo + ((st.hi - st.lo) * i) / n, b = st.lo + ((st.hi - st.lo) * (i + 1)) / n;
    bars += `<rect class="agl-bar-${i}" x="${(i * W) / n + 0.5}" y="${H - h}" width="${Math.max(1, W / n - 1)}" height="${h}" data-count="${c}">` +
      `<title>[${num(a)}, ${num(b)}${i === n - 1 ? "]" : ")"}: ${c}</title></rect>`;
  });
  return `<svg class="agl-hist" viewBox="0 0 ${W} ${H + 12}" width="${W}" height="${H + 12}" role="img" ` +
    `aria-label="histogram of the finite elements, ${n} bins from ${num(st.lo)} to ${num(st.hi)}" data-counts="${counts.join(",")}">` +
    `${bars}<text x="0" y="${H + 10}">${escT(num(st.lo))}</text><text x="${W}" y="${H + 10}" text-anchor="end">${escT(num(st.hi))}</text></svg>`;
}

export function statsHtml(v) {
  const st = v.stats;
  const size = v.shape.reduce((a, b) => a * b, 1);
  const row = (k, label, x) => `<tr><th>${label}</th><td data-stat="${k}">${escT(x)}</td></tr>`;
  let h = `<table class="agl-stats" data-size="${size}">` +
    row("shape", "shape", `[${v.shape.join(", ")}] (${size} elements)`) +
    row("min", "min", num(v.data ? st.lo : v.min)) +
    row("max", "max", num(v.data ? st.hi : v.max)) +
    row("mean", "mean", st.mean === null ? "—" : num(st.mean)) +
    row("std", "std", st.std === null ? "—" : num(st.std)) +
    row("nan", "NaN", String(st.nan)) +
    row("inf", "±inf", `${st.posinf} / ${st.neginf}`) + "</table>";
  if (st.lo !== null && st.lo !== undefined) h += histogramSvg(st);
  return h;
}

export function valueHtml(v) {
  if (v === null || v === undefined) return "—";
  if (v.shape.length === 0 && v.data) return `<span class="agl-num">${escT(num(v.data[0]))}</span>`;
  if (isSmall(v)) {
    // a table of the numbers, each cell shaded by its value (a heatmap): orange positive, blue negative,
    // the strongest at the largest magnitude; NaN and inf cells outlined
    const cols = v.shape.length ? v.shape[v.shape.length - 1] : 1;
    const rows = v.shape.length === 2 ? v.shape[0] : 1;
    // (a complex number is shaded by its magnitude, orange: it has no sign)
    const size = (x) => (x && typeof x === "object" && "complex" in x) ? Math.hypot(...x.complex) : x;
    const finite = (x) => typeof size(x) === "number" && Number.isFinite(size(x));
    const top = Math.max(0, ...v.data.filter(finite).map((x) => Math.abs(size(x))));
    let h = '<table class="agl-heat">';
    for (let r = 0; r < rows; r++) {
      h += "<tr>";
      for (let c = 0; c < cols; c++) {
        const x = v.data[r * cols + c];
        let style = "";
        if (!finite(x)) style = ' class="agl-nonfinite"';
        else if (top > 0 && size(x) !== 0) {
          const a = (0.12 + 0.5 * Math.abs(size(x)) / top).toFixed(2);
          style = ` style="background: rgba(${size(x) > 0 ? "230,159,0" : "86,180,233"},${a})"`;
        }
        h += `<td${style}>${escT(num(x))}</td>`;
      }
      h += "</tr>";
    }
    return h + "</table>";
  }
  if (v.stats) return statsHtml(v);
  return `<div class="agl-num">${escT(clip(shortValue(v), 160))}</div>` +
    (v.data === null || v.data === undefined
      ? '<div class="agl-hint">summarised: <code>trace(stats=True)</code> adds mean, std, NaN/inf counts and a histogram</div>'
      : "");
}

// The gradient line of a tensor box after a fold: its .grad, else the pending sum at its producer,
// else the gradient its producer ran with.
export function gradLine(n, s) {
  const width = GRAD_SLOT.length + 2;
  if (n.tensor !== null && n.tensor !== undefined && s.grads[n.tensor] !== undefined) {
    return clip("grad " + shortValue(s.grads[n.tensor]), width);
  }
  const p = n.grad_from;
  if (p !== null && p !== undefined) {
    if (s.buffers[p] !== undefined) return clip("pending " + shortValue(s.buffers[p]), width);
    if (s.nodeGrad[p] !== undefined) return clip("grad " + shortValue(s.nodeGrad[p]), width);
  }
  for (const id of n.engine_nodes || []) if (s.buffers[id] !== undefined) return clip("pending " + shortValue(s.buffers[id]), width);
  return "grad —";
}

function clip(text, n) {
  return text.length <= n ? text : text.slice(0, n - 1) + "…";
}

// ------------------------------------------------------------------------------------------
// Frames: fold the events (pure, no DOM), so any step can be shown in any order
// ------------------------------------------------------------------------------------------

export function fold(data, upto) {
  const ev = data.events;
  const s = {
    step: upto, inPass: false, ran: new Set(), pruned: new Set(), freed: new Set((data.initial || {}).freed || []),
    recorded: new Set(), grads: { ...((data.initial || {}).grads || {}) }, buffers: {}, nodeGrad: {}, current: null, edge: null, acc: null, event: upto >= 0 ? ev[upto] : null,
  };
  for (let k = 0; k <= upto && k < ev.length; k++) {
    const e = ev[k];
    s.edge = null;
    s.acc = null;
    switch (e.kind) {
      case "OpRecorded": s.recorded.add(e.node_id); break;
      case "BackwardStarted":
        s.inPass = true; s.ran = new Set(); s.pruned = new Set(); s.buffers = {}; s.nodeGrad = {}; s.current = null; break;
      case "Seeded": s.buffers[e.node_id] = e.seed; break;
      case "NodeStarted":
        s.current = e.node_id; s.ran.add(e.node_id); delete s.buffers[e.node_id];
        if (e.grad) s.nodeGrad[e.node_id] = e.grad;
        break;
      case "GradientComputed": s.edge = [e.node_id, e.input_index]; break;
      case "Accumulated":
        if (e.where === "buffer") s.buffers[e.node_id] = e.after;
        else if (e.tensor) { s.grads[e.tensor.tensor_id] = e.after; s.acc = e; }
        break;
      case "SavedFreed": s.freed.add(e.node_id); break;
      case "NodePruned": s.pruned.add(e.node_id); break;
      case "BackwardFinished": s.current = null; s.inPass = false; break;
      default: break;
    }
  }
  return s;
}

// NaN or inf anywhere in a Value (full data, or a summary's min/max/norm)
export function hasNonFinite(v) {
  if (!v || typeof v !== "object") return false;
  const bad = (x) => (x && typeof x === "object" && "float" in x) || (typeof x === "number" && !Number.isFinite(x))
    || (x && typeof x === "object" && "complex" in x && x.complex.some(bad));
  if (Array.isArray(v.data)) return v.data.some(bad);
  return bad(v.min) || bad(v.max) || bad(v.norm);
}

// The first step whose gradient (seed, upstream, contribution, sum) is NaN or inf, and where it is.
export function firstAnomaly(data) {
  for (const e of data.events) {
    const vals = [e.seed, e.grad, e.upstream, e.contribution, e.after].filter(Boolean);
    if (vals.some(hasNonFinite)) {
      // opNode: the node whose step made it (its forward traceback, when anomaly mode recorded one,
      // says where in the user's code that op was created)
      return { step: e.step, kind: e.kind, node: e.node_id, input: e.input_index, opNode: e.node_id,
        to: e.to_node_id, tensor: e.tensor ? e.tensor.tensor_id : (e.input ? e.input.tensor_id : null) };
    }
  }
  return null;
}

// Every drawn node and edge on a path from node `from` forward to the roots (the ops its gradient flows through).
export function pathsFrom(data, from) {
  const out = new Map();
  for (const e of data.edges) { if (!out.has(e.src)) out.set(e.src, []); out.get(e.src).push(e); }
  const nodes = new Set([from]), edges = new Set(), todo = [from];
  while (todo.length) {
    const k = todo.pop();
    for (const e of out.get(k) || []) {
      edges.add(e.id);
      if (!nodes.has(e.dst)) { nodes.add(e.dst); todo.push(e.dst); }
    }
  }
  return { nodes, edges };
}

// The status of each drawn node after a fold: what the SVG marks (classes) and the tests check.
export function statuses(data, s) {
  const out = {};
  for (const n of data.nodes) {
    const ids = n.engine_nodes || [];
    const cls = [];
    const any = (set) => ids.some((i) => set.has(i));
    if (data.has_forward && ids.length && !any(s.recorded) && n.kind === "op" && s.step < data.first_backward) {
      cls.push("agl-future");
    }
    if (s.current !== null && ids.includes(s.current)) cls.push("agl-current");
    if (n.kind === "group") {
      // a collapsed group from its members: pruned when all are, done when every member ran (or was pruned)
      const all = (f) => ids.length > 0 && ids.every(f);
      if (all((i) => s.pruned.has(i))) cls.push("agl-pruned");
      else if (all((i) => s.ran.has(i) || s.pruned.has(i))) cls.push("agl-done");
      else if (s.inPass && ids.length) cls.push("agl-pending");
    } else if (any(s.pruned)) cls.push("agl-pruned");
    else if (any(s.ran)) cls.push("agl-done");
    else if (s.inPass && ids.length) cls.push("agl-pending");
    if (any(s.freed)) cls.push("agl-freed");
    out[n.key] = cls;
  }
  return out;
}

// The graph drawn when the groups in `expanded` (keys of collapsed group nodes) are opened: each such
// group is replaced by its members (data.detail), edges are re-routed to what is visible. With nothing
// expanded it is the data itself.
export function viewOf(data, expanded) {
  const d = data.detail;
  if (!d || !expanded || expanded.size === 0) return data;
  const owner = new Map();
  for (const [g, keys] of Object.entries(d.members)) if (expanded.has(g)) for (const k of keys) owner.set(k, g);
  const detailNode = new Map(d.nodes.map((n) => [n.key, n]));
  const nodes = [];
  for (const n of data.nodes) {
    if (!expanded.has(n.key) || !d.members[n.key]) { nodes.push(n); continue; }
    for (const k of d.members[n.key]) {
      const m = detailNode.get(k);
      if (m) nodes.push({ ...m, group: n.key, groupLabel: n.lines[0] });
    }
  }
  const visible = new Set(nodes.map((n) => n.key));
  const groupOf = new Map();
  for (const [g, keys] of Object.entries(d.members)) for (const k of keys) groupOf.set(k, g);
  const rep = (k) => (visible.has(k) ? k : groupOf.get(k));
  const edges = [], seen = new Set(), viewId = new Map();
  for (const e of data.edges) {
    if (expanded.has(e.src) || expanded.has(e.dst)) continue;
    edges.push(e); seen.add(e.id);
  }
  for (const e of d.edges) {
    if (!owner.has(e.src) && !owner.has(e.dst)) continue;
    const a = rep(e.src), b = rep(e.dst);
    if (a === undefined || b === undefined || a === b) continue;
    const id = a === e.src && b === e.dst ? e.id : `agl-edge-${a}-${b}`;
    viewId.set(e.id, id);
    if (seen.has(id)) continue;
    seen.add(id);
    edges.push({ ...e, id, src: a, dst: b });
  }
  const edge_of = {};
  for (const [k, id] of Object.entries(data.edge_of)) edge_of[k] = id;
  for (const [k, id] of Object.entries(d.edge_of)) if (viewId.has(id)) edge_of[k] = viewId.get(id);
  const tensor_node = { ...data.tensor_node };
  for (const [t, k] of Object.entries(d.tensor_node || {})) if (owner.has(k)) tensor_node[t] = k;
  return { ...data, nodes, edges, edge_of, tensor_node, expanded: [...expanded] };
}

// ------------------------------------------------------------------------------------------
// DOT: built from the graph the kernel sent (again when a group is expanded or collapsed)
// ------------------------------------------------------------------------------------------

function q(text) {
  return `"${String(text).replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`;
}

const NODE_STYLE = {
  op: 'shape=ellipse, style="filled", fillcolor="#F0E442"',
  param: 'shape=box, style="filled,bold", penwidth=2, fillcolor="#56B4E9"',
  const: 'shape=box, style="filled,dotted", fillcolor="#EEEEEE"',
  computed: 'shape=box, style="filled", fillcolor="#FFFFFF"',
  group: 'shape=box3d, style="filled,dashed", fillcolor="#FFFFFF"',
};
const GRAD_SLOT = "pending 00000000000000";

export function toDot(data) {
  const lines = [
    "digraph G {",
    `rankdir=${data.rankdir || "BT"}; nodesep=0.25; ranksep=0.35; bgcolor="transparent";`,
    // large graphs: fewer crossing-minimisation and network-simplex passes (layout in well under a second)
    ...(data.nodes.length > 150 ? ["mclimit=0.3; nslimit=2; nslimit1=2; searchsize=20;"] : []),
    'node [fontname="Helvetica,Arial,sans-serif", fontsize=12, margin="0.08,0.03", color="#222222", fontcolor="#111111"];',
    'edge [color="#888888", arrowsize=0.7];',
  ];
  const nodeLine = (n) => {
    const label = [...n.lines, ...(n.grad_slot ? [GRAD_SLOT] : [])].join("\n");
    const cls = `agl-node agl-kind-${n.kind}${n.root ? " agl-root" : ""}`;
    const root = n.root ? ", peripheries=2, fillcolor=\"#E69F00\"" : "";
    return `${q(n.key)} [id=${q("agl-n-" + n.key)}, class=${q(cls)}, label=${q(label)}, ${NODE_STYLE[n.kind] || NODE_STYLE.computed}${root}];`;
  };
  const clusters = new Map();     // an expanded group's members are drawn in a box that collapses it again
  for (const n of data.nodes) {
    if (n.group === undefined) { lines.push(nodeLine(n)); continue; }
    if (!clusters.has(n.group)) clusters.set(n.group, Object.assign([], { label: n.groupLabel }));
    clusters.get(n.group).push(nodeLine(n));
  }
  for (const [g, body] of clusters) {
    lines.push(`subgraph ${q("cluster_" + g)} {`, `id=${q("agl-x-" + g)}; class="agl-cluster"; style="dashed,rounded"; color="#0072B2";`,
      `label=${q("▾ " + (body.label || g) + " (click to collapse)")}; labeljust=l; fontname="Helvetica,Arial,sans-serif"; fontsize=11; fontcolor="#0072B2";`,
      ...body, "}");
  }
  for (const e of data.edges) {
    lines.push(`${q(e.src)} -> ${q(e.dst)} [id=${q(e.id)}, class="agl-edge"${e.backward ? ", style=dashed" : ""}];`);
  }
  lines.push("}");
  return lines.join("\n");
}

let vizPromise = null;
function viz() {
  if (vizPromise === null) vizPromise = graphviz();
  return vizPromise;
}

// ------------------------------------------------------------------------------------------
// The view
// ------------------------------------------------------------------------------------------

const CSS = `
.agl-player { --agl-fg: var(--jp-ui-font-color1, #1a1a1a); --agl-bg: var(--jp-layout-color1, #ffffff);
  --agl-bg2: var(--jp-layout-color2, #f0f0f0); --agl-border: var(--jp-border-color1, #9e9e9e);
  --agl-accent: #D55E00; --agl-done: #009E73; --agl-font: var(--jp-ui-font-family, Helvetica, Arial, sans-serif);
  display: flex; flex-direction: column; gap: 4px; box-sizing: border-box; width: 100%; max-width: 100%;
  color: var(--agl-fg); background: var(--agl-bg); font: 13px/1.35 var(--agl-font);
  border: 1px solid var(--agl-border); border-radius: 4px; padding: 6px; outline: none; }
.agl-player:focus-visible { box-shadow: 0 0 0 2px #0072B2; }
.agl-player * { box-sizing: border-box; }
.agl-bar { display: flex; flex-wrap: wrap; align-items: center; gap: 4px; }
.agl-player button, .agl-player select { font: inherit; font-size: 12px; padding: 2px 7px; min-height: 26px;
  border: 1px solid var(--agl-border); border-radius: 3px; background: var(--agl-bg2); color: var(--agl-fg); cursor: pointer; }
.agl-player button:disabled { opacity: 0.4; cursor: default; }
.agl-player button:focus-visible, .agl-player select:focus-visible, .agl-player input:focus-visible { outline: 2px solid #0072B2; outline-offset: 1px; }
.agl-slider { flex: 1 1 120px; min-width: 80px; accent-color: #0072B2; }
.agl-readout { font-variant-numeric: tabular-nums; min-width: 6.5em; text-align: right; font-size: 12px; }
.agl-jumps { font-size: 12px; }
.agl-jumps span { opacity: 0.75; margin-right: 2px; }
.agl-caption { height: 4.2em; flex: 0 0 auto; overflow: auto; padding: 3px 6px; border-left: 3px solid var(--agl-accent);
  background: var(--agl-bg2); font-size: 13px; }
.agl-caption .agl-formula { font-family: "Cambria Math", "STIX Two Math", Georgia, serif; font-size: 110%; }
.agl-graph { position: relative; flex: 1 1 auto; min-height: 120px; height: 100%; overflow: hidden; border: 1px solid var(--agl-border);
  border-radius: 3px; background: var(--agl-bg); cursor: grab; }
.agl-graph > svg.agl-svg { position: absolute; left: 0; top: 0; display: block; transform-origin: 0 0; }
.agl-body { display: flex; flex: 1 1 auto; min-height: 120px; gap: 6px; }
.agl-body > .agl-graph { flex: 1 1 auto; min-width: 0; }
.agl-panel { flex: 0 0 min(340px, 45%); overflow: auto; border: 1px solid var(--agl-border); border-radius: 3px;
  padding: 4px 8px; font-size: 12px; background: var(--agl-bg); }
.agl-panel h3 { font-size: 13px; margin: 2px 0 4px; }
.agl-source code { font-family: var(--jp-code-font-family, Menlo, Consolas, monospace); }
.agl-panel table { border-collapse: collapse; margin: 2px 0 6px; }
.agl-panel td, .agl-panel th { border: 1px solid var(--agl-border); padding: 1px 5px; text-align: right;
  font-family: var(--jp-code-font-family, Menlo, Consolas, monospace); font-size: 11px; }
.agl-panel .agl-close { float: right; }
.agl-panel ol, .agl-panel ul { margin: 2px 0 6px; padding-left: 18px; }
.agl-panel .agl-num { font-family: var(--jp-code-font-family, Menlo, Consolas, monospace); }
.agl-graph g.agl-selected > polygon, .agl-graph g.agl-selected > ellipse, .agl-graph g.edge.agl-selected > path { stroke-dasharray: 6 2; }
.agl-graph g.node, .agl-graph g.edge, .agl-graph g.cluster { cursor: pointer; }
.agl-graph g.cluster:focus-visible > path, .agl-graph g.cluster:focus-visible > polygon { stroke-width: 2.5px; }
.agl-timeline-wrap { display: flex; gap: 4px; flex: 0 0 auto; align-items: stretch; }
.agl-timeline-labels { display: flex; flex-direction: column; justify-content: space-around; font-size: 9px;
  line-height: 1; text-align: right; min-width: 5.5em; opacity: 0.8; height: 58px; }
.agl-timeline { height: 58px; flex: 1 1 auto; min-width: 0; width: 100%; border: 1px solid var(--agl-border); border-radius: 3px; cursor: pointer; }
.agl-timeline text { font: 9px Helvetica, Arial, sans-serif; fill: var(--agl-fg); }
.agl-timeline .agl-mark { fill: #0072B2; }
.agl-timeline .agl-mark[data-kind="Seeded"] { fill: #E69F00; }
.agl-timeline .agl-mark[data-kind="Accumulated"] { fill: #009E73; }
.agl-timeline .agl-mark[data-kind="SavedFreed"] { fill: #999999; }
.agl-timeline .agl-mark[data-kind="NodePruned"] { fill: #CC79A7; }
.agl-timeline .agl-mark[data-kind="HookRan"] { fill: #D55E00; }
.agl-timeline-strip { position: relative; flex: 1 1 auto; min-width: 0; height: 58px; contain: strict; }
.agl-timeline-strip > .agl-timeline { position: absolute; inset: 0; height: 100%; }
.agl-cursor { position: absolute; top: 0; bottom: 0; width: 2px; margin-left: -1px; background: #D55E00; pointer-events: none; }
.agl-search { font: inherit; font-size: 12px; padding: 2px 5px; min-width: 9em; flex: 0 1 14em;
  border: 1px solid var(--agl-border); border-radius: 3px; background: var(--agl-bg); color: var(--agl-fg); }
.agl-anomaly-jump { background: #FFF3CD !important; color: #5c3d00 !important; }
.agl-anomaly-note { color: #8a3b00; }
.agl-diff-pair { display: flex; flex-wrap: wrap; gap: 8px; width: 100%; }
.agl-diff-side { flex: 1 1 420px; min-width: 0; display: flex; flex-direction: column; gap: 2px; }
.agl-diff-label { font: bold 12px var(--jp-ui-font-family, Helvetica, Arial, sans-serif); color: var(--jp-ui-font-color1, #1a1a1a); }
.agl-panel .agl-hint { opacity: 0.75; font-size: 11px; }
.agl-panel table.agl-heat td { color: var(--agl-fg); }
.agl-panel table.agl-heat td.agl-nonfinite { outline: 2px solid #D55E00; outline-offset: -2px; }
.agl-panel table.agl-stats th { text-align: left; font-weight: normal; opacity: 0.85; }
.agl-panel svg.agl-hist { display: block; margin: 2px 0 6px; overflow: visible; }
.agl-panel svg.agl-hist rect { fill: #0072B2; }
.agl-panel svg.agl-hist text { font: 9px Helvetica, Arial, sans-serif; fill: var(--agl-fg); }
.agl-panel .agl-hook { margin: 3px 0; padding-left: 6px; border-left: 3px solid #CC79A7; }
.agl-panel .agl-hook-values { display: flex; gap: 10px; flex-wrap: wrap; }
.agl-panel .agl-traceback ol { font-size: 11px; }
.agl-graph g.agl-dim { opacity: 0.25; }
.agl-graph g.agl-match > polygon, .agl-graph g.agl-match > ellipse { stroke: #0072B2; stroke-width: 3px; }
.agl-graph g.agl-path > polygon, .agl-graph g.agl-path > ellipse { stroke: #CC79A7; stroke-width: 3px; }
.agl-graph g.edge.agl-path > path { stroke: #CC79A7; stroke-width: 2.5px; }
.agl-graph g.agl-anomaly > polygon, .agl-graph g.agl-anomaly > ellipse { stroke: #D55E00; stroke-dasharray: 2 2; stroke-width: 3px; }
.agl-graph g.edge.agl-anomaly > path { stroke: #D55E00; stroke-dasharray: 4 2; stroke-width: 2.5px; }
.agl-graph g.agl-diff > polygon, .agl-graph g.agl-diff > ellipse { stroke: #0072B2 !important; stroke-width: 3px; stroke-dasharray: 8 3; }
.agl-legend { display: flex; flex-wrap: wrap; gap: 10px; font-size: 11px; opacity: 0.9; }
.agl-legend i { display: inline-block; width: 14px; height: 10px; margin-right: 3px; vertical-align: -1px; border: 1px solid #222; }
.agl-status { font-size: 11px; opacity: 0.8; }
.agl-graph g.node text { fill: #111111; }
.agl-graph g.node > polygon, .agl-graph g.node > ellipse, .agl-graph g.node > path { transition: fill 300ms, stroke 300ms, stroke-width 300ms, opacity 300ms; }
.agl-graph g.agl-future { opacity: 0.25; }
.agl-graph g.agl-pending > polygon, .agl-graph g.agl-pending > ellipse { stroke-dasharray: 1 0; }
.agl-graph g.agl-done > polygon:first-of-type, .agl-graph g.agl-done > ellipse:first-of-type { stroke: #009E73; stroke-width: 2.5px; }
.agl-graph g.agl-done.agl-kind-op > ellipse { fill: #9FE0CB; }
.agl-graph g.agl-current > polygon, .agl-graph g.agl-current > ellipse { stroke: #D55E00 !important; stroke-width: 4px !important; }
.agl-graph g.agl-pruned { opacity: 0.45; }
.agl-graph g.agl-pruned > polygon, .agl-graph g.agl-pruned > ellipse { stroke-dasharray: 5 3; }
.agl-graph g.agl-freed > ellipse, .agl-graph g.agl-freed > polygon { fill: #D9D9D9 !important; }
.agl-graph g.agl-freed text.agl-t-grad { text-decoration: line-through; }
.agl-graph g.edge > path { transition: stroke 300ms, stroke-width 300ms; }
.agl-graph g.edge.agl-edge-active > path { stroke: #D55E00; stroke-width: 3px; }
.agl-graph g.edge.agl-edge-active > polygon { stroke: #D55E00; fill: #D55E00; }
.agl-graph g.edge.agl-edge-done > path { stroke: #0072B2; }
.agl-graph .agl-pulse { fill: #D55E00; stroke: #ffffff; stroke-width: 1.5px; pointer-events: none; }
.agl-graph .agl-plus { fill: #0072B2; font: bold 12px Helvetica, Arial, sans-serif; pointer-events: none; }
.agl-graph text.agl-t-grad.agl-flash { fill: #0072B2; font-weight: bold; }
`;

function el(tag, attrs = {}, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === true) e.setAttribute(k, "");
    else if (v !== false && v !== null && v !== undefined) e.setAttribute(k, v);
  }
  if (text !== undefined) e.textContent = text;
  return e;
}

function injectCss(root) {
  const doc = root.ownerDocument || document;
  const host = root.getRootNode && root.getRootNode() instanceof ShadowRoot ? root.getRootNode() : doc.head;
  if (!host.querySelector || !host.querySelector("style[data-agl-player]")) {
    const st = el("style", { "data-agl-player": "1" });
    st.textContent = CSS;
    host.appendChild(st);
  }
}

// Which step of run B matches each step lo..hi of run A: the event of the same kind about the same node
// (and edge, and tensor), counted in order; a step B has no match for (a free only one pass does)
// follows the last match. Returns {A step: B step}.
export function alignSteps(evA, loA, hiA, evB, loB, hiB) {
  const key = (e) => [e.kind, e.node_id, e.input_index, e.where, e.tensor ? e.tensor.tensor_id : "", e.hook].join("|");
  const where = new Map(), seen = new Map();
  for (let k = loB; k <= hiB && k < evB.length; k++) {
    const base = key(evB[k]), n = seen.get(base) || 0;
    seen.set(base, n + 1);
    where.set(`${base}#${n}`, k);
  }
  const out = {}, count = new Map();
  let last = loB;
  for (let k = loA; k <= hiA && k < evA.length; k++) {
    const base = key(evA[k]), n = count.get(base) || 0;
    count.set(base, n + 1);
    const m = where.get(`${base}#${n}`);
    if (m !== undefined) last = m;
    out[k] = last;
  }
  return out;
}

// Two runs of one graph side by side (viz.diff): the first run on the left, the second on the right,
// the nodes that differ marked on both; stepping either moves the other to the matching step.
function mountPair(container, data, options) {
  injectCss(container);
  const d = data.diff;
  const wrap = el("div", { class: "agl-diff-pair", role: "group", "aria-label": data.title || "diff" });
  container.appendChild(wrap);
  const labels = d.labels || ["first", "second"];
  const strip = { ...d };
  delete strip.left;
  const leftData = d.left.data
    ? { ...d.left.data, diff: { ...strip, side: "left" } }
    : { ...data, start: d.left.start, end: d.left.end, error: null, diff: { ...strip, side: "left" } };
  leftData.title = d.left.title || labels[0];
  const rightData = { ...data, diff: { ...strip, side: "right" } };
  const col = (label, side) => {
    const c = el("div", { class: `agl-diff-side agl-diff-${side}` });
    c.appendChild(el("div", { class: "agl-diff-label" }, label));
    wrap.appendChild(c);
    return c;
  };
  const cl = col(labels[0], "left"), cr = col(labels[1], "right");
  let syncing = false, left = null, right = null;
  const lEnd = leftData.end === undefined ? leftData.events.length - 1 : leftData.end;
  const rEnd = rightData.end === undefined ? rightData.events.length - 1 : rightData.end;
  const toRight = alignSteps(leftData.events, leftData.start, lEnd, rightData.events, rightData.start, rEnd);
  const toLeft = alignSteps(rightData.events, rightData.start, rEnd, leftData.events, leftData.start, lEnd);
  const link = (to, map) => (k) => {
    if (syncing || !to || map[k] === undefined) return;
    syncing = true;
    try { to.show(map[k]); } finally { syncing = false; }
  };
  left = mount(cl, leftData, { onStep: (k) => link(right, toRight)(k) });
  right = mount(cr, rightData, { onStep: (k) => { link(left, toLeft)(k); (options.onStep || (() => {}))(k); } });
  return {
    element: wrap,
    ready: Promise.all([left.ready, right.ready]),
    get step() { return right.step; },
    show: (k) => right.show(k),
    destroy: () => { left.destroy(); right.destroy(); wrap.remove(); },
  };
}

export function mount(container, data, options = {}) {
  if (data.diff && data.diff.left) return mountPair(container, data, options);
  injectCss(container);
  const base = data;                      // what the kernel sent; `data` is the view drawn now (viewOf)
  const expanded = new Set();
  const onStep = options.onStep || (() => {});
  const nEvents = data.events.length;
  const lo = data.start;
  const last = data.end === undefined ? nEvents - 1 : data.end;
  const hi = data.error ? last + 1 : last;   // one more frame for the error, if any
  const box = el("div", { class: "agl-player", tabindex: "0", role: "group",
    "aria-label": `autograd player: ${data.title || "backward pass"}; left and right arrows step, space plays` });
  box.style.height = data.height || "480px";
  if (data.diff && data.diff.side) box.dataset.side = data.diff.side;
  container.appendChild(box);

  // -- controls ------------------------------------------------------------------------------
  const bar = el("div", { class: "agl-bar agl-controls" });
  const btn = (cls, text, label) => el("button", { type: "button", class: cls, "aria-label": label, title: label }, text);
  const bFirst = btn("agl-first", "« first", "first step (Home)");
  const bPrev = btn("agl-prev", "◀ back", "previous step (Left arrow)");
  const bPlay = btn("agl-play", "▶ play", "play (Space)");
  const bNext = btn("agl-next", "next ▶", "next step (Right arrow)");
  const bLast = btn("agl-last", "last »", "last step (End)");
  const speed = el("select", { class: "agl-speed", "aria-label": "playback speed" });
  for (const sp of SPEEDS) {
    const o = el("option", { value: String(sp) }, `${sp}×`);
    if (sp === (data.speed || 2)) o.selected = true;
    speed.appendChild(o);
  }
  const slider = el("input", { type: "range", class: "agl-slider", min: String(lo), max: String(hi), step: "1",
    value: String(lo), "aria-label": "step" });
  const readout = el("span", { class: "agl-readout", "aria-live": "off" });
  const bFit = btn("agl-fit", "fit", "fit the graph to the view");
  bar.append(bFirst, bPrev, bPlay, bNext, bLast, speed, slider, readout, bFit);

  const jumps = el("div", { class: "agl-bar agl-jumps", role: "toolbar", "aria-label": "jump to the next event of a kind" });
  jumps.appendChild(el("span", {}, "next:"));
  const jumpButtons = [];
  for (const k of KINDS) {
    if (!data.events.some((e) => e.kind === k.kind)) continue;
    const b = btn(`agl-jump agl-next-${k.label.replace(" ", "-")}`, k.label, k.title);
    b.dataset.kind = k.kind;
    jumps.appendChild(b);
    jumpButtons.push(b);
  }

  const search = el("input", { type: "search", class: "agl-search", placeholder: "find: name, op or shape",
    "aria-label": "find nodes by name, op or shape" });
  const found = el("span", { class: "agl-found", "aria-live": "polite" });
  jumps.append(search, found);
  const anomaly = firstAnomaly(data);
  let bAnomaly = null;
  if (anomaly && anomaly.step >= lo && anomaly.step <= last) {
    bAnomaly = btn("agl-anomaly-jump", `⚠ first NaN/inf gradient: step ${anomaly.step}`,
      "jump to the step where a NaN or inf gradient first appears");
    bAnomaly.dataset.step = String(anomaly.step);
    jumps.appendChild(bAnomaly);
  }
  const caption = el("div", { class: "agl-caption", role: "status", "aria-live": "polite" });
  const graph = el("div", { class: "agl-graph", "aria-label": "computation graph (drag to pan, wheel to zoom)" });
  const legend = el("div", { class: "agl-legend" });
  legend.innerHTML =
    '<span><i style="background:#56B4E9;border-width:2px"></i>leaf (requires grad)</span>' +
    '<span><i style="background:#EEEEEE;border-style:dotted"></i>constant</span>' +
    '<span><i style="background:#F0E442;border-radius:6px"></i>op</span>' +
    '<span><i style="background:#E69F00;outline:1px solid #222;outline-offset:1px"></i>root</span>' +
    '<span><i style="background:#9FE0CB;border:2px solid #009E73"></i>ran (done)</span>' +
    '<span><i style="border:3px solid #D55E00"></i>running now</span>' +
    '<span><i style="background:#D9D9D9"></i>freed</span>' +
    '<span><i style="border-style:dashed;opacity:.5"></i>pruned</span>' +
    (data.diff ? `<span><i style="border:2px dashed #0072B2"></i>differs between ${(data.diff.labels || ["first", "second"]).join(" and ")} (${data.diff.keys.length})</span>` : "") +
    '<span>→ arrows: forward data flow; <b style="color:#D55E00">●</b> gradient travels back against them</span>';
  const panel = el("aside", { class: "agl-panel", "aria-live": "polite", "aria-label": "details of the selected node or edge" });
  panel.hidden = true;
  const body = el("div", { class: "agl-body" });
  body.append(graph, panel);
  // the timeline: one lane per event kind, one mark per event; clicking jumps there
  const LANES = [["Seeded", "seed"], ["NodeStarted", "run"], ["GradientComputed", "chain rule"],
    ["Accumulated", "accumulate"], ["SavedFreed", "free"], ["NodePruned", "prune"], ["HookRan", "hook"]]
    .filter(([k]) => data.events.some((e, i) => e.kind === k && i >= lo && i <= last));
  const NS = "http://www.w3.org/2000/svg";
  const timeline = document.createElementNS(NS, "svg");
  timeline.setAttribute("class", "agl-timeline");
  timeline.setAttribute("role", "img");
  timeline.setAttribute("aria-label", "timeline of the events, one lane per kind; click to jump");
  timeline.setAttribute("preserveAspectRatio", "none");
  const span = Math.max(1, hi - lo + 1), labelW = 0, laneH = 56 / Math.max(1, LANES.length);
  timeline.setAttribute("viewBox", `0 0 ${labelW + span} 56`);
  LANES.forEach(([kind, label], i) => {
    for (let k = lo; k <= last; k++) {
      if (data.events[k].kind !== kind) continue;
      const r = document.createElementNS(NS, "rect");
      r.setAttribute("class", "agl-mark");
      r.setAttribute("x", String(labelW + k - lo)); r.setAttribute("y", String(i * laneH + 1));
      r.setAttribute("width", "1"); r.setAttribute("height", String(Math.max(1, laneH - 2)));
      r.dataset.step = String(k); r.dataset.kind = kind;
      timeline.appendChild(r);
    }
  });
  // the cursor is an HTML element over the strip: moving it never re-lays out the strip's marks
  const cursor = el("div", { class: "agl-cursor", "aria-hidden": "true" });
  timeline.addEventListener("click", (ev) => {
    const m = ev.target.closest && ev.target.closest(".agl-mark");
    let k;
    if (m) k = Number(m.dataset.step);
    else {
      const r = timeline.getBoundingClientRect();
      const x = ((ev.clientX - r.left) / r.width) * (labelW + span) - labelW;
      k = lo + Math.round(x);
    }
    stop(); show(k);
  });
  const tlWrap = el("div", { class: "agl-timeline-wrap" });
  const tlLabels = el("div", { class: "agl-timeline-labels", "aria-hidden": "true" });
  for (const [, label] of LANES) tlLabels.appendChild(el("div", {}, label));
  const tlStrip = el("div", { class: "agl-timeline-strip" });
  tlStrip.append(timeline, cursor);
  tlWrap.append(tlLabels, tlStrip);
  box.append(bar, jumps, caption, body, tlWrap, legend);

  // -- state -----------------------------------------------------------------------------------
  let cur = lo - 1;
  let timer = null;
  let svg = null;
  let zoomer = null;
  let gRoot = null;
  let inner = null;                       // graphviz's own group (its translate is fixed)
  let innerShift = { x: 0, y: 0 };
  const view = { w: 0, h: 0 };            // the graph area's size, kept by a ResizeObserver (no reads per step)
  const geometry = new Map();             // node/edge <g> -> its box, measured once after layout
  const pulsePoints = new Map();          // edge <g> -> points along its path, op end last
  let ready = false;
  const nodeEls = new Map();
  const edgeEls = new Map();
  const gradText = new Map();
  const lastClass = new Map();
  const lastText = new Map();
  let activeEdge = null;
  const diffKeys = new Set((data.diff && data.diff.keys) || []);
  const decorations = new Map();   // node key -> classes added by search / paths / anomaly
  const decorated = new Set();
  let flashed = null;

  function nextOf(kind, from) {
    for (let k = from + 1; k <= last; k++) if (data.events[k].kind === kind) return k;
    return -1;
  }

  function render(k, animate) {
    const isError = data.error && k === last + 1;
    const s = fold(data, Math.min(k, last));
    const st = statuses(data, s);
    box.dataset.step = String(k);
    slider.value = String(k);
    readout.textContent = `step ${k} / ${hi}`;
    bFirst.disabled = bPrev.disabled = k <= lo;
    bNext.disabled = bLast.disabled = k >= hi;
    for (const b of jumpButtons) b.disabled = nextOf(b.dataset.kind, k) < 0;
    caption.innerHTML = isError ? data.error : (data.captions[k] || "") + anomalyNote(data, anomaly, k) + sourceNote(data, data.events[k]);
    cursor.style.left = `${(100 * (k - lo + 0.5)) / span}%`;
    if (!ready) return;
    const dur = animate ? 300 : 0;
    for (const n of data.nodes) {
      const g = nodeEls.get(n.key);
      if (!g) continue;
      // only what changed is touched: a step restyles a few nodes, not the whole graph
      const want = ["node", "agl-node", `agl-kind-${n.kind}`, ...(n.root ? ["agl-root"] : []),
        ...(base.detail && base.detail.members[n.key] ? ["agl-expandable"] : []), ...st[n.key],
        ...(diffKeys.has(n.key) ? ["agl-diff"] : []), ...(decorations.get(n.key) || []), ...(selected && selected.type === "node" && selected.key === n.key ? ["agl-selected"] : [])].join(" ");
      if (lastClass.get(n.key) !== want) { g.setAttribute("class", want); lastClass.set(n.key, want); }
      const t = gradText.get(n.key);
      if (t) {
        const line = gradLine(n, s);
        if (lastText.get(n.key) !== line) { t.textContent = line; lastText.set(n.key, line); }
      }
    }
    if (anomaly) {
      const on = k >= anomaly.step;
      const eid = anomaly.input !== undefined && anomaly.node !== undefined ? data.edge_of[`${anomaly.node}-${anomaly.input}`] : null;
      const nk = anomaly.kind === "GradientComputed" ? nodeOfEngine.get(anomaly.node)
        : (anomaly.tensor !== null && data.tensor_node[String(anomaly.tensor)]) || nodeOfEngine.get(anomaly.node);
      for (const g of [eid && edgeEls.get(eid), nk && nodeEls.get(nk)]) {
        if (!g) continue;
        g.classList.toggle("agl-anomaly", on);
        if (g.classList.contains("node")) lastClass.set(g.dataset.key, g.getAttribute("class"));
      }
    }
    if (flashed) { flashed.classList.remove("agl-flash"); flashed = null; }
    const edgeId = s.edge ? data.edge_of[`${s.edge[0]}-${s.edge[1]}`] : null;
    if (activeEdge && activeEdge.id !== edgeId) { activeEdge.classList.remove("agl-edge-active"); activeEdge = null; }
    if (edgeId) {
      const g = edgeEls.get(edgeId);
      if (g) {
        g.classList.add("agl-edge-active");
        activeEdge = g;
        if (animate) pulse(g, dur * 2);
      }
    }
    renderPanel(k);
    const focus = focusOf(s.event);
    if (focus) follow(focus, animate);
    if (s.acc && animate) {
      const key = data.tensor_node[String(s.acc.tensor.tensor_id)];
      const t = gradText.get(key);
      if (t) {
        t.classList.add("agl-flash");
        flashed = t;
        plus(t, "+" + clip(shortValue(s.acc.contribution), 14), dur * 3);
      }
    }
  }

  const nodeOfEngine = new Map();
  function indexNodes() {
    nodeOfEngine.clear();
    for (const n of data.nodes) for (const id of n.engine_nodes || []) nodeOfEngine.set(id, n.key);
    for (const k of Object.keys(edgeKey)) delete edgeKey[k];
    for (const [k, id] of Object.entries(data.edge_of || {})) edgeKey[id] = k.split("-").map(Number);
  }

  // The element a step is about: the edge of a chain-rule step, the .grad that grows, the node that runs.
  function focusOf(e) {
    if (!e) return null;
    if (e.kind === "GradientComputed") return edgeEls.get(data.edge_of[`${e.node_id}-${e.input_index}`]) || null;
    if ((e.kind === "Accumulated" && e.where !== "buffer" && e.tensor) || e.kind === "Seeded") {
      return nodeEls.get(data.tensor_node[String(e.tensor.tensor_id)]) || null;
    }
    if (e.node_id !== undefined) return nodeEls.get(nodeOfEngine.get(e.node_id)) || null;
    return null;
  }

  // Pan (never zoom) so that what the step is about is in view: big graphs stay at a readable scale.
  function follow(target, animate) {
    if (!svg || !zoomer || !view.w) return;
    const bb = geometry.get(target);      // in the inner group's coordinates, read once after layout
    if (!bb) return;
    const t = graph.__zoom || zoomIdentity;
    const x0 = t.applyX(bb.x + innerShift.x), x1 = t.applyX(bb.x + bb.width + innerShift.x);
    const y0 = t.applyY(bb.y + innerShift.y), y1 = t.applyY(bb.y + bb.height + innerShift.y);
    const pad = 24;
    let dx = 0, dy = 0;
    // the smallest move that brings it in (with a margin): as much of the picture as possible stays put
    if (x0 < pad) dx = pad - x0;
    else if (x1 > view.w - pad) dx = view.w - pad - x1;
    if (y0 < pad) dy = pad - y0;
    else if (y1 > view.h - pad) dy = view.h - pad - y1;
    if (!dx && !dy) return;
    const next = zoomIdentity.translate(t.x + dx, t.y + dy).scale(t.k);
    const sel = select(graph);
    // big graphs jump instead of gliding: a glide repaints the whole picture on every frame
    (animate && data.nodes.length <= 150 ? sel.transition().duration(250) : sel).call(zoomer.transform, next);
  }


  // -- search and paths: decorations on top of the step's marks ---------------------------------
  let pathEdges = new Set();
  function decorate(matchKeys, dimOthers, cls) {
    decorations.clear();
    if (matchKeys) {
      for (const n of data.nodes) {
        const on = matchKeys.has(n.key);
        if (on) decorations.set(n.key, [cls]);
        else if (dimOthers) decorations.set(n.key, ["agl-dim"]);
      }
    }
    for (const [id, g] of edgeEls) g.classList.toggle("agl-path", pathEdges.has(id));
    lastClass.clear();
    render(cur, false);
  }
  search.addEventListener("input", () => {
    const q = search.value.trim().toLowerCase();
    pathEdges = new Set();
    if (!q) { found.textContent = ""; decorate(null); return; }
    const hits = new Set(data.nodes.filter((n) => [...n.lines, n.key].join(" ").toLowerCase().includes(q)).map((n) => n.key));
    found.textContent = `${hits.size} found`;
    decorate(hits, true, "agl-match");
  });
  search.addEventListener("keydown", (ev) => ev.stopPropagation());
  function showPaths(key) {
    const p = pathsFrom(data, key);
    pathEdges = p.edges;
    decorate(p.nodes, true, "agl-path");
    found.textContent = `${p.nodes.size} nodes on the paths from ${key}`;
  }
  if (bAnomaly) bAnomaly.addEventListener("click", () => { stop(); show(anomaly.step); });

  // -- inspecting: click a node or an edge for its numbers at the step shown ----------------------
  let selected = null;   // {type: "node", key} or {type: "edge", id}
  const edgeKey = {};
  indexNodes();
  const esc = (t) => String(t).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

  function select_(sel) {
    if (selected) {
      const old = selected.type === "node" ? nodeEls.get(selected.key) : edgeEls.get(selected.id);
      if (old) old.classList.remove("agl-selected");
    }
    selected = sel;
    if (sel) {
      const g = sel.type === "node" ? nodeEls.get(sel.key) : edgeEls.get(sel.id);
      if (g) g.classList.add("agl-selected");
    }
    renderPanel(cur);
  }

  // events of the pass that step k is in (or the last pass before it), up to k
  function passEvents(k) {
    let start = 0;
    const ev = data.events;
    for (let j = Math.min(k, ev.length - 1); j >= 0; j--) if (ev[j].kind === "BackwardStarted") { start = j; break; }
    return ev.slice(start, Math.min(k, ev.length - 1) + 1);
  }

  const table = valueHtml;

  // what a hook changed: the gradient(s) it got and the ones the pass went on with
  function hookHtml(e) {
    const what = e.hook === "post_accumulate" ? "the leaf's .grad" : e.hook === "node_post" ? "the gradients to its inputs" : "the gradient";
    let h = `<div class="agl-hook" data-step="${e.step}" data-hook="${esc(e.hook)}"><b>${esc(e.hook.replace("_", " "))} hook</b> ran at step ${e.step}`;
    if (!e.before) return h + (e.changed ? " and replaced the gradient" : "") + "</div>";
    const same = JSON.stringify(e.before) === JSON.stringify(e.after);
    h += same ? `: ${what} unchanged` : `: ${e.changed ? "replaced" : "changed"} ${what}`;
    const vals = (vs, cls) => vs.map((v, i) => `<div class="${cls}" data-index="${i}">${vs.length > 1 ? `input ${i}: ` : ""}` +
      `<span class="agl-num">${esc(v ? shortValue(v) : "None")}</span>${v && !isSmall(v) ? table(v) : ""}</div>`).join("");
    h += `<div class="agl-hook-values"><div><i>before</i>${vals(e.before, "agl-hook-before")}</div>`;
    if (!same) h += `<div><i>after</i>${vals(e.after, "agl-hook-after")}</div>`;
    return h + "</div></div>";
  }

  // anomaly mode's forward traceback of an op: the user's frames, outermost first
  function tracebackHtml(nid, open) {
    const tb = (data.tracebacks || {})[nid];
    if (!tb || !tb.length) return "";
    return `<details class="agl-traceback"${open ? " open" : ""}><summary><b>forward traceback</b> (anomaly mode)</summary><ol>` +
      tb.map((f) => `<li><span class="agl-source-where">${esc(f.where)}</span>${f.function ? ` in <code>${esc(f.function)}</code>` : ""}` +
        (f.text ? `: <code class="agl-source-text">${esc(f.text)}</code>` : "") + "</li>").join("") + "</ol></details>";
  }

  function nodePanel(n, k) {
    const ids = new Set(n.engine_nodes || []);
    const evs = passEvents(k);
    const srcs = [...ids].map((id) => (data.sources || {})[id]).filter(Boolean);
    let h = `<h3>${esc(n.lines[0])}</h3><div>${n.lines.slice(1).map(esc).join("<br>")}</div>` +
      (n.kind === "op" || n.kind === "group"
        ? srcs.length
          ? `<div class="agl-source"><b>created at</b> ${sourceHtml(srcs[0])}` +
            (srcs.length > 1 ? ` (first of ${srcs.length} ops)` : "") + "</div>"
          : ""
        : "") +
      '<button type="button" class="agl-paths" title="highlight every path from this node to the output: the ops its gradient is made of">paths to the output</button>';
    const d = data.diff && data.diff.nodes[n.key];
    if (d) {
      const [la, lb] = data.diff.labels || ["first", "second"];
      h += `<div class="agl-diff-note"><b>differs between ${esc(la)} and ${esc(lb)}</b> (${d.fields.join(", ")}):<ul>` +
        d.fields.map((f) => `<li>${f}: ${esc(la)} <span class="agl-num">${esc(shortValue(d.a[f]))}</span>, ` +
          `${esc(lb)} <span class="agl-num">${esc(shortValue(d.b[f]))}</span></li>`).join("") + "</ul></div>";
    }
    if (n.formulas && n.formulas.length) h += `<div><b>local derivatives</b><ul>${n.formulas.map((f) => `<li>${esc(f)}</li>`).join("")}</ul></div>`;
    if (n.value) h += `<div><b>value</b> ${esc(n.value.dtype)} [${n.value.shape.join(", ")}]${table(n.value)}</div>`;
    if (n.kind === "op" || n.kind === "group") {
      const started = evs.filter((e) => e.kind === "NodeStarted" && ids.has(e.node_id));
      if (started.length) h += `<div><b>gradient it received</b>${table(started[started.length - 1].grad)}</div>`;
      else h += "<div><b>gradient it received</b>: not yet (it has not run at this step)</div>";
      const sent = evs.filter((e) => e.kind === "GradientComputed" && ids.has(e.node_id));
      if (sent.length) {
        const changedBy = evs.filter((e) => e.kind === "HookRan" && ids.has(e.node_id) && e.changed && e.hook !== "post_accumulate");
        h += "<div><b>contributions it sent</b>" + (changedBy.length
          ? ` <i class="agl-hook-note">(after the ${changedBy.map((e) => `${esc(e.hook.replace("_", " "))} hook at step ${e.step}`).join(", ")}: see below)</i>`
          : "") + "<ol>";
        for (const e of sent) {
          h += `<li>input ${e.input_index} (${esc(e.input ? e.input.name : "node " + e.to_node_id)}): ` +
            `<span class="agl-num">${esc(shortValue(e.upstream))}</span> × [${esc(e.formula)}] = ` +
            `<span class="agl-num agl-contribution">${esc(shortValue(e.contribution))}</span> <i>(step ${e.step})</i></li>`;
        }
        h += "</ol></div>";
      }
      const freed = data.events.slice(0, k + 1).filter((e) => e.kind === "SavedFreed" && ids.has(e.node_id));
      if (freed.length) {
        const f = freed[freed.length - 1];
        h += `<div><b>saved tensors</b>: ${esc(f.names.join(", "))} freed at step ${f.step} (${f.nbytes} bytes)</div>`;
      }
      const hooks = evs.filter((e) => e.kind === "HookRan" && ids.has(e.node_id));
      for (const e of hooks) h += hookHtml(e);
      for (const id of ids) h += tracebackHtml(id, anomaly && anomaly.opNode === id);
    }
    if (n.tensor !== null && n.tensor !== undefined) {
      // hooks on this tensor: a leaf's run at its accumulator, a non-leaf's at the op that made it
      const hooks = passEvents(k).filter((e) => e.kind === "HookRan" && (ids.has(e.node_id) ||
        (e.hook === "tensor" && n.grad_from !== null && n.grad_from !== undefined && e.node_id === n.grad_from)));
      for (const e of hooks) h += hookHtml(e);
      const accs = data.events.slice(0, k + 1).filter((e) => e.kind === "Accumulated" && e.where !== "buffer" && e.tensor && e.tensor.tensor_id === n.tensor);
      const s = fold(data, Math.min(k, data.events.length - 1));
      const g = s.grads[n.tensor];
      h += `<div><b>.grad</b> <span class="agl-grad-now">${esc(g === undefined ? "None" : shortValue(g))}</span>${g ? table(g) : ""}</div>`;
      const got = passEvents(k).filter((e) => e.kind === "GradientComputed" && ids.has(e.to_node_id));
      if (got.length) {
        h += "<div><b>contributions received</b> (this pass)<ol>";
        for (const e of got) {
          h += `<li><span class="agl-num">${esc(shortValue(e.contribution))}</span> from ${esc(e.node_name)} #${e.node_id} ` +
            `<i>(step ${e.step})</i></li>`;
        }
        h += "</ol></div>";
      }
      if (accs.length) {
        h += "<div><b>.grad written</b><ol>";
        for (const e of accs) {
          h += `<li>step ${e.step}: ${esc(e.before ? shortValue(e.before) : "None")} + ` +
            `<span class="agl-num">${esc(shortValue(e.contribution))}</span> = ${esc(shortValue(e.after))}</li>`;
        }
        h += "</ol></div>";
      }
    }
    return h;
  }

  function edgePanel(id, k) {
    const key = edgeKey[id];
    const e0 = data.edges.find((e) => e.id === id);
    let h = `<h3>edge ${esc(e0 ? e0.src + " → " + e0.dst : id)}</h3>`;
    if (!key) return h + "<div>this edge carries the op's output forward; gradients travel on the edges into the op</div>";
    const evs = passEvents(k).filter((e) => e.kind === "GradientComputed" && e.node_id === key[0] && e.input_index === key[1]);
    if (!evs.length) return h + "<div>no gradient has travelled along this edge yet at this step</div>";
    const e = evs[evs.length - 1];
    h += `<div><b>chain rule</b> (step ${e.step}): upstream × local derivative = contribution</div>`;
    h += `<div>[${esc(e.formula)}]</div>`;
    h += `<div><b>upstream</b> (gradient of the op's output)${table(e.upstream)}</div>`;
    h += `<div><b>contribution</b> sent to ${esc(e.input ? e.input.name : "node " + e.to_node_id)}` +
      `<span class="agl-edge-contribution" hidden>${esc(shortValue(e.contribution))}</span>${table(e.contribution)}</div>`;
    const us = e.upstream.shape, cs = e.contribution.shape;
    if (us.join(",") !== cs.join(",")) {
      h += `<div><b>broadcasting</b>: the product has the upstream's shape [${us.join(", ")}]; it is summed over the ` +
        `broadcast dimensions to the input's shape [${cs.join(", ")}]</div>`;
    }
    return h;
  }

  function renderPanel(k) {
    if (!selected) { panel.hidden = true; return; }
    panel.hidden = false;
    const close = '<button type="button" class="agl-close" aria-label="close the details">×</button>';
    let inner = "";
    if (selected.type === "node") {
      const n = data.nodes.find((x) => x.key === selected.key);
      inner = n ? nodePanel(n, k) : "";
    } else {
      inner = edgePanel(selected.id, k);
    }
    panel.innerHTML = close + `<div class="agl-panel-body" data-step="${k}">` + inner + "</div>";
    panel.querySelector(".agl-close").addEventListener("click", () => select_(null));
    const pb = panel.querySelector(".agl-paths");
    if (pb) pb.addEventListener("click", () => showPaths(selected.key));
  }

  function pulse(edgeG, ms) {
    const pts = pulsePoints.get(edgeG);
    if (!pts || !inner) return;
    // forward arrows run input -> op; the gradient runs back: from the op end to the input end
    const dot = select(inner).append("circle").attr("class", "agl-pulse").attr("r", 5);
    dot.transition().duration(ms).ease(easeCubicInOut)
      .attrTween("transform", () => (t) => {
        const f = (1 - t) * (pts.length - 1), i = Math.min(pts.length - 2, Math.floor(f)), u = f - i;
        const x = pts[i][0] + (pts[i + 1][0] - pts[i][0]) * u, y = pts[i][1] + (pts[i + 1][1] - pts[i][1]) * u;
        return `translate(${x},${y})`;
      })
      .remove();
  }

  function plus(textEl, text, ms) {
    if (!inner) return;
    const x = Number(textEl.getAttribute("x")), y = Number(textEl.getAttribute("y"));
    select(inner).append("text").attr("class", "agl-plus").attr("x", x + 4).attr("y", y + 14).attr("text-anchor", "middle")
      .text(text).style("opacity", 1)
      .transition().duration(ms).attr("y", y - 2).style("opacity", 0).remove();
  }

  function show(k, animate = true) {
    k = Math.max(lo, Math.min(hi, k));
    if (k === cur) return;
    const forward = k === cur + 1;
    cur = k;
    render(k, animate && forward);
    onStep(k);
  }

  function stop() {
    if (timer !== null) { clearInterval(timer); timer = null; }
    bPlay.textContent = "▶ play";
    bPlay.setAttribute("aria-label", "play (Space)");
    bPlay.setAttribute("aria-pressed", "false");
  }
  function play() {
    if (timer !== null) { stop(); return; }
    if (cur >= hi) show(lo, false);
    const ms = Math.max(30, 1000 / Number(speed.value || 2));
    timer = setInterval(() => { if (cur >= hi) stop(); else show(cur + 1); }, ms);
    bPlay.textContent = "⏸ pause";
    bPlay.setAttribute("aria-label", "pause (Space)");
    bPlay.setAttribute("aria-pressed", "true");
  }

  bFirst.addEventListener("click", () => { stop(); show(lo, false); });
  bPrev.addEventListener("click", () => { stop(); show(cur - 1); });
  bNext.addEventListener("click", () => { stop(); show(cur + 1); });
  bLast.addEventListener("click", () => { stop(); show(hi, false); });
  bPlay.addEventListener("click", play);
  speed.addEventListener("change", () => { if (timer !== null) { stop(); play(); } });
  slider.addEventListener("input", () => { stop(); show(Number(slider.value), false); });
  for (const b of jumpButtons) {
    b.addEventListener("click", () => { stop(); const k = nextOf(b.dataset.kind, cur); if (k >= 0) show(k); });
  }
  bFit.addEventListener("click", () => fit(true));
  box.addEventListener("keydown", (e) => {
    const t = e.target;
    if (t && (t.tagName === "SELECT" || (t.tagName === "INPUT" && t.type !== "range"))) return;
    let handled = true;
    if (e.key === "Escape" && selected) select_(null);
    else if (e.key === "ArrowRight") { stop(); show(cur + 1); }
    else if (e.key === "ArrowLeft") { stop(); show(cur - 1); }
    else if (e.key === "Home") { stop(); show(lo, false); }
    else if (e.key === "End") { stop(); show(hi, false); }
    else if (e.key === " " && (!t || t.tagName !== "BUTTON")) play();
    else handled = false;
    if (handled) { e.preventDefault(); e.stopPropagation(); }
  });

  function fit(animate) {
    if (!svg || !zoomer) return;
    const bb = gRoot.getBBox();
    const w = view.w || graph.clientWidth || 600, h = view.h || graph.clientHeight || 300;
    if (!bb.width || !bb.height) return;
    let scale = Math.min(w / (bb.width + 16), h / (bb.height + 16), 1.6);
    const minReadable = 0.85;  // below this, 12 px labels become unreadable: show the root's end instead
    let ty;
    if (scale < minReadable) {
      scale = minReadable;
      ty = 8 - bb.y * scale;     // rankdir=BT: the root (the loss) is at the top
    } else {
      ty = (h - bb.height * scale) / 2 - bb.y * scale;
    }
    const tx = (w - bb.width * scale) / 2 - bb.x * scale;
    const t = zoomIdentity.translate(tx, ty).scale(scale);
    const sel = select(graph);
    (animate ? sel.transition().duration(300) : sel).call(zoomer.transform, t);
  }

  // -- layout: once, and once more per new set of expanded groups (cached) -----------------------
  const t0 = performance.now();
  const layouts = new Map();     // DOT text -> graphviz's SVG
  function draw(v) {
    const dot = toDot(data);
    let text = layouts.get(dot);
    if (text === undefined) { text = v.renderString(dot, { format: "svg" }); layouts.set(dot, text); }
    box.dataset.layouts = String(layouts.size);
    const doc = new DOMParser().parseFromString(text, "image/svg+xml");
    const src = doc.documentElement;
    svg = document.importNode(src, true);
    // the picture keeps its natural size (1 graphviz point = 1 px); pan and zoom are a CSS transform of
    // the whole <svg> (composited: moving it re-lays out nothing inside)
    const vb = svg.viewBox.baseVal;
    svg.setAttribute("width", String(vb.width));
    svg.setAttribute("height", String(vb.height));
    svg.setAttribute("class", "agl-svg");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", `computation graph with ${data.nodes.length} nodes`);
    // graphviz's own translate goes on an inner group; d3-zoom drives an outer one
    inner = svg.querySelector("g.graph");
    inner.querySelector(":scope > polygon")?.remove();  // the white page background: transparent instead
    gRoot = document.createElementNS("http://www.w3.org/2000/svg", "g");
    gRoot.setAttribute("class", "agl-zoom");
    svg.insertBefore(gRoot, inner);
    gRoot.appendChild(inner);
    for (const t of svg.querySelectorAll("title")) t.remove();
    const old = graph.querySelector(":scope > svg.agl-svg");
    if (old) old.remove();
    graph.appendChild(svg);
    for (const m of [nodeEls, edgeEls, gradText, lastClass, lastText, geometry, pulsePoints]) m.clear();
    activeEdge = null; flashed = null;
    for (const n of data.nodes) {
      const g = svg.querySelector(`[id="agl-n-${CSS_escape(n.key)}"]`);
      if (!g) continue;
      g.dataset.key = n.key;
      g.dataset.engineNodes = (n.engine_nodes || []).join(" ");
      if (n.tensor !== null && n.tensor !== undefined) g.dataset.tensor = String(n.tensor);
      nodeEls.set(n.key, g);
      const texts = g.querySelectorAll("text");
      texts.forEach((t, i) => t.classList.add(`agl-t-${i}`));
      if (n.grad_slot && texts.length) {
        const last = texts[texts.length - 1];
        last.classList.add("agl-t-grad");
        gradText.set(n.key, last);
      }
      const tip = document.createElementNS("http://www.w3.org/2000/svg", "title");
      tip.textContent = n.tooltip || n.lines.join("\n");
      g.insertBefore(tip, g.firstChild);
    }
    for (const e of data.edges) {
      const g = svg.querySelector(`[id="${CSS_escape(e.id)}"]`);
      if (g) edgeEls.set(e.id, g);
    }
    const members = (base.detail && base.detail.members) || {};
    for (const [key, g] of nodeEls) {
      // focusable (not a tab stop each: big graphs would trap Tab); Enter on a focused node shows its details,
      // and on a collapsed group (click, Enter or Space) expands it
      const group = members[key] !== undefined;
      const act = () => (group ? toggle(key) : select_({ type: "node", key }));
      g.addEventListener("click", (ev) => { ev.stopPropagation(); act(); });
      g.setAttribute("tabindex", "-1");
      g.setAttribute("role", "button");
      const lines = (data.nodes.find((x) => x.key === key) || { lines: [key] }).lines.join(", ");
      g.setAttribute("aria-label", group ? `${lines}: expand (${members[key].length} nodes)` : `details of ${lines}`);
      if (group) g.setAttribute("aria-expanded", "false");
      g.addEventListener("keydown", (ev) => {
        if (ev.key === "Enter" || (group && ev.key === " ")) { ev.preventDefault(); ev.stopPropagation(); act(); }
      });
    }
    for (const key of expanded) {
      const c = svg.querySelector(`[id="agl-x-${CSS_escape(key)}"]`);
      if (!c) continue;
      c.dataset.group = key;
      c.setAttribute("tabindex", "-1");
      c.setAttribute("role", "button");
      c.setAttribute("aria-expanded", "true");
      c.setAttribute("aria-label", `collapse ${key}`);
      c.addEventListener("click", (ev) => { ev.stopPropagation(); toggle(key); });
      c.addEventListener("keydown", (ev) => {
        if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); ev.stopPropagation(); toggle(key); }
      });
    }
    for (const [id, g] of edgeEls) {
      g.addEventListener("click", (ev) => { ev.stopPropagation(); select_({ type: "edge", id }); });
    }
    // measure once: the layout never changes, so stepping reads nothing from the DOM
    view.w = graph.clientWidth; view.h = graph.clientHeight;
    const m = inner.transform.baseVal.consolidate();
    if (m) innerShift = { x: m.matrix.e, y: m.matrix.f };
    for (const g of [...nodeEls.values(), ...edgeEls.values()]) {
      const shape = g.querySelector("polygon, ellipse, path");
      if (shape) geometry.set(g, shape.getBBox());
    }
    for (const g of edgeEls.values()) {
      const path = g.querySelector("path");
      if (!path) continue;
      const len = path.getTotalLength(), pts = [];
      for (let i = 0; i <= 16; i++) { const p = path.getPointAtLength((len * i) / 16); pts.push([p.x, p.y]); }
      pulsePoints.set(g, pts);
    }
    if (zoomer === null) {
      zoomer = zoom().scaleExtent([0.05, 8]).extent(() => [[0, 0], [view.w || 1, view.h || 1]])
        .on("zoom", (ev) => { const t = ev.transform; svg.style.transform = `translate(${t.x}px, ${t.y}px) scale(${t.k})`; });
      select(graph).call(zoomer).on("dblclick.zoom", null);
      ready = true;
      fit(false);
    } else {
      const t = graph.__zoom || zoomIdentity;
      svg.style.transform = `translate(${t.x}px, ${t.y}px) scale(${t.k})`;
    }
    if (selected && selected.type === "node" && !nodeEls.has(selected.key)) selected = null;
    if (selected && selected.type === "edge" && !edgeEls.has(selected.id)) selected = null;
    render(cur, false);
  }

  // expand a collapsed group into its members, or collapse them again: a new layout (cached per set of
  // expanded groups); stepping afterwards still only restyles it
  let vizInstance = null;
  function toggle(key) {
    if (!vizInstance) return;
    const opening = !expanded.has(key);
    if (opening) expanded.add(key); else expanded.delete(key);
    data = viewOf(base, expanded);
    indexNodes();
    draw(vizInstance);
    box.dataset.expanded = [...expanded].join(" ");
    const target = opening ? svg.querySelector(`[id="agl-x-${CSS_escape(key)}"]`) : nodeEls.get(key);
    if (target) {
      const shape = target.querySelector("polygon, path");
      if (shape) geometry.set(target, shape.getBBox());
      follow(target, false);
      target.focus({ preventScroll: true });
    }
  }

  const laidOut = viz().then((v) => {
    vizInstance = v;
    draw(v);
    box.dataset.ready = "1";
    box.dataset.layoutMs = String(Math.round(performance.now() - t0));
  }).catch((err) => {
    graph.textContent = `could not lay out the graph: ${err}`;
    box.dataset.error = String(err);
  });

  show(data.initialStep !== undefined ? data.initialStep : lo, false);
  if (typeof ResizeObserver !== "undefined") {
    let w0 = 0;
    new ResizeObserver((entries) => {
      const r = entries[entries.length - 1].contentRect;
      view.w = r.width; view.h = r.height;
      if (ready && r.width && r.width !== w0) { w0 = r.width; fit(false); }
    }).observe(graph);
  }

  return {
    element: box,
    ready: laidOut,
    get step() { return cur; },
    show: (k) => { stop(); show(k, false); },
    destroy: () => { stop(); box.remove(); },
  };
}

function CSS_escape(s) {
  return String(s).replace(/["\\]/g, "\\$&");
}

// ------------------------------------------------------------------------------------------
// anywidget entry point
// ------------------------------------------------------------------------------------------

function render({ model, el: container }) {
  const data = { ...model.get("data") };
  data.height = model.get("height") || data.height;
  data.initialStep = model.get("step");
  const player = mount(container, data, {
    onStep: (k) => {
      try {                       // keeps working when the kernel is gone: the sync just fails quietly
        model.set("step", k);
        model.save_changes();
      } catch (e) { /* no kernel */ }
    },
  });
  const onChange = () => { const k = model.get("step"); if (k !== player.step) player.show(k); };
  model.on("change:step", onChange);
  return () => { model.off("change:step", onChange); player.destroy(); };
}

globalThis.autogradlabPlayer = { mount, fold, statuses, viewOf, toDot, shortValue, gradLine, firstAnomaly, pathsFrom,
  valueHtml, statsHtml, anomalyNote, alignSteps };

export default { render };
