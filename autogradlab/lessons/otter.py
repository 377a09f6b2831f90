"""Export the lessons as otter-grader assignments (``python -m autogradlab.lessons otter lessons/ OUTDIR``).

Each lesson becomes one otter "master" notebook, ``OUTDIR/<lesson>/<lesson>.ipynb``, in otter's
notebook format (raw ``# ASSIGNMENT CONFIG`` / ``# BEGIN QUESTION`` ... ``# END QUESTION`` cells),
plus a ``requirements.txt``. Running ``otter assign <lesson>.ipynb dist`` in that folder then makes the
student notebook and the autograder (``dist/autograder/``, with the zip Gradescope and ``otter grade``
use). For every exercise (a ``### BEGIN SOLUTION`` cell followed by its ``checks.check_x(name)`` cell):

- the solution region becomes ``# BEGIN SOLUTION NO PROMPT`` ... ``# END SOLUTION`` with a prompt
  ``raise NotImplementedError("Hint: ...")`` (otter's ``# BEGIN PROMPT`` block), as in our student copies;
- one visible test runs the grader's judge with a fixed seed (students see it through ``grader.check``);
- one hidden test runs the same judge on fresh inputs (a new seed each time it runs), and each hidden
  test of ``hidden_tests.py`` for that exercise becomes one more hidden test, which reads that file at
  grading time: the file is an ``autograder_files`` entry, so it travels in the autograder zip only, and no
  test's own text (which otter shows when a test fails) holds it.

Predictions and written answers are exported in their student form (otter has no predict-then-reveal).
The notebooks are plain JSON: otter itself is only needed to run ``otter assign``.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from .grading import CHECK_CALL, HIDDEN_TESTS_FILE, instructor_checks
from .student import BEGIN, BEGIN_PRED, END, END_PRED, HINT, MD_BEGIN, MD_END, _markdown_cell, _region_hints, _source

__all__ = ["export_otter", "question_name", "judge", "judge_hidden"]

DEFAULT_REQUIREMENT = "autogradlab"


def question_name(check_id):
    """otter question names are identifiers: check 2.1 -> ``q2_1``."""
    return "q" + re.sub(r"\W", "_", check_id)


# ---------------------------------------------------------------------------------------
# What the exported tests call (inside the student's or the autograder's notebook)
# ---------------------------------------------------------------------------------------

def _local_probe(namespace):
    from .judges import Probe
    from .probes import serve
    return Probe(lambda request: json.loads(serve(json.dumps(request), namespace)))


def _verdict(judge_obj, obj, target, seed):
    import numpy

    from .checks import CORRECT
    from .judges import run_judge
    rng = numpy.random.default_rng(seed)
    status, detail = run_judge(judge_obj, _local_probe({target: obj}), target, rng)
    if status != CORRECT:
        raise AssertionError(f"[check {judge_obj.check_id}] {status} - {detail}")


def judge(check_function, obj, target="answer", seed=None):
    """Run the grader's judge for ``checks.<check_function>`` on ``obj``; raise AssertionError unless correct.

    ``seed=None`` draws fresh inputs (hidden tests); a fixed seed repeats the same ones (visible tests).
    Prints nothing when correct, which is what otter's doctest expects.
    """
    from .judges import JUDGES
    _verdict(JUDGES[check_function], obj, target, seed)


def judge_hidden(check_id, obj, target="answer", seed=None, path=HIDDEN_TESTS_FILE):
    """Run the hidden test ``check_id`` of ``hidden_tests.py`` on ``obj``. The file travels in the autograder
    zip only (``autograder_files``) and is read where the tests run, so no test's text holds it: otter shows a
    failing test's source, and the student notebook never sees the file."""
    from .judges import collect_hidden
    try:
        source = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise AssertionError(f"hidden test {check_id}: cannot read {path} ({exc}); the autograder zip carries it "
                             f"(autograder_files in the assignment config): rebuild it with otter assign") from None
    collect_hidden()
    exec(compile(source, HIDDEN_TESTS_FILE, "exec"), {"__name__": "autogradlab_hidden_tests"})  # noqa: S102
    found = [j for j in collect_hidden() if j.check_id == check_id]
    if not found:
        raise AssertionError(f"hidden test {check_id} is not defined")
    _verdict(found[0], obj, target, seed)


