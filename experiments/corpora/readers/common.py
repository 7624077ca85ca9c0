"""Shared machinery of the corpus readers: errors, bad-row policy, line and TSV iteration."""
from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from features.pair import Pair

ON_BAD_ROW_CHOICES = ("error", "skip")
NO_GOLD = "no gold label"
UNDECODABLE = "undecodable bytes"  # bad-row categories used by several readers
WRONG_TYPE = "wrong field type"

# A longer premise or hypothesis is a bad row. Real ones are far shorter (RTE premises reach a few
# thousand characters); without a cap, a runaway field (a merged file, a pasted document) reaches
# spaCy, which refuses texts over its max_length (error E088) long after the row was read.
MAX_SENTENCE_CHARS = 100_000

_ASCII_SPACE = " \t\n\r\x0b\x0c"  # what bytes.strip() removes: a line of only these is blank
# A JSON line can only produce a lone surrogate through an escape of one, so only such lines are searched.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


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
    columns: list[str] = field(default_factory=list)  # the file's columns, where it has a header
    notes: list[str] = field(default_factory=list)  # what the reader decided and the user should know

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


def decoded_lines(path: Path) -> Iterator[tuple[int, str, str | None]]:
    """Yield (1-based line number, text, problem) for every physical line, blank ones included.

    problem is None, or why the line is not UTF-8; its text then has U+FFFD for the bad bytes, so that
    a reader can still see its structure (e.g. which SICK split a row belongs to).
    CRLF, a byte-order mark and a missing final newline are fine.
    """
    with open(path, "rb") as handle:
        data = handle.read()
    raws = data.split(b"\n")
    if len(raws) > 1 and not raws[-1]:
        raws.pop()  # the final newline ends the last line; it does not start another
    for number, raw in enumerate(raws, start=1):
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        problem = None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            text = raw.decode("utf-8", errors="replace")
            problem = f"undecodable bytes (not UTF-8) at byte {exc.start}"
        if number == 1 and text.startswith("\ufeff"):
            text = text[1:]
        yield number, text, problem


def is_blank(text: str) -> bool:
    return not text.strip(_ASCII_SPACE)


def iter_lines(path: Path, bad: BadRows) -> Iterator[tuple[int, str]]:
    """Yield (1-based line number, text) of non-empty lines; an undecodable line is a bad row."""
    for number, text, problem in decoded_lines(path):
        if is_blank(text):
            continue
        bad.rows += 1
        if problem:
            bad.bad(number, problem, UNDECODABLE)
            continue
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
        except RecursionError:
            bad.bad(number, "invalid JSON (nested too deeply)", "invalid JSON")
            continue
        except ValueError as exc:  # e.g. an integer longer than Python converts (sys.get_int_max_str_digits)
            bad.bad(number, f"invalid JSON ({exc})", "invalid JSON")
            continue
        if not isinstance(obj, dict):
            bad.bad(number, "a JSON line must hold an object", "invalid JSON")
            continue
        if _SURROGATE_ESCAPE.search(line):
            name = _field_with_lone_surrogate(obj)
            if name is not None:
                bad.bad(number, f"field {name!r} holds a lone surrogate (an escape such as \\ud800 that is "
                                "not half of a pair): not text", "lone surrogate")
                continue
        yield number, obj


def _field_with_lone_surrogate(obj: dict) -> str | None:
    """The first top-level key whose value (at any depth, keys included) holds a lone surrogate.

    Python accepts such strings, but they cannot be written as UTF-8, so they would fail far from here.
    Iterative: the object may be nested as deep as the JSON parser allows.
    """
    for key, value in obj.items():
        stack = [key, value]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    return key
            elif isinstance(item, dict):
                stack.extend(item.keys())
                stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)
    return None


def json_type(value: Any) -> str:
    """`value`'s type in JSON's words, with an article, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def text_value(value: Any, name: str, number: int, bad: BadRows, *, integers: bool = False) -> str | None:
    """`value` as text, or None after reporting it. A present field must hold a string: null is not
    "absent" and nothing is stringified, except integers when `integers` (their text is unambiguous)."""
    if isinstance(value, str):
        return value
    if integers and type(value) is int:
        return str(value)
    expected = "a string or an integer" if integers else "a string"
    bad.bad(number, f"field {name!r} must be {expected}, not {json_type(value)}", WRONG_TYPE)
    return None


def sentence_value(value: Any, name: str, number: int, bad: BadRows, *, integers: bool = False) -> str | None:
    """Like `text_value`, and no longer than MAX_SENTENCE_CHARS."""
    text = value if isinstance(value, str) else text_value(value, name, number, bad, integers=integers)
    if text is not None and len(text) > MAX_SENTENCE_CHARS:
        bad.bad(number, f"field {name!r} is {len(text):,} characters long; the limit is {MAX_SENTENCE_CHARS:,}",
                "sentence too long")
        return None
    return text


def sentence_pair(premise: Any, hypothesis: Any, names: tuple[str, str], number: int, bad: BadRows, *,
                  integers: bool = False) -> tuple[str, str] | None:
    """(premise, hypothesis) checked by `sentence_value`, or None after reporting the first problem."""
    checked = sentence_value(premise, names[0], number, bad, integers=integers)
    if checked is None:
        return None
    other = sentence_value(hypothesis, names[1], number, bad, integers=integers)
    return None if other is None else (checked, other)


def integer_id(value: Any, name: str, number: int, bad: BadRows) -> str | None:
    """The text of an integer id (SuperGLUE `idx`), or None after reporting a non-integer."""
    if type(value) is int:
        return str(value)
    bad.bad(number, f"field {name!r} must be an integer, not {json_type(value)}", WRONG_TYPE)
    return None


def missing_field(row: dict, names: tuple[str, ...], number: int, bad: BadRows) -> bool:
    """True (after reporting the row) when a named field is absent."""
    for name in names:
        if name not in row:
            missing = [n for n in names if n not in row]
            bad.bad(number, f"missing field(s) {', '.join(missing)}", "missing field")
            return True
    return False


def map_label(raw: str, mapping: dict[str, str], number: int, bad: BadRows) -> str | None:
    """Canonical label for `raw`, or None after reporting an unknown label."""
    label = mapping.get(raw)
    if label is None:
        bad.bad(number, f"unknown label {raw!r}; expected one of {', '.join(sorted(mapping))}", "unknown label")
    return label
