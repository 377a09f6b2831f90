"""nn: Module bookkeeping, Parameter, Linear, nn.init distributions, functional losses vs torch,
state_dict / load_state_dict, and save / load (npz, no pickle)."""
import json
import math
import warnings
import zipfile

import numpy as np
import pytest
from conftest import import_torch

import autogradlab as ag
import autogradlab.nn.functional as F
from autogradlab import nn
from autogradlab.nn import init


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.act = nn.Tanh()
        self.fc2 = nn.Linear(4, 2, bias=False)
        self.scale = nn.Parameter(ag.ones(1))
        self.note = "not a parameter"

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x))) * self.scale


# -- Parameter and Module bookkeeping ------------------------------------------------------

def test_parameter_is_a_leaf_tensor_that_requires_grad():
    p = nn.Parameter(ag.tensor([1.0, 2.0]))
    assert isinstance(p, nn.Parameter) and isinstance(p, ag.Tensor)
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    y = p * 2
    assert type(y) is ag.Tensor and not isinstance(y, nn.Parameter)
    assert type(p.detach()) is ag.Tensor
    (p * p).sum().backward()
    np.testing.assert_allclose(p.grad.numpy(), [2.0, 4.0])
    assert repr(p).startswith("Parameter containing:\ntensor([1., 2.]")
    assert not nn.Parameter(ag.zeros(2), requires_grad=False).requires_grad


def test_parameter_shares_memory_with_the_tensor_it_wraps():
    t = ag.zeros(3)
    p = nn.Parameter(t)
    with ag.no_grad():
        p.data[0] = 5
    assert t.tolist() == [5.0, 0.0, 0.0]


def test_parameter_of_integer_tensor_is_refused():
    with pytest.raises(RuntimeError, match="int64"):
        nn.Parameter(ag.tensor([1, 2]))


def test_named_parameters_follow_registration_order_with_dotted_names():
    net = Net()
    # PyTorch lists a module's own parameters first, then its children's: same here
    assert [n for n, _ in net.named_parameters()] == ["scale", "fc1.weight", "fc1.bias", "fc2.weight"]
    assert [n for n, _ in net.named_parameters(recurse=False)] == ["scale"]
    assert all(isinstance(p, nn.Parameter) for p in net.parameters())
    assert [n for n, _ in net.named_children()] == ["fc1", "act", "fc2"]
    assert list(net.children()) == [net.fc1, net.act, net.fc2]
    assert [n for n, _ in net.named_modules()] == ["", "fc1", "act", "fc2"]
    assert len(list(net.modules())) == 4
    assert net.note == "not a parameter" and net.fc2.bias is None


def test_named_parameters_matches_torch_order():
    torch = import_torch()

    class TNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(3, 4)
            self.act = torch.nn.Tanh()
            self.fc2 = torch.nn.Linear(4, 2, bias=False)
            self.scale = torch.nn.Parameter(torch.ones(1))

    assert [n for n, _ in Net().named_parameters()] == [n for n, _ in TNet().named_parameters()]


def test_shared_parameters_and_modules_are_listed_once():
    lin = nn.Linear(2, 2)
    seq = nn.Sequential(lin, nn.ReLU(), lin)
    assert len(list(seq.parameters())) == 2
    assert [n for n, _ in seq.named_parameters()] == ["0.weight", "0.bias"]
    assert len(list(seq.modules())) == 3  # seq, lin, relu


def test_reassigning_an_attribute_replaces_the_registration():
    net = Net()
    net.fc1 = nn.Linear(3, 4, bias=False)
    assert "fc1.bias" not in dict(net.named_parameters())
    assert [n for n, _ in net.named_children()] == ["fc1", "act", "fc2"]  # same place as before
    with pytest.raises(TypeError, match="cannot assign 'float' as parameter 'scale'"):
        net.scale = 3.0  # as in PyTorch: a parameter's name only takes a Parameter or None
    with pytest.raises(TypeError, match="child module 'act'"):
        net.act = ag.tanh
    del net.scale
    net.scale = 3.0  # a plain attribute now
    assert "scale" not in dict(net.named_parameters()) and net.scale == 3.0
    del net.act
    assert [n for n, _ in net.named_children()] == ["fc1", "fc2"]


def test_assigning_before_super_init_explains():
    class Bad(nn.Module):
        def __init__(self):
            self.fc = nn.Linear(1, 1)

    with pytest.raises(AttributeError, match="super\\(\\).__init__"):
        Bad()


def test_call_runs_forward_and_missing_forward_is_explained():
    net = Net()
    x = ag.randn(5, 3)
    assert net(x).shape == (5, 2)
    with pytest.raises(NotImplementedError, match="forward"):
        nn.Module()(x)


def test_zero_grad_to_none_and_in_place():
    net = Net()
    net(ag.randn(5, 3)).sum().backward()
    grads = {n: p.grad for n, p in net.named_parameters()}
    assert all(g is not None for g in grads.values())
    net.zero_grad(set_to_none=False)
    for n, p in net.named_parameters():
        assert p.grad is grads[n] and not p.grad.data.any()
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())


def test_train_and_eval_set_the_flag_everywhere():
    net = Net()
    assert net.training and net.fc1.training
    assert net.eval() is net
    assert not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())


def test_repr_is_pytorch_like():
    model = nn.MLP([2, 8, 3], activation="tanh")
    assert repr(model) == ("MLP(\n"
                           "  (0): Linear(in_features=2, out_features=8, bias=True)\n"
                           "  (1): Tanh()\n"
                           "  (2): Linear(in_features=8, out_features=3, bias=True)\n"
                           ")")
    assert repr(Net()) == ("Net(\n"
                           "  (fc1): Linear(in_features=3, out_features=4, bias=True)\n"
                           "  (act): Tanh()\n"
                           "  (fc2): Linear(in_features=4, out_features=2, bias=False)\n"
                           ")")
    assert repr(nn.ReLU()) == "ReLU()"


def test_mlp_and_sequential_structure():
    model = nn.MLP([2, 32, 32, 2])
    assert len(model) == 5 and isinstance(model[0], nn.Linear) and isinstance(model[1], nn.ReLU)
    assert isinstance(model[-1], nn.Linear) and model[-1].out_features == 2
    assert isinstance(model[1:3], nn.Sequential) and len(model[1:3]) == 2
    assert model(ag.randn(7, 2)).shape == (7, 2)
    assert isinstance(nn.MLP([1, 4, 1], activation=nn.Sigmoid)[1], nn.Sigmoid)
    with pytest.raises(ValueError, match="activation"):
        nn.MLP([2, 2, 2], activation="swish")


def test_to_casts_and_keeps_the_parameter_objects():
    net = Net()
    before = list(net.parameters())
    assert net.to(ag.get_default_device()) is net
    net.to(ag.float64)
    after = list(net.parameters())
    assert all(a is b for a, b in zip(before, after))
    assert all(p.dtype == np.float64 for p in after)
    assert net(ag.randn(2, 3, dtype=ag.float64)).dtype == np.float64
    net.to("float32")
    assert all(p.dtype == np.float32 for p in net.parameters())
    with pytest.raises(ValueError, match="device"):
        net.to("tpu")


