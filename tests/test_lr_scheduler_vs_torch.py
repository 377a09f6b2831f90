"""optim.lr_scheduler against torch.optim.lr_scheduler: the learning rate of every param group after each of 40
epochs (exactly equal floats), schedulers chained on one optimizer, SequentialLR, OneCycleLR and CyclicLR (with the
momentum or beta1 they cycle), ReduceLROnPlateau on a metric sequence, the
warning for calling the scheduler before the optimizer, resuming through state_dict and a saved checkpoint, and
the errors."""
from __future__ import annotations

import copy
import math
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
    "MultiplicativeLR": lambda m, o: m.MultiplicativeLR(o, lambda epoch: 0.9 if epoch < 5 else 0.97),
    "MultiplicativeLR-per-group": lambda m, o: m.MultiplicativeLR(o, [lambda e: 0.95, lambda e: 1 + (e % 3 == 0)]),
    "LinearLR": lambda m, o: m.LinearLR(o, start_factor=0.25, total_iters=8),
    "LinearLR-decay": lambda m, o: m.LinearLR(o, start_factor=1.0, end_factor=0.1, total_iters=20),
    "CosineAnnealingLR": lambda m, o: m.CosineAnnealingLR(o, T_max=10),
    "CosineAnnealingLR-eta_min": lambda m, o: m.CosineAnnealingLR(o, T_max=7, eta_min=0.001),
    "warm-up then cosine (chained)": lambda m, o: (m.LinearLR(o, 0.1, total_iters=5), m.CosineAnnealingLR(o, 30)),
    "step and exponential (chained)": lambda m, o: (m.StepLR(o, 4, 0.5), m.ExponentialLR(o, 0.95)),
    "SequentialLR warm-up then cosine": lambda m, o: m.SequentialLR(
        o, [m.LinearLR(o, 0.1, total_iters=5), m.CosineAnnealingLR(o, 20, eta_min=0.001)], milestones=[5]),
    "SequentialLR of three": lambda m, o: m.SequentialLR(
        o, [m.ExponentialLR(o, 0.9), m.StepLR(o, 3, 0.5), m.LambdaLR(o, lambda e: 1 / (1 + e))], milestones=[4, 15]),
    "SequentialLR restarts LinearLR and MultiStepLR": lambda m, o: m.SequentialLR(
        o, [m.MultiStepLR(o, [2, 3], 0.5), m.LinearLR(o, 0.5, total_iters=3), m.MultiStepLR(o, [1, 6], 0.3)],
        milestones=[6, 12]),
    "OneCycleLR": lambda m, o: m.OneCycleLR(o, max_lr=[0.5, 0.2], total_steps=40),
    "OneCycleLR linear, three phases": lambda m, o: m.OneCycleLR(o, 1.0, epochs=8, steps_per_epoch=5, pct_start=0.25,
                                                                 anneal_strategy="linear", three_phase=True),
    "OneCycleLR without momentum": lambda m, o: m.OneCycleLR(o, 0.3, total_steps=45, cycle_momentum=False,
                                                             div_factor=10.0, final_div_factor=100.0),
    "ConstantLR": lambda m, o: m.ConstantLR(o, factor=0.25, total_iters=6),
    "PolynomialLR": lambda m, o: m.PolynomialLR(o, total_iters=30, power=2.0),
    "PolynomialLR-linear": lambda m, o: m.PolynomialLR(o, total_iters=12),
    "CosineAnnealingWarmRestarts": lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=5, eta_min=0.001),
    "CosineAnnealingWarmRestarts-T_mult": lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2),
    "ChainedScheduler": lambda m, o: m.ChainedScheduler([m.ConstantLR(o, 0.1, total_iters=4),
                                                         m.ExponentialLR(o, 0.9)]),
    "SequentialLR of ConstantLR and PolynomialLR": lambda m, o: m.SequentialLR(
        o, [m.ConstantLR(o, 0.5, total_iters=3), m.PolynomialLR(o, total_iters=20, power=0.5)], milestones=[6]),
    "CyclicLR triangular": lambda m, o: m.CyclicLR(o, 0.01, [0.1, 0.2], step_size_up=4),
    "CyclicLR triangular2": lambda m, o: m.CyclicLR(o, [0.01, 0.02], 0.1, 3, 5, mode="triangular2"),
    "CyclicLR exp_range": lambda m, o: m.CyclicLR(o, 0.001, 0.1, step_size_up=5, mode="exp_range", gamma=0.97),
    "CyclicLR scale_fn": lambda m, o: m.CyclicLR(o, 0.01, 0.1, step_size_up=3, scale_mode="iterations",
                                                 scale_fn=lambda x: 0.5 * (1 + math.sin(x * math.pi / 2))),
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


