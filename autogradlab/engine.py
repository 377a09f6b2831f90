"""The backward engine: reverse-mode differentiation over the recorded graph.

Four steps, in the order a reader meets them below:

1. **Prepare and validate** (:func:`backward`, :func:`grad`, with the checks in
   :mod:`autogradlab.arguments`): turn arguments into tuples, check every root
   and seed, make implicit seeds. Nothing is changed before this finishes, so
   a call with bad arguments leaves every ``.grad`` as it was.
2. **Count dependencies** (:func:`_plan`): walk the graph from the roots and
   count, for every node, how many edges lead into it. With ``inputs=``, keep
   only the nodes on a path to an input ("pruning"). The walks themselves, which
   run nothing, are in :mod:`autogradlab.graph_walk`.
3. **Run** (:func:`_execute`): a node is *ready* when all its consumers have
   sent their gradient; the ready node created last runs first (as in
   PyTorch; leaves ready together tie, and the heap picks, as PyTorch's
   does). Running a node is one chain-rule step: the summed incoming
   gradient goes through the op's vector-Jacobian product, giving one
   contribution per input.
4. **Accumulate**: contributions meeting at a node (fan-in) are summed in a
   pending buffer; at a leaf they are added into ``.grad``.

The engine tells its story as events (:mod:`autogradlab.events`) only when a
trace is active: every ``if tape is not None`` below is skipped otherwise.
"""
from __future__ import annotations

from heapq import heappop, heappush

from .anomaly import check_nan
from .arguments import backward_arguments, check_runnable, grad_arguments, grad_results, grad_variant
from .grad_mode import state
from .graph import AccumulateGrad, accumulate_into
from .graph_walk import describe_plan, node_of, on_paths_to, parents_of, reach, ready_key, release_order
from .hooks import run_node_post_hooks, run_node_pre_hooks, run_post_accumulate_hooks, run_tensor_hooks
from .tensor import Tensor

__all__ = ["backward", "grad"]


# ---- 1. Prepare and validate ---------------------------------------------------------------------

def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    """Accumulate the gradients of ``tensors`` into the ``.grad`` of the leaves.

    Computes sum_i grad_tensors[i]^T * d tensors[i] / d leaf (a vector-Jacobian
    product) and adds it into each leaf's ``.grad`` (or only the ``inputs``'
    ``.grad``). ``retain_graph`` defaults to ``create_graph``.
    """
    for _ in backward_steps(tensors, grad_tensors, retain_graph, create_graph, grad_variables, inputs):
        pass


