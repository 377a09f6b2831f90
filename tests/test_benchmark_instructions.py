"""benchmarks/instructions.py: reading callgrind's output and the per-op arithmetic (no valgrind run)."""
import os
import sys

import pytest

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks")
sys.path.insert(0, BENCH)

import instructions  # noqa: E402

DUMP = """# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 4242
cmd:  python instructions.py --child autogradlab 300
part: 2

desc: I1 cache:
positions: line
events: Ir
summary: 123456789
totals: 123456789

fl=(1) ???
fn=(1) main
0 17
"""


def test_parse_total_reads_the_summary_and_the_part():
    assert instructions.parse_total(DUMP) == 123456789
    assert instructions.part_number(DUMP) == 2
    assert instructions.parse_total(DUMP.replace("summary: 123456789\n", "")) == 123456789   # totals: only


@pytest.mark.parametrize("bad, why", [
    (DUMP.replace("events: Ir", "events: Dr Ir"), "Ir as its first event"),
    (DUMP.replace("events: Ir\n", ""), "no 'events:' line"),
    (DUMP.replace("summary: 123456789\n", "").replace("totals: 123456789\n", ""), "no 'summary:'"),
])
def test_parse_total_refuses_what_it_cannot_read(bad, why):
    with pytest.raises(ValueError, match=why):
        instructions.parse_total(bad)


def test_phases_need_exactly_one_part_per_marker():
    assert instructions.phases_of([10, 20, 30, 1]) == {"setup": 10, "fwd": 20, "bwd": 30}
    with pytest.raises(ValueError, match="expected 4 callgrind parts"):
        instructions.phases_of([10, 20, 30, 40, 1])


def test_per_op_subtracts_the_fixed_part():
    # forward: 5000 fixed + 1200 per op; backward: 800 fixed + 900 per node
    counts = {n: {"setup": 10**9, "fwd": 5000 + 1200 * n, "bwd": 800 + 900 * n} for n in (300, 600)}
    r = instructions.per_op(counts)
    assert (r["fwd_per_op"], r["bwd_per_node"]) == (1200, 900)
    assert (r["fwd_fixed"], r["bwd_fixed"]) == (5000, 800)


@pytest.mark.parametrize("counts, why", [
    ({300: {"fwd": 1, "bwd": 1}}, "exactly two chain lengths"),
    ({300: {"fwd": 500, "bwd": 9}, 600: {"fwd": 400, "bwd": 10}}, "fwd: 600 ops took 400"),
])
def test_per_op_refuses_counts_that_do_not_grow_with_the_chain(counts, why):
    with pytest.raises(ValueError, match=why):
        instructions.per_op(counts)


def test_table_gives_the_ratio_to_torch():
    ours = {"fwd_per_op": 30000.0, "bwd_per_node": 20000.0, "fwd_fixed": 1.0, "bwd_fixed": 2.0}
    torch = {"fwd_per_op": 20000.0, "bwd_per_node": 25000.0, "fwd_fixed": 1.0, "bwd_fixed": 2.0}
    text = instructions.table({"autogradlab": ours, "torch": torch})
    assert "30,000" in text and "1.50x" in text and "0.80x" in text
    alone = instructions.table({"autogradlab": ours, "torch": "skipped: not importable by python"})
    assert "ratio" not in alone and "skipped" in alone
