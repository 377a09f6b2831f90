"""Page-side checks of the player's DOM contract (autogradlab.viz), shared by the Lab, export and
harness tests.

Contract: box .agl-player; buttons .agl-prev .agl-next .agl-next-accumulate .agl-next-free;
Play .agl-play; slider .agl-slider; HTML widget .agl-graph holding an inline root <svg data-step="N">
(N = the frame shown) whose nodes are <g id="agl-node-..."> and the active node's <g> has class
agl-active; caption .agl-caption; side panel .agl-panel.
"""
from __future__ import annotations

import re
import time

GRAPH_SVG = ".agl-graph svg[data-step]"
ACCUMULATION = re.compile(r"accumul", re.I)

# The root <svg> of the graph (the outermost one with data-step inside .agl-graph).
FRAME_JS = """(root) => {
  const box = document.querySelector(root);
  const svg = box && box.querySelector('.agl-graph svg[data-step]');
  if (!svg) return null;
  const caption = box.querySelector('.agl-caption');
  return {step: svg.getAttribute('data-step'),
          active: [...svg.querySelectorAll('g.agl-active')].map(g => g.id),
          nodes: [...svg.querySelectorAll('g[id^="agl-node-"]')].map(g => g.id),
          caption: caption ? caption.textContent.replace(/\\s+/g, ' ').trim() : null,
          html: svg.innerHTML};
}"""


def frame(page, root=".agl-player") -> dict | None:
    """The frame shown: {step: int, active: [ids], nodes: [ids], caption: str, html: str}."""
    f = page.evaluate(FRAME_JS, root)
    if f is not None:
        f["step"] = int(f["step"])
    return f


def brief(f):
    return None if f is None else {k: (v[:200] if isinstance(v, str) else v) for k, v in f.items() if k != "html"}


def wait_frame(page, pred, what: str, root=".agl-player", timeout_s: float = 20.0) -> dict:
    """Poll until pred(frame) holds; fail with the last frame seen."""
    deadline = time.monotonic() + timeout_s
    while True:
        f = frame(page, root)
        if f is not None and pred(f):
            return f
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s}s waiting for {what}; last frame: {brief(f)}")
        page.wait_for_timeout(40)


def click(page, cls: str, root=".agl-player"):
    page.locator(f"{root} .{cls}").first.click()


def step_next(page, before: dict, root=".agl-player", must_redraw=True) -> dict:
    """Click next; the frame must move on by exactly one and (if must_redraw) the SVG must change."""
    click(page, "agl-next", root)
    after = wait_frame(page, lambda f: f["step"] != before["step"], f"a frame after {before['step']}", root)
    assert after["step"] == before["step"] + 1, (brief(before), brief(after))
    assert not must_redraw or after["html"] != before["html"], f"next: frame {after['step']} draws the same SVG as {before['step']}"
    return after


def step_prev(page, before: dict, expected: dict, root=".agl-player") -> dict:
    """Click prev; the frame must be exactly `expected` again (same step, same SVG markup)."""
    click(page, "agl-prev", root)
    after = wait_frame(page, lambda f: f["step"] != before["step"], f"a frame before {before['step']}", root)
    assert after["step"] == expected["step"], (brief(expected), brief(after))
    assert after["html"] == expected["html"], f"prev: frame {after['step']} is not drawn as it was before"
    assert after["active"] == expected["active"]
    return after


def walk_to(page, f: dict, step: int, root=".agl-player", max_clicks=60) -> dict:
    """Click next until data-step == step."""
    for _ in range(max_clicks):
        if f["step"] >= step:
            break
        f = step_next(page, f, root, must_redraw=False)
    assert f["step"] == step, f"could not reach frame {step}; at {brief(f)}"
    return f


def screenshot_player(page, path, root=".agl-player", pad=12):
    """A clean picture of the player box with a white margin: the viewport keeps its width and
    grows in height until the whole box fits, the box is centred, no hover, no focus ring."""
    box = page.locator(root).first
    vp = page.viewport_size
    need = int(box.bounding_box()["height"]) + 300  # Lab's menu, tabs, toolbar and status bar
    if need > vp["height"]:
        page.set_viewport_size({"width": vp["width"], "height": need})
        vp = page.viewport_size
    box.evaluate("e => e.scrollIntoView({block: 'center', inline: 'nearest'})")
    page.mouse.move(0, 0)
    page.evaluate("() => { document.activeElement && document.activeElement.blur(); }")
    page.evaluate("() => document.fonts.ready.then(() => true)")
    # blank out what surrounds the box in Lab (prompts, code, cell borders, the collapser bar);
    # visibility only, so nothing moves
    style = page.add_style_tag(content="""
        .jp-Cell:not(:has(%(root)s)), .jp-Cell:has(%(root)s) .jp-Cell-inputWrapper,
        .jp-OutputPrompt, .jp-Collapser, .jp-Cell-inputCollapser, .jp-Cell-outputCollapser
        { visibility: hidden !important; }""" % {"root": root})
    page.wait_for_timeout(400)  # relayout after the resize, hover/focus transitions
    bb = box.bounding_box()
    x, y = max(0, bb["x"] - pad), max(0, bb["y"] - pad)
    clip = {"x": x, "y": y, "width": min(bb["x"] + bb["width"] + pad, vp["width"]) - x,
            "height": min(bb["y"] + bb["height"] + pad, vp["height"]) - y}
    try:
        page.screenshot(path=str(path), clip=clip, animations="disabled")
    finally:
        style.evaluate("e => e.remove()")


