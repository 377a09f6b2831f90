"""Convolution and pooling over images, built from ops the engine already has (``F.conv2d``, ``F.max_pool2d``,
``F.avg_pool2d``, ``F.pad``), so their gradients, and the gradients of those, come from the engine.

The one idea: gather every window of the (padded) input with advanced indexing (``im2col``): an input of shape
(N, C, H, W) becomes ``patches`` of shape (N, C, out_h, out_w, kh, kw), where
``patches[n, c, i, j, u, v] = x[n, c, i*stride + u*dilation, j*stride + v*dilation]``. A convolution is then one
matrix product of the patches with the weights, a max pool a ``max`` over each window, an average pool a
``mean``. The gradient of the indexing adds each window's gradient back where it came from (overlapping windows
add up), which is the convolution's backward. Clear rather than fast: each window is a copy.
"""
from __future__ import annotations

import math
import numbers

import numpy

from .. import backend, creation
from ..ops import elementwise as E
from ..ops import reduce as R
from ..ops.rearrange import movedim
from ..ops import selection
from ..ops import shape as S
from ..tensor import Tensor

__all__ = ["pad", "unfold", "fold", "conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
           "max_pool1d", "max_pool2d",
           "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "conv3d", "max_pool3d", "avg_pool3d", "adaptive_avg_pool3d",
           "adaptive_max_pool3d", "max_unpool3d"]


