"""PyTorch's remaining losses (poisson_nll_loss, gaussian_nll_loss, soft_margin_loss, multilabel_soft_margin_loss,
multi_margin_loss, as functions and modules) and initialisers (trunc_normal_, orthogonal_, eye_, dirac_,
sparse_), side by side with torch 2.13: loss values and the gradient of every differentiable input in float64 to
1e-10 and in float32, over options and reductions, finite differences, and the errors torch raises; for the
initialisers, what each promises (the initialisers' random numbers are NumPy's, not torch's)."""
import math

import numpy as np
import pytest
from conftest import host, import_torch
from torch_compare import both_raise, close

import autogradlab as ag
import autogradlab.nn as nn
import autogradlab.nn.functional as F
from autogradlab.testing import gradcheck

torch = import_torch()
TF = torch.nn.functional
TOL = {"float64": dict(rtol=1e-10, atol=1e-12), "float32": dict(rtol=2e-5, atol=2e-6)}


def _run(call, arrays, grad_of, dtype):
    """call(F-module, tensors...) in both libraries on the same arrays; the value and the gradients of the
    inputs named by ``grad_of`` (their indices) compared."""
    outs, grads = [], []
    for lib, T in ((F, ag), (TF, torch)):
        tensors = [T.tensor(np.asarray(a).astype(dtype) if np.asarray(a).dtype.kind == "f" else np.asarray(a),
                            requires_grad=i in grad_of) for i, a in enumerate(arrays)]
        out = call(lib, T, *tensors)
        weights = T.tensor(np.linspace(0.5, 1.5, max(int(np.prod(out.shape)), 1)).reshape(tuple(out.shape))
                           .astype(dtype))
        (out * weights).sum().backward()
        outs.append(out)
        grads.append([tensors[i].grad for i in grad_of])
    close(outs[0], outs[1], **TOL[dtype])
    for a, b in zip(*grads):
        close(a, b, **TOL[dtype])


RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 3))
COUNTS = RNG.integers(0, 5, (4, 3)).astype(np.float64)
SIGNS = np.where(RNG.random((4, 3)) < 0.5, -1.0, 1.0)
LABELS = (RNG.random((4, 3)) < 0.5).astype(np.float64)
CLASSES = np.array([0, 2, 1, 2])
VAR = RNG.random((4, 3)) + 0.1

