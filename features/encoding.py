"""Integer encoding of annotated pairs: one vocabulary per corpus, flat numpy arrays per batch.

Feature types never touch strings on the hot path: tokens, tags and bigrams
become ids once, a batch of pairs becomes flat arrays plus offsets, and every
feature is an exact int64 key built from ids, so names can always be recovered.
"""
from __future__ import annotations

import gc
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import chain
from operator import attrgetter
from typing import Iterator, Sequence

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from .keymap import KeyIndex, factorize, factorize_objects
from .options import check_option
from .pair import Pair

WORD_BITS = 31  # word ids < 2**31; a bigram key packs two of them into one int64
CHUNK_CELLS = 2_000_000  # premise x hypothesis cells visited at once: bounds the memory of cross products
CONTENT_TAG_PREFIXES = ("NN", "VB", "JJ", "RB")  # nouns, verbs, adjectives, adverbs
_TEXT = attrgetter("premise"), attrgetter("hypothesis")
_TOKENS = attrgetter("premise_tokens"), attrgetter("hypothesis_tokens")
_TAGS = attrgetter("premise_tags"), attrgetter("hypothesis_tags")


def check_pairs(pairs) -> Sequence[Pair]:
    """The input contract of every feature type: a sequence of annotated pairs (or an encoded batch)."""
    if isinstance(pairs, (str, bytes, Pair)):
        raise ValueError(f"expected a sequence of pairs, got a single {type(pairs).__name__}")
    if isinstance(pairs, EncodedPairs):
        return pairs
    pairs = list(pairs)
    if not all(map(Pair.__instancecheck__, pairs)):
        bad = next(i for i, p in enumerate(pairs) if not isinstance(p, Pair))
        raise ValueError(f"item {bad} is a {type(pairs[bad]).__name__}, not a Pair")
    if None in map(_TAGS[0], pairs) or None in map(_TAGS[1], pairs):
        bad = next(p for p in pairs if not p.is_annotated)
        raise ValueError(f"pair {bad.id!r} has no tokens/tags; run features.annotation.annotate first")
    return pairs


class _Interner(dict):
    """raw token -> id of its (optionally lowercased) form; unseen forms get the next id."""

    def __init__(self, forms: dict[str, int], lowercase: bool):
        super().__init__()
        self.forms, self.lowercase = forms, lowercase

    def __missing__(self, token: str) -> int:
        form = token.lower() if self.lowercase else token
        ident = self.forms.get(form)
        if ident is None:
            ident = self.forms[form] = len(self.forms)
        self[token] = ident
        return ident


def _lookup(interner: dict, tokens: list[str]) -> np.ndarray:
    return np.fromiter(map(interner.__getitem__, tokens), dtype=np.int32, count=len(tokens))


@dataclass
class Side:
    """One side (premise or hypothesis) of a batch: flat token arrays and per-row offsets."""

    ids: np.ndarray        # int32 word ids, all tokens of all rows
    tags: np.ndarray       # int32 exact tag ids
    coarse: np.ndarray     # int32 first-letter tag ids
    content: np.ndarray    # bool: NN*, VB*, JJ*, RB*
    offsets: np.ndarray    # int64, n + 1
    bigram_at: np.ndarray | None = None  # int64 id of the bigram starting at each token; -1 at a
                                         # sentence's last token or for a bigram unseen in training
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def lengths(self) -> np.ndarray:
        if "lengths" not in self._cache:
            self._cache["lengths"] = np.diff(self.offsets)
        return self._cache["lengths"]

    def bigram_starts(self) -> np.ndarray:
        """Token positions that begin a bigram (every position but the last of its row)."""
        if "starts" not in self._cache:
            keep = np.ones(len(self.ids), dtype=bool)
            keep[self.offsets[1:][self.lengths > 0] - 1] = False
            self._cache["starts"] = np.flatnonzero(keep).astype(np.int32)
        return self._cache["starts"]

    def bigram_offsets(self) -> np.ndarray:
        counts = np.maximum(self.lengths - 1, 0)
        out = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(counts, out=out[1:])
        return out

    def warm(self) -> "Side":
        """Compute the lazy caches now (before threads share this side)."""
        self.lengths, self.bigram_starts()
        return self


