"""Generic gradient checks over ``autogradlab.ops.REGISTRY`` itself.

``CASES`` maps every registered differentiable op to one or more cases (a call
and its input builders); ``COMPOSITE_CASES`` does the same for composite and
in-place ops. Registering a differentiable op without adding a case here fails
the suite, and each case must record a node of its op. Each case runs three
checks, in float64 (one cast case starts from float32):

(a) ``gradcheck``: the engine's Jacobian against central finite differences;
(b) an inner-product test: <v, J u> from a finite difference along one random
    direction u, against <J^T v, u> from the engine (catches a wrong VJP with a
    single backward pass, and works on any output shape);
(c) ``gradgradcheck`` (cases marked ``smooth``, all but the float32 one):
    second derivatives through the VJP recorded with ``create_graph=True``. For
    piecewise-linear ops (relu, abs, max, clamp, ...) away from their kinks it
    checks that double backward runs and gives the local second derivative, 0.

Inputs avoid the points where an op is not differentiable: no ties for
max / maximum, nothing at 0 for relu / abs, nothing near a clamp bound.
Case functions take the array library ``m`` first (``autogradlab`` or
``torch``) so ``test_ops_torch.py`` runs the same table against PyTorch.
"""
from __future__ import annotations

import math
import warnings
import zlib
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes
from conftest import gamma_cdf, host, shares_memory
from strict_backend import unwrap

import autogradlab as ag
from autogradlab.autograd import grad, gradcheck, gradgradcheck
from autogradlab.ops import REGISTRY
from autogradlab.ops import elementwise as E, linalg as L, shape as S

# -- input builders: each takes a numpy Generator and returns a float64 array ---------------


def normal(*shape, scale=1.0):
    return lambda rng: rng.standard_normal(shape) * scale


def positive(*shape, lo=0.5, hi=2.0):
    return lambda rng: rng.uniform(lo, hi, shape)


def nonzero(*shape, lo=0.3, hi=2.0):
    """Values away from 0 (for relu, abs and denominators)."""
    return lambda rng: rng.choice([-1.0, 1.0], shape) * rng.uniform(lo, hi, shape)


def away_from_whole(*shape, scale=1.0):
    """Values (in units of ``scale``) a quarter away from whole and half numbers: floor, ceil, trunc and round
    are flat around them."""
    return lambda rng: (rng.integers(-3, 3, shape) + rng.choice([0.25, 0.75], shape)) * scale


def _F(m):
    return ag.nn.functional if m is ag else m.nn.functional


def _bce(m):
    return _F(m).binary_cross_entropy


def zeros_at(mask):
    """Normal values, exactly 0 where ``mask`` is 0 (prod's gradient there is the product of the others)."""
    return lambda rng: rng.standard_normal(mask.shape) * mask


def distinct(*shape):
    """No two values closer than 0.3: no ties for max / min along any dim."""
    n = math.prod(shape)
    return lambda rng: ((rng.permutation(n) - n / 2) * 0.5 + rng.uniform(-0.1, 0.1, n)).reshape(shape)


def off_grid(*shape, offset=0.25):
    """Multiples of 0.5 plus ``offset``: at least 0.25 away from any multiple of 0.5 with offset 0
    (``off_grid(offset=0.25)`` vs ``off_grid(offset=0)`` never tie, whatever the broadcasting)."""
    return lambda rng: rng.integers(-4, 4, shape) * 0.5 + offset


def away_from_bounds(*shape):
    """Values in [-0.95, 0.95], at least 0.05 away from the clamp bounds -0.5 and 0.5 used below."""
    return lambda rng: rng.integers(-10, 10, shape) * 0.1 + 0.05


@dataclass
class Case:
    """One way of calling an op: ``fn(m, *inputs)`` with one builder per differentiable input."""

    fn: Callable
    inputs: tuple
    id: str
    smooth: bool = True          # run gradgradcheck (float64 and twice differentiable at the inputs)
    torch: bool = True           # also compared with PyTorch (False: autogradlab-only API)
    dtype: str = "float64"
    eps: float = 1e-6
    atol: float = 1e-5
    torch_rtol: float = 1e-10    # the comparison with PyTorch (looser where PyTorch's own formula is approximate)

    def arrays(self, salt=""):
        rng = np.random.default_rng(zlib.crc32((self.id + salt).encode()))
        return [np.asarray(mk(rng), dtype=self.dtype) for mk in self.inputs]

    def tensors(self, salt=""):
        return tuple(ag.tensor(a, requires_grad=True) for a in self.arrays(salt))

    def __call__(self, *xs):
        return self.fn(ag, *xs)


def C(fn, *inputs, id, **kw):
    return Case(fn, inputs, id, **kw)


def _put(index):
    """``t = a * 1; t[index] = v``: a case of index_put through item assignment (PyTorch's index_put_)."""
    def fn(m, a, v):
        t = a * 1
        t[index] = v
        return t
    return fn


# constants the case functions close over (fixed, so repeated calls see the same ones)
_rng = np.random.default_rng(1234)
COND = _rng.random((2, 3)) > 0.5
COND_ROW = np.array([True, False, True])
MASK = np.array([[True, False, True], [False, False, True]])
REPEATED = [0, 2, 0, 0]
SCATTER_ROWS = np.array([[0, 2], [2, 2], [0, 1], [2, 0]])       # (scatter_reduce: rows sent to, repeats included)
SCATTER_COLUMNS = np.array([[2, 2], [0, 2]])
GATHER_ROWS = [[0, 0], [1, 3], [2, 2]]    # (a column taken twice: its gradient adds up)
ONE_ZERO = np.array([[1.0, 0.0, 1.0], [1.0, 1.0, 1.0]])    # (prod with an element at exactly 0)
TWO_ZEROS = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 1.0]])


def _inplace(method, *args):
    """``t = x * 1; t.<method>(*args); return t``: an in-place op on a non-leaf."""
    def fn(m, x, *others):
        t = x * 1
        getattr(t, method)(*(others or args))
        return t
    return fn


def _iadd(m, x, y):
    t = x * 1
    t += y
    return t


def _isub(m, x, y):
    t = x * 1
    t -= y
    return t


def _imul(m, x, y):
    t = x * 1
    t *= y
    return t


def _idiv(m, x, y):
    t = x * 1
    t /= y
    return t


def _add_alpha(m, x, y):
    t = x * 1
    t.add_(y, alpha=2)
    return t


def _fill(m, x, y):
    t = x * 1
    t.fill_(2.0)
    return t * y


def _zero(m, x, y):
    t = x * 1
    t.zero_()
    return t + y