def test_to_cuda_moves_parameters_when_a_gpu_is_there():   # (or the stand-in GPU: tests/fake_cuda.py)
    try:
        net = Net().to("cuda")
    except ag.backend.DeviceError:
        pytest.skip("no GPU")
    assert all(p.device == "cuda:0" for p in net.parameters())
    out = net(ag.randn(4, 3, device="cuda"))
    out.sum().backward()
    assert net.fc1.weight.grad.device == "cuda:0"
    net.to("cpu")
    assert all(p.device == "cpu" for p in net.parameters())


# -- Linear and nn.init ---------------------------------------------------------------------

def test_linear_shapes_forward_and_default_init_bound():
    ag.manual_seed(0)
    lin = nn.Linear(400, 300)
    assert lin.weight.shape == (300, 400) and lin.bias.shape == (300,)
    bound = 1 / math.sqrt(400)
    w = lin.weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.99 * bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.01 * bound
    b = lin.bias.detach().numpy()
    assert np.abs(b).max() <= bound
    x = ag.randn(5, 400)
    np.testing.assert_allclose(lin(x).detach().numpy(), x.numpy() @ w.T + b, rtol=1e-5, atol=1e-5)
    with pytest.raises(RuntimeError, match="400"):   # (torch's matmul error class)
        lin(ag.randn(5, 3))


def test_init_is_deterministic_under_manual_seed():
    ag.manual_seed(3)
    a = nn.Linear(5, 4).weight.detach().numpy()
    ag.manual_seed(3)
    b = nn.Linear(5, 4).weight.detach().numpy()
    np.testing.assert_array_equal(a, b)


def _big(*shape):
    return nn.Parameter(ag.zeros(*shape))


def test_uniform_normal_constant():
    ag.manual_seed(0)
    t = init.uniform_(_big(500, 400), -2.0, 3.0)
    v = t.detach().numpy()
    assert v.min() >= -2 and v.max() < 3 and abs(v.mean() - 0.5) < 0.02
    v = init.normal_(_big(500, 400), 1.5, 0.5).detach().numpy()
    assert abs(v.mean() - 1.5) < 0.01 and abs(v.std() - 0.5) < 0.01
    assert (init.constant_(_big(3, 2), 0.25).detach().numpy() == 0.25).all()
    assert (init.zeros_(init.ones_(_big(3))).detach().numpy() == 0).all()
    assert (init.ones_(_big(3)).detach().numpy() == 1).all()


@pytest.mark.parametrize("gain", [1.0, 5 / 3])
def test_xavier(gain):
    ag.manual_seed(1)
    fan_out, fan_in = 300, 500
    std = gain * math.sqrt(2 / (fan_in + fan_out))
    v = init.xavier_uniform_(_big(fan_out, fan_in), gain=gain).detach().numpy()
    assert np.abs(v).max() <= math.sqrt(3) * std and np.abs(v).max() > 0.99 * math.sqrt(3) * std
    assert abs(v.std() - std) < 0.01 * std
    v = init.xavier_normal_(_big(fan_out, fan_in), gain=gain).detach().numpy()
    assert abs(v.std() - std) < 0.01 * std and abs(v.mean()) < 0.01 * std


@pytest.mark.parametrize("mode, nonlinearity, a", [("fan_in", "relu", 0), ("fan_out", "relu", 0),
                                                    ("fan_in", "leaky_relu", math.sqrt(5)),
                                                    ("fan_in", "tanh", 0), ("fan_out", "linear", 0)])
def test_kaiming(mode, nonlinearity, a):
    ag.manual_seed(2)
    shape = (200, 300, 3)  # fan_in = 300*3, fan_out = 200*3 (the receptive field counts)
    fan = 900 if mode == "fan_in" else 600
    std = init.calculate_gain(nonlinearity, a) / math.sqrt(fan)
    v = init.kaiming_uniform_(_big(*shape), a=a, mode=mode, nonlinearity=nonlinearity).detach().numpy()
    assert np.abs(v).max() <= math.sqrt(3) * std and np.abs(v).max() > 0.99 * math.sqrt(3) * std
    assert abs(v.std() - std) < 0.01 * std
    v = init.kaiming_normal_(_big(*shape), a=a, mode=mode, nonlinearity=nonlinearity).detach().numpy()
    assert abs(v.std() - std) < 0.01 * std


def test_calculate_gain_matches_torch():
    torch = import_torch()
    for name, param in [("linear", None), ("sigmoid", None), ("tanh", None), ("relu", None),
                        ("leaky_relu", None), ("leaky_relu", 0.2), ("selu", None), ("conv2d", None)]:
        assert init.calculate_gain(name, param) == pytest.approx(torch.nn.init.calculate_gain(name, param))
    with pytest.raises(ValueError, match="nonlinearity"):
        init.calculate_gain("swish")


def test_init_writes_in_place_on_parameters_even_under_no_grad_and_bumps_version():
    p = _big(4, 5)
    data, version = p._data, p._version
    init.kaiming_uniform_(p)
    assert p._data is data and p._version == version + 1 and p.requires_grad and p.is_leaf
    with ag.no_grad():
        init.normal_(p)
    assert p._data is data and p.grad_fn is None
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init.xavier_uniform_(_big(5))
    with pytest.raises(ValueError, match="fan_in, fan_out"):
        init.kaiming_normal_(_big(3, 3), mode="fan_middle")


def test_init_keeps_dtype():
    p = nn.Parameter(ag.zeros(3, 3, dtype=ag.float64))
    assert init.xavier_normal_(p).dtype == np.float64


# -- functional vs torch ----------------------------------------------------------------------

@pytest.fixture
def torch():
    return import_torch()


def _pair(torch, array, requires_grad=True):
    a = ag.tensor(array, requires_grad=requires_grad)
    t = torch.tensor(array, requires_grad=requires_grad)
    return a, t


def _check(out, ref, inputs, refs, tol=1e-10):
    """Same values, and the same gradients for a random upstream gradient."""
    import torch
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=tol, atol=tol)
    seed = np.random.default_rng(0).standard_normal(ref.shape)
    out.backward(ag.tensor(seed, dtype=out.dtype))
    ref.backward(torch.tensor(seed, dtype=ref.dtype))
    for a, t in zip(inputs, refs):
        np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=tol, atol=tol)


def test_activations_and_softmaxes_match_torch(torch):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 5)) * 3
    for ours, theirs in [(F.relu, torch.nn.functional.relu), (F.tanh, torch.tanh), (F.sigmoid, torch.sigmoid),
                         (lambda v: F.softmax(v, 1), lambda v: torch.softmax(v, 1)),
                         (lambda v: F.log_softmax(v, 0), lambda v: torch.log_softmax(v, 0))]:
        a, t = _pair(torch, x)
        _check(ours(a), theirs(t), [a], [t])


