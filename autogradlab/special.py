"""``autogradlab.special``: the names of ``torch.special`` that lab code uses, so ``torch.special.expit(z)``
ports by changing the import. Each is an op or function of the main package under this name."""
from __future__ import annotations

from .ops.elementwise import erf, exp2, expm1, log1p, round, sigmoid
from .ops.reduce import log_softmax, logsumexp, softmax
from .ops.special import logit, sinc, xlogy

expit = sigmoid

__all__ = ["expit", "logit", "xlogy", "erf", "exp2", "expm1", "log1p", "sinc", "round", "softmax", "log_softmax",
           "logsumexp"]
