"""Custom ``autograd.Function``s the way PyTorch 2's "Extending torch.autograd" writes them, side by side with
torch 2.13: ``forward`` without ``ctx`` plus ``setup_context``, and ``forward`` returning several outputs
(some marked non-differentiable, integers, plain numbers), first and second derivatives, checked against
finite differences in float64 too. Each scenario is written once against a module ``T`` (autogradlab or
torch) and run in both."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import import_torch
from torch_compare import close, close_all, run_both

import autogradlab as ag

torch = import_torch()

X = [0.5, -1.25, 2.0]




# --- forward without ctx, and setup_context ------------------------------------------------------------------

def _linear_function(T):
    """The linear layer of PyTorch's "Extending torch.autograd" page, in its setup_context form."""
    class LinearFunction(T.autograd.Function):
        @staticmethod
        def forward(input, weight, bias=None):
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output

        @staticmethod
        def setup_context(ctx, inputs, output):
            input, weight, bias = inputs
            ctx.save_for_backward(input, weight, bias)

        @staticmethod
        def backward(ctx, grad_output):
            input, weight, bias = ctx.saved_tensors
            grad_input = grad_weight = grad_bias = None
            if ctx.needs_input_grad[0]:
                grad_input = grad_output.mm(weight)
            if ctx.needs_input_grad[1]:
                grad_weight = grad_output.t().mm(input)
            if bias is not None and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(0)
            return grad_input, grad_weight, grad_bias
    return LinearFunction


@pytest.mark.parametrize("with_bias", [True, False], ids=["bias", "no bias"])
def test_setup_context_form_of_the_docs_linear_function(with_bias):
    rng = np.random.default_rng(0)
    data = [rng.standard_normal(s) for s in ((4, 3), (2, 3), (2,))]

    def run(T):
        x, w, b = (T.tensor(a, requires_grad=True) for a in data)
        out = _linear_function(T).apply(x, w, b) if with_bias else _linear_function(T).apply(x, w)
        (out * out).sum().backward()
        return [out, x.grad, w.grad, b.grad]
    close_all(*run_both(run))


def test_setup_context_gets_every_argument_with_defaults_filled_in_and_runs_without_grad():
    def run(T):
        seen = []

        class Scale(T.autograd.Function):
            @staticmethod
            def forward(x, factor=2.0, shift=0.0):
                seen.append(("forward", T.is_grad_enabled()))
                return x * factor + shift

            @staticmethod
            def setup_context(ctx, inputs, output):
                seen.append(("setup", T.is_grad_enabled(), len(inputs), inputs[1], output.requires_grad))
                ctx.factor = inputs[1]

            @staticmethod
            def backward(ctx, g):
                return g * ctx.factor, None, None
        x = T.tensor(X, requires_grad=True)
        Scale.apply(x).sum().backward()
        first = x.grad.clone()
        x.grad = None
        y = Scale.apply(x, factor=3.0)
        y.sum().backward()
        return seen, [first, x.grad, y], type(y.grad_fn).__name__
    (seen_ours, got_ours, name_ours), (seen_theirs, got_theirs, name_theirs) = run_both(run)
    assert seen_ours == seen_theirs
    assert name_ours == name_theirs == "ScaleBackward"
    close_all(got_ours, got_theirs)


def test_setup_context_with_an_unknown_or_keyword_only_argument_is_refused_as_torch():
    def run(T):
        class Same(T.autograd.Function):
            @staticmethod
            def forward(x, *, scale=2.0):   # (keyword-only: PyTorch passes forward's arguments by position)
                return x * scale

            @staticmethod
            def setup_context(ctx, inputs, output):
                pass

            @staticmethod
            def backward(ctx, g):
                return g
        x = T.tensor(X, requires_grad=True)
        with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
            Same.apply(x, bogus=1)
        with pytest.raises(TypeError, match="unexpected keyword argument 'scale'"):
            Same.apply(x, scale=5.0)
        assert x.grad is None
        return True
    assert run_both(run) == (True, True)


# --- several outputs -----------------------------------------------------------------------------------------

