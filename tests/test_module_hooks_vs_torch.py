"""Module hooks and the rest of ``nn.Module``'s API that lab code reaches for, side by side with torch 2.13:
forward pre-hooks and forward hooks (new args, new output, ``with_kwargs``, ``prepend``, ``always_call``,
removing), full backward hooks and backward pre-hooks (the gradients they see and the ones they return),
activations and gradients captured as Grad-CAM does, ``apply``, ``get_submodule``/``get_parameter``/
``get_buffer``, the list methods of ``ModuleList`` and ``Sequential``, ``repr`` with ``extra_repr``, and the
forms of ``to``."""
from collections import OrderedDict

import numpy as np
import pytest
from conftest import host, import_torch
from torch_compare import both_raise, close, close_all, run_both

import autogradlab as ag

torch = import_torch()
X = np.sin(np.arange(12.0)).reshape(4, 3)
W = np.cos(np.arange(6.0)).reshape(2, 3)
B = np.array([0.1, -0.2])


def _linear(T):
    lin = T.nn.Linear(3, 2, dtype=T.float64)
    with T.no_grad():
        lin.weight.copy_(T.tensor(W))
        lin.bias.copy_(T.tensor(B))
    return lin




def test_forward_pre_hooks_and_forward_hooks_change_args_and_output_as_torchs():
    def run(T):
        lin, seen = _linear(T), []
        lin.register_forward_pre_hook(lambda m, args: (args[0] * 2,))
        lin.register_forward_pre_hook(lambda m, args: seen.append(("pre", args[0].sum().item())))
        lin.register_forward_hook(lambda m, args, out: out + 1)
        lin.register_forward_hook(lambda m, args, out: seen.append(("post", out.sum().item())), prepend=True)
        out = lin(T.tensor(X))
        return out, seen
    (ours, seen), (theirs, their_seen) = run_both(run)
    close(ours, theirs, rtol=1e-12)
    assert [k for k, _ in seen] == [k for k, _ in their_seen]
    assert [v for _, v in seen] == pytest.approx([v for _, v in their_seen], rel=1e-12)


def test_hooks_with_kwargs_always_call_and_removal_as_torchs():
    def run(T):
        class Scale(T.nn.Module):
            def forward(self, x, *, factor=1.0):
                if factor < 0:
                    raise ValueError("negative factor")
                return x * factor
        m, seen = Scale(), []
        m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {"factor": kwargs["factor"] * 10}),
                                    with_kwargs=True)
        handle = m.register_forward_hook(lambda mod, args, kwargs, out: seen.append(kwargs["factor"]),
                                         with_kwargs=True)
        m.register_forward_hook(lambda mod, args, out: seen.append("always"), always_call=True)
        first = m(T.ones(2), factor=0.5)
        handle.remove()
        second = m(T.ones(2), factor=0.25)
        with pytest.raises(ValueError):
            m(T.ones(2), factor=-1.0)
        return [first.tolist(), second.tolist()], seen
    assert run_both(run)[0] == run_both(run)[1]


def test_full_backward_hooks_see_and_replace_gradients_as_torchs():
    def run(T):
        lin, seen = _linear(T), []

        def hook(module, grad_input, grad_output):
            seen.append((grad_input[0].clone(), grad_output[0].clone()))
            return (grad_input[0] * 3,)
        lin.register_full_backward_hook(hook)
        lin.register_full_backward_pre_hook(lambda module, grad_output: (grad_output[0] * 2,))
        x = T.tensor(X, requires_grad=True)
        (lin(x) ** 2).sum().backward()
        return [x.grad, lin.weight.grad, lin.bias.grad, seen[0][0], seen[0][1]], len(seen)
    (ours, n), (theirs, n_theirs) = run_both(run)
    assert n == n_theirs == 1
    close_all(ours, theirs)


def test_a_backward_hook_on_a_layer_whose_input_needs_no_grad_gets_none_as_torchs():
    def run(T):
        net = T.nn.Sequential(_linear(T), T.nn.Tanh())
        seen = []
        net[0].register_full_backward_hook(lambda m, gi, go: seen.append((gi, go[0].clone())))
        with pytest.warns(UserWarning, match="(?i)full backward hook"):   # (torch warns, and so do we)
            net(T.tensor(X)).sum().backward()
        (grad_input, grad_output), = seen
        assert grad_input == (None,)
        return [grad_output, net[0].weight.grad]
    close_all(*run_both(run))


