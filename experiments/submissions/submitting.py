"""A fitted model's prediction files for a corpus' test sets: each task's test split predicted,
written in its benchmark's format and validated, the files bundled, and each diagnostic scored
where its labeled copy is present."""
from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

from nli_baselines.features.runtime.commands import command

from ..breakdowns.ax import breakdown, format_parity, gender_parity
from ..corpora import Corpus, CorpusNotFoundError, get_corpus
from ..corpora.hub import HubError
from ..corpora.task import NLI
from nli_baselines.experiments.submissions.files import (LABELED, SubmissionError, SubmissionTask, bundle, read_predictions,
                                   require_every_row, submission_tasks, write_predictions)


def write_submissions(predictor, corpus: Corpus, out_dirs: dict[str, Path], *, data_dir=None,
                      on_bad_row: str = "error", jobs: int = 1, progress: bool = False, with_ax: bool = False,
                      zip_path: Path | None = None, log=print, scores: dict | None = None) -> list[Path]:
    """Predict each task's test split with `predictor` and write its file.

    out_dirs: format name ("glue", "superglue", "table") -> directory. A diagnostic whose data is
    missing is skipped with a note; a missing test set of a main task is an error.
    scores: receives, per diagnostic written, its scores when its labeled copy is present.
    """
    written = []
    for benchmark, out_dir in out_dirs.items():
        for task in submission_tasks(corpus, benchmark, with_ax):
            try:
                # A diagnostic rides along from where the main corpus was read: its files, or the hub.
                task_corpus = corpus if task.corpus == corpus.name else corpus.sibling(task.corpus)
                data = task_corpus.load(task.split, data_dir, on_bad_row)
            except (CorpusNotFoundError, HubError) as exc:
                if task.diagnostic:
                    log(f"skipping {task.filename}: {_one_line(exc)}")
                    continue
                raise
            require_every_row(data, Path(out_dir) / task.filename)
            for note in data.notes:  # how the test file was read (columns found, its quotes read as text)
                log(f"note: {note}")
            notes: list[str] = []
            pairs = predictor.annotated(data.pairs, progress=progress, jobs=jobs, notes=notes)
            for note in notes:
                log(f"note: {task.filename}: {note}")
            target = getattr(predictor, "task", NLI)
            if target.is_scores and task.score_range is None and task.labels is None:  # a table of scores
                task = replace(task, score_range=target.score_range or (-math.inf, math.inf))
            if target.is_scores != (task.score_range is not None):
                raise SubmissionError(f"{task.filename} takes {'scores' if task.score_range else 'labels'}, but "
                                      f"this model predicts {target.target}")
            predicted = predictor.predict(pairs)
            labels = list(predicted) if target.is_scores else [str(label) for label in predicted]
            if task.labels is not None and set(labels) - set(task.labels):
                raise SubmissionError(f"{task.filename} takes labels {list(task.labels)}, but this model predicts "
                                      f"{sorted(set(predictor.labels))} (a {len(predictor.labels)}-class model)")
            path = write_predictions(task, [p.id for p in pairs], labels, out_dir, log=log,
                                     labels_allowed=predictor.labels)
            log(f"wrote {path} ({len(pairs)} rows, validated against {task_corpus.name} {task.split})")
            written.append(path)
            if task.diagnostic and scores is not None:
                scored = score_diagnostic(task, path, data_dir)
                if scored is not None:
                    scores[task.name] = scored[0]
                    log(scored[1])
    if zip_path and written:
        bundle(written, zip_path)
        log(f"bundled {len(written)} file(s) into {zip_path}")
    return written


def _one_line(exc: Exception) -> str:
    """A missing diagnostic in one line: the first line of a missing corpus' message ends in
    'Looked for:'; the places follow on the next lines."""
    lines = str(exc).splitlines()
    searched = getattr(exc, "searched", None)
    if searched and lines and lines[0].endswith("Looked for:"):
        return f"{lines[0].removesuffix(' Looked for:').rstrip('.')} (looked for {', '.join(str(p) for p in searched)})"
    return lines[0] if lines else type(exc).__name__


def score_diagnostic(task: SubmissionTask, path: Path, data_dir=None) -> tuple[dict, str] | None:
    """The scores of a written diagnostic file against its labeled copy, when that is present:
    R3 and the breakdown for AX, the two-class MCC for AX-b, accuracy and gender parity for AX-g.
    Returns (result, one line to print), or None."""
    where = LABELED.get((task.benchmark, task.name))
    if where is None:
        return None
    corpus, split = get_corpus(where[0]), where[1]
    try:
        pairs = corpus.load(split, data_dir).pairs
    except CorpusNotFoundError:
        return None
    if not pairs or any(p.label is None for p in pairs):
        return None
    predictions = dict(read_predictions(task, path))
    if task.name == "AX-g":
        result = gender_parity(pairs, predictions)
        return result, format_parity(result)
    result = breakdown(pairs, predictions)
    return result, (f"{task.name}: {result['metric']} {result['overall']:+.3f} on {result['examples']} diagnostic "
                    f"examples (accuracy {100 * result['accuracy']:.1f}%; {command('diagnose')} for the "
                    "breakdown by phenomenon)")
