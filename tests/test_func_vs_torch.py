"""``autogradlab.func``, torch.func's transforms, side by side with torch 2.13: grad and grad_and_value
(argnums, has_aux, nesting, inputs that do not matter), vjp, jacrev/jacfwd/hessian, vmap (in_dims, out_dims,
tuple outputs, nesting) and functional_call, with per-sample gradients (vmap of grad over a model's
functional call) as a lab computes them; values to 1e-10 in float64, and the errors."""
import numpy as np
import pytest
from conftest import import_torch
from torch_compare import both_raise, close

import autogradlab as ag

torch = import_torch()
pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")   # (torch's own)
TOL = dict(rtol=1e-10, atol=1e-12)
RNG = np.random.default_rng(0)
X, Y, W = RNG.standard_normal(4), RNG.standard_normal(4), RNG.standard_normal((3, 4))


def _pair(arr):
    return ag.tensor(arr), torch.tensor(arr)


def _close_tree(ours, theirs):
    if isinstance(theirs, dict):
        assert isinstance(ours, dict) and list(ours) == list(theirs)
        for key in theirs:
            _close_tree(ours[key], theirs[key])
    elif isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _close_tree(a, b)
    elif isinstance(theirs, torch.Tensor):
        close(ours, theirs, **TOL)
    else:
        assert ours == theirs


def f_cubic(T):
    return lambda x: (x ** 3).sum()


