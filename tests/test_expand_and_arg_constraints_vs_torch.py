"""``Distribution.expand`` and ``arg_constraints`` side by side with torch 2.13, for every distribution class
autogradlab has: the new batch and event shapes, log_prob of one value from each library (batch-wide), the mean
and variance where the class has them, the gradient reaching the original parameters through the expanded views,
the refusals; ``TransformedDistribution`` growing its batch as an affine map's tensor loc or scale asks (torch's
``forward_shape``); each class's ``arg_constraints`` (and the VI idiom ``transform_to(arg_constraints[...])``),
and the matrix, multinomial and dependent constraints."""
import inspect
import re

import numpy as np
import pytest
from conftest import import_torch
from torch_compare import both_raise, close

import autogradlab as ag

torch = import_torch()
pytestmark = [pytest.mark.filterwarnings("ignore:Singular sample detected"),   # (torch's Wishart warns on every draw)
              pytest.mark.usefixtures("torch_float64_default")]


def _catalog(T):
    """name -> a distribution of batch shape (2,), each parameter a float64 tensor (numbers where torch wants them)."""
    D = T.distributions

    def t(v):
        return T.tensor(v, dtype=T.float64)

    a, b, p, k = t([0.5, 1.5]), t([2.0, 3.0]), t([0.3, 0.6]), t([[0.2, 0.8], [0.5, 0.5]])
    return {
        "Normal": D.Normal(a, b), "Uniform": D.Uniform(a, b + 1), "Bernoulli": D.Bernoulli(p),
        "Bernoulli logits": D.Bernoulli(logits=a), "Categorical": D.Categorical(k),
        "Categorical logits": D.Categorical(logits=k), "OneHotCategorical": D.OneHotCategorical(k),
        "Exponential": D.Exponential(a), "Laplace": D.Laplace(a, b),
        "MultivariateNormal": D.MultivariateNormal(t([[0.0, 1.0], [1.0, 2.0]]), t([[2.0, 0.3], [0.3, 1.0]])),
        "MultivariateNormal scale_tril": D.MultivariateNormal(t([0.0, 1.0]), scale_tril=t([[[1.0, 0.0], [0.5, 2.0]],
                                                                                           [[3.0, 0.0], [0.1, 1.0]]])),
        "LowRankMultivariateNormal": D.LowRankMultivariateNormal(T.zeros(2, 3, dtype=T.float64),
                                                                 t([[[1.0], [0.5], [0.2]], [[0.1], [0.3], [2.0]]]),
                                                                 t([1.0, 2.0, 0.5])),
        "Gamma": D.Gamma(a, b), "Chi2": D.Chi2(b), "Beta": D.Beta(a, b), "Dirichlet": D.Dirichlet(k * 3),
        "Poisson": D.Poisson(a), "Cauchy": D.Cauchy(a, b), "Gumbel": D.Gumbel(a, b), "HalfNormal": D.HalfNormal(a),
        "HalfCauchy": D.HalfCauchy(a), "LogNormal": D.LogNormal(a, b), "StudentT": D.StudentT(b + 1, a, b),
        "Geometric": D.Geometric(p), "Binomial": D.Binomial(5, p), "NegativeBinomial": D.NegativeBinomial(5, p),
        "Multinomial": D.Multinomial(4, k), "ContinuousBernoulli": D.ContinuousBernoulli(p),
        "FisherSnedecor": D.FisherSnedecor(a + 4, b + 4), "InverseGamma": D.InverseGamma(b, a),
        "Kumaraswamy": D.Kumaraswamy(a, b), "Pareto": D.Pareto(a, b + 2), "Weibull": D.Weibull(a, b),
        "VonMises": D.VonMises(a, b), "RelaxedBernoulli": D.RelaxedBernoulli(t(0.5), p),
        "RelaxedOneHotCategorical": D.RelaxedOneHotCategorical(t(0.5), k),
        "Independent": D.Independent(D.Normal(T.zeros(2, 3, dtype=T.float64), 1.0), 1),
        "MixtureSameFamily": D.MixtureSameFamily(D.Categorical(k), D.Normal(t([[0.0, 1.0], [2.0, 3.0]]), b)),
        "MixtureSameFamily (one mixture)": D.MixtureSameFamily(D.Categorical(t([0.3, 0.7])),
                                                               D.Normal(t([[0.0, 1.0], [2.0, 3.0]]), b)),
        "TransformedDistribution": D.TransformedDistribution(D.Normal(a, b), [D.transforms.ExpTransform()]),
        "GeneralizedPareto": D.GeneralizedPareto(a, b, t([-0.3, 0.4])),
        "LogisticNormal": D.LogisticNormal(T.zeros(2, 3, dtype=T.float64), t([0.5, 1.0, 2.0])),
        "OneHotCategoricalStraightThrough": D.OneHotCategoricalStraightThrough(k),
        "Wishart": D.Wishart(a + 3, covariance_matrix=t([[2.0, 0.3], [0.3, 1.0]])),
        "LKJCholesky": D.LKJCholesky(3, a),
    }


