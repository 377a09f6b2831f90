"""optim: RMSprop / Adagrad / Adadelta / Adamax / NAdam / RAdam / Rprop / ASGD match torch.optim step for step,
option by option; their signatures, argument checks, param groups, schedulers, state dicts (both ways) and zero gradients as torch's."""
import inspect
import math

import numpy as np
import pytest
from conftest import host, import_torch
from test_optim import _models, _train

import autogradlab as ag
import autogradlab.nn.functional as F
from autogradlab import nn, optim

torch = import_torch()

CLASSES = [(optim.RMSprop, torch.optim.RMSprop), (optim.Adagrad, torch.optim.Adagrad),
           (optim.Adadelta, torch.optim.Adadelta), (optim.Adamax, torch.optim.Adamax),
           (optim.NAdam, torch.optim.NAdam), (optim.RAdam, torch.optim.RAdam), (optim.Rprop, torch.optim.Rprop),
           (optim.ASGD, torch.optim.ASGD)]
PAIR = {ours: theirs for ours, theirs in CLASSES}

#: every option that changes the math, alone and together
CONFIGS = [
    (optim.RMSprop, dict()),
    (optim.RMSprop, dict(lr=0.005, alpha=0.9, eps=1e-6)),
    (optim.RMSprop, dict(momentum=0.9)),
    (optim.RMSprop, dict(centered=True)),
    (optim.RMSprop, dict(centered=True, momentum=0.8)),
    (optim.RMSprop, dict(weight_decay=0.1)),
    (optim.RMSprop, dict(maximize=True)),
    (optim.RMSprop, dict(lr=0.005, alpha=0.95, momentum=0.5, centered=True, weight_decay=0.05, maximize=True)),
    (optim.Adagrad, dict()),
    (optim.Adagrad, dict(lr=0.1, lr_decay=0.05)),
    (optim.Adagrad, dict(lr=0.1, initial_accumulator_value=0.5)),
    (optim.Adagrad, dict(lr=0.1, weight_decay=0.1)),
    (optim.Adagrad, dict(lr=0.1, maximize=True)),
    (optim.Adagrad, dict(lr=0.1, eps=1e-3)),
    (optim.Adagrad, dict(lr=0.05, lr_decay=0.1, initial_accumulator_value=0.2, weight_decay=0.05, eps=1e-6,
                         maximize=True)),
    (optim.Adadelta, dict()),
    (optim.Adadelta, dict(rho=0.5)),
    (optim.Adadelta, dict(lr=0.5)),
    (optim.Adadelta, dict(weight_decay=0.1)),
    (optim.Adadelta, dict(maximize=True)),
    (optim.Adadelta, dict(eps=1e-4)),
    (optim.Adadelta, dict(lr=2.0, rho=0.95, eps=1e-5, weight_decay=0.05, maximize=True)),
    (optim.Adamax, dict()),
    (optim.Adamax, dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.05, maximize=True)),
    (optim.NAdam, dict()),
    (optim.NAdam, dict(lr=0.01, momentum_decay=0.01, weight_decay=0.05)),
    (optim.NAdam, dict(weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    (optim.RAdam, dict()),
    (optim.RAdam, dict(lr=0.01, betas=(0.8, 0.9), weight_decay=0.05)),
    (optim.RAdam, dict(weight_decay=0.1, decoupled_weight_decay=True, eps=1e-6, maximize=True)),
    (optim.Rprop, dict()),
    (optim.Rprop, dict(lr=0.05, etas=(0.3, 1.5))),
    (optim.Rprop, dict(lr=0.05, step_sizes=(1e-3, 0.06), maximize=True)),
    (optim.ASGD, dict()),
    (optim.ASGD, dict(lr=0.05, lambd=0.1, alpha=0.5)),
    (optim.ASGD, dict(lr=0.05, t0=5)),   # (averaging from step 5 on)
    (optim.ASGD, dict(lr=0.05, lambd=0.01, t0=0, weight_decay=0.1, maximize=True)),
]


def _id(cls, kwargs):
    return f"{cls.__name__}-{'-'.join(f'{k}={v}' for k, v in kwargs.items()) or 'defaults'}"


CONFIG_IDS = [_id(c, kw) for c, kw in CONFIGS]




def _train_both(ours, opt, theirs, topt, steps, **kwargs):
    _train(ours, opt, steps, **kwargs)
    _train(theirs, topt, steps, lib=torch, functional=torch.nn.functional, **kwargs)


def _assert_same_params(ours, theirs, tol):
    for p, q in zip(ours.parameters(), theirs.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=tol, atol=tol)


def _shared_options(group, tgroup):
    """Our group's options (all of them must be torch's too) with torch's values for them, side by side."""
    ours = {k: v for k, v in group.items() if k != "params"}
    assert set(ours) <= set(tgroup), f"options torch does not have: {set(ours) - set(tgroup)}"
    return ours, {k: tgroup[k] for k in ours}


# -- the updates --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("cls, kwargs", CONFIGS, ids=CONFIG_IDS)
@pytest.mark.parametrize("dtype, tol", [("float64", 1e-10), ("float32", 1e-5)])
def test_optimizer_matches_torch_over_20_steps(cls, kwargs, dtype, tol):
    ours, theirs = _models(dtype)
    opt, topt = cls(ours.parameters(), **kwargs), PAIR[cls](theirs.parameters(), **kwargs)
    _train_both(ours, opt, theirs, topt, 20)
    for p in ours.parameters():
        assert p.dtype == np.dtype(dtype)
    _assert_same_params(ours, theirs, tol)
    moved = [np.abs(p.detach().numpy() - q).max() for p, q in zip(ours.parameters(), _models(dtype)[0].parameters())
             for q in [q.detach().numpy()]]
    assert min(moved) > 1e-4      # (every parameter took real steps: the comparison is not of two idle models)


@pytest.mark.parametrize("cls, kwargs", [(optim.RMSprop, dict(lr=0.02, momentum=0.9, centered=True)),
                                         (optim.Adagrad, dict(lr=0.3, lr_decay=0.1)),
                                         (optim.Adadelta, dict(lr=3.0, rho=0.8))], ids=lambda v: str(v))
def test_a_step_lr_schedule_acts_as_in_torch(cls, kwargs):
    ours, theirs = _models("float64")
    opt, topt = cls(ours.parameters(), **kwargs), PAIR[cls](theirs.parameters(), **kwargs)
    sched = optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    tsched = torch.optim.lr_scheduler.StepLR(topt, step_size=3, gamma=0.5)
    for chunk in range(4):
        _train(ours, opt, 3, start=3 * chunk, scheduler=sched)
        _train(theirs, topt, 3, start=3 * chunk, scheduler=tsched, lib=torch, functional=torch.nn.functional)
        assert opt.param_groups[0]["lr"] == topt.param_groups[0]["lr"] == kwargs["lr"] * 0.5 ** (chunk + 1)
        _assert_same_params(ours, theirs, 1e-10)
    unscheduled, _ = _models("float64")
    _train(unscheduled, cls(unscheduled.parameters(), **kwargs), 12)
    assert not np.allclose(next(unscheduled.parameters()).detach().numpy(),
                           next(ours.parameters()).detach().numpy())   # (the schedule did change the steps)


GROUPS = {   # (the optimizer's own options, then two groups' options)
    optim.RMSprop: (dict(lr=0.01, alpha=0.9), dict(momentum=0.9, centered=True), dict(lr=0.03, weight_decay=0.1,
                                                                                     maximize=True)),
    optim.Adagrad: (dict(lr=0.1, initial_accumulator_value=0.3), dict(lr_decay=0.1, initial_accumulator_value=1.0),
                    dict(lr=0.05, eps=1e-3, weight_decay=0.1, maximize=True)),
    optim.Adadelta: (dict(rho=0.8), dict(lr=2.0, weight_decay=0.1), dict(rho=0.95, eps=1e-4, maximize=True)),
}


@pytest.mark.parametrize("cls", list(GROUPS), ids=lambda c: c.__name__)
def test_param_groups_with_their_own_options_match_torch(cls):
    ours, theirs = _models("float64")
    defaults, first, second = GROUPS[cls]
    mine, yours = list(ours.parameters()), list(theirs.parameters())
    opt = cls([dict(params=mine[:2], **first), dict(params=mine[2:], **second)], **defaults)
    topt = PAIR[cls]([dict(params=yours[:2], **first), dict(params=yours[2:], **second)], **defaults)
    for group, tgroup in zip(opt.param_groups, topt.param_groups):
        got, want = _shared_options(group, tgroup)
        assert got == want
    _train_both(ours, opt, theirs, topt, 15)
    _assert_same_params(ours, theirs, 1e-10)


def test_adagrad_starts_every_sum_at_the_optimizers_initial_accumulator_value_as_torch():
    ours, theirs = _models("float64")
    mine, yours = list(ours.parameters()), list(theirs.parameters())
    opt = optim.Adagrad([{"params": mine[:2], "initial_accumulator_value": 1.0}, {"params": mine[2:]}],
                        initial_accumulator_value=0.3)
    topt = torch.optim.Adagrad([{"params": yours[:2], "initial_accumulator_value": 1.0}, {"params": yours[2:]}],
                               initial_accumulator_value=0.3)
    assert opt.param_groups[0]["initial_accumulator_value"] == 1.0      # kept in the group, but not used:
    for p, q in zip(mine, yours):
        assert opt.state[p]["step"] == 0
        np.testing.assert_array_equal(host(opt.state[p]["sum"]), topt.state[q]["sum"].numpy())
        assert (host(opt.state[p]["sum"]) == 0.3).all()


# -- construction: signature, defaults, argument checks -----------------------------------------------------

ALL_CLASSES = CLASSES + [(optim.SGD, torch.optim.SGD), (optim.Adam, torch.optim.Adam),
                         (optim.AdamW, torch.optim.AdamW)]


@pytest.mark.parametrize("cls, theirs_cls", ALL_CLASSES, ids=[c.__name__ for c, _ in ALL_CLASSES])
def test_signature_and_defaults_are_torchs(cls, theirs_cls):
    """The same parameters, in the same order, of the same kinds (positional or keyword-only), with the same
    defaults, and the same group options: torch's performance switches (foreach, fused, ...) included."""
    ours = inspect.signature(cls.__init__).parameters
    theirs = inspect.signature(theirs_cls.__init__).parameters
    assert list(ours) == list(theirs)
    for name, param in ours.items():
        assert param.default == theirs[name].default, name
        assert param.kind is theirs[name].kind, name
    p = nn.Parameter(ag.ones(2))
    got, want = _shared_options(cls([p]).param_groups[0], theirs_cls([torch.ones(2, requires_grad=True)])
                                .param_groups[0])
    implied = {"decoupled_weight_decay"} if cls is optim.AdamW else set()   # (AdamW's group says it, as torch's)
    assert got == want and set(want) == {n for n in ours if n not in ("self", "params")} | implied


INVALID = [
    (optim.RMSprop, dict(lr=-0.01)), (optim.RMSprop, dict(lr=math.nan)), (optim.RMSprop, dict(lr="0.01")),
    (optim.RMSprop, dict(lr=None)), (optim.RMSprop, dict(eps=-1e-8)), (optim.RMSprop, dict(momentum=-0.9)),
    (optim.RMSprop, dict(weight_decay=-0.1)), (optim.RMSprop, dict(alpha=-0.5)), (optim.RMSprop, dict(alpha=math.nan)),
    (optim.Adagrad, dict(lr=-0.1)), (optim.Adagrad, dict(lr_decay=-0.01)), (optim.Adagrad, dict(weight_decay=-1)),
    (optim.Adagrad, dict(initial_accumulator_value=-0.1)), (optim.Adagrad, dict(eps=-1e-10)),
    (optim.Adagrad, dict(lr_decay=math.nan)), (optim.Adagrad, dict(eps="small")),
    (optim.Adadelta, dict(lr=-1.0)), (optim.Adadelta, dict(rho=1.01)), (optim.Adadelta, dict(rho=-0.1)),
    (optim.Adadelta, dict(rho=math.nan)), (optim.Adadelta, dict(eps=-1e-6)), (optim.Adadelta, dict(weight_decay=-0.1)),
    (optim.Adadelta, dict(rho=None)),
    (optim.Adamax, dict(lr=-0.1)), (optim.Adamax, dict(betas=(1.0, 0.9))), (optim.Adamax, dict(eps=-1.0)),
    (optim.NAdam, dict(momentum_decay=-0.1)), (optim.NAdam, dict(betas=(0.9, 1.5))),
    (optim.RAdam, dict(weight_decay=-0.1)), (optim.RAdam, dict(lr=None)),
    (optim.Rprop, dict(lr=-0.1)), (optim.Rprop, dict(etas=(1.0, 1.2))), (optim.Rprop, dict(etas=(0.5, 0.9))),
    (optim.Rprop, dict(etas=(0.0, 1.2))),
    (optim.ASGD, dict(lr=-0.1)), (optim.ASGD, dict(weight_decay=-1e-3)),
]


@pytest.mark.parametrize("cls, kwargs", INVALID, ids=[_id(c, kw) for c, kw in INVALID])
def test_invalid_arguments_raise_as_torch(cls, kwargs):
    with pytest.raises(Exception) as theirs:
        PAIR[cls]([torch.ones(2, requires_grad=True)], **kwargs)
    p = nn.Parameter(ag.ones(2))
    with pytest.raises(type(theirs.value)) as ours:
        cls([p], **kwargs)
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value).startswith(str(theirs.value))      # torch's words, then (for ours) what is allowed


