"""Pictures of autograd: graph drawings, a step-by-step player, an offline HTML export, and plots.

    import autogradlab as ag
    from autogradlab import viz

    a = ag.tensor(2.0, requires_grad=True, name="a")
    b = ag.tensor(3.0, requires_grad=True, name="b")
    with ag.trace() as tape:
        y = a * b + a
        y.backward()

    viz.draw(tape)              # graphviz.Digraph: the graph after the last step
    viz.draw(tape, step=9)      # ... as it was at step 9 (gradients on the edges, the active node marked)
    p = tape.play()             # the browser player widget (same as viz.play(tape))
    viz.export_html(tape, "backward.html")  # one self-contained file, works offline

The viz layer reads events only (a :class:`~autogradlab.events.Tape`); ``draw(tensor)`` (and
``play_backward(root)`` when the call raises before any event) is the exception: it walks a live
graph through the public introspection API (``grad_fn.name()``, ``next_functions``,
``AccumulateGrad.variable``).

Importing this package is cheap: graphviz, ipywidgets and matplotlib load on first use.
"""
from __future__ import annotations

from . import layout
from .layout import DotNotFoundError

__all__ = [
    "DotNotFoundError",
    "diff",
    "draw",
    "export_html",
    "grad_flow",
    "grad_timeline",
    "layout",
    "play",
    "play_backward",
    "training_curves",
]

_GRAPH_CLS = None


def _graph_cls():
    """``graphviz.Digraph`` whose rendering turns a missing ``dot`` into :class:`DotNotFoundError`."""
    global _GRAPH_CLS
    if _GRAPH_CLS is None:
        import graphviz

        class AutogradGraph(graphviz.Digraph):
            """A ``graphviz.Digraph``; rendering it without Graphviz installed says how to install it."""

            def pipe(self, *args, **kwargs):
                try:
                    return super().pipe(*args, **kwargs)
                except graphviz.ExecutableNotFound as exc:
                    raise DotNotFoundError() from exc

            def render(self, *args, **kwargs):
                try:
                    return super().render(*args, **kwargs)
                except graphviz.ExecutableNotFound as exc:
                    raise DotNotFoundError() from exc

            def _repr_mimebundle_(self, *args, **kwargs):
                try:
                    return super()._repr_mimebundle_(*args, **kwargs)
                except (graphviz.ExecutableNotFound, DotNotFoundError) as exc:
                    # no `dot` here: show the same graph through the browser player (Graphviz in WebAssembly)
                    fallback = getattr(self, "_agl_fallback", None)
                    if fallback is None:
                        raise DotNotFoundError() from exc
                    return fallback()._repr_mimebundle_(*args, **kwargs)

        _GRAPH_CLS = AutogradGraph
    return _GRAPH_CLS


def draw(source, step: int | None = None, *, show_values: bool = True, max_nodes: int = 200, rankdir: str = "BT",
         legend: bool = True, title: str | None = None):
    """The graph of a tape (at ``step``) or of a tensor, as a ``graphviz.Digraph``.

    Tensors are boxes, ops are ellipses. Leaves that require grad: sky blue, bold border,
    "(leaf)"; constants: grey, dotted border, "(constant)"; computed tensors: white, plain
    border; the root: orange, double border, "(root)". Each tensor shows its name, dtype, shape,
    value and gradient (``Value.short()``, large arrays summarised). Each op shows what it saves
    ("freed: ..." on grey once freed) and, during a backward pass, whether it ran or was pruned
    (dashed). Edges carry the gradient sent along them in the current pass (``GradientComputed``
    events up to ``step``); the step's active node has a thick vermillion border and a ▶.
    Ops recorded by a ``create_graph=True`` backward sit in a dashed cluster.

    ``step``: None draws the state after the last event. Graphs with more than ``max_nodes``
    nodes collapse runs of one repeated op into a "×N" node, then fold the nodes farthest from
    the output into one summary node; the graph's title says so. DOT node ids are stable
    (``id="agl-node-tensor-3"``, ``agl-node-op-2``, ...), and the DOT source is deterministic.
    """
    from .model import Fold, as_model
    from .render import Display, to_dot

    model = as_model(source)
    n = len(model.events)
    if step is not None:
        step = int(step)
        if not -1 <= step < max(n, 0):
            raise IndexError(f"step {step} is outside this tape's steps 0..{n - 1}")
    fold = Fold.at(model, step)
    display = Display(model, max_nodes)
    g = to_dot(display, fold, show_values=show_values, rankdir=rankdir, legend_on=legend, title=title,
               graph_cls=_graph_cls())

    def fallback():
        """The browser player of the same graph, at the same step (used when `dot` is missing)."""
        from .playerdata import player_data
        from .widget import Player
        at = n - 1 if step is None else step
        data = player_data(model, phase="all", max_nodes=max_nodes, show_values=show_values, rankdir=rankdir,
                           title=title or "graph", height="420px")
        p = Player(data)
        p.go(at)
        return p
    g._agl_fallback = fallback
    return g


