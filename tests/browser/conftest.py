"""Browser tests: headless Debian Chromium driven by Playwright (sync API), against a JupyterLab 4
server that each test module starts on 127.0.0.1, or against files exported by the player.

    .venv/bin/python -m pytest tests/browser            # these only (about 40 s on 2 cores)
    .venv/bin/python -m pytest -m "not browser"          # everything else

- ``browser`` (session): one Chromium at /usr/bin/chromium; Playwright never downloads a browser.
- ``page`` (per test): a fresh 1280x900 context; console messages, page errors and failed requests
  go to ``artifacts/browser/<test>-console.log``; a full-page ``<test>-FAILED.png`` on failure.
- ``lab_server`` (module): ``jupyter lab`` on a free port with a random token, a temporary root
  dir and isolated Jupyter config/data/runtime/settings/workspace dirs; ready when /api/status
  answers 200; stopped by POST /api/shutdown, then SIGTERM and SIGKILL to the server and every
  process it started (kernels run in sessions of their own, so they are found through /proc).
  Its log: ``artifacts/browser/server-<module>.log``.
- ``lab`` (per test): writes a fresh notebook into the server's root (never into the repo), opens
  it in a workspace of its own (``?reset``) and waits for an idle kernel; deletes the session after.

Every test here is marked ``browser`` and gets a 180 s pytest-timeout. Without playwright or
/usr/bin/chromium (or jupyterlab, or graphviz's dot, where needed) a test is skipped with the
reason, unless AUTOGRADLAB_REQUIRE_BROWSER=1 (set it in CI), which turns the skip into a failure.
Other knobs: AUTOGRADLAB_CHROMIUM (browser path), AUTOGRADLAB_ARTIFACTS (artifacts root),
AUTOGRADLAB_UI_TIMEOUT_MS (Playwright's default timeout, 30000).
"""
from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass

import pytest

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent.parent
ARTIFACTS = pathlib.Path(os.environ.get("AUTOGRADLAB_ARTIFACTS", REPO / "artifacts")) / "browser"
CHROMIUM = os.environ.get("AUTOGRADLAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [  # Playwright adds --headless and a fresh temporary --user-data-dir itself
    "--no-sandbox",  # CI runs as root
    "--disable-gpu",
    "--disable-dev-shm-usage",  # also sidesteps Debian's wrapper script's /dev/shm probe
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
VIEWPORT = {"width": 1280, "height": 900}
UI_TIMEOUT_MS = int(os.environ.get("AUTOGRADLAB_UI_TIMEOUT_MS", "30000"))
TEST_TIMEOUT_S = 180
SERVER_START_TIMEOUT_S = 90
SERVER_STOP_TIMEOUT_S = 20

# JupyterLab user settings written into the isolated settings dir: no news/update toast over the
# page, and every cell kept in the DOM (no virtual windowing of off-screen cells).
LAB_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings":
        {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}


def _required() -> bool:
    return os.environ.get("AUTOGRADLAB_REQUIRE_BROWSER", "").strip().lower() in ("1", "true", "yes")


def _missing_or_fail(reason: str):
    if _required():
        pytest.fail(f"{reason} (and AUTOGRADLAB_REQUIRE_BROWSER is set)", pytrace=False)
    pytest.skip(reason)


def browser_missing() -> str | None:
    if importlib.util.find_spec("playwright") is None:
        return "playwright is not installed: pip install -e '.[browser]'"
    if not os.access(CHROMIUM, os.X_OK):
        return f"{CHROMIUM} is missing: apt-get install chromium fonts-liberation (bash dev.sh test does this as root)"
    return None


def dot_missing() -> str | None:
    if shutil.which("dot") is None:
        return "graphviz's `dot` is missing (the player draws with it): apt-get install graphviz"
    return None


def lab_missing() -> str | None:
    if importlib.util.find_spec("jupyterlab") is None:
        return "jupyterlab is not installed: pip install -e '.[lab]'"
    if importlib.util.find_spec("ipykernel") is None:
        return "ipykernel is not installed: pip install -e '.[lab]'"
    return None


def pytest_collection_modifyitems(config, items):
    for item in items:
        if HERE not in pathlib.Path(item.path).resolve().parents:
            continue
        item.add_marker(pytest.mark.browser)
        if item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(TEST_TIMEOUT_S))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, f"rep_{rep.when}", rep)


