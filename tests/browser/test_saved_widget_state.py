"""Issue 14: a notebook saved with its widget state steps with no kernel. The notebook is executed by
nbclient with ``store_widget_state=True`` (the player's ES module and data go into the notebook's widget
state), converted by ``jupyter nbconvert --to html``, and the HTML is opened in Chromium with no kernel.

nbconvert's page loads three generic loaders from CDNs (require.js, the Jupyter widgets HTML manager and
anywidget's AMD module: none of them is ours); this machine reaches no CDN, so the test serves those URLs
from the same packages taken from the npm registry at pinned versions. Everything of the player (its
code and the tape) comes from the saved state: no other request is answered."""
import json
import re
import shutil
import subprocess
import sys
import tarfile

import pytest

from . import nbgen
from .player_checks import check_frame, press, wait_step

LOADERS = {  # npm package -> (version, file in the package served for a CDN URL matching the pattern)
    "requirejs": ("2.3.8", r"/require(\.min)?\.js$", "package/require.js"),
    "@jupyter-widgets/html-manager": ("1.0.15", r"/@jupyter-widgets/html-manager@[^/]*/dist/(embed-amd\.js)$",
                                      "package/dist/{0}"),
}


def _npm_pack(name, version, dest):
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: the CDN loaders of nbconvert's page cannot be fetched")
    res = subprocess.run([npm, "pack", f"{name}@{version}", "--pack-destination", str(dest), "--json"],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, f"npm pack {name}@{version} failed:\n{res.stderr}"
    out = dest / f"x-{name.replace('/', '-')}"
    with tarfile.open(dest / json.loads(res.stdout)[0]["filename"]) as tf:
        tf.extractall(out, filter="data")
    return out


def test_a_notebook_saved_with_widget_state_steps_in_the_browser_without_a_kernel(page, tmp_path):
    import anywidget
    import nbformat
    from nbclient import NotebookClient

    from autogradlab.viz.playerdata import player_data

    nb = nbgen.player_notebook()
    NotebookClient(nb, timeout=300, kernel_name="python3", store_widget_state=True).execute()
    state = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    players = [w["state"] for w in state.values() if w["model_name"] == "AnyModel"]
    assert len(players) == 1 and "autogradlabPlayer" in players[0]["_esm"], "the player's ES module is in the state"
    path = tmp_path / "saved.ipynb"
    nbformat.write(nb, path)
    res = subprocess.run([sys.executable, "-m", "nbconvert", "--to", "html", str(path)], capture_output=True, text=True,
                         timeout=300, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    html = tmp_path / "saved.html"

    routes = [(re.compile(pat), _npm_pack(name, ver, tmp_path), file) for name, (ver, pat, file) in LOADERS.items()]
    routes.append((re.compile(r"/npm/anywidget@[^/]*/dist/index\.js$"),
                   _npm_pack("anywidget", anywidget.__version__, tmp_path), "package/dist/index.js"))
    served, refused = [], []

    def handle(route):
        url = route.request.url
        if url == html.resolve().as_uri():
            return route.continue_()
        for pat, root, file in routes:
            m = pat.search(url.split("?")[0])
            if m:
                served.append(url)
                return route.fulfill(path=str(root / file.format(*m.groups())), content_type="application/javascript")
        refused.append(url)
        return route.abort()

    page.route("**/*", handle)
    page.goto(html.resolve().as_uri())
    tape = nbgen.build_tape()
    data = player_data(tape)
    page.locator(".agl-player[data-ready='1']").wait_for(timeout=60000)
    f = wait_step(page, data["start"])
    check_frame(f, tape, data)
    for k in range(data["start"] + 1, min(data["start"] + 6, data["end"]) + 1):
        press(page, "ArrowRight")
        check_frame(wait_step(page, k), tape, data)
    assert len(served) == 3, served
    # refused: MathJax (no formulas here) and the HTML manager's first try at anywidget beside the page
    assert all("mathjax" in u.lower() or u == (tmp_path / "anywidget.js").resolve().as_uri() for u in refused), \
        f"unexpected requests: {refused}"
    errors = [line for line in page.console_log if line.startswith("pageerror")]
    assert not errors, errors
