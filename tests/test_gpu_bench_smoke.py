"""The GPU benchmark script runs everywhere: measured columns where a device exists, a reason elsewhere."""
import importlib.util
from pathlib import Path


def test_gpu_benchmark_quick_mode_reports_every_column(tmp_path, capsys):
    path = Path(__file__).parents[1] / "benchmarks" / "gpu.py"
    spec = importlib.util.spec_from_file_location("gpu_bench", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out_file = tmp_path / "gpu.md"
    assert mod.main(["--quick", "--markdown", str(out_file)]) == 0
    table = out_file.read_text()
    assert "| G1 MLP step" in table and "| G2 per-op overhead" in table
    for line in table.splitlines():
        if line.startswith("| G"):
            cells = [c.strip() for c in line.strip("|").split("|")[1:]]
            assert len(cells) == 3
            assert float(cells[0]) > 0                       # the NumPy column is always measured
            for cell in cells[1:]:                           # GPU columns: a number or a reason
                assert cell.startswith("not measured: ") or float(cell) > 0
