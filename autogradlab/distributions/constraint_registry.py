"""``biject_to(c)`` and ``transform_to(c)``: a transform from the unconstrained reals onto the set of constraint
``c``, so that an optimiser can move a free parameter and the model reads a valid one (a positive scale is
``transform_to(constraints.positive)(raw)``, i.e. ``exp(raw)``). ``biject_to`` gives a bijection (a density can
go through it: the log |det J| exists); ``transform_to`` any such map (the simplex takes ``softmax`` there, the
stick-breaking bijection in ``biject_to``).

    constraint                          transform
    real, real_vector                   identity
    positive, nonnegative               exp
    greater_than(a), greater_than_eq(a) a + exp(x)
    less_than(b)                        b - exp(x)
    interval(a, b), half_open_interval  a + (b - a) sigmoid(x)   (unit_interval: sigmoid)
    simplex                             stick-breaking (biject_to), softmax (transform_to)
    lower_cholesky                      LowerCholeskyTransform (transform_to)
    corr_cholesky                       CorrCholeskyTransform
    positive_(semi)definite             L L^T of a LowerCholeskyTransform (transform_to)
    cat(cs, dim, lengths), stack(cs, dim)   each part's transform, as a CatTransform / StackTransform
    independent(c, n)                   c's transform, with n dims as one event

``biject_to.register(ConstraintClass, factory)`` adds your own (``factory(constraint)`` returns a Transform)."""
from __future__ import annotations

import numbers

from . import constraints
from .joined_transforms import CatTransform, StackTransform
from .lkj import CorrCholeskyTransform
from .more_transforms import (IndependentTransform, LowerCholeskyTransform, PositiveDefiniteTransform, SoftmaxTransform,
                              StickBreakingTransform)
from .basic_transforms import AffineTransform, ComposeTransform, ExpTransform, SigmoidTransform, identity_transform

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """Constraint types -> functions that make the transform for a constraint of that type."""

    def __init__(self):
        self._registry = {}

    def register(self, constraint, factory=None):
        """``register(ConstraintClass, factory)``, or as a decorator ``@registry.register(ConstraintClass)``. A
        constraint instance registers its class."""
        if factory is None:
            return lambda factory: self.register(constraint, factory)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not isinstance(constraint, type) or not issubclass(constraint, constraints.Constraint):
            raise TypeError(f"Expected constraint to be either a Constraint subclass or instance, but got "
                            f"{constraint!r}")
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint):
        for kind in type(constraint).__mro__:
            if kind in self._registry:
                return self._registry[kind](constraint)
        raise NotImplementedError(f"Cannot transform {type(constraint).__name__} constraints ({constraint!r}): "
                                  f"register a factory with .register({type(constraint).__name__}, factory)")


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _bound(c):
    """The transform onto a bounded set (a _Bound): exp above a lower bound, below an upper one, a scaled
    sigmoid between two. Integer sets have none."""
    if c.is_discrete:
        raise NotImplementedError(f"Cannot transform {c!r}: it is a set of integers, not reached from the reals")
    low, high = c.lower_bound, c.upper_bound
    if low is not None and high is not None:
        if isinstance(low, numbers.Number) and isinstance(high, numbers.Number) and (low, high) == (0, 1):
            return SigmoidTransform()
        return ComposeTransform([SigmoidTransform(), AffineTransform(low, high - low)])
    if low is not None:
        if isinstance(low, numbers.Number) and low == 0:
            return ExpTransform()
        return ComposeTransform([ExpTransform(), AffineTransform(low, 1)])
    return ComposeTransform([ExpTransform(), AffineTransform(high, -1)])


def _independent(registry):
    def factory(c):
        return IndependentTransform(registry(c.base_constraint), c.reinterpreted_batch_ndims)
    return factory


for _registry in (biject_to, transform_to):
    _registry.register(constraints._Real, lambda c: identity_transform)
    _registry.register(constraints._Bound, _bound)
    _registry.register(constraints._Independent, _independent(_registry))
biject_to.register(constraints._Simplex, lambda c: StickBreakingTransform())
transform_to.register(constraints._Simplex, lambda c: SoftmaxTransform())
transform_to.register(constraints._LowerCholesky, lambda c: LowerCholeskyTransform())
for _registry in (biject_to, transform_to):
    _registry.register(constraints._CorrCholesky, lambda c: CorrCholeskyTransform())
transform_to.register(constraints._PositiveDefinite, lambda c: PositiveDefiniteTransform())
transform_to.register(constraints._PositiveSemidefinite, lambda c: PositiveDefiniteTransform())
biject_to.register(constraints._Cat, lambda c: CatTransform([biject_to(p) for p in c.cseq], c.dim, c.lengths))
transform_to.register(constraints._Cat, lambda c: CatTransform([transform_to(p) for p in c.cseq], c.dim, c.lengths))
biject_to.register(constraints._Stack, lambda c: StackTransform([biject_to(p) for p in c.cseq], c.dim))
transform_to.register(constraints._Stack, lambda c: StackTransform([transform_to(p) for p in c.cseq], c.dim))
