"""autogradlab: an educational reverse-mode autograd engine over NumPy (and CuPy).

    import autogradlab as ag
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    x.grad            # tensor([2., 4., 6.])

The API follows PyTorch's names and signatures, so lab code ports to ``torch``
by changing the import.
"""
import math as _math

import numpy as _np

from . import ops as _ops  # noqa: F401  (registers the ops and attaches the Tensor methods)
from .backend import get_default_device, set_default_device
from .creation import (Generator, arange, as_tensor, asarray, eye, from_numpy, frombuffer, full, full_like,
                       get_rng_state, initial_seed, linspace, manual_seed, ones, ones_like, rand, randint, randn,
                       randperm, seed, set_rng_state, zeros, zeros_like)
from .creation import (BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor, HalfTensor, IntTensor,
                       LongTensor, ShortTensor)
from .engine import backward
from .events import Tape, explain, steps, trace
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .ops.elementwise import (abs, acos, allclose, asin, atan, bitwise_and, bitwise_not, bitwise_or, bitwise_xor,
                              ceil, clamp, clone, cos, cosh, eq, equal, erf, exp, exp2, expm1, floor,
                              floor_divide, ge, gt, isclose, isfinite, isinf, isnan, le, log, log1p, log2, log10,
                              logical_not, lt, masked_fill, maximum, minimum, mul, ne, neg, pow, reciprocal, relu,
                              remainder, round, rsqrt, sigmoid, sign, sin, sinh, sqrt, square, tan, tanh, trunc)
from .ops.elementwise import atan2, fmod, hypot, lerp, logaddexp
from .ops.elementwise import abs as absolute, acos as arccos, asin as arcsin, atan as arctan
from .ops.elementwise import acosh, asinh, atanh, acosh as arccosh, asinh as arcsinh, atanh as arctanh
from .ops.elementwise import (div as true_divide, ge as greater_equal, gt as greater, le as less_equal, lt as less,
                              mul as multiply, ne as not_equal, neg as negative, trunc as fix)
from .ops.composites import (add, addbmm, addcdiv, addcmul, addmv, addr, baddbmm, cummax, cummin, div, dsplit,
                             float_power, fliplr, flipud, fmax, fmin, hsplit, index_copy, index_fill, isneginf,
                             isposinf, isreal, logaddexp2, logical_and, logical_or, logical_xor, masked_scatter, sub,
                             vdot, vsplit)
from .ops.composites import div as divide, sub as subtract
from .ops.composites import (combinations, copysign, cumulative_trapezoid, diagflat, ldexp, trapezoid, trapz,
                             vander)
from .ops.elementwise import atan2 as arctan2
from .ops.linalg import addmm, bmm, cdist, cross, dot, einsum, inner, kron, matmul, mm, mv, outer, tensordot
from .ops.joining import (atleast_1d, atleast_2d, atleast_3d, block_diag, cartesian_prod, column_stack, dstack, hstack,
                          row_stack, tensor_split, vstack)
from .ops.rearrange import (diag, diag_embed, diagonal, diff, index_select, meshgrid, movedim, narrow, repeat_interleave,
                            roll, rot90, swapaxes, swapdims, take, tile)
from .ops.rearrange import movedim as moveaxis
from .ops.log_cumsum import logcumsumexp
from .ops.reduce import (all, amax, amin, any, argmax, argmin, cumprod, cumsum, log_softmax, logsumexp, max, mean,
                         min, prod, softmax, std, sum, var)
from .ops.selection import where
from .ops.selection import (argwhere, bincount, count_nonzero, index_add, masked_select, nonzero, scatter,
                             scatter_add, scatter_reduce, take_along_dim, unique)
from .ops.shape import (argsort, cat, chunk, flatten, flip, gather, permute, reshape, sort, split, stack, t, topk,
                        transpose, tril, triu, unbind, unsqueeze)
from .ops.shape import (broadcast_to_new as broadcast_to, expand_new as expand,   # (always a new view, as
                        squeeze_new as squeeze)                                    # PyTorch's: see new_view)
