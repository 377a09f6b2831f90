"""The differentiable op library. Importing it fills :data:`REGISTRY` and attaches
the ops to :class:`Tensor`."""
from . import (composites, decompositions, elementwise, inplace, joining, linalg, log_cumsum, methods,  # noqa: F401
               rearrange, reduce, selection, searching, shape, special, special_functions, spectral, statistics)
from . import complex_numbers  # noqa: F401  (after the ops it marks as taking complex inputs)
from .registry import REGISTRY, OpDef, apply, defop  # noqa: F401

methods.attach()
