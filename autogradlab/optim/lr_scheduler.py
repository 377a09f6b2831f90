"""Learning-rate schedulers with PyTorch's names (``optim.lr_scheduler``).

Call ``scheduler.step()`` once per epoch, after the epoch's ``optimizer.step()`` calls: it sets each param
group's ``lr`` for the next epoch. ::

    scheduler = optim.lr_scheduler.StepLR(opt, step_size=30, gamma=0.1)
    for epoch in range(100):
        train_one_epoch(model, opt)          # opt.step() inside
        scheduler.step()

As in PyTorch, most schedules are written as an update of the group's *current* ``lr`` (``lr <- lr * gamma``),
so two schedulers on one optimizer compose and a change you make to ``lr`` by hand carries on; ``LambdaLR``
sets ``base_lr * f(epoch)`` outright. ``state_dict()``/``load_state_dict()`` save and restore the schedule's
position; build the scheduler before loading the optimizer's state, as in PyTorch, because building it
writes ``lr``.
"""
from __future__ import annotations

import functools
import math
import numbers
import types
import warnings
from collections import Counter

from .optimizer import Optimizer

__all__ = ["LRScheduler", "LambdaLR", "StepLR", "MultiStepLR", "ExponentialLR", "LinearLR", "CosineAnnealingLR",
           "ReduceLROnPlateau"]


