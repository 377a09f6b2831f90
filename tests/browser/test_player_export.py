"""``viz.export_html(tape, path)``: one self-contained HTML file with the player's front end, opened
from file:// in headless Chromium with no Jupyter, no kernel and no ``dot``: every control works,
every frame's marks are the engine's, and the page makes no request at all beyond its own file."""
import re

import pytest

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


def _non_finite(v):
    import math
    if v is None:
        return False
    vals = list(v.data) if v.data is not None else [v.min, v.max, v.norm]
    return any(isinstance(x, float) and not math.isfinite(x) for x in vals)


def test_timeline_search_paths_and_a_planted_nan(page, tmp_path):
    """Issue 15: the timeline has one mark per event and clicking one jumps there; search marks the
    nodes whose labels match; "paths to the output" marks exactly the nodes downstream of a leaf; the
    first NaN/inf gradient (planted: sqrt at 0) is found at the engine's step and marked on its edge."""
    import warnings

    import autogradlab as ag

    x = ag.tensor([0.0, 4.0], requires_grad=True, name="x")
    w = ag.tensor([2.0, 3.0], requires_grad=True, name="w")
    with warnings.catch_warnings(), ag.trace() as tape:
        warnings.simplefilter("ignore")
        (x.sqrt() * w + w).sum().backward()
    data = player_data(tape)
    first_bad = next(e for e in tape.events
                     if any(_non_finite(getattr(e, f, None)) for f in ("seed", "grad", "upstream", "contribution", "after")))
    out = viz.export_html(tape, tmp_path / "nan.html")
    page.goto(out.resolve().as_uri())
    page.locator(".agl-player[data-ready='1']").wait_for()
    box = page.locator(".agl-player")

    # the planted NaN/inf
    jump = box.locator(".agl-anomaly-jump")
    assert jump.get_attribute("data-step") == str(first_bad.step)
    assert box.locator(".agl-anomaly").count() == 0        # not marked before it happens
    jump.click()
    page.wait_for_function(f"() => document.querySelector('.agl-player').dataset.step === '{first_bad.step}'")
    assert type(first_bad).__name__ == "GradientComputed"
    assert set(box.locator(".agl-anomaly").evaluate_all("els => els.map(e => e.id)")) == {
        data["edge_of"][f"{first_bad.node_id}-{first_bad.input_index}"],
        "agl-n-" + next(n["key"] for n in data["nodes"] if first_bad.node_id in n["engine_nodes"])}

    # the timeline: a mark per event of the pass, each jumps to its step
    marks = box.locator(".agl-timeline .agl-mark")
    lanes = ("Seeded", "NodeStarted", "GradientComputed", "Accumulated", "SavedFreed", "NodePruned")
    assert marks.count() == sum(1 for e in tape.events[data["start"]:] if type(e).__name__ in lanes)
    for i in (0, marks.count() // 2, marks.count() - 1):
        m = marks.nth(i)
        m.dispatch_event("click")
        page.wait_for_function(f"() => document.querySelector('.agl-player').dataset.step === '{m.get_attribute('data-step')}'")
        assert tape.events[int(m.get_attribute("data-step"))].__class__.__name__ == m.get_attribute("data-kind")

    # search by op name
    box.locator(".agl-search").fill("sqrt")
    matched = box.locator("g.agl-node.agl-match").evaluate_all("els => els.map(e => e.dataset.key)")
    assert matched == [n["key"] for n in data["nodes"] if "sqrt" in " ".join(n["lines"])] and matched
    box.locator(".agl-search").fill("")
    assert box.locator("g.agl-node.agl-match, g.agl-node.agl-dim").count() == 0

    # paths from the leaf x to the output: every node downstream of x along the drawn edges
    x_key = data["tensor_node"]["0"]
    box.locator(f"g.agl-node[data-key='{x_key}']").dispatch_event("click")
    box.locator(".agl-paths").click()
    want, todo = {x_key}, [x_key]
    while todo:
        k = todo.pop()
        for e in data["edges"]:
            if e["src"] == k and e["dst"] not in want:
                want.add(e["dst"])
                todo.append(e["dst"])
    got = set(box.locator("g.agl-node.agl-path").evaluate_all("els => els.map(e => e.dataset.key)"))
    w_key = next(n["key"] for n in data["nodes"] if n["lines"][0] == "w (leaf)")
    assert got == want and w_key not in got     # w's box is not on x's paths
    page.screenshot(path=str(artifact("test_player_export-nan-paths.png")))


def test_diff_of_two_tapes_marks_exactly_the_differing_nodes(page, tmp_path):
    """Issue 15: ``viz.diff(a, b)`` exported: the two tapes side by side, each SVG marks exactly the nodes
    whose numbers differ, stepping one steps the other, and a marked node's panel shows both numbers."""
    import autogradlab as ag

    def tape_with(w_values):
        x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")
        w = ag.tensor(w_values, requires_grad=True, name="w")
        with ag.trace() as tape:
            (x * w + x).sum().backward()
        return tape, x

    (a, _), (b, xb) = tape_with([3.0, -1.0]), tape_with([3.0, -2.0])
    p = viz.diff(a, b)
    out = viz.export_html(p, tmp_path / "diff.html")
    page.goto(out.resolve().as_uri())
    page.locator(".agl-player[data-side='left'][data-ready='1']").wait_for()
    page.locator(".agl-player[data-side='right'][data-ready='1']").wait_for()
    left, right = page.locator(".agl-player[data-side='left']"), page.locator(".agl-player[data-side='right']")
    names = {n["key"]: n["lines"][0] for n in p.data["nodes"]}
    for box in (left, right):
        marked = box.locator("g.agl-node.agl-diff").evaluate_all("els => els.map(e => e.dataset.key)")
        assert sorted(names[k] for k in marked) == sorted(["w (leaf)", "x (leaf)", "t0", "t1", "t2 (root)"])
    right.focus()
    page.keyboard.press("End")                        # marks stay while stepping; the left follows
    page.wait_for_function("() => document.querySelector(\".agl-player[data-side='left']\").dataset.step === "
                           f"'{p.data['diff']['left']['data']['end']}'")
    assert right.locator("g.agl-node.agl-diff").count() == 5
    x_key = next(k for k, v in names.items() if v == "x (leaf)")
    right.locator(f"g.agl-node[data-key='{x_key}']").dispatch_event("click")
    note = right.locator(".agl-diff-note").text_content()
    assert "grad: first [4, 0], second [4, -1]" in note and xb.grad.numpy().tolist() == [4.0, -1.0]
    # the left side shows the first tape's own numbers: x.grad there is [4, 0]
    left.locator(f"g.agl-node[data-key='{x_key}']").dispatch_event("click")
    assert left.locator(".agl-grad-now").text_content() == "[4, 0]"
    page.screenshot(path=str(artifact("test_player_export-diff.png")))


def test_diff_of_two_passes_marks_the_accumulated_leaves(page, tmp_path):
    """Issue 15: ``viz.diff(tape)`` of a first and a second backward with ``retain_graph=True``, exported:
    pass 0 on the left, pass 1 on the right, exactly the leaves marked (their .grad accumulated), and each
    side's leaf panel shows that pass's .grad (the engine's, to 4 significant digits)."""
    import autogradlab as ag

    x = ag.tensor([1.5, 2.0], requires_grad=True, name="x")
    w = ag.tensor([3.0, -1.25], requires_grad=True, name="w")
    with ag.trace() as tape:
        y = (x * w + x).sum()
        y.backward(retain_graph=True)
        first = x.grad.numpy().copy()
        y.backward()
    p = viz.diff(tape)
    out = viz.export_html(p, tmp_path / "passes.html")
    page.goto(out.resolve().as_uri())
    page.locator(".agl-player[data-side='right'][data-ready='1']").wait_for()
    page.locator(".agl-player[data-side='left'][data-ready='1']").wait_for()
    left, right = page.locator(".agl-player[data-side='left']"), page.locator(".agl-player[data-side='right']")
    names = {n["key"]: n["lines"][0] for n in p.data["nodes"]}
    for box in (left, right):
        marked = box.locator("g.agl-node.agl-diff").evaluate_all("els => els.map(e => e.dataset.key)")
        assert sorted(names[k] for k in marked) == ["w (leaf)", "x (leaf)"]
    x_key = next(k for k, v in names.items() if v == "x (leaf)")
    # pass 1 is longer (it frees what it saved); stepping one side moves the other to the matching event
    left.focus()
    page.keyboard.press("End")
    page.wait_for_function("() => document.querySelector(\".agl-player[data-side='right']\").dataset.step === "
                           f"'{p.data['end']}'")
    first_acc = next(e.step for e in tape.of_kind("Accumulated") if e.step > p.data["start"])
    right.focus()
    page.keyboard.press("Home")
    for _ in range(first_acc - p.data["start"]):
        page.keyboard.press("ArrowRight")
    first_acc_0 = next(e.step for e in tape.of_kind("Accumulated"))
    page.wait_for_function("() => document.querySelector(\".agl-player[data-side='left']\").dataset.step === "
                           f"'{first_acc_0}'")
    page.keyboard.press("End")
    for box, want in ((left, first), (right, x.grad.numpy())):
        box.locator(f"g.agl-node[data-key='{x_key}']").dispatch_event("click")
        shown = box.locator(".agl-grad-now").text_content()
        assert [float(v) for v in shown.strip("[]").split(",")] == pytest.approx(want.tolist(), rel=5e-4)
    from autogradlab.events import snapshot
    note = right.locator(".agl-diff-note").text_content()
    assert f"grad: pass 0 {snapshot(first).short()}, pass 1 {snapshot(x.grad.numpy()).short()}" in note
    assert snapshot(first).short() == "[4, -0.25]"


def test_an_edge_into_a_broadcast_input_shows_the_sum_over_the_broadcast_dimension(page, tmp_path):
    """Issue 15 / lesson 07: W + b with b broadcast over rows: the edge from b shows the (2, 3) upstream,
    the (3,) contribution (the engine's), and says it was summed over the broadcast dimension."""
    import autogradlab as ag

    W = ag.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True, name="W")
    b = ag.tensor([0.1, 0.2, 0.3], requires_grad=True, name="b")
    g = ag.tensor([[1.0, 10.0, 100.0], [2.0, 20.0, 200.0]])
    with ag.trace() as tape:
        (W + b).backward(gradient=g)
    data = player_data(tape)
    out = viz.export_html(tape, tmp_path / "broadcast.html")
    page.goto(out.resolve().as_uri())
    page.locator(".agl-player[data-ready='1']").wait_for()
    box = page.locator(".agl-player")
    box.focus()
    page.keyboard.press("End")
    e = next(e for e in tape.of_kind("GradientComputed") if e.input is not None and e.input.name == "b")
    box.locator(f"g.edge[id='{data['edge_of'][f'{e.node_id}-{e.input_index}']}']").dispatch_event("click")
    panel = box.locator(".agl-panel")
    assert box.locator(".agl-edge-contribution").text_content() == e.contribution.short() == "[3, 30, 300]"
    assert "summed over the broadcast dimensions" in panel.text_content()
    assert "[2, 3]" in panel.text_content() and "[3]" in panel.text_content()
    assert b.grad.numpy().tolist() == [3.0, 30.0, 300.0]


