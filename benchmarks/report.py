"""Turn the runner's JSON bundle into the markdown of RESULTS.md (tables, checks, targets)."""
from __future__ import annotations

import math

FRAMEWORK_ORDER = ["torch", "autogradlab", "numpy", "autograd", "mygrad", "micrograd"]
REFERENCE = "torch"
MEMORY_NOISE_MIB = 8.0       # no ratio printed when torch's figure is below this (RSS noise)
MEMORY_ALLOWANCE_MIB = 4.0   # W4 target: <= torch + one 1e6-element float32 array (3.8 MiB)

#: (workload, metric key, label) for the main table
ROWS = [
    ("W1", "fwd_us_per_node", "W1 chain: forward, µs/op"),
    ("W1", "bwd_us_per_node", "W1 chain: backward, µs/op"),
    ("W2", "step_ms", "W2 MLP: fwd+bwd step, ms"),
    ("W2", "fwd_ms", "W2 MLP: forward, ms"),
    ("W2", "bwd_ms", "W2 MLP: backward, ms"),
    ("W3", "fwd_ms", "W3 fan-in: forward, ms"),
    ("W3", "bwd_ms", "W3 fan-in: backward, ms"),
    ("W4", "free_graph_mb", "W4 memory: graph held after forward, MiB"),
    ("W4", "free_bwd_peak_mb", "W4 memory: peak of one backward, retain_graph=False, MiB"),
    ("W4", "retain_bwd_peak_mb", "W4 memory: peak of one backward, retain_graph=True, MiB"),
    ("W4", "free_after_bwd_mb", "W4 memory: still held after backward, retain_graph=False, MiB"),
    ("W4", "retain_after_bwd_mb", "W4 memory: still held after backward, retain_graph=True, MiB"),
    ("W4", "free_loop_peak_mb", "W4 memory: peak of a 2-step loop, retain_graph=False, MiB"),
    ("W4", "retain_loop_peak_mb", "W4 memory: peak of a 2-step loop, retain_graph=True, MiB"),
    ("W5", "hvp_ms", "W5 Hessian-vector product (create_graph), ms"),
]


def fmt(v):
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "—"
    a = abs(v)
    if a == 0:
        return "0"
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    return f"{v:.3g}"


def fmt_ratio(r):
    if r is None or not math.isfinite(r):
        return "—"
    return f"{r:.2f}×" if r < 10 else f"{r:.0f}×"


def frameworks_in(bundle):
    fws = bundle["frameworks"]
    return [f for f in FRAMEWORK_ORDER if f in fws] + [f for f in fws if f not in FRAMEWORK_ORDER]


def entry(bundle, fw, wid):
    r = bundle["frameworks"].get(fw)
    if not r or not r.get("available"):
        return None
    return r.get("workloads", {}).get(wid)


CLOCK_WORDS = {"cpu": "CPU time", "wall": "wall time"}


def other_clock(bundle):
    """The clock the second table shows: the one that is not primary (``meta["clock"]``)."""
    return "wall" if bundle["meta"].get("clock", "wall") == "cpu" else "cpu"


def median(bundle, fw, wid, key, clock=None):
    """The median of one metric: on the primary clock, or on ``clock`` ("cpu"/"wall") when the run
    recorded it (every timed region records both; memory rows have no clock)."""
    e = entry(bundle, fw, wid)
    if not e or e.get("status") != "ok":
        return None
    m = e.get("metrics", {}).get(key)
    if not m:
        return None
    if clock is None:
        return m["median"]
    if clock in m:
        return m[clock]["median"]
    timed = not key.endswith("_mb")
    return m["median"] if timed and clock == bundle["meta"].get("clock", "wall") else None


