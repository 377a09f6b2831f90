"""Lazy layers (PyTorch's ``LazyLinear``, ``LazyConv2d``, ``LazyBatchNorm1d``, ...), as *Dive into Deep Learning*
builds its networks: the input size is left out, and the first call reads it off the input, makes the parameters
(initialised as the plain layer's are, from the random stream at that moment) and turns the module into the
plain layer: ``LazyLinear(3)`` called on a batch of 4 features becomes ``Linear(4, 3)``.

    net = nn.Sequential(nn.LazyLinear(256), nn.ReLU(), nn.LazyLinear(10))
    net[0].weight            # <UninitializedParameter>: its shape is not known yet
    net(X)                   # X of shape (batch, 20): net[0] is now Linear(20, 256)

Before the first call a parameter is an ``UninitializedParameter``, the same object it will be after (an
optimizer built before the first call updates it), whose shape cannot be read yet.
"""
from __future__ import annotations

from .. import creation
from ..grad_mode import no_grad
from ..tensor import Tensor
from .layers import (BatchNorm1d, BatchNorm2d, BatchNorm3d, Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d,
                     ConvTranspose3d, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, Linear)
from .module import Module
from .parameter import Parameter

__all__ = ["UninitializedParameter", "UninitializedBuffer", "LazyModuleMixin", "LazyLinear", "LazyConv1d",
           "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d",
           "LazyBatchNorm1d",
           "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"]

_NOT_YET = ("Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
            "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
            "`forward` to initialize the parameters before accessing their attributes.")


class _Uninitialized:
    """What an uninitialized parameter or buffer refuses until ``materialize`` gives it its values."""

    __slots__ = ()
    cls_to_become = None

    @property
    def shape(self):
        raise RuntimeError(_NOT_YET)

    def size(self, dim=None):
        raise RuntimeError(_NOT_YET)

    def numel(self):
        raise RuntimeError(_NOT_YET)

    @property
    def ndim(self):
        raise RuntimeError(_NOT_YET)

    def dim(self):
        raise RuntimeError(_NOT_YET)

    def materialize(self, values):
        """Become a plain parameter (buffer) holding ``values`` in this placeholder's dtype and on its device
        (a ``.double()`` or ``.to(device)`` before the first call counts): the same object, so what holds it
        sees it."""
        values = values.to(device=self.device, dtype=self.dtype)
        self._data = values._data
        self.__class__ = self.cls_to_become

    def __repr__(self):
        return f"<{type(self).__name__}>"


class UninitializedParameter(_Uninitialized, Parameter):
    """A parameter of a lazy layer before its first call: its shape is not known yet."""

    __slots__ = ()
    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return Parameter.__new__(cls, creation.zeros(0, dtype=dtype, device=device), requires_grad)

    def __init__(self, *args, **kwargs):
        pass   # (everything happened in __new__; the base __init__ would take the arguments for data)


class UninitializedBuffer(_Uninitialized, Tensor):
    """A buffer (a running mean, ...) of a lazy layer before its first call."""

    __slots__ = ()
    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        empty = creation.zeros(0, dtype=dtype, device=device)
        return cls._make(empty._data, requires_grad, None, empty.device)

    def __init__(self, *args, **kwargs):
        pass   # (everything happened in __new__; the base __init__ would take the arguments for data)


def _infer_parameters(module, args, kwargs):
    """The forward pre-hook of a lazy layer's first call: build the plain layer for this input's size, take
    its values into our parameters and buffers, and become that layer."""
    module.initialize_parameters(*args, **kwargs)
    module._lazy_hook.remove()
    del module._lazy_hook, module._lazy_arguments
    module.__class__ = module.cls_to_become


