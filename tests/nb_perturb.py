"""Run a notebook under perturbed floating-point conditions and compare its printed text with the stored one.

Every number a lesson or spec notebook prints must survive last-bit noise: another BLAS kernel, another
thread count, other SIMD loops in NumPy, inputs one ulp away. This module executes a notebook with
nbclient in a kernel whose environment is perturbed, normalises the text outputs the way nbval compares
them (the regexes of ``nbval_sanitize.cfg``), and returns the cells whose text differs from the stored one.

Perturbations (names used by ``tests/test_notebooks_perturbed.py`` and the command line below):

- ``coretype=NAME``: ``OPENBLAS_CORETYPE=NAME`` makes OpenBLAS use the kernels of another CPU generation
  (e.g. ``Sandybridge``: AVX without FMA, ``Prescott``: SSE3 only), so matrix products round differently;
- ``threads=N``: ``OPENBLAS_NUM_THREADS``/``OMP_NUM_THREADS``/``MKL_NUM_THREADS`` = N;
- ``nosimd``: ``NPY_DISABLE_CPU_FEATURES`` switches off every SIMD target NumPy dispatches to on this CPU
  (its AVX2/FMA/AVX512 loops for exp, log, sums, ...), so the baseline code runs, as on an older CPU;
- ``ulp``: every float drawn from a ``numpy.random.Generator`` (what ``ag.manual_seed``, ``nn.init``,
  ``data.make_*`` and ``np.random.default_rng`` in a cell use) is moved up by one ulp *of float32*, the
  library's default dtype (a float64 ulp would vanish when the draw is cast to float32). The
  notebook code is untouched: a hidden first cell wraps ``numpy.random.default_rng`` before anything
  else runs, and a hidden last cell reports how many values were nudged (so a run that nudged nothing
  is visible, not silently a no-op).

Command line (from the repository root)::

    .venv/bin/python tests/nb_perturb.py lessons/09_capstone.ipynb coretype=Sandybridge ulp
"""
from __future__ import annotations

import copy
import json
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SANITIZE_FILE = ROOT / "nbval_sanitize.cfg"

# One float32 ulp up, for every float a Generator hands out. Runs in the kernel before the notebook.
ULP_SETUP = r'''
import numpy as _np

_AGL_NUDGED = [0]
_agl_plain_default_rng = _np.random.default_rng


def _agl_nudge(values):
    arr = _np.asarray(values)
    if arr.dtype.kind != "f":
        return values
    up = _np.nextafter(arr.astype(_np.float32), _np.float32(_np.inf)).astype(arr.dtype)
    _AGL_NUDGED[0] += int(arr.size)
    return up if isinstance(values, _np.ndarray) else up[()]


class _AglNudgedGenerator(_np.random.Generator):
    """A Generator whose float draws are one float32 ulp above the plain ones."""


for _name in ("random", "uniform", "normal", "standard_normal", "exponential", "beta", "gamma",
              "laplace", "logistic", "lognormal", "standard_exponential", "standard_gamma", "standard_t",
              "triangular", "chisquare", "rayleigh", "dirichlet", "multivariate_normal"):
    def _make(name):
        plain = getattr(_np.random.Generator, name)
        def method(self, *args, **kwargs):
            return _agl_nudge(plain(self, *args, **kwargs))
        method.__name__ = name
        return method
    setattr(_AglNudgedGenerator, _name, _make(_name))


def _agl_default_rng(seed=None):
    return _AglNudgedGenerator(_agl_plain_default_rng(seed).bit_generator)


_np.random.default_rng = _agl_default_rng
'''
ULP_REPORT = 'print("nudged", _AGL_NUDGED[0])'

PERTURBATIONS = {
    "coretype": "OPENBLAS_CORETYPE=<NAME>: OpenBLAS kernels of another CPU generation",
    "threads": "OPENBLAS/OMP/MKL_NUM_THREADS=<N>",
    "nosimd": "NPY_DISABLE_CPU_FEATURES: NumPy's dispatched SIMD loops off (baseline only)",
    "ulp": "every float from numpy.random.Generator one float32 ulp up",
}


def parse(spec):
    """``["coretype=Sandybridge", "ulp"]`` or ``"coretype=Sandybridge,ulp"`` -> {"coretype": "Sandybridge", "ulp": True}."""
    if isinstance(spec, str):
        spec = [s for s in re.split(r"[,\s]+", spec) if s]
    out = {}
    for item in spec:
        key, _, value = item.partition("=")
        if key not in PERTURBATIONS:
            raise ValueError(f"unknown perturbation {key!r}; known: {', '.join(PERTURBATIONS)}")
        if key in ("coretype", "threads") and not value:
            raise ValueError(f"{key} needs a value, e.g. {key}={'Sandybridge' if key == 'coretype' else '1'}")
        out[key] = value or True
    return out


def kernel_env(perturb):
    """The environment for the kernel: this process's, plus the perturbation's variables."""
    env = dict(os.environ)
    if "coretype" in perturb:
        env["OPENBLAS_CORETYPE"] = str(perturb["coretype"])
    if "threads" in perturb:
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            env[var] = str(perturb["threads"])
    if "nosimd" in perturb:
        targets = simd_targets()
        if targets:
            env["NPY_DISABLE_CPU_FEATURES"] = " ".join(targets)
    env.pop("MPLBACKEND", None)
    return env