CASES = {
    "grad": lambda T, F: F.grad(lambda x: (T.sin(x) * x).sum())(T.tensor(X)),
    "grad-argnums": lambda T, F: F.grad(lambda x, y: (x * y ** 2).sum(), argnums=1)(T.tensor(X), T.tensor(Y)),
    "grad-argnums-tuple": lambda T, F: F.grad(lambda x, y: (x * y).sum(), argnums=(0, 1))(T.tensor(X), T.tensor(Y)),
    "grad-aux": lambda T, F: F.grad(lambda x: ((x ** 2).sum(), x.mean()), has_aux=True)(T.tensor(X)),
    "grad_and_value": lambda T, F: F.grad_and_value(lambda x: (x ** 2).sum())(T.tensor(X)),
    "grad_and_value-aux": lambda T, F: F.grad_and_value(lambda x: ((x ** 2).sum(), x * 2), has_aux=True)(
        T.tensor(X)),
    "grad-unused-input": lambda T, F: F.grad(lambda x, y: (y ** 2).sum())(T.tensor(X), T.tensor(Y)),
    "grad-of-grad": lambda T, F: F.grad(F.grad(lambda x: x ** 3 * T.sin(x)))(T.tensor(0.7)),
    "grad-of-grad-sum": lambda T, F: F.grad(lambda x: F.grad(lambda z: (z ** 3).sum())(x).sum())(T.tensor(X)),
    "jacrev": lambda T, F: F.jacrev(lambda x: T.tensor(W) @ T.tanh(x))(T.tensor(X)),
    "jacrev-argnums": lambda T, F: F.jacrev(lambda x, y: x * y, argnums=(0, 1))(T.tensor(X), T.tensor(Y)),
    "jacfwd": lambda T, F: F.jacfwd(lambda x: T.exp(x).reshape(2, 2))(T.tensor(X)),
    "hessian": lambda T, F: F.hessian(lambda x: (T.sin(x) * x ** 2).sum())(T.tensor(X)),
    "hessian-of-matrix-input": lambda T, F: F.hessian(lambda m: (m ** 3).sum())(T.tensor(W[:2, :2])),
    "vmap": lambda T, F: F.vmap(lambda r: (r ** 2).sum())(T.tensor(W)),
    "vmap-in-dims": lambda T, F: F.vmap(lambda a, b: a * b, in_dims=(1, None))(T.tensor(W), T.tensor(W[0, :3])),
    "vmap-out-dims": lambda T, F: F.vmap(lambda r: r * 2, out_dims=1)(T.tensor(W)),
    "vmap-tuple-outputs": lambda T, F: F.vmap(lambda r: (r.sum(), r * 2), out_dims=(0, 1))(T.tensor(W)),
    "vmap-dot": lambda T, F: F.vmap(T.dot)(T.tensor(W), T.tensor(W[::-1].copy())),
    "vmap-of-vmap": lambda T, F: F.vmap(F.vmap(lambda v: v ** 2 + 1))(T.tensor(W)),
    "vmap-of-grad": lambda T, F: F.vmap(F.grad(lambda x: (x ** 3).sum()))(T.tensor(W)),
    "jacrev-of-grad": lambda T, F: F.jacrev(F.grad(lambda x: (T.sin(x) ** 2).sum()))(T.tensor(X)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_transforms_match_torch(name):
    _close_tree(CASES[name](ag, ag.func), CASES[name](torch, torch.func))


def test_vjp_matches_torch():
    results = []
    for T, F in ((ag, ag.func), (torch, torch.func)):
        out, fn = F.vjp(lambda x, y: T.tanh(x) * y, T.tensor(X), T.tensor(Y))
        results.append((out, fn(T.tensor(W[0]))))
        out, fn, aux = F.vjp(lambda x: (x ** 2, x.sum()), T.tensor(X), has_aux=True)
        results.append((out, fn(T.ones(4, dtype=T.float64)), aux))
    _close_tree(results[0], results[2])
    _close_tree(results[1], results[3])


def test_results_keep_a_graph_only_when_their_inputs_require_grad_as_torch():
    for T, F in ((ag, ag.func), (torch, torch.func)):
        plain = F.grad(lambda x: (x ** 3).sum())(T.tensor(X))
        tracked_x = T.tensor(X, requires_grad=True)
        tracked = F.grad(lambda x: (x ** 3).sum())(tracked_x)
        assert not plain.requires_grad and tracked.requires_grad
        tracked.sum().backward()                                     # d/dx sum(3x^2) = 6x
        np.testing.assert_allclose(tracked_x.grad.detach().numpy(), 6 * X, rtol=1e-12)


def test_per_sample_gradients_with_functional_call_match_torch():
    """The torch.func tutorial's per-sample gradients: vmap over the batch of grad of a functional call."""
    x, y = RNG.standard_normal((5, 3)), RNG.standard_normal((5, 2))
    results = []
    for T, F in ((ag, ag.func), (torch, torch.func)):
        T.manual_seed(0)
        model = T.nn.Linear(3, 2, dtype=T.float64)
        with T.no_grad():
            model.weight.copy_(T.tensor(W[:2, :3]))
            model.bias.copy_(T.tensor(W[2, :2]))
        params = {k: v.detach() for k, v in model.named_parameters()}

        def loss(p, xi, yi):
            return ((F.functional_call(model, p, (xi.unsqueeze(0),)) - yi) ** 2).sum()

        per_sample = F.vmap(F.grad(loss), in_dims=(None, 0, 0))(params, T.tensor(x), T.tensor(y))
        results.append([per_sample["weight"], per_sample["bias"]])
        assert model.weight.requires_grad and tuple(model.weight.shape) == (2, 3)   # (the module is unchanged)
    _close_tree(results[0], results[1])


def test_functional_call_leaves_the_module_as_it_was_and_refuses_unknown_names():
    model = ag.nn.Linear(2, 1)
    before = [p for p in model.parameters()]
    out = ag.func.functional_call(model, {"weight": ag.zeros(1, 2)}, (ag.ones(1, 2),))
    np.testing.assert_allclose(out.detach().numpy(), model.bias.detach().numpy().reshape(1, 1))
    assert [p for p in model.parameters()] == before
    for lib, m in ((ag, model), (torch, torch.nn.Linear(2, 1))):
        with pytest.raises(RuntimeError, match="Unexpected key"):
            lib.func.functional_call(m, {"nope": lib.zeros(1)}, (lib.ones(1, 2),), strict=True)
    # a decided difference (README): a typo is refused without strict=True too, where torch ignores it
    torch.func.functional_call(torch.nn.Linear(2, 1), {"wieght": torch.zeros(1, 2)}, (torch.ones(1, 2),))
    with pytest.raises(RuntimeError, match="Unexpected key.*'wieght'.*'bias', 'weight'"):
        ag.func.functional_call(model, {"wieght": ag.zeros(1, 2)}, (ag.ones(1, 2),))


@pytest.mark.parametrize("call", [
    lambda T, F: F.grad(lambda x: x ** 2)(T.tensor(X)),
    lambda T, F: F.grad(lambda x: x.sum())(T.tensor([1, 2])),
    lambda T, F: F.grad(lambda x: x.sum(), argnums=3)(T.tensor(X)),
    lambda T, F: F.vmap(lambda a, b: a + b)(T.ones(3), T.ones(4)),
    lambda T, F: F.vmap(lambda a: a, in_dims=(0, 1))(T.ones(3)),
], ids=["non-scalar", "integer-input", "argnums-range", "vmap-sizes", "vmap-in-dims-count"])
def test_refuses_what_torch_refuses(call):
    both_raise(lambda: call(ag, ag.func), lambda: call(torch, torch.func))


# -- from a review against torch 2.13 ------------------------------------------------------------------------

def test_the_gradient_is_with_respect_to_the_argument_alone_as_torch():
    for T, F in ((ag, ag.func), (torch, torch.func)):
        x = T.tensor([1.0, 2.0, 3.0], dtype=T.float64, requires_grad=True)
        np.testing.assert_allclose(F.grad(lambda y: (x * y).sum())(x).detach().numpy(), [1.0, 2.0, 3.0])
        both = F.grad(lambda a, b: (a * b).sum(), argnums=(0, 1))(x, x)
        np.testing.assert_allclose(both[0].detach().numpy(), [1.0, 2.0, 3.0])
        inner = (lambda z: (z * F.grad(lambda y: (z * y).sum())(z)).sum())
        np.testing.assert_allclose(F.grad(inner)(T.tensor([1.0, 2.0, 3.0], dtype=T.float64)).numpy(), [2, 4, 6])


def test_a_closure_over_parameters_keeps_the_graph_as_torch():
    grads = []
    for T, F in ((ag, ag.func), (torch, torch.func)):
        T.manual_seed(0)
        critic = T.nn.Linear(2, 1, dtype=T.float64)
        with T.no_grad():
            critic.weight.copy_(T.tensor([[0.5, -1.5]]))
            critic.bias.copy_(T.tensor([0.25]))
        g = F.grad(lambda x: (critic(x) ** 2).sum())(T.tensor(W[:, :2]))   # a gradient penalty's gradient
        (g ** 2).sum().backward()
        grads.append([critic.weight.grad, critic.bias.grad])
        w = T.tensor([2.0, 3.0], requires_grad=True)
        assert F.jacrev(lambda v: v * w)(T.tensor([1.0, 1.0])).requires_grad
    _close_tree(grads[0], grads[1])


PYTREE_CASES = {
    "hessian-argnums": lambda T, F: F.hessian(lambda x, y: (x * x * y).sum(), argnums=(0, 1))(
        T.tensor(X[:2]), T.tensor(Y[:2])),
    "jacrev-tuple-output": lambda T, F: F.jacrev(lambda x: (x ** 2, x.sum()))(T.tensor(X)),
    "jacrev-dict-input": lambda T, F: F.jacrev(lambda p: p["a"] * p["b"])({"a": T.tensor(X), "b": T.tensor(Y)}),
    "jacrev-empty-output": lambda T, F: F.jacrev(lambda x: x[:0] * 2)(T.tensor(X)),
    "vjp-dict-primal": lambda T, F: F.vjp(lambda p: (p["a"] * 2).sum(), {"a": T.tensor(X)})[1](T.tensor(1.0)),
    "vmap-list-argument": lambda T, F: F.vmap(lambda pair: pair[0] + pair[1])([T.tensor(W), T.tensor(W) * 2]),
    "grad-aux-detached": lambda T, F: F.grad(lambda x: ((x ** 2).sum(), x * 2), has_aux=True)(T.tensor(X)),
    "vmap-empty-batch": lambda T, F: F.vmap(lambda r: (r.sum(), r @ T.tensor(W).T, r > 0))(T.tensor(W[:0])),
    "vmap-empty-batch-in-dim-1": lambda T, F: F.vmap(lambda c: c * 2, in_dims=1, out_dims=1)(T.tensor(W[:, :0])),
    "vmap-of-grad-empty-batch": lambda T, F: F.vmap(F.grad(lambda x: (x ** 3).sum()))(T.tensor(W[:0])),
    "vmap-empty-batch-of-a-function-refusing-zeros": lambda T, F: F.vmap(T.linalg.inv)(T.zeros(0, 2, 2)),
    "vmap-dict-out-dims": lambda T, F: F.vmap(lambda r: {"a": r * 2, "b": r.sum()}, out_dims={"a": 1, "b": 0})(
        T.tensor(W)),
}


@pytest.mark.parametrize("name", sorted(PYTREE_CASES))
def test_pytrees_and_edges_match_torch(name):
    ours, theirs = PYTREE_CASES[name](ag, ag.func), PYTREE_CASES[name](torch, torch.func)
    _close_tree(ours, theirs)
    for a, b in zip(ag.func._flatten(ours)[0], ag.func._flatten(theirs)[0]):
        assert a.requires_grad == b.requires_grad


def test_model_ensembling_and_tied_weights_in_functional_call_as_torch():
    results = []
    for T, F in ((ag, ag.func), (torch, torch.func)):
        T.manual_seed(0)
        model = T.nn.Linear(2, 2, dtype=T.float64)
        with T.no_grad():
            model.weight.copy_(T.tensor(W[:2, :2]))
            model.bias.copy_(T.tensor(W[2, :2]))
        stacked = {k: T.stack([v.detach(), v.detach() * 2]) for k, v in model.named_parameters()}
        results.append(F.vmap(lambda p, x: F.functional_call(model, p, (x,)), in_dims=(0, None))(
            stacked, T.ones(1, 2, dtype=T.float64)))
        shared = T.nn.Linear(2, 2, bias=False, dtype=T.float64)
        tied = T.nn.Sequential(shared, T.nn.Tanh(), shared)
        results.append(F.functional_call(tied, {"0.weight": T.eye(2, dtype=T.float64) * 2},
                                         (T.ones(1, 2, dtype=T.float64),)))
    _close_tree(results[:2], results[2:])


def test_an_empty_batch_is_still_on_the_graph_as_torch():
    grads = []
    for T, F in ((ag, ag.func), (torch, torch.func)):
        x = T.zeros(0, 3, dtype=T.float64, requires_grad=True)
        F.vmap(lambda r: (r * r).sum())(x).sum().backward()
        grads.append(x.grad)
    _close_tree(*grads)


@pytest.mark.parametrize("call", [
    lambda T, F: F.grad(lambda x, y: (x * y).sum(), argnums=(0, 0))(T.ones(2), T.ones(2)),
    lambda T, F: F.grad(lambda x: x.sum(), argnums=())(T.ones(2)),
    lambda T, F: F.vmap(lambda x: x, in_dims=[0])(T.ones(2)),
    lambda T, F: F.vmap(lambda x: 1.0)(T.ones(2)),
    lambda T, F: F.vmap(lambda x: (x, x), out_dims=(0, 0, 0))(T.ones(2)),
    lambda T, F: F.vmap(lambda x: {"a": x}, out_dims={"b": 0})(T.ones(2)),
], ids=["argnums-repeated", "argnums-empty", "in-dims-list", "non-tensor-output", "out-dims-count",
        "out-dims-keys"])
def test_more_refusals_match_torch(call):
    both_raise(lambda: call(ag, ag.func), lambda: call(torch, torch.func))


def test_jvp_matches_torch_and_nests_and_refuses_what_torch_refuses():
    """func.jvp: the output and J t (forward mode's product; here by the double-vjp trick), for a tuple output,
    a dict output, has_aux, a part of the output that does not depend on the input, and grad of a jvp."""
    results = []
    for T in (ag, torch):
        x, y, w = (T.tensor(a) for a in (X, Y, W))
        t1, t2 = T.tensor(np.cos(X)), T.tensor(np.sin(Y))
        out = T.func.jvp(lambda a, b: (T.tanh(w @ (a * b)), (a ** 2).sum(), b * 0 + 1), (x, y), (t1, t2))
        as_dict = T.func.jvp(lambda a: {"s": a.exp().sum(), "v": a.sin()}, (x,), (t1,))
        with_aux = T.func.jvp(lambda a: (a.sin(), a.cos()), (x,), (t1,), has_aux=True)
        nested = T.func.grad(lambda a: T.func.jvp(lambda z: (z ** 3 * w).sum(), (a,), (t1,))[1])(x)
        linear = T.func.jvp(lambda a: 2 * a, (x,), (t1,))
        results.append((out, as_dict, with_aux, nested, linear))
        assert not out[1][0].requires_grad
    _close_tree(results[0], results[1])
    both_raise(lambda: ag.func.jvp(ag.sin, ag.tensor(X), (ag.tensor(X),)),
               lambda: torch.func.jvp(torch.sin, torch.tensor(X), (torch.tensor(X),)))
    both_raise(lambda: ag.func.jvp(ag.sin, (ag.tensor(X),), (ag.tensor(Y[:3]),)),
               lambda: torch.func.jvp(torch.sin, (torch.tensor(X),), (torch.tensor(Y[:3]),)))


# -- found by a differential fuzz of the functional APIs against torch -------------------------------------------

def test_jvp_of_xlogy_and_xlog1py_in_x_as_torch():
    """The tangent in x is t * log(y) (it was 0: the VJP zeroed where its incoming gradient was 0, and the jvp
    reads the VJP's derivative there)."""
    def run(T):
        x = T.tensor([0.0, 1.0, 2.0], dtype=T.float64)
        y = T.tensor([2.0, 0.5, 3.0], dtype=T.float64)
        ones = (T.ones(3, dtype=T.float64),)
        return (T.func.jvp(lambda a: T.xlogy(a, y), (x,), ones)[1],
                T.func.jvp(lambda a: T.special.xlog1py(a, y), (x,), ones)[1],
                T.autograd.functional.jvp(lambda a: T.xlogy(a, y), (x,), ones)[1])
    ours, theirs = run(ag), run(torch)
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-12)


def test_vmap_returns_namedtuples_and_nested_pytrees_as_torch():
    """``vmap(lambda row: row.max(0))``, ``vmap(grad_and_value(loss))`` over a dict of parameters, and out_dims
    shaped as the output (None: not mapped)."""
    def run(T):
        x = T.tensor([[1.0, 5.0, 2.0], [4.0, 0.0, 3.0]])
        best = T.func.vmap(lambda row: row.max(0))(x)
        params = {"w": T.tensor([1.0, 2.0]), "b": T.tensor(0.5)}

        def loss(p, xi):
            return ((p["w"] * xi).sum() + p["b"]) ** 2
        grads, values = T.func.vmap(T.func.grad_and_value(loss), in_dims=(None, 0))(
            params, T.tensor([[1.0, 1.0], [2.0, 0.0]]))
        doubled, parts = T.func.vmap(lambda a: (a * 2, {"s": a.sum(), "c": T.ones(2)}),
                                     out_dims=(0, {"s": 0, "c": None}))(x)
        return (type(best).__name__, best.values.tolist(), best.indices.tolist(), grads["w"].tolist(),
                grads["b"].tolist(), values.tolist(), doubled.tolist(), parts["s"].tolist(), parts["c"].tolist())
    assert run(ag) == run(torch)


@pytest.mark.parametrize("cotangent", [lambda T: {"b": T.ones(2), "a": T.zeros(2)}, lambda T: {"a": T.ones(2)}],
                         ids=["keys-in-another-order", "a-key-missing"])
def test_a_cotangent_of_another_structure_is_refused_as_torch(cotangent):
    """Paired by position, {'b': .., 'a': ..} would silently give a's cotangent to b."""
    def call(T):
        _, vjp_fn = T.func.vjp(lambda x: {"a": x * 2, "b": x * 3}, T.ones(2))
        return vjp_fn(cotangent(T))
    both_raise(lambda: call(ag), lambda: call(torch))


def test_tangents_of_another_structure_are_refused_as_torch():
    def call(T):
        return T.func.jvp(lambda a: a * 2, (T.ones(2),), ([T.ones(2)],))
    both_raise(lambda: call(ag), lambda: call(torch))


def test_vmap_randomness_as_torch():
    """"same": every sample draws the same numbers; "different": its own; "error" (the default) refuses a draw."""
    for T in (ag, torch):
        x = T.zeros(3, 2)
        same = T.func.vmap(lambda a: a + T.rand(2), randomness="same")(x)
        different = T.func.vmap(lambda a: a + T.rand(2), randomness="different")(x)
        assert bool((same[0] == same[1]).all()) and bool((same[0] == same[2]).all())
        assert not bool((different[0] == different[1]).all())
    both_raise(lambda: ag.func.vmap(lambda a: a + ag.rand(2))(ag.zeros(3, 2)),
               lambda: torch.func.vmap(lambda a: a + torch.rand(2))(torch.zeros(3, 2)))
    both_raise(lambda: ag.func.vmap(lambda a: a, randomness="sometimes"),
               lambda: torch.func.vmap(lambda a: a, randomness="sometimes")(torch.zeros(1)))
