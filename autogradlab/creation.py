"""Factory functions (``zeros``, ``randn``, ...) with PyTorch's names and defaults.

Random numbers come from one seeded NumPy generator on the host (then moved to
the device), so ``manual_seed(0)`` gives the same values on CPU and GPU.
"""
from __future__ import annotations

import math
import operator
import warnings

import numpy

from . import backend
from .tensor import (COMPLEX_DTYPES, Tensor, _check_float, default_complex, default_float, integer_values,
                     size_arguments, tensor)

__all__ = ["zeros", "ones", "full", "zeros_like", "ones_like", "full_like", "rand", "randn", "randint",
           "arange", "linspace", "eye", "manual_seed", "randperm", "from_numpy", "as_tensor", "asarray",
           "frombuffer", "Generator", "initial_seed", "seed", "get_rng_state", "set_rng_state"]

class Generator:
    """A stream of random numbers of its own, PyTorch's ``torch.Generator``: pass it as ``generator=`` to
    ``rand``, ``randn``, ``randint``, ``randperm``, ``DataLoader`` and ``random_split``, so that one part of a
    program draws the same numbers whatever the rest draws::

        g = autogradlab.Generator().manual_seed(42)
        train, val = random_split(dataset, [0.8, 0.2], generator=g)

    A NumPy ``Generator`` underneath (so its numbers differ from PyTorch's for the same seed); a new one
    starts from PyTorch's default seed, 67280421310721."""

    def __init__(self, device="cpu"):
        self.device = backend.normalize_device(device)
        self.manual_seed(67280421310721)

    def manual_seed(self, seed):
        """Start over from ``seed`` (an int); returns the generator itself, as PyTorch's does. A negative seed
        wraps around modulo 2**64, as PyTorch's does."""
        if isinstance(seed, bool) or not isinstance(seed, (int, numpy.integer)):
            raise RuntimeError(f"manual_seed expected an int seed (as PyTorch, a long), got {type(seed).__name__} "
                               f"{seed!r}: write manual_seed(int(seed))")
        self._seed = _wrapped(int(seed))
        self.numpy = numpy.random.default_rng(self._seed)   # the stream itself
        return self

    def initial_seed(self) -> int:
        """The seed this generator last started from."""
        return self._seed

    def seed(self) -> int:
        """Start over from a fresh seed drawn from the operating system; returns it."""
        fresh = int(numpy.random.SeedSequence().entropy % (1 << 63))
        self.manual_seed(fresh)
        return fresh

    def get_state(self) -> Tensor:
        """Where the stream stands, as a uint8 tensor (PyTorch's ByteTensor) to give back to :meth:`set_state`;
        draws after ``set_state(s)`` repeat those after ``s = get_state()``."""
        bits = self.numpy.bit_generator.state
        fields = [(bits["state"]["state"], 16), (bits["state"]["inc"], 16), (bits["has_uint32"], 1),
                  (bits["uinteger"], 4), (self._seed, 8)]
        raw = b"".join(int(value).to_bytes(width, "little") for value, width in fields)
        return tensor(numpy.frombuffer(raw, dtype=numpy.uint8).copy())

    def set_state(self, new_state) -> Generator:
        """Put the stream back where :meth:`get_state` found it; returns the generator."""
        if not isinstance(new_state, Tensor) or new_state.dtype.name != "uint8":
            raise TypeError(f"set_state expected the uint8 tensor that get_state() returned, got "
                            f"{type(new_state).__name__}" + (f" of {new_state.dtype}" if isinstance(new_state, Tensor)
                                                             else ""))
        raw = backend.to_host(new_state._data).tobytes()
        if len(raw) != _STATE_BYTES:
            raise RuntimeError(f"set_state expected a state of {_STATE_BYTES} bytes (from get_state() of an "
                               f"autogradlab Generator), got {len(raw)}; a state from PyTorch does not fit this one")
        state, inc, has, uint, seed = (int.from_bytes(raw[a:b], "little") for a, b in
                                       [(0, 16), (16, 32), (32, 33), (33, 37), (37, 45)])
        if has > 1 or inc % 2 == 0:   # (PCG64's increment is odd; the cached-half flag 0 or 1)
            raise RuntimeError("set_state: this is not a state get_state() returned (it was changed); take a "
                               "fresh one with get_state()")
        stream = numpy.random.PCG64()
        stream.state = {"bit_generator": "PCG64", "state": {"state": state, "inc": inc}, "has_uint32": has,
                        "uinteger": uint}
        self.numpy, self._seed = numpy.random.Generator(stream), seed
        return self

    def __repr__(self):
        return f"Generator(device='{self.device}', initial_seed={self._seed})"


