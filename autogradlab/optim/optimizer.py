"""``Optimizer``: the base class; holds ``param_groups`` and per-parameter ``state``.

A param group is a dict: ``{"params": [tensors...], "lr": ..., <other options>}``.
Passing a plain list of tensors makes one group; a list of dicts makes several,
each option falling back to the optimizer's defaults::

    optim.SGD([{"params": model[0].parameters(), "lr": 0.1},
               {"params": model[2].parameters()}], lr=0.01)

``step()`` updates ``p._data`` directly through the array module (``numpy`` or
``cupy``): no graph is recorded, and parameters whose ``grad`` is None are skipped.
"""
from __future__ import annotations

import functools
import numbers
from collections import OrderedDict
from collections.abc import MutableMapping

import numpy

from .. import backend
from ..ops.complex_numbers import as_pairs, from_pairs
from ..grad_mode import enable_grad
from ..graph import RemovableHandle, _add_hook
from ..tensor import Tensor, default_float, zero_grads

__all__ = ["Optimizer"]

#: hyperparameter -> (PyTorch's words in its "Invalid ..." error, what the value does)
_HYPERPARAMETERS = {
    "lr": ("learning rate", "the step size"),
    "eps": ("epsilon value", "it keeps the division finite"),
    "momentum": ("momentum value", "0 turns momentum off"),
    "weight_decay": ("weight_decay value", "0 turns it off"),
    "alpha": ("alpha value", "the square average's decay, e.g. 0.99"),
    "lr_decay": ("lr_decay value", "0 keeps lr constant"),
    "initial_accumulator_value": ("initial_accumulator_value value", "it starts a sum of squares"),
}


def _with_step_hooks(step):
    """``step`` running the optimizer's step hooks around it, as PyTorch's: each pre hook
    ``hook(optimizer, args, kwargs)`` (``args`` starting with the optimizer, as PyTorch's) may return new
    ``(args, kwargs)``; each post hook is told the same. A subclass's ``step`` calling ``super().step()``
    runs them once."""
    @functools.wraps(step)
    def hooked(*args, **kwargs):
        self = args[0]
        if self.__dict__.get("_stepping"):
            return step(*args, **kwargs)
        for hook in list(self._hooks("step_pre").values()):
            changed = hook(self, args, kwargs)
            if changed is not None:
                if not (isinstance(changed, tuple) and len(changed) == 2):
                    raise RuntimeError(f"optimizer step pre hook must return None or a tuple of (new_args, "
                                       f"new_kwargs), but got {changed!r}")
                args, kwargs = changed
        self.__dict__["_stepping"] = True
        try:
            loss = step(*args, **kwargs)
        finally:
            self.__dict__["_stepping"] = False
        for hook in list(self._hooks("step_post").values()):
            hook(self, args, kwargs)
        return loss
    return hooked


