"""Run the workloads for ONE framework in this process and write JSON.

``run.py`` starts one of these per framework, so frameworks never share an
interpreter, an allocator or a thread pool. By hand (e.g. under a profiler):

    python benchmarks/worker.py --framework autogradlab --workloads W1,W2 --quick --json-out -

BLAS/OpenMP threads are pinned (default 1) *before* NumPy is imported: set the
variables yourself (or pass ``--threads``) to change that.
"""
import os
import sys

THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "BLIS_NUM_THREADS",
               "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")

if __name__ == "__main__":  # before numpy (imported by frameworks/workloads) reads them
    _t = None
    for _i, _a in enumerate(sys.argv):
        if _a == "--threads" and _i + 1 < len(sys.argv):
            _t = sys.argv[_i + 1]
        elif _a.startswith("--threads="):
            _t = _a.split("=", 1)[1]
    for _v in THREAD_VARS:
        if _t is not None:
            os.environ[_v] = _t
        else:
            os.environ.setdefault(_v, "1")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for _p in (HERE, ROOT):  # this folder's modules, and the working tree's autogradlab before any installed one
    if _p not in sys.path:
        sys.path.insert(0, _p)

import argparse  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402

import numpy as np  # noqa: E402

import frameworks  # noqa: E402
import workloads as W  # noqa: E402
from frameworks import Unavailable, Unsupported  # noqa: E402


def environment():
    return {"python": platform.python_version(), "numpy": np.__version__, "executable": sys.executable,
            "threads": {v: os.environ.get(v) for v in THREAD_VARS if v in os.environ},
            "loadavg_start": os.getloadavg()[0] if hasattr(os, "getloadavg") else None}


def scaled(budgets, factor, reps=None):
    """The workloads' budgets with each time budget (seconds of repetitions) multiplied by ``factor``
    and, with ``reps``, the repetition counts capped at ``reps``; warm-up stays. ``run.py`` measures
    in several rounds and shortens each round's budget so that the rounds together cost about what
    one long run did; it measures W4 (deterministic RSS) once, with one repetition."""
    if factor == 1 and reps is None:
        return budgets
    if not factor > 0:
        raise ValueError(f"budget scale must be > 0, got {factor!r}")
    if reps is not None and reps < 1:
        raise ValueError(f"repetitions must be at least 1, got {reps!r}")
    cap = (lambda k: min(k, reps)) if reps is not None else (lambda k: k)
    return {w: W.Budget(b.warmup, cap(b.min_reps), cap(b.max_reps), b.seconds * factor) for w, b in budgets.items()}


def run(framework, workloads=None, quick=False, progress=None, on_partial=None, clock="cpu", budget_scale=1.0,
        reps=None, warm_up=False):
    """Run ``workloads`` (ids, default all) for ``framework``; returns the result dict (also in-process).

    ``warm_up``: first run the same workloads once at the quick sizes and discard what they give,
    so that a framework's one-time costs (lazy initialisation, first allocations of its allocator)
    are not in the figures. Used with ``reps=1`` (W4 measured once in a fresh process: without it,
    torch's first repetition held 5 MiB more after backward than every later one)."""
    W.set_clock(clock)
    mode = "quick" if quick else "full"
    sizes, budgets = W.SIZES[mode], scaled(W.BUDGETS[mode], budget_scale, reps)
    wanted = [w for w in W.RUN_ORDER if workloads is None or w in workloads]
    result = {"framework": framework, "label": frameworks.LABELS.get(framework, framework), "mode": mode,
              "clock": clock, "budget_scale": budget_scale, "reps_cap": reps, "warm_up": warm_up, "environment": environment(), "workloads": {}}
    try:
        ad = frameworks.load(framework)
    except Unavailable as exc:
        result.update(available=False, reason=str(exc))
        return result
    result.update(available=True, version=ad.version(), dtype=ad.dtype, notes=ad.notes)
    # Move everything alive now (the interpreter, the framework's modules; in-process: the test
    # runner's heap) to gc's permanent generation, so collections -- ours between repetitions and
    # the automatic ones inside timed regions -- scan only what the workloads make.
    if warm_up:
        quick_budgets = {w: W.Budget(0, 1, 1, 0.0) for w in W.BUDGETS["quick"]}
        _run_workloads(framework, ad, wanted, W.SIZES["quick"], quick_budgets, {"workloads": {}}, None, None)
    gc.collect()
    gc.freeze()
    try:
        _run_workloads(framework, ad, wanted, sizes, budgets, result, progress, on_partial)
    finally:
        gc.unfreeze()
    if hasattr(os, "getloadavg"):
        result["environment"]["loadavg_end"] = os.getloadavg()[0]
    return result


