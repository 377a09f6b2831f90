"""Transforms made of other transforms, each on its own part of the input: ``CatTransform`` (blocks along a dim,
as ``cat`` joins them) and ``StackTransform`` (slices along a dim, as ``stack`` joins them). A model whose
parameter vector holds a location and a positive scale maps it with
``CatTransform([identity_transform, ExpTransform()], dim=-1, lengths=[3, 3])``."""
from __future__ import annotations

import numpy

from ..ops import shape as S
from . import constraints
from .basic_transforms import Transform, _sum_rightmost

__all__ = ["CatTransform", "StackTransform"]


def _check_size(dim, value, name, size, what):
    constraints._check_dim(dim, value, name)
    if value.shape[dim] != size:
        raise AssertionError(f"{name}.size({dim}) = {value.shape[dim]} must equal {what} {size}")


class CatTransform(Transform):
    """``tseq[k]`` on the k-th block of ``lengths[k]`` entries along ``dim``; log |det J| the blocks' log-dets
    joined along ``dim`` (or summed, where ``dim`` falls inside the events)."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        self.transforms = [t.with_cache(cache_size) for t in tseq] if cache_size else list(tseq)
        self.lengths = list(lengths) if lengths is not None else [1] * len(self.transforms)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match transforms ({len(self.transforms)})")
        self.dim = dim
        super().__init__(cache_size=cache_size)

    __eq__, __hash__ = object.__eq__, object.__hash__   # (equal only to itself, as in PyTorch)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    @property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self):
        return sum(self.lengths)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)

    def _blocks(self, value, name):
        _check_size(self.dim, value, name, self.length, "length")
        starts = numpy.cumsum([0] + self.lengths[:-1]).tolist()
        return [value.narrow(self.dim, start, length) for start, length in zip(starts, self.lengths)]

    def _call(self, x):
        return S.cat([t(block) for t, block in zip(self.transforms, self._blocks(x, "x"))], self.dim)

    def _inverse(self, y):
        return S.cat([t.inv(block) for t, block in zip(self.transforms, self._blocks(y, "y"))], self.dim)

    def log_abs_det_jacobian(self, x, y):
        parts = [_sum_rightmost(t.log_abs_det_jacobian(xb, yb), self.event_dim - t.event_dim)
                 for t, xb, yb in zip(self.transforms, self._blocks(x, "x"), self._blocks(y, "y"))]
        dim = (self.dim - x.ndim if self.dim >= 0 else self.dim) + self.event_dim
        return S.cat(parts, dim) if dim < 0 else sum(parts[1:], parts[0])


class StackTransform(Transform):
    """``tseq[k]`` on the k-th slice along ``dim``; log |det J| the slices' log-dets stacked along ``dim``."""

    def __init__(self, tseq, dim=0, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        self.transforms = [t.with_cache(cache_size) for t in tseq] if cache_size else list(tseq)
        self.dim = dim
        super().__init__(cache_size=cache_size)

    __eq__, __hash__ = object.__eq__, object.__hash__

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)

    def _slices(self, value, name):
        _check_size(self.dim, value, name, len(self.transforms), "len(transforms)")
        return [value.select(self.dim, i) for i in range(len(self.transforms))]

    def _call(self, x):
        return S.stack([t(s) for t, s in zip(self.transforms, self._slices(x, "x"))], self.dim)

    def _inverse(self, y):
        return S.stack([t.inv(s) for t, s in zip(self.transforms, self._slices(y, "y"))], self.dim)

    def log_abs_det_jacobian(self, x, y):
        return S.stack([t.log_abs_det_jacobian(xs, ys) for t, xs, ys in
                        zip(self.transforms, self._slices(x, "x"), self._slices(y, "y"))], self.dim)
