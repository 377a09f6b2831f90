"""The torch-comparison tests skip without torch on a developer's machine, and fail in CI (conftest.import_torch)."""
from __future__ import annotations

import sys
import types

import pytest
from conftest import TORCH_VERSION, import_torch, torch_required


@pytest.fixture
def no_torch(monkeypatch):
    """Make `import torch` fail, as on a machine where its install broke."""
    monkeypatch.setitem(sys.modules, "torch", None)   # None in sys.modules: import raises ImportError


@pytest.mark.parametrize("env, reason", [
    ({}, None),
    ({"CI": ""}, None),
    ({"CI": "false"}, None),
    ({"AUTOGRADLAB_REQUIRE_TORCH": "0"}, None),
    ({"CI": "true"}, "CI"),
    ({"CI": "1"}, "CI"),
    ({"AUTOGRADLAB_REQUIRE_TORCH": "1"}, "AUTOGRADLAB_REQUIRE_TORCH"),
    ({"AUTOGRADLAB_REQUIRE_TORCH": "1", "CI": "false"}, "AUTOGRADLAB_REQUIRE_TORCH"),
])
def test_when_torch_is_required(env, reason):
    got = torch_required(env)
    if reason is None:
        assert got is None
    else:
        assert got is not None and reason in got


def test_missing_torch_skips_locally_with_the_reason(no_torch):
    with pytest.raises(pytest.skip.Exception) as info:
        import_torch({})
    msg = str(info.value)
    assert "torch is not importable" in msg and f"torch=={TORCH_VERSION}" in msg
    assert "AUTOGRADLAB_REQUIRE_TORCH=1" in msg          # says how to make it strict


@pytest.mark.parametrize("env", [{"CI": "true"}, {"AUTOGRADLAB_REQUIRE_TORCH": "1"}])
def test_missing_torch_fails_in_ci(no_torch, env):
    with pytest.raises(pytest.fail.Exception) as info:
        import_torch(env)
    msg = str(info.value)
    assert "torch is not importable" in msg and "may not skip" in msg
    assert not isinstance(info.value, pytest.skip.Exception)


def test_wrong_torch_version_fails_only_where_required(monkeypatch):
    fake = types.ModuleType("torch")
    fake.__version__ = "1.0.0"
    monkeypatch.setitem(sys.modules, "torch", fake)
    assert import_torch({}) is fake                         # locally: use what is there
    with pytest.raises(pytest.fail.Exception, match=f"pinned to torch=={TORCH_VERSION}"):
        import_torch({"CI": "true"})


def test_the_pinned_torch_is_returned(monkeypatch):
    fake = types.ModuleType("torch")
    fake.__version__ = f"{TORCH_VERSION}+cpu"
    monkeypatch.setitem(sys.modules, "torch", fake)
    assert import_torch({"AUTOGRADLAB_REQUIRE_TORCH": "1"}) is fake


def test_dev_sh_pins_the_same_version():
    from pathlib import Path
    text = (Path(__file__).resolve().parents[1] / "dev.sh").read_text()
    assert f'TORCH_SPEC="torch=={TORCH_VERSION}"' in text
