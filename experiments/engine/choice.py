"""Choosing a task's baseline by k-fold cross-validation on train: its feature group, its model and
the model's setting (alpha of ridge regression, C of logistic regression), the rule of the
similarity and paraphrase tasks (issue 47).

A dev split of a few hundred pairs follows one mix of genres, and a choice made on it follows that
mix: STS-B's dev split holds forum pairs the test set has fewer of, and a choice that led on dev
lost 4.8 points of Pearson on test. A corpus declares the baselines it chooses among
(`Corpus.choose_among`); a run that names neither --features nor --model (`--choose auto`), or any
run with `--choose cv`, featurizes once for all of them, scores every candidate on the same folds
of the training pairs (stratified by genre where the pairs carry one, as STS-B's do; else by
label; else shuffled) by the task's selection metric on all out-of-fold predictions together,
and keeps the best. Dev is scored once, by the chosen candidate, to confirm it. The record keeps
every candidate's figures: pooled, and the mean and spread (standard deviation) over the folds.

A model that fits its setting as a path (`Tuning.path`) is fitted along it fold by fold, from its
strongest regularization on, and the path stops once the pooled score has fallen twice in a row
(`selection.cv_along_path`); the others (the stacked models) choose their own settings inside
each fit.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.model_selection import KFold, StratifiedKFold

from nli_baselines.experiments.configuration.errors import UsageError
from nli_baselines.experiments.corpora.task import rank
from nli_baselines.experiments.stats.metrics import task_figures
from nli_baselines.experiments.stats.resampling import take_rows
from nli_baselines.features.registry import reads_wordnet
from nli_baselines.features.text.wordnet_data import setup_command, wordnet_available

from .rows import Row, row_name, for_task, model_spec, resolve_types
from .selection import candidate_label, cv_along_path
from .splits import score_range, targets_of

CHOOSE_CHOICES = ("auto", "cv", "off")


def applies(config, corpus) -> bool:
    """Whether this run chooses its baseline by CV: --choose cv, or auto for a corpus that
    declares candidates when the run names no features, model or ablation and is no table."""
    choose = getattr(config, "choose", "off")
    if config.command != "run" or choose == "off":
        return False
    tables = any(getattr(config, name, False) for name in ("paper_table", "ablation_table", "artifact_table"))
    if choose == "cv":
        if tables:
            raise UsageError("--choose cv chooses one baseline; a table (--paper-table, --ablation-table, "
                             "--artifact-table) fits rows of its own")
        return True
    return bool(corpus_candidates(corpus)) and not tables and not ({"features", "model", "ablate"} & config.given)


def corpus_candidates(corpus) -> tuple:
    return tuple(getattr(corpus, "choose_among", None) or ())


def candidate_rows(config, corpus, notes: list) -> list[Row]:
    """The candidates as rows: the corpus' own, or with --choose cv where the run names --features
    or --model (or the corpus declares none), the one they name (its model's setting is then what
    CV chooses). Candidates
    whose types read WordNet are left out, with a note, where WordNet 3.0 is not installed (the
    lexicalized group with the task's default model stands in if none is left)."""
    task = corpus.task
    named = bool({"features", "model"} & config.given)
    declared = ((config.features, config.model),) if named else corpus_candidates(corpus) or (
        (config.features, config.model),)
    rows, missing = [], []
    for features, model in declared:
        spec = for_task(model_spec(model), task)
        types = resolve_types(features, config.ablate, corpus, notes) if spec.uses_features else ()
        if any(reads_wordnet(t) for t in types) and not wordnet_available():
            missing.append(row_name(spec.name, features))
            continue
        binary = not task.is_scores and (bool(config.two_class) or corpus.is_two_class or spec.two_class_only)
        name = row_name(spec.name, features)
        if not any(r.name == name for r in rows):
            rows.append(Row(name, spec, types, binary))
    if missing:
        notes.append(f"candidates {', '.join(missing)} left out of the choice: they read WordNet 3.0 "
                     f"({setup_command()})")
    if not rows:
        spec = for_task(model_spec("lr"), task)
        rows.append(Row(row_name(spec.name, "lexicalized"), spec, resolve_types("lexicalized", (), corpus, notes),
                        not task.is_scores and corpus.is_two_class))
    return rows


def choice_folds(pairs, y: np.ndarray, task, k: int, seed: int) -> tuple[list, str]:
    """(folds, how they were made): stratified by genre when every pair has one (`meta["genre"]`),
    else by label for a label task, else shuffled; fewer folds when a stratum is smaller than k."""
    genres = [p.meta.get("genre") for p in pairs]
    strata, by = None, None
    # A genre with a single pair cannot be spread over folds (a small --train-size draws one):
    # the next rule stratifies, so a run that works without genres works with them.
    if all(genres) and len(set(genres)) > 1 and _smallest(genres) >= 2:
        strata, by = np.asarray(genres, dtype=object), "genre"
    elif not task.is_scores:
        strata, by = np.asarray(y, dtype=object), "label"
    if strata is not None:
        smallest = _smallest(strata)
        if smallest < 2:
            raise UsageError(f"too few training pairs per {by} to cross-validate the candidates")
        folds = list(StratifiedKFold(max(2, min(k, smallest)), shuffle=True, random_state=seed)
                     .split(np.zeros(len(y)), strata))
    else:
        if len(y) < 2:
            raise UsageError("too few training pairs to cross-validate the candidates")
        folds = list(KFold(max(2, min(k, len(y))), shuffle=True, random_state=seed).split(np.zeros(len(y))))
    how = f", stratified by {by}" if by else ", shuffled"
    return folds, f"{len(folds)}-fold CV on train{how} (seed {seed})"


def _smallest(strata) -> int:
    return int(np.unique(np.asarray(strata, dtype=object), return_counts=True)[1].min())


@dataclass
class Scored:
    """One candidate setting's cross-validated figures."""

    row: Row
    params: dict
    pooled: float | None  # the selection score of all out-of-fold predictions together
    predictions: np.ndarray = field(repr=False)

    def record(self, y, folds, task) -> dict:
        per_fold = [task_figures(task, y[test], self.predictions[test]) for _, test in folds]
        names = [n for n in per_fold[0] if n != "undefined"]
        # A fold's undefined figure (a correlation of constant predictions) is left out of the
        # mean and spread, never counted as 0; a figure undefined in every fold is None.
        defined = {n: [f[n] for f in per_fold if f.get(n) is not None] for n in names}
        return {"name": self.row.name, "features": list(self.row.feature_types), "model": self.row.model,
                "params": dict(self.params), "pooled": {**task_figures(task, y, self.predictions)},
                "mean": {n: float(np.mean(v)) if v else None for n, v in defined.items()},
                "sd": {n: float(np.std(v, ddof=1)) if len(v) > 1 else None for n, v in defined.items()},
                "folds": per_fold}



def _estimator(row: Row, featurizer, cols, task, y, config, jobs: int):
    """The row's unfitted model, told what the run tells it (real-valued columns, score range)."""
    spec = row.spec
    estimator = spec.build(seed=config.seed, jobs=jobs)
    if spec.real_valued_param and featurizer is not None:
        estimator.set_params(**{spec.real_valued_param: featurizer.real_valued_mask()[cols]})
    if spec.range_param and task.is_scores:
        estimator.set_params(**{spec.range_param: score_range(task, y)})
    return estimator


def _fitted_inside(estimator, X, y, folds, task, jobs: int):
    """A model that chooses its own settings in each fit: its out-of-fold predictions."""
    def one(train, test):
        return clone(estimator).fit(take_rows(X, train), y[train]).predict(take_rows(X, test))
    parts = Parallel(n_jobs=max(1, min(jobs, len(folds))), prefer="threads")(delayed(one)(tr, te) for tr, te in folds)
    predicted = np.empty(len(y), dtype=np.float64 if task.is_scores else object)
    for (_, test), p in zip(folds, parts):
        predicted[test] = p
    return task.selection_score(y, predicted), predicted


def choose(rows: list[Row], prepared, config, jobs: int, log) -> tuple[Row, dict]:
    """The candidate row with the best pooled CV score, its setting fixed (`Row.grid`), and the
    record of the choice: the rule, every candidate's figures, the chosen one."""
    started = time.perf_counter()
    data, featurizer = prepared.data, prepared.featurizer
    if data.evaluation is None:
        # The run's figure would be out-of-fold predictions on train: the very score the choice
        # maximised over its candidates, not a confirmation.
        raise UsageError(f"--choose: {data.corpus.name} has no dev split to score the chosen baseline on once; "
                         "give one (--eval-split SPLIT, or a dev file), or name the baseline (--choose off)")
    task = data.corpus.task
    scored: list[Scored] = []
    folds = description = None
    for row in rows:
        y = targets_of(data.train, task, row.two_class, "train")
        if folds is None:
            folds, description = choice_folds(data.train, y, task, config.cv_folds, config.seed)
        cols = featurizer.columns_for(row.feature_types) if row.spec.uses_features else None
        X = prepared.matrices["train"][:, cols] if cols is not None else data.train
        estimator = _estimator(row, featurizer, cols, task, y, config, jobs)
        tuning = row.spec.tuning
        began = time.perf_counter()
        if tuning is not None and tuning.path is not None and hasattr(estimator, "fit_path"):
            # --C's candidates, where the run gives them, are the path's, as they are a fixed row's (`tune`).
            path_grid = config.grids.get(tuning.path, tuning.grid[tuning.path])
            tried = cv_along_path(estimator, tuning.path, path_grid, tuning.stronger,
                                  tuning.extend.get(tuning.path), X, y, folds, task, jobs)
            for value, pooled, predicted in tried.values:
                scored.append(Scored(row, {tuning.path: value}, pooled, predicted))
        elif tuning is not None:
            raise UsageError(f"--choose: {row.spec.title} tunes {', '.join(tuning.grid)} without a path; "
                             "give its settings with --features/--model instead")
        else:
            pooled, predicted = _fitted_inside(estimator, X, y, folds, task, jobs)
            scored.append(Scored(row, {}, pooled, predicted))
        best_of_row = max((s for s in scored if s.row is row), key=lambda s: rank(s.pooled))
        log(f"choice: {row.name}: CV {task.selection_title} "
            + ("n/a" if best_of_row.pooled is None else f"{100 * best_of_row.pooled:.2f}")
            + (f" at {candidate_label(best_of_row.params)}" if best_of_row.params else "")
            + f" ({time.perf_counter() - began:.0f}s)")
    best = max(scored, key=lambda s: rank(s.pooled))  # max keeps the first of equals: the earlier candidate
    chosen = Row(best.row.name, best.row.spec, best.row.feature_types, best.row.two_class,
                 {name: (value,) for name, value in best.params.items()})
    record = {"rule": description, "by": task.selection_title, "metric": task.selection_metric,
              "candidates": [s.record(targets_of(data.train, task, s.row.two_class, "train"), folds, task)
                             for s in scored],
              "chosen": {"name": best.row.name, "features": list(best.row.feature_types), "model": best.row.model,
                         "params": dict(best.params)},
              "seconds": time.perf_counter() - started}
    record["chosen"].update({k: record["candidates"][scored.index(best)][k] for k in ("pooled", "mean", "sd")})
    return chosen, record
