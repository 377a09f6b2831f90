"""The student's side of grading: call the student's objects on inputs the grader chose.

This module runs *inside the student's kernel*, after the student's cells, and is
therefore untrusted: a notebook can patch anything here. That is fine by design:
it only carries the grader's fresh inputs to the student's functions and carries
their raw outputs back as plain JSON. It never decides a verdict; the judges in
:mod:`.judges` do that in the grading process, which never runs student code.

The grader sends this file's source into the kernel (it is not imported from the
student's ``sys.modules``), then one request per probe::

    {"op": "call", "target": "mul_vjp", "args": [...], "kwargs": {...}}
    {"op": "harness", "name": "topo_sort", "target": "topo_sort", "params": {...}}

and reads one line ``<nonce> <json>`` back from the cell's output.

Wire format (both directions): JSON, with arrays as ``{"__array__": nested list,
"dtype": name}``, tensors as ``{"__tensor__": ..., "dtype", "requires_grad", "grad", "name"}``,
functions (grader to student only) as ``{"__fn__": "lambda x: ...", "env": {...}}``,
graph nodes (student to grader) as ``{"__node__": label}`` and anything else the
student returns as ``{"__object__": type name}``. Floats keep every bit (``repr``).
"""
from __future__ import annotations

import json
import math
import traceback

import numpy

__all__ = ["encode", "decode", "decode_answer", "build_graph", "node_label", "serve"]


# ---------------------------------------------------------------------------------------
# Encoding
# ---------------------------------------------------------------------------------------

def _ag():
    import autogradlab
    return autogradlab


def _array(a):
    a = numpy.asarray(a)
    if a.dtype.kind not in "biuf":
        return {"__object__": f"array of {a.dtype}"}
    return {"__array__": a.tolist(), "dtype": str(a.dtype)}


def encode(value, depth=0):
    """Student value -> JSON-able data (never raises; unknown objects become their type name)."""
    ag = _ag()
    if depth > 6:
        return {"__object__": "too deeply nested"}
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value) if isinstance(value, float) else int(value)
    if isinstance(value, numpy.generic):
        return value.item() if value.dtype.kind in "biuf" else {"__object__": type(value).__name__}
    if isinstance(value, ag.Tensor):
        from autogradlab import backend
        grad = value._grad
        return {"__tensor__": _array(backend.to_host(value._data)), "requires_grad": bool(value.requires_grad),
                "grad": None if grad is None else _array(backend.to_host(grad._data)), "name": value.name or ""}
    if isinstance(value, numpy.ndarray):
        return _array(value)
    if type(value).__module__.split(".")[0] == "cupy":
        return _array(value.get())
    from autogradlab.graph import Node
    if isinstance(value, Node):
        return {"__node__": node_label(value)}
    if isinstance(value, (list, tuple)):
        return {"__seq__": [encode(v, depth + 1) for v in value], "tuple": isinstance(value, tuple)}
    if isinstance(value, dict):
        return {"__dict__": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]}
    return {"__object__": type(value).__name__}


