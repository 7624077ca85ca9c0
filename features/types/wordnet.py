"""`wordnet`: how the hypothesis' content words relate to the premise's through WordNet, on lemmas."""
from __future__ import annotations

from itertools import chain
from operator import attrgetter
from typing import ClassVar

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ..base import WordNetFeature
from ..columns.encoding import Side, matching_cross_index, row_ranges
from ..columns.keymap import factorize
from ..text.wordnet_relations import COHYPONYM_DEPTH, HYPERNYM_DEPTH, POS_NUMBER, RELATIONS, STRENGTH, WordNetRelations

_LEMMAS = attrgetter("premise_lemmas"), attrgetter("hypothesis_lemmas")
_TAGS = attrgetter("premise_tags"), attrgetter("hypothesis_tags")
_CELLS = 4_000_000  # same-POS cells built at once: bounds the memory of the cross product
_BY_STRENGTH = np.array([RELATIONS.index(r) for r in sorted(RELATIONS, key=STRENGTH.get)])  # strength -> relation


class WordNet(WordNetFeature):
    """For each hypothesis content word (PTB tag NN*, VB*, JJ*, RB*), its strongest WordNet
    relation (`features.text.wordnet_relations.RELATIONS`: same, synonym, hypernym, hyponym, antonym, cohyponym,
    unrelated) to any premise content word of the same coarse part of speech, on lowercased
    lemmas. A hypothesis content word with no premise content word of its part of speech is
    unrelated.

    Columns: `count_<relation>` (hypothesis content words with that relation) and
    `share_<relation>` (count / hypothesis content words). A hypothesis without content words
    has every count and share 0: there is no word to relate, and, as in `overlap`, nothing is
    left unrelated.

    hypernym_depth: most steps up WordNet's hypernym hierarchy for `hypernym` (the hypothesis word
        is more general) and `hyponym` (None: no limit); the default, 3
        (features.text.wordnet_relations.HYPERNYM_DEPTH, also EOP's chaining length), was chosen on dev data
        (docs/features.md, "Choosing the defaults"): 1 is clearly worse, from 2 on the figures level off.
    cohyponym_depth: most steps up from each word to the hypersynset two co-hyponyms share
        (1: a shared direct hypernym; 2 gained nothing on dev).
    senses: "all" synsets of each lemma, or its "first" (most frequent) only; "all" scored better.
    wordnet_dir: an NLTK data directory holding corpora/wordnet; None: wherever NLTK finds it.
        Missing WordNet raises features.text.wordnet_data.WordNetMissingError at fit.
    lowercase: the shared encoder's setting; lemmas are always compared lowercased (WordNet is
        case-insensitive).
    scale, bins, bin_integers: as for every real-valued type (`features.base.DenseFeature`).
    Needs lemmas: pairs annotated with `features.annotate(pairs, lemmas=True)`.
    Fitted: `relations_`, the WordNetRelations whose cache of distinct lemma pairs grows as
    new pairs are transformed (a cache: the values never change).
    """

    name = "wordnet"
    needs_lemmas: ClassVar[bool] = True
    cache_values: ClassVar[bool] = True  # seconds per 10,000 pairs at SNLI scale, with lemmas to make
    pairwise: ClassVar[bool] = True  # premise x hypothesis content words
    columns = tuple(f"count_{r}" for r in RELATIONS) + tuple(f"share_{r}" for r in RELATIONS)
    integer_columns = tuple(f"count_{r}" for r in RELATIONS)

    def __init__(self, *, lowercase: bool = True, scale: str = "standard", bins: int = 0,
                 bin_integers: str = "values", hypernym_depth: int | None = HYPERNYM_DEPTH,
                 cohyponym_depth: int = COHYPONYM_DEPTH, senses: str = "all", wordnet_dir=None):
        self.lowercase = lowercase
        self.scale = scale
        self.bins = bins
        self.bin_integers = bin_integers
        self.hypernym_depth = hypernym_depth
        self.cohyponym_depth = cohyponym_depth
        self.senses = senses
        self.wordnet_dir = wordnet_dir

    def _new_relations(self) -> WordNetRelations:
        return WordNetRelations(data_dir=self.wordnet_dir, max_depth=self.hypernym_depth,
                                cohyponym_depth=self.cohyponym_depth, senses=self.senses)

    def _values(self, batch) -> np.ndarray:
        counts = self.relation_counts(batch.pairs)
        n_content = counts.sum(axis=1, keepdims=True).astype(np.float64)
        shares = np.divide(counts, n_content, out=np.zeros(counts.shape), where=n_content > 0)
        return np.hstack([counts, shares])

    def relation_counts(self, pairs) -> np.ndarray:
        """(n_pairs, len(RELATIONS)) counts of hypothesis content words per strongest relation."""
        check_is_fitted(self, "relations_")
        p, h = _sides(pairs, self.relations_)
        n = len(pairs)
        best = np.zeros(len(h.ids), dtype=np.int8)  # strength per hypothesis content token; 0 = unrelated
        for start, stop in row_ranges(p.lengths * h.lengths, _CELLS):
            _, pi, hi = matching_cross_index(p, h, p.coarse, h.coarse, start, stop)
            if len(pi):
                codes = self.relations_.codes(p.ids[pi], h.ids[hi], p.coarse[pi])
                np.maximum.at(best, hi, (len(RELATIONS) - 1 - codes).astype(np.int8))
        rows = h.token_rows()
        relation = _BY_STRENGTH[best]
        return np.bincount(rows * len(RELATIONS) + relation, minlength=n * len(RELATIONS)).reshape(n, -1)


