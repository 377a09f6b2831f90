"""What a round of differential fuzzing against torch 2.13 found wrong, each fixed and checked side by side:
a Python bool as an index, numbers kept as numbers by ops that compute in floats (``uint8 / -3``), mixed
dtypes in ``hypot``/``logaddexp``/``copysign``/``ldexp``, the gradients of ``atan2`` at the origin and of the
rounded quotients, ``std(False)``, ``split`` of an empty dim, NaN in ``unique``, ``cdist`` for any p."""
import math

import numpy as np
import pytest
from conftest import import_torch
from torch_compare import both_raise, same_results

import autogradlab as ag

torch = import_torch()
NAN = float("nan")


def test_a_python_bool_index_writes_through_while_recording():
    for index in (True, (True, 0), (0, True), (True, slice(None), 1), False):
        def run(T):
            x = T.zeros(2, 3, requires_grad=True)
            y = x * 1
            y[index] = 7.0
            (y * y).sum().backward()
            return y, x.grad, x[index]
        same_results(run)


NUMBERS = {
    "a uint8 tensor of -7 wraps (on every device)": lambda T: T.tensor([7, -7], dtype=T.uint8),
    "uint8 / -3": lambda T: T.tensor([7, 2], dtype=T.uint8) / -3,
    "-3 / uint8": lambda T: -3 / T.tensor([7, 2], dtype=T.uint8),
    "int8 / 300": lambda T: T.tensor([7, 2], dtype=T.int8) / 300,
    "true_divide uint8 by -3": lambda T: T.true_divide(T.tensor([7, 2], dtype=T.uint8), -3),
    "uint8 / an int64 0-d tensor": lambda T: T.tensor([7, 2], dtype=T.uint8) / T.tensor(-3),
    "atan2 of uint8 and an int64 0-d tensor": lambda T: T.atan2(T.tensor([7, 2], dtype=T.uint8), T.tensor(-3)),
    "xlogy of uint8 and -3": lambda T: T.xlogy(T.tensor([7, 0], dtype=T.uint8), -3),
    "xlogy of 300 and int8": lambda T: T.xlogy(300, T.tensor([7, 2], dtype=T.int8)),
    "xlog1py of uint8 and 300": lambda T: T.special.xlog1py(T.tensor([7, 2], dtype=T.uint8), 300),
    "zeta of uint8 and 300": lambda T: T.special.zeta(T.tensor([7, 2], dtype=T.uint8), 300),
    "bool / True": lambda T: T.tensor([True, False]) / True,
    "hypot of uint8 and a float 0-d tensor": lambda T: T.hypot(T.tensor([7, 2], dtype=T.uint8), T.tensor(2.5)),
    "logaddexp of float64 and int64": lambda T: T.logaddexp(T.tensor([0.0], dtype=T.float64), T.tensor([0])),
    "hypot of int64 and float64": lambda T: T.hypot(T.tensor([3]), T.tensor([4.0], dtype=T.float64)),
    "copysign of int64 and a float64 0-d tensor": lambda T: T.copysign(T.tensor([1, 2]), T.tensor(-1.0, dtype=T.float64)),
    "copysign of int64 and float16": lambda T: T.copysign(T.tensor([1]), T.tensor([-1.0], dtype=T.float16)),
    "copysign of float32 and float64": lambda T: T.copysign(T.tensor([1.5]), T.tensor([-1.0], dtype=T.float64)),
    "copysign of a float32 0-d tensor and float64": lambda T: T.copysign(T.tensor(3.0), T.tensor([-0.0], dtype=T.float64)),
    "copysign of int64 and -2": lambda T: T.copysign(T.tensor([3]), -2),
    "copysign of bools": lambda T: T.copysign(T.tensor([True]), T.tensor([False])),
    "ldexp of int64 and bool": lambda T: T.ldexp(T.tensor([3]), T.tensor([True])),
    "ldexp of int64 and float64": lambda T: T.ldexp(T.tensor([3]), T.tensor([2.0], dtype=T.float64)),
    "ldexp of float16": lambda T: T.ldexp(T.tensor([3.0, 1e-3, 3.0], dtype=T.float16), T.tensor([2, 20, -20])),
    "std(False) of a 0-d tensor": lambda T: T.tensor(0.5).std(False),
    "std(False)": lambda T: T.tensor([[1.0, 2.0, 4.0], [0.0, 3.0, 3.0]], dtype=T.float64).std(False),
    "var(True)": lambda T: T.var(T.tensor([[1.0, 2.0, 4.0], [0.0, 3.0, 3.0]], dtype=T.float64), True),
    "var_mean(False)": lambda T: T.var_mean(T.tensor([1.0, 2.0, 4.0], dtype=T.float64), False),
    "unique with NaN": lambda T: T.unique(T.tensor([NAN, 2.0, NAN, 1.0, 2.0]), return_inverse=True, return_counts=True),
}


@pytest.mark.parametrize("name", NUMBERS)
def test_values_and_dtypes_as_torch(name):
    same_results(NUMBERS[name])


def test_split_of_an_empty_dim_is_one_empty_piece_as_torch():
    for T in (ag, torch):
        assert [tuple(p.shape) for p in T.zeros(0, 3).split(2)] == [(0, 3)]
        assert [tuple(p.shape) for p in T.zeros(2, 0).split(1, 1)] == [(2, 0)]
        assert [tuple(p.shape) for p in T.zeros(0, 3).split([0, 0])] == [(0, 3), (0, 3)]


def _gradients(make, f):
    out = []
    for T in (ag, torch):
        inputs = make(T)
        y = f(T, *inputs)
        y.sum().backward()
        out.append([y] + [x.grad for x in inputs])
    return out


