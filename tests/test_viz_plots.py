"""viz plots: each returns a matplotlib Figure built without pyplot (no global state, nothing shown)."""
import math

import numpy as np
import pytest

import autogradlab as ag
from autogradlab import nn, viz

matplotlib = pytest.importorskip("matplotlib")
from matplotlib.figure import Figure  # noqa: E402


@pytest.fixture
def no_pyplot_figures():
    """The plots must not create pyplot figures (they would pile up and show themselves)."""
    import matplotlib.pyplot as plt
    before = plt.get_fignums()
    yield
    assert plt.get_fignums() == before


def test_grad_timeline_draws_each_tensors_gradient_norm(no_pyplot_figures):
    a = ag.tensor([3.0, 4.0], requires_grad=True, name="a")
    b = ag.tensor(2.0, requires_grad=True, name="b")
    with ag.trace() as tape:
        y = (a * b).sum() + (a * a).sum()
        y.backward(retain_graph=True)
        y.backward()
    fig = viz.grad_timeline(tape)
    assert isinstance(fig, Figure)
    (ax,) = fig.axes
    lines = {line.get_label(): line for line in ax.get_lines() if not line.get_label().startswith("_")}
    assert {"a", "b"} <= set(lines)
    a_line = lines["a"]
    ys = a_line.get_ydata()
    # a.grad = b + 2a = [8, 10] after one pass, [16, 20] after two: the last value is its norm
    assert math.isclose(ys[-1], math.hypot(16, 20), rel_tol=1e-5)
    assert math.isclose(max(lines["b"].get_ydata()), 2 * (3 + 4), rel_tol=1e-5)
    assert ax.get_xlabel() == "step" and "norm" in ax.get_ylabel()
    passes = [ln for ln in ax.get_lines() if ln.get_linestyle() == ":"]
    assert len(passes) == 2                              # one marker per backward pass
    only_b = viz.grad_timeline(tape, names=["b"])
    assert [ln.get_label() for ln in only_b.axes[0].get_lines() if not ln.get_label().startswith("_")] == ["b"]


def test_grad_timeline_rejects_what_is_not_a_tape():
    with pytest.raises(TypeError, match="Tape"):
        viz.grad_timeline([1, 2, 3])


def test_grad_flow_from_a_model_and_from_pairs(no_pyplot_figures):
    ag.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    x = ag.randn(5, 3)
    model(x).sum().backward()
    fig = viz.grad_flow(model)
    assert isinstance(fig, Figure)
    (ax,) = fig.axes
    names = [t.get_text() for t in ax.get_xticklabels()]
    assert names == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert len(ax.patches) == 2 * 4                                   # max bar + mean bar per parameter
    heights = [p.get_height() for p in ax.patches]
    first = dict(model.named_parameters())["0.weight"].grad.numpy()
    assert math.isclose(heights[0], float(np.abs(first).max()), rel_tol=1e-6)        # max bars first
    assert math.isclose(heights[4], float(np.abs(first).mean()), rel_tol=1e-6)       # then mean bars
    assert {t.get_text() for t in ax.get_legend().get_texts()} == {"max |grad|", "mean |grad|"}

    w = ag.tensor([1.0, -2.0], requires_grad=True)
    unused = ag.tensor([1.0], requires_grad=True)
    (w * w).sum().backward()
    fig = viz.grad_flow([("w", w), ("unused", unused)])
    ax = fig.axes[0]
    assert [p.get_height() for p in ax.patches][:2] == [4.0, 0.0]
    assert any(t.get_text() == "no grad" for t in ax.texts)
    with pytest.raises(TypeError, match="named_parameters"):
        viz.grad_flow([w])


def test_training_curves_one_panel_per_metric(no_pyplot_figures):
    history = {"loss": [1.0, 0.5, 0.25], "val_loss": [1.1, 0.7, 0.4], "accuracy": [0.5, 0.7, 0.9],
               "figure": object()}
    fig = viz.training_curves(history)
    assert isinstance(fig, Figure)
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == ["loss", "accuracy"]
    loss_ax, acc_ax = fig.axes
    assert [ln.get_label() for ln in loss_ax.get_lines()] == ["loss", "val_loss"]
    assert list(acc_ax.get_lines()[0].get_ydata()) == [0.5, 0.7, 0.9]
    assert list(acc_ax.get_lines()[0].get_xdata()) == [1, 2, 3] and acc_ax.get_xlabel() == "epoch"
    assert viz.training_curves({"loss": [100.0, 1.0, 0.01]}).axes[0].get_yscale() == "log"
    with pytest.raises(ValueError, match="no lists"):
        viz.training_curves({"figure": object()})
    with pytest.raises(TypeError):
        viz.training_curves([1, 2])


def test_figures_render_without_a_display(tmp_path):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    fig = viz.training_curves({"loss": [3.0, 2.0, 1.0]})
    FigureCanvasAgg(fig).print_png(tmp_path / "curves.png")
    assert (tmp_path / "curves.png").stat().st_size > 1000
