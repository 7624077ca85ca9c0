"""`aligned_share`: how much of each sentence's content the monolingual alignment covers, in both
directions (Sultan, Bethard and Sumner's DLS@CU, SemEval-2014 and 2015 STS: the proportion of
aligned content words)."""
from __future__ import annotations

import numpy as np

from ..base import AlignedFeature
from ..text.word_alignment import RELATED, STRENGTH, count_by_row, share


class AlignedShare(AlignedFeature):
    """Shares of content words aligned (`features.text.word_alignment`: each hypothesis content word
    to its strongest premise content word of the same coarse part of speech, by exact form,
    lemma, WordNet synonym, hypernym or hyponym; antonyms and co-hyponyms are conflicts, not
    alignments), in [0, 1].

    Columns:
      `hyp_aligned`: hypothesis content words aligned to a premise word / hypothesis content words;
      `premise_aligned`: premise content words some hypothesis word aligns to / premise content words;
      `both_aligned`: the two counts over the two totals (DLS@CU's similarity);
      `hyp_same`, `premise_same`: the same shares counting only alignments by form or lemma;
    each 1 where its sentences have no content word.
    wordnet_dir, lowercase, scale, bins, bin_integers: as for `alignment` (`features.base.AlignedFeature`).
    """

    name = "aligned_share"
    columns = ("hyp_aligned", "premise_aligned", "both_aligned", "hyp_same", "premise_same")

    def _values(self, batch) -> np.ndarray:
        a = self._aligned(batch)
        p, h, al = a.premise, a.hypothesis, a.alignment
        n = len(a)
        if not n:
            return np.zeros((0, len(self.columns)))
        h_total = count_by_row(h.rows[h.content], n)
        p_total = count_by_row(p.rows[p.content], n)
        h_aligned = count_by_row(h.rows[al.strength >= RELATED], n)
        p_aligned = count_by_row(p.rows[al.premise_strength >= RELATED], n)
        h_same = count_by_row(h.rows[al.strength >= STRENGTH["same"]], n)
        p_same = count_by_row(p.rows[al.premise_strength >= STRENGTH["same"]], n)
        return np.column_stack([share(h_aligned, h_total), share(p_aligned, p_total),
                                share(h_aligned + p_aligned, h_total + p_total),
                                share(h_same, h_total), share(p_same, p_total)])
