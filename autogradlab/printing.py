"""How a tensor's values print: PyTorch's layout and number format, so a lab's output reads the same in
``torch`` (print options: 4 digits, summarised past 1,000 elements with 3 at each edge, 80 columns).

The number format is chosen once per tensor from its finite non-zero values (of the summarised part, if
summarised): whole numbers print as ``3.``, others with 4 decimals, and scientific notation (``1.0000e+10``)
when they span more than a factor 1,000 or reach 1e8 or fall under 1e-4. Every element is right-aligned to
the widest of those values: ``inf`` and ``nan`` do not widen the columns.

This module knows only NumPy: ``tensor.py`` calls :func:`values_text` with a host array.
"""
from __future__ import annotations

import math

import numpy

__all__ = ["values_text", "with_suffixes"]

PRECISION, THRESHOLD, EDGEITEMS, LINEWIDTH = 4, 1000, 3, 80


def values_text(host, indent: int) -> str:
    """The bracketed values of ``host`` (a NumPy array), the first line starting ``indent`` columns in."""
    if host.size == 0:
        return "[]"
    summarize = host.size > THRESHOLD
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
        if line + size + 2 > LINEWIDTH:
            parts.append(",\n" + " " * indent + suffix)
            line = indent + size
        else:
            parts.append(", " + suffix)
            line += size + 2
    return "".join(parts) + ")"


def _summarized(a):
    """The elements that will be shown: the first and last ``EDGEITEMS`` along each dim longer than twice that."""
    if a.ndim == 0:
        return a
    keep = len(a) > 2 * EDGEITEMS
    if a.ndim == 1:
        return numpy.concatenate((a[:EDGEITEMS], a[-EDGEITEMS:])) if keep else a
    rows = [*range(EDGEITEMS), *range(len(a) - EDGEITEMS, len(a))] if keep else range(len(a))
    return numpy.stack([_summarized(a[i]) for i in rows])


def _number_format(shown):
    """``(width, format)``: every element's text right-aligned to ``width`` columns."""
    if shown.dtype.kind != "f":   # integers and bools as Python prints them
        width = max(len(str(v)) for v in shown.reshape(-1).tolist()) if shown.size else 1
        return width, lambda v: str(v).rjust(width)
    flat = shown.reshape(-1).astype(numpy.float64)
    values = flat[numpy.isfinite(flat) & (flat != 0)]
    whole, sci, width = True, False, 1
    if values.size:
        mags = numpy.abs(values)
        smallest, largest = float(mags.min()), float(mags.max())
        whole = bool(numpy.all(values == numpy.ceil(values)))
        sci = largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4
        texts = [f"{v:.{PRECISION}e}" if sci else f"{v:.0f}." if whole else f"{v:.{PRECISION}f}"
                 for v in values.tolist()]
        width = max(len(t) for t in texts)

    def fmt(v):
        if sci:
            text = f"{v:.{PRECISION}e}"
        elif whole:
            text = f"{v:.0f}" + ("" if math.isinf(v) or math.isnan(v) else ".")
        else:
            text = f"{v:.{PRECISION}f}"
        return text.rjust(width)
    return width, fmt


def _layout(a, indent, summarize, width, fmt):
    if a.ndim == 0:
        return fmt(a.item())
    cut = summarize and len(a) > 2 * EDGEITEMS
    if a.ndim == 1:
        per_line = max(1, (LINEWIDTH - indent) // (width + 2))
        items = ([fmt(v) for v in a[:EDGEITEMS].tolist()] + [" ..."] + [fmt(v) for v in a[-EDGEITEMS:].tolist()]
                 if cut else [fmt(v) for v in a.tolist()])
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = [*range(EDGEITEMS), None, *range(len(a) - EDGEITEMS, len(a))] if cut else range(len(a))
    parts = ["..." if i is None else _layout(a[i], indent + 1, summarize, width, fmt) for i in rows]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(parts) + "]"