def pad(input, pad, mode="constant", value=None):
    """``input`` with more elements around its last dims: ``pad = (left, right)`` for the last dim,
    ``(left, right, top, bottom)`` for the last two, and so on; a negative amount cuts instead. What is added:
    ``value`` (0 by default) for ``mode="constant"``; for the others, output position i (counted from the
    input's first element, so the padding before is at i < 0) reads the input at
    ``reflect``: the mirror image without the edge, -i or 2(n-1) - i; ``replicate``: the nearest edge,
    clip(i, 0, n-1); ``circular``: i mod n, the input repeated."""
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}: use 'constant', 'reflect', 'replicate' or "
                                  f"'circular'")
    pad = tuple(pad)
    if not all(isinstance(n, numbers.Integral) for n in pad):
        raise TypeError(f"pad: the amounts must be ints, got {pad}")
    if len(pad) % 2:
        raise RuntimeError(f"Padding length must be divisible by 2 (a (before, after) pair per dim), got {pad}")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input.ndim}")
    if mode != "constant":
        return _pad_by_index(input, pad, mode, value)
    if input.dtype.kind in "iu" and isinstance(value, (int, float)) and not isinstance(value, bool) \
            and math.isfinite(value) and not numpy.iinfo(input.dtype).min <= int(value) <= numpy.iinfo(input.dtype).max:
        raise RuntimeError(f"pad: value {value} cannot be converted to type {input.dtype.name} without overflow "
                           f"(as PyTorch's fill_: no wrapping around)")
    for k in range(len(pad) // 2):
        size = input.shape[input.ndim - 1 - k]
        if size + min(pad[2 * k], 0) + min(pad[2 * k + 1], 0) < 0:
            raise RuntimeError(f"pad: cutting {-min(pad[2 * k], 0)} and {-min(pad[2 * k + 1], 0)} from dim "
                               f"{input.ndim - 1 - k} of size {size} leaves less than nothing")
    out = input
    for k in range(len(pad) // 2):
        dim = input.ndim - 1 - k
        before, after = pad[2 * k], pad[2 * k + 1]
        size = out.shape[dim]
        if before < 0 or after < 0:   # cut first
            out = S.getitem(out, (slice(None),) * dim + (slice(max(-before, 0), size - max(-after, 0)),))
        parts = []
        for amount in (max(before, 0), max(after, 0)):
            shape = tuple(out.shape[:dim]) + (amount,) + tuple(out.shape[dim + 1:])
            parts.append(creation.full(shape, 0.0 if value is None else value, dtype=out.dtype, device=out.device)
                         if amount else None)
        out = S.cat([p for p in (parts[0], out, parts[1]) if p is not None], dim)
    return out


def _pad_by_index(input, pad, mode, value):
    """``reflect``, ``replicate`` and ``circular`` padding: one index array per padded dim, made from the sizes
    alone, says which input element each output element copies; the indexing's gradient adds them back."""
    dims = len(pad) // 2
    if input.ndim not in (dims + 1, dims + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor: mode "
                                  f"{mode!r} pads the last {dims} dim(s) of a {dims + 1}D or {dims + 2}D (batched) "
                                  f"input; for more dims use mode='constant'")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument: it copies the input\'s own '
                           f"elements; use mode='constant' to pad with {value}")
    first = 1 if input.ndim == dims + 2 else 0   # (the batch dim may be empty; the others may not)
    if mode != "circular" and 0 in tuple(input.shape[first:]):
        raise RuntimeError(f"Expected {dims + 1}D or {dims + 2}D (batch mode) tensor with possibly 0 batch size and "
                           f"other non-zero dimensions for input, but got: {list(input.shape)}")
    plan = []
    for k in range(dims):
        dim, (before, after) = input.ndim - 1 - k, pad[2 * k:2 * k + 2]
        n = input.shape[dim]
        if mode == "reflect" and max(before, after) >= n:
            raise RuntimeError(f"Padding size should be less than the corresponding input dimension, but got: "
                               f"padding ({before}, {after}) at dimension {dim} of input {list(input.shape)} "
                               f"(reflect mirrors the input without its edge, so it has {n - 1} to give)")
        if mode == "circular":   # cut first, then wrap what is left
            start, n = max(-before, 0), n - max(-before, 0) - max(-after, 0)
            if n < 0:
                raise RuntimeError(f"Negative padding value is resulting in an empty dimension: padding ({before}, "
                                   f"{after}) at dimension {dim} of input {list(input.shape)} cuts more than it has")
            if max(before, after) > max(n, 0):
                raise RuntimeError(f"Padding value causes wrapping around more than once: padding ({before}, "
                                   f"{after}) at dimension {dim} of input {list(input.shape)}; pad at most the "
                                   f"size of the dim")
            i = numpy.arange(-max(before, 0), n + max(after, 0))
            index = start + i % max(n, 1)
        else:
            if n + before + after < 1:
                raise RuntimeError(f"input (size {n} at dimension {dim}) is too small. Calculated output size: "
                                   f"{n + before + after}; cut less")
            i = numpy.arange(-before, n + after)
            index = numpy.abs(i) if mode == "reflect" else numpy.clip(i, 0, n - 1)
            if mode == "reflect":
                index = numpy.where(index > n - 1, 2 * (n - 1) - index, index)
        plan.append((dim, index))
    out = input
    for dim, index in plan:   # (every check above ran before anything was computed)
        out = S.getitem(out, (slice(None),) * dim + (index,))
    return out


def _check_images(name, input, weight, layout):
    """PyTorch's errors for a 2-d convolution's operands: Tensors, images (C, H, W) or (N, C, H, W), and a 4-d
    weight laid out as ``layout``."""
    if not isinstance(input, Tensor) or not isinstance(weight, Tensor):
        raise TypeError(f"{name}: input and weight must be Tensors, got {type(input).__name__} and "
                        f"{type(weight).__name__}")
    if input.ndim not in (3, 4):
        raise RuntimeError(f"Expected 3D (unbatched) or 4D (batched) input to {name}, but got input of size: "
                           f"{list(input.shape)}: images are (N, C, H, W)")
    if weight.ndim != 4:
        raise RuntimeError(f"{name}: weight must be {layout}, got shape {tuple(weight.shape)}")


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """out[n, o, i, j] = bias[o] + sum_{c,u,v} weight[o, c, u, v] * x[n, c', i*stride + u*dilation, j*stride +
    v*dilation], x zero-padded, c' running over the input channels of o's group (a cross-correlation, as in
    every deep-learning library)."""
    _check_images("conv2d", input, weight, "(out_channels, in_channels/groups, kh, kw)")
    if input.ndim == 3:   # one image, no batch dim
        return S.squeeze(conv2d(S.unsqueeze(input, 0), weight, bias, stride, padding, dilation, groups), 0)
    n, c, h, w = input.shape
    o, c_per_group, kh, kw = weight.shape
    _check_conv_operands("conv2d", input, weight, bias, groups)
    stride, dilation = _pair(stride, "stride", 1), _pair(dilation, "dilation", 1)
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise RuntimeError(f"Invalid padding string: {padding!r}: 'same', 'valid' or numbers")
        if padding == "same" and stride != (1, 1):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        # 'same': d*(k-1) in all, the odd one at the end (right, bottom), as in PyTorch
        total = [d * (k - 1) for d, k in zip(dilation, (kh, kw))] if padding == "same" else [0, 0]
        sides = (total[1] // 2, total[1] - total[1] // 2, total[0] // 2, total[0] - total[0] // 2)
    else:
        ph, pw = _pair(padding, "padding", 0)
        sides = (pw, pw, ph, ph)
    x = pad(input, sides) if any(sides) else input
    patches = _windows(x, (kh, kw), stride, dilation, "conv2d")          # (N, C, oh, ow, kh, kw)
    oh, ow = patches.shape[2], patches.shape[3]
    g = groups
    patches = S.reshape(patches, (n, g, c_per_group, oh, ow, kh, kw))
    patches = S.reshape(S.permute(patches, (0, 1, 3, 4, 2, 5, 6)), (n, g, oh * ow, c_per_group * kh * kw))
    kernels = S.reshape(weight, (g, o // g, c_per_group * kh * kw))
    out = patches @ S.transpose(kernels, -1, -2)                          # (N, G, oh*ow, O/G)
    out = S.reshape(S.permute(out, (0, 1, 3, 2)), (n, o, oh, ow))
    return out if bias is None else out + S.reshape(bias, (1, o, 1, 1))


def _block_sizes(kernel_size, dilation, padding, stride):
    return (_pair(kernel_size, "kernel_size", 1), _pair(dilation, "dilation", 1), _pair(padding, "padding", 0),
            _pair(stride, "stride", 1))


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """im2col, exposed: every sliding block of the (zero-padded) image as a column. (N, C, H, W) becomes
    (N, C*kh*kw, L), L the number of blocks; row ``c*kh*kw + u*kw + v`` of column ``i*out_w + j`` is
    ``x[n, c, i*stride + u*dilation, j*stride + v*dilation]``. A convolution is then ``weight.view(O, -1) @
    unfold(x)``. (C, H, W) gives (C*kh*kw, L)."""
    if input.ndim not in (3, 4):
        raise RuntimeError(f"Input Error: Only 3D or 4D input Tensors are supported (got {input.ndim}D, shape "
                           f"{tuple(input.shape)})")
    if input.ndim == 3:
        return S.squeeze(unfold(S.unsqueeze(input, 0), kernel_size, dilation, padding, stride), 0)
    kernel, dilation, padding, stride = _block_sizes(kernel_size, dilation, padding, stride)
    (ph, pw), (n, c, h, w) = padding, input.shape
    blocks = [(size + 2 * p - d * (k - 1) - 1) // st + 1
              for size, p, d, k, st in zip((h, w), padding, dilation, kernel, stride)]
    if min(blocks) < 1:
        raise RuntimeError(f"Given input with spatial size ({h}, {w}), kernel_size={kernel}, dilation={dilation}, "
                           f"padding={padding}, calculated shape of the array of sliding blocks as "
                           f"({blocks[0]}, {blocks[1]}), but its components must be at least one")
    x = pad(input, (pw, pw, ph, ph)) if ph or pw else input
    patches = _windows(x, kernel, stride, dilation, "unfold")                   # (N, C, oh, ow, kh, kw)
    patches = S.permute(patches, (0, 1, 4, 5, 2, 3))                             # (N, C, kh, kw, oh, ow)
    return S.reshape(patches, (n, c * kernel[0] * kernel[1], blocks[0] * blocks[1]))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im, the adjoint of :func:`unfold`: each column of (N, C*kh*kw, L) is put back as a block of an
    (N, C, H, W) image, and where blocks overlap their values add up (``fold(unfold(x))`` counts each pixel
    as often as blocks cover it). (C*kh*kw, L) gives (C, H, W)."""
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported (got "
                           f"{input.ndim}D, shape {tuple(input.shape)})")
    if input.ndim == 2:
        return S.squeeze(fold(S.unsqueeze(input, 0), output_size, kernel_size, dilation, padding, stride), 0)
    (h, w) = _pair(output_size, "output_size", 1)
    kernel, dilation, padding, stride = _block_sizes(kernel_size, dilation, padding, stride)
    n, rows, length = input.shape
    if rows % (kernel[0] * kernel[1]):
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={rows} and kernel_size={kernel}.")
    (ph, pw) = padding
    hp, wp = h + 2 * ph, w + 2 * pw
    blocks = [(size - d * (k - 1) - 1) // st + 1 for size, d, k, st in zip((hp, wp), dilation, kernel, stride)]
    if min(blocks) < 1 or blocks[0] * blocks[1] != length:
        raise RuntimeError(f"Given output_size=({h}, {w}), kernel_size={kernel}, dilation={dilation}, "
                           f"padding={padding}, stride={stride}, expected size of input's dimension 2 to match the "
                           f"calculated number of sliding blocks {blocks[0]} * {blocks[1]} = "
                           f"{blocks[0] * blocks[1]}, but got input.size(2)={length}.")
    c = rows // (kernel[0] * kernel[1])
    r, q = _window_positions((hp, wp), kernel, stride, dilation)                 # (oh, ow, kh, kw) each
    flat = numpy.broadcast_to(r * wp + q, (blocks[0], blocks[1], kernel[0], kernel[1]))
    where = flat.transpose(2, 3, 0, 1).reshape(1, 1, -1)                         # the order of unfold's rows
    index = backend.asarray(numpy.ascontiguousarray(numpy.broadcast_to(where, (n, c, where.shape[-1]))),
                            input.device)
    values = S.reshape(input, (n, c, kernel[0] * kernel[1] * input.shape[-1]))   # (no -1: N may be 0)
    image = selection.scatter_add(creation.zeros(n, c, hp * wp, dtype=input.dtype, device=input.device), 2,
                                  Tensor._make(index, False, None, input.device), values)
    image = S.reshape(image, (n, c, hp, wp))
    return image[:, :, ph:ph + h, pw:pw + w] if ph or pw else image


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The adjoint of :func:`conv2d` (its gradient with respect to its input, as a layer): each input element
    adds ``x * weight[c, o]`` into the output at ``stride`` steps, so the output grows to
    ``(H - 1)*stride - 2*padding + dilation*(k - 1) + output_padding + 1``. ``weight`` is
    (in_channels, out_channels/groups, kh, kw). Built as PyTorch's documentation describes it: zeros
    between the input's elements, then a ``conv2d`` with the flipped kernel, cut by ``padding``."""
    _check_images("conv_transpose2d", input, weight, "(in_channels, out_channels/groups, kh, kw)")
    if input.ndim == 3:   # one image, no batch dim
        return S.squeeze(conv_transpose2d(S.unsqueeze(input, 0), weight, bias, stride, padding, output_padding,
                                          groups, dilation), 0)
    stride, dilation = _pair(stride, "stride", 1), _pair(dilation, "dilation", 1)
    padding, output_padding = _pair(padding, "padding", 0), _pair(output_padding, "output_padding", 0)
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation)


def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, one_d=False):
    """(``one_d``: called by :func:`conv_transpose1d` with a height of 1 added: the messages show its shapes.)"""
    n, c, h, w = input.shape
    name = "conv_transpose1d" if one_d else "conv_transpose2d"

    def shown(shape):   # a shape as the caller gave it
        return [d for i, d in enumerate(shape) if not (one_d and i == len(shape) - 2)]
    if not isinstance(groups, numbers.Integral) or groups < 1:
        raise RuntimeError(f"non-positive groups is not supported, got groups={groups!r}")
    if weight.shape[0] < groups:
        raise RuntimeError(f"{name}: expected weight to be at least {groups} at dimension 0, but got weight of size "
                           f"{shown(weight.shape)} instead")
    if weight.shape[0] % groups:
        raise RuntimeError(f"{name}: given groups={groups}, expected weight to be divisible by {groups} at dimension "
                           f"0, but got weight of size {shown(weight.shape)} instead")
    if weight.shape[0] != c:
        raise RuntimeError(f"{name}: given transposed=1, weight of size {shown(weight.shape)}, expected input"
                           f"{shown(input.shape)} to have {weight.shape[0]} channels, but got {c} channels instead")
    if h == 0 or w == 0:
        raise RuntimeError(f"{name}: only zero batch or zero channel inputs are supported, but got input shape: "
                           f"{shown(input.shape)}")
    for op, s, d in zip(output_padding, stride, dilation):
        if op >= max(s, d):
            raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got "
                               f"output_padding={output_padding}, stride={stride}, dilation={dilation}")
    g, (o_per_group, kh, kw) = groups, weight.shape[1:]
    sizes = [(n_in - 1) * s - 2 * p + d * (k - 1) + op + 1 for n_in, s, p, d, k, op in
             zip((h, w), stride, padding, dilation, (kh, kw), output_padding)]
    if min(sizes) < 1:
        given, made = (f"{w}", f"{sizes[1]}") if one_d else (f"{h} x {w}", f"{sizes[0]} x {sizes[1]}")
        raise RuntimeError(f"{name}: given input size per channel: ({given}). Calculated output size per channel: "
                           f"({made}). Output size is too small (the padding cuts away more than the transposed "
                           f"convolution makes)")
    o = o_per_group * g
    _check_bias_and_dtypes(name, input, weight, bias, o, f"{name}: given transposed=1, weight of size "
                                                        f"{shown(weight.shape)}")
    (sh, sw), (dh, dw) = stride, dilation
    # stride - 1 zeros after each input element (rows and columns), the last ones dropped
    x = S.reshape(pad(S.reshape(input, (n, c, h, 1, w, 1)), (0, sw - 1, 0, 0, 0, sh - 1)), (n, c, h * sh, w * sw))
    x = S.getitem(x, (Ellipsis, slice(0, (h - 1) * sh + 1), slice(0, (w - 1) * sw + 1)))
    # every place a kernel element reaches: dilation*(k - 1) zeros around, output_padding more at the end
    eh, ew = dh * (kh - 1), dw * (kw - 1)
    x = pad(x, (ew, ew + output_padding[1], eh, eh + output_padding[0]))
    # the kernel as conv2d's: (in, out/g) -> (out, in/g) within each group, flipped in both spatial dims
    k = S.reshape(weight, (g, c // g, o_per_group, kh, kw))
    k = S.reshape(S.permute(k, (0, 2, 1, 3, 4)), (o, c // g, kh, kw))
    k = S.flip(k, (-2, -1))
    full = conv2d(x, k, bias, 1, 0, dilation, groups)
    ph, pw = padding
    if ph or pw:
        full = S.getitem(full, (Ellipsis, slice(ph, full.shape[-2] - ph), slice(pw, full.shape[-1] - pw)))
    return full


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The adjoint of :func:`conv1d`: :func:`conv_transpose2d` over a height of 1; ``weight`` is
    (in_channels, out_channels/groups, k)."""
    x = _as_2d(input, "conv_transpose1d")
    if not isinstance(weight, Tensor) or weight.ndim != 3:
        raise RuntimeError(f"conv_transpose1d: weight must be (in_channels, out_channels/groups, k), got "
                           f"{tuple(weight.shape) if isinstance(weight, Tensor) else type(weight).__name__}")
    args = ((1, _single(stride, "stride", 1)), (0, _single(padding, "padding", 0)),
            (0, _single(output_padding, "output_padding", 0)), groups, (1, _single(dilation, "dilation", 1)))
    if x.ndim == 3:   # one signal, no batch dim
        return S.squeeze(S.squeeze(_conv_transpose(S.unsqueeze(x, 0), S.unsqueeze(weight, -2), bias, *args,
                                                   one_d=True), 0), -2)
    return S.squeeze(_conv_transpose(x, S.unsqueeze(weight, -2), bias, *args, one_d=True), -2)


def _check_conv_operands(name, input, weight, bias, groups):
    """groups, the weight's out- and in-channels against them and the input's channels, the bias's size and the
    dtypes, as PyTorch checks them (the input's channel dim is the one before the kernel's dims)."""
    if not isinstance(groups, numbers.Integral) or groups < 1:
        raise RuntimeError(f"non-positive groups is not supported, got groups={groups!r}")
    o, c_per_group = weight.shape[:2]
    c = input.shape[-(weight.ndim - 1)]
    if o % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
                           f"but got weight of size {list(weight.shape)} instead")
    if c != c_per_group * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected input"
                           f"{list(input.shape)} to have {c_per_group * groups} channels, but got {c} channels "
                           f"instead")
    _check_bias_and_dtypes(name, input, weight, bias, o, f"Given weight of size {list(weight.shape)}")


def _check_bias_and_dtypes(name, input, weight, bias, out_channels, given):
    """A bias of ``out_channels`` elements, and weight and bias in the input's dtype (``given`` starts the bias's
    message: the weight as the caller gave it)."""
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != out_channels):
        raise RuntimeError(f"{given}, expected bias to be 1-dimensional with {out_channels} elements, but got bias "
                           f"of size {list(bias.shape)} instead")
    for what, t in (("weight", weight), ("bias", bias)):
        if t is not None and t.dtype != input.dtype:
            fix = (f"x.to({t.dtype.name}) or model.to({input.dtype.name})" if input.dtype.kind == "f" else
                   f"x.to({t.dtype.name}): layers compute in floating point")
            raise RuntimeError(f"{name}: {what} is {t.dtype.name} but the input is {input.dtype.name}; convert one "
                               f"({fix})")


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The largest value of each window, whose gradient goes to the element it came from. The element is
    PyTorch's: the first largest of the window's real (not padding) elements, or the last NaN if there is one,
    or the first real element when all are -inf. ``return_indices=True``: also where each came from, as
    ``row * width + column`` of the input's last two dims (int64, PyTorch's ``MaxUnpool`` indices)."""
    k, s, p, d, extra = _pool_sizes(input, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d")
    fill = -numpy.inf if input.dtype.kind == "f" else numpy.iinfo(input.dtype).min
    h, w = input.shape[-2:]
    x = pad(input, (p[1], p[1] + extra[1], p[0], p[0] + extra[0]), value=fill) if any(p + extra) else input
    patches = _windows(x, k, s, d, "max_pool2d")
    flat = S.reshape(patches, tuple(patches.shape[:-2]) + (k[0] * k[1],))
    # which element of each window: found on the host, then read with gather (so it differentiates, twice too)
    rows, cols = _window_positions(x.shape[-2:], k, s, d)
    rows, cols = numpy.broadcast_arrays(rows - p[0], cols - p[1])          # (oh, ow, kh, kw), in the input
    real = ((rows >= 0) & (rows < h) & (cols >= 0) & (cols < w)).reshape(rows.shape[:2] + (-1,))
    values = backend.to_host(flat._data).astype(numpy.float64)
    nan = numpy.isnan(values) & real
    last_nan = nan.shape[-1] - 1 - numpy.argmax(nan[..., ::-1], -1)
    candidates = numpy.where(real & ~nan, values, -numpy.inf)
    first_max = numpy.argmax(candidates, -1)
    first_real = numpy.broadcast_to(numpy.argmax(real, -1), first_max.shape)
    index = numpy.where(nan.any(-1), last_nan, numpy.where(candidates.max(-1) == -numpy.inf, first_real, first_max))
    out = S.squeeze(S.gather(flat, -1, Tensor._make(backend.asarray(index[..., None], input.device, numpy.int64),
                                                    False, None, input.device)), -1)
    if not return_indices:
        return out
    # the chosen element's place in the input: window position -> (row, column) -> row * width + column
    at = rows.reshape(rows.shape[:2] + (-1,)) * w + cols.reshape(cols.shape[:2] + (-1,))    # (oh, ow, kh*kw)
    where = numpy.take_along_axis(numpy.broadcast_to(at, index.shape + at.shape[-1:]), index[..., None], -1)[..., 0]
    return out, Tensor._make(backend.asarray(where, input.device, numpy.int64), False, None, input.device)


def _check_divisor(divisor_override, name):
    """``divisor_override``: None, or a nonzero int, as PyTorch checks it."""
    if divisor_override is None:
        return
    if isinstance(divisor_override, bool) or not isinstance(divisor_override, numbers.Integral):
        raise TypeError(f"{name}: divisor_override must be an int, got {divisor_override!r}")
    if divisor_override == 0:
        raise RuntimeError(f"{name}: divisor must be not zero (divisor_override=0)")


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """The mean of each window; zero padding counts in the mean unless ``count_include_pad=False`` (a window
    that ``ceil_mode`` lets run past the padding never counts that part); ``divisor_override``: divide every
    window's sum by that number instead."""
    k, s, p, _, extra = _pool_sizes(input, kernel_size, stride, padding, 1, ceil_mode, "avg_pool2d")
    _check_divisor(divisor_override, "avg_pool2d")
    if input.dtype.kind != "f":
        raise TypeError(f"avg_pool2d: input must be floating point, got {input.dtype.name}; convert it with "
                        f".float() (PyTorch truncates the means of integers)")
    if input.dtype == numpy.float16:   # summed in float32, rounded once, as PyTorch does
        return avg_pool2d(input.to(numpy.float32), kernel_size, stride, padding, ceil_mode,
                          count_include_pad, divisor_override).to(numpy.float16)
    around = (p[1], p[1] + extra[1], p[0], p[0] + extra[0])
    x = pad(input, around) if any(around) else input
    sums = R.sum(_windows(x, k, s, (1, 1), "avg_pool2d"), (-2, -1))
    if divisor_override is not None:
        return sums / int(divisor_override)
    if not any(extra) and (count_include_pad or not any(p)):
        return sums / (k[0] * k[1])
    # each window's divisor: how many of its elements are in the input (and, with count_include_pad, in the
    # padding around it, not in what ceil_mode's last window adds past that)
    counted = numpy.zeros(tuple(x.shape[-2:]))
    if count_include_pad:
        counted[:x.shape[-2] - extra[0], :x.shape[-1] - extra[1]] = 1
    else:
        counted[p[0]:p[0] + input.shape[-2], p[1]:p[1] + input.shape[-1]] = 1
    rows, cols = _window_positions(counted.shape, k, s, (1, 1))
    counts = counted[rows, cols].sum((-2, -1)).astype(input.dtype)
    return sums / Tensor._make(backend.asarray(counts, input.device), False, None, input.device)


def _windows(x, kernel, stride, dilation, name):
    """Every window of the last two dims: (..., H, W) -> (..., out_h, out_w, kh, kw), by advanced indexing."""
    h, w = x.shape[-2], x.shape[-1]
    for size, k, d in zip((h, w), kernel, dilation):
        if d * (k - 1) + 1 > size:
            raise RuntimeError(f"{name}: calculated padded input size per channel: ({h} x {w}). Kernel size: "
                               f"({kernel[0]} x {kernel[1]}) with dilation {tuple(dilation)}. Kernel size can't be "
                               f"greater than actual input size")
    rows, cols = _window_positions((h, w), kernel, stride, dilation)
    return S.getitem(x, (Ellipsis, rows, cols))


def _window_positions(size, kernel, stride, dilation):
    """Row and column of element (u, v) of window (i, j): arrays that broadcast to (out_h, out_w, kh, kw)."""
    (oh, ow) = ((n - d * (k - 1) - 1) // s + 1 for n, k, s, d in zip(size, kernel, stride, dilation))
    (kh, kw), (sh, sw), (dh, dw) = kernel, stride, dilation
    rows = (numpy.arange(oh) * sh)[:, None, None, None] + (numpy.arange(kh) * dh)[None, None, :, None]
    cols = (numpy.arange(ow) * sw)[None, :, None, None] + (numpy.arange(kw) * dw)[None, None, None, :]
    return rows, cols


def _pool_sizes(input, kernel_size, stride, padding, dilation, ceil_mode, name):
    """Kernel, stride, padding and dilation as pairs, and how many rows and columns ``ceil_mode`` adds past the
    padding so that a last, partial window fits (PyTorch's rule: the output size rounded up, less a last
    window that would start in the right or bottom padding)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}: input must be a Tensor, got {type(input).__name__}")
    if input.ndim not in (3, 4):
        raise RuntimeError(f"{name}: expected 3D or 4D input, (C, H, W) or (N, C, H, W), got shape "
                           f"{tuple(input.shape)}")
    if input.shape[-3] == 0:
        raise RuntimeError(f"{name}: Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got: {list(input.shape)} (no channels)")
    if input.dtype == numpy.bool_:
        raise NotImplementedError(f'"{name}" not implemented for \'Bool\': convert the input, e.g. x.float()')
    k = _pair(kernel_size, "kernel_size", 1)
    s = k if stride is None or stride in ([], ()) else _pair(stride, "stride", 1)
    p, d = _pair(padding, "padding", 0), _pair(dilation, "dilation", 1)
    for pi, ki, di in zip(p, k, d):
        if pi > ki // 2:   # (PyTorch: half the kernel's size, whatever the dilation)
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pi}, "
                               f"kernel_size={ki} and dilation={di}")
    extra = [0, 0]
    if ceil_mode:
        for i, (n, ki, si, pi, di) in enumerate(zip(input.shape[-2:], k, s, p, d)):
            out = (n + 2 * pi - di * (ki - 1) - 1 + si - 1) // si + 1   # (rounded down: a negative span too)
            if out >= 1 and (out - 1) * si >= n + pi:   # the last window would start in the padding: dropped
                out -= 1
            if out >= 1:   # (else no window fits: _windows says so)
                extra[i] = max(0, (out - 1) * si + di * (ki - 1) + 1 - (n + 2 * pi))
    return k, s, p, d, tuple(extra)


def _pair(value, what, least):
    """An int or a pair of ints, as a pair, each at least ``least``."""
    return _ntuple(value, what, least, 2)


def _ntuple(value, what, least, n):
    """An int or ``n`` ints, as a tuple of ``n``, each at least ``least`` (``(k,)`` means k along every dim)."""
    values = (value,) * n if isinstance(value, numbers.Integral) else tuple(value)
    if len(values) == 1:   # (k,) means (k, k), as in PyTorch
        values = values * n
    if not all(isinstance(v, numbers.Integral) for v in values):
        raise TypeError(f"{what} must be an int or {'a pair' if n == 2 else n} of ints, got {value!r}")
    if len(values) != n:
        raise RuntimeError(f"expected {what} to be a single integer value or a list of {n} values to match the "
                           f"{n}-d dimensions, but got {what}={list(values)}")
    if any(v < least for v in values):
        kind = "non-positive" if least == 1 else "negative"
        raise RuntimeError(f"{kind} {what} is not supported, got {value!r}")
    return tuple(int(v) for v in values)


# -- one dimension: the 2-d versions over a height of 1 ---------------------------------------------------------

def _single(value, what, least):
    return _ntuple(value, what, least, 1)[0]


def _as_2d(input, name, what="(N, C, L) or (C, L)"):
    """A signal (N, C, L) or (C, L) as an image of height 1: (N, C, 1, L) or (C, 1, L)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}: input must be a Tensor, got {type(input).__name__}")
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2D (unbatched) or 3D (batched) input to {name}, but got input of size: "
                           f"{list(input.shape)}: signals are {what}")
    return S.unsqueeze(input, -2)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """out[n, o, i] = bias[o] + sum_{c,u} weight[o, c, u] * x[n, c', i*stride + u*dilation], x zero-padded, c'
    running over the input channels of o's group: :func:`conv2d` over a height of 1."""
    x = _as_2d(input, "conv1d")
    if not isinstance(weight, Tensor) or weight.ndim != 3:
        raise RuntimeError(f"conv1d: weight must be (out_channels, in_channels/groups, k), got "
                           f"{tuple(weight.shape) if isinstance(weight, Tensor) else type(weight).__name__}")
    _check_conv_operands("conv1d", input, weight, bias, groups)   # (with 1-d shapes, before the 2-d call's)
    k = weight.shape[-1]
    stride, dilation = _single(stride, "stride", 1), _single(dilation, "dilation", 1)
    p = padding if isinstance(padding, str) else _single(padding, "padding", 0)
    padded = {"same": dilation * (k - 1), "valid": 0}.get(p, 0) if isinstance(p, str) else 2 * p
    _check_1d_window(input.shape[-1] + padded, k, dilation, "conv1d")
    out = conv2d(x, S.unsqueeze(weight, -2), bias, (1, stride), p if isinstance(p, str) else (0, p),
                 (1, dilation), groups)
    return S.squeeze(out, -2)


def _check_1d_window(length, kernel, dilation, name):
    if dilation * (kernel - 1) + 1 > length:
        raise RuntimeError(f"{name}: calculated padded input size per channel: ({length}). Kernel size: ({kernel}) "
                           f"with dilation {dilation}. Kernel size can't be greater than actual input size")


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The largest value of each window of the last dim (:func:`max_pool2d` over a height of 1): its gradient
    goes to the element it came from, PyTorch's choice among ties and NaNs."""
    x = _as_2d(input, "max_pool1d")
    k = _single(kernel_size, "kernel_size", 1)
    s = k if stride is None or stride in ([], ()) else _single(stride, "stride", 1)
    p, d = _single(padding, "padding", 0), _single(dilation, "dilation", 1)
    if p > k // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got padding={p} and "
                           f"kernel_size={k}")
    if not ceil_mode:   # (with ceil_mode, a window may run past the input: the 2-d call judges it)
        _check_1d_window(input.shape[-1] + 2 * p, k, d, "max_pool1d")
    out = max_pool2d(x, (1, k), (1, s), (0, p), (1, d), ceil_mode, return_indices)
    if return_indices:   # (in a height of 1, row * width + column is the column: the index along L)
        return S.squeeze(out[0], -2), S.squeeze(out[1], -2)
    return S.squeeze(out, -2)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """The mean of each window of the last dim (:func:`avg_pool2d` over a height of 1)."""
    x = _as_2d(input, "avg_pool1d")
    k = _single(kernel_size, "kernel_size", 1)
    s = k if stride is None or stride in ([], ()) else _single(stride, "stride", 1)
    p = _single(padding, "padding", 0)
    if p > k // 2:
        raise RuntimeError(f"avg_pool1d: pad should be at most half of effective kernel size, but got pad={p} and "
                           f"kernel_size={k}")
    if not ceil_mode:
        _check_1d_window(input.shape[-1] + 2 * p, k, 1, "avg_pool1d")
    out = avg_pool2d(x, (1, k), (1, s), (0, p), ceil_mode, count_include_pad)
    return S.squeeze(out, -2)


# -- three dimensions: the 2-d versions per depth ------------------------------------------------------------

def _as_volumes(input, name):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}: input must be a Tensor, got {type(input).__name__}")
    if input.ndim not in (4, 5):
        raise RuntimeError(f"Expected 4D (unbatched) or 5D (batched) input to {name}, but got input of size: "
                           f"{list(input.shape)}: volumes are (N, C, D, H, W)")


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """out[n, o, d, i, j] = bias[o] + sum_{c,t,u,v} weight[o, c, t, u, v] * x[n, c', d*stride + t*dilation,
    ...]: for each depth offset t of the kernel, :func:`conv2d` of the depth slices it meets with
    ``weight[:, :, t]``, summed over t."""
    _as_volumes(input, "conv3d")
    if not isinstance(weight, Tensor) or weight.ndim != 5:
        raise RuntimeError(f"conv3d: weight must be (out_channels, in_channels/groups, kd, kh, kw), got "
                           f"{tuple(weight.shape) if isinstance(weight, Tensor) else type(weight).__name__}")
    if input.ndim == 4:
        return S.squeeze(conv3d(S.unsqueeze(input, 0), weight, bias, stride, padding, dilation, groups), 0)
    _check_conv_operands("conv3d", input, weight, bias, groups)
    stride, dilation = _ntuple(stride, "stride", 1, 3), _ntuple(dilation, "dilation", 1, 3)
    kernel = tuple(weight.shape[2:])
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise RuntimeError(f"Invalid padding string: {padding!r}: 'same', 'valid' or numbers")
        if padding == "same" and stride != (1, 1, 1):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        totals = [d * (k - 1) if padding == "same" else 0 for d, k in zip(dilation, kernel)]
        sides = tuple(x for t in reversed(totals) for x in (t // 2, t - t // 2))   # (the odd one at the end)
    else:
        sides = tuple(x for p in reversed(_ntuple(padding, "padding", 0, 3)) for x in (p, p))
    x = pad(input, sides) if any(sides) else input
    n, c, depth = x.shape[:3]
    kd, (sd, dd) = kernel[0], (stride[0], dilation[0])
    _check_1d_window(depth, kd, dd, "conv3d")
    od = (depth - dd * (kd - 1) - 1) // sd + 1
    out = None
    for t in range(kd):   # the depth slices kernel plane t meets, as a batch of images
        planes = x[:, :, t * dd:t * dd + sd * (od - 1) + 1:sd]                       # (N, C, od, H, W)
        images = S.reshape(movedim(planes, 2, 1), (n * od, c) + tuple(x.shape[-2:]))
        part = conv2d(images, weight[:, :, t], None, stride[1:], 0, dilation[1:], groups)
        out = part if out is None else out + part
    out = movedim(S.reshape(out, (n, od) + tuple(out.shape[1:])), 1, 2)          # (N, O, od, oh, ow)
    return out if bias is None else out + S.reshape(bias, (1, -1, 1, 1, 1))


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """The adjoint of :func:`conv3d`, built as :func:`conv_transpose2d` is: stride - 1 zeros between the input's
    elements along depth, height and width, a :func:`conv3d` with the kernel flipped in all three, cut by
    ``padding``. ``weight`` is (in_channels, out_channels/groups, kd, kh, kw)."""
    _as_volumes(input, "conv_transpose3d")
    if not isinstance(weight, Tensor) or weight.ndim != 5:
        raise RuntimeError(f"conv_transpose3d: weight must be (in_channels, out_channels/groups, kd, kh, kw), got "
                           f"{tuple(weight.shape) if isinstance(weight, Tensor) else type(weight).__name__}")
    if input.ndim == 4:   # one volume, no batch dim
        return S.squeeze(conv_transpose3d(S.unsqueeze(input, 0), weight, bias, stride, padding, output_padding,
                                          groups, dilation), 0)
    stride, dilation = _ntuple(stride, "stride", 1, 3), _ntuple(dilation, "dilation", 1, 3)
    padding, output_padding = _ntuple(padding, "padding", 0, 3), _ntuple(output_padding, "output_padding", 0, 3)
    n, c, *space = input.shape
    name = "conv_transpose3d"
    if not isinstance(groups, numbers.Integral) or groups < 1:
        raise RuntimeError(f"non-positive groups is not supported, got groups={groups!r}")
    if weight.shape[0] % groups or weight.shape[0] != c:
        raise RuntimeError(f"{name}: given groups={groups}, transposed=1, weight of size {list(weight.shape)}, "
                           f"expected input{list(input.shape)} to have {weight.shape[0]} channels (a multiple of "
                           f"groups), but got {c} channels instead")
    for op, s, d in zip(output_padding, stride, dilation):
        if op >= max(s, d):
            raise RuntimeError(f"output padding must be smaller than either stride or dilation, but got "
                               f"output_padding={output_padding}, stride={stride}, dilation={dilation}")
    g, (o_per_group, *kernel) = groups, weight.shape[1:]
    sizes = [(size - 1) * s - 2 * p + d * (k - 1) + op + 1 for size, s, p, d, k, op in
             zip(space, stride, padding, dilation, kernel, output_padding)]
    if min(sizes) < 1:
        raise RuntimeError(f"{name}: given input size per channel: ({' x '.join(map(str, space))}). Calculated "
                           f"output size per channel: ({' x '.join(map(str, sizes))}). Output size is too small")
    o = o_per_group * g
    _check_bias_and_dtypes(name, input, weight, bias, o, f"{name}: given transposed=1, weight of size "
                                                        f"{list(weight.shape)}")
    (sd, sh, sw), (d_, h, w) = stride, space
    # stride - 1 zeros after each input element along each of the three dims, the last ones dropped
    x = S.reshape(input, (n, c, d_, 1, h, 1, w, 1))
    x = S.reshape(pad(x, (0, sw - 1, 0, 0, 0, sh - 1, 0, 0, 0, sd - 1)), (n, c, d_ * sd, h * sh, w * sw))
    x = S.getitem(x, (Ellipsis, slice(0, (d_ - 1) * sd + 1), slice(0, (h - 1) * sh + 1), slice(0, (w - 1) * sw + 1)))
    # every place a kernel element reaches: dilation*(k - 1) zeros around, output_padding more at the end
    edges = [di * (k - 1) for di, k in zip(dilation, kernel)]
    x = pad(x, tuple(v for e, op in zip(reversed(edges), reversed(output_padding)) for v in (e, e + op)))
    # the kernel as conv3d's: (in, out/g) -> (out, in/g) within each group, flipped in all three dims
    k = S.reshape(weight, (g, c // g, o_per_group, *kernel))
    k = S.flip(S.reshape(S.permute(k, (0, 2, 1, 3, 4, 5)), (o, c // g, *kernel)), (-3, -2, -1))
    full = conv3d(x, k, bias, 1, 0, dilation, groups)
    if any(padding):
        full = S.getitem(full, (Ellipsis,) + tuple(slice(p, full.shape[i - 3] - p) for i, p in enumerate(padding)))
    return full


def _depth_last(x):
    """(N, C, D, h, w) as (N, C*h*w, D): depth pooled by the 1-d functions."""
    n, c, d, h, w = x.shape
    return S.reshape(movedim(x, 2, -1), (n, c * h * w, d))


def _depth_back(y, shape):
    n, c, _, h, w = shape
    return movedim(S.reshape(y, (n, c, h, w, y.shape[-1])), -1, 2)


def _volume_indices(which, at, shape, plane):
    """Where each 3-d maximum came from, ``d * H * W + (its place in slice d's plane)``: ``which`` the depth
    pool's indices (the slice), ``at`` the plane pool's indices in every slice; ``shape`` the planes'."""
    which = _depth_back(which, shape)
    found = S.gather(S.reshape(at, tuple(shape)), 2, E.clamp(which, 0))
    return E.where(which < 0, -1, which * plane + found)   # (-1: a window of padding alone, as the 1-d pool's)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The largest value of each (kd, kh, kw) window: a window's maximum is the maximum over its depth of each
    plane's, so :func:`max_pool2d` per depth slice, then :func:`max_pool1d` along the depth (the same element,
    ties and NaNs as PyTorch's). ``return_indices``: also where each came from, ``(d * H + h) * W + w``."""
    _as_volumes(input, "max_pool3d")
    if input.ndim == 4:
        out = max_pool3d(S.unsqueeze(input, 0), kernel_size, stride, padding, dilation, ceil_mode, return_indices)
        return tuple(S.squeeze(t, 0) for t in out) if return_indices else S.squeeze(out, 0)
    k = _ntuple(kernel_size, "kernel_size", 1, 3)
    s = k if stride is None or stride in ([], ()) else _ntuple(stride, "stride", 1, 3)
    p, d = _ntuple(padding, "padding", 0, 3), _ntuple(dilation, "dilation", 1, 3)
    n, c, depth, h, w = input.shape
    planes, at = max_pool2d(S.reshape(input, (n, c * depth, h, w)), k[1:], s[1:], p[1:], d[1:], ceil_mode, True)
    planes = S.reshape(planes, (n, c, depth) + tuple(planes.shape[-2:]))
    out, which = max_pool1d(_depth_last(planes), k[0], s[0], p[0], d[0], ceil_mode, True)
    out = _depth_back(out, planes.shape)
    if not return_indices:
        return out
    return out, _volume_indices(which, at, planes.shape, h * w)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """The mean of each (kd, kh, kw) window: a window and what counts in its divisor are products over the
    dims, so :func:`avg_pool2d` per depth slice, then :func:`avg_pool1d` along the depth."""
    _as_volumes(input, "avg_pool3d")
    if input.ndim == 4:
        return S.squeeze(avg_pool3d(S.unsqueeze(input, 0), kernel_size, stride, padding, ceil_mode,
                                    count_include_pad, divisor_override), 0)
    k = _ntuple(kernel_size, "kernel_size", 1, 3)
    s = k if stride is None or stride in ([], ()) else _ntuple(stride, "stride", 1, 3)
    p = _ntuple(padding, "padding", 0, 3)
    n, c, depth, h, w = input.shape
    if divisor_override is not None:   # (each window's sum, by both stages summing, then the one divisor)
        _check_divisor(divisor_override, "avg_pool3d")
        planes = avg_pool2d(S.reshape(input, (n, c * depth, h, w)), k[1:], s[1:], p[1:], ceil_mode, True, 1)
        planes = S.reshape(planes, (n, c, depth) + tuple(planes.shape[-2:]))
        sums = avg_pool2d(S.unsqueeze(_depth_last(planes), -2), (1, k[0]), (1, s[0]), (0, p[0]), ceil_mode, True, 1)
        return _depth_back(S.squeeze(sums, -2), planes.shape) / int(divisor_override)
    planes = avg_pool2d(S.reshape(input, (n, c * depth, h, w)), k[1:], s[1:], p[1:], ceil_mode, count_include_pad)
    planes = S.reshape(planes, (n, c, depth) + tuple(planes.shape[-2:]))
    return _depth_back(avg_pool1d(_depth_last(planes), k[0], s[0], p[0], ceil_mode, count_include_pad),
                       planes.shape)


# -- adaptive average pooling: an output size, the windows chosen to fit -------------------------------------

def adaptive_avg_pool2d(input, output_size):
    """The mean of each window, the windows chosen so the output is ``output_size`` (an int, or a pair whose
    None keeps that dim): along a dim of n elements, output i averages elements floor(i*n/m) to
    ceil((i+1)*n/m) - 1, as in PyTorch. Computed as ``A_h @ x @ A_w^T`` with the averaging matrices A."""
    if not isinstance(input, Tensor):
        raise TypeError(f"adaptive_avg_pool2d: input must be a Tensor, got {type(input).__name__}")
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(input.shape)}")
    sizes = (output_size, output_size) if isinstance(output_size, numbers.Integral) else tuple(output_size)
    if len(sizes) != 2:
        raise RuntimeError(f"adaptive_avg_pool2d: output_size must be 2 (an int or a pair), got {output_size!r}")
    oh, ow = (n if m is None else m for m, n in zip(sizes, input.shape[-2:]))
    return _adaptive_mean(_adaptive_mean(input, oh, -2), ow, -1)


def _three_sizes(output_size, input, name):
    """An int or three (None keeps that dim) as the output's (depth, height, width)."""
    sizes = (output_size,) * 3 if isinstance(output_size, numbers.Integral) else tuple(output_size)
    if len(sizes) != 3:
        raise RuntimeError(f"{name}: output_size must be 3 (an int or three), got {output_size!r}")
    return tuple(n if m is None else int(m) for m, n in zip(sizes, input.shape[-3:]))


def adaptive_avg_pool3d(input, output_size):
    """:func:`adaptive_avg_pool2d` in three dims, (N, C, D, H, W) or (C, D, H, W): a mean over a product of
    windows is a mean along each dim in turn."""
    if not isinstance(input, Tensor):
        raise TypeError(f"adaptive_avg_pool3d: input must be a Tensor, got {type(input).__name__}")
    if input.ndim not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {list(input.shape)}")
    od, oh, ow = _three_sizes(output_size, input, "adaptive_avg_pool3d")
    by_depth = movedim(_adaptive_mean(movedim(input, -3, -1), od, -1), -1, -3)
    return _adaptive_mean(_adaptive_mean(by_depth, oh, -2), ow, -1)


def adaptive_avg_pool1d(input, output_size):
    """:func:`adaptive_avg_pool2d` along the last dim alone: signals (N, C, L) or (C, L)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"adaptive_avg_pool1d: input must be a Tensor, got {type(input).__name__}")
    if input.ndim not in (2, 3):
        raise RuntimeError(f"adaptive_avg_pool1d(): Expected 2D or 3D tensor, but got {list(input.shape)}")
    size = output_size if isinstance(output_size, numbers.Integral) else tuple(output_size)
    if not isinstance(size, numbers.Integral):
        if len(size) != 1:
            raise RuntimeError(f"adaptive_avg_pool1d: output_size must be 1 (an int), got {output_size!r}")
        size = size[0]
    return _adaptive_mean(input, size, -1)


def _adaptive_mean(x, m, dim):
    """``x`` with dim ``dim`` (-1 or -2) averaged down to ``m`` windows: one product with an (m, n) matrix."""
    if m < 0:
        raise RuntimeError(f"adaptive pooling: the output size must not be negative, got {m}")
    if x.dtype.kind != "f":
        raise RuntimeError(f"adaptive average pooling: \"{x.dtype.name}\" is not supported; convert with .float()")
    n = x.shape[dim]
    if x.dtype == numpy.float16:   # (summed in float32, rounded once, as PyTorch)
        return _adaptive_mean(x.to(numpy.float32), m, dim).to(numpy.float16)
    if n == 0 or m == 0 or bool(backend.xp_of(x._data).isfinite(x._data).all()):
        # one product with an (m, n) matrix of window weights (fast), where every value is finite
        weights = numpy.zeros((m, n))
        for i, (start, stop) in enumerate(zip(*_adaptive_bounds(n, m))):
            weights[i, start:stop] = 1.0 / (stop - start)
        a = Tensor._make(backend.asarray(weights, x.device, x.dtype), False, None, x.device)
        return a @ x if dim == -2 else x @ S.transpose(a, 0, 1)
    # else each window gathered and summed: in the product a NaN or an inf anywhere in the dim would spread to
    # every window (0 * inf is NaN), where PyTorch's windows only see their own elements
    positions = _adaptive_positions(n, m)                              # (m, k), short windows padded
    starts, stops = _adaptive_bounds(n, m)
    inside = starts[:, None] + numpy.arange(positions.shape[1]) < stops[:, None]   # (m, k): not padding
    index = (Ellipsis, positions) if dim == -1 else (Ellipsis, positions, slice(None))
    windows = S.getitem(x, index)                                      # (..., m, k) or (..., m, k, w)
    trailing = () if dim == -1 else (1,)   # (the window's axis is ``dim`` of the gathered windows too)
    keep = Tensor._make(backend.asarray(inside.reshape((m, -1) + trailing), x.device), False, None, x.device)
    lengths = Tensor._make(backend.asarray((stops - starts).reshape((m,) + trailing), x.device, x.dtype), False,
                           None, x.device)
    return R.sum(E.where(keep, windows, 0.0), dim) / lengths


# -- adaptive max pooling: the largest of each adaptive window ------------------------------------------------

def adaptive_max_pool2d(input, output_size, return_indices=False):
    """The largest value of each window, the windows chosen so the output is ``output_size`` (an int, or a pair
    whose None keeps that dim): along a dim of n elements, output i looks at elements floor(i*n/m) to
    ceil((i+1)*n/m) - 1. The gradient goes to the element chosen, PyTorch's: the first largest, or the last NaN.
    ``return_indices=True``: also where each came from, as ``row * width + column`` (int64)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"adaptive_max_pool2d: input must be a Tensor, got {type(input).__name__}")
    sizes = (output_size, output_size) if isinstance(output_size, numbers.Integral) else output_size
    if not isinstance(sizes, (tuple, list)):
        raise TypeError(f"adaptive_max_pool2d: output_size must be an int or a pair, got {output_size!r}")
    if sizes is output_size and input.ndim <= len(sizes):   # (PyTorch's order: this before the rank's check)
        raise ValueError(f"Input dimension should be at least {len(sizes) + 1}: adaptive_max_pool2d wants "
                         f"(C, H, W) or (N, C, H, W), got shape {tuple(input.shape)}")
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {list(input.shape)}: images "
                           f"are (C, H, W) or (N, C, H, W)")
    if len(sizes) != 2:
        raise RuntimeError(f"adaptive_max_pool2d(): output_size must be 2 (an int or a pair), got {output_size!r}")
    oh, ow = (n if m is None else int(m) for m, n in zip(sizes, input.shape[-2:]))
    return _adaptive_max(input, oh, ow, return_indices, "adaptive_max_pool2d")


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """:func:`adaptive_max_pool2d` in three dims: per depth slice, then along the depth (the same element as
    PyTorch's); ``return_indices``: ``(d * H + h) * W + w``."""
    if not isinstance(input, Tensor):
        raise TypeError(f"adaptive_max_pool3d: input must be a Tensor, got {type(input).__name__}")
    if input.ndim not in (4, 5):
        raise RuntimeError(f"adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: {list(input.shape)}")
    if input.ndim == 4:
        out = adaptive_max_pool3d(S.unsqueeze(input, 0), output_size, return_indices)
        return tuple(S.squeeze(t, 0) for t in out) if return_indices else S.squeeze(out, 0)
    od, oh, ow = _three_sizes(output_size, input, "adaptive_max_pool3d")
    n, c, depth, h, w = input.shape
    if 0 in (od, oh, ow):   # (no windows: an empty result, still of the graph, as PyTorch's)
        out = S.reshape(S.reshape(input, (-1,))[:0], (n, c, od, oh, ow))
        if not return_indices:
            return out
        return out, Tensor._make(backend.xp_of(input._data).zeros(tuple(out.shape), dtype=numpy.int64), False, None,
                                 input.device)
    planes, at = adaptive_max_pool2d(S.reshape(input, (n, c * depth, h, w)), (oh, ow), True)
    planes = S.reshape(planes, (n, c, depth, oh, ow))
    out, which = adaptive_max_pool1d(_depth_last(planes), od, True)
    out = _depth_back(out, planes.shape)
    if not return_indices:
        return out
    return out, _volume_indices(which, at, planes.shape, h * w)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """:func:`adaptive_max_pool2d` along the last dim alone: signals (N, C, L) or (C, L); indices along L."""
    if not isinstance(input, Tensor):
        raise TypeError(f"adaptive_max_pool1d: input must be a Tensor, got {type(input).__name__}")
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 "
                           f"'self' (while checking arguments for adaptive_max_pool1d): signals are (N, C, L) or "
                           f"(C, L)")
    size = output_size
    if not isinstance(size, numbers.Integral):
        if not isinstance(size, (tuple, list)):
            raise TypeError(f"adaptive_max_pool1d: output_size must be an int, got {output_size!r}")
        if len(size) != 1:
            raise RuntimeError(f"adaptive_max_pool1d() argument 'output_size' should contain one int (got "
                               f"{len(size)})")
        size = size[0]
    out = _adaptive_max(S.unsqueeze(input, -2), 1, int(size), return_indices, "adaptive_max_pool1d")
    if return_indices:   # (in a height of 1, row * width + column is the column: the index along L)
        return S.squeeze(out[0], -2), S.squeeze(out[1], -2)
    return S.squeeze(out, -2)


def _adaptive_max(input, oh, ow, return_indices, name):
    if oh < 0 or ow < 0:
        raise RuntimeError(f"{name}: the output size must not be negative, got {(oh, ow)}")
    empty = [d for d in range(input.ndim - 3, input.ndim) if input.shape[d] == 0]
    if empty:
        raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input has "
                           f"sizes {list(input.shape)} with dimension {empty[0]} being empty")
    if input.dtype.kind != "f":
        raise NotImplementedError(f'"{name}" not implemented for \'{input.dtype.name}\': convert the input, e.g. '
                                  f'x.float()')
    h, w = input.shape[-2:]
    rows, cols = _adaptive_positions(h, oh), _adaptive_positions(w, ow)   # (o, k): a short window repeats its last
    rows, cols = rows[:, None, :, None], cols[None, :, None, :]
    flat = S.getitem(input, (Ellipsis, rows, cols))                         # (..., oh, ow, kh, kw)
    flat = S.reshape(flat, tuple(flat.shape[:-2]) + (rows.shape[2] * cols.shape[3],))   # (..., oh, ow, k)
    # PyTorch's choice, found with ops: the first largest, or the last NaN where there is one (a repeated
    # element comes right after itself, so it changes neither)
    last = flat.shape[-1] - 1 - R.argmax(S.flip(flat, (-1,)), -1, keepdim=True)
    choice = E.where(R.any(flat != flat, -1, keepdim=True), last, R.argmax(flat, -1, keepdim=True))
    out = S.squeeze(S.gather(flat, -1, choice), -1)
    if not return_indices:
        return out
    k = rows.shape[2] * cols.shape[3]
    at = numpy.broadcast_to(rows * w + cols, (oh, ow) + rows.shape[2:3] + cols.shape[3:4]).reshape(oh, ow, k)
    at = Tensor._make(backend.asarray(numpy.ascontiguousarray(at), input.device, numpy.int64), False, None,
                      input.device)
    where = S.gather(at.expand(tuple(choice.shape[:-1]) + (at.shape[-1],)), -1, choice)
    return out, S.squeeze(where, -1)


def _adaptive_bounds(n, m):
    """(starts, stops) of the m windows of an adaptive pool over n elements: window i is floor(i*n/m) ..
    ceil((i+1)*n/m) - 1."""
    i = numpy.arange(m)
    return i * n // m, -(-(i + 1) * n // m)


def _adaptive_positions(n, m):
    """(m, k) positions: the windows of :func:`_adaptive_bounds`, padded to the longest (k) by repeating each
    one's last element."""
    starts, stops = _adaptive_bounds(n, m)
    k = int((stops - starts).max()) if m else 1
    return numpy.minimum(starts[:, None] + numpy.arange(k), stops[:, None] - 1)


# -- max unpooling: max pooling's indices, read back --------------------------------------------------

def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The values of ``input`` put back where ``max_pool1d(..., return_indices=True)`` found them (``indices``:
    positions along each output row), zeros elsewhere: out[n, c, indices[n, c, i]] = input[n, c, i].
    Gradient: ``dinput = g`` read at the same positions. The output length is (L - 1)*stride - 2*padding +
    kernel_size unless ``output_size`` asks for one within a stride of it."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 1, "max_unpool1d")


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """``max_unpool1d`` for images: each value of ``input`` put back at its ``indices`` (flat positions in each
    output plane, as ``max_pool2d(..., return_indices=True)`` gives them), zeros elsewhere."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2, "max_unpool2d")


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """``max_unpool1d`` for volumes: each value put back at its ``indices`` (flat positions in each output
    volume, ``(d * H + h) * W + w`` as ``max_pool3d(..., return_indices=True)`` gives them), zeros elsewhere."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 3, "max_unpool3d")


def _max_unpool(input, indices, kernel_size, stride, padding, output_size, n, name):
    if not isinstance(input, Tensor) or not isinstance(indices, Tensor):
        raise TypeError(f"{name}(): input and indices must be Tensors, got {type(input).__name__} and "
                        f"{type(indices).__name__}")
    k = _ntuple(kernel_size, "kernel_size", 1, n)
    s = k if stride is None else _ntuple(stride, "stride", 1, n)
    p = _ntuple(padding, "padding", 0, n)
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"{name}(): Input to max_unpooling{n}d should be a {n + 1}d or {n + 2}d Tensor, but got a "
                           f"tensor with {input.ndim} dimensions.")
    if input.dtype.kind != "f":
        raise NotImplementedError(f'"{name}" not implemented for \'{input.dtype.name}\': max pooling gives floats, '
                                  f'convert the input, e.g. x.float()')
    if 0 in (input.shape[1:] if input.ndim == n + 2 else input.shape):   # (the batch alone may be empty)
        raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but got "
                           f"{list(input.shape)}")
    if indices.dtype != numpy.int64:
        raise RuntimeError(f"{name}(): elements in indices should be type int64 but got: {indices.dtype.name} "
                           f"(the indices max_pool{n}d(..., return_indices=True) gives are)")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"{name}(): Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: {list(indices.shape)}")
    size = [(input.shape[d - n] - 1) * s[d] + k[d] - 2 * p[d] for d in range(n)]
    if output_size is not None:
        wanted = list(output_size)[-n:] if len(output_size) == n + 2 else list(output_size)
        if len(wanted) != n:
            raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, but it has a "
                             f"length of '{len(output_size)}'")
        for d in range(n):
            if not size[d] - s[d] < wanted[d] < size[d] + s[d]:
                raise ValueError(f'invalid output_size "{list(output_size)}" (dim {d} must be between '
                                 f'{size[d] - s[d]} and {size[d] + s[d]})')
        size = wanted
    for d in range(n):
        if size[d] < 0:
            raise ValueError(f"max_unpooling: output_size must contain non-negative spatial dimensions, but got "
                             f"output_size[{d}]={size[d]} (the padding {p[d]} is too large for this input)")
    lead, plane = tuple(input.shape[:-n]), int(numpy.prod(size))
    if plane == 0:   # (nothing to put anywhere: PyTorch checks no index then)
        return creation.zeros((*lead, *size), dtype=input.dtype, device=input.device)
    flat_index = S.reshape(indices, lead + (int(numpy.prod(input.shape[-n:])),))
    if flat_index.numel():
        low, high = (int(backend.to_host(f(flat_index._data))) for f in (backend.xp_of(flat_index._data).min,
                                                                         backend.xp_of(flat_index._data).max))
        if low < 0 or high >= plane:
            raise RuntimeError(f"{name}(): Found an invalid max index: {low if low < 0 else high} (output volumes "
                               f"are of size {'x'.join(map(str, size))})")
    out = creation.zeros((*lead, plane), dtype=input.dtype, device=input.device)
    out = selection.scatter(out, -1, flat_index, S.reshape(input, tuple(flat_index.shape)))
    return S.reshape(out, lead + tuple(size))
