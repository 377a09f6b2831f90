"""Smoke test of the benchmark harness (benchmarks/): quick mode, no peer venv needed, no timing assertions.

The autogradlab worker runs W1-W3 in-process at the quick sizes; its gradient checksums must
agree with the hand-written NumPy forward+backward of the same workloads (the "numpy floor").
One tiny end-to-end run of benchmarks/run.py checks the subprocess/JSON/markdown plumbing.
"""
import json
import math
import os
import subprocess
import sys

import pytest

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks")
sys.path.insert(0, BENCH)

import report  # noqa: E402
import worker  # noqa: E402
import workloads  # noqa: E402

TIMED = {"W1": ("fwd_us_per_node", "bwd_us_per_node"), "W2": ("step_ms", "fwd_ms", "bwd_ms"),
         "W3": ("fwd_ms", "bwd_ms")}


@pytest.fixture(scope="module")
def quick_results():
    ours = worker.run("autogradlab", ["W1", "W2", "W3"], quick=True)
    ref = worker.run("numpy", ["W1", "W2", "W3"], quick=True)
    return ours, ref


@pytest.mark.parametrize("wid", ["W1", "W2", "W3"])
def test_autogradlab_worker_produces_numbers(quick_results, wid):
    ours, _ = quick_results
    assert ours["available"], ours.get("reason")
    e = ours["workloads"][wid]
    assert e["status"] == "ok", e.get("traceback") or e.get("reason")
    for key in TIMED[wid]:
        m = e["metrics"][key]
        assert m["n"] >= 3
        assert math.isfinite(m["median"]) and m["median"] > 0
        assert m["min"] <= m["q1"] <= m["median"] <= m["q3"] <= m["max"]


@pytest.mark.parametrize("wid", ["W1", "W2", "W3"])
def test_autogradlab_gradients_match_numpy_reference(quick_results, wid):
    ours, ref = quick_results
    mine, theirs = ours["workloads"][wid]["check"], ref["workloads"][wid]["check"]
    assert ref["workloads"][wid]["status"] == "ok"
    assert mine["shapes"] == theirs["shapes"]
    assert math.isclose(mine["output"], theirs["output"], rel_tol=1e-4, abs_tol=1e-6)
    ok, err = workloads.compare(mine, theirs, 1e-3)
    assert ok, f"{wid}: checksum {mine['checksum']} vs NumPy {theirs['checksum']} (rel err {err:.2e})"


def test_checksum_catches_a_wrong_gradient():
    grads = [[1.0, 2.0, 3.0], [0.5]]
    good = workloads.checksum(grads)
    assert workloads.compare(workloads.checksum([[1.0, 2.0, 3.0], [0.5000001]]), good, 1e-3)[0]
    assert not workloads.compare(workloads.checksum([[1.0, 2.0, 3.1], [0.5]]), good, 1e-3)[0]
    assert not workloads.compare(workloads.checksum([[1.0, 2.0, 3.0]]), good, 1e-3)[0]


def test_report_marks_mismatch_and_targets(quick_results):
    ours, ref = quick_results
    bad = json.loads(json.dumps(ours))
    bad["framework"] = bad["label"] = "broken"
    bad["workloads"]["W1"]["check"]["checksum"] *= 1.5
    bundle = {"meta": {"mode": "quick", "tolerance": 1e-3},
              "frameworks": {"numpy": ref, "autogradlab": ours, "broken": bad}}
    checks = report.compute_checks(bundle, 1e-3)
    assert checks["W1"]["autogradlab"]["ok"] and checks["W1"]["autogradlab"]["ref"] == "numpy"
    assert checks["W1"]["broken"]["ok"] is False and checks["W2"]["broken"]["ok"]
    md = report.render(bundle)
    assert "MISMATCH" in md and "## Goals (issue 16)" in md
    assert "W2 step ≤ 1.1× numpy floor" in md


