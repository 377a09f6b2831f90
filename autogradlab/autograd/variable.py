"""``Variable``, PyTorch's deprecated wrapper, so older lab code runs. Before PyTorch 0.4 a tensor had to be
wrapped in a ``Variable`` to take part in autograd; today every tensor does, and ``Variable(t)`` is a new
tensor sharing ``t``'s memory: ``Variable(t, requires_grad=True)`` is ``t.detach().requires_grad_()``."""
from __future__ import annotations

import warnings

from ..tensor import Tensor

__all__ = ["Variable"]


class _VariableType(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor)   # (every tensor is a Variable, as in PyTorch)


class Variable(metaclass=_VariableType):
    """``Variable(data, requires_grad=False)``: a new leaf sharing ``data``'s memory (write new code with
    tensors: ``autogradlab.tensor(..., requires_grad=True)``)."""

    def __new__(cls, data, requires_grad=False, volatile=False):
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}: write "
                            f"autogradlab.tensor(data, requires_grad={requires_grad}) instead")
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with autogradlab.no_grad():` instead.",
                          UserWarning, stacklevel=2)
        out = data.detach()
        return out.requires_grad_(True) if requires_grad else out
