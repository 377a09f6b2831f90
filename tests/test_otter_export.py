"""The otter-grader export: every lesson becomes an otter assignment that otter itself accepts and grades.

- structure (no otter needed): one question per exercise, solutions in otter's markers with a
  prompt that raises with the hint, a visible and a hidden test per question plus the hidden tests
  of hidden_tests.py, predictions in their student form;
- with otter installed (the `otter` extra; dev.sh installs it, so CI runs this): `otter assign` on
  lesson 02 builds the student notebook (no solutions, no hidden tests) and the autograder zip, and
  `otter run` with that zip gives the solution full marks and the student copy zero.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from autogradlab.lessons.otter import export_otter, judge, question_name

ROOT = Path(__file__).resolve().parents[1]
LESSONS = ROOT / "lessons"


def _src(cell):
    s = cell["source"]
    return "".join(s) if isinstance(s, list) else s


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = tmp_path_factory.mktemp("otter")
    written = export_otter(LESSONS, out, log=lambda *_: None)
    return out, written


def test_every_lesson_exports_one_question_per_exercise(exported):
    out, written = exported
    assert len(written) == len(list(LESSONS.glob("*.ipynb"))) == 9
    names = {p.parent.name: q for p, q in written}
    assert names["02_chain_rule"] == ["q2_1", "q2_2"] and names["03_topological_order"] == ["q3_1", "q3_2"]
    assert question_name("2.1") == "q2_1"
    for path, _ in written:
        assert (path.parent / "requirements.txt").read_text().strip() == "autogradlab"


def test_the_master_notebook_uses_otters_markers(exported):
    out, _ = exported
    nb = json.loads((out / "02_chain_rule" / "02_chain_rule.ipynb").read_text())
    raw = [_src(c).split("\n")[0] for c in nb["cells"] if c["cell_type"] == "raw"]
    assert raw[0] == "# ASSIGNMENT CONFIG"
    assert raw.count("# BEGIN QUESTION") == raw.count("# END QUESTION") == 2
    assert raw.count("# BEGIN TESTS") == 2 and raw.count("# BEGIN SOLUTION") == 2
    code = [_src(c) for c in nb["cells"] if c["cell_type"] == "code"]
    solution = next(s for s in code if "def mul_vjp" in s)
    assert "# BEGIN SOLUTION NO PROMPT" in solution and "# END SOLUTION" in solution
    assert '""" # BEGIN PROMPT' in solution and 'raise NotImplementedError("Hint: the local derivative' in solution
    assert "### BEGIN" not in "\n".join(code)
    tests = [s for s in code if "judge" in s]
    assert sum("hidden: true" in s for s in tests) == 3      # fresh-input judge for 2.1 and 2.2, and 2.1h
    assert any("judge_hidden('2.1h', mul_vjp, 'mul_vjp')" in s for s in tests)
    # the hidden tests' text is in no cell (otter prints a failing test's source): it is a file of the
    # autograder only
    hidden_text = (LESSONS / "hidden_tests.py").read_text()
    assert "def mul_vjp_4d(" in hidden_text and not any("mul_vjp_4d" in s for s in code)   # (its test's name)
    assert (out / "02_chain_rule" / "hidden_tests.py").read_text() == hidden_text
    assert "autograder_files:\n  - hidden_tests.py" in _src(nb["cells"][0])
    assert any(s.startswith("dL_dv = None  # your prediction") for s in code)


def test_the_exported_tests_judge_like_the_grader():
    judge("check_mul_vjp", lambda a, b, g: (g * b, g * a), "mul_vjp", seed=0)
    with pytest.raises(AssertionError, match=r"\[check 2.1\] not right yet"):
        judge("check_mul_vjp", lambda a, b, g: (g * a, g * b), "mul_vjp")


def _otter():
    exe = Path(sys.executable).with_name("otter")
    if exe.exists():
        return str(exe)
    if os.environ.get("CI"):
        pytest.fail("otter-grader is not installed: dev.sh installs the `otter` extra; CI must run this test")
    pytest.skip("otter-grader not installed (pip install 'autogradlab[otter]')")


def test_otter_assign_and_otter_run_grade_the_exported_lesson(exported, tmp_path):
    otter = _otter()
    out, _ = exported
    folder = tmp_path / "02"
    shutil.copytree(out / "02_chain_rule", folder)
    proc = subprocess.run([otter, "assign", "02_chain_rule.ipynb", "dist"], cwd=folder, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    student = (folder / "dist" / "student" / "02_chain_rule.ipynb").read_text()
    assert "return g * b, g * a" not in student and "judge_hidden" not in student and "2.1h" not in student
    assert 'grader.check(\\"q2_1\\")' in student
    assert not list((folder / "dist" / "student").rglob("hidden_tests.py"))
    (zip_path,) = (folder / "dist" / "autograder").glob("*.zip")
    with zipfile.ZipFile(zip_path) as z:
        assert any(n.endswith("hidden_tests.py") for n in z.namelist()), z.namelist()
        hidden_text = (LESSONS / "hidden_tests.py").read_text()
        assert not any(hidden_text[:60] in z.read(n).decode(errors="replace") for n in z.namelist()
                       if n.startswith("tests/"))
    scores = {}
    for name, source in [("solution", folder / "dist" / "autograder" / "02_chain_rule.ipynb"),
                         ("student", folder / "dist" / "student" / "02_chain_rule.ipynb")]:
        run_dir = tmp_path / name
        run_dir.mkdir()
        shutil.copy(source, run_dir / "submission.ipynb")
        proc = subprocess.run([otter, "run", "-a", str(zip_path), "-o", str(run_dir), "submission.ipynb"],
                              cwd=run_dir, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
        results = json.loads((run_dir / "results.json").read_text())
        scores[name] = {t["name"]: (t.get("score"), t.get("max_score")) for t in results["tests"] if "score" in t}
    # q2_1: the visible test, the same judge on fresh inputs (hidden) and hidden test 2.1h; q2_2: two
    assert scores["solution"] == {"q2_1": (3.0, 3.0), "q2_2": (2.0, 2.0)}, scores
    assert scores["student"] == {"q2_1": (0.0, 3.0), "q2_2": (0.0, 2.0)}, scores
