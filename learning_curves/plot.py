"""Draw a learning curve from its aggregated table (never from models)."""
from __future__ import annotations

from pathlib import Path

from features.atomic import atomic_path


def plot_curve(table: dict, out_dir: Path, *, title: str, eval_name: str, n_classes: int,
               titles: dict | None = None, reference: dict | None = None, reference_label: str = "",
               subtitle: str = "", majority: float | None = None) -> list[Path]:
    """Write curve.png and curve.svg: accuracy (%) against training pairs on a log axis.

    titles: config -> its legend entry (default: the config's name).
    """
    titles = titles or {}
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5.2), dpi=120)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, (config, points) in enumerate(table.items()):
        xs = [p["size"] for p in points]
        ys = [100 * p["eval_mean"] for p in points]
        err = [100 * p["eval_std"] for p in points]
        ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, color=colors[i % len(colors)],
                    label=titles.get(config, config))
        if reference and config in reference:
            ref = sorted(reference[config].items())
            ax.plot([x for x, _ in ref], [y for _, y in ref], linestyle="--", marker="x", alpha=0.7,
                    color=colors[i % len(colors)], label=f"{config}: {reference_label}")
    chance = 100.0 / n_classes
    ax.axhline(chance, color="grey", linestyle=":", label=f"chance ({chance:.0f}%, {n_classes} classes)")
    if majority is not None:
        ax.axhline(100 * majority, color="black", linestyle="-.", linewidth=0.8, alpha=0.6,
                   label=f"majority class ({100 * majority:.1f}%)")
    ax.set_xscale("log")
    ax.set_xlabel("training pairs (log scale)")
    ax.set_ylabel(f"{eval_name} accuracy (%)")
    ax.set_title(title + (f"\n{subtitle}" if subtitle else ""), fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    paths = [out_dir / "curve.png", out_dir / "curve.svg"]
    for path in paths:
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format=path.suffix.lstrip("."))
    plt.close(fig)
    return paths
