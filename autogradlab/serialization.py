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
from .tensor import COMPLEX_DTYPES, Tensor

__all__ = ["save", "load"]

_HEADER = "__autogradlab__"
_FORMAT_VERSION = 1


def _host_array(value, name):
    if isinstance(value, Tensor):
        return backend.to_host(value._data)
    if isinstance(value, numpy.ndarray):
        return value
    raise TypeError(f"save: entry {name!r} is a {type(value).__name__}; only Tensors (or NumPy arrays) can be "
                    f"saved. Save a model's state_dict(), not the model itself")


def save(obj, f):
    """Write a Tensor, a ``{name: Tensor}`` dict (``model.state_dict()``), or a checkpoint of nested dicts,
    lists and tuples holding Tensors, numbers, strings and None (``{"model": model.state_dict(), "optimizer":
    opt.state_dict(), "epoch": 3}``) to ``f`` (path or binary file).

    The name is used as given: ``save(sd, "model.pt")`` writes ``model.pt`` (an npz inside). A checkpoint's
    structure goes into the JSON header, each tensor into an array of its own: still no pickle.
    """
    tree = None
    if isinstance(obj, Tensor):
        kind, names, arrays = "tensor", [""], [_host_array(obj, "tensor")]
    elif isinstance(obj, (list, tuple)) or hasattr(obj, "items") and not all(
            isinstance(k, str) and isinstance(v, (Tensor, numpy.ndarray)) for k, v in obj.items()):
        kind, arrays = "tree", []
        tree = _encode(obj, "checkpoint", arrays)
        names = [f"arr_{i}" for i in range(len(arrays))]
    elif hasattr(obj, "items"):
        kind, names, arrays = "state_dict", [], []
        for name, value in obj.items():
            if not isinstance(name, str):
                raise TypeError(f"save: state dict keys must be strings, got {name!r}")
            names.append(name)
            arrays.append(_host_array(value, name))
    else:
        raise TypeError(f"save: expected a Tensor, a dict of name -> Tensor (a state_dict) or a checkpoint (dicts, "
                        f"lists and tuples of tensors, numbers and strings), got {type(obj).__name__}")
    for name, a in zip(names, arrays):
        if not _held(a.dtype):
            raise TypeError(f"save: entry {name!r} has unsupported dtype {a.dtype}")
    header = json.dumps({"format": "autogradlab", "version": _FORMAT_VERSION, "kind": kind, "names": names}
                        | ({"tree": tree} if tree is not None else {}))
    payload = {f"arr_{i}": a for i, a in enumerate(arrays)}
    payload[_HEADER] = numpy.array(header)  # a unicode scalar array: no pickle needed
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as fh:  # an open file, so numpy doesn't append ".npz" to the name
            numpy.savez(fh, **payload)
    else:
        numpy.savez(f, **payload)


