"""``torch.distributions.transforms``, every transform in one namespace (``from ...distributions.transforms
import StickBreakingTransform`` ports from torch): the base and the elementwise maps (``basic_transforms.py``),
the maps onto the simplex, Cholesky factors and positive definite matrices and the structural ones
(``more_transforms.py``), those made of others on parts of the input (``joined_transforms.py``), and the map onto
Cholesky factors of correlation matrices (``lkj.py``)."""
from __future__ import annotations

from .basic_transforms import (AbsTransform, AffineTransform, ComposeTransform, ExpTransform, PowerTransform,
                               SigmoidTransform, SoftplusTransform, TanhTransform, Transform, identity_transform)
from .joined_transforms import CatTransform, StackTransform
from .lkj import CorrCholeskyTransform
from .more_transforms import (CumulativeDistributionTransform, IndependentTransform, LowerCholeskyTransform,
                              PositiveDefiniteTransform, ReshapeTransform, SoftmaxTransform, StickBreakingTransform)

__all__ = ["Transform", "ComposeTransform", "ExpTransform", "PowerTransform", "SigmoidTransform", "TanhTransform",
           "SoftplusTransform", "AbsTransform", "AffineTransform", "identity_transform", "SoftmaxTransform",
           "StickBreakingTransform", "LowerCholeskyTransform", "ReshapeTransform", "IndependentTransform",
           "CumulativeDistributionTransform", "CorrCholeskyTransform", "PositiveDefiniteTransform", "CatTransform",
           "StackTransform"]
