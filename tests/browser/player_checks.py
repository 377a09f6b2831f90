"""Page-side checks of the browser player (autogradlab/viz/static/player.js), shared by the JupyterLab
and the exported-file tests.

DOM contract: the root ``.agl-player`` has ``data-step`` (the event shown) and ``data-ready="1"`` once
Graphviz (WebAssembly) has laid the graph out; buttons ``.agl-first .agl-prev .agl-play .agl-next
.agl-last``, jump buttons ``.agl-jump[data-kind=...]``, the scrub bar ``input.agl-slider``, the caption
``.agl-caption``; in the SVG each drawn node is ``<g class="node agl-node ..." data-key=...
data-engine-nodes="...">`` marked ``agl-done`` / ``agl-pending`` / ``agl-current`` / ``agl-pruned`` /
``agl-freed``, and its gradient line is ``text.agl-t-grad``.

Every frame is checked against the engine's own events: after step k the marks must be exactly
what ``tape.replay(k)`` says (done = ran this pass, pending = in a pass and not run yet, freed,
pruned, current = running now).
"""
from __future__ import annotations

import time

READ_JS = """(root) => {
  const box = document.querySelector(root);
  if (!box || box.dataset.ready !== '1') return null;
  const marks = {}, geometry = {}, grads = {};
  for (const g of box.querySelectorAll('g.agl-node')) {
    marks[g.dataset.key] = [...g.classList].filter(c => ['agl-done', 'agl-pending', 'agl-current', 'agl-pruned',
                                                        'agl-freed'].includes(c));
    const shape = g.querySelector('polygon, ellipse');
    geometry[g.dataset.key] = shape ? (shape.getAttribute('points') || [shape.getAttribute('cx'), shape.getAttribute('cy')].join(',')) : null;
    const t = g.querySelector('text.agl-t-grad');
    if (t) grads[g.dataset.key] = t.textContent;
  }
  const cap = box.querySelector('.agl-caption');
  return {step: Number(box.dataset.step), marks, geometry, grads,
          caption: cap ? cap.textContent.replace(/\\s+/g, ' ').trim() : null,
          activeEdges: [...box.querySelectorAll('g.agl-edge-active')].map(g => g.id)};
}"""


def read(page, root=".agl-player") -> dict | None:
    return page.evaluate(READ_JS, root)


def wait_step(page, step: int, root=".agl-player", timeout_s: float = 20.0) -> dict:
    deadline = time.monotonic() + timeout_s
    while True:
        f = read(page, root)
        if f is not None and f["step"] == step:
            return f
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s}s waiting for step {step}; last seen: "
                                 f"{None if f is None else (f['step'], f['caption'])}")
        page.wait_for_timeout(30)


def expected_marks(tape, data, k) -> dict:
    """What the engine's events say about each drawn node after step k."""
    s = tape.replay(k)
    in_pass = False
    for e in tape.events[:k + 1]:
        kind = type(e).__name__
        if kind == "BackwardStarted":
            in_pass = True
        elif kind == "BackwardFinished":
            in_pass = False
    ran, pruned, freed = set(s.ran), set(s.pruned), set(s.freed)
    out = {}
    for n in data["nodes"]:
        ids = set(n["engine_nodes"])
        m = set()
        if n["kind"] == "group":   # a collapsed group: pruned when all its members are, done when all ran
            if ids and ids <= pruned:
                m.add("agl-pruned")
            elif ids and ids <= ran | pruned:
                m.add("agl-done")
            elif in_pass and ids:
                m.add("agl-pending")
        elif ids & pruned:
            m.add("agl-pruned")
        elif ids & ran:
            m.add("agl-done")
        elif in_pass and ids:
            m.add("agl-pending")
        if ids & freed:
            m.add("agl-freed")
        if s.current is not None and s.current in ids:
            m.add("agl-current")
        out[n["key"]] = m
    return out


