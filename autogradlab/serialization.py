"""``save`` / ``load``: tensors and state dicts as ``.npz`` files, never pickle.

The file is a NumPy ``.npz`` (a zip of ``.npy`` arrays) that any NumPy can read:
arrays ``arr_0, arr_1, ...`` plus ``__autogradlab__``, a JSON header with the
format version, what was saved (one tensor or a state dict) and the names in order,
and, as PyTorch keeps them, which tensors require grad, which are Parameters, and which
are the same tensor or the same memory as an earlier one (written once, loaded shared).
Loading uses ``numpy.load(..., allow_pickle=False)``, so a file can never run code.
"""
from __future__ import annotations

import io
import json
import os
import struct
import zipfile
from collections import OrderedDict

import numpy

from . import backend
from .nn.parameter import Parameter
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


class _Entries:
    """The tensors a save writes, in order, with what the header says of them: which require grad, which are
    Parameters, and which share an earlier one's memory (``shares``: entry -> earlier entry; its own array is
    written empty). The same tensor object met again is one entry (a checkpoint's ``{"$tensor": i}`` twice)."""

    def __init__(self):
        self.arrays, self.grad, self.parameter, self.shares = [], [], [], {}
        self._index, self._tensors, self._memory = {}, [], {}   # (id -> entry; the tensors; (shape, dtype) ->
        # the entries of that shape and dtype, with their memory)

    def add(self, value, name, again=False):
        if isinstance(value, Tensor) and id(value) in self._index and not again:
            return self._index[id(value)]
        array = _host_array(value, name)
        i = len(self.arrays)
        if isinstance(value, Tensor):
            self._index[id(value)] = i
            self._tensors.append(value)   # (kept alive, so that no id is reused while saving)
            if value.requires_grad:
                self.grad.append(i)
            if isinstance(value, Parameter):
                self.parameter.append(i)
            alike = self._memory.setdefault((array.shape, array.dtype.str), []) if array.size else []
            earlier = next((j for j, data in alike if backend.same_elements(data, value._data)), None)
            if earlier is not None:   # (compared on the device: a host copy would share nothing)
                self.shares[i], array = earlier, array[:0].reshape(0)
            else:
                alike.append((i, value._data))
        self.arrays.append(array)
        return i

    def header(self):
        return ({"grad": self.grad} if self.grad else {}) | ({"parameter": self.parameter} if self.parameter else {}) \
            | ({"shares": [[i, j] for i, j in self.shares.items()]} if self.shares else {})


