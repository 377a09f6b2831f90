"""Lazy layers (``LazyLinear``, ``LazyConv*``, ``LazyBatchNorm*``), as Dive into Deep Learning builds networks,
side by side with torch 2.13: the placeholders before the first call, the layer each becomes, an optimizer built
before it, loading a state dict into one, and the errors."""
import numpy as np
import pytest
from conftest import import_torch
from torch_compare import both_raise, close

import autogradlab as ag

torch = import_torch()
X = np.cos(np.arange(40.0)).reshape(2, 20)


def test_the_d2l_mlp_before_and_after_its_first_call_as_torch():
    for T in (ag, torch):
        net = T.nn.Sequential(T.nn.LazyLinear(256), T.nn.ReLU(), T.nn.LazyLinear(10))
        before = repr(net)
        assert repr(net[0].weight) == "<UninitializedParameter>" and net[0].in_features == 0
        assert type(net[0].weight).__name__ == "UninitializedParameter" and net[0].weight.requires_grad
        with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
            net[0].weight.shape
        weight = net[0].weight
        out = net(T.tensor(X, dtype=T.float32))
        assert type(net[0]) is T.nn.Linear and not isinstance(net[0], T.nn.LazyLinear)
        assert net[0].weight is weight and type(weight) is T.nn.Parameter       # the same object, now made
        assert tuple(net[0].weight.shape) == (256, 20) and tuple(net[2].weight.shape) == (10, 256)
        assert tuple(out.shape) == (2, 10) and net[0].in_features == 20
        if T is ag:
            ours = (before, repr(net))
        else:
            assert ours == (before, repr(net))


def test_a_lazy_layer_draws_the_plain_layers_initial_values_at_its_first_call():
    ag.manual_seed(3)
    ag.nn.LazyLinear(5)
    after_placeholder = ag.rand(2).tolist()
    ag.manual_seed(3)
    assert ag.rand(2).tolist() == after_placeholder        # (making the placeholder draws nothing)
    ag.manual_seed(3)
    lazy = ag.nn.LazyLinear(5)
    lazy(ag.ones(1, 4))
    ag.manual_seed(3)
    plain = ag.nn.Linear(4, 5)
    np.testing.assert_array_equal(lazy.weight.detach().numpy(), plain.weight.detach().numpy())
    np.testing.assert_array_equal(lazy.bias.detach().numpy(), plain.bias.detach().numpy())


def test_an_optimizer_built_before_the_first_call_trains_it_as_torch():
    models = []
    for T in (ag, torch):
        T.manual_seed(0)
        net = T.nn.Sequential(T.nn.LazyLinear(4), T.nn.Tanh(), T.nn.LazyLinear(1))
        opt = T.optim.SGD(net.parameters(), lr=0.1)
        x = T.tensor(X, dtype=T.float32)
        net(x)
        models.append((net, opt, x))
    (ours, opt, x), (theirs, topt, tx) = models
    with ag.no_grad():                        # (each library draws its own initial values: start from torch's)
        for p, q in zip(ours.parameters(), theirs.parameters()):
            p.copy_(ag.tensor(q.detach().numpy()))
    for _ in range(3):
        for net, o, inp in ((ours, opt, x), (theirs, topt, tx)):
            o.zero_grad()
            (net(inp) ** 2).sum().backward()
            o.step()
    for p, q in zip(ours.parameters(), theirs.parameters()):
        close(p, q, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name, args, kwargs, shape", [
    ("LazyConv1d", (4, 3), {}, (2, 3, 8)), ("LazyConv1d", (4, 3), dict(padding=1), (3, 8)),
    ("LazyConv2d", (6, 3), dict(stride=2, padding=1, groups=2), (1, 4, 7, 7)),
    ("LazyConv2d", (5, (2, 3)), dict(bias=False), (2, 6, 6)),
    ("LazyConvTranspose1d", (4, 2), dict(stride=2), (2, 3, 5)),
    ("LazyConvTranspose2d", (4, 3), dict(output_padding=1, stride=2), (1, 2, 4, 4)),
    ("LazyBatchNorm1d", (), {}, (5, 3)), ("LazyBatchNorm1d", (), dict(momentum=None), (4, 3, 6)),
    ("LazyBatchNorm2d", (), dict(affine=False), (2, 3, 4, 4)),
    ("LazyBatchNorm2d", (), dict(track_running_stats=False), (2, 3, 4, 4)),
    ("LazyConv3d", (4, 2), dict(padding=1), (2, 3, 4, 4, 4)), ("LazyConv3d", (2, (1, 2, 2)), {}, (3, 3, 3, 3)),
    ("LazyBatchNorm3d", (), {}, (2, 3, 2, 2, 2))], ids=str)
