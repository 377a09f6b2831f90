"""Edge cases found in review: each was a wrong gradient, a corrupted state or an unhelpful error."""
import numpy as np
import pytest
from conftest import host, import_torch

import autogradlab as ag
from autogradlab.autograd import Function
from autogradlab.autograd.functional import jvp

torch = import_torch()


def test_a_view_whose_base_changed_in_place_takes_its_history_from_the_base_again_like_torch():
    for lib in (ag, torch):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        v = y[0:2]
        y.mul_(3)
        v.sum().backward(retain_graph=True)    # v is (x * 2 * 3)[0:2] now, as its values are
        assert x.grad.tolist() == [6.0, 6.0, 0.0], lib.__name__
        y.sum().backward()
        assert x.grad.tolist() == [12.0, 12.0, 6.0], lib.__name__


def test_a_view_taken_after_the_in_place_op_is_fine():
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    y.mul_(3)
    y[0:2].sum().backward()
    assert x.grad.tolist() == [6.0, 6.0, 0.0]


def test_tensor_hook_that_changes_the_size_raises_naming_the_hook():
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)

    def shrink(g):
        return g[:1]
    x.register_hook(shrink)
    with pytest.raises(RuntimeError, match="hook 'shrink' has changed the size of the gradient"):
        (x * 2).sum().backward()
    assert x.grad is None


@pytest.mark.parametrize("returned, error, match", [
    (lambda g: 5.0, TypeError, "returned a float"),
    (lambda g: g.to(ag.float64), RuntimeError, "changed the dtype"),
])
def test_tensor_hook_must_return_a_tensor_like_the_gradient(returned, error, match):
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.register_hook(returned)
    with pytest.raises(error, match=match):
        y.sum().backward()


def test_zero_and_fill_work_on_0d_tensors():
    t = ag.tensor(3.0)
    assert t.zero_().item() == 0.0 and t.fill_(2.5).item() == 2.5
    x = ag.tensor(2.0, requires_grad=True)
    y = x * 1
    y.fill_(7.0)
    y.backward()
    assert x.grad.item() == 0.0 and y.item() == 7.0


def test_in_place_into_an_expanded_view_explains_read_only_memory():
    a = ag.zeros(3)
    with pytest.raises(RuntimeError, match="is read-only: a view made by expand"):
        a.expand(2, 3).add_(1)


def test_where_accepts_a_python_bool_condition():
    assert ag.where(True, ag.tensor([1.0, 2.0]), 0.0).tolist() == [1.0, 2.0]
    assert ag.where(False, ag.tensor([1.0, 2.0]), 0.0).tolist() == [0.0, 0.0]


def test_backward_with_a_number_as_gradient_names_the_argument():
    y = (ag.tensor([1.0, 2.0], requires_grad=True) * 2).sum()
    with pytest.raises(TypeError, match=r"backward\(gradient=...\): the gradient must be a Tensor"):
        y.backward(1.0)


