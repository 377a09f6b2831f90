"""viz.draw: the DOT it writes (snapshots), the style cues, big graphs, and a missing `dot`.

The snapshots are exact DOT sources. If a deliberate change to the drawing changes them, print
the new source (``print(viz.draw(...).source)``), check it by eye, and paste it here.
"""
import io
import re
import shutil
import sys
import time

import pytest

import autogradlab as ag
from autogradlab import viz
from autogradlab.events import Tape

HAVE_DOT = shutil.which("dot") is not None
needs_dot = pytest.mark.skipif(not HAVE_DOT, reason="Graphviz `dot` is not installed")


def traced_ab(**backward):
    """y = a * b + a with a = 2, b = 3: a fans out, so its gradient is a sum (1 + 3 = 4)."""
    a = ag.tensor(2.0, requires_grad=True, name="a")
    b = ag.tensor(3.0, requires_grad=True, name="b")
    with ag.trace() as tape:
        y = a * b + a
        y.backward(**backward)
    return tape, a, b


HEADER = """digraph autograd {
\tbgcolor=transparent fontcolor="#888888" fontname="Helvetica,Arial,sans-serif" fontsize=11 id="agl-graph" \
nodesep=0.3 pad=0.1 rankdir=BT ranksep=0.35
\tnode [color="#222222" fontcolor="#111111" fontname="Helvetica,Arial,sans-serif" fontsize=11 height=0.3 \
margin="0.1,0.04"]
\tedge [arrowsize=0.7 color="#888888" fontcolor="#888888" fontname="Helvetica,Arial,sans-serif" fontsize=10]
"""

# step 10 of traced_ab: MulBackward sends 1 x b = 3 to a (the chain-rule edge of this step);
# leaves show the values they had when the ops used them (OpRecorded.input_values)
SNAPSHOT_STEP_10 = HEADER + """\
\tt0 [label="a  (leaf)\\nfloat32 scalar\\n= 2\\ngrad: None + pending 1" fillcolor="#56B4E9" \
id="agl-node-tensor-0" penwidth=2 shape=box style="filled,bold"]
\tt1 [label="b  (leaf)\\nfloat32 scalar\\n= 3\\ngrad: None" fillcolor="#56B4E9" id="agl-node-tensor-1" penwidth=2 \
shape=box style="filled,bold"]
\to0 [label="▶ mul\\nMulBackward #0\\nsaves: self, other\\nrunning" color="#D55E00" fillcolor="#F0E442" \
id="agl-node-op-0" penwidth=3.5 shape=ellipse style=filled]
\tt2 [label="t0\\nfloat32 scalar\\n= 6\\ngrad: 1" fillcolor="#FFFFFF" id="agl-node-tensor-2" shape=box style=filled]
\to1 [label="add\\nAddBackward #1\\nran" fillcolor="#F0E442" id="agl-node-op-1" shape=ellipse style=filled]
\tt3 [label="t1  (root)\\nfloat32 scalar\\n= 8\\ngrad: 1" fillcolor="#E69F00" id="agl-node-tensor-3" peripheries=2 \
shape=box style=filled]
\tt0 -> o0 [label="grad 3" color="#D55E00" fontcolor="#D55E00" id="agl-edge-t0-o0-0" penwidth=2.5]
\tt1 -> o0 [id="agl-edge-t1-o0-1"]
\to0 -> t2 [id="agl-edge-o0-t2"]
\tt2 -> o1 [label="grad 1" id="agl-edge-t2-o1-0"]
\tt0 -> o1 [label="grad 1" id="agl-edge-t0-o1-1"]
\to1 -> t3 [id="agl-edge-o1-t3"]
}
"""

