"""In-place ops and views: where autogradlab refuses rather than silently losing a gradient."""
import pytest

import autogradlab as ag


def test_inplace_into_a_slice_of_a_constant_with_a_grad_requiring_operand_raises():
    base = ag.zeros(4)
    w = ag.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"add_: this tensor \(shape \(2,\)\) is a view into another tensor"):
        base[0:2].add_(w)
    assert base.tolist() == [0, 0, 0, 0] and w.grad is None


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
    import torch
    for lib in (ag, torch):
        b = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
        v, row, last = b[1, 1], b[-1], b[-1][-1]
        b.mul_(10.0)
        assert (v.item(), row.tolist(), last.item()) == (40.0, [30.0, 40.0], 40.0), lib.__name__
        assert v._version == b._version == 1


@pytest.mark.parametrize("case", ["row-of-itself", "element-of-itself", "transpose-of-itself"])
@pytest.mark.parametrize("grad", [True, False])
def test_an_operand_that_partly_aliases_the_target_is_refused_like_torch(case, grad):
    import torch
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
