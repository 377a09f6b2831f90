"""The engine's contract: one test per behaviour of ``autograd.backward`` / ``Tensor.backward`` /
``autograd.grad`` and the machinery around them (grad mode, hooks, saved tensors, custom
Functions, anomaly mode, gradient checks, ``autograd.functional``).

The behaviours come from the reference texts (PyTorch's ``torch.autograd.backward`` and
``Tensor.backward``, OneFlow's and Lucid's versions); where they differ PyTorch is the
reference, except for the documented deliberate differences, each tested here by name:

1. with ``inputs=``, a non-leaf input's own ``grad_fn`` is not called (unless it leads to
   another input);
2. no ``create_graph`` leak: a leaf whose ``.grad`` holds a graph is collected after ``del``;
3. a freed graph or an in-place-modified saved tensor is detected before any gradient is
   accumulated (PyTorch raises mid-pass);
4. max/min ties share the gradient equally.

Where PyTorch is installed a few tests also run the same program in it and compare; the
random differential tests are in ``test_engine_vs_torch.py``.
"""
import gc
import re
import threading
import warnings
import weakref

import numpy as np
import pytest
from conftest import import_torch

import autogradlab as ag
from autogradlab.autograd.graph import GradientEdge, get_gradient_edge, saved_tensors_hooks


def m(text):
    """A ``match=`` pattern for a literal piece of a message."""
    return re.escape(text)


def val(t):
    """A tensor's values on the host, as float64 NumPy (works on every device and backend)."""
    return np.asarray(t.detach().numpy(), dtype=np.float64)


def close(t, expected):
    np.testing.assert_allclose(val(t), np.asarray(expected, dtype=np.float64), rtol=1e-6, atol=1e-9)


def leaf(values, dtype=ag.float64):
    return ag.tensor(values, dtype=dtype, requires_grad=True)


def record_order(*tensors):
    """Register a prehook on each tensor's grad_fn; the returned list fills with their names."""
    order = []
    for name, t in tensors:
        t.grad_fn.register_prehook(lambda g, name=name: order.append(name))
    return order


# =======================================================================================
# Entry points and signatures
# =======================================================================================

def test_backward_is_importable_from_autograd_and_the_package():
    from autogradlab.autograd import backward
    assert backward is ag.autograd.backward is ag.backward


def test_backward_signature_matches_pytorch():
    import inspect
    params = list(inspect.signature(ag.autograd.backward).parameters)
    assert params == ["tensors", "grad_tensors", "retain_graph", "create_graph", "grad_variables", "inputs"]
    params = list(inspect.signature(ag.Tensor.backward).parameters)
    assert params == ["self", "gradient", "retain_graph", "create_graph", "inputs"]
    params = list(inspect.signature(ag.autograd.grad).parameters)   # (and test_grad_api_vs_torch.py)
    assert params == ["outputs", "inputs", "grad_outputs", "retain_graph", "create_graph", "only_inputs",
                      "allow_unused", "is_grads_batched", "materialize_grads"]


def test_tensor_backward_takes_gradient_retain_graph_create_graph_inputs_positionally():
    x = leaf([1.0, 2.0])
    w = leaf([3.0, 4.0])
    y = x * w
    y.backward(ag.tensor([1.0, 1.0], dtype=ag.float64), True, False, [x])
    close(x.grad, [3.0, 4.0])
    assert w.grad is None
    y.backward(ag.tensor([1.0, 1.0], dtype=ag.float64))   # the graph was retained
    close(x.grad, [6.0, 8.0])


def test_backward_returns_none():
    x = leaf([1.0])
    assert ag.autograd.backward((x * 2).sum()) is None
    assert (x * 2).sum().backward() is None


def test_zero_grad_sets_grad_to_none():
    x = leaf([1.0, 2.0])
    (x * x).sum().backward()
    assert x.grad is not None
    x.zero_grad()
    assert x.grad is None


def test_retain_grad_sets_retains_grad_on_non_leaves_only():
    x = leaf([1.0, 2.0])
    y = x * 2
    assert not y.retains_grad and not x.retains_grad
    y.retain_grad()
    x.retain_grad()   # a no-op on a leaf
    assert y.retains_grad and not x.retains_grad


def test_retain_grad_on_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="requires_grad=False"):
        ag.tensor([1.0]).retain_grad()


# =======================================================================================
# Seeds: implicit for one-element roots, validated otherwise
# =======================================================================================

def test_implicit_seed_only_for_single_element_roots():
    x = leaf([1.0, 2.0, 3.0])
    (x * 2).sum().backward()                       # 0-d root
    close(x.grad, [2.0, 2.0, 2.0])
    x.grad = None
    (x[:1] * 5).reshape(1, 1).backward()          # a (1, 1) root has one element too
    close(x.grad, [5.0, 0.0, 0.0])


def test_non_scalar_root_without_grad_tensors_raises_naming_shape_and_index():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match=m("grad can be implicitly created only for scalar outputs") + ".*"
                       + m("tensors[0] has shape (2,)")):
        (x * 2).backward()
    with pytest.raises(RuntimeError, match=m("tensors[1] has shape (2,)")):
        ag.autograd.backward([(x * 2).sum(), x * 3])


def test_non_scalar_root_with_grad_tensors_computes_the_vector_jacobian_product():
    x = leaf([1.0, 2.0])
    y = x * x
    y.backward(ag.tensor([10.0, 100.0], dtype=ag.float64))
    close(x.grad, [20.0, 400.0])


def test_grad_tensors_count_must_match_roots():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="got 2 tensor.*1 gradient"):
        ag.autograd.backward([(x * 2).sum(), (x * 3).sum()], [ag.tensor(1.0, dtype=ag.float64)])
    with pytest.raises(RuntimeError, match="got 1 tensor.*2 gradient"):
        ag.autograd.backward([(x * 2).sum()], [None, None])


def test_seed_shape_must_match_exactly_and_is_not_broadcast():
    x = leaf([[1.0, 2.0, 3.0]])
    y = x * 2
    for bad in ([1.0, 1.0, 1.0], [[1.0]], [[[1.0, 1.0, 1.0]]]):
        seed = ag.tensor(bad, dtype=ag.float64)
        with pytest.raises(RuntimeError, match=m(f"grad_tensors[0] has a shape of {tuple(seed.shape)} and tensors[0] "
                                                 f"has a shape of (1, 3)")):
            y.backward(seed)
    assert x.grad is None


def test_seed_shape_error_names_the_index_of_the_bad_seed():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match=m("grad_tensors[1] has a shape of (3,) and tensors[1] has a shape of (2,)")):
        ag.autograd.backward([x * 2, x * 3], [ag.ones(2, dtype=ag.float64), ag.ones(3, dtype=ag.float64)])


def test_grad_outputs_shape_error_uses_grad_names():
    x = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match=m("grad_outputs[0] has a shape of (3,) and outputs[0] has a shape of (2,)")):
        ag.autograd.grad(x * 2, x, ag.ones(3, dtype=ag.float64))


def test_an_integer_or_bool_seed_is_cast_to_the_roots_dtype_as_torch():
    # (PyTorch 2.13 casts it; a complex output still needs a complex seed)
    x = leaf([1.0, 2.0])
    (x * x).backward(ag.tensor([1, 2]))
    close(x.grad, [2.0, 8.0])
    (g,) = ag.autograd.grad(x * x, x, ag.tensor([True, False]))
    close(g, [2.0, 0.0])
    z = ag.tensor([1 + 1j], requires_grad=True)
    with pytest.raises(RuntimeError, match="both grad_output and output are required to have the same dtype"):
        (z * z).backward(ag.tensor([1]))


@pytest.mark.parametrize("seed_dtype", [ag.float16, ag.float64])
def test_float_seed_of_another_precision_is_cast_to_the_root_dtype(seed_dtype):
    x = leaf([1.0, 2.0], dtype=ag.float32)
    (x * 3).backward(ag.tensor([1.0, 2.0], dtype=seed_dtype))
    assert x.grad.dtype == ag.float32
    close(x.grad, [3.0, 6.0])


def test_float_seed_cast_matches_pytorch():
    torch = import_torch()
    xt = torch.tensor([1.0, 2.0], requires_grad=True)
    (xt * 3).backward(torch.tensor([1.0, 2.0], dtype=torch.float64))
    x = leaf([1.0, 2.0], dtype=ag.float32)
    (x * 3).backward(ag.tensor([1.0, 2.0], dtype=ag.float64))
    assert str(xt.grad.dtype) == "torch.float32" and x.grad.dtype == ag.float32
    close(x.grad, xt.grad.numpy())


def test_seed_on_another_device_raises_naming_both_devices():
    x = leaf([1.0, 2.0])
    seed = ag.ones(2, dtype=ag.float64)
    seed.device = "cuda:7" if x.device != "cuda:7" else "cpu"   # a label: the check comes first
    with pytest.raises(RuntimeError, match=m(f"grad_tensors[0] is on device {seed.device} but tensors[0] is on "
                                             f"device {x.device}")):
        (x * 2).backward(seed)
    assert x.grad is None


def test_none_is_accepted_for_scalar_roots_among_explicit_seeds():
    x = leaf([1.0, 2.0])
    ag.autograd.backward([(x * 2).sum(), x * 3], [None, ag.tensor([1.0, 10.0], dtype=ag.float64)])
    close(x.grad, [5.0, 32.0])


def test_a_bare_tensor_is_accepted_as_the_seed_of_one_root():
    x = leaf([1.0, 2.0])
    ag.autograd.backward(x * 2, ag.tensor([1.0, 3.0], dtype=ag.float64))
    close(x.grad, [2.0, 6.0])


