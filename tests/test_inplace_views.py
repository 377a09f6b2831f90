"""In-place ops and views, each compared with PyTorch: views of a changed base, writes into views
(CopySlices), aliasing operands, what batched matmul and reshape keep."""
import pytest

import autogradlab as ag
from conftest import import_torch


def test_inplace_into_a_slice_of_a_constant_with_a_grad_requiring_operand_gives_the_base_a_history():
    torch = import_torch()
    for lib in (ag, torch):
        base = lib.zeros(4, dtype=lib.float64)
        w = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        base[0:2].add_(w)
        assert base.tolist() == [1, 2, 0, 0] and base.requires_grad
        (base * base).sum().backward()
        assert w.grad.tolist() == [2.0, 4.0], lib.__name__


def test_inplace_on_views_rebases_the_base_like_torch_first_and_second_order():
    """PyTorch's CopySlices: an in-place op on a view makes the base 'old base with the view's region
    replaced', and every view of that base (taken before or after) sees the new history."""
    def program(lib):
        x, w = _leaves(lib, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [2.0, 3.0, 4.0])
        b = x * 1
        v, u = b[0], b.T[1:]
        v.mul_(w)
        u.add_(w[:2].unsqueeze(0))
        (b * b).sum().backward(retain_graph=True)
        g, = lib.autograd.grad((b * b * v.sum()).sum(), [w], create_graph=True)
        h, = lib.autograd.grad((g * g).sum(), [w])
        return _grads(x, w) + [b.tolist(), u.tolist(), g.tolist(), h.tolist()]
    _both(program)


def test_inplace_on_a_view_of_a_leaf_that_requires_grad_raises_like_torch():
    torch = import_torch()
    for lib in (ag, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with pytest.raises(RuntimeError, match="view of a leaf Variable that requires grad is being used in an "
                                               "in-place operation"):
            x[0:1].mul_(2.0)
        assert x.tolist() == [1.0, 2.0]


def test_inplace_into_a_slice_without_grad_is_allowed():
    base = ag.zeros(4)
    base[0:2].add_(ag.tensor([1.0, 2.0]))
    assert base.tolist() == [1, 2, 0, 0]
    with ag.no_grad():
        base[2:].mul_(ag.tensor([3.0, 3.0], requires_grad=True))
    assert base.tolist() == [1, 2, 0, 0]


def test_inplace_on_a_fresh_non_leaf_records_the_history():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    y.mul_(3)
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0] and y.grad_fn.name() == "MulBackward"


def test_full_integer_indexing_returns_a_view_like_torch():
    torch = import_torch()
    for lib in (ag, torch):
        b = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
        v, row, last = b[1, 1], b[-1], b[-1][-1]
        b.mul_(10.0)
        assert (v.item(), row.tolist(), last.item()) == (40.0, [30.0, 40.0], 40.0), lib.__name__
        assert v._version == b._version == 1


@pytest.mark.parametrize("case", ["row-of-itself", "element-of-itself", "transpose-of-itself"])
@pytest.mark.parametrize("grad", [True, False])
def test_an_operand_that_partly_aliases_the_target_is_refused_like_torch(case, grad):
    torch = import_torch()
    for lib in (torch, ag):
        x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], requires_grad=grad)
        with lib.no_grad():
            before = x.clone()
        t = x * 1
        other = {"row-of-itself": lambda: t[0], "element-of-itself": lambda: t[1, 1],
                 "transpose-of-itself": lambda: t.T}[case]()
        with pytest.raises(RuntimeError, match="refer to a single memory location"):
            t.mul_(other)
        assert t.tolist() == before.tolist() and x.grad is None
    t = ag.tensor([1.0, 2.0, 3.0])
    t.mul_(t)                           # the very same tensor is fine, as in torch
    t.add_(t[0].clone())
    assert t.tolist() == [2.0, 5.0, 10.0]


def _both(program):
    """Run ``program(lib)`` with autogradlab and with torch; both results must agree."""
    torch = import_torch()
    ours, theirs = program(ag), program(torch)
    assert ours == theirs, (ours, theirs)
    return ours


def _leaves(lib, *values):
    return [lib.tensor(v, requires_grad=True) for v in values]