def test_atan2_gradient_is_0_at_the_origin_and_underflowing_radii_as_torch():
    make = lambda T: (T.tensor([0.0, 0.0, 1e-200, 0.0, 1.0], dtype=T.float64, requires_grad=True),  # noqa: E731
                      T.tensor([0.0, -0.0, 0.0, 1e-170, 2.0], dtype=T.float64, requires_grad=True))
    ours, theirs = _gradients(make, lambda T, a, b: T.atan2(a, b))
    for o, t in zip(ours, theirs):
        np.testing.assert_array_equal(o.detach().numpy(), t.detach().numpy())
        np.testing.assert_array_equal(np.signbit(o.detach().numpy()), np.signbit(t.detach().numpy()))


@pytest.mark.parametrize("mode", ["trunc", "floor"])
def test_rounded_quotients_of_floats_have_gradient_0_as_torch(mode):
    make = lambda T: (T.tensor([1.5, -7.0, 3.0], dtype=T.float64, requires_grad=True),  # noqa: E731
                      T.tensor([0.0, 2.0, -2.0], dtype=T.float64, requires_grad=True))
    ours, theirs = _gradients(make, lambda T, a, b: T.div(a, b, rounding_mode=mode))
    assert ours[0].requires_grad and theirs[0].requires_grad
    for o, t in zip(ours, theirs):
        np.testing.assert_array_equal(o.detach().numpy(), t.detach().numpy())
    same_results(lambda T: T.div(T.tensor([7, 249], dtype=T.uint8), -2, rounding_mode=mode))
    same_results(lambda T: T.div(T.tensor([7, -7]), 2.5, rounding_mode=mode))
    same_results(lambda T: T.div(-7.5, T.tensor([2.0]), rounding_mode=mode))
    same_results(lambda T: T.div(T.tensor([7, -7, 0]), T.tensor([-2, 2, 3]), rounding_mode=mode))
    same_results(lambda T: T.div(T.tensor([3]), T.tensor(True), rounding_mode=mode))
    same_results(lambda T: T.div(T.tensor([True]), T.tensor([3], dtype=T.int16), rounding_mode=mode))
    if mode == "trunc":
        both_raise(lambda: ag.div(ag.tensor([True]), ag.tensor([True]), rounding_mode=mode),
                   lambda: torch.div(torch.tensor([True]), torch.tensor([True]), rounding_mode=mode))


@pytest.mark.parametrize("p", [0, 0.5, 1, 1.5, 2, 3, math.inf])
def test_cdist_takes_any_p_as_torch(p):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, 4, 3)), rng.standard_normal((2, 5, 3))
    b[0, 0] = a[0, 1]          # a distance of 0
    b[1, 1, 0] = a[1, 2, 0]    # one difference of 0
    weights = np.arange(40.0).reshape(2, 4, 5)
    results = []
    for T in (ag, torch):
        x, y = T.tensor(a, requires_grad=True), T.tensor(b, requires_grad=True)
        d = T.cdist(x, y, p)
        (d * T.tensor(weights)).sum().backward()
        results.append([d.detach().numpy()] + [np.zeros_like(v) if g is None else g.numpy()
                                               for v, g in ((a, x.grad), (b, y.grad))])
    for o, t in zip(*results):
        np.testing.assert_allclose(o, t, rtol=1e-10, atol=1e-12)
    both_raise(lambda: ag.cdist(ag.ones(2, 3), ag.ones(2, 3), -1), lambda: torch.cdist(torch.ones(2, 3), torch.ones(2, 3), -1))


def test_cat_skips_a_1d_empty_tensor_as_torch():
    """The loop ``preds = tensor([]); preds = cat((preds, batch))`` works, and the empty tensor gets an empty
    gradient; its dtype still takes part in the promotion."""
    def run(T):
        a = T.tensor([], requires_grad=True)
        b = T.ones(2, 3, dtype=T.float64, requires_grad=True)
        y = T.cat([a, b])
        y.sum().backward()
        joined = T.tensor([])
        for i in range(3):
            joined = T.cat((joined, T.ones(4, 3) * i))
        return (y, a.grad, b.grad, joined, T.cat([T.ones(2, 3), T.tensor([])], dim=1),
                T.cat([T.tensor([]), T.ones(2, 3, dtype=T.int64)], dim=-1),
                T.cat([T.tensor([]), T.tensor([], dtype=T.int64)]))
    same_results(run)
    both_raise(lambda: ag.cat([ag.zeros(0, 3), ag.ones(2, 2)]), lambda: torch.cat([torch.zeros(0, 3), torch.ones(2, 2)]))


@pytest.mark.parametrize("labels, classes", [([-1, 2], -1), ([-100, 0], 3), ([0, 5], 3), ([], -1)])
def test_one_hot_refuses_labels_it_has_no_column_for_as_torch(labels, classes):
    both_raise(lambda: ag.nn.functional.one_hot(ag.tensor(labels, dtype=ag.int64), classes),
               lambda: torch.nn.functional.one_hot(torch.tensor(labels, dtype=torch.int64), classes))


def test_one_hot_of_no_labels_with_a_class_count_as_torch():
    same_results(lambda T: T.nn.functional.one_hot(T.tensor([], dtype=T.int64), 3))


