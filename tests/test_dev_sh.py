"""dev.sh's torch step: fatal where torch is required (CI), a warning elsewhere.

dev.sh runs in a scratch copy with a fake ``.venv/bin/python`` that records its calls and fails
``pip install torch`` (and ``import torch``) on demand; nothing is installed and no network is used.
"""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

FAKE_PYTHON = """#!/bin/bash
echo "$*" >> "$(dirname "$0")/../../calls.log"
case "$*" in
    "-c import sys") exit 0 ;;
    *"pip install -q -e"*) exit 0 ;;
    *"pip install -q torch=="*) [ -e "$(dirname "$0")/../../torch-installs" ] && { touch "$(dirname "$0")/../../torch-importable"; exit 0; }; exit 1 ;;
    "-c import torch") [ -e "$(dirname "$0")/../../torch-importable" ] && exit 0; exit 1 ;;
esac
exit 0
"""


@pytest.fixture
def scratch(tmp_path):
    if shutil.which("bash") is None:
        pytest.skip("needs bash")
    shutil.copy(ROOT / "dev.sh", tmp_path / "dev.sh")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    py = bin_dir / "python"
    py.write_text(FAKE_PYTHON)
    py.chmod(py.stat().st_mode | stat.S_IXUSR)
    return tmp_path


def _setup(root, **env):
    full = {k: v for k, v in os.environ.items() if k not in ("AUTOGRADLAB_REQUIRE_TORCH", "CI")}
    full.update(env)
    # pretend the system packages are there, so dev.sh never reaches for apt
    fake_bin = root / "fakebin"
    fake_bin.mkdir(exist_ok=True)
    for tool in ("dot",):
        (fake_bin / tool).write_text("#!/bin/sh\nexit 0\n")
        (fake_bin / tool).chmod(0o755)
    full["PATH"] = f"{fake_bin}{os.pathsep}{full.get('PATH', '')}"
    return subprocess.run(["bash", "dev.sh", "setup"], cwd=root, env=full, capture_output=True, text=True,
                          timeout=120)


def _torch_stamp(root):
    return (root / ".venv" / ".autogradlab-torch-stamp").read_text().strip()


def test_failed_torch_install_is_a_warning_locally(scratch):
    r = _setup(scratch)
    assert r.returncode == 0, r.stderr
    assert "could not install torch==" in r.stderr and "will skip" in r.stderr
    assert _torch_stamp(scratch).startswith("failed torch==")
    # remembered: the next run does not try again
    (scratch / "calls.log").unlink()
    assert _setup(scratch).returncode == 0
    assert "pip install -q torch" not in (scratch / "calls.log").read_text()


def test_failed_torch_install_is_fatal_where_required(scratch):
    r = _setup(scratch, AUTOGRADLAB_REQUIRE_TORCH="1")
    assert r.returncode != 0
    assert "ERROR" in r.stderr and "AUTOGRADLAB_REQUIRE_TORCH" in r.stderr


def test_failed_torch_install_is_fatal_in_ci(scratch):
    r = _setup(scratch, CI="true")
    assert r.returncode != 0 and "ERROR" in r.stderr


def test_required_run_retries_an_old_failure_and_passes_when_torch_installs(scratch):
    assert _setup(scratch).returncode == 0                  # a local failure, remembered
    assert _torch_stamp(scratch).startswith("failed")
    (scratch / "torch-installs").touch()                    # now the install works
    r = _setup(scratch, AUTOGRADLAB_REQUIRE_TORCH="1")
    assert r.returncode == 0, r.stderr
    assert _torch_stamp(scratch).startswith("ok torch==")


def test_required_run_reinstalls_a_torch_that_does_not_import(scratch):
    (scratch / "torch-installs").touch()
    assert _setup(scratch).returncode == 0
    (scratch / "torch-importable").unlink()                 # the install broke after the stamp was written
    (scratch / "torch-installs").unlink()
    r = _setup(scratch, AUTOGRADLAB_REQUIRE_TORCH="1")
    assert r.returncode != 0 and "does not import" in r.stderr


def test_ci_entry_point_requires_torch():
    text = (ROOT / ".ci" / "run").read_text()
    assert "export AUTOGRADLAB_REQUIRE_TORCH=1" in text


def test_gpu_check_without_cupy_stops_at_once_and_says_what_it_needs(scratch):
    """The fake python fails `import cupy` too (it exits 1 for any -c it does not know): no benchmark, no
    pytest, and an error naming CuPy and the install line."""
    fake = scratch / ".venv" / "bin" / "python"
    fake.write_text(FAKE_PYTHON.replace('esac\nexit 0', '    "-c import cupy"*) exit 1 ;;\nesac\nexit 0'))
    env = {k: v for k, v in os.environ.items() if k not in ("AUTOGRADLAB_REQUIRE_TORCH", "CI")}
    env["PYTHON"] = str(fake)
    out = scratch / "gpu-out"
    result = subprocess.run(["bash", "dev.sh", "gpu-check", str(out)], cwd=scratch, env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "gpu-check needs CuPy and an NVIDIA GPU" in result.stderr and "'.[gpu]'" in result.stderr
    calls = (scratch / "calls.log").read_text()
    assert "-m pytest" not in calls and "gpu.py" not in calls
    assert not (out / "suites.log").exists()
