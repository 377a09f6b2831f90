"""The workloads, written once against the adapter interface of ``frameworks.py``.

=====  ================  ==========================================================================
id     name              what is timed / measured
=====  ================  ==========================================================================
W1     chain             2000 elementwise ops on a 1-element float32 tensor, cycling ``h*0.999``,
                         ``h+0.001``, ``tanh(h)``, then ``sum``: µs per op, forward and backward
W2     mlp               784-256-10 tanh MLP, softmax cross-entropy ``-(Y*log_softmax(z)).sum()/B``,
                         batch 128, float32: ms per step (fwd+bwd), and fwd / bwd
W3     fan-in            leaves ``x``, ``w``; 200 branches ``tanh(x*c_i + w) * x`` summed into one
                         loss (``x`` gets 400 gradient contributions, ``w`` 200): ms fwd and bwd
W4     memory            the W1 chain, 500 ops, on a 1e6-element float32 array: RSS (MiB) of the graph,
                         peak of one backward, what is still held after it, peak of a 2-step loop;
                         retain_graph False and True
W5     hvp               Hessian-vector product of an MSE loss of a 32-64-1 tanh MLP, batch 64, via
                         ``grad(create_graph=True)`` then grad of ``<g, v>``: ms per HVP
W6     trace             (autogradlab only) W1 and W2 under ``with autogradlab.trace():`` vs untraced
W7     viz               (autogradlab only) draw a ~100-node graph (and render it to SVG), build the
                         player of its backward pass, step the player one frame
=====  ================  ==========================================================================

Every workload first runs once untimed and records a *checksum* of all its
gradients (a fixed pseudo-random weighted sum of every entry, plus the sum of
absolute terms as a scale); the runner compares it with torch's, so a column
that is fast because it computes something else shows MISMATCH.

``numpy_w1`` .. ``numpy_w3`` are the hand-written NumPy forward+backward of
W1-W3 (the "numpy floor" column, also the reference of the smoke test).
"""
from __future__ import annotations

import contextlib
import gc
import importlib
import shutil
import statistics
import time

import numpy as np

from frameworks import Unsupported

F32 = np.float32

#: Every timed region reads both clocks: the process's CPU time and wall time (``pc()`` returns a
#: :class:`Reading`; subtracting two gives a :class:`Span`), and :func:`phase` summarises each.
#: ``set_clock`` picks the *primary* one, the value a Reading or Span has as a float (what the
#: main tables and the targets use): "cpu" (default) is not inflated while other processes hold
#: the cores (the 2-core development machine is shared; a preempted 2 ms step would otherwise read
#: 10 ms) and with 1 BLAS thread equals wall time on an idle machine; "wall" is time.perf_counter.
#: Budgets (how long to keep repeating) always use wall time.
CLOCKS = ("cpu", "wall")
PRIMARY = "cpu"
wall = time.perf_counter


class Span(float):
    """How long a timed region took: a float on the primary clock, with ``.cpu`` and ``.wall``
    (seconds). Arithmetic on Spans (sums, ratios) gives plain floats on the primary clock."""

    def __new__(cls, cpu, wall_s):
        span = float.__new__(cls, cpu if PRIMARY == "cpu" else wall_s)
        span.cpu, span.wall = cpu, wall_s
        return span


class Reading(Span):
    """Both clocks read at one instant; ``end - start`` is a :class:`Span`."""

    def __sub__(self, other):
        if isinstance(other, Reading):
            return Span(self.cpu - other.cpu, self.wall - other.wall)
        return float(self) - other


def pc():
    """Read both clocks (wall around CPU, so a region's wall time contains its CPU time)."""
    w = time.perf_counter()
    return Reading(time.process_time(), w)


def set_clock(name):
    global PRIMARY
    if name not in CLOCKS:
        raise ValueError(f"unknown clock {name!r}; known: {', '.join(CLOCKS)}")
    PRIMARY = name

