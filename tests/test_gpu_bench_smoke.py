"""The GPU benchmark script runs everywhere: measured columns where a device exists, a reason elsewhere."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

import autogradlab as ag


@pytest.fixture(scope="module")
def gpu_bench():
    path = Path(__file__).parents[1] / "benchmarks" / "gpu.py"
    spec = importlib.util.spec_from_file_location("gpu_bench", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_gpu_benchmark_quick_mode_reports_every_column(gpu_bench, tmp_path):
    out_file = tmp_path / "gpu.md"
    assert gpu_bench.main(["--quick", "--markdown", str(out_file), "--json", str(tmp_path / "gpu.json")]) == 0
    table = out_file.read_text()
    rows = [line for line in table.splitlines() if line.startswith("| ") and not line.startswith("| workload")]
    assert [r.split("|")[1].split()[0] for r in rows] == ["G1", "G2", "G3", "M1", "S1"]
    for line in rows:
        cells = [c.strip() for c in line.strip("|").split("|")[1:]]
        assert len(cells) == len(gpu_bench.COLUMNS)
        for cell in cells:                                   # every cell: a number or a reason
            assert cell.startswith("not measured: ") or float(cell) >= 0, line
    g1 = rows[0].strip("|").split("|")[1:]
    assert float(g1[0]) > 0 and float(g1[1]) > 0             # the NumPy columns are always measured


def test_hand_written_floor_takes_the_same_sgd_step_as_the_engine(gpu_bench):
    """The floor is only a fair baseline if it computes the same thing: compare one step's weights."""
    batch, sizes = 16, [5, 7, 6, 3]
    X, Y, Ws = gpu_bench.mlp_data(batch, sizes, seed=3)
    X, Y = X.astype(np.float64), Y.astype(np.float64)
    floor_ws = [w.astype(np.float64) for w in Ws]
    gpu_bench.floor_mlp_step(np, X, Y, floor_ws, batch)()
    params = [ag.tensor(w.astype(np.float64), requires_grad=True) for w in Ws]
    gpu_bench._mlp_step(ag, ag.tensor(X), ag.tensor(Y), params, batch)()
    for mine, engine in zip(floor_ws, params):
        np.testing.assert_allclose(mine, engine.detach().numpy(), rtol=1e-12, atol=1e-12)


def test_gpu_only_leaves_the_numpy_columns_out_with_the_reason(gpu_bench):
    rows = gpu_bench.run(quick=True, gpu_only=True)
    for name, vals in rows[:3]:
        assert vals[gpu_bench.COLUMNS[0]] == "left out (--gpu-only)", name
    assert rows[0][1][gpu_bench.COLUMNS[1]] == "left out (--gpu-only)"