def safe_name(name: str) -> str:
    return re.sub(r"[^\w.-]+", "_", name)


def artifact(name: str) -> pathlib.Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS / safe_name(name)


# ---------------------------------------------------------------------------------------------
# Chromium
# ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def graphviz_dot():
    """Skips (or fails, under AUTOGRADLAB_REQUIRE_BROWSER=1) a test that needs graphviz's dot."""
    reason = dot_missing()
    if reason:
        _missing_or_fail(reason)


@pytest.fixture(scope="session")
def browser():
    reason = browser_missing()
    if reason:
        _missing_or_fail(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page_scale():
    """devicePixelRatio of the test's page; a module may override this fixture (2 for crisp screenshots)."""
    return 1


@pytest.fixture
def page(browser, request, page_scale):
    for old in ARTIFACTS.glob(safe_name(request.node.name) + "-*"):
        old.unlink()  # no stale FAILED.png from an earlier run
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=page_scale)
    context.set_default_timeout(UI_TIMEOUT_MS)
    pg = context.new_page()
    log = []
    pg.on("console", lambda m: log.append(f"{m.type}: {m.text}"))
    pg.on("pageerror", lambda e: log.append(f"pageerror: {e}"))
    pg.on("requestfailed", lambda r: log.append(f"requestfailed: {r.url} {r.failure}"))
    pg.console_log = log  # tests may look at it
    try:
        yield pg
    finally:
        name = request.node.name
        rep = getattr(request.node, "rep_call", None)
        if rep is None or rep.failed:
            try:
                pg.screenshot(path=str(artifact(f"{name}-FAILED.png")), full_page=True)
            except Exception as e:  # the page may be gone already
                log.append(f"(no failure screenshot: {e!r})")
        artifact(f"{name}-console.log").write_text("\n".join(log) + "\n")
        context.close()


# ---------------------------------------------------------------------------------------------
# JupyterLab server
# ---------------------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def isolated_env(tmp: pathlib.Path) -> dict:
    """Jupyter dirs under tmp: no user config, settings or workspaces leak in or out.
    Labextensions installed in the venv stay visible (they live under sys.prefix)."""
    env = dict(os.environ)
    for var, sub in [("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_DATA_DIR", "data"),
                     ("JUPYTER_RUNTIME_DIR", "runtime"), ("JUPYTERLAB_SETTINGS_DIR", "lab-settings"),
                     ("JUPYTERLAB_WORKSPACES_DIR", "lab-workspaces"), ("IPYTHONDIR", "ipython"),
                     ("MPLCONFIGDIR", "mpl")]:
        (tmp / sub).mkdir(parents=True, exist_ok=True)
        env[var] = str(tmp / sub)
    for rel, value in LAB_SETTINGS.items():
        f = tmp / "lab-settings" / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(json.dumps(value))
    # the kernel must be this venv's python (jupyter_client maps a kernelspec's "python" to the
    # server's interpreter; PATH covers anything else the kernel spawns)
    env["PATH"] = os.pathsep.join([str(pathlib.Path(sys.executable).parent), env.get("PATH", "")])
    env["JUPYTER_PLATFORM_DIRS"] = "1"
    env["PYTHONUNBUFFERED"] = "1"
    env["MPLBACKEND"] = "Agg"
    for var in ("JUPYTER_TOKEN", "JUPYTER_PATH", "JUPYTER_PREFER_ENV_PATH"):
        env.pop(var, None)
    return env


def _descendants(pid: int) -> list[int]:
    """All live descendants of pid (kernels run in sessions of their own, so killpg misses them)."""
    children: dict[int, list[int]] = {}
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2:].split()
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie counts as gone
        return pathlib.Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (OSError, IndexError):
        return False