CHAIN_MUL = 0.999   # h*0.999, h+0.001, tanh(h): the value stays near 0.14 and the
CHAIN_ADD = 0.001   # gradient after 2000 ops stays representable in float32

SIZES = {
    "full": {"w1_ops": 2000, "w2_batch": 128, "w2_dims": (784, 256, 10), "w3_branches": 200,
             "w4_size": 1_000_000, "w4_ops": 500, "w5_batch": 64, "w5_dims": (32, 64, 1), "w7_branches": 10},
    "quick": {"w1_ops": 300, "w2_batch": 16, "w2_dims": (784, 64, 10), "w3_branches": 40,
              "w4_size": 100_000, "w4_ops": 60, "w5_batch": 16, "w5_dims": (8, 16, 1), "w7_branches": 10},
}


class Budget:
    """Warm-up runs, then repetitions until ``min_reps`` are done and ``seconds`` have passed
    (never more than ``max_reps``)."""

    def __init__(self, warmup, min_reps, max_reps, seconds):
        self.warmup, self.min_reps, self.max_reps, self.seconds = warmup, min_reps, max_reps, seconds


BUDGETS = {
    "full": {"W1": Budget(2, 10, 300, 5.0), "W2": Budget(5, 20, 2000, 5.0), "W3": Budget(2, 10, 300, 4.0),
             "W4": Budget(0, 3, 3, 0.0), "W5": Budget(5, 20, 2000, 4.0), "W6": Budget(2, 10, 300, 6.0),
             "W7": Budget(1, 5, 100, 3.0)},
    "quick": {w: Budget(1, 3, 3, 0.0) for w in ("W1", "W2", "W3", "W5", "W6", "W7")} | {"W4": Budget(0, 1, 1, 0.0)},
}


# ------------------------------------------------------------------------------- helpers
def measure(once, budget):
    """Call ``once()`` (returns {phase: seconds}) repeatedly; warm-up calls are discarded.

    A full ``gc.collect()`` runs before every call, outside the timed region, so
    garbage of the previous graph (e.g. micrograd's closure cycles) is not charged
    to the next one. The collector stays enabled inside the timed region: the
    collections a framework's own allocations trigger are part of its cost."""
    for _ in range(budget.warmup):
        gc.collect()
        once()
    samples = []
    start = wall()
    while len(samples) < budget.max_reps and (len(samples) < budget.min_reps or wall() - start < budget.seconds):
        gc.collect()
        samples.append(once())
    return samples


def summarize(values, scale=1.0):
    vals = sorted(v * scale for v in values)
    q = statistics.quantiles(vals, n=4) if len(vals) >= 2 else [vals[0]] * 3
    return {"median": statistics.median(vals), "q1": q[0], "q3": q[2], "min": vals[0], "max": vals[-1],
            "n": len(vals)}


def phase(samples, key, scale=1.0):
    """Summary of one phase on the primary clock, plus ``cpu`` and ``wall`` summaries when the
    samples are Spans (they are for every region timed with ``pc()``)."""
    vals = [s[key] for s in samples]
    out = summarize(vals, scale)
    if vals and all(isinstance(v, Span) for v in vals):
        out["cpu"] = summarize([v.cpu for v in vals], scale)
        out["wall"] = summarize([v.wall for v in vals], scale)
    return out


def checksum(grads, output=None):
    """A weighted sum of every gradient entry (weights: fixed pseudo-random normals) and its scale
    (the sum of absolute terms), so two frameworks can be compared with a relative tolerance
    even when the weighted sum itself is near 0."""
    total, scale, shapes = 0.0, 0.0, []
    for k, g in enumerate(grads):
        a = np.asarray(g, dtype=np.float64)
        w = np.random.default_rng(1000 + k).standard_normal(a.shape)
        total += float((a * w).sum())
        scale += float(np.abs(a * w).sum())
        shapes.append(list(a.shape))
    out = {"checksum": total, "scale": scale, "shapes": shapes}
    if output is not None:
        out["output"] = float(output)
    return out