def test_linear_matches_torch(torch):
    rng = np.random.default_rng(1)
    (x, tx), (w, tw), (b, tb) = (_pair(torch, rng.standard_normal(s)) for s in [(6, 3), (4, 3), (4,)])
    _check(F.linear(x, w, b), torch.nn.functional.linear(tx, tw, tb), [x, w, b], [tx, tw, tb])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss_matches_torch(torch, reduction):
    rng = np.random.default_rng(2)
    (x, tx), (y, ty) = _pair(torch, rng.standard_normal((5, 3))), _pair(torch, rng.standard_normal((5, 3)))
    _check(F.mse_loss(x, y, reduction=reduction), torch.nn.functional.mse_loss(tx, ty, reduction=reduction),
           [x, y], [tx, ty])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_matches_torch(torch, reduction):
    rng = np.random.default_rng(3)
    x, tx = _pair(torch, rng.standard_normal((6, 4)) * 2)
    labels = np.array([0, 3, 1, 1, 2, 3])
    ref = torch.nn.functional.cross_entropy(tx, torch.tensor(labels), reduction=reduction)
    _check(F.cross_entropy(x, ag.tensor(labels), reduction=reduction), ref, [x], [tx])


def test_cross_entropy_with_class_probabilities_matches_torch(torch):
    rng = np.random.default_rng(4)
    x, tx = _pair(torch, rng.standard_normal((3, 4)))
    p = rng.dirichlet(np.ones(4), size=3)
    _check(F.cross_entropy(x, ag.tensor(p)), torch.nn.functional.cross_entropy(tx, torch.tensor(p)), [x], [tx])


def test_cross_entropy_is_stable_for_huge_logits(torch):
    logits = np.array([[1e4, -1e4, 0.0], [-1e4, 1e4, 5e3], [0.0, 0.0, 1e4]], dtype=np.float32)
    labels = np.array([1, 1, 2])
    x = ag.tensor(logits, requires_grad=True)
    loss = F.cross_entropy(x, ag.tensor(labels))
    loss.backward()
    assert np.isfinite(loss.item()) and np.isfinite(x.grad.numpy()).all()
    tx = torch.tensor(logits, requires_grad=True)
    ref = torch.nn.functional.cross_entropy(tx, torch.tensor(labels))
    ref.backward()
    np.testing.assert_allclose(loss.item(), ref.item(), rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), atol=1e-6)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_bce_with_logits_matches_torch_including_large_and_zero_logits(torch, reduction):
    x_np = np.array([[-800.0, -3.0, 0.0], [0.0, 2.5, 800.0]])
    y_np = np.array([[0.0, 1.0, 1.0], [0.0, 0.3, 1.0]])
    (x, tx), (y, ty) = _pair(torch, x_np), _pair(torch, y_np)
    ref = torch.nn.functional.binary_cross_entropy_with_logits(tx, ty, reduction=reduction)
    _check(F.binary_cross_entropy_with_logits(x, y, reduction=reduction), ref, [x, y], [tx, ty])


def test_loss_modules_call_the_functions():
    torch = import_torch()
    x, y = ag.randn(4, 3), ag.tensor([0, 2, 1, 1])
    assert nn.CrossEntropyLoss()(x, y).item() == pytest.approx(F.cross_entropy(x, y).item())
    assert nn.MSELoss(reduction="sum")(x, x * 0).item() == pytest.approx((x * x).sum().item(), rel=1e-6)
    assert repr(nn.MSELoss(reduction="sum")) == repr(torch.nn.MSELoss(reduction="sum")) == "MSELoss()"
    z = ag.zeros(4)
    assert nn.BCEWithLogitsLoss()(z, z).item() == pytest.approx(math.log(2))


def test_loss_errors_name_dtypes_and_shapes():
    x = ag.randn(4, 3)
    with pytest.raises(TypeError, match=r"integer class indices.*float32.*\(4,\)"):
        F.cross_entropy(x, ag.tensor([0.0, 1.0, 2.0, 1.0]))
    with pytest.raises(ValueError, match=r"target shape \(4, 1\).*\(4, 3\)"):
        F.cross_entropy(x, ag.tensor([[0], [1], [2], [1]]))
    with pytest.raises(IndexError, match="3 is out of bounds.*3 classes"):
        F.cross_entropy(x, ag.tensor([0, 1, 3, 1]))
    with pytest.raises(ValueError, match=r"\(N, C\) or \(C,\).*\(\)"):
        F.cross_entropy(ag.tensor(0.5), ag.tensor(1))
    with pytest.raises(ValueError, match=r"input shape \(4, 1\) and target shape \(4,\)"):
        F.mse_loss(ag.randn(4, 1), ag.randn(4))
    with pytest.raises(ValueError, match=r"\(4,\).*\(4, 1\)"):
        F.binary_cross_entropy_with_logits(ag.randn(4, 1), ag.randn(4))
    with pytest.raises(ValueError, match="reduction"):
        F.mse_loss(x, x, reduction="avg")
    with pytest.raises(TypeError, match="floating point"):
        F.mse_loss(ag.tensor([1, 2]), ag.tensor([1, 2]))


def test_one_hot():
    np.testing.assert_array_equal(F.one_hot(ag.tensor([2, 0])).numpy(), [[0, 0, 1], [1, 0, 0]])
    assert F.one_hot(ag.tensor([1]), num_classes=4).shape == (1, 4)


# -- state_dict, load_state_dict, save/load ------------------------------------------------------

def test_state_dict_is_ordered_and_holds_detached_views():
    net = Net()
    sd = net.state_dict()
    assert list(sd) == [n for n, _ in net.named_parameters()]
    assert all(type(v) is ag.Tensor and not v.requires_grad for v in sd.values())
    sd["fc1.weight"]._data[...] = 7   # (the weights' own memory, as PyTorch's state_dict)
    assert (net.fc1.weight.detach().numpy() == 7).all()


def test_state_dict_round_trip_through_save_and_load(tmp_path):
    ag.manual_seed(0)
    a, b = Net(), Net()
    path = tmp_path / "net.pt"
    ag.save(a.state_dict(), path)
    assert path.exists() and not (tmp_path / "net.pt.npz").exists()
    loaded = ag.load(path)
    assert list(loaded) == list(a.state_dict())
    result = b.load_state_dict(loaded)
    assert result.missing_keys == [] and result.unexpected_keys == []
    x = ag.randn(3, 3)
    np.testing.assert_array_equal(a(x).detach().numpy(), b(x).detach().numpy())
    for (_, p), (_, q) in zip(a.named_parameters(), b.named_parameters()):
        assert p.dtype == q.dtype and (p.detach().numpy() == q.detach().numpy()).all()


def test_save_writes_an_npz_without_pickle(tmp_path):
    path = tmp_path / "w.npz"
    sd = {"w": ag.randn(2, 3), "steps": ag.tensor([1, 2, 3]), "mask": ag.tensor([True, False])}
    ag.save(sd, path)
    with np.load(path, allow_pickle=False) as z:  # would raise on any object (pickled) array
        arrays = {k: z[k] for k in z.files}
    assert all(a.dtype != object for a in arrays.values())
    with zipfile.ZipFile(path) as zf:
        assert all(name.endswith(".npy") for name in zf.namelist())
    back = ag.load(path)
    assert back["steps"].dtype == np.int64 and back["mask"].dtype == np.bool_
    np.testing.assert_array_equal(back["w"].numpy(), sd["w"].numpy())


