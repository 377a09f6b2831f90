"""The grader's side of the checks: fresh inputs out, the student's raw answers in, verdicts here.

A judge runs in the grading process, which never executes student code. It asks the
student's kernel (through a :class:`Probe`) to call the student's objects on inputs it
has just drawn from a secret seed (fresh values *and* shapes), gets their outputs back
as plain data, and compares them with the reference engine and with finite differences,
computed here. Printed lines, patched helpers, a patched ``numpy`` or a hard-coded array
in the notebook therefore cannot change a verdict: only answers that are right for
inputs the student has never seen pass.

Every visible check in ``checks.py`` (feedback while working) has a judge here, found by
the check function's name in the instructor notebook (``checks.check_mul_vjp(mul_vjp)``
-> judge ``check_mul_vjp`` on the student's object ``mul_vjp``). Hidden checks live in the
instructor folder (``lessons/hidden_tests.py``) and register with :func:`hidden`.

A judge is ``judge(probe, target, rng) -> detail``; it raises ``_Todo`` / ``_Wrong``
(from :mod:`.checks`) for "not yet implemented" / "not right yet".
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy

from .checks import (CORRECT, TODO, WRONG, _in_case, _num, _restored, _Todo, _Wrong, by_hand_message, compare,
                     own_engine_message)
from .probes import build_graph, decode_answer, encode, node_label
from .probes import decode as decode_request

__all__ = ["Judge", "JUDGES", "Probe", "Fn", "hidden", "run_judge", "fd_directional", "random_graph_spec",
           "check_topo_order", "check_engine_steps", "NoAnswer"]


# ---------------------------------------------------------------------------------------
# Talking to the student's kernel
# ---------------------------------------------------------------------------------------

def decode(data):
    """An answer from the student's kernel, as data only (:func:`.probes.decode_answer`): the kernel runs the
    student's code, which can forge the answer line; a forged or malformed answer is a wrong one."""
    try:
        return decode_answer(data)
    except (ValueError, TypeError) as exc:
        raise _Wrong(f"the notebook's kernel sent back a malformed answer ({exc})") from None


class NoAnswer(Exception):
    """The kernel gave no usable answer (it died, timed out, or the probe's output was missing)."""


@dataclass
class Fn:
    """A function sent to the student's kernel as source text (``env`` holds its constants).

    ``Fn("lambda x: (w * np.sin(x)).sum()", w=w)`` is evaluated there with ``np``, ``math``
    and ``ag`` in scope; ``fn.local()`` is the same function here, for the expected values.
    """
    source: str
    env: dict = field(default_factory=dict)

    def __init__(self, source, **env):
        self.source, self.env = source, env

    def wire(self):
        return {"__fn__": self.source, "env": {k: encode(v) for k, v in self.env.items()}}

    def local(self):
        return decode_request(self.wire())   # (the grader's own function: evaluated here too)


def _wire(value):
    return value.wire() if isinstance(value, Fn) else encode(value)


class Probe:
    """Calls into the student's kernel. ``send(request) -> answer`` is the transport (see grading)."""

    def __init__(self, send):
        self._send = send
        self.by_hand = False    # (run_judge sets it for the exercises done by hand: BY_HAND)

    def _ask(self, request, target):
        answer = self._send(request)
        if "missing" in answer:
            raise _Wrong(f"{target} is not defined when the notebook has run top to bottom (did you rename "
                         f"it, or does the cell that defines it fail?)")
        if "probe_failed" in answer:
            raise _Wrong(f"the grader could not call {target}: {answer['probe_failed']}")
        if "raised" in answer:
            kind, message = answer["raised"], answer.get("message", "")
            if kind == "NotImplementedError":
                raise _Todo(f"{target} still raises NotImplementedError" + (f" ({message})" if message else ""))
            raise _Wrong(f"{target} raised {kind}: {message}{answer.get('where', '')}")
        return answer

    def call(self, target, *args, **kwargs):
        """``target(*args, **kwargs)`` in the student's kernel: (result, the arguments after the call)."""
        answer = self._ask({"op": "call", "target": target, "args": [_wire(a) for a in args],
                            "kwargs": {k: _wire(v) for k, v in kwargs.items()}}, target)
        if self.by_hand and (answer.get("engine_passes") or answer.get("node_applies")):
            raise _Wrong(by_hand_message(target, answer.get("engine_passes"), answer.get("node_applies")))
        return decode(answer.get("result")), [decode(a) for a in answer.get("args_after", [])]

    def harness(self, name, target, *args):
        """Run the harness ``name`` of :mod:`.probes` on the student's ``target``: its dict of raw outputs."""
        answer = self._ask({"op": "harness", "name": name, "target": target, "args": [_wire(a) for a in args]},
                           target)
        result = answer.get("result")
        if not isinstance(result, dict):
            raise _Wrong(f"the grader got no answer from {target}")
        return result


# ---------------------------------------------------------------------------------------
# Registry
# ---------------------------------------------------------------------------------------

@dataclass
class Judge:
    check_id: str
    title: str
    fn: object
    target: str = ""        # the student's object (hidden judges name it; visible ones take it from the notebook)
    notebook: str = ""      # hidden judges: the lesson file they belong to
    hidden: bool = False


