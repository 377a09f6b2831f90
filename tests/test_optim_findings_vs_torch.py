"""What a round of differential fuzzing of optimizers, schedulers and ``save``/``load`` against torch 2.13 found
wrong, each fixed and checked side by side: SGD's momentum and Rprop on a 0-d parameter, NAdam's rounded
momentum product, Adam's NaN hyperparameters, and the state of an optimizer written as for torch (a plain dict:
what it stores comes back as it is)."""
import math

import numpy as np
import pytest
from conftest import import_torch
from torch_compare import both_raise, same_results

import autogradlab as ag

torch = import_torch()


def _trained(T, make, steps=6, shape=(), dtype=None):
    """A parameter of ``shape`` after ``steps`` steps of ``make(T, [p])`` on a fixed sequence of gradients."""
    dtype = T.float64 if dtype is None else dtype
    p = T.tensor(np.linspace(0.5, 1.5, int(np.prod(shape))).reshape(shape), dtype=dtype, requires_grad=True)
    opt = make(T, [p])
    for i in range(steps):
        p.grad = T.tensor(np.cos(np.arange(p.numel()) + i).reshape(shape), dtype=dtype)
        opt.step()
    return p.detach().numpy()


ZERO_D_CONFIGS = {
    "sgd-momentum-weight-decay": lambda T, ps: T.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.1),
    "sgd-momentum-maximize": lambda T, ps: T.optim.SGD(ps, lr=0.1, momentum=0.9, maximize=True),
    "sgd-nesterov-dampening-0": lambda T, ps: T.optim.SGD(ps, lr=0.1, momentum=0.5, nesterov=True, weight_decay=0.2),
    "rprop-maximize": lambda T, ps: T.optim.Rprop(ps, lr=0.1, maximize=True),
    "rprop": lambda T, ps: T.optim.Rprop(ps, lr=0.1),
}


@pytest.mark.parametrize("make", ZERO_D_CONFIGS.values(), ids=ZERO_D_CONFIGS.keys())
@pytest.mark.parametrize("shape", [(), (3,)], ids=["0-d", "vector"])
def test_a_zero_d_parameter_steps_as_torch(make, shape):
    """A scalar parameter (a temperature, a logit scale): ``-grad`` of a 0-d array is a number, and the momentum
    buffer made from it was never updated in place (SGD), or could not be written (Rprop)."""
    np.testing.assert_allclose(_trained(ag, make, shape=shape), _trained(torch, make, shape=shape), rtol=1e-12)


def test_nadam_rounds_its_momentum_product_as_torch():
    """torch keeps ``mu_product`` in a 0-d tensor of the default dtype (float32): the steps use it rounded."""
    for decay in (0.0, 4e-3):
        def make(T, ps):
            return T.optim.NAdam(ps, lr=0.1, momentum_decay=decay)
        np.testing.assert_allclose(_trained(ag, make, steps=12, shape=(4,)),
                                   _trained(torch, make, steps=12, shape=(4,)), rtol=1e-13, atol=0)


@pytest.mark.parametrize("name", ["Adam", "AdamW"])
@pytest.mark.parametrize("option", ["lr", "eps", "weight_decay"])
def test_adam_refuses_nan_hyperparameters_as_torch(name, option):
    def make(T):
        return getattr(T.optim, name)([T.zeros(2, requires_grad=True)], **{option: float("nan")})
    both_raise(lambda: make(ag), lambda: make(torch))


def _own_adam(T):
    """A textbook Adam written against torch's ``Optimizer`` API, as a lab or a paper's code writes it: an int
    step count, tensors kept and updated in place, a factored row statistic of its own shape and dtype, and a
    global counter under a key that is not a parameter."""
    class OwnAdam(T.optim.Optimizer):
        def __init__(self, params, lr=0.1, betas=(0.9, 0.999), eps=1e-8):
            super().__init__(params, dict(lr=lr, betas=betas, eps=eps))

        @T.no_grad()
        def step(self, closure=None):
            self.state["calls"] = self.state["calls"] + 1 if "calls" in self.state else 1
            for group in self.param_groups:
                b1, b2 = group["betas"]
                for p in group["params"]:
                    state = self.state[p]
                    if not state:
                        state["step"] = 0
                        state["m"], state["v"] = T.zeros_like(p), T.zeros_like(p)
                        state["rows"] = T.zeros(p.shape[0], dtype=T.float32)
                    state["step"] += 1
                    state["m"].mul_(b1).add_(p.grad, alpha=1 - b1)
                    state["v"].mul_(b2).addcmul_(p.grad, p.grad, value=1 - b2)
                    state["rows"] += p.grad.abs().sum(1).float()
                    denom = (state["v"].sqrt() / math.sqrt(1 - b2 ** state["step"])).add_(group["eps"])
                    p.addcdiv_(state["m"], denom, value=-group["lr"] / (1 - b1 ** state["step"]))
    return OwnAdam