def test_rrelu_takes_the_slope_at_0_and_checks_its_bounds_as_torch():
    make = lambda T: (T.tensor([0.0, -1.0, 1.0, -0.0], dtype=T.float64, requires_grad=True),)  # noqa: E731
    ours, theirs = _gradients(make, lambda T, x: T.nn.functional.rrelu(x, 0.1, 0.3, training=False))
    for o, t in zip(ours, theirs):
        np.testing.assert_array_equal(o.detach().numpy(), t.detach().numpy())
    x = ag.zeros(50, dtype=ag.float64, requires_grad=True)
    ag.nn.functional.rrelu(x, 0.1, 0.3, training=True).sum().backward()
    assert ((x.grad.numpy() >= 0.1) & (x.grad.numpy() <= 0.3)).all()   # (each element's own slope, not 1)
    both_raise(lambda: ag.nn.functional.rrelu(ag.tensor([-1.0]), 0.5, 0.1),
               lambda: torch.nn.functional.rrelu(torch.tensor([-1.0]), 0.5, 0.1))
    both_raise(lambda: ag.nn.RReLU(0.5, 0.1)(ag.tensor([-1.0])), lambda: torch.nn.RReLU(0.5, 0.1)(torch.tensor([-1.0])))


@pytest.mark.parametrize("call", [lambda T, x: x.cumsum(0), lambda T, x: x.softmax(0), lambda T, x: x.sigmoid(),
                                  lambda T, x: T.ones(3000, dtype=T.float16).cumsum(0),
                                  lambda T, x: T.tensor([1.0, 2.0], dtype=T.float16).softmax(0)],
                         ids=["cumsum", "softmax", "sigmoid", "cumsum of 3000 ones", "softmax of two"])
def test_float16_computes_in_float32_and_rounds_once_as_torch(call):
    data = (np.random.default_rng(0).standard_normal(500) * 3).astype(np.float16)
    ours, theirs = (call(T, T.tensor(data)) for T in (ag, torch))
    assert ours.dtype == ag.float16
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_float16_log_softmax_is_within_a_rounding_of_torchs():
    data = (np.random.default_rng(0).standard_normal(500) * 3).astype(np.float16)
    ours, theirs = (T.tensor(data).log_softmax(0).numpy().astype(np.float64) for T in (ag, torch))
    np.testing.assert_allclose(ours, theirs, rtol=2 ** -10)   # (one float16 rounding: the order of the last steps)


@pytest.mark.parametrize("module", ["Softmax", "LogSoftmax"])
def test_softmax_modules_without_a_dim_pick_it_and_warn_as_torch(module):
    def run(T):
        with pytest.warns(UserWarning, match="Implicit dimension choice"):
            return getattr(T.nn, module)()(T.tensor([[1.0, 2.0], [3.0, 5.0]], dtype=T.float64))
    same_results(run, rtol=1e-15)


@pytest.mark.parametrize("where", [lambda storage, loc: storage, {"cuda:0": "cpu"}, "cpu"], ids=["function", "dict", "str"])
def test_load_takes_torchs_map_location_forms(where, tmp_path):
    path = tmp_path / "model.pt"
    ag.save({"w": ag.arange(3.0)}, path)
    loaded = ag.load(path, map_location=where)
    assert loaded["w"].device == "cpu" and loaded["w"].tolist() == [0.0, 1.0, 2.0]


def test_an_empty_list_index_takes_and_writes_nothing_as_torch():
    def run(T):
        x = T.zeros(2, 3, requires_grad=True)
        y = x * 1
        y[[]] = 5.0
        y.sum().backward()
        return x[[]], x[:, []], y, x.grad
    same_results(run)


@pytest.mark.parametrize("reduce", ["add", "multiply"])
def test_scatter_with_reduce_as_torch(reduce):
    def run(T):
        x = T.ones(3, 4, dtype=T.float64)
        index = T.tensor([[0, 1, 2, 0]])
        src = T.arange(1.0, 13.0, dtype=T.float64).reshape(3, 4)
        return (T.scatter(x, 0, index, src, reduce=reduce), x.scatter(0, index, 2.5, reduce=reduce),
                x.clone().scatter_(0, index, src, reduce=reduce))
    same_results(run)   # (with warnings silenced: torch warns once a process)
    with pytest.warns(UserWarning, match="deprecated"):
        ag.scatter(ag.ones(2), 0, ag.tensor([0]), ag.ones(1), reduce=reduce)
    both_raise(lambda: ag.scatter(ag.ones(2), 0, ag.tensor([0]), ag.ones(1), reduce="max"),
               lambda: torch.scatter(torch.ones(2), 0, torch.tensor([0]), torch.ones(1), reduce="max"))


def test_gather_takes_sparse_grad_max_and_min_take_other_and_igamma_is_there_as_torch():
    def run(T):
        x = T.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=T.float64, requires_grad=True)
        a = T.tensor([2.5, 1.0], dtype=T.float64)
        y = T.gather(x, 1, T.tensor([[0, 0], [1, 0]]), sparse_grad=False) + T.igamma(a, x[:, :1].T).T
        y.sum().backward()
        other = T.tensor([[3.0, 1.0], [0.0, 5.0]], dtype=T.float64)
        return (y, x.grad, T.max(x, other=other), x.min(other=other), T.igammac(a, x[0]), a.igamma(x[1]),
                a.clone().igammac_(x[1].detach()))
    same_results(run, rtol=1e-12)


