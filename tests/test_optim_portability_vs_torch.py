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
    assert all(isinstance(v, int) for s in opt._buffers.values() for k, v in s.items() if k == "step")   # (kept as a count)
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
    t = torch.ones(2, requires_grad=True)
    opt = torch.optim.LBFGS([t], line_search_fn="wolfe")
    with pytest.raises(RuntimeError, match="only 'strong_wolfe'"):     # torch: at the first step
        opt.step(lambda: (t * t).sum().backward() or (t * t).sum())
    with pytest.raises(RuntimeError, match="only 'strong_wolfe'"):     # here already when it is made
        ag.optim.LBFGS([ag.ones(2, requires_grad=True)], line_search_fn="wolfe")
    with pytest.raises(ValueError, match="parameter groups"):
        ag.optim.LBFGS([{"params": [ag.ones(2, requires_grad=True)]}, {"params": [ag.ones(2, requires_grad=True)]}])


def _rosenbrock(T, x):
    return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2


def _bumpy(T, x):          # (non-convex: its line searches bracket, zoom and move away from a bracket's end)
    return T.sin(3 * x[0]) + 0.1 * x[0] ** 2 + (x[1] - 1) ** 2 * T.cos(x[0]) ** 2


def _wave(T, x):
    return T.sin(5 * x[0]) * T.cos(3 * x[1]) + 0.05 * (x[0] ** 2 + x[1] ** 2)


def _quartic(T, x):
    return x[0] ** 4 - 3 * x[0] ** 2 + x[0] + (x[1] - x[0]) ** 2


# (the cases were picked so that every branch of the line search runs; on chaotic ones, e.g. _bumpy from
# [4, 4], torch's last-bit rounding, p.add_(d, alpha=t) and float / tensor, sends the iterates elsewhere)
@pytest.mark.parametrize("fn, start, kwargs", [
    (_rosenbrock, [-1.5, 2.0], dict()), (_rosenbrock, [-1.5, 2.0], dict(lr=0.1)),
    (_rosenbrock, [-1.5, 2.0], dict(max_iter=5)), (_rosenbrock, [-1.5, 2.0], dict(history_size=2, max_iter=50)),
    (_rosenbrock, [-1.5, 2.0], dict(lr=3.0, max_eval=7)), (_rosenbrock, [0.0, 0.0], dict(tolerance_change=1e-3)),
    (_bumpy, [2.0, -1.0], dict()), (_bumpy, [-0.7, 3.0], dict(lr=5.0, max_iter=4)),
    (_bumpy, [1.1, -1.84], dict(lr=3.0)), (_wave, [2.0, -1.0], dict()), (_wave, [4.0, 4.0], dict(lr=5.0)),
    (_quartic, [-0.7, 3.0], dict(lr=10.0, max_iter=6)), (_bumpy, [-1.08, -3.16], dict(lr=0.3)),
    (_quartic, [-2.07, 3.1], dict())], ids=lambda v: v.__name__.strip("_") if callable(v) else str(v))
def test_lbfgs_strong_wolfe_line_search_steps_as_torchs(fn, start, kwargs):
    """line_search_fn="strong_wolfe" (what PINN and curve-fitting labs use): each step(closure)'s iterate, the
    loss it returns and the closure-call and iteration counters, side by side with torch."""
    torch = import_torch()
    runs = []
    for T in (ag, torch):
        x = T.tensor(start, dtype=T.float64, requires_grad=True)
        opt = T.optim.LBFGS([x], line_search_fn="strong_wolfe", **kwargs)

        def closure():
            opt.zero_grad()
            loss = fn(T, x)
            loss.backward()
            return loss
        trail = [(float(opt.step(closure).detach()), x.detach().numpy().copy()) for _ in range(4)]
        runs.append((trail, opt.state[x]["func_evals"], opt.state[x]["n_iter"]))
    for (loss, x), (torch_loss, torch_x) in zip(runs[0][0], runs[1][0]):
        assert loss == pytest.approx(torch_loss, rel=1e-9, abs=1e-12)
        np.testing.assert_allclose(x, torch_x, rtol=1e-8, atol=1e-12)
    assert runs[0][1:] == runs[1][1:]
    assert not np.allclose(runs[0][0][-1][1], start)


