"""The ops that copy, pick or move elements (``repeat``, ``tile``, ``repeat_interleave``, ``roll``, ``narrow``,
``movedim``, ``swapaxes``, ``index_select``, ``diagonal``, ``diag``, ``meshgrid``, ``diff``) and ``atan2``,
``lerp``, ``addmm``, run in both libraries on the same data: values, dtypes, the gradient of every input
(float64, one random weighting of the output), finite differences, and the exception class torch raises."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import import_torch, shares_memory
from torch_compare import both_raise, close

import autogradlab as ag
from autogradlab.testing import gradcheck

torch = import_torch()


def _data(shape, seed, dtype="float64"):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _run(call_ag, call_torch, arrays, int_args=()):
    """Call both on float64 leaves made from ``arrays`` (plus integer tensors ``int_args``, given as they
    are), compare the outputs and the gradient of sum(out * w) for every leaf."""
    ours = [ag.tensor(a.copy(), requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a.copy(), requires_grad=True) for a in arrays]
    ints_ag = [ag.tensor(np.asarray(i)) for i in int_args]
    ints_t = [torch.tensor(np.asarray(i)) for i in int_args]
    out, tout = call_ag(*ours, *ints_ag), call_torch(*theirs, *ints_t)
    outs, touts = (out, tout) if isinstance(out, tuple) else ((out,), (tout,))
    assert len(outs) == len(touts)
    for o, t in zip(outs, touts):
        close(o, t, rtol=1e-12, atol=1e-12)
    w = [_data(t.shape, 99 + k) for k, t in enumerate(touts)]
    loss = sum((o * ag.tensor(wk)).sum() for o, wk in zip(outs, w))
    tloss = sum((t * torch.tensor(wk)).sum() for t, wk in zip(touts, w))
    if not tloss.requires_grad:
        return
    loss.backward()
    tloss.backward()
    for a, t in zip(ours, theirs):
        if t.grad is None or a.grad is None:   # (addmm with beta=0: no gradient here, zeros in torch)
            assert a.grad is None or not a.grad.numpy().any()
            assert t.grad is None or not t.grad.numpy().any()
        else:
            np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shape, sizes", [((2, 3), (2, 1)), ((2, 3), (1, 2, 3)), ((3,), (4,)), ((2, 3), (0, 2)),
                                          ((), (3,)), ((2, 1, 3), (1, 4, 1)), ((2, 3), ([2, 2],))])
def test_repeat(shape, sizes):
    _run(lambda a: a.repeat(*sizes), lambda a: a.repeat(*sizes), [_data(shape, 1)])


@pytest.mark.parametrize("shape, dims", [((2, 3), (2,)), ((2, 3), (2, 1, 2)), ((3,), (2, 2)), ((2, 3), ())])
def test_tile(shape, dims):
    _run(lambda a: ag.tile(a, dims), lambda a: torch.tile(a, dims), [_data(shape, 2)])
    _run(lambda a: a.tile(dims), lambda a: a.tile(dims), [_data(shape, 2)])


@pytest.mark.parametrize("repeats, dim", [(2, None), (3, 0), (2, 1), (0, 1), (2, -1)])
def test_repeat_interleave_with_a_count(repeats, dim):
    _run(lambda a: ag.repeat_interleave(a, repeats, dim), lambda a: torch.repeat_interleave(a, repeats, dim),
         [_data((2, 3), 3)])


@pytest.mark.parametrize("counts, dim", [([1, 0, 3], 1), ([2], 1), (2, 0), ([2, 1], 0), ([1, 2, 0, 1, 1, 1], None)])
def test_repeat_interleave_with_counts(counts, dim):
    _run(lambda a, c: ag.repeat_interleave(a, c, dim), lambda a, c: torch.repeat_interleave(a, c, dim),
         [_data((2, 3), 4)], [np.asarray(counts, dtype=np.int64)])
    c = np.asarray([2, 0, 1], dtype=np.int64)
    assert ag.repeat_interleave(ag.tensor(c)).tolist() == torch.repeat_interleave(torch.tensor(c)).tolist()


@pytest.mark.parametrize("shifts, dims", [(1, None), (-4, None), (1, 0), ((1, 2), (0, 1)), ((2, -1), (1, 1)),
                                          (7, 1), (-1, -1)])
def test_roll(shifts, dims):
    _run(lambda a: ag.roll(a, shifts, dims), lambda a: torch.roll(a, shifts, dims), [_data((2, 3), 5)])


@pytest.mark.parametrize("dim, start, length", [(1, 0, 2), (1, -2, 2), (0, 1, 1), (1, 3, 0), (-1, 1, 2), (1, -3, 3)])
def test_narrow(dim, start, length):
    _run(lambda a: ag.narrow(a, dim, start, length), lambda a: torch.narrow(a, dim, start, length), [_data((2, 3), 6)])
    x = ag.arange(6.0).reshape(2, 3)
    assert shares_memory(ag.narrow(x, 1, 1, 2)._data, x._data)   # a view, as in torch


@pytest.mark.parametrize("source, destination", [(0, 1), (0, -1), ((0, 1), (2, 0)), ((2,), (0,)), ((), ())])
def test_movedim(source, destination):
    _run(lambda a: ag.movedim(a, source, destination), lambda a: torch.movedim(a, source, destination),
         [_data((2, 3, 4), 7)])
    _run(lambda a: a.moveaxis(source, destination), lambda a: a.moveaxis(source, destination), [_data((2, 3, 4), 7)])


def test_swapaxes():
    _run(lambda a: ag.swapaxes(a, 0, 2), lambda a: torch.swapaxes(a, 0, 2), [_data((2, 3, 4), 8)])
    _run(lambda a: a.swapdims(-1, 1), lambda a: a.swapdims(-1, 1), [_data((2, 3, 4), 8)])


@pytest.mark.parametrize("dim, index", [(1, [2, 0, 2]), (0, [1]), (0, [1, 1, 0]), (-1, []), (1, 1), (0, [0, 0, 0, 0])])
def test_index_select(dim, index):
    _run(lambda a, i: ag.index_select(a, dim, i), lambda a, i: torch.index_select(a, dim, i), [_data((2, 3), 9)],
         [np.asarray(index, dtype=np.int64)])
    _run(lambda a, i: a.index_select(dim, i), lambda a, i: a.index_select(dim, i), [_data((2, 3), 9)],
         [np.asarray(index, dtype=np.int32)])


@pytest.mark.parametrize("shape, args", [((3, 4), ()), ((3, 4), (1,)), ((3, 4), (-2,)), ((2, 3, 4), (1, 2, 0)),
                                         ((2, 3, 4), (0, -1, -2)), ((3, 4), (9,)), ((4, 4), (-1, 1, 0))])
def test_diagonal(shape, args):
    _run(lambda a: ag.diagonal(a, *args), lambda a: torch.diagonal(a, *args), [_data(shape, 10)])
    _run(lambda a: a.diagonal(*args), lambda a: a.diagonal(*args), [_data(shape, 10)])


@pytest.mark.parametrize("shape, k", [((3,), 0), ((3,), 2), ((3,), -1), ((3, 4), 0), ((3, 4), 1), ((3, 4), -2),
                                      ((3, 4), 7), ((0,), 1)])
def test_diag(shape, k):
    _run(lambda a: ag.diag(a, k), lambda a: torch.diag(a, k), [_data(shape, 11)])


@pytest.mark.parametrize("indexing", ["ij", "xy"])
@pytest.mark.parametrize("shapes", [[(2,), (3,)], [(2,), (3,), (4,)], [(3,)], [(), (2,)], [(0,), (2,)]])
def test_meshgrid(indexing, shapes):
    arrays = [_data(s, 12 + k) for k, s in enumerate(shapes)]
    _run(lambda *t: ag.meshgrid(*t, indexing=indexing), lambda *t: torch.meshgrid(*t, indexing=indexing), arrays)
    _run(lambda *t: ag.meshgrid(list(t), indexing=indexing), lambda *t: torch.meshgrid(list(t), indexing=indexing),
         arrays)


def test_meshgrid_without_indexing_warns_as_torch_and_uses_ij():
    a, b = ag.arange(2.0), ag.arange(3.0)
    with pytest.warns(UserWarning, match="indexing"):
        x, y = ag.meshgrid(a, b)
    assert x.shape == (2, 3) and y.shape == (2, 3)


@pytest.mark.parametrize("n, dim", [(1, -1), (2, 1), (1, 0), (2, 0), (5, 1), (0, 1)])
def test_diff(n, dim):
    _run(lambda a: ag.diff(a, n, dim), lambda a: torch.diff(a, n, dim), [_data((3, 4), 13)])


def test_diff_with_prepend_and_append_and_bools():
    _run(lambda a, p, q: ag.diff(a, 2, 1, p, q), lambda a, p, q: torch.diff(a, 2, 1, prepend=p, append=q),
         [_data((2, 3), 14), _data((2, 1), 15), _data((2, 2), 16)])
    m = np.array([True, False, False, True])
    assert ag.diff(ag.tensor(m)).tolist() == torch.diff(torch.tensor(m)).tolist()
    assert ag.diff(ag.tensor(m)).dtype == ag.bool_


@pytest.mark.parametrize("shapes", [[(3,), (3,)], [(2, 3), (3,)], [(2, 1), (1, 4)], [(), (3,)]])
def test_atan2(shapes):
    arrays = [_data(s, 17 + k) for k, s in enumerate(shapes)]
    _run(ag.atan2, torch.atan2, arrays)
    _run(lambda a, b: a.arctan2(b), lambda a, b: a.arctan2(b), arrays)
    assert gradcheck(ag.atan2, [ag.tensor(a, requires_grad=True) for a in arrays])


def test_atan2_at_the_axes_and_on_integers():
    a = np.array([0.0, 0.0, -0.0, 1.0, -1.0, 0.0])
    b = np.array([1.0, -1.0, -1.0, 0.0, 0.0, 0.0])
    close(ag.atan2(ag.tensor(a), ag.tensor(b)), torch.atan2(torch.tensor(a), torch.tensor(b)), rtol=0, atol=0)
    i, j = np.array([1, 2]), np.array([3, -4])
    close(ag.atan2(ag.tensor(i), ag.tensor(j)), torch.atan2(torch.tensor(i), torch.tensor(j)))


@pytest.mark.parametrize("weight", [0.25, 0.75, "tensor", "broadcast"])
def test_lerp(weight):
    arrays = [_data((2, 3), 20), _data((2, 3), 21)]
    if weight == "tensor":
        arrays.append(_data((2, 3), 22))
        _run(ag.lerp, torch.lerp, arrays)
    elif weight == "broadcast":
        arrays.append(_data((2, 1), 23))
        _run(ag.lerp, torch.lerp, arrays)
    else:
        _run(lambda a, b: ag.lerp(a, b, weight), lambda a, b: torch.lerp(a, b, weight), arrays)
        _run(lambda a, b: a.lerp(b, weight), lambda a, b: a.lerp(b, weight), arrays)


@pytest.mark.parametrize("in_shape", [(2, 3), (3,), (1, 3), (2, 1), ()])
@pytest.mark.parametrize("beta, alpha", [(1, 1), (0.5, 2.0), (0, 1)])
def test_addmm(in_shape, beta, alpha):
    _run(lambda i, a, b: ag.addmm(i, a, b, beta=beta, alpha=alpha),
         lambda i, a, b: torch.addmm(i, a, b, beta=beta, alpha=alpha),
         [_data(in_shape, 24), _data((2, 4), 25), _data((4, 3), 26)])


def test_addmm_with_beta_0_leaves_input_out():
    nan = np.full(3, np.nan)
    got = ag.addmm(ag.tensor(nan), ag.ones(2, 4, dtype=ag.float64), ag.ones(4, 3, dtype=ag.float64), beta=0)
    assert np.isfinite(got.numpy()).all() and (got.numpy() == 4).all()


@pytest.mark.parametrize("fn", [
    lambda a: a.repeat(2, 2, 2).sum(), lambda a: ag.roll(a, (1, -2), (0, 1)).sum(),
    lambda a: (ag.repeat_interleave(a, 3, 1) ** 2).sum(), lambda a: (ag.diagonal(a, 1) ** 3).sum(),
    lambda a: (ag.diff(a, 2, 1) ** 2).sum(), lambda a: (ag.narrow(a, 1, 1, 2) ** 2).sum(),
    lambda a: (ag.movedim(a, 0, 1) * ag.tensor(_data((3, 2), 27))).sum()])
def test_finite_differences(fn):
    assert gradcheck(fn, [ag.tensor(_data((2, 3), 28), requires_grad=True)])


X = np.arange(6.0).reshape(2, 3)


@pytest.mark.parametrize("call", [
    lambda m, x: x.repeat(2),                                        # fewer sizes than dims
    lambda m, x: x.repeat(),
    lambda m, x: x.repeat(2, -1),
    lambda m, x: m.repeat_interleave(x, -1),
    lambda m, x: m.repeat_interleave(x, m.tensor([1, -2]), dim=0),
    lambda m, x: m.repeat_interleave(x, m.tensor([1, 2, 3]), dim=0),
    lambda m, x: m.repeat_interleave(x, m.tensor([[1, 2]]), dim=0),
    lambda m, x: m.repeat_interleave(x, m.tensor([1.0, 2.0]), dim=0),
    lambda m, x: m.repeat_interleave(x, 2, dim=5),
    lambda m, x: m.roll(x, (1, 2), (0,)),
    lambda m, x: m.roll(x, 1, 3),
    lambda m, x: m.roll(x, (), ()),
    lambda m, x: m.narrow(x, 1, 1, 5),
    lambda m, x: m.narrow(x, 1, -4, 1),
    lambda m, x: m.narrow(x, 1, 4, 0),
    lambda m, x: m.narrow(x, 3, 0, 1),
    lambda m, x: m.narrow(x, 1, 0, -1),
    lambda m, x: m.movedim(x, (0, 0), (1, 0)),
    lambda m, x: m.movedim(x, (0, 1), (1,)),
    lambda m, x: m.movedim(x, 2, 0),
    lambda m, x: m.index_select(x, 1, m.tensor([-1])),
    lambda m, x: m.index_select(x, 1, m.tensor([3])),
    lambda m, x: m.index_select(x, 1, m.tensor([[0]])),
    lambda m, x: m.index_select(x, 1, m.tensor([0.0])),
    lambda m, x: m.index_select(x, 1, [0]),
    lambda m, x: m.diag(m.zeros(2, 2, 2)),
    lambda m, x: m.diag(m.tensor(1.0)),
    lambda m, x: m.diagonal(x, 0, 0, 0),
    lambda m, x: m.diagonal(m.arange(3.0)),
    lambda m, x: m.meshgrid(m.zeros(2, 2), indexing="ij"),
    lambda m, x: m.meshgrid(m.arange(2.0), m.arange(3), indexing="ij"),
    lambda m, x: m.meshgrid(m.arange(2.0), indexing="foo"),
    lambda m, x: m.meshgrid(),
    lambda m, x: m.diff(x, -1),
    lambda m, x: m.diff(m.tensor(1.0)),
    lambda m, x: m.diff(x, 1, 1, prepend=m.zeros(3, 1)),
    lambda m, x: m.atan2(x, 2.0),
    lambda m, x: m.lerp(x, x.double() if m is torch else x.to(ag.float64), 0.5),
    lambda m, x: m.lerp(m.arange(3), m.arange(3), 0.5),
    lambda m, x: m.addmm(m.zeros(3), m.zeros(4), m.zeros(4, 3)),
    lambda m, x: m.addmm(m.zeros(2, 3, dtype=m.float64), m.ones(2, 4), m.ones(4, 3)),
    lambda m, x: m.lerp(m.zeros(3, dtype=m.float64), m.ones(3, dtype=m.float64), m.tensor([0.5], dtype=m.float32)),
    lambda m, x: m.index_select(m.tensor(5.0), 0, m.tensor([0, 0])),
    lambda m, x: m.roll(m.tensor(5.0), 1, 0),
    lambda m, x: m.repeat_interleave(m.tensor([1.0, 2.0]), m.tensor([1, 2]), 0, output_size=4),
])
def test_errors_are_torchs(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both_raise(lambda: call(ag, ag.tensor(X.astype(np.float32))), lambda: call(torch, torch.tensor(X.astype(np.float32))))


@pytest.mark.parametrize("call", [lambda m: m.addmm(m.zeros(3), m.zeros(2, 4), m.zeros(5, 3)),
                                  lambda m: m.addmm(m.zeros(5), m.zeros(2, 4), m.zeros(4, 3))])
def test_addmm_shape_mismatch_is_a_value_error_as_every_shape_mismatch_here(call):
    with pytest.raises(RuntimeError):
        call(torch)
    with pytest.raises(ValueError, match="cannot be"):
        call(ag)


@pytest.mark.parametrize("call", [
    lambda m: m.index_select(m.tensor(5.0), 0, m.tensor([0])), lambda m: m.index_select(m.tensor(5.0), 0, m.tensor(0)),
    lambda m: m.tensor(5.0).repeat(2, 3), lambda m: m.roll(m.tensor(5.0), 1), lambda m: m.movedim(m.tensor(5.0), 0, 0),
    lambda m: m.tile(m.tensor(5.0), (2,)), lambda m: m.repeat_interleave(m.tensor(5.0), 3),
    lambda m: m.diag(m.zeros(0, 3)), lambda m: m.narrow(m.zeros(0, 3), 0, 0, 0),
    lambda m: m.lerp(m.zeros(3), m.ones(3), m.tensor(0.5, dtype=m.float64)),
    lambda m: m.repeat_interleave(m.tensor([[1, 2], [3, 4]]), 2, 0),
], ids=["index_select 0-d", "index_select 0-d index", "repeat 0-d", "roll 0-d", "movedim 0-d", "tile 0-d",
        "repeat_interleave 0-d", "diag empty", "narrow empty", "lerp 0-d weight of another dtype", "int"])
def test_edge_cases_give_torchs_values_and_dtypes(call):
    ours, theirs = call(ag), call(torch)
    assert tuple(ours.shape) == tuple(theirs.shape) and ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
    assert ours.tolist() == theirs.tolist()


@pytest.mark.parametrize("call", [
    lambda x: x.repeat(2, 1), lambda x: x.repeat(1, 1), lambda x: x[0, 0].repeat(1), lambda x: ag.tile(x, (1,)),
    lambda x: ag.tile(x[0, 0], ()), lambda x: ag.diff(x, n=0), lambda x: ag.index_select(x[0, 0], 0, ag.tensor([0]))])
def test_results_that_torch_copies_are_copies_one_can_write_into(call):
    x = ag.ones(1, 3)
    out = call(x)   # (repeat's expand + reshape kept a read-only view; diff and index_select returned x itself)
    out.add_(1.0)
    assert (out.numpy() == 2).all() and (x.numpy() == 1).all()


def test_repeat_and_tile_never_share_the_inputs_memory():
    a = ag.ones(1, 3)
    for out in (a.repeat(1, 1), a.repeat(2, 1), ag.tile(a, (1,)), a.tile(1, 1)):
        assert not shares_memory(out._data, a._data)


def test_narrow_start_equal_to_the_size_is_not_wrapped_to_0():
    with pytest.raises(RuntimeError):
        torch.narrow(torch.arange(3.0), 0, 3, 1)
    with pytest.raises(RuntimeError, match="exceeds"):
        ag.narrow(ag.arange(3.0), 0, 3, 1)
    assert ag.narrow(ag.arange(3.0), 0, 3, 0).shape == (0,)


def test_lerp_weight_1_gives_end_exactly_and_float16_rounds_once():
    a, b = np.array([0.1, 1e-30, -3.3, 2.5]), np.array([0.7, 1e30, 7.1, -1e-3])
    for w in (1.0, ag.tensor(np.array([1.0, 1.0, 1.0, 1.0])), ag.tensor(np.array([[1.0], [0.0]]))):
        tw = torch.tensor(w.numpy()) if isinstance(w, ag.Tensor) else w
        close(ag.lerp(ag.tensor(a), ag.tensor(b), w), torch.lerp(torch.tensor(a), torch.tensor(b), tw), rtol=0, atol=0)
    for w in (0.75, 0.5, -0.6, 0.3, ag.tensor(np.array([-0.7, 0.9, 0.5, 0.2]))):   # (torch's fma: 1 ulp apart)
        tw = torch.tensor(w.numpy()) if isinstance(w, ag.Tensor) else w
        close(ag.lerp(ag.tensor(a), ag.tensor(b), w), torch.lerp(torch.tensor(a), torch.tensor(b), tw), rtol=1e-15)
    h, e = _data(50, 30, "float16"), _data(50, 31, "float16")
    close(ag.lerp(ag.tensor(h), ag.tensor(e), 0.3), torch.lerp(torch.tensor(h), torch.tensor(e), 0.3), rtol=0, atol=0)


@pytest.mark.parametrize("weight", [0.25, 0.75, "tensor"])
def test_lerp_second_derivatives(weight):
    from autogradlab.testing import gradgradcheck
    arrays = [_data((2, 3), 32), _data((2, 3), 33)] + ([_data((2, 3), 34) * 0.5 + 0.5] if weight == "tensor" else [])
    fn = (lambda a, b, w: ag.lerp(a, b, w) ** 3) if weight == "tensor" else (lambda a, b: ag.lerp(a, b, weight) ** 3)
    assert gradgradcheck(fn, [ag.tensor(x, requires_grad=True) for x in arrays])


@pytest.mark.parametrize("parts", [("float32", "int64", "int64"), ("int64", "float32", "float32"),
                                   ("float16", "float32", "float16"), ("int32", "int64", "int32"),
                                   ("bool", "int64", "bool")])
def test_diff_promotes_prepend_and_append_as_torch(parts):
    a, p, q = (_data(s, 35 + k, d) if d != "bool" else _data(s, 35 + k) > 0 for k, (s, d) in
               enumerate(zip([(2, 3), (2, 1), (2, 2)], parts)))
    ours = ag.diff(ag.tensor(a), 1, 1, ag.tensor(p), ag.tensor(q))
    theirs = torch.diff(torch.tensor(a), 1, 1, prepend=torch.tensor(p), append=torch.tensor(q))
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
    close(ours, theirs)


def test_repeat_interleave_counts_keep_their_dtype():
    c = np.array([2, 0, 1], dtype=np.int32)
    ours, theirs = ag.repeat_interleave(ag.tensor(c)), torch.repeat_interleave(torch.tensor(c))
    assert ours.dtype.name == "int32" and ours.tolist() == theirs.tolist() and theirs.dtype == torch.int32


def test_keyword_and_argument_forms_torch_accepts():
    x = np.arange(6.0).reshape(2, 3)
    for call in (lambda m, t: t.repeat(repeats=(2, 1)), lambda m, t: m.roll(t, 1, ()),
                 lambda m, t: m.roll(t, shifts=2, dims=[]), lambda m, t: m.narrow(t, dim=1, start=m.tensor(1), length=2),
                 lambda m, t: m.movedim(t, source=[0], destination=[1])):
        close(call(ag, ag.tensor(x)), call(torch, torch.tensor(x)), rtol=0, atol=0)


@pytest.mark.parametrize("call", [
    lambda m, x: m.narrow(m.tensor(1.0), 0, 0, 1),
    lambda m, x: m.narrow(x, 1, True, 1),
    lambda m, x: m.narrow(x, 1, 0, 1.0),
    lambda m, x: m.tile(x, 2),
    lambda m, x: m.tensor(5.0).tile(),
    lambda m, x: m.roll(x, True),
    lambda m, x: m.roll(x, 1.0),
    lambda m, x: m.movedim(x, 0, (1,)),
    lambda m, x: m.movedim(x, (0, 2), (0, 0)),
    lambda m, x: m.movedim(m.tensor(1.0), (0, 1), (0, 0)),
    lambda m, x: m.index_select(x, 0, m.tensor([2])),
    lambda m, x: m.index_select(x, 0, m.tensor([-1])),
    lambda m, x: m.index_select(m.zeros(2, 3, 4), 2, m.tensor([4])),
    lambda m, x: m.index_select(x, 1, m.tensor([3])),
    lambda m, x: m.index_select(m.zeros(0, 3), 0, m.tensor([0])),
    lambda m, x: m.index_select(m.tensor(1.0), 1, m.tensor([0], dtype=m.float32)),
    lambda m, x: m.repeat_interleave(m.tensor(5.0), 1, 0),
    lambda m, x: m.repeat_interleave(m.tensor(5.0), m.tensor([2]), 0),
    lambda m, x: m.repeat_interleave(x, True, 0),
    lambda m, x: m.repeat_interleave(x, 2.0, 0),
    lambda m, x: m.repeat_interleave(m.tensor(2)),
    lambda m, x: m.repeat_interleave(m.tensor([1.0, 2.0])),
    lambda m, x: m.repeat_interleave(m.tensor([True, False])),
    lambda m, x: m.repeat_interleave(x, m.tensor(np.array([1, 2], np.uint8)), 0),
], ids=["narrow 0-d", "narrow bool", "narrow float", "tile int", "tile no dims", "roll bool", "roll float",
        "movedim int and tuple", "movedim out of range before repeated", "movedim 0-d out of range",
        "index_select past the end", "index_select negative", "index_select dim 2", "index_select dim 1",
        "index_select empty dim", "index_select dim before dtype", "repeat_interleave 0-d dim",
        "repeat_interleave 0-d dim tensor", "repeat_interleave bool", "repeat_interleave float",
        "counts 0-d", "counts float", "counts bool", "repeats uint8"])
def test_more_errors_are_torchs(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both_raise(lambda: call(ag, ag.tensor(X.astype(np.float32))), lambda: call(torch, torch.tensor(X.astype(np.float32))))


@pytest.mark.parametrize("fn", ["cat", "stack"])
@pytest.mark.parametrize("dtypes", [("int64", "float32"), ("float16", "int64"), ("bool", "int32"),
                                    ("float32", "float64"), ("int32", "int64")])
def test_cat_and_stack_promote_as_torch(fn, dtypes):
    """PyTorch's common dtype (int64 with float32 gives float32; NumPy's concatenate would give float64), and the
    gradient of each float input in its own dtype."""
    arrays = [np.arange(1, 4).astype(dtypes[0]), np.arange(4, 7).astype(dtypes[1])]
    ours = [ag.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    theirs = [torch.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    out, tout = getattr(ag, fn)(ours), getattr(torch, fn)(theirs)
    close(out, tout)
    if tout.requires_grad:
        w = _data(tuple(tout.shape), 30)
        (out * ag.tensor(w.astype(out.dtype.name))).sum().backward()
        (tout * torch.tensor(w.astype(out.dtype.name))).sum().backward()
        for a, t in zip(ours, theirs):
            if t.grad is not None:
                close(a.grad, t.grad, rtol=1e-3, atol=1e-3)


def test_swapdims_and_the_repeat_interleave_method_take_torchs_arguments():
    x, tx = ag.tensor(_data((2, 3, 4), 31)), torch.tensor(_data((2, 3, 4), 31))
    close(ag.swapdims(x, dim0=0, dim1=2), torch.swapdims(tx, dim0=0, dim1=2))
    close(x.swapdims(dim0=-1, dim1=1), tx.swapdims(dim0=-1, dim1=1))
    close(ag.swapaxes(x, axis0=0, axis1=1), torch.swapaxes(tx, axis0=0, axis1=1))
    both_raise(lambda: x.repeat_interleave(), lambda: tx.repeat_interleave())
    close(x.repeat_interleave(2, dim=1, output_size=6), tx.repeat_interleave(2, dim=1, output_size=6))
