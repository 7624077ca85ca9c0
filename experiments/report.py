"""Human-readable tables of a run record."""
from __future__ import annotations

# The SNLI paper's figures (Bowman et al. 2015, Tables 4 and 5; test accuracy %), by dataset and row.
PAPER = {
    "sick": {"lexicalized": 77.8, "unigrams_only": 77.0, "unlexicalized": 69.6, "edit_distance": 65.4,
             "lr_two_class": 71.4, "majority": 71.0},
    "snli": {"lexicalized": 78.2, "unigrams_only": 71.6, "unlexicalized": 50.4, "edit_distance": 71.9,
             "lr_two_class": 72.2, "majority": 66.0},
    "rte3": {"edit_distance": 61.9, "lexicalized": 61.5},
}


def _pct(x) -> str:
    return "" if x is None else f"{100 * x:.1f}"


def summary_table(record: dict) -> str:
    """One line per row: train and eval accuracy, macro-F1, chosen C, seconds, the paper's figure."""
    eval_name = record["data"]["eval_split"]
    paper = PAPER.get(record["data"]["dataset"], {})
    head = ["row", "classes", "train acc", f"{eval_name} acc", "macro-F1", "C", "seconds", "paper (test)"]
    lines = [head]
    for row in record["rows"]:
        m = row["metrics"]
        lines.append([row["name"], str(len(row["labels"])), _pct(m["train"]["accuracy"]),
                      _pct(m[eval_name]["accuracy"]), _pct(m[eval_name]["macro_f1"]),
                      str(row.get("selection", {}).get("C", "")), f"{row['seconds']:.1f}",
                      str(paper.get(row["name"], ""))])
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    out = []
    for n, line in enumerate(lines):
        out.append("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(line, widths))))
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


def detail(row: dict, eval_name: str) -> str:
    """Per-class precision/recall/F1 and the confusion matrix of one row."""
    m = row["metrics"][eval_name]
    labels = m["confusion"]["labels"]
    width = max(12, *(len(x) for x in labels))
    out = [f"{row['name']} on {eval_name} ({m['pairs']} pairs):",
           f"  {'class':<{width}} precision  recall      F1  support"]
    for label in labels:
        c = m["per_class"][label]
        out.append(f"  {label:<{width}} {100 * c['precision']:9.1f} {100 * c['recall']:7.1f} "
                   f"{100 * c['f1']:7.1f} {c['support']:8d}")
    out.append("  confusion (rows gold, columns predicted):")
    out.append("  " + " " * width + " " + " ".join(f"{x[:12]:>12}" for x in labels))
    for label, counts in zip(labels, m["confusion"]["matrix"]):
        out.append(f"  {label:<{width}} " + " ".join(f"{c:>12d}" for c in counts))
    if "selection" in row:
        grid = ", ".join(f"{c}: {100 * a:.1f}" for c, a in row["selection"]["grid"].items())
        out.append(f"  C = {row['selection']['C']} chosen by {row['selection']['by']} ({grid})")
    if "edit_distance" in row:
        ed = row["edit_distance"]
        w = ed["weights"]
        out.append(f"  weights delete {w['delete']}, insert {w['insert']}, substitute {w['substitute']}; "
                   f"threshold {ed['threshold']:.4f}")
    if "evaluation" in row:
        out.append(f"  scored by {row['evaluation']}")
    for label, feats in row.get("top_features", {}).items():
        out.append(f"  top features for {label}: " + ", ".join(f"{name} ({w:+.2f})" for name, w in feats))
    return "\n".join(out)


def format_report(record: dict) -> str:
    eval_name = record["data"]["eval_split"]
    t = record["timings"]
    stages = ", ".join(f"{k} {v:.1f}s" for k, v in t.items() if isinstance(v, float))
    parts = [f"dataset {record['data']['dataset']}: train {record['data']['train_subsample']['used']} pairs, "
             f"evaluated on {eval_name}; features: {', '.join(record['features']['active']) or '-'}",
             "", summary_table(record), ""]
    parts += [detail(row, eval_name) + "\n" for row in record["rows"]]
    parts.append(f"stages: {stages}; peak RSS {record['peak_rss_bytes'] / 2 ** 20:.0f} MiB")
    return "\n".join(parts)
