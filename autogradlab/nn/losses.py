"""Losses as plain functions, with PyTorch's signatures (``F.mse_loss``, ``F.cross_entropy``, ...).

Each takes ``reduction``: ``'mean'`` (the default), ``'sum'`` or ``'none'`` (one loss per element or
sample), and the deprecated ``size_average``/``reduce`` flags where PyTorch still takes them, read as
PyTorch reads them (with its warning). Each loss is a few differentiable ops, so its gradient comes
from the engine; the docstrings give the math (d = x - y for the regression losses).
"""
from __future__ import annotations

import numbers
import warnings

import numpy

from ..backend import asarray, to_host
from ..creation import arange, full_like
from ..ops import elementwise as E
from ..ops import reduce as R
from ..ops import shape as S
from ..ops.registry import apply, broadcast_shape, defop
from ..tensor import Tensor
from .distance import check_float, floating_inputs, pairwise_distance

__all__ = ["mse_loss", "l1_loss", "huber_loss", "smooth_l1_loss", "nll_loss", "cross_entropy",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "margin_ranking_loss",
           "hinge_embedding_loss", "cosine_embedding_loss", "triplet_margin_loss", "poisson_nll_loss",
           "gaussian_nll_loss", "soft_margin_loss", "multilabel_soft_margin_loss", "multi_margin_loss", "ctc_loss"]

REDUCTIONS = ("mean", "sum", "none")


def legacy_reduction(size_average, reduce, reduction, name):
    """``reduction``, or what PyTorch reads from the deprecated flags when either is given (both default to
    True: ``reduce=False`` is 'none', else ``size_average=False`` is 'sum', else 'mean'), with its warning."""
    if reduction not in REDUCTIONS:
        raise ValueError(f"{name}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{reduction}' instead.",
                  UserWarning, stacklevel=3)
    return reduction


def _reduce(loss, reduction, name):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{name}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def _same_shape(input, target, name, complex_ok=False):
    check_float(input, "input", name, complex_ok=complex_ok)
    check_float(target, "target", name, complex_ok=complex_ok)
    if input.shape != target.shape:
        raise ValueError(f"{name}: input shape {tuple(input.shape)} and target shape {tuple(target.shape)} "
                         f"differ; reshape one of them (e.g. target.reshape({', '.join(map(str, input.shape))}))"
                         f" so they match")


def _elementwise_weight(weight, input, name):
    if weight is not None:
        check_float(weight, "weight", name)
        if weight.shape != input.shape:
            raise ValueError(f"{name}: weight shape {tuple(weight.shape)} must equal the input's "
                             f"{tuple(input.shape)} (one weight per element)")


def _weighted(loss, weight, reduction, mean_over_weights=True):
    """``loss * weight`` reduced: its mean is ``sum(w*loss)/sum(w)`` (PyTorch's mse_loss and l1_loss) or the plain
    mean of ``w*loss`` (its huber_loss)."""
    loss = loss * weight
    if reduction == "mean" and mean_over_weights:
        with numpy.errstate(invalid="ignore", divide="ignore"):   # (weights summing to 0: NaN, as in PyTorch)
            return loss.sum() / weight.sum()
    return _reduce(loss, reduction, "")


# -- regression ----------------------------------------------------------------------------------------------

