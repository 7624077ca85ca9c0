"""`bleu`: sentence BLEU of the hypothesis against the premise, n-gram orders 1-4 (SNLI paper feature 1).

Computed for a whole batch with numpy, and equal to sacrebleu's
`BLEU(tokenize="none", effective_order=True, smooth_method=..., lowercase=...)
.sentence_score(hypothesis, [premise]).score / 100` on the space-joined tokens.
"""
from __future__ import annotations

import numpy as np
import sacrebleu

from ..base import DenseFeature
from ..columns.encoding import Side, row_slice
from ..options import check_option

MAX_ORDER = 4
SMOOTH_DEFAULTS = {"exp": None, "floor": 0.1, "add-k": 1.0, "none": None}  # sacrebleu's defaults
_LOG_ZERO = -9999999999.0  # sacrebleu's floored log(0)


def ngram_match_counts(a: Side, b: Side, matches, start: int = 0, stop: int | None = None, orders: int = MAX_ORDER):
    """For every b token k of rows [start, stop), yield per n = 1..orders how many a positions j of
    the same row begin the same n-gram as k begins (0 where the n-gram would run past either
    sentence).

    matches: (row, a_index, b_index) of the cells holding equal words, rows non-decreasing
        (`EncodedPairs.word_matches`, or `EncodedPairs.repeats` for earlier occurrences within
        one side).
    Yields int32 arrays over those tokens of b, one per order (one at a time, to bound memory).
    """
    stop = len(b.lengths) if stop is None else stop
    rows, ai, bi = matches
    at = row_slice(rows, start, stop)
    a_lo, b_lo = a.offsets[start], b.offsets[start]
    ai, bi = ai[at] - a_lo, bi[at] - b_lo
    a_ids, b_ids = a.ids[a_lo:a.offsets[stop]], b.ids[b_lo:b.offsets[stop]]
    a_left, b_left = tokens_after(a, start, stop), tokens_after(b, start, stop)
    for n in range(1, orders + 1):
        if n > 1:
            # The n-gram at (j, k) matches iff the (n-1)-gram does and the words n-1 further on do.
            step = n - 1
            fits = (a_left[ai] >= step) & (b_left[bi] >= step)
            ai, bi = ai[fits], bi[fits]
            same = a_ids[ai + step] == b_ids[bi + step]
            ai, bi = ai[same], bi[same]
        yield np.bincount(bi, minlength=len(b_ids)).astype(np.int32)


def tokens_after(side: Side, start: int = 0, stop: int | None = None) -> np.ndarray:
    """For every token of rows [start, stop), how many tokens follow it in its row (int32)."""
    stop = len(side.lengths) if stop is None else stop
    ends = np.repeat(side.offsets[start + 1:stop + 1].astype(np.int32), side.lengths[start:stop])
    ends -= np.arange(side.offsets[start] + 1, side.offsets[stop] + 1, dtype=np.int32)
    return ends


def sentence_bleu(correct: np.ndarray, total: np.ndarray, sys_len: np.ndarray, ref_len: np.ndarray,
                  smoothing: str = "exp", smooth_value: float | None = None) -> np.ndarray:
    """sacrebleu's `compute_bleu` with effective order, vectorized over sentences (scores 0-100).

    correct, total: (MAX_ORDER, n) clipped matches and hypothesis n-gram counts.
    """
    check_option("bleu_smoothing", smoothing)
    k = SMOOTH_DEFAULTS[smoothing] if smooth_value is None else smooth_value
    n = len(sys_len)
    sys_len, ref_len = sys_len.astype(np.float64), ref_len.astype(np.float64)
    bp = np.ones(n)
    short = sys_len < ref_len
    bp[short] = np.where(sys_len[short] > 0, np.exp(1 - ref_len[short] / np.maximum(sys_len[short], 1)), 0.0)
    any_correct = correct.sum(axis=0) > 0
    alive = np.ones(n, dtype=bool)
    order = np.zeros(n)
    log_sum = np.zeros(n)
    mteval = np.ones(n)
    for i in range(MAX_ORDER):
        c, tot = correct[i].astype(np.float64), total[i].astype(np.float64)
        if smoothing == "add-k" and i > 0:
            c, tot = c + k, tot + k
        alive &= tot > 0
        order[alive] = i + 1
        zero = c == 0
        safe_tot = np.where(tot > 0, tot, 1.0)
        precision = 100.0 * c / safe_tot
        if smoothing == "exp":
            mteval = np.where(alive & zero, mteval * 2, mteval)
            precision = np.where(zero, 100.0 / (mteval * safe_tot), precision)
        elif smoothing == "floor":
            precision = np.where(zero, 100.0 * k / safe_tot, precision)
        log_p = np.full(n, _LOG_ZERO)
        np.log(precision, out=log_p, where=precision > 0)
        log_sum[alive] += log_p[alive]
    # sacrebleu breaks out of its loop at the first empty order, keeping the effective order reached.
    order = np.where(order > 0, order, MAX_ORDER)
    score = bp * np.exp(log_sum / order)
    return np.where(any_correct, score, 0.0)


