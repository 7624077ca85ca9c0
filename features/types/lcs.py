"""`lcs`: the longest common subsequence and substring of the two sentences, normalized by each
sentence's length (the string-similarity measures of UKP's and TakeLab's SemEval-2012 STS
systems)."""
from __future__ import annotations

import numpy as np
from rapidfuzz.distance import LCSseq
from rapidfuzz.process import cpdist

from ..base import DenseFeature
from ..text.characters import sentence_texts


def longest_common_run(matches, p_offsets: np.ndarray, h_offsets: np.ndarray, n: int) -> np.ndarray:
    """Per row, the most consecutive words the two sides hold in the same order (the longest
    common substring of words), from the cells holding equal words (`EncodedPairs.word_matches`):
    a run is a stretch of cells along one diagonal, each one word further on both sides."""
    rows, pi, hj = matches
    if not len(rows):
        return np.zeros(n)
    rows = rows.astype(np.int64)
    i = pi.astype(np.int64) - p_offsets[rows]
    j = hj.astype(np.int64) - h_offsets[rows]
    width = int(max(i.max(), j.max())) + 1
    diagonal = j - i + width  # in 1 .. 2 * width - 1
    key = (rows * (2 * width) + diagonal) * width + i
    order = np.argsort(key, kind="stable")
    key, i = key[order], i[order]
    run_key = key // width
    continues = np.zeros(len(key), dtype=bool)
    continues[1:] = (run_key[1:] == run_key[:-1]) & (i[1:] == i[:-1] + 1)
    # Length of the run up to each cell: its position minus where its run began, plus one.
    position = np.arange(len(key))
    began = np.maximum.accumulate(np.where(continues, 0, position))
    length = position - began + 1
    out = np.zeros(n)
    np.maximum.at(out, rows[order], length)
    return out


class Lcs(DenseFeature):
    """Longest common subsequence and substring, in [0, 1].

    Columns:
      `subsequence_words_hyp`, `subsequence_words_premise`: the longest common subsequence of
        the two sentences' words (lowercased forms, in order, gaps allowed) over the
        hypothesis' and over the premise's length in words;
      `substring_words_hyp`, `substring_words_premise`: the longest run of words both hold
        consecutively, over each length;
      `subsequence_chars_hyp`, `subsequence_chars_premise`: the longest common subsequence of
        their characters (whitespace removed, as chrF reads them), over each length in characters.
    An empty sentence gives 0. The longest common substring of characters is left out: it needs
    every cell of equal letters (about 130 per SICK pair), where the word-level run and the
    character n-grams of `char_ngrams` (up to 6) cost a fraction of that.
    lowercase: the shared encoder's setting.
    scale, bins, bin_integers: as for every real-valued type (`features.base.DenseFeature`).
    """

    name = "lcs"
    columns = ("subsequence_words_hyp", "subsequence_words_premise", "substring_words_hyp", "substring_words_premise",
               "subsequence_chars_hyp", "subsequence_chars_premise")

    def _values(self, batch) -> np.ndarray:
        n = len(batch)
        if not n:
            return np.zeros((0, len(self.columns)))
        p, h = batch.premise, batch.hypothesis
        words = []
        for side in (p, h):
            ids, bounds = side.ids.tolist(), side.offsets.tolist()
            words.append([ids[a:b] for a, b in zip(bounds[:-1], bounds[1:])])
        subsequence = cpdist(words[0], words[1], scorer=LCSseq.similarity, workers=1).astype(np.float64)
        run = longest_common_run(batch.word_matches("premise", "hypothesis"), p.offsets, h.offsets, n)
        texts = sentence_texts(batch, "premise"), sentence_texts(batch, "hypothesis")
        characters = cpdist(texts[0], texts[1], scorer=LCSseq.similarity, workers=1).astype(np.float64)
        p_chars = np.fromiter(map(len, texts[0]), dtype=np.float64, count=n)
        h_chars = np.fromiter(map(len, texts[1]), dtype=np.float64, count=n)
        out = []
        for common, h_len, p_len in ((subsequence, h.lengths, p.lengths), (run, h.lengths, p.lengths),
                                     (characters, h_chars, p_chars)):
            out += [np.divide(common, h_len, out=np.zeros(n), where=h_len > 0),
                    np.divide(common, p_len, out=np.zeros(n), where=p_len > 0)]
        return np.column_stack(out)
