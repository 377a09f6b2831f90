"""Exercise checks: call one after each exercise, e.g. ``checks.check_mul_vjp(mul_vjp)``.

Every check prints exactly one line that starts with ``[check N.M]`` followed by one of

- ``correct``: all test cases pass (and what was tested);
- ``not yet implemented``: the exercise still raises ``NotImplementedError`` (the stub);
- ``not right yet``: what is wrong, in plain words: which output, which element, the
  value expected, the value found and the difference; or the exception your code raised.

A check never raises (a notebook always runs to the end) and returns None. The
verdicts of the checks run so far are kept in :data:`RESULTS`; :func:`summary` prints
them. These checks are feedback while working: grading never reads what they print
(``python -m autogradlab.lessons grade`` re-checks every exercise with the judges of
:mod:`.judges`, on fresh inputs, outside the student's kernel).

``reveal`` is the partner of predict-then-reveal cells: it prints the engine's answer
next to the student's prediction.
"""
from __future__ import annotations

import functools
import math
import traceback

import numpy

from .probes import count_engine_use

__all__ = ["RESULTS", "summary", "reveal", "compare",
           "check_central_difference", "check_numerical_grad", "check_mul_vjp", "check_manual_backward",
           "check_topo_sort", "check_mini_backward", "check_grad_by_microbatches", "check_round_ste",
           "check_exp_function", "check_unbroadcast", "check_matmul_vjp", "check_hvp", "check_newton_step",
           "check_fixed_loss", "check_healthy_model"]

CORRECT, TODO, WRONG = "correct", "not yet implemented", "not right yet"

RESULTS: list = []  # (check id, title, status, detail) of every check run in this process


class _Todo(Exception):
    """The student's code raised NotImplementedError."""


class _Wrong(Exception):
    """The student's code ran but gave a wrong answer (the message says what is wrong)."""


# ---------------------------------------------------------------------------------------
# Reporting
# ---------------------------------------------------------------------------------------

def _report(check_id, title, status, detail):
    RESULTS.append((check_id, title, status, detail))
    line = f"[check {check_id}] {status}"
    if detail:
        line += f" - {detail}"
    print(line)


def _check(check_id, title):
    """Decorator: run the check body, turn every outcome into one printed verdict. The body runs with the CPU
    as the default device (a check judges the math on NumPy arrays it makes, whatever device a lab set as
    the default with ``set_default_device``)."""
    def deco(body):
        @functools.wraps(body)
        def wrapper(*args, **kwargs):
            from .. import backend
            default = backend.get_default_device()
            backend.set_default_device("cpu")
            try:
                detail = body(*args, **kwargs)
            except _Todo as exc:
                _report(check_id, title, TODO, str(exc))
            except _Wrong as exc:
                _report(check_id, title, WRONG, str(exc))
            except (Exception, SystemExit) as exc:  # noqa: BLE001  (a check must never crash the notebook)
                _report(check_id, title, WRONG,
                        f"the check could not run your code: {type(exc).__name__}: {exc}")
            else:
                _report(check_id, title, CORRECT, detail)
            finally:
                backend.set_default_device(default)
            return None
        wrapper.check_id = check_id
        return wrapper
    return deco


def summary():
    """Print one line per check run in this kernel (the last verdict of each check)."""
    latest = {}
    for check_id, title, status, _ in RESULTS:
        latest[check_id] = (title, status)
    if not latest:
        print("no checks have run yet")
        return
    width = max(len(t) for t, _ in latest.values())
    done = sum(1 for _, s in latest.values() if s == CORRECT)
    for check_id, (title, status) in latest.items():
        print(f"{check_id:>5}  {title.ljust(width)}  {status}")
    print(f"{done} of {len(latest)} correct")


def _where(exc):
    """'line N: code' of the innermost frame that comes from a notebook cell, if any."""
    frames = traceback.extract_tb(exc.__traceback__)
    for frame in reversed(frames):
        name = frame.filename or ""
        if "ipykernel" in name or name.startswith("<ipython-input") or name.startswith("<cell"):
            code = (frame.line or "").strip()
            return f" (in {frame.name}, line {frame.lineno}: {code})" if code else ""
    return ""


def by_hand_message(target, passes, applies):
    """What an exercise done by hand says to an answer that used the engine (the checks' and the grader's)."""
    used = (f"ran autogradlab's own backward ({passes} pass(es) of backward(), autograd.grad or steps)" if passes
            else f"called a graph node's own VJP ({applies} node.apply call(s))")
    return f"{target} {used}; this exercise asks for the gradient worked out by hand, with NumPy or math only"


