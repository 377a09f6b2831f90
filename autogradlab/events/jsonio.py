"""Events as plain JSON (no pickle: loading a tape never runs code): tagged objects for the
records nested in events, NaN and infinities as strings (plain JSON has none)."""
from __future__ import annotations

import dataclasses
import math

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
        # Only numbers, all finite (shapes, edges, a Value's data): copied as they are. fsum raises on
        # anything else (and on an overflowing sum), and gives inf or NaN if any number is one.
        try:
            if math.isfinite(math.fsum(v)):
                return list(v)
        except (TypeError, ValueError, OverflowError):
            pass
        if set(map(type, v)) <= _AS_THEY_ARE:   # strings, ints, flags, None
            return list(v)
        return [_enc(x, memo) for x in v]
    if t is float or isinstance(v, float):
        return {"float": repr(float(v))} if math.isnan(v) or math.isinf(v) else v
    if t is complex:   # a complex element of a Value: its two parts (each a float as above)
        return {"complex": [_enc(v.real), _enc(v.imag)]}
    if isinstance(v, _TAGGED):
        if memo is not None:
            hit = memo.get(id(v))
            if hit is not None:
                return hit[1]
        out = v
        if isinstance(v, SourceLine):   # never the machine's path: <cell>, relative, or the base name
            v = v.portable()
            t = type(v)
        encoded = (_ENCODERS.get(t) or _encoder(t))(v, memo)
        if memo is not None:
            memo[id(out)] = (out, encoded)   # (keeps the record alive, so its id stays its own)
        return encoded
    if isinstance(v, tuple):
        return [_enc(x, memo) for x in v]
    return v


_AS_THEY_ARE = {int, str, bool, type(None)}


_TAGGED = (Value, Stats, TensorRef, PlannedNode, BackwardPlan, SourceLine)  # the records nested inside events

# fields added after tapes were first saved: left out of the JSON while None, so a tape without them
# encodes as it always did (and older tapes, which lack them, load with None)
_OMIT_NONE = {"Value": ("stats",), "SourceLine": ("function",), "OpRecorded": ("traceback",),
              "HookRan": ("before", "after")}


_PLAIN_TYPES = {"int", "str", "bool"}   # fields declared as these are copied as they are
_ENCODERS: dict = {}   # record class -> its encoder (see _encoder)
_EVENT_CLASSES = tuple(EVENT_TYPES.values())


def _encoder(cls):
    """The function ``(record, memo) -> dict`` that encodes a record of class ``cls``: ``{tag: class
    name, field: value, ...}`` in field order, the tag ``"kind"`` for an event, ``"@"`` for a record
    nested in one. A field declared ``int``, ``str`` or ``bool`` is copied as it is
    (tests/test_events.py checks that each holds that type); any other goes through :func:`_enc`; the
    fields of ``_OMIT_NONE`` are left out while None.

    Like dataclasses' own ``__init__`` and ``__eq__``, it is written once per class as Python source
    (one dict display: about three times faster than filling a dict from a loop over the fields, and a
    player encodes hundreds of records). For SavedFreed it reads::

        def encode(v, memo):
            return {'kind': 'SavedFreed', 'step': v.step, 'node_id': v.node_id,
                    'node_name': v.node_name, 'names': _enc(v.names, memo), 'nbytes': v.nbytes}
    """
    fn = _ENCODERS.get(cls)
    if fn is None:
        tag = "kind" if issubclass(cls, _EVENT_CLASSES) else "@"
        fn = _ENCODERS[cls] = _compile(_encoder_source(cls, tag), cls)
    return fn


def _encoder_source(cls, tag) -> str:
    omit = _OMIT_NONE.get(cls.__name__, ())
    items = [f"{tag!r}: {cls.__name__!r}"]
    for f in dataclasses.fields(cls):
        declared = str(f.type).replace(" ", "")
        if declared in _PLAIN_TYPES:
            items.append(f"{f.name!r}: v.{f.name}")
        elif declared.endswith("|None"):   # (mostly None: no call then)
            items.append(f"{f.name!r}: None if (x := v.{f.name}) is None else _enc(x, memo)")
        else:
            items.append(f"{f.name!r}: _enc(v.{f.name}, memo)")
    record = "{" + ", ".join(items) + "}"
    if not omit:
        return f"def encode(v, memo):\n    return {record}\n"
    return (f"def encode(v, memo):\n    out = {record}\n"
            + "".join(f"    if out[{name!r}] is None:\n        del out[{name!r}]\n" for name in omit)
            + "    return out\n")


def _compile(source, cls):
    namespace = {"_enc": _enc}
    exec(compile(source, f"<encoder of {cls.__name__}>", "exec"), namespace)   # (source from field names only)
    return namespace["encode"]


def _encode(e, memo=None):
    return (_ENCODERS.get(type(e)) or _encoder(type(e)))(e, memo)


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
        if set(v) == {"complex"}:
            real, imag = (_dec(part) for part in v["complex"])
            return complex(real, imag)
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