_STATE_BYTES = 16 + 16 + 1 + 4 + 8   # PCG64's state and increment, its cached half-word, and the seed


def _wrapped(seed: int) -> int:
    """PyTorch's range for a seed: -2**63 <= seed < 2**64, a negative one taken modulo 2**64."""
    if not -(1 << 63) <= seed < (1 << 64):
        raise ValueError(f"seed {seed} is out of range: a seed must be at least -2**63 and below 2**64 "
                         f"(PyTorch's 'Overflow when unpacking long long')")
    return seed % (1 << 64)


_default = Generator().manual_seed(0)


def manual_seed(seed) -> Generator:
    """Seed the library's generator, behind ``rand``, ``randn``, ``randint``, ``randperm``, ``nn.init``, dropout
    and shuffling; returns it (a :class:`Generator`, as PyTorch returns its default one). As PyTorch, takes
    anything ``int()`` takes (``1.5`` seeds 1, ``"7"`` seeds 7) and wraps a negative seed modulo 2**64."""
    return _default.manual_seed(int(seed))


def initial_seed() -> int:
    """The seed the library's generator last started from (PyTorch's ``torch.initial_seed``)."""
    return _default.initial_seed()


def seed() -> int:
    """Seed the library's generator from the operating system; returns the seed (``torch.seed``)."""
    return _default.seed()


def get_rng_state() -> Tensor:
    """The library's generator's state, as a uint8 tensor for :func:`set_rng_state` (``torch.get_rng_state``)."""
    return _default.get_state()


def set_rng_state(new_state) -> None:
    """Put the library's generator back to a state from :func:`get_rng_state` (``torch.set_rng_state``)."""
    _default.set_state(new_state)


def default_generator() -> Generator:
    return _default


def _stream(given):
    return generator(given)   # (the argument named generator= hides this module's function in the callers)


def generator(given=None):
    """The NumPy stream to draw from: the library's (``given`` None), a :class:`Generator`'s, or a NumPy
    ``Generator`` given as it is."""
    if given is None:
        return _default.numpy
    if isinstance(given, Generator):
        return given.numpy
    if isinstance(given, numpy.random.Generator):
        return given
    raise TypeError(f"generator= takes an autogradlab.Generator (e.g. autogradlab.Generator().manual_seed(0)), a "
                    f"numpy.random.Generator or None, got {type(given).__name__}")


def _sizes(size, name=None, keywords=None):
    """A shape from ``f(2, 3)``, ``f((2, 3))`` or ``f(size=(2, 3))`` (``keywords``: the factory's other keyword
    arguments, where only ``size`` may be): ints (NumPy's too), none negative, as PyTorch requires (``f(())`` is
    a 0-d tensor; ``f()`` with no size at all is refused when ``name`` says whose it is)."""
    if keywords:
        unknown = [k for k in keywords if k != "size"]
        if unknown:
            raise TypeError(f"{name}() got an unexpected keyword argument '{unknown[0]}'")
        if size:
            raise TypeError(f"{name}() got the size both as positional arguments {size} and as "
                            f"size={keywords['size']!r}")
        size = (keywords["size"],)
    if not size and name is not None:
        raise TypeError(f"{name}() missing 1 required positional argument: 'size' (write {name}(()) for a 0-d "
                        f"tensor, or {name}(2, 3))")
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    shape = []
    for s in size:
        try:
            shape.append(operator.index(s))
        except TypeError:
            raise TypeError(f"a size must be ints, got {type(s).__name__} {s!r} in {tuple(size)}"
                            + (f": write {int(s)}" if isinstance(s, float) else "")) from None
    if any(n < 0 for n in shape):
        raise RuntimeError(f"Dimension size must be non-negative, got the size {tuple(shape)}")
    return tuple(shape)


