"""`cross_unigrams`: word pairs across premise and hypothesis that share a POS tag (SNLI paper feature 5)."""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from ..base import SparseIndicatorFeature
from ..columns.encoding import WORD_BITS, tag_matched_cells, tag_matched_count

_LOW = (1 << WORD_BITS) - 1


class CrossFeature(SparseIndicatorFeature):
    """What cross_unigrams and cross_bigrams share: parameters, and keys over the tag-matched
    premise x hypothesis cells (visited chunk by chunk to bound memory)."""

    pairwise: ClassVar[bool] = True  # premise x hypothesis: sentences at most MAX_PAIRWISE_TOKENS long
    # Whether fitting leaves out hypothesis tokens whose word or bigram occurs fewer than
    # min_count times among the hypotheses (`_valid`): worth counting where many do, as bigrams.
    prune_rare: ClassVar[bool] = False

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
        # rows take 64), and each cell is 8 bytes instead of 12.
        view, p, h, p_tags, h_tags = self._sides(batch)
        p_valid, h_valid = _valid(p), _valid(h, self.min_count if self.prune_rare else 1)
        present = np.zeros(int(p.ids.max(initial=-1)) + 1, dtype=bool)
        present[p.ids if p_valid is None else p.ids[p_valid]] = True
        lefts = np.flatnonzero(present)
        rank = present.astype(np.int64)
        np.cumsum(rank, out=rank)
        rank -= 1
        right_bits = max(int(h.ids.max(initial=0)).bit_length(), 1)
        if max(len(lefts) - 1, 1).bit_length() + right_bits + row_bits > 63:
            return None
        # Counted first, so that the cells are written straight into the one array that is sorted.
        ranges = list(view.row_chunks())
        packed = np.empty(sum(tag_matched_count(p, h, p_tags, h_tags, start, stop, p_valid, h_valid)
                              for start, stop in ranges), dtype=np.int64)
        at = 0
        for start, stop in ranges:
            cells = tag_matched_cells(p, h, p_tags, h_tags, start, stop, p_valid, h_valid)
            # Each cell's packed value is (its premise token's part) | (its hypothesis token's
            # part): both are made per token, and only the two expansions are as long as the cells.
            high = rank[p.ids[cells.a_order]]
            high <<= right_bits + row_bits
            high |= cells.a_rows
            low = h.ids[cells.b_order].astype(np.int64)
            low <<= row_bits
            out = packed[at:at + len(cells)]
            low.take(cells.b_local(), out=out, mode="clip")  # "clip": unbuffered; the indices are in range
            out |= np.repeat(high, cells.reps)
            at += len(out)

        def decode(compact: np.ndarray) -> np.ndarray:
            return (lefts[compact >> right_bits] << WORD_BITS) | (compact & ((1 << right_bits) - 1))
        return [packed], decode

    @staticmethod
    def _cross_keys(view, p, h, p_tags, h_tags):
        """(row, left id << 31 | right id) for every tag-matched cell, as lists of chunks; ids < 0
        (unseen) are skipped."""
        rows_out, keys_out = [], []
        p_valid, h_valid = _valid(p), _valid(h)
        for start, stop in view.row_chunks():
            cells = tag_matched_cells(p, h, p_tags, h_tags, start, stop, p_valid, h_valid)
            rows_out.append(np.repeat(cells.a_rows.astype(np.int32), cells.reps))
            left = p.ids[cells.a_order].astype(np.int64)
            left <<= WORD_BITS
            keys = np.repeat(left, cells.reps)
            keys |= h.ids[cells.b_order][cells.b_local()]
            keys_out.append(keys)
        return rows_out, keys_out


def _valid(side, min_count: int = 1) -> np.ndarray | None:
    """Which tokens have an id (unseen bigrams have -1) and, with min_count > 1, one that occurs
    at least min_count times on this side; None when all do.

    A key seen in fewer than min_count rows is dropped, and no key can be seen in more rows than
    either of its words or bigrams: tokens of rarer ones need not be crossed at all (at SNLI
    scale, half of the hypothesis bigrams, and three fifths of the cross-bigram cells)."""
    valid = side.ids >= 0
    if min_count > 1:
        ids = side.ids if valid.all() else np.where(valid, side.ids, 0)
        frequent = np.bincount(ids, weights=None if ids is side.ids else valid) >= min_count
        valid &= frequent[ids]  # a table of bools: small enough to stay in cache while looked up
    return None if valid.all() else valid


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
