"""PyTorch's random-sampling names (multinomial, bernoulli, normal, poisson, the *_like draws, empty, logspace,
the in-place fills uniform_/normal_/bernoulli_/random_/exponential_) and its everyday names about dtypes,
devices and modes (promote_types, can_cast, finfo, iinfo, get_default_dtype, inference_mode, device, cuda,
broadcast_shapes/broadcast_tensors, new_* methods, clamp_min/clamp_max), side by side with torch 2.13.

Random draws are NumPy's, so they differ from torch's: what is compared is what a draw promises (shape,
dtype, range, which values can appear, frequencies within a tolerance for a seeded draw) and the errors."""
import numpy as np
import pytest
from conftest import host, import_torch
from torch_compare import both_raise

import autogradlab as ag

torch = import_torch()

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]


def _kind(ours, theirs):
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
    assert ours.requires_grad == theirs.requires_grad


def _values(t):
    return host(t.detach().data)


# -- multinomial ------------------------------------------------------------------------------------

@pytest.mark.parametrize("weights, n, replacement", [
    ([1.0, 2.0, 3.0], 2, False), ([1.0, 2.0, 3.0], 10, True), ([[1.0, 0.0, 2.0], [0.5, 0.5, 0.0]], 2, False),
    ([[1.0, 0.0, 2.0], [0.5, 0.5, 0.0]], 5, True), ([1.0, 0.0, 0.0], 3, False),
], ids=["1d", "1d-replacement", "2d", "2d-replacement", "zeros-last"])
def test_multinomial_kind_and_promises(weights, n, replacement):
    ours = ag.multinomial(ag.tensor(weights), n, replacement)
    _kind(ours, torch.multinomial(torch.tensor(weights), n, replacement))
    rows, w = _values(ours).reshape(-1, n), np.asarray(weights).reshape(-1, len(weights if np.ndim(weights) == 1
                                                                                 else weights[0]))
    for picks, row in zip(rows, w):
        if not replacement:
            assert len(set(picks.tolist())) == n
            positive = int((row > 0).sum())
            assert all(row[p] > 0 for p in picks[:positive])   # weight-0 indices only once the others run out
        else:
            assert all(row[p] > 0 for p in picks)


def test_multinomial_frequencies_follow_the_weights():
    draws = _values(ag.multinomial(ag.tensor([1.0, 3.0, 6.0]), 20000, True, generator=ag.Generator().manual_seed(0)))
    np.testing.assert_allclose(np.bincount(draws, minlength=3) / 20000, [0.1, 0.3, 0.6], atol=0.015)
    # without replacement, the first pick follows the weights too
    firsts = [int(_values(ag.multinomial(ag.tensor([1.0, 3.0, 6.0]), 2, generator=g))[0])
              for g in [ag.Generator().manual_seed(s) for s in range(3000)]]
    np.testing.assert_allclose(np.bincount(firsts, minlength=3) / 3000, [0.1, 0.3, 0.6], atol=0.03)


@pytest.mark.parametrize("call", [
    lambda M: M.multinomial(M.tensor([1.0, 2.0]), 3), lambda M: M.multinomial(M.tensor([[[1.0]]]), 1),
    lambda M: M.multinomial(M.tensor([-1.0, 2.0]), 1), lambda M: M.multinomial(M.tensor([0.0, 0.0]), 1),
    lambda M: M.multinomial(M.tensor([1.0, 2.0]), 0), lambda M: M.multinomial(M.tensor([1, 2]), 1),
    lambda M: M.multinomial(M.tensor([1.0, float("nan")]), 1), lambda M: M.multinomial(M.tensor([1.0, 2.0]), 1.5),
], ids=["too-many", "3d", "negative", "all-zero", "zero-samples", "integers", "nan", "float-count"])
def test_multinomial_refuses_what_torch_refuses(call):
    both_raise(lambda: call(ag), lambda: call(torch))


# -- bernoulli, normal, poisson ---------------------------------------------------------------------