CASES: dict[str, list[Case]] = {
    # -- elementwise arithmetic (hypothesis covers random broadcasting separately) --
    "add": [C(lambda m, a, b: a + b, normal(2, 3), normal(3), id="bcast"),
            C(lambda m, a: a + 2.5, normal(2, 3), id="scalar"),
            C(lambda m, a: 2.5 + a, normal(2, 3), id="reflected"),
            C(lambda m, a, b: a + b, normal(), normal(2, 1), id="0d")],
    "sub": [C(lambda m, a, b: a - b, normal(3, 1), normal(1, 4), id="bcast"),
            C(lambda m, a: a - 1.5, normal(4), id="scalar"),
            C(lambda m, a: 2 - a, normal(4), id="reflected")],
    "mul": [C(lambda m, a, b: a * b, normal(2, 3), normal(2, 1), id="bcast"),
            C(lambda m, a: a * 3, normal(2, 3), id="scalar"),
            C(lambda m, a: 3.0 * a, normal(2, 3), id="reflected"),
            C(lambda m, a: a * a, normal(3), id="same-input")],
    "div": [C(lambda m, a, b: a / b, normal(2, 3), nonzero(3), id="bcast"),
            C(lambda m, a: a / 4, normal(3), id="scalar"),
            C(lambda m, a: m.div(2.0, a), nonzero(3), id="number-first")],   # (2 / a: reciprocal, below)
    "pow": [C(lambda m, a, b: a ** b, positive(2, 3), normal(3), id="tensor-exponent"),
            C(lambda m, a: a ** 3, normal(2, 3), id="int-exponent"),
            C(lambda m, a: a ** 0.5, positive(4), id="sqrt"),
            C(lambda m, a: a ** -2, nonzero(4), id="negative-exponent"),
            C(lambda m, a: 2 ** a, normal(4), id="reflected"),
            C(lambda m, a, b: a.pow(b), positive(3), normal(), id="method")],
    "neg": [C(lambda m, a: -a, normal(2, 3), id="operator"),
            C(lambda m, a: a.neg(), normal(), id="0d")],
    "exp": [C(lambda m, a: a.exp(), normal(2, 3), id="method"),
            C(lambda m, a: m.exp(a), normal(), id="0d")],
    "log": [C(lambda m, a: a.log(), positive(2, 3), id="method")],
    "prod": [C(lambda m, a: a.prod(), normal(2, 3), id="all"),
             C(lambda m, a: m.prod(a, 1), normal(2, 3), id="dim"),
             C(lambda m, a: a.prod(0, keepdim=True), normal(3, 2), id="keepdim"),
             C(lambda m, a: m.prod(a), zeros_at(ONE_ZERO), id="one-zero"),
             C(lambda m, a: a.prod(1), zeros_at(ONE_ZERO), id="one-zero-per-row"),
             C(lambda m, a: a.prod(-1), zeros_at(TWO_ZEROS), id="two-zeros"),
             C(lambda m, a: a.prod(), zeros_at(TWO_ZEROS), id="all-two-zeros"),
             C(lambda m, a: m.prod(a, 0), normal(), id="0d")],
    "erf": [C(lambda m, a: a.erf(), normal(2, 3, scale=1.5), id="method"),
            C(lambda m, a: m.erf(a), normal(), id="0d")],
    "tril": [C(lambda m, a: a.tril(), normal(3, 4), id="method"),
             C(lambda m, a: m.tril(a, -1), normal(2, 3, 3), id="batched-below"),
             C(lambda m, a: m.tril(a, 2), normal(4, 2), id="above")],
    "triu": [C(lambda m, a: a.triu(), normal(3, 4), id="method"),
             C(lambda m, a: m.triu(a, 1), normal(2, 3, 3), id="batched-above"),
             C(lambda m, a: m.triu(a, -2), normal(4, 2), id="below")],
    "flip": [C(lambda m, a: a.flip(0, 1), normal(2, 3), id="method"),
             C(lambda m, a: m.flip(a, [-1]) * a, normal(2, 3, 2), id="fn"),
             C(lambda m, a: a.flip([0]), normal(), id="0d")],
    "einsum": [C(lambda m, a: m.einsum("bij->bji", a), normal(2, 3, 2), id="transpose"),
               C(lambda m, a: m.einsum("ij->j", a), normal(3, 2), id="sum"),
               C(lambda m, a: m.einsum("...ij->i", a), normal(2, 3, 2), id="ellipsis-summed")],
    "einsum2": [C(lambda m, a, b: m.einsum("ij,jk->ik", a, b), normal(2, 3), normal(3, 2), id="matmul"),
                C(lambda m, a, b: m.einsum("bhqd,bhkd->bhqk", a, b), normal(1, 2, 3, 2), normal(1, 2, 2, 2),
                  id="attention-scores"),
                C(lambda m, a, b: m.einsum("ijz,jk", a, b), normal(2, 3, 2), normal(3, 2), id="implicit-summed"),
                C(lambda m, a, b, c: m.einsum("ij,jk,kl->il", a, b, c), normal(2, 3), normal(3, 2), normal(2, 2),
                  id="three-operands")],
    "log2": [C(lambda m, a: a.log2(), positive(2, 3), id="method")],
    "log10": [C(lambda m, a: m.log10(a), positive(3), id="fn")],
    "exp2": [C(lambda m, a: a.exp2(), normal(2, 3), id="method")],
    "rsqrt": [C(lambda m, a: a.rsqrt(), positive(2, 3), id="method")],
    "tan": [C(lambda m, a: a.tan(), normal(2, 3, scale=0.5), id="method")],
    "asin": [C(lambda m, a: a.asin(), positive(2, 3, lo=-0.8, hi=0.8), id="method")],
    "acos": [C(lambda m, a: m.acos(a), positive(3, lo=-0.8, hi=0.8), id="fn")],
    "atan": [C(lambda m, a: a.atan(), normal(2, 3), id="method")],
    "atan2": [C(lambda m, a, b: m.atan2(a, b), normal(2, 3), nonzero(3), id="bcast"),
              C(lambda m, a, b: a.arctan2(b), nonzero(3), normal(3), id="method")],
    "copysign": [C(lambda m, a, b: m.copysign(a, b), nonzero(2, 3), nonzero(3), id="bcast"),
                 C(lambda m, a, b: a.copysign(b), nonzero(3), normal(3), id="method")],
    "sinh": [C(lambda m, a: a.sinh(), normal(2, 3), id="method")],
    "cosh": [C(lambda m, a: m.cosh(a), normal(3), id="fn")],
    "asinh": [C(lambda m, a: a.asinh(), normal(2, 3, scale=3.0), id="method"),
              C(lambda m, a: m.arcsinh(a), normal(3), id="arcsinh")],
    "acosh": [C(lambda m, a: m.acosh(a), positive(2, 3, lo=1.1, hi=4.0), id="fn")],
    "atanh": [C(lambda m, a: a.atanh(), positive(2, 3, lo=-0.8, hi=0.8), id="method")],
    # flat between whole numbers: a zero gradient, kept in the graph (inputs away from whole numbers and halves)
    "floor": [C(lambda m, a: a.floor() * a, away_from_whole(2, 3), id="method")],
    "ceil": [C(lambda m, a: m.ceil(a) + a, away_from_whole(3), id="fn")],
    "trunc": [C(lambda m, a: a.trunc() * a, away_from_whole(2, 3), id="method")],
    "round": [C(lambda m, a: a.round() * a, away_from_whole(2, 3), id="method"),
              C(lambda m, a: m.round(a, decimals=1) * a, away_from_whole(3, scale=0.1), id="decimals")],
    "leaky_relu": [C(lambda m, a: _F(m).leaky_relu(a, 0.2), nonzero(2, 3), id="slope")],
    "leaky_relu_backward": [C(lambda m, g, x: ag.nn.functional.leaky_relu_backward(g, x, 0.2) if m is ag
                              else m.ops.aten.leaky_relu_backward(g, x, 0.2, False), normal(2, 3), nonzero(2, 3),
                              id="fn")],
    "hardtanh": [C(lambda m, a: _F(m).hardtanh(a, -0.5, 0.6), normal(2, 3), id="bounds")],
    "hardtanh_backward": [C(lambda m, g, x: ag.nn.functional.hardtanh_backward(g, x, -0.5, 0.6) if m is ag
                            else m.ops.aten.hardtanh_backward(g, x, -0.5, 0.6), normal(2, 3), normal(2, 3),
                            id="fn")],
    "hardshrink": [C(lambda m, a: _F(m).hardshrink(a, 0.5), away_from_bounds(2, 3), id="lambd")],
    "softshrink": [C(lambda m, a: _F(m).softshrink(a, 0.5), away_from_bounds(2, 3), id="lambd")],
    "threshold": [C(lambda m, a: _F(m).threshold(a, 0.5, -2.0), away_from_bounds(2, 3), id="value")],
    "dead_zone_backward": [C(lambda m, g, x: ag.nn.functional.dead_zone_backward(g, x, -0.5, 0.5) if m is ag
                             else m.ops.aten.hardshrink_backward(g, x, 0.5), normal(2, 3), away_from_bounds(2, 3),
                             id="fn")],
    "prelu": [C(lambda m, a, w: _F(m).prelu(a, w), nonzero(2, 3, 2), normal(3), id="per-channel"),
              C(lambda m, a, w: _F(m).prelu(a, w), nonzero(4), normal(1), id="one-slope")],
    "prelu_backward": [C(lambda m, g, x, w: ag.nn.functional.prelu_backward(g, x, w) if m is ag
                         else m.ops.aten._prelu_kernel_backward(g, x, w)[0], normal(2, 3), nonzero(2, 3), normal(3),
                         id="fn")],
    "binary_cross_entropy": [C(lambda m, x, y: _bce(m)(x, y, reduction="none"), positive(2, 3, lo=0.1, hi=0.9),
                               positive(2, 3, lo=0.0, hi=1.0), id="probabilities")],
    "log1p": [C(lambda m, a: a.log1p(), positive(2, 3, lo=-0.5, hi=2.0), id="method"),
              C(lambda m, a: m.log1p(a), normal(3, scale=1e-3), id="near-0")],
    "expm1": [C(lambda m, a: a.expm1(), normal(2, 3), id="method"),
              C(lambda m, a: m.expm1(a), normal(3, scale=1e-3), id="near-0")],
    "sqrt": [C(lambda m, a: m.sqrt(a), positive(2, 3), id="fn")],
    "sin": [C(lambda m, a: a.sin(), normal(2, 3), id="method")],
    "cos": [C(lambda m, a: a.cos(), normal(2, 3), id="method")],
    "tanh": [C(lambda m, a: a.tanh(), normal(2, 3), id="method")],
    "tanh_backward": [C(lambda m, g, y: E.tanh_backward(g, y) if m is ag else m.ops.aten.tanh_backward(g, y),
                        normal(2, 3), normal(2, 3), id="fn"),
                      C(lambda m, g, y: E.tanh_backward(g, y) if m is ag else m.ops.aten.tanh_backward(g, y),
                        normal(2, 3), normal(3), id="bcast")],
    "sigmoid": [C(lambda m, a: a.sigmoid(), normal(2, 3, scale=4.0), id="method")],
    "div_floor": [C(lambda m, a, b: E.div_floor(a, b) if m is ag else m.div(a, b, rounding_mode="floor"),
                    lambda rng: rng.uniform(0.1, 0.4, (2, 3)) + rng.integers(-3, 3, (2, 3)),
                    lambda rng: rng.choice([1.5, -2.5], 3), id="fn")],
    "div_trunc": [C(lambda m, a, b: m.div(a, b, rounding_mode="trunc"),
                    lambda rng: rng.uniform(0.1, 0.4, (2, 3)) + rng.integers(-3, 3, (2, 3)),
                    lambda rng: rng.choice([1.5, -2.5], 3), id="fn")],
    "norm": [C(lambda m, a: a.norm(), normal(2, 3), id="all"),
             C(lambda m, a: m.norm(a, 2, 1, True), normal(2, 3), id="dim-keepdim"),
             C(lambda m, a: a.norm(dim=(0, 2)) * 2, normal(2, 3, 2), id="dims")],
    "cumsum": [C(lambda m, a: a.cumsum(1), normal(2, 3), id="dim1"),
               C(lambda m, a: m.cumsum(a, -3) * a, normal(4, 2, 3), id="negative-dim"),
               C(lambda m, a: a.cumsum(0), normal(), id="0d")],
    "sigmoid_backward": [C(lambda m, g, y: E.sigmoid_backward(g, y) if m is ag else m.ops.aten.sigmoid_backward(g, y),
                           normal(2, 3), positive(2, 3, lo=0.1, hi=0.9), id="fn"),
                         C(lambda m, g, y: E.sigmoid_backward(g, y) if m is ag else m.ops.aten.sigmoid_backward(g, y),
                           normal(3), positive(2, 3, lo=0.1, hi=0.9), id="bcast")],
    "relu": [C(lambda m, a: a.relu(), nonzero(2, 3), id="method")],
    "hypot": [C(lambda m, a, b: m.hypot(a, b), nonzero(2, 3), normal(3), id="bcast"),
              C(lambda m, a, b: a.hypot(b), normal(3), nonzero(3), id="method")],
    "logaddexp": [C(lambda m, a, b: m.logaddexp(a, b), normal(2, 3), normal(3, scale=3.0), id="bcast"),
                  C(lambda m, a, b: a.logaddexp(b), normal(3), normal(3), id="method")],
    # away from the jumps of fmod(a, b) (where a/b is a whole number), as remainder's
    "fmod": [C(lambda m, a, b: m.fmod(a, b), lambda rng: rng.uniform(0.1, 0.4, (2, 3)) + rng.integers(-3, 3, (2, 3)),
               lambda rng: rng.choice([1.5, -2.5], 3) + rng.uniform(-0.01, 0.01, 3), id="bcast"),
             C(lambda m, a: a.fmod(2.0), lambda rng: rng.uniform(0.1, 1.9, (3,)) + 2 * rng.integers(-2, 2, 3),
               id="number")],
    # away from the jumps of a % b (where a/b is a whole number): a in (0.1, 0.9) + k, b = 1.5 or -2.5
    "remainder": [C(lambda m, a, b: a % b, lambda rng: rng.uniform(0.1, 0.4, (2, 3)) + rng.integers(-3, 3, (2, 3)),
                    lambda rng: rng.choice([1.5, -2.5], 3) + rng.uniform(-0.01, 0.01, 3), id="operator"),
                  C(lambda m, a: m.remainder(a, 2.0), lambda rng: rng.uniform(0.1, 1.9, (3,)) + 2 * rng.integers(-2, 2, 3),
                    id="number")],
    "threshold_backward": [C(lambda m, g, y: E.threshold_backward(g, y) if m is ag
                             else m.ops.aten.threshold_backward(g, y, 0), normal(2, 3), nonzero(2, 3), id="fn"),
                           C(lambda m, g, y: E.threshold_backward(g, y) if m is ag
                             else m.ops.aten.threshold_backward(g, y, 0), normal(3), nonzero(2, 3), id="bcast")],
    "sign": [C(lambda m, a: a.sign() * a, nonzero(2, 3), id="times-input")],   # flat: derivative 0
    "std": [C(lambda m, a: a.std(), normal(3, 4), id="all"),
            C(lambda m, a: m.std(a, 1, keepdim=True), normal(3, 4), id="dim"),
            C(lambda m, a: a.std((0, 1), correction=0), normal(3, 4), id="correction0")],
    "abs": [C(lambda m, a: a.abs(), nonzero(2, 3), id="method"),
            C(lambda m, a: abs(a), nonzero(4), id="builtin")],
    "maximum": [C(lambda m, a, b: m.maximum(a, b), off_grid(2, 3), off_grid(3, offset=0.0), id="bcast"),
                C(lambda m, a, b: a.max(b), off_grid(3), off_grid(3, offset=0.0), id="max-of-tensors")],
    "minimum": [C(lambda m, a, b: m.minimum(a, b), off_grid(2, 3), off_grid(2, 1, offset=0.0), id="bcast"),
                C(lambda m, a, b: a.min(b), off_grid(3), off_grid(3, offset=0.0), id="min-of-tensors")],
    "clamp": [C(lambda m, a: a.clamp(-0.5, 0.5), away_from_bounds(3, 4), id="both"),
              C(lambda m, a: m.clamp(a, min=-0.5), away_from_bounds(3, 4), id="min"),
              C(lambda m, a: a.clamp(max=0.5), away_from_bounds(3, 4), id="max")],
    # bounds on grids apart from a's and from each other: no ties, and lo > hi happens too
    "clamp_tensor": [C(lambda m, a, lo, hi: m.clamp(a, min=lo, max=hi), off_grid(2, 3), off_grid(3, offset=0.0),
                       off_grid(2, 1, offset=0.1), id="tensor-bounds"),
                     C(lambda m, a, lo: a.clamp(min=lo), off_grid(2, 3), off_grid(3, offset=0.0), id="tensor-min"),
                     C(lambda m, a, hi: a.clamp(max=hi), off_grid(2, 3), off_grid(2, 1, offset=0.1), id="tensor-max")],
    "where": [C(lambda m, a, b: m.where(m.tensor(COND), a, b), normal(2, 3), normal(3), id="bcast"),
              C(lambda m, a: m.where(m.tensor(COND_ROW), a, 0.0), normal(2, 3), id="scalar-other"),
              C(lambda m, b: m.where(m.tensor(COND), 1.5, b), normal(2, 3), id="scalar-self")],
    # casts: float32 input (linear function, so a coarse step is exact enough)
    "to_dtype": [C(lambda m, a: a.to(m.float64) * 1.5, normal(2, 3), id="f32-to-f64", dtype="float32",
                   eps=1e-3, atol=1e-4, smooth=False)],
    "to_device": [C(lambda m, a: E.to_device(a, "cpu") * 2, normal(2, 3), id="cpu-copy", torch=False)],
    "clone": [C(lambda m, a: a.clone() * 2, normal(2, 3), id="method")],
    # -- linear algebra --
    "matmul": [C(lambda m, a, b: a @ b, normal(4), normal(4), id="1d-1d"),
               C(lambda m, a, b: a @ b, normal(3), normal(3, 2), id="1d-2d"),
               C(lambda m, a, b: a @ b, normal(2, 3), normal(3), id="2d-1d"),
               C(lambda m, a, b: a @ b, normal(2, 3), normal(3, 4), id="2d-2d"),
               C(lambda m, a, b: m.matmul(a, b), normal(2, 1, 3, 2), normal(3, 2, 2), id="batched-bcast"),
               C(lambda m, a, b: a @ b, normal(3), normal(2, 3, 2), id="1d-batched"),
               C(lambda m, a, b: a.matmul(b), normal(2, 2, 3), normal(3), id="batched-1d"),
               # what matmul's VJP records: one product with transposed operands (torch: a transpose, then @)
               C(lambda m, a, b: L.transposed_matmul(a, b, True, False) if m is ag else a.mT @ b,
                 normal(3, 2), normal(3, 4), id="transposed-a"),
               C(lambda m, a, b: L.transposed_matmul(a, b, False, True) if m is ag else a @ b.mT,
                 normal(2, 3), normal(4, 3), id="transposed-b"),
               C(lambda m, a, b: L.transposed_matmul(a, b, True, True) if m is ag else a.mT @ b.mT,
                 normal(2, 3, 2), normal(4, 3), id="transposed-both-batched")],
    "dot": [C(lambda m, a, b: m.dot(a, b), normal(4), normal(4), id="fn"),
            C(lambda m, a, b: a.dot(b), normal(3), normal(3), id="method")],
    # -- reductions --
    "sum": [C(lambda m, a: a.sum(), normal(2, 3), id="all"),
            C(lambda m, a: a.sum(1), normal(2, 3), id="dim"),
            C(lambda m, a: a.sum((0, 2), keepdim=True), normal(2, 3, 2), id="dims-keepdim"),
            C(lambda m, a: m.sum(a, -1), normal(2, 3), id="negative-dim"),
            C(lambda m, a: a.sum(0), normal(), id="0d")],
    "mean": [C(lambda m, a: a.mean(), normal(2, 3), id="all"),
             C(lambda m, a: a.mean(0), normal(2, 3), id="dim"),
             C(lambda m, a: a.mean((1, 2), keepdim=True), normal(2, 3, 2), id="dims-keepdim")],
    "amax": [C(lambda m, a: a.amax(1), distinct(2, 3), id="dim"),
             C(lambda m, a: a.amax((0, 2), keepdim=True), distinct(2, 3, 2), id="dims-keepdim"),
             C(lambda m, a: m.amax(a), distinct(2, 3), id="all")],
    "amin": [C(lambda m, a: a.amin(0), distinct(2, 3), id="dim"),
             C(lambda m, a: m.amin(a), distinct(2, 3), id="all")],
    "max": [C(lambda m, a: a.max(), distinct(2, 3), id="all"), C(lambda m, a: m.max(a), distinct(4), id="function")],
    "min": [C(lambda m, a: a.min(), distinct(2, 3), id="all"), C(lambda m, a: m.min(a), normal(), id="0d")],
    "max_dim": [C(lambda m, a: a.max(1).values, distinct(3, 4), id="dim"),
                C(lambda m, a: m.max(a, 0, keepdim=True)[0], distinct(3, 4), id="keepdim"),
                C(lambda m, a: a.max(0).values, normal(), id="0d")],
    "min_dim": [C(lambda m, a: a.min(-1, keepdim=True).values, distinct(3, 4), id="keepdim"),
                C(lambda m, a: m.min(a, 1)[0] * 2, distinct(2, 3, 2), id="3d")],
    "var": [C(lambda m, a: a.var(), normal(3, 4), id="all"),
            C(lambda m, a: a.var(1), normal(3, 4), id="dim"),
            C(lambda m, a: m.var(a, 0, correction=0, keepdim=True), normal(3, 4), id="correction0"),
            C(lambda m, a: a.var((0, 1), unbiased=False), normal(3, 4), id="unbiased-false")],
    "logsumexp": [C(lambda m, a: a.logsumexp(1), normal(2, 3), id="dim"),
                  C(lambda m, a: m.logsumexp(a, (0, 1), keepdim=True), normal(2, 3), id="dims-keepdim"),
                  C(lambda m, a: a.logsumexp(0), normal(3, 2, scale=30.0), id="large-values")],
    "frexp_mantissa": [C(lambda m, a: m.frexp(a * 3).mantissa, nonzero(2, 3), id="frexp", smooth=False)],
    "logcumsumexp": [C(lambda m, a: a.logcumsumexp(1), normal(2, 5), id="dim1"),
                     C(lambda m, a: m.logcumsumexp(a, -3) * a, normal(4, 2, 3, scale=30.0), id="negative-dim-large"),
                     C(lambda m, a: m.logcumsumexp(a, 0), normal(), id="0d")],
    "softmax": [C(lambda m, a: a.softmax(1), normal(2, 3), id="dim1"),
                C(lambda m, a: m.softmax(a, 0), normal(3, 2), id="dim0"),
                C(lambda m, a: a.softmax(-1), normal(2, 4, scale=20.0), id="large-values")],
    "log_softmax": [C(lambda m, a: a.log_softmax(-1), normal(2, 3), id="dim-1"),
                    C(lambda m, a: m.log_softmax(a, 0), normal(3, 2), id="dim0")],
    # -- shape ops --
    "reshape": [C(lambda m, a: a.reshape(3, -1) * 2, normal(2, 3, 2), id="infer"),
                C(lambda m, a: a.reshape((6,)) @ a.reshape(6), normal(2, 3), id="tuple")],
    "transpose": [C(lambda m, a: a.transpose(0, 2), normal(2, 3, 4), id="dims"),
                  C(lambda m, a: a.mT @ a, normal(2, 3, 2), id="mT"),
                  C(lambda m, a: a.transpose(-1, 0) * 2, normal(2, 3, 4), id="negative-dims")],
    "permute": [C(lambda m, a: a.permute(2, 0, 1), normal(2, 3, 4), id="dims"),
                C(lambda m, a: a.permute((1, 0)) * 2, normal(2, 3), id="tuple"),
                C(lambda m, a: a.T @ a, normal(3, 2), id="T")],
    "expand": [C(lambda m, a: a.expand(2, 3, 4) * 2, normal(3, 1), id="sizes"),
               C(lambda m, a: a.expand(-1, 4), normal(3, 1), id="minus-one"),
               C(lambda m, a: a.broadcast_to((2, 3)), normal(3), id="broadcast_to"),
               C(lambda m, a: a.expand(2, 4, 3) * a, normal(4, 3), id="leading-dims")],
    "sum_to_size": [C(lambda m, a: a.sum_to_size(3, 1), normal(2, 3, 4), id="sizes"),
                    C(lambda m, a: a.sum_to_size((1, 4)), normal(3, 4), id="tuple")],
    "getitem": [C(lambda m, a: a[1:, ::2], normal(3, 4), id="slices"),
                C(lambda m, a: a[0], normal(3, 4), id="int"),
                C(lambda m, a: a[..., None, 1], normal(2, 3, 4), id="ellipsis-newaxis"),
                C(lambda m, a: a[:, -1], normal(3, 4), id="negative-int"),
                C(lambda m, a: a[1, 2], normal(3, 4), id="element")],
    "index": [C(lambda m, a: a[REPEATED], normal(3, 2), id="repeated"),
              C(lambda m, a: a[m.tensor(MASK)], normal(2, 3), id="bool-mask"),
              C(lambda m, a: a[[0, 0, 1], [2, 2, 0]], normal(2, 3), id="two-arrays"),
              C(lambda m, a: a[:, [1, 1, 0]], normal(2, 3), id="slice-and-array"),
              C(lambda m, a: a[m.tensor([2, 2])] * 3, normal(3), id="int-tensor")],
    # t[index] = v with array indices, into a copy of a (the leaf itself cannot be written in place)
    "index_put": [C(_put([0, 2]), normal(3, 2), normal(2, 2), id="list"),
                  C(_put([1, 2]), normal(3, 2), normal(), id="broadcast-0d"),
                  C(lambda m, a, v: _put(m.tensor(MASK))(m, a, v), normal(2, 3), normal(1), id="bool-mask"),
                  C(_put((slice(None), [2, 0])), normal(2, 3), normal(2, 2), id="slice-and-array"),
                  C(lambda m, a, v: S.index_put(a, ([0, 2],), v) if m is ag else m.index_put(a, (m.tensor([0, 2]),), v),
                    normal(3), normal(2), id="fn")],
    "scatter_extreme": [C(lambda m, a, s: a.scatter_reduce(0, m.tensor(SCATTER_ROWS), s, reduce="amax"), normal(3, 2),
                          normal(4, 2), id="amax"),
                        C(lambda m, a, s: a.scatter_reduce(1, m.tensor(SCATTER_COLUMNS), s, reduce="amin",
                                                           include_self=False), normal(2, 3), normal(2, 2),
                          id="amin-without-self")],
    "scatter_prod": [C(lambda m, a, s: a.scatter_reduce(0, m.tensor(SCATTER_ROWS), s, reduce="prod"), normal(3, 2),
                       normal(4, 2), id="prod"),
                     C(lambda m, a, s: a.scatter_reduce(1, m.tensor(SCATTER_COLUMNS), s, reduce="prod",
                                                        include_self=False), normal(2, 3), normal(2, 2),
                       id="prod-without-self")],
    "index_add_into": [C(lambda m, g: S.index_add_into(g, (3, 2), (np.array(REPEATED),)), normal(4, 2),
                         id="repeated", torch=False),
                       C(lambda m, g: S.index_add_into(g, (4, 3), (slice(1, 3),)), normal(2, 3), id="slice",
                         torch=False)],
    "cat": [C(lambda m, a, b: m.cat([a, b], 1), normal(2, 3), normal(2, 1), id="dim1"),
            C(lambda m, a, b, c: m.cat((a, b, c)), normal(1, 2), normal(2, 2), normal(3, 2), id="three"),
            C(lambda m, a, b: m.cat([a, b], -1), normal(2, 2), normal(2, 3), id="negative-dim")],
    "stack": [C(lambda m, a, b, c: m.stack([a, b, c], 1), normal(2, 3), normal(2, 3), normal(2, 3), id="dim1"),
              C(lambda m, a, b: m.stack((a, b)), normal(3), normal(3), id="dim0"),
              C(lambda m, a, b: m.stack([a, b], -1), normal(2), normal(2), id="negative-dim")],
}