CASES = {
    "poisson-log-input": (lambda L, T, x, y: L.poisson_nll_loss(x, y), (X, COUNTS), (0,)),
    "poisson-rates": (lambda L, T, x, y: L.poisson_nll_loss(x, y, log_input=False), (np.abs(X) + 0.1, COUNTS), (0,)),
    "poisson-full": (lambda L, T, x, y: L.poisson_nll_loss(x, y, full=True, reduction="sum"), (X, COUNTS), (0,)),
    "poisson-none": (lambda L, T, x, y: L.poisson_nll_loss(x, y, reduction="none"), (X, COUNTS), (0, 1)),
    "gaussian": (lambda L, T, x, y, v: L.gaussian_nll_loss(x, y, v), (X, X[::-1].copy(), VAR), (0, 1, 2)),
    "gaussian-full-sum": (lambda L, T, x, y, v: L.gaussian_nll_loss(x, y, v, full=True, reduction="sum"),
                          (X, X * 0.5, VAR), (0, 2)),
    "gaussian-one-var-per-sample": (lambda L, T, x, y, v: L.gaussian_nll_loss(x, y, v, reduction="none"),
                                    (X, X * 0.5, VAR[:, :1].copy()), (0, 2)),
    "gaussian-var-one-dim-fewer": (lambda L, T, x, y, v: L.gaussian_nll_loss(x, y, v), (X, X * 0.5, VAR[:, 0].copy()),
                                   (0, 2)),
    "gaussian-var-below-eps": (lambda L, T, x, y, v: L.gaussian_nll_loss(x, y, v, eps=0.3), (X, X * 0.5, VAR),
                               (0, 2)),
    "gaussian-number-var": (lambda L, T, x, y: L.gaussian_nll_loss(x, y, 0.5), (X, X * 0.5), (0,)),
    "soft-margin": (lambda L, T, x, y: L.soft_margin_loss(x, y), (X, SIGNS), (0,)),
    "soft-margin-none": (lambda L, T, x, y: L.soft_margin_loss(x, y, reduction="none"), (X * 3, SIGNS), (0,)),
    "multilabel": (lambda L, T, x, y: L.multilabel_soft_margin_loss(x, y), (X, LABELS), (0,)),
    "multilabel-weight": (lambda L, T, x, y, w: L.multilabel_soft_margin_loss(x, y, weight=w, reduction="none"),
                          (X, LABELS, np.array([0.5, 1.0, 2.0])), (0,)),
    "multilabel-1d": (lambda L, T, x, y: L.multilabel_soft_margin_loss(x, y), (X[0], LABELS[0]), (0,)),
    "multi-margin": (lambda L, T, x, y: L.multi_margin_loss(x, y), (X, CLASSES), (0,)),
    "multi-margin-p2": (lambda L, T, x, y: L.multi_margin_loss(x, y, p=2, margin=0.5, reduction="sum"),
                        (X, CLASSES), (0,)),
    "multi-margin-weight": (lambda L, T, x, y, w: L.multi_margin_loss(x, y, weight=w, reduction="none"),
                            (X, CLASSES, np.array([1.0, 0.5, 2.0])), (0,)),
    "multi-margin-one-sample": (lambda L, T, x, y: L.multi_margin_loss(x, y), (X[1], np.array(2)), (0,)),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_losses_values_and_gradients_match_torch(name, dtype):
    call, arrays, grad_of = CASES[name]
    _run(call, arrays, grad_of, dtype)


@pytest.mark.parametrize("name", ["poisson-log-input", "gaussian", "soft-margin", "multilabel", "multi-margin-p2"])
def test_losses_pass_finite_differences(name):
    call, arrays, grad_of = CASES[name]
    tensors = [ag.tensor(np.asarray(a), requires_grad=i in grad_of) for i, a in enumerate(arrays)]
    assert gradcheck(lambda *xs: call(F, ag, *xs), tensors)


@pytest.mark.parametrize("cls, args, kwargs, inputs", [
    ("PoissonNLLLoss", (), dict(log_input=False, full=True), (np.abs(X) + 0.1, COUNTS)),
    ("GaussianNLLLoss", (), dict(full=True, eps=1e-3), (X, X * 0.5, VAR)),
    ("SoftMarginLoss", (), dict(reduction="sum"), (X, SIGNS)),
    ("MultiLabelSoftMarginLoss", (), dict(reduction="none"), (X, LABELS)),
    ("MultiMarginLoss", (2, 0.7), dict(), (X, CLASSES)),
])
def test_loss_modules_match_torch(cls, args, kwargs, inputs):
    ours = getattr(nn, cls)(*args, **kwargs)
    theirs = getattr(torch.nn, cls)(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    close(ours(*[ag.tensor(a) for a in inputs]), theirs(*[torch.tensor(a) for a in inputs]), **TOL["float64"])


def test_weighted_loss_modules_keep_the_weight_as_a_buffer_as_torch():
    w = np.array([1.0, 0.5, 2.0])
    for cls in ("MultiMarginLoss", "MultiLabelSoftMarginLoss"):
        ours, theirs = getattr(nn, cls)(weight=ag.tensor(w)), getattr(torch.nn, cls)(weight=torch.tensor(w))
        assert list(ours.state_dict()) == list(theirs.state_dict()) == ["weight"]


@pytest.mark.parametrize("call", [
    lambda L, T: L.gaussian_nll_loss(T.zeros(3, 2), T.zeros(3, 2), T.ones(2, 2)),
    lambda L, T: L.gaussian_nll_loss(T.zeros(3), T.zeros(3), -T.ones(3)),
    lambda L, T: L.gaussian_nll_loss(T.zeros(3), T.zeros(3), T.ones(3), reduction="avg"),
    lambda L, T: L.multi_margin_loss(T.zeros(2, 3), T.tensor([0, 1]), p=3),
    lambda L, T: L.multi_margin_loss(T.zeros(2, 3), T.tensor([0, 3])),
    lambda L, T: L.soft_margin_loss(T.zeros(3), T.ones(3), reduction="avg"),
    lambda L, T: L.poisson_nll_loss(T.zeros(3), T.ones(3), reduction="avg"),
], ids=["gaussian-var-shape", "gaussian-negative-var", "gaussian-reduction", "multi-margin-p3",
        "multi-margin-class-out-of-range", "soft-margin-reduction", "poisson-reduction"])
def test_losses_refuse_what_torch_refuses(call):
    both_raise(lambda: call(F, ag), lambda: call(TF, torch))


# -- initialisers ------------------------------------------------------------------------------------------

def _host(t):
    return host(t.detach().data)


def test_trunc_normal_stays_in_its_bounds_with_torchs_moments():
    ours = nn.init.trunc_normal_(ag.zeros(20000), mean=1.0, std=2.0, a=-1.0, b=2.0,
                                 generator=ag.Generator().manual_seed(0))
    torch.manual_seed(0)
    theirs = torch.nn.init.trunc_normal_(torch.zeros(20000), mean=1.0, std=2.0, a=-1.0, b=2.0)
    values = _host(ours)
    assert values.min() >= -1.0 and values.max() <= 2.0
    assert abs(values.mean() - float(theirs.mean())) < 0.03 and abs(values.std() - float(theirs.std())) < 0.03


@pytest.mark.parametrize("shape, gain", [((3, 5), 1.0), ((5, 3), 2.0), ((4, 2, 3), 0.5), ((4, 4), 1.0)])
def test_orthogonal_gives_orthonormal_rows_or_columns_times_the_gain(shape, gain):
    w = nn.init.orthogonal_(ag.zeros(*shape, requires_grad=True), gain=gain)
    flat = _host(w).reshape(shape[0], -1) / gain
    small = min(flat.shape)
    gram = flat @ flat.T if flat.shape[0] == small else flat.T @ flat
    np.testing.assert_allclose(gram, np.eye(small), atol=1e-5)
    assert w.requires_grad and w.grad is None


@pytest.mark.parametrize("call", [lambda M, t: M.nn.init.eye_(t), lambda M, t: M.nn.init.dirac_(t),
                                  lambda M, t: M.nn.init.dirac_(t, 2)],
                         ids=["eye_", "dirac_", "dirac_-groups"])
@pytest.mark.parametrize("shape", [(2, 3), (4, 2, 3), (4, 2, 3, 3), (6, 3, 1, 3, 2)])
def test_deterministic_initialisers_match_torch(call, shape):
    try:
        expected = call(torch, torch.zeros(*shape)).numpy()
    except ValueError:
        with pytest.raises(ValueError):
            call(ag, ag.zeros(*shape))
        return
    np.testing.assert_array_equal(_host(call(ag, ag.zeros(*shape))), expected)


def test_sparse_zeroes_a_fraction_of_each_column_as_torch():
    ours = _host(nn.init.sparse_(ag.zeros(10, 6), 0.3, std=0.5))
    theirs = torch.nn.init.sparse_(torch.zeros(10, 6), 0.3, std=0.5).numpy()
    assert ((ours == 0).sum(0) >= math.ceil(0.3 * 10)).all() and ((theirs == 0).sum(0) >= 3).all()
    assert 0.2 < ours[ours != 0].std() < 0.9


@pytest.mark.parametrize("call", [lambda M: M.nn.init.eye_(M.zeros(3)), lambda M: M.nn.init.orthogonal_(M.zeros(3)),
                                  lambda M: M.nn.init.sparse_(M.zeros(2, 2, 2), 0.1),
                                  lambda M: M.nn.init.dirac_(M.zeros(3, 3)),
                                  lambda M: M.nn.init.dirac_(M.zeros(3, 2, 2), 2)],
                         ids=["eye-1d", "orthogonal-1d", "sparse-3d", "dirac-2d", "dirac-groups"])
def test_initialisers_refuse_what_torch_refuses(call):
    both_raise(lambda: call(ag), lambda: call(torch))


def test_initialisers_repeat_under_a_generator():
    def draw(seed):
        g = ag.Generator().manual_seed(seed)
        return [_host(nn.init.trunc_normal_(ag.zeros(5), generator=g)).tolist(),
                _host(nn.init.orthogonal_(ag.zeros(3, 3), generator=g)).tolist(),
                _host(nn.init.sparse_(ag.zeros(4, 2), 0.5, generator=g)).tolist()]
    assert draw(3) == draw(3) and draw(3) != draw(4)


# -- pdist, gumbel_softmax, upsample ------------------------------------------------------------------------

@pytest.mark.parametrize("p", [1, 2, 3, 0.5, float("inf"), 0])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_pdist_values_and_gradients_match_torch(p, dtype):
    data = np.random.default_rng(1).standard_normal((5, 3))
    data[3] = data[1]                          # (a pair at distance 0: the gradient there is 0 in both)
    _run(lambda L, T, x: L.pdist(x, p), (data,), (0,), dtype)


@pytest.mark.parametrize("call", [lambda L, T: L.pdist(T.zeros(3)), lambda L, T: L.pdist(T.zeros(3, 2), -1),
                                  lambda L, T: L.pdist(T.zeros(2, 2, 2))], ids=["1d", "negative-p", "3d"])
def test_pdist_refuses_what_torch_refuses(call):
    both_raise(lambda: call(F, ag), lambda: call(TF, torch))


def test_pdist_of_one_row_is_empty_as_torch():
    close(F.pdist(ag.zeros(1, 3)), TF.pdist(torch.zeros(1, 3)))


def test_gumbel_softmax_soft_samples_are_distributions_and_argmax_follows_the_softmax():
    logits = ag.tensor([[1.0, 2.0, 0.5]])
    ag.manual_seed(0)
    picks = np.bincount([int(F.gumbel_softmax(logits, tau=0.5).argmax()) for _ in range(4000)], minlength=3) / 4000
    np.testing.assert_allclose(picks, _host(F.softmax(logits, 1))[0], atol=0.03)   # (the Gumbel-max trick)
    y = F.gumbel_softmax(ag.zeros(4, 5), tau=2.0)
    np.testing.assert_allclose(_host(y.sum(1)), np.ones(4), rtol=1e-6)
    theirs = TF.gumbel_softmax(torch.zeros(4, 5), tau=2.0)
    assert (tuple(y.shape), y.dtype.name) == (tuple(theirs.shape), str(theirs.dtype).removeprefix("torch."))


def test_gumbel_softmax_hard_is_one_hot_with_the_soft_samples_gradient():
    logits = ag.tensor([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]], requires_grad=True)
    weights = ag.tensor([[1.0, -2.0, 0.5], [3.0, 1.0, -1.0]])
    ag.manual_seed(4)
    hard = F.gumbel_softmax(logits, hard=True)
    (hard * weights).sum().backward()
    hard_grad, logits.grad = _host(logits.grad).copy(), None
    ag.manual_seed(4)
    soft = F.gumbel_softmax(logits)
    (soft * weights).sum().backward()
    assert _host(hard).tolist() == np.eye(3)[_host(soft).argmax(1)].tolist()
    np.testing.assert_allclose(hard_grad, _host(logits.grad), rtol=1e-6)
    theirs = TF.gumbel_softmax(torch.zeros(2, 3), hard=True)
    assert sorted(theirs.sum(1).tolist()) == [1.0, 1.0]


def test_upsample_warns_and_is_interpolate_as_in_torch():
    x = np.arange(8.0).reshape(1, 2, 4)
    with pytest.warns(UserWarning, match="interpolate"):
        ours = F.upsample(ag.tensor(x), scale_factor=2, mode="linear")
    with pytest.warns(UserWarning, match="interpolate"):
        theirs = TF.upsample(torch.tensor(x), scale_factor=2, mode="linear")
    close(ours, theirs, **TOL["float64"])


# -- unfold / fold (im2col and col2im) --------------------------------------------------------------------------

UNFOLD = [((2, 3, 5, 6), dict(kernel_size=2)), ((2, 3, 5, 6), dict(kernel_size=(2, 3), stride=(1, 2), padding=1)),
          ((1, 2, 7, 7), dict(kernel_size=3, dilation=2, padding=(2, 1))), ((3, 4, 4), dict(kernel_size=(1, 2))),
          ((1, 1, 4, 4), dict(kernel_size=4))]


@pytest.mark.parametrize("shape, kwargs", UNFOLD, ids=[str(k) for _, k in UNFOLD])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_unfold_and_fold_values_and_gradients_match_torch(shape, kwargs, dtype):
    data = np.random.default_rng(2).standard_normal(shape)
    _run(lambda L, T, x: L.unfold(x, **kwargs), (data,), (0,), dtype)
    columns = TF.unfold(torch.tensor(data), **kwargs).numpy()
    _run(lambda L, T, c: L.fold(c, shape[-2:], **kwargs), (columns,), (0,), dtype)


def test_a_convolution_is_a_matrix_product_of_unfolded_columns():
    x, w = ag.randn(2, 3, 6, 6), ag.randn(4, 3, 3, 3)
    columns = F.unfold(x, 3, padding=1)                                 # (2, 27, 36)
    product = (w.reshape(4, -1) @ columns).reshape(2, 4, 6, 6)
    np.testing.assert_allclose(_host(product), _host(F.conv2d(x, w, padding=1)), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("call", [
    lambda L, T: L.unfold(T.ones(2, 3), 2), lambda L, T: L.unfold(T.ones(1, 1, 2, 2), 3),
    lambda L, T: L.fold(T.ones(1, 4, 5), (3, 3), 2), lambda L, T: L.fold(T.ones(1, 5, 4), (3, 3), 2),
    lambda L, T: L.unfold(T.ones(1, 1, 3, 3), 0), lambda L, T: L.fold(T.ones(2, 2, 2, 2), (3, 3), 2),
], ids=["unfold-2d", "unfold-too-small", "fold-blocks", "fold-rows", "unfold-zero-kernel", "fold-4d"])
def test_unfold_and_fold_refuse_what_torch_refuses(call):
    with pytest.raises(Exception) as theirs:
        call(TF, torch)
    with pytest.raises((type(theirs.value), RuntimeError)):
        call(F, ag)


def test_unfold_and_fold_modules_match_torch():
    for args in [(2,), ((2, 3), 1, 1, 2)]:
        assert repr(nn.Unfold(*args)) == repr(torch.nn.Unfold(*args))
    assert repr(nn.Fold((4, 4), 2, stride=2)) == repr(torch.nn.Fold((4, 4), 2, stride=2))
    data = np.random.default_rng(3).standard_normal((1, 2, 4, 4))
    close(nn.Fold((4, 4), 2, stride=2)(nn.Unfold(2, stride=2)(ag.tensor(data))),
          torch.nn.Fold((4, 4), 2, stride=2)(torch.nn.Unfold(2, stride=2)(torch.tensor(data))), **TOL["float64"])