def backward_steps(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
                   grad_variables=None, inputs=None):
    """Validate and seed now, then return the pass as a generator (run it to do the work).

    ``backward`` exhausts it at once; ``autogradlab.steps`` advances it one event at a time.
    """
    roots, seeds, implicit, retain_graph, inputs = backward_arguments(
        tensors, grad_tensors, retain_graph, create_graph, grad_variables, inputs)
    return _execute(roots, seeds, retain_graph, bool(create_graph), inputs, accumulate=True,
                    implicit=implicit)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Return d(outputs)/d(inputs) (weighted by ``grad_outputs``) without touching any ``.grad``.
    (Named inputs, a batch of grad_outputs and ``only_inputs``: :func:`arguments.grad_variant`.)"""
    if is_grads_batched or not only_inputs or isinstance(inputs, dict):
        return grad_variant(grad, outputs, inputs, grad_outputs, retain_graph, create_graph, only_inputs,
                            allow_unused, is_grads_batched, materialize_grads)
    roots, inputs, seeds, implicit, retain_graph, allow_unused = grad_arguments(
        outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads)
    captured = [None] * len(inputs)
    for _ in _execute(roots, seeds, retain_graph, bool(create_graph), inputs,
                      accumulate=False, captured=captured, implicit=implicit, allow_unused=allow_unused):
        pass
    return grad_results(inputs, captured, allow_unused, materialize_grads, create_graph)


# ---- 2. Count dependencies (and prune to the paths that reach ``inputs``) ------------------------

class _Plan:
    """What one pass will do. ``nodes``: every node reached from the roots, in walk order;
    ``needed``: those on a path to an input; ``runs``: those whose VJP runs; ``deps``: for each
    needed node, how many edges lead into it; ``targets``: input node -> [(position, input)]."""

    __slots__ = ("nodes", "deps", "needed", "runs", "targets", "root_nodes", "input_nodes", "order", "pruned")


def _plan(root_nodes, inputs):
    """Walk the graph from the roots once, counting each node's incoming edges; with ``inputs=``,
    keep only the nodes on a path to an input and count again among those.

    ``needed``: nodes on a path to an input (all nodes without ``inputs=``).
    ``runs``: needed nodes whose VJP must run: every op node when no inputs were
    given, else only those with a needed node below them. (A non-leaf input's own
    node is not run unless it leads to another input: unlike PyTorch.)
    """
    plan = _Plan()
    plan.targets = targets = {}
    for i, t in enumerate(inputs or ()):
        targets.setdefault(node_of(t), []).append((i, t))
    plan.nodes, plan.deps = reach(root_nodes)
    # the common cases: no inputs=, or every end of the walk (a node sending nowhere) is an input's
    # accumulator, so every node leads to an input: the walk's counts stand (deps' keys are the nodes)
    if inputs is None or all(n in targets and isinstance(n, AccumulateGrad) for n in plan.nodes if not any(n.edges)):
        plan.needed = plan.runs = plan.deps.keys()
        return plan
    plan.needed = needed = on_paths_to(targets, plan.deps, parents_of(plan.nodes))
    plan.deps = deps = dict.fromkeys(needed, 0)
    plan.runs = runs = set()
    for node in needed:   # it runs if it sends to a needed node (or is a leaf's accumulator)
        for child in node.edges:
            if child is not None and child in deps:
                deps[child] += 1
                runs.add(node)
        if isinstance(node, AccumulateGrad):
            runs.add(node)
    return plan


# ---- 3. Run, and 4. accumulate -------------------------------------------------------------------
#
# Without create_graph the gradients flowing here are plain arrays (NumPy or CuPy): the VJPs
# run on arrays and nothing allocates a Tensor until a gradient lands in a ``.grad``. With
# create_graph they are Tensors, and the VJPs' own ops record the graph of the backward.

class _Pass:
    """The state of one backward pass: the plan, pending sums, the ready queue, where results go,
    and the events the steps told (only while traced: the tape has recorded them already; ``_execute``
    yields them only under ``steps()``, else it just clears the list)."""

    __slots__ = ("plan", "tape", "events", "buffers", "owned", "ready", "create_graph", "retain_graph",
                 "accumulate", "inputs", "captured")


def _execute(roots, seeds, retain_graph, create_graph, inputs, accumulate, captured=None, implicit=None,
             allow_unused=True):
    """The backward pass, as a generator of events: while a trace is active it yields the pass's start,
    seeds and end (every step's events too, under ``steps()``); untraced, it yields nothing."""
    p = _Pass()
    p.tape, p.events, p.buffers, p.owned = state.tape, [], {}, set()
    p.create_graph, p.retain_graph, p.accumulate = create_graph, retain_graph, accumulate
    p.inputs, p.captured = inputs, captured
    root_nodes = [node_of(r) for r in roots]
    p.plan = plan = _plan(root_nodes, inputs)
    check_runnable(plan, inputs, allow_unused, create_graph)   # before any work, and before anything is freed
    tape, events = p.tape, p.events

    if tape is not None:  # the plan, told once before anything runs
        describe_plan(plan, root_nodes, inputs)
        yield tape.backward_started(roots, retain_graph, create_graph, inputs, captured is not None, plan)
        for node in plan.pruned:
            yield tape.node_pruned(node)

    # seed: each root's gradient starts in its node's pending buffer
    for i, (node, seed) in enumerate(zip(root_nodes, seeds)):
        if node not in plan.needed:
            continue
        seed = seed if create_graph else seed._data
        before = p.buffers.get(node)
        p.buffers[node] = seed if before is None else before + seed
        if tape is not None:
            yield tape.seeded(i, roots[i], node, seed, implicit[i] if implicit else False)
    p.ready = []
    for n in release_order(root_nodes):
        if n in plan.needed and plan.deps[n] == 0:
            heappush(p.ready, ready_key(n))

    prev_mode = state.grad_enabled
    state.grad_enabled = create_graph     # the VJPs record a graph only with create_graph=True
    ready, buffers, runs, targets = p.ready, p.buffers, plan.runs, plan.targets
    try:
        while ready:
            node = heappop(ready)[2]
            g = buffers.pop(node, None)    # the sum of everything its consumers sent
            if tape is not None:
                events.append(tape.node_started(node, g))
            if node.priority and node in runs:   # an op node (not a leaf's), not cut by inputs=
                if g is not None and (node._tensor_pre_hooks or node._retain_ref is not None
                                      or node in targets):  # (else _receive has nothing to do)
                    g = _receive(p, node, g)
                _send(p, node, g, _chain_rule_step(p, node, g))
            else:
                _receive(p, node, g)
            if events:
                if tape.stepping:   # (only autogradlab.steps() takes the events one at a time)
                    yield from events
                events.clear()
    finally:
        state.grad_enabled = prev_mode
    if accumulate and inputs is not None:  # as PyTorch: a non-leaf input keeps its .grad from now on
        for t in inputs:
            if isinstance(t, Tensor) and t.grad_fn is not None:
                t.retain_grad()
    if tape is not None:
        yield tape.backward_finished()


def _receive(p, node, g):
    """A node's total gradient arrived: run tensor hooks, then deliver it where it is wanted
    (``retain_grad``, ``inputs=`` / ``grad()`` captures, a leaf's ``.grad``). Returns the gradient."""
    if g is None:
        return g
    tape, is_leaf = p.tape, not node.priority
    hooks = node.variable._hooks if is_leaf else node._tensor_pre_hooks
    arrived = g
    if hooks:
        g = run_tensor_hooks(hooks, g, node, tape, p.events)
    owned = not hooks and node in p.owned   # a hook may have kept the gradient: then copy it
    retained = node._retain_ref() if node._retain_ref is not None else None
    if retained is not None:
        before = tape.snapshot_grad(retained) if tape is not None else None
        accumulate_into(retained, g)
        if tape is not None:
            p.events.append(tape.accumulated("retained", node, retained, before, g))
    if p.plan.targets:
        for i, t in p.plan.targets.get(node, ()):
            if p.captured is not None:          # autograd.grad: collect, never touch .grad
                # (as PyTorch: an op node that runs its VJP too is captured before its tensor hooks)
                got = arrived if not is_leaf and node in p.plan.runs else g
                before = p.captured[i]
                p.captured[i] = got if before is None else before + got
                if tape is not None:
                    p.events.append(tape.accumulated("captured", node, t, before, got, p.captured[i]))
            elif isinstance(t, Tensor) and not is_leaf and t is not retained:
                before = tape.snapshot_grad(t) if tape is not None else None
                accumulate_into(t, g)
                if tape is not None:
                    p.events.append(tape.accumulated("input", node, t, before, g))
    if is_leaf and p.accumulate and (p.inputs is None or node in p.plan.targets):
        _accumulate_leaf(p, node, g, owned)
    return g


def _accumulate_leaf(p, node, g, owned):
    """The leaf's AccumulateGrad runs, as PyTorch's: its node pre-hooks, then ``g`` is added into
    ``.grad`` (unless a pre-hook answered None, or the leaf no longer requires grad), then the leaf's
    post-accumulate hooks and the node's post-hooks."""
    tape, var = p.tape, node.variable
    if node._pre_hooks:
        g, owned = run_node_pre_hooks(node, g, tape, p.events), False   # (a hook may have kept it)
    if g is not None and var._requires_grad:
        before = tape.snapshot_grad(var) if tape is not None else None
        accumulate_into(var, g, owned)
        if tape is not None:
            p.events.append(tape.accumulated("leaf", node, var, before, g))
    if var._post_acc_hooks:
        run_post_accumulate_hooks(var, node, tape, p.events)
    if node._post_hooks:   # (an AccumulateGrad has no inputs: grad_inputs is empty)
        run_node_post_hooks(node, [], g, tape, p.events)


def _chain_rule_step(p, node, g):
    """One chain-rule step: ``grad_inputs[i] = VJP_i(g)`` (with node hooks around it), then free
    the saved tensors unless ``retain_graph``. Returns one gradient (or None) per input."""
    tape = p.tape
    if g is None:
        grads_in = [None] * len(node.edges)
    else:
        if node._pre_hooks:
            g = run_node_pre_hooks(node, g, tape, p.events)
        # (g None: a pre-hook answered (None,), and the node sends nothing, as in PyTorch)
        grads_in = node.apply(g) if g is not None else [None] * len(node.edges)
        if node._post_hooks:
            grads_in = run_node_post_hooks(node, grads_in, g, tape, p.events)
        if tape is not None:
            needed = p.plan.needed
            for i, (child, gi) in enumerate(zip(node.edges, grads_in)):
                if child is not None and child in needed and gi is not None:
                    p.events.append(tape.gradient_computed(node, i, child, g, gi))
        if state.anomaly:   # read per node, as PyTorch does: a hook may switch it mid-pass.
            check_nan(node, grads_in)   # (after the events: a trace shows the NaN it stops at)
    if not p.retain_graph and node._saved:
        if tape is None:
            node.free_saved()
        else:  # told with the names and the bytes freed
            p.events.append(tape.saved_freed(node, tuple(node._saved), node.free_saved(count_bytes=True)))
    return grads_in


def _send(p, node, g, grads_in):
    """Add each contribution into the pending buffer of the node it belongs to (a fan-in sums
    there, into a new array the engine owns); a node becomes ready once all of its consumers
    have sent theirs."""
    deps, buffers, tape = p.plan.deps, p.buffers, p.tape
    for child, gi in zip(node.edges, grads_in):
        left = deps.get(child)   # None: no edge there (child None), or a node not needed
        if left is None:
            continue
        if gi is not None:
            before = buffers.get(child)
            if before is None:
                buffers[child] = gi
                if not child.priority and node.made_new(gi, g, grads_in):
                    p.owned.add(child)   # a leaf may take it as its .grad without a copy
            else:
                buffers[child] = before + gi
                p.owned.add(child)
            if tape is not None:
                p.events.append(tape.accumulated("buffer", child, None, before, gi, buffers[child]))
        deps[child] = left - 1
        if left == 1:
            heappush(p.ready, (child.priority, -child.seq, child))   # graph_walk.ready_key, inline


def _tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate d(self)/d(leaf) into each leaf's ``.grad``; see ``autograd.backward``."""
    if gradient is not None and not isinstance(gradient, Tensor):
        raise TypeError(f"backward(gradient=...): the gradient must be a Tensor (or None), got a "
                        f"{type(gradient).__name__}. Wrap it: backward(tensor(...)) with the output's "
                        f"shape {tuple(self.shape)}, e.g. ones_like(output).")
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


Tensor.backward = _tensor_backward  # attached here: tensor.py imports nothing above it
