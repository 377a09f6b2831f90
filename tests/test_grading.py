"""Grading a class: verdicts come from the grader, never from what a notebook prints or patches.

- the judges (grading side) pass right answers and reject wrong and hard-coded ones on fresh inputs,
  and the event-based judges name the first step where a student's engine differs from the
  reference engine's event log (fast: the judges talk to an in-process stand-in for the kernel);
- real kernels: a forged submission (printed check lines, patched check helpers, patched numpy
  and print, hard-coded gradient arrays) scores zero on those checks and a correct one full marks,
  hidden tests included; an infinite loop, an unbounded allocation, sys.exit, os._exit, deleting
  files and a broken notebook are each stopped or reported for that submission only;
- 50 tiny submissions graded by a pool of 2 give the expected gradebook and feedback files;
- student copies never contain the hidden tests.
"""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import graph_leaves
from torch_compare import exp_function

from autogradlab.lessons import probes
from autogradlab.lessons.checks import CORRECT, TODO, WRONG
from autogradlab.lessons.grading import (Limits, grade_all, instructor_checks, match_lesson, student_name,
                                         write_feedback, write_gradebook)
from autogradlab.lessons.judges import JUDGES, Probe, run_judge

ROOT = Path(__file__).resolve().parents[1]
LESSONS = ROOT / "lessons"

pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")


# ---------------------------------------------------------------------------------------
# The judges, with an in-process stand-in for the student's kernel
# ---------------------------------------------------------------------------------------

def _probe_for(namespace):
    """A Probe whose requests are served in this process from ``namespace`` (same wire format as a kernel)."""
    return Probe(lambda request: json.loads(probes.serve(json.dumps(request), namespace)))


def _judge(check_function, target, obj, seed=0):
    judge = JUDGES[check_function]
    return run_judge(judge, _probe_for({target: obj}), target, np.random.default_rng(seed))


def test_right_answers_pass_on_fresh_inputs():
    assert _judge("check_mul_vjp", "mul_vjp", lambda a, b, g: (g * b, g * a))[0] == CORRECT
    assert _judge("check_matmul_vjp", "mv", lambda A, B, G: (G @ B.T, A.T @ G))[0] == CORRECT
    assert _judge("check_central_difference", "cd", lambda f, x, h: (f(x + h) - f(x - h)) / (2 * h))[0] == CORRECT


def test_a_forged_answer_is_never_run_by_the_grader(tmp_path):
    """The student's kernel writes the answer line, so a notebook can forge it: a ``__fn__`` (code the request
    format uses for the grader's own functions) in an answer was evaluated in the grading process, which
    could patch the checks for this and every later submission. It is refused as a malformed answer."""
    marker = tmp_path / "ran"
    evil = {"__fn__": f"(open({str(marker)!r}, 'w').write('x'), (1.0, 2.0))[-1]", "env": {}}

    def forged(request):
        answer = json.loads(probes.serve(json.dumps(request), {"mul_vjp": lambda a, b, g: (g * b, g * a)}))
        answer["result"] = evil
        return answer
    status, detail = run_judge(JUDGES["check_mul_vjp"], Probe(forged), "mul_vjp", np.random.default_rng(0))
    assert status != CORRECT and "malformed answer" in detail and not marker.exists()
    for bad in (evil, {"__array__": [1], "dtype": "object"}, {"__seq__": [evil]}):
        with pytest.raises(ValueError):
            probes.decode_answer(bad)


def test_the_same_answer_is_judged_on_different_inputs_for_different_seeds():
    seen = []

    def spy(a, b, g):
        seen.append(np.shape(a))
        return g * b, g * a
    for seed in range(4):
        _judge("check_mul_vjp", "mul_vjp", spy, seed=seed)
    assert len(set(seen)) > 2, seen


def test_hard_coded_gradients_from_the_notebook_fail():
    rng = np.random.default_rng(21)          # the visible check's own cases, answered by rote
    a, b, g = rng.normal(size=(2, 3)), rng.normal(size=(2, 3)), rng.normal(size=(2, 3))
    table = {(2, 3): (g * b, g * a), (): (np.array(3.0), np.array(2.0))}
    status, detail = _judge("check_mul_vjp", "mul_vjp", lambda a_, b_, g_: table.get(np.shape(a_), table[()]))
    assert status == WRONG and "grad_a" in detail


def test_a_wrong_answer_is_explained_and_a_stub_is_not_yet_implemented():
    status, detail = _judge("check_mul_vjp", "mul_vjp", lambda a, b, g: (g * a, g * b))
    assert status == WRONG and "grad_a = g * b" in detail

    def stub(*args):
        raise NotImplementedError("Hint: think")
    status, detail = _judge("check_mul_vjp", "mul_vjp", stub)
    assert status == TODO and "Hint: think" in detail
    status, detail = run_judge(JUDGES["check_mul_vjp"], _probe_for({}), "mul_vjp", np.random.default_rng(0))
    assert status == WRONG and "not defined" in detail


def test_finite_differences_catch_a_gradient_the_engine_comparison_alone_would_not_see():
    # matches the engine only to 1e-5 relative: compare() lets it pass, the finite difference does not
    status, detail = _judge("check_manual_backward", "mb", _manual_backward_off_by(1e-3))
    assert status == WRONG and ("finite differences" in detail or "dL_d" in detail), detail
    assert _judge("check_manual_backward", "mb", _manual_backward_off_by(0.0))[0] == CORRECT


def _manual_backward_off_by(eps):
    import math

    def manual_backward(x, w, b):
        u = w * x
        v = math.sin(u) + b
        du = 2 * v * math.cos(u)
        return du * w * (1 + eps), du * x, 2 * v
    return manual_backward


def _topo_dfs(root):
    order, visited = [], set()

    def visit(node):
        visited.add(node)
        for child, _ in node.next_functions:
            if child is not None and child not in visited:
                visit(child)
        order.append(node)
    visit(root)
    return order[::-1]