def _grads(*ts):
    return [None if t.grad is None else t.grad.tolist() for t in ts]


def test_inputs_restricted_backward_through_a_view_of_a_base_changed_in_place_matches_torch():
    """The issue's repro: with inputs=[w] the view's stale history never reached w (w.grad stayed None)."""
    def program(lib):
        x, w = _leaves(lib, [1.0, 1.0], [1.0, 2.0])
        b = x * lib.ones(2)
        v = b[0:1]
        b.sub_(w)
        v.sum().backward(inputs=[w])
        return _grads(x, w)
    assert _both(program) == [None, [-1.0, 0.0]]


def test_a_view_used_before_its_base_changed_keeps_the_history_it_saw_like_torch():
    def program(lib):
        x, = _leaves(lib, [1.0, 2.0, 3.0])
        b = x * 1
        y = b[0:2] * 2              # recorded before the change: its gradient is the old one
        b.mul_(3)
        y.sum().backward()
        return _grads(x)
    assert _both(program) == [[2.0, 2.0, 0.0]]


def test_a_view_of_a_base_changed_under_no_grad_keeps_flowing_to_the_base_like_torch():
    def program(lib):
        x, = _leaves(lib, [1.0, 2.0, 3.0])
        v = x[1:]
        with lib.no_grad():
            x.mul_(2)                # an optimizer step, say
        (v * v).sum().backward()
        return _grads(x) + [v.tolist()]
    assert _both(program) == [[0.0, 8.0, 12.0], [4.0, 6.0]]


def test_a_view_of_a_constant_that_gains_a_history_in_place_gets_that_history_like_torch():
    def program(lib):
        w, = _leaves(lib, [1.0, 2.0, 3.0])
        b = lib.zeros(3)
        v = b[0:2]
        b.add_(w * 2)
        out = (v * 3 + w[0:2]).sum()
        out.backward()
        return _grads(w) + [v.requires_grad]
    assert _both(program) == [[7.0, 7.0, 0.0], True]


def test_views_of_views_and_grad_with_a_rebased_view_as_root_match_torch():
    def program(lib):
        x, w = _leaves(lib, [[1.0, 2.0], [3.0, 4.0]], [[0.5, 0.5], [2.0, 2.0]])
        b = x * 1
        v = b.T[1]                   # a view of a view
        b.mul_(w)
        g, = lib.autograd.grad(v, [x], lib.ones(2, dtype=lib.float64))
        return g.tolist()
    assert _both(program) == [[0.0, 0.5], [0.0, 2.0]]


def test_fill_and_zero_save_nothing_so_a_second_backward_through_them_works_like_torch():
    def program(lib):
        x, = _leaves(lib, [1.0, 2.0])
        t = x + 0.0
        t.fill_(3.0)
        (t + 1.0).sum().backward()     # frees what was saved on the way (nothing at all here)
        u = t.T                        # (a view taken after: fine)
        (u + x).sum().backward()
        return _grads(x)
    assert _both(program) == [[1.0, 1.0]]


def test_a_second_backward_through_an_array_index_raises_like_torch_which_saved_the_indices():
    torch = import_torch()
    for lib in (ag, torch):
        x, = _leaves(lib, [1.0, 2.0, 3.0])
        y = x[[0, 0, 2]]
        y.sum().backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            y.sum().backward()


def test_0d_transpose_and_0d_max_along_dim_match_torch():
    def program(lib):
        x, = _leaves(lib, 2.0)
        t = x * 1
        values = t.max(0).values
        values.fill_(5.0)              # a new tensor, not a view of t: allowed
        out = t.transpose(0, -1) * values
        out.backward()
        return _grads(x) + [out.item()]
    assert _both(program) == [5.0, 10.0]