def test_lbfgs_strong_wolfe_fits_a_small_float32_model_as_torch():
    """A float32 MLP fitted to sin(x) with full-batch L-BFGS: torch's float32 arithmetic differs in the last bits,
    so the losses are compared after the fit, not step by step."""
    torch = import_torch()
    X = np.linspace(-2, 2, 32, dtype=np.float32).reshape(-1, 1)
    finals = []
    for T in (ag, torch):
        T.manual_seed(0)
        model = T.nn.Sequential(T.nn.Linear(1, 8), T.nn.Tanh(), T.nn.Linear(8, 1))
        with T.no_grad():
            for i, p in enumerate(model.parameters()):
                p.copy_(T.tensor(np.cos(np.arange(p.numel()) + i).reshape(tuple(p.shape)).astype(np.float32) / 2))
        opt = T.optim.LBFGS(model.parameters(), line_search_fn="strong_wolfe", max_iter=50)
        x, y = T.tensor(X), T.tensor(np.sin(X))

        def closure():
            opt.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            return loss
        first = float(closure().detach())
        opt.step(closure)
        finals.append((first, float(closure().detach())))
    assert finals[0][0] == pytest.approx(finals[1][0], rel=1e-5)
    assert finals[0][1] < 1e-3 * finals[0][0] and finals[1][1] < 1e-3 * finals[1][0]
    assert finals[0][1] == pytest.approx(finals[1][1], rel=0.5, abs=1e-5)


def test_the_line_searchs_cubic_step_and_a_bracket_too_narrow_to_split():
    """cubic_minimum: exact for a cubic, the same from either end, clipped to its bounds, the far end for a line,
    the midpoint where the cubic has no minimum; a search along a tiny direction stops on a narrow bracket at
    the t torch's does."""
    torch = import_torch()
    from torch.optim.lbfgs import _strong_wolfe

    from autogradlab.optim.lbfgs import cubic_minimum, strong_wolfe
    f = lambda t: t ** 3 - 3 * t            # noqa: E731  (a minimum at t = 1)
    df = lambda t: 3 * t ** 2 - 3           # noqa: E731
    assert cubic_minimum(0.0, f(0.0), df(0.0), 2.0, f(2.0), df(2.0)) == pytest.approx(1.0, abs=1e-12)
    assert cubic_minimum(2.0, f(2.0), df(2.0), 0.0, f(0.0), df(0.0)) == pytest.approx(1.0, abs=1e-12)
    assert cubic_minimum(0.0, f(0.0), df(0.0), 2.0, f(2.0), df(2.0), low=1.5, high=3.0) == 1.5
    assert cubic_minimum(0.0, 0.0, -5.0, 1.0, -5.0, -5.0, low=1.01, high=10.0) == 10.0   # a line: its far end
    assert cubic_minimum(0.0, 0.0, 1.0, 1.0, 2 / 3, 1.0) == 0.5       # an increasing cubic: no minimum
    scale = 1e-12                           # a direction this small: every bracket is narrow at once
    h = lambda t: (t * scale - 3 * scale) ** 2 * 1e24      # noqa: E731  (minimum at t = 3)
    dh = lambda t: 2 * (t * scale - 3 * scale) * 1e24      # noqa: E731  (d/dx, x = t * scale)
    ours = strong_wolfe(lambda t: (h(t), np.array([dh(t)])), 10.0, np.array([scale]), h(0.0),
                        np.array([dh(0.0)]), dh(0.0) * scale, 25)
    theirs = _strong_wolfe(lambda x, t, d: (h(t), torch.tensor([dh(t)], dtype=torch.float64)), None, 10.0,
                           torch.tensor([scale], dtype=torch.float64), h(0.0),
                           torch.tensor([dh(0.0)], dtype=torch.float64), torch.tensor(dh(0.0) * scale))
    assert ours[2] == pytest.approx(float(theirs[2]), rel=1e-12) and ours[3] == theirs[3]
    assert ours[0] == pytest.approx(float(theirs[0]), rel=1e-12) and ours[2:] == (0.0, 1)   # (overshot: stays)


