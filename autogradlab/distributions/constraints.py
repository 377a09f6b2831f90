"""``torch.distributions.constraints``: the sets a parameter or a value must lie in. ``c.check(value)`` tells,
element by element (or event by event, for ``event_dim`` > 0), whether ``value`` is inside; the reprs are
PyTorch's, which the distributions' error messages quote."""
from __future__ import annotations

import numpy

from .. import linalg
from ..creation import full
from ..ops import elementwise as E
from ..ops import shape as S

__all__ = ["Constraint", "real", "positive", "nonnegative", "unit_interval", "boolean", "nonnegative_integer",
           "positive_integer", "real_vector", "simplex", "interval", "half_open_interval", "greater_than",
           "greater_than_eq", "less_than", "integer_interval", "independent", "one_hot", "lower_cholesky",
           "lower_triangular", "square", "symmetric", "positive_definite", "positive_semidefinite", "corr_cholesky",
           "multinomial", "dependent", "dependent_property", "is_dependent", "cat", "stack"]


class Constraint:
    """A set of values; ``event_dim`` dims on the right make one event, checked as a whole."""

    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__.lstrip('_')}()"


class _Real(Constraint):
    def check(self, value):
        return value == value   # (NaN is not real)


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _Bound(Constraint):
    """One bound (``lower_bound`` or ``upper_bound``) or two; ``strict`` per side."""

    def __init__(self, lower=None, upper=None, strict=(False, False), integer=False):
        self.lower_bound, self.upper_bound, self._strict, self._integer = lower, upper, strict, integer
        self.is_discrete = integer

    def check(self, value):
        inside = value == value
        if self.lower_bound is not None:
            inside = inside & ((value > self.lower_bound) if self._strict[0] else (value >= self.lower_bound))
        if self.upper_bound is not None:
            inside = inside & ((value < self.upper_bound) if self._strict[1] else (value <= self.upper_bound))
        if self._integer:
            inside = inside & (E.floor(value) == value)
        return inside

    def __repr__(self):
        strict_low, strict_high = self._strict
        if self._integer:
            name = "IntegerInterval" if self.upper_bound is not None else "IntegerGreaterThan"
        elif self.lower_bound is not None and self.upper_bound is not None:
            name = "HalfOpenInterval" if strict_high and not strict_low else "Interval"
        elif self.lower_bound is not None:
            name = "GreaterThan" if strict_low else "GreaterThanEq"
        else:
            name = "LessThan"
        bounds = [f"{side}={value}" for side, value in (("lower_bound", self.lower_bound),
                                                        ("upper_bound", self.upper_bound)) if value is not None]
        return f"{name}({', '.join(bounds)})"


class _Independent(Constraint):
    """``base`` for each element, and the last ``reinterpreted_batch_ndims`` dims taken as one event."""

    def __init__(self, base, reinterpreted_batch_ndims):
        self.base_constraint, self.reinterpreted_batch_ndims = base, reinterpreted_batch_ndims
        self.event_dim = base.event_dim + reinterpreted_batch_ndims
        self.is_discrete = base.is_discrete

    def check(self, value):
        inside = self.base_constraint.check(value)
        for _ in range(self.reinterpreted_batch_ndims):
            inside = inside.all(-1)
        return inside

    def __repr__(self):
        return f"IndependentConstraint({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value):
        return ((value == 0) | (value == 1)).all(-1) & (value.sum(-1) == 1)


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value):
        return (value >= 0).all(-1) & (E.abs(value.sum(-1) - 1) < 1e-6)


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value):
        return (value.tril() == value).reshape(*value.shape[:-2], -1).all(-1)


class _LowerCholesky(Constraint):
    """Lower-triangular matrices with a positive diagonal (Cholesky factors)."""

    event_dim = 2

    def check(self, value):
        lower = (value.tril() == value).reshape(*value.shape[:-2], -1).all(-1)
        return lower & (value.diagonal(0, -2, -1) > 0).all(-1)


class _Square(Constraint):
    """n x n matrices (decided by the shape alone)."""

    event_dim = 2

    def check(self, value):
        return full(tuple(value.shape[:-2]), value.shape[-2] == value.shape[-1], dtype="bool", device=value.device)


class _Symmetric(_Square):
    """Square matrices equal to their transpose (to 1e-6)."""

    def check(self, value):
        if value.shape[-2] != value.shape[-1]:
            return super().check(value)
        return E.isclose(value, value.mT, atol=1e-6).all(-1).all(-1)


class _PositiveSemidefinite(_Symmetric):
    """Symmetric matrices whose eigenvalues are all >= 0 (matrix by matrix: PyTorch answers with the symmetry
    check alone when any matrix of the batch is not symmetric)."""

    def check(self, value):
        if value.shape[-2] != value.shape[-1]:
            return _Square.check(self, value)
        return super().check(value) & (linalg.eigvalsh(value.detach()) >= 0).all(-1)


class _PositiveDefinite(_Symmetric):
    """Symmetric matrices whose eigenvalues are all > 0 (those with a Cholesky factor)."""

    def check(self, value):
        if value.shape[-2] != value.shape[-1]:
            return _Square.check(self, value)
        return super().check(value) & (linalg.eigvalsh(value.detach()) > 0).all(-1)