def test_the_catalog_covers_every_distribution_class():
    covered = {type(d) for d in _catalog(ag).values()}
    D = ag.distributions
    classes = {c for c in vars(D).values() if inspect.isclass(c) and issubclass(c, D.Distribution)}
    missing = {c.__name__ for c in classes - covered
               if c not in (D.Distribution, D.ExponentialFamily) and not c.__name__.startswith("_")}
    assert not missing, f"add these to _catalog so their expand is tested: {sorted(missing)}"
    unlisted = {c.__name__ for c in classes if not c.__name__.startswith("_")} - set(D.__all__)
    assert not unlisted, f"exported but not in distributions.__all__: {sorted(unlisted)}"
    assert all(hasattr(torch.distributions, name) for name in D.__all__)


def _moment(dist, name):
    try:
        return getattr(dist, name)
    except NotImplementedError:
        return None


@pytest.mark.parametrize("name", sorted(_catalog(ag)))
@pytest.mark.parametrize("batch_shape", [(3, 2), (2,), (1, 2)], ids=str)
def test_expand_is_torchs(name, batch_shape):
    ours, theirs = _catalog(ag)[name].expand(batch_shape), _catalog(torch)[name].expand(torch.Size(batch_shape))
    assert type(ours).__name__ == type(theirs).__name__
    assert (tuple(ours.batch_shape), tuple(ours.event_shape)) == (tuple(theirs.batch_shape),
                                                                  tuple(theirs.event_shape))
    torch.manual_seed(0)
    value = theirs.sample()
    if name.startswith("Relaxed"):   # (their float64 draw can round to exactly 1, outside the support)
        value = value.clamp(1e-6, 1 - 1e-6)
    assert tuple(ours.sample().shape) == tuple(value.shape)
    rtol = 1e-7 if name == "VonMises" else 1e-10   # (torch's Bessel I0 is a polynomial fit, good to ~1e-8)
    close(ours.log_prob(ag.tensor(value.numpy())), theirs.log_prob(value), rtol=rtol, atol=1e-12)
    for moment in ("mean", "variance"):
        a, b = _moment(ours, moment), _moment(theirs, moment)
        assert (a is None) == (b is None), moment
        if b is not None:
            close(a, b, rtol=rtol, atol=1e-12)


def test_gradients_reach_the_original_parameters_through_the_expanded_batch():
    grads = []
    for T in (ag, torch):
        loc = T.tensor([0.5, -1.0], dtype=T.float64, requires_grad=True)
        scale = T.tensor([[2.0], [0.5], [1.0]], dtype=T.float64, requires_grad=True)
        big = T.distributions.Normal(loc, T.tensor(1.0, dtype=T.float64)).expand((3, 2))
        mvn = T.distributions.MultivariateNormal(loc, scale_tril=T.eye(2, dtype=T.float64) * 2).expand((4,))
        value = T.tensor(np.arange(6.0).reshape(3, 2), dtype=T.float64)
        total = (big.log_prob(value) * scale).sum() + mvn.log_prob(value[:1]).sum()
        grads.append(T.autograd.grad(total, [loc, scale]))
    for a, b in zip(*grads):
        close(a, b, rtol=1e-12)


def test_the_original_is_left_as_it_was():
    d = ag.distributions.Categorical(ag.tensor([[0.2, 0.8], [0.5, 0.5]]))
    d.expand((5, 2))
    assert tuple(d.batch_shape) == (2,) and tuple(d.probs.shape) == (2, 2)


