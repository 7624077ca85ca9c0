"""Choosing hyperparameters (C of logistic regression, alpha of ridge regression, and whatever a
model's spec tunes) without touching a test split: by the task's selection metric (`Task.select_by`:
accuracy for NLI, F1 and accuracy for paraphrase, Pearson and Spearman for similarity scores) on
the dev split, or by k-fold cross-validation on train (stratified for labels) where a corpus has
no dev split (RTE-1/2/3) or the model asks for it.

On a dev split, a model whose spec names a path parameter (`Tuning.path`, e.g. C of logistic
regression) fits its candidates as one path, in order, through its `fit_path`: each candidate
is scored on dev as soon as it is fitted, the path stops once dev accuracy has fallen twice in
a row or has fallen below the best by more than chance explains (`SIGNIFICANT_FALL`; the
record lists the values skipped and why), and the chosen candidate's fit is kept as the model,
so that no refit follows. Otherwise both routes are scikit-learn's `GridSearchCV`: the
dev route as a `PredefinedSplit` (fit on train, score on dev), the CV route over
`StratifiedKFold` folds. A CV score is the accuracy of all out-of-fold predictions together
(each fold weighted by its size), and out-of-fold predictions for scoring come from
`cross_val_predict` over the same folds. Tasks judged by another metric (F1, MCC, a correlation)
score each candidate on its pooled held-out predictions (`_pooled_scores`), and their paths stop
on the twice-in-a-row rule alone: McNemar's test compares accuracies.
"""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from dataclasses import dataclass, field
from typing import Any, Callable

import joblib
import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.model_selection import (GridSearchCV, KFold, ParameterGrid, PredefinedSplit, StratifiedKFold,
                                     cross_val_predict)

from nli_baselines.experiments.stats.resampling import take_rows
from nli_baselines.experiments.stats.significance import mcnemar
from nli_baselines.features.runtime.progress import bar as progress_bar

from ..corpora.task import NLI, rank

# A path also stops after a single fall in dev accuracy when McNemar's exact test puts the
# candidate below the best at p below this: the fall is then not noise, and the candidates
# further on, regularized further from the best, are not expected to climb back above it (dev
# accuracy against log C rises to one peak and falls). A fall chance could explain (p above it)
# still waits for a second fall in a row. The SNLI-scale main job: C = 0.03 falls 0.57 points
# below C = 0.01 on the 10,000 dev pairs (304 against 247 pairs only one of them gets right,
# p = 0.017), so its path stops there and skips C = 0.1 (61.74, p = 0.0002 against C = 0.01):
# 7-8 s of its ~30 s fit. Dev splits of a few hundred pairs hardly ever reach it.
SIGNIFICANT_FALL = 0.05


@dataclass
class Selection:
    """The chosen parameters, the score of every candidate, and how they were scored.

    extended: values added beyond the given grid because the best sat at one of its ends.
    at_edge: "lowest" or "highest" when the choice is still at an end of the values tried (the
        grid could not be extended further), else None.
    path: the parameter whose candidates were fitted as one path (`Tuning.path`), else None.
    skipped: grid values the path never fitted, because dev accuracy had fallen (`stopped`).
    stopped: why the path stopped before the end of the grid ("fell twice in a row", or "fell
        significantly below the best (McNemar p = ...)"), or None.
    fits: candidate label -> what the model's spec says of its fit (solver, steps, convergence),
        for candidates fitted as a path.
    seconds: candidate label -> seconds its fit and scoring took along the path (not part of the
        record: the record holds only what the same seed and data reproduce).
    model: the chosen candidate's fit on the whole training split when the path kept it (the
        caller uses it instead of refitting), else None.
    """

    chosen: dict
    scores: dict[str, float | None] = field(default_factory=dict)  # candidate label -> score (None: undefined)
    by: str = ""
    extended: list = field(default_factory=list)
    at_edge: str | None = None
    path: str | None = None
    skipped: list = field(default_factory=list)
    stopped: str | None = None
    fits: dict = field(default_factory=dict)
    seconds: dict = field(default_factory=dict)
    model: Any = field(default=None, repr=False)

    def record(self) -> dict:
        return {"chosen": self.chosen, "scores": self.scores, "by": self.by, "extended": self.extended,
                "at_edge": self.at_edge, "path": self.path, "skipped": self.skipped,
                "stopped_early": bool(self.skipped), "stopped": self.stopped, "refit": self.model is None, "fits": self.fits}


