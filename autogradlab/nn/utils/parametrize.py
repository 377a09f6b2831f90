"""``nn.utils.parametrize``, as PyTorch's: make a module's parameter a function of other tensors.

After ``register_parametrization(layer, "weight", Symmetric())``, reading ``layer.weight`` computes
``Symmetric()(original)`` each time, so a gradient through the weight reaches ``original`` (kept as
``layer.parametrizations.weight.original``, the parameter that was there, and what an optimizer built before
still updates). Assigning ``layer.weight = X`` stores ``right_inverse(X)`` in ``original``, when the
parametrization has one. Several registered on one name apply in order, ``f2(f1(original))``.

As in PyTorch, the layer's class becomes ``Parametrized<Class>`` (the property lives on it) and goes back to
its class when the last parametrization is removed; ``cached()`` computes each parametrized tensor once
inside its block (for a step that reads the weight many times, an RNN's, say).
"""
from __future__ import annotations

from contextlib import contextmanager

from ...grad_mode import no_grad
from ...tensor import Tensor
from ..layers import ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = ["register_parametrization", "remove_parametrizations", "is_parametrized", "cached",
           "type_before_parametrizations", "ParametrizationList"]

_cache_depth = 0
_cache = {}


@contextmanager
def cached():
    """Inside this block, each parametrized tensor is computed once, at its first read, and reused."""
    global _cache_depth
    _cache_depth += 1
    try:
        yield
    finally:
        _cache_depth -= 1
        if not _cache_depth:
            _cache.clear()


def _take_memory(original, value):
    """``original`` takes ``value``'s memory in place (PyTorch's ``set_``): the same tensor object, a new
    version, so a graph that saved its old value refuses a backward."""
    if value._data is not original._data:
        original.data = value
        original._vc[0] += 1


def _register(module, name, tensor):
    if isinstance(tensor, Parameter):
        module.register_parameter(name, tensor)
    else:
        module.register_buffer(name, tensor)


def _check_same_kind(what, got, shape, dtype):
    """A parametrization (or its ``right_inverse``) must keep the tensor's shape and dtype unless ``unsafe``."""
    if not isinstance(got, Tensor):
        raise ValueError(f"{what} must return a tensor. Got {type(got).__name__}.")
    if got.dtype != dtype:
        raise ValueError(f"Registering a parametrization may not change the dtype of the tensor, unless `unsafe` "
                         f"flag is enabled.\nunparametrized dtype: {dtype}\nparametrized dtype: {got.dtype}")
    if tuple(got.shape) != tuple(shape):
        raise ValueError(f"Registering a parametrization may not change the shape of the tensor, unless `unsafe` "
                         f"flag is enabled.\nunparametrized shape: {tuple(shape)}\nparametrized shape: "
                         f"{tuple(got.shape)}")


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order to ``original`` (or to ``original0``,
    ``original1``, ... when the first one's ``right_inverse`` returns several tensors)."""

    def __init__(self, modules, original, unsafe=False):
        if not modules:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        shape, dtype = tuple(original.shape), original.dtype
        with no_grad():   # original -> ... -> right_inverse of each, last first
            new = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, (Tensor, list, tuple)):
            raise ValueError(f"'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                             f"Got {type(new).__name__}")
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if new.dtype != original.dtype:
                raise ValueError(f"When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                                 f"original.dtype: {original.dtype}\nright_inverse(original).dtype: {new.dtype}")
            with no_grad():
                _take_memory(original, new)
            _register(self, "original", original)
        else:
            for i, part in enumerate(new):
                if not isinstance(part, Tensor):
                    raise ValueError(f"'right_inverse' must return a Tensor or a Sequence of tensors (list, "
                                     f"tuple...). Got element {i} of the sequence with type {type(part).__name__}.")
                if isinstance(original, Parameter):
                    part = Parameter(part.detach(), original.requires_grad)
                part.requires_grad_(original.requires_grad)
                _register(self, f"original{i}", part)
        if not self.unsafe:
            _check_same_kind("A parametrization", self(), shape, dtype)

    def right_inverse(self, value):
        """``module.name = value``: store ``right_inverse(value)`` (each parametrization's, last first) in the
        originals, in place."""
        with no_grad():
            for module in reversed(list(self)):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype {value.dtype} while "
                                     f"`original` has dtype {self.original.dtype}")
                _take_memory(self.original, value)
            else:
                if not isinstance(value, (list, tuple)) or len(value) != self.ntensors:
                    raise ValueError(f"'right_inverse' must return a sequence of {self.ntensors} tensors, as when "
                                     f"the parametrization was registered. Got {type(value).__name__}")
                for i, part in enumerate(value):
                    _take_memory(getattr(self, f"original{i}"), part)

    def forward(self):
        """The parametrized tensor: the parametrizations in order, the first on the original(s)."""
        modules = list(self)
        if self.is_tensor:
            x = modules[0](self.original)
        else:
            x = modules[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in modules[1:]:
            x = module(x)
        return x


def _parametrized_property(name):
    def read(module):
        if not _cache_depth:
            return module.parametrizations[name]()
        key = (id(module), name)
        if key not in _cache:
            _cache[key] = module.parametrizations[name]()
        return _cache[key]

    def write(module, value):
        module.parametrizations[name].right_inverse(value)
    return property(read, write, doc=f"``{name}``, computed by its parametrizations from their originals")


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Make ``module.<tensor_name>`` (a parameter or buffer) read as ``parametrization(original)``; on a name
    already parametrized, ``parametrization`` is applied after the others. ``unsafe=True`` allows a change of
    shape or dtype. Returns ``module``."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            current = getattr(module, tensor_name)
            shape, dtype = tuple(current.shape), current.dtype
            _check_same_kind("A parametrization", parametrization(current), shape, dtype)
            if hasattr(parametrization, "right_inverse"):
                try:
                    back = parametrization.right_inverse(parametrization(current))
                except NotImplementedError:
                    pass
                else:
                    _check_same_kind("right_inverse", back, shape, dtype)
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        chain = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):   # (the first on this module: its own class, to hold the properties)
            cls = type(module)
            module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), {"__module__": cls.__module__})
            module.parametrizations = ModuleDict()
        setattr(type(module), tensor_name, _parametrized_property(tensor_name))
        module.parametrizations[tensor_name] = chain
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with "
                         f"name '{tensor_name}'")
    return module


def is_parametrized(module, tensor_name=None):
    """Has ``module`` a parametrization (on ``tensor_name``, if given)?"""
    chains = module.__dict__.get("_modules", {}).get("parametrizations")
    if not isinstance(chains, ModuleDict):
        return False
    return len(chains) > 0 if tensor_name is None else tensor_name in chains


def type_before_parametrizations(module):
    """The module's class as it was before any parametrization (``Linear`` for a ``ParametrizedLinear``)."""
    return type(module).__bases__[0] if is_parametrized(module) else type(module)


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Make ``module.<tensor_name>`` a plain parameter (or buffer) again: the original tensor object, holding
    the parametrized value (``leave_parametrized=True``) or the original's own. Returns ``module``."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    chain = module.parametrizations[tensor_name]
    if chain.is_tensor:
        original = chain.original
        if leave_parametrized:
            with no_grad():
                _take_memory(original, getattr(module, tensor_name))
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is "
                             "parametrized in terms of a sequence of tensors.")
        value = getattr(module, tensor_name)   # (with grad: it requires grad if an original does)
        original = Parameter(value.detach(), value.requires_grad) if value.requires_grad else value
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    _register(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = type(module).__bases__[0]
    return module
