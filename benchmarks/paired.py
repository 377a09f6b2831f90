"""autogradlab against torch, one repetition of each in turn, in one process: ratios a noisy host cannot skew.

``run.py`` runs each framework in its own worker, a few seconds after the other; on a shared virtual
machine whose speed drifts within a minute (RESULTS.md's rounds show it), one round's ratio can then
move by 50%. Here both frameworks are imported into one process and the same workload alternates
between them, one repetition at a time in ABBA order (torch, autogradlab, autogradlab, torch, ...),
so a pair of repetitions is a few milliseconds apart and sees the same host. The ratio of each pair
(autogradlab over torch, CPU time and wall time) is kept, and the median of the pairs is reported
with the quartiles, next to issue 16's goal:

    python benchmarks/paired.py                    # W1, W3, W5 (about a minute)
    python benchmarks/paired.py --pairs 200 --workloads W3

Both frameworks share the process (its allocator, one BLAS thread each; everything alive before the
timing is moved to the collector's permanent generation, as ``worker.py`` does, or each collection
inside a timed region would scan torch's and NumPy's modules too), so this is not a
replacement for ``run.py``'s separate workers (the published tables), but the check of a ratio
that those tables cannot settle on this machine. Workloads, sizes and checksums are ``run.py``'s
(``workloads.py``), and the gradients are compared before anything is timed.
"""
from __future__ import annotations

import argparse
import gc
import os
import platform
import statistics
import subprocess
import sys
import time

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import frameworks  # noqa: E402
import workloads as W  # noqa: E402

#: workload -> [(phase, goal for autogradlab / torch)]
GOALS = {"W1": [("fwd", 1.0), ("bwd", 1.0)], "W3": [("fwd", 1.5), ("bwd", 1.2)], "W5": [("hvp", 1.0)]}


def _w1(ad, sz):
    fn = W.chain_fn(ad, sz["w1_ops"])
    params = [ad.param(W.w1_x())]
    return W._first_check(ad, fn, params), W._fwd_bwd(ad, fn, params)


def _w3(ad, sz):
    cs, x0, w0 = W.w3_data(sz)
    fn = W.w3_fn(ad, [ad.const(c) for c in cs])
    params = [ad.param(x0), ad.param(w0)]
    return W._first_check(ad, fn, params), W._fwd_bwd(ad, fn, params)


def _w5(ad, sz):
    X, Y, init, vecs_np = W.w5_data(sz)
    fn = W.w5_fn(ad, X, Y)
    params = [ad.param(a) for a in init]
    vecs = [ad.const(v) for v in vecs_np]

    def once():
        t0 = W.pc()
        ad.hvp(fn, params, vecs)
        return {"hvp": W.pc() - t0}
    return W.checksum(ad.hvp(fn, params, vecs)), once


BUILD = {"W1": _w1, "W3": _w3, "W5": _w5}


def _timed(once):
    gc.collect()   # (as run.py: the previous graph's garbage is not charged to the next repetition)
    return once()


def pairs(name, ours, theirs, n):
    """``n`` ABBA pairs of repetitions; returns {phase: {"cpu": [ratios], "wall": [ratios]}}."""
    for _ in range(3):   # warm-up, both
        _timed(theirs)
        _timed(ours)
    ratios = {}
    for i in range(n):
        if i % 2 == 0:
            t, o = _timed(theirs), _timed(ours)
        else:
            o, t = _timed(ours), _timed(theirs)
        for phase, span in o.items():
            r = ratios.setdefault(phase, {"cpu": [], "wall": []})
            r["cpu"].append(span.cpu / t[phase].cpu)
            r["wall"].append(span.wall / t[phase].wall)
    return ratios


def _quartiles(values):
    q = statistics.quantiles(values, n=4)
    return q[0], statistics.median(values), q[2]


def _commit(where):
    """The commit of the tree autogradlab was imported from (``PYTHONPATH=other/tree`` measures another)."""
    try:
        out = subprocess.run(["git", "-C", where, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
        dirty = subprocess.run(["git", "-C", where, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        return out.stdout.strip() + (" (with uncommitted changes)" if dirty else "")
    except OSError:
        return "?"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workloads", default="W1,W3,W5", help="comma-separated, of " + ", ".join(BUILD))
    ap.add_argument("--pairs", type=int, default=60, help="ABBA pairs per workload (default 60)")
    args = ap.parse_args(argv)
    ours, theirs = frameworks.load("autogradlab"), frameworks.load("torch")
    sz = W.SIZES["full"]
    import autogradlab
    import torch
    print(f"# paired: autogradlab / torch, one process, ABBA, {args.pairs} pairs per workload")
    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f} "
          f"at start; Python {platform.python_version()}, torch {torch.__version__}, "
          f"autogradlab at {_commit(os.path.dirname(autogradlab.__file__))} ({os.path.dirname(autogradlab.__file__)}); "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print("| goal | pairs | CPU time: median (quartiles) | wall time: median (quartiles) | status |")
    print("|---|---:|---:|---:|---|")
    for name in args.workloads.split(","):
        check_o, once_o = BUILD[name](ours, sz)
        check_t, once_t = BUILD[name](theirs, sz)
        ok, err = W.compare(check_o, check_t, 1e-3)
        if not ok:
            print(f"| {name} | - | MISMATCH (relative error {err:.2g}) | | not judged |")
            continue
        gc.collect()
        gc.freeze()   # as worker.py: the collections inside timed regions scan only what the workloads make
        try:
            ratios = pairs(name, once_o, once_t, args.pairs)
        finally:
            gc.unfreeze()
        for phase, goal in GOALS[name]:
            cpu, wall = _quartiles(ratios[phase]["cpu"]), _quartiles(ratios[phase]["wall"])
            status = "met" if cpu[1] <= goal else "missed"
            print(f"| {name} {phase} <= {goal}x torch | {args.pairs} | {cpu[1]:.2f}x ({cpu[0]:.2f}-{cpu[2]:.2f}) "
                  f"| {wall[1]:.2f}x ({wall[0]:.2f}-{wall[2]:.2f}) | {status} |", flush=True)
    print(f"# load {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
