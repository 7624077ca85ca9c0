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

from .keymap import KeyIndex, factorize, factorize_bounded, sort_with_order
from .options import check_option
from .pair import Pair

WORD_BITS = 31  # word ids < 2**31; a bigram key packs two of them into one int64
CHUNK_CELLS = 2_000_000  # premise x hypothesis cells visited at once: bounds the memory of cross products
CHUNK_TOKENS = 2_000_000  # tokens sorted at once to find equal words: bounds memory, stays cache-friendly
CONTENT_TAG_PREFIXES = ("NN", "VB", "JJ", "RB")  # nouns, verbs, adjectives, adverbs
_TOKENS = attrgetter("premise_tokens"), attrgetter("hypothesis_tokens")
_TAGS = attrgetter("premise_tags"), attrgetter("hypothesis_tags")


def check_pairs(pairs) -> Sequence[Pair]:
    """The input contract of every feature type: a sequence of annotated pairs (or an encoded batch)."""
    pairs = _pair_list(pairs)
    if not isinstance(pairs, EncodedPairs) and (None in map(_TAGS[0], pairs) or None in map(_TAGS[1], pairs)):
        _not_annotated(pairs)
    return pairs


def _pair_list(pairs):
    """`pairs` as a list of Pairs (an encoded batch as it is), or ValueError."""
    if isinstance(pairs, (str, bytes, Pair)):
        raise ValueError(f"expected a sequence of pairs, got a single {type(pairs).__name__}")
    if isinstance(pairs, EncodedPairs):
        return pairs
    pairs = list(pairs)
    if not all(map(Pair.__instancecheck__, pairs)):
        bad = next(i for i, p in enumerate(pairs) if not isinstance(p, Pair))
        raise ValueError(f"item {bad} is a {type(pairs[bad]).__name__}, not a Pair")
    return pairs


def _not_annotated(pairs: list[Pair]):
    bad = next(p for p in pairs if not p.is_annotated)
    raise ValueError(f"pair {bad.id!r} has no tokens/tags; run features.annotation.annotate first")


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


@dataclass
class Side:
    """One side (premise or hypothesis) of a batch: flat token arrays and per-row offsets."""

    ids: np.ndarray        # int32 word ids, all tokens of all rows
    tags: np.ndarray       # exact tag ids (unsigned, as narrow as the tag set allows)
    coarse: np.ndarray     # first-letter tag ids (same dtype)
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

    def token_rows(self, start: int = 0, stop: int | None = None) -> np.ndarray:
        """The row of every token of rows [start, stop) (int64)."""
        stop = len(self.lengths) if stop is None else stop
        return np.repeat(np.arange(start, stop, dtype=np.int64), self.lengths[start:stop])

    def bigram_starts(self) -> np.ndarray:
        """Token positions that begin a bigram (every position but the last of its row)."""
        keep = np.ones(len(self.ids), dtype=bool)
        keep[self.offsets[1:][self.lengths > 0] - 1] = False
        return np.flatnonzero(keep).astype(np.int32)

    def bigram_offsets(self) -> np.ndarray:
        counts = np.maximum(self.lengths - 1, 0)
        out = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(counts, out=out[1:])
        return out

    def warm(self) -> "Side":
        """Compute the lazy caches now (before threads share this side)."""
        self.lengths
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
        """(row, a_index, b_index) of every cell where the two sides hold the same word.

        Cached (and computed once even when feature types run on several threads): `bleu` and
        `overlap` both start from the premise x hypothesis matches.
        """
        key = ("matches", a_name, b_name)
        with self._lock:
            if key not in self.premise._cache:
                self.premise._cache[key] = self._word_matches(a_name, b_name)
        return self.premise._cache[key]

    def _word_matches(self, a_name: str, b_name: str):
        # Few cells hold the same word (~3 of the ~115 of an SNLI pair), so rather than visiting
        # every cell, tokens are sorted by (row, word) and equal runs of the two sides joined.
        a, b = getattr(self, a_name), getattr(self, b_name)
        vocabulary = int(max(a.ids.max(initial=-1), b.ids.max(initial=-1))) + 1
        parts = []
        for start, stop in row_ranges(a.lengths + b.lengths, CHUNK_TOKENS):
            a_lo, a_hi, b_lo, b_hi = a.offsets[start], a.offsets[stop], b.offsets[start], b.offsets[stop]
            a_keys = a.token_rows(start, stop)
            b_rows = b.token_rows(start, stop)
            a_keys -= start
            a_keys *= vocabulary
            a_keys += a.ids[a_lo:a_hi]
            b_keys = (b_rows - start) * vocabulary + b.ids[b_lo:b_hi]
            ai, bi = _equal_key_pairs(a_keys, b_keys, (stop - start) * vocabulary)
            del a_keys, b_keys
            parts.append((b_rows[bi].astype(np.int32), (ai + a_lo).astype(np.int32), (bi + b_lo).astype(np.int32)))
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
        rows = side.token_rows()
        vocabulary = int(side.ids.max(initial=-1)) + 1
        # Group tokens by (row, word), positions ascending within a group (a stable sort).
        ordered, order = sort_with_order(rows * vocabulary + side.ids, len(self) * vocabulary)
        new = np.empty(len(ordered), dtype=bool)
        new[:1] = True
        np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
        del ordered
        first = np.flatnonzero(new)
        sizes = np.diff(np.append(first, len(order)))
        repeated = sizes > 1
        dup = order[np.repeat(repeated, sizes)]  # the tokens of repeated words, group by group
        sizes = sizes[repeated]
        start = np.repeat(np.cumsum(sizes) - sizes, sizes)
        rank = np.arange(len(dup)) - start  # 0-based position within its group
        later = np.repeat(np.arange(len(dup)), rank)  # each token pairs with the `rank` before it
        earlier = start[later] + (np.arange(len(later)) - np.repeat(np.cumsum(rank) - rank, rank))
        return rows[dup[later]].astype(np.int32), dup[earlier], dup[later]

    def row_chunks(self, budget: int | None = None) -> Iterator[tuple[int, int]]:
        """Row ranges whose premise x hypothesis cross products hold about `budget` cells each
        (default `CHUNK_CELLS`)."""
        return row_ranges(self.premise.lengths * self.hypothesis.lengths, budget or CHUNK_CELLS)


