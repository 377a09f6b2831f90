"""``save`` / ``load``: tensors and state dicts as ``.npz`` files, never pickle.

The file is a NumPy ``.npz`` (a zip of ``.npy`` arrays) that any NumPy can read:
arrays ``arr_0, arr_1, ...`` plus ``__autogradlab__``, a JSON header with the
format version, what was saved (one tensor or a state dict) and the names in order.
Loading uses ``numpy.load(..., allow_pickle=False)``, so a file can never run code.
"""
from __future__ import annotations

import json
import os
import zipfile
from collections import OrderedDict

import numpy

from . import backend
from .tensor import Tensor

__all__ = ["save", "load"]

_HEADER = "__autogradlab__"
_FORMAT_VERSION = 1


def _host_array(value, name):
    if isinstance(value, Tensor):
        return backend.to_host(value.data)
    if isinstance(value, numpy.ndarray):
        return value
    raise TypeError(f"save: entry {name!r} is a {type(value).__name__}; only Tensors (or NumPy arrays) can be "
                    f"saved. Save a model's state_dict(), not the model itself")


def save(obj, f):
    """Write a Tensor or a ``{name: Tensor}`` dict (e.g. ``model.state_dict()``) to ``f`` (path or binary file).

    The name is used as given: ``save(sd, "model.pt")`` writes ``model.pt`` (an npz inside).
    """
    if isinstance(obj, Tensor):
        kind, names, arrays = "tensor", [""], [_host_array(obj, "tensor")]
    elif hasattr(obj, "items"):
        kind, names, arrays = "state_dict", [], []
        for name, value in obj.items():
            if not isinstance(name, str):
                raise TypeError(f"save: state dict keys must be strings, got {name!r}")
            names.append(name)
            arrays.append(_host_array(value, name))
    else:
        raise TypeError(f"save: expected a Tensor or a dict of name -> Tensor, got {type(obj).__name__}")
    for name, a in zip(names, arrays):
        if a.dtype.kind not in "fiub":
            raise TypeError(f"save: entry {name!r} has unsupported dtype {a.dtype}")
    header = json.dumps({"format": "autogradlab", "version": _FORMAT_VERSION, "kind": kind, "names": names})
    payload = {f"arr_{i}": a for i, a in enumerate(arrays)}
    payload[_HEADER] = numpy.array(header)  # a unicode scalar array: no pickle needed
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as fh:  # an open file, so numpy doesn't append ".npz" to the name
            numpy.savez(fh, **payload)
    else:
        numpy.savez(f, **payload)


def load(f, map_location=None):
    """Read what :func:`save` wrote: a Tensor, or an ordered ``{name: Tensor}`` dict.

    ``map_location`` ("cpu", "cuda") puts the tensors on that device (default: cpu).
    A plain ``numpy.savez`` file loads as a dict of its arrays. Anything else raises ValueError.
    """
    device = backend.normalize_device(map_location)
    where = f if isinstance(f, (str, os.PathLike)) else "the given file"
    try:
        npz = numpy.load(f, allow_pickle=False)
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise ValueError(f"load: {where} is not an autogradlab save file (an .npz written by "
                         f"autogradlab.save): {exc}") from None
    if not isinstance(npz, numpy.lib.npyio.NpzFile):
        raise ValueError(f"load: {where} holds a single .npy array, not an autogradlab save file (.npz)")
    with npz:
        try:
            files = list(npz.files)
            if _HEADER in files:
                header = json.loads(str(npz[_HEADER]))
                if not isinstance(header, dict) or header.get("format") != "autogradlab" \
                        or header.get("version") != _FORMAT_VERSION:
                    raise ValueError(f"unknown header {header!r}")
                names, kind = header["names"], header["kind"]
                if not isinstance(names, list) or (kind == "tensor" and len(names) != 1):
                    raise ValueError(f"header lists {names!r} for a {kind!r}")
                arrays = [npz[f"arr_{i}"] for i in range(len(names))]
            else:
                kind, names = "state_dict", files
                arrays = [npz[n] for n in files]
        except (ValueError, KeyError, TypeError, OSError, EOFError, zipfile.BadZipFile) as exc:
            raise ValueError(f"load: {where} is malformed or truncated: {exc}") from None
    for name, a in zip(names, arrays):
        if a.dtype.kind not in "fiub":
            raise ValueError(f"load: entry {name!r} of {where} has dtype {a.dtype}; autogradlab tensors are "
                             f"float, int or bool")

    def make(a):
        return Tensor._make(backend.asarray(a, device), False, None, device)

    if kind == "tensor":
        return make(arrays[0])
    if kind != "state_dict":
        raise ValueError(f"load: {where} has unknown content kind {kind!r}")
    return OrderedDict((n, make(a)) for n, a in zip(names, arrays))