class LazyModuleMixin:
    """A layer whose input size (``in_features``, ``in_channels``, ``num_features``) is read off its first input.

    A subclass names ``cls_to_become`` (the plain layer), ``size_name`` (the argument left out) and
    ``input_size(input)``. Until the first call its parameters and buffers are uninitialized placeholders and
    the size reads 0; the first call builds ``cls_to_become`` with the input's size and the other arguments,
    moves its values into the placeholders, and the module becomes that class."""

    cls_to_become = None
    size_name = None

    def __init__(self, **arguments):
        """Make the placeholders: the attributes of the plain layer built with size 1 (its random draws put
        back), its parameters and buffers uninitialized (a 0-d counter kept as it is)."""
        Module.__init__(self)
        state = creation.get_rng_state()
        try:
            model = self.cls_to_become(**{self.size_name: arguments.pop("placeholder", 1)}, **arguments)
        finally:
            creation.set_rng_state(state)
        for name, value in model.__dict__.items():
            if name not in ("_parameters", "_buffers", "_modules", "training", "_hooks"):
                self.__dict__[name] = value
        for name, p in model._parameters.items():
            self._parameters[name] = None if p is None else UninitializedParameter(p.requires_grad, p.device,
                                                                                    p.dtype)
        for name, b in model._buffers.items():
            self._buffers[name] = b if b is None or b._data.ndim == 0 else UninitializedBuffer(False, b.device,
                                                                                               b.dtype)
        setattr(self, self.size_name, 0)
        self._lazy_arguments = arguments
        self._lazy_hook = self.register_forward_pre_hook(_infer_parameters, with_kwargs=True)

    def has_uninitialized_params(self):
        return any(isinstance(t, _Uninitialized) for t in (*self._parameters.values(), *self._buffers.values()))

    def initialize_parameters(self, input, *args, **kwargs):
        if not isinstance(input, Tensor):
            raise TypeError(f"{type(self).__name__}: the first call reads the input's size off a tensor, got "
                            f"{type(input).__name__}")
        size = self.input_size(input)
        if not self.has_uninitialized_params():    # (load_state_dict gave every placeholder its values)
            setattr(self, self.size_name, size)
            return
        with no_grad():
            model = self.cls_to_become(**{self.size_name: size}, **self._lazy_arguments)
        for table in ("_parameters", "_buffers"):
            for name, value in getattr(model, table).items():
                held = getattr(self, table)[name]
                if isinstance(held, _Uninitialized):
                    held.materialize(value)
        setattr(self, self.size_name, getattr(model, self.size_name))

    def input_size(self, input):
        raise NotImplementedError


class LazyLinear(LazyModuleMixin, Linear):
    """``Linear`` with ``in_features`` read off the first input's last dim."""

    cls_to_become, size_name = Linear, "in_features"

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        LazyModuleMixin.__init__(self, out_features=out_features, bias=bias, device=device, dtype=dtype)

    def input_size(self, input):
        return input.shape[-1]


class _LazyConv(LazyModuleMixin):
    """A convolution with ``in_channels`` read off the first input: dim 1 of a batch, dim 0 of one sample."""

    size_name = "in_channels"

    def input_size(self, input):
        n = self.cls_to_become.n
        if input.ndim not in (n + 1, n + 2):
            raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to "
                               f"{type(self).__name__}, but got input of size: {list(input.shape)}")
        return input.shape[1] if input.ndim == n + 2 else input.shape[0]


class _LazyConvNd(_LazyConv):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        _LazyConv.__init__(self, placeholder=groups, out_channels=out_channels, kernel_size=kernel_size,
                           stride=stride, padding=padding, dilation=dilation, groups=groups, bias=bias,
                           padding_mode=padding_mode, device=device, dtype=dtype)


class _LazyConvTransposeNd(_LazyConv):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None):
        _LazyConv.__init__(self, placeholder=groups, out_channels=out_channels, kernel_size=kernel_size,
                           stride=stride, padding=padding, output_padding=output_padding, groups=groups,
                           bias=bias, dilation=dilation, padding_mode=padding_mode, device=device, dtype=dtype)


class LazyConv1d(_LazyConvNd, Conv1d):
    cls_to_become = Conv1d


class LazyConv2d(_LazyConvNd, Conv2d):
    cls_to_become = Conv2d


class LazyConv3d(_LazyConvNd, Conv3d):
    cls_to_become = Conv3d


class LazyConvTranspose1d(_LazyConvTransposeNd, ConvTranspose1d):
    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTransposeNd, ConvTranspose2d):
    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTransposeNd, ConvTranspose3d):
    cls_to_become = ConvTranspose3d


class _LazyBatchNorm(LazyModuleMixin):
    """Batch normalisation with ``num_features`` read off the first input's dim 1."""

    size_name = "num_features"

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None, *,
                 bias=True):
        LazyModuleMixin.__init__(self, eps=eps, momentum=momentum, affine=affine,
                                 track_running_stats=track_running_stats, device=device, dtype=dtype, bias=bias)

    def input_size(self, input):
        if input.ndim < 2:
            raise ValueError(f"expected a batch with channels in dim 1, got input of size {list(input.shape)}")
        return input.shape[1]


class LazyBatchNorm1d(_LazyBatchNorm, BatchNorm1d):
    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyBatchNorm, BatchNorm2d):
    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyBatchNorm, BatchNorm3d):
    cls_to_become = BatchNorm3d


class LazyInstanceNorm1d(_LazyBatchNorm, InstanceNorm1d):
    """``num_features`` from the first input's dim 1 (as PyTorch's, also for an unbatched input); affine and
    tracking running statistics by default, unlike ``InstanceNorm1d``."""

    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyBatchNorm, InstanceNorm2d):
    cls_to_become = InstanceNorm2d


class LazyInstanceNorm3d(_LazyBatchNorm, InstanceNorm3d):
    cls_to_become = InstanceNorm3d
