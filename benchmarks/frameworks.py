"""One small adapter class per framework: the only code that knows each framework's API.

The workloads (``workloads.py``) are written once against this interface:

=====================  ==============================================================
``param(arr)``         a leaf that requires grad, made from a float32 NumPy array
``const(arr)``         a constant array (no grad)
``scalar(v)``          a Python-number constant in the framework's idiomatic form
``tanh``, ``sum``      elementwise tanh, sum of all elements (``+ * @`` are operators)
``log_softmax(x)``     log-softmax over the last axis
``forward(fn, ps)``    run ``fn(ps)`` recording the graph; returns a *handle*
``output(h)``          the handle's (scalar) value as a Python float
``backward(h, ps)``    backprop from the handle; returns the leaves' gradients as NumPy
                       arrays and clears ``.grad`` (so repetitions do not accumulate)
``hvp(fn, ps, vs)``    Hessian-vector product of the scalar ``fn`` (double backward)
=====================  ==============================================================

Reading the gradients (``backward``'s return) is part of the timed backward; the
conversions are zero-copy views for every framework here.

A framework whose package is missing raises :class:`Unavailable` from its
constructor (the runner then skips it with a note); a workload that a framework
cannot express raises :class:`workloads.Unsupported` (reported as ``n/a``).
"""
from __future__ import annotations

import functools
import math
import operator
import os
import sys

import numpy as np


class Unavailable(Exception):
    """The framework is not importable in this interpreter."""


class Unsupported(Exception):
    """The framework cannot run this workload (shown as n/a, with the reason)."""


def _version(dist):
    try:
        from importlib.metadata import version
        return version(dist)
    except Exception:  # noqa: BLE001  (metadata missing: not fatal)
        return "?"


def _threads():
    try:
        return max(1, int(os.environ.get("OMP_NUM_THREADS", "1")))
    except ValueError:
        return 1


class Adapter:
    name = "?"
    label = "?"
    dtype = "float32"
    scalar_only = False        # micrograd: only one-element workloads
    has_retain_graph = True    # W4 runs retain_graph=False and True
    has_create_graph = True    # W5 needs double backward
    notes = ""

    def version(self):
        return "?"

    # ops -----------------------------------------------------------------------
    def tanh(self, x):
        return x.tanh()

    def sum(self, x):
        return x.sum()

    def log_softmax(self, x):
        raise Unsupported("no log_softmax")

    def scalar(self, v):
        return float(v)

    # graph -----------------------------------------------------------------------
    def forward(self, fn, params):
        return fn(params)

    def output(self, handle):
        return float(handle.item())

    def backward(self, handle, params, retain_graph=False):
        raise NotImplementedError

    def hvp(self, fn, params, vecs):
        raise Unsupported("no double backward")


# ------------------------------------------------------------------------------- torch
class TorchAdapter(Adapter):
    name, label = "torch", "torch"
    notes = "reference column; CPU build, torch.set_num_threads(1) when BLAS is pinned to 1 thread"

    def __init__(self):
        try:
            import torch
        except ImportError as exc:
            raise Unavailable(f"torch not importable: {exc}") from None
        self.torch = torch
        torch.set_num_threads(_threads())
        try:
            torch.set_num_interop_threads(1)
        except RuntimeError:
            pass

    def version(self):
        return self.torch.__version__

    def param(self, arr):
        return self.torch.from_numpy(np.array(arr, copy=True)).requires_grad_(True)

    def const(self, arr):
        return self.torch.from_numpy(np.array(arr, copy=True))

    def log_softmax(self, x):
        return self.torch.log_softmax(x, dim=-1)

    def backward(self, handle, params, retain_graph=False):
        handle.backward(retain_graph=retain_graph)
        grads = [p.grad.numpy() for p in params]
        for p in params:
            p.grad = None
        return grads

    def hvp(self, fn, params, vecs):
        grad = self.torch.autograd.grad
        loss = fn(params)
        gs = grad(loss, params, create_graph=True)
        dot = functools.reduce(operator.add, [(g * v).sum() for g, v in zip(gs, vecs)])
        return [h.numpy() for h in grad(dot, params)]