from .ops.special import logit, nan_to_num, sinc, xlogy
from .ops.special_functions import digamma, erfc, erfinv, i0, lgamma, mvlgamma, polygamma
from .ops.special_functions import gammainc as igamma, gammaincc as igammac
from .ops.shape import broadcast_shapes, broadcast_tensors
from .ops.searching import bucketize, histc, histogram, isin, searchsorted, signbit, tril_indices, triu_indices
from .ops.special import deg2rad, frac, heaviside, rad2deg, sgn
from .ops.statistics import aminmax
from .ops.rearrange import msort, ravel, select, unflatten
from .nn.distance import cosine_similarity, dist, pairwise_distance
from .sampling import (bernoulli, empty, empty_like, logspace, multinomial, normal, poisson, rand_like, randint_like,
                       randn_like)
from .dtypes import (can_cast, finfo, get_default_dtype, iinfo, is_floating_point, layout, promote_types,
                     set_default_dtype, strided)
from .grad_mode import inference_mode, is_inference_mode_enabled
from .backend import device
from .printing import set_printoptions
from .ops.statistics import (corrcoef, cov, kthvalue, median, nanmean, nanmedian, nanquantile, nansum, quantile,
                             std_mean, var_mean)
from .tensor import Tensor, tensor
from . import autograd  # noqa: E402


def _play(tape, **kwargs):
    """An ipywidgets player stepping through this tape: ``tape.play()`` is ``autogradlab.viz.play(tape)``.
    (Attached here, at the top of the package: the events layer never imports the viz.)"""
    from .viz import play
    return play(tape, **kwargs)


Tape.play = _play
Tensor.dist = dist   # (its norm lives in nn.distance, which the ops' method table does not import)

float16, float32, float64 = _np.dtype("float16"), _np.dtype("float32"), _np.dtype("float64")
int32, int64, bool_ = _np.dtype("int32"), _np.dtype("int64"), _np.dtype("bool")
uint8, int8, int16 = _np.dtype("uint8"), _np.dtype("int8"), _np.dtype("int16")
half, double, short, long = float16, float64, int16, int64   # PyTorch's other names for them
complex64, complex128 = _np.dtype("complex64"), _np.dtype("complex128")
cfloat, cdouble = complex64, complex128
bool = bool_  # noqa: A001  (PyTorch's name: autogradlab.bool)

clip = clamp
pi, e, inf, nan = _math.pi, _math.e, _math.inf, _math.nan   # torch.pi, torch.e, torch.inf, torch.nan
newaxis = None   # x[:, autogradlab.newaxis] adds a dim, as None does


def is_tensor(obj):
    return isinstance(obj, Tensor)


def result_type(tensor1, tensor2):
    """The dtype an arithmetic op on ``tensor1`` and ``tensor2`` (either may be a number) gives, by PyTorch's
    promotion rules."""
    if not isinstance(tensor1, Tensor) and not isinstance(tensor2, Tensor):
        raise TypeError("result_type(): at least one argument must be a Tensor")
    with no_grad():
        a, b = _ops.elementwise.promote(tensor1, tensor2)
    return a.dtype if a.dtype == b.dtype else _np.result_type(a.dtype, b.dtype)


def is_nonzero(input) -> bool:
    """``bool(input)`` of a one-element tensor (PyTorch's RuntimeError for any other): ``input.is_nonzero()``."""
    return input.is_nonzero()


def is_same_size(input, other) -> bool:
    return tuple(input.shape) == tuple(other.shape)


def is_signed(input) -> bool:
    return input.is_signed()


def is_complex(input) -> bool:
    """True for a tensor of a complex dtype (complex64, complex128)."""
    return input.dtype.kind == "c"


def numel(input) -> int:
    """The number of elements of ``input``."""
    return input.numel()


def positive(input):
    """``input`` itself (``+x``)."""
    return input.positive()


def dropout(input, p, train):
    """``torch.dropout(input, p, train)``: ``nn.functional.dropout`` with PyTorch's top-level argument order."""
    return _F.dropout(input, p, training=train)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    """``torch.layer_norm``: ``nn.functional.layer_norm`` (``cudnn_enable`` is accepted and has no effect)."""
    return _F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    """``torch.group_norm``: ``nn.functional.group_norm`` (``cudnn_enabled`` is accepted and has no effect)."""
    return _F.group_norm(input, num_groups, weight, bias, eps)


