"""optim: SGD / Adam / AdamW match torch.optim step for step; bookkeeping and errors."""
import numpy as np
import pytest
from conftest import host, import_torch, shares_memory

import autogradlab as ag
import autogradlab.nn.functional as F
from autogradlab import backend, nn, optim

torch = import_torch()

CONFIGS = [
    (optim.SGD, torch.optim.SGD, dict(lr=0.1)),
    (optim.SGD, torch.optim.SGD, dict(lr=0.1, momentum=0.9)),
    (optim.SGD, torch.optim.SGD, dict(lr=0.05, momentum=0.8, dampening=0.3)),
    (optim.SGD, torch.optim.SGD, dict(lr=0.05, momentum=0.9, nesterov=True)),
    (optim.SGD, torch.optim.SGD, dict(lr=0.1, weight_decay=0.05)),
    (optim.SGD, torch.optim.SGD, dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01)),
    (optim.SGD, torch.optim.SGD, dict(lr=0.05, momentum=0.5, maximize=True)),
    (optim.Adam, torch.optim.Adam, dict(lr=0.01)),
    (optim.Adam, torch.optim.Adam, dict(lr=0.02, betas=(0.8, 0.99), eps=1e-6)),
    (optim.Adam, torch.optim.Adam, dict(lr=0.01, weight_decay=0.1)),
    (optim.Adam, torch.optim.Adam, dict(lr=0.01, amsgrad=True)),
    (optim.Adam, torch.optim.Adam, dict(lr=0.01, amsgrad=True, weight_decay=0.05)),
    (optim.AdamW, torch.optim.AdamW, dict(lr=0.01)),
    (optim.AdamW, torch.optim.AdamW, dict(lr=0.01, weight_decay=0.3, amsgrad=True)),
]


def _models(dtype):
    ag.manual_seed(0)
    ours = nn.Sequential(nn.Linear(3, 5, dtype=dtype), nn.Tanh(), nn.Linear(5, 3, dtype=dtype))
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.Tanh(), torch.nn.Linear(5, 3))
    theirs = theirs.to(getattr(torch, np.dtype(dtype).name))
    with torch.no_grad():
        for p, q in zip(ours.parameters(), theirs.parameters()):
            q.copy_(torch.from_numpy(p.detach().numpy().copy()))
    return ours, theirs


@pytest.mark.parametrize("ours_cls, theirs_cls, kwargs", CONFIGS,
                         ids=[f"{c.__name__}-{'-'.join(f'{k}={v}' for k, v in kw.items())}" for c, _, kw in CONFIGS])
@pytest.mark.parametrize("dtype, tol", [("float64", 1e-10), ("float32", 1e-5)])
def test_optimizer_matches_torch_over_20_steps(ours_cls, theirs_cls, kwargs, dtype, tol):
    ours, theirs = _models(dtype)
    opt, topt = ours_cls(ours.parameters(), **kwargs), theirs_cls(theirs.parameters(), **kwargs)
    rng = np.random.default_rng(1)
    X = rng.standard_normal((16, 3)).astype(dtype)
    y = rng.integers(0, 3, 16)
    for step in range(20):
        xb = X[(step % 4) * 4:(step % 4) * 4 + 8]  # overlapping minibatches: gradients change every step
        yb = y[(step % 4) * 4:(step % 4) * 4 + 8]
        opt.zero_grad()
        F.cross_entropy(ours(ag.tensor(xb)), ag.tensor(yb)).backward()
        opt.step()
        topt.zero_grad()
        torch.nn.functional.cross_entropy(theirs(torch.from_numpy(xb)), torch.from_numpy(yb)).backward()
        topt.step()
    for p, q in zip(ours.parameters(), theirs.parameters()):
        assert p.dtype == np.dtype(dtype)
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=tol, atol=tol)


