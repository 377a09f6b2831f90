"""Issue 15's checks in JupyterLab 4 (the exported-file versions are in test_player_export.py): a notebook
whose cells trace a small fan-in graph, a planted NaN under anomaly mode and two backward passes; in
Chromium, clicking a leaf shows its .grad equal to the engine's (4 significant digits), clicking an edge
shows the engine's contribution for it, an op's panel names the cell line that created it, the planted
NaN is marked at the engine's step with that line, and the diff of the two passes marks exactly the
nodes whose numbers differ."""
import warnings

import pytest

from autogradlab.viz.playerdata import diff_data, player_data

from . import nbgen
from .conftest import artifact

NAN_CODE = """\
import warnings
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    with ag.trace() as nan_tape:
        with ag.autograd.detect_anomaly():
            v = ag.tensor([0.0, 4.0], requires_grad=True, name="v")
            r = v.sqrt()                       # planted: d sqrt/dv at 0 is 1/0, times 0: NaN
        (r * 0.0).sum().backward()
nan_tape.play()
"""

DIFF_CODE = """\
from autogradlab import viz
a = ag.tensor([1.5, 2.0], requires_grad=True, name="a")
b = ag.tensor([3.0, -1.25], requires_grad=True, name="b")
with ag.trace() as two:
    z = (a * b + a).sum()
    z.backward(retain_graph=True)
    z.backward()
viz.diff(two)
"""


def _run(code, ns):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(code, ns)
    return ns


def _line(code, marker):
    return 1 + next(i for i, t in enumerate(code.splitlines()) if marker in t)


def test_inspector_checks_in_lab(lab):
    nb = lab(nbgen.notebook([nbgen.GRAPH_CODE, nbgen.PLAY_CODE, NAN_CODE, DIFF_CODE]))
    nb.close_side_panels()
    nb.run_all()
    nb.assert_ran_cleanly()
    page = nb.page
    ns = _run(nbgen.GRAPH_CODE, {})
    tape, x = ns["tape"], ns["x"]
    _run(NAN_CODE, ns)
    _run(DIFF_CODE, ns)
    cells = page.locator(".jp-Notebook .jp-CodeCell")
    page.locator(".agl-player[data-ready='1']").nth(3).wait_for()

    # -- the fan-in player: a leaf's .grad and an edge's product are the engine's
    box = cells.nth(1).locator(".agl-player")
    data = player_data(tape)
    box.locator(f"g.agl-node[data-key='{data['tensor_node']['0']}']").dispatch_event("click")
    box.focus()
    page.keyboard.press("End")
    page.wait_for_function("(el) => el.querySelector('.agl-panel-body')?.dataset.step === el.dataset.step",
                           arg=box.element_handle())
    shown = box.locator(".agl-grad-now").text_content()
    assert [float(t) for t in shown.strip("[]").split(",")] == pytest.approx(x.grad.numpy().tolist(), rel=5e-4)
    assert shown == tape.replay(data["end"]).grads[0].short()
    for e in tape.of_kind("GradientComputed"):
        box.locator(f"g.edge[id='{data['edge_of'][f'{e.node_id}-{e.input_index}']}']").dispatch_event("click")
        assert box.locator(".agl-edge-contribution").text_content() == e.contribution.short()
    # an op's panel: the cell line that created it
    mul = next(e for e in tape.of_kind("OpRecorded") if e.op == "mul")
    key = next(n["key"] for n in data["nodes"] if n["kind"] == "op" and mul.node_id in n["engine_nodes"])
    box.locator(f"g.agl-node[data-key='{key}']").dispatch_event("click")
    line = _line(nbgen.GRAPH_CODE, "y = (x * w + x).sum()")
    assert box.locator(".agl-panel .agl-source-where").text_content() == f"cell, line {line}"
    assert "(x * w + x).sum()" in box.locator(".agl-panel .agl-source-text").text_content()

    # -- the planted NaN: marked at the engine's step, with the line anomaly mode recorded
    nan_tape = ns["nan_tape"]
    box = cells.nth(2).locator(".agl-player")
    first_bad = next(e for e in nan_tape.events if type(e).__name__ == "GradientComputed"
                     and any(v != v or abs(v) == float("inf") for v in e.contribution.data))
    assert first_bad.node_name == "SqrtBackward" and first_bad.contribution.data[0] != first_bad.contribution.data[0]
    jump = box.locator(".agl-anomaly-jump")
    assert jump.get_attribute("data-step") == str(first_bad.step)
    jump.click()
    page.wait_for_function(f"(el) => el.dataset.step === '{first_bad.step}'", arg=box.element_handle())
    note = box.locator(".agl-caption .agl-anomaly-note").text_content()
    assert f"cell, line {_line(NAN_CODE, 'r = v.sqrt()')}" in note and "v.sqrt()" in note
    assert box.locator("g.agl-anomaly").count() == 2          # the edge and the op

    # -- the diff of two passes: exactly the leaves (their .grad accumulated), on both sides
    d = diff_data(ns["two"])
    names = {n["key"]: n["lines"][0] for n in d["nodes"]}
    want = sorted(names[k] for k in d["diff"]["keys"])
    assert want == ["a (leaf)", "b (leaf)"]
    for side in ("left", "right"):
        marked = cells.nth(3).locator(f".agl-player[data-side='{side}'] g.agl-node.agl-diff") \
            .evaluate_all("els => els.map(e => e.dataset.key)")
        assert sorted(names[k] for k in marked) == want
    cells.nth(3).screenshot(path=str(artifact("test_inspector_lab-diff.png")))