def _run_own(T):
    p = T.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    opt = _own_adam(T)([p])
    for i in range(5):
        p.grad = T.tensor(np.cos(np.arange(6.0) * (i + 1)).reshape(2, 3))
        opt.step()
    return p, opt


def test_an_optimizer_of_ones_own_steps_as_torch_in_float64():
    """Its int step count stays an int (bias corrections in float64), not a float32 tensor."""
    (ours, opt), (theirs, _) = _run_own(ag), _run_own(torch)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-14)
    assert opt.state[ours]["step"] == 5 and type(opt.state[ours]["step"]) is int
    assert opt.state["calls"] == 5


def test_an_optimizer_of_ones_own_gets_back_what_it_stored():
    """The same tensor (updates through one's own reference land), any shape and dtype, any key."""
    p = ag.zeros(2, 3, requires_grad=True)
    opt = _own_adam(ag)([p])
    buf, rows = ag.zeros_like(p), ag.zeros(2, dtype=ag.float32)
    opt.state[p]["buf"], opt.state[p]["rows"] = buf, rows
    buf.add_(1)
    assert opt.state[p]["buf"] is buf and float(opt.state[p]["buf"].sum()) == 6.0
    assert opt.state[p]["rows"].dtype == ag.float32 and tuple(opt.state[p]["rows"].shape) == (2,)
    opt.state["global"] = {"seen": 3}
    assert opt.state["global"] == {"seen": 3}


def _own_round_trip(T):
    p, opt = _run_own(T)
    saved = opt.state_dict()
    again = _own_adam(T)([p])
    again.load_state_dict(saved)
    state = again.state[p]
    return saved, state, again.state["calls"]


def test_an_optimizer_of_ones_own_state_dict_round_trips_as_torch():
    """Keys that are not parameters kept; float tensors take the parameter's dtype on load, ``step`` as it is."""
    (saved, state, calls), (saved_t, state_t, calls_t) = _own_round_trip(ag), _own_round_trip(torch)
    assert list(saved["state"]) == list(saved_t["state"]) == ["calls", 0]
    assert calls == calls_t == 5 and state["step"] == state_t["step"] == 5
    for name in ("m", "v", "rows"):
        assert state[name].dtype.name == str(state_t[name].dtype).removeprefix("torch.")
        np.testing.assert_allclose(state[name].numpy(), state_t[name].numpy(), rtol=1e-6)


def test_a_built_in_optimizers_state_is_still_checked_and_exported_as_torch():
    """Our own optimizers keep their checks: a wrong shape is refused, ``step`` shows as a float tensor."""
    p = ag.zeros(2, 3, requires_grad=True)
    opt = ag.optim.Adam([p])
    p.grad = ag.ones(2, 3)
    opt.step()
    assert isinstance(opt.state[p]["step"], ag.Tensor) and opt.state[p]["step"].item() == 1.0
    with pytest.raises(ValueError, match="shape"):
        opt.state[p]["exp_avg"] = ag.zeros(2)


def _through_a_file(T, obj):
    import io
    buffer = io.BytesIO()
    T.save(obj, buffer)
    buffer.seek(0)
    return T.load(buffer)


def test_save_and_load_keep_requires_grad_and_parameters_as_torch():
    """A loaded weight that required grad still does (else an optimizer given it would silently never train
    it); a Parameter comes back a Parameter; a non-leaf comes back a leaf that requires grad."""
    for T in (ag, torch):
        w, p = T.tensor([1.0, 2.0], requires_grad=True), T.nn.Parameter(T.ones(2))
        loaded = _through_a_file(T, {"w": w, "p": p, "y": w * 2, "plain": T.ones(1)})
        assert [loaded[k].requires_grad for k in ("w", "p", "y", "plain")] == [True, True, True, False]
        assert type(loaded["p"]).__name__ == "Parameter" and loaded["y"].is_leaf
        single = _through_a_file(T, w)
        assert single.requires_grad and single.is_leaf