def test_runner_end_to_end_quick(tmp_path):
    """run.py -> worker subprocesses -> bundle JSON -> markdown; peers that are absent are skipped."""
    out, md = tmp_path / "bundle.json", tmp_path / "RESULTS.md"
    proc = subprocess.run(
        [sys.executable, os.path.join(BENCH, "run.py"), "--quick", "--frameworks", "autogradlab,numpy",
         "--workloads", "W1", "--json-out", str(out), "--raw-dir", str(tmp_path), "--markdown", str(md)],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    bundle = json.loads(out.read_text())
    assert bundle["meta"]["threads"] == 1 and bundle["meta"]["machine"]["cores"]
    assert bundle["frameworks"]["autogradlab"]["workloads"]["W1"]["status"] == "ok"
    assert bundle["checks"]["W1"]["autogradlab"]["ok"]
    assert bundle["frameworks"]["autogradlab"]["environment"]["threads"]["OMP_NUM_THREADS"] == "1"
    # quick mode: two interleaved rounds, the second in the other order; figures pooled over both
    assert [rd["order"] for rd in bundle["rounds"]] == [["autogradlab", "numpy"], ["numpy", "autogradlab"]]
    pooled = bundle["frameworks"]["autogradlab"]["workloads"]["W1"]["metrics"]["fwd_us_per_node"]
    assert len(pooled["rounds"]) == 2 and pooled["n"] == 6
    text = md.read_text()
    assert "| W1 chain: forward, µs/op |" in text and "Quick mode" in text


@pytest.mark.parametrize("wid", ["W1", "W2", "W3"])
def test_every_timed_metric_has_cpu_and_wall_time_from_the_same_repetitions(quick_results, wid):
    ours, _ = quick_results
    for key in TIMED[wid]:
        m = ours["workloads"][wid]["metrics"][key]
        assert m["cpu"]["n"] == m["wall"]["n"] == m["n"]
        assert m["median"] == m["cpu"]["median"]            # CPU time is the primary clock by default
        assert m["wall"]["median"] > 0 and math.isfinite(m["wall"]["median"])


def test_a_span_keeps_both_clocks_and_the_primary_is_its_value():
    start = workloads.Reading(1.0, 10.0)
    span = workloads.Reading(1.5, 12.0) - start
    assert (span.cpu, span.wall, float(span)) == (0.5, 2.0, 0.5)
    workloads.set_clock("wall")
    try:
        assert float(workloads.Reading(1.5, 12.0) - start) == 2.0
        s = workloads.phase([{"t": workloads.Reading(2.0, 13.0) - start}], "t", 1e3)
        assert (s["median"], s["cpu"]["median"], s["wall"]["median"]) == (3000.0, 1000.0, 3000.0)
    finally:
        workloads.set_clock("cpu")


def test_report_shows_the_other_clock_in_a_second_table(quick_results):
    ours, ref = quick_results
    bundle = {"meta": {"mode": "quick", "tolerance": 1e-3, "clock": "cpu"},
              "frameworks": {"numpy": ref, "autogradlab": ours}}
    md = report.render(bundle)
    second = md.split("### The same repetitions by wall time")[1].split("###")[0]
    wall_w1 = ours["workloads"]["W1"]["metrics"]["bwd_us_per_node"]["wall"]["median"]
    assert f"| W1 chain: backward, µs/op | {report.fmt(wall_w1)}" in second.replace(" (ref)", "")
    assert "| by wall time: median (range) |" in md
    assert report.median(bundle, "autogradlab", "W1", "bwd_us_per_node", "wall") == wall_w1


def test_backward_breakdown_splits_a_backward_into_parts():
    out = subprocess.run([sys.executable, os.path.join(BENCH, "backward_breakdown.py"), "--ops", "30", "--reps", "2"],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    parts = {line.split(" us  ", 1)[1]: float(line.split(" us  ", 1)[0]) for line in out.splitlines()[1:]}
    assert {"backward()", "plan", "checks", "VJPs (Node.apply)", "freeing saved tensors"} <= set(parts)
    assert all(math.isfinite(v) for v in parts.values()) and parts["backward()"] > 0


def test_trace_floor_times_every_variant_and_the_patched_tapes_still_run():
    """Each variant runs its own process (a patch that broke the engine would fail the worker) and gets a row."""
    out = subprocess.run([sys.executable, os.path.join(BENCH, "trace_floor.py"), "--ops", "30", "--rounds", "1",
                          "--reps", "1"], capture_output=True, text=True, check=True, timeout=300).stdout
    rows = [line for line in out.splitlines() if line.startswith("| ") and "variant" not in line]
    assert [r.split("|")[1].strip() for r in rows] == ["untraced", "traced", "fwd-append", "bwd-append", "floor"]
    assert rows[0].rstrip().endswith("| 1.00x |")
    for row in rows:
        assert float(row.split("|")[4]) > 0


def test_spread_judges_a_goal_on_the_median_of_runs():
    """spread.py: each run's ratio, their median, and 'runs disagree' when one run alone would flip it."""
    import spread

    def bundle(torch_us, ours_us):
        def fw(v):
            return {"available": True, "workloads": {"W1": {"status": "ok", "metrics": {
                "fwd_us_per_node": {"median": v}}}}}
        return {"meta": {"date": "d", "git": {"commit": "abc"}, "loadavg_start": 0.5},
                "frameworks": {"torch": fw(torch_us), "autogradlab": fw(ours_us)}}

    runs = [bundle(4.0, 6.0), bundle(5.0, 4.5), bundle(4.0, 5.0)]   # ratios 1.5, 0.9, 1.25
    rows = {r[0]: r for r in spread.spread(runs)}
    text, ratios, mid, lo, hi, status = rows["W1 forward ≤ 1.0× torch"]
    assert ratios == [1.5, 0.9, 1.25] and mid == 1.25 and (lo, hi) == (0.9, 1.5)
    assert status == "**missed** (runs disagree)"
    assert "W3 forward ≤ 1.5× torch" not in rows   # not run: no row
    assert "| W1 forward ≤ 1.0× torch | 1.50× | 0.90× | 1.25× | 1.25× |" in spread.markdown(runs)
