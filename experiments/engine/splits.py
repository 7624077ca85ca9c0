"""The splits of a run: train (optionally a seeded sample), the split that selects
hyperparameters, and the split that is scored, annotated with tokens and tags."""
from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from nli_baselines.features.labels import two_class
from nli_baselines.features.pair import MAX_PAIRWISE_TOKENS, describe_too_long, too_long
from nli_baselines.features.text.annotation import AnnotationSource, annotate

from ..corpora import Corpus, resolve_data_dir
from ..corpora.hub import is_hub_dataset
from ..corpora.readers.common import reading_progress
from ..outputs.records import sha256_file
from nli_baselines.experiments.configuration.config import RunConfig
from nli_baselines.experiments.configuration.errors import UsageError


@dataclass
class Splits:
    """Annotated pairs of a run and an account of where they came from.

    selection: the dev split that chooses hyperparameters, or None: cross-validate on train.
    evaluation: the split to score, or None: score out-of-fold predictions on train.
    """

    corpus: Corpus
    train: list
    selection: list | None
    evaluation: list | None
    eval_name: str
    files: dict
    counts: dict
    train_subsample: dict
    fields: dict = None  # the training file's columns read (custom corpora): premise, hypothesis, label, id
    annotation: AnnotationSource | None = None  # how the training pairs got their tokens and tags


def load_splits(config: RunConfig, corpus: Corpus, log=lambda message: None, lemmas: bool = False,
                pairwise: tuple[str, ...] = ()) -> Splits:
    """Read, sample and annotate the splits `config` asks for; user errors raise UsageError.

    lemmas: also give every pair lemmas (a model or feature type reads them).
    pairwise: the run's feature types that cross every premise token with every hypothesis token:
        a pair with a sentence longer than they take is a bad row (an error, or skipped and counted).
    """
    data_dir = resolve_data_dir(config.data_dir)
    loaded, files, counts = {}, {}, {}
    if "train" not in corpus.splits:
        raise UsageError(f"{corpus.name} has no training split to learn from (splits: {', '.join(corpus.splits)})"
                         + ("; give --train-file" if corpus.name == "custom" else
                            "; name one with --train-split" if is_hub_dataset(corpus.name) else ""))

    def load(split):
        if split not in loaded:
            # The record's checksum of the file is computed on a thread while the reader reads it
            # (hashlib releases the GIL): ~0.35 s of an SNLI-sized training file.
            located = corpus.locate(split, data_dir) if split in corpus.files and corpus.generate is None else None
            refused = threading.Event()  # a file the reader refuses (past a read bound, say) is not hashed on
            with ThreadPoolExecutor(1) as hashing:
                digest = hashing.submit(sha256_file, located, stop=refused) \
                    if located is not None and located.is_file() else None
                try:
                    with reading_progress(config.progress):  # an SNLI-sized file takes seconds
                        data = corpus.load(split, data_dir, config.on_bad_row)
                except BaseException:
                    refused.set()
                    raise
                files[split] = [{"path": str(p), "sha256": digest.result() if digest and Path(p) == located
                                 else sha256_file(p)} for p in data.paths]
            data.raw_pairs = data.pairs
            if config.label_map:
                data.pairs = [p if p.label is None else p.with_label(config.label_map.get(p.label, p.label))
                              for p in data.pairs]
            loaded[split] = data
            counts[split] = {"rows": data.rows, "pairs": len(data.pairs), "skipped": dict(data.skipped)}
            if data.source:  # a Hugging Face dataset: its name, config, revision or fingerprint, its split
                counts[split]["source"] = dict(data.source)
            if data.notes:
                counts[split]["notes"] = list(data.notes)
        return loaded[split]

    train = load("train")
    if config.label_map:  # a key that no gold label has would map nothing, silently
        raw = set()
        for split_data in loaded.values():
            raw |= {p.label for p in split_data.raw_pairs if p.label is not None}
        config.check_label_map(raw)
    if not train.pairs:
        raise UsageError(f"the training split of {corpus.name} has no pairs")
    _require_labels(train, "training", "learn from")
    dev_name = corpus.dev_split if corpus.dev_split and corpus.locate_or_generated(corpus.dev_split, data_dir) else None
    selection = load(dev_name).pairs if dev_name else None
    if dev_name:
        _require_labels(loaded[dev_name], "dev", "choose settings and score on")
    if config.eval_split == "dev":
        eval_name = dev_name or f"cv{_folds(train.pairs, config.cv_folds, corpus.task)}(train)"
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
    seen = {p.label for p in train.pairs}
    for name, data in loaded.items():
        if corpus.task.is_scores:
            break  # a score need not occur in training: any number in the task's range is a target
        unseen = sorted({p.label for p in data.pairs if p.label is not None} - seen)
        if name != "train" and unseen:
            where = f"the {name} split ({data.paths[0]})" if data.paths else f"the {name} split"
            message = (f"{where} has label(s) {', '.join(map(repr, unseen))} that never occur in training, so every "
                       f"such pair would be scored wrong")
            if not config.allow_unseen_labels:
                raise UsageError(message + "; map labels with --label-map, or pass --allow-unseen-labels")
            counts[name].setdefault("notes", []).append(message)
    sub = {"requested": config.train_size, "available": len(train.pairs), "used": len(train.pairs)}
    pairs = train.pairs
    if config.train_size is not None:
        if config.train_size < len(pairs):
            keep = np.sort(np.random.default_rng(config.seed).choice(len(pairs), config.train_size, replace=False))
            pairs = [pairs[i] for i in keep]
        else:
            sub["clipped"] = True
        sub["used"] = len(pairs)
    started = time.perf_counter()
    source = AnnotationSource.of(pairs, corpus.name)  # what a saved model records, and its doors repeat
    # One annotate call for all splits: one tagger load, one cache read.
    groups = [pairs, selection or [], [] if evaluation is selection else evaluation or []]
    tagged = annotate([p for group in groups for p in group], progress=config.progress, jobs=config.jobs,
                      lemmas=lemmas, stats=(tag_stats := {}), max_tokens=MAX_PAIRWISE_TOKENS if pairwise else None)
    bounds = np.cumsum([0] + [len(group) for group in groups])
    train_a, sel_a, eval_a = (tagged[a:b] for a, b in zip(bounds[:-1], bounds[1:]))
    if pairwise:
        names = ["train", dev_name, eval_name if evaluation is not selection else None]
        train_a, sel_a, eval_a = (_drop_too_long(group, name, loaded, counts, pairwise, config.on_bad_row)
                                  for group, name in zip((train_a, sel_a, eval_a), names))
    sel_a = sel_a if selection is not None else None
    eval_a = sel_a if evaluation is selection else eval_a if evaluation is not None else None
    log(f"annotated {tag_stats['sentences']} sentences needing tags ({tag_stats['cached']} cached, "
        f"{tag_stats['tagged']} tagged) in {time.perf_counter() - started:.1f}s")
    return Splits(corpus, train_a, sel_a, eval_a, eval_name, files, counts, sub, dict(train.fields), source)


