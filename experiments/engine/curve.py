"""Learning curves: a point is a run's row fitted on a sample of the training split.

The rows are planned as a run plans them (`--configs`, or `--model`/`--features`), the splits are
featurized once, and each point (row, size, seed) goes through the run's own `run_row` on the
training pairs `sample(n_train, size, seed)` indexes: `size` pairs drawn without replacement by
`numpy.random.default_rng([seed, size])`. A size at or above the split's size is the whole split
(clipped, and said so), which makes every seed's sample the same, so that fit is done once and
recorded for each seed. Every point is scored on the whole evaluation split, with
hyperparameters chosen as a run chooses them.

With an output directory, points are saved as they finish, and the same call resumes: points
already in `curve.csv` are reused when `run.json` records the same settings and data.
"""
from __future__ import annotations

import csv
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed

from nli_baselines._version import __version__
from nli_baselines.experiments.configuration.config import RunConfig
from nli_baselines.experiments.configuration.errors import UsageError
from nli_baselines.features.storage.atomic import atomic_open

from ..outputs.records import versions, write_json_atomic
from .experiment import default_log, majority_reference, prepare, progress, run_row
from .parallel import grid_backend, n_jobs, shared
from .rows import Row, plan_rows
from .selection import judge
from .splits import labels_of

CSV_FIELDS = ("config", "size", "requested_size", "seed", "train_accuracy", "eval_accuracy", "fit_seconds", "chosen")


def csv_fields(metric: str = "accuracy") -> tuple[str, ...]:
    """The columns of curve.csv: a point's training and evaluation figures are named by the
    task's selection metric (`train_accuracy`, `eval_accuracy`; `eval_f1`, `eval_mean_of_pearson_spearman`)."""
    return tuple(f.replace("accuracy", metric) for f in CSV_FIELDS)


def _figures(metric: str) -> tuple[str, str]:
    return f"train_{metric}", f"eval_{metric}"
SAMPLING = "numpy.random.default_rng([seed, size]), without replacement; sizes >= the split are the whole split"


@dataclass(frozen=True)
class Point:
    config: str
    size: int            # effective (clipped) size
    requested: str       # as asked: a number or "all"
    seed: int

    @property
    def key(self) -> tuple[str, int, int]:
        return self.config, self.size, self.seed


def parse_sizes(items, n_train: int) -> tuple[list[tuple[str, int]], list[str]]:
    """[(requested, effective size)], one per distinct effective size, and notes about clipping.

    items: sizes as the options table checked them ("1", "100", "all")."""
    out: dict[int, str] = {}
    notes = []
    for item in items:
        size = n_train if item == "all" else int(item)
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


def fit_point(point: Point, row: Row, shared_prepared, config: RunConfig) -> dict:
    """One point: the row fitted on its sample, scored on the evaluation split.

    shared_prepared: a `parallel.shared` handle to the run's `Prepared`."""
    prepared = shared_prepared.get()
    n_train = len(prepared.data.train)
    outcome = run_row(row, prepared, config, 1, sample=sample(n_train, point.size, point.seed), keep=False)
    result = outcome.result
    chosen = result.get("selection", {}).get("chosen", {})
    metric = prepared.data.corpus.task.selection_metric
    train, evaluation = _figures(metric)
    return {"config": point.config, "size": point.size, "requested_size": point.requested, "seed": point.seed,
            train: result["metrics"]["train"][metric], evaluation: result["metrics"][prepared.data.eval_name][metric],
            "fit_seconds": result["seconds"], "chosen": ", ".join(f"{k}={v}" for k, v in chosen.items())}


@dataclass
class CurveOutcome:
    """What `learning_curve` returns: every point, the aggregated table, the rows, and the record."""

    points: list[dict]
    table: dict
    rows: list[Row]
    record: dict
    notes: list[str] = field(default_factory=list)