def own_engine_message(target, passes):
    """What 3.2 says to a ``mini_backward`` that ran the engine (the check's and the grader's)."""
    return (f"{target} ran autogradlab's own backward ({passes} pass(es) of backward(), autograd.grad or steps); "
            f"the exercise is to write that loop yourself, calling node.apply(g) on each node in topological order")


def _by_hand(label, fn, *args):
    """``_call`` for an exercise done by hand: the student's code may start no pass of autogradlab's engine and
    call no node's VJP."""
    got, passes, applies = _call(label, count_engine_use, fn, *args)
    if passes or applies:
        raise _Wrong(by_hand_message(label, passes, len(applies)))
    return got


def _call(label, fn, *args, **kwargs):
    """Run the student's ``fn``; NotImplementedError -> _Todo, other errors -> _Wrong."""
    try:
        return fn(*args, **kwargs)
    except NotImplementedError as exc:
        hint = str(exc).strip()
        raise _Todo(f"{label} still raises NotImplementedError" + (f" ({hint})" if hint else "")) from None
    except (_Todo, _Wrong):
        raise
    except (Exception, SystemExit) as exc:  # noqa: BLE001
        raise _Wrong(f"{label} raised {type(exc).__name__}: {exc}{_where(exc)}") from None


# ---------------------------------------------------------------------------------------
# Comparing numbers in plain words
# ---------------------------------------------------------------------------------------

def _num(x, digits=6):
    x = float(x)
    if math.isnan(x) or math.isinf(x):
        return str(x)
    text = f"{x:.{digits}g}"
    return "0" if text in ("-0", "0") else text


def _signed(x):
    text = _num(x, 3)
    return text if text.startswith("-") or text in ("0", "nan") else "+" + text


def _to_array(value, what):
    from ..tensor import Tensor
    if value is None:
        raise _Wrong(f"{what} is None: did you forget a `return`?")
    if isinstance(value, Tensor):
        from .. import backend
        return numpy.asarray(backend.to_host(value._data), dtype=float)
    if type(value).__module__.split(".")[0] == "cupy":
        return numpy.asarray(value.get(), dtype=float)
    try:
        arr = numpy.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise _Wrong(f"{what} should be a number or an array, but it is a {type(value).__name__}") from None
    return arr


def _index(idx):
    return "[" + ", ".join(str(int(i)) for i in idx) + "]" if idx else "(the only element)"


def compare(what, got, expected, atol=1e-5, rtol=1e-4):
    """Raise _Wrong (a plain-words message) unless ``got`` matches ``expected`` elementwise.

    The message names the shape problem, or the element that is furthest off: its index,
    the value found, the value expected and the difference; and how many elements differ.
    """
    got_arr = _to_array(got, what)
    exp_arr = numpy.asarray(expected, dtype=float)
    if got_arr.shape != exp_arr.shape:
        if got_arr.size == exp_arr.size == 1:
            got_arr = got_arr.reshape(exp_arr.shape)
        else:
            raise _Wrong(f"{what} has shape {tuple(got_arr.shape)} but should have shape {tuple(exp_arr.shape)}")
    bad_nan = numpy.isnan(got_arr) & ~numpy.isnan(exp_arr)
    if bad_nan.any():
        idx = tuple(int(i) for i in numpy.argwhere(bad_nan)[0])
        raise _Wrong(f"element {_index(idx)} of {what} is nan, expected {_num(exp_arr[idx])}")
    diff = numpy.abs(got_arr - exp_arr)
    tol = atol + rtol * numpy.abs(exp_arr)
    wrong = diff > tol
    if wrong.any():
        idx = numpy.unravel_index(numpy.argmax(numpy.where(wrong, diff - tol, -numpy.inf)), diff.shape)
        idx = tuple(int(i) for i in idx)
        n_wrong, n = int(wrong.sum()), int(wrong.size)
        where = f"element {_index(idx)} of {what}" if exp_arr.ndim else what
        tail = f" ({n_wrong} of {n} elements differ)" if n > 1 else ""
        raise _Wrong(f"{where} is {_num(got_arr[idx])} but should be {_num(exp_arr[idx])} "
                     f"(difference {_signed(got_arr[idx] - exp_arr[idx])}){tail}")