JUDGES: dict = {}   # visible check function name (e.g. "check_mul_vjp") -> Judge


def _judge(check_function):
    from . import checks
    check_id = getattr(checks, check_function).check_id

    def deco(fn):
        JUDGES[check_function] = Judge(check_id, fn.__name__.replace("judge_", ""), fn)
        return fn
    return deco


_HIDDEN: list = []


def hidden(check_id, title, notebook, target):
    """Register a hidden check (in the instructor's ``hidden_tests.py``): ``fn(probe, target, rng) -> detail``."""
    def deco(fn):
        _HIDDEN.append(Judge(check_id, title, fn, target=target, notebook=notebook, hidden=True))
        return fn
    return deco


def collect_hidden():
    """The hidden judges registered so far (the grader loads the instructor's file, then calls this)."""
    out = list(_HIDDEN)
    _HIDDEN.clear()
    return out


BY_HAND = {"2.1", "2.2", "7.1", "7.2"}   # exercises that compute gradients by hand: no pass of the engine


def run_judge(judge, probe, target, rng):
    """(status, detail) of one judge; never raises except NoAnswer (the kernel is gone)."""
    probe.by_hand = judge.check_id.rstrip("h") in BY_HAND   # (a hidden test of the exercise too: 2.1h)
    try:
        detail = judge.fn(probe, target, rng)
    except NoAnswer:
        raise
    except _Todo as exc:
        return TODO, str(exc)
    except _Wrong as exc:
        return WRONG, str(exc)
    except Exception as exc:  # noqa: BLE001  (an answer of an unexpected form)
        return WRONG, f"the grader could not use your answer: {type(exc).__name__}: {exc}"
    return CORRECT, detail


# ---------------------------------------------------------------------------------------
# Helpers: values, finite differences, random cases
# ---------------------------------------------------------------------------------------

def _array(value, what):
    """A float array from a decoded answer, or _Wrong saying what it was instead."""
    import autogradlab as ag
    if isinstance(value, dict) and "__object__" in value:
        raise _Wrong(f"{what} should be a number or an array, but it is a {value['__object__']}")
    if value is None:
        raise _Wrong(f"{what} is None: did you forget a `return`?")
    if isinstance(value, ag.Tensor):
        return numpy.asarray(value._data, dtype=float)
    try:
        return numpy.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise _Wrong(f"{what} should be a number or an array, but it is a {type(value).__name__}") from None


def _pair(value, what, n=2):
    if not isinstance(value, (tuple, list)) or len(value) != n:
        raise _Wrong(f"{what} should return {n} values, got {_kind(value)}")
    return value


def _kind(value):
    if isinstance(value, dict) and "__object__" in value:
        return f"a {value['__object__']}"
    if isinstance(value, (tuple, list)):
        return f"{len(value)} value(s)"
    return f"a {type(value).__name__}"


def fd_directional(f, xs, ds, h=1e-6):
    """(f(x + h d) - f(x - h d)) / (2h): the derivative of the scalar ``f(*xs)`` along the directions ``ds``."""
    plus = f(*[x + h * d for x, d in zip(xs, ds)])
    minus = f(*[x - h * d for x, d in zip(xs, ds)])
    return (plus - minus) / (2 * h)


def _check_fd(case, what, grads, f, xs, rng, rtol=1e-5):
    """The student's gradients ``grads`` (one per x) against a finite difference along a random direction."""
    ds = [rng.normal(size=numpy.shape(x)) for x in xs]
    along = sum(float((numpy.asarray(g, dtype=float) * d).sum()) for g, d in zip(grads, ds))
    fd = fd_directional(f, xs, ds)
    if abs(along - fd) > 1e-6 + rtol * max(abs(fd), 1.0):
        raise _Wrong(f"{case}: {what} disagrees with finite differences: along a random direction your "
                     f"gradients give {_num(along)}, a central difference gives {_num(fd)}")


def _shape(rng, max_dims=3, max_size=4):
    return tuple(int(n) for n in rng.integers(1, max_size + 1, size=int(rng.integers(1, max_dims + 1))))


def _engine_grads(fn, arrays, grad_output=None):
    """Gradients of ``fn(*tensors)`` by the reference engine (float64), weighted by ``grad_output``."""
    import autogradlab as ag
    ts = [ag.tensor(numpy.asarray(a, dtype=float), dtype="float64", requires_grad=True) for a in arrays]
    out = fn(*ts)
    go = None if grad_output is None else ag.tensor(numpy.asarray(grad_output, dtype=float), dtype="float64")
    return [g._data for g in ag.autograd.grad(out, ts, go)]


# ---------------------------------------------------------------------------------------
# Lesson 01
# ---------------------------------------------------------------------------------------

_SCALAR_FUNCTIONS = [("c * x**3", lambda c: Fn("lambda x: c * x ** 3", c=c)),
                     ("sin(c * x)", lambda c: Fn("lambda x: math.sin(c * x)", c=c)),
                     ("exp(c * x)", lambda c: Fn("lambda x: math.exp(c * x)", c=c))]