def adaptive_max_pool1d(input, output_size):
    """``torch.adaptive_max_pool1d``: ``(values, indices)``, as ``nn.functional``'s with ``return_indices=True``."""
    return _F.adaptive_max_pool1d(input, output_size, return_indices=True)


def clamp_min(input, min):
    return clamp(input, min=min)


def clamp_max(input, max):
    return clamp(input, max=max)


__version__ = "0.1.0"

from . import data, nn, optim, training  # noqa: E402  (the course toolkit; matplotlib/ipywidgets load lazily)
from .nn import functional as _F  # noqa: E402
# the functions PyTorch also has at the top level, with the same arguments (torch.conv2d is F.conv2d)
from .nn.functional import (adaptive_avg_pool1d, avg_pool1d, bilinear, celu,  # noqa: E402
                            conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d, hardshrink, max_pool1d,
                            max_pool2d, max_pool3d, pdist, pixel_shuffle, pixel_unshuffle, prelu, selu, threshold)
from . import utils  # noqa: E402  (torch.utils.data's names: Dataset, DataLoader, random_split, ...)
from . import linalg, special  # noqa: E402  (torch.linalg's and torch.special's names)
norm = linalg._torch_norm   # (any p: linalg's vector and matrix norms, above the ops)


def _norm_method(self, p="fro", dim=None, keepdim=False, dtype=None):
    """``Tensor.norm``: :func:`norm` without its ``out`` (PyTorch's method has none)."""
    return norm(self, p, dim, keepdim, dtype=dtype)


Tensor.norm = _norm_method
from . import cuda  # noqa: E402  (torch.cuda's is_available, device_count, ...)
from . import backends  # noqa: E402  (torch.backends' switches: cudnn.deterministic, ...)
from .backends import (are_deterministic_algorithms_enabled,  # noqa: E402
                       is_deterministic_algorithms_warn_only_enabled, use_deterministic_algorithms)
from . import func  # noqa: E402  (torch.func's transforms: grad, vmap, jacrev, functional_call, ...)
from .func import vmap  # noqa: E402  (torch.vmap is torch.func.vmap)
from . import distributions  # noqa: E402  (torch.distributions' Normal, Categorical, ... and kl_divergence)
from .ops.decompositions import cholesky, det, logdet, matrix_exp, matrix_power, slogdet  # noqa: E402
from .ops.decompositions import inv as inverse  # noqa: E402
from .ops.decompositions import pinverse  # noqa: E402
from .serialization import load, save  # noqa: E402
from . import older_names as _older_names  # noqa: E402
from .older_names import (adjoint, chain_matmul, cholesky_inverse, cholesky_solve, ger, lu, lu_solve,  # noqa: E402
                          orgqr, qr, renorm, svd, triangular_solve)
from .ops.lu import lu_unpack  # noqa: E402
_older_names.attach()
from .ops.integers import bitwise_left_shift, bitwise_right_shift, frexp, gcd, lcm, nextafter  # noqa: E402
from .ops.counting import mode, unique_consecutive, unravel_index  # noqa: E402
from .ops.writes import diagonal_scatter, index_put, put, select_scatter, slice_scatter  # noqa: E402
from .windows import bartlett_window, blackman_window, hamming_window, hann_window, kaiser_window  # noqa: E402
from .torch_level import (detach, get_num_interop_threads, get_num_threads, is_inference, rsub,  # noqa: E402
                          scalar_tensor, set_num_interop_threads, set_num_threads)
from .torch_level import (alpha_dropout, alpha_dropout_, celu_, channel_shuffle, dropout_,  # noqa: E402
                          feature_alpha_dropout, feature_alpha_dropout_, index_reduce, native_channel_shuffle,
                          rms_norm, rrelu, rrelu_, selu_, threshold_)
from . import torch_level as _torch_level  # noqa: E402
for _name in _torch_level.IN_PLACE_NAMES:   # torch.exp_(x) is x.exp_()
    globals()[_name] = _torch_level.in_place_function(_name)

