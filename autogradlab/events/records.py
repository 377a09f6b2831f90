"""The records of a tape: host snapshots of values (:class:`Value`), references to tensors
(:class:`TensorRef`), the plan of a backward pass, and one frozen dataclass per event kind.
Events never hold live Tensors or nodes, so a tape can be saved as JSON and replayed elsewhere."""
from __future__ import annotations

import dataclasses
import functools
import math
import os
from dataclasses import dataclass

import numpy

from .. import backend

MAX_ELEMENTS = 64  # default: arrays with more elements are summarised, not copied
HIST_BINS = 16     # bins of a large array's histogram (Stats.hist)
TABLE_SIDE = 12   # the player shows an array as a table when it is at most 2-D with at most 12 rows and 12
                  # columns; a larger one gets Stats (with trace(stats=True))


def _frozen(cls):
    """``@dataclass(frozen=True, slots=True)`` with a faster ``__init__`` of the same signature.

    A frozen dataclass's own ``__init__`` sets each field through ``object.__setattr__`` (the class's
    ``__setattr__`` refuses), which looks the slot up by name every time; this one calls each slot's own
    setter, about 3x faster, and a tape makes hundreds of records each time it is read. The record is
    as frozen as before: assigning to a field afterwards raises ``FrozenInstanceError``. For
    :class:`SourceLine` it reads::

        def __init__(self, file, line, text, function=_default_function):
            _set_file(self, file)
            _set_line(self, line)
            _set_text(self, text)
            _set_function(self, function)
    """
    cls = dataclass(frozen=True, slots=True)(cls)
    if hasattr(cls, "__post_init__") or len(dataclasses.fields(cls)) != len(cls.__dataclass_fields__):
        raise TypeError(f"{cls.__name__}: a record has plain fields only (no __post_init__, InitVar, ClassVar)")
    namespace, params, body = {}, [], []
    for f in dataclasses.fields(cls):
        if f.default_factory is not dataclasses.MISSING or not f.init or f.kw_only:
            raise TypeError(f"{cls.__name__}.{f.name}: a record's field is positional, with at most a default")
        namespace[f"_set_{f.name}"] = cls.__dict__[f.name].__set__
        if f.default is dataclasses.MISSING:
            params.append(f.name)
        else:
            namespace[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
        body.append(f"    _set_{f.name}(self, {f.name})\n")
    source = f"def __init__(self, {', '.join(params)}):\n" + "".join(body)
    exec(compile(source, f"<__init__ of {cls.__name__}>", "exec"), namespace)   # (source from field names only)
    init = namespace["__init__"]
    init.__qualname__, init.__module__ = f"{cls.__qualname__}.__init__", cls.__module__
    init.__doc__ = cls.__init__.__doc__
    init.__annotations__ = dict(cls.__init__.__annotations__)   # (what help() and inspect show)
    cls.__init__ = init
    return cls


def fits_a_table(shape) -> bool:
    """True when the player shows an array of this shape as a table of its numbers (at most 2-D, at most
    ``TABLE_SIDE`` rows and columns); else it shows :class:`Stats`."""
    return len(shape) <= 2 and all(n <= TABLE_SIDE for n in shape)


# ---------------------------------------------------------------------------------------
# Values and references
# ---------------------------------------------------------------------------------------

@_frozen
class Stats:
    """Summary statistics of a large array (taken when the tape asks for them: ``trace(stats=True)``).

    ``mean`` and ``std`` (population: ``sqrt(mean((x - mean)^2))``) are over the finite elements;
    ``nan``, ``posinf``, ``neginf`` count the others. ``hist`` counts the finite elements in
    ``len(hist)`` equal bins from ``lo`` to ``hi`` (the finite minimum and maximum; the last bin
    includes ``hi``). All None / zeros when no element is finite."""

    mean: float | None
    std: float | None
    nan: int
    posinf: int
    neginf: int
    lo: float | None
    hi: float | None
    hist: tuple


def array_stats(host, bins: int = HIST_BINS) -> Stats:
    """:class:`Stats` of a host NumPy array (any shape; integers and booleans as floats)."""
    flat = numpy.asarray(host).reshape(-1)
    if flat.dtype.kind != "f":
        flat = flat.astype(numpy.float64)
    lo, hi = (float(flat.min()), float(flat.max())) if flat.size else (math.nan, math.nan)
    nan = posinf = neginf = 0
    if not (math.isfinite(lo) and math.isfinite(hi)):  # only then is anything non-finite
        nan = int(numpy.isnan(flat).sum())
        posinf, neginf = int(numpy.isposinf(flat).sum()), int(numpy.isneginf(flat).sum())
        flat = flat[numpy.isfinite(flat)]
        lo, hi = (float(flat.min()), float(flat.max())) if flat.size else (math.nan, math.nan)
    if not flat.size:
        return Stats(None, None, nan, posinf, neginf, None, None, (0,) * bins)
    wide = flat.astype(numpy.float64)         # a copy: changed in place below
    mean = float(wide.mean())
    # bin i holds edges[i] <= x < edges[i+1] (the last one also x = hi), as numpy.histogram counts them:
    # the same edges (in the array's float dtype, as numpy makes them: float32 edges for float32), and
    # how many elements lie below each inner edge (a comparison per edge: faster than histogram)
    first, last = flat.dtype.type(lo), flat.dtype.type(hi)   # (numpy scalars: linspace then works in that dtype)
    if not hi > lo:
        first, last = first - 0.5, last + 0.5
    edges = numpy.linspace(first, last, bins + 1, dtype=flat.dtype)
    below = [int(numpy.count_nonzero(flat < e)) for e in edges[1:-1]]
    counts = numpy.diff([0, *below, wide.size])
    wide -= mean
    wide *= wide                              # (a float64 dot product can be far slower with threaded BLAS)
    std = float(numpy.sqrt(wide.sum() / wide.size))
    return Stats(mean, std, nan, posinf, neginf, lo, hi, tuple(int(c) for c in counts))


@_frozen
class Value:
    """A host snapshot of an array: every element (``data``, flattened) or, for large
    arrays, a summary (``data`` is None; ``min``, ``max``, ``norm`` are set; of complex numbers, their
    magnitudes). ``stats``: mean, std,
    NaN/inf counts and a histogram of an array too large for a table, when the tape was asked for
    them (``trace(stats=True)``), else None."""

    shape: tuple
    dtype: str
    data: tuple | None = None
    min: float | None = None
    max: float | None = None
    norm: float | None = None
    stats: Stats | None = None

    def array(self):
        """The snapshot as a NumPy array (only for full snapshots)."""
        if self.data is None:
            raise ValueError(f"this value of shape {self.shape} was summarised (min/max/norm only); "
                             f"trace with a larger max_elements to keep every element")
        return numpy.array(self.data, dtype=self.dtype).reshape(self.shape)

    def short(self, digits=4) -> str:
        """A rounded, fixed text form for tables: ``1.5``, ``[1, 2.5]`` or ``<3x4: min.. max.. |.|..>``."""
        if self.data is None:
            return (f"<{'x'.join(map(str, self.shape))}: min {_fmt(self.min, digits)} max "
                    f"{_fmt(self.max, digits)} norm {_fmt(self.norm, digits)}>")
        if not self.shape:
            return _fmt(self.data[0], digits)
        py = _PY_TYPES.get(self.dtype.rstrip("0123456789"))
        if py is not None and all(type(x) is py for x in self.data):   # (the data of a snapshot)
            return _nested_flat(self.data, self.shape, digits)
        return _nested(self.array(), digits)


_PY_TYPES = {"float": float, "int": int, "uint": int, "bool": bool, "complex": complex}   # dtype name less digits


def _nested_flat(flat, shape, digits):
    """:func:`format_array` of the array ``shape`` with elements ``flat`` (row-major), without NumPy."""
    if len(shape) == 1:
        return "[" + ", ".join([format_number(x, digits) for x in flat]) + "]"
    n = len(flat) // shape[0] if shape[0] else 0
    return "[" + ", ".join([_nested_flat(flat[i * n:(i + 1) * n], shape[1:], digits)
                            for i in range(shape[0])]) + "]"


def format_number(x, digits=4) -> str:
    """A number as short rounded text: ``1.5``, ``0.3333``, ``-2``, ``nan``, ``1-0.5j`` (Python or NumPy scalars)."""
    if isinstance(x, (bool, numpy.bool_)):
        return str(bool(x))
    if isinstance(x, (int, numpy.integer)):
        return str(int(x))
    if isinstance(x, (complex, numpy.complexfloating)):   # 1+2j, 0.5-1j, 3+0j
        imag = float(x.imag)
        sign = "-" if imag < 0 or imag == 0 and math.copysign(1.0, imag) < 0 else "+"
        return f"{format_number(float(x.real), digits)}{sign}{format_number(abs(imag), digits)}j"
    x = float(x)
    if math.isnan(x) or math.isinf(x):
        return str(x)
    text = f"{x:.{digits}g}"
    return "0" if text in ("-0", "0") else text


def format_array(arr, digits=4) -> str:
    """A host array as nested lists of :func:`format_number` text: ``[[1, 2.5], [0, -1]]``."""
    if arr.ndim == 0:
        return format_number(arr.item(), digits)
    return "[" + ", ".join(format_array(a, digits) for a in arr) + "]"


_fmt, _nested = format_number, format_array


_DTYPE_NAMES: dict = {}


def _dtype_name(dtype) -> str:
    """``dtype.name``, cached (NumPy computes it in Python on every access)."""
    name = _DTYPE_NAMES.get(dtype)
    if name is None:
        name = _DTYPE_NAMES[dtype] = dtype.name
    return name


def snapshot(array, max_elements=MAX_ELEMENTS, stats: bool = False) -> Value:
    """Copy an array (NumPy or CuPy) to the host as a :class:`Value`; with ``stats``, an array too
    large for a table (not :func:`fits_a_table`) also gets :class:`Stats`."""
    if type(array) is numpy.ndarray and array.size <= max_elements and not stats:   # the common case, in short
        return Value(array.shape, _dtype_name(array.dtype), tuple(array.reshape(-1).tolist()))
    host = backend.to_host(array)
    shape, dtype = tuple(int(n) for n in host.shape), _dtype_name(host.dtype)
    complex_numbers = host.dtype.kind == "c"   # (stats, min and max of their magnitudes)
    st = array_stats(abs(host) if complex_numbers else host) if stats and host.size and not fits_a_table(
        host.shape) else None
    if st is not None and complex_numbers:   # (a NaN part makes the number NaN, as isnan says; else inf if either)
        nan = int(numpy.isnan(host).sum())
        st = dataclasses.replace(st, nan=nan, posinf=int(numpy.isinf(host).sum()) - int(
            (numpy.isinf(host) & numpy.isnan(host)).sum()))
    if host.size <= max_elements:
        return Value(shape, dtype, tuple(host.reshape(-1).tolist()), stats=st)
    flat = abs(host).reshape(-1) if complex_numbers else host.reshape(-1)
    if flat.dtype.kind != "f":
        flat = flat.astype(numpy.float64)
    return Value(shape, dtype, None, float(flat.min()), float(flat.max()),
                 float(numpy.sqrt(numpy.dot(flat, flat, out=None).astype(numpy.float64))), st)


@_frozen
class TensorRef:
    """Which tensor an event is about: tape-local id, name, shape, dtype, device."""

    tensor_id: int
    name: str
    shape: tuple
    dtype: str
    device: str
    leaf: bool
    requires_grad: bool


# ---------------------------------------------------------------------------------------
# The event kinds
# ---------------------------------------------------------------------------------------

@_frozen
class OpRecorded:
    """Forward: an op ran with grad recording and created node ``node_id``."""
    step: int
    node_id: int
    op: str
    node_name: str
    inputs: tuple          # TensorRef per input
    output: TensorRef
    saved: tuple           # names of the tensors the node keeps for backward
    formulas: tuple        # local derivative per input, e.g. "d(a * b)/da = b"
    value: Value
    input_values: tuple    # per input: its Value when the op ran for leaves and constants, None for
                           # computed inputs (their value is in their own OpRecorded.value)
    source: SourceLine | None = None  # the user's line that created the op; None in tapes saved before
                                      # source lines existed
    traceback: tuple | None = None    # anomaly mode (autograd.detect_anomaly) on while the op was recorded:
                                      # the user's frames of the forward call, outermost first (SourceLine
                                      # each, with its function); None otherwise


@_frozen
class SourceLine:
    """Where in the user's code an op was created: the first frame outside autogradlab.
    ``file`` is the frame's file without the machine's path (a tape records :meth:`portable`: ``<cell>``
    for a notebook cell, else relative to the current directory, else the base name), ``line`` its
    1-based line number, ``text`` that line, stripped.""" 
    file: str
    line: int
    text: str
    function: str | None = None   # the function the line is in (``<module>`` at top level); set in
                                  # anomaly-mode tracebacks (``OpRecorded.traceback``), None otherwise

    @property
    def in_cell(self) -> bool:
        """True for a notebook cell (IPython names cells ``.../ipykernel_<pid>/<hash>.py``; a tape's
        JSON calls every cell ``<cell>``)."""
        return self.file == CELL or "ipykernel_" in self.file or self.file.startswith("<ipython-input-")

    def portable(self) -> "SourceLine":
        """The same line without the machine's path (what :meth:`Tape.to_json` stores): a notebook
        cell's file becomes ``<cell>``, a file under the current directory its path relative to it
        (``src/train.py``), any other file its base name."""
        return SourceLine(portable_path(self.file, self.in_cell), self.line, self.text, self.function)

    def label(self) -> str:
        """A short place that does not depend on the machine: "cell, line 3" in a notebook, else the
        file's base name and line ("train.py, line 12")."""
        where = "cell" if self.in_cell else self.file.replace("\\", "/").rsplit("/", 1)[-1]
        return f"{where}, line {self.line}"


CELL = "<cell>"


def portable_path(file: str, in_cell: bool = False) -> str:
    """``file`` without the machine's path: ``<cell>`` for a notebook cell, the path relative to the
    current directory for a file below it, else the base name."""
    if in_cell:
        return CELL
    try:
        cwd = os.getcwd()
    except OSError:                    # the current directory was removed
        cwd = None
    return _portable(file, cwd)


@functools.lru_cache(maxsize=4096)
def _portable(file, cwd):
    if file.startswith("<"):           # <string>, <stdin>, <frozen ...>: not a path
        return file
    if not os.path.isabs(file):
        return file.replace("\\", "/")
    try:
        rel = os.path.relpath(file, cwd) if cwd else os.pardir
    except ValueError:                 # another drive (Windows)
        rel = os.pardir
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return file.replace("\\", "/").rsplit("/", 1)[-1]
    return rel.replace(os.sep, "/")


@_frozen
class PlannedNode:
    """One node of a backward plan (see :class:`BackwardPlan`).

    ``status`` is "run" (its vector-Jacobian product runs; for an AccumulateGrad node: it adds
    into its leaf's ``.grad``), "receive" (a non-leaf named in ``inputs=`` that nothing below it
    needs: it gets its gradient but passes nothing on) or "pruned" (``inputs=`` cut it: no path
    from it leads to an input). ``edges[i]`` is the node id that input ``i``'s gradient goes to
    (None: that input needs no gradient); ``dependencies`` is how many contributions the node
    waits for before it is ready (0 for the roots' nodes and for pruned nodes).
    """
    node_id: int
    node_name: str         # "MulBackward", "AccumulateGrad", ...
    op: str                # the op's name ("mul"); "accumulate_grad" for a leaf's node
    output: TensorRef      # the tensor whose gradient the node receives (its leaf for AccumulateGrad)
    edges: tuple           # per op input: the receiving node id, or None
    dependencies: int
    status: str            # "run" | "receive" | "pruned"


@_frozen
class BackwardPlan:
    """What the engine decided before running anything: every node reached from the roots.

    ``nodes`` come in the order the engine will start them (the ready-queue order: a node
    starts once all its consumers have run, the latest-created ready node first, a leaf's
    AccumulateGrad before any op node), then the pruned nodes in walk order. ``roots`` gives
    the node id of each root; ``inputs`` the node id of each ``inputs=`` entry (None without).

    In a tape's JSON a plan is an object tagged ``"@": "BackwardPlan"`` with ``nodes`` a list of
    objects tagged ``"@": "PlannedNode"`` (their ``output`` a ``"@": "TensorRef"`` object).
    """
    roots: tuple
    inputs: tuple | None
    nodes: tuple           # PlannedNode per node


@_frozen
class BackwardStarted:
    """A backward pass begins (``api`` is "backward" or "grad"); ``pass_index`` counts passes in this tape."""
    step: int
    pass_index: int
    api: str
    roots: tuple
    retain_graph: bool
    create_graph: bool
    inputs: tuple | None
    plan: BackwardPlan | None = None   # what the pass will do (see BackwardPlan): the nodes in the
                                       # order they start, their edges, dependency counts and what
                                       # inputs= pruned; None only in tapes saved before plans existed


@_frozen
class Seeded:
    """Root ``root_index`` receives its seed (ones when ``implicit``, else the given gradient)."""
    step: int
    root_index: int
    tensor: TensorRef
    node_id: int
    seed: Value
    implicit: bool


@_frozen
class NodeStarted:
    """Node ``node_id`` runs with the summed gradient of its output (``grad`` None: nothing reached it)."""
    step: int
    node_id: int
    node_name: str
    output: TensorRef
    grad: Value | None


@_frozen
class GradientComputed:
    """One chain-rule edge: ``contribution = upstream x local derivative`` for input ``input_index``."""
    step: int
    node_id: int
    node_name: str
    input_index: int
    to_node_id: int
    input: TensorRef | None
    upstream: Value
    formula: str
    contribution: Value


@_frozen
class Accumulated:
    """A contribution is added somewhere: ``where`` is "buffer" (pending sum at a fan-in),
    "leaf" (a leaf's ``.grad``), "retained" (a ``retain_grad`` tensor), "input" (a non-leaf in
    ``inputs=``) or "captured" (a result of ``autograd.grad``)."""
    step: int
    where: str
    node_id: int
    tensor: TensorRef | None
    before: Value | None
    contribution: Value
    after: Value


@_frozen
class SavedFreed:
    """Node ``node_id`` released its saved tensors after running (``retain_graph=False``)."""
    step: int
    node_id: int
    node_name: str
    names: tuple
    nbytes: int


@_frozen
class NodePruned:
    """Node ``node_id`` is not run: no path from it leads to the requested ``inputs``."""
    step: int
    node_id: int
    node_name: str
    output: TensorRef      # the tensor whose gradient is not computed (for AccumulateGrad: its leaf)


@_frozen
class HookRan:
    """A hook ran: ``hook`` is "tensor", "node_pre", "node_post" or "post_accumulate"."""
    step: int
    hook: str
    node_id: int
    changed: bool              # the pass goes on with other gradients (returned, or written in place)
    # the gradient(s) the hook was given and the ones the pass goes on with: one Value for "tensor" and
    # "node_pre" hooks, one per input for "node_post" hooks (None where an input has no gradient), the
    # leaf's .grad for "post_accumulate"; None in tapes saved before they were recorded
    before: tuple | None = None
    after: tuple | None = None


@_frozen
class BackwardFinished:
    """The pass ended: how many nodes ran, contributions passed on, bytes of saved tensors freed."""
    step: int
    pass_index: int
    nodes_run: int
    contributions: int
    bytes_freed: int


EVENT_TYPES = {cls.__name__: cls for cls in (OpRecorded, BackwardStarted, Seeded, NodeStarted, GradientComputed,
                                             Accumulated, SavedFreed, NodePruned, HookRan, BackwardFinished)}