def test_save_and_load_a_single_tensor(tmp_path):
    t = ag.randn(3, 2, dtype=ag.float64)
    ag.save(t, tmp_path / "t.npz")
    back = ag.load(tmp_path / "t.npz")
    assert isinstance(back, ag.Tensor) and back.dtype == np.float64
    np.testing.assert_array_equal(back.numpy(), t.numpy())


def test_load_reads_a_plain_numpy_savez_file(tmp_path):
    np.savez(tmp_path / "plain.npz", a=np.arange(3.0))
    assert ag.load(tmp_path / "plain.npz")["a"].tolist() == [0.0, 1.0, 2.0]


def test_malformed_files_raise_clear_errors(tmp_path):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"definitely not a zip file")
    with pytest.raises(ValueError, match="not an autogradlab save file"):
        ag.load(bad)
    ag.save({"w": ag.randn(100, 100)}, tmp_path / "ok.npz")
    truncated = tmp_path / "trunc.npz"
    truncated.write_bytes((tmp_path / "ok.npz").read_bytes()[:5000])
    with pytest.raises(ValueError, match="autogradlab save file|malformed"):
        ag.load(truncated)
    np.savez(tmp_path / "obj.npz", a=np.array([{"x": 1}], dtype=object))
    with pytest.raises(ValueError):
        ag.load(tmp_path / "obj.npz")
    with pytest.raises(TypeError, match="state_dict"):
        ag.save({"model": Net()}, tmp_path / "x.npz")


def _snapshot(net):
    return {n: p.detach().numpy().copy() for n, p in net.named_parameters()}


def _unchanged(net, snap):
    return all((p.detach().numpy() == snap[n]).all() for n, p in net.named_parameters())


def test_load_state_dict_with_missing_extra_or_misshaped_entries_raises_and_changes_nothing():
    ag.manual_seed(0)
    net, other = Net(), Net()
    snap = _snapshot(net)
    sd = other.state_dict()
    del sd["fc2.weight"]
    sd["fc3.weight"] = ag.zeros(2, 2)
    with pytest.raises(RuntimeError, match=r'(?s)Unexpected key.*"fc3.weight".*Missing key.*"fc2.weight"'):
        net.load_state_dict(sd)
    assert _unchanged(net, snap)

    sd = other.state_dict()
    sd["fc1.bias"] = ag.zeros(5)  # fc1.weight comes first and is fine: it must not be copied either
    with pytest.raises(RuntimeError, match=r"size mismatch for fc1.bias.*\(5,\).*\(4,\)"):
        net.load_state_dict(sd)
    assert _unchanged(net, snap)
    with pytest.raises(RuntimeError, match="size mismatch"):
        net.load_state_dict(sd, strict=False)
    assert _unchanged(net, snap)


def test_load_state_dict_non_strict_reports_keys_and_copies_the_rest():
    net, other = Net(), Net()
    sd = other.state_dict()
    del sd["scale"]
    sd["extra"] = ag.zeros(1)
    result = net.load_state_dict(sd, strict=False)
    assert result.missing_keys == ["scale"] and result.unexpected_keys == ["extra"]
    np.testing.assert_array_equal(net.fc1.weight.detach().numpy(), other.fc1.weight.detach().numpy())


def test_load_state_dict_writes_in_place_and_casts_to_the_parameter_dtype():
    net = Net()
    weight = net.fc1.weight
    data = weight._data
    sd = {k: v.to(ag.float64) for k, v in Net().state_dict().items()}
    net.load_state_dict(sd)
    assert net.fc1.weight is weight and weight._data is data and weight.dtype == np.float32


def test_deepcopy_makes_an_independent_model():
    import copy
    net = Net()
    twin = copy.deepcopy(net)
    assert isinstance(twin.fc1.weight, nn.Parameter) and twin.fc1.weight is not net.fc1.weight
    with ag.no_grad():
        net.fc1.weight.data[...] = 0
    assert twin.fc1.weight.detach().numpy().any()
    assert [n for n, _ in twin.named_parameters()] == [n for n, _ in net.named_parameters()]


def test_module_list_registers_its_modules_and_their_parameters():
    class Stack(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([nn.Linear(2, 3), nn.Linear(3, 1)])

        def forward(self, x):
            for layer in self.layers:
                x = layer(x)
            return x

    net = Stack()
    names = [n for n, _ in net.named_parameters()]
    assert names == ["layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias"]
    assert len(net.layers) == 2 and isinstance(net.layers[1], nn.Linear)
    assert net(ag.ones(4, 2)).shape == (4, 1)
    assert list(net.state_dict()) == names


def test_dropout_zeroes_and_rescales_in_training_and_is_identity_in_eval():
    ag.manual_seed(0)
    drop = nn.Dropout(0.25)
    x = ag.ones(10000, requires_grad=True)
    y = drop(x)
    kept = y.detach().numpy() != 0
    assert abs(kept.mean() - 0.75) < 0.02
    np.testing.assert_allclose(y.detach().numpy()[kept], 1 / 0.75)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.detach().numpy())   # d/dx = mask / (1 - p)
    drop.eval()
    assert drop(x) is x
    with pytest.raises(ValueError, match="between 0 and 1"):
        nn.Dropout(1.5)
    ag.manual_seed(3)
    a = nn.functional.dropout(ag.ones(8), 0.5).tolist()
    ag.manual_seed(3)
    assert nn.functional.dropout(ag.ones(8), 0.5).tolist() == a     # seeded


def test_dropout_inplace_writes_into_its_input_as_torch():
    torch = import_torch()
    assert repr(nn.Dropout(0.3, inplace=True)) == repr(torch.nn.Dropout(0.3, inplace=True))
    assert repr(nn.Dropout()) == repr(torch.nn.Dropout())
    ag.manual_seed(1)
    x = ag.ones(2000, requires_grad=True)
    y = x * 2.0
    out = nn.Dropout(0.5, inplace=True)(y)
    assert out is y and y.grad_fn.name() == "MulBackward"          # (the in-place mul_ recorded on y)
    kept = y.detach().numpy() != 0
    assert 0.45 < kept.mean() < 0.55
    np.testing.assert_allclose(y.detach().numpy()[kept], 4.0)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.where(kept, 4.0, 0.0))   # d/dx = 2 * mask / (1 - p)
    leaf, tleaf = ag.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError):
        torch.nn.functional.dropout(tleaf, 0.5, True, inplace=True)
    with pytest.raises(RuntimeError):
        F.dropout(leaf, 0.5, True, inplace=True)            # a leaf that requires grad: refused, unchanged
    assert leaf.tolist() == [1.0, 1.0, 1.0]
    z = ag.ones(4)
    assert F.dropout(z, 1.0, True, inplace=True) is z and z.tolist() == [0.0] * 4


