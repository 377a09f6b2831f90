"""``autogradlab.autograd``: the PyTorch-shaped autograd API.

``backward`` and ``grad`` (the engine), ``Function`` (custom ops), grad-mode
switches, anomaly mode, ``gradcheck`` / ``gradgradcheck``, the submodules
``graph`` and ``functional``, and the deprecated ``Variable``.
"""
from ..anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from ..engine import backward, grad
from ..function import Function, FunctionCtx
from ..grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from ..testing import GradcheckError, gradcheck, gradgradcheck
from . import function, functional, graph
from .function import once_differentiable
from .variable import Variable

__all__ = ["backward", "grad", "Function", "FunctionCtx", "no_grad", "enable_grad", "set_grad_enabled",
           "is_grad_enabled", "detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "gradcheck", "gradgradcheck", "GradcheckError", "functional", "graph", "inference_mode", "Variable",
           "function", "once_differentiable"]
