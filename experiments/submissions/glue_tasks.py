"""The GLUE tasks as the benchmark command runs them, each with the baseline chosen for it on dev:
a table that every command's --help can read without the engine behind it."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GlueTask:
    """One GLUE task as the benchmark command runs it: its corpus, the files its model writes,
    and its baseline: chosen at run time by CV on train among the corpus' candidates
    (`features` None: `engine.choice`, the similarity and paraphrase tasks' rule), or fixed
    (`features`, `model`), chosen on dev when the table was measured (docs/submissions.md)."""

    name: str
    corpus: str
    files: tuple[str, ...]
    features: str | None
    model: str | None = None  # None: the task's default model (lr for labels, ridge for scores)
    dev_split: str = "dev"
    # What it runs where WordNet 3.0 is not installed (the strongest group reads it), said in a note.
    without_wordnet: str = "lexicalized"

    @property
    def rule(self) -> str:
        """How the task's baseline was chosen, in words (the record and the table say it)."""
        if self.features is None:
            return "at run time, by 5-fold CV on train among its corpus' candidates"
        return "on dev, when the table of docs/submissions.md was measured"


# The baselines, chosen on each task's dev split among lexicalized / strongest x the default model /
# stacked, by the task's GLUE figure (docs/submissions.md has every candidate's dev figures). QQP,
# MNLI and QNLI could not be measured here (no training data): the cheap lexicalized default.
GLUE_TASKS = (
    GlueTask("CoLA", "cola", ("CoLA",), "strongest"),
    GlueTask("SST-2", "sst2", ("SST-2",), "lexicalized"),
    GlueTask("MRPC", "mrpc", ("MRPC",), None),
    GlueTask("STS-B", "stsb", ("STS-B",), None),
    GlueTask("QQP", "qqp", ("QQP",), "lexicalized"),
    GlueTask("MNLI", "mnli", ("MNLI-m", "MNLI-mm", "AX"), "lexicalized", dev_split="dev_matched"),
    GlueTask("QNLI", "qnli", ("QNLI",), "lexicalized"),
    GlueTask("RTE", "rte", ("RTE",), "strongest"),
    GlueTask("WNLI", "wnli", ("WNLI",), "lexicalized", "stacked"),
)
BY_NAME = {task.name: task for task in GLUE_TASKS}