def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """d^2, averaged (or summed) over all elements; d/dx = 2d. With ``weight`` (one per element) the mean is
    sum(w*d^2)/sum(w), as in PyTorch.

    ``input`` and ``target`` must have the same shape: a (N, 1) prediction against a (N,)
    target would silently broadcast to (N, N), so that is an error here.
    """
    reduction = legacy_reduction(size_average, reduce, reduction, "mse_loss")
    _same_shape(input, target, "mse_loss")
    _elementwise_weight(weight, input, "mse_loss")
    diff = input - target
    loss = diff * diff
    return _reduce(loss, reduction, "mse_loss") if weight is None else _weighted(loss, weight, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """|d|, averaged (or summed) over all elements; d/dx = sign(d) (0 where x = y; for complex numbers d/|d|).
    ``input`` and ``target`` must have the same shape (as for :func:`mse_loss`); ``weight`` as there."""
    reduction = legacy_reduction(size_average, reduce, reduction, "l1_loss")
    _same_shape(input, target, "l1_loss", complex_ok=True)
    _elementwise_weight(weight, input, "l1_loss")
    loss = E.abs(input - target)
    return _reduce(loss, reduction, "l1_loss") if weight is None else _weighted(loss, weight, reduction)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """d^2/2 where |d| < delta, else delta*(|d| - delta/2): quadratic near 0, linear far out, so an outlier
    pulls with at most delta; d/dx = d clipped to [-delta, delta]. With ``weight`` (one per element) the mean is
    the plain mean of w*loss, as in PyTorch."""
    reduction = legacy_reduction(None, None, reduction, "huber_loss")
    _same_shape(input, target, "huber_loss")
    _elementwise_weight(weight, input, "huber_loss")
    if not delta > 0:
        raise RuntimeError(f"huber_loss: delta must be positive, got {delta!r}")
    d = input - target
    z = E.abs(d)
    near = z < delta
    dq = E.where(near, d, 0.0)   # (the square only where it is taken: an infinite d's gradient is delta, not NaN)
    loss = E.where(near, 0.5 * dq * dq, (z - 0.5 * delta) * delta).to(input.dtype)   # (input's dtype, as PyTorch)
    return _reduce(loss, reduction, "huber_loss") if weight is None else _weighted(loss, weight, reduction, False)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """d^2/(2*beta) where |d| < beta, else |d| - beta/2 (Huber's loss divided by beta; beta = 0 is the L1
    loss); d/dx = d/beta clipped to [-1, 1]."""
    reduction = legacy_reduction(size_average, reduce, reduction, "smooth_l1_loss")
    _same_shape(input, target, "smooth_l1_loss")
    if beta < 0:
        raise RuntimeError(f"smooth_l1_loss: beta must not be negative, got {beta!r}")
    if beta == 0:
        return l1_loss(input, target, reduction=reduction)
    d = input - target
    z = E.abs(d)
    near = z < beta
    dq = E.where(near, d, 0.0)   # (as in huber_loss)
    return _reduce(E.where(near, 0.5 * dq * dq / beta, z - 0.5 * beta), reduction, "smooth_l1_loss")


# -- classification ------------------------------------------------------------------------------------------

def _check_class_targets(input, target, name, ignore_index=None) -> int:
    """(N, C) input, (N,) integer targets in [0, C) (or equal to ``ignore_index``); returns how many are not
    ``ignore_index``."""
    if input.ndim != 2:
        raise ValueError(f"{name}: input must have shape (N, C), got {tuple(input.shape)}")
    n, c = input.shape
    if target.dtype.kind not in "iu":
        raise TypeError(f"{name}: target must hold integer class indices (dtype int64) of shape ({n},), "
                        f"got dtype {target.dtype.name} with shape {tuple(target.shape)}. Convert labels with "
                        f"y.to(autogradlab.int64); class probabilities need the input's shape {tuple(input.shape)}")
    if target.shape != (n,):
        raise ValueError(f"{name}: target shape {tuple(target.shape)} does not fit input shape {(n, c)}: "
                         f"expected one class index per sample, shape ({n},)")
    labels = target._data
    if ignore_index is not None:
        labels = labels[labels != ignore_index]
    if labels.size:
        lo, hi = int(labels.min()), int(labels.max())
        if lo < 0 or hi >= c:
            bad = lo if lo < 0 else hi
            raise IndexError(f"{name}: target {bad} is out of bounds: with {c} classes (input shape {(n, c)}) "
                             f"targets must be in [0, {c - 1}]" + (f" (or ignore_index={ignore_index})"
                                                                  if ignore_index is not None else ""))
    return int(labels.size)


def _class_weight(weight, input, name):
    if weight is not None:
        check_float(weight, "weight", name)
        if weight.shape != (input.shape[1],):
            raise RuntimeError(f"{name}: weight must hold one number per class, shape ({input.shape[1]},), got "
                               f"{tuple(weight.shape)}")
        if weight.dtype != input.dtype:
            raise RuntimeError(f"{name}: weight is {weight.dtype.name} and input {input.dtype.name}: give them one "
                               f"dtype, e.g. weight.to(input.dtype)")


def _check_ignore_index(ignore_index, name):
    if type(ignore_index) is bool or not isinstance(ignore_index, numbers.Integral):
        raise TypeError(f"{name}: ignore_index must be an int, got {ignore_index!r}")


def _per_position(loss, name, input, target, reduction, **options):
    """``loss`` for K-dimensional input (N, C, d1, ..., dK) with targets (N, d1, ..., dK) (a class per pixel or
    per time step) or probabilities of the input's shape: each position is one sample of a 2-D batch,
    (N * d1 * ... * dK, C), and ``reduction='none'`` gives the losses back as (N, d1, ..., dK)."""
    n, c, spatial = input.shape[0], input.shape[1], tuple(input.shape[2:])
    probabilities = target.shape == input.shape and target.dtype.kind == "f"
    if not probabilities and tuple(target.shape) != (n,) + spatial:
        raise ValueError(f"{name}: for input of shape {tuple(input.shape)} (N, C, d1, ...) the target must hold "
                         f"one class index per position, shape {(n,) + spatial}, got {tuple(target.shape)}")
    flat_input = input.movedim(1, -1).reshape(-1, c)
    flat_target = target.movedim(1, -1).reshape(-1, c) if probabilities else target.reshape(-1)
    out = loss(flat_input, flat_target, reduction=reduction, **options)
    return out.reshape((n,) + spatial) if reduction == "none" else out


def _index_targets(target):
    """Integer class indices as int64 (a uint8 target would index as a mask)."""
    if isinstance(target, Tensor) and target.dtype.kind == "u":
        return E.to_dtype(target, numpy.int64)
    return target


def _one_sample(loss, input, target, reduction, **kwargs):
    """One sample's logits or log-probabilities (C,) with its class () or its probabilities (C,), as PyTorch
    takes them: a batch of one, its batch dim dropped again for ``reduction='none'``."""
    if target.ndim > 1:
        raise RuntimeError(f"0D or 1D target tensor expected, multi-target not supported: one sample's input "
                           f"{tuple(input.shape)} takes a class () or probabilities {tuple(input.shape)}, got a "
                           f"target of shape {tuple(target.shape)}")
    if target.ndim == 0 or tuple(target.shape) == tuple(input.shape):
        target = target.unsqueeze(0)
    out = loss(input.unsqueeze(0), target, reduction=reduction, **kwargs)
    return out.squeeze(0) if reduction == "none" else out


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """-w[y_n] * logp[n, y_n] for log-probabilities ``input`` (N, C) (or (N, C, d1, ...), a class per position)
    and class indices ``target`` (N,); ``weight``
    (C,) weighs each class (default 1). Samples whose target is ``ignore_index`` count for nothing. The mean
    divides by the total weight of the samples counted: sum_n w[y_n]*loss_n / sum_n w[y_n]."""
    reduction = legacy_reduction(size_average, reduce, reduction, "nll_loss")
    _check_ignore_index(ignore_index, "nll_loss")
    check_float(input, "input (log-probabilities)", "nll_loss")
    target = _index_targets(target)
    if input.ndim > 2 and isinstance(target, Tensor):
        return _per_position(nll_loss, "nll_loss", input, target, reduction, weight=weight, ignore_index=ignore_index)
    if input.ndim == 1 and isinstance(target, Tensor):
        return _one_sample(nll_loss, input, target, reduction, weight=weight, ignore_index=ignore_index)
    counted = _check_class_targets(input, target, "nll_loss", ignore_index)
    _class_weight(weight, input, "nll_loss")
    rows = arange(input.shape[0], device=input.device)
    if weight is None and counted == input.shape[0]:   # (every sample, weight 1: the plain mean)
        return _reduce(-input[rows, target], reduction, "nll_loss")
    kept = target != ignore_index
    safe = E.where(kept, target, 0)   # (an ignored sample picks class 0, then weighs 0)
    # the class weights are constants (PyTorch gives them no gradient either)
    w = weight.detach()[safe] * kept if weight is not None else E.to_dtype(kept, input.dtype)
    loss = E.where(kept, -input[rows, safe], 0.0) * w   # (a select: an ignored row's -inf or NaN stays out)
    if reduction != "mean":
        return _reduce(loss, reduction, "nll_loss")
    return _mean_over(loss.sum(), w.sum(), counted)


def _mean_over(total, weight, counted):
    """``total / weight``; NaN with a zero gradient when no sample is counted (as PyTorch's 0/0)."""
    if not counted:
        return total + float("nan")
    with numpy.errstate(invalid="ignore", divide="ignore"):   # (counted samples of weight 0: NaN, as in PyTorch)
        return total / weight


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """-log softmax(x)[n, y_n] = logsumexp(x_n) - x[n, y_n]: logits (N, C), class indices (N,); ``weight`` and
    ``ignore_index`` as in :func:`nll_loss`. Logits (N, C, d1, ...) take a class per position (segmentation,
    a class per time step), and one sample's logits (C,) its class (), as PyTorch's.

    Computed through ``log_softmax`` (never ``log(softmax(x))``), so huge logits stay finite.
    A float ``target`` of the same shape as ``input`` is read as class probabilities:
    -sum_c w_c * p[n, c] * log softmax(x)[n, c]. ``label_smoothing`` = e mixes the target with the uniform
    distribution: (1 - e) * the loss above + e * the mean over classes of -w_c * log softmax(x)[n, c].
    """
    reduction = legacy_reduction(size_average, reduce, reduction, "cross_entropy")
    _check_ignore_index(ignore_index, "cross_entropy")
    check_float(input, "input (the logits)", "cross_entropy")
    if not isinstance(target, Tensor):
        raise TypeError(f"cross_entropy: target must be a Tensor, got {type(target).__name__}")
    target = _index_targets(target)
    if input.ndim > 2:
        return _per_position(cross_entropy, "cross_entropy", input, target, reduction, weight=weight,
                             ignore_index=ignore_index, label_smoothing=label_smoothing)
    if input.ndim == 1:
        return _one_sample(cross_entropy, input, target, reduction, weight=weight, ignore_index=ignore_index,
                           label_smoothing=label_smoothing)
    if input.ndim != 2:
        raise ValueError(f"cross_entropy: input must be logits of shape (N, C) or (C,), got shape "
                         f"{tuple(input.shape)}")
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"cross_entropy: label_smoothing must be between 0.0 and 1.0, got {label_smoothing!r}")
    _class_weight(weight, input, "cross_entropy")
    n_classes = input.shape[1]
    logp = R.log_softmax(input, 1)
    if target.shape == input.shape and target.dtype.kind != "f":
        raise TypeError(f"cross_entropy: a target of the input's shape {tuple(input.shape)} is read as class "
                        f"probabilities, which must be floating point (got {target.dtype.name}); class indices "
                        f"have shape ({input.shape[0]},)")
    if target.dtype.kind == "f" and target.shape == input.shape:   # class probabilities
        if ignore_index != -100:
            raise RuntimeError("cross_entropy: ignore_index is only for class-index targets, not for class "
                               "probabilities: give an ignored sample zero probability everywhere instead")
        if label_smoothing:
            target = target * (1 - label_smoothing) + label_smoothing / n_classes
        picked = target * logp if weight is None else target * logp * weight
        return _reduce(-picked.sum(1), reduction, "cross_entropy")
    counted = _check_class_targets(input, target, "cross_entropy", ignore_index)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if not label_smoothing:
        return nll
    kept = target != ignore_index
    weight = None if weight is None else weight.detach()
    counted_logp = E.where(kept.unsqueeze(1), logp, 0.0)   # (0 for an ignored sample, whatever its logits)
    smooth = -(counted_logp if weight is None else counted_logp * weight).sum(1)
    if reduction == "mean":
        total = kept.sum() if weight is None else (weight[E.where(kept, target, 0)] * kept).sum()
        smooth = _mean_over(smooth.sum(), total, counted)
    else:
        smooth = _reduce(smooth, reduction, "cross_entropy")
    return nll * (1 - label_smoothing) + smooth * (label_smoothing / n_classes)


