"""optim.lr_scheduler against torch.optim.lr_scheduler: the learning rate of every param group after each of 40
epochs (exactly equal floats), schedulers chained on one optimizer, ReduceLROnPlateau on a metric sequence, the
warning for calling the scheduler before the optimizer, resuming through state_dict and a saved checkpoint, and
the errors."""
from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pytest
from conftest import import_torch

import autogradlab as ag
from autogradlab import optim

torch = import_torch()


def _optimizer(lib, kind="SGD"):
    """Two param groups with their own lr, each parameter with a gradient so that step() runs."""
    a, b = lib.zeros(2, requires_grad=True), lib.zeros(3, requires_grad=True)
    a.grad, b.grad = lib.ones(2), lib.ones(3)
    groups = [{"params": [a]}, {"params": [b], "lr": 0.05}]
    return getattr(lib.optim, kind)(groups, lr=0.1, **({"momentum": 0.9} if kind == "SGD" else {}))


def _lrs(lib, build, epochs=40, metrics=None):
    """The learning rates after building and after each epoch (optimizer.step(), then scheduler.step())."""
    opt = _optimizer(lib)
    schedulers = build(lib.optim.lr_scheduler, opt)
    schedulers = schedulers if isinstance(schedulers, tuple) else (schedulers,)
    seen = [[g["lr"] for g in opt.param_groups]]
    for epoch in range(epochs):
        opt.step()
        for s in schedulers:
            s.step(metrics[epoch]) if metrics is not None else s.step()
        seen.append([g["lr"] for g in opt.param_groups])
        assert schedulers[-1].get_last_lr() == seen[-1]
    return seen


SCHEDULES = {
    "StepLR": lambda m, o: m.StepLR(o, step_size=7, gamma=0.5),
    "StepLR-default-gamma": lambda m, o: m.StepLR(o, 3),
    "MultiStepLR": lambda m, o: m.MultiStepLR(o, milestones=[5, 12, 12, 30], gamma=0.3),
    "ExponentialLR": lambda m, o: m.ExponentialLR(o, gamma=0.93),
    "LambdaLR": lambda m, o: m.LambdaLR(o, lambda epoch: 1.0 / (1 + epoch)),
    "LambdaLR-per-group": lambda m, o: m.LambdaLR(o, [lambda e: 0.9 ** e, lambda e: 1 + e % 3]),
    "LinearLR": lambda m, o: m.LinearLR(o, start_factor=0.25, total_iters=8),
    "LinearLR-decay": lambda m, o: m.LinearLR(o, start_factor=1.0, end_factor=0.1, total_iters=20),
    "CosineAnnealingLR": lambda m, o: m.CosineAnnealingLR(o, T_max=10),
    "CosineAnnealingLR-eta_min": lambda m, o: m.CosineAnnealingLR(o, T_max=7, eta_min=0.001),
    "warm-up then cosine (chained)": lambda m, o: (m.LinearLR(o, 0.1, total_iters=5), m.CosineAnnealingLR(o, 30)),
    "step and exponential (chained)": lambda m, o: (m.StepLR(o, 4, 0.5), m.ExponentialLR(o, 0.95)),
}


@pytest.mark.parametrize("name", list(SCHEDULES))
def test_learning_rates_match_torch_exactly_for_40_epochs(name):
    assert _lrs(ag, SCHEDULES[name]) == _lrs(torch, SCHEDULES[name])


@pytest.mark.parametrize("kwargs", [{}, {"mode": "max"}, {"patience": 2, "factor": 0.5, "cooldown": 3},
                                    {"threshold_mode": "abs", "threshold": 0.05, "patience": 1},
                                    {"min_lr": [0.02, 0.001], "patience": 0}, {"min_lr": 0.03, "patience": 1}])
def test_reduce_on_plateau_matches_torch(kwargs):
    rng = np.random.default_rng(0)
    metrics = list(np.concatenate([np.linspace(1.0, 0.5, 8), 0.5 + 0.02 * rng.standard_normal(32)]))
    build = lambda m, o: m.ReduceLROnPlateau(o, **kwargs)   # noqa: E731
    assert _lrs(ag, build, metrics=metrics) == _lrs(torch, build, metrics=metrics)