def _load_device(map_location):
    """The device :func:`load` puts the tensors on (a save file records none: see its ``map_location``)."""
    if callable(map_location) and not isinstance(map_location, (str, backend.device)):
        return "cpu"
    if isinstance(map_location, dict):
        map_location = map_location.get("cpu", "cpu")
    return backend.normalize_device(map_location)


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None):
    """Read what :func:`save` wrote: a Tensor, or an ordered ``{name: Tensor}`` dict.

    ``map_location`` ("cpu", "cuda", a device) puts the tensors on that device (default: cpu); PyTorch's other
    forms are read as the files here know no saved device: a dict ``{"cuda:0": "cpu"}`` by what it maps "cpu" to
    (cpu when it does not), a function (``lambda storage, loc: storage``) as cpu. PyTorch's
    ``pickle_module``, ``weights_only`` and ``mmap`` are accepted and change nothing: loading never unpickles
    (it is always "weights only"), and the file is read at once.
    A plain ``numpy.savez`` file loads as a dict of its arrays. Anything else raises ValueError.
    """
    device = _load_device(map_location)
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
                names, kind, tree = header["names"], header["kind"], header.get("tree")
                if not isinstance(names, list) or (kind == "tensor" and len(names) != 1):
                    raise ValueError(f"header lists {names!r} for a {kind!r}")
                arrays = [npz[f"arr_{i}"] for i in range(len(names))]
            else:
                kind, names, tree = "state_dict", files, None
                arrays = [npz[n] for n in files]
        except (ValueError, KeyError, TypeError, OSError, EOFError, zipfile.BadZipFile) as exc:
            raise ValueError(f"load: {where} is malformed or truncated: {exc}") from None
    for name, a in zip(names, arrays):
        if not _held(a.dtype):
            raise ValueError(f"load: entry {name!r} of {where} has dtype {a.dtype}; autogradlab tensors are "
                             f"float, complex, int or bool")

    def make(a):
        return Tensor._make(backend.asarray(a, device), False, None, device)

    if kind == "tensor":
        return make(arrays[0])
    if kind == "tree":
        try:
            return _decode(tree, [make(a) for a in arrays])
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise ValueError(f"load: {where} is malformed: its checkpoint structure does not read back ({exc})") \
                from None
    if kind != "state_dict":
        raise ValueError(f"load: {where} has unknown content kind {kind!r}")
    return OrderedDict((n, make(a)) for n, a in zip(names, arrays))


# -- checkpoints: nested containers, their structure as JSON, every tensor an array of its own ---------------
# Each JSON object in the structure is one of {"$tensor": i}, {"$dict": [[key, value], ...]} (keys may be str,
# int, float, bool or None, and keep their order) or {"$tuple": [...]}; lists, numbers, strings and null are
# themselves.

def _held(dtype) -> bool:
    """Whether a tensor can hold ``dtype``: float, integer, bool, complex64 or complex128."""
    return dtype.kind in "fiub" or dtype in COMPLEX_DTYPES


def _encode(value, path, arrays, inside=()):
    if isinstance(value, (Tensor, numpy.ndarray)):
        array = _host_array(value, path)
        if not _held(array.dtype):
            raise TypeError(f"save: {path} has unsupported dtype {array.dtype}; tensors are float, complex, int "
                            f"or bool")
        arrays.append(array)
        return {"$tensor": len(arrays) - 1}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (numpy.integer, numpy.floating, numpy.bool_)):
        return value.item()
    if id(value) in inside:
        raise TypeError(f"save: {path} contains itself; a checkpoint must be a tree (no container inside itself)")
    inside = inside + (id(value),)
    if hasattr(value, "items"):
        pairs = []
        for k, v in value.items():
            if not (k is None or isinstance(k, (str, int, float, bool))):
                raise TypeError(f"save: {path} has a key of type {type(k).__name__} ({k!r}); keys must be strings "
                                f"or numbers")
            pairs.append([k, _encode(v, f"{path}[{k!r}]", arrays, inside)])
        return {"$dict": pairs}
    if isinstance(value, (list, tuple)):
        items = [_encode(v, f"{path}[{i}]", arrays, inside) for i, v in enumerate(value)]
        return {"$tuple": items} if isinstance(value, tuple) else items
    raise TypeError(f"save: {path} is a {type(value).__name__}; a checkpoint holds Tensors, numbers, strings, None, "
                    f"and dicts, lists and tuples of them. Save a model's state_dict(), not the model itself")


def _decode(node, tensors):
    if isinstance(node, list):
        return [_decode(v, tensors) for v in node]
    if not isinstance(node, dict):
        return node
    (marker, content), = node.items()
    if marker == "$tensor":
        return tensors[content]
    if marker == "$tuple":
        return tuple(_decode(v, tensors) for v in content)
    if marker == "$dict":
        return {k: _decode(v, tensors) for k, v in content}
    raise ValueError(f"unknown entry {marker!r}")
