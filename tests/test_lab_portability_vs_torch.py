"""Names and forms that PyTorch lab code and older tutorials use, side by side with torch 2.13: ``where(cond)``,
``size=`` and ``dtype=`` keywords, ``softmax`` without ``dim``, the in-place shape methods (``unsqueeze_``,
``t_``, ...), ``numpy(force=True)``, ``data_ptr``, ``masked_scatter``, the legacy tensor types
(``FloatTensor``, ``Tensor(2, 3)``), ``load(weights_only=True)``, custom Functions' ``grad_fn`` names,
``mark_non_differentiable`` and ``once_differentiable``, and the errors of a few common mistakes."""
import io
import warnings

import numpy as np
import pytest
from conftest import import_torch
from torch_compare import both_raise, close, exp_function, run_both

import autogradlab as ag

torch = import_torch()
X = np.array([[1.0, -2.0, 0.5], [3.0, 0.0, -4.0]])



def _same(ours, theirs):
    if isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _same(a, b)
    elif isinstance(theirs, torch.Tensor):
        close(ours, theirs, rtol=1e-12, atol=1e-12)
        assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
    else:
        assert ours == theirs


CASES = {
    "where-one-argument": lambda T: T.where(T.tensor(X) > 0),
    "zeros-size-keyword": lambda T: T.zeros(size=(2, 3)),
    "ones-size-keyword": lambda T: T.ones(size=(2,), dtype=T.float64),
    "empty-size-keyword": lambda T: T.empty(size=(0, 2)).shape,
    "rand-size-keyword": lambda T: T.rand(size=(3, 1)).shape,
    "sum-dtype": lambda T: T.tensor([[1, 2], [3, 4]]).sum(dtype=T.float64),
    "sum-dim-dtype": lambda T: T.sum(T.tensor([[1, 2], [3, 4]]), 1, dtype=T.float32),
    "mean-dtype": lambda T: T.tensor([1, 2, 4]).mean(dtype=T.float64),
    "prod-dtype": lambda T: T.tensor([2, 3]).prod(dtype=T.float64),
    "cumsum-dtype": lambda T: T.tensor([1, 2, 3]).cumsum(0, dtype=T.float64),
    "integer-results-keep-dtype": lambda T: [T.sum(T.arange(6, dtype=T.int32), dtype=T.int32),
                                             T.arange(6, dtype=T.int32).cumsum(0, dtype=T.int32),
                                             T.arange(1, 6, dtype=T.int32).prod(dtype=T.int32)],
    "Tensor-empty": lambda T: T.Tensor().shape,
    "masked_scatter-broadcasts-input": lambda T: T.masked_scatter(
        T.zeros(3), T.tensor([True, False]).reshape(2, 1), T.arange(1.0, 7.0)),
    "unsqueeze_": lambda T: T.tensor(X).unsqueeze_(1),
    "squeeze_": lambda T: T.ones(1, 3, 1).squeeze_(),
    "squeeze_-dim": lambda T: T.ones(1, 3, 1).squeeze_(0),
    "t_": lambda T: T.tensor(X).t_(),
    "transpose_": lambda T: T.tensor(X).transpose_(0, 1),
    "numpy-force": lambda T: T.tensor(X, requires_grad=True).numpy(force=True).tolist(),
    "masked_scatter": lambda T: T.zeros(2, 3, dtype=T.float64).masked_scatter(
        T.tensor([True, False, True]), T.tensor(np.arange(1.0, 7.0))),
    "masked_scatter_": lambda T: T.zeros(2, 3).masked_scatter_(T.tensor([[True], [False]]), T.ones(5)),
    "FloatTensor-data": lambda T: T.FloatTensor([1, 2]),
    "LongTensor-data": lambda T: T.LongTensor([[1, 2]]),
    "DoubleTensor-size": lambda T: T.DoubleTensor(2, 3).shape,
    "ByteTensor-data": lambda T: T.ByteTensor([0, 255]),
    "Tensor-data-is-float32": lambda T: T.Tensor([1, 2]),
    "Tensor-size": lambda T: T.Tensor(2, 3).shape,
    "type-to-legacy": lambda T: T.tensor(X).type(T.LongTensor),
    "isinstance-legacy": lambda T: [isinstance(T.tensor(X, device="cpu").float(), T.FloatTensor),
                                    isinstance(T.tensor(X, device="cpu").float(), T.LongTensor),
                                    isinstance(T.tensor([1], device="cpu"), T.LongTensor),
                                    isinstance(T.FloatTensor([1.0]), T.FloatTensor)],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_lab_forms_match_torch(name):
    _same(*run_both(CASES[name]))


def test_softmax_without_dim_warns_and_picks_torchs_dim():
    for shape in [(3,), (2, 3), (2, 3, 4), (2, 2, 3, 2)]:
        data = np.sin(np.arange(np.prod(shape), dtype=float)).reshape(shape)
        results = []
        for T in (ag, torch):
            with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
                s = T.nn.functional.softmax(T.tensor(data))
            with pytest.warns(UserWarning, match="Implicit dimension choice for log_softmax"):
                ls = T.nn.functional.log_softmax(T.tensor(data))
            results.append((s, ls))
        _same(*results)


def test_in_place_shape_changes_keep_the_graph_as_torch():
    def run(T):
        a = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        x = a * 2
        x.unsqueeze_(0)
        x.t_()
        (x * T.tensor([[1.0], [2.0], [3.0]])).sum().backward()
        with pytest.raises(RuntimeError, match="leaf"):
            a.unsqueeze_(0)
        base = T.ones(3)
        view = base[:2]
        view.unsqueeze_(0)
        view.mul_(5)
        p = T.nn.Parameter(T.ones(3))
        with T.no_grad():
            p.unsqueeze_(0)
        b = T.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        c = b * 1
        row = c[0]
        c.t_()
        (row * 2).sum().backward()     # (a view taken before the change keeps its history)
        return [a.grad, tuple(x.shape), base, p.requires_grad, p.is_leaf, tuple(p.shape), b.grad, row]
    _same(*run_both(run))


def test_in_place_shape_changes_where_autogradlab_differs_from_torch():
    """Decided differences (README): torch counts a shape change as a new version, so a node that saved the
    tensor refuses to run; here values did not change and the node uses what it saved (a VJP on Tensors,
    create_graph=True, refuses the reshaped tensor). A view taken before the change can't be written through
    afterwards (torch follows its strides; here its steps are for the old layout), and says so."""
    torch_a = torch.ones(2, requires_grad=True)
    torch_saved = torch_a * 1
    torch_y = (torch_saved * torch_saved).sum()
    torch_saved.unsqueeze_(0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        torch_y.backward()
    a = ag.ones(2, requires_grad=True)
    saved = a * 1
    y = (saved * saved).sum()
    saved.unsqueeze_(0)
    y.backward(retain_graph=True)
    assert a.grad.tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError, match=r"changed its shape in place.*out-of-place op"):
        ag.autograd.grad(y, a, create_graph=True)
    for op in ("unsqueeze_", "t_"):
        x = ag.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        b = x * 1
        row = b[0]
        getattr(b, op)(*((0,) if op == "unsqueeze_" else ()))
        with pytest.raises(RuntimeError, match=r"taken from a tensor that has since changed its shape in place"):
            row.mul_(10)
        assert x.grad is None and b.tolist() in ([[[1.0, 2.0], [3.0, 4.0]]], [[1.0, 3.0], [2.0, 4.0]])


def test_data_ptr_tells_shared_memory_as_torch():
    for T in (ag, torch):
        x = T.zeros(2, 3)
        assert x[0].data_ptr() == x.data_ptr() and x.view(3, 2).data_ptr() == x.data_ptr()
        assert x[1].data_ptr() - x.data_ptr() == 3 * 4 and x.clone().data_ptr() != x.data_ptr()


def test_masked_scatter_gradients_match_torch():
    def run(T):
        x = T.tensor(X, requires_grad=True)
        source = T.tensor(np.arange(10.0, 17.0), requires_grad=True)
        mask = T.tensor([[True, False, True], [False, True, True]])
        (x.masked_scatter(mask, source) * T.tensor(np.arange(1.0, 7.0).reshape(2, 3))).sum().backward()
        return [x.grad, source.grad]
    _same(*run_both(run))
    both_raise(lambda: ag.zeros(3).masked_scatter_(ag.tensor([True, True, True]), ag.ones(2)),
               lambda: torch.zeros(3).masked_scatter_(torch.tensor([True, True, True]), torch.ones(2)))


def test_load_takes_torchs_keywords():
    buffer = io.BytesIO()
    ag.save({"w": ag.tensor(X)}, buffer)
    for keywords in ({"weights_only": True}, {"weights_only": False, "mmap": False}, {"map_location": "cpu"}):
        buffer.seek(0)
        close(ag.load(buffer, **keywords)["w"], torch.tensor(X))


def test_custom_functions_have_torchs_node_names_and_non_differentiable_outputs():
    def run(T):
        Exp = exp_function(T)

        class ArgMax(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                index = x.argmax()
                ctx.mark_non_differentiable(index)
                return index

            @staticmethod
            def backward(ctx, g):
                return None

        class Marked(T.autograd.Function):     # (returns its input, marked: a new tensor without grad)
            @staticmethod
            def forward(ctx, x):
                ctx.mark_non_differentiable(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g
        x = T.tensor([1.0, 3.0, 2.0], requires_grad=True)
        y = Exp.apply(x)
        index = ArgMax.apply(x)
        marked = Marked.apply(x)
        return [type(y.grad_fn).__name__, y.grad_fn.name(), index.item(), index.requires_grad, index.grad_fn,
                marked is x, marked.requires_grad, marked.grad_fn]
    _same(*run_both(run))


def test_once_differentiable_runs_backward_without_a_graph_and_refuses_a_second_derivative_as_torch():
    def run(T):
        from_module = __import__(f"{T.__name__}.autograd.function", fromlist=["once_differentiable"])

        class Square(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            @from_module.once_differentiable
            def backward(ctx, g):
                x, = ctx.saved_tensors
                seen.append(T.is_grad_enabled())
                return 2 * g * x
        seen = []
        x = T.tensor([1.0, -2.0], requires_grad=True)
        Square.apply(x).sum().backward()
        g, = T.autograd.grad(Square.apply(x).sum(), x, create_graph=True)
        v = T.ones(2, requires_grad=True)
        g2, = T.autograd.grad(Square.apply(x), x, grad_outputs=v, create_graph=True)
        with pytest.raises(RuntimeError, match="once_differentiable"):
            g2.sum().backward()
        return [x.grad, g.requires_grad, g2.requires_grad, seen]
    _same(*run_both(run))


@pytest.mark.parametrize("call", [
    lambda T: T.nn.Linear(4, 3)(T.ones(())),
    lambda T: T.nn.Sequential(T.nn.ReLU())[3],
    lambda T: T.nn.Linear(2, 3).load_state_dict({"weight": T.zeros(3, 2), "bias": [0.0, 0.0, 0.0]}),
], ids=["linear-of-a-number", "sequential-out-of-range", "state-dict-of-a-list"])
def test_common_mistakes_raise_as_torch(call):
    both_raise(lambda: call(ag), lambda: call(torch))


def test_the_mistakes_messages_say_what_to_do():
    with pytest.raises(RuntimeError, match=r"0-d tensor.*reshape\(1, -1\)"):
        ag.nn.Linear(4, 3)(ag.ones(()))
    with pytest.raises(IndexError, match="index 3 is out of range: this Sequential has 1 modules"):
        ag.nn.Sequential(ag.nn.ReLU())[3]
    layer = ag.nn.Linear(2, 3)
    before = layer.weight.tolist()
    with pytest.raises(RuntimeError, match=r'"bias", expected a tensor.*got a list.*autogradlab.tensor'):
        layer.load_state_dict({"weight": ag.zeros(3, 2), "bias": [0.0, 0.0, 0.0]})
    assert layer.weight.tolist() == before
    p = ag.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match="parameter 1 of this group .* appears in it more than once"):
        ag.optim.SGD([p, p], lr=0.1)
    with pytest.raises(RuntimeError, match=r"x.to\(float32\): layers compute in floating point"):
        ag.nn.Conv2d(1, 1, 1)(ag.ones(1, 1, 2, 2, dtype=ag.int64))


NUMPY_SPELLINGS = {
    "sum-axis-keepdims": lambda T, x: x.sum(axis=0, keepdims=True),
    "top-level-sum-axis": lambda T, x: T.sum(x, axis=1),
    "mean-axis": lambda T, x: x.mean(axis=0),
    "argmax-axis": lambda T, x: x.argmax(axis=1),
    "max-axis": lambda T, x: tuple(x.max(axis=1)),
    "softmax-axis": lambda T, x: T.softmax(x, axis=1),
    "cat-axis": lambda T, x: T.cat([x, x], axis=1),
    "concat": lambda T, x: T.concat([x, x]),
    "concatenate": lambda T, x: T.concatenate([x, x], axis=1),
    "std-axis": lambda T, x: x.std(axis=1, keepdims=True),
}


@pytest.mark.parametrize("name", sorted(NUMPY_SPELLINGS))
def test_numpy_spellings_axis_and_keepdims_as_torch(name):
    """d2l and NumPy-minded code write axis= and keepdims=; PyTorch takes them."""
    _same(NUMPY_SPELLINGS[name](ag, ag.tensor(X)), NUMPY_SPELLINGS[name](torch, torch.tensor(X)))
    with pytest.raises(TypeError, match="both dim= and its NumPy spelling axis="):
        ag.tensor(X).sum(dim=0, axis=1)


def test_size_backends_and_deterministic_switches_as_torch():
    for T in (ag, torch):
        assert T.Size([2, 3]) == (2, 3) and T.Size([2, 3]).numel() == 6 and T.zeros(2, 3).shape == T.Size([2, 3])
        T.backends.cudnn.deterministic = True
        T.backends.cudnn.benchmark = False
        assert T.backends.mps.is_available() is False
        T.use_deterministic_algorithms(True)
        assert T.are_deterministic_algorithms_enabled()
        T.use_deterministic_algorithms(False)
        assert not T.are_deterministic_algorithms_enabled()
    assert repr(ag.Size([2, 3])) == "autogradlab.Size([2, 3])"


def test_numpy_and_matplotlib_read_a_tensor_as_an_array_as_torch():
    for T in (ag, torch):
        t = T.tensor(X, dtype=T.float32)
        as_array = np.asarray(t)
        assert as_array.dtype == np.float32 and as_array.tolist() == t.tolist()
        assert np.asarray(t, dtype=np.float64).dtype == np.float64 and np.concatenate([t, t]).shape == (4, 3)
        with pytest.raises(RuntimeError, match="requires grad"):
            np.asarray(T.ones(2, requires_grad=True))


def test_init_of_a_weights_data_writes_into_the_weight_and_state_dict_results_print_as_torch():
    """DCGAN's weights_init: nn.init.normal_(m.weight.data, 0.0, 0.02) writes through .data into the weight."""
    for T in (ag, torch):
        layer = T.nn.Linear(3, 2)
        T.nn.init.constant_(layer.weight.data, 0.25)
        T.nn.init.zeros_(layer.bias.data)
        assert layer.weight.tolist() == [[0.25] * 3] * 2 and layer.bias.tolist() == [0.0, 0.0]
        assert layer.weight.requires_grad
        T.nn.init.normal_(layer.weight.data, 0.0, 0.02)
        assert 0 < float(layer.weight.detach().abs().max()) < 0.2
        assert repr(layer.load_state_dict(layer.state_dict())) == "<All keys matched successfully>"
        seq = T.nn.Sequential()
        seq.add_module("l1", T.nn.Linear(2, 3))
        seq.append(T.nn.ReLU())
        assert list(seq[0:1]._modules) == ["l1"] and list(seq[1:]._modules) == ["1"]


@pytest.mark.filterwarnings("ignore:__array__ implementation doesn't accept a copy keyword")   # (torch's own)
def test_fixes_from_a_review_of_the_new_forms_against_torch():
    import pickle
    for T in (ag, torch):
        t = T.tensor([1.0, 2.0, 3.0])
        copied = np.array(t)
        copied[0] = 99.0                     # (np.array copies; np.asarray shares, as torch's)
        assert t.tolist() == [1.0, 2.0, 3.0]
        if T is torch or type(t._data) is np.ndarray:   # (a stand-in GPU or strict array is copied to the host)
            np.asarray(t)[1] = 5.0
            assert t.tolist() == [1.0, 5.0, 3.0]
        x = T.arange(9.0).reshape(3, 3)
        assert x[[T.tensor(0), T.tensor(2)]].item() == 2.0      # (a list holding tensors is a tuple of indices)
        x[[T.tensor(0), T.tensor(2)]] = -1.0
        assert x.sum().item() == 36.0 - 2.0 - 1.0
        y = T.ones(2, 3)
        y.unsqueeze_(dim=0)
        y.transpose_(dim0=0, dim1=1)
        y.swapaxes_(axis0=0, axis1=2)
        assert tuple(y.shape) == (3, 1, 2)
        assert tuple(T.Tensor(T.Size([2, 3])).shape) == (2, 3) == tuple(T.FloatTensor(T.Size([2, 3])).shape)
        assert tuple(T.Tensor(np.array(3)).shape) == (3,) and tuple(T.FloatTensor(size=(2, 3)).shape) == (2, 3)
        z = T.tensor([1, 2])
        alias = T.Tensor(z)
        assert str(alias.dtype).endswith("int64") and alias.data_ptr() == z.data_ptr()
        assert T.Tensor(T.ones(2, requires_grad=True)).requires_grad
        assert tuple(T.ones(2, 3).sort(axis=1).values.shape) == (2, 3) and tuple(T.ones(1, 3).squeeze(axis=0).shape) == (3,)
        assert pickle.loads(pickle.dumps(T.sum)) is T.sum and pickle.loads(pickle.dumps(T.cat)) is T.cat
        assert pickle.loads(pickle.dumps(T.Tensor.sum)) is T.Tensor.sum
        seq = T.nn.Sequential(T.nn.ReLU(), T.nn.Tanh())
        assert type(seq[1:]) is type(seq)
    import autogradlab.backends.cudnn as cudnn
    cudnn.deterministic = True
    assert ag.backends.cudnn.deterministic is True
    with ag.backends.cudnn.flags(enabled=False):
        assert ag.backends.cudnn.enabled is False
    assert ag.backends.cudnn.enabled is True


def test_a_trace_sees_a_tensor_reshaped_in_place_as_the_view_ops_output():
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with ag.trace() as tape:
        y = x * 2
        y.unsqueeze_(0)
        (y * ag.ones(2, 1)).sum().backward()
        c = ag.ones(3)
        c * x
        c.unsqueeze_(1)
        c * x
    ops = [e for e in tape.events if type(e).__name__ == "OpRecorded"]
    assert ops[2].inputs[0] == ops[1].output and ops[2].inputs[0].shape == (1, 3)
    assert ops[-2].inputs[0].shape == (3,) and ops[-1].inputs[0].shape == (3, 1)
    assert x.grad.tolist() == [4.0, 4.0, 4.0]


# -- .data: a tensor over the same memory, cut from the graph (older tutorials' idioms) ----------------

def test_data_is_a_tensor_over_the_same_memory_that_autograd_does_not_see_as_torch():
    for T in (ag, torch):
        x = T.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * x                                 # saves x
        d = x.data
        assert type(d) is T.Tensor and not d.requires_grad and d.is_leaf and d.grad_fn is None
        assert d.data_ptr() == x.data_ptr() and d is not x.data        # a new tensor each time, one memory
        d.mul_(2)                                 # through .data: no version bump, no history
        assert x._version == 0 and d._version == 1 and x.tolist() == [2.0, 4.0, 6.0] and x.requires_grad
        y.sum().backward()                        # the saved x has the new values (nothing checked them)
        assert x.grad.tolist() == [4.0, 8.0, 12.0]
        p = T.nn.Parameter(T.ones(2))
        assert type(p.data) is T.Tensor and not p.data.requires_grad


def test_the_old_tutorial_idioms_through_data_work_as_torch():
    for T in (ag, torch):
        T.manual_seed(0)
        w = T.tensor([1.0, -2.0], requires_grad=True)
        loss = (w * w).sum()
        loss.backward()
        assert loss.data.item() == 5.0 and loss.data.numpy().tolist() == 5.0
        assert w.data.cpu().numpy().tolist() == [1.0, -2.0]
        w.data -= 0.25 * w.grad.data              # the SGD step of pre-0.4 code
        assert w.tolist() == [0.5, -1.0] and w.requires_grad and w.is_leaf and w._version == 0
        w.grad.data.zero_()                         # zeroing through .data
        assert w.grad.tolist() == [0.0, 0.0]
        w.data.fill_(0.125)
        assert w.tolist() == [0.125, 0.125]
        w.data.normal_()
        assert w.tolist() != [0.125, 0.125] and w.requires_grad
        out = T.tensor([[0.1, 0.7, 0.2], [0.5, 0.3, 0.2]], requires_grad=True)
        values, predicted = T.max(out.data, 1)      # the classic accuracy line
        assert predicted.tolist() == [1, 0] and not values.requires_grad
        assert (predicted == T.tensor([1, 1])).sum().item() == 1


def test_assigning_data_takes_the_new_tensors_memory_shape_and_dtype_as_torch():
    for T in (ag, torch):
        x = T.ones(3, requires_grad=True)
        new = T.zeros(2, dtype=T.float64)
        x.data = new
        assert x.shape == (2,) and x.dtype == T.float64 and x.requires_grad and x.is_leaf
        assert x.data_ptr() == new.data_ptr() and x._version == 0
        (x * 3).sum().backward()
        assert x.grad.tolist() == [3.0, 3.0] and x.grad.dtype == T.float64
        layer = T.nn.Linear(2, 1)
        layer.weight.data = T.tensor([[0.5, -0.5]])     # set a weight by hand
        assert layer(T.tensor([[2.0, 1.0]])).item() == pytest.approx(0.5 + layer.bias.item())
    for value in (np.zeros(2), 3.0):
        both_raise(lambda: setattr(ag.ones(2), "data", value), lambda: setattr(torch.ones(2), "data", value))
    with pytest.raises(TypeError, match=r"takes a tensor.*as_tensor"):
        ag.ones(2).data = np.zeros(2)


def test_the_deprecated_alpha_first_add_and_sub_of_old_sgd_loops_work_with_a_warning_as_torch():
    """p.data.add_(-lr, p.grad.data), PyTorch 0.x tutorials' SGD step; torch still takes it, warning."""
    results = []
    for T in (ag, torch):
        p = T.nn.Parameter(T.tensor([1.0, -2.0]))
        (p * p).sum().backward()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            p.data.add_(-0.25, p.grad.data)
            q = T.ones(2).sub(0.5, T.tensor([2.0, 4.0]))
            r = T.add(T.ones(2), 3.0, T.ones(2))
        if T is ag:                                     # (torch warns once per process)
            assert [str(w.message).split("(")[0] for w in caught] == ["add_", "sub", "add"]
            assert all("deprecated" in str(w.message) for w in caught)
        results.append((p.tolist(), q.tolist(), r.tolist()))
        with pytest.raises(TypeError):
            T.ones(2).add_(T.ones(2), 2)              # alpha is keyword-only
    assert results[0] == results[1] == ([0.5, -1.0], [0.0, -1.0], [4.0, 4.0])


def test_assigning_data_keeps_a_grad_requiring_tensor_float_unviews_a_view_and_is_seen_by_a_trace():
    for T in (ag, torch):
        p = T.nn.Parameter(T.ones(2))
        with pytest.raises(RuntimeError, match="must be floating point"):
            p.data = T.tensor([1, 2])
        assert p.dtype == T.float32 and p.tolist() == [1.0, 1.0]          # (refused before anything changed)
        a = T.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        v = (a * 1)[:2]
        v.data = T.tensor([9.0, 9.0, 9.0])
        v.mul_(2)                                                           # no longer a view of a * 1
        assert v.tolist() == [18.0, 18.0, 18.0]
    x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")
    with ag.trace() as tape:
        (x * 2).sum()
        x.data = ag.tensor([5.0, 6.0, 7.0])
        (x * 2).sum()
    second = tape.of_kind("OpRecorded")[2]
    assert second.inputs[0].shape == (3,) and second.input_values[0].data == (5.0, 6.0, 7.0)
    with pytest.raises(RuntimeError, match=r"had its \.data replaced since"):
        y = x * x
        x.data = ag.tensor([1.0, 1.0, 1.0])
        ag.autograd.grad(y.sum(), x, create_graph=True)


def test_the_alpha_first_form_also_takes_a_0d_tensor_alpha_and_a_number_operand_as_torch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = [(T.tensor([1.0, 2.0]).add(T.tensor(2.0), T.tensor([10.0, 20.0])).tolist(),
                    T.tensor([1.0, 2.0]).add(2, 3).tolist(), T.tensor([1.0, 2.0]).sub(0.5, 4.0).tolist())
                   for T in (ag, torch)]
    assert results[0] == results[1] == ([21.0, 42.0], [7.0, 8.0], [-1.0, 0.0])