def learning_curve(config: RunConfig, out: Path | str | None = None, *, overwrite: bool = False,
                   log=None) -> CurveOutcome:
    """Fit every point of the curves `config` asks for (`RunConfig("curve", ...)`).

    out: a directory for curve.csv (points, saved as they finish) and run.json (the settings and
        data the points depend on); the same call resumes from it. Points computed under other
        settings or data are refused, or discarded with `overwrite`.
    """
    log = log or default_log(config)
    notes: list[str] = list(config.notes)
    corpus = config.corpus()
    rows = plan_rows(config, corpus, notes)
    started = time.perf_counter()
    prepared = prepare(config, rows, log)
    data = prepared.data
    if data.evaluation is None:
        raise UsageError(f"{corpus.name} has no dev split to score points on; use --eval-split test")
    sizes, size_notes = parse_sizes(config.sizes, len(data.train))
    notes += size_notes
    for note in size_notes:
        log(note)
    signature = {"suite_version": __version__, "eval_split": data.eval_name, "files": data.files,
                 "options": config.signature()}
    task = data.corpus.task
    metric = task.selection_metric
    done: dict = {}
    csv_path = None
    if out is not None:
        out = Path(out)
        csv_path = out / "curve.csv"
        done = _resume(out, signature, overwrite, log, metric)
    names = [r.name for r in rows]
    by_name = {r.name: r for r in rows}
    points = plan(names, sizes, config.seeds)
    todo = [p for p in points if p.key not in done]
    n_train = len(data.train)
    # A clipped size gives every seed the whole split: fit once, record it for each seed.
    unique = list({(p.config, p.size, p.seed if p.size < n_train else -1): p for p in todo}.values())
    # Largest samples first: the whole-split fits are the longest, and started last they would
    # leave one worker running alone at the end.
    unique.sort(key=lambda p: -p.size)
    log(f"{len(points)} points: {len(points) - len(todo)} reused, {len(unique)} to fit")
    if unique:
        jobs = n_jobs(config.backend, config.jobs)
        with grid_backend(config.backend, config.scheduler), shared(prepared, config.backend, jobs) as handle:
            results = Parallel(n_jobs=jobs, return_as="generator_unordered")(
                delayed(fit_point)(p, by_name[p.config], handle, config) for p in unique)
            for point in progress(results, "points", config.progress, total=len(unique)):
                for p in todo:
                    if p.config == point["config"] and p.size == point["size"] and \
                            (p.seed == point["seed"] or p.size >= n_train):
                        done[p.key] = {**point, "seed": p.seed, "requested_size": p.requested}
                if csv_path is not None:
                    write_points(csv_path, list(done.values()), names, metric)
    chosen = [done[p.key] for p in points]
    table = aggregate(chosen, n_train, metric)
    reference = majority_reference(rows, data, config)
    classes = None if task.is_scores else len(set(labels_of(data.train, rows[0].two_class)))
    record = {"dataset": corpus.name, "eval_split": data.eval_name, "train_pairs": n_train, "classes": classes,
              "task": task.record(), "metric": metric,
              "eval_pairs": len(data.evaluation), "configs": names,
              "titles": {r.name: r.title for r in rows}, "sizes": [s for s, _ in sizes], "seeds": config.seeds,
              "notes": notes, "curve": table, "reference": reference, "points_computed": len(unique),
              "points_reused": len(points) - len(todo), "featurize_seconds": prepared.timings.get("featurize", 0.0),
              "total_seconds": time.perf_counter() - started, "sampling": SAMPLING, "config": config.to_dict(),
              "versions": versions(), "signature": signature,
              "chosen_by": tuning_judges(rows, [size for _, size in sizes], config.tune_on,
                                         None if data.selection is None else len(data.selection))}
    return CurveOutcome(chosen, table, rows, record, notes)


def tuning_judges(rows, sizes: list[int], tune_on: str, n_selection: int | None) -> dict:
    """Per config and size, what chose its settings: "dev" or "cv" (k-fold CV on the training
    sample), as `selection.judge` decides for a sample of that size; models without settings to
    choose are left out. What plots and the lab say about how C was chosen."""
    return {row.name: {str(size): judge(row.spec, tune_on, size, n_selection) for size in sizes}
            for row in rows if row.spec.tuning is not None}