def _whole(value, what, name):
    """``value`` as an int for argument ``what`` of ``name`` (not a bool or a float, as PyTorch requires)."""
    if isinstance(value, Tensor) and value.ndim == 0 and value.dtype.kind in "iu":
        return int(value.item())
    if isinstance(value, bool) or not isinstance(value, (int, numpy.integer)):
        raise TypeError(f"{name}(): argument '{what}' must be int, not {type(value).__name__} ({value!r})")
    return int(value)


def _finish(host, dtype, device, requires_grad, name=None):
    host = numpy.asarray(host)   # (NumPy's draws of a 0-d parameter come back as Python numbers)
    if host.dtype.kind == "c" and numpy.dtype(dtype).kind != "c":   # (PyTorch: "value cannot be converted")
        raise TypeError(f"complex values can't be held in a {numpy.dtype(dtype).name} tensor (their imaginary "
                        f"parts would be lost): leave dtype out, or pass dtype=complex64 / complex128")
    device = backend.normalize_device(device)
    data = backend.asarray(host, device, dtype)
    t = Tensor._make(data, False, None, device)
    if requires_grad:
        _check_float(data.dtype)
        t._requires_grad = True
    t.name = name
    return t


def _float(dtype):
    return numpy.dtype(dtype) if dtype is not None else default_float()


def zeros(*size, dtype=None, device=None, requires_grad=False, **keyword):
    return _finish(numpy.zeros(_sizes(size, "zeros", keyword)), _float(dtype), device, requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False, **keyword):
    return _finish(numpy.ones(_sizes(size, "ones", keyword)), _float(dtype), device, requires_grad)


def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"full(): argument 'size' must be a tuple of ints, not {type(size).__name__}: write "
                        f"full(({size!r},), {fill_value!r})")
    fill_value = _number(fill_value, "fill_value", "full")   # (a NumPy number or 0-d tensor: its Python value)
    if dtype is not None and numpy.dtype(dtype).kind != "c" and isinstance(fill_value, (complex, numpy.complexfloating)):
        if fill_value.imag != 0:
            raise RuntimeError(f"full(): value {fill_value} cannot be converted to type {numpy.dtype(dtype).name} "
                               f"without overflow (its imaginary part would be lost): leave dtype out")
        fill_value = fill_value.real
    if dtype is None:
        dtype = numpy.dtype("int64") if isinstance(fill_value, (int, bool)) and not isinstance(fill_value, bool) \
            else numpy.dtype("bool") if isinstance(fill_value, bool) \
            else default_complex() if isinstance(fill_value, (complex, numpy.complexfloating)) else default_float()
    if numpy.dtype(dtype).kind in "iu" and not isinstance(fill_value, bool):
        fill_value = integer_values(fill_value, numpy.dtype(dtype), "full()")
    elif numpy.dtype(dtype).kind in "fc":
        _fits_float(fill_value, numpy.dtype(dtype), "full()")
    return _finish(numpy.full(_sizes((size,)), fill_value), dtype, device, requires_grad)


def _fits_float(value, dtype, name):
    """Refuse a finite number beyond ``dtype``'s range (1e40 in float32 would be inf), as PyTorch refuses it."""
    top = float(numpy.finfo(dtype).max)
    for part in ((value.real, value.imag) if isinstance(value, (complex, numpy.complexfloating)) else (value,)):
        if isinstance(part, (int, float, numpy.number)) and not isinstance(part, bool) and math.isfinite(part) \
                and abs(part) > top:
            raise RuntimeError(f"{name}: value {value} cannot be converted to type {dtype.name} without overflow "
                               f"(its largest is {top:g}): use a wider dtype, or inf")