@_judge("check_central_difference")
def judge_central_difference(probe, target, rng):
    for name, make in _SCALAR_FUNCTIONS:
        c, x, h = float(rng.uniform(0.5, 1.5)), float(rng.uniform(-1, 1)), float(10.0 ** -rng.integers(3, 5))
        fn = make(c)
        f = fn.local()
        case = f"f(x) = {name} with c={_num(c, 4)} at x={_num(x, 4)}, h={h:g}"
        got, _ = probe.call(target, fn, x, h)
        expected = (f(x + h) - f(x - h)) / (2 * h)
        forward = (f(x + h) - f(x)) / h
        try:
            compare("the estimate", _array(got, "the estimate"), expected, atol=1e-7, rtol=1e-7)
        except _Wrong as exc:
            if abs(float(_array(got, "it").reshape(-1)[0]) - forward) < 1e-9:
                raise _Wrong(f"{case}: you computed the forward difference (f(x+h) - f(x)) / h; use the "
                             f"central one, (f(x+h) - f(x-h)) / (2h)") from None
            raise _Wrong(f"{case}: {exc}") from None
    return "matches (f(x+h) - f(x-h)) / (2h) on three fresh functions"


@_judge("check_numerical_grad")
def judge_numerical_grad(probe, target, rng):
    note = ""
    for _ in range(2):
        shape = _shape(rng)
        w = rng.normal(size=shape)
        x = rng.normal(size=shape)
        fn = Fn("lambda x: float((w * np.sin(x)).sum() + (x ** 2).sum() / 2)", w=w)
        case = f"f(x) = sum(w * sin(x) + x**2 / 2) at x of shape {shape}"
        got, (_f, x_after) = probe.call(target, fn, x)
        note = _restored(target, case, _array(x_after, "x"), x) or note
        _in_case(case, compare, "the gradient", _array(got, "the gradient"), w * numpy.cos(x) + x,
                 atol=1e-5, rtol=1e-4)
    return "every partial derivative matches the exact gradient on two fresh shapes" + note


# ---------------------------------------------------------------------------------------
# Lesson 02
# ---------------------------------------------------------------------------------------

@_judge("check_mul_vjp")
def judge_mul_vjp(probe, target, rng):
    for shape in [(), _shape(rng), _shape(rng)]:
        a, b, g = (rng.normal(size=shape) for _ in range(3))
        case = f"a, b, g of shape {shape}"
        got, _ = probe.call(target, a, b, g)
        ga, gb = _pair(got, target)
        ga, gb = _array(ga, "grad_a"), _array(gb, "grad_b")
        ea, eb = _engine_grads(lambda s, t: s * t, [a, b], g)
        if ga.shape == numpy.shape(a) and numpy.allclose(ga, g * a) and not numpy.allclose(ga, g * b):
            raise _Wrong(f"{case}: grad_a equals g * a; the derivative of a * b with respect to a is b, "
                         f"so grad_a = g * b")
        _in_case(case, compare, "grad_a", ga, ea)
        _in_case(case, compare, "grad_b", gb, eb)
        _check_fd(case, "(grad_a, grad_b)", [ga, gb], lambda s, t: float((g * s * t).sum()), [a, b], rng)
    return "matches the engine and finite differences for fresh scalars and arrays"


@_judge("check_manual_backward")
def judge_manual_backward(probe, target, rng):
    def loss(x, w, b):
        return (numpy.sin(w * x) + b) ** 2
    for _ in range(3):
        x, w, b = (float(v) for v in rng.uniform(-2, 2, size=3))
        case = f"x={_num(x, 4)}, w={_num(w, 4)}, b={_num(b, 4)}"
        got, _ = probe.call(target, x, w, b)
        values = [_array(v, n) for v, n in zip(_pair(got, target, 3), ("dL_dx", "dL_dw", "dL_db"))]
        expected = _engine_grads(lambda s, t, u: ((t * s).sin() + u) ** 2, [x, w, b])
        for name, value, exp in zip(("dL_dx", "dL_dw", "dL_db"), values, expected):
            _in_case(case, compare, name, value, exp, atol=1e-6, rtol=1e-6)
        _check_fd(case, "(dL_dx, dL_dw, dL_db)", values, lambda *v: float(loss(*v)), [x, w, b], rng)
    return "all three partial derivatives match the engine and finite differences at fresh points"


# ---------------------------------------------------------------------------------------
# Lesson 03: graded against the reference engine's event log
# ---------------------------------------------------------------------------------------

def random_graph_spec(rng, n_leaves=3, n_ops=6):
    """A random small graph with fan-out (a tensor used twice) and fan-in; names are unique; every
    value stays moderate (specs whose values grow past 100 are drawn again)."""
    while True:
        spec = _graph_spec(rng, n_leaves, n_ops)
        with numpy.errstate(all="ignore"):
            _, named = build_graph(spec)
            if all(numpy.all(numpy.abs(t._data) < 100) for t in named.values()):
                return spec


