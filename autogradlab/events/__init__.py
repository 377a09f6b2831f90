"""Step events: the engine tells its story, one typed record per step.

    with autogradlab.trace() as tape:
        y = (x * w).sum()
        y.backward()
    print(tape.table())

Each event is a frozen record with a ``step`` number (0, 1, 2, ... in this
tape). Tensors and nodes are named by ids local to the tape, given in order of
first appearance (``tensor_id``, ``node_id``), and by human names: the
tensor's ``name=``, else ``x0, x1, ...`` for leaves and ``t0, t1, ...`` for
computed tensors. Values are host NumPy snapshots (:class:`Value`), summarised
above ``max_elements``. Events never hold live Tensors or nodes, so a tape can
be saved as JSON, loaded elsewhere and replayed.

Nothing here runs unless a tape is active: the engine checks one thread-local
(``state.tape``) and does no event work otherwise.

The package's modules, in reading order: :mod:`.records` (values, references, the event kinds),
:mod:`.tape` (the tape the engine writes), :mod:`.jsonio` (JSON), :mod:`.text` (tables and
words), :mod:`.replay` (state at a step), :mod:`.tracing` (``trace``, ``explain``, ``steps``).
"""
from __future__ import annotations

from . import jsonio, records, replay as _replay_module, tape as _tape_module, text, tracing  # noqa: F401
from .jsonio import _dec, _decode_event, _enc, _encode, _refs_of  # noqa: F401
from .records import (EVENT_TYPES, MAX_ELEMENTS, Accumulated, BackwardFinished, BackwardPlan,  # noqa: F401
                      BackwardStarted, GradientComputed, HookRan, NodePruned, NodeStarted, OpRecorded,
                      PlannedNode, SavedFreed, Seeded, SourceLine, TensorRef, Value, _dtype_name, _fmt, _nested,
                      format_array, format_number, snapshot)
from .replay import ReplayState, add_values, replay  # noqa: F401
from .tape import Tape, _formula  # noqa: F401
from .text import _row, _v, describe  # noqa: F401
from .tracing import explain, steps, trace  # noqa: F401

__all__ = ["Value", "TensorRef", "SourceLine", "PlannedNode", "BackwardPlan", "OpRecorded", "BackwardStarted", "Seeded",
           "NodeStarted", "GradientComputed", "Accumulated", "SavedFreed", "NodePruned", "HookRan",
           "BackwardFinished", "EVENT_TYPES", "Tape", "trace", "explain", "steps", "ReplayState", "describe"]
