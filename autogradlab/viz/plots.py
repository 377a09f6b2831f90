"""Plots (matplotlib): each function returns a new ``matplotlib.figure.Figure``.

Figures are built with ``Figure()`` directly, never through pyplot, so no global state changes
and nothing is shown by itself: a Figure left as a cell's value is displayed by Jupyter.
"""
from __future__ import annotations

import math

import numpy

from .. import events as ev

__all__ = ["grad_flow", "grad_timeline", "training_curves"]

# Okabe-Ito, for lines (colour-blind safe); line styles cycle too so colour is never the only cue
COLORS = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
STYLES = ["-", "--", "-.", ":"]


def _figure(figsize):
    from matplotlib.figure import Figure
    return Figure(figsize=figsize, layout="constrained")


def _norm(v) -> float:
    if v is None:
        return float("nan")
    if v.data is not None:
        a = numpy.asarray(v.data, dtype=float)
        return float(numpy.sqrt((a * a).sum()))
    return float(v.norm)


def _tape_of(source):
    tape = source if isinstance(source, ev.Tape) else getattr(source, "tape", None)
    if not isinstance(tape, ev.Tape):
        raise TypeError(f"grad_timeline expects a Tape (from `with autogradlab.trace() as tape:`), "
                        f"got {type(source).__name__}")
    return tape


