"""What every distribution shares: the ``Distribution`` base (shapes, ``sample`` from ``rsample``, the checks of
parameters and values as PyTorch makes them), the location-scale base of ``Normal``, ``Laplace``, ``Cauchy``,
``Gumbel``, and ``Independent``, which reads batch dims of any distribution as event dims."""
from __future__ import annotations

import numbers
import warnings

import numpy

from .. import linalg
from ..creation import eye
from ..grad_mode import no_grad
from ..ops import elementwise as E
from ..ops import shape as S
from ..tensor import Tensor, default_float, tensor
from . import constraints

def _as_tensor(value, like=None):
    if isinstance(value, Tensor):
        return value
    if not isinstance(value, numbers.Real):
        raise TypeError(f"a distribution's parameter must be a Tensor or a number, got {type(value).__name__}")
    dtype = like.dtype if like is not None and like.dtype.kind == "f" else default_float()
    return tensor(float(value), dtype=dtype, device=None if like is None else like.device)


def _two(a, b):
    """Two parameters as tensors of one shape (a number takes the other's dtype)."""
    a = _as_tensor(a, b if isinstance(b, Tensor) else None)
    b = _as_tensor(b, a)
    return S.broadcast_tensors(a, b) if a.shape != b.shape else (a, b)


def _check(name, value, ok, constraint, owner):
    """PyTorch's validation of a parameter: every element satisfies ``constraint``."""
    if not bool(ok.all()):
        raise ValueError(f"Expected parameter {name} ({type(value).__name__} of shape {tuple(value.shape)}) of "
                         f"distribution {type(owner).__name__} to satisfy the constraint {constraint}, but found "
                         f"invalid values:\n{value}")


