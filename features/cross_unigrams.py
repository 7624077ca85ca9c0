"""`cross_unigrams`: word pairs across premise and hypothesis that share a POS tag (SNLI paper feature 5)."""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from .base import SparseIndicatorFeature
from .encoding import WORD_BITS, matching_cross_index

_LOW = (1 << WORD_BITS) - 1


class CrossFeature(SparseIndicatorFeature):
    """What cross_unigrams and cross_bigrams share: parameters, and keys over the tag-matched
    premise x hypothesis cells (visited chunk by chunk to bound memory)."""

    pairwise: ClassVar[bool] = True  # premise x hypothesis: sentences at most MAX_PAIRWISE_TOKENS long

    def __init__(self, *, lowercase: bool = True, tag_match: str = "exact", min_count: int = 1):
        self.lowercase = lowercase
        self.tag_match = tag_match
        self.min_count = min_count

    def _sides(self, batch):
        """(batch view, premise side, hypothesis side, premise tags, hypothesis tags) to cross."""
        raise NotImplementedError

    def _keys(self, batch):
        return self._cross_keys(*self._sides(batch))

    def _packed_keys(self, batch, row_bits: int):
        # Premise ids are renumbered densely among those present (for cross-bigrams, the premises
        # hold a fraction of the corpus' bigrams), hypothesis ids kept: rank(left) << right_bits |
        # right, packed with the row, is then 63 bits or less at SNLI scale (exact keys plus
        # rows take 64), and each chunk is 8 bytes per cell instead of 12.
        view, p, h, p_tags, h_tags = self._sides(batch)
        present = np.zeros(int(p.ids.max(initial=-1)) + 1, dtype=bool)
        present[p.ids[p.ids >= 0]] = True
        lefts = np.flatnonzero(present)
        rank = present.astype(np.int32)
        np.cumsum(rank, out=rank)
        rank -= 1
        right_bits = max(int(h.ids.max(initial=0)).bit_length(), 1)
        if max(len(lefts) - 1, 1).bit_length() + right_bits + row_bits > 63:
            return None
        chunks = []
        for start, stop in view.row_chunks():
            rows, pi, hi = matching_cross_index(p, h, p_tags, h_tags, start, stop)
            left, right = p.ids[pi], h.ids[hi]
            del pi, hi
            keep = (left >= 0) & (right >= 0)
            if not keep.all():
                rows, left, right = rows[keep], left[keep], right[keep]
            packed = rank[left].astype(np.int64)
            packed <<= right_bits
            packed |= right
            packed <<= row_bits
            packed |= rows
            chunks.append(packed)

        def decode(compact: np.ndarray) -> np.ndarray:
            return (lefts[compact >> right_bits] << WORD_BITS) | (compact & ((1 << right_bits) - 1))
        return chunks, decode

    @staticmethod
    def _cross_keys(view, p, h, p_tags, h_tags):
        """(row, left id << 31 | right id) for every tag-matched cell, as lists of chunks; ids < 0
        (unseen) are skipped."""
        rows_out, keys_out = [], []
        for start, stop in view.row_chunks():
            rows, pi, hi = matching_cross_index(p, h, p_tags, h_tags, start, stop)
            left, right = p.ids[pi].astype(np.int64), h.ids[hi]
            del pi, hi
            keep = (left >= 0) & (right >= 0)
            if not keep.all():
                rows, left, right = rows[keep], left[keep], right[keep]
            rows_out.append(rows.astype(np.int32))
            left <<= WORD_BITS
            left |= right
            keys_out.append(left)
        return rows_out, keys_out


class CrossUnigrams(CrossFeature):
    """An indicator over (premise word, hypothesis word) for every cross pair whose tags match.

    tag_match: "exact" (same PTB tag) or "first_letter" (NN ~ NNS, VBZ ~ VBG; the
        coarse match of the co-author's later NaturalLI featurizer).
    Names: `cross_unigrams:man|person`.
    """

    name = "cross_unigrams"

    def _sides(self, batch):
        p, h = batch.premise, batch.hypothesis
        return batch, p, h, batch.tags_for(p, self.tag_match), batch.tags_for(h, self.tag_match)

    def _key_name(self, key):
        return f"{self._word(key >> WORD_BITS)}|{self._word(key & _LOW)}"

    def _keys_valid(self, keys):
        n = len(self.encoder_.words_)
        return bool(((keys >> WORD_BITS) < n).all() and ((keys & _LOW) < n).all())
