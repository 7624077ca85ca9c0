"""Pictures of a run: the confusion matrix, and the strongest feature weights of each class."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from features.atomic import atomic_path


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "row"


def _save(fig, path: Path) -> Path:
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=120, bbox_inches="tight")
    return path


def plot_row(row: dict, eval_name: str, out_dir: Path | str, prefix: str = "") -> list[Path]:
    """Write `{prefix}confusion.png` and, for models with feature weights, `{prefix}top-features.png`
    (a panel per class); returns the paths written."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from sklearn.metrics import ConfusionMatrixDisplay

    out_dir = Path(out_dir)
    written = []
    metrics = row["metrics"][eval_name]
    labels = metrics["confusion"]["labels"]
    fig, ax = plt.subplots(figsize=(2.2 + 1.3 * len(labels), 1.8 + 1.2 * len(labels)))
    ConfusionMatrixDisplay(np.array(metrics["confusion"]["matrix"]), display_labels=labels).plot(
        ax=ax, cmap="Blues", colorbar=False, values_format="d")
    ax.set_title(f"{row['name']} on {eval_name}: accuracy {100 * metrics['accuracy']:.1f}% "
                 f"({metrics['pairs']} pairs)", fontsize=9)
    ax.set_xlabel("predicted")
    ax.set_ylabel("gold")
    written.append(_save(fig, out_dir / f"{prefix}confusion.png"))
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
        written.append(_save(fig, out_dir / f"{prefix}top-features.png"))
        plt.close(fig)
    return written


def plot_rows(record: dict, out_dir: Path | str) -> list[Path]:
    """The pictures of every row of a run (a table's rows get their names as prefixes)."""
    rows = record["rows"]
    written = []
    for row in rows:
        prefix = "" if len(rows) == 1 else f"{_safe(row['name'])}-"
        written += plot_row(row, record["data"]["eval_split"], out_dir, prefix)
    return written
