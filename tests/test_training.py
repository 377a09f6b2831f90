"""training: the README demo reaches >= 97% on the moons, fit's progress and history,
accuracy, decision_boundary and plot_history figures; nothing pulls in matplotlib at import."""
import subprocess
import sys

import numpy as np
import pytest

import autogradlab as ag
import autogradlab.nn.functional as F
from autogradlab import data, nn, optim
from autogradlab.training import accuracy, decision_boundary, fit, plot_history


def test_readme_demo_moons_mlp_reaches_97_percent(capsys):
    ag.manual_seed(0)
    X, y = data.make_moons(n=1000, noise=0.1, seed=0)
    model = nn.MLP([2, 32, 32, 2])
    opt = optim.Adam(model.parameters(), lr=0.01)
    history = fit(model, X, y, F.cross_entropy, opt, epochs=50, batch_size=64, seed=0)
    assert accuracy(model, X, y) >= 0.97
    assert len(history["loss"]) == len(history["accuracy"]) == 50
    assert history["loss"][-1] < history["loss"][0]


def test_fit_outside_a_notebook_prints_text_and_returns_history(capsys):
    ag.manual_seed(0)
    X, y = data.make_blobs(60, centers=3, seed=1)
    model = nn.MLP([2, 8, 3])
    history = fit(model, X, y, nn.CrossEntropyLoss(), optim.SGD(model.parameters(), lr=0.1), epochs=20)
    out = capsys.readouterr().out
    assert "epoch  1/20" in out and "epoch 20/20" in out and "loss" in out and "accuracy" in out
    assert len(out.splitlines()) <= 12  # a handful of lines when stdout is not a terminal
    assert set(history) == {"loss", "accuracy"} and len(history["loss"]) == 20
    assert all(0 <= a <= 1 for a in history["accuracy"])


def test_fit_silent_regression_has_no_accuracy(capsys):
    ag.manual_seed(0)
    x, y = data.make_regression_1d(128, seed=0)
    model = nn.MLP([1, 16, 1], activation="tanh")
    history = fit(model, x, y, "mse", optim.Adam(model.parameters(), lr=0.01), epochs=30, batch_size=32,
                  progress=False)
    assert capsys.readouterr().out == ""
    assert set(history) == {"loss"} and history["loss"][-1] < history["loss"][0]


def test_fit_batches_are_seeded():
    X, y = data.make_moons(200, noise=0.2, seed=0)
    runs = []
    for _ in range(2):
        ag.manual_seed(1)
        model = nn.MLP([2, 8, 2])
        runs.append(fit(model, X, y, F.cross_entropy, optim.SGD(model.parameters(), lr=0.1), epochs=3,
                        batch_size=16, seed=4, progress=False)["loss"])
    assert runs[0] == runs[1]


def test_fit_with_plot_returns_a_figure():
    from matplotlib.figure import Figure
    X, y = data.make_moons(100, noise=0.1, seed=0)
    model = nn.MLP([2, 4, 2])
    history = fit(model, X, y, F.cross_entropy, optim.Adam(model.parameters()), epochs=3, progress=False,
                  plot=True)
    assert isinstance(history["figure"], Figure) and len(history["figure"].axes) == 2


def test_fit_notebook_progress_runs_with_widgets():
    pytest.importorskip("ipywidgets")
    X, y = data.make_moons(100, noise=0.1, seed=0)
    model = nn.MLP([2, 4, 2])
    history = fit(model, X, y, F.cross_entropy, optim.Adam(model.parameters()), epochs=4, progress="notebook")
    assert len(history["loss"]) == 4


def test_fit_rejects_unknown_loss_and_progress():
    X, y = data.make_moons(20, seed=0)
    model = nn.MLP([2, 2])
    with pytest.raises(ValueError, match="unknown loss"):
        fit(model, X, y, "hinge", optim.SGD(model.parameters(), lr=0.1), epochs=1)
    with pytest.raises(ValueError, match="progress"):
        fit(model, X, y, "cross_entropy", optim.SGD(model.parameters(), lr=0.1), epochs=1, progress="loud")


