"""Neural-network building blocks with PyTorch's names: ``Module``, ``Parameter``, layers,
losses, ``nn.init`` and ``nn.functional``.

    import autogradlab.nn as nn
    model = nn.MLP([2, 32, 32, 2])          # = nn.Sequential(nn.Linear(2, 32), nn.ReLU(), ...)
    loss = nn.functional.cross_entropy(model(X), y)
"""
from . import functional, init  # noqa: F401
from .layers import (MLP, BCEWithLogitsLoss, CrossEntropyLoss, Dropout, Identity, Linear, LogSoftmax, ModuleList,
                     MSELoss, ReLU, Sequential, Sigmoid, Softmax, Tanh)
from .module import Module
from .parameter import Parameter

__all__ = ["Module", "Parameter", "Linear", "ReLU", "Tanh", "Sigmoid", "Identity", "Softmax", "LogSoftmax",
           "Dropout", "Sequential", "ModuleList", "MLP", "MSELoss", "CrossEntropyLoss", "BCEWithLogitsLoss", "functional", "init"]