class LRScheduler:
    """Base class: ``get_lr()`` gives the groups' learning rates at ``last_epoch``; ``step()`` moves one epoch on
    and writes them. Building a scheduler takes the first step (epoch 0), which keeps each group's ``lr`` as its
    ``initial_lr`` (the schedule's ``base_lrs``)."""

    def __init__(self, optimizer, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer: a scheduler adjusts an optimizer's "
                            f"learning rates, e.g. StepLR(opt, step_size=10)")
        groups = optimizer.param_groups
        if last_epoch != -1:
            missing = [i for i, group in enumerate(groups) if "initial_lr" not in group]
            if missing:
                raise KeyError(f"param 'initial_lr' is not specified in param_groups{missing} when resuming a "
                               f"scheduler with last_epoch={last_epoch}: load the optimizer's state_dict first, or "
                               f"use load_state_dict on a scheduler built with last_epoch=-1")
        self.optimizer = optimizer
        before = [(group, dict(group)) for group in groups]
        for group in groups:
            group.setdefault("initial_lr", group["lr"])
        self.base_lrs = [group["initial_lr"] for group in groups]
        self.last_epoch = last_epoch
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        except BaseException:   # (one that fails at epoch 0, e.g. LambdaLR's 1/epoch: no initial_lr left behind)
            for group, saved in before:
                group.clear()
                group.update(saved)
            raise
        self._is_initial = False
        _note_optimizer_steps(optimizer)

    def get_lr(self) -> list:
        raise NotImplementedError

    def get_last_lr(self) -> list:
        """The learning rates the last ``step()`` set, one per param group."""
        return list(self._last_lr)

    def step(self):
        """Move to the next epoch and set each group's ``lr`` for it."""
        if self._step_count == 1 and not getattr(self.optimizer, "_opt_called", False):
            warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`: call them in the "
                          "opposite order (optimizer.step() in the epoch, then lr_scheduler.step()), or the first "
                          "value of the learning rate schedule is skipped.", UserWarning, stacklevel=2)
        groups = self.optimizer.param_groups
        if len(groups) != len(self.base_lrs):
            raise ValueError(f"the optimizer has {len(groups)} param groups, but the scheduler was built for "
                             f"{len(self.base_lrs)}: build the scheduler after add_param_group")
        self._step_count += 1
        self.last_epoch += 1
        try:
            values = self.get_lr()
        except BaseException:   # (a schedule that fails, e.g. a LambdaLR's function: the epoch is not taken)
            self._step_count -= 1
            self.last_epoch -= 1
            raise
        for group, lr in zip(groups, values, strict=True):
            group["lr"] = lr
        self._last_lr = self._current()

    def _current(self) -> list:
        return [group["lr"] for group in self.optimizer.param_groups]

    def state_dict(self) -> dict:
        """Where the schedule is (``last_epoch``, ``base_lrs``, ...) and its settings: every attribute but the
        optimizer."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict):
        """Go back to where :meth:`state_dict` was taken (load the optimizer's own state too)."""
        self.__dict__.update(state_dict)


def _note_optimizer_steps(optimizer):
    """Make ``optimizer.step`` note that it ran (``optimizer._opt_called``), for ``LRScheduler.step``'s warning."""
    step = optimizer.step
    if getattr(step, "_notes_calls", False):
        return

    @functools.wraps(step)
    def noting_step(*args, **kwargs):
        optimizer._opt_called = True
        return step(*args, **kwargs)

    noting_step._notes_calls = True
    optimizer.step = noting_step


class LambdaLR(LRScheduler):
    """lr = base_lr * lr_lambda(epoch), with one function for every group or one per group. (The functions are
    not part of ``state_dict``.)"""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        groups = optimizer.param_groups if isinstance(optimizer, Optimizer) else ()
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != len(groups):
                raise ValueError(f"Expected {len(groups)} lr_lambdas (one per param group), but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * len(groups)
        for f in self.lr_lambdas:
            if not callable(f):
                raise TypeError(f"lr_lambda must be a function of the epoch (lambda epoch: 0.95 ** epoch), got "
                                f"{type(f).__name__}")
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [base * f(self.last_epoch) for f, base in zip(self.lr_lambdas, self.base_lrs, strict=True)]

    def state_dict(self):
        """As the base's, with ``lr_lambdas``: None for a function or lambda, the attributes (``__dict__``) of a
        callable object, as in PyTorch."""
        state = {key: value for key, value in super().state_dict().items() if key != "lr_lambdas"}
        state["lr_lambdas"] = [None if isinstance(f, types.FunctionType) else dict(f.__dict__)
                               for f in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict):
        super().load_state_dict({key: value for key, value in state_dict.items() if key != "lr_lambdas"})
        for f, saved in zip(self.lr_lambdas, state_dict.get("lr_lambdas", ())):
            if saved is not None:
                f.__dict__.update(saved)


class StepLR(LRScheduler):
    """lr <- lr * gamma every ``step_size`` epochs: base_lr * gamma^(epoch // step_size) when nothing else
    changes lr."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        if not isinstance(step_size, numbers.Real) or step_size <= 0:
            raise ValueError(f"step_size must be positive (epochs between decays), got {step_size!r}")
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._current()
        return [lr * self.gamma for lr in self._current()]


class MultiStepLR(LRScheduler):
    """lr <- lr * gamma at each epoch in ``milestones`` (gamma^n at a milestone listed n times)."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def load_state_dict(self, state_dict):
        super().load_state_dict(state_dict)
        self.milestones = Counter(self.milestones)   # (a checkpoint gives it back as a plain dict)

    def get_lr(self):
        if self.last_epoch not in self.milestones:
            return self._current()
        return [lr * self.gamma ** self.milestones[self.last_epoch] for lr in self._current()]


class ExponentialLR(LRScheduler):
    """lr <- lr * gamma every epoch: base_lr * gamma^epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self._is_initial:
            return self._current()
        return [lr * self.gamma for lr in self._current()]


class LinearLR(LRScheduler):
    """A factor that goes linearly from ``start_factor`` (epoch 0) to ``end_factor`` (epoch ``total_iters``, and
    after): lr = base_lr * (start + (end - start) * min(epoch, total_iters) / total_iters). A warm-up, typically."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or equal to 1, "
                             f"got start_factor={start_factor}")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError(f"Ending multiplicative factor expected to be between 0 and 1, got "
                             f"end_factor={end_factor}")
        self.start_factor, self.end_factor, self.total_iters = start_factor, end_factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in self._current()]
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current()
        # the ratio of this epoch's factor to the last one's
        change = self.end_factor - self.start_factor
        ratio = 1.0 + change / (self.total_iters * self.start_factor + (self.last_epoch - 1) * change)
        return [lr * ratio for lr in self._current()]


class CosineAnnealingLR(LRScheduler):
    """lr = eta_min + (base_lr - eta_min) * (1 + cos(pi * epoch / T_max)) / 2: half a cosine from base_lr down to
    eta_min over ``T_max`` epochs, then back up (no restarts). Written, as in PyTorch, as the ratio of one epoch's
    value to the last's, so it composes with other schedulers."""

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        if not isinstance(T_max, numbers.Real) or T_max <= 0:
            raise ValueError(f"T_max must be positive (epochs from base_lr down to eta_min), got {T_max!r}")
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        t, T, low = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return self._current()
        if self._step_count == 1 and t > 0:   # resumed with last_epoch > 0: the closed form
            return [low + (base - low) * (1 + math.cos(t * math.pi / T)) / 2 for base in self.base_lrs]
        if (t - 1 - T) % (2 * T) == 0:        # at the bottom the ratio below is 0/0: step up by the first change
            return [lr + (base - low) * (1 - math.cos(math.pi / T)) / 2
                    for base, lr in zip(self.base_lrs, self._current(), strict=True)]
        ratio = (1 + math.cos(math.pi * t / T)) / (1 + math.cos(math.pi * (t - 1) / T))
        return [ratio * (lr - low) + low for lr in self._current()]


class ReduceLROnPlateau(LRScheduler):
    """lr <- max(lr * factor, min_lr) when the metric given to ``step(metric)`` has not improved for more than
    ``patience`` epochs (improved: below best * (1 - threshold) for mode="min", threshold_mode="rel"; above
    best * (1 + threshold) for "max"; best -/+ threshold for "abs"); then ``cooldown`` epochs of rest."""

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4, threshold_mode="rel",
                 cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError(f"Factor should be < 1.0 (it multiplies the lr on a plateau), got {factor}")
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        if mode not in ("min", "max"):
            raise ValueError(f"mode {mode!r} is unknown: 'min' for a loss, 'max' for an accuracy")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"threshold mode {threshold_mode!r} is unknown: 'rel' or 'abs'")
        groups = optimizer.param_groups
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(groups):
                raise ValueError(f"expected {len(groups)} min_lrs (one per param group), got {len(min_lr)}")
            self.default_min_lr, self.min_lrs = None, list(min_lr)
        else:
            self.default_min_lr, self.min_lrs = min_lr, [min_lr] * len(groups)
        self.optimizer, self.factor, self.patience, self.cooldown, self.eps = optimizer, factor, patience, cooldown, eps
        self.mode, self.threshold, self.threshold_mode = mode, threshold, threshold_mode
        self.last_epoch = 0
        self._last_lr = self._current()
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.best = self.mode_worse
        self.cooldown_counter = self.num_bad_epochs = 0

    def step(self, metrics):
        """Take this epoch's metric (a loss for mode="min"); reduce the lr if it has stopped improving."""
        current = float(metrics)
        self.last_epoch += 1
        if self._is_better(current):
            self.best, self.num_bad_epochs = current, 0
        else:
            self.num_bad_epochs += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0   # (bad epochs in the cooldown do not count)
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
        self._last_lr = self._current()

    def _is_better(self, a):
        best = self.best
        if self.mode == "min":
            return a < (best * (1.0 - self.threshold) if self.threshold_mode == "rel" else best - self.threshold)
        return a > (best * (self.threshold + 1.0) if self.threshold_mode == "rel" else best + self.threshold)

    def _reduce_lr(self):
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(f"The number of param groups in the optimizer ({len(groups)}) differs from when "
                                   f"ReduceLROnPlateau was built ({len(self.min_lrs)}), usually because a group "
                                   f"was added: set scheduler.min_lrs to one value per group")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, min_lr in zip(groups, self.min_lrs):
            old = float(group["lr"])
            new = max(old * self.factor, min_lr)
            if old - new > self.eps:   # (changes smaller than eps are ignored)
                group["lr"] = new
