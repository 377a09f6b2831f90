"""Lessons, as a student meets them: opened in JupyterLab 4 in Chromium and run top to bottom.

Lesson 02 (the chain rule: the stepper and a drawing) and lesson 03 (topological order: the player
widget) check the course's main path in a real browser: every cell runs, none errors, drawings
render as SVG, and a player renders its graph and steps.
"""
from pathlib import Path

import nbformat
import pytest

from .conftest import REPO, artifact


def blank(lesson):
    nb = nbformat.read(REPO / "lessons" / f"{lesson}.ipynb", as_version=4)
    for cell in nb.cells:                      # start from a blank notebook, as a student would
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return nb


def test_lesson_06_steps_through_freeing_and_the_second_backward_error(lab):
    opened = lab(blank("06_memory"))
    opened.run_all()
    opened.assert_ran_cleanly()
    page = opened.page
    page.locator(".agl-player[data-ready='1']").nth(1).wait_for()
    first, second = page.locator(".agl-player").nth(0), page.locator(".agl-player").nth(1)
    first.locator(".agl-jump[data-kind='SavedFreed']").click()
    page.wait_for_function("(el) => el.querySelectorAll('g.agl-node.agl-freed').length === 1",
                           arg=first.element_handle())
    assert first.locator(".agl-caption").text_content().split(":")[0].endswith("SavedFreed")
    first.focus()
    page.keyboard.press("End")
    assert first.locator("g.agl-node.agl-freed").count() >= 2     # every op that saved something
    second.focus()
    page.keyboard.press("End")
    page.wait_for_function("(el) => el.querySelector('.agl-caption').textContent.includes('RuntimeError')",
                           arg=second.element_handle())
    assert "retain_graph=True" in second.locator(".agl-caption").text_content()
    assert second.locator("g.agl-node.agl-freed").count() >= 2    # the graph it refused is already freed
    second.screenshot(path=str(artifact("06_memory-error-player.png")))


@pytest.mark.parametrize("lesson", ["02_chain_rule", "03_topological_order"])
def test_lesson_runs_cleanly_in_lab(graphviz_dot, lab, lesson):
    nb = nbformat.read(REPO / "lessons" / f"{lesson}.ipynb", as_version=4)
    for cell in nb.cells:                      # start from a blank notebook, as a student would
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    opened = lab(nb)
    opened.run_all()
    opened.assert_ran_cleanly()
    page = opened.page
    assert page.locator(".jp-OutputArea-output svg, .jp-RenderedSVG img, .agl-graph svg").count() >= 1, \
        "the lesson shows at least one graph"
    players = page.locator(".agl-player")
    if lesson == "02_chain_rule":
        return
    assert players.count() >= 1, "lesson 03 shows the player"
    first = players.first
    page.locator(".agl-player[data-ready='1']").first.wait_for()
    before = first.get_attribute("data-step")
    first.locator(".agl-next").click()
    page.wait_for_function("(b) => document.querySelector('.agl-player').dataset.step !== b", arg=before)
    assert int(first.get_attribute("data-step")) == int(before) + 1
    assert first.locator("g.agl-node.agl-pending, g.agl-node.agl-current, g.agl-node.agl-done").count() >= 1
    first.screenshot(path=str(artifact(f"{lesson}-player.png")))
    assert Path(artifact(f"{lesson}-player.png")).stat().st_size > 0