# ---------------------------------------------------------------------------------------
# The export
# ---------------------------------------------------------------------------------------

def _raw(text):
    return {"cell_type": "raw", "metadata": {}, "source": text}


def _code(text):
    return {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": text}


def _solution_cell(text):
    """Our ``### BEGIN SOLUTION`` regions in otter's syntax, each with a prompt that raises with the hint."""
    lines = text.split("\n")
    hints = _region_hints(lines)
    out, inside, prediction = [], None, False
    for number, line in enumerate(lines):
        stripped = line.strip()
        indent = line[: len(line) - len(line.lstrip())]
        if stripped == BEGIN:
            hint = hints.get(number, "")
            message = json.dumps(f"Hint: {hint}" if hint else "replace this line with your code")
            out += [f'{indent}""" # BEGIN PROMPT', f"{indent}# YOUR CODE HERE",
                    f"{indent}raise NotImplementedError({message})", f'{indent}""" # END PROMPT',
                    f"{indent}# BEGIN SOLUTION NO PROMPT"]
            inside = True
        elif stripped == END:
            out.append(f"{indent}# END SOLUTION")
            inside = False
        elif stripped.startswith(HINT):
            if not inside:
                out.append(f"{indent}# Hint: {stripped[len(HINT):].strip()}")
        elif stripped in (BEGIN_PRED, END_PRED):
            prediction = stripped == BEGIN_PRED
        elif prediction:
            m = re.match(r"^(\s*)([A-Za-z_]\w*)\s*=(?!=)", line)
            if m:
                out.append(f"{m.group(1)}{m.group(2)} = None  # your prediction")
        else:
            out.append(line)
    return "\n".join(out)


def _student_form(text):
    """A cell without exercises: predictions become ``name = None``, hint markers comments."""
    return _solution_cell(text)


def _tests(check_function, check_id, target, hidden_ids):
    cells = [_raw("# BEGIN TESTS"),
             _code(f"from autogradlab.lessons.otter import judge\n"
                   f"judge({check_function!r}, {target}, {target!r}, seed=0)"),
             _code(f'""" # BEGIN TEST CONFIG\nhidden: true\n""" # END TEST CONFIG\n'
                   f"from autogradlab.lessons.otter import judge\n"
                   f"judge({check_function!r}, {target}, {target!r})")]
    for hidden_id, hidden_target in hidden_ids:
        cells.append(_code(f'""" # BEGIN TEST CONFIG\nhidden: true\n""" # END TEST CONFIG\n'
                           f"from autogradlab.lessons.otter import judge_hidden\n"
                           f"judge_hidden({hidden_id!r}, {hidden_target}, {hidden_target!r})"))
    cells.append(_raw("# END TESTS"))
    return cells


def _config(name, hidden):
    return _raw("# ASSIGNMENT CONFIG\n"
                f"name: {name}\n"
                "requirements: requirements.txt\n"
                + (f"autograder_files:\n  - {HIDDEN_TESTS_FILE}\n" if hidden else "") +
                "init_cell: true\n"
                "check_all_cell: true\n"
                "export_cell: false\n"
                "run_tests: false\n"
                "generate: true\n"
                "tests:\n  files: false\n  ok_format: true\n")


def export_lesson(path, hidden_judges):
    """The otter master notebook (as a dict) for one instructor lesson, and its question names."""
    nb = json.loads(Path(path).read_text(encoding="utf-8"))
    cells_in = nb.get("cells", [])
    out = [_config(Path(path).stem, any(h.notebook == Path(path).name for h in hidden_judges))]
    questions, i = [], 0
    while i < len(cells_in):
        cell = cells_in[i]
        text = _source(cell)
        if cell.get("cell_type") == "markdown":
            new = dict(cell, source=_markdown_cell(text, f"{path}, cell {i}") if MD_BEGIN in text or MD_END in text
                       else text)
            new.pop("attachments", None) if not new.get("attachments") else None
            out.append(new)
            i += 1
            continue
        if cell.get("cell_type") != "code":
            out.append(cell)
            i += 1
            continue
        if BEGIN not in text:
            out.append(_code(_student_form(text) if BEGIN_PRED in text else text))
            out[-1]["metadata"] = {k: v for k, v in cell.get("metadata", {}).items() if k == "tags"}
            i += 1
            continue
        # an exercise: its solution cell, then the cell that calls its visible check
        j = i + 1
        while j < len(cells_in) and not (cells_in[j].get("cell_type") == "code"
                                         and CHECK_CALL.search(_source(cells_in[j]))):
            j += 1
        if j == len(cells_in):
            raise ValueError(f"{path}: the exercise in cell {i} has no checks.check_...(name) cell after it")
        check_function, target = CHECK_CALL.search(_source(cells_in[j])).groups()
        from .judges import JUDGES
        check_id = JUDGES[check_function].check_id
        name = question_name(check_id)
        hidden_ids = [(h.check_id, h.target) for h in hidden_judges
                      if h.notebook == Path(path).name and h.target == target]
        questions.append(name)
        out.append(_raw(f"# BEGIN QUESTION\nname: {name}\npoints:\n  each: 1"))
        out.append(_raw("# BEGIN SOLUTION"))
        out.append(_code(_solution_cell(text)))
        for between in cells_in[i + 1: j]:
            out.append(_code(_source(between)) if between.get("cell_type") == "code" else between)
        out.append(_raw("# END SOLUTION"))
        out.extend(_tests(check_function, check_id, target, hidden_ids))
        out.append(_raw("# END QUESTION"))
        out.append(_code(_source(cells_in[j])))   # the visible check's plain-words feedback stays
        i = j + 1
    master = {"cells": out, "metadata": {k: v for k, v in nb.get("metadata", {}).items() if k != "widgets"},
              "nbformat": 4, "nbformat_minor": 5}
    for k, cell in enumerate(master["cells"]):
        cell["id"] = f"c{k:03d}"
    return master, questions


def export_otter(lessons_dir, outdir, requirement=DEFAULT_REQUIREMENT, log=print):
    """Write one otter assignment folder per lesson into ``outdir``; returns [(master path, question names)]."""
    lessons_dir, outdir = Path(lessons_dir), Path(outdir)
    if outdir.resolve() == lessons_dir.resolve():
        raise ValueError(f"{outdir} is the lessons folder itself; choose another folder")
    instructor_checks(lessons_dir)          # validates the checks and loads the hidden tests
    from .judges import collect_hidden
    hidden_file = lessons_dir / HIDDEN_TESTS_FILE
    hidden_source = hidden_file.read_text(encoding="utf-8") if hidden_file.exists() else ""
    hidden_judges = []
    if hidden_source:
        collect_hidden()
        exec(compile(hidden_source, str(hidden_file), "exec"), {"__name__": "autogradlab_hidden_tests"})  # noqa: S102
        hidden_judges = collect_hidden()
    written = []
    for path in sorted(lessons_dir.glob("*.ipynb")):
        master, questions = export_lesson(path, hidden_judges)
        folder = outdir / path.stem
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / path.name
        target.write_text(json.dumps(master, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        (folder / "requirements.txt").write_text(requirement + "\n", encoding="utf-8")
        if any(h.notebook == path.name for h in hidden_judges):   # (for the autograder zip only)
            (folder / HIDDEN_TESTS_FILE).write_text(hidden_source, encoding="utf-8")
        written.append((target, questions))
        log(f"  {path.stem}: {len(questions)} question(s): {', '.join(questions)}")
    return written
