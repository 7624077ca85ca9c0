"""The experiment behind `experiments.run` and `run.py`: a config in, a record and fitted models out.

`prepare` loads and annotates the splits and featurizes them once for every row that reads the
feature matrix; `run_row` fits one row (a model + feature types + label granularity) on the
training split, or on a sample of it (a learning-curve point), and scores it. Each model's
`ModelSpec` says what it reads, whether it is two-class, and which hyperparameters `selection`
chooses; nothing here branches on a model's name.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field

import numpy as np
from joblib import Parallel, delayed

from nli_baselines import features
from nli_baselines._version import __version__
from nli_baselines.experiments.configuration.config import RunConfig
from nli_baselines.experiments.configuration.errors import UsageError
from nli_baselines.experiments.reports.explanations import classes_of, top_features
from nli_baselines.experiments.stats.metrics import evaluate, evaluate_scores, task_figures
from nli_baselines.experiments.stats.resampling import bootstrap
from nli_baselines.experiments.stats.significance import compare_predictions, compare_with_named
from nli_baselines.features.featurizer import PairFeaturizer, featurize_progress
from nli_baselines.features.labels import NLI2, NLI3
from nli_baselines.features.registry import pairwise_types, types_need_parses
from nli_baselines.features.runtime.progress import bar
from nli_baselines.features.text.parsing import forget_derived_parses, parse_progress, parse_sentences
from nli_baselines.models import majority
from nli_baselines.models import mean as mean_model
from nli_baselines.models.common import check_training_labels
from nli_baselines.models.majority import MajorityClassifier
from nli_baselines.models.mean import MeanRegressor

from ..breakdowns.artifacts import read_artifacts
from ..outputs.model_files import Predictor
from ..outputs.records import peak_rss_bytes, versions
from . import choice, kept_values
from .parallel import grid_backend, n_jobs, shared
from .rows import Row, plan_rows
from .selection import describe_folds, out_of_fold_predictions, stratified_folds, tune
from .splits import Splits, labels_of, load_splits, score_range, targets_of


@dataclass
class Prepared:
    """The annotated splits of a run and, for the rows that read features, one featurization:
    what every row (and every learning-curve point) of a run reads."""

    corpus: object
    data: Splits
    featurizer: PairFeaturizer | None
    matrices: dict  # "train", "selection", "evaluation" -> CSR matrix (or None)
    timings: dict = field(default_factory=dict)
    kept_values: dict = field(default_factory=dict)  # what the disk cache of feature values gave

    @property
    def matrix_types(self) -> list[str]:
        return list(self.featurizer.feature_types) if self.featurizer is not None else []


def prepare(config: RunConfig, rows: list[Row], log) -> Prepared:
    """Load, annotate (with lemmas when a row reads them) and featurize the splits once."""
    timings: dict = {}
    corpus = config.corpus()
    started = time.perf_counter()
    matrix_types = [t for t in features.FEATURE_TYPES if any(t in r.feature_types for r in rows)]
    model_lemmas = any(r.spec.needs_lemmas for r in rows)
    lemma_types = [t for t in matrix_types if features.types_need_lemmas([t])]
    pairwise = tuple(pairwise_types(dict.fromkeys(t for r in rows for t in r.feature_types)))
    # Lemmas that only cacheable types read wait until the cache has been asked (`kept_values`).
    deferred = not model_lemmas and bool(lemma_types) and all(
        getattr(features.FEATURE_TYPES[t], "cache_values", False) for t in lemma_types)
    data = load_splits(config, corpus, log, lemmas=(model_lemmas or bool(lemma_types)) and not deferred,
                       pairwise=pairwise)
    kept = kept_values.find(data, matrix_types, config.featurizer)
    if deferred:
        data = kept_values.with_lemmas(data, kept_values.needs(kept, data, lemma_types), config.progress,
                                       config.jobs, log)
    if kept.covered:
        log(f"feature values found on disk for {', '.join(sorted(kept.covered))}: "
            f"{', '.join(kept.types)} not computed")
    timings["load_and_annotate"] = time.perf_counter() - started
    featurizer, matrices = None, {}
    if matrix_types:
        parse_types = [t for t in matrix_types if types_need_parses([t])]
        to_parse = kept_values.needs(kept, data, parse_types)
        if to_parse:
            timings["parse"] = _parse_splits(data, config.progress, log, to_parse)
        started = time.perf_counter()
        featurizer = PairFeaturizer(features=matrix_types, **config.featurizer)
        # the dependency parse, where a type reads one, can take minutes
        with parse_progress(config.progress), featurize_progress(config.progress), kept_values.pointed(kept, data):
            matrices["train"] = featurizer.fit_transform(data.train)
            if data.selection is not None:
                matrices["selection"] = featurizer.transform(data.selection)
            if data.evaluation is not None:
                matrices["evaluation"] = (matrices["selection"] if data.evaluation is data.selection
                                          else featurizer.transform(data.evaluation))
        forget_derived_parses()
        timings["featurize"] = time.perf_counter() - started
        timings["featurize_by_type"] = dict(featurizer.timings_)
        log(f"featurized {len(data.train)} training pairs into {featurizer.n_features_out_} columns "
            f"in {timings['featurize']:.1f}s")
        if kept.cache is not None and kept.cache.rejected:
            log(f"feature values on disk: {kept.cache.rejected} damaged or stale entries ignored and rewritten")
        if kept.cache is not None and kept.cache.unwritable:
            log(f"warning: feature values not kept on disk ({kept.cache.unwritable}); the next run computes them again")
    return Prepared(corpus, data, featurizer, matrices, timings, kept.record())


def _parse_splits(data: Splits, progress: bool, log, names=("train", "selection", "evaluation")) -> float:
    """Parse every distinct sentence of the splits once, before featurizing: the types that read
    parses then find them in memory. One stage with its own time and progress bar, and one pool
    of parser workers for all splits rather than one per split inside the featurizer."""
    started = time.perf_counter()
    splits = [getattr(data, name) or [] for name in dict.fromkeys(names)]
    sides = {}  # distinct token tuple -> its tree (the first one given), or None
    for split in splits:
        for p in split:
            for tokens, tree in ((p.premise_tokens, p.premise_tree), (p.hypothesis_tokens, p.hypothesis_tree)):
                if sides.get(tokens) is None:
                    sides[tokens] = tree
    trees = list(sides.values())
    parse_sentences(list(sides), trees=trees if any(t is not None for t in trees) else None, progress=progress,
                    stats=(stats := {}))
    seconds = time.perf_counter() - started
    log(f"dependency parses of {stats['sentences']} distinct sentences: {stats['from_trees']} read off the corpus' "
        f"trees, {stats['cached']} cached, {stats['parsed']} parsed, in {seconds:.1f}s")
    return seconds


def _label_set(corpus, y_train: np.ndarray, binary: bool) -> list[str] | None:
    """The labels a row predicts among (None for a score task)."""
    if corpus.task.is_scores:
        return None
    if binary:
        return list(NLI2)
    return list(corpus.labels) if corpus.labels else sorted(set(y_train))


def _fallback(task):
    """What predicts a learning-curve sample a model cannot learn from: its majority class, or its mean score."""
    return (MeanRegressor(), mean_model.SPEC) if task.is_scores else (MajorityClassifier(), majority.SPEC)


def evaluate_task(task, gold, predicted, labels) -> dict:
    """The figures of one scored split: per class and confusion for labels (`metrics.evaluate`),
    errors and correlations for scores, and the task's own metrics in either case."""
    figures = evaluate_scores(gold, predicted) if task.is_scores else evaluate(gold, predicted, labels)
    own = task_figures(task, gold, predicted)
    undefined = {**figures.get("undefined", {}), **own.get("undefined", {})}
    return {**figures, **own, **({"undefined": undefined} if undefined else {})}


