"""nn.MultiheadAttention and the transformer modules against torch 2.13: parameters, init and repr, outputs and attention weights, every
gradient (inputs and parameters), masks (bool, float, key padding, causal hint), layouts (batch_first,
unbatched, other key/value sizes), second derivatives, dropout and errors."""
from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import import_torch
from torch_compare import both_raise, close

import autogradlab as ag
from autogradlab.testing import gradcheck, gradgradcheck

torch = import_torch()
# torch's note that its nested-tensor fast path is off (batch_first=False, norm_first): nothing here uses it
pytestmark = pytest.mark.filterwarnings("ignore:enable_nested_tensor is True:UserWarning")

E, H, L, S, N = 8, 2, 4, 5, 3


def _modules(seed=0, dtype="float64", **kwargs):
    """Ours and torch's with the same parameters (torch's init, copied)."""
    torch.manual_seed(seed)
    theirs = torch.nn.MultiheadAttention(E, H, **kwargs).to(getattr(torch, dtype))
    ours = ag.nn.MultiheadAttention(E, H, dtype=getattr(ag, dtype), **kwargs)
    ours.load_state_dict({k: ag.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    return ours, theirs


def _inputs(seed, batch_first=False, unbatched=False, kdim=E, vdim=E, dtype="float64"):
    rng = np.random.default_rng(seed)

    def shape(length, dim):
        return (length, dim) if unbatched else (N, length, dim) if batch_first else (length, N, dim)
    arrays = [rng.standard_normal(shape(L, E)), rng.standard_normal(shape(S, kdim)), rng.standard_normal(shape(S, vdim))]
    return ([ag.tensor(a.astype(dtype), requires_grad=True) for a in arrays],
            [torch.tensor(a.astype(dtype), requires_grad=True) for a in arrays])


def _compare(ours, theirs, xs, txs, rtol=1e-10, atol=1e-12, **call):
    (out, w), (tout, tw) = ours(*xs, **call), theirs(*txs, **call)
    close(out, tout, rtol, atol)
    assert (w is None) == (tw is None)
    if w is not None:
        close(w, tw, rtol, atol)
    g = np.random.default_rng(7).standard_normal(tuple(tout.shape))
    loss = (out * ag.tensor(g)).sum() + (w.sum() if w is not None else 0.0)
    tloss = (tout * torch.tensor(g)).sum() + (tw.sum() if tw is not None else 0.0)
    loss.backward()
    tloss.backward()
    for a, b in zip(xs, txs):
        close(a.grad, b.grad, rtol, atol)
    theirs_params = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        close(p.grad, theirs_params[name].grad, rtol, atol)


def _masks(kind):
    rng = np.random.default_rng(3)
    padding = np.zeros((N, S), bool)
    padding[0, -2:] = True
    causal = np.triu(np.ones((L, S), bool), 2)
    if kind == "none":
        return {}
    if kind == "bool":
        return {"attn_mask": ag.tensor(causal)}, {"attn_mask": torch.tensor(causal)}
    if kind == "float":
        m = rng.standard_normal((L, S))
        return {"attn_mask": ag.tensor(m)}, {"attn_mask": torch.tensor(m)}
    if kind == "padding":
        return {"key_padding_mask": ag.tensor(padding)}, {"key_padding_mask": torch.tensor(padding)}
    if kind == "both":
        per_head = rng.standard_normal((N * H, L, S))
        return ({"attn_mask": ag.tensor(per_head), "key_padding_mask": ag.tensor(padding)},
                {"attn_mask": torch.tensor(per_head), "key_padding_mask": torch.tensor(padding)})
    raise ValueError(kind)


@pytest.mark.filterwarnings("ignore:Support for mismatched key_padding_mask:UserWarning")   # (torch's, for "both")
@pytest.mark.parametrize("masks", ["none", "bool", "float", "padding", "both"])
@pytest.mark.parametrize("need_weights, average", [(True, True), (True, False), (False, True)])
def test_outputs_weights_and_every_gradient_match_torch(masks, need_weights, average):
    ours, theirs = _modules()
    xs, txs = _inputs(1)
    call = _masks(masks)
    ours_call, theirs_call = (call if call else ({}, {}))
    (out, w), (tout, tw) = (ours(*xs, need_weights=need_weights, average_attn_weights=average, **ours_call),
                            theirs(*txs, need_weights=need_weights, average_attn_weights=average, **theirs_call))
    close(out, tout, 1e-10, 1e-12)
    assert (w is None) == (tw is None)
    if w is not None:
        close(w, tw, 1e-10, 1e-12)
    g = np.random.default_rng(7).standard_normal(tuple(tout.shape))
    ((out * ag.tensor(g)).sum() + (w.sum() if w is not None else 0.0)).backward()
    ((tout * torch.tensor(g)).sum() + (tw.sum() if tw is not None else 0.0)).backward()
    for a, b in zip(xs, txs):
        close(a.grad, b.grad, 1e-10, 1e-12)
    theirs_params = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        close(p.grad, theirs_params[name].grad, 1e-10, 1e-12)


@pytest.mark.parametrize("kwargs, layout", [
    ({"batch_first": True}, {"batch_first": True}),
    ({"kdim": 5, "vdim": 3}, {"kdim": 5, "vdim": 3}),
    ({"bias": False}, {}),
    ({}, {"unbatched": True}),
    ({"batch_first": True}, {"unbatched": True}),
])
def test_layouts_and_projections_match_torch(kwargs, layout):
    ours, theirs = _modules(1, **kwargs)
    xs, txs = _inputs(2, **layout)
    for need_weights in (True, False):
        for x in xs:
            x.grad = None
        for t in txs:
            t.grad = None
        ours.zero_grad()
        theirs.zero_grad()
        _compare(ours, theirs, xs, txs, need_weights=need_weights)


def test_self_attention_with_one_tensor_and_the_causal_hint_match_torch():
    ours, theirs = _modules(2)
    (x, _, _), (tx, _, _) = _inputs(3)
    causal, tcausal = ag.tensor(np.triu(np.ones((L, L), bool), 1)), torch.tensor(np.triu(np.ones((L, L), bool), 1))
    for need_weights in (True, False):
        out, _ = ours(x, x, x, attn_mask=causal, is_causal=True, need_weights=need_weights)
        tout, _ = theirs(tx, tx, tx, attn_mask=tcausal, is_causal=True, need_weights=need_weights)
        close(out, tout, 1e-10, 1e-12)
    out.sum().backward()
    tout.sum().backward()
    close(x.grad, tx.grad, 1e-10, 1e-12)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")   # (NumPy's, on the -inf row)
def test_a_query_that_sees_no_key_gives_what_torch_gives():
    """Every key padded out for one sample: torch's weights path gives NaN there (softmax of -inf), its
    scaled_dot_product_attention path zeros; ours the same on each path."""
    ours, theirs = _modules(3)
    xs, txs = _inputs(4)
    padding = np.zeros((N, S), bool)
    padding[1] = True
    for need_weights in (True, False):
        out, _ = ours(*xs, key_padding_mask=ag.tensor(padding), need_weights=need_weights)
        tout, _ = theirs(*txs, key_padding_mask=torch.tensor(padding), need_weights=need_weights)
        np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_parameters_init_and_repr_are_torchs():
    for kwargs in ({}, {"kdim": 5, "vdim": 3, "bias": False}, {"batch_first": True, "dropout": 0.1}):
        ours, theirs = ag.nn.MultiheadAttention(E, H, **kwargs), torch.nn.MultiheadAttention(E, H, **kwargs)
        assert repr(ours) == repr(theirs)
        assert list(ours.state_dict()) == list(theirs.state_dict())
        assert [tuple(p.shape) for p in ours.parameters()] == [tuple(p.shape) for p in theirs.parameters()]
    ours = ag.nn.MultiheadAttention(E, H)
    bound = math.sqrt(6.0 / (E + 3 * E))                  # Xavier-uniform of the packed (3E, E) projection
    assert np.abs(ours.in_proj_weight.detach().numpy()).max() <= bound
    assert not ours.in_proj_bias.detach().numpy().any() and not ours.out_proj.bias.detach().numpy().any()
    assert ours.in_proj_weight.detach().numpy().std() > bound / 3   # filled, not left at zero


def test_second_derivatives_pass_finite_differences_and_match_torch():
    ours, theirs = _modules(4)
    xs, txs = _inputs(5)

    def f(q, k, v):
        return ours(q, k, v, attn_mask=ag.tensor(np.triu(np.ones((L, S), bool), 3)))[0]
    small = [ag.tensor(x.detach().numpy()[:, :1], requires_grad=True) for x in xs]
    assert gradcheck(f, small) and gradgradcheck(f, small)
    g, = ag.autograd.grad((ours(*xs)[0] ** 2).sum(), xs[0], create_graph=True)
    tg, = torch.autograd.grad((theirs(*txs)[0] ** 2).sum(), txs[0], create_graph=True)
    g.sum().backward()
    tg.sum().backward()
    close(ours.in_proj_weight.grad, theirs.in_proj_weight.grad, 1e-9, 1e-11)


def test_dropout_acts_while_training_only():
    ours, _ = _modules(5, dropout=0.5)
    xs, _ = _inputs(6)
    ours.eval()
    first, second = ours(*xs)[0], ours(*xs)[0]
    np.testing.assert_array_equal(first.detach().numpy(), second.detach().numpy())
    ours.train()
    ag.manual_seed(0)
    dropped = ours(*xs, need_weights=False)[0]
    assert not np.allclose(dropped.detach().numpy(), first.detach().numpy())


@pytest.mark.parametrize("call", [
    lambda m: m.nn.MultiheadAttention(8, 3),
    lambda m: m.nn.MultiheadAttention(8, 0),
    lambda m: m.nn.MultiheadAttention(8, 2)(*(m.ones(4, 3, 8),) * 3, is_causal=True),
    lambda m: m.nn.MultiheadAttention(8, 2)(*(m.ones(4, 3, 8),) * 3, attn_mask=m.ones(4, 3)),
    lambda m: m.nn.MultiheadAttention(8, 2)(*(m.ones(4, 3, 8),) * 3, attn_mask=m.ones(4, 4, 4)),
    lambda m: m.nn.MultiheadAttention(8, 2)(*(m.ones(4, 3, 8),) * 3, key_padding_mask=m.zeros(3, 5, dtype=m.bool)),
    lambda m: m.nn.MultiheadAttention(8, 2)(m.ones(4, 3, 8), m.ones(5, 8), m.ones(5, 8)),
    lambda m: m.nn.MultiheadAttention(8, 2)(*(m.ones(4, 3, 6),) * 3),
    lambda m: m.nn.MultiheadAttention(8, 2)(*(m.ones(4, 3, 8),) * 3, attn_mask=m.ones(4, 4, dtype=m.int64)),
    # (found by a review against torch: the classes torch raises)
    lambda m: m.nn.MultiheadAttention(8, 2)(m.ones(3, 2, 8), m.ones(5, 2, 8), m.ones(5, 2, 4)),
    lambda m: m.nn.MultiheadAttention(8, 2)(m.ones(3, 2, 8), m.ones(4, 2, 8), m.ones(5, 2, 8)),
    lambda m: m.nn.MultiheadAttention(8, 2, kdim=3, vdim=6)(m.ones(3, 2, 8), m.ones(5, 2, 2), m.ones(5, 2, 6)),
    lambda m: m.nn.MultiheadAttention(8, 2)(*(m.ones(3, 8),) * 3, attn_mask=m.zeros(4, 3, 3, dtype=m.bool)),
    lambda m: m.nn.MultiheadAttention(8, 2)(m.ones(3, 2, 8), m.ones(5, 2, 8), m.ones(5, 2, 8), is_causal=True,
                                            need_weights=False, attn_mask=m.ones(3, 5, dtype=m.int64)),
    lambda m: m.nn.MultiheadAttention(8, 2).double()(*(m.ones(3, 2, 8, dtype=m.float64),) * 3,
                                                     attn_mask=m.zeros(3, 3)),
])
def test_errors_as_in_torch(call):
    both_raise(lambda: call(ag), lambda: call(torch))


# -- TransformerEncoderLayer and TransformerEncoder ------------------------------------------------------

@pytest.mark.parametrize("kwargs", [{}, {"batch_first": True}, {"norm_first": True, "activation": "gelu"},
                                    {"bias": False}, {"activation": ag.nn.functional.relu}])
@pytest.mark.parametrize("layers", [None, 2])
def test_transformer_encoder_matches_torch_in_outputs_and_every_gradient(kwargs, layers):
    torch_kwargs = dict(kwargs)
    if "activation" in kwargs and not isinstance(kwargs["activation"], str):
        torch_kwargs["activation"] = torch.nn.functional.relu
    torch.manual_seed(0)
    theirs = torch.nn.TransformerEncoderLayer(E, H, 16, dropout=0.0, **torch_kwargs).double()
    ours = ag.nn.TransformerEncoderLayer(E, H, 16, dropout=0.0, dtype=ag.float64, **kwargs)
    if layers:
        theirs = torch.nn.TransformerEncoder(theirs, layers, norm=torch.nn.LayerNorm(E).double(),
                                             enable_nested_tensor=False)
        ours = ag.nn.TransformerEncoder(ours, layers, norm=ag.nn.LayerNorm(E, dtype=ag.float64),
                                        enable_nested_tensor=False)
    assert repr(ours) == repr(theirs) and list(ours.state_dict()) == list(theirs.state_dict())
    ours.load_state_dict({k: ag.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    batch_first = kwargs.get("batch_first", False)
    rng = np.random.default_rng(8)
    x = rng.standard_normal((N, L, E) if batch_first else (L, N, E))
    padding = np.zeros((N, L), bool)
    padding[0, -1] = True
    causal = np.where(np.triu(np.ones((L, L), bool), 1), -np.inf, 0.0)
    masks = ({"src_key_padding_mask": padding}, {"mask" if layers else "src_mask": causal})
    for extra in masks:
        xs, txs = ag.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        ours.zero_grad()
        theirs.zero_grad()
        out = ours(xs, **{k: ag.tensor(v) for k, v in extra.items()})
        tout = theirs(txs, **{k: torch.tensor(v) for k, v in extra.items()})
        close(out, tout, 1e-10, 1e-11)
        g = rng.standard_normal(tuple(tout.shape))
        (out * ag.tensor(g)).sum().backward()
        (tout * torch.tensor(g)).sum().backward()
        close(xs.grad, txs.grad, 1e-9, 1e-11)
        theirs_params = dict(theirs.named_parameters())
        for name, p in ours.named_parameters():
            close(p.grad, theirs_params[name].grad, 1e-9, 1e-11)


def test_encoder_layers_are_copies_with_parameters_of_their_own():
    layer = ag.nn.TransformerEncoderLayer(E, H, 16)
    encoder = ag.nn.TransformerEncoder(layer, 3)
    firsts = [m.linear1.weight for m in encoder.layers]
    assert len({id(w) for w in firsts}) == 3 and all(w is not layer.linear1.weight for w in firsts)
    np.testing.assert_array_equal(firsts[0].detach().numpy(), layer.linear1.weight.detach().numpy())
    assert len(list(encoder.parameters())) == 3 * len(list(layer.parameters()))


def test_an_unknown_activation_is_refused_as_in_torch():
    both_raise(lambda: ag.nn.TransformerEncoderLayer(E, H, activation="swish"),
               lambda: torch.nn.TransformerEncoderLayer(E, H, activation="swish"))


def test_module_list_prints_runs_of_alike_modules_as_torch():
    for build in [lambda m: m.nn.ModuleList([m.nn.Linear(2, 2) for _ in range(3)] + [m.nn.ReLU(), m.nn.Linear(2, 3)]
                                            + [m.nn.ReLU()] * 2),
                  lambda m: m.nn.ModuleList(), lambda m: m.nn.ModuleList([m.nn.Tanh()]),
                  lambda m: m.nn.Sequential(m.nn.Linear(2, 2), m.nn.ModuleList([m.nn.ReLU(), m.nn.ReLU()]))]:
        assert repr(build(ag)) == repr(build(torch))


@pytest.mark.filterwarnings("ignore:Support for mismatched key_padding_mask:UserWarning")   # (torch's)
def test_the_mask_dtype_rule_is_judged_on_the_masks_added_together_as_torch():
    """(Found by a review: a float32 mask next to a float64 one, or to a bool padding mask turned into the
    query's float64, adds up to float64, which torch takes; a float32 mask alone it refuses.)"""
    ours, theirs = _modules(6)
    xs, txs = _inputs(9)
    rng = np.random.default_rng(10)
    mask32, padding = rng.standard_normal((L, S)).astype("float32"), np.zeros((N, S), bool)
    padding[2, 0] = True
    for extra in ({"key_padding_mask": padding}, {"key_padding_mask": np.where(padding, -np.inf, 0.0)}):
        out, w = ours(*xs, attn_mask=ag.tensor(mask32), **{k: ag.tensor(v) for k, v in extra.items()})
        tout, tw = theirs(*txs, attn_mask=torch.tensor(mask32), **{k: torch.tensor(v) for k, v in extra.items()})
        close(out, tout, 1e-10, 1e-12)
        close(w, tw, 1e-10, 1e-12)
    both_raise(lambda: ours(*xs, attn_mask=ag.tensor(mask32)), lambda: theirs(*txs, attn_mask=torch.tensor(mask32)))


def test_smaller_review_findings_as_torch():
    class Mine(ag.nn.ModuleList):
        pass

    class TheirsToo(torch.nn.ModuleList):
        pass
    assert repr(Mine([ag.nn.ReLU(), ag.nn.ReLU()])).replace("Mine", "X") == \
        repr(TheirsToo([torch.nn.ReLU(), torch.nn.ReLU()])).replace("TheirsToo", "X")
    assert repr(Mine()) == "Mine()"
    both_raise(lambda: ag.nn.TransformerEncoder(ag.nn.TransformerEncoderLayer(E, H, 16), 0)(ag.ones(L, N, E)),
               lambda: torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(E, H, 16), 0,
                                                   enable_nested_tensor=False)(torch.ones(L, N, E)))
    for activation in ("relu", "gelu", ag.nn.functional.relu, ag.nn.GELU(), ag.nn.functional.silu):
        theirs_activation = {ag.nn.functional.relu: torch.nn.functional.relu,
                             ag.nn.functional.silu: torch.nn.functional.silu}.get(activation, activation)
        if isinstance(activation, ag.nn.Module):
            theirs_activation = torch.nn.GELU()
        assert ag.nn.TransformerEncoderLayer(E, H, activation=activation).activation_relu_or_gelu == \
            torch.nn.TransformerEncoderLayer(E, H, activation=theirs_activation).activation_relu_or_gelu
    empty, tempty = ag.ones(0, requires_grad=True), torch.ones(0, requires_grad=True)
    assert ag.nn.functional.dropout(empty, 0.5, True, inplace=True) is empty
    assert torch.nn.functional.dropout(tempty, 0.5, True, inplace=True) is tempty
    both_raise(lambda: ag.nn.functional.conv_transpose2d(ag.ones(2, 0, 3, 3), ag.ones(0, 2, 3, 3)),
               lambda: torch.nn.functional.conv_transpose2d(torch.ones(2, 0, 3, 3), torch.ones(0, 2, 3, 3)))


# -- TransformerDecoderLayer, TransformerDecoder and Transformer -----------------------------------------

def _copy_into(ours, theirs):
    assert repr(ours) == repr(theirs) and list(ours.state_dict()) == list(theirs.state_dict())
    ours.load_state_dict({k: ag.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})


def _all_gradients_match(ours, theirs, pairs):
    for a, b in pairs:
        close(a.grad, b.grad, 1e-9, 1e-11)
    theirs_params = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        close(p.grad, theirs_params[name].grad, 1e-9, 1e-11)


@pytest.mark.parametrize("kwargs", [{}, {"batch_first": True}, {"norm_first": True, "activation": "gelu"},
                                    {"bias": False}])
@pytest.mark.parametrize("layers", [None, 2])
def test_transformer_decoder_matches_torch_in_outputs_and_every_gradient(kwargs, layers):
    torch.manual_seed(1)
    theirs = torch.nn.TransformerDecoderLayer(E, H, 16, dropout=0.0, **kwargs).double()
    ours = ag.nn.TransformerDecoderLayer(E, H, 16, dropout=0.0, dtype=ag.float64, **kwargs)
    if layers:
        theirs = torch.nn.TransformerDecoder(theirs, layers, norm=torch.nn.LayerNorm(E).double())
        ours = ag.nn.TransformerDecoder(ours, layers, norm=ag.nn.LayerNorm(E, dtype=ag.float64))
    _copy_into(ours, theirs)
    batch_first = kwargs.get("batch_first", False)
    rng = np.random.default_rng(11)
    tgt = rng.standard_normal((N, L, E) if batch_first else (L, N, E))
    memory = rng.standard_normal((N, S, E) if batch_first else (S, N, E))
    causal = torch.nn.Transformer.generate_square_subsequent_mask(L).numpy()
    np.testing.assert_array_equal(ag.nn.Transformer.generate_square_subsequent_mask(L).numpy(), causal)
    padding = np.zeros((N, S), bool)
    padding[1, :2] = True
    for extra in ({"tgt_mask": causal}, {"tgt_mask": causal, "memory_key_padding_mask": padding},
                  {"tgt_key_padding_mask": np.zeros((N, L), bool), "memory_mask": np.zeros((L, S))}):
        t, tt = ag.tensor(tgt, requires_grad=True), torch.tensor(tgt, requires_grad=True)
        mem, tmem = ag.tensor(memory, requires_grad=True), torch.tensor(memory, requires_grad=True)
        ours.zero_grad()
        theirs.zero_grad()
        out = ours(t, mem, **{k: ag.tensor(v) for k, v in extra.items()})
        tout = theirs(tt, tmem, **{k: torch.tensor(v) for k, v in extra.items()})
        close(out, tout, 1e-10, 1e-11)
        g = rng.standard_normal(tuple(tout.shape))
        (out * ag.tensor(g)).sum().backward()
        (tout * torch.tensor(g)).sum().backward()
        _all_gradients_match(ours, theirs, [(t, tt), (mem, tmem)])


@pytest.mark.parametrize("kwargs", [{}, {"batch_first": True, "norm_first": True}])
def test_transformer_matches_torch_and_starts_xavier_uniform(kwargs):
    torch.manual_seed(2)
    theirs = torch.nn.Transformer(E, H, 2, 1, 16, dropout=0.0, **kwargs).double()
    ours = ag.nn.Transformer(E, H, 2, 1, 16, dropout=0.0, dtype=ag.float64, **kwargs)
    for p in ours.parameters():                            # every matrix Xavier-uniform, the rest as its layer has it
        if p.ndim > 1:
            fan_out, fan_in = p.shape[0], p.shape[1]
            assert np.abs(p.detach().numpy()).max() <= math.sqrt(6.0 / (fan_in + fan_out))
    _copy_into(ours, theirs)
    rng = np.random.default_rng(12)
    batch_first = kwargs.get("batch_first", False)
    src = rng.standard_normal((N, S, E) if batch_first else (S, N, E))
    tgt = rng.standard_normal((N, L, E) if batch_first else (L, N, E))
    causal = ag.nn.Transformer.generate_square_subsequent_mask(L, dtype=ag.float64)
    s, ts = ag.tensor(src, requires_grad=True), torch.tensor(src, requires_grad=True)
    t, tt = ag.tensor(tgt, requires_grad=True), torch.tensor(tgt, requires_grad=True)
    out = ours(s, t, tgt_mask=causal)
    tout = theirs(ts, tt, tgt_mask=torch.tensor(causal.numpy()))
    close(out, tout, 1e-10, 1e-11)
    out.sum().backward()
    tout.sum().backward()
    _all_gradients_match(ours, theirs, [(s, ts), (t, tt)])


@pytest.mark.parametrize("call", [
    lambda m: m.nn.Transformer(8, 2, 1, 1, 16)(m.ones(5, 3, 8), m.ones(4, 2, 8)),          # batch sizes differ
    lambda m: m.nn.Transformer(8, 2, 1, 1, 16)(m.ones(5, 3, 6), m.ones(4, 3, 6)),          # not d_model features
    lambda m: m.nn.TransformerDecoder(m.nn.TransformerDecoderLayer(8, 2, 16), 0)(m.ones(4, 3, 8), m.ones(5, 3, 8)),
    lambda m: m.nn.TransformerDecoderLayer(8, 2, activation="tanh"),
    lambda m: m.nn.Transformer.generate_square_subsequent_mask(2.0),
    lambda m: m.nn.Transformer.generate_square_subsequent_mask(-1),
    lambda m: m.nn.Transformer.generate_square_subsequent_mask(3, dtype=m.int64),
])
def test_transformer_errors_as_in_torch(call):
    both_raise(lambda: call(ag), lambda: call(torch))
