"""`cross_bigrams`: bigram pairs across premise and hypothesis whose second words share a POS tag
(SNLI paper feature 6)."""
from __future__ import annotations

import numpy as np

from ..base import CrossFeature
from ..columns.encoding import WORD_BITS, Side

_LOW = (1 << WORD_BITS) - 1


def _bigram_side(side: Side, tags: np.ndarray) -> Side:
    """The bigrams of a side as a Side of their own: dense bigram id, tag of the second word."""
    begins = np.ones(len(side.ids), dtype=bool)  # `Side.bigram_starts` as a mask: selecting by it is faster
    begins[side.offsets[1:][side.lengths > 0] - 1] = False
    second = tags[1:][begins[:-1]]  # the last token ends its sentence: begins[-1] is False
    return Side(side.bigram_at[begins], second, second, np.zeros(len(second), dtype=bool), side.bigram_offsets())


class CrossBigrams(CrossFeature):
    """An indicator over (premise bigram, hypothesis bigram) when their second words' tags match.

    tag_match: as in `CrossUnigrams`. Bigrams never seen in training are skipped.
    Names: `cross_bigrams:a man|a person`.
    """

    name = "cross_bigrams"
    prune_rare = True

    def _sides(self, batch):
        p = _bigram_side(batch.premise, batch.tags_for(batch.premise, self.tag_match))
        h = _bigram_side(batch.hypothesis, batch.tags_for(batch.hypothesis, self.tag_match))
        return type(batch)(batch.encoder, p, h), p, h, p.tags, h.tags  # bigram ids < 2**31

    def _key_name(self, key):
        return f"{self._bigram(key >> WORD_BITS)}|{self._bigram(key & _LOW)}"

    def _keys_valid(self, keys):
        n = len(self.encoder_.bigrams_)
        return bool(((keys >> WORD_BITS) < n).all() and ((keys & _LOW) < n).all())

    def _bigram(self, ident: int) -> str:
        bigram = int(self.encoder_.bigrams_[ident])
        return f"{self._word(bigram >> WORD_BITS)} {self._word(bigram & _LOW)}"
