"""Prediction files for test sets: one registry entry per task, atomic writes, validation.

A task is a test set with an official file (GLUE's `RTE.tsv`, SuperGLUE's `CB.jsonl`); its format
(`outputs.formats`) says how the file looks. The plain-table format writes a file for the test
split of any corpus, a custom one included.
"""
from __future__ import annotations

import math
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from nli_baselines.features.labels import BINARY01, CB3, NLI2, NLI3
from nli_baselines.features.storage.atomic import atomic_path, atomic_write

from ..corpora import Corpus
from nli_baselines.experiments.outputs.formats import FORMATS, PredictionFileError, PredictionFormat

# The labeled copies of the diagnostics, where a run can score the file it wrote: task -> (corpus, split).
LABELED = {("glue", "AX"): ("ax", "test_labeled"), ("superglue", "AX-b"): ("ax-b", "test"),
           ("superglue", "AX-g"): ("ax-g", "test")}


@dataclass(frozen=True)
class SubmissionTask:
    """A test set with a prediction file: which corpus split it predicts and which labels it takes.

    size: the official number of test examples (a different count is reported, not refused: the
        test file read is what the rows are checked against).
    diagnostic: a diagnostic set that rides along with a model trained on another corpus (GLUE's
        AX, SuperGLUE's AX-b and AX-g); missing data skips it with a note.
    score_range: a task whose predictions are scores (GLUE's STS-B): each is written as a number
        with three decimals, clipped to this range, and read back as one inside it.
    """

    name: str
    benchmark: str  # a format's name: "glue", "superglue"
    corpus: str
    split: str
    labels: tuple[str, ...] | None  # None: the model's own labels (a plain table)
    size: int | None = None
    diagnostic: bool = False
    score_range: tuple[float, float] | None = None

    @property
    def format(self) -> PredictionFormat:
        return FORMATS[self.benchmark]

    @property
    def filename(self) -> str:
        return f"{self.name}{self.format.suffix}"

    def written(self, value) -> str:
        """A prediction as the file holds it: a score with three decimals inside the task's range
        (as GLUE's STS-B file is read), a label as it is."""
        if self.score_range is None:
            return str(value)
        low, high = self.score_range
        return f"{min(high, max(low, float(value))):.3f}"


TASKS: dict[tuple[str, str], SubmissionTask] = {}


def register(task: SubmissionTask) -> SubmissionTask:
    TASKS[(task.benchmark, task.name)] = task
    return task


register(SubmissionTask("CoLA", "glue", "cola", "test", BINARY01, 1063))
register(SubmissionTask("SST-2", "glue", "sst2", "test", BINARY01, 1821))
register(SubmissionTask("MRPC", "glue", "mrpc", "test", BINARY01, 1725))
register(SubmissionTask("STS-B", "glue", "stsb", "test", None, 1379, score_range=(0.0, 5.0)))
register(SubmissionTask("QQP", "glue", "qqp", "test", BINARY01, 390965))
register(SubmissionTask("RTE", "glue", "rte", "test", NLI2, 3000))
register(SubmissionTask("MNLI-m", "glue", "mnli", "test_matched", NLI3, 9796))
register(SubmissionTask("MNLI-mm", "glue", "mnli", "test_mismatched", NLI3, 9847))
register(SubmissionTask("AX", "glue", "ax", "test", NLI3, 1104, diagnostic=True))
register(SubmissionTask("QNLI", "glue", "qnli", "test", NLI2, 5463))
register(SubmissionTask("WNLI", "glue", "wnli", "test", BINARY01, 146))
register(SubmissionTask("RTE", "superglue", "superglue-rte", "test", NLI2, 3000))
register(SubmissionTask("CB", "superglue", "cb", "test", CB3, 250))
register(SubmissionTask("AX-b", "superglue", "ax-b", "test", NLI2, 1104, diagnostic=True))
register(SubmissionTask("AX-g", "superglue", "ax-g", "test", NLI2, 356, diagnostic=True))

