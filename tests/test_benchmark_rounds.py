"""benchmarks/run.py's interleaved rounds and report.py's goals table, on synthetic worker results.

Pure functions only (no workers, no timing): the order of the rounds, pooling the rounds'
summaries per framework, and judging each goal on the median of its per-round ratios.
"""
import os
import sys

import pytest

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks")
sys.path.insert(0, BENCH)

import report  # noqa: E402
import run  # noqa: E402
import spread  # noqa: E402


def metric(median, n=10, wall=None):
    """A worker's summary of one timed metric (CPU time primary; wall time defaults to the same)."""
    wall = median if wall is None else wall
    return {"median": median, "n": n, "cpu": {"median": median, "n": n}, "wall": {"median": wall, "n": n}}


def worker(fw, workloads, load=(1.0, 1.1), checksum=1.0):
    return {"framework": fw, "label": fw, "available": True, "version": "1", "dtype": "float32",
            "environment": {"loadavg_start": load[0], "loadavg_end": load[1]},
            "workloads": {wid: {"status": "ok", "metrics": ms, "wall_s": 1.0,
                                "check": {"checksum": checksum, "scale": 1.0, "shapes": [[1]]}}
                          for wid, ms in workloads.items()}}


def w1(fwd, bwd=None, wall=None):
    return {"W1": {"fwd_us_per_node": metric(fwd, wall=wall), "bwd_us_per_node": metric(fwd if bwd is None else bwd)}}


def bundle_of(rounds, once=None):
    rds = [{"round": i + 1, "order": list(fws), "frameworks": fws} for i, fws in enumerate(rounds)]
    return {"meta": {"clock": "cpu", "tolerance": 1e-3, "date": "d", "git": {"commit": "abc"}},
            "rounds": rds, "once": once or {}, "frameworks": run.pool(rds, once)}


# ------------------------------------------------------------------------------ round order
@pytest.mark.parametrize("k", [1, 2, 3, 6])
def test_every_round_runs_every_framework_once_and_each_goes_first_in_turn(k):
    fws = [f"f{i}" for i in range(k)]
    orders = [run.round_order(fws, r) for r in range(2 * k)]
    assert all(sorted(o) == fws for o in orders)
    assert [o[0] for o in orders[:k]] == fws          # each framework first exactly once in k rounds


def test_neighbours_swap_order_between_even_and_odd_rounds():
    fws = ["torch", "autogradlab", "numpy", "autograd", "mygrad", "micrograd"]
    before = [o.index("torch") < o.index("autogradlab") for o in (run.round_order(fws, r) for r in range(5))]
    assert True in before and False in before          # torch is not always measured first of the pair
    assert run.round_order([], 3) == []


# ---------------------------------------------------------------------------------- pooling
def test_a_pooled_metric_is_the_median_of_the_rounds_medians_on_each_clock():
    m = run.pool_metric([metric(4.0, 10, wall=5.0), metric(9.0, 12, wall=20.0), metric(5.0, 8, wall=6.0)])
    assert m["median"] == 5.0 and (m["min"], m["max"]) == (4.0, 9.0) and m["rounds"] == [4.0, 9.0, 5.0]
    assert m["n"] == 30                                  # repetitions behind it, all rounds
    assert m["cpu"]["median"] == 5.0 and m["wall"]["median"] == 6.0 and m["wall"]["max"] == 20.0
    assert m["min"] <= m["q1"] <= m["median"] <= m["q3"] <= m["max"]


def test_pooling_keeps_the_first_failing_round_and_adds_the_once_workloads():
    good, bad = worker("torch", w1(4.0)), worker("torch", w1(5.0))
    bad["workloads"]["W1"] = {"status": "error", "reason": "ValueError: boom"}
    once = worker("torch", {"W4": {"free_graph_mb": {"median": 634.0, "n": 3}}})
    pooled = run.pool_framework([good, bad, good], once)
    assert pooled["workloads"]["W1"]["status"] == "error"
    assert pooled["workloads"]["W1"]["reason"] == "round 2: ValueError: boom"
    assert pooled["workloads"]["W4"]["metrics"]["free_graph_mb"]["median"] == 634.0
    ok = run.pool_framework([worker("torch", w1(4.0), load=(1.0, 2.0)), worker("torch", w1(6.0), load=(3.0, 4.0))])
    assert ok["workloads"]["W1"]["metrics"]["fwd_us_per_node"]["median"] == 5.0
    assert (ok["environment"]["loadavg_start"], ok["environment"]["loadavg_end"]) == (1.0, 4.0)
    missing = {"framework": "mygrad", "available": False, "reason": "No module named 'mygrad'"}
    assert run.pool_framework([missing]) == missing


