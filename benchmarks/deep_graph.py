"""Deep graphs: a long chain forward and backward (no recursion anywhere, memory linear in length).

    python benchmarks/deep_graph.py                 # 100,000-op chain, then a 1,000,000-node backward
    python benchmarks/deep_graph.py --sizes 1e5     # just the 100k chain

Prints CPU seconds for the forward and the backward, the RSS the graph holds (MiB, and bytes per
node), and the machine's load average. A measurement, not a test: the 100k chain is also a unit
test (tests/test_engine_contract.py), without timing.
"""
import argparse
import os
import time

for _v in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import autogradlab as ag  # noqa: E402


def rss_mib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def chain(n):
    """``n`` elementwise nodes on a one-element tensor (add and mul by constants, alternating)."""
    x = ag.tensor([0.5], requires_grad=True)
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
    return t1 - t0, t2 - t1, held


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1e5,1e6", help="comma list of chain lengths")
    args = ap.parse_args()
    print(f"load average: {os.getloadavg()[0]:.2f} (1 min); autogradlab {ag.__version__}")
    for n in (int(float(s)) for s in args.sizes.split(",")):
        fwd, bwd, held = chain(n)
        print(f"{n:>9,} nodes: forward {fwd:6.2f} s CPU, backward {bwd:6.2f} s CPU, graph holds "
              f"{held:7.1f} MiB ({held * 2**20 / n:.0f} B/node)")


if __name__ == "__main__":
    main()