def compare(check, ref, tol):
    """(ok, relative error) of one checksum against a reference checksum."""
    if check is None or ref is None:
        return None, None
    if check.get("shapes") != ref.get("shapes"):
        return False, float("inf")
    err = abs(check["checksum"] - ref["checksum"]) / max(ref["scale"], 1e-30)
    return err <= tol, err


def need_tensors(ad, what):
    if ad.scalar_only:
        raise Unsupported(f"scalar-only engine: {what}")


def only_autogradlab(ad):
    if ad.name != "autogradlab":
        raise Unsupported("autogradlab-only workload")


# ---------------------------------------------------------------------------- W1 chain
def chain_fn(ad, n_ops):
    a, b = ad.scalar(CHAIN_MUL), ad.scalar(CHAIN_ADD)
    tanh, sum_ = ad.tanh, ad.sum

    def fn(params):
        h = params[0]
        for i in range(n_ops):
            r = i % 3
            if r == 0:
                h = h * a
            elif r == 1:
                h = h + b
            else:
                h = tanh(h)
        return sum_(h)

    return fn


def w1_x():
    return np.array([0.5], dtype=F32)


def _fwd_bwd(ad, fn, params):
    def once():
        t0 = pc()
        h = ad.forward(fn, params)
        t1 = pc()
        ad.backward(h, params)
        t2 = pc()
        return {"fwd": t1 - t0, "bwd": t2 - t1, "step": t2 - t0}
    return once


def _first_check(ad, fn, params):
    h = ad.forward(fn, params)
    out = ad.output(h)
    return checksum(ad.backward(h, params), out)


def w1_chain(ad, sz, budget):
    n = sz["w1_ops"]
    fn = chain_fn(ad, n)
    params = [ad.param(w1_x())]
    check = _first_check(ad, fn, params)
    s = measure(_fwd_bwd(ad, fn, params), budget)
    return {"metrics": {"fwd_us_per_node": phase(s, "fwd", 1e6 / n), "bwd_us_per_node": phase(s, "bwd", 1e6 / n),
                        "total_ms": phase(s, "step", 1e3)},
            "check": check, "params": {"n_ops": n, "per": "op of the chain (the final sum is not counted)"}}


def numpy_w1(sz, budget):
    n = sz["w1_ops"]
    a, b = F32(CHAIN_MUL), F32(CHAIN_ADD)
    x = w1_x()

    def fwd():
        saved = [None] * n
        h = x
        for i in range(n):
            r = i % 3
            if r == 0:
                h = h * a
            elif r == 1:
                h = h + b
            else:
                h = np.tanh(h)
                saved[i] = h
        return h.sum(), saved

    def bwd(saved):
        g = np.ones_like(x)
        for i in range(n - 1, -1, -1):
            r = i % 3
            if r == 0:
                g = g * a
            elif r == 2:
                t = saved[i]
                g = g * (1 - t * t)
        return [g]

    out, saved = fwd()
    check = checksum(bwd(saved), out)

    def once():
        t0 = pc()
        _, saved = fwd()
        t1 = pc()
        bwd(saved)
        t2 = pc()
        return {"fwd": t1 - t0, "bwd": t2 - t1, "step": t2 - t0}

    s = measure(once, budget)
    return {"metrics": {"fwd_us_per_node": phase(s, "fwd", 1e6 / n), "bwd_us_per_node": phase(s, "bwd", 1e6 / n),
                        "total_ms": phase(s, "step", 1e3)},
            "check": check, "params": {"n_ops": n}}


# ------------------------------------------------------------------------------ W2 MLP
def w2_data(sz):
    batch, (d_in, d_hidden, d_out) = sz["w2_batch"], sz["w2_dims"]
    rng = np.random.default_rng(0)
    X = rng.standard_normal((batch, d_in)).astype(F32)
    Y = np.eye(d_out, dtype=F32)[rng.integers(0, d_out, batch)]
    init = [(rng.standard_normal((d_in, d_hidden)) / np.sqrt(d_in)).astype(F32),
            (0.01 * rng.standard_normal(d_hidden)).astype(F32),
            (rng.standard_normal((d_hidden, d_out)) / np.sqrt(d_hidden)).astype(F32),
            (0.01 * rng.standard_normal(d_out)).astype(F32)]
    return X, Y, init


