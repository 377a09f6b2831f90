"""``autogradlab.distributions`` side by side with ``torch.distributions`` 2.13: log_prob, entropy, cdf, KL
divergences, means and variances with their gradients (a VAE's KL term, a policy gradient through log_prob),
sample shapes and dtypes, sample statistics, and the parameter and support checks."""
import math

import numpy as np
import pytest
from conftest import host, import_torch
from torch_compare import both_raise, close

import autogradlab as ag

torch = import_torch()
LOC, SCALE = np.array([0.5, -1.0, 2.0]), np.array([1.5, 0.3, 0.8])
LOGITS = np.array([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]])
PROBS = np.array([0.2, 0.9, 0.5])


def _run(build):
    """``build(T, D, params)`` -> a list of tensors; the params' gradients of their sum are appended."""
    results = []
    for T in (ag, torch):
        params = [T.tensor(LOC, requires_grad=True), T.tensor(SCALE, requires_grad=True),
                  T.tensor(LOGITS, requires_grad=True), T.tensor(PROBS, requires_grad=True)]
        outs = build(T, T.distributions, params)
        sum(o.sum() for o in outs).backward()
        results.append(outs + [p.grad if p.grad is not None else T.zeros(p.shape, dtype=p.dtype) for p in params])
    return results


CASES = {
    "normal": lambda T, D, p: [D.Normal(p[0], p[1]).log_prob(T.tensor([0.2, 0.1, 2.5])),
                               D.Normal(p[0], p[1]).entropy(), D.Normal(p[0], p[1]).cdf(T.tensor([0.0, -1.0, 3.0])),
                               D.Normal(p[0], p[1]).mean, D.Normal(p[0], p[1]).stddev, D.Normal(p[0], p[1]).variance],
    "normal-number-parameters": lambda T, D, p: [D.Normal(0.0, 2.0).log_prob(p[0]), D.Normal(p[0], 1.0).entropy()],
    "vae-kl": lambda T, D, p: [D.kl_divergence(D.Normal(p[0], p[1]), D.Normal(T.zeros(3, dtype=T.float64),
                                                                               T.ones(3, dtype=T.float64)))],
    "uniform": lambda T, D, p: [D.Uniform(p[0] - p[1], p[0] + p[1]).log_prob(p[0].detach()),
                                D.Uniform(p[0] - p[1], p[0] + p[1]).entropy(),
                                D.Uniform(p[0] - p[1], p[0] + p[1]).mean, D.Uniform(p[0] - p[1], p[0] + p[1]).variance],
    "bernoulli-probs": lambda T, D, p: [D.Bernoulli(probs=p[3]).log_prob(T.tensor([1.0, 0.0, 1.0], dtype=T.float64)),
                                        D.Bernoulli(probs=p[3]).entropy(), D.Bernoulli(probs=p[3]).logits],
    "bernoulli-logits": lambda T, D, p: [D.Bernoulli(logits=p[0]).log_prob(T.tensor([1.0, 0.0, 1.0], dtype=T.float64)),
                                         D.Bernoulli(logits=p[0]).entropy(), D.Bernoulli(logits=p[0]).probs],
    "categorical-logits": lambda T, D, p: [D.Categorical(logits=p[2]).log_prob(T.tensor([2, 0])),
                                           D.Categorical(logits=p[2]).entropy(), D.Categorical(logits=p[2]).probs,
                                           D.Categorical(logits=p[2]).logits],
    "categorical-probs": lambda T, D, p: [D.Categorical(probs=p[2].exp()).log_prob(T.tensor([[1, 2], [0, 0]])),
                                          D.Categorical(probs=p[2].exp()).entropy()],
    "kl-categorical": lambda T, D, p: [D.kl_divergence(D.Categorical(logits=p[2]), D.Categorical(logits=p[2] ** 2))],
    "kl-bernoulli": lambda T, D, p: [D.kl_divergence(D.Bernoulli(probs=p[3]), D.Bernoulli(logits=p[0]))],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_match_torch(name):
    ours, theirs = _run(CASES[name])
    for a, b in zip(ours, theirs):
        close(a, b, rtol=1e-10, atol=1e-12)


def test_a_policy_gradient_through_log_prob_matches_torch():
    """REINFORCE: -(log_prob(action) * advantage).mean() over a batch of fixed actions."""
    grads = []
    for T in (ag, torch):
        w = T.tensor(np.cos(np.arange(12.0)).reshape(4, 3), requires_grad=True)
        states = T.tensor(np.sin(np.arange(20.0)).reshape(5, 4))
        dist = T.distributions.Categorical(logits=states @ w)
        actions, advantage = T.tensor([0, 2, 1, 1, 0]), T.tensor([1.0, -0.5, 2.0, 0.1, -1.0], dtype=T.float64)
        (-(dist.log_prob(actions) * advantage).mean() - 0.01 * dist.entropy().mean()).backward()
        grads.append(w.grad)
    close(*grads, rtol=1e-10)


def test_samples_have_torchs_shapes_and_dtypes_and_the_right_statistics():
    ag.manual_seed(0)
    for T in (ag, torch):
        D = T.distributions
        n = D.Normal(T.tensor(LOC), T.tensor(SCALE))
        assert tuple(n.sample().shape) == (3,) and tuple(n.sample((4, 2)).shape) == (4, 2, 3)
        assert not n.sample().requires_grad
        c = D.Categorical(logits=T.tensor(LOGITS))
        draw = c.sample((7,))
        assert tuple(draw.shape) == (7, 2) and str(draw.dtype).endswith("int64")
        b = D.Bernoulli(probs=T.tensor(PROBS))
        assert tuple(b.sample((5,)).shape) == (5, 3) and str(b.sample().dtype).endswith("float64")
        assert tuple(D.Uniform(0.0, 1.0).sample((2,)).shape) == (2,)
    loc = ag.tensor(LOC, requires_grad=True)
    z = ag.distributions.Normal(loc, ag.tensor(SCALE)).rsample((20000,))
    assert z.requires_grad
    np.testing.assert_allclose(host(z.detach().data).mean(0), LOC, atol=4 * SCALE.max() / math.sqrt(20000))
    np.testing.assert_allclose(host(z.detach().data).std(0), SCALE, rtol=0.03)
    counts = np.bincount(host(ag.distributions.Categorical(probs=ag.tensor([0.1, 0.6, 0.3])).sample((20000,)).data),
                         minlength=3) / 20000
    np.testing.assert_allclose(counts, [0.1, 0.6, 0.3], atol=0.015)
    assert abs(float(ag.distributions.Bernoulli(probs=0.25).sample((20000,)).mean()) - 0.25) < 0.015


@pytest.mark.parametrize("call", [
    lambda T: T.distributions.Normal(0.0, -1.0),
    lambda T: T.distributions.Normal(T.tensor([0.0, 1.0]), T.tensor([1.0, 0.0])),
    lambda T: T.distributions.Bernoulli(probs=T.tensor([0.5, 1.5])),
    lambda T: T.distributions.Bernoulli(probs=T.tensor([0.5]), logits=T.tensor([0.0])),
    lambda T: T.distributions.Categorical(probs=T.tensor([0.5, -0.1, 0.6])),
    lambda T: T.distributions.Uniform(2.0, 1.0),
    lambda T: T.distributions.Uniform(0.0, 2.0).log_prob(T.tensor([0.5, 3.0])),
    lambda T: T.distributions.Categorical(logits=T.zeros(3)).log_prob(T.tensor(3)),
    lambda T: T.distributions.Bernoulli(probs=T.tensor([0.5])).log_prob(T.tensor([0.5])),
], ids=["negative-scale", "zero-scale", "probs-above-1", "probs-and-logits", "negative-probs", "low-above-high",
        "outside-uniform", "category-out-of-range", "bernoulli-not-0-or-1"])
def test_parameters_and_values_are_checked_as_torch(call):
    both_raise(lambda: call(ag), lambda: call(torch))


def test_checks_can_be_turned_off_as_torch():
    for T in (ag, torch):
        assert float(T.distributions.Uniform(0.0, 2.0, validate_args=False).log_prob(T.tensor(3.0))) == -math.inf
