"""How much a score owes to the particular training set: refit on bootstrap resamples of it.

A single accuracy on 800 training pairs says little (resampling RTE-3's training set moves the
edit-distance test accuracy by about +-1.9 points). Each resample draws the training pairs with
replacement, the model is refitted with the settings the run chose (a model that tunes inside
`fit`, like edit distance's weights, tunes again), and scored on the same evaluation pairs;
where the run is scored by cross-validation, each fold's training part is resampled instead.
"""
from __future__ import annotations

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone

from nli_baselines.models.common import TrainingDataError


def take_rows(X, idx):
    """Rows `idx` of a matrix, or of a list of pairs (the models that read pairs, not features)."""
    return [X[i] for i in idx] if isinstance(X, list) else X[idx]


UNDEFINED = "undefined"  # a resample whose score is undefined (a correlation of constant predictions)


def _one(estimator, X_train, y_train, X_eval, y_eval, folds, seed: int, resample: int, task) -> float | str | None:
    rng = np.random.default_rng([seed, resample])
    try:
        if folds is None:
            idx = rng.choice(len(y_train), len(y_train), replace=True)
            model = clone(estimator).fit(take_rows(X_train, idx), y_train[idx])
            return _score(task, y_eval, model.predict(X_eval))
        gold, predicted = [], []
        for train, test in folds:
            idx = train[rng.choice(len(train), len(train), replace=True)]
            model = clone(estimator).fit(take_rows(X_train, idx), y_train[idx])
            gold.append(y_train[test])
            predicted.append(np.asarray(model.predict(take_rows(X_train, test)), dtype=y_train.dtype))
        return _score(task, np.concatenate(gold), np.concatenate(predicted))
    except TrainingDataError:
        return None  # a resample that lost a class: counted as failed


def _score(task, gold, predicted) -> float | str:
    """Accuracy where no task is given (or it is judged by accuracy), else its selection metric
    (UNDEFINED where it is undefined)."""
    if task is None or task.by_accuracy:
        return float(np.mean(np.asarray(predicted, dtype=object) == np.asarray(gold, dtype=object)))
    value = task.selection_score(gold, predicted)
    return UNDEFINED if value is None else value


def bootstrap(estimator, X_train, y_train, X_eval=None, y_eval=None, *, folds=None, resamples: int = 100,
              seed: int = 0, jobs: int = 1, task=None) -> dict:
    """Scores of `estimator` refitted on `resamples` bootstrap resamples of the training set.

    X_eval, y_eval: the evaluation split; or folds: the run's CV folds over train (then each
        fold's training part is resampled and its held-out part scored).
    task: the corpus' task; its selection metric is the score (accuracy where none is given).
    Returns the mean, standard deviation and the 2.5th/97.5th percentiles of the scores; resamples
    that failed (a class went missing) and those whose score is undefined (constant predictions)
    are counted apart and left out.
    """
    dtype = np.float64 if task is not None and task.is_scores else object
    y_train = np.asarray(y_train, dtype=dtype)
    y_eval = None if y_eval is None else np.asarray(y_eval, dtype=dtype)
    prefer = "threads" if isinstance(X_train, list) else None  # pairs are cheaper shared than copied
    scores = Parallel(n_jobs=jobs, prefer=prefer)(
        delayed(_one)(estimator, X_train, y_train, X_eval, y_eval, folds, seed, b, task) for b in range(resamples))
    good = np.array([s for s in scores if s is not None and s != UNDEFINED])
    undefined = sum(s == UNDEFINED for s in scores if s is not None)
    summary = {"resamples": resamples, "failed": resamples - len(good) - undefined, "seed": seed,
               **({"undefined": undefined} if undefined else {}),
               "of": "the evaluation split" if folds is None else "cross-validation on train",
               "metric": "accuracy" if task is None or task.by_accuracy else task.selection_metric}
    if len(good):
        low, high = np.percentile(good, [2.5, 97.5])
        summary.update(mean=float(good.mean()), std=float(good.std(ddof=1)) if len(good) > 1 else 0.0,
                       interval_95=[float(low), float(high)], scores=[float(s) for s in good])
    return summary
