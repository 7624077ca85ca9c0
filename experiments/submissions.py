"""GLUE and SuperGLUE prediction files: one registry entry per task, atomic writes, validation.

GLUE: `<Task>.tsv`, header `index<TAB>prediction`, rows in test order. SuperGLUE:
`<Task>.jsonl`, one `{"idx": int, "label": str}` per line, in test order.
"""
from __future__ import annotations

import json
import os
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

NLI2 = ("entailment", "not_entailment")
NLI3 = ("entailment", "neutral", "contradiction")


@dataclass(frozen=True)
class BenchmarkTask:
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


TASKS: dict[tuple[str, str], BenchmarkTask] = {}


def register(task: BenchmarkTask) -> BenchmarkTask:
    TASKS[(task.benchmark, task.name)] = task
    return task


register(BenchmarkTask("RTE", "glue", "rte", "test", NLI2, 3000))
register(BenchmarkTask("MNLI-m", "glue", "mnli", "test_matched", NLI3, 9796))
register(BenchmarkTask("MNLI-mm", "glue", "mnli", "test_mismatched", NLI3, 9847))
register(BenchmarkTask("AX", "glue", "ax", "test", NLI3, 1104))
register(BenchmarkTask("QNLI", "glue", "qnli", "test", NLI2, 5463))
register(BenchmarkTask("WNLI", "glue", "wnli", "test", ("0", "1"), 146))
register(BenchmarkTask("RTE", "superglue", "superglue-rte", "test", NLI2, 3000))
register(BenchmarkTask("CB", "superglue", "cb", "test", ("entailment", "contradiction", "neutral"), 250))
register(BenchmarkTask("AX-b", "superglue", "ax-b", "test", NLI2, 1104))

# What a model trained on a corpus writes. The diagnostics ride along: GLUE AX with the MultiNLI
# model (or any three-class model on request), SuperGLUE AX-b with the SuperGLUE RTE model.
BY_CORPUS = {
    ("glue", "rte"): ["RTE"], ("glue", "mnli"): ["MNLI-m", "MNLI-mm", "AX"], ("glue", "qnli"): ["QNLI"],
    ("glue", "wnli"): ["WNLI"], ("superglue", "superglue-rte"): ["RTE", "AX-b"], ("superglue", "cb"): ["CB"],
}
DIAGNOSTICS = {("glue", "AX"), ("superglue", "AX-b")}


class SubmissionError(ValueError):
    """A prediction file that does not match its test set."""


def _atomic_write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_predictions(task: BenchmarkTask, ids: Sequence[str], labels: Sequence[str], out_dir: Path) -> Path:
    """Write `task`'s file in `out_dir` (rows in the given test order), then validate it."""
    if len(ids) != len(labels):
        raise SubmissionError(f"{task.name}: {len(ids)} test ids but {len(labels)} predictions")
    unknown = sorted(set(labels) - set(task.labels))
    if unknown:
        raise SubmissionError(f"{task.name}: predicted label(s) {unknown} are not in {list(task.labels)}")
    path = Path(out_dir) / task.filename
    if task.benchmark == "glue":
        text = "index\tprediction\n" + "".join(f"{i}\t{label}\n" for i, label in zip(ids, labels))
    else:
        text = "".join(json.dumps({"idx": int(i), "label": label}) + "\n" for i, label in zip(ids, labels))
    _atomic_write(path, text)
    validate(task, path, ids)
    return path


def read_predictions(task: BenchmarkTask, path: Path) -> list[tuple[str, str]]:
    """(id, label) rows of a prediction file, checking its layout."""
    rows = []
    with open(path, encoding="utf-8", newline="") as handle:
        lines = handle.read().split("\n")
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
                rows.append((str(obj["idx"]), obj["label"]))
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                raise SubmissionError(f"{path}:{number}: not an {{idx, label}} JSON line ({exc})") from None
    return rows


def validate(task: BenchmarkTask, path: Path, test_ids: Sequence[str]) -> dict:
    """Row count, id order and label vocabulary of a written file against the task's test ids."""
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
    zip_path = Path(zip_path)
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = zip_path.with_name(f".{zip_path.name}.tmp")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in paths:
            archive.write(path, arcname=Path(path).name)
    tmp.replace(zip_path)
    return zip_path
