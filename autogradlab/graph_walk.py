"""Walks over the recorded graph that run nothing (the engine's bookkeeping, apart from its core).

- :func:`reach`: every node the roots lead to, in walk order, and how many edges lead into each;
  :func:`parents_of`: who sends to each one.
- :func:`on_paths_to`: with ``inputs=``, the nodes on some path from a root to an input
  ("pruning": nothing else needs to run).
- :func:`run_order`: the order a pass will start its nodes in, found without running
  anything (only a traced pass asks, to report its plan before it starts).

The walks are iterative (an explicit stack or heap), so a 100,000-op chain never hits
Python's recursion limit.
"""
from __future__ import annotations

import heapq

from .graph import GradientEdge

__all__ = ["node_of", "ready_key", "release_order", "reach", "parents_of", "on_paths_to", "run_order", "describe_plan"]


def node_of(t):
    """The node a root or input stands for: its ``grad_fn``, a leaf's AccumulateGrad, or an edge's node."""
    if isinstance(t, GradientEdge):
        return t.node
    return t.grad_fn if t.grad_fn is not None else t._grad_accumulator()


def ready_key(node):
    """The ready queue's order: lower ``priority`` first (a leaf's AccumulateGrad), then the
    node created last (highest ``seq``), as in PyTorch. Leaves tie (every AccumulateGrad's ``seq`` is 0,
    as PyTorch gives them all one sequence number): the heap's own order decides, as in PyTorch's."""
    return (node.priority, -node.seq, node)


def release_order(root_nodes):
    """The root nodes, each once, in the order the pass releases them: a node named twice at its
    last place (PyTorch's graph root sends to the roots in turn; a node is ready after its last)."""
    return list(dict.fromkeys(reversed(root_nodes)))[::-1]


def reach(root_nodes):
    """Depth-first from the roots: ``(nodes, edges_in)``, where ``nodes`` lists every reached node
    in walk order and ``edges_in[n]`` counts the edges into ``n`` from reached nodes (its keys are
    the reached nodes)."""
    nodes, edges_in = [], dict.fromkeys(root_nodes, 0)
    stack = list(edges_in)
    while stack:
        node = stack.pop()
        nodes.append(node)
        for child in node.edges:
            if child is None:
                continue
            if child in edges_in:
                edges_in[child] += 1
            else:
                edges_in[child] = 1
                stack.append(child)
    return nodes, edges_in


def parents_of(nodes):
    """For each node that ``nodes`` send to, the list of those sending to it (to walk back up)."""
    parents = {}
    for node in nodes:
        for child in node.edges:
            if child is not None:
                parents.setdefault(child, []).append(node)
    return parents


def on_paths_to(targets, seen, parents):
    """The reached nodes from which a root's gradient can flow to a target: walk up from each
    reached target through ``parents``."""
    needed = set()
    frontier = [n for n in targets if n in seen]
    while frontier:
        n = frontier.pop()
        if n in needed:
            continue
        needed.add(n)
        frontier.extend(parents.get(n, ()))
    return needed


def run_order(plan, root_nodes):
    """The order the engine's ready queue will start the needed nodes in (the same rule, run on
    a copy of the dependency counts, calling no VJP)."""
    deps, needed, runs = dict(plan.deps), plan.needed, plan.runs
    push, pop = heapq.heappush, heapq.heappop
    ready, order = [], []
    for n in release_order(root_nodes):
        if n in needed and deps[n] == 0:
            push(ready, ready_key(n))
    while ready:
        node = pop(ready)[2]
        order.append(node)
        if not node.priority or node not in runs:   # a leaf's accumulator (priority 0) sends nothing
            continue
        for child in node.edges:
            left = deps.get(child)   # None: no edge there, or a node not needed
            if left is not None:
                deps[child] = left - 1
                if left == 1:
                    push(ready, (child.priority, -child.seq, child))   # ready_key, inline
    return order


def describe_plan(plan, root_nodes, inputs):
    """Add to ``plan`` what a traced pass reports before it starts: the root and input nodes, the
    run order, and the reached nodes that ``inputs=`` pruned (neither run nor an input's)."""
    plan.root_nodes, plan.order = root_nodes, run_order(plan, root_nodes)
    plan.input_nodes = None if inputs is None else [node_of(t) for t in inputs]
    plan.pruned = [] if inputs is None else [n for n in plan.nodes if n not in plan.runs and n not in plan.targets]