# composite ops (no node of their own) and in-place ops: checked the same way
COMPOSITE_CASES: dict[str, list[Case]] = {
    "flatten": [C(lambda m, a: a.flatten(), normal(2, 3, 2), id="all"),
                C(lambda m, a: a.flatten(1), normal(2, 3, 2), id="start"),
                C(lambda m, a: m.flatten(a, 0, 1), normal(2, 3, 2), id="range")],
    "view": [C(lambda m, a: a.view(2, 6), normal(3, 4), id="sizes")],
    "squeeze": [C(lambda m, a: a.squeeze() * 2, normal(3, 1, 2), id="all"),
                C(lambda m, a: a.squeeze(1), normal(3, 1, 2), id="dim")],
    "unsqueeze": [C(lambda m, a: a.unsqueeze(1), normal(3, 2), id="dim"),
                  C(lambda m, a: m.unsqueeze(a, -1), normal(3, 2), id="negative-dim")],
    "split": [C(lambda m, a: a.split(2, 1), normal(2, 5), id="size"),
              C(lambda m, a: m.split(a, [1, 3], 0), normal(4, 2), id="sections")],
    "chunk": [C(lambda m, a: a.chunk(3, 1), normal(2, 7), id="uneven"),
              C(lambda m, a: m.chunk(a, 2), normal(4, 2), id="dim0")],
    "unbind": [C(lambda m, a: a.unbind(1), normal(2, 3), id="dim1"),
               C(lambda m, a: m.unbind(a), normal(3, 2), id="dim0")],
    "gather": [C(lambda m, a: a.gather(1, m.tensor(GATHER_ROWS)), normal(3, 4), id="dim1-repeats"),
               C(lambda m, a: m.gather(a, 0, m.tensor([[2, 0, 1, 2]])), normal(3, 4), id="dim0"),
               C(lambda m, a: m.gather(a, -1, m.tensor([[1], [0]])) * a[:2, :1], normal(3, 4), id="smaller")],
    "square": [C(lambda m, a: a.square(), normal(2, 3), id="method"),
               C(lambda m, a: m.square(a) * a, normal(3), id="fn")],
    "t": [C(lambda m, a: a.t(), normal(2, 3), id="2d"),
          C(lambda m, a: m.t(a) * 2, normal(3), id="1d")],
    "mm": [C(lambda m, a, b: m.mm(a, b), normal(2, 3), normal(3, 4), id="fn"),
           C(lambda m, a, b: a.mm(b), normal(1, 2), normal(2, 2), id="method")],
    "mv": [C(lambda m, a, v: m.mv(a, v), normal(2, 3), normal(3), id="fn")],
    "bmm": [C(lambda m, a, b: m.bmm(a, b), normal(2, 2, 3), normal(2, 3, 1), id="fn")],
    "float-conversions": [C(lambda m, a: a.double() * 1.5, normal(2, 3), id="double", dtype="float32", eps=1e-3,
                            atol=1e-4, smooth=False),
                          C(lambda m, a: a.double().float().double() * a.double(), normal(3), id="float-double",
                            dtype="float32", eps=1e-3, atol=1e-3, smooth=False)],
    "outer": [C(lambda m, a, b: m.outer(a, b), normal(3), normal(4), id="fn"),
              C(lambda m, a, b: a.outer(b), normal(2), normal(3), id="method")],
    "masked_fill": [C(lambda m, a, v: a.masked_fill(m.tensor(MASK), v), normal(2, 3), normal(), id="0d-value"),
                    C(lambda m, a: m.masked_fill(a, m.tensor(MASK[0]), -1.5), normal(2, 3), id="number-broadcast")],
    "inplace": [C(_iadd, normal(2, 3), normal(3), id="iadd"),
                C(_isub, normal(2, 3), normal(2, 1), id="isub"),
                C(_imul, normal(2, 3), normal(3), id="imul"),
                C(_idiv, normal(2, 3), nonzero(3), id="idiv"),
                C(_inplace("add_"), normal(2, 3), normal(3), id="add_"),
                C(_add_alpha, normal(3), normal(3), id="add_-alpha"),
                C(_inplace("sub_"), normal(2, 3), normal(2, 3), id="sub_"),
                C(_inplace("mul_"), normal(2, 3), normal(3), id="mul_"),
                C(_inplace("div_"), normal(2, 3), nonzero(2, 3), id="div_"),
                C(_inplace("mul_", 3.0), normal(2, 3), id="mul_-number"),
                C(_inplace("clamp_", -0.5, 0.5), away_from_bounds(3, 4), id="clamp_"),
                C(lambda m, x, v: (x * 1).fill_(v) * x, normal(3), normal(), id="fill_-0d-tensor"),
                C(lambda m, x, v: (x * 1).masked_fill_(m.tensor(MASK[1]), v) * x, normal(3), normal(),
                  id="masked_fill_")],
}
def _inplace_on_view(m, x, y):
    t = x * 1
    t[1:].transpose(0, 1).mul_(y)      # CopySlices: t becomes x with the view's region times y
    return t * t