def mlp_fn(ad, X, Y):
    """The W2 loss ``-(Y * log_softmax(tanh(X@W1+b1)@W2+b2)).sum() / B`` as ``fn(params)``."""
    Xc, Yc = ad.const(X), ad.const(Y)
    neg_inv_b = ad.scalar(-1.0 / X.shape[0])

    def fn(p):
        w1, b1, w2, b2 = p
        h = ad.tanh(Xc @ w1 + b1)
        logits = h @ w2 + b2
        return ad.sum(Yc * ad.log_softmax(logits)) * neg_inv_b

    return fn


def w2_mlp(ad, sz, budget):
    need_tensors(ad, "an MLP on a batch would be millions of scalar nodes")
    X, Y, init = w2_data(sz)
    fn = mlp_fn(ad, X, Y)
    params = [ad.param(a) for a in init]
    check = _first_check(ad, fn, params)
    s = measure(_fwd_bwd(ad, fn, params), budget)
    return {"metrics": {"step_ms": phase(s, "step", 1e3), "fwd_ms": phase(s, "fwd", 1e3),
                        "bwd_ms": phase(s, "bwd", 1e3)},
            "check": check, "params": {"batch": sz["w2_batch"], "dims": list(sz["w2_dims"])}}


def numpy_w2_forward(X, Y, W1, b1, W2, b2):
    """Hand-written forward of the W2 loss; returns (loss, what the backward needs)."""
    h = np.tanh(X @ W1 + b1)
    z = h @ W2 + b2
    m = z.max(axis=1, keepdims=True)
    e = np.exp(z - m)
    s = e.sum(axis=1, keepdims=True)
    lsm = z - m - np.log(s)
    return -(Y * lsm).sum() / X.shape[0], (h, e, s)


def numpy_w2_backward(X, Y, W2, saved):
    """Hand-written backward of the W2 loss; returns [dW1, db1, dW2, db2]."""
    h, e, s = saved
    g = Y * F32(-1.0 / X.shape[0])            # d loss / d log_softmax
    dz = g - (e / s) * g.sum(axis=1, keepdims=True)
    dW2 = h.T @ dz
    db2 = dz.sum(axis=0)
    dpre = (dz @ W2.T) * (1 - h * h)
    return [X.T @ dpre, dpre.sum(axis=0), dW2, db2]


def numpy_w2(sz, budget):
    X, Y, (W1, b1, W2, b2) = w2_data(sz)
    loss, saved = numpy_w2_forward(X, Y, W1, b1, W2, b2)
    check = checksum(numpy_w2_backward(X, Y, W2, saved), loss)

    def once():
        t0 = pc()
        _, saved = numpy_w2_forward(X, Y, W1, b1, W2, b2)
        t1 = pc()
        numpy_w2_backward(X, Y, W2, saved)
        t2 = pc()
        return {"fwd": t1 - t0, "bwd": t2 - t1, "step": t2 - t0}

    s = measure(once, budget)
    return {"metrics": {"step_ms": phase(s, "step", 1e3), "fwd_ms": phase(s, "fwd", 1e3),
                        "bwd_ms": phase(s, "bwd", 1e3)}, "check": check,
            "params": {"batch": sz["w2_batch"], "dims": list(sz["w2_dims"])}}


# --------------------------------------------------------------------------- W3 fan-in
def w3_data(sz):
    rng = np.random.default_rng(3)
    cs = [np.array([c], dtype=F32) for c in rng.uniform(-1.0, 1.0, sz["w3_branches"])]
    return cs, np.array([0.5], dtype=F32), np.array([0.2], dtype=F32)


