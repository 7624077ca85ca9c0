"""Points of a learning curve: configs, plan, fit (rows sliced from one feature matrix), resume, aggregate.

A config is a model and its feature types: `lexicalized` (logistic regression on a feature
group or type), `lexicalized+negation` (several, joined by `+`), `MODEL:FEATURES` for another
model that reads the feature matrix, or the name of a model that reads pairs (`edit_distance`).

A point is (config, size, seed). Its training sample is `size` pairs drawn without replacement
from the training split by `numpy.random.default_rng([seed, size])`; a size at or above the
split's size is the whole split (clipped, and said so), which makes every seed's sample the same,
so that fit is done once and recorded for each seed. Every point is scored on the whole
evaluation split, with hyperparameters chosen as `experiments/run.py` chooses them.
"""
from __future__ import annotations

import csv
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import features
from experiments.engine.selection import candidate_label, tune
from features.atomic import atomic_open
from features.registry import describe
from models import DEFAULT_MODEL, MODELS, ModelSpec, get_model
from models.majority import MajorityClassifier

CSV_FIELDS = ("config", "size", "requested_size", "seed", "train_accuracy", "eval_accuracy", "fit_seconds", "chosen")


@dataclass(frozen=True)
class CurveConfig:
    """One curve: `name` as given on the command line, the model's spec (carried along, so worker
    processes need no registry), and the feature types it reads."""

    name: str
    spec: ModelSpec
    feature_types: tuple[str, ...]

    @property
    def title(self) -> str:
        if not self.spec.uses_features:
            return self.spec.title
        what = describe(self.feature_types)
        return what if self.spec.name == DEFAULT_MODEL else f"{self.spec.title}: {what}"


def parse_config(text: str) -> CurveConfig:
    """`lexicalized`, `lexicalized+negation`, `MODEL:FEATURES` or a pairs model's name; else ValueError."""
    text = text.strip()
    model, sep, feats = text.partition(":")
    if not sep:
        if text in MODELS and not MODELS[text].uses_features:
            return CurveConfig(text, MODELS[text], ())
        model, feats = DEFAULT_MODEL, text
    spec = get_model(model)
    if not spec.uses_features:
        raise ValueError(f"model {model!r} reads no features; give it as a config of its own: {model}")
    return CurveConfig(text, spec, tuple(features.resolve(feats.split("+"))))


@dataclass(frozen=True)
class Point:
    config: str
    size: int            # effective (clipped) size
    requested: str       # as asked: a number or "all"
    seed: int

    @property
    def key(self) -> tuple[str, int, int]:
        return self.config, self.size, self.seed


def parse_sizes(text: str, n_train: int) -> tuple[list[tuple[str, int]], list[str]]:
    """[(requested, effective size)], one per distinct effective size, and notes about clipping."""
    out: dict[int, str] = {}
    notes = []
    items = [s.strip() for s in text.split(",") if s.strip()]
    if not items:
        raise ValueError("no sizes given (e.g. 1,10,100,all)")
    for item in items:
        if item != "all" and not item.isdigit():
            raise ValueError(f"{item!r} is not a size: give whole numbers or 'all'")
        size = n_train if item == "all" else int(item)
        if size < 1:
            raise ValueError(f"sizes must be at least 1, got {size}")
        if size > n_train:
            notes.append(f"size {size} is larger than the training split ({n_train} pairs): clipped to {n_train}")
            size = n_train
        if size not in out or item == "all":
            out[size] = item
    return [(requested, size) for size, requested in sorted(out.items())], notes


def plan(configs: list[str], sizes: list[tuple[str, int]], seeds: int) -> list[Point]:
    return [Point(c, size, requested, seed) for c in configs for requested, size in sizes for seed in range(seeds)]


def sample(n_train: int, size: int, seed: int) -> np.ndarray:
    if size >= n_train:
        return np.arange(n_train)
    return np.sort(np.random.default_rng([seed, size]).choice(n_train, size, replace=False))


