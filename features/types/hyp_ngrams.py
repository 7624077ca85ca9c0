"""`hyp_ngrams`: an indicator for every unigram and bigram of the hypothesis (SNLI paper feature 4)."""
from __future__ import annotations

import numpy as np

from ..base import SparseIndicatorFeature
from ..columns.encoding import WORD_BITS

_BIGRAM = np.int64(1) << 62  # unigram keys are word ids < 2**31; bigram keys carry this bit
_ROWS = 1 << 16  # rows packed at once


class HypNgrams(SparseIndicatorFeature):
    """Names: `hyp_ngrams:man` (unigram) and `hyp_ngrams:a man` (bigram)."""

    name = "hyp_ngrams"
    side = "hypothesis"  # the sentence whose n-grams are read (`prem_ngrams` reads the premise)
    reads_premise = False

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

    def _packed_keys(self, batch, row_bits: int):
        # Compact keys: a unigram is its word id, a bigram the number of words plus its bigram id:
        # in the same order as the exact keys, and with the row in one int64.
        h = getattr(batch, self.side)
        words = int(h.ids.max(initial=-1)) + 1
        bound = words + int(h.bigram_at.max(initial=-1)) + 1
        if max(bound - 1, 1).bit_length() + row_bits > 63:
            return None
        has_bigram = h.bigram_at >= 0
        # One array, unigrams in front and bigrams behind, filled a slice of rows at a time: the
        # row numbers and bigram keys are then small temporaries, reused from cache.
        packed = np.empty(len(h.ids) + int(np.count_nonzero(has_bigram)), dtype=np.int64)
        at = len(h.ids)
        for start in range(0, len(batch), _ROWS):
            stop = min(start + _ROWS, len(batch))
            lo, hi = h.offsets[start], h.offsets[stop]
            rows = np.repeat(np.arange(start, stop, dtype=np.int64), h.lengths[start:stop])
            unigrams = packed[lo:hi]
            np.left_shift(h.ids[lo:hi], row_bits, out=unigrams, dtype=np.int64)
            unigrams |= rows
            starts = has_bigram[lo:hi]
            bigrams = h.bigram_at[lo:hi][starts].astype(np.int64)
            bigrams += words
            bigrams <<= row_bits
            bigrams |= rows[starts]
            packed[at:at + len(bigrams)] = bigrams
            at += len(bigrams)

        def decode(compact: np.ndarray) -> np.ndarray:
            return np.where(compact < words, compact, (compact - words) | _BIGRAM)
        return [packed], decode

    def _keys_valid(self, keys):
        bigram = (keys & _BIGRAM) != 0
        unigrams, bigrams = keys[~bigram], keys[bigram] & ~_BIGRAM
        return bool((unigrams < len(self.encoder_.words_)).all() and (bigrams < len(self.encoder_.bigrams_)).all())

    def _key_name(self, key):
        if key & _BIGRAM:
            bigram = int(self.encoder_.bigrams_[key & ~_BIGRAM])
            return f"{self._word(bigram >> WORD_BITS)} {self._word(bigram & ((1 << WORD_BITS) - 1))}"
        return self._word(key)
