"""`length_diff`: hypothesis length minus premise length, in tokens (SNLI paper feature 2)."""
from __future__ import annotations

import numpy as np

from ..base import DenseFeature


class LengthDiff(DenseFeature):
    """One real value: len(hypothesis) - len(premise); negative when the hypothesis is shorter."""

    name = "length_diff"
    reads_premise = False  # with no premise, the hypothesis' length
    columns = ("hyp_minus_premise",)
    integer_columns = columns

    def _values(self, batch):
        return (batch.hypothesis.lengths - batch.premise.lengths).astype(np.float64)[:, None]
