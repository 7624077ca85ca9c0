"""GLUE and SuperGLUE prediction files: one registry entry per task, atomic writes, validation.

GLUE: `<Task>.tsv`, header `index<TAB>prediction`, rows in test order. SuperGLUE:
`<Task>.jsonl`, one `{"idx": int, "label": str}` per line, in test order.
"""
from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from features.annotation import annotate
from features.atomic import atomic_path, atomic_write
from features.labels import BINARY01, CB3, NLI2, NLI3

from ..corpora import Corpus, CorpusNotFoundError, get_corpus


@dataclass(frozen=True)
class SubmissionTask:
    """A test set with a prediction file: which corpus split it predicts and which labels it takes.

    size: the official number of test examples (a different count is reported, not refused: the
    test file read is what the rows are checked against).
    """

    name: str
    benchmark: str  # "glue" or "superglue"
    corpus: str
    split: str
    labels: tuple[str, ...]
    size: int | None = None

    @property
    def filename(self) -> str:
        return f"{self.name}.tsv" if self.benchmark == "glue" else f"{self.name}.jsonl"


TASKS: dict[tuple[str, str], SubmissionTask] = {}


def register(task: SubmissionTask) -> SubmissionTask:
    TASKS[(task.benchmark, task.name)] = task
    return task


register(SubmissionTask("RTE", "glue", "rte", "test", NLI2, 3000))
register(SubmissionTask("MNLI-m", "glue", "mnli", "test_matched", NLI3, 9796))
register(SubmissionTask("MNLI-mm", "glue", "mnli", "test_mismatched", NLI3, 9847))
register(SubmissionTask("AX", "glue", "ax", "test", NLI3, 1104))
register(SubmissionTask("QNLI", "glue", "qnli", "test", NLI2, 5463))
register(SubmissionTask("WNLI", "glue", "wnli", "test", BINARY01, 146))
register(SubmissionTask("RTE", "superglue", "superglue-rte", "test", NLI2, 3000))
register(SubmissionTask("CB", "superglue", "cb", "test", CB3, 250))
register(SubmissionTask("AX-b", "superglue", "ax-b", "test", NLI2, 1104))

# What a model trained on a corpus writes. The diagnostics ride along: GLUE AX with the MultiNLI
# model (or any three-class model on request), SuperGLUE AX-b with the SuperGLUE RTE model.
BY_CORPUS = {
    ("glue", "rte"): ["RTE"], ("glue", "mnli"): ["MNLI-m", "MNLI-mm", "AX"], ("glue", "qnli"): ["QNLI"],
    ("glue", "wnli"): ["WNLI"], ("superglue", "superglue-rte"): ["RTE", "AX-b"], ("superglue", "cb"): ["CB"],
}
DIAGNOSTICS = {("glue", "AX"), ("superglue", "AX-b")}


class SubmissionError(ValueError):
    """A prediction file that does not match its test set, or a task this model cannot predict."""


def write_predictions(task: SubmissionTask, ids: Sequence[str], labels: Sequence[str], out_dir: Path, *,
                      log: Callable[[str], None] = print) -> Path:
    """Write `task`'s file in `out_dir` (rows in the given test order), then validate it.

    A test set that cannot make a valid file (empty, repeated ids, SuperGLUE ids that are not
    integers) is refused before anything is written. Validation notes, e.g. a row count other than
    the official test size, go to `log`: the file is still written, but the user is told.
    """
    ids = [str(i) for i in ids]
    if len(ids) != len(labels):
        raise SubmissionError(f"{task.name}: {len(ids)} test ids but {len(labels)} predictions")
    _check_test_ids(task, ids)
    if task.benchmark == "superglue":
        wrong = next((i for i in ids if not _is_integer_text(i)), None)
        if wrong is not None:
            raise SubmissionError(f"{task.name}: test id {wrong!r} is not an integer; SuperGLUE files take "
                                  "integer idx values")
    unknown = sorted(set(labels) - set(task.labels))
    if unknown:
        raise SubmissionError(f"{task.name}: predicted label(s) {unknown} are not in {list(task.labels)}")
    path = Path(out_dir) / task.filename
    if task.benchmark == "glue":
        text = "index\tprediction\n" + "".join(f"{i}\t{label}\n" for i, label in zip(ids, labels))
    else:
        text = "".join(json.dumps({"idx": int(i), "label": label}) + "\n" for i, label in zip(ids, labels))
    atomic_write(path, text)
    for note in validate(task, path, ids)["notes"]:
        log(f"note: {path}: {note}")
    return path


def _is_integer_text(text: str) -> bool:
    # int() also takes " 7", "07", "1_0" and non-ASCII digits, whose written idx would not read back as the id.
    return text.isascii() and text.lstrip("-").isdigit() and str(int(text)) == text


def _check_test_ids(task: SubmissionTask, test_ids: Sequence[str]) -> None:
    """Refuse an empty test set and repeated ids (the file would be valid only in form)."""
    if not test_ids:
        raise SubmissionError(f"{task.name}: the test set is empty (0 examples): nothing to predict; "
                              "is the test file empty?")
    seen: dict[str, int] = {}
    for row, test_id in enumerate(map(str, test_ids), start=1):
        if test_id in seen:
            count = sum(1 for i in test_ids if str(i) == test_id)
            raise SubmissionError(f"{task.name}: test id {test_id!r} occurs {count} times (rows {seen[test_id]} "
                                  f"and {row}); test ids must be unique")
        seen[test_id] = row