def check_frame(f: dict, tape, data):
    """The frame's marks and caption are the engine's, at its step."""
    k = f["step"]
    got = {key: set(v) for key, v in f["marks"].items()}
    want = expected_marks(tape, data, k)
    assert got == want, f"step {k}: the SVG marks {got}, the engine's events say {want}"
    if k < len(tape):
        assert f["caption"].startswith(f"Step {k} · {type(tape.events[k]).__name__}"), (k, f["caption"])


def press(page, key, root=".agl-player"):
    page.locator(root).first.focus()
    page.keyboard.press(key)


def exercise_player(page, tape, data, root=".agl-player", screenshot=None, screenshot_step=None) -> dict:
    """Buttons, keys, scrub bar, jumps and play; every frame checked against the engine's events, and
    the layout never moves (frames only restyle it)."""
    lo, hi = data["start"], data["end"]
    page.locator(f"{root}[data-ready='1']").first.wait_for()
    f0 = wait_step(page, lo, root)
    check_frame(f0, tape, data)
    geometry = f0["geometry"]
    assert geometry and all(geometry.values()), "every node has a drawn shape"

    # buttons
    page.locator(f"{root} .agl-next").first.click()
    f1 = wait_step(page, lo + 1, root)
    check_frame(f1, tape, data)
    page.locator(f"{root} .agl-prev").first.click()
    assert wait_step(page, lo, root)["marks"] == f0["marks"]

    # keys, and every step of the pass checked on the way
    seen = 0
    for k in range(lo + 1, hi + 1):
        press(page, "ArrowRight", root)
        f = wait_step(page, k, root)
        check_frame(f, tape, data)
        assert f["geometry"] == geometry, f"step {k}: nodes moved (the layout must be made once)"
        seen += 1
        if screenshot is not None and k == screenshot_step:
            page.wait_for_timeout(700)   # let the fade, the pulse and the "+contribution" finish
            page.locator(root).first.screenshot(path=str(screenshot), animations="allow")
    press(page, "ArrowRight", root)      # at the end: stays
    page.wait_for_timeout(100)
    assert read(page, root)["step"] == hi
    press(page, "ArrowLeft", root)
    check_frame(wait_step(page, hi - 1, root), tape, data)
    press(page, "Home", root)
    check_frame(wait_step(page, lo, root), tape, data)
    press(page, "End", root)
    last = wait_step(page, hi, root)
    check_frame(last, tape, data)

    # the leaves' .grad lines at the end are the engine's last values
    final = tape.replay(hi).grads
    for n in data["nodes"]:
        if n["kind"] == "param" and n["tensor"] in final:
            v = final[n["tensor"]]
            assert last["grads"][n["key"]] == "grad " + v.short(), (n["key"], last["grads"][n["key"]], v.short())

    # the scrub bar
    mid = (lo + hi) // 2
    page.locator(f"{root} input.agl-slider").first.evaluate(
        "(el, v) => { el.value = String(v); el.dispatchEvent(new Event('input', {bubbles: true})); }", mid)
    check_frame(wait_step(page, mid, root), tape, data)

    # jump to the next event of each kind there is
    jumps = {}
    for kind in ("Seeded", "GradientComputed", "Accumulated", "SavedFreed", "NodePruned"):
        press(page, "Home", root)
        wait_step(page, lo, root)
        target = next((e.step for e in tape.events[lo + 1:hi + 1] if type(e).__name__ == kind), None)
        btn = page.locator(f"{root} .agl-jump[data-kind='{kind}']")
        if target is None:
            continue
        btn.first.click()
        f = wait_step(page, target, root)
        check_frame(f, tape, data)
        if kind == "GradientComputed":
            e = tape.events[target]
            assert f["activeEdges"] == [data["edge_of"][f"{e.node_id}-{e.input_index}"]]
        jumps[kind] = target

    # play advances by itself; pressing it again pauses
    press(page, "Home", root)
    wait_step(page, lo, root)
    page.locator(f"{root} .agl-play").first.click()
    wait_step(page, lo + 2, root)
    page.locator(f"{root} .agl-play").first.click()
    paused = read(page, root)["step"]
    page.wait_for_timeout(1200)
    assert read(page, root)["step"] == paused, "pause stops the player"
    return {"steps": seen + 1, "jumps": jumps}