def test_bernoulli_kind_values_and_rate():
    p = np.array([0.0, 1.0, 0.3, 0.3], dtype=np.float64)
    _kind(ag.bernoulli(ag.tensor(p)), torch.bernoulli(torch.tensor(p)))
    draws = _values(ag.bernoulli(ag.full((20000,), 0.3), generator=ag.Generator().manual_seed(1)))
    assert set(np.unique(draws).tolist()) <= {0.0, 1.0} and abs(draws.mean() - 0.3) < 0.015
    edges = _values(ag.bernoulli(ag.tensor(p)))
    assert edges[0] == 0 and edges[1] == 1
    assert _values(ag.bernoulli(ag.zeros(5), 1.0)).tolist() == [1.0] * 5


@pytest.mark.parametrize("call", [
    lambda M: M.bernoulli(M.tensor([1.5])), lambda M: M.bernoulli(M.tensor([1])),
    lambda M: M.normal(0.0, -1.0, (2,)), lambda M: M.normal(0.0, 1.0),
    lambda M: M.normal(M.zeros(2), M.ones(3)), lambda M: M.normal(M.tensor([0, 1]), 1.0),
    lambda M: M.poisson(M.tensor([-1.0])), lambda M: M.rand_like(M.zeros(2, dtype=M.int64)),
    lambda M: M.randint_like(M.zeros(2), 3, 1), lambda M: M.zeros(2).normal_(0.0, -1.0),
    lambda M: M.zeros(2, dtype=M.int64).uniform_(), lambda M: M.zeros(2).random_(5, 2),
    lambda M: M.zeros(2).exponential_(-1.0),
], ids=["p-above-1", "integer-p", "negative-std", "two-numbers", "shapes", "integer-mean", "negative-rate",
        "rand-like-int", "randint-like-empty", "normal_-negative", "uniform_-int", "random_-empty",
        "exponential_-negative"])
def test_draws_refuse_what_torch_refuses(call):
    both_raise(lambda: call(ag), lambda: call(torch))


@pytest.mark.parametrize("call", [
    lambda M: M.normal(M.zeros(3, 2), M.ones(2)), lambda M: M.normal(M.zeros(3, dtype=M.float64), 2.0),
    lambda M: M.normal(1.0, M.ones(4)), lambda M: M.normal(0.0, 1.0, (2, 5)), lambda M: M.normal(0, 1, size=(3,)),
    lambda M: M.poisson(M.full((3,), 2.0)), lambda M: M.rand_like(M.zeros(2, 3, dtype=M.float64)),
    lambda M: M.randn_like(M.zeros(2), dtype=M.float64), lambda M: M.randint_like(M.zeros(4), 5),
    lambda M: M.randint_like(M.zeros(4, dtype=M.int32), 1, 5), lambda M: M.empty(2, 3),
    lambda M: M.empty((2,), dtype=M.float64), lambda M: M.empty_like(M.ones(3, dtype=M.int64)),
    lambda M: M.rand_like(M.zeros(2), requires_grad=True),
], ids=["normal-tensors", "normal-float64-mean", "normal-tensor-std", "normal-size", "normal-int-args", "poisson",
        "rand-like", "randn-like-dtype", "randint-like-float", "randint-like-int", "empty", "empty-dtype",
        "empty-like", "rand-like-requires-grad"])
def test_draws_have_torchs_shape_dtype_and_grad_flag(call):
    _kind(call(ag), call(torch))


def test_normal_and_poisson_statistics():
    g = ag.Generator().manual_seed(2)
    draws = _values(ag.normal(ag.full((20000,), 3.0), 2.0, generator=g))
    assert abs(draws.mean() - 3.0) < 0.05 and abs(draws.std() - 2.0) < 0.05
    rates = _values(ag.poisson(ag.full((20000,), 4.0), generator=g))
    assert abs(rates.mean() - 4.0) < 0.06 and np.all(rates == np.round(rates))