@pytest.mark.parametrize("make", ["expand", "transpose", "contiguous"])
def test_batched_matmul_keeps_what_torch_keeps_so_inplace_on_the_base_after_it_agrees(make):
    """The issue's repro: ``expand(...) @ w`` then ``zero_`` on the expand's base. Like PyTorch, a
    batched A @ matrix W folds A's batch dims into rows; the folded A is kept for dW, a copy when
    A cannot be folded without one (expanded, transposed batch), so changing the base is fine; a
    contiguous A folds into a view, and changing it raises in both."""
    def program(lib):
        x, w = _leaves(lib, [[1.0, 2.0, 0.5], [0.0, 1.0, 3.0], [2.0, 1.0, 1.0]], [[1.0, 0.0], [2.0, 1.0], [0.5, 3.0]])
        b = x * 1
        a = {"expand": lambda: b.expand(2, 3, 3), "transpose": lambda: b.expand(2, 3, 3).transpose(0, 1),
             "contiguous": lambda: b.reshape(1, 3, 3)}[make]()
        y = a @ w
        b.zero_()
        try:
            y.sum().backward()
        except RuntimeError as exc:
            assert "modified by an inplace operation" in str(exc)
            return "raised"
        return _grads(x, w)
    result = _both(program)
    assert (result == "raised") == (make == "contiguous")


def test_reshape_that_copies_is_not_a_view_like_torch():
    def program(lib):
        x, = _leaves(lib, [[1.0, 2.0], [3.0, 4.0]])
        b = x * 1
        flat = b.T.reshape(-1)        # a copy: transposed memory cannot be read as one row
        flat.mul_(2.0)                # in place on a copy: fine, and b does not change
        view = b.reshape(-1)          # a view
        b.add_(1.0)
        return [flat.tolist(), view.tolist(), b.tolist(), flat._version, view._version]
    assert _both(program) == [[2.0, 6.0, 4.0, 8.0], [2.0, 3.0, 4.0, 5.0], [[2.0, 3.0], [4.0, 5.0]], 1, 1]


def test_a_second_backward_through_a_write_into_a_view_raises_like_torch():
    torch = import_torch()
    for lib in (ag, torch):
        x, = _leaves(lib, [1.0, 2.0, 3.0])
        b = lib.zeros(3, dtype=lib.float64)
        b[1:].add_(x[1:])                 # nothing in this history saves a tensor, but CopySlices...
        b.sum().backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            b.sum().backward()            # ...is released by the first backward all the same


def test_fill_and_zero_give_a_constant_zero_gradient_even_under_create_graph_like_torch():
    def program(lib):
        x, = _leaves(lib, [1.0, 2.0])
        t = x.sum() * 1
        t.zero_()
        (t.tanh() + x.sum()).backward(create_graph=True)
        return [x.grad.tolist(), x.grad.requires_grad]
    assert _both(program) == [[1.0, 1.0], False]


def test_item_assignment_while_recording_is_differentiable_like_torch():
    def program(lib):
        x, w = _leaves(lib, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [7.0, 8.0])
        b = x * 2
        b[0, 1] = w[0] * w[1]                # a number from the graph into one element
        b[1] = 0.5                           # a Python number into a row
        b[:, 2] = w                          # a tensor into a column
        (b * b).sum().backward()
        return _grads(x, w) + [b.tolist()]
    _both(program)


def test_fill_with_a_tensor_that_requires_grad_records_like_torch():
    def program(lib):
        w, = _leaves(lib, 3.0)
        b = lib.zeros(2, dtype=lib.float64)
        b.fill_(w * 2)                       # the value requires grad: b gets a history
        c = lib.zeros(3, dtype=lib.float64)
        c[1:] = lib.ones(1, 1, 2, dtype=lib.float64) * w   # extra leading 1s are dropped
        (b.sum() + c.sum()).backward()
        return _grads(w) + [b.requires_grad, c.tolist()]
    assert _both(program) == [6.0, True, [0.0, 3.0, 3.0]]


def test_item_assignment_from_an_overlapping_view_copies_like_torch():
    def program(lib):
        x, = _leaves(lib, [1.0, 2.0, 3.0])
        t = x * 2
        t[1:] = t[0]                         # copy_ allows overlapping memory; t.mul_(t[0]) does not
        (t * x).sum().backward()
        return _grads(x) + [t.tolist()]
    assert _both(program) == [[4.0 + 2 * 2.0 + 2 * 3.0, 2.0, 2.0], [2.0, 2.0, 2.0]]


