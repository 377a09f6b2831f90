"""Notebook helpers with deterministic output, for the lessons and the spec notebooks.

Everything here prints plain text that is the same on every run and every machine
(rounded numbers, no memory addresses, no timings), so notebooks that use these
helpers can be checked by ``pytest --nbval`` cell by cell.

    show_error(lambda: y.backward())      # prints "RuntimeError: grad can be implicitly ..."
    show_warnings(lambda: x.grad)         # prints "UserWarning: The .grad attribute ..."
    show(x_grad=x.grad, w_grad=w.grad)    # prints "x_grad = [2, 4]" and "w_grad = 3"
"""
from __future__ import annotations

import random
import warnings

import numpy

from ..events import format_array, format_number

__all__ = ["show_error", "show_warnings", "fmt", "show", "gpu_available", "seed_everything", "figure_summary",
           "shapes_in_tape", "leaf_grads", "advance"]


# ---------------------------------------------------------------------------------------
# Errors and warnings as checked text
# ---------------------------------------------------------------------------------------

def show_error(fn, *args, **kwargs):
    """Call ``fn(*args, **kwargs)`` and print the exception it raises as ``Type: message``.

    Prints ``no error (returned <value>)`` when nothing is raised, so a notebook cell
    documents the error message itself (and nbval checks it). Returns None, so the
    cell shows nothing else.
    """
    try:
        result = fn(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001  (printing it is the point)
        print(f"{type(exc).__name__}: {exc}")
        return None
    print(f"no error (returned {fmt(result)})")
    return None


def show_warnings(fn, *args, **kwargs):
    """Call ``fn`` while recording warnings; print each as ``Category: message``.

    Prints ``no warning`` when there was none. Returns what ``fn`` returned (so the
    cell can go on using it), but displays nothing extra.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn(*args, **kwargs)
    if not caught:
        print("no warning")
    for w in caught:
        print(f"{w.category.__name__}: {w.message}")
    return result


# ---------------------------------------------------------------------------------------
# Numbers as short, rounded text
# ---------------------------------------------------------------------------------------

_fmt_number, _nested = format_number, format_array   # the same rounding as tape.table()


def _host(value):
    """A host NumPy array for a Tensor, a NumPy/CuPy array or a number; None stays None."""
    from ..tensor import Tensor
    if isinstance(value, Tensor):
        from .. import backend
        return backend.to_host(value._data)
    if hasattr(value, "get") and type(value).__module__.split(".")[0] == "cupy":
        return value.get()
    return numpy.asarray(value)


def fmt(value, digits=4):
    """Short rounded text for a number, array, Tensor, None, or a tuple/list of those.

    ``fmt(tensor([1.23456, 2.0]))`` is ``[1.235, 2]``; floats keep ``digits``
    significant digits, so tiny float32 noise never changes the printed text.
    """
    from ..tensor import Tensor
    if value is None:
        return "None"
    if isinstance(value, (tuple, list)) and (not value or any(
            v is None or isinstance(v, (Tensor, numpy.ndarray, tuple, list, str)) for v in value)):
        inner = ", ".join(fmt(v, digits) for v in value)
        return f"({inner})" if isinstance(value, tuple) else f"[{inner}]"
    if isinstance(value, str):
        return value
    if isinstance(value, (Tensor, numpy.ndarray, numpy.generic, int, float, complex, list, tuple)) or \
            type(value).__module__.split(".")[0] == "cupy":
        return _nested(_host(value), digits)
    return repr(value)


def show(digits=4, **named):
    """Print ``name = value`` for each keyword, values rounded with :func:`fmt`."""
    width = max((len(k) for k in named), default=0)
    for name, value in named.items():
        print(f"{name.ljust(width)} = {fmt(value, digits)}")


# ---------------------------------------------------------------------------------------
# Environment
# ---------------------------------------------------------------------------------------

def gpu_available() -> bool:
    """True when CuPy is installed and sees at least one GPU (never raises)."""
    try:
        import cupy  # noqa: F401
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # noqa: BLE001  (no cupy, no driver, no device: all mean "no")
        return False


def seed_everything(seed=0):
    """Seed autogradlab's generator, NumPy's legacy global generator and ``random``."""
    from .. import creation
    creation.manual_seed(seed)
    numpy.random.seed(seed)
    random.seed(seed)


# ---------------------------------------------------------------------------------------
# Text summaries of pictures and tapes (the checked neighbours of image cells)
# ---------------------------------------------------------------------------------------

def figure_summary(fig, digits=3):
    """A text summary of a matplotlib Figure: per axes its title, labels and what is drawn.

    Put it in a checked cell next to a figure cell (whose PNG nbval ignores), so the
    test still sees what the picture shows.
    """
    lines = []
    for i, ax in enumerate(fig.get_axes()):
        title = ax.get_title() or "(no title)"
        lines.append(f"axes {i}: {title}")
        if ax.get_xlabel() or ax.get_ylabel():
            lines.append(f"  x: {ax.get_xlabel() or '-'}   y: {ax.get_ylabel() or '-'}"
                         + (f" ({ax.get_yscale()} scale)" if ax.get_yscale() != "linear" else ""))
        for line in ax.get_lines():
            y = numpy.asarray(line.get_ydata(), dtype=float)
            label = line.get_label()
            label = "" if label.startswith("_") else f" '{label}'"
            if y.size:
                lines.append(f"  line{label}: {y.size} points, first {_fmt_number(y[0], digits)}, "
                             f"last {_fmt_number(y[-1], digits)}")
        bars = [p for p in ax.patches]
        if bars:
            lines.append(f"  {len(bars)} bars")
        labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
        if labels and bars:
            lines.append(f"  bar labels: {', '.join(labels)}")
    return "\n".join(lines) if lines else "(empty figure)"


def shapes_in_tape(tape):
    """Each forward op of a tape with the shape it produced: ``t3 = mul(t1, t2) -> (200, 200)``."""
    from ..events import OpRecorded
    out = []
    for e in tape.events:
        if isinstance(e, OpRecorded):
            ins = ", ".join(f"{r.name}{list(r.shape)}" for r in e.inputs)
            out.append(f"{e.output.name} = {e.op}({ins}) -> {list(e.output.shape)}")
    return "\n".join(out)


def leaf_grads(**tensors):
    """Print each named tensor's ``.grad`` (rounded), or ``None``; never warns."""
    width = max((len(k) for k in tensors), default=0)
    for name, t in tensors.items():
        print(f"{(name + '.grad').ljust(width + 5)} = {fmt(t._grad)}")


def advance(it, n=1):
    """Take up to ``n`` events from a :class:`autogradlab.steps` iterator, printing each in words.

    Returns None (so a cell ending in ``advance(it)`` shows only the printed lines).
    """
    from ..events import describe
    for _ in range(n):
        event = next(it, None)
        if event is None:
            print("(the backward pass is over)")
            break
        print(f"[{event.step}] {describe(event)}")
