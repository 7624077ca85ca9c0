"""Human-readable tables of a run record."""
from __future__ import annotations

from .published import published


def _pct(x) -> str:
    return "" if x is None else f"{100 * x:.1f}"


def _chosen(row: dict) -> str:
    """The settings selection chose, or those the model chose inside its own fit (`chosen_inside`
    of its facts: the stacked model's C, by out-of-fold accuracy)."""
    selection = row.get("selection", {})
    inside = row.get("fitted", {}).get("chosen_inside", {})
    text = ", ".join(f"{name}={value}" for name, value in (selection.get("chosen") or inside).items())
    return text + (" (edge)" if selection.get("at_edge") else "") + (" (inner)" if inside and not selection else "")


def _versus(row: dict, references: set) -> str:
    """`-1.2 (p=0.04)`: the accuracy difference from the row's reference and McNemar's p."""
    if "delta" not in row:
        return "(reference)" if row["name"] in references else ""
    p = row["mcnemar_p"]
    return f"{100 * row['delta']:+.1f} ({'p<0.001' if p < 0.001 else f'p={p:.3f}'})"


def _table(lines: list[list[str]]) -> list[str]:
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    out = []
    for n, line in enumerate(lines):
        out.append("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                             for i, (cell, w) in enumerate(zip(line, widths))).rstrip())
        if n == 0:
            out.append("  ".join("-" * w for w in widths))
    return out


def _named(row: dict, name: str) -> str:
    """`+4.2 (p<0.001)`: the row's difference from the table's row `name` and McNemar's p."""
    test = row.get("versus", {}).get(name)
    if test is None:
        return ""
    p = test["mcnemar_p"]
    return f"{100 * test['delta']:+.1f} ({'p<0.001' if p < 0.001 else f'p={p:.3f}'})"


def summary_table(record: dict) -> str:
    """One line per row: train and eval accuracy, macro-F1, the differences from the reference row
    and from named rows (the artifact table's majority and hypothesis-only) with McNemar's p, chosen
    settings, seconds, the published figure; then what the comparisons and the artifact table say."""
    eval_name = record["data"]["eval_split"]
    dataset = record["data"]["dataset"]
    compared = [row for row in record["rows"] if "delta" in row]
    references = {row["vs"] for row in compared}
    named = list(dict.fromkeys(name for row in record["rows"] for name in row.get("versus", {})))
    head = ["row", "classes", "train acc", f"{eval_name} acc", "macro-F1"] + (["vs reference"] if compared else [])
    head += [f"vs {name}" for name in named] + ["chosen", "seconds", "published (test)"]
    lines, sources = [head], {}
    for row in record["rows"]:
        m = row["metrics"]
        figure = published(dataset, row["model"], row["features"], len(row["labels"]),
                           wordnet=bool(row.get("fitted", {}).get("wordnet")))
        cell = ""
        if figure is not None:
            sources[figure.source.key] = figure.source.text
            cell = f"{figure.value:.1f} [{figure.source.key}]"
        versus = ([_versus(row, references)] if compared else []) + [_named(row, name) for name in named]
        lines.append([row["name"], str(len(row["labels"])), _pct(m["train"]["accuracy"]),
                      _pct(m[eval_name]["accuracy"]), _pct(m[eval_name]["macro_f1"]), *versus, _chosen(row),
                      f"{row['seconds']:.1f}", cell])
    blanks = [""] * ((1 if compared else 0) + len(named))
    for classes, ref in record.get("reference", {}).get("majority", {}).items():
        lines.append([f"majority ({ref['label']}, reference)", classes.split("-")[0], "", _pct(ref["accuracy"]),
                      "", *blanks, "", "", ""])
    out = _table(lines)
    out += [f"  [{key}] {text}" for key, text in sources.items()]
    if compared:
        by_classes = {}
        for row in record["rows"]:
            if row["name"] in references:
                by_classes.setdefault(row["name"], len(row["labels"]))
        out.append("  vs reference: the difference in points from " + ", ".join(
            f"{name} ({classes}-class rows)" for name, classes in by_classes.items())
            + ", and McNemar's exact p on the pairs where they disagree")
    if named:
        out.append(f"  {', '.join(f'vs {name}' for name in named)}: the difference in points from that row of the "
                   "table, and McNemar's exact p on the pairs where they disagree")
    tests = len(compared) + sum(len(row.get("versus", {})) for row in record["rows"])
    if tests > 1:
        out.append(f"  {tests} comparisons: by luck alone one in twenty reaches p < 0.05; for the table as a "
                   f"whole, read p < {0.05 / tests:.3f} (0.05 / {tests}, Bonferroni) as significant")
    out += [f"  {reading['note']}" for reading in record.get("artifacts", {}).get("rows", {}).values()]
    return "\n".join(out)


def _value(value) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, dict):
        return "(" + ", ".join(f"{k} {_value(v)}" for k, v in value.items()) + ")"
    return str(value)


