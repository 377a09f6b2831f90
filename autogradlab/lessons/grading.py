"""Grading submissions: each notebook in a fresh, limited kernel; every verdict decided outside it.

For one submission (:func:`grade_submission`):

1. the notebook is read into memory and copied alone into a new temporary folder, which is
   the kernel's working directory (the instructor folder is never below or beside it);
2. a fresh IPython kernel starts with a memory limit (``RLIMIT_AS``, see
   :mod:`.limited_kernel`) and runs the student's code cells one by one, each under a time
   limit. A cell that runs too long or kills the kernel (an infinite loop, ``os._exit``)
   is reported, left out, and the notebook is run again from a fresh kernel without it;
3. the judges of the instructor's checks (:mod:`.judges`, plus the hidden ones in the
   instructor folder) then call the student's objects in that kernel on fresh inputs drawn
   from a secret seed, through :mod:`.probes`, and compare the answers here, in the grading
   process, which never executes student code. Nothing the notebook prints counts.

:func:`grade_all` runs many submissions in a process pool (one kernel per worker) and
:func:`write_gradebook` / :func:`write_feedback` write the results.
"""
from __future__ import annotations

import csv
import hashlib
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from .student import HIDDEN_TESTS_FILE  # in the instructor folder; never copied to students

__all__ = ["CHECK_LINE", "notebooks_in", "parse_outputs", "Limits", "CheckResult", "Result", "instructor_checks",
           "match_lesson", "student_name", "grade_submission", "grade_all", "write_gradebook", "write_feedback",
           "HIDDEN_TESTS_FILE"]

CHECK_LINE = re.compile(r"^\[check (\S+)\] (correct|not yet implemented|not right yet)(?: - (.*))?$")
CHECK_CALL = re.compile(r"\bchecks\.(check_\w+)\(\s*([A-Za-z_]\w*)")


# ---------------------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------------------

def notebooks_in(paths):
    """The notebooks named, and those under the folders named (sorted; checkpoints skipped)."""
    out = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(sorted(q for q in p.rglob("*.ipynb") if ".ipynb_checkpoints" not in q.parts))
        else:
            out.append(p)
    return out


def parse_outputs(nb):
    """The printed check verdicts and the first error of an executed notebook (for the lessons' own tests;
    grading never reads printed verdicts)."""
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


def _source(cell):
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


_INSTRUCTOR_CACHE: dict = {}


