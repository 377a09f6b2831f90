"""The player: an ipywidgets 8 box that steps through a tape's frames.

DOM contract (browser tests rely on it): the box has class ``agl-player``; buttons
``agl-prev``, ``agl-next``, ``agl-next-accumulate``, ``agl-next-free``; the Play widget
``agl-play``; the step slider ``agl-slider`` (its readout is the step number); the graph is an
inline ``<svg data-step="N">`` in an HTML widget with class ``agl-graph``; the caption (HTMLMath)
``agl-caption``; the side panel ``agl-panel``. In the SVG each node is ``<g id="agl-node-...">``;
the active one also has class ``agl-active``, freed ones ``agl-freed``.

Stepping never runs Graphviz: the layout was made once (see :mod:`.frames`).
"""
from __future__ import annotations

import ipywidgets as W

from .frames import Frames

__all__ = ["Player"]


class Player(W.VBox):
    """Step through a tape: Play, a speed control, a step slider, back/next and jump buttons, the graph,
    a caption explaining the step with its numbers, and a panel of gradients and pending sums."""

    def __init__(self, frames: Frames, *, width="100%", speed: float = 2.0, graph_height=None):
        self.frames = frames
        lo, hi = frames.steps[0], frames.steps[-1]
        interval = max(20, round(1000.0 / max(speed, 0.05)))
        self.slider = W.IntSlider(value=lo, min=lo, max=hi, step=1, description="step", continuous_update=True,
                                  layout=W.Layout(width="min(100%, 520px)")).add_class("agl-slider")
        self.play_widget = W.Play(value=lo, min=lo, max=hi, step=1, interval=interval, description="play",
                                  show_repeat=False).add_class("agl-play")
        self.speed = W.IntSlider(value=interval, min=50, max=3000, step=50, description="ms/step",
                                 layout=W.Layout(width="240px")).add_class("agl-speed")
        self._links = [W.jslink((self.play_widget, "value"), (self.slider, "value")),
                       W.jslink((self.speed, "value"), (self.play_widget, "interval"))]
        self.prev_button = W.Button(description="\u25c0 back", tooltip="previous step",
                                    layout=W.Layout(width="auto")).add_class("agl-prev")
        self.next_button = W.Button(description="next \u25b6", tooltip="next step",
                                    layout=W.Layout(width="auto")).add_class("agl-next")
        self.next_accumulate_button = W.Button(description="next accumulate",
                                               tooltip="jump to the next step that adds a gradient somewhere",
                                               layout=W.Layout(width="auto")).add_class("agl-next-accumulate")
        self.next_free_button = W.Button(description="next free",
                                         tooltip="jump to the next step that frees saved tensors",
                                         layout=W.Layout(width="auto")).add_class("agl-next-free")
        self.prev_button.on_click(lambda _: self.go(self.slider.value - 1))
        self.next_button.on_click(lambda _: self.go(self.slider.value + 1))
        self.next_accumulate_button.on_click(lambda _: self._jump("Accumulated"))
        self.next_free_button.on_click(lambda _: self._jump("SavedFreed"))

        glayout = W.Layout(flex="1 1 auto", width=str(width) if not isinstance(width, (int, float)) else f"{width}px",
                           overflow="auto", min_width="0")
        if graph_height is not None:
            glayout.max_height = graph_height if isinstance(graph_height, str) else f"{graph_height}px"
        self.graph = W.HTML(layout=glayout).add_class("agl-graph")
        self.caption = W.HTMLMath(layout=W.Layout(width="100%")).add_class("agl-caption")
        self.panel = W.HTML(layout=W.Layout(flex="0 0 auto", max_width="320px", overflow="auto")).add_class("agl-panel")
        controls = W.HBox([self.play_widget, self.slider, self.speed], layout=W.Layout(flex_flow="row wrap"))
        buttons = W.HBox([self.prev_button, self.next_button, self.next_accumulate_button, self.next_free_button],
                         layout=W.Layout(flex_flow="row wrap"))
        body = W.HBox([self.graph, self.panel], layout=W.Layout(width="100%", align_items="flex-start"))
        super().__init__([controls, buttons, self.caption, body], layout=W.Layout(width="100%"))
        self.add_class("agl-player")
        self.slider.observe(self._on_step, names="value")
        self.show(lo)

    # -- state ---------------------------------------------------------------------------------------
    @property
    def step(self) -> int:
        """The step shown (the slider's value)."""
        return self.slider.value

    @property
    def tape(self):
        return self.frames.model.tape

    @property
    def layout_calls(self) -> int:
        """How many times Graphviz ran for this player (always 1: layout once)."""
        return self.frames.layout_calls

    def go(self, step: int):
        """Show ``step`` (clamped to the player's range)."""
        self.slider.value = max(self.slider.min, min(self.slider.max, int(step)))

    def _jump(self, kind):
        target = self.frames.next_of_kind(self.slider.value, kind)
        if target is not None:
            self.go(target)

    def _on_step(self, change):
        self.show(change["new"])

    def show(self, step: int):
        """Redraw the graph, caption and panel for ``step`` (the slider observer calls this)."""
        fr = self.frames
        self.graph.value = fr.svg(step)
        self.caption.value = fr.caption(step, math=True)
        self.panel.value = fr.panel(step)
        self.prev_button.disabled = step <= fr.steps[0]
        self.next_button.disabled = step >= fr.steps[-1]
        self.next_accumulate_button.disabled = fr.next_of_kind(step, "Accumulated") is None
        self.next_free_button.disabled = fr.next_of_kind(step, "SavedFreed") is None

    def frame_svg(self, step: int | None = None) -> str:
        """The SVG of ``step`` (default: the step shown)."""
        return self.frames.svg(self.step if step is None else step)

    # -- export --------------------------------------------------------------------------------------
    def to_html(self, title: str = "autogradlab player") -> str:
        from .export import player_html
        return player_html(self.frames, title=title, interval=self.speed.value)

    def save_html(self, path, title: str = "autogradlab player"):
        """Write one self-contained HTML file (every frame inline, no network, no kernel); returns the path."""
        from pathlib import Path
        path = Path(path)
        path.write_text(self.to_html(title), encoding="utf-8")
        return path

    def save_gif(self, path, *, fps: float = 2.0, dpi: int = 96):
        """An animated GIF of every frame (needs Pillow); returns the path."""
        from .export import save_gif
        return save_gif(self.frames, path, fps=fps, dpi=dpi)