def _graph_spec(rng, n_leaves, n_ops):
    leaves = {f"x{i}": rng.normal(size=2).round(3).tolist() for i in range(n_leaves)}
    names, ops, used = list(leaves), [], set()
    for k in range(n_ops):
        op = ["mul", "add", "sin", "exp", "tanh", "mul"][int(rng.integers(0, 6))]
        if op in ("mul", "add"):
            unused = [n for n in names if n not in used]
            first = unused[0] if unused else names[int(rng.integers(0, len(names)))]
            second = names[int(rng.integers(0, len(names)))]
            args = [first, second]
        else:
            args = [names[int(rng.integers(max(0, len(names) - 3), len(names)))]]
        name = f"h{k + 1}"
        ops.append([name, op, args])
        used.update(args)
        names.append(name)
    # make every tensor reach the root: add up everything that nothing consumed, then sum
    dangling = [n for n in names if n not in used]
    while len(dangling) > 1:
        a, b = dangling.pop(0), dangling.pop(0)
        name = f"h{len(ops) + 1}"
        ops.append([name, "add", [a, b]])
        dangling.append(name)
    ops.append(["out", "sum", [dangling[0]]])
    return {"leaves": leaves, "ops": ops}


def _reference_run(spec):
    """The reference engine on ``spec``, read from its event log: the graph {label: [child labels]},
    the order the engine ran the nodes in, and the gradient each node ran with (fan-ins summed)."""
    import autogradlab as ag
    root, _ = build_graph(spec)
    children, stack, seen = {}, [root.grad_fn], {root.grad_fn}
    while stack:
        n = stack.pop()
        kids = [c for c, _ in n.next_functions if c is not None]
        children[node_label(n)] = [node_label(c) for c in kids]
        for c in kids:
            if c not in seen:
                seen.add(c)
                stack.append(c)
    with ag.trace() as tape:
        root.backward()
    order, grads = [], {}
    for e in tape.of_kind("NodeStarted"):
        label = f"{e.node_name}({e.output.name})"
        order.append(label)
        grads[label] = None if e.grad is None or e.grad.data is None else numpy.asarray(e.grad.data, dtype=float)
    return children, order, grads


def _consumers(children):
    out = {label: [] for label in children}
    for parent, kids in children.items():
        for k in kids:
            out.setdefault(k, []).append(parent)
    return out


def check_topo_order(probe, target, spec, case):
    """Judge the student's ``topo_sort`` on the graph ``spec`` against the reference engine's run."""
    children, reference_order, _ = _reference_run(spec)
    consumers = _consumers(children)
    answer = probe.harness("topo_sort", target, spec)
    order = decode(answer.get("order"))
    if not isinstance(order, list):
        raise _Wrong(f"{case}: {target} should return a list of nodes, got {_kind(order)}")
    labels = []
    for i, item in enumerate(order):
        if item is None:
            raise _Wrong(f"{case}: position {i} of your order is None; skip the None entries of "
                         f"next_functions (inputs that need no gradient)")
        if not (isinstance(item, dict) and "__node__" in item) or item["__node__"] not in children:
            raise _Wrong(f"{case}: position {i} holds {_kind(item)}, which is not a node of this graph")
        labels.append(item["__node__"])
    position = {}
    for i, label in enumerate(labels):
        if label in position:
            raise _Wrong(f"{case}: step {i}: {label} appears twice (steps {position[label]} and {i}); keep a "
                         f"`visited` set")
        position[label] = i
        waiting = [c for c in consumers.get(label, []) if c not in position]
        if waiting:
            raise _Wrong(f"{case}: step {i} differs from the reference engine's run: your order runs {label} "
                         f"before {waiting[0]}, which sends it a gradient (every node runs after all its "
                         f"consumers; the engine ran {reference_order[i]} at this step)")
    missing = [label for label in reference_order if label not in position]
    if missing:
        raise _Wrong(f"{case}: your order has {len(labels)} nodes but the engine ran {len(reference_order)}; "
                     f"missing: {', '.join(missing)}")


@_judge("check_topo_sort")
def judge_topo_sort(probe, target, rng):
    for g in range(3):
        spec = random_graph_spec(rng, n_leaves=int(rng.integers(2, 4)), n_ops=int(rng.integers(4, 8)))
        check_topo_order(probe, target, spec, f"random graph {g + 1} ({len(spec['ops'])} ops)")
    return "on three fresh random graphs every node comes after all its consumers, each exactly once"