def train_figures(task, gold, predicted) -> dict:
    """A row's training figures: accuracy for labels (what the tables have always shown), the
    task's metrics besides where it has others."""
    figures = {"pairs": len(gold)}
    if not task.is_scores:
        figures["accuracy"] = float(np.mean(predicted == gold))
    return {**figures, **task_figures(task, gold, predicted)}


@dataclass
class RowOutcome:
    """One fitted row: its part of the record, the fitted predictor, and what its examples
    (`RunResult.examples`) are built from: the scored pairs, their inputs (None when the
    predictions are out of fold), gold and predicted labels."""

    result: dict
    predictor: Predictor | None = None
    scored: dict | None = None


def _rows_of(X, index):
    if index is None:
        return X
    return [X[i] for i in index] if isinstance(X, list) else X[index]


def run_row(row: Row, prepared: Prepared, config: RunConfig, jobs: int, *, sample: np.ndarray | None = None,
            keep: bool = True, progress: bool = False) -> RowOutcome:
    """Fit one row on the training split (or on the training pairs `sample` indexes), score it on
    the evaluation split (or out of fold), and return its part of the record.

    sample: a learning-curve point's training pairs. A sample with fewer classes than the model
        needs (a point of one or two pairs) is predicted by its majority class, and the record
        says so.
    keep: keep the fitted predictor and what the examples are built from (a curve point does not).
    progress: a progress bar per candidate where the model's selection fits them as a path.
    """
    started = time.perf_counter()
    spec, data, matrices, featurizer = row.spec, prepared.data, prepared.matrices, prepared.featurizer
    task = data.corpus.task
    train_pairs = _rows_of(data.train, sample)
    if row.two_class:
        _check_two_class_labels(train_pairs, spec)
    y_train = targets_of(train_pairs, task, row.two_class, "train")
    y_sel = targets_of(data.selection, task, row.two_class, "dev")
    y_eval = targets_of(data.evaluation, task, row.two_class, data.eval_name)
    if task.is_scores:  # a sample whose scores are all equal has nothing to fit: its mean predicts
        fallback = sample is not None and len(y_train) > 0 and np.ptp(y_train) == 0
    else:
        fallback = sample is not None and len(set(y_train)) < spec.min_classes
        if not fallback:
            check_training_labels(y_train, min_classes=spec.min_classes)
    labels = _label_set(data.corpus, labels_of(data.train, row.two_class), row.two_class)
    result: dict = {"name": row.name, "model": row.model, "features": list(row.feature_types),
                    "two_class": row.two_class, "labels": labels}
    cols = None
    if spec.uses_features:
        cols = featurizer.columns_for(row.feature_types)
        whole = len(cols) == featurizer.n_features_out_
        X_train, X_sel, X_eval = (None if m is None else (m if whole else m[:, cols]) for m in
                                  (_rows_of(matrices["train"], sample), matrices.get("selection"),
                                   matrices.get("evaluation")))
        result["n_columns"] = int(len(cols))
        cols = None if whole else cols
    else:
        X_train, X_sel, X_eval = train_pairs, data.selection, data.evaluation
    kept = None  # the selection's fit at the chosen values, when it kept one: no refit
    fitted_spec = spec
    if fallback:
        estimator, fitted_spec = _fallback(task)
        result["fallback"] = (f"the sample's scores are all {y_train[0]:g}: predicted by its mean" if task.is_scores
                              else f"the sample has {len(set(y_train))} class(es): predicted by its majority class")
    else:
        estimator = spec.build(seed=config.seed, jobs=jobs)
        if spec.real_valued_param and featurizer is not None:  # the model treats real values apart from indicators
            mask = featurizer.real_valued_mask()
            estimator.set_params(**{spec.real_valued_param: mask if cols is None else mask[cols]})
        if spec.range_param and task.is_scores:  # a regressor clips to the task's range
            estimator.set_params(**{spec.range_param: score_range(task, y_train)})
        if spec.tuning is not None:
            selection = tune(spec, estimator, {**config.grids, **row.grid}, X_train, y_train, X_sel, y_sel,
                             cv_folds=config.cv_folds, seed=config.seed, jobs=jobs, tune_on=config.tune_on,
                             progress=progress, task=task)
            result["selection"] = selection.record()
            kept = selection.model
    folds = None
    if data.evaluation is None:  # no dev split: score out-of-fold predictions on train
        folds = stratified_folds(y_train, config.cv_folds, config.seed, task)
        if folds is None:
            raise UsageError("too few training pairs per class to cross-validate; give a dev split or more data")
        eval_pred = out_of_fold_predictions(estimator, X_train, y_train, folds)
        y_eval = y_train
        result["evaluation"] = describe_folds(folds, config.seed, task)
    if getattr(config, "bootstrap", 0):
        result["bootstrap"] = bootstrap(estimator, X_train, y_train, X_eval, y_eval if folds is None else None,
                                        folds=folds, resamples=config.bootstrap, seed=config.seed, jobs=jobs, task=task)
    model = kept if kept is not None else estimator.fit(X_train, y_train)
    train_pred = model.predict(X_train)
    if data.evaluation is not None:
        eval_pred = model.predict(X_eval)
    result["metrics"] = {"train": train_figures(task, y_train, train_pred),
                         data.eval_name: evaluate_task(task, y_eval, eval_pred, labels)}
    scored = data.evaluation if data.evaluation is not None else train_pairs
    genres = by_genre(task, scored, y_eval, eval_pred)
    if genres:
        result["metrics"][data.eval_name]["by_genre"] = genres
    shown = (lambda values: [float(v) for v in values]) if task.is_scores else (lambda values: [str(v) for v in values])
    result["predictions"] = {"split": data.eval_name, "ids": [p.id for p in scored],
                             "gold": shown(y_eval), "predicted": shown(eval_pred)}
    result["fitted"] = fitted_spec.describe(model)
    top = getattr(config, "top_features", 0)
    if top and fitted_spec.weights is not None:
        result["top_features"] = top_features(fitted_spec.weights(model), classes_of(model, task), featurizer, cols,
                                              top)
    result["seconds"] = time.perf_counter() - started
    if not keep:
        return RowOutcome(result)
    predictor = Predictor(
        row.model, model, featurizer if spec.uses_features else None, cols, labels or [], row.two_class,
        {"dataset": data.corpus.name, "features": list(row.feature_types), "train_pairs": len(y_train),
         **({"selection": result["selection"]["chosen"]} if "selection" in result else {}),
         "input": input_settings(data, config),
         **({"annotation": {"tokens_tags": data.annotation.text}} if data.annotation is not None else {})},
        task=task)  # a task of your own keeps no range: its model clips to the training range (range_)
    examples_from = {"X": X_eval if data.evaluation is not None else None, "pairs": scored, "gold": y_eval,
                     "predicted": eval_pred}
    return RowOutcome(result, predictor, examples_from)


