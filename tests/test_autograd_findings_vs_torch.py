"""What a round of differential fuzzing of the autograd API against torch 2.13 found wrong, each fixed and
checked side by side: a tensor kept through ``saved_tensors_hooks`` keeps its place in the graph (higher-order
gradients flow), a custom Function's integer output is not differentiable, ``numpy()`` reads a tensor that
requires grad under ``no_grad``, and ``autograd.functional``'s ``strict=True`` with ``create_graph=True`` refuses a derivative that is constant."""
import pytest
from conftest import import_torch
from torch_compare import both_raise, exp_function, same_results

import autogradlab as ag

torch = import_torch()

PACKS = {"detach": lambda t: t.detach(), "identity": lambda t: t, "clone": lambda t: t.detach().clone()}


@pytest.mark.parametrize("pack", list(PACKS))
def test_saved_tensors_hooks_keep_the_saved_tensors_history_as_torch(pack):
    """A pack hook that detaches (to copy, offload or compress the values) must not cut the second derivative
    off: the unpacked tensor takes the saved one's grad_fn, or the leaf's gradient accumulator, or the node
    itself for its own output (``exp``), in built-in ops and custom Functions alike."""
    def run(T):
        class Cube(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 3

            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return 3 * x * x * g

        hooks = lambda: T.autograd.graph.saved_tensors_hooks(PACKS[pack], lambda t: t)
        x = T.tensor([1.0, 2.0, 3.0], dtype=T.float64, requires_grad=True)
        with hooks():
            y = (x ** 3).sum() + x.exp().sum() + ((x * 2) ** 3).sum() + Cube.apply(x).sum()
        y = y + (x ** 2).sum()   # (a term saved without hooks)
        g, = T.autograd.grad(y, x, create_graph=True)
        h, = T.autograd.grad(g.sum(), x)
        x2 = T.tensor([1.0, 2.0], dtype=T.float64, requires_grad=True)
        with hooks():
            z = (x2 ** 3).sum()
        z.backward(create_graph=True)   # (the gradient's graph reaches the leaf's .grad through the hook)
        first = x2.grad
        x2.grad = None
        first.sum().backward()
        return g, h, first, x2.grad
    same_results(run, rtol=1e-12)


def test_a_custom_functions_integer_output_is_not_differentiable_as_torch():
    def run(T):
        class Round(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.round().long()

            @staticmethod
            def backward(ctx, g):
                return g

        y = Round.apply(T.tensor([1.2, 2.7], requires_grad=True))
        return y.requires_grad, y.grad_fn is None, y.is_leaf, y
    ours, theirs = run(ag), run(torch)
    assert ours[:3] == theirs[:3] == (False, True, True)
    assert ours[3].tolist() == theirs[3].tolist()
    both_raise(lambda: (run(ag)[3] * 2.0).sum().backward(), lambda: (run(torch)[3] * 2.0).sum().backward())


def test_numpy_reads_a_tensor_that_requires_grad_under_no_grad_as_torch():
    """The NumPy-extension pattern: a custom Function's forward and (once-differentiable) backward run
    without grad mode, so they may call ``numpy()``; with grad mode on it is refused, as in torch."""
    def run(T):
        class Square(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return T.from_numpy(x.numpy() ** 2)

            @staticmethod
            @T.autograd.function.once_differentiable
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return T.from_numpy(2 * x.numpy() * g.numpy())

        x = T.tensor([1.0, 2.0, 3.0], dtype=T.float64, requires_grad=True)
        Square.apply(x).sum().backward()
        with T.no_grad():
            as_array = T.from_numpy(x.numpy() + 1.0)
        return x.grad, as_array
    same_results(run, rtol=0)
    x = ag.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="detach"):
        x.numpy()


def test_a_freed_custom_function_is_refused_before_any_grad_changes():
    """A deliberate difference: torch refuses a second pass only when the freed ``saved_tensors`` are read, by
    then having added to the ``.grad`` of leaves reached first (w below); autogradlab refuses any freed node
    that saved tensors before the pass starts, so a failed call changes nothing."""
    grads = {}
    for T in (ag, torch):
        x = T.tensor([0.0, 1.0], requires_grad=True)
        w = T.tensor([1.0, 1.0], requires_grad=True)
        y = exp_function(T).apply(x).sum() + (w + 1).sum()
        y.backward()
        with pytest.raises(RuntimeError, match="second time"):
            y.backward()
        grads[T] = w.grad.tolist()
    assert grads[ag] == [1.0, 1.0] and grads[torch] == [2.0, 2.0]


STRICT = {
    "jacobian of a linear function": lambda T: T.autograd.functional.jacobian(
        lambda x: x * 3, T.tensor([1.0, 2.0]), create_graph=True, strict=True),
    "vjp of a linear function": lambda T: T.autograd.functional.vjp(
        lambda x: x * 3, T.tensor([1.0, 2.0]), T.ones(2), create_graph=True, strict=True),
    "jvp of a linear function": lambda T: T.autograd.functional.jvp(
        lambda x: x * 3, T.tensor([1.0, 2.0]), T.ones(2), create_graph=True, strict=True),
    "hvp of a quadratic": lambda T: T.autograd.functional.hvp(
        lambda x: (x * x).sum(), T.tensor([1.0, 2.0]), T.ones(2), create_graph=True, strict=True),
    "hessian of a quadratic": lambda T: T.autograd.functional.hessian(
        lambda x: (x * x).sum(), T.tensor([1.0, 2.0]), create_graph=True, strict=True),
}
FINE = {
    "jacobian of a square": lambda T: T.autograd.functional.jacobian(
        lambda x: x * x, T.tensor([1.0, 2.0]), create_graph=True, strict=True),
    "vjp of a linear function without a graph": lambda T: T.autograd.functional.vjp(
        lambda x: x * 3, T.tensor([1.0, 2.0]), T.ones(2), strict=True)[1],
    "jvp of a square": lambda T: T.autograd.functional.jvp(
        lambda x: x * x, T.tensor([1.0, 2.0]), T.ones(2), create_graph=True, strict=True)[1],
    "hvp of a cube": lambda T: T.autograd.functional.hvp(
        lambda x: (x ** 3).sum(), T.tensor([1.0, 2.0]), T.ones(2), create_graph=True, strict=True)[1],
    "hessian of a quadratic without a graph": lambda T: T.autograd.functional.hessian(
        lambda x: (x * x).sum(), T.tensor([1.0, 2.0]), strict=True),
}


@pytest.mark.parametrize("call", list(STRICT))
def test_strict_with_create_graph_refuses_a_constant_derivative_as_torch(call):
    both_raise(lambda: STRICT[call](ag), lambda: STRICT[call](torch))


@pytest.mark.parametrize("call", list(FINE))
def test_strict_accepts_what_torch_accepts(call):
    same_results(FINE[call], rtol=1e-6)