CASES["diagonal"] = [C(lambda m, a: m.diagonal(a), normal(3, 3), id="main"),
                    C(lambda m, a: a.diagonal(-1, 2, 0) * 2, normal(3, 2, 4), id="offset-dims"),
                    C(lambda m, a: m.diagonal(a, 5), normal(2, 3), id="empty")]
CASES["copy_slices"] = [C(_inplace_on_view, normal(3, 2), normal(2, 1), id="view-mul_")]
# (smooth=False: the old value's gradient is a constant 0 with no history, so no second-order check)
CASES["fill"] = [C(_fill, normal(2, 3), normal(2, 3), id="fill_", smooth=False),
                 C(_zero, normal(2, 3), normal(2, 3), id="zero_", smooth=False)]

def _copy_all(m, x, v):
    t = x * 1
    t[...] = v * x[0]                  # all of t: copied into t itself (CopyBackward), v broadcast to each row
    return t * t


CASES["reciprocal"] = [C(lambda m, a: m.reciprocal(a), nonzero(2, 3), id="function"),
                       C(lambda m, a: 2.5 / a, nonzero(3), id="number-over-tensor")]
CASES["copy"] = [C(_copy_all, normal(2, 3), normal(3), id="setitem-all"),
                 C(lambda m, x, v: (x * 1).fill_(v) * x, normal(3), normal(), id="fill_-0d-tensor")]