@pytest.mark.parametrize("operand", ["expand", "reshape", "unsqueeze", "index"])
def test_adding_a_view_into_another_view_of_the_same_memory_like_torch(operand):
    # x[None] and these views are the same three elements laid out alike (the views differ only in the
    # stride of an axis of size 1): adding one into the other element by element is allowed, as in torch
    torch = import_torch()
    results = []
    for lib in (ag, torch):
        x = lib.tensor([[0.0, 1.0, 2.0]], dtype=lib.float64)
        other = {"expand": lambda: x.expand(1, 1, 3), "reshape": lambda: x.reshape(1, 1, 3),
                 "unsqueeze": lambda: x.unsqueeze(1), "index": lambda: x[:, None]}[operand]()
        x[None].add_(other)
        results.append(x.numpy().tolist())
    assert results[0] == results[1] == [[0.0, 2.0, 4.0]]


@pytest.mark.parametrize("view", ["view(-1)", "reshape(3, 2)", "T.reshape(-1)"])
def test_a_write_through_a_reshaped_view_gets_its_gradient_right_when_the_gradient_arrives_transposed(view):
    """The view's region is zeroed in the base's gradient by replaying the view steps on it; a gradient laid
    out unlike the forward's base (here transposed, by ``b.T`` below) cannot be reshaped as a view, and the
    write then goes through the region's flat positions."""
    def program(lib):
        x = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
        b = x * 1.0
        eval(f"b.{view}").mul_(2.0)                # b = 2x, written through a reshaped view
        (b.T * lib.arange(6, dtype=lib.float64).reshape(3, 2)).sum().backward()
        return x.grad.tolist()
    _both(program)


@pytest.mark.parametrize("index", ["slice(None)", "slice(0, None)", "Ellipsis", "(slice(None), slice(None))",
                                   "slice(0, 2)", "(Ellipsis, slice(0, 3))"])
def test_assigning_to_the_whole_tensor_copies_into_it_and_saves_nothing(index):
    """``t[:] = v`` takes all of ``t``: PyTorch copies into ``t`` itself (CopyBackwards, nothing saved), so a
    second backward works; a part (``t[0] = v``) goes through a view and CopySlices, which frees its steps."""
    def program(lib):
        x = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
        v = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        t = x + 1.0
        t[eval(index)] = v
        t.sum().backward()
        t.sum().backward()                         # the copy kept nothing to free
        return [t.tolist(), x.grad.tolist(), v.grad.tolist()]
    _both(program)
    t = ag.ones(2, 3, requires_grad=True) + 1.0
    t[0] = ag.full((3,), 7.0)
    t.sum().backward()
    with pytest.raises(RuntimeError, match="second time"):
        t.sum().backward()


def test_a_stale_views_grad_fn_and_requires_grad_follow_its_base():
    """A view taken before its base was written in place (through another view) reads its history from the
    base again on ``grad_fn`` / ``requires_grad`` / ``is_leaf``, as PyTorch regenerates it on access."""
    def program(lib):
        a = lib.zeros(3, 3, dtype=lib.float64)
        v = a.reshape(-1)                 # a view of a, taken while a needs no gradient
        w = lib.ones(2, dtype=lib.float64, requires_grad=True)
        a[0, :2] = w                      # a now has a history leading to w
        seen = [v.requires_grad, v.is_leaf, v.grad_fn is not None]
        (v * lib.arange(9, dtype=lib.float64)).sum().backward()
        return seen + [w.grad.tolist()]
    assert _both(program)[:3] == [True, False, True]


def _outcome(fn):
    try:
        return fn()
    except RuntimeError as exc:
        return "RuntimeError: " + ("freed" if "second time" in str(exc) or "freed" in str(exc) else "other")