def candidate_label(params: dict) -> str:
    return ", ".join(f"{name}={value}" for name, value in params.items())


def stratified_folds(y, n_folds: int, seed: int, task=None) -> list[tuple[np.ndarray, np.ndarray]] | None:
    """Shuffled stratified folds (fewer when a class is too small); None when a class has a single pair.
    A score task's folds are shuffled KFold (no classes to stratify; None below two pairs)."""
    if task is not None and task.is_scores:
        if len(y) < 2:
            return None
        return list(KFold(max(2, min(n_folds, len(y))), shuffle=True, random_state=seed).split(np.zeros(len(y))))
    counts = np.unique(np.asarray(y, dtype=object), return_counts=True)[1]
    if counts.min() < 2:
        return None
    k = max(2, min(n_folds, int(counts.min())))
    return list(StratifiedKFold(k, shuffle=True, random_state=seed).split(np.zeros(len(y)), y))


def describe_folds(folds, seed: int, task=None) -> str:
    kind = "" if task is not None and task.is_scores else "stratified "
    return f"{len(folds)}-fold {kind}CV on train (seed {seed})"


def choose(estimator, grid: dict, X_train, y_train, X_dev=None, y_dev=None, *, cv_folds: int = 5, seed: int = 0,
           jobs: int = 1, extend: dict | None = None, path: str | None = None,
           describe: Callable[[Any], dict] | None = None, progress: bool = False, task=None,
           stronger: str = "smaller") -> Selection:
    """Pick the candidate of `grid` (parameter -> values, tried in order) with the best score: the
    task's selection metric (`Task.select_by`; accuracy where no task is given).

    With a dev split (`X_dev`, `y_dev`) each candidate is fitted on train and scored on dev;
    without one, by stratified `cv_folds`-fold CV on train. Ties keep the earlier candidate.
    extend: parameter -> (lowest, highest): when the grid has this one numeric parameter and
        the best value sits at an end, values one step further out (on the 1-3-10 ladder, or
        the grid's own ratio) are tried, as long as each is strictly better than the best so far.
    path: the parameter the estimator fits as a path (`Tuning.path`): on a dev split, when the
        grid varies it alone, the candidates are fitted by `estimator.fit_path`, scored as they
        come, the path stops once dev accuracy has fallen twice in a row or significantly below
        the best (`SIGNIFICANT_FALL`), and the chosen fit is kept (`Selection.model`). A score
        task on the CV route fits it fold by fold along the path (`cv_along_path`).
    stronger: which end of the path's grid regularizes more (`Tuning.stronger`).
    describe: fitted model -> facts about the fit, recorded per candidate of a path.
    progress: a progress bar that advances per candidate of a path (on stderr).
    task: the corpus' `Task`, whose selection metric scores the candidates; on a CV route the
        metric is computed on all out-of-fold predictions together.
    When train is too small to cross-validate (a class with one pair) the estimator keeps its
    own defaults.
    """
    task = task or NLI
    grid = {name: _in_order(values) for name, values in grid.items()}
    y_train = task.targets(y_train)
    if X_dev is not None and path is not None and list(grid) == [path] and hasattr(estimator, "fit_path"):
        return _choose_along_path(estimator, path, grid[path], X_train, y_train, X_dev, task.targets(y_dev),
                                  extend=(extend or {}).get(path), describe=describe or (lambda model: {}),
                                  progress=progress, task=task)
    if all(len(values) == 1 for values in grid.values()):  # one candidate: nothing to choose, nothing to fit
        return Selection({name: values[0] for name, values in grid.items()}, {}, "the only candidate given")
    title = "accuracy" if task.by_accuracy else task.selection_title
    if X_dev is None and task.is_scores and path is not None and list(grid) == [path] and hasattr(estimator, "fit_path"):
        folds = stratified_folds(y_train, cv_folds, seed, task)
        if folds is not None:
            tried = cv_along_path(estimator, path, grid[path], stronger, (extend or {}).get(path), X_train, y_train,
                                  folds, task, jobs)
            best = max(tried.values, key=lambda item: rank(item[1]))[0]  # an undefined figure ranks last
            return Selection({path: best}, {candidate_label({path: v}): None if s is None else float(s) for v, s, _ in
                                            sorted(tried.values, key=lambda item: item[0])},
                             describe_folds(folds, seed, task) + f", {title}", tried.extended,
                             _edge(sorted(set(grid[path]) | set(tried.extended)), best),
                             path=path, skipped=tried.skipped, stopped=tried.stopped)
    if X_dev is not None:
        X, y = _stack(X_train, X_dev), np.concatenate([y_train, task.targets(y_dev)])
        cv = PredefinedSplit(np.r_[np.full(len(y_train), -1), np.zeros(len(y_dev), dtype=int)])
        sizes = np.array([len(y_dev)])
        by = f"dev {title}"
    else:
        folds = stratified_folds(y_train, cv_folds, seed, task)
        if folds is None:
            defaults = {name: estimator.get_params()[name] for name in grid}
            return Selection(defaults, {}, "too few pairs per class to cross-validate: the model's defaults")
        X, y, cv = X_train, y_train, folds
        sizes = np.array([len(test) for _, test in folds])
        by = describe_folds(folds, seed, task) + (" accuracy" if task.by_accuracy else f", {title}")

    def score(candidate_grid) -> list[tuple[dict, float]]:
        if not task.by_accuracy:
            return _pooled_scores(estimator, candidate_grid, X, y, list(cv.split(X, y)) if X_dev is not None else cv,
                                  task, jobs)
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
    # max keeps the first of equals; an undefined score (a correlation of constant predictions) ranks last
    best_params, best = max(scored, key=lambda item: rank(item[1]))
    extended, at_edge = [], None
    name = next(iter(grid))
    if len(grid) == 1 and name in (extend or {}) and len(grid[name]) > 1:  # a single given value is a fixed choice
        values = list(grid[name])
        for new in _extensions(values, lambda: best_params[name], extend[name]):
            (params, accuracy), = score({name: [new]})
            scored.append((params, accuracy))
            extended.append(new)
            if rank(accuracy) <= rank(best):
                break  # no better beyond the end: the choice is bracketed
            best_params, best = params, accuracy
        scored.sort(key=lambda item: item[0][name])
        at_edge = _edge(values, best_params[name])
    elif len(grid) == 1 and len(grid[name]) > 1 and _numeric(grid[name]):
        # A grid that may not grow (its spec declares no extension) still says when the choice
        # sits at one of its ends: the best value may lie beyond it.
        at_edge = _edge(sorted(grid[name]), best_params[name])
    return Selection(best_params, {candidate_label(c): None if a is None else float(a) for c, a in scored}, by,
                     extended, at_edge)


