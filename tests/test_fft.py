"""``autogradlab.fft`` against ``torch.fft``: values, dtypes and gradients (real and complex inputs, every norm,
``n=``/``s=`` padding and cutting, chosen dims), second derivatives, and errors."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import import_torch

import autogradlab as ag

torch = import_torch()


def same(ours, theirs, rtol=1e-10, atol=1e-11):
    theirs = theirs.detach()
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
    np.testing.assert_allclose(ours.detach().numpy(), theirs.resolve_conj().numpy(), rtol=rtol, atol=atol)


CASES = {
    "fft": lambda T, a, norm: T.fft.fft(a, norm=norm),
    "fft_n_pad": lambda T, a, norm: T.fft.fft(a, n=11, norm=norm),
    "fft_n_cut": lambda T, a, norm: T.fft.fft(a, n=5, dim=0, norm=norm),
    "ifft": lambda T, a, norm: T.fft.ifft(a, norm=norm),
    "fft2": lambda T, a, norm: T.fft.fft2(a, norm=norm),
    "fft2_s": lambda T, a, norm: T.fft.fft2(a, s=(4, 9), norm=norm),
    "ifft2": lambda T, a, norm: T.fft.ifft2(a, norm=norm),
    "fftn": lambda T, a, norm: T.fft.fftn(a, norm=norm),
    "fftn_dim": lambda T, a, norm: T.fft.fftn(a, dim=(0,), norm=norm),
    "ifftn_s": lambda T, a, norm: T.fft.ifftn(a, s=(3, 5), norm=norm),
    "shifted": lambda T, a, norm: T.fft.fftshift(T.fft.fft(a, norm=norm), dim=-1),
    "round_trip": lambda T, a, norm: T.fft.ifft(T.fft.fft(a, norm=norm) * T.fft.fft(a), norm=norm),
    "hfft": lambda T, a, norm: T.fft.hfft(a, norm=norm),
    "hfft_n_odd": lambda T, a, norm: T.fft.hfft(a, n=9, dim=0, norm=norm),
    "hfft2_s": lambda T, a, norm: T.fft.hfft2(a, s=(4, 6), norm=norm),
    "hfftn": lambda T, a, norm: T.fft.hfftn(a, norm=norm),
}
REAL_CASES = {
    "rfft": lambda T, a, norm: T.fft.rfft(a, norm=norm),
    "rfft_n": lambda T, a, norm: T.fft.rfft(a, n=9, norm=norm),
    "rfft2": lambda T, a, norm: T.fft.rfft2(a, norm=norm),
    "rfftn_s": lambda T, a, norm: T.fft.rfftn(a, s=(5, 6), norm=norm),
    "irfft_even": lambda T, a, norm: T.fft.irfft(T.fft.rfft(a) * (1 + 0.5j), norm=norm),
    "irfft_odd": lambda T, a, norm: T.fft.irfft(T.fft.fft(a)[..., :4], n=7, norm=norm),
    "irfft_complex_in": lambda T, a, norm: T.fft.irfft(T.fft.fft(a) * 1j, norm=norm),
    "irfft2": lambda T, a, norm: T.fft.irfft2(T.fft.rfft2(a) ** 2, norm=norm),
    "irfftn_s": lambda T, a, norm: T.fft.irfftn(T.fft.fft2(a), s=(4, 6), norm=norm),
    "irfftn_s_minus_1": lambda T, a, norm: T.fft.irfftn(T.fft.fft2(a), s=(-1, 5), norm=norm),
    "ifftshift": lambda T, a, norm: T.fft.ifftshift(T.fft.rfft(a, norm=norm)),
    "ihfft": lambda T, a, norm: T.fft.ihfft(a, norm=norm),
    "ihfft_n": lambda T, a, norm: T.fft.ihfft(a, n=5, dim=0, norm=norm),
    "ihfft2": lambda T, a, norm: T.fft.ihfft2(a, norm=norm),
    "ihfftn_s": lambda T, a, norm: T.fft.ihfftn(a, s=(4, 7), norm=norm),
    "hfft_of_ihfft": lambda T, a, norm: T.fft.hfft(T.fft.ihfft(a, norm=norm), n=8, norm=norm),
}


def _run(case, data, norm):
    """The case's value and its input's gradient of a real weighting of the output, in both libraries."""
    out = []
    rng = np.random.default_rng(3)
    weights = None
    for T in (ag, torch):
        a = T.tensor(data, requires_grad=True)
        y = case(T, a, norm)
        if weights is None:
            weights = rng.standard_normal(tuple(y.shape)) + (1j * rng.standard_normal(tuple(y.shape))
                                                             if y.dtype in (ag.complex64, ag.complex128) else 0)
        s = (y * T.tensor(weights)).sum()
        (s.real if s.dtype in (T.complex64, T.complex128) else s).backward()
        out.append((y, a.grad))
    return out


@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("kind", ["real", "complex"])
def test_complex_transforms_as_torch(name, norm, kind):
    rng = np.random.default_rng(len(name))
    data = rng.standard_normal((6, 8)) + (1j * rng.standard_normal((6, 8)) if kind == "complex" else 0)
    (y, g), (ty, tg) = _run(CASES[name], data, norm)
    same(y, ty)
    same(g, tg)


@pytest.mark.parametrize("norm", [None, "ortho", "forward"])
@pytest.mark.parametrize("name", list(REAL_CASES))
def test_real_transforms_as_torch(name, norm):
    data = np.random.default_rng(len(name)).standard_normal((6, 8))
    (y, g), (ty, tg) = _run(REAL_CASES[name], data, norm)
    same(y, ty)
    same(g, tg)


def test_float32_stays_single_precision_as_torch():
    data = np.random.default_rng(0).standard_normal(8).astype(np.float32)
    same(ag.fft.fft(ag.tensor(data)), torch.fft.fft(torch.tensor(data)), rtol=1e-5, atol=1e-5)
    same(ag.fft.irfft(ag.fft.rfft(ag.tensor(data))), torch.fft.irfft(torch.fft.rfft(torch.tensor(data))),
         rtol=1e-5, atol=1e-5)


def test_second_derivative_through_the_transforms_as_torch():
    data = np.random.default_rng(5).standard_normal(8)
    grads = []
    for T in (ag, torch):
        x = T.tensor(data, requires_grad=True)
        power = T.fft.rfft(T.sin(x)).abs() ** 2
        (g,) = T.autograd.grad(power.sum() + T.fft.irfft(T.fft.rfft(x * x)).sum(), x, create_graph=True)
        (g * g).sum().backward()
        grads.append(x.grad)
    same(*grads)


def test_parseval_by_the_gradient_without_torch():
    """sum |fft(x)|^2 = n sum |x|^2, so its gradient is 2 n x (an identity, not a comparison)."""
    x = ag.tensor(np.random.default_rng(1).standard_normal(16) + 1j, requires_grad=True)
    (ag.fft.fft(x).abs() ** 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * 16 * x.detach().numpy(), rtol=1e-12)


def test_frequencies_and_shifts_as_torch():
    for n, d in ((5, 1.0), (6, 0.5), (1, 2.0)):
        same(ag.fft.fftfreq(n, d), torch.fft.fftfreq(n, d))
        same(ag.fft.rfftfreq(n, d), torch.fft.rfftfreq(n, d))
    a = np.arange(12.0).reshape(3, 4)
    same(ag.fft.fftshift(ag.tensor(a)), torch.fft.fftshift(torch.tensor(a)))
    same(ag.fft.ifftshift(ag.tensor(a), dim=0), torch.fft.ifftshift(torch.tensor(a), dim=0))
    assert ag.fft.fftfreq(4, dtype=ag.float64).dtype == ag.float64


def test_integer_input_is_transformed_in_the_default_float_as_torch():
    same(ag.fft.fft(ag.arange(4)), torch.fft.fft(torch.arange(4)), rtol=1e-6)


@pytest.mark.parametrize("call, error", [
    (lambda T: T.fft.fft(T.ones(4), norm="bad"), RuntimeError),
    (lambda T: T.fft.fft(T.ones(4), n=0), RuntimeError),
    (lambda T: T.fft.rfft(T.ones(4) * 1j), RuntimeError),
    (lambda T: T.fft.fft(T.ones(4), dim=2), IndexError),
    (lambda T: T.fft.fftn(T.ones(4, 4), s=(4,), dim=(0, 1)), RuntimeError),
    (lambda T: T.fft.fftn(T.ones(4, 4), s=(2, 3, 4)), RuntimeError),
    (lambda T: T.fft.irfftn(T.ones(4, 6), dim=(0, 5)), IndexError),
    (lambda T: T.fft.irfftn(T.ones(4, 6), dim=(0, 0)), RuntimeError),
    (lambda T: T.fft.irfftn(T.ones(4, 6), s=(4,), dim=(0, 1)), RuntimeError),
    (lambda T: T.fft.fft(T.ones(4, dtype=T.float16)), RuntimeError),
    (lambda T: T.fft.ihfft(T.ones(4) * 1j), RuntimeError),
    (lambda T: T.fft.hfft(T.ones(4), norm="bad"), RuntimeError),
    (lambda T: T.fft.hfft(T.ones(4), n=-1), RuntimeError),
    (lambda T: T.fft.fft(T.ones(4), n=-1), RuntimeError),
    (lambda T: T.fft.hfftn(T.ones(4), dim=()), RuntimeError),
    (lambda T: T.fft.rfftn(T.ones(4), dim=()), RuntimeError),
])
def test_bad_arguments_raise_as_torch(call, error):
    with pytest.raises(error):
        call(torch)
    with pytest.raises(error):
        call(ag)