# -- more activations and losses, against torch ---------------------------------------------------------

ACTIVATIONS = [("leaky_relu", {}), ("leaky_relu", {"negative_slope": 0.2}), ("elu", {}), ("elu", {"alpha": 0.5}),
               ("silu", {}), ("softplus", {}), ("softplus", {"beta": 2.0, "threshold": 5.0})]


@pytest.mark.parametrize("name, kwargs", ACTIVATIONS, ids=[f"{n}-{k}" for n, k in ACTIVATIONS])
def test_more_activations_match_torch_at_zero_and_far_out(torch, name, kwargs):
    """Values and gradients, also at 0 (where PyTorch takes the left branch's slope), at softplus's threshold and
    at +-800 (where a branch not taken must not turn the gradient into NaN); second derivatives away from those
    points (PyTorch's own first and second derivatives disagree on which side a kink belongs to: elu's takes
    x <= 0 for the first and x < 0 for the second)."""
    x_np = np.array([[-800.0, -3.0, -0.5, 0.0], [1e-3, 0.7, 2.5, 800.0], [2.5, 10.0, 20.0, 21.0]])
    x, tx = _pair(torch, x_np)
    _check(getattr(F, name)(x, **kwargs), getattr(torch.nn.functional, name)(tx, **kwargs), [x], [tx])
    kinks = (x_np == 0) | (x_np * kwargs.get("beta", 1.0) == kwargs.get("threshold", 20.0))
    x, tx = _pair(torch, x_np)
    (g,), (tg,) = (ag.autograd.grad(getattr(F, name)(x, **kwargs).sum(), x, create_graph=True),
                   torch.autograd.grad(getattr(torch.nn.functional, name)(tx, **kwargs).sum(), tx, create_graph=True))
    np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy(), rtol=1e-12, atol=1e-300)
    assert g.requires_grad == tg.requires_grad   # (leaky_relu's too: recorded as a function of x, derivative 0)
    (h,), (th,) = ag.autograd.grad(g.sum(), x), torch.autograd.grad(tg.sum(), tx)
    np.testing.assert_allclose(h.numpy()[~kinks], th.numpy()[~kinks], rtol=1e-10, atol=1e-300)


@pytest.mark.parametrize("name, kwargs", ACTIVATIONS, ids=[f"{n}-{k}" for n, k in ACTIVATIONS])
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_more_activations_match_torch_in_low_precision_and_at_nan(torch, name, kwargs, dtype):
    """float16 (softplus is computed in float32, as PyTorch does: e^11 overflows float16), float32 far left (elu's
    gradient is alpha*e^x, not expm1's g*(y + 1), which cancels), and NaN (its gradient passes on, as PyTorch's)."""
    x_np = np.concatenate([np.linspace(-30, 30, 241), [-17.0, -10.0, float("nan")]]).astype(dtype)
    x, tx = ag.tensor(x_np, requires_grad=True), torch.tensor(x_np, requires_grad=True)
    y, ty = getattr(F, name)(x, **kwargs), getattr(torch.nn.functional, name)(tx, **kwargs)
    (g,), (tg,) = ag.autograd.grad(y.sum(), x), torch.autograd.grad(ty.sum(), tx)
    # (float16: PyTorch computes each op in float32 and rounds once; NumPy rounds after each op, so a gradient of
    # about 1e-7, a float16 subnormal, may come out 0)
    tol, atol = {"float16": (2e-3, 1e-6), "float32": (2e-6, 1e-30)}[dtype]
    np.testing.assert_allclose(y.detach().numpy().astype(float), ty.detach().numpy().astype(float), rtol=tol, atol=tol)
    np.testing.assert_allclose(g.numpy().astype(float), tg.numpy().astype(float), rtol=tol, atol=atol)


INPLACE = {"relu": (), "leaky_relu": (0.2,), "elu": (0.7,), "silu": (), "hardtanh": (-0.5, 1.0), "relu6": (),
           "hardsigmoid": (), "hardswish": (), "mish": (), "selu": (), "celu": (0.5,), "threshold": (0.1, 20.0)}


