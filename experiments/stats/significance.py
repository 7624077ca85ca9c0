"""Is one system really better than another on the same pairs? For a task judged by accuracy,
McNemar's exact test on the pairs where they disagree, and a paired bootstrap interval of the
accuracy difference; for a task judged by another metric (F1, MCC, a correlation), a paired
bootstrap of the metric's difference: its interval, and the two-sided share of resamples on the
other side of zero as the p-value."""
from __future__ import annotations

import numpy as np
from scipy.stats import binomtest

LEVEL = 0.05  # a single comparison's bar


def comparisons(rows: list[dict]) -> int:
    """How many comparisons a run's table makes: each row's difference from its reference row, and
    from every named row (`versus`: the artifact table's majority and hypothesis-only)."""
    return sum("delta" in row for row in rows) + sum(len(row.get("versus", {})) for row in rows)


def corrected_level(rows: list[dict], level: float = LEVEL) -> float:
    """The p below which a difference in the table is significant for the table as a whole:
    `level` over its comparisons (Bonferroni). The report's footer and the artifact table's reading
    both take it from here."""
    return level / max(1, comparisons(rows))


def mcnemar(a_correct, b_correct) -> dict:
    """McNemar's exact test: under "equally good", the pairs only one system gets right are a fair
    coin. Returns the counts (`a_only`: A right and B wrong; `b_only`: the reverse) and the
    two-sided p-value (1.0 when they never disagree)."""
    a_correct, b_correct = np.asarray(a_correct, dtype=bool), np.asarray(b_correct, dtype=bool)
    if a_correct.shape != b_correct.shape:
        raise ValueError(f"the two systems were scored on different numbers of pairs ({len(a_correct)} and "
                         f"{len(b_correct)})")
    a_only = int(np.sum(a_correct & ~b_correct))
    b_only = int(np.sum(~a_correct & b_correct))
    p = binomtest(min(a_only, b_only), a_only + b_only, 0.5).pvalue if a_only + b_only else 1.0
    return {"a_only": a_only, "b_only": b_only, "p": float(min(1.0, p))}


def paired_bootstrap(a_correct, b_correct, resamples: int = 10_000, seed: int = 0, level: float = 0.95) -> dict:
    """The accuracy difference A - B and its percentile interval over resamples of the pairs (the
    same resampled pairs for both systems)."""
    a_correct = np.asarray(a_correct, dtype=np.float64)
    b_correct = np.asarray(b_correct, dtype=np.float64)
    diff = a_correct - b_correct
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    for start in range(0, resamples, 1000):  # in blocks: bounded memory on large test sets
        size = min(1000, resamples - start)
        means[start:start + size] = diff[rng.integers(0, len(diff), (size, len(diff)))].mean(axis=1)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return {"delta": float(diff.mean()), "interval": [float(low), float(high)], "level": level,
            "resamples": resamples, "seed": seed}


# Resamples of the paired bootstrap that gives p where McNemar's test does not apply (a metric
# other than accuracy): its p is a share of resamples, so its smallest value is 1 / (n + 1).
METRIC_RESAMPLES = 2000


def metric_bootstrap(gold, a, b, task, resamples: int = METRIC_RESAMPLES, seed: int = 0, level: float = 0.95) -> dict:
    """The difference of the task's selection metric, A - B, over resamples of the pairs (the same
    pairs for both): its value, percentile interval and two-sided p (twice the smaller share of
    resamples at or beyond zero on either side, with the usual +1 correction). Resamples where a
    side's metric is undefined are left out and counted (`undefined`); where it is undefined on
    the pairs themselves, so are the difference and p (None)."""
    gold, a, b = np.asarray(gold), np.asarray(a), np.asarray(b)
    whole_a, whole_b = task.selection_score(gold, a), task.selection_score(gold, b)
    out = {"level": level, "resamples": resamples, "seed": seed}
    if whole_a is None or whole_b is None:  # undefined (a correlation of constant predictions): nothing to compare
        return {**out, "delta": None, "interval": None, "p": None, "undefined": resamples}
    rng = np.random.default_rng(seed)
    deltas = []
    for r in range(resamples):
        idx = rng.integers(0, len(gold), len(gold))
        score_a, score_b = task.selection_score(gold[idx], a[idx]), task.selection_score(gold[idx], b[idx])
        if score_a is not None and score_b is not None:  # a resample of equal scores has no correlation
            deltas.append(score_a - score_b)
    deltas = np.array(deltas)
    used = len(deltas)
    if not used:
        return {**out, "delta": float(whole_a - whole_b), "interval": None, "p": None, "undefined": resamples}
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(deltas, [tail, 100 - tail])
    below, above = int(np.sum(deltas <= 0)), int(np.sum(deltas >= 0))
    p = min(1.0, 2 * (min(below, above) + 1) / (used + 1))
    return {**out, "delta": float(whole_a - whole_b), "interval": [float(low), float(high)], "p": p,
            **({"undefined": resamples - used} if used < resamples else {})}