class Optimizer:
    """Base class: subclasses set defaults and implement ``step``."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "step" in cls.__dict__:   # (every optimizer's step, ours or one's own, runs the step hooks)
            cls.step = _with_step_hooks(cls.__dict__["step"])

    def _hooks(self, kind) -> OrderedDict:
        """The hooks of ``kind``, in the order they run: "step_pre", "step_post", "state_dict_pre",
        "state_dict_post", "load_state_dict_pre" or "load_state_dict_post" (PyTorch's ``register_<kind>_hook``)."""
        return self.__dict__.setdefault(f"_optimizer_{kind}_hooks", OrderedDict())

    def _register(self, kind, hook, prepend=False) -> RemovableHandle:
        hooks = self._hooks(kind)
        handle = _add_hook(hooks, hook)
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    def register_step_pre_hook(self, hook) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` before each ``step``; it may return new ``(args, kwargs)``."""
        return self._register("step_pre", hook)

    def register_step_post_hook(self, hook) -> RemovableHandle:
        """``hook(optimizer, args, kwargs)`` after each ``step``."""
        return self._register("step_post", hook)

    def register_state_dict_pre_hook(self, hook, prepend=False) -> RemovableHandle:
        """``hook(optimizer)`` before ``state_dict()`` builds its dict."""
        return self._register("state_dict_pre", hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False) -> RemovableHandle:
        """``hook(optimizer, state_dict)`` after; it may return a dict to give instead."""
        return self._register("state_dict_post", hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False) -> RemovableHandle:
        """``hook(optimizer, state_dict)`` before ``load_state_dict`` reads it; it may return a dict to read
        instead."""
        return self._register("load_state_dict_pre", hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False) -> RemovableHandle:
        """``hook(optimizer)`` after ``load_state_dict``."""
        return self._register("load_state_dict_post", hook, prepend)

    def __init__(self, params, defaults):
        self.defaults = dict(defaults)
        self._buffers = {}  # param -> {name: array or number}, what step() reads and writes (by identity)
        self.param_groups = []
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or "
                            "dicts, but got a Tensor; wrap it in a list: [t]")
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]   # (also model.named_parameters(): (name, tensor) pairs, as PyTorch takes)
        for g in groups:
            self.add_param_group(g)

    def add_param_group(self, param_group):
        """Add a dict ``{"params": ..., option: value}``; missing options take the defaults."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param group must be a dict, got {type(param_group).__name__}")
        params = param_group["params"]
        params = [params] if isinstance(params, Tensor) else list(params)
        named = [isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str) for p in params]
        if any(named) and not all(named):
            raise ValueError("all optimizer params should be with/without names. Some param names are missing: give "
                             "model.named_parameters() or model.parameters(), not a mix")
        if self.param_groups and any(named) != ("param_names" in self.param_groups[0]):
            raise ValueError("all optimizer param groups should be with/without names. cannot add param group "
                             f"{'with' if any(named) else 'without'} names to the optimizer")
        names = [name for name, _ in params] if any(named) else None
        params = [p for _, p in params] if any(named) else params
        for i, p in enumerate(params):
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but param {i} is a {type(p).__name__}")
            if not p.is_leaf:
                raise ValueError(f"can't optimize a non-leaf Tensor (param {i}, shape {tuple(p.shape)}, made by "
                                 f"{p.grad_fn.name()}); optimize the leaf it was computed from")
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        if len({id(p) for p in params}) != len(params):   # (torch warns and steps such a parameter twice)
            twice = next(i for i, p in enumerate(params) if any(q is p for q in params[:i]))
            raise ValueError(f"parameter {twice} of this group (shape {tuple(params[twice].shape)}) appears in it "
                             f"more than once; list each parameter once (set(...) loses the order: use "
                             f"list(dict.fromkeys(params)))")
        group = {"params": params} if names is None else {"params": params, "param_names": names}
        for key, default in self.defaults.items():
            group[key] = param_group.get(key, default)
        for key, value in param_group.items():
            if key not in group and key != "param_names":
                group[key] = value
        self.param_groups.append(group)

    #: True for an optimizer whose state is vectors over all its parameters (LBFGS), not arrays shaped as each
    _flat_state = False
    #: the state kept as a number (PyTorch keeps a 0-d float tensor): the step count, and a subclass's own
    _scalar_state = {"step": int}

    def state_dict(self):
        """``{"state": {index: {name: value}}, "param_groups": [{option: value, "params": [index, ...]}]}``,
        PyTorch's layout: parameters are numbered in group order, and state arrays come as Tensors (copies;
        ``step`` as a float32 0-d Tensor, as PyTorch keeps it); an optimizer of one's own (see ``_own_steps``)
        gives its state as it stored it, as PyTorch's does. Save it with the model's for a checkpoint:
        ``autogradlab.save({"model": model.state_dict(), "optimizer": opt.state_dict()}, path)``."""
        for hook in list(self._hooks("state_dict_pre").values()):
            hook(self)
        index, groups = {}, []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = [index.setdefault(id(p), len(index)) for p in group["params"]]
            groups.append(packed)
        state = {}
        for p, values in self._buffers.items():
            if not isinstance(p, Tensor):   # (an optimizer of one's own may keep state under other keys)
                state[p] = values
            elif id(p) in index:
                state[index[id(p)]] = {name: _exported(name, value, p, self) for name, value in values.items()}
        packed = {"state": state, "param_groups": groups}
        for hook in list(self._hooks("state_dict_post").values()):
            changed = hook(self, packed)
            packed = packed if changed is None else changed
        return packed

    def load_state_dict(self, state_dict):
        """Restore what :meth:`state_dict` returned: the options of each group (lr, betas, ...) and each
        parameter's state, copied and cast to the parameter's dtype and device. Everything is checked first
        (the number of groups and of parameters in each, each state's index and shapes): a state dict that
        does not fit raises ValueError naming the problem and leaves the optimizer unchanged."""
        for hook in list(self._hooks("load_state_dict_pre").values()):
            changed = hook(self, state_dict)
            state_dict = state_dict if changed is None else changed
        if not hasattr(state_dict, "get") or "state" not in state_dict or "param_groups" not in state_dict:
            raise ValueError("load_state_dict expects what optimizer.state_dict() returns, a dict with 'state' and "
                             f"'param_groups', got {type(state_dict).__name__}"
                             f"{' with keys ' + str(list(state_dict)) if hasattr(state_dict, 'keys') else ''}")
        saved_groups = list(state_dict["param_groups"])
        for i, saved in enumerate(saved_groups):
            if not hasattr(saved, "get") or not isinstance(saved.get("params"), (list, tuple)):
                raise ValueError(f"loaded state dict's param group {i} is not a dict with a 'params' list of "
                                 f"parameter numbers: {saved!r}")
        if len(saved_groups) != len(self.param_groups):
            raise ValueError(f"loaded state dict has a different number of parameter groups ({len(saved_groups)}) "
                             f"than this optimizer ({len(self.param_groups)}): build the optimizer with the same "
                             f"groups as the one that was saved")
        params = [p for group in self.param_groups for p in group["params"]]
        for i, (saved, group) in enumerate(zip(saved_groups, self.param_groups)):
            if len(saved["params"]) != len(group["params"]):
                raise ValueError(f"loaded state dict contains a parameter group that doesn't match the size of "
                                 f"optimizer's group: group {i} has {len(saved['params'])} parameters there and "
                                 f"{len(group['params'])} here")
        order = [i for saved in saved_groups for i in saved["params"]]   # saved index -> our parameter
        by_index = dict(zip(order, params))
        state = {}
        for i, values in state_dict["state"].items():
            if i not in by_index and _own_steps(self) and not isinstance(i, int):
                state[i] = values   # (an optimizer of one's own: its state under a key of its own, as it is)
                continue
            if i not in by_index:
                raise ValueError(f"loaded state dict has state for parameter {i!r}, but its groups number the "
                                 f"parameters {sorted(by_index)}")
            if not hasattr(values, "items"):
                raise ValueError(f"loaded state dict's state for parameter {i} is not a dict of name -> value: "
                                 f"{values!r}")
            p = by_index[i]
            state[p] = _imported_state(values, p, i, self)
        for saved, group in zip(saved_groups, self.param_groups):   # the saved options, ours where none saved
            own = group["params"]
            group.clear()
            group["params"] = own
            group.update((k, v) for k, v in saved.items() if k != "params")
            for key, default in self.defaults.items():
                group.setdefault(key, default)
        self._buffers = state
        for hook in list(self._hooks("load_state_dict_post").values()):
            hook(self)

    @property
    def state(self):
        """Each parameter's state as PyTorch shows it: ``optimizer.state[p]["exp_avg"]`` a Tensor over the array
        the steps update (live: ``.norm()`` now and after the next step differ), ``step`` a 0-d float Tensor.
        A parameter with no state yet gives an empty dict, as PyTorch's ``defaultdict``."""
        return _StateView(self)

    @state.setter
    def state(self, value):
        self._buffers = {p: _imported_state(values, p, i, self)
                         for i, (p, values) in enumerate(dict(value).items())}

    def __getstate__(self):
        """What copy and pickle take: not a scheduler's wrapper of ``step`` (it would step this optimizer)."""
        return {key: value for key, value in self.__dict__.items() if key not in ("step", "_opt_called", "_stepping")}

    def __setstate__(self, saved):
        if "state" in saved and "_buffers" not in saved:   # (pickled before the state was a view of _buffers)
            saved = dict(saved)
            saved["_buffers"] = saved.pop("state")
        self.__dict__.update(saved)

    def zero_grad(self, set_to_none=True):
        """Clear the gradients: ``grad = None`` (default), or fill them with 0 in place."""
        zero_grads((p for group in self.param_groups for p in group["params"]), set_to_none)

    def step(self, closure=None):
        raise NotImplementedError

    def _params_with_grad(self, group):
        """The params of ``group`` that have a gradient, as (param, param array, grad array). A complex parameter
        comes as real arrays, its memory read as (x, y) pairs: every optimizer then treats each part as a
        coordinate of its own (Adam's ``g^2`` per part, not ``g*g`` of complex numbers), as PyTorch's do through
        ``view_as_real``; the updates land in the parameter's memory."""
        for p in group["params"]:
            if p._grad is not None:
                if p._data.dtype.kind == "c":
                    yield p, _as_pairs(p._data, writable=True), _as_pairs(p._grad._data)
                else:
                    yield p, p._data, p._grad._data

    def _groups_for_step(self):
        """The groups as a step reads them, checked before it moves anything: each numeric option (lr,
        momentum, betas, ...) is a number as its default is (a mistyped ``group["lr"] = "0.1"`` must not fail
        the step half-way, with the groups before it already updated), and one held as a 1-element tensor (a
        tensor learning rate, as PyTorch allows) is read as its number."""
        groups = []
        for i, group in enumerate(self.param_groups):
            read = dict(group)
            for key, default in self.defaults.items():
                value = group.get(key)
                if isinstance(default, tuple):
                    ok = isinstance(value, (tuple, list)) and len(value) == len(default) and all(
                        _is_number(v) or _is_number_tensor(v) for v in value)
                    if ok:
                        read[key] = tuple(float(v.item()) if isinstance(v, Tensor) else v for v in value)
                elif _is_number(default) or _is_number_tensor(default):
                    ok = _is_number(value) or _is_number_tensor(value)
                    if ok and isinstance(value, Tensor):
                        read[key] = float(value.item())
                else:
                    continue
                if not ok:
                    raise TypeError(f"{type(self).__name__}.step: param group {i} has {key}={value!r} "
                                    f"({type(value).__name__}), but it must be a number like the default "
                                    f"{default!r}: set optimizer.param_groups[{i}][{key!r}] to one. Nothing was "
                                    f"updated.")
            groups.append(read)
        return groups

    @staticmethod
    def _loss_of(closure):
        """``closure()`` run with gradients on, as PyTorch's ``step`` runs it (a closure recomputes the loss
        and calls ``backward``, also when the step is called under ``no_grad``); None without a closure."""
        if closure is None:
            return None
        with enable_grad():
            return closure()

    @staticmethod
    def _switches(**given):
        """PyTorch's implementation switches (``foreach``, ``fused``, ``capturable``, ``differentiable``),
        checked as PyTorch checks them and kept in each group as PyTorch keeps them. Every step here is the
        same plain loop over the arrays, so ``foreach``, ``fused`` and ``capturable`` change nothing (the same
        numbers, as in PyTorch); ``differentiable=True``, a step that autograd records, is not available."""
        if given.get("fused") and given.get("foreach"):
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        if given.get("fused") and given.get("differentiable"):
            raise RuntimeError("`fused` does not support `differentiable`")
        if given.get("differentiable"):
            raise NotImplementedError("differentiable=True (an optimizer step that autograd records, for "
                                      "meta-learning) is not available: steps update p._data in place. Write the "
                                      "update as tensor operations yourself, e.g. p2 = p - lr * grad")
        return given

    @staticmethod
    def _check_at_least_zero(**values):
        """PyTorch's ``Invalid ... value`` ValueError for each hyperparameter below 0, with what it is for."""
        for name, value in values.items():
            if not 0.0 <= value:
                words, hint = _HYPERPARAMETERS[name]
                raise ValueError(f"Invalid {words}: {value} (must be >= 0; {hint})")

    @staticmethod
    def _direction(group, param, grad):
        """The gradient a step follows: negated with ``maximize``, plus ``weight_decay * p`` (an L2 penalty)."""
        if group["maximize"]:
            grad = -grad
        if group["weight_decay"] != 0:
            grad = grad + group["weight_decay"] * param
        return grad

    def _state_of(self, p, param, *buffers):
        """``p``'s state; at its first step ``step`` 0 and a zero array per name in ``buffers``."""
        state = self._buffers.setdefault(p, {})
        if not state:
            state["step"] = 0
            for name in buffers:
                state[name] = backend.xp_of(param).zeros_like(param)
        return state

    @staticmethod
    def _updated(p):
        p._vc[0] += 1  # the data changed in place: graphs that saved p must notice

    def __repr__(self):
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            if i:
                lines.append("")   # (a blank line between groups, as PyTorch prints them)
            lines.append(f"Parameter Group {i}")
            for key in sorted(k for k in group if k != "params"):
                lines.append(f"    {key}: {group[key]}")
        return "\n".join(lines) + "\n)"


class _StateView(MutableMapping):
    """``optimizer.state``: parameter -> :class:`_ParamState`, read through to what the steps keep; ``clear()``,
    ``del state[p]``, ``state[p] = {...}`` and ``pop`` change what the next step finds, as PyTorch's dict."""

    def __init__(self, optimizer):
        self._optimizer = optimizer

    def __getitem__(self, p):
        buffers = self._optimizer._buffers
        if p not in buffers:
            if not isinstance(p, Tensor):
                raise KeyError(p)
            buffers[p] = {}   # (PyTorch's state is a defaultdict(dict))
        if not isinstance(buffers[p], dict):   # (an optimizer of one's own may keep anything under any key)
            return buffers[p]
        return _ParamState(buffers[p], p, self._optimizer)

    def __setitem__(self, p, values):
        if _own_steps(self._optimizer):   # (as PyTorch's dict: the object itself, whatever it is)
            self._optimizer._buffers[p] = values
        else:
            self._optimizer._buffers[p] = _imported_state(values, p, 0, self._optimizer)

    def __delitem__(self, p):
        del self._optimizer._buffers[p]

    def __iter__(self):
        return iter(self._optimizer._buffers)

    def __len__(self):
        return len(self._optimizer._buffers)

    def __contains__(self, p):
        return p in self._optimizer._buffers

    def __repr__(self):
        return repr(dict(self.items()))


class _ParamState(MutableMapping):
    """One parameter's state: arrays as Tensors over the same memory (a complex parameter's as complex numbers),
    the step count and NAdam's momentum product as 0-d float Tensors; an assignment is checked and copied in.
    An optimizer of one's own (a subclass whose ``step`` is written outside this package, as for PyTorch) gets
    back exactly what it stored, as from PyTorch's plain dict: its int step count, its tensor (not a copy)."""

    def __init__(self, raw, p, optimizer):
        self._raw, self._p, self._optimizer = raw, p, optimizer

    def __getitem__(self, name):
        value = self._raw[name]
        if isinstance(value, Tensor) or _own_steps(self._optimizer) and not hasattr(value, "shape"):
            return value
        return _exported(name, value, self._p, self._optimizer, copy=False)

    def __setitem__(self, name, value):
        own = _own_steps(self._optimizer)
        self._raw[name] = value if own else _imported(name, value, self._p, 0, self._optimizer)

    def __delitem__(self, name):
        del self._raw[name]

    def __iter__(self):
        return iter(self._raw)

    def __len__(self):
        return len(self._raw)

    def __repr__(self):
        return repr(dict(self.items()))


def _own_steps(optimizer):
    """Whether ``optimizer`` steps with code of its own (a subclass of ``Optimizer`` written as for PyTorch),
    which reads and writes ``self.state`` as a plain dict, rather than with one of this package's steps over
    raw arrays (also a subclass of ``SGD``, ``Adam``, ... whose ``step`` calls ``super().step()``)."""
    kind = type(optimizer)
    own = _OWN_STEPS.get(kind)
    if own is None:
        own = _OWN_STEPS[kind] = not any("step" in k.__dict__ and k.__module__.startswith(__package__ + ".")
                                         for k in kind.__mro__ if k is not Optimizer)
    return own


_OWN_STEPS: dict = {}   # optimizer class -> _own_steps's answer (a class's steps do not change)


def _exported(name, value, p, optimizer, copy=True):
    """A state value as ``state_dict`` gives it: arrays as Tensor copies (``copy=False``: over the same memory, as
    ``optimizer.state`` shows them), the step count as PyTorch's float32 (float64 when that is the default dtype).
    A complex parameter's state, kept as (x, y) pairs while stepping, comes out complex and of the parameter's
    shape, as PyTorch's."""
    if isinstance(value, Tensor) or _own_steps(optimizer) and not hasattr(value, "shape"):
        return value   # (what an optimizer of one's own stored: as it is, as PyTorch's state_dict gives it)
    if name in optimizer._scalar_state and isinstance(value, (int, float)):
        scalar = numpy.float64 if default_float() == numpy.float64 else numpy.float32
        return Tensor._make(numpy.array(value, dtype=scalar), False, None, "cpu")
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        if p.dtype.kind == "c" and value.dtype.kind == "f" and tuple(value.shape) == tuple(p.shape) + (2,):
            value = from_pairs(value)   # (the pairs read as complex numbers again)
        return Tensor._make(value.copy() if copy else value, False, None, backend.device_of(value))
    return value


def _imported_state(values, p, index, optimizer):
    """One parameter's state ``{name: value}`` as the steps keep it (see :func:`_imported`)."""
    return {name: _imported(name, value, p, index, optimizer) for name, value in dict(values).items()}


def _imported(name, value, p, index, optimizer):
    """A state value back as ``step`` keeps it: the count as an int, arrays (Tensors, NumPy arrays, or PyTorch's
    tensors from a torch optimizer's state dict) copied and cast to ``p``'s dtype and device, after checking they
    have ``p``'s shape (unless the optimizer's state is flat: LBFGS keeps vectors over all its parameters with the
    first)."""
    if type(value).__module__.split(".")[0] == "torch" and hasattr(value, "detach"):   # (without importing torch)
        value = value.detach().cpu().numpy()
    if isinstance(value, numpy.ndarray):
        value = Tensor._make(value, False, None, "cpu")
    if not isinstance(value, Tensor):
        return value
    if _own_steps(optimizer):   # (PyTorch's rule: float tensors take p's dtype, and all p's device; any shape)
        if name == "step":
            return value.clone()
        return value.to(dtype=p.dtype if value.is_floating_point() else None, device=p.device, copy=True)
    if name in optimizer._scalar_state:
        return optimizer._scalar_state[name](value.item())
    if optimizer._flat_state:
        return backend.asarray(backend.to_host(value._data), p.device).copy()
    if tuple(value.shape) != tuple(p.shape):
        raise ValueError(f"loaded state dict has {name!r} of shape {tuple(value.shape)} for parameter {index}, "
                         f"which has shape {tuple(p.shape)} here: the model was built differently")
    data = backend.asarray(backend.to_host(value._data) if value.device != p.device else value._data, p.device)
    if p.dtype.kind == "c":   # (stepped as (x, y) pairs: see Optimizer._params_with_grad)
        return _as_pairs(data.astype(p.dtype))
    return data.astype(p.dtype) if p.dtype.kind == "f" else data.copy()


def _scalar(value):
    """A number rounded as PyTorch keeps a state number (ASGD's ``eta`` and ``mu``, NAdam's ``mu_product``):
    in a 0-d tensor of the default float dtype."""
    return float(numpy.dtype(default_float()).type(value))


def _is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _is_number_tensor(value):
    return isinstance(value, Tensor) and value.numel() == 1 and value.dtype.kind in "fiu"


def _as_pairs(a, writable=False):
    """Complex array ``a`` as a real array of shape ``a.shape + (2,)`` over the same memory."""
    pairs = as_pairs(a)
    if writable and not backend.shares_memory(pairs, a):
        raise RuntimeError("a complex parameter whose memory is not contiguous can't be updated in place: make it "
                           "with .contiguous() before giving it to the optimizer")
    return pairs
