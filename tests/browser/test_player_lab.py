"""The player widget in JupyterLab 4, in headless Chromium: run a notebook that traces a small
backward pass with fan-in (x * w + x) and shows ``tape.play()``, then drive the player.

Also makes the README screenshot, assets/player.png: the player at the fan-in accumulation (x's
second gradient contribution is added to the first). It is taken into artifacts/browser/ and
copied over assets/player.png only when the bytes differ (rendering is deterministic on one
machine, so an unchanged player leaves the file, and git, alone).
"""
import shutil
import time

import pytest

from . import nbgen
from .conftest import REPO, artifact
from .player_checks import exercise_player

SCREENSHOT = REPO / "assets" / "player.png"


@pytest.fixture
def page_scale():
    return 2  # the screenshot is shown in the README: crisp on high-DPI screens


def test_player_in_lab(graphviz_dot, lab):
    t0 = time.monotonic()
    nb = lab(nbgen.player_notebook())
    nb.close_side_panels()  # the notebook gets the page's full width (1280 px)
    nb.run_all()
    nb.assert_ran_cleanly()
    page = nb.page
    page.locator(".agl-player .agl-graph svg[data-step]").first.wait_for()
    assert page.locator(".agl-player").count() == 1

    shot = artifact("player.png")
    seen = exercise_player(page, nbgen.build_tape(), screenshot=shot)
    if not SCREENSHOT.exists() or SCREENSHOT.read_bytes() != shot.read_bytes():
        SCREENSHOT.parent.mkdir(exist_ok=True)
        shutil.copyfile(shot, SCREENSHOT)
        print(f"\n[player lab] updated {SCREENSHOT}")
    page.screenshot(path=str(artifact("test_player_in_lab-page.png")))
    print(f"\n[player lab] frames {seen}; open {nb.timings['open']:.1f}s, "
          f"run-all {nb.timings['run_all']:.1f}s, total {time.monotonic() - t0:.1f}s; screenshot {SCREENSHOT}")
