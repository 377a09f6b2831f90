"""benchmarks/paired.py: the ABBA order and the per-pair ratios (fake clocks), and one tiny real run
against torch (gradients compared first; nothing about speed is asserted)."""
import os
import sys

import pytest

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks")
sys.path.insert(0, BENCH)

import paired  # noqa: E402
import workloads as W  # noqa: E402

from conftest import import_torch  # noqa: E402


def _fake(name, seconds, log):
    def once():
        log.append(name)
        return {"fwd": W.Reading(seconds, 2 * seconds) - W.Reading(0.0, 0.0)}
    return once


def test_pairs_alternate_abba_and_keep_one_ratio_per_pair():
    log = []
    ratios = paired.pairs("W", _fake("ours", 3.0, log), _fake("theirs", 2.0, log), 4)
    assert log[6:] == ["theirs", "ours", "ours", "theirs", "theirs", "ours", "ours", "theirs"]   # after 3 warm-ups each
    assert ratios["fwd"]["cpu"] == [1.5] * 4 and ratios["fwd"]["wall"] == [1.5] * 4


def test_a_real_run_prints_each_goal_of_the_workload(capsys):
    import_torch()   # (without torch: a skip here, a failure in CI)
    paired.main(["--workloads", "W3", "--pairs", "2"])
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| W3 ")]
    assert [r.split("|")[1].strip() for r in rows] == ["W3 fwd <= 1.5x torch", "W3 bwd <= 1.2x torch"]
    assert "MISMATCH" not in out and all(r.rstrip(" |").endswith(("met", "missed")) for r in rows)
