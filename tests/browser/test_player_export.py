"""``player.save_html(path)``: one self-contained HTML file that works from file:// with no network,
driven in headless Chromium (no Jupyter involved)."""
import re

from . import nbgen
from .conftest import artifact
from .player_checks import exercise_export, fan_in_step


def test_player_export(graphviz_dot, page, tmp_path):
    from autogradlab.viz import play

    tape = nbgen.build_tape()
    player = play(tape)
    out = tmp_path / "player.html"
    player.save_html(out)
    text = out.read_text(encoding="utf-8")
    # self-contained: no script, stylesheet, image or font fetched from elsewhere
    external = re.findall(r"""<(?:script|img|iframe)[^>]*\ssrc\s*=\s*["']?(?:https?:)?//[^"'\s>]*"""
                          r"""|<link[^>]*\shref\s*=\s*["']?(?:https?:)?//[^"'\s>]*"""
                          r"""|@import\s+(?:url\()?\s*["']?(?:https?:)?//[^"')\s]*"""
                          r"""|url\(\s*["']?(?:https?:)?//[^"')\s]*""", text, re.I)
    assert not external, f"external references in the export: {external[:5]}"

    seen = exercise_export(page, out, fan_in_step(tape))
    page.screenshot(path=str(artifact("test_player_export-page.png")))
    print(f"\n[player export] {seen}; {out.stat().st_size / 1024:.0f} KiB")
