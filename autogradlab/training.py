"""A small training loop for the labs: ``fit``, ``accuracy``, ``decision_boundary``, ``plot_history``.

    X, y = data.make_moons(1000, noise=0.1, seed=0)
    model = nn.MLP([2, 32, 32, 2])
    history = fit(model, X, y, F.cross_entropy, optim.Adam(model.parameters(), lr=0.01), epochs=100,
                  batch_size=64)
    decision_boundary(model, X, y)        # a matplotlib Figure

``fit`` is the loop you would write by hand (zero_grad, forward, loss, backward,
step, for every minibatch of every epoch), plus progress: a progress bar and a
live loss curve in Jupyter, one line of text elsewhere. matplotlib and
ipywidgets are imported only when a figure or a widget is made.
"""
from __future__ import annotations

import io
import sys
import time

import numpy

from . import backend
from .data.loader import DataLoader
from .grad_mode import no_grad
from .optim.lr_scheduler import CyclicLR, OneCycleLR, ReduceLROnPlateau
from .tensor import Tensor

__all__ = ["fit", "accuracy", "predict", "decision_boundary", "plot_history"]


def _loss_fn(loss_fn):
    if callable(loss_fn):
        return loss_fn
    from .nn import functional as F
    names = {"cross_entropy": F.cross_entropy, "mse": F.mse_loss, "mse_loss": F.mse_loss,
             "bce_with_logits": F.binary_cross_entropy_with_logits,
             "binary_cross_entropy_with_logits": F.binary_cross_entropy_with_logits}
    if loss_fn not in names:
        raise ValueError(f"fit: unknown loss {loss_fn!r}; pass a function such as F.cross_entropy, or one of "
                         f"{sorted(names)}")
    return names[loss_fn]


def _predicted_classes(output):
    """argmax over classes for (N, C) logits; ``logit > 0`` for a single output (N,) or (N, 1)."""
    out = backend.to_host(output._data)
    if out.ndim == 2 and out.shape[1] > 1:
        return out.argmax(1)
    return (out.reshape(len(out)) > 0).astype("int64")