def test_randint_like_stays_in_range_and_empty_is_zeros():
    draws = _values(ag.randint_like(ag.zeros(1000), 2, 5))
    assert draws.min() >= 2 and draws.max() <= 4 and draws.dtype == np.float32
    assert not _values(ag.empty(3, 2)).any() and not _values(ag.empty_like(ag.ones(4))).any()


def test_a_sample_is_a_constant_and_the_reparameterization_has_gradients():
    """Decision: torch records a node with zero gradient for normal(mean, std); here the sample does not
    require grad. mean + std * randn_like(std) gives the gradients, in both libraries."""
    mean = ag.zeros(3, requires_grad=True)
    assert not ag.normal(mean, 1.0).requires_grad and not ag.bernoulli(ag.full((2,), 0.5)).requires_grad
    std = ag.ones(3, requires_grad=True)
    ag.manual_seed(4)
    noise = ag.randn_like(std)
    (mean + std * noise).sum().backward()
    np.testing.assert_array_equal(_values(mean.grad), np.ones(3))
    np.testing.assert_array_equal(_values(std.grad), _values(noise))


@pytest.mark.parametrize("args", [(0, 2, 3), (0, 2, 3, 2.0), (-1, 1, 5), (1, 0, 4), (2, 2, 1), (0, 1, 0)])
def test_logspace_matches_torch(args):
    ours, theirs = ag.logspace(*args[:3], base=args[3] if len(args) > 3 else 10.0), \
        torch.logspace(*args[:3], base=args[3] if len(args) > 3 else 10.0)
    _kind(ours, theirs)
    np.testing.assert_allclose(_values(ours), theirs.numpy(), rtol=1e-6)


def test_draws_repeat_under_manual_seed_and_generators():
    def run(**kw):
        return [_values(f).tolist() for f in (ag.multinomial(ag.ones(5), 3, **kw), ag.bernoulli(ag.full((6,), 0.5), **kw),
                                              ag.normal(ag.zeros(3), 1.0, **kw), ag.rand_like(ag.ones(2), **kw),
                                              ag.randn_like(ag.ones(2), **kw), ag.randint_like(ag.ones(3), 9, **kw))]
    ag.manual_seed(5)
    first = run()
    ag.manual_seed(5)
    assert run() == first
    assert run(generator=ag.Generator().manual_seed(1)) == run(generator=ag.Generator().manual_seed(1))


# -- in-place fills -----------------------------------------------------------------------------------

@pytest.mark.parametrize("fill, check", [
    (lambda t: t.uniform_(-2.0, 3.0), lambda v: v.min() >= -2 and v.max() < 3 and v.std() > 1),
    (lambda t: t.normal_(5.0, 0.5), lambda v: abs(v.mean() - 5) < 0.1 and abs(v.std() - 0.5) < 0.1),
    (lambda t: t.bernoulli_(0.25), lambda v: set(np.unique(v).tolist()) <= {0.0, 1.0} and abs(v.mean() - .25) < .06),
    (lambda t: t.random_(3, 7), lambda v: v.min() >= 3 and v.max() <= 6 and np.all(v == np.round(v))),
    (lambda t: t.random_(4), lambda v: v.min() >= 0 and v.max() <= 3),
    (lambda t: t.exponential_(2.0), lambda v: v.min() >= 0 and abs(v.mean() - 0.5) < 0.1),
], ids=["uniform_", "normal_", "bernoulli_", "random_", "random_-to", "exponential_"])
def test_fills_write_in_place_and_keep_the_tensor(fill, check):
    t = ag.zeros(500, dtype=ag.float64)
    version = t._version
    out = fill(t)
    assert out is t and t.dtype == np.float64 and t._version > version and check(_values(t))
    _kind(fill(ag.zeros(4, 2)), fill(torch.zeros(4, 2)))


@pytest.mark.parametrize("name, args", [("uniform_", ()), ("normal_", ()), ("bernoulli_", (0.5,)),
                                        ("exponential_", ())])
