"""Complex tensors: dtypes, promotion and printing as PyTorch's, and gradients by PyTorch's convention
(``z.grad`` of a real loss is ``dL/dx + i dL/dy``), checked against torch and against finite differences."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import import_torch

import autogradlab as ag

torch = import_torch()
RNG = np.random.default_rng(7)


def _complex(*shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def shown(t):
    """``repr(t)`` as a CPU tensor prints (the stand-in GPU's runs add its device)."""
    return repr(t).replace(", device='cuda:0'", "")


def same(ours, theirs, rtol=1e-10, atol=1e-12):
    """Same shape, dtype and values, complex parts included."""
    theirs = theirs.detach()
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
    np.testing.assert_allclose(ours.detach().numpy(), theirs.resolve_conj().numpy(), rtol=rtol, atol=atol)


def _real_loss(T, y, w):
    """A real number made of ``y`` with weights ``w``: Re(sum(y * w)) (or sum(y * w) for a real ``y``)."""
    s = (y * w).sum()
    return s.real if s.dtype in (T.complex64, T.complex128) else s


# -- dtypes, creation, promotion, printing ---------------------------------------------------------------

@pytest.mark.parametrize("data, dtype", [(1j, None), ([1, 2j], None), ([1.5, 2 + 1j], None),
                                         ([1j, 2], "complex128"), (np.array([1j], np.complex64), None),
                                         (np.array([1 + 1j]), None)])
def test_creation_dtypes_and_printing_as_torch(data, dtype):
    ours = ag.tensor(data, dtype=None if dtype is None else getattr(ag, dtype))
    theirs = torch.tensor(data, dtype=None if dtype is None else getattr(torch, dtype))
    same(ours, theirs)
    assert shown(ours) == repr(theirs).replace("torch.", "")   # (a dtype prints as autogradlab names it)
    assert ag.is_complex(ours) and ours.is_complex()


@pytest.mark.parametrize("values", [[0.4472 + 0.8944j, 0.9487 - 0.3162j], [[1e-5 + 1j, 100 - 3j], [2, 5j]],
                                    [1.5 + 1j] * 20, [float("inf") + 1j, float("nan") - 2j]])
def test_repr_as_torch(values):
    assert shown(ag.tensor(values, device="cpu")) == repr(torch.tensor(values))   # (line breaks as on the CPU)
    z = ag.tensor(values, requires_grad=True, device="cpu") * 2
    assert shown(z).replace("MulBackward", "MulBackward0") == repr(torch.tensor(values, requires_grad=True) * 2)


@pytest.mark.parametrize("make", [
    lambda T: T.ones(3) * 1j, lambda T: T.ones(3, dtype=T.float64) * 1j, lambda T: T.ones(3, dtype=T.int64) * 1j,
    lambda T: T.tensor([1j, 2]) * 2.5, lambda T: T.tensor([1j, 2]) * 2,
    lambda T: T.tensor([1j, 2]) + T.ones(2, dtype=T.float64),
    lambda T: T.tensor([1j, 2]) + T.tensor(1.0, dtype=T.float64),
    lambda T: T.ones(2) + T.tensor(1j, dtype=T.complex128),
    lambda T: T.ones(2, dtype=T.float64) + T.tensor(1j),
    lambda T: T.tensor([1j, 2]) / T.tensor([2, 3]), lambda T: 1 / T.tensor([1j, 2]),
    lambda T: T.tensor([1j, 2], dtype=T.complex128) * T.ones(2, dtype=T.int32),
])
def test_promotion_as_torch(make):
    same(make(ag), make(torch))


def test_promote_types_and_conversions():
    assert ag.promote_types(ag.float64, ag.complex64) == ag.complex128
    z = ag.tensor([1 + 2j])
    assert z.item() == 1 + 2j and z.tolist() == [1 + 2j] and complex(z) == 1 + 2j
    with pytest.raises(RuntimeError, match="cannot be converted"):   # (as torch's)
        float(z)
    with pytest.raises(RuntimeError, match="cannot be converted"):
        int(z)
    assert repr(ag.tensor([], dtype=ag.complex64, device="cpu")) == repr(torch.tensor([], dtype=torch.complex64)).replace(
        "torch.", "")
    with pytest.warns(UserWarning, match="discards the imaginary part"):
        assert z.to(ag.float32).tolist() == [1.0]


# -- gradients against torch -------------------------------------------------------------------------------

UNARY = {
    "exp": lambda T, z: T.exp(z), "log": lambda T, z: T.log(z), "sqrt": lambda T, z: T.sqrt(z),
    "rsqrt": lambda T, z: T.rsqrt(z), "reciprocal": lambda T, z: T.reciprocal(z), "sin": lambda T, z: T.sin(z),
    "cos": lambda T, z: T.cos(z), "tan": lambda T, z: T.tan(z), "tanh": lambda T, z: T.tanh(z),
    "sinh": lambda T, z: T.sinh(z), "cosh": lambda T, z: T.cosh(z), "asin": lambda T, z: T.asin(z),
    "acos": lambda T, z: T.acos(z), "atan": lambda T, z: T.atan(z), "asinh": lambda T, z: T.asinh(z),
    "acosh": lambda T, z: T.acosh(z), "atanh": lambda T, z: T.atanh(z), "log1p": lambda T, z: T.log1p(z),
    "expm1": lambda T, z: T.expm1(z), "log2": lambda T, z: T.log2(z), "log10": lambda T, z: T.log10(z),
    "neg": lambda T, z: -z, "square": lambda T, z: z * z, "pow_real": lambda T, z: z ** 2.5,
    "pow_int": lambda T, z: z ** 3, "pow_complex": lambda T, z: z ** (0.5 - 1j),
    "abs": lambda T, z: T.abs(z), "real": lambda T, z: z.real, "imag": lambda T, z: z.imag,
    "angle": lambda T, z: T.angle(z), "conj": lambda T, z: T.conj(z), "sgn": lambda T, z: T.sgn(z),
    "view_as_real": lambda T, z: T.view_as_real(z), "sum": lambda T, z: z.sum(0),
    "mean": lambda T, z: z.mean(), "cumsum": lambda T, z: T.cumsum(z, 1), "prod": lambda T, z: z.prod(1),
    "reshape": lambda T, z: z.reshape(6), "transpose": lambda T, z: z.t(), "getitem": lambda T, z: z[1, ::2],
    "index": lambda T, z: z[:, [2, 0, 2]], "expand": lambda T, z: z[:1].expand(4, 3), "flip": lambda T, z: z.flip(1),
    "cat": lambda T, z: T.cat([z, 2 * z]), "stack": lambda T, z: T.stack([z, z.conj()]),
    "tril": lambda T, z: T.tril(z), "clone": lambda T, z: z.clone(), "mH": lambda T, z: z.mH,
    "abs_squared": lambda T, z: z.abs() ** 2, "where": lambda T, z: T.where(z.real > 0, z, z * 1j),
    "polar": lambda T, z: T.polar(z.abs(), T.angle(z)), "from_parts": lambda T, z: T.complex(z.imag, z.real),
    "view_as_complex": lambda T, z: T.view_as_complex(T.view_as_real(z) * 2),
    "chain": lambda T, z: T.tanh(z * z.conj() + z).exp() / (z + 3),
    "exp2": lambda T, z: T.exp2(z), "sigmoid": lambda T, z: T.sigmoid(z), "var": lambda T, z: z.var(1),
    "std": lambda T, z: T.std(z, 0, correction=0), "var_all": lambda T, z: z.var(),
    "norm": lambda T, z: T.linalg.vector_norm(z, dim=1), "norm_all": lambda T, z: z.norm(),
    "norm_1": lambda T, z: T.linalg.vector_norm(z, 1), "norm_3": lambda T, z: T.linalg.vector_norm(z, 3, dim=0),
    "norm_inf": lambda T, z: T.linalg.vector_norm(z, float("inf")), "fro": lambda T, z: T.linalg.matrix_norm(z), "triu": lambda T, z: T.triu(z),
    "from_real": lambda T, z: z.real.to(T.complex128) * z,
    "logsumexp": lambda T, z: T.logsumexp(z * 3, 1), "logsumexp_all": lambda T, z: T.logsumexp(z, (0, 1)),
    "trapezoid": lambda T, z: T.trapezoid(z, T.tensor([0.0, 0.5, 2.0], dtype=T.float64)),
    "cumulative_trapezoid": lambda T, z: T.cumulative_trapezoid(z, dx=0.5),
    "lerp": lambda T, z: T.lerp(z, z.conj() * 2j, 0.3), "lerp_tensor": lambda T, z: T.lerp(
        z, z * 2, T.tensor([0.2 + 0.1j, 0.7, 1.0], dtype=T.complex128)),
    "setitem": lambda T, z: _written(z), "index_put": lambda T, z: z.index_put(
        (T.tensor([0, 1]), T.tensor([2, 0])), z[0, :2] * 2),
    "sinc": lambda T, z: T.sinc(z * 3), "cov": lambda T, z: T.cov(z), "cov_weighted": lambda T, z: T.cov(
        z, correction=2, fweights=T.tensor([1, 3, 2]), aweights=T.tensor([0.5, 1.0, 2.0], dtype=T.float64)),
    "corrcoef": lambda T, z: T.corrcoef(T.cat([z, z * z])),
    "logaddexp": lambda T, z: T.logaddexp(z * 3, z.flip(1) * 2 + 1j),
    "logaddexp_real_other": lambda T, z: T.logaddexp(z, T.tensor([[0.5, -1.0, 2.0]], dtype=T.float64)),
    "logcumsumexp": lambda T, z: T.logcumsumexp(z * 4, 1), "logcumsumexp_0": lambda T, z: T.logcumsumexp(z, 0),
    "normalize": lambda T, z: T.nn.functional.normalize(z), "normalize_1": lambda T, z: T.nn.functional.normalize(
        z, p=1, dim=0), "l1_loss": lambda T, z: T.nn.functional.l1_loss(z, z.flip(0) * 2 + 1j),
    "renorm": lambda T, z: T.renorm(z, 2, 0, 0.5),
    "float_power": lambda T, z: T.float_power(z.to(T.complex64), 2), "float_power_complex": lambda T, z: T.float_power(
        z, z.flip(0) + 0.5j), "float_power_real_base": lambda T, z: T.float_power(T.tensor([1.5, 2.0, 0.5]), z),
    "ldexp": lambda T, z: T.ldexp(z, T.tensor([1, 0, 3])),   # (not negative exponents: see the README's differences)
}


def _written(z):
    c = z.clone()
    c[0, 1:] = z[1, :2] * 2j   # (an in-place write into a slice)
    return c


@pytest.mark.parametrize("name", list(UNARY))
def test_gradient_of_each_op_as_torch(name):
    f = UNARY[name]
    data = _complex(2, 3) * 0.6
    ours, theirs = ag.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    y, ty = f(ag, ours), f(torch, theirs)
    same(y, ty)
    w = _complex(*y.shape) if y.dtype.kind == "c" else RNG.standard_normal(y.shape)
    _real_loss(ag, y, ag.tensor(w)).backward()
    _real_loss(torch, ty, torch.tensor(w)).backward()
    assert ours.grad.dtype == ag.complex128
    same(ours.grad, theirs.grad)


BINARY = {
    "add": lambda T, a, b: a + b, "sub": lambda T, a, b: a - b, "mul": lambda T, a, b: a * b,
    "div": lambda T, a, b: a / b, "pow": lambda T, a, b: a ** b, "matmul": lambda T, a, b: a @ b.mT,
    "dot": lambda T, a, b: T.dot(a[0], b[0]), "vdot": lambda T, a, b: T.vdot(a[0], b[0]),
    "einsum": lambda T, a, b: T.einsum("ij,kj->ik", a, b), "broadcast_mul": lambda T, a, b: a * b[:1],
}


@pytest.mark.parametrize("name", list(BINARY))
@pytest.mark.parametrize("kinds", ["cc", "rc", "cr"])
def test_gradients_of_binary_ops_real_and_complex_operands_as_torch(name, kinds):
    """A real operand's gradient is the real part of what reaches it (PyTorch's rule), and stays real."""
    f = BINARY[name]
    if kinds != "cc" and name in ("matmul", "dot", "vdot", "einsum"):   # (products take one dtype, as torch's)
        for T in (ag, torch):
            with pytest.raises(RuntimeError, match="type"):
                f(T, T.ones(2, 3, dtype=T.float64 if kinds[0] == "r" else T.complex128),
                  T.ones(2, 3, dtype=T.float64 if kinds[1] == "r" else T.complex128))
        return
    arrays = [_complex(2, 3) * 0.7 + 1.5 if k == "c" else RNG.uniform(0.5, 2.0, (2, 3)) for k in kinds]
    ours = [ag.tensor(x, requires_grad=True) for x in arrays]
    theirs = [torch.tensor(x, requires_grad=True) for x in arrays]
    y, ty = f(ag, *ours), f(torch, *theirs)
    same(y, ty)
    w = _complex(*y.shape)
    _real_loss(ag, y, ag.tensor(w)).backward()
    _real_loss(torch, ty, torch.tensor(w)).backward()
    for a, b in zip(ours, theirs):
        same(a.grad, b.grad)


@pytest.mark.parametrize("name", ["inv", "det", "solve", "matrix_exp"])
def test_gradients_of_complex_linear_algebra_as_torch(name):
    f = {"inv": lambda T, a: T.linalg.inv(a), "det": lambda T, a: T.linalg.det(a),
         "solve": lambda T, a: T.linalg.solve(a, a[..., :1] * 2 + 1j),
         "matrix_exp": lambda T, a: T.linalg.matrix_exp(a)}[name]
    data = _complex(3, 3) * 0.4 + 2 * np.eye(3)
    ours, theirs = ag.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    y, ty = f(ag, ours), f(torch, theirs)
    same(y, ty, rtol=1e-9)
    w = _complex(*y.shape)
    _real_loss(ag, y, ag.tensor(w)).backward()
    _real_loss(torch, ty, torch.tensor(w)).backward()
    same(ours.grad, theirs.grad, rtol=1e-9)
    second = []   # and through create_graph: the gradient of |dL/dA|^2
    for T in (ag, torch):
        a = T.tensor(data, requires_grad=True)
        (g,) = T.autograd.grad(_real_loss(T, f(T, a), T.tensor(w)), a, create_graph=True)
        (g * g.conj()).real.sum().backward()
        second.append(a.grad)
    same(*second, rtol=1e-8)


def test_second_derivative_with_create_graph_as_torch():
    data = _complex(4) * 0.5
    grads = []
    for T in (ag, torch):
        z = T.tensor(data, requires_grad=True)
        loss = (T.exp(z) * z.conj() + T.sin(z * z)).abs().sum()
        (g,) = T.autograd.grad(loss, z, create_graph=True)
        (g.conj() * g).real.sum().backward()
        grads.append(z.grad)
    same(*grads, rtol=1e-9)


def test_explicit_complex_seed_and_autograd_grad_as_torch():
    data = _complex(3)
    out = []
    for T in (ag, torch):
        z = T.tensor(data, requires_grad=True)
        y = T.exp(z) * 2j
        (gz,) = T.autograd.grad(y, z, grad_outputs=T.tensor([1 + 1j, 2, -1j]))
        out.append(gz)
    same(*out)


@pytest.mark.parametrize("name, options", [
    ("SGD", dict(lr=0.1, momentum=0.9, weight_decay=0.01)), ("Adam", dict(lr=0.1)),
    ("AdamW", dict(lr=0.1, amsgrad=True)), ("Adamax", dict(lr=0.1)), ("NAdam", dict(lr=0.1)),
    ("RAdam", dict(lr=0.1)), ("RMSprop", dict(lr=0.05, momentum=0.5, centered=True)), ("Adagrad", dict(lr=0.1)),
    ("Adadelta", dict(lr=1.0)), ("Rprop", dict(lr=0.1))])
def test_optimizers_on_a_complex_parameter_as_torch(name, options):
    """Each part of a complex parameter is a coordinate of its own (Adam's g^2 per part), as torch's
    optimizers treat one through view_as_real."""
    data, target = _complex(3), _complex(3)
    results = []
    for T in (ag, torch):
        p = T.tensor(data, requires_grad=True)
        opt = getattr(T.optim, name)([p], **options)
        for _ in range(6):
            opt.zero_grad()
            (((p - T.tensor(target)).abs() ** 2).sum() + (p * p).real.sum()).backward()
            opt.step()
        results.append(p)
    same(*results, rtol=1e-6)   # (the optimizers round in their own order)


# -- the convention itself, without torch: finite differences in x and y -------------------------------------

@pytest.mark.parametrize("name", ["exp", "abs", "angle", "chain", "pow_complex", "sgn", "polar", "imag"])
def test_gradient_is_dL_dx_plus_i_dL_dy_by_finite_differences(name):
    f = UNARY[name]
    data = _complex(2, 3) * 0.6
    w = _complex(2, 3)
    z = ag.tensor(data, requires_grad=True)
    y = f(ag, z)
    weights = ag.tensor(w if y.dtype.kind == "c" else w.real[:, :y.shape[-1]] if y.ndim == 2 else w.real[0, 0])

    def loss(array):
        with ag.no_grad():
            return float(_real_loss(ag, f(ag, ag.tensor(array)), weights))
    _real_loss(ag, y, weights).backward()
    h = 1e-6
    expected = np.zeros(data.shape, complex)
    for idx in np.ndindex(data.shape):
        for direction, unit in ((1.0, 1.0), (1j, 1j)):
            step = np.zeros(data.shape, complex)
            step[idx] = h * direction
            expected[idx] += unit * (loss(data + step) - loss(data - step)) / (2 * h)
    np.testing.assert_allclose(z.grad.numpy(), expected, rtol=1e-6, atol=1e-7)


# -- errors, raised before anything changes ------------------------------------------------------------------

def test_backward_of_a_complex_output_needs_its_gradient_as_torch():
    for T in (ag, torch):
        z = T.tensor([1 + 2j], requires_grad=True)
        with pytest.raises(RuntimeError, match="real scalar outputs"):
            (z * z).sum().backward()
        edge = T.autograd.graph.get_gradient_edge((z * z).sum())   # (a root given as its graph edge)
        with pytest.raises(RuntimeError, match="real scalar outputs"):
            T.autograd.grad(edge, z)
        with pytest.raises(RuntimeError, match="both grad_output and output are required to have the same dtype"):
            z.abs().sum().backward(T.tensor(1j))
        assert z.grad is None


@pytest.mark.parametrize("call", [lambda T, z: z < z, lambda T, z: z >= 1, lambda T, z: z.max(),
                                  lambda T, z: T.amax(z), lambda T, z: T.maximum(z, z), lambda T, z: z.clamp(0, 1),
                                  lambda T, z: T.relu(z), lambda T, z: T.sign(z), lambda T, z: T.argmax(z),
                                  lambda T, z: z.min(), lambda T, z: z.max(0), lambda T, z: T.sort(z),
                                  lambda T, z: T.clamp(z, T.tensor(0j)), lambda T, z: z.median(),
                                  lambda T, z: z.nanmedian(), lambda T, z: z.median(0), lambda T, z: z.mode(),
                                  lambda T, z: z.kthvalue(1), lambda T, z: T.unique(z),
                                  lambda T, z: T.unique_consecutive(z), lambda T, z: T.searchsorted(z, z),
                                  lambda T, z: T.bucketize(z, z), lambda T, z: T.cummax(z, 0),
                                  lambda T, z: T.cummin(z, 0), lambda T, z: z.round(), lambda T, z: z.floor(),
                                  lambda T, z: z.ceil(), lambda T, z: z.trunc(),
                                  lambda T, z: T.div(z, z, rounding_mode="trunc"),
                                  lambda T, z: T.div(z, z, rounding_mode="floor"), lambda T, z: T.fmax(z, z),
                                  lambda T, z: T.fmin(z, z), lambda T, z: T.signbit(z), lambda T, z: T.heaviside(z, z),
                                  lambda T, z: z % 2, lambda T, z: T.fmod(z, 2), lambda T, z: z // 2,
                                  lambda T, z: T.isin(z, z), lambda T, z: z.clamp_min(0),
                                  lambda T, z: T.zeros(2, dtype=z.dtype).scatter_reduce(0, T.tensor([0, 1]), z, "amax")])
def test_complex_numbers_have_no_order_as_torch(call):
    with pytest.raises(Exception) as theirs:
        call(torch, torch.tensor([1 + 2j, 3 - 1j]))
    with pytest.raises(theirs.type, match="complex"):   # (NotImplementedError, or RuntimeError as torch's)
        call(ag, ag.tensor([1 + 2j, 3 - 1j]))


def test_an_op_without_a_complex_gradient_refuses_before_changing_anything():
    z = ag.tensor([1 + 2j, 3 - 1j], requires_grad=True)
    (z.abs() ** 2).sum().backward()
    before = z.grad.numpy().copy()
    with pytest.raises(NotImplementedError, match="scatter_prod: its gradient for complex inputs is not implemented"):
        ag.ones(2, dtype=ag.complex64).scatter_reduce(0, ag.tensor([0, 1]), z, "prod")
    with pytest.raises(NotImplementedError, match="erf is not supported for complex"):
        ag.erf(z)
    np.testing.assert_array_equal(z.grad.numpy(), before)
    with ag.no_grad():   # the forward alone, where NumPy's is PyTorch's
        same(ag.ones(2, dtype=ag.complex64).scatter_reduce(0, ag.tensor([0, 1]), z, "prod"),
             torch.ones(2, dtype=torch.complex64).scatter_reduce(0, torch.tensor([0, 1]),
                                                                 torch.tensor([1 + 2j, 3 - 1j]), "prod"))


@pytest.mark.parametrize("call, match", [
    (lambda T: T.imag(T.ones(2)), "imag is not implemented for tensors with non-complex dtypes"),
    (lambda T: T.view_as_real(T.ones(2)), "only supported for complex tensors"),
    (lambda T: T.view_as_complex(T.ones(3)), "last dimension of size 2"),
    (lambda T: T.view_as_complex(T.ones(2, 2).t()), "stride 1"),
    (lambda T: T.complex(T.ones(2, dtype=T.int64), T.ones(2, dtype=T.int64)), "float or double"),
    (lambda T: T.complex(T.ones(2), T.ones(2, dtype=T.float64)), "scalar type"),
])
def test_bad_calls_raise_as_torch(call, match):
    with pytest.raises(RuntimeError, match=match):
        call(ag)
    with pytest.raises(RuntimeError):
        call(torch)


def test_parts_are_views_that_write_through():
    z = ag.tensor([1 + 2j, 3 - 1j])
    r = ag.view_as_real(z)
    r[0, 1] = 5.0
    assert z.tolist() == [1 + 5j, 3 - 1j]
    assert z.real.tolist() == [1.0, 3.0] and z.imag.tolist() == [5.0, -1.0]
    assert ag.isreal(ag.tensor([1 + 0j, 1j])).tolist() == [True, False]


def test_from_numpy_save_and_load_keep_complex_numbers(tmp_path):
    array = np.array([1 + 2j, -3j], np.complex64)
    shared = ag.from_numpy(array)
    array[0] = 5j   # (the same memory)
    assert shared.dtype == ag.complex64 and shared.tolist() == [5j, -3j]
    ag.save({"z": shared, "nested": [shared * 2]}, tmp_path / "z.pt")
    back = ag.load(tmp_path / "z.pt")
    assert back["z"].dtype == ag.complex64 and back["z"].tolist() == [5j, -3j]
    assert back["nested"][0].tolist() == [10j, -6j]


def test_complex_numbers_print_short_in_notebooks():
    from autogradlab.lessons.helpers import fmt
    assert fmt(ag.tensor([1 + 2j, -0.5j, 1.23456 - 0.00001j])) == "[1+2j, 0-0.5j, 1.235-1e-05j]"
    assert fmt(3 - 1j) == "3-1j"


def test_gradcheck_checks_complex_functions_as_pairs_of_reals():
    z = ag.tensor(_complex(3), requires_grad=True)
    x = ag.tensor(RNG.standard_normal(3), requires_grad=True)
    assert ag.autograd.gradcheck(lambda z, x: ag.exp(z) * z * x, (z, x))
    assert ag.autograd.gradcheck(lambda z: (ag.sin(z) * z.conj()).abs(), (z,))
    assert ag.autograd.gradgradcheck(lambda z, x: ag.tanh(z) * x + z.conj() * z, (z, x))

    class ForgetsTheConjugate(ag.autograd.Function):   # d(z^2) sent back as g*2z, not g*conj(2z)
        @staticmethod
        def forward(ctx, z):
            ctx.save_for_backward(z)
            return z * z

        @staticmethod
        def backward(ctx, g):
            (z,) = ctx.saved_tensors
            return g * 2 * z

    assert ag.autograd.gradcheck(lambda z: z * z, (z,))
    assert not ag.autograd.gradcheck(ForgetsTheConjugate.apply, (z,), raise_exception=False)



@pytest.mark.parametrize("call", [
    lambda T, z: T.atan2(z, z), lambda T, z: T.xlogy(z, z),
    lambda T, z: T.logit(z), lambda T, z: T.special.entr(z), lambda T, z: T.copysign(z, z),
    lambda T, z: T.deg2rad(z), lambda T, z: T.rad2deg(z)])
def test_ops_that_would_drop_the_imaginary_part_refuse_complex_numbers(call):
    """(torch computes some of them on complex numbers; autogradlab refuses rather than cast them to real)"""
    with pytest.raises(NotImplementedError, match="does not take complex numbers"):
        call(ag, ag.tensor([1j, 2 + 1j]))


def test_sinc_near_zero_is_exact_where_torchs_formula_cancels():
    """sinc's gradient near 0 is its Taylor series, for complex numbers too (torch's formula loses digits there)."""
    z = ag.tensor([1e-9 + 1e-9j, 0j, 0.1 - 0.2j], dtype=ag.complex128, requires_grad=True)
    ag.sinc(z).real.sum().backward()
    s = np.pi * z.detach().numpy()
    exact = np.pi * (-s / 3 + s ** 3 / 30)   # sinc'(z) = pi (-s/3 + s^3/30 - ...), s = pi z, then conjugated
    np.testing.assert_allclose(z.grad.numpy()[:2], exact[:2].conj(), rtol=1e-12, atol=1e-20)
    t = torch.tensor(z.detach().numpy(), requires_grad=True)
    torch.sinc(t).real.sum().backward()
    np.testing.assert_allclose(z.grad.numpy()[2], t.grad.numpy()[2], rtol=1e-12)


@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_a_module_moved_to_a_complex_dtype_trains_as_torch(dtype):
    """Module.to(complex): the floating parameters become complex, with PyTorch's warning that not every layer
    takes them; a step of Adam on |f(x)|^2 then matches torch's, and .to(float64) keeps the real parts."""
    torch.manual_seed(0)
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    ours = ag.nn.Sequential(ag.nn.Linear(3, 4), ag.nn.Tanh(), ag.nn.Linear(4, 2))
    ours.load_state_dict({k: ag.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    for T, m in ((ag, ours), (torch, theirs)):
        with pytest.warns(UserWarning, match="[Cc]omplex"):
            m.to(getattr(T, dtype))
        assert all(p.dtype == getattr(T, dtype) for p in m.parameters())
    x = _complex(5, 3)
    tol = {"rtol": 1e-10, "atol": 1e-12} if dtype == "complex128" else {"rtol": 1e-4, "atol": 1e-5}
    for T, m in ((ag, ours), (torch, theirs)):
        optimizer = T.optim.Adam(m.parameters(), lr=0.1)
        (m(T.tensor(x.astype(dtype))).abs() ** 2).sum().backward()
        optimizer.step()
    for a, b in zip(ours.parameters(), theirs.parameters()):
        same(a, b, **tol)
    with pytest.warns(UserWarning, match="discards the imaginary part"):
        ours.to(ag.float64)
    assert [p.dtype for p in ours.parameters()] == [ag.float64] * 4
    np.testing.assert_allclose(ours[0].weight.detach().numpy(), theirs[0].weight.detach().real.numpy(), **tol)
    with pytest.raises(TypeError, match="floating point or complex dtypes"):
        ours.to(ag.int64)


def test_nan_and_closeness_tests_of_complex_numbers_as_torch():
    values = [complex(np.nan, 0), complex(1, np.inf), 1j, complex(-np.inf, np.nan)]
    for name in ("isnan", "isinf", "isfinite", "nan_to_num"):
        same(getattr(ag, name)(ag.tensor(values)), getattr(torch, name)(torch.tensor(values)))
    for T in (ag, torch):
        assert not T.isclose(T.tensor([1j]), T.tensor([2j])).item()
        assert T.allclose(T.tensor(values), T.tensor(values), equal_nan=True)
        assert not T.allclose(T.tensor(values), T.tensor(values))


def test_anomaly_mode_finds_a_nan_in_a_complex_gradient_as_torch():
    for T in (ag, torch):
        z = T.tensor([0j, 1 + 1j], requires_grad=True)
        with pytest.raises(RuntimeError, match="returned nan values"), T.autograd.detect_anomaly():
            (T.log(z) * 0).abs().sum().backward()


@pytest.mark.parametrize("make", [
    lambda T: T.where(T.tensor([True, False]), 1j, 2j), lambda T: T.where(T.tensor([True, False]), 1j, 2),
    lambda T: T.tensor([1.0, 2.0]) * np.complex128(1j), lambda T: T.full((2,), 1j), lambda T: T.linspace(0, 1j, 3),
    lambda T: T.cat([T.tensor([1j]), T.ones(1, dtype=T.float64)]),
    lambda T: T.stack([T.tensor([1j], dtype=T.complex128), T.ones(1)]),
    lambda T: T.tensor([1j, 0, 1 + 0j]).bool(), lambda T: T.angle(T.tensor([-0.0, 0.0, -2.0, float("nan")]))])
def test_complex_numbers_and_their_dtypes_in_other_calls_as_torch(make):
    same(make(ag), make(torch))


@pytest.mark.parametrize("call, error", [
    (lambda T: T.tensor([1.0, 2j], dtype=T.float64), TypeError), (lambda T: T.ones(2).fill_(1j), RuntimeError),
    (lambda T: T.ones(2).add_(1j), RuntimeError)])
def test_a_complex_number_into_a_real_tensor_is_refused_as_torch(call, error):
    for T in (ag, torch):
        with pytest.raises(error):
            call(T)



@pytest.mark.parametrize("name", ["Adam", "SGD", "Adagrad", "RMSprop", "Rprop", "NAdam"])
def test_a_complex_parameters_optimizer_state_is_complex_and_reloads_as_torch(name):
    """The state dict holds complex tensors of the parameter's shape (as torch's); saved and loaded half way,
    the steps go on as if never interrupted."""
    options = dict(lr=0.1, momentum=0.9) if name in ("SGD", "RMSprop") else dict(lr=0.1)
    runs = {}
    for T, split in ((ag, True), (ag, False), (torch, False)):
        z = T.tensor(np.array([[1 + 2j, 3j]]), requires_grad=True)
        opt = getattr(T.optim, name)([z], **options)
        for k in range(6):
            if split and k == 3:
                saved = opt.state_dict()
                opt = getattr(T.optim, name)([z], **options)
                opt.load_state_dict(saved)
            opt.zero_grad()
            ((z - 1j) ** 2).abs().sum().backward()
            opt.step()
        runs[T.__name__, split] = (z, opt.state_dict()["state"][0])
    (resumed, state), (straight, _), (theirs, their_state) = runs.values()
    same(resumed, straight, rtol=1e-8)   # (NAdam keeps its momentum product as float32 in a state dict, as torch)
    same(straight, theirs, rtol=1e-6)
    for key, value in their_state.items():
        if key != "step":
            same(state[key], value, rtol=1e-6)


def test_torchs_optimizer_state_loads_for_a_complex_parameter():
    z = torch.tensor(np.array([1 + 2j, -1j]), requires_grad=True)
    opt = torch.optim.Adam([z], lr=0.1)
    ((z - 1j) ** 2).abs().sum().backward()
    opt.step()
    ours = ag.tensor(z.detach().numpy(), requires_grad=True)
    our_opt = ag.optim.Adam([ours], lr=0.1)
    our_opt.load_state_dict(opt.state_dict())
    for T, p, o in ((ag, ours, our_opt), (torch, z, opt)):
        o.zero_grad()
        ((p - 1j) ** 2).abs().sum().backward()
        o.step()
    same(ours, z, rtol=1e-9)


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_on_complex_parameters_as_torch(line_search_fn):
    results = []
    for T in (ag, torch):
        z = T.tensor(np.array([1 + 2j, -0.5 + 0.3j]), requires_grad=True)
        x = T.tensor(np.array([0.5, -1.0]), requires_grad=True)
        opt = T.optim.LBFGS([z, x], lr=0.5, max_iter=3, line_search_fn=line_search_fn)

        def closure():
            opt.zero_grad()
            loss = ((z - 1 - 1.5j).abs() ** 4).sum() + ((x - 2) ** 2).sum()
            loss.backward()
            return loss
        for _ in range(3):
            opt.step(closure)
        results.append((z, x))
    for ours, theirs in zip(*results):
        same(ours, theirs, rtol=1e-8)


def test_logaddexp_and_logcumsumexp_at_infinities_as_torch():
    """PyTorch's rule where both real parts are infinite: -inf gives the second operand (e^z is 0 whatever its
    angle), +inf log(e^a + e^b); elsewhere m + log1p(e^(n - m)). A run of -inf (a mask in log space) stays
    -inf, and the sums after it are the usual ones."""
    inf = float("inf")
    a = [complex(-inf, 1), complex(inf, 1), complex(-inf, 1), 1 + 1j, complex(inf, 0), complex(-inf, 0), 0j]
    b = [complex(-inf, 2), complex(inf, 2), 1 + 2j, complex(-inf, 3), 2 + 0j, complex(-inf, 0), complex(inf, 1)]
    ours = ag.logaddexp(ag.tensor(a, dtype=ag.complex128), ag.tensor(b, dtype=ag.complex128))
    theirs = torch.logaddexp(torch.tensor(a, dtype=torch.complex128), torch.tensor(b, dtype=torch.complex128))
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    row = [complex(-inf, 0), complex(-inf, 0), 1 + 1j, 2 - 1j]
    z = ag.tensor(row, dtype=ag.complex128, requires_grad=True)
    y = ag.logcumsumexp(z, 0)
    np.testing.assert_allclose(y.detach().numpy(), torch.logcumsumexp(torch.tensor(row, dtype=torch.complex128), 0).numpy(),
                               rtol=1e-15)
    y.real.sum().backward()
    assert np.isfinite(z.grad.numpy()).all() and z.grad.numpy()[:2].tolist() == [0, 0]   # (torch: NaN there)


def test_ldexp_of_a_complex_tensor_by_a_number_and_logaddexp2_refusing_complex_as_torch():
    assert ag.ldexp(ag.tensor([1 + 2j]), 3).tolist() == [8 + 16j]   # (torch takes only a tensor exponent)
    assert ag.ldexp(ag.tensor([1 + 2j]), ag.tensor([3])).tolist() == torch.ldexp(torch.tensor([1 + 2j]),
                                                                               torch.tensor([3])).tolist()
    for T in (ag, torch):
        with pytest.raises(NotImplementedError):
            T.logaddexp2(T.tensor([1j]), T.tensor([1j]))


def test_float_and_double_leave_complex_parameters_as_torch():
    """Module.float()/double() cast the floating parameters and buffers alone; .to(dtype) casts complex ones too."""
    for T in (ag, torch):
        m = T.nn.Sequential(T.nn.Linear(2, 2), T.nn.BatchNorm1d(2))
        with pytest.warns(UserWarning):
            m[0].to(T.complex64)
        m.double()
        assert [p.dtype for p in m.parameters()] == [T.complex64, T.complex64, T.float64, T.float64]
        assert [b.dtype for b in m.buffers()] == [T.float64, T.float64, T.int64]
