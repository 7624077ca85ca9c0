"""`hyp_ngrams`: an indicator for every unigram and bigram of the hypothesis (SNLI paper feature 4)."""
from __future__ import annotations

import numpy as np

from .base import SparseIndicatorFeature
from .encoding import WORD_BITS

_BIGRAM = np.int64(1) << 62  # unigram keys are word ids < 2**31; bigram keys carry this bit


class HypNgrams(SparseIndicatorFeature):
    """Names: `hyp_ngrams:man` (unigram) and `hyp_ngrams:a man` (bigram)."""

    name = "hyp_ngrams"
    side = "hypothesis"  # the sentence whose n-grams are read (`prem_ngrams` reads the premise)

    def __init__(self, *, lowercase: bool = True, min_count: int = 1):
        self.lowercase = lowercase
        self.min_count = min_count

    def _keys(self, batch):
        h = getattr(batch, self.side)
        # Two chunks: every token's unigram, then the bigrams (those seen in training) it starts.
        rows = np.repeat(np.arange(len(batch), dtype=np.int32), h.lengths)
        starts = np.flatnonzero(h.bigram_at >= 0)
        bigrams = h.bigram_at[starts].astype(np.int64)
        bigrams |= _BIGRAM
        return [rows, rows[starts]], [h.ids.astype(np.int64), bigrams]

    def _keys_valid(self, keys):
        bigram = (keys & _BIGRAM) != 0
        unigrams, bigrams = keys[~bigram], keys[bigram] & ~_BIGRAM
        return bool((unigrams < len(self.encoder_.words_)).all() and (bigrams < len(self.encoder_.bigrams_)).all())

    def _key_name(self, key):
        if key & _BIGRAM:
            bigram = int(self.encoder_.bigrams_[key & ~_BIGRAM])
            return f"{self._word(bigram >> WORD_BITS)} {self._word(bigram & ((1 << WORD_BITS) - 1))}"
        return self._word(key)