REFUSALS = [
    lambda T: T.distributions.Normal(T.zeros(2), 1.0).expand((3,)),
    lambda T: T.distributions.Normal(T.zeros(2), 1.0).expand((2, 3)),
    lambda T: T.distributions.Categorical(T.ones(2, 3)).expand((4,)),
    lambda T: T.distributions.MultivariateNormal(T.zeros(2, 3), T.eye(3)).expand((3,)),
]


@pytest.mark.parametrize("call", REFUSALS, ids=range(len(REFUSALS)))
def test_an_impossible_batch_is_refused_as_torch_refuses_it(call):
    both_raise(lambda: call(ag), lambda: call(torch))


@pytest.mark.parametrize("event_dim", [0, 1])
def test_a_tensor_loc_or_scale_grows_the_batch_as_in_torch(event_dim):
    """A base pushed through an affine map with a (2, 3) scale is a (2, 3) batch, as in torch (whose
    AffineTransform.forward_shape broadcasts and whose TransformedDistribution expands its base): shapes, sample
    shapes, log_prob and its gradient agree."""
    def build(T):
        f64 = T.float64
        D = T.distributions
        base = D.Normal(T.tensor(0.5, dtype=f64), T.tensor(2.0, dtype=f64))
        if event_dim:
            base = D.Normal(T.zeros(3, dtype=f64), T.ones(3, dtype=f64))
        scale = T.tensor([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]], dtype=f64, requires_grad=True)
        loc = T.tensor([0.1, 0.2, 0.3], dtype=f64)
        dist = D.TransformedDistribution(base, [D.transforms.AffineTransform(loc, scale, event_dim=event_dim)])
        log_prob = dist.log_prob(T.tensor([[0.3, -0.7, 1.1], [2.0, 0.05, -0.4]], dtype=f64))
        return dist, log_prob, T.autograd.grad(log_prob.sum(), [scale])[0]
    ours, theirs = build(ag), build(torch)
    assert (tuple(ours[0].batch_shape), tuple(ours[0].event_shape)) == \
        (tuple(theirs[0].batch_shape), tuple(theirs[0].event_shape))
    assert tuple(ours[0].sample((4,)).shape) == tuple(theirs[0].sample((4,)).shape)
    close(ours[1], theirs[1], rtol=1e-12)
    close(ours[2], theirs[2], rtol=1e-12)


@pytest.mark.parametrize("name", sorted(_catalog(ag)))
def test_arg_constraints_are_torchs_and_hold_for_the_parameters(name):
    ours, theirs = _catalog(ag)[name], _catalog(torch)[name]
    shown = {k: re.sub(r", (dtype|device)=[^)]*", "", repr(v)) for k, v in ours.arg_constraints.items()}
    assert shown == {k: repr(v) for k, v in theirs.arg_constraints.items()}
    for key, constraint in ours.arg_constraints.items():
        value = getattr(ours, key, None)
        if isinstance(value, ag.Tensor) and key not in ("covariance_matrix", "precision_matrix", "scale_tril"):
            assert bool(constraint.check(value).all()), key


def test_a_variational_parameter_is_mapped_onto_its_constraint_as_in_torch():
    """The VI idiom: an unconstrained tensor carried onto what ``arg_constraints`` asks for."""
    raw = np.array([-1.0, 0.0, 2.0])
    outs = []
    for T in (ag, torch):
        D = T.distributions
        x = T.tensor(raw, dtype=T.float64)
        outs.append([D.transform_to(D.Normal.arg_constraints["scale"])(x),
                     D.transform_to(D.Dirichlet.arg_constraints["concentration"])(x),
                     D.transform_to(D.Categorical.arg_constraints["probs"])(x),
                     D.transform_to(D.Binomial.arg_constraints["probs"])(x)])
    for a, b in zip(*outs):
        close(a, b, rtol=1e-12)


def test_a_distribution_without_arg_constraints_says_so():
    class Mine(ag.distributions.Distribution):
        pass
    with pytest.raises(NotImplementedError, match="arg_constraints"):
        Mine().arg_constraints
    with pytest.raises(NotImplementedError):
        type("Theirs", (torch.distributions.Distribution,), {})(validate_args=False).arg_constraints


