"""optim: SGD / Adam / AdamW match torch.optim step for step; bookkeeping and errors."""
import numpy as np
import pytest
from conftest import import_torch

import autogradlab as ag
import autogradlab.nn.functional as F
from autogradlab import nn, optim

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
    data, version = p.data, p._version
    opt = optim.SGD([p], lr=0.5)
    (p * p).sum().backward()
    opt.step()
    assert p.data is data and p.tolist() == [0.0, 0.0] and p._version == version + 1
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
