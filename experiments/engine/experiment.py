"""The experiment behind `experiments/run.py`: a config in, a result record out.

Loads and annotates the splits, featurizes once for every row that reads the feature matrix,
then fits the rows (a row is a model + feature types + label granularity). Each model's
`ModelSpec` says what it reads, whether it is two-class, and which hyperparameters
`selection` chooses; nothing here branches on a model's name.
"""
from __future__ import annotations

import sys
import time
from dataclasses import asdict, dataclass

import numpy as np
from joblib import Parallel, delayed

import features
from features.combine import PairFeaturizer
from features.labels import NLI2
from models import DEFAULT_MODEL, MODELS, ModelSpec, get_model
from models.common import check_training_labels

from .. import __version__
from ..outputs.model_files import Predictor
from .config import RunConfig
from .errors import UsageError
from .metrics import evaluate
from .parallel import grid_backend, n_jobs
from .records import peak_rss_bytes, versions
from .resampling import bootstrap
from .selection import choose, describe_folds, out_of_fold_predictions, stratified_folds
from .splits import Splits, labels_of, load_splits


@dataclass
class Row:
    """One line of a results table. It carries the model's spec itself, so a worker process
    needs no registry to run it (a model registered in a notebook works with --jobs 2)."""

    name: str
    spec: ModelSpec
    feature_types: tuple[str, ...]
    two_class: bool

    @property
    def model(self) -> str:
        return self.spec.name


# The SNLI paper's rows, all from one featurization: (name, model, features, two_class), where
# two_class None is the corpus' own label set. Two-class LR is skipped on a two-class corpus.
PAPER_TABLE = (
    ("lexicalized", "lr", "lexicalized", None),
    ("unigrams_only", "lr", "unigrams_only", None),
    ("unlexicalized", "lr", "unlexicalized", None),
    ("edit_distance", "edit_distance", None, True),
    ("lr_two_class", "lr", "lexicalized", True),
    ("majority", "majority", None, True),  # the paper's Table 4 quotes the 2-class majority
)


def _resolve(spec, ablate=()) -> tuple[str, ...]:
    try:
        return tuple(features.resolve(spec, list(ablate)))
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _model(name: str):
    try:
        return get_model(name)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def plan_rows(config: RunConfig, corpus) -> list[Row]:
    """The rows to run: the paper's table, an ablation table, or the single configured row."""
    binary_corpus = corpus.is_two_class
    if config.paper_table:
        rows = []
        for name, model, group, two_class in PAPER_TABLE:
            spec = MODELS[model]
            binary = binary_corpus or spec.two_class_only or bool(two_class)
            if two_class and binary_corpus and spec.uses_features:
                continue  # the same as the corpus' own row
            rows.append(Row(name, spec, _resolve(group) if spec.uses_features else (), binary))
        return rows
    spec = _model(config.model)
    binary = config.two_class or binary_corpus or spec.two_class_only
    if config.ablation_table:
        if not spec.uses_features:
            raise UsageError(f"--ablation-table ablates feature types; model {spec.name!r} reads no features")
        full = _resolve(config.features, config.ablate)
        rows = [Row(_row_name(spec.name, config.features), spec, full, binary)]
        rows += [Row(_row_name(spec.name, f"-{t}"), spec, _resolve(list(full), [t]), binary)
                 for t in full if len(full) > 1]
        return rows
    types = _resolve(config.features, config.ablate) if spec.uses_features else ()
    name = _row_name(spec.name, "-".join([config.features, *config.ablate])) if spec.uses_features else spec.name
    return [Row(name, spec, types, binary)]


def _row_name(model: str, features_name: str) -> str:
    return features_name if model == DEFAULT_MODEL else f"{model} {features_name}"


def _label_set(corpus, y_train: np.ndarray, binary: bool) -> list[str]:
    if binary:
        return list(NLI2)
    return list(corpus.labels) if corpus.labels else sorted(set(y_train))


