"""Recurrent layers with PyTorch's parameters, gate order, shapes and initialisation: the one-step cells
``RNNCell``, ``LSTMCell``, ``GRUCell`` and the sequence layers ``RNN``, ``LSTM``, ``GRU`` (stacked, optionally
bidirectional, ``batch_first``).

Each step is a few differentiable ops (two matrix products, some sigmoids and tanhs), so unrolling a sequence
builds an ordinary graph, and backpropagation through time is the engine's own backward over it. With x the
input and h the hidden state of the step before (W_i* act on x, W_h* on h, each with its bias):

    RNN:   h' = tanh(W_i x + W_h h)                     (or relu)
    LSTM:  i, f, g, o = sigma, sigma, tanh, sigma of the four quarters of W_i x + W_h h
           c' = f*c + i*g,   h' = o*tanh(c')
    GRU:   r, z = sigma of the first two thirds of W_i x + W_h h
           n = tanh(W_in x + r*(W_hn h)),   h' = (1 - z)*n + z*h
"""
from __future__ import annotations

import math
import numbers
import warnings

from .. import creation
from ..ops import elementwise as E
from ..ops import shape as S
from ..tensor import Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter
from .utils.rnn import PackedSequence, pack_padded_sequence, pad_packed_sequence

__all__ = ["RNNCellBase", "RNNCell", "LSTMCell", "GRUCell", "RNNBase", "RNN", "LSTM", "GRU"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}   # rows of W per hidden unit


# -- one step -----------------------------------------------------------------------------------------------------

def _rnn_step(mode, gi, state, w_hh, b_hh):
    """One step of a cell from ``gi`` = W_i x + b_i (the input's part, computed for all steps at once) and the
    state before it; returns the new state (h, or (h, c) for an LSTM)."""
    if mode == "LSTM":
        h, c = state
        i, f, g, o = S.chunk(gi + F.linear(h, w_hh, b_hh), 4, -1)
        c = E.sigmoid(f) * c + E.sigmoid(i) * E.tanh(g)
        return E.sigmoid(o) * E.tanh(c), c
    if mode == "GRU":
        h = state
        i_r, i_z, i_n = S.chunk(gi, 3, -1)
        h_r, h_z, h_n = S.chunk(F.linear(h, w_hh, b_hh), 3, -1)
        r, z = E.sigmoid(i_r + h_r), E.sigmoid(i_z + h_z)
        n = E.tanh(i_n + r * h_n)
        return n + z * (h - n)   # = (1 - z)*n + z*h
    pre = gi + F.linear(state, w_hh, b_hh)
    return E.tanh(pre) if mode == "RNN_TANH" else E.relu(pre)