def _run_workloads(framework, ad, wanted, sizes, budgets, result, progress, on_partial):
    for wid in wanted:
        name, func, numpy_func = W.WORKLOADS[wid]
        t0 = time.perf_counter()
        try:
            if wid in W.AUTOGRADLAB_ONLY and framework != "autogradlab":
                raise Unsupported("autogradlab-only workload")
            if framework == "numpy":
                if numpy_func is None:
                    raise Unsupported("no hand-written NumPy version")
                entry = {"status": "ok", **numpy_func(sizes, budgets[wid])}
            else:
                entry = {"status": "ok", **func(ad, sizes, budgets[wid])}
        except Unsupported as exc:
            entry = {"status": "unsupported", "reason": str(exc)}
        except Exception as exc:  # noqa: BLE001  (one broken workload must not hide the others)
            entry = {"status": "error", "reason": f"{type(exc).__name__}: {exc}",
                     "traceback": traceback.format_exc(limit=8)}
        entry["name"] = name
        entry["wall_s"] = time.perf_counter() - t0
        result["workloads"][wid] = entry
        if progress:
            progress(f"[{framework}] {wid} {name}: {entry['status']} ({entry['wall_s']:.1f} s)"
                     + (f" - {entry['reason']}" if entry["status"] != "ok" else ""))
        if on_partial:
            on_partial(result)
        gc.collect()


def _write(path, data):
    if path in (None, "-"):
        return
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1, allow_nan=True)
    os.replace(tmp, path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--framework", required=True, choices=list(frameworks.REGISTRY))
    ap.add_argument("--workloads", default=",".join(W.WORKLOADS), help="comma list, e.g. W1,W3")
    ap.add_argument("--quick", action="store_true", help="few repetitions, small sizes (smoke test)")
    ap.add_argument("--threads", default=None, help="BLAS/OpenMP threads (read before NumPy is imported)")
    ap.add_argument("--clock", choices=list(W.CLOCKS), default="cpu",
                    help="the primary clock (the tables' and targets' figures): process CPU time (default) or "
                         "wall time; every timed region records both")
    ap.add_argument("--budget-scale", type=float, default=1.0,
                    help="multiply every workload's time budget by this (run.py's rounds use < 1)")
    ap.add_argument("--reps", type=int, default=None, help="at most this many repetitions per workload")
    ap.add_argument("--warm-up", action="store_true",
                    help="run the workloads once at the quick sizes first (discarded): one-time costs left out")
    ap.add_argument("--json-out", default="-", help="file for the JSON ('-': stdout)")
    args = ap.parse_args(argv)
    wanted = [w.strip().upper() for w in args.workloads.split(",") if w.strip()]
    unknown = set(wanted) - set(W.WORKLOADS)
    if unknown:
        ap.error(f"unknown workloads {sorted(unknown)}; known: {', '.join(W.WORKLOADS)}")
    result = run(args.framework, wanted, args.quick, clock=args.clock, budget_scale=args.budget_scale, reps=args.reps,
                 warm_up=args.warm_up,
                 progress=lambda m: print(m, file=sys.stderr, flush=True),
                 on_partial=lambda r: _write(args.json_out, r))  # partial results survive a timeout
    _write(args.json_out, result)
    if args.json_out == "-":
        print(json.dumps(result, indent=1))
    if not result.get("available"):
        print(f"[{args.framework}] unavailable: {result.get('reason')}", file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