def test_grad_cam_style_capture_of_activations_and_their_gradients_as_torchs():
    def run(T):
        T.manual_seed(0)
        conv = T.nn.Conv2d(1, 2, 3, dtype=T.float64)
        with T.no_grad():
            conv.weight.copy_(T.tensor(np.sin(np.arange(18.0)).reshape(2, 1, 3, 3)))
            conv.bias.zero_()
        net = T.nn.Sequential(conv, T.nn.ReLU(), T.nn.Flatten(), T.nn.Linear(2 * 4 * 4, 3, dtype=T.float64))
        with T.no_grad():
            net[3].weight.copy_(T.tensor(np.cos(np.arange(96.0)).reshape(3, 32)))
            net[3].bias.zero_()
        store = {}
        net[0].register_forward_hook(lambda m, i, o: store.__setitem__("act", o.detach()))
        net[0].register_full_backward_hook(lambda m, gi, go: store.__setitem__("grad", go[0].detach()))
        image = T.tensor(np.cos(np.arange(36.0)).reshape(1, 1, 6, 6), requires_grad=True)
        net(image)[0, 1].backward()
        cam = (store["grad"].mean(dim=(2, 3), keepdim=True) * store["act"]).sum(1).relu()
        return [store["act"], store["grad"], cam, image.grad]
    close_all(*run_both(run))


def test_a_backward_hook_on_a_module_that_returns_its_input_sees_both_gradients_as_torchs():
    def run(T):
        seen = []
        for module in (T.nn.Identity(), T.nn.Dropout(0.5).eval()):
            module.register_full_backward_hook(lambda m, gi, go: seen.append([gi[0].clone(), go[0].clone()]))
            x = T.tensor(X, requires_grad=True)
            (module(x) * 3).sum().backward()
            seen.append([x.grad])
        return [t for group in seen for t in group]
    close_all(*run_both(run))


def test_a_failed_insert_leaves_the_container_as_it_was_and_insert_returns_as_torchs():
    for T in (ag, torch):
        containers = [T.nn.Sequential(T.nn.ReLU(), T.nn.Tanh())]
        if T is ag:     # (torch's ModuleList.insert takes a function without a word; ours refuses it too)
            containers.append(T.nn.ModuleList([T.nn.ReLU(), T.nn.Tanh()]))
        for container in containers:
            with pytest.raises(TypeError if T is ag else AssertionError):
                container.insert(1, lambda v: v)
            assert [type(m).__name__ for m in container] == ["ReLU", "Tanh"]
        seq = T.nn.Sequential(T.nn.ReLU())
        assert seq.insert(0, T.nn.Tanh()) is seq
        assert T.nn.ModuleList([T.nn.ReLU()]).insert(0, T.nn.Tanh()) is None
        with pytest.raises(IndexError):
            seq.insert(5, T.nn.ReLU())


def test_backward_hooks_of_modules_with_several_inputs_and_outputs_as_torchs():
    def run(T):
        class Pair(T.nn.Module):
            def forward(self, a, b, scale):
                return a * b * scale, a + b, a.sum()
        seen = []
        m = Pair()
        m.register_full_backward_pre_hook(lambda mod, go: seen.append(("pre", len(go))))
        m.register_full_backward_hook(lambda mod, gi, go: seen.append(
            (len(gi), gi[2], [None if g is None else g.clone() for g in gi[:2]],
             [None if g is None else g.clone() for g in go])) or (gi[0] * 10, gi[1], None))
        a = T.tensor(X[0], requires_grad=True)
        b = T.tensor(X[1], requires_grad=True)
        product, total, _ = m(a, b, 2.0)
        (product * total).sum().backward()
        pre, (n, none, grad_input, grad_output) = seen
        assert pre == ("pre", 3) and n == 3 and none is None and grad_output[2] is None
        return [a.grad, b.grad, *grad_input, *grad_output[:2]]
    close_all(*run_both(run))


def test_backward_hook_refusals_name_the_fix():
    class Odd(ag.nn.Module):
        def forward(self, a):
            return {"out": a * 2}
    m = Odd()
    m.register_full_backward_hook(lambda *a: None)
    with pytest.raises(NotImplementedError, match="a tensor, or a tuple or list of them"):
        m(ag.ones(2, requires_grad=True))
    lin = ag.nn.Linear(3, 2)
    lin.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
    x = ag.ones(1, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="returned 2 gradients.*takes 1 positional"):
        lin(x).sum().backward()


def test_apply_visits_children_first_as_torchs():
    def run(T):
        net = T.nn.Sequential(T.nn.Linear(2, 3), T.nn.Sequential(T.nn.ReLU(), T.nn.Linear(3, 1)))
        order = []

        def init(m):
            order.append(type(m).__name__)
            if isinstance(m, T.nn.Linear):
                T.nn.init.constant_(m.weight, 0.5)
                T.nn.init.zeros_(m.bias)
        assert net.apply(init) is net
        return order, [p.sum().item() for p in net.parameters()]
    assert run_both(run)[0] == run_both(run)[1]


