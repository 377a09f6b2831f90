"""``set_default_dtype`` side by side with torch 2.13: after ``set_default_dtype(float64)`` (common in
gradient-checking and physics labs) or ``float16``, every float made without a dtype comes in that dtype in
both libraries, tensors and arrays that already have a dtype keep it, and bad arguments are refused alike.

Each expression is written once against a module ``m`` (autogradlab or torch: the names are the same) and run
in both under the same default; the fixture puts both defaults back, whatever the test does."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import import_torch
from torch_compare import both_raise, close

import autogradlab as ag

torch = import_torch()


@pytest.fixture
def default_dtype(request):
    """Both libraries' default float set to ``request.param`` (a name) for the test, float32 again after."""
    name = request.param
    ag.set_default_dtype(getattr(ag, name))
    torch.set_default_dtype(getattr(torch, name))
    try:
        yield name
    finally:
        ag.set_default_dtype(ag.float32)
        torch.set_default_dtype(torch.float32)


def _dtype_name(t):
    return str(t.dtype).removeprefix("torch.")


# Each: (what it shows, expression over m). All make a float somewhere without being told which.
MADE = [
    ("tensor of Python floats", lambda m: m.tensor([1.5, 2.0])),
    ("0-d tensor of a float", lambda m: m.tensor(3.0)),
    ("mixed ints and floats", lambda m: m.tensor([1, 2.5])),
    ("empty list", lambda m: m.tensor([])),
    ("Tensor(2, 3)", lambda m: m.Tensor(2, 3)),
    ("zeros", lambda m: m.zeros(2, 3)),
    ("ones", lambda m: m.ones(2)),
    ("empty", lambda m: m.empty(2)),
    ("eye", lambda m: m.eye(2)),
    ("full of a float", lambda m: m.full((2,), 1.5)),
    ("arange of floats", lambda m: m.arange(0.0, 1.0, 0.25)),
    ("linspace", lambda m: m.linspace(0, 1, 5)),
    ("logspace", lambda m: m.logspace(0, 1, 3)),
    ("rand", lambda m: m.rand(3)),
    ("randn", lambda m: m.randn(3)),
    ("normal of numbers", lambda m: m.normal(0.0, 1.0, (2,))),
    ("int tensor divided", lambda m: m.tensor([1, 2]) / 2),
    ("int tensor times a float", lambda m: m.tensor([1, 2]) * 1.5),
    ("int tensor to a float power", lambda m: m.tensor([2, 3]) ** 0.5),
    ("sqrt of ints", lambda m: m.tensor([1, 4]).sqrt()),
    ("exp of ints", lambda m: m.tensor([1, 2]).exp()),
    ("sigmoid of ints", lambda m: m.tensor([1, 2]).sigmoid()),
    ("atan2 of ints", lambda m: m.atan2(m.tensor([1]), m.tensor([2]))),
    ("logsumexp of ints", lambda m: m.logsumexp(m.tensor([1, 2]), 0)),
    ("cov of ints", lambda m: m.cov(m.tensor([[1, 2, 3], [2, 1, 0]]))),
    ("cov of ints, float32 aweights", lambda m: m.cov(m.tensor([[1, 2, 3], [2, 1, 0]]),
                                                      aweights=m.tensor([1.0, 2.0, 1.0], dtype=m.float32))),
    ("cov of float32, float16 aweights", lambda m: m.cov(m.tensor([[1.0, 2, 3], [2, 1, 0]], dtype=m.float32),
                                                         aweights=m.tensor([1.0, 2.0, 1.0], dtype=m.float16))),
    ("block_diag of nothing", lambda m: m.block_diag()),
    ("Linear's weight", lambda m: m.nn.Linear(2, 3).weight),
    ("Linear's bias", lambda m: m.nn.Linear(2, 3).bias),
    ("Conv2d's weight", lambda m: m.nn.Conv2d(1, 2, 3).weight),
    ("Embedding's weight", lambda m: m.nn.Embedding(4, 2).weight),
    ("BatchNorm1d's running mean", lambda m: m.nn.BatchNorm1d(3).running_mean),
    ("LayerNorm's weight", lambda m: m.nn.LayerNorm(3).weight),
    ("LSTM's weight", lambda m: m.nn.LSTM(2, 3).weight_hh_l0),
    ("a lazy Linear, run once", lambda m: _lazy_weight(m)),
    ("Transformer's causal mask", lambda m: m.nn.Transformer.generate_square_subsequent_mask(3)),
    ("clip_grad_norm_ of no parameters", lambda m: m.nn.utils.clip_grad_norm_([], 1.0)),
    ("Normal(0., 1.).sample()", lambda m: m.distributions.Normal(0.0, 1.0).sample()),
    ("Linear on a tensor of floats", lambda m: m.nn.Linear(2, 1)(m.tensor([[1.0, 2.0]]))),
]


def _lazy_weight(m):
    layer = m.nn.LazyLinear(3)
    layer(m.ones(1, 2, dtype=m.get_default_dtype()))
    return layer.weight


