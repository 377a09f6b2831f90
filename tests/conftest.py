"""Shared test helpers.

``import_torch()``: the one way the test modules that compare against PyTorch get ``torch``.

    from conftest import import_torch
    torch = import_torch()          # at module level, or inside a test

When torch cannot be imported, those tests skip with the reason on a developer's machine, but **fail** in CI
(the ``CI`` environment variable is set, as CI services and ``.ci/run`` do) or wherever
``AUTOGRADLAB_REQUIRE_TORCH=1``: a broken torch install must not silently turn off the strongest tests.

``AUTOGRADLAB_STRICT_BACKEND=1``: "cpu" tensors run on the strict backend (``strict_backend.py`` here, a
test double whose arrays refuse implicit NumPy conversion as CuPy's do), installed before any test module
makes a tensor. ``STRICT_ENV`` is the environment that does the same for a subprocess outside pytest.
"""
from __future__ import annotations

import importlib
import os

import pytest

TORCH_VERSION = "2.13.0"   # the version dev.sh installs (its TORCH_SPEC); the comparisons are made against it

_FALSE = {"", "0", "false", "no", "off"}

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))

#: Environment entries that put a subprocess's "cpu" tensors on the strict backend (add to os.environ).
STRICT_ENV = {"AUTOGRADLAB_CPU_XP": "strict_backend",
              "PYTHONPATH": os.pathsep.join(p for p in (TESTS_DIR, os.environ.get("PYTHONPATH", "")) if p)}

if os.environ.get("AUTOGRADLAB_STRICT_BACKEND") == "1":
    import strict_backend
    from autogradlab import backend as _backend
    _backend.use_cpu_array_module(strict_backend.xp, strict_backend.unwrap)


def graph_leaves(root):
    """{name: leaf tensor} of the graph under the tensor ``root``, found as a student's engine finds them: a walk
    of ``next_functions`` down to the ``AccumulateGrad`` nodes."""
    leaves, stack, seen = {}, [root.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if node.name() == "AccumulateGrad":
            leaves[node.variable.name] = node.variable
        stack.extend(child for child, _ in node.next_functions)
    return leaves


def host(array):
    """A NumPy array of any array the suites make: NumPy's own, the strict backend's (unwrapped, no copy), a
    GPU's or its stand-in's (copied to the host: ``AUTOGRADLAB_DEFAULT_DEVICE=cuda`` runs, see
    ``fake_cuda.py``)."""
    import numpy
    from autogradlab import backend
    from strict_backend import unwrap
    array = unwrap(array)
    return array if isinstance(array, numpy.ndarray) else backend.to_host(array)


def gamma_cdf(a, x):
    """P(a, x), the Gamma(a, 1) CDF, by its power series summed exactly (``math.fsum``):
    e^-x x^a / Gamma(a + 1) * sum_n x^n / ((a+1)...(a+n)). An independent reference for the Gamma tests."""
    import math
    terms, term, n = [1.0], 1.0, 0
    while term > 1e-18 * sum(terms) or n < x:
        n += 1
        term *= x / (a + n)
        terms.append(term)
    return math.exp(a * math.log(x) - x - math.lgamma(a + 1)) * math.fsum(terms)


def shares_memory(a, b) -> bool:
    """Whether two arrays share memory: exactly for host arrays (the strict backend's unwrapped); never across
    devices; else (on a GPU) by the arrays' bounds, a stricter test. (CuPy 14.2's exact ``shares_memory``
    answered True for two 0-d arrays holding different values on an H100: it compares element addresses
    taken inside a kernel.)"""
    import numpy
    from autogradlab import backend
    from strict_backend import unwrap
    a, b = unwrap(a), unwrap(b)
    if isinstance(a, numpy.ndarray) and isinstance(b, numpy.ndarray):
        return bool(numpy.shares_memory(a, b))
    if backend.device_of(a) != backend.device_of(b):
        return False
    return backend.shares_memory(a, b)


#: True in a run on a real GPU (``AUTOGRADLAB_DEFAULT_DEVICE=cuda`` with CuPy, not ``fake_cuda``): for what only
#: CuPy's kernels do, such as flushing float32 subnormals to zero (CuPy compiles them with -ftz=true)
ON_CUPY = (os.environ.get("AUTOGRADLAB_DEFAULT_DEVICE", "cpu").strip().lower().startswith("cuda")
           and not os.environ.get("AUTOGRADLAB_CUDA_XP"))

#: True when "cpu" tensors run on NumPy itself and that is the default device (not the strict pass, not a
#: ``AUTOGRADLAB_DEFAULT_DEVICE=cuda`` run): for the few tests of what only NumPy arrays do (read-only flags)
ON_NUMPY = (os.environ.get("AUTOGRADLAB_STRICT_BACKEND") != "1"
            and os.environ.get("AUTOGRADLAB_DEFAULT_DEVICE", "cpu").strip().lower() in ("", "cpu"))


def torch_required(environ=None) -> str | None:
    """Why torch is required here (a short reason), or None when a missing torch may skip."""
    env = os.environ if environ is None else environ
    if env.get("AUTOGRADLAB_REQUIRE_TORCH", "").strip().lower() not in _FALSE:
        return "AUTOGRADLAB_REQUIRE_TORCH is set"
    if env.get("CI", "").strip().lower() not in _FALSE:
        return "this is CI (the CI environment variable is set)"
    return None


def import_torch(environ=None):
    """``torch``, or a skip (locally) / a failure (CI, AUTOGRADLAB_REQUIRE_TORCH=1) that says why it is missing.

    Works at module level (the skip then covers the whole module; the failure is a collection error).
    """
    required = torch_required(environ)
    try:
        torch = importlib.import_module("torch")
    except Exception as exc:  # noqa: BLE001  (ImportError, or OSError from a broken wheel: both mean "no torch")
        problem = (f"torch is not importable ({type(exc).__name__}: {exc}); the tests that compare against "
                   f"PyTorch need torch=={TORCH_VERSION} (`bash dev.sh setup` installs it into .venv)")
        if required:
            pytest.fail(f"{problem}. Required because {required}: these tests may not skip here.", pytrace=False)
        pytest.skip(f"{problem}. Skipped (set AUTOGRADLAB_REQUIRE_TORCH=1 to make this a failure).",
                    allow_module_level=True)
    version = getattr(torch, "__version__", "?")
    if required and not str(version).split("+")[0] == TORCH_VERSION:
        pytest.fail(f"torch {version} is installed, but the comparisons are pinned to torch=={TORCH_VERSION} "
                    f"(required because {required}); reinstall it with `bash dev.sh setup`.", pytrace=False)
    return torch


@pytest.fixture
def torch_float64_default():
    """torch's default dtype float64 for one test (its GeneralizedPareto runs in float64 only then: it compares
    with a ``torch.tensor(0.0)`` of the default dtype), restored afterwards."""
    torch = importlib.import_module("torch")
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(before)