@dataclass
class EncodedPairs:
    """A batch of pairs as integer arrays, tied to the `Encoder` whose vocabulary it extends."""

    encoder: "Encoder"
    premise: Side
    hypothesis: Side
    pairs: Sequence[Pair] | None = None  # the pairs themselves, for per-pair custom features
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __len__(self) -> int:
        return len(self.premise.offsets) - 1

    def tags_for(self, side: Side, tag_match: str) -> np.ndarray:
        check_option("tag_match", tag_match)
        return side.tags if tag_match == "exact" else side.coarse

    def word_matches(self, a_name: str = "premise", b_name: str = "hypothesis"):
        """(row, a_index, b_index) of every cell where the two sides hold the same word, b-major.

        Cached (and computed once even when feature types run on several threads): `bleu` and
        `overlap` both start from the premise x hypothesis matches.
        """
        key = ("matches", a_name, b_name)
        with self._lock:
            if key not in self.premise._cache:
                self.premise._cache[key] = self._word_matches(a_name, b_name)
        return self.premise._cache[key]

    def _word_matches(self, a_name: str, b_name: str):
        a, b = getattr(self, a_name), getattr(self, b_name)
        parts = []
        for start, stop in self.row_chunks():
            rows, ai, bi = cross_index(a, b, start, stop)
            hit = np.flatnonzero(a.ids[ai] == b.ids[bi])
            parts.append((rows[hit], ai[hit], bi[hit]))  # int32: indices of this batch fit
        return tuple(np.concatenate([part[i] for part in parts]) if parts else np.zeros(0, dtype=np.int32)
                     for i in range(3))

    def repeats(self, side_name: str = "hypothesis"):
        """(row, earlier_index, later_index) for every two positions j < k of one row holding the
        same word. Rows rarely repeat a word, so only tokens whose (row, word) occurs twice are
        paired up, instead of scanning every row's square."""
        key = ("repeats", side_name)
        with self._lock:
            if key not in self.premise._cache:
                self.premise._cache[key] = self._repeats(side_name)
        return self.premise._cache[key]

    def _repeats(self, side_name: str):
        side = getattr(self, side_name)
        rows = np.repeat(np.arange(len(self), dtype=np.int64), side.lengths)
        codes, _ = factorize((rows << WORD_BITS) | side.ids)
        dup = np.flatnonzero(np.bincount(codes)[codes] > 1)
        # Group the repeated tokens by (row, word), positions ascending within a group.
        dup = dup[np.argsort(codes[dup], kind="stable")]
        group = codes[dup]
        first = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
        start = np.repeat(first, np.diff(np.r_[first, len(group)]))
        rank = np.arange(len(group)) - start  # 0-based position within its group
        later = np.repeat(np.arange(len(group)), rank)  # each token pairs with the `rank` before it
        earlier = start[later] + (np.arange(len(later)) - np.repeat(np.cumsum(rank) - rank, rank))
        return rows[dup[later]], dup[earlier], dup[later]

    def row_chunks(self, budget: int | None = None) -> Iterator[tuple[int, int]]:
        """Row ranges whose premise x hypothesis cross products hold about `budget` cells each
        (default `CHUNK_CELLS`)."""
        budget = budget or CHUNK_CELLS
        cells = np.cumsum(self.premise.lengths * self.hypothesis.lengths)
        n, start = len(self), 0
        while start < n:
            base = cells[start - 1] if start else 0
            stop = int(np.searchsorted(cells, base + budget, side="right"))
            stop = min(max(stop, start + 1), n)
            yield start, stop
            start = stop