# ----------------------------------------------------------------------------------- goals
def three_rounds():
    # per-round ratios 1.5, 0.9, 1.25; the ratio of the pooled medians would be 6/4 = 1.5
    return bundle_of([{"torch": worker("torch", w1(4.0)), "autogradlab": worker("autogradlab", w1(6.0, wall=6.0))},
                      {"torch": worker("torch", w1(8.0)), "autogradlab": worker("autogradlab", w1(7.2, wall=4.0))},
                      {"torch": worker("torch", w1(4.0)), "autogradlab": worker("autogradlab", w1(5.0, wall=5.0))}])


def test_a_goal_is_judged_on_the_median_of_per_round_ratios_with_their_range():
    b = three_rounds()
    g = {row["goal"]: row for row in report.goals(b)}["W1 forward ≤ 1.0× torch"]
    assert g["samples"] == pytest.approx([1.5, 0.9, 1.25])
    assert (g["median"], g["lo"], g["hi"]) == pytest.approx((1.25, 0.9, 1.5))
    assert g["status"] == "**missed** (rounds disagree)"
    assert g["wall"] == pytest.approx((1.25, 0.5, 1.5))   # wall samples 6/4, 4/8, 5/4
    assert report.median_ratio(b, "autogradlab", "torch", "W1", "fwd_us_per_node") == pytest.approx(1.25)
    # the results table's ratio is the same median of per-round ratios, not 6.0 / 4.0
    assert report._cell(b, report.compute_checks(b, 1e-3), "autogradlab", "W1", "fwd_us_per_node", {}) \
        == "6.00 (1.25×) ok"


@pytest.mark.parametrize("values, limit, strict, status", [
    ([0.8, 0.9, 0.95], 1.0, False, "met"),
    ([0.8, 1.1, 0.95], 1.0, False, "met (rounds disagree)"),
    ([1.2, 1.1, 1.3], 1.0, False, "**missed**"),
    ([1.0, 1.0, 1.0], 1.0, False, "met"),
    ([5.0, 5.0, 4.0], 5.0, True, "**missed** (rounds disagree)"),   # W7: "under 5 ms"
    ([None, 0.9, None], 1.0, False, "met"),
    ([None, None], 1.0, False, "n/a (not run)"),
])
def test_judge(values, limit, strict, status):
    assert report.judge(values, limit, strict)[3] == status


def test_one_round_with_a_wrong_gradient_makes_the_goal_missed():
    b = bundle_of([{"torch": worker("torch", w1(4.0)), "autogradlab": worker("autogradlab", w1(2.0))},
                   {"torch": worker("torch", w1(4.0)), "autogradlab": worker("autogradlab", w1(2.0), checksum=1.5)}])
    assert report.compute_checks(b, 1e-3)["W1"]["autogradlab"]["ok"] is False
    g = {row["goal"]: row for row in report.goals(b)}["W1 forward ≤ 1.0× torch"]
    assert g["median"] == pytest.approx(0.5) and g["status"] == "**missed** (gradient MISMATCH)"


