"""Checks shared by the estimators."""
from __future__ import annotations

import threading
from contextlib import contextmanager

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from threadpoolctl import threadpool_limits

from nli_baselines.features.labels import SCORE_FLOOR, SCORE_LIMIT, score_out_of_bounds


class TrainingDataError(ValueError):
    """The training set cannot train this model (empty, or fewer classes than it needs)."""


def check_training_labels(y, min_classes: int = 2) -> np.ndarray:
    """`y` as an array, refused with a TrainingDataError when no model could learn from it."""
    y = np.asarray(y)
    if len(y) == 0:
        raise TrainingDataError("the training set is empty: no labeled pairs to learn from")
    distinct = _distinct(y)
    if distinct is not None and None in distinct:
        missing = sum(label is None for label in y.tolist())
        raise TrainingDataError(f"the training set has {missing} unlabeled pair(s) of {len(y)}")
    # Continuous or 2-d targets are not classes. What makes them so shows in the distinct values
    # alone, which are a handful: the whole of SNLI's labels took ~0.5 s per check.
    check_classification_targets(y if distinct is None else np.array(distinct, dtype=object))
    present = np.unique(y if distinct is None else np.array(distinct, dtype=y.dtype))
    if len(present) < min_classes:
        raise TrainingDataError(
            f"the training set holds one class ({present[0]!r}); this model needs at least "
            f"{min_classes} classes (use --model majority, or a larger --train-size)")
    return y


def check_training_scores(y) -> np.ndarray:
    """`y` as float64, refused with a TrainingDataError when it is empty or holds a score no fit
    can take: not a finite number, or outside the bounds of `features.labels.score_out_of_bounds`."""
    y = np.asarray(y, dtype=np.float64)
    if len(y) == 0:
        raise TrainingDataError("the training set is empty: no labeled pairs to learn from")
    if not np.isfinite(y).all():
        raise TrainingDataError("the training scores hold a value that is not a finite number")
    size = np.abs(y)
    beyond = np.flatnonzero((size > SCORE_LIMIT) | ((size > 0) & (size < SCORE_FLOOR)))
    if len(beyond):
        value = float(y[beyond[0]])
        raise TrainingDataError(f"training score {value!r} is {score_out_of_bounds(value)}")
    return y


def _distinct(y: np.ndarray) -> list | None:
    """The distinct labels of a 1-d array of strings (or other Python objects), or None for
    anything else."""
    if y.ndim != 1 or y.dtype.kind not in "OU":
        return None
    try:
        return list(set(y.tolist()))
    except TypeError:  # unhashable labels (lists): the full check words the error
        return None


def encode_labels(y) -> tuple[np.ndarray, np.ndarray]:
    """(classes, codes) as `np.unique(y, return_inverse=True)` gives them, with no sort of every
    label where they are Python objects (a dict lookup each: ~10x faster at SNLI scale)."""
    y = np.asarray(y)
    distinct = _distinct(y)
    if distinct is None:
        return np.unique(y, return_inverse=True)
    classes = np.unique(np.array(distinct, dtype=y.dtype))
    index = {label: i for i, label in enumerate(classes.tolist())}
    return classes, np.fromiter(map(index.__getitem__, y.tolist()), dtype=np.intp, count=len(y))


# BLAS on one thread for the fits whose figures must not depend on how many cores run them.
# OpenBLAS splits a dot product of a long vector (LSQR's norms, over every feature column) across
# its threads, and the sum's order, so its last bit, follows the thread count; the stacked model's
# trees then split a column differently, and STS-B's dev Pearson moved by 0.05 point between a
# process that had run MRPC before it and one that had not. threadpoolctl's limits are process-wide:
# concurrent fits (folds on threads) share one limit, set by the first to enter and restored by
# the last to leave, so no fit's exit lifts the limit under another's feet.
_ONE_THREAD_LOCK = threading.Lock()
_one_thread = {"users": 0, "limit": None}


@contextmanager
def one_blas_thread():
    """Run the block with BLAS on one thread (see the note above), safely from several threads."""
    with _ONE_THREAD_LOCK:
        if _one_thread["users"] == 0:
            _one_thread["limit"] = threadpool_limits(1, user_api="blas")
        _one_thread["users"] += 1
    try:
        yield
    finally:
        with _ONE_THREAD_LOCK:
            _one_thread["users"] -= 1
            if _one_thread["users"] == 0:
                _one_thread["limit"].restore_original_limits()
                _one_thread["limit"] = None
