"""Run the benchmark workloads for autogradlab and its peers; write JSON and a markdown table.

    python benchmarks/run.py                                  # everything installed, 5 rounds (~10 min)
    python benchmarks/run.py --quick                          # smoke test: small sizes, 3 reps, 2 rounds
    python benchmarks/run.py --frameworks torch,autogradlab --workloads W1,W3 --rounds 3
    python benchmarks/run.py --markdown benchmarks/RESULTS.md # also write RESULTS.md
    python benchmarks/run.py --from-json benchmarks/results/latest.json --markdown -   # re-render only

Interleaved rounds: each round runs every framework once, each in a fresh worker subprocess
(``worker.py``), one after the other, in an order that changes from round to round (see
:func:`round_order`). The host of a virtual machine can run 2x slower for a minute; run one
framework after another only once and that minute lands on one column. In rounds it lands on one
round of every column, and each goal is judged on the median of the per-round ratios (with their
range). Each round's time budgets are shortened (``--budget-scale``, default 2/rounds) so the
rounds together cost about twice one long round. W4 (memory: deterministic, and 1-2 minutes per
framework and repetition) runs once, after the rounds, with one repetition (``--once-reps``), in a
worker of its own per framework that runs it at the quick sizes first (discarded: one-time costs).

Frameworks that are not installed in the interpreter (``--python``, default: this one) are
skipped with a note. ``bash benchmarks/run.sh`` creates the peer venv (.venv-bench) first and
runs this with it.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import report  # noqa: E402

ALL_FRAMEWORKS = list(report.FRAMEWORK_ORDER)
ALL_WORKLOADS = ["W1", "W2", "W3", "W4", "W5", "W6", "W7"]
ONCE = ("W4",)   # deterministic (RSS in MiB): measured once, after the rounds, not in every round
DEFAULT_ROUNDS = {"full": 5, "quick": 2}
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


def run_worker(python, fw, workloads, quick, threads, raw_dir, timeout, clock="cpu", env_extra=None,
               budget_scale=1.0, tag="", reps=None):
    out = os.path.join(raw_dir, f"{fw}{tag}{'-quick' if quick else ''}.json")
    if os.path.exists(out):
        os.remove(out)
    cmd = [python, os.path.join(HERE, "worker.py"), "--framework", fw, "--workloads", ",".join(workloads),
           "--threads", str(threads), "--clock", clock, "--budget-scale", repr(budget_scale),
           "--json-out", out] + (["--quick"] if quick else []) + (["--reps", str(reps), "--warm-up"] if reps else [])
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


def round_order(frameworks, r):
    """The order of round ``r`` (0-based): the list rotated by ``r``, and on odd rounds run
    backwards (rotated one further first). Round ``r`` starts with ``frameworks[r % k]``, so each
    framework goes first once every k rounds, and a pair of neighbours (torch, autogradlab) runs in
    one order in even rounds and in the other in odd ones."""
    k = len(frameworks)
    if k == 0:
        return []
    if r % 2 == 0:
        i = r % k
        return frameworks[i:] + frameworks[:i]
    i = (r + 1) % k
    return (frameworks[i:] + frameworks[:i])[::-1]


def _summary(values, reps=None):
    """The per-round medians of one metric on one clock, summarised: their median, quartiles, min,
    max; ``n`` = repetitions behind them (all rounds), ``rounds`` = the per-round medians."""
    vals = sorted(values)
    q = statistics.quantiles(vals, n=4, method="inclusive") if len(vals) >= 2 else [vals[0]] * 3
    return {"median": statistics.median(vals), "q1": q[0], "q3": q[2], "min": vals[0], "max": vals[-1],
            "n": sum(reps) if reps else len(vals), "rounds": list(values)}


def pool_metric(per_round):
    """One metric from several rounds (each a worker's summary: ``median``, ``n``, and ``cpu`` /
    ``wall`` summaries for timed metrics) -> the same shape, summarising the per-round medians."""
    reps = [m.get("n", 1) for m in per_round]
    out = _summary([m["median"] for m in per_round], reps)
    for clock in ("cpu", "wall"):
        if all(clock in m for m in per_round):
            out[clock] = _summary([m[clock]["median"] for m in per_round], reps)
    return out


def pool_entry(entries):
    """One workload of one framework from several rounds: the first round that is not ``ok`` (an
    error or n/a) stands for all; else the first round's entry with every metric pooled."""
    for i, e in enumerate(entries):
        if e.get("status") != "ok":
            bad = dict(e)
            if len(entries) > 1 and e.get("status") == "error":
                bad["reason"] = f"round {i + 1}: {e.get('reason', '')}"
            return bad
    pooled = {k: v for k, v in entries[0].items() if k not in ("metrics", "wall_s")}
    keys = [k for k in entries[0].get("metrics", {}) if all(k in e.get("metrics", {}) for e in entries)]
    pooled["metrics"] = {k: pool_metric([e["metrics"][k] for e in entries]) for k in keys}
    pooled["wall_s"] = sum(e.get("wall_s", 0) for e in entries)
    pooled["rounds"] = len(entries)
    return pooled


