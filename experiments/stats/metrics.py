"""The figures of a scored split, as plain JSON-able dicts: classification (per class, confusion)
and score tasks (errors, correlations). A task's own metrics are `corpora.task.Task.score`."""
from __future__ import annotations

import numpy as np
from sklearn.metrics import accuracy_score, confusion_matrix, f1_score, precision_recall_fscore_support

from ..corpora.task import METRICS, Task


def evaluate(y_true, y_pred, labels) -> dict:
    """accuracy, macro_f1, per_class {label: precision/recall/f1/support}, confusion (rows = gold)."""
    y_true, y_pred = np.asarray(y_true, dtype=object), np.asarray(y_pred, dtype=object)
    labels = list(labels)
    precision, recall, f1, support = precision_recall_fscore_support(
        y_true, y_pred, labels=labels, zero_division=0)
    return {
        "accuracy": float(accuracy_score(y_true, y_pred)),
        "macro_f1": float(f1_score(y_true, y_pred, labels=labels, average="macro", zero_division=0)),
        "per_class": {label: {"precision": float(p), "recall": float(r), "f1": float(f), "support": int(s)}
                      for label, p, r, f, s in zip(labels, precision, recall, f1, support)},
        "confusion": {"labels": labels, "matrix": confusion_matrix(y_true, y_pred, labels=labels).tolist()},
        "pairs": int(len(y_true)),
    }


def evaluate_scores(y_true, y_pred) -> dict:
    """pearson, spearman, mse, mae, and the gold and predicted means, for a score task; a
    correlation that is undefined (constant predictions) is None, and `undefined` says why."""
    gold, predicted = np.asarray(y_true, dtype=np.float64), np.asarray(y_pred, dtype=np.float64)
    names = ("pearson", "spearman", "mse", "mae")
    figures = {name: METRICS[name].compute(gold, predicted, None) for name in names}
    undefined = Task.regression(None).undefined(gold, predicted, names)
    return {**figures, "gold_mean": float(gold.mean()) if len(gold) else None,
            "predicted_mean": float(predicted.mean()) if len(predicted) else None, "pairs": int(len(gold)),
            **({"undefined": undefined} if undefined else {})}

def task_figures(task, gold, predicted) -> dict:
    """The task's metrics, and under `Task.selection_metric` the figure that chose settings (the
    mean of two, where GLUE averages them), which tables and learning curves read. A figure that
    is undefined (a correlation of constant predictions) is None, and `undefined` (metric ->
    reason) says why: tables show n/a, and nothing averages it as 0."""
    figures = task.score(gold, predicted)
    figures.setdefault(task.selection_metric, task.selection_score(gold, predicted))
    undefined = task.undefined(gold, predicted)
    if undefined and figures[task.selection_metric] is None and task.selection_metric not in undefined:
        undefined[task.selection_metric] = next(iter(undefined.values()))
    if undefined:
        figures["undefined"] = undefined
    return figures