def _diagonal_program(T, index):
    x = T.tensor(np.arange(1.0, 25.0).reshape(2, 3, 4), dtype=T.float64, requires_grad=True)
    y = x * 1
    if index == 0:      # a ridge term added in place: A.diagonal().add_(lam)
        y.diagonal(0, 1, 2).add_(0.5)
    elif index == 1:    # an offset diagonal over other dims, scaled in place
        y.diagonal(-1, 2, 0).mul_(3.0)
    elif index == 2:    # a view of the diagonal, written; then the base written and the view read again
        d = y.diagonal(1, 1, 2)
        d[:, 0] = 7.0
        y.add_(1.0)
        y = y * d.sum()
    elif index == 3:    # the diagonal of a transposed view
        y.transpose(1, 2).diagonal(0, 1, 2).zero_()
    (y * y).sum().backward()
    plain = T.zeros(3, 3)
    plain.diagonal().fill_(2.0)
    T.diag(plain).fill_(5.0)   # (diag of a matrix is a copy in both)
    return y, x.grad, plain


@pytest.mark.parametrize("index", range(4), ids=["add_", "offset mul_", "view of a view", "transposed"])
def test_writes_through_diagonal_reach_the_tensor_as_torch(index):
    same_results(lambda T: _diagonal_program(T, index), rtol=1e-12)


def test_diagonal_is_a_view_that_follows_its_base_as_torch():
    def run(T):
        a = T.zeros(3, 3)
        d = a.diagonal()
        a.fill_(4.0)
        return d.clone(), d._base is a if T is torch else d._view[0] is a
    ours, theirs = run(ag), run(torch)
    assert ours[0].tolist() == theirs[0].tolist() == [4.0, 4.0, 4.0] and ours[1] and theirs[1]


@pytest.mark.parametrize("var_shape", [(4, 1, 5), (4, 3, 1), (1, 3, 5), (4, 3), (1, 1, 5), (3, 5)], ids=str)
def test_gaussian_nll_loss_takes_a_var_with_one_dim_of_1_as_torch(var_shape):
    rng = np.random.default_rng(0)
    a, b, v = rng.standard_normal((4, 3, 5)), rng.standard_normal((4, 3, 5)), rng.random(var_shape) + 0.1

    def run(T):
        x, var = T.tensor(a, requires_grad=True), T.tensor(v, requires_grad=True)
        loss = T.nn.functional.gaussian_nll_loss(x, T.tensor(b), var)
        loss.backward()
        return loss, x.grad, var.grad
    if var_shape in ((1, 1, 5), (3, 5)):
        both_raise(lambda: run(ag), lambda: run(torch))
    else:
        same_results(run, rtol=1e-12)


@pytest.mark.parametrize("shapes", [((3,), (1,)), ((2, 3), (3,)), ((3, 1), (1, 3))], ids=str)
def test_soft_margin_loss_broadcasts_the_target_to_the_input_only_as_torch(shapes):
    def run(T):
        return T.nn.functional.soft_margin_loss(T.ones(shapes[0], dtype=T.float64), -T.ones(shapes[1], dtype=T.float64))
    if shapes == ((3, 1), (1, 3)):
        both_raise(lambda: run(ag), lambda: run(torch))
    else:
        same_results(run, rtol=1e-12)


@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_multi_margin_loss_of_one_sample_takes_a_target_of_shape_1_as_torch(reduction):
    def run(T):
        x = T.tensor([0.1, 0.5, -0.3], dtype=T.float64, requires_grad=True)
        loss = T.nn.functional.multi_margin_loss(x, T.tensor([1]), reduction=reduction)
        loss.sum().backward()
        return loss, x.grad
    same_results(run, rtol=1e-12)
    both_raise(lambda: ag.nn.functional.multi_margin_loss(ag.ones(3), ag.tensor([1, 0])),
               lambda: torch.nn.functional.multi_margin_loss(torch.ones(3), torch.tensor([1, 0])))


@pytest.mark.parametrize("size", [(2, 2, 0), (2, 0, 2), 0, (0, 2, 2)], ids=str)
def test_adaptive_max_pool3d_to_an_empty_size_as_torch(size):
    """(PyTorch's backward through it fails; ours gives zeros)"""
    same_results(lambda T: T.nn.functional.adaptive_max_pool3d(T.zeros(3, 5, 7, 6), size, return_indices=True))
    x = ag.zeros(3, 5, 7, 6, requires_grad=True)
    ag.nn.functional.adaptive_max_pool3d(x, size).sum().backward()
    assert x.grad.shape == (3, 5, 7, 6) and not x.grad.numpy().any()


def test_conversions_and_empty_joins_raise_torchs_classes():
    for call in (lambda T: T.tensor([1.0, 2.0]).item(), lambda T: T.tensor([]).item(), lambda T: float(T.tensor([1.0, 2.0])),
                 lambda T: int(T.tensor([1, 2])), lambda T: bool(T.tensor([1.0, 2.0])), lambda T: T.cat([]),
                 lambda T: T.stack([]), lambda T: T.stack(T.ones(2))):
        both_raise(lambda: call(ag), lambda: call(torch))


def test_optimizer_state_can_be_cleared_deleted_and_assigned_as_torchs():
    def run(T):
        p = T.tensor([1.0, -2.0, 3.0], dtype=T.float64, requires_grad=True)
        opt = T.optim.Adam([p], lr=0.1)
        seen = []
        for change in (lambda: opt.state.clear(), lambda: opt.state.__delitem__(p),
                       lambda: opt.state.__setitem__(p, {}), lambda: opt.state.pop(p)):
            opt.zero_grad()
            (p ** 2).sum().backward()
            opt.step()
            change()
            seen.append(len(opt.state))
        opt.step()
        return p.detach().clone(), T.tensor(seen + [float(opt.state[p]["step"])])
    same_results(run, rtol=1e-12)


