"""``Module``: the base class of layers and models (PyTorch's bookkeeping, in plain Python).

Assigning a :class:`Parameter` or a ``Module`` to an attribute registers it::

    class TwoLayer(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(2, 16)      # a child module
            self.fc2 = nn.Linear(16, 1)
        def forward(self, x):
            return self.fc2(self.fc1(x).relu())

    model = TwoLayer()
    [name for name, _ in model.named_parameters()]   # ['fc1.weight', 'fc1.bias', 'fc2.weight', 'fc2.bias']

``model(x)`` calls ``model.forward(x)``.
"""
from __future__ import annotations

import warnings
from collections import OrderedDict, namedtuple

import numpy

from .. import backend
from ..ops.methods import to_arguments
from ..tensor import Tensor, zero_grads
from . import hooks
from .parameter import Parameter

__all__ = ["Module"]

class _IncompatibleKeys(namedtuple("_IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns; printed as PyTorch prints it when every key matched."""

    __slots__ = ()

    def __repr__(self):
        return "<All keys matched successfully>" if not self.missing_keys and not self.unexpected_keys \
            else super().__repr__()


def _placeholder(t):
    """A lazy layer's ``UninitializedParameter``/``UninitializedBuffer`` (``nn.lazy`` imports this module, so
    it is told by its method rather than its class)."""
    return hasattr(t, "materialize")


def _dotted(prefix, name):
    """``prefix.name``, or ``name`` at the top (an empty prefix)."""
    return f"{prefix}.{name}" if prefix else name


def _has_extra_state(module):
    """Whether ``module``'s class defines ``get_extra_state`` (state_dict then saves it as ``_extra_state``)."""
    return type(module).get_extra_state is not Module.get_extra_state


class Module:
    """Base class for every layer and model: holds parameters and child modules, in order."""

    _hooks = None    # (the module's hooks, made by the first register_*_hook: see hooks.py)

    def __init__(self):
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())   # tensors that are state, not parameters
        object.__setattr__(self, "_non_persistent", set())     # buffer names left out of state_dict
        object.__setattr__(self, "_modules", OrderedDict())

    # -- registration --------------------------------------------------------------------
    def __setattr__(self, name, value):
        if "_parameters" not in self.__dict__:   # (a plain attribute may come first, as in PyTorch)
            if isinstance(value, (Parameter, Module)) or getattr(value, "persistent", None) is not None:
                raise AttributeError(f"cannot assign {name!r} before Module.__init__() call: "
                                     f"call super().__init__() first in {type(self).__name__}.__init__")
            return object.__setattr__(self, name, value)
        params, modules, buffers = self.__dict__["_parameters"], self.__dict__["_modules"], self.__dict__["_buffers"]
        if isinstance(value, Parameter):
            if name not in params and hasattr(type(self), name):   # (a class attribute, method or property would
                raise KeyError(f"attribute '{name}' already exists")   # hide it: self.name would not be it)
            self.__dict__.pop(name, None)
            modules.pop(name, None)
            buffers.pop(name, None)
            self.__dict__["_non_persistent"].discard(name)
            params[name] = value  # a re-assigned name keeps its place in the order
        elif name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as parameter '{name}' "
                                f"(nn.Parameter or None expected)")
            params[name] = None  # an optional parameter that is absent (Linear(bias=False))
        elif isinstance(value, Module):
            self.__dict__.pop(name, None)
            params.pop(name, None)
            buffers.pop(name, None)
            self.__dict__["_non_persistent"].discard(name)
            modules[name] = value
        elif getattr(value, "persistent", None) is not None and isinstance(value, Tensor):   # an nn.Buffer
            if name not in buffers and hasattr(type(self), name):
                raise KeyError(f"attribute '{name}' already exists")
            self.__dict__.pop(name, None)
            params.pop(name, None)
            modules.pop(name, None)
            buffers[name] = value
            (self.__dict__["_non_persistent"].discard if value.persistent else self.__dict__["_non_persistent"].add)(name)
        elif name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' (Tensor or None expected)")
            buffers[name] = value
        elif name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as child module '{name}' "
                                f"(nn.Module or None expected)")
            modules[name] = None
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):  # only called when normal lookup fails
        d = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            if table in d and name in d[table]:
                return d[table][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for table in (self._parameters, self._buffers, self._modules):
            if name in table:
                del table[name]
                self._non_persistent.discard(name)
                return
        object.__delattr__(self, name)

    def register_buffer(self, name, tensor, persistent=True):
        """Keep ``tensor`` as state of this module that is not a parameter (a running mean, a loss's class
        weights): ``self.name`` reads it, ``.to()`` moves and casts it, and ``state_dict()`` saves it unless
        ``persistent=False``. The optimizer never sees it, and it takes no gradient."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign a buffer before Module.__init__() call: call super().__init__() "
                                 f"first in {type(self).__name__}.__init__")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string, got {type(name).__name__}")
        if not name:
            raise KeyError("buffer name can't be empty")
        if "." in name:
            raise KeyError(f"buffer name can't contain \".\" ({name!r}): dots separate the names of child modules "
                           f"in state_dict")
        if name not in self._buffers and hasattr(self, name):
            raise KeyError(f"attribute '{name}' already exists: choose another name for the buffer")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' (Tensor or None "
                            f"required): wrap it with autogradlab.tensor(...)")
        self._buffers[name] = tensor
        (self._non_persistent.discard if persistent else self._non_persistent.add)(name)

    def _check_name(self, name, what, registry):
        """A name a parameter or child module can take: a string, not empty, without "." (state_dict keys join names
        with dots), and not one of the module's own attributes."""
        if not isinstance(name, str):
            raise TypeError(f"{what} name should be a string. Got {type(name).__name__}")
        if not name:
            raise KeyError(f'{what} name can\'t be empty string ""')
        if "." in name:
            raise KeyError(f'{what} name can\'t contain ".", got: {name}')
        if hasattr(self, name) and name not in self.__dict__[registry]:
            raise KeyError(f"attribute '{name}' already exists")

    def register_parameter(self, name, param):
        """Same as ``self.name = param`` (``param`` may be None)."""
        self._check_name(name, "parameter", "_parameters")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{type(param).__name__}' as parameter '{name}' "
                            f"(nn.Parameter or None expected)")
        if param is None:
            self.__dict__.pop(name, None)
            self._modules.pop(name, None)
            self._parameters[name] = None
        else:
            self.__setattr__(name, param)

    def add_module(self, name, module):
        """Same as ``self.name = module``."""
        self._check_name(name, "module", "_modules")
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        if module is None:   # (an empty slot, shown as (name): None, as PyTorch keeps it)
            for table in (self._parameters, self._buffers):
                table.pop(name, None)
            self.__dict__.pop(name, None)
            self._modules[name] = None
            return
        self.__setattr__(name, module)

    # -- the forward pass ------------------------------------------------------------------
    def register_module(self, name, module):
        """The same as :meth:`add_module` (PyTorch's other name for it)."""
        self.add_module(name, module)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"Module [{type(self).__name__}] is missing the required \"forward\" function")

    def __call__(self, *args, **kwargs):
        if self._hooks is None:
            return self.forward(*args, **kwargs)
        return hooks.call(self, args, kwargs)

    # -- hooks (PyTorch's; see hooks.py) -----------------------------------------------------------
    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """``hook(module, args)`` (with_kwargs: ``(module, args, kwargs)``) before forward; may return new args."""
        return hooks.register(self, "forward_pre", hook, prepend, with_kwargs)

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """``hook(module, args, output)`` after forward; may return a new output."""
        return hooks.register(self, "forward", hook, prepend, with_kwargs, always_call)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """``hook(module, grad_output)`` once the output's gradient is known; may return a new grad_output."""
        return hooks.register(self, "backward_pre", hook, prepend)

    def register_full_backward_hook(self, hook, prepend=False):
        """``hook(module, grad_input, grad_output)`` once the input's gradient is known; may return a new
        grad_input."""
        return hooks.register(self, "backward", hook, prepend)

    def apply(self, fn):
        """``fn(m)`` for every child module (depth first), then for this one; returns self
        (``model.apply(init_weights)``)."""
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    def get_submodule(self, target):
        """The module at dotted path ``target`` (``"encoder.layers.0"``); ``""`` is this module."""
        module = self
        for item in target.split(".") if target else ():
            if item not in module._modules:
                raise AttributeError(f"{type(module).__name__} has no attribute `{item}`")
            module = module._modules[item]
        return module

    def get_parameter(self, target):
        """The parameter at dotted path ``target`` (``"fc1.weight"``)."""
        return self._get_member(target, "_parameters", "nn.Parameter")

    def get_buffer(self, target):
        """The buffer at dotted path ``target`` (``"bn.running_mean"``)."""
        return self._get_member(target, "_buffers", "buffer")

    def _get_member(self, target, table, what):
        path, _, name = target.rpartition(".")
        module = self.get_submodule(path)
        if name not in module._parameters and name not in module._buffers and name not in module.__dict__:
            raise AttributeError(f"{type(module).__name__} has no attribute `{name}`")
        if name not in getattr(module, table):
            raise AttributeError(f"`{name}` is not {'an' if what[0] in 'aeiou' else 'a'} {what}")
        return getattr(module, table)[name]

    # -- walking the tree ------------------------------------------------------------------
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """``(name, module)`` for this module and all descendants, depth first; each module once (or, with
        ``remove_duplicate=False``, once under each name it is registered by)."""
        memo = set() if memo is None else memo
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, child in self._modules.items():
            if child is not None:
                yield from child.named_modules(memo, _dotted(prefix, name), remove_duplicate)

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        """``(name, module)`` for the direct children, in registration order."""
        seen = set()
        for name, child in self._modules.items():
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                yield name, child

    def children(self):
        for _, m in self.named_children():
            yield m

    def _named_members(self, table, prefix, recurse, remove_duplicate=True):
        """``(dotted.name, tensor)`` from each module's ``table`` (``_parameters`` or ``_buffers``), depth first
        in registration order; a tensor shared by two modules appears once (unless ``remove_duplicate=False``)."""
        seen = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse \
            else [(prefix, self)]
        for mod_prefix, module in modules:
            for name, t in getattr(module, table).items():
                if t is None or (remove_duplicate and id(t) in seen):
                    continue
                seen.add(id(t))
                yield _dotted(mod_prefix, name), t

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """``(dotted.name, parameter)`` in registration order; a shared parameter appears once (unless
        ``remove_duplicate=False``)."""
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """``(dotted.name, buffer)`` in registration order (see :meth:`register_buffer`); each tensor once
        (unless ``remove_duplicate=False``)."""
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # -- training helpers --------------------------------------------------------------------
    def zero_grad(self, set_to_none=True):
        """Clear every parameter's ``.grad``: set it to None, or (``set_to_none=False``) fill it with 0 in place."""
        zero_grads(self.parameters(), set_to_none)

    def train(self, mode=True):
        """Set ``training = mode`` on this module and all descendants (layers like dropout read it)."""
        if not isinstance(mode, bool):
            raise ValueError(f"training mode is expected to be a bool, got {type(mode).__name__}")
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self):
        """Same as ``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def to(self, *args, **kwargs):
        """Move (``"cpu"``, ``"cuda"``) and/or cast (``float64``) every parameter in place; returns ``self``.
        PyTorch's forms: ``to(device)``, ``to(dtype)``, ``to(device, dtype)``, ``to(tensor)`` and the keywords
        ``device=``, ``dtype=``, ``non_blocking=`` (accepted; copies here are synchronous).

        The Parameter objects stay the same, so an optimizer made before ``to`` still holds them. Buffers
        are replaced by moved tensors, and cast only when they hold floats (a count stays int64).
        """
        device, dtype, _ = to_arguments(args, kwargs, "Module.to")
        if device is not None:
            self._to(device)
        if dtype is not None:
            self._to(dtype)
        return self

    def _to(self, target, floating_only=False):
        """Move to a device, or cast to a dtype the floating and complex parameters and buffers (``floating_only``:
        the floating ones alone, as ``float()``, ``double()`` and ``half()`` do)."""
        dtype = _as_dtype(target)
        device = None if dtype is not None else backend.normalize_device(target)
        if dtype is not None and dtype.kind == "c":
            warnings.warn(f"Module.to({dtype.name}): complex parameters are new in PyTorch too, and not every "
                          f"layer takes them (here: those built from ops with complex gradients, e.g. Linear and "
                          f"the convolutions; not ReLU, whose max has no meaning for complex numbers)",
                          UserWarning, stacklevel=3)
        for p in self.parameters():
            if dtype is not None:
                if dtype == p.dtype or p.dtype.kind not in ("f" if floating_only else "fc"):
                    continue
                p._data = p.detach().to(dtype)._data   # (complex to real: the real parts, with Tensor.to's warning)
            else:
                if device == p.device:
                    continue
                host = backend.to_host(p._data)
                p._data = host.copy() if device == "cpu" else backend.asarray(host, device)
                p.device = device
            p._vc = [0]  # new memory, new version counter
            if p._grad is not None:
                p._grad = p._grad.detach().to(dtype if dtype is not None else device)
        for m in self.modules():   # buffers: new tensors (a cast only for floating ones: a count stays int64)
            for name, b in m._buffers.items():
                if b is None or (dtype is not None and b.dtype.kind not in ("f" if floating_only else "fc")):
                    continue
                moved = b.to(dtype if dtype is not None else device)
                if _placeholder(b):   # (a lazy layer's placeholder stays one, in the new dtype or place)
                    b._data, b.device = moved._data, moved.device
                else:
                    m._buffers[name] = moved
        return self

    def type(self, dst_type):
        """Cast the floating and complex parameters and buffers to ``dst_type`` (as :meth:`to` does)."""
        return self._to(dst_type)

    def cpu(self):
        return self._to("cpu")

    def cuda(self, device=None):
        return self._to("cuda" if device is None else f"cuda:{device}")

    def double(self):
        return self._to("float64", floating_only=True)

    def float(self):
        return self._to("float32", floating_only=True)

    def half(self):
        return self._to("float16", floating_only=True)

    # -- saving and loading --------------------------------------------------------------------
    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An ordered ``{name: tensor}`` of every parameter and persistent buffer, as PyTorch's: each module's
        parameters, then its buffers, then its ``_extra_state`` (if it defines ``get_extra_state``), then its
        children's, under each name a module or tensor is registered by (a shared layer appears under both
        names). The tensors are detached but share memory with the model (``keep_vars=True``: the parameters
        themselves): a training step changes them too, so keep a snapshot with ``copy.deepcopy``."""
        if args:   # (PyTorch's deprecated positional form: destination, prefix, keep_vars)
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module.state_dict"
                          " for details.", FutureWarning, stacklevel=2)
            destination, prefix, keep_vars = (list(args) + [destination, prefix, keep_vars][len(args):])[:3]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = {"version": getattr(self, "_version", 1)}
        for name, t in self._own_state():
            destination[prefix + name] = t if keep_vars or _placeholder(t) else t.detach()
        if _has_extra_state(self):
            destination[prefix + "_extra_state"] = self.get_extra_state()
        for name, child in self._modules.items():
            if child is not None:
                child.state_dict(destination=destination, prefix=f"{prefix}{name}.", keep_vars=keep_vars)
        return destination

    def _own_state(self):
        """``(name, tensor)`` of this module's own parameters and persistent buffers, in state_dict's order."""
        for name, t in self._parameters.items():
            if t is not None:
                yield name, t
        for name, t in self._buffers.items():
            if t is not None and name not in self._non_persistent:
                yield name, t

    def _state(self):
        """``(dotted.name, tensor)`` of what ``state_dict`` saves, in its order (a shared tensor under each name)."""
        for prefix, module in self.named_modules(remove_duplicate=False):
            for name, t in module._own_state():
                yield _dotted(prefix, name), t

    def _extra_states(self):
        """``(dotted.name of _extra_state, module)`` for each module that defines ``get_extra_state``."""
        for prefix, module in self.named_modules(remove_duplicate=False):
            if _has_extra_state(module):
                yield _dotted(prefix, "_extra_state"), module

    def get_extra_state(self):
        """State that is not a tensor, for ``state_dict`` to save under ``_extra_state``: override it (with
        :meth:`set_extra_state`) in a module that has some."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called: "
                           "override get_extra_state (and set_extra_state) in your module")

    def set_extra_state(self, state):
        """Restore what :meth:`get_extra_state` returned (override both together)."""
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called: "
                           "override set_extra_state (and get_extra_state) in your module")

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy values from ``state_dict`` into the parameters and buffers, in place (``assign=True``: put the
        given tensors in their places instead, as Parameters where parameters were), and hand each module's
        ``_extra_state`` to its ``set_extra_state``.

        Everything is checked before anything is copied: mis-shaped entries, and with
        ``strict=True`` missing or unexpected names, raise a RuntimeError that names them all
        and leave the model unchanged. Returns ``(missing_keys, unexpected_keys)``.
        """
        if not hasattr(state_dict, "items"):
            raise TypeError(f"load_state_dict expects a dict of name -> tensor, got {type(state_dict).__name__}")
        state_dict = self._with_state_defaults(state_dict)
        params = OrderedDict(self._state())
        extras = OrderedDict(self._extra_states())
        missing = [k for k in list(params) + list(extras) if k not in state_dict]
        unexpected = [k for k in state_dict if k not in params and k not in extras]
        problems = []
        if strict and unexpected:
            problems.append("Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected) + ".")
        if strict and missing:
            problems.append("Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ".")
        for name, p in params.items():
            if name not in state_dict:
                continue
            value = state_dict[name]
            if _placeholder(value):   # (a lazy layer's entry before its first call: only a placeholder takes it)
                if not _placeholder(p):
                    problems.append(f"{name} in the state_dict is uninitialized (a lazy layer not yet called), "
                                    f"but here it has shape {tuple(p.shape)}: call the saved model once first")
                continue
            shape = tuple(value.shape) if hasattr(value, "shape") else None
            if shape is None:
                problems.append(f"While copying the parameter named \"{name}\", expected a tensor (or array) in "
                                f"the state_dict, but got a {type(value).__name__}: wrap it with "
                                f"autogradlab.tensor(...).")
            elif _placeholder(p):    # (a lazy layer's placeholder takes the shape it is given)
                continue
            elif shape != tuple(p.shape):
                problems.append(f"size mismatch for {name}: copying a param with shape {shape} from "
                                f"checkpoint, the shape in current model is {tuple(p.shape)}.")
            elif assign and not isinstance(value, Tensor):
                problems.append(f"{name}: assign=True puts the given tensor in the model, but this is a "
                                f"{type(value).__name__}; wrap it with autogradlab.tensor(...).")
            elif not assign and not backend.writable(p._data):
                problems.append(f"{name} is read-only (an expand()ed or broadcast tensor): register a "
                                f"tensor of its own, e.g. .clone(), to load values into it.")
        if problems:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                               + "\n\t".join(problems) + "\nThe model was not changed.")
        if assign:
            self._assign(state_dict)
        for name, p in params.items():
            if name in state_dict and not assign and not _placeholder(state_dict[name]):
                value = state_dict[name]
                host = backend.to_host(value._data if isinstance(value, Tensor) else value)
                if _placeholder(p):   # (a placeholder's own state_dict entry is empty: it stays one)
                    if host.size:
                        p.materialize(Tensor._make(backend.asarray(host.copy(), p.device), False, None, p.device))
                    continue
                if isinstance(value, Tensor) and value._data is p._data:
                    continue   # (its own state_dict entry: the values are there already)
                if backend.shares_memory(p._data, host):   # (another view of the same memory: read it first)
                    host = host.copy()
                p._data[...] = backend.asarray(host, p.device, p.dtype)
                p._vc[0] += 1
        for name, module in extras.items():
            if name in state_dict:
                module.set_extra_state(state_dict[name])
        return _IncompatibleKeys(missing, unexpected)

    def _state_defaults(self, version):
        """Entries that a state_dict saved by an older ``version`` of this module (its ``_metadata``; None when
        it has none) may lack, with the values they take: none here (BatchNorm's ``num_batches_tracked``)."""
        return {}

    def _with_state_defaults(self, state_dict):
        """``state_dict``, or a copy with the entries older versions lacked filled in (the caller's is kept)."""
        metadata = getattr(state_dict, "_metadata", None) or {}
        filled = None
        for prefix, module in self.named_modules():
            for name, value in module._state_defaults(metadata.get(prefix, {}).get("version")).items():
                key = _dotted(prefix, name)
                if key not in state_dict:
                    filled = filled if filled is not None else OrderedDict(state_dict)
                    filled[key] = value
        return state_dict if filled is None else filled

    def _assign(self, state_dict):
        """``load_state_dict(assign=True)``: each given tensor takes its entry's place (a parameter's place as a
        Parameter that requires grad as the one it replaces did)."""
        for prefix, module in list(self.named_modules(remove_duplicate=False)):
            for name, old in list(module._own_state()):
                key = _dotted(prefix, name)
                if key not in state_dict or _placeholder(old) or _placeholder(state_dict[key]):
                    continue
                value = state_dict[key]
                if name in module._parameters:
                    value = value if isinstance(value, Parameter) else Parameter(value.detach(), old.requires_grad)
                    value.requires_grad_(old.requires_grad)
                    module._parameters[name] = value
                else:
                    module._buffers[name] = value

    # -- display ----------------------------------------------------------------------------------
    def extra_repr(self):
        """The text inside the parentheses of this module's repr (layers override it)."""
        return ""

    def __repr__(self):
        """``Name(extra)`` for a module without children; else, as PyTorch, each line of ``extra_repr`` and
        each ``(name): child`` on a line of its own, indented by two spaces."""
        extra = self.extra_repr()
        children = [f"({name}): {child!r}" for name, child in self._modules.items()]
        if not children and "\n" not in extra:
            return f"{type(self).__name__}({extra})"
        lines = (extra.split("\n") if extra else []) + children
        return f"{type(self).__name__}(\n  " + "\n".join(lines).replace("\n", "\n  ") + "\n)"

    def __dir__(self):
        return list(super().__dir__()) + list(self._parameters) + list(self._buffers) + list(self._modules)


_DTYPE_NAMES = {"float": "float32", "float32": "float32", "double": "float64", "float64": "float64",
                "half": "float16", "float16": "float16"}


def _as_dtype(target):
    """``target`` as a float or complex dtype, or None if it names a device; other dtypes are an error."""
    if target is None:
        return None
    if isinstance(target, str):
        if target.lower() not in _DTYPE_NAMES:
            return None
        return numpy.dtype(_DTYPE_NAMES[target.lower()])
    dtype = numpy.dtype(target)
    if dtype.kind not in "fc":
        raise TypeError(f"Module.to: only floating point or complex dtypes are allowed, got {dtype.name}")
    return dtype