def _matrices(T):
    return T.tensor([[[2.0, 0.5], [0.5, 1.0]], [[1.0, 2.0], [2.0, 1.0]], [[1.0, 0.0], [0.0, 0.0]],
                     [[1.0, 0.0], [0.6, 0.8]], [[1.0, 0.0], [0.6, 0.9]]], dtype=T.float64)


@pytest.mark.parametrize("name", ["square", "symmetric", "positive_definite", "positive_semidefinite",
                                  "corr_cholesky", "lower_cholesky"])
def test_matrix_constraints_check_as_torchs(name):
    ours, theirs = getattr(ag.distributions.constraints, name), getattr(torch.distributions.constraints, name)
    assert repr(ours) == repr(theirs) and (ours.event_dim, ours.is_discrete) == (theirs.event_dim,
                                                                                 theirs.is_discrete)
    symmetric_only = [0, 1, 2]   # (torch answers with the symmetry check alone when any matrix is not symmetric)
    mats = _matrices(ag), _matrices(torch)
    np.testing.assert_array_equal(ours.check(mats[0][symmetric_only]).numpy(),
                                  theirs.check(mats[1][symmetric_only]).numpy())
    np.testing.assert_array_equal(ours.check(ag.zeros(4, 2, 3)).numpy(), theirs.check(torch.zeros(4, 2, 3)).numpy())


def test_positive_definite_is_decided_matrix_by_matrix():
    C = ag.distributions.constraints
    mats = _matrices(ag)
    assert C.positive_definite.check(mats).tolist() == [True, False, False, False, False]
    assert C.positive_semidefinite.check(mats).tolist() == [True, False, True, False, False]
    assert C.corr_cholesky.check(mats).tolist() == [False, False, False, True, False]


def test_multinomial_and_dependent_constraints_are_torchs():
    ours, theirs = ag.distributions.constraints, torch.distributions.constraints
    counts = [[1, 2, 0], [3, 1, 1], [-1, 2, 0]]
    np.testing.assert_array_equal(ours.multinomial(4).check(ag.tensor(counts)).numpy(),
                                  theirs.multinomial(4).check(torch.tensor(counts)).numpy())
    assert repr(ours.multinomial(4)) == repr(theirs.multinomial(4)) and ours.multinomial(4).event_dim == 1
    assert repr(ours.dependent) == repr(theirs.dependent) and ours.is_dependent(ours.dependent)
    assert not ours.is_dependent(ours.real) and not theirs.is_dependent(theirs.real)
    shaped = ours.dependent(is_discrete=True, event_dim=1)
    assert (shaped.is_discrete, shaped.event_dim) == (True, 1)
    both_raise(lambda: ours.dependent.check(ag.zeros(2)), lambda: theirs.dependent.check(torch.zeros(2)))

    class Box(ag.distributions.Distribution):
        arg_constraints = {}

        @ours.dependent_property(is_discrete=False, event_dim=1)
        def support(self):
            return ours.interval(0.0, 1.0)
    assert repr(Box().support) == "Interval(lower_bound=0.0, upper_bound=1.0)"
    assert ours.is_dependent(Box.support) and Box.support.event_dim == 1


ENUMERABLE = {
    "Bernoulli": lambda T: T.distributions.Bernoulli(T.tensor([[0.3, 0.6, 0.1]], dtype=T.float64)),
    "Categorical": lambda T: T.distributions.Categorical(logits=T.zeros(2, 4, dtype=T.float64)),
    "OneHotCategorical": lambda T: T.distributions.OneHotCategorical(T.tensor([[0.2, 0.8], [0.5, 0.5]],
                                                                              dtype=T.float64)),
    "OneHotCategoricalStraightThrough": lambda T: T.distributions.OneHotCategoricalStraightThrough(
        T.tensor([0.2, 0.3, 0.5], dtype=T.float64)),
    "Binomial": lambda T: T.distributions.Binomial(T.tensor([3.0, 3.0], dtype=T.float64),
                                                   T.tensor([0.2, 0.7], dtype=T.float64)),
    "Independent of no event dims": lambda T: T.distributions.Independent(
        T.distributions.Bernoulli(T.tensor([0.2, 0.7], dtype=T.float64)), 0),
}