def test_fills_of_a_parameter_need_no_grad_as_torch(name, args):
    for M in (ag, torch):
        w = M.zeros(3, requires_grad=True)
        with pytest.raises(RuntimeError, match="leaf"):
            getattr(w, name)(*args)
        with M.no_grad():
            getattr(w, name)(*args)
        assert w.requires_grad and w.grad is None


def test_a_fill_of_an_intermediate_gives_its_old_value_no_gradient_as_torch():
    grads = []
    for M in (ag, torch):
        x = M.ones(3, dtype=M.float64, requires_grad=True)
        y = x * 2
        y.uniform_()
        (y * 3 + x).sum().backward()
        grads.append(_values(x.grad) if M is ag else x.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])


def test_bernoulli_fill_takes_a_tensor_of_probabilities():
    t = ag.zeros(4).bernoulli_(ag.tensor([0.0, 1.0, 0.0, 1.0]))
    assert _values(t).tolist() == [0.0, 1.0, 0.0, 1.0]
    assert torch.zeros(4).bernoulli_(torch.tensor([0.0, 1.0, 0.0, 1.0])).tolist() == [0.0, 1.0, 0.0, 1.0]


# -- dtypes -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("a", DTYPES)
def test_promote_types_and_can_cast_match_torch(a):
    for b in DTYPES:
        theirs = torch.promote_types(getattr(torch, a), getattr(torch, b))
        assert ag.promote_types(getattr(ag, a), getattr(ag, b)).name == str(theirs).removeprefix("torch.")
        assert ag.can_cast(getattr(ag, a), getattr(ag, b)) == torch.can_cast(getattr(torch, a), getattr(torch, b))


@pytest.mark.parametrize("name", ["float16", "float32", "float64"])
def test_finfo_matches_torch(name):
    ours, theirs = ag.finfo(getattr(ag, name)), torch.finfo(getattr(torch, name))
    for field in ("eps", "max", "min", "tiny", "smallest_normal", "bits", "resolution", "dtype"):
        assert getattr(ours, field) == getattr(theirs, field), field
        assert type(getattr(ours, field)) is type(getattr(theirs, field)), field   # (Python floats, as torch's)
    assert repr(ours) == repr(theirs)
    assert ag.finfo().eps == torch.finfo().eps


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo_matches_torch(name):
    ours, theirs = ag.iinfo(getattr(ag, name)), torch.iinfo(getattr(torch, name))
    assert (int(ours.min), int(ours.max), ours.bits) == (theirs.min, theirs.max, theirs.bits)


def test_info_of_the_wrong_kind_says_which_to_use():
    with pytest.raises(TypeError, match="iinfo"):
        ag.finfo(ag.int64)
    with pytest.raises(TypeError, match="finfo"):
        ag.iinfo(ag.float32)
    with pytest.raises(TypeError):
        torch.finfo(torch.int64)


def test_default_dtype_and_is_floating_point_match_torch():
    assert ag.get_default_dtype().name == str(torch.get_default_dtype()).removeprefix("torch.")
    for name in DTYPES:
        assert ag.is_floating_point(ag.zeros(1, dtype=getattr(ag, name))) == \
            torch.is_floating_point(torch.zeros(1, dtype=getattr(torch, name)))
        assert ag.zeros(1, dtype=getattr(ag, name)).is_floating_point() == \
            torch.zeros(1, dtype=getattr(torch, name)).is_floating_point()


# -- modes and devices ---------------------------------------------------------------------------------