def play(source, *, phase: str | None = None, error=None, names=None, speed: float = 2.0, show_values: bool = True,
         max_nodes: int = 400, rankdir: str = "BT", height="520px", title: str | None = None):
    """The browser player of a tape (``Tape.play()`` calls this): an anywidget.

    The kernel sends the tape once; the browser lays the graph out with Graphviz in WebAssembly and
    computes every frame itself, so stepping needs no kernel and no ``dot`` binary.
    ``phase``: "backward" (default when the tape has a backward pass), "forward" (watch the graph
    being recorded) or "all". ``error``: an exception shown as one last frame (for example the
    RuntimeError of a second backward without ``retain_graph``). ``names``: a module (or a mapping
    name -> tensor) whose parameter names replace ``x0, x1, ...`` (``0.weight``). ``speed``: steps
    per second when playing. Graphs over ``max_nodes`` drawn nodes collapse repeated op chains.
    """
    from .playerdata import player_data
    from .widget import Player

    data = player_data(source, phase=phase, error=error, names=names, max_nodes=max_nodes,
                       show_values=show_values, rankdir=rankdir, title=title, height=height, speed=speed)
    return Player(data)


def diff(tape_a, tape_b=None, *, passes=None, expected=None, rtol: float = 1e-6, **kwargs):
    """Two runs of the same graph side by side, every node whose forward value or gradient differs
    marked (dashed blue) on both, both runs' numbers in its side panel; stepping one steps the other.

    ``diff(tape_a, tape_b)``: two tapes (two training steps, a hand-computed tape against the engine's).
    ``diff(tape)``: the first and the second backward pass of one tape (``retain_graph=True``: the
    leaves' ``.grad`` accumulates), or ``passes=(i, j)``. ``diff(tape, expected={"x": [...], ...})``:
    gradients computed by hand (keys: the tensors' drawn names, or the tensors) against the engine's, the
    tensors that disagree marked. Numbers differ beyond ``rtol`` relative to them and beyond an absolute
    ``max(rtol * largest magnitude, dtype eps)`` (float32 noise next to an exact 0 is no difference).
    Exported by ``export_html`` like any player."""
    from .playerdata import diff_data
    from .widget import Player
    return Player(diff_data(tape_a, tape_b, passes=passes, expected=expected, rtol=rtol, **kwargs))


def export_html(source, path, **kwargs):
    """Write the player of ``source`` (a Tape or a Player) as ONE self-contained HTML file (same front
    end and controls; opened from disk it makes no network request); returns the path."""
    from .export import export_html as impl
    return impl(source, path, **kwargs)


def play_backward(root, gradient=None, retain_graph=None, create_graph=False, inputs=None, *,
                  max_elements: int | None = None, stats: bool = True, **player_kwargs):
    """Run ``root.backward(...)`` under a trace and return a player of that pass.

    The graph comes from the pass's own events (the engine's plan in ``BackwardStarted`` names every
    node, edge and pruned node, so ops recorded before the trace are drawn too). If the call raises
    before the pass begins, for example a second backward without ``retain_graph=True``, there are no
    events: the player then shows the graph walked from ``root`` (freed nodes grey) with the error as
    its last frame instead of a traceback. ``max_elements`` and ``stats`` are :func:`~autogradlab.trace`'s;
    ``stats`` is on here (a picture was asked for, so a large tensor's panel gets its histogram), while a
    plain ``trace()`` leaves it off to stay cheap.
    """
    from .. import events as ev
    from .model import GraphModel, model_of_tensor

    tracer = ev.trace(ev.MAX_ELEMENTS if max_elements is None else max_elements, stats=stats)
    error = None
    with tracer:
        try:
            root.backward(gradient=gradient, retain_graph=retain_graph, create_graph=create_graph, inputs=inputs)
        except Exception as exc:  # noqa: BLE001  (any error of the call becomes the last frame)
            error = exc
    tape = tracer.tape
    if tape.of_kind("BackwardStarted"):
        model = GraphModel.from_events(tape.events, tape=tape)
    else:
        model = model_of_tensor(root)
    player_kwargs.setdefault("phase", "backward" if model.pass_starts else "all")
    player_kwargs.setdefault("title", "backward pass" if model.pass_starts or error is None else "backward (raised)")
    return play(model, error=error, **player_kwargs)


def grad_timeline(tape, **kwargs):
    """Gradient magnitude (L2 norm) of each tensor over the steps of a tape: a matplotlib Figure."""
    from .plots import grad_timeline as impl
    return impl(tape, **kwargs)


def grad_flow(named_parameters, **kwargs):
    """Mean and max |grad| per parameter (layer) of a model: a matplotlib Figure."""
    from .plots import grad_flow as impl
    return impl(named_parameters, **kwargs)


def training_curves(history, **kwargs):
    """Curves from a dict of lists (``{"loss": [...], "accuracy": [...]}``): a matplotlib Figure."""
    from .plots import training_curves as impl
    return impl(history, **kwargs)
