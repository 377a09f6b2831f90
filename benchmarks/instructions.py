"""Instructions per W1 op, forward and backward, counted by valgrind's callgrind (deterministic).

Timings on this virtual machine drift by up to 2x within minutes, so a 3% change in a hot path
cannot be seen with a clock. An instruction count does not drift: run the same program twice
and it executes (almost exactly) the same instructions. This runs a W1-like chain (``h*0.999``,
``h+0.001``, ``tanh(h)``, cycling; the same adapter code as ``workloads.chain_fn``) of N and of
2N ops under ``valgrind --tool=callgrind``, for autogradlab and, where it is importable, torch:

    python benchmarks/instructions.py                         # N=300: autogradlab, and torch if installed
    python benchmarks/instructions.py --python /work/bench-venv/bin/python --ops 500
    python benchmarks/instructions.py --frameworks autogradlab   # only ours (faster: no torch import)

Each child process sets everything up (imports, one short warm-up chain forward and backward,
``gc.freeze()`` as the benchmark workers do), then calls ``os.getppid()`` as a marker between the
phases; ``--dump-before=getppid`` makes callgrind write one part per phase, so the forward
(building the graph) and the backward (``backward()`` and reading the leaf's gradient) are
counted separately and the import and set-up are counted apart. The difference between the 2N
and the N chain, divided by N, cancels everything that does not grow with the chain (the final
``sum``, calling into backward, reading ``.grad``):

    forward instructions per op     = (fwd(2N) - fwd(N)) / N
    backward instructions per node  = (bwd(2N) - bwd(N)) / N

The child exits with ``os._exit`` right after the backward, so freeing the graph is counted in
neither. Instructions are not time (a cache miss or a slow NumPy call costs more than its count
says): use this to judge a micro-change, then confirm the time with ``benchmarks/run.py``.
"""
from __future__ import annotations

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "BLIS_NUM_THREADS",
               "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")
FRAMEWORKS = ("autogradlab", "torch")
PHASES = ("setup", "fwd", "bwd")   # the parts callgrind dumps, in order (a last part: exit)
WARMUP_OPS = 30
MARKER = "getppid"                 # the C function (libc) the child calls between phases (os.getppid)


# ------------------------------------------------------------------ pure part (tested)
def parse_total(text):
    """The total instruction count (Ir) of one callgrind output file: its ``summary:`` line (or
    ``totals:``), whose first number is the first event, which must be ``Ir``."""
    events = re.search(r"^events:\s*(\S+)", text, re.M)
    if events is None or events.group(1) != "Ir":
        raise ValueError("not a callgrind output with Ir as its first event"
                         + (f" (events: {events.group(1)})" if events else " (no 'events:' line)"))
    m = re.search(r"^(?:summary|totals):\s*(\d+)", text, re.M)
    if m is None:
        raise ValueError("callgrind output has no 'summary:' or 'totals:' line (was the run cut short?)")
    return int(m.group(1))


def part_number(text):
    """The ``part:`` number callgrind writes into each dump (1, 2, ...)."""
    m = re.search(r"^part:\s*(\d+)", text, re.M)
    return int(m.group(1)) if m else None


def phases_of(parts):
    """{phase: instructions} from the parts' totals in order (setup, fwd, bwd, then the exit)."""
    if len(parts) != len(PHASES) + 1:
        raise ValueError(f"expected {len(PHASES) + 1} callgrind parts (set-up, forward, backward, exit), got "
                         f"{len(parts)}: something else called the marker {MARKER}, or the child failed")
    return dict(zip(PHASES, parts))


def per_op(counts):
    """{n: {"fwd": Ir, "bwd": Ir, ...}} for two chain lengths -> ``fwd_per_op`` and ``bwd_per_node``
    (the difference of the two lengths' counts over the difference in ops) and ``fwd_fixed``,
    ``bwd_fixed`` (what a chain of 0 ops would cost by that line: the part that cancels)."""
    if len(counts) != 2:
        raise ValueError(f"need counts for exactly two chain lengths, got {sorted(counts)}")
    n1, n2 = sorted(counts)
    if n1 <= 0 or n2 <= n1:
        raise ValueError(f"chain lengths must be positive and different, got {n1} and {n2}")
    out = {}
    for phase, per in (("fwd", "fwd_per_op"), ("bwd", "bwd_per_node")):
        a, b = counts[n1][phase], counts[n2][phase]
        slope = (b - a) / (n2 - n1)
        if slope <= 0:
            raise ValueError(f"{phase}: {n2} ops took {b} instructions, not more than {n1} ops ({a}): "
                             "the chain was not measured")
        out[per] = slope
        out[f"{phase}_fixed"] = a - slope * n1
    return out


def ratio(ours, ref):
    return None if not ref else ours / ref