def by_genre(task, pairs, gold, predicted) -> dict:
    """The task's figures per genre of the scored pairs (STS-B's captions, news and forums;
    MultiNLI's), where every pair has one and there are several; else {}."""
    genres = [p.meta.get("genre") for p in pairs]
    if not genres or not all(genres) or len(set(genres)) < 2:
        return {}
    genres = np.asarray(genres, dtype=object)
    gold, predicted = np.asarray(gold), np.asarray(predicted)
    return {str(g): {"pairs": int((genres == g).sum()), **task_figures(task, gold[genres == g], predicted[genres == g])}
            for g in sorted(set(genres))}


def _run_shared_row(row: Row, handle, config: RunConfig) -> RowOutcome:
    return run_row(row, handle.get(), config, 1)


def input_settings(data: Splits, config: RunConfig) -> dict:
    """What predict.py must know to read new pairs as the training pairs were read: the columns of
    a custom corpus' files, and the label map (the command line can still override them)."""
    fields = data.fields or {}
    names = {"premise": "premise_column", "hypothesis": "hypothesis_column", "label": "label_column",
             "id": "id_column"}
    settings = {names[k]: v for k, v in fields.items() if k in names and v is not None}
    if config.label_map:
        settings["label_map"] = dict(config.label_map)
    return settings