def compute_checks(bundle, tol):
    """{wid: {fw: {"ok": bool|None, "rel_err": float|None, "ref": name|None}}} against torch
    (or the NumPy floor for a workload torch did not produce)."""
    out = {}
    wids = sorted({w for r in bundle["frameworks"].values() for w in r.get("workloads", {})})
    for wid in wids:
        ref_name, ref = None, None
        for cand in (REFERENCE, "numpy"):
            e = entry(bundle, cand, wid)
            if e and e.get("status") == "ok" and e.get("check"):
                ref_name, ref = cand, e["check"]
                break
        row = {}
        for fw in bundle["frameworks"]:
            e = entry(bundle, fw, wid)
            if not e or e.get("status") != "ok" or not e.get("check"):
                continue
            if fw == ref_name:
                row[fw] = {"ok": True, "rel_err": 0.0, "ref": None, "is_ref": True}
                continue
            if ref is None:
                row[fw] = {"ok": None, "rel_err": None, "ref": None}
                continue
            c = e["check"]
            if c.get("shapes") != ref.get("shapes"):
                row[fw] = {"ok": False, "rel_err": float("inf"), "ref": ref_name}
                continue
            err = abs(c["checksum"] - ref["checksum"]) / max(ref["scale"], 1e-30)
            row[fw] = {"ok": err <= tol, "rel_err": err, "ref": ref_name}
        out[wid] = row
    return out


def _check_word(chk):
    if chk is None or chk.get("ok") is None:
        return "unchecked"
    if chk.get("is_ref"):
        return "ref"
    return "ok" if chk["ok"] else "**MISMATCH**"


def _cell(bundle, checks, fw, wid, key, notes, clock=None):
    e = entry(bundle, fw, wid)
    if e is None:
        return "—"
    if e.get("status") != "ok":
        why = e.get("reason", "")
        notes.setdefault((fw, wid), why if e.get("status") == "unsupported" else f"**{e.get('status')}**: {why}")
        return "n/a" if e.get("status") == "unsupported" else "error"
    v = median(bundle, fw, wid, key, clock)
    if v is None:
        return "n/a"
    ref = median(bundle, REFERENCE, wid, key, clock)
    word = _check_word(checks.get(wid, {}).get(fw))
    if fw == REFERENCE:
        return f"{fmt(v)} ({word})"
    small_mem = key.endswith("_mb") and (ref is None or abs(ref) < MEMORY_NOISE_MIB)
    ratio = "" if ref in (None, 0) or small_mem else f" ({fmt_ratio(v / ref)})"
    return f"{fmt(v)}{ratio} {word}"


def _ratio(a, b):
    if a is None or b in (None, 0):
        return None
    return a / b