def _in_case(case, fn, *args, **kwargs):
    """Run ``fn`` and prefix any _Wrong message with the test case's description."""
    try:
        return fn(*args, **kwargs)
    except _Wrong as exc:
        raise _Wrong(f"{case}: {exc}") from None


def _arr_text(a):
    a = numpy.asarray(a)
    if a.ndim == 0:
        return _num(a, 4)
    return "[" + ", ".join(_arr_text(x) for x in a) + "]"


# ---------------------------------------------------------------------------------------
# Predict, then reveal
# ---------------------------------------------------------------------------------------

def _normalise_answer(text):
    """Answers compare without case, spaces, brackets or a trailing comma: "(2,1)" == "2, 1"."""
    text = str(text).lower()
    for ch in " \t()[]'\"":
        text = text.replace(ch, "")
    return text.rstrip(",")


def reveal(label, prediction, actual, atol=1e-3, rtol=1e-3):
    """Compare a prediction with the engine's answer. ``prediction`` None: not predicted yet
    (the answer stays hidden, so that you commit to a prediction first)."""
    try:
        if prediction is None:
            print(f"[predict {label}] no prediction yet: write it in the cell above, run that cell, then "
                  f"this one (the answer stays hidden until you predict).")
            return None
        if isinstance(actual, str) or isinstance(prediction, str):
            ok = _normalise_answer(prediction) == _normalise_answer(actual)
            detail = f"you said {prediction!r}; the answer is {actual!r}"
        else:
            exp = _to_array(actual, "the answer")
            try:
                compare("your prediction", prediction, exp, atol=atol, rtol=rtol)
                ok, detail = True, f"you predicted {_arr_text(_to_array(prediction, 'it'))}; the answer is " \
                                   f"{_arr_text(exp)}"
            except _Wrong as exc:
                ok, detail = False, f"the answer is {_arr_text(exp)}; {exc}"
        print(f"[predict {label}] {'right!' if ok else 'not quite'} {detail}")
    except (Exception, SystemExit) as exc:  # noqa: BLE001
        print(f"[predict {label}] could not compare: {type(exc).__name__}: {exc}")
    return None


# ---------------------------------------------------------------------------------------
# Lesson 01: derivatives
# ---------------------------------------------------------------------------------------

@_check("1.1", "central_difference")
def check_central_difference(central_difference):
    cases = [("x**3 at x=2, h=1e-3", lambda x: x ** 3, 2.0, 1e-3),
             ("sin(x) at x=1, h=1e-4", math.sin, 1.0, 1e-4),
             ("exp(x) at x=-0.5, h=1e-3", math.exp, -0.5, 1e-3)]
    for case, f, x, h in cases:
        got = _call("central_difference", central_difference, f, x, h)
        expected = (f(x + h) - f(x - h)) / (2 * h)
        forward = (f(x + h) - f(x)) / h
        try:
            compare("the estimate", got, expected, atol=1e-7, rtol=1e-7)
        except _Wrong as exc:
            if abs(float(_to_array(got, "it")) - forward) < 1e-9:
                raise _Wrong(f"{case}: you computed the forward difference (f(x+h) - f(x)) / h; use the "
                             f"central one, (f(x+h) - f(x-h)) / (2h)") from None
            raise _Wrong(f"{case}: {exc}") from None
    return "matches (f(x+h) - f(x-h)) / (2h) on x**3, sin and exp"


def _restored(who, case, after, before):
    """``x`` as ``numerical_grad`` left it: wrong when an element moved; a note (returned) when it came back in
    all but its last digits, since x + h - h is not always x in floating point."""
    if numpy.array_equal(after, before):
        return ""
    if after.shape == before.shape and numpy.allclose(after, before, rtol=1e-12, atol=1e-15):
        return ("; note: x came back changed in its last digits, because x + h - h does not always round back to "
                "x; keep the old value (old = x[i] ... x[i] = old) to put it back exactly")
    raise _Wrong(f"{case}: {who} changed its input x; put each element back after perturbing it (keep the old "
                 f"value: old = x[i] ... x[i] = old), or work on a copy")


@_check("1.2", "numerical_grad")
def check_numerical_grad(numerical_grad):
    rng = numpy.random.default_rng(12)
    w = rng.normal(size=(2, 3))
    cases = [("f(x) = sum(x**2) at x of shape (3,)", lambda x: float((x ** 2).sum()),
              numpy.array([1.0, -2.0, 0.5]), lambda x: 2 * x),
             ("f(x) = sum(w * sin(x)) at x of shape (2, 3)", lambda x: float((w * numpy.sin(x)).sum()),
              rng.normal(size=(2, 3)), lambda x: w * numpy.cos(x))]
    note = ""
    for case, f, x, grad in cases:
        original = x.copy()
        got = _call("numerical_grad", numerical_grad, f, x)
        note = _restored("numerical_grad", case, x, original) or note
        _in_case(case, compare, "the gradient", got, grad(original), atol=1e-5, rtol=1e-4)
    return "every partial derivative matches the exact gradient (to 1e-5)" + note