def _drop_too_long(pairs: list, split: str | None, loaded: dict, counts: dict, types, on_bad_row: str) -> list:
    """The pairs the pairwise feature types can take; the others stop the run, or are skipped and counted."""
    long = set(too_long(pairs))
    if not long:
        return pairs
    data = loaded.get(split)
    where = f"{data.paths[0]}: " if data is not None and data.paths else ""
    if on_bad_row == "error":
        raise UsageError(where + describe_too_long(pairs[min(long)], types))
    if split in counts:
        skipped = counts[split].setdefault("skipped", {})
        skipped["too many tokens for the pairwise features"] = len(long)
        counts[split]["pairs"] -= len(long)
    return [p for i, p in enumerate(pairs) if i not in long]


def _folds(pairs, asked: int, task) -> int:
    """The folds a cross-validation on these pairs runs (fewer than asked when a class is small)."""
    if task.is_scores:
        return max(2, min(asked, len(pairs)))
    counts = np.unique([p.label for p in pairs if p.label is not None], return_counts=True)[1]
    return max(2, min(asked, int(counts.min()))) if len(counts) else asked


def labels_of(pairs, binary: bool) -> np.ndarray | None:
    """Gold labels as an object array, mapped to entailment / not_entailment when `binary`."""
    if pairs is None:
        return None
    return np.array([two_class(p.label) if binary else p.label for p in pairs], dtype=object)


def targets_of(pairs, task, binary: bool = False, where: str = "") -> np.ndarray | None:
    """Gold values as the models take them: labels (`labels_of`), or a score task's scores as
    float64 (`Task.targets`: a value that is no number, or outside the task's range, is a
    UsageError naming `where`)."""
    if pairs is None:
        return None
    if not task.is_scores:
        return labels_of(pairs, binary)
    try:
        return task.targets([p.label for p in pairs], where=f"{where}: " if where else "")
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _require_labels(data, what: str, purpose: str) -> None:
    """A split the run learns from or chooses on must be labeled; say which file and which column."""
    unlabeled = sum(p.label is None for p in data.pairs)
    if not unlabeled:
        return
    where = f" ({data.paths[0]})" if data.paths else ""
    detail = f"{unlabeled} of its {len(data.pairs)} pairs have no label"
    if data.columns:
        detail += f"; its columns are {', '.join(data.columns)} (the label column is set by --label-column)"
    raise UsageError(f"the {what} split{where} needs gold labels to {purpose}: {detail}")

def score_range(task, y_train: np.ndarray) -> tuple[float, float] | None:
    """The range a regressor's predictions are clipped to: the task's, else the training scores'."""
    if task.score_range is not None:
        return task.score_range
    low, high = float(np.min(y_train)), float(np.max(y_train))
    return (low, high) if low < high else None
