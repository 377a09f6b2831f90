"""``nn.MultiheadAttention``: attention with ``num_heads`` heads, each over ``embed_dim / num_heads`` dims; and
the transformer built on it: ``TransformerEncoderLayer``, ``TransformerEncoder``, ``TransformerDecoderLayer``,
``TransformerDecoder`` and ``Transformer``.

For each head h, with the inputs projected by learned matrices (one packed ``in_proj_weight`` (3E, E), or three
when key and value have other sizes):

    q_h = query W_q,h,   k_h = key W_k,h,   v_h = value W_v,h
    head_h = softmax(q_h k_h^T / sqrt(d) + mask) v_h          d = embed_dim / num_heads
    out = concat(head_1, ..., head_H) W_o + b_o

Built from ops the engine has (matmul, softmax, ``F.scaled_dot_product_attention``), so gradients of any order
come from the engine. Shapes, masks and parameters follow PyTorch's: inputs (L, N, E), or (N, L, E) with
``batch_first=True``, or unbatched (L, E); ``key_padding_mask`` (N, S) and ``attn_mask`` (L, S) or (N*H, L, S),
bool (True: this key is not attended to) or float (added to the scores).
"""
from __future__ import annotations

import copy
import math
import numbers

import numpy

from .. import creation
from ..ops import elementwise as E
from ..ops import reduce as R
from ..ops import shape as S
from ..tensor import Tensor
from . import functional as F
from . import init
from .layers import Dropout, LayerNorm, Linear, ModuleList
from .module import Module
from .parameter import Parameter

__all__ = ["MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer",
           "TransformerDecoder", "Transformer"]


class NonDynamicallyQuantizableLinear(Linear):
    """A ``Linear`` (PyTorch's name for the output projection of ``MultiheadAttention``, kept for its repr)."""


