"""Translation edit rate (Snover et al. 2006) for a whole batch of sentence pairs at once, as
sacrebleu computes it: the fewest word insertions, deletions, substitutions and shifts of
phrases that turn the hypothesis into the reference, over the reference's length, with tercom's
rules (sacrebleu's `metrics.lib_ter`):

  - the edit distance is Levenshtein's, computed within a beam of 25 cells around the diagonal
    (scaled by the two lengths' ratio); the path read back from it prefers a match or
    substitution, then a deletion, then an insertion;
  - shifts are chosen greedily: of every phrase of at most 10 words that both sentences hold,
    starting at most 50 words apart, wrong on both sides and not already in place, moved before
    each reference-aligned position it may go to, the one that lowers the distance most (then
    the longest, then the earliest, then the earliest target) is made; again until no shift
    lowers it, or 1,000 candidate shifts have been tried (the last round then makes none).

Every step runs over all pairs still shifting at once. The distance matrices are filled row by
row with numpy, a row's insertions by one running minimum: pairs whose beam covers the whole
matrix (references of up to 24 words) together, padded to their bucket's longest sentences (a
cell depends only on cells above and to its left, so padding changes none of a pair's own),
the others per shape. Candidate shifts are read off the cells holding equal words, and each
candidate's distance is rapidfuzz's Levenshtein distance where the beam covers the matrix, else
the beam's own matrix.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cpdist

from ..columns.encoding import EncodedPairs, Side

MAX_SHIFT_SIZE = 10
MAX_SHIFT_DIST = 50
BEAM_WIDTH = 25
MAX_SHIFT_CANDIDATES = 1000
# Cells outside the beam. sacrebleu's is 10**16; any number above every distance (and with room
# for the few steps added to it) orders the cells alike, and 2**30 lets the matrices be int32.
INFINITY = 1 << 30
# Operations rewriting the hypothesis: INS takes a reference word, DEL drops a hypothesis word.
NOP, SUB, INS, DEL, UNDEFINED = 0, 1, 2, 3, 4
_BUCKET = 8  # full-beam pairs are padded to the next multiple of this many words on each side
_MOST_WORDS = 0x110000 - 0x800  # word ids become string characters (rapidfuzz), the surrogate range skipped


@lru_cache(maxsize=100_000)
def _beam(n_h: int, n_r: int) -> tuple[tuple[int, int], ...]:
    """Per row i = 1..n_h of the distance matrix, the columns [lo, hi) the beam computes."""
    ratio = n_r / n_h if n_h else 1
    width = math.ceil(ratio / 2 + BEAM_WIDTH) if BEAM_WIDTH < ratio / 2 else BEAM_WIDTH
    bounds = []
    for i in range(1, n_h + 1):
        diagonal = math.floor(i * ratio)
        lo, hi = max(0, diagonal - width), min(n_r + 1, diagonal + width)
        bounds.append((lo, n_r + 1 if i == n_h else hi))
    return tuple(bounds)


@lru_cache(maxsize=100_000)
def beam_is_full(n_h: int, n_r: int) -> bool:
    """Whether the beam computes every cell: the distance is then plain Levenshtein."""
    return all(lo == 0 and hi == n_r + 1 for lo, hi in _beam(n_h, n_r))


def _bounds(n_h: np.ndarray, n_r: np.ndarray, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Per problem and row i = 1..rows of its distance matrix, the columns [lo, hi) the beam
    computes (`_beam`, for every problem at once): (G, rows) arrays each."""
    n_h, n_r = n_h.astype(np.int64), n_r.astype(np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(n_h > 0, n_r / np.maximum(n_h, 1), 1.0)
    width = np.where(BEAM_WIDTH < ratio / 2, np.ceil(ratio / 2 + BEAM_WIDTH), BEAM_WIDTH).astype(np.int64)
    i = np.arange(1, rows + 1, dtype=np.int64)
    diagonal = np.floor(i[None, :] * ratio[:, None]).astype(np.int64)
    lo = np.maximum(0, diagonal - width[:, None])
    hi = np.minimum(n_r[:, None] + 1, diagonal + width[:, None])
    last = i[None, :] == n_h[:, None]
    hi = np.where(last, n_r[:, None] + 1, hi)
    return lo, hi


def _matrix(h: np.ndarray, r: np.ndarray, n_h: np.ndarray, n_r: np.ndarray, with_ops: bool):
    """The beam's distance matrix (and operations) of G hypotheses (G, m_h) against G references
    (G, m_r), each padded past its own length (n_h, n_r): (G, m_h + 1, m_r + 1) arrays. Row i of
    problem g is computed over its beam's columns; the cells outside stay at INFINITY, as
    tercom leaves them (padding rows and columns come after a problem's own cells, which
    depend only on cells above and to their left)."""
    g, m_h = h.shape
    m_r = r.shape[1]
    dist = np.full((g, m_h + 1, m_r + 1), INFINITY, dtype=np.int32)
    dist[:, 0, :] = np.arange(m_r + 1)
    ops = None
    if with_ops:
        ops = np.full((g, m_h + 1, m_r + 1), UNDEFINED, dtype=np.int8)
        ops[:, 0, :] = INS
    lo, hi = _bounds(n_h, n_r, m_h)
    columns = np.arange(m_r + 1, dtype=np.int32)
    for i in range(1, m_h + 1):
        prev = dist[:, i - 1, :]
        inside = (columns[None, :] >= lo[:, i - 1, None]) & (columns[None, :] < hi[:, i - 1, None])
        best = np.full((g, m_r + 1), INFINITY, dtype=np.int32)
        best[:, 0] = prev[:, 0] + 1  # column 0: a deletion, unconditionally (tercom's rule)
        differs = h[:, i - 1][:, None] != r
        diagonal = prev[:, :-1] + differs
        deletion = prev[:, 1:] + 1
        # In order, each operation replaces the cell's value (INFINITY) only if strictly smaller.
        value = np.minimum(diagonal, INFINITY)
        best[:, 1:] = np.minimum(value, deletion)
        best = np.where(inside, best, INFINITY)
        # Insertions chain along the row: cell j takes cell j-1's value + 1 only if strictly
        # smaller, so its value is the running minimum of best[k] + (j - k) over the row so far.
        chained = np.minimum.accumulate(best - columns, axis=1) + columns
        chained = np.where(inside, chained, INFINITY)
        if with_ops:
            op = np.full((g, m_r + 1), UNDEFINED, dtype=np.int8)
            op[:, 0] = DEL
            op[:, 1:] = np.where(diagonal < INFINITY, np.where(differs, SUB, NOP), UNDEFINED)
            op[:, 1:] = np.where(deletion < value, DEL, op[:, 1:])
            # The first cell of a row's beam has no left neighbour inside it.
            op[:, 1:] = np.where(inside[:, :-1] & (chained[:, :-1] + 1 < best[:, 1:]), INS, op[:, 1:])
            ops[:, i] = np.where(inside, op, UNDEFINED)
        dist[:, i] = chained
    return dist, ops


def _read_back(ops: np.ndarray, n_h: np.ndarray, n_r: np.ndarray):
    """Follow each problem's operations back from its cell (n_h, n_r): per problem, flat arrays
    (align: per reference word, the hypothesis position tercom aligns it to; ref_err, hyp_err:
    per word, whether an edit touches it), each problem's words after the previous one's."""
    g = len(n_h)
    r_off = np.zeros(g + 1, dtype=np.int64)
    np.cumsum(n_r, out=r_off[1:])
    h_off = np.zeros(g + 1, dtype=np.int64)
    np.cumsum(n_h, out=h_off[1:])
    align = np.full(int(r_off[-1]), -1, dtype=np.int64)
    ref_err = np.zeros(int(r_off[-1]), dtype=bool)
    hyp_err = np.zeros(int(h_off[-1]), dtype=bool)
    i, j = n_h.astype(np.int64).copy(), n_r.astype(np.int64).copy()
    live = np.flatnonzero((i > 0) | (j > 0))
    while len(live):
        ii, jj = i[live], j[live]
        op = ops[live, ii, jj]
        if (op == UNDEFINED).any():
            raise AssertionError("the edit path left the beam")
        takes_ref = op != DEL
        takes_hyp = op != INS
        where = r_off[live[takes_ref]] + jj[takes_ref] - 1
        align[where] = ii[takes_ref] - 1
        ref_err[where] = op[takes_ref] != NOP
        hyp_err[h_off[live[takes_hyp]] + ii[takes_hyp] - 1] = op[takes_hyp] != NOP
        i[live] -= takes_hyp
        j[live] -= takes_ref
        live = live[(i[live] > 0) | (j[live] > 0)]
    return align, ref_err, hyp_err


def _spread(offsets: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Flat positions offsets[k] + 0 .. lengths[k] - 1, for every k in turn."""
    ends = np.cumsum(lengths)
    out = np.repeat(offsets - (ends - lengths), lengths)
    out += np.arange(int(ends[-1]) if len(ends) else 0, dtype=np.int64)
    return out


def _padded(ids: np.ndarray, offsets: np.ndarray, lengths: np.ndarray, width: int) -> np.ndarray:
    """(len(offsets), width): each sequence ids[offsets[k]:offsets[k] + lengths[k]], padded with -1."""
    out = np.full((len(offsets), width), -1, dtype=np.int64)
    rows = np.repeat(np.arange(len(offsets)), lengths)
    columns = _spread(np.zeros(len(offsets), dtype=np.int64), lengths)
    out[rows, columns] = ids[_spread(offsets, lengths)]
    return out


def _paths(h_ids, h_at, n_h, r_ids, r_at, n_r):
    """For problems k (hypothesis h_ids[h_at[k]:h_at[k] + n_h[k]], reference likewise): (beam
    distance, and tercom's alignment read off the path: align and ref_err per reference word,
    hyp_err per hypothesis word, flat in problem order)."""
    g = len(n_h)
    score = np.zeros(g, dtype=np.int64)
    r_out = np.zeros(g + 1, dtype=np.int64)
    np.cumsum(n_r, out=r_out[1:])
    h_out = np.zeros(g + 1, dtype=np.int64)
    np.cumsum(n_h, out=h_out[1:])
    align = np.zeros(int(r_out[-1]), dtype=np.int64)
    ref_err = np.zeros(int(r_out[-1]), dtype=bool)
    hyp_err = np.zeros(int(h_out[-1]), dtype=bool)
    # Buckets of similar lengths, each padded to its longest sentences.
    group = (n_h + _BUCKET - 1) // _BUCKET * 1_000_003 + (n_r + _BUCKET - 1) // _BUCKET
    order = np.argsort(group, kind="stable")
    edges = np.flatnonzero(np.diff(group[order], prepend=group[order][0] - 1 if g else 0))
    for start, stop in zip(edges.tolist(), edges[1:].tolist() + [g]):
        members = order[start:stop]
        mh, mr = int(n_h[members].max()), int(n_r[members].max())
        h = _padded(h_ids, h_at[members], n_h[members], mh)
        r = _padded(r_ids, r_at[members], n_r[members], mr)
        dist, ops = _matrix(h, r, n_h[members], n_r[members], with_ops=True)
        score[members] = dist[np.arange(len(members)), n_h[members], n_r[members]]
        a, re, he = _read_back(ops, n_h[members], n_r[members])
        ref_at = _spread(r_out[members], n_r[members])
        align[ref_at], ref_err[ref_at] = a, re
        hyp_err[_spread(h_out[members], n_h[members])] = he
    return score, align, ref_err, hyp_err, r_out, h_out


def _candidate_shifts(h_ids, h_at, n_h, r_ids, r_at, n_r, align, ref_err, hyp_err, r_out, h_out, checked):
    """Every candidate shift tercom tries this round, in its order, as arrays (problem, length,
    start in the hypothesis, target); `checked` (per problem, candidates tried in earlier
    rounds) grows by those tried now."""
    g = len(n_h)
    none = np.zeros(0, dtype=np.int64)
    # The cells holding equal words, by the machinery that finds BLEU's matches.
    hyp = Side(h_ids[_spread(h_at, n_h)], None, None, None, h_out)
    ref = Side(r_ids[_spread(r_at, n_r)], None, None, None, r_out)
    rows, a, b = EncodedPairs(None, hyp, ref).word_matches("premise", "hypothesis")
    rows = rows.astype(np.int64)
    start_h = a.astype(np.int64) - h_out[rows]
    start_r = b.astype(np.int64) - r_out[rows]
    near = np.abs(start_r - start_h) <= MAX_SHIFT_DIST
    rows, start_h, start_r = rows[near], start_h[near], start_r[near]
    if not len(rows):
        return none, none, none, none
    # How many equal words follow each cell along its diagonal (itself included), up to 10.
    width = int(max(n_h.max(), n_r.max())) + 1
    diagonal = rows * (2 * width) + (start_r - start_h + width)
    order = np.lexsort((start_h, diagonal))
    key, position = diagonal[order], start_h[order]
    new_run = np.ones(len(key), dtype=bool)
    new_run[1:] = (key[1:] != key[:-1]) | (position[1:] != position[:-1] + 1)
    run = np.cumsum(new_run) - 1
    run_end = np.append(np.flatnonzero(new_run)[1:], len(key)) - 1
    ahead = np.empty(len(key), dtype=np.int64)
    ahead[order] = np.minimum(run_end[run] - np.arange(len(key)) + 1, MAX_SHIFT_SIZE)
    # Phrase pairs (start_h, start_r, length) in tercom's order: by start_h, start_r, length.
    order = np.lexsort((start_r, start_h, rows))
    rows, start_h, start_r, ahead = rows[order], start_h[order], start_r[order], ahead[order]
    cell = np.repeat(np.arange(len(rows)), ahead)
    length = _spread(np.ones(len(rows), dtype=np.int64), ahead)
    rows, start_h, start_r = rows[cell], start_h[cell], start_r[cell]
    hyp_errors = np.concatenate([[0], np.cumsum(hyp_err)])
    ref_errors = np.concatenate([[0], np.cumsum(ref_err)])
    h0, r0 = h_out[rows] + start_h, r_out[rows] + start_r
    aligned_to = align[r0]
    keep = ((hyp_errors[h0 + length] > hyp_errors[h0]) & (ref_errors[r0 + length] > ref_errors[r0])
            & ~((start_h <= aligned_to) & (aligned_to < start_h + length)))
    rows, start_h, start_r, length = rows[keep], start_h[keep], start_r[keep], length[keep]
    if not len(rows):
        return none, none, none, none
    # Targets: before the word aligned to each reference word from start_r - 1 to the phrase's
    # end (position 0 for start_r - 1 = -1), each target once in a row of equal ones.
    phrase = np.repeat(np.arange(len(rows)), length + 1)
    offset = _spread(np.full(len(rows), -1, dtype=np.int64), length + 1)
    at = start_r[phrase] + offset
    target = np.where(at < 0, 0, align[r_out[rows[phrase]] + np.maximum(at, 0)] + 1)
    fresh = np.ones(len(phrase), dtype=bool)
    fresh[1:] = (phrase[1:] != phrase[:-1]) | (target[1:] != target[:-1])
    phrase, target = phrase[fresh], target[fresh]
    # tercom stops trying once a phrase pair leaves it at 1,000 candidates or more.
    per_phrase = np.bincount(phrase, minlength=len(rows))
    before = np.cumsum(per_phrase) - per_phrase
    first_of_problem = np.searchsorted(rows, rows)  # rows are sorted: each phrase's problem's first phrase
    tried_before = checked[rows] + before - before[first_of_problem]
    tried = tried_before < MAX_SHIFT_CANDIDATES
    checked += np.bincount(rows[tried], weights=per_phrase[tried], minlength=g).astype(np.int64)
    kept = tried[phrase]
    phrase, target = phrase[kept], target[kept]
    return rows[phrase], length[phrase], start_h[phrase], target


def _shifted_words(words: np.ndarray, at: np.ndarray, n: np.ndarray, start: np.ndarray, length: np.ndarray,
                   target: np.ndarray) -> np.ndarray:
    """sacrebleu's `_perform_shift` for every candidate at once: the hypothesis words[at:at + n]
    with the phrase [start, start + length) moved to `target`; flat, one candidate after the other."""
    c = np.repeat(np.arange(len(at)), n)
    t = _spread(np.zeros(len(at), dtype=np.int64), n)
    s, l, g, m = start[c], length[c], target[c], n[c]
    source = t.copy()
    before = g < s  # the phrase moves left, to start at g
    source = np.where(before & (t >= g) & (t < g + l), s + (t - g), source)
    source = np.where(before & (t >= g + l) & (t < s + l), t - l, source)
    after = g > s + l  # it moves right, to end at g
    source = np.where(after & (t >= s) & (t < g - l), t + l, source)
    source = np.where(after & (t >= g - l) & (t < g), s + (t - (g - l)), source)
    # Within its own span: the words after it (at most to the end) move before it.
    inside = ~before & ~after
    middle = np.minimum(g, m - l) - s
    source = np.where(inside & (t >= s) & (t < s + middle), t + l, source)
    source = np.where(inside & (t >= s + middle) & (t < s + middle + l), s + (t - s - middle), source)
    return words[at[c] + source]


def _as_texts(ids: np.ndarray, lengths: np.ndarray) -> list[str]:
    """Sequences of word ids as strings, a character per word (rapidfuzz compares strings fastest)."""
    points = np.where(ids >= 0xD800, ids + 0x800, ids)  # no surrogates in a string
    text = points.astype("<u4").tobytes().decode("utf-32-le")
    bounds = np.concatenate([[0], np.cumsum(lengths)]).tolist()
    return [text[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def translation_edit_rate(hyp_ids: np.ndarray, hyp_offsets: np.ndarray, ref_ids: np.ndarray,
                          ref_offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(edits, reference length) per problem: hypothesis k is hyp_ids[hyp_offsets[k]:hyp_offsets[k + 1]]
    (word ids below 1,112,064; equal ids for equal words), its reference likewise. sacrebleu's TER
    of it is edits / length (1 for an empty reference and a non-empty hypothesis, 0 for both empty)."""
    hyp_ids, ref_ids = np.asarray(hyp_ids, dtype=np.int64), np.asarray(ref_ids, dtype=np.int64)
    if max(int(hyp_ids.max(initial=0)), int(ref_ids.max(initial=0))) >= _MOST_WORDS:
        raise ValueError(f"word ids must be below {_MOST_WORDS:,}")
    n_h = np.diff(hyp_offsets).astype(np.int64)
    n_r = np.diff(ref_offsets).astype(np.int64)
    h_at = np.asarray(hyp_offsets[:-1], dtype=np.int64)
    r_at = np.asarray(ref_offsets[:-1], dtype=np.int64)
    current = hyp_ids.copy()  # shifts keep each hypothesis' length: rewritten in place
    edits = np.where(n_r == 0, n_h, 0)  # an empty reference: every word an edit, no shift tried
    shifts = np.zeros(len(n_h), dtype=np.int64)
    checked = np.zeros(len(n_h), dtype=np.int64)
    active = np.flatnonzero(n_r > 0)
    while len(active):
        a_h, a_r, a_nh, a_nr = h_at[active], r_at[active], n_h[active], n_r[active]
        score, align, ref_err, hyp_err, r_out, h_out = _paths(current, a_h, a_nh, ref_ids, a_r, a_nr)
        tried = checked[active]
        problem, length, start, target = _candidate_shifts(current, a_h, a_nh, ref_ids, a_r, a_nr, align, ref_err,
                                                           hyp_err, r_out, h_out, tried)
        checked[active] = tried
        gain = np.full(len(active), -1, dtype=np.int64)
        moves = np.zeros(0, dtype=np.int64)
        if len(problem):
            words = _shifted_words(current, a_h[problem], a_nh[problem], start, length, target)
            distance = _distances(words, a_nh[problem], problem, ref_ids, a_r, a_nr)
            delta = score[problem] - distance
            # The best of each problem: the largest gain, then the longest phrase, then the
            # earliest start, then the earliest target.
            order = np.lexsort((target, start, -length, -delta, problem))
            first = order[np.flatnonzero(np.diff(problem[order], prepend=-1))]
            gain[problem[first]] = delta[first]
            moves = first
        going = (gain > 0) & (tried < MAX_SHIFT_CANDIDATES)
        done = active[~going]
        edits[done] = shifts[done] + score[~going]
        moving = np.flatnonzero(going)
        if len(moving):
            chosen = moves[np.searchsorted(problem[moves], moving)]
            words = _shifted_words(current, a_h[problem[chosen]], a_nh[problem[chosen]], start[chosen],
                                   length[chosen], target[chosen])
            current[_spread(a_h[moving], a_nh[moving])] = words
            shifts[active[moving]] += 1
        active = active[moving]
    return edits, n_r


def _distances(words: np.ndarray, lengths: np.ndarray, problem: np.ndarray, ref_ids: np.ndarray, r_at: np.ndarray,
               n_r: np.ndarray) -> np.ndarray:
    """The beam distance of each candidate (words, flat, `lengths` each) to its problem's
    reference: Levenshtein's (rapidfuzz) where the beam covers the matrix, else the beam's own."""
    out = np.zeros(len(lengths), dtype=np.int64)
    refs = n_r[problem]
    full = np.fromiter(map(beam_is_full, lengths.tolist(), refs.tolist()), dtype=bool, count=len(lengths))
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    at = np.flatnonzero(full)
    if len(at):
        hypotheses = _as_texts(words[_spread(starts[at], lengths[at])], lengths[at])
        references = _as_texts(ref_ids[_spread(r_at[problem[at]], refs[at])], refs[at])
        out[at] = cpdist(hypotheses, references, scorer=Levenshtein.distance, workers=1)
    rest = np.flatnonzero(~full)
    if len(rest):
        group = (lengths[rest] + _BUCKET - 1) // _BUCKET * 1_000_003 + (refs[rest] + _BUCKET - 1) // _BUCKET
        for bucket in np.unique(group).tolist():
            members = rest[group == bucket]
            mh, mr = int(lengths[members].max()), int(refs[members].max())
            h = _padded(words, starts[members], lengths[members], mh)
            r = _padded(ref_ids, r_at[problem[members]], refs[members], mr)
            dist, _ = _matrix(h, r, lengths[members], refs[members], with_ops=False)
            out[members] = dist[np.arange(len(members)), lengths[members], refs[members]]
    return out