def bootstrap_line(b: dict, single: float | None = None) -> str:
    """`bootstrap over 100 training resamples: mean 79.1, std 0.7, 95% 77.6..80.4 (scores of ...)`.

    single: the score of the one fit on the whole training set, explained when it falls outside."""
    if "mean" not in b:
        return f"bootstrap: all {b['resamples']} training resamples failed (a class went missing)"
    low, high = b["interval_95"]
    failed = f"; {b['failed']} failed" if b["failed"] else ""
    line = (f"bootstrap over {b['resamples']} training resamples: mean {100 * b['mean']:.1f}, std "
            f"{100 * b['std']:.1f}, 95% {100 * low:.1f}..{100 * high:.1f} ({b['of']}{failed})")
    if single is not None and not low <= single <= high:
        line += (f"\n    the fit on the whole training set ({100 * single:.1f}) lies outside: a resample draws as many "
                 "pairs with replacement, about 63% of them distinct, so its models see less data"
                 + (" and score lower" if single > high else ""))
    return line


def detail(row: dict, eval_name: str) -> str:
    """Per-class precision/recall/F1, the confusion matrix, the selection and the fitted model of one row."""
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
    out.append("  " + " " * width + " " + " ".join(f"{x:>{width}}" for x in labels))
    for label, counts in zip(labels, m["confusion"]["matrix"]):
        out.append(f"  {label:<{width}} " + " ".join(f"{c:>{width}d}" for c in counts))
    if "selection" in row:
        scores = ", ".join(f"{name}: {100 * a:.1f}" for name, a in row["selection"]["scores"].items())
        selection = row["selection"]
        out.append(f"  {_chosen(row)} chosen by {selection['by']}" + (f" ({scores})" if scores else ""))
        if selection.get("skipped") and selection.get("stopped"):
            out.append(f"  dev accuracy {selection['stopped']}: not fitted "
                       + ", ".join(f"{selection['path']}={value}" for value in selection["skipped"]))
        if selection.get("extended"):
            out.append("  the best value sat at an end of the grid, which was extended with "
                       + ", ".join(map(str, selection["extended"])))
        if selection.get("at_edge"):
            out.append(f"  note: the choice is the {selection['at_edge']} value tried: the grid reached its limit")
    if row.get("fitted"):
        out.append("  fitted: " + ", ".join(f"{k} {_value(v)}" for k, v in row["fitted"].items()))
    if "evaluation" in row:
        out.append(f"  scored by {row['evaluation']}")
    if "bootstrap" in row:
        out.append("  " + bootstrap_line(row["bootstrap"], m["accuracy"] if row.get("evaluation") is None else None))
    for label, feats in row.get("top_features", {}).items():
        out.append(f"  top features for {label}: " + ", ".join(f"{name} ({w:+.2f})" for name, w in feats))
    return "\n".join(out)


def skipped_rows(record: dict) -> str | None:
    """`skipped rows: train 2 (wrong column count 2); dev 1 (...)`, or None when no row was skipped."""
    parts = []
    for split, counts in record["data"]["splits"].items():
        skipped = counts.get("skipped") or {}
        if skipped:
            reasons = ", ".join(f"{reason} {n}" for reason, n in skipped.items())
            parts.append(f"{split} {sum(skipped.values())} ({reasons})")
    return "skipped rows: " + "; ".join(parts) if parts else None