@pytest.mark.parametrize("name", ["StepLR", "MultiStepLR", "CosineAnnealingLR", "warm-up then cosine (chained)",
                                  "SequentialLR warm-up then cosine", "SequentialLR of three", "OneCycleLR",
                                  "CyclicLR triangular2", "CosineAnnealingWarmRestarts-T_mult", "ChainedScheduler"])
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
    lambda m, o: m.MultiplicativeLR(o, [lambda e: 1.0]),
    lambda m, o: m.MultiplicativeLR(o, 0.5),
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


@pytest.mark.parametrize("name", [n for n in SCHEDULES if n.startswith(("OneCycleLR", "CyclicLR"))])
@pytest.mark.parametrize("kind", ["SGD", "Adam"])
def test_cyclic_schedules_move_momentum_or_beta1_as_torch(name, kind):
    def run(lib):
        opt = _optimizer(lib, kind)
        sched = SCHEDULES[name](lib.optim.lr_scheduler, opt)
        seen = []
        for _ in range(40):
            seen.append([(g["lr"], g.get("momentum"), tuple(g.get("betas", ()))) for g in opt.param_groups])
            opt.step()
            sched.step()
        keys = {"initial_lr", "max_lr", "min_lr", "max_momentum", "base_momentum"}
        return seen, sorted(keys & set(opt.param_groups[0]))
    assert run(ag) == run(torch)


def test_one_cycle_refuses_a_step_past_its_total_as_torch():
    for lib in (ag, torch):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.OneCycleLR(opt, 0.1, total_steps=3)
        for _ in range(3):
            opt.step()
            sched.step()
        with pytest.raises(ValueError, match="Tried to step 4 times"):
            sched.step()
        assert sched.last_epoch == 3 or lib is torch      # here the failed step takes no epoch


@pytest.mark.parametrize("call", [
    lambda m, o: m.OneCycleLR(o, 0.1),
    lambda m, o: m.OneCycleLR(o, 0.1, total_steps=0),
    lambda m, o: m.OneCycleLR(o, 0.1, epochs=2),
    lambda m, o: m.OneCycleLR(o, 0.1, epochs=2.0, steps_per_epoch=3),
    lambda m, o: m.OneCycleLR(o, 0.1, total_steps=10, pct_start=1),
    lambda m, o: m.OneCycleLR(o, 0.1, total_steps=10, pct_start=1.5),
    lambda m, o: m.OneCycleLR(o, 0.1, total_steps=10, anneal_strategy="exp"),
    lambda m, o: m.OneCycleLR(o, [0.1, 0.2, 0.3], total_steps=10),
    lambda m, o: m.CyclicLR(o, 0.01, 0.1, mode="sine"),
    lambda m, o: m.CyclicLR(o, [0.01], 0.1),
    lambda m, o: m.CyclicLR(o, 0.01, [0.1, 0.2], base_momentum=[0.8]),
])
def test_cyclic_schedulers_refuse_bad_arguments_as_torch_and_change_nothing(call):
    with pytest.raises(Exception) as caught:   # noqa: PT011  (whatever torch raises, ours must raise the same)
        call(torch.optim.lr_scheduler, _optimizer(torch))
    opt = _optimizer(ag)
    before = [dict(g) for g in opt.param_groups]
    with pytest.raises(caught.type):
        call(optim.lr_scheduler, opt)
    assert [dict(g) for g in opt.param_groups] == before


