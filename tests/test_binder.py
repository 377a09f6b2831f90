"""Binder: the lessons pass ``pytest --nbval`` in an environment built from binder/ alone.

The static checks (fast) read the binder/ files. The build test (marked ``slow``, but part of the
normal suite and of CI) does what Binder does, in a scratch folder:

1. copy the repository as a fresh clone would see it (tracked and untracked-but-not-ignored files);
2. create a virtual environment with the Python of ``runtime.txt`` when this machine has it (else the
   current one), ``pip install -r binder/requirements.txt``, then run ``binder/postBuild``;
3. with that environment's Python: ``pytest --nbval lessons/`` (strict, with the sanitize file).

``apt.txt`` packages are assumed installed on the machine: the build test needs graphviz's ``dot``.
It needs network access to PyPI (or a warm pip cache), like ``bash dev.sh test`` does.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BINDER = ROOT / "binder"


def _requirements():
    lines = (BINDER / "requirements.txt").read_text().splitlines()
    return [ln.split("#")[0].strip() for ln in lines if ln.split("#")[0].strip()]


def test_requirements_are_pinned_and_cpu_only():
    reqs = _requirements()
    assert reqs, "binder/requirements.txt lists nothing"
    for req in reqs:
        assert re.fullmatch(r"[A-Za-z0-9_.\-\[\],]+==[0-9][A-Za-z0-9.+\-]*", req), f"not pinned with ==: {req!r}"
    names = {re.split(r"[=\[]", r)[0].lower() for r in reqs}
    assert not any(n.startswith("cupy") for n in names), "Binder has no GPU: no cupy"
    assert "torch" not in names
    for needed in ("numpy", "matplotlib", "ipywidgets", "anywidget", "graphviz", "jupyterlab", "pytest", "nbval"):
        assert needed in names, f"binder/requirements.txt lacks {needed}"


def test_apt_runtime_and_postbuild():
    assert "graphviz" in (BINDER / "apt.txt").read_text().split()
    assert (BINDER / "runtime.txt").read_text().strip() == "python-3.12"
    post = BINDER / "postBuild"
    assert os.access(post, os.X_OK), "binder/postBuild must be executable"
    text = post.read_text()
    assert text.startswith("#!"), "postBuild needs a shebang line"
    assert re.search(r"pip install .*(-e )?\.\s*$", text, re.M), "postBuild must install the package itself"


def _repo_files():
    try:
        out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                             capture_output=True).stdout.decode()
        return [f for f in out.split("\0") if f and (ROOT / f).is_file()]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout: copy what is there
        skip = {".venv", ".git", "__pycache__", ".pytest_cache", ".ipynb_checkpoints"}
        return [str(p.relative_to(ROOT)) for p in ROOT.rglob("*")
                if p.is_file() and not skip.intersection(p.relative_to(ROOT).parts)]


def _python_for_runtime():
    wanted = (BINDER / "runtime.txt").read_text().strip().removeprefix("python-")
    exe = shutil.which(f"python{wanted}")
    if exe:
        try:
            subprocess.run([exe, "-c", "import venv, ensurepip"], check=True, capture_output=True, timeout=60)
            return exe
        except (OSError, subprocess.SubprocessError):
            pass
    return sys.executable


def _run(cmd, cwd, env, timeout, what):
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        tail = (proc.stdout + proc.stderr)[-6000:]
        pytest.fail(f"{what} failed (exit {proc.returncode}):\n{tail}")
    return proc


@pytest.mark.slow
def test_lessons_pass_nbval_in_a_binder_built_environment(tmp_path):
    if shutil.which("dot") is None:
        pytest.skip("graphviz's `dot` is missing (binder/apt.txt installs it on Binder): apt-get install graphviz")
    repo = tmp_path / "repo"
    for rel in _repo_files():
        dest = repo / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, dest)
    assert (repo / "binder" / "postBuild").exists() and list((repo / "lessons").glob("*.ipynb"))

    venv = tmp_path / "venv"
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1", VIRTUAL_ENV=str(venv),
               PATH=str(bindir) + os.pathsep + env.get("PATH", ""), JUPYTER_PLATFORM_DIRS="1")
    started = time.perf_counter()
    _run([_python_for_runtime(), "-m", "venv", str(venv)], repo, env, 300, "creating the venv")
    py = str(bindir / "python")
    _run([py, "-m", "pip", "install", "-q", "-r", "binder/requirements.txt"], repo, env, 900,
         "pip install -r binder/requirements.txt")
    _run(["bash", "binder/postBuild"], repo, env, 300, "binder/postBuild")
    built = time.perf_counter() - started

    check = _run([py, "-c", "import autogradlab, sys; print(autogradlab.__file__)"], tmp_path, env, 120,
                 "importing autogradlab in the Binder venv")
    assert Path(check.stdout.strip()).resolve().is_relative_to(repo.resolve()), check.stdout

    proc = _run([py, "-m", "pytest", "--nbval", "lessons/", "--nbval-sanitize-with", "nbval_sanitize.cfg",
                 "--nbval-current-env", "-p", "no:cacheprovider", "-q"], repo, env, 900, "pytest --nbval lessons/")
    summary = proc.stdout.strip().splitlines()[-1]
    assert re.search(r"\d+ passed", summary) and "failed" not in summary, summary
    print(f"binder environment built in {built:.0f} s; nbval: {summary}")