# -- binary classification -----------------------------------------------------------------------------------

def logsigmoid(input):
    """log(1 / (1 + e^-x)), computed stably: x - log(1 + e^x) for x < 0, -log(1 + e^-x) else; d/dx =
    sigmoid(-x). (Each branch sees x only on its own side: the other stays finite, so its gradient is 0, and
    every derivative is smooth at 0.) The logistic losses below are written with it, as PyTorch's are."""
    check_float(input, "input", "logsigmoid", NotImplementedError)
    if input.dtype == numpy.float16:   # (in float32, rounded once, as PyTorch computes half activations)
        return logsigmoid(input.to(numpy.float32)).to(numpy.float16)
    left = input < 0
    neg, pos = E.where(left, input, 0.0), E.where(left, 0.0, input)
    return E.where(left, neg - E.log1p(E.exp(neg)), -E.log1p(E.exp(-pos)))


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    """-[p*y log s(x) + (1 - y) log(1 - s(x))] with s = sigmoid and p = ``pos_weight`` (default 1: one per class,
    weighing the positive examples), written as w*log(1 + e^x) - p*y*x with w = 1 + (p - 1)*y and log(1 + e^x) =
    -logsigmoid(-x): it never overflows, its gradient is PyTorch's w*s(x) - p*y (s(x) - y for p = 1, to the last
    bit where s(x) is tiny), and its derivatives of every order are smooth at x = 0 (a Hessian for Newton's
    method from zero weights). Times ``weight`` if given."""
    reduction = legacy_reduction(size_average, reduce, reduction, "binary_cross_entropy_with_logits")
    check_float(input, "input (the logits)", "binary_cross_entropy_with_logits")
    check_float(target, "target (0/1 labels or probabilities)", "binary_cross_entropy_with_logits")
    if input.shape != target.shape:
        raise ValueError(f"binary_cross_entropy_with_logits: target shape {tuple(target.shape)} must equal "
                         f"input shape {tuple(input.shape)}")
    for t, what in ((weight, "weight"), (pos_weight, "pos_weight")):
        if t is not None:
            check_float(t, what, "binary_cross_entropy_with_logits")
            _broadcasts_to(t, input, what, "binary_cross_entropy_with_logits")
    softplus = -logsigmoid(-input)
    if pos_weight is None:
        loss = softplus - target * input
    else:
        log_weight = (pos_weight - 1) * target + 1
        loss = log_weight * softplus - pos_weight * target * input
    loss = (loss if weight is None else loss * weight).to(target.dtype)   # (PyTorch's: in the target's dtype)
    return _reduce(loss, reduction, "binary_cross_entropy_with_logits")


