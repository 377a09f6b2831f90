"""What a round of property checks of the tracing layer found where the events disagreed with what the engine
did, each fixed: an in-place op's input and output in the forward events (the player drew ``b * 3`` reading
``b``'s old value), a leaf's own ``.grad`` as the seed of a second pass, hooks that change gradients in place
(told "unchanged"; replay missed a post-accumulate hook), and a custom Function's backward writing into the
gradient it got (earlier events changed with it)."""
import autogradlab as ag
from autogradlab.viz.playerdata import player_data


def test_an_in_place_op_reads_and_makes_the_tensors_the_forward_had():
    with ag.trace() as tape:
        x = ag.tensor([1.0, 2.0], requires_grad=True, name="x")
        b = x * 2.0
        b.add_(1.0)
        (b * 3.0).sum().backward()
    mul, add, mul_again, _ = tape.of_kind("OpRecorded")
    assert add.inputs[0].name == mul.output.name            # add_ reads what the first mul made
    assert mul_again.inputs[0].name == add.output.name      # and the next op reads what add_ made
    assert mul_again.value.data == (9.0, 15.0) and add.value.data == (3.0, 5.0)
    computed = {e.node_id: e.to_node_id for e in tape.of_kind("GradientComputed")}
    assert computed[mul_again.node_id] == add.node_id       # the backward agrees with the forward
    # the player draws a chain: each op's first input is the previous op's output (no edge from the first
    # mul's output to the second mul, the drawing it made before)
    edges = [(e["src"], e["dst"]) for e in player_data(tape)["edges"] if not e["backward"]]
    made_by = {dst: src for src, dst in edges if src.startswith("o")}
    first_input = {}
    for src, dst in edges:
        if dst.startswith("o"):
            first_input.setdefault(dst, src)
    assert [made_by.get(first_input[op]) for op in ("o1", "o2", "o3")] == ["o0", "o1", "o2"]


def test_a_backward_only_trace_names_an_in_place_result_by_its_own_node():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    b = x * 2.0
    b.add_(1.0)
    b.retain_grad()
    loss = (b * 3.0).sum()
    with ag.trace() as tape:
        loss.backward()
    retained = [e for e in tape.of_kind("Accumulated") if e.where == "retained"]
    started = {e.node_id: e for e in tape.of_kind("NodeStarted")}
    assert len(retained) == 1 and started[retained[0].node_id].node_name == "AddBackward"
    assert retained[0].tensor.name == started[retained[0].node_id].output.name
    mul_node = next(e for e in started.values() if e.node_name == "MulBackward" and e.output.name != "t0")
    assert mul_node.output.name != retained[0].tensor.name   # (the first mul's output is the old value)


def test_a_leafs_own_grad_as_the_seed_of_a_second_pass_is_told_as_it_came_in():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    with ag.trace() as tape:
        (x * 3.0).sum().backward()
        x.backward(x.grad)   # x.grad += x.grad
    assert x.grad.tolist() == [6.0, 6.0]
    assert tape.of_kind("Seeded")[-1].seed.data == (3.0, 3.0)
    assert tape.of_kind("NodeStarted")[-1].grad.data == (3.0, 3.0)
    last = tape.of_kind("Accumulated")[-1]
    assert (last.before.data, last.contribution.data, last.after.data) == ((3.0, 3.0), (3.0, 3.0), (6.0, 6.0))


def test_hooks_that_change_gradients_in_place_are_told_so_and_replayed():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    x.register_post_accumulate_grad_hook(lambda t: [t.grad.mul_(0.5)] and None)
    with ag.trace() as tape:
        (x * 4.0).sum().backward()
    hook = tape.of_kind("HookRan")[0]
    assert hook.changed and hook.before[0].data == (4.0, 4.0) and hook.after[0].data == (2.0, 2.0)
    leaf = tape.of_kind("Accumulated")[-1].tensor.tensor_id
    assert tape.replay().grads[leaf].data == tuple(x.grad.tolist()) == (2.0, 2.0)
    y0 = ag.tensor([1.0, 1.0], requires_grad=True)
    y = y0 * 1
    y.register_hook(lambda g: [g.mul_(3)] and None)
    with ag.trace() as tape:
        (y * ag.tensor([1.0, 2.0])).sum().backward()
    assert "changed the gradient: [1, 2] -> [3, 6]" in tape.table()
    z = ag.tensor([1.0, 1.0], requires_grad=True) * 1
    z.register_hook(lambda g: None)
    with ag.trace() as tape:
        (z * 2).sum().backward()
    assert "tensor hook ran: [2, 2], unchanged" in tape.table()


def test_a_custom_backward_writing_into_its_gradient_leaves_earlier_events_as_they_were():
    class Scale(ag.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            g.mul_(10.0)
            return g

    x = ag.tensor([1.0, 2.0], requires_grad=True)
    with ag.trace() as tape:
        (Scale.apply(x * 1.0) * ag.tensor([3.0, 4.0])).sum().backward()
    started = {e.node_name: e.grad.data for e in tape.of_kind("NodeStarted")}
    assert started["ScaleBackward"] == (3.0, 4.0) and x.grad.tolist() == [30.0, 40.0]


def test_a_hook_that_changes_nothing_in_a_large_gradient_with_a_nan_is_told_unchanged():
    """A large gradient is told by its summary (min, max, norm): with a NaN in it, they are NaN, which never
    equals itself, so every such hook was told as changing it."""
    x = ag.ones(74, requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: None)
    w = ag.ones(74)
    w[3] = float("nan")
    with ag.trace() as tape:
        (y * w).sum().backward()
    assert not tape.of_kind("HookRan")[0].changed