def grad_timeline(tape, *, names=None, max_lines: int = 12, log: bool = False, figsize=(7, 3.5)):
    """The gradient norm of each tensor across the steps of ``tape``: one step line per tensor.

    A tensor's value at a step is the gradient known for it then: its pending sum while
    contributions arrive, the full gradient once its node runs, and a leaf's ``.grad`` after
    accumulation (which grows across repeated backward calls). Dotted vertical lines mark the
    start of each backward pass. ``names`` picks tensors; otherwise the ``max_lines`` tensors
    with the largest gradients are drawn. ``log=True`` uses a log scale.
    """
    from .model import GraphModel

    tape = _tape_of(tape)
    model = GraphModel.from_events(tape.events, tape=tape)
    series = {}          # tensor id -> [(step, norm)]

    def note(tid, step, value):
        if tid is not None:
            series.setdefault(tid, []).append((step, _norm(value)))
    for e in tape.events:
        if isinstance(e, ev.Seeded):
            note(e.tensor.tensor_id, e.step, e.seed)
        elif isinstance(e, ev.Accumulated):
            if e.where == "buffer":
                key = model.tensor_key_of_node(e.node_id)
                note(key[1] if key else None, e.step, e.after)
            else:
                note(e.tensor.tensor_id if e.tensor is not None else None, e.step, e.after)
        elif isinstance(e, ev.NodeStarted) and e.grad is not None:
            note(e.output.tensor_id, e.step, e.grad)
    if names is not None:
        wanted = set(names)
        chosen = [tid for tid in series if model.name(tid) in wanted]
    else:
        chosen = sorted(series, key=lambda t: -max((v for _, v in series[t] if not math.isnan(v)), default=0))
        chosen = sorted(chosen[:max_lines])
    fig = _figure(figsize)
    ax = fig.add_subplot()
    last = max(len(tape.events) - 1, 0)
    for i, tid in enumerate(chosen):
        pts = series[tid]
        xs = [s for s, _ in pts] + [last]
        ys = [v for _, v in pts] + [pts[-1][1]]
        ax.step(xs, ys, where="post", label=model.name(tid), color=COLORS[i % len(COLORS)],
                linestyle=STYLES[(i // len(COLORS)) % len(STYLES)], linewidth=1.6)
    for e in tape.events:
        if isinstance(e, ev.BackwardStarted):
            ax.axvline(e.step, color="#888888", linestyle=":", linewidth=1)
    ax.set_xlabel("step")
    ax.set_ylabel("gradient norm ‖grad‖₂")
    ax.set_title("Gradient magnitude per tensor over the tape")
    if log:
        ax.set_yscale("log")
    first = min((e.step for e in tape.events if isinstance(e, ev.BackwardStarted)), default=0)
    ax.set_xlim(max(first - 1, 0), max(last, first + 1))
    if chosen:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", ncol=2 if len(chosen) > 8 else 1,
                  title="tensor", title_fontsize="small")
    else:
        ax.text(0.5, 0.5, "no gradients in this tape", transform=ax.transAxes, ha="center", va="center")
    return fig


def _named(params):
    if hasattr(params, "named_parameters"):
        params = params.named_parameters()
    out = []
    for item in params:
        if not (isinstance(item, tuple) and len(item) == 2):
            raise TypeError("grad_flow expects a model (anything with .named_parameters()) or (name, tensor) pairs, "
                            f"got an item of type {type(item).__name__}")
        out.append(item)
    return out


def grad_flow(named_parameters, *, log: bool = False, figsize=None, skip_bias: bool = False):
    """Mean and max ``|grad|`` per parameter, in order: vanishing or exploding gradients at a glance.

    ``named_parameters``: a model (anything with ``.named_parameters()``) or an iterable of
    ``(name, tensor)``. Parameters without a gradient are marked "no grad". Bars: max |grad|
    (light, hatched) behind mean |grad| (dark).
    """
    pairs = _named(named_parameters)
    if skip_bias:
        pairs = [(n, p) for n, p in pairs if not n.endswith("bias")]
    names, means, maxes, missing = [], [], [], []
    for name, p in pairs:
        g = p.grad
        names.append(name)
        if g is None:
            means.append(0.0)
            maxes.append(0.0)
            missing.append(len(names) - 1)
            continue
        host = g.detach().numpy() if hasattr(g, "detach") else g      # .grad may require grad (create_graph)
        a = numpy.abs(numpy.asarray(host, dtype=float))
        means.append(float(a.mean()) if a.size else 0.0)
        maxes.append(float(a.max()) if a.size else 0.0)
    fig = _figure(figsize or (max(4.0, 0.6 * len(names) + 2), 3.5))
    ax = fig.add_subplot()
    x = numpy.arange(len(names))
    ax.bar(x, maxes, width=0.8, color="#56B4E9", alpha=0.55, hatch="//", edgecolor="#0072B2", label="max |grad|")
    ax.bar(x, means, width=0.5, color="#0072B2", label="mean |grad|")
    for i in missing:
        ax.text(i, 0, "no grad", rotation=90, ha="center", va="bottom", fontsize="small", color="#D55E00")
    ax.set_xticks(x, names, rotation=45, ha="right")
    ax.set_xlim(-0.75, max(len(names) - 0.25, 0.75))
    ax.set_ylabel("|grad|")
    ax.set_title("Gradient flow per parameter")
    if log and any(v > 0 for v in maxes):
        ax.set_yscale("log")
    ax.legend(loc="best", fontsize="small")
    ax.grid(axis="y", alpha=0.3)
    return fig


_PREFIXES = ("train_", "val_", "valid_", "validation_", "test_")


def training_curves(history, *, xlabel: str = "epoch", figsize=None, log_loss: bool | None = None):
    """One panel per metric from a dict of lists (``{"loss": [...], "accuracy": [...]}``).

    Keys that differ only by a ``train_``/``val_``/``test_`` prefix share a panel (one line each).
    Values that are not lists of numbers (for example ``history["figure"]`` from ``fit``) are
    skipped. ``log_loss``: log scale for panels whose name contains "loss" (default: when all
    their values are positive and span more than a factor of 100).
    """
    if not isinstance(history, dict):
        raise TypeError(f"training_curves expects a dict of lists, got {type(history).__name__}")
    groups = {}
    for key, values in history.items():
        if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
            continue
        try:
            ys = [float(v) for v in values]
        except (TypeError, ValueError):
            continue
        if not ys:
            continue
        base = key
        for p in _PREFIXES:
            if key.startswith(p):
                base = key[len(p):]
                break
        groups.setdefault(base, []).append((key, ys))
    if not groups:
        raise ValueError("training_curves: the history has no lists of numbers")
    fig = _figure(figsize or (3.6 * len(groups), 3.0))
    axes = fig.subplots(1, len(groups), squeeze=False)[0]
    for ax, (base, lines) in zip(axes, groups.items()):
        for i, (key, ys) in enumerate(lines):
            xs = numpy.arange(1, len(ys) + 1)
            ax.plot(xs, ys, color=COLORS[i % len(COLORS)], linestyle=STYLES[i % len(STYLES)], label=key,
                    marker="o" if len(ys) <= 20 else None, markersize=3)
        ax.set_title(base)
        ax.set_xlabel(xlabel)
        ax.grid(alpha=0.3)
        if "loss" in base:
            vals = [v for _, ys in lines for v in ys]
            positive = all(v > 0 for v in vals)
            use_log = log_loss if log_loss is not None else positive and max(vals) > 100 * min(vals)
            if use_log and positive:
                ax.set_yscale("log")
        if len(lines) > 1:
            ax.legend(fontsize="small")
    return fig
