"""`cross_bigrams`: bigram pairs across premise and hypothesis whose second words share a POS tag
(SNLI paper feature 6)."""
from __future__ import annotations

import numpy as np

from .base import SparseIndicatorFeature
from .cross_unigrams import _concat
from .encoding import TAG_MATCH_CHOICES, WORD_BITS, Side, matching_cross_index

_LOW = (1 << WORD_BITS) - 1


def _bigram_side(side: Side, tags: np.ndarray) -> Side:
    """The bigrams of a side as a Side of their own: dense bigram id, tag of the second word."""
    starts = side.bigram_starts()
    second = tags[starts + 1]
    return Side(side.bigram_at[starts], second, second, np.zeros(len(starts), dtype=bool), side.bigram_offsets())


class CrossBigrams(SparseIndicatorFeature):
    """An indicator over (premise bigram, hypothesis bigram) when their second words' tags match.

    tag_match: as in `CrossUnigrams`. Bigrams never seen in training are skipped.
    Names: `cross_bigrams:a man|a person`.
    """

    name = "cross_bigrams"
    mostly_distinct_keys = True  # measured: 7.2M distinct of 7.6M keys at SNLI scale

    def __init__(self, *, lowercase: bool = True, tag_match: str = "exact", min_count: int = 1):
        self.lowercase = lowercase
        self.tag_match = tag_match
        self.min_count = min_count

    def _keys(self, batch):
        if self.tag_match not in TAG_MATCH_CHOICES:
            raise ValueError(f"tag_match must be one of {TAG_MATCH_CHOICES}, got {self.tag_match!r}")
        p = _bigram_side(batch.premise, batch.tags_for(batch.premise, self.tag_match))
        h = _bigram_side(batch.hypothesis, batch.tags_for(batch.hypothesis, self.tag_match))
        view = type(batch)(batch.encoder, p, h, batch.words, batch.n_known_words)
        rows_out, keys_out = [], []
        for start, stop in view.row_chunks(budget=2_000_000):
            rows, pi, hi = matching_cross_index(p, h, p.tags, h.tags, start, stop)
            pid, hid = p.ids[pi].astype(np.int64), h.ids[hi]
            keep = (pid >= 0) & (hid >= 0)  # bigrams unseen in training cannot be features
            rows_out.append(rows[keep].astype(np.int32))
            keys_out.append((pid[keep] << WORD_BITS) | hid[keep])  # bigram ids < 2**31
        return _concat(rows_out), _concat(keys_out)

    def _key_name(self, key):
        return f"{self._bigram(key >> WORD_BITS)}|{self._bigram(key & _LOW)}"

    def _bigram(self, ident: int) -> str:
        bigram = int(self.encoder_.bigrams_[ident])
        return f"{self._word(bigram >> WORD_BITS)} {self._word(bigram & _LOW)}"