# draw(tensor) after backward: walked through grad_fn; the constant c has no node, so no edge
SNAPSHOT_TENSOR = HEADER + """\
\tt0 [label="a  (leaf)\\nfloat32 scalar\\n= 2\\ngrad: 3" fillcolor="#56B4E9" id="agl-node-tensor-0" penwidth=2 \
shape=box style="filled,bold"]
\tt1 [label="b  (leaf)\\nfloat32 scalar\\n= 3\\ngrad: 2" fillcolor="#56B4E9" id="agl-node-tensor-1" penwidth=2 \
shape=box style="filled,bold"]
\to0 [label="mul\\nMulBackward #0\\nfreed: self, other" fillcolor="#D9D9D9" id="agl-node-op-0" shape=ellipse \
style=filled]
\tt2 [label=t0 fillcolor="#FFFFFF" id="agl-node-tensor-2" shape=box style=filled]
\to1 [label="add\\nAddBackward #1" fillcolor="#F0E442" id="agl-node-op-1" shape=ellipse style=filled]
\tt3 [label="t1  (root)\\nfloat32 scalar\\n= 10" fillcolor="#E69F00" id="agl-node-tensor-3" peripheries=2 shape=box \
style=filled]
\tt0 -> o0 [id="agl-edge-t0-o0-0"]
\tt1 -> o0 [id="agl-edge-t1-o0-1"]
\to0 -> t2 [id="agl-edge-o0-t2"]
\tt2 -> o1 [id="agl-edge-t2-o1-0"]
\to1 -> t3 [id="agl-edge-o1-t3"]
}
"""


def node_line(source, dom_id):
    """The DOT statement of the node with this id."""
    return next(line for line in source.splitlines() if f'id="{dom_id}"' in line and "->" not in line)


def label_of(source, dom_id):
    m = re.search(r'label=("(?:[^"\\]|\\.)*"|\S+)', node_line(source, dom_id))
    return m.group(1).strip('"').replace("\\n", "\n")


# -- snapshots and determinism -------------------------------------------------------------

def test_dot_snapshot_of_a_chain_rule_step():
    tape, _, _ = traced_ab()
    assert viz.draw(tape, step=10, legend=False).source == SNAPSHOT_STEP_10


def test_dot_snapshot_of_a_tensor_walked_through_grad_fn():
    a = ag.tensor(2.0, requires_grad=True, name="a")
    b = ag.tensor(3.0, requires_grad=True, name="b")
    c = ag.tensor(4.0, name="c")
    y = a * b + c
    y.backward()
    assert viz.draw(y, legend=False).source == SNAPSHOT_TENSOR


def test_dot_is_deterministic_across_runs_and_across_traces():
    t1, _, _ = traced_ab()
    t2, _, _ = traced_ab()
    for step in (None, 3, 10, len(t1) - 1):
        s = viz.draw(t1, step=step).source
        assert s == viz.draw(t1, step=step).source
        assert s == viz.draw(t2, step=step).source
    # a tape saved as JSON and loaded elsewhere draws the same
    assert viz.draw(Tape.from_json(t1.to_json())).source == viz.draw(t1).source


def test_draw_returns_a_digraph_with_stable_ids():
    import graphviz
    tape, _, _ = traced_ab()
    g = viz.draw(tape)
    assert isinstance(g, graphviz.Digraph)
    ids = re.findall(r'id="(agl-node-[^"]+)"', g.source)
    assert ids == ["agl-node-tensor-0", "agl-node-tensor-1", "agl-node-op-0", "agl-node-tensor-2", "agl-node-op-1",
                   "agl-node-tensor-3"]


@needs_dot
def test_rendered_svg_keeps_the_node_ids():
    tape, _, _ = traced_ab()
    svg = viz.draw(tape, step=10).pipe(format="svg", encoding="utf-8").replace("&#45;", "-")
    for dom_id in ("agl-node-tensor-0", "agl-node-op-0", "agl-node-op-1", "agl-legend"):
        assert f'<g id="{dom_id}" class="node">' in svg


# -- what is drawn ------------------------------------------------------------------------------

def test_legend_is_present_and_optional():
    tape, _, _ = traced_ab()
    src = viz.draw(tape).source
    assert 'id="agl-legend"' in src
    for words in ("x (leaf): requires grad", "c (constant): no grad", "t0: computed (box)", "y (root)",
                  "op: ellipse", "active: this step", "freed: saves released", "pruned (inputs=)"):
        assert words in src
    assert "agl-legend" not in viz.draw(tape, legend=False).source


