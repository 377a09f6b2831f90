"""Deep graphs: a long chain forward and backward (no recursion anywhere, memory linear in length).

    python benchmarks/deep_graph.py                 # 100,000-op chain, then a 1,000,000-node backward
    python benchmarks/deep_graph.py --sizes 1e5     # just the 100k chain
    python benchmarks/deep_graph.py --write         # also rewrites its section of RESULTS.md

Each (framework, size) runs in a fresh child process, autogradlab and torch (CPU, one thread; skipped
with a note if it is not importable) taking turns, ``--repeats`` times each. Prints the medians of
the CPU seconds of the forward and of the backward, the RSS the graph holds after the forward (MiB,
and bytes per node), their ratios to torch, and the machine's load average. A measurement, not a
test: the 100k chain is also a unit test (tests/test_engine_contract.py), without timing.

Goals (issue 16): a 100,000-op chain runs forward and backward with no RecursionError and memory
linear in its length (bytes per node at 1,000,000 within 10% of those at 100,000); a graph of one
million nodes backward in under 10 s.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import report  # (this folder's: RESULTS.md's sections)

for _v in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

ROOT = Path(__file__).resolve().parents[1]
START, END = "<!-- deep-graph:start -->", "<!-- deep-graph:end -->"


def rss_mib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def chain(lib, n):
    """``n`` elementwise nodes on a one-element tensor (add and mul by constants, alternating), then
    a sum and its backward; ``lib`` is ``autogradlab`` or ``torch``."""
    x = lib.tensor([0.5], requires_grad=True)
    before = rss_mib()
    t0 = time.process_time()
    h = x
    for i in range(n):
        h = h * 1.0 if i % 2 else h + 0.0
    y = h.sum()
    t1 = time.process_time()
    held = rss_mib() - before
    del h
    y.backward()
    t2 = time.process_time()
    assert abs(x.grad.item() - 1.0) < 1e-6
    return {"fwd": t1 - t0, "bwd": t2 - t1, "held_mib": held}


def worker(framework, n):
    """One measurement in this (fresh) process, as JSON on stdout."""
    if framework == "torch":
        import torch
        torch.set_num_threads(1)
        lib = torch
    else:
        sys.path.insert(0, str(ROOT))
        import autogradlab as lib
    chain(lib, min(n, 1000))   # warm-up: imports, first calls
    print(json.dumps(chain(lib, n)))


def measure(framework, n):
    out = subprocess.run([sys.executable, __file__, "--worker", framework, str(n)], capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"{framework} at {n:,} nodes failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def have_torch():
    return subprocess.run([sys.executable, "-c", "import torch"], capture_output=True).returncode == 0


def run(sizes, repeats, frameworks):
    """{(framework, n): [result per repeat]}, the frameworks taking turns (ABBA) within each size."""
    results = {}
    for n in sizes:
        for r in range(repeats):
            order = frameworks if r % 2 == 0 else frameworks[::-1]
            for fw in order:
                results.setdefault((fw, n), []).append(measure(fw, n))
    return results


def median_of(runs, key):
    return statistics.median(r[key] for r in runs)


def table(results, sizes, frameworks):
    lines = ["| nodes | framework | forward, s CPU | backward, s CPU | graph held after forward | bytes per node |",
             "|---:|---|---:|---:|---:|---:|"]
    for n in sizes:
        ref = results.get(("torch", n))
        for fw in frameworks:
            runs = results[(fw, n)]
            cells = []
            for key in ("fwd", "bwd", "held_mib"):
                v = median_of(runs, key)
                text = f"{v:.2f}" if key != "held_mib" else f"{v:.1f} MiB"
                if ref is not None and fw != "torch" and median_of(ref, key) > 0:
                    text += f" ({v / median_of(ref, key):.2f}x)"
                cells.append(text)
            per_node = median_of(runs, "held_mib") * 2**20 / n
            lines.append(f"| {n:,} | {fw} | {' | '.join(cells)} | {per_node:.0f} |")
    return "\n".join(lines)


def goals(results, sizes):
    """The issue's goals, judged on autogradlab's medians."""
    out = []
    if 100_000 in sizes:
        out.append("a 100,000-op chain forward and backward with no RecursionError: met (it ran; the test "
                   "suite runs it too)")
    if 1_000_000 in sizes:
        bwd = median_of(results[("autogradlab", 1_000_000)], "bwd")
        out.append(f"a graph of 1,000,000 nodes backward in under 10 s: {'met' if bwd < 10 else '**missed**'} "
                   f"({bwd:.2f} s CPU)")
    if 100_000 in sizes and 1_000_000 in sizes:
        small, big = (median_of(results[("autogradlab", n)], "held_mib") * 2**20 / n for n in (100_000, 1_000_000))
        out.append(f"memory linear in length (bytes per node at 1,000,000 within 10% of those at 100,000): "
                   f"{'met' if abs(big / small - 1) <= 0.10 else '**missed**'} ({small:.0f} and {big:.0f} B/node)")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1e5,1e6", help="comma list of chain lengths")
    ap.add_argument("--repeats", type=int, default=3, help="runs of each framework at each size (default 3)")
    ap.add_argument("--write", action="store_true", help="rewrite this script's section of benchmarks/RESULTS.md")
    ap.add_argument("--worker", nargs=2, metavar=("FRAMEWORK", "N"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker[0], int(args.worker[1]))
        return
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    frameworks = ["torch", "autogradlab"] if have_torch() else ["autogradlab"]
    load_start = os.getloadavg()[0]
    results = run(sizes, args.repeats, frameworks)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    text = "\n".join([
        START, "## Deep graphs (issue 16): `benchmarks/deep_graph.py`", "",
        f"Commit {commit}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}, one BLAS thread; load average (1 min) "
        f"{load_start:.2f} at the start, {os.getloadavg()[0]:.2f} at the end. A chain of alternating `h + 0.0` and "
        f"`h * 1.0` on a one-element tensor, then `sum` and its backward; each figure the median of "
        f"{args.repeats} fresh processes per framework and size, taking turns"
        + ("" if "torch" in frameworks else " (torch not importable here: no ratios)") + "; in parentheses the "
        "ratio to torch.", "",
        table(results, sizes, frameworks), "",
        *[f"- {g}" for g in goals(results, sizes)],
        END, ""])
    print(text)
    if args.write:
        report.write_section(ROOT / "benchmarks" / "RESULTS.md", text, START, END)


if __name__ == "__main__":
    main()