ARRAY_ASSIGNMENTS = {   # t[index] = v with integer/bool array indices while recording: PyTorch's index_put_
    "list of rows": lambda lib, x, v: (lambda t: (t.__setitem__([0, 2], v[:2]), t)[1])(x * 1),
    "bool mask, a number": lambda lib, x, v: (lambda t: (t.__setitem__(t > 0.5, 0.0), t)[1])(x * 1),
    "bool mask, a 0-d tensor": lambda lib, x, v: (lambda t: (t.__setitem__(t < 0.5, v[0, 0]), t)[1])(x * 1),
    "a row twice (each copy gets g)": lambda lib, x, v: (lambda t: (t.__setitem__([1, 1], v[0]), t)[1])(x * 1),
    "slice and array": lambda lib, x, v: (lambda t: (t.__setitem__((slice(None), [1, 0]), v[1, :2]), t)[1])(x * 1),
    "through a view": lambda lib, x, v: (lambda t: (t[1].__setitem__([0, 2], v[0, :2]), t)[1])(x * 1),
    "then used": lambda lib, x, v: (lambda t: (t.__setitem__([2], v[1]), t.exp() * t)[1])(x * 1),
}


@pytest.mark.parametrize("case", list(ARRAY_ASSIGNMENTS))
def test_item_assignment_with_array_indices_is_recorded_as_pytorchs_index_put(case):
    """The written elements get no gradient from the result, the values get g read back at the index (a value
    written twice gets it twice, as in PyTorch); a second backward raises; create_graph gives second order."""
    def program(lib):
        x = lib.tensor([[0.25, 1.0, -2.0], [3.0, 0.75, 0.5], [-1.0, 2.0, 0.125]], dtype=lib.float64,
                       requires_grad=True)
        v = lib.tensor([[5.0, -6.0, 7.0], [0.5, 1.5, -2.5]], dtype=lib.float64, requires_grad=True)
        y = ARRAY_ASSIGNMENTS[case](lib, x, v)
        w = lib.arange(y.numel(), dtype=lib.float64).reshape(y.shape)
        (y * w).sum().backward()
        again = _outcome(lambda: (y * w).sum().backward())
        first = _grads(x, v)
        x.grad = v.grad = None
        y = ARRAY_ASSIGNMENTS[case](lib, x, v)
        gx, gv = lib.autograd.grad((y * y * w).sum(), (x, v), create_graph=True, materialize_grads=True)
        (gx.sum() + gv.sum()).backward()
        name = type(y.grad_fn).__name__.rstrip("0") if lib is not ag else y.grad_fn.name()
        return [y.tolist(), name.replace("CopySlicesBackward", "CopySlices"),
                first, again, _grads(x, v)]
    _both(program)


def test_array_item_assignment_of_a_value_of_the_wrong_shape_says_which_shapes_and_changes_nothing():
    x = ag.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    y = x * 1
    node = y.grad_fn
    with pytest.raises(RuntimeError, match=r"v of shape \(3,\) cannot be broadcast to the \(2, 2\) elements"):
        y[:, [2, 0]] = ag.ones(3, requires_grad=True)
    assert y.grad_fn is node and y._version == 0 and y.tolist() == x.tolist()


VALUE_DTYPES = {   # t[index] = v with array indices: v of t's dtype, or one element with a single bool mask
    "list, float64 v": lambda lib, t: t.__setitem__([0], lib.tensor(5.0, dtype=lib.float64)),
    "list, int64 v": lambda lib, t: t.__setitem__([0], lib.tensor(5)),
    "mask, two float64 elements": lambda lib, t: t.__setitem__(t > 1.5, lib.tensor([5.0, 6.0], dtype=lib.float64)),
    "mask, a 0-d float64 v": lambda lib, t: t.__setitem__(t > 1.5, lib.tensor(5.0, dtype=lib.float64)),
    "mask, one float64 element": lambda lib, t: t.__setitem__(t > 1.5, lib.tensor([5.0], dtype=lib.float64)),
    "numbers and bools": lambda lib, t: (t.__setitem__([0], 5), t.__setitem__([1], True)),
}


@pytest.mark.parametrize("recorded", [False, True], ids=["plain", "recorded"])
@pytest.mark.parametrize("case", list(VALUE_DTYPES))
def test_array_item_assignment_takes_pytorchs_value_dtypes(case, recorded):
    def program(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=recorded)
        t = x * 1 if recorded else x
        try:
            VALUE_DTYPES[case](lib, t)
        except RuntimeError as exc:
            assert lib is not ag or "t's dtype" in str(exc)
            return ["RuntimeError", t.tolist()]
        if recorded:
            t.sum().backward()
        return [t.tolist(), str(t.dtype).replace("torch.", ""), x.grad.tolist() if recorded else None]
    _both(program)


