"""``ExponentialFamily`` (``distributions/exponential_family.py``): the same members as torch 2.13's; each
member's natural parameters and log-normalizer checked through what the engine derives from them (the Bregman
entropy against the closed-form entropy, the Bregman KL against the closed-form KL, values and gradients for both
distributions' parameters), and the Wishart pair's KL against torch's."""
import numpy as np
import pytest
from conftest import import_torch
from torch_compare import close

import autogradlab as ag
from autogradlab.distributions.exponential_family import ExponentialFamily, _kl_expfamily_expfamily
from autogradlab.distributions.kl import _lookup

torch = import_torch()
pytestmark = pytest.mark.filterwarnings("ignore:Singular sample detected")


def _pair(T, name, shift):
    """name -> (a distribution, its parameters) in float64, ``shift`` moving the parameters."""
    D = T.distributions

    def t(*v):
        return T.tensor(np.array(v) + shift, dtype=T.float64, requires_grad=True)
    if name == "Normal":
        params = [t(0.3, -1.0), t(0.7, 2.0)]
    elif name in ("Exponential", "Poisson", "Chi2"):
        params = [t(0.5, 3.0)]
    elif name in ("Bernoulli", "ContinuousBernoulli"):
        params = [t(0.2, 0.7, 0.4995)]
    elif name in ("Gamma", "Beta"):
        params = [t(1.5, 0.6), t(2.0, 0.9)]
    elif name == "Dirichlet":
        params = [t([1.5, 0.6, 3.0], [0.8, 2.0, 1.1])]
    else:   # Wishart
        params = [t(4.5, 3.5), T.tensor(np.array([[2.0, 0.3], [0.3, 1.0]]) * (1 + shift), dtype=T.float64,
                                        requires_grad=True)]
        return D.Wishart(params[0], covariance_matrix=params[1]), params
    return getattr(D, name)(*params), params


MEMBERS = ["Bernoulli", "Beta", "Chi2", "ContinuousBernoulli", "Dirichlet", "Exponential", "Gamma", "Normal",
           "Poisson", "Wishart"]


def test_the_members_are_torchs():
    ours = {n for n in ag.distributions.__all__ if isinstance(getattr(ag.distributions, n), type)
            and issubclass(getattr(ag.distributions, n), ExponentialFamily)}
    theirs = {n for n in torch.distributions.__all__ if isinstance(getattr(torch.distributions, n), type)
              and issubclass(getattr(torch.distributions, n), torch.distributions.ExponentialFamily)}
    assert ours == theirs == set(MEMBERS) | {"ExponentialFamily"}


@pytest.mark.parametrize("name", [n for n in MEMBERS if n not in ("Beta", "Dirichlet", "Poisson")])
def test_the_bregman_entropy_is_the_closed_form(name):
    """H = A(theta) - <theta, grad A> - E[k]: the natural parameters and A are right, the engine's grad A too
    (Beta, Dirichlet and Poisson have a carrier measure whose mean has no closed form; torch gives none)."""
    d, params = _pair(ag, name, 0.0)
    generic, closed = ExponentialFamily.entropy(d), d.entropy()
    close(generic, closed, rtol=1e-9, atol=1e-12)
    g1 = ag.autograd.grad(generic.sum(), params, retain_graph=True, allow_unused=True, materialize_grads=True)
    g2 = ag.autograd.grad(closed.sum(), params, allow_unused=True, materialize_grads=True)
    for a, b in zip(g1, g2):   # (a Normal's entropy does not depend on loc: 0 both ways)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("name", [n for n in MEMBERS if n != "Wishart"])
def test_the_bregman_kl_is_the_closed_form_with_gradients_for_both_sides(name):
    """The Bregman KL against the registered closed form (a pair of each member): values, and the gradients for
    p's parameters too (torch detaches p's natural parameters here, so its Bregman KL gives p none)."""
    (p, p_params), (q, q_params) = _pair(ag, name, 0.0), _pair(ag, name, 0.15)
    assert _lookup(type(p), type(q)) is not _kl_expfamily_expfamily   # (a closed form to compare with)
    generic, closed = _kl_expfamily_expfamily(p, q), ag.distributions.kl_divergence(p, q)
    close(generic, closed, rtol=1e-8, atol=1e-11)
    for a, b in zip(ag.autograd.grad(generic.sum(), p_params + q_params, retain_graph=True),
                    ag.autograd.grad(closed.sum(), p_params + q_params)):
        close(a, b, rtol=1e-7, atol=1e-10)


def _wishart(T, df, scale):
    sigma = np.array([[2.0, 0.3], [0.3, 1.0]]) * scale
    return T.distributions.Wishart(df, covariance_matrix=T.tensor(sigma, dtype=T.float64))


def test_the_wishart_kl_of_one_pair_is_torchs():
    values = []
    for T in (ag, torch):
        df = T.tensor(4.5, dtype=T.float64, requires_grad=True)
        kl = T.distributions.kl_divergence(_wishart(T, T.tensor(5.0, dtype=T.float64), 1.0), _wishart(T, df, 1.3))
        values.append([kl, T.autograd.grad(kl, [df])[0]])
    for a, b in zip(*values):
        close(a, b, rtol=1e-9, atol=1e-12)


def test_a_batch_of_wishart_kls_is_each_pair_s_kl_with_its_own_gradient():
    """torch's Bregman KL sums the df term over the batch dims as well (it sums as many trailing dims as the
    event has, and df has none), so a batch's elements leak into each other; here each is its own pair's KL, and
    the gradient in p's df (which torch's detached version loses) is the central difference."""
    df_p = ag.tensor([4.5, 3.5], dtype=ag.float64, requires_grad=True)
    df_q = ag.tensor([4.7, 3.2], dtype=ag.float64)
    batch = ag.distributions.kl_divergence(_wishart(ag, df_p, 1.0), _wishart(ag, df_q, 1.2))
    for i in range(2):
        alone = ag.distributions.kl_divergence(_wishart(ag, df_p[i].detach(), 1.0), _wishart(ag, df_q[i], 1.2))
        np.testing.assert_allclose(batch[i].item(), alone.item(), rtol=1e-12)
    (g,) = ag.autograd.grad(batch.sum(), [df_p])
    step = 1e-6
    for i in range(2):
        bump = np.zeros(2)
        bump[i] = step
        up, down = (ag.distributions.kl_divergence(_wishart(ag, ag.tensor(df_p.detach().numpy() + s * bump), 1.0),
                                                   _wishart(ag, df_q, 1.2)).sum().item() for s in (1, -1))
        np.testing.assert_allclose(g[i].item(), (up - down) / (2 * step), rtol=1e-6)


def test_two_families_are_refused_and_membership_is_torchs():
    with pytest.raises(NotImplementedError, match="different exponential families"):
        _kl_expfamily_expfamily(ag.distributions.Normal(0.0, 1.0), ag.distributions.Exponential(1.0))
    for T in (ag, torch):
        assert isinstance(T.distributions.Normal(0.0, 1.0), T.distributions.ExponentialFamily)
        assert not isinstance(T.distributions.Laplace(0.0, 1.0), T.distributions.ExponentialFamily)