def _pooled_scores(estimator, grid: dict, X, y, splits, task, jobs: int) -> list[tuple[dict, float]]:
    """Each candidate's selection score on all its held-out predictions together (one fit per
    candidate and fold): a correlation or an F1 of pooled predictions, not a mean over folds."""
    candidates = list(ParameterGrid(grid))

    def held_out(params, train, test):
        model = clone(estimator).set_params(**params).fit(take_rows(X, train), y[train])
        return model.predict(take_rows(X, test))

    with joblib.parallel_config(prefer="threads" if isinstance(X, list) else None):
        predicted = joblib.Parallel(n_jobs=jobs)(joblib.delayed(held_out)(params, train, test)
                                                 for params in candidates for train, test in splits)
    out = []
    order = np.concatenate([test for _, test in splits])
    for i, params in enumerate(candidates):
        parts = predicted[i * len(splits):(i + 1) * len(splits)]
        pooled = np.concatenate([np.asarray(part, dtype=y.dtype) for part in parts])
        out.append((dict(params), task.selection_score(y[order], pooled)))
    return out


@dataclass
class PathCV:
    """A path fitted fold by fold (`cv_along_path`): (value, pooled score, out-of-fold
    predictions) per value in the order tried, the grid values never tried, and why it stopped."""

    values: list
    skipped: list
    stopped: str | None
    extended: list


