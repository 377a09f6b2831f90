"""Recurrent layers (``nn.RNN``, ``nn.LSTM``, ``nn.GRU`` and the cells ``RNNCell``, ``LSTMCell``, ``GRUCell``) run in
both libraries with the same weights: outputs, final states, and the gradients of the input, the initial states
and every parameter (backpropagation through time), over stacked, bidirectional, batch-first, bias-free, relu and
unbatched configurations; reprs, parameter names and shapes, initialisation bounds, dropout between layers,
errors; and finite differences to second order in float64."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import import_torch
from torch_compare import both_raise, close, pair

import autogradlab as ag
import autogradlab.nn as nn
from autogradlab.testing import gradcheck, gradgradcheck

torch = import_torch()


def _data(shape, seed, dtype="float64"):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _twins(cls, *args, dtype="float64", **kwargs):
    """The same layer in both libraries, with torch's initial weights copied into ours."""
    theirs = getattr(torch.nn, cls)(*args, **kwargs, dtype=getattr(torch, dtype))
    ours = getattr(nn, cls)(*args, **kwargs, dtype=dtype)
    ours.load_state_dict({k: ag.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    return ours, theirs


def _states(out):
    """A layer's or cell's result as a flat list of tensors."""
    if isinstance(out, tuple):
        return [t for part in out for t in (_states(part) if isinstance(part, tuple) else [part])]
    return [out]


LAYERS = [
    ("RNN", {}), ("RNN", {"nonlinearity": "relu", "num_layers": 2}), ("RNN", {"bias": False, "bidirectional": True}),
    ("LSTM", {}), ("LSTM", {"num_layers": 2, "bidirectional": True}), ("LSTM", {"batch_first": True}),
    ("GRU", {}), ("GRU", {"num_layers": 3, "batch_first": True}), ("GRU", {"bidirectional": True, "bias": False}),
]


@pytest.mark.parametrize("cls, kwargs", LAYERS, ids=lambda v: str(v))
@pytest.mark.parametrize("with_state", [False, True])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_layers_match_torch_in_values_and_gradients(cls, kwargs, with_state, dtype):
    ours, theirs = _twins(cls, 3, 4, dtype=dtype, **kwargs)
    shape = (2, 5, 3) if kwargs.get("batch_first") else (5, 2, 3)
    x, tx = pair(_data(shape, 1, dtype), requires_grad=True)
    layers = ours.num_layers * (2 if ours.bidirectional else 1)
    hx = thx = None
    if with_state:
        hs = [pair(_data((layers, 2, 4), 2 + k, dtype), requires_grad=True) for k in range(2 if cls == "LSTM" else 1)]
        hx = tuple(h for h, _ in hs) if cls == "LSTM" else hs[0][0]
        thx = tuple(t for _, t in hs) if cls == "LSTM" else hs[0][1]
    out, tout = ours(x, hx), theirs(tx, thx)
    tol = 1e-12 if dtype == "float64" else 2e-6
    for a, b in zip(_states(out), _states(tout), strict=True):
        close(a, b, rtol=tol, atol=tol)
    loss = sum((t * ag.tensor(_data(tuple(t.shape), 10 + i, dtype))).sum() for i, t in enumerate(_states(out)))
    tloss = sum((t * torch.tensor(_data(tuple(t.shape), 10 + i, dtype))).sum() for i, t in enumerate(_states(tout)))
    loss.backward()
    tloss.backward()
    close(x.grad, tx.grad, rtol=10 * tol, atol=10 * tol)
    if with_state:
        for a, b in zip(_states(hx), _states(thx)):
            close(a.grad, b.grad, rtol=10 * tol, atol=10 * tol)
    for (name, p), (tname, tp) in zip(ours.named_parameters(), theirs.named_parameters(), strict=True):
        assert name == tname
        close(p.grad, tp.grad, rtol=10 * tol, atol=10 * tol)


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_one_unbatched_sequence_matches_torch(cls):
    ours, theirs = _twins(cls, 3, 4, num_layers=2)
    x, tx = pair(_data((6, 3), 3), requires_grad=True)
    out, tout = ours(x), theirs(tx)
    for a, b in zip(_states(out), _states(tout), strict=True):
        close(a, b, rtol=1e-12, atol=1e-12)
    sum(t.sum() for t in _states(out)).backward()
    sum(t.sum() for t in _states(tout)).backward()
    close(x.grad, tx.grad, rtol=1e-11, atol=1e-12)


CELLS = [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu", "bias": False}), ("LSTMCell", {}),
         ("LSTMCell", {"bias": False}), ("GRUCell", {}), ("GRUCell", {"bias": False})]


@pytest.mark.parametrize("cls, kwargs", CELLS, ids=lambda v: str(v))
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("with_state", [False, True])
def test_cells_match_torch_over_a_few_steps(cls, kwargs, batched, with_state):
    ours, theirs = _twins(cls, 3, 4, **kwargs)
    lead = (2,) if batched else ()
    xs = [pair(_data(lead + (3,), 20 + t), requires_grad=True) for t in range(3)]
    state = tstate = None
    if with_state:
        parts = [pair(_data(lead + (4,), 30 + k), requires_grad=True) for k in range(2 if cls == "LSTMCell" else 1)]
        state = tuple(a for a, _ in parts) if cls == "LSTMCell" else parts[0][0]
        tstate = tuple(b for _, b in parts) if cls == "LSTMCell" else parts[0][1]
    for x, tx in xs:                                # three steps, each feeding the next
        state, tstate = ours(x, state), theirs(tx, tstate)
    for a, b in zip(_states(state), _states(tstate), strict=True):
        close(a, b, rtol=1e-12, atol=1e-12)
    sum((t * t).sum() for t in _states(state)).backward()
    sum((t * t).sum() for t in _states(tstate)).backward()
    for (x, tx) in xs:
        close(x.grad, tx.grad, rtol=1e-11, atol=1e-12)
    for p, tp in zip(ours.parameters(), theirs.parameters(), strict=True):
        close(p.grad, tp.grad, rtol=1e-11, atol=1e-12)


def test_all_weights_lists_the_parameters_as_torch():
    for kwargs in ({}, {"num_layers": 2, "bidirectional": True}, {"bias": False}):
        ours, theirs = _twins("LSTM", 3, 4, **kwargs)
        names = {id(p): k for k, p in ours.named_parameters()}
        tnames = {id(p): k for k, p in theirs.named_parameters()}
        assert [[names[id(p)] for p in ps] for ps in ours.all_weights] == \
               [[tnames[id(p)] for p in ps] for ps in theirs.all_weights]


def test_reprs_parameter_names_shapes_and_init_as_torch():
    configs = [("RNN", (3, 5), {}), ("RNN", (3, 5), {"nonlinearity": "relu", "num_layers": 2}),
               ("LSTM", (3, 5), {"num_layers": 2, "batch_first": True, "bidirectional": True}),
               ("GRU", (3, 5), {"bias": False, "dropout": 0.5, "num_layers": 2}),
               ("RNNCell", (3, 5), {}), ("RNNCell", (3, 5), {"nonlinearity": "relu"}),
               ("LSTMCell", (3, 5), {"bias": False}), ("GRUCell", (3, 5), {})]
    for cls, args, kwargs in configs:
        ours, theirs = getattr(nn, cls)(*args, **kwargs), getattr(torch.nn, cls)(*args, **kwargs)
        assert repr(ours) == repr(theirs)
        assert [(k, tuple(p.shape)) for k, p in ours.named_parameters()] == \
               [(k, tuple(p.shape)) for k, p in theirs.named_parameters()]
        for p in ours.parameters():                   # U(-1/sqrt(hidden), 1/sqrt(hidden)), as PyTorch
            assert np.abs(p.detach().numpy()).max() <= 1 / np.sqrt(5)
    ag.manual_seed(0)
    big = np.concatenate([p.detach().numpy().ravel() for p in nn.LSTM(64, 64).parameters()])
    assert big.min() < -0.12 and big.max() > 0.12 and abs(big.mean()) < 0.005   # fills the range


def test_dropout_between_layers_as_torch():
    ours, theirs = _twins("GRU", 3, 4, num_layers=2, dropout=1.0)   # p = 1: the second layer sees zeros
    x, tx = pair(_data((5, 2, 3), 4))
    close(ours(x)[0], theirs(tx)[0], rtol=1e-12, atol=1e-12)
    ours.eval()
    theirs.eval()
    close(ours(x)[0], theirs(tx)[0], rtol=1e-12, atol=1e-12)


def test_dropout_p_zeroes_and_scales_the_inputs_of_the_layers_above_only():
    ag.manual_seed(3)
    plain = nn.RNN(3, 4, num_layers=2, dtype="float64")
    dropped = nn.RNN(3, 4, num_layers=2, dropout=0.5, dtype="float64")
    dropped.load_state_dict(plain.state_dict())
    x = ag.tensor(_data((6, 2, 3), 8))
    ag.manual_seed(4)
    mask = ag.nn.functional.dropout(ag.ones(6, 2, 4, dtype=ag.float64), 0.5, True).numpy()   # the mask it will draw
    assert set(np.unique(mask)) == {0.0, 2.0}                                                # 0, or 1/(1 - p)
    ag.manual_seed(4)
    out, h = dropped(x)
    # by hand: layer 0 as in the plain model, its output times the mask, then layer 1
    one = nn.RNN(3, 4, dtype="float64")
    one.load_state_dict({k.replace("_l0", "_l0"): v for k, v in plain.state_dict().items() if k.endswith("_l0")})
    top = nn.RNN(4, 4, dtype="float64")
    top.load_state_dict({k.replace("_l1", "_l0"): v for k, v in plain.state_dict().items() if k.endswith("_l1")})
    below, h0 = one(x)
    expected, h1 = top(below * ag.tensor(mask))
    close(out, torch.tensor(expected.detach().numpy()), rtol=1e-12, atol=1e-12)
    close(h[0], torch.tensor(h0[0].detach().numpy()), rtol=1e-12, atol=1e-12)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nn.LSTM(3, 4, dropout=0.2)
        torch.nn.LSTM(3, 4, dropout=0.2)
    assert [str(w.message)[:40] for w in caught][0] == [str(w.message)[:40] for w in caught][1]


def test_the_backward_of_a_long_sequence_takes_its_steps_in_l_log_l_not_l_squared(monkeypatch):
    """Taking L steps out of the (L, N, G) input projection by halving: the zero-padded gradients of the slices
    add up to about L log L steps' worth of elements (slicing the whole sequence per step: L^2)."""
    from autogradlab.ops import shape as S
    made = []
    original = S._scatter_forward
    monkeypatch.setattr(S.SCATTER_ADD, "forward", lambda xp, g, shape, index, advanced:
                        made.append(int(np.prod(shape)) if len(shape) == 3 else 0)   # (time slices only)
                        or original(xp, g, shape, index, advanced))
    L, n, h = 64, 2, 3
    gru = nn.GRU(2, h)
    x = ag.tensor(_data((L, n, 2), 9, "float32"), requires_grad=True)
    out, _ = gru(x)
    out.sum().backward()
    step = n * 3 * h                                   # one step of the (L, N, 3h) projection
    # halving: log2(L) levels, at each two slices of every part padded to its size (2L steps), then L leaves
    assert sum(made) == (2 * np.log2(L) + 1) * L * step
    assert sum(made) < L * L * step / 4                # (per-step slices of the whole sequence: L^2 steps)


def test_gradients_through_time_against_finite_differences_to_second_order():
    ag.manual_seed(2)
    lstm = nn.LSTM(2, 3, dtype="float64")
    gru = nn.GRUCell(2, 3, dtype="float64")
    x = ag.tensor(_data((4, 1, 2), 5), requires_grad=True)
    h = ag.tensor(_data((1, 3), 6), requires_grad=True)
    assert gradcheck(lambda a: lstm(a)[0], (x,))
    assert gradcheck(lambda a, b: gru(a[0, 0:1], gru(a[1, 0:1], b)), (x, h))
    assert gradgradcheck(lambda a, b: gru(a[0, 0:1], gru(a[1, 0:1], b)), (x, h))
    w = lstm.weight_hh_l0
    assert gradcheck(lambda weight: _with_weight(lstm, weight, x), (w,))


def _with_weight(lstm, weight, x):
    saved = lstm.weight_hh_l0
    lstm._parameters["weight_hh_l0"] = weight
    try:
        return lstm(x)[1][1]
    finally:
        lstm._parameters["weight_hh_l0"] = saved


@pytest.mark.parametrize("call", [
    lambda m, r: m.nn.LSTM(3, 4)(r(5, 2, 4)),
    lambda m, r: m.nn.GRU(3, 4)(r(5, 2, 3), r(1, 3, 4)),
    lambda m, r: m.nn.LSTM(3, 4)(r(5, 2, 3), (r(1, 2, 4), r(2, 2, 4))),
    lambda m, r: m.nn.RNN(3, 4)(r(2, 5, 2, 3)),
    lambda m, r: m.nn.RNN(3, 4)(r(5, 3), r(1, 2, 4)),
    lambda m, r: m.nn.RNN(3, 4, nonlinearity="sigmoid"),
    lambda m, r: m.nn.GRU(3, 4, dropout=1.5),
    lambda m, r: m.nn.RNNCell(3, 4)(r(2, 5)),
    lambda m, r: m.nn.GRUCell(3, 4)(r(2, 3), r(3, 4)),
    lambda m, r: m.nn.LSTMCell(3, 4)(r(2, 2, 3)),
    lambda m, r: m.nn.LSTMCell(3, 4)(r(2, 3), (r(2, 4),)),
    lambda m, r: m.nn.RNN(0, 4),
    lambda m, r: m.nn.GRU(3, 0),
    lambda m, r: m.nn.RNN(3, 4.0),
    lambda m, r: m.nn.LSTM(3, 4, num_layers=0),
    lambda m, r: m.nn.GRU(3, 4, proj_size=2),
    lambda m, r: m.nn.RNN(3, 4)(r(0, 2, 3)),
    lambda m, r: m.nn.GRU(3, 4, batch_first=True)(r(2, 0, 3)),
    lambda m, r: m.nn.LSTM(3, 4)(r(5, 2, 3).double()),
])
def test_errors_as_in_torch(call):
    both_raise(lambda: call(ag, lambda *s: ag.randn(*s)), lambda: call(torch, lambda *s: torch.randn(*s)))


def test_an_unknown_nonlinearity_is_refused_when_built():
    cell = torch.nn.RNNCell(3, 4, nonlinearity="gelu")        # torch: built, and refused at the first call
    with pytest.raises(RuntimeError):
        cell(torch.randn(2, 3))
    with pytest.raises(ValueError, match="Unknown nonlinearity"):
        nn.RNNCell(3, 4, nonlinearity="gelu")


def test_a_small_lstm_learns_a_sequence_task_like_torchs():
    """Three SGD steps of an LSTM reading sequences and a Linear head: the same losses and weights as torch."""
    def model(lib):
        class Net(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.lstm = lib.nn.LSTM(2, 5, batch_first=True)
                self.head = lib.nn.Linear(5, 2)

            def forward(self, x):
                out, _ = self.lstm(x)
                return self.head(out[:, -1])
        return Net()
    torch.manual_seed(0)
    theirs = model(torch).double()
    ours = model(ag).to(ag.float64)
    ours.load_state_dict({k: ag.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    x, tx = pair(_data((8, 6, 2), 7))
    y, ty = pair(np.array([0, 1, 1, 0, 1, 0, 0, 1]))
    opt, topt = ag.optim.SGD(ours.parameters(), lr=0.5), torch.optim.SGD(theirs.parameters(), lr=0.5)
    for _ in range(3):
        for o, net, inp, lab, F in ((opt, ours, x, y, ag.nn.functional), (topt, theirs, tx, ty, torch.nn.functional)):
            o.zero_grad()
            F.cross_entropy(net(inp), lab).backward()
            o.step()
    for (k, p), (_, tp) in zip(ours.state_dict().items(), theirs.state_dict().items()):
        close(p, tp, rtol=1e-10, atol=1e-12)


def test_the_base_classes_are_torchs():
    """``isinstance(m, nn.RNNBase)`` (weight-init loops test it) and ``RNNCellBase``: the same hierarchy, and the
    base classes built directly with torch's signatures (the mode first; the number of gate chunks)."""
    for T in (ag, torch):
        nn = T.nn
        assert all(isinstance(m, nn.RNNBase) for m in (nn.RNN(2, 3), nn.LSTM(2, 3), nn.GRU(2, 3)))
        assert all(isinstance(m, nn.RNNCellBase) for m in (nn.RNNCell(2, 3), nn.LSTMCell(2, 3), nn.GRUCell(2, 3)))
        assert not isinstance(nn.LSTMCell(2, 3), nn.RNNBase)
    ours, theirs = ag.nn.RNNBase("LSTM", 3, 4, 2, bidirectional=True), torch.nn.RNNBase("LSTM", 3, 4, 2,
                                                                                        bidirectional=True)
    assert {n: tuple(p.shape) for n, p in ours.named_parameters()} == \
        {n: tuple(p.shape) for n, p in theirs.named_parameters()}
    cells = ag.nn.RNNCellBase(3, 4, True, 4), torch.nn.RNNCellBase(3, 4, True, 4)
    assert {n: tuple(p.shape) for n, p in cells[0].named_parameters()} == \
        {n: tuple(p.shape) for n, p in cells[1].named_parameters()}
    both_raise(lambda: ag.nn.RNNBase("ELMAN", 3, 4), lambda: torch.nn.RNNBase("ELMAN", 3, 4))
    both_raise(lambda: cells[0](ag.zeros(2, 3)), lambda: cells[1](torch.zeros(2, 3)))