def _resume(out: Path, signature: dict, overwrite: bool, log, metric: str = "accuracy") -> dict:
    """Points of an earlier run with the same signature (run.json), else {} (or refuse)."""
    out.mkdir(parents=True, exist_ok=True)
    sig_path, csv_path = out / "run.json", out / "curve.csv"
    earlier = None
    if sig_path.exists():
        try:
            earlier = json.loads(sig_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise UsageError(f"{sig_path}: unreadable ({type(exc).__name__}: {exc}); it records the settings of "
                             "the points in this directory: use another --out, or pass --overwrite") from None
    if earlier is not None and earlier != signature:
        if not overwrite:
            differ = _differences(earlier, signature)
            raise UsageError(f"{out} holds points computed with other settings or data ({differ}); "
                             "use another --out, or pass --overwrite to discard them")
        csv_path.unlink(missing_ok=True)
    elif earlier is None and csv_path.exists():
        if not overwrite:
            raise UsageError(f"{csv_path} exists without the run.json that says how its points were computed; "
                             "use another --out, or pass --overwrite to discard them")
        csv_path.unlink()
    write_json_atomic(sig_path, signature)
    done, dropped = read_points(csv_path, metric)
    if dropped:
        log(f"{csv_path}: {dropped} malformed line(s) dropped (an interrupted write); those points are recomputed")
    return done


def _differences(earlier, now) -> str:
    if not isinstance(earlier, dict):
        return "run.json is not a settings record"
    keys = []
    for key in sorted(set(earlier) | set(now)):
        if key == "options" and isinstance(earlier.get(key), dict):
            keys += [f"--{k.replace('_', '-')}" for k in sorted(set(earlier[key]) | set(now[key]))
                     if earlier[key].get(k) != now[key].get(k)]
        elif earlier.get(key) != now.get(key):
            keys.append({"files": "the data files", "suite_version": "the suite version"}.get(key, key))
    return "differs in " + ", ".join(keys) if keys else "differs"


def read_points(path: Path, metric: str = "accuracy") -> tuple[dict, int]:
    """Finished points keyed by (config, size, seed), and how many malformed lines were dropped
    (e.g. a line cut short when a run was interrupted)."""
    train, evaluation = _figures(metric)
    done, dropped = {}, 0
    if not path.exists():
        return done, dropped
    try:
        handle = open(path, newline="", encoding="utf-8")
        with handle:
            for row in csv.DictReader(handle):
                try:
                    row = {"config": row["config"], "size": int(row["size"]), "requested_size": row["requested_size"],
                           "seed": int(row["seed"]), train: _figure(row[train]), evaluation: _figure(row[evaluation]),
                           "fit_seconds": float(row["fit_seconds"]), "chosen": row["chosen"]}
                except (KeyError, TypeError, ValueError):
                    dropped += 1
                    continue
                done[(row["config"], row["size"], row["seed"])] = row
    except (UnicodeDecodeError, csv.Error) as exc:
        raise UsageError(f"{path}: not a curve file of this suite ({type(exc).__name__}: {exc}); "
                         "use another --out, or pass --overwrite") from None
    return done, dropped


def _figure(text: str) -> float | None:
    """A point's figure as its CSV cell writes it: a number, or empty where it is undefined (a
    correlation of constant predictions); anything else is a malformed line (ValueError)."""
    return None if text == "" else float(text)


def write_points(path: Path, rows: list[dict], order: list[str] = (), metric: str = "accuracy") -> None:
    """Rewrite the CSV atomically with every point, sorted by config (in `order`), size and seed."""
    rank = {name: i for i, name in enumerate(order)}
    fields = csv_fields(metric)
    with atomic_open(path) as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        for row in sorted(rows, key=lambda r: (rank.get(r["config"], len(rank)), r["config"], r["size"], r["seed"])):
            writer.writerow({k: row[k] for k in fields})


def aggregate(rows: list[dict], n_train: int | None = None, metric: str = "accuracy") -> dict:
    """{config: [{size, requested_size, seeds, eval mean/std, train mean/std, fit seconds mean}]}.

    n_train: the training split's size; a point of that size is one fit recorded for every seed,
        so it counts once (`seeds` 1, no spread).
    A fit whose figure is undefined (None: a correlation of constant predictions, as a sample of
    one pair gives) is left out of the mean and counted (`undefined`); a size with no defined
    figure has None for its mean and spread."""
    out: dict = {}
    for config in dict.fromkeys(r["config"] for r in rows):
        points = []
        for size in sorted({r["size"] for r in rows if r["config"] == config}):
            group = [r for r in rows if r["config"] == config and r["size"] == size]
            fits = group[:1] if size == n_train else group
            train, evaluation = _figures(metric)
            ev = np.array([r[evaluation] for r in fits if r[evaluation] is not None])
            tr = np.array([r[train] for r in fits if r[train] is not None])
            points.append({"size": size, "requested_size": group[0]["requested_size"], "seeds": len(fits),
                           "eval_mean": float(ev.mean()) if len(ev) else None,
                           "eval_std": float(ev.std()) if len(ev) else None,
                           "train_mean": float(tr.mean()) if len(tr) else None,
                           "train_std": float(tr.std()) if len(tr) else None,
                           "fit_seconds_mean": float(np.mean([r["fit_seconds"] for r in fits])),
                           **({"undefined": len(fits) - len(ev)} if len(ev) < len(fits) else {})})
        out[config] = points
    return out