def test_an_index_tensor_written_after_recording_does_not_change_the_gradient():
    """The node keeps a copy of the index: the gradient is the one of the indexing that happened. (PyTorch
    refuses the backward instead, as it would for any saved tensor changed in place.)"""
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    idx = ag.tensor([0, 2])
    y = x[idx] * ag.tensor([10.0, 20.0])
    t = x * 1
    t[idx] = ag.tensor([5.0, 6.0], requires_grad=True)
    idx[0] = 1
    (y.sum() + t.sum()).backward()
    assert x.grad.tolist() == [10.0, 1.0, 20.0]


def test_array_item_assignment_into_a_leaf_that_requires_grad_raises_and_changes_nothing():
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x[[0, 2]] = 0.0
    assert x.tolist() == [1.0, 2.0, 3.0] and x._version == 0


OVERLAPS = {
    "shifted slice": lambda lib: lib.arange(5.0)[1:].__setitem__(slice(None), lib.arange(5.0)[:-1]),
    "t[1:] = t[:-1]": lambda lib: (lambda t: t.__setitem__(slice(1, None), t[:-1]))(lib.arange(5.0)),
    "recorded t[1:] = t[:-1]": lambda lib: (lambda t: t.__setitem__(slice(1, None), t[:-1]))(
        lib.arange(5.0, requires_grad=True) * 1),
    "t[:] = t": lambda lib: (lambda t: t.__setitem__(slice(None), t))(lib.arange(5.0)),
    "row from row": lambda lib: (lambda t: t.__setitem__(0, t[1]))(lib.arange(6.0).reshape(2, 3)),
    "every other element": lambda lib: (lambda t: t.__setitem__(slice(None, None, 2), t[1::2]))(lib.arange(4.0)),
    "x.add_(x.T)": lambda lib: (lambda x: x.add_(x.T))(lib.arange(9.0).reshape(3, 3)),
    "column into column": lambda lib: (lambda x: x[:, 0].add_(x[:, 1]))(lib.arange(9.0).reshape(3, 3)),
    "an element of the row": lambda lib: (lambda t: t.__setitem__(0, t[0, 1]))(lib.arange(6.0).reshape(2, 3)),
    "recorded, an element of the row": lambda lib: (lambda t: t.__setitem__(0, t[0, 1]))(
        (lib.arange(6.0, requires_grad=True) * 1).reshape(2, 3)),
    "a row broadcast over the rows": lambda lib: (lambda t: t.__setitem__(slice(1, None), t[0]))(
        lib.arange(9.0).reshape(3, 3)),
    "x.mul_(x[0])": lambda lib: (lambda x: x.mul_(x[0]))(lib.arange(9.0).reshape(3, 3)),
    "t[[3, 4]] = t[0:2]": lambda lib: (lambda t: t.__setitem__([3, 4], t[0:2]))(lib.arange(6.0)),
    "recorded t[[3, 4]] = t[0:2]": lambda lib: (lambda t: t.__setitem__([3, 4], t[0:2]))(
        lib.arange(6.0, requires_grad=True) * 1),
    "t[[0, 1]] = t[4]": lambda lib: (lambda t: t.__setitem__([0, 1], t[4]))(lib.arange(6.0)),
    "row [0] from row 1": lambda lib: (lambda t: t.__setitem__([0], t[1]))(lib.arange(6.0).reshape(2, 3)),
    "t[0:3][[0]] = t[4:5] (apart)": lambda lib: (lambda t: t[0:3].__setitem__([0], t[4:5]))(lib.arange(6.0)),
    "t[mask] = t.flip (a copy)": lambda lib: (lambda t: t.__setitem__(t > 2, t[[5, 4, 3]]))(lib.arange(6.0)),
    "t[[0, 1]] = t[[1, 2]] (a copy)": lambda lib: (lambda t: t.__setitem__([0, 1], t[[1, 2]]))(lib.arange(6.0)),
    "t[mask] = t[0] (one element: a fill)": lambda lib: (lambda t: t.__setitem__(t > 2, t[0]))(lib.arange(6.0)),
    "t[mask] = t[0:1]": lambda lib: (lambda t: t.__setitem__(t > 2, t[0:1]))(lib.arange(6.0)),
    "t[mask] = t[0:2]": lambda lib: (lambda t: t.__setitem__(t > 4, t[0:2]))(lib.arange(6.0)),
    "t.masked_fill_(mask, t[0])": lambda lib: (lambda t: t.masked_fill_(t > 1, t[0]))(lib.arange(6.0)),
    "recorded t.masked_fill_(mask, t[0])": lambda lib: (lambda t: t.masked_fill_(t > 1, t[0]))(
        lib.arange(6.0, requires_grad=True) * 1),
    # a value of another shape loses its leading size-1 dims, then is broadcast: 1x1 into its own row overlaps
    # partly (a new dim of step 0), a 1x3 into its own row is the same elements, a row over the rows repeats
    "t[0] = t, t 1x1": lambda lib: (lambda t: t.__setitem__(0, t))(lib.zeros(1, 1)),
    "recorded t[0] = t, t 1x1": lambda lib: (lambda t: t.__setitem__(0, t))(lib.zeros(1, 1, requires_grad=True) * 1),
    "t[0] = t, t 1x3": lambda lib: (lambda t: t.__setitem__(0, t))(lib.arange(3.0).reshape(1, 3)),
    "t[0] = t[0], t 1x1": lambda lib: (lambda t: t.__setitem__(0, t[0]))(lib.zeros(1, 1)),
    "t[:] = t[0]": lambda lib: (lambda t: t.__setitem__(slice(None), t[0]))(lib.arange(6.0).reshape(2, 3)),
    "t[0:1] = t[None, 0:1]": lambda lib: (lambda t: t.__setitem__(slice(0, 1), t[None, 0:1]))(lib.arange(3.0)),
}


