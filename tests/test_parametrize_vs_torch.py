"""``nn.utils.parametrize`` and ``nn.utils.parametrizations`` side by side with torch 2.13: the same
parametrizations (PyTorch's tutorial's symmetric matrices, a low-rank sum, weight and spectral norm) give the
same weights, gradients, optimizer steps, names, reprs and errors. Each scenario is written once against a
module ``T`` (autogradlab or torch) and run in both, from the same starting weights."""
from __future__ import annotations

import copy

import numpy as np
import pytest
from conftest import import_torch
from torch_compare import both_raise, close, run_both

import autogradlab as ag

torch = import_torch()

RNG = np.random.default_rng(0)
W0 = RNG.standard_normal((3, 3))
B0 = RNG.standard_normal(3)
X0 = RNG.standard_normal((4, 3))



def _linear(T, out=3, inp=3):
    layer = T.nn.Linear(inp, out).double()
    with T.no_grad():
        layer.weight.copy_(T.tensor(W0[:out, :inp]))
        layer.bias.copy_(T.tensor(B0[:out]))
    return layer


def _modules(T):
    """The tutorial's parametrizations, written against T."""
    class Symmetric(T.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu()

    class Scale(T.nn.Module):       # (no right_inverse)
        def forward(self, X):
            return 2 * X

    class HalfSum(T.nn.Module):     # (two originals: right_inverse returns a tuple)
        def forward(self, A, B):
            return A + B

        def right_inverse(self, X):
            return X / 2, X / 2

    class Rows(T.nn.Module):        # (changes the shape: needs unsafe=True)
        def forward(self, X):
            return X[:2]
    return Symmetric, Scale, HalfSum, Rows


def _names(module):
    return [n for n, _ in module.named_parameters()], list(module.state_dict())


def test_a_symmetric_weight_trains_as_torchs():
    def run(T):
        Symmetric = _modules(T)[0]
        layer = _linear(T)
        weight = layer.weight
        T.nn.utils.parametrize.register_parametrization(layer, "weight", Symmetric())
        original = layer.parametrizations.weight.original
        opt = T.optim.SGD(layer.parameters(), lr=0.1)
        loss = (layer(T.tensor(X0)) ** 2).sum()
        loss.backward()
        opt.step()
        facts = (original is weight, type(layer).__name__,
                 T.nn.utils.parametrize.type_before_parametrizations(layer).__name__,
                 T.nn.utils.parametrize.is_parametrized(layer), T.nn.utils.parametrize.is_parametrized(layer, "bias"),
                 _names(layer), repr(layer))
        return facts, [loss, original.grad, original, layer.weight, layer.bias.grad]
    (facts_ours, got_ours), (facts_theirs, got_theirs) = run_both(run)
    assert facts_ours == facts_theirs
    assert facts_ours[:5] == (True, "ParametrizedLinear", "Linear", True, False)
    for a, b in zip(got_ours, got_theirs):
        close(a, b, rtol=1e-12, atol=1e-12)


def test_assigning_the_weight_stores_its_right_inverse_and_a_parameter_is_refused():
    def run(T):
        Symmetric, Scale = _modules(T)[:2]
        layer = _linear(T)
        T.nn.utils.parametrize.register_parametrization(layer, "weight", Symmetric())
        layer.weight = T.tensor(W0 + 1)
        with pytest.raises(KeyError, match="already exists"):
            layer.weight = T.nn.Parameter(T.tensor(W0))
        scaled = _linear(T)
        T.nn.utils.parametrize.register_parametrization(scaled, "weight", Scale())
        with pytest.raises(RuntimeError, match="does not implement right_inverse"):
            scaled.weight = T.tensor(W0)
        return [layer.parametrizations.weight.original, layer.weight, scaled.weight]
    for a, b in zip(*run_both(run)):
        close(a, b, rtol=1e-12, atol=1e-12)


def test_parametrizations_chain_and_cached_computes_once():
    def run(T):
        Symmetric, Scale = _modules(T)[:2]
        P = T.nn.utils.parametrize
        layer = _linear(T)
        P.register_parametrization(layer, "weight", Symmetric())
        P.register_parametrization(layer, "weight", Scale())
        with P.cached():
            same = layer.weight is layer.weight
        fresh = layer.weight is layer.weight
        layer(T.tensor(X0)).sum().backward()
        return (same, fresh, len(layer.parametrizations.weight), _names(layer)), \
            [layer.weight, layer.parametrizations.weight.original.grad]
    (facts_ours, got_ours), (facts_theirs, got_theirs) = run_both(run)
    assert facts_ours == facts_theirs and facts_ours[:3] == (True, False, 2)
    for a, b in zip(got_ours, got_theirs):
        close(a, b, rtol=1e-12, atol=1e-12)


def test_two_originals_from_a_tuple_right_inverse():
    def run(T):
        HalfSum = _modules(T)[2]
        layer = _linear(T)
        T.nn.utils.parametrize.register_parametrization(layer, "weight", HalfSum())
        chain = layer.parametrizations.weight
        layer(T.tensor(X0)).pow(2).sum().backward()
        layer.weight = T.tensor(W0 * 4)          # (right_inverse again: each original gets half)
        return (_names(layer), type(chain.original0).__name__), [chain.original0.grad, chain.original1, layer.weight]
    (facts_ours, got_ours), (facts_theirs, got_theirs) = run_both(run)
    assert facts_ours == facts_theirs
    assert facts_ours[0][0] == ["bias", "parametrizations.weight.original0", "parametrizations.weight.original1"]
    for a, b in zip(got_ours, got_theirs):
        close(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("leave", [True, False], ids=["leave parametrized", "leave original"])
def test_removing_puts_the_original_parameter_back(leave):
    def run(T):
        Symmetric = _modules(T)[0]
        P = T.nn.utils.parametrize
        layer = _linear(T)
        weight = layer.weight
        P.register_parametrization(layer, "weight", Symmetric())
        P.remove_parametrizations(layer, "weight", leave_parametrized=leave)
        return (layer.weight is weight, type(layer).__name__, hasattr(layer, "parametrizations"), _names(layer),
                repr(layer)), [layer.weight]
    (facts_ours, got_ours), (facts_theirs, got_theirs) = run_both(run)
    assert facts_ours == facts_theirs and facts_ours[:3] == (True, "Linear", False)
    close(got_ours[0], got_theirs[0], rtol=1e-12, atol=1e-12)


def test_a_two_original_parametrization_can_only_be_left_parametrized():
    def run(T):
        HalfSum = _modules(T)[2]
        layer = _linear(T)
        T.nn.utils.parametrize.register_parametrization(layer, "weight", HalfSum())
        with pytest.raises(ValueError, match="leave_parametrized=False"):
            T.nn.utils.parametrize.remove_parametrizations(layer, "weight", leave_parametrized=False)
        T.nn.utils.parametrize.remove_parametrizations(layer, "weight")
        return (type(layer.weight).__name__, layer.weight.requires_grad, _names(layer)), [layer.weight]
    (facts_ours, got_ours), (facts_theirs, got_theirs) = run_both(run)
    assert facts_ours == facts_theirs
    close(got_ours[0], got_theirs[0], rtol=1e-12, atol=1e-12)


def test_a_buffer_can_be_parametrized():
    def run(T):
        Symmetric = _modules(T)[0]
        norm = T.nn.BatchNorm1d(3).double()
        T.nn.utils.parametrize.register_parametrization(norm, "running_mean", _modules(T)[1]())
        return _names(norm), [norm.running_mean + 1]
    (names_ours, got_ours), (names_theirs, got_theirs) = run_both(run)
    assert names_ours == names_theirs
    close(got_ours[0], got_theirs[0])


@pytest.mark.parametrize("case", ["changes the shape", "unknown name", "nothing to remove"])
def test_errors_are_torchs_and_change_nothing(case):
    def call(T):
        Symmetric, _, _, Rows = _modules(T)
        layer = _linear(T)
        P = T.nn.utils.parametrize
        return lambda: {"changes the shape": lambda: P.register_parametrization(layer, "weight", Rows()),
                        "unknown name": lambda: P.register_parametrization(layer, "nope", Symmetric()),
                        "nothing to remove": lambda: P.remove_parametrizations(layer, "weight")}[case](), layer
    ours, layer = call(ag)
    theirs, _ = call(torch)
    both_raise(ours, theirs)
    assert type(layer).__name__ == "Linear" and not hasattr(layer, "parametrizations")
    close(layer.weight, torch.tensor(W0))


def test_unsafe_allows_a_new_shape():
    def run(T):
        Rows = _modules(T)[3]
        layer = _linear(T)
        T.nn.utils.parametrize.register_parametrization(layer, "weight", Rows(), unsafe=True)
        return [layer.weight]
    ours, theirs = run_both(run)
    close(ours[0], theirs[0])
    assert tuple(ours[0].shape) == (2, 3)


def test_a_parametrized_model_deep_copies_and_casts():
    Symmetric = _modules(ag)[0]
    layer = ag.nn.Linear(3, 3)
    ag.nn.utils.parametrize.register_parametrization(layer, "weight", Symmetric())
    twin = copy.deepcopy(layer)
    assert type(twin).__name__ == "ParametrizedLinear"
    assert twin.parametrizations.weight.original is not layer.parametrizations.weight.original
    close(twin.weight, torch.tensor(layer.weight.detach().numpy()))
    layer.double()
    assert layer.weight.dtype == ag.float64


def test_gradient_through_a_parametrization_matches_finite_differences():
    Symmetric = _modules(ag)[0]
    layer = _linear(ag)
    ag.nn.utils.parametrize.register_parametrization(layer, "weight", Symmetric())
    x = ag.tensor(X0)

    def loss(original):
        layer.parametrizations.weight.original.data = original
        return (layer(x) ** 2).sum()
    start = ag.tensor(np.triu(W0), requires_grad=True)
    loss(start).backward()
    analytic = layer.parametrizations.weight.original.grad.numpy().copy()
    numeric = np.zeros_like(W0)
    for i in range(3):
        for j in range(3):
            step = np.zeros_like(W0)
            step[i, j] = 1e-6
            with ag.no_grad():
                numeric[i, j] = (loss(ag.tensor(np.triu(W0) + step)).item()
                                 - loss(ag.tensor(np.triu(W0) - step)).item()) / 2e-6
    np.testing.assert_allclose(analytic, numeric, rtol=1e-6, atol=1e-6)


# --- parametrizations.weight_norm and spectral_norm -----------------------------------------------------------

@pytest.mark.parametrize("dim", [0, 1, None], ids=["dim 0", "dim 1", "dim None"])
def test_weight_norm_parametrization_as_torchs(dim):
    def run(T):
        layer = T.nn.utils.parametrizations.weight_norm(_linear(T, 2, 3), dim=dim)
        chain = layer.parametrizations.weight
        layer(T.tensor(X0)).pow(2).sum().backward()
        return _names(layer), [chain.original0, chain.original1, layer.weight, chain.original0.grad,
                               chain.original1.grad]
    (names_ours, got_ours), (names_theirs, got_theirs) = run_both(run)
    assert names_ours == names_theirs
    for a, b in zip(got_ours, got_theirs):
        close(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("layer_kind", ["linear", "conv", "bias (1-d)"])
def test_spectral_norm_parametrization_as_torchs(layer_kind):
    """The random start of the power iteration differs between the libraries: torch's u and v are copied
    into ours after registering, then both iterate, normalise and differentiate alike."""
    def build(T):
        T.manual_seed(0)
        if layer_kind == "conv":
            layer = T.nn.Conv2d(2, 3, 2).double()
            with T.no_grad():
                layer.weight.copy_(T.tensor(np.random.default_rng(1).standard_normal((3, 2, 2, 2))))
                layer.bias.zero_()
        else:
            layer = _linear(T, 2, 3)
        name = "bias" if layer_kind == "bias (1-d)" else "weight"
        return T.nn.utils.parametrizations.spectral_norm(layer, name=name), name
    ours, name = build(ag)
    theirs, _ = build(torch)
    assert _names(ours) == _names(theirs)
    if name == "weight":
        for buffer in ("_u", "_v"):
            getattr(ours.parametrizations.weight[0], buffer).copy_(
                ag.tensor(getattr(theirs.parametrizations.weight[0], buffer).numpy()))
    x = np.random.default_rng(2).standard_normal((2, 2, 3, 3) if layer_kind == "conv" else (4, 3))
    for step in range(2):        # (training: each read iterates once more, in both)
        out_ours, out_theirs = ours(ag.tensor(x)), theirs(torch.tensor(x))
        close(out_ours, out_theirs, rtol=1e-10, atol=1e-12)
    out_ours.pow(2).sum().backward()
    out_theirs.pow(2).sum().backward()
    original = f"parametrizations.{name}.original"
    grads = dict(ours.named_parameters()), dict(theirs.named_parameters())
    close(grads[0][original].grad, grads[1][original].grad, rtol=1e-10, atol=1e-12)
    ours.eval()
    theirs.eval()
    close(getattr(ours, name), getattr(theirs, name), rtol=1e-10, atol=1e-12)


def test_spectral_norm_refuses_what_torch_refuses():
    for kwargs in ({"n_power_iterations": 0}, {"dim": 3}, {"name": "nope"}):
        both_raise(lambda: ag.nn.utils.parametrizations.spectral_norm(ag.nn.Linear(3, 2), **kwargs),
                   lambda: torch.nn.utils.parametrizations.spectral_norm(torch.nn.Linear(3, 2), **kwargs))


def test_the_tutorials_orthogonal_weight_from_a_skew_matrix_and_its_exponential():
    def run(T):
        class Skew(T.nn.Module):
            def forward(self, X):
                A = X.triu(1)
                return A - A.transpose(-1, -2)

        class MatrixExponential(T.nn.Module):
            def forward(self, X):
                return T.matrix_exp(X)
        layer = _linear(T)
        T.nn.utils.parametrize.register_parametrization(layer, "weight", Skew())
        T.nn.utils.parametrize.register_parametrization(layer, "weight", MatrixExponential())
        Q = layer.weight
        (layer(T.tensor(X0)) ** 2).sum().backward()
        return [Q @ Q.T, Q, layer.parametrizations.weight.original.grad]
    ours, theirs = run_both(run)
    for a, b in zip(ours, theirs):
        close(a, b, rtol=1e-10, atol=1e-12)
    close(ours[0], torch.eye(3, dtype=torch.float64), atol=1e-12)   # (orthogonal)


# --- parametrizations.orthogonal ------------------------------------------------------------------------------

def _orthogonal_layer(T, shape, orthogonal_map, trivial=True):
    out, inp = shape
    layer = T.nn.Linear(inp, out).double()
    with T.no_grad():
        layer.weight.copy_(T.tensor(np.random.default_rng(3).standard_normal(shape)))
        layer.bias.zero_()
    return T.nn.utils.parametrizations.orthogonal(layer, orthogonal_map=orthogonal_map, use_trivialization=trivial)


@pytest.mark.parametrize("shape,orthogonal_map,trivial", [
    ((3, 3), None, True), ((3, 3), "cayley", True), ((4, 2), None, True), ((2, 4), None, True),
    ((4, 2), "matrix_exp", True), ((2, 4), "cayley", True), ((3, 3), "householder", True),
    ((4, 2), "householder", False), ((3, 3), "matrix_exp", False), ((2, 3), "cayley", False)],
    ids=["square-default", "square-cayley", "tall-default", "wide-default", "tall-exp", "wide-cayley",
         "square-householder", "tall-householder-no-base", "square-exp-no-base", "wide-cayley-no-base"])
def test_orthogonal_weights_train_as_torchs(shape, orthogonal_map, trivial):
    """A non-square base is completed with random columns: torch's base is copied into ours (the one draw
    that differs), then three Adam steps give the same weights, gradients and orthogonality."""
    ours, theirs = (_orthogonal_layer(T, shape, orthogonal_map, trivial) for T in (ag, torch))
    assert _names(ours) == _names(theirs)
    if trivial:
        ours.parametrizations.weight[0].base = ag.tensor(theirs.parametrizations.weight[0].base.numpy())
    x = np.random.default_rng(4).standard_normal((5, shape[1]))
    steps = []
    for layer, T in ((ours, ag), (theirs, torch)):
        opt = T.optim.Adam(layer.parameters(), lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            (layer(T.tensor(x)) ** 3).sum().backward()
            opt.step()
        steps.append([layer.weight, layer.parametrizations.weight.original.grad])
    for a, b in zip(*steps):
        close(a, b, rtol=1e-9, atol=1e-11)
    W = ours.weight.detach().numpy()
    gram = W.T @ W if shape[0] >= shape[1] else W @ W.T
    np.testing.assert_allclose(gram, np.eye(min(shape)), atol=1e-12)


def test_assigning_an_orthogonal_weight_makes_it_the_base():
    results = []
    for T in (ag, torch):
        layer = _orthogonal_layer(T, (3, 3), None)
        target = T.tensor(np.random.default_rng(5).standard_normal((3, 3)))
        layer.weight = target
        results.append([layer.weight, layer.parametrizations.weight.original])
    for a, b in zip(*results):
        close(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("call", [
    lambda T: T.nn.utils.parametrizations.orthogonal(T.nn.Linear(3, 3), name="bias"),
    lambda T: T.nn.utils.parametrizations.orthogonal(T.nn.Linear(3, 3), orthogonal_map="qr"),
    lambda T: T.nn.utils.parametrizations.orthogonal(T.nn.Linear(3, 3), name="nope"),
], ids=["a-vector", "unknown-map", "unknown-name"])
def test_orthogonal_refuses_what_torch_refuses(call):
    both_raise(lambda: call(ag), lambda: call(torch))


def test_householder_product_as_torchs():
    rng = np.random.default_rng(6)
    a, t = rng.standard_normal((2, 5, 3)), rng.standard_normal((2, 2))
    results = []
    for T in (ag, torch):
        A, tau = T.tensor(a, requires_grad=True), T.tensor(t, requires_grad=True)
        Q = T.linalg.householder_product(A, tau)
        (Q * Q.sin()).sum().backward()
        results.append([Q, A.grad, tau.grad])
    for x, y in zip(*results):
        close(x, y, rtol=1e-12, atol=1e-12)
    both_raise(lambda: ag.linalg.householder_product(ag.ones(2, 3), ag.ones(2)),
               lambda: torch.linalg.householder_product(torch.ones(2, 3), torch.ones(2)))


def test_assigning_a_nearly_orthogonal_weight_keeps_it_as_torch_does():
    q = np.linalg.qr(np.random.default_rng(8).standard_normal((3, 3)))[0] * (1 + 3e-6)
    results = []
    for T in (ag, torch):
        layer = _orthogonal_layer(T, (3, 3), None)
        layer.weight = T.tensor(q)
        results.append(layer.parametrizations.weight[0].base)
    close(*results, rtol=1e-12, atol=1e-12)
