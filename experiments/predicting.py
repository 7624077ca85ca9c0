"""Test-set predictions of a run, written as GLUE/SuperGLUE submission files."""
from __future__ import annotations

from pathlib import Path

from .cli import UsageError
from .corpora import Corpus, CorpusNotFoundError, get_corpus
from .predictor import Predictor
from .runner import RunConfig, annotate_split
from .submissions import BY_CORPUS, DIAGNOSTICS, TASKS, bundle, write_predictions


def submission_tasks(corpus: Corpus, benchmark: str, with_ax: bool) -> list:
    names = list(BY_CORPUS.get((benchmark, corpus.name), []))
    if benchmark == "glue" and with_ax and "AX" not in names:
        names.append("AX")
    if not names or all((benchmark, n) in DIAGNOSTICS for n in names):
        known = sorted({c for b, c in BY_CORPUS if b == benchmark})
        raise UsageError(f"{corpus.name} has no {benchmark.upper()} test set to predict; "
                         f"{benchmark} tasks come from: {', '.join(known)}"
                         + (" (or --with-ax for the GLUE diagnostic)" if benchmark == "glue" else ""))
    return [TASKS[(benchmark, n)] for n in names]


def write_submissions(predictor: Predictor, corpus: Corpus, config: RunConfig, out_dirs: dict[str, Path],
                      with_ax: bool = False, zip_path: Path | None = None, log=print) -> list[Path]:
    """Predict each task's test split and write its file; diagnostics without data are skipped with a note."""
    written = []
    for benchmark, out_dir in out_dirs.items():
        for task in submission_tasks(corpus, benchmark, with_ax):
            task_corpus = get_corpus(task.corpus)
            try:
                pairs = annotate_split(task_corpus, task.split, config)
            except CorpusNotFoundError as exc:
                if (benchmark, task.name) in DIAGNOSTICS:
                    log(f"skipping {task.filename}: {str(exc).splitlines()[0]}")
                    continue
                raise
            labels = [str(label) for label in predictor.predict(pairs)]
            if set(labels) - set(task.labels):
                raise UsageError(f"{task.filename} takes labels {list(task.labels)}, but this model predicts "
                                 f"{sorted(set(predictor.labels))} (a {len(predictor.labels)}-class model)")
            path = write_predictions(task, [p.id for p in pairs], labels, out_dir)
            log(f"wrote {path} ({len(pairs)} rows, validated against {task_corpus.name} {task.split})")
            written.append(path)
    if zip_path and written:
        bundle(written, zip_path)
        log(f"bundled {len(written)} file(s) into {zip_path}")
    return written
