"""Choosing hyperparameters (C of logistic regression, and whatever a model's spec tunes) without
touching a test split: by accuracy on the dev split, or by stratified k-fold cross-validation on
train where a corpus has no dev split (RTE-1/2/3) or the model asks for it.

Both routes are scikit-learn's `GridSearchCV`: the dev route as a `PredefinedSplit` (fit on
train, score on dev), the CV route over `StratifiedKFold` folds. A CV score is the accuracy of
all out-of-fold predictions together (each fold weighted by its size), and out-of-fold
predictions for scoring come from `cross_val_predict` over the same folds.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, ParameterGrid, PredefinedSplit, StratifiedKFold, cross_val_predict


@dataclass
class Selection:
    """The chosen parameters, the score of every candidate, and how they were scored."""

    chosen: dict
    scores: dict[str, float] = field(default_factory=dict)  # candidate label -> accuracy
    by: str = ""

    def record(self) -> dict:
        return {"chosen": self.chosen, "scores": self.scores, "by": self.by}


def candidate_label(params: dict) -> str:
    return ", ".join(f"{name}={value}" for name, value in params.items())


def stratified_folds(y, n_folds: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]] | None:
    """Shuffled stratified folds (fewer when a class is too small); None when a class has a single pair."""
    counts = np.unique(np.asarray(y, dtype=object), return_counts=True)[1]
    if counts.min() < 2:
        return None
    k = max(2, min(n_folds, int(counts.min())))
    return list(StratifiedKFold(k, shuffle=True, random_state=seed).split(np.zeros(len(y)), y))


def describe_folds(folds, seed: int) -> str:
    return f"{len(folds)}-fold stratified CV on train (seed {seed})"


def choose(estimator, grid: dict, X_train, y_train, X_dev=None, y_dev=None, *, cv_folds: int = 5, seed: int = 0,
           jobs: int = 1) -> Selection:
    """Pick the candidate of `grid` (parameter -> values, tried in order) with the best accuracy.

    With a dev split (`X_dev`, `y_dev`) each candidate is fitted on train and scored on dev;
    without one, by stratified `cv_folds`-fold CV on train. Ties keep the earlier candidate.
    When train is too small to cross-validate (a class with one pair) the estimator keeps its
    own defaults.
    """
    grid = {name: _in_order(values) for name, values in grid.items()}
    y_train = np.asarray(y_train, dtype=object)
    if X_dev is not None:
        X, y = _stack(X_train, X_dev), np.concatenate([y_train, np.asarray(y_dev, dtype=object)])
        cv = PredefinedSplit(np.r_[np.full(len(y_train), -1), np.zeros(len(y_dev), dtype=int)])
        sizes = np.array([len(y_dev)])
        by = "dev accuracy"
    else:
        folds = stratified_folds(y_train, cv_folds, seed)
        if folds is None:
            defaults = {name: estimator.get_params()[name] for name in grid}
            return Selection(defaults, {}, "too few pairs per class to cross-validate: the model's defaults")
        X, y, cv = X_train, y_train, folds
        sizes = np.array([len(test) for _, test in folds])
        by = describe_folds(folds, seed) + " accuracy"
    search = GridSearchCV(estimator, grid, scoring="accuracy", cv=cv, refit=False, n_jobs=jobs, error_score="raise")
    search.fit(X, y)
    results = search.cv_results_
    # Correct predictions per candidate and fold, recovered exactly from the fold accuracies.
    correct = np.round(np.column_stack([results[f"split{i}_test_score"] for i in range(len(sizes))]) * sizes)
    accuracy = correct.sum(axis=1) / sizes.sum()
    best = int(np.argmax(accuracy))
    candidates = list(results["params"])
    return Selection(dict(candidates[best]), {candidate_label(c): float(a) for c, a in zip(candidates, accuracy)}, by)


def out_of_fold_predictions(estimator, X, y, folds) -> np.ndarray:
    """Each pair predicted by a model fitted on the other folds (`cross_val_predict`)."""
    return np.asarray(cross_val_predict(clone(estimator), X, np.asarray(y, dtype=object), cv=folds), dtype=object)


def grid_candidates(grid: dict) -> list[dict]:
    """The candidates `choose` tries, in its order."""
    return list(ParameterGrid({name: _in_order(values) for name, values in grid.items()}))


def _in_order(values) -> list:
    """Numbers from the smallest (so ties keep the smaller C: the stronger regularization); others as given."""
    values = list(values)
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    return sorted(values) if numeric else values


def _stack(a, b):
    if isinstance(a, list):
        return list(a) + list(b)
    if sp.issparse(a):
        return sp.vstack([a, b], format="csr")
    return np.concatenate([a, b])