def unread_options(config: RunConfig, rows) -> list[str]:
    """Notes on options no model of the run reads: hyperparameter candidates (`--C`, `--wordnet`)
    that no row's model declares, and --top-features where no row's model explains itself by
    its features."""
    return grid_notes(config, rows) + top_features_note(config, rows)


def grid_notes(config: RunConfig, rows) -> list[str]:
    notes = []
    specs = {row.spec.name: row.spec for row in rows}
    for name in config.grids:
        if not any(name in spec.declared_hyperparameters for spec in specs.values()):
            flag = "--C" if name == "C" else f"--{name.replace('_', '-')}"
            notes.append(f"{flag} sets candidates of {name}, which the {' and '.join(specs)} model"
                         f"{'s do' if len(specs) > 1 else ' does'} not have: ignored"
                         + (" (the wordnet feature type is --features ...,wordnet)" if name == "wordnet" else ""))
    return notes


def top_features_note(config: RunConfig, rows, chosen: bool = False) -> list[str]:
    specs = {row.spec.name: row.spec for row in rows}
    if not getattr(config, "top_features", 0) or any(spec.weights is not None for spec in specs.values()):
        return []
    return [f"--top-features lists the weights of a model that explains itself by its features; the "
            f"{' and '.join(specs)} model{'s have' if len(specs) > 1 else ' has'} none: ignored"
            + (" (the baseline was chosen by CV; --choose off, or --features and --model, run one with "
               "weights)" if chosen else "")]