def run_row(row: Row, data: Splits, matrices: dict, featurizer: PairFeaturizer | None, config: RunConfig,
            jobs: int) -> dict:
    """Fit one row, score it, and return its part of the record (the fitted model under `_predictor`)."""
    started = time.perf_counter()
    spec = row.spec
    y_train = labels_of(data.train, row.two_class)
    y_sel = labels_of(data.selection, row.two_class)
    y_eval = labels_of(data.evaluation, row.two_class)
    check_training_labels(y_train, min_classes=spec.min_classes)
    labels = _label_set(data.corpus, y_train, row.two_class)
    result: dict = {"name": row.name, "model": row.model, "features": list(row.feature_types),
                    "two_class": row.two_class, "labels": labels}
    cols = None
    if spec.uses_features:
        cols = featurizer.columns_for(row.feature_types)
        whole = len(cols) == featurizer.n_features_out_
        X_train, X_sel, X_eval = (None if m is None else (m if whole else m[:, cols])
                                  for m in (matrices["train"], matrices.get("selection"), matrices.get("evaluation")))
        result["n_columns"] = int(len(cols))
        cols = None if whole else cols
    else:
        X_train, X_sel, X_eval = data.train, data.selection, data.evaluation
    estimator = spec.build(seed=config.seed, jobs=jobs)
    if spec.tuning is not None:
        grid = tuning_grid(spec, estimator, config.grids)
        on_dev = spec.tuning.on == "dev" and X_sel is not None
        selection = choose(estimator, grid, X_train, y_train, X_sel if on_dev else None, y_sel if on_dev else None,
                           cv_folds=config.cv_folds, seed=config.seed, jobs=jobs,
                           extend=spec.tuning.extend)
        estimator.set_params(**selection.chosen)
        result["selection"] = selection.record()
    if data.evaluation is None:  # no dev split: score out-of-fold predictions on train
        folds = stratified_folds(y_train, config.cv_folds, config.seed)
        if folds is None:
            raise UsageError("too few training pairs per class to cross-validate; give a dev split or more data")
        eval_pred = out_of_fold_predictions(estimator, X_train, y_train, folds)
        y_eval = y_train
        result["evaluation"] = describe_folds(folds, config.seed)
    if config.bootstrap:
        folds = None if data.evaluation is not None else stratified_folds(y_train, config.cv_folds, config.seed)
        result["bootstrap"] = bootstrap(estimator, X_train, y_train, X_eval, y_eval if folds is None else None,
                                        folds=folds, resamples=config.bootstrap, seed=config.seed, jobs=jobs)
    model = estimator.fit(X_train, y_train)
    train_pred = model.predict(X_train)
    if data.evaluation is not None:
        eval_pred = model.predict(X_eval)
    result["metrics"] = {"train": {"accuracy": float(np.mean(train_pred == y_train)), "pairs": len(y_train)},
                         data.eval_name: evaluate(y_eval, eval_pred, labels)}
    result["fitted"] = spec.describe(model)
    if config.top_features and hasattr(model, "class_weights"):
        result["top_features"] = top_features(model, featurizer, cols, config.top_features)
    result["seconds"] = time.perf_counter() - started
    result["_predictor"] = Predictor(
        row.model, model, featurizer if spec.uses_features else None, cols, labels, row.two_class,
        {"dataset": data.corpus.name, "features": list(row.feature_types), "train_pairs": len(y_train),
         **({"selection": result["selection"]["chosen"]} if "selection" in result else {})})
    return result


def tuning_grid(spec, estimator, given: dict) -> dict:
    """The spec's grid, with the run's candidates (`--C`, `--wordnet`) for parameters the model has."""
    params = estimator.get_params()
    return {**spec.tuning.grid, **{name: values for name, values in given.items() if name in params}}


