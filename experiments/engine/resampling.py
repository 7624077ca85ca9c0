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

from models.common import TrainingDataError


def _take(X, idx):
    return [X[i] for i in idx] if isinstance(X, list) else X[idx]


def _one(estimator, X_train, y_train, X_eval, y_eval, folds, seed: int, resample: int) -> float | None:
    rng = np.random.default_rng([seed, resample])
    try:
        if folds is None:
            idx = rng.choice(len(y_train), len(y_train), replace=True)
            model = clone(estimator).fit(_take(X_train, idx), y_train[idx])
            return float(np.mean(model.predict(X_eval) == y_eval))
        correct = 0
        for train, test in folds:
            idx = train[rng.choice(len(train), len(train), replace=True)]
            model = clone(estimator).fit(_take(X_train, idx), y_train[idx])
            correct += int(np.sum(model.predict(_take(X_train, test)) == y_train[test]))
        return correct / len(y_train)
    except TrainingDataError:
        return None  # a resample that lost a class: counted as failed


def bootstrap(estimator, X_train, y_train, X_eval=None, y_eval=None, *, folds=None, resamples: int = 100,
              seed: int = 0, jobs: int = 1) -> dict:
    """Scores of `estimator` refitted on `resamples` bootstrap resamples of the training set.

    X_eval, y_eval: the evaluation split; or folds: the run's CV folds over train (then each
        fold's training part is resampled and its held-out part scored).
    Returns the mean, standard deviation and the 2.5th/97.5th percentiles of the scores.
    """
    y_train = np.asarray(y_train, dtype=object)
    y_eval = None if y_eval is None else np.asarray(y_eval, dtype=object)
    prefer = "threads" if isinstance(X_train, list) else None  # pairs are cheaper shared than copied
    scores = Parallel(n_jobs=jobs, prefer=prefer)(
        delayed(_one)(estimator, X_train, y_train, X_eval, y_eval, folds, seed, b) for b in range(resamples))
    good = np.array([s for s in scores if s is not None])
    summary = {"resamples": resamples, "failed": resamples - len(good), "seed": seed,
               "of": "the evaluation split" if folds is None else "cross-validation on train"}
    if len(good):
        low, high = np.percentile(good, [2.5, 97.5])
        summary.update(mean=float(good.mean()), std=float(good.std(ddof=1)) if len(good) > 1 else 0.0,
                       interval_95=[float(low), float(high)], scores=[float(s) for s in good])
    return summary
