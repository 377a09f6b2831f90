"""``Optimizer``: the base class; holds ``param_groups`` and per-parameter ``state``.

A param group is a dict: ``{"params": [tensors...], "lr": ..., <other options>}``.
Passing a plain list of tensors makes one group; a list of dicts makes several,
each option falling back to the optimizer's defaults::

    optim.SGD([{"params": model[0].parameters(), "lr": 0.1},
               {"params": model[2].parameters()}], lr=0.01)

``step()`` updates ``p.data`` directly through the array module (``numpy`` or
``cupy``): no graph is recorded, and parameters whose ``grad`` is None are skipped.
"""
from __future__ import annotations

from ..tensor import Tensor, zero_grads

__all__ = ["Optimizer"]


class Optimizer:
    """Base class: subclasses set defaults and implement ``step``."""

    def __init__(self, params, defaults):
        self.defaults = dict(defaults)
        self.state = {}  # param -> dict of buffers (Tensors hash by identity)
        self.param_groups = []
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or "
                            "dicts, but got a Tensor; wrap it in a list: [t]")
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)

    def add_param_group(self, param_group):
        """Add a dict ``{"params": ..., option: value}``; missing options take the defaults."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param group must be a dict, got {type(param_group).__name__}")
        params = param_group["params"]
        params = [params] if isinstance(params, Tensor) else list(params)
        for i, p in enumerate(params):
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but param {i} is a {type(p).__name__}")
            if not p.is_leaf:
                raise ValueError(f"can't optimize a non-leaf Tensor (param {i}, shape {tuple(p.shape)}, made by "
                                 f"{p.grad_fn.name()}); optimize the leaf it was computed from")
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in params) or len({id(p) for p in params}) != len(params):
            raise ValueError("some parameters appear in more than one parameter group")
        group = {"params": params}
        for key, default in self.defaults.items():
            group[key] = param_group.get(key, default)
        for key, value in param_group.items():
            if key not in group:
                group[key] = value
        self.param_groups.append(group)

    def zero_grad(self, set_to_none=True):
        """Clear the gradients: ``grad = None`` (default), or fill them with 0 in place."""
        zero_grads((p for group in self.param_groups for p in group["params"]), set_to_none)

    def step(self, closure=None):
        raise NotImplementedError

    def _params_with_grad(self, group):
        """The params of ``group`` that have a gradient, as (param, param array, grad array)."""
        for p in group["params"]:
            if p._grad is not None:
                yield p, p.data, p._grad.data

    @staticmethod
    def _updated(p):
        p._vc[0] += 1  # the data changed in place: graphs that saved p must notice

    def __repr__(self):
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(k for k in group if k != "params"):
                lines.append(f"    {key}: {group[key]}")
        return "\n".join(lines) + "\n)"
