"""``autogradlab.Generator`` (PyTorch's ``torch.Generator``) and ``generator=`` wherever PyTorch takes it:
``rand``, ``randn``, ``randint`` (both of PyTorch's forms), ``randperm``, ``nn.init``, ``DataLoader`` and
``random_split``. A generator's stream is its own: the same seed gives the same numbers whatever the library
generator draws in between. (The numbers themselves are NumPy's, not PyTorch's.)"""
from __future__ import annotations

import inspect

import numpy as np
import pytest
from conftest import host, import_torch
from torch_compare import both_raise

import autogradlab as ag
from autogradlab import nn
from autogradlab.utils.data import DataLoader, TensorDataset, random_split

torch = import_torch()


def _draws(g):
    return [host(ag.rand(3, generator=g).data).tolist(), host(ag.randn(2, 2, generator=g).data).tolist(),
            host(ag.randint(0, 10, (4,), generator=g).data).tolist(), host(ag.randperm(5, generator=g).data).tolist()]


def test_a_generator_repeats_its_stream_whatever_the_library_draws():
    first = _draws(ag.Generator().manual_seed(7))
    ag.manual_seed(0)
    g = ag.Generator().manual_seed(7)
    ag.randn(100)                       # the library's stream moves on; g's does not
    assert _draws(g) == first
    assert _draws(ag.Generator().manual_seed(8)) != first


def test_manual_seed_returns_the_generator_and_its_seed_as_torch():
    g = ag.Generator()
    assert g.manual_seed(3) is g and g.initial_seed() == 3
    assert ag.Generator().initial_seed() == torch.Generator().initial_seed()   # PyTorch's default seed
    default = ag.manual_seed(5)
    assert isinstance(default, ag.Generator) and default.initial_seed() == 5
    assert isinstance(torch.manual_seed(5), torch.Generator)
    a = host(ag.randn(3).data)
    ag.manual_seed(5)
    np.testing.assert_array_equal(host(ag.randn(3).data), a)
    fresh = g.seed()
    assert isinstance(fresh, int) and g.initial_seed() == fresh
    with pytest.raises(RuntimeError, match="int seed"):
        g.manual_seed(1.5)
    with pytest.raises(RuntimeError):
        torch.Generator().manual_seed(1.5)


@pytest.mark.parametrize("call", [
    lambda M: M.randint(10, (3,)), lambda M: M.randint(2, 5, (2, 2)), lambda M: M.randint(10, size=(4,)),
    lambda M: M.randint(low=1, high=3, size=(5,)), lambda M: M.randint(4, (2,), dtype=M.int32),
    lambda M: M.randperm(6), lambda M: M.randperm(3, dtype=M.int32),
], ids=["high-size", "low-high-size", "size-keyword", "all-keywords", "dtype", "randperm", "randperm-dtype"])
def test_randint_and_randperm_take_torchs_forms(call):
    ours, theirs = call(ag), call(torch)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
    values = host(ours.data)
    assert values.min() >= 0 and values.max() < 10


def test_randint_without_a_size_says_how_to_write_it():
    with pytest.raises(TypeError, match=r"randint\(high, \(n,\)\)"):
        ag.randint(10)
    with pytest.raises(TypeError):
        torch.randint(10)


@pytest.mark.parametrize("name", ["rand", "randn", "randint", "randperm"])
def test_generator_is_a_keyword_as_in_torch(name):
    ours = inspect.signature(getattr(ag, name)).parameters["generator"]
    assert ours.kind is inspect.Parameter.KEYWORD_ONLY and ours.default is None


@pytest.mark.parametrize("init", ["uniform_", "normal_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
                                  "kaiming_normal_"])
def test_nn_init_takes_a_generator(init):
    def filled(seed):
        w = ag.zeros(4, 3)
        getattr(nn.init, init)(w, generator=ag.Generator().manual_seed(seed))
        return host(w.data)
    np.testing.assert_array_equal(filled(1), filled(1))
    assert not np.array_equal(filled(1), filled(2))
    assert "generator" in inspect.signature(getattr(torch.nn.init, init)).parameters