def check_engine_steps(probe, target, spec, case, rng):
    """Judge the student's ``mini_backward`` on ``spec``: each step (a ``node.apply(g)`` call) against the
    reference engine's event log, then the leaf gradients against the engine and finite differences."""
    children, order, grads = _reference_run(spec)
    consumers = _consumers(children)
    answer = probe.harness("mini_backward", target, spec)
    if answer.get("engine_passes"):
        raise _Wrong(f"{case}: {own_engine_message(target, answer['engine_passes'])}")
    done = set()
    for i, step in enumerate(answer.get("steps") or []):
        label = step.get("node")
        waiting = [c for c in consumers.get(label, []) if c not in done]
        if waiting:
            raise _Wrong(f"{case}: step {i}: your engine ran {label} before {waiting[0]}, which sends it a "
                         f"gradient, so the gradient it used was not complete yet")
        if label in done:
            raise _Wrong(f"{case}: step {i}: your engine ran {label} a second time")
        done.add(label)
        if grads.get(label) is not None:
            try:
                compare(f"the gradient {label} received", _array(decode(step.get("grad")), "the gradient"),
                        grads[label], atol=1e-8, rtol=1e-6)
            except _Wrong as exc:
                fan_in = len(consumers.get(label, []))
                more = (f"; it has {fan_in} consumers, so it should receive the sum of their {fan_in} "
                        f"contributions") if fan_in > 1 else ""
                raise _Wrong(f"{case}: step {i} differs from the reference engine: {exc}{more}") from None
    skipped = [label for label in order if not label.startswith("AccumulateGrad(") and label not in done]
    if skipped:
        total = sum(1 for label in order if not label.startswith("AccumulateGrad("))
        raise _Wrong(f"{case}: your engine never called node.apply on {skipped[0]} ({len(skipped)} of the "
                     f"{total} nodes it should run were never run); each node's gradient comes from node.apply(g)")
    result = decode(answer.get("result"))
    if not isinstance(result, dict):
        raise _Wrong(f"{case}: {target} should return a dict {{leaf name: gradient}}, got {_kind(result)}")
    reached = [n for n in sorted(spec["leaves"]) if f"AccumulateGrad({n})" in grads]
    for name in reached:
        if name not in result:
            raise _Wrong(f"{case}: no gradient for leaf {name!r} in your result (keys: {sorted(map(str, result))})")
        fan_in = len(consumers.get(f"AccumulateGrad({name})", []))
        try:
            compare(f"the gradient of {name}", _array(result[name], name), grads[f"AccumulateGrad({name})"],
                    atol=1e-8, rtol=1e-6)
        except _Wrong as exc:
            more = f" ({name} is used {fan_in} times: add up all its contributions)" if fan_in > 1 else ""
            raise _Wrong(f"{case}: {exc}{more}") from None

    def f(*values):
        leaves = dict(spec["leaves"])
        leaves.update({n: numpy.asarray(v).tolist() for n, v in zip(reached, values)})
        return float(build_graph({"leaves": leaves, "ops": spec["ops"]})[0]._data)
    xs = [numpy.asarray(spec["leaves"][n], dtype=float) for n in reached]
    _check_fd(case, "your leaf gradients", [_array(result[n], n) for n in reached], f, xs, rng)


@_judge("check_mini_backward")
def judge_mini_backward(probe, target, rng):
    for g in range(2):
        spec = random_graph_spec(rng, n_leaves=3, n_ops=int(rng.integers(4, 7)))
        check_engine_steps(probe, target, spec, f"random graph {g + 1} ({len(spec['ops'])} ops)", rng)
    return ("on two fresh random graphs each step runs after all its consumers with the full (summed) gradient, "
            "and the leaf gradients match the engine and finite differences")


# ---------------------------------------------------------------------------------------
# Lesson 04
# ---------------------------------------------------------------------------------------

@_judge("check_grad_by_microbatches")
def judge_grad_by_microbatches(probe, target, rng):
    import autogradlab as ag
    n, d = int(rng.integers(9, 15)), int(rng.integers(2, 5))
    X, y, w0 = rng.normal(size=(n, d)), rng.normal(size=n), rng.normal(size=d)
    (expected,) = _engine_grads(lambda w: (((ag.tensor(X) @ w) - ag.tensor(y)) ** 2).mean(), [w0])
    stale = float(rng.integers(50, 150))
    for k in sorted({1, int(rng.integers(2, 4)), int(rng.integers(4, 6))}):
        case = f"N={n} rows in k={k} micro-batches"
        w = ag.tensor(w0, dtype="float64", requires_grad=True)
        w.grad = ag.tensor(numpy.full(d, stale), dtype="float64")
        answer = probe.harness("grad_by_microbatches", target, w, ag.tensor(X, dtype="float64"),
                               ag.tensor(y, dtype="float64"), k)
        arr = _array(decode(answer.get("result")), "the returned gradient")
        if arr.shape == expected.shape:
            if numpy.allclose(arr, expected + stale):
                raise _Wrong(f"{case}: the result still contains the old gradient ({_num(stale)} per element) "
                             f"that w.grad held before the call; clear it first (w.grad = None)")
            if k > 1 and numpy.allclose(arr, k * expected):
                raise _Wrong(f"{case}: your gradient is {k} times too large: divide each chunk's summed "
                             f"squared errors by the full batch size N")
        _in_case(case, compare, "the gradient", arr, expected, atol=1e-8, rtol=1e-6)
        _check_accumulation_events(case, k, answer, stale)
    _check_fd("fresh data", "the gradient", [arr], lambda w: float(((X @ w - y) ** 2).mean()), [w0], rng)
    return ("the accumulated gradient equals the full-batch gradient on fresh data, for several k, built by one "
            "backward pass per micro-batch into a cleared w.grad (checked on the event log)")