def test_get_submodule_parameter_and_buffer_as_torchs():
    def build(T):
        return T.nn.Sequential(OrderedDict(enc=T.nn.Sequential(T.nn.Linear(2, 2), T.nn.BatchNorm1d(2)),
                                           head=T.nn.Linear(2, 1)))
    ours, theirs = build(ag), build(torch)
    for net in (ours, theirs):
        assert net.get_submodule("enc.1") is net.enc[1] and net.get_submodule("") is net
        assert net.get_parameter("head.bias") is net.head.bias
        assert net.get_buffer("enc.1.running_var") is net.enc[1].running_var
    for call in (lambda n: n.get_submodule("enc.7"), lambda n: n.get_parameter("head.nope"),
                 lambda n: n.get_parameter("enc.1.running_mean"), lambda n: n.get_buffer("head.weight")):
        both_raise(lambda: call(ours), lambda: call(theirs))


def test_list_methods_of_module_list_and_sequential_as_torchs():
    def run(T):
        nn, log = T.nn, []
        seq = nn.Sequential(OrderedDict(a=nn.ReLU(), b=nn.Tanh(), c=nn.Sigmoid()))
        del seq[1]
        log.append(list(seq._modules))
        seq.insert(0, nn.ELU())
        seq[1] = nn.Softplus()
        log.append([type(m).__name__ for m in seq])
        log.append(type(seq.pop(0)).__name__)
        seq.extend([nn.ReLU()])
        log.append(list(seq._modules))
        lst = nn.ModuleList([nn.ReLU(), nn.Tanh()])
        lst.insert(1, nn.ELU())
        lst.insert(2, nn.Softplus())
        del lst[0]
        lst[-1] = nn.Sigmoid()
        log.append([type(m).__name__ for m in lst])
        log.append(type(lst.pop(0)).__name__)
        lst += [nn.ReLU()]
        log.append((list(lst._modules), len(lst + lst), type(lst + lst).__name__))
        log.append(repr(seq))
        return log
    assert run_both(run)[0] == run_both(run)[1]


def test_repr_with_extra_repr_and_children_as_torchs():
    def run(T):
        class Block(T.nn.Module):
            def __init__(self, lines):
                super().__init__()
                self.lines = lines
                self.fc = T.nn.Linear(1, 1)

            def extra_repr(self):
                return self.lines

        class Leaf(T.nn.Module):
            def extra_repr(self):
                return "a=1\nb=2"
        return [repr(Block("custom=1")), repr(Block("x=1\ny=2")), repr(Leaf()), repr(T.nn.Sequential(Leaf()))]
    assert run_both(run)[0] == run_both(run)[1]


@pytest.mark.parametrize("call", [
    lambda T, x: x.to(device="cpu"), lambda T, x: x.to(dtype=T.float64), lambda T, x: x.to("cpu", T.float64),
    lambda T, x: x.to("cpu", non_blocking=True), lambda T, x: x.to(T.zeros(1, dtype=T.int64)),
    lambda T, x: x.to(T.float16, False, True), lambda T, x: x.to("cpu", dtype=T.float64, copy=True),
], ids=["device-kw", "dtype-kw", "device-and-dtype", "non-blocking", "like-tensor", "positional-flags", "copy"])
def test_tensor_to_forms_as_torchs(call):
    ours, theirs = call(ag, ag.tensor(X[0], dtype=ag.float32)), call(torch, torch.tensor(X[0], dtype=torch.float32))
    close(ours, theirs)
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")


def test_to_returns_the_tensor_itself_unless_asked_to_copy_as_torchs():
    for T in (ag, torch):
        x = T.ones(2)
        assert x.to(x.device) is x and x.to(T.float32) is x and x.to(x) is x
        copied = x.to(x.device, copy=True)
        assert copied is not x
        copied[0] = 5
        assert x[0].item() == 1.0


def test_module_to_forms_as_torchs():
    for T in (ag, torch):
        lin = T.nn.Linear(2, 2)
        assert lin.to(device="cpu", dtype=T.float64) is lin and lin.weight.dtype == T.float64
        lin.to("cpu", T.float32, non_blocking=True)
        assert lin.weight.dtype == T.float32
        lin.to(T.zeros(1, dtype=T.float64))
        assert lin.bias.dtype == T.float64
    both_raise(lambda: ag.nn.Linear(2, 2).to(ag.int64), lambda: torch.nn.Linear(2, 2).to(torch.int64))
    assert host(ag.nn.Linear(2, 2).to(dtype=ag.float16).weight.data).dtype == np.float16
