"""Student copies of the lessons: solutions out, stubs and hints in, outputs cleared.

Markers in the instructor notebooks (each on a line of its own):

Code cells::

    def mul_vjp(a, b, g):
        ### HINT: the derivative of a * b with respect to a is b.
        ### BEGIN SOLUTION
        return g * b, g * a
        ### END SOLUTION

  The region between ``### BEGIN SOLUTION`` and ``### END SOLUTION`` becomes, at the
  indentation of the BEGIN line::

        # YOUR CODE HERE
        raise NotImplementedError("Hint: the derivative of a * b with respect to a is b.")

  and every ``### HINT: text`` line before the region becomes a visible ``# Hint: text`` comment.
  A region's hint is the HINT lines between the previous region (or the cell start) and its END
  (hint lines inside the region stay hidden but still go into the message).

Prediction cells (predict-then-reveal)::

    ### BEGIN PREDICTION
    x_grad_after_step_9 = 4.0
    ### END PREDICTION

  Each assignment in the region becomes ``name = None  # your prediction``; the reveal cell
  that follows then tells the student to predict first.

Markdown cells: ``<!-- BEGIN SOLUTION -->`` ... ``<!-- END SOLUTION -->`` becomes
``*Your answer here.*``.

Every student cell has its outputs and execution count cleared. The instructor files
are only read. The notebooks are plain JSON: no Jupyter package is needed.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

__all__ = ["make_student_notebook", "make_student_copies", "StudentCopyError", "BEGIN", "END"]

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
BEGIN_PRED, END_PRED = "### BEGIN PREDICTION", "### END PREDICTION"
MD_BEGIN, MD_END = "<!-- BEGIN SOLUTION -->", "<!-- END SOLUTION -->"
HINT = "### HINT:"
HIDDEN_TESTS_FILE = "hidden_tests.py"   # the instructor's hidden tests (see grading.py): never copied
DEFAULT_HINT = "replace this line with your code"

_ASSIGN = re.compile(r"^(\s*)([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)")


class StudentCopyError(ValueError):
    """A notebook's solution markers are malformed (the message says where)."""


def _source(cell) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _lines_out(text: str):
    """Back to the list-of-lines form notebooks store (each line keeps its newline)."""
    return text.splitlines(keepends=True)


def _stub(indent: str, hint: str) -> list[str]:
    message = json.dumps(f"Hint: {hint}" if hint != DEFAULT_HINT else DEFAULT_HINT, ensure_ascii=False)
    return [f"{indent}# YOUR CODE HERE", f"{indent}raise NotImplementedError({message})"]


def _region_hints(lines) -> dict:
    """For each BEGIN SOLUTION line index: its hint, from the HINT lines after the previous region
    (or the cell start) up to its END line."""
    hints, pending, current = {}, [], None
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith(HINT):
            pending.append(stripped[len(HINT):].strip())
        elif stripped == BEGIN:
            current = i
        elif stripped == END and current is not None:
            hints[current] = " ".join(h for h in pending if h) or DEFAULT_HINT
            pending, current = [], None
    return hints


def _code_cell(text: str, where: str) -> tuple[str, int, int]:
    """The student version of one code cell's source, and its numbers of solution and prediction regions."""
    lines = text.split("\n")
    hints = _region_hints(lines)
    out, regions, predictions, mode, start = [], 0, 0, None, None
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        indent = line[: len(line) - len(line.lstrip())]
        if stripped in (BEGIN, BEGIN_PRED):
            if mode is not None:
                raise StudentCopyError(f"{where}: line {number}: {stripped!r} inside the region opened at "
                                       f"line {start} (regions cannot nest)")
            mode, start = stripped, number
            if stripped == BEGIN:
                regions += 1
                out.extend(_stub(indent, hints.get(number - 1, DEFAULT_HINT)))
            else:
                predictions += 1
            continue
        if stripped in (END, END_PRED):
            expected = END if mode == BEGIN else END_PRED if mode == BEGIN_PRED else None
            if stripped != expected:
                raise StudentCopyError(f"{where}: line {number}: {stripped!r} without a matching "
                                       f"{BEGIN if stripped == END else BEGIN_PRED!r}")
            mode = None
            continue
        if mode == BEGIN:
            continue  # solution line (or a hint inside the region): dropped
        if mode == BEGIN_PRED:
            m = _ASSIGN.match(line)
            if m:
                out.append(f"{m.group(1)}{m.group(2)} = None  # your prediction")
            continue
        if stripped.startswith(HINT):
            out.append(f"{indent}# Hint: {stripped[len(HINT):].strip()}")
            continue
        out.append(line)
    if mode is not None:
        raise StudentCopyError(f"{where}: the region opened at line {start} ({mode!r}) is never closed")
    return "\n".join(out), regions, predictions


