"""Human-readable tables of a run record."""
from __future__ import annotations

from nli_baselines.experiments.breakdowns.hans import HEURISTICS, followed
from nli_baselines.experiments.corpora.readers.hans import HANS_ENTAILMENT, HANS_NON_ENTAILMENT
from nli_baselines.experiments.stats.significance import LEVEL, comparisons, corrected_level
from nli_baselines.features.runtime.shown import shown as shown_text

from .published import published
from .tables import Table


def _pct(x) -> str:
    return "" if x is None else f"{100 * x:.1f}"


# How tables head a metric's column ("dev acc", "dev F1", "dev Pearson").
SHORT = {"accuracy": "acc", "f1": "F1", "macro_f1": "macro-F1", "mcc": "MCC", "pearson": "Pearson",
         "spearman": "Spearman", "mse": "MSE", "mae": "MAE"}


def _figure(name: str, value) -> str:
    """A metric as tables show it: x 100 with one decimal (GLUE's scale), errors as they are."""
    if value is None:
        return ""
    return f"{value:.3f}" if name in ("mse", "mae") else f"{100 * value:.1f}"


UNDEFINED = "n/a"  # a figure that is undefined (a correlation of constant predictions), never shown as 0


def _cell(figures: dict, name: str) -> str:
    """`figures[name]` as tables show it; n/a where it is undefined (`undefined` says why)."""
    if name in figures.get("undefined", {}):
        return UNDEFINED
    return _figure(name, figures.get(name))


def _points(value, sign: str = "") -> str:
    """A difference or a figure x 100 (`+1.2`), n/a where it is undefined (None)."""
    return UNDEFINED if value is None else f"{100 * value:{sign}.1f}"


def undefined_notes(record: dict) -> list[str]:
    """One line per row (and reference) with undefined figures: which, on which split, and why."""
    eval_name = record["data"]["eval_split"]
    task = _task(record)
    shown = set(task["metrics"]) | {"mse", "macro_f1", task.get("select_by")}
    named = [(row["name"], row["metrics"]) for row in record["rows"]]
    named += [(f"mean ({ref['value']:.2f}, reference)", {eval_name: ref})
              for ref in record.get("reference", {}).get("mean", {}).values()]
    notes = []
    for name, metrics in named:
        for split in ("train", eval_name):
            undefined = {k: v for k, v in metrics.get(split, {}).get("undefined", {}).items() if k in shown}
            by_reason: dict = {}
            for metric, why in undefined.items():
                by_reason.setdefault(why, []).append(SHORT.get(metric, metric))
            notes += [f"n/a: {shown_text(name)} {split} {' and '.join(metrics_)} undefined: {why}"
                      for why, metrics_ in by_reason.items()]
    return notes


def _task(record: dict) -> dict:
    """The record's task (records of runs before tasks were declared: labels judged by accuracy)."""
    return record.get("task") or {"target": "labels", "metrics": ["accuracy"], "select_by": "accuracy"}


def _eval_metrics(task: dict) -> list[str]:
    """The metric columns of a table: the task's, then macro-F1 for labels (as tables always had),
    the mean squared error for scores."""
    metrics = list(task["metrics"])
    extra = "mse" if task["target"] == "scores" else "macro_f1"
    return metrics + ([extra] if extra not in metrics else [])


def _p(row_or_test: dict) -> float:
    return row_or_test.get("p", row_or_test.get("mcnemar_p"))


def _chosen(row: dict) -> str:
    """The settings selection chose, or those the model chose inside its own fit (`chosen_inside`
    of its facts: the stacked model's C, by out-of-fold accuracy)."""
    selection = row.get("selection", {})
    inside = row.get("fitted", {}).get("chosen_inside", {})
    text = ", ".join(f"{name}={value}" for name, value in (selection.get("chosen") or inside).items())
    return text + (" (edge)" if selection.get("at_edge") else "") + (" (inner)" if inside and not selection else "")


def _versus(row: dict, references: set) -> str:
    """`-1.2 (p=0.04)`: the difference from the row's reference (accuracy, or the task's selection
    metric) and its p (McNemar's, or the paired bootstrap's); n/a where the metric is undefined."""
    if "delta" not in row:
        return "(reference)" if row["name"] in references else ""
    return _difference(row["delta"], _p(row))