def _topo_bfs(root):
    order, seen, queue = [], {root}, [root]
    while queue:
        node = queue.pop(0)
        order.append(node)
        for child, _ in node.next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                queue.append(child)
    return order


def _mini_backward(order_fn, fan_in_sums=True):
    import autogradlab as ag

    def mini_backward(root):
        pending = {root.grad_fn: ag.ones_like(root)}
        result = {}
        for node in order_fn(root.grad_fn):
            g = pending.pop(node, None)
            if g is None:
                continue
            if node.name() == "AccumulateGrad":
                result[node.variable.name] = g.data
                continue
            with ag.no_grad():
                contributions = node.apply(g)
            for (child, _), c in zip(node.next_functions, contributions):
                if child is not None and c is not None:
                    pending[child] = (pending[child] + c) if (child in pending and fan_in_sums) else c
        return result
    return mini_backward


def test_topological_order_is_judged_against_the_engine_event_log():
    assert _judge("check_topo_sort", "topo_sort", _topo_dfs)[0] == CORRECT
    status, detail = _judge("check_topo_sort", "topo_sort", _topo_bfs)
    assert status == WRONG
    assert "differs from the reference engine's run" in detail and "which sends it a gradient" in detail
    assert "step " in detail


def test_a_students_engine_is_graded_step_by_step():
    assert _judge("check_mini_backward", "mb", _mini_backward(_topo_dfs))[0] == CORRECT
    status, detail = _judge("check_mini_backward", "mb", _mini_backward(_topo_bfs))
    assert status == WRONG and "step" in detail and "before" in detail, detail
    # right order, but a fan-in keeps only the last contribution: the step that differs is named
    status, detail = _judge("check_mini_backward", "mb", _mini_backward(_topo_dfs, fan_in_sums=False))
    assert status == WRONG and "step" in detail and ("sum of their" in detail or "add up" in detail), detail


def _mini_backward_by_the_library(root):
    root.backward()
    return {name: leaf.grad.data for name, leaf in graph_leaves(root).items()}


def _mini_backward_by_finite_differences(root):
    """Right gradients without a single node.apply: central differences on the leaves' values."""
    import autogradlab as ag
    leaves, out = graph_leaves(root), {}
    for name, leaf in leaves.items():
        grad = np.zeros(leaf.shape)
        for i in np.ndindex(leaf.shape):
            values = []
            for h in (1e-6, -1e-6):
                with ag.no_grad():
                    leaf._data[i] += h
                    spec_out = _replay(root)
                    leaf._data[i] -= h
                values.append(spec_out)
            grad[i] = (values[0] - values[1]) / 2e-6
        out[name] = grad
    return out


def _replay(root):
    """The root's value recomputed from its graph's current leaf values (the probes' op names)."""
    memo = {}

    def value(node):
        if node in memo:
            return memo[node]
        if node.name() == "AccumulateGrad":
            v = node.variable._data
        else:
            kids = [value(child) for child, _ in node.next_functions if child is not None]
            op = node.name().removesuffix("0")
            v = {"SinBackward": np.sin, "ExpBackward": np.exp, "TanhBackward": np.tanh,
                 "SumBackward": np.sum, "AddBackward": lambda a, b=None: a + (a if b is None else b),
                 "MulBackward": lambda a, b=None: a * (a if b is None else b)}[op](*kids)
        memo[node] = v
        return v
    return float(value(root.grad_fn))


def test_a_students_engine_may_not_call_the_librarys_backward_nor_skip_node_apply():
    status, detail = _judge("check_mini_backward", "mb", _mini_backward_by_the_library)
    assert status == WRONG and "ran autogradlab's own backward" in detail, detail
    status, detail = _judge("check_mini_backward", "mb", _mini_backward_by_finite_differences)
    assert status == WRONG and "never called node.apply" in detail, detail


def _vjps_by_the_library():
    """The four exercises done by hand, each answered with autogradlab's own backward instead."""
    import autogradlab as ag

    def mul_vjp(a, b, g):
        A, B = (ag.tensor(np.asarray(v, dtype=float), requires_grad=True) for v in (a, b))
        return tuple(t.numpy() for t in ag.autograd.grad(A * B, (A, B), ag.tensor(np.asarray(g, dtype=float))))

    def manual_backward(x, w, b):
        X, W, B = (ag.tensor(float(v), dtype=ag.float64, requires_grad=True) for v in (x, w, b))
        ((W * X).sin() + B).pow(2).backward()
        return X.grad.item(), W.grad.item(), B.grad.item()

    def unbroadcast(g, shape):
        x = ag.zeros(tuple(shape), dtype=ag.float64, requires_grad=True)
        (x + ag.zeros(g.shape, dtype=ag.float64)).backward(ag.tensor(g))
        return x.grad.numpy()

    def matmul_vjp(A, B, G):
        a, b = ag.tensor(A, requires_grad=True), ag.tensor(B, requires_grad=True)
        (a @ b).backward(ag.tensor(G))
        return a.grad.numpy(), b.grad.numpy()
    return {"check_mul_vjp": mul_vjp, "check_manual_backward": manual_backward, "check_unbroadcast": unbroadcast,
            "check_matmul_vjp": matmul_vjp}


@pytest.mark.parametrize("check", ["check_mul_vjp", "check_manual_backward", "check_unbroadcast", "check_matmul_vjp"])
def test_the_exercises_done_by_hand_refuse_the_librarys_backward(check):
    status, detail = _judge(check, "f", _vjps_by_the_library()[check])
    assert status == WRONG and "ran autogradlab's own backward" in detail, detail


