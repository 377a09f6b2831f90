"""FFTs and complex autograd against torch 2.13: what a differential check of about 7,600 cases found wrong,
each fixed and checked side by side."""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from conftest import host, import_torch
from torch_compare import both_raise

import autogradlab as ag

torch = import_torch()


@pytest.mark.parametrize("through", ["abs", "vector_norm 1"])
@pytest.mark.parametrize("z", [0j, 1 + 2j])
def test_complex_abs_second_derivative_at_zero_is_torchs(through, z):
    """Recorded, abs's VJP at z = 0 was g * z / 1, whose derivative is g: torch's (that of sgn at 0) is 0."""
    def run(T):
        x = T.tensor([z], dtype=T.complex128, requires_grad=True)
        y = x.abs().sum() if through == "abs" else T.linalg.vector_norm(x, 1)
        (g,) = T.autograd.grad(y, x, create_graph=True)
        return T.autograd.grad((g * T.tensor([1 - 2j], dtype=T.complex128)).real.sum(), x)[0]
    np.testing.assert_allclose(host(run(ag)), run(torch).numpy(), atol=1e-12)


def test_a_write_into_a_real_view_of_a_complex_tensor_backpropagates_without_a_warning():
    """The backward of z.real.mul_(2) made complex zeros for the real view and NumPy warned casting them."""
    x = ag.tensor([1 + 2j, 3 - 1j], requires_grad=True)
    z = x * 1
    z.real.mul_(2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        z.abs().sum().backward()
    tx = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
    tz = tx * 1
    tz.real.mul_(2)
    tz.abs().sum().backward()
    np.testing.assert_allclose(host(x.grad), tx.grad.numpy(), rtol=1e-6)


@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
def test_the_frequencies_are_torchs_to_the_last_bit(name):
    """torch multiplies k, in the dtype, by 1/(n d): k/(d n) in float64, then cast, differed in 515 of 826
    cases (rfftfreq(6, 0.1)'s last is 5.0, not 4.999999999999999); n = 0 and a tiny d give its NaN too."""
    for n, d, dtype in itertools.product(range(0, 24), [1.0, 0.1, 0.3, 2.5, 1e-3, 7.0, 1e-300, -0.5],
                                         ["float16", "float32", "float64"]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours = getattr(ag.fft, name)(n, d, dtype=getattr(ag, dtype))
            theirs = getattr(torch.fft, name)(n, d, dtype=getattr(torch, dtype))
        np.testing.assert_array_equal(host(ours), theirs.numpy(), err_msg=f"{name}({n}, {d}, {dtype})")


@pytest.mark.parametrize("call", [
    lambda T: T.fft.fft(T.tensor(3.0)), lambda T: T.fft.rfft(T.tensor(3.0)), lambda T: T.fft.ihfft(T.tensor(3.0)),
    lambda T: T.fft.fftfreq(5, 1j), lambda T: T.fft.fftfreq(5, dtype=T.complex64),
], ids=["fft of 0-d", "rfft of 0-d", "ihfft of 0-d", "fftfreq complex d", "fftfreq complex dtype"])
def test_what_torch_refuses_is_refused(call):
    both_raise(lambda: call(ag), lambda: call(torch))


def test_the_n_dimensional_transforms_of_a_0_d_tensor_and_a_tensor_spacing_are_torchs():
    """fftn of a 0-d tensor is itself (only the 1-d transforms refuse one); fftfreq takes a 0-d tensor or a bool
    as the spacing."""
    for name in ("fftn", "ifftn"):
        assert getattr(ag.fft, name)(ag.tensor(2.0)).item() == getattr(torch.fft, name)(torch.tensor(2.0)).item()
    for name in ("rfftn", "irfftn", "hfftn"):
        both_raise(lambda: getattr(ag.fft, name)(ag.tensor(2.0)), lambda: getattr(torch.fft, name)(torch.tensor(2.0)))
    np.testing.assert_array_equal(host(ag.fft.fftfreq(4, ag.tensor(0.5))), torch.fft.fftfreq(4, torch.tensor(0.5)))
    np.testing.assert_array_equal(host(ag.fft.fftfreq(4, True)), torch.fft.fftfreq(4, True))
