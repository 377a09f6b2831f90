"""Events as text: the rows of ``Tape.table()`` and plain-words explanations (:func:`describe`)."""
from __future__ import annotations

from .records import (Accumulated, BackwardFinished, BackwardStarted, GradientComputed, HookRan, NodePruned,
                      NodeStarted, OpRecorded, SavedFreed, Seeded)

def _v(value, digits):
    return "-" if value is None else value.short(digits)


def _hook_values(e, d) -> str:
    """What a hook was given and what the pass went on with: ``[1, 1] -> [10, 10]``, or ``[1, 1], unchanged``
    (a node_post hook has one value per input: ``(a, b)``; ``-`` where an input has no gradient); "" for a
    tape saved before hooks' values were recorded."""
    if e.before is None:
        return ""
    def vals(vs):
        text = ", ".join(_v(v, d) for v in vs)
        return f"({text})" if len(vs) != 1 else text
    if not e.changed:
        return f"{vals(e.before)}, unchanged"
    return f"{vals(e.before)} -> {vals(e.after)}"


def _row(e, d):
    node = str(getattr(e, "node_id", ""))
    name = getattr(e, "node_name", "")
    node = f"{node} {name}".strip()
    if isinstance(e, OpRecorded):
        return (node, e.output.name, f"{e.op}({', '.join(r.name for r in e.inputs)}) = {e.value.short(d)}"
                + (f"  saves {', '.join(e.saved)}" if e.saved else ""))
    if isinstance(e, BackwardStarted):
        extra = f" inputs=[{', '.join(r.name for r in e.inputs)}]" if e.inputs is not None else ""
        return ("", ", ".join(r.name for r in e.roots),
                f"{e.api} pass {e.pass_index} retain_graph={e.retain_graph} create_graph={e.create_graph}{extra}")
    if isinstance(e, Seeded):
        return (node, e.tensor.name, f"seed {e.seed.short(d)}" + (" (implicit)" if e.implicit else ""))
    if isinstance(e, NodeStarted):
        return (node, e.output.name, f"grad in {_v(e.grad, d)}")
    if isinstance(e, GradientComputed):
        who = e.input.name if e.input else "?"
        return (node, who, f"{e.upstream.short(d)} x [{e.formula}] = {e.contribution.short(d)} -> node {e.to_node_id}")
    if isinstance(e, Accumulated):
        who = e.tensor.name if e.tensor else f"buffer of node {e.node_id}"
        return (str(e.node_id), who, f"{e.where}: {_v(e.before, d)} + {e.contribution.short(d)} = {e.after.short(d)}")
    if isinstance(e, SavedFreed):
        return (node, "", f"freed {', '.join(e.names)} ({e.nbytes} bytes)")
    if isinstance(e, NodePruned):
        return (node, e.output.name, "pruned: not on a path to inputs")
    if isinstance(e, HookRan):
        values = _hook_values(e, d)
        return (node, "", f"{e.hook} hook ran" + (", changed the gradient" if e.changed else "")
                + (f": {values}" if values else ""))
    if isinstance(e, BackwardFinished):
        return ("", "", f"pass {e.pass_index} done: {e.nodes_run} nodes ran, {e.contributions} contributions, "
                        f"{e.bytes_freed} bytes freed")
    return ("", "", "")


def describe(e, digits=4) -> str:
    """One event in plain words, with its numbers."""
    d = digits
    if isinstance(e, OpRecorded):
        return (f"forward: {e.output.name} = {e.op}({', '.join(r.name for r in e.inputs)}) = {e.value.short(d)}; "
                f"node {e.node_id} ({e.node_name}) records it" + (f" and saves {', '.join(e.saved)}" if e.saved else ""))
    if isinstance(e, BackwardStarted):
        return (f"{e.api}() starts from {', '.join(r.name for r in e.roots)} "
                f"(retain_graph={e.retain_graph}, create_graph={e.create_graph}"
                + (f", inputs={[r.name for r in e.inputs]}" if e.inputs is not None else "") + ")")
    if isinstance(e, Seeded):
        how = "ones, because it has one element" if e.implicit else "the gradient you passed"
        return f"seed: d{e.tensor.name}/d{e.tensor.name} = {e.seed.short(d)} ({how})"
    if isinstance(e, NodeStarted):
        if e.grad is None:
            return f"node {e.node_id} ({e.node_name}) runs, but no gradient reached {e.output.name}"
        return f"node {e.node_id} ({e.node_name}) runs: the gradient of {e.output.name} is {e.grad.short(d)}"
    if isinstance(e, GradientComputed):
        return (f"  chain rule: upstream {e.upstream.short(d)} x local [{e.formula}] = {e.contribution.short(d)}, "
                f"sent to {e.input.name if e.input else 'node ' + str(e.to_node_id)}")
    if isinstance(e, Accumulated):
        name = e.tensor.name if e.tensor is not None else "an input"
        target = {"buffer": f"the pending sum for node {e.node_id}", "leaf": f"{name}.grad",
                  "retained": f"{name}.grad (retain_grad)", "input": f"{name}.grad (inputs=)",
                  "captured": f"the result for {name}"}[e.where]
        return f"  accumulate into {target}: {_v(e.before, d)} + {e.contribution.short(d)} = {e.after.short(d)}"
    if isinstance(e, SavedFreed):
        return f"  node {e.node_id} frees what it saved: {', '.join(e.names)} ({e.nbytes} bytes); retain_graph is False"
    if isinstance(e, NodePruned):
        return (f"node {e.node_id} ({e.node_name}) is skipped: the gradient of {e.output.name} "
                f"does not lead to any of inputs=")
    if isinstance(e, HookRan):
        values = _hook_values(e, d)
        return (f"  a {e.hook} hook on node {e.node_id} ran" + (" and replaced the gradient" if e.changed else "")
                + (f": {values}" if values else ""))
    if isinstance(e, BackwardFinished):
        return (f"done: {e.nodes_run} nodes ran, {e.contributions} contributions, "
                f"{e.bytes_freed} bytes of saved tensors freed")
    return repr(e)
