"""The experiment behind `experiments/run.py`: a config in, a result record out.

Loads and annotates the splits, featurizes once for every row that reads the feature matrix,
then fits the rows (a row is a model + feature types + label granularity). Each model's
`ModelSpec` says what it reads, whether it is two-class, and which hyperparameters
`selection` chooses; nothing here branches on a model's name.
"""
from __future__ import annotations

import sys
import time
from dataclasses import asdict, dataclass, field

import numpy as np
from joblib import Parallel, delayed

import features
from features.combine import PairFeaturizer
from features.labels import NLI2, NLI3
from features.wordnet_data import wordnet_available
from models import DEFAULT_MODEL, MODELS, ModelSpec, get_model
from models.common import check_training_labels
from models.majority import MajorityClassifier

from .. import __version__
from ..outputs.model_files import Predictor
from .config import RunConfig
from .errors import UsageError
from .explanations import explain_examples, top_features
from .metrics import evaluate
from .parallel import grid_backend, n_jobs
from ..outputs.records import peak_rss_bytes, versions
from .resampling import bootstrap
from .selection import describe_folds, out_of_fold_predictions, stratified_folds, tune
from .significance import compare_predictions
from .splits import Splits, labels_of, load_splits


@dataclass
class Row:
    """One line of a results table. It carries the model's spec itself, so a worker process
    needs no registry to run it (a model registered in a notebook works with --jobs 2)."""

    name: str
    spec: ModelSpec
    feature_types: tuple[str, ...]
    two_class: bool
    grid: dict = field(default_factory=dict)  # candidates this row fixes (e.g. wordnet=(True,))

    @property
    def model(self) -> str:
        return self.spec.name


@dataclass(frozen=True)
class PaperRow:
    """A row of `--paper-table`. two_class None is the corpus' own label set; grid fixes candidates
    of the model's selection; wordnet rows need WordNet and are skipped, with a note, without it."""

    name: str
    model: str
    features: str | None
    two_class: bool | None
    grid: tuple = ()
    wordnet: bool = False


# The SNLI paper's rows (Tables 4 and 5), all from one featurization. A row that would repeat an
# earlier one (two-class LR on a two-class corpus) is left out.
PAPER_TABLE = (
    PaperRow("lexicalized", "lr", "lexicalized", None),
    PaperRow("unigrams_only", "lr", "unigrams_only", None),
    PaperRow("unlexicalized", "lr", "unlexicalized", None),
    PaperRow("edit_distance", "edit_distance", None, True),
    PaperRow("lr_two_class", "lr", "lexicalized", True),
    # Table 4's "+ lexical resources": the classifier with WordNet, and EOP's lemma + WordNet edit distance.
    PaperRow("lr_lexical_resources", "lr", "lexicalized,wordnet", True, wordnet=True),
    PaperRow("edit_distance_wordnet", "edit_distance", None, True, grid=(("wordnet", (True,)),), wordnet=True),
    PaperRow("majority", "majority", None, True),  # the paper's Table 4 quotes the 2-class majority
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


def plan_rows(config: RunConfig, corpus, notes: list | None = None) -> list[Row]:
    """The rows to run: the paper's table, an ablation table, or the single configured row.

    notes: receives why a row of the paper's table was left out.
    """
    binary_corpus = corpus.is_two_class
    notes = [] if notes is None else notes
    if config.paper_table:
        rows = []
        for paper in PAPER_TABLE:
            spec = MODELS[paper.model]
            if paper.wordnet and not wordnet_available():
                notes.append(f"row {paper.name} left out: it needs WordNet 3.0 (python experiments/download.py wordnet)")
                continue
            binary = binary_corpus or spec.two_class_only or bool(paper.two_class)
            row = Row(paper.name, spec, _resolve(paper.features) if spec.uses_features else (), binary, dict(paper.grid))
            if not any((r.spec, r.feature_types, r.two_class, r.grid) == (row.spec, row.feature_types, row.two_class,
                                                                          row.grid) for r in rows):
                rows.append(row)
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
            jobs: int, progress: bool = False) -> dict:
    """Fit one row, score it, and return its part of the record (the fitted model under `_predictor`).
    progress: a progress bar per candidate where the model's selection fits them as a path."""
    started = time.perf_counter()
    spec = row.spec
    if row.two_class:
        _check_two_class_labels(data.train, spec)
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
    kept = None  # the selection's fit at the chosen values, when it kept one: no refit
    if spec.tuning is not None:
        selection = tune(spec, estimator, {**config.grids, **row.grid}, X_train, y_train, X_sel, y_sel,
                         cv_folds=config.cv_folds, seed=config.seed, jobs=jobs, progress=progress)
        result["selection"] = selection.record()
        kept = selection.model
    folds = None
    if data.evaluation is None:  # no dev split: score out-of-fold predictions on train
        folds = stratified_folds(y_train, config.cv_folds, config.seed)
        if folds is None:
            raise UsageError("too few training pairs per class to cross-validate; give a dev split or more data")
        eval_pred = out_of_fold_predictions(estimator, X_train, y_train, folds)
        y_eval = y_train
        result["evaluation"] = describe_folds(folds, config.seed)
    if config.bootstrap:
        result["bootstrap"] = bootstrap(estimator, X_train, y_train, X_eval, y_eval if folds is None else None,
                                        folds=folds, resamples=config.bootstrap, seed=config.seed, jobs=jobs)
    model = kept if kept is not None else estimator.fit(X_train, y_train)
    train_pred = model.predict(X_train)
    if data.evaluation is not None:
        eval_pred = model.predict(X_eval)
    result["metrics"] = {"train": {"accuracy": float(np.mean(train_pred == y_train)), "pairs": len(y_train)},
                         data.eval_name: evaluate(y_eval, eval_pred, labels)}
    scored = data.evaluation if data.evaluation is not None else data.train
    result["predictions"] = {"split": data.eval_name, "ids": [p.id for p in scored],
                             "gold": [str(g) for g in y_eval], "predicted": [str(x) for x in eval_pred]}
    if config.explain:
        result["_examples"] = explain_examples(model, featurizer, cols,
                                               X_eval if data.evaluation is not None else None, y_eval, eval_pred,
                                               scored)
    result["fitted"] = spec.describe(model)
    if config.top_features and hasattr(model, "class_weights"):
        result["top_features"] = top_features(model, featurizer, cols, config.top_features)
    result["seconds"] = time.perf_counter() - started
    result["_predictor"] = Predictor(
        row.model, model, featurizer if spec.uses_features else None, cols, labels, row.two_class,
        {"dataset": data.corpus.name, "features": list(row.feature_types), "train_pairs": len(y_train),
         **({"selection": result["selection"]["chosen"]} if "selection" in result else {})})
    return result


