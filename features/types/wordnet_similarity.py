"""`wordnet_similarity`: word overlap softened by WordNet: each content lemma counts by its path
similarity to the most similar content lemma of the other sentence (Mihalcea et al. 2006's
knowledge-based sentence similarity, without its IDF weights; UKP and DLS@CU's WordNet measures)."""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from ..base import WordNetFeature
from ..text.word_alignment import content_cells, count_by_row, share, sides


class WordNetSimilarity(WordNetFeature):
    """WordNet-softened overlap of the two sentences' content words, in [0, 1].

    Each content word (PTB NN*, VB*, JJ*, RB*; auxiliaries, negation words and the copula left
    out, as the alignment leaves them out) is matched to the content word of the other sentence,
    of the same coarse part of speech, whose lemma is most similar to its own by WordNet's path
    similarity (`features.text.wordnet_relations.WordNetRelations.path_similarity`: 1 for the
    same lemma or a synonym, 1 / (1 + steps) through the fewest hypernym steps, as NLTK defines
    it); a word with no such partner scores 0.
    Columns: `hyp_to_premise`, the mean over the hypothesis' content words of their best
    similarity; `premise_to_hyp`, the reverse; `mean`, the mean of the two (each 1 when the
    sentence has no content word: nothing is left unmatched).
    wordnet_dir: an NLTK data directory holding corpora/wordnet; None: wherever NLTK finds it.
        Missing WordNet raises features.text.wordnet_data.WordNetMissingError at fit.
    lowercase: the shared encoder's setting; lemmas are compared lowercased.
    scale, bins, bin_integers: as for every real-valued type (`features.base.DenseFeature`).
    Needs lemmas: pairs annotated with `features.annotate(pairs, lemmas=True)`.
    Fitted: `relations_`, whose cache of lemma pairs grows with use.
    """

    name = "wordnet_similarity"
    needs_lemmas: ClassVar[bool] = True
    cache_values: ClassVar[bool] = True  # WordNet lookups per distinct lemma pair
    pairwise: ClassVar[bool] = True  # premise x hypothesis content words
    columns = ("hyp_to_premise", "premise_to_hyp", "mean")

    def __init__(self, *, lowercase: bool = True, scale: str = "standard", bins: int = 0,
                 bin_integers: str = "values", wordnet_dir=None):
        self.lowercase = lowercase
        self.scale = scale
        self.bins = bins
        self.bin_integers = bin_integers
        self.wordnet_dir = wordnet_dir

    def _values(self, batch) -> np.ndarray:
        n = len(batch)
        if not n:
            return np.zeros((0, len(self.columns)))
        p, h, _ = sides(batch.pairs, self.relations_, parse=False, name=self.name)
        best_h = np.zeros(len(h.lemma))
        best_p = np.zeros(len(p.lemma))
        pi, hi = content_cells(p, h)
        if len(pi):
            similarity = self.relations_.similarities(p.lemma[pi], h.lemma[hi], p.pos[pi])
            np.maximum.at(best_h, hi, similarity)
            np.maximum.at(best_p, pi, similarity)
        out = []
        for side, best in ((h, best_h), (p, best_p)):
            rows = side.rows[side.content]
            out.append(share(count_by_row(rows, n, best[side.content]), count_by_row(rows, n)))
        return np.column_stack(out + [(out[0] + out[1]) / 2])
