"""Whether the labels of a corpus of your own are classes or scores (`--target labels|scores|auto`).

A registered corpus declares its target (`corpora.task.Task`); a file of your own (`--train-file`)
or a Hugging Face dataset (`--dataset hf:NAME`) says it through its label column, read from the
training split:

    auto    a column whose every value is a finite number is a score task when a value is not a
            whole number or there are more than AUTO_MAX_CLASSES distinct values; whole numbers
            with at most that many distinct values stay classes. So is a column of such scores
            with a few values that are no number (`nan`, `high`: at most half as many distinct
            values as the numbers): its rows that hold them are bad rows, named FILE:LINE as
            `scores` names them (read as classes, the run stopped on dev scores that training never
            showed). Anything else is classes. Either way a column of numbers is said in one line,
            but for two whole numbers (0/1), which are classes beyond doubt.
    labels  classes; a column of more than MAX_NUMBER_CLASSES distinct numbers is refused (a
            similarity score is no 100-class task).
    scores  scores; each value must be a finite number (a bad row names FILE:LINE otherwise).

Such a score task declares no range (`Task.regression(None)`: the range is learned from the
training scores): every finite number a fit can take (`features.labels.score_out_of_bounds`) is a
gold score, in every split.
"""
from __future__ import annotations

from typing import Iterable

from .readers.common import number_value
from .task import Task

AUTO, LABELS, SCORES = "auto", "labels", "scores"
TARGET_CHOICES = (AUTO, LABELS, SCORES)
AUTO_MAX_CLASSES = 10  # whole numbers with at most this many values: classes (1-5 stars, 0/1)
MAX_NUMBER_CLASSES = 50  # --target labels on more distinct numbers than this is refused


class TargetError(ValueError):
    """A label column that cannot be read as the target asked for; one line, saying what to do."""


def choose_target(values: Iterable[str], asked: str = AUTO,
                  where: str = "the training split") -> tuple[str, str | None]:
    """("labels" or "scores", the line that says why, or None) for a label column whose distinct
    values (text, in the order they first occur) are `values`. where: the data, as messages name it."""
    if asked not in TARGET_CHOICES:
        raise ValueError(f"--target is one of {', '.join(TARGET_CHOICES)}, not {asked!r}")
    if asked == SCORES:
        return SCORES, None
    values = list(values)
    numbers = [number_value(v) for v in values]
    others = [v for v, n in zip(values, numbers) if n is None]
    values, numbers = [v for v, n in zip(values, numbers) if n is not None], [n for n in numbers if n is not None]
    if not values or (others and asked == LABELS):
        return LABELS, None
    fractional = next((v for v, n in zip(values, numbers) if not n.is_integer()), None)
    example = fractional or values[0]
    if others:
        if (fractional is None and len(values) <= AUTO_MAX_CLASSES) or 2 * len(others) > len(values):
            return LABELS, None
        shown = ", ".join(repr(v[:20]) for v in others[:3]) + (", ..." if len(others) > 3 else "")
        return SCORES, (f"{where}: the label column holds numbers ({len(values):,} distinct, e.g. {example}) and "
                        f"{len(others)} value{'s' if len(others) > 1 else ''} that {'are' if len(others) > 1 else 'is'}"
                        f" no number ({shown}): a score task, whose rows without a number are bad rows (--target "
                        "labels to read them all as classes)")
    if asked == LABELS:
        if len(values) > MAX_NUMBER_CLASSES:
            raise TargetError(f"--target labels: {where}: the label column holds {len(values):,} distinct numbers "
                              f"(e.g. {example}): scores, not a {len(values):,}-class task; drop --target (or give "
                              "--target scores) to read them as scores")
        return LABELS, None
    if fractional is not None or len(values) > AUTO_MAX_CLASSES:
        return SCORES, (f"{where}: the label column holds numbers ({len(values):,} distinct, e.g. {example}): a score "
                        "task (--target labels to read them as classes)")
    if len(values) <= 2:  # 0/1: classes beyond doubt, nothing to say (no score task has two values)
        return LABELS, None
    shown = ", ".join(sorted(values, key=lambda v: number_value(v)))
    return LABELS, (f"{where}: the label column holds whole numbers ({len(values)} distinct: {shown}): classes "
                    "(--target scores to read them as scores)")


def task_for(target: str, labels: tuple[str, ...] | None = None, single_sentence: bool = False) -> Task:
    """The task of a corpus of your own: classes (`labels`: the closed set, or None: learned from
    the training split), judged by accuracy; or scores of no declared range, by Pearson and Spearman.
    single_sentence: its rows are single sentences (no premise column)."""
    if target == SCORES:
        return Task.regression(None, single_sentence=single_sentence)
    return Task.classification(labels, single_sentence=single_sentence)
