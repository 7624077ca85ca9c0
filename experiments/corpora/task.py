"""What a task asks of a model, declared once per corpus: its target (a label from a set, or a
score in a range), the metrics it reports, in GLUE's conventions, and the one that chooses
hyperparameters.

Everything that scores reads this declaration, never a corpus' name: selection, significance,
the tables, learning curves, the record and the report, saved models and prediction files.

    Task.classification(NLI3)                                 # accuracy
    Task.classification(("0", "1"), metrics=("f1", "accuracy"), positive="1")   # MRPC, QQP
    Task.regression((0.0, 5.0))                               # STS-B: Pearson and Spearman
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np

from nli_baselines.features.labels import SCORE_FLOOR, SCORE_LIMIT, score_out_of_bounds

LABELS = "labels"
SCORES = "scores"
TARGETS = (LABELS, SCORES)
MEAN = "mean"  # `select_by`: the mean of the task's metrics, as GLUE averages a task's two figures


def _accuracy(gold, predicted, task) -> float:
    return float(np.mean(np.asarray(gold, dtype=object) == np.asarray(predicted, dtype=object)))


def _f1(gold, predicted, task) -> float:
    # lazy: scikit-learn's metrics take seconds to import and every command's --help reads this table
    from sklearn.metrics import f1_score
    return float(f1_score(np.asarray(gold, dtype=object), np.asarray(predicted, dtype=object),
                          pos_label=task.positive, average="binary", labels=[task.positive], zero_division=0))


def _macro_f1(gold, predicted, task) -> float:
    # lazy: scikit-learn's metrics take seconds to import and every command's --help reads this table
    from sklearn.metrics import f1_score
    labels = list(task.labels) if task.labels else sorted(set(gold) | set(predicted))
    return float(f1_score(np.asarray(gold, dtype=object), np.asarray(predicted, dtype=object), labels=labels,
                          average="macro", zero_division=0))


def _mcc(gold, predicted, task) -> float:
    # lazy: scikit-learn's metrics take seconds to import and every command's --help reads this table
    from sklearn.metrics import matthews_corrcoef
    with warnings.catch_warnings():  # a constant prediction has MCC 0 (scikit-learn's convention), not a problem
        warnings.simplefilter("ignore", RuntimeWarning)
        value = matthews_corrcoef(np.asarray(gold, dtype=object), np.asarray(predicted, dtype=object))
    return 0.0 if math.isnan(value) else float(value)


def correlation_undefined(gold, predicted) -> str | None:
    """Why a correlation of `predicted` with `gold` is undefined (a constant side has no variance
    to divide by), or None: fewer than two pairs, equal gold scores, or equal predictions."""
    gold, predicted = np.asarray(gold, dtype=np.float64), np.asarray(predicted, dtype=np.float64)
    if len(gold) < 2:
        return f"{len(gold)} pair{'' if len(gold) == 1 else 's'}: a correlation needs two or more"
    if np.ptp(gold) == 0:
        return f"the gold scores are all {gold[0]:g}"
    if np.ptp(predicted) == 0:
        return f"the predictions are all {predicted[0]:g}"
    return None


def _correlation(kind: str):
    def compute(gold, predicted, task) -> float | None:
        if correlation_undefined(gold, predicted) is not None:
            return None  # undefined: shown as n/a, never averaged as 0
        gold, predicted = np.asarray(gold, dtype=np.float64), np.asarray(predicted, dtype=np.float64)
        with np.errstate(all="ignore"):
            if kind == "pearson":
                value = float(np.corrcoef(gold, predicted)[0, 1])
            else:
                # lazy: SciPy's stats take seconds to import and every command's --help reads this table
                from scipy.stats import spearmanr
                value = float(spearmanr(gold, predicted).statistic)
        return value if math.isfinite(value) else None
    return compute


def _error(kind: str):
    def compute(gold, predicted, task) -> float:
        diff = np.asarray(predicted, dtype=np.float64) - np.asarray(gold, dtype=np.float64)
        return float(np.mean(np.abs(diff)) if kind == "mae" else np.mean(diff * diff))
    return compute


@dataclass(frozen=True)
class Metric:
    """A figure a task may report. higher: whether higher is better (errors are lower-better);
    selection and significance read it. target: the kind of target it scores. undefined:
    (gold, predicted) -> why the figure is undefined there, or None; `compute` then gives None."""

    name: str
    title: str
    target: str
    compute: Callable
    higher: bool = True
    undefined: Callable | None = None


METRICS = {m.name: m for m in (
    Metric("accuracy", "accuracy", LABELS, _accuracy),
    Metric("f1", "F1", LABELS, _f1),
    Metric("macro_f1", "macro-F1", LABELS, _macro_f1),
    Metric("mcc", "MCC", LABELS, _mcc),
    Metric("pearson", "Pearson", SCORES, _correlation("pearson"), undefined=correlation_undefined),
    Metric("spearman", "Spearman", SCORES, _correlation("spearman"), undefined=correlation_undefined),
    Metric("mae", "mean abs. error", SCORES, _error("mae"), higher=False),
    Metric("mse", "mean sq. error", SCORES, _error("mse"), higher=False),
)}


@dataclass(frozen=True)
class Task:
    """A corpus' target and how it is judged.

    target: "labels" (a label from `labels`) or "scores" (a number in `score_range`).
    labels: the label set, in its official order; None when it is learned from the training
        split (a file of your own).
    positive: the positive class, where F1 is reported (MRPC, QQP: "1").
    score_range: (lowest, highest) of a score task; predictions are clipped to it.
    metrics: the figures reported, the first being the headline (GLUE: CoLA MCC; MRPC and QQP F1
        and accuracy; STS-B Pearson and Spearman; the others accuracy).
    select_by: the metric that chooses hyperparameters and that learning curves draw, or "mean"
        of `metrics` (GLUE's figure for a task with two).
    single_sentence: the pairs have no premise (CoLA, SST-2): feature types that read the
        premise are left out.
    """

    target: str = LABELS
    labels: tuple[str, ...] | None = None
    positive: str | None = None
    score_range: tuple[float, float] | None = None
    metrics: tuple[str, ...] = ("accuracy",)
    select_by: str = "accuracy"
    single_sentence: bool = False

    def __post_init__(self):
        if self.target not in TARGETS:
            raise ValueError(f"a task's target is one of {', '.join(TARGETS)}, not {self.target!r}")
        for name in self.metrics:
            if name not in METRICS or METRICS[name].target != self.target:
                usable = ", ".join(n for n, m in METRICS.items() if m.target == self.target)
                raise ValueError(f"{name!r} is not a metric of {self.target} (those: {usable})")
        if not self.metrics:
            raise ValueError("a task reports at least one metric")
        if self.select_by != MEAN and self.select_by not in self.metrics:
            raise ValueError(f"select_by {self.select_by!r} is none of the task's metrics ({', '.join(self.metrics)})")
        if self.target == SCORES:
            if self.labels is not None or self.positive is not None:
                raise ValueError("a score task has no label set and no positive class")
            low, high = self.score_range or (None, None)
            if low is not None and not (math.isfinite(low) and math.isfinite(high) and low < high):
                raise ValueError(f"a score range is two finite numbers, the lower first, not {self.score_range!r}")
        else:
            if self.score_range is not None:
                raise ValueError("a label task has no score range")
            if "f1" in self.metrics and self.positive is None:
                raise ValueError("F1 needs the positive class (`positive`)")
            if self.positive is not None and self.labels is not None and self.positive not in self.labels:
                raise ValueError(f"the positive class {self.positive!r} is not among the labels {self.labels}")

    @classmethod
    def classification(cls, labels: tuple[str, ...] | None, *, metrics: tuple[str, ...] = ("accuracy",),
                  positive: str | None = None, select_by: str | None = None, single_sentence: bool = False) -> Task:
        """A classification task (select_by: the first metric, unless given)."""
        return cls(LABELS, None if labels is None else tuple(labels), positive, None, tuple(metrics),
                   select_by or metrics[0], single_sentence)

    @classmethod
    def regression(cls, score_range: tuple[float, float] | None, *, metrics: tuple[str, ...] = ("pearson", "spearman"),
                  select_by: str = MEAN, single_sentence: bool = False) -> Task:
        """A regression task: scores in `score_range` (None: learned from the training scores)."""
        return cls(SCORES, None, None, None if score_range is None else (float(score_range[0]), float(score_range[1])),
                   tuple(metrics), select_by, single_sentence)

    @property
    def is_scores(self) -> bool:
        return self.target == SCORES

    @property
    def selection_metric(self) -> str:
        """The name under which the selection score is recorded (`select_by`, or `mean_of_...`)."""
        return self.select_by if self.select_by != MEAN else "mean_of_" + "_".join(self.metrics)

    @property
    def selection_title(self) -> str:
        if self.select_by != MEAN:
            return METRICS[self.select_by].title
        return "mean of " + " and ".join(METRICS[m].title for m in self.metrics)

    @property
    def by_accuracy(self) -> bool:
        """Whether the task is judged by accuracy alone: McNemar's test then compares systems."""
        return self.select_by == "accuracy"

    def score(self, gold, predicted) -> dict[str, float | None]:
        """Each of the task's metrics, by name; None where one is undefined (`undefined` says why)."""
        return {name: METRICS[name].compute(gold, predicted, self) for name in self.metrics}

    def selection_score(self, gold, predicted) -> float | None:
        """The figure that chooses hyperparameters: higher is better. None when it is undefined (a
        correlation of constant predictions): never averaged as 0, and ranked below every defined
        figure (`rank`)."""
        if self.select_by != MEAN:
            metric = METRICS[self.select_by]
            value = metric.compute(gold, predicted, self)
            return value if value is None or metric.higher else -value
        values = [METRICS[m].compute(gold, predicted, self) for m in self.metrics]
        return None if any(v is None for v in values) else float(np.mean(values))

    def undefined(self, gold, predicted, names=None) -> dict[str, str]:
        """Of the metrics `names` (default: the task's), those undefined on these values, each with
        the reason (`Metric.undefined`)."""
        out = {}
        for name in names if names is not None else self.metrics:
            why = METRICS[name].undefined(gold, predicted) if METRICS[name].undefined else None
            if why is None and METRICS[name].undefined and METRICS[name].compute(gold, predicted, self) is None:
                why = "not a finite number on these values"  # a correlation whose sums underflow
            if why is not None:
                out[name] = why
        return out

    def targets(self, values, where: str = "") -> np.ndarray:
        """Gold values as the model takes them: labels as an object array, scores as float64 (a
        value that is no finite number, outside the range, or none a fit can take, as
        `features.labels.score_out_of_bounds` says, is a ValueError naming `where`)."""
        if not self.is_scores:
            return np.asarray(values, dtype=object)
        out = np.empty(len(values), dtype=np.float64)
        for i, value in enumerate(values):
            try:
                out[i] = float(value)
            except (TypeError, ValueError):
                raise ValueError(f"{where}a score task's gold value must be a number, not {str(value)[:40]!r}") from None
        bad = ~np.isfinite(out)
        if self.score_range is not None:
            bad |= (out < self.score_range[0]) | (out > self.score_range[1])
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"{where}score {str(values[i])[:40]!r} is outside the task's range "
                             f"{self.score_range[0]:g}..{self.score_range[1]:g}" if self.score_range else
                             f"{where}score {str(values[i])[:40]!r} is not a finite number")
        size = np.abs(out)
        beyond = np.flatnonzero((size > SCORE_LIMIT) | ((size > 0) & (size < SCORE_FLOOR)))
        if len(beyond):
            i = int(beyond[0])
            raise ValueError(f"{where}score {str(values[i])[:40]!r} is {score_out_of_bounds(out[i])}")
        return out

    def clip(self, predicted: np.ndarray) -> np.ndarray:
        """Predicted scores inside the task's range (a label task's predictions as they are)."""
        if not self.is_scores or self.score_range is None:
            return predicted
        return np.clip(np.asarray(predicted, dtype=np.float64), *self.score_range)

    def record(self) -> dict:
        """The declaration, JSON-able (run records, model files)."""
        return {"target": self.target, "labels": None if self.labels is None else list(self.labels),
                "positive": self.positive, "score_range": None if self.score_range is None else list(self.score_range),
                "metrics": list(self.metrics), "select_by": self.select_by, "single_sentence": self.single_sentence}

    def describe(self) -> str:
        """One line: what is predicted and how it is judged."""
        what = (f"scores in {self.score_range[0]:g}..{self.score_range[1]:g}" if self.is_scores and self.score_range
                else "scores" if self.is_scores else
                f"labels {', '.join(self.labels)}" if self.labels else "labels learned from the training split")
        judged = ", ".join(METRICS[m].title for m in self.metrics)
        return (f"{'single sentences' if self.single_sentence else 'pairs'} -> {what}; judged by {judged}"
                + (f" (positive class {self.positive})" if self.positive else "")
                + (f"; settings chosen by {self.selection_title}" if len(self.metrics) > 1 else ""))


NLI = Task.classification(None)  # the default: labels, judged by accuracy


def rank(value: float | None) -> float:
    """A selection figure as choices compare it: an undefined one (None) below every defined one."""
    return -math.inf if value is None else value
