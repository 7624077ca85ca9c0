"""Points of a learning curve: plan, fit (rows sliced from one feature matrix), resume, aggregate.

A point is (config, size, seed). Its training sample is `size` pairs drawn without replacement
from the training split by `numpy.random.default_rng([seed, size])`; a size at or above the
split's size is the whole split (clipped, and said so), which makes every seed's sample the same,
so that fit is done once and recorded for each seed. Every point is scored on the whole
evaluation split.
"""
from __future__ import annotations

import csv
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import features
from experiments.runner import _select_C
from models import MODELS

CSV_FIELDS = ("config", "size", "requested_size", "seed", "train_accuracy", "eval_accuracy", "fit_seconds", "C")
CONFIGS = ("lexicalized", "unlexicalized", "unigrams_only", "hypothesis_only", "edit_distance")

# The SNLI paper, Figure 4 (test accuracy %); x = training pairs, "all" = 550,152.
SNLI_PAPER = {
    "lexicalized": {1: 33.3, 10: 40.1, 100: 47.6, 1000: 57.7, 10000: 67.4, 50000: 71.9, 100000: 74.0,
                    250000: 76.8, 550152: 78.2},
    "unlexicalized": {1: 33.4, 10: 43.4, 100: 46.1, 1000: 48.5, 10000: 49.7, 50000: 49.9, 100000: 50.3,
                      250000: 50.5, 550152: 50.4},
}


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
    for item in (s.strip() for s in text.split(",") if s.strip()):
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


def config_types(config: str) -> tuple[str, ...]:
    return () if config == "edit_distance" else tuple(features.resolve(config))


def fit_point(point: Point, inputs: dict, run_config) -> dict:
    """Fit one point on its sample and score it on the evaluation split.

    inputs: {"X": (train, selection or None, eval), "y": (train, selection or None, eval)} of this
        point's config (pairs instead of matrices for edit distance).
    """
    X_train, X_sel, X_eval = inputs["X"]
    y_train, y_sel, y_eval = inputs["y"]
    idx = sample(len(y_train), point.size, point.seed)
    Xs = [X_train[i] for i in idx] if isinstance(X_train, list) else X_train[idx]
    ys = y_train[idx]
    started = time.perf_counter()
    model_name = "edit_distance" if point.config == "edit_distance" else "lr"
    C = ""
    if len(set(ys)) < 2:
        model_name = "majority"  # a sample with one class predicts it
        params = {}
    elif model_name == "lr":
        if X_sel is None and min(np.unique(ys, return_counts=True)[1]) < 2:
            C = 1.0  # too small to cross-validate: the grid's middle
        else:
            C = _select_C(Xs, ys, X_sel, y_sel, run_config, 1)[0]
        params = {"C": C, "random_state": run_config.seed}
    else:
        params = {"random_state": run_config.seed}
    model = MODELS[model_name](**params).fit(Xs, ys)
    seconds = time.perf_counter() - started
    return {"config": point.config, "size": point.size, "requested_size": point.requested, "seed": point.seed,
            "train_accuracy": float(np.mean(model.predict(Xs) == ys)),
            "eval_accuracy": float(np.mean(model.predict(X_eval) == y_eval)),
            "fit_seconds": seconds, "C": C}


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
                       "C": row["C"]}
            except (KeyError, TypeError, ValueError):
                dropped += 1
                continue
            done[(row["config"], row["size"], row["seed"])] = row
    return done, dropped


def write_points(path: Path, rows: list[dict]) -> None:
    """Rewrite the CSV atomically with every point, sorted by config, size and seed."""
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_FIELDS)
        writer.writeheader()
        for row in sorted(rows, key=lambda r: (CONFIGS.index(r["config"]) if r["config"] in CONFIGS else 99,
                                               r["size"], r["seed"])):
            writer.writerow({k: row[k] for k in CSV_FIELDS})
    os.replace(tmp, path)


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

