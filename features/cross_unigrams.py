"""`cross_unigrams`: word pairs across premise and hypothesis that share a POS tag (SNLI paper feature 5)."""
from __future__ import annotations

import numpy as np

from .base import SparseIndicatorFeature
from .encoding import WORD_BITS, matching_cross_index

_LOW = (1 << WORD_BITS) - 1


class CrossFeature(SparseIndicatorFeature):
    """What cross_unigrams and cross_bigrams share: parameters, and keys over the tag-matched
    premise x hypothesis cells (visited chunk by chunk to bound memory)."""

    def __init__(self, *, lowercase: bool = True, tag_match: str = "exact", min_count: int = 1):
        self.lowercase = lowercase
        self.tag_match = tag_match
        self.min_count = min_count

    @staticmethod
    def _cross_keys(view, p, h, p_tags, h_tags):
        """(row, left id << 31 | right id) for every tag-matched cell; ids < 0 (unseen) are skipped."""
        rows_out, keys_out = [], []
        for start, stop in view.row_chunks():
            rows, pi, hi = matching_cross_index(p, h, p_tags, h_tags, start, stop)
            left, right = p.ids[pi].astype(np.int64), h.ids[hi]
            keep = (left >= 0) & (right >= 0)
            rows_out.append(rows[keep].astype(np.int32))
            keys_out.append((left[keep] << WORD_BITS) | right[keep])
        return _concat(rows_out), _concat(keys_out)


class CrossUnigrams(CrossFeature):
    """An indicator over (premise word, hypothesis word) for every cross pair whose tags match.

    tag_match: "exact" (same PTB tag) or "first_letter" (NN ~ NNS, VBZ ~ VBG; the
        coarse match of the co-author's later NaturalLI featurizer).
    Names: `cross_unigrams:man|person`.
    """

    name = "cross_unigrams"

    def _keys(self, batch):
        p, h = batch.premise, batch.hypothesis
        return self._cross_keys(batch, p, h, batch.tags_for(p, self.tag_match), batch.tags_for(h, self.tag_match))

    def _key_name(self, key):
        return f"{self._word(key >> WORD_BITS)}|{self._word(key & _LOW)}"


def _concat(parts):
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
