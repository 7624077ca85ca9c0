"""Pictures of a run: the confusion matrix (labels) or predicted against gold scores (scores),
and the strongest feature weights of each class (or of each direction of a score)."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from sklearn.metrics import ConfusionMatrixDisplay

from nli_baselines.features.storage.atomic import atomic_files, atomic_path, temporary_name

from .published import CURVE_REFERENCES
from .report import metric_title


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "row"


def _save(fig, path: Path, staged: list | None = None) -> Path:
    """Write the figure as PNG: atomically, or staged beside `path` when `staged` collects them."""
    if staged is None:
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format="png", dpi=120, bbox_inches="tight")
        return path
    tmp = temporary_name(path)
    staged.append((path, tmp))
    fig.savefig(tmp, format="png", dpi=120, bbox_inches="tight")
    return path


def plot_row(row: dict, eval_name: str, out_dir: Path | str, prefix: str = "", staged: list | None = None) -> list[Path]:
    """Write `{prefix}confusion.png` (labels) or `{prefix}predicted-vs-gold.png` (scores) and, for
    models with feature weights, `{prefix}top-features.png` (a panel per class, or per direction
    of the score); returns the paths written. staged: see `_save`."""
    # lazy: matplotlib is an extra (plots) and takes a second to import; only drawing needs it
    import matplotlib
    matplotlib.use("Agg")
    # lazy: matplotlib's pyplot, after choosing the Agg backend above
    import matplotlib.pyplot as plt

    out_dir = Path(out_dir)
    written = []
    metrics = row["metrics"][eval_name]
    if "confusion" not in metrics:  # a score task: each scored pair's prediction against its gold score
        gold = np.asarray(row["predictions"]["gold"], dtype=float)
        predicted = np.asarray(row["predictions"]["predicted"], dtype=float)
        fig, ax = plt.subplots(figsize=(5, 5))
        ax.scatter(gold, predicted, s=6, alpha=0.4)
        low, high = min(gold.min(), predicted.min()), max(gold.max(), predicted.max())
        ax.plot([low, high], [low, high], color="black", linewidth=0.6, linestyle="--", label="predicted = gold")
        shown = {name: "n/a" if metrics.get(name) is None else f"{100 * metrics[name]:.1f}"  # n/a: undefined
                 for name in ("pearson", "spearman")}
        ax.set_title(f"{row['name']} on {eval_name}: Pearson {shown['pearson']}, Spearman {shown['spearman']} "
                     f"({metrics['pairs']} pairs)", fontsize=9)
        ax.set_xlabel("gold score")
        ax.set_ylabel("predicted score")
        ax.legend(fontsize=8, loc="upper left")
        written.append(_save(fig, out_dir / f"{prefix}predicted-vs-gold.png", staged))
        plt.close(fig)
    else:
        labels = metrics["confusion"]["labels"]
        fig, ax = plt.subplots(figsize=(2.2 + 1.3 * len(labels), 1.8 + 1.2 * len(labels)))
        ConfusionMatrixDisplay(np.array(metrics["confusion"]["matrix"]), display_labels=labels).plot(
            ax=ax, cmap="Blues", colorbar=False, values_format="d")
        ax.set_title(f"{row['name']} on {eval_name}: accuracy {100 * metrics['accuracy']:.1f}% "
                     f"({metrics['pairs']} pairs)", fontsize=9)
        ax.set_xlabel("predicted")
        ax.set_ylabel("gold")
        written.append(_save(fig, out_dir / f"{prefix}confusion.png", staged))
        plt.close(fig)
    top = row.get("top_features", {})
    if top:
        tallest = max(len(features) for features in top.values())
        fig, axes = plt.subplots(len(top), 1, figsize=(7.5, len(top) * (0.8 + 0.3 * tallest)), squeeze=False)
        for ax, (label, features) in zip(axes[:, 0], top.items()):
            names = [name for name, _ in features][::-1]
            weights = [weight for _, weight in features][::-1]
            ax.barh(range(len(names)), weights, color=["tab:blue" if w > 0 else "tab:red" for w in weights])
            ax.set_yticks(range(len(names)), names, fontsize=8)
            ax.axvline(0, color="black", linewidth=0.6)
            ax.set_title(f"the {len(names)} strongest features for {label}", fontsize=9)
        axes[-1, 0].set_xlabel("weight")
        fig.suptitle(f"{row['name']}: feature weights per class", fontsize=10)
        fig.tight_layout(rect=(0, 0, 1, 1 - 0.35 / fig.get_size_inches()[1]))  # room for the title
        written.append(_save(fig, out_dir / f"{prefix}top-features.png", staged))
        plt.close(fig)
    return written


def _prefix(name: str, n_rows: int) -> str:
    return "" if n_rows == 1 else f"{_safe(name)}-"


def plot_names(row_names: list[str], scores: bool = False) -> list[str]:
    """The files `plot_rows` may write for rows of these names (checked before a run starts);
    scores: the rows predict scores (a scatter of predicted against gold, not a confusion matrix)."""
    first = "predicted-vs-gold" if scores else "confusion"
    return [f"{_prefix(name, len(row_names))}{kind}.png" for name in row_names for kind in (first, "top-features")]


def plot_rows(record: dict, out_dir: Path | str) -> list[Path]:
    """The pictures of every row of a run (a table's rows get their names as prefixes)."""
    rows = record["rows"]
    written = []
    with atomic_files(out_dir) as staged:  # all the pictures, or none (a full disk leaves no half set)
        for row in rows:
            written += plot_row(row, record["data"]["eval_split"], Path(out_dir), _prefix(row["name"], len(rows)),
                                staged)
    return written


def plot_curve_record(record: dict, out_dir: Path, reference: str | None = None) -> list[Path]:
    """curve.png and curve.svg of a learning curve's record (`curve.json`), with the published
    points of `reference` ("snli-paper") for the curves that have them."""
    table = record["curve"]
    n_classes = record["classes"]
    metric = record.get("metric", "accuracy")
    majority = record.get("reference", {}).get("majority", {}).get(f"{n_classes}-class", {}).get(metric)
    points, label = CURVE_REFERENCES.get(reference, (None, ""))
    seeds = record["seeds"]
    title = (f"Learning curve on {record['dataset']} ({record['train_pairs']:,} training pairs; "
             f"{record['eval_split']} split)")
    subtitle = f"mean \u00b1 std over {seeds} samples per size; {how_chosen(record)}"
    return plot_curve(table, Path(out_dir), title=title, eval_name=record["eval_split"], n_classes=n_classes,
                      titles=record.get("titles"), reference=points, reference_label=label, subtitle=subtitle,
                      majority=majority, metric=metric_title(metric) if metric != "accuracy" else "accuracy (%)")


def how_chosen(record: dict) -> str:
    """How the curve's settings (C) were chosen, in words, from the record's `chosen_by`."""
    by_size: dict = {}
    for sizes in record.get("chosen_by", {}).values():
        for size, judge in sizes.items():
            by_size.setdefault(judge, set()).add(int(size))
    folds = record.get("config", {}).get("cv_folds", 5)
    if not by_size:
        return "no settings to choose"
    if set(by_size) == {"dev"}:
        return f"settings chosen on {record['eval_split']}"
    if set(by_size) == {"cv"}:
        return f"settings chosen by {folds}-fold CV on each training sample"
    cv = sorted(by_size["cv"])
    return (f"settings by {folds}-fold CV on the sample at {', '.join(f'{size:,}' for size in cv)} pairs, "
            f"else on {record['eval_split']}")


def plot_curve(table: dict, out_dir: Path, *, title: str, eval_name: str, n_classes: int | None,
               titles: dict | None = None, reference: dict | None = None, reference_label: str = "",
               subtitle: str = "", majority: float | None = None, metric: str = "accuracy (%)") -> list[Path]:
    """Write curve.png and curve.svg: the task's figure (accuracy, %) against training pairs on a log axis.

    titles: config -> its legend entry (default: the config's name).
    n_classes: draws chance (None for a score task, whose chance is a correlation of 0).
    metric: the y axis' name (x 100, as GLUE scales its figures).
    """
    titles = titles or {}
    # lazy: matplotlib is an extra (plots) and takes a second to import; only drawing needs it
    import matplotlib
    matplotlib.use("Agg")
    # lazy: matplotlib's pyplot, after choosing the Agg backend above
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5.2), dpi=120)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, (config, points) in enumerate(table.items()):
        points = [p for p in points if p["eval_mean"] is not None]  # undefined at this size: no point drawn
        xs = [p["size"] for p in points]
        ys = [100 * p["eval_mean"] for p in points]
        err = [100 * p["eval_std"] for p in points]
        ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, color=colors[i % len(colors)],
                    label=titles.get(config, config))
        if reference and config in reference:
            ref = sorted(reference[config].items())
            ax.plot([x for x, _ in ref], [y for _, y in ref], linestyle="--", marker="x", alpha=0.7,
                    color=colors[i % len(colors)], label=f"{config}: {reference_label}")
    if n_classes:
        chance = 100.0 / n_classes
        ax.axhline(chance, color="grey", linestyle=":", label=f"chance ({chance:.0f}%, {n_classes} classes)")
    if majority is not None:
        ax.axhline(100 * majority, color="black", linestyle="-.", linewidth=0.8, alpha=0.6,
                   label=f"majority class ({100 * majority:.1f}%)")
    ax.set_xscale("log")
    ax.set_xlabel("training pairs (log scale)")
    ax.set_ylabel(f"{eval_name} {metric}")
    ax.set_title(title + (f"\n{subtitle}" if subtitle else ""), fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / "curve.png", out_dir / "curve.svg"]
    for path in paths:
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format=path.suffix.lstrip("."))
    plt.close(fig)
    return paths
