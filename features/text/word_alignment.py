"""A monolingual word alignment of the hypothesis to the premise, over a whole batch at once,
shared by the `alignment`, `syntax` and `quantifiers` feature types.

Each hypothesis content word (PTB NN*, VB*, JJ*, RB*; auxiliaries and negation words left out)
is aligned to the premise content word of the same coarse part of speech it relates to most
strongly, on these levels (`LEVELS`, strongest first):

    exact      the same word form (lowercased)
    same       the same lemma (lowercased)
    synonym    WordNet synonyms
    hypernym   the hypothesis word is more general (man -> person): entailing
    hyponym    the hypothesis word is more specific (person -> man)
    antonym    WordNet antonyms (tall / short)
    cohyponym  WordNet siblings (dog / cat, man / woman via adult)
    unrelated  no relation: the word is unaligned

Ties go to the earliest premise word. The relations are `features.text.wordnet_relations.WordNetRelations`,
computed once per distinct (premise lemma, hypothesis lemma, part of speech) and cached.

Sentences arrive as `Flat` arrays (every token of every sentence of one side, with per-pair
offsets), built once per distinct sentence (SNLI shares each premise among ~3.7 hypotheses)
and carrying, when asked, each token's dependency head and label (`features.text.parsing`).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from itertools import chain
from operator import attrgetter

import numpy as np

from ..columns.keymap import factorize
from .parsing import LABEL_ID, flat_parses
from .wordnet_relations import POS_NUMBER, RELATIONS, WordNetRelations

LEVELS = ("unrelated", "cohyponym", "antonym", "hyponym", "hypernym", "synonym", "same", "exact")  # weakest first
STRENGTH = {level: i for i, level in enumerate(LEVELS)}
ALIGNED = STRENGTH["hypernym"]  # this strength and above: the hypothesis word is entailed by its partner
RELATED = STRENGTH["hyponym"]  # this strength and above: some alignment that is not a conflict
CONFLICT = (STRENGTH["antonym"], STRENGTH["cohyponym"])
FROM_RELATION = np.array([STRENGTH[r] for r in RELATIONS], dtype=np.int8)  # RELATIONS index -> strength
POS_NAMES = ("noun", "verb", "adj", "adv")  # coarse POS numbers 0..3 (features.text.wordnet_relations.POS_CODES order)
# Function words tagged like content words: auxiliaries are told apart by their dependency label
# when a parse is there, else by their lemma; "be" never counts (a copula says nothing itself).
AUXILIARY_LEMMAS = frozenset({"be", "have", "do", "will", "shall", "would", "can", "could", "may", "might", "must",
                              "should"})
NEGATORS = frozenset({"not", "n't", "n’t", "never", "no", "none", "nobody", "nothing", "nowhere", "neither", "nor",
                      "noone", "cannot", "without"})
_TOKENS = attrgetter("premise_tokens"), attrgetter("hypothesis_tokens")
_TAGS = attrgetter("premise_tags"), attrgetter("hypothesis_tags")
_LEMMAS = attrgetter("premise_lemmas"), attrgetter("hypothesis_lemmas")
_CELLS = 4_000_000


@dataclass
class Flat:
    """One side of a batch: every token of every pair, flat, with per-pair offsets.

    lemma: ids in the WordNetRelations' vocabulary; form: lowercased word ids (shared by both
    sides of the batch); tag: PTB tag ids (`tags` lists them); pos: coarse POS number or -1;
    content: a content word that takes part in the alignment; head: flat index of the token's
    head (itself at a root), label: dependency label id (`features.text.parsing.LABELS`); both None
    without parses.
    """

    lemma: np.ndarray
    form: np.ndarray
    tag: np.ndarray
    pos: np.ndarray
    content: np.ndarray
    offsets: np.ndarray
    head: np.ndarray | None = None
    label: np.ndarray | None = None
    _rows: np.ndarray | None = field(default=None, repr=False)

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    @property
    def rows(self) -> np.ndarray:
        if self._rows is None:
            self._rows = np.repeat(np.arange(len(self.offsets) - 1), self.lengths)
        return self._rows


@dataclass
class Vocabulary:
    """Word forms and tags of one batch (both sides), by id."""

    forms: dict = field(default_factory=dict)
    tags: dict = field(default_factory=dict)

    def form_ids(self, words: set[str]) -> np.ndarray:
        return np.array(sorted(self.forms[w] for w in words if w in self.forms), dtype=np.int64)

    def tag_mask(self, predicate) -> np.ndarray:
        """bool per tag id: whether the tag satisfies `predicate`."""
        return np.array([bool(predicate(t)) for t in self.tags] or [False], dtype=bool)


class _Ids(dict):
    def __missing__(self, key):
        value = self[key] = len(self)
        return value


def sides(pairs, relations: WordNetRelations, parse: bool, name: str) -> tuple[Flat, Flat, Vocabulary]:
    """Premise and hypothesis of every pair as `Flat` arrays (lemmas needed; parses when `parse`)."""
    if None in map(_LEMMAS[0], pairs) or None in map(_LEMMAS[1], pairs):
        bad = next(pair for pair in pairs if not pair.has_lemmas)
        raise ValueError(f"{name}: pair {bad.id!r} has no lemmas; annotate the pairs with "
                         "nli_baselines.annotate(pairs, lemmas=True)")
    n = len(pairs)
    tokens = list(map(_TOKENS[0], pairs)) + list(map(_TOKENS[1], pairs))
    tags = list(map(_TAGS[0], pairs)) + list(map(_TAGS[1], pairs))
    lemmas = list(map(_LEMMAS[0], pairs)) + list(map(_LEMMAS[1], pairs))
    # Distinct sentences by the identity of their tuples (readers share them between pairs).
    sid = np.zeros(len(tokens), dtype=np.int64)
    for tuples in (tokens, tags, lemmas):
        codes, _ = factorize(np.fromiter(map(id, tuples), dtype=np.int64, count=len(tuples)))
        sid = sid * (int(codes.max(initial=0)) + 1) + codes
    sid, _ = factorize(sid)
    first = np.unique(sid, return_index=True)[1].tolist()
    t_tokens = [tokens[i] for i in first]
    t_tags = [tags[i] for i in first]
    t_lemmas = [lemmas[i] for i in first]
    lengths = np.fromiter(map(len, t_tokens), dtype=np.int64, count=len(first))
    total = int(lengths.sum())
    vocabulary = Vocabulary(_Ids(), _Ids())
    forms = vocabulary.forms
    lower = {}
    form = np.fromiter((forms[lower.get(w) or lower.setdefault(w, w.lower())] for w in chain.from_iterable(t_tokens)),
                       dtype=np.int64, count=total)
    tag = np.fromiter(map(vocabulary.tags.__getitem__, chain.from_iterable(t_tags)), dtype=np.int64, count=total)
    lemma = relations.lemma_ids(chain.from_iterable(t_lemmas))
    tag_list = list(vocabulary.tags)
    pos_of_tag = np.array([POS_NUMBER.get(t[:2], -1) for t in tag_list] or [-1], dtype=np.int8)
    pos = pos_of_tag[tag]
    offsets = np.zeros(len(first) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    head = label = None
    if parse:
        trees = [getattr(pairs[i % n], "premise_tree" if i < n else "hypothesis_tree") for i in first]
        head, label = flat_parses(t_tokens, trees=trees if any(t is not None for t in trees) else None)
    # Content words: NN*, VB*, JJ*, RB*, but not auxiliaries or negation words.
    negator_forms = vocabulary.form_ids(NEGATORS)
    content = (pos >= 0) & ~np.isin(form, negator_forms)
    if label is not None:
        content &= ~np.isin(label, [LABEL_ID["aux"], LABEL_ID["auxpass"]])
    aux_lemmas = relations.lemma_ids(sorted(AUXILIARY_LEMMAS))
    if label is None:
        content &= ~((pos == 1) & np.isin(lemma, aux_lemmas))
    content &= lemma != relations.lemma_ids(["be"])[0]  # a copula says nothing of its own
    out = []
    for sids in (sid[:n], sid[n:]):
        side_lengths = lengths[sids]
        side_offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(side_lengths, out=side_offsets[1:])
        shift = np.repeat(offsets[sids] - side_offsets[:-1], side_lengths)
        gather = np.arange(side_offsets[-1], dtype=np.int64) + shift
        side_head = None if head is None else head[gather] - shift
        out.append(Flat(lemma[gather], form[gather], tag[gather], pos[gather], content[gather], side_offsets,
                        side_head, None if label is None else label[gather]))
    return out[0], out[1], vocabulary


@dataclass
class Alignment:
    """Per hypothesis token: its alignment strength (`STRENGTH`; -1 for tokens that take no
    part) and its premise partner (flat premise index, -1 if none). Per premise token: the
    strongest alignment any hypothesis token of its pair has with it (-1: takes no part)."""

    strength: np.ndarray
    partner: np.ndarray
    premise_strength: np.ndarray


def align(p: Flat, h: Flat, relations: WordNetRelations) -> Alignment:
    """Align every hypothesis content word to its strongest premise content word of the same coarse POS."""
    strength = np.where(h.content, 0, -1).astype(np.int8)
    partner = np.full(len(h.lemma), -1, dtype=np.int64)
    premise_strength = np.where(p.content, 0, -1).astype(np.int8)
    pi, hi = content_cells(p, h)
    if len(pi):
        codes = relations.codes(p.lemma[pi], h.lemma[hi], p.pos[pi])
        level = FROM_RELATION[codes]
        level[(level == STRENGTH["same"]) & (p.form[pi] == h.form[hi])] = STRENGTH["exact"]
        # Strongest first, then the earliest premise word: the first cell of each hypothesis token.
        order = np.lexsort((pi, -level.astype(np.int64), hi))
        hi_sorted = hi[order]
        first = np.ones(len(order), dtype=bool)
        first[1:] = hi_sorted[1:] != hi_sorted[:-1]
        best = order[first]
        strength[hi[best]] = level[best]
        partner[hi[best]] = np.where(level[best] > 0, pi[best], -1)
        np.maximum.at(premise_strength, pi, level)
    return Alignment(strength, partner, premise_strength)


def content_cells(p: Flat, h: Flat) -> tuple[np.ndarray, np.ndarray]:
    """(premise index, hypothesis index) of every pair's content-word cells of equal coarse POS."""
    pc, hc = np.flatnonzero(p.content), np.flatnonzero(h.content)
    p_rows, h_rows = p.rows[pc], h.rows[hc]
    n = len(p.offsets) - 1
    # Group content tokens by (row, POS) on both sides and multiply out the groups both have.
    p_group = p_rows * 4 + p.pos[pc]
    h_group = h_rows * 4 + h.pos[hc]
    p_order, h_order = _stable_order(p_group), _stable_order(h_group)
    h_counts = np.bincount(h_group, minlength=n * 4)
    h_first = np.cumsum(h_counts) - h_counts
    reps = h_counts[p_group[p_order]]
    a = np.repeat(p_order, reps)
    run_start = np.cumsum(reps) - reps
    b_local = np.arange(len(a), dtype=np.int64) - np.repeat(run_start - h_first[p_group[p_order]], reps)
    return pc[a], hc[h_order[b_local]]