def test_accuracy_uses_argmax_or_the_sign_of_a_single_logit():
    lin = nn.Linear(2, 2)
    with ag.no_grad():
        lin.weight.copy_(ag.eye(2))
        lin.bias.zero_()
    X = ag.tensor([[1.0, 0.0], [0.0, 1.0], [2.0, 1.0]])
    assert accuracy(lin, X, ag.tensor([0, 1, 1])) == pytest.approx(2 / 3)
    single = nn.Linear(2, 1)
    with ag.no_grad():
        single.weight.copy_(ag.tensor([[1.0, -1.0]]))
        single.bias.zero_()
    assert accuracy(single, X, ag.tensor([1, 0, 1])) == 1.0
    assert lin.training  # accuracy evaluates in eval mode and restores the mode


def test_decision_boundary_returns_a_figure_with_an_axes():
    from matplotlib.figure import Figure
    ag.manual_seed(0)
    X, y = data.make_spirals(150, classes=3, seed=0)
    model = nn.MLP([2, 16, 3])
    fig = decision_boundary(model, X, y, resolution=50)
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    assert "accuracy" in fig.axes[0].get_title()
    other = Figure()
    ax = other.add_subplot()
    assert decision_boundary(model, X, y, ax=ax, resolution=20) is other
    with pytest.raises(ValueError, match=r"\(N, 2\)"):
        decision_boundary(model, ag.randn(5, 3), y[:5])


def test_plot_history_without_accuracy_has_one_axes():
    assert len(plot_history({"loss": [1.0, 0.5, 0.25]}).axes) == 1


def test_importing_and_fitting_silently_does_not_import_matplotlib_or_widgets():
    code = ("import sys, autogradlab as ag\n"
            "from autogradlab import nn, optim, data, training\n"
            "X, y = data.make_moons(50, seed=0); m = nn.MLP([2, 4, 2])\n"
            "training.fit(m, X, y, 'cross_entropy', optim.SGD(m.parameters(), lr=0.1), epochs=2)\n"
            "print('loaded:' + ','.join(k for k in ('matplotlib', 'ipywidgets', 'IPython') if k in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "loaded:"


def test_fit_steps_a_scheduler_after_each_epoch_and_records_the_lr():
    X, y = data.make_blobs(n=60, centers=3, seed=0)
    ag.manual_seed(0)
    model = nn.MLP([2, 8, 3])
    opt = optim.SGD(model.parameters(), lr=0.4)
    history = fit(model, X, y, F.cross_entropy, opt, epochs=7, progress=False,
                  scheduler=optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5))
    assert history["lr"] == [0.4, 0.4, 0.4, 0.2, 0.2, 0.2, 0.1]
    assert opt.param_groups[0]["lr"] == 0.1 and len(history["loss"]) == 7


def test_fit_gives_reduce_on_plateau_the_epoch_loss():
    X, y = data.make_blobs(n=60, centers=3, seed=0)
    ag.manual_seed(0)
    model = nn.MLP([2, 8, 3])
    opt = optim.SGD(model.parameters(), lr=0.2)
    plateau = optim.lr_scheduler.ReduceLROnPlateau(opt, patience=100, threshold=0.0)
    history = fit(model, X, y, F.cross_entropy, opt, epochs=5, progress=False, scheduler=plateau)
    assert plateau.best == min(history["loss"]) and plateau.last_epoch == 5


def test_fit_refuses_a_scheduler_of_another_optimizer():
    model = nn.MLP([2, 3])
    opt, other = optim.SGD(model.parameters(), lr=0.1), optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(ValueError, match="another optimizer"):
        fit(model, np.zeros((4, 2), "float32"), np.zeros(4, "int64"), F.cross_entropy, opt, epochs=1,
            progress=False, scheduler=optim.lr_scheduler.StepLR(other, 2))
