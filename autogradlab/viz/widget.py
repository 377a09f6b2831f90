"""The player widget: an anywidget whose front end (``static/player.js``, built from ``js/``) lays the
graph out once with Graphviz in WebAssembly and steps through the tape in the browser.

The kernel sends :func:`~autogradlab.viz.playerdata.player_data` once (the ``data`` trait). The
``step`` trait follows the browser (and moves it when set from Python), but stepping itself needs
no kernel: it keeps working after the kernel stops, in a notebook saved with its widget state, and
in :meth:`Player.save_html`'s file.
"""
from __future__ import annotations

import pathlib

import anywidget
import traitlets

__all__ = ["BUNDLE", "Player"]

BUNDLE = pathlib.Path(__file__).with_name("static") / "player.js"


class Player(anywidget.AnyWidget):
    """Step through a tape in the browser: buttons, keyboard (Left/Right, Space, Home/End), play with
    speed, a scrub bar, jumps to the next event of a kind, zoom/pan/fit, and a caption with the
    chain rule's numbers. ``p.step`` is the step shown; set it to move the player."""

    _esm = BUNDLE
    data = traitlets.Dict().tag(sync=True)
    step = traitlets.Int(0).tag(sync=True)
    height = traitlets.Unicode("520px").tag(sync=True)

    def __init__(self, data: dict, *, height: str | int | None = None, **kwargs):
        if height is None:
            height = data.get("height", "520px")
        height = f"{height}px" if isinstance(height, (int, float)) else str(height)
        super().__init__(data=data, step=int(data["start"]), height=height, **kwargs)

    @property
    def steps(self) -> range:
        """The steps this player shows (the last is the error frame, when there is one)."""
        d = self.data
        return range(d["start"], d["end"] + 1 + (d["error"] is not None))

    def go(self, step: int):
        """Show ``step`` (clamped to the player's steps)."""
        r = self.steps
        self.step = max(r.start, min(r.stop - 1, int(step)))

    def __repr__(self):  # the text/plain output nbval compares: stable, no ids or addresses
        d = self.data
        n_nodes = len(d.get("nodes", ()))
        r = self.steps
        return (f"Player({d.get('title', '')}: steps {r.start}..{r.stop - 1}, {n_nodes} nodes"
                + (", ends with an error" if d.get("error") else "") + ")")

    # -- export ----------------------------------------------------------------------------------
    def to_html(self, title: str = "autogradlab player") -> str:
        """One self-contained HTML page with the same front end (no network, no kernel)."""
        from .export import player_html
        return player_html(self.data, title=title)

    def save_html(self, path, title: str = "autogradlab player"):
        """Write :meth:`to_html` to ``path``; returns the path."""
        path = pathlib.Path(path)
        path.write_text(self.to_html(title), encoding="utf-8")
        return path
