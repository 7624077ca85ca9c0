"""Rows of pairs and predictions as TSV, CSV or JSON lines, chosen by the file's suffix.

TSV is written unquoted, as the suite's readers (and GLUE's files) read it: a tab or a line break
inside a text would break the row, so it becomes a space and the writer reports how many cells
changed. CSV is quoted where needed; JSON lines keep every value as it is.
"""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

SUFFIXES = (".tsv", ".csv", ".jsonl")
_BREAKS = str.maketrans({"\t": " ", "\n": " ", "\r": " "})


def format_table(path: Path | str, header: list[str], rows) -> tuple[str, int]:
    """(file text, number of TSV cells whose tabs or line breaks became spaces)."""
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        raise ValueError(f"{path}: the file name must end in .tsv, .csv or .jsonl")
    if suffix == ".jsonl":
        return "".join(json.dumps(dict(zip(header, row)), ensure_ascii=False) + "\n" for row in rows), 0
    if suffix == ".csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(header)
        writer.writerows([_cell(v) for v in row] for row in rows)
        return buffer.getvalue(), 0
    changed = 0
    lines = ["\t".join(header)]
    for row in rows:
        cells = []
        for value in row:
            text = _cell(value)
            flat = text.translate(_BREAKS)
            changed += flat != text
            cells.append(flat)
        lines.append("\t".join(cells))
    return "\n".join(lines) + "\n", changed


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6f}"
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)