class MultiheadAttention(Module):
    """``MultiheadAttention(embed_dim, num_heads)(query, key, value)`` -> ``(output, weights)``: see the module
    docstring. ``weights`` (N, L, S) are the attention weights averaged over the heads (per head with
    ``average_attn_weights=False``; None with ``need_weights=False``). ``dropout`` drops attention weights
    while training. Initialised as PyTorch does: Xavier-uniform projections, zero biases."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        if embed_dim % num_heads:
            raise AssertionError(f"embed_dim must be divisible by num_heads (embed_dim={embed_dim}, "
                                 f"num_heads={num_heads})")
        if add_bias_kv or add_zero_attn:
            raise NotImplementedError("MultiheadAttention: add_bias_kv and add_zero_attn are not available here")
        self.embed_dim, self.num_heads, self.dropout, self.batch_first = embed_dim, num_heads, dropout, batch_first
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.head_dim = embed_dim // num_heads

        def weight(rows, cols):
            return Parameter(creation.zeros(rows, cols, dtype=dtype, device=device))
        if self._qkv_same_embed_dim:
            self.in_proj_weight = weight(3 * embed_dim, embed_dim)
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = weight(embed_dim, embed_dim)
            self.k_proj_weight = weight(embed_dim, self.kdim)
            self.v_proj_weight = weight(embed_dim, self.vdim)
            self.register_parameter("in_proj_weight", None)
        self.register_parameter("in_proj_bias", Parameter(creation.zeros(3 * embed_dim, dtype=dtype, device=device))
                                if bias else None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, device=device, dtype=dtype)
        self.bias_k = self.bias_v = None
        self.add_zero_attn = False
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            for w in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                init.xavier_uniform_(w)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        for what, t in (("query", query), ("key", key), ("value", value)):
            if not isinstance(t, Tensor):
                raise TypeError(f"MultiheadAttention: {what} must be a Tensor, got {type(t).__name__}")
        batched = query.ndim == 3
        if batched and self.batch_first:   # (N, L, E) -> (L, N, E)
            query, key, value = (S.transpose(t, 0, 1) for t in (query, key, value))
        out, weights = _attention(self, query, key, value, key_padding_mask, need_weights, attn_mask,
                                  average_attn_weights, is_causal)
        if batched and self.batch_first:
            out = S.transpose(out, 0, 1)
        return out, weights


def _check_shapes(m, query, key, value, key_padding_mask, attn_mask):
    """PyTorch's shape rules; returns whether the inputs are batched."""
    if query.ndim not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.ndim}-D query "
                             f"tensor")
    batched = query.ndim == 3
    kind = "batched (3-D)" if batched else "unbatched (2-D)"
    if key.ndim != query.ndim or value.ndim != query.ndim:
        raise AssertionError(f"For {kind} `query`, expected `key` and `value` to be {query.ndim}-D but found "
                             f"{key.ndim}-D and {value.ndim}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.ndim != query.ndim - 1:
        raise AssertionError(f"For {kind} `query`, expected `key_padding_mask` to be `None` or {query.ndim - 1}-D "
                             f"but found {key_padding_mask.ndim}-D tensor instead")
    if attn_mask is not None and attn_mask.ndim not in (2, 3):
        raise AssertionError(f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                             f"{attn_mask.ndim}-D tensor instead")
    if not batched and attn_mask is not None and attn_mask.ndim == 3:
        want = (m.num_heads, query.shape[0], key.shape[0])
        if tuple(attn_mask.shape) != want:
            raise AssertionError(f"Expected `attn_mask` shape to be {want} but got {tuple(attn_mask.shape)} "
                                 f"(unbatched: one (L, S) mask per head)")
    return batched


def _as_float_mask(mask, dtype):
    """A bool mask as 0 / -inf (True: masked out), a float one as it is (PyTorch's ``_canonical_mask``)."""
    if mask is None:
        return None
    if mask.dtype == numpy.bool_:
        return E.masked_fill(creation.zeros(tuple(mask.shape), dtype=dtype, device=mask.device), mask, -math.inf)
    return mask   # (other dtypes were refused before anything was computed)


def _attention(m, query, key, value, key_padding_mask, need_weights, attn_mask, average_attn_weights, is_causal):
    """PyTorch's ``multi_head_attention_forward`` on (L, N, E) inputs (or unbatched (L, E))."""
    batched = _check_shapes(m, query, key, value, key_padding_mask, attn_mask)
    if not batched:   # one sequence: a batch of one, taken off again at the end
        query, key, value = (S.unsqueeze(t, 1) for t in (query, key, value))
        if key_padding_mask is not None:
            key_padding_mask = S.unsqueeze(key_padding_mask, 0)
    n_query, batch, embed = query.shape
    n_key, heads, hd = key.shape[0], m.num_heads, m.head_dim
    if embed != m.embed_dim:
        raise AssertionError(f"was expecting embedding dimension of {m.embed_dim}, but got {embed}")
    if key.shape[:2] != value.shape[:2] or m._qkv_same_embed_dim and key.shape != value.shape:
        raise AssertionError(f"key shape {tuple(key.shape)} does not match value shape {tuple(value.shape)}")
    for what, t, dim in (("key", key, m.kdim), ("value", value, m.vdim)):
        if t.shape[-1] != dim:
            raise AssertionError(f"expecting {what} of {dim} features (the module's {what[0]}dim), but got "
                                 f"{what} of shape {tuple(t.shape)}")
    for name, mask in (("attn_mask", attn_mask), ("key_padding_mask", key_padding_mask)):
        if mask is not None and mask.dtype != numpy.bool_ and mask.dtype.kind != "f":
            raise AssertionError(f"only bool and floating types of {name} are supported (got {mask.dtype.name}: "
                                 f"a 0/1 mask of integers should be .bool())")
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    key_padding_mask = _as_float_mask(key_padding_mask, query.dtype)
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None   # (the hint alone: scaled_dot_product_attention makes the causal mask)
    else:
        attn_mask = _as_float_mask(attn_mask, query.dtype)
        if key_padding_mask is not None:
            is_causal = False
    # the projections: q, k, v (length, batch, E), then one (batch * heads, length, head_dim) stack per input
    if m._qkv_same_embed_dim:
        w_q, w_k, w_v = S.chunk(m.in_proj_weight, 3)
    else:
        w_q, w_k, w_v = m.q_proj_weight, m.k_proj_weight, m.v_proj_weight
    b_q, b_k, b_v = S.chunk(m.in_proj_bias, 3) if m.in_proj_bias is not None else (None, None, None)
    q, k, v = F.linear(query, w_q, b_q), F.linear(key, w_k, b_k), F.linear(value, w_v, b_v)
    q, k, v = (S.transpose(S.reshape(t, (t.shape[0], batch * heads, hd)), 0, 1) for t in (q, k, v))
    if attn_mask is not None:
        want = (n_query, n_key) if attn_mask.ndim == 2 else (batch * heads, n_query, n_key)
        if tuple(attn_mask.shape) != want:
            raise RuntimeError(f"The shape of the {attn_mask.ndim}D attn_mask is {tuple(attn_mask.shape)}, but "
                               f"should be {want}.")
        if attn_mask.ndim == 2:
            attn_mask = S.unsqueeze(attn_mask, 0)
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (batch, n_key):
            raise AssertionError(f"expecting key_padding_mask shape of {(batch, n_key)}, but got "
                                 f"{tuple(key_padding_mask.shape)}")
        padding = S.reshape(S.expand(S.reshape(key_padding_mask, (batch, 1, 1, n_key)), (batch, heads, 1, n_key)),
                            (batch * heads, 1, n_key))
        attn_mask = padding if attn_mask is None else attn_mask + padding
    dropout = m.dropout if m.training else 0.0
    if need_weights:
        if attn_mask is not None and attn_mask.dtype != query.dtype:   # (the two masks added: NumPy's promotion)
            raise RuntimeError(f"Input dtypes must be the same: the mask is {attn_mask.dtype.name}, the query "
                               f"{query.dtype.name}; convert the mask with .to({query.dtype.name})")
        scores = (q * math.sqrt(1.0 / hd)) @ S.transpose(k, -2, -1)
        if attn_mask is not None:
            scores = scores + attn_mask
        weights = R.softmax(scores, -1)
        if dropout > 0.0:
            weights = F.dropout(weights, dropout, True)
        heads_out = weights @ v                                                # (batch * heads, L, hd)
        weights = S.reshape(weights, (batch, heads, n_query, n_key))
        if average_attn_weights:
            weights = R.mean(weights, 1)
    else:
        if attn_mask is not None:
            attn_mask = S.reshape(attn_mask, (batch, heads, -1, n_key)) if attn_mask.shape[0] != 1 else \
                S.unsqueeze(attn_mask, 0)
        qh, kh, vh = (S.reshape(t, (batch, heads, t.shape[1], hd)) for t in (q, k, v))
        heads_out = F.scaled_dot_product_attention(qh, kh, vh, attn_mask, dropout, is_causal)
        heads_out = S.reshape(heads_out, (batch * heads, n_query, hd))
        weights = None
    out = S.reshape(S.transpose(heads_out, 0, 1), (n_query, batch, embed))   # heads side by side again
    out = m.out_proj(out)
    if not batched:
        out = S.squeeze(out, 1)
        if weights is not None:
            weights = S.squeeze(weights, 0)
    return out, weights


class TransformerEncoderLayer(Module):
    """Self-attention, then a two-layer feed-forward network, each with a residual connection and a layer norm
    (PyTorch's layer, same submodules and init):

        x = norm1(x + dropout1(self_attn(x, x, x)));  x = norm2(x + dropout2(linear2(dropout(act(linear1(x))))))

    ``norm_first=True`` normalises before each block instead: ``x = x + block(norm(x))``. ``activation``:
    "relu", "gelu" or a function (or module) of one tensor."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu", layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, **kw)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation = _activation(activation)
        # (PyTorch's flag for its fused path: 1 relu, 2 gelu, 0 another function)
        self.activation_relu_or_gelu = (1 if self.activation is F.relu or type(self.activation).__name__ == "ReLU"
                                        else 2 if self.activation is F.gelu or type(self.activation).__name__ == "GELU"
                                        else 0)

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
        return self.norm2(x + self._ff_block(x))

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


def _activation(activation):
    """"relu" or "gelu" as the function, anything else as it is (a function or module of one tensor)."""
    if isinstance(activation, str):
        if activation not in ("relu", "gelu"):
            raise RuntimeError(f"activation should be relu/gelu, not {activation}")
        return F.relu if activation == "relu" else F.gelu
    return activation


class TransformerEncoder(Module):
    """``num_layers`` copies of ``encoder_layer`` (each with parameters of its own, copied from it), then
    ``norm`` if given. ``enable_nested_tensor`` is accepted for PyTorch's signature: here no input becomes a
    nested tensor, so a padded position's output is computed like any other (PyTorch's fast path, in
    ``eval()`` under ``no_grad()``, may return zeros there)."""

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True):
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm
        self.enable_nested_tensor, self.mask_check = enable_nested_tensor, mask_check
        self.use_nested_tensor = False   # (never here)

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        if not len(self.layers):
            raise IndexError("TransformerEncoder has no layers (num_layers=0): nothing to run (PyTorch fails too)")
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=mask, src_key_padding_mask=src_key_padding_mask,
                           is_causal=bool(is_causal))
        return output if self.norm is None else self.norm(output)


class TransformerDecoderLayer(Module):
    """Masked self-attention over the target, attention from the target to ``memory`` (the encoder's output),
    then the feed-forward network; each with a residual connection and a layer norm (PyTorch's layer, same
    submodules and init):

        x = norm1(x + sa(x));  x = norm2(x + mha(x, memory));  x = norm3(x + ff(x))

    ``norm_first=True`` normalises before each block instead."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu", layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias, **kw)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                                 **kw)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **kw)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **kw)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw)
        self.dropout1, self.dropout2, self.dropout3 = Dropout(dropout), Dropout(dropout), Dropout(dropout)
        self.activation = _activation(activation)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
        x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
        return self.norm3(x + self._ff_block(x))

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, is_causal=is_causal,
                           need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, memory, attn_mask, key_padding_mask, is_causal):
        x = self.multihead_attn(x, memory, memory, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                is_causal=is_causal, need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerDecoder(Module):
    """``num_layers`` copies of ``decoder_layer`` (parameters of their own), then ``norm`` if given."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        if not len(self.layers):
            raise IndexError("TransformerDecoder has no layers (num_layers=0): nothing to run (PyTorch fails too)")
        output = tgt
        for layer in self.layers:
            output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                           tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                           tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal)
        return output if self.norm is None else self.norm(output)


class Transformer(Module):
    """The encoder-decoder transformer of "Attention Is All You Need" (PyTorch's module): ``encoder`` (a
    ``TransformerEncoder`` with a final norm) reads ``src``, ``decoder`` (a ``TransformerDecoder``, final norm)
    reads ``tgt`` and the encoder's output. Every weight matrix starts Xavier-uniform, as in PyTorch."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation="relu", custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        kw = {"device": device, "dtype": dtype}
        layer = {"dropout": dropout, "activation": activation, "layer_norm_eps": layer_norm_eps,
                 "batch_first": batch_first, "norm_first": norm_first, "bias": bias, **kw}
        self.encoder = custom_encoder if custom_encoder is not None else TransformerEncoder(
            TransformerEncoderLayer(d_model, nhead, dim_feedforward, **layer), num_encoder_layers,
            LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw))
        self.decoder = custom_decoder if custom_decoder is not None else TransformerDecoder(
            TransformerDecoderLayer(d_model, nhead, dim_feedforward, **layer), num_decoder_layers,
            LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **kw))
        for p in self.parameters():
            if p.ndim > 1:
                init.xavier_uniform_(p)
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        batch_dim = 0 if self.batch_first else 1
        if src.ndim == 3 and src.shape[batch_dim] != tgt.shape[batch_dim]:
            raise RuntimeError(f"the batch number of src and tgt must be equal (src {tuple(src.shape)}, tgt "
                               f"{tuple(tgt.shape)}, batch dim {batch_dim})")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError(f"the feature number of src and tgt must be equal to d_model ({self.d_model}), got "
                               f"{src.shape[-1]} and {tgt.shape[-1]}")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """The causal mask of ``sz`` positions: 0 on and below the diagonal, -inf above (position i sees j <= i);
        with ``dtype=bool``, True above (masked), as PyTorch."""
        if isinstance(sz, bool) or not isinstance(sz, numbers.Integral):
            raise TypeError(f"generate_square_subsequent_mask: sz must be an int, got {sz!r}")
        if sz < 0:
            raise RuntimeError(f"generate_square_subsequent_mask: sz must be at least 0, got {sz}")
        if dtype is not None and numpy.dtype(dtype) == numpy.bool_:
            return S.triu(creation.ones((sz, sz), dtype=dtype, device=device), 1)
        if dtype is not None and numpy.dtype(dtype).kind != "f":
            raise RuntimeError(f"generate_square_subsequent_mask: -inf does not fit in {numpy.dtype(dtype).name}; "
                               f"give a float dtype")
        full = creation.full((sz, sz), -math.inf, dtype=dtype, device=device)
        return S.triu(full, 1)
