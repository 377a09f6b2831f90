"""Gradient checkpointing (``torch.utils.checkpoint``): spend compute to save memory.

A backward needs what each op saved in the forward (its inputs, its output). ``checkpoint(f, x)`` runs ``f``
keeping none of what the ops inside it save: each saved tensor is replaced by its number, through
:class:`~autogradlab.autograd.graph.saved_tensors_hooks`. When the backward first asks for one of them,
``f`` runs once more on the same inputs (with the random stream as it was, so dropout draws the same mask),
this time keeping what its ops save, and the backward goes on with those. The memory of the activations
inside ``f`` is then needed only during the backward, at the price of a second forward of ``f``:

    h = checkpoint(block, x, use_reentrant=False)      # block's activations are not kept
    loss = head(h).sum()
    loss.backward()                                    # block runs again here

``checkpoint_sequential(model, segments, x)`` checkpoints all but the last of ``segments`` runs of layers.
"""
from __future__ import annotations

import warnings
from contextlib import nullcontext

from .. import creation
from ..grad_mode import enable_grad, no_grad, state
from ..graph import Checked, saved_tensors_hooks
from ..tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential"]


class _StopRerun(Exception):
    """Raised inside the re-run once it has saved every tensor the backward needs (``early_stop``)."""


class _Rerun:
    """One checkpointed call: its function and inputs, how many tensors its ops saved the first time, the
    random stream's state before it, and what its ops save when it runs again (None until then)."""

    def __init__(self, function, args, kwargs, rng_state, recompute_context, early_stop):
        self.function, self.args, self.kwargs, self.rng_state = function, args, kwargs, rng_state
        self.recompute_context, self.early_stop = recompute_context, early_stop
        self.inputs = [a._vc for a in (*args, *kwargs.values()) if isinstance(a, Tensor)]
        self.count, self.kept = 0, None

    def pack(self, tensor):
        """First run: keep only the saved tensor's number; one the function made (not an input, nor a view
        of one) is made again in the backward, so its in-place changes since are not checked; an input's are."""
        self.count += 1
        made_inside = not any(tensor._vc is vc for vc in self.inputs)
        return self.count - 1 if made_inside else Checked(self.count - 1)

    def unpack(self, number):
        """Backward: the tensor with that number, from a second run of the function."""
        if self.kept is None:
            self.kept = self._run_again()
        return self.kept[number]

    def _run_again(self):
        kept = []

        def keep(tensor):
            kept.append(tensor)
            if self.early_stop and len(kept) == self.count:   # (all it needs: what follows, e.g. an in-place
                raise _StopRerun                              # change of a saved tensor, must not run again)
            return len(kept) - 1
        now = creation.get_rng_state()
        if self.rng_state is not None:
            creation.set_rng_state(self.rng_state)
        try:
            with enable_grad(), self.recompute_context, saved_tensors_hooks(keep, kept.__getitem__):
                self.function(*self.args, **self.kwargs)
        except _StopRerun:
            pass
        finally:
            creation.set_rng_state(now)
        if len(kept) != self.count:
            raise RuntimeError(f"checkpoint: the checkpointed function saved {self.count} tensors for the "
                               f"backward when it ran, but {len(kept)} when it ran again in the backward: it "
                               f"must do the same ops both times (no branching on values that change between "
                               f"the runs, such as a counter or a global it updates)")
        return kept


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default", debug=False,
               early_stop=True, preserve_rng_state=True, **kwargs):
    """``function(*args, **kwargs)``, keeping none of what its ops save for the backward; they run again in
    the backward. ``preserve_rng_state`` replays the random stream, so dropout draws the same mask.

    ``use_reentrant=False`` (PyTorch's advice): gradients reach every tensor ``function`` uses, inputs and
    parameters. ``use_reentrant=True`` (PyTorch's default, with a warning, when it is not given): as PyTorch,
    when no tensor in ``args`` requires grad the output does not either, and the parameters inside get no
    gradient (a warning says so); keyword arguments are refused. Otherwise both compute the same gradients
    here, by the same mechanism (PyTorch's reentrant form also refuses ``autograd.grad``; this one allows it).

    ``context_fn()`` returns two context managers, one around the forward, one around the re-run (PyTorch's
    selective checkpointing hook). ``determinism_check`` ('default' or 'none'): the re-run must save as many
    tensors as the forward did either way. ``early_stop`` (PyTorch's default): the re-run stops once it has
    saved every tensor the backward needs, so an in-place change the function makes after that to one of them
    is not made twice. ``debug`` is taken; on error the message says what differed."""
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check!r}")
    forward_context, recompute_context = context_fn() if context_fn is not None else (nullcontext(), nullcontext())
    if use_reentrant is None:
        warnings.warn("autogradlab.utils.checkpoint: pass use_reentrant explicitly (PyTorch warns the same); "
                      "use_reentrant=False is recommended, and it is what your parameters' gradients need when "
                      "no input requires grad. Without it, the reentrant form is used, as in PyTorch.",
                      UserWarning, stacklevel=2)
        use_reentrant = True
    if use_reentrant:
        if kwargs or context_fn is not None:
            raise ValueError(f"Unexpected keyword arguments: {','.join(kwargs) or 'context_fn'}: the reentrant "
                             f"checkpoint takes none, as in PyTorch; pass use_reentrant=False to give them")
        if state.grad_enabled and not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None (the reentrant "
                          "checkpoint, as in PyTorch): pass use_reentrant=False to get the parameters' gradients",
                          UserWarning, stacklevel=2)
            with no_grad():
                return function(*args)
    rerun = _Rerun(function, args, kwargs, creation.get_rng_state() if preserve_rng_state else None,
                   recompute_context, early_stop)
    with forward_context, saved_tensors_hooks(rerun.pack, rerun.unpack):
        return function(*args, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run the layers of ``functions`` (a Sequential or a list) in ``segments`` consecutive runs of
    ``len // segments`` layers each (the last takes the rest), checkpointing every run but the last.
    ``preserve_rng_state`` is the one keyword it passes on."""
    unexpected = [k for k in kwargs if k != "preserve_rng_state"]
    if unexpected:
        raise ValueError(f"Unexpected keyword arguments: {','.join(unexpected)} (checkpoint_sequential takes "
                         f"preserve_rng_state)")
    layers = list(functions.children()) if hasattr(functions, "children") else list(functions)
    if not isinstance(segments, int) or not 1 <= segments <= len(layers):
        raise ValueError(f"checkpoint_sequential: segments must be an int from 1 to the number of layers "
                         f"({len(layers)}), got {segments!r}")

    def run(start, stop):
        def forward(x):
            for layer in layers[start:stop]:
                x = layer(x)
            return x
        return forward
    size = len(layers) // segments
    stop = 0
    for start in range(0, size * (segments - 1), size):
        stop = start + size
        input = checkpoint(run(start, stop), input, use_reentrant=use_reentrant, **kwargs)
    return run(stop, len(layers))(input)