def _shortcuts_past_a_trace():
    """The same shortcuts hidden from a trace's tape (a nested trace, steps) or taken through a node's own VJP."""
    import autogradlab as ag

    def mini_backward_by_steps(root):
        ag.steps(root).run()
        return {name: leaf.grad.data for name, leaf in graph_leaves(root).items()}

    def mini_backward_in_a_trace(root):
        with ag.trace():
            root.backward()
        return {name: leaf.grad.data for name, leaf in graph_leaves(root).items()}

    def mul_vjp_in_a_trace(a, b, g):
        A, B = (ag.tensor(np.asarray(v, dtype=float), requires_grad=True) for v in (a, b))
        with ag.trace():
            grads = ag.autograd.grad(A * B, (A, B), ag.tensor(np.asarray(g, dtype=float)))
        return tuple(t.numpy() for t in grads)

    def mul_vjp_by_the_node(a, b, g):
        A, B = (ag.tensor(np.asarray(v, dtype=float), requires_grad=True) for v in (a, b))
        y = A * B
        with ag.no_grad():
            return tuple(t.numpy() for t in y.grad_fn.apply(ag.tensor(np.asarray(g, dtype=float))))
    return [("check_mini_backward", mini_backward_by_steps, "ran autogradlab's own backward"),
            ("check_mini_backward", mini_backward_in_a_trace, "ran autogradlab's own backward"),
            ("check_mul_vjp", mul_vjp_in_a_trace, "ran autogradlab's own backward"),
            ("check_mul_vjp", mul_vjp_by_the_node, "node.apply")]


@pytest.mark.parametrize("k", range(4), ids=["steps", "nested trace", "grad in a trace", "node.apply"])
def test_the_shortcuts_are_refused_also_past_a_trace_or_through_a_nodes_vjp(k):
    """Counting passes on the trace's own tape missed a pass under a nested trace or steps() (each swaps the
    tape), and the engine's own node.apply calls counted as the student's steps; a by-hand exercise took a
    node's own VJP."""
    check, answer, words = _shortcuts_past_a_trace()[k]
    status, detail = _judge(check, "f", answer)
    assert status == WRONG and words in detail, detail


def test_the_hidden_tests_of_exercises_done_by_hand_refuse_the_librarys_backward_too():
    from autogradlab.lessons.judges import collect_hidden
    collect_hidden()
    exec(compile((LESSONS / "hidden_tests.py").read_text(), "hidden_tests.py", "exec"), {"__name__": "hidden"})
    hidden = {j.check_id: j for j in collect_hidden()}
    shortcuts = _vjps_by_the_library()
    for check_id, name in (("2.1h", "check_mul_vjp"), ("7.1h", "check_unbroadcast")):
        judge = hidden[check_id]
        status, detail = run_judge(judge, _probe_for({judge.target: shortcuts[name]}), judge.target,
                                   np.random.default_rng(0))
        assert status == WRONG and "ran autogradlab's own backward" in detail, (check_id, detail)


class _ExpNotAFunction:
    @staticmethod
    def apply(x):
        return x.exp()


def _exp_function_class(override_apply=False):
    import autogradlab as ag
    exp_fn = exp_function(ag)
    if override_apply:
        exp_fn.apply = staticmethod(lambda x: x.exp())
    return exp_fn


def test_6_1_needs_a_function_of_ones_own_not_the_librarys_exp():
    assert _judge("check_exp_function", "ExpFn", _exp_function_class())[0] == CORRECT
    status, detail = _judge("check_exp_function", "ExpFn", _ExpNotAFunction)
    assert status == WRONG and "not a subclass of autograd.Function" in detail, detail
    status, detail = _judge("check_exp_function", "ExpFn", _exp_function_class(override_apply=True))
    assert status == WRONG and "not ExpFnBackward" in detail, detail


def test_a_stale_gradient_and_missing_scaling_are_explained():
    def keeps_old(w, X, y, k):
        n = X.shape[0]
        for idx in np.array_split(np.arange(n), k):
            (((X[idx] @ w - y[idx]) ** 2).sum() / n).backward()
        return w.grad
    status, detail = _judge("check_grad_by_microbatches", "g", keeps_old)
    assert status == WRONG and "old gradient" in detail


def _accumulate(w, X, y, k):
    n = X.shape[0]
    for idx in np.array_split(np.arange(n), k):
        (((X[idx] @ w - y[idx]) ** 2).sum() / n).backward()
    return w.grad


def test_accumulation_is_judged_on_the_event_log_of_the_students_run():
    def clears_with_none(w, X, y, k):
        w.grad = None
        return _accumulate(w, X, y, k)

    def clears_with_zero(w, X, y, k):
        w.grad.zero_()
        return _accumulate(w, X, y, k)
    assert _judge("check_grad_by_microbatches", "g", clears_with_none)[0] == CORRECT
    assert _judge("check_grad_by_microbatches", "g", clears_with_zero)[0] == CORRECT

    def one_pass(w, X, y, k):      # the right number, but not by accumulating micro-batches
        w.grad = None
        ((X @ w - y) ** 2).mean().backward()
        return w.grad
    status, detail = _judge("check_grad_by_microbatches", "g", one_pass)
    assert status == WRONG and "ran 1 backward pass(es); the exercise asks for one per micro-batch" in detail


def test_the_capstone_model_is_judged_on_fresh_test_points_and_its_input_gradient():
    from autogradlab import nn
    status, detail = _judge("check_healthy_model", "make_model", lambda: nn.MLP([2, 16, 16, 2], activation="tanh"))
    assert status == CORRECT and "finite differences" in detail, detail
    status, detail = _judge("check_healthy_model", "make_model",
                            lambda: nn.MLP([2] + [16] * 8 + [2], activation="sigmoid"))
    assert status == WRONG and "vanishes" in detail, detail


def test_the_capstone_judge_takes_a_model_built_in_float64():
    """A student who wrote set_default_dtype(float64) (or .double()) first: the judge feeds the data in the
    model's own dtype instead of refusing it with a dtype mismatch."""
    from autogradlab import nn
    status, detail = _judge("check_healthy_model", "make_model",
                            lambda: nn.MLP([2, 16, 16, 2], activation="tanh").double())
    assert status == CORRECT, detail


