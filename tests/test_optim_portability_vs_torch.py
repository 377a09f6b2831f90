"""optim code written for torch runs unchanged: torch's implementation switches (foreach, fused, capturable)
are accepted and change no number, as in torch; differentiable=True says it is not available; Adam's
decoupled_weight_decay is AdamW's update; step(closure) runs the closure with gradients on, also under
no_grad; and a torch optimizer's state_dict loads into ours and training continues as torch's does."""
import numpy as np
import pytest
from conftest import host, import_torch
from test_optim import _models, _train
from torch_compare import both_raise

import autogradlab as ag
from autogradlab import optim

torch = import_torch()

PAIRS = [(optim.SGD, torch.optim.SGD, dict(lr=0.05, momentum=0.9)), (optim.Adam, torch.optim.Adam, dict(lr=0.01)),
         (optim.AdamW, torch.optim.AdamW, dict(lr=0.01)), (optim.RMSprop, torch.optim.RMSprop, dict(lr=0.01)),
         (optim.Adagrad, torch.optim.Adagrad, dict(lr=0.1)), (optim.Adadelta, torch.optim.Adadelta, dict())]
IDS = [ours.__name__ for ours, _, _ in PAIRS]

SWITCHES = {"SGD": ["foreach", "fused"], "Adam": ["foreach", "fused", "capturable"],
            "AdamW": ["foreach", "fused", "capturable"], "RMSprop": ["foreach", "capturable"],
            "Adagrad": ["foreach", "fused"], "Adadelta": ["foreach", "capturable"]}


def _weights(model):
    return [host(p.data).copy() if isinstance(p, ag.Tensor) else p.detach().numpy().copy()
            for p in model.parameters()]


@pytest.mark.parametrize("ours_cls, theirs_cls, kwargs", PAIRS, ids=IDS)
def test_switches_are_accepted_kept_and_change_nothing(ours_cls, theirs_cls, kwargs):
    plain, _ = _models("float64")
    _train(plain, ours_cls(plain.parameters(), **kwargs), 8)
    for switch in SWITCHES[ours_cls.__name__]:
        model, theirs = _models("float64")
        opt = ours_cls(model.parameters(), **kwargs, **{switch: True})
        assert opt.param_groups[0][switch] is True
        assert theirs_cls(theirs.parameters(), **kwargs, **{switch: True}).param_groups[0][switch] is True
        _train(model, opt, 8)
        for a, b in zip(_weights(model), _weights(plain)):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("ours_cls, theirs_cls, kwargs", PAIRS, ids=IDS)
def test_switch_combinations_torch_refuses_are_refused(ours_cls, theirs_cls, kwargs):
    names = SWITCHES[ours_cls.__name__]
    p = ag.zeros(2, requires_grad=True)
    if "fused" in names:
        for bad in (dict(fused=True, foreach=True), dict(fused=True, differentiable=True)):
            with pytest.raises(RuntimeError) as theirs:
                theirs_cls([torch.zeros(2, requires_grad=True)], **kwargs, **bad)
            with pytest.raises(RuntimeError, match=str(theirs.value).split()[0]):
                ours_cls([p], **kwargs, **bad)
    with pytest.raises(NotImplementedError, match="differentiable=True"):
        ours_cls([p], **kwargs, differentiable=True)


@pytest.mark.parametrize("dtype, tol", [("float64", 1e-12), ("float32", 1e-5)])
def test_adam_with_decoupled_weight_decay_is_torchs_and_adamw(dtype, tol):
    ours, theirs = _models(dtype)
    adamw, _ = _models(dtype)
    opt = optim.Adam(ours.parameters(), lr=0.01, weight_decay=0.3, decoupled_weight_decay=True)
    topt = torch.optim.Adam(theirs.parameters(), lr=0.01, weight_decay=0.3, decoupled_weight_decay=True)
    _train(ours, opt, 12)
    _train(theirs, topt, 12, lib=torch, functional=torch.nn.functional)
    _train(adamw, optim.AdamW(adamw.parameters(), lr=0.01, weight_decay=0.3), 12)
    for a, b, c in zip(_weights(ours), _weights(theirs), _weights(adamw)):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
        np.testing.assert_array_equal(a, c)
    assert opt.param_groups[0]["decoupled_weight_decay"] is True
    assert optim.Adam([ag.zeros(1, requires_grad=True)]).param_groups[0]["decoupled_weight_decay"] is False


