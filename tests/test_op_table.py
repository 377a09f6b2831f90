"""README's op table is exactly what ``python -m autogradlab.ops.table`` prints, and lists every op."""
import pathlib
import re
import subprocess
import sys

from autogradlab.ops import REGISTRY
from autogradlab.ops.table import COMPOSITES, op_table

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _cells(line):
    """The cells of a markdown table row (an escaped ``\\|`` stays inside its cell)."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]


def _readme_table():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("\n## Op table\n")
    end = text.find("\n## ", start + 1)
    section = text[start:end if end != -1 else len(text)]
    return "\n".join(line for line in section.splitlines() if line.startswith("|"))


def test_readme_op_table_is_up_to_date():
    assert _readme_table() == op_table(), (
        "README.md's op table is stale: replace the table under '## Op table' with the output of "
        "`python -m autogradlab.ops.table`")


def test_every_registered_op_has_a_row():
    names = [_cells(line)[0] for line in op_table().splitlines()[2:]]
    for name in REGISTRY:
        assert f"`{name}`" in names, f"op {name!r} is missing from the op table"
    assert len(names) == len(REGISTRY) + len(COMPOSITES)


def test_rows_show_node_name_and_both_formulas():
    lines = {_cells(line)[0]: line for line in op_table().splitlines()[2:]}
    for name, op in REGISTRY.items():
        cells = _cells(lines[f"`{name}`"])
        assert len(cells) == 4
        if op.differentiable:
            assert cells[1] == f"`{op.node_name}`"
            assert cells[2] and cells[3].startswith("`") and cells[3] != "``"
        else:
            assert cells[1] == "-" and "not differentiable" in cells[3]


def test_module_prints_the_table():
    out = subprocess.run([sys.executable, "-m", "autogradlab.ops.table"], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    assert out.stdout.strip() == op_table()
