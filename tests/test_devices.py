"""Devices: the op, engine and events suites run on every available device.

On CPU they run directly (and a second time on the strict backend, see dev.sh).
On a machine with an NVIDIA GPU and CuPy, this file reruns them with
AUTOGRADLAB_DEFAULT_DEVICE=cuda; elsewhere it is skipped and says why.
"""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import autogradlab as ag
from autogradlab import backend

SUITES = ["test_foundation.py", "test_ops_gradcheck.py", "test_ops_torch.py", "test_ops_errors.py",
          "test_engine_contract.py", "test_engine_vs_torch.py", "test_events.py"]


def cuda_unavailable_reason():
    try:
        backend.xp_for("cuda:0")
    except RuntimeError as exc:
        return str(exc)
    return None


def test_default_device_is_used_by_factories():
    previous = ag.get_default_device()
    try:
        ag.set_default_device("cpu")
        assert ag.zeros(2).device == "cpu" and ag.tensor([1.0]).device == "cpu"
        assert ag.randn(3).device == "cpu" and ag.arange(3).device == "cpu"
        with pytest.raises(ValueError, match="unknown device"):
            ag.set_default_device("gpu0")
    finally:
        ag.set_default_device(previous)


def test_seed_on_the_wrong_device_names_both_devices():
    x = ag.tensor([1.0, 2.0], requires_grad=True, device="cpu")
    seed = ag.tensor([1.0, 1.0], device="cpu")
    seed.device = "cuda:0"  # a stand-in: only the device label matters for the check
    with pytest.raises(RuntimeError, match=r"grad_tensors\[0\] is on device cuda:0 but tensors\[0\] is on "
                                           r"device cpu"):
        ag.autograd.backward([x * 2], [seed])
    assert x.grad is None


def test_mixing_devices_in_an_op_names_where_each_tensor_is():
    a = ag.tensor([1.0, 2.0], device="cpu")
    b = ag.tensor([1.0, 2.0], device="cpu")
    b.device = "cuda:0"
    with pytest.raises(RuntimeError, match="self on cpu, other on cuda:0"):
        a * b


@pytest.mark.skipif(cuda_unavailable_reason() is not None,
                    reason=f"no CUDA device: {cuda_unavailable_reason()}")
def test_op_engine_and_events_suites_pass_on_cuda():  # pragma: no cover - needs a GPU
    if ag.get_default_device() != "cpu":
        pytest.skip("this process runs the suites on the default device already (AUTOGRADLAB_DEFAULT_DEVICE)")
    here = Path(__file__).parent
    suites = [str(here / s) for s in SUITES if (here / s).exists()]
    env = dict(os.environ, AUTOGRADLAB_DEFAULT_DEVICE="cuda")
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *suites],
                            env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


@pytest.mark.skipif(cuda_unavailable_reason() is not None,
                    reason=f"no CUDA device: {cuda_unavailable_reason()}")
def test_gradients_live_on_the_tensors_device_and_events_are_host_copies():  # pragma: no cover
    x = ag.tensor([1.0, 2.0], requires_grad=True, device="cuda")
    with ag.trace() as tape:
        (x * x).sum().backward()
    assert x.grad.device == "cuda:0"
    np.testing.assert_allclose(x.grad.cpu().numpy(), [2.0, 4.0])
    assert all(isinstance(v, float) for e in tape.events if hasattr(e, "value") for v in e.value.data)


def test_missing_cupy_error_names_both_gpu_extras(monkeypatch):
    """Without CuPy, asking for a GPU says which extra to install for a CUDA 12 or a CUDA 13 driver."""
    monkeypatch.setattr(backend, "_cupy", None)
    monkeypatch.delenv("AUTOGRADLAB_CUDA_XP", raising=False)   # (no stand-in either: fake_cuda.py)
    monkeypatch.setitem(sys.modules, "cupy", None)   # `import cupy` now raises ImportError
    with pytest.raises(backend.DeviceError, match=r"autogradlab\[gpu\]'.*cupy-cuda12x.*autogradlab\[gpu-cuda13\]'"):
        ag.zeros(2, device="cuda")


# -- the stand-in for a GPU (tests/fake_cuda.py): dev.sh runs the device and lab suites on it --------------

FAKE_CUDA_ENV = {"AUTOGRADLAB_CUDA_XP": "fake_cuda",
                 "PYTHONPATH": os.pathsep.join(p for p in (str(Path(__file__).parent), os.environ.get("PYTHONPATH", ""))
                                               if p)}


def _run_with_the_fake_gpu(code, **env):
    env = {k: v for k, v in os.environ.items() if k not in ("AUTOGRADLAB_STRICT_BACKEND", "AUTOGRADLAB_CPU_XP",
                                                            "AUTOGRADLAB_DEFAULT_DEVICE")} | FAKE_CUDA_ENV | env
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)


def test_the_fake_gpu_keeps_device_and_host_arrays_apart_as_cupy_does():
    code = """
import numpy as np
import autogradlab as ag
from fake_cuda import FakeCudaArray
x = ag.tensor([1.0, 2.0], device="cuda", requires_grad=True)
assert x.device == "cuda:0" and isinstance(x._data, FakeCudaArray)
(x * x).sum().backward()
assert x.grad.device == "cuda:0" and x.grad.cpu().numpy().tolist() == [2.0, 4.0]
for attempt in (lambda: np.asarray(x._data), lambda: x._data + np.ones(2), lambda: np.exp(x._data)):
    try:
        attempt()
    except TypeError:
        pass
    else:
        raise SystemExit("a host/device mix was allowed")
try:
    x.detach() + ag.tensor([1.0, 1.0], device="cpu")
except RuntimeError as exc:
    assert "cuda:0" in str(exc) and "cpu" in str(exc)
else:
    raise SystemExit("an op mixing devices ran")
y = ag.nn.Linear(2, 3)(ag.ones(4, 2))            # (the default device: cuda, from the environment)
assert y.device == "cuda:0"
print("ok")
"""
    done = _run_with_the_fake_gpu(code, AUTOGRADLAB_DEFAULT_DEVICE="cuda")
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stdout + done.stderr


def test_a_stand_in_that_cannot_be_imported_is_named_in_the_error():
    code = """
import autogradlab as ag
try:
    ag.zeros(2, device="cuda")
except ag.backend.DeviceError as exc:
    print(exc)
"""
    done = _run_with_the_fake_gpu(code, AUTOGRADLAB_CUDA_XP="no_such_module")
    assert done.returncode == 0, done.stderr
    assert "AUTOGRADLAB_CUDA_XP='no_such_module'" in done.stdout and "fake_cuda" in done.stdout