# What a model trained on a corpus writes. The diagnostics ride along: GLUE AX with the MultiNLI
# model (or any three-class model on request), SuperGLUE AX-b and AX-g with the SuperGLUE RTE model.
BY_CORPUS = {
    ("glue", "cola"): ["CoLA"], ("glue", "sst2"): ["SST-2"], ("glue", "mrpc"): ["MRPC"], ("glue", "stsb"): ["STS-B"],
    ("glue", "qqp"): ["QQP"], ("glue", "rte"): ["RTE"], ("glue", "mnli"): ["MNLI-m", "MNLI-mm", "AX"], ("glue", "qnli"): ["QNLI"],
    ("glue", "wnli"): ["WNLI"], ("superglue", "superglue-rte"): ["RTE", "AX-b", "AX-g"], ("superglue", "cb"): ["CB"],
}
# The diagnostic any three-class NLI model may write on request (--with-ax): format -> task.
WITH_AX = ("glue", "AX")


class SubmissionError(ValueError):
    """A prediction file that does not match its test set, or a task this model cannot predict."""


def require_every_row(data, written: str | Path) -> None:
    """Refuse to write a prediction file that would lack rows of its input (a `SplitData` read with
    --on-bad-row skip): the message names the rows not read, by line where the reader knows it.
    The corpus' own exclusions (SNLI's `-`: no gold label) are not rows a file lacks."""
    if data.unread:
        raise SubmissionError(f"{written} not written: {data.unread_rows()}; a prediction file needs a row for every "
                              "row of its input: fix those rows")


def write_predictions(task: SubmissionTask, ids: Sequence[str], labels: Sequence[str], out_dir: Path, *,
                      log: Callable[[str], None] = print, labels_allowed: Sequence[str] | None = None) -> Path:
    """Write `task`'s file in `out_dir` (rows in the given test order), then validate it.

    A test set that cannot make a valid file (empty, repeated ids, ids the format cannot hold) is
    refused before anything is written. Validation notes, e.g. a row count other than the
    official test size, go to `log`: the file is still written, but the user is told.
    labels_allowed: the labels of a task that takes the model's own (a plain table).
    """
    ids = [str(i) for i in ids]
    if len(ids) != len(labels):
        raise SubmissionError(f"{task.name}: {len(ids)} test ids but {len(labels)} predictions")
    _check_test_ids(task, ids)
    labels = [task.written(label) for label in labels]
    allowed = None
    if task.score_range is None:
        allowed = task.labels if task.labels is not None else tuple(labels_allowed or sorted(set(labels)))
        unknown = sorted(set(labels) - set(allowed))
        if unknown:
            raise SubmissionError(f"{task.name}: predicted label(s) {unknown} are not in {list(allowed)}")
    path = Path(out_dir) / task.filename
    atomic_write(path, task.format.text(ids, labels))
    for note in validate(task, path, ids, allowed)["notes"]:
        log(f"note: {path}: {note}")
    return path


def _is_integer_text(text: str) -> bool:
    # int() also takes " 7", "07", "1_0" and non-ASCII digits, whose written idx would not read back as the id.
    return text.isascii() and text.lstrip("-").isdigit() and str(int(text)) == text


def _check_test_ids(task: SubmissionTask, test_ids: Sequence[str]) -> None:
    """Refuse an empty test set, repeated ids, and ids the format cannot hold (the file would be
    valid only in form)."""
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
        if task.format.integer_ids and not _is_integer_text(test_id):
            raise SubmissionError(f"{task.name}: test id {test_id!r} is not an integer; {task.format.title} files "
                                  f"take integer {task.format.id_field} values")
        if any(c in test_id for c in "\t\n\r"):
            raise SubmissionError(f"{task.name}: test id {test_id!r} holds a tab or a line break, which a "
                                  f"{task.format.title} file cannot hold")


def read_predictions(task: SubmissionTask, path: Path) -> list[tuple[str, str]]:
    """(id, label) rows of a prediction file, checking its layout; an id may occur once."""
    try:
        return task.format.read(path)
    except PredictionFileError as exc:
        raise SubmissionError(str(exc)) from None