def test_save_and_load_keep_shared_tensors_shared_as_torch():
    """The same tensor twice, or two over the same memory (a tied weight's state dict entries): written once,
    loaded sharing memory, so that a write into one shows in the other, as in torch."""
    def run(T):
        t = T.zeros(3)
        twice = _through_a_file(T, {"a": t, "b": t})
        twice["a"].add_(1)
        listed = _through_a_file(T, [t, t, T.zeros(3)])
        listed[0].add_(2)
        first, second = T.nn.Linear(2, 2), T.nn.Linear(2, 2)
        second.weight = first.weight
        tied = _through_a_file(T, T.nn.Sequential(first, second).state_dict())
        tied["0.weight"].add_(1)
        return twice["b"], listed[1], listed[2], (tied["0.weight"] == tied["1.weight"]).all()
    same_results(run, rtol=0)


def test_several_saves_into_one_stream_load_back_one_by_one():
    """torch's first load reads the first save (this used to give the last); here each load reads the next."""
    import io
    buffer = io.BytesIO()
    for obj in (ag.ones(1), ag.zeros(2), {"x": ag.full((3,), 7.0)}):
        ag.save(obj, buffer)
    buffer.seek(0)
    assert ag.load(buffer).tolist() == [1.0]
    assert ag.load(buffer).tolist() == [0.0, 0.0]
    assert ag.load(buffer)["x"].tolist() == [7.0, 7.0, 7.0]
    tbuffer = io.BytesIO()
    torch.save(torch.ones(1), tbuffer)
    torch.save(torch.zeros(2), tbuffer)
    tbuffer.seek(0)
    assert torch.load(tbuffer).tolist() == [1.0]


@pytest.mark.parametrize("call", [lambda T, tmp: T.load(str(tmp / "missing.pt")),
                                  lambda T, tmp: T.load(__import__("io").BytesIO()),
                                  lambda T, tmp: T.save(T.ones(1), str(tmp / "no-such-dir" / "x.pt"))],
                         ids=["missing-file", "empty-stream", "missing-directory"])
def test_save_and_load_raise_torchs_exception_classes(call, tmp_path):
    both_raise(lambda: call(ag, tmp_path), lambda: call(torch, tmp_path))


def test_load_names_a_torch_file_for_what_it_is():
    import io
    buffer = io.BytesIO()
    torch.save({"a": torch.ones(2)}, buffer)
    buffer.seek(0)
    with pytest.raises(ValueError, match="torch.save"):
        ag.load(buffer)


SCHEDULES = {
    "step": lambda S, o: S.StepLR(o, 2, 0.5), "multistep": lambda S, o: S.MultiStepLR(o, [2, 5], 0.1),
    "exponential": lambda S, o: S.ExponentialLR(o, 0.9), "cosine": lambda S, o: S.CosineAnnealingLR(o, 10),
    "linear": lambda S, o: S.LinearLR(o, 0.2, total_iters=4),
    "lambda": lambda S, o: S.LambdaLR(o, lambda e: 1 / (e + 1)),
    "polynomial": lambda S, o: S.PolynomialLR(o, 6, 2.0),
}


@pytest.mark.parametrize("make", SCHEDULES.values(), ids=SCHEDULES.keys())
def test_a_scheduler_stepped_to_an_epoch_follows_torch_with_its_warning(make):
    """``scheduler.step(epoch)``, deprecated in torch but still taken: the closed form where there is one."""
    def lrs(T):
        opt = T.optim.SGD([T.zeros(1, requires_grad=True)], lr=0.1)
        scheduler = make(T.optim.lr_scheduler, opt)
        seen = []
        for epoch in (1, 2, 5, 3, 7):
            opt.step()
            with pytest.warns(UserWarning, match="epoch parameter"):
                scheduler.step(epoch)
            seen.append(opt.param_groups[0]["lr"])
        scheduler.step()
        return seen + scheduler.get_last_lr() + [scheduler.last_epoch]
    np.testing.assert_allclose(lrs(ag), lrs(torch), rtol=1e-12)


def test_reduce_on_plateau_takes_an_epoch_as_torch():
    def run(T):
        opt = T.optim.SGD([T.zeros(1, requires_grad=True)], lr=0.1)
        scheduler = T.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0)
        with pytest.warns(UserWarning, match="epoch parameter"):
            scheduler.step(1.0, 4)
        scheduler.step(2.0)
        return [scheduler.last_epoch, opt.param_groups[0]["lr"]]
    assert run(ag) == pytest.approx(run(torch))


