"""``AdaptiveLogSoftmaxWithLoss`` (Grave et al., 2017, "Efficient softmax approximation for GPUs",
https://arxiv.org/abs/1609.04309), as ``torch.nn``'s.

The classes, sorted from most to least frequent, are cut into a shortlist ``[0, cutoffs[0])`` and clusters
``[cutoffs[i], cutoffs[i + 1])``. The *head* is a softmax over the shortlist's classes and one entry per cluster;
cluster i has its own small softmax (the *tail*), fed through a projection to ``in_features // div_value^(i+1)``
features. So

    log p(c | x) = log head(x)[c]                                        for c in the shortlist,
    log p(c | x) = log head(x)[shortlist + i] + log tail_i(x)[c - cutoffs[i]]     for c in cluster i,

and each sample pays only for the head and its own target's cluster. The parameters carry PyTorch's names
(``head.weight``, ``head.bias``, ``tail.0.0.weight``, ``tail.0.1.weight``, ...), so a state dict saved from
``torch.nn.AdaptiveLogSoftmaxWithLoss`` loads here, and the gradients come from the engine."""
from __future__ import annotations

import numbers
from collections import namedtuple

import numpy

from .. import backend
from ..grad_mode import no_grad
from ..ops import shape as S
from ..ops.rearrange import index_select
from ..ops.selection import index_add
from ..tensor import Tensor, tensor
from . import functional as F
from .layers import Linear, ModuleList, Sequential
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

#: What ``forward`` returns: each target's log-probability, and the mean of their negatives (PyTorch's names).
_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


def _positions(array, device):
    """Host integers as an int64 index tensor on ``device``."""
    return tensor(numpy.asarray(array, dtype=numpy.int64), device=device)


