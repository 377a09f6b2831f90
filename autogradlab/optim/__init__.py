"""Optimizers with PyTorch's names, options and update formulas.

    opt = optim.Adam(model.parameters(), lr=0.01)
    for xb, yb in loader:
        opt.zero_grad()
        F.cross_entropy(model(xb), yb).backward()
        opt.step()

``optim.lr_scheduler`` holds the learning-rate schedules (``StepLR``, ``CosineAnnealingLR``, ...).
"""
from . import lr_scheduler
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "lr_scheduler"]
