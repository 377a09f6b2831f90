"""benchmarks/deep_graph.py: its goals and table on synthetic results, and one real (small) worker run.
Nothing here times anything or asserts a speed."""
import os
import sys

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks")
sys.path.insert(0, BENCH)

import deep_graph  # noqa: E402


def runs(fwd, bwd, held_mib, n=3):
    return [{"fwd": fwd, "bwd": bwd, "held_mib": held_mib}] * n


def test_goals_are_judged_on_autogradlabs_medians():
    ok = {("autogradlab", 100_000): runs(0.5, 0.3, 44.0), ("autogradlab", 1_000_000): runs(5.0, 3.2, 440.0)}
    got = deep_graph.goals(ok, [100_000, 1_000_000])
    assert len(got) == 3 and all("met" in g and "missed" not in g for g in got)
    slow = dict(ok) | {("autogradlab", 1_000_000): runs(5.0, 10.5, 440.0)}
    assert "**missed**" in deep_graph.goals(slow, [100_000, 1_000_000])[1]
    growing = dict(ok) | {("autogradlab", 1_000_000): runs(5.0, 3.0, 520.0)}   # 18% more per node: not linear
    assert "**missed**" in deep_graph.goals(growing, [100_000, 1_000_000])[2]


def test_table_gives_ratios_to_torch_and_bytes_per_node():
    res = {("torch", 1000): runs(0.4, 0.2, 1.0), ("autogradlab", 1000): runs(0.2, 0.3, 0.5)}
    text = deep_graph.table(res, [1000], ["torch", "autogradlab"])
    row = [line for line in text.splitlines() if "| autogradlab |" in line][0]
    assert "0.20 (0.50x)" in row and "0.30 (1.50x)" in row and "0.5 MiB (0.50x)" in row
    assert row.endswith(f"| {round(0.5 * 2**20 / 1000)} |")
    assert "(" not in [line for line in text.splitlines() if "| torch |" in line][0]   # the reference: no ratio


def test_a_worker_runs_a_chain_in_a_fresh_process():
    got = deep_graph.measure("autogradlab", 3000)   # (the worker checks the gradient, 1, itself)
    assert set(got) == {"fwd", "bwd", "held_mib"} and got["fwd"] > 0 and got["bwd"] > 0


def test_write_section_replaces_its_own_section_or_appends_it(tmp_path):
    import report
    path = tmp_path / "RESULTS.md"
    path.write_text("# Results\n\nbody\n")
    report.write_section(path, "<!-- s:start -->\nfirst\n<!-- s:end -->\n", "<!-- s:start -->", "<!-- s:end -->")
    assert path.read_text() == "# Results\n\nbody\n\n<!-- s:start -->\nfirst\n<!-- s:end -->\n"
    path.write_text(path.read_text() + "\n<!-- t:start -->\nother\n<!-- t:end -->\n")
    report.write_section(path, "<!-- s:start -->\nsecond\n<!-- s:end -->", "<!-- s:start -->", "<!-- s:end -->")
    assert path.read_text() == ("# Results\n\nbody\n\n<!-- s:start -->\nsecond\n<!-- s:end -->\n\n"
                                "<!-- t:start -->\nother\n<!-- t:end -->\n")
