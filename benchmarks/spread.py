"""How much the goals' ratios move from one run of benchmarks/run.py to the next.

``run.py`` itself measures in interleaved rounds and judges each goal on the median of its
per-round ratios (RESULTS.md's goals table, with the rounds side by side), so one run is enough
for the goals. This compares *runs*: e.g. several runs at different times of day, or runs of two
trees (before/after a change) read side by side. It reads the runs' JSON (``--json-out``) and
gives each goal's ratio per run (for a run made in rounds: the median of its rounds), the median
over the runs and their range:

    python benchmarks/run.py --frameworks torch,autogradlab,autograd,mygrad --workloads W1,W2,W3,W5 \\
        --json-out /tmp/run2.json          # (repeat: run3, run4, ...)
    python benchmarks/spread.py benchmarks/results/latest.json /tmp/run2.json /tmp/run3.json

``--write`` appends the table to RESULTS.md between ``run-spread`` markers (the next full run of
run.py rewrites RESULTS.md without it: its own goals table replaces it).
"""
from __future__ import annotations

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import report  # noqa: E402

#: (text, workload, metric, reference framework, limit, strict): issue 16's ratio goals (report.py's)
GOALS = report.RATIO_GOALS


def spread(bundles, clock=None):
    """[(goal text, [ratio per run or None], median, min, max, status)] over the runs given; goals
    that no run measured are left out."""
    rows = []
    for text, wid, key, ref, limit, strict in GOALS:
        ratios = [report.median_ratio(b, "autogradlab", ref, wid, key, clock) for b in bundles]
        mid, lo, hi, status = report.judge(ratios, limit, strict)
        if mid is None:
            continue
        rows.append((text, ratios, mid, lo, hi, status.replace("rounds disagree", "runs disagree")))
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