def test_style_cues_differ_by_shape_border_and_text_not_colour_alone():
    x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")
    c = ag.tensor([5.0, 6.0], name="c")
    with ag.trace() as tape:
        y = (x * c).sum()
    forward = viz.draw(tape, legend=False).source
    assert "(root)" not in forward and "peripheries" not in node_line(forward, "agl-node-tensor-3")
    with ag.trace() as tape:
        y = (x * c).sum()
        y.backward()
    src = viz.draw(tape).source
    leaf, const = node_line(src, "agl-node-tensor-0"), node_line(src, "agl-node-tensor-1")
    computed, root = node_line(src, "agl-node-tensor-2"), node_line(src, "agl-node-tensor-3")
    op = node_line(src, "agl-node-op-0")
    assert "shape=box" in leaf and "shape=ellipse" in op            # tensors vs ops: shape
    assert 'style="filled,bold"' in leaf and "(leaf)" in leaf       # leaf that requires grad: bold border
    assert 'style="filled,dotted"' in const and "(constant)" in const
    assert computed.endswith("style=filled]") and label_of(src, "agl-node-tensor-2").split("\n")[0] == "t0"
    assert "peripheries=2" in root and "(root)" in root             # the tensor backward started from
    assert len({re.search(r'fillcolor="([^"]+)"', line).group(1) for line in (leaf, const, computed, root)}) == 4
    assert "float32 [2]" in leaf and "= [1, 2]" in leaf              # leaves: their values when used
    assert "= [5, 6]" in const and "= [5, 12]" in computed            # constants and op outputs too
    assert "freed: other" in op                                        # x * c needs only c for dx
    assert "grad: [5, 6]" in label_of(src, "agl-node-tensor-0")


def test_edges_carry_the_gradient_sent_up_to_the_step():
    tape, _, _ = traced_ab()
    before = viz.draw(tape, step=3).source
    assert "grad " not in "".join(line for line in before.splitlines() if "->" in line)
    after = viz.draw(tape).source
    edge = {m.group(2): m.group(1) for m in re.finditer(r'label="grad ([^"]+)"[^\]]*id="(agl-edge-[^"]+)"', after)}
    assert edge == {"agl-edge-t0-o0-0": "3", "agl-edge-t1-o0-1": "2", "agl-edge-t2-o1-0": "1",
                    "agl-edge-t0-o1-1": "1"}


def test_active_node_freed_saves_and_leaf_accumulation_per_step():
    tape, _, _ = traced_ab()
    steps = {type(e).__name__ + str(getattr(e, "node_id", "")): e.step for e in tape}
    freed = viz.draw(tape, step=steps["SavedFreed0"]).source
    assert "freed: self, other" in label_of(freed, "agl-node-op-0")
    assert 'fillcolor="#D9D9D9"' in node_line(freed, "agl-node-op-0")
    assert "penwidth=3.5" in node_line(freed, "agl-node-op-0") and "▶ mul" in freed   # active this step
    last_acc = max(e.step for e in tape.of_kind("Accumulated") if e.where == "leaf" and e.tensor.name == "a")
    src = viz.draw(tape, step=last_acc).source
    assert "grad: None → 4" in label_of(src, "agl-node-tensor-0")
    assert label_of(src, "agl-node-tensor-0").startswith("▶ a")


def test_pruned_nodes_are_dashed_and_say_so():
    x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")
    w = ag.tensor([3.0, 4.0], requires_grad=True, name="w")
    with ag.trace() as tape:
        (x * w).exp().sum().backward(inputs=[x])
    src = viz.draw(tape).source
    assert "pruned" in label_of(src, "agl-node-tensor-1")
    assert "dashed" in node_line(src, "agl-node-tensor-1")
    assert "pruned" not in label_of(src, "agl-node-tensor-0")


def test_create_graph_backward_ops_sit_in_their_own_cluster():
    x = ag.tensor(2.0, requires_grad=True, name="x")
    with ag.trace() as tape:
        y = x * x * x
        (g,) = ag.autograd.grad(y, x, create_graph=True)
        g.backward()
    src = viz.draw(tape).source
    cluster = src[src.index("subgraph cluster_backward"):]
    assert 'id="agl-cluster-backward"' in cluster
    start = tape.of_kind("BackwardStarted")[0].step
    recorded = next(e.node_id for e in tape.of_kind("OpRecorded") if e.step > start)  # the first op of the backward
    assert f"MulBackward #{recorded}" in cluster and "MulBackward #0" not in cluster
    assert x.grad.item() == 12.0


def test_large_values_are_summarised():
    x = ag.ones(10, 10, requires_grad=True)
    with ag.trace() as tape:
        (x * 2.0).sum().backward()
    label = label_of(viz.draw(tape).source, "agl-node-tensor-2")
    assert "float32 [10, 10]" in label and "= <10x10: min 2 max 2 norm 20>" in label
    assert "grad: <10x10: min 1 max 1 norm 10>" in label