def test_data_splits_and_shuffles_repeat_with_a_generator():
    ds = TensorDataset(ag.arange(20.0), ag.arange(20))
    parts = [[int(i) for i in s.indices] for s in random_split(ds, [0.5, 0.5], generator=ag.Generator().manual_seed(3))]
    ag.randn(10)
    again = [[int(i) for i in s.indices] for s in random_split(ds, [0.5, 0.5], generator=ag.Generator().manual_seed(3))]
    assert parts == again and sorted(parts[0] + parts[1]) == list(range(20))

    def epoch(seed):
        loader = DataLoader(ds, batch_size=6, shuffle=True, generator=ag.Generator().manual_seed(seed))
        return [host(yb.data).tolist() for _, yb in loader]
    assert epoch(4) == epoch(4) and epoch(4) != epoch(5)


def test_a_generator_of_another_library_is_refused_with_what_to_pass():
    with pytest.raises(TypeError, match=r"autogradlab.Generator\(\)\.manual_seed"):
        ag.randn(2, generator=torch.Generator())
    with pytest.raises(TypeError, match=r"random_split: generator="):
        random_split(TensorDataset(ag.arange(4.0)), [2, 2], generator=torch.Generator())


@pytest.mark.parametrize("seed", [1.5, True, "7", -1, -2**63, 2**64 - 1, np.int64(3)],
                         ids=["float", "bool", "str", "minus-one", "lowest", "highest", "numpy-int"])
def test_the_module_manual_seed_takes_what_torchs_takes(seed):
    assert ag.manual_seed(seed).initial_seed() == torch.manual_seed(seed).initial_seed()
    assert ag.initial_seed() == torch.initial_seed()


@pytest.mark.parametrize("seed", [2**64, -2**63 - 1, "x", None], ids=["too-high", "too-low", "not-a-number", "none"])
def test_the_module_manual_seed_refuses_what_torch_refuses(seed):
    ag.manual_seed(11)
    with pytest.raises(Exception) as theirs:
        torch.manual_seed(seed)
    with pytest.raises(type(theirs.value)):
        ag.manual_seed(seed)
    assert ag.initial_seed() == 11                  # a refused seed leaves the generator as it was


def test_a_generators_negative_seed_wraps_as_torchs():
    assert ag.Generator().manual_seed(-5).initial_seed() == torch.Generator().manual_seed(-5).initial_seed()
    with pytest.raises(RuntimeError):
        ag.Generator().manual_seed(True)
    with pytest.raises(RuntimeError):
        torch.Generator().manual_seed(True)


def test_rng_state_round_trips_as_torchs():
    for M in (ag, torch):
        M.manual_seed(2)
        M.randn(5)
        state = M.get_rng_state()
        assert state.dtype == M.uint8 and state.ndim == 1
        first = host(M.randn(4).data if M is ag else M.randn(4).numpy())
        M.randn(7)
        M.set_rng_state(state)
        np.testing.assert_array_equal(host(M.randn(4).data if M is ag else M.randn(4).numpy()), first)


def test_a_generators_state_moves_to_another_generator():
    g = ag.Generator().manual_seed(9)
    ag.rand(3, generator=g)
    state = g.get_state()
    expected = host(ag.rand(6, generator=g).data)
    other = ag.Generator()
    assert other.set_state(state) is other and other.initial_seed() == 9
    np.testing.assert_array_equal(host(ag.rand(6, generator=other).data), expected)


def test_a_state_that_is_not_ours_is_refused_before_anything_changes():
    g = ag.Generator().manual_seed(4)
    expected = host(ag.rand(3, generator=ag.Generator().manual_seed(4)).data)
    with pytest.raises(TypeError, match="uint8 tensor"):
        g.set_state([1, 2, 3])
    with pytest.raises(TypeError, match="uint8 tensor"):
        g.set_state(ag.zeros(45))
    with pytest.raises(RuntimeError, match="45 bytes"):
        g.set_state(ag.tensor(host(torch.get_rng_state().numpy())))
    np.testing.assert_array_equal(host(ag.rand(3, generator=g).data), expected)
    with pytest.raises(TypeError):
        torch.Generator().set_state([1, 2, 3])


