"""The strict backend: CuPy-like arrays that refuse implicit conversion to NumPy.

CI runs the op, engine and events suites a second time with
AUTOGRADLAB_STRICT_BACKEND=1 (see dev.sh; tests/conftest.py installs tests/strict_backend.py
through backend.use_cpu_array_module); these tests check the backend itself and the hooks.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import STRICT_ENV
from strict_backend import StrictArray, xp


def test_strict_arrays_refuse_implicit_numpy_conversion():
    a = xp.asarray([1.0, 2.0])
    with pytest.raises(TypeError, match="Implicit conversion"):
        np.asarray(a)
    with pytest.raises(TypeError, match="array module"):
        np.exp(a)
    np.testing.assert_array_equal(a.get(), [1.0, 2.0])


def test_strict_module_mirrors_numpy_and_returns_strict_arrays():
    a = xp.asarray([[1.0, -2.0]])
    out = xp.exp(a) + a * 2
    assert isinstance(out, StrictArray) and out.shape == (1, 2)
    assert isinstance(a.sum(), StrictArray) and a.sum().ndim == 0   # 0-d arrays, as CuPy gives
    z = xp.zeros((3,))
    xp.add.at(z, xp.asarray([0, 0, 2]), xp.asarray([1.0, 1.0, 5.0]))
    np.testing.assert_array_equal(z.get(), [2.0, 0.0, 5.0])


def _run_strict(code):
    env = dict(os.environ, **STRICT_ENV)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)


def test_env_var_puts_cpu_tensors_on_strict_arrays_and_the_engine_still_works():
    code = """
import numpy as np, autogradlab as ag
from strict_backend import StrictArray
x = ag.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
y = (x @ x.T).tanh().sum() + x[[0, 0]].sum() + ag.log_softmax(x, 1).mean()
y.backward()
assert isinstance(x._data, StrictArray) and isinstance(x.grad._data, StrictArray)
print(np.round(x.grad.numpy(), 4).tolist())
"""
    strict = _run_strict(code)
    assert strict.returncode == 0, strict.stderr
    plain = subprocess.run([sys.executable, "-c", code.replace("assert isinstance(x._data", "assert not isinstance(x._data").replace(
        " and isinstance(x.grad._data, StrictArray)", "")],
                           capture_output=True, text=True,
                           env={**{k: v for k, v in os.environ.items()
                                   if k not in ("AUTOGRADLAB_STRICT_BACKEND", "AUTOGRADLAB_CPU_XP")},
                                "PYTHONPATH": STRICT_ENV["PYTHONPATH"]})
    assert plain.returncode == 0, plain.stderr
    assert strict.stdout == plain.stdout


def test_an_op_that_calls_numpy_directly_is_caught():
    code = """
import numpy, autogradlab as ag
from autogradlab.ops.registry import defop, apply
BAD = defop("bad_exp", ("self",), forward=lambda xp, a: numpy.exp(a), vjp=lambda g, ctx: (g,))
apply(BAD, (ag.tensor([1.0]),))
"""
    result = _run_strict(code)
    assert result.returncode != 0 and "instead of numpy" in result.stderr


def test_the_shipped_package_holds_no_strict_backend():
    import autogradlab
    from pathlib import Path
    assert not (Path(autogradlab.__file__).parent / "strict_backend.py").exists()


def test_cpu_xp_naming_a_missing_module_says_how_to_fix_it():
    env = dict(os.environ, AUTOGRADLAB_CPU_XP="no_such_array_module")
    result = subprocess.run([sys.executable, "-c", "import autogradlab"], capture_output=True, text=True, env=env)
    assert result.returncode != 0
    assert "AUTOGRADLAB_CPU_XP='no_such_array_module'" in result.stderr and "PYTHONPATH" in result.stderr


def test_use_cpu_array_module_refuses_a_module_without_an_array_type():
    from autogradlab import backend
    with pytest.raises(TypeError, match="ndarray attribute"):
        backend.use_cpu_array_module(object(), lambda a: a)


def test_the_strict_pass_puts_this_process_on_strict_arrays_and_only_then():
    import autogradlab as ag
    strict_pass = os.environ.get("AUTOGRADLAB_STRICT_BACKEND") == "1"   # conftest.py installed it
    assert isinstance(ag.tensor([1.0])._data, StrictArray) == strict_pass
    y = ag.tensor([[1.0, 2.0]]).T.exp()     # an op: ops.registry saw the change too
    assert isinstance(y._data, StrictArray) == strict_pass