def test_show_values_off_and_rankdir():
    tape, _, _ = traced_ab()
    src = viz.draw(tape, show_values=False, rankdir="LR").source
    assert "rankdir=LR" in src and "= 6" not in src


def test_backward_only_tape_infers_the_ops_from_the_backward_events():
    a = ag.tensor(2.0, requires_grad=True, name="a")
    b = ag.tensor(3.0, requires_grad=True, name="b")
    y = a * b
    tape = ag.explain(y, file=io.StringIO())
    src = viz.draw(tape).source
    assert "MulBackward #0" in src and "a  (leaf)" in src and "b  (leaf)" in src
    assert 'label="grad 3"' in src and 'label="grad 2"' in src


def test_step_out_of_range_and_bad_source():
    tape, _, _ = traced_ab()
    with pytest.raises(IndexError, match="outside"):
        viz.draw(tape, step=len(tape))
    with pytest.raises(TypeError, match="Tape"):
        viz.draw("not a tape")


# -- big graphs ------------------------------------------------------------------------------------

@pytest.mark.timeout(120)
def test_a_1000_op_chain_draws_fast_as_one_collapsed_node():
    x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")
    with ag.trace() as tape:
        h = x
        for _ in range(1000):
            h = h * 1.001
        h.sum().backward()
    t = time.perf_counter()
    src = viz.draw(tape).source
    elapsed = time.perf_counter() - t
    assert "mul ×1000" in src and "MulBackward #0…#999" in src
    assert "1000 repeated ops drawn as 1 chain node" in src
    assert src.count("agl-node-") == 5          # x, the chain, its output, sum, the root
    assert 'id="agl-node-chain-0"' in src
    assert elapsed < 30  # generous: it takes well under a second; this only guards against a hang


def test_graphs_past_max_nodes_fold_the_rest_into_a_summary_node():
    xs = [ag.tensor(float(i), requires_grad=True, name=f"x{i}") for i in range(40)]
    with ag.trace() as tape:
        total = xs[0] * 1.0
        for x in xs[1:]:
            total = total + x.exp()      # exp and add alternate: nothing to collapse into chains
        total.backward()
    src = viz.draw(tape, max_nodes=30).source
    assert src.count('id="agl-node-') <= 30
    assert 'id="agl-node-summary"' in src and "more nodes" in src
    assert "folded into one summary node" in src
    root = max(t for t in tape.tensor_names())
    assert f'id="agl-node-tensor-{root}"' in src     # the output side is kept


# -- no Graphviz ---------------------------------------------------------------------------------

def test_missing_dot_names_the_install_commands_and_the_text_fallback(monkeypatch, tmp_path):
    tape, _, _ = traced_ab()
    g = viz.draw(tape)                                # building DOT needs no dot
    monkeypatch.setenv("PATH", str(tmp_path))         # an empty directory: no `dot` on PATH
    with pytest.raises(viz.DotNotFoundError) as info:
        g.pipe(format="svg")
    text = str(info.value)
    for cmd in ("apt-get install graphviz", "conda install -c conda-forge graphviz", "brew install graphviz",
                "tape.table()"):
        assert cmd in text
    # in a notebook, the drawing shows through the browser player instead (no `dot` needed there)
    bundle = g._repr_mimebundle_()
    bundle = bundle[0] if isinstance(bundle, tuple) else bundle      # (data, metadata), as IPython accepts
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert bundle["text/plain"].startswith("Player(graph: steps ")
    assert repr(viz.play(tape)).startswith("Player(")     # the player never needs dot


def test_missing_dot_via_graphviz_executable_not_found(monkeypatch):
    import graphviz
    tape, _, _ = traced_ab()

    def missing(*args, **kwargs):
        raise graphviz.ExecutableNotFound(["dot"])
    monkeypatch.setattr(graphviz.Digraph, "pipe", missing)
    with pytest.raises(viz.DotNotFoundError, match="brew install graphviz"):
        viz.draw(tape).pipe(format="svg")


def test_importing_autogradlab_does_not_import_the_drawing_libraries():
    import subprocess
    code = ("import sys, autogradlab, autogradlab.viz; "
            "print(sorted(m for m in ('graphviz', 'ipywidgets', 'matplotlib') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
