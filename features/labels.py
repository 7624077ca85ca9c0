"""Label names and label sets of the suite's tasks: the one place they are spelled out."""
from __future__ import annotations

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