def test_a_single_tensor_and_a_list_of_one_tensor_are_the_same_root():
    x = leaf([1.0, 2.0])
    ag.autograd.backward((x * x).sum())
    first = val(x.grad)
    x.grad = None
    ag.autograd.backward([(x * x).sum()])
    close(x.grad, first)


def test_roots_that_do_not_require_grad_raise_naming_their_index():
    x = leaf([1.0])
    c = ag.tensor([2.0], dtype=ag.float64)
    with pytest.raises(RuntimeError, match=m("element 0 of tensors does not require grad")):
        ag.autograd.backward(c.sum())
    with pytest.raises(RuntimeError, match=m("element 1 of tensors does not require grad")):
        ag.autograd.backward([(x * 2).sum(), (c * 2).sum()])
    with pytest.raises(RuntimeError, match=m("element 0 of outputs does not require grad")):
        ag.autograd.grad(c.sum(), x)
    assert x.grad is None


def test_none_seed_for_a_non_scalar_root_without_grad_fails_on_requires_grad_not_on_the_seed():
    # "None values can be specified for ... ones that don't require grad": the seed is fine,
    # but a root that needs no gradient is still refused (as in PyTorch)
    x = leaf([1.0])
    with pytest.raises(RuntimeError, match=m("element 1 of tensors does not require grad")):
        ag.autograd.backward([(x * 2).sum(), ag.ones(3, dtype=ag.float64)], [None, None])


def test_without_inputs_every_leaf_used_accumulates_and_others_are_ignored():
    x, w, unused = leaf([1.0]), leaf([2.0]), leaf([3.0])
    c = ag.tensor([4.0], dtype=ag.float64)
    (x * w * c).sum().backward()
    close(x.grad, [8.0])
    close(w.grad, [4.0])
    assert unused.grad is None and c.grad is None


def test_grad_variables_works_with_a_deprecation_warning():
    # (PyTorch 2.13 warns with FutureWarning; the issue asks for DeprecationWarning)
    x = leaf([1.0, 2.0])
    with pytest.warns(DeprecationWarning, match="grad_variables"):
        ag.autograd.backward(x * 2, grad_variables=ag.tensor([1.0, 5.0], dtype=ag.float64))
    close(x.grad, [2.0, 10.0])


def test_grad_variables_and_grad_tensors_together_raise():
    x = leaf([1.0])
    with pytest.warns(DeprecationWarning), pytest.raises(RuntimeError, match="both passed"):
        ag.autograd.backward(x * 2, ag.ones(1, dtype=ag.float64), grad_variables=ag.ones(1, dtype=ag.float64))


def test_empty_inputs_raises():
    x = leaf([1.0])
    with pytest.raises(RuntimeError, match="'inputs' argument to backward\\(\\) cannot be empty"):
        (x * 2).sum().backward(inputs=[])
    with pytest.raises(RuntimeError, match="inputs.*empty"):
        ag.autograd.grad((x * 2).sum(), [])


def test_inputs_that_do_not_require_grad_raise_naming_the_index():
    x = leaf([1.0])
    c = ag.tensor([1.0], dtype=ag.float64)
    with pytest.raises(RuntimeError, match=m("inputs[1] (shape (1,)) does not require grad")):
        (x * c).sum().backward(inputs=[x, c])
    with pytest.raises(RuntimeError, match=m("does not require grad: inputs[0]")):
        ag.autograd.grad((x * c).sum(), [c])


def test_non_tensor_roots_and_seeds_raise_type_errors():
    x = leaf([1.0])
    with pytest.raises(TypeError, match=m("tensors[1] must be a Tensor")):
        ag.autograd.backward([(x * 2).sum(), 3.0])
    with pytest.raises(TypeError, match=m("grad_tensors[0] is a float: gradients can be either Tensors or None")):
        ag.autograd.backward([(x * 2).sum()], [1.0])


def test_a_python_list_as_the_gradient_says_it_must_be_a_tensor_and_changes_nothing():
    """The issue's repro: one root of shape (3,) and the list [1., 1., 1.] used to be read as three
    gradients ("got 1 tensor(s) but 3 gradient(s)"); torch raises a TypeError about the float."""
    torch = import_torch()
    x = leaf([1.0, 2.0, 3.0])
    x.grad = ag.tensor([5.0, 5.0, 5.0], dtype=ag.float64)
    y = x * 2
    with pytest.raises(TypeError, match=m("backward(gradient=...): the gradient must be a Tensor (or None), "
                                          "got a list. Wrap it")):
        y.backward([1.0, 1.0, 1.0])
    with pytest.raises(TypeError, match=m("grad_tensors[0] is a float: gradients can be either Tensors or None. "
                                          "Pass each gradient as a Tensor")):
        ag.autograd.backward(y, [1.0, 1.0, 1.0])
    with pytest.raises(TypeError, match=m("grad_outputs[0] is a list")):
        ag.autograd.grad([y], [x], [[1.0, 1.0, 1.0]])
    assert x.grad.tolist() == [5.0, 5.0, 5.0]
    tx = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with pytest.raises(TypeError, match="gradients can be either Tensors or None"):
        torch.autograd.backward(tx * 2, [1.0, 1.0, 1.0])


# =======================================================================================
# Validation before work: a call with bad arguments changes no .grad
# =======================================================================================

def _graph_with_grads():
    """Two leaves that already hold gradients, and a few roots over them."""
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    (x * w).sum().backward()
    return x, w


def _snapshot(*tensors):
    return [(t.grad, val(t.grad).copy()) for t in tensors]


def _assert_unchanged(before, *tensors):
    for (obj, values), t in zip(before, tensors):
        assert t.grad is obj, "the .grad object was replaced"
        np.testing.assert_array_equal(val(t.grad), values)


def _freed_last_root(x, w):
    bad = (x.exp() * w).sum()
    bad.backward()                                # frees bad's graph
    return lambda: ag.autograd.backward([(x * w).sum(), (x * 2).sum(), bad])


def _modified_saved_last_root(x, w):
    h = x * 1
    bad = (h * w).sum()                           # saved h
    with ag.no_grad():
        h.mul_(2)
    return lambda: ag.autograd.backward([(x * w).sum(), (w * 3).sum(), bad])


BAD_CALLS = {
    "non_scalar_last_root_without_seed": lambda x, w: lambda: ag.autograd.backward(
        [(x * w).sum(), x.exp().sum(), x * w]),
    "bad_shape_last_seed": lambda x, w: lambda: ag.autograd.backward(
        [(x * w).sum(), x * w], [None, ag.ones(3, dtype=ag.float64)]),
    "complex_seed_for_a_real_root": lambda x, w: lambda: ag.autograd.backward(
        [(x * w).sum(), x * w], [None, ag.tensor([1j, 1j, 1j])]),
    "seed_count": lambda x, w: lambda: ag.autograd.backward([(x * w).sum(), (x + w).sum()], [None]),
    "last_root_without_grad": lambda x, w: lambda: ag.autograd.backward(
        [(x * w).sum(), (x * 2).sum(), ag.tensor(1.0, dtype=ag.float64)]),
    "empty_inputs": lambda x, w: lambda: ag.autograd.backward([(x * w).sum()], inputs=[]),
    "input_without_grad": lambda x, w: lambda: ag.autograd.backward(
        [(x * w).sum()], inputs=[x, ag.tensor([1.0], dtype=ag.float64)]),
    "grad_variables_and_grad_tensors": lambda x, w: lambda: ag.autograd.backward(
        [(x * w).sum()], [None], grad_variables=[None]),
    "non_tensor_root": lambda x, w: lambda: ag.autograd.backward([(x * w).sum(), "loss"]),
    "freed_graph_in_last_root": _freed_last_root,
    "modified_saved_tensor_in_last_root": _modified_saved_last_root,
    "tensor_backward_bad_seed": lambda x, w: lambda: (x * w).backward(ag.ones(1, dtype=ag.float64)),
    "grad_with_bad_input": lambda x, w: lambda: ag.autograd.grad(
        [(x * w).sum()], [x, ag.tensor([1.0], dtype=ag.float64)]),
}