# ---------------------------------------------------------------------------------------
# Lesson 02: the chain rule
# ---------------------------------------------------------------------------------------

@_check("2.1", "mul_vjp")
def check_mul_vjp(mul_vjp):
    rng = numpy.random.default_rng(21)
    cases = [("a=2, b=3, g=1", numpy.array(2.0), numpy.array(3.0), numpy.array(1.0)),
             ("a=2, b=3, g=0.5", numpy.array(2.0), numpy.array(3.0), numpy.array(0.5)),
             ("a, b, g of shape (2, 3)", rng.normal(size=(2, 3)), rng.normal(size=(2, 3)), rng.normal(size=(2, 3)))]
    for case, a, b, g in cases:
        got = _by_hand("mul_vjp", mul_vjp, a, b, g)
        if not isinstance(got, (tuple, list)) or len(got) != 2:
            raise _Wrong(f"{case}: mul_vjp should return two gradients (grad_a, grad_b), got "
                         f"{type(got).__name__}")
        ga, gb = got
        ga_arr = _to_array(ga, "grad_a")
        if ga_arr.shape == a.shape and numpy.allclose(ga_arr, g * a) and not numpy.allclose(ga_arr, g * b):
            raise _Wrong(f"{case}: grad_a equals g * a; the derivative of a * b with respect to a is b, "
                         f"so grad_a = g * b")
        _in_case(case, compare, "grad_a", ga, g * b)
        _in_case(case, compare, "grad_b", gb, g * a)
    return "grad_a = g * b and grad_b = g * a, for scalars and arrays"


@_check("2.2", "manual_backward")
def check_manual_backward(manual_backward):
    for x, w, b in [(0.5, -1.5, 0.25), (2.0, 0.3, -1.0)]:
        case = f"x={x}, w={w}, b={b}"
        got = _by_hand("manual_backward", manual_backward, x, w, b)
        if not isinstance(got, (tuple, list)) or len(got) != 3:
            raise _Wrong(f"{case}: manual_backward should return (dL_dx, dL_dw, dL_db)")
        u = w * x
        v = math.sin(u) + b
        dv = 2 * v
        du = dv * math.cos(u)
        for name, value, expected in zip(("dL_dx", "dL_dw", "dL_db"), got, (du * w, du * x, dv)):
            _in_case(case, compare, name, value, expected, atol=1e-6, rtol=1e-6)
    return "all three partial derivatives of L = (sin(w*x) + b)**2 are right"


# ---------------------------------------------------------------------------------------
# Lesson 03: topological order
# ---------------------------------------------------------------------------------------

def _node_label(node):
    """'MulBackward (makes h)' / 'AccumulateGrad (of x)': what a node is, in words."""
    from ..graph import AccumulateGrad
    if isinstance(node, AccumulateGrad):
        return f"AccumulateGrad (of {node.variable.name or 'a leaf'})"
    meta = getattr(node, "_out_meta", None)
    out = meta[0]() if meta else None
    made = f" (makes {out.name})" if out is not None and out.name else ""
    return f"{node.name()}{made}"


def _reachable(root):
    """Every node reachable from ``root`` through ``next_functions`` (a set)."""
    seen, stack = {root}, [root]
    while stack:
        n = stack.pop()
        for child, _ in n.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                stack.append(child)
    return seen


def _topo_graphs():
    """Small graphs where a breadth-first or naive order goes wrong; tensors are named."""
    import autogradlab as ag
    graphs = []
    x = ag.tensor(0.5, requires_grad=True, name="x")
    w = ag.tensor(2.0, requires_grad=True, name="w")
    u = x * w
    u.name = "u"
    loss = u.sin() + u
    loss.name = "loss"
    graphs.append(("loss = sin(x*w) + x*w", loss))

    a = ag.tensor([1.0, 2.0], requires_grad=True, name="a")
    h1 = a * 2
    h1.name = "h1"
    h2 = h1.exp()
    h2.name = "h2"
    h3 = h2 * h1
    h3.name = "h3"
    out = (h3 + a).sum()
    out.name = "out"
    graphs.append(("out = sum(exp(2a) * 2a + a)", out))
    return graphs