@pytest.mark.parametrize("name", INPLACE)
def test_activations_with_inplace_write_their_input_as_torch(torch, name):
    """``F.relu(y, inplace=True)`` writes y (its later readers see the result, and the gradient follows), as
    torch's; a leaf that requires grad is refused."""
    def run(T):
        x = T.tensor([-1.0, 0.05, 0.5, 2.0, 4.0], dtype=T.float64, requires_grad=True)
        y = x * 1
        out = getattr(T.nn.functional, name)(y, *INPLACE[name], inplace=True)
        (y * T.arange(1.0, 6.0, dtype=T.float64)).sum().backward()
        return out is y, y.detach().numpy(), x.grad.numpy()
    (same, y, g), (same_t, y_t, g_t) = run(ag), run(torch)
    assert same and same_t
    np.testing.assert_allclose(y, y_t, rtol=1e-12)
    np.testing.assert_allclose(g, g_t, rtol=1e-7)   # (torch's hardsigmoid slope is 1/6 in float32)
    leaf = ag.tensor([-1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        getattr(F, name)(leaf, *INPLACE[name], inplace=True)
    assert leaf.tolist() == [-1.0, 2.0]


@pytest.mark.parametrize("name", ["relu", "leaky_relu", "elu", "silu"])
def test_activation_layers_with_inplace_show_and_write_as_torch(torch, name):
    module = {"relu": nn.ReLU, "leaky_relu": nn.LeakyReLU, "elu": nn.ELU, "silu": nn.SiLU}[name](inplace=True)
    theirs = {"relu": torch.nn.ReLU, "leaky_relu": torch.nn.LeakyReLU, "elu": torch.nn.ELU,
              "silu": torch.nn.SiLU}[name](inplace=True)
    assert repr(module) == repr(theirs)
    x, tx = ag.tensor([-1.0, 0.5, 2.0]), torch.tensor([-1.0, 0.5, 2.0])
    assert module(x) is x and theirs(tx) is tx
    np.testing.assert_allclose(x.numpy(), tx.numpy(), rtol=1e-6)


PIECEWISE = [("hardtanh", {}), ("hardtanh", {"min_val": -2.0, "max_val": 0.5}), ("relu6", {}), ("hardsigmoid", {}),
             ("hardswish", {}), ("softsign", {}), ("logsigmoid", {}), ("mish", {}), ("selu", {}), ("celu", {}),
             ("celu", {"alpha": 0.5}), ("tanhshrink", {}), ("softmin", {"dim": 1})]


@pytest.mark.parametrize("name, kwargs", PIECEWISE, ids=[f"{n}-{k}" for n, k in PIECEWISE])
def test_the_other_activations_match_torch_at_their_kinks_and_far_out(torch, name, kwargs):
    """Values and gradients everywhere, the kinks included (hardtanh's and relu6's bounds take slope 0, hardswish's
    -3 and 3 the outer slopes, selu's and celu's 0 the left one, as PyTorch's); second derivatives away from the
    kinks and from +-800 (where PyTorch's own mish gives NaN). hardsigmoid's slope is 1/6 here, PyTorch's the
    float32 nearest to it, even in float64: they differ by 5e-9."""
    x_np = np.array([[-800.0, -3.0, -0.5, 0.0], [1e-3, 0.7, 2.5, 800.0], [2.5, 10.0, 20.0, 21.0],
                     [-1.0, 1.0, 6.0, 3.0], [-2.0, 0.5, -3.5, 3.5]])
    x, tx = _pair(torch, x_np)
    _check(getattr(F, name)(x, **kwargs), getattr(torch.nn.functional, name)(tx, **kwargs), [x], [tx],
           tol=1e-8 if name == "hardsigmoid" else 1e-12)
    x, tx = _pair(torch, x_np)
    (g,), (tg,) = (ag.autograd.grad(getattr(F, name)(x, **kwargs).sum(), x, create_graph=True),
                   torch.autograd.grad(getattr(torch.nn.functional, name)(tx, **kwargs).sum(), tx, create_graph=True))
    assert g.requires_grad == tg.requires_grad or name == "hardsigmoid"   # (hardtanh records its slope-0 backward)
    if name == "hardsigmoid":   # (PyTorch has no second derivative of it; here it does not depend on x)
        return
    kinks = np.isin(x_np, [0.0, -3.0, 3.0, 800.0, -800.0])
    (h,), (th,) = ag.autograd.grad(g.sum(), x), torch.autograd.grad(tg.sum(), tx)
    np.testing.assert_allclose(h.numpy()[~kinks], th.numpy()[~kinks], rtol=1e-10, atol=1e-14)   # (e^-20 tails)


@pytest.mark.parametrize("name, kwargs", PIECEWISE, ids=[f"{n}-{k}" for n, k in PIECEWISE])
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_the_other_activations_match_torch_in_low_precision_and_at_nan(torch, name, kwargs, dtype):
    x_np = np.concatenate([np.linspace(-30, 30, 241), [-17.0, -3.0, -2.99, 2.99, 3.0, float("nan")]]).astype(dtype)
    kwargs = {"dim": 0} if "dim" in kwargs else kwargs   # (a vector here; NaN: the whole softmin is NaN)
    x, tx = ag.tensor(x_np, requires_grad=True), torch.tensor(x_np, requires_grad=True)
    y, ty = getattr(F, name)(x, **kwargs), getattr(torch.nn.functional, name)(tx, **kwargs)
    (g,), (tg,) = ag.autograd.grad(y.sum(), x), torch.autograd.grad(ty.sum(), tx)
    # (float16: a few ops each rounded, in either library; softsign's slope far out is a difference of two terms
    # about 30 times larger, 1/(1+|x|) - |x|/(1+|x|)^2, so both libraries keep only its first digits there)
    tol, atol = {"float16": (4e-3, 1e-4), "float32": (2e-6, 1e-6)}[dtype]
    np.testing.assert_allclose(y.detach().numpy().astype(float), ty.detach().numpy().astype(float), rtol=tol, atol=tol)
    np.testing.assert_allclose(g.numpy().astype(float), tg.numpy().astype(float), rtol=tol, atol=atol)


def test_the_other_activation_modules_print_and_compute_as_torch(torch):
    x_np = np.linspace(-4, 4, 12).reshape(3, 4)
    for name, args in [("ReLU6", ()), ("Hardtanh", ()), ("Hardtanh", (-2.0, 3.0, True)), ("Hardsigmoid", ()),
                       ("Hardswish", (True,)), ("Mish", ()), ("SELU", (True,)), ("CELU", (0.5,)), ("Softsign", ()),
                       ("LogSigmoid", ()), ("Tanhshrink", ()), ("Softmin", (1,)), ("ReLU6", (True,))]:
        ours, theirs = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
        assert repr(ours) == repr(theirs)
        np.testing.assert_allclose(ours(ag.tensor(x_np)).numpy(), theirs(torch.tensor(x_np)).numpy(), rtol=1e-7)
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmin"):
        np.testing.assert_allclose(nn.Softmin()(ag.tensor(x_np)).numpy(), F.softmin(ag.tensor(x_np), 1).numpy())
    for call in (lambda m: m.nn.Hardtanh(2.0, 1.0), lambda m: m.nn.functional.hardtanh(m.ones(2), 2.0, 1.0),
                 lambda m: m.nn.functional.celu(m.ones(2), 0.0)):
        with pytest.raises(Exception) as caught:   # noqa: PT011  (the class torch raises, ours must raise too)
            call(torch)
        with pytest.raises(caught.type):
            call(ag)
    ints = np.array([-9, 0, 3, 8])
    assert F.relu6(ag.tensor(ints)).tolist() == torch.nn.functional.relu6(torch.tensor(ints)).tolist()
    assert F.relu6(ag.tensor(ints)).dtype == ag.int64
    # (found by a review against torch)
    with pytest.raises(RuntimeError, match="Bool inputs not supported for hardtanh"):
        torch.nn.functional.relu6(torch.tensor([True]))
    with pytest.raises(RuntimeError, match="Bool inputs not supported for hardtanh"):
        F.relu6(ag.tensor([True]))
    assert isinstance(nn.ReLU6(), nn.Hardtanh) and (nn.ReLU6().min_val, nn.ReLU6().max_val) == (0.0, 6.0)
    assert not isinstance(nn.Hardswish(), nn.Hardsigmoid)
    np.testing.assert_allclose(F.softmin(ag.tensor(x_np, dtype=ag.float32), 1, dtype=ag.float64).numpy(),
                               torch.nn.functional.softmin(torch.tensor(x_np, dtype=torch.float32), 1,
                                                           dtype=torch.float64).numpy(), rtol=1e-12)
    x = ag.tensor([0.5, 7.0], requires_grad=True)            # a second derivative through relu6: zeros, as torch
    g, = ag.autograd.grad(F.relu6(x).sum(), x, create_graph=True)
    assert g.requires_grad and g.grad_fn.name() == "HardtanhBackwardBackward"
    h, = ag.autograd.grad(g.sum(), x)
    assert h.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_l1_loss_matches_torch_also_where_input_equals_target(torch, reduction):
    x_np = np.array([[0.5, -1.0, 2.0], [3.0, 0.0, -0.25]])
    y_np = np.array([[0.5, 1.0, 1.0], [-3.0, 0.0, 0.5]])
    (x, tx), (y, ty) = _pair(torch, x_np), _pair(torch, y_np)
    _check(F.l1_loss(x, y, reduction=reduction), torch.nn.functional.l1_loss(tx, ty, reduction=reduction),
           [x, y], [tx, ty])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_cross_entropy_matches_torch_also_at_0_and_1(torch, reduction, weighted):
    x_np = np.array([[0.0, 0.3, 1.0, 0.5], [1e-30, 0.9, 1.0 - 1e-12, 0.0]])
    y_np = np.array([[0.0, 1.0, 1.0, 0.2], [1.0, 0.0, 0.5, 1.0]])
    w_np = np.array([2.0, 1.0, 0.5, 3.0])
    (x, tx), (y, ty) = _pair(torch, x_np), _pair(torch, y_np)
    kwargs = {"weight": ag.tensor(w_np)} if weighted else {}
    tkwargs = {"weight": torch.tensor(w_np)} if weighted else {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # (log 0 on the way, clamped at -100: no NumPy warning)
        out = F.binary_cross_entropy(x, y, reduction=reduction, **kwargs)
    ref = torch.nn.functional.binary_cross_entropy(tx, ty, reduction=reduction, **tkwargs)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-12)
    seed = np.random.default_rng(0).standard_normal(ref.shape)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out.backward(ag.tensor(seed))
    ref.backward(torch.tensor(seed))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(y.grad.numpy(), ty.grad.numpy(), rtol=1e-12)   # (inf where x is 0 or 1)


@pytest.mark.parametrize("call", [
    lambda F, t: F.binary_cross_entropy(t([0.3, 0.6]), t([1.5, 0.0])),                   # a target outside [0, 1]
    lambda F, t: F.binary_cross_entropy(t([0.3, 0.6]), t([float("nan"), 0.0])),
    lambda F, t: F.binary_cross_entropy(t([0.3, 0.6]), t([1.0, 0.0], dtype="float64")),  # two dtypes
    lambda F, t: F.binary_cross_entropy(t([[0.3, 0.6]]), t([[1.0, 0.0]]), weight=t([[[1.0, 2.0]], [[1.0, 1.0]]])),
])
def test_binary_cross_entropy_refuses_what_torch_refuses(torch, call):
    def ours(v, dtype="float32"):
        return ag.tensor(v, dtype=dtype)

    def theirs(v, dtype="float32"):
        return torch.tensor(v, dtype=getattr(torch, dtype))

    with pytest.raises(Exception) as expected:
        call(torch.nn.functional, theirs)
    with pytest.raises((expected.type, ValueError)):   # (a weight too large: ValueError, as every shape mismatch)
        call(F, ours)


def test_binary_cross_entropy_refuses_logits_and_says_what_to_use(torch):
    x, y = ag.tensor([0.5, 1.5]), ag.tensor([0.0, 1.0])
    with pytest.raises(RuntimeError, match="between 0 and 1.*binary_cross_entropy_with_logits"):
        F.binary_cross_entropy(x, y)
    with pytest.raises(RuntimeError):
        torch.nn.functional.binary_cross_entropy(torch.tensor([0.5, 1.5]), torch.tensor([0.0, 1.0]))
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        F.binary_cross_entropy(ag.tensor([float("nan")]), ag.tensor([1.0]))


def test_new_modules_call_the_functions_and_print_as_torch(torch):
    x = ag.tensor([[-1.0, 0.5], [2.0, -0.1]])
    for ours, theirs in [(nn.LeakyReLU(0.1), torch.nn.LeakyReLU(0.1)), (nn.ELU(), torch.nn.ELU()),
                         (nn.SiLU(), torch.nn.SiLU()), (nn.Softplus(beta=2.0), torch.nn.Softplus(beta=2.0))]:
        assert repr(ours) == repr(theirs)
        np.testing.assert_allclose(ours(x).numpy(), theirs(torch.tensor(x.numpy())).numpy(), rtol=1e-6)
    p, y = ag.tensor([0.2, 0.9]), ag.tensor([0.0, 1.0])
    assert nn.BCELoss()(p, y).item() == pytest.approx(F.binary_cross_entropy(p, y).item())
    assert nn.L1Loss(reduction="sum")(p, y).item() == pytest.approx(0.3)
    assert repr(nn.L1Loss()) == repr(torch.nn.L1Loss()) and repr(nn.BCELoss()) == repr(torch.nn.BCELoss())


# -- buffers ----------------------------------------------------------------------------------------------

def _with_buffers(lib):
    """The same module in either library: buffers of its own (one not persistent, one None), a child with one."""
    nn_ = lib.nn

    class WithBuffers(nn_.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn_.Linear(2, 2)
            self.register_buffer("running", lib.zeros(2))
            self.register_buffer("count", lib.tensor(0))
            self.register_buffer("scratch", lib.ones(1), persistent=False)
            self.register_buffer("absent", None)
            self.inner = nn_.Sequential(nn_.Linear(2, 1))
            self.inner.register_buffer("b2", lib.ones(3))

    return WithBuffers()


def test_buffers_are_named_saved_and_cast_as_in_torch(torch):
    ours, theirs = _with_buffers(ag), _with_buffers(torch)
    assert list(ours.state_dict()) == list(theirs.state_dict())   # each module's parameters, then its buffers
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    ours.to(ag.float64)
    theirs.to(torch.float64)
    for (name, b), (_, tb) in zip(ours.named_buffers(), theirs.named_buffers()):
        assert b.dtype.name == str(tb.dtype).removeprefix("torch."), name   # (the int64 count stays int64)
    ours.running = None
    theirs.running = None
    assert list(ours.state_dict()) == list(theirs.state_dict())


@pytest.mark.parametrize("call", [lambda m, lib: m.register_buffer("a.b", lib.ones(1)),
                                  lambda m, lib: m.register_buffer("", lib.ones(1)),
                                  lambda m, lib: m.register_buffer("fc", lib.ones(1)),
                                  lambda m, lib: m.register_buffer("x", 3),
                                  lambda m, lib: m.register_buffer(3, lib.ones(1)),
                                  lambda m, lib: setattr(m, "running", 3)])
def test_buffer_errors_as_in_torch(torch, call):
    with pytest.raises(Exception) as expected:
        call(_with_buffers(torch), torch)
    with pytest.raises(expected.type):
        call(_with_buffers(ag), ag)


def test_buffers_round_trip_through_load_state_dict_and_save(tmp_path):
    source, target = _with_buffers(ag), _with_buffers(ag)
    source.running[...] = ag.tensor([1.5, -2.0])   # (a running mean, as a layer would keep it)
    source.count += 7
    ag.save(source.state_dict(), tmp_path / "m.npz")
    target.load_state_dict(ag.load(tmp_path / "m.npz"))
    assert target.running.tolist() == [1.5, -2.0] and target.count.item() == 7 and target.count.dtype == ag.int64
    assert target.scratch.tolist() == [1.0]   # (not persistent: neither saved nor loaded)
    assert all(not b.requires_grad for b in target.buffers())
    assert len(list(target.parameters())) == 4   # (buffers are not parameters: no optimizer sees them)


def test_bce_loss_keeps_its_weight_as_a_buffer(torch):
    w = np.array([2.0, 0.5])
    ours, theirs = nn.BCELoss(weight=ag.tensor(w)), torch.nn.BCELoss(weight=torch.tensor(w))
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["weight"]
    p, y = np.array([0.2, 0.9]), np.array([0.0, 1.0])
    assert ours(ag.tensor(p), ag.tensor(y)).item() == pytest.approx(theirs(torch.tensor(p), torch.tensor(y)).item())


def test_a_failed_load_changes_no_buffer_even_a_read_only_one():
    m = nn.Module()
    m.register_buffer("a", ag.tensor([1.0, 2.0]))
    m.register_buffer("e", ag.tensor([1.0]).expand(3))   # (read-only memory: no values can be loaded into it)
    with pytest.raises(RuntimeError, match="(?s)e is read-only.*The model was not changed"):
        m.load_state_dict({"a": ag.tensor([7.0, 7.0]), "e": ag.tensor([1.0, 2.0, 3.0])})
    assert m.a.tolist() == [1.0, 2.0]


def test_to_casts_parameters_with_gradients_and_buffers_as_torch(torch):
    ours, theirs = nn.Linear(2, 1), torch.nn.Linear(2, 1)
    for model, lib in ((ours, ag), (theirs, torch)):
        model(lib.ones(3, 2)).sum().backward()
        model.register_buffer("rm", lib.zeros(2))
        model.register_buffer("tracked", lib.ones(2, requires_grad=True))
        model.double()
    assert ours.weight.dtype == ours.weight.grad.dtype == ours.rm.dtype == ag.float64
    assert theirs.weight.grad.dtype == theirs.rm.dtype == torch.float64
    assert ours.tracked.requires_grad == theirs.tracked.requires_grad   # (cast as a recorded op, as in torch)
    assert ours.half().weight.dtype == ag.float16


def test_a_module_assigned_to_a_buffer_name_replaces_the_buffer_as_in_torch(torch):
    for lib in (ag, torch):
        m = lib.nn.Module()
        m.register_buffer("a", lib.zeros(1))
        m.a = lib.nn.Linear(1, 1)
        assert [n for n, _ in m.named_buffers()] == [] and [n for n, _ in m.named_children()] == ["a"]


# -- checkpoints: nested structures through save/load ---------------------------------------------------------

def test_a_checkpoint_of_nested_containers_round_trips_with_its_types(tmp_path):
    ck = {"model": {"w": ag.randn(2, 3), "n": ag.tensor(4)}, "optimizer": {"state": {0: {"step": ag.tensor(2.0)}},
                                                                          "param_groups": [{"betas": (0.9, 0.99),
                                                                                            "params": [0]}]},
          "epoch": 3, "lr": 0.5, "name": "run-1", "done": False, "best": None, "nan": float("nan"),
          "keys": {1: "int", 2.5: "float", None: "none", "s": "str"}, "empty": {}, "nested": [(1, [2, (3,)])],
          "array": np.arange(3)}
    ag.save(ck, tmp_path / "ck.pt")
    back = ag.load(tmp_path / "ck.pt")
    assert list(back) == list(ck)
    assert back["epoch"] == 3 and type(back["epoch"]) is int and back["lr"] == 0.5 and back["name"] == "run-1"
    assert back["done"] is False and back["best"] is None and np.isnan(back["nan"])
    assert back["optimizer"]["param_groups"][0]["betas"] == (0.9, 0.99)
    assert list(back["optimizer"]["state"]) == [0] and back["optimizer"]["state"][0]["step"].item() == 2.0
    assert list(back["keys"].items()) == list(ck["keys"].items()) and back["empty"] == {}
    assert back["nested"] == [(1, [2, (3,)])]
    np.testing.assert_array_equal(back["model"]["w"].numpy(), ck["model"]["w"].numpy())
    assert back["model"]["n"].dtype == np.int64 and back["array"].tolist() == [0, 1, 2]
    with np.load(tmp_path / "ck.pt", allow_pickle=False) as z:          # still arrays and a JSON header only
        assert all(z[k].dtype != object for k in z.files)


def test_a_checkpoint_may_be_a_list_or_tuple_at_the_top(tmp_path):
    ag.save([ag.ones(2), 1, (2, "x")], tmp_path / "l.pt")
    back = ag.load(tmp_path / "l.pt")
    assert back[1:] == [1, (2, "x")] and back[0].tolist() == [1.0, 1.0]
    ag.save((ag.ones(1),), tmp_path / "t.pt")
    assert isinstance(ag.load(tmp_path / "t.pt"), tuple)


def test_a_checkpoint_refuses_what_it_cannot_hold_and_names_where(tmp_path):
    with pytest.raises(TypeError, match=r"checkpoint\['opt'\]\[0\] is a set"):
        ag.save({"opt": [{1, 2}]}, tmp_path / "x.pt")
    with pytest.raises(TypeError, match="key of type tuple"):
        ag.save({"a": {(1, 2): ag.zeros(1)}}, tmp_path / "x.pt")
    with pytest.raises(TypeError, match=r"checkpoint\['opt'\]\['x'\] has unsupported dtype datetime64"):
        ag.save({"opt": {"x": np.ones(2, "M8[s]")}, "n": 1}, tmp_path / "x.pt")
    loop = {"a": 1}
    loop["self"] = loop
    with pytest.raises(TypeError, match="contains itself"):
        ag.save(loop, tmp_path / "x.pt")
    assert not (tmp_path / "x.pt").exists()


def test_a_damaged_checkpoint_structure_is_reported(tmp_path):
    ag.save({"a": ag.zeros(2), "b": 1}, tmp_path / "ck.pt")
    with np.load(tmp_path / "ck.pt", allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    header = json.loads(str(arrays["__autogradlab__"]))
    header["tree"] = {"$dict": [["a", {"$tensor": 5}]]}                  # an array that is not there
    arrays["__autogradlab__"] = np.array(json.dumps(header))
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(ValueError, match="malformed"):
        ag.load(tmp_path / "bad.npz")


def test_modules_are_built_on_the_default_device_as_in_torch(monkeypatch):
    """``set_default_device`` decides where a module's parameters live when ``device`` is not given (PyTorch's
    torch.set_default_device does the same): layers follow it, so a GPU lab needs no .to() on each layer."""
    from autogradlab import backend
    seen = []
    real = backend.asarray
    monkeypatch.setattr(backend, "asarray", lambda data, device, dtype=None: seen.append(device) or
                        real(data, "cpu", dtype))
    monkeypatch.setattr(ag.backend, "_default_device", "cuda:0", raising=False)
    monkeypatch.setattr(ag.backend, "get_default_device", lambda: "cuda:0")
    import autogradlab.creation as creation
    monkeypatch.setattr(creation, "get_default_device", lambda: "cuda:0", raising=False)
    for build in (lambda: ag.nn.Linear(2, 3), lambda: ag.nn.Conv2d(1, 2, 3), lambda: ag.nn.LayerNorm(3),
                  lambda: ag.nn.BatchNorm1d(3), lambda: ag.nn.Embedding(4, 2), lambda: ag.nn.GRU(2, 3),
                  lambda: ag.nn.LSTMCell(2, 3)):
        seen.clear()
        try:
            build()
        except Exception:   # noqa: BLE001  (the arrays are CPU ones labelled cuda: what matters is what was asked)
            pass
        assert seen and all(d != "cpu" for d in seen), (build, seen)