class Bleu(DenseFeature):
    """One real value in [0, 1]: sentence BLEU / 100 (sacrebleu's 100.00000000000004 for equal strings
    is clipped to 1).

    smoothing: sacrebleu's `smooth_method` ("exp", "floor", "add-k" or "none").
    scale: see `DenseFeature`; BLEU is already in [0, 1], so "none" is the default.
    """

    name = "bleu"
    columns = ("score",)

    def __init__(self, *, lowercase: bool = True, smoothing: str = "exp", scale: str = "none", bins: int = 0,
                 bin_integers: str = "values"):
        self.lowercase = lowercase
        self.smoothing = smoothing
        self.scale = scale
        self.bins = bins
        self.bin_integers = bin_integers

    def provenance(self) -> dict:
        """sacrebleu's signature of the BLEU configuration this feature reproduces (for run records)."""
        metric = sacrebleu.metrics.BLEU(tokenize="none", effective_order=True, lowercase=self.lowercase,
                                        smooth_method=self.smoothing)
        metric.sentence_score("a", ["a"])  # the signature needs the number of references, known after a call
        return {"sacrebleu_signature": str(metric.get_signature())}

    def _values(self, batch):
        p, h = batch.premise, batch.hypothesis
        h_len = h.lengths
        correct = clipped_matches(batch, MAX_ORDER)
        total = np.maximum(h_len[None, :] - np.arange(MAX_ORDER)[:, None], 0)
        score = sentence_bleu(correct, total, h_len, p.lengths, self.smoothing)
        return np.clip(score / 100.0, 0.0, 1.0)[:, None]


def clipped_matches(batch, orders: int) -> np.ndarray:
    """(orders, n_pairs): per n = 1..orders, the n-grams the two sides of each pair share, counted
    with clipping: sum over n-grams of min(count in the hypothesis, count in the premise) (BLEU's
    clipped matches; symmetric, so also the premise's n-grams found in the hypothesis).

    batch: an `EncodedPairs`, or anything with its `premise`, `hypothesis`, `word_matches`,
        `repeats` and `row_blocks` (the character sides of `features.text.characters`).
    """
    p, h = batch.premise, batch.hypothesis
    n = len(batch)
    h_len = h.lengths
    correct = np.zeros((orders, n))
    matches, repeats = batch.word_matches("premise", "hypothesis"), batch.repeats("hypothesis")
    for start, stop in batch.row_blocks():
        rows = np.repeat(np.arange(stop - start, dtype=np.int32), h_len[start:stop])
        left = tokens_after(h, start, stop)
        counts = zip(ngram_match_counts(p, h, matches, start, stop, orders),
                     ngram_match_counts(h, h, repeats, start, stop, orders))
        for i, (in_premise, earlier) in enumerate(counts):
            # The r-th occurrence of an n-gram in the hypothesis (r = earlier + 1) is matched iff
            # the premise holds it at least r times: summed over occurrences, min(hyp count,
            # premise count).
            clipped = (left >= i) & (earlier < in_premise)
            correct[i, start:stop] = np.bincount(rows[clipped], minlength=stop - start)
    return correct