@_check("3.1", "topo_sort")
def check_topo_sort(topo_sort):
    for case, root_tensor in _topo_graphs():
        root = root_tensor.grad_fn
        order = _call("topo_sort", topo_sort, root)
        try:
            order = list(order)
        except TypeError:
            raise _Wrong(f"{case}: topo_sort should return a list of nodes, got {type(order).__name__}") from None
        expected = _reachable(root)
        position = {}
        for i, n in enumerate(order):
            if n is None:
                raise _Wrong(f"{case}: position {i} of your order is None; skip the None entries of "
                             f"next_functions (inputs that need no gradient)")
            if n not in expected:
                raise _Wrong(f"{case}: position {i} holds {n!r}, which is not a node of this graph")
            if n in position:
                raise _Wrong(f"{case}: {_node_label(n)} appears twice (positions {position[n]} and {i}); "
                             f"keep a `visited` set")
            position[n] = i
        missing = [n for n in expected if n not in position]
        if missing:
            names = ", ".join(sorted(_node_label(n) for n in missing))
            raise _Wrong(f"{case}: your order has {len(order)} nodes but the graph has {len(expected)}; "
                         f"missing: {names}")
        if order and order[0] is not root:
            raise _Wrong(f"{case}: the first node must be the root ({_node_label(root)}), "
                         f"but it is {_node_label(order[0])}")
        for n in order:
            for child, _ in n.next_functions:
                if child is not None and position[child] < position[n]:
                    raise _Wrong(
                        f"{case}: {_node_label(child)} is at position {position[child]}, before "
                        f"{_node_label(n)} at position {position[n]}; but {_node_label(n)} sends a gradient to "
                        f"{_node_label(child)}, so it must come first (its gradient is not complete yet)")
    return "every node appears once, the root first, and each node before every node it sends gradients to"


@_check("3.2", "mini_backward")
def check_mini_backward(mini_backward):
    import autogradlab as ag
    for case, root_tensor in _topo_graphs():
        leaves = {}
        for n in _reachable(root_tensor.grad_fn):
            var = getattr(n, "variable", None)
            if var is not None:
                leaves[var.name] = var
        names = sorted(leaves)
        expected = ag.autograd.grad(root_tensor, [leaves[k] for k in names], retain_graph=True)
        got, passes, steps = _call("mini_backward", count_engine_use, mini_backward, root_tensor)
        if passes:
            raise _Wrong(f"{case}: {own_engine_message('mini_backward', passes)}")
        applied = {node for node, _ in steps}
        skipped = sorted((n for n in _reachable(root_tensor.grad_fn)
                          if getattr(n, "variable", None) is None and n not in applied), key=_node_label)
        if skipped:
            raise _Wrong(f"{case}: your engine never called node.apply on {_node_label(skipped[0])}; each node's "
                         f"gradient comes from node.apply(g), in topological order")
        if not isinstance(got, dict):
            raise _Wrong(f"{case}: mini_backward should return a dict {{leaf name: gradient}}, got "
                         f"{type(got).__name__}")
        for name, g in zip(names, expected):
            if name not in got:
                raise _Wrong(f"{case}: no gradient for leaf {name!r} in your result (keys: {sorted(got)})")
            _in_case(case, compare, f"the gradient of {name}", got[name], g._data)
    return "your engine's gradients match autogradlab's on both graphs"


# ---------------------------------------------------------------------------------------
# Lesson 04: fan-out and accumulation
# ---------------------------------------------------------------------------------------