@pytest.mark.parametrize("call", [
    lambda m, o, other: m.SequentialLR(o, [], milestones=[]),
    lambda m, o, other: m.SequentialLR(o, [m.StepLR(o, 2), m.StepLR(o, 3)], milestones=[]),
    lambda m, o, other: m.SequentialLR(o, [m.StepLR(o, 2), m.ReduceLROnPlateau(o)], milestones=[3]),
    lambda m, o, other: m.SequentialLR(o, [m.StepLR(o, 2), m.StepLR(other, 3)], milestones=[3]),
    lambda m, o, other: m.SequentialLR(o, [m.StepLR(o, 2), o], milestones=[3]),
])
def test_sequential_lr_refuses_bad_arguments_as_torch(call):
    with pytest.raises(Exception) as caught:   # noqa: PT011  (whatever torch raises, ours must raise the same)
        call(torch.optim.lr_scheduler, _optimizer(torch), _optimizer(torch))
    with pytest.raises(caught.type):
        call(optim.lr_scheduler, _optimizer(ag), _optimizer(ag))


@pytest.mark.filterwarnings("ignore:Detected call of `lr_scheduler.step()` before `optimizer.step()`")
def test_a_sequential_lr_after_a_milestone_inside_another_is_refused_when_built():
    """torch builds it and raises NotImplementedError at the milestone where it would have to restart it."""
    def build(m, o):
        inner = m.SequentialLR(o, [m.ExponentialLR(o, 0.8), m.StepLR(o, 2)], [7])
        return m.SequentialLR(o, [m.LinearLR(o, 0.2, total_iters=4), inner], milestones=[4])
    opt = _optimizer(torch)
    sched = build(torch.optim.lr_scheduler, opt)
    with pytest.raises(NotImplementedError):
        for _ in range(4):
            opt.step()
            sched.step()
    with pytest.raises(ValueError, match="cannot start again"):
        build(optim.lr_scheduler, _optimizer(ag))
    def first(m, o):
        inner = m.SequentialLR(o, [m.ExponentialLR(o, 0.8), m.StepLR(o, 2)], [7])
        return m.SequentialLR(o, [inner, m.LinearLR(o, 0.2, total_iters=4)], milestones=[12])
    assert _lrs(ag, first) == _lrs(torch, first)      # nested first: never restarted, fine in both


def test_fit_steps_one_cycle_after_every_batch():
    from autogradlab.training import fit
    ag.manual_seed(0)
    X, y = ag.data.make_moons(n=64, noise=0.1, seed=0)
    model = ag.nn.MLP([2, 8, 2])
    opt = ag.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = ag.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.5, epochs=3, steps_per_epoch=4)
    history = fit(model, X, y, "cross_entropy", opt, epochs=3, batch_size=16, seed=0, progress=False, scheduler=sched)
    assert sched.last_epoch == 12                  # 4 batches x 3 epochs, no step past total_steps
    assert len(history["lr"]) == 3 and history["lr"][0] == pytest.approx(0.5 / 25)


def test_a_sequential_step_that_fails_takes_no_epoch_in_it_nor_in_its_scheduler():
    opt = _optimizer(ag)
    m = optim.lr_scheduler
    seq = m.SequentialLR(opt, [m.LambdaLR(opt, lambda e: 1 / (2 - e)), m.ExponentialLR(opt, 0.5)], [4])
    opt.step()
    seq.step()
    lrs = [g["lr"] for g in opt.param_groups]
    with pytest.raises(ZeroDivisionError):
        seq.step()
    assert (seq.last_epoch, seq._schedulers[0].last_epoch) == (1, 1)
    assert [g["lr"] for g in opt.param_groups] == lrs