# matrix functions (autogradlab.linalg): well-conditioned inputs; symmetric positive-definite ones built in the
# case; losses of singular and eigen vectors that do not see their signs
def well_conditioned(*shape):
    return lambda rng: rng.standard_normal(shape) + 2.0 * np.eye(shape[-1])


def _spd(m, a):
    return a @ a.mT + m.eye(a.shape[-1], dtype=a.dtype)


# complex numbers, between real inputs and real outputs (tests/test_complex.py checks complex ones against torch)
CASES["complex"] = [C(lambda m, a, b: m.view_as_real(m.complex(a, b)), normal(2, 3), normal(3), id="bcast")]
CASES["view_as_real"] = [C(lambda m, a, b: m.view_as_real(m.complex(a, b) * m.complex(b, a)), normal(3), normal(3),
                           id="of-product")]
CASES["view_as_complex"] = [C(lambda m, a: m.view_as_real(m.view_as_complex(a) * m.view_as_complex(a)),
                              normal(3, 2), id="square")]
CASES["conj"] = [C(lambda m, a, b: m.view_as_real(m.conj(m.complex(a, b)) * m.complex(a, b)), normal(3),
                   normal(3), id="times-self")]
CASES["real"] = [C(lambda m, a, b: (m.complex(a, b) * m.complex(b, a)).real, normal(3), normal(3), id="property")]
CASES["imag"] = [C(lambda m, a, b: (m.complex(a, b) * m.complex(b, a)).imag, normal(3), normal(3), id="property")]
CASES["fft"] = [C(lambda m, a: m.view_as_real(m.fft.fft(a, norm="ortho")), normal(2, 5), id="real-in"),
                C(lambda m, a: m.fft.irfft(m.fft.rfft(a) * m.fft.rfft(a)), normal(6), id="rfft-irfft")]