@pytest.mark.parametrize("case", sorted(BAD_CALLS))
def test_failed_call_changes_no_grad(case):
    x, w = _graph_with_grads()
    call = BAD_CALLS[case](x, w)
    before = _snapshot(x, w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises((RuntimeError, TypeError)):
            call()
    _assert_unchanged(before, x, w)


def test_freed_graph_is_detected_before_any_gradient_is_accumulated():
    # deliberate difference 3: PyTorch would first accumulate into w (its node runs first) and then raise
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    h = x.exp()
    loss = (h * w).sum()
    h.sum().backward()                            # frees ExpBackward
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()
    assert w.grad is None
    close(x.grad, np.exp([1.0, 2.0]))


def _mid_pass_program(F, mk):
    """``w``'s gradient is complete (and, in PyTorch, accumulated) before the node whose saved
    tensor was modified in place runs."""
    x, w = mk([1.0, 2.0]), mk([3.0, 4.0])
    r = x.exp()                                   # ExpBackward saves its result r
    loss = (w * 5).sum() + (r * 2).sum()
    with F.no_grad():
        r.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()
    return w.grad


def test_in_place_modified_saved_tensor_is_detected_before_any_gradient_is_accumulated():
    # deliberate difference 3: PyTorch raises when it reaches ExpBackward, after w accumulated
    assert _mid_pass_program(ag, leaf) is None


def test_pytorch_raises_mid_pass_where_autogradlab_raises_before_work():
    torch = import_torch()
    w_grad = _mid_pass_program(torch, lambda v: torch.tensor(v, dtype=torch.float64, requires_grad=True))
    assert w_grad is not None                     # the documented difference is real


# =======================================================================================
# Several roots: one pass
# =======================================================================================

def test_multiple_roots_run_as_one_pass_each_vjp_once():
    x = leaf([0.5, 1.5])
    h = x.exp()
    r1, r2 = h.sin().sum(), h.cos().sum()
    calls = {"exp": 0, "sin": 0, "cos": 0}
    h.grad_fn.register_prehook(lambda g: calls.__setitem__("exp", calls["exp"] + 1))
    r1.grad_fn.next_functions[0][0].register_prehook(lambda g: calls.__setitem__("sin", calls["sin"] + 1))
    r2.grad_fn.next_functions[0][0].register_prehook(lambda g: calls.__setitem__("cos", calls["cos"] + 1))
    ag.autograd.backward([r1, r2])
    assert calls == {"exp": 1, "sin": 1, "cos": 1}
    e = np.exp([0.5, 1.5])
    close(x.grad, e * (np.cos(e) - np.sin(e)))


def test_contributions_are_summed_at_shared_nodes():
    x = leaf([2.0])
    h = x * 3
    seen = []
    h.grad_fn.register_prehook(lambda g: seen.append(val(g[0]).tolist()))
    ag.autograd.backward([h * 2, h * 5, h], [ag.ones(1, dtype=ag.float64)] * 3)
    assert seen == [[8.0]]                        # 2 + 5 + 1, arriving once
    close(x.grad, [24.0])


def test_the_same_root_twice_gets_both_seeds():
    x = leaf([1.0])
    y = x * 3
    ag.autograd.backward([y, y], [ag.tensor([1.0], dtype=ag.float64), ag.tensor([2.0], dtype=ag.float64)])
    close(x.grad, [9.0])


def test_a_root_that_is_also_inside_another_roots_graph_waits_for_it():
    x = leaf([1.0])
    h = x * 2
    y = h * 5
    order = record_order(("h", h), ("y", y))
    ag.autograd.backward([h.sum(), y.sum()])
    assert order == ["y", "h"]                    # h's node runs once, after y fed it
    close(x.grad, [12.0])


def test_a_leaf_can_be_a_root():
    x = leaf([1.0, 2.0])
    ag.autograd.backward([x, (x * 3).sum()], [ag.tensor([1.0, 1.0], dtype=ag.float64), None])
    close(x.grad, [4.0, 4.0])


def _branching_program(F, make_leaf):
    """Two branches off one leaf, then a shared top: the ready queue has a choice to make."""
    x = make_leaf()
    a = x * 2          # created first
    b = x.sin()        # created second
    c = a.exp()
    d = b * c          # both branches meet
    e = a.cos()
    loss1, loss2 = d.sum(), e.sum()
    order = []
    for name, t in [("a", a), ("b", b), ("c", c), ("d", d), ("e", e), ("loss1", loss1), ("loss2", loss2)]:
        t.grad_fn.register_prehook(lambda g, name=name: order.append(name))
    F.autograd.backward([loss1, loss2])
    return order, x.grad


def test_ready_nodes_run_later_created_first_deterministically():
    orders = [_branching_program(ag, lambda: leaf([0.3, 0.7]))[0] for _ in range(3)]
    assert orders[0] == orders[1] == orders[2]
    assert orders[0] == ["loss2", "loss1", "e", "d", "c", "b", "a"]


def test_node_order_matches_pytorch():
    torch = import_torch()
    mine, grad = _branching_program(ag, lambda: leaf([0.3, 0.7]))
    theirs, tgrad = _branching_program(
        torch, lambda: torch.tensor([0.3, 0.7], dtype=torch.float64, requires_grad=True))
    assert mine == theirs
    close(grad, tgrad.numpy())


def test_accumulate_grad_runs_as_soon_as_the_leaf_gradient_is_complete():
    x, w = leaf([1.0]), leaf([2.0])
    keep = w * 1                                  # w's AccumulateGrad node is now older than SinBackward
    q = x.sin()
    r = w.cos()
    log = []
    q.grad_fn.register_prehook(lambda g: log.append("sin"))
    r.grad_fn.register_prehook(lambda g: log.append("cos"))
    x.register_hook(lambda g: log.append("x accumulates"))
    w.register_hook(lambda g: log.append("w accumulates"))
    (q + r).sum().backward()
    # SinBackward was ready before w's AccumulateGrad, but a leaf whose gradient is complete goes first
    assert log == ["cos", "w accumulates", "sin", "x accumulates"]
    del keep


# =======================================================================================
# Accumulation into .grad, and .grad of non-leaves
# =======================================================================================

def test_leaf_grad_accumulates_across_calls():
    x = leaf([1.0, 2.0])
    (x * 3).sum().backward()
    first = x.grad
    (x * x).sum().backward()
    close(x.grad, [5.0, 7.0])
    assert x.grad is first                       # added in place, as PyTorch does


def test_reading_a_non_leaf_grad_warns_unless_retained():
    x = leaf([1.0])
    y = x * 2
    y.sum().backward(retain_graph=True)
    with pytest.warns(UserWarning, match="not a leaf Tensor"):
        assert y.grad is None
    y.retain_grad()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert y.grad is None                     # retained, not yet populated: no warning


def test_a_retained_root_gets_its_seed():
    x = leaf([1.0, 2.0])
    y = x * 2
    y.retain_grad()
    y.backward(ag.tensor([3.0, 4.0], dtype=ag.float64))
    close(y.grad, [3.0, 4.0])


def test_retained_non_leaf_accumulates_across_calls_like_pytorch():
    x = leaf([1.0, 2.0])
    y = x * x
    y.retain_grad()
    loss = (y * 3).sum()
    loss.backward(retain_graph=True)
    first = y.grad
    loss.backward()
    close(y.grad, [6.0, 6.0])
    close(first, [3.0, 3.0])                      # PyTorch accumulates a retained grad out of place
    assert y.grad is not first


def test_leaf_grad_keeps_the_leaf_dtype_with_mixed_precision():
    x32 = leaf([1.0, 2.0], dtype=ag.float32)
    y64 = leaf([3.0, 4.0], dtype=ag.float64)
    (x32 * y64).sum().backward()
    assert x32.grad.dtype == ag.float32 and y64.grad.dtype == ag.float64
    close(x32.grad, [3.0, 4.0])


def test_broadcasting_is_summed_back_to_each_input_shape():
    a = leaf([[1.0], [2.0]])                      # (2, 1)
    b = leaf([10.0, 20.0, 30.0])                  # (3,)
    c = leaf(5.0)                                 # ()
    ((a * b + c) * 2).sum().backward()
    assert a.grad.shape == (2, 1) and b.grad.shape == (3,) and c.grad.shape == ()
    close(a.grad, [[120.0], [120.0]])
    close(b.grad, [6.0, 6.0, 6.0])
    close(c.grad, 12.0)


def test_gradients_match_pytorch_on_a_broadcasting_graph():
    torch = import_torch()

    def program(F, mk):
        a, b = mk([[1.0], [2.0]]), mk([0.5, -1.0, 2.0])
        y = (a * b).sigmoid() / (b * b + 1)
        (y.sum() + (a.exp() * b).mean()).backward()
        return a.grad, b.grad

    ours = program(ag, leaf)
    theirs = program(torch, lambda v: torch.tensor(v, dtype=torch.float64, requires_grad=True))
    for g, t in zip(ours, theirs):
        close(g, t.numpy())


# =======================================================================================
# retain_graph
# =======================================================================================

def test_retain_graph_false_frees_saved_tensors():
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    y = x * w
    close(y.grad_fn._saved_self, [1.0, 2.0])
    close(y.grad_fn._saved_other, [3.0, 4.0])
    y.sum().backward()
    with pytest.raises(RuntimeError, match="after they have already been freed"):
        y.grad_fn._saved_self


def test_saved_tensors_are_freed_as_each_node_runs():
    x = leaf([0.5])
    h = x.exp()
    s = h.sin()
    seen = []
    h.grad_fn.register_prehook(lambda g: seen.append(_is_freed(s.grad_fn, "_saved_self")))
    s.sum().backward()
    assert seen == [True]                         # SinBackward ran (and was freed) before ExpBackward


def _is_freed(node, attr):
    try:
        getattr(node, attr)
    except RuntimeError:
        return True
    return False


def test_second_backward_without_retain_graph_raises():
    x = leaf([1.0, 2.0])
    loss = (x.exp() * x).sum()
    loss.backward()
    with pytest.raises(RuntimeError, match=m("backward through the graph a second time") + ".*"
                       + m("Specify retain_graph=True")):
        loss.backward()


def test_backward_twice_with_retain_graph_then_a_third_time_without():
    x = leaf([1.0, 2.0])
    loss = (x.exp() * x).sum()
    loss.backward(retain_graph=True)
    loss.backward(retain_graph=True)
    loss.backward()
    with pytest.raises(RuntimeError, match="second time"):
        loss.backward()
    close(x.grad, 3 * (np.exp([1.0, 2.0]) * (1 + np.array([1.0, 2.0]))))


def test_a_graph_whose_nodes_saved_nothing_can_be_run_again():
    x = leaf([1.0, 2.0])
    loss = ((x + 1) - x.sum()).sum()
    loss.backward()
    loss.backward()                               # add / sub / sum saved no tensor
    close(x.grad, [-2.0, -2.0])


def test_retain_graph_defaults_to_create_graph():
    x = leaf([1.0, 2.0])
    loss = (x ** 3).sum()
    loss.backward(create_graph=True)              # retain_graph=None -> True
    loss.backward()                               # still there
    close(x.grad, 2 * 3 * np.array([1.0, 4.0]))


def test_grad_frees_the_graph_unless_retained():
    x = leaf([1.0])
    loss = (x.exp()).sum()
    ag.autograd.grad(loss, x)
    with pytest.raises(RuntimeError, match="second time"):
        ag.autograd.grad(loss, x)


# =======================================================================================
# create_graph: higher-order derivatives
# =======================================================================================

def test_create_graph_gives_grad_of_grad():
    x = leaf([0.5, 2.0])
    (g,) = ag.autograd.grad((x ** 3).sum(), x, create_graph=True)
    assert g.requires_grad and g.grad_fn is not None
    close(g, 3 * np.array([0.25, 4.0]))
    (gg,) = ag.autograd.grad(g.sum(), x)
    close(gg, 6 * np.array([0.5, 2.0]))


def test_backward_with_create_graph_puts_a_graph_in_grad():
    x = leaf([0.5, 2.0])
    (x ** 3).sum().backward(create_graph=True)
    assert x.grad.requires_grad
    g = x.grad
    x.grad = None
    g.sum().backward()
    close(x.grad, 6 * np.array([0.5, 2.0]))


def test_hessian_vector_product():
    x = leaf([0.3, -0.4, 1.2])
    v = ag.tensor([1.0, 2.0, -1.0], dtype=ag.float64)
    loss = (x.sin() * x.sum()).sum()
    (g,) = ag.autograd.grad(loss, x, create_graph=True)
    (hv,) = ag.autograd.grad((g * v).sum(), x)
    xs = val(x)
    H = np.diag(-np.sin(xs) * xs.sum()) + np.cos(xs)[:, None] + np.cos(xs)[None, :]
    close(hv, H @ val(v))


def test_gradgradcheck_passes_on_a_composite_function():
    x = ag.tensor([0.3, -0.7, 1.1], dtype=ag.float64, requires_grad=True)
    w = ag.tensor([1.5, 0.5, -2.0], dtype=ag.float64, requires_grad=True)
    assert ag.autograd.gradgradcheck(lambda a, b: (a * b).tanh() * a.exp(), (x, w))


def test_seed_does_not_require_grad_unless_create_graph():
    x = leaf([1.0, 2.0])
    seed = ag.tensor([1.0, 1.0], dtype=ag.float64, requires_grad=True)
    (x * 3).backward(seed)
    assert not x.grad.requires_grad
    x.grad = None
    (x * x).backward(seed, create_graph=True)
    assert x.grad.requires_grad
    (dseed,) = ag.autograd.grad(x.grad.sum(), seed)   # d(2 x * seed)/d seed = 2 x
    close(dseed, [2.0, 4.0])


def test_create_graph_grad_does_not_alias_the_seed():
    x = leaf([1.0, 2.0])
    y = x + 1                                     # AddBackward passes the seed through unchanged
    y.retain_grad()
    seed = ag.tensor([3.0, 4.0], dtype=ag.float64, requires_grad=True)
    y.backward(seed, create_graph=True)
    assert x.grad is not seed and y.grad is not seed and x.grad is not y.grad
    y.backward(ag.tensor([1.0, 1.0], dtype=ag.float64))
    close(seed, [3.0, 4.0])                       # accumulating in place did not touch the seed
    close(x.grad, [4.0, 5.0])
    assert x.grad.requires_grad                   # in place, so the graph stays (as PyTorch)


def test_no_create_graph_leak_after_del_and_gc():
    # deliberate difference 2: PyTorch keeps such a leaf alive through a reference cycle
    x = leaf([1.0, 2.0])
    (x ** 3).sum().backward(create_graph=True)
    assert x.grad.grad_fn is not None
    ref = weakref.ref(x)
    del x
    gc.collect()
    assert ref() is None


# =======================================================================================
# inputs=
# =======================================================================================

def test_inputs_only_those_accumulate():
    x, w, b = leaf([1.0]), leaf([2.0]), leaf([3.0])
    (x * w + b).sum().backward(inputs=[w])
    assert x.grad is None and b.grad is None
    close(w.grad, [1.0])


def test_inputs_accepts_a_single_tensor():
    x, w = leaf([1.0]), leaf([2.0])
    (x * w).sum().backward(inputs=x)
    close(x.grad, [2.0])
    assert w.grad is None


def test_inputs_non_leaf_accumulates_into_its_grad():
    x = leaf([1.0, 2.0])
    h = x * 3
    loss = (h * h).sum()
    loss.backward(inputs=[h], retain_graph=True)
    close(h.grad, [6.0, 12.0])
    assert x.grad is None


def test_inputs_non_leaf_keeps_retaining_grad_like_pytorch():
    x = leaf([1.0, 2.0])
    h = x * 3
    loss = (h * h).sum()
    loss.backward(inputs=[h], retain_graph=True)
    assert h.retains_grad                         # PyTorch calls retain_grad() on inputs
    loss.backward()
    close(h.grad, [12.0, 24.0])
    close(x.grad, [18.0, 36.0])


def test_an_input_named_twice_accumulates_once():
    x = leaf([1.0])
    h = x * 2
    (h * 3).sum().backward(inputs=[h, h, x])
    close(h.grad, [3.0])
    close(x.grad, [6.0])


def test_inputs_only_the_subgraph_reaching_them_executes():
    x, w = leaf([1.0]), leaf([2.0])
    a = x.exp()                                   # on the path to x only
    b = w.sin()                                   # on the path to w only
    c = a * b
    order = record_order(("a", a), ("b", b), ("c", c))
    c.sum().backward(inputs=[w])
    assert order == ["c", "b"]
    assert x.grad is None


def test_inputs_non_leaf_own_grad_fn_is_not_called():
    # deliberate difference 1: PyTorch's backward(inputs=) also calls h's grad_fn
    x = leaf([1.0])
    h = x.exp()
    y = h * 2
    order = record_order(("h", h), ("y", y))
    y.sum().backward(inputs=[h])
    assert order == ["y"]
    close(h.grad, [2.0])
    assert not _is_freed(h.grad_fn, "_saved_result")   # never ran, so never freed


def test_inputs_non_leaf_own_grad_fn_runs_when_another_input_needs_it():
    x = leaf([1.0])
    h = x.exp()
    y = h * 2
    order = record_order(("h", h), ("y", y))
    y.sum().backward(inputs=[h, x])
    assert order == ["y", "h"]
    close(h.grad, [2.0])
    close(x.grad, [2.0 * np.e])


def test_inputs_pruned_nodes_keep_their_saved_tensors():
    x, w = leaf([1.0]), leaf([2.0])
    a = x.exp()
    c = a * w
    c.sum().backward(inputs=[a])                  # MulBackward ran (freed); ExpBackward did not
    assert _is_freed(c.grad_fn, "_saved_self")
    assert not _is_freed(a.grad_fn, "_saved_result")


def test_inputs_accept_gradient_edges():
    x, w = leaf([1.0]), leaf([2.0])
    (x * w).sum().backward(inputs=[get_gradient_edge(w)])
    close(w.grad, [1.0])
    assert x.grad is None


# =======================================================================================
# autograd.grad
# =======================================================================================

def test_grad_returns_gradients_and_never_touches_leaf_grad():
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    x.grad = ag.tensor([7.0, 7.0], dtype=ag.float64)
    gx, gw = ag.autograd.grad((x * w).sum(), [x, w])
    close(gx, [3.0, 4.0])
    close(gw, [1.0, 2.0])
    close(x.grad, [7.0, 7.0])
    assert w.grad is None


def test_grad_still_fills_retained_non_leaf_grad_like_pytorch():
    x = leaf([1.0, 2.0])
    h = x * 3
    h.retain_grad()
    ag.autograd.grad((h * h).sum(), x)
    close(h.grad, [6.0, 12.0])


def test_grad_of_a_non_leaf_input():
    x = leaf([1.0, 2.0])
    h = x.exp()
    (gh,) = ag.autograd.grad((h * h).sum(), h)
    close(gh, 2 * np.exp([1.0, 2.0]))


def test_grad_returns_a_tuple_even_for_one_input():
    x = leaf([1.0])
    out = ag.autograd.grad((x * 2).sum(), x)
    assert isinstance(out, tuple) and len(out) == 1


def test_grad_with_grad_outputs_weights_each_output():
    x = leaf([1.0, 2.0])
    (g,) = ag.autograd.grad([x * 2, x * x], x, [ag.tensor([1.0, 1.0], dtype=ag.float64),
                                                 ag.tensor([10.0, 10.0], dtype=ag.float64)])
    close(g, [22.0, 42.0])


def test_grad_unused_input_raises_unless_allow_unused():
    x, u = leaf([1.0]), leaf([2.0])
    with pytest.raises(RuntimeError, match=m("appears to not have been used in the graph (inputs[1])")
                       + ".*allow_unused=True"):
        ag.autograd.grad((x * 2).sum(), [x, u])
    gx, gu = ag.autograd.grad((x * 2).sum(), [x, u], allow_unused=True)
    close(gx, [2.0])
    assert gu is None


def test_grad_materialize_grads_gives_zeros():
    x, u = leaf([1.0]), leaf([2.0, 3.0])
    gx, gu = ag.autograd.grad((x * 2).sum(), [x, u], materialize_grads=True)
    close(gu, [0.0, 0.0])
    assert gu.shape == u.shape and not gu.requires_grad


def test_grad_materialized_zeros_require_grad_with_create_graph_as_in_pytorch():
    x, u = leaf([1.0]), leaf([2.0])
    _, gu = ag.autograd.grad((x * 2).sum(), [x, u], materialize_grads=True, create_graph=True)
    assert gu.requires_grad


def test_grad_materialize_grads_with_allow_unused_false_raises_value_error():
    x = leaf([1.0])
    with pytest.raises(ValueError, match="allow_unused to be True or not passed"):
        ag.autograd.grad((x * 2).sum(), x, allow_unused=False, materialize_grads=True)


def test_grad_of_an_output_with_respect_to_itself_is_the_seed():
    x = leaf([1.0, 2.0])
    h = x * 2
    (g,) = ag.autograd.grad(h, h, ag.tensor([5.0, 6.0], dtype=ag.float64))
    close(g, [5.0, 6.0])


def test_grad_with_a_duplicated_input_returns_it_twice():
    x = leaf([1.0])
    a, b = ag.autograd.grad((x * 3).sum(), [x, x])
    close(a, [3.0])
    close(b, [3.0])


def test_grad_accepts_a_gradient_edge_input():
    x = leaf([1.0, 2.0])
    h = x.exp()
    loss = (h * 3).sum()
    (gh,) = ag.autograd.grad(loss, get_gradient_edge(h), retain_graph=True)
    close(gh, [3.0, 3.0])
    (gx,) = ag.autograd.grad(loss, GradientEdge(get_gradient_edge(x).node, 0))
    close(gx, 3 * np.exp([1.0, 2.0]))


def test_grad_materialize_grads_with_an_unused_gradient_edge_raises():
    x, u = leaf([1.0]), leaf([2.0])
    edge = get_gradient_edge(u)
    with pytest.raises(RuntimeError, match="materialize_grads cannot be used when the given input is a GradientEdge"):
        ag.autograd.grad((x * 2).sum(), [x, edge], materialize_grads=True)


def test_backward_accepts_gradient_edge_roots():
    x = leaf([1.0, 2.0])
    h = x * 3
    ag.autograd.backward(get_gradient_edge(h), ag.ones(2, dtype=ag.float64))
    close(x.grad, [3.0, 3.0])


def test_gradient_edge_roots_get_implicit_seeds_and_checked_shapes():
    x = leaf([1.0, 2.0])
    s = (x * x).sum()
    ag.autograd.backward([get_gradient_edge(s)])              # one element: implicit seed
    close(x.grad, [2.0, 4.0])
    h = x * 3
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_tensors\[0\] has a shape of \(3,\) and "
                                           r"tensors\[0\] has a shape of \(2,\)"):
        ag.autograd.backward(get_gradient_edge(h), ag.ones(3, dtype=ag.float64))
    with pytest.raises(RuntimeError, match="implicitly created only for scalar"):
        ag.autograd.backward(get_gradient_edge(h))
    (g,) = ag.autograd.grad(get_gradient_edge(h), [x], ag.ones(2, dtype=ag.float64))
    close(g, [3.0, 3.0])


