"""The experiment loop behind `experiments/run.py`: config in, result record out.

Loads and annotates the splits, featurizes once, then fits one or more rows (a row is a
model + feature set + label granularity), choosing logistic regression's C on the dev split,
or by stratified cross-validation on train where a corpus has no dev split.
"""
from __future__ import annotations

import sys
import time
from dataclasses import asdict, dataclass, field

import numpy as np
from joblib import Parallel, delayed
from sklearn.model_selection import StratifiedKFold

import features
from features.annotation import annotate
from features.combine import PairFeaturizer
from models import C_GRID, MODELS, PAIR_INPUT
from models.common import TrainingDataError, check_training_labels

from . import __version__
from .cli import UsageError
from .corpora import Corpus, custom_corpus, get_corpus, resolve_data_dir, two_class
from .grid import grid_backend, n_jobs
from .metrics import evaluate
from .predictor import Predictor
from .records import peak_rss_bytes, sha256_file, versions


@dataclass
class RunConfig:
    """Everything that determines a run's numbers (recorded verbatim in its JSON record)."""

    dataset: str = "snli"
    data_dir: str | None = None
    model: str = "lr"
    features: str = "lexicalized"
    ablate: tuple[str, ...] = ()
    two_class: bool = False
    train_size: int | None = None
    seed: int = 0
    eval_split: str = "dev"
    paper_table: bool = False
    top_features: int = 0
    jobs: int = 1
    on_bad_row: str = "error"
    lowercase: bool = True
    tag_match: str = "first_letter"
    scale: str = "standard"
    bleu_smoothing: str = "exp"
    min_count: int = 3
    c_grid: tuple[float, ...] = C_GRID
    cv_folds: int = 5
    progress: bool = True
    ablation_table: bool = False
    backend: str = "local"
    scheduler: str | None = None
    custom: dict = field(default_factory=dict)  # dataset "custom": train/dev/test files and column names

    def corpus(self) -> Corpus:
        if self.dataset == "custom":
            c = self.custom
            try:
                return custom_corpus(c.get("train"), c.get("dev"), c.get("test"), premise=c.get("premise", "premise"),
                                     hypothesis=c.get("hypothesis", "hypothesis"), label=c.get("label", "label"),
                                     id_column=c.get("id"))
            except ValueError as exc:
                raise UsageError(str(exc)) from None
        return get_corpus(self.dataset)


@dataclass
class Row:
    """One line of a results table."""

    name: str
    model: str
    feature_types: tuple[str, ...]
    two_class: bool


@dataclass
class Data:
    corpus: Corpus
    train: list
    selection: list | None   # split for choosing C (dev), or None: cross-validate on train
    evaluation: list | None  # split to score, or None: cross-validated predictions on train
    eval_name: str
    files: dict
    counts: dict
    train_subsample: dict


def plan_rows(config: RunConfig, corpus: Corpus) -> list[Row]:
    """The rows to run: the paper's table, or the single configured row."""
    binary_corpus = corpus.is_two_class
    if config.paper_table:
        rows = [Row(group, "lr", tuple(features.resolve(group)), binary_corpus)
                for group in ("lexicalized", "unigrams_only", "unlexicalized")]
        rows.append(Row("edit_distance", "edit_distance", (), True))
        if not binary_corpus:
            rows.append(Row("lr_two_class", "lr", tuple(features.resolve("lexicalized")), True))
        rows.append(Row("majority", "majority", (), True))  # the paper's Table 4 quotes the 2-class majority
        return rows
    if config.ablation_table:
        try:
            full = tuple(features.resolve(config.features, list(config.ablate)))
            rows = [Row(config.features, "lr", full, config.two_class or binary_corpus)]
            rows += [Row(f"-{t}", "lr", tuple(features.resolve(list(full), [t])), config.two_class or binary_corpus)
                     for t in full if len(full) > 1]
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        return rows
    if config.model not in MODELS:
        raise UsageError(f"unknown model {config.model!r}; choose from {', '.join(MODELS)}")
    types: tuple[str, ...] = ()
    if config.model not in PAIR_INPUT and config.model != "majority":
        try:
            types = tuple(features.resolve(config.features, list(config.ablate)))
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    # Edit distance is two-class by construction.
    binary = config.two_class or binary_corpus or config.model in PAIR_INPUT
    name = config.model if config.model != "lr" else "-".join([config.features, *config.ablate])
    return [Row(name, config.model, types, binary)]