def simd_targets():
    """NumPy's dispatched SIMD targets that this CPU runs (e.g. X86_V3 on NumPy 2.4, AVX2/FMA3/AVX512F on
    older NumPy): the names ``NPY_DISABLE_CPU_FEATURES`` takes to fall back to the baseline loops.
    Names NumPy does not know are silently ignored by it, so they are read from NumPy itself."""
    try:
        from numpy._core import _multiarray_umath as mu
    except ImportError:  # NumPy 1.x
        from numpy.core import _multiarray_umath as mu
    features = getattr(mu, "__cpu_features__", {})
    return [t for t in getattr(mu, "__cpu_dispatch__", []) if features.get(t)]


def sanitizers(path=SANITIZE_FILE):
    """(compiled regex, replacement) pairs from an nbval sanitize file."""
    pairs, regex = [], None
    for line in Path(path).read_text().splitlines():
        if line.startswith("regex:"):
            regex = line[len("regex:"):].strip()
        elif line.startswith("replace:") and regex is not None:
            pairs.append((re.compile(regex), line[len("replace:"):].strip()))
            regex = None
    return pairs


def _skipped(cell):
    tags = set(cell.get("metadata", {}).get("tags", []))
    src = "".join(cell.get("source", ""))
    return bool(tags & {"nbval-ignore-output", "nbval-skip", "raises-exception"}) or \
        any(m in src for m in ("# NBVAL_IGNORE_OUTPUT", "# NBVAL_SKIP"))


def cell_text(cell, subs):
    """The text nbval compares for one code cell: streams, text/plain results, errors; sanitized."""
    parts, last_stream = [], None
    for out in cell.get("outputs", []):
        kind = out.get("output_type")
        if kind == "stream":   # a kernel may split one print into several stream messages: join them
            text = out.get("text", "")
            text = "".join(text) if isinstance(text, list) else text
            name = out.get("name", "stdout")
            if last_stream == name:
                parts[-1] += text
            else:
                parts.append(f"[{name}] " + text)
            last_stream = name
            continue
        last_stream = None
        if kind in ("execute_result", "display_data"):
            plain = out.get("data", {}).get("text/plain")
            if plain is not None:
                parts.append("[result] " + ("".join(plain) if isinstance(plain, list) else plain))
        elif kind == "error":
            parts.append(f"[error] {out.get('ename')}: {out.get('evalue')}")
    text = "\n".join(parts)
    for regex, repl in subs:
        text = regex.sub(repl, text)
    return text


def execute(path, perturb, timeout=600):
    """Execute the notebook at ``path`` under ``perturb``; return (executed notebook, values nudged or None)."""
    import nbformat
    from nbclient import NotebookClient

    path = Path(path)
    nb = nbformat.read(str(path), as_version=4)
    run = copy.deepcopy(nb)
    ulp = bool(perturb.get("ulp"))
    if ulp:
        run.cells.insert(0, nbformat.v4.new_code_cell(ULP_SETUP))
        run.cells.append(nbformat.v4.new_code_cell(ULP_REPORT))
    for cell in run.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    client = NotebookClient(run, timeout=timeout, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(path.parent.resolve())}})
    client.execute(env=kernel_env(perturb))
    nudged = None
    if ulp:
        setup, report = run.cells.pop(0), run.cells.pop()
        text = cell_text(report, [])
        if setup.outputs or not re.search(r"nudged (\d+)", text):
            raise RuntimeError(f"the ulp set-up did not run cleanly: {cell_text(setup, [])!r} {text!r}")
        nudged = int(re.search(r"nudged (\d+)", text).group(1))
    return run, nudged


def differences(stored, executed, subs=None):
    """[(cell index, stored text, new text)] for checked code cells whose sanitized text differs."""
    subs = sanitizers() if subs is None else subs
    diffs = []
    for i, (old, new) in enumerate(zip(stored.cells, executed.cells)):
        if old.cell_type != "code" or _skipped(old):
            continue
        a, b = cell_text(old, subs), cell_text(new, subs)
        if a != b:
            diffs.append((i, a, b))
    return diffs


def check(path, perturb, timeout=600):
    """Execute ``path`` under ``perturb``; return (differences, values nudged or None)."""
    import nbformat
    stored = nbformat.read(str(path), as_version=4)
    executed, nudged = execute(path, perturb, timeout=timeout)
    return differences(stored, executed), nudged


def report(path, diffs):
    lines = [f"{path}: {len(diffs)} cell(s) print something else than the stored output"]
    for i, a, b in diffs:
        import difflib
        delta = difflib.unified_diff(a.splitlines(), b.splitlines(), "stored", "perturbed", lineterm="", n=1)
        lines.append(f"--- cell {i}:")
        lines.extend("    " + d for d in delta)
    return "\n".join(lines)


def main(argv):
    if len(argv) < 1 or argv[0] in ("-h", "--help"):
        print(__doc__)
        print("perturbations:", json.dumps(PERTURBATIONS, indent=1))
        return 2
    paths = [a for a in argv if a.endswith(".ipynb")]
    perturb = parse([a for a in argv if not a.endswith(".ipynb")])
    bad = 0
    for p in paths:
        diffs, nudged = check(p, perturb)
        extra = f" ({nudged} values nudged)" if nudged is not None else ""
        if diffs:
            bad += 1
            print(report(p, diffs) + extra)
        else:
            print(f"{p}: same printed output under {perturb}{extra}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