class _CorrCholesky(Constraint):
    """Cholesky factors of correlation matrices: lower triangular, positive diagonal, each row of unit length
    (to 10 n eps)."""

    event_dim = 2

    def check(self, value):
        tolerance = float(numpy.finfo(value.dtype).eps) * value.shape[-1] * 10
        unit_rows = (E.abs(linalg.vector_norm(value.detach(), dim=-1) - 1) <= tolerance).all(-1)
        return lower_cholesky.check(value) & unit_rows


class _Multinomial(Constraint):
    """Vectors of counts >= 0 summing to at most ``upper_bound``."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return (value >= 0).all(-1) & (value.sum(-1) <= self.upper_bound)


class _Dependent(Constraint):
    """A set that depends on other parameters (``Uniform``'s low is below its high): it cannot be checked alone.
    ``dependent(is_discrete=..., event_dim=...)`` makes one with those attributes."""

    def __init__(self, *, is_discrete=False, event_dim=0):
        self.is_discrete, self.event_dim = is_discrete, event_dim

    def __call__(self, *, is_discrete=None, event_dim=None):
        return _Dependent(is_discrete=self.is_discrete if is_discrete is None else is_discrete,
                          event_dim=self.event_dim if event_dim is None else event_dim)

    def check(self, value):
        raise ValueError("Cannot determine validity of dependent constraint")


class dependent_property(property, _Dependent):   # noqa: N801  (PyTorch's name)
    """A property that is also a dependent constraint, for a support computed from the parameters."""

    def __init__(self, fn=None, *, is_discrete=False, event_dim=0):
        property.__init__(self, fn)
        _Dependent.__init__(self, is_discrete=is_discrete, event_dim=event_dim)

    def __call__(self, fn):
        return dependent_property(fn, is_discrete=self.is_discrete, event_dim=self.event_dim)


class _Cat(Constraint):
    """``cseq[k]`` on the k-th block of ``lengths[k]`` entries along ``dim`` (the blocks ``cat`` would join)."""

    def __init__(self, cseq, dim=0, lengths=None):
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq, self.dim = list(cseq), dim
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.cseq)
        if len(self.lengths) != len(self.cseq):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match cseq ({len(self.cseq)})")

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        return max(c.event_dim for c in self.cseq)

    def check(self, value):
        _check_dim(self.dim, value, "value")
        starts = numpy.cumsum([0] + self.lengths[:-1]).tolist()
        return S.cat([c.check(value.narrow(self.dim, start, length))
                    for c, start, length in zip(self.cseq, starts, self.lengths)], self.dim)


class _Stack(Constraint):
    """``cseq[k]`` on the k-th slice along ``dim`` (the slices ``stack`` would join)."""

    def __init__(self, cseq, dim=0):
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq, self.dim = list(cseq), dim

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        dim = max(c.event_dim for c in self.cseq)
        return dim + 1 if self.dim + dim < 0 else dim   # (a negative dim inside the events adds one)

    def check(self, value):
        _check_dim(self.dim, value, "value")
        return S.stack([c.check(value.select(self.dim, i)) for i, c in enumerate(self.cseq)], self.dim)


def _check_dim(dim, value, name):
    if not -value.ndim <= dim < value.ndim:
        raise AssertionError(f"dim {dim} out of range for {name} with {value.ndim} dimensions")


def is_dependent(constraint):
    """Whether ``constraint`` depends on other parameters (so ``check`` cannot decide alone)."""
    return isinstance(constraint, _Dependent)


def multinomial(upper_bound):
    return _Multinomial(upper_bound)


def cat(cseq, dim=0, lengths=None):
    return _Cat(cseq, dim, lengths)


def stack(cseq, dim=0):
    return _Stack(cseq, dim)


def interval(lower_bound, upper_bound):
    return _Bound(lower_bound, upper_bound)


def half_open_interval(lower_bound, upper_bound):
    return _Bound(lower_bound, upper_bound, strict=(False, True))


def greater_than(lower_bound):
    return _Bound(lower_bound, strict=(True, False))


def greater_than_eq(lower_bound):
    return _Bound(lower_bound)


def less_than(upper_bound):
    return _Bound(upper=upper_bound, strict=(False, True))


def integer_interval(lower_bound, upper_bound):
    return _Bound(lower_bound, upper_bound, integer=True)


def independent(base_constraint, reinterpreted_batch_ndims):
    return _Independent(base_constraint, reinterpreted_batch_ndims)


real = _Real()
boolean = _Boolean()
positive = greater_than(0.0)
nonnegative = greater_than_eq(0.0)
unit_interval = interval(0.0, 1.0)
nonnegative_integer = _Bound(0, integer=True)
positive_integer = _Bound(1, integer=True)
real_vector = independent(real, 1)
simplex = _Simplex()
one_hot = _OneHot()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
square = _Square()
symmetric = _Symmetric()
positive_definite = _PositiveDefinite()
positive_semidefinite = _PositiveSemidefinite()
corr_cholesky = _CorrCholesky()
dependent = _Dependent()