def _runnable(rows: list[Row], data: Splits, notes: list) -> list[Row]:
    """A table's rows that can run on these labels: a two-class row of a task whose labels are not
    NLI labels (yes/no, 1/0) is left out with a note, and the others run (a single row still says
    how to map the labels)."""
    if len(rows) < 2:
        return rows
    kept = []
    for row in rows:
        try:
            if row.two_class:
                _check_two_class_labels(data.train, row.spec)
        except UsageError as exc:
            note = f"row {row.name} left out: {exc}"
            notes.append(note)
            continue
        kept.append(row)
    if not kept:
        raise UsageError(notes[-1].split(": ", 1)[1])
    return kept


def _check_two_class_labels(pairs, spec) -> None:
    """Two classes are entailment vs the rest of an NLI label set; other labels (yes/no, 1/0) must be
    mapped first, or every pair would silently become not_entailment."""
    labels = {p.label for p in pairs}
    if not labels <= set(NLI3) | set(NLI2):
        raise UsageError(f"{spec.title} is scored as entailment vs not_entailment, but the labels are "
                         f"{', '.join(map(repr, sorted(labels)))}: map them, e.g. --label-map "
                         f"{sorted(labels)[-1]}=entailment,{sorted(labels)[0]}=not_entailment")


@dataclass
class Outcome:
    """What `run` returns: the JSON record (data only) and, per row, its fitted model and what
    its examples are built from."""

    record: dict
    rows: list[Row]
    outcomes: dict[str, RowOutcome]
    featurizer: PairFeaturizer | None


def default_log(config: RunConfig):
    return lambda message: print(message, file=sys.stderr) if config.progress else None


def run(config: RunConfig, log=None) -> Outcome:
    """Run the configured experiment: its rows from one featurization."""
    log = log or default_log(config)
    notes: list[str] = list(config.notes)
    corpus = config.corpus()
    choosing = choice.applies(config, corpus)
    rows = choice.candidate_rows(config, corpus, notes) if choosing else plan_rows(config, corpus, notes)
    # Said once, with the results (the report, `RunResult.notes()`). When the run chooses, the
    # candidates read the grids, and only the chosen one would list its weights: noted below.
    notes += grid_notes(config, rows) if choosing else unread_options(config, rows)
    prepared = prepare(config, rows, log)
    rows = _runnable(rows, prepared.data, notes)
    jobs = n_jobs(config.backend, config.jobs)
    chosen = None
    if choosing:
        started = time.perf_counter()
        row, chosen = choice.choose(rows, prepared, config, jobs, log)
        rows = [row]
        prepared.timings["choose"] = time.perf_counter() - started
        notes += top_features_note(config, rows, chosen=True)
    started = time.perf_counter()
    with grid_backend(config.backend, config.scheduler):
        if len(rows) > 1:
            with shared(prepared, config.backend, jobs) as handle:
                outcomes = Parallel(n_jobs=jobs)(delayed(_run_shared_row)(r, handle, config)
                                                 for r in progress(rows, "rows", config.progress))
        else:
            outcomes = [run_row(rows[0], prepared, config, jobs, progress=config.progress)]
    prepared.timings["fit_and_evaluate"] = time.perf_counter() - started
    results = [o.result for o in outcomes]
    if chosen is not None and "selection" in results[0]:  # its setting came with the baseline's choice
        results[0]["selection"]["by"] = f"{chosen['rule']}, with the feature group and model (the choice above)"
    task = prepared.data.corpus.task
    if len(results) > 1:
        compare_with_full_set(rows, results, task)
        compare_with_named(rows, results, task)
    record = {
        "suite_version": __version__,
        "command": sys.argv,
        "config": config.to_dict(),
        "seed": config.seed,
        "data": data_record(prepared),
        "task": task.record(),
        "features": features_record(prepared, config),
        "rows": results,
        "notes": notes,
        "reference": majority_reference(rows, prepared.data, config),
        "timings": prepared.timings,
        "value_cache": prepared.kept_values,
        "peak_rss_bytes": peak_rss_bytes(),
        "versions": versions(),
    }
    if chosen is not None:
        record["choice"] = chosen
    if len(results) == 1:
        record["metrics"] = results[0]["metrics"]
    if getattr(config, "artifact_table", False) and (reading := read_artifacts(results)):
        record["artifacts"] = reading
    return Outcome(record, rows, {r["name"]: o for r, o in zip(results, outcomes)}, prepared.featurizer)