def _cube(T):
    """PyTorch's docs' MyCube: returns x**3 and its derivative 3x**2, the latter marked non-differentiable."""
    class MyCube(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            dx = 3 * x ** 2
            result = x ** 3
            ctx.mark_non_differentiable(dx)
            ctx.save_for_backward(x, dx)
            return result, dx

        @staticmethod
        def backward(ctx, grad_output, grad_dx):
            x, dx = ctx.saved_tensors
            return grad_output * dx + grad_dx * 6 * x   # (grad_dx is zeros: dx is non-differentiable)
    return MyCube


def test_the_docs_cube_returns_its_derivative_marked_non_differentiable():
    def run(T):
        x = T.tensor(X, dtype=T.float64, requires_grad=True)
        y, dx = _cube(T).apply(x)
        (g,) = T.autograd.grad(y.sum(), x, create_graph=True)   # (backward in tensor ops: differentiable)
        (gg,) = T.autograd.grad(g.sum(), x)
        return [y, dx, g, gg], dx.requires_grad, dx.grad_fn is None, type(y.grad_fn).__name__
    (ours, *facts_ours), (theirs, *facts_theirs) = run_both(run)
    close_all(ours, theirs)
    assert facts_ours[:2] == facts_theirs[:2] == [False, True]
    assert facts_ours[2] == "MyCubeBackward[0]" and facts_theirs[2] == "MyCubeBackward"   # (the one difference)


def _sin_cos(T, record=None):
    class SinCos(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin(), x.cos()

        @staticmethod
        def backward(ctx, g_sin, g_cos):
            if record is not None:
                record.append((g_sin is None, g_cos is None))
            (x,) = ctx.saved_tensors
            return g_sin * x.cos() - g_cos * x.sin()
    return SinCos


@pytest.mark.parametrize("use", ["both", "first", "second", "twice"])
def test_two_outputs_first_and_second_derivatives(use):
    def run(T):
        record = []
        x = T.tensor(X, dtype=T.float64, requires_grad=True)
        s, c = _sin_cos(T, record).apply(x)
        loss = {"both": lambda: (s * c).sum() + (c * c).sum(), "first": lambda: (s * s).sum(),
                "second": lambda: c.sum(), "twice": lambda: (s * s.exp()).sum() + s.sum()}[use]()
        (g,) = T.autograd.grad(loss, x, create_graph=True)
        (gg,) = T.autograd.grad(g.sum(), x)
        return [s, c, g, gg], record
    (ours, rec_ours), (theirs, rec_theirs) = run_both(run)
    close_all(ours, theirs)
    assert rec_ours == rec_theirs   # (materialized: zeros where no gradient came, never None)


def test_several_outputs_pass_gradcheck_and_gradgradcheck_in_float64():
    x = ag.tensor(X, dtype=ag.float64, requires_grad=True)
    fn = _sin_cos(ag).apply
    assert ag.autograd.gradcheck(fn, (x,))
    assert ag.autograd.gradgradcheck(fn, (x,))


def _unmaterialized_pair(T, seen):
    """(2x, 3x), with set_materialize_grads(False): its backward notes which gradients were None."""
    class Pair(T.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, a, b):
            seen.append((a is None, b is None))
            return (0 if a is None else a * 2) + (0 if b is None else b * 3)
    return Pair


def test_set_materialize_grads_false_gives_none_for_an_output_no_gradient_reached():
    def run(T):
        seen = []
        x = T.tensor(X, requires_grad=True)
        a, b = _unmaterialized_pair(T, seen).apply(x)
        (b * b).sum().backward(retain_graph=True)
        first = x.grad.clone()
        a.sum().backward()          # (the same graph again: now only the first output's gradient arrives)
        return seen, [first, x.grad]
    (seen_ours, got_ours), (seen_theirs, got_theirs) = run_both(run)
    assert seen_ours == seen_theirs == [(True, False), (False, True)]
    close_all(got_ours, got_theirs)


def test_integer_and_non_tensor_outputs_come_back_as_torch_gives_them():
    def run(T):
        seen = []

        class Stats(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x.max(), x.argmax(), "note", x.double() * 2

            @staticmethod
            def backward(ctx, g_max, g_arg, g_note, g_double):
                seen.append((tuple(g_arg.shape), str(g_arg.dtype).removeprefix("torch."), g_note,
                             str(g_double.dtype).removeprefix("torch.")))
                (x,) = ctx.saved_tensors
                return (x == x.max()) * g_max + 2 * g_double
        x = T.tensor(X, requires_grad=True)
        out = Stats.apply(x)
        (out[0] + out[3].sum()).backward()
        return (type(out).__name__, out[2], out[1].requires_grad, str(out[3].dtype).removeprefix("torch."),
                seen), [out[0], out[1], out[3], x.grad]
    (facts_ours, got_ours), (facts_theirs, got_theirs) = run_both(run)
    assert facts_ours == facts_theirs
    assert facts_ours[0] == "tuple" and facts_ours[4] == [((), "int64", None, "float64")]
    for a, b in zip(got_ours, got_theirs):
        close(a, b)


def test_a_list_of_outputs_is_refused_where_torch_would_drop_its_gradients():
    def run(T):
        class Listed(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return [x * 2, x * 3]

            @staticmethod
            def backward(ctx, a, b):
                return a * 2 + b * 3
        return Listed.apply(T.tensor(X, requires_grad=True))
    assert not any(t.requires_grad for t in run(torch))   # (torch: the list comes back untracked)
    with pytest.raises(TypeError, match="as a tuple"):
        run(ag)


def test_an_input_returned_among_the_outputs_becomes_a_new_tensor_of_the_node():
    def run(T):
        class PassAndTriple(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x, x * 3

            @staticmethod
            def backward(ctx, a, b):
                return a + b * 3
        x = T.tensor(X, requires_grad=True)
        a, b = PassAndTriple.apply(x)
        (a * b).sum().backward()
        return (a is x, a.grad_fn is not None), [a, b, x.grad]
    (facts_ours, got_ours), (facts_theirs, got_theirs) = run_both(run)
    assert facts_ours == facts_theirs == (False, True)
    for a, b in zip(got_ours, got_theirs):
        close(a, b)


def test_without_grad_several_outputs_record_nothing():
    def run(T):
        with T.no_grad():
            s, c = _sin_cos(T).apply(T.tensor(X, requires_grad=True))
        return s.requires_grad, c.requires_grad, s.grad_fn, c.grad_fn
    assert run_both(run) == ((False, False, None, None),) * 2


def test_a_traced_function_with_two_outputs_shows_its_nodes_in_the_player_and_the_picture():
    from autogradlab.viz import draw
    from autogradlab.viz.playerdata import player_data
    x = ag.tensor(X, requires_grad=True, name="x")
    with ag.trace() as tape:
        s, c = _sin_cos(ag).apply(x)
        (s * c).sum().backward()
    data = player_data(tape)
    text = str(data)
    assert "SinCosBackward[0]" in text and "SinCosBackward[1]" in text and "SinCosBackward" in text
    assert "SinCosBackward[0]" in draw(s * c).source
    close(x.grad, torch.cos(2 * torch.tensor(X)))   # (d/dx sin x cos x = cos 2x)


# --- mark_dirty, and what a pass leaves behind -----------------------------------------------------------------

def test_mark_dirty_continues_the_inputs_history_as_torch():
    def run(T):
        class Double(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return 2 * g

        class DoubleAndTriple(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x, x * 3

            @staticmethod
            def backward(ctx, a, b):
                return 2 * a + 6 * b

        class Unreturned(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x * 1

            @staticmethod
            def backward(ctx, g):
                return g
        facts, grads = [], []
        x0 = T.tensor(X, requires_grad=True)
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            Double.apply(x0)
        with pytest.raises(RuntimeError, match="marked as dirty"):
            Unreturned.apply(x0.clone())
        x = x0.clone()
        y = Double.apply(x)
        facts.append((y is x, x._version, type(x.grad_fn).__name__))
        (x * 3).sum().backward()
        grads.append(x0.grad.clone())
        x0.grad = None
        x = x0.clone()
        a, b = DoubleAndTriple.apply(x)
        facts.append((a is x, x._version))
        (x.sum() * 7 + b.sum()).backward()
        grads.append(x0.grad.clone())
        x0.grad = None
        base = x0.clone()
        Double.apply(base[:2])                # (a view: its base's history goes on, as after any in-place op)
        (base * base).sum().backward()
        grads.append(x0.grad.clone())
        return facts, grads
    (facts, grads), (their_facts, their_grads) = run_both(run)
    assert facts == their_facts == [(True, 2, "DoubleBackward"), (True, 2)]
    close_all(grads, their_grads)


def test_a_failed_pass_leaves_nothing_behind_for_the_next():
    """The first pass stops (a hook raises) after output b's node has run but before the Function's backward:
    the next pass, through a alone, must still see no gradient for b."""
    def run(T):
        seen = []
        x = T.tensor(X, requires_grad=True)
        a, b = _unmaterialized_pair(T, seen).apply(x)
        stop = a.register_hook(lambda g: (_ for _ in ()).throw(ValueError("stop")))
        with pytest.raises(ValueError, match="stop"):
            (a.sum() + (b * b).sum()).backward(retain_graph=True)
        stop.remove()
        x.grad = None
        a.sum().backward()
        return seen, [x.grad]
    (seen, got), (their_seen, their_got) = run_both(run)
    assert seen == their_seen == [(False, True)]
    close_all(got, their_got)
