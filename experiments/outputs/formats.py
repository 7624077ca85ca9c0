"""Prediction file formats: GLUE, SuperGLUE and plain tables, one registry entry each.

A format says how a file of (id, label) rows is written and read back (with FILE:LINE errors),
what its ids must be, and which directory option of `run.py` writes it (`--glue-out DIR`).
Which test sets a format has files for is said by the tasks (`submissions.files`). Adding a
format is one `register_format(...)`; run.py's options and the diagnostic read this registry.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from ..corpora.readers.common import open_input
from .tabular import inert


class PredictionFileError(ValueError):
    """A prediction file whose layout is wrong; the message names the file and line."""


@dataclass(frozen=True)
class PredictionFormat:
    """How one benchmark's prediction files look.

    suffix: of every file of the format.
    id_field: what the format calls a row's id (in messages).
    integer_ids: ids must be integers (SuperGLUE's `idx`, GLUE's `index`): a test file's id column
        that holds anything else (a formula, terminal escapes) makes no file of the format.
    cell: a text (an id, a label) as the file holds it: as it is, or inert for a spreadsheet
        (`outputs.tabular.inert`: an apostrophe before a formula) where ids and labels are free text.
    header: the first line, if the format has one.
    encode: (id, label) -> one line, without its newline.
    decode: one line -> (id, label); ValueError says what is wrong with it.
    every_corpus: files for any corpus' test split (a plain table), not only registered tasks.
    """

    name: str
    title: str
    suffix: str
    id_field: str
    encode: Callable[[str, str], str]
    decode: Callable[[str], tuple[str, str]]
    integer_ids: bool = False
    header: str | None = None
    every_corpus: bool = False
    cell: Callable[[str], str] = str

    @property
    def option(self) -> str:
        """run.py's directory option: `glue_out` (--glue-out DIR)."""
        return f"{self.name}_out"

    def text(self, ids: Sequence[str], labels: Sequence[str]) -> str:
        lines = [self.header] if self.header is not None else []
        lines += [self.encode(self.cell(i), self.cell(label)) for i, label in zip(ids, labels)]
        return "".join(line + "\n" for line in lines)

    def read(self, path: Path) -> list[tuple[str, str]]:
        """(id, label) rows of a file, its layout checked; an id may occur once."""
        with open_input(path, "predictions", "prediction file") as handle:  # a regular file, bounded
            data = handle.read()
        try:
            lines = data.decode("utf-8").split("\n")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            raise PredictionFileError(f"{path}:{line}: not UTF-8 (byte {exc.start})") from None
        if lines and lines[-1] == "":
            lines.pop()
        first = 1
        if self.header is not None:
            if not lines or lines[0].rstrip("\r") != self.header:
                raise PredictionFileError(f"{path}:1: header must be {self.header.replace(chr(9), '<TAB>')!r}")
            lines, first = lines[1:], 2
        rows, seen = [], {}
        for number, line in enumerate(lines, start=first):
            try:
                row_id, label = self.decode(line.rstrip("\r"))
            except ValueError as exc:
                raise PredictionFileError(f"{path}:{number}: {exc}") from None
            if row_id in seen:
                raise PredictionFileError(f"{path}:{number}: {self.id_field} {row_id} repeats line {seen[row_id]}")
            seen[row_id] = number
            rows.append((row_id, label))
        return rows


FORMATS: dict[str, PredictionFormat] = {}


def register_format(fmt: PredictionFormat) -> PredictionFormat:
    if fmt.name in FORMATS and FORMATS[fmt.name] != fmt:
        raise ValueError(f"prediction format {fmt.name!r} is already registered")
    FORMATS[fmt.name] = fmt
    return fmt


def format_for(path: Path | str) -> PredictionFormat:
    """The benchmark format a prediction file's suffix names (.tsv GLUE, .jsonl SuperGLUE)."""
    suffix = Path(path).suffix.lower()
    for fmt in FORMATS.values():
        if fmt.suffix == suffix and not fmt.every_corpus:
            return fmt
    raise PredictionFileError(f"{path}: no prediction format ends in {suffix!r} "
                              f"({', '.join(f'{f.title} {f.suffix}' for f in FORMATS.values() if not f.every_corpus)})")


def _tsv_cells(line: str) -> tuple[str, str]:
    cells = line.split("\t")
    if len(cells) != 2:
        raise ValueError("expected 2 tab-separated cells")
    return cells[0], cells[1]


def _json_row(line: str) -> tuple[str, str]:
    try:
        obj = json.loads(line)
        idx, label = obj["idx"], obj["label"]
    except (ValueError, RecursionError, KeyError, TypeError) as exc:
        raise ValueError(f"not an {{idx, label}} JSON line ({exc})") from None
    if type(idx) is not int:
        raise ValueError(f"idx must be an integer, not {idx!r}")
    if not isinstance(label, str):
        raise ValueError(f"label must be a string, not {label!r}")
    return str(idx), label


# GLUE's test files number their rows (index 0, 1, ...): a test file whose index column holds other
# text is refused, so that no formula, terminal escape or bidirectional control reaches a GLUE file.
GLUE = register_format(PredictionFormat(
    "glue", "GLUE", ".tsv", "index", encode=lambda i, label: f"{i}\t{label}", decode=_tsv_cells,
    integer_ids=True, header="index\tprediction"))
SUPERGLUE = register_format(PredictionFormat(
    "superglue", "SuperGLUE", ".jsonl", "idx", encode=lambda i, label: json.dumps({"idx": int(i), "label": label}),
    decode=_json_row, integer_ids=True))
# Any corpus with a test split (a custom --test-file among them): `<dataset>-<split>.tsv`, id and
# predicted label, for a task no benchmark server scores.
# Its ids and labels are a file's free text: each is made inert for a spreadsheet, as predict.py's
# tables are (`outputs.tabular.inert`), and read back as written.
TABLE = register_format(PredictionFormat(
    "table", "plain table", ".tsv", "id", encode=lambda i, label: f"{i}\t{label}", decode=_tsv_cells,
    header="id\tpredicted", every_corpus=True, cell=inert))