def _like(t, fill, dtype, device, requires_grad, name):
    if not isinstance(t, Tensor):   # (as PyTorch: a number or list has no shape, dtype or device to copy)
        raise TypeError(f"{name}() expects a Tensor to take the shape, dtype and device of, but got "
                        f"{type(t).__name__} {t!r:.40}: wrap it with autogradlab.tensor(...), or use "
                        f"{name[:-5]}(size) for a given size")
    xp = backend.xp_for(t.device if device is None else backend.normalize_device(device))
    dev = t.device if device is None else backend.normalize_device(device)
    data = xp.empty(t.shape, dtype=t.dtype if dtype is None else numpy.dtype(dtype))
    data.fill(fill)   # (what numpy.full does, without its Python wrapper: half the time for a small seed)
    out = Tensor._make(data, False, None, dev)
    if requires_grad:
        _check_float(data.dtype)
        out._requires_grad = True
    return out


def zeros_like(input, *, dtype=None, device=None, requires_grad=False):
    return _like(input, 0, dtype, device, requires_grad, "zeros_like")


def ones_like(input, *, dtype=None, device=None, requires_grad=False):
    return _like(input, 1, dtype, device, requires_grad, "ones_like")


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False):
    return _like(input, fill_value, dtype, device, requires_grad, "full_like")


def _random_float(draw, size, dtype, kernel):
    """``draw(shape)`` for a float dtype; for a complex one, a draw for each part (``randn``: each part with
    variance 1/2, so the complex numbers have variance 1, as PyTorch's). Integer and bool dtypes are refused."""
    dtype = _float(dtype)
    if dtype.kind in "iub":
        raise NotImplementedError(f'"{kernel}" not implemented for {dtype.name}: draw floats and convert them, '
                                  f'or use randint for integers')
    if dtype.kind == "c":
        scale = 0.5 ** 0.5 if kernel == "normal_kernel_cpu" else 1.0
        return (draw(size) + 1j * draw(size)) * scale, dtype
    return draw(size), dtype


def rand(*size, generator=None, dtype=None, device=None, requires_grad=False, **keyword):
    """Uniform on [0, 1) (for a complex dtype, each part)."""
    host, dtype = _random_float(_stream(generator).random, _sizes(size, "rand", keyword), dtype,
                                "check_uniform_bounds")
    return _finish(host, dtype, device, requires_grad)


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False, **keyword):
    """Standard normal (for a complex dtype, variance 1: each part with variance 1/2)."""
    host, dtype = _random_float(_stream(generator).standard_normal, _sizes(size, "randn", keyword), dtype,
                                "normal_kernel_cpu")
    return _finish(host, dtype, device, requires_grad)


def randint(low=0, high=None, size=None, *, generator=None, dtype=None, device=None, requires_grad=False):
    """Integers uniform in [low, high): ``randint(high, size)`` or ``randint(low, high, size)``, as PyTorch."""
    if size is None:        # randint(high, size): the first two arguments were high and size
        low, high, size = 0, low, high
    elif high is None:      # randint(high, size=...)
        low, high = 0, low
    if size is None or high is None:
        raise TypeError("randint() missing the size: write randint(high, (n,)) or randint(low, high, (n,))")
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"randint(): argument 'size' must be a tuple of ints, not {type(size).__name__} "
                        f"({size!r}): write ({size!r},)")
    low, high = _whole(low, "low", "randint"), _whole(high, "high", "randint")
    for name, value in (("low", low), ("high", high)):
        if not -(1 << 63) <= value < (1 << 63):
            raise ValueError(f"randint(): {name}={value} is out of range of int64 (PyTorch's 'Overflow when "
                             f"unpacking long long')")
    if low >= high:
        raise RuntimeError(f"randint() draws from [low, high), so low must be less than high, got low={low}, "
                           f"high={high}")
    dtype = numpy.dtype(dtype or "int64")
    _check_fits(dtype, low, high - 1, "randint", "low", "high - 1")
    return _finish(_stream(generator).integers(low, high, size=_sizes((size,))), dtype, device, requires_grad)