def decode(data, namespace=None, *, answer=False, depth=0):
    """JSON data -> values: arrays, tensors (autogradlab), functions (evaluated in ``namespace``).

    ``answer=True`` is the grader reading what the student's kernel sent back: data only (numbers, strings,
    arrays of numbers, tensors, sequences, dicts, node labels, type names). It never evaluates anything: the
    kernel runs the student's code, which may forge the answer line, so a ``__fn__`` (code the grader would
    run), an array of objects or anything else is refused with ValueError, as a malformed answer."""
    if depth > 32:
        raise ValueError("the answer is nested too deeply")

    def inner(value):
        return decode(value, namespace, answer=answer, depth=depth + 1)
    if isinstance(data, list):
        return [inner(v) for v in data]
    if not isinstance(data, dict):
        if answer and data is not None and not isinstance(data, (bool, int, float, str)):
            raise ValueError(f"the answer holds a {type(data).__name__}")
        return data
    if "__array__" in data:
        dtype = numpy.dtype(str(data.get("dtype")))
        if answer and dtype.kind not in "biuf":
            raise ValueError(f"the answer holds an array of {dtype}, not of numbers")
        return numpy.array(data["__array__"], dtype=dtype)
    if "__tensor__" in data:
        ag = _ag()
        arr = inner(data["__tensor__"])
        if not isinstance(arr, numpy.ndarray):
            raise ValueError("the answer holds a tensor without an array of numbers")
        t = ag.tensor(arr, dtype=str(arr.dtype), requires_grad=bool(data.get("requires_grad")) and
                      arr.dtype.kind == "f", name=str(data.get("name") or "") or None)
        if data.get("grad") is not None:
            grad = inner(data["grad"])
            if not isinstance(grad, numpy.ndarray) or grad.shape != arr.shape:
                raise ValueError("the answer holds a tensor whose .grad is not an array of its shape")
            t.grad = ag.tensor(grad, dtype=str(arr.dtype))
        return t
    if "__fn__" in data:
        if answer:
            raise ValueError("the answer holds code (a function), which the grader never runs")
        env = {"np": numpy, "numpy": numpy, "math": math, "ag": _ag()}
        env.update({k: inner(v) for k, v in data.get("env", {}).items()})
        return eval(data["__fn__"], env)  # noqa: S307  (the grader's own code, as text)
    if "__seq__" in data:
        items = [inner(v) for v in data["__seq__"]]
        return tuple(items) if data.get("tuple") else items
    if "__dict__" in data:
        return {_hashable(inner(k)): inner(v) for k, v in data["__dict__"]}
    if "__node__" in data or "__object__" in data:
        return {k: str(v) for k, v in data.items()} if answer else data
    return {str(k) if answer else k: inner(v) for k, v in data.items()}


def decode_answer(data):
    """:func:`decode` of what the student's kernel sent back (``answer=True``: data only, never code)."""
    return decode(data, answer=True)


def _hashable(key):
    return key if not isinstance(key, (dict, list)) else json.dumps(key, sort_keys=True)


# ---------------------------------------------------------------------------------------
# Graphs from a spec (the same code builds them on both sides)
# ---------------------------------------------------------------------------------------

def build_graph(spec):
    """Build a named graph from ``spec`` = {"leaves": {name: values}, "ops": [[name, op, arg names]]}.

    Ops: add, mul (two args), sin, exp, tanh, square (one), sum (one, to a scalar). The last op is
    the root; returns (root tensor, {name: tensor}).
    """
    ag = _ag()
    named = {}
    for name, values in spec["leaves"].items():
        named[name] = ag.tensor(numpy.asarray(values, dtype=float), dtype="float64", requires_grad=True, name=name)
    unary = {"sin": lambda a: a.sin(), "exp": lambda a: a.exp(), "tanh": lambda a: a.tanh(),
             "square": lambda a: a * a, "sum": lambda a: a.sum()}
    binary = {"add": lambda a, b: a + b, "mul": lambda a, b: a * b}
    out = None
    for name, op, args in spec["ops"]:
        ins = [named[a] for a in args]
        out = binary[op](*ins) if op in binary else unary[op](*ins)
        out.name = name
        named[name] = out
    return out, named


def node_label(node):
    """A node's name across processes: the name of the tensor it makes (for AccumulateGrad: its leaf)."""
    var = getattr(node, "variable", None)
    if var is not None:
        return f"AccumulateGrad({var.name})"
    meta = getattr(node, "_out_meta", None)
    out = meta[0]() if meta else None
    return f"{node.name()}({out.name if out is not None and out.name else '?'})"


# ---------------------------------------------------------------------------------------
# Harnesses: what a check needs beyond one call
# ---------------------------------------------------------------------------------------

