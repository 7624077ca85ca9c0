"""Integer encoding of annotated pairs: one vocabulary per corpus, flat numpy arrays per batch.

Feature types never touch strings on the hot path: tokens, tags and bigrams
become ids once, a batch of pairs becomes flat arrays plus offsets, and every
feature is an exact int64 key built from ids, so names can always be recovered.
"""
from __future__ import annotations

import gc
import threading
from dataclasses import dataclass, field
from itertools import chain
from operator import attrgetter
from typing import Iterator, Sequence

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from ..options import check_option
from ..pair import Pair
from .keymap import KeyIndex, factorize, sort_with_order

WORD_BITS = 31  # word ids < 2**31; a bigram key packs two of them into one int64
CHUNK_CELLS = 2_000_000  # premise x hypothesis cells visited at once: bounds the memory of cross products
CHUNK_TOKENS = 2_000_000  # tokens sorted at once to find equal words: bounds memory, stays cache-friendly
# Rows counted at once by the types that count per token (bleu, overlap): their per-token arrays
# then stay small, in cache, and reused, instead of fresh memory as long as the batch.
ROW_CHUNK = 1 << 15
CONTENT_TAG_PREFIXES = ("NN", "VB", "JJ", "RB")  # nouns, verbs, adjectives, adverbs
_TOKENS = attrgetter("premise_tokens"), attrgetter("hypothesis_tokens")
_TAGS = attrgetter("premise_tags"), attrgetter("hypothesis_tags")


def check_pairs(pairs) -> Sequence[Pair]:
    """The input contract of every feature type: a sequence of annotated pairs (or an encoded batch)."""
    pairs = pair_list(pairs)
    if not isinstance(pairs, EncodedPairs) and (None in map(_TAGS[0], pairs) or None in map(_TAGS[1], pairs)):
        _not_annotated(pairs)
    return pairs