def cv_along_path(estimator, name: str, grid, stronger: str, limits, X, y, folds, task, jobs: int = 1) -> PathCV:
    """Every value of the path parameter `name` scored by CV, each fold's model fitted along the
    path (`fit_path`, each fit starting from that fold's fit at the value before), from the end of
    the grid that regularizes most (`stronger`: "smaller" or "larger" values, `Tuning.stronger`).
    The task's selection score of all out-of-fold predictions together is computed after each
    value, and the path stops once it has fallen twice in a row: the weakest settings are the
    slowest fits (ridge regression's smallest alphas take thousands of LSQR iterations), and past
    the peak the score only falls. When the best value sits at an end of the grid, the grid
    grows past it (`limits`, as `choose` extends it) while each step is strictly better.
    Folds are fitted on `jobs` threads (the work is numpy and scipy, which release the GIL)."""
    values = sorted(grid, reverse=stronger == "larger")
    fitted: dict = {}  # value -> (pooled score, out-of-fold predictions), in the order tried
    last: list = [None] * len(folds)  # per fold, its fit at the latest value
    first: list = [None] * len(folds)  # per fold, its fit at the strongest value

    def step(value, starts):
        def one(k):
            train, test = folds[k]
            model = next(iter(clone(estimator).fit_path(take_rows(X, train), y[train], [value], start=starts[k])))
            return model, model.predict(take_rows(X, test))
        with ThreadPoolExecutor(max(1, min(jobs, len(folds)))) as pool:
            done = list(pool.map(one, range(len(folds))))
        predicted = np.empty(len(y), dtype=np.float64 if task.is_scores else object)
        for (_, test), (_, part) in zip(folds, done):
            predicted[test] = part
        fitted[value] = (task.selection_score(y, predicted), predicted)
        return [model for model, _ in done]

    stopped, skipped = None, []
    for i, value in enumerate(values):
        last = step(value, last)
        if i == 0:
            first = last
        scores = [rank(fitted[v][0]) for v in values[max(0, i - 2):i + 1]]
        if len(scores) == 3 and scores[2] < scores[1] < scores[0] and i + 1 < len(values):
            stopped, skipped = "fell twice in a row", values[i + 1:]
            break
    best = max(fitted, key=lambda v: rank(fitted[v][0]))  # the first of equals: the stronger regularization
    ordered, extended = sorted(values), []
    if limits is not None and len(ordered) > 1 and best in (ordered[0], ordered[-1]):
        for new in _extensions(ordered, lambda: best, limits):
            strong_end = (new == ordered[0]) == (stronger == "smaller")
            models = step(new, first if strong_end else last)
            if strong_end:
                first = models
            else:
                last = models
            extended.append(new)
            if rank(fitted[new][0]) <= rank(fitted[best][0]):
                break  # no better beyond the end: the choice is bracketed
            best = new
    return PathCV([(value, *fitted[value]) for value in fitted], skipped, stopped, extended)