@dataclass
class LabServer:
    proc: subprocess.Popen
    base_url: str
    token: str
    root: pathlib.Path
    log_path: pathlib.Path
    started_in: float = 0.0

    def url(self, path: str) -> str:
        return f"{self.base_url}{path}{'&' if '?' in path else '?'}token={self.token}"

    def log_tail(self, n=4000) -> str:
        return self.log_path.read_text(errors="replace")[-n:] if self.log_path.exists() else ""

    def api(self, method: str, path: str, body=None, timeout=30):
        req = urllib.request.Request(
            self.base_url + path, method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=timeout) as r:
            text = r.read()
        return json.loads(text) if text else None

    def wait_ready(self, timeout: float):
        deadline, last = time.monotonic() + timeout, None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"jupyter-lab exited with {self.proc.returncode} before it was ready:\n"
                                   + self.log_tail())
            try:
                self.api("GET", "/api/status", timeout=5)
                return
            except (urllib.error.URLError, ConnectionError, OSError, ValueError) as e:
                last = e
            time.sleep(0.2)
        raise TimeoutError(f"jupyter-lab not ready after {timeout}s ({last!r}):\n" + self.log_tail())

    def stop(self):
        """POST /api/shutdown (stops the kernels too); if that does not end it in time,
        SIGTERM then SIGKILL to the server and every process it started."""
        procs = [self.proc.pid] + _descendants(self.proc.pid)
        if self.proc.poll() is None:
            try:
                self.api("POST", "/api/shutdown", timeout=10)
            except Exception as e:  # it may drop the connection while stopping
                print(f"[lab] /api/shutdown: {e!r}")
            try:
                self.proc.wait(timeout=SERVER_STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                print(f"[lab] still running {SERVER_STOP_TIMEOUT_S}s after /api/shutdown; signalling")
        for sig in (signal.SIGTERM, signal.SIGKILL):
            left = [p for p in procs if _alive(p)]
            if not left:
                break
            print(f"[lab] sending {sig.name} to {left}")
            for p in left:
                try:
                    os.kill(p, sig)
                except ProcessLookupError:
                    pass
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and any(_alive(p) for p in left):
                time.sleep(0.1)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass


def _venv_bin(name: str) -> str:
    cand = pathlib.Path(sys.executable).parent / name
    return str(cand) if cand.exists() else name


@pytest.fixture(scope="module")
def lab_server(tmp_path_factory, request):
    reason = browser_missing() or lab_missing()
    if reason:
        _missing_or_fail(reason)
    tmp = tmp_path_factory.mktemp("lab")
    root = tmp / "root"
    root.mkdir()
    port, token = free_port(), secrets.token_hex(16)
    log_path = artifact(f"server-{request.module.__name__.rsplit('.', 1)[-1]}.log")
    argv = [
        sys.executable, "-m", "jupyterlab",
        "--no-browser",
        "--allow-root",  # CI runs as root
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        "--LabApp.expose_app_in_browser=True",  # window.jupyterapp, for run-all and kernel status
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly",  # no PyPI queries from the UI
        "--ServerApp.terminals_enabled=False",
    ]
    t0 = time.monotonic()
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(argv, cwd=root, env=isolated_env(tmp), stdin=subprocess.DEVNULL,
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    srv = LabServer(proc, f"http://127.0.0.1:{port}", token, root, log_path)
    try:
        srv.wait_ready(SERVER_START_TIMEOUT_S)
        srv.started_in = time.monotonic() - t0
        yield srv
    finally:
        srv.stop()


# ---------------------------------------------------------------------------------------------
# A notebook opened and run in JupyterLab
# ---------------------------------------------------------------------------------------------

KERNEL_IDLE_JS = """() => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
  return !!k && k.status === 'idle';
}"""

CELLS_JS = """() => {
  const nb = window.jupyterapp.shell.currentWidget.content;
  const cells = [];
  nb.widgets.forEach((cell, index) => {
    if (cell.model.type !== 'code') return;
    const outputs = cell.model.outputs.toJSON().map(o => {
      const text = Array.isArray(o.text) ? o.text.join('') : o.text;
      return {output_type: o.output_type, name: o.name, text, ename: o.ename, evalue: o.evalue};
    });
    cells.push({index, execution_count: cell.model.executionCount, outputs});
  });
  return cells;
}"""


class LabNotebook:
    """Opens one notebook in one page; see the ``lab`` fixture."""

    def __init__(self, server: LabServer, page, name: str):
        self.server, self.page, self.name = server, page, name
        self.timings: dict[str, float] = {}

    def open(self):
        t0 = time.monotonic()
        page = self.page
        # A workspace of its own, reset: otherwise Lab restores the tabs an earlier test left open.
        page.goto(self.server.url(f"/lab/workspaces/{self.name.removesuffix('.ipynb')}/tree/{self.name}?reset"))
        page.locator(".jp-NotebookPanel .jp-Notebook").wait_for()
        # The status bar, not the toolbar's execution indicator: that says "idle" before any kernel.
        page.locator(".jp-StatusBar-TextItem", has_text=re.compile(r"\(ipykernel\) \| Idle")).wait_for()
        page.wait_for_function(KERNEL_IDLE_JS)
        self.timings["open"] = time.monotonic() - t0
        return self

    def run_all(self):
        t0 = time.monotonic()
        # resolves (to true) once every cell has finished
        ok = self.page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
        assert ok is True, f"run-all-cells returned {ok!r}"
        self.timings["run_all"] = time.monotonic() - t0
        return self

    def cells(self) -> list[dict]:
        """Every code cell of the open notebook, from Lab's model: execution count and outputs."""
        return self.page.evaluate(CELLS_JS)

    def assert_ran_cleanly(self):
        """Every code cell ran, none produced an error output (stderr text is only reported)."""
        cells = self.cells()
        assert cells, "no code cells found"
        problems = []
        for c in cells:
            if c["execution_count"] is None:
                problems.append(f"cell {c['index']} did not run")
            for o in c["outputs"]:
                if o["output_type"] == "error":
                    problems.append(f"cell {c['index']}: {o.get('ename')}: {o.get('evalue')}")
                elif o["output_type"] == "stream" and o.get("name") == "stderr":
                    print(f"[lab] cell {c['index']} wrote to stderr: {o.get('text')!r}")
        assert not problems, "\n".join(problems)

    def run_code(self, code: str) -> str:
        """Run ``code`` in the notebook's kernel (no new cell); returns what it printed."""
        return self.page.evaluate("""async (code) => {
          const k = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
          const f = k.requestExecute({code, store_history: false});
          let out = '';
          f.onIOPub = (msg) => { if (msg.header.msg_type === 'stream') out += msg.content.text; };
          await f.done;
          return out;
        }""", code)

    def close_side_panels(self):
        """Collapse the left/right side areas so the notebook gets the page's width."""
        self.page.evaluate("""() => { const s = window.jupyterapp.shell;
          if (s.leftCollapsed === false) s.collapseLeft(); if (s.rightCollapsed === false) s.collapseRight(); }""")


@pytest.fixture
def lab(lab_server, page, request):
    """Factory: ``lab(nb, extra_files=())`` writes ``nb`` (an nbformat notebook) into the server's
    root under a name unique to this test, opens it and waits for an idle kernel."""
    from . import nbgen

    opened = []

    def open_notebook(nb, extra_files=()):
        name = f"{re.sub(r'[^A-Za-z0-9_]+', '_', request.node.name)}_{len(opened)}.ipynb"
        nbgen.write(nb, lab_server.root / name)
        for f in extra_files:
            shutil.copy(f, lab_server.root / pathlib.Path(f).name)
        opened.append(name)
        return LabNotebook(lab_server, page, name).open()

    yield open_notebook
    try:
        for s in lab_server.api("GET", "/api/sessions"):
            if s["path"] in opened or any(s["path"].endswith("/" + n) for n in opened):
                lab_server.api("DELETE", f"/api/sessions/{s['id']}")
    except Exception as e:  # the server is stopped with the module anyway
        print(f"[lab] could not delete sessions: {e!r}")
