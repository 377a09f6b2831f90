"""GPU benchmarks (issue 17): autogradlab on CuPy against PyTorch CUDA and a hand-written CuPy floor.

    python benchmarks/gpu.py [--quick] [--gpu-only] [--markdown PATH] [--json PATH]

Workloads (float32):
  G1  one MLP training step (forward, backward, SGD update), batch 4096, 784-1024-1024-10 tanh,
      softmax cross-entropy: ms per step. The *floor* is the same step written by hand on raw arrays
      (matmuls, tanh, softmax and their derivatives), so it has no graph, no Tensor objects and no
      engine: the time a lab's own NumPy/CuPy code would need.
  G2  per-op overhead: a chain of 1,000 elementwise ops (mul, add, tanh) on a 1,024-element tensor,
      forward + backward: µs per node.
  G3  a Hessian-vector product, ``autograd.functional.hvp`` of f(w) = sum(tanh(X w)^2) / n with
      X 4096x1024: ms per product.
  M1  peak device memory during one G1 step, MiB (CuPy: a memory hook on the pool's allocations;
      torch: ``torch.cuda.max_memory_allocated``; NumPy: not measured).
  S1  host copies made by autogradlab during one G1 backward with nobody listening to events:
      device arrays copied by ``backend.to_host`` (the answer should be 0; on CPU machines the strict
      backend's counter in tests/test_host_transfers.py checks every route to the host).

Columns: autogradlab on "cpu" (NumPy), the hand-written floor on NumPy, autogradlab on "cuda"
(CuPy), the hand-written floor on CuPy, torch on "cuda". A column whose device or library is missing
says "not measured" with the reason, so the script runs (and is smoke-tested) on any machine; GPU
timings synchronise the device before reading the clock. Medians of ``--reps`` repetitions.
"""
from __future__ import annotations

import argparse
import json
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
from autogradlab import backend  # noqa: E402

COLUMNS = ("autogradlab cpu (NumPy)", "floor cpu (NumPy)", "autogradlab cuda (CuPy)", "floor cuda (CuPy)",
           "torch cuda")


# -- timing ---------------------------------------------------------------------------------

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


# -- G1: MLP step ---------------------------------------------------------------------------

