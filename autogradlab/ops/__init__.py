"""The differentiable op library. Importing it fills :data:`REGISTRY` and attaches
the ops to :class:`Tensor`."""
from . import decompositions, elementwise, inplace, linalg, methods, rearrange, reduce, selection, shape  # noqa: F401
from .registry import REGISTRY, OpDef, apply, defop  # noqa: F401

methods.attach()