def w3_fn(ad, cs):
    """``sum_i tanh(x * c_i + w) * x`` as ``fn([x, w])``."""
    tanh, sum_ = ad.tanh, ad.sum

    def fn(p):
        x, w = p
        total = None
        for c in cs:
            br = tanh(x * c + w) * x
            total = br if total is None else total + br
        return sum_(total)

    return fn


def w3_fanin(ad, sz, budget):
    cs_np, x0, w0 = w3_data(sz)
    fn = w3_fn(ad, [ad.const(c) for c in cs_np])
    params = [ad.param(x0), ad.param(w0)]
    check = _first_check(ad, fn, params)
    s = measure(_fwd_bwd(ad, fn, params), budget)
    k = sz["w3_branches"]
    return {"metrics": {"fwd_ms": phase(s, "fwd", 1e3), "bwd_ms": phase(s, "bwd", 1e3)},
            "check": check, "params": {"branches": k, "nodes": 5 * k}}


def numpy_w3(sz, budget):
    cs, x, w = w3_data(sz)

    def fwd():
        total, saved = None, []
        for c in cs:
            t = np.tanh(x * c + w)
            saved.append(t)
            br = t * x
            total = br if total is None else total + br
        return total.sum(), saved

    def bwd(saved):
        gx = np.zeros_like(x)
        gw = np.zeros_like(w)
        for c, t in zip(cs, saved):
            dz = x * (1 - t * t)     # d(br)/dz with br = tanh(z) * x
            gx = gx + t + dz * c     # x appears twice per branch
            gw = gw + dz
        return [gx, gw]

    out, saved = fwd()
    check = checksum(bwd(saved), out)

    def once():
        t0 = pc()
        _, saved = fwd()
        t1 = pc()
        bwd(saved)
        t2 = pc()
        return {"fwd": t1 - t0, "bwd": t2 - t1}

    s = measure(once, budget)
    return {"metrics": {"fwd_ms": phase(s, "fwd", 1e3), "bwd_ms": phase(s, "bwd", 1e3)}, "check": check,
            "params": {"branches": sz["w3_branches"]}}