def test_a_manual_change_of_lr_carries_on_as_in_torch():
    def run(lib):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, 2, 0.5)
        out = []
        for epoch in range(6):
            opt.step()
            sched.step()
            if epoch == 2:
                opt.param_groups[0]["lr"] = 1.0
            out.append(sched.get_last_lr())
        return out
    assert run(ag) == run(torch)


def test_stepping_the_scheduler_first_warns_as_torch():
    for lib in (torch, ag):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, 2)
        with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
            sched.step()
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.StepLR(opt, 2)
        opt.step()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            sched.step()


@pytest.mark.parametrize("name", ["StepLR", "MultiStepLR", "CosineAnnealingLR", "warm-up then cosine (chained)"])
def test_a_checkpoint_resumes_the_schedule_exactly(tmp_path, name):
    straight = _lrs(ag, SCHEDULES[name], epochs=30)
    opt = _optimizer(ag)
    scheds = SCHEDULES[name](optim.lr_scheduler, opt)
    scheds = scheds if isinstance(scheds, tuple) else (scheds,)
    for _ in range(12):
        opt.step()
        for s in scheds:
            s.step()
    ag.save({"optimizer": opt.state_dict(), "schedulers": [s.state_dict() for s in scheds]}, tmp_path / "ck.pt")
    ck = ag.load(tmp_path / "ck.pt")
    opt2 = _optimizer(ag)
    scheds2 = SCHEDULES[name](optim.lr_scheduler, opt2)      # built first (it writes lr), then loaded
    scheds2 = scheds2 if isinstance(scheds2, tuple) else (scheds2,)
    opt2.load_state_dict(ck["optimizer"])
    for s, state in zip(scheds2, ck["schedulers"]):
        s.load_state_dict(state)
    resumed = [[g["lr"] for g in opt2.param_groups]]
    for _ in range(18):
        opt2.step()
        for s in scheds2:
            s.step()
        resumed.append([g["lr"] for g in opt2.param_groups])
    assert resumed == straight[12:]


def test_state_dict_holds_what_torchs_holds():
    ours = optim.lr_scheduler.StepLR(_optimizer(ag), 3, 0.5)
    theirs = torch.optim.lr_scheduler.StepLR(_optimizer(torch), 3, 0.5)
    public = {k for k in theirs.state_dict() if not k.startswith("_")} | {"_step_count", "_last_lr"}
    assert public <= set(ours.state_dict())
    assert all(ours.state_dict()[k] == theirs.state_dict()[k] for k in public)
    lam = optim.lr_scheduler.LambdaLR(_optimizer(ag), lambda e: 1.0)
    assert lam.state_dict()["lr_lambdas"] == [None, None]      # functions are not saved, as in torch


def test_resuming_with_last_epoch_matches_torch():
    def run(lib):
        opt = _optimizer(lib)
        for g in opt.param_groups:
            g["initial_lr"] = g["lr"]
        sched = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10, last_epoch=4)
        out = [sched.get_last_lr()]
        for _ in range(8):
            opt.step()
            sched.step()
            out.append(sched.get_last_lr())
        return out
    assert run(ag) == run(torch)


@pytest.mark.parametrize("call", [
    lambda m, o: m.LinearLR(o, start_factor=0.0),
    lambda m, o: m.LinearLR(o, end_factor=1.5),
    lambda m, o: m.LambdaLR(o, [lambda e: 1.0]),
    lambda m, o: m.ReduceLROnPlateau(o, factor=1.0),
    lambda m, o: m.ReduceLROnPlateau(o, mode="up"),
    lambda m, o: m.ReduceLROnPlateau(o, threshold_mode="percent"),
    lambda m, o: m.ReduceLROnPlateau(o, min_lr=[0.1]),
    lambda m, o: m.StepLR(o, 2, last_epoch=3),
    lambda m, o: m.StepLR(o.param_groups, 2),
    lambda m, o: m.LambdaLR(o, 0.5),
    lambda m, o: m.LambdaLR(o, [lambda e: 1.0, lambda e: 1 / e]),    # fails at epoch 0
])
def test_errors_as_in_torch(call):
    with pytest.raises(Exception) as caught:   # noqa: PT011  (whatever torch raises, ours must raise the same)
        call(torch.optim.lr_scheduler, _optimizer(torch))
    opt = _optimizer(ag)
    before = [dict(g) for g in opt.param_groups]
    with pytest.raises(caught.type):
        call(optim.lr_scheduler, opt)
    assert [dict(g) for g in opt.param_groups] == before          # nothing written before the error