def validate(task: SubmissionTask, path: Path, test_ids: Sequence[str], labels: Sequence[str] | None = None) -> dict:
    """Row count, id order and label vocabulary of a written file against the task's test ids.

    Raises SubmissionError for a mismatch, an empty test set or repeated ids; returns {"rows", "notes"},
    where notes are facts a user should see but that do not make the file wrong.
    """
    _check_test_ids(task, test_ids)
    rows = read_predictions(task, path)
    if len(rows) != len(test_ids):
        raise SubmissionError(f"{path}: {len(rows)} rows, but the test set has {len(test_ids)} examples")
    ids = [i for i, _ in rows]
    written = [task.format.cell(str(i)) for i in test_ids]  # as the file holds them (a table's: inert)
    if ids != written:
        first = next(n for n, (a, b) in enumerate(zip(ids, written)) if a != b)
        raise SubmissionError(f"{path}: row {first + 1} has {task.format.id_field} {ids[first]}, the test set "
                              f"{written[first]}")
    if task.score_range is not None:
        check_scores(task, path, rows)
    else:
        allowed = task.labels if task.labels is not None else labels
        allowed = None if allowed is None else [task.format.cell(str(label)) for label in allowed]
        unknown = sorted({label for _, label in rows} - set(allowed)) if allowed is not None else []
        if unknown:
            raise SubmissionError(f"{path}: labels {unknown} are not in {list(allowed)}")
    notes = []
    if task.size is not None and len(rows) != task.size:
        notes.append(f"{task.name} has {len(rows)} rows; the official test set has {task.size}")
    return {"rows": len(rows), "notes": notes}


# A score as a prediction file writes it: a plain decimal (`3.250`, `4`). Not all that float()
# takes: " 3", "+3", "0_1", "1e-400" (read as 0), "３" or "٣" (other scripts' digits) are no score
# this suite writes, and a server's reader may take them otherwise or not at all.
_DECIMAL = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")


def check_scores(task: SubmissionTask, path: Path, rows) -> None:
    """Every prediction of a score task a plain decimal inside its range."""
    low, high = task.score_range
    for n, (_, value) in enumerate(rows):
        number = float(value) if _DECIMAL.fullmatch(value) else math.nan
        if not (math.isfinite(number) and low <= number <= high):
            raise SubmissionError(f"{path}: row {n + 1}: prediction {value[:40]!r} is not a score in {low:g}..{high:g} "
                                  "written as a plain decimal")


def bundle(paths: Sequence[Path], zip_path: Path) -> Path:
    """A flat zip of the written files (what the GLUE/SuperGLUE servers take), written atomically."""
    with atomic_path(zip_path) as tmp:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in paths:
                archive.write(path, arcname=Path(path).name)
    return Path(zip_path)


def submission_tasks(corpus: Corpus, benchmark: str, with_ax: bool = False) -> list[SubmissionTask]:
    """The prediction files a model trained on `corpus` writes in `benchmark`'s format."""
    fmt = FORMATS[benchmark]
    if fmt.every_corpus:
        if corpus.test_split is None or corpus.test_split not in corpus.splits:
            raise SubmissionError(f"{corpus.name} has no test split to predict")
        return [SubmissionTask(f"{corpus.stem}-{corpus.test_split}", benchmark, corpus.name, corpus.test_split, None)]
    names = list(BY_CORPUS.get((benchmark, corpus.name), []))
    asked = with_ax and benchmark == WITH_AX[0]
    if asked and WITH_AX[1] not in names:
        names.append(WITH_AX[1])
    if not names or (not asked and all(TASKS[(benchmark, n)].diagnostic for n in names)):
        known = sorted({c for b, c in BY_CORPUS if b == benchmark})
        raise SubmissionError(f"{corpus.name} has no {fmt.title} test set to predict; {fmt.title} tasks come from: "
                              f"{', '.join(known)}")
    return [TASKS[(benchmark, n)] for n in names]