def instructor_checks(instructor_dir):
    """{lesson file name: [(judge, student object name)]}: the checks the instructor defined.

    Visible checks come from the instructor notebooks' ``checks.check_x(name)`` calls; hidden ones
    from ``hidden_tests.py`` in the same folder. Raises ValueError for a check without a judge.
    """
    key = str(Path(instructor_dir).resolve())
    if key in _INSTRUCTOR_CACHE:
        return _INSTRUCTOR_CACHE[key]
    from .judges import JUDGES, collect_hidden
    folder = Path(instructor_dir)
    lessons = {}
    for path in sorted(folder.glob("*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        found, seen = [], set()
        for cell in nb.get("cells", []):
            if cell.get("cell_type") != "code":
                continue
            for function, target in CHECK_CALL.findall(_source(cell)):
                if function not in JUDGES:
                    raise ValueError(f"{path.name}: checks.{function} has no judge in autogradlab.lessons.judges, "
                                     f"so it could not be graded")
                judge = JUDGES[function]
                if judge.check_id not in seen:
                    seen.add(judge.check_id)
                    found.append((judge, target))
        lessons[path.name] = found
    hidden_file = folder / HIDDEN_TESTS_FILE
    if hidden_file.exists():
        import importlib.util
        name = "autogradlab_hidden_tests_" + hashlib.sha256(key.encode()).hexdigest()[:12]
        spec = importlib.util.spec_from_file_location(name, hidden_file)
        module = importlib.util.module_from_spec(spec)
        collect_hidden()
        spec.loader.exec_module(module)
        for judge in collect_hidden():
            if judge.notebook not in lessons:
                raise ValueError(f"{hidden_file}: hidden check {judge.check_id} is for {judge.notebook!r}, which "
                                 f"is not an instructor notebook in {folder}")
            if any(j.check_id == judge.check_id for j, _ in lessons[judge.notebook]):
                raise ValueError(f"{hidden_file}: check id {judge.check_id} is defined twice")
            lessons[judge.notebook].append((judge, judge.target))
    _INSTRUCTOR_CACHE[key] = lessons
    return lessons


_COPY_SUFFIX = re.compile(r"(?:-\d+| ?\(\d+\))(?=\.ipynb$)", re.IGNORECASE)


def match_lesson(path, lessons):
    """The instructor lesson a submission answers: the same file name, or the longest lesson file name
    its name ends with (``alice_02_chain_rule.ipynb``), in any case, and without the suffix a resubmission
    or a second download adds (``02_chain_rule-1.ipynb``, ``02_chain_rule (1).ipynb``); None if there is none."""
    name = Path(path).name
    if name in lessons:
        return name
    plain = _COPY_SUFFIX.sub("", name).lower()
    ends = [lesson for lesson in lessons if plain.endswith(lesson.lower())]
    return max(ends, key=len) if ends else None


def student_name(path, root, lesson):
    """Who submitted ``path``: its folder below ``root`` (``root/alice/02.ipynb``), else the file-name
    prefix before the lesson name (``alice_02.ipynb``), else the file name."""
    path, root = Path(path), Path(root)
    try:
        rel = path.resolve().relative_to(root.resolve())
    except ValueError:
        rel = Path(path.name)
    if len(rel.parts) > 1:
        return rel.parts[0]
    plain = _COPY_SUFFIX.sub("", path.name)
    if lesson and plain.lower() != lesson.lower() and plain.lower().endswith(lesson.lower()):
        prefix = plain[: -len(lesson)].rstrip("_-. ")
        if prefix:
            return prefix
    return path.stem


# ---------------------------------------------------------------------------------------
# One submission
# ---------------------------------------------------------------------------------------

@dataclass
class Limits:
    cell_timeout: float = 120.0     # seconds for one cell (and for one probe call)
    total_timeout: float = 900.0    # seconds for the whole submission, restarts and checks included
    memory_mb: int = 2048           # address space of the kernel process
    file_mb: int = 64               # largest file the kernel may write


@dataclass
class CheckResult:
    check_id: str
    title: str
    status: str
    detail: str
    hidden: bool = False


@dataclass
class Result:
    path: str
    student: str
    lesson: str
    checks: list = field(default_factory=list)
    problems: list = field(default_factory=list)   # what went wrong while running the notebook, in words
    seconds: float = 0.0

    @property
    def correct(self):
        return sum(1 for c in self.checks if c.status == "correct")


class _Stopped(Exception):
    """The submission's time budget is spent."""


def _kernel_spec_dir(limits):
    root = Path(tempfile.mkdtemp(prefix="agl-kernelspec-"))
    spec = root / "autogradlab-limited"
    spec.mkdir()
    spec_json = {
        "argv": [sys.executable, "-m", "autogradlab.lessons.limited_kernel", "--memory-mb", str(limits.memory_mb),
                 "--file-mb", str(limits.file_mb), "-f", "{connection_file}"],
        "display_name": "autogradlab grading (limited)",
        "language": "python",
        "env": {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "MPLBACKEND": "Agg"},
    }
    (spec / "kernel.json").write_text(json.dumps(spec_json), encoding="utf-8")
    return root


_ENV_KEPT = ("PATH", "LANG", "LANGUAGE", "TZ", "PYTHONPATH", "VIRTUAL_ENV", "CONDA_PREFIX", "SYSTEMROOT")


def _kernel_env(workdir):
    """The kernel's environment: only what Python needs (no tokens or paths of the grading account's
    session), HOME and the temporary folder set to the submission's own folder."""
    env = {k: v for k, v in os.environ.items() if k in _ENV_KEPT or k.startswith("LC_")}
    env.update(HOME=str(workdir), TMPDIR=str(workdir), PWD=str(workdir))
    return env


OUTPUT_BYTES_PER_CELL = 2 * 1024 * 1024   # what the grader keeps of a cell's printed output (errors always)
ANSWER_BYTES = 16 * 1024 * 1024           # the largest probe answer it reads, past that budget


def _bounded_client(*args, **kwargs):
    """An nbclient ``NotebookClient`` that keeps at most ``OUTPUT_BYTES_PER_CELL`` of each cell's output (its
    errors always): the outputs live in the grading process, and a cell printing in a loop until its time
    is up would otherwise fill this process's memory, and with it stop the grading of everyone else. Past the
    budget it still keeps the probe's answer line (``answer_marker``, up to ``ANSWER_BYTES``): a check whose
    code printed 3 MiB before returning the right answer is graded on that answer."""
    from nbclient import NotebookClient

    class Bounded(NotebookClient):
        answer_marker = None   # (set by a probe: the nonce its answer line starts with)

        def output(self, outs, msg, display_id, cell_index):
            if msg["msg_type"] != "error":
                kept = getattr(self, "_agl_kept", None)
                if kept is None or kept[0] != cell_index or kept[1] is not outs:
                    kept = self._agl_kept = [cell_index, outs, 0]
                kept[2] += len(json.dumps(msg.get("content", {}), default=str))
                if kept[2] > OUTPUT_BYTES_PER_CELL:
                    msg = self._answer_only(msg)
                    if msg is None:
                        return None
            return super().output(outs, msg, display_id, cell_index)

        def _answer_only(self, msg):
            text = msg.get("content", {}).get("text", "") if msg["msg_type"] == "stream" else ""
            if not self.answer_marker or self.answer_marker not in text:
                return None
            answer = [line for line in text.split("\n") if line.startswith(self.answer_marker)]
            if not answer or len(answer[0]) > ANSWER_BYTES:
                return None
            return dict(msg, content=dict(msg["content"], text="\n" + answer[0] + "\n"))
    return Bounded(*args, **kwargs)


class _Kernel:
    """A fresh limited kernel running a notebook's cells, then answering probes."""

    def __init__(self, nb, workdir, spec_dir, limits, deadline):
        from jupyter_client.kernelspec import KernelSpecManager
        from jupyter_client.manager import AsyncKernelManager
        self.limits, self.deadline = limits, deadline
        ksm = KernelSpecManager(kernel_dirs=[str(spec_dir)], ensure_native_kernel=False)
        km = AsyncKernelManager(kernel_name="autogradlab-limited", kernel_spec_manager=ksm)
        self.nb = nb
        self.client = _bounded_client(nb, km=km, timeout=limits.cell_timeout, allow_errors=True,
                                     shutdown_kernel="immediate", record_timing=False,
                                     resources={"metadata": {"path": str(workdir)}})
        self.km = km
        self._ctx = self.client.setup_kernel(cwd=str(workdir), env=_kernel_env(workdir), stdout=subprocess.DEVNULL,
                                             stderr=subprocess.DEVNULL)
        self._ctx.__enter__()
        self.serve = None

    def close(self):
        """Stop the kernel at once (its whole process group)."""
        from jupyter_core.utils import run_sync
        try:
            if self.client.kc is not None:
                self.client.kc.stop_channels()
            if self.km.has_kernel:
                run_sync(self.km.shutdown_kernel)(now=True)
        except Exception:  # noqa: BLE001  (a dead kernel may not shut down cleanly)
            pass
        try:
            self._ctx.__exit__(None, None, None)
        except Exception:  # noqa: BLE001
            pass

    def run(self, cell, index, timeout=None):
        """Execute one cell; returns None, or 'timeout' / 'died' (the kernel is then unusable)."""
        from nbclient.exceptions import CellTimeoutError, DeadKernelError
        remaining = self.deadline - time.monotonic()
        if remaining <= 1:
            raise _Stopped()
        self.client.timeout = int(max(1, min(timeout or self.limits.cell_timeout, remaining)))
        try:
            self.client.execute_cell(cell, index)
        except CellTimeoutError:
            if self.deadline - time.monotonic() <= 1:
                raise _Stopped() from None
            return "timeout"
        except DeadKernelError:
            return "died"
        return None

    def probe(self, request):
        """Send one request to the probes in the kernel and return its JSON answer (untrusted data)."""
        from nbformat.v4 import new_code_cell

        from .judges import NoAnswer
        nonce = secrets.token_hex(8)
        if self.serve is None:
            self.serve = "_agl_serve_" + secrets.token_hex(6)
            source = Path(__file__).with_name("probes.py").read_text(encoding="utf-8")
            setup = (f"import autogradlab as _agl_import_first  # (slow under load: not inside a timed call)\n"
                     f"del _agl_import_first\n"
                     f"def _agl_setup(source):\n    ns = {{'__name__': 'autogradlab_probes'}}\n"
                     f"    exec(compile(source, '<autogradlab grader>', 'exec'), ns)\n    return ns['serve']\n"
                     f"{self.serve} = _agl_setup({source!r})\ndel _agl_setup\n")
            cell = new_code_cell(setup)
            self.nb.cells.append(cell)
            status = self.run(cell, len(self.nb.cells) - 1, timeout=60)
            if status or any(o.get("output_type") == "error" for o in cell.outputs):
                why = f" (the kernel {'died' if status == 'died' else 'did not answer'})" if status else ""
                raise NoAnswer(f"the grader could not start its probes in your notebook's kernel{why}")
        code = (f"__import__('sys').stdout.write('\\n{nonce} ' + {self.serve}({json.dumps(request)!r}, globals()) "
                f"+ '\\n')")
        cell = new_code_cell(code)
        self.nb.cells.append(cell)
        self.client.answer_marker = nonce + " "
        try:
            status = self.run(cell, len(self.nb.cells) - 1)
        finally:
            self.client.answer_marker = None
        if status == "died":
            raise NoAnswer("the kernel died while your code ran for this check (memory limit, or the code ended "
                           "its own process)")
        if status == "timeout":
            raise NoAnswer(f"your code did not return within {self.client.timeout} s for this check")
        text = "".join(_source({"source": o.get("text", "")}) for o in cell.outputs
                       if o.get("output_type") == "stream" and o.get("name") == "stdout")
        cell.outputs = []   # (read: the submission's later probes need not hold it in this process)
        for line in text.splitlines():
            if line.startswith(nonce + " "):
                try:
                    answer = json.loads(line[len(nonce) + 1:])
                except ValueError:
                    break
                if isinstance(answer, dict):
                    return answer
        raise NoAnswer("the grader got no answer from your notebook's kernel for this check (is sys.stdout "
                       f"replaced, or was the answer larger than {ANSWER_BYTES // 2**20} MiB?)")


KERNEL_START_TRIES = 3


def _start_kernel(nb, workdir, spec_dir, limits, deadline, problems):
    """A fresh kernel, its start tried up to KERNEL_START_TRIES times: no student code has run yet, so a
    kernel that dies while starting (a busy grading machine: "Kernel died before replying to kernel_info")
    is the machine's failure, not the student's, and must not score 0. Each retry is noted in the report."""
    for attempt in range(1, KERNEL_START_TRIES + 1):
        try:
            return _Kernel(nb, workdir, spec_dir, limits, deadline)
        except Exception as exc:  # noqa: BLE001
            if attempt == KERNEL_START_TRIES or deadline - time.monotonic() <= 1:
                raise
            problems.append(f"the kernel failed to start ({type(exc).__name__}: {exc}"[:300]
                            + f"); started again, try {attempt + 1} of {KERNEL_START_TRIES}")


def _run_cells(nb, workdir, spec_dir, limits, deadline, problems, skipped):
    """Run the code cells, leaving out (and reporting) any that time out or kill the kernel (their indices go
    into ``skipped``, which also names cells to leave out from the start); returns the live kernel."""
    for _attempt in range(6):
        kernel = _start_kernel(nb, workdir, spec_dir, limits, deadline, problems)
        failed = None
        try:
            first_error = None
            for index, cell in enumerate(nb.cells):
                if cell.cell_type != "code" or index in skipped:
                    continue
                status = kernel.run(cell, index)
                if status:
                    failed = (index, status)
                    break
                if first_error is None:
                    for out in cell.get("outputs", []):
                        if out.get("output_type") == "error":
                            first_error = f"cell {index} raised {out.get('ename')}: {out.get('evalue')}"[:500]
                            break
        except BaseException:
            kernel.close()
            raise
        if failed is None:
            if first_error:
                problems.append(first_error)
            return kernel
        kernel.close()
        index, status = failed
        skipped.add(index)
        what = (f"ran longer than {int(kernel.client.timeout)} s (time limit per cell)" if status == "timeout"
                else "stopped the kernel (it exited, or went over the memory limit)")
        problems.append(f"cell {index} {what}; it was left out and the notebook run again without it")
        for cell in nb.cells:
            if cell.cell_type == "code":
                cell.outputs = []
    raise _Stopped()


def grade_submission(path, lesson, instructor_dir, limits=None, seed=0, student=None) -> Result:
    """Grade one notebook against the instructor's checks for ``lesson``; never raises."""
    import nbformat
    import numpy

    from .checks import WRONG
    from .judges import NoAnswer, Probe, run_judge
    limits = limits or Limits()
    start = time.monotonic()
    deadline = start + limits.total_timeout
    result = Result(str(path), student or Path(path).stem, lesson or "")
    judges = instructor_checks(instructor_dir).get(lesson, []) if lesson else []

    def fail_all(reason):
        done = {c.check_id for c in result.checks}
        for judge, _ in judges:
            if judge.check_id not in done:
                result.checks.append(CheckResult(judge.check_id, judge.title, WRONG, reason, judge.hidden))

    if not lesson:
        result.problems.append(f"{Path(path).name} does not match any instructor notebook in {instructor_dir}")
        return result
    try:
        raw = Path(path).read_bytes()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # e.g. cells without ids in hand-made notebooks
            nb = nbformat.reads(raw.decode("utf-8"), as_version=4)
    except Exception as exc:  # noqa: BLE001
        result.problems.append(f"not a readable notebook: {type(exc).__name__}: {exc}"[:500])
        fail_all("the notebook could not be read")
        result.seconds = time.monotonic() - start
        return result
    workdir = Path(tempfile.mkdtemp(prefix="agl-submission-"))
    spec_dir = _kernel_spec_dir(limits)
    kernel = None
    try:
        (workdir / Path(path).name).write_bytes(raw)
        n_cells, skipped = len(nb.cells), set()
        kernel = _run_cells(nb, workdir, spec_dir, limits, deadline, result.problems, skipped)
        digest = int.from_bytes(hashlib.sha256(raw).digest()[:4], "big")
        for judge, target in judges:
            rng = numpy.random.default_rng([int(seed), digest, *map(ord, judge.check_id)])
            try:
                status, detail = run_judge(judge, Probe(kernel.probe), target, rng)
            except NoAnswer as exc:
                status, detail = WRONG, str(exc)
                if kernel.run(nbformat.v4.new_code_cell("pass"), len(kernel.nb.cells), timeout=10):
                    # still busy (a loop in the student's function) or dead: a fresh kernel for the other checks
                    kernel.close()
                    kernel = None
                    result.problems.append(f"check {judge.check_id}: {detail}; the notebook was run again in a "
                                           f"fresh kernel for the remaining checks")
                    del nb.cells[n_cells:]
                    kernel = _run_cells(nb, workdir, spec_dir, limits, deadline, [], skipped)
            result.checks.append(CheckResult(judge.check_id, judge.title, status, detail, judge.hidden))
    except _Stopped:
        result.problems.append(f"stopped: the submission used up its time limit ({limits.total_timeout:.0f} s)")
        fail_all("not checked: the submission ran out of time")
    except Exception as exc:  # noqa: BLE001  (one bad submission must not stop the others)
        result.problems.append(f"could not run: {type(exc).__name__}: {exc}"[:500])
        fail_all("not checked: the notebook could not be run")
    finally:
        if kernel is not None:
            kernel.close()
        shutil.rmtree(workdir, ignore_errors=True)
        shutil.rmtree(spec_dir, ignore_errors=True)
    result.seconds = time.monotonic() - start
    return result


# ---------------------------------------------------------------------------------------
# Many submissions
# ---------------------------------------------------------------------------------------

def _grade_job(job):
    path, lesson, instructor_dir, limits, seed, student = job
    return grade_submission(path, lesson, instructor_dir, limits, seed, student)


def grade_all(paths, instructor_dir, limits=None, seed=None, jobs=2, progress=None):
    """Grade every notebook under ``paths`` in a pool of ``jobs`` processes (one kernel each).

    ``progress(done, total, result)`` is called as each finishes. Returns (results in submission
    order, the seed used: pass it again to reproduce the grades).
    """
    seed = secrets.randbits(31) if seed is None else int(seed)
    lessons = instructor_checks(instructor_dir)
    work, seen = [], set()
    # files named one by one from several folders (subs/*/02_chain_rule.ipynb): each folder is a student; from
    # one folder (flat/*.ipynb) the folder says nothing about who submitted which
    named_from = {Path(p).resolve().parent for p in paths if not Path(p).is_dir()}
    for root in map(Path, paths):
        for nb_path in notebooks_in([root]):
            if nb_path.resolve() in seen:   # (a file named twice, or under two of the paths: graded once)
                continue
            seen.add(nb_path.resolve())
            lesson = match_lesson(nb_path, lessons)
            base = root if root.is_dir() else nb_path.parent
            student = student_name(nb_path, base, lesson)
            if not root.is_dir() and student == nb_path.stem and len(named_from) > 1:
                student = nb_path.parent.name   # (subs/alice/02_chain_rule.ipynb named on the command line: alice)
            work.append((str(nb_path), lesson, str(instructor_dir), limits or Limits(), seed, student))
    work, earlier = _newest_only(work)
    results = _grade_pool(work, jobs, progress)
    for i, paths in earlier.items():
        results[i].problems.append(f"also submitted, not graded (an earlier copy): "
                                   f"{', '.join(Path(p).name for p in paths)}")
    return results, seed


_COPY_NUMBER = re.compile(r"(?:-(\d+)| ?\((\d+)\))\.ipynb$", re.IGNORECASE)


def _newest_only(work):
    """One submission per student and lesson, the newest: the highest copy number a resubmission adds to the
    file name (``-2``, ``(2)``; none is 0), then the latest modified. Returns (the jobs to grade, {index in them:
    [the earlier copies' paths]}), so the gradebook gets one row per student and lesson."""
    def newness(job):
        m = _COPY_NUMBER.search(Path(job[0]).name)
        number = int(m.group(1) or m.group(2)) if m else 0
        try:
            modified = Path(job[0]).stat().st_mtime_ns
        except OSError:
            modified = 0
        return number, modified, job[0]
    groups = {}
    for job in work:   # (a student known by folder or file-name prefix: a name that is the file's own stem
        if job[1] is not None and job[5] != Path(job[0]).stem:   # says nothing about who submitted it)
            groups.setdefault((job[5], job[1]), []).append(job)
    dropped, earlier_of = set(), {}
    for jobs in groups.values():
        if len(jobs) > 1:
            ordered = sorted(jobs, key=newness)
            dropped.update(job[0] for job in ordered[:-1])
            earlier_of[ordered[-1][0]] = [job[0] for job in ordered[:-1]]
    kept = [job for job in work if job[0] not in dropped]
    return kept, {i: earlier_of[job[0]] for i, job in enumerate(kept) if job[0] in earlier_of}


def _grade_pool(work, jobs, progress, grade=None):
    """The results of the jobs of ``work``, in order (graded one by one, or in a pool of ``jobs`` processes),
    each by ``grade(job)`` (:func:`_grade_job`; a test passes one that kills its process)."""
    from concurrent.futures import ProcessPoolExecutor, as_completed
    grade = grade or _grade_job
    results = [None] * len(work)
    if jobs <= 1 or len(work) <= 1:
        for i, job in enumerate(work):
            results[i] = grade(job)
            if progress:
                progress(i + 1, len(work), results[i])
        return results
    import multiprocessing
    from concurrent.futures.process import BrokenProcessPool
    context = multiprocessing.get_context("spawn")   # workers never inherit the parent's state
    done = 0

    def run(indices, workers):
        """Grade ``indices`` in a fresh pool; returns those a dying worker took down with it (every job not
        finished when a worker dies fails, the ones not yet started too)."""
        nonlocal done
        broken = []
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            futures = {pool.submit(grade, work[i]): i for i in indices}
            for future in as_completed(futures):
                i = futures[future]
                try:
                    results[i] = future.result()
                except BrokenProcessPool:
                    broken.append(i)
                    continue
                except Exception as exc:  # noqa: BLE001
                    results[i] = _not_graded(work[i], exc)
                done += 1
                if progress:
                    progress(done, len(work), results[i])
        return sorted(broken)

    again = run(range(len(work)), jobs)
    if again:   # once more in a fresh pool of the same size (the one that killed its worker among them)
        again = run(again, jobs)
    for i in again:   # then each alone in a process of its own: only a job that kills its worker fails
        if run([i], 1):
            results[i] = _not_graded(work[i], "its process ended while grading it, twice")
            done += 1
            if progress:
                progress(done, len(work), results[i])
    return results


NOT_GRADED = "not graded"


def _not_graded(job, exc):
    """The row of a submission the grader could not grade (its worker process died): no score, and says so."""
    path, lesson, _, _, _, student = job
    return Result(path, student, lesson or "", problems=[f"{NOT_GRADED}: the grading worker failed ({exc}); grade "
                                                          f"this notebook again, alone"])


def not_graded(result) -> bool:
    return any(p.startswith(NOT_GRADED) for p in result.problems)


def write_gradebook(results, path):
    """One row per submission: student, notebook, score, max_score, one column per check id (1/0), problems."""
    ids = []
    for r in results:
        for c in r.checks:
            if c.check_id not in ids:
                ids.append(c.check_id)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["student", "notebook", "score", "max_score", *ids, "problems"])
        for r in results:
            by_id = {c.check_id: int(c.status == "correct") for c in r.checks}
            score = ("", "") if not_graded(r) else (r.correct, len(r.checks))   # (no score is no 0)
            writer.writerow([r.student, r.lesson or Path(r.path).name, *score,
                             *[by_id.get(i, "") for i in ids], "; ".join(r.problems)])


def _safe(name):
    """A file name for a student's feedback: their name's letters and digits, in any script (Zoë, 王伟)."""
    return re.sub(r"[^\w.-]+", "_", name).strip("._") or "student"


def _file_names(students):
    """Each student's feedback file name: :func:`_safe`, and where two names read alike there (Zoë and Zoe_,
    or names of other characters only), a short hash of the whole name too, so no file serves two students."""
    readable = {s: _safe(s) for s in students}
    taken = {}
    for s, r in readable.items():
        taken.setdefault(r.lower(), []).append(s)   # (case too: a case-insensitive file system merges them)
    return {s: r if len(taken[r.lower()]) == 1 else f"{r}-{hashlib.sha256(s.encode('utf-8')).hexdigest()[:8]}"
            for s, r in readable.items()}


def write_feedback(results, folder, seed=None):
    """One plain-text feedback file per student (``folder/<student>.txt``, the name's letters and digits; a short
    hash added where two students' names would give the same file), every notebook of theirs in it."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    by_student = {}
    for r in results:
        by_student.setdefault(r.student, []).append(r)
    written, names = [], _file_names(by_student)
    for student, rs in by_student.items():
        lines = [f"Feedback for {student}", ""]
        for r in rs:
            lines.append(f"{r.lesson or Path(r.path).name}: {r.correct} of {len(r.checks)} checks correct")
            for c in r.checks:
                kind = " (hidden test)" if c.hidden else ""
                lines.append(f"  [{c.check_id}] {c.title}{kind}: {c.status}" + (f" - {c.detail}" if c.detail else ""))
            for p in r.problems:
                lines.append(f"  note: {p}")
            lines.append("")
        if seed is not None:
            lines.append(f"(graded with seed {seed})")
        target = folder / f"{names[student]}.txt"
        target.write_text("\n".join(lines) + "\n", encoding="utf-8")
        written.append(target)
    return written