def targets(bundle, checks):
    """[(target text, autogradlab value, reference value, ratio, ratio on the other clock, status)]
    for RESULTS.md (the status is judged on the primary clock)."""
    A = "autogradlab"
    rows = []
    other = other_clock(bundle)

    def wrong(wid):
        c = checks.get(wid, {}).get(A)
        return c is not None and c.get("ok") is False

    def ratio_target(text, wid, key, ref_fw, limit, unit):
        a, r = median(bundle, A, wid, key), median(bundle, ref_fw, wid, key)
        ratio = _ratio(a, r)
        if ratio is None:
            why = entry(bundle, A, wid) or entry(bundle, ref_fw, wid) or {}
            status = f"n/a ({why.get('reason', 'not run')})" if why.get("status") != "ok" else "n/a (not run)"
        elif wrong(wid):
            status = "**missed** (gradient MISMATCH)"
        else:
            status = ("met" if ratio <= limit else "**missed**") + f" ({fmt_ratio(ratio)})"
        ratio2 = _ratio(median(bundle, A, wid, key, other), median(bundle, ref_fw, wid, key, other))
        rows.append((text, f"{fmt(a)} {unit}", f"{fmt(r)} {unit} ({ref_fw})", fmt_ratio(ratio), fmt_ratio(ratio2),
                     status))

    # the goals of issue 16
    ratio_target("W1 forward ≤ 1.0× torch", "W1", "fwd_us_per_node", REFERENCE, 1.0, "µs/op")
    ratio_target("W1 backward ≤ 1.0× torch", "W1", "bwd_us_per_node", REFERENCE, 1.0, "µs/op")
    ratio_target("W2 step ≤ 0.8× torch", "W2", "step_ms", REFERENCE, 0.8, "ms")
    ratio_target("W2 step ≤ 1.1× numpy floor", "W2", "step_ms", "numpy", 1.1, "ms")
    ratio_target("W3 forward ≤ 1.5× torch", "W3", "fwd_ms", REFERENCE, 1.5, "ms")
    ratio_target("W3 backward ≤ 1.2× torch", "W3", "bwd_ms", REFERENCE, 1.2, "ms")
    for peer, peer_name in (("autograd", "HIPS autograd"), ("mygrad", "mygrad")):
        for wid, key, label in ROWS:
            if wid in ("W1", "W2", "W3", "W5") and median(bundle, peer, wid, key) is not None:
                ratio_target(f"{label.split(',')[0]} faster than {peer_name}", wid, key, peer, 1.0,
                             label.rsplit(", ", 1)[-1])
    for wid, key, label in ROWS:
        if wid != "W4":
            continue
        a, r = median(bundle, A, wid, key), median(bundle, REFERENCE, wid, key)
        short = label.replace("W4 memory: ", "").replace(", MiB", "")
        if a is None or r is None:
            status = "n/a (not run)"
        elif wrong(wid):
            status = "**missed** (gradient MISMATCH)"
        else:
            status = "met" if a <= r + MEMORY_ALLOWANCE_MIB else "**missed**"
            status += f" ({fmt(abs(a - r))} MiB {'over' if a > r else 'under'})" if abs(a - r) >= 0.05 else " (equal)"
        rows.append((f"W4 {short} ≤ torch", f"{fmt(a)} MiB", f"{fmt(r)} MiB (torch)",
                     fmt_ratio(_ratio(a, r)) if r is not None and r >= MEMORY_NOISE_MIB else "—", "—", status))
    ratio_target("W5 HVP ≤ 1.0× torch", "W5", "hvp_ms", REFERENCE, 1.0, "ms")
    w6 = entry(bundle, A, "W6")
    for case, name in (("w1", "W1"), ("w2", "W2")):
        limit = 1.5 if case == "w1" else 1.1
        text = f"W6 {name} traced ≤ {limit:g}× untraced"
        if not w6 or w6.get("status") != "ok":
            reason = (w6 or {}).get("reason", "not run")
            rows.append((text, "—", "—", "—", "—", reason if reason.startswith("n/a") else f"n/a ({reason})"))
            continue
        m = w6["metrics"]
        unit = "µs/op" if case == "w1" else "ms"
        key = f"{case}_step_{'us_per_node' if case == 'w1' else 'ms'}"
        t, u = m[f"{key}_traced"]["median"], m[f"{key}_untraced"]["median"]
        ratio = m[f"{case}_ratio"]["median"]
        bad = w6.get("trace_checks", {}).get(case, {}).get("traced_equals_untraced") is False
        status = "**missed** (traced gradients differ)" if bad else \
            ("met" if ratio <= limit else "**missed**") + f" ({fmt_ratio(ratio)})"
        t2, u2 = (m[f"{key}_{kind}"].get(other, {}).get("median") for kind in ("traced", "untraced"))
        rows.append((text, f"{fmt(t)} {unit} traced", f"{fmt(u)} {unit} untraced", fmt_ratio(ratio),
                     fmt_ratio(_ratio(t2, u2)), status))
    w7 = entry(bundle, A, "W7")
    data_ms = median(bundle, A, "W7", "player_data_ms")
    text = f"W7 player data for a {(w7 or {}).get('params', {}).get('autograd_nodes', '?')}-node graph < 5 ms"
    rows.append((text, "—" if data_ms is None else f"{fmt(data_ms)} ms", "5 ms", "—", "—",
                 "n/a (not run)" if data_ms is None else ("met" if data_ms < 5 else "**missed**")))
    return rows