CASES["angle"] = [C(lambda m, a, b: m.angle(m.complex(a, b)), nonzero(3), nonzero(3), id="complex")]
CASES["inv"] = [C(lambda m, a: m.linalg.inv(a), well_conditioned(2, 3, 3), id="batched")]
CASES["matrix_exp"] = [C(lambda m, a: m.linalg.matrix_exp(a), normal(2, 3, 3), id="batched"),
                       C(lambda m, a: a.matrix_exp(), normal(4, 4, scale=2.0), id="method-scaled")]
CASES["det"] = [C(lambda m, a: m.linalg.det(a), well_conditioned(3, 3), id="matrix")]
CASES["logabsdet"] = [C(lambda m, a: m.linalg.slogdet(a)[1], well_conditioned(2, 3, 3), id="batched")]
CASES["solve"] = [C(lambda m, a, b: m.linalg.solve(a, b), well_conditioned(3, 3), normal(3, 2), id="matrix-rhs"),
                  C(lambda m, a, b: m.linalg.solve(a, b), well_conditioned(2, 3, 3), normal(2, 3), id="vector-rhs")]
CASES["cholesky"] = [C(lambda m, a: m.linalg.cholesky(_spd(m, a)), normal(2, 3, 3), id="spd")]
CASES["eigvalsh"] = [C(lambda m, a: m.linalg.eigvalsh(_spd(m, a)), normal(3, 3), id="spd")]
CASES["eigenvectors"] = [C(lambda m, a: m.linalg.eigh(_spd(m, a))[1] ** 2, normal(3, 3), id="spd-squared")]
CASES["svdvals"] = [C(lambda m, a: m.linalg.svdvals(a), normal(2, 4, 3), id="tall")]
CASES["det_sign"] = [C(lambda m, a, b: m.view_as_real(m.linalg.slogdet(m.complex(a, b))[0]), well_conditioned(2, 3, 3),
                       normal(2, 3, 3, scale=0.3), id="complex")]
CASES["eigvals"] = [C(lambda m, a: m.view_as_real(m.linalg.eigvals(a)), well_conditioned(2, 3, 3), id="real-matrix"),
                    C(lambda m, a, b: m.view_as_real(m.linalg.eigvals(m.complex(a, b))), well_conditioned(3, 3),
                      normal(3, 3, scale=0.3), id="complex-matrix")]
CASES["eig_vectors"] = [C(lambda m, a: m.linalg.eig(a)[1].abs(), well_conditioned(3, 3), id="real-matrix-abs")]
# (torch=False: PyTorch's Bessel functions have no gradient, and its J_0 and J_1 are off by up to 3e-7;
# tests/test_bessel_vs_torch.py compares the values with both it and mpmath)
CASES["bessel_j0"] = [C(lambda m, a: m.special.bessel_j0(a), normal(2, 3, scale=4.0), id="normal", torch=False)]
CASES["bessel_j1"] = [C(lambda m, a: m.special.bessel_j1(a), normal(2, 3, scale=4.0), id="normal", torch=False)]
CASES["bessel_y0"] = [C(lambda m, a: m.special.bessel_y0(a), positive(2, 3, lo=0.3, hi=30.0), id="positive", torch=False)]
CASES["bessel_y1"] = [C(lambda m, a: m.special.bessel_y1(a), positive(2, 3, lo=0.3, hi=30.0), id="positive", torch=False)]
CASES["modified_bessel_k0"] = [C(lambda m, a: m.special.modified_bessel_k0(a), positive(2, 3, lo=0.3, hi=5.0), id="positive", torch=False)]
CASES["modified_bessel_k1"] = [C(lambda m, a: m.special.modified_bessel_k1(a), positive(2, 3, lo=0.3, hi=5.0), id="positive", torch=False)]
CASES["scaled_modified_bessel_k0"] = [C(lambda m, a: m.special.scaled_modified_bessel_k0(a),
                                        positive(2, 3, lo=0.3, hi=9.0), id="positive", torch=False)]
CASES["scaled_modified_bessel_k1"] = [C(lambda m, a: m.special.scaled_modified_bessel_k1(a),
                                        positive(2, 3, lo=0.3, hi=9.0), id="positive", torch=False)]
CASES["spherical_bessel_j0"] = [C(lambda m, a: m.special.spherical_bessel_j0(a), normal(2, 3, scale=5.0), id="normal",
                                  torch=False),
                                C(lambda m, a: m.special.spherical_bessel_j0(a * 1e-4), normal(3), id="near-0",
                                  torch=False)]
CASES["lu_factor"] = [C(lambda m, a: m.linalg.lu_factor(a)[0], well_conditioned(2, 3, 3), id="square"),
                      C(lambda m, a: m.linalg.lu_factor(a)[0], normal(2, 4), id="wide"),
                      C(lambda m, a: m.linalg.lu_factor(a)[0], normal(4, 2), id="tall")]
CASES["svd_vectors"] = [C(lambda m, a: m.linalg.svd(a, full_matrices=False)[0] ** 2, normal(4, 3), id="tall-U-squared"),
                        C(lambda m, a: m.linalg.svd(a, full_matrices=False)[2] ** 2, normal(3, 4), id="wide-Vh-squared"),
                        C(lambda m, a: (lambda u, s, vh: (u * s.unsqueeze(-2)) @ vh)(*m.linalg.svd(a)), normal(2, 3, 3), id="U-S-Vh")]
CASES["qr_q"] = [C(lambda m, a: m.linalg.qr(a)[0], normal(4, 3), id="tall")]
CASES["xlogy"] = [C(lambda m, a, b: m.xlogy(a, b), normal(2, 3), positive(3), id="broadcast"),
                  C(lambda m, a, b: a.xlogy(b), normal(3), positive(2, 1), id="method")]
CASES["xlog1py"] = [C(lambda m, a, b: m.special.xlog1py(a, b), normal(2, 3), positive(3, lo=-0.5, hi=2.0),
                       id="broadcast")]
CASES["entr"] = [C(lambda m, a: m.special.entr(a), positive(2, 3, lo=0.1, hi=3.0), id="positive")]
CASES["lgamma"] = [C(lambda m, a: m.lgamma(a), positive(2, 3, lo=0.2, hi=6.0), id="positive"),
                   C(lambda m, a: a.lgamma(), away_from_whole(4), id="method-negative")]
CASES["digamma"] = [C(lambda m, a: m.special.psi(a), positive(2, 3, lo=0.2, hi=12.0), id="positive", torch_rtol=1e-8),
                    C(lambda m, a: a.digamma(), away_from_whole(4), id="method-negative", torch_rtol=1e-8)]
# (torch_rtol: PyTorch's trigamma, digamma's derivative, is a short series good to about 5e-10; ours agrees with
# the sum of 1/(x + k)^2 to the last digit: tests/test_special_functions_vs_torch.py)
CASES["polygamma"] = [C(lambda m, a: m.polygamma(1, a), positive(2, 3, lo=0.3, hi=15.0), id="trigamma",
                        torch_rtol=1e-8),
                      C(lambda m, a: a.polygamma(3), away_from_whole(4), id="method-negative")]
CASES["mvlgamma"] = [C(lambda m, a: m.mvlgamma(a, 3), positive(2, 3, lo=1.6, hi=5.0), id="p3"),
                     C(lambda m, a: m.special.multigammaln(a, 1), positive(3, lo=0.2, hi=4.0), id="p1")]
CASES["zeta"] = [C(lambda m, q: m.special.zeta(2.5, q), positive(2, 3, lo=0.2, hi=14.0), id="number-x"),
                 C(lambda m, q: m.special.zeta(m.full_like(q, 3.0), q), away_from_whole(4), id="tensor-x-negative-q")]
CASES["erfc"] = [C(lambda m, a: m.erfc(a), normal(2, 3, scale=1.5), id="values")]
CASES["erfcx"] = [C(lambda m, a: m.special.erfcx(a), normal(2, 3, scale=3.0), id="values")]
CASES["erfinv"] = [C(lambda m, a: a.erfinv(), positive(2, 3, lo=-0.95, hi=0.95), id="method")]
CASES["ndtri"] = [C(lambda m, a: m.special.ndtri(a), positive(2, 3, lo=0.02, hi=0.98), id="values")]
CASES["log_ndtr"] = [C(lambda m, a: m.special.log_ndtr(a), normal(2, 3, scale=4.0), id="values")]
CASES["i0"] = [C(lambda m, a: m.i0(a), normal(2, 3, scale=3.0), id="values")]
CASES["i1"] = [C(lambda m, a: m.special.i1(a), normal(2, 3, scale=3.0), id="values")]
CASES["i0e"] = [C(lambda m, a: m.special.i0e(a), nonzero(2, 3, lo=0.3, hi=45.0), id="both-series")]
CASES["i1e"] = [C(lambda m, a: m.special.i1e(a), nonzero(2, 3, lo=0.3, hi=45.0), id="both-series")]
def _gamma_draw_at_fixed_cdf(m, a):
    """Gamma(a, 1) draws at fixed CDF levels u, x(a) = P^-1(a, u) by bisection, handed to ``standard_gamma_draw``:
    finite differences of x(a) then check the op's implicit gradient dx/da = -(dP/da) / (dP/dx)."""
    from autogradlab.ops.special_functions import standard_gamma_draw
    alpha = host(a.detach().data).ravel()
    levels = np.linspace(0.15, 0.85, alpha.size)
    draws = []
    for al, u in zip(alpha, levels):
        lo, hi = 0.0, al + 40.0
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if mid > 0 and gamma_cdf(al, mid) < u else (lo, mid)
        draws.append(0.5 * (lo + hi))
    return standard_gamma_draw(a, ag.tensor(np.array(draws).reshape(tuple(a.shape)), device=a.device))