def pool_framework(results, once=None):
    """One framework's worker results from the rounds (and ``once``: its W4 worker, or None) -> one
    result in the shape a single worker writes, so report.py renders it as it did one run."""
    if not results and once is not None:   # only once-workloads were asked for (e.g. --workloads W4)
        return dict(once)
    avail = [r for r in results if r.get("available")]
    if not avail:
        return dict(results[0]) if results else {"available": False, "reason": "not run", "workloads": {}}
    first = avail[0]
    out = {k: v for k, v in first.items() if k not in ("workloads", "environment", "wall_s")}
    env = dict(first.get("environment", {}))
    env["loadavg_end"] = avail[-1].get("environment", {}).get("loadavg_end")
    out["environment"] = env
    out["wall_s"] = sum(r.get("wall_s", 0) for r in results)
    notes = [n for r in avail for n in (r.get("notes") or "").split("; ") if n]
    if notes:
        out["notes"] = "; ".join(dict.fromkeys(notes))
    wids = list(dict.fromkeys(w for r in avail for w in r.get("workloads", {})))
    out["workloads"] = {}
    for wid in wids:
        entries = [r["workloads"].get(wid, {"status": "error", "reason": "missing in this round"}) for r in avail]
        out["workloads"][wid] = pool_entry(entries)
    if once is not None:
        out["wall_s"] += once.get("wall_s", 0)
        if once.get("available"):
            out["workloads"].update(once.get("workloads", {}))
        else:
            for wid in ONCE:
                out["workloads"][wid] = {"status": "error", "reason": once.get("reason", "worker wrote no results")}
    return out


def pool(rounds, once=None):
    """{fw: pooled result} from ``rounds`` (a list of {"frameworks": {fw: worker result}}) and
    ``once`` ({fw: worker result} of the workloads measured once)."""
    fws = list(dict.fromkeys(f for rd in rounds for f in rd["frameworks"]))
    fws += [f for f in (once or {}) if f not in fws]
    return {f: pool_framework([rd["frameworks"][f] for rd in rounds if f in rd["frameworks"]],
                              (once or {}).get(f)) for f in fws}


def loadavg():
    return round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


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
    ap.add_argument("--rounds", type=int, default=None,
                    help=f"interleaved rounds: every framework once per round (default {DEFAULT_ROUNDS['full']}; "
                         f"quick {DEFAULT_ROUNDS['quick']})")
    ap.add_argument("--budget-scale", type=float, default=None,
                    help="multiply each workload's time budget per round by this (default: 2/rounds, at most 1)")
    ap.add_argument("--once-reps", type=int, default=1,
                    help="repetitions of the workloads measured once, W4 (default 1: its RSS figures repeat to "
                         "within 0.3 MiB; 3 reps of it cost about 1-2 minutes per framework)")
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
        mode = "quick" if args.quick else "full"
        bundle = {"meta": {
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "command": os.environ.get("BENCH_COMMAND") or
            "python benchmarks/run.py " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:])),
            "mode": mode, "machine": machine(), "python": py, "numpy": np_version,
            "interpreter": args.python, "threads": args.threads, "clock": args.clock, "git": git_info(), "tolerance": args.tolerance,
            "loadavg_start": loadavg(),
            "frameworks_requested": fws, "workloads_requested": wls},
            "frameworks": {}}
        rounds_n = args.rounds or DEFAULT_ROUNDS[mode]
        if args.once_reps < 1:
            raise SystemExit(f"--once-reps must be at least 1, got {args.once_reps}")
        if rounds_n < 1:
            raise SystemExit(f"--rounds must be at least 1, got {rounds_n}")
        scale = args.budget_scale or min(1.0, 2.0 / rounds_n)
        bundle["meta"].update(rounds=rounds_n, budget_scale=scale)
        in_rounds, once = [w for w in wls if w not in ONCE], [w for w in wls if w in ONCE]
        bundle["rounds"], bundle["once"] = [], {}
        live = list(fws)   # a framework that is not installed is skipped after its first try
        t0 = time.perf_counter()
        for r in range(rounds_n if in_rounds else 0):
            order = round_order(live, r)
            rd = {"round": r + 1, "order": order, "start": now(), "loadavg_start": loadavg(), "frameworks": {}}
            print(f"== round {r + 1}/{rounds_n}: {', '.join(order)} (load {rd['loadavg_start']})",
                  file=sys.stderr, flush=True)
            t_r = time.perf_counter()
            for fw in order:
                res = run_worker(args.python, fw, in_rounds, args.quick, args.threads, args.raw_dir, timeout,
                                 args.clock, budget_scale=scale, tag=f"-r{r + 1}")
                rd["frameworks"][fw] = res
                if not res.get("available"):
                    print(f"   {fw} skipped: {res.get('reason')}", file=sys.stderr, flush=True)
                    live.remove(fw)
            rd["loadavg_end"], rd["wall_s"] = loadavg(), time.perf_counter() - t_r
            bundle["rounds"].append(rd)
        if once:
            start, load0, t_o = now(), loadavg(), time.perf_counter()
            print(f"== once: {','.join(once)} for {', '.join(live)} (load {load0})", file=sys.stderr, flush=True)
            bundle["once"] = {fw: run_worker(args.python, fw, once, args.quick, args.threads, args.raw_dir, timeout,
                                             args.clock, tag="-once", reps=args.once_reps) for fw in live}
            bundle["meta"]["once"] = {"workloads": once, "reps": args.once_reps, "start": start, "loadavg_start": load0,
                                      "loadavg_end": loadavg(), "wall_s": time.perf_counter() - t_o}
        bundle["frameworks"] = pool(bundle["rounds"], bundle["once"] or None)
        for fw in fws:   # skipped before the first round ran it (not installed): keep its reason
            if fw not in bundle["frameworks"]:
                bundle["frameworks"][fw] = {"framework": fw, "available": False, "reason": "not run"}
        bundle["meta"]["wall_s"] = time.perf_counter() - t0
        bundle["meta"]["loadavg_end"] = loadavg()
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
        for tag in ("player-bench", "source-lines", "deep-graph"):  # the sections of player_bench.py, source_lines.py, deep_graph.py
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