def _check_accumulation_events(case, k, answer, stale):
    """The event log of the student's run: one backward pass per micro-batch, each adding its contribution to
    w.grad, the first one into a cleared (None or zeroed) w.grad."""
    passes, steps = answer.get("passes"), answer.get("accumulations") or []
    if passes != k:
        raise _Wrong(f"{case}: your function ran {passes} backward pass(es); the exercise asks for one per "
                     f"micro-batch ({k}), each adding its chunk's gradient to w.grad")
    if len(steps) != k:
        raise _Wrong(f"{case}: the event log shows {len(steps)} accumulation(s) into w.grad, expected {k} (one "
                     f"per micro-batch)")
    for i, step in enumerate(steps):
        before = decode(step.get("before"))
        if i == 0 and before is not None and numpy.any(numpy.asarray(before, dtype=float) != 0):
            shown = ", ".join(_num(v, 4) for v in numpy.ravel(before))
            raise _Wrong(f"{case}: pass 0: w.grad already held [{shown}] when the first micro-batch's gradient was "
                         f"added (the old value was {_num(stale)} per element); set w.grad = None first")
        if i > 0 and before is None:
            raise _Wrong(f"{case}: pass {i}: w.grad was empty again before this micro-batch's gradient was added: "
                         f"the earlier micro-batches' gradients were thrown away (do not clear w.grad in the loop)")


# ---------------------------------------------------------------------------------------
# Lesson 05
# ---------------------------------------------------------------------------------------

@_judge("check_round_ste")
def judge_round_ste(probe, target, rng):
    import autogradlab as ag
    shape = _shape(rng, 2, 5)
    x0 = (rng.normal(size=shape) * 3).round(2) + 0.01   # away from .5 ties
    weights = rng.normal(size=shape)
    answer = probe.harness("round_ste", target, ag.tensor(x0, dtype="float64", requires_grad=True), weights)
    y = decode(answer.get("y"))
    if not isinstance(y, ag.Tensor):
        raise _Wrong(f"{target} should return a Tensor, got {_kind(y)}")
    compare("the forward value", y, numpy.round(x0))
    if not y.requires_grad:
        raise _Wrong("the result does not require grad: the gradient path through x is cut; keep x in the "
                     "expression and detach only the rounding correction")
    grad = decode(answer.get("x_grad"))
    if grad is None:
        raise _Wrong("after backward, x.grad is None: no gradient reached x")
    try:
        compare("x.grad", _array(grad, "x.grad"), weights)
    except _Wrong as exc:
        raise _Wrong(f"{exc}; the straight-through estimator passes the gradient through unchanged") from None
    return f"rounds in the forward pass and passes gradients straight through (fresh x of shape {shape})"


# ---------------------------------------------------------------------------------------
# Lesson 06
# ---------------------------------------------------------------------------------------

@_judge("check_exp_function")
def judge_exp_function(probe, target, rng):
    import autogradlab as ag
    shape = _shape(rng, 2, 4)
    x0, g = rng.uniform(-1.5, 1.5, size=shape), rng.normal(size=shape)
    answer = probe.harness("exp_function", target, ag.tensor(x0, dtype="float64", requires_grad=True), g)
    y = decode(answer.get("y"))
    if not isinstance(y, ag.Tensor):
        raise _Wrong(f"{target}.apply should return a Tensor, got {_kind(y)}")
    compare("the forward value", y, numpy.exp(x0))
    _check_own_node(target, answer)
    saved = [decode(s) for s in answer.get("saved", [])]
    if len(saved) != 1:
        raise _Wrong(f"{target} saved {len(saved)} tensors; exp needs exactly one (its output)")
    if saved[0] is not None and numpy.shape(saved[0]) == shape and numpy.allclose(saved[0], x0):
        raise _Wrong(f"{target} saved its input x; save the output y instead: the output is the derivative")
    if "grad" not in answer:
        raise _Wrong(f"{target}.apply did not record a graph node, so there is no backward to check")
    gx = _array(decode(answer["grad"]), "the gradient of x")
    (expected,) = _engine_grads(lambda t: t.exp(), [x0], g)
    compare("the gradient of x", gx, expected, atol=1e-8, rtol=1e-7)
    _check_fd(f"x of shape {shape}", "your backward", [gx], lambda t: float((g * numpy.exp(t)).sum()), [x0], rng)
    return "forward, backward (against the engine and finite differences) and what is saved are right"


def _check_own_node(target, answer):
    """6.1 is about writing a Function: its result must hang from the Function's own node, not from a library
    op's (``apply`` that just calls ``x.exp()``)."""
    if not answer.get("is_function"):
        raise _Wrong(f"{target} is not a subclass of autograd.Function; write class {target}(ag.autograd.Function) "
                     f"with a forward and a backward of your own")
    if "node" in answer and not answer.get("own_node"):
        raise _Wrong(f"the result's grad_fn is {answer['node']}, autogradlab's own node, not {target}Backward: "
                     f"{target}.forward's result must come from {target}.apply, so that {target}.backward runs "
                     f"in the backward pass")


# ---------------------------------------------------------------------------------------
# Lesson 07
# ---------------------------------------------------------------------------------------

def _broadcast_pair(rng):
    small = _shape(rng, 3, 4)
    small = tuple(1 if rng.random() < 0.4 else n for n in small)
    lead = _shape(rng, 2, 3) if rng.random() < 0.7 else ()
    big = lead + tuple(int(rng.integers(2, 4)) if n == 1 else n for n in small)
    return big, small


#: shape pairs every unbroadcast judgement includes, whatever the seed: square cases where summing the wrong
#: axes still gives the right shape (sum the last axis of (3, 3) instead of the first), a dim of 1 between
#: leading ones, and a kept leading dim of 1
UNBROADCAST_FIXED = [((3, 3), (3,)), ((2, 3, 3), (3, 3)), ((4, 1, 3), (3,)), ((2, 3), (2, 1)), ((3, 2, 2), (1, 2)),
                     ((2, 3), ())]


