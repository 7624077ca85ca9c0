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

import joblib
import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, ParameterGrid, PredefinedSplit, StratifiedKFold, cross_val_predict


@dataclass
class Selection:
    """The chosen parameters, the score of every candidate, and how they were scored.

    extended: values added beyond the given grid because the best sat at one of its ends.
    at_edge: "lowest" or "highest" when the choice is still at an end of the values tried (the
        grid could not be extended further), else None.
    """

    chosen: dict
    scores: dict[str, float] = field(default_factory=dict)  # candidate label -> accuracy
    by: str = ""
    extended: list = field(default_factory=list)
    at_edge: str | None = None

    def record(self) -> dict:
        return {"chosen": self.chosen, "scores": self.scores, "by": self.by, "extended": self.extended,
                "at_edge": self.at_edge}


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
           jobs: int = 1, extend: dict | None = None) -> Selection:
    """Pick the candidate of `grid` (parameter -> values, tried in order) with the best accuracy.

    With a dev split (`X_dev`, `y_dev`) each candidate is fitted on train and scored on dev;
    without one, by stratified `cv_folds`-fold CV on train. Ties keep the earlier candidate.
    extend: parameter -> (lowest, highest): when the grid has this one numeric parameter and
        the best value sits at an end, values one step further out (on the 1-3-10 ladder, or
        the grid's own ratio) are tried, as long as each is strictly better than the best so far.
    When train is too small to cross-validate (a class with one pair) the estimator keeps its
    own defaults.
    """
    grid = {name: _in_order(values) for name, values in grid.items()}
    if all(len(values) == 1 for values in grid.values()):  # one candidate: nothing to choose, nothing to fit
        return Selection({name: values[0] for name, values in grid.items()}, {}, "the only candidate given")
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

    def score(candidate_grid) -> list[tuple[dict, float]]:
        search = GridSearchCV(estimator, candidate_grid, scoring="accuracy", cv=cv, refit=False, n_jobs=jobs,
                              error_score="raise")
        # Pairs are Python objects: shipping them to worker processes for every fit costs more than
        # the fits (4x slower on the demo corpus). Threads share them; an explicit backend (Dask) wins.
        with joblib.parallel_config(prefer="threads" if isinstance(X, list) else None):
            search.fit(X, y)
        results = search.cv_results_
        # Correct predictions per candidate and fold, recovered exactly from the fold accuracies.
        correct = np.round(np.column_stack([results[f"split{i}_test_score"] for i in range(len(sizes))]) * sizes)
        return list(zip(map(dict, results["params"]), correct.sum(axis=1) / sizes.sum()))

    scored = score(grid)
    best_params, best = max(scored, key=lambda item: item[1])  # max keeps the first of equals
    extended, at_edge = [], None
    name = next(iter(grid))
    if len(grid) == 1 and name in (extend or {}) and len(grid[name]) > 1:  # a single given value is a fixed choice
        limits = extend[name]
        values = list(grid[name])
        while True:
            at = best_params[name]
            if at == values[0] and _step(values, down=True) >= limits[0]:
                new = _step(values, down=True)
                values.insert(0, new)
            elif at == values[-1] and _step(values, down=False) <= limits[1]:
                new = _step(values, down=False)
                values.append(new)
            else:
                break
            (params, accuracy), = score({name: [new]})
            scored.append((params, accuracy))
            extended.append(new)
            if accuracy <= best:
                break  # no better beyond the end: the choice is bracketed
            best_params, best = params, accuracy
        scored.sort(key=lambda item: item[0][name])
        edge = best_params[name]
        at_edge = "lowest" if edge == values[0] else "highest" if edge == values[-1] else None
    return Selection(best_params, {candidate_label(c): float(a) for c, a in scored}, by, extended, at_edge)


# Below this many training pairs, "auto" judges settings by k-fold CV on train when the training
# split is larger than the dev split: the estimate then rests on more pairs, and choices are steadier
# (README, "Choosing the defaults": bootstrap of the choice and simulated regret, SICK and GLUE RTE).
# Above it, CV would cost k fits per candidate for little gain: the dev split judges.
CV_BELOW = 50_000


def judge(spec, tune_on: str, n_train: int, n_dev: int | None) -> str:
    """"dev" or "cv": what chooses a model's settings. `tune_on` is the run's --tune-on; "auto" takes
    the spec's own rule where it has one (edit distance tunes on train, as EOP does), else CV on
    train when the training split is larger than the dev split and below CV_BELOW pairs."""
    if not n_dev:
        return "cv"
    if tune_on in ("dev", "cv"):
        return tune_on
    if spec.tuning.on == "cv":
        return "cv"
    return "cv" if n_dev < n_train < CV_BELOW else "dev"


def tune(spec, estimator, given: dict, X_train, y_train, X_sel=None, y_sel=None, *, cv_folds: int, seed: int,
         jobs: int = 1, tune_on: str = "auto") -> Selection:
    """Choose the hyperparameters `spec.tuning` names for `estimator` and set them on it, on the
    selection split or by CV on train as `judge` says.

    given: the run's candidates (`--C`, `--wordnet`), used for the parameters the estimator has."""
    params = estimator.get_params()
    grid = {**spec.tuning.grid, **{name: values for name, values in given.items() if name in params}}
    on_dev = judge(spec, tune_on, len(y_train), None if y_sel is None else len(y_sel)) == "dev"
    selection = choose(estimator, grid, X_train, y_train, X_sel if on_dev else None, y_sel if on_dev else None,
                       cv_folds=cv_folds, seed=seed, jobs=jobs, extend=spec.tuning.extend)
    estimator.set_params(**selection.chosen)
    return selection


def _step(values: list, down: bool) -> float:
    """The next value beyond an end of an increasing geometric grid: on the 1-3-10 ladder when the
    end is on it (0.003 -> 0.001 -> 0.0003), else by the ratio of the two values at that end."""
    end = values[0] if down else values[-1]
    exponent = int(np.floor(np.log10(end)))
    mantissa = end / 10 ** exponent
    if np.isclose(mantissa, 1.0):
        return float(f"{3 * 10 ** (exponent - 1) if down else 3 * 10 ** exponent:.12g}")
    if np.isclose(mantissa, 3.0):
        return float(f"{10 ** exponent if down else 10 ** (exponent + 1):.12g}")
    ratio = values[1] / values[0] if down else values[-1] / values[-2]
    return end / ratio if down else end * ratio


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
