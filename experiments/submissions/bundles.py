"""Submission bundles: the prediction files of several runs, checked, in the one flat zip a
benchmark's server takes.

No single run writes every file of a submission: GLUE's RTE.tsv comes from a model trained on
RTE, MNLI-m.tsv, MNLI-mm.tsv and AX.tsv from one trained on MultiNLI; SuperGLUE's CB.jsonl from
CB, RTE.jsonl with AX-b.jsonl and AX-g.jsonl from SuperGLUE RTE. A bundle gathers them, checks
each against its task (layout, labels, row count, and the test set's ids in order where the
test file is in the data directory) and refuses a name no task of the benchmark has or a task
given twice.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from nli_baselines.experiments.outputs.formats import FORMATS
from nli_baselines.experiments.submissions.files import (TASKS, SubmissionError, SubmissionTask, bundle, check_scores,
                                                         read_predictions, validate)

from ..corpora import CorpusNotFoundError, get_corpus

# Every file each server takes, by its official name: the tasks this suite predicts are checked in
# full (all of GLUE's); the others (SuperGLUE's BoolQ, ... from systems of yours) for their layout only.
OFFICIAL = {
    "glue": ("CoLA", "SST-2", "MRPC", "STS-B", "QQP", "MNLI-m", "MNLI-mm", "QNLI", "RTE", "WNLI", "AX"),
    "superglue": ("BoolQ", "CB", "COPA", "MultiRC", "ReCoRD", "RTE", "WiC", "WSC", "AX-b", "AX-g"),
}


@dataclass
class Checked:
    """One file of a bundle: its task (None for a task this suite does not predict) and what was seen."""

    path: Path
    task: SubmissionTask | None
    rows: int
    notes: list


def files_of(benchmark: str, inputs: Sequence[Path | str]) -> list[Path]:
    """The files named, and in each directory named, the files that carry an official name of
    `benchmark` (other files there are left alone)."""
    suffix = FORMATS[benchmark].suffix
    found: list[Path] = []
    for given in map(Path, inputs):
        if given.is_dir():
            found += sorted(p for p in given.iterdir() if p.suffix == suffix and p.stem in OFFICIAL[benchmark])
        elif given.is_file():
            found.append(given)
        else:
            raise SubmissionError(f"{given}: no such file or directory")
    if not found:
        raise SubmissionError(f"no {benchmark} prediction files ({suffix}) among {', '.join(map(str, inputs))}")
    return found


def check_file(benchmark: str, path: Path, data_dir=None) -> Checked:
    """`path` against the task its name gives: labels, rows, and the test ids when the test set is here."""
    fmt = FORMATS[benchmark]
    if path.suffix != fmt.suffix or path.stem not in OFFICIAL[benchmark]:
        raise SubmissionError(f"{path}: not a {fmt.title} task file; its files are "
                              f"{', '.join(name + fmt.suffix for name in OFFICIAL[benchmark])}")
    task = TASKS.get((benchmark, path.stem))
    if task is None:
        rows = fmt.read(path)
        return Checked(path, None, len(rows), [f"{path.name}: layout checked only (not a task this suite predicts)"])
    try:
        test_ids = [p.id for p in get_corpus(task.corpus).load(task.split, data_dir).pairs]
    except CorpusNotFoundError:
        test_ids = None
    if test_ids is not None:
        seen = validate(task, path, test_ids)
        return Checked(path, task, seen["rows"], [f"{path.name}: {note}" for note in seen["notes"]])
    rows = read_predictions(task, path)
    if task.score_range is not None:
        check_scores(task, path, rows)
    unknown = sorted({label for _, label in rows} - set(task.labels or ()))
    if task.labels is not None and unknown:
        raise SubmissionError(f"{path}: labels {unknown} are not in {list(task.labels)}")
    ids = [i for i, _ in rows]
    if ids != [str(n) for n in range(len(ids))]:
        raise SubmissionError(f"{path}: its {fmt.id_field}s are not 0, 1, 2, ... in order (the test set's order)")
    notes = [f"{path.name}: the {task.corpus} test set is not in the data directory, so ids were checked for order "
             "only"]
    if task.size is not None and len(rows) != task.size:
        raise SubmissionError(f"{path}: {len(rows)} rows; the official {task.name} test set has {task.size}")
    return Checked(path, task, len(rows), notes)


# The servers that take only complete submissions: a bundle for them must hold every task's file.
COMPLETE = ("glue",)


def missing_tasks(benchmark: str, names: Sequence[str]) -> list[str]:
    """The official files of `benchmark` that `names` (file names) lack."""
    suffix = FORMATS[benchmark].suffix
    return [name + suffix for name in OFFICIAL[benchmark] if name + suffix not in set(names)]


def make_bundle(benchmark: str, inputs: Sequence[Path | str], zip_path: Path | str, *, data_dir=None,
                partial: bool = False) -> list[Checked]:
    """Check every file, then write the flat zip (atomically); returns what was checked.

    partial: write a GLUE bundle that lacks tasks (the server refuses it; for a look at part of one)."""
    checked = [check_file(benchmark, path, data_dir) for path in files_of(benchmark, inputs)]
    names = [c.path.name for c in checked]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        paths = [str(c.path) for c in checked if c.path.name == twice[0]]
        raise SubmissionError(f"{twice[0]} is given twice ({', '.join(paths)}): a bundle holds one file per task")
    missing = missing_tasks(benchmark, names)
    if missing and benchmark in COMPLETE and not partial:
        raise SubmissionError(f"the {benchmark.upper()} server takes only complete submissions, and these are "
                              f"missing: {', '.join(missing)} (python experiments/glue.py writes them all; "
                              "--partial bundles what is there)")
    bundle([c.path for c in checked], Path(zip_path))
    return checked