def test_inference_mode_matches_torch():
    for M in (ag, torch):
        x = M.ones(2, requires_grad=True)

        @M.inference_mode
        def bare(v):
            return v * 2, M.is_inference_mode_enabled()

        @M.inference_mode()
        def called(v):
            return v * 2

        y, inside = bare(x)
        assert not y.requires_grad and inside and not M.is_inference_mode_enabled()
        assert not called(x).requires_grad
        with M.inference_mode(False):
            assert (x * 2).requires_grad and not M.is_inference_mode_enabled()
        with M.inference_mode():
            with M.enable_grad():                 # grad mode on, but an inference pass still records nothing
                assert M.is_grad_enabled() and not (x * 2).requires_grad
                with M.set_grad_enabled(True):
                    assert M.is_grad_enabled() and not (x * 2).requires_grad
                with M.no_grad():
                    assert not M.is_grad_enabled()
                with M.inference_mode(False):
                    assert (x * 2).requires_grad
            assert not M.is_grad_enabled()
        assert M.is_grad_enabled() and (x * 2).requires_grad
        with M.no_grad():
            with M.inference_mode(False):         # (it turns gradients on, as enable_grad does)
                assert M.is_grad_enabled()
            assert not M.is_grad_enabled()

        @M.no_grad
        def plain(v):
            return v * 2
        assert not plain(x).requires_grad and M.is_grad_enabled()


@pytest.mark.parametrize("args", [("cpu",), ("cuda",), ("cuda", 1), ("cuda:2",), ("cpu", 0)])
def test_device_objects_match_torchs(args):
    ours, theirs = ag.device(*args), torch.device(*args)
    assert (ours.type, ours.index, str(ours)) == (theirs.type, theirs.index, str(theirs))


@pytest.mark.parametrize("args", [("gpu",), ("cuda:x",), ("cuda:1", 2), ("CPU",)])
def test_device_refuses_what_torch_refuses(args):
    with pytest.raises(RuntimeError):
        torch.device(*args)
    with pytest.raises(RuntimeError, match="device"):
        ag.device(*args)


def test_a_device_object_goes_where_a_device_name_goes():
    dev = ag.device("cuda" if ag.cuda.is_available() else "cpu")
    x = ag.ones(2).to(dev)
    assert x.device == ag.zeros(2, device=dev).device and x.get_device() == (-1 if dev.type == "cpu" else 0)
    assert x.is_cuda == (dev.type == "cuda")


def test_cuda_answers_and_its_seeds_change_no_draw():
    available = ag.cuda.is_available()
    assert (ag.cuda.device_count() >= 1) == available
    if not available:
        with pytest.raises(RuntimeError, match="no GPU"):
            ag.cuda.current_device()
    ag.cuda.synchronize()
    ag.manual_seed(3)
    a = _values(ag.randn(4))
    ag.manual_seed(3)
    ag.cuda.manual_seed(99)
    ag.cuda.manual_seed_all(99)
    np.testing.assert_array_equal(_values(ag.randn(4)), a)
    with pytest.raises(ValueError):
        ag.cuda.manual_seed(2**64)


# -- broadcasting, new tensors, clamp_min/max -------------------------------------------------------

@pytest.mark.parametrize("shapes", [((2, 1), (3,)), (2, (3, 1)), ((1, 4), (5, 1), (4,)), ((0, 1), (3,))])
def test_broadcast_shapes_matches_torch(shapes):
    assert ag.broadcast_shapes(*shapes) == tuple(torch.broadcast_shapes(*shapes))


def test_broadcast_errors_match_torch():
    with pytest.raises(RuntimeError):
        torch.broadcast_shapes((2,), (3,))
    with pytest.raises(RuntimeError, match="do not broadcast"):
        ag.broadcast_shapes((2,), (3,))
    with pytest.raises(RuntimeError):
        ag.broadcast_tensors(ag.ones(2), ag.ones(3))


def test_broadcast_tensors_values_and_gradients_match_torch():
    rng = np.random.default_rng(0)
    a, b, w = rng.standard_normal((2, 1)), rng.standard_normal((3,)), rng.standard_normal((2, 3))
    results = []
    for M in (ag, torch):
        x, y = M.tensor(a, requires_grad=True), M.tensor(b, requires_grad=True)
        bx, by = M.broadcast_tensors(x, y)
        (bx * by * M.tensor(w)).sum().backward()
        results.append([np.asarray(_values(v) if M is ag else v.detach().numpy()) for v in (bx, by, x.grad, y.grad)])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


