"""Optimizers with PyTorch's names, options and update formulas.

    opt = optim.Adam(model.parameters(), lr=0.01)
    for xb, yb in loader:
        opt.zero_grad()
        F.cross_entropy(model(xb), yb).backward()
        opt.step()

``SGD`` (momentum, Nesterov), ``Adam`` and ``AdamW`` and their variants ``Adamax``, ``NAdam`` and ``RAdam``,
the adaptive ``RMSprop``, ``Adagrad`` and ``Adadelta``, which scale each coordinate's step by a running
average (or sum) of its squared gradients, ``ASGD`` (SGD that also averages its iterates), and the
quasi-Newton ``LBFGS`` (``step(closure)``).
``optim.lr_scheduler`` holds the learning-rate schedules (``StepLR``, ``CosineAnnealingLR``, ...).
"""
from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adam_variants import Adamax, NAdam, RAdam
from .asgd import ASGD
from .lbfgs import LBFGS
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "Adamax", "NAdam", "RAdam", "RMSprop", "Rprop", "Adagrad", "Adadelta",
           "ASGD", "LBFGS", "lr_scheduler"]
