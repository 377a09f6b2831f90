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

def _enc(v):
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return {"float": repr(v)}
    if isinstance(v, _TAGGED):
        if isinstance(v, SourceLine):   # never the machine's path: <cell>, relative, or the base name
            v = v.portable()
        return {"@": type(v).__name__, **_fields(v)}
    if isinstance(v, tuple):
        return [_enc(x) for x in v]
    return v


_TAGGED = (Value, Stats, TensorRef, PlannedNode, BackwardPlan, SourceLine)  # the records nested inside events

# fields added after tapes were first saved: left out of the JSON while None, so a tape without them
# encodes as it always did (and older tapes, which lack them, load with None)
_OMIT_NONE = {"Value": ("stats",), "SourceLine": ("function",), "OpRecorded": ("traceback",),
              "HookRan": ("before", "after")}


def _fields(v):
    omit = _OMIT_NONE.get(type(v).__name__, ())
    return {f.name: _enc(x) for f in dataclasses.fields(v)
            for x in (getattr(v, f.name),) if not (x is None and f.name in omit)}


def _encode(e):
    return {"kind": type(e).__name__, **_fields(e)}


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