@_judge("check_unbroadcast")
def judge_unbroadcast(probe, target, rng):
    pairs = UNBROADCAST_FIXED + [_broadcast_pair(rng) for _ in range(4)]
    for big, small in pairs:
        g = rng.normal(size=big)
        case = f"g of shape {big} -> shape {small}"
        got, (g_after, _) = probe.call(target, g, small)
        if not numpy.array_equal(_array(g_after, "g"), g):
            raise _Wrong(f"{case}: {target} modified g in place; return a new array")
        arr = _array(got, "the result")
        (expected,) = _engine_grads(lambda s: s.expand(*big) if big else s, [numpy.zeros(small)], g)
        _in_case(case, compare, "the result", arr, expected, atol=1e-10, rtol=1e-10)
        # the adjoint identity: <unbroadcast(g), d> = <g, broadcast(d)> for any d of the small shape
        d = rng.normal(size=small)
        if abs(float((arr * d).sum()) - float((g * numpy.broadcast_to(d, big)).sum())) > 1e-8:
            raise _Wrong(f"{case}: <result, d> != <g, broadcast(d)>")
    return "sums over the leading and the size-1 axes, for fixed and fresh shape pairs (against the engine)"


@_judge("check_matmul_vjp")
def judge_matmul_vjp(probe, target, rng):
    for _ in range(3):
        n, k, m = (int(v) for v in rng.integers(1, 6, size=3))
        A, B, G = rng.normal(size=(n, k)), rng.normal(size=(k, m)), rng.normal(size=(n, m))
        case = f"A {A.shape} @ B {B.shape}"
        got, _ = probe.call(target, A, B, G)
        gA, gB = (_array(v, w) for v, w in zip(_pair(got, target), ("grad_A", "grad_B")))
        eA, eB = _engine_grads(lambda a, b: a @ b, [A, B], G)
        _in_case(case, compare, "grad_A", gA, eA, atol=1e-9, rtol=1e-9)
        _in_case(case, compare, "grad_B", gB, eB, atol=1e-9, rtol=1e-9)
        _check_fd(case, "(grad_A, grad_B)", [gA, gB], lambda a, b: float((G * (a @ b)).sum()), [A, B], rng)
    return "grad_A and grad_B match the engine and finite differences for three fresh shapes"


# ---------------------------------------------------------------------------------------
# Lesson 08
# ---------------------------------------------------------------------------------------

@_judge("check_hvp")
def judge_hvp(probe, target, rng):
    import autogradlab as ag
    n = int(rng.integers(2, 6))
    c = rng.normal(size=n)
    fns = [("sum(c * x**3)", Fn("lambda x: (ag.tensor(c) * x ** 3).sum()", c=c)),
           ("sum(sin(x)) * sum(c * x)", Fn("lambda x: x.sin().sum() * (ag.tensor(c) * x).sum()", c=c))]
    for name, fn in fns:
        f = fn.local()
        x0, v0 = rng.normal(size=n), rng.normal(size=n)
        case = f"f(x) = {name}, x of size {n}"
        x = ag.tensor(x0, dtype="float64", requires_grad=True)
        got, (_f, x_after, _v) = probe.call(target, fn, x, ag.tensor(v0, dtype="float64"))
        xr = ag.tensor(x0, dtype="float64", requires_grad=True)
        (gr,) = ag.autograd.grad(f(xr), xr, create_graph=True)
        (expected,) = ag.autograd.grad((gr * ag.tensor(v0)).sum(), xr)
        hv = _array(got, "H v")
        _in_case(case, compare, "H v", hv, expected._data, atol=1e-8, rtol=1e-7)

        def grad_along_v(x):
            t = ag.tensor(x, dtype="float64", requires_grad=True)
            return float((ag.autograd.grad(f(t), t)[0]._data * v0).sum())
        _check_fd(case, "H v", [hv], grad_along_v, [x0], rng, rtol=1e-4)
        if isinstance(x_after, ag.Tensor) and x_after.grad is not None:
            raise _Wrong(f"{case}: {target} left a gradient in x.grad; use autograd.grad (it returns gradients "
                         f"without touching .grad)")
    return "H v matches the engine and finite differences of the gradient on two fresh functions"


@_judge("check_newton_step")
def judge_newton_step(probe, target, rng):
    import autogradlab as ag
    for _ in range(3):
        a, b = float(rng.uniform(0.5, 2)), float(rng.uniform(-2, 2))
        fn = Fn("lambda x: a * x ** 4 + (b * x).exp() - 3 * x", a=a, b=b)
        x0 = float(rng.uniform(0.3, 1.5))
        case = f"f(x) = {_num(a, 3)} x^4 + exp({_num(b, 3)} x) - 3x from x={_num(x0, 4)}"
        got, _ = probe.call(target, fn, ag.tensor(x0, dtype="float64", requires_grad=True))
        d1 = 4 * a * x0 ** 3 + b * math.exp(b * x0) - 3
        d2 = 12 * a * x0 ** 2 + b * b * math.exp(b * x0)
        _in_case(case, compare, "the new x", _array(got, "the new x"), x0 - d1 / d2, atol=1e-9, rtol=1e-9)
    return "x - f'(x) / f''(x) is right on three fresh functions"


