"""Discretized copies of real-valued features: indicator columns per bin, edges fitted on train.

A linear model can only weigh a real value up or down; an indicator per bin lets it learn any
shape (BLEU helps up to a point, a hypothesis much longer than its premise is suspicious). Bins
are quantiles of the training values; integer-valued columns (length differences, counts) put
their edges between integers, or give every value seen in training an indicator of its own.

Bin b covers [edges[b-1], edges[b]) with the ends open, so every value falls in exactly one bin.
"""
from __future__ import annotations

import numpy as np


def fit_edges(values: np.ndarray, bins: int, integer: bool, integer_mode: str = "values") -> np.ndarray:
    """Edges splitting one column's training values into at most `bins` bins (fewer with ties).

    integer: the column only takes whole numbers; edges then sit halfway between integers, and
        with integer_mode="values" each value seen in training gets its own bin (at most `bins`:
        beyond that, the values are grouped by quantiles).
    """
    values = np.asarray(values, dtype=np.float64)
    if bins < 2 or len(values) == 0:
        return np.zeros(0)
    if integer:
        seen = _distinct_integers(values)
        if integer_mode == "values" and len(seen) <= bins:
            return seen[:-1] + 0.5
    edges = np.quantile(values, np.linspace(0, 1, bins + 1)[1:-1], method="linear")
    if integer:
        edges = np.floor(edges) + 0.5
    edges = np.unique(edges)
    # An edge at or below the smallest value (many ties at the minimum, e.g. BLEU 0) would leave
    # the first bin empty, and one above the largest the last.
    return edges[(edges > values.min()) & (edges <= values.max())]


def _distinct_integers(values: np.ndarray) -> np.ndarray:
    """np.unique of whole numbers; by counting when their range is small (counts, lengths: ~10x
    faster than hashing half a million values, for each of the dozens of count columns)."""
    low, high = values.min(), values.max()
    if high - low < 1 << 16:
        offsets = (values - low).astype(np.int64)
        return np.flatnonzero(np.bincount(offsets, minlength=int(high - low) + 1)) + low
    return np.unique(values)


def bin_index(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """The bin of each value (0 .. len(edges)): how many edges are <= it (NaN: all of them)."""
    values = np.asarray(values, dtype=np.float64)
    if len(edges) > 16:
        return np.searchsorted(edges, values, side="right")
    # Against a handful of edges, a comparison per edge is several times faster than a binary
    # search per value, and counting the edges above a value puts NaN last as the search does.
    above = np.zeros(len(values), dtype=np.intp)
    for edge in edges:
        above += values < edge
    return len(edges) - above


def bin_names(edges: np.ndarray, integer: bool) -> list[str]:
    """Readable names of the len(edges) + 1 bins: `bin=0.12..0.35`, `bin=-3..-2`, `value=4`, `bin=5..`."""
    n = len(edges) + 1
    names = []
    for b in range(n):
        lo = edges[b - 1] if b > 0 else None
        hi = edges[b] if b < len(edges) else None
        if integer:
            first = None if lo is None else int(np.ceil(lo))
            last = None if hi is None else int(np.floor(hi))
            if first is not None and first == last:
                names.append(f"value={first}")
            else:
                names.append(f"bin={'' if first is None else first}..{'' if last is None else last}")
        else:
            names.append(f"bin={'' if lo is None else _number(lo)}..{'' if hi is None else _number(hi)}")
    return names


def _number(x: float) -> str:
    return f"{x:.3g}"
