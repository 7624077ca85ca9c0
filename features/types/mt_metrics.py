"""`mt_metrics`: machine-translation metrics of one sentence against the other, both ways: TER
(translation edit rate) and BLEU with the premise as the candidate (the `bleu` type has the
hypothesis as the candidate; chrF both ways is in `char_ngrams`)."""
from __future__ import annotations

import numpy as np
import sacrebleu

from ..base import DenseFeature
from ..text.characters import spelled_side
from ..text.ter import translation_edit_rate
from .bleu import MAX_ORDER, clipped_matches, sentence_bleu


def ter_scores(edits: np.ndarray, reference_length: np.ndarray) -> np.ndarray:
    """sacrebleu's TER / 100 from (edits, reference length): edits / length; for an empty
    reference 1 when there were edits, else 0."""
    return np.divide(edits, reference_length, out=(edits > 0).astype(np.float64), where=reference_length > 0)


class MtMetrics(DenseFeature):
    """Columns:
      `ter`: TER of the hypothesis against the premise (the edits, shifts of phrases included,
        that turn the hypothesis into the premise, over the premise's length; 0 for equal
        sentences, above 1 when more edits than words are needed), equal to sacrebleu's
        `TER(case_sensitive=not lowercase).sentence_score(hypothesis, [premise]).score / 100` on
        the space-joined tokens (`features.text.ter`);
      `ter_reverse`: TER of the premise against the hypothesis;
      `bleu_reverse`: sentence BLEU / 100 of the premise against the hypothesis (the `bleu`
        type's settings: `smoothing`, effective order).
    smoothing: sacrebleu's `smooth_method` of `bleu_reverse` (the featurizer's `bleu_smoothing`).
    lowercase: the shared encoder's setting (TER and BLEU read its forms).
    scale, bins, bin_integers: as for every real-valued type (`features.base.DenseFeature`).
    """

    name = "mt_metrics"
    cache_values = True  # TER's shifts: seconds at SNLI scale
    columns = ("ter", "ter_reverse", "bleu_reverse")

    def __init__(self, *, lowercase: bool = True, smoothing: str = "exp", scale: str = "standard", bins: int = 0,
                 bin_integers: str = "values"):
        self.lowercase = lowercase
        self.smoothing = smoothing
        self.scale = scale
        self.bins = bins
        self.bin_integers = bin_integers

    def provenance(self) -> dict:
        """sacrebleu's signature of the TER this type reproduces (for run records)."""
        metric = sacrebleu.metrics.TER(case_sensitive=not self.lowercase)
        metric.sentence_score("a", ["a"])
        return {"ter_signature": str(metric.get_signature())}

    def _values(self, batch) -> np.ndarray:
        n = len(batch)
        if not n:
            return np.zeros((0, len(self.columns)))
        p, h = spelled_side(batch, "premise", "words"), spelled_side(batch, "hypothesis", "words")
        forward = ter_scores(*translation_edit_rate(h.ids, h.offsets, p.ids, p.offsets))
        backward = ter_scores(*translation_edit_rate(p.ids, p.offsets, h.ids, h.offsets))
        p_len, h_len = batch.premise.lengths, batch.hypothesis.lengths
        total = np.maximum(p_len[None, :] - np.arange(MAX_ORDER)[:, None], 0)
        reverse = sentence_bleu(clipped_matches(batch, MAX_ORDER), total, p_len, h_len, self.smoothing)
        return np.column_stack([forward, backward, np.clip(reverse / 100.0, 0.0, 1.0)])
