"""Building the player's data fast (issue 16) must not change it: the shortcuts taken give exactly what
the plain way gives."""
import json

import numpy as np
import pytest

import autogradlab as ag
from autogradlab import events as ev
from autogradlab.events import jsonio
from autogradlab.events.records import format_array, snapshot
from autogradlab.viz import captions
from autogradlab.viz.model import as_model
from autogradlab.viz.playerdata import player_data


def traced_tape():
    ag.manual_seed(4)
    x = ag.randn(3, requires_grad=True)
    w = ag.randn(2, 3, requires_grad=True)
    with ag.trace(stats=True) as tape:
        y = ((w * x).tanh().sum(1) * x[:2]).sum() + (x * float("inf")).sum() * 0
        y.backward(retain_graph=True)
        y.backward(inputs=[x])
    return tape


@pytest.mark.parametrize("shape", [(3,), (2, 3), (2, 0), (0, 3), (0,), (2, 2, 2), (1, 1), (4, 1, 2)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int64, np.uint8, bool])
def test_value_short_is_format_array_of_its_array(shape, dtype):
    a = (np.random.default_rng(1).standard_normal(shape) * 1000).astype(dtype)
    if a.size > 1 and a.dtype.kind == "f":
        a.flat[0], a.flat[1] = np.nan, -np.inf
    v = snapshot(a, 1000)
    for digits in (4, 2):
        assert v.short(digits) == format_array(v.array(), digits)


def test_encoded_events_are_what_a_json_round_trip_gives():
    tape = traced_tape()
    events = tape.events
    fast = jsonio.encode_events(events)
    slow = [json.loads(json.dumps(jsonio._encode(e), allow_nan=False)) for e in events]
    assert fast == slow
    assert json.loads(tape.to_json())["events"] == slow


def test_plain_captions_without_tex_are_the_same():
    tape = traced_tape()
    model = as_model(tape)
    for e in tape.events:
        full = captions.caption(model, e)
        assert captions.caption(model, e, tex=False) == ("", full[1])


def test_player_data_is_the_same_built_twice_and_from_a_loaded_tape():
    tape = traced_tape()
    first = json.dumps(player_data(tape), sort_keys=True)
    assert json.dumps(player_data(tape), sort_keys=True) == first          # caches give the same
    loaded = ev.Tape.from_json(tape.to_json())
    assert json.dumps(player_data(loaded), sort_keys=True) == first