def load_data(config: RunConfig, corpus: Corpus, log) -> Data:
    data_dir = resolve_data_dir(config.data_dir)
    loaded, files, counts = {}, {}, {}

    def load(split):
        if split not in loaded:
            data = corpus.load(split, data_dir, config.on_bad_row)
            loaded[split] = data
            files[split] = [{"path": str(p), "sha256": sha256_file(p)} for p in data.paths]
            counts[split] = {"rows": data.rows, "pairs": len(data.pairs), "skipped": dict(data.skipped)}
        return loaded[split]

    train = load("train")
    if not train.pairs:
        raise TrainingDataError(f"the training split of {corpus.name} has no pairs")
    dev_name = corpus.dev_split if corpus.dev_split and corpus.locate_or_generated(corpus.dev_split, data_dir) else None
    selection = load(dev_name).pairs if dev_name else None
    if config.eval_split == "dev":
        eval_name = dev_name or f"cv{config.cv_folds}(train)"
        evaluation = selection
    else:
        split = corpus.test_split if config.eval_split == "test" else config.eval_split
        if split is None or split not in corpus.splits:
            raise UsageError(f"{corpus.name} has no {config.eval_split!r} split; splits: {', '.join(corpus.splits)}")
        evaluation = load(split).pairs
        eval_name = split
        if not evaluation:
            raise UsageError(f"the {split} split of {corpus.name} has no pairs ({loaded[split].paths[0]})")
        if not loaded[split].labeled:
            raise UsageError(
                f"the {split} split of {corpus.name} is unlabeled: its gold labels are held by the benchmark. "
                f"Evaluate on dev, and write test predictions for the benchmark's server instead: "
                f"--predict test --glue-out DIR (or --superglue-out DIR)")
    sub = {"requested": config.train_size, "available": len(train.pairs), "used": len(train.pairs)}
    pairs = train.pairs
    if config.train_size is not None:
        if config.train_size < 1:
            raise UsageError("--train-size must be at least 1")
        if config.train_size < len(pairs):
            keep = np.sort(np.random.default_rng(config.seed).choice(len(pairs), config.train_size, replace=False))
            pairs = [pairs[i] for i in keep]
        else:
            sub["clipped"] = True
        sub["used"] = len(pairs)
    started = time.perf_counter()
    # One annotate call for all splits: one tagger load, one cache read.
    groups = [pairs, selection or [], [] if evaluation is selection else evaluation or []]
    tagged = annotate([p for group in groups for p in group], progress=config.progress, jobs=config.jobs,
                      stats=(tag_stats := {}))
    bounds = np.cumsum([0] + [len(group) for group in groups])
    train_a, sel_a, eval_a = (tagged[a:b] for a, b in zip(bounds[:-1], bounds[1:]))
    sel_a = sel_a if selection is not None else None
    eval_a = sel_a if evaluation is selection else eval_a if evaluation is not None else None
    log(f"annotated {tag_stats['sentences']} sentences needing tags ({tag_stats['cached']} cached, "
        f"{tag_stats['tagged']} tagged) in {time.perf_counter() - started:.1f}s")
    return Data(corpus, train_a, sel_a, eval_a, eval_name, files, counts, sub)


def _labels(pairs, binary: bool) -> np.ndarray:
    labels = [p.label for p in pairs]
    return np.array([two_class(x) for x in labels] if binary else labels, dtype=object)


def _label_set(corpus: Corpus, y_train: np.ndarray, binary: bool) -> list[str]:
    if binary:
        return ["entailment", "not_entailment"]
    return list(corpus.labels) if corpus.labels else sorted(set(y_train))


