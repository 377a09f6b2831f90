"""The player, tested kernel-side (no browser): set the slider or click the buttons, then read the
SVG, caption and panel it shows. Also: layout once, the HTML export, error frames, phases."""
import html
import itertools
import json
import re
import shutil

import pytest

import autogradlab as ag
from autogradlab import viz
from autogradlab.events import Tape
from autogradlab.viz import layout
from autogradlab.viz.export import frames_from_export

pytestmark = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` is not installed")


def traced_ab(**backward):
    """y = a * b + a, a = 2, b = 3. Steps: 2 BackwardStarted, 3 Seeded, 4 AddBackward runs, 5-6 its
    edges, 7-8 pending sums, 9 MulBackward runs, 10 a gets 1 x b = 3, 11 b gets 1 x a = 2,
    12 MulBackward frees self/other, 13 fan-in 1 + 3 = 4, ..., 16 b.grad, 18 a.grad, 19 done."""
    a = ag.tensor(2.0, requires_grad=True, name="a")
    b = ag.tensor(3.0, requires_grad=True, name="b")
    with ag.trace() as tape:
        y = a * b + a
        y.backward(**backward)
    return tape, a, b, y


def classes(svg):
    return dict(re.findall(r'<g id="(agl-(?:node|edge|cluster)-[^"]+)" class="([^"]*)">', svg))


def text(svg, dom_id, role):
    group = re.search(rf'<g id="{dom_id}" class="[^"]*">(.*?)</g>', svg, re.DOTALL).group(1)
    m = re.search(rf'<text class="agl-l-{role}"[^>]*>(.*?)</text>', group)
    return None if m is None else html.unescape(m.group(1))


def active(svg):
    return [k for k, v in classes(svg).items() if "agl-active" in v.split()]


def panel_rows(panel):
    return {html.unescape(a): html.unescape(b).rstrip(" ←")
            for a, b in re.findall(r"<td>([^<]*)</td><td class=\"agl-num\">([^<]*)</td>", panel)}


@pytest.fixture
def player():
    tape, *_ = traced_ab()
    return viz.play(tape)


# -- the DOM contract ----------------------------------------------------------------------------

def test_widgets_carry_the_contract_classes(player):
    import ipywidgets as W
    assert isinstance(player, W.VBox) and "agl-player" in player._dom_classes
    for widget, cls in [(player.prev_button, "agl-prev"), (player.next_button, "agl-next"),
                        (player.next_accumulate_button, "agl-next-accumulate"),
                        (player.next_free_button, "agl-next-free"), (player.play_widget, "agl-play"),
                        (player.slider, "agl-slider"), (player.graph, "agl-graph"),
                        (player.caption, "agl-caption"), (player.panel, "agl-panel")]:
        assert cls in widget._dom_classes
    assert isinstance(player.play_widget, W.Play) and isinstance(player.slider, W.IntSlider)
    assert isinstance(player.caption, W.HTMLMath) and isinstance(player.graph, W.HTML)
    assert player.graph.value.startswith('<svg data-step="2" class="agl-svg"')
    assert player.slider.min == player.play_widget.min == 2            # the backward phase: from BackwardStarted
    assert player.slider.max == player.play_widget.max == 19
    linked = {(ln.source[0], ln.source[1], ln.target[0], ln.target[1]) for ln in player._links}
    assert (player.play_widget, "value", player.slider, "value") in linked
    assert (player.speed, "value", player.play_widget, "interval") in linked


def test_tape_play_and_speed():
    tape, *_ = traced_ab()
    p = tape.play(speed=4)
    assert p.play_widget.interval == 250 and p.speed.value == 250 and p.step == 2


# -- what a frame shows ----------------------------------------------------------------------------

def test_slider_step_marks_the_active_node_edge_caption_and_panel(player):
    player.slider.value = 10                       # MulBackward: a gets 1 x b = 3
    svg = player.graph.value
    assert svg.startswith('<svg data-step="10"')
    assert active(svg) == ["agl-node-op-0"]
    cls = classes(svg)
    assert "agl-edge-active" in cls["agl-edge-t0-o0-0"] and "agl-edge-active" not in cls["agl-edge-t1-o0-1"]
    assert text(svg, "agl-edge-t0-o0-0", "label") == "grad 3"
    assert text(svg, "agl-edge-t1-o0-1", "label") == ""           # not computed yet
    assert text(svg, "agl-node-op-0", "title") == "▶ mul"
    assert "Chain rule at node #0 (MulBackward), input 0 (a)" in player.caption.value
    assert r"$\bar{a} = \overline{\mathrm{t0}} \cdot b = 1 \cdot 3 = 3$" in player.caption.value
    rows = panel_rows(player.panel.value)
    assert rows["a"] == "None" and rows["b"] == "None" and rows["a (node #2)"] == "1"

    player.slider.value = 11
    assert text(player.graph.value, "agl-edge-t1-o0-1", "label") == "grad 2"
    assert r"\bar{b} = \overline{\mathrm{t0}} \cdot a = 1 \cdot 2 = 2" in player.caption.value


def test_seed_fan_in_free_and_leaf_accumulation_frames(player):
    player.go(3)
    svg = player.graph.value
    assert active(svg) == ["agl-node-tensor-3"] and text(svg, "agl-node-tensor-3", "grad") == "grad: 1 (seed)"
    assert r"\frac{\partial \mathrm{t1}}{\partial \mathrm{t1}} = 1" in player.caption.value

    player.go(12)                                   # MulBackward frees self, other
    svg = player.graph.value
    assert "agl-freed" in classes(svg)["agl-node-op-0"].split()
    assert text(svg, "agl-node-op-0", "saves") == "freed: self, other"
    assert "frees what it saved: self, other" in player.caption.value

    player.go(13)                                   # fan-in at a: 1 + 3 = 4
    svg = player.graph.value
    assert active(svg) == ["agl-node-tensor-0"]
    assert text(svg, "agl-node-tensor-0", "grad") == "grad: None + pending 4"
    assert "Accumulate at a fan-in" in player.caption.value and r"\bar{a} = 1 + 3 = 4" in player.caption.value
    assert panel_rows(player.panel.value)["a (node #2)"] == "4"

    player.go(18)                                   # a.grad: None -> 4
    svg = player.graph.value
    assert active(svg) == ["agl-node-tensor-0"]
    assert text(svg, "agl-node-tensor-0", "grad") == "grad: None → 4"
    assert "Accumulate into a.grad" in player.caption.value
    rows = panel_rows(player.panel.value)
    assert rows["a"] == "4" and rows["b"] == "2"

    player.go(19)
    assert active(player.graph.value) == [] and "4 nodes ran" in player.caption.value


def test_accumulation_across_repeated_backward_calls():
    a = ag.tensor(2.0, requires_grad=True, name="a")
    b = ag.tensor(3.0, requires_grad=True, name="b")
    with ag.trace() as tape:
        y = a * b + a
        y.backward(retain_graph=True)
        y.backward()
    p = viz.play(tape)
    assert p.slider.min == 2 and p.slider.max == len(tape) - 1     # both passes
    last = max(e.step for e in tape.of_kind("Accumulated") if e.where == "leaf" and e.tensor.name == "a")
    p.go(last)
    assert text(p.graph.value, "agl-node-tensor-0", "grad") == "grad: 4 → 8"
    assert r"\mathrm{a.grad}: 4 + 4 \to 8" in p.caption.value and "across backward calls" in p.caption.value


def test_panel_matches_tape_replay_at_every_step(player):
    tape = player.tape
    names = tape.tensor_names()
    for step in player.frames.steps:
        rows = panel_rows(player.frames.panel(step))
        state = tape.replay(step)
        for tid, value in state.grads.items():
            assert rows[names[tid]] == value.short()
        for nid, value in state.buffers.items():
            assert any(k.endswith(f"(node #{nid})") and v == value.short() for k, v in rows.items()), (step, rows)
        pending = [k for k in rows if "(node #" in k]
        assert len(pending) == len(state.buffers)


# -- buttons -----------------------------------------------------------------------------------------

def test_next_prev_and_jump_buttons(player):
    assert player.step == 2 and player.prev_button.disabled
    player.next_button.click()
    assert player.step == 3 and player.graph.value.startswith('<svg data-step="3"')
    player.prev_button.click()
    assert player.step == 2
    player.next_accumulate_button.click()
    assert player.step == 7 and "Accumulate" in player.caption.value
    player.next_accumulate_button.click()
    assert player.step == 8
    player.next_free_button.click()
    assert player.step == 12 and player.next_free_button.disabled        # the only free
    player.go(18)
    assert player.next_accumulate_button.disabled
    player.go(19)
    assert player.next_button.disabled
    player.next_button.click()
    assert player.step == 19


def test_every_step_redraws_something_and_back_redraws_the_same(player):
    frames = [player.frame_svg(s) for s in player.frames.steps]
    bodies = [f[f.index(">"):] for f in frames]                # without the root's data-step
    assert all(x != y for x, y in itertools.pairwise(bodies))
    player.go(9)
    first = player.graph.value
    player.next_button.click()
    player.prev_button.click()
    assert player.graph.value == first


# -- layout once -------------------------------------------------------------------------------------

GEOMETRY = re.compile(r'(?:points|d|cx|cy|rx|ry|x|y|viewBox|width|height|transform)="[^"]*"')


def test_layout_runs_once_and_frames_keep_positions(monkeypatch):
    tape, *_ = traced_ab()
    before = layout.LAYOUT_CALLS
    p = viz.play(tape)
    assert layout.LAYOUT_CALLS == before + 1 and p.layout_calls == 1

    def no_more_dot(*args, **kwargs):
        raise AssertionError("a frame ran graphviz")
    monkeypatch.setattr(layout, "run_dot", no_more_dot)
    geometry = None
    for step in p.frames.steps:
        p.go(step)
        g = GEOMETRY.findall(p.graph.value)
        assert geometry is None or g == geometry
        geometry = g
    p.save_html_text = p.to_html()
    assert layout.LAYOUT_CALLS == before + 1


# -- phases, errors, create_graph, pruning -----------------------------------------------------------

def test_forward_phase_builds_the_graph_op_by_op():
    tape, *_ = traced_ab()
    p = viz.play(tape, phase="forward")
    assert p.frames.steps == [0, 1]
    svg0 = p.frame_svg(0)
    cls = classes(svg0)
    assert "agl-hidden" in cls["agl-node-op-1"] and "agl-hidden" in cls["agl-node-tensor-3"]
    assert "agl-hidden" not in cls["agl-node-op-0"] and active(svg0) == ["agl-node-op-0"]
    assert "Forward" in p.frames.caption(0) and r"\mathrm{t0} = \mathrm{mul}(a, b) = 6" in p.frames.caption(0)
    svg1 = p.frame_svg(1)
    assert not any("agl-hidden" in v for k, v in classes(svg1).items() if k.startswith("agl-node"))
    with pytest.raises(ValueError, match="phase"):
        viz.play(tape, phase="sideways")


def test_error_frame_of_a_second_backward():
    a = ag.tensor(2.0, requires_grad=True, name="a")
    b = ag.tensor(3.0, requires_grad=True, name="b")
    with ag.trace() as tape:
        y = a * b + a
        y.backward()
        with pytest.raises(RuntimeError) as info:
            y.backward()
    p = viz.play(tape, error=info.value)
    last = p.frames.steps[-1]
    assert last == len(tape) and p.slider.max == last
    p.go(last)
    assert p.graph.value.startswith(f'<svg data-step="{last}" class="agl-svg agl-error"')
    assert "Error" in p.caption.value and "retain_graph=True" in p.caption.value
    assert "agl-freed" in classes(p.graph.value)["agl-node-op-0"]


def test_play_backward_runs_the_pass_and_shows_its_error():
    a = ag.tensor(2.0, requires_grad=True, name="a")
    b = ag.tensor(3.0, requires_grad=True, name="b")
    y = a * b + a                        # recorded outside any trace: walked from y
    p = viz.play_backward(y)
    assert a.grad.item() == 4.0 and p.frames.error is None
    p.go(p.frames.steps[-1])
    assert "4 nodes ran" in p.caption.value
    assert 'id="agl-node-op-0"' in p.graph.value and 'id="agl-node-op-1"' in p.graph.value
    again = viz.play_backward(y)         # freed: the call raises before any event
    assert again.frames.steps == [0] and isinstance(again.frames.error, RuntimeError)
    assert "backward through the graph a second time" in again.caption.value
    assert "agl-freed" in classes(again.graph.value)["agl-node-op-0"]
    assert a.grad.item() == 4.0


def test_create_graph_recorded_backward_appears_in_its_cluster_when_recorded():
    x = ag.tensor(2.0, requires_grad=True, name="x")
    with ag.trace() as tape:
        y = x * x * x
        (g,) = ag.autograd.grad(y, x, create_graph=True)
        g.backward()
    p = viz.play(tape)
    first_backward_op = min(e.step for e in tape.of_kind("OpRecorded") if e.step > p.frames.steps[0])
    before = classes(p.frame_svg(first_backward_op - 1))
    assert "agl-hidden" in before["agl-cluster-backward"] and "agl-hidden" in before["agl-node-op-2"]
    after = classes(p.frame_svg(first_backward_op))
    assert "agl-hidden" not in after["agl-cluster-backward"]
    assert "agl-backward" in after["agl-node-op-2"] and "agl-active" in after["agl-node-op-2"]
    assert "create_graph=True records the backward itself" in p.frames.caption(first_backward_op)


def test_pruned_nodes_are_marked():
    x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")
    w = ag.tensor([3.0, 4.0], requires_grad=True, name="w")
    with ag.trace() as tape:
        (x * w).exp().sum().backward(inputs=[x])
    p = viz.play(tape)
    pruned = next(e.step for e in tape.of_kind("NodePruned"))
    svg = p.frame_svg(pruned)
    assert "agl-pruned" in classes(svg)["agl-node-tensor-1"] and active(svg) == ["agl-node-tensor-1"]
    assert "is pruned" in p.frames.caption(pruned)
    assert "agl-pruned" not in classes(svg)["agl-node-tensor-0"]


def test_a_tape_loaded_from_json_plays_the_same():
    tape, *_ = traced_ab()
    a, b = viz.play(tape), viz.play(Tape.from_json(tape.to_json()))
    assert [a.frame_svg(s) for s in a.frames.steps] == [b.frame_svg(s) for s in b.frames.steps]


def test_big_chain_player_collapses_and_steps():
    x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")
    with ag.trace() as tape:
        h = x
        for _ in range(300):
            h = h * 1.01
        h.sum().backward()
    p = viz.play(tape, max_nodes=50)
    p.go(p.frames.steps[0] + 40)
    svg = p.graph.value
    assert active(svg) == ["agl-node-chain-0"]
    assert re.search(r"ran \d+/300", text(svg, "agl-node-chain-0", "status"))


# -- export ----------------------------------------------------------------------------------------

def export_data(page):
    raw = re.search(r'<script type="application/json" id="agl-data">(.*?)</script>', page, re.DOTALL).group(1)
    return json.loads(raw.replace("<\\/", "</"))


def test_save_html_is_self_contained_with_every_frame(player, tmp_path):
    path = player.save_html(tmp_path / "player.html")
    page = path.read_text(encoding="utf-8")
    assert "http://" not in page and "https://" not in page
    assert "<script src" not in page and "<link" not in page
    for cls in ("agl-player", "agl-prev", "agl-next", "agl-next-accumulate", "agl-next-free", "agl-play",
                "agl-slider", "agl-graph", "agl-caption", "agl-panel"):
        assert f'class="{cls}' in page or f" {cls}" in page, cls
    data = export_data(page)
    assert data["steps"] == player.frames.steps
    rebuilt = frames_from_export(data)
    assert rebuilt == [player.frame_svg(s) for s in player.frames.steps]
    captions = [data["strings"][i] for i in data["captions"]]
    assert all("$" not in c for c in captions)                          # no MathJax offline
    assert "a = t0 · b = 1 · 3 = 3" in re.sub("<[^>]+>", "", captions[10 - 2])
    assert data["next_acc"][0] == 7 and data["next_free"][0] == 12
    assert page.count('data-step="2"') >= 1                              # the first frame is inline too


def test_save_html_of_an_error_frame(tmp_path):
    a = ag.tensor(2.0, requires_grad=True, name="a")
    y = a * a
    y.backward()
    p = viz.play_backward(y)
    page = p.to_html()
    data = export_data(page)
    assert data["steps"] == [0] and "Error" in data["strings"][data["captions"][0]]


def test_save_gif(player, tmp_path):
    pytest.importorskip("PIL")
    from PIL import Image
    path = player.save_gif(tmp_path / "player.gif", fps=4)
    with Image.open(path) as im:
        assert im.format == "GIF" and im.n_frames == len(player.frames.steps)