class Distribution:
    """What every distribution has: ``batch_shape``, ``sample(sample_shape)`` (no gradient), ``log_prob``.

    A subclass written as for PyTorch works here too: set ``arg_constraints`` and ``support``, store the
    parameters, call ``super().__init__(batch_shape, event_shape, validate_args)`` (which checks each parameter
    against its constraint), and use ``self._validate_sample(value)`` and ``self._extended_shape(sample_shape)``."""

    has_rsample = False
    has_enumerate_support = False
    _shared_by_batch = ()   # (tensors that ``expand`` keeps as they are: see there)
    _validate_default = True   # (what validate_args=None means: set_default_validate_args)

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self.batch_shape, self.event_shape = tuple(batch_shape), tuple(event_shape)
        self._validate = _validating(validate_args)
        if self._validate and not type(self).__module__.startswith(__package__ + "."):
            self._check_arg_constraints()   # (the classes here check their parameters before calling this)

    @staticmethod
    def set_default_validate_args(value):
        """Whether distributions made without ``validate_args`` check their parameters and values (True)."""
        if value not in (True, False):
            raise ValueError(f"set_default_validate_args takes True or False, got {value!r}")
        Distribution._validate_default = value

    def _check_arg_constraints(self):
        """PyTorch's check of a subclass's parameters: each one stored that ``arg_constraints`` names must
        satisfy its constraint (a dependent constraint, one that needs the other parameters, is skipped)."""
        try:
            declared = dict(self.arg_constraints)
        except NotImplementedError:   # (PyTorch warns and checks nothing)
            warnings.warn(f"{type(self)} does not define `arg_constraints`. Please set `arg_constraints = {{}}` or "
                          f"initialize the distribution with `validate_args=False` to turn off validation.",
                          UserWarning, stacklevel=3)
            return
        for name, constraint in declared.items():
            if constraints.is_dependent(constraint) or name not in self.__dict__:
                continue
            value = _as_tensor(self.__dict__[name])
            _check(name, value, constraint.check(value), repr(constraint), self)

    def _extended_shape(self, sample_shape=()):
        """The shape of a sample: ``sample_shape + batch_shape + event_shape``."""
        return self._shape(sample_shape)

    def _validate_sample(self, value):
        """PyTorch's check of ``log_prob``'s argument: a Tensor, whose shape broadcasts with the batch and event
        shapes, inside the support (a ValueError naming what is wrong)."""
        if not isinstance(value, Tensor):
            raise ValueError(f"The value argument to log_prob must be a Tensor, got {type(value).__name__}")
        event = len(self.event_shape)
        if tuple(value.shape[len(value.shape) - event:]) != self.event_shape:
            raise ValueError(f"The right-most size of value must match event_shape: {tuple(value.shape)} vs "
                             f"{self.event_shape}.")
        actual = tuple(value.shape[:len(value.shape) - event])
        for i, j in zip(reversed(actual), reversed(self.batch_shape)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {tuple(value.shape)} "
                                 f"vs {self.batch_shape + self.event_shape}.")
        self._check_value(value, self.support.check(value), repr(self.support))

    def perplexity(self):
        """exp(entropy): the number of equally likely outcomes with the same entropy."""
        return E.exp(self.entropy())

    def sample_n(self, n):
        """``sample((n,))``, under PyTorch's old name (it warns that the name is deprecated)."""
        warnings.warn("sample_n will be deprecated. Use .sample((n,)) instead", FutureWarning, stacklevel=2)
        return self.sample((n,))

    def _params(self):
        """The parameters ``repr`` shows: those of ``arg_constraints`` that are stored (classes here list theirs)."""
        try:
            names = dict(self.arg_constraints)
        except NotImplementedError:
            names = {}
        return {name: self.__dict__[name] for name in names if isinstance(self.__dict__.get(name), Tensor)}

    def expand(self, batch_shape, _instance=None):
        """This distribution repeated over a larger ``batch_shape`` (broadcast as ``Tensor.expand``: size-1 and new
        leading dims grow; the parameters are expanded views, so gradients flow back to the originals).

        It relies on how every constructor here stores things: each parameter tensor has the batch dims leading,
        each inner distribution (the Categorical of a Multinomial, the base of an Independent) has them leading
        too, except the tensors a class names in ``_shared_by_batch`` (MultivariateNormal's L, a relaxed
        distribution's temperature)."""
        batch_shape = tuple(batch_shape)
        new = _instance if _instance is not None else type(self).__new__(type(self))
        n = len(self.batch_shape)
        for name, value in vars(self).items():
            if isinstance(value, (Tensor, Distribution)) and name not in self._shared_by_batch:
                leading = value.batch_shape if isinstance(value, Distribution) else value.shape
                if tuple(leading)[:n] != self.batch_shape:
                    raise NotImplementedError(f"{type(self).__name__}.expand: {name} does not have the batch "
                                              f"dims {self.batch_shape} leading; this class needs its own expand")
                if isinstance(value, Tensor):
                    value = value.expand(*batch_shape, *value.shape[n:])
                else:
                    value = value.expand(batch_shape + tuple(value.batch_shape[n:]))
            new.__dict__[name] = value
        new.batch_shape = batch_shape
        return new

    def _get_checked_instance(self, cls, _instance=None):
        """A bare instance for a subclass's own ``expand`` (PyTorch's pattern: fill its parameters, then
        ``super(Cls, new).__init__(batch_shape, validate_args=False)``)."""
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(f"Subclass {type(self).__name__} of {cls.__name__} that defines a custom "
                                      f"__init__ method must also define a custom .expand() method.")
        return type(self).__new__(type(self)) if _instance is None else _instance

    @property
    def _validate_args(self):
        """Whether parameters and values are checked (PyTorch's name for it)."""
        return self._validate

    @_validate_args.setter
    def _validate_args(self, value):
        self._validate = value is not False

    def _check_value(self, value, ok, support):
        """PyTorch's check of ``log_prob``'s argument: inside the support, or a ValueError."""
        if self._validate and not bool(ok.all()):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be "
                             f"within the support ({support}) of the distribution {self}, but found invalid "
                             f"values:\n{value}")

    def _shape(self, sample_shape):
        return tuple(sample_shape) + self.batch_shape + self.event_shape

    def sample(self, sample_shape=()):
        with no_grad():
            return self.rsample(sample_shape).detach()

    def rsample(self, sample_shape=()):
        raise NotImplementedError(f"{type(self).__name__} has no reparameterised sample (has_rsample is False): "
                                  f"use sample(), and log_prob for a gradient (REINFORCE)")

    def enumerate_support(self, expand=True):
        """Every value a discrete distribution takes, along a new first dim (then the batch, then the event);
        ``expand=False`` leaves the batch dims at size 1."""
        raise NotImplementedError(f"{type(self).__name__} cannot enumerate its support (has_enumerate_support "
                                  f"is False: it is continuous or unbounded)")

    def _support_of(self, values, expand):
        """``values`` (n, *event) laid out for ``enumerate_support``: (n, 1, ..., 1, *event), or expanded over the
        batch."""
        n, event = values.shape[0], tuple(values.shape[1:])
        values = values.reshape(n, *(1,) * len(self.batch_shape), *event)
        return values.expand(n, *self.batch_shape, *event) if expand else values

    @property
    def arg_constraints(self):
        """{parameter name: the constraint it must satisfy}: each class lists its own."""
        raise NotImplementedError(f"{type(self).__name__} does not list its arg_constraints (as in PyTorch, a "
                                  f"Distribution subclass sets the class attribute arg_constraints = {{...}})")

    @property
    def mean(self):
        raise NotImplementedError(f"{type(self).__name__} has no mean in closed form (as in PyTorch): estimate it "
                                  f"from samples")

    @property
    def mode(self):
        raise NotImplementedError(f"{type(self).__name__} does not implement mode (as in PyTorch)")

    @property
    def variance(self):
        raise NotImplementedError(f"{type(self).__name__} has no variance in closed form (as in PyTorch): estimate "
                                  f"it from samples")

    @property
    def stddev(self):
        return E.sqrt(self.variance)

    def entropy(self):
        raise NotImplementedError(f"{type(self).__name__} has no entropy in closed form (as in PyTorch)")

    def cdf(self, value):
        raise NotImplementedError(f"{type(self).__name__} has no cdf here (as in PyTorch)")

    def icdf(self, value):
        raise NotImplementedError(f"{type(self).__name__} has no icdf here (as in PyTorch)")

    def __repr__(self):
        shown = ", ".join(f"{k}: {v.shape if v.ndim else v}" for k, v in self._params().items())
        return f"{type(self).__name__}({shown})"


