"""Running notebooks and reading the verdicts of their checks (for grading and for tests)."""
from __future__ import annotations

import re
from pathlib import Path

__all__ = ["CHECK_LINE", "notebooks_in", "run_notebook", "parse_outputs"]

CHECK_LINE = re.compile(r"^\[check (\S+)\] (correct|not yet implemented|not right yet)(?: - (.*))?$")


def notebooks_in(paths):
    """The notebooks named, and those under the folders named (sorted; checkpoints skipped)."""
    out = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(sorted(q for q in p.rglob("*.ipynb") if ".ipynb_checkpoints" not in q.parts))
        else:
            out.append(p)
    return out


def run_notebook(path, timeout=120, kernel_name=None):
    """Execute a notebook in a fresh kernel (in its own folder); return (checks, crash).

    checks: [(check id, status, detail)] in the order printed; crash: None, or
    "cell N: ErrorName: message" for the first cell that raised (the run goes on).
    """
    import nbformat
    from nbclient import NotebookClient
    nb = nbformat.read(str(path), as_version=4)
    kwargs = {"timeout": timeout, "allow_errors": True, "resources": {"metadata": {"path": str(Path(path).parent)}}}
    if kernel_name:
        kwargs["kernel_name"] = kernel_name
    NotebookClient(nb, **kwargs).execute()
    return parse_outputs(nb)


def parse_outputs(nb):
    """The check verdicts and the first error of an executed notebook (a dict or NotebookNode)."""
    checks, crash = [], None
    for index, cell in enumerate(nb["cells"]):
        if cell.get("cell_type") != "code":
            continue
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream" and out.get("name") == "stdout":
                text = out.get("text", "")
                text = "".join(text) if isinstance(text, list) else text
                for line in text.splitlines():
                    m = CHECK_LINE.match(line)
                    if m:
                        checks.append((m.group(1), m.group(2), m.group(3) or ""))
            elif out.get("output_type") == "error" and crash is None:
                crash = f"cell {index}: {out.get('ename')}: {out.get('evalue')}"
    return checks, crash