def _reset_uniform(module):
    """PyTorch's init of every recurrent weight and bias: U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
    bound = 1.0 / math.sqrt(module.hidden_size) if module.hidden_size > 0 else 0
    for p in module.parameters():
        init.uniform_(p, -bound, bound)


def _check_sizes(input_size, hidden_size, name):
    for what, n in (("input_size", input_size), ("hidden_size", hidden_size)):
        if type(n) is bool or not isinstance(n, numbers.Integral):
            raise TypeError(f"{name}: {what} should be of type int, got: {type(n).__name__} {n!r}")
        if n < 1:
            raise ValueError(f"{name}: {what} must be greater than zero, got {n}")


def _time_steps(x):
    """``x[0], ..., x[L-1]``, taken by halving (``x[:L//2]``, ``x[L//2:]``, ...). The gradient of a slice is a
    zero-padded copy of its parent's size, so L slices of the whole sequence would cost L^2 in the backward;
    halving costs L log L."""
    n = x.shape[0]
    if n <= 1:
        return [x[0]] if n else []
    return _time_steps(x[:n // 2]) + _time_steps(x[n // 2:])


# -- cells --------------------------------------------------------------------------------------------------------

class RNNCellBase(Module):
    """What the cells share (PyTorch's base class): W_ih (``num_chunks`` * hidden_size, input_size), W_hh and
    the biases; each cell names its ``mode`` (the step it takes)."""

    mode = None

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        _check_sizes(input_size, hidden_size, type(self).__name__)
        self.input_size, self.hidden_size, self.bias = int(input_size), int(hidden_size), bool(bias)
        rows = num_chunks * self.hidden_size
        self.weight_ih = Parameter(creation.zeros(rows, self.input_size, dtype=dtype, device=device))
        self.weight_hh = Parameter(creation.zeros(rows, self.hidden_size, dtype=dtype, device=device))
        if bias:
            self.bias_ih = Parameter(creation.zeros(rows, dtype=dtype, device=device))
            self.bias_hh = Parameter(creation.zeros(rows, dtype=dtype, device=device))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_uniform(self)

    def forward(self, input, hx=None):
        name = type(self).__name__
        if self.mode is None:
            raise NotImplementedError(f'Module [{name}] is missing the required "forward" function (RNNCellBase '
                                      f'is the base of RNNCell, LSTMCell and GRUCell: use one of them)')
        if not isinstance(input, Tensor) or input.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got "
                             f"{f'{input.ndim}D' if isinstance(input, Tensor) else type(input).__name__} input "
                             f"(a batch (N, input_size), or one sample (input_size,))")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"{name}: input has {input.shape[-1]} features (shape {tuple(input.shape)}), "
                               f"expected input_size={self.input_size}")
        batched = input.ndim == 2
        x = input if batched else S.unsqueeze(input, 0)
        shape = (x.shape[0], self.hidden_size)
        if hx is None:
            zeros = creation.zeros(tuple(shape), dtype=input.dtype, device=input.device)
            state = (zeros, zeros) if self.mode == "LSTM" else zeros
        else:
            if self.mode == "LSTM" and isinstance(hx, Tensor):   # (one stacked tensor would be split along dim 0)
                raise TypeError("lstm_cell(): argument 'hx' must be tuple of Tensors, not Tensor: pass (h, c)")
            parts = tuple(hx) if self.mode == "LSTM" else (hx,)
            if self.mode == "LSTM" and len(parts) != 2:
                raise RuntimeError(f"lstm_cell expects two hidden states, (h, c), got {len(parts)}")
            for i, t in enumerate(parts):
                want = shape if batched else (self.hidden_size,)
                if tuple(t.shape) != want:
                    raise RuntimeError(f"{name}: hidden state {i} has shape {tuple(t.shape)}, expected {want}"
                                       + ("" if batched else " (one sample: no batch dim)"))
            parts = parts if batched else tuple(S.unsqueeze(t, 0) for t in parts)
            state = parts if self.mode == "LSTM" else parts[0]
        out = _rnn_step(self.mode, F.linear(x, self.weight_ih, self.bias_ih), state, self.weight_hh, self.bias_hh)
        if batched:
            return out
        return tuple(S.squeeze(t, 0) for t in out) if self.mode == "LSTM" else S.squeeze(out, 0)

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        if not self.bias:
            text += ", bias=False"
        if self.mode == "RNN_RELU":
            text += ", nonlinearity=relu"
        return text


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: h' = tanh(W_ih x + b_ih + W_hh h + b_hh) (or relu with ``nonlinearity="relu"``).
    ``cell(x, h)`` with x (N, input_size) and h (N, hidden_size), zeros if not given."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity!r}. Select from 'tanh' or 'relu'.")
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.mode, self.nonlinearity = ("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"), nonlinearity


class LSTMCell(RNNCellBase):
    """One LSTM step: ``cell(x, (h, c))`` -> ``(h', c')``; the gates i, f, g, o are the four quarters of
    W_ih x + b_ih + W_hh h + b_hh (PyTorch's order), c' = sigma(f)*c + sigma(i)*tanh(g), h' = sigma(o)*tanh(c')."""

    mode = "LSTM"

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)


class GRUCell(RNNCellBase):
    """One GRU step: ``cell(x, h)`` -> h'; r, z, n from the thirds of W_ih x + b_ih and W_hh h + b_hh (PyTorch's
    order): r = sigma(.), z = sigma(.), n = tanh(W_in x + b_in + r*(W_hn h + b_hn)), h' = (1 - z)*n + z*h."""

    mode = "GRU"

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)


# -- sequence layers ----------------------------------------------------------------------------------------------

class RNNBase(Module):
    """A recurrent layer of any ``mode`` ('RNN_TANH', 'RNN_RELU', 'LSTM', 'GRU'; PyTorch's base class of RNN,
    LSTM and GRU, with its signature): the weights ``weight_ih_l{k}``, ``weight_hh_l{k}`` (``_reverse`` for the
    backward direction) and biases per layer, and the forward pass over a sequence."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode} (one of {', '.join(_GATES)})")
        self.mode = mode
        name = type(self).__name__
        _check_sizes(input_size, hidden_size, name)
        if type(num_layers) is bool or not isinstance(num_layers, numbers.Integral):
            raise TypeError(f"{name}: num_layers should be of type int, got: {type(num_layers).__name__}")
        if num_layers < 1:
            raise ValueError(f"num_layers must be greater than zero, got {num_layers}")
        if isinstance(dropout, bool) or not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1:
            raise ValueError(f"dropout should be a number in range [0, 1] representing the probability of an "
                             f"element being zeroed, got {dropout!r}")
        if proj_size and self.mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if proj_size:
            raise NotImplementedError(f"{name}: proj_size is not available here; leave it 0")
        if dropout > 0 and num_layers == 1:
            warnings.warn(f"dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                          UserWarning, stacklevel=2)
        if not isinstance(bias, bool):   # (as PyTorch's layers; its cells take any bias)
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        self.input_size, self.hidden_size, self.num_layers = int(input_size), int(hidden_size), int(num_layers)
        self.bias, self.batch_first, self.dropout = bool(bias), bool(batch_first), float(dropout)
        self.bidirectional, self.proj_size = bool(bidirectional), 0
        rows = _GATES[self.mode] * self.hidden_size
        directions = 2 if bidirectional else 1
        for layer in range(self.num_layers):
            width = self.input_size if layer == 0 else self.hidden_size * directions
            for suffix in ("", "_reverse")[:directions]:
                def new(*shape):
                    return Parameter(creation.zeros(tuple(shape), dtype=dtype, device=device))
                setattr(self, f"weight_ih_l{layer}{suffix}", new(rows, width))
                setattr(self, f"weight_hh_l{layer}{suffix}", new(rows, self.hidden_size))
                if bias:
                    setattr(self, f"bias_ih_l{layer}{suffix}", new(rows))
                    setattr(self, f"bias_hh_l{layer}{suffix}", new(rows))
        self.reset_parameters()

    def reset_parameters(self):
        _reset_uniform(self)

    @property
    def all_weights(self) -> list:
        """The parameters per layer and direction, ``[[w_ih, w_hh, b_ih, b_hh], ...]`` (without the biases when
        ``bias=False``), as PyTorch lists them."""
        out = []
        for layer in range(self.num_layers):
            for suffix in ("", "_reverse")[:2 if self.bidirectional else 1]:
                w_ih, b_ih, w_hh, b_hh = self._weights(layer, suffix)
                out.append([w_ih, w_hh] + ([b_ih, b_hh] if self.bias else []))
        return out

    def flatten_parameters(self):
        """Nothing to do here (PyTorch packs the weights for cuDNN); kept so that lab code runs unchanged."""

    def _weights(self, layer, suffix):
        # (by attribute, not from _parameters: a parametrized weight, weight_norm's, is computed on each read)
        return tuple(getattr(self, f"{kind}_l{layer}{suffix}", None)
                     for kind in ("weight_ih", "bias_ih", "weight_hh", "bias_hh"))

    def forward(self, input, hx=None):
        """``(output, h_n)`` (LSTM: ``(output, (h_n, c_n))``): output (L, N, D*hidden_size) holds the last layer's
        h at every step (both directions side by side), h_n (D*num_layers, N, hidden_size) the last state of every
        layer and direction. ``input`` is (L, N, input_size), (N, L, input_size) with ``batch_first``, or one
        sequence (L, input_size)."""
        name = type(self).__name__
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}: input must be a Tensor or a PackedSequence, got {type(input).__name__}")
        if input.ndim not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.ndim}D input: a batch of sequences "
                             f"{'(N, L, input_size)' if self.batch_first else '(L, N, input_size)'}, or one "
                             f"sequence (L, input_size)")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{input.shape[-1]}")
        weight = self.weight_ih_l0
        if input.dtype != weight.dtype:
            raise ValueError(f"{name} input dtype ({input.dtype.name}) does not match weight dtype "
                             f"({weight.dtype.name}). Convert input: input.to({weight.dtype.name}), or convert "
                             f"model: model.to({input.dtype.name})")
        if input.shape[1 if input.ndim == 3 and self.batch_first else 0] == 0:
            raise RuntimeError(f"Expected sequence length to be larger than 0 in {name}")
        batched = input.ndim == 3
        x = input if not batched else (S.transpose(input, 0, 1) if self.batch_first else input)
        if not batched:
            x = S.unsqueeze(x, 1)
        output, h_n = self._run(x, hx, batched, None)
        if batched and self.batch_first:
            output = S.transpose(output, 0, 1)
        return output, h_n

    def _forward_packed(self, packed, hx):
        """The layers over packed sequences: each stops at its own length (its state is carried unchanged past
        its end, and read there for h_n), in the packed longest-first order; hx and h_n in the original order."""
        padded, lengths = pad_packed_sequence(PackedSequence(packed.data, packed.batch_sizes))
        if padded.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                               f"{padded.shape[-1]}")
        order, back = packed.sorted_indices, packed.unsorted_indices
        if hx is not None and order is not None:   # (given in the original order)
            hx = tuple(h[:, order] for h in hx) if self.mode == "LSTM" else hx[:, order]
        output, h_n = self._run(padded, hx, True, lengths)
        repacked = pack_padded_sequence(output, lengths)
        if back is not None:
            h_n = tuple(h[:, back] for h in h_n) if self.mode == "LSTM" else h_n[:, back]
        return PackedSequence(repacked.data, repacked.batch_sizes, order, back), h_n

    def _run(self, x, hx, batched, lengths):
        """Every layer and direction over x (L, N, input_size); ``lengths`` (packed input) masks each sequence's
        steps past its end. Returns the last layer's outputs (L, N, D*hidden_size) and h_n."""
        masks = None
        if lengths is not None:
            steps_done = creation.arange(x.shape[0], device=x.device).unsqueeze(1)          # (L, 1)
            masks = S.unbind((steps_done < lengths.to(x.device).unsqueeze(0)).unsqueeze(-1), 0)   # L x (N, 1)
        directions = 2 if self.bidirectional else 1
        state_shape = (self.num_layers * directions, x.shape[1], self.hidden_size)
        states = self._initial_states(hx, state_shape, batched, x)
        finals = []
        for layer in range(self.num_layers):
            outputs = []
            for d, suffix in enumerate(("", "_reverse")[:directions]):
                w_ih, b_ih, w_hh, b_hh = self._weights(layer, suffix)
                gi = _time_steps(F.linear(x, w_ih, b_ih))        # the input's part, every step at once
                state = tuple(s[layer * directions + d] for s in states)
                state = state if self.mode == "LSTM" else state[0]
                steps = range(len(gi)) if d == 0 else range(len(gi) - 1, -1, -1)
                hs = [None] * len(gi)
                for t in steps:
                    new = _rnn_step(self.mode, gi[t], state, w_hh, b_hh)
                    if masks is not None:   # (a sequence past its end keeps its state)
                        new = (tuple(E.where(masks[t], n, s) for n, s in zip(new, state)) if self.mode == "LSTM"
                               else E.where(masks[t], new, state))
                    state = new
                    hs[t] = state[0] if self.mode == "LSTM" else state
                outputs.append(S.stack(hs))
                finals.append(state if self.mode == "LSTM" else (state,))
            x = outputs[0] if directions == 1 else S.cat(outputs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        output = x if batched else S.squeeze(x, 1)
        h_n = [S.stack([f[k] for f in finals]) for k in range(len(finals[0]))]
        if not batched:
            h_n = [S.squeeze(h, 1) for h in h_n]
        return output, (tuple(h_n) if self.mode == "LSTM" else h_n[0])

    def _initial_states(self, hx, shape, batched, x):
        name = type(self).__name__
        count = 2 if self.mode == "LSTM" else 1
        if hx is None:
            zeros = creation.zeros(tuple(shape), dtype=x.dtype, device=x.device)
            return (zeros,) * count
        parts = tuple(hx) if self.mode == "LSTM" and not isinstance(hx, Tensor) else (hx,)   # (a Tensor: refused)
        if len(parts) != count or not all(isinstance(t, Tensor) for t in parts):
            raise TypeError(f"{name}: hx must be {'a tuple (h_0, c_0) of Tensors' if count == 2 else 'a Tensor'}")
        want = shape if batched else (shape[0], shape[2])
        for which, t in zip(("hidden", "cell"), parts):
            if t.ndim != len(want):
                raise RuntimeError(f"For {'batched' if batched else 'unbatched'} {len(want) + 0}-D input, hx should "
                                   f"also be {len(want)}-D but got {t.ndim}-D tensor")
            if tuple(t.shape) != want:
                raise RuntimeError(f"Expected {which} size {want}, got {list(t.shape)}")
        return parts if batched else tuple(S.unsqueeze(t, 1) for t in parts)

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        if not self.bias:
            text += ", bias=False"
        if self.batch_first:
            text += ", batch_first=True"
        if self.dropout != 0:
            text += f", dropout={self.dropout}"
        if self.bidirectional:
            text += ", bidirectional=True"
        return text


class RNN(RNNBase):
    """An Elman RNN over a sequence, h_t = tanh(W_ih x_t + b_ih + W_hh h_(t-1) + b_hh) (or relu), stacked
    ``num_layers`` deep (each layer reads the one below; ``dropout`` between them while training), optionally
    ``bidirectional``. ``rnn(x, h_0)`` -> ``(output, h_n)``."""

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, device=None, dtype=None, proj_size=0):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size, hidden_size, num_layers,
                         bias, batch_first, dropout, bidirectional, proj_size, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity


class LSTM(RNNBase):
    """An LSTM over a sequence (:class:`LSTMCell`'s step at each time), stacked and optionally bidirectional as
    :class:`RNN`. ``lstm(x, (h_0, c_0))`` -> ``(output, (h_n, c_n))``."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         proj_size, device, dtype)


class GRU(RNNBase):
    """A GRU over a sequence (:class:`GRUCell`'s step at each time), stacked and optionally bidirectional as
    :class:`RNN`. ``gru(x, h_0)`` -> ``(output, h_n)``."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         proj_size, device, dtype)