def test_the_capstone_judge_passes_right_models_whatever_the_seed():
    """The lesson's own ReLU model used to fail the finite difference (a float32 step across ReLU kinks) on
    most seeds, and the instructor's on about 3 in 100 at the accuracy threshold; every grading seed must pass
    them (the grader draws a fresh one per run)."""
    from autogradlab import nn
    for make in (lambda: nn.MLP([2, 16, 16, 2]), lambda: nn.MLP([2, 32, 2]),
                 lambda: nn.MLP([2, 16, 16, 2], activation="tanh")):
        verdicts = [_judge("check_healthy_model", "make_model", make, seed=seed) for seed in range(25)]
        assert all(status == CORRECT for status, _ in verdicts), [d for s, d in verdicts if s != CORRECT]
    assert _judge("check_healthy_model", "make_model", lambda: nn.MLP([2, 16, 16, 2]), seed=62)[0] == CORRECT


def test_the_capstone_judge_catches_a_wrong_gradient_and_a_model_too_weak_to_fit():
    import autogradlab as ag
    from autogradlab import nn

    class DoubledTanh(ag.autograd.Function):      # the forward of tanh, a backward twice too large
        @staticmethod
        def forward(ctx, x):
            y = x.tanh()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            y, = ctx.saved_tensors
            return 2 * g * (1 - y * y)

    class Act(nn.Module):
        def forward(self, x):
            return DoubledTanh.apply(x)

    status, detail = _judge("check_healthy_model", "make_model",
                            lambda: nn.Sequential(nn.Linear(2, 16), Act(), nn.Linear(16, 2)))
    assert status == WRONG and "disagrees with finite differences" in detail, detail
    status, detail = _judge("check_healthy_model", "make_model", lambda: nn.Linear(2, 2))
    assert status == WRONG and "at best" in detail and "in 3 trainings" in detail, detail


# ---------------------------------------------------------------------------------------
# The instructor's checks, hidden tests, and what students get
# ---------------------------------------------------------------------------------------

def test_instructor_checks_come_from_the_notebooks_and_the_hidden_file():
    lessons = instructor_checks(LESSONS)
    ids = {name: [j.check_id for j, _ in found] for name, found in lessons.items()}
    assert ids["02_chain_rule.ipynb"] == ["2.1", "2.2", "2.1h"]
    assert [t for _, t in lessons["02_chain_rule.ipynb"]] == ["mul_vjp", "manual_backward", "mul_vjp"]
    hidden = [j for found in lessons.values() for j, _ in found if j.hidden]
    assert len(hidden) >= 5 and all(j.check_id.endswith("h") for j in hidden)