@_check("4.1", "grad_by_microbatches")
def check_grad_by_microbatches(grad_by_microbatches):
    import autogradlab as ag
    rng = numpy.random.default_rng(41)
    X = rng.normal(size=(12, 3))
    y = rng.normal(size=(12,))
    w0 = numpy.array([0.5, -1.0, 2.0])
    ref_w = ag.tensor(w0, dtype="float64", requires_grad=True)
    Xt, yt = ag.tensor(X, dtype="float64"), ag.tensor(y, dtype="float64")
    (((Xt @ ref_w) - yt) ** 2).mean().backward()
    expected = ref_w.grad._data
    for k in (1, 3, 4, 5):          # 12 rows in 5 chunks: sizes 3, 3, 2, 2, 2 (unequal)
        case = f"k={k} micro-batches"
        w = ag.tensor(w0, dtype="float64", requires_grad=True)
        w.grad = ag.tensor([100.0, 100.0, 100.0], dtype="float64")  # stale gradient from "a previous step"
        got = _call("grad_by_microbatches", grad_by_microbatches, w, Xt, yt, k)
        got_arr = _to_array(got, "the returned gradient")
        if got_arr.shape == expected.shape:
            if numpy.allclose(got_arr, expected + 100.0):
                raise _Wrong(f"{case}: the result still contains the old gradient (100 per element) that "
                             f"w.grad held before the call; clear it first (w.grad = None)")
            if k > 1 and numpy.allclose(got_arr, k * expected):
                raise _Wrong(f"{case}: your gradient is {k} times too large: sum each chunk's squared "
                             f"errors and divide by the full batch size N (not by the chunk's size)")
        _in_case(case, compare, "the gradient", got, expected, atol=1e-8, rtol=1e-6)
    return "the accumulated gradient equals the full-batch gradient for k = 1, 3, 4 and 5 (unequal chunks)"


# ---------------------------------------------------------------------------------------
# Lesson 05: which tensors get gradients
# ---------------------------------------------------------------------------------------

@_check("5.1", "round_ste")
def check_round_ste(round_ste):
    import autogradlab as ag
    x = ag.tensor([0.2, 1.7, -0.6, 2.5], requires_grad=True)
    y = _call("round_ste", round_ste, x)
    if not isinstance(y, ag.Tensor):
        raise _Wrong(f"round_ste should return a Tensor, got {type(y).__name__}")
    compare("the forward value", y, numpy.round(x._data))
    if not y.requires_grad:
        raise _Wrong("the result does not require grad: the gradient path through x is cut; keep x in "
                     "the expression and detach only the rounding correction")
    weights = ag.tensor([1.0, 2.0, 3.0, 4.0])
    _call("backward through round_ste's result", (y * weights).sum().backward)
    if x.grad is None:
        raise _Wrong("after backward, x.grad is None: no gradient reached x")
    try:
        compare("x.grad", x.grad, weights._data)
    except _Wrong as exc:
        raise _Wrong(f"{exc}; the straight-through estimator passes the gradient through unchanged "
                     f"(as if round were the identity)") from None
    return "rounds in the forward pass, passes gradients straight through in the backward pass"


# ---------------------------------------------------------------------------------------
# Lesson 06: saved tensors
# ---------------------------------------------------------------------------------------

@_check("6.1", "ExpFn")
def check_exp_function(ExpFn):
    import autogradlab as ag
    x = ag.tensor([-1.0, 0.0, 0.5, 2.0], dtype="float64", requires_grad=True)
    y = _call("ExpFn.apply", ExpFn.apply, x)
    if not isinstance(y, ag.Tensor):
        raise _Wrong(f"ExpFn.apply should return a Tensor, got {type(y).__name__}")
    compare("the forward value", y, numpy.exp(x._data))
    node = y.grad_fn
    if not (isinstance(ExpFn, type) and issubclass(ExpFn, ag.autograd.Function)):
        raise _Wrong("ExpFn is not a subclass of autograd.Function; write class ExpFn(ag.autograd.Function) "
                     "with a forward and a backward of your own")
    if getattr(node, "_fn_class", None) is not ExpFn:
        raise _Wrong(f"the result's grad_fn is {node.name() if node is not None else None}, not ExpFnBackward: "
                     f"ExpFn.apply must run your forward, so that your backward runs in the backward pass")
    saved = node._saved or {}
    if len(saved) != 1:
        raise _Wrong(f"ExpFn saved {len(saved)} tensors; exp needs exactly one (its output, since "
                     f"d exp(x)/dx = exp(x))")
    only = next(iter(saved.values()))
    saved_data = only[1]   # (source, data, vc, version): the saved array, None when packed
    if saved_data is not None and numpy.allclose(saved_data, x._data) and not numpy.allclose(x._data, y._data):
        raise _Wrong("ExpFn saved its input x; save the output y instead: backward then needs no exp() "
                     "call at all (the output is the derivative)")
    g = ag.tensor([1.0, 2.0, 0.5, -1.0], dtype="float64")
    (gx,) = _call("ExpFn.backward (through autograd.grad)", ag.autograd.grad, y, x, g)
    compare("the gradient of x", gx, g._data * numpy.exp(x._data))
    ok = _call("gradcheck(ExpFn.apply)", ag.autograd.gradcheck, ExpFn.apply,
               (ag.tensor([0.3, -0.7], dtype="float64", requires_grad=True),), raise_exception=False)
    if not ok:
        raise _Wrong("gradcheck disagrees with your backward at x = [0.3, -0.7]")
    return "forward, backward and gradcheck agree, and only the output is saved"


