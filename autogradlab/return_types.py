"""``autogradlab.return_types``: the named tuples that ops with several results return (``x.max(1)`` gives
``values`` and ``indices``), printed as PyTorch's ``torch.return_types`` print them, a field to a line."""
from __future__ import annotations

from collections import namedtuple

__all__ = ["return_type"]


def return_type(name, fields):
    """A named tuple class called ``name`` (PyTorch's: ``max``, ``linalg_eigh``, ...) with ``fields``."""
    base = namedtuple(name, fields)

    def __repr__(self):
        return f"autogradlab.return_types.{name}(\n" + ",\n".join(f"{field}={value!r}"
                                                                  for field, value in zip(self._fields, self)) + ")"
    return type(name, (base,), {"__slots__": (), "__repr__": __repr__, "__module__": __name__})