def test_review_findings_match_torch():
    x = np.random.default_rng(0).standard_normal((2, 3))
    same_results(lambda T: (T.einsum(T.tensor(x), [0, 26]), T.einsum(T.tensor(x), [27, 1]),
                     T.einsum(T.tensor(x), [np.int64(0), 1])))   # (0-25 are A-Z, 26-51 a-z: the implicit order)
    same_results(lambda T: (T.cdist(T.zeros(2, 0), T.zeros(1, 0), p=math.inf), T.cdist(T.zeros(2, 0), T.zeros(1, 0), p=3)))
    for call in (lambda T: T.hypot(T.tensor([3.0]), T.tensor([4j])), lambda T: complex(T.ones(2)),
                 lambda T: T.norm(T.tensor([[1, 2], [3, -4]]), p=math.inf), lambda T: T.tensor([1, -4]).norm(3),
                 lambda T: T.norm(T.tensor([1.0, 2.0]), 3, 0, False, T.float64)):
        both_raise(lambda: call(ag), lambda: call(torch))


def test_an_optimizer_with_two_groups_and_a_partial_load_print_as_torchs():
    def run(T):
        a, b = T.zeros(1, requires_grad=True), T.zeros(1, requires_grad=True)
        model = T.nn.Linear(2, 2)
        loaded = model.load_state_dict({"weight": T.zeros(2, 2)}, strict=False)
        return str(T.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1)), repr(loaded)
    assert run(ag) == run(torch)


@pytest.mark.parametrize("call", [lambda T, x: x.max(1), lambda T, x: x.sort(1, descending=True), lambda T, x: x.topk(1),
                                  lambda T, x: T.linalg.slogdet(x), lambda T, x: x.aminmax()],
                         ids=["max", "sort", "topk", "slogdet", "aminmax"])
def test_named_tuple_results_print_as_torchs_return_types(call):
    data = np.array([[1.0, 2.0], [4.0, 3.0]])   # (on the CPU in both: a GPU's tensors print their device)
    ours, theirs = repr(call(ag, ag.tensor(data, device="cpu"))), repr(call(torch, torch.tensor(data)))
    assert ours == theirs.replace("torch.return_types.", "autogradlab.return_types.").replace("torch.", "")
    assert type(call(ag, ag.tensor(data, device="cpu"))).__name__ == type(call(torch, torch.tensor(data))).__name__


INF = float("inf")


def test_add_matrix_products_leave_out_a_zero_alpha_or_beta_term_as_torch():
    """alpha = 0 leaves the product out of ``addmm``, ``addmv`` and ``addbmm`` (its inf does not make NaN), as
    beta = 0 leaves the input out (also a complex one, whose imaginary part used to leak through)."""
    def run(T):
        x = T.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=T.float64, requires_grad=True)
        out = T.addmm(x, T.full((2, 3), INF, dtype=T.float64), T.ones(3, 2, dtype=T.float64), alpha=0, beta=3)
        out.sum().backward()
        return (out, x.grad,
                T.addmv(T.ones(2), T.full((2, 3), INF), T.ones(3), alpha=0, beta=2),
                T.addbmm(T.ones(2, 2), T.full((4, 2, 3), INF), T.ones(4, 3, 2), alpha=0),
                T.baddbmm(T.ones(4, 2, 2), T.full((4, 2, 3), INF), T.ones(4, 3, 2), alpha=0),
                T.view_as_real(T.addmv(T.tensor([1 + 2j, 3 + 0j]), T.eye(2, dtype=T.complex64),
                                       T.tensor([1j, 1 + 0j]), beta=0)))
    same_results(run, rtol=0)


def test_integer_and_bool_add_matrix_products_take_their_scalars_as_torch():
    def run(T):
        c, a, b = T.arange(4).reshape(2, 2), T.ones(2, 3, dtype=T.int64), T.ones(3, 2, dtype=T.int64)
        flags = T.tensor([[True, False]]), T.tensor([True]), T.tensor([True, False])
        return (T.addmm(c, a, b, beta=0.5), T.addmm(c, a, b, alpha=0.5), T.addr(*flags, beta=2),
                T.addr(*flags, beta=0), T.addr(*flags, alpha=0))
    same_results(run, rtol=0)


def test_index_copy_with_a_repeated_index_writes_the_last_slice_as_torch():
    def run(T):
        x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.index_copy(0, T.tensor([0, 2, 0]), T.tensor([2.0, 3.0, 4.0]))
        (y * T.tensor([1.0, 2.0, 3.0])).sum().backward()
        rows = T.arange(12.0).reshape(3, 4).index_copy(0, T.tensor([1, 1]), T.arange(100.0, 108.0).reshape(2, 4))
        cols = T.arange(12.0).reshape(3, 4)
        cols.index_copy_(1, T.tensor([3, 0, 3]), T.ones(3, 3) * T.tensor([7.0, 8.0, 9.0]))
        return y, x.grad, rows, cols
    same_results(run, rtol=0)


def test_diff_of_order_0_and_nansum_into_an_integer_dtype_as_torch():
    same_results(lambda T: T.diff(T.tensor([1.0, 2.0, 4.0]), n=0, prepend=T.tensor([0.0]), append=T.tensor([9.0])))
    same_results(lambda T: (T.nansum(T.tensor([1.7, -2.6, 3.5]), dtype=T.int32),
                            T.nansum(T.tensor([1, 2]), dtype=T.int16),
                            T.nansum(T.tensor([[1.5, NAN], [2.0, 1.0]]), dim=1, dtype=T.float64)))