def _hook_log(T):
    """What the optimizer hooks see and change, in order, for one optimizer of torch's and one of its own."""
    log = []
    p = T.zeros(2, requires_grad=True)
    opt = T.optim.SGD([p], lr=0.1)
    first = opt.register_step_pre_hook(lambda o, args, kwargs: log.append(("pre", len(args), sorted(kwargs))))
    opt.register_step_pre_hook(lambda o, args, kwargs: (args, {"closure": lambda: log.append("closure") or 1.0}))
    opt.register_step_post_hook(lambda o, args, kwargs: log.append(("post", sorted(kwargs))))
    p.grad = T.ones(2)
    log.append(("loss", opt.step()))
    first.remove()
    opt.step()
    opt.register_state_dict_pre_hook(lambda o: log.append("sd-pre"))
    opt.register_state_dict_post_hook(lambda o, sd: log.append(("sd-post", sorted(sd))))
    opt.register_state_dict_post_hook(lambda o, sd: log.append("sd-first"), prepend=True)
    saved = opt.state_dict()
    opt.register_load_state_dict_pre_hook(lambda o, sd: {**sd, "param_groups": [{**sd["param_groups"][0],
                                                                                 "lr": 0.5}]})
    opt.register_load_state_dict_post_hook(lambda o: log.append(("loaded", o.param_groups[0]["lr"])))
    opt.load_state_dict(saved)
    return log, p.detach().numpy()


def test_optimizer_hooks_run_as_torchs():
    """Step pre hooks may change the arguments, post hooks see them; state dict hooks (prepend too) and load
    hooks run where torch's do; a removed hook stops."""
    (ours, p), (theirs, p_t) = _hook_log(ag), _hook_log(torch)
    assert ours == theirs
    np.testing.assert_allclose(p, p_t, rtol=1e-6)


def test_a_subclass_step_calling_super_runs_the_step_hooks_once():
    """(torch runs them twice when the parent class's step was patched by an earlier instance of it.)"""
    class Twice(ag.optim.SGD):
        def step(self, closure=None):
            return super().step(closure)
    p = ag.zeros(2, requires_grad=True)
    p.grad = ag.ones(2)
    calls = []
    opt = Twice([p], lr=0.1)
    opt.register_step_pre_hook(lambda o, args, kwargs: calls.append("pre"))
    opt.register_step_post_hook(lambda o, args, kwargs: calls.append("post"))
    opt.step()
    assert calls == ["pre", "post"] and p.tolist() == pytest.approx([-0.1, -0.1])


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "NAdam", "RAdam", "Rprop", "Adamax"])
def test_a_subclass_of_a_built_in_optimizer_round_trips_its_state_as_torch(name):
    """A subclass whose step calls super().step() steps over the built-in state: loading its state dict must
    give that state back as the built-in step keeps it (it used to be taken as an optimizer of one's own)."""
    def run(T):
        kind = getattr(T.optim, name)

        class Mine(kind):
            def step(self, closure=None):
                return super().step(closure)
        p = T.tensor([1.0, -2.0], dtype=T.float64, requires_grad=True)
        opt = Mine([p], lr=0.1, **({"momentum": 0.9} if name == "SGD" else {}))
        for i in range(4):
            p.grad = T.tensor([0.5, -1.0 + i], dtype=T.float64)
            opt.step()
            if i == 0:
                opt.load_state_dict(opt.state_dict())
        return p.detach().numpy(), float(opt.state[p]["step"]) if "step" in opt.state[p] else 0.0
    (ours, step), (theirs, step_t) = run(ag), run(torch)
    # (1e-8: once loaded into float64 parameters, torch keeps NAdam's momentum product in float64, this in the
    # default dtype's precision)
    np.testing.assert_allclose(ours, theirs, rtol=1e-8)
    assert step == step_t


def test_load_reads_a_pipe_and_names_a_text_mode_file(tmp_path):
    import os
    path = tmp_path / "x.pt"
    ag.save({"a": ag.ones(2)}, str(path))
    with open(path) as text, pytest.raises(TypeError, match="binary mode"):
        ag.load(text)
    read, write = os.pipe()
    os.write(write, path.read_bytes())
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        assert ag.load(pipe)["a"].tolist() == [1.0, 1.0]


def test_multiplicative_lr_multiplies_at_a_step_to_epoch_0_as_torch():
    def run(T):
        opt = T.optim.SGD([T.zeros(1, requires_grad=True)], lr=1.0)
        scheduler = T.optim.lr_scheduler.MultiplicativeLR(opt, lambda epoch: 0.5)
        opt.step()
        with pytest.warns(UserWarning):
            scheduler.step(0)
        first = opt.param_groups[0]["lr"]
        scheduler.step()
        return [first, opt.param_groups[0]["lr"]]
    assert run(ag) == run(torch)
