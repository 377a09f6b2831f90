"""A second round of differential checks against torch 2.13: where lab code written here would not run, or
would run differently, under torch. Each finding is fixed and checked side by side with torch."""
import numpy as np
import pytest
from conftest import import_torch
from torch_compare import both_raise, same_results

import autogradlab as ag

torch = import_torch()


@pytest.mark.parametrize("index", [slice(None, None, -1), slice(4, 0, -2), slice(None, None, 0),
                                   (slice(None), slice(None, None, -1))])
def test_a_slice_step_below_1_is_refused_in_reads_and_writes_as_torch(index):
    def read(T):
        return T.ones(5, 5)[index]

    def write(T):
        x = T.ones(5, 5)
        x[index] = 2.0
    both_raise(lambda: read(ag), lambda: read(torch))
    x = ag.ones(5, 5, requires_grad=True)
    before = x * 1
    both_raise(lambda: write(ag), lambda: write(torch))
    both_raise(lambda: before.__setitem__(index, 3.0), lambda: torch.ones(5, 5).__setitem__(index, 3.0))
    assert (before.detach().numpy() == 1).all()   # (refused before anything was written)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumsum_gradient_sums_from_the_end_without_a_negative_step_as_torch(dim):
    a = np.random.default_rng(3).normal(size=(3, 4))

    def run(T):
        x = T.tensor(a, requires_grad=True)
        y = x.cumsum(dim)
        (g,) = T.autograd.grad((y * y).sum(), x, create_graph=True)
        (gg,) = T.autograd.grad((g * g).sum(), x)
        return y, g, gg
    same_results(run)


# -- names lab code meets: asarray, frombuffer, the old init and clipping names, StackDataset -------------

ASARRAY = {
    "a list of ints and floats": lambda T: T.asarray([1, 2.5]),
    "an int": lambda T: T.asarray(3),
    "a bool": lambda T: T.asarray(True),
    "a NumPy float64 number": lambda T: T.asarray(np.float64(2.0)),
    "a NumPy int array": lambda T: T.asarray(np.arange(3)),
    "a list to float64": lambda T: T.asarray([1, 2], dtype=T.float64),
    "a list of 0-d tensors": lambda T: T.asarray([T.tensor(1.0), T.tensor(2.0)]),
    "a NumPy array to float32": lambda T: T.asarray(np.arange(3.0), dtype=T.float32),
    "a bytearray as uint8": lambda T: T.asarray(bytearray(b"\x01\x02\x03"), dtype=T.uint8),
    "a bytearray as int16": lambda T: T.frombuffer(bytearray(b"\x01\x02\x03\x04"), dtype=T.int16, offset=2),
}


@pytest.mark.parametrize("name", list(ASARRAY))
def test_asarray_and_frombuffer_make_torchs_tensors(name):
    same_results(ASARRAY[name])


def test_asarray_shares_memory_and_history_as_torch():
    for T in (ag, torch):
        n = np.arange(3.0)
        shared = T.asarray(n)
        n[0] = 5.0
        assert shared.tolist() == [5.0, 1.0, 2.0] and shared.dtype == T.float64
        x = T.ones(3, requires_grad=True)
        y = x * 2
        with pytest.warns(UserWarning, match="unspecified requires_grad"):
            assert T.asarray(y) is y
        detached = T.asarray(y, requires_grad=False)
        assert detached.grad_fn is None and not detached.requires_grad
        detached[0] = 7.0   # (the same memory as y)
        assert y[0].item() == 7.0
        leaf = T.asarray(T.ones(2), requires_grad=True)
        assert leaf.is_leaf and leaf.requires_grad
        copied = T.asarray(x, copy=True, requires_grad=True)
        assert copied.grad_fn is not None and not copied.is_leaf
        (copied * 3).sum().backward()
        assert x.grad.tolist() == [3.0, 3.0, 3.0]
        buffer = bytearray(b"\x01\x02")
        T.frombuffer(buffer, dtype=T.uint8)[1] = 9   # (writes reach the buffer)
        assert buffer == bytearray(b"\x01\x09")


@pytest.mark.parametrize("call", [
    lambda T: T.asarray(np.arange(3.0), dtype=T.float32, copy=False),
    lambda T: T.asarray([1.0, 2.0], copy=False),
    lambda T: T.asarray([1, 2], requires_grad=True),
    lambda T: T.asarray(bytearray(b"\x01\x02")),
    lambda T: T.frombuffer(bytearray(b"\x01\x02"), dtype=T.uint8, offset=2),
    lambda T: T.frombuffer(bytearray(b"\x01\x02"), dtype=T.uint8, count=3),
], ids=["copy-false-cast", "copy-false-list", "ints-requiring-grad", "odd-buffer", "offset-past-end", "count-too-big"])
def test_asarray_and_frombuffer_refuse_as_torch(call):
    both_raise(lambda: call(ag), lambda: call(torch))


@pytest.mark.parametrize("name", ["uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal",
                                  "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse"])
def test_the_old_init_names_warn_and_do_what_the_new_ones_do_as_torch(name):
    args = {"constant": (0.5,), "sparse": (0.5,)}.get(name, ())
    shape = (4, 2, 3) if name == "dirac" else (4, 3)
    for T in (ag, torch):
        T.manual_seed(0)
        new = getattr(T.nn.init, name + "_")(T.empty(shape), *args)
        T.manual_seed(0)
        with pytest.warns(FutureWarning, match=f"nn.init.{name}` is now deprecated"):
            old = getattr(T.nn.init, name)(T.empty(shape), *args)
        assert old.tolist() == new.tolist()


