"""``autogradlab.special``: the names of ``torch.special``, so ``torch.special.expit(z)`` ports by changing the
import. Each is an op or function of the main package under this name (``gammaln`` is ``lgamma``, ``psi`` is
``digamma``, ``multigammaln`` is ``mvlgamma``, ``expit`` is ``sigmoid``, ``modified_bessel_i0`` is ``i0``); the
orthogonal polynomials are in ``ops/polynomials.py``."""
from __future__ import annotations

from .ops.elementwise import erf, exp2, expm1, log1p, round, sigmoid
from .ops.polynomials import (chebyshev_polynomial_t, chebyshev_polynomial_u, chebyshev_polynomial_v,
                              chebyshev_polynomial_w, hermite_polynomial_h, hermite_polynomial_he, laguerre_polynomial_l,
                              legendre_polynomial_p, shifted_chebyshev_polynomial_t, shifted_chebyshev_polynomial_u,
                              shifted_chebyshev_polynomial_v, shifted_chebyshev_polynomial_w)
from .ops.reduce import log_softmax, logsumexp, softmax
from .ops.special import entr, logit, sinc, spherical_bessel_j0, xlog1py, xlogy
from .ops.special_functions import (bessel_j0, bessel_j1, bessel_y0, bessel_y1, digamma, erfc, erfcx, erfinv,
                                    gammainc, gammaincc, i0, i0e, i1, i1e, lgamma, log_ndtr, modified_bessel_k0,
                                    modified_bessel_k1, mvlgamma, ndtr, ndtri, polygamma, scaled_modified_bessel_k0,
                                    scaled_modified_bessel_k1, zeta)

expit = sigmoid
gammaln = lgamma
psi = digamma
multigammaln = mvlgamma
modified_bessel_i0 = i0
modified_bessel_i1 = i1

__all__ = ["expit", "logit", "xlogy", "xlog1py", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expm1", "log1p",
           "sinc", "round", "softmax", "log_softmax", "logsumexp", "gammaln", "digamma", "psi", "polygamma",
           "multigammaln", "zeta", "gammainc", "gammaincc", "ndtr", "ndtri", "log_ndtr", "i0", "i0e", "i1", "i1e",
           "modified_bessel_i0", "modified_bessel_i1", "chebyshev_polynomial_t", "chebyshev_polynomial_u",
           "chebyshev_polynomial_v", "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
           "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w",
           "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p",
           "spherical_bessel_j0", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_k0", "modified_bessel_k1",
           "scaled_modified_bessel_k0", "scaled_modified_bessel_k1"]