@pytest.mark.parametrize("case", list(OVERLAPS))
def test_writes_whose_source_partly_overlaps_the_target_raise_where_pytorch_does(case):
    def outcome(lib):
        try:
            OVERLAPS[case](lib)
            return "ok"
        except RuntimeError as exc:
            assert lib is not ag or "shares memory" in str(exc)
            return "RuntimeError"
    torch = import_torch()
    assert outcome(ag) == outcome(torch)


@pytest.mark.parametrize("write", [lambda v: v.mul_(3), lambda v: v.__setitem__(0, 5.0), lambda v: v.zero_()],
                         ids=["mul_", "setitem", "zero_"])
@pytest.mark.parametrize("leaf", [False, True], ids=["of-a-result", "of-a-leaf"])
def test_a_view_made_under_no_grad_and_changed_in_place_with_grad_on_is_refused_like_torch(write, leaf):
    """Ambiguous (should autograd see the change?), so PyTorch refuses it; autogradlab used to drop the change
    from the gradient silently. The same view changed inside no_grad, or a view of a detached tensor, is fine."""
    torch = import_torch()
    for lib in (ag, torch):
        x = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        y = x if leaf else x * 1
        with lib.no_grad():
            v = y[:2]
        with pytest.raises(RuntimeError, match="(?i)created in no_grad mode"):
            write(v)
        assert y.tolist() == [1.0, 2.0, 3.0, 4.0]
        with lib.no_grad():
            write(y[:2])
        write(y.detach()[2:])


@pytest.mark.parametrize("parts", [lambda y: y.split(2), lambda y: y.chunk(2), lambda y: y.unbind()],
                         ids=["split", "chunk", "unbind"])
def test_in_place_on_a_view_from_split_chunk_or_unbind_is_allowed_with_the_right_gradient(parts):
    """A decided difference (README): torch refuses it; the gradient here is the one of the same program
    written out of place (the first element or pair tripled)."""
    torch = import_torch()
    y = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True) * 1
    with pytest.raises(RuntimeError, match="(?i)view"):
        parts(y)[0].mul_(3)
    x = ag.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    y = x * 1
    first = parts(y)[0]
    first.mul_(3)
    (y * y).sum().backward()
    expected = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    scale = torch.ones(4)
    scale[: first.numel()] = 3
    ((expected * scale) ** 2).sum().backward()
    assert x.grad.tolist() == expected.grad.tolist()