# ---------------------------------------------------------------------------------------
# Lesson 07: tensors, broadcasting, VJPs
# ---------------------------------------------------------------------------------------

@_check("7.1", "unbroadcast")
def check_unbroadcast(unbroadcast):
    rng = numpy.random.default_rng(71)
    cases = [((3, 4), (4,)), ((3, 4), (3, 1)), ((2, 3, 4), (1, 4)), ((2, 3), ()), ((2, 3), (2, 3)),
             ((5, 4, 3), (4, 1))]
    for big, small in cases:
        g = rng.normal(size=big)
        case = f"g of shape {big} -> shape {small}"
        before = g.copy()
        got = _by_hand("unbroadcast", unbroadcast, g, small)
        if not numpy.array_equal(g, before):
            raise _Wrong(f"{case}: unbroadcast modified g in place; return a new array")
        expected = g
        while expected.ndim > len(small):
            expected = expected.sum(axis=0)
        for axis, n in enumerate(small):
            if n == 1 and expected.shape[axis] != 1:
                expected = expected.sum(axis=axis, keepdims=True)
        _in_case(case, compare, "the result", got, expected, atol=1e-10, rtol=1e-10)
    return "sums over the leading axes and over the size-1 axes, for six shape pairs"


@_check("7.2", "matmul_vjp")
def check_matmul_vjp(matmul_vjp):
    rng = numpy.random.default_rng(72)
    for n, k, m in [(2, 3, 4), (1, 5, 1), (3, 3, 3)]:
        A, B, G = rng.normal(size=(n, k)), rng.normal(size=(k, m)), rng.normal(size=(n, m))
        case = f"A {A.shape} @ B {B.shape}"
        got = _by_hand("matmul_vjp", matmul_vjp, A, B, G)
        if not isinstance(got, (tuple, list)) or len(got) != 2:
            raise _Wrong(f"{case}: matmul_vjp should return (grad_A, grad_B)")
        gA, gB = got
        _in_case(case, compare, "grad_A", gA, G @ B.T, atol=1e-9, rtol=1e-9)
        _in_case(case, compare, "grad_B", gB, A.T @ G, atol=1e-9, rtol=1e-9)
    return "grad_A = G @ B^T and grad_B = A^T @ G, with the right shapes"


# ---------------------------------------------------------------------------------------
# Lesson 08: higher order
# ---------------------------------------------------------------------------------------

def _hvp_cases():
    import autogradlab as ag
    c = ag.tensor([[2.0, 0.5, 0.0], [0.5, 1.0, -0.3], [0.0, -0.3, 3.0]], dtype="float64")
    return [
        ("f(x) = sum(x**3)", lambda x: (x ** 3).sum(), numpy.array([1.0, -2.0, 0.5]),
         lambda x, v: 6 * x * v),
        ("f(x) = x^T C x / 2 + sum(sin(x))", lambda x: (x @ (c @ x)) / 2 + x.sin().sum(),
         numpy.array([0.3, -0.2, 1.0]), lambda x, v: c._data @ v - numpy.sin(x) * v),
    ]


@_check("8.1", "hvp")
def check_hvp(hvp):
    import autogradlab as ag
    for case, f, x0, exact in _hvp_cases():
        x = ag.tensor(x0, dtype="float64", requires_grad=True)
        v = ag.tensor([1.0, 0.5, -2.0], dtype="float64")
        got = _call("hvp", hvp, f, x, v)
        _in_case(case, compare, "H v", got, exact(x0, v._data), atol=1e-9, rtol=1e-7)
        if x.grad is not None:
            raise _Wrong(f"{case}: hvp left a gradient in x.grad; use autograd.grad (it returns gradients "
                         f"without touching .grad)")
    return "H v matches the exact Hessian-vector product on two functions, and x.grad is untouched"