# Below this many training pairs, "auto" judges settings by k-fold CV on train when the training
# split is larger than the dev split: the estimate then rests on more pairs, and choices are steadier
# (docs/models-and-runs.md, "Choosing C": bootstrap of the choice and simulated regret, SICK and GLUE RTE).
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


def _choose_along_path(estimator, name: str, values: list, X_train, y_train, X_dev, y_dev, *, extend, describe,
                       progress: bool, task=NLI) -> Selection:
    """The dev route for a model that fits `name` as a path: candidates in order, each scored on
    dev as soon as it is fitted; the path stops once dev accuracy has fallen twice in a row or
    significantly below the best (`SIGNIFICANT_FALL`), and grows past an end of the grid (`extend` = (lowest, highest)) while each step there is
    strictly better, each step starting from the fit at that end. The chosen candidate's fit is
    kept."""
    values = list(values)
    fitted: dict = {}  # value -> (score, model or None, facts); only the best two models are kept
    correct: dict = {}  # value -> which dev pairs its fit gets right (McNemar's test against the best), by accuracy
    seconds: dict = {}
    best = None  # value
    skipped: list = []
    title = "accuracy" if task.by_accuracy else task.selection_title
    bar = progress_bar(total=len(values), desc=f"choosing {name} on dev", unit="fit", enabled=progress)

    def along(candidates, start=None):
        """Fit `candidates` as one path from `start`, scoring each; yield (value, model)."""
        nonlocal best
        began = time.perf_counter()
        with closing(estimator.fit_path(X_train, y_train, candidates, start=start)) as models:
            for value, model in zip(candidates, models):
                predicted = model.predict(X_dev)
                if task.by_accuracy:
                    correct[value] = predicted == y_dev
                    accuracy = float(np.mean(correct[value]))
                else:
                    accuracy = task.selection_score(y_dev, predicted)
                fitted[value] = (accuracy, model, describe(model))
                seconds[value] = time.perf_counter() - began
                if best is None or rank(accuracy) > rank(fitted[best][0]):  # ties keep the earlier candidate
                    best = value
                bar.update()
                bar.set_postfix_str(f"{candidate_label({name: value})}: "  # and redraws
                                    + ("n/a" if accuracy is None else f"{100 * accuracy:.2f}")
                                    + ("%" if task.by_accuracy else ""))
                yield value, model
                # Beside the best, the fit next to it stays: a step past the grid's end starts on
                # the line through the two (at SNLI scale 22% fewer CG steps than from the best alone).
                keep = {best, *_neighbours(sorted(fitted), best)}
                for other in fitted:
                    if other not in keep and fitted[other][1] is not None:
                        fitted[other] = (fitted[other][0], None, fitted[other][2])
                began = time.perf_counter()

    extended = []
    stopped = None
    with bar:
        path = along(values)
        try:
            for i, (value, _) in enumerate(path):
                if i + 1 < len(values):
                    stopped = _fallen(values[max(0, i - 2):i + 1], best, fitted, correct)
                if stopped:
                    skipped = values[i + 1:]  # the best is behind
                    break
        finally:
            path.close()
        if extend is not None and len(values) > 1:  # a single given value is a fixed choice
            for new in _extensions(values, lambda: best, extend):
                bar.total += 1
                inner = [v for v in _neighbours(sorted(fitted), best) if fitted[v][1] is not None]
                start = [fitted[v][1] for v in inner[:1]] + [fitted[best][1]]  # the best (the end) nearest
                for _ in along([new], start=start):
                    pass
                extended.append(new)
                if best != new:
                    break  # no better beyond the end: the choice is bracketed
    order = sorted(fitted)
    at_edge = _edge(values, best) if extend is not None and len(values) > 1 else None
    labels = {value: candidate_label({name: value}) for value in order}
    return Selection({name: best}, {labels[v]: fitted[v][0] for v in order}, f"dev {title}", extended, at_edge,
                     path=name, skipped=list(skipped), stopped=stopped, fits={labels[v]: fitted[v][2] for v in order},
                     seconds={labels[v]: seconds[v] for v in order}, model=fitted[best][1])