def save(obj, f):
    """Write a Tensor, a ``{name: Tensor}`` dict (``model.state_dict()``), or a checkpoint of nested dicts,
    lists and tuples holding Tensors, numbers, strings and None (``{"model": model.state_dict(), "optimizer":
    opt.state_dict(), "epoch": 3}``) to ``f`` (path or binary file).

    The name is used as given: ``save(sd, "model.pt")`` writes ``model.pt`` (an npz inside). A checkpoint's
    structure goes into the JSON header, each tensor into an array of its own: still no pickle. As PyTorch's,
    a tensor that requires grad loads requiring grad, a Parameter loads as a Parameter, the same tensor twice
    loads as one, and two tensors over the same memory (tied weights) load sharing it. A missing parent
    directory raises RuntimeError (PyTorch's), before anything is written.
    """
    tree, entries = None, _Entries()
    if isinstance(obj, Tensor):
        kind, names = "tensor", [""]
        entries.add(obj, "tensor")
    elif isinstance(obj, (list, tuple)) or hasattr(obj, "items") and not all(
            isinstance(k, str) and isinstance(v, (Tensor, numpy.ndarray)) for k, v in obj.items()):
        kind = "tree"
        tree = _encode(obj, "checkpoint", entries)
        names = [f"arr_{i}" for i in range(len(entries.arrays))]
    elif hasattr(obj, "items"):
        kind, names = "state_dict", []
        for name, value in obj.items():
            if not isinstance(name, str):
                raise TypeError(f"save: state dict keys must be strings, got {name!r}")
            names.append(name)
            entries.add(value, name, again=True)   # (an entry per name: a tensor met before shares its memory)
    else:
        raise TypeError(f"save: expected a Tensor, a dict of name -> Tensor (a state_dict) or a checkpoint (dicts, "
                        f"lists and tuples of tensors, numbers and strings), got {type(obj).__name__}")
    arrays = entries.arrays
    for name, a in zip(names, arrays):
        if not _held(a.dtype):
            raise TypeError(f"save: entry {name!r} has unsupported dtype {a.dtype}")
    header = json.dumps({"format": "autogradlab", "version": _FORMAT_VERSION, "kind": kind, "names": names}
                        | ({"tree": tree} if tree is not None else {}) | entries.header())
    payload = {f"arr_{i}": a for i, a in enumerate(arrays)}
    payload[_HEADER] = numpy.array(header)  # a unicode scalar array: no pickle needed
    if isinstance(f, (str, os.PathLike)):
        parent = os.path.dirname(os.fspath(f))
        if parent and not os.path.isdir(parent):   # (PyTorch's RuntimeError, before anything is written)
            raise RuntimeError(f"Parent directory {parent} does not exist: create it first, e.g. "
                               f"os.makedirs({parent!r}, exist_ok=True)")
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
    A plain ``numpy.savez`` file loads as a dict of its arrays. A missing file raises FileNotFoundError and an
    empty one EOFError, as PyTorch's; anything else ValueError (a file of ``torch.save`` too: it is a pickle).
    From a stream holding several saves one after the other, each ``load`` reads the next.
    """
    device = _load_device(map_location)
    where = f if isinstance(f, (str, os.PathLike)) else "the given file"
    try:
        npz = numpy.load(f if isinstance(f, (str, os.PathLike)) else _one_archive(f), allow_pickle=False)
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        raise   # (as PyTorch: the OS's own error names the path)
    except EOFError:
        raise EOFError(f"load: {where} is empty (at its current position): nothing was saved there, or it was read "
                       f"to its end already (f.seek(0) to read it again)") from None
    except (ValueError, OSError, zipfile.BadZipFile) as exc:
        raise ValueError(f"load: {where} is not an autogradlab save file (an .npz written by "
                         f"autogradlab.save): {exc}") from None
    if not isinstance(npz, numpy.lib.npyio.NpzFile):
        raise ValueError(f"load: {where} holds a single .npy array, not an autogradlab save file (.npz)")
    with npz:
        files = list(npz.files)
        if any(name.endswith("data.pkl") for name in files):
            raise ValueError(f"load: {where} was written by torch.save (a pickle), which this never reads: load it "
                             f"with torch.load, then convert each tensor, autogradlab.tensor(t.numpy())")
        try:
            flags = {}
            if _HEADER in files:
                header = json.loads(str(npz[_HEADER]))
                if not isinstance(header, dict) or header.get("format") != "autogradlab" \
                        or header.get("version") != _FORMAT_VERSION:
                    raise ValueError(f"unknown header {header!r}")
                names, kind, tree = header["names"], header["kind"], header.get("tree")
                if not isinstance(names, list) or (kind == "tensor" and len(names) != 1):
                    raise ValueError(f"header lists {names!r} for a {kind!r}")
                arrays = [npz[f"arr_{i}"] for i in range(len(names))]
                flags = {key: header.get(key, []) for key in ("grad", "parameter", "shares")}
            else:
                kind, names, tree = "state_dict", files, None
                arrays = [npz[n] for n in files]
        except (ValueError, KeyError, TypeError, OSError, EOFError, zipfile.BadZipFile) as exc:
            raise ValueError(f"load: {where} is malformed or truncated: {exc}") from None
    for name, a in zip(names, arrays):
        if not _held(a.dtype):
            raise ValueError(f"load: entry {name!r} of {where} has dtype {a.dtype}; autogradlab tensors are "
                             f"float, complex, int or bool")
    try:
        made = _tensors(arrays, flags, device)
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        raise ValueError(f"load: {where} is malformed: its flags do not read back ({exc})") from None
    if kind == "tensor":
        return made[0]
    if kind == "tree":
        try:
            return _decode(tree, made)
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise ValueError(f"load: {where} is malformed: its checkpoint structure does not read back ({exc})") \
                from None
    if kind != "state_dict":
        raise ValueError(f"load: {where} has unknown content kind {kind!r}")
    return OrderedDict(zip(names, made))


def _tensors(arrays, flags, device):
    """The loaded tensors: each requiring grad, a Parameter, or over an earlier one's memory as the header says."""
    grad, parameter = set(flags.get("grad", ())), set(flags.get("parameter", ()))
    shares = {int(i): int(j) for i, j in flags.get("shares", ())}
    made = []
    for i, a in enumerate(arrays):
        if i in shares and not (0 <= shares[i] < i and shares[i] not in shares):
            raise ValueError(f"entry {i} shares entry {shares[i]}")
        if i in grad and a.dtype.kind not in "fc":
            raise ValueError(f"entry {i} of dtype {a.dtype} cannot require grad")
        data = made[shares[i]]._data if i in shares else backend.asarray(a, device)
        t = Tensor._make(data, i in grad and i not in parameter, None, device)
        if i in shares:
            t._vc = made[shares[i]]._vc   # (the same memory: the same version counter)
        made.append(Parameter(t, requires_grad=i in grad) if i in parameter else t)
    return made


