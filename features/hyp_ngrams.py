"""`hyp_ngrams`: an indicator for every unigram and bigram of the hypothesis (SNLI paper feature 4)."""
from __future__ import annotations

import numpy as np

from .base import SparseIndicatorFeature
from .encoding import WORD_BITS

_BIGRAM = np.int64(1) << 62  # unigram keys are word ids < 2**31; bigram keys carry this bit


class HypNgrams(SparseIndicatorFeature):
    """Names: `hyp_ngrams:man` (unigram) and `hyp_ngrams:a man` (bigram)."""

    name = "hyp_ngrams"

    def __init__(self, *, lowercase: bool = True, min_count: int = 1):
        self.lowercase = lowercase
        self.min_count = min_count

    def _keys(self, batch):
        h = batch.hypothesis
        # Per token: its unigram, then the bigram it starts (if any), so rows stay in order.
        keys = np.empty((len(h.ids), 2), dtype=np.int64)
        keys[:, 0] = h.ids
        keys[:, 1] = np.where(h.bigram_at >= 0, h.bigram_at.astype(np.int64) | _BIGRAM, -1)
        rows = np.repeat(np.arange(len(batch), dtype=np.int32), h.lengths)
        keep = (keys >= 0).ravel()
        return np.repeat(rows, 2)[keep], keys.ravel()[keep]

    def _key_name(self, key):
        if key & _BIGRAM:
            bigram = int(self.encoder_.bigrams_[key & ~_BIGRAM])
            return f"{self._word(bigram >> WORD_BITS)} {self._word(bigram & ((1 << WORD_BITS) - 1))}"
        return self._word(key)
