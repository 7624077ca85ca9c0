"""`char_ngrams`: character n-gram similarity of the two sentences: chrF and chrF++ in both
directions, and the share of each side's character n-grams the other side holds.

chrF (Popovic 2015) and chrF++ (Popovic 2017) are computed for a whole batch with numpy and equal
sacrebleu's `CHRF(char_order=6, word_order=0 or 2, beta=2, lowercase=..., whitespace=False)
.sentence_score(hypothesis, [premise]).score / 100` on the space-joined tokens (and with the two
sentences swapped for the `_reverse` columns). Character n-grams are taken with the whitespace
removed (they run across word boundaries); chrF++ adds word unigrams and bigrams, punctuation
split off the words' ends (`features.text.characters`).
"""
from __future__ import annotations

import numpy as np
import sacrebleu

from ..base import DenseFeature
from ..columns.encoding import Side
from ..columns.keymap import sort_with_order
from ..text.characters import spelled_chunks
from .bleu import clipped_matches, tokens_after

CHAR_ORDER = 6  # sacrebleu's CHRF.CHAR_ORDER
WORD_ORDER = 2  # chrF++
BETA = 2  # sacrebleu's CHRF.BETA: recall weighs twice as much as precision


def ngram_counts(lengths: np.ndarray, orders: int) -> np.ndarray:
    """(orders, n): how many n-grams of n = 1..orders units a sentence of each length holds."""
    return np.maximum(np.asarray(lengths, dtype=np.float64)[None, :] - np.arange(orders)[:, None], 0)


def chrf(matches: np.ndarray, hyp_ngrams: np.ndarray, ref_ngrams: np.ndarray, beta: float = BETA) -> np.ndarray:
    """sacrebleu's sentence chrF (its default, without eps smoothing) in [0, 1], vectorized over sentences.

    matches, hyp_ngrams, ref_ngrams: (orders, n) clipped matches and the n-grams of the
        hypothesis and of the reference, one row per order (character orders, then word orders).
    Precision and recall are averaged over the orders both sentences have n-grams of (the
    effective order); the score is F-beta of the two averages, 0 where no order is effective.
    """
    effective = (hyp_ngrams > 0) & (ref_ngrams > 0)
    precision = np.divide(matches, hyp_ngrams, out=np.zeros(matches.shape), where=effective)
    recall = np.divide(matches, ref_ngrams, out=np.zeros(matches.shape), where=effective)
    orders = effective.sum(axis=0)
    avg_p = np.divide(precision.sum(axis=0), orders, out=np.zeros(orders.shape), where=orders > 0)
    avg_r = np.divide(recall.sum(axis=0), orders, out=np.zeros(orders.shape), where=orders > 0)
    factor = beta * beta
    denominator = factor * avg_p + avg_r
    return np.divide((1 + factor) * avg_p * avg_r, denominator, out=np.zeros(orders.shape), where=denominator > 0)


def shared_ngrams(p: Side, q: Side, orders: int) -> np.ndarray:
    """(orders, n): per n = 1..orders, the n-grams the two sides of each row share, with clipping
    (the sum over n-grams of min(count in p, count in q)).

    Characters are dense on a page of text (a pair holds ~130 cells of equal letters), so rather
    than visiting cells of equal units (`features.types.bleu.clipped_matches`), each order is one
    sort of the candidate positions by (n-gram, side): an n-gram is numbered by its (n-1)-gram's
    group and its last unit, and the groups number (row, n-gram) densely, so the keys stay small.
    Only a position whose (n-1)-grams at k and at k + 1 are both shared is a candidate at order
    n: an n-gram the other side lacks a part of cannot be shared, so leaving it out changes no
    count, and each order sorts fewer keys than the one before.
    """
    n = len(p.offsets) - 1
    out = np.zeros((orders, n))
    units = np.concatenate([p.ids, q.ids]).astype(np.int64)
    if not len(units):
        return out
    rows = np.concatenate([p.token_rows(), q.token_rows()])
    side = np.zeros(len(units), dtype=np.int64)
    side[len(p.ids):] = 1
    left = np.concatenate([tokens_after(p), tokens_after(q)])
    alphabet = int(units.max()) + 1
    group = np.empty(len(units), dtype=np.int64)  # per candidate position: its n-gram's group
    shared = np.ones(len(units), dtype=bool)
    start = 0
    if n * alphabet <= 4 * len(units):
        # Unigrams by counting: a table of (row, unit) counts per side is small beside the units.
        group = rows * alphabet + units
        in_p = np.bincount(group[:len(p.ids)], minlength=n * alphabet)
        in_q = np.bincount(group[len(p.ids):], minlength=n * alphabet)
        out[0] = np.minimum(in_p, in_q).reshape(n, alphabet).sum(axis=1)
        shared = ((in_p > 0) & (in_q > 0))[group]
        start = 1
    for order in range(start, orders):
        if order == 0:
            at = np.arange(len(units))
            keys = rows * alphabet + units
        else:
            after = np.zeros(len(units), dtype=bool)
            after[:-1] = shared[1:]
            after &= shared
            after &= left >= order
            at = np.flatnonzero(after)
            if not len(at):
                break
            keys = group[at] * alphabet + units[at + order]
        keys <<= 1
        keys |= side[at]
        ordered, order_of = sort_with_order(keys, overwrite=True)
        gram = ordered >> 1
        first = np.ones(len(gram), dtype=bool)
        np.not_equal(gram[1:], gram[:-1], out=first[1:])
        ids = np.cumsum(first) - 1
        starts = np.flatnonzero(first)
        sizes = np.diff(np.append(starts, len(gram)))
        in_p = np.bincount(ids, weights=(ordered & 1) == 0, minlength=len(starts)).astype(np.int64)
        in_q = sizes - in_p
        out[order] = np.bincount(rows[at[order_of[starts]]], weights=np.minimum(in_p, in_q), minlength=n)
        positions = at[order_of]
        group[positions] = ids
        shared[:] = False
        shared[positions] = ((in_p > 0) & (in_q > 0))[ids]
    return out


