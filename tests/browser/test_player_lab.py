"""The player widget (an anywidget) in JupyterLab 4, in headless Chromium: run a notebook that traces
a small backward pass with fan-in (x * w + x) and shows ``tape.play()``, drive every control and
check every frame against the engine's events; then shut the kernel down and step on.

Also makes the README screenshot, assets/player.png: the player at the fan-in accumulation (x's
second gradient contribution is added to the first). It is taken into artifacts/browser/ on every run
and copied over assets/player.png only with AUTOGRADLAB_UPDATE_SCREENSHOT=1, so a test run never
dirties the work tree.
"""
import os
import shutil
import time

import pytest

from autogradlab.viz.playerdata import player_data

from . import nbgen
from .conftest import REPO, artifact
from .player_checks import check_frame, exercise_player, press, read, wait_step

SCREENSHOT = REPO / "assets" / "player.png"


@pytest.fixture
def page_scale():
    return 2  # the screenshot is shown in the README: crisp on high-DPI screens


def test_player_in_lab_and_after_the_kernel_stops(lab):
    t0 = time.monotonic()
    nb = lab(nbgen.player_notebook())
    nb.close_side_panels()
    nb.run_all()
    nb.assert_ran_cleanly()
    page = nb.page
    tape = nbgen.build_tape()
    data = player_data(tape)
    assert page.locator(".agl-player").count() == 1
    shot = artifact("player.png")
    seen = exercise_player(page, tape, data, screenshot=shot, screenshot_step=nbgen.fan_in_step(tape))
    if os.environ.get("AUTOGRADLAB_UPDATE_SCREENSHOT") and (not SCREENSHOT.exists()
                                                          or SCREENSHOT.read_bytes() != shot.read_bytes()):
        SCREENSHOT.parent.mkdir(exist_ok=True)
        shutil.copyfile(shot, SCREENSHOT)
        print(f"\n[player lab] updated {SCREENSHOT}")

    # the step the browser shows reaches the kernel (p.step), while there is one
    press(page, "Home")
    wait_step(page, data["start"])
    press(page, "ArrowRight")
    wait_step(page, data["start"] + 1)
    # (the widget manager may hold a state update back while earlier ones are unanswered: the step
    # reaches the kernel soon, not necessarily before the next request does)
    want, deadline = f"kernel step {data['start'] + 1}", time.monotonic() + 20
    out = nb.run_code("print('kernel step', p.step)")
    while want not in out and time.monotonic() < deadline:
        page.wait_for_timeout(250)
        out = nb.run_code("print('kernel step', p.step)")
    assert want in out

    # no kernel: stepping is the browser's own work
    for k in nb.server.api("GET", "/api/kernels"):
        nb.server.api("DELETE", f"/api/kernels/{k['id']}")
    page.wait_for_function("() => !document.querySelector('.jp-StatusBar-TextItem')?.textContent.includes('Idle')")
    page.wait_for_timeout(500)
    for _ in range(3):   # Lab may ask what to do about the dead kernel: a modal dialog would take the keys
        dialog = page.locator(".jp-Dialog")
        if not dialog.count():
            break
        buttons = dialog.locator("button.jp-mod-reject")
        (buttons.first.click() if buttons.count() else page.keyboard.press("Escape"))
        page.wait_for_timeout(300)
    for k in range(data["start"] + 2, data["start"] + 6):
        press(page, "ArrowRight")
        check_frame(wait_step(page, k), tape, data)
    press(page, "ArrowLeft")
    check_frame(wait_step(page, data["start"] + 4), tape, data)
    page.screenshot(path=str(artifact("test_player_in_lab-page.png")))
    print(f"\n[player lab] {seen}; open {nb.timings['open']:.1f}s, run-all {nb.timings['run_all']:.1f}s, "
          f"total {time.monotonic() - t0:.1f}s")