# ---------------------------------------------------------------------------- W4 memory
def _status_kb(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise KeyError(key)


def _reset_peak():
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # resets VmHWM to the current RSS


def _pin_mmap_threshold(nbytes=128 * 1024):
    """mallopt(M_MMAP_THRESHOLD, 128 KiB): every big array is its own mapping, returned to the OS on free.

    glibc's threshold is dynamic by default: after the first freed 4 MB block it grows, later arrays
    come from the heap, and freed heap memory may stay resident, so RSS would over-report what a
    framework keeps. The setting lasts for the process: W4 runs last."""
    try:
        import ctypes
        libc = ctypes.CDLL("libc.so.6")
        return libc if libc.mallopt(-3, nbytes) == 1 else None  # M_MMAP_THRESHOLD = -3
    except (OSError, AttributeError):
        return None


def w4_memory(ad, sz, budget):
    need_tensors(ad, "a 1e6-element chain")
    try:
        _status_kb("VmHWM")
        _reset_peak()
    except OSError as exc:
        raise Unsupported(f"needs Linux /proc/self/status and /proc/self/clear_refs ({exc})") from None
    libc = _pin_mmap_threshold()

    def settle():
        gc.collect()
        if libc is not None:
            libc.malloc_trim(0)

    n, size = sz["w4_ops"], sz["w4_size"]
    fn = chain_fn(ad, n)
    params = [ad.param((0.5 * np.random.default_rng(4).standard_normal(size)).astype(F32))]
    mib = 1 / 1024  # kB -> MiB
    variants = (False, True) if ad.has_retain_graph else (False,)
    metrics, check = {}, None
    for retain in variants:
        key = "retain" if retain else "free"
        single = []
        for _ in range(budget.min_reps):
            settle()
            base = _status_kb("VmRSS")
            _reset_peak()
            t0 = pc()
            h = ad.forward(fn, params)
            t1 = pc()
            after_fwd = _status_kb("VmRSS")
            _reset_peak()
            t2 = pc()
            grads = ad.backward(h, params, retain_graph=retain)
            t3 = pc()
            peak, after_bwd = _status_kb("VmHWM"), _status_kb("VmRSS")
            if check is None:
                check = checksum(grads, ad.output(h))
            del grads, h  # the output (hence what is left of the graph) was alive until here
            settle()
            single.append({"graph_mb": (after_fwd - base) * mib, "bwd_peak_mb": (peak - base) * mib,
                           "after_bwd_mb": (after_bwd - base) * mib,
                           "released_mb": (_status_kb("VmRSS") - base) * mib,
                           "fwd_ms": (t1 - t0) * 1e3, "bwd_ms": (t3 - t2) * 1e3})
        for m in single[0]:
            metrics[f"{key}_{m}"] = phase(single, m)
        loop = []
        for _ in range(budget.min_reps):
            settle()
            base = _status_kb("VmRSS")
            _reset_peak()
            h = ad.forward(fn, params)                       # step 1: loss = f(x); loss.backward()
            grads = ad.backward(h, params, retain_graph=retain)
            del grads
            h2 = ad.forward(fn, params)                      # step 2: the old loss is still bound ...
            h = h2                                           # ... until the assignment
            del h2
            grads = ad.backward(h, params, retain_graph=retain)
            loop.append({"loop_peak_mb": (_status_kb("VmHWM") - base) * mib})
            del grads, h
            settle()
        metrics[f"{key}_loop_peak_mb"] = phase(loop, "loop_peak_mb")
    return {"metrics": metrics, "check": check, "glibc_mmap_threshold_pinned": libc is not None,
            "params": {"size": size, "n_ops": n, "variants": ["retain_graph=False", "retain_graph=True"]
                       if ad.has_retain_graph else ["framework default (no retain_graph)"]}}


# ------------------------------------------------------------------------------- W5 HVP
def w5_data(sz):
    batch, (d_in, d_hidden, d_out) = sz["w5_batch"], sz["w5_dims"]
    rng = np.random.default_rng(5)
    X = rng.standard_normal((batch, d_in)).astype(F32)
    Y = rng.standard_normal((batch, d_out)).astype(F32)
    shapes = [(d_in, d_hidden), (d_hidden,), (d_hidden, d_out), (d_out,)]
    init = [(0.3 * rng.standard_normal(s)).astype(F32) for s in shapes]
    vecs = [rng.standard_normal(s).astype(F32) for s in shapes]
    return X, Y, init, vecs


def w5_fn(ad, X, Y):
    """The W5 loss, the MSE of a tanh MLP ``mean((tanh(X@W1+b1)@W2+b2 - Y)^2)``, as ``fn(params)``."""
    Xc, Yc, inv_b = ad.const(X), ad.const(Y), ad.scalar(1.0 / X.shape[0])

    def fn(p):
        w1, b1, w2, b2 = p
        d = ad.tanh(Xc @ w1 + b1) @ w2 + b2 - Yc
        return ad.sum(d * d) * inv_b

    return fn


def w5_hvp(ad, sz, budget):
    need_tensors(ad, "no tensors, no double backward")
    if not ad.has_create_graph:
        raise Unsupported("no create_graph / double backward")
    X, Y, init, vecs_np = w5_data(sz)
    fn = w5_fn(ad, X, Y)
    params = [ad.param(a) for a in init]
    vecs = [ad.const(v) for v in vecs_np]
    check = checksum(ad.hvp(fn, params, vecs))

    def once():
        t0 = pc()
        ad.hvp(fn, params, vecs)
        return {"hvp": pc() - t0}

    s = measure(once, budget)
    return {"metrics": {"hvp_ms": phase(s, "hvp", 1e3)}, "check": check,
            "params": {"batch": sz["w5_batch"], "dims": list(sz["w5_dims"]), "loss": "mse"}}


# ----------------------------------------------------------------- W6 trace (autogradlab)
def w6_trace(ad, sz, budget):
    """W1 and W2 traced vs untraced, interleaved rep by rep so drift hits both alike."""
    only_autogradlab(ad)
    ag = ad.ag
    if not hasattr(ag, "trace"):
        raise Unsupported("n/a (no trace yet)")
    X, Y, init = w2_data(sz)
    cases = {"w1": (chain_fn(ad, sz["w1_ops"]), [ad.param(w1_x())]),
             "w2": (mlp_fn(ad, X, Y), [ad.param(a) for a in init])}
    metrics, checks = {}, {}
    for case, (fn, params) in cases.items():
        def once(traced, keep=False, fn=fn, params=params):
            ctx = ag.trace() if traced else contextlib.nullcontext()
            t0 = pc()
            with ctx:
                h = ad.forward(fn, params)
                t1 = pc()
                grads = ad.backward(h, params)
            t2 = pc()
            return {"fwd": t1 - t0, "bwd": t2 - t1, "step": t2 - t0, **({"grads": grads} if keep else {})}

        def pair(once=once):
            plain = once(False)
            gc.collect()
            return plain, once(True)

        plain, traced = once(False, keep=True), once(True, keep=True)
        checks[case] = {"untraced": checksum(plain.pop("grads")), "traced": checksum(traced.pop("grads"))}
        ok, err = compare(checks[case]["traced"], checks[case]["untraced"], 1e-6)
        checks[case].update(traced_equals_untraced=ok, rel_err=err)
        pairs = measure(pair, budget)
        untr = [p[0] for p in pairs]
        trc = [p[1] for p in pairs]
        scale = (1e6 / sz["w1_ops"]) if case == "w1" else 1e3
        unit = "us_per_node" if case == "w1" else "ms"
        for ph in ("fwd", "bwd", "step"):
            metrics[f"{case}_{ph}_{unit}_untraced"] = phase(untr, ph, scale)
            metrics[f"{case}_{ph}_{unit}_traced"] = phase(trc, ph, scale)
        metrics[f"{case}_ratio"] = summarize([t["step"] / u["step"] for u, t in pairs])
    return {"metrics": metrics, "check": None, "trace_checks": checks,
            "params": {"w1_ops": sz["w1_ops"], "w2_batch": sz["w2_batch"]}}


# ------------------------------------------------------------------- W7 viz (autogradlab)
def _dot_node_count(dot_source):
    """Node statements in DOT text (lines with attributes that are not edges or defaults)."""
    n = 0
    for line in dot_source.splitlines():
        t = line.strip()
        if "[" in t and "->" not in t and not t.startswith(("graph", "node", "edge", "subgraph", "}", "{")):
            n += 1
    return n


def w7_viz(ad, sz, budget):
    """The viz player on a graph of about 100 drawn nodes (a W3-style fan-in: no repeated chain
    that the drawing would fold): ``viz.draw`` (build the graphviz.Digraph and its DOT text),
    rendering it to SVG with Graphviz's ``dot``, building the player of a backward pass
    (``viz.play_backward``: runs backward under a trace and lays the graph out once), and one
    step of the player (``player.go(step + 1)``: restyles the SVG, no Graphviz); and the player's
    data alone (``viz.playerdata.player_data(tape)`` of a traced backward of the same graph, 52
    autograd nodes: what issue 16's "under 5 ms" is about).

    Written against autogradlab.viz as it stood when the harness was made; a missing piece is
    reported as n/a with the names viz does have."""
    only_autogradlab(ad)
    try:
        viz = importlib.import_module("autogradlab.viz")
    except ImportError as exc:
        raise Unsupported(f"n/a (no autogradlab.viz yet: {exc})") from None
    public = sorted(n for n in dir(viz) if not n.startswith("_"))
    draw, play_backward = getattr(viz, "draw", None), getattr(viz, "play_backward", None)
    if not callable(draw) and not callable(play_backward):
        raise Unsupported(f"n/a (autogradlab.viz has neither draw nor play_backward; it has {public})")
    cs_np, x0, w0 = w3_data({"w3_branches": sz["w7_branches"]})
    fn = w3_fn(ad, [ad.const(c) for c in cs_np])
    params = [ad.param(x0), ad.param(w0)]
    metrics, info = {}, {"viz_names": public}
    if callable(draw):
        g = draw(fn(params))
        info["drawn_nodes"] = _dot_node_count(g.source)

        def once_draw():
            out = fn(params)
            t0 = pc()
            g = draw(out)
            g.source  # noqa: B018  (graphviz builds the DOT text on access)
            return {"draw": pc() - t0}
        metrics["draw_ms"] = phase(measure(once_draw, budget), "draw", 1e3)
        if shutil.which("dot"):
            def once_svg():
                g = draw(fn(params))
                t0 = wall()  # dot runs in a child process: CPU time of this one would miss it
                g.pipe(format="svg")
                return {"svg": wall() - t0}
            metrics["render_svg_ms"] = phase(measure(once_svg, budget), "svg", 1e3)
        else:
            info["render_svg"] = "skipped: Graphviz's dot not on PATH"
    if callable(play_backward):
        def once_player():
            out = fn(params)
            t0 = wall()  # includes one Graphviz layout (a child process)
            p = play_backward(out)
            t1 = wall()
            go = getattr(p, "go", None)
            if not callable(go) or not isinstance(getattr(p, "step", None), int):
                raise Unsupported(f"n/a (player {type(p).__name__} has no go(step) / step)")
            t2 = pc()
            go(p.step + 1)
            t3 = pc()
            for p_params in params:
                p_params.grad = None
            return {"player": t1 - t0, "step": t3 - t2, "frames": len(getattr(getattr(p, "frames", None), "steps", ()))}
        s = measure(once_player, budget)
        metrics["player_build_ms"] = phase(s, "player", 1e3)
        metrics["step_ms"] = phase(s, "step", 1e3)
        info["frames"] = s[0]["frames"]
    player_data = getattr(importlib.import_module("autogradlab.viz.playerdata"), "player_data", None) \
        if callable(play_backward) else None
    if callable(player_data):   # issue 16's goal: the data the player is built from, under 5 ms
        def once_data():
            out = fn(params)
            with ad.ag.trace() as tape:
                out.backward()
            for p_params in params:
                p_params.grad = None
            t0 = pc()
            data = player_data(tape)   # reads the tape (builds its events) and makes the player's data
            t1 = pc()
            return {"data": t1 - t0, "drawn": len(data["nodes"]), "events": len(data["events"])}
        s = measure(once_data, budget)
        metrics["player_data_ms"] = phase(s, "data", 1e3)
        info["player_data"] = {"drawn_nodes": s[0]["drawn"], "events": s[0]["events"]}
    return {"metrics": metrics, "check": None, "info": info,
            "params": {"branches": sz["w7_branches"], "autograd_nodes": 5 * sz["w7_branches"] + 2}}


#: id -> (name, adapter workload, hand-written NumPy version or None)
WORKLOADS = {
    "W1": ("chain", w1_chain, numpy_w1),
    "W2": ("mlp", w2_mlp, numpy_w2),
    "W3": ("fan-in", w3_fanin, numpy_w3),
    "W4": ("memory", w4_memory, None),
    "W5": ("hvp", w5_hvp, None),
    "W6": ("trace", w6_trace, None),
    "W7": ("viz", w7_viz, None),
}
#: workloads that only make sense for autogradlab (its own features)
AUTOGRADLAB_ONLY = ("W6", "W7")
#: W4 pins glibc's mmap threshold for the rest of the process (slower allocations): it runs last
RUN_ORDER = ["W1", "W2", "W3", "W5", "W6", "W7", "W4"]
