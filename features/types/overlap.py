"""`overlap`: how much of the hypothesis occurs in the premise (SNLI paper feature 3)."""
from __future__ import annotations

import numpy as np

from ..base import DenseFeature
from ..columns.encoding import row_slice

COUNT_CHOICES = ("clipped", "positions")


class Overlap(DenseFeature):
    """Four real values per pair.

    count_all: hypothesis words covered by premise words; with count="clipped" (the default,
        chosen on dev: see the table of defaults, docs/features.md) each premise token covers one
        hypothesis token (multiset intersection, as BLEU's unigram matches), with
        count="positions" every hypothesis token whose word occurs in the premise counts.
    pct_all: count_all / hypothesis length (the possible overlap);
    count_content / pct_content: the same over content words only, i.e. tokens tagged NN*, VB*,
        JJ* or RB* on both sides.
    An empty denominator gives 1.0: nothing was left uncovered.
    """

    name = "overlap"
    columns = ("count_all", "pct_all", "count_content", "pct_content")
    integer_columns = ("count_all", "count_content")

    def __init__(self, *, lowercase: bool = True, scale: str = "standard", count: str = "clipped", bins: int = 0,
                 bin_integers: str = "values"):
        self.lowercase = lowercase
        self.scale = scale
        self.count = count
        self.bins = bins
        self.bin_integers = bin_integers

    def _values(self, batch):
        if self.count not in COUNT_CHOICES:
            raise ValueError(f"count must be one of {COUNT_CHOICES}, got {self.count!r}")
        p, h = batch.premise, batch.hypothesis
        n = len(batch)
        matches = batch.word_matches("premise", "hypothesis")
        repeats = batch.repeats("hypothesis") if self.count == "clipped" else None
        count_all, count_content, n_content = np.zeros(n), np.zeros(n), np.zeros(n)
        for start, stop in batch.row_blocks():
            h_lo, h_hi = h.offsets[start], h.offsets[stop]
            n_h = h_hi - h_lo
            content = h.content[h_lo:h_hi]
            at = row_slice(matches[0], start, stop)
            pi, hj = matches[1][at], matches[2][at] - h_lo  # hj: position among this block's tokens
            content_cell = p.content[pi] & content[hj]
            in_premise = np.bincount(hj, minlength=n_h)
            in_premise_content = np.bincount(hj[content_cell], minlength=n_h)
            if repeats is not None:
                # The r-th occurrence of a word in the hypothesis is covered iff the premise holds
                # it at least r times (r = earlier occurrences + 1).
                at = row_slice(repeats[0], start, stop)
                ej, kj = repeats[1][at] - h_lo, repeats[2][at] - h_lo
                earlier = np.bincount(kj, minlength=n_h)
                earlier_content = np.bincount(kj[content[ej] & content[kj]], minlength=n_h)
                covered = earlier < in_premise
                covered_content = content & (earlier_content < in_premise_content)
            else:
                covered = in_premise > 0
                covered_content = in_premise_content > 0
            rows = np.repeat(np.arange(stop - start), h.lengths[start:stop])
            count_all[start:stop] = np.bincount(rows, weights=covered, minlength=stop - start)
            count_content[start:stop] = np.bincount(rows, weights=covered_content, minlength=stop - start)
            n_content[start:stop] = np.bincount(rows, weights=content, minlength=stop - start)
        return np.column_stack([count_all, _ratio(count_all, h.lengths), count_content,
                                _ratio(count_content, n_content)])


def _ratio(part: np.ndarray, whole: np.ndarray) -> np.ndarray:
    whole = np.asarray(whole, dtype=np.float64)
    return np.divide(part, whole, out=np.ones(len(part)), where=whole > 0)
