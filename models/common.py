"""Checks shared by the estimators."""
from __future__ import annotations

import numpy as np
from sklearn.utils.multiclass import check_classification_targets


class TrainingDataError(ValueError):
    """The training set cannot train this model (empty, or fewer classes than it needs)."""


def check_training_labels(y, min_classes: int = 2) -> np.ndarray:
    """`y` as an array, refused with a TrainingDataError when no model could learn from it."""
    y = np.asarray(y)
    if len(y) == 0:
        raise TrainingDataError("the training set is empty: no labeled pairs to learn from")
    if y.dtype == object and any(label is None for label in y):
        missing = sum(label is None for label in y)
        raise TrainingDataError(f"the training set has {missing} unlabeled pair(s) of {len(y)}")
    check_classification_targets(y)  # continuous or 2-d targets are not classes
    present = np.unique(y)
    if len(present) < min_classes:
        raise TrainingDataError(
            f"the training set holds one class ({present[0]!r}); this model needs at least "
            f"{min_classes} classes (use --model majority, or a larger --train-size)")
    return y