def row_ranges(weights: np.ndarray, budget: int) -> Iterator[tuple[int, int]]:
    """Consecutive row ranges whose weights add up to about `budget` (at least one row each)."""
    total = np.cumsum(weights)
    n, start = len(weights), 0
    while start < n:
        base = total[start - 1] if start else 0
        stop = int(np.searchsorted(total, base + budget, side="right"))
        stop = min(max(stop, start + 1), n)
        yield start, stop
        start = stop


def _equal_key_pairs(a_keys: np.ndarray, b_keys: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """(a_index, b_index) of every pair of equal keys (non-negative, < bound), by one sort of both."""
    n_a = len(a_keys)
    ordered, order = sort_with_order(np.concatenate([a_keys, b_keys]), bound)
    new = np.empty(len(ordered), dtype=bool)
    new[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    del ordered
    run = np.cumsum(new) - 1
    run_first = np.flatnonzero(new)
    from_b = order >= n_a  # within a run of equal keys the a tokens come first (a stable sort)
    a_in_run = np.bincount(run[~from_b], minlength=len(run_first))
    b_at = np.flatnonzero(from_b)
    reps = a_in_run[run[b_at]]
    b_index = np.repeat(order[b_at] - n_a, reps)
    steps = np.arange(len(b_index)) - np.repeat(np.cumsum(reps) - reps, reps)
    a_index = order[np.repeat(run_first[run[b_at]], reps) + steps]
    return a_index, b_index


def _sentence_table(pairs: Sequence[Pair]):
    """(token tuples, tag tuples) of the sentences to encode and, per pair, the index of its
    premise and of its hypothesis among them. Also checks that every pair is annotated (the
    tags are at hand here).

    SNLI shares each premise among ~3.7 hypotheses, so each distinct premise is encoded once.
    Premises are told apart by the identity of their token and tag tuples, which readers and
    `annotate` share between pairs with the same sentence: numbering object ids is far cheaper
    than hashing text, and two equal premises that do not share tuples are merely encoded twice
    (to the same ids). The tuples stay alive in `pairs`, so their ids cannot be reused meanwhile.
    Hypotheses hardly ever repeat: each is encoded as it comes.
    """
    n = len(pairs)
    p_tags, h_tags = list(map(_TAGS[0], pairs)), list(map(_TAGS[1], pairs))
    if None in p_tags or None in h_tags:
        _not_annotated(pairs)
    p_tokens = list(map(_TOKENS[0], pairs))
    sid, _ = factorize(np.fromiter(map(id, p_tokens), dtype=np.int64, count=n))
    tag_obj = np.fromiter(map(id, p_tags), dtype=np.int64, count=n)
    # Codes number premises in order of first appearance, so a first appearance is a new maximum.
    first = np.flatnonzero(np.diff(np.maximum.accumulate(sid), prepend=-1) > 0)
    if (tag_obj != tag_obj[first][sid]).any():  # one token tuple with several tag tuples: tell them apart
        tag_codes, _ = factorize(tag_obj)
        sid, _ = factorize(sid * (int(tag_codes.max()) + 1) + tag_codes)
        first = np.flatnonzero(np.diff(np.maximum.accumulate(sid), prepend=-1) > 0)
    first = first.tolist()
    tokens = list(map(p_tokens.__getitem__, first))
    tokens += map(_TOKENS[1], pairs)
    tags = list(map(p_tags.__getitem__, first))
    tags += h_tags
    return tokens, tags, sid, np.arange(len(first), len(first) + n)


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
        pairs = _pair_list(pairs)  # annotation is checked while the sentences are collected
        self.forms_: dict[str, int] = {}
        self.tags_: dict[str, int] = {}
        return self._encode(pairs, self.forms_, self.tags_, fit=True)

    def encode(self, pairs) -> EncodedPairs:
        """Encode with the fitted vocabulary; unseen words get fresh ids, unseen bigrams id -1."""
        check_is_fitted(self, "forms_")
        pairs = _pair_list(pairs)
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
        table_tokens, table_tags, p_sid, h_sid = _sentence_table(pairs)
        lengths = np.fromiter(map(len, table_tokens), dtype=np.int64, count=len(table_tokens))
        offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        total = int(offsets[-1])
        # Interning is the one Python-level pass over every token: a dict lookup per token,
        # straight from the sentence tuples into an array (no intermediate list).
        word_ids = _Interner(forms, self.lowercase)
        ids = np.fromiter(map(word_ids.__getitem__, chain.from_iterable(table_tokens)), dtype=np.int32, count=total)
        if len(forms) >= 2 ** WORD_BITS:
            raise ValueError("vocabulary exceeds 2**31 word forms")
        # Bigram ids are numpy work that releases the GIL: overlap it with the tag lookup,
        # which is Python-bound.
        with ThreadPoolExecutor(1) as pool:
            bigrams = pool.submit(self._bigram_ids, ids, offsets, len(forms), fit)
            tag_ids = _Interner(tags, False)
            tids = np.fromiter(map(tag_ids.__getitem__, chain.from_iterable(table_tags)), dtype=np.int32, count=total)
            bigram_at = bigrams.result()
        del table_tokens, table_tags
        tag_list = list(tags)
        tag_dtype = np.min_scalar_type(max(len(tag_list) - 1, 0))  # uint8 for PTB's ~45 tags: 4x less memory
        tids = tids.astype(tag_dtype)
        coarse_of: dict[str, int] = {}
        coarse_map = np.array([coarse_of.setdefault(t[:1], len(coarse_of)) for t in tag_list] or [0],
                              dtype=tag_dtype)
        content_map = np.array([t.startswith(CONTENT_TAG_PREFIXES) for t in tag_list] or [False], dtype=bool)
        if fit:
            self.words_ = list(forms)
        sides = []
        for sid in (p_sid, h_sid):
            side_lengths = lengths[sid]
            side_offsets = np.zeros(len(sid) + 1, dtype=np.int64)
            np.cumsum(side_lengths, out=side_offsets[1:])
            gather = np.repeat(offsets[sid] - side_offsets[:-1], side_lengths)  # table position - side position
            gather += np.arange(len(gather), dtype=np.int64)
            t = tids[gather]
            sides.append(Side(ids[gather], t, coarse_map[t], content_map[t], side_offsets,
                              bigram_at[gather]).warm())
        return EncodedPairs(self, sides[0], sides[1], pairs=pairs)

    def _bigram_ids(self, ids: np.ndarray, offsets: np.ndarray, vocabulary: int, fit: bool) -> np.ndarray:
        """Per token of the sentence table: the id of the bigram it begins, or -1."""
        at = np.full(len(ids), -1, dtype=np.int32)
        starts = np.ones(len(ids), dtype=bool)
        lengths = np.diff(offsets)
        starts[offsets[1:][lengths > 0] - 1] = False
        starts = np.flatnonzero(starts)
        keys = ids[starts].astype(np.int64)
        if fit:
            # Numbered by sorting the compact key left * vocabulary + right (bigram ids follow
            # key order); the exact key left << 31 | right is what the fitted index keeps.
            keys *= vocabulary
            keys += ids[starts + 1]
            codes, uniques = factorize_bounded(keys, vocabulary * vocabulary, overwrite=True)
            self.bigram_index_ = KeyIndex(((uniques // vocabulary) << WORD_BITS) | (uniques % vocabulary))
            at[starts] = codes
        else:
            keys <<= WORD_BITS
            keys |= ids[starts + 1]
            at[starts] = self.bigram_index_.lookup(keys)
        return at


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