def test_lbfgs_with_several_parameters_resumes_from_its_state_dict_as_torch():
    """(Its state is vectors over every parameter, kept with the first: not one array per parameter's shape.)"""
    runs = []
    for T, split in ((ag, True), (torch, True), (ag, False)):
        a = T.tensor([1.0, 2.0, 0.5], dtype=T.float64, requires_grad=True)
        b = T.tensor([0.5, -1.0], dtype=T.float64, requires_grad=True)
        opt = T.optim.LBFGS([a, b], lr=0.5, max_iter=2)

        def closure():
            opt.zero_grad()
            loss = ((a - 1) ** 4).sum() + ((b - 2) ** 2).sum()
            loss.backward()
            return loss
        for k in range(4):
            if split and k == 2:
                saved = opt.state_dict()
                opt = T.optim.LBFGS([a, b], lr=0.5, max_iter=2)
                opt.load_state_dict(saved)
            opt.step(closure)
        runs.append(np.concatenate([a.detach().numpy(), b.detach().numpy()]))
    np.testing.assert_allclose(runs[0], runs[1], rtol=1e-10)
    np.testing.assert_allclose(runs[0], runs[2], rtol=1e-12)


MORE = PAIRS + [(optim.NAdam, torch.optim.NAdam, dict(lr=0.01)), (optim.Adamax, torch.optim.Adamax, dict(lr=0.01)),
                (optim.Adam, torch.optim.Adam, dict(lr=0.01, amsgrad=True))]


@pytest.mark.parametrize("ours_cls, theirs_cls, kwargs", MORE, ids=IDS + ["NAdam", "Adamax", "Adam-amsgrad"])
def test_optimizer_state_reads_as_torchs(ours_cls, theirs_cls, kwargs):
    """``optimizer.state[p]`` holds Tensors (live: the steps update them in place, as torch's) and ``step`` as a
    0-d float Tensor; a parameter with no state yet gives an empty dict and is then counted, as torch's
    defaultdict; an assigned buffer is what the next step reads."""
    rtol = 1e-7 if ours_cls is optim.NAdam else 1e-10   # (torch keeps NAdam's mu_product in float32)
    ours, theirs = _models("float64")
    opt, topt = ours_cls(ours.parameters(), **kwargs), theirs_cls(theirs.parameters(), **kwargs)
    _train(ours, opt, 2)
    _train(theirs, topt, 2, lib=torch, functional=torch.nn.functional)
    params, tparams = list(ours.parameters()), list(theirs.parameters())
    assert len(opt.state) == len(topt.state) == len(params)
    for p, tp in zip(params, tparams):
        state, tstate = opt.state[p], topt.state[tp]
        assert sorted(state) == sorted(tstate)
        for name in tstate:
            assert isinstance(state[name], ag.Tensor)
            assert state[name].dtype.name == str(tstate[name].dtype).removeprefix("torch.")
            np.testing.assert_allclose(host(state[name].numpy()), tstate[name].numpy(), rtol=rtol, atol=1e-14)
    first, tfirst = opt.state[params[0]], topt.state[tparams[0]]
    name = next(n for n in tfirst if n not in ("step", "mu_product"))   # (a buffer, not a count)
    held, theld = first[name], tfirst[name]
    before = host(held.numpy()).copy()
    _train(ours, opt, 1)
    _train(theirs, topt, 1, lib=torch, functional=torch.nn.functional)
    assert not np.array_equal(host(held.numpy()), before)   # (the same memory, moved by the step)
    np.testing.assert_allclose(host(held.numpy()), theld.numpy(), rtol=rtol, atol=1e-14)
    for T, o, p in ((ag, opt, params[0]), (torch, topt, tparams[0])):
        o.state[p][name] = T.zeros_like(p)
    _train(ours, opt, 1)
    _train(theirs, topt, 1, lib=torch, functional=torch.nn.functional)
    for p, tp in zip(params, tparams):
        np.testing.assert_allclose(host(p.detach().numpy()), tp.detach().numpy(), rtol=rtol * 10, atol=1e-12)
    stranger, tstranger = ag.zeros(2), torch.zeros(2)
    assert dict(opt.state[stranger]) == dict(topt.state[tstranger]) == {}
    assert len(opt.state) == len(topt.state) == len(params) + 1