@pytest.mark.parametrize("kind", ["SGD", "Adam"])
def test_cyclic_state_dicts_hold_torchs_keys(kind):
    for build in (lambda m, o: m.OneCycleLR(o, 0.1, total_steps=10), lambda m, o: m.CyclicLR(o, 0.01, 0.1)):
        ours = build(optim.lr_scheduler, _optimizer(ag, kind)).state_dict()
        theirs = build(torch.optim.lr_scheduler, _optimizer(torch, kind)).state_dict()
        public = {k for k in theirs if not k.startswith("_")}
        assert public <= set(ours)
        assert ours["use_beta1"] is theirs["use_beta1"] is (kind == "Adam")


@pytest.mark.parametrize("T_mult", [1, 2, 3])
def test_warm_restarts_stepped_with_fractional_epochs_as_torch(T_mult):
    """PyTorch's documented use: scheduler.step(epoch + i / iters) after each batch."""
    def run(lib):
        opt = _optimizer(lib)
        sched = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=T_mult, eta_min=0.01)
        seen = []
        for epoch in range(12):
            for i in range(4):
                opt.step()
                sched.step(epoch + i / 4)
                seen.append([g["lr"] for g in opt.param_groups])
        return seen, sched.last_epoch
    assert run(ag) == run(torch)
    for lib in (ag, torch):
        with pytest.raises(ValueError, match="non-negative epoch"):
            lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(_optimizer(lib), 2).step(-1)


@pytest.mark.parametrize("call", [
    lambda m, o: m.ConstantLR(o, factor=1.5),
    lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=0),
    lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=2.0),
    lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0),
    lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=2, eta_min="0"),
    lambda m, o: m.ChainedScheduler([]),
    lambda m, o: m.ChainedScheduler([m.StepLR(o, 2), m.ReduceLROnPlateau(o)]),
])
def test_more_schedulers_refuse_bad_arguments_as_torch(call):
    with pytest.raises(Exception) as caught:   # noqa: PT011  (whatever torch raises, ours must raise the same)
        call(torch.optim.lr_scheduler, _optimizer(torch))
    with pytest.raises(caught.type):
        call(optim.lr_scheduler, _optimizer(ag))


@pytest.mark.filterwarnings("ignore:Detected call of `lr_scheduler.step()` before `optimizer.step()`")
def test_a_chained_scheduler_after_a_milestone_is_refused_when_built():
    def build(m, o):
        chained = m.ChainedScheduler([m.StepLR(o, 2), m.ExponentialLR(o, 0.9)])
        return m.SequentialLR(o, [m.ExponentialLR(o, 0.8), chained], [6])
    opt = _optimizer(torch)
    sched = build(torch.optim.lr_scheduler, opt)
    with pytest.raises(NotImplementedError):          # torch: at the milestone
        for _ in range(6):
            opt.step()
            sched.step()
    with pytest.raises(ValueError, match="cannot start again"):
        build(optim.lr_scheduler, _optimizer(ag))


def test_warm_restarts_argument_classes_and_a_group_added_later_as_the_other_schedulers():
    for bad in ({"T_0": None}, {"T_0": "3"}, {"T_0": 2, "T_mult": None}):
        both = []
        for lib in (torch, ag):
            with pytest.raises(Exception) as caught:   # noqa: PT011
                lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(_optimizer(lib), **bad)
            both.append(caught.type)
        assert both[0] is both[1]
    opt = _optimizer(ag)
    sched = optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, 3)
    opt.add_param_group({"params": [ag.zeros(1, requires_grad=True)]})
    before = ([dict(g) for g in opt.param_groups], sched.last_epoch, sched.T_cur)
    with pytest.raises(ValueError, match="build the scheduler after add_param_group"):
        sched.step()
    assert ([dict(g) for g in opt.param_groups], sched.last_epoch, sched.T_cur) == before
