"""The player as one self-contained HTML file: the same front end as the widget (the bundle in
``static/player.js``, Graphviz's WebAssembly inlined) and the data the kernel would send, both
inline. Opened from disk it makes no network request and needs no kernel."""
from __future__ import annotations

import html
import json
import pathlib

from .widget import BUNDLE

__all__ = ["export_html", "player_html"]

PAGE_CSS = """
html, body { margin: 0; padding: 0; }
body { padding: 12px; font: 14px/1.4 Helvetica, Arial, sans-serif; color: #1a1a1a; background: #ffffff; }
@media (prefers-color-scheme: dark) {
  body { color: #e6e6e6; background: #1e1e1e; }
  .agl-player { --jp-ui-font-color1: #e6e6e6; --jp-layout-color1: #1e1e1e; --jp-layout-color2: #2c2c2c;
    --jp-border-color1: #616161; }
}
h1 { font-size: 16px; margin: 0 0 8px; }
"""


def _script_text(text: str) -> str:
    """Text that is safe inside a <script> element (no closing tag, no HTML comment start)."""
    return text.replace("</", "<\\/").replace("<!--", "<\\!--")


def player_html(data: dict, title: str = "autogradlab player") -> str:
    """The page as a string."""
    bundle = BUNDLE.read_text(encoding="utf-8")
    payload = json.dumps(data, separators=(",", ":"), allow_nan=False)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline' 'wasm-unsafe-eval' blob:; style-src 'unsafe-inline'; img-src data:; connect-src data:">
<title>{html.escape(title)}</title>
<style>{PAGE_CSS}</style>
</head>
<body>
<h1>{html.escape(title)}</h1>
<div id="agl-root"></div>
<script type="application/json" id="agl-data">{_script_text(payload)}</script>
<script type="module">{_script_text(bundle)}</script>
<script type="module">
const data = JSON.parse(document.getElementById("agl-data").textContent);
globalThis.autogradlabPlayer.mount(document.getElementById("agl-root"), data);
</script>
</body>
</html>
"""


def export_html(source, path, *, title: str = "autogradlab player", **play_kwargs) -> pathlib.Path:
    """Write the player of ``source`` (a Tape, or a Player) as one self-contained HTML file; returns the path.
    ``play_kwargs`` go to :func:`~autogradlab.viz.play` (``phase``, ``names``, ``error``, ...)."""
    from .widget import Player
    if isinstance(source, Player):
        data = source.data
    else:
        from .playerdata import player_data
        data = player_data(source, **play_kwargs)
    path = pathlib.Path(path)
    path.write_text(player_html(data, title=title), encoding="utf-8")
    return path