# ------------------------------------------------------------------------- autogradlab
class AutogradlabAdapter(Adapter):
    name, label = "autogradlab", "autogradlab"
    notes = "this project (imported from the working tree)"

    def __init__(self):
        try:
            import autogradlab
        except ImportError as exc:
            raise Unavailable(f"autogradlab not importable: {exc}") from None
        self.ag = autogradlab

    def version(self):
        v = getattr(self.ag, "__version__", "?")
        return v

    def param(self, arr):
        return self.ag.tensor(np.asarray(arr), requires_grad=True)

    def const(self, arr):
        return self.ag.tensor(np.asarray(arr))

    def log_softmax(self, x):
        return self.ag.log_softmax(x, -1)

    def backward(self, handle, params, retain_graph=False):
        handle.backward(retain_graph=retain_graph)
        grads = [p.grad._data for p in params]
        for p in params:
            p.grad = None
        return grads

    def hvp(self, fn, params, vecs):
        grad = self.ag.autograd.grad
        loss = fn(params)
        gs = grad(loss, params, create_graph=True)
        dot = functools.reduce(operator.add, [(g * v).sum() for g, v in zip(gs, vecs)])
        return [h._data for h in grad(dot, params)]


# ------------------------------------------------------------------------ HIPS autograd
class HipsAutogradAdapter(Adapter):
    name, label = "autograd", "HIPS autograd"
    has_retain_graph = False
    notes = ("functional API: forward = make_vjp trace, backward = calling the vjp; the graph lives as long "
             "as the vjp closure (no retain_graph: W4 shows its only behaviour in the retain_graph=False rows); "
             "log_softmax written with autograd.numpy (autograd.scipy needs SciPy)")

    def __init__(self):
        try:
            import autograd
            import autograd.numpy as anp
        except ImportError as exc:
            raise Unavailable(f"autograd not importable: {exc}") from None
        self.autograd, self.anp = autograd, anp

    def version(self):
        return _version("autograd")

    def param(self, arr):
        return np.array(arr, copy=True)

    def const(self, arr):
        return np.asarray(arr)

    def scalar(self, v):
        return np.float32(v)  # a Python float would promote float32 arrays to float64

    def tanh(self, x):
        return self.anp.tanh(x)

    def sum(self, x):
        return self.anp.sum(x)

    def log_softmax(self, x):
        anp = self.anp
        m = anp.max(x, axis=-1, keepdims=True)
        z = x - m
        return z - anp.log(anp.sum(anp.exp(z), axis=-1, keepdims=True))

    def forward(self, fn, params):
        vjp, ans = self.autograd.make_vjp(fn)(list(params))
        return vjp, ans

    def output(self, handle):
        return float(handle[1])

    def backward(self, handle, params, retain_graph=False):
        vjp, ans = handle
        return list(vjp(np.ones_like(ans)))

    def hvp(self, fn, params, vecs):
        anp, grad = self.anp, self.autograd.grad
        g = grad(fn)

        def gv(p):
            return functools.reduce(operator.add, [anp.sum(gi * vi) for gi, vi in zip(g(p), vecs)])

        return list(grad(gv)(list(params)))


