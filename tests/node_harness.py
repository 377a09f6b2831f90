"""Run a small ES-module script against the committed player bundle under Node (no browser): the
kernel-free checks of the front end's pure functions. The browser tests check the same in Chromium."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from autogradlab.viz.widget import BUNDLE


def run_with_bundle(script_text, query, tmp_path, name="harness.mjs"):
    """Write ``script_text`` to ``tmp_path/name``, run it with the bundle's file URL as its argument and
    ``query`` as JSON on stdin, and return its JSON stdout (skips where Node is not installed)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (the browser tests check the same in Chromium)")
    script = tmp_path / name
    script.write_text(script_text)
    res = subprocess.run([node, str(script), BUNDLE.as_uri()], input=json.dumps(query), capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)