def test_clip_grad_norm_old_name_and_clip_grads_with_norm_as_torch():
    w = np.random.default_rng(0).normal(size=(3, 4))

    def run(T):
        p, q = T.tensor(w, requires_grad=True), T.tensor(w[0], requires_grad=True)
        (p.pow(3).sum() + (q * 5).sum()).backward()
        with pytest.warns(FutureWarning, match="clip_grad_norm_"):
            total = T.nn.utils.clip_grad_norm([p, q], 2.0)
        r = T.tensor(w, requires_grad=True)
        (r * 4).sum().backward()
        T.nn.utils.clip_grads_with_norm_([r], 1.0, T.nn.utils.get_total_norm([r.grad]))
        return total, p.grad, q.grad, r.grad
    same_results(run)


def test_stack_dataset_pairs_datasets_by_index_as_torch():
    x, y = np.arange(12.0).reshape(6, 2), np.arange(6)
    for T in (ag, torch):
        D = T.utils.data
        tuples = D.StackDataset(D.TensorDataset(T.tensor(x)), T.tensor(y))
        named = D.StackDataset(features=T.tensor(x), label=T.tensor(y))
        assert len(tuples) == len(named) == 6
        (features,), label = tuples[4]
        assert features.tolist() == x[4].tolist() and label.item() == 4
        assert sorted(named[2]) == ["features", "label"]
        batches = list(D.DataLoader(named, batch_size=4))
        assert [b["label"].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5]]
        assert batches[0]["features"].shape == (4, 2)
        assert [len(b) for b in named.__getitems__([0, 5])] == [2, 2]
        assert D.get_worker_info() is None   # (in the main process)
    for call in (lambda T: T.utils.data.StackDataset(T.ones(2), label=T.ones(2)),
                 lambda T: T.utils.data.StackDataset(),
                 lambda T: T.utils.data.StackDataset(T.ones(2), T.ones(3))):
        both_raise(lambda: call(ag), lambda: call(torch))


def test_inf_and_nan_come_silently_as_in_torch_and_numpy_elsewhere_still_warns():
    """Run with warnings as errors (``python -W error``): autogradlab's ops make inf and nan without NumPy's
    RuntimeWarnings, as torch does; NumPy called from the program itself still warns."""
    import os
    import subprocess
    import sys
    program = """
import numpy as np
import autogradlab as A
x = A.tensor([0.0, 1.0, -1.0], requires_grad=True)
y = A.log(x) + x.sqrt() + 1 / x + A.tensor([1e40, 1.0], dtype=A.float32).sum() + A.tensor([]).mean()
y.sum().backward()
print(A.tensor([1.0]) // 0, A.tensor([1.0]) % 0, A.logspace(0, 40, 3), x.grad)
try:
    np.log(np.zeros(1))
except RuntimeWarning:
    print("numpy warns")
"""
    plain = {k: v for k, v in os.environ.items() if not k.startswith("AUTOGRADLAB_")}   # (NumPy, not a stand-in)
    done = subprocess.run([sys.executable, "-W", "error", "-c", program], capture_output=True, text=True,
                          timeout=120, env=plain)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("numpy warns")
    assert "inf" in done.stdout and "nan" in done.stdout


# -- autograd.functional: grad switched on inside, and torch's checks of v, strict and the strategy ----------

def _functional(T, name):
    AF, t = T.autograd.functional, T.tensor([1.0, 2.0], dtype=T.float64)

    def cube(x):
        return (x ** 3).sum()
    return {
        "jacobian": lambda: AF.jacobian(lambda x: x ** 2, t),
        "vjp": lambda: AF.vjp(lambda x: x ** 2, t, T.ones(2, dtype=T.float64))[1],
        "jvp": lambda: AF.jvp(lambda x: x ** 2, t, T.ones(2, dtype=T.float64))[1],
        "hessian": lambda: AF.hessian(cube, t),
        "hvp": lambda: AF.hvp(cube, t, T.ones(2, dtype=T.float64))[1],
        "vhp": lambda: AF.vhp(cube, t, T.ones(2, dtype=T.float64))[1],
        "forward-mode": lambda: AF.jacobian(lambda x: x ** 2, t, strategy="forward-mode", vectorize=True),
        "v for one of two outputs": lambda: AF.vjp(lambda x: (x * 2, x * 3), t, T.ones(2)),
        "v for one of two inputs": lambda: AF.jvp(lambda x, y: x * y, (t, t), T.ones(2)),
        "no v for two input elements": lambda: AF.hvp(cube, t),
        "v of the wrong size": lambda: AF.hvp(cube, t, v=T.tensor(1.0)),
        "strict, an output cut off": lambda: AF.jacobian(lambda x: x.detach() * 2, t, strict=True),
        "strict, a linear function's hessian": lambda: AF.hessian(lambda x: (x * 2).sum(), t, strict=True),
        "strict hvp of a linear function": lambda: AF.hvp(lambda x: (x * 2).sum(), t, T.ones(2), strict=True),
        "strict and vectorize": lambda: AF.jacobian(lambda x: x ** 2, t, vectorize=True, strict=True),
        "forward-mode without vectorize": lambda: AF.jacobian(lambda x: x ** 2, t, strategy="forward-mode"),
        "an unknown strategy": lambda: AF.jacobian(lambda x: x ** 2, t, strategy="sideways"),
        "a list of inputs": lambda: AF.jacobian(lambda x, y: x * y, [t, t]),
        "a number returned": lambda: AF.jacobian(lambda x: 3.0, t),
    }[name]


@pytest.mark.parametrize("name", ["jacobian", "vjp", "jvp", "hessian", "hvp", "vhp", "forward-mode"])
def test_functional_derivatives_record_even_under_no_grad_as_torch(name):
    def run(T):
        with T.no_grad():
            return _functional(T, name)()
    same_results(run)
    with ag.no_grad():
        _functional(ag, name)()
        assert not ag.is_grad_enabled()   # (the mode around the call is as it was)


