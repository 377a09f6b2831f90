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


@pytest.mark.parametrize("values", [
    (), (3, 4), (True, False, 1), (0.5, -0.0, 2), (1e308, 1e308), (float("nan"), 1.0), (float("inf"), 1.0),
    (float("inf"), float("-inf")), (5, None), ("a", 1.5), (2 ** 1100, 1), (np.float64("nan"), 2.0),
    (np.float32(1.5),), ((1, float("-inf")), 3), tuple(float(i) / 3 for i in range(64))])
def test_tuples_encode_by_the_plain_rule(values):
    """A tuple's JSON form keeps every element as it is (bools stay bools), nests tuples, and writes a
    float that is NaN or infinite as a tagged string; the shortcut for finite numbers must agree."""
    def plain(v):
        if isinstance(v, tuple):
            return [plain(x) for x in v]
        if isinstance(v, float) and not np.isfinite(v):
            return {"float": repr(float(v))}
        return v
    out = jsonio._enc(values)
    assert out == plain(values)
    assert [type(x) for x in out] == [type(x) for x in plain(values)]


def rich_tape():
    """A tape with every kind of record: hooks, inputs= (pruned nodes), create_graph, Stats, anomaly
    mode's tracebacks, NaN and infinite values."""
    ag.manual_seed(5)
    x = ag.randn(3, requires_grad=True)
    x.name = "x"
    w = ag.randn(2, 3, requires_grad=True)
    v = ag.tensor(np.ones((20, 20)), requires_grad=True)   # too large for a table: Stats
    with ag.trace(stats=True) as tape:
        with ag.autograd.detect_anomaly():
            h = w.register_hook(lambda g: g * 2)
            z = ((w * x).tanh().sum(1) * x[:2]).sum() + (v * 2.0).sum() + ((x * float("inf")).sum() + (v * float("inf")).sum()) * 0
        z.backward(retain_graph=True, inputs=[w])
        h.remove()
        (g,) = ag.autograd.grad((x * x * w).sum(), [w], create_graph=True)
        g.sum().backward()
    return tape


def _reference_encode(record, tag):
    """A record as JSON data, written the plain way (a loop over its fields), to check the encoders
    jsonio writes once per class against."""
    import dataclasses
    if isinstance(record, ev.SourceLine):
        record = record.portable()
    omit = jsonio._OMIT_NONE.get(type(record).__name__, ())
    out = {tag: type(record).__name__}
    for f in dataclasses.fields(record):
        value = getattr(record, f.name)
        if value is None and f.name in omit:
            continue
        out[f.name] = _reference_value(value)
    return out


def _reference_value(v):
    import dataclasses
    if isinstance(v, tuple):
        return [_reference_value(x) for x in v]
    if isinstance(v, float) and not np.isfinite(v):
        return {"float": repr(float(v))}
    if dataclasses.is_dataclass(v):
        return _reference_encode(v, "@")
    return v


def test_the_encoders_written_per_record_class_give_the_plain_encoding_in_field_order():
    tape = rich_tape()
    kinds = {type(e).__name__ for e in tape.events}
    assert {"OpRecorded", "BackwardStarted", "Seeded", "NodeStarted", "GradientComputed", "Accumulated",
            "SavedFreed", "NodePruned", "HookRan", "BackwardFinished"} <= kinds
    assert any(e.traceback for e in tape.of_kind("OpRecorded"))
    assert any(e.value.stats is not None for e in tape.of_kind("OpRecorded"))
    assert any(e.value.max == float("inf") for e in tape.of_kind("OpRecorded"))   # a summary with inf
    fast = jsonio.encode_events(tape.events)
    plain = [_reference_encode(e, "kind") for e in tape.events]
    # the same text, keys in the same order (a saved tape's JSON does not change)
    assert json.dumps(fast, allow_nan=False) == json.dumps(plain, allow_nan=False)


def test_subclassed_records_encode_and_play_as_their_base_class():
    """A SourceLine subclass is written as a SourceLine (the tag a tape can load back); an event subclass
    keeps the event's tag, and an OpRecorded subclass still gives the player its source line."""
    import dataclasses

    class Line(ev.SourceLine):
        __slots__ = ()

    assert jsonio._enc(Line("/a/b/c.py", 3, "x = 1")) == jsonio._enc(ev.SourceLine("/a/b/c.py", 3, "x = 1"))

    class Op(ev.OpRecorded):
        __slots__ = ()

    tape = rich_tape()
    plain = player_data(tape, phase="forward")
    events = [Op(*[getattr(e, f.name) for f in dataclasses.fields(e)]) if isinstance(e, ev.OpRecorded) else e
              for e in tape.events]
    tape._events[:] = events
    sub = player_data(tape, phase="forward")
    assert sub["has_forward"] and sub["sources"] == plain["sources"] and sub["sources"]
    assert [e["kind"] for e in jsonio.encode_events(events)] == [type(e).__name__ for e in events]