def _stable_order(keys: np.ndarray) -> np.ndarray:
    """argsort(keys, kind="stable") for non-negative keys below 2**31, by one packed sort (faster)."""
    return (np.sort((keys.astype(np.int64) << 32) | np.arange(len(keys), dtype=np.int64)) & 0xFFFFFFFF).astype(np.int64)


def take(values: np.ndarray, index: np.ndarray, missing) -> np.ndarray:
    """values[index] where index >= 0, else `missing`; also when `values` is empty (a batch whose
    every sentence on one side is empty has no token to clip the index to)."""
    out = np.full(len(index), missing, dtype=values.dtype)
    found = index >= 0
    out[found] = values[index[found]]
    return out


def count_by_row(rows: np.ndarray, n: int, weights=None) -> np.ndarray:
    return np.bincount(rows, weights=weights, minlength=n).astype(np.float64)


def share(part: np.ndarray, whole: np.ndarray, empty: float = 1.0) -> np.ndarray:
    """part / whole, `empty` where whole is 0 (nothing to align: all of it is aligned)."""
    return np.divide(part, whole, out=np.full(len(part), empty, dtype=np.float64), where=whole > 0)


def children_of(side: Flat, label_ids) -> np.ndarray:
    """bool per token: it has a child with one of these labels (e.g. a `neg` child)."""
    out = np.zeros(len(side.lemma), dtype=bool)
    if side.head is None:
        return out
    hit = np.isin(side.label, label_ids) & (side.head != np.arange(len(side.head)))
    out[side.head[hit]] = True
    return out


@dataclass
class Aligned:
    """What the alignment types share for one batch: both sides, the alignment, the relations
    whose lemma ids the sides hold, and the batch's word forms and tags."""

    premise: Flat
    hypothesis: Flat
    alignment: Alignment
    relations: WordNetRelations
    vocabulary: Vocabulary

    def __len__(self) -> int:
        return len(self.premise.offsets) - 1


def aligned_batch(batch, relations: WordNetRelations, name: str) -> Aligned:
    """The parsed sides and alignment of an encoded batch, computed once per batch and WordNet
    configuration, however many feature types ask (they may run on several threads)."""
    key = ("aligned", relations.data_dir, relations.max_depth, relations.cohyponym_depth, relations.senses)
    cache = batch.premise._cache
    with batch._lock:  # the batch's lock only hands out this key's own lock: others need not wait
        lock = cache.setdefault(("lock",) + key, threading.Lock())
    with lock:
        found = cache.get(key)
        if found is None:
            p, h, vocabulary = sides(batch.pairs, relations, parse=True, name=name)
            found = cache[key] = Aligned(p, h, align(p, h, relations), relations, vocabulary)
    return found