def test_a_0_d_tensors_matrix_transposes_are_itself_with_torchs_warning():
    def run(T):
        z, x = T.tensor(1.0 + 2.0j), T.tensor(2.0)
        return (T.view_as_real(z.mT), T.view_as_real(z.mH.resolve_conj()),
                T.view_as_real(T.adjoint(z).resolve_conj()), x.mT, x.mH)
    same_results(run, rtol=0)
    with pytest.warns(UserWarning, match="deprecated on 0-D"):
        ag.tensor(1.0).mT
    with pytest.warns(UserWarning, match="deprecated on 0-D"):
        ag.adjoint(ag.tensor(1.0))


NORMS_WITH_DTYPE = {
    "vector-float64": lambda T: T.linalg.vector_norm(T.tensor([3.0, 4.0]), dtype=T.float64),
    "norm-matrix": lambda T: T.linalg.norm(T.tensor([[3.0, 4.0], [1.0, 1.0]]), dtype=T.float64),
    "matrix-nuc": lambda T: T.linalg.matrix_norm(T.tensor([[3.0, 4.0], [1.0, 1.0]]), "nuc", dtype=T.float64),
    "complex-widened": lambda T: T.linalg.vector_norm(T.tensor([3.0 + 0j, 4.0]), dtype=T.complex128),
}
NORMS_REFUSED = {
    "narrowing": lambda T: T.linalg.vector_norm(T.tensor([3.0, 4.0], dtype=T.float64), dtype=T.float32),
    "real-to-complex": lambda T: T.linalg.vector_norm(T.tensor([3.0, 4.0]), dtype=T.complex64),
    "complex-to-real": lambda T: T.linalg.vector_norm(T.tensor([3.0 + 0j, 4.0]), dtype=T.float32),
    "integers": lambda T: T.linalg.vector_norm(T.tensor([3, 4]), dtype=T.float32),
}


@pytest.mark.parametrize("call", NORMS_WITH_DTYPE.values(), ids=NORMS_WITH_DTYPE.keys())
def test_norms_take_a_dtype_as_torch(call):
    same_results(call)


@pytest.mark.parametrize("call", NORMS_REFUSED.values(), ids=NORMS_REFUSED.keys())
def test_norms_refuse_the_dtypes_torch_refuses(call):
    both_raise(lambda: call(ag), lambda: call(torch))


def test_unflatten_with_minus_one_on_an_empty_tensor_and_split_refusals_as_torch():
    same_results(lambda T: T.zeros(0, 3).unflatten(1, (-1, 1)))
    both_raise(lambda: ag.split(ag.arange(3.0), [1, -1, 3]), lambda: torch.split(torch.arange(3.0), [1, -1, 3]))
    both_raise(lambda: ag.split(ag.tensor(1.0), 1), lambda: torch.split(torch.tensor(1.0), 1))
    both_raise(lambda: ag.where(ag.tensor([1, 0]), ag.ones(2), ag.zeros(2)),
               lambda: torch.where(torch.tensor([1, 0]), torch.ones(2), torch.zeros(2)))


@pytest.mark.parametrize("rows", [3, 1])
def test_index_copy_checks_the_number_of_source_slices_as_torch(rows):
    def call(T):
        return T.zeros(3, 2).index_copy(0, T.tensor([0, 0]), T.arange(2.0 * rows).reshape(rows, 2))
    both_raise(lambda: call(ag), lambda: call(torch))


def test_bool_addr_refuses_a_fractional_scalar_as_torch():
    flags = lambda T: (T.tensor([[True, False]]), T.tensor([True]), T.tensor([True, False]))  # noqa: E731
    both_raise(lambda: ag.addr(*flags(ag), beta=1.5), lambda: torch.addr(*flags(torch), beta=1.5))


def test_matrix_power_0_and_qr_r_keep_a_gradient_path():
    """``matrix_power(A, 0)`` is the identity recorded with gradient 0 (torch's output requires grad too);
    ``qr(mode='r')``'s R has the reduced mode's gradient, where it used to be a constant (torch's backward
    refuses it)."""
    def power_0(T):
        a = _leaf(T)
        power = T.linalg.matrix_power(a, 0)
        power.sum().backward()
        return power, a.grad
    same_results(power_0, rtol=0)
    a = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]])
    ours = ag.tensor(a, requires_grad=True)
    ag.linalg.qr(ours, mode="r")[1].sum().backward()
    theirs = torch.tensor(a, requires_grad=True)
    torch.linalg.qr(theirs, mode="reduced")[1].sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-10)


def _leaf(T):
    return T.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)


@pytest.mark.parametrize("call", [lambda T: T.linalg.vander(T.tensor([1, 2, 3], dtype=T.int32)),
                                  lambda T: T.vander(T.tensor([True, False])),
                                  lambda T: T.vander(T.tensor([1, 2], dtype=T.uint8)),
                                  lambda T: T.fft.fftfreq(5, 0.5), lambda T: T.fft.rfftfreq(0)],
                         ids=["linalg-int32", "bool", "uint8", "fftfreq", "rfftfreq-0"])
def test_vander_and_frequencies_dtypes_as_torch(call):
    same_results(call, rtol=0)


@pytest.mark.parametrize("call", [lambda T: T.linalg.vander(T.tensor([True, False])),
                                  lambda T: T.linalg.vander(T.tensor([1.0, 2.0], dtype=T.float16)),
                                  lambda T: T.fft.fftfreq(4, dtype=T.int64), lambda T: T.fft.fftfreq(-1)],
                         ids=["linalg-bool", "linalg-half", "integer-frequencies", "negative-n"])
def test_vander_and_frequencies_refusals_as_torch(call):
    both_raise(lambda: call(ag), lambda: call(torch))


