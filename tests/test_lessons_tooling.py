"""The course tooling: student copies, the student notebooks running clean, and the exercise checks.

- ``python -m autogradlab.lessons student lessons/ OUTDIR`` replaces every solution region by a stub
  with its hint, clears outputs, and leaves the instructor files untouched;
- every STUDENT lesson runs top to bottom without an error, and each of its checks says
  "not yet implemented";
- the checks explain wrong answers precisely (which output, which element, by how much) and never
  raise.
"""
from __future__ import annotations

import hashlib
import io
import json
import re
import subprocess
import sys
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np
import pytest
from conftest import graph_leaves
from torch_compare import exp_function

import autogradlab as ag
from autogradlab.lessons import checks
from autogradlab.lessons.grading import CHECK_LINE, parse_outputs
from autogradlab.lessons.student import (BEGIN, END, StudentCopyError, make_student_copies,
                                         make_student_notebook)

ROOT = Path(__file__).resolve().parents[1]
LESSONS = ROOT / "lessons"
LESSON_FILES = sorted(LESSONS.glob("*.ipynb"))


def _src(cell):
    s = cell["source"]
    return "".join(s) if isinstance(s, list) else s


def _code_cells(nb):
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def _load(path):
    return json.loads(Path(path).read_text(encoding="utf-8"))


def _digest(folder):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(Path(folder).iterdir()) if p.is_file()}