# =======================================================================================
# Grad mode
# =======================================================================================

def test_no_grad_context_records_nothing():
    x = leaf([1.0])
    with ag.no_grad():
        y = x * 2
        assert not ag.is_grad_enabled()
    assert ag.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None


def test_no_grad_as_a_decorator():
    @ag.no_grad()
    def f(t):
        return t * 2, ag.is_grad_enabled()

    y, enabled = f(leaf([1.0]))
    assert not y.requires_grad and not enabled and ag.is_grad_enabled()


def test_enable_grad_inside_no_grad():
    x = leaf([1.0])
    with ag.no_grad():
        with ag.enable_grad():
            y = x * 2
        z = x * 2
    assert y.requires_grad and not z.requires_grad


def test_enable_grad_as_a_decorator():
    @ag.enable_grad()
    def f(t):
        return t * 2

    with ag.no_grad():
        y = f(leaf([1.0]))
    assert y.requires_grad


def test_set_grad_enabled_as_function_context_and_decorator():
    x = leaf([1.0])
    try:
        ag.set_grad_enabled(False)
        assert not ag.is_grad_enabled() and not (x * 2).requires_grad
    finally:
        ag.set_grad_enabled(True)
    with ag.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert ag.is_grad_enabled()

    @ag.set_grad_enabled(False)
    def f(t):
        return t * 2

    assert ag.is_grad_enabled()                   # decorating does not switch the mode
    assert not f(x).requires_grad
    assert ag.is_grad_enabled()


