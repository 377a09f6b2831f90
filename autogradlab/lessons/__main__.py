"""``python -m autogradlab.lessons``: student copies and grading.

    python -m autogradlab.lessons student lessons/ OUTDIR
        write student copies of every lesson into OUTDIR (solutions replaced by stubs
        with hints, outputs cleared); the files in lessons/ are only read

    python -m autogradlab.lessons grade SUBMISSION... [--instructor DIR] [--csv FILE] [--jobs 2]
        run each submitted notebook in a fresh kernel with time and memory limits, then
        judge the objects it defined with the instructor's checks (visible and hidden) from
        outside the kernel; print "N of M checks correct" per notebook, write a gradebook
        CSV and one feedback file per student

    python -m autogradlab.lessons otter lessons/ OUTDIR [--requirement SPEC]
        export every lesson as an otter-grader assignment (then `otter assign` in each folder)
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path


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
    from .grading import Limits, grade_all, instructor_checks, not_graded, write_feedback, write_gradebook
    instructor = Path(args.instructor) if args.instructor else Path(__file__).resolve().parents[2] / "lessons"
    if not instructor.is_dir():
        print(f"error: the instructor folder {instructor} does not exist; pass --instructor DIR (the folder with "
              f"the instructor notebooks and hidden_tests.py)", file=sys.stderr)
        return 1
    try:
        lessons = instructor_checks(instructor)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"grading against {instructor} ({sum(len(v) for v in lessons.values())} checks in {len(lessons)} "
          f"notebooks), {args.jobs} at a time")
    limits = Limits(cell_timeout=args.timeout, total_timeout=args.time_limit, memory_mb=args.memory)

    def progress(done, total, r):
        print(f"[{done}/{total}] {r.path}: {r.correct} of {len(r.checks)} checks correct ({r.seconds:.0f} s)")
        for c in r.checks:
            if c.status != "correct":
                print(f"  {c.check_id:>6}  {c.status} - {c.detail}")
        for p in r.problems:
            print(f"  note: {p}")
        sys.stdout.flush()

    results, seed = grade_all(args.paths, instructor, limits, seed=args.seed, jobs=args.jobs, progress=progress)
    print(f"graded {len(results)} notebook(s) with seed {seed} (pass --seed {seed} to reproduce)")
    if args.csv:
        write_gradebook(results, args.csv)
        print(f"wrote {args.csv}")
    feedback = args.feedback or (str(Path(args.csv).with_suffix("")) + "-feedback" if args.csv else None)
    if feedback:
        files = write_feedback(results, feedback, seed)
        print(f"wrote {len(files)} feedback file(s) to {feedback}")
    failed = [r for r in results if not_graded(r)]
    unmatched = [r for r in results if not r.lesson]
    for r in failed + unmatched:
        print(f"error: {r.path} was not graded: {'; '.join(r.problems) or 'it matches no lesson'}", file=sys.stderr)
    return 1 if failed or unmatched else 0


def _otter(args) -> int:
    from .otter import export_otter
    print(f"exporting {args.src} as otter-grader assignments to {args.outdir}")
    try:
        written = export_otter(args.src, args.outdir, requirement=args.requirement)
    except (ValueError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {len(written)} assignment(s) with {sum(len(q) for _, q in written)} question(s); in each "
          f"folder run `otter assign <lesson>.ipynb dist` (pip install 'autogradlab[otter]')")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autogradlab.lessons",
                                     description="Course tooling for the autogradlab lessons.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("student", help="write student copies (solutions replaced by stubs, outputs cleared)")
    p.add_argument("src", help="the lessons folder (or one notebook)")
    p.add_argument("outdir", help="where to write the student copies (not the lessons folder itself)")
    p.set_defaults(func=_student)
    g = sub.add_parser("grade", help="grade submissions: run each in a fresh limited kernel, judge it from outside")
    g.add_argument("paths", nargs="+", help="submitted notebooks, or folders of them (one subfolder per student, "
                                            "or files named like STUDENT_02_chain_rule.ipynb)")
    g.add_argument("--instructor", help="the instructor notebooks and hidden_tests.py (default: this checkout's "
                                        "lessons/)")
    g.add_argument("--csv", help="write the gradebook to this CSV file (feedback files go beside it)")
    g.add_argument("--feedback", help="folder for one feedback file per student (default: CSV name + -feedback)")
    g.add_argument("--jobs", type=int, default=2, help="submissions graded at once, one kernel each (default 2)")
    g.add_argument("--timeout", type=int, default=120, help="seconds per cell and per check call (default 120)")
    g.add_argument("--time-limit", type=int, default=900, help="seconds per submission in all (default 900)")
    g.add_argument("--memory", type=int, default=2048,
                   help="MB of address space per kernel (default 2048; 0: no limit, needed for CuPy/CUDA)")
    g.add_argument("--seed", type=int, help="seed for the checks' fresh inputs (default: a random one, printed)")
    g.set_defaults(func=_grade)
    o = sub.add_parser("otter", help="export the lessons as otter-grader assignments (one folder per lesson)")
    o.add_argument("src", help="the instructor lessons folder")
    o.add_argument("outdir", help="where to write the assignments")
    o.add_argument("--requirement", default="autogradlab",
                   help="the pip requirement that installs autogradlab in the grading image "
                        "(e.g. 'autogradlab @ git+https://github.com/ORG/REPO@v1'; default: autogradlab)")
    o.set_defaults(func=_otter)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
