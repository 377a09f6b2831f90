"""Where a backward node's microseconds go: the W1 chain's backward split into its parts.

    python benchmarks/backward_breakdown.py              # 2,000-op W1 chain, best of 40 per part
    python benchmarks/backward_breakdown.py --ops 6000 --reps 20

Each part is timed on its own over a freshly built graph (CPU time, the best of ``--reps``:
on a shared machine the minimum is the least disturbed), divided by the number of nodes:

* ``backward()``: the whole pass, as a user calls it;
* plan: the walk from the root counting each node's incoming edges (``engine._plan``);
* checks: the before-any-work checks (nothing freed, no saved tensor modified: ``check_runnable``);
* VJPs: every node's ``Node.apply`` (its vector-Jacobian product on arrays, fitted to the inputs'
  shapes and dtypes), called in run order with a gradient of the output's shape;
* of which the NumPy math: the hand-written NumPy backward of the same chain (the "numpy floor");
* freeing: every node's ``free_saved`` (dropping what it saved, ``retain_graph=False``);
* the rest of ``backward()``: argument checks and seeding, the ready queue, pending buffers,
  dependency counts, accumulating into ``.grad``.

A measurement, not a test; it reads the engine's internals, so it follows them as they change.
"""
import argparse
import gc
import os
import sys
import time

for _v in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))   # the working tree's autogradlab first

import numpy as np  # noqa: E402

import autogradlab as ag  # noqa: E402
from autogradlab import engine  # noqa: E402
from autogradlab.arguments import check_runnable  # noqa: E402
from autogradlab.grad_mode import state  # noqa: E402
from autogradlab.graph_walk import node_of, run_order  # noqa: E402

MUL, ADD = 0.999, 0.001


def chain(n):
    """The W1 chain: ``h*0.999``, ``h+0.001``, ``tanh(h)`` in turn on one float32 element, then sum."""
    x = ag.tensor(np.array([0.5], dtype=np.float32), requires_grad=True)
    h = x
    for i in range(n):
        h = h * MUL if i % 3 == 0 else h + ADD if i % 3 == 1 else h.tanh()
    return x, h.sum()


def numpy_backward(n):
    """The same chain's backward written by hand (forward values precomputed, not timed)."""
    h, saved = np.array([0.5], dtype=np.float32), {}
    for i in range(n):
        h = h * np.float32(MUL) if i % 3 == 0 else h + np.float32(ADD) if i % 3 == 1 else np.tanh(h)
        saved[i] = h
    a = np.float32(MUL)

    def run():
        g = np.ones(1, dtype=np.float32)
        for i in range(n - 1, -1, -1):
            if i % 3 == 0:
                g = g * a
            elif i % 3 == 2:
                t = saved[i]
                g = g - g * t * t
        return g
    return run


def timed(prepare, part, n, reps):
    """Best CPU time of ``part(prepare(y))`` over ``reps`` fresh graphs (``y`` the chain's output,
    preparation not timed), in microseconds per node."""
    best = float("inf")
    for _ in range(reps):
        x, y = chain(n)
        work = prepare(y)
        gc.collect()
        t0 = time.process_time()
        part(work)
        best = min(best, time.process_time() - t0)
        del x, y, work
    return best * 1e6 / (n + 1)


def plan_of(y):
    return engine._plan([node_of(y)], None)


def vjp_work(y):
    """(node, a gradient of its output's shape) for every op node, in the order a pass runs them."""
    root = node_of(y)
    return [(node, np.ones(node._out_meta[1], dtype=node._out_meta[2]))
            for node in run_order(plan_of(y), [root]) if node.priority]


def apply_all(work):
    enabled = state.grad_enabled
    state.grad_enabled = False     # as inside a pass without create_graph
    try:
        for node, g in work:
            node.apply(g)
    finally:
        state.grad_enabled = enabled


def free_all(nodes):
    for node in nodes:
        node.free_saved()


PARTS = (
    ("backward()", lambda y: y, lambda y: y.backward()),
    ("plan", lambda y: node_of(y), lambda root: engine._plan([root], None)),
    ("checks", plan_of, lambda plan: check_runnable(plan, None, True)),
    ("VJPs (Node.apply)", vjp_work, apply_all),
    ("freeing saved tensors", lambda y: plan_of(y).nodes, free_all),
)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ops", type=int, default=2000)
    ap.add_argument("--reps", type=int, default=40)
    args = ap.parse_args()
    n, reps = args.ops, args.reps
    results = {name: timed(prepare, part, n, reps) for name, prepare, part in PARTS}
    floor, best = numpy_backward(n), float("inf")
    for _ in range(reps):
        t0 = time.process_time()
        floor()
        best = min(best, time.process_time() - t0)
    parts = ("plan", "checks", "VJPs (Node.apply)", "freeing saved tensors")
    results["the rest: seeding, ready queue, buffers, dependency counts, .grad"] = \
        results["backward()"] - sum(results[k] for k in parts)
    results["(inside the VJPs: the same math by hand in NumPy, the floor)"] = best * 1e6 / (n + 1)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"W1 chain of {n} ops, best of {reps}, CPU time per backward node; load average {load:.2f}; "
          f"autogradlab from {os.path.dirname(os.path.dirname(os.path.abspath(ag.__file__)))}")
    for name, us in results.items():
        print(f"  {us:6.2f} us  {name}")


if __name__ == "__main__":
    main()