@pytest.mark.filterwarnings("ignore:To copy construct from a tensor")
@pytest.mark.parametrize("call", [
    lambda t, M: t.new_zeros(2, 3), lambda t, M: t.new_ones((4,)), lambda t, M: t.new_empty(2),
    lambda t, M: t.new_full((2,), 7), lambda t, M: t.new_tensor([1, 2]),
    lambda t, M: t.new_zeros(2, dtype=M.int64), lambda t, M: t.new_ones(3, requires_grad=True),
    lambda t, M: t.new_tensor(t), lambda t, M: t.clamp_min(0.5), lambda t, M: t.clamp_max(0.5),
    lambda t, M: M.clamp_min(t, 0.5), lambda t, M: M.clamp_max(t, M.tensor(0.2, dtype=M.float64)),
], ids=["new_zeros", "new_ones", "new_empty", "new_full", "new_tensor", "new_zeros-dtype", "new_ones-grad",
        "new_tensor-of-tensor", "clamp_min", "clamp_max", "clamp_min-function", "clamp_max-tensor"])
def test_tensor_helpers_match_torch(call, request):
    data = np.array([0.1, 0.6, 0.9])
    ours, theirs = call(ag.tensor(data), ag), call(torch.tensor(data), torch)
    _kind(ours, theirs)
    if "new_empty" not in request.node.name:     # (torch's new_empty is whatever the memory held)
        np.testing.assert_array_equal(_values(ours), theirs.detach().numpy())


def test_new_tensor_copies_and_clamp_min_has_torchs_gradient():
    t = ag.tensor([1.0, 2.0])
    for M, source in ((ag, t), (torch, torch.ones(2))):
        with pytest.warns(UserWarning, match="detach"):   # (both libraries point to detach().clone())
            source.new_tensor(source)
    with pytest.warns(UserWarning):
        copy = t.new_tensor(t)
    copy.data[0] = 9
    assert _values(t)[0] == 1 and copy.grad_fn is None
    grads = []
    for M in (ag, torch):
        x = M.tensor([0.2, 0.5, 0.9], dtype=M.float64, requires_grad=True)
        (x.clamp_min(0.5) * M.tensor([1.0, 2.0, 3.0], dtype=M.float64)).sum().backward()
        grads.append(_values(x.grad) if M is ag else x.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])


def test_size_questions_match_torch():
    for M in (ag, torch):
        t = M.zeros(2, 3, dtype=M.float64)
        on_gpu = M is ag and t.device != "cpu"      # (the stand-in-GPU pass makes tensors on cuda:0)
        assert (M.numel(t), t.nelement(), t.element_size(), t.get_device()) == (6, 6, 8, 0 if on_gpu else -1)
        assert t.is_cuda is on_gpu


def test_variable_is_a_new_leaf_sharing_memory_as_torchs():
    for M in (ag, torch):
        t = M.ones(2)
        v = M.autograd.Variable(t, requires_grad=True)
        assert v is not t and v.requires_grad and not t.requires_grad and v.is_leaf
        assert isinstance(t, M.autograd.Variable)
        y = M.ones(2, requires_grad=True) * 3
        z = M.autograd.Variable(y)
        assert z.grad_fn is None and not z.requires_grad
        with M.no_grad():
            v[0] = 5.0
        assert t[0].item() == 5.0                          # (the same memory)
        with pytest.raises(TypeError, match="tensor"):
            M.autograd.Variable([1.0, 2.0])
    with pytest.warns(UserWarning, match="no_grad"):
        ag.autograd.Variable(ag.ones(1), volatile=True)
    assert ag.autograd.inference_mode is ag.inference_mode