class _WrongShape(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2

    @staticmethod
    def backward(ctx, g):
        return g.sum() * ag.ones(2)


class _ReturnsArray(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2

    @staticmethod
    def backward(ctx, g):
        return g.numpy()


class _TooMany(Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2, g


@pytest.mark.parametrize("fn, error, match", [
    (_WrongShape, RuntimeError, r"returned an invalid gradient at index 0 - got \[2\] but expected shape "
                                r"compatible with \[3\]"),
    (_ReturnsArray, TypeError, "returned a ndarray as the gradient at index 0"),
    (_TooMany, RuntimeError, "incorrect number of gradients"),
])
def test_custom_function_bad_gradients_have_clear_errors(fn, error, match):
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with pytest.raises(error, match=match):
        fn.apply(x).sum().backward()
    assert x.grad is None


def test_std_is_its_own_op_and_matches_torch():
    a = np.random.default_rng(0).standard_normal((3, 4))
    x, tx = ag.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    x.std(1, keepdim=True).sum().backward()
    tx.std(1, keepdim=True).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10)
    assert x.std().grad_fn.name() == "StdBackward"


def test_jvp_when_an_output_does_not_depend_on_an_input_matches_torch():
    xs = (ag.tensor([1.0, 2.0]), ag.tensor([3.0, 4.0]))
    vs = (ag.ones(2), ag.ones(2))
    out, jv = jvp(lambda a, b: a * 2, xs, vs)
    t_out, t_jv = torch.autograd.functional.jvp(lambda a, b: a * 2, tuple(torch.tensor(x.numpy()) for x in xs),
                                                tuple(torch.ones(2) for _ in vs))
    assert jv.tolist() == t_jv.tolist() and out.tolist() == t_out.tolist()
    _, jv_const = jvp(lambda a: a * 0 + 1, (ag.tensor([1.0, 2.0]),), (ag.ones(2),))
    assert jv_const.tolist() == [0.0, 0.0]


def test_tie_formulas_match_the_numbers_shown():
    with ag.trace() as tape:
        a = ag.tensor(2.0, requires_grad=True, name="a")
        b = ag.tensor(2.0, requires_grad=True, name="b")
        ag.maximum(a, b).backward()
    computed = tape.of_kind("GradientComputed")
    assert computed[0].formula.endswith("[a > b] + [a = b]/2") and computed[0].contribution.data == (0.5,)


def test_node_reprs_hold_no_process_global_counters():
    x = ag.tensor([1.0], requires_grad=True, name="x")
    first = repr((x * 2).grad_fn.next_functions)
    second = repr((x * 2).grad_fn.next_functions)
    assert first == second == "((<AccumulateGrad of x (1,)>, 0), (None, 0))"


def test_node_introspection_reports_saved_names_and_freeing():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    c = ag.tensor([3.0, 4.0])
    y = (x * c).sum()
    mul = y.grad_fn.next_functions[0][0]
    assert mul.op_name == "mul" and mul.saved_tensor_names == ("other",) and not mul.freed
    assert mul.sequence_nr() < y.grad_fn.sequence_nr()
    y.backward()
    assert mul.freed and mul.saved_tensor_names == ("other",)   # remembered after freeing


def test_drawing_a_tensor_never_unpacks_saved_tensors():
    pytest.importorskip("graphviz")
    from autogradlab import viz
    calls = []
    with ag.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: calls.append(1) or t):
        x = ag.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()
    viz.draw(y)
    assert calls == []
    y.backward()
    assert calls == [1, 1]          # only the backward read them
    assert "freed: self, other" in viz.draw(y).source


def test_a_leaf_keeps_one_node_id_across_passes_in_a_tape():
    w = ag.tensor([1.0, 2.0], requires_grad=True, name="w")
    with ag.trace() as tape:
        for _ in range(3):
            (w * w).sum().backward()       # each pass builds (and frees) a new graph
    leaf_ids = {e.node_id for e in tape.of_kind("Accumulated") if e.where == "leaf"}
    assert len(leaf_ids) == 1


def test_chunk_of_an_empty_dim_gives_empty_pieces_like_torch():
    pieces = ag.zeros(0, 3).chunk(2)
    tpieces = torch.zeros(0, 3).chunk(2)
    assert [tuple(p.shape) for p in pieces] == [tuple(p.shape) for p in tpieces]


def test_in_place_on_a_squeeze_view_writes_through_to_the_base_like_torch():
    for lib in (ag, torch):
        x = lib.tensor([[1.0, 2.0]], requires_grad=True)
        b = x * 1
        b.squeeze(0).mul_(3)
        (b * b).sum().backward()
        assert b.tolist() == [[3.0, 6.0]] and x.grad.tolist() == [[18.0, 36.0]], lib.__name__


@pytest.mark.parametrize("header, match", [
    ('{"format": "autogradlab", "version": 1, "kind": "tensor", "names": []}', "malformed"),
    ('[1, 2]', "malformed"),
])
def test_load_reports_malformed_headers_as_value_errors(tmp_path, header, match):
    path = tmp_path / "bad.npz"
    np.savez(path, __autogradlab__=np.array(header), arr_0=np.zeros(2))
    with pytest.raises(ValueError, match=match):
        ag.load(path)


def test_load_refuses_non_numeric_arrays(tmp_path):
    path = tmp_path / "strings.npz"
    np.savez(path, w=np.array(["x"]))
    with pytest.raises(ValueError, match="has dtype <U1"):
        ag.load(path)


def test_custom_function_saved_tensors_are_named_by_position():
    class Square(Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return 2 * a * g

    with ag.trace() as tape:
        Square.apply(ag.tensor([1.0, 2.0], requires_grad=True)).sum().backward()
    assert tape.of_kind("OpRecorded")[0].saved == ("saved_tensors[0]",)
    assert tape.of_kind("SavedFreed")[0].names == ("saved_tensors[0]",)


def test_player_caption_explains_a_constant_exponent_drawn_from_a_live_graph():
    pytest.importorskip("ipywidgets")
    import shutil
    if shutil.which("dot") is None:
        pytest.skip("graphviz's dot is not installed")
    from autogradlab import viz
    x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")
    assert "b is a constant input of the op" in viz.play_backward((x ** 2).sum()).to_html()


@pytest.mark.parametrize("row", [[np.inf, 1.0], [-np.inf, -np.inf], [-np.inf, 1.0], [np.inf, np.inf], [1.0, 2.0, 3.0]])
def test_log_softmax_of_rows_with_infinities_matches_torch(row):
    with np.errstate(invalid="ignore", divide="ignore"):
        ours = ag.log_softmax(ag.tensor([row]), 1).numpy()
    theirs = torch.log_softmax(torch.tensor([row]), 1).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, equal_nan=True)


def test_in_place_into_memory_that_repeats_one_element_is_refused_even_when_numpy_allows_the_write():
    """A stride of 0 (what expand makes) repeats one element; NumPy lets as_strided's views be written, CuPy
    has no read-only views at all: the check is on the strides, so every backend refuses alike."""
    base = np.zeros(3)
    repeated = np.lib.stride_tricks.as_strided(base, shape=(2, 3), strides=(0, 8))
    assert repeated.flags.writeable
    t = ag.from_numpy(repeated)
    with pytest.raises(RuntimeError, match="is read-only: a view made by expand"):
        t.add_(1.0)
    np.testing.assert_array_equal(base, np.zeros(3))


def test_setitem_into_repeated_memory_is_refused_without_recording_too_and_a_row_of_it_is_not():
    """t[...] = v without a graph went straight to the array: NumPy's ValueError on the CPU, a silent race on
    a GPU. Now PyTorch's rule on every backend: the target may not repeat an element."""
    y = ag.zeros(1, 3).expand(4, 3)
    with ag.no_grad(), pytest.raises(RuntimeError, match="is read-only: a view made by expand"):
        y[...] = 5.0
    with pytest.raises(RuntimeError, match="is read-only"):
        y[:, 0] = 7.0
    assert host(y.data).tolist() == [[0.0, 0.0, 0.0]] * 4


def test_expand_that_repeats_nothing_is_a_writable_view_as_in_torch():
    torch = import_torch()
    for make in (lambda m: m.zeros(3).expand(1, 3), lambda m: m.zeros(0, 1).expand(0, 4),
                 lambda m: m.tensor(0.0).expand(1, 1)):
        ours, theirs = make(ag), make(torch)
        ours.add_(1)
        theirs.add_(1)
        assert host(ours.data).tolist() == theirs.tolist()
    base = ag.zeros(3)
    base.expand(1, 3).mul_(0).add_(2)   # a view: the write reaches its base, as PyTorch's
    assert host(base.data).tolist() == [2.0, 2.0, 2.0]


def test_a_root_that_does_not_require_grad_gets_a_message_naming_each_cause():
    """The usual causes besides leaves made without requires_grad: no_grad, and a second derivative from a
    gradient taken without create_graph=True."""
    x = ag.ones(2, requires_grad=True)
    with ag.no_grad():
        y = (x * 2).sum()
    with pytest.raises(RuntimeError, match=r"does not require grad.*no_grad\(\).*create_graph=True"):
        y.backward()
    g, = ag.autograd.grad((x ** 3).sum(), x)
    with pytest.raises(RuntimeError, match=r"without create_graph=True"):
        ag.autograd.grad(g.sum(), x)
    assert x.grad is None
