"""The entry points: ``trace()`` records, ``explain()`` tells, ``steps()`` drives the engine one
event at a time."""
from __future__ import annotations

from .. import engine
from ..grad_mode import state
from ..tensor import Tensor
from .records import MAX_ELEMENTS
from .replay import ReplayState
from .tape import Tape
from .text import describe

class trace:
    """``with trace() as tape:`` records the forward and backward events of everything inside.

    ``max_elements``: arrays up to this size are copied whole into the events, larger ones summarised
    (shape, min, max, norm). ``stats=True``: arrays too large for a table also get mean, std, NaN/inf
    counts and a histogram (:class:`~autogradlab.events.records.Stats`; the player's side panel shows
    them); it costs a few passes over each such array, so it is off unless asked for.

    ``trace(x)`` of a tensor is PyTorch's matrix trace instead (``x.trace()``, the sum of its diagonal), so
    that ``torch.trace`` in lab code ports by changing the import."""

    def __new__(cls, *args, **kwargs):
        if args and isinstance(args[0], Tensor):   # torch.trace(x), the matrix trace: so that lab code ports
            return args[0].trace(*args[1:], **kwargs)
        if isinstance(kwargs.get("input"), Tensor):   # (torch.trace(input=x))
            return kwargs.pop("input").trace(*args, **kwargs)
        return super().__new__(cls)

    def __init__(self, max_elements: int = MAX_ELEMENTS, *, stats: bool = False):
        self.tape = Tape(max_elements, stats)

    def __enter__(self) -> Tape:
        self._prev = state.tape
        state.tape = self.tape
        return self.tape

    def __exit__(self, *exc):
        state.tape = self._prev
        self.tape._end_pass()   # (if a backward pass raised inside: let go of its arrays and nodes safely)
        return False


def explain(root, file=None, **backward_kwargs) -> Tape:
    """Run ``root.backward(**backward_kwargs)`` under a trace and print the chain-rule story,
    one line per step. Returns the tape."""
    if not isinstance(root, Tensor):   # (checked before the trace starts: nothing recorded, nothing run)
        shown = repr(root) if len(repr(root)) <= 40 else repr(root)[:37] + "..."
        raise TypeError(f"explain() expects the Tensor whose backward to tell (e.g. a loss), but got "
                        f"{type(root).__name__} {shown}. Pass the output of your computation: "
                        f"explain(loss), where loss was computed from tensors with requires_grad=True.")
    with trace() as tape:
        root.backward(**backward_kwargs)
    for e in tape.events:
        print(f"[{e.step}] {describe(e)}", file=file)
    return tape


class steps:
    """Drive the real engine one event at a time, like a debugger:

        it = steps(loss)
        next(it)          # BackwardStarted
        next(it)          # Seeded ... inspect x.grad, it.state() between calls

    Validation happens at once (bad arguments raise here). Between two ``next``
    calls, leaf ``.grad`` values are the engine's partial results. Leaving a
    ``for`` loop with ``break`` only pauses the pass (``next`` resumes it);
    ``it.close()`` stops it where it is: gradients accumulated so far stay,
    nodes that already ran have freed their saved tensors (without
    ``retain_graph``), the rest are untouched.
    """

    def __init__(self, root, gradient=None, retain_graph=None, create_graph=False, inputs=None,
                 max_elements=MAX_ELEMENTS, *, stats: bool = False):
        self.tape = Tape(max_elements, stats)
        self.tape.stepping = True
        self._engine_mode = None
        prev, state.tape = state.tape, self.tape
        try:
            self._gen = engine.backward_steps(root, gradient, retain_graph, create_graph, None, inputs)
        finally:
            state.tape = prev
        self.done = False

    def __iter__(self):
        return self

    def __next__(self):
        if self.done:
            raise StopIteration
        prev_tape, user_mode = state.tape, state.grad_enabled
        state.tape = self.tape
        if self._engine_mode is not None:
            state.grad_enabled = self._engine_mode
        try:
            step = next(self._gen)   # the engine yields each event's step
        except StopIteration:
            self.done = True
            raise
        finally:
            self._engine_mode = state.grad_enabled
            state.tape, state.grad_enabled = prev_tape, user_mode
        return self.tape.events[step]

    def state(self) -> ReplayState:
        """The engine's state so far, folded from the events."""
        return self.tape.replay()

    def run(self):
        """Run the rest of the pass; returns the tape."""
        for _ in self:
            pass
        return self.tape

    def close(self):
        if not self.done:
            self.done = True
            user_mode = state.grad_enabled
            self._gen.close()
            state.grad_enabled = user_mode
            self.tape._end_pass()