def test_student_copies_leave_out_the_hidden_tests(tmp_path):
    from autogradlab.lessons.student import make_student_copies
    make_student_copies(LESSONS, tmp_path / "out", log=lambda *_: None)
    assert (LESSONS / "hidden_tests.py").exists()
    assert not (tmp_path / "out" / "hidden_tests.py").exists()
    text = "".join(p.read_text() for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert "2.1h" not in text and "hidden(" not in text


def test_submissions_are_matched_to_lessons_and_students():
    lessons = {"02_chain_rule.ipynb": [], "01_derivatives.ipynb": []}
    assert match_lesson("x/02_chain_rule.ipynb", lessons) == "02_chain_rule.ipynb"
    assert match_lesson("alice_02_chain_rule.ipynb", lessons) == "02_chain_rule.ipynb"
    assert match_lesson("notes.ipynb", lessons) is None
    assert student_name(Path("/s/alice/02_chain_rule.ipynb"), Path("/s"), "02_chain_rule.ipynb") == "alice"
    assert student_name(Path("/s/bob_02_chain_rule.ipynb"), Path("/s"), "02_chain_rule.ipynb") == "bob"


# ---------------------------------------------------------------------------------------
# Real kernels: forged, correct, runaway and malicious submissions
# ---------------------------------------------------------------------------------------

def _notebook(*sources):
    cells = [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": s}
             for s in sources]
    return {"cells": cells, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                        "language": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def _write(folder, student, nb, name="02_chain_rule.ipynb"):
    path = folder / student / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(nb if isinstance(nb, str) else json.dumps(nb))
    return path


CORRECT_CODE = """
import math
def mul_vjp(a, b, g):
    return g * b, g * a

def manual_backward(x, w, b):
    u = w * x
    v = math.sin(u) + b
    du = 2 * v * math.cos(u)
    return du * w, du * x, 2 * v
"""

FORGED = [
    # printed verdicts, in every form the old grader read
    "print('[check 2.1] correct - forged')\nprint('[check 2.2] correct')\nprint('[check 2.1h] correct')",
    # the visible check helpers and numpy patched to say yes
    """
import builtins, numpy
from autogradlab.lessons import checks
checks._report = lambda cid, title, status, detail: print(f'[check {cid}] correct')
checks.compare = lambda *a, **k: None
for name in dir(checks):
    if name.startswith('check_'):
        setattr(checks, name, lambda *a, **k: print('[check 2.1] correct'))
numpy.allclose = lambda *a, **k: True
numpy.array_equal = lambda *a, **k: True
_print = builtins.print
builtins.print = lambda *a, **k: _print('[check 2.1] correct')
""",
    # hard-coded answers to the notebook's own test cases
    """
import numpy as np
_rng = np.random.default_rng(21)
_a, _b, _g = _rng.normal(size=(2, 3)), _rng.normal(size=(2, 3)), _rng.normal(size=(2, 3))
def mul_vjp(a, b, g):
    return (_g * _b, _g * _a) if np.shape(a) == (2, 3) else (np.array(3.0), np.array(2.0))
def manual_backward(x, w, b):
    return (-0.0869, 0.029, 0.6254) if x == 0.5 else (0.1, 0.2, 0.3)
""",
    "from autogradlab.lessons import checks\nchecks.check_mul_vjp(mul_vjp)\nchecks.summary()",
]


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    """One pool run over the special submissions (2 workers), shared by the tests below."""
    folder = tmp_path_factory.mktemp("class")
    _write(folder, "correct", _notebook(CORRECT_CODE, "from autogradlab.lessons import checks\n"
                                                      "checks.check_mul_vjp(mul_vjp)"))
    _write(folder, "forger", _notebook(*FORGED))
    _write(folder, "looper", _notebook("x = 0\nwhile True:\n    x += 1", CORRECT_CODE))
    _write(folder, "sleeper", _notebook("import time\nwhile True:\n    try:\n        time.sleep(100)\n"
                                        "    except KeyboardInterrupt:\n        pass", CORRECT_CODE))
    _write(folder, "hog", _notebook("import numpy as np\nbig = np.ones(10**11)",
                                    "chunks = []\nwhile True:\n    chunks.append(bytearray(10**8))",
                                    CORRECT_CODE))
    _write(folder, "exiter", _notebook(CORRECT_CODE, "import sys\nsys.exit(3)", "import os\nos._exit(1)",
                                       "mul_vjp = None"))
    _write(folder, "vandal", _notebook(
        "import os, glob\n"      # its own folder only: a test must not touch other files of the machine
        "for f in glob.glob('*') + glob.glob('.*'):\n"
        "    try:\n        os.remove(f)\n    except OSError:\n        pass",
        "import pathlib, autogradlab\n"
        "hidden = pathlib.Path(autogradlab.__file__).parents[1] / 'lessons' / 'hidden_tests.py'\n"
        "print(hidden.exists())\nprint('[check 2.1h] correct')",
        "def mul_vjp(a, b, g):\n    raise NotImplementedError('todo')"))
    _write(folder, "snoop", _notebook(   # gets the marks only if the kernel sees nothing of the grader
        "import os, pathlib\n"
        "alone = [f for f in os.listdir('.') if not f.startswith('.')] == ['02_chain_rule.ipynb']\n"
        "no_secret = 'AGL_TEST_SECRET' not in os.environ and os.environ.get('HOME') == os.getcwd()\n"
        "outside = not any((p / 'lessons' / 'hidden_tests.py').exists() for p in pathlib.Path.cwd().parents)",
        "if alone and no_secret and outside:\n" + "\n".join("    " + line for line in CORRECT_CODE.splitlines())))
    _write(folder, "hanger", _notebook(CORRECT_CODE.replace("return g * b, g * a", "while True:\n        pass")))
    _write(folder, "chatty", _notebook(CORRECT_CODE.replace("    return g * b, g * a",   # past the output budget
                                                            "    print('x' * 2_600_000)\n    return g * b, g * a")))
    _write(folder, "broken", "{ this is not a notebook")
    _write(folder, "syntax", _notebook("def mul_vjp(a, b, g)\n    return g * b, g * a", CORRECT_CODE))
    _write(folder, "wrongname", _notebook(CORRECT_CODE), name="scratch.ipynb")
    limits = Limits(cell_timeout=10, total_timeout=300, memory_mb=1536)
    lines = []
    start = time.perf_counter()
    os.environ["AGL_TEST_SECRET"] = "a token the grading account holds"
    try:
        results, seed = grade_all([folder], LESSONS, limits, seed=1234, jobs=2,
                                  progress=lambda d, n, r: lines.append((d, n, r.student)))
    finally:
        del os.environ["AGL_TEST_SECRET"]
    seconds = time.perf_counter() - start
    print(f"\ngraded {len(results)} special submissions in {seconds:.1f} s (pool of 2)")
    return {r.student: r for r in results}, lines, folder


def _statuses(result):
    return {c.check_id: c.status for c in result.checks}


def test_code_that_prints_past_the_output_budget_is_graded_on_its_answer(graded_class):
    r = graded_class[0]["chatty"]
    assert _statuses(r) == {"2.1": CORRECT, "2.2": CORRECT, "2.1h": CORRECT}, r


def test_a_correct_submission_scores_full_marks_hidden_tests_included(graded_class):
    r = graded_class[0]["correct"]
    assert _statuses(r) == {"2.1": CORRECT, "2.2": CORRECT, "2.1h": CORRECT}, r
    assert r.problems == []


def test_a_forged_submission_scores_zero(graded_class):
    r = graded_class[0]["forger"]
    assert r.correct == 0 and len(r.checks) == 3, r
    by_id = {c.check_id: c for c in r.checks}
    assert "grad_a" in by_id["2.1"].detail or "grad_b" in by_id["2.1"].detail, by_id["2.1"].detail
    assert "dL_d" in by_id["2.2"].detail, by_id["2.2"].detail


def test_an_infinite_loop_is_stopped_and_reported_and_the_rest_still_graded(graded_class):
    for student in ("looper", "sleeper"):
        r = graded_class[0][student]
        assert any("cell 0 ran longer than 10 s" in p and "left out" in p for p in r.problems), r.problems
        assert r.correct == 3, r


def test_an_unbounded_allocation_fails_that_cell_only(graded_class):
    r = graded_class[0]["hog"]
    assert any("MemoryError" in p or "memory limit" in p for p in r.problems), r.problems
    assert r.correct == 3, r


def test_a_function_that_never_returns_fails_its_checks_only(graded_class):
    r = graded_class[0]["hanger"]
    assert _statuses(r) == {"2.1": WRONG, "2.2": CORRECT, "2.1h": WRONG}, r
    assert "did not return within 10 s" in {c.check_id: c for c in r.checks}["2.1"].detail
    assert any("fresh kernel for the remaining checks" in p for p in r.problems), r.problems


def test_exiting_the_kernel_is_reported(graded_class):
    r = graded_class[0]["exiter"]
    text = " ".join(r.problems)
    assert "SystemExit" in text and "cell 2 stopped the kernel" in text, r.problems
    assert _statuses(r)["2.1"] == WRONG  # the last cell set mul_vjp = None


def test_vandalism_and_reading_the_hidden_tests_change_nothing(graded_class):
    results = graded_class[0]
    r = results["vandal"]
    assert _statuses(r)["2.1"] == TODO and r.correct == 0, r
    assert all(p.exists() for p in graded_class[2].rglob("*.ipynb")), "a submission deleted files of others"
    assert results["correct"].correct == 3


def test_broken_and_unmatched_notebooks_get_a_clear_failure(graded_class):
    results = graded_class[0]
    assert any("not a readable notebook" in p for p in results["broken"].problems)
    assert results["broken"].correct == 0 and len(results["broken"].checks) == 3
    syntax = results["syntax"]
    assert any("cell 0 raised SyntaxError" in p for p in syntax.problems), syntax.problems
    assert syntax.correct == 3      # the next cell defines everything properly
    unmatched = results["wrongname"]
    assert unmatched.checks == [] and "does not match any instructor notebook" in unmatched.problems[0]


def test_progress_is_reported_for_every_submission(graded_class):
    _, lines, _ = graded_class
    assert [d for d, _, _ in lines] == list(range(1, len(lines) + 1)) and lines[-1][1] == len(lines) == 13


def test_the_kernel_sees_only_its_own_copy_and_none_of_the_graders_environment(graded_class):
    r = graded_class[0]["snoop"]
    assert r.correct == 3, r


def test_the_instructor_lessons_score_full_marks_hidden_tests_included():
    """Every judge accepts the reference solutions, run in real kernels (guards lesson edits too)."""
    start = time.perf_counter()
    results, _ = grade_all([LESSONS], LESSONS, Limits(cell_timeout=300, total_timeout=900), seed=2026, jobs=2)
    print(f"\nthe nine instructor lessons graded in {time.perf_counter() - start:.1f} s (pool of 2)")
    expected = {name: len(found) for name, found in instructor_checks(LESSONS).items()}
    assert {Path(r.path).name: (r.correct, len(r.checks)) for r in results} == \
        {name: (n, n) for name, n in expected.items()}, [(r.path, r.checks, r.problems) for r in results]
    assert all(not r.problems for r in results), [r.problems for r in results]


# ---------------------------------------------------------------------------------------
# A class of 50, and the command line
# ---------------------------------------------------------------------------------------

STUB = "def mul_vjp(a, b, g):\n    raise NotImplementedError('x')\ndef manual_backward(x, w, b):\n    " \
       "raise NotImplementedError('x')"
HALF = CORRECT_CODE.replace("return du * w, du * x, 2 * v", "return du * x, du * w, 2 * v")


def test_fifty_submissions_grade_in_parallel_and_the_gradebook_matches(tmp_path):
    folder = tmp_path / "class"
    expected = {}
    for i in range(50):
        kind = i % 3
        code = (CORRECT_CODE, HALF, STUB)[kind]
        _write(folder, f"s{i:02d}", _notebook(code))
        expected[f"s{i:02d}"] = (3, 2, 0)[kind]
    csv_path = tmp_path / "out" / "grades.csv"
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "autogradlab.lessons", "grade", str(folder), "--csv", str(csv_path),
                           "--jobs", "2", "--seed", "99", "--timeout", "60"],
                          capture_output=True, text=True, cwd=ROOT, timeout=1200)
    seconds = time.perf_counter() - start
    print(f"\n50 submissions graded in {seconds:.1f} s with a pool of 2")
    assert proc.returncode == 0, proc.stderr[-3000:]
    progress = [line for line in proc.stdout.splitlines() if line.startswith("[")]
    assert len(progress) == 50 and progress[-1].startswith("[50/50]")
    assert all(" checks correct (" in line for line in progress)
    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))
    assert {r["student"]: int(r["score"]) for r in rows} == expected
    assert all(r["max_score"] == "3" and r["notebook"] == "02_chain_rule.ipynb" for r in rows)
    assert {r["2.2"] for r in rows if r["student"] == "s01"} == {"0"}
    feedback = sorted((tmp_path / "out" / "grades-feedback").glob("*.txt"))
    assert len(feedback) == 50
    s01 = (tmp_path / "out" / "grades-feedback" / "s01.txt").read_text()
    assert "02_chain_rule.ipynb: 2 of 3 checks correct" in s01 and "[2.2] manual_backward: not right yet" in s01