def test_step_updates_data_in_place_records_no_graph_and_bumps_the_version():
    p = nn.Parameter(ag.tensor([1.0, -2.0]))
    data, version = p._data, p._version
    opt = optim.SGD([p], lr=0.5)
    (p * p).sum().backward()
    opt.step()
    assert p._data is data and p.tolist() == [0.0, 0.0] and p._version == version + 1
    assert p.is_leaf and p.grad_fn is None and p.requires_grad


def test_params_without_grad_are_skipped():
    a, b = nn.Parameter(ag.ones(2)), nn.Parameter(ag.ones(2))
    opt = optim.Adam([a, b], lr=0.1)
    (a * 3).sum().backward()
    opt.step()
    assert b.tolist() == [1.0, 1.0] and a.tolist() != [1.0, 1.0]
    assert b not in opt.state and a in opt.state and opt.state[a]["step"] == 1


def test_param_groups_take_their_own_options_and_defaults():
    a, b = nn.Parameter(ag.ones(1)), nn.Parameter(ag.ones(1))
    opt = optim.SGD([{"params": [a], "lr": 1.0}, {"params": [b]}], lr=0.1, momentum=0.5)
    assert [g["lr"] for g in opt.param_groups] == [1.0, 0.1]
    assert opt.param_groups[1]["momentum"] == 0.5 and opt.param_groups[0]["params"] == [a]
    (a + b).sum().backward()
    opt.step()
    assert a.item() == pytest.approx(0.0) and b.item() == pytest.approx(0.9)
    assert "Parameter Group 1" in repr(opt)


def test_zero_grad_to_none_or_in_place():
    p = nn.Parameter(ag.ones(3))
    opt = optim.SGD([p], lr=0.1)
    (p * 2).sum().backward()
    g = p.grad
    opt.zero_grad(set_to_none=False)
    assert p.grad is g and p.grad.tolist() == [0.0, 0.0, 0.0]
    opt.zero_grad()
    assert p.grad is None


def test_model_keeps_training_after_module_to_double():
    ag.manual_seed(0)
    model = nn.Linear(2, 1)
    opt = optim.SGD(model.parameters(), lr=0.1)
    model.to(ag.float64)  # parameter objects are kept, so the optimizer still holds them
    x = ag.randn(4, 2, dtype=ag.float64)
    before = model.weight.detach().numpy().copy()
    (model(x) ** 2).mean().backward()
    opt.step()
    assert model.weight.dtype == np.float64 and not np.array_equal(before, model.weight.detach().numpy())


def test_optimizer_errors():
    p = nn.Parameter(ag.ones(1))
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="Nesterov"):
        optim.SGD([p], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="learning rate"):
        optim.Adam([p], lr=-1)
    with pytest.raises(ValueError, match="beta"):
        optim.Adam([p], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="non-leaf"):
        optim.SGD([p * 2], lr=0.1)
    with pytest.raises(TypeError, match="wrap it in a list"):
        optim.SGD(p, lr=0.1)
    with pytest.raises(ValueError, match="more than one parameter group"):
        optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1)


def test_adamw_default_weight_decay_is_pytorchs():
    p = nn.Parameter(ag.ones(1))
    assert optim.AdamW([p]).param_groups[0]["weight_decay"] == 0.01
    assert optim.Adam([p]).param_groups[0]["weight_decay"] == 0


# -- state_dict / load_state_dict ----------------------------------------------------------------------------

def _train(model, opt, steps, start=0, lib=ag, functional=F, scheduler=None):
    """``steps`` steps on overlapping minibatches of a fixed data set (the same for both libraries), so the
    gradients change every step; ``scheduler.step()`` after each."""
    rng = np.random.default_rng(7)
    X = rng.standard_normal((16, 3)).astype(next(iter(model.parameters())).detach().numpy().dtype)
    y = rng.integers(0, 3, 16)
    for step in range(start, start + steps):
        xb, yb = X[(step % 4) * 4:(step % 4) * 4 + 8], y[(step % 4) * 4:(step % 4) * 4 + 8]
        opt.zero_grad()
        functional.cross_entropy(model(lib.tensor(xb)), lib.tensor(yb)).backward()
        opt.step()
        if scheduler is not None:
            scheduler.step()