def _nb(*cells):
    """A minimal notebook from (kind, source, outputs) triples."""
    out = []
    for kind, source, *rest in cells:
        cell = {"cell_type": kind, "metadata": {}, "source": source}
        if kind == "code":
            cell.update(execution_count=3, outputs=rest[0] if rest else [
                {"output_type": "stream", "name": "stdout", "text": "old output\n"}])
            cell["metadata"]["execution"] = {"iopub.status.busy": "2024-01-01T00:00:00"}
        out.append(cell)
    return {"cells": out, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


# ---------------------------------------------------------------------------------------
# The generator, on small synthetic notebooks
# ---------------------------------------------------------------------------------------

def test_solution_region_becomes_stub_with_hint_at_the_same_indentation():
    nb = _nb(("code", "def f(a, b):\n    ### HINT: multiply them\n    ### BEGIN SOLUTION\n    secret = a * b\n"
                      "    return secret\n    ### END SOLUTION\n\nprint('after')"))
    student, n, p = make_student_notebook(nb)
    src = _src(student["cells"][0])
    assert (n, p) == (1, 0)
    assert "secret" not in src and BEGIN not in src and END not in src and "### HINT" not in src
    assert "    # Hint: multiply them\n    # YOUR CODE HERE\n    raise NotImplementedError(\"Hint: multiply them\")" in src
    assert src.startswith("def f(a, b):") and src.endswith("print('after')")
    compile(src, "<student>", "exec")


def test_each_region_gets_its_own_hint_and_a_default_when_none():
    nb = _nb(("code", "class C:\n    def a(self):\n        ### HINT: first\n        ### BEGIN SOLUTION\n        return 1\n"
                      "        ### END SOLUTION\n\n    def b(self):\n        ### BEGIN SOLUTION\n        return 2\n"
                      "        ### END SOLUTION\n"))
    src = _src(make_student_notebook(nb)[0]["cells"][0])
    stubs = re.findall(r"raise NotImplementedError\((.*)\)", src)
    assert stubs == ['"Hint: first"', '"replace this line with your code"']
    compile(src, "<student>", "exec")


def test_prediction_regions_become_none_assignments():
    nb = _nb(("code", "### BEGIN PREDICTION\nguess = 6.0\nother = [1, 2]\n### END PREDICTION"))
    student, n, p = make_student_notebook(nb)
    assert (n, p) == (0, 1)
    assert _src(student["cells"][0]) == "guess = None  # your prediction\nother = None  # your prediction"


def test_markdown_answers_are_removed_and_outputs_cleared():
    nb = _nb(("markdown", "Why?\n<!-- BEGIN SOLUTION -->\nBecause.\n<!-- END SOLUTION -->\nNext."),
             ("code", "x = 1\nx"))
    student, _, _ = make_student_notebook(nb)
    assert _src(student["cells"][0]) == "Why?\n*Your answer here.*\nNext."
    code = student["cells"][1]
    assert code["outputs"] == [] and code["execution_count"] is None and "execution" not in code["metadata"]
    assert nb["cells"][1]["outputs"], "the input notebook must not be modified"


@pytest.mark.parametrize("source, message", [
    ("### BEGIN SOLUTION\nx = 1\n", "never closed"),
    ("x = 1\n### END SOLUTION\n", "without a matching"),
    ("### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION\n", "cannot nest"),
    ("### BEGIN PREDICTION\nx = 1\n### END SOLUTION\n", "without a matching"),
])
def test_malformed_markers_are_reported_with_their_place(source, message):
    with pytest.raises(StudentCopyError, match=message) as info:
        make_student_notebook(_nb(("code", "y = 0\n" + source)), "lesson.ipynb")
    assert re.search(r"lesson\.ipynb, cell 0: .*line \d+", str(info.value)), str(info.value)


def test_refuses_to_overwrite_the_instructor_folder(tmp_path):
    (tmp_path / "a.ipynb").write_text(json.dumps(_nb(("code", "x = 1"))))
    with pytest.raises(StudentCopyError, match="overwrite"):
        make_student_copies(tmp_path, tmp_path, log=lambda *_: None)


# ---------------------------------------------------------------------------------------
# The generator on the real lessons, through the command line
# ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def student_dir(tmp_path_factory):
    assert LESSON_FILES, "no lessons found"
    out = tmp_path_factory.mktemp("student")
    before = _digest(LESSONS)
    proc = subprocess.run([sys.executable, "-m", "autogradlab.lessons", "student", str(LESSONS), str(out)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert _digest(LESSONS) == before, "the instructor lessons were modified"
    return out, proc.stdout


def test_cli_writes_one_student_copy_per_lesson(student_dir):
    out, stdout = student_dir
    assert sorted(p.name for p in out.glob("*.ipynb")) == [p.name for p in LESSON_FILES]
    assert not (out / "README.md").exists(), "the instructor guide must not go to students"
    assert re.search(r"wrote 9 notebook\(s\) with \d+ exercise region\(s\)", stdout)


@pytest.mark.parametrize("lesson", LESSON_FILES, ids=lambda p: p.stem)
def test_student_copy_has_stubs_hints_and_no_solutions_or_outputs(student_dir, lesson):
    out, _ = student_dir
    instructor, student = _load(lesson), _load(out / lesson.name)
    assert len(instructor["cells"]) == len(student["cells"])
    assert any(c.get("outputs") for c in _code_cells(instructor)), "instructor lessons keep their outputs"
    regions = 0
    for ic, sc in zip(instructor["cells"], student["cells"]):
        if sc["cell_type"] == "code":
            assert sc["outputs"] == [] and sc["execution_count"] is None
        isrc, ssrc = _src(ic), _src(sc)
        if sc["cell_type"] != "code" or BEGIN not in isrc:
            continue
        lines = isrc.split("\n")
        inside, solution, outside = False, [], []
        for line in lines:
            if line.strip() == BEGIN:
                inside = True
            elif line.strip() == END:
                inside = False
            elif line.strip():
                (solution if inside else outside).append(line.strip())
        regions += isrc.count(BEGIN)
        assert BEGIN not in ssrc and END not in ssrc
        assert ssrc.count("raise NotImplementedError(") == isrc.count(BEGIN)
        for hint in re.findall(r"### HINT: (.*)", isrc):
            assert f"# Hint: {hint.strip()}" in ssrc
            assert json.dumps(f"Hint: {hint.strip()}")[1:-1] in ssrc
        leaked = [s for s in solution if s not in outside and s in {x.strip() for x in ssrc.split("\n")}]
        assert not leaked, f"solution lines left in the student copy: {leaked}"
        compile(ssrc.replace("%matplotlib inline", ""), lesson.name, "exec")
    assert regions >= 1, f"{lesson.name} has no exercise"


# ---------------------------------------------------------------------------------------
# The student lessons run clean, every check saying "not yet implemented"
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("lesson", LESSON_FILES, ids=lambda p: p.stem)
def test_student_lesson_runs_clean_and_every_check_is_not_yet_implemented(student_dir, lesson):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    out, _ = student_dir
    path = out / lesson.name
    nb = nbformat.read(str(path), as_version=4)
    nbclient.NotebookClient(nb, timeout=120, allow_errors=True, kernel_name="python3",
                            resources={"metadata": {"path": str(out)}}).execute()
    found, crash = parse_outputs(nb)
    assert crash is None, f"{lesson.name}: {crash}"
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            assert o["output_type"] != "error"
            if o["output_type"] == "stream" and o["name"] == "stderr":
                assert "Traceback" not in o["text"], o["text"]
    expected = sum(len(re.findall(r"checks\.check_\w+\(", _src(c))) for c in _code_cells(nb))
    assert expected >= 1
    assert len(found) == expected, f"{lesson.name}: {len(found)} check verdicts for {expected} check calls"
    for check_id, status, detail in found:
        assert status == "not yet implemented", f"{lesson.name} check {check_id}: {status} - {detail}"
        assert "NotImplementedError" in detail and "Hint:" in detail
    stdout = "".join(o.get("text", "") for c in nb.cells for o in c.get("outputs", [])
                     if o["output_type"] == "stream")
    for line in stdout.splitlines():
        if line.startswith("[predict "):
            assert "no prediction yet" in line, line


# ---------------------------------------------------------------------------------------
# The checks: precise, plain-words verdicts; never an exception
# ---------------------------------------------------------------------------------------

def _run(check, *args, **kwargs):
    buf = io.StringIO()
    with redirect_stdout(buf):
        result = check(*args, **kwargs)
    assert result is None
    text = buf.getvalue().strip()
    assert len(text.splitlines()) == 1, text
    m = CHECK_LINE.match(text)
    assert m, text
    return m.group(2), m.group(3) or ""


def test_correct_answers_pass():
    assert _run(checks.check_mul_vjp, lambda a, b, g: (g * b, g * a))[0] == "correct"
    assert _run(checks.check_unbroadcast, _good_unbroadcast)[0] == "correct"
    assert _run(checks.check_matmul_vjp, lambda A, B, G: (G @ B.T, A.T @ G))[0] == "correct"


def _good_unbroadcast(g, shape):
    while g.ndim > len(shape):
        g = g.sum(0)
    for ax, n in enumerate(shape):
        if n == 1:
            g = g.sum(ax, keepdims=True)
    return g


def test_a_wrong_gradient_names_the_element_and_the_difference():
    def off_by_one(a, b, g):
        ga = g * b
        if np.ndim(ga) == 2:
            ga = ga.copy()
            ga[1, 2] += 1.0
        return ga, g * a
    status, detail = _run(checks.check_mul_vjp, off_by_one)
    assert status == "not right yet"
    assert "element [1, 2] of grad_a" in detail
    assert "difference +1" in detail
    assert "1 of 6 elements differ" in detail
    assert "shape (2, 3)" in detail  # the test case is named


def test_swapped_factors_get_a_targeted_explanation():
    status, detail = _run(checks.check_mul_vjp, lambda a, b, g: (g * a, g * b))
    assert status == "not right yet" and "grad_a = g * b" in detail


def test_wrong_shape_is_reported_as_such():
    status, detail = _run(checks.check_unbroadcast, lambda g, shape: g.sum(0))
    assert status == "not right yet"
    assert "g of shape (3, 4) -> shape (3, 1): the result has shape (4,) but should have shape (3, 1)" in detail


def test_a_scalar_mistake_reports_expected_found_and_difference():
    status, detail = _run(checks.check_newton_step, lambda f, x: x.item())
    assert status == "not right yet"
    assert "x=0: the new x is 0 but should be 3 (difference -3)" in detail, detail


def test_not_implemented_stub_is_reported_with_its_hint():
    def stub(*args):
        raise NotImplementedError("Hint: multiply by the other factor")
    status, detail = _run(checks.check_mul_vjp, stub)
    assert status == "not yet implemented"
    assert "Hint: multiply by the other factor" in detail


def test_an_exception_in_student_code_is_caught_and_shown():
    def broken(a, b, g):
        return 1 / 0
    status, detail = _run(checks.check_mul_vjp, broken)
    assert status == "not right yet"
    assert "raised ZeroDivisionError: division by zero" in detail


def test_forgotten_zero_grad_and_missing_scaling_are_explained():
    def keeps_old(w, X, y, k):
        n = X.shape[0]
        for idx in np.array_split(np.arange(n), k):
            (((X[idx] @ w - y[idx]) ** 2).sum() / n).backward()
        return w.grad
    status, detail = _run(checks.check_grad_by_microbatches, keeps_old)
    assert status == "not right yet" and "old gradient" in detail and "w.grad = None" in detail

    def unscaled(w, X, y, k):
        w.grad = None
        for idx in np.array_split(np.arange(X.shape[0]), k):
            ((X[idx] @ w - y[idx]) ** 2).mean().backward()
        return w.grad
    status, detail = _run(checks.check_grad_by_microbatches, unscaled)
    assert status == "not right yet"
    assert "k=3 micro-batches" in detail and "3 times too large" in detail

    def mean_over_k(w, X, y, k):        # right only when the chunks have equal sizes
        w.grad = None
        for idx in np.array_split(np.arange(X.shape[0]), k):
            (((X[idx] @ w - y[idx]) ** 2).mean() / k).backward()
        return w.grad
    status, detail = _run(checks.check_grad_by_microbatches, mean_over_k)
    assert status == "not right yet" and "k=5 micro-batches" in detail


def test_reveal_normalises_how_an_answer_is_written(capsys):
    checks.reveal("t.1", "(2,1)", "(2, 1)")
    checks.reveal("t.2", "W,", "w")
    checks.reveal("t.3", "x, w", "w, x")
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("[predict t.1] right!") and out[1].startswith("[predict t.2] right!")
    assert out[2].startswith("[predict t.3] not quite")


def test_a_breadth_first_order_is_rejected_with_the_offending_pair():
    def bfs(root):
        order, seen, queue = [], {root}, [root]
        while queue:
            node = queue.pop(0)
            order.append(node)
            for child, _ in node.next_functions:
                if child is not None and child not in seen:
                    seen.add(child)
                    queue.append(child)
        return order
    status, detail = _run(checks.check_topo_sort, bfs)
    assert status == "not right yet"
    assert "must come first" in detail and "AccumulateGrad (of" in detail


def test_saving_the_input_of_exp_is_pointed_out():
    class SavesInput(ag.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.exp()

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x.exp()
    status, detail = _run(checks.check_exp_function, SavesInput)
    assert status == "not right yet" and "saved its input" in detail


def test_a_mini_backward_that_runs_the_librarys_backward_or_skips_node_apply_is_rejected():
    def by_the_library(root):
        root.backward()
        return {name: leaf.grad.data for name, leaf in graph_leaves(root).items()}

    def applies_only_the_root(root):
        """Applies the root's node only: the nodes below it never run."""
        with ag.no_grad():
            root.grad_fn.apply(ag.ones_like(root))
        leaves = graph_leaves(root)
        return {name: np.zeros(leaf.shape) for name, leaf in leaves.items()}

    status, detail = _run(checks.check_mini_backward, by_the_library)
    assert status == "not right yet" and "ran autogradlab's own backward" in detail, detail
    status, detail = _run(checks.check_mini_backward, applies_only_the_root)
    assert status == "not right yet" and "never called node.apply on" in detail, detail


def test_the_exercises_done_by_hand_refuse_the_librarys_backward():
    def mul_vjp(a, b, g):
        A, B = (ag.tensor(np.asarray(v, dtype=float), requires_grad=True) for v in (a, b))
        return tuple(t.numpy() for t in ag.autograd.grad(A * B, (A, B), ag.tensor(np.asarray(g, dtype=float))))

    def matmul_vjp(A, B, G):
        a, b = ag.tensor(A, requires_grad=True), ag.tensor(B, requires_grad=True)
        (a @ b).backward(ag.tensor(G))
        return a.grad.numpy(), b.grad.numpy()
    for check, answer in [(checks.check_mul_vjp, mul_vjp), (checks.check_matmul_vjp, matmul_vjp)]:
        status, detail = _run(check, answer)
        assert status == "not right yet" and "ran autogradlab's own backward" in detail, detail
    assert _run(checks.check_mul_vjp, lambda a, b, g: (g * b, g * a))[0] == "correct"


def test_exp_fn_must_be_a_function_with_its_own_node():
    class NotAFunction:
        @staticmethod
        def apply(x):
            return x.exp()

    ApplyOverridden = exp_function(ag)
    status, _ = _run(checks.check_exp_function, ApplyOverridden)
    assert status == "correct"
    status, detail = _run(checks.check_exp_function, NotAFunction)
    assert status == "not right yet" and "not a subclass of autograd.Function" in detail, detail
    ApplyOverridden.apply = staticmethod(lambda x: x.exp())
    status, detail = _run(checks.check_exp_function, ApplyOverridden)
    assert status == "not right yet" and "not ExpFnBackward" in detail, detail


def test_the_broadcasting_bug_is_recognised():
    def buggy(logits, y):
        t = y.to(ag.float64)
        z = logits
        return (z.relu() - z * t + (1 + (-z.abs()).exp()).log()).mean()
    status, detail = _run(checks.check_fixed_loss, buggy)
    assert status == "not right yet" and "(N, N)" in detail


@pytest.mark.parametrize("name", [n for n in checks.__all__ if n.startswith("check_")])
@pytest.mark.parametrize("bad", [None, 42, "text", lambda *a, **k: None, lambda *a, **k: [[1, 2], [3]]],
                         ids=["None", "int", "str", "returns-None", "returns-ragged"])
def test_no_check_ever_raises(name, bad):
    status, detail = _run(getattr(checks, name), bad)
    assert status == "not right yet" and detail


def test_summary_and_results_record_the_latest_verdicts():
    checks.RESULTS.clear()
    _run(checks.check_mul_vjp, lambda a, b, g: (g * a, g * b))
    _run(checks.check_mul_vjp, lambda a, b, g: (g * b, g * a))
    buf = io.StringIO()
    with redirect_stdout(buf):
        checks.summary()
    assert [r[2] for r in checks.RESULTS] == ["not right yet", "correct"]
    assert "2.1  mul_vjp  correct" in buf.getvalue() and "1 of 1 correct" in buf.getvalue()


def test_reveal_hides_the_answer_until_a_prediction_is_made():
    buf = io.StringIO()
    with redirect_stdout(buf):
        checks.reveal("x", None, 6.0)
        checks.reveal("y", 6.0, ag.tensor(6.0))
        checks.reveal("z", [1.0, 2.0], np.array([1.0, 2.5]))
    lines = buf.getvalue().splitlines()
    assert "no prediction yet" in lines[0] and "6" not in lines[0].replace("[predict x]", "")
    assert lines[1].startswith("[predict y] right!")
    assert lines[2].startswith("[predict z] not quite") and "element [1]" in lines[2]


def test_parse_outputs_reads_verdicts_and_the_first_error():
    nb = {"cells": [
        {"cell_type": "code", "outputs": [{"output_type": "stream", "name": "stdout",
                                           "text": ["[check 1.1] correct - fine\n", "other\n"]}]},
        {"cell_type": "code", "outputs": [{"output_type": "error", "ename": "NameError", "evalue": "x"}]},
        {"cell_type": "code", "outputs": [{"output_type": "stream", "name": "stdout",
                                           "text": "[check 1.2] not yet implemented - stub\n"}]},
    ]}
    found, crash = parse_outputs(nb)
    assert found == [("1.1", "correct", "fine"), ("1.2", "not yet implemented", "stub")]
    assert crash == "cell 1: NameError: x"
