"""Every notebook prints the same text when the floating-point conditions change.

The stored outputs of ``lessons/`` and ``notebooks/`` are checked by ``pytest --nbval`` on one machine;
a print decided by the last bits of a float (an argmax between two equal logits, a 9-digit sum) would pass
there and fail on the next machine. This module re-executes every notebook under perturbed conditions
(see ``tests/nb_perturb.py``: another OpenBLAS kernel, another thread count, NumPy's baseline SIMD loops,
every random draw one float32 ulp away) and requires the same printed text, cell by cell, after the
sanitizers of ``nbval_sanitize.cfg``.

Which perturbations run is chosen by ``AUTOGRADLAB_PERTURB``:

- unset: one combined configuration, ``coretype=Prescott,threads=1,nosimd,ulp`` (each notebook runs once
  more; this is what ``bash dev.sh test`` and CI run);
- ``matrix``: every perturbation on its own, then the combination (seven runs per notebook; minutes)::

      AUTOGRADLAB_PERTURB=matrix .venv/bin/python -m pytest tests/test_notebooks_perturbed.py -v

- a configuration, or several separated by ``;``: e.g. ``AUTOGRADLAB_PERTURB="coretype=Sandybridge;ulp"``;
- ``off``: skip the notebook runs (the checks of the machinery itself still run).

One notebook under one perturbation, from the command line, with a diff of what changed::

    .venv/bin/python tests/nb_perturb.py lessons/09_capstone.ipynb coretype=Sandybridge ulp
"""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import nb_perturb  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(str(p.relative_to(ROOT)) for d in ("lessons", "notebooks")
                   for p in (ROOT / d).glob("*.ipynb"))

DEFAULT = "coretype=Prescott,threads=1,nosimd,ulp"
MATRIX = ["coretype=Prescott", "coretype=Sandybridge", "threads=1", "threads=2", "nosimd", "ulp", DEFAULT]


def _configs():
    choice = os.environ.get("AUTOGRADLAB_PERTURB", "").strip()
    if choice.lower() in ("off", "0", "no", "none"):
        return []
    if choice.lower() == "matrix":
        return MATRIX
    if choice:
        return [c.strip() for c in choice.split(";") if c.strip()]
    return [DEFAULT]


_CONFIGS = _configs()
_RANDOM = re.compile(r"manual_seed|default_rng|make_(moons|circles|spirals|blobs|regression)|randn|rand\(|nn\.")


def _uses_random_draws(path):
    import nbformat
    nb = nbformat.read(str(ROOT / path), as_version=4)
    return any(_RANDOM.search(c.source) for c in nb.cells if c.cell_type == "code")


@pytest.mark.slow
@pytest.mark.perturbed
@pytest.mark.skipif(not _CONFIGS, reason="AUTOGRADLAB_PERTURB=off")
@pytest.mark.parametrize("config", _CONFIGS)
@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_notebook_prints_the_same_under_perturbation(notebook, config):
    perturb = nb_perturb.parse(config)
    diffs, nudged = nb_perturb.check(ROOT / notebook, perturb)
    if diffs:
        plain, _ = nb_perturb.check(ROOT / notebook, {})   # only on failure: is it the noise, or stale outputs?
        stale = sorted({i for i, _, _ in plain} & {i for i, _, _ in diffs})
        why = (f"cells {stale} print something else without any perturbation too: the stored outputs are stale "
               f"(or depend on this machine); re-execute the notebook (lessons/README.md) and look again."
               if stale else
               f"under {config}: a printed number depends on last-bit floating-point noise. Print what the "
               "lesson means instead (round to stable digits, a range, a boolean), or change the setup so the "
               "math decides; see tests/README.md.")
        pytest.fail(nb_perturb.report(notebook, diffs) + "\n\n" + why, pytrace=False)
    if nudged is not None and _uses_random_draws(notebook):
        assert nudged > 0, f"{notebook} draws random numbers, but the ulp perturbation nudged none of them"


# -- the machinery itself: it perturbs for real, and it catches a fragile print ------------------------------

def _notebook(tmp_path, sources):
    """Write a notebook with these code cells, execute it plainly, store its outputs; return its path."""
    import nbformat
    from nbclient import NotebookClient
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in sources]
    NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    path = tmp_path / "probe.ipynb"
    nbformat.write(nb, str(path))
    return path


FRAGILE = [
    # 0: a robust print: rounded far from any rounding boundary
    "import numpy as np\nx = np.random.default_rng(0).random(1000).astype(np.float32)\nprint(f'mean {x.mean():.2f}')",
    # 1: a fragile print: every bit of a random float32 and of a float32 sum
    "print('first', repr(float(x[0])), 'sum', repr(float(x.sum())))",
    # 2: a fragile print: every bit of a float32 matrix product (BLAS)
    "A = np.random.default_rng(1).standard_normal((96, 96)).astype(np.float32)\n"
    "print('matmul', repr(float((A @ A @ A).sum())))",
    # 3: a fragile print: every bit of float32 exp/log sums (NumPy's SIMD loops)
    "z = np.linspace(-3, 3, 1001, dtype=np.float32)\nprint('exp', repr(float(np.exp(z).sum() + np.log1p(np.exp(z)).sum())))",
]


