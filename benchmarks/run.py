"""Run the benchmark workloads for autogradlab and its peers; write JSON and a markdown table.

    python benchmarks/run.py                                  # everything installed, full sizes (~5 min)
    python benchmarks/run.py --quick                          # smoke test: small sizes, 3 reps
    python benchmarks/run.py --frameworks torch,autogradlab --workloads W1,W3
    python benchmarks/run.py --markdown benchmarks/RESULTS.md # also write RESULTS.md
    python benchmarks/run.py --from-json benchmarks/results/latest.json --markdown -   # re-render only

One worker subprocess per framework (``worker.py``), run one after the other.
Frameworks that are not installed in the interpreter (``--python``, default:
this one) are skipped with a note. ``bash benchmarks/run.sh`` creates the peer
venv (.venv-bench) first and runs this with it.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shlex
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import report  # noqa: E402

ALL_FRAMEWORKS = list(report.FRAMEWORK_ORDER)
ALL_WORKLOADS = ["W1", "W2", "W3", "W4", "W5", "W6", "W7"]
THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "BLIS_NUM_THREADS",
               "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")


def machine():
    cpu, mem = platform.processor() or "?", None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    mem = round(int(line.split()[1]) / 2**20, 1)
                    break
    except OSError:
        pass
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {"cpu": cpu, "cores": os.cpu_count(), "cores_usable": usable, "mem_gib": mem,
            "platform": platform.platform()}


def git_info():
    def git(*args):
        try:
            return subprocess.run(["git", "-C", ROOT, *args], capture_output=True, text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""
    return {"commit": git("rev-parse", "--short", "HEAD") or "?",
            "dirty": bool(git("status", "--porcelain", "--", "autogradlab"))}


def interpreter_info(python):
    code = "import platform, numpy; print(platform.python_version(), numpy.__version__)"
    try:
        out = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=60).stdout.split()
        return out[0], out[1]
    except (OSError, subprocess.SubprocessError, IndexError):
        return "?", "?"


def run_worker(python, fw, workloads, quick, threads, raw_dir, timeout, clock="cpu", env_extra=None):
    out = os.path.join(raw_dir, f"{fw}{'-quick' if quick else ''}.json")
    if os.path.exists(out):
        os.remove(out)
    cmd = [python, os.path.join(HERE, "worker.py"), "--framework", fw, "--workloads", ",".join(workloads),
           "--threads", str(threads), "--clock", clock, "--json-out", out] + (["--quick"] if quick else [])
    env = dict(os.environ)
    for v in THREAD_VARS:
        env[v] = str(threads)
    env.update(env_extra or {})
    t0 = time.perf_counter()
    note = None
    try:
        proc = subprocess.run(cmd, env=env, timeout=timeout, stdout=subprocess.DEVNULL)
        if proc.returncode not in (0, 3):
            note = f"worker exited with status {proc.returncode}"
    except subprocess.TimeoutExpired:
        note = f"timed out after {timeout:.0f} s (partial results kept)"
    wall = time.perf_counter() - t0
    try:
        with open(out) as f:
            result = json.load(f)
    except (OSError, ValueError):
        result = {"framework": fw, "available": False, "reason": note or "worker wrote no results", "workloads": {}}
    if note and result.get("available"):
        result["notes"] = (result.get("notes", "") + f"; {note}").lstrip("; ")
    result["wall_s"] = wall
    return result


def parse_list(values, known, what):
    items = []
    for v in values or []:
        items += [x.strip() for x in v.split(",") if x.strip()]
    if what == "workload":
        items = [x.upper() for x in items]
    bad = [x for x in items if x not in known]
    if bad:
        raise SystemExit(f"unknown {what}(s): {', '.join(bad)}; known: {', '.join(known)}")
    return items


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small sizes, 3 repetitions (smoke test)")
    ap.add_argument("--frameworks", nargs="+", metavar="NAME",
                    help=f"comma or space separated; default all: {','.join(ALL_FRAMEWORKS)}")
    ap.add_argument("--workloads", nargs="+", metavar="W", help="e.g. W1,W2; default all")
    ap.add_argument("--markdown", help="write the RESULTS.md-style report here ('-': stdout)")
    ap.add_argument("--json-out", help="bundle JSON (default: results/latest.json; results/raw/quick.json "
                                       "in --quick mode)")
    ap.add_argument("--raw-dir", default=os.path.join(HERE, "results", "raw"), help="per-framework worker JSON")
    ap.add_argument("--python", default=sys.executable, help="interpreter for the workers (default: this one)")
    ap.add_argument("--threads", type=int, default=1, help="BLAS/OpenMP threads per worker (default 1)")
    ap.add_argument("--timeout", type=float, default=None, help="seconds per framework (default 900; quick 180)")
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                    help="the primary clock, used by the main table and the targets: the worker's CPU time "
                         "(default: robust on a shared machine) or wall time. Every timed region reads both; "
                         "RESULTS.md shows the other clock in a second table")
    ap.add_argument("--tolerance", type=float, default=1e-3, help="relative tolerance of the gradient checks")
    ap.add_argument("--from-json", help="re-render an existing bundle instead of running")
    args = ap.parse_args(argv)

    if args.from_json:
        with open(args.from_json) as f:
            bundle = json.load(f)
        bundle["meta"]["tolerance"] = args.tolerance
    else:
        fws = parse_list(args.frameworks, ALL_FRAMEWORKS, "framework") or ALL_FRAMEWORKS
        fws = [f for f in ALL_FRAMEWORKS if f in fws]
        wls = parse_list(args.workloads, ALL_WORKLOADS, "workload") or ALL_WORKLOADS
        timeout = args.timeout or (180 if args.quick else 900)
        os.makedirs(args.raw_dir, exist_ok=True)
        py, np_version = interpreter_info(args.python)
        sys.path.insert(0, HERE)
        bundle = {"meta": {
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "command": os.environ.get("BENCH_COMMAND") or
            "python benchmarks/run.py " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:])),
            "mode": "quick" if args.quick else "full", "machine": machine(), "python": py, "numpy": np_version,
            "interpreter": args.python, "threads": args.threads, "clock": args.clock, "git": git_info(), "tolerance": args.tolerance,
            "loadavg_start": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
            "frameworks_requested": fws, "workloads_requested": wls},
            "frameworks": {}}
        t0 = time.perf_counter()
        for fw in fws:
            print(f"== {fw}", file=sys.stderr, flush=True)
            bundle["frameworks"][fw] = run_worker(args.python, fw, wls, args.quick, args.threads, args.raw_dir,
                                                  timeout, args.clock)
            r = bundle["frameworks"][fw]
            if not r.get("available"):
                print(f"   skipped: {r.get('reason')}", file=sys.stderr, flush=True)
        bundle["meta"]["wall_s"] = time.perf_counter() - t0
        try:
            from workloads import SIZES  # noqa: PLC0415  (needs numpy in this interpreter: optional)
            bundle["meta"]["sizes"] = SIZES["quick" if args.quick else "full"]
        except ImportError:
            pass
        bundle["checks"] = report.compute_checks(bundle, args.tolerance)
        json_out = args.json_out or (os.path.join(args.raw_dir, "quick.json") if args.quick
                                     else os.path.join(HERE, "results", "latest.json"))
        os.makedirs(os.path.dirname(os.path.abspath(json_out)), exist_ok=True)
        with open(json_out, "w") as f:
            json.dump(bundle, f, indent=1)
        print(f"wrote {os.path.relpath(json_out)}", file=sys.stderr)

    md = report.render(bundle)
    if args.markdown and args.markdown != "-":
        old = open(args.markdown).read() if os.path.exists(args.markdown) else ""
        for tag in ("player-bench", "source-lines", "run-spread"):  # the sections of player_bench.py, source_lines.py, spread.py
            start, end = f"<!-- {tag}:start -->", f"<!-- {tag}:end -->"
            if start in old and end in old:
                md = md.rstrip("\n") + "\n\n" + old[old.index(start):old.index(end) + len(end)] + "\n"
        with open(args.markdown, "w") as f:
            f.write(md)
        print(f"wrote {os.path.relpath(args.markdown)}", file=sys.stderr)
    print(md)
    mismatches = [(w, f) for w, row in report.compute_checks(bundle, args.tolerance).items()
                  for f, c in row.items() if c.get("ok") is False]
    if mismatches:
        print("gradient MISMATCH: " + ", ".join(f"{f} {w}" for w, f in mismatches), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