@pytest.mark.parametrize("ours_cls, theirs_cls, kwargs", CONFIGS,
                         ids=[f"{c.__name__}-{'-'.join(f'{k}={v}' for k, v in kw.items())}" for c, _, kw in CONFIGS])
def test_state_dict_has_torchs_layout_and_values(ours_cls, theirs_cls, kwargs):
    ours, theirs = _models("float32")
    opt, topt = ours_cls(ours.parameters(), **kwargs), theirs_cls(theirs.parameters(), **kwargs)
    _train(ours, opt, 5)
    _train(theirs, topt, 5, lib=torch, functional=torch.nn.functional)
    sd, tsd = opt.state_dict(), topt.state_dict()
    assert list(sd) == ["state", "param_groups"] == list(tsd)
    assert len(sd["param_groups"]) == len(tsd["param_groups"])
    for group, tgroup in zip(sd["param_groups"], tsd["param_groups"]):
        assert list(group)[-1] == "params" and group["params"] == tgroup["params"]
        assert set(group) == set(tgroup)                 # (torch's switches foreach, fused, ... included)
        assert all(group[k] == tgroup[k] for k in group)
    assert list(sd["state"]) == list(tsd["state"])
    for i, values in sd["state"].items():
        assert list(values) == list(tsd["state"][i])
        for name, value in values.items():
            theirs_value = tsd["state"][i][name]
            assert value.dtype.name == str(theirs_value.dtype).removeprefix("torch.")
            assert tuple(value.shape) == tuple(theirs_value.shape)
            np.testing.assert_allclose(value.numpy(), theirs_value.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("ours_cls, kwargs", [(optim.SGD, dict(lr=0.05, momentum=0.9, nesterov=True)),
                                              (optim.Adam, dict(lr=0.01, amsgrad=True)),
                                              (optim.AdamW, dict(lr=0.01, weight_decay=0.3))])
def test_a_checkpoint_resumes_training_exactly(tmp_path, ours_cls, kwargs):
    straight, _ = _models("float32")
    opt = ours_cls(straight.parameters(), **kwargs)
    _train(straight, opt, 10)
    first, _ = _models("float32")
    opt1 = ours_cls(first.parameters(), **kwargs)
    _train(first, opt1, 5)
    ag.save({"model": first.state_dict(), "optimizer": opt1.state_dict(), "epoch": 5}, tmp_path / "ckpt.pt")
    ck = ag.load(tmp_path / "ckpt.pt")
    resumed, _ = _models("float32")
    opt2 = ours_cls(resumed.parameters(), lr=123.0)        # the saved options replace these
    resumed.load_state_dict(ck["model"])
    opt2.load_state_dict(ck["optimizer"])
    assert opt2.param_groups[0]["lr"] == kwargs["lr"]
    _train(resumed, opt2, 5, start=ck["epoch"])
    for p, q in zip(straight.parameters(), resumed.parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())


def test_load_state_dict_copies_and_casts_to_the_parameters_dtype_as_torch():
    ours32, theirs32 = _models("float32")
    opt, topt = optim.Adam(ours32.parameters()), torch.optim.Adam(theirs32.parameters())
    _train(ours32, opt, 2)
    _train(theirs32, topt, 2, lib=torch, functional=torch.nn.functional)
    ours64, theirs64 = _models("float64")
    opt64, topt64 = optim.Adam(ours64.parameters()), torch.optim.Adam(theirs64.parameters())
    opt64.load_state_dict(opt.state_dict())
    topt64.load_state_dict(topt.state_dict())
    p, tp = next(ours64.parameters()), next(theirs64.parameters())
    assert opt64.state[p]["exp_avg"].dtype.name == str(topt64.state[tp]["exp_avg"].dtype).removeprefix("torch.")
    assert opt64.state[p]["step"] == 2
    saved = opt.state_dict()
    opt.load_state_dict(saved)
    first = next(ours32.parameters())
    before = saved["state"][0]["exp_avg"].numpy().copy()
    _train(ours32, opt, 1)                                  # stepping on does not write into the saved dict
    np.testing.assert_array_equal(saved["state"][0]["exp_avg"].numpy(), before)
    assert not np.array_equal(host(opt.state[first]["exp_avg"]), before)


def _two_groups(lib, model):
    params = list(model.parameters())
    return lib.optim.SGD([{"params": params[:2]}, {"params": params[2:], "lr": 0.5}], lr=0.1, momentum=0.9)


@pytest.mark.parametrize("edit", [lambda sd: sd["param_groups"].pop(),
                                  lambda sd: sd["param_groups"][0]["params"].pop()])
def test_load_state_dict_refuses_other_groups_as_torch(edit):
    ours, theirs = _models("float32")
    opt, topt = _two_groups(ag, ours), _two_groups(torch, theirs)
    sd, tsd = opt.state_dict(), topt.state_dict()
    edit(sd)
    edit(tsd)
    with pytest.raises(ValueError):
        topt.load_state_dict(tsd)
    with pytest.raises(ValueError, match="group"):
        opt.load_state_dict(sd)


@pytest.mark.parametrize("edit, match", [
    (lambda sd: sd["state"][0].update(momentum_buffer=ag.zeros(7)), "shape"),   # torch takes these silently
    (lambda sd: sd["state"].update({9: sd["state"][0]}), "parameter 9"),
    (lambda sd: sd.pop("param_groups"), "param_groups"),
    (lambda sd: sd["param_groups"][1].pop("params"), "'params' list"),
    (lambda sd: sd["state"].update({1: None}), "not a dict"),
])
def test_load_state_dict_refuses_what_does_not_fit_and_changes_nothing(edit, match):
    ours, _ = _models("float32")
    opt = _two_groups(ag, ours)
    _train(ours, opt, 2)
    sd = opt.state_dict()
    sd["param_groups"][0]["lr"] = 0.7
    edit(sd)
    before = {id(p): {k: v.clone() for k, v in s.items()} for p, s in opt.state.items()}
    with pytest.raises(ValueError, match=match):
        opt.load_state_dict(sd)
    assert opt.param_groups[0]["lr"] == 0.1
    for p, s in opt.state.items():
        assert all(np.array_equal(host(v), host(before[id(p)][k])) for k, v in s.items())


def test_loading_a_fresh_state_dict_forgets_the_old_state_as_torch():
    ours, theirs = _models("float32")
    opt, topt = optim.Adam(ours.parameters()), torch.optim.Adam(theirs.parameters())
    _train(ours, opt, 2)
    _train(theirs, topt, 2, lib=torch, functional=torch.nn.functional)
    opt.load_state_dict(optim.Adam(_models("float32")[0].parameters()).state_dict())
    topt.load_state_dict(torch.optim.Adam(_models("float32")[1].parameters()).state_dict())
    assert len(opt.state) == len(topt.state) == 0


def test_numpy_and_integer_state_is_copied_and_cast_to_the_parameter_dtype_as_torch():
    ours, _ = _models("float32")
    opt = optim.SGD(ours.parameters(), lr=0.1, momentum=0.9)
    sd = opt.state_dict()
    shapes = [tuple(p.shape) for p in ours.parameters()]
    buffers = [np.ones(s, dtype="int64") for s in shapes]
    sd["state"] = {i: {"momentum_buffer": b} for i, b in enumerate(buffers)}
    opt.load_state_dict(sd)
    for p, b in zip(ours.parameters(), buffers):
        got = opt.state[p]["momentum_buffer"]   # (a Tensor over the buffer the steps update)
        assert got.dtype == np.float32 and not shares_memory(got._data, b)
        assert got.device == p.device == backend.device_of(got._data)   # moved to the parameter's device, as torch
    _train(ours, opt, 1)                                      # and stepping on works
