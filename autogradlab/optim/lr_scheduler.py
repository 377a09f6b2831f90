"""Learning-rate schedulers with PyTorch's names (``optim.lr_scheduler``).

Call ``scheduler.step()`` once per epoch, after the epoch's ``optimizer.step()`` calls: it sets each param
group's ``lr`` for the next epoch. ::

    scheduler = optim.lr_scheduler.StepLR(opt, step_size=30, gamma=0.1)
    for epoch in range(100):
        train_one_epoch(model, opt)          # opt.step() inside
        scheduler.step()

``OneCycleLR`` and ``CyclicLR`` are schedules of optimizer steps: call their ``step()`` after every batch.

As in PyTorch, most schedules are written as an update of the group's *current* ``lr`` (``lr <- lr * gamma``),
so two schedulers on one optimizer compose and a change you make to ``lr`` by hand carries on; ``LambdaLR``
sets ``base_lr * f(epoch)`` outright. ``state_dict()``/``load_state_dict()`` save and restore the schedule's
position; build the scheduler before loading the optimizer's state, as in PyTorch, because building it
writes ``lr``.
"""
from __future__ import annotations

import contextlib
import functools
import math
import numbers
import types
import warnings
from bisect import bisect_right
from collections import Counter

from .optimizer import Optimizer

__all__ = ["LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ExponentialLR", "LinearLR", "CosineAnnealingLR",
           "ReduceLROnPlateau", "SequentialLR", "OneCycleLR", "CyclicLR", "ConstantLR", "PolynomialLR",
           "CosineAnnealingWarmRestarts", "ChainedScheduler"]