# -- from a second review against torch 2.13 -------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda M: M.zeros(10, dtype=M.uint8).random_(300), lambda M: M.randint_like(M.zeros(3, dtype=M.uint8), 300),
    lambda M: M.randint_like(M.zeros(3, dtype=M.uint8), -3, 5), lambda M: M.zeros(3, dtype=M.bool).random_(3),
    lambda M: M.normal(0.0, float("nan"), (2,)), lambda M: M.normal(0.0, 1.0, 3), lambda M: M.empty(),
    lambda M: M.ones(2).new_zeros(), lambda M: M.zeros(2).uniform_(3, 2),
    lambda M: M.multinomial(M.ones(2 ** 24 + 1), 1),
], ids=["random_-uint8", "randint_like-uint8", "randint_like-negative", "random_-bool", "normal-nan-std",
        "normal-int-size", "empty-no-size", "new_zeros-no-size", "uniform_-reversed", "multinomial-categories"])
def test_draws_refuse_what_torch_refuses_too(call):
    both_raise(lambda: call(ag), lambda: call(torch))


@pytest.mark.parametrize("dtype, top", [("int64", 2 ** 63), ("int8", 128), ("uint8", 256), ("float32", 2 ** 24 + 1),
                                        ("float16", 2 ** 11 + 1), ("bool", 2)])
def test_random_without_bounds_fills_the_dtypes_whole_numbers_as_torch(dtype, top):
    values = _values(getattr(ag.zeros(2000, dtype=getattr(ag, dtype)), "random_")()).astype(np.float64)
    theirs = torch.zeros(2000, dtype=getattr(torch, dtype)).random_().double().numpy()
    for v in (values, theirs):
        assert v.min() >= 0 and v.max() < top and np.all(v == np.round(v)) and len(np.unique(v)) > 1


def test_bernoulli_of_integers_with_p_and_poisson_of_inf():
    _kind(ag.bernoulli(ag.tensor([1, 0]), 0.5), torch.bernoulli(torch.tensor([1, 0]), 0.5))
    with pytest.raises(RuntimeError, match="finite"):
        ag.poisson(ag.tensor([float("inf")]))


@pytest.mark.parametrize("data", [[2 ** 63, 1], [10 ** 20]], ids=["above-int64", "huge"])
def test_a_python_int_beyond_int64_is_refused_as_torch(data):
    both_raise(lambda: ag.tensor(data), lambda: torch.tensor(data))


def test_a_huge_int_among_floats_is_a_float_as_torch():
    _kind(ag.tensor([10 ** 20, 1.5]), torch.tensor([10 ** 20, 1.5]))


def test_trunc_normal_far_from_its_mean_returns_in_bounds_with_torchs_warning():
    for M in (ag, torch):
        with pytest.warns(UserWarning, match="more than 2 std"):
            values = _values(M.nn.init.trunc_normal_(M.empty(50), mean=0.0, std=1.0, a=10.0, b=11.0))
        assert values.min() >= 10.0 and values.max() <= 11.0
    ag.manual_seed(1)
    tail = _values(ag.nn.init.trunc_normal_(ag.empty(100000), a=1.0, b=3.0))
    assert abs(tail.mean() - 1.5100) < 0.01 and tail.min() >= 1.0 and tail.max() <= 3.0   # (the tail's mean)
    with pytest.warns(UserWarning):
        assert _values(ag.nn.init.trunc_normal_(ag.empty(3), mean=5.0, std=0.0, a=0.0, b=1.0)).tolist() == [1.0] * 3


def test_a_tensors_device_is_a_device_object_as_torchs():
    for M in (ag, torch):
        x = M.ones(2, device="cpu")
        for t in (x, x + 1, x.sum(), M.tensor([1.0], device="cpu"), x.detach(), x.clone(), x.to("cpu"), x.cpu()):
            assert t.device.type == "cpu" and t.device.index is None and repr(t.device) == "device(type='cpu')"
    ours = ag.ones(2, device="cpu")
    assert ours.device == "cpu" and str(ours.device) == "cpu" and {ours.device: 1}["cpu"] == 1   # (a str too)
    if ag.cuda.is_available():
        gpu = ag.ones(2, device="cuda")
        assert (gpu.device.type, gpu.device.index, gpu.device) == ("cuda", 0, "cuda:0")