def test_grad_mode_is_restored_after_an_exception():
    with pytest.raises(ValueError):
        with ag.no_grad():
            raise ValueError
    assert ag.is_grad_enabled()


def test_grad_mode_is_thread_local():
    seen = {}

    def worker():
        seen["enabled"] = ag.is_grad_enabled()
        seen["records"] = (leaf([1.0]) * 2).requires_grad

    with ag.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert not ag.is_grad_enabled()
    assert seen == {"enabled": True, "records": True}


def test_backward_works_inside_no_grad():
    x = leaf([1.0, 2.0])
    loss = (x * x).sum()
    with ag.no_grad():
        loss.backward()
    close(x.grad, [2.0, 4.0])


# =======================================================================================
# Graph introspection
# =======================================================================================

def test_grad_fn_name_and_next_functions():
    x, w = leaf([1.0]), leaf([2.0])
    c = ag.tensor([3.0], dtype=ag.float64)
    y = (x * w + c).sum()
    assert y.grad_fn.name() == "SumBackward"
    (add, _), = y.grad_fn.next_functions
    assert add.name() == "AddBackward"
    (mul, _), (none, _) = add.next_functions
    assert none is None                           # the constant needs no gradient
    (ax, nx), (aw, nw) = mul.next_functions
    assert ax.name() == aw.name() == "AccumulateGrad" and nx == nw == 0
    assert ax.variable is x and aw.variable is w


def test_leaves_share_one_accumulate_grad_node_while_the_graph_lives():
    x = leaf([1.0])
    a, b = x * 2, x * 3
    assert a.grad_fn.next_functions[0][0] is b.grad_fn.next_functions[0][0]


def test_saved_tensors_are_attributes_of_the_node():
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    y = x * w
    assert y.grad_fn._saved_self is x and y.grad_fn._saved_other is w
    e = x.exp()
    assert e.grad_fn._saved_result is e
    with pytest.raises(AttributeError):
        y.grad_fn._saved_nonsense



def test_an_ops_parameters_and_saved_values_read_as_node_attributes_without_a_getattr():
    from autogradlab.graph import AccumulateGrad, Node, OpNode
    from autogradlab.ops.registry import REGISTRY
    # no __getattr__ on the classes the engine reads: CPython 3.11 would then read every attribute of
    # every node the slow way (node.edges in the engine's loop included)
    assert not any(hasattr(cls, "__getattr__") for cls in (Node, OpNode, AccumulateGrad))
    for op in REGISTRY.values():   # each op's parameters and saved values are declared with it
        for name in op.param_names + op.save:
            assert isinstance(getattr(OpNode, "_saved_" + name), property), (op.name, name)
    x = leaf([[1.0, 2.0], [3.0, 4.0]])
    s = x.sum(1, keepdim=True)
    assert s.grad_fn.dims == (1,) and s.grad_fn.keepdim is True and s.grad_fn._saved_keepdim is True
    with pytest.raises(AttributeError, match="MulBackward has no saved tensor or parameter 'dims'"):
        (x * x).grad_fn.dims            # another op's parameter: named, with the node it was asked of
    with pytest.raises(AttributeError):
        x._grad_accumulator().dims      # a leaf's node has no op parameters


def test_an_op_parameter_that_would_hide_a_node_attribute_is_refused_when_declared():
    from autogradlab.ops.registry import REGISTRY, defop
    with pytest.raises(ValueError, match="'edges' would hide Node.edges"):
        defop("bad_op_for_this_test", ("self",), forward=lambda xp, a, edges: a, vjp=lambda g, ctx: (g,))
    assert "bad_op_for_this_test" not in REGISTRY


