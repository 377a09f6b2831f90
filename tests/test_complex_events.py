"""A traced complex computation: its events hold complex numbers (tables, JSON), the chain-rule steps name
the conjugated local derivative, and the pictures and the player show them."""
from __future__ import annotations

import json

import numpy as np
from node_harness import run_with_bundle

import autogradlab as ag
import autogradlab.events as ev
from autogradlab import viz
from autogradlab.viz.playerdata import player_data


def _traced():
    z = ag.tensor([1 + 2j, 3 - 1j], dtype=ag.complex128, requires_grad=True, name="z")
    x = ag.tensor([0.5, -2.0], dtype=ag.float64, requires_grad=True, name="x")
    with ag.trace() as tape:
        loss = (ag.exp(z * 0.5) * x).abs().sum()
        loss.backward()
    return z, x, tape


def test_the_events_hold_complex_values_and_name_the_conjugated_derivative():
    z, x, tape = _traced()
    mul = tape.of_kind("OpRecorded")[0]
    assert mul.value.dtype == "complex128" and mul.value.data == ((0.5 + 1j), (1.5 - 0.5j))
    steps = {e.node_name: e for e in tape.of_kind("GradientComputed")}
    assert steps["ExpBackward"].formula == "d(e^a)/da = conj(exp(a))"
    assert steps["AbsBackward"].formula == "d(|a|)/da = a/|a|"
    exp_step = steps["ExpBackward"]   # contribution = upstream * conj(exp(z/2)), as the formula says
    expected = np.array(exp_step.upstream.data) * np.conj(np.exp(z.detach().numpy() * 0.5))
    np.testing.assert_allclose(np.array(exp_step.contribution.data), expected, rtol=1e-12)
    leaf = [e for e in tape.of_kind("Accumulated") if e.where == "leaf" and e.tensor.name == "z"][-1]
    np.testing.assert_allclose(np.array(leaf.after.data), z.grad.numpy(), rtol=1e-12)
    table = tape.table()
    assert "0.5+1j" in table and "conj(exp(a))" in table


def test_complex_values_survive_json():
    _, _, tape = _traced()
    text = tape.to_json()
    json.loads(text)   # (plain JSON)
    back = type(tape).from_json(text)
    assert [e for e in back] == [e for e in tape]
    nan = ev.snapshot(np.array([complex(np.nan, 1), complex(1, -np.inf)]))
    assert ev._dec(json.loads(json.dumps(ev._enc(nan)))).data[1] == complex(1, -np.inf)


def test_a_large_complex_value_is_summarised_by_magnitudes():
    array = np.arange(1600.0).reshape(40, 40) * (1 - 1j)   # (too large for a table: stats too)
    v = ev.snapshot(array, max_elements=4, stats=True)
    assert v.data is None and v.min == 0 and np.isclose(v.max, 1599 * np.sqrt(2))
    assert np.isclose(v.norm, np.sqrt((np.abs(array) ** 2).sum()))
    assert np.isclose(v.stats.mean, np.abs(array).mean())


def test_drawings_and_captions_show_complex_numbers():
    _, _, tape = _traced()
    source = viz.draw(tape).source
    assert "= [1+2j, 3-1j]" in source and "complex128 [2]" in source
    data = player_data(tape)
    json.dumps(data)   # (what the widget sends)
    step = next(i for i, e in enumerate(tape.events) if type(e).__name__ == "GradientComputed"
                and e.node_name == "ExpBackward")
    # the local derivative read off the numbers (contribution / upstream) is the conjugate the formula names
    assert "conj(exp(a))" in data["captions"][step]
    local = np.conj(np.exp(np.array([1 + 2j, 3 - 1j]) * 0.5))
    assert ev.format_number(local[0]) in data["captions"][step]


def test_the_front_end_formats_and_shades_complex_numbers(tmp_path):
    harness = r"""
import { readFileSync } from "node:fs";
await import(process.argv[2]);
const { valueHtml } = globalThis.autogradlabPlayer;
const q = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify({ html: q.values.map(valueHtml) }));
"""
    values = [ev._enc(ev.snapshot(np.array([[1 + 2j, -0.5j], [3.0, 0]]))),
              ev._enc(ev.snapshot(np.array([complex(np.nan, 1), 1j])))]
    got = run_with_bundle(harness, {"values": values}, tmp_path)
    assert ">1+2j<" in got["html"][0] and ">0-0.5j<" in got["html"][0] and ">3+0j<" in got["html"][0]
    assert "rgba(230,159,0,0.62)" in got["html"][0]   # (the largest magnitude, 3: the strongest shade)
    assert "agl-nonfinite" not in got["html"][0] and 'class="agl-nonfinite">nan+1j<' in got["html"][1]


def test_diff_compares_complex_values_within_rtol_and_takes_complex_expected_gradients():
    tapes = []
    for scale in (1.0, 1.0000001):
        z = ag.tensor(np.array([1 + 2j, 3 - 1j]) * scale, requires_grad=True, name="z")
        with ag.trace() as tape:
            (ag.exp(z) * (2 - 1j)).abs().sum().backward()
        tapes.append((z, tape))
    (z, a), (_, b) = tapes
    assert viz.playerdata.diff_data(a, b, rtol=1e-5)["diff"]["keys"] == []
    assert viz.playerdata.diff_data(a, b, rtol=1e-9)["diff"]["keys"] != []
    wrong = z.grad.numpy().copy()
    wrong[1] += 1j
    marked = viz.playerdata.diff_data(a, expected={"z": z.grad.numpy()})["diff"]["keys"]
    assert marked == []
    assert viz.playerdata.diff_data(a, expected={"z": wrong})["diff"]["keys"] != []


def test_stats_count_a_complex_nan_as_isnan_does():
    array = np.ones((40, 40), complex)
    array[0, :3] = [complex(np.inf, np.nan), complex(np.nan, np.inf), complex(np.inf, 1)]
    st = ev.snapshot(array, stats=True).stats
    assert (st.nan, st.posinf, st.neginf) == (2, 1, 0)