ACCEPTED = [   # the edges torch lets through (some make no sense, e.g. alpha > 1: torch does not check it)
    (optim.RMSprop, dict(lr=0, eps=0, momentum=0, weight_decay=0, alpha=0)), (optim.RMSprop, dict(alpha=1.5)),
    (optim.Adagrad, dict(lr=0, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=0)),
    (optim.Adadelta, dict(lr=0, rho=0, eps=0, weight_decay=0)), (optim.Adadelta, dict(rho=1.0)),
    (optim.ASGD, dict(lr=0, lambd=-1.0, alpha=-2.0, t0=-5, weight_decay=0)),
]


@pytest.mark.parametrize("cls, kwargs", ACCEPTED, ids=[_id(c, kw) for c, kw in ACCEPTED])
def test_what_torch_accepts_is_accepted(cls, kwargs):
    topt = PAIR[cls]([torch.ones(2, requires_grad=True)], **kwargs)
    opt = cls([nn.Parameter(ag.ones(2))], **kwargs)
    got, want = _shared_options(opt.param_groups[0], topt.param_groups[0])
    assert got == want


@pytest.mark.parametrize("cls", list(PAIR), ids=lambda c: c.__name__)
def test_bad_params_raise_as_torch(cls):
    for params, ours_params in [([], []), (torch.ones(2, requires_grad=True), nn.Parameter(ag.ones(2)))]:
        with pytest.raises(Exception) as theirs:
            PAIR[cls](params)
        with pytest.raises(type(theirs.value)):
            cls(ours_params)


