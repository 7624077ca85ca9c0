"""`negation`: negation words on one side of the pair only, a classic contradiction cue."""
from __future__ import annotations

import numpy as np

from ..base import DenseFeature

# Compared with lowercased tokens. Tokenizers split contractions ("doesn't" -> "does" "n't",
# spaCy's "can't" -> "ca" "n't", "cannot" -> "can" "not"), so "n't" covers them all; the curly
# apostrophe variant is kept for untokenized-looking text. Left out: approximate negators
# (hardly, barely, scarcely, few), which SICK and SNLI use rarely and do not contradict outright.
NEGATION_WORDS = frozenset({
    "not", "n't", "n’t", "no", "never", "nobody", "nothing", "none", "nowhere", "neither", "nor",
    "without", "noone", "cannot",
})


class Negation(DenseFeature):
    """Negation words (`NEGATION_WORDS`, lowercased tokens) in the premise and the hypothesis.

    Columns: `premise_only` (1 when the premise has a negation word and the hypothesis none),
    `hypothesis_only` (the reverse), `both`, and the counts `premise_count`, `hypothesis_count`.
    lowercase: the shared encoder's setting; negation words are matched lowercased either way.
    scale, bins, bin_integers: as for every real-valued type (`features.base.DenseFeature`).
    """

    name = "negation"
    reads_premise = False  # with no premise, the hypothesis' negation words alone
    columns = ("premise_only", "hypothesis_only", "both", "premise_count", "hypothesis_count")
    integer_columns = columns

    def _values(self, batch) -> np.ndarray:
        forms = batch.encoder.forms_
        negation_ids = np.array(sorted(i for form, i in forms.items() if form.lower() in NEGATION_WORDS),
                                dtype=np.int64)
        n = len(batch)
        counts = []
        for side, tokens_of in ((batch.premise, "premise_tokens"), (batch.hypothesis, "hypothesis_tokens")):
            rows = side.token_rows()
            negated = np.isin(side.ids, negation_ids)
            # Words the fitted vocabulary lacks got fresh ids while encoding this batch, past the
            # vocabulary: read those few tokens themselves.
            unseen = np.flatnonzero(side.ids >= len(forms))
            if len(unseen):
                positions = unseen - side.offsets[rows[unseen]]
                negated[unseen] = [getattr(batch.pairs[r], tokens_of)[k].lower() in NEGATION_WORDS
                                   for r, k in zip(rows[unseen].tolist(), positions.tolist())]
            counts.append(np.bincount(rows[negated], minlength=n).astype(np.float64))
        premise, hypothesis = counts
        return np.column_stack([(premise > 0) & (hypothesis == 0), (hypothesis > 0) & (premise == 0),
                                (premise > 0) & (hypothesis > 0), premise, hypothesis]).astype(np.float64)