def _broadcasts_to(t, input, what, name):
    if numpy.broadcast_shapes(tuple(t.shape), tuple(input.shape)) != tuple(input.shape):
        raise ValueError(f"{name}: {what} shape {tuple(t.shape)} does not broadcast to the input's "
                         f"{tuple(input.shape)} (one {what} per element, or per row or column)")


def _bce_forward(xp, x, y):
    with numpy.errstate(divide="ignore"):   # (log 0 = -inf, then clamped: x = 0 or 1 is a saturated sigmoid's)
        return (y - 1) * xp.maximum(xp.log1p(-x), -100) - y * xp.maximum(xp.log(x), -100)


_BCE_EPSILON = float(numpy.float32(1e-12))   # (PyTorch's floor of x*(1 - x): 1e-12 as a float32, in every dtype)


def _bce_vjp(g, ctx):
    # PyTorch's formulas: dx = g*(x - y)/max(x*(1 - x), 1e-12) (finite at x = 0 or 1), dy = -g*logit(x)
    x, y = ctx.self, ctx.target
    one = E._one_like(x)
    with numpy.errstate(divide="ignore"):
        return (g * (x - y) / E.maximum((one - x) * x, _BCE_EPSILON), g * -E.log(x / (one - x)))


BINARY_CROSS_ENTROPY = defop(
    "binary_cross_entropy", ("self", "target"), save=("self", "target"),
    math="-(y*log(x) + (1-y)*log(1-x)), each log at least -100;  dx = g*(x - y)/(x*(1 - x)), dy = -g*log(x/(1-x))",
    forward=_bce_forward, vjp=_bce_vjp, formulas=("(x - y)/(x*(1 - x))", "-log(x/(1 - x))"))


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-[y log x + (1 - y) log(1 - x)] for probabilities x in [0, 1] (a sigmoid's output), each log clamped
    at -100 as PyTorch does, so x = 0 or 1 gives 100, not inf; times ``weight`` if given. From logits,
    :func:`binary_cross_entropy_with_logits` is the stable choice."""
    reduction = legacy_reduction(size_average, reduce, reduction, "binary_cross_entropy")
    check_float(input, "input (probabilities)", "binary_cross_entropy")
    check_float(target, "target (0/1 labels or probabilities)", "binary_cross_entropy")
    _same_shape(input, target, "binary_cross_entropy")
    if input.dtype != target.dtype:
        raise RuntimeError(f"binary_cross_entropy: input is {input.dtype.name} and target {target.dtype.name}; give "
                           f"them one dtype (as PyTorch requires), e.g. target.to(input.dtype)")
    if weight is not None:
        _broadcasts_to(weight, input, "weight", "binary_cross_entropy")
    for t, what in ((input, "input"), (target, "target")):
        if not bool(((t._data >= 0) & (t._data <= 1)).all()):
            raise RuntimeError(f"binary_cross_entropy: all elements of {what} should be between 0 and 1"
                               + ("; for logits (any real numbers) use binary_cross_entropy_with_logits"
                                  if what == "input" else " (0/1 labels or probabilities)"))
    loss = apply(BINARY_CROSS_ENTROPY, (input, target))
    return _reduce(loss if weight is None else loss * weight, reduction, "binary_cross_entropy")


# -- divergences, rankings and embeddings --------------------------------------------------------------------

def _x_log_x(t):
    """t*log(t), with 0*log(0) = 0 (the limit), as PyTorch's xlogy(t, t)."""
    with numpy.errstate(divide="ignore", invalid="ignore"):   # (the branch not taken at t = 0 is 0*-inf)
        return E.where(t == 0, 0.0, t * E.log(t))


_KL_MEAN_WARNING = ("reduction: 'mean' divides the total loss by both the batch size and the support size. "
                    "'batchmean' divides only by the batch size, and aligns with the KL div math definition. "
                    "'mean' will be changed to behave the same as 'batchmean' in the next major release.")


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """KL(target || model) with the model's log-probabilities x = ``input``: t*(log t - x) per element (0 where
    t = 0), or e^t*(t - x) when ``log_target`` says t is given as log-probabilities. ``'batchmean'`` sums and
    divides by the batch size x.shape[0], the KL divergence per sample; ``'mean'`` divides by the number of
    elements (PyTorch warns about that); input and target broadcast."""
    name = "kl_div"
    if size_average is not None or reduce is not None:
        how = legacy_reduction(size_average, reduce, "mean", name)
    elif reduction == "batchmean":
        how = "sum"
    elif reduction in REDUCTIONS:
        how = reduction
        if reduction == "mean":
            warnings.warn(_KL_MEAN_WARNING, UserWarning, stacklevel=2)
    else:
        raise ValueError(f"{reduction} is not a valid value for reduction: {name} takes 'none', 'batchmean' "
                         f"(the KL divergence per sample), 'sum' or 'mean'")
    floating_inputs(name, input, target)
    broadcast_shape(name, input.shape, target.shape)
    if log_target:
        loss = E.exp(target) * (target - input)
    else:
        loss = _x_log_x(target) - target * input
    loss = _reduce(loss, how, name)
    if reduction == "batchmean" and input.ndim:
        with numpy.errstate(invalid="ignore"):   # (an empty batch: 0/0 = NaN, as in PyTorch)
            loss = loss / input.shape[0]
    return loss


def _same_ndim(name, what, *tensors):
    if len({t.ndim for t in tensors}) > 1:
        shapes = ", ".join(f"{w} {tuple(t.shape)}" for w, t in zip(what, tensors))
        raise RuntimeError(f"{name}: {', '.join(what)} must have the same number of dims, got {shapes}; "
                           f"reshape them (e.g. unsqueeze) so they match")


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """max(0, -y*(x1 - x2) + margin): y = 1 asks x1 to rank above x2 by ``margin``, y = -1 below. The three
    must have the same number of dims, and broadcast."""
    name = "margin_ranking_loss"
    reduction = legacy_reduction(size_average, reduce, reduction, name)
    _same_ndim(name, ("input1", "input2", "target"), input1, input2, target)
    broadcast_shape(name, input1.shape, input2.shape, target.shape)
    return _reduce(E.clamp(-target * (input1 - input2) + margin, min=0), reduction, name)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """x where y = 1, max(0, margin - x) where y = -1 (x a distance: small for a similar pair, at least
    ``margin`` for a dissimilar one). A y that is neither takes both terms, as in PyTorch."""
    name = "hinge_embedding_loss"
    reduction = legacy_reduction(size_average, reduce, reduction, name)
    broadcast_shape(name, input.shape, target.shape)
    return _reduce(E.where(target != 1, E.clamp(margin - input, min=0), 0.0) + E.where(target != -1, input, 0.0),
                   reduction, name)


_COSINE_EPSILON = 1e-12   # (added to each squared norm: zero vectors give cos = 0, not 0/0)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """1 - cos(x1, x2) where y = 1, max(0, cos(x1, x2) - margin) where y = -1 (0 for any other y), with
    cos = sum(x1*x2) / sqrt((sum x1^2 + 1e-12)*(sum x2^2 + 1e-12)) over the last dim. Inputs (N, D) with
    target (N,), or one pair (D,) with a 0-d target."""
    name = "cosine_embedding_loss"
    reduction = legacy_reduction(size_average, reduce, reduction, name)
    if target.ndim > 1:
        raise RuntimeError(f"{name}: 0D or 1D target tensor expected, multi-target not supported (got target "
                           f"shape {tuple(target.shape)}); give one +1/-1 per pair")
    want = target.ndim + 1
    if input1.ndim != want or input2.ndim != want:
        raise RuntimeError(f"{name}: a {target.ndim}D target tensor expects {want}D input tensors, but found "
                           f"inputs with sizes {list(input1.shape)} and {list(input2.shape)}")
    broadcast_shape(name, broadcast_shape(name, input1.shape, input2.shape)[:-1], target.shape)
    dot = R.sum(input1 * input2, -1)
    squares = (R.sum(input1 * input1, -1) + _COSINE_EPSILON) * (R.sum(input2 * input2, -1) + _COSINE_EPSILON)
    cos = dot / E.sqrt(squares)
    loss = E.where(target == 1, 1 - cos, 0.0) + E.where(target == -1, E.clamp(cos - margin, min=0), 0.0)
    return _reduce(loss, reduction, name)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """max(0, d(a, p) - d(a, n) + margin), d = pairwise_distance (the ``p``-norm of the difference + ``eps``,
    over the last dim): the anchor nearer the positive than the negative by ``margin``. ``swap``: d(a, n) is
    min(d(a, n), d(p, n)), the harder negative distance (Balntas et al., 2016)."""
    name = "triplet_margin_loss"
    reduction = legacy_reduction(size_average, reduce, reduction, name)
    if not margin > 0:   # (checked first, as in PyTorch)
        raise ValueError(f"margin must be greater than 0, got {margin}: a margin <= 0 asks nothing of the "
                         f"triplet; give a positive margin such as 1.0")
    _same_ndim(name, ("anchor", "positive", "negative"), anchor, positive, negative)
    broadcast_shape(name, anchor.shape, positive.shape, negative.shape)
    to_positive = pairwise_distance(anchor, positive, p, eps)
    to_negative = pairwise_distance(anchor, negative, p, eps)
    if swap:
        to_negative = E.minimum(to_negative, pairwise_distance(positive, negative, p, eps))
    return _reduce(E.clamp(to_positive + margin - to_negative, min=0), reduction, name)


# -- likelihoods and margins, PyTorch's remaining losses ---------------------------------------------------------

def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """The negative log-likelihood of ``target`` counts under a Poisson of rate r: r - y log r, with r = e^x
    (``log_input=True``: e^x - y x) or r = x (then x - y log(x + eps)). ``full`` adds Stirling's log y!
    = y log y - y + log(2 pi y)/2 where y > 1."""
    name = "poisson_nll_loss"
    reduction = legacy_reduction(size_average, reduce, reduction, name)
    check_float(input, "input", name)
    broadcast_shape(name, input.shape, target.shape)
    loss = E.exp(input) - target * input if log_input else input - target * E.log(input + eps)
    if full:
        with numpy.errstate(divide="ignore", invalid="ignore"):   # (log 0 where y = 0: masked out, as in PyTorch)
            stirling = target * E.log(target) - target + 0.5 * E.log(2 * numpy.pi * target)
        loss = loss + E.where(target > 1, stirling, 0.0)
    return _reduce(loss, reduction, name)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """The negative log-likelihood of ``target`` under N(input, var): (log var + (x - y)^2 / var) / 2 (plus
    log(2 pi)/2 with ``full``). ``var`` has input's shape, or one fewer trailing dim, or a last dim of 1 (one
    variance per sample), or is a number; it is clamped to at least ``eps`` for the value only (the gradient
    passes as if unclamped, as in PyTorch)."""
    name = "gaussian_nll_loss"
    if reduction not in REDUCTIONS:
        raise ValueError(f"{name}: {reduction} is not a valid value for reduction ('mean', 'sum' or 'none')")
    check_float(input, "input", name)
    if not isinstance(var, Tensor):
        if isinstance(var, bool) or not isinstance(var, numbers.Real):
            raise TypeError(f"{name}: var must be a Tensor or a number, not {type(var).__name__}")
        if var < 0:
            raise ValueError(f"{name}: var has negative entry/entries ({var})")
        var = full_like(input.detach(), max(float(var), eps))
    else:
        if tuple(var.shape) != tuple(input.shape):
            if tuple(input.shape[:-1]) == tuple(var.shape):
                var = var.unsqueeze(-1)
            elif not (var.ndim == input.ndim and sum(v for i, v in zip(input.shape, var.shape) if i != v) == 1):
                # (PyTorch's rule: one dim where they differ, of size 1 in var, e.g. (4, 1, 32, 32) for (4, 3, 32, 32))
                raise ValueError(f"{name}: var is of incorrect size {tuple(var.shape)} for input of shape "
                                 f"{tuple(input.shape)}: give input's shape, one dim fewer, or input's shape "
                                 f"with one dim of 1")
        if bool((var.detach() < 0).any()):
            raise ValueError(f"{name}: var has negative entry/entries")
        var = var + (E.clamp(var.detach(), min=eps) - var.detach())   # (the value clamped, the gradient not)
    loss = 0.5 * (E.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * numpy.log(2 * numpy.pi)
    return _reduce(loss, reduction, name)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + e^(-y x)) for labels y = +1 / -1 (a smooth hinge: the logistic loss)."""
    name = "soft_margin_loss"
    reduction = legacy_reduction(size_average, reduce, reduction, name)
    check_float(input, "input", name)
    if tuple(broadcast_shape(name, input.shape, target.shape)) != tuple(input.shape):
        raise RuntimeError(f"{name}: target of shape {tuple(target.shape)} must broadcast to input's shape "
                           f"{tuple(input.shape)} (as PyTorch's): reshape the target")
    return _reduce(E.log1p(E.exp(-target * input)).to(input.dtype), reduction, name)   # (input's dtype, as PyTorch)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-[y log s(x) + (1 - y) log(1 - s(x))] per class (s = sigmoid: each class a yes/no of its own), times
    ``weight`` per class if given, averaged over the C classes of each sample; then the reduction over samples.
    Computed as PyTorch does, -[y logsigmoid(x) + (1 - y) logsigmoid(-x)]."""
    name = "multilabel_soft_margin_loss"
    reduction = legacy_reduction(size_average, reduce, reduction, name)
    check_float(input, "input", name)
    broadcast_shape(name, input.shape, target.shape)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    per_sample = R.sum(loss, input.ndim - 1) / input.shape[-1] if input.ndim else loss
    return _reduce(per_sample, reduction, name)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    """The multi-class hinge: for a sample of class y, sum over the other classes j of
    max(0, margin - x[y] + x[j])^p / C (p is 1 or 2), each term times ``weight[y]`` if given. ``input`` (N, C)
    with class indices ``target`` (N,), or one sample (C,) with a 0-d (or a (1,)) target."""
    name = "multi_margin_loss"
    reduction = legacy_reduction(size_average, reduce, reduction, name)
    if p not in (1, 2):
        raise ValueError(f"{name}: only p == 1 and p == 2 supported, got p={p}")
    check_float(input, "input", name)
    one_of_one = input.ndim == 1 and tuple(target.shape) == (1,)   # (one sample: a 0-d target, or PyTorch's (1,))
    if input.ndim not in (1, 2) or (target.ndim != input.ndim - 1 and not one_of_one):
        raise RuntimeError(f"{name}: expected input of shape (N, C) with target (N,), or (C,) with a 0-d or (1,) "
                           f"target; got input {tuple(input.shape)} and target {tuple(target.shape)}")
    x, y = (input, target) if input.ndim == 2 else (input.unsqueeze(0), target.reshape(1))
    n_classes = x.shape[1]
    _class_weight(weight, x, name)
    if y.dtype.kind not in "iu":
        raise RuntimeError(f"{name}: target must hold class indices (int64), got {y.dtype.name}")
    if y.numel() and (int(y.max().item()) >= n_classes or int(y.min().item()) < 0):
        raise RuntimeError(f"{name}: target out of range: the class indices must lie in [0, {n_classes}), got "
                           f"{int(y.min().item())} to {int(y.max().item())}")
    picked = x.gather(1, y.unsqueeze(1))
    z = margin - picked + x
    terms = E.where(z > 0, z, 0.0)   # (no gradient at the hinge itself, as PyTorch)
    if p == 2:
        terms = terms * terms
    if weight is not None:
        terms = terms * weight[y].unsqueeze(1)
    own = arange(n_classes, device=x.device).unsqueeze(0) == y.unsqueeze(1)
    loss = R.sum(E.where(own, 0.0, terms), 1) / n_classes
    return _reduce(loss if input.ndim == 2 or one_of_one else loss.reshape(()), reduction, name)


# -- CTC: the probability of a label sequence summed over every alignment with the input -------------------------

def _lengths(values, what, count):
    """``input_lengths`` / ``target_lengths`` as a list of ints (a tensor, a list, a tuple or one int)."""
    if isinstance(values, Tensor):
        values = to_host(values._data).reshape(-1).tolist()
    elif isinstance(values, numbers.Integral):
        values = [values]
    values = [int(v) for v in values]
    if len(values) != count:
        raise RuntimeError(f"ctc_loss: {what} must have one length per sample ({count}), got {len(values)}")
    return values


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """Connectionist temporal classification: -log of the probability of each target sequence, summed over
    every alignment of it with the input (the target's labels in order, each repeated, blanks between and
    around, a blank required between two equal labels). ``log_probs`` (T, N, C) (or (T, C)) are per-step log
    probabilities (``log_softmax``); ``targets`` padded (N, S) or concatenated 1-D. By the forward recursion
    alpha_t(s) = logsumexp(alpha_{t-1}(s), alpha_{t-1}(s-1), alpha_{t-1}(s-2) if allowed) + log_probs[t, l'_s]
    on the extended labels l' = (blank, l_1, blank, l_2, ..., blank), in Tensor ops, so the gradient is the
    recursion's own. 'mean' divides each loss by its target length, then averages; ``zero_infinity`` makes the
    loss (and gradient) of an impossible alignment 0."""
    if not isinstance(log_probs, Tensor) or log_probs.ndim not in (2, 3):
        raise RuntimeError(f"ctc_loss: log_probs must be a (T, N, C) or (T, C) Tensor, got "
                           f"{tuple(log_probs.shape) if isinstance(log_probs, Tensor) else type(log_probs).__name__}")
    check_float(log_probs, "log_probs", "ctc_loss")
    if reduction not in REDUCTIONS:
        raise ValueError(f"ctc_loss: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    if log_probs.ndim == 2:   # (one sample: a batch of one, squeezed after)
        flat = targets.reshape(1, -1) if isinstance(targets, Tensor) else targets
        loss = ctc_loss(log_probs.unsqueeze(1), flat, input_lengths, target_lengths, blank, "none",
                        zero_infinity).squeeze(0)
        return loss / max(_lengths(target_lengths, "target_lengths", 1)[0], 1) if reduction == "mean" else loss
    steps, n, classes = log_probs.shape
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    inputs, lengths = _lengths(input_lengths, "input_lengths", n), _lengths(target_lengths, "target_lengths", n)
    labels = to_host(targets._data if isinstance(targets, Tensor) else numpy.asarray(targets)).astype(numpy.int64)
    for t in inputs:
        if not 0 <= t <= steps:
            raise RuntimeError(f"Expected input_lengths to have value at most {steps}, but got value {t} (while "
                               f"checking arguments for ctc_loss)")
    if labels.ndim == 1:   # (concatenated: cut it into the samples' sequences)
        if labels.shape[0] < sum(lengths):
            raise RuntimeError(f"ctc_loss: the concatenated targets hold {labels.shape[0]} labels, the "
                               f"target_lengths add up to {sum(lengths)}")
        starts = numpy.cumsum([0] + lengths[:-1])
        rows = [labels[s:s + k] for s, k in zip(starts, lengths)]
    else:
        if max(lengths, default=0) > labels.shape[1]:
            raise RuntimeError(f"Expected tensor to have size at least {max(lengths)} at dimension 1, but got size "
                               f"{labels.shape[1]} for argument #2 'targets' (while checking arguments for ctc_loss)")
        rows = [labels[i, :k] for i, k in enumerate(lengths)]
    width = 2 * max(lengths, default=0) + 1
    extended = numpy.full((n, width), blank, dtype=numpy.int64)     # l' = blank, l_1, blank, l_2, ..., blank
    skip = numpy.zeros((n, width), dtype=bool)                      # may s come from s - 2?
    impossible = numpy.zeros(n, dtype=bool)
    for i, row in enumerate(rows):
        extended[i, 1:2 * len(row):2] = row
        skip[i, 3:2 * len(row):2] = row[1:] != row[:-1]
        impossible[i] = inputs[i] < len(row) + int((row[1:] == row[:-1]).sum())
    device, dtype = log_probs.device, log_probs.dtype
    never = float(numpy.finfo(dtype).min) / 4   # (log 0, finite: exp(never - m) is 0 and no gradient is NaN)
    floor = never / (4 * steps)   # (a log-probability of -inf counts as this: T of them still stay finite)

    def emitted(t):
        return E.clamp(S.gather(log_probs[t], 1, index), min=floor)

    def constant(array, kind=None):
        return Tensor._make(asarray(array if kind is None else array.astype(kind), device), False, None, device)
    index, may_skip = constant(extended), constant(skip)
    start = numpy.full((n, width), never)
    start[:, :2] = 0.0
    alpha = E.add(constant(start, dtype), emitted(0))
    column = constant(numpy.full((n, 1), never), dtype)
    running = numpy.array(inputs)
    for t in range(1, steps):
        before = S.cat([column, alpha[:, :-1]], 1)
        two_before = E.where(may_skip, S.cat([column, column, alpha[:, :-2]], 1), never)
        new = E.add(R.logsumexp(S.stack([alpha, before, two_before]), 0), emitted(t))
        alpha = E.where(constant((t < running)[:, None]), new, alpha)   # (a sample past its length keeps its own)
    ends = numpy.stack([2 * numpy.array(lengths), numpy.maximum(2 * numpy.array(lengths) - 1, 0)], 1)
    last = S.gather(alpha, 1, constant(ends))
    last = E.where(constant(numpy.array(lengths)[:, None] == 0) & constant(numpy.array([[False, True]])), never,
                   last)   # (an empty target ends in its one blank only)
    loss = -R.logsumexp(last, 1)
    impossible |= to_host(loss.detach()._data) > -floor / 2   # (every alignment meets a probability of 0)
    if impossible.any():
        loss = E.where(constant(impossible), 0.0 if zero_infinity else float("inf"), loss)
    if inputs and min(inputs) == 0:   # (no steps at all: the empty target has probability 1, others 0)
        zero = constant(numpy.array(inputs) == 0)
        loss = E.where(zero & constant(numpy.array(lengths) == 0), 0.0, loss)
    if reduction == "mean":
        return (loss / constant(numpy.maximum(numpy.array(lengths), 1), dtype)).mean()
    return loss.sum() if reduction == "sum" else loss
