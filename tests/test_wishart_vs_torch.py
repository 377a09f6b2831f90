"""``distributions.Wishart`` side by side with torch 2.13, in float64: log_prob, entropy, mean, mode, variance and
their gradients in df and in Sigma, for each way of giving Sigma; the same gradients by finite differences; the
Bartlett draws by their moments and their pathwise gradient by its expectation; expand, arg_constraints, reprs,
the warnings and the refusals."""
import warnings

import numpy as np
import pytest
from conftest import host, import_torch
from torch_compare import both_raise, close

import autogradlab as ag
from autogradlab.testing import gradcheck

torch = import_torch()
pytestmark = pytest.mark.filterwarnings("ignore:Singular sample detected")   # (torch's, on every draw: its
#                                                                              check of singularity is inverted)

SIGMA = np.array([[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 0.5]])
X = np.array([[[3.0, 0.5, 0.2], [0.5, 2.0, 0.1], [0.2, 0.1, 1.5]],
              [[1.0, -0.4, 0.0], [-0.4, 0.8, 0.3], [0.0, 0.3, 2.5]]])
DF = np.array([4.5, 3.2])


def _given(T, how, sigma):
    if how == "covariance_matrix":
        return sigma
    if how == "precision_matrix":
        return T.linalg.inv(sigma)
    return T.linalg.cholesky(sigma)


def _everything(T, how):
    df = T.tensor(DF, dtype=T.float64, requires_grad=True)
    sigma = T.tensor(SIGMA, dtype=T.float64, requires_grad=True)
    w = T.distributions.Wishart(df, **{how: _given(T, how, sigma)})
    out = {"log_prob": w.log_prob(T.tensor(X, dtype=T.float64)), "entropy": w.entropy(), "mean": w.mean,
           "variance": w.variance, "mode": w.mode, "covariance_matrix": w.covariance_matrix,
           "precision_matrix": w.precision_matrix, "scale_tril": w.scale_tril}
    grads = {name: T.autograd.grad(value.nan_to_num().sum(), [df, sigma], retain_graph=True, allow_unused=True)
             for name, value in out.items()}
    return w, out, grads


@pytest.mark.parametrize("how", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_values_and_gradients_match_torch(how):
    ours, theirs = _everything(ag, how), _everything(torch, how)
    assert (tuple(ours[0].batch_shape), tuple(ours[0].event_shape)) == \
        (tuple(theirs[0].batch_shape), tuple(theirs[0].event_shape))
    for name in ours[1]:
        close(ours[1][name], theirs[1][name], rtol=1e-10, atol=1e-12)
        for a, b in zip(ours[2][name], theirs[2][name]):
            assert (a is None) == (b is None), name
            if b is not None:
                close(a, b, rtol=1e-9, atol=1e-12)


def test_log_prob_and_entropy_gradients_pass_finite_differences():
    x = ag.tensor(X[0], dtype=ag.float64)

    def both(df, sigma):
        w = ag.distributions.Wishart(df, covariance_matrix=(sigma + sigma.mT) / 2, validate_args=False)
        return w.log_prob(x) + w.entropy()
    inputs = [ag.tensor([4.5], dtype=ag.float64, requires_grad=True),
              ag.tensor(SIGMA, dtype=ag.float64, requires_grad=True)]
    assert gradcheck(both, inputs, eps=1e-6, atol=1e-6, rtol=1e-5)


def test_draws_have_the_wishart_moments_and_the_pathwise_gradient_of_the_mean():
    """E X = df Sigma and Var X_ij = df (Sigma_ij^2 + Sigma_ii Sigma_jj): the sample mean within 4 standard
    errors; d/d df of sum(E X) = sum(Sigma), averaged over the draws."""
    ag.manual_seed(7)
    n = 20_000
    df = ag.tensor(4.5, dtype=ag.float64, requires_grad=True)
    w = ag.distributions.Wishart(df, covariance_matrix=ag.tensor(SIGMA, dtype=ag.float64))
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # (df well above p - 1: no singular draw, no warning)
        draws = w.rsample((n,))
    assert tuple(draws.shape) == (n, 3, 3) and draws.dtype == ag.float64
    assert bool(ag.distributions.constraints.positive_definite.check(draws.detach()).all())
    values = host(draws.detach().data)
    standard_error = np.sqrt(host(w.variance.detach().data) / n)
    assert np.all(np.abs(values.mean(0) - 4.5 * SIGMA) < 4 * standard_error)
    draws.mean(0).sum().backward()
    assert abs(df.grad.item() - SIGMA.sum()) < 0.05 * abs(SIGMA.sum())


def test_expand_arg_constraints_and_repr():
    for T in (ag, torch):
        w = T.distributions.Wishart(T.tensor(5.0, dtype=T.float64),
                                    scale_tril=T.eye(3, dtype=T.float64) * 2)
        big = w.expand((4, 2))
        assert tuple(big.batch_shape) == (4, 2) and tuple(big.event_shape) == (3, 3)
        assert tuple(big.sample().shape) == (4, 2, 3, 3)
    ours = ag.distributions.Wishart(ag.tensor([5.0, 6.0]), covariance_matrix=ag.eye(3))
    theirs = torch.distributions.Wishart(torch.tensor([5.0, 6.0]), covariance_matrix=torch.eye(3))
    close(ours.expand((4, 2)).log_prob(ag.eye(3) * 2), theirs.expand((4, 2)).log_prob(torch.eye(3) * 2), rtol=1e-5)
    assert {k: repr(v) for k, v in ours.arg_constraints.items()} == \
        {k: repr(v) for k, v in theirs.arg_constraints.items()}
    assert repr(ours) == repr(theirs).replace("torch.Size([2, 3, 3])", "(2, 3, 3)").replace("torch.Size([2])", "(2,)")


def test_a_low_df_warns_as_in_torch():
    for T in (ag, torch):
        with pytest.warns(UserWarning, match="Low df values detected"):
            T.distributions.Wishart(T.tensor(2.5), covariance_matrix=T.eye(3))


REFUSALS = [
    lambda T: T.distributions.Wishart(T.tensor(4.0), covariance_matrix=T.eye(2), scale_tril=T.eye(2)),
    lambda T: T.distributions.Wishart(T.tensor(4.0)),
    lambda T: T.distributions.Wishart(T.tensor(1.5), covariance_matrix=T.eye(3)),
    lambda T: T.distributions.Wishart(T.tensor(4.0), covariance_matrix=T.tensor([[1.0, 2.0], [2.0, 1.0]])),
    lambda T: T.distributions.Wishart(T.tensor(4.0), scale_tril=T.tensor([[1.0, 1.0], [0.0, 1.0]])),
    lambda T: T.distributions.Wishart(T.tensor(4.0), covariance_matrix=T.ones(3)),
    lambda T: T.distributions.Wishart(T.tensor(4.0), covariance_matrix=T.eye(2)).log_prob(
        T.tensor([[1.0, 2.0], [2.0, 1.0]])),
]


@pytest.mark.parametrize("call", REFUSALS, ids=range(len(REFUSALS)))
def test_refusals_are_torchs(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # (a low df warns first)
        both_raise(lambda: call(ag), lambda: call(torch))
