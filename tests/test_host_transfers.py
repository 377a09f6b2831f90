"""A backward pass never copies device data to the host (a traced one neither: its events keep device
copies, made host Values only when the tape is read).

On a GPU every host copy (``.get()``, ``.item()``, ``float(a)``, ``bool(a)``...) is a transfer and a
synchronisation that stalls the queue of kernels, so one per node would make the CuPy backend slow.
The strict backend (``tests/strict_backend.py``, a test double) counts every such crossing; these
tests run a script under it in a subprocess (the backend is chosen at import) and read the counts.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = r'''
import json
import autogradlab as ag
from autogradlab import nn
from autogradlab.nn import functional as F
from strict_backend import HOST_TRANSFERS

ag.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 3))
x = ag.randn(5, 6)
y = ag.tensor([0, 1, 2, 1, 0])
w = ag.randn(3, requires_grad=True)

def forward():
    out = model(x)
    loss = F.cross_entropy(out, y)
    # a few more op families: broadcasting, reductions with dim, indexing, max with dim, where
    z = (out * w).softmax(1)[1:, :2].sum() + out.max(1).values.mean() + ag.where(out > 0, out, out * 0.1).std()
    return loss + z

def count(fn):
    HOST_TRANSFERS.clear()
    fn()
    return sum(HOST_TRANSFERS.values())

result = {}
loss = forward()
result["backward"] = count(lambda: loss.backward())
loss = forward()
result["grad_create_graph"] = count(lambda: ag.autograd.grad(loss, [w], create_graph=True))
loss = forward()
with ag.trace() as tape:
    result["traced_backward"] = count(lambda: loss.backward())
result["traced_events"] = len(tape)
result["reading_the_tape"] = count(lambda: tape.table())
print(json.dumps(result))
'''


def run_strict():
    env = dict(os.environ, AUTOGRADLAB_CPU_XP="strict_backend",
               PYTHONPATH=os.pathsep.join([str(ROOT / "tests"), str(ROOT)]))
    if env.get("AUTOGRADLAB_DEFAULT_DEVICE", "cpu").startswith("cuda") and not env.get("AUTOGRADLAB_CUDA_XP"):
        # on a real GPU the counter cannot see CuPy's copies: the script runs on the strict backend (the
        # code paths are the same), and benchmarks/gpu.py's S1 counts a real GPU's copies
        env["AUTOGRADLAB_DEFAULT_DEVICE"] = "cpu"
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_backward_makes_no_host_copies_traced_or_not_and_reading_the_tape_does():
    counts = run_strict()
    assert counts["backward"] == 0, counts
    assert counts["grad_create_graph"] == 0, counts
    # a traced pass keeps device copies of the values it will show; they reach the host (Values)
    # only when the tape is read, so tracing does not stall the device once per node
    assert counts["traced_events"] > 0 and counts["traced_backward"] == 0, counts
    # the counter is live: reading the tape turns the copies into host Values
    assert counts["reading_the_tape"] > 0, counts