def read_predictions(task: SubmissionTask, path: Path) -> list[tuple[str, str]]:
    """(id, label) rows of a prediction file, checking its layout; an id may occur once."""
    rows = []
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        lines = data.decode("utf-8").split("\n")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise SubmissionError(f"{path}:{line}: not UTF-8 (byte {exc.start})") from None
    if lines and lines[-1] == "":
        lines.pop()
    if task.benchmark == "glue":
        if not lines or lines[0] != "index\tprediction":
            raise SubmissionError(f"{path}:1: header must be 'index<TAB>prediction'")
        for number, line in enumerate(lines[1:], start=2):
            cells = line.split("\t")
            if len(cells) != 2:
                raise SubmissionError(f"{path}:{number}: expected 2 tab-separated cells")
            rows.append((cells[0], cells[1]))
    else:
        for number, line in enumerate(lines, start=1):
            try:
                obj = json.loads(line)
                idx, label = obj["idx"], obj["label"]
            except (ValueError, RecursionError, KeyError, TypeError) as exc:
                raise SubmissionError(f"{path}:{number}: not an {{idx, label}} JSON line ({exc})") from None
            if type(idx) is not int:
                raise SubmissionError(f"{path}:{number}: idx must be an integer, not {idx!r}")
            if not isinstance(label, str):
                raise SubmissionError(f"{path}:{number}: label must be a string, not {label!r}")
            rows.append((str(idx), label))
    first_line = 2 if task.benchmark == "glue" else 1
    seen: dict[str, int] = {}
    for number, (row_id, _) in enumerate(rows, start=first_line):
        if row_id in seen:
            raise SubmissionError(f"{path}:{number}: {'index' if task.benchmark == 'glue' else 'idx'} {row_id} "
                                  f"repeats line {seen[row_id]}")
        seen[row_id] = number
    return rows


def validate(task: SubmissionTask, path: Path, test_ids: Sequence[str]) -> dict:
    """Row count, id order and label vocabulary of a written file against the task's test ids.

    Raises SubmissionError for a mismatch, an empty test set or repeated ids; returns {"rows", "notes"},
    where notes are facts a user should see but that do not make the file wrong.
    """
    _check_test_ids(task, test_ids)
    rows = read_predictions(task, path)
    if len(rows) != len(test_ids):
        raise SubmissionError(f"{path}: {len(rows)} rows, but the test set has {len(test_ids)} examples")
    ids = [i for i, _ in rows]
    if ids != [str(i) for i in test_ids]:
        first = next(n for n, (a, b) in enumerate(zip(ids, test_ids)) if a != str(b))
        raise SubmissionError(f"{path}: row {first + 1} has index {ids[first]}, the test set {test_ids[first]}")
    unknown = sorted({label for _, label in rows} - set(task.labels))
    if unknown:
        raise SubmissionError(f"{path}: labels {unknown} are not in {list(task.labels)}")
    notes = []
    if task.size is not None and len(rows) != task.size:
        notes.append(f"{task.name} has {len(rows)} rows; the official test set has {task.size}")
    return {"rows": len(rows), "notes": notes}


def bundle(paths: Sequence[Path], zip_path: Path) -> Path:
    """A flat zip of the written files (what the GLUE/SuperGLUE servers take), written atomically."""
    with atomic_path(zip_path) as tmp:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in paths:
                archive.write(path, arcname=Path(path).name)
    return Path(zip_path)


def submission_tasks(corpus: Corpus, benchmark: str, with_ax: bool = False) -> list[SubmissionTask]:
    """The prediction files a model trained on `corpus` writes for `benchmark` ("glue"/"superglue")."""
    names = list(BY_CORPUS.get((benchmark, corpus.name), []))
    if benchmark == "glue" and with_ax and "AX" not in names:
        names.append("AX")
    if not names or all((benchmark, n) in DIAGNOSTICS for n in names):
        known = sorted({c for b, c in BY_CORPUS if b == benchmark})
        raise SubmissionError(f"{corpus.name} has no {benchmark.upper()} test set to predict; "
                              f"{benchmark} tasks come from: {', '.join(known)}"
                              + (" (or --with-ax for the GLUE diagnostic)" if benchmark == "glue" else ""))
    return [TASKS[(benchmark, n)] for n in names]


def write_submissions(predictor, corpus: Corpus, out_dirs: dict[str, Path], *, data_dir=None,
                      on_bad_row: str = "error", jobs: int = 1, progress: bool = False, with_ax: bool = False,
                      zip_path: Path | None = None, log=print) -> list[Path]:
    """Predict each task's test split with `predictor` and write its file.

    out_dirs: benchmark ("glue"/"superglue") -> directory. A diagnostic whose data is missing is
    skipped with a note; a missing test set of a main task is an error.
    """
    written = []
    for benchmark, out_dir in out_dirs.items():
        for task in submission_tasks(corpus, benchmark, with_ax):
            task_corpus = get_corpus(task.corpus)
            try:
                pairs = task_corpus.load(task.split, data_dir, on_bad_row).pairs
            except CorpusNotFoundError as exc:
                if (benchmark, task.name) in DIAGNOSTICS:
                    log(f"skipping {task.filename}: {str(exc).splitlines()[0]}")
                    continue
                raise
            pairs = annotate(pairs, progress=progress, jobs=jobs, lemmas=getattr(predictor, "needs_lemmas", False))
            labels = [str(label) for label in predictor.predict(pairs)]
            if set(labels) - set(task.labels):
                raise SubmissionError(f"{task.filename} takes labels {list(task.labels)}, but this model predicts "
                                      f"{sorted(set(predictor.labels))} (a {len(predictor.labels)}-class model)")
            path = write_predictions(task, [p.id for p in pairs], labels, out_dir, log=log)
            log(f"wrote {path} ({len(pairs)} rows, validated against {task_corpus.name} {task.split})")
            written.append(path)
    if zip_path and written:
        bundle(written, zip_path)
        log(f"bundled {len(written)} file(s) into {zip_path}")
    return written