def _sentence_table(pairs: Sequence[Pair]):
    """Distinct (tokens, tags) sentences and, per pair, the index of its premise and hypothesis.

    SNLI shares each premise among ~3.7 hypotheses, so every distinct sentence is encoded once.
    Sentences are matched by text (hash-factorized), then confirmed to carry the same tokens
    and tags: by object identity when readers share annotation tuples (they do), else by
    equality, so two different annotations of one text are never merged.
    """
    texts = np.array(list(map(_TEXT[0], pairs)) + list(map(_TEXT[1], pairs)), dtype=object)
    tokens = list(map(_TOKENS[0], pairs)) + list(map(_TOKENS[1], pairs))
    tags = list(map(_TAGS[0], pairs)) + list(map(_TAGS[1], pairs))
    sids, _ = factorize_objects(texts)
    first = np.unique(sids, return_index=True)[1]
    token_obj = np.fromiter(map(id, tokens), dtype=np.int64, count=len(tokens))
    tag_obj = np.fromiter(map(id, tags), dtype=np.int64, count=len(tags))
    owner = first[sids]
    table = [(tokens[i], tags[i]) for i in first.tolist()]
    variants: dict = {}
    for i in np.flatnonzero((token_obj != token_obj[owner]) | (tag_obj != tag_obj[owner])):
        if tokens[i] != tokens[owner[i]] or tags[i] != tags[owner[i]]:
            key = (int(sids[i]), tokens[i], tags[i])
            if key not in variants:
                variants[key] = len(table)
                table.append((tokens[i], tags[i]))
            sids[i] = variants[key]
    return table, sids[:len(pairs)], sids[len(pairs):]


class Encoder(BaseEstimator):
    """Fitted vocabulary of word forms, PTB tags and bigrams shared by all feature types.

    lowercase: map words to lowercase forms before anything else.
    """

    def __init__(self, *, lowercase: bool = True):
        self.lowercase = lowercase

    def fit(self, pairs, y=None) -> "Encoder":
        self.fit_encode(pairs)
        return self

    def fit_encode(self, pairs) -> EncodedPairs:
        pairs = check_pairs(pairs)
        self.forms_: dict[str, int] = {}
        self.tags_: dict[str, int] = {}
        return self._encode(pairs, self.forms_, self.tags_, fit=True)

    def encode(self, pairs) -> EncodedPairs:
        """Encode with the fitted vocabulary; unseen words get fresh ids, unseen bigrams id -1."""
        check_is_fitted(self, "forms_")
        pairs = check_pairs(pairs)
        return self._encode(pairs, dict(self.forms_), dict(self.tags_), fit=False)

    @property
    def bigrams_(self) -> np.ndarray:
        """Bigram id -> key (left word id << 31 | right word id)."""
        return self.bigram_index_.keys

    def _encode(self, pairs: Sequence[Pair], forms: dict, tags: dict, fit: bool) -> EncodedPairs:
        gc_was_on = gc.isenabled()
        gc.disable()  # millions of short-lived acyclic objects: collections would only rescan them
        try:
            return self._encode_unpaused(pairs, forms, tags, fit)
        finally:
            if gc_was_on:
                gc.enable()

    def _encode_unpaused(self, pairs: Sequence[Pair], forms: dict, tags: dict, fit: bool) -> EncodedPairs:
        table, p_sid, h_sid = _sentence_table(pairs)
        table_tokens = [t for t, _ in table]
        offsets = np.zeros(len(table) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, table_tokens), dtype=np.int64, count=len(table)), out=offsets[1:])
        word_ids = _Interner(forms, self.lowercase)
        tag_ids = _Interner(tags, False)
        ids = _lookup(word_ids, list(chain.from_iterable(table_tokens)))
        if len(forms) >= 2 ** WORD_BITS:
            raise ValueError("vocabulary exceeds 2**31 word forms")
        # Bigram ids are numpy/pandas work that releases the GIL: overlap it with the tag lookup,
        # which is Python-bound.
        with ThreadPoolExecutor(1) as pool:
            bigrams = pool.submit(self._bigram_ids, ids, offsets, fit)
            tids = _lookup(tag_ids, list(chain.from_iterable(g for _, g in table)))
            bigram_at = bigrams.result()
        tag_list = list(tags)
        coarse_of: dict[str, int] = {}
        coarse_map = np.array([coarse_of.setdefault(t[:1], len(coarse_of)) for t in tag_list] or [0],
                              dtype=np.int32)
        content_map = np.array([t.startswith(CONTENT_TAG_PREFIXES) for t in tag_list] or [False], dtype=bool)
        if fit:
            self.words_ = list(forms)
        sides = []
        for sid in (p_sid, h_sid):
            lengths = offsets[sid + 1] - offsets[sid]
            side_offsets = np.zeros(len(sid) + 1, dtype=np.int64)
            np.cumsum(lengths, out=side_offsets[1:])
            gather = (np.arange(side_offsets[-1], dtype=np.int64)
                      + np.repeat(offsets[sid] - side_offsets[:-1], lengths))
            t = tids[gather]
            sides.append(Side(ids[gather], t, coarse_map[t], content_map[t], side_offsets,
                              bigram_at[gather]).warm())
        return EncodedPairs(self, sides[0], sides[1], pairs=pairs)

    def _bigram_ids(self, ids: np.ndarray, offsets: np.ndarray, fit: bool) -> np.ndarray:
        """Per token of the sentence table: the id of the bigram it begins, or -1."""
        at = np.full(len(ids), -1, dtype=np.int32)
        starts = np.ones(len(ids), dtype=bool)
        lengths = np.diff(offsets)
        starts[offsets[1:][lengths > 0] - 1] = False
        starts = np.flatnonzero(starts)
        keys = (ids[starts].astype(np.int64) << WORD_BITS) | ids[starts + 1]
        if fit:
            codes, uniques = factorize(keys)
            self.bigram_index_ = KeyIndex(uniques)
            at[starts] = codes
        else:
            at[starts] = self.bigram_index_.lookup(keys)
        return at


