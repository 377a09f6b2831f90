"""Generates the notebooks the browser tests open (nothing is committed as .ipynb: under tests/,
`pytest --nbval` would collect it).

    python tests/browser/nbgen.py OUT.ipynb            # the player notebook, to open by hand

The graph is small but has fan-in: ``x`` feeds both the product ``x * w`` and the sum, so its
gradient is accumulated from two contributions during the backward pass.
"""
import sys

import nbformat

GRAPH_CODE = """\
import autogradlab as ag

x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")
w = ag.tensor([3.0, -1.0], requires_grad=True, name="w")
with ag.trace() as tape:
    y = (x * w + x).sum()   # x is used twice: its gradient is accumulated (fan-in)
    y.backward()
"""

PLAY_CODE = "p = tape.play()\np"


def build_tape():
    """The same tape as the notebook's, built in this process."""
    ns = {}
    exec(GRAPH_CODE, ns)
    return ns["tape"]


def fan_in_step(tape) -> int:
    """The tape step where a gradient is added to one already there (x's second contribution)."""
    from autogradlab.events import Accumulated

    return next(e.step for e in tape if isinstance(e, Accumulated) and e.before is not None)


def notebook(cells):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    nb.cells = [nbformat.v4.new_code_cell(src) for src in cells]
    return nb


def player_notebook(play_code=PLAY_CODE):
    return notebook([GRAPH_CODE, play_code])


def write(nb, path):
    nbformat.validate(nb)
    with open(path, "w", encoding="utf-8") as f:
        nbformat.write(nb, f)
    return path


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    print(write(player_notebook(), sys.argv[1]))
