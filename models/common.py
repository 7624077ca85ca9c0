"""Checks shared by the estimators."""
from __future__ import annotations

import numpy as np


class TrainingDataError(ValueError):
    """The training set cannot train this model (empty, or fewer classes than it needs)."""


def check_training_labels(y, min_classes: int = 2) -> np.ndarray:
    y = np.asarray(y, dtype=object)
    if len(y) == 0:
        raise TrainingDataError("the training set is empty: no labeled pairs to learn from")
    if any(label is None for label in y):
        raise TrainingDataError("the training set has unlabeled pairs")
    present = sorted(set(y))
    if len(present) < min_classes:
        raise TrainingDataError(
            f"the training set holds a single class ({present[0]!r}); this model needs at least "
            f"{min_classes} classes (use --model majority, or a larger --train-size)")
    return y