def _check_fits(dtype, low, high, name, low_what, high_what):
    """Refuse draws an integer or bool ``dtype`` cannot hold (they would wrap around), as PyTorch does."""
    if dtype.kind not in "biu":
        return
    lo, hi = (0, 1) if dtype.kind == "b" else (int(numpy.iinfo(dtype).min), int(numpy.iinfo(dtype).max))
    for what, value in ((low_what, low), (high_what, high)):
        if not lo <= value <= hi:
            raise RuntimeError(f"{name}(): {what} = {value} is out of bounds for {dtype.name} ([{lo}, {hi}]); "
                               f"pick a wider dtype, e.g. dtype=autogradlab.int64")


def randperm(n, *, generator=None, dtype=None, device=None, requires_grad=False):
    """A random permutation of 0, ..., n - 1 (int64)."""
    n = _whole(n, "n", "randperm")
    if n < 0:
        raise RuntimeError(f"randperm(n) needs n >= 0 (a permutation of 0, ..., n - 1), got n={n}")
    dtype = numpy.dtype(dtype or "int64")
    if n:
        _check_fits(dtype, 0, n - 1, "randperm", "0", "n - 1")
    if dtype == numpy.float16 and n > 2049:
        raise RuntimeError(f"randperm(): n cannot be greater than 2049 for float16 (its whole numbers end there), "
                           f"got n={n}")
    return _finish(_stream(generator).permutation(n), dtype, device, requires_grad)


def _number(value, what, fn):
    """A Python number from a number, a NumPy number or a 0-d tensor (PyTorch takes all three)."""
    if isinstance(value, Tensor) and value.ndim == 0:
        return value.item()
    if isinstance(value, numpy.generic):
        return value.item()
    if not isinstance(value, (int, float, complex)):
        raise TypeError(f"{fn}(): argument '{what}' must be a number (or a 0-d tensor), not "
                        f"{type(value).__name__}" + (f" of shape {tuple(value.shape)}: take an element, "
                                                     f"t[0]" if isinstance(value, Tensor) else ""))
    return value


def _two_product(a, b):
    """``a * b`` as the rounded product and its exact rounding error (Dekker's split)."""
    p = a * b
    a_hi = 134217729.0 * a - (134217729.0 * a - a)
    b_hi = 134217729.0 * b - (134217729.0 * b - b)
    a_lo, b_lo = a - a_hi, b - b_hi
    return p, ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo


def _fused(a, b, c):
    """``a * b + c`` rounded once, as a fused multiply-add (float64 arrays): PyTorch's CPU kernels use one."""
    p, e = _two_product(a, b)
    total = p + c
    back = total - p
    return total + (((p - (total - back)) + (c - back)) + e)