GAPS = """\
Ratios move by 10-30% between runs on this shared machine (torch's own W1 figure does), so read the
table above for the numbers and compare ratios within one run. Profiles: `python
benchmarks/profile_autogradlab.py` (cProfile of W1-W3 and W5; files in `benchmarks/results/profile_W*.txt`).

**Where a backward microsecond goes** is in [`PROFILE.md`](PROFILE.md) (W1's backward split into
its parts by `python benchmarks/backward_breakdown.py`, before and after the engine work of issue
16). In short: an untraced backward makes no Tensor, node, generator or event per node; one walk
plans the pass; a leaf takes the array its VJP made as `.grad` without a copy. What is left per
node is the VJP's own Python (the op's function, reading what it saved, fitting the result to the
input's shape and dtype), freeing the saved tensors, the ready queue and pending buffers, and the
NumPy calls themselves (about 0.4 us each on one-element arrays, 2-3x that with a Python-number
operand).

**Forward (W1/W3).** A Python-number operand (`h * 0.999`) is a constant: a 0-d array of
PyTorch's dtype handed to the forward, with no Tensor and no edge (a VJP that needs it reads it back
as a saved parameter); `registry.apply` walks its inputs once and saves inline; what a node keeps is
one of three small classes (an input; the op's output, by weak reference; a tensor packed by
hooks), and a thread's switches are read once per op (the table above has the ratios; before this,
commit `1caea9f`, W1's forward was 1.87x torch and W3's 2.73x in a run at load 1.1-2). What is
left per op is spread out: about 400 bytecodes of Python (the operator, the loop over the inputs,
`Node.__init__` and `Tensor._make` filling 16 and 13 slots, the output's weak reference), the
garbage collector (about 12 tracked objects per recorded op, ~9% of the forward) and NumPy itself
(~0.45 µs per ufunc on one element). Closing W3's gap would take fewer objects per op (no
separate saved-value and `_out_meta` objects), which changes what the backward reads.

**W2** is kernel-bound (the matmuls); **W5** records the backward (`create_graph=True`) and so still
pays the Tensor dispatch twice. **W6** (tracing): a traced pass now only notes each
step's fields (one flat list) with copies of the values it will show, and builds the frozen events
when the tape is read; the gradients a pass moves are not even copied unless something else still
holds them when it ends. Measured side by side with the tree before that work (W6, same machine, load
2-3.5, CPU time): W1 traced 71.9 -> 36.8 µs/op (4.5x -> 2.8x untraced, while untraced also got
faster), W2 traced 3.75 -> 3.23 ms (1.70x -> 1.39x); then a cheaper source line (found per code
object and instruction) and plan: W1 traced 2.78x -> 2.68x untraced (forward 18.4 -> 16.6 µs/op,
backward 19.4 -> 17.2, load 1.0). What is left per W1 op (about 10 µs forward, 11 µs backward, each
measured by stubbing one part out): the source-line walk (~2 µs), the rest of the op's record (naming
its output and constant, its node id, one copy of the output); in the backward the plan (~2 µs per
node), the four records per node (~3.5 µs) and the engine's traced branches (~4 µs: the events
list, counting the bytes freed, the run order). In W2: copying the 128x256 forward values, and
summarising the two large ones (X, W1: over 65,536 elements, summarised when recorded, per tape:
copying arrays that large every step cost more) and W1's gradient; with those stubbed out W2 traced
is about 1.1x, so 1.1x needs values that are not copied while something could still write to them
(an array reached through ``.data`` can be written without a new version). **W7**: the player's data for the 52-node graph took
25 ms (a JSON round trip per event, LaTeX captions nobody reads, NumPy to format each value); now
about 4-6 ms on the loaded machine: about a fifth reading the tape (building its events), a quarter
each the captions and the events' JSON, the rest the drawing (graph model, display, node entries).

"""


HOW_TO_READ = """\
* Every figure is a **median** over many repetitions (the count is listed below; quartiles,
  min, max and n are in `results/latest.json`). Lower is better in every row.
* In parentheses: the ratio to the **torch** column (CPU build, 1 thread). Memory rows print no
  ratio when torch's figure is under {noise:g} MiB (RSS noise).
* After each figure: the **gradient check** of that framework on that workload. `ok` means the
  checksum of all its gradients (a fixed pseudo-random weighted sum of every entry) agrees with
  torch's within a relative error of {tol:g} (of the sum of absolute terms); `MISMATCH` means it
  computed something else, so its time means nothing. `ref` marks the reference.
* **numpy floor** is not an autograd engine: it is a hand-written NumPy forward+backward of the same
  computation (W1-W3), i.e. what an engine over NumPy could reach with zero graph overhead.
* W1 and W3 are per-node overhead (1-element tensors: the time is Python/dispatch/graph
  bookkeeping); W2 is kernel-bound (BLAS at 1 thread: extra copies and temporaries show here);
  W5 is double backward.
* W4 is RSS in MiB relative to just before the first forward (see the method notes):
  "peak of one backward" is set by the forward graph either way; what `retain_graph=False` buys
  shows in "still held after backward" and in the 2-step loop, where the first loss is still bound
  while the second forward runs. Frameworks without `retain_graph` (HIPS autograd, mygrad) show
  their only behaviour in the `retain_graph=False` rows.
* Run to run: on the shared 2-core development machine (other sessions' test suites kept the load
  average at 4-6, see the Frameworks table), two full runs with the CPU clock agreed within about
  5% for torch and 5-15% for the Python engines; compare ratios within one run rather than figures
  across runs, and distrust differences under ~15%. Memory (W4) figures repeat to within 1 MiB.
"""

