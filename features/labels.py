"""Label names and label sets of the suite's tasks: the one place they are spelled out."""
from __future__ import annotations

import math

ENTAILMENT = "entailment"
NEUTRAL = "neutral"
CONTRADICTION = "contradiction"
NOT_ENTAILMENT = "not_entailment"

NLI3 = (ENTAILMENT, NEUTRAL, CONTRADICTION)      # SNLI, MultiNLI, SICK, GLUE AX
NLI2 = (ENTAILMENT, NOT_ENTAILMENT)              # RTE, QNLI, SuperGLUE RTE and AX-b, any --two-class run
CB3 = (ENTAILMENT, CONTRADICTION, NEUTRAL)       # SuperGLUE CommitmentBank, in its official order
BINARY01 = ("0", "1")                            # GLUE WNLI (1 = entailment)


def two_class(label: str | None) -> str | None:
    """Entailment vs the rest: neutral and contradiction become not_entailment."""
    if label is None:
        return None
    return ENTAILMENT if label == ENTAILMENT else NOT_ENTAILMENT


def is_two_class(labels) -> bool:
    """Whether a label set is exactly entailment / not_entailment."""
    return labels is not None and set(labels) == set(NLI2)


# The gold scores a fit can take, whatever a score column's unit. A score task's models square
# and sum its scores (ridge's least squares, the mean squared error, Pearson's variances), and the
# stacked model's boosted trees keep their gradients in float32 (at most 3.4e38), summed over every
# row: with scores within 1e12 in magnitude no such sum comes near overflowing, over billions of
# rows. A nonzero score nearer 0 than 1e-12 is refused too: squares of such scores underflow (the
# correlations of scores times 1e-300 are 0/0), below 2.2e-308 a number loses digits, and below
# 5e-324 it is 0. Between the two bounds ridge regression gives the same figures whatever the
# unit (STS-B's scores times 1e-12, 1 and 1e12: the same dev Pearson to five decimals).
SCORE_LIMIT = 1e12
SCORE_FLOOR = 1e-12


def score_out_of_bounds(value: float) -> str | None:
    """Why the finite number `value` is no gold score a fit can take (SCORE_LIMIT, SCORE_FLOOR), or None."""
    size = abs(value)
    if size > SCORE_LIMIT:
        return (f"beyond what a fit can take (a score is at most {_power(SCORE_LIMIT)} in magnitude: rescale the "
                "column)")
    if 0 < size < SCORE_FLOOR:
        return (f"too near 0 for a fit (a score other than 0 is at least {_power(SCORE_FLOOR)} in magnitude: "
                "rescale the column, or write 0)")
    return None


def _power(bound: float) -> str:
    return f"1e{round(math.log10(bound))}"
