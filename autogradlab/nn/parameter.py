"""``Parameter``: a leaf tensor that a :class:`Module` registers as something to train."""
from __future__ import annotations

from ..tensor import Tensor, _check_float, tensor

__all__ = ["Parameter"]


class Parameter(Tensor):
    """A Tensor with ``requires_grad=True`` that modules collect into ``parameters()``.

    ``Parameter(t)`` wraps the data of tensor ``t`` (shared, not copied, as in PyTorch).
    Ops on a Parameter return plain Tensors; only the leaf itself is a Parameter.
    """

    __slots__ = ()

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = tensor([])
        elif not isinstance(data, Tensor):
            data = tensor(data)
        if requires_grad:
            _check_float(data.dtype, "a Parameter that requires grad must be floating point")
        p = cls._make(data._data, bool(requires_grad), None, data.device)
        p._vc = data._vc  # shares memory with ``data``, so it shares the version counter too
        return p

    def __init__(self, data=None, requires_grad=True):
        pass  # everything happened in __new__ (Tensor.__init__ would copy the data)

    def __deepcopy__(self, memo):
        """A copy (of the same class, over new memory) without ``.grad``, as PyTorch's: a copied model starts
        clean."""
        if id(self) in memo:
            return memo[id(self)]
        grad, self._grad = self._grad, None
        try:
            return Tensor.__deepcopy__(self, memo)
        finally:
            self._grad = grad

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()
