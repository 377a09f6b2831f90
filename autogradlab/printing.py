"""How a tensor's values print: PyTorch's layout and number format, so a lab's output reads the same in
``torch`` (print options: 4 digits, summarised past 1,000 elements with 3 at each edge, 80 columns; changed by
:func:`set_printoptions`, PyTorch's, as ``autogradlab.set_printoptions``).

The number format is chosen once per tensor from its finite non-zero values (of the summarised part, if
summarised): whole numbers print as ``3.``, others with 4 decimals, and scientific notation (``1.0000e+10``)
when they span more than a factor 1,000 or reach 1e8 or fall under 1e-4. Every element is right-aligned to
the widest of those values: ``inf`` and ``nan`` do not widen the columns.

This module knows only NumPy: ``tensor.py`` calls :func:`values_text` with a host array.
"""
from __future__ import annotations

import math

import numpy

__all__ = ["values_text", "with_suffixes", "set_printoptions"]

_PROFILES = {   # PyTorch's: precision, threshold, edgeitems, linewidth
    "default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80),
}
OPTIONS = dict(_PROFILES["default"], sci_mode=None)


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    """PyTorch's print options: ``precision`` (decimals), ``threshold`` (more elements than this are
    summarised), ``edgeitems`` (shown at each edge then), ``linewidth``; ``profile`` "default", "short" or
    "full" sets all four first. ``sci_mode`` True or False forces scientific notation on or off; as in PyTorch,
    every call sets it (None, the automatic choice, when not given)."""
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"set_printoptions(): profile must be one of {sorted(_PROFILES)}, got {profile!r}")
        OPTIONS.update(_PROFILES[profile])
    for name, value in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                        ("linewidth", linewidth)):
        if value is not None:
            OPTIONS[name] = value
    OPTIONS["sci_mode"] = sci_mode


def values_text(host, indent: int) -> str:
    """The bracketed values of ``host`` (a NumPy array), the first line starting ``indent`` columns in."""
    if host.size == 0:
        return "[]"
    summarize = host.size > OPTIONS["threshold"]
    width, fmt = _number_format(_summarized(host) if summarize else host)
    return _layout(host, indent, summarize, width, fmt)


def with_suffixes(text: str, suffixes, indent: int) -> str:
    """``text`` then ``, suffix`` for each, a suffix that would pass the line width going on a line of its
    own ``indent`` columns in; then the closing parenthesis. (A ``dtype=float64`` counts as PyTorch's longer
    ``dtype=torch.float64``, a ``grad_fn=<MulBackward>`` as its ``<MulBackward0>``, so lines break where PyTorch
    breaks them.)"""
    parts, line = [text], len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        size = len(suffix) + (6 if suffix.startswith("dtype=") else 1 if suffix.startswith("grad_fn=") else 0)
        if line + size + 2 > OPTIONS["linewidth"]:
            parts.append(",\n" + " " * indent + suffix)
            line = indent + size
        else:
            parts.append(", " + suffix)
            line += size + 2
    return "".join(parts) + ")"


def _summarized(a):
    """The elements that will be shown: the first and last ``edgeitems`` along each dim longer than twice that."""
    edge = OPTIONS["edgeitems"]
    if a.ndim == 0:
        return a
    keep = len(a) > 2 * edge
    if a.ndim == 1:
        return numpy.concatenate((a[:edge], a[len(a) - edge:])) if keep else a
    rows = [*range(edge), *range(len(a) - edge, len(a))] if keep else range(len(a))
    if not rows:
        return a[:0]
    return numpy.stack([_summarized(a[i]) for i in rows])


def _number_format(shown):
    """``(width, format)``: every element's text right-aligned to ``width`` columns. A complex number is its
    real part, in the format of all the real parts, then its imaginary part, signed, in theirs, then ``j``."""
    if shown.dtype.kind == "c":
        real_width, real = _number_format(shown.real)
        imag_width, imag = _number_format(shown.imag)

        def fmt_complex(v):
            imag_text = imag(v.imag).lstrip()
            return real(v.real) + ("" if imag_text[0] in "+-" else "+") + imag_text + "j"
        return real_width + imag_width + 1, fmt_complex   # (PyTorch's count: a line holds as many as its)
    if shown.dtype.kind != "f":   # integers and bools as Python prints them
        width = max(len(str(v)) for v in shown.reshape(-1).tolist()) if shown.size else 1
        return width, lambda v: str(v).rjust(width)
    flat = shown.reshape(-1).astype(numpy.float64)
    values = flat[numpy.isfinite(flat) & (flat != 0)]
    digits, forced = OPTIONS["precision"], OPTIONS["sci_mode"]
    whole, sci, width = True, False, 1
    if values.size:
        mags = numpy.abs(values)
        smallest, largest = float(mags.min()), float(mags.max())
        whole = bool(numpy.all(values == numpy.ceil(values)))
        sci = bool(forced) if forced is not None else (largest / smallest > 1000.0 or largest > 1.0e8
                                                        or smallest < 1.0e-4)
        texts = [f"{v:.{digits}e}" if sci else f"{v:.0f}." if whole else f"{v:.{digits}f}"
                 for v in values.tolist()]
        width = max(len(t) for t in texts)

    def fmt(v):
        if sci:
            text = f"{v:.{digits}e}"
        elif whole:
            text = f"{v:.0f}" + ("" if math.isinf(v) or math.isnan(v) else ".")
        else:
            text = f"{v:.{digits}f}"
        return text.rjust(width)
    return width, fmt


def _layout(a, indent, summarize, width, fmt):
    if a.ndim == 0:
        return fmt(a.item())
    edge = OPTIONS["edgeitems"]
    cut = summarize and len(a) > 2 * edge
    if a.ndim == 1:
        per_line = max(1, math.floor((OPTIONS["linewidth"] - indent) / (width + 2)))   # (a float linewidth too)
        items = ([fmt(v) for v in a[:edge].tolist()] + [" ..."] + [fmt(v) for v in a[len(a) - edge:].tolist()]
                 if cut else [fmt(v) for v in a.tolist()])
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = [*range(edge), None, *range(len(a) - edge, len(a))] if cut else range(len(a))
    parts = ["..." if i is None else _layout(a[i], indent + 1, summarize, width, fmt) for i in rows]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(parts) + "]"
