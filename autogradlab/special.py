"""``autogradlab.special``: the names of ``torch.special``, so ``torch.special.expit(z)`` ports by changing the
import. Each is an op or function of the main package under this name (``gammaln`` is ``lgamma``, ``psi`` is
``digamma``, ``multigammaln`` is ``mvlgamma``, ``expit`` is ``sigmoid``)."""
from __future__ import annotations

from .ops.elementwise import erf, exp2, expm1, log1p, round, sigmoid
from .ops.reduce import log_softmax, logsumexp, softmax
from .ops.special import entr, logit, sinc, xlog1py, xlogy
from .ops.special_functions import (digamma, erfc, erfcx, erfinv, gammainc, gammaincc, i0, i0e, i1, i1e, lgamma,
                                    log_ndtr, mvlgamma, ndtr, ndtri, polygamma, zeta)

expit = sigmoid
gammaln = lgamma
psi = digamma
multigammaln = mvlgamma

__all__ = ["expit", "logit", "xlogy", "xlog1py", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expm1", "log1p",
           "sinc", "round", "softmax", "log_softmax", "logsumexp", "gammaln", "digamma", "psi", "polygamma",
           "multigammaln", "zeta", "gammainc", "gammaincc", "ndtr", "ndtri", "log_ndtr", "i0", "i0e", "i1", "i1e"]