@_check("8.2", "newton_step")
def check_newton_step(newton_step):
    import autogradlab as ag
    cases = [("f(x) = (x - 3)**2 + 1 from x=0", lambda x: (x - 3) ** 2 + 1, 0.0,
              lambda x: x - 2 * (x - 3) / 2),
             ("f(x) = x**4 - 3x from x=1", lambda x: x ** 4 - 3 * x, 1.0,
              lambda x: x - (4 * x ** 3 - 3) / (12 * x ** 2)),
             ("f(x) = exp(x) - 2x from x=0", lambda x: x.exp() - 2 * x, 0.0,
              lambda x: x - (math.exp(x) - 2) / math.exp(x))]
    for case, f, x0, exact in cases:
        x = ag.tensor(x0, dtype="float64", requires_grad=True)
        got = _call("newton_step", newton_step, f, x)
        _in_case(case, compare, "the new x", got, exact(x0), atol=1e-9, rtol=1e-9)
    return "x - f'(x) / f''(x) is right on three functions"


# ---------------------------------------------------------------------------------------
# Lesson 09: capstone
# ---------------------------------------------------------------------------------------

@_check("9.1", "fixed_loss")
def check_fixed_loss(fixed_loss):
    import autogradlab as ag
    rng = numpy.random.default_rng(91)
    logits_np = rng.normal(size=(6, 1))
    y_np = numpy.array([0, 1, 1, 0, 1, 0])
    logits = ag.tensor(logits_np, dtype="float64", requires_grad=True)
    y = ag.tensor(y_np)
    loss = _call("fixed_loss", fixed_loss, logits, y)
    if not isinstance(loss, ag.Tensor):
        raise _Wrong(f"fixed_loss should return a Tensor, got {type(loss).__name__}")
    if loss.numel() != 1:
        raise _Wrong(f"the loss should be one number, but it has shape {tuple(loss.shape)}")
    z, t = logits_np[:, 0], y_np.astype(float)
    per_sample = numpy.maximum(z, 0) - z * t + numpy.log1p(numpy.exp(-numpy.abs(z)))
    broadcast = numpy.maximum(logits_np, 0) - logits_np * t[None, :] + numpy.log1p(numpy.exp(-numpy.abs(logits_np)))
    if abs(loss.item() - broadcast.mean()) < 1e-9 and abs(broadcast.mean() - per_sample.mean()) > 1e-6:
        raise _Wrong("the loss still pairs every logit with every label: logits (N, 1) against labels (N,) "
                     "broadcast to (N, N); make both the same shape first")
    compare("the loss", loss, per_sample.mean(), atol=1e-7, rtol=1e-6)
    (g,) = _call("backward through fixed_loss", ag.autograd.grad, loss, logits)
    sig = 1 / (1 + numpy.exp(-z))
    compare("the gradient of the logits", g, ((sig - t) / len(t))[:, None], atol=1e-8, rtol=1e-6)
    return "one loss term per sample (no (N, N) broadcast), value and gradient right"


@_check("9.2", "make_model")
def check_healthy_model(make_model, X=None, y=None, steps=200, lr=0.5):
    import autogradlab as ag
    from autogradlab import nn, optim
    from autogradlab.nn import functional as F
    if X is None:
        X, y = ag.data.make_moons(200, noise=0.15, seed=0)
    ag.manual_seed(0)
    model = _call("make_model", make_model)
    if not isinstance(model, nn.Module):
        raise _Wrong(f"make_model should return an nn.Module, got {type(model).__name__}")
    params = list(model.parameters())
    if not params:
        raise _Wrong("the model has no parameters")
    out = _call("the model's forward pass", model, X)
    if tuple(out.shape) != (len(X), 2):
        raise _Wrong(f"the model should output 2 logits per point, shape ({len(X)}, 2); got {tuple(out.shape)}")
    F.cross_entropy(out, y).backward()
    # the first layer the data meets: the Linear taking the 2 input features (else the first parameter)
    firsts = [m.weight for m in model.modules() if isinstance(m, nn.Linear) and m.weight.shape[-1] == 2]
    first = firsts[0] if firsts else params[0]
    norm_first = float(numpy.sqrt((first.grad._data.astype(float) ** 2).sum())) if first.grad is not None else 0.0
    if norm_first < 1e-4:
        raise _Wrong(f"the first layer's gradient norm is {_num(norm_first, 3)} at initialisation: the "
                     f"gradient still vanishes before it reaches the first layer")
    opt = optim.SGD(params, lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        F.cross_entropy(model(X), y).backward()
        opt.step()
    acc = ag.training.accuracy(model, X, y)
    if acc < 0.9:
        raise _Wrong(f"after {steps} SGD steps (lr {lr}) the accuracy is only {acc:.2f}; it should reach 0.9")
    return f"the gradient reaches the first layer, and the accuracy is at least 0.9 after {steps} steps"
