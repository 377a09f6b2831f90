"""Tensors print as torch's do, under its default print options and under ``set_printoptions`` (precision,
threshold, edgeitems, linewidth, the three profiles, sci_mode forced either way), for whole numbers, fractions,
wide ranges, tiny and huge values, infinities, NaN, integers, bools and summarised large tensors."""
import numpy as np
import pytest
from conftest import import_torch

import autogradlab as ag

torch = import_torch()


@pytest.fixture(autouse=True)
def _default_options():
    yield
    ag.set_printoptions(profile="default")
    torch.set_printoptions(profile="default")


VALUES = {
    "whole": [1.0, 2.0, -3.0],
    "fractions": [1.23456, -2.5, 0.001],
    "wide": [1e-8, 2.5e9, 3.0],
    "inf-nan": [float("inf"), float("nan"), 1.5, -float("inf")],
    "matrix": [[1.5, 2.25, -3.125], [4.0, 5.5, 6.75]],
    "long": list(np.linspace(-3, 3, 2000)),
    "long-matrix": np.arange(1500.0).reshape(50, 30).tolist(),
    "ints": [1, -20, 300],
    "long-ints": list(range(1200)),
    "bools": [True, False],
    "scalar": 3.14159,
}

OPTIONS = [
    dict(), dict(precision=2), dict(precision=6), dict(sci_mode=True), dict(sci_mode=False),
    dict(precision=2, sci_mode=True), dict(threshold=5), dict(threshold=5, edgeitems=1), dict(linewidth=30),
    dict(profile="short"), dict(profile="full"), dict(profile="short", precision=3),
]


def _text(t):
    return str(t).replace("torch.", "")


CASES = [pytest.param(options, name, id=f"{name}-{options}") for options in OPTIONS for name in sorted(VALUES)
         if not (options.get("profile") == "full" and name.startswith("long"))]   # (full prints every element)


@pytest.mark.parametrize("options, name", CASES)
def test_tensors_print_as_torchs_under_each_option(options, name):
    ag.set_printoptions(**options)
    torch.set_printoptions(**options)
    value = VALUES[name]
    assert _text(ag.tensor(value)) == _text(torch.tensor(value))


def test_every_call_sets_sci_mode_and_a_profile_resets_the_numbers_as_torchs():
    for M in (ag, torch):
        M.set_printoptions(precision=2, sci_mode=True)
        M.set_printoptions(precision=3)                 # sci_mode back to automatic
    assert _text(ag.tensor([1.5, 2.0])) == _text(torch.tensor([1.5, 2.0])) == "tensor([1.500, 2.000])"
    for M in (ag, torch):
        M.set_printoptions(profile="default")
    assert _text(ag.tensor([1.5, 2.0])) == _text(torch.tensor([1.5, 2.0]))


def test_an_unknown_profile_is_refused():
    with pytest.raises(ValueError, match="profile"):
        ag.set_printoptions(profile="long")
    assert str(ag.tensor([1.5])) == "tensor([1.5000])"    # (a refused call changed nothing)


@pytest.mark.parametrize("spec", ["", ".3f", ">10", ".2e", "+"])
@pytest.mark.parametrize("make", [lambda M: M.tensor(0.5, dtype=M.float64), lambda M: M.tensor(3),
                                  lambda M: M.tensor(0.25, requires_grad=True) * 2, lambda M: M.tensor(True),
                                  lambda M: M.tensor([0.5]), lambda M: M.zeros(2, 2)],
                         ids=["float64", "int", "with-graph", "bool", "one-element", "matrix"])
def test_format_specs_as_torchs(make, spec):
    """``f"{loss:.4f}"`` formats a 0-d tensor as its number; other tensors take no spec (both raise)."""
    def formatted(M):
        try:
            return format(make(M), spec)
        except TypeError as error:
            return type(error)
    ours, theirs = formatted(ag), formatted(torch)
    assert ours == theirs or (theirs is TypeError and ours is TypeError)


@pytest.mark.parametrize("linewidth", [100.0, 30.5, 12.9])
def test_a_float_linewidth_prints_as_torchs(linewidth):
    """torch floors it; autogradlab's ``range`` step was a float there, so every later print raised."""
    ag.set_printoptions(linewidth=linewidth)
    torch.set_printoptions(linewidth=linewidth)
    for value in (VALUES["matrix"], list(np.arange(20.0))):
        assert _text(ag.tensor(value)) == _text(torch.tensor(value))


def test_a_zero_d_parameter_formats_as_a_parameter_as_torchs():
    """Only a plain 0-d tensor formats as its number: a 0-d Parameter prints whole, and refuses a spec."""
    for T in (ag, torch):
        p = T.nn.Parameter(T.tensor(1.5))
        assert f"{p}" == "Parameter containing:\ntensor(1.5000, requires_grad=True)"
        with pytest.raises(TypeError):
            f"{p:.2f}"
        assert f"{T.tensor(1.5, requires_grad=True):.2f}" == "1.50"
