"""``python -m autogradlab.lessons``: student copies and grading.

    python -m autogradlab.lessons student lessons/ OUTDIR
        write student copies of every lesson into OUTDIR (solutions replaced by stubs
        with hints, outputs cleared); the files in lessons/ are only read

    python -m autogradlab.lessons grade SUBMISSION... [--timeout 120] [--csv FILE]
        run each notebook (or every notebook in a folder) top to bottom in a fresh kernel
        and print a table of its checks: correct / not right yet / not yet implemented
"""
from __future__ import annotations

import argparse
import csv
import sys
import time

from .grading import notebooks_in, run_notebook


def _student(args) -> int:
    from .student import StudentCopyError, make_student_copies
    print(f"writing student copies of {args.src} to {args.outdir}")
    try:
        written = make_student_copies(args.src, args.outdir)
    except (StudentCopyError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    total = sum(n for _, n, _ in written)
    predictions = sum(p for _, _, p in written)
    print(f"wrote {len(written)} notebook(s) with {total} exercise region(s) and {predictions} prediction(s) "
          f"to {args.outdir}")
    return 0


def _grade(args) -> int:
    try:
        import nbclient  # noqa: F401
        import nbformat  # noqa: F401
    except ImportError:
        print("error: grading needs nbclient and nbformat (pip install nbclient), which JupyterLab brings",
              file=sys.stderr)
        return 1
    rows = []
    for path in notebooks_in(args.paths):
        start = time.perf_counter()
        try:
            checks, crash = run_notebook(path, args.timeout)
        except Exception as exc:  # noqa: BLE001  (one bad submission must not stop the others)
            checks, crash = [], f"could not run: {type(exc).__name__}: {exc}"
        seconds = time.perf_counter() - start
        latest = {}
        for check_id, status, detail in checks:
            latest[check_id] = (status, detail)
        done = sum(1 for s, _ in latest.values() if s == "correct")
        print(f"{path}: {done} of {len(latest)} checks correct ({seconds:.0f} s)")
        for check_id, (status, detail) in latest.items():
            print(f"  {check_id:>5}  {status}" + (f" - {detail}" if detail and status != "correct" else ""))
            rows.append((str(path), check_id, status, detail))
        if crash:
            print(f"  a cell raised an error: {crash}")
            rows.append((str(path), "-", "error", crash))
    if args.csv:
        with open(args.csv, "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(["notebook", "check", "status", "detail"])
            writer.writerows(rows)
        print(f"wrote {args.csv}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autogradlab.lessons",
                                     description="Course tooling for the autogradlab lessons.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("student", help="write student copies (solutions replaced by stubs, outputs cleared)")
    p.add_argument("src", help="the lessons folder (or one notebook)")
    p.add_argument("outdir", help="where to write the student copies (not the lessons folder itself)")
    p.set_defaults(func=_student)
    g = sub.add_parser("grade", help="run notebooks and tabulate their checks")
    g.add_argument("paths", nargs="+", help="notebooks, or folders of notebooks")
    g.add_argument("--timeout", type=int, default=120, help="seconds per cell (default 120)")
    g.add_argument("--csv", help="also write the table to this CSV file")
    g.set_defaults(func=_grade)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