def spelled_matches(batch, unit: str, orders: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(clipped matches (orders, n), premise units (n), hypothesis units (n)) of the batch
    spelled in `unit`s ("characters" or "pieces"), chunk by chunk."""
    n = len(batch)
    matches = np.zeros((orders, n))
    p_len, h_len = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    for start, stop, spelled in spelled_chunks(batch, unit):
        p, h = spelled.premise, spelled.hypothesis
        if unit == "characters":
            matches[:, start:stop] = shared_ngrams(p, h, orders)
        else:
            matches[:, start:stop] = clipped_matches(spelled, orders)
        p_len[start:stop], h_len[start:stop] = p.lengths, h.lengths
    return matches, p_len, h_len


class CharNgrams(DenseFeature):
    """Character n-gram similarity, in [0, 1].

    Columns:
      `chrf`: chrF of the hypothesis against the premise (character 1- to 6-grams, recall of the
        premise's n-grams weighing beta = 2 times precision); `chrf_reverse`: of the premise
        against the hypothesis;
      `chrf_pp`, `chrf_pp_reverse`: chrF++, the same with word unigrams and bigrams besides;
      `hyp_in_premise_<n>` (n = 1..6): the share of the hypothesis' character n-grams the
        premise holds (clipped counts, as chrF's precision of order n; 0 for a hypothesis too
        short to have one); `premise_in_hyp_<n>`: the share of the premise's the hypothesis holds.
    lowercase: the shared encoder's setting; n-grams are those of the (lowercased) word forms.
    scale, bins, bin_integers: as for every real-valued type (`features.base.DenseFeature`).
    """

    name = "char_ngrams"
    cache_values = True  # seconds at SNLI scale: each pair's characters matched anew
    columns = (("chrf", "chrf_reverse", "chrf_pp", "chrf_pp_reverse")
               + tuple(f"hyp_in_premise_{n}" for n in range(1, CHAR_ORDER + 1))
               + tuple(f"premise_in_hyp_{n}" for n in range(1, CHAR_ORDER + 1)))

    def provenance(self) -> dict:
        """sacrebleu's signatures of the chrF and chrF++ this type reproduces (for run records)."""
        out = {}
        for key, words in (("chrf_signature", 0), ("chrf_pp_signature", WORD_ORDER)):
            metric = sacrebleu.metrics.CHRF(char_order=CHAR_ORDER, word_order=words, beta=BETA,
                                            lowercase=self.lowercase)
            metric.sentence_score("a", ["a"])
            out[key] = str(metric.get_signature())
        return out

    def _values(self, batch) -> np.ndarray:
        chars, p_chars, h_chars = spelled_matches(batch, "characters", CHAR_ORDER)
        words, p_words, h_words = spelled_matches(batch, "pieces", WORD_ORDER)
        h_grams = ngram_counts(h_chars, CHAR_ORDER)
        p_grams = ngram_counts(p_chars, CHAR_ORDER)
        h_all = np.vstack([h_grams, ngram_counts(h_words, WORD_ORDER)])
        p_all = np.vstack([p_grams, ngram_counts(p_words, WORD_ORDER)])
        both = np.vstack([chars, words])
        columns = [chrf(chars, h_grams, p_grams), chrf(chars, p_grams, h_grams),
                   chrf(both, h_all, p_all), chrf(both, p_all, h_all)]
        columns += list(np.divide(chars, h_grams, out=np.zeros(chars.shape), where=h_grams > 0))
        columns += list(np.divide(chars, p_grams, out=np.zeros(chars.shape), where=p_grams > 0))
        return np.column_stack(columns) if len(batch) else np.zeros((0, len(self.columns)))