def data_notes(record: dict) -> list[str]:
    """What reading the data decided or found that a reader of the results must know: skipped rows,
    detected columns, labels training never shows."""
    skipped = skipped_rows(record)
    notes = [skipped] if skipped else []
    for counts in record["data"]["splits"].values():
        notes += [f"note: {note}" for note in counts.get("notes", [])]
    return notes + [f"note: {note}" for note in record.get("notes", [])]


def format_report(record: dict) -> str:
    eval_name = record["data"]["eval_split"]
    t = record["timings"]
    stages = ", ".join(f"{k} {v:.1f}s" for k, v in t.items() if isinstance(v, float))
    parts = [f"dataset {record['data']['dataset']}: train {record['data']['train_subsample']['used']} pairs, "
             f"evaluated on {eval_name}; features: "
             f"{', '.join(record['features']['active']) or 'none (the model reads the pairs themselves)'}"]
    parts += data_notes(record)
    parts += ["", summary_table(record), ""]
    parts += [detail(row, eval_name) + "\n" for row in record["rows"]]
    parts.append(f"stages: {stages}; peak RSS {record['peak_rss_bytes'] / 2 ** 20:.0f} MiB")
    return "\n".join(parts)


ERROR_COLUMNS = ["id", "premise", "hypothesis", "gold", "predicted", "correct", "confidence", "top_features"]


def error_rows(examples, wrong_only: bool = False) -> tuple[list[str], list[list]]:
    """(header, rows) of the errors file from `RunResult.examples()`: every scored pair in the
    order scored, or with `wrong_only` the wrong ones, most confident first."""
    table = examples
    if wrong_only:
        table = table[~table["correct"]]
        if table["confidence"].notna().any():
            table = table.sort_values("confidence", ascending=False, kind="stable", na_position="last")
    rows = [[None if _missing(v) else v for v in row] for row in table[ERROR_COLUMNS].itertuples(index=False)]
    return ERROR_COLUMNS, rows


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def p_reading(p: float, level: float = 0.05) -> str:
    """McNemar's p in words: how often chance alone would split the disagreements this unevenly."""
    if p < 0.001:
        return "far beyond chance (significant at the 5% level)"
    odds = f"about one time in {max(2, round(1 / p))}" if p < 0.5 else "about as often as not"
    verdict = "significant" if p < level else "not significant"
    return f"chance alone would give a split this uneven {odds} ({verdict} at the {100 * level:.0f}% level)"


def format_comparison(r: dict) -> str:
    """Two runs compared (`experiments.compare`), as a paragraph a person can read."""
    test, boot = r["mcnemar"], r["bootstrap"]
    low, high = boot["interval"]
    p = "< 0.001" if test["p"] < 0.001 else f"= {test['p']:.3f}"
    return "\n".join([
        f"A: {r['a']}", f"B: {r['b']}", f"scored on {r['split']} ({r['pairs']} pairs)", "",
        f"accuracy A {100 * r['accuracy_a']:.1f}, B {100 * r['accuracy_b']:.1f}; "
        f"difference A - B {100 * r['delta']:+.1f} points",
        f"McNemar's exact test: A right and B wrong on {test['a_only']} pairs, B right and A wrong on "
        f"{test['b_only']}: p {p}: {p_reading(test['p'])}",
        f"paired bootstrap ({boot['resamples']} resamples of the pairs): {100 * boot['level']:.0f}% interval of the "
        f"difference {100 * low:+.1f} .. {100 * high:+.1f} points"
        + (" (it includes 0: no difference is a plausible outcome)" if low <= 0 <= high else ""),
    ])


def curve_table(record: dict) -> str:
    """A learning curve's means per config and size (`curve.json`)."""
    eval_name = record["eval_split"]
    lines = [["config", "size", "seeds", f"{eval_name} acc", "std", "train acc"]]
    for config, points in record["curve"].items():
        for p in points:
            lines.append([config, str(p["size"]), str(p["seeds"]), _pct(p["eval_mean"]),
                          _pct(p["eval_std"]) if p["seeds"] > 1 else "", _pct(p["train_mean"])])
    for classes, ref in record.get("reference", {}).get("majority", {}).items():
        lines.append([f"majority ({ref['label']}, reference)", "", "", _pct(ref["accuracy"]), "", ""])
    return "\n".join(_table(lines))
