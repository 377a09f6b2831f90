"""Backward details checked against PyTorch, each the same program run in both frameworks (``M`` is the
module, ``torch`` or ``autogradlab``):

* which of several leaves ready at the same time accumulates first (they tie; the heap decides);
* a node hook's answer is checked (a tuple, one entry per gradient, same size and dtype, no value where
  there was None), a pre-hook answering ``(None,)`` stops the node, a post-accumulate hook returns None;
* the node hooks of a leaf's AccumulateGrad run, around the accumulation;
* a leaf switched to ``requires_grad=False`` after the forward accumulates nothing;
* ``grad()`` hands back a non-leaf input's gradient from before its tensor hooks when its node runs too;
* a seed of another float dtype stays differentiable under ``create_graph``.
"""
from __future__ import annotations

import numpy as np
import pytest
from conftest import import_torch

import autogradlab as ag

torch = import_torch()
BOTH = pytest.mark.parametrize("M", [torch, ag], ids=["torch", "autogradlab"])


def _leaves(M, n):
    xs = [M.tensor([float(i + 1)], requires_grad=True) for i in range(n)]
    order = []
    for i, x in enumerate(xs):
        x.register_post_accumulate_grad_hook(lambda t, i=i: order.append(i))
    return xs, order


def _stack(M, xs):
    M.stack(xs).sum().backward()


def _sum_chain(M, xs):
    s = xs[0]
    for x in xs[1:]:
        s = s + x
    s.sum().backward()


def _product(M, xs):
    p = xs[0]
    for x in xs[1:]:
        p = p * x
    p.sum().backward()


def _roots(M, xs):
    M.autograd.backward([x * 2 for x in xs], [M.ones(1)] * len(xs))


def _leaf_roots_repeated(M, xs):   # a root named twice is released at its last place
    M.autograd.backward([xs[1], xs[0], xs[1]] + xs[2:], [M.ones(1)] * (len(xs) + 1))


def _cat(M, xs):
    M.cat(xs).sum().backward()


def _order(M, build, n):
    xs, order = _leaves(M, n)
    build(M, xs)
    return order


@pytest.mark.parametrize("build", [_stack, _sum_chain, _product, _roots, _leaf_roots_repeated, _cat])
@pytest.mark.parametrize("n", [2, 3, 4, 5, 7, 9])
def test_leaves_ready_together_accumulate_in_pytorchs_order(build, n):
    mine = _order(ag, build, n)
    assert mine == _order(torch, build, n)
    assert sorted(mine) == list(range(n))


def test_the_plan_predicts_the_order_the_leaves_run_in():
    xs = [ag.tensor([float(i + 1)], requires_grad=True, name=f"x{i}") for i in range(5)]
    with ag.trace() as tape:
        ag.stack(xs).sum().backward()
    planned = [n.node_id for n in tape.of_kind("BackwardStarted")[0].plan.nodes if n.status == "run"]
    ran = [e.node_id for e in tape.of_kind("NodeStarted")]
    assert planned == ran
    assert [e.tensor.name for e in tape.of_kind("Accumulated") if e.where == "leaf"] == \
        [f"x{i}" for i in _order(torch, _stack, 5)]


# -- node hooks: what they may answer ------------------------------------------------------

def _post(answer):
    def run(M):
        x = M.tensor([1.0, 2.0], requires_grad=True)
        w = M.tensor([3.0, 4.0], requires_grad=True)
        y = x * w
        y.grad_fn.register_hook(lambda gi, go: answer(M, gi))
        y.sum().backward()
        return x.grad, w.grad
    return run


def _pre(answer, op="exp"):
    def run(M):
        x = M.tensor([1.0, 2.0], requires_grad=True)
        y = getattr(x, op)()
        y.grad_fn.register_prehook(lambda go: answer(M, go))
        y.sum().backward()
        return (x.grad,)
    return run


def _post_with_a_constant(M):
    x = M.tensor([1.0, 2.0], requires_grad=True)
    y = x * M.tensor([1.0, 2.0])                  # the constant's gradient is None
    y.grad_fn.register_hook(lambda gi, go: (gi[0], M.ones(2)))
    y.sum().backward()


BAD_ANSWERS = {
    "post: a bare Tensor": (_post(lambda M, gi: gi[0] * 2), TypeError),
    "post: a list": (_post(lambda M, gi: [gi[0], gi[1]]), TypeError),
    "post: one too many": (_post(lambda M, gi: (gi[0], gi[1], gi[1])), RuntimeError),
    "post: a number in the tuple": (_post(lambda M, gi: (gi[0], 3.0)), TypeError),
    "post: another size": (_post(lambda M, gi: (gi[0], M.ones(3))), RuntimeError),
    "post: another dtype": (_post(lambda M, gi: (gi[0], gi[1].to(M.float64))), RuntimeError),
    "post: a value where None was": (_post_with_a_constant, RuntimeError),
    "pre: a bare Tensor": (_pre(lambda M, go: go[0] * 2), TypeError),
    "pre: a list": (_pre(lambda M, go: [go[0] * 2]), TypeError),
    "pre: two values": (_pre(lambda M, go: (go[0], go[0])), RuntimeError),
    "pre: another size": (_pre(lambda M, go: (M.ones(3),)), RuntimeError),
    "pre: another dtype": (_pre(lambda M, go: (go[0].to(M.float64),)), RuntimeError),
}