def test_ulp_perturbation_catches_a_fragile_print_and_passes_a_robust_one(tmp_path):
    path = _notebook(tmp_path, FRAGILE[:2])
    diffs, nudged = nb_perturb.check(path, nb_perturb.parse("ulp"))
    assert nudged == 1000
    assert [i for i, _, _ in diffs] == [1], diffs


def test_unperturbed_rerun_finds_no_difference(tmp_path):
    path = _notebook(tmp_path, FRAGILE)
    diffs, nudged = nb_perturb.check(path, {})
    assert diffs == [] and nudged is None


def test_blas_and_simd_perturbations_change_last_bits_on_this_machine(tmp_path):
    """coretype= and nosimd act on last bits where this CPU and NumPy build let them (else: skip, saying so)."""
    path = _notebook(tmp_path, FRAGILE)
    caught = {}
    for config in ("coretype=Prescott", "nosimd"):
        diffs, _ = nb_perturb.check(path, nb_perturb.parse(config))
        assert 0 not in [i for i, _, _ in diffs], "the rounded mean must not change"
        caught[config] = [i for i, _, _ in diffs]
    if not caught["coretype=Prescott"] and not caught["nosimd"]:
        pytest.skip(f"neither OPENBLAS_CORETYPE nor NPY_DISABLE_CPU_FEATURES changes a float32 result here "
                    f"(NumPy SIMD targets: {nb_perturb.simd_targets()})")
    assert 2 in caught["coretype=Prescott"] or 3 in caught["nosimd"], caught


def test_ulp_setup_moves_each_draw_up_by_one_float32_ulp(monkeypatch):
    import numpy as np
    plain = np.random.default_rng
    monkeypatch.setattr(np.random, "default_rng", plain)      # restored after the test
    namespace = {}
    exec(nb_perturb.ULP_SETUP, namespace)                      # noqa: S102  (our own set-up code)
    nudged_rng = np.random.default_rng
    assert nudged_rng is not plain
    a, b = plain(3).normal(size=50), nudged_rng(3).normal(size=50)
    expected = np.nextafter(a.astype(np.float32), np.float32(np.inf))
    assert np.array_equal(b.astype(np.float32), expected)      # exactly one float32 ulp above
    assert np.array_equal(plain(3).integers(0, 9, 20), nudged_rng(3).integers(0, 9, 20))   # ints untouched
    assert namespace["_AGL_NUDGED"][0] == 50


def test_outputs_are_compared_as_nbval_sees_them():
    subs = nb_perturb.sanitizers()
    split = {"outputs": [{"output_type": "stream", "name": "stdout", "text": "a = 1"},
                         {"output_type": "stream", "name": "stdout", "text": "\nobject at 0x7f3a2c1d5e10\n"}]}
    whole = {"outputs": [{"output_type": "stream", "name": "stdout", "text": "a = 1\nobject at 0x55aa00ff\n"}]}
    assert nb_perturb.cell_text(split, subs) == nb_perturb.cell_text(whole, subs)
    result = {"outputs": [{"output_type": "execute_result", "data": {"text/plain": "2", "image/png": "..."}}]}
    assert nb_perturb.cell_text(result, subs) == "[result] 2"


def test_perturbation_specs_are_checked():
    assert nb_perturb.parse("coretype=Prescott,threads=1,nosimd,ulp") == {
        "coretype": "Prescott", "threads": "1", "nosimd": True, "ulp": True}
    with pytest.raises(ValueError, match="unknown perturbation"):
        nb_perturb.parse("coretyp=Prescott")
    with pytest.raises(ValueError, match="needs a value"):
        nb_perturb.parse("threads")
    env = nb_perturb.kernel_env(nb_perturb.parse(DEFAULT))
    assert env["OPENBLAS_CORETYPE"] == "Prescott" and env["OMP_NUM_THREADS"] == "1"
    # (the CPU's targets; none left when this process already runs with them disabled, and then the inherited
    # setting stays)
    expected = " ".join(nb_perturb.simd_targets()) or os.environ.get("NPY_DISABLE_CPU_FEATURES", "")
    assert env.get("NPY_DISABLE_CPU_FEATURES", "") == expected


def test_every_notebook_is_covered():
    assert "lessons/09_capstone.ipynb" in NOTEBOOKS and any(n.startswith("notebooks/") for n in NOTEBOOKS)