@pytest.mark.parametrize("call", [lambda m, o: m.StepLR(o, 0), lambda m, o: m.CosineAnnealingLR(o, T_max=0)])
def test_a_schedule_that_would_divide_by_zero_is_refused_when_built(call):
    opt = _optimizer(torch)
    sched = call(torch.optim.lr_scheduler, opt)                    # torch: built, and then at the first step
    opt.step()
    with pytest.raises(ZeroDivisionError):
        sched.step()
    with pytest.raises(ValueError, match="must be positive"):
        call(optim.lr_scheduler, _optimizer(ag))


def test_periods_may_be_floats_as_in_torch():
    build = lambda m, o: (m.StepLR(o, step_size=2.0), m.CosineAnnealingLR(o, T_max=10.0))   # noqa: E731
    assert _lrs(ag, build, epochs=25) == _lrs(torch, build, epochs=25)


def test_a_param_group_added_after_the_scheduler_is_refused_at_the_next_step():
    for lib, kind in ((torch, ValueError), (ag, ValueError)):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.LambdaLR(opt, lambda e: 0.5)
        c = lib.zeros(1, requires_grad=True)
        opt.add_param_group({"params": [c], "lr": 1.0})
        opt.step()
        with pytest.raises(kind):
            sched.step()
    assert opt.param_groups[2]["lr"] == 1.0 and opt.param_groups[0]["lr"] == 0.05   # (ours: nothing written)


def test_a_copied_or_pickled_optimizer_steps_its_own_parameters():
    for lib in (torch, ag):
        opt = _optimizer(lib)
        lib.optim.lr_scheduler.StepLR(opt, 2)
        twin = copy.deepcopy(opt)
        twin.step()
        original = opt.param_groups[0]["params"][0]
        assert not original.detach().numpy().any()                   # the copy did not move the original
        assert twin.param_groups[0]["params"][0].detach().numpy().all()
        pickle.loads(pickle.dumps(opt)).step()
        sched = lib.optim.lr_scheduler.StepLR(twin, 2)               # a copy remembers no step of the original
        with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
            sched.step()


def test_reduce_on_plateau_state_dict_holds_torchs_keys_and_round_trips(tmp_path):
    ours = optim.lr_scheduler.ReduceLROnPlateau(_optimizer(ag), mode="max", patience=1)
    theirs = torch.optim.lr_scheduler.ReduceLROnPlateau(_optimizer(torch), mode="max", patience=1)
    for metric in (0.5, 0.4, 0.4, 0.6):
        ours.step(metric)
        theirs.step(metric)
    assert set(ours.state_dict()) == set(theirs.state_dict()) - {"optimizer"}
    assert all(ours.state_dict()[k] == v for k, v in theirs.state_dict().items())
    ag.save(ours.state_dict(), tmp_path / "s.pt")
    fresh = optim.lr_scheduler.ReduceLROnPlateau(_optimizer(ag), mode="max", patience=1)
    fresh.load_state_dict(ag.load(tmp_path / "s.pt"))
    assert fresh.state_dict() == ours.state_dict()


class _Warmup:
    def __init__(self, k):
        self.k = k

    def __call__(self, epoch):
        return min(1.0, (epoch + 1) / self.k)


def test_lambda_objects_keep_their_attributes_through_state_dict_as_torch():
    for lib in (torch, ag):
        sched = lib.optim.lr_scheduler.LambdaLR(_optimizer(lib), [_Warmup(4), lambda e: 1.0])
        state = sched.state_dict()
        assert state["lr_lambdas"] == [{"k": 4}, None]
        other = lib.optim.lr_scheduler.LambdaLR(_optimizer(lib), [_Warmup(100), lambda e: 1.0])
        other.load_state_dict(state)
        assert other.lr_lambdas[0].k == 4


def test_a_step_whose_schedule_fails_takes_no_epoch():
    opt = _optimizer(ag)
    sched = optim.lr_scheduler.LambdaLR(opt, lambda e: 1.0 / (2 - e))    # fails at epoch 2
    opt.step()
    sched.step()
    before = (sched.last_epoch, sched.get_last_lr(), [g["lr"] for g in opt.param_groups])
    with pytest.raises(ZeroDivisionError):
        sched.step()
    assert (sched.last_epoch, sched.get_last_lr(), [g["lr"] for g in opt.param_groups]) == before