def test_memory_is_judged_once_and_tracing_and_player_data_per_round():
    def ag(ratio_w1, data_ms):
        e = worker("autogradlab", {"W6": {
            **{f"w1_step_us_per_node_{k}": metric(v) for k, v in (("traced", 30.0), ("untraced", 10.0))},
            **{f"w2_step_ms_{k}": metric(v) for k, v in (("traced", 3.0), ("untraced", 2.9))},
            "w1_ratio": {"median": ratio_w1, "n": 10}, "w2_ratio": {"median": 1.03, "n": 10}},
            "W7": {"player_data_ms": metric(data_ms)}})
        e["workloads"]["W6"]["check"] = e["workloads"]["W7"]["check"] = None
        return e
    once = {"torch": worker("torch", {"W4": {"free_graph_mb": {"median": 634.0, "n": 3}}}),
            "autogradlab": worker("autogradlab", {"W4": {"free_graph_mb": {"median": 650.0, "n": 3}}})}
    b = bundle_of([{"autogradlab": ag(2.0, 4.0)}, {"autogradlab": ag(1.4, 6.0)}, {"autogradlab": ag(1.45, 4.5)}], once)
    rows = {row["goal"]: row for row in report.goals(b)}
    assert rows["W4 graph held after forward ≤ torch"]["status"] == "**missed** (16.0 MiB over)"
    assert rows["W4 graph held after forward ≤ torch"]["samples"] == []
    assert rows["W6 W1 traced ≤ 1.5× untraced"]["median"] == 1.45
    assert rows["W6 W1 traced ≤ 1.5× untraced"]["status"] == "met (rounds disagree)"
    assert rows["W6 W2 traced ≤ 1.1× untraced"]["status"] == "met"
    w7 = rows["W7 player data for a ?-node graph < 5 ms"]
    assert (w7["median"], w7["lo"], w7["hi"], w7["status"]) == (4.5, 4.0, 6.0, "met (rounds disagree)")


def test_render_shows_the_goals_the_rounds_and_each_rounds_ratio():
    b = three_rounds()
    b["meta"].update(budget_scale=0.4)
    for rd, load in zip(b["rounds"], (1.0, 2.0, 3.0)):
        rd.update(start="t", loadavg_start=load, loadavg_end=load + 0.5, wall_s=60.0)
    md = report.render(b)
    assert "**3 interleaved rounds**" in md and "| 2 | torch, autogradlab | t | 2.0 → 2.5 | 60 |" in md
    assert "| W1 forward ≤ 1.0× torch | 6.00 µs/op | 4.00 µs/op (torch) | 1.25× | 0.90×–1.50× |" in md
    assert "| W1 forward ≤ 1.0× torch | 1.50× | 0.90× | 1.25× | 1.25× | 0.90×–1.50× | **missed** (rounds disagree) |" \
        in md.split("### The goals round by round")[1]


def test_spread_reads_runs_made_in_rounds_as_their_median_ratio():
    runs = [three_rounds(), three_rounds()]
    rows = {r[0]: r for r in spread.spread(runs)}
    text, ratios, mid, lo, hi, status = rows["W1 forward ≤ 1.0× torch"]
    assert ratios == pytest.approx([1.25, 1.25]) and status == "**missed**"


def test_round_budgets_are_scaled_and_the_once_pass_capped():
    import worker
    import workloads
    full = workloads.BUDGETS["full"]
    short = worker.scaled(full, 0.4)
    assert short["W1"].seconds == pytest.approx(0.4 * full["W1"].seconds)
    assert (short["W1"].min_reps, short["W1"].max_reps, short["W1"].warmup) == \
        (full["W1"].min_reps, full["W1"].max_reps, full["W1"].warmup)
    once = worker.scaled(full, 1.0, reps=1)
    assert (once["W4"].min_reps, once["W4"].max_reps) == (1, 1) and once["W1"].seconds == full["W1"].seconds
    assert worker.scaled(full, 1.0) is full
    with pytest.raises(ValueError, match="budget scale must be > 0"):
        worker.scaled(full, 0)


def test_the_once_pass_warms_each_workload_up_at_the_quick_sizes_first(monkeypatch):
    """W4 measured once (one repetition) in a fresh worker: a discarded quick-size run goes first, so
    a framework's one-time allocations are not in the single repetition."""
    import worker
    import workloads
    calls = []

    def fake(ad, sz, budget):
        calls.append((sz["w1_ops"], budget.min_reps, budget.max_reps))
        return {"metrics": {"x_ms": workloads.summarize([1.0])}, "check": None}

    monkeypatch.setitem(workloads.WORKLOADS, "W1", ("chain", fake, None))
    result = worker.run("autogradlab", ["W1"], reps=1, warm_up=True)
    assert calls == [(workloads.SIZES["quick"]["w1_ops"], 1, 1), (workloads.SIZES["full"]["w1_ops"], 1, 1)]
    assert result["workloads"]["W1"]["status"] == "ok" and result["warm_up"] is True
    calls.clear()
    worker.run("autogradlab", ["W1"], reps=1)
    assert calls == [(workloads.SIZES["full"]["w1_ops"], 1, 1)]