def table(results):
    """Plain-text table of {framework: per_op(...) or an error string}, with autogradlab / torch."""
    lines = [f"{'':<12} {'forward Ir/op':>14} {'backward Ir/node':>17} {'fixed fwd':>11} {'fixed bwd':>11}"]
    for fw, r in results.items():
        if isinstance(r, str):
            lines.append(f"{fw:<12} {r}")
            continue
        lines.append(f"{fw:<12} {r['fwd_per_op']:>14,.0f} {r['bwd_per_node']:>17,.0f} "
                     f"{r['fwd_fixed']:>11,.0f} {r['bwd_fixed']:>11,.0f}")
    a, t = results.get("autogradlab"), results.get("torch")
    if isinstance(a, dict) and isinstance(t, dict):
        lines.append(f"{'ratio':<12} {ratio(a['fwd_per_op'], t['fwd_per_op']):>13.2f}x "
                     f"{ratio(a['bwd_per_node'], t['bwd_per_node']):>16.2f}x   (autogradlab / torch)")
    return "\n".join(lines)


# ----------------------------------------------------------------------- the child
def child(framework, n_ops):
    """Set up, then forward and backward of an ``n_ops`` chain, a marker call between phases."""
    for p in (HERE, ROOT):   # this folder's modules, the working tree's autogradlab first
        if p not in sys.path:
            sys.path.insert(0, p)
    import gc

    import frameworks
    import workloads as W

    ad = frameworks.load(framework)
    params = [ad.param(W.w1_x())]
    warm = W.chain_fn(ad, WARMUP_OPS)           # lazy first-use costs go to the set-up
    ad.backward(ad.forward(warm, params), params)
    fn = W.chain_fn(ad, n_ops)
    gc.collect()
    gc.freeze()
    os.getppid()                                # --- part 1 (set-up) ends
    h = ad.forward(fn, params)
    os.getppid()                                # --- part 2 (forward) ends
    ad.backward(h, params)
    os.getppid()                                # --- part 3 (backward) ends
    sys.stdout.flush()
    os._exit(0)                                 # no teardown: freeing the graph is not counted


# ---------------------------------------------------------------------- the driver
def count(python, framework, n_ops, workdir, valgrind="valgrind"):
    """{phase: instructions} of one child run under callgrind."""
    out = os.path.join(workdir, f"cg.{framework}.{n_ops}")
    for f in glob.glob(out + "*"):
        os.remove(f)
    env = dict(os.environ, PYTHONHASHSEED="0", **{v: "1" for v in THREAD_VARS})
    cmd = [valgrind, "--tool=callgrind", f"--callgrind-out-file={out}", f"--dump-before={MARKER}",
           "--dump-line=no", "--compress-strings=no", python, os.path.abspath(__file__), "--child",
           framework, str(n_ops)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-6:])
        raise RuntimeError(f"{framework} with {n_ops} ops failed under callgrind (status {proc.returncode}):\n{tail}")
    parts = []
    for f in glob.glob(out + "*"):
        with open(f) as fh:
            text = fh.read()
        parts.append((part_number(text) or 0, parse_total(text)))
    return phases_of([total for _, total in sorted(parts)])


def importable(python, framework):
    code = f"import sys; sys.path[:0] = [{HERE!r}, {ROOT!r}]; import frameworks; frameworks.load({framework!r})"
    return subprocess.run([python, "-c", code], capture_output=True).returncode == 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        child(argv[1], int(argv[2]))
        return 0
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ops", type=int, default=300, help="N: chains of N and 2N ops (default 300)")
    ap.add_argument("--frameworks", default=",".join(FRAMEWORKS),
                    help="comma list (default: autogradlab,torch; torch is skipped with a note if not importable)")
    ap.add_argument("--python", default=sys.executable, help="interpreter of the children (e.g. the bench venv's)")
    ap.add_argument("--keep", metavar="DIR", help="keep callgrind's output files here (callgrind_annotate reads them)")
    args = ap.parse_args(argv)
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind); this tool needs its callgrind")
    if args.ops < 1:
        raise SystemExit(f"--ops must be at least 1, got {args.ops}")
    fws = [f.strip() for f in args.frameworks.split(",") if f.strip()]
    unknown = [f for f in fws if f not in FRAMEWORKS]
    if unknown:
        raise SystemExit(f"unknown framework(s) {unknown}; this tool knows {', '.join(FRAMEWORKS)}")
    workdir = args.keep or tempfile.mkdtemp(prefix="instructions-")
    os.makedirs(workdir, exist_ok=True)
    results, t0 = {}, time.perf_counter()
    try:
        for fw in fws:
            if not importable(args.python, fw):
                results[fw] = f"skipped: not importable by {args.python}"
                continue
            counts = {}
            for n in (args.ops, 2 * args.ops):
                print(f"[{fw}] {n} ops under callgrind ...", file=sys.stderr, flush=True)
                counts[n] = count(args.python, fw, n, workdir, valgrind)
            results[fw] = per_op(counts)
            print(f"[{fw}] set-up {counts[args.ops]['setup']:,} instructions; forward {counts[args.ops]['fwd']:,} "
                  f"/ {counts[2 * args.ops]['fwd']:,}, backward {counts[args.ops]['bwd']:,} / "
                  f"{counts[2 * args.ops]['bwd']:,} ({args.ops} / {2 * args.ops} ops)", file=sys.stderr)
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    print(f"W1-like chain, N={args.ops} and {2 * args.ops} ops, instructions (callgrind Ir) per op; "
          f"{time.perf_counter() - t0:.0f} s")
    print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