@pytest.mark.parametrize("name", ["v for one of two outputs", "v for one of two inputs", "no v for two input elements",
                                  "v of the wrong size", "strict, an output cut off",
                                  "strict, a linear function's hessian", "strict hvp of a linear function",
                                  "strict and vectorize", "forward-mode without vectorize", "an unknown strategy",
                                  "a list of inputs", "a number returned"])
def test_functional_refuses_what_torch_refuses(name):
    both_raise(_functional(ag, name), _functional(torch, name))


# -- arange, linspace, logspace and full: torch's dtypes, values and checks ---------------------------------

ENDS = [(-1, 1, 11), (-1, 1, 21), (0, 1, 7), (2.25, -1, 1000), (-3.5, 10, 101), (0.1, 0.7, 3), (5, 5, 4), (-1, 1, 2),
        (1, -1, 1), (0, 1, 0), (-2.07, 4.13, 100)]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_linspace_makes_torchs_values_to_the_last_bit_so_it_prints_as_torch(dtype):
    for start, end, steps in ENDS:
        ours = ag.linspace(start, end, steps, dtype=getattr(ag, dtype), device="cpu")   # (it prints no device)
        theirs = torch.linspace(start, end, steps, dtype=getattr(torch, dtype))
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
        assert repr(ours).replace(f"dtype={dtype}", "") == repr(theirs).replace(f"dtype=torch.{dtype}", "")


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("base", [10.0, 2.0, 3.5])
def test_logspace_as_torch(dtype, base):
    for start, end, steps in [(0, 2.5, 3), (-2.5, 3.9, 5), (0, 1, 11), (-1, 1, 5), (1.7, -1, 1), (2, 0, 4)]:
        same_results(lambda T: T.logspace(start, end, steps, base=base, dtype=getattr(T, dtype)), rtol=1e-6)


ARANGE = {
    "a 0-d int tensor": lambda T: T.arange(T.tensor([[1.0, 2.0], [3.0, 4.0]]).gt(0).sum()),
    "a NumPy int": lambda T: T.arange(np.int64(3)),
    "a 0-d tensor step": lambda T: T.arange(0, 4, T.tensor(2)),
    "end=": lambda T: T.arange(end=4),
    "int64 with float ends and step": lambda T: T.arange(0.5, 3.7, 1.5, dtype=T.int64),
    "int64 with a step of 1.5": lambda T: T.arange(0, 5, 1.5, dtype=T.int64),
    "downwards": lambda T: T.arange(3, -2, -1.5),
    "full of a 0-d int tensor": lambda T: T.full((2,), T.tensor(3)),
    "full of a 0-d bool tensor": lambda T: T.full((2,), T.tensor(True)),
    "full of a NumPy int": lambda T: T.full((2,), np.int32(1)),
}


@pytest.mark.parametrize("name", list(ARANGE))
def test_arange_and_full_read_numbers_as_torch(name):
    same_results(ARANGE[name], rtol=0)


def test_arange_counts_each_float_from_the_start_as_torch():
    """``start + i * step`` (NumPy adds a rounded difference instead): -1.2 + 4 * 0.3 is 0, as in torch, so
    the range prints without scientific notation. (torch's vectorized kernel may differ in the last bit.)"""
    for T in (ag, torch):
        assert T.arange(-1.2, 1.2, 0.3)[4].item() == 0.0
        assert T.arange(1, 2, 0.1, dtype=T.float64)[2].item() == 1.2
    same_results(lambda T: T.arange(-1.2, 1.2, 0.3, dtype=T.float64), rtol=1e-12)
    same_results(lambda T: T.arange(0.1, 70.1, 0.7, dtype=T.float32), rtol=1e-6)


@pytest.mark.parametrize("call", [
    lambda T: T.arange(0, -1), lambda T: T.arange(1, 0, 0.1), lambda T: T.arange(0, 5, 0),
    lambda T: T.arange(0, 3, 0.7, dtype=T.int64), lambda T: T.arange(float("inf")), lambda T: T.arange(float("nan")),
    lambda T: T.arange(3, dtype=T.bool), lambda T: T.arange(T.tensor([3, 4])), lambda T: T.linspace(0, 1, 3, dtype=T.bool),
    lambda T: T.full((2,), None), lambda T: T.full((2,), [1, 2]), lambda T: T.linspace(0, 1, -1),
], ids=["end-below-start", "down-with-a-positive-step", "step-0", "int-step-0", "inf", "nan", "bool", "1-d-end",
        "bool-linspace", "fill-none", "fill-list", "negative-steps"])
def test_arange_linspace_and_full_refuse_as_torch(call):
    both_raise(lambda: call(ag), lambda: call(torch))


# -- integers: in-place ops across integer kinds, numbers that do not fit, random draws, ragged lists -------

@pytest.mark.parametrize("op", ["add_", "sub_", "mul_", "floor_divide_", "remainder_", "pow_", "__iadd__"])
def test_in_place_ops_on_uint8_take_signed_integers_and_wrap_as_torch(op):
    def run(T):
        x = T.tensor([200, 7, 9], dtype=T.uint8)
        return getattr(x, op)(T.tensor([100, 2, 3]))
    same_results(run, rtol=0)
    both_raise(lambda: ag.zeros(3, dtype=ag.int8).add_(ag.ones(3)), lambda: torch.zeros(3, dtype=torch.int8).add_(
        torch.ones(3)))