def _even_steps(start, end, steps, work, fused=True):
    """``steps`` values from ``start`` to ``end`` as PyTorch's CPU kernel makes them, so that they print as
    torch's do: the first half counted up from ``start``, the second half down from ``end`` (so both ends are
    exact), each ``start + step * i`` (or ``end - step * j``) computed in ``work`` (float16, float32 or
    float64) as a fused multiply-add (``fused=False``, and float16: a product, rounded, then a sum). Returned as
    float64."""
    if steps == 1:
        return numpy.full(1, start, dtype=numpy.float64)
    i = numpy.arange(steps, dtype=numpy.float64)
    if work is numpy.float16:   # (every step rounded to float16, as PyTorch's Half arithmetic)
        h = numpy.float16
        with numpy.errstate(all="ignore"):
            step, lo, hi, ih, jh = h((h(end) - h(start)) / h(steps - 1)), h(start), h(end), i.astype(h), (
                steps - 1 - i).astype(h)
            up, down = lo + step * ih, hi - step * jh
        return numpy.where(i < steps // 2, up, down).astype(numpy.float64)
    step = numpy.float64(work((work(end) - work(start)) / work(steps - 1)))
    lo, hi = numpy.float64(work(start)), numpy.float64(work(end))
    if work is numpy.float32 or not fused:   # (a float32 product is exact in float64: one rounding, as fused)
        up, down = lo + step * i, hi - step * (steps - 1 - i)
    else:
        up, down = _fused(numpy.full(steps, step), i, lo), _fused(numpy.full(steps, -step), steps - 1 - i, hi)
    return numpy.where(i < steps // 2, up, down).astype(work).astype(numpy.float64)


def arange(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False):
    """``start, start + step, ...`` up to (not including) ``end``; ``arange(n)`` is ``0, ..., n - 1``. int64
    when the three are integers (Python's, NumPy's or 0-d integer tensors), else the default float dtype.
    ``dtype=int64`` takes the three as integers; a narrower integer dtype counts the values from the three as
    given, then truncates start and step (PyTorch's two rules). Each value is ``start + i * step``."""
    start, end, step = (None if v is None else _number(v, name, "arange")
                        for v, name in ((start, "start"), (end, "end"), (step, "step")))
    if end is None:
        start, end = 0, start
    if dtype is None:
        dtype = numpy.dtype("int64") if all(isinstance(v, int) for v in (start, end, step)) else default_float()
    dtype = numpy.dtype(dtype)
    if dtype.kind in "bc":
        raise NotImplementedError(f'"arange_cpu" not implemented for {dtype.name}: make the range as int64 or a '
                                  f'float dtype, then convert it, e.g. arange(n).to(...)')
    if any(isinstance(v, complex) or not math.isfinite(v) for v in (start, end, step)):
        raise RuntimeError(f"unsupported range: {start} -> {end} (step {step}); arange needs finite real ends "
                           f"and step")
    if step == 0:
        raise RuntimeError(f"step must be nonzero (arange({start}, {end}, {step}))")
    narrow = dtype.kind in "iu" and dtype != numpy.int64   # (PyTorch's other integer dtypes: see below)
    if dtype == numpy.int64:
        start, end, step = int(start), int(end), int(step)
        if step == 0:   # (PyTorch's class for a step that truncates to 0)
            raise ValueError(f"step must be nonzero: an integer dtype takes the step as an integer, and "
                             f"{step!r} truncates to 0; pass a step of at least 1")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError(f"upper bound and larger bound inconsistent with step sign: arange({start}, {end}, "
                           f"{step}) goes {'up' if step > 0 else 'down'} from {start}, away from {end}; "
                           f"flip the sign of step")
    if dtype == numpy.int64:
        host = numpy.arange(start, end, step, dtype=numpy.int64)
    elif narrow:   # (as PyTorch: the length from the values as given, then start and step truncated: int32's
        size = math.ceil((end - start) / step)   # arange(0, 5.5) has 6 values, int64's 5)
        host = int(start) + numpy.arange(size, dtype=numpy.int64) * int(step)
    else:
        host = start + numpy.arange(math.ceil((end - start) / step), dtype=numpy.float64) * step
    return _finish(host, dtype, device, requires_grad)


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False):
    """``steps`` evenly spaced values from ``start`` to ``end``, both included (the default float dtype;
    complex for complex ends), with the values PyTorch's CPU kernel gives for floats (to the last bit)."""
    start, end = _number(start, "start", "linspace"), _number(end, "end", "linspace")
    steps = _whole(steps, "steps", "linspace")
    if steps < 0:
        raise RuntimeError(f"linspace(): number of steps must be non-negative, got steps={steps}")
    complex_ends = isinstance(start, complex) or isinstance(end, complex)
    dtype = (default_complex() if complex_ends else default_float()) if dtype is None else numpy.dtype(dtype)
    if dtype.kind == "b":
        raise NotImplementedError('"linspace_cpu" not implemented for bool: make it as a float dtype and compare')
    if complex_ends or dtype.kind == "c":
        host = numpy.linspace(start, end, steps)
    elif not steps:
        host = numpy.zeros(0)
    elif dtype.kind in "iu":   # (the ends taken as integers, which must fit; each value truncated)
        ends = integer_values([int(start), int(end)], dtype, "linspace()")
        host = numpy.trunc(_even_steps(float(ends[0]), float(ends[1]), steps, numpy.float64, fused=False))
    else:
        host = _even_steps(float(start), float(end), steps, {2: numpy.float16, 4: numpy.float32}.get(dtype.itemsize,
                                                                                                     numpy.float64))
    return _finish(host, dtype, device, requires_grad)


def eye(n, m=None, dtype=None, device=None, requires_grad=False):
    return _finish(numpy.eye(n, m), _float(dtype), device, requires_grad)


def from_numpy(array) -> Tensor:
    """A CPU tensor that shares ``array``'s memory (no copy, as PyTorch's): a write to either shows in the
    other. (Writes through NumPy bypass the version counter that guards saved tensors: do not change an
    array in place while a graph that used it waits for its backward.)"""
    if not isinstance(array, numpy.ndarray):
        raise TypeError(f"from_numpy() expects a NumPy array, got {type(array).__name__}: use tensor(...) for a "
                        f"number or a list (it copies)")
    if not (array.dtype.kind in "fiub" and array.dtype.itemsize <= 8 or array.dtype in COMPLEX_DTYPES):
        raise TypeError(f"from_numpy(): unsupported dtype {array.dtype.name}; tensors hold floats (16 to 64 bits), "
                        f"complex64/complex128, integers or bools")
    if not array.dtype.isnative:
        raise ValueError(f"from_numpy(): the array's bytes are in the other byte order ({array.dtype.str}); "
                         f"convert it first: array.astype(array.dtype.newbyteorder('='))")
    if not array.flags.writeable:
        warnings.warn("from_numpy(): the NumPy array is not writable, and the tensor shares its memory, so an "
                      "in-place op on the tensor will raise. Pass array.copy() for a tensor you can change.",
                      UserWarning, stacklevel=2)
    return Tensor._make(backend.asarray(array, "cpu"), False, None, "cpu")


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """``data`` as a tensor, without a copy where none is needed: a Tensor already of ``dtype`` on ``device``
    comes back as it is (else converted, differentiably, as ``data.to(...)``); a NumPy array of ``dtype``, for
    the CPU, is shared as :func:`from_numpy` shares it; anything else is copied, as by :func:`tensor`."""
    if isinstance(data, Tensor):
        out = data if dtype is None else data.to(numpy.dtype(dtype))
        return out if device is None else out.to(backend.normalize_device(device))
    if (isinstance(data, numpy.ndarray) and (dtype is None or numpy.dtype(dtype) == data.dtype)
            and backend.normalize_device(device) == "cpu"):
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None) -> Tensor:
    """``obj`` as a tensor, sharing its memory where it can (PyTorch's ``torch.asarray``): a Tensor, a NumPy
    array or NumPy number keep their dtype and memory unless ``dtype``/``device`` need a conversion or
    ``copy=True``; a bytes-like buffer is read as ``frombuffer`` reads it; numbers and lists are copied, as by
    :func:`tensor`. ``copy=False`` refuses (ValueError) where a copy would be needed. ``requires_grad``: a
    Tensor keeps its own (and its history) unless told; ``False`` detaches, ``True`` makes a leaf that requires
    grad where there is no history."""
    if isinstance(obj, (bytes, bytearray, memoryview)):   # (read as dtype: then as an array of it)
        out = frombuffer(obj, dtype=default_float() if dtype is None else dtype)
    elif not isinstance(obj, (Tensor, numpy.ndarray, numpy.generic)):
        if copy is False:
            raise ValueError(f"asarray(copy=False): a {type(obj).__name__} has no tensor memory to share; "
                             f"pass copy=None (or True) to copy it into a new tensor")
        return tensor(obj, dtype=dtype, device=device, requires_grad=bool(requires_grad))
    elif isinstance(obj, Tensor):
        if requires_grad is None and obj.requires_grad:
            warnings.warn("torch.asarray: unspecified requires_grad now defaults to obj.requires_grad instead of "
                          "False. Pass requires_grad=False explicitly to get the old behavior and silence this "
                          "warning.", UserWarning, stacklevel=2)
        out = obj
    else:   # (a NumPy array or number, shared as from_numpy shares it)
        out = from_numpy(numpy.asarray(obj))
    wanted_dtype = out.dtype if dtype is None else numpy.dtype(dtype)
    wanted_device = out.device if device is None else backend.normalize_device(device)
    if copy is False and (wanted_dtype, wanted_device) != (out.dtype, out.device):
        raise ValueError(f"asarray(copy=False): a tensor of {out.dtype.name} on {out.device} cannot be shared as "
                         f"{wanted_dtype.name} on {wanted_device}; drop copy=False to convert it (a copy)")
    if (wanted_dtype, wanted_device) != (out.dtype, out.device):
        out = out.to(wanted_device, wanted_dtype)   # (differentiable, as PyTorch's)
    elif copy:
        out = out.clone()
    if requires_grad is False and out.requires_grad:
        out = out.detach()
    elif requires_grad and not out.requires_grad:
        out = out.detach().requires_grad_()
    return out


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False) -> Tensor:
    """A 1-D CPU tensor over the bytes of ``buffer`` (bytes, bytearray, memoryview, array.array...), read as
    ``count`` elements of ``dtype`` from byte ``offset`` (-1: all that are left). It shares the buffer's memory."""
    dtype = numpy.dtype(dtype)
    size = memoryview(buffer).nbytes
    if offset < 0 or offset >= size:
        raise ValueError(f"frombuffer(): offset ({offset} bytes) must be non-negative and less than the buffer "
                         f"length ({size} bytes)")
    if count == -1 and (size - offset) % dtype.itemsize:
        raise ValueError(f"buffer length ({size - offset} bytes) after offset ({offset} bytes) must be a multiple "
                         f"of element size ({dtype.itemsize}); give dtype= of an element that size, or count=")
    if count != -1 and (count <= 0 or offset + count * dtype.itemsize > size):
        raise ValueError(f"frombuffer(): count ({count}) must be positive and, from offset {offset}, fit in the "
                         f"buffer's {size} bytes as {dtype.name} elements of {dtype.itemsize} bytes")
    with warnings.catch_warnings():   # (from_numpy's warning for a read-only buffer, said here once)
        warnings.simplefilter("ignore")
        out = from_numpy(numpy.frombuffer(buffer, dtype=dtype, count=count, offset=offset))
    if not out._data.flags.writeable:
        warnings.warn("frombuffer(): the buffer is not writable, and the tensor shares its memory, so an in-place "
                      "op on the tensor will raise; pass a bytearray for a tensor you can change", UserWarning,
                      stacklevel=2)
    return out.requires_grad_() if requires_grad else out


