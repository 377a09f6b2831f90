"""PyTorch's top-level functions that are Tensor methods, or one line of them, so lab code that calls them
ports: the in-place forms (``torch.exp_(x)`` is ``x.exp_()``), ``rsub``, ``scalar_tensor``, ``detach``,
``is_inference``, and the thread-count switches (``set_num_threads`` sets the BLAS threads NumPy uses, through
threadpoolctl when it is installed)."""
from __future__ import annotations

import os

from .nn import more_functional as _G
from .ops import composites as _composites
from .tensor import Tensor, default_float
from .tensor import tensor as _tensor

__all__ = ["rsub", "scalar_tensor", "detach", "is_inference", "get_num_threads", "set_num_threads",
           "get_num_interop_threads", "set_num_interop_threads", "IN_PLACE_NAMES", "rms_norm", "alpha_dropout",
           "alpha_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_", "dropout_", "channel_shuffle",
           "native_channel_shuffle", "rrelu", "rrelu_", "selu_", "celu_", "threshold_", "index_reduce"]

#: the top-level in-place functions PyTorch has (each ``torch.<name>(input, ...)`` is ``input.<name>(...)``)
IN_PLACE_NAMES = ("abs_", "acos_", "acosh_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_", "arctanh_",
                  "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_", "clamp_max_", "clamp_min_", "clip_",
                  "cos_", "cosh_", "deg2rad_", "erf_", "erfc_", "exp2_", "exp_", "expm1_", "fix_", "floor_", "frac_",
                  "gcd_", "i0_", "lcm_", "ldexp_", "log10_", "log1p_", "log2_", "log_", "logit_", "nan_to_num_",
                  "neg_", "negative_", "rad2deg_", "reciprocal_", "relu_", "round_", "rsqrt_", "sigmoid_", "sin_",
                  "sinc_", "sinh_", "sqrt_", "square_", "tan_", "tanh_", "trunc_", "xlogy_", "zero_", "fill_",
                  "detach_", "index_put_")


def in_place_function(name):
    """``torch.<name>(input, *args)``: the method ``input.<name>(*args)``."""
    def fn(input, *args, **kwargs):
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' must be Tensor, not {type(input).__name__}")
        return getattr(input, name)(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``{name}(input, ...)`` is ``input.{name}(...)``: in place, returns ``input``."
    return fn


def rsub(input, other, *, alpha=1):
    """``other - alpha * input`` (``sub`` with the operands reversed)."""
    if isinstance(alpha, float) and isinstance(input, Tensor) and input.dtype.kind in "biu":
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if isinstance(other, Tensor):
        return _composites.sub(other, input, alpha=alpha)
    return other - (input if alpha == 1 else input * alpha)


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    """A 0-d tensor holding the number ``s``, in the default float dtype unless ``dtype`` is given (also for
    an int, as in PyTorch)."""
    return _tensor(s, dtype=default_float() if dtype is None else dtype, device=device, requires_grad=requires_grad)


def detach(input):
    """``input.detach()``: the same values, cut from the graph."""
    return input.detach()


def is_inference(input) -> bool:
    """Whether ``input`` was made under ``inference_mode()`` (it never is here: ``inference_mode`` works as
    ``no_grad``, its tensors are ordinary)."""
    return False


def _threadpool():
    try:
        import threadpoolctl
    except ImportError:
        return None
    return threadpoolctl


def get_num_threads() -> int:
    """The number of threads NumPy's BLAS uses (PyTorch's intra-op threads), else the machine's CPUs."""
    pools = _threadpool()
    if pools is not None:
        found = [info["num_threads"] for info in pools.threadpool_info() if info.get("user_api") == "blas"]
        if found:
            return max(found)
    return os.cpu_count() or 1


def set_num_threads(int) -> None:  # noqa: A002  (PyTorch's argument name)
    """Let NumPy's BLAS use ``int`` threads (through threadpoolctl; without it, nothing changes and a warning
    says how to set ``OPENBLAS_NUM_THREADS`` before starting Python)."""
    if isinstance(int, bool) or not isinstance(int, type(1)) or int < 1:
        raise RuntimeError(f"set_num_threads expects a positive integer, got {int!r}")
    pools = _threadpool()
    if pools is None:
        import warnings
        warnings.warn("set_num_threads: threadpoolctl is not installed, so the BLAS threads stay as they are; "
                      "pip install threadpoolctl, or set OPENBLAS_NUM_THREADS before starting Python",
                      RuntimeWarning, stacklevel=2)
        return
    global _LIMITER
    _LIMITER = pools.threadpool_limits(limits=int, user_api="blas")


_LIMITER = None


def get_num_interop_threads() -> int:
    """1: autogradlab runs ops one at a time (PyTorch's inter-op threads run independent ops in parallel)."""
    return 1


def set_num_interop_threads(int) -> None:  # noqa: A002
    """Accepted and ignored (one op at a time); a positive integer, as in PyTorch."""
    if isinstance(int, bool) or not isinstance(int, type(1)) or int < 1:
        raise RuntimeError(f"Number of interop threads must be positive, got {int!r}")


# -- nn.functional's, with PyTorch's top-level arguments ------------------------------------------------------

def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``torch.rms_norm``: ``nn.functional.rms_norm``."""
    return _G.rms_norm(input, normalized_shape, weight, eps)


def alpha_dropout(input, p, train):
    """``torch.alpha_dropout(input, p, train)``: ``nn.functional.alpha_dropout``."""
    return _G.alpha_dropout(input, p, train)


def alpha_dropout_(input, p, train):
    """:func:`alpha_dropout` in place."""
    return _G.alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout(input, p, train):
    """``torch.feature_alpha_dropout(input, p, train)``: ``nn.functional.feature_alpha_dropout``."""
    return _G.feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input, p, train):
    """:func:`feature_alpha_dropout` in place."""
    return _G.feature_alpha_dropout(input, p, train, inplace=True)


def dropout_(input, p, train):
    """``torch.dropout_(input, p, train)``: ``nn.functional.dropout`` in place."""
    return _G.F.dropout(input, p, train, inplace=True)


def channel_shuffle(input, groups):
    """``torch.channel_shuffle``: ``nn.functional.channel_shuffle``."""
    return _G.channel_shuffle(input, groups)


native_channel_shuffle = channel_shuffle


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """``torch.rrelu``: ``nn.functional.rrelu`` (``generator`` is accepted; draws use the seeded generator)."""
    return _G.rrelu(input, lower, upper, training)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """:func:`rrelu` in place."""
    return _G.rrelu(input, lower, upper, training, inplace=True)


def selu_(input):
    """``nn.functional.selu`` in place."""
    return _G.selu_(input)


def celu_(input, alpha=1.0):
    """``nn.functional.celu`` in place."""
    return _G.celu_(input, alpha)


def threshold_(input, threshold, value):
    """``nn.functional.threshold`` in place."""
    return _G.threshold_(input, threshold, value)


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """``torch.index_reduce``: ``input.index_reduce(dim, index, source, reduce)``."""
    return input.index_reduce(dim, index, source, reduce, include_self=include_self)