def top_features(model, featurizer: PairFeaturizer, cols: np.ndarray | None, k: int) -> dict:
    """Per class, the k highest-weighted columns as (readable name, weight)."""
    weights = model.class_weights()
    out = {}
    for label, row in zip(model.classes_, weights):
        best = np.argsort(-row, kind="stable")[:k]
        out[str(label)] = [[featurizer.feature_name(int(cols[i] if cols is not None else i)), float(row[i])]
                           for i in best]
    return out


def run(config: RunConfig, log=None) -> dict:
    """Run the configured experiment; returns the JSON-able record (fitted models under `_predictors`)."""
    log = log or (lambda message: print(message, file=sys.stderr) if config.progress else None)
    timings: dict = {}
    corpus = config.corpus()
    rows = plan_rows(config, corpus)
    started = time.perf_counter()
    lemmas = any(r.spec.needs_lemmas for r in rows) or any(
        getattr(features.FEATURE_TYPES[t], "needs_lemmas", False) for r in rows for t in r.feature_types)
    data = load_splits(config, corpus, log, lemmas=lemmas)
    timings["load_and_annotate"] = time.perf_counter() - started
    featurizer, matrices = None, {}
    matrix_types = [t for t in features.FEATURE_TYPES if any(t in r.feature_types for r in rows)]
    if matrix_types:
        started = time.perf_counter()
        featurizer = PairFeaturizer(features=matrix_types, **config.featurizer)
        matrices["train"] = featurizer.fit_transform(data.train)
        if data.selection is not None:
            matrices["selection"] = featurizer.transform(data.selection)
        if data.evaluation is not None:
            matrices["evaluation"] = (matrices["selection"] if data.evaluation is data.selection
                                      else featurizer.transform(data.evaluation))
        timings["featurize"] = time.perf_counter() - started
        timings["featurize_by_type"] = dict(featurizer.timings_)
        log(f"featurized {len(data.train)} training pairs into {featurizer.n_features_out_} columns "
            f"in {timings['featurize']:.1f}s")
    started = time.perf_counter()
    jobs = n_jobs(config.backend, config.jobs)
    with grid_backend(config.backend, config.scheduler):
        if len(rows) > 1:
            results = Parallel(n_jobs=jobs)(delayed(run_row)(r, data, matrices, featurizer, config, 1)
                                            for r in _progress(rows, "rows", config.progress))
        else:
            results = [run_row(rows[0], data, matrices, featurizer, config, jobs)]
    timings["fit_and_evaluate"] = time.perf_counter() - started
    predictors = {r["name"]: r.pop("_predictor") for r in results}
    record = {
        "suite_version": __version__,
        "command": sys.argv,
        "config": asdict(config),
        "seed": config.seed,
        "data": {"dataset": corpus.name, "files": data.files, "splits": data.counts,
                 "train_subsample": data.train_subsample, "eval_split": data.eval_name},
        "features": {"active": matrix_types, "ablated": list(config.ablate),
                     "n_columns": featurizer.n_features_out_ if featurizer else 0,
                     "bleu_signature": bleu_signature(config) if "bleu" in matrix_types else None},
        "rows": results,
        "timings": timings,
        "peak_rss_bytes": peak_rss_bytes(),
        "versions": versions(),
    }
    if len(results) == 1:
        record["metrics"] = results[0]["metrics"]
    record["_predictors"] = predictors
    return record


def bleu_signature(config: RunConfig) -> str:
    """sacrebleu's signature of the BLEU configuration our `bleu` feature reproduces."""
    import sacrebleu
    metric = sacrebleu.metrics.BLEU(tokenize="none", effective_order=True, lowercase=config.featurizer["lowercase"],
                                    smooth_method=config.featurizer["bleu_smoothing"])
    metric.sentence_score("a", ["a"])  # the signature needs the number of references, known after a call
    return str(metric.get_signature())


def _progress(items, desc: str, enabled: bool):
    from tqdm.auto import tqdm
    return tqdm(items, desc=desc, disable=not enabled, leave=False)
