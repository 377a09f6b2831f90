"""Profile autogradlab on the benchmark workloads with cProfile (for whoever optimizes the engine).

    python benchmarks/profile_autogradlab.py                      # W1 and W2, top 25 by tottime
    python benchmarks/profile_autogradlab.py --workloads W3 --reps 50 --top 40
    python benchmarks/profile_autogradlab.py --phase bwd          # only the backward pass
    python benchmarks/profile_autogradlab.py --traced             # under `with autogradlab.trace():` (W6)

Writes ``results/profile_<W>.txt`` (the top functions by own time, then by cumulative time)
and prints the same. cProfile roughly doubles the time of call-heavy code, so read the
*shares* (which functions dominate), not the absolute figures; those are in RESULTS.md.
"""
import os
import sys

for _v in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "BLIS_NUM_THREADS"):
    os.environ.setdefault(_v, "1")  # as the benchmark workers do, before NumPy is imported

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for _p in (HERE, ROOT):
    if _p not in sys.path:
        sys.path.insert(0, _p)

import argparse  # noqa: E402
import contextlib  # noqa: E402
import cProfile  # noqa: E402
import gc  # noqa: E402
import io  # noqa: E402
import pstats  # noqa: E402

import frameworks  # noqa: E402
import workloads as W  # noqa: E402


def setup(ad, wid, sz):
    """(fn, params) of a workload, built exactly as the benchmark builds it."""
    if wid == "W1":
        return W.chain_fn(ad, sz["w1_ops"]), [ad.param(W.w1_x())]
    if wid == "W2":
        X, Y, init = W.w2_data(sz)
        return W.mlp_fn(ad, X, Y), [ad.param(a) for a in init]
    if wid == "W3":
        cs_np, x0, w0 = W.w3_data(sz)
        return W.w3_fn(ad, [ad.const(c) for c in cs_np]), [ad.param(x0), ad.param(w0)]
    if wid == "W5":
        X, Y, init, vecs = W.w5_data(sz)
        return W.w5_fn(ad, X, Y), ([ad.param(a) for a in init], [ad.const(v) for v in vecs])
    raise SystemExit(f"profiling supports W1, W2, W3, W5 (got {wid})")


def profile(wid, reps, top, phase, sz, traced=False):
    ad = frameworks.load("autogradlab")
    fn, params = setup(ad, wid, sz)
    if wid == "W5":  # one Hessian-vector product (both passes) is the unit
        params, vecs = params
        for _ in range(3):
            ad.hvp(fn, params, vecs)
        prof = cProfile.Profile()
        for _ in range(reps):
            gc.collect()
            prof.enable()
            ad.hvp(fn, params, vecs)
            prof.disable()
        return _report(prof, wid, reps, top, "hvp", sz)
    tracing = ad.ag.trace if traced else contextlib.nullcontext   # a fresh tape per repetition, as W6
    for _ in range(3):  # warm-up
        with tracing():
            ad.backward(ad.forward(fn, params), params)
    prof = cProfile.Profile()
    for _ in range(reps):
        gc.collect()
        with tracing():
            if phase == "bwd":
                h = ad.forward(fn, params)
                prof.enable()
                ad.backward(h, params)
                prof.disable()
            elif phase == "fwd":
                prof.enable()
                h = ad.forward(fn, params)
                prof.disable()
                ad.backward(h, params)
            else:
                prof.enable()
                ad.backward(ad.forward(fn, params), params)
                prof.disable()
    return _report(prof, wid, reps, top, phase + (", traced" if traced else ""), sz)


def _report(prof, wid, reps, top, phase, sz):
    buf = io.StringIO()
    buf.write(f"autogradlab {wid} ({W.WORKLOADS[wid][0]}), phase={phase}, {reps} repetitions, "
              f"sizes={ {k: v for k, v in sz.items() if k.startswith(wid.lower())} }\n\n")
    stats = pstats.Stats(prof, stream=buf)
    stats.strip_dirs()
    buf.write(f"== top {top} by own time (tottime)\n")
    stats.sort_stats("tottime").print_stats(top)
    buf.write("== top 15 by cumulative time\n")
    stats.sort_stats("cumulative").print_stats(15)
    return buf.getvalue()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workloads", default="W1,W2", help="comma list of W1, W2, W3, W5 (W5: the whole HVP)")
    ap.add_argument("--reps", type=int, default=None, help="repetitions (default: 20 for W1/W3, 200 for W2/W5)")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--phase", choices=("step", "fwd", "bwd"), default="step")
    ap.add_argument("--quick", action="store_true", help="the small sizes of run.py --quick")
    ap.add_argument("--traced", action="store_true", help="each repetition under autogradlab.trace() (W6)")
    ap.add_argument("--out-dir", default=os.path.join(HERE, "results"), help="'-' to only print")
    args = ap.parse_args(argv)
    sz = W.SIZES["quick" if args.quick else "full"]
    for wid in [w.strip().upper() for w in args.workloads.split(",") if w.strip()]:
        reps = args.reps or (200 if wid in ("W2", "W5") else 20)
        text = profile(wid, reps, args.top, args.phase, sz, args.traced)
        print(text)
        if args.out_dir != "-":
            os.makedirs(args.out_dir, exist_ok=True)
            suffix = ("" if args.phase == "step" else f"_{args.phase}") + ("_traced" if args.traced else "")
            with open(os.path.join(args.out_dir, f"profile_{wid}{suffix}.txt"), "w") as f:
                f.write(text)


if __name__ == "__main__":
    main()