CASES["gammainc"] = [C(lambda m, x: m.special.gammainc(m.full_like(x, 2.5), x), positive(2, 3, lo=0.2, hi=6.0),
                       id="lower"),
                     C(lambda m, x: m.special.gammaincc(m.full_like(x, 0.7), x), positive(4, lo=0.5, hi=9.0),
                       id="upper")]
CASES["standard_gamma"] = [C(_gamma_draw_at_fixed_cdf, positive(2, 3, lo=0.4, hi=5.0), id="fixed-cdf", torch=False,
                            smooth=False)]
CASES["logit"] = [C(lambda m, a: m.logit(m.sigmoid(a)), normal(2, 3), id="inside"),
                  C(lambda m, a: m.logit(m.sigmoid(a) * 0.8 + 0.1, eps=0.05), normal(3), id="eps")]
CASES["sinc"] = [C(lambda m, a: m.sinc(a), normal(2, 3), id="values"), C(lambda m, a: a.sinc(), normal(4), id="method")]
CASES["pinv"] = [C(lambda m, a: m.linalg.pinv(a), normal(2, 3, 4), id="wide-batched"),
                 C(lambda m, a: m.linalg.pinv(a @ a.mT, hermitian=True), normal(3, 3), id="hermitian"),
                 C(lambda m, a: m.pinverse(a), normal(4, 2), id="tall-pinverse")]
CASES["qr_r"] = [C(lambda m, a: m.linalg.qr(a)[1], normal(3, 4), id="wide")]

# order statistics (autogradlab.ops.statistics): distinct values, so each picks one element
CASES["median"] = [C(lambda m, a: m.median(a), distinct(3, 3), id="odd"), C(lambda m, a: a.median(), distinct(2, 3),
                                                                             id="even-lower")]
CASES["median_dim"] = [C(lambda m, a: m.median(a, 1).values, distinct(3, 4), id="dim"),
                       C(lambda m, a: a.nanmedian(0, keepdim=True)[0], distinct(3, 2), id="nan-keepdim")]
CASES["kthvalue"] = [C(lambda m, a: m.kthvalue(a, 2, 1).values, distinct(3, 4), id="dim"),
                     C(lambda m, a: a.kthvalue(3, 0, True)[0], distinct(3, 2), id="keepdim")]
COMPOSITE_CASES.update({
    "quantile": [C(lambda m, a: m.quantile(a, m.tensor([0.1, 0.5, 0.9], dtype=a.dtype), dim=1), distinct(3, 5),
                   id="linear-dim"),
                 C(lambda m, a: a.quantile(0.3, interpolation="midpoint"), distinct(2, 3), id="midpoint-all"),
                 C(lambda m, a: m.nanquantile(a, 0.75, 0, keepdim=True, interpolation="nearest"), distinct(4, 2),
                   id="nan-nearest")],
    "nansum": [C(lambda m, a: m.nansum(a, 1), normal(2, 3), id="dim")],
    "nanmean": [C(lambda m, a: a.nanmean(), normal(2, 3), id="all")],
    "std_mean": [C(lambda m, a: m.std_mean(a, 1), normal(3, 4), id="dim")],
    "var_mean": [C(lambda m, a: m.var_mean(a, correction=0), normal(3, 4), id="all")],
    "cov": [C(lambda m, a: m.cov(a), normal(3, 5), id="rows"),
            C(lambda m, a, w: m.cov(a, fweights=m.tensor([1, 2, 1, 3]), aweights=w.abs() + 0.5), normal(2, 4),
              normal(4), id="weights")],
    "corrcoef": [C(lambda m, a: m.corrcoef(a).triu(1), normal(3, 6), id="off-diagonal")],
    "hstack": [C(lambda m, a, b: m.hstack([a, b]), normal(2, 3), normal(2, 1), id="matrices")],
    "vstack": [C(lambda m, a, b: m.vstack([a, b]), normal(3), normal(2, 3), id="vector-row")],
    "dstack": [C(lambda m, a, b: m.dstack([a, b]), normal(2, 3), normal(2, 3), id="matrices")],
    "column_stack": [C(lambda m, a, b: m.column_stack([a, b]), normal(3), normal(3, 2), id="vector-column")],
    "tensor_split": [C(lambda m, a: m.tensor_split(a, 3, dim=1), normal(2, 7), id="sections"),
                     C(lambda m, a: a.tensor_split([1, 4]), normal(6, 2), id="indices")],
    "block_diag": [C(lambda m, a, b: m.block_diag(a, b), normal(2, 2), normal(3), id="matrix-row")],
    "cartesian_prod": [C(lambda m, a, b: m.cartesian_prod(a, b), normal(2), normal(3), id="pairs")],
    "rot90": [C(lambda m, a: m.rot90(a, 1, [0, 1]), normal(2, 3), id="k1"),
              C(lambda m, a: a.rot90(-1, [2, 0]), normal(2, 3, 2), id="k3")],
    "take": [C(lambda m, a: m.take(a, m.tensor([[0, 5], [-1, 0]])), normal(2, 3), id="repeats")],
    "unfold": [C(lambda m, a: a.unfold(1, 3, 2), normal(2, 7), id="overlapping")],
    "diag_embed": [C(lambda m, a: m.diag_embed(a, 1), normal(2, 3), id="offset"),
                   C(lambda m, a: a.diag_embed(-1, 0, 2), normal(2, 3), id="dims")],
    "tensordot": [C(lambda m, a, b: m.tensordot(a, b, dims=([1, 0], [0, 2])), normal(3, 2, 2), normal(2, 4, 3),
                    id="lists"),
                  C(lambda m, a, b: m.tensordot(a, b, 1), normal(2, 3), normal(3, 2), id="int")],
    "inner": [C(lambda m, a, b: m.inner(a, b), normal(2, 3), normal(4, 3), id="matrices")],
})

NONDIFFERENTIABLE_CASES: dict[str, Callable] = {
    "lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b, "eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
    "bitwise_not": lambda a, b: ~(a < b), "logical_not": lambda a, b: (a < b).logical_not(),
    "bitwise_and": lambda a, b: (a < b) & (a > 0), "bitwise_or": lambda a, b: (a < b) | (a > 0),
    "bitwise_xor": lambda a, b: (a < b) ^ (a > 0),
    "floor_divide": lambda a, b: a // b,
    "isnan": lambda a, b: (a / b).isnan(), "isinf": lambda a, b: ag.isinf(a / b),
    "isfinite": lambda a, b: (a / b).isfinite(), "isclose": lambda a, b: ag.isclose(a * b, b),
    "argmax": lambda a, b: (a * b).argmax(1), "argmin": lambda a, b: ag.argmin(a * b, 0, keepdim=True),
    "all": lambda a, b: (a * b).all(1), "any": lambda a, b: ag.any(a * b),
    "nextafter": lambda a, b: ag.nextafter(a, b),
    "gcd": lambda a, b: ag.gcd((a * 4).long(), (b * 6).long()), "lcm": lambda a, b: ag.lcm((a * 4).long(), b.long()),
    "bitwise_left_shift": lambda a, b: (a * 4).long() << b.long(),
    "bitwise_right_shift": lambda a, b: ag.bitwise_right_shift((a * 4).long(), b.long()),
}
# (dtype, shape) of those that are not a (2, 3) mask
NONDIFFERENTIABLE_RESULTS = {"floor_divide": (np.dtype("float64"), (2, 3)), "argmax": (np.dtype("int64"), (2,)),
                             "argmin": (np.dtype("int64"), (1, 3)), "all": (np.dtype(bool), (2,)),
                             "any": (np.dtype(bool), ()), "nextafter": (np.dtype("float64"), (2, 3)),
                             **{n: (np.dtype("int64"), (2, 3)) for n in ("gcd", "lcm", "bitwise_left_shift",
                                                                         "bitwise_right_shift")}}


