"""Rows of pairs and predictions as TSV, CSV or JSON lines, chosen by the file's suffix.

Text goes back as it came: a TSV or CSV cell holding a tab (or comma), a line break of either
kind, or a double quote is quoted, its quotes doubled, as the csv module and pandas read it (and
so do the suite's readers: `experiments.corpora.readers.custom`). Other cells are written as they
are, so the usual file is plain TSV. JSON lines keep every value as it is.

One exception keeps a TSV or CSV file from acting when a spreadsheet opens it: a cell that begins
with `=`, `+`, `-`, `@`, a tab or a carriage return, and is not a number, is written with an
apostrophe before it (`'=HYPERLINK(...)`), which spreadsheets show as text and do not evaluate
(OWASP's advice on CSV injection). Such a cell reads back with its apostrophe; JSON lines are
written unchanged.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

SUFFIXES = (".tsv", ".csv", ".jsonl")
_SEPARATORS = {".tsv": "\t", ".csv": ","}


def format_table(path: Path | str, header: list[str], rows) -> str:
    """The file's text: a header, then a line per row (JSON lines: an object per row)."""
    suffix = Path(path).suffix.lower()
    if suffix not in SUFFIXES:
        raise ValueError(f"{path}: the file name must end in .tsv, .csv or .jsonl")
    if suffix == ".jsonl":
        return "".join(json.dumps(dict(zip(header, map(_json_value, row))), ensure_ascii=False, allow_nan=False)
                       + "\n" for row in rows)
    separator = _SEPARATORS[suffix]
    lines = [separator.join(_quoted(inert(name), separator) for name in header)]
    lines += [separator.join(_quoted(inert(_cell(value)), separator) for value in row) for row in rows]
    return "\n".join(lines) + "\n"


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def inert(text: str) -> str:
    """`text` as a spreadsheet shows but never evaluates it: an apostrophe before a cell that
    begins like a formula (FORMULA_START) and is not a number."""
    if text.startswith(FORMULA_START):
        try:
            float(text)
        except ValueError:
            return "'" + text
    return text


def _quoted(text: str, separator: str) -> str:
    if separator in text or "\n" in text or "\r" in text or '"' in text:
        return '"' + text.replace('"', '""') + '"'
    return text


def _json_value(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None  # JSON has no NaN or infinity
    return value


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6f}"
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)