def _difference(delta, p) -> str:
    if delta is None:
        return UNDEFINED
    return f"{100 * delta:+.1f} ({'p n/a' if p is None else 'p<0.001' if p < 0.001 else f'p={p:.3f}'})"


def _named(row: dict, name: str) -> str:
    """`+4.2 (p<0.001)`: the row's difference from the table's row `name` and McNemar's p."""
    test = row.get("versus", {}).get(name)
    if test is None:
        return ""
    return _difference(test["delta"], _p(test))


def summary_table(record: dict) -> str:
    """The run's table as text (`summary`), within 100 columns."""
    return summary(record).text()


def summary(record: dict) -> Table:
    """One line per row: the task's figures on train and on the evaluation split (accuracy and
    macro-F1 for NLI; F1 and accuracy for paraphrase; Pearson and Spearman for scores ...), the
    differences from the reference row and from named rows (the artifact table's majority and
    hypothesis-only) with their p, chosen settings, seconds, the published figure (a column only
    where a row has one); then, as notes under it, the figures' sources and what the comparisons
    and the artifact table say."""
    eval_name = record["data"]["eval_split"]
    dataset = record["data"]["dataset"]
    task = _task(record)
    scores = task["target"] == "scores"
    headline = task["metrics"][0]
    metrics = _eval_metrics(task)
    compared = [row for row in record["rows"] if "delta" in row]
    references = {row["vs"] for row in compared}
    named = list(dict.fromkeys(name for row in record["rows"] for name in row.get("versus", {})))
    head = ["row"] + ([] if scores else ["classes"]) + [f"train {SHORT[headline]}"]
    head += [f"{eval_name} {SHORT[m]}" if m in task["metrics"] else SHORT[m] for m in metrics]
    published_at = len(head)  # beside the run's own figures, which a wide table keeps in its first block
    head += ["published (test)"] + (["vs reference"] if compared else []) + [f"vs {name}" for name in named]
    head += ["chosen", "seconds"]
    lines, sources = [head], {}
    for row in record["rows"]:
        m = row["metrics"]
        figure = None if scores else published(dataset, row["model"], row["features"], len(row["labels"]),
                                               wordnet=bool(row.get("fitted", {}).get("wordnet")))
        cell = ""
        if figure is not None:
            sources[figure.mark] = figure.text
            cell = f"{figure.value:.1f} [{figure.mark}]"
        versus = ([_versus(row, references)] if compared else []) + [_named(row, name) for name in named]
        train = _cell(m["train"], headline if headline in m["train"] else "accuracy")
        lines.append([_text(row["name"]), *([] if scores else [str(len(row["labels"]))]), train,
                      *(_cell(m[eval_name], name) for name in metrics), cell, *versus, _chosen(row),
                      f"{row['seconds']:.1f}"])
    blanks = [""] * ((1 if compared else 0) + len(named))
    for classes, ref in record.get("reference", {}).get("majority", {}).items():
        cells = [_pct(ref["accuracy"]) if name == "accuracy" else _figure(name, ref.get(name)) if name in ref else ""
                 for name in metrics]
        lines.append([f"majority ({_text(ref['label'])}, reference)", classes.split("-")[0], "", *cells, *blanks, "",
                      "", ""])
    for ref in record.get("reference", {}).get("mean", {}).values():
        lines.append([f"mean ({ref['value']:.2f}, reference)", "", *(_cell(ref, name) for name in metrics),
                      *blanks, "", "", ""])
    if not sources:  # no row has a published figure: no empty column
        lines = [line[:published_at] + line[published_at + 1:] for line in lines]
    out = [f"[{key}] {text}" for key, text in sources.items()]
    out += undefined_notes(record)
    if compared:
        by_classes = {}
        for row in record["rows"]:
            if row["name"] in references:
                by_classes.setdefault(row["name"], len(row["labels"] or ()))
        test = _test_words(compared[0])
        out.append("vs reference: the difference in points from " + (", ".join(
            f"{name} ({classes}-class rows)" for name, classes in by_classes.items()) if not scores else
            ", ".join(by_classes)) + _metric_words(task) + f", and {test}")
    if named:
        test = _test_words(next(t for row in record["rows"] for t in row.get("versus", {}).values()))
        out.append(f"{', '.join(f'vs {name}' for name in named)}: the difference in points from that row of the "
                   f"table{_metric_words(task)}, and {test}")
    tests = comparisons(record["rows"])
    if tests > 1:
        out.append(f"{tests} comparisons: by luck alone one in twenty reaches p < {LEVEL}; for the table as a "
                   f"whole, read p < {corrected_level(record['rows']):.3f} ({LEVEL} / {tests}, Bonferroni) as "
                   "significant")
    out += [reading["note"] for reading in record.get("artifacts", {}).get("rows", {}).values()]
    return Table(lines[0], lines[1:], out)


