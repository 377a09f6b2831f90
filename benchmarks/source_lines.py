"""The cost of source lines on a traced forward (issue 15): each op a tape records also walks the
stack to the user's line (``Tape.source_line``). Times a traced forward of a small MLP (64x32 ->
3 Linear layers, tanh, mse: about 20 ops) and of a 200-op elementwise chain, with the walk and with
it replaced by ``lambda self: None``; wall and CPU time, median of repeated runs, ratio.

    .venv/bin/python benchmarks/source_lines.py            # prints a table
    .venv/bin/python benchmarks/source_lines.py --write    # also rewrites its section of RESULTS.md

Goal: under 20% on a traced forward. Not a test: nothing here asserts a time.
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import autogradlab as ag  # noqa: E402
from autogradlab import events as ev, nn  # noqa: E402

import report  # noqa: E402  (this folder's: RESULTS.md's sections)

START, END = "<!-- source-lines:start -->", "<!-- source-lines:end -->"


def mlp_case():
    ag.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 1))
    x, y = ag.randn(64, 32), ag.randn(64, 1)

    def forward():
        with ag.trace():
            ((model(x) - y) ** 2).mean()
    return forward


def chain_case():
    a = ag.tensor([0.5, -0.25, 1.0], requires_grad=True)

    def forward():
        with ag.trace():
            t = a
            for _ in range(50):
                t = (t * 1.01 + 0.1).tanh() - 0.01
    return forward


def measure(fn, repeats):
    walls, cpus = [], []
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return statistics.median(walls), statistics.median(cpus)


def run(repeats):
    real = ev.Tape.source_line
    rows = []
    for name, make in (("MLP forward (3 Linear, tanh, mse)", mlp_case), ("200-op elementwise chain", chain_case)):
        fn = make()
        fn()  # warm up
        res = {}
        for _ in range(3):  # alternate, so drifting load hits both sides alike; keep the best median
            for label, impl in (("off", lambda self: None), ("on", real)):
                ev.Tape.source_line = impl
                try:
                    m = measure(fn, repeats)
                finally:
                    ev.Tape.source_line = real
                res[label] = m if label not in res else min(res[label], m)
        rows.append((name, res["off"], res["on"]))
    return rows


def table(rows):
    out = ["| traced forward | without source lines | with source lines | ratio (wall) | ratio (CPU) |",
           "|---|---|---|---|---|"]
    for name, off, on in rows:
        out.append(f"| {name} | {off[0] * 1e3:.2f} ms wall, {off[1] * 1e3:.2f} ms CPU | "
                   f"{on[0] * 1e3:.2f} ms wall, {on[1] * 1e3:.2f} ms CPU | {on[0] / off[0]:.2f}x | {on[1] / off[1]:.2f}x |")
    return "\n".join(out)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--repeats", type=int, default=30)
    p.add_argument("--write", action="store_true")
    args = p.parse_args()
    rows = run(args.repeats)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    worst = max(max(on[0] / off[0], on[1] / off[1]) for _, off, on in rows)
    text = (f"{START}\n## Source lines on traced ops (issue 15): `benchmarks/source_lines.py`\n\n"
            f"Commit {commit}, {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
            f"Python {platform.python_version()}, load average {load} (shared machine); median of "
            f"{args.repeats} runs, best of 3 alternating rounds.\n\n{table(rows)}\n\n"
            f"Goal: under 20% on a traced forward: {'met' if worst < 1.2 else '**missed**'} "
            f"(worst ratio {worst:.2f}x).\n{END}\n")
    print(text)
    if args.write:
        report.write_section(ROOT / "benchmarks" / "RESULTS.md", text, START, END)


if __name__ == "__main__":
    main()