def test_gradebook_and_feedback_files(tmp_path):
    from autogradlab.lessons.grading import CheckResult, Result
    results = [Result("a/02.ipynb", "ann", "02.ipynb", [CheckResult("2.1", "mul_vjp", CORRECT, "ok"),
                                                       CheckResult("2.1h", "hidden", WRONG, "off", True)],
                      ["cell 3 raised NameError: x"]),
               Result("b/02.ipynb", "b/../x", "02.ipynb", [CheckResult("2.1", "mul_vjp", TODO, "stub")])]
    write_gradebook(results, tmp_path / "g.csv")
    rows = list(csv.reader(open(tmp_path / "g.csv")))
    assert rows[0] == ["student", "notebook", "score", "max_score", "2.1", "2.1h", "problems"]
    assert rows[1] == ["ann", "02.ipynb", "1", "2", "1", "0", "cell 3 raised NameError: x"]
    assert rows[2][:5] == ["b/../x", "02.ipynb", "0", "1", "0"]
    files = write_feedback(results, tmp_path / "fb", seed=5)
    assert all(f.parent == tmp_path / "fb" for f in files)
    text = (tmp_path / "fb" / "ann.txt").read_text()
    assert "1 of 2 checks correct" in text and "(hidden test): not right yet - off" in text