def _fit_predict(model_name: str, params: dict, X_train, y_train, X_eval):
    model = MODELS[model_name](**params)
    model.fit(X_train, y_train)
    return model, model.predict(X_train), (model.predict(X_eval) if X_eval is not None else None)


def _select_C(X_train, y_train, X_dev, y_dev, config: RunConfig, jobs: int) -> tuple[float, dict, str]:
    """Pick C from the grid by dev accuracy, or by stratified k-fold CV on train (ties: smaller C)."""
    grid = sorted(config.c_grid)
    if X_dev is not None:
        scores = Parallel(n_jobs=jobs)(
            delayed(_dev_accuracy)(C, X_train, y_train, X_dev, y_dev, config.seed) for C in grid)
        how = "dev accuracy"
    else:
        folds = _folds(y_train, config)
        scores = Parallel(n_jobs=jobs)(
            delayed(_cv_accuracy)(C, X_train, y_train, folds, config.seed) for C in grid)
        how = f"{config.cv_folds}-fold stratified CV accuracy on train (seed {config.seed})"
    table = {str(C): float(s) for C, s in zip(grid, scores)}
    best = grid[int(np.argmax(scores))]
    return best, table, how


def _dev_accuracy(C, X_train, y_train, X_dev, y_dev, seed):
    model = MODELS["lr"](C=C, random_state=seed).fit(X_train, y_train)
    return float(np.mean(model.predict(X_dev) == y_dev))


def _folds(y, config: RunConfig):
    counts = np.unique(y, return_counts=True)[1]
    k = max(2, min(config.cv_folds, int(counts.min())))
    return list(StratifiedKFold(k, shuffle=True, random_state=config.seed).split(np.zeros(len(y)), y))


def _cv_accuracy(C, X, y, folds, seed):
    return float(np.mean(_oof_predictions("lr", {"C": C, "random_state": seed}, X, y, folds) == y))


def _oof_predictions(model_name, params, X, y, folds) -> np.ndarray:
    out = np.empty(len(y), dtype=object)
    for train_idx, test_idx in folds:
        model = MODELS[model_name](**params).fit(_take(X, train_idx), y[train_idx])
        out[test_idx] = model.predict(_take(X, test_idx))
    return out


def _take(X, idx):
    return [X[i] for i in idx] if isinstance(X, list) else X[idx]


def run_row(row: Row, data: Data, matrices: dict, featurizer: PairFeaturizer | None, config: RunConfig,
            jobs: int) -> dict:
    """Fit one row and return its part of the record."""
    started = time.perf_counter()
    y_train = _labels(data.train, row.two_class)
    y_sel = _labels(data.selection, row.two_class) if data.selection is not None else None
    y_eval = _labels(data.evaluation, row.two_class) if data.evaluation is not None else None
    min_classes = 1 if row.model == "majority" else 2
    check_training_labels(y_train, min_classes=min_classes)
    labels = _label_set(data.corpus, y_train, row.two_class)
    result: dict = {"name": row.name, "model": row.model, "features": list(row.feature_types),
                    "two_class": row.two_class, "labels": labels}
    if row.model in PAIR_INPUT:
        X_train, X_sel, X_eval = data.train, data.selection, data.evaluation
    elif row.model == "majority":
        X_train, X_sel, X_eval = data.train, data.selection, data.evaluation
    else:
        cols = np.concatenate([np.arange(featurizer.slices_[t].start, featurizer.slices_[t].stop)
                               for t in row.feature_types]) if row.feature_types else np.arange(0)
        whole = len(cols) == featurizer.n_features_out_
        X_train, X_sel, X_eval = (None if m is None else (m if whole else m[:, cols])
                                  for m in (matrices["train"], matrices.get("selection"), matrices.get("evaluation")))
        result["n_columns"] = int(len(cols))
    params: dict = {"random_state": config.seed} if row.model != "majority" else {}
    if row.model == "edit_distance":
        params["n_jobs"] = jobs
    if row.model == "lr":
        C, grid, how = _select_C(X_train, y_train, X_sel, y_sel, config, jobs)
        params["C"] = C
        result["selection"] = {"C": C, "grid": grid, "by": how}
    cv = data.evaluation is None
    if cv:  # no dev split: score out-of-fold predictions on train
        folds = _folds(y_train, config)
        eval_pred = _oof_predictions(row.model, params, X_train, y_train, folds)
        y_eval = y_train
        result["evaluation"] = f"{len(folds)}-fold stratified cross-validation on train (seed {config.seed})"
    model, train_pred, eval_pred_direct = _fit_predict(row.model, params, X_train, y_train, None if cv else X_eval)
    if not cv:
        eval_pred = eval_pred_direct
    result["metrics"] = {"train": {"accuracy": float(np.mean(train_pred == y_train)), "pairs": len(y_train)},
                         data.eval_name: evaluate(y_eval, eval_pred, labels)}
    if row.model == "edit_distance":
        result["edit_distance"] = {"weights": model.weights_, "threshold": model.threshold_}
    if row.model == "lr" and config.top_features:
        result["top_features"] = top_features(model, featurizer, cols, config.top_features)
    result["seconds"] = time.perf_counter() - started
    result["_predictor"] = Predictor(
        row.model, model, featurizer if row.model == "lr" else None,
        None if row.model != "lr" or len(cols) == featurizer.n_features_out_ else cols, labels, row.two_class,
        {"dataset": data.corpus.name, "features": list(row.feature_types), "C": params.get("C"),
         "train_pairs": len(y_train)})
    return result


