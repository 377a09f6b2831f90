"""Operator details that lab code meets when it ports to PyTorch, each checked against torch:
``number / t`` is ``reciprocal(t) * number`` (the graph keeps ``1/t``), products refuse mixed dtypes,
``view`` refuses a layout it cannot view without copying, and ``t == None`` is False."""
from __future__ import annotations

import numpy as np

import pytest
from conftest import import_torch

import autogradlab as ag

torch = import_torch()
BOTH = pytest.mark.parametrize("M", [torch, ag], ids=["torch", "autogradlab"])


def _number_over(M):
    x = M.tensor([0.5, 2.0], requires_grad=True)
    y = 2.0 / x
    with M.no_grad():
        x.add_(1.0)            # the graph kept 1/x, not x: the change in place does not matter
    y.sum().backward()
    i = M.tensor([1, 2])
    return y.tolist(), x.grad.tolist(), str(y.dtype).replace("torch.", ""), (2 / i).tolist(), \
        str((2 / i).dtype).replace("torch.", ""), i.reciprocal().tolist()


def test_a_number_over_a_tensor_multiplies_its_reciprocal():
    assert _number_over(ag) == _number_over(torch)
    x = ag.tensor([0.5, 2.0], requires_grad=True)
    y = 2.0 / x
    assert y.grad_fn.name() == "MulBackward" and y.grad_fn.next_functions[0][0].name() == "ReciprocalBackward"


@BOTH
def test_products_refuse_mixed_dtypes(M):
    a, b = M.ones(2, 3), M.ones(3, 2, dtype=M.float64)
    for product in (lambda: a @ b, lambda: M.matmul(a, b.to(M.int64)), lambda: M.ones(3) @ M.ones(3, dtype=M.float64),
                    lambda: M.dot(M.ones(2), M.ones(2, dtype=M.float64))):
        with pytest.raises(RuntimeError, match="dtype"):
            product()
    assert (a @ b.to(M.float32)).shape == (2, 2)


@BOTH
def test_view_refuses_a_layout_it_cannot_view(M):
    x = M.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="reshape"):
        x.T.view(-1)
    assert tuple(x.T.view(3, 2).shape) == (3, 2) and tuple(x.T.reshape(-1).shape) == (6,)
    v = (x * 1).view(3, 2)
    with M.no_grad():
        v[0, 0] = 5.0
    assert v.tolist()[0][0] == 5.0


@BOTH
def test_equality_with_something_that_is_not_an_operand_is_identity(M):
    x = M.tensor([1.0, 2.0])
    assert (x == None) is False and (x != None) is True     # noqa: E711  (the point of the test)
    assert (x == "a") is False and (x == [1.0, 2.0]) is False and (x != object()) is True
    assert None not in [x] and x in [None, x]
    assert (x == 1.0).tolist() == [True, False] and (x != M.tensor([1.0, 0.0])).tolist() == [False, True]


NAN, INF = float("nan"), float("inf")
EDGE_CASES = {
    "relu": lambda M, x: M.relu(x), "abs": lambda M, x: M.abs(x), "sign": lambda M, x: M.sign(x),
    "maximum, x first": lambda M, x: M.maximum(x, M.zeros(3, dtype=M.float64)),
    "maximum, x second": lambda M, x: M.maximum(M.zeros(3, dtype=M.float64), x),
    "minimum": lambda M, x: M.minimum(x, M.zeros(3, dtype=M.float64)),
    "maximum of ties": lambda M, x: M.maximum(x, M.tensor([NAN, 1.0, 0.0], dtype=M.float64)),
    "max()": lambda M, x: x.max(), "min()": lambda M, x: M.min(x), "amax(dim)": lambda M, x: M.amax(x, 0),
    "x ** 0.0": lambda M, x: x ** 0.0, "x ** zeros": lambda M, x: x ** M.zeros(3, dtype=M.float64),
}


def _edge(M, case, values):
    def plain(t):
        return [("nan" if v != v else v) for v in t.detach().reshape(-1).tolist()]
    x = M.tensor(values, dtype=M.float64, requires_grad=True)
    y = EDGE_CASES[case](M, x)
    y.sum().backward()
    return plain(y), plain(x.grad)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")   # (NumPy warns about the NaN it makes; torch does not)
@pytest.mark.parametrize("values", [[NAN, 1.0, -2.0], [INF, -INF, 0.0], [1.0, 1.0, NAN], [2.0, -1.0, 2.0]],
                         ids=["nan first", "infinities", "tie and nan", "ties"])
@pytest.mark.parametrize("case", list(EDGE_CASES))
def test_values_and_gradients_at_nan_and_infinity_are_pytorchs(case, values):
    assert _edge(ag, case, values) == _edge(torch, case, values)


def _outcome(fn):
    try:
        out = fn()
    except (RuntimeError, TypeError, ValueError, IndexError) as exc:
        return type(exc).__name__
    return out.tolist(), str(out.dtype).replace("torch.", "")