def test_ldexp_with_an_infinite_exponent_as_torch():
    def run(T):
        x = T.tensor([1.5, -2.0, 0.0, 3.0], dtype=T.float64, requires_grad=True)
        y = T.ldexp(x, T.tensor([INF, -INF, INF, 2.0], dtype=T.float64))
        y.sum().backward()
        return y, x.grad
    same_results(run, rtol=0)


@pytest.mark.parametrize("call", [
    lambda T: T.logaddexp2(T.tensor([True]), T.tensor([1.0], dtype=T.float16)),
    lambda T: T.logaddexp2(T.tensor([1], dtype=T.int8), T.tensor(1.0, dtype=T.float64)),
    lambda T: T.logaddexp2(T.tensor([0.5], dtype=T.float16), T.tensor([0.6]))],
    ids=["bool-half", "int8-0d-double", "half-float"])
def test_logaddexp2_of_mixed_dtypes_as_torch(call):
    """Promoted first, then scaled by ln 2: the dtype is torch's, and float16 with float32 is float32-accurate."""
    same_results(call, rtol=1e-6)


def test_alpha_scales_in_the_result_dtype_as_torch():
    """``sub(int16, uint8, alpha=-1)`` wrapped around in uint8 (-255), ``add(float32, float16 60000, alpha=2)``
    overflowed in float16: torch scales after promoting."""
    def run(T):
        a = T.tensor([1.0], requires_grad=True)
        b = T.tensor([2.0], dtype=T.float64, requires_grad=True)
        y = T.add(a, b, alpha=3)
        y.sum().backward()
        return (T.sub(T.tensor([0], dtype=T.int16), T.tensor([1], dtype=T.uint8), alpha=-1),
                T.add(T.tensor([0.0]), T.tensor([60000.0], dtype=T.float16), alpha=2),
                T.add(T.tensor([1.5], dtype=T.float16), T.tensor(2.0, dtype=T.float64), alpha=3),
                T.add(T.tensor([1, 2]), T.tensor(True), alpha=2), y, a.grad, b.grad)
    same_results(run, rtol=0)


def test_the_divisor_gradient_does_not_overflow_as_torch():
    """d(a/b)/db taken as ``-g * (a/b) / b``: ``a / (b*b)`` gave 0 once ``b*b`` overflowed (float32 past 1.8e19)."""
    def run(T):
        a = T.tensor([1e20, 1e-30, 3.0, -2.0], requires_grad=True)
        b = T.tensor([1e20, 1e-30, 4e19, 1e-25], requires_grad=True)
        (a / b).sum().backward()
        a64 = T.tensor([1e100], dtype=T.float64, requires_grad=True)
        b64 = T.tensor([1e160], dtype=T.float64, requires_grad=True)
        (a64 / b64).sum().backward()
        return a.grad, b.grad, b64.grad
    same_results(run, rtol=1e-6)


def test_addcmul_and_addcdiv_promote_all_three_first_as_torch():
    """Two float16 factors beside a float32 input multiply (and divide) in float32, as torch: in float16
    ``300 * 300`` was inf; uint8 factors beside a float32 or int16 input no longer wrap around in uint8;
    float32 factors beside a float64 input multiply in float64."""
    def run(T):
        half = lambda v: T.tensor([v], dtype=T.float16, requires_grad=True)
        a, b, c = half(300.0), half(300.0), half(1e-3)
        x = T.zeros(1)
        y = T.addcmul(x, a, b, value=0.5) + T.addcdiv(x, a, c, value=0.01)
        y.sum().backward()
        z = T.zeros(1)
        z.addcmul_(T.tensor([300.0], dtype=T.float16), T.tensor([300.0], dtype=T.float16), value=0.5)
        uint8 = T.tensor([255, 16, 200], dtype=T.uint8)
        return (y, a.grad, b.grad, c.grad, z,
                T.addcmul(T.tensor([1.0], dtype=T.float64), T.tensor([0.1]), T.tensor([0.1])),
                T.addcmul(T.zeros(3), uint8, uint8), T.addcmul(T.zeros(3, dtype=T.int16), uint8, uint8),
                T.addcdiv(T.zeros(1, dtype=T.float64), T.tensor([1.0]), T.tensor([3.0])))
    same_results(run, rtol=1e-12)


def test_copysign_gives_other_a_zero_gradient_as_torch():
    """``other`` lends only its sign bit: torch's gradient for it is zeros (it stays in the graph, so
    ``autograd.grad`` of it is no error); input's is result / input (NaN at a NaN, 0 at 0), to second order."""
    def run(T):
        a = T.tensor([1.0, -2.0, 0.0, -0.0, 3.0, NAN], dtype=T.float64, requires_grad=True)
        b = T.tensor([-1.0, 3.0, -2.0, 1.0, -0.0, 2.0], dtype=T.float64, requires_grad=True)
        ga, gb = T.autograd.grad((T.copysign(a, b) * T.arange(6.0)).sum(), [a, b], create_graph=True)
        h, = T.autograd.grad((ga * ga).sum(), a)
        c = T.tensor([2.0, 3.0], requires_grad=True)
        d = T.tensor([-1.0], dtype=T.float16, requires_grad=True)
        T.copysign(c, d).sum().backward()
        return ga, gb, h, c.grad, d.grad
    same_results(run, rtol=0)