def pair_list(pairs):
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
    raise ValueError(f"pair {bad.id!r} has no tokens/tags; run features.text.annotation.annotate first")


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
    # (ValueCache, digest of the pairs) where the engine keeps these pairs' values on disk
    # (`features.storage.value_cache`), else None.
    value_cache: tuple | None = None
    # Every word form by id: the encoder's vocabulary, then the forms this batch added (unseen
    # words get fresh ids past the vocabulary); what types that read spelling need (`features.text.characters`).
    forms: dict | None = field(default=None, repr=False)
    tag_names: dict | None = field(default=None, repr=False)  # every tag by id, as `forms`
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __len__(self) -> int:
        return len(self.premise.offsets) - 1

    def tags_for(self, side: Side, tag_match: str) -> np.ndarray:
        check_option("tag_match", tag_match)
        return side.tags if tag_match == "exact" else side.coarse

    def word_matches(self, a_name: str = "premise", b_name: str = "hypothesis"):
        """(row, a_index, b_index) of every cell where the two sides hold the same word (int32),
        rows non-decreasing.

        Cached (and computed once even when feature types run on several threads): `bleu` and
        `overlap` both start from the premise x hypothesis matches, and from the hypothesis'
        `repeats`, which come out of the same pass.
        """
        key = ("matches", a_name, b_name)
        with self._lock:
            if key not in self.premise._cache:
                matches, repeats = self._equal_words(a_name, b_name)
                self.premise._cache[key] = matches
                self.premise._cache.setdefault(("repeats", b_name), repeats)
        return self.premise._cache[key]

    def repeats(self, side_name: str = "hypothesis"):
        """(row, earlier_index, later_index) for every two positions j < k of one row holding the
        same word (row int32, indices int64), rows non-decreasing. Cached; for the hypothesis,
        computed with `word_matches`."""
        if side_name == "hypothesis":
            self.word_matches("premise", "hypothesis")
        key = ("repeats", side_name)
        with self._lock:
            if key not in self.premise._cache:
                self.premise._cache[key] = self._equal_words(None, side_name)[1]
        return self.premise._cache[key]

    def _equal_words(self, a_name: str | None, b_name: str):
        """(`word_matches(a_name, b_name)`, `repeats(b_name)`); without a side a, the repeats only.

        Few cells hold the same word (~3 of the ~115 of an SNLI pair), so rather than visiting
        every cell, the tokens of a row range are sorted by (row, word), a's before b's, each
        side's in position order; in a run of equal keys, each b token meets every token before
        it: a's are its matches, earlier b's its repeats. Row ranges of about CHUNK_TOKENS keep
        every array here small enough to stay in cache and be reused.
        """
        a, b = (getattr(self, a_name) if a_name else None), getattr(self, b_name)
        vocabulary = int(max(a.ids.max(initial=-1) if a is not None else -1, b.ids.max(initial=-1))) + 1
        matches, repeats = [], []
        for start, stop in row_ranges((a.lengths if a is not None else 0) + b.lengths, CHUNK_TOKENS):
            a_lo, a_hi = (a.offsets[start], a.offsets[stop]) if a is not None else (0, 0)
            b_lo, b_hi = b.offsets[start], b.offsets[stop]
            n_a = a_hi - a_lo
            b_rows = b.token_rows(start, stop)
            keys = np.empty(n_a + b_hi - b_lo, dtype=np.int64)
            if a is not None:
                np.multiply(a.token_rows(start, stop) - start, vocabulary, out=keys[:n_a])
                keys[:n_a] += a.ids[a_lo:a_hi]
            np.multiply(b_rows - start, vocabulary, out=keys[n_a:])
            keys[n_a:] += b.ids[b_lo:b_hi]
            ordered, order = sort_with_order(keys, (stop - start) * vocabulary, overwrite=True)
            del keys
            # Sorted positions that repeat the key before them (runs rarely hold more than one).
            later = np.flatnonzero(ordered[1:] == ordered[:-1])
            later += 1
            del ordered
            # Their run's first position: consecutive repeats share one run.
            new_run = np.ones(len(later), dtype=bool)
            np.not_equal(later[1:], later[:-1] + 1, out=new_run[1:])
            first = np.flatnonzero(new_run)
            run_start = np.repeat(later[first] - 1, np.diff(first, append=len(later)))
            # Each b token meets the tokens before it in its run.
            token = order[later]
            earlier = np.where(token >= n_a, later - run_start, 0)
            partner = np.repeat(run_start, earlier)
            partner += np.arange(len(partner)) - np.repeat(np.cumsum(earlier) - earlier, earlier)
            partner = order[partner]
            token = np.repeat(token - n_a, earlier)
            from_a = partner < n_a
            rows = b_rows[token]
            token += b_lo
            matches.append((rows[from_a], partner[from_a] + a_lo, token[from_a]))
            from_b = ~from_a
            repeats.append((rows[from_b], partner[from_b] - n_a + b_lo, token[from_b]))

        def joined(parts, dtypes):
            return tuple(np.concatenate([part[i] for part in parts]).astype(dtype, copy=False) if parts
                         else np.zeros(0, dtype=dtype) for i, dtype in enumerate(dtypes))
        return (joined(matches, (np.int32, np.int32, np.int32)) if a is not None else None,
                joined(repeats, (np.int32, np.int64, np.int64)))

    def row_blocks(self) -> Iterator[tuple[int, int]]:
        """Consecutive ranges of ROW_CHUNK rows, for types that count per token."""
        n = len(self)
        return ((start, min(start + ROW_CHUNK, n)) for start in range(0, n, ROW_CHUNK))

    def row_chunks(self, budget: int | None = None) -> Iterator[tuple[int, int]]:
        """Row ranges whose premise x hypothesis cross products hold about `budget` cells each
        (default `CHUNK_CELLS`)."""
        return row_ranges(self.premise.lengths * self.hypothesis.lengths, budget or CHUNK_CELLS)