def mlp_data(batch, sizes, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((batch, sizes[0])).astype(np.float32)
    Y = np.eye(sizes[-1], dtype=np.float32)[rng.integers(0, sizes[-1], batch)]
    Ws = [(rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32) for a, b in zip(sizes, sizes[1:])]
    return X, Y, Ws


def _mlp_phases(lib, x, y, params, batch):
    """One training step's three phases, written once for any library with PyTorch's API (autogradlab or
    torch): the forward (the loss), the backward, the SGD update."""
    state = {}

    def forward():
        h = x
        for i, w in enumerate(params):
            h = h @ w
            if i < len(params) - 1:
                h = h.tanh()
        state["loss"] = -(y * lib.log_softmax(h, 1)).sum() / batch

    def backward():
        state.pop("loss").backward()

    def update():
        with lib.no_grad():
            for p in params:
                p.sub_(p.grad * 0.01)
                p.grad = None
    return forward, backward, update


def _mlp_step(lib, x, y, params, batch):
    """The three phases as one training step."""
    forward, backward, update = _mlp_phases(lib, x, y, params, batch)

    def step():
        forward()
        backward()
        update()
    return step


def floor_mlp_step(xp, X, Y, Ws, batch, lr=0.01):
    """The same step by hand on raw arrays: forward, the chain rule written out, SGD."""
    def step():
        hs = [X]
        for i, w in enumerate(Ws):
            z = hs[-1] @ w
            hs.append(xp.tanh(z) if i < len(Ws) - 1 else z)
        logits = hs[-1]
        shifted = logits - logits.max(axis=1, keepdims=True)
        p = xp.exp(shifted)
        p /= p.sum(axis=1, keepdims=True)
        g = (p * Y.sum(axis=1, keepdims=True) - Y) / batch       # d loss / d logits
        for i in range(len(Ws) - 1, -1, -1):
            gw = hs[i].T @ g
            if i > 0:
                g = (g @ Ws[i].T) * (1 - hs[i] * hs[i])           # through tanh
            Ws[i] -= lr * gw
    return step


def g1_autogradlab(device, batch, sizes, reps):
    X, Y, Ws = mlp_data(batch, sizes)
    params = [ag.tensor(w, device=device, requires_grad=True) for w in Ws]
    step = _mlp_step(ag, ag.tensor(X, device=device), ag.tensor(Y, device=device), params, batch)
    return _median_ms(step, lambda: _sync(device), reps)


def g1_floor(device, batch, sizes, reps):
    xp = backend.xp_for(device)
    X, Y, Ws = mlp_data(batch, sizes)
    X, Y, Ws = xp.asarray(X), xp.asarray(Y), [xp.asarray(w) for w in Ws]
    return _median_ms(floor_mlp_step(xp, X, Y, Ws, batch), lambda: _sync(device), reps)


def g1_torch(batch, sizes, reps):
    import torch
    X, Y, Ws = mlp_data(batch, sizes)
    params = [torch.tensor(w, device="cuda", requires_grad=True) for w in Ws]
    step = _mlp_step(torch, torch.tensor(X, device="cuda"), torch.tensor(Y, device="cuda"), params, batch)
    return _median_ms(step, torch.cuda.synchronize, reps)


# -- G2: per-op overhead ----------------------------------------------------------------------

def _chain(x, n_ops):
    h = x
    for i in range(n_ops):
        h = h * 0.999 if i % 3 == 0 else (h + 0.001 if i % 3 == 1 else h.tanh())
    return h


def g2_chain(lib, device, n_ops, width, reps):
    start = np.linspace(-1, 1, width, dtype=np.float32)
    if lib == "torch":
        import torch
        x = torch.tensor(start, device="cuda", requires_grad=True)
        sync = torch.cuda.synchronize
    else:
        x = ag.tensor(start, device=device, requires_grad=True)
        sync = lambda: _sync(device)  # noqa: E731

    def run():
        _chain(x, n_ops).sum().backward()
        x.grad = None
    return _median_ms(run, sync, reps) * 1e3 / (n_ops + 1)


# -- G3: Hessian-vector product ---------------------------------------------------------------

def g3_hvp(lib, device, n, d, reps):
    rng = np.random.default_rng(1)
    X = (rng.standard_normal((n, d)) / np.sqrt(d)).astype(np.float32)
    w0 = rng.standard_normal(d).astype(np.float32)
    v0 = rng.standard_normal(d).astype(np.float32)
    if lib == "torch":
        import torch
        Xt, w, v = (torch.tensor(a, device="cuda") for a in (X, w0, v0))
        hvp, sync = torch.autograd.functional.hvp, torch.cuda.synchronize
    else:
        Xt, w, v = (ag.tensor(a, device=device) for a in (X, w0, v0))
        hvp, sync = ag.autograd.functional.hvp, (lambda: _sync(device))

    def f(w):
        return ((Xt @ w).tanh() ** 2).sum() / n
    return _median_ms(lambda: hvp(f, w, v), sync, reps)


# -- M1: peak device memory -------------------------------------------------------------------

def _cupy_peak_mib(fn):
    """Peak bytes handed out by CuPy's pool while ``fn`` runs (a hook on every malloc and free)."""
    import cupy

    class Peak(cupy.cuda.MemoryHook):
        name = "autogradlab-peak"

        def __init__(self):
            self.used = self.peak = 0

        def malloc_postprocess(self, **kw):
            self.used += kw["mem_size"]
            self.peak = max(self.peak, self.used)

        def free_postprocess(self, **kw):
            self.used -= kw["mem_size"]

    cupy.cuda.Device().synchronize()
    hook = Peak()
    with hook:
        fn()
        cupy.cuda.Device().synchronize()
    return hook.peak / 2**20


def m1_autogradlab(batch, sizes):
    X, Y, Ws = mlp_data(batch, sizes)
    params = [ag.tensor(w, device="cuda", requires_grad=True) for w in Ws]
    x, y = ag.tensor(X, device="cuda"), ag.tensor(Y, device="cuda")
    step = _mlp_step(ag, x, y, params, batch)
    step()                                   # warm-up; inputs and weights stay allocated
    return _cupy_peak_mib(step)


def m1_floor(batch, sizes):
    import cupy
    X, Y, Ws = mlp_data(batch, sizes)
    X, Y, Ws = cupy.asarray(X), cupy.asarray(Y), [cupy.asarray(w) for w in Ws]
    step = floor_mlp_step(cupy, X, Y, Ws, batch)
    step()
    return _cupy_peak_mib(step)


def m1_torch(batch, sizes):
    import torch
    X, Y, Ws = mlp_data(batch, sizes)
    params = [torch.tensor(w, device="cuda", requires_grad=True) for w in Ws]
    step = _mlp_step(torch, torch.tensor(X, device="cuda"), torch.tensor(Y, device="cuda"), params, batch)
    step()
    torch.cuda.synchronize()
    base = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    step()
    torch.cuda.synchronize()
    # the same convention as the CuPy hook: what the step allocates on top of what already lived
    return (torch.cuda.max_memory_allocated() - base) / 2**20


# -- S1: host copies during backward ------------------------------------------------------------

def s1_host_copies(device, batch, sizes):
    """How many device arrays ``backend.to_host`` copies during one backward with no trace active.

    (Host arrays passing through it are not copies and are not counted; implicit conversions such as
    ``float(a)`` are counted on CPU machines by tests/test_host_transfers.py on the strict backend.)"""
    X, Y, Ws = mlp_data(batch, sizes)
    params = [ag.tensor(w, device=device, requires_grad=True) for w in Ws]
    h = ag.tensor(X, device=device)
    for i, w in enumerate(params):
        h = h @ w
        h = h.tanh() if i < len(params) - 1 else h
    loss = -(ag.tensor(Y, device=device) * ag.log_softmax(h, 1)).sum() / batch
    calls = [0]
    original = backend.to_host

    def counting(array):
        calls[0] += not isinstance(array, np.ndarray)
        return original(array)
    backend.to_host = counting
    try:
        loss.backward()
        _sync(device)
    finally:
        backend.to_host = original
    return float(calls[0])


# -- the table --------------------------------------------------------------------------------

def cuda_reason():
    try:
        backend.xp_for("cuda:0")
        return None
    except RuntimeError as exc:
        return str(exc).split(".")[0]


def torch_cuda_reason():
    try:
        import torch
    except ImportError:
        return "torch not installed"
    return None if torch.cuda.is_available() else f"torch {torch.__version__} sees no CUDA device"


def machine_line():
    parts = [f"{platform.processor() or platform.machine()}", f"Python {platform.python_version()}",
             f"NumPy {np.__version__}"]
    try:
        import cupy
        props = cupy.cuda.runtime.getDeviceProperties(0)
        parts += [f"GPU {props['name'].decode()}", f"driver {cupy.cuda.runtime.driverGetVersion()}",
                  f"CUDA runtime {cupy.cuda.runtime.runtimeGetVersion()}", f"CuPy {cupy.__version__}"]
    except Exception:  # noqa: BLE001 - no CuPy or no GPU: the table says why per column
        pass
    try:
        import torch
        parts.append(f"torch {torch.__version__}")
    except ImportError:
        pass
    return ", ".join(parts) + f", {time.strftime('%Y-%m-%d')}"


def run(quick=False, gpu_only=False):
    """Measure every row; returns ``[(row name, {column: float or reason string})]``.

    ``gpu_only`` leaves the NumPy columns out (a reason instead), for a lent GPU machine's short lease.
    """
    if quick:
        batch, sizes, reps, n_ops, width, hvp_n, hvp_d = 64, [32, 64, 64, 10], 3, 30, 16, 64, 32
    else:
        batch, sizes, reps, n_ops, width, hvp_n, hvp_d = 4096, [784, 1024, 1024, 10], 10, 1000, 1024, 4096, 1024
    no_cuda, no_torch = cuda_reason(), torch_cuda_reason()
    no_cpu = "left out (--gpu-only)" if gpu_only else None
    na = "no such column for this row"

    def col(reason, fn):
        return reason if reason else fn()

    rows = [
        (f"G1 MLP step, batch {batch}, {'-'.join(map(str, sizes))}, ms", {
            COLUMNS[0]: col(no_cpu, lambda: g1_autogradlab("cpu", batch, sizes, reps)),
            COLUMNS[1]: col(no_cpu, lambda: g1_floor("cpu", batch, sizes, reps)),
            COLUMNS[2]: col(no_cuda, lambda: g1_autogradlab("cuda", batch, sizes, reps)),
            COLUMNS[3]: col(no_cuda, lambda: g1_floor("cuda", batch, sizes, reps)),
            COLUMNS[4]: col(no_torch, lambda: g1_torch(batch, sizes, reps))}),
        (f"G2 elementwise chain, {n_ops} ops on {width} elements, µs/node (fwd+bwd)", {
            COLUMNS[0]: col(no_cpu, lambda: g2_chain("ag", "cpu", n_ops, width, reps)),
            COLUMNS[1]: na,
            COLUMNS[2]: col(no_cuda, lambda: g2_chain("ag", "cuda", n_ops, width, reps)),
            COLUMNS[3]: na,
            COLUMNS[4]: col(no_torch, lambda: g2_chain("torch", "cuda", n_ops, width, reps))}),
        (f"G3 Hessian-vector product, X {hvp_n}x{hvp_d}, ms", {
            COLUMNS[0]: col(no_cpu, lambda: g3_hvp("ag", "cpu", hvp_n, hvp_d, reps)),
            COLUMNS[1]: na,
            COLUMNS[2]: col(no_cuda, lambda: g3_hvp("ag", "cuda", hvp_n, hvp_d, reps)),
            COLUMNS[3]: na,
            COLUMNS[4]: col(no_torch, lambda: g3_hvp("torch", "cuda", hvp_n, hvp_d, reps))}),
        ("M1 peak device memory during one G1 step, MiB", {
            COLUMNS[0]: "host memory is not device memory",
            COLUMNS[1]: "host memory is not device memory",
            COLUMNS[2]: col(no_cuda, lambda: m1_autogradlab(batch, sizes)),
            COLUMNS[3]: col(no_cuda, lambda: m1_floor(batch, sizes)),
            COLUMNS[4]: col(no_torch, lambda: m1_torch(batch, sizes))}),
        ("S1 host copies during one G1 backward, nobody listening", {
            COLUMNS[0]: "no device here (tests/test_host_transfers.py counts it on the strict backend)",
            COLUMNS[1]: na,
            COLUMNS[2]: col(no_cuda, lambda: s1_host_copies("cuda", batch, sizes)),
            COLUMNS[3]: na,
            COLUMNS[4]: "not counted for torch"}),
    ]
    return rows


def _cell(v):
    if isinstance(v, float):
        return f"{v:.0f}" if v == int(v) and v < 1e4 else f"{v:.3g}"
    return f"not measured: {v}"


def markdown(rows):
    lines = [f"Machine: {machine_line()}", "",
             "| workload | " + " | ".join(COLUMNS) + " |", "|---|" + "---:|" * len(COLUMNS)]
    for name, vals in rows:
        lines.append(f"| {name} | " + " | ".join(_cell(vals[c]) for c in COLUMNS) + " |")
    g1 = rows[0][1]
    if all(isinstance(g1[c], float) for c in COLUMNS[2:]):
        lines += ["", f"G1 ratios: autogradlab cuda / torch cuda = {g1[COLUMNS[2]] / g1[COLUMNS[4]]:.2f}, "
                      f"autogradlab cuda / CuPy floor = {g1[COLUMNS[2]] / g1[COLUMNS[3]]:.2f}"]
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes and few repetitions (smoke test)")
    ap.add_argument("--gpu-only", action="store_true", help="leave out the NumPy columns (a GPU lease is short)")
    ap.add_argument("--markdown", help="also write the table to this file")
    ap.add_argument("--json", help="also write the raw numbers to this file")
    args = ap.parse_args(argv)
    rows = run(quick=args.quick, gpu_only=args.gpu_only)
    text = markdown(rows)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": machine_line(), "rows": [{"workload": n, **v} for n, v in rows]}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