# -- bookkeeping --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("cls, kwargs", CONFIGS, ids=CONFIG_IDS)
def test_state_dict_has_torchs_layout_and_values(cls, kwargs):
    ours, theirs = _models("float32")
    opt, topt = cls(ours.parameters(), **kwargs), PAIR[cls](theirs.parameters(), **kwargs)
    _train_both(ours, opt, theirs, topt, 5)
    sd, tsd = opt.state_dict(), topt.state_dict()
    assert list(sd) == ["state", "param_groups"] == list(tsd)
    assert len(sd["param_groups"]) == len(tsd["param_groups"])
    for group, tgroup in zip(sd["param_groups"], tsd["param_groups"]):
        assert list(group)[-1] == "params" and group["params"] == tgroup["params"]
        got, want = _shared_options(group, tgroup)
        assert got == want
    assert list(sd["state"]) == list(tsd["state"])
    for i, values in sd["state"].items():
        assert list(values) == list(tsd["state"][i])         # the same names, in the same order
        for name, value in values.items():
            theirs_value = tsd["state"][i][name]
            assert value.dtype.name == str(theirs_value.dtype).removeprefix("torch.")
            assert tuple(value.shape) == tuple(theirs_value.shape)
            np.testing.assert_allclose(value.numpy(), theirs_value.numpy(), rtol=1e-5, atol=1e-6)