def _sides(pairs, relations: WordNetRelations) -> tuple[Side, Side]:
    """Premise and hypothesis content tokens of every pair as flat arrays: lemma ids (in
    `relations`' vocabulary) and coarse POS numbers, one row per pair.

    Each distinct sentence is converted once (SNLI shares each premise among ~3.7 hypotheses):
    sentences are told apart by the identity of their lemma and tag tuples, which readers and
    `annotate` share between pairs with the same sentence.
    """
    if None in map(_LEMMAS[0], pairs) or None in map(_LEMMAS[1], pairs):
        bad = next(pair for pair in pairs if not pair.has_lemmas)
        raise ValueError(f"wordnet: pair {bad.id!r} has no lemmas; annotate the pairs with "
                         "nli_baselines.annotate(pairs, lemmas=True)")
    lemmas = list(map(_LEMMAS[0], pairs)) + list(map(_LEMMAS[1], pairs))
    tags = list(map(_TAGS[0], pairs)) + list(map(_TAGS[1], pairs))
    lemma_obj, _ = factorize(np.fromiter(map(id, lemmas), dtype=np.int64, count=len(lemmas)))
    tag_obj, _ = factorize(np.fromiter(map(id, tags), dtype=np.int64, count=len(tags)))
    sid, _ = factorize(lemma_obj * (int(tag_obj.max(initial=0)) + 1) + tag_obj)
    first = np.unique(sid, return_index=True)[1]
    # Only content tokens take part: chain the table's tags and lemmas once, then keep the content ones.
    table_tags = [tags[i] for i in first.tolist()]
    lengths = np.fromiter(map(len, table_tags), dtype=np.int64, count=len(first))
    pos_of = _PosOf()
    coarse = np.fromiter(map(pos_of.__getitem__, chain.from_iterable(table_tags)), dtype=np.int8,
                         count=int(lengths.sum()))
    keep = coarse >= 0
    kept_lemmas = [lemma for lemma, k in zip(chain.from_iterable(lemmas[i] for i in first.tolist()), keep.tolist()) if k]
    ids = relations.lemma_ids(kept_lemmas)
    token_row = np.repeat(np.arange(len(first)), lengths)
    content_lengths = np.bincount(token_row[keep], minlength=len(first))
    table_offsets = np.zeros(len(first) + 1, dtype=np.int64)
    np.cumsum(content_lengths, out=table_offsets[1:])
    coarse = coarse[keep].astype(np.int32)
    n = len(pairs)
    sides = []
    for sids in (sid[:n], sid[n:]):
        side_lengths = content_lengths[sids]
        offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(side_lengths, out=offsets[1:])
        gather = np.arange(offsets[-1], dtype=np.int64) + np.repeat(table_offsets[sids] - offsets[:-1], side_lengths)
        ones = np.ones(len(gather), dtype=bool)
        sides.append(Side(ids[gather], coarse[gather], coarse[gather], ones, offsets))
    return sides[0], sides[1]


class _PosOf(dict):
    """PTB tag -> coarse POS number (POS_CODES order), -1 for tags without one; filled as tags come."""

    def __missing__(self, tag: str) -> int:
        code = self[tag] = POS_NUMBER.get(tag[:2], -1)
        return code