METHOD = """\
* `benchmarks/run.py` starts one subprocess per framework (`benchmarks/worker.py`), one after the
  other, so frameworks never share an interpreter, allocator or thread pool. BLAS/OpenMP thread
  variables (`OMP_NUM_THREADS`, `MKL_NUM_THREADS`, `OPENBLAS_NUM_THREADS`, ...) are set before NumPy
  is imported; torch also gets `set_num_threads`.
* Each timed workload first runs once untimed to record the gradient checksum, then warm-up runs,
  then repetitions until a minimum count and a time budget are both reached. `gc.collect()` runs
  before every repetition, outside the timed region (the collector stays enabled inside it).
  Before the first workload, `gc.freeze()` moves the interpreter's and the framework's import-time
  objects out of the collector's reach, so collections scan only what the workloads create (the
  same for every column; without it a full collection's cost depends on how big a framework's
  module heap is).
* Clocks: every timed region reads the worker process's **CPU time** (`time.process_time`) and
  its **wall time** (`perf_counter`) at its start and end, so both come from the same repetitions.
  The main table and the targets use CPU time by default (`--clock cpu`; `--clock wall` makes wall
  time primary). With BLAS pinned to 1 thread the two agree on an idle machine, but CPU time does
  not count the time the worker waits while other processes hold the cores: on the shared 2-core
  development machine, wall-clock medians of a ~2 ms step were seen inflated 2-4× (a 10 ms
  scheduler slice lands inside the region). Cache and memory-bandwidth contention show in either.
* Timed regions: forward = building the graph; backward = `backward()` plus reading the leaves'
  gradients (zero-copy NumPy views), then clearing them. HIPS autograd: forward = `make_vjp`
  trace, backward = calling the vjp.
* W4 reads `VmRSS`/`VmHWM` from `/proc/self/status`, resets the peak by writing `5` to
  `/proc/self/clear_refs`, and first pins glibc's mmap threshold to 128 KiB
  (`mallopt(M_MMAP_THRESHOLD)`) so every array is its own mapping and freed arrays leave RSS at
  once. That makes allocations slower for the rest of the process, so W4 runs last.
"""