class AdaptiveLogSoftmaxWithLoss(Module):
    """Log-probabilities of ``n_classes`` classes as a head softmax over the shortlist ``[0, cutoffs[0])`` and one
    entry per cluster, times each cluster's own softmax: ``log p(c) = log head[cluster(c)] + log tail[c]``.
    ``forward(input, target)``: ``(output, loss)``, output = log p(target), loss = -mean(output)."""

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False, device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                             "order, where each value is between 1 and n_classes-1")
        if not all(isinstance(c, numbers.Integral) for c in cutoffs):   # (PyTorch's Linear refuses 3.0 as a size)
            raise TypeError(f"cutoffs must be ints, got {cutoffs}")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, device=device, dtype=dtype)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, device=device, dtype=dtype),
                                        Linear(hidden, size, bias=False, device=device, dtype=dtype)))

    def reset_parameters(self):
        """Every Linear re-initialised as when it was made."""
        self.head.reset_parameters()
        for projection, output in self.tail:
            projection.reset_parameters()
            output.reset_parameters()

    # -- checks ---------------------------------------------------------------------------------------------

    def _check_features(self, input):
        """The last dim must be ``in_features`` (PyTorch's matmul error class, RuntimeError)."""
        if input.ndim > 0 and input.shape[-1] != self.in_features:
            raise RuntimeError(f"AdaptiveLogSoftmaxWithLoss: input has {input.shape[-1]} features (shape "
                               f"{tuple(input.shape)}) but in_features is {self.in_features}")

    def _check_matrix(self, input, name):
        """``log_prob`` and ``predict`` take a batch (N, in_features)."""
        if input.ndim == 1:
            raise IndexError(f"{name}: Dimension out of range: the input must be (N, in_features), got shape "
                             f"{tuple(input.shape)}: add a batch dim with input.unsqueeze(0)")
        if input.ndim != 2:
            raise RuntimeError(f"{name}: the input must be (N, in_features), got shape {tuple(input.shape)}")
        self._check_features(input)

    @staticmethod
    def _check_target_and_input(input, target):
        """A (N,) target with an (N, in_features) input, or a 0-d target with an (in_features,) input."""
        if target.ndim == 1:
            if input.shape[0] != target.shape[0]:
                raise RuntimeError("Input and target should have the same size in the batch dimension.")
            if input.ndim != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with size "
                                   f"{tuple(input.shape)}")
        elif target.ndim == 0:
            if input.ndim != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with size "
                                   f"{tuple(input.shape)}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")

    # -- the model ----------------------------------------------------------------------------------------

    def forward(self, input, target):
        """``output[n] = log head(x_n)[cluster(t_n)] (+ log tail(x_n)[t_n - cutoff] outside the shortlist)``,
        ``loss = -mean(output)``; each cluster's tail runs only on the rows whose target is in it."""
        self._check_target_and_input(input, target)
        self._check_features(input)
        batched = target.ndim > 0
        x = input if batched else S.unsqueeze(input, 0)
        labels = backend.to_host(target._data).reshape(-1)   # (which rows go to which cluster: a host decision)
        batch = labels.shape[0]
        output = x.new_zeros((batch,))
        head_column = numpy.zeros(batch, dtype=numpy.int64)     # each row's entry of the head softmax
        bounds = [0] + self.cutoffs
        found = 0
        for i in range(len(bounds) - 1):
            low, high = bounds[i], bounds[i + 1]
            rows = numpy.nonzero((labels >= low) & (labels < high))[0]
            if rows.size == 0:
                continue
            found += rows.size
            if i == 0:
                head_column[rows] = labels[rows]
                continue
            head_column[rows] = self.shortlist_size + i - 1
            if target.dtype not in (numpy.int32, numpy.int64):
                continue   # (refused below, with the shortlist's rows)
            at = _positions(rows, x.device)
            cluster_logprob = F.log_softmax(self.tail[i - 1](index_select(x, 0, at)), dim=1)
            within = _positions(labels[rows] - low, x.device)
            local = S.squeeze(S.gather(cluster_logprob, 1, S.unsqueeze(within, 1)), 1)
            output = index_add(output, 0, at, local)
        if found != batch:
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{labels.min()}, {labels.max()}] were found. ")
        if target.dtype not in (numpy.int32, numpy.int64):
            raise RuntimeError(f"gather(): Expected dtype int32/int64 for index: the target is "
                               f"{target.dtype.name}; convert it with target.long()")
        head_logprob = F.log_softmax(self.head(x), dim=1)
        chosen = S.gather(head_logprob, 1, S.unsqueeze(_positions(head_column, x.device), 1))
        output = output + S.squeeze(chosen, 1)
        loss = (-output).mean()
        return _ASMoutput(output if batched else S.squeeze(output, 0), loss)

    def _full_log_prob(self, input, head_output):
        """All ``n_classes`` log-probabilities: the head's shortlist columns, then each cluster's
        ``log tail_i(x) + log head(x)[shortlist + i]``, side by side."""
        head_logprob = F.log_softmax(head_output, dim=1)
        columns = [head_logprob[:, :self.shortlist_size]]
        for i, cluster in enumerate(self.tail):
            cluster_logprob = F.log_softmax(cluster(input), dim=1)
            columns.append(cluster_logprob + head_logprob[:, self.shortlist_size + i:self.shortlist_size + i + 1])
        return S.cat(columns, 1)

    def log_prob(self, input):
        """log p(c | x) for every class c: (N, in_features) -> (N, n_classes)."""
        self._check_matrix(input, "log_prob")
        return self._full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most likely class of each row, ``argmax_c log p(c | x)``, computing the tails only for the rows
        whose head's best entry is a cluster: (N, in_features) -> (N,) int64."""
        self._check_matrix(input, "predict")
        with no_grad():
            head_output = self.head(input)
            best = head_output.argmax(1)
            outside = numpy.nonzero(backend.to_host(best._data) >= self.shortlist_size)[0]
            if outside.size == 0:
                return best
            at = _positions(outside, input.device)
            full = self._full_log_prob(index_select(input, 0, at), index_select(head_output, 0, at))
            return S.index_put(best, (at,), full.argmax(1))
