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


def test_clicking_a_leaf_and_an_edge_shows_the_engines_numbers(page, tmp_path):
    """Issue 15: a leaf's panel shows its .grad at the step shown (the engine's value to 4 significant
    digits) and every contribution it received; an edge's panel shows upstream x local = contribution
    equal to the engine's GradientComputed event for that edge."""
    tape = nbgen.build_tape()
    data = player_data(tape)
    out = viz.export_html(tape, tmp_path / "inspect.html")
    page.goto(out.resolve().as_uri())
    page.locator(".agl-player[data-ready='1']").wait_for()
    box = page.locator(".agl-player")

    # every step: the x leaf's panel says what tape.replay(k) says about x.grad
    x_key = data["tensor_node"]["0"]
    box.locator(f"g.agl-node[data-key='{x_key}']").dispatch_event("click")
    for k in range(data["start"], data["end"] + 1):
        box.focus()
        if k > data["start"]:
            page.keyboard.press("ArrowRight")
        page.wait_for_function(f"() => document.querySelector('.agl-panel-body')?.dataset.step === '{k}'")
        g = tape.replay(k).grads.get(0)
        want = "None" if g is None else g.short()
        assert box.locator(".agl-grad-now").text_content() == want, k
    received = [e for e in tape.of_kind("GradientComputed") if e.input is not None and e.input.tensor_id == 0]
    items = box.locator(".agl-panel li").all_text_contents()
    for e in received:
        assert any(e.contribution.short() in t and f"#{e.node_id}" in t for t in items), (e, items)

    # an edge: the chain-rule product on it is the engine's contribution event for it
    for e in tape.of_kind("GradientComputed"):
        edge_id = data["edge_of"][f"{e.node_id}-{e.input_index}"]
        box.locator(f"g.edge[id='{edge_id}']").dispatch_event("click")
        page.wait_for_function("() => !!document.querySelector('.agl-edge-contribution')")
        assert box.locator(".agl-edge-contribution").text_content() == e.contribution.short()
        assert e.formula in box.locator(".agl-panel").text_content()
    page.keyboard.press("Escape")
    assert box.locator(".agl-panel").is_hidden()
