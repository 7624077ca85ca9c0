"""`cross_unigrams`: word pairs across premise and hypothesis that share a POS tag (SNLI paper feature 5)."""
from __future__ import annotations

import numpy as np

from .base import SparseIndicatorFeature
from .encoding import TAG_MATCH_CHOICES, WORD_BITS, matching_cross_index

_LOW = (1 << WORD_BITS) - 1


class CrossUnigrams(SparseIndicatorFeature):
    """An indicator over (premise word, hypothesis word) for every cross pair whose tags match.

    tag_match: "exact" (same PTB tag) or "first_letter" (NN ~ NNS, VBZ ~ VBG; the
        coarse match of the co-author's later NaturalLI featurizer).
    Names: `cross_unigrams:man|person`.
    """

    name = "cross_unigrams"

    def __init__(self, *, lowercase: bool = True, tag_match: str = "exact", min_count: int = 1):
        self.lowercase = lowercase
        self.tag_match = tag_match
        self.min_count = min_count

    def _keys(self, batch):
        if self.tag_match not in TAG_MATCH_CHOICES:
            raise ValueError(f"tag_match must be one of {TAG_MATCH_CHOICES}, got {self.tag_match!r}")
        p, h = batch.premise, batch.hypothesis
        ptags, htags = batch.tags_for(p, self.tag_match), batch.tags_for(h, self.tag_match)
        rows_out, keys_out = [], []
        for start, stop in batch.row_chunks(budget=2_000_000):
            rows, pi, hi = matching_cross_index(p, h, ptags, htags, start, stop)
            rows_out.append(rows.astype(np.int32))
            keys_out.append((p.ids[pi].astype(np.int64) << WORD_BITS) | h.ids[hi])
        return _concat(rows_out), _concat(keys_out)

    def _key_name(self, key):
        return f"{self._word(key >> WORD_BITS)}|{self._word(key & _LOW)}"


def _concat(parts):
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
