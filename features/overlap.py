"""`overlap`: how much of the hypothesis occurs in the premise (SNLI paper feature 3)."""
from __future__ import annotations

import numpy as np

from .base import DenseFeature


class Overlap(DenseFeature):
    """Four real values per pair.

    count_all: hypothesis tokens whose word occurs in the premise (each position
        counts, so a repeated hypothesis word counts each time);
    pct_all: count_all / hypothesis length (the possible overlap);
    count_content / pct_content: the same over content words only, i.e. tokens
        tagged NN*, VB*, JJ* or RB* on both sides.
    An empty denominator gives 1.0: nothing was left uncovered.
    """

    name = "overlap"
    columns = ("count_all", "pct_all", "count_content", "pct_content")

    def __init__(self, *, lowercase: bool = True, scale: str = "standard"):
        self.lowercase = lowercase
        self.scale = scale

    def _values(self, batch):
        p, h = batch.premise, batch.hypothesis
        n_h = len(h.ids)
        _, pi, hi = batch.word_matches("premise", "hypothesis")
        hits_all = np.bincount(hi, minlength=n_h)
        hits_content = np.bincount(hi[p.content[pi] & h.content[hi]], minlength=n_h)
        h_rows = np.repeat(np.arange(len(batch)), h.lengths)
        n = len(batch)
        count_all = np.bincount(h_rows, weights=hits_all > 0, minlength=n)
        count_content = np.bincount(h_rows, weights=hits_content > 0, minlength=n)
        n_content = np.bincount(h_rows, weights=h.content, minlength=n)
        return np.column_stack([count_all, _ratio(count_all, h.lengths), count_content,
                                _ratio(count_content, n_content)])


def _ratio(part: np.ndarray, whole: np.ndarray) -> np.ndarray:
    whole = np.asarray(whole, dtype=np.float64)
    return np.divide(part, whole, out=np.ones(len(part)), where=whole > 0)