@pytest.mark.parametrize("call", [
    lambda T: T.tensor([300], dtype=T.uint8), lambda T: T.tensor([128], dtype=T.int8),
    lambda T: T.tensor([1e10], dtype=T.int32), lambda T: T.tensor([2 ** 31], dtype=T.int32),
    lambda T: T.tensor(-1.7, dtype=T.uint8), lambda T: T.tensor([float("nan")], dtype=T.int64),
    lambda T: T.full((1,), 128, dtype=T.int8), lambda T: T.tensor([1, 2], dtype=T.int8).new_tensor([1000]),
    lambda T: T.zeros(2, dtype=T.uint8).__setitem__(0, 300), lambda T: T.zeros(2, dtype=T.int8).fill_(-129),
], ids=["300-uint8", "128-int8", "1e10-int32", "2**31-int32", "-1.7-uint8", "nan-int64", "full-128-int8",
        "new_tensor-1000-int8", "setitem-300-uint8", "fill-minus-129-int8"])
def test_numbers_that_do_not_fit_an_integer_dtype_are_refused_as_torch(call):
    both_raise(lambda: call(ag), lambda: call(torch))


def test_negative_integers_wrap_into_unsigned_tensors_as_torch():
    def run(T):
        x = T.zeros(3, dtype=T.uint8)
        x[0] = -1
        x[1:].fill_(-2)
        return T.tensor([-1, 3], dtype=T.uint8), T.full((2,), -128, dtype=T.uint8), x
    same_results(run, rtol=0)


@pytest.mark.parametrize("call", [lambda T: T.rand(2, dtype=T.int64), lambda T: T.randn(2, dtype=T.int32),
                                  lambda T: T.rand(3, dtype=T.bool)], ids=["rand-int64", "randn-int32", "rand-bool"])
def test_random_floats_refuse_integer_dtypes_as_torch(call):
    both_raise(lambda: call(ag), lambda: call(torch))


def test_complex_random_draws_fill_both_parts_as_torch():
    ag.manual_seed(0)
    z = ag.randn(20000, dtype=ag.complex64)
    u = ag.rand(20000, dtype=ag.complex128)
    assert z.dtype == ag.complex64 and u.dtype == ag.complex128
    assert abs(z.abs().pow(2).mean().item() - 1) < 0.05          # (variance 1, as torch's: each part 1/2)
    assert abs(z.real.var().item() - 0.5) < 0.03 and abs(z.imag.var().item() - 0.5) < 0.03
    assert 0 <= u.imag.min().item() and u.imag.max().item() < 1 and abs(u.imag.mean().item() - 0.5) < 0.02
    tz = torch.randn(20000, dtype=torch.complex64)
    assert abs(tz.abs().pow(2).mean().item() - 1) < 0.05


@pytest.mark.parametrize("data", [[[1, 2], 3], [1, [2]], [[1, 2], [3]], [[[1]], [2]], [[1], [[2]]], [[1], []]],
                         ids=str)
def test_lists_that_are_not_a_grid_raise_torchs_class(data):
    both_raise(lambda: ag.tensor(data), lambda: torch.tensor(data))


# -- nn.Module: state_dict as torch's (views, every name, its options), containers' operators, names ---------

def _tied(T):
    enc, dec = T.nn.Embedding(5, 3), T.nn.Linear(3, 5, bias=False)
    dec.weight = enc.weight
    return T.nn.Sequential(enc, dec)