def _check_two_class_labels(pairs, spec) -> None:
    """Two classes are entailment vs the rest of an NLI label set; other labels (yes/no, 1/0) must be
    mapped first, or every pair would silently become not_entailment."""
    labels = {p.label for p in pairs}
    if not labels <= set(NLI3) | set(NLI2):
        raise UsageError(f"{spec.title} is scored as entailment vs not_entailment, but the labels are "
                         f"{', '.join(map(repr, sorted(labels)))}: map them, e.g. --label-map "
                         f"{sorted(labels)[-1]}=entailment,{sorted(labels)[0]}=not_entailment")


def run(config: RunConfig, log=None) -> dict:
    """Run the configured experiment; returns the JSON-able record (fitted models under `_predictors`)."""
    log = log or (lambda message: print(message, file=sys.stderr) if config.progress else None)
    timings: dict = {}
    corpus = config.corpus()
    notes: list[str] = []
    rows = plan_rows(config, corpus, notes)
    started = time.perf_counter()
    lemmas = any(r.spec.needs_lemmas or features.types_need_lemmas(r.feature_types) for r in rows)
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
            results = [run_row(rows[0], data, matrices, featurizer, config, jobs, progress=config.progress)]
    timings["fit_and_evaluate"] = time.perf_counter() - started
    predictors = {r["name"]: r.pop("_predictor") for r in results}
    examples = {r["name"]: r.pop("_examples") for r in results if "_examples" in r}
    if len(results) > 1:
        compare_with_full_set(rows, results)
    reference = majority_reference(rows, data, config)
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
        "notes": notes,
        "reference": reference,
        "timings": timings,
        "peak_rss_bytes": peak_rss_bytes(),
        "versions": versions(),
    }
    if len(results) == 1:
        record["metrics"] = results[0]["metrics"]
    record["_predictors"] = predictors
    record["_examples"] = examples
    return record


def compare_with_full_set(rows: list[Row], results: list[dict]) -> None:
    """Give each row of a table its accuracy difference from the full feature set and McNemar's p
    on the pairs where the two disagree (`delta`, `mcnemar_p`, `vs`). The full set is the row of the
    same label granularity that reads the most feature types (the paper table's lexicalized or
    two-class LR row, an ablation table's first row)."""
    for row, result in zip(rows, results):
        same = [(r, res) for r, res in zip(rows, results) if r.two_class == row.two_class]
        with_features = [(r, res) for r, res in same if r.spec.uses_features]
        full, full_result = max(with_features or same, key=lambda item: len(item[0].feature_types))
        if full is row:
            continue
        test = compare_predictions(result["predictions"], full_result["predictions"], bootstrap=False)
        result.update(delta=test["delta"], mcnemar_p=test["mcnemar_p"], vs=full.name)


def majority_reference(rows: list[Row], data: Splits, config: RunConfig) -> dict:
    """Accuracy of always predicting the most frequent training label, for each label granularity
    of the rows (scored like the rows: on the evaluation split, or out of fold), so that every
    report can be read against it."""
    out = {}
    for binary in sorted({r.two_class for r in rows}):
        if any(r.spec.name == "majority" and r.two_class == binary for r in rows):
            continue  # the table has the row itself
        y_train = labels_of(data.train, binary)
        majority = MajorityClassifier().fit(y_train, y_train)
        if data.evaluation is not None:
            accuracy = float(np.mean(majority.predict(data.evaluation) == labels_of(data.evaluation, binary)))
        else:
            folds = stratified_folds(y_train, config.cv_folds, config.seed) or [(np.arange(len(y_train)),) * 2]
            accuracy = float(np.mean(out_of_fold_predictions(MajorityClassifier(), y_train, y_train, folds)
                                     == y_train))
        out[f"{2 if binary else len(set(y_train))}-class"] = {
            "accuracy": accuracy, "label": str(majority.majority_)}
    return {"majority": out} if out else {}


def bleu_signature(config: RunConfig) -> str:
    """sacrebleu's signature of the BLEU configuration our `bleu` feature reproduces."""
    import sacrebleu
    metric = sacrebleu.metrics.BLEU(tokenize="none", effective_order=True, lowercase=config.featurizer["lowercase"],
                                    smooth_method=config.featurizer["bleu_smoothing"])
    metric.sentence_score("a", ["a"])  # the signature needs the number of references, known after a call
    return str(metric.get_signature())


def _progress(items, desc: str, enabled: bool):
    from tqdm import tqdm  # not tqdm.auto: in a notebook it warns without ipywidgets
    return tqdm(items, desc=desc, disable=not enabled, leave=False)