def top_features(model, featurizer: PairFeaturizer, cols: np.ndarray, k: int) -> dict:
    """Per class, the k highest-weighted columns as (readable name, weight)."""
    weights = model.class_weights()
    out = {}
    for label, row in zip(model.classes_, weights):
        best = np.argsort(-row, kind="stable")[:k]
        out[str(label)] = [[featurizer.feature_name(int(cols[i])), float(row[i])] for i in best]
    return out


def run(config: RunConfig, log=None) -> dict:
    """Run the configured experiment; returns the JSON-able record (fitted models under `_models`)."""
    log = log or (lambda message: print(message, file=sys.stderr) if config.progress else None)
    timings: dict = {}
    corpus = config.corpus()
    rows = plan_rows(config, corpus)
    started = time.perf_counter()
    data = load_data(config, corpus, log)
    timings["load_and_annotate"] = time.perf_counter() - started
    featurizer, matrices = None, {}
    lr_types = sorted({t for r in rows if r.model == "lr" for t in r.feature_types},
                      key=list(features.FEATURE_TYPES).index)
    if lr_types:
        started = time.perf_counter()
        featurizer = PairFeaturizer(features=lr_types, lowercase=config.lowercase, tag_match=config.tag_match,
                                    scale=config.scale, bleu_smoothing=config.bleu_smoothing,
                                    min_count=config.min_count)
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
    config_dict = asdict(config)
    record = {
        "suite_version": __version__,
        "command": sys.argv,
        "config": config_dict,
        "seed": config.seed,
        "data": {"dataset": corpus.name, "files": data.files, "splits": data.counts,
                 "train_subsample": data.train_subsample, "eval_split": data.eval_name},
        "features": {"active": lr_types, "ablated": list(config.ablate),
                     "n_columns": featurizer.n_features_out_ if featurizer else 0,
                     "bleu_signature": bleu_signature(config) if "bleu" in lr_types else None},
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
    metric = sacrebleu.metrics.BLEU(tokenize="none", effective_order=True, lowercase=config.lowercase,
                                    smooth_method=config.bleu_smoothing)
    metric.sentence_score("a", ["a"])  # the signature needs the number of references, known after a call
    return str(metric.get_signature())


def annotate_split(corpus: Corpus, split: str, config: RunConfig) -> list:
    """The pairs of a (possibly unlabeled) split, with tokens and tags."""
    data = corpus.load(split, resolve_data_dir(config.data_dir), config.on_bad_row)
    return annotate(data.pairs, progress=config.progress, jobs=config.jobs)


def _progress(items, desc: str, enabled: bool):
    from tqdm.auto import tqdm
    return tqdm(items, desc=desc, disable=not enabled, leave=False)