def test_state_dict_shares_memory_and_lists_every_name_as_torch():
    for T in (ag, torch):
        m = T.nn.Linear(2, 2)
        m.state_dict()["weight"].fill_(0.0)   # (the entries are the weights' memory, detached)
        assert m.weight.abs().sum().item() == 0
        assert not m.state_dict()["weight"].requires_grad
        assert type(m.state_dict(keep_vars=True)["weight"]).__name__ == "Parameter"
        assert list(m.state_dict(prefix="net.")) == ["net.weight", "net.bias"]
        assert hasattr(m.state_dict(), "_metadata")
        shared = T.nn.ModuleList([T.nn.Linear(1, 1)] * 2)
        assert list(shared.state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias"]
        assert list(_tied(T).state_dict()) == ["0.weight", "1.weight"]
        result = shared.load_state_dict({k: T.ones(v.shape) for k, v in shared.state_dict().items()})
        assert (result.missing_keys, result.unexpected_keys) == ([], [])
        assert len(list(shared.named_parameters(remove_duplicate=False))) == 4
        assert len(list(shared.named_parameters())) == 2
        assert len(list(shared.named_modules(remove_duplicate=False))) == 3
        m.load_state_dict(m.state_dict())   # (its own entries: nothing to copy)


def test_load_state_dict_assign_and_extra_state_as_torch():
    for T in (ag, torch):
        m = T.nn.Linear(1, 1)
        given = T.full((1, 1), 3.0)
        m.load_state_dict({"weight": given, "bias": T.ones(1)}, assign=True)
        assert type(m.weight).__name__ == "Parameter" and m.weight.requires_grad and m.weight.item() == 3.0

        class Counter(T.nn.Module):
            def __init__(self):
                super().__init__()
                self.k, self.lin = 3, T.nn.Linear(1, 1)

            def get_extra_state(self):
                return self.k

            def set_extra_state(self, state):
                self.k = state
        saved = Counter().state_dict()
        assert list(saved) == ["_extra_state", "lin.weight", "lin.bias"]
        other = Counter()
        other.k = 0
        other.load_state_dict(saved)
        assert other.k == 3
        missing = other.load_state_dict({k: v for k, v in saved.items() if k != "_extra_state"}, strict=False)
        assert missing.missing_keys == ["_extra_state"]


def test_a_plain_attribute_may_come_before_module_init_as_torch():
    for T in (ag, torch):
        class Early(T.nn.Module):
            def __init__(self, h):
                self.h = h
                super().__init__()

        class TooEarly(T.nn.Module):
            def __init__(self):
                self.layer = T.nn.ReLU()
                super().__init__()
        assert Early(4).h == 4
        with pytest.raises(AttributeError):
            TooEarly()


def test_container_operators_and_names_as_torch():
    for T in (ag, torch):
        nn = T.nn
        s = nn.Sequential(nn.ReLU()) + nn.Sequential(nn.Tanh())
        assert [type(m).__name__ for m in s] == ["ReLU", "Tanh"]
        assert len(s * 2) == len(2 * s) == 4 and (s * 2)[2] is s[0]
        s += nn.Sequential(nn.Sigmoid())
        s *= 2
        assert len(s) == 6 and [type(m).__name__ for m in s][3:] == ["ReLU", "Tanh", "Sigmoid"]
        for bad, error in [(lambda: s * 0, ValueError), (lambda: s * 1.5, TypeError), (lambda: s + nn.ReLU(), ValueError)]:
            with pytest.raises(error):
                bad()
        p = nn.ParameterList([nn.Parameter(T.ones(1))])
        p += [nn.Parameter(T.zeros(1))]
        assert len(p) == 2
        holder = nn.Module()
        holder.register_module("act", nn.ReLU())
        holder.add_module("slot", None)
        assert list(holder._modules) == ["act", "slot"] and "(slot): None" in repr(holder)
        listed = nn.ModuleList([nn.ReLU()])
        listed.insert(5, nn.Tanh())   # (past the end: appended, as list.insert does)
        assert [type(m).__name__ for m in listed] == ["ReLU", "Tanh"]
        assert nn.Linear(1, 1).type(T.float64).weight.dtype == T.float64


def test_default_collate_keeps_strings_of_tuple_samples_a_tuple_as_torch():
    import collections
    Pair = collections.namedtuple("Pair", "x label")
    for T in (ag, torch):
        collate = T.utils.data.default_collate
        assert collate([(1, "a"), (2, "b")])[1] == ("a", "b")
        assert collate([Pair(1, "a"), Pair(2, "b")]).label == ("a", "b")
        assert collate([{"s": "a"}, {"s": "b"}]) == {"s": ["a", "b"]}


# -- autograd: decorated generators, a Function's gradient for an input that needs none ----------------------

def test_a_grad_mode_decorator_on_a_generator_covers_each_of_its_steps_as_torch():
    for T in (ag, torch):
        x = T.tensor([1.0, 2.0], requires_grad=True)

        @T.no_grad()
        def evaluate():
            factor = yield (x * 2).requires_grad
            yield (x * factor).requires_grad, T.is_grad_enabled()
            return "done"
        steps = evaluate()
        assert next(steps) is False
        assert T.is_grad_enabled()   # (the caller's mode between the steps)
        assert steps.send(3) == (False, False)
        with pytest.raises(StopIteration) as finished:
            next(steps)
        assert finished.value.value == "done"

        @T.enable_grad()
        def recording():
            yield (x * 2).requires_grad
        with T.no_grad():
            assert list(recording()) == [True]


def _scale(T, gradient_of_b):
    """A Function ``a * b`` whose backward returns ``2 g`` for a and ``gradient_of_b(g)`` for b."""
    class Scale(T.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g * 2, gradient_of_b(g)
    return Scale


def test_a_functions_gradient_for_an_input_that_needs_none_is_dropped_unchecked_as_torch():
    def run(T):
        a, b = T.tensor([1.0, 2.0], requires_grad=True), T.tensor([1.0, 2.0])
        _scale(T, lambda g: g.sum()).apply(a, b).sum().backward()   # (the wrong shape for b, which needs none)
        return a.grad
    same_results(run)


def test_an_integer_or_bool_seed_is_cast_as_torch():
    def run(T):
        x = T.tensor([1.0, 2.0], requires_grad=True)
        (x * x).backward(T.tensor([1, 2]))
        (g,) = T.autograd.grad(x * x, x, T.tensor([True, False]))
        return x.grad, g
    same_results(run)


# -- distributions: 0-d parameters, float category indices, a PyTorch-style subclass, closed supports ------

ZERO_D = {
    "Poisson": lambda T: T.distributions.Poisson(T.tensor(3.0)),
    "Binomial": lambda T: T.distributions.Binomial(10, T.tensor(0.3)),
    "RelaxedBernoulli": lambda T: T.distributions.RelaxedBernoulli(T.tensor(0.5), T.tensor(0.3)),
    "RelaxedOneHotCategorical": lambda T: T.distributions.RelaxedOneHotCategorical(T.tensor(0.5),
                                                                                  T.tensor([0.2, 0.8])),
    "Gamma": lambda T: T.distributions.Gamma(T.tensor(2.0), T.tensor(3.0)),
}


@pytest.mark.parametrize("name", list(ZERO_D))
def test_samples_of_a_distribution_with_0d_parameters_have_torchs_shapes(name):
    for T in (ag, torch):
        d = ZERO_D[name](T)
        assert tuple(d.sample().shape) == tuple(ZERO_D[name](torch).sample().shape)
        assert tuple(d.sample((2, 3)).shape) == (2, 3) + tuple(ZERO_D[name](torch).batch_shape) + tuple(
            ZERO_D[name](torch).event_shape)


def test_categorical_takes_whole_float_indices_as_torch():
    def run(T):
        c = T.distributions.Categorical(logits=T.tensor([0.0, 1.0, 2.0], dtype=T.float64))
        return c.log_prob(T.tensor([2.0, 0.0], dtype=T.float64)), c.log_prob(T.tensor([2, 0])), c.perplexity()
    same_results(run)
    for value in ([1.5], [3.0]):
        both_raise(lambda: ag.distributions.Categorical(ag.tensor([0.2, 0.8])).log_prob(ag.tensor(value)),
                   lambda: torch.distributions.Categorical(torch.tensor([0.2, 0.8])).log_prob(torch.tensor(value)))


def _my_exponential(T):
    D, C = T.distributions, T.distributions.constraints

    class MyExponential(D.Distribution):
        arg_constraints = {"rate": C.positive}
        support = C.positive

        def __init__(self, rate, validate_args=None):
            self.rate = rate
            super().__init__(rate.shape, validate_args=validate_args)

        def log_prob(self, value):
            if self._validate_args:
                self._validate_sample(value)
            return T.log(self.rate) - self.rate * value
    return MyExponential


def test_a_distribution_subclass_written_for_torch_works_as_in_torch():
    for T in (ag, torch):
        MyExponential = _my_exponential(T)
        d = MyExponential(T.tensor([1.0, 2.0]))
        assert tuple(d._extended_shape((4,))) == (4, 2)
        assert repr(d).replace("torch.Size([2])", "(2,)") == "MyExponential(rate: (2,))"
        np.testing.assert_allclose(d.log_prob(T.tensor([1.0, 1.0])).tolist(), [-1.0, np.log(2) - 2], rtol=1e-6)
        assert MyExponential(T.tensor([-1.0]), validate_args=False).rate.item() == -1.0
    for call in (lambda T: _my_exponential(T)(T.tensor([-1.0, 2.0])),
                 lambda T: _my_exponential(T)(T.tensor([1.0, 2.0])).log_prob(T.tensor([-1.0, 1.0])),
                 lambda T: _my_exponential(T)(T.tensor([1.0, 2.0])).log_prob(T.tensor([1.0, 1.0, 1.0])),
                 lambda T: _my_exponential(T)(T.tensor([1.0, 2.0])).log_prob([1.0, 1.0])):
        both_raise(lambda: call(ag), lambda: call(torch))


def test_set_default_validate_args_and_sample_n_as_torch():
    for T in (ag, torch):
        D = T.distributions
        try:
            D.Distribution.set_default_validate_args(False)
            assert D.Normal(0.0, -1.0).scale.item() == -1.0   # (not checked)
        finally:
            D.Distribution.set_default_validate_args(True)
        with pytest.raises(ValueError):
            D.Normal(0.0, -1.0)
        with pytest.warns(FutureWarning):
            assert tuple(D.Normal(0.0, 1.0).sample_n(3).shape) == (3,)


@pytest.mark.parametrize("call", [
    lambda T: T.distributions.Kumaraswamy(2.0, 3.0).cdf(T.tensor(3.0)),
    lambda T: T.distributions.Pareto(1.0, 2.0).cdf(T.tensor(0.5)),
    lambda T: T.distributions.InverseGamma(2.0, 3.0).cdf(T.tensor(-0.5)),
    lambda T: T.distributions.ContinuousBernoulli(0.3).cdf(T.tensor(1.5)),
    lambda T: T.distributions.Uniform(0.0, 1.0).log_prob(T.tensor(1.5)),
], ids=["kumaraswamy", "pareto", "inverse-gamma", "continuous-bernoulli", "uniform-beyond-high"])
def test_values_outside_the_support_are_refused_as_torch(call):
    both_raise(lambda: call(ag), lambda: call(torch))


def test_uniforms_support_is_closed_as_torch():
    same_results(lambda T: T.distributions.Uniform(0.0, 1.0).log_prob(T.tensor([0.0, 1.0, 0.5])))


def _setter(tensor, value):
    tensor.requires_grad = value


@pytest.mark.parametrize("call", [
    lambda T: T.ones(2).requires_grad_(0), lambda T: T.tensor([1.0], requires_grad=1),
    lambda T: _setter(T.ones(2, requires_grad=True), 1), lambda T: _setter(T.ones(2, requires_grad=True) * 2, True),
    lambda T: _setter(T.ones(2, requires_grad=True) * 2, False), lambda T: T.set_grad_enabled(0),
    lambda T: T.set_grad_enabled("no"),
], ids=["requires_grad_-int", "tensor-requires_grad-int", "setter-int", "setter-non-leaf-true", "setter-non-leaf-false",
        "set_grad_enabled-int", "set_grad_enabled-str"])
def test_flags_must_be_bools_and_a_non_leafs_flag_stays_as_torch(call):
    try:
        both_raise(lambda: call(ag), lambda: call(torch))
    finally:
        ag.set_grad_enabled(True)
        torch.set_grad_enabled(True)
    y = ag.ones(2, requires_grad=True) * 2
    assert y.requires_grad_(True) is y   # (the method on a non-leaf that requires grad: allowed, as in torch)


def test_a_deep_copied_model_starts_without_gradients_and_random_split_takes_a_tensor_as_torch():
    import copy
    for T in (ag, torch):
        m = T.nn.Linear(1, 1)
        m(T.ones(1, 1)).sum().backward()
        twin = copy.deepcopy(T.nn.Sequential(m, m))
        assert twin[0].weight.grad is None and twin[0].weight is twin[1].weight
        assert type(twin[0].weight).__name__ == "Parameter" and twin[0].weight.requires_grad
        assert twin[0].weight.item() == m.weight.item() and m.weight.grad is not None
        assert [len(s) for s in T.utils.data.random_split(range(7), T.tensor([3, 4]))] == [3, 4]


LIST_INDICES = [[[0, 1], [1, 0]], [[1]], [[0], [2]], [0, [1, 2]], [slice(None), 1], [[True, False]], [[]], [[], []],
                [0, None], [0, ...]]


@pytest.mark.parametrize("index", LIST_INDICES, ids=str)
def test_a_short_list_holding_lists_slices_or_none_indexes_one_dim_each_as_torch(index):
    def run(T):
        t = T.arange(6.0, requires_grad=True).reshape(2, 3) * 1
        with pytest.warns(UserWarning, match="non-tuple sequence for multidimensional indexing"):
            picked = t[index]
        return picked
    same_results(run)


def test_the_list_index_warning_points_at_the_callers_line():
    import warnings
    t = ag.arange(6.0).reshape(2, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t[[[0, 1], [1, 0]]]
        t[ag.tensor([1, 0], dtype=ag.uint8)]
    assert [w.filename for w in caught] == [__file__, __file__]


def test_tensor_of_a_tensor_warns_as_torch_but_not_from_inside_the_library():
    for T in (ag, torch):
        with pytest.warns(UserWarning, match="To copy construct from a tensor"):
            copied = T.tensor(T.tensor([1.0, 2.0]))
        assert copied.tolist() == [1.0, 2.0]
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ag.nn.Parameter(ag.ones(2))
        ag.asarray(ag.ones(2), requires_grad=False)
        ag.utils.data.default_collate([ag.ones(2), ag.ones(2)])


# -- what a review of this round's changes found ------------------------------------------------------------

def test_clip_grad_norm_clips_through_a_parameters_generator_as_torch():
    def run(T):
        T.manual_seed(0)
        m = T.nn.Linear(3, 2, dtype=T.float64)
        with T.no_grad():
            m.weight.copy_(T.tensor(np.arange(6.0).reshape(2, 3)))
        (m(T.ones(4, 3, dtype=T.float64)) * 100).sum().backward()
        total = T.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
        return total, T.nn.utils.get_total_norm([p.grad for p in m.parameters()]), m.weight.grad
    same_results(run)


def test_logspace_float64_is_torchs_to_the_last_bit():
    """On every CPU: NumPy's vector power (AVX-512) rounds 10**2.5 the other way from the C library's pow,
    which torch calls per element."""
    for start, end, steps, base in [(0.1, 3.3, 5, 10.0), (-2.5, 3.9, 11, 10.0), (-1, 1, 7, 10.0), (-5, 5, 1001, 1.5),
                                    (0, 401, 3, -10.0), (0.5, 2.5, 3, -2.0), (-3, -1, 3, 0.0), (-3, -1, 3, -0.0),
                                    (-401, -399, 3, -10.0), (0, 2000, 3, 2.0)]:
        np.testing.assert_array_equal(ag.logspace(start, end, steps, base, dtype=ag.float64).numpy(),
                                      torch.logspace(start, end, steps, base, dtype=torch.float64).numpy())


def test_a_custom_optimizer_may_keep_state_named_mu_or_eta():
    class Momentum(ag.optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, {"lr": 0.1})

        def step(self):
            for group in self.param_groups:
                for p in group["params"]:
                    state = self.state[p]
                    if "mu" not in state:
                        state["mu"], state["eta"] = ag.zeros_like(p), ag.ones_like(p)
                    state["mu"].mul_(0.9).add_(p.grad)
                    p.data.sub_(0.1 * state["mu"] * state["eta"])
    w = ag.ones(3, requires_grad=True)
    opt = Momentum([w])
    (w * w).sum().backward()
    opt.step()
    opt.step()   # (the same gradient, 2: mu is 2, then 3.8)
    assert w.tolist() == pytest.approx([0.42] * 3) and opt.state[w]["mu"].tolist() == pytest.approx([3.8] * 3)
    opt.load_state_dict(opt.state_dict())
    assert opt.state[w]["eta"].tolist() == [1.0, 1.0, 1.0]


def test_a_distribution_without_arg_constraints_warns_as_torch():
    for T in (ag, torch):
        class Bare(T.distributions.Distribution):
            def __init__(self, p):
                self.p = p
                super().__init__()
        with pytest.warns(UserWarning, match="does not define `arg_constraints`"):
            assert Bare(T.tensor(0.5)).p.item() == 0.5


def test_deep_copies_of_lazy_layers_and_namedtuple_outputs_under_hooks():
    import collections
    import copy
    lazy = copy.deepcopy(ag.nn.LazyLinear(3))
    assert tuple(lazy(ag.ones(2, 4)).shape) == (2, 3)
    Out = collections.namedtuple("Out", "y z")
    for T in (ag, torch):
        class Two(T.nn.Module):
            def forward(self, a):
                return Out(a * 2, a * 3)
        m = Two()
        m.register_full_backward_hook(lambda *args: None)
        result = m(T.ones(2, requires_grad=True))
        assert type(result) is Out and result.y.tolist() == [2.0, 2.0]


def test_in_place_abs_of_a_complex_tensor_is_refused_as_torch():
    z = ag.tensor([1 + 1j])
    both_raise(lambda: z.abs_(), lambda: torch.tensor([1 + 1j]).abs_())
    assert z.tolist() == [1 + 1j]


def test_load_state_dict_from_another_view_of_the_same_memory_copies_it_right():
    lin = ag.nn.Linear(2, 2)
    before = lin.weight.detach().clone()
    ag.nn.Sequential(lin).load_state_dict({"0.weight": lin.weight.detach().t(), "0.bias": lin.bias.detach()})
    assert lin.weight.tolist() == before.t().tolist()


@pytest.mark.parametrize("call", [
    lambda T: T.tensor([-200, -255], dtype=T.uint8), lambda T: T.full((1,), -200, dtype=T.uint8),
    lambda T: T.zeros(1, dtype=T.uint8).fill_(-255)], ids=["tensor", "full", "fill_"])
def test_unsigned_tensors_take_negative_integers_down_to_minus_max_as_torch(call):
    same_results(call, rtol=0)


@pytest.mark.parametrize("call", [
    lambda T: T.tensor(2 ** 63), lambda T: T.tensor([2 ** 63], dtype=T.int64), lambda T: T.tensor(-2 ** 63 - 1),
    lambda T: T.zeros(1, dtype=T.int64).__setitem__(0, 2 ** 63), lambda T: T.tensor([-256], dtype=T.uint8),
    lambda T: T.linspace(0.001, 1000, 5, dtype=T.uint8)],
    ids=["2**63", "list-2**63", "-2**63-1", "setitem-2**63", "-256-uint8", "linspace-uint8"])
def test_integers_beyond_64_bits_or_the_dtype_raise_torchs_class(call):
    both_raise(lambda: call(ag), lambda: call(torch))


def test_asarray_of_a_buffer_copies_when_told():
    for T in (ag, torch):
        buffer = bytearray(b"\x01\x02")
        copied, shared = T.asarray(buffer, dtype=T.uint8, copy=True), T.asarray(buffer, dtype=T.uint8)
        buffer[0] = 9
        assert copied.tolist() == [1, 2] and shared.tolist() == [9, 2]


def test_a_functions_non_tensor_gradient_is_refused_even_for_an_input_that_needs_none():
    a = ag.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(TypeError, match="returned a float as the gradient at index 1"):
        _scale(ag, lambda g: 3.0).apply(a, ag.tensor([1.0, 2.0])).sum().backward()
    assert a.grad is None


# -- histogram and unique(dim=) -----------------------------------------------------------------------------

HISTOGRAMS = {
    "4 bins": lambda T, x: T.histogram(x, bins=4),
    "edges": lambda T, x: T.histogram(x, bins=T.tensor([0.0, 1.0, 2.5, 5.0], dtype=x.dtype)),
    "range, weights, density": lambda T, x: T.histogram(x, 3, range=(0.0, 3.0), weight=T.ones_like(x) * 2,
                                                        density=True),
    "method": lambda T, x: x.histogram(2),
    "no data": lambda T, x: T.histogram(x[:0], 3),
    "one value": lambda T, x: T.histogram(x[:1].expand(4), 3),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(HISTOGRAMS))
def test_histogram_as_torch(name, dtype):
    data = [1.0, 2.0, 1.0, 4.0, 2.5, 3.0, 0.3, 3.9]
    same_results(lambda T: tuple(HISTOGRAMS[name](T, T.tensor(data, dtype=getattr(T, dtype)))))
    result = ag.histogram(ag.tensor(data), 4)
    assert repr(result).startswith("autogradlab.return_types.histogram(\nhist=")


@pytest.mark.parametrize("call", [lambda T: T.histogram(T.tensor([1, 2]), 2),
                                  lambda T: T.histogram(T.tensor([1.0, 2.0]), 0),
                                  lambda T: T.histogram(T.tensor([1.0, 2.0]), 3, range=(3.0, 1.0))],
                         ids=["integers", "no-bins", "range-backwards"])
def test_histogram_refuses_as_torch(call):
    both_raise(lambda: call(ag), lambda: call(torch))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_unique_along_a_dim_as_torch(dim):
    rows = [[1, 2, 1], [3, 4, 3], [1, 2, 1], [0, 9, 0]]
    same_results(lambda T: T.unique(T.tensor(rows), dim=dim, return_inverse=True, return_counts=True), rtol=0)
    same_results(lambda T: T.unique(T.tensor(rows, dtype=T.float64), dim=dim), rtol=0)


@pytest.mark.parametrize("make", [lambda T: T.distributions.Normal(0.0, 1.0), lambda T: T.distributions.Laplace(0.0, 1.0),
                                  lambda T: T.distributions.MultivariateNormal(T.zeros(2), T.eye(2))],
                         ids=["normal", "laplace", "multivariate-normal"])
def test_log_prob_of_nan_is_refused_as_torch_unless_validation_is_off(make):
    def call(T):
        d = make(T)
        return d.log_prob(T.full(d.event_shape, float("nan")))
    both_raise(lambda: call(ag), lambda: call(torch))
    quiet = ag.distributions.Normal(0.0, 1.0, validate_args=False)
    assert np.isnan(quiet.log_prob(ag.tensor(float("nan"))).item())


INF = float("inf")


@pytest.mark.parametrize("given", [{"logits": [INF, 0.0]}, {"logits": [-INF, -INF]}, {"probs": [0.0, 0.0]},
                                   {"probs": [INF, 1.0]}, {"probs": [[0.2, 0.3], [0.0, 0.0]]}],
                         ids=["infinite-logit", "all-minus-infinity", "all-zero", "infinite-prob", "one-zero-row"])
def test_categorical_checks_its_parameter_once_normalised_as_torch(given):
    """An infinite logit or an all-zero row normalises to NaN: refused, as torch refuses it (not NaN probs)."""
    def make(T):
        return T.distributions.Categorical(**{k: T.tensor(v) for k, v in given.items()})
    both_raise(lambda: make(ag), lambda: make(torch))
    name, value = next(iter(given.items()))
    quiet = ag.distributions.Categorical(**{name: ag.tensor(value)}, validate_args=False)
    assert np.isnan(quiet.probs.numpy()).any()


def test_categorical_takes_minus_infinity_and_zero_as_torch():
    same_results(lambda T: T.distributions.Categorical(logits=T.tensor([-INF, 0.0, 1.0])).probs)
    same_results(lambda T: T.distributions.Categorical(probs=T.tensor([0.0, 3.0, 1.0])).probs)


def test_layout_and_the_is_sparse_family_answer_as_torch_for_dense_tensors():
    """Optimizers and helpers written for torch ask ``grad.is_sparse`` or ``t.layout == torch.strided``."""
    for T in (ag, torch):
        t = T.zeros(2, 3)
        assert t.layout == T.strided and t[:, 1].layout is T.strided and isinstance(T.strided, T.layout)
        assert not (t.is_sparse or t.is_sparse_csr or t.is_quantized or t.is_meta or t.is_mkldnn or t.is_nested)
    assert repr(ag.strided) == repr(torch.strided).replace("torch", "autogradlab")
    import pickle
    assert pickle.loads(pickle.dumps(ag.zeros(2).layout)) is ag.strided