def cross_index(a: Side, b: Side, start: int, stop: int):
    """All (a token, b token) index pairs within each row of [start, stop).

    Returns (row, a_index, b_index) as int32 arrays, b-major: for each b token, a run over its
    row's a tokens (so per-b-token reductions are contiguous runs).
    """
    o_lo, o_hi = b.offsets[start], b.offsets[stop]
    # int32 halves the memory traffic; a chunk never holds 2**31 cells or tokens.
    b_rows = np.repeat(np.arange(start, stop, dtype=np.int32), b.lengths[start:stop])
    reps = a.lengths[b_rows]
    b_idx = np.repeat(np.arange(o_lo, o_hi, dtype=np.int32), reps)
    run_start = (np.cumsum(reps) - reps).astype(np.int32)
    shift = run_start - a.offsets[b_rows].astype(np.int32)
    a_idx = np.arange(len(b_idx), dtype=np.int32) - np.repeat(shift, reps)
    return np.repeat(b_rows, reps), a_idx, b_idx


def matching_cross_index(a: Side, b: Side, a_tags: np.ndarray, b_tags: np.ndarray, start: int, stop: int):
    """The (a token, b token) pairs of each row in [start, stop) whose tags are equal, without
    visiting the other cells: tokens are grouped by (row, tag) and only groups present on both
    sides are multiplied out.

    Returns (row, a_index, b_index) as int64 arrays, rows non-decreasing.
    """
    n_tags = int(max(a_tags.max(initial=0), b_tags.max(initial=0))) + 1
    n_groups = (stop - start) * n_tags
    groups = []
    for side, tags in ((a, a_tags), (b, b_tags)):
        lo, hi = side.offsets[start], side.offsets[stop]
        local_rows = np.repeat(np.arange(stop - start, dtype=np.int64), side.lengths[start:stop])
        group = local_rows * n_tags + tags[lo:hi]
        # One packed sort (group, position) instead of an argsort: numpy's sort is far faster.
        packed = np.sort((group << 32) | np.arange(hi - lo, dtype=np.int64))
        order = (packed & 0xFFFFFFFF) + lo
        counts = np.bincount(group, minlength=n_groups)
        first = np.cumsum(counts) - counts
        groups.append((order, packed >> 32, counts, first))
    (a_order, a_group, _, _), (b_order, _, b_counts, b_first) = groups
    reps = b_counts[a_group]
    a_index = np.repeat(a_order, reps)
    run_start = np.cumsum(reps) - reps
    b_local = np.arange(len(a_index), dtype=np.int64) - np.repeat(run_start - b_first[a_group], reps)
    rows = np.repeat(a_group // n_tags + start, reps)
    return rows, a_index, b_order[b_local]
