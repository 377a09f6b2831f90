"""Events as plain JSON (no pickle: loading a tape never runs code): tagged objects for the
records nested in events, NaN and infinities as strings (plain JSON has none)."""
from __future__ import annotations

import dataclasses
import math
import operator

from .records import EVENT_TYPES, BackwardPlan, PlannedNode, SourceLine, Stats, TensorRef, Value

def _refs_of(e):
    for f in dataclasses.fields(e):
        v = getattr(e, f.name)
        if isinstance(v, TensorRef):
            yield v
        elif isinstance(v, tuple):
            yield from (x for x in v if isinstance(x, TensorRef))
        elif isinstance(v, BackwardPlan):
            yield from (n.output for n in v.nodes)


# -- JSON encoding: tagged objects, NaN/inf as strings (plain JSON has no NaN) ---------------

def _enc(v, memo=None):
    """``v`` as plain JSON data. ``memo`` (a dict, optional): records already encoded in this call,
    by id (events share their Values and TensorRefs), so each is encoded once and shared."""
    t = type(v)
    if t is int or t is str or t is bool or v is None:
        return v
    if t is tuple:
        kinds = set(map(type, v))
        if kinds <= _PLAIN:   # the common case: numbers, strings, flags
            if float not in kinds:
                return list(v)
            if kinds <= _NUMBERS:
                if all(map(math.isfinite, v)):
                    return list(v)
            elif all(map(math.isfinite, (x for x in v if type(x) is float))):
                return list(v)
        return [_enc(x, memo) for x in v]
    if t is float or isinstance(v, float):
        return {"float": repr(v)} if math.isnan(v) or math.isinf(v) else v
    if isinstance(v, _TAGGED):
        if memo is not None:
            hit = memo.get(id(v))
            if hit is not None:
                return hit[1]
        out = v
        if isinstance(v, SourceLine):   # never the machine's path: <cell>, relative, or the base name
            v = v.portable()
        encoded = _fields(v, memo, {"@": type(v).__name__})
        if memo is not None:
            memo[id(out)] = (out, encoded)   # (keeps the record alive, so its id stays its own)
        return encoded
    if isinstance(v, tuple):
        return [_enc(x, memo) for x in v]
    return v


_PLAIN = {int, str, bool, type(None), float}
_NUMBERS = {int, bool, float}


_TAGGED = (Value, Stats, TensorRef, PlannedNode, BackwardPlan, SourceLine)  # the records nested inside events

# fields added after tapes were first saved: left out of the JSON while None, so a tape without them
# encodes as it always did (and older tapes, which lack them, load with None)
_OMIT_NONE = {"Value": ("stats",), "SourceLine": ("function",), "OpRecorded": ("traceback",),
              "HookRan": ("before", "after")}


_FIELD_NAMES: dict = {}   # record class -> how to encode its fields (see _field_names)
_PLAIN_TYPES = {"int", "str", "bool"}   # fields declared as these are copied as they are


def _field_names(cls):
    """``(names, getter, rest)`` of a record class: its field names, an ``attrgetter`` of all their values,
    and ``(index, name, left out while None)`` of the fields that may need encoding (the ones not declared
    ``int``, ``str`` or ``bool``: records, tuples, floats, optional values)."""
    plan = _FIELD_NAMES.get(cls)
    if plan is None:
        omit = _OMIT_NONE.get(cls.__name__, ())
        fields = dataclasses.fields(cls)
        names = tuple(f.name for f in fields)
        get = operator.attrgetter(*names)
        rest = tuple((i, f.name, f.name in omit) for i, f in enumerate(fields)
                     if str(f.type).strip() not in _PLAIN_TYPES)
        plan = _FIELD_NAMES[cls] = (names, get if len(names) > 1 else (lambda v, get=get: (get(v),)), rest)
    return plan


def _fields(v, memo=None, out=None):
    """The fields of record ``v`` as JSON data, added to ``out`` (a new dict by default), in their order."""
    if out is None:
        out = {}
    names, get, rest = _field_names(type(v))
    values = get(v)
    out.update(zip(names, values))   # (all at once; then the fields that need it are encoded in place)
    for i, name, omit in rest:
        x = values[i]
        t = type(x)
        if t is int or t is str or t is bool:
            continue
        if x is None:
            if omit:
                del out[name]
            continue
        if memo is not None:   # a record another event shares, encoded already (_enc's first lines, inline)
            hit = memo.get(id(x))
            if hit is not None:
                out[name] = hit[1]
                continue
        out[name] = _enc(x, memo)
    return out


def _encode(e, memo=None):
    return _fields(e, memo, {"kind": type(e).__name__})


def encode_events(events) -> list:
    """Events as plain JSON data (what :meth:`Tape.to_json` writes under ``"events"``); the records
    they share (Values, TensorRefs) are encoded once and shared, so treat the result as read-only."""
    memo = {}
    return [_encode(e, memo) for e in events]


def _dec(v):
    if isinstance(v, list):
        return tuple(_dec(x) for x in v)
    if isinstance(v, dict):
        if set(v) == {"float"}:
            if v["float"] not in ("nan", "inf", "-inf"):
                raise ValueError(f"bad float {v['float']!r}")
            return float(v["float"])
        tag = v.get("@")
        cls = {c.__name__: c for c in _TAGGED}.get(tag)
        if cls is None:
            raise ValueError(f"unknown object tag {tag!r}")
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: _dec(x) for k, x in v.items() if k != "@" and k in names})
    return v


def _decode_event(raw):
    if not isinstance(raw, dict) or raw.get("kind") not in EVENT_TYPES:
        raise ValueError(f"unknown event kind {raw.get('kind') if isinstance(raw, dict) else raw!r}")
    cls = EVENT_TYPES[raw["kind"]]
    # a field with a default (BackwardStarted.plan, OpRecorded.source, ...) is newer than some saved
    # tapes: missing, it takes its default
    names = [f.name for f in dataclasses.fields(cls)
             if f.name in raw or f.default is dataclasses.MISSING]
    missing = [n for n in names if n not in raw]
    if missing:
        raise KeyError(f"{raw['kind']} lacks field(s) {missing}")
    return cls(**{n: _dec(raw[n]) for n in names})