def test_seed_draws_a_fresh_seed_and_reports_it():
    fresh = ag.seed()
    assert isinstance(fresh, int) and ag.initial_seed() == fresh
    assert isinstance(torch.seed(), int)


@pytest.mark.parametrize("call", [
    lambda M: M.randint(10, 3), lambda M: M.randint(5, 2, (3,)), lambda M: M.randint(0, (3,)),
    lambda M: M.randint(3.5, (2,)), lambda M: M.randint(True, (2,)), lambda M: M.randperm(-1),
    lambda M: M.randperm(2.0), lambda M: M.rand(-1), lambda M: M.randn(2, -1), lambda M: M.zeros(2.0),
    lambda M: M.ones((2, -3)), lambda M: M.randint(4, (2.0,)),
], ids=["size-int", "low-above-high", "high-zero", "float-high", "bool-high", "randperm-negative",
        "randperm-float", "rand-negative", "randn-negative", "zeros-float", "ones-negative", "float-in-size"])
def test_factories_refuse_what_torch_refuses(call):
    both_raise(lambda: call(ag), lambda: call(torch))


def test_factories_take_numpy_ints_and_0d_integer_tensors_as_torch():
    assert tuple(ag.zeros(np.int64(2), 3).shape) == (2, 3)
    assert tuple(ag.randint(ag.tensor(3), (4,)).shape) == (4,) and host(ag.randint(ag.tensor(3), (4,)).data).max() < 3
    assert sorted(host(ag.randperm(ag.tensor(4)).data).tolist()) == [0, 1, 2, 3]
    assert tuple(torch.randint(torch.tensor(3), (4,)).shape) == (4,)


@pytest.mark.parametrize("call", [
    lambda M: M.randint(-5, 5, (8,), dtype=M.uint8), lambda M: M.randint(0, 1000, (5,), dtype=M.int8),
    lambda M: M.randint(0, 10, (8,), dtype=M.bool), lambda M: M.randperm(300, dtype=M.uint8),
    lambda M: M.randint(2**63, (1,)), lambda M: M.randperm(3000, dtype=M.float16),
], ids=["uint8-negative", "int8-too-high", "bool-too-high", "randperm-uint8", "int64-overflow", "randperm-float16"])
def test_draws_a_dtype_cannot_hold_are_refused_as_torch(call):
    ag.manual_seed(1)
    expected = host(ag.rand(2).data)
    with pytest.raises(Exception) as theirs:
        call(torch)
    ag.manual_seed(1)
    with pytest.raises(type(theirs.value)):
        call(ag)
    np.testing.assert_array_equal(host(ag.rand(2).data), expected)   # (refused before the stream moved)


@pytest.mark.parametrize("call", [lambda M: M.randint(0, 2, (50,), dtype=M.bool),
                                  lambda M: M.randperm(256, dtype=M.uint8), lambda M: M.randint(-128, 128, (50,),
                                                                                                 dtype=M.int8)],
                         ids=["bool", "randperm-uint8-256", "int8-full-range"])
def test_draws_that_fit_their_dtype_are_taken_as_torch(call):
    ours, theirs = call(ag), call(torch)
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.") and tuple(ours.shape) == tuple(theirs.shape)


def test_a_changed_state_is_refused():
    state = host(ag.Generator().manual_seed(2).get_state().data).copy()
    for position, value in ((32, 7), (16, 0)):            # the cached-half flag; an even increment
        bad = state.copy()
        bad[position] = value
        if position == 16:
            bad[16:32] = 0
        with pytest.raises(RuntimeError, match="get_state"):
            ag.Generator().set_state(ag.tensor(bad))
