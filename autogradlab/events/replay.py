"""Replay: fold events into the engine's state at a step (gradients, pending sums, what ran)."""
from __future__ import annotations

from dataclasses import dataclass, field

from .records import (Accumulated, BackwardFinished, BackwardStarted, HookRan, NodePruned, NodeStarted,
                      OpRecorded, SavedFreed, Seeded, Value, snapshot)

@dataclass
class ReplayState:
    """The engine's state after some step: gradients by tensor id, pending fan-in sums by node id,
    and which nodes have run, been freed or pruned."""

    step: int = -1
    grads: dict = field(default_factory=dict)      # tensor_id -> Value (.grad of leaves/retained/inputs)
    captured: dict = field(default_factory=dict)   # tensor_id -> Value (autograd.grad results)
    buffers: dict = field(default_factory=dict)    # node_id -> Value (pending sums)
    ran: list = field(default_factory=list)
    freed: list = field(default_factory=list)
    pruned: list = field(default_factory=list)
    recorded: list = field(default_factory=list)   # node ids created so far (forward)
    current: int | None = None                     # the node running now
    event: object = None


def replay(events, upto=None) -> ReplayState:
    s = ReplayState()
    leaf_of = {}   # AccumulateGrad node id -> its leaf's tensor id (a post-accumulate hook may change .grad)
    for e in events:
        if upto is not None and e.step > upto:
            break
        s.step, s.event = e.step, e
        if isinstance(e, OpRecorded):
            s.recorded.append(e.node_id)
        elif isinstance(e, BackwardStarted):
            s.buffers, s.current, s.ran, s.pruned = {}, None, [], []
            s.captured = {}
        elif isinstance(e, Seeded):
            old = s.buffers.get(e.node_id)
            s.buffers[e.node_id] = e.seed if old is None else add_values(old, e.seed)
        elif isinstance(e, NodeStarted):
            s.current = e.node_id
            s.ran.append(e.node_id)
            s.buffers.pop(e.node_id, None)
        elif isinstance(e, Accumulated):
            if e.where == "buffer":
                s.buffers[e.node_id] = e.after
            elif e.where == "captured":
                s.captured[e.tensor.tensor_id] = e.after
            else:
                s.grads[e.tensor.tensor_id] = e.after
                if e.where == "leaf":
                    leaf_of[e.node_id] = e.tensor.tensor_id
        elif isinstance(e, HookRan):
            if e.hook == "post_accumulate" and e.changed and e.after and e.node_id in leaf_of:
                s.grads[leaf_of[e.node_id]] = e.after[0]
        elif isinstance(e, SavedFreed):
            s.freed.append(e.node_id)
        elif isinstance(e, NodePruned):
            s.pruned.append(e.node_id)
        elif isinstance(e, BackwardFinished):
            s.current = None
    return s


def add_values(a: Value, b: Value) -> Value:
    """The sum of two full snapshots (two seeds meeting in one buffer); ``b`` if either was summarised."""
    if a.data is None or b.data is None:
        return b
    return snapshot(a.array() + b.array(), max(len(a.data), 1))