def choice_table(record: dict) -> Table | None:
    """The candidates a run chose its baseline among (`engine.choice`): each setting's CV figure
    on all out-of-fold predictions together, its mean and spread over the folds; None when the
    run chose none."""
    chosen = record.get("choice")
    if not chosen:
        return None
    metric = chosen["metric"]
    lines = [["candidate", "setting", "CV (pooled)", "CV mean", "CV sd", ""]]
    # The record says which one the run chose; the table marks it rather than ranking again, so
    # that a tie or a rule of the engine's is shown as the run applied it.
    picked = (chosen["chosen"]["name"], chosen["chosen"]["params"])
    for candidate in chosen["candidates"]:
        lines.append([candidate["name"], ", ".join(f"{k}={v}" for k, v in candidate["params"].items()),
                      *(UNDEFINED if candidate[k][metric] is None else _figure(metric, candidate[k][metric])
                        for k in ("pooled", "mean", "sd")),
                      "chosen" if (candidate["name"], candidate["params"]) == picked else ""])
    title = (f"baseline chosen by {chosen['rule']}, by {chosen['by']} ({len(chosen['candidates'])} settings tried, "
             f"{chosen['seconds']:.0f}s); dev scored once, by the chosen one:")
    return Table(lines[0], lines[1:], title=title)


def genre_line(m: dict, task: dict) -> str | None:
    """`by genre: captions (625) Pearson 86.3 / Spearman 86.0; ...`, or None without genres."""
    genres = m.get("by_genre")
    if not genres:
        return None
    return "  by genre: " + "; ".join(
        f"{genre} ({g['pairs']}) " + " / ".join(f"{SHORT[name]} {_figure(name, g[name])}" for name in task["metrics"])
        for genre, g in genres.items())


def _test_words(test: dict) -> str:
    if "mcnemar_p" in test:
        return "McNemar's exact p on the pairs where they disagree"
    return f"the p of a {test.get('test', 'paired bootstrap')} of the pairs"


def _metric_words(task: dict) -> str:
    """` in F1`: which figure a difference is in, where it is not accuracy."""
    if task.get("select_by", "accuracy") == "accuracy":
        return ""
    if task["select_by"] == "mean":
        return " in the mean of " + " and ".join(SHORT[m] for m in task["metrics"])
    return f" in {SHORT[task['select_by']]}"


def _value(value) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, dict):
        return "(" + ", ".join(f"{_text(k)} {_value(v)}" for k, v in value.items()) + ")"
    return _text(value)  # a model's facts may quote its training labels (the majority class)


def _text(text) -> str:
    """Text from a data file (a label, a feature's words) as a table shows it: one printable line,
    its terminal escapes and bidirectional controls written as escapes, never acted on."""
    return shown_text(text, LABEL_WIDTH)


LABEL_WIDTH = 100  # characters of a label or a feature name a table shows (then "... (N characters)")