def _all_cases():
    for name, cases in list(CASES.items()) + list(COMPOSITE_CASES.items()):
        for case in cases:
            yield pytest.param(name, case, id=f"{name}-{case.id}")


ALL = list(_all_cases())
SMOOTH = [p for p in ALL if p.values[1].smooth]


# -- the table covers the registry ------------------------------------------------------------

def test_every_differentiable_op_has_a_case():
    missing = [n for n, op in REGISTRY.items() if op.differentiable and n not in CASES]
    assert not missing, (f"ops without a gradient-check case: {missing}; add input builders for them to "
                         f"CASES in tests/test_ops_gradcheck.py")
    stale = [n for n in CASES if n not in REGISTRY or not REGISTRY[n].differentiable]
    assert not stale, f"CASES names ops that are not registered as differentiable: {stale}"


def test_every_nondifferentiable_op_has_a_case():
    names = {n for n, op in REGISTRY.items() if not op.differentiable}
    assert names == set(NONDIFFERENTIABLE_CASES)


def _op_names(outputs):
    """The names of every op recorded in the graph behind ``outputs``."""
    seen, stack, names = set(), [o.grad_fn for o in outputs if o.grad_fn is not None], set()
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        names.add(getattr(node.op, "name", None))
        stack.extend(e for e in node.edges if e is not None)
    return names


def _tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


@pytest.mark.parametrize("name", [n for n in CASES])
def test_each_case_records_its_op(name):
    for case in CASES[name]:
        outs = _tuple(case(*case.tensors()))
        assert name in _op_names(outs), f"case {case.id!r} of {name!r} does not record a {name} node"


@pytest.mark.parametrize("name", sorted(NONDIFFERENTIABLE_CASES))
def test_nondifferentiable_ops_never_require_grad(name):
    a = ag.tensor([[-1.0, 0.0, 2.0]], dtype=ag.float64, requires_grad=True)
    b = ag.tensor([[0.5], [2.0]], dtype=ag.float64, requires_grad=True)
    out = NONDIFFERENTIABLE_CASES[name](a, b)
    assert out.requires_grad is False and out.grad_fn is None
    assert (out.dtype, out.shape) == NONDIFFERENTIABLE_RESULTS.get(name, (np.dtype(bool), (2, 3)))


# -- (a) finite differences, (b) VJP vs JVP, (c) second order ---------------------------------

def _gradcheck(fn, xs, case=None):
    eps, atol = (case.eps, case.atol) if case else (1e-6, 1e-5)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="gradcheck: input", category=UserWarning)
        assert gradcheck(fn, xs, eps=eps, atol=atol)


def _vjp_vs_jvp(fn, xs, seed, h=1e-6, rtol=1e-5, atol=1e-7):
    """<v, J u> by a central difference along u, against <J^T v, u> from one backward pass."""
    rng = np.random.default_rng(seed)
    outs = _tuple(fn(*xs))
    vs = [rng.standard_normal(o.shape) for o in outs]
    us = [rng.standard_normal(x.shape) for x in xs]

    def along(t):
        shifted = [ag.tensor(x.detach().numpy() + t * u, dtype=x.dtype, device=x.device) for x, u in zip(xs, us)]
        with ag.no_grad():
            return [o.detach().numpy().astype(np.float64) for o in _tuple(fn(*shifted))]

    plus, minus = along(h), along(-h)
    numerical = sum(float(np.sum(v * (p - q) / (2 * h))) for v, p, q in zip(vs, plus, minus))
    diff = [(o, ag.tensor(v, dtype=o.dtype, device=o.device)) for o, v in zip(outs, vs) if o.requires_grad]
    gs = grad([o for o, _ in diff], xs, [v for _, v in diff], allow_unused=True)
    analytic = sum(float(np.sum(g.numpy() * u)) for g, u in zip(gs, us) if g is not None)
    assert math.isclose(analytic, numerical, rel_tol=rtol, abs_tol=atol), (analytic, numerical)


@pytest.mark.parametrize("name, case", ALL)
def test_gradcheck(name, case):
    _gradcheck(case, case.tensors(), case)


@pytest.mark.parametrize("name, case", ALL)
def test_vjp_matches_jvp(name, case):
    h = case.eps if case.dtype == "float64" else 1e-3
    _vjp_vs_jvp(case, case.tensors("jvp"), zlib.crc32(case.id.encode()), h=h,
                rtol=1e-5 if case.dtype == "float64" else 1e-3)


@pytest.mark.parametrize("name, case", SMOOTH)
def test_gradgradcheck(name, case):
    ag.manual_seed(zlib.crc32(case.id.encode()))
    assert gradgradcheck(case, case.tensors("gg"))


# -- hypothesis: random shapes and broadcasting for the binary elementwise ops ------------------

def _values(name, rng, shapes):
    """Inputs for one binary op, away from the points where it is not differentiable."""
    a_shape, b_shape = shapes[0], shapes[1]
    if name == "div":
        return rng.standard_normal(a_shape), nonzero(*b_shape)(rng)
    if name == "pow":
        return rng.uniform(0.5, 2.0, a_shape), rng.uniform(-2.0, 2.0, b_shape)
    if name in ("maximum", "minimum"):
        return off_grid(*a_shape)(rng), off_grid(*b_shape, offset=0.0)(rng)
    return rng.standard_normal(a_shape), rng.standard_normal(b_shape)


BINARY = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b, "pow": lambda a, b: a ** b,
    "maximum": ag.maximum, "minimum": ag.minimum,
}

HYPOTHESIS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
broadcastable = mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, min_side=1, max_side=3)


@pytest.mark.parametrize("name", sorted(BINARY))
@HYPOTHESIS
@given(shapes=broadcastable, seed=st.integers(0, 2**32 - 1))
def test_binary_ops_broadcast_random_shapes(name, shapes, seed):
    rng = np.random.default_rng(seed)
    a, b = (ag.tensor(v, dtype=ag.float64, requires_grad=True) for v in _values(name, rng, shapes.input_shapes))
    fn = BINARY[name]
    out = fn(a, b)
    assert out.shape == shapes.result_shape and name in _op_names([out])
    _gradcheck(fn, (a, b))
    _vjp_vs_jvp(fn, (a, b), seed)


@HYPOTHESIS
@given(shapes=mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3, min_side=1, max_side=3),
       seed=st.integers(0, 2**32 - 1))
def test_where_broadcasts_random_shapes(shapes, seed):
    rng = np.random.default_rng(seed)
    c_shape, a_shape, b_shape = shapes.input_shapes
    cond = ag.tensor(rng.random(c_shape) > 0.5)
    a = ag.tensor(rng.standard_normal(a_shape), requires_grad=True)
    b = ag.tensor(rng.standard_normal(b_shape), requires_grad=True)

    def fn(x, y):
        return ag.where(cond, x, y)

    assert fn(a, b).shape == shapes.result_shape
    _gradcheck(fn, (a, b))
    _vjp_vs_jvp(fn, (a, b), seed)


@HYPOTHESIS
@given(shapes=mutually_broadcastable_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3,
                                            signature="(m?,n),(n,p?)->(m?,p?)"),
       seed=st.integers(0, 2**32 - 1))
def test_matmul_random_shapes(shapes, seed):
    rng = np.random.default_rng(seed)
    a, b = (ag.tensor(rng.standard_normal(s), requires_grad=True) for s in shapes.input_shapes)
    out = a @ b
    assert out.shape == shapes.result_shape
    _gradcheck(lambda x, y: x @ y, (a, b))
    _vjp_vs_jvp(lambda x, y: x @ y, (a, b), seed)


@pytest.mark.parametrize("name", [n for n in CASES])
def test_no_leaf_grad_shares_memory_with_an_input_the_seed_or_another_grad(name):
    """The VJP contract (OpDef's docstring): an array-mode VJP returns ``g``, a view of ``g`` or a fresh
    array, never a saved or input array, as a leaf takes a VJP's fresh array as its ``.grad`` uncopied
    (``exp``'s VJP returning its saved result instead of ``g * result`` would fail here)."""
    for case in CASES[name]:
        xs = case.tensors()
        datas = [x._data for x in xs]
        outs = [o for o in _tuple(case(*xs)) if isinstance(o, ag.Tensor) and o.requires_grad]
        seeds = [ag.tensor(np.random.default_rng(0).standard_normal(o.shape), dtype=o.dtype, device=o.device)
                 for o in outs]
        ag.autograd.backward(outs, seeds)
        grads = [x.grad._data for x in xs if x.grad is not None]
        for i, gi in enumerate(grads):
            for other in [*datas, *(o._data for o in outs), *(s._data for s in seeds), *grads[:i]]:
                assert not shares_memory(gi, other), f"case {case.id!r}: a .grad shares memory"

