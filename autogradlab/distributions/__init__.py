"""``torch.distributions``, for VAE, reinforcement-learning, Bayesian and Gaussian labs. Where each lives:

- ``Normal``, ``Uniform``, ``Exponential``, ``Laplace``, ``MultivariateNormal``, ``LogisticNormal``
  (``continuous.py``); ``Independent`` and the base ``Distribution`` (``distribution.py``); the
  ``ExponentialFamily`` base, whose entropy and KL the engine derives from the log-normalizer
  (``exponential_family.py``);
- ``Bernoulli``, ``Categorical``, ``OneHotCategorical(StraightThrough)``, ``Geometric``, ``Binomial``
  (``discrete.py``); ``Multinomial``, ``NegativeBinomial`` (``counts.py``);
- the gamma family ``Gamma``, ``Chi2``, ``Beta``, ``Dirichlet``, ``Poisson`` (``gamma_family.py``);
- ``Cauchy``, ``Gumbel``, ``HalfNormal``, ``HalfCauchy``, ``LogNormal``, ``StudentT``, ``VonMises``
  (``more_continuous.py``); ``Weibull``, ``Pareto``, ``InverseGamma``, ``FisherSnedecor``, ``Kumaraswamy``,
  ``ContinuousBernoulli`` (``positive.py``); ``GeneralizedPareto`` (``generalized_pareto.py``);
- ``LowRankMultivariateNormal`` (``low_rank.py``), ``Wishart`` (``wishart.py``), ``MixtureSameFamily``
  (``mixture.py``), ``RelaxedBernoulli`` and ``RelaxedOneHotCategorical`` (``relaxed.py``);
- ``LKJCholesky`` and ``CorrCholeskyTransform`` (``lkj.py``);
- ``TransformedDistribution`` (``transformed.py``) with the transforms (gathered in ``transforms.py``),
  ``constraints`` and ``biject_to`` / ``transform_to`` (``constraint_registry.py``);
- ``kl_divergence`` for the registered pairs (``kl.py``; ``register_kl`` adds yours): two of a kind next to
  their classes, the rest of torch's pairs in ``kl_pairs.py``.

Every class has ``arg_constraints`` and ``expand``. ``log_prob``, ``entropy`` and ``rsample`` (the
reparameterised sample, ``loc + scale * eps``) are built from differentiable ops, so gradients reach the
parameters (a policy gradient through ``log_prob``, a VAE's KL term); ``sample`` is a constant. Draws come from
the library's generator (``manual_seed``). Parameters are checked as PyTorch checks them.

    dist = Categorical(logits=policy(state))
    action = dist.sample()
    loss = -(dist.log_prob(action) * advantage).sum()
"""
from __future__ import annotations

from . import constraints, transforms
from .distribution import Distribution, Independent
from .exponential_family import ExponentialFamily
from .kl import kl_divergence, register_kl
from .continuous import Exponential, Laplace, LogisticNormal, MultivariateNormal, Normal, Uniform
from .gamma_family import Beta, Chi2, Dirichlet, Gamma, Poisson
from .discrete import Bernoulli, Binomial, Categorical, Geometric, OneHotCategorical, OneHotCategoricalStraightThrough
from .mixture import MixtureSameFamily
from .counts import Multinomial, NegativeBinomial
from .positive import ContinuousBernoulli, FisherSnedecor, InverseGamma, Kumaraswamy, Pareto, Weibull
from .low_rank import LowRankMultivariateNormal
from .generalized_pareto import GeneralizedPareto
from .wishart import Wishart
from .lkj import CorrCholeskyTransform, LKJCholesky
from .relaxed import RelaxedBernoulli, RelaxedOneHotCategorical
from .more_continuous import Cauchy, Gumbel, HalfCauchy, HalfNormal, LogNormal, StudentT, VonMises
from .transformed import TransformedDistribution
from .more_transforms import (CumulativeDistributionTransform, IndependentTransform, LowerCholeskyTransform,
                              PositiveDefiniteTransform, ReshapeTransform, SoftmaxTransform, StickBreakingTransform)
from .joined_transforms import CatTransform, StackTransform
from .constraint_registry import biject_to, transform_to
from . import kl_pairs  # noqa: F401,E402  (registers the KL pairs across families and the rest of torch's)
from .transforms import (AbsTransform, AffineTransform, ComposeTransform, ExpTransform, PowerTransform,
                         SigmoidTransform, SoftplusTransform, TanhTransform, Transform, identity_transform)

__all__ = ["Distribution", "Normal", "Uniform", "Bernoulli", "Categorical", "OneHotCategorical", "Exponential",
           "Laplace", "MultivariateNormal", "Independent", "Gamma", "Chi2", "Beta", "Dirichlet", "Poisson", "Cauchy",
           "Gumbel", "HalfNormal", "HalfCauchy", "LogNormal", "StudentT", "Geometric", "Binomial",
           "TransformedDistribution", "Transform", "ComposeTransform", "ExpTransform", "PowerTransform",
           "SigmoidTransform", "TanhTransform", "SoftplusTransform", "AbsTransform", "AffineTransform",
           "identity_transform", "constraints", "transforms", "MixtureSameFamily", "kl_divergence", "register_kl",
           "Multinomial", "NegativeBinomial", "RelaxedBernoulli", "RelaxedOneHotCategorical", "FisherSnedecor",
           "InverseGamma", "Kumaraswamy", "Pareto", "Weibull", "CumulativeDistributionTransform",
           "IndependentTransform", "LowerCholeskyTransform", "ReshapeTransform", "SoftmaxTransform",
           "StickBreakingTransform", "biject_to", "transform_to", "LowRankMultivariateNormal", "VonMises",
           "ContinuousBernoulli", "GeneralizedPareto", "LogisticNormal", "OneHotCategoricalStraightThrough", "Wishart",
           "LKJCholesky", "CorrCholeskyTransform", "PositiveDefiniteTransform", "CatTransform", "StackTransform",
           "ExponentialFamily"]
