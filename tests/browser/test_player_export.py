"""``viz.export_html(tape, path)``: one self-contained HTML file with the player's front end, opened
from file:// in headless Chromium with no Jupyter, no kernel and no ``dot``: every control works,
every frame's marks are the engine's, and the page makes no request at all beyond its own file."""
import re

from autogradlab import viz
from autogradlab.viz.playerdata import player_data

from . import nbgen
from .conftest import artifact
from .player_checks import exercise_player


def test_exported_player_steps_offline_with_no_requests(page, tmp_path):
    tape = nbgen.build_tape()
    out = viz.export_html(tape, tmp_path / "player.html")
    text = out.read_text(encoding="utf-8")
    assert not re.search(r"<(?:script|img|iframe)[^>]*\ssrc\s*=|<link[^>]*\shref\s*=", text, re.I)

    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(out.resolve().as_uri())
    seen = exercise_player(page, tape, player_data(tape))
    assert requests == [out.resolve().as_uri()], f"the exported page made requests: {requests[1:]}"
    errors = [line for line in page.console_log if line.startswith(("pageerror", "error"))]
    assert not errors, errors
    page.screenshot(path=str(artifact("test_player_export-page.png")))
    print(f"\n[player export] {seen}; {out.stat().st_size / 1024:.0f} KiB")


def test_exported_error_frame_and_dark_theme(browser, tmp_path):
    import autogradlab as ag

    a = ag.tensor(2.0, requires_grad=True, name="a")
    with ag.trace() as tape:
        y = a * a
        y.backward()
        try:
            y.backward()
        except RuntimeError as exc:
            error = exc
    out = viz.export_html(tape, tmp_path / "error.html", error=error)
    ctx = browser.new_context(viewport={"width": 420, "height": 800}, color_scheme="dark")
    try:
        pg = ctx.new_page()
        pg.goto(out.resolve().as_uri())
        pg.locator(".agl-player[data-ready='1']").wait_for()
        pg.locator(".agl-player").focus()
        pg.keyboard.press("End")
        pg.wait_for_function(f"() => document.querySelector('.agl-player').dataset.step === '{len(tape)}'")
        cap = pg.locator(".agl-caption").text_content()
        assert "Error" in cap and "retain_graph=True" in cap
        # narrow cell: the controls wrap inside the 420 px page, nothing sticks out sideways
        assert pg.evaluate("() => document.documentElement.scrollWidth") <= 420
        bg = pg.evaluate("() => getComputedStyle(document.querySelector('.agl-player')).backgroundColor")
        assert bg == "rgb(30, 30, 30)", bg    # dark theme variables reach the player
        pg.screenshot(path=str(artifact("test_player_export-dark-narrow.png")))
    finally:
        ctx.close()