@pytest.mark.parametrize("ours_cls, theirs_cls, kwargs", PAIRS, ids=IDS)
def test_step_runs_the_closure_with_gradients_on_even_under_no_grad(ours_cls, theirs_cls, kwargs):
    ours, theirs = _models("float64")
    X = np.random.default_rng(3).standard_normal((6, 3))
    results = []
    for lib, model, cls, no_grad in [(ag, ours, ours_cls, ag.no_grad), (torch, theirs, theirs_cls, torch.no_grad)]:
        opt = cls(model.parameters(), **kwargs)

        def closure():
            opt.zero_grad()
            loss = (model(lib.tensor(X)) ** 2).mean()
            loss.backward()
            return loss

        with no_grad():
            losses = [float(opt.step(closure)) for _ in range(3)]
        results.append((losses, _weights(model)))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-10)
    for a, b in zip(results[0][1], results[1][1]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("ours_cls, theirs_cls, kwargs", PAIRS, ids=IDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_torch_optimizers_state_dict_loads_and_training_continues_as_torchs(ours_cls, theirs_cls, kwargs, dtype):
    ours, theirs = _models(dtype)
    topt = theirs_cls(theirs.parameters(), **kwargs)
    _train(theirs, topt, 5, lib=torch, functional=torch.nn.functional)
    ours.load_state_dict(theirs.state_dict())
    opt = ours_cls(ours.parameters(), **kwargs)
    opt.load_state_dict(topt.state_dict())
    assert all(isinstance(v, int) for s in opt.state.values() for k, v in s.items() if k == "step")
    _train(ours, opt, 5, start=5)
    _train(theirs, topt, 5, start=5, lib=torch, functional=torch.nn.functional)
    tol = 1e-10 if dtype == "float64" else 1e-5
    for a, b in zip(_weights(ours), _weights(theirs)):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def test_a_torch_state_of_the_wrong_shape_is_refused_before_anything_changes():
    ours, theirs = _models("float32")
    topt = torch.optim.Adam(theirs.parameters(), lr=0.01)
    _train(theirs, topt, 2, lib=torch, functional=torch.nn.functional)
    saved = topt.state_dict()
    saved["state"][0]["exp_avg"] = torch.zeros(7)
    opt = optim.Adam(ours.parameters(), lr=0.5)
    with pytest.raises(ValueError, match="shape"):
        opt.load_state_dict(saved)
    assert opt.state == {} and opt.param_groups[0]["lr"] == 0.5


def test_adamw_stays_decoupled_after_loading_an_adam_state_dict_as_torchs():
    for lib in (optim, torch.optim):
        T = ag if lib is optim else torch
        adam = lib.Adam([T.ones(3, requires_grad=True)], lr=0.1, weight_decay=0.5)
        adamw = lib.AdamW([T.ones(3, requires_grad=True)], lr=0.1, weight_decay=0.5)
        adamw.load_state_dict(adam.state_dict())
        assert adamw.param_groups[0]["decoupled_weight_decay"] is True


@pytest.mark.parametrize("ours_cls, theirs_cls, kwargs", PAIRS, ids=IDS)
def test_named_parameters_are_taken_as_torch_takes_them(ours_cls, theirs_cls, kwargs):
    ours, theirs = _models("float64")
    opt = ours_cls(ours.named_parameters(), **kwargs)
    topt = theirs_cls(theirs.named_parameters(), **kwargs)
    assert opt.param_groups[0]["param_names"] == topt.param_groups[0]["param_names"]
    _train(ours, opt, 4)
    _train(theirs, topt, 4, lib=torch, functional=torch.nn.functional)
    for a, b in zip(_weights(ours), _weights(theirs)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    group, tgroup = opt.state_dict()["param_groups"][0], topt.state_dict()["param_groups"][0]
    assert set(group) == set(tgroup) and group["param_names"] == tgroup["param_names"]


def test_named_and_unnamed_parameters_do_not_mix_as_in_torch():
    for lib, T in ((optim, ag), (torch.optim, torch)):
        w, b = T.zeros(2, requires_grad=True), T.zeros(1, requires_grad=True)
        with pytest.raises(ValueError, match="names"):
            lib.SGD([("w", w), b], lr=0.1)
        opt = lib.SGD([w], lr=0.1)
        with pytest.raises(ValueError, match="names"):
            opt.add_param_group({"params": [("b", b)]})


@pytest.mark.parametrize("name, key, bad", [("SGD", "lr", "0.1"), ("Adam", "lr", None), ("Adam", "betas", (0.9,)),
                                            ("RMSprop", "alpha", "x"), ("Adagrad", "eps", None),
                                            ("Adadelta", "rho", [0.9])])
def test_a_mistyped_option_in_a_later_group_fails_the_step_before_anything_moves(name, key, bad):
    """torch updates the groups before the bad one and then fails with an error about the arithmetic; here the
    step refuses first, naming the group and option, and leaves every parameter and state as they were."""
    x, w = ag.ones(2, requires_grad=True), ag.ones(2, requires_grad=True)
    opt = getattr(ag.optim, name)([{"params": [x]}, {"params": [w]}], lr=0.1)
    x.grad, w.grad = ag.ones(2), ag.ones(2)
    opt.param_groups[1][key] = bad
    state_before = repr(opt.state)
    with pytest.raises(TypeError, match=rf"param group 1 has {key}=.*param_groups\[1\]\['{key}'\].*Nothing was"):
        opt.step()
    assert x.tolist() == w.tolist() == [1.0, 1.0] and repr(opt.state) == state_before
    opt.param_groups[1][key] = opt.defaults[key]
    opt.param_groups[1]["lr"] = ag.tensor(0.1)        # (a tensor learning rate, as torch allows)
    opt.step()
    assert x.tolist() != [1.0, 1.0] and w.tolist() != [1.0, 1.0]


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop"])
def test_a_tensor_learning_rate_steps_as_torchs(name):
    """A learning rate held as a tensor (torch allows it) used to update nothing here, silently."""
    torch = import_torch()
    values = []
    for T in (ag, torch):
        p = T.tensor([1.0, -2.0, 0.5], dtype=T.float64, requires_grad=True)
        opt = getattr(T.optim, name)([p], lr=T.tensor(0.05))
        for _ in range(3):
            opt.zero_grad()
            (p * p * p).sum().backward()
            opt.step()
        values.append(p.detach().tolist())
    np.testing.assert_allclose(values[0], values[1], rtol=1e-7)   # (torch does some of it in the float32 lr's)
    assert values[0] != [1.0, -2.0, 0.5]


@pytest.mark.parametrize("kwargs", [dict(), dict(lr=0.5, history_size=3), dict(max_iter=4, max_eval=3),
                                    dict(tolerance_grad=1e-3, tolerance_change=1e-6)], ids=str)
def test_lbfgs_steps_as_torchs(kwargs):
    """A convex quadratic in 6 variables (as an image would be, in style transfer: one tensor optimised by
    step(closure)); the iterates, the losses step returns and the counters, side by side with torch."""
    torch = import_torch()
    a = np.array([[4.0, 1, 0, 0, 0, 0], [1, 3, 1, 0, 0, 0], [0, 1, 5, 1, 0, 0], [0, 0, 1, 2, 0.5, 0],
                  [0, 0, 0, 0.5, 6, 1], [0, 0, 0, 0, 1, 3]])
    b = np.sin(np.arange(6.0))
    runs = []
    for T in (ag, torch):
        x = T.zeros(2, 3, dtype=T.float64, requires_grad=True)
        opt = T.optim.LBFGS([x], **kwargs)
        A, B = T.tensor(a), T.tensor(b)

        def closure():
            opt.zero_grad()
            v = x.reshape(-1)
            loss = 0.5 * (v * (A @ v)).sum() - (B * v).sum()
            loss.backward()
            return loss
        losses = [float(opt.step(closure).detach()) for _ in range(3)]
        state = opt.state[x]
        runs.append((x.detach().numpy().copy(), losses, state["func_evals"], state["n_iter"]))
    np.testing.assert_allclose(runs[0][0], runs[1][0], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(runs[0][1], runs[1][1], rtol=1e-9)
    assert runs[0][2:] == runs[1][2:]


def test_lbfgs_refuses_what_it_cannot_do():
    torch = import_torch()
    both_raise(lambda: ag.optim.LBFGS([ag.ones(2, requires_grad=True)], lr=-1.0),
               lambda: torch.optim.LBFGS([torch.ones(2, requires_grad=True)], lr=-1.0))
    with pytest.raises(NotImplementedError, match="line_search_fn=None"):
        ag.optim.LBFGS([ag.ones(2, requires_grad=True)], line_search_fn="strong_wolfe")
    with pytest.raises(ValueError, match="parameter groups"):
        ag.optim.LBFGS([{"params": [ag.ones(2, requires_grad=True)]}, {"params": [ag.ones(2, requires_grad=True)]}])
