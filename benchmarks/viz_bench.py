"""How fast the viz layer draws and steps: a 100-node graph (and a 1000-op chain).

    python benchmarks/viz_bench.py            # prints a small table; no timing asserts anywhere

Measured: ``draw(tape)`` (building the DOT), rendering it with ``dot`` to SVG, building the player
(folding every frame + the one ``dot`` layout), one step of the player in the kernel (slider value
-> SVG, caption and panel set on the widgets), and the HTML export.
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import autogradlab as ag  # noqa: E402
from autogradlab import viz  # noqa: E402
from autogradlab.viz import layout  # noqa: E402


def graph_100(layers=12):
    """x -> [mul by w_i, add b_i, tanh] x layers -> sum: 8 drawing nodes a layer, ~100 in all."""
    ag.manual_seed(0)
    x = ag.randn(4, requires_grad=True)
    x.name = "x"
    ws = [ag.randn(4, requires_grad=True) for _ in range(layers)]
    bs = [ag.randn(4, requires_grad=True) for _ in range(layers)]
    for i, (w, b) in enumerate(zip(ws, bs)):
        w.name, b.name = f"w{i}", f"b{i}"
    with ag.trace() as tape:
        h = x
        for w, b in zip(ws, bs):
            h = (h * w + b).tanh()
        loss = h.sum()
        loss.backward()
    return tape


def chain_1000():
    x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")
    with ag.trace() as tape:
        h = x
        for _ in range(1000):
            h = h * 1.001
        h.sum().backward()
    return tape


def timed(fn, repeat=5):
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def bench(name, tape, repeat=3):
    n_draw = len(viz.draw(tape).body)
    t_draw, g = timed(lambda: viz.draw(tape), repeat)
    t_svg, _ = timed(lambda: g.pipe(format="svg"), repeat)
    calls = layout.LAYOUT_CALLS
    t_player, player = timed(lambda: viz.play(tape), repeat)
    per_player_calls = (layout.LAYOUT_CALLS - calls) / repeat
    steps = player.frames.steps
    times = []
    for s in steps:  # step the way the slider does (observer -> show)
        t = time.perf_counter()
        player.slider.value = s
        times.append(time.perf_counter() - t)
    t_html, html = timed(lambda: player.to_html(), 1)
    nodes = len(player.frames.display.nodes)
    print(f"\n{name}: {len(tape)} events, {nodes} drawing nodes ({n_draw} DOT lines), {len(steps)} frames")
    print(f"  draw(tape) -> DOT             {t_draw * 1e3:8.1f} ms")
    print(f"  DOT -> SVG (dot)              {t_svg * 1e3:8.1f} ms")
    print(f"  play(tape): fold + 1 layout   {t_player * 1e3:8.1f} ms   (dot runs per player: {per_player_calls:.0f})")
    p95 = sorted(times)[int(0.95 * (len(times) - 1))]
    print(f"  one step in the kernel        {statistics.median(times) * 1e3:8.2f} ms median, "
          f"{p95 * 1e3:.2f} ms p95, {max(times) * 1e3:.2f} ms max, over {len(times)} steps")
    print(f"  save_html                     {t_html * 1e3:8.1f} ms   ({len(html) / 1024:.0f} KiB)")
    return {"draw_ms": t_draw * 1e3, "svg_ms": t_svg * 1e3, "player_ms": t_player * 1e3,
            "step_median_ms": statistics.median(times) * 1e3, "step_p95_ms": p95 * 1e3, "step_max_ms": max(times) * 1e3}


if __name__ == "__main__":
    bench("100-node graph (12 layers of mul/add/tanh)", graph_100())
    bench("1000-op chain (collapsed to one x1000 node)", chain_1000(), repeat=1)