# ---------------------------------------------------------------------------------------
# Lesson 09
# ---------------------------------------------------------------------------------------

@_judge("check_fixed_loss")
def judge_fixed_loss(probe, target, rng):
    import autogradlab as ag
    n = int(rng.integers(4, 10))
    z = rng.normal(size=(n, 1)) * 2
    t = rng.integers(0, 2, size=n)
    answer = probe.harness("fixed_loss", target, ag.tensor(z, dtype="float64", requires_grad=True),
                           ag.tensor(t, dtype="int64"))
    loss = decode(answer.get("loss"))
    if not isinstance(loss, ag.Tensor):
        raise _Wrong(f"{target} should return a Tensor, got {_kind(loss)}")
    if loss.numel() != 1:
        raise _Wrong(f"the loss should be one number, but it has shape {tuple(loss.shape)}")

    def bce(zz):
        return float((numpy.maximum(zz, 0) - zz * t[:, None] + numpy.log1p(numpy.exp(-numpy.abs(zz)))).mean())
    broadcast = (numpy.maximum(z, 0) - z * t[None, :] + numpy.log1p(numpy.exp(-numpy.abs(z)))).mean()
    value = float(loss._data.reshape(-1)[0])
    if abs(value - broadcast) < 1e-9 and abs(broadcast - bce(z)) > 1e-6:
        raise _Wrong("the loss still pairs every logit with every label: logits (N, 1) against labels (N,) "
                     "broadcast to (N, N); make both the same shape first")
    compare("the loss", value, bce(z), atol=1e-7, rtol=1e-6)
    if "grad" not in answer:
        raise _Wrong("no gradient flows from the loss back to the logits")
    g = _array(decode(answer["grad"]), "the gradient of the logits")
    sig = 1 / (1 + numpy.exp(-z))
    compare("the gradient of the logits", g, (sig - t[:, None]) / n, atol=1e-8, rtol=1e-6)
    _check_fd(f"N={n} fresh logits", "the gradient of the logits", [g], bce, [z], rng)
    return f"one loss term per sample on fresh data (N={n}); value and gradient right"


def _judge_input_gradient(answer, D):
    """The gradient reaching the input: not vanishing, and the same as a central difference (of a float64 copy
    of the model, so a ReLU's kinks stay out of the way; the float32 model, loosely, if it cannot be copied)."""
    g = _array(decode(answer.get("input_grad")), "the gradient of the input")
    norm = float(numpy.sqrt((g ** 2).sum()))
    if norm < 1e-5:
        raise _Wrong(f"the gradient reaching the input has norm {_num(norm, 3)} at initialisation: it still "
                     f"vanishes on its way to the first layer")
    fd = answer.get("fd") or {}
    g_w = _array(decode(fd.get("grad")), "the gradient of sum(W * model(X))")
    along, numeric = float((g_w * D).sum()), (float(fd.get("plus")) - float(fd.get("minus"))) / (2 * fd["h"])
    atol, rtol = (1e-6, 1e-5) if fd.get("dtype") == "float64" else (1e-3, 5e-2)
    if g_w.shape != D.shape or abs(along - numeric) > atol + rtol * abs(numeric):
        raise _Wrong(f"the gradient of the model's output with respect to its input disagrees with finite "
                     f"differences: {_num(along, 4)} along a random direction, {_num(numeric, 4)} by a central "
                     f"difference")


@_judge("check_healthy_model")
def judge_healthy_model(probe, target, rng, tries=3):
    """Train the student's model on fresh two-moons data; right when its gradient reaches the input and agrees
    with finite differences, and one of ``tries`` trainings (a fresh initialisation and fresh data each: the
    instructor's model misses 0.9 on about 3 seeds in 100) reaches 0.9 on fresh test points."""
    import autogradlab as ag
    best = 0.0
    for attempt in range(tries):
        seed = int(rng.integers(0, 2 ** 31))
        X, y = ag.data.make_moons(200, noise=0.15, seed=seed)
        Xt, yt = ag.data.make_moons(200, noise=0.15, seed=seed + 1)
        W, D, h = rng.normal(size=(200, 2)), rng.normal(size=(200, 2)), 1e-2
        answer = probe.harness("train_model", target, X._data, y._data, Xt._data, 200, 0.5, seed % 1000, W, D, h)
        logits = _array(decode(answer.get("test_logits")), "the model's output")
        if logits.shape != (200, 2):
            raise _Wrong(f"the model should output 2 logits per point, shape (200, 2); got {logits.shape}")
        if attempt == 0:
            _judge_input_gradient(answer, D)
        best = max(best, float((logits.argmax(axis=1) == yt._data).mean()))
        if best >= 0.9:
            break
    acc = best
    if acc < 0.9:
        raise _Wrong(f"after 200 SGD steps (lr 0.5) the accuracy on fresh test points is at best {acc:.2f} in "
                     f"{tries} trainings (fresh data and initialisation each); it should reach 0.9")
    return (f"the gradient reaches the input (and agrees with finite differences), and the accuracy on fresh test "
            f"points is {acc:.2f} after 200 steps")