_END_OF_ZIP = b"PK\x05\x06"   # (a zip's last record: its central directory's size and offset, then a comment)


def _one_archive(f):
    """From a binary file, the archive that starts where it is (a stream may hold several saves, one after the
    other, as PyTorch's may): its bytes, the file left just past it, so that the next ``load`` reads the next."""
    if isinstance(f, io.TextIOBase):
        raise TypeError("load: the file was opened in text mode; open it in binary mode, open(path, 'rb')")
    try:
        start = f.tell()
    except (AttributeError, OSError):   # (a pipe: read on from where it is, as there is no going back)
        start = None
    data = f.read()
    if not data:
        raise EOFError
    at = data.find(_END_OF_ZIP)
    while at != -1 and at + 22 <= len(data):
        size, offset, comment = struct.unpack("<IIH", data[at + 12:at + 22])
        if offset + size in (at, (start or 0) + at):   # (a real end record: its directory ends where it starts; the
            # offsets count from the archive's start, or, when written into a stream after another, the stream's)
            end = at + 22 + comment
            if start is not None:
                f.seek(start + end)
            return io.BytesIO(data[:end])
        at = data.find(_END_OF_ZIP, at + 1)
    return io.BytesIO(data)


# -- checkpoints: nested containers, their structure as JSON, every tensor an array of its own ---------------
# Each JSON object in the structure is one of {"$tensor": i}, {"$dict": [[key, value], ...]} (keys may be str,
# int, float, bool or None, and keep their order) or {"$tuple": [...]}; lists, numbers, strings and null are
# themselves.

def _held(dtype) -> bool:
    """Whether a tensor can hold ``dtype``: float, integer, bool, complex64 or complex128."""
    return dtype.kind in "fiub" or dtype in COMPLEX_DTYPES


def _encode(value, path, entries, inside=()):
    if isinstance(value, (Tensor, numpy.ndarray)):
        i = entries.add(value, path)
        if not _held(entries.arrays[i].dtype):
            raise TypeError(f"save: {path} has unsupported dtype {entries.arrays[i].dtype}; tensors are float, "
                            f"complex, int or bool")
        return {"$tensor": i}
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
            pairs.append([k, _encode(v, f"{path}[{k!r}]", entries, inside)])
        return {"$dict": pairs}
    if isinstance(value, (list, tuple)):
        items = [_encode(v, f"{path}[{i}]", entries, inside) for i, v in enumerate(value)]
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
