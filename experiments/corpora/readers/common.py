"""Shared machinery of the corpus readers: errors, bad-row policy, line and TSV iteration."""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from features.pair import Pair

ON_BAD_ROW_CHOICES = ("error", "skip")
NO_GOLD = "no gold label"


class DataFormatError(ValueError):
    """A malformed row or file; the message names file, line and reason."""

    def __init__(self, path: Path | str, line: int | None, reason: str):
        self.path, self.line, self.reason = Path(path), line, reason
        where = f"{path}:{line}" if line is not None else f"{path}"
        super().__init__(f"{where}: {reason}")


@dataclass
class SplitData:
    """The pairs of one split plus an account of every row that was not kept."""

    dataset: str
    split: str
    paths: list[Path]
    pairs: list[Pair]
    rows: int = 0  # data rows seen in the file(s), header excluded
    skipped: Counter = field(default_factory=Counter)  # reason -> count

    @property
    def labeled(self) -> bool:
        return bool(self.pairs) and all(p.label is not None for p in self.pairs)

    def label_counts(self) -> dict[str, int]:
        return dict(sorted(Counter(p.label for p in self.pairs if p.label is not None).items()))


class BadRows:
    """Counts data rows and applies `--on-bad-row`: raise on the first malformed row, or count and go on.

    Rows excluded by the corpus' own convention (SNLI's `-` gold label) are not
    malformed; they are always counted under `NO_GOLD` and never raise.
    """

    def __init__(self, path: Path, on_bad_row: str = "error"):
        if on_bad_row not in ON_BAD_ROW_CHOICES:
            raise ValueError(f"on_bad_row must be one of {ON_BAD_ROW_CHOICES}, got {on_bad_row!r}")
        self.path, self.on_bad_row = path, on_bad_row
        self.skipped: Counter = Counter()
        self.rows = 0  # data rows seen (non-empty lines, header excluded, or XML pairs)

    def split(self, dataset: str, split: str, pairs: list[Pair]) -> SplitData:
        return SplitData(dataset, split, [self.path], pairs, self.rows, self.skipped)

    def bad(self, line: int | None, reason: str, category: str | None = None) -> None:
        """Report a malformed row; `category` is the counting key (defaults to the reason)."""
        if self.on_bad_row == "error":
            raise DataFormatError(self.path, line, reason)
        self.skipped[category or reason] += 1

    def exclude(self, reason: str) -> None:
        self.skipped[reason] += 1


def iter_lines(path: Path, bad: BadRows) -> Iterator[tuple[int, str]]:
    """Yield (1-based line number, text) of non-empty lines; CRLF and a missing final newline are fine."""
    with open(path, "rb") as handle:
        data = handle.read()
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if not raw.strip():
            continue
        bad.rows += 1
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            bad.bad(number, f"undecodable bytes (not UTF-8) at byte {exc.start}", "undecodable bytes")
            continue
        if number == 1 and text.startswith("\ufeff"):
            text = text[1:]
        yield number, text


def iter_tsv(path: Path, bad: BadRows, required: tuple[str, ...]) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield (line, row dict) of a header-first, tab-separated, *unquoted* file.

    GLUE and SICK files are not CSV-quoted: a field may begin with `"`, so the
    csv module's default quoting would merge lines. Fields are split on tabs only.
    """
    lines = iter_lines(path, bad)
    try:
        _, header_line = next(lines)
    except StopIteration:
        raise DataFormatError(path, None, "empty file (no header line)") from None
    bad.rows -= 1  # the header is not a data row
    header = header_line.split("\t")
    missing = [c for c in required if c not in header]
    if missing:
        raise DataFormatError(path, 1, f"header lacks column(s) {', '.join(missing)}; found {', '.join(header)}")
    for number, line in lines:
        cells = line.split("\t")
        if len(cells) != len(header):
            bad.bad(number, f"expected {len(header)} tab-separated columns, found {len(cells)}",
                    "wrong column count")
            continue
        yield number, dict(zip(header, cells))


def iter_jsonl(path: Path, bad: BadRows) -> Iterator[tuple[int, dict]]:
    """Yield (line, object) of a JSON-lines file; invalid JSON or a non-object is a bad row."""
    for number, line in iter_lines(path, bad):
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            bad.bad(number, f"invalid JSON ({exc.msg} at column {exc.colno})", "invalid JSON")
            continue
        if not isinstance(obj, dict):
            bad.bad(number, "a JSON line must hold an object", "invalid JSON")
            continue
        yield number, obj


def require_fields(row: dict, names: tuple[str, ...], number: int, bad: BadRows) -> bool:
    """True when every named field is present and not None; else report the row."""
    missing = [n for n in names if row.get(n) is None]
    if missing:
        bad.bad(number, f"missing field(s) {', '.join(missing)}", "missing field")
        return False
    return True


def map_label(raw: str, mapping: dict[str, str], number: int, bad: BadRows) -> str | None:
    """Canonical label for `raw`, or None after reporting an unknown label."""
    label = mapping.get(raw)
    if label is None:
        bad.bad(number, f"unknown label {raw!r}; expected one of {', '.join(sorted(mapping))}", "unknown label")
    return label
