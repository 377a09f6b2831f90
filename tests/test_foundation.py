"""Foundation: import hygiene, tensor creation rules, properties and repr."""
import os
import subprocess
import sys

import numpy as np
import pytest

import autogradlab as ag


def test_import_does_not_pull_in_widgets_graphviz_or_matplotlib():
    code = ("import sys, autogradlab; bad = [m for m in ('ipywidgets', 'graphviz', 'matplotlib', 'cupy') "
            "if m in sys.modules]; print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


@pytest.mark.parametrize("data, dtype", [(1.5, "float32"), ([1.0, 2.0], "float32"), (3, "int64"),
                                         ([[1, 2]], "int64"), (True, "bool"),
                                         (np.zeros(2, dtype=np.float64), "float64"),
                                         (np.zeros(2, dtype=np.int32), "int32")])
def test_tensor_dtype_defaults_follow_pytorch(data, dtype):
    assert ag.tensor(data).dtype == np.dtype(dtype)


def test_requires_grad_on_integer_tensor_raises_naming_the_dtype():
    with pytest.raises(RuntimeError, match="floating point.*int64"):
        ag.tensor([1, 2], requires_grad=True)


def test_tensor_copies_its_data():
    a = np.ones(3, dtype=np.float32)
    t = ag.tensor(a)
    a[0] = 5
    assert t.tolist() == [1.0, 1.0, 1.0]


def test_properties():
    x = ag.tensor([[1.0, 2.0, 3.0]], requires_grad=True, name="x")
    assert x.shape == (1, 3) and x.ndim == 2 and x.numel() == 3 and x.device == ag.get_default_device()
    assert x.is_leaf and x.grad is None and x.grad_fn is None and x.name == "x"
    y = x * 2
    assert not y.is_leaf and y.grad_fn.name() == "MulBackward" and y.requires_grad
    assert y.detach().requires_grad is False and y.detach().is_leaf
    assert ag.tensor(2.5).item() == 2.5
    np.testing.assert_array_equal(x.detach().numpy(), [[1, 2, 3]])


def test_repr_shows_values_grad_fn_and_requires_grad():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    # (as torch: the device is shown unless it is the CPU, e.g. under AUTOGRADLAB_DEFAULT_DEVICE=cuda)
    on = "" if x.device == "cpu" else f", device='{x.device}'"
    assert repr(x) == f"tensor([1., 2.]{on}, requires_grad=True)"
    assert repr(x * 2) == f"tensor([2., 4.]{on}, grad_fn=<MulBackward>)"
    assert "dtype=float64" in repr(ag.tensor([1.0], dtype=ag.float64))
    assert repr(ag.tensor([0.39317, 0.21])) == f"tensor([0.3932, 0.2100]{on})"   # 4 fixed decimals, as torch
    assert repr(ag.tensor(3.5)) == f"tensor(3.5000{on})"
    assert repr(ag.zeros(2, 0)) == f"tensor([]{on}, size=(2, 0))" and repr(ag.zeros(0)) == f"tensor([]{on})"


def test_factories_and_seed_are_reproducible():
    ag.manual_seed(3)
    a = ag.randn(2, 3)
    ag.manual_seed(3)
    b = ag.randn(2, 3)
    assert a.tolist() == b.tolist() and a.dtype == ag.float32
    assert ag.zeros(2, 3).shape == (2, 3) and ag.ones((4,)).tolist() == [1, 1, 1, 1]
    assert ag.arange(4).dtype == ag.int64 and ag.arange(0.0, 1.0, 0.5).tolist() == [0.0, 0.5]
    assert ag.eye(2).tolist() == [[1, 0], [0, 1]] and ag.linspace(0, 1, 3).tolist() == [0, 0.5, 1]
    assert ag.full((2,), 7.0).tolist() == [7, 7] and ag.zeros_like(a).shape == a.shape
    assert 0 <= ag.rand(100).min().item() and ag.rand(100).max().item() < 1


def test_cuda_without_cupy_or_gpu_raises_naming_the_gpu_extra():
    pytest.importorskip("numpy")
    if os.environ.get("AUTOGRADLAB_CUDA_XP"):
        pytest.skip("a CuPy stand-in is installed (AUTOGRADLAB_CUDA_XP): device='cuda' works here")
    try:
        import cupy  # noqa: F401
        pytest.skip("cupy is installed")
    except ImportError:
        pass
    with pytest.raises(RuntimeError, match=r"autogradlab\[gpu\]"):
        ag.tensor([1.0], device="cuda")


def test_unknown_device_is_rejected():
    with pytest.raises(ValueError, match="unknown device 'tpu'"):
        ag.tensor([1.0], device="tpu")


def test_pickle_keeps_leaf_data_and_flags_but_never_the_graph():
    import pickle
    x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")
    (x * x).sum().backward()
    y = pickle.loads(pickle.dumps(x))
    assert y.tolist() == [1.0, 2.0] and y.requires_grad and y.name == "x" and y.grad is None
    with pytest.raises(RuntimeError, match="non-leaf"):
        pickle.dumps(x * 2)


def test_gradcheck_handles_non_contiguous_inputs():
    base = ag.tensor(np.arange(6.0).reshape(2, 3))
    x = base.T.detach().requires_grad_()          # data is a transposed (non-contiguous) view
    assert not x._data.flags["C_CONTIGUOUS"]
    assert ag.autograd.gradcheck(lambda t: (t * t).sum(1), (x,))
    bad = ag.autograd.gradcheck(lambda t: ZeroGrad.apply(t), (x,), raise_exception=False)
    assert bad is False                            # a wrong gradient is still caught


class ZeroGrad(ag.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        return t * 2

    @staticmethod
    def backward(ctx, g):
        return g * 0


def test_gradgradcheck_leaves_the_users_random_stream_alone():
    ag.manual_seed(1)
    a = ag.randn(2, dtype=ag.float64, requires_grad=True)
    assert ag.autograd.gradgradcheck(lambda t: (t * t * t).sum(), (a,))
    after = ag.randn(3).tolist()
    ag.manual_seed(1)
    ag.randn(2, dtype=ag.float64)
    assert after == ag.randn(3).tolist()