def render(bundle):
    meta = bundle["meta"]
    tol = meta.get("tolerance", 1e-3)
    checks = compute_checks(bundle, tol)
    fws = frameworks_in(bundle)
    cols = [f for f in fws if bundle["frameworks"][f].get("available")]
    labels = {f: bundle["frameworks"][f].get("label", f) for f in fws}
    out = []
    w = out.append
    m = meta.get("machine", {})
    w("# Benchmark results\n")
    w(f"Generated by `{meta.get('command', 'python benchmarks/run.py')}` on {meta.get('date', '?')} "
      f"({meta.get('mode', 'full')} mode, {meta.get('wall_s', 0):.0f} s wall). "
      "Regenerate with `bash benchmarks/run.sh` (see `benchmarks/README.md`); raw numbers with quartiles "
      "are in `benchmarks/results/latest.json`.\n")
    if meta.get("mode") == "quick":
        w("**Quick mode: small sizes and 3 repetitions; a smoke test, not a measurement.**\n")
    w("## Machine\n")
    git = meta.get("git", {})
    w(f"- CPU: {m.get('cpu', '?')}, {m.get('cores', '?')} cores ({m.get('cores_usable', '?')} usable by "
      f"this process), {m.get('mem_gib', '?')} GiB RAM")
    w(f"- {m.get('platform', '?')}; Python {meta.get('python', '?')}; NumPy {meta.get('numpy', '?')}")
    clock, other = meta.get("clock", "wall"), other_clock(bundle)
    both = any(other in m for r in bundle["frameworks"].values() for e in r.get("workloads", {}).values()
               for m in (e.get("metrics") or {}).values() if isinstance(m, dict))
    w(f"- BLAS/OpenMP threads per worker: {meta.get('threads', '?')}; "
      + ("every timed region reads both the worker's CPU time (`time.process_time`) and wall time "
         f"(`perf_counter`): the tables below use **{CLOCK_WORDS[clock]}**, the second results table "
         f"{CLOCK_WORDS[other]}" if both else f"timed regions read **{CLOCK_WORDS[clock]}** only (an older run)")
      + f"; load average (1 min) at start: {meta.get('loadavg_start', '?')}")
    w(f"- autogradlab from the working tree at commit `{git.get('commit', '?')}`"
      + (" with uncommitted changes under `autogradlab/`" if git.get("dirty") else "") + "\n")

    w("## Frameworks\n")
    w("| column | version | dtype | load avg (start → end) | notes |")
    w("|---|---|---|---|---|")
    for f in fws:
        r = bundle["frameworks"][f]
        if not r.get("available"):
            w(f"| {labels[f]} | — | — | — | **skipped**: {r.get('reason', '?')} |")
            continue
        env = r.get("environment", {})
        la = f"{env.get('loadavg_start', 0):.2f} → {env.get('loadavg_end', 0):.2f}" if env.get("loadavg_start") \
            is not None and env.get("loadavg_end") is not None else "—"
        w(f"| {labels[f]} | {r.get('version', '?')} | {r.get('dtype', '?')} | {la} | {r.get('notes', '')} |")
    w("")

    w("## Results\n")
    w("Medians; in parentheses the ratio to torch (lower is better); then the gradient check "
      "(`ok` / `MISMATCH` against torch).\n")
    w("| metric | " + " | ".join(labels[f] for f in cols) + " |")
    w("|---|" + "---:|" * len(cols))
    notes = {}
    present = {wid for f in cols for wid in bundle["frameworks"][f].get("workloads", {})}
    for wid, key, label in ROWS:
        if wid not in present:
            continue
        w(f"| {label} | " + " | ".join(_cell(bundle, checks, f, wid, key, notes) for f in cols) + " |")
    w("")
    if notes:
        w("Not run (n/a) or failed:\n")
        for (f, wid), why in sorted(notes.items(), key=lambda kv: (kv[0][1], cols.index(kv[0][0]))):
            w(f"- {labels[f]} {wid}: {why}")
        w("")

    timed_rows = [(wid, key, label) for wid, key, label in ROWS if wid in present and not key.endswith("_mb")
                  and any(median(bundle, f, wid, key, other) is not None for f in cols)]
    if timed_rows:
        w(f"### The same repetitions by {CLOCK_WORDS[other]}\n")
        w(f"Each timed region read both clocks; here the medians of its {CLOCK_WORDS[other]} "
          f"(ratios to torch by {CLOCK_WORDS[other]} too). "
          + ("Wall time also counts the time the worker waited while other processes held the cores, so "
             "on a loaded machine it is higher and noisier than CPU time.\n" if other == "wall" else
             "CPU time leaves out the time the worker waited for a core.\n"))
        w("| metric | " + " | ".join(labels[f] for f in cols) + " |")
        w("|---|" + "---:|" * len(cols))
        for wid, key, label in timed_rows:
            w(f"| {label} | " + " | ".join(_cell(bundle, checks, f, wid, key, {}, other) for f in cols) + " |")
        w("")

    w("### Gradient checks\n")
    w(f"Relative error of each checksum against the reference (torch; the NumPy floor where torch did not "
      f"run), tolerance {tol:g}:\n")
    wids = [x for x in sorted(checks) if any(checks[x].values())]
    w("| workload | " + " | ".join(labels[f] for f in cols) + " |")
    w("|---|" + "---|" * len(cols))
    for wid in wids:
        cells = []
        for f in cols:
            c = checks[wid].get(f)
            if c is None:
                cells.append("n/a")
            elif c.get("is_ref"):
                cells.append("reference")
            elif c.get("ok") is None:
                cells.append("unchecked")
            else:
                cells.append(f"{'ok' if c['ok'] else '**MISMATCH**'} ({c['rel_err']:.0e})")
        w(f"| {wid} | " + " | ".join(cells) + " |")
    w("")

    w("### autogradlab only: W6 event tracing, W7 viz player\n")
    e6, e7 = entry(bundle, "autogradlab", "W6"), entry(bundle, "autogradlab", "W7")
    if e6 and e6.get("status") == "ok":
        mm = e6["metrics"]
        w("| W6 case | untraced | traced (`with autogradlab.trace():`) | traced / untraced | gradients |")
        w("|---|---:|---:|---:|---|")
        for case, name, unit, k in (("w1", "W1 chain", "µs/op", "us_per_node"), ("w2", "W2 MLP", "ms", "ms")):
            same = e6.get("trace_checks", {}).get(case, {}).get("traced_equals_untraced")
            for ph, phname in (("fwd", "forward"), ("bwd", "backward"), ("step", "fwd+bwd")):
                u, t = mm[f"{case}_{ph}_{k}_untraced"]["median"], mm[f"{case}_{ph}_{k}_traced"]["median"]
                w(f"| {name} {phname}, {unit} | {fmt(u)} | {fmt(t)} | {fmt_ratio(t / u if u else None)} | "
                  f"{'same' if same else '**differ**' if same is False else '?'} |")
        w("")
    else:
        w(f"- W6 (trace): {(e6 or {}).get('reason', 'not run')}")
    if e7 and e7.get("status") == "ok":
        mm, info = e7["metrics"], e7.get("info", {})
        w(f"W7, the viz player on a W3-style graph of {e7['params'].get('autograd_nodes', '?')} autograd nodes "
          f"({info.get('drawn_nodes', '?')} drawn nodes), medians:\n")
        w("| W7 step | ms |")
        w("|---|---:|")
        for key, what in (("draw_ms", "`viz.draw(out)`: build the graphviz.Digraph and its DOT text"),
                          ("render_svg_ms", "render it to SVG with Graphviz's `dot` (wall time, a child process)"),
                          ("player_build_ms", f"`viz.play_backward(out)`: backward under a trace, one layout, "
                                              f"{info.get('frames', '?')} frames (wall time)"),
                          ("step_ms", "`player.go(step + 1)`: step the player one frame"),
                          ("player_data_ms", "`viz.playerdata.player_data(tape)`: the player's data from a traced "
                                             "backward (events, captions, drawing)")):
            if key in mm:
                w(f"| {what} | {fmt(mm[key]['median'])} |")
        if info.get("render_svg"):
            w(f"| render to SVG | {info['render_svg']} |")
        w("")
    else:
        w(f"- W7 (viz): {(e7 or {}).get('reason', 'not run')}")
    w("")

    w("## Targets for autogradlab\n")
    w("Ratios of the autogradlab column to the reference (lower is better). A target whose workload's "
      f"gradients MISMATCH is missed whatever the time. W4 allows {MEMORY_ALLOWANCE_MIB:g} MiB of RSS noise "
      "(about one 1e6-element float32 array).\n")
    w(f"| target | autogradlab | reference | ratio | ratio by {CLOCK_WORDS[other]} | status |")
    w("|---|---:|---:|---:|---:|---|")
    for row in targets(bundle, checks):
        w("| " + " | ".join(row) + " |")
    w("")

    w("## Where the remaining gap comes from\n")
    w(GAPS)
    w("## How to read it\n")
    w(HOW_TO_READ.format(noise=MEMORY_NOISE_MIB, tol=tol))
    w("## Method\n")
    w(METHOD)
    reps = []
    for f in cols:
        parts = []
        for wid, e in bundle["frameworks"][f].get("workloads", {}).items():
            if e.get("status") != "ok" or not e.get("metrics"):
                continue
            n = next(iter(e["metrics"].values())).get("n")
            parts.append(f"{wid}×{n}")
        total = sum(e.get("wall_s", 0) for e in bundle["frameworks"][f].get("workloads", {}).values())
        reps.append(f"{labels[f]}: {', '.join(parts)} ({total:.0f} s)")
    w("Repetitions behind each median: " + "; ".join(reps) + ".\n")
    sizes = meta.get("sizes")
    if sizes:
        w("Sizes: " + ", ".join(f"{k}={v}" for k, v in sizes.items()) + ".\n")
    w("Where autogradlab's time goes: `python benchmarks/profile_autogradlab.py` (cProfile of W1 and W2, "
      "top functions by own time) writes `benchmarks/results/profile_W*.txt`.\n")
    return "\n".join(out)
