"""How low can tracing go? W1's chain traced with parts of the tape replaced by the least a recorder can do.

    python benchmarks/trace_floor.py                 # 2,000-op chains, 5 rounds of every variant
    python benchmarks/trace_floor.py --ops 1000 --rounds 3

Each variant runs in a fresh process (the replacements are patched into the modules), rounds alternate the
variants, and each process times 15 forward+backward passes (CPU time, the median per op):

* ``untraced``: the chain as W1 runs it;
* ``traced``: under ``autogradlab.trace()``, as it is;
* ``fwd-append``: ``Tape.op_recorded`` replaced by one list append of (node, inputs, a copy of the value,
  the caller's frame): what any recorder of a forward must keep;
* ``bwd-append``: the four per-node backward events (node started, gradient computed, accumulated, saved
  freed) each replaced by one list append of what they are given;
* ``floor``: both, and no plan (no ``describe_plan``, no ``backward_started``/``backward_finished``).

The floor keeps no ids, names or formulas: a tape built from it would have to compute them all when read.
It says how much of tracing's cost any design that records during the pass must pay in Python.
A measurement, not a test; it patches the engine's internals, so it follows them as they change.
"""
import argparse
import contextlib
import gc
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
VARIANTS = ("untraced", "traced", "fwd-append", "bwd-append", "floor")


def _patch(variant):
    from autogradlab import engine
    from autogradlab.events import tape as T
    if variant in ("fwd-append", "floor"):
        def op_recorded(self, node, inputs, out):
            self._raw.append((node, inputs, out._data.copy(), sys._getframe(2)))
            return 0
        T.Tape.op_recorded = op_recorded
    if variant in ("bwd-append", "floor"):
        def node_started(self, node, g):
            self._raw.append((node, g))
            return 0

        def gradient_computed(self, node, i, child, upstream, contribution):
            self._raw.append((node, contribution))
            return 0

        def accumulated(self, where, node, tensor, before, contribution, after=None):
            self._raw.append((node, contribution))
            return 0

        def saved_freed(self, node, names, nbytes):
            self._raw.append(nbytes)
            return 0
        T.Tape.node_started, T.Tape.gradient_computed = node_started, gradient_computed
        T.Tape.accumulated, T.Tape.saved_freed = accumulated, saved_freed
    if variant == "floor":
        def describe_plan(plan, root_nodes, inputs):
            plan.root_nodes, plan.pruned, plan.input_nodes = root_nodes, [], None
        engine.describe_plan = describe_plan
        T.Tape.backward_started = lambda self, *args, **kwargs: 0
        T.Tape.backward_finished = lambda self: 0


def _worker(variant, n_ops, reps):
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")
    sys.path.insert(0, os.path.dirname(HERE))
    import numpy as np
    import autogradlab as ag
    _patch(variant)

    def once():
        x = ag.tensor(np.array([0.5], dtype=np.float32), requires_grad=True)
        ctx = contextlib.nullcontext() if variant == "untraced" else ag.trace()
        gc.collect()
        t0 = time.process_time()
        with ctx:
            h = x
            for i in range(n_ops):
                r = i % 3
                h = h * 1.0001 if r == 0 else h + 0.001 if r == 1 else ag.tanh(h)
            s = h.sum()
            t1 = time.process_time()
            s.backward()
        t2 = time.process_time()
        return (t1 - t0) / n_ops * 1e6, (t2 - t1) / n_ops * 1e6

    once()
    runs = [once() for _ in range(reps)]
    fwd, bwd = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
    print(json.dumps({"fwd": fwd, "bwd": bwd}))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ops", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--worker", choices=VARIANTS)
    args = ap.parse_args()
    if args.worker:
        return _worker(args.worker, args.ops, args.reps)
    results = {v: [] for v in VARIANTS}
    for r in range(args.rounds):
        order = VARIANTS if r % 2 == 0 else tuple(reversed(VARIANTS))
        for v in order:
            out = subprocess.run([sys.executable, __file__, "--worker", v, "--ops", str(args.ops), "--reps",
                                  str(args.reps)], capture_output=True, text=True, check=True)
            results[v].append(json.loads(out.stdout))
    base = statistics.median(x["fwd"] + x["bwd"] for x in results["untraced"])
    print(f"W1 chain of {args.ops} ops, {args.rounds} rounds x {args.reps} passes, CPU time per op (median), "
          f"load average {os.getloadavg()[0]:.2f}")
    print("| variant | forward us/op | backward us/op | total | over untraced |")
    print("|---|---:|---:|---:|---:|")
    for v in VARIANTS:
        f = statistics.median(x["fwd"] for x in results[v])
        b = statistics.median(x["bwd"] for x in results[v])
        total = statistics.median(x["fwd"] + x["bwd"] for x in results[v])
        print(f"| {v} | {f:.2f} | {b:.2f} | {total:.2f} | {total / base:.2f}x |")


if __name__ == "__main__":
    main()