def test_truncated_integer_division_at_the_most_negative_integer_as_torch():
    """|a| // |b| signed overflowed at INT_MIN (|-128| is -128 in int8): -128 / 2 truncated gave +64."""
    rng = np.random.default_rng(0)
    for dtype in ("int8", "int16", "int32", "int64", "uint8"):
        info = np.iinfo(dtype)
        a = np.concatenate([rng.integers(info.min, info.max, 200, dtype=dtype, endpoint=True),
                            np.array([info.min, info.min, info.max, 0], dtype=dtype)])
        b = np.concatenate([rng.integers(info.min, info.max, 200, dtype=dtype, endpoint=True),
                            np.array([2, 3, 7, 5], dtype=dtype)])
        b[b == 0] = 1
        same_results(lambda T: T.div(T.tensor(a), T.tensor(b), rounding_mode="trunc"), rtol=0)
    same_results(lambda T: T.div(T.tensor([-2 ** 63]), 2, rounding_mode="trunc"), rtol=0)


ALPHAS = {
    "an int sum with alpha=2.0": lambda T: T.add(T.tensor([1, 2]), T.tensor([3, 4]), alpha=2.0),
    "an int sum with a number and alpha=2.0": lambda T: T.add(T.tensor([1, 2]), 3, alpha=2.0),
    "a float sum with alpha=1j": lambda T: T.add(T.tensor([1.0, 2]), T.tensor([3.0, 4]), alpha=1j),
    "an int sum with alpha=True": lambda T: T.add(T.tensor([1, 2]), T.tensor([3, 4]), alpha=True),
    "a float sum with alpha=True": lambda T: T.add(T.tensor([1.0, 2]), T.tensor([3, 4]), alpha=True),
    "int minus bool with alpha=2": lambda T: T.sub(T.tensor([1, 2]), T.tensor([True, False]), alpha=2),
    "float minus True with alpha=2": lambda T: T.sub(T.tensor([1.0, 2]), True, alpha=2),
    "add_ of ints with alpha=2.0": lambda T: T.tensor([1, 2]).add_(T.tensor([3, 4]), alpha=2.0),
    "addr of ints with alpha=2.0": lambda T: T.addr(T.tensor([[1, 2], [3, 4]]), T.tensor([1, 2]), T.tensor([1, 2]),
                                                  alpha=2.0),
    "addr of floats with alpha=True": lambda T: T.addr(T.ones(2, 2), T.ones(2), T.ones(2), alpha=True),
    "bool ** a bool tensor": lambda T: T.tensor([True, False]) ** T.tensor([True, True]),
    "True ** a bool tensor": lambda T: True ** T.tensor([True, False]),
    "an int beyond int64 among floats": lambda T: T.tensor([2 ** 63, 1.0], dtype=T.int64),
    "an int beyond int64 among floats, as_tensor": lambda T: T.as_tensor([-2 ** 63 - 1, 1.0], dtype=T.int64),
}


@pytest.mark.parametrize("call", list(ALPHAS))
def test_scalar_factors_bool_powers_and_big_integers_refused_as_torch(call):
    """PyTorch checks alpha against the result's dtype (a float one, even 2.0, not for integers; a bool one only
    for bools; a complex one only for complex), refuses bool subtraction before scaling, has no bool exponent
    tensor, and refuses an int beyond int64 even where a float beside it made NumPy's array float."""
    both_raise(lambda: ALPHAS[call](ag), lambda: ALPHAS[call](torch))


def test_what_those_checks_let_through_as_torch():
    def run(T):
        b = T.tensor([True, False])
        return (T.add(b, b, alpha=2), T.add(b, b, alpha=0), T.add(T.tensor([1, 2]), 3.0, alpha=2.0),
                T.view_as_real(T.add(T.tensor([1.0, 2]), 1j, alpha=1j)),
                T.addr(T.tensor([[1, 2], [3, 4]]), T.tensor([1, 2]), T.tensor([1, 2]), alpha=2),
                T.tensor([1.0, 2]).sub_(T.tensor([3.0, 4]), alpha=0.5), b ** True, b ** False, T.pow(b, True),
                b.clone().pow_(False), b ** 2, T.tensor([2 ** 62, 1.5], dtype=T.int64))
    same_results(run, rtol=0)


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8"])
def test_arange_with_float_ends_and_an_integer_dtype_as_torch(dtype):
    """int64 truncates the three first; the narrower integer dtypes count from the floats, then truncate start
    and step (int32's arange(0, 5.5) has 6 values, int64's 5; a step of -0.1 repeats the start 50 times)."""
    for args in ((0, 5.5), (0, 10, 2.5), (0.5, 4.2, 1.0), (-1.5, 3, 1), (0, 5.5, 1.5), (5,), (0, 7, 2),
                 (3, -4, -2), (1.5, 1.5), (0, -2.5, -0.5), (2.0, -3.0, -0.1), (1.9, 5.1, 0.9)):
        call = lambda T: T.arange(*args, dtype=getattr(T, dtype))
        try:
            expected = call(torch)
        except Exception:   # noqa: BLE001  (torch refuses: so must we)
            both_raise(lambda: call(ag), lambda: call(torch))
            continue
        assert call(ag).tolist() == expected.tolist(), args


def test_index_select_keeps_its_own_copy_of_the_index():
    """The int64 index was kept as the user's own array: written in place after the forward (``i.fill_(2)``),
    it moved the gradient to the wrong elements. torch raises there (a saved tensor changed); autogradlab
    gives the gradient of the indexing that happened, as for ``x[i]`` (README: differences from PyTorch)."""
    for select in (lambda x, i: x.index_select(0, i), lambda x, i: ag.index_select(x, 0, i)):
        x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
        i = ag.tensor([0, 0])
        y = select(x, i)
        i.fill_(2)
        y.sum().backward()
        assert x.grad.tolist() == [2.0, 0.0, 0.0]