def test_the_lazy_convolutions_and_batch_norms_become_torchs_layers(name, args, kwargs, shape):
    seen = []
    for T in (ag, torch):
        layer = getattr(T.nn, name)(*args, **kwargs)
        before = (repr(layer), sorted((n, type(t).__name__) for n, t in layer.named_parameters()),
                  sorted((n, type(t).__name__) for n, t in layer.named_buffers()))
        out = layer(T.ones(*shape))
        after = (repr(layer), type(layer).__name__, tuple(out.shape),
                 [(n, tuple(p.shape)) for n, p in layer.named_parameters()],
                 [(n, tuple(b.shape)) for n, b in layer.named_buffers()])
        seen.append((before, after))
    assert seen[0] == seen[1]


def test_loading_a_state_dict_into_a_lazy_layer_as_torch():
    for T in (ag, torch):
        source = T.nn.Linear(4, 3)
        lazy = T.nn.LazyLinear(3)
        assert repr(lazy.load_state_dict(source.state_dict())) == "<All keys matched successfully>"
        x = T.tensor(X[:, :4], dtype=T.float32)
        np.testing.assert_array_equal(lazy(x).detach().numpy(), source(x).detach().numpy())
        assert type(lazy) is T.nn.Linear


def test_the_mode_set_before_the_first_call_stays_and_the_errors_are_torchs():
    for T in (ag, torch):
        bn = T.nn.LazyBatchNorm1d().eval()
        bn(T.ones(3, 2))
        assert not bn.training and bn.running_mean.tolist() == [0.0, 0.0]      # eval: the statistics stay
        with pytest.raises(ValueError, match="uninitialized parameter"):
            T.optim.Adagrad(T.nn.LazyLinear(3).parameters())
    both_raise(lambda: ag.nn.LazyConv2d(4, 3)(ag.ones(2, 3)), lambda: torch.nn.LazyConv2d(4, 3)(torch.ones(2, 3)))
    with pytest.raises(RuntimeError, match="Expected 3D .unbatched. or 4D .batched. input to LazyConv2d"):
        ag.nn.LazyConv2d(4, 3)(ag.ones(2, 3))
    with pytest.raises(ValueError, match="out_channels must be divisible by groups"):
        ag.nn.LazyConv2d(5, 3, groups=2)          # (here when it is made; torch at its first call)


def test_a_cast_or_move_before_the_first_call_is_kept_and_lazy_loads_into_lazy_as_torch():
    """D2L's trainer moves the net before its first call: ``net.to(device)``, ``.double()``."""
    for T in (ag, torch):
        linear = T.nn.LazyLinear(4).double()
        out = linear(T.ones(2, 5, dtype=T.float64))
        assert linear.weight.dtype == T.float64 and out.dtype == T.float64
        norm = T.nn.LazyBatchNorm2d().to(T.float64)
        norm(T.ones(2, 3, 4, 4, dtype=T.float64))
        assert norm.running_mean.dtype == T.float64 and tuple(norm.running_mean.shape) == (3,)
        a, b = T.nn.LazyLinear(4), T.nn.LazyLinear(4)
        b.load_state_dict(a.state_dict())            # (both still placeholders: b stays one)
        assert tuple(b(T.ones(2, 5)).shape) == (2, 4) and tuple(b.weight.shape) == (4, 5)
    device = ag.ones(1).device                       # (the stand-in GPU pass: a move from the CPU to it)
    lazy = ag.nn.LazyLinear(4, device="cpu").to(device)
    assert lazy(ag.ones(2, 5)).device == device and lazy.weight.device == device