def _fallen(last: list, best, fitted: dict, correct: dict) -> str | None:
    """Why a path whose latest candidates are `last` (the newest last) should stop, or None: dev
    accuracy fell twice in a row, or the newest fell below the best by more than chance explains."""
    scores = [rank(fitted[v][0]) for v in last]
    if len(scores) == 3 and scores[2] < scores[1] < scores[0]:
        return "fell twice in a row"
    if scores[-1] < rank(fitted[best][0]) and last[-1] in correct:  # McNemar's test reads accuracy alone
        p = mcnemar(correct[best], correct[last[-1]])["p"]
        if p < SIGNIFICANT_FALL:
            return f"fell significantly below the best (McNemar p = {p:.2g})"
    return None


def _neighbours(values: list, value) -> list:
    """The values next to `value` in the sorted list `values`."""
    i = values.index(value)
    return values[max(0, i - 1):i] + values[i + 1:i + 2]


def _extensions(values: list, best, limits):
    """Values beyond the ends of `values` (which grows in place), while the best (`best()`) sits at
    an end and the next step stays within `limits` = (lowest, highest)."""
    while True:
        at = best()
        if at == values[0] and _step(values, down=True) >= limits[0]:
            values.insert(0, _step(values, down=True))
            yield values[0]
        elif at == values[-1] and _step(values, down=False) <= limits[1]:
            values.append(_step(values, down=False))
            yield values[-1]
        else:
            return


def _edge(values: list, chosen) -> str | None:
    return "lowest" if chosen == values[0] else "highest" if chosen == values[-1] else None


def tune(spec, estimator, given: dict, X_train, y_train, X_sel=None, y_sel=None, *, cv_folds: int, seed: int,
         jobs: int = 1, tune_on: str = "auto", progress: bool = False, task=None) -> Selection:
    """Choose the hyperparameters `spec.tuning` names for `estimator` and set them on it, on the
    selection split or by CV on train as `judge` says. When the selection kept the chosen
    candidate's fit (`Selection.model`), use it rather than refit.

    given: the run's candidates (`--C`, `--wordnet`), used for the hyperparameters the spec declares.
    progress: a progress bar per candidate where candidates are fitted as a path."""
    declared = spec.declared_hyperparameters
    grid = {**spec.tuning.grid, **{name: values for name, values in given.items() if name in declared}}
    on_dev = judge(spec, tune_on, len(y_train), None if y_sel is None else len(y_sel)) == "dev"
    selection = choose(estimator, grid, X_train, y_train, X_sel if on_dev else None, y_sel if on_dev else None,
                       cv_folds=cv_folds, seed=seed, jobs=jobs, extend=spec.tuning.extend, path=spec.tuning.path,
                       describe=spec.describe, progress=progress, task=task, stronger=spec.tuning.stronger)
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
    """Each pair predicted by a model fitted on the other folds (`cross_val_predict`): labels as
    objects, scores (a float array `y`) as float64."""
    y = np.asarray(y)
    dtype = np.float64 if y.dtype.kind == "f" else object
    return np.asarray(cross_val_predict(clone(estimator), X, np.asarray(y, dtype=dtype), cv=folds), dtype=dtype)


def grid_candidates(grid: dict) -> list[dict]:
    """The candidates `choose` tries, in its order."""
    return list(ParameterGrid({name: _in_order(values) for name, values in grid.items()}))


def _numeric(values) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def _in_order(values) -> list:
    """Numbers from the smallest (so ties keep the smaller C: the stronger regularization); others as given."""
    values = list(values)
    numeric = _numeric(values)
    return sorted(values) if numeric else values


def _stack(a, b):
    if isinstance(a, list):
        return list(a) + list(b)
    if sp.issparse(a):
        return sp.vstack([a, b], format="csr")
    return np.concatenate([a, b])