def bootstrap_line(b: dict, single: float | None = None) -> str:
    """`bootstrap over 100 training resamples: mean 79.1, std 0.7, 95% 77.6..80.4 (scores of ...)`.

    single: the score of the one fit on the whole training set, explained when it falls outside."""
    undefined = b.get("undefined", 0)
    if "mean" not in b:
        return (f"bootstrap: none of the {b['resamples']} training resamples gave a score ({b['failed']} failed: a "
                f"class went missing; {undefined} undefined: constant predictions)" if undefined else
                f"bootstrap: all {b['resamples']} training resamples failed (a class went missing)")
    low, high = b["interval_95"]
    failed = (f"; {b['failed']} failed" if b["failed"] else "") + (
        f"; {undefined} undefined (constant predictions), left out" if undefined else "")
    metric = b.get("metric", "accuracy")
    of = b["of"] if metric == "accuracy" else f"{metric.replace('mean_of_', 'mean of ').replace('_', ' ')} on {b['of']}"
    line = (f"bootstrap over {b['resamples']} training resamples: mean {100 * b['mean']:.1f}, std "
            f"{100 * b['std']:.1f}, 95% {100 * low:.1f}..{100 * high:.1f} ({of}{failed})")
    if single is not None and not low <= single <= high:
        line += (f"\n    the fit on the whole training set ({100 * single:.1f}) lies outside: a resample draws as many "
                 "pairs with replacement, about 63% of them distinct, so its models see less data"
                 + (" and score lower" if single > high else ""))
    return line