# Each: (what it shows, expression over m). These have a dtype already, or PyTorch fixes it: unchanged.
KEPT = [
    ("an explicit dtype", lambda m: m.tensor([1.5], dtype=m.float32)),
    ("a float32 NumPy array", lambda m: m.tensor(np.array([1.5], np.float32))),
    ("from_numpy of float32", lambda m: m.from_numpy(np.array([1.5], np.float32))),
    ("int tensor", lambda m: m.tensor([1, 2])),
    ("bool tensor", lambda m: m.tensor([True])),
    ("arange of ints", lambda m: m.arange(3)),
    ("randint", lambda m: m.randint(0, 3, (2,))),
    ("float32 tensor times a float", lambda m: m.tensor([1.0], dtype=m.float32) * 2.5),
    ("float32 tensor plus a 0-d default tensor", lambda m: m.tensor([1.0], dtype=m.float32) + m.tensor(1.0)),
    (".float()", lambda m: m.tensor([1, 2]).float()),
    (".double()", lambda m: m.tensor([1, 2]).double()),
    ("one_hot", lambda m: m.nn.functional.one_hot(m.tensor([1]))),
]


@pytest.mark.parametrize("default_dtype", ["float64", "float16", "float32"], indirect=True)
@pytest.mark.parametrize("made", MADE + KEPT, ids=[label for label, _ in MADE + KEPT])
def test_floats_made_without_a_dtype_take_the_default(default_dtype, made):
    _, expr = made
    ag.manual_seed(0)
    ours, theirs = expr(ag), expr(torch)
    assert ours.dtype.name == _dtype_name(theirs)
    assert tuple(ours.shape) == tuple(theirs.shape)


@pytest.mark.parametrize("default_dtype", ["float64", "float16"], indirect=True)
def test_the_defaults_are_reported_and_used_where_pytorch_uses_them(default_dtype):
    assert ag.get_default_dtype().name == _dtype_name(torch.empty(0)) == default_dtype
    assert ag.get_default_dtype() == getattr(ag, default_dtype)
    assert ag.finfo().bits == torch.finfo().bits        # (finfo of nothing: the default float's)
    assert ag.data.make_moons(8, seed=0)[0].dtype.name == default_dtype   # (the toy datasets' X too)


@pytest.mark.parametrize("default_dtype", ["float64"], indirect=True)
def test_tensors_made_before_keep_their_dtype(default_dtype):
    ag.set_default_dtype(ag.float32)
    before = ag.ones(2)
    ag.set_default_dtype(ag.float64)
    assert before.dtype == ag.float32
    assert ag.ones(2).dtype == ag.float64


@pytest.mark.parametrize("default_dtype", ["float64", "float32"], indirect=True)
def test_printing_names_every_dtype_but_the_default(default_dtype):
    for dtype in (None, "float32", "float64"):   # (on the CPU: the stand-in GPU pass's would name its device)
        for values in ([1.5], []):
            ours = ag.tensor(values, dtype=dtype and getattr(ag, dtype), device="cpu")
            theirs = torch.tensor(values, dtype=dtype and getattr(torch, dtype))
            assert repr(ours) == repr(theirs).replace("torch.", "")


@pytest.mark.parametrize("default_dtype", ["float64"], indirect=True)
def test_a_float64_model_trains_as_torch_does(default_dtype):
    """A lab's set_default_dtype(float64) then plain lab code: the same gradients and step as torch's."""
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((16, 3)), rng.standard_normal((16, 1))
    results = []
    for m in (ag, torch):
        m.manual_seed(0)
        model = m.nn.Sequential(m.nn.Linear(3, 4), m.nn.Tanh(), m.nn.Linear(4, 1))
        with m.no_grad():   # (the same weights in both: each library's own initialiser draws differently)
            for p, init in zip(model.parameters(), _weights(rng_seed=1)):
                p.copy_(m.tensor(init))
        opt = m.optim.Adam(model.parameters(), lr=0.01)
        loss = m.nn.functional.mse_loss(model(m.tensor(X.tolist())), m.tensor(y.tolist()))
        loss.backward()
        grads = [p.grad.clone() for p in model.parameters()]
        opt.step()
        results.append((loss, grads, list(model.parameters()), opt.state_dict()["state"][0]["step"]))
    (l_ag, g_ag, p_ag, s_ag), (l_t, g_t, p_t, s_t) = results
    close(l_ag, l_t, rtol=1e-12, atol=1e-12)
    for ours, theirs in zip(g_ag + p_ag, g_t + p_t):
        close(ours, theirs, rtol=1e-10, atol=1e-12)
    assert s_ag.dtype.name == _dtype_name(s_t) == "float64"   # (Adam's step count: PyTorch's scalar dtype)


def _weights(rng_seed):
    rng = np.random.default_rng(rng_seed)
    return [rng.standard_normal(shape).tolist() for shape in ((4, 3), (4,), (1, 4), (1,))]


@pytest.mark.parametrize("bad", ["int64", "bool", "a name", "Python's float", "None"])
def test_only_float_dtypes_can_be_the_default(bad):
    value = {"int64": lambda m: m.int64, "bool": lambda m: m.bool, "a name": lambda m: "float64",
             "Python's float": lambda m: float, "None": lambda m: None}[bad]
    both_raise(lambda: ag.set_default_dtype(value(ag)), lambda: torch.set_default_dtype(value(torch)))
    assert ag.get_default_dtype() == ag.float32 and torch.get_default_dtype() == torch.float32   # (unchanged)
    with pytest.raises(TypeError, match="float64"):   # (and ours says what to pass instead)
        ag.set_default_dtype(value(ag))