def _in_notebook():
    """True inside a Jupyter kernel (IPython is imported and has a kernel)."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    try:
        shell = ipython.get_ipython()
    except Exception:  # pragma: no cover - odd IPython installs
        return False
    return shell is not None and getattr(shell, "kernel", None) is not None


def _model_device(model, fallback):
    for p in model.parameters():
        return p.device
    return fallback


def predict(model, X):
    """Class predictions for ``X`` (int64 Tensor), with the model in eval mode and no graph."""
    was_training = getattr(model, "training", False)
    if hasattr(model, "eval"):
        model.eval()
    try:
        with no_grad():
            out = model(X)
    finally:
        if was_training:
            model.train()
    return Tensor._make(_predicted_classes(out), False, None, "cpu")


def accuracy(model, X, y):
    """Fraction of samples whose predicted class (argmax of the logits) equals the label."""
    pred = predict(model, X)._data
    labels = backend.to_host(y._data if isinstance(y, Tensor) else numpy.asarray(y)).reshape(len(pred))
    return float((pred == labels).mean()) if len(pred) else 0.0


class _TextProgress:
    """One line per update: rewritten in place on a terminal, about ten lines when output is a log/file."""

    def __init__(self, epochs, stream=None):
        self.stream = stream or sys.stdout
        self.epochs = epochs
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.every = max(1, epochs // 10)

    def update(self, epoch, loss, acc, elapsed):
        line = f"epoch {epoch:>{len(str(self.epochs))}}/{self.epochs}  loss {loss:.4f}"
        if acc is not None:
            line += f"  accuracy {acc:.3f}"
        line += f"  ({elapsed:.1f} s)"
        if self.tty:
            self.stream.write("\r" + line)
            self.stream.flush()
        elif epoch == 1 or epoch % self.every == 0 or epoch == self.epochs:
            self.stream.write(line + "\n")

    def close(self):
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


class _NotebookProgress:
    """An ipywidgets progress bar, a text label, and a live loss curve (a PNG, redrawn a few times a second)."""

    def __init__(self, epochs):
        import ipywidgets
        from IPython.display import display
        self.epochs = epochs
        self.bar = ipywidgets.IntProgress(min=0, max=epochs, description="training")
        self.label = ipywidgets.Label()
        self.image = ipywidgets.Image(format="png")
        self.losses, self.last_draw = [], 0.0
        display(ipywidgets.VBox([ipywidgets.HBox([self.bar, self.label]), self.image]))

    def update(self, epoch, loss, acc, elapsed):
        self.bar.value = epoch
        self.losses.append(loss)
        self.label.value = f"epoch {epoch}/{self.epochs}  loss {loss:.4f}" + \
            (f"  accuracy {acc:.3f}" if acc is not None else "") + f"  ({elapsed:.1f} s)"
        now = time.perf_counter()
        if now - self.last_draw > 0.3 or epoch == self.epochs:
            self.image.value = _png(plot_history({"loss": self.losses}, figsize=(5, 2.5)))
            self.last_draw = now

    def close(self):
        self.bar.bar_style = "success"


def _png(fig, dpi=80):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    return buf.getvalue()


_FIGURE_CLASS = None


def _new_figure(figsize):
    """A ``matplotlib.figure.Figure`` (no pyplot, no global state) that Jupyter shows as a PNG
    even when no matplotlib backend was activated (no ``%matplotlib inline``, pyplot never imported)."""
    global _FIGURE_CLASS
    if _FIGURE_CLASS is None:
        from matplotlib.figure import Figure

        class LabFigure(Figure):
            def _repr_png_(self):
                return _png(self, dpi=100)

        _FIGURE_CLASS = LabFigure
    return _FIGURE_CLASS(figsize=figsize)


def _make_progress(progress, epochs):
    if progress is False:
        return None
    notebook = _in_notebook() if progress in (None, True) else progress == "notebook"
    if progress not in (None, True, "text", "notebook"):
        raise ValueError(f"fit: progress must be None (automatic), True, False, 'text' or 'notebook', got {progress!r}")
    return _NotebookProgress(epochs) if notebook else _TextProgress(epochs)


def fit(model, X, y, loss_fn, optimizer, epochs, batch_size=None, progress=None, plot=False, shuffle=True,
        seed=None, scheduler=None):
    """Train ``model`` on ``(X, y)``; return ``{"loss": [...], "accuracy": [...]}``, one value per epoch.

    Each minibatch: ``optimizer.zero_grad(); loss_fn(model(xb), yb).backward(); optimizer.step()``.
    The epoch loss is the sample-weighted mean of the minibatch losses; ``accuracy`` (only when
    ``y`` holds integer class labels) counts the predictions made during the epoch.

    batch_size: None for full-batch gradient descent, else minibatches (shuffled each epoch with
        ``seed`` when ``shuffle``).
    progress: None/True for automatic (a progress bar with a live loss curve in Jupyter, a line of
        text elsewhere), False for silence, or "text" / "notebook" to choose.
    plot: also draw the loss (and accuracy) curves into a matplotlib Figure, returned as
        ``history["figure"]`` (and displayed in Jupyter).
    loss_fn: a function ``(output, target) -> scalar`` (``F.cross_entropy``, ``nn.MSELoss()``) or
        one of the names "cross_entropy", "mse", "bce_with_logits".
    scheduler: an ``optim.lr_scheduler`` scheduler of ``optimizer``, stepped after each epoch
        (``ReduceLROnPlateau`` with the epoch's loss), or after each batch for ``OneCycleLR`` and ``CyclicLR``
        (schedules of optimizer steps; inside a ``SequentialLR`` they are stepped with it, once per epoch); ``history["lr"]`` then holds the learning rate each epoch started with
        (of the first param group).
    """
    loss_fn = _loss_fn(loss_fn)
    if scheduler is not None and getattr(scheduler, "optimizer", None) is not optimizer:
        raise ValueError("fit: the scheduler adjusts another optimizer; build it from the one given to fit, "
                         "e.g. StepLR(optimizer, step_size=10)")
    plateau = isinstance(scheduler, ReduceLROnPlateau)
    per_batch = isinstance(scheduler, (OneCycleLR, CyclicLR))   # (schedules of optimizer steps, not of epochs)
    epochs = int(epochs)
    classification = y.dtype.kind in "iu"
    history = {"loss": []}
    if classification:
        history["accuracy"] = []
    if scheduler is not None:
        history["lr"] = []
    batches = [(X, y)] if batch_size is None else DataLoader((X, y), batch_size, shuffle=shuffle, seed=seed)
    n = len(X)
    reporter = _make_progress(progress, epochs)
    start = time.perf_counter()
    model.train()
    try:
        for epoch in range(1, epochs + 1):
            total, correct = 0.0, 0
            if scheduler is not None:
                history["lr"].append(optimizer.param_groups[0]["lr"])
            for xb, yb in batches:
                optimizer.zero_grad()
                out = model(xb)
                loss = loss_fn(out, yb)
                loss.backward()
                optimizer.step()
                if per_batch:
                    scheduler.step()
                total += float(loss.item()) * len(xb)
                if classification:
                    correct += int((_predicted_classes(out) == backend.to_host(yb._data)).sum())
            history["loss"].append(total / n)
            acc = correct / n if classification else None
            if classification:
                history["accuracy"].append(acc)
            if scheduler is not None and not per_batch:
                scheduler.step(total / n) if plateau else scheduler.step()
            if reporter is not None:
                reporter.update(epoch, total / n, acc, time.perf_counter() - start)
    finally:
        if reporter is not None:
            reporter.close()
    if plot:
        fig = plot_history(history)
        if _in_notebook() and not isinstance(reporter, _NotebookProgress):
            from IPython.display import display
            display(fig)
        history["figure"] = fig
    return history


def plot_history(history, figsize=(6, 3)):
    """A Figure with the loss per epoch (log scale) and, if present, the accuracy per epoch."""
    has_acc = bool(history.get("accuracy"))
    fig = _new_figure(figsize)
    axes = fig.subplots(1, 2 if has_acc else 1, squeeze=False)[0]
    epochs = numpy.arange(1, len(history["loss"]) + 1)
    axes[0].plot(epochs, history["loss"], color="tab:blue")
    axes[0].set_xlabel("epoch")
    axes[0].set_ylabel("loss")
    if len(epochs) and min(history["loss"]) > 0:
        axes[0].set_yscale("log")
    if has_acc:
        axes[1].plot(epochs, history["accuracy"], color="tab:green")
        axes[1].set_xlabel("epoch")
        axes[1].set_ylabel("accuracy")
        axes[1].set_ylim(0, 1.02)
    fig.tight_layout()
    return fig


def decision_boundary(model, X, y, ax=None, resolution=200, padding=0.5):
    """Colour the plane by the class ``model`` predicts and scatter ``(X, y)`` on top.

    ``X`` must have two features. Returns the matplotlib Figure (draws into ``ax`` if given);
    nothing is shown: in Jupyter, the returned Figure displays itself as the cell's value.
    """
    from matplotlib.colors import ListedColormap

    from .tensor import tensor
    X = X if isinstance(X, Tensor) else tensor(X)
    y = y if isinstance(y, Tensor) else tensor(y)
    host_X, host_y = backend.to_host(X._data), backend.to_host(y._data).reshape(-1)
    if host_X.ndim != 2 or host_X.shape[1] != 2:
        raise ValueError(f"decision_boundary needs 2-D points, X of shape (N, 2); got {tuple(host_X.shape)}")
    (x0, y0), (x1, y1) = host_X.min(0) - padding, host_X.max(0) + padding
    xx, yy = numpy.meshgrid(numpy.linspace(x0, x1, resolution), numpy.linspace(y0, y1, resolution))
    grid = numpy.stack([xx.ravel(), yy.ravel()], 1).astype(host_X.dtype)
    device = _model_device(model, X.device)
    zz = predict(model, Tensor._make(backend.asarray(grid, device), False, None, device))._data.reshape(xx.shape)
    classes = int(max(zz.max(), host_y.max() if host_y.size else 0)) + 1
    cmap = ListedColormap(["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                           "#7f7f7f", "#bcbd22", "#17becf"][:max(classes, 2)])
    if ax is None:
        fig = _new_figure((5, 4.5))
        ax = fig.add_subplot()
    else:
        fig = ax.figure
    levels = numpy.arange(max(classes, 2) + 1) - 0.5
    ax.contourf(xx, yy, zz, levels=levels, cmap=cmap, alpha=0.3)
    ax.scatter(host_X[:, 0], host_X[:, 1], c=host_y, cmap=cmap, vmin=-0.5, vmax=max(classes, 2) - 0.5,
               s=12, edgecolors="k", linewidths=0.3)
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_title(f"decision boundary (accuracy {accuracy(model, X, y):.1%})")
    return fig