def _markdown_cell(text: str, where: str) -> str:
    out, inside, start = [], False, None
    for number, line in enumerate(text.split("\n"), 1):
        stripped = line.strip()
        if stripped == MD_BEGIN:
            if inside:
                raise StudentCopyError(f"{where}: line {number}: {MD_BEGIN} inside another answer region")
            inside, start = True, number
            out.append("*Your answer here.*")
            continue
        if stripped == MD_END:
            if not inside:
                raise StudentCopyError(f"{where}: line {number}: {MD_END} without {MD_BEGIN}")
            inside = False
            continue
        if not inside:
            out.append(line)
    if inside:
        raise StudentCopyError(f"{where}: the answer region opened at line {start} is never closed")
    return "\n".join(out)


def make_student_notebook(nb: dict, name: str = "notebook") -> tuple[dict, int, int]:
    """The student version of a notebook (as parsed JSON), and its numbers of exercise (solution)
    regions and prediction regions."""
    nb = json.loads(json.dumps(nb))  # a deep copy: the instructor's notebook is never modified
    nb.get("metadata", {}).pop("widgets", None)  # saved widget state belongs to the cleared outputs
    total = total_predictions = 0
    for index, cell in enumerate(nb.get("cells", [])):
        where = f"{name}, cell {index}"
        text = _source(cell)
        if cell.get("cell_type") == "code":
            new, regions, predictions = _code_cell(text, where)
            total += regions
            total_predictions += predictions
            cell["source"] = _lines_out(new)
            cell["outputs"] = []
            cell["execution_count"] = None
            meta = cell.get("metadata", {})
            meta.pop("execution", None)
            meta.pop("collapsed", None)
            meta.pop("scrolled", None)
        elif cell.get("cell_type") == "markdown":
            cell["source"] = _lines_out(_markdown_cell(text, where))
    return nb, total, total_predictions


def _write(nb: dict, path: Path):
    path.write_text(json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")


def _skip(path: Path) -> bool:
    return any(part.startswith(".") or part == "__pycache__" for part in path.parts)


def make_student_copies(src, outdir, log=print) -> list[tuple[Path, int, int]]:
    """Write the student version of every notebook under ``src`` (a folder or one notebook) into ``outdir``.

    Other files are copied too, except ``README.md`` (the instructor guide) and ``hidden_tests.py``
    (the hidden tests, graded only by ``python -m autogradlab.lessons grade``). Returns
    ``[(written path, number of exercises, number of predictions)]``. Refuses to write into ``src``
    itself.
    """
    src, outdir = Path(src), Path(outdir)
    if not src.exists():
        raise FileNotFoundError(f"{src} does not exist")
    root = src if src.is_dir() else src.parent
    if outdir.resolve() == root.resolve():
        raise StudentCopyError(f"the output folder {outdir} is the lessons folder itself: that would overwrite "
                               f"the instructor notebooks; choose another folder")
    files = sorted(p for p in root.rglob("*") if p.is_file() and not _skip(p.relative_to(root))) \
        if src.is_dir() else [src]
    if src.is_dir() and outdir.resolve().is_relative_to(root.resolve()):
        inside = outdir.resolve().relative_to(root.resolve())
        files = [p for p in files if not p.resolve().is_relative_to(root.resolve() / inside)]
    written = []
    outdir.mkdir(parents=True, exist_ok=True)
    for path in files:
        rel = path.relative_to(root)
        target = outdir / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".ipynb":
            try:
                nb = json.loads(path.read_text(encoding="utf-8"))
            except json.JSONDecodeError as exc:
                raise StudentCopyError(f"{path}: not a valid notebook ({exc})") from None
            student, n, p = make_student_notebook(nb, str(rel))
            _write(student, target)
            written.append((target, n, p))
            log(f"  {rel}: {n} exercise region(s), {p} prediction(s)")
        elif rel.name not in ("README.md", HIDDEN_TESTS_FILE):
            shutil.copyfile(path, target)
    return written
