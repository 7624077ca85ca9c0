"""`cross_unigrams`: word pairs across premise and hypothesis that share a POS tag (SNLI paper feature 5)."""
from __future__ import annotations

from ..base import CrossFeature
from ..columns.encoding import WORD_BITS

_LOW = (1 << WORD_BITS) - 1


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