def _validating(validate_args):
    """Whether to check parameters and values: as told, or (``None``) as ``set_default_validate_args`` says."""
    return Distribution._validate_default if validate_args is None else bool(validate_args)


class _CentredAtLoc(Distribution):
    """A distribution whose mean and mode are its ``loc``."""

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc


class _LocationScale(_CentredAtLoc):
    """A distribution given by ``loc`` (not NaN) and ``scale`` (> 0), centred at ``loc``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}

    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = _two(loc, scale)
        if _validating(validate_args):
            _check("loc", self.loc, ~E.isnan(self.loc.detach()), "Real()", self)
            _check("scale", self.scale, self.scale.detach() > 0, "GreaterThan(lower_bound=0.0)", self)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def _params(self):
        return {"loc": self.loc, "scale": self.scale}


def clamp_probs(p):
    """p kept inside [eps, 1 - eps] (the dtype's epsilon), as PyTorch's ``clamp_probs``: no log of 0 or of 1 - 1."""
    eps = float(numpy.finfo(p.dtype).eps)
    return E.clamp(p, eps, 1 - eps)


def _probs_or_logits(probs, logits, name):
    if (probs is None) == (logits is None):
        raise ValueError(f"{name}: either `probs` or `logits` must be specified, but not both.")
    return (_as_tensor(probs), None) if probs is not None else (None, _as_tensor(logits))


class _BinaryTrials(Distribution):
    """A success probability given as ``probs`` or as ``logits`` = log(p / (1 - p)); each read from the other."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}

    def _set_probs(self, probs, logits, ok, constraint, validate_args):
        self._probs, self._logits = probs, logits
        if probs is not None and _validating(validate_args):
            _check("probs", probs, ok(probs.detach()), constraint, self)
        if logits is not None and _validating(validate_args):
            _check("logits", logits, ~E.isnan(logits.detach()), "Real()", self)

    @property
    def probs(self):
        return self._probs if self._probs is not None else E.sigmoid(self._logits)

    @property
    def logits(self):
        if self._logits is not None:
            return self._logits
        p = clamp_probs(self._probs)   # (p = 0 or 1 gives finite logits)
        return E.log(p) - E.log1p(-p)

    def _params(self):
        return {"probs": self.probs} if self._probs is not None else {"logits": self.logits}


class Independent(Distribution):
    """``base`` with its last ``reinterpreted_batch_ndims`` batch dims read as event dims: log p sums the
    base's log p over them (a diagonal Gaussian over vectors: ``Independent(Normal(mu, sigma), 1)``)."""

    arg_constraints = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        n = reinterpreted_batch_ndims
        if n > len(base_distribution.batch_shape):
            raise ValueError(f"Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), actual "
                             f"{n} vs {len(base_distribution.batch_shape)}")
        self.base_dist, self.reinterpreted_batch_ndims = base_distribution, n
        shape = base_distribution.batch_shape + base_distribution.event_shape
        cut = len(base_distribution.batch_shape) - n
        self.has_rsample = base_distribution.has_rsample
        super().__init__(shape[:cut], shape[cut:], validate_args=validate_args)

    def _params(self):
        return {}

    @property
    def support(self):
        return constraints.independent(self.base_dist.support, self.reinterpreted_batch_ndims)

    def __repr__(self):
        return f"Independent({self.base_dist}, {self.reinterpreted_batch_ndims})"

    @property
    def has_enumerate_support(self):
        return self.reinterpreted_batch_ndims == 0 and self.base_dist.has_enumerate_support

    def enumerate_support(self, expand=True):
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented: an Independent "
                                      "with event dims would enumerate every combination of their values")
        return self.base_dist.enumerate_support(expand=expand)

    def _sum(self, value):
        n = self.reinterpreted_batch_ndims
        return value.sum(tuple(range(-n, 0))) if n else value

    @property
    def mean(self):
        return self.base_dist.mean

    @property
    def mode(self):
        return self.base_dist.mode

    @property
    def variance(self):
        return self.base_dist.variance

    def sample(self, sample_shape=()):
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=()):
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        return self._sum(self.base_dist.log_prob(value))

    def entropy(self):
        return self._sum(self.base_dist.entropy())


def _precision_to_scale_tril(precision):
    """The lower Cholesky factor L of Sigma = P^-1, without inverting P (so an ill-conditioned P keeps its
    digits): with J the flip of both dims, J P J = C C^T, so P = U U^T with U = J C J upper triangular, and
    Sigma = U^-T U^-1, whose factor L = U^-T is solved from the lower triangular U^T."""
    c = linalg.cholesky(S.flip(precision, (-2, -1)))
    u_transposed = S.flip(c, (-2, -1)).mT
    identity = eye(precision.shape[-1], dtype=precision.dtype, device=precision.device)
    return linalg.solve_triangular(u_transposed, identity, upper=False)