def row_slice(rows: np.ndarray, start: int, stop: int) -> slice:
    """Where rows [start, stop) are in `rows`, an array of row numbers in non-decreasing order
    (as `EncodedPairs.word_matches` and `repeats` give them)."""
    lo, hi = np.searchsorted(rows, np.array([start, stop], dtype=rows.dtype))  # another dtype would copy `rows`
    return slice(int(lo), int(hi))


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
        pairs = pair_list(pairs)  # annotation is checked while the sentences are collected
        self.forms_: dict[str, int] = {}
        self.tags_: dict[str, int] = {}
        return self._encode(pairs, self.forms_, self.tags_, fit=True)

    def encode(self, pairs) -> EncodedPairs:
        """Encode with the fitted vocabulary; unseen words get fresh ids, unseen bigrams id -1."""
        check_is_fitted(self, "forms_")
        pairs = pair_list(pairs)
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
        # Not on a thread beside the tag lookup: that holds the GIL throughout, so each of the
        # bigram numbering's numpy calls waits for a switch interval, and the two took as long
        # as one after the other.
        tag_ids = _Interner(tags, False)
        tids = np.fromiter(map(tag_ids.__getitem__, chain.from_iterable(table_tags)), dtype=np.int32, count=total)
        bigram_at = self._bigram_ids(ids, offsets, len(forms), fit)
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
            if len(sid) and sid[-1] - sid[0] == len(sid) - 1 and (np.diff(sid) == 1).all():
                # Consecutive sentences of the table (the hypotheses): a copy of a slice of it.
                lo, hi = offsets[sid[0]], offsets[sid[-1] + 1]
                side_offsets = offsets[sid[0]:sid[-1] + 2] - lo

                def take(table, lo=lo, hi=hi):
                    return table[lo:hi].copy()
            else:
                side_lengths = lengths[sid]
                side_offsets = np.zeros(len(sid) + 1, dtype=np.int64)
                np.cumsum(side_lengths, out=side_offsets[1:])
                gather = np.repeat(offsets[sid] - side_offsets[:-1], side_lengths)  # table position - side position
                gather += np.arange(len(gather), dtype=np.int64)

                def take(table, gather=gather):
                    return table[gather]
            t = take(tids)
            sides.append(Side(take(ids), t, coarse_map[t], content_map[t], side_offsets, take(bigram_at)).warm())
        return EncodedPairs(self, sides[0], sides[1], pairs=pairs, forms=forms, tag_names=tags)

    def _bigram_ids(self, ids: np.ndarray, offsets: np.ndarray, vocabulary: int, fit: bool) -> np.ndarray:
        """Per token of the sentence table: the id of the bigram it begins, or -1."""
        at = np.full(len(ids), -1, dtype=np.int32)
        begins = np.ones(len(ids), dtype=bool)  # every token but the last of its sentence
        lengths = np.diff(offsets)
        begins[offsets[1:][lengths > 0] - 1] = False
        keys = ids[begins].astype(np.int64)
        right = ids[1:][begins[:-1]]  # the table's last token ends a sentence: begins[-1] is False
        if fit:
            # Numbered by sorting the compact key left * vocabulary + right (bigram ids follow
            # key order); the exact key left << 31 | right is what the fitted index keeps.
            keys *= vocabulary
            keys += right
            del right
            ordered, order = sort_with_order(keys, vocabulary * vocabulary, overwrite=True)
            del keys
            new = np.empty(len(ordered), dtype=bool)
            new[:1] = True
            np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
            uniques = ordered[new]
            del ordered
            codes = np.cumsum(new, dtype=np.int32)
            codes -= 1
            # Back to table order by one scatter: a few million int32 stay in cache, and this
            # costs less than `factorize_bounded`'s second sort.
            in_order = np.empty(len(codes), dtype=np.int32)
            in_order[order] = codes
            at[begins] = in_order
            self.bigram_index_ = KeyIndex(((uniques // vocabulary) << WORD_BITS) | (uniques % vocabulary))
        else:
            keys <<= WORD_BITS
            keys |= right
            at[begins] = self.bigram_index_.lookup(keys)
        return at


def matching_cross_index(a: Side, b: Side, a_tags: np.ndarray, b_tags: np.ndarray, start: int, stop: int):
    """The (a token, b token) pairs of each row in [start, stop) whose tags are equal, without
    visiting the other cells (see `tag_matched_cells`).

    Returns (row, a_index, b_index) as int64 arrays, rows non-decreasing.
    """
    cells = tag_matched_cells(a, b, a_tags, b_tags, start, stop)
    return (np.repeat(cells.a_rows, cells.reps), np.repeat(cells.a_order, cells.reps),
            cells.b_order[cells.b_local()])


@dataclass
class TagMatchedCells:
    """The tag-matched cells of a row range, as runs: a token `a_order[k]` (of row `a_rows[k]`)
    meets the `reps[k]` b tokens `b_order[b_first[k]:b_first[k] + reps[k]]`; cell by cell, the
    runs follow each other in `a_order`. Callers expand per-token values themselves
    (`np.repeat(values[a_order], reps)`, `values[b_order][b_local()]`), so that only what they
    need is ever as long as the cells."""

    a_order: np.ndarray  # int64 a token positions, grouped by (row, tag)
    a_rows: np.ndarray   # int64 row of each
    reps: np.ndarray     # int64 cells of each
    b_order: np.ndarray  # int64 b token positions, grouped by (row, tag)
    b_first: np.ndarray  # int64 where each a token's run starts in b_order

    def __len__(self) -> int:
        return int(self.reps.sum())

    def b_local(self) -> np.ndarray:
        """Per cell, its b token's index into `b_order`."""
        ends = np.cumsum(self.reps)
        cells = int(ends[-1]) if len(ends) else 0
        # int32 where it fits: this is the longest array here, and halving it speeds up every pass.
        dtype = np.int32 if cells < 2 ** 31 else np.int64
        shift = ends - self.reps - self.b_first  # cell number - b index, along each run
        local = np.arange(cells, dtype=dtype)
        local -= np.repeat(shift.astype(dtype), self.reps)
        return local


def tag_matched_cells(a: Side, b: Side, a_tags: np.ndarray, b_tags: np.ndarray, start: int, stop: int,
                      a_valid: np.ndarray | None = None, b_valid: np.ndarray | None = None) -> TagMatchedCells:
    """The (a token, b token) pairs of each row in [start, stop) whose tags are equal, without
    visiting the other cells: tokens are grouped by (row, tag) and only groups present on both
    sides are multiplied out.

    a_valid, b_valid: bool per token of the whole side, or None; tokens marked False take part
        in no cell.
    """
    n_tags = _n_tags(a, b, a_tags, b_tags, start, stop)
    n_groups = (stop - start) * n_tags
    groups = []
    for side, tags, valid in ((a, a_tags, a_valid), (b, b_tags, b_valid)):
        group = _tag_groups(side, tags, valid, start, stop, n_tags)
        # One packed sort (group, position) instead of an argsort: numpy's sort is far faster.
        packed = group << 32
        packed |= np.arange(len(group), dtype=np.int64)
        packed.sort()
        order = packed & 0xFFFFFFFF
        order += side.offsets[start]
        packed >>= 32
        counts = np.bincount(group, minlength=n_groups + 1)
        counts[n_groups] = 0
        groups.append((order, packed, counts))
    (a_order, a_group, _), (b_order, _, b_counts) = groups
    b_first = np.cumsum(b_counts)
    b_first -= b_counts
    reps = b_counts[a_group]
    a_rows = a_group // n_tags
    a_rows += start
    return TagMatchedCells(a_order, a_rows, reps, b_order, b_first[a_group])


def tag_matched_count(a: Side, b: Side, a_tags: np.ndarray, b_tags: np.ndarray, start: int, stop: int,
                      a_valid: np.ndarray | None = None, b_valid: np.ndarray | None = None) -> int:
    """`len(tag_matched_cells(...))` from the sizes of the groups alone, without sorting."""
    n_tags = _n_tags(a, b, a_tags, b_tags, start, stop)
    n_groups = (stop - start) * n_tags
    a_counts, b_counts = (np.bincount(_tag_groups(side, tags, valid, start, stop, n_tags), minlength=n_groups + 1)
                          for side, tags, valid in ((a, a_tags, a_valid), (b, b_tags, b_valid)))
    return int(np.dot(a_counts[:n_groups], b_counts[:n_groups]))


def _n_tags(a: Side, b: Side, a_tags: np.ndarray, b_tags: np.ndarray, start: int, stop: int) -> int:
    """A bound on the tags of rows [start, stop) (group numbers only need to be distinct within them)."""
    return int(max(a_tags[a.offsets[start]:a.offsets[stop]].max(initial=0),
                   b_tags[b.offsets[start]:b.offsets[stop]].max(initial=0))) + 1


def _tag_groups(side: Side, tags: np.ndarray, valid: np.ndarray | None, start: int, stop: int,
                n_tags: int) -> np.ndarray:
    """(row - start) * n_tags + tag for every token of rows [start, stop); tokens not `valid` get a
    group of their own, (stop - start) * n_tags, sorted last and met by nothing."""
    lo, hi = side.offsets[start], side.offsets[stop]
    group = np.repeat(np.arange(0, (stop - start) * n_tags, n_tags, dtype=np.int64), side.lengths[start:stop])
    group += tags[lo:hi]
    if valid is not None:
        np.copyto(group, (stop - start) * n_tags, where=~valid[lo:hi])
    return group