# -- PyTorch's legacy tensor types ------------------------------------------------------------------------

class _LegacyType(type):
    """The type of ``FloatTensor`` and kin: calling one makes a CPU tensor of its dtype (from data, or of a
    size); ``isinstance(x, FloatTensor)`` asks whether ``x`` is a CPU tensor of that dtype;
    ``x.type(FloatTensor)`` casts to it."""

    def __call__(cls, *args, device="cpu", size=None):
        shape = size_arguments(args if size is None else tuple(size) + args, cls.__name__)
        if shape is not None:   # (zeros, where PyTorch leaves the memory as it finds it)
            return zeros(shape, dtype=cls.dtype, device=device)
        data = args[0].detach() if isinstance(args[0], Tensor) else args[0]
        return tensor(data, dtype=cls.dtype, device=device)

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj.dtype == cls.dtype and obj.device == "cpu"


def _legacy(name, dtype):
    return _LegacyType(name, (), {"dtype": numpy.dtype(dtype), "__module__": "autogradlab",
                                  "__doc__": f"PyTorch's legacy {name}: a tensor of dtype {dtype}."})


FloatTensor, DoubleTensor, HalfTensor = (_legacy(n, d) for n, d in (
    ("FloatTensor", "float32"), ("DoubleTensor", "float64"), ("HalfTensor", "float16")))
LongTensor, IntTensor, ShortTensor, CharTensor, ByteTensor, BoolTensor = (_legacy(n, d) for n, d in (
    ("LongTensor", "int64"), ("IntTensor", "int32"), ("ShortTensor", "int16"), ("CharTensor", "int8"),
    ("ByteTensor", "uint8"), ("BoolTensor", "bool")))