def data_record(prepared: Prepared) -> dict:
    data = prepared.data
    return {"dataset": prepared.corpus.name, "files": data.files, "splits": data.counts,
            "train_subsample": data.train_subsample, "eval_split": data.eval_name,
            # how the training pairs got tokens and tags (a saved model records it too)
            **({"tokens_tags": data.annotation.text} if data.annotation is not None else {})}


def features_record(prepared: Prepared, config: RunConfig) -> dict:
    """The active and ablated types, the columns, and what each type records about itself (bleu:
    its sacrebleu signature)."""
    featurizer = prepared.featurizer
    return {"active": prepared.matrix_types, "ablated": list(config.ablate),
            "n_columns": featurizer.n_features_out_ if featurizer else 0,
            "provenance": featurizer.provenance() if featurizer else {}}


def compare_with_full_set(rows: list[Row], results: list[dict], task=None) -> None:
    """Give each row of a table its accuracy difference from its reference row and McNemar's p on
    the pairs where the two disagree (`delta`, `mcnemar_p`, `vs`). The reference is the row of the
    same label granularity marked so: the paper table's lexicalized (three classes) and two-class
    LR rows, an ablation table's full set; the same whatever else the table holds (WordNet rows)."""
    for row, result in zip(rows, results):
        full, full_result = next(((r, res) for r, res in zip(rows, results)
                                  if r.reference and r.two_class == row.two_class), (None, None))
        if full is None or full is row:
            continue
        test = compare_predictions(result["predictions"], full_result["predictions"], bootstrap=False, task=task)
        if "mcnemar" in test:
            result.update(delta=test["delta"], mcnemar_p=test["mcnemar_p"], vs=full.name)
        else:
            result.update(delta=test["delta"], p=test["p"], test=test["test"], vs=full.name)


def majority_reference(rows: list[Row], data: Splits, config: RunConfig) -> dict:
    """Accuracy of always predicting the most frequent training label, for each label granularity
    of the rows (scored like the rows: on the evaluation split, or out of fold), so that every
    report can be read against it. A granularity whose rows include a reference row needs none.
    A score task's reference is the mean training score, with the task's figures (its correlations
    are undefined: a constant) and its errors."""
    task = data.corpus.task
    if task.is_scores:
        return mean_reference(rows, data, config)
    out = {}
    for binary in sorted({r.two_class for r in rows}):
        if any(r.spec.reference and r.two_class == binary for r in rows):
            continue  # the table has the row itself
        y_train = labels_of(data.train, binary)
        majority = MajorityClassifier().fit(y_train, y_train)
        if data.evaluation is not None:
            accuracy = float(np.mean(majority.predict(data.evaluation) == labels_of(data.evaluation, binary)))
        else:
            folds = stratified_folds(y_train, config.cv_folds, config.seed) or [(np.arange(len(y_train)),) * 2]
            accuracy = float(np.mean(out_of_fold_predictions(MajorityClassifier(), y_train, y_train, folds)
                                     == y_train))
        figures = {}
        if not task.by_accuracy:
            gold = labels_of(data.evaluation, binary) if data.evaluation is not None else y_train
            figures = task.score(gold, np.full(len(gold), majority.majority_, dtype=object))
        out[f"{2 if binary else len(set(y_train))}-class"] = {
            "accuracy": accuracy, "label": str(majority.majority_), **figures}
    return {"majority": out} if out else {}


def mean_reference(rows: list[Row], data: Splits, config: RunConfig) -> dict:
    """The mean training score's figures on the evaluation split (or out of fold)."""
    if any(r.spec.reference for r in rows):
        return {}
    task = data.corpus.task
    y_train = targets_of(data.train, task, where="train")
    if data.evaluation is not None:
        gold = targets_of(data.evaluation, task, where=data.eval_name)
        predicted = np.full(len(gold), float(y_train.mean()))
    else:
        folds = stratified_folds(y_train, config.cv_folds, config.seed, task) or [(np.arange(len(y_train)),) * 2]
        gold, predicted = y_train, out_of_fold_predictions(MeanRegressor(), y_train, y_train, folds)
    return {"mean": {"scores": {"value": float(y_train.mean()), **evaluate_task(task, gold, predicted, None)}}}


def progress(items, desc: str, enabled: bool, total: int | None = None):
    return bar(items, desc=desc, enabled=enabled, total=total)