#: PyTorch's warning for the deprecated ``step(epoch)``
_EPOCH_DEPRECATED = ("The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where "
                     "possible. Please use `scheduler.step()` to step the scheduler. During the deprecation, if "
                     "epoch is different from None, the closed form is used instead of the new chainable form, "
                     "where available.")


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
        with _unchanged_on_error(groups):   # (one that fails at epoch 0, e.g. LambdaLR's 1/epoch: no initial_lr left)
            for group in groups:
                group.setdefault("initial_lr", group["lr"])
            self.base_lrs = [group["initial_lr"] for group in groups]
            self.last_epoch = last_epoch
            self._initial_step()
        _note_optimizer_steps(optimizer)

    def _initial_step(self):
        """The step that building takes (epoch 0, or the epoch resumed): a schedule may set its start there."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def _restart(self):
        """Start the schedule again at epoch 0 from ``base_lrs`` (``SequentialLR`` does at a milestone): its closed
        form at epoch 0 where it has one (PyTorch's hook name, ``_get_closed_form_lr``), else ``get_lr()`` there."""
        epoch, self.last_epoch = self.last_epoch, 0
        try:
            values = self._get_closed_form_lr() if hasattr(self, "_get_closed_form_lr") else self.get_lr()
        except BaseException:
            self.last_epoch = epoch
            raise
        for group, lr in zip(self.optimizer.param_groups, values, strict=True):
            group["lr"] = lr
        self._last_lr = self._current()

    def get_lr(self) -> list:
        raise NotImplementedError

    def get_last_lr(self) -> list:
        """The learning rates the last ``step()`` set, one per param group."""
        return list(self._last_lr)

    def step(self, epoch=None):
        """Move to the next epoch and set each group's ``lr`` for it. (``epoch``, deprecated in PyTorch and taken
        with its warning: jump to that epoch, computing the rate in closed form where the schedule has one.)"""
        if self._step_count == 1 and not getattr(self.optimizer, "_opt_called", False):
            warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`: call them in the "
                          "opposite order (optimizer.step() in the epoch, then lr_scheduler.step()), or the first "
                          "value of the learning rate schedule is skipped.", UserWarning, stacklevel=2)
        groups = self.optimizer.param_groups
        if len(groups) != len(self.base_lrs):
            raise ValueError(f"the optimizer has {len(groups)} param groups, but the scheduler was built for "
                             f"{len(self.base_lrs)}: build the scheduler after add_param_group")
        if epoch is not None:
            warnings.warn(_EPOCH_DEPRECATED, UserWarning, stacklevel=2)
        self._step_count += 1
        last = self.last_epoch
        self.last_epoch = last + 1 if epoch is None else epoch
        try:
            closed_form = epoch is not None and hasattr(self, "_get_closed_form_lr")
            values = self._get_closed_form_lr() if closed_form else self.get_lr()
        except BaseException:   # (a schedule that fails, e.g. a LambdaLR's function: the epoch is not taken)
            self._step_count -= 1
            self.last_epoch = last
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


@contextlib.contextmanager
def _unchanged_on_error(groups):
    """Put every param group back as it was if the block raises (a scheduler that fails to build changes nothing)."""
    before = [(group, dict(group)) for group in groups]
    try:
        yield
    except BaseException:
        for group, saved in before:
            group.clear()
            group.update(saved)
        raise


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


class MultiplicativeLR(LambdaLR):
    """lr <- lr * lr_lambda(epoch) at each step after the first (one function for every group or one per group):
    the factors multiply, where ``LambdaLR``'s replace."""

    def get_lr(self):
        if not self._is_initial:   # (every step but the one building takes, also a step(0), as PyTorch's)
            return [lr * f(self.last_epoch) for f, lr in zip(self.lr_lambdas, self._current(), strict=True)]
        return self._current()


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

    def _get_closed_form_lr(self):
        return [base * self.gamma ** (self.last_epoch // self.step_size) for base in self.base_lrs]


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

    def _get_closed_form_lr(self):
        passed = bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [base * self.gamma ** passed for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """lr <- lr * gamma every epoch: base_lr * gamma^epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self._is_initial:
            return self._current()
        return [lr * self.gamma for lr in self._current()]

    def _get_closed_form_lr(self):
        return [base * self.gamma ** self.last_epoch for base in self.base_lrs]


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

    def _get_closed_form_lr(self):
        change = self.end_factor - self.start_factor
        return [base * (self.start_factor + change * min(self.total_iters, self.last_epoch) / self.total_iters)
                for base in self.base_lrs]


class ConstantLR(LRScheduler):
    """lr = base_lr * factor for the first ``total_iters`` epochs, then base_lr (a simple warm-up)."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError(f"Constant multiplicative factor expected to be between 0 and 1, got factor={factor}")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0:
            return [lr * self.factor for lr in self._current()]
        if self.last_epoch != self.total_iters:
            return self._current()
        return [lr * (1.0 / self.factor) for lr in self._current()]

    def _get_closed_form_lr(self):
        return [base * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """lr = base_lr * (1 - epoch/total_iters)^power, down to 0 at ``total_iters`` (and after); written as the ratio
    of one epoch's value to the last's, so it composes with other schedulers."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters, self.power = total_iters, power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self._is_initial or self.last_epoch > self.total_iters:
            return self._current()
        t, T = self.last_epoch, self.total_iters
        ratio = ((1.0 - t / T) / (1.0 - (t - 1) / T)) ** self.power
        return [lr * ratio for lr in self._current()]

    def _get_closed_form_lr(self):
        return [base * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power
                for base in self.base_lrs]


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

    def _get_closed_form_lr(self):
        low = self.eta_min
        return [low + (base - low) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base in self.base_lrs]


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

    def step(self, metrics, epoch=None):
        """Take this epoch's metric (a loss for mode="min"); reduce the lr if it has stopped improving.
        (``epoch``: deprecated in PyTorch, taken with its warning as the number of this epoch.)"""
        current = float(metrics)
        if epoch is not None:
            warnings.warn(_EPOCH_DEPRECATED, UserWarning, stacklevel=2)
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
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


class SequentialLR(LRScheduler):
    """Schedulers one after another: ``schedulers[0]`` until epoch ``milestones[0]``, then ``schedulers[1]``
    (started again from its base_lr there), and so on. A warm-up, then a decay::

        warmup = LinearLR(opt, start_factor=0.1, total_iters=5)
        decay = CosineAnnealingLR(opt, T_max=95)
        scheduler = SequentialLR(opt, [warmup, decay], milestones=[5])
    """

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        schedulers, milestones = list(schedulers), list(milestones)
        if not schedulers:
            raise ValueError("SequentialLR expects at least one scheduler, but got no scheduler.")
        _check_schedulers("SequentialLR", schedulers, optimizer)
        for i, scheduler in enumerate(schedulers):
            if i > 0 and hasattr(scheduler, "_schedulers"):
                raise ValueError(f"SequentialLR: schedulers[{i}] is a {type(scheduler).__name__}, which cannot start "
                                 f"again at a milestone: list its schedulers in this one instead (PyTorch fails "
                                 f"there)")
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(f"SequentialLR expects one milestone fewer than schedulers (the epochs where the next one "
                             f"takes over), but got {len(schedulers)} schedulers and {len(milestones)} milestones")
        self._schedulers, self._milestones = schedulers, milestones
        self.optimizer = optimizer
        self.last_epoch = last_epoch + 1
        for group in optimizer.param_groups:   # each scheduler took its first step when built: undo them
            group["lr"] = group["initial_lr"]
        _undo_first_steps(schedulers)
        first = schedulers[bisect_right(milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def step(self):
        """Move to the next epoch: step the scheduler in charge of it (a new one starts from its base_lr)."""
        self.last_epoch += 1
        i = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[i]
        try:
            if i > 0 and self._milestones[i - 1] == self.last_epoch:
                scheduler._restart()
            else:
                scheduler.step()
        except BaseException:   # (the scheduler took no step: neither does this one)
            self.last_epoch -= 1
            raise
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self):
        """As the base's, with each scheduler's own ``state_dict()`` under ``_schedulers``."""
        state = {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict):
        self.__dict__.update({key: value for key, value in state_dict.items() if key != "_schedulers"})
        for scheduler, saved in zip(self._schedulers, state_dict["_schedulers"], strict=True):
            scheduler.load_state_dict(saved)


def _check_schedulers(name, schedulers, optimizer):
    """Each is a scheduler of ``optimizer`` that steps without a metric (not ReduceLROnPlateau)."""
    for i, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{name}: schedulers[{i}] is a {type(scheduler).__name__}, not a scheduler")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(f"{name} does not support ReduceLROnPlateau (schedulers[{i}]): it steps on a metric, "
                             f"which {name}.step() does not take")
        if scheduler.optimizer is not optimizer:
            raise ValueError(f"{name} expects all schedulers to belong to the same optimizer, but schedulers[{i}] "
                             f"({type(scheduler).__name__}) adjusts another one")


def _undo_first_steps(schedulers):
    for scheduler in schedulers:
        if hasattr(scheduler, "_schedulers"):   # (a SequentialLR inside one: its own schedulers)
            _undo_first_steps(scheduler._schedulers)
        else:
            scheduler.last_epoch -= 1


def _per_group(name, optimizer, value):
    """One value per param group: ``value`` itself if it is a list or tuple of that many, else ``value`` repeated."""
    groups = optimizer.param_groups
    if isinstance(value, (list, tuple)):
        if len(value) != len(groups):
            raise ValueError(f"{name} must have one value per param group: got {len(value)} for the optimizer's "
                             f"{len(groups)} param groups")
        return list(value)
    return [value] * len(groups)


def _uses_beta1(optimizer):
    """Whether the momentum cycle moves Adam's beta1 (``group["betas"][0]``) rather than SGD's ``momentum``."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option enabled (use SGD "
                         "with momentum, or Adam), or pass cycle_momentum=False")
    return "betas" in optimizer.defaults


def _set_momentum(group, use_beta1, value):
    if use_beta1:
        group["betas"] = (value, *group["betas"][1:])
    else:
        group["momentum"] = value


class OneCycleLR(LRScheduler):
    """The 1cycle policy, stepped after every batch (``total_steps`` = epochs * steps_per_epoch in all): lr rises
    from max_lr/div_factor to max_lr over the first ``pct_start`` of the steps, then anneals to
    max_lr/(div_factor*final_div_factor) (a half cosine, or a line with ``anneal_strategy="linear"``), while the
    momentum (Adam: beta1) moves the opposite way between ``max_momentum`` and ``base_momentum``. With
    ``three_phase=True`` lr goes back down to its start symmetrically before the final anneal."""

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None, pct_start=0.3,
                 anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85, max_momentum=0.95, div_factor=25.0,
                 final_div_factor=1e4, three_phase=False, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        if total_steps is not None:
            if not isinstance(total_steps, int) or total_steps <= 0:
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
        elif epochs is not None and steps_per_epoch is not None:
            for name, value in (("epochs", epochs), ("steps_per_epoch", steps_per_epoch)):
                if not isinstance(value, int) or value <= 0:
                    raise ValueError(f"Expected positive integer {name}, but got {value}")
            total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch): the number of "
                             "optimizer steps the cycle spans")
        if not isinstance(pct_start, float) or not 0 <= pct_start <= 1:
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self.total_steps, self.anneal_strategy = total_steps, anneal_strategy
        # phases: (last step, lr from -> to, momentum from -> to), by the group entries that hold them
        up = float(pct_start * total_steps) - 1
        if three_phase:
            self._phases = [(up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                            (float(2 * pct_start * total_steps) - 2, "max_lr", "initial_lr", "base_momentum",
                             "max_momentum"),
                            (total_steps - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum")]
        else:
            self._phases = [(up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                            (total_steps - 1, "max_lr", "min_lr", "base_momentum", "max_momentum")]
        groups = optimizer.param_groups
        max_lrs = _per_group("max_lr", optimizer, max_lr)
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _uses_beta1(optimizer)
            max_momentums = _per_group("max_momentum", optimizer, max_momentum)
            base_momentums = _per_group("base_momentum", optimizer, base_momentum)
        with _unchanged_on_error(groups):
            if last_epoch == -1:
                for group, top in zip(groups, max_lrs, strict=True):
                    group["initial_lr"] = top / div_factor
                    group["max_lr"] = top
                    group["min_lr"] = group["initial_lr"] / final_div_factor
                if cycle_momentum:
                    for group, top, low in zip(groups, max_momentums, base_momentums, strict=True):
                        _set_momentum(group, self.use_beta1, top)
                        group["max_momentum"], group["base_momentum"] = top, low
            super().__init__(optimizer, last_epoch)

    @staticmethod
    def _anneal(start, end, pct, strategy):
        """From ``start`` (pct 0) to ``end`` (pct 1): along half a cosine, or a line."""
        if strategy == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self):
        t = self.last_epoch
        if t > self.total_steps:
            raise ValueError(f"Tried to step {t} times. The specified number of total steps is {self.total_steps}: "
                             f"OneCycleLR steps once per batch, for total_steps = epochs * steps_per_epoch in all")
        lrs = []
        for group in self.optimizer.param_groups:
            start = 0.0
            for i, (end, lr_from, lr_to, m_from, m_to) in enumerate(self._phases):
                if t <= end or i == len(self._phases) - 1:
                    pct = (t - start) / (end - start)
                    lrs.append(self._anneal(group[lr_from], group[lr_to], pct, self.anneal_strategy))
                    if self.cycle_momentum:
                        _set_momentum(group, self.use_beta1,
                                      self._anneal(group[m_from], group[m_to], pct, self.anneal_strategy))
                    break
                start = end
        return lrs


class CyclicLR(LRScheduler):
    """A cyclical learning rate, stepped after every batch: lr goes linearly from ``base_lr`` up to ``max_lr`` in
    ``step_size_up`` steps and back down in ``step_size_down`` (default: the same), the height scaled per cycle by
    ``mode``: "triangular" (1), "triangular2" (halved each cycle), "exp_range" (gamma^step); or by your
    ``scale_fn`` of the cycle (``scale_mode="cycle"``) or of the step ("iterations"). The momentum (Adam: beta1)
    cycles the opposite way between ``max_momentum`` and ``base_momentum``."""

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None, mode="triangular",
                 gamma=1.0, scale_fn=None, scale_mode="cycle", cycle_momentum=True, base_momentum=0.8,
                 max_momentum=0.9, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        groups = optimizer.param_groups
        base_lrs = _per_group("base_lr", optimizer, base_lr)
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        if step_size_up + step_size_down <= 0:
            raise ValueError(f"CyclicLR: a cycle needs at least one step, got step_size_up={step_size_up} and "
                             f"step_size_down={step_size_down}")
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError(f"mode is invalid and scale_fn is None: mode must be 'triangular', 'triangular2' or "
                             f"'exp_range' (got {mode!r}), or give scale_fn")
        self.mode, self.gamma, self.scale_mode = mode, gamma, scale_mode
        self._scale_fn_custom = scale_fn
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _uses_beta1(optimizer)
            self.base_momentums = _per_group("base_momentum", optimizer, base_momentum)
            self.max_momentums = _per_group("max_momentum", optimizer, max_momentum)
        with _unchanged_on_error(groups):
            if last_epoch == -1:
                for group, lr in zip(groups, base_lrs, strict=True):
                    group["lr"] = lr
                if cycle_momentum:
                    for group, top, low in zip(groups, self.max_momentums, self.base_momentums, strict=True):
                        _set_momentum(group, self.use_beta1, top)
                        group["max_momentum"], group["base_momentum"] = top, low
            super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self):
        if self._scale_fn_custom is None and self.mode in ("triangular", "triangular2"):
            self.scale_mode = "cycle"
        elif self._scale_fn_custom is None:   # exp_range
            self.scale_mode = "iterations"

    def scale_fn(self, x):
        """The height's scale at cycle (or step) ``x``: 1, 1/2^(x - 1), gamma^x, or your ``scale_fn(x)``."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma ** x

    def get_lr(self):
        t = self.last_epoch
        cycle = math.floor(1 + t / self.total_size)
        x = 1.0 + t / self.total_size - cycle   # where in the cycle, 0..1
        height = x / self.step_ratio if x <= self.step_ratio else (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else t)
        lrs = [base + (top - base) * height * scale for base, top in zip(self.base_lrs, self.max_lrs, strict=True)]
        if self.cycle_momentum:
            for group, low, top in zip(self.optimizer.param_groups, self.base_momentums, self.max_momentums,
                                       strict=True):
                _set_momentum(group, self.use_beta1, top - (top - low) * height * scale)
        return lrs

    def state_dict(self):
        """As the base's; ``scale_fn`` as None for a function, its attributes for a callable object."""
        state = super().state_dict()
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = None if fn is None or isinstance(fn, types.FunctionType) else dict(fn.__dict__)
        return state

    def load_state_dict(self, state_dict):
        state = dict(state_dict)
        fn = state.pop("_scale_fn_custom", None)
        super().load_state_dict(state)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()


class CosineAnnealingWarmRestarts(LRScheduler):
    """SGDR: lr = eta_min + (base_lr - eta_min) * (1 + cos(pi * T_cur / T_i)) / 2, where T_cur counts the epochs
    since the last restart and each period is ``T_mult`` times the one before (the first: ``T_0``). As in
    PyTorch, ``step(epoch)`` also takes a fractional epoch (``epoch + batch / batches``) to anneal within one."""

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        if T_0 <= 0 or not isinstance(T_0, int):   # (in PyTorch's order: T_0=None is a TypeError, 2.0 a ValueError)
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}")
        self.T_0, self.T_i, self.T_mult, self.eta_min = T_0, T_0, T_mult, eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [self.eta_min + (base - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
                for base in self.base_lrs]

    def step(self, epoch=None):
        """The next epoch, or ``epoch`` (a number of epochs since the start, fractions allowed)."""
        if len(self.optimizer.param_groups) != len(self.base_lrs):
            raise ValueError(f"the optimizer has {len(self.optimizer.param_groups)} param groups, but the scheduler "
                             f"was built for {len(self.base_lrs)}: build the scheduler after add_param_group")
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:   # a restart: the next period is T_mult times longer
                self.T_cur %= self.T_i
                self.T_i *= self.T_mult
        elif epoch < 0:
            raise ValueError(f"Expected non-negative epoch, but got {epoch}")
        elif epoch >= self.T_0:
            if self.T_mult == 1:
                self.T_cur = epoch % self.T_0
            else:   # the restarts before epoch: T_0 * (T_mult^n - 1)/(T_mult - 1) epochs in all
                n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                self.T_i = self.T_0 * self.T_mult ** n
        else:
            self.T_i, self.T_cur = self.T_0, epoch
        self.last_epoch = math.floor(epoch)
        for group, lr in zip(self.optimizer.param_groups, self.get_lr(), strict=True):
            group["lr"] = lr
        self._last_lr = self._current()


class ChainedScheduler(LRScheduler):
    """Several schedulers of one optimizer stepped together, in order: ``ChainedScheduler([warmup, decay])``'s
    ``step()`` steps each (their chainable updates compose)."""

    def __init__(self, schedulers, optimizer=None):
        schedulers = list(schedulers)
        if not schedulers:
            raise ValueError("ChainedScheduler expects at least one scheduler to be chained, but got no scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers("ChainedScheduler", schedulers, optimizer)
        self._schedulers, self.optimizer = schedulers, optimizer
        self._last_lr = self._current()

    def step(self):
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = self._current()

    state_dict = SequentialLR.state_dict
    load_state_dict = SequentialLR.load_state_dict
