"""Hidden tests: graded at grade time only, never copied into the student notebooks.

``python -m autogradlab.lessons student`` leaves this file out, and the grader loads it from
the instructor folder (``--instructor DIR``) in its own process. Each test is a judge: it
asks the student's kernel to call the student's object on inputs drawn here (``rng`` is
seeded from the grading seed), and decides the verdict here, where no student code runs.

    @hidden("2.1h", "mul_vjp on 4-d arrays", notebook="02_chain_rule.ipynb", target="mul_vjp")
    def mul_vjp_4d(probe, target, rng):
        result, args_after = probe.call(target, a, b, g)   # the student's mul_vjp(a, b, g)
        ...                                                # raise _Wrong("what is wrong") to fail
        return "what was tested"                            # the "correct - ..." detail

Hidden check ids count in the grade like the visible ones; keep them short and distinct.
"""
import numpy

from autogradlab.lessons.checks import _in_case, compare
from autogradlab.lessons.judges import (_array, _engine_grads, _pair, check_engine_steps, check_topo_order, hidden,
                                        random_graph_spec)


@hidden("2.1h", "mul_vjp on 4-d arrays", notebook="02_chain_rule.ipynb", target="mul_vjp")
def mul_vjp_4d(probe, target, rng):
    shape = (2, 1, 3, 2)
    a, b, g = (rng.normal(size=shape) for _ in range(3))
    got, _ = probe.call(target, a, b, g)
    ga, gb = (_array(v, w) for v, w in zip(_pair(got, target), ("grad_a", "grad_b")))
    ea, eb = _engine_grads(lambda s, t: s * t, [a, b], g)
    _in_case(f"shape {shape}", compare, "grad_a", ga, ea)
    _in_case(f"shape {shape}", compare, "grad_b", gb, eb)
    return "right on 4-d arrays too"


@hidden("3.1h", "topo_sort on larger random graphs", notebook="03_topological_order.ipynb", target="topo_sort")
def topo_sort_larger(probe, target, rng):
    for g in range(2):
        spec = random_graph_spec(rng, n_leaves=4, n_ops=int(rng.integers(12, 17)))
        check_topo_order(probe, target, spec, f"larger random graph {g + 1} ({len(spec['ops'])} ops)")
    return "every node after all its consumers on two larger random graphs"


@hidden("3.2h", "mini_backward with a leaf used three times", notebook="03_topological_order.ipynb",
        target="mini_backward")
def mini_backward_triple_fan_in(probe, target, rng):
    spec = {"leaves": {"x0": rng.normal(size=2).round(3).tolist()},
            "ops": [["h1", "sin", ["x0"]], ["h2", "mul", ["h1", "x0"]], ["h3", "add", ["h2", "x0"]],
                    ["out", "sum", ["h3"]]]}
    check_engine_steps(probe, target, spec, "out = sum(sin(x) * x + x)", rng)
    return "sums all three contributions of a leaf used three times, step by step like the engine"


@hidden("4.1h", "grad_by_microbatches with one row per chunk", notebook="04_fan_out.ipynb",
        target="grad_by_microbatches")
def microbatches_of_one(probe, target, rng):
    import autogradlab as ag
    n = int(rng.integers(5, 9))
    X, y, w0 = rng.normal(size=(n, 3)), rng.normal(size=n), rng.normal(size=3)
    (expected,) = _engine_grads(lambda w: (((ag.tensor(X) @ w) - ag.tensor(y)) ** 2).mean(), [w0])
    w = ag.tensor(w0, dtype="float64", requires_grad=True)
    got, _ = probe.call(target, w, ag.tensor(X, dtype="float64"), ag.tensor(y, dtype="float64"), n)
    _in_case(f"k = N = {n}", compare, "the gradient", _array(got, "the gradient"), expected, atol=1e-8, rtol=1e-6)
    return "right with one row per micro-batch"


@hidden("7.1h", "unbroadcast to all-ones shapes", notebook="07_tensors.ipynb", target="unbroadcast")
def unbroadcast_all_ones(probe, target, rng):
    for big, small in [((3, 4), (1, 1)), ((2, 3, 4), (1, 1, 1)), ((2, 3, 4), (1,))]:
        g = rng.normal(size=big)
        got, _ = probe.call(target, g, small)
        expected = g.sum(axis=tuple(range(len(big)))).reshape(small)
        _in_case(f"g of shape {big} -> shape {small}", compare, "the result", _array(got, "the result"),
                 expected, atol=1e-10, rtol=1e-10)
    return "sums everything when the target shape is all ones"


@hidden("8.2h", "newton_step solves a quadratic in one step", notebook="08_higher_order.ipynb",
        target="newton_step")
def newton_quadratic(probe, target, rng):
    import autogradlab as ag
    from autogradlab.lessons.judges import Fn
    a, m = float(rng.uniform(0.5, 3)), float(rng.uniform(-3, 3))
    got, _ = probe.call(target, Fn("lambda x: a * (x - m) ** 2", a=a, m=m),
                        ag.tensor(float(rng.uniform(-5, 5)), dtype="float64", requires_grad=True))
    compare("the new x (the minimum of a quadratic)", _array(got, "the new x"), numpy.array(m), atol=1e-9, rtol=1e-9)
    return "lands on the minimum of a quadratic in one step"