@pytest.mark.parametrize("case", list(BAD_ANSWERS))
def test_a_node_hooks_wrong_answer_raises_as_in_pytorch(case):
    run, kind = BAD_ANSWERS[case]
    with pytest.raises(kind):
        run(torch)
    with pytest.raises(kind) as err:
        run(ag)
    assert "hook" in str(err.value) and "<lambda>" in str(err.value)


GOOD_ANSWERS = {
    "post: doubled": _post(lambda M, gi: (gi[0] * 2, gi[1])),
    "post: None keeps them": _post(lambda M, gi: None),
    "post: None for one input": _post(lambda M, gi: (None, gi[1])),
    "pre: doubled": _pre(lambda M, go: (go[0] * 2,)),
    "pre: (None,) stops the node": _pre(lambda M, go: (None,)),
    "pre: (None,) on a node that saved its input": _pre(lambda M, go: (None,), op="sin"),
    "post: a namedtuple": _post(lambda M, gi: __import__("collections").namedtuple("Grads", "a b")(gi[0] * 3, gi[1])),
}


@pytest.mark.parametrize("case", list(GOOD_ANSWERS))
def test_a_node_hooks_answer_is_used_as_in_pytorch(case):
    run = GOOD_ANSWERS[case]
    theirs, mine = run(torch), run(ag)
    for t, m in zip(theirs, mine):
        assert (t is None) == (m is None)
        if t is not None:
            np.testing.assert_allclose(m.numpy(), t.numpy())


@BOTH
def test_a_post_accumulate_hook_that_returns_a_value_raises(M):
    x = M.tensor([1.0, 2.0], requires_grad=True)
    x.register_post_accumulate_grad_hook(lambda t: t.grad * 2)
    with pytest.raises(RuntimeError):
        (x * 2).sum().backward()
    y = M.tensor([1.0, 2.0], requires_grad=True)
    y.register_post_accumulate_grad_hook(lambda t: 5)
    with pytest.raises(TypeError):
        (y * 2).sum().backward()


def _accumulator_hooks(M, pre_answer):
    x = M.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    acc = y.grad_fn.next_functions[0][0]
    log = []
    x.register_hook(lambda g: log.append("tensor hook"))
    x.register_post_accumulate_grad_hook(lambda t: log.append("post-accumulate"))
    acc.register_prehook(lambda go: (log.append("pre"), pre_answer(go))[1])
    acc.register_hook(lambda gi, go: log.append(("post", len(gi), go[0] is None)))
    y.sum().backward()
    return log, None if x.grad is None else x.grad.tolist()


@pytest.mark.parametrize("answer", ["keep", "times ten", "None"])
def test_the_node_hooks_of_a_leafs_accumulator_run_around_it(answer):
    pre = {"keep": lambda go: None, "times ten": lambda go: (go[0] * 10,), "None": lambda go: (None,)}[answer]
    mine = _accumulator_hooks(ag, pre)
    assert mine == _accumulator_hooks(torch, pre)
    assert mine[0][:2] == ["tensor hook", "pre"]


@BOTH
def test_a_leaf_switched_off_after_the_forward_accumulates_nothing(M):
    x = M.tensor([1.0, 2.0], requires_grad=True)
    w = M.tensor([3.0, 4.0], requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append("hook"))
    x.register_post_accumulate_grad_hook(lambda t: seen.append("post-accumulate"))
    y = (x * w).sum()
    x.requires_grad_(False)
    y.backward()
    assert x.grad is None and w.grad.tolist() == [1.0, 2.0]
    assert seen == ["hook", "post-accumulate"]   # its hooks still run (the accumulator runs, adding nothing)


# -- grad(): what it captures, and seeds ------------------------------------------------------

def _capture(M, both):
    x = M.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    h.register_hook(lambda g: g * 2)
    loss = (h * h).sum()
    wanted = [h, x] if both else [h]
    return [g.tolist() for g in M.autograd.grad(loss, wanted)]


@pytest.mark.parametrize("both", [True, False], ids=["its node runs too", "only that input"])
def test_grad_captures_a_non_leaf_before_its_hooks_only_when_its_node_runs_too(both):
    mine = _capture(ag, both)
    assert mine == _capture(torch, both)
    assert mine[0] == ([6.0, 12.0] if both else [12.0, 24.0])


@BOTH
def test_a_seed_of_another_dtype_stays_differentiable_under_create_graph(M):
    x = M.tensor([1.0, 2.0], requires_grad=True)
    v = M.tensor([3.0, 4.0], dtype=M.float64, requires_grad=True)
    (g,) = M.autograd.grad(x * x, x, v, create_graph=True)
    assert g.dtype == x.dtype and g.requires_grad
    g.sum().backward()
    assert v.grad is not None and v.grad.dtype == M.float64 and v.grad.tolist() == [2.0, 4.0]
    w = M.tensor([3.0, 4.0], dtype=M.float64, requires_grad=True)
    (x * x).backward(w, create_graph=True)
    x.grad.sum().backward()
    assert w.grad.tolist() == [2.0, 4.0]


def test_a_hook_that_raises_stops_the_pass_where_it_is_as_torch():
    """User code failing mid-pass is not an argument error: the leaves reached before keep what they got."""
    grads = []
    for lib in (ag, import_torch()):
        a = lib.ones(2, requires_grad=True)
        c = lib.ones(2, requires_grad=True)
        h = c * c
        h.register_hook(lambda g: 1 / 0)
        y = (a * 3).sum() + (h * a).sum()
        with pytest.raises(ZeroDivisionError):
            y.backward()
        grads.append((None if a.grad is None else a.grad.tolist(), c.grad))
    assert grads[0] == grads[1]