def fit_point(point: Point, config: CurveConfig, inputs: dict, run_config) -> dict:
    """Fit one point on its sample and score it on the evaluation split.

    inputs: {"X": (train, selection or None, eval), "y": (train, selection or None, eval)} of this
        point's config (pairs instead of matrices for models that read pairs).
    run_config: the `RunConfig` whose seed, C grid and CV folds every point shares.
    """
    X_train, X_sel, X_eval = inputs["X"]
    y_train, y_sel, y_eval = inputs["y"]
    idx = sample(len(y_train), point.size, point.seed)
    Xs = [X_train[i] for i in idx] if isinstance(X_train, list) else X_train[idx]
    ys = y_train[idx]
    started = time.perf_counter()
    spec = config.spec
    chosen, kept = "", None
    if len(set(ys)) < spec.min_classes:
        model = MajorityClassifier()  # a sample with one class predicts it
    else:
        model = spec.build(seed=run_config.seed)
        if spec.tuning is not None:
            selection = tune(spec, model, run_config.grids, Xs, ys, X_sel, y_sel,
                             cv_folds=run_config.cv_folds, seed=run_config.seed)
            chosen = candidate_label(selection.chosen)
            kept = selection.model  # the chosen candidate's fit on this sample, when selection kept it
    model = kept if kept is not None else model.fit(Xs, ys)
    seconds = time.perf_counter() - started
    return {"config": point.config, "size": point.size, "requested_size": point.requested, "seed": point.seed,
            "train_accuracy": float(np.mean(model.predict(Xs) == ys)),
            "eval_accuracy": float(np.mean(model.predict(X_eval) == y_eval)),
            "fit_seconds": seconds, "chosen": chosen}


def read_points(path: Path) -> tuple[dict, int]:
    """Finished points keyed by (config, size, seed), and how many malformed lines were dropped
    (e.g. a line cut short when a run was interrupted)."""
    done, dropped = {}, 0
    if not path.exists():
        return done, dropped
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        for row in reader:
            try:
                row = {"config": row["config"], "size": int(row["size"]), "requested_size": row["requested_size"],
                       "seed": int(row["seed"]), "train_accuracy": float(row["train_accuracy"]),
                       "eval_accuracy": float(row["eval_accuracy"]), "fit_seconds": float(row["fit_seconds"]),
                       "chosen": row["chosen"]}
            except (KeyError, TypeError, ValueError):
                dropped += 1
                continue
            done[(row["config"], row["size"], row["seed"])] = row
    return done, dropped


def write_points(path: Path, rows: list[dict], order: list[str] = ()) -> None:
    """Rewrite the CSV atomically with every point, sorted by config (in `order`), size and seed."""
    rank = {name: i for i, name in enumerate(order)}
    with atomic_open(path) as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_FIELDS)
        writer.writeheader()
        for row in sorted(rows, key=lambda r: (rank.get(r["config"], len(rank)), r["config"], r["size"], r["seed"])):
            writer.writerow({k: row[k] for k in CSV_FIELDS})


def aggregate(rows: list[dict]) -> dict:
    """{config: [{size, requested_size, seeds, eval mean/std, train mean/std, fit seconds mean}]}."""
    out: dict = {}
    for config in dict.fromkeys(r["config"] for r in rows):
        points = []
        for size in sorted({r["size"] for r in rows if r["config"] == config}):
            group = [r for r in rows if r["config"] == config and r["size"] == size]
            ev = np.array([r["eval_accuracy"] for r in group])
            tr = np.array([r["train_accuracy"] for r in group])
            points.append({"size": size, "requested_size": group[0]["requested_size"], "seeds": len(group),
                           "eval_mean": float(ev.mean()), "eval_std": float(ev.std()),
                           "train_mean": float(tr.mean()), "train_std": float(tr.std()),
                           "fit_seconds_mean": float(np.mean([r["fit_seconds"] for r in group]))})
        out[config] = points
    return out