def fan_in_step(tape) -> int:
    """The tape step where a gradient is added to one already there (x's second contribution)."""
    from autogradlab.events import Accumulated

    return next(e.step for e in tape if isinstance(e, Accumulated) and e.before is not None)


def exercise_player(page, tape, screenshot=None, root=".agl-player"):
    """The interaction every rendering of the player must support (Lab widget or stand-in):
    next / prev, walking to the fan-in accumulation (optionally screenshotted there),
    next-accumulate and Play. Returns the frames seen, for the test's report."""
    from autogradlab.events import Accumulated

    events = list(tape)
    f0 = wait_frame(page, lambda f: True, "the player's graph", root)
    assert f0["nodes"], f"no <g id=agl-node-...> in the graph: {brief(f0)}"
    f1 = step_next(page, f0, root)
    step_prev(page, f1, f0, root)

    target = fan_in_step(tape)
    walk_to(page, f0, target, root)
    # the caption is a widget of its own: it may arrive a moment after the graph; and in Lab
    # MathJax typesets it (no raw "$...$" left) before the screenshot
    mid = wait_frame(page, lambda f: f["step"] == target and bool(ACCUMULATION.search(f["caption"] or ""))
                     and "$" not in f["caption"], f"frame {target}'s caption to mention accumulation", root)
    assert len(mid["active"]) == 1, f"one active node expected at frame {target}: {brief(mid)}"
    if screenshot is not None:
        screenshot_player(page, screenshot, root)

    click(page, "agl-next-accumulate", root)
    acc = wait_frame(page, lambda f: f["step"] > mid["step"] and f["caption"] != mid["caption"]
                     and bool(ACCUMULATION.search(f["caption"] or "")),
                     "next-accumulate to move on to a step whose caption mentions accumulation", root)
    assert isinstance(events[acc["step"]], Accumulated), (brief(acc), events[acc["step"]])

    page.locator(f"{root} .agl-play button:has(i.fa-play)").first.click()
    played = wait_frame(page, lambda f: f["step"] > acc["step"], "Play to advance the frame", root)
    pause = page.locator(f"{root} .agl-play button:has(i.fa-pause)")
    if pause.count():
        pause.first.click()
    return {"first": f0["step"], "fan_in": mid["step"], "accumulate": acc["step"], "played": played["step"]}


LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:")


def exercise_export(page, html_path, fan_in, root=".agl-player"):
    """Open an exported player (one self-contained HTML file) from file:// and drive it:
    next / prev change the frame and change it back, the slider moves it, next-accumulate
    jumps (to before ``fan_in`` at the latest), Play (if there is one) advances, and nothing
    but file:/data: URLs is requested. Returns the frames seen, for the test's report."""
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(html_path.resolve().as_uri())
    page.locator(f"{root} {GRAPH_SVG}").first.wait_for()
    f0 = wait_frame(page, lambda f: True, "the exported player's graph", root)
    assert f0["nodes"], f"no <g id=agl-node-...> in the graph: {brief(f0)}"

    f1 = step_next(page, f0, root)
    f2 = step_next(page, f1, root)
    step_prev(page, f2, f1, root)
    step_prev(page, f1, f0, root)

    slider = page.locator(f"{root} input[type=range].agl-slider, {root} .agl-slider input[type=range]").first
    lo, hi = int(slider.get_attribute("min") or 0), int(slider.get_attribute("max"))
    assert hi > lo
    slider.focus()
    slider.press("End")  # native keyboard input on a range fires input + change
    end = wait_frame(page, lambda f: f["step"] != f0["step"], "the slider (End) to move the frame", root)
    assert end["step"] == hi and end["html"] != f0["html"], brief(end)
    assert int(slider.input_value()) == hi
    slider.press("Home")
    home = wait_frame(page, lambda f: f["step"] == lo, "the slider (Home) to move back", root)
    if f0["step"] == lo:
        assert home["html"] == f0["html"], "the slider's first frame is not drawn as it was at load"
    # a value set by script, as a drag would set it
    mid = (lo + hi) // 2
    slider.evaluate("(el, v) => { el.value = String(v); el.dispatchEvent(new Event('input', {bubbles: true}));"
                    " el.dispatchEvent(new Event('change', {bubbles: true})); }", mid)
    wait_frame(page, lambda f: f["step"] == mid, f"the slider to show frame {mid}", root)
    # next after the slider carries on from where the slider put it
    f = step_next(page, frame(page, root), root, must_redraw=False)

    # the jump buttons work without a kernel too
    assert f["step"] < fan_in, (brief(f), fan_in)
    click(page, "agl-next-accumulate", root)
    acc = wait_frame(page, lambda g: g["step"] > f["step"] and g["caption"] != f["caption"]
                     and bool(ACCUMULATION.search(g["caption"] or "")),
                     "next-accumulate to move on to a step whose caption mentions accumulation", root)
    assert acc["step"] <= fan_in, brief(acc)
    # and Play, where the export has one (the contract only requires the buttons and the slider)
    play = page.locator(f"{root} .agl-play button[title=play], {root} .agl-play button:has(i.fa-play)")
    played = None
    if play.count():
        play.first.click()
        played = wait_frame(page, lambda g: g["step"] > acc["step"], "Play to advance the frame", root)["step"]

    remote = [u for u in requests if not u.startswith(LOCAL_SCHEMES)]
    assert not remote, f"the exported file made network requests: {remote}"
    return {"first": f0["step"], "max": hi, "played": played, "requests": len(requests)}
