"""``nn.utils`` (clip_grad_norm_, clip_grad_value_, get_total_norm, parameters_to_vector, vector_to_parameters) and
the containers ``ModuleDict``, ``ParameterList``, ``ParameterDict``, run in both libraries on the same data: the
clipped gradients and returned norms, the parameters a parent module sees, state_dict keys, errors."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import import_torch
from torch_compare import both_raise, close, pair

import autogradlab as ag
import autogradlab.nn as nn

torch = import_torch()
INF = float("inf")


def _params_with_grads(seed, dtype="float64", scale=3.0, shapes=((3, 4), (5,), (2, 2), (1,))):
    rng = np.random.default_rng(seed)
    ours, theirs = [], []
    for k, shape in enumerate(shapes):
        p, tp = pair(rng.standard_normal(shape).astype(dtype), requires_grad=True)
        if k != 3:      # the last one has no gradient: it is left out, as in torch
            g = (rng.standard_normal(shape) * scale).astype(dtype)
            p.grad, tp.grad = ag.tensor(g), torch.tensor(g)
        ours.append(p)
        theirs.append(tp)
    return ours, theirs


@pytest.mark.parametrize("norm_type", [2.0, 1.0, INF, 3.0, 0.5])
@pytest.mark.parametrize("max_norm", [1.5, 1e6])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_clip_grad_norm_matches_torch(norm_type, max_norm, dtype):
    ours, theirs = _params_with_grads(1, dtype)
    total = nn.utils.clip_grad_norm_(ours, max_norm, norm_type)
    ttotal = torch.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type)
    tol = 1e-12 if dtype == "float64" else 2e-6
    close(total, ttotal, rtol=tol, atol=tol)
    for p, tp in zip(ours, theirs):
        assert (p.grad is None) == (tp.grad is None)
        if p.grad is not None:
            close(p.grad, tp.grad, rtol=tol, atol=tol)
    close(nn.utils.get_total_norm([p.grad for p in ours[:3]], norm_type),
          torch.nn.utils.get_total_norm([p.grad for p in theirs[:3]], norm_type), rtol=tol, atol=tol)


@pytest.mark.filterwarnings("error")
def test_clip_grad_norm_of_one_tensor_of_nothing_and_of_a_non_finite_norm_as_torch():
    p, tp = pair(np.ones(3), requires_grad=True)
    p.grad, tp.grad = ag.tensor([3.0, 4.0, 0.0], dtype=ag.float64), torch.tensor([3.0, 4.0, 0.0], dtype=torch.float64)
    close(nn.utils.clip_grad_norm_(p, 1.0), torch.nn.utils.clip_grad_norm_(tp, 1.0), rtol=1e-12, atol=1e-12)
    close(p.grad, tp.grad, rtol=1e-12, atol=1e-12)
    close(nn.utils.clip_grad_norm_([], 1.0), torch.nn.utils.clip_grad_norm_([], 1.0), rtol=0, atol=0)
    ours, theirs = _params_with_grads(2)
    ours[0].grad.data[0, 0] = theirs[0].grad[0, 0] = INF
    before = [p.grad.numpy().copy() for p in ours[:3]]
    both_raise(lambda: nn.utils.clip_grad_norm_(ours, 1.0, error_if_nonfinite=True),
               lambda: torch.nn.utils.clip_grad_norm_(theirs, 1.0, error_if_nonfinite=True))
    for p, b in zip(ours, before):          # the failed call scaled nothing
        np.testing.assert_array_equal(p.grad.numpy(), b)
    close(nn.utils.clip_grad_norm_(ours, 1.0), torch.nn.utils.clip_grad_norm_(theirs, 1.0), rtol=0, atol=0)
    for p, tp in zip(ours[:3], theirs[:3]):
        close(p.grad, tp.grad, rtol=0, atol=0)          # scaled by 1/inf: zeros, and NaN where inf was


def test_clip_grad_value_matches_torch():
    ours, theirs = _params_with_grads(3)
    nn.utils.clip_grad_value_(ours, 1.2)
    torch.nn.utils.clip_grad_value_(theirs, 1.2)
    for p, tp in zip(ours[:3], theirs[:3]):
        close(p.grad, tp.grad, rtol=0, atol=0)
    assert max(np.abs(p.grad.numpy()).max() for p in ours[:3]) == 1.2


def test_parameters_to_vector_and_back_as_torch():
    ours, theirs = _params_with_grads(4)
    v, tv = nn.utils.parameters_to_vector(ours), torch.nn.utils.parameters_to_vector(theirs)
    close(v, tv, rtol=0, atol=0)
    (v * v).sum().backward()                       # differentiable, as torch's
    (tv * tv).sum().backward()
    for p, tp in zip(ours, theirs):
        close(p.grad, tp.grad, rtol=1e-12, atol=1e-12)
    new = np.arange(v.shape[0], dtype="float64")
    nn.utils.vector_to_parameters(ag.tensor(new), ours)
    torch.nn.utils.vector_to_parameters(torch.tensor(new), theirs)
    for p, tp in zip(ours, theirs):
        close(p, tp, rtol=0, atol=0)
    both_raise(lambda: nn.utils.vector_to_parameters(new, ours), lambda: torch.nn.utils.vector_to_parameters(new,
                                                                                                           theirs))
    with pytest.raises(ValueError, match=r"expected shape \(22,\)"):
        nn.utils.vector_to_parameters(ag.zeros(5, dtype=ag.float64), ours)


def _net(lib):
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = lib.nn.ModuleDict({"enc": lib.nn.Linear(2, 3), "act": lib.nn.ReLU()})
            self.blocks["dec"] = lib.nn.Linear(3, 1)
            self.scales = lib.nn.ParameterList([lib.nn.Parameter(lib.ones(3)), lib.zeros(1)])
            self.extra = lib.nn.ParameterDict({"bias": lib.nn.Parameter(lib.zeros(1))})

        def forward(self, x):
            h = self.blocks["act"](self.blocks["enc"](x)) * self.scales[0]
            return self.blocks["dec"](h) + self.scales[1] + self.extra["bias"]
    return Net()


def test_containers_register_what_torchs_register():
    ours, theirs = _net(ag), _net(torch)
    assert [k for k, _ in ours.named_parameters()] == [k for k, _ in theirs.named_parameters()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert list(ours.blocks.keys()) == list(theirs.blocks.keys()) == ["enc", "act", "dec"]
    assert "enc" in ours.blocks and len(ours.blocks) == 3 and len(ours.scales) == 2 and "bias" in ours.extra
    assert isinstance(ours.scales[1], nn.Parameter) and ours.scales[1].requires_grad   # a Tensor became one
    assert repr(ours.blocks) == repr(theirs.blocks)
    ours.load_state_dict({k: ag.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    x, tx = pair(np.random.default_rng(5).standard_normal((4, 2)).astype("float32"))
    close(ours(x), theirs(tx))
    ours(x).sum().backward()
    theirs(tx).sum().backward()
    for (k, p), (_, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
        close(p.grad, tp.grad, rtol=1e-5, atol=1e-6)
    assert ours.blocks.pop("act").__class__ is nn.ReLU and list(ours.blocks) == ["enc", "dec"]
    with pytest.raises(TypeError, match="not a Tensor"):
        nn.ParameterList([1.0])


@pytest.mark.parametrize("grads, dtypes, norm_type", [
    ([[300.0] * 4, [200.0] * 3], ["float16", "float16"], 2.0),      # float16 norms summed in float32
    ([[1e-4] * 4, [2e-4] * 3], ["float16", "float16"], 2.0),
    ([[1.0] * 4, [1e5]], ["float16", "float32"], 2.0),               # the total in the promoted dtype
    ([[1.0] * 4, [2.0]], ["float32", "float64"], 2.0),
    ([[1.0, 0.0, 2.0], [0.0, 3.0]], ["float32", "float32"], 0.0),    # how many are not zero
    ([[1.0, 0.0, 2.0], [0.5, 3.0]], ["float32", "float32"], -INF),   # the smallest |g|
])
def test_clip_grad_norm_in_mixed_and_half_precision_and_odd_norms_as_torch(grads, dtypes, norm_type):
    ours, theirs = [], []
    for g, d in zip(grads, dtypes):
        p, tp = pair(np.zeros(len(g), dtype=d), requires_grad=True)
        p.grad, tp.grad = ag.tensor(np.array(g, dtype=d)), torch.tensor(np.array(g, dtype=d))
        ours.append(p)
        theirs.append(tp)
    total = nn.utils.clip_grad_norm_(ours, 1.0, norm_type)
    ttotal = torch.nn.utils.clip_grad_norm_(theirs, 1.0, norm_type)
    close(total, ttotal, rtol=1e-6, atol=0)
    for p, tp in zip(ours, theirs):
        close(p.grad, tp.grad, rtol=1e-3, atol=1e-7)


def test_parameter_dict_order_and_methods_as_torch():
    from collections import OrderedDict
    for lib_values in ({"b": 1, "a": 2}, OrderedDict([("b", 1), ("a", 2)])):
        ours = nn.ParameterDict(type(lib_values)((k, nn.Parameter(ag.zeros(v))) for k, v in lib_values.items()))
        theirs = torch.nn.ParameterDict(type(lib_values)((k, torch.nn.Parameter(torch.zeros(v)))
                                                         for k, v in lib_values.items()))
        assert list(ours.keys()) == list(theirs.keys())         # a plain dict sorted, an OrderedDict as it is
        assert [k for k, _ in ours.named_parameters()] == [k for k, _ in theirs.named_parameters()]
    assert ours.get("zzz") is None and ours.pop("a").shape == (2,) and list(ours) == ["b"]
    assert ours.setdefault("c", ag.ones(1)).requires_grad and list(ours) == ["b", "c"]


@pytest.mark.parametrize("name", [1, "a.b", "", "training", "forward"])
def test_child_and_parameter_names_are_refused_as_torch(name):
    both_raise(lambda: nn.ModuleDict({name: nn.ReLU()}), lambda: torch.nn.ModuleDict({name: torch.nn.ReLU()}))
    both_raise(lambda: nn.Module().register_parameter(name, nn.Parameter(ag.zeros(1))),
               lambda: torch.nn.Module().register_parameter(name, torch.nn.Parameter(torch.zeros(1))))


# -- nn.utils.rnn: pad_sequence and unpad_sequence -------------------------------------------------------------

SEQUENCES = [np.random.default_rng(4).standard_normal((n, 3)) for n in (4, 1, 3)]


@pytest.mark.parametrize("kwargs", [dict(), dict(batch_first=True), dict(padding_value=-1.5),
                                    dict(batch_first=True, padding_side="left"), dict(padding_side="left")], ids=str)
def test_pad_sequence_values_and_gradients_match_torch(kwargs):
    outs, grads = [], []
    for T in (ag, torch):
        seqs = [T.tensor(s, requires_grad=True) for s in SEQUENCES]
        out = T.nn.utils.rnn.pad_sequence(seqs, **kwargs)
        weights = T.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)))
        (out * weights).sum().backward()
        outs.append(out)
        grads.append([s.grad for s in seqs])
    close(outs[0], outs[1], rtol=1e-12, atol=0)
    for a, b in zip(*grads):
        close(a, b, rtol=1e-12, atol=0)


def test_pad_sequence_of_one_dimensional_integer_sequences_and_a_stacked_tensor():
    for make in (lambda T: [T.tensor([1, 2, 3]), T.tensor([4])], lambda T: T.ones(2, 3)):
        close(ag.nn.utils.rnn.pad_sequence(make(ag), batch_first=True),
              torch.nn.utils.rnn.pad_sequence(make(torch), batch_first=True))


@pytest.mark.parametrize("batch_first", [False, True])
def test_unpad_sequence_inverts_pad_sequence_as_torch(batch_first):
    lengths = [len(s) for s in SEQUENCES]
    for T in (ag, torch):
        padded = T.nn.utils.rnn.pad_sequence([T.tensor(s) for s in SEQUENCES], batch_first=batch_first)
        back = T.nn.utils.rnn.unpad_sequence(padded, T.tensor(lengths), batch_first=batch_first)
        assert [tuple(b.shape) for b in back] == [s.shape for s in SEQUENCES]
        for b, s in zip(back, SEQUENCES):
            np.testing.assert_array_equal(b.numpy() if T is torch else b.detach().numpy(), s)


@pytest.mark.parametrize("call", [lambda T: T.nn.utils.rnn.pad_sequence([]),
                                  lambda T: T.nn.utils.rnn.pad_sequence([T.ones(2, 3), T.ones(2, 2)]),
                                  lambda T: T.nn.utils.rnn.pad_sequence([T.ones(2)], padding_side="up")],
                         ids=["empty", "trailing-shapes", "padding-side"])
def test_pad_sequence_refuses_what_torch_refuses(call):
    both_raise(lambda: call(ag), lambda: call(torch))


# -- nn.utils.rnn: packed sequences, and the recurrent layers on them ---------------------------------------

def _packed(T, enforce_sorted=False, order=(1, 0, 2)):
    seqs = [T.tensor(SEQUENCES[i], requires_grad=True) for i in order]
    return seqs, T.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=enforce_sorted)


def _close_packed(ours, theirs):
    close(ours.data, theirs.data, rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(ours.batch_sizes.numpy(), theirs.batch_sizes.numpy())
    for a, b in ((ours.sorted_indices, theirs.sorted_indices), (ours.unsorted_indices, theirs.unsorted_indices)):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("enforce_sorted, order", [(False, (1, 0, 2)), (True, (0, 2, 1))], ids=["unsorted", "sorted"])
def test_pack_and_pad_round_trip_as_torch(enforce_sorted, order):
    (_, ours), (_, theirs) = _packed(ag, enforce_sorted, order), _packed(torch, enforce_sorted, order)
    _close_packed(ours, theirs)
    for kwargs in (dict(), dict(batch_first=True), dict(padding_value=-2.0, total_length=6)):
        a, b = ag.nn.utils.rnn.pad_packed_sequence(ours, **kwargs), torch.nn.utils.rnn.pad_packed_sequence(theirs,
                                                                                                         **kwargs)
        close(a[0], b[0], rtol=1e-12, atol=0)
        np.testing.assert_array_equal(a[1].numpy(), b[1].numpy())
    for a, b in zip(ag.nn.utils.rnn.unpack_sequence(ours), torch.nn.utils.rnn.unpack_sequence(theirs)):
        close(a, b, rtol=1e-12, atol=0)


def test_pack_padded_sequence_of_a_batch_first_batch_as_torch():
    results = []
    for T in (ag, torch):
        padded = T.nn.utils.rnn.pad_sequence([T.tensor(s) for s in SEQUENCES], batch_first=True)
        results.append(T.nn.utils.rnn.pack_padded_sequence(padded, T.tensor([4, 1, 3]), batch_first=True,
                                                           enforce_sorted=False))
    _close_packed(*results)


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("with_hx", [False, True])
def test_recurrent_layers_on_packed_sequences_match_torch(cls, bidirectional, with_hx):
    rng = np.random.default_rng(5)
    directions = 2 if bidirectional else 1
    h0 = rng.standard_normal((2 * directions, 3, 4))
    shapes = [tuple(p.shape) for p in getattr(ag.nn, cls)(3, 4, num_layers=2, bidirectional=bidirectional).parameters()]
    weights = [rng.uniform(-0.5, 0.5, shape) for shape in shapes]      # (the same weights in both libraries)
    results = []
    for T in (ag, torch):
        layer = getattr(T.nn, cls)(3, 4, num_layers=2, bidirectional=bidirectional, dtype=T.float64)
        with T.no_grad():
            for p, w in zip(layer.parameters(), weights):
                p.copy_(T.tensor(w))
        seqs, packed = _packed(T)
        hx = None
        if with_hx:
            hx = T.tensor(h0, requires_grad=True)
            hx = (hx, T.tensor(h0 * 0.5)) if cls == "LSTM" else hx
        out, h_n = layer(packed, hx)
        h = h_n[0] if cls == "LSTM" else h_n
        (out.data.sum() + (h * T.tensor(np.linspace(-1, 1, h.numel()).reshape(tuple(h.shape)))).sum()).backward()
        results.append((out, h, [s.grad for s in seqs], [p.grad for p in layer.parameters()]))
    (out_a, h_a, sg_a, pg_a), (out_b, h_b, sg_b, pg_b) = results
    _close_packed(out_a, out_b)
    close(h_a, h_b, rtol=1e-10, atol=1e-12)
    for a, b in zip(sg_a + pg_a, sg_b + pg_b):
        close(a, b, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("call", [
    lambda T: T.nn.utils.rnn.pack_padded_sequence(T.ones(3, 2, 1), [1, 2]),
    lambda T: T.nn.utils.rnn.pack_padded_sequence(T.ones(3, 2, 1), [2, 0]),
    lambda T: T.nn.utils.rnn.pad_packed_sequence(T.nn.utils.rnn.pack_sequence([T.ones(3, 1)]), total_length=2),
], ids=["unsorted-lengths", "zero-length", "total-length-short"])
def test_packing_refuses_what_torch_refuses(call):
    both_raise(lambda: call(ag), lambda: call(torch))


def test_a_packed_sequence_converts_as_torchs_and_padding_keeps_the_first_dtype():
    for T in (ag, torch):
        packed = T.nn.utils.rnn.pack_sequence([T.ones(3, 2), T.ones(1, 2)], enforce_sorted=False)
        moved = packed.to("cpu").double()
        assert isinstance(moved, T.nn.utils.rnn.PackedSequence) and str(moved.data.dtype).endswith("float64")
        assert moved.is_cuda is False and moved.cpu().float().data.dtype == packed.data.dtype
    close(ag.nn.utils.rnn.pad_sequence([ag.tensor([1, 2]), ag.tensor([1.5])]),
          torch.nn.utils.rnn.pad_sequence([torch.tensor([1, 2]), torch.tensor([1.5])]))