RESUMABLE = [(optim.RMSprop, dict(lr=0.01, momentum=0.9, centered=True)),
             (optim.Adagrad, dict(lr=0.1, lr_decay=0.05, initial_accumulator_value=0.1)),
             (optim.Adadelta, dict(lr=0.5, rho=0.8, weight_decay=0.01)),
             (optim.Adamax, dict(lr=0.01)), (optim.NAdam, dict(lr=0.01)), (optim.RAdam, dict(lr=0.01))]


@pytest.mark.parametrize("cls, kwargs", RESUMABLE, ids=[_id(c, kw) for c, kw in RESUMABLE])
def test_a_checkpoint_resumes_training_exactly(tmp_path, cls, kwargs):
    straight, _ = _models("float32")
    _train(straight, cls(straight.parameters(), **kwargs), 10)
    first, _ = _models("float32")
    opt1 = cls(first.parameters(), **kwargs)
    _train(first, opt1, 5)
    ag.save({"model": first.state_dict(), "optimizer": opt1.state_dict()}, tmp_path / "ckpt.pt")
    ck = ag.load(tmp_path / "ckpt.pt")
    resumed, _ = _models("float32")
    opt2 = cls(resumed.parameters(), lr=123.0)                # the saved options replace these
    resumed.load_state_dict(ck["model"])
    opt2.load_state_dict(ck["optimizer"])
    assert {k: opt2.param_groups[0][k] for k in kwargs} == kwargs
    assert all(s["step"] == 5 for s in opt2.state.values())
    _train(resumed, opt2, 5, start=5)
    for p, q in zip(straight.parameters(), resumed.parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())
    restarted, _ = _models("float32")   # (what the state carries matters: a fresh optimizer goes elsewhere)
    restarted.load_state_dict(ck["model"])
    _train(restarted, cls(restarted.parameters(), **kwargs), 5, start=5)
    assert not np.allclose(next(restarted.parameters()).detach().numpy(),
                           next(straight.parameters()).detach().numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("cls, kwargs", RESUMABLE, ids=[_id(c, kw) for c, kw in RESUMABLE])
def test_torchs_state_dict_loads_here_and_training_goes_on_as_in_torch(cls, kwargs):
    ours, theirs = _models("float64")
    topt = PAIR[cls](theirs.parameters(), **kwargs)
    _train(theirs, topt, 5, lib=torch, functional=torch.nn.functional)
    ours.load_state_dict({k: ag.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    tsd = topt.state_dict()
    opt = cls(ours.parameters(), lr=123.0)
    opt.load_state_dict({"state": {i: {k: ag.tensor(v.numpy()) for k, v in s.items()} for i, s in tsd["state"].items()},
                         "param_groups": tsd["param_groups"]})
    assert all(s["step"] == 5 for s in opt.state.values())
    _train(ours, opt, 5, start=5)
    _train(theirs, topt, 5, start=5, lib=torch, functional=torch.nn.functional)
    _assert_same_params(ours, theirs, 1e-10)


ZERO_GRAD = [(optim.RMSprop, dict(momentum=0.9, centered=True)), (optim.Adagrad, dict(lr=0.1, lr_decay=0.5)),
             (optim.Adadelta, dict(lr=1.0)), (optim.Adamax, dict()), (optim.NAdam, dict()), (optim.RAdam, dict())]


@pytest.mark.parametrize("cls, kwargs", ZERO_GRAD, ids=[_id(c, kw) for c, kw in ZERO_GRAD])
def test_a_zero_gradient_still_steps_and_a_none_gradient_skips_as_torch(cls, kwargs):
    ours, theirs = _models("float64")
    opt, topt = cls(ours.parameters(), **kwargs), PAIR[cls](theirs.parameters(), **kwargs)
    _train_both(ours, opt, theirs, topt, 3)
    opt.zero_grad(set_to_none=False)
    topt.zero_grad(set_to_none=False)
    assert all(host(p.grad._data).tolist() == np.zeros(p.shape).tolist() for p in ours.parameters())
    opt.step()
    topt.step()                     # counts a step: momentum moves on, averages decay, Adagrad's lr decays
    assert [s["step"] for s in opt.state.values()] == [4] * 4 == [s["step"].item() for s in topt.state.values()]
    _assert_same_params(ours, theirs, 1e-10)
    opt.zero_grad()
    topt.zero_grad()
    assert all(p.grad is None for p in ours.parameters())
    before = [p.detach().numpy().copy() for p in ours.parameters()]
    opt.step()
    topt.step()                     # skips every parameter: nothing moves, nothing is counted
    assert [s["step"] for s in opt.state.values()] == [4] * 4
    for p, b in zip(ours.parameters(), before):
        np.testing.assert_array_equal(p.detach().numpy(), b)
    _train(ours, opt, 3, start=3)
    _train(theirs, topt, 3, start=3, lib=torch, functional=torch.nn.functional)
    _assert_same_params(ours, theirs, 1e-10)


@pytest.mark.parametrize("cls, kwargs", [(c, kw) for c, kw in CONFIGS if kw == {}], ids=lambda v: str(v))
def test_params_without_grad_are_skipped_as_torch(cls, kwargs):
    ours, theirs = _models("float32")
    extra, textra = nn.Parameter(ag.ones(3)), torch.ones(3, requires_grad=True)   # never in the loss
    opt = cls([extra, *ours.parameters()], **kwargs)
    topt = PAIR[cls]([textra, *theirs.parameters()], **kwargs)
    _train_both(ours, opt, theirs, topt, 4)
    assert extra.tolist() == [1.0, 1.0, 1.0] and extra.grad is None
    _assert_same_params(ours, theirs, 1e-5)
    sd, tsd = opt.state_dict(), topt.state_dict()
    assert list(sd["state"]) == list(tsd["state"])              # Adagrad alone keeps a state for it, at step 0
    assert (0 in sd["state"]) == (cls is optim.Adagrad)
    if cls is optim.Adagrad:
        assert sd["state"][0]["step"].item() == 0 == tsd["state"][0]["step"].item()
        np.testing.assert_array_equal(sd["state"][0]["sum"].numpy(), tsd["state"][0]["sum"].numpy())


@pytest.mark.parametrize("cls", list(PAIR), ids=lambda c: c.__name__)
def test_step_updates_data_in_place_records_no_graph_bumps_the_version_and_returns_the_closures_loss(cls):
    p = nn.Parameter(ag.tensor([1.0, -2.0]))
    data, version = p._data, p._version
    opt = cls([p], lr=0.5)

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert loss.item() == 5.0
    assert p._data is data and p._version == version + 1 and p.tolist() != [1.0, -2.0]
    assert p.is_leaf and p.grad_fn is None and p.requires_grad
    assert opt.state[p]["step"] == 1