def _harness_topo_sort(fn, spec):
    root, _ = build_graph(spec)
    order = fn(root.grad_fn)
    return {"order": encode(list(order) if isinstance(order, (list, tuple)) else order)}


def count_engine_use(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` and how it used autogradlab's own backward machinery: (its result, the passes of
    the engine it started (``backward``, ``autograd.grad``, ``steps``; traced or not), the ``node.apply(g)`` calls
    it made itself, as (node, g) pairs, the engine's own left out). The shortcuts that exercises done by hand
    rule out, and the steps of a student's own engine."""
    from autogradlab import engine
    from autogradlab.graph import Node
    passes, applies, running = [0], [], [0]
    original_execute, original_apply = engine._execute, Node.apply

    def counted_execute(*a, **k):   # (every pass of the engine runs this generator)
        passes[0] += 1
        running[0] += 1
        try:
            yield from original_execute(*a, **k)
        finally:
            running[0] -= 1

    def recorded_apply(node, grad):
        if not running[0]:
            applies.append((node, grad))
        return original_apply(node, grad)

    engine._execute, Node.apply = counted_execute, recorded_apply
    try:
        result = fn(*args, **kwargs)
    finally:
        engine._execute, Node.apply = original_execute, original_apply
    return result, passes[0], applies


def _harness_mini_backward(fn, spec):
    root, _ = build_graph(spec)
    result, passes, steps = count_engine_use(fn, root)
    return {"result": encode(result), "engine_passes": passes,
            "steps": [{"node": node_label(node), "grad": encode(grad)} for node, grad in steps]}


def _harness_grad_by_microbatches(fn, w, X, y, k):
    """Run the student's function under a trace: its result, its backward passes, its accumulations into w."""
    ag = _ag()
    w.name = "w"
    with ag.trace() as tape:
        result = fn(w, X, y, k)
    steps = [{"before": None if e.before is None else encode(numpy.asarray(e.before.data, dtype=float))}
             for e in tape.of_kind("Accumulated") if e.where == "leaf" and e.tensor is not None
             and e.tensor.name == "w"]
    return {"result": encode(result), "passes": len(tape.of_kind("BackwardStarted")), "accumulations": steps}


def _harness_round_ste(fn, x, weights):
    y = fn(x)
    out = {"y": encode(y)}
    ag = _ag()
    if isinstance(y, ag.Tensor) and y.requires_grad:
        (y * ag.tensor(weights, dtype=str(y._data.dtype))).sum().backward()
    out["x_grad"] = encode(x._grad)
    return out


def _harness_exp_function(fn, x, g):
    ag = _ag()
    from autogradlab.function import Function
    y = fn.apply(x)
    out = {"y": encode(y), "is_function": isinstance(fn, type) and issubclass(fn, Function)}
    if not isinstance(y, ag.Tensor) or y.grad_fn is None:
        return out
    out["node"] = y.grad_fn.name()
    out["own_node"] = getattr(y.grad_fn, "_fn_class", None) is fn
    saved = y.grad_fn._saved or {}
    kinds = []
    for s in saved.values():
        kinds.append(encode(s[1]))   # (source, data, vc, version): the saved array, None when packed
    out["saved"] = kinds
    (gx,) = ag.autograd.grad(y, x, ag.tensor(g, dtype="float64"))
    out["grad"] = encode(gx)
    return out


def _harness_fixed_loss(fn, logits, y):
    ag = _ag()
    loss = fn(logits, y)
    out = {"loss": encode(loss)}
    if isinstance(loss, ag.Tensor) and loss.requires_grad and loss.numel() == 1:
        (g,) = ag.autograd.grad(loss, logits)
        out["grad"] = encode(g)
    return out


def _harness_train_model(fn, X, y, X_test, steps, lr, seed, W, D, h):
    """Build the student's model; at initialisation measure the gradient reaching the input (of the loss,
    and of sum(W * model(X)) with that sum at X +- h D for a finite difference); train; predict X_test. The
    finite difference runs on a float64 copy of the model with a step of 1e-7 (in float32 a step large enough
    to beat rounding moves ReLU units across their kinks); ``h`` is the float32 step for a model that cannot
    be copied."""
    import copy
    ag = _ag()
    from autogradlab import optim
    from autogradlab.nn import functional as F
    ag.manual_seed(seed)
    model = fn()
    work = next((p.dtype for p in model.parameters()), ag.get_default_dtype()).name   # (what it was built in)
    Xt = ag.tensor(X, dtype=work, requires_grad=True)
    yt = ag.tensor(y)
    F.cross_entropy(model(Xt), yt).backward()
    input_grad = Xt.grad
    try:
        twin, dtype, step = copy.deepcopy(model).double(), "float64", 1e-7
    except Exception:      # (a model deepcopy or double() refuses: the model as it is, a larger step)
        twin, dtype, step = model, work, h
    Xw = ag.tensor(X, dtype=dtype, requires_grad=True)
    Wt = ag.tensor(W, dtype=dtype)
    (twin(Xw) * Wt).sum().backward()
    with ag.no_grad():
        plus = float((twin(ag.tensor(X + step * D, dtype=dtype)) * Wt).sum().item())
        minus = float((twin(ag.tensor(X - step * D, dtype=dtype)) * Wt).sum().item())
    fd = {"grad": encode(Xw.grad), "plus": plus, "minus": minus, "h": step, "dtype": dtype}
    for p in model.parameters():
        p.grad = None
    params = list(model.parameters())
    opt = optim.SGD(params, lr=lr)
    Xt = ag.tensor(X, dtype=work)
    for _ in range(steps):
        opt.zero_grad()
        F.cross_entropy(model(Xt), yt).backward()
        opt.step()
    with ag.no_grad():
        logits = model(ag.tensor(X_test, dtype=work))
    return {"input_grad": encode(input_grad), "test_logits": encode(logits), "n_params": len(params), "fd": fd}


HARNESSES = {"topo_sort": _harness_topo_sort, "mini_backward": _harness_mini_backward,
             "grad_by_microbatches": _harness_grad_by_microbatches, "round_ste": _harness_round_ste,
             "exp_function": _harness_exp_function, "fixed_loss": _harness_fixed_loss,
             "train_model": _harness_train_model}


# ---------------------------------------------------------------------------------------
# One request
# ---------------------------------------------------------------------------------------

def _where(exc):
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        name = frame.filename or ""
        if "ipykernel" in name or name.startswith("<ipython-input") or name.startswith("<cell"):
            code = (frame.line or "").strip()
            return f" (in {frame.name}, line {frame.lineno}: {code})" if code else ""
    return ""


def serve(request_text, namespace):
    """Answer one request (JSON text) with the student's ``namespace``; returns the JSON answer text."""
    try:
        request = json.loads(request_text)
        target = request["target"]
        if target not in namespace:
            return json.dumps({"missing": target})
        fn = namespace[target]
        args = [decode(a) for a in request.get("args", [])]
        kwargs = {k: decode(v) for k, v in request.get("kwargs", {}).items()}
        try:
            if request["op"] == "call":
                result, passes, applies = count_engine_use(fn, *args, **kwargs)
                answer = {"result": encode(result), "args_after": [encode(a) for a in args], "engine_passes": passes,
                          "node_applies": len(applies)}
            else:
                answer = {"result": HARNESSES[request["name"]](fn, *args, **kwargs)}
        except BaseException as exc:  # noqa: BLE001  (SystemExit and KeyboardInterrupt too)
            answer = {"raised": type(exc).__name__, "message": str(exc)[:2000], "where": _where(exc)}
        return json.dumps(answer, allow_nan=True)
    except BaseException as exc:  # noqa: BLE001
        return json.dumps({"probe_failed": f"{type(exc).__name__}: {exc}"[:2000]})
