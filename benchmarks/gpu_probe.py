"""Where a GPU training step's time goes (issue 17's G1), for a lent GPU machine's short lease.

    python benchmarks/gpu_probe.py [--quick]

1. Host and device time of one G1 step (``cupyx.profiler.benchmark``: *host* is the time to issue the
   step's work, *device* the time from its first to its last kernel). A step whose host time is about its
   device time is bound by Python and kernel launches, not by the GPU.
2. The same for autogradlab's forward, backward and SGD update alone, and for the hand-written floor.
3. How a Python number operand becomes a device array (each way timed per ``a * c`` on 1,024 elements,
   and whether ``-0.0`` keeps its sign), and whether making one waits for the kernels already queued
   (a synchronisation: a large matrix product is queued first).
4. The host time of single CuPy calls the engine makes (a product, a transposed product, a copy...).
5. The 25 functions with the most host time in 20 autogradlab steps (cProfile).

Needs CuPy and a GPU; prints plain text.
"""
from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
import time
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import gpu  # noqa: E402  (benchmarks/gpu.py: the G1 step and its floor)

import autogradlab as ag  # noqa: E402

try:
    from cupyx.profiler import benchmark
except ImportError:   # (no CuPy: main() says so where it is needed)
    benchmark = None


def host_device_ms(fn, reps):
    """Medians of host (issue) and device (first to last kernel) time, ms."""
    r = benchmark(fn, n_repeat=reps, n_warmup=3)
    return float(np.median(r.cpu_times)) * 1e3, float(np.median(r.gpu_times[0])) * 1e3


def phases(batch, sizes, reps):
    X, Y, Ws = gpu.mlp_data(batch, sizes)
    params = [ag.tensor(w, device="cuda", requires_grad=True) for w in Ws]
    x, y = ag.tensor(X, device="cuda"), ag.tensor(Y, device="cuda")
    forward, backward, update = gpu._mlp_phases(ag, x, y, params, batch)
    step = gpu._mlp_step(ag, x, y, params, batch)

    rows = [("autogradlab step", step)]
    out = [(name, *host_device_ms(fn, reps)) for name, fn in rows]
    # each phase alone: the others run untimed around it
    for name, fn, before, after in (("  forward", forward, None, lambda: (backward(), update())),
                                    ("  backward", backward, forward, update),
                                    ("  SGD update", update, lambda: (forward(), backward()), None)):
        hs, ds = [], []
        for _ in range(reps + 3):
            if before:
                before()
            h, d = _once(fn)
            hs.append(h)
            ds.append(d)
            if after:
                after()
        out.append((name, float(np.median(hs[3:])), float(np.median(ds[3:]))))
    import cupy
    Xc, Yc, Wc = cupy.asarray(X), cupy.asarray(Y), [cupy.asarray(w) for w in Ws]
    out.append(("floor step", *host_device_ms(gpu.floor_mlp_step(cupy, Xc, Yc, Wc, batch), reps)))
    return out, step


def _once(fn):
    import cupy
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    cupy.cuda.Device().synchronize()
    start.record()
    t0 = time.perf_counter()
    fn()
    t1 = time.perf_counter()
    end.record()
    end.synchronize()
    return (t1 - t0) * 1e3, cupy.cuda.get_elapsed_time(start, end)


def number_operands(n, big_n=8192):
    import cupy
    a = cupy.ones(1024, cupy.float32)
    cached = cupy.asarray(0.999, dtype=cupy.float32)
    ways = {
        "Python number as it is (a * 0.999)": lambda v: v,
        "cupy.asarray(number, dtype)": lambda v: cupy.asarray(v, dtype=cupy.float32),
        "cupy.asarray(numpy 0-d array)": lambda v: cupy.asarray(np.asarray(v, np.float32)),
        "cupy.full((), number, dtype)": lambda v: cupy.full((), v, cupy.float32),
        "one cached 0-d array": lambda v: cached,
    }
    big = cupy.random.rand(big_n, big_n, dtype=cupy.float32)
    lines = []
    for name, make in ways.items():
        for _ in range(10):
            a * make(0.999)
        cupy.cuda.Device().synchronize()
        t0 = time.perf_counter()
        for _ in range(n):
            a * make(0.999)
        cupy.cuda.Device().synchronize()
        per_op = (time.perf_counter() - t0) / n * 1e6
        zero = make(-0.0)
        sign = "n/a" if isinstance(zero, float) or make(0.5) is cached else str(bool(np.signbit(cupy.asnumpy(zero))))
        cupy.cuda.Device().synchronize()
        big @ big                       # tens of ms of queued work
        t0 = time.perf_counter()
        make(0.5)
        waited = (time.perf_counter() - t0) * 1e3
        cupy.cuda.Device().synchronize()
        lines.append(f"{name}: {per_op:.1f} us per a*c; -0.0 keeps its sign: {sign}; "
                     f"making one behind a queued matmul took {waited:.2f} ms")
    cupy.cuda.Device().synchronize()
    t0 = time.perf_counter()
    big @ big
    cupy.cuda.Device().synchronize()
    lines.append(f"(the queued matmul alone: {(time.perf_counter() - t0) * 1e3:.1f} ms)")
    return lines


