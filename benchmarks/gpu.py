"""GPU benchmarks (issue 8): autogradlab on CuPy vs NumPy, and vs PyTorch CUDA where installed.

    python benchmarks/gpu.py [--quick] [--markdown PATH]

Workloads:
  G1  one MLP training step (forward, backward, SGD update), batch 4096, 784-1024-1024-10 tanh,
      softmax cross-entropy, float32: ms per step.
  G2  per-op overhead on tiny tensors: a chain of 300 elementwise ops (mul, add, tanh) on a
      1-element float32 tensor, forward + backward: µs per node.

Columns: autogradlab on "cpu" (NumPy), autogradlab on "cuda" (CuPy), torch on "cuda". A column
whose device or library is missing is reported as "not measured" with the reason, so the script
runs everywhere; GPU timings synchronise the device before reading the clock.
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import autogradlab as ag  # noqa: E402


def _sync(device):
    if device.startswith("cuda"):
        import cupy
        cupy.cuda.Device().synchronize()


def _median_ms(fn, sync, reps, warmup=2):
    for _ in range(warmup):
        fn()
        sync()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def mlp_data(batch, sizes, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((batch, sizes[0])).astype(np.float32)
    Y = np.eye(sizes[-1], dtype=np.float32)[rng.integers(0, sizes[-1], batch)]
    Ws = [(rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32) for a, b in zip(sizes, sizes[1:])]
    return X, Y, Ws


def _mlp_step(lib, x, y, params, batch):
    """One training step, written once for any library with PyTorch's API (autogradlab or torch)."""
    def step():
        h = x
        for i, w in enumerate(params):
            h = h @ w
            if i < len(params) - 1:
                h = h.tanh()
        loss = -(y * lib.log_softmax(h, 1)).sum() / batch
        loss.backward()
        with lib.no_grad():
            for p in params:
                p.sub_(p.grad * 0.01)
                p.grad = None
    return step


def g1_autogradlab(device, batch, sizes, reps):
    X, Y, Ws = mlp_data(batch, sizes)
    params = [ag.tensor(w, device=device, requires_grad=True) for w in Ws]
    step = _mlp_step(ag, ag.tensor(X, device=device), ag.tensor(Y, device=device), params, batch)
    return _median_ms(step, lambda: _sync(device), reps)


def g1_torch(batch, sizes, reps):
    import torch
    X, Y, Ws = mlp_data(batch, sizes)
    params = [torch.tensor(w, device="cuda", requires_grad=True) for w in Ws]
    step = _mlp_step(torch, torch.tensor(X, device="cuda"), torch.tensor(Y, device="cuda"), params, batch)
    return _median_ms(step, torch.cuda.synchronize, reps)


def g2_chain(lib, device, n_ops, reps):
    if lib == "torch":
        import torch
        x = torch.tensor([0.5], device="cuda", requires_grad=True)
        sync = torch.cuda.synchronize
    else:
        x = ag.tensor(np.array([0.5], dtype=np.float32), device=device, requires_grad=True)
        sync = lambda: _sync(device)  # noqa: E731

    def run():
        h = x
        for i in range(n_ops):
            h = h * 0.999 if i % 3 == 0 else (h + 0.001 if i % 3 == 1 else h.tanh())
        h.sum().backward()
        x.grad = None
    return _median_ms(run, sync, reps) * 1e3 / (n_ops + 1)


def cuda_reason():
    try:
        ag.backend.xp_for("cuda:0")
        return None
    except RuntimeError as exc:
        return str(exc).split(".")[0]


def torch_cuda_reason():
    try:
        import torch
    except ImportError:
        return "torch not installed"
    return None if torch.cuda.is_available() else f"torch {torch.__version__} sees no CUDA device"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes and few repetitions (smoke test)")
    ap.add_argument("--markdown", help="also write the table to this file")
    args = ap.parse_args(argv)
    batch, sizes, reps, n_ops = (64, [32, 64, 64, 10], 3, 30) if args.quick else (4096, [784, 1024, 1024, 10], 20, 300)

    rows = []
    no_cuda, no_torch = cuda_reason(), torch_cuda_reason()
    g1 = {"autogradlab cpu (NumPy)": g1_autogradlab("cpu", batch, sizes, reps),
          "autogradlab cuda (CuPy)": no_cuda or g1_autogradlab("cuda", batch, sizes, reps),
          "torch cuda": no_torch or g1_torch(batch, sizes, reps)}
    g2 = {"autogradlab cpu (NumPy)": g2_chain("ag", "cpu", n_ops, reps),
          "autogradlab cuda (CuPy)": no_cuda or g2_chain("ag", "cuda", n_ops, reps),
          "torch cuda": no_torch or g2_chain("torch", "cuda", n_ops, reps)}
    rows.append((f"G1 MLP step, batch {batch}, {'-'.join(map(str, sizes))}, ms", g1))
    rows.append((f"G2 per-op overhead, {n_ops}-op chain on 1 element, µs/node (fwd+bwd)", g2))

    cols = list(g1)
    lines = [f"Machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}, "
             f"NumPy {np.__version__}, {time.strftime('%Y-%m-%d')}", "",
             "| workload | " + " | ".join(cols) + " |", "|---|" + "---:|" * len(cols)]
    for name, vals in rows:
        lines.append(f"| {name} | " + " | ".join(f"{v:.3g}" if isinstance(v, float) else f"not measured: {v}"
                                                  for v in vals.values()) + " |")
    text = "\n".join(lines)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