def test_a_custom_functions_ctx_keeps_any_attribute_even_an_ops_parameter_name():
    class Scale(ag.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.dims, ctx.keepdim, ctx.scale = (0,), "kept", 3.0   # names built-in ops use as parameters
            return a * 3.0

        @staticmethod
        def backward(ctx, g):
            assert ctx.dims == (0,) and ctx.keepdim == "kept"
            return g * ctx.scale

    x = leaf([1.0, 2.0])
    Scale.apply(x).sum().backward()
    close(x.grad, [3.0, 3.0])


def test_saved_result_outlives_its_tensor_and_keeps_the_graph():
    x = leaf([1.0])
    node = x.exp().grad_fn                        # the output tensor is gone
    r = node._saved_result
    close(r, [np.e])
    assert r.grad_fn is node


def test_get_gradient_edge_of_leaf_and_non_leaf():
    x = leaf([1.0])
    h = x * 2
    e = get_gradient_edge(h)
    assert isinstance(e, GradientEdge) and e.node is h.grad_fn and e.output_nr == 0
    assert get_gradient_edge(x).node.name() == "AccumulateGrad"
    with pytest.raises(RuntimeError, match="does not require grad"):
        get_gradient_edge(ag.tensor([1.0]))


def test_gradient_edge_is_a_named_pair():
    x = leaf([1.0])
    node, nr = get_gradient_edge(x * 2)
    assert nr == 0 and node.name() == "MulBackward"


# =======================================================================================
# Hooks
# =======================================================================================

def test_leaf_tensor_hook_sees_and_can_replace_the_gradient():
    x = leaf([1.0, 2.0])
    seen = []
    x.register_hook(lambda g: seen.append(val(g).tolist()))
    x.register_hook(lambda g: g * 10)
    (x * 3).sum().backward()
    assert seen == [[3.0, 3.0]]
    close(x.grad, [30.0, 30.0])


def test_non_leaf_tensor_hook_replaces_the_gradient_flowing_on():
    x = leaf([1.0, 2.0])
    h = x * 3
    h.register_hook(lambda g: g * 2)
    h.retain_grad()
    (h * h).sum().backward()
    close(h.grad, [12.0, 24.0])                   # the retained grad sees the hook's result
    close(x.grad, [36.0, 72.0])


def test_tensor_hook_runs_once_with_the_total_gradient():
    x = leaf([1.0])
    h = x * 1
    seen = []
    h.register_hook(lambda g: seen.append(val(g).tolist()))
    (h * 2 + h * 3).sum().backward()
    assert seen == [[5.0]]


def test_hook_on_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        ag.tensor([1.0]).register_hook(lambda g: g)


def test_hook_handle_remove():
    x = leaf([1.0])
    handle = x.register_hook(lambda g: g * 100)
    handle.remove()
    (x * 2).sum().backward()
    close(x.grad, [2.0])


def test_post_accumulate_grad_hook_sees_the_updated_grad():
    x = leaf([1.0, 2.0])
    seen = []
    x.register_post_accumulate_grad_hook(lambda t: seen.append((t is x, val(t.grad).tolist())))
    (x * 3).sum().backward()
    (x * 1).sum().backward()
    assert seen == [(True, [3.0, 3.0]), (True, [4.0, 4.0])]


def test_post_accumulate_grad_hook_on_non_leaf_raises():
    x = leaf([1.0])
    with pytest.raises(RuntimeError, match="non-leaf"):
        (x * 2).register_post_accumulate_grad_hook(lambda t: None)


def test_post_accumulate_grad_hook_does_not_run_for_grad():
    x = leaf([1.0])
    seen = []
    x.register_post_accumulate_grad_hook(lambda t: seen.append(1))
    ag.autograd.grad((x * 2).sum(), x)
    assert seen == []


def test_grad_fn_prehook_sees_and_can_replace_grad_outputs():
    x = leaf([1.0])
    y = x * 3
    seen = []

    def pre(grad_outputs):
        seen.append(val(grad_outputs[0]).tolist())
        return (grad_outputs[0] * 2,)

    y.grad_fn.register_prehook(pre)
    y.sum().backward()
    assert seen == [[1.0]]
    close(x.grad, [6.0])


def test_grad_fn_hook_sees_inputs_and_outputs_and_can_replace_grad_inputs():
    x, w = leaf([1.0]), leaf([2.0])
    y = x * w
    seen = []

    def post(grad_inputs, grad_outputs):
        seen.append(([val(g).tolist() for g in grad_inputs], val(grad_outputs[0]).tolist()))
        return (grad_inputs[0] * 10, grad_inputs[1])

    handle = y.grad_fn.register_hook(post)
    y.sum().backward(retain_graph=True)
    assert seen == [([[2.0], [1.0]], [1.0])]
    close(x.grad, [20.0])
    close(w.grad, [1.0])
    handle.remove()
    y.sum().backward()
    close(x.grad, [22.0])


def test_node_hook_handles_remove_and_work_as_context_managers():
    x = leaf([1.0])
    y = x * 3
    with y.grad_fn.register_prehook(lambda g: (g[0] * 0,)):
        pass
    y.sum().backward()
    close(x.grad, [3.0])


def test_saved_tensors_hooks_pack_at_save_and_unpack_at_backward():
    x = leaf([1.0, 2.0])
    packed, unpacked = [], []

    def pack(t):
        packed.append(tuple(t.shape))
        return ("box", t)

    def unpack(box):
        unpacked.append(box[0])
        return box[1]

    with saved_tensors_hooks(pack, unpack):
        y = x * x                                 # saves self and other
    assert packed == [(2,), (2,)] and unpacked == []
    y.sum().backward()
    assert unpacked == ["box", "box"]
    close(x.grad, [2.0, 4.0])


def test_saved_tensors_hooks_can_store_a_copy_elsewhere():
    x = leaf([1.0, 2.0])
    store = {}

    def pack(t):
        store[len(store)] = val(t).copy()
        return len(store) - 1

    def unpack(key):
        return ag.tensor(store[key], dtype=ag.float64)

    with saved_tensors_hooks(pack, unpack):
        y = x.sin()
    y.sum().backward()
    close(x.grad, np.cos([1.0, 2.0]))


# =======================================================================================
# In-place ops and the version counter
# =======================================================================================

def test_modifying_a_saved_tensor_raises_naming_node_shape_and_versions():
    x = leaf([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    b = ag.tensor([1.0, 2.0, 3.0], dtype=ag.float64, requires_grad=True)
    h = b * 1
    y = x * h                                     # MulBackward saves h (shape (3,))
    with ag.no_grad():
        h.add_(1)
    with pytest.raises(RuntimeError, match=m("modified by an inplace operation: the tensor saved as 'other' by "
                                             "MulBackward (shape [3]) is at version 1; expected version 0")):
        y.sum().backward()


def test_version_counter_counts_in_place_changes():
    x = ag.tensor([1.0, 2.0])
    assert x._version == 0
    x.add_(1)
    x.mul_(2)
    assert x._version == 2


def test_in_place_on_a_leaf_requiring_grad_raises():
    x = leaf([1.0])
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad is being used in an in-place"):
        x.add_(1)


def test_in_place_on_a_leaf_is_allowed_in_no_grad():
    x = leaf([1.0, 2.0])
    with ag.no_grad():
        x.mul_(3)
    close(x, [3.0, 6.0])
    assert x.requires_grad and x.is_leaf


def test_in_place_on_a_non_leaf_is_differentiated():
    x = leaf([1.0, 2.0])
    h = x * 1
    h.mul_(3)
    h.add_(x)
    h.sum().backward()
    close(x.grad, [4.0, 4.0])


def test_modifying_a_saved_result_raises():
    x = leaf([1.0])
    y = x.exp()
    y.mul_(2)
    with pytest.raises(RuntimeError, match="'result' by ExpBackward"):
        y.sum().backward()


# =======================================================================================
# Custom Function
# =======================================================================================

class Cube(ag.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x * x


class ScaledMul(ag.autograd.Function):
    """``x * y * scale``: a non-tensor argument between two tensors."""

    @staticmethod
    def forward(ctx, x, scale, y):
        ctx.save_for_backward(x, y)
        ctx.scale = scale
        ctx.seen_needs = ctx.needs_input_grad
        return x * y * scale

    @staticmethod
    def backward(ctx, g):
        x, y = ctx.saved_tensors
        return (g * y * ctx.scale if ctx.needs_input_grad[0] else None, None,
                g * x * ctx.scale if ctx.needs_input_grad[2] else None)


def test_custom_function_forward_backward_and_saved_tensors():
    x = leaf([1.0, 2.0])
    y = Cube.apply(x)
    assert y.grad_fn.name() == "CubeBackward" and y.requires_grad
    close(y, [1.0, 8.0])
    y.sum().backward()
    close(x.grad, [3.0, 12.0])


def test_custom_function_forward_runs_without_recording():
    seen = {}

    class Probe(ag.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            seen["enabled"] = ag.is_grad_enabled()
            out = x * 2
            seen["inner_requires_grad"] = out.requires_grad
            return out

        @staticmethod
        def backward(ctx, g):
            return g * 2

    Probe.apply(leaf([1.0]))
    assert seen == {"enabled": False, "inner_requires_grad": False}


def test_custom_function_needs_input_grad_and_non_tensor_arguments_get_none():
    x, y = leaf([1.0, 2.0]), ag.tensor([3.0, 4.0], dtype=ag.float64)
    out = ScaledMul.apply(x, 0.5, y)
    assert out.grad_fn.seen_needs == (True, False, False)
    assert out.grad_fn.needs_input_grad == (True, False, False)
    out.sum().backward()
    close(x.grad, [1.5, 2.0])


def test_custom_function_gradient_for_a_non_tensor_argument_raises():
    class Bad(ag.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g * 2, ag.ones(1)

    x = leaf([1.0])
    with pytest.raises(RuntimeError, match="different than None at position 2"):
        Bad.apply(x, 2.0).sum().backward()


def test_custom_function_wrong_number_of_gradients_raises():
    class Bad(ag.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(RuntimeError, match="incorrect number of gradients \\(expected 2, got 1\\)"):
        Bad.apply(leaf([1.0]), leaf([2.0])).sum().backward()


def test_custom_function_saved_tensors_are_freed_after_backward():
    x = leaf([1.0])
    y = Cube.apply(x)
    y.sum().backward()
    with pytest.raises(RuntimeError, match="second time"):
        y.grad_fn.saved_tensors


def test_custom_function_saved_tensor_modified_in_place_raises():
    x = leaf([1.0])
    h = x * 1
    y = Cube.apply(h)
    with ag.no_grad():
        h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_custom_function_without_inputs_requiring_grad_records_nothing():
    y = Cube.apply(ag.tensor([2.0], dtype=ag.float64))
    assert not y.requires_grad and y.grad_fn is None


def test_gradcheck_a_custom_function():
    x = ag.tensor([0.3, -1.2, 2.0], dtype=ag.float64, requires_grad=True)
    y = ag.tensor([1.1, 0.4, -0.5], dtype=ag.float64, requires_grad=True)
    assert ag.autograd.gradcheck(Cube.apply, (x,))
    assert ag.autograd.gradcheck(lambda a, b: ScaledMul.apply(a, 0.7, b), (x, y))
    assert ag.autograd.gradgradcheck(Cube.apply, (x,))


def test_custom_function_matches_pytorch():
    torch = import_torch()

    class TorchScaledMul(torch.autograd.Function):
        forward = staticmethod(ScaledMul.forward)   # the very same code, run by PyTorch
        backward = staticmethod(ScaledMul.backward)

    xt = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    yt = torch.tensor([3.0, -1.0], dtype=torch.float64, requires_grad=True)
    TorchScaledMul.apply(xt, 0.5, yt).exp().sum().backward()
    x, y = leaf([1.0, 2.0]), leaf([3.0, -1.0])
    ScaledMul.apply(x, 0.5, y).exp().sum().backward()
    close(x.grad, xt.grad.numpy())
    close(y.grad, yt.grad.numpy())


# =======================================================================================
# Anomaly mode
# =======================================================================================

@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
def test_anomaly_mode_names_the_op_that_returned_nan_and_where_it_was_created():
    x = leaf([0.0, 1.0])
    with ag.autograd.detect_anomaly():
        y = x.sqrt() * 0.0                        # ANOMALY-SQRT-LINE: sqrt'(0) = inf, inf * 0 = nan
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
    msg = str(info.value)
    assert "Function 'SqrtBackward' returned nan values in its 0th output" in msg
    assert "test_engine_contract.py" in msg and "ANOMALY-SQRT-LINE" in msg
    assert x.grad is None


def test_anomaly_mode_catches_nan_from_a_custom_function():
    class NanBackward(ag.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g * float("nan")

    x = leaf([1.0])
    with ag.autograd.detect_anomaly():
        y = NanBackward.apply(x)                  # ANOMALY-FUNCTION-LINE
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
    msg = str(info.value)
    assert "Function 'NanBackwardBackward' returned nan values" in msg
    assert "ANOMALY-FUNCTION-LINE" in msg


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
def test_without_anomaly_mode_nan_gradients_flow_silently():
    x = leaf([0.0])
    (x.sqrt() * 0.0).sum().backward()
    assert np.isnan(val(x.grad)).all()


def test_set_detect_anomaly_as_function_and_context_manager():
    assert not ag.autograd.is_anomaly_enabled()
    ag.autograd.set_detect_anomaly(True)
    try:
        assert ag.autograd.is_anomaly_enabled()
    finally:
        ag.autograd.set_detect_anomaly(False)
    assert not ag.autograd.is_anomaly_enabled()
    with ag.autograd.set_detect_anomaly(True):
        assert ag.autograd.is_anomaly_enabled()
    assert not ag.autograd.is_anomaly_enabled()


def test_detect_anomaly_as_a_decorator():
    @ag.autograd.detect_anomaly()
    def f():
        return ag.autograd.is_anomaly_enabled()

    assert f() and not ag.autograd.is_anomaly_enabled()


# =======================================================================================
# Gradient checks and autograd.functional
# =======================================================================================

def test_gradcheck_passes_for_correct_gradients():
    x = ag.tensor([0.2, -0.5, 1.5], dtype=ag.float64, requires_grad=True)
    assert ag.autograd.gradcheck(lambda t: (t.sin() * t.exp()).sum() + t.tanh(), (x,))


def test_gradcheck_detects_a_wrong_gradient():
    class WrongCube(ag.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 2 * x * x                  # should be 3 x^2

    x = ag.tensor([0.5, 1.5], dtype=ag.float64, requires_grad=True)
    with pytest.raises(ag.autograd.GradcheckError, match="Jacobian mismatch"):
        ag.autograd.gradcheck(WrongCube.apply, (x,))
    assert ag.autograd.gradcheck(WrongCube.apply, (x,), raise_exception=False) is False


def test_gradgradcheck_detects_a_wrong_second_derivative():
    class DetachedCube(ag.autograd.Function):
        """First derivative right, but computed from a detached x: the second derivative is lost."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x.detach() * x.detach()

    x = ag.tensor([0.5, 1.5], dtype=ag.float64, requires_grad=True)
    assert ag.autograd.gradcheck(DetachedCube.apply, (x,))
    with pytest.raises(ag.autograd.GradcheckError):
        ag.autograd.gradgradcheck(DetachedCube.apply, (x,))
    assert ag.autograd.gradgradcheck(DetachedCube.apply, (x,), raise_exception=False) is False


@pytest.mark.parametrize("M", ["autogradlab", "torch"])
def test_gradcheck_takes_an_output_no_input_reaches_as_a_zero_jacobian(M):
    """As PyTorch's: when some outputs require grad, only those are checked; when none does, each has Jacobian
    0, which finite differences must confirm (a first derivative that is a constant 0, as threshold_backward's
    in y, passes gradgradcheck)."""
    m = ag if M == "autogradlab" else import_torch()
    x = m.tensor([0.5, -1.5], dtype=m.float64, requires_grad=True)
    assert m.autograd.gradcheck(lambda t: (t * 2, (t > 0).to(m.float64)), (x,))
    assert m.autograd.gradcheck(lambda t: (t * 2, t.detach() * 3), (x,))
    assert m.autograd.gradcheck(lambda t: (t > 0).to(m.float64), (x,))
    with pytest.raises((ag.autograd.GradcheckError, RuntimeError)):
        m.autograd.gradcheck(lambda t: t.detach() * 2, (x,))


def _functional_pairs():
    torch = import_torch()
    F = torch.autograd.functional

    def fvec(x, y):
        return x * y.exp() + x ** 3

    def fscalar(x, y):
        return (x * y.sin()).sum() + (x ** 2).sum()

    def ft(*vals):
        return tuple(torch.tensor(v, dtype=torch.float64) for v in vals)

    def fa(*vals):
        return tuple(ag.tensor(v, dtype=ag.float64) for v in vals)

    xs, vs = ([0.5, -1.0, 2.0], [0.3, 0.2, -0.7]), ([1.0, 2.0, 3.0], [0.5, -0.5, 1.0])
    AF = ag.autograd.functional
    return [
        ("jacobian", lambda: F.jacobian(fvec, ft(*xs)), lambda: AF.jacobian(fvec, fa(*xs))),
        ("jacobian_single", lambda: F.jacobian(lambda x: x.exp() * x, ft(xs[0])[0]),
         lambda: AF.jacobian(lambda x: x.exp() * x, fa(xs[0])[0])),
        ("hessian", lambda: F.hessian(fscalar, ft(*xs)), lambda: AF.hessian(fscalar, fa(*xs))),
        ("vjp", lambda: F.vjp(fvec, ft(*xs), ft(vs[0])[0]), lambda: AF.vjp(fvec, fa(*xs), fa(vs[0])[0])),
        ("jvp", lambda: F.jvp(fvec, ft(*xs), ft(*vs)), lambda: AF.jvp(fvec, fa(*xs), fa(*vs))),
        ("hvp", lambda: F.hvp(fscalar, ft(*xs), ft(*vs)), lambda: AF.hvp(fscalar, fa(*xs), fa(*vs))),
        ("vhp", lambda: F.vhp(fscalar, ft(*xs), ft(*vs)), lambda: AF.vhp(fscalar, fa(*xs), fa(*vs))),
    ]


def _flatten(v):
    if isinstance(v, (tuple, list)):
        return [leaf_ for e in v for leaf_ in _flatten(e)]
    return [v]


@pytest.mark.parametrize("name", ["jacobian", "jacobian_single", "hessian", "vjp", "jvp", "hvp", "vhp"])
def test_functional_matches_torch_autograd_functional(name):
    (_, theirs, ours), = [p for p in _functional_pairs() if p[0] == name]
    t, a = _flatten(theirs()), _flatten(ours())
    assert len(t) == len(a)
    for tt, aa in zip(t, a):
        assert tuple(tt.shape) == tuple(aa.shape)
        close(aa, tt.detach().numpy())


def test_functional_leaves_the_callers_tensors_untouched():
    x = ag.tensor([1.0, 2.0], dtype=ag.float64, requires_grad=True)
    ag.autograd.functional.jacobian(lambda t: t * t, x)
    ag.autograd.functional.hessian(lambda t: (t ** 3).sum(), x)
    assert x.grad is None


# =======================================================================================
# max/min ties (deliberate difference 4)
# =======================================================================================

def test_max_and_min_ties_share_the_gradient_equally():
    x = leaf([1.0, 3.0, 3.0, 2.0])
    x.max().backward()
    close(x.grad, [0.0, 0.5, 0.5, 0.0])
    y = leaf([[2.0, 1.0, 1.0], [0.0, 5.0, 0.0]])
    y.amin(dim=1).sum().backward()
    close(y.grad, [[0.0, 0.5, 0.5], [0.5, 0.0, 0.5]])


def test_backward_refuses_gradient_edge_of_a_computed_tensor_as_input():
    from autogradlab.autograd.graph import get_gradient_edge
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    with pytest.raises(TypeError, match="GradientEdge of a computed tensor"):
        y.sum().backward(inputs=[get_gradient_edge(y)])
    assert x.grad is None and not y.grad_fn._freed
    y.sum().backward(inputs=[get_gradient_edge(x)])      # a leaf's edge accumulates into the leaf
    assert x.grad.tolist() == [2.0, 2.0]


def test_unused_input_in_grad_raises_before_the_graph_is_freed():
    x = ag.tensor(1.0, requires_grad=True)
    unused = ag.tensor(2.0, requires_grad=True)
    y = x.exp()
    with pytest.raises(RuntimeError, match="not have been used"):
        ag.autograd.grad(y, [x, unused])
    assert not y.grad_fn._freed                          # nothing ran: the graph is intact
    (g,) = ag.autograd.grad(y, [x])
    assert g.item() == pytest.approx(np.e)


def test_freed_graph_error_names_the_first_node_in_walk_order():
    x = ag.tensor(1.0, requires_grad=True)
    y = (x.sin() * 2).exp()
    y.backward()
    messages = set()
    for _ in range(5):
        with pytest.raises(RuntimeError, match="second time") as info:
            y.backward()
        messages.add(str(info.value))
    assert len(messages) == 1 and "ExpBackward" in messages.pop()


# -- the backward moves arrays when no graph of it is recorded -------------------------------------

def _count_tensors_made(monkeypatch):
    made = []
    original = ag.Tensor._make.__func__

    def counting(cls, *args, **kwargs):
        made.append(1)
        return original(cls, *args, **kwargs)
    monkeypatch.setattr(ag.Tensor, "_make", classmethod(counting))
    return made


def test_backward_without_create_graph_makes_no_tensor_per_node(monkeypatch):
    x = leaf([0.5, -1.0])
    h = x
    for _ in range(30):                      # 90 nodes of mul, add, tanh, then a sum and a matmul
        h = (h * 0.9 + 0.1).tanh()
    y = (h @ ag.ones(2, dtype=ag.float64)) + h.sum()
    made = _count_tensors_made(monkeypatch)
    y.backward()
    assert len(made) <= 2                    # the implicit seed and x.grad, whatever the graph's size
    h2 = x
    for _ in range(30):
        h2 = (h2 * 0.9 + 0.1).tanh()
    expect = ag.autograd.grad((h2 @ ag.ones(2, dtype=ag.float64)) + h2.sum(), x, create_graph=True)[0]
    close(x.grad, expect.detach().numpy())   # the same numbers as the recorded (Tensor) backward


def _scribble(t):
    """Overwrite ``t``'s memory in place: anything aliasing it would change too."""
    with ag.no_grad():
        t.mul_(0.0).add_(-7.0)


def test_leaf_grads_never_share_memory_with_seeds_or_each_other():
    a, b = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    seed = ag.tensor([1.0, 1.0], dtype=ag.float64)
    (a + b).backward(seed)                   # AddBackward sends the very same gradient to both
    _scribble(a.grad)
    close(b.grad, [1.0, 1.0])
    close(seed, [1.0, 1.0])
    a.grad = None
    (a + b).backward(seed)                   # accumulates in place into b.grad, a fresh a.grad
    close(a.grad, [1.0, 1.0])
    close(b.grad, [2.0, 2.0])
    close(seed, [1.0, 1.0])


def test_a_fan_in_sum_becomes_grad_but_a_hooked_gradient_is_copied():
    a = leaf([1.0, 2.0])
    (a * 2.0 + a * 3.0).sum().backward()     # a's gradient is a sum the engine made: it becomes .grad
    close(a.grad, [5.0, 5.0])
    kept = []
    b = leaf([1.0, 2.0])
    b.register_hook(lambda g: kept.append(g))
    (b * 2.0 + b * 3.0).sum().backward()
    (b * 1.0).sum().backward()               # in place into .grad: what the hook kept stays as it was
    close(kept[0], [5.0, 5.0])
    close(b.grad, [6.0, 6.0])


def test_retained_grad_and_leaf_grad_do_not_alias():
    a = leaf([1.0, 2.0])
    y = a * 1.0
    y.retain_grad()
    (y + 0.0).sum().backward()
    _scribble(y.grad)
    close(a.grad, [1.0, 1.0])


def test_a_100k_op_chain_runs_forward_and_backward_without_recursion():
    x = ag.tensor([0.5], requires_grad=True)
    h = x
    for i in range(100_000):
        h = h * 1.0 if i % 2 else h + 0.0
    h.sum().backward()
    close(x.grad, [1.0])
    del h                                    # freeing the long chain recurses nowhere either


def test_anomaly_modes_forward_traceback_ends_at_the_line_that_called_the_op():
    """Whatever path an op takes inside the package (an operator, a reduction's helper, a stale view
    taken again through apply), the traceback anomaly mode keeps ends at the caller's line."""
    with ag.autograd.detect_anomaly():
        x = ag.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        x2 = x * 1.0
        stale = x2[0]
        x2.mul_(1.0)                                   # stale's base changed: it is taken again
        made = {"mul": x * 2.0, "sum": x.sum(), "sum0": x.sum(0), "matmul": x @ x, "tanh": x.tanh(),
                "stale exp": ag.exp(stale), "stale mul": stale * x, "reshape": x.reshape(4)}
    for name, y in made.items():
        last = y.grad_fn._traceback.rstrip().splitlines()
        assert __file__ in last[-2] and "test_anomaly_modes_forward_traceback_ends" in last[-2], name
    with ag.autograd.detect_anomaly():
        z = (ag.sqrt(ag.tensor([0.0], requires_grad=True)) * 0.0).sum()   # NaN in sqrt's backward
        with pytest.raises(RuntimeError) as err, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            z.backward()
    assert str(err.value).rstrip().splitlines()[-1].strip().startswith("z = (ag.sqrt(")


@pytest.mark.parametrize("switch_on", [True, False], ids=["switched on", "switched off"])
def test_anomaly_mode_switched_from_a_hook_takes_effect_in_the_same_pass_as_in_torch(switch_on):
    """PyTorch reads anomaly mode at each node: a tensor hook that switches it on makes the rest of the
    same pass stop at a NaN; switched off, the rest of the pass runs on."""
    torch = import_torch()

    def run(lib, mod):
        x = lib.tensor([-1.0, 4.0], requires_grad=True)
        z = mod.sqrt(x) * 2.0                        # d sqrt at -1: NaN, made by a node after z's hook
        z.register_hook(lambda g: lib.autograd.set_detect_anomaly(switch_on) and None)
        mode = lib.autograd.set_detect_anomaly(not switch_on)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")      # (torch warns that anomaly mode slows things down)
                z.sum().backward()
            return "ran", np.isnan(x.grad.detach().numpy()).tolist()
        except RuntimeError as exc:
            assert "nan" in str(exc).lower() and "Sqrt" in str(exc)
            return "stopped", x.grad
        finally:
            mode.__exit__(None, None, None)

    ours, theirs = run(ag, ag), run(torch, torch)
    assert ours == theirs == (("stopped", None) if switch_on else ("ran", [True, False]))
    assert not ag.autograd.is_anomaly_enabled()


def test_grad_and_backward_take_any_iterable_of_tensors_as_torch_does():
    """``grad(loss, model.parameters())``: PyTorch takes a generator (any iterable) for outputs, inputs
    and grad_tensors; a string or a number is still refused, naming the argument."""
    torch = import_torch()
    ours, theirs = ag.nn.Linear(2, 1), torch.nn.Linear(2, 1)
    with torch.no_grad():
        for p, q in zip(ours.parameters(), theirs.parameters()):
            q.copy_(torch.from_numpy(np.array(p.detach().numpy())))
    x = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]], dtype=np.float32)
    got = ag.autograd.grad(ours(ag.tensor(x)).sum(), ours.parameters())
    want = torch.autograd.grad(theirs(torch.from_numpy(x)).sum(), theirs.parameters())
    assert len(got) == len(want) == 2
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-6)
    w = ag.tensor([1.0, 2.0], requires_grad=True)
    y = w * w
    ag.autograd.backward(iter([y]), grad_tensors=(g for g in [ag.tensor([1.0, 1.0])]), inputs=(t for t in [w]))
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, 4.0])
    for bad, name in (("w", "str"), (5, "int"), (np.array([1.0, 2.0]), "ndarray")):
        with pytest.raises(TypeError, match=f"inputs must be a Tensor or a sequence of Tensors, got {name}"):
            ag.autograd.grad((w * w).sum(), bad)
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, 4.0])        # a refused call changed nothing


class SavesNone(ag.autograd.Function):
    """Saves an input, a None and its output, as torch allows."""

    @staticmethod
    def forward(ctx, x):
        out = x * 2.0
        ctx.save_for_backward(x, None, out)
        return out

    @staticmethod
    def backward(ctx, g):
        x, nothing, out = ctx.saved_tensors
        assert nothing is None
        return g * out / x


def test_a_custom_function_that_saved_none_reads_none_back_from_every_reader():
    x = leaf([1.0, 2.0])
    y = SavesNone.apply(x)
    node = y.grad_fn
    assert node.saved_tensor("saved_tensors[1]") is None      # (it raised an internal TypeError)
    assert node.saved_tensor("saved_tensors[0]") is x and node.saved_tensor("saved_tensors[2]") is y
    assert node.saved_tensor_names == ("saved_tensors[0]", "saved_tensors[1]", "saved_tensors[2]")
    y.sum().backward()
    close(x.grad, [2.0, 2.0])
    assert node.freed and node.saved_tensor_names == ("saved_tensors[0]", "saved_tensors[1]", "saved_tensors[2]")