@pytest.mark.parametrize("shape", ["chain", "summary"])
def test_a_collapsed_group_expands_and_collapses_with_its_members_marked_from_the_engine(shape, page, tmp_path):
    """Issue 14: in a graph big enough to collapse, Enter on a collapsed group (an "op xN" chain, or the
    "... N more nodes" summary) lays out its members (once: toggling again reuses the cached layout), each
    marked as tape.replay(k) says while stepping; a click on the expanded box collapses it again."""
    import autogradlab as ag

    from .player_checks import check_frame, read, wait_step

    x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")
    w = ag.tensor([0.5, -1.0], requires_grad=True, name="w")
    with ag.trace() as tape:
        h = x * w
        for _ in range(30):
            h = h * 1.01 if shape == "chain" else h.tanh() * 1.5
        (h.sum() + w.sum()).backward()
    data = player_data(tape, max_nodes=20)
    groups = [n for n in data["nodes"] if n["kind"] == "group"]
    assert groups and data["detail"], "the graph is big enough to collapse"
    group = max(groups, key=lambda n: len(n["engine_nodes"]))
    assert group["lines"][0] == ("mul \u00d731" if shape == "chain" else "\u2026 141 more nodes")
    members = data["detail"]["members"][group["key"]]
    detail = {n["key"]: n for n in data["detail"]["nodes"]}
    view = {"nodes": [m for n in data["nodes"] for m in ([detail[k] for k in members] if n is group else [n])]}
    # a step in the middle of the chain's backward: the group is current, some members done, some pending
    starts = [e.step for e in tape if type(e).__name__ == "NodeStarted" and e.node_id in group["engine_nodes"]]
    k = starts[len(starts) // 2]

    out = viz.export_html(tape, tmp_path / "big.html", max_nodes=20)
    page.goto(out.resolve().as_uri())
    box = page.locator(".agl-player")
    page.locator(".agl-player[data-ready='1']").wait_for()
    page.evaluate(f"() => {{ const s = document.querySelector('.agl-slider'); s.value = '{k}'; "
                  "s.dispatchEvent(new Event('input')); }")
    f = wait_step(page, k)
    check_frame(f, tape, data)
    assert {"agl-current", "agl-pending"} <= set(f["marks"][group["key"]])
    assert box.get_attribute("data-layouts") == "1"

    # Enter on the collapsed chain: its members appear, marked as the engine says, at every step
    g = box.locator(f"g.agl-node[data-key='{group['key']}']")
    assert g.get_attribute("aria-expanded") == "false"
    g.focus()
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => document.querySelector('.agl-player').dataset.expanded === '{group['key']}'")
    f = read(page)
    assert set(f["marks"]) == {n["key"] for n in view["nodes"]} and len(members) > 3
    check_frame(f, tape, view)
    assert sum("agl-done" in f["marks"][m] for m in members) and sum("agl-pending" in f["marks"][m] for m in members)
    assert box.get_attribute("data-layouts") == "2"
    geometry = f["geometry"]
    for step in range(k + 1, min(k + 6, data["end"]) + 1):
        box.focus()
        page.keyboard.press("ArrowRight")
        f = wait_step(page, step)
        check_frame(f, tape, view)
        assert f["geometry"] == geometry, "stepping only restyles the expanded layout"

    # a click on the expanded box collapses it; Space on the chain expands it again from the cache
    box.locator(f"g[data-group='{group['key']}']").dispatch_event("click")
    page.wait_for_function("() => document.querySelector('.agl-player').dataset.expanded === ''")
    f = read(page)
    assert set(f["marks"]) == {n["key"] for n in data["nodes"]}
    check_frame(f, tape, data)
    g = box.locator(f"g.agl-node[data-key='{group['key']}']")
    g.focus()
    page.keyboard.press("Space")
    page.wait_for_function(f"() => document.querySelector('.agl-player').dataset.expanded === '{group['key']}'")
    check_frame(read(page), tape, view)
    assert box.get_attribute("data-layouts") == "2", "the expanded layout is computed once and reused"
    errors = [line for line in page.console_log if line.startswith(("pageerror", "error"))]
    assert not errors, errors


def test_clicking_an_op_shows_the_line_that_created_it(page, tmp_path):
    """Issue 15: an op's panel says where in the user's code it was created (file and line, with the
    line's text) and so does the caption of each of its steps; the exported page has no machine path."""
    import inspect

    import autogradlab as ag

    a = ag.tensor([1.0, 2.0], requires_grad=True, name="a")
    with ag.trace() as tape:
        h = a * 3.0                    # creates: mul
        h.exp().sum().backward()       # creates: exp
    lines, start = inspect.getsourcelines(test_clicking_an_op_shows_the_line_that_created_it)
    line_of = {m: start + next(i for i, ln in enumerate(lines) if f"# creates: {m}" in ln) for m in ("mul", "exp")}
    data = player_data(tape)
    out = viz.export_html(tape, tmp_path / "source.html")
    assert __file__ not in out.read_text(encoding="utf-8")  # only the file's base name travels
    page.goto(out.resolve().as_uri())
    page.locator(".agl-player[data-ready='1']").wait_for()
    box = page.locator(".agl-player")
    for op in ("mul", "exp"):
        rec = next(e for e in tape.of_kind("OpRecorded") if e.op == op)
        node = next(n for n in data["nodes"] if n["kind"] == "op" and rec.node_id in n["engine_nodes"])
        box.locator(f"g.agl-node[data-key='{node['key']}']").dispatch_event("click")
        page.wait_for_function("() => !!document.querySelector('.agl-panel .agl-source')")
        where = f"test_player_export.py, line {line_of[op]}"
        assert box.locator(".agl-panel .agl-source-where").text_content() == where
        assert f"# creates: {op}" in box.locator(".agl-panel .agl-source-text").text_content()
        # the caption of the node's chain-rule step names the same line
        step = next(e.step for e in tape.of_kind("NodeStarted") if e.node_id == rec.node_id)
        box.focus()
        page.keyboard.press("Home")
        for _ in range(step - data["start"]):
            page.keyboard.press("ArrowRight")
        page.wait_for_function(f"() => document.querySelector('.agl-player').dataset.step === '{step}'")
        assert where in box.locator(".agl-caption .agl-source").text_content()
        page.keyboard.press("Escape")


def _planted_sqrt(ag, np):
    W = ag.tensor(np.linspace(0.0, 4.0, 200).reshape(10, 20), requires_grad=True, name="W")
    return W, W.sqrt()                 # planted: d sqrt/dW at W = 0 is inf


def test_large_tensor_statistics_hooks_and_the_anomaly_traceback_in_the_panel(page, tmp_path):
    """Issue 15: a large tensor's panel shows the kernel's statistics and histogram (trace(stats=True));
    a hook's panel entry shows the gradient before and after it; the first inf gradient is marked at the
    engine's step with anomaly mode's forward traceback (the line that created the op) in the caption and
    in the op's panel."""
    import inspect
    import math
    import warnings

    import numpy as np

    import autogradlab as ag
    from autogradlab.events import records

    with warnings.catch_warnings(), ag.trace(stats=True) as tape:
        warnings.simplefilter("ignore")
        with ag.autograd.detect_anomaly():
            W, h = _planted_sqrt(ag, np)
        h.register_hook(lambda g: g * 2.0)
        (h * 3.0).sum().backward()
    data = player_data(tape)
    sqrt_rec = next(e for e in tape.of_kind("OpRecorded") if e.op == "sqrt")
    sqrt_key = next(n["key"] for n in data["nodes"] if n["kind"] == "op" and sqrt_rec.node_id in n["engine_nodes"])
    first_bad = next(e for e in tape.events if type(e).__name__ == "GradientComputed"
                     and (e.contribution.data is None and not math.isfinite(e.contribution.max)))
    assert first_bad.node_id == sqrt_rec.node_id
    out = viz.export_html(tape, tmp_path / "large.html")
    page.goto(out.resolve().as_uri())
    page.locator(".agl-player[data-ready='1']").wait_for()
    box = page.locator(".agl-player")

    # the sqrt's output (200 elements): statistics and a histogram, the kernel's numbers
    box.locator(f"g.agl-node[data-key='{sqrt_key}']").dispatch_event("click")
    stats = box.locator(".agl-panel table.agl-stats").first
    want = np.sqrt(np.linspace(0.0, 4.0, 200))
    assert float(stats.locator("[data-stat='mean']").text_content()) == pytest.approx(want.mean(), rel=5e-4)
    assert float(stats.locator("[data-stat='std']").text_content()) == pytest.approx(want.std(), rel=5e-4)
    assert stats.locator("[data-stat='nan']").text_content() == "0"
    counts = box.locator(".agl-panel svg.agl-hist").first.get_attribute("data-counts")
    assert counts == ",".join(map(str, records.array_stats(want).hist))
    assert box.locator(".agl-panel svg.agl-hist rect").count() == 16

    # the hook on h: the gradient before (3 everywhere) and after (6 everywhere); "next: hook" jumps to
    # it and its timeline lane has one mark
    hook = next(e for e in tape.of_kind("HookRan"))
    assert box.locator(".agl-timeline .agl-mark[data-kind='HookRan']").count() == 1
    box.locator(".agl-jump[data-kind='HookRan']").click()
    page.wait_for_function(f"() => document.querySelector('.agl-player').dataset.step === '{hook.step}'")
    assert "the gradient was" in box.locator(".agl-caption").text_content()
    box.focus()
    page.keyboard.press("End")
    entry = box.locator(f".agl-panel .agl-hook[data-step='{hook.step}']")
    assert "replaced the gradient" in entry.text_content()
    assert entry.locator(".agl-hook-before .agl-num").text_content() == hook.before[0].short()
    assert entry.locator(".agl-hook-after .agl-num").text_content() == hook.after[0].short()
    assert hook.before[0].stats.mean == 3.0 and hook.after[0].stats.mean == 6.0
    assert entry.locator(".agl-hook-after [data-stat='mean']").text_content() == "6"

    # the planted inf: marked at the engine's step, the caption names the line that created the op
    jump = box.locator(".agl-anomaly-jump")
    assert jump.get_attribute("data-step") == str(first_bad.step)
    jump.click()
    page.wait_for_function(f"() => document.querySelector('.agl-player').dataset.step === '{first_bad.step}'")
    lines, start = inspect.getsourcelines(_planted_sqrt)
    line = start + next(i for i, t in enumerate(lines) if "W.sqrt()" in t)
    note = box.locator(".agl-caption .agl-anomaly-note").text_content()
    assert f"test_player_export.py, line {line}" in note and "_planted_sqrt" in note and "W.sqrt()" in note
    assert box.locator(f"g.agl-node.agl-anomaly[data-key='{sqrt_key}']").count() == 1
    box.locator(f"g.agl-node[data-key='{sqrt_key}']").dispatch_event("click")
    # its contributions were computed from the hooked gradient: the panel says so
    assert f"after the tensor hook at step {hook.step}" in box.locator(".agl-panel .agl-hook-note").text_content()
    frames = box.locator(".agl-panel .agl-traceback li").all_text_contents()
    assert frames[-1].startswith(f"test_player_export.py, line {line} in _planted_sqrt")
    assert any("test_large_tensor_statistics_hooks_and_the_anomaly_traceback_in_the_panel" in f for f in frames)
    assert box.locator(".agl-panel .agl-traceback").get_attribute("open") is not None   # open: it is the culprit
    page.screenshot(path=str(artifact("test_player_export-large-anomaly.png")))


def test_diff_of_hand_computed_gradients_marks_the_wrong_one(page, tmp_path):
    """Issue 15: ``viz.diff(tape, expected=...)``, a student's hand-computed gradients against the engine's,
    exported: exactly the tensor whose gradient is wrong is marked, its panel shows both numbers."""
    import autogradlab as ag

    x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")
    w = ag.tensor([3.0, -1.0], requires_grad=True, name="w")
    with ag.trace() as tape:
        (x * w + x).sum().backward()
    p = viz.diff(tape, expected={"x": [4.0, 0.0], "w": [3.0, -1.0]})     # dL/dw is x, not w
    out = viz.export_html(p, tmp_path / "hand.html")
    page.goto(out.resolve().as_uri())
    page.locator(".agl-player[data-ready='1']").wait_for()
    box = page.locator(".agl-player")
    names = {n["key"]: n["lines"][0] for n in p.data["nodes"]}
    marked = box.locator("g.agl-node.agl-diff").evaluate_all("els => els.map(e => e.dataset.key)")
    assert [names[k] for k in marked] == ["w (leaf)"]
    box.locator(f"g.agl-node[data-key='{marked[0]}']").dispatch_event("click")
    assert "grad: yours [3, -1], engine [1, 2]" in box.locator(".agl-diff-note").text_content()
    assert w.grad.numpy().tolist() == [1.0, 2.0]


def test_a_complex_backward_plays_and_its_panels_show_the_engines_complex_numbers(page, tmp_path):
    """A traced complex backward: every frame is the engine's, a leaf's panel shows its complex .grad, and each
    edge's panel shows the engine's contribution with the conjugated formula it was computed by."""
    import autogradlab as ag

    z = ag.tensor([1 + 2j], dtype=ag.complex128, requires_grad=True, name="z")
    with ag.trace() as tape:
        ((ag.exp(z) * (2 - 1j)).real + z.abs()).sum().backward()
    data = player_data(tape)
    out = viz.export_html(tape, tmp_path / "complex.html")
    page.goto(out.resolve().as_uri())
    exercise_player(page, tape, data)
    box = page.locator(".agl-player")
    box.locator(f"g.agl-node[data-key='{data['tensor_node']['0']}']").dispatch_event("click")
    page.keyboard.press("End")
    page.wait_for_function(f"() => document.querySelector('.agl-panel-body')?.dataset.step === '{data['end']}'")
    assert box.locator(".agl-grad-now").text_content() == tape.replay(data["end"]).grads[0].short()
    assert "j" in box.locator(".agl-grad-now").text_content()
    formulas = []
    for e in tape.of_kind("GradientComputed"):
        box.locator(f"g.edge[id='{data['edge_of'][f'{e.node_id}-{e.input_index}']}']").dispatch_event("click")
        page.wait_for_function("() => !!document.querySelector('.agl-edge-contribution')")
        assert box.locator(".agl-edge-contribution").text_content() == e.contribution.short()
        assert e.formula in box.locator(".agl-panel").text_content()
        formulas.append(e.formula)
    assert "d(e^a)/da = conj(exp(a))" in formulas and "d(|a|)/da = a/|a|" in formulas
    errors = [line for line in page.console_log if line.startswith(("pageerror", "error"))]
    assert not errors, errors