# ------------------------------------------------------------------------------ mygrad
class MygradAdapter(Adapter):
    name, label = "mygrad", "mygrad"
    has_retain_graph = False
    has_create_graph = False
    notes = ("backward() always clears the graph (no retain_graph; W4 shows its only behaviour in the "
             "retain_graph=False rows), no create_graph; constants passed as np.float32 because Python floats "
             "promote to float64")

    def __init__(self):
        try:
            import mygrad
            import mygrad.nnet
        except ImportError as exc:
            raise Unavailable(f"mygrad not importable: {exc}") from None
        self.mg = mygrad

    def version(self):
        return getattr(self.mg, "__version__", _version("mygrad"))

    def param(self, arr):
        return self.mg.tensor(np.array(arr, copy=True))

    def const(self, arr):
        return self.mg.Tensor(np.asarray(arr), constant=True)

    def scalar(self, v):
        return np.float32(v)

    def tanh(self, x):
        return self.mg.tanh(x)

    def sum(self, x):
        return self.mg.sum(x)

    def log_softmax(self, x):
        return self.mg.nnet.logsoftmax(x, axis=-1)

    def backward(self, handle, params, retain_graph=False):
        if retain_graph:
            raise Unsupported("mygrad has no retain_graph")
        handle.backward()
        grads = [p.grad for p in params]
        for p in params:
            p.null_grad()
        return grads

    def hvp(self, fn, params, vecs):
        raise Unsupported("mygrad computes gradients as plain NumPy arrays: no create_graph / double backward")


# ---------------------------------------------------------------------------- micrograd
def _micrograd_tanh(Value, x):
    """tanh for micrograd 0.1.0 (it ships relu only), written like micrograd's own ops."""
    t = math.tanh(x.data)
    out = Value(t, (x,), "tanh")

    def _backward():
        x.grad += (1.0 - t * t) * out.grad

    out._backward = _backward
    return out


class MicrogradAdapter(Adapter):
    name, label = "micrograd", "micrograd"
    dtype = "float64 (Python float)"
    scalar_only = True
    has_retain_graph = False
    has_create_graph = False
    notes = ("scalar-only engine (W1, W3 only); tanh added in the adapter if missing (0.1.0 ships relu only); "
             "recursive topological sort needs a raised recursion limit")

    def __init__(self):
        try:
            from micrograd.engine import Value
        except ImportError as exc:
            raise Unavailable(f"micrograd not importable: {exc}") from None
        self.Value = Value
        self.native_tanh = hasattr(Value, "tanh")
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 100_000))

    def version(self):
        return _version("micrograd")

    def _scalar_of(self, arr):
        arr = np.asarray(arr)
        if arr.size != 1:
            raise Unsupported("scalar-only engine: needs one-element tensors")
        return float(arr.reshape(-1)[0])

    def param(self, arr):
        return self.Value(self._scalar_of(arr))

    def const(self, arr):
        return self._scalar_of(arr)

    def tanh(self, x):
        return x.tanh() if self.native_tanh else _micrograd_tanh(self.Value, x)

    def sum(self, x):
        return x  # one element

    def output(self, handle):
        return float(handle.data)

    def backward(self, handle, params, retain_graph=False):
        handle.backward()
        grads = [np.array([p.grad]) for p in params]
        for p in params:
            p.grad = 0.0
        return grads


# ------------------------------------------------------------------------- numpy floor
class NumpyFloor(Adapter):
    """Not an autograd engine: the hand-written NumPy forward+backward of W1-W3 (``workloads.numpy_*``).

    The lower bound an engine over NumPy could reach: the same array calls, no graph."""
    name, label = "numpy", "numpy floor"
    has_retain_graph = False
    has_create_graph = False
    notes = "hand-written NumPy forward+backward, no autograd (W1-W3 only): the floor for an engine over NumPy"

    def version(self):
        return np.__version__


#: column order in tables; torch first (it is the reference)
REGISTRY = {
    "torch": TorchAdapter,
    "autogradlab": AutogradlabAdapter,
    "numpy": NumpyFloor,
    "autograd": HipsAutogradAdapter,
    "mygrad": MygradAdapter,
    "micrograd": MicrogradAdapter,
}
LABELS = {k: v.label for k, v in REGISTRY.items()}


def load(name):
    if name not in REGISTRY:
        raise Unavailable(f"unknown framework {name!r} (known: {', '.join(REGISTRY)})")
    return REGISTRY[name]()