@pytest.mark.parametrize("name", sorted(ENUMERABLE))
@pytest.mark.parametrize("expand", [True, False])
def test_enumerate_support_is_torchs(name, expand):
    ours, theirs = ENUMERABLE[name](ag), ENUMERABLE[name](torch)
    assert ours.has_enumerate_support and theirs.has_enumerate_support
    a, b = ours.enumerate_support(expand=expand), theirs.enumerate_support(expand=expand)
    assert tuple(a.shape) == tuple(b.shape) and a.dtype.name == str(b.dtype).removeprefix("torch.")
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    close(ours.log_prob(a), theirs.log_prob(b), rtol=1e-6)   # (the values are the support: summing exp gives 1)
    np.testing.assert_allclose(ours.log_prob(a).exp().sum(0).numpy(), 1.0, rtol=1e-6)


NOT_ENUMERABLE = [
    lambda T: T.distributions.Normal(0.0, 1.0).enumerate_support(),
    lambda T: T.distributions.Poisson(T.tensor([2.0])).enumerate_support(),
    lambda T: T.distributions.Binomial(T.tensor([2.0, 3.0]), T.tensor([0.5, 0.5])).enumerate_support(),
    lambda T: T.distributions.Independent(T.distributions.Bernoulli(T.tensor([0.2, 0.7])), 1).enumerate_support(),
]


@pytest.mark.parametrize("call", NOT_ENUMERABLE, ids=range(len(NOT_ENUMERABLE)))
def test_what_cannot_be_enumerated_is_refused_as_in_torch(call):
    both_raise(lambda: call(ag), lambda: call(torch))
    assert not ag.distributions.Normal(0.0, 1.0).has_enumerate_support
    assert not ag.distributions.Independent(ag.distributions.Bernoulli(ag.tensor([0.2, 0.7])),
                                            1).has_enumerate_support


def test_multinomials_support_is_torchs_multinomial_constraint():
    counts = [[3.0, 3.0], [1.0, 2.0], [4.0, 0.0], [-1.0, 2.0]]
    ours = ag.distributions.Multinomial(4, probs=ag.tensor([0.5, 0.5])).support
    theirs = torch.distributions.Multinomial(4, probs=torch.tensor([0.5, 0.5])).support
    assert repr(ours) == repr(theirs) and (ours.event_dim, ours.is_discrete) == (theirs.event_dim, theirs.is_discrete)
    np.testing.assert_array_equal(ours.check(ag.tensor(counts)).numpy(), theirs.check(torch.tensor(counts)).numpy())


def test_a_subclass_s_own_expand_in_torchs_pattern_ports():
    """The pattern PyTorch's documentation gives for a subclass: ``_get_checked_instance``, the base's
    ``__init__`` with ``validate_args=False``, then ``_validate_args`` copied."""
    results = []
    for T in (ag, torch):
        class Shifted(T.distributions.Distribution):
            arg_constraints = {}

            def __init__(self, loc, validate_args=None):
                self.loc = loc
                super().__init__(tuple(loc.shape), validate_args=validate_args)

            def expand(self, batch_shape, _instance=None):
                new = self._get_checked_instance(Shifted, _instance)
                new.loc = self.loc.expand(batch_shape)
                super(Shifted, new).__init__(tuple(batch_shape), validate_args=False)
                new._validate_args = self._validate_args
                return new

            def log_prob(self, value):
                return -(value - self.loc) ** 2

        big = Shifted(T.tensor([0.5, 1.0]), validate_args=True).expand((3, 2))
        results.append((tuple(big.batch_shape), big._validate_args, big.log_prob(T.ones(3, 2)).numpy()))

        class Plain(Shifted):
            def __init__(self, loc):
                super().__init__(loc)
        with pytest.raises(NotImplementedError, match="custom .expand"):
            T.distributions.Distribution._get_checked_instance(Plain(T.zeros(2)), Shifted)
    assert results[0][:2] == results[1][:2] == ((3, 2), True)
    np.testing.assert_allclose(results[0][2], results[1][2])