ARGUMENTS = {
    "float - True": lambda M: M.tensor([1.0, 2.0]) - True,
    "True - float": lambda M: True - M.tensor([1.0, 2.0]),
    "mask - 2": lambda M: M.tensor([True, False]) - 2,
    "mask - mask": lambda M: M.tensor([True, False]) - M.tensor([True, True]),
    "-mask": lambda M: -M.tensor([True, False]),
    "~mask": lambda M: ~M.tensor([True, False]),
    "~ints": lambda M: ~M.tensor([1, 2]),
    "~floats": lambda M: ~M.tensor([1.0, 2.0]),
    "mask & mask": lambda M: M.tensor([True, False]) & M.tensor([True, True]),
    "mask | True": lambda M: M.tensor([True, False]) | True,
    "False ^ mask": lambda M: False ^ M.tensor([True, False]),
    "ints & ints": lambda M: M.tensor([6, 3]) & M.tensor([3, 3]),
    "logical_not of ints": lambda M: M.logical_not(M.tensor([0, 2])),
    "reshape(6.0)": lambda M: M.arange(6.0).reshape(6.0),
    "reshape(2, 3.0)": lambda M: M.arange(6.0).reshape(2, 3.0),
    "expand(2, 3.0)": lambda M: M.ones(3).expand(2, 3.0),
    "transpose(True, 0)": lambda M: M.ones(2, 3).transpose(True, 0),
    "sum(True)": lambda M: M.ones(2, 3).sum(True),
    "sum(dim=(0, True))": lambda M: M.ones(2, 3).sum((0, True)),
    "where(mask, 1, 2)": lambda M: M.where(M.tensor([True, False]), 1, 2),
    "where(mask, 1.0, 2)": lambda M: M.where(M.tensor([True, False]), 1.0, 2),
    "where(mask, True, False)": lambda M: M.where(M.tensor([True, False]), True, False),
    "logsumexp over an empty dim": lambda M: M.logsumexp(M.ones(0, 2), 0),
    "logsumexp over an empty dim, keepdim": lambda M: M.logsumexp(M.ones(0, 2), 0, keepdim=True),
}


@pytest.mark.parametrize("case", list(ARGUMENTS))
def test_masks_sizes_and_numbers_behave_as_in_pytorch(case):
    assert _outcome(lambda: ARGUMENTS[case](ag)) == _outcome(lambda: ARGUMENTS[case](torch))


def test_the_errors_for_bools_and_floats_say_what_to_write_instead():
    with pytest.raises(RuntimeError, match=r"~mask"):
        ag.tensor([True, False]) - ag.tensor([True, True])
    with pytest.raises(TypeError, match=r"//"):
        ag.arange(6.0).reshape(6 / 2, 2)
    with pytest.raises(TypeError, match=r"\(x > 0\) & \(y > 0\)"):
        ag.tensor([1.0]) | ag.tensor([True])
    with pytest.raises(TypeError, match="object"):
        ag.tensor([1.0]) + np.array([1.0], dtype=object)


@BOTH
def test_contiguous_copies_a_layout_view_cannot_take_and_a_refused_view_records_nothing(M):
    x = M.ones(2, 3, requires_grad=True)
    assert x.T.contiguous().view(-1).shape == (6,)
    y = x * 1
    assert y.contiguous() is y                     # already row-major: itself
    if M is ag:
        with ag.trace() as tape:
            with pytest.raises(RuntimeError):
                y.T.view(-1)
        assert [e.op for e in tape.of_kind("OpRecorded")] == ["permute"]   # (.T, then nothing)


@BOTH
def test_sign_sends_constant_zeros_even_for_an_infinite_or_nan_gradient(M):
    x = M.tensor([float("inf"), 1.0, float("nan")], requires_grad=True)
    M.sign(x).backward(M.tensor([float("inf"), float("nan"), 1.0]))
    assert x.grad.tolist() == [0.0, 0.0, 0.0]


@BOTH
def test_detaching_a_view_in_place_raises(M):
    base = M.ones(3, requires_grad=True) * 1
    with pytest.raises(RuntimeError, match="detach"):
        base[:2].detach_()
    assert base.detach_() is base and base.grad_fn is None


@pytest.mark.parametrize("index", ["slice(None, None, -1)", "(slice(None), slice(None, None, -1))"])
def test_assigning_through_a_reversed_view_while_recording_writes_in_that_order(index):
    x = ag.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    t = x * 1
    v = ag.tensor(np.arange(10.0, 16.0).reshape(2, 3), requires_grad=True)
    t[eval(index)] = v
    expected = np.arange(6.0).reshape(2, 3)
    expected[eval(index)] = np.arange(10.0, 16.0).reshape(2, 3)
    assert t.tolist() == expected.tolist()
    (t * ag.tensor(np.arange(6.0).reshape(2, 3))).sum().backward()
    weights = np.arange(6.0).reshape(2, 3)
    assert v.grad.tolist() == weights[eval(index)].tolist() and x.grad.tolist() == np.zeros((2, 3)).tolist()
