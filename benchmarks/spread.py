"""How much the ratios to torch move from one run of benchmarks/run.py to the next.

On a shared or virtual machine one framework's timings can move by 30% between runs while another's
stay put (frameworks run one after the other, so a slow minute of the host lands on one column). One
run's ratio is then one sample. This reads several runs' JSON (``--json-out``) and gives each ratio
per run, its median and its range, so a target is judged on the median, not on a lucky run:

    python benchmarks/run.py --frameworks torch,autogradlab,autograd,mygrad --workloads W1,W2,W3,W5 \\
        --json-out /tmp/run2.json          # (repeat: run3, run4, ...)
    python benchmarks/spread.py benchmarks/results/latest.json /tmp/run2.json /tmp/run3.json --write

``--write`` puts the table into RESULTS.md between its ``run-spread`` markers (run.py keeps that
section when it rewrites the file).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import report  # noqa: E402

#: (text, workload, metric, reference framework, limit): issue 16's ratio goals
GOALS = [
    ("W1 forward ≤ 1.0× torch", "W1", "fwd_us_per_node", "torch", 1.0),
    ("W1 backward ≤ 1.0× torch", "W1", "bwd_us_per_node", "torch", 1.0),
    ("W2 step ≤ 0.8× torch", "W2", "step_ms", "torch", 0.8),
    ("W3 forward ≤ 1.5× torch", "W3", "fwd_ms", "torch", 1.5),
    ("W3 backward ≤ 1.2× torch", "W3", "bwd_ms", "torch", 1.2),
    ("W5 HVP ≤ 1.0× torch", "W5", "hvp_ms", "torch", 1.0),
    ("W1 forward < HIPS autograd", "W1", "fwd_us_per_node", "autograd", 1.0),
    ("W1 backward < HIPS autograd", "W1", "bwd_us_per_node", "autograd", 1.0),
    ("W2 step < HIPS autograd", "W2", "step_ms", "autograd", 1.0),
    ("W3 forward < HIPS autograd", "W3", "fwd_ms", "autograd", 1.0),
    ("W3 backward < HIPS autograd", "W3", "bwd_ms", "autograd", 1.0),
    ("W5 HVP < HIPS autograd", "W5", "hvp_ms", "autograd", 1.0),
    ("W1 forward < mygrad", "W1", "fwd_us_per_node", "mygrad", 1.0),
    ("W1 backward < mygrad", "W1", "bwd_us_per_node", "mygrad", 1.0),
    ("W2 step < mygrad", "W2", "step_ms", "mygrad", 1.0),
    ("W3 forward < mygrad", "W3", "fwd_ms", "mygrad", 1.0),
    ("W3 backward < mygrad", "W3", "bwd_ms", "mygrad", 1.0),
]


def spread(bundles, clock=None):
    """[(goal text, [ratio per run or None], median, min, max, status)] over the runs given."""
    rows = []
    for text, wid, key, ref, limit in GOALS:
        ratios = []
        for b in bundles:
            a, r = report.median(b, "autogradlab", wid, key, clock), report.median(b, ref, wid, key, clock)
            ratios.append(a / r if a is not None and r else None)
        seen = [x for x in ratios if x is not None]
        if not seen:
            continue
        mid = statistics.median(seen)
        status = "met" if mid <= limit else "**missed**"
        if min(seen) <= limit < max(seen):
            status += " (runs disagree)"
        rows.append((text, ratios, mid, min(seen), max(seen), status))
    return rows


def markdown(bundles, clock=None):
    head = [f"run {i + 1}: {b['meta'].get('date', '?')}, commit {str(b['meta'].get('git', {}).get('commit', '?'))[:7]}, "
            f"load {b['meta'].get('loadavg_start', '?')}" for i, b in enumerate(bundles)]
    lines = ["## Run-to-run spread: `benchmarks/spread.py`", "",
             f"The ratios of the goals in {len(bundles)} runs of `benchmarks/run.py` "
             f"({clock or 'primary'} clock; each a median of its repetitions), judged on their median:", ""]
    lines += [f"- {h}" for h in head]
    lines += ["", "| goal | " + " | ".join(f"run {i + 1}" for i in range(len(bundles))) + " | median | range | status |",
              "|---|" + "---:|" * (len(bundles) + 2) + "---|"]
    for text, ratios, mid, lo, hi, status in spread(bundles, clock):
        cells = [report.fmt_ratio(x) if x is not None else "—" for x in ratios]
        lines.append(f"| {text} | " + " | ".join(cells) + f" | {report.fmt_ratio(mid)} | "
                     f"{report.fmt_ratio(lo)}–{report.fmt_ratio(hi)} | {status} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("runs", nargs="+", help="JSON files written by run.py --json-out")
    ap.add_argument("--clock", choices=("cpu", "wall"), default=None)
    ap.add_argument("--write", action="store_true", help="put the section into benchmarks/RESULTS.md")
    args = ap.parse_args(argv)
    bundles = [json.load(open(p)) for p in args.runs]
    md = markdown(bundles, args.clock)
    print(md)
    if args.write:
        path = os.path.join(HERE, "RESULTS.md")
        old = open(path).read()
        start, end = "<!-- run-spread:start -->", "<!-- run-spread:end -->"
        section = f"{start}\n{md}{end}"
        new = (old[:old.index(start)] + section + old[old.index(end) + len(end):]) if start in old \
            else old.rstrip("\n") + "\n\n" + section + "\n"
        open(path, "w").write(new)


if __name__ == "__main__":
    main()
