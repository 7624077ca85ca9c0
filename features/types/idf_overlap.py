"""`idf_overlap`: word overlap weighted by inverse document frequency, and the tf-idf cosine of
the two sentences (TakeLab's weighted word overlap, SemEval-2012; the classic IR cosine).

The IDF is fitted on the training pairs, each distinct sentence one document, and kept in the
model file beside the type's scaling (`features.featurizer_state`): a word's weight is
log((1 + N) / (1 + df)) + 1 (scikit-learn's smoothed IDF), and a word training never saw weighs
as much as the rarest, log(1 + N) + 1.
"""
from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ..base import DenseFeature
from ..columns.keymap import factorize
from ..storage.schema import VALUE_BOUND, Array, Int


def first_occurrences(repeats, n_tokens: int, keep: np.ndarray | None = None) -> np.ndarray:
    """bool per token of a side: no earlier token of its row holds the same word (among the
    tokens `keep` marks, when given). repeats: `EncodedPairs.repeats` of that side."""
    _, earlier, later = repeats
    if keep is not None:
        both = keep[earlier] & keep[later]
        later = later[both]
    first = np.ones(n_tokens, dtype=bool) if keep is None else keep.copy()
    first[later] = False
    return first


def distinct_premise_rows(batch) -> np.ndarray:
    """The rows whose premise is the first of its kind in the batch: SNLI shares each premise
    among ~3.7 hypotheses, and a shared sentence is one document. Premises are told apart by
    the identity of their token tuples, which readers and `annotate` share (as the encoder does)."""
    pairs = batch.pairs
    if pairs is None:
        return np.arange(len(batch))
    codes, _ = factorize(np.fromiter((id(p.premise_tokens) for p in pairs), dtype=np.int64, count=len(pairs)))
    return np.unique(codes, return_index=True)[1]


def document_idf(batch) -> tuple[np.ndarray, int]:
    """(smoothed IDF per word id of the batch's encoder, documents) from the batch's sentences:
    the hypotheses, and the premises once each (`distinct_premise_rows`)."""
    p, h = batch.premise, batch.hypothesis
    n_words = len(batch.encoder.words_)
    p_first = first_occurrences(batch.repeats("premise"), len(p.ids))
    h_first = first_occurrences(batch.repeats("hypothesis"), len(h.ids))
    rows = distinct_premise_rows(batch)
    in_distinct = np.zeros(len(batch), dtype=bool)
    in_distinct[rows] = True
    p_first &= in_distinct[p.token_rows()]
    df = np.bincount(p.ids[p_first], minlength=n_words)[:n_words]
    df += np.bincount(h.ids[h_first], minlength=n_words)[:n_words]
    documents = len(rows) + len(batch)
    return smoothed_idf(df, documents), documents


def smoothed_idf(df, documents: int):
    """log((1 + documents) / (1 + df)) + 1: scikit-learn's smoothed IDF (df 0: an unseen word)."""
    return np.log((1.0 + documents) / (1.0 + np.asarray(df, dtype=np.float64))) + 1.0


class IdfOverlap(DenseFeature):
    """IDF-weighted overlap of the two sentences' words, in [0, 1].

    Columns, over all tokens and (`content_...`) over content words only (NN*, VB*, JJ*, RB* on
    both sides):
      `hyp_covered`: the IDF-weighted share of the hypothesis' distinct words the premise holds
        (sum of their IDF over the sum of all of theirs; 1 when the hypothesis has none);
      `premise_covered`: the same of the premise's words in the hypothesis;
      `harmonic`: the harmonic mean of the two (TakeLab's weighted word overlap; 0 when either is 0);
      `cosine`: the cosine of the two sentences' tf-idf vectors (0 when either is empty).
    lowercase: the shared encoder's setting (words are its forms).
    scale, bins, bin_integers: as for every real-valued type (`features.base.DenseFeature`).
    Fitted: `idf_`, the IDF per word of the fitted vocabulary, and `documents_`, the sentences it
    was counted over (both saved in the model file).
    """

    name = "idf_overlap"
    columns = tuple(f"{prefix}{c}" for prefix in ("", "content_")
                    for c in ("hyp_covered", "premise_covered", "harmonic", "cosine"))
    # Fitted state beyond a real-valued type's scaling, as a model file declares it
    # (`features.featurizer_state`): one IDF per word of the vocabulary.
    state_fields = {"idf": Array("float64", ("n_words",), lo=1.0, hi=VALUE_BOUND), "documents": Int(lo=0)}

    def _batch(self, pairs, fit: bool):
        batch = super()._batch(pairs, fit)
        if fit:  # every fitting route comes through here (fit_transform, raw_values on an unfitted type)
            self.idf_, self.documents_ = document_idf(batch)
        return batch

    def _values(self, batch) -> np.ndarray:
        check_is_fitted(self, "idf_")
        p, h = batch.premise, batch.hypothesis
        n = len(batch)
        if not n:
            return np.zeros((0, len(self.columns)))
        # Words past the fitted vocabulary (unseen in training) weigh as a word of no document.
        table = np.append(self.idf_, smoothed_idf(0, self.documents_))
        weights = [table[np.minimum(side.ids, len(self.idf_))] for side in (p, h)]
        matches = batch.word_matches("premise", "hypothesis")
        repeats = batch.repeats("premise"), batch.repeats("hypothesis")
        out = []
        for content in (False, True):
            keep = (p.content, h.content) if content else (None, None)
            rows, pi, hj = matches
            if content:
                both = p.content[pi] & h.content[hj]
                rows, pi, hj = rows[both], pi[both], hj[both]
            covered_total = []
            norms = []
            for side, weight, kept, own, reps in ((p, weights[0], keep[0], pi, repeats[0]),
                                                  (h, weights[1], keep[1], hj, repeats[1])):
                first = first_occurrences(reps, len(side.ids), kept)
                found = np.zeros(len(side.ids), dtype=bool)
                found[own] = True
                token_rows = side.token_rows()
                total = np.bincount(token_rows[first], weights=weight[first], minlength=n)
                covered = np.bincount(token_rows[first & found], weights=weight[first & found], minlength=n)
                covered_total.append(np.divide(covered, total, out=np.ones(n), where=total > 0))
                # ||v||^2 = sum over words of (tf idf)^2: each token's idf^2, plus twice each
                # pair of its row's tokens holding the same word.
                token = weight * weight if kept is None else np.where(kept, weight * weight, 0.0)
                r, earlier, later = reps
                if kept is not None:
                    same = kept[earlier] & kept[later]
                    r, later = r[same], later[same]
                norms.append(np.bincount(token_rows, weights=token, minlength=n)
                             + 2 * np.bincount(r, weights=weight[later] ** 2, minlength=n))
            premise_covered, hyp_covered = covered_total
            dot = np.bincount(rows, weights=weights[0][pi] * weights[1][hj], minlength=n)
            norm = np.sqrt(norms[0] * norms[1])
            harmonic_sum = hyp_covered + premise_covered
            out += [hyp_covered, premise_covered,
                    np.divide(2 * hyp_covered * premise_covered, harmonic_sum, out=np.zeros(n), where=harmonic_sum > 0),
                    np.divide(dot, norm, out=np.zeros(n), where=norm > 0)]
        return np.column_stack(out)