def compare_predictions(a: dict, b: dict, bootstrap: bool = True, resamples: int = 10_000, task=None) -> dict:
    """Two runs' per-example predictions ({"ids", "gold", "predicted"}) on the same pairs: both
    accuracies, the difference, McNemar's p and (with `bootstrap`) the paired bootstrap interval.

    task: a task judged by another metric than accuracy is compared by its selection metric
        (`metric_a`, `metric_b`, `delta`, and the paired bootstrap's `p`; `test` names it)."""
    if a["ids"] != b["ids"]:
        shared = len(set(a["ids"]) & set(b["ids"]))
        raise ValueError(f"the two runs were scored on different pairs ({len(a['ids'])} and {len(b['ids'])} "
                         f"pairs, {shared} shared ids, or in another order): compare runs on the same split")
    if a["gold"] != b["gold"]:
        raise ValueError("the two runs give different gold labels to the same pairs (e.g. 2-class against "
                         "3-class): compare runs with the same labels")
    if task is not None and not task.by_accuracy:
        gold = task.targets(a["gold"])
        pa, pb = (task.targets(x["predicted"]) if task.is_scores else np.asarray(x["predicted"], dtype=object)
                  for x in (a, b))
        boot = metric_bootstrap(gold, pa, pb, task)
        return {"pairs": len(gold), "metric": task.selection_metric, "metric_a": task.selection_score(gold, pa),
                "metric_b": task.selection_score(gold, pb), "delta": boot["delta"], "p": boot["p"],
                "test": f"paired bootstrap ({boot['resamples']} resamples)", "bootstrap": boot}
    gold = np.asarray(a["gold"], dtype=object)
    a_correct = np.asarray(a["predicted"], dtype=object) == gold
    b_correct = np.asarray(b["predicted"], dtype=object) == gold
    test = mcnemar(a_correct, b_correct)
    out = {"pairs": len(gold), "accuracy_a": float(a_correct.mean()), "accuracy_b": float(b_correct.mean()),
           "delta": float(a_correct.mean() - b_correct.mean()), "mcnemar": test, "mcnemar_p": test["p"], "p": test["p"],
           "test": "McNemar's exact test"}
    if bootstrap:
        out["bootstrap"] = paired_bootstrap(a_correct, b_correct, resamples=resamples)
    return out


def compare_with_named(rows, results: list[dict], task=None) -> None:
    """Give each row that names others (`Row.versus`: the artifact table's majority and
    hypothesis-only) its accuracy difference from each of them and McNemar's exact p, under
    `result["versus"][name]` = {"delta", "mcnemar_p", "a_only", "b_only"} (a_only: this row right
    and the named row wrong). A named row the table lacks (left out, or the row itself) is skipped."""
    by_name = {row.name: result for row, result in zip(rows, results)}
    for row, result in zip(rows, results):
        versus = {}
        for name in getattr(row, "versus", ()):
            other = by_name.get(name)
            if other is None or other is result:
                continue
            test = compare_predictions(result["predictions"], other["predictions"], bootstrap=False, task=task)
            versus[name] = ({"delta": test["delta"], "mcnemar_p": test["mcnemar_p"], "p": test["p"],
                             "a_only": test["mcnemar"]["a_only"], "b_only": test["mcnemar"]["b_only"]}
                            if "mcnemar" in test else {"delta": test["delta"], "p": test["p"], "test": test["test"]})
        if versus:
            result["versus"] = versus
