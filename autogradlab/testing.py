"""Numerical checks of analytic gradients: ``gradcheck`` and ``gradgradcheck``.

Both compare the engine's vector-Jacobian products against central finite
differences, (f(x + eps) - f(x - eps)) / (2 eps), one input element at a time
(a complex element twice: along x and along y). Use float64 (or complex128)
inputs: float32 finite differences are too noisy to be an oracle.
"""
from __future__ import annotations

import numpy

from . import backend
from .tensor import Tensor

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """An analytic gradient disagrees with the finite-difference one."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _outputs(func, inputs):
    return _as_tuple(func(*inputs))


def _real_coordinates(array):
    """The real numbers a host array holds, flattened: itself, or for complex numbers the real parts then
    the imaginary ones (a complex tensor is checked as the pair (x, y), as PyTorch's gradcheck does)."""
    flat = array.reshape(-1)
    if array.dtype.kind == "c":
        return numpy.concatenate([flat.real, flat.imag]).astype(numpy.float64)
    return flat.astype(numpy.float64)


def _numerical_jacobian(func, inputs, out_index, eps):
    """J[i] has shape (real coordinates of the output, real coordinates of inputs[i]) for each differentiable
    input i: ``numel`` coordinates for a real tensor, ``2 * numel`` (x then y) for a complex one."""
    jacobians = []
    # grad mode stays on: func may itself differentiate (gradgradcheck)
    out0 = _outputs(func, inputs)[out_index]
    rows = out0.numel() * (2 if out0.dtype.kind == "c" else 1)
    for t in inputs:
        if not (isinstance(t, Tensor) and t.requires_grad):
            jacobians.append(None)
            continue
        original = t._data
        t._data = original.copy()      # contiguous, so reshape(-1) is a view we can perturb in place
        flat = t._data.reshape(-1)
        steps = (eps, eps * 1j) if t.dtype.kind == "c" else (eps,)   # (x, then y, of each complex element)
        jac = numpy.zeros((rows, t.numel() * len(steps)))
        try:
            for s, step in enumerate(steps):
                for j in range(t.numel()):
                    orig = flat[j].item()
                    flat[j] = orig + step
                    plus = _real_coordinates(backend.to_host(_outputs(func, inputs)[out_index]._data))
                    flat[j] = orig - step
                    minus = _real_coordinates(backend.to_host(_outputs(func, inputs)[out_index]._data))
                    flat[j] = orig
                    jac[:, s * t.numel() + j] = (plus - minus) / (2 * eps)
        finally:
            t._data = original
        jacobians.append(jac)
    return jacobians


def _analytic_jacobian(func, inputs, out_index):
    """The same Jacobians from backward passes: a seed per real coordinate of the output (1 at an element of a
    real output; 1 or i at one of a complex output, whose gradient is then that of its real or imaginary
    part), read back as each input's real coordinates (for a complex input dL/dx + i dL/dy: x, then y)."""
    from .engine import grad
    diff = [t for t in inputs if isinstance(t, Tensor) and t.requires_grad]
    out = _outputs(func, inputs)[out_index]
    parts = (1, 1j) if out.dtype.kind == "c" else (1,)
    n = out.numel()
    jac = [numpy.zeros((n * len(parts), t.numel() * (2 if t.dtype.kind == "c" else 1))) for t in diff]
    if not out.requires_grad:   # no input reaches it: its Jacobian is 0
        return jac
    for p, unit in enumerate(parts):
        for k in range(n):
            seed = numpy.zeros(n, dtype=out.dtype)
            seed[k] = unit
            v = Tensor._make(backend.asarray(seed.reshape(out.shape), out.device), False, None, out.device)
            grads = grad(out, diff, v, retain_graph=True, allow_unused=True)
            for j, gr in enumerate(grads):
                if gr is not None:
                    jac[j][p * n + k] = _real_coordinates(backend.to_host(gr._data))
    return jac


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True):
    """True if every analytic Jacobian of ``func`` at ``inputs`` matches finite differences."""
    inputs = _as_tuple(inputs)
    diff_inputs = [t for t in inputs if isinstance(t, Tensor) and t.requires_grad]
    for i, t in enumerate(diff_inputs):
        if t.dtype not in (numpy.float64, numpy.complex128):
            import warnings
            wide = "complex128" if t.dtype.kind == "c" else "float64"
            warnings.warn(f"gradcheck: input {i} is {t.dtype.name}, not {wide}; finite differences "
                          f"may be too imprecise for the check to be meaningful", UserWarning, stacklevel=2)
    outs = _outputs(func, inputs)
    # as PyTorch's: the outputs that require grad are checked; only when none does, all of them (their
    # Jacobian is 0, which finite differences must confirm)
    checked = [o for o, out in enumerate(outs) if out.requires_grad] or range(len(outs))
    for o in checked:
        numerical = [j for j in _numerical_jacobian(func, inputs, o, eps) if j is not None]
        analytic = _analytic_jacobian(func, inputs, o)
        for i, (num, ana) in enumerate(zip(numerical, analytic)):
            if not numpy.allclose(ana, num, atol=atol, rtol=rtol):
                bad = numpy.unravel_index(numpy.argmax(numpy.abs(ana - num)), ana.shape)
                msg = (f"Jacobian mismatch for output {o} with respect to input {i}: at (output element "
                       f"{bad[0]}, input element {bad[1]}) analytic {ana[bad]:.6g} vs numerical "
                       f"{num[bad]:.6g}\nnumerical:\n{num}\nanalytic:\n{ana}")
                if raise_exception:
                    raise GradcheckError(msg)
                return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  raise_exception=True):
    """Check second derivatives: gradcheck of (inputs, v) -> VJP of ``func`` with ``create_graph=True``."""
    from .engine import grad
    inputs = _as_tuple(inputs)
    outs = _outputs(func, inputs)
    if grad_outputs is None:  # a private generator: the user's random stream is left alone
        rng = numpy.random.default_rng(0)
        grad_outputs = tuple(
            Tensor._make(backend.asarray(rng.standard_normal(o.shape) + (1j * rng.standard_normal(o.shape)
                                                                         if o.dtype.kind == "c" else 0),
                                         o.device, o.dtype), True, None, o.device)
            for o in outs)
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)
    diff_positions = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]

    def vjp_fn(*args):
        xs, vs = args[:n_in], args[n_in:]
        ys = _outputs(func, xs)
        diff = [xs[i] for i in diff_positions]
        gs = grad(ys, diff, vs, create_graph=True, allow_unused=True, materialize_grads=True)
        return tuple(gs)

    return gradcheck(vjp_fn, tuple(inputs) + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