def detail(row: dict, eval_name: str, task: dict | None = None) -> str:
    """Per-class precision/recall/F1 and the confusion matrix (labels) or the errors and
    correlations (scores), the figures per genre, the selection and the fitted model of one row.
    task: the record's task, whose metrics the figures per genre show."""
    m = row["metrics"][eval_name]
    if "confusion" not in m:  # a score task
        out = [f"{_text(row['name'])} on {eval_name} ({m['pairs']} pairs): Pearson {_cell(m, 'pearson')}, "
               f"Spearman {_cell(m, 'spearman')}, mean squared error {m['mse']:.3f}, mean absolute "
               f"error {m['mae']:.3f} (gold mean {m['gold_mean']:.2f}, predicted mean {m['predicted_mean']:.2f})"]
    else:
        labels = m["confusion"]["labels"]
        names = [_text(label) for label in labels]  # labels come from a data file: shown escaped
        width = max(12, *(len(x) for x in names))
        out = [f"{_text(row['name'])} on {eval_name} ({m['pairs']} pairs):",
               f"  {'class':<{width}} precision  recall      F1  support"]
        for label, name in zip(labels, names):
            c = m["per_class"][label]
            out.append(f"  {name:<{width}} {100 * c['precision']:9.1f} {100 * c['recall']:7.1f} "
                       f"{100 * c['f1']:7.1f} {c['support']:8d}")
        out.append("  confusion (rows gold, columns predicted):")
        out.append("  " + " " * width + " " + " ".join(f"{x:>{width}}" for x in names))
        for name, counts in zip(names, m["confusion"]["matrix"]):
            out.append(f"  {name:<{width}} " + " ".join(f"{c:>{width}d}" for c in counts))
        for name in ("f1", "mcc"):
            if name in m:
                out.append(f"  {SHORT[name]} {_figure(name, m[name])}")
    genres = genre_line(m, task or {"metrics": ["pearson", "spearman"] if "confusion" not in m else ["accuracy"]})
    if genres:
        out.append(genres)
    if "selection" in row:
        scores = ", ".join(f"{name}: {_points(a)}" for name, a in row["selection"]["scores"].items())
        selection = row["selection"]
        out.append(f"  {_chosen(row)} chosen by {selection['by']}" + (f" ({scores})" if scores else ""))
        if selection.get("skipped") and selection.get("stopped"):
            judged = selection["by"].split(" ", 1)[1] if selection["by"].startswith("dev ") else "accuracy"
            out.append(f"  dev {judged} {selection['stopped']}: not fitted "
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
        metric = row["bootstrap"].get("metric", "accuracy")
        single = m.get(metric) if metric in m else None
        out.append("  " + bootstrap_line(row["bootstrap"], single if row.get("evaluation") is None else None))
    for label, feats in row.get("top_features", {}).items():  # labels and words from the data: escaped
        out.append(f"  top features for {_text(label)}: " + ", ".join(f"{_text(name)} ({w:+.2f})" for name, w in feats))
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
    notes += [f"note: {note}" for note in record.get("notes", [])]
    return [shown_text(note, 2000) for note in notes]  # they quote file text (columns, labels): printable lines


def format_report(record: dict) -> str:
    eval_name = record["data"]["eval_split"]
    t = record["timings"]
    stages = ", ".join(f"{k} {v:.1f}s" for k, v in t.items() if isinstance(v, float))
    parts = [f"dataset {record['data']['dataset']}: train {record['data']['train_subsample']['used']} pairs, "
             f"evaluated on {eval_name}; features: "
             f"{', '.join(record['features']['active']) or 'none (the model reads the pairs themselves)'}"]
    parts += data_notes(record)
    chosen = choice_table(record)
    parts += ["", chosen.text()] if chosen else []
    parts += ["", summary_table(record), ""]
    parts += [detail(row, eval_name, _task(record)) + "\n" for row in record["rows"]]
    parts.append(f"stages: {stages}; peak RSS {record['peak_rss_bytes'] / 2 ** 20:.0f} MiB")
    return "\n".join(parts)


ERROR_COLUMNS = ["id", "premise", "hypothesis", "gold", "predicted", "correct", "confidence", "top_features"]
SCORE_ERROR_COLUMNS = ["id", "premise", "hypothesis", "gold", "predicted", "error", "top_features"]


def error_rows(examples, wrong_only: bool = False) -> tuple[list[str], list[list]]:
    """(header, rows) of the errors file from `RunResult.examples()`: every scored pair in the
    order scored, or with `wrong_only` the wrong ones, most confident first. A score task's pairs
    carry their absolute error and come the largest error first (nothing is simply wrong, so
    `wrong_only` lists them all the same)."""
    table = examples
    if "error" in table.columns:
        table = table.sort_values("error", ascending=False, kind="stable")
        rows = [[None if _missing(v) else v for v in row] for row in table[SCORE_ERROR_COLUMNS].itertuples(index=False)]
        return SCORE_ERROR_COLUMNS, rows
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
    figures, tests = _comparison_lines(r)
    return "\n".join([f"A: {r['a']}", f"B: {r['b']}", f"scored on {r['split']} ({r['pairs']} pairs)", "", figures,
                      *tests])


def comparison_table(r: dict) -> Table:
    """Two runs compared, as a table: A's and B's figure and their difference; the tests under it."""
    title, a, b = _compared_figures(r)
    _, tests = _comparison_lines(r)
    rows = [["A", r["a"], _points(a)], ["B", r["b"], _points(b)], ["A - B", "", _points(r["delta"], "+")]]
    return Table(["", "system", f"{r['split']} {title}"], rows, tests,
                 title=f"scored on {r['split']} ({r['pairs']} pairs)")


def _compared_figures(r: dict) -> tuple[str, float, float]:
    """(what is compared, A's figure, B's figure): accuracy, or the task's metric."""
    if "mcnemar" not in r:
        return metric_title(r["metric"]), r["metric_a"], r["metric_b"]
    return "accuracy", r["accuracy_a"], r["accuracy_b"]


def _comparison_lines(r: dict) -> tuple[str, list[str]]:
    """(the figures' line, the tests' lines) of a comparison."""
    title, a, b = _compared_figures(r)
    figures = f"{title} A {_points(a)}, B {_points(b)}; difference A - B {_points(r['delta'], '+')} points"
    if "mcnemar" not in r:  # a task judged by another metric than accuracy
        boot = r["bootstrap"]
        if boot.get("interval") is None:
            return figures, [f"{r['test']}: no difference to test: the {title} of "
                             + ("a side is undefined (constant predictions or gold scores)"
                                if r["delta"] is None else "every resample is undefined")]
        low, high = boot["interval"]
        p = "< 0.001" if r["p"] < 0.001 else f"= {r['p']:.3f}"
        left_out = (f" ({boot['undefined']} resamples where a side is undefined left out)"
                    if boot.get("undefined") else "")
        return figures, [
            f"{r['test']}: {100 * boot['level']:.0f}% interval of the difference {100 * low:+.1f} .. {100 * high:+.1f} "
            f"points; p {p}" + (" (the interval includes 0: no difference is a plausible outcome)"
                                if low <= 0 <= high else "") + left_out]
    test, boot = r["mcnemar"], r["bootstrap"]
    low, high = boot["interval"]
    p = "< 0.001" if test["p"] < 0.001 else f"= {test['p']:.3f}"
    return figures, [
        f"McNemar's exact test: A right and B wrong on {test['a_only']} pairs, B right and A wrong on "
        f"{test['b_only']}: p {p}: {p_reading(test['p'])}",
        f"paired bootstrap ({boot['resamples']} resamples of the pairs): {100 * boot['level']:.0f}% interval of the "
        f"difference {100 * low:+.1f} .. {100 * high:+.1f} points"
        + (" (it includes 0: no difference is a plausible outcome)" if low <= 0 <= high else "")]


def metric_title(metric: str) -> str:
    """`acc`, `F1`, `mean of Pearson and Spearman`: a curve's or a selection's figure in words."""
    if metric.startswith("mean_of_"):
        return "mean of " + " and ".join(SHORT.get(m, m) for m in metric.removeprefix("mean_of_").split("_"))
    return SHORT.get(metric, metric)


def curve_table(record: dict) -> str:
    """A learning curve's means per config and size (`curve.json`), as text."""
    return curve_summary(record).text()


def curve_summary(record: dict) -> Table:
    """A learning curve's means per config and size (`curve.json`)."""
    eval_name = record["eval_split"]
    metric = record.get("metric", "accuracy")
    title = metric_title(metric)
    lines = [["config", "size", "seeds", f"{eval_name} {title}", "std", f"train {title}"]]
    undefined = []
    for config, points in record["curve"].items():
        for p in points:
            if p.get("undefined"):
                undefined.append(f"{config} at {p['size']}: {p['undefined']} of {p['seeds']}")
            lines.append([config, str(p["size"]), str(p["seeds"]), _pct_or_na(p["eval_mean"]),
                          _pct(p["eval_std"]) if p["seeds"] > 1 else "", _pct_or_na(p["train_mean"])])
    for classes, ref in record.get("reference", {}).get("majority", {}).items():
        lines.append([f"majority ({_text(ref['label'])}, reference)", "", "", _pct(ref.get(metric)), "", ""])
    for ref in record.get("reference", {}).get("mean", {}).values():
        lines.append([f"mean ({ref['value']:.2f}, reference)", "", "", _cell(ref, metric) if metric in ref else "",
                      "", ""])
    notes = []
    if undefined:
        notes.append(f"n/a: {title} undefined (constant predictions, as a sample of one pair or of equal scores "
                     f"gives), left out of the means: {'; '.join(undefined)} fits")
    return Table(lines[0], lines[1:], notes)


def _pct_or_na(x) -> str:
    return UNDEFINED if x is None else _pct(x)


def hans_tables(result: dict) -> list[Table]:
    """A HANS breakdown (`breakdowns.hans.hans_breakdown`) as two tables: per heuristic, accuracy
    on entailed and on non-entailed pairs with their counts; per subcase, its gold label, pairs and
    accuracy. The first's title says the whole; its notes name the heuristics the model follows."""
    def pct(x):
        return "n/a" if x is None else f"{100 * x:.1f}"
    title = (f"{result['examples']} pairs, accuracy {pct(result['overall'])}% (neutral and contradiction count as "
             f"non-entailment); the model says entailment for {pct(result['predicted_entailment'])}% of them")
    rows = []
    for heuristic, scores in result["heuristics"].items():
        counts = result["counts"]["heuristics"][heuristic]
        rows.append([heuristic, pct(scores[HANS_ENTAILMENT]), pct(scores[HANS_NON_ENTAILMENT]),
                     str(counts[HANS_ENTAILMENT]), str(counts[HANS_NON_ENTAILMENT])])
    notes = [f"{heuristic}: the model follows the heuristic, saying entailment when "
             f"{HEURISTICS.get(heuristic, 'it applies')}, right or wrong" for heuristic in followed(result)]
    heuristics = Table(["heuristic", "entailed %", "non-entailed %", "entailed pairs", "non-entailed pairs"], rows,
                       notes, title=title)
    subcases = Table(["subcase", "gold", "pairs", "accuracy %"],
                     [[name, result["counts"]["subcases"][name]["gold"], str(result["counts"]["subcases"][name]["pairs"]),
                       pct(accuracy)] for name, accuracy in result["subcases"].items()])
    return [heuristics, subcases]