# the public API (PyTorch names), spelled out for readers and for `from autogradlab import *`
__all__ = ["get_default_device", "set_default_device", "Generator", "FloatTensor", "DoubleTensor", "HalfTensor",
           "LongTensor", "IntTensor", "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor", "arange", "as_tensor",
           "asarray", "frombuffer", "eye", "from_numpy", "full",
           "full_like", "linspace", "manual_seed", "initial_seed", "seed", "get_rng_state",
           "set_rng_state", "ones", "ones_like", "rand", "randint", "randn", "randperm",
           "zeros", "zeros_like", "backward", "Tape", "explain", "steps", "trace", "enable_grad",
           "is_grad_enabled", "no_grad", "set_grad_enabled", "abs", "add", "bitwise_and", "bitwise_not",
           "bitwise_or", "bitwise_xor", "clamp", "clone", "cos", "div", "eq", "exp", "floor_divide", "ge",
           "gt", "le", "log", "logical_not", "lt", "masked_fill", "maximum", "minimum", "mul", "ne", "neg",
           "pow", "reciprocal", "relu", "remainder", "sigmoid", "sign", "sin", "sqrt", "sub", "tanh", "where",
           "dot", "matmul", "outer", "amax", "amin", "cumsum", "log_softmax", "logsumexp", "max", "mean",
           "min", "norm", "softmax", "std", "sum", "var", "broadcast_to", "cat", "chunk", "expand", "flatten",
           "permute", "reshape", "split", "squeeze", "stack", "transpose", "unbind", "unsqueeze", "all", "any",
           "argmax", "argmin", "allclose", "isclose", "equal", "isnan", "isinf", "isfinite", "log1p", "expm1",
           "square", "prod", "t", "mm", "mv", "bmm", "floor", "ceil", "round", "trunc", "tan", "asin", "acos",
           "atan", "sinh", "cosh", "log2", "log10", "exp2", "rsqrt", "gather", "erf", "tril", "triu", "flip", "sort",
           "argsort", "topk", "einsum", "atan2", "arctan2", "lerp", "addmm", "diag", "diagonal", "diff", "index_select",
           "meshgrid", "movedim", "moveaxis", "narrow", "repeat_interleave", "roll", "swapaxes", "swapdims", "tile",
           "scatter", "scatter_add", "scatter_reduce", "index_add", "take_along_dim", "masked_select", "nonzero",
           "argwhere", "unique",
           "bincount", "count_nonzero", "cumprod", "hypot", "logaddexp", "fmod", "cross", "kron", "cdist",
           "Tensor", "tensor", "autograd",
           "float16", "float32", "float64", "int32", "int64", "bool_", "bool", "uint8",
           "int8", "int16", "half", "double", "short", "long", "clip", "is_tensor", "data", "utils",
           "nn", "optim", "training", "load", "save", "linalg", "inverse", "det", "logdet", "slogdet", "cholesky",
           "matrix_power", "matrix_exp", "pinverse", "inner", "tensordot", "atleast_1d", "atleast_2d", "atleast_3d",
           "block_diag",
           "cartesian_prod", "column_stack", "dstack", "hstack", "row_stack", "tensor_split", "vstack", "diag_embed",
           "rot90", "take", "corrcoef", "cov", "kthvalue", "median", "nanmean", "nanmedian", "nanquantile", "nansum",
           "quantile", "std_mean", "var_mean", "special", "logit", "nan_to_num", "sinc", "xlogy",
           "broadcast_shapes", "broadcast_tensors", "bernoulli", "empty", "empty_like", "logspace", "multinomial",
           "normal", "poisson", "rand_like", "randint_like", "randn_like", "can_cast", "finfo", "get_default_dtype",
           "set_default_dtype", "iinfo", "is_floating_point", "promote_types", "layout", "strided", "inference_mode",
           "is_inference_mode_enabled", "device",
           "cuda", "backends", "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "concat", "concatenate", "Size", "numel", "clamp_min",
           "clamp_max", "set_printoptions", "bucketize", "histc", "histogram", "isin",
           "searchsorted", "signbit", "tril_indices", "triu_indices", "deg2rad", "frac", "heaviside", "rad2deg",
           "sgn", "aminmax", "msort", "ravel", "select", "unflatten", "cosine_similarity", "dist",
           "pairwise_distance", "arccos", "arcsin", "arctan", "absolute", "acosh", "asinh", "atanh", "arccosh",
           "arcsinh", "arctanh", "true_divide", "greater_equal", "greater", "less_equal", "less", "multiply",
           "not_equal", "negative", "fix", "addbmm", "addcdiv", "addcmul", "addmv", "addr", "baddbmm", "cummax",
           "cummin", "dsplit", "float_power", "fliplr", "flipud", "fmax", "fmin", "hsplit", "index_copy",
           "masked_scatter", "index_fill", "isneginf", "isposinf", "isreal", "logaddexp2", "logical_and", "logical_or",
           "logical_xor",
           "vdot", "vsplit", "divide", "subtract", "positive", "func", "distributions", "lgamma", "digamma",
           "polygamma", "mvlgamma", "erfc", "erfinv", "i0", "igamma", "igammac", "pi", "e", "inf", "nan", "newaxis", "vmap",
           "adaptive_avg_pool1d", "adaptive_max_pool1d", "avg_pool1d", "bilinear", "celu", "conv1d", "conv2d", "conv3d",
           "conv_transpose1d", "conv_transpose2d", "hardshrink", "max_pool1d", "max_pool2d", "max_pool3d", "pdist",
           "pixel_shuffle", "pixel_unshuffle", "prelu", "selu", "threshold", "dropout", "layer_norm", "group_norm",
           "combinations", "copysign", "cumulative_trapezoid", "diagflat", "ldexp", "trapezoid", "trapz", "vander",
           "result_type", "is_nonzero", "is_same_size", "is_signed", "is_complex", "logcumsumexp", "adjoint", "lu", "lu_solve", "lu_unpack", "triangular_solve", "orgqr",
           "complex64", "complex128", "cfloat", "cdouble", "real", "imag", "conj", "conj_physical", "resolve_conj",
           "resolve_neg", "is_conj", "angle", "view_as_real", "view_as_complex", "complex", "polar", "fft",
           "chain_matmul", "cholesky_inverse", "cholesky_solve", "ger", "qr", "renorm", "svd",
           "bitwise_left_shift", "bitwise_right_shift", "frexp", "gcd", "lcm", "nextafter", "mode",
           "unique_consecutive", "unravel_index", "diagonal_scatter", "index_put", "put", "select_scatter",
           "slice_scatter", "bartlett_window", "blackman_window", "hamming_window", "hann_window", "kaiser_window",
           "detach", "get_num_interop_threads", "get_num_threads", "is_inference", "rsub", "scalar_tensor",
           "set_num_interop_threads", "set_num_threads", *_torch_level.IN_PLACE_NAMES, "alpha_dropout",
           "alpha_dropout_", "celu_", "channel_shuffle", "dropout_", "feature_alpha_dropout", "feature_alpha_dropout_",
           "native_channel_shuffle", "rms_norm", "rrelu", "rrelu_", "selu_", "threshold_", "index_reduce"]

from .tensor import Size  # noqa: E402
from .ops.complex_numbers import complex, polar, view_as_complex, view_as_real  # noqa: E402,A004
from .ops.elementwise import angle, conj, imag, real  # noqa: E402
from . import fft  # noqa: E402
conj_physical = conj
resolve_conj = resolve_neg = _ops.methods.METHODS["resolve_conj"]
is_conj = _ops.methods.METHODS["is_conj"]
concat = concatenate = cat  # noqa: E305  (PyTorch's other names for cat)

# NumPy's spellings axis= and keepdims= as PyTorch takes them (the Tensor methods take them too: ops/methods.py)
for _name in _ops.methods.NUMPY_SPELLINGS:
    if _name in globals():
        globals()[_name] = _ops.methods.numpy_spellings(globals()[_name])

# PyTorch's torch.float and torch.int, set last: nothing in this module calls the builtins they hide
float, int = float32, int32  # noqa: A001
__all__ += ["float", "int"]