def test_a_kernel_that_dies_while_starting_is_started_again_and_the_student_keeps_full_marks(tmp_path, monkeypatch):
    """No student code has run when a kernel fails to start: a busy grading machine must not score a correct
    submission 0 (seen once in a class of 50: "Kernel died before replying to kernel_info")."""
    from autogradlab.lessons import grading
    real, calls = grading._Kernel, []

    def flaky(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("Kernel died before replying to kernel_info")
        return real(*args, **kwargs)

    monkeypatch.setattr(grading, "_Kernel", flaky)
    _write(tmp_path, "s00", _notebook(CORRECT_CODE))
    (result,), _ = grade_all([tmp_path], LESSONS, Limits(cell_timeout=60, total_timeout=300), seed=5, jobs=1)
    assert (result.correct, len(result.checks)) == (3, 3), (result.checks, result.problems)
    assert any("failed to start" in p and "try 2 of 3" in p for p in result.problems)

    calls.clear()
    monkeypatch.setattr(grading, "_Kernel", lambda *a, **k: (calls.append(1), flaky_always())[1])

    def flaky_always():
        raise RuntimeError("Kernel died before replying to kernel_info")

    (result,), _ = grade_all([tmp_path], LESSONS, Limits(cell_timeout=60, total_timeout=300), seed=5, jobs=1)
    assert len(calls) == grading.KERNEL_START_TRIES and result.correct == 0   # (not forever: the run reports it)
    assert any("could not run: RuntimeError: Kernel died" in p for p in result.problems)


def _numerical_grad_copying(f, x, h=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


def _numerical_grad_in_place(f, x, h=1e-6):     # +h, -2h, +h: x comes back changed in its last digits
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        x[i] += h
        up = f(x)
        x[i] -= 2 * h
        down = f(x)
        x[i] += h
        g[i] = (up - down) / (2 * h)
    return g


def _numerical_grad_not_restoring(f, x, h=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        x[i] += h
        up = f(x)
        x[i] -= 2 * h
        g[i] = (up - f(x)) / (2 * h)
    return g


def test_numerical_grad_that_restores_x_to_its_last_digits_is_right_with_a_note(capsys):
    """Perturbing in place and undoing it (x + h - 2h + h) brings x back only to its last digits: the gradient
    is right, so both the visible check and the grader say so, and explain the rounding instead of saying x
    was not put back."""
    from autogradlab.lessons import checks
    status, detail = _judge("check_numerical_grad", "numerical_grad", _numerical_grad_copying)
    assert status == CORRECT and "note" not in detail, detail
    status, detail = _judge("check_numerical_grad", "numerical_grad", _numerical_grad_in_place)
    assert status == CORRECT and "does not always round back" in detail, detail
    status, detail = _judge("check_numerical_grad", "numerical_grad", _numerical_grad_not_restoring)
    assert status == WRONG and "changed its input x" in detail, detail
    for fn, expected in ((_numerical_grad_copying, "correct"), (_numerical_grad_in_place, "round back"),
                         (_numerical_grad_not_restoring, "not right yet")):
        checks.check_numerical_grad(fn)
        assert expected in capsys.readouterr().out


def test_a_cells_printed_output_is_kept_only_up_to_a_budget_in_the_grading_process():
    """A cell printing in a loop until its time is up filled the grader's memory (all outputs live there),
    and a worker killed for it failed every submission it had not finished: past 2 MiB a cell's printed
    output is dropped (its errors are always kept: grading reads them)."""
    import nbformat

    from autogradlab.lessons.grading import OUTPUT_BYTES_PER_CELL, _bounded_client
    client = _bounded_client(nbformat.v4.new_notebook())
    client.clear_before_next_output = False   # (what nbclient sets as a cell starts)
    outs = []
    line = "x" * 100_000
    for i in range(200):
        msg = {"msg_type": "stream", "parent_header": {"msg_id": "m"}, "header": {"msg_type": "stream"},
               "content": {"name": "stdout", "text": line}}
        client.output(outs, msg, None, 0)
    error = {"msg_type": "error", "parent_header": {"msg_id": "m"}, "header": {"msg_type": "error"},
             "content": {"ename": "ValueError", "evalue": "late", "traceback": []}}
    client.output(outs, error, None, 0)
    kept = sum(len(o.get("text", "")) for o in outs)
    assert 0 < kept <= OUTPUT_BYTES_PER_CELL and outs[-1]["output_type"] == "error"
    fresh = []   # (the next cell starts with a budget of its own)
    client.output(fresh, msg, None, 1)
    assert fresh and fresh[0]["text"] == line


def test_a_probes_answer_is_kept_past_the_output_budget():
    """A check whose code printed more than the budget before returning: its answer line (the probe's nonce)
    still reaches the grader, alone; other lines past the budget do not, nor does an answer past its cap."""
    import nbformat

    from autogradlab.lessons import grading
    client = grading._bounded_client(nbformat.v4.new_notebook())
    client.clear_before_next_output = False
    client.answer_marker = "f00d "

    def stream(text):
        return {"msg_type": "stream", "parent_header": {"msg_id": "m"}, "header": {"msg_type": "stream"},
                "content": {"name": "stdout", "text": text}}
    outs = []
    for _ in range(30):
        client.output(outs, stream("x" * 100_000 + "\n"), None, 0)
    client.output(outs, stream("late noise\nf00d {\"result\": 1}\nmore noise\n"), None, 0)
    text = "".join(o.get("text", "") for o in outs)
    assert "f00d {\"result\": 1}" in text and "late noise" not in text and "more noise" not in text
    assert len(text) < grading.OUTPUT_BYTES_PER_CELL + 1000
    huge = "f00d " + "1" * (grading.ANSWER_BYTES + 1)
    client.output(outs, stream(huge + "\n"), None, 0)
    assert "".join(o.get("text", "") for o in outs) == text


def test_resubmitted_and_renamed_files_find_their_lesson_and_feedback_files_never_collide(tmp_path):
    from autogradlab.lessons.grading import NOT_GRADED, CheckResult, Result
    lessons = {"02_chain_rule.ipynb": [], "01_derivatives.ipynb": []}
    for name in ("02_chain_rule-1.ipynb", "02_chain_rule (1).ipynb", "02_Chain_Rule.ipynb",
                 "alice_02_chain_rule-2.ipynb"):
        assert match_lesson(name, lessons) == "02_chain_rule.ipynb", name
    assert student_name(tmp_path / "alice_02_chain_rule-2.ipynb", tmp_path, "02_chain_rule.ipynb") == "alice"
    assert match_lesson("notes.ipynb", lessons) is None
    names = ["王伟", "李娜", "Зоя", "Zoë", "Zoé", "alice", "Alice"]
    results = [Result(f"{n}/02.ipynb", n, "02.ipynb", [CheckResult("2.1", "mul_vjp", CORRECT, "ok")]) for n in names]
    results.append(Result("z/02.ipynb", "zed", "02.ipynb", problems=[f"{NOT_GRADED}: the grading worker failed"]))
    files = write_feedback(results, tmp_path / "fb")
    assert len(set(files)) == len(names) + 1
    assert {f.read_text(encoding="utf-8").splitlines()[0] for f in files} == {f"Feedback for {n}" for n in
                                                                                names + ["zed"]}
    write_gradebook(results, tmp_path / "g.csv")
    rows = {r["student"]: r for r in csv.DictReader(open(tmp_path / "g.csv", encoding="utf-8"))}
    assert (rows["zed"]["score"], rows["zed"]["max_score"]) == ("", "")   # (not graded is no 0)
    assert rows["王伟"]["score"] == "1"


def test_a_resubmission_gives_one_gradebook_row_the_newest_copy(tmp_path, monkeypatch):
    """Two files of one student for one lesson gave two rows, and the LMS import kept whichever came last: now
    the newest copy (the highest -N or (N), then the latest modified) is graded and names the others."""
    from autogradlab.lessons import grading
    graded = []

    def fake_job(job):
        graded.append(Path(job[0]).name)
        return grading.Result(job[0], job[5], job[1])
    monkeypatch.setattr(grading, "_grade_job", fake_job)
    names = ["alice/02_chain_rule.ipynb", "alice/02_chain_rule (1).ipynb", "bob_02_chain_rule-2.ipynb",
             "bob_02_chain_rule-10.ipynb", "bob_02_chain_rule.ipynb", "carol_02_chain_rule.ipynb",
             "carol_01_derivatives.ipynb", "dave/notes.ipynb", "dave/scratch.ipynb"]
    for name in names:
        _write(tmp_path, "", _notebook("x = 1"), name=name)
    results, _ = grade_all([tmp_path], LESSONS, jobs=1)
    rows = {(r.student, r.lesson): r for r in results}
    assert len(results) == len(rows) + 1 == 6     # (dave's two unmatched notebooks stay two rows)
    assert sorted(graded) == sorted(["02_chain_rule (1).ipynb", "bob_02_chain_rule-10.ipynb",
                                     "carol_02_chain_rule.ipynb", "carol_01_derivatives.ipynb", "notes.ipynb",
                                     "scratch.ipynb"])
    assert rows["alice", "02_chain_rule.ipynb"].problems == [
        "also submitted, not graded (an earlier copy): 02_chain_rule.ipynb"]   # (no path of the grader's)
    bob = rows["bob", "02_chain_rule.ipynb"].problems[0]
    assert "bob_02_chain_rule.ipynb" in bob and "bob_02_chain_rule-2.ipynb" in bob
    assert rows["carol", "01_derivatives.ipynb"].problems == []
    # files named one by one (the shell's subs/*/02_chain_rule.ipynb), or a file named twice
    alice, bob = tmp_path / "alice" / "02_chain_rule.ipynb", tmp_path / "bob" / "02_chain_rule.ipynb"
    bob.parent.mkdir()
    bob.write_text(alice.read_text())
    results, _ = grade_all([alice, bob, alice], LESSONS, jobs=1)
    assert [(r.student, Path(r.path).name) for r in results] == [
        ("alice", "02_chain_rule.ipynb"), ("bob", "02_chain_rule.ipynb")]
    # files named one by one from one flat folder (a browser's downloads: other students' copies get (1), (2)):
    # the folder names nobody, so nothing is merged
    flat = tmp_path / "flat"
    flat.mkdir()
    names = ["02_chain_rule.ipynb", "02_chain_rule (1).ipynb", "02_chain_rule (2).ipynb", "alice.ipynb", "bob.ipynb"]
    for name in names:
        (flat / name).write_text(alice.read_text())
    results, _ = grade_all(sorted(flat.iterdir()), LESSONS, jobs=1)
    assert len(results) == 5 and all(r.problems == [] for r in results)
    assert "flat" not in {r.student for r in results}


def test_a_worker_that_dies_costs_only_its_own_submission():
    """A dying worker breaks the pool and fails every job it had not finished: those are graded again in a
    fresh pool, then each alone, so only the job that kills its process is 'not graded'."""
    from grading_stubs import job_that_kills_its_worker

    from autogradlab.lessons.grading import NOT_GRADED, _grade_pool, not_graded
    work = [(f"s{i}/02_chain_rule.ipynb" if i != 0 else "killer/02_chain_rule.ipynb", "02_chain_rule.ipynb",
             "", None, 0, f"s{i}") for i in range(6)]
    seen = []
    results = _grade_pool(work, 2, lambda done, total, r: seen.append((done, total)),
                          grade=job_that_kills_its_worker)
    assert [not_graded(r) for r in results] == [i == 0 for i in range(6)]
    assert results[0].problems[0].startswith(NOT_GRADED) and "twice" in results[0].problems[0]
    assert [r.student for r in results] == [f"s{i}" for i in range(6)]
    assert seen == [(i, 6) for i in range(1, 7)]


def test_an_unbroadcast_that_sums_the_wrong_axes_fails_for_every_seed():
    """Summing the last axes instead of the leading ones passed on 9 seeds in 100 (random shapes where it
    happens to give the right answer): fixed square cases are now part of every judgement."""
    def wrong(g, shape):
        g = np.asarray(g)
        while g.ndim > len(shape):
            g = g.sum(axis=-1)
        for i, n in enumerate(shape):
            if n == 1 and g.shape[i] != 1:
                g = g.sum(axis=i, keepdims=True)
        return g
    assert all(_judge("check_unbroadcast", "unbroadcast", wrong, seed)[0] == WRONG for seed in range(60))