def call_costs(n):
    """Host time of single CuPy calls on small arrays (their device time is negligible), us per call."""
    import cupy
    a, b = cupy.ones((64, 64), cupy.float32), cupy.ones((64, 64), cupy.float32)
    g, y = cupy.ones(4096, cupy.float32), cupy.full(4096, 0.5, cupy.float32)
    fused = cupy.ElementwiseKernel("T g, T y", "T out", "out = g * (1 - y * y)", "probe_tanh_grad")
    calls = {
        "a @ b": lambda: a @ b,
        "cupy.matmul(a, b)": lambda: cupy.matmul(a, b),
        "cupy.dot(a, b)": lambda: cupy.dot(a, b),
        "a.mT @ b": lambda: a.mT @ b,
        "cupy.dot(a.T, b)": lambda: cupy.dot(a.T, b),
        "a.mT (the view alone)": lambda: a.mT,
        "a * b": lambda: a * b,
        "g * (1 - y * y), 3 kernels": lambda: g * (1 - y * y),
        "the same as one ElementwiseKernel": lambda: fused(g, y),
        "a[...] = b": lambda: a.__setitem__(Ellipsis, b),
        "cupy.copyto(a, b)": lambda: cupy.copyto(a, b),
        "cupy.subtract(a, b, out=a)": lambda: cupy.subtract(a, b, out=a),
        "a.sum()": lambda: a.sum(),
        "a.sum(axis=0)": lambda: a.sum(axis=0),
        "cupy.empty_like(a)": lambda: cupy.empty_like(a),
        "cupy.may_share_memory(a, b)": lambda: cupy.may_share_memory(a, b),
    }
    lines = []
    for name, fn in calls.items():
        for _ in range(20):
            fn()
        cupy.cuda.Device().synchronize()
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        host = (time.perf_counter() - t0) / n * 1e6
        cupy.cuda.Device().synchronize()
        lines.append(f"{name:<36} {host:6.1f} us")
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    batch, sizes, reps = (64, [32, 64, 64, 10], 5) if args.quick else (4096, [784, 1024, 1024, 10], 20)
    print(f"Machine: {gpu.machine_line()}", flush=True)
    failed = 0
    try:
        print(f"\n1-2. G1 (batch {batch}, {'-'.join(map(str, sizes))}): medians, ms (host = issuing, device = "
              f"first to last kernel)")
        rows, step = phases(batch, sizes, reps)
        for name, h, d in rows:
            print(f"  {name:<20} host {h:8.3f}   device {d:8.3f}", flush=True)
    except Exception:   # (each part on its own: a lease is too short to lose the others to one error)
        traceback.print_exc()
        failed, step = 1, None
    try:
        print("\n3. a Python number operand on the GPU")
        for line in (number_operands(200, 512) if args.quick else number_operands(2000)):
            print("  " + line, flush=True)
    except Exception:
        traceback.print_exc()
        failed = 1
    try:
        print("\n4. host time of single CuPy calls (64x64 and 4096 elements)")
        for line in call_costs(100 if args.quick else 2000):
            print("  " + line, flush=True)
    except Exception:
        traceback.print_exc()
        failed = 1
    if step is not None:
        print("\n5. host time in 20 autogradlab steps (cProfile, top 25 by own time)")
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(20):
            step()
        prof.disable()
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(25)
        print(buf.getvalue())
    return failed


if __name__ == "__main__":
    sys.exit(main())
