"""Shared machinery of the corpus readers: errors, bad-row policy, line and TSV iteration."""
from __future__ import annotations

import contextlib
import errno
import gc
import json
import math
import os
import re
import stat
from collections import Counter
from dataclasses import dataclass, field
from itertools import chain, count, repeat
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from nli_baselines.features.labels import SCORE_FLOOR, score_out_of_bounds
from nli_baselines.features.pair import Pair
from nli_baselines.features.runtime.progress import ProgressSwitch, bar
from nli_baselines.features.runtime.shown import shown

try:  # a compiled JSON parser, ~3x faster on NLI lines (pyproject.toml says why it is a dependency)
    import orjson as _orjson
except ImportError:  # pragma: no cover - the standard library gives the same values
    _orjson = None

ON_BAD_ROW_CHOICES = ("error", "skip")
NO_GOLD = "no gold label"
SHOWN_LINES = 10  # the line numbers of the first bad rows kept, to say which rows a file lost
UNDECODABLE = "undecodable bytes"  # bad-row categories used by several readers
WRONG_TYPE = "wrong field type"
BAD_SCORE = "bad score"

# A score as a file writes it: a decimal number, perhaps signed, perhaps with an exponent. Not all
# that float() takes: "nan", "inf", "1_000" and "0x1p3" are no gold score a person wrote.
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")

# A longer premise or hypothesis is a bad row. Real ones are far shorter (RTE premises reach a few
# thousand characters); without a cap, a runaway field (a merged file, a pasted document) reaches
# spaCy, which refuses texts over its max_length (error E088) long after the row was read.
MAX_SENTENCE_CHARS = 100_000

_ASCII_SPACE = " \t\n\r\x0b\x0c"  # what bytes.strip() removes: a line of only these is blank
# A JSON line can only produce a lone surrogate through an escape of one, so only such lines are searched.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_BLOCK_BYTES = 1 << 23  # files are read and decoded 8 MiB at a time
FIRST_LINE_BYTES = 1 << 16  # ... and 64 KiB at a time for their first line alone
_DEEP = 900  # brackets in a JSON line from which json.loads, not orjson, decides (recursion limit ~1000)

# A smaller file reads in a moment and shows nothing.
PROGRESS_MIN_BYTES = 32 << 20
reading_progress = ProgressSwitch(
    "Within the block, reading a file of at least PROGRESS_MIN_BYTES shows a progress bar on stderr.")


def _reading_bar(handle, path: Path):
    """A bar over the bytes of the open file `handle` (at `path`), or None where none is shown."""
    if not reading_progress.shown:
        return None
    size = os.fstat(handle.fileno()).st_size
    if size < PROGRESS_MIN_BYTES:
        return None
    return bar(total=size, desc=f"reading {Path(path).name}", unit="B", unit_scale=True)


# Column names of common pair files and datasets, tried in order when the premise and hypothesis
# columns are not given (custom files, parquet and arrow files, Hugging Face datasets).
KNOWN_COLUMNS = (("premise", "hypothesis"), ("sentence1", "sentence2"), ("sentence_A", "sentence_B"),
                 ("text", "hypothesis"), ("text_a", "text_b"), ("question", "sentence"), ("context", "hypothesis"))
# Id columns, tried in order when none is named (else ids are line or row numbers).
KNOWN_IDS = ("id", "idx", "pairID", "pair_id", "uid")
# A file of single sentences (no pair of columns above): its sentence column, tried in order.
KNOWN_SENTENCES = ("sentence", "text")
# Label columns tried, in order, when the file has no column `label` and none was named: a
# similarity score's usual names (STS-B's `score`, SICK's relatedness).
KNOWN_LABELS = ("score", "similarity", "relatedness")


class DataFormatError(ValueError):
    """A malformed row or file; the message names file, line and reason."""

    def __init__(self, path: Path | str, line: int | None, reason: str):
        self.path, self.line, self.reason = Path(path), line, reason
        where = f"{path}:{line}" if line is not None else f"{path}"
        super().__init__(f"{where}: {reason}")


# ------------------------------------------------------------------ bounds of what is read


@dataclass
class ReadLimits:
    """How much the suite reads from one input before refusing it (docs/data.md, "Bounds"); every
    command line raises them with `--read-limit NAME=SIZE` (`set_read_limits`).

    bytes: the size of a data file (text files are read a block at a time; a CSV file, whose
        quoted cells may span lines, is held whole). rows: data rows of one file or table (a
        parquet or Arrow file's count is read from its metadata before any row). line: the bytes
        of one line of a text file (a line is held whole while it is read). decoded: the bytes of
        text the columns read from a parquet or Arrow file hold once decoded (from the metadata,
        and for dictionary-encoded columns from the dictionary and its indices, before decoding).
        predictions: the size of a prediction file (diagnose.py, bundle.py, validation).
    """

    bytes: int = 8 << 30
    rows: int = 10_000_000
    line: int = 16 << 20
    decoded: int = 8 << 30
    predictions: int = 256 << 20


LIMITS = ReadLimits()
_UNITS = {"": 1, "k": 1000, "m": 1000 ** 2, "g": 1000 ** 3, "t": 1000 ** 4,
          "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}
_SHOWN_UNITS = {"k": "k", "m": "M", "g": "G", "t": "T", "kib": "KiB", "mib": "MiB", "gib": "GiB", "tib": "TiB"}
MAX_READ_LIMIT = (1 << 63) - 1  # past any file's size or count of rows: a bound of "no bound"


def parse_read_limit(text: str) -> tuple[str, int]:
    """`NAME=SIZE` (SIZE a whole number of ASCII digits with an optional unit: 20M, 64MiB, 16GiB, at
    most MAX_READ_LIMIT) -> (name, value); ValueError naming the limits there are."""
    name, _, value = text.partition("=")
    names = list(ReadLimits.__dataclass_fields__)
    if name not in names or not value:
        raise ValueError(f"--read-limit {shown(repr(text), 80)}: expected NAME=SIZE with NAME one of {', '.join(names)}")
    match = re.fullmatch(r"\s*([0-9]+)\s*([a-zA-Z]*)\s*", value, re.ASCII)  # not the digits of other scripts
    unit = match.group(2).lower() if match else None
    if unit not in _UNITS:
        raise ValueError(f"--read-limit {shown(repr(text), 80)}: {shown(repr(value), 60)} is not a whole number with "
                         "an optional unit (k, M, G, T, KiB, MiB, GiB, TiB)")
    digits = match.group(1).lstrip("0") or "0"
    if len(digits) > len(str(MAX_READ_LIMIT)) or int(digits) * _UNITS[unit] > MAX_READ_LIMIT:
        raise ValueError(f"--read-limit {shown(repr(text), 80)}: more than {MAX_READ_LIMIT:,}, the largest bound")
    return name, int(digits) * _UNITS[unit]


def format_size(value: int) -> str:
    """`value` as `--read-limit` writes it: in the largest unit that divides it (16MiB, 10M, 300)."""
    units = sorted(((size, _SHOWN_UNITS[unit]) for unit, size in _UNITS.items() if unit), reverse=True)
    return next((f"{value // size}{unit}" for size, unit in units if value and value % size == 0), str(value))


def read_limit_defaults() -> str:
    """The bounds and their defaults, as `--read-limit` writes them: "bytes (8GiB), rows (10M), ..."."""
    parts = [f"{spec.name} ({format_size(spec.default)})" for spec in ReadLimits.__dataclass_fields__.values()]
    return ", ".join(parts[:-1]) + f" or {parts[-1]}"


def set_read_limits(given: Iterable[str]) -> None:
    """Apply `--read-limit NAME=SIZE` settings to this process's `LIMITS`."""
    for text in given:
        name, value = parse_read_limit(text)
        setattr(LIMITS, name, value)


def _raise_hint(name: str) -> str:
    return f"(the bound; raise it with --read-limit {name}=SIZE)"


def _kind_of(mode: int) -> str:
    for test, kind in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return kind
    return "not a regular file"


def check_input(path: Path | str, limit: str = "bytes", what: str = "") -> os.stat_result:
    """The status of the regular file at `path` (a symbolic link is followed), after refusing
    anything else, as a DataFormatError: no such file, a dangling link or a loop of links, a
    directory, FIFO, device or socket (reading /dev/zero or a FIFO never ends), or a file larger
    than `LIMITS.<limit>`."""
    path = Path(path)
    what = what or "file"
    try:
        status = os.stat(path)
    except FileNotFoundError:
        dangling = os.path.islink(path)
        raise DataFormatError(path, None, f"a link to a {what} that does not exist" if dangling else
                              f"no such {what}") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise DataFormatError(path, None, "a loop of symbolic links") from None
        raise DataFormatError(path, None, f"cannot read it ({exc.strerror})") from None
    if not stat.S_ISREG(status.st_mode):
        raise DataFormatError(path, None, f"{_kind_of(status.st_mode)}, not a {what} (only regular files are read)")
    bound = getattr(LIMITS, limit)
    if status.st_size > bound:
        raise DataFormatError(path, None, f"{status.st_size:,} bytes, more than {bound:,} {_raise_hint(limit)}")
    return status


def open_input(path: Path | str, limit: str = "bytes", what: str = ""):
    """`path` opened for reading in binary, once `check_input` passed; the file opened is checked
    again (a FIFO put in its place since is refused, not waited on)."""
    check_input(path, limit, what)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise DataFormatError(path, None, f"cannot read it ({exc.strerror})") from None
    status = os.fstat(fd)
    bound = getattr(LIMITS, limit)
    if not stat.S_ISREG(status.st_mode) or status.st_size > bound:
        os.close(fd)
        raise DataFormatError(path, None, "replaced while being opened by something that is not a file in bounds")
    return open(fd, "rb")


def check_rows(path: Path | str, rows: int, line: int | None = None) -> None:
    """Refuse a file or table past `LIMITS.rows` data rows."""
    if rows > LIMITS.rows:
        raise_too_many_rows(path, line)


def raise_too_many_rows(path: Path | str, line: int | None = None):
    """The refusal of a file or table past `LIMITS.rows` data rows; line: where the first row past it starts."""
    raise DataFormatError(path, line, f"more than {LIMITS.rows:,} row{'s' if LIMITS.rows != 1 else ''} "
                                      f"{_raise_hint('rows')}")


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
    fields: dict = field(default_factory=dict)  # the columns read: premise, hypothesis, label, id
    notes: list[str] = field(default_factory=list)  # what the reader decided and the user should know
    # Where a split without files of its own came from (a Hugging Face dataset: its name, config,
    # revision or fingerprint, the dataset's split), for the run record.
    source: dict = field(default_factory=dict)
    bad_lines: list[int] = field(default_factory=list)  # lines of the first SHOWN_LINES bad rows, where known

    @property
    def labeled(self) -> bool:
        return bool(self.pairs) and all(p.label is not None for p in self.pairs)

    @property
    def unread(self) -> int:
        """Rows skipped as malformed: rows of the file that gave no pair, the corpus' own
        exclusions (no gold label) aside."""
        return sum(n for reason, n in self.skipped.items() if reason != NO_GOLD)

    def unread_rows(self) -> str:
        """The malformed rows skipped, in words: how many, why, and the first lines where known."""
        reasons = ", ".join(f"{reason} {n}" for reason, n in self.skipped.items() if reason != NO_GOLD)
        where = self.paths[0] if self.paths else f"{self.dataset} {self.split}"
        lines = ""
        if self.bad_lines:
            more = ", ..." if self.unread > len(self.bad_lines) else ""
            lines = f"; line{'s' if len(self.bad_lines) > 1 else ''} {', '.join(map(str, self.bad_lines))}{more}"
        return f"{where}: {self.unread} of its {self.rows} rows were not read ({reasons}{lines})"

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
        self.lines: list[int] = []  # the lines of the first SHOWN_LINES bad rows

    def split(self, dataset: str, split: str, pairs: list[Pair]) -> SplitData:
        return SplitData(dataset, split, [self.path], pairs, self.rows, self.skipped, bad_lines=list(self.lines))

    def bad(self, line: int | None, reason: str, category: str | None = None) -> None:
        """Report a malformed row; `category` is the counting key (defaults to the reason)."""
        if self.on_bad_row == "error":
            raise DataFormatError(self.path, line, reason)
        self.skipped[category or reason] += 1
        if line is not None and len(self.lines) < SHOWN_LINES:
            self.lines.append(line)

    def exclude(self, reason: str) -> None:
        self.skipped[reason] += 1


def decoded_lines(path: Path, keep_cr: bool | str = False, header: int | None = 0,
                  block_bytes: int | None = None) -> Iterator[tuple[int, str, str | None]]:
    """Yield (1-based line number, text, problem) for every physical line, blank ones included.

    problem is None, or why the line is not UTF-8; its text then has U+FFFD for the bad bytes, so that
    a reader can still see its structure (e.g. which SICK split a row belongs to).
    CRLF, CR alone (old Mac files: no LF in the first 8 MiB), a byte-order mark and a missing final
    newline are fine: a line's final CR is dropped, unless `keep_cr` (for the csv module, which
    tells a line's end from a line break inside a quoted cell); "lf-files": kept in a file whose
    first line ends in LF alone (as the suite writes them), dropped in a CRLF file.
    header: how many of the first non-blank lines are no data rows (a header line: 1); the other
    non-blank lines are the rows `LIMITS.rows` bounds (`decoded_blocks`). None: the file's rows are
    not its lines (a CSV file, whose quoted cells may span lines): the caller bounds them.
    block_bytes: as for `decoded_blocks`.
    """
    for first, texts, problems in decoded_blocks(path, keep_cr, header, block_bytes):
        yield from zip(count(first), texts, problems or repeat(None))


def decoded_blocks(path: Path, keep_cr: bool | str = False, header: int | None = 0,
                   block_bytes: int | None = None) -> Iterator[tuple[int, list[str], list[str | None] | None]]:
    """The lines of `decoded_lines` a block at a time: (number of the block's first line, texts,
    problems), problems being None when every line of the block decodes. Within
    `reading_progress(True)`, a file of PROGRESS_MIN_BYTES or more shows a bar of the bytes read.

    The bounds hold before a line past them is handed on: no line longer than `LIMITS.line`
    bytes, and (unless `header` is None) no more than `LIMITS.rows` data rows (`_RowCheck`).
    block_bytes: the bytes read at a time (default 8 MiB); a reader of the first line alone asks
    for few, so as not to decode a block of lines it does not use."""
    number = 0
    with open_input(path) as handle:
        bar = _reading_bar(handle, path)
        rows = _RowCheck(path, handle.fileno(), header)
        # Read in blocks of whole lines, decoded a block at a time (a newline byte is never part of
        # a multi-byte UTF-8 character): the file's lines never all sit in memory at once, and
        # only a block that fails to decode is decoded line by line.
        carry = b""
        step = block_bytes or _BLOCK_BYTES
        # Old Mac line endings (a bare CR ends each line) are decided by the file's first 8 MiB,
        # however much is read at a time; so is a CRLF file.
        peek = os.pread(handle.fileno(), _BLOCK_BYTES, 0) if step < _BLOCK_BYTES else None
        cr_only = None if peek is None else b"\n" not in peek and b"\r" in peek
        crlf = not keep_cr
        if peek is not None and keep_cr == "lf-files":
            first_end = peek.find(b"\n")
            crlf = first_end > 0 and peek[first_end - 1:first_end] == b"\r"
        del peek
        read = 0
        try:
            while block := handle.read(max(step, len(carry))):  # a long line: reads grow with it
                size = len(block)
                read += size
                if cr_only is None:
                    cr_only = b"\n" not in block and b"\r" in block
                    if keep_cr == "lf-files":
                        first_end = block.find(b"\n")
                        crlf = first_end > 0 and block[first_end - 1:first_end] == b"\r"
                if cr_only:
                    block = block.replace(b"\r", b"\n")
                block = carry + block if carry else block
                end = block.rfind(b"\n") + 1
                carry = block[end:]
                _check_line_lengths(path, block, end, carry, number)
                if end:
                    if number == 0 and not rows.settled:  # counted in bytes: a dense file is not decoded
                        lines = block.count(b"\n", 0, end)
                        if rows.due(lines, lines, end, read):
                            rows.count()
                    texts, problems = _decoded_block(block, end, first=number == 0, crlf=crlf)
                    if rows.due(number + len(texts), len(texts), end, read):
                        del texts, problems  # the count holds a block of its own
                        rows.count()
                        texts, problems = _decoded_block(block, end, first=number == 0, crlf=crlf)
                    yield number + 1, texts, problems
                    number += len(texts)
                if bar is not None:  # once the block's lines are used: the bar shows the work done
                    bar.update(size)
        finally:
            if bar is not None:
                bar.close()
        if carry or number == 0:  # a last line without its newline, or the one empty line of an empty file
            if rows.due(number + 1, 1, len(carry) + 1, read):
                rows.count()
            last = _decoded_block(carry + b"\n", len(carry) + 1, first=number == 0, crlf=crlf)
    if carry or number == 0:
        yield number + 1, *last


def _check_line_lengths(path: Path | str, block: bytes, end: int, carry: bytes, number: int) -> None:
    """Refuse a line of `block` longer than `LIMITS.line` bytes (its final LF aside): a whole one of
    `block[:end]`, or the start of the next, `carry`, which is held until its end is read (/dev/zero's
    copy has none). number: the lines before the block."""
    if len(carry) > LIMITS.line:
        _too_long(path, number + block.count(b"\n", 0, end) + 1)
    if end <= LIMITS.line:  # no whole line of the block can be longer
        return
    breaks = np.flatnonzero(np.frombuffer(block, dtype=np.uint8, count=end) == ord("\n"))
    long = np.flatnonzero(np.diff(breaks, prepend=-1) - 1 > LIMITS.line)
    if len(long):
        _too_long(path, number + int(long[0]) + 1)


def _too_long(path: Path | str, line: int):
    raise DataFormatError(path, line, f"a line longer than {LIMITS.line:,} bytes {_raise_hint('line')}")


def checked_blocks(path: Path | str, handle) -> Iterator[bytes]:
    """The bytes of the open file `handle` a block at a time, as read, after refusing a line longer
    than `LIMITS.line` bytes in each (for a reader that takes the file as it comes: XML)."""
    lines, partial, cr_only = 0, 0, None  # partial: the bytes of the line the last block left open
    while block := handle.read(_BLOCK_BYTES):
        if cr_only is None:
            cr_only = b"\n" not in block and b"\r" in block
        view = block.replace(b"\r", b"\n") if cr_only else block
        first = view.find(b"\n")
        if first < 0:
            partial += len(view)
        else:
            if partial + first > LIMITS.line:
                _too_long(path, lines + 1)
            end = view.rfind(b"\n") + 1
            inner = view[first + 1:end]
            _check_line_lengths(path, inner, len(inner), b"", lines + 1)
            lines += view.count(b"\n", 0, end)
            partial = len(view) - end
        if partial > LIMITS.line:
            _too_long(path, lines + 1)
        yield block


class _RowCheck:
    """Refuses a text file of more than `LIMITS.rows` data rows (its non-blank lines after the first
    `header`) before those rows are handed on, at no cost to a file within the bound.

    A file of fewer than twice the bound's bytes cannot hold more rows (each is a character and a
    line break) and is never counted. Otherwise, while the lines read so far, with those the bytes
    still unread would hold at the density of the last block, stay under half the bound, nothing
    more is done; past that, the file's rows are counted once from its start, in bytes
    (`rows_past_bound`), which stops at the first row past the bound or settles that it has none.
    A file whose rows grow denser towards its end is counted by its last block at the latest: what
    was handed on before is at most half the bound's rows.
    """

    def __init__(self, path: Path | str, fd: int, header: int | None):
        self.path, self.fd, self.header = path, fd, header
        self.size = os.fstat(fd).st_size
        self.settled = header is None or (self.size + 1) // 2 <= LIMITS.rows + header

    def due(self, lines: int, block_lines: int, block_bytes: int, read: int) -> bool:
        """Whether the rows are to be counted (`count`) before the lines read are handed on: `lines`
        lines read so far, the last `block_lines` of them from `block_bytes` bytes, and `read`
        bytes of the file read."""
        return not self.settled and lines + (self.size - read) * block_lines / max(block_bytes, 1) > LIMITS.rows / 2

    def count(self) -> None:
        """Refuse the file at its first row past the bound, or settle that it has none."""
        found = rows_past_bound(self.path, self.header, self.fd)
        if found is not None:
            raise_too_many_rows(self.path, found[0])
        self.settled = True


_SPACE_BYTES = _ASCII_SPACE.replace("\n", "").encode()  # a line of only these is blank (`is_blank`)
_BOM = "\ufeff".encode()


def rows_past_bound(path: Path | str, header: int = 0, fd: int | None = None) -> tuple[int, bool] | None:
    """(the line of the first data row past `LIMITS.rows`, whether a double quote comes before that
    line), or None when the text file at `path` (or the open `fd`) holds no more data rows than that.

    Rows are the non-blank lines after the first `header` of them, as `decoded_lines` reads them (LF,
    CRLF or CR alone, a byte-order mark); a line longer than `LIMITS.line` is refused here too. The
    file is read a block at a time, its lines counted in bytes without being decoded, and the count
    stops at the row past the bound: time linear in the bytes read, one block held.
    """
    if fd is None:
        with open_input(path) as handle:
            return rows_past_bound(path, header, handle.fileno())
    size = os.fstat(fd).st_size
    need = LIMITS.rows + header + 1  # the non-blank line that is one row too many
    if (size + 1) // 2 < need:
        return None
    lines, offset, carry, quoted, cr_only, at_start = 0, 0, b"", False, None, True
    while True:
        block = os.pread(fd, _BLOCK_BYTES, offset)
        offset += len(block)
        last = not block
        if last:
            if not carry:
                return None
            block, end = carry + b"\n", len(carry) + 1  # the last line, without its line break
        else:
            if cr_only is None:
                cr_only = b"\n" not in block and b"\r" in block
            if cr_only:
                block = block.replace(b"\r", b"\n")
            block = carry + block if carry else block
            end = block.rfind(b"\n") + 1
            carry = block[end:]
            _check_line_lengths(path, block, end, carry, lines)
        data = block[:end]
        if at_start and end:
            data, at_start = data[len(_BOM):] if data.startswith(_BOM) else data, False
        found, index, before = nonblank_lines(data, need)
        if index is not None:
            return lines + index + 1, quoted or before
        if last:
            return None
        need -= found
        quoted = quoted or b'"' in data
        lines += data.count(b"\n")


def nonblank_lines(data: bytes, need: int) -> tuple[int, int | None, bool]:
    """(how many lines of `data`, whole lines each ending in LF, are not blank; the 0-based index of
    the `need`-th of them, or None when there are fewer; whether a double quote comes before it)."""
    squeezed = data.translate(None, _SPACE_BYTES)  # a blank line becomes an empty one; no LF is removed
    breaks = filled = None
    if b"\n\n" in squeezed or squeezed.startswith(b"\n"):
        breaks = np.flatnonzero(np.frombuffer(squeezed, dtype=np.uint8) == ord("\n"))
        filled = np.diff(breaks, prepend=-1) > 1  # the lines with a byte left: not blank
        found = int(filled.sum())
    else:  # no blank line: every line counts
        found = squeezed.count(b"\n")
    if found < need:
        return found, None, False
    if breaks is None:
        breaks = np.flatnonzero(np.frombuffer(squeezed, dtype=np.uint8) == ord("\n"))
    index = need - 1 if filled is None else int(np.flatnonzero(filled)[need - 1])
    start = int(breaks[index - 1]) + 1 if index else 0  # the line's first byte (`squeezed` keeps every quote)
    return found, index, b'"' in squeezed[:start]


def _decoded_block(block: bytes, end: int, first: bool, crlf: bool) -> tuple[list[str], list[str | None] | None]:
    """(texts, problems) of the lines of `block[:end]`, which ends with a newline; problems is None
    when every line decodes. `first`: the block starts the file; `crlf`: drop a line's final CR."""
    problems = None
    try:
        texts = str(memoryview(block)[:end], "utf-8").split("\n")  # a view: no copy of the block
        texts.pop()  # the empty text after the block's final newline
        if crlf and block.find(b"\r", 0, end) >= 0:  # one byte is found at memchr's speed, "\r\n" is not
            texts = [text[:-1] if text.endswith("\r") else text for text in texts]
    except UnicodeDecodeError:
        texts, problems = [], []
        for raw in block[:end].split(b"\n")[:-1]:
            if crlf and raw.endswith(b"\r"):
                raw = raw[:-1]
            problem = None
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                text = raw.decode("utf-8", errors="replace")
                problem = f"undecodable bytes (not UTF-8) at byte {exc.start}"
            texts.append(text)
            problems.append(problem)
    if first and texts[0].startswith("\ufeff"):
        texts[0] = texts[0][1:]
    return texts, problems


def is_blank(text: str) -> bool:
    return not text.strip(_ASCII_SPACE)


def iter_lines(path: Path, bad: BadRows, header: int = 0) -> Iterator[tuple[int, str]]:
    """Yield (1-based line number, text) of non-empty lines; an undecodable line is a bad row.
    header: the non-blank lines that are no data rows (`decoded_blocks`)."""
    return _nonblank(decoded_lines(path, header=header), bad)


def first_line(path: Path) -> str:
    """The text of the first non-blank line of the text file at `path` that decodes ("" in a file of none)."""
    lines = decoded_lines(path, header=None, block_bytes=FIRST_LINE_BYTES)
    return next((text for _, text, problem in lines if not problem and not is_blank(text)), "")


def _nonblank(lines: Iterable[tuple[int, str, str | None]], bad: BadRows) -> Iterator[tuple[int, str]]:
    for number, text, problem in lines:
        if (not text or text[0] in _ASCII_SPACE) and is_blank(text):  # most lines start with a non-space
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
    lines = iter_lines(path, bad, header=1)
    try:
        _, header_line = next(lines)
    except StopIteration:
        raise DataFormatError(path, None, "empty file (no header line)") from None
    bad.rows -= 1  # the header is not a data row
    header = header_line.split("\t")
    check_unique_columns(path, 1, header)
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


def check_unique_columns(path: Path, line: int, columns: list[str]) -> None:
    """A header that names a column twice cannot say which value a row's field holds."""
    seen: dict[str, int] = {}
    for number, name in enumerate(columns, start=1):
        if name in seen:
            raise DataFormatError(path, line, f"the header names column {name!r} twice (columns {seen[name]} and "
                                              f"{number}); rename one")
        seen[name] = number


def iter_jsonl(path: Path, bad: BadRows) -> Iterator[tuple[int, dict]]:
    """Yield (line, object) of a JSON-lines file; invalid JSON or a non-object is a bad row."""
    for numbers, objects in jsonl_blocks(path, bad):
        yield from zip(numbers, objects)


def jsonl_blocks(path: Path, bad: BadRows) -> Iterator[tuple[Sequence[int], list[dict]]]:
    """The (line numbers, objects) of `iter_jsonl` a block of lines at a time (see `decoded_blocks`).

    A block whose every line is an object that orjson reads exactly comes whole, read with no
    Python step per line. Any other block comes an object at a time through the checks line by
    line, so that good rows and bad ones still come in the file's order (the first bad row is the
    one `on_bad_row="error"` reports).
    """
    for first, texts, problems in decoded_blocks(path):
        objects = None if problems else _objects_read_exactly_by_orjson(texts)
        if objects is not None:
            bad.rows += len(objects)
            yield range(first, first + len(objects)), objects
            continue
        for number, obj in _objects(_nonblank(zip(count(first), texts, problems or repeat(None)), bad), bad):
            yield (number,), [obj]


def _objects(lines: Iterable[tuple[int, str]], bad: BadRows) -> Iterator[tuple[int, dict]]:
    for number, line in lines:
        obj = _parsed_exactly_by_orjson(line)
        if obj is not None:
            yield number, obj  # a JSON object, and no lone surrogate: orjson refuses them
            continue
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


def _parsed_exactly_by_orjson(line: str) -> dict | None:
    """The object of a JSON-object line, parsed ~3x faster by orjson, when that is exactly what
    `json.loads` gives; else None, and the standard library decides (and words any error).

    orjson refuses what it cannot represent as the standard library does (NaN, lone surrogates,
    nesting past 1024 levels, out-of-range numbers) and reads integers beyond 64 bits as floats,
    so a line whose top level holds a float is left to `json.loads` too.
    """
    if _orjson is None:
        return None
    if len(line) >= 2 * _DEEP and line.count("[") + line.count("{") >= _DEEP:
        return None  # perhaps nested deeper than json.loads goes (orjson goes to 1023 levels)
    try:
        obj = _orjson.loads(line)
    except ValueError:
        return None
    if type(obj) is not dict or float in map(type, obj.values()):
        return None
    return obj


def _objects_read_exactly_by_orjson(lines: list[str]) -> list[dict] | None:
    """`_parsed_exactly_by_orjson` of each line, when that is an object for every one (blank lines
    included: orjson refuses them); else None."""
    if _orjson is None:
        return None
    if max(map(len, lines)) >= 2 * _DEEP and any(
            line.count("[") + line.count("{") >= _DEEP for line in lines if len(line) >= 2 * _DEEP):
        return None
    try:
        objects = list(map(_orjson.loads, lines))
    except ValueError:
        return None
    if set(map(type, objects)) != {dict} or float in map(type, chain.from_iterable(map(dict.values, objects))):
        return None
    return objects


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


def number_value(text: Any) -> float | None:
    """The finite number `text` writes (spaces around it allowed), else None."""
    if not isinstance(text, str) or not _NUMBER.fullmatch(text.strip()):
        return None
    value = float(text)
    return value if math.isfinite(value) else None  # 1e999 overflows to inf


def score_problem(text: Any, score_range: tuple[float, float] | None) -> str | None:
    """Why `text` is no gold score of a task whose scores lie in `score_range` (None: any finite
    number), or that a fit can take (`features.labels.score_out_of_bounds`), or None when it is one."""
    value = number_value(text)
    if value is None:
        return f"score {str(text)[:40]!r} is not a number"
    if score_range is not None and not score_range[0] <= value <= score_range[1]:
        return f"score {text.strip()!r} is outside the task's range {score_range[0]:g}..{score_range[1]:g}"
    if value == 0 and re.search("[1-9]", re.split("[eE]", text)[0]):
        value = SCORE_FLOOR / 2  # "1e-400" is no 0, though float() rounds it to 0: too near 0, as it is
    problem = score_out_of_bounds(value)
    return None if problem is None else f"score {text.strip()[:40]!r} is {problem}"


def checked_score(text: str, score_range: tuple[float, float] | None, number: int | None,
                  bad: BadRows) -> str | None:
    """A gold score as the file writes it (stripped), or None after reporting why it is none."""
    problem = score_problem(text, score_range)
    if problem is not None:
        bad.bad(number, problem, BAD_SCORE)
        return None
    return text.strip()


def map_label(raw: str, mapping: dict[str, str], number: int, bad: BadRows) -> str | None:
    """Canonical label for `raw`, or None after reporting an unknown label."""
    label = mapping.get(raw)
    if label is None:
        bad.bad(number, f"unknown label {raw!r}; expected one of {', '.join(sorted(mapping))}", "unknown label")
    return label


def find_columns(path: Path | str, line: int | None, has, columns: list[str], premise: str | None,
                 hypothesis: str | None, id_column: str | None,
                 shown: str | None = None, single: bool = False) -> tuple[str | None, str, str | None, list[str]]:
    """(premise, hypothesis, id column, notes): the columns given, or found among `KNOWN_COLUMNS`
    and `KNOWN_IDS` by `has(name)`, with a note naming each column found that way.

    path, line: where a missing column is reported; columns: the columns there are (for messages;
    [] when unknown); shown: what the notes call the data (default: the file's name). A named id
    column the data lacks is an error; no id column found is None.
    single: data without a pair of columns may be single sentences (a file of your own): its
        sentence column is the hypothesis given, else one of `KNOWN_SENTENCES`, and the premise is
        None (the run says that the types reading a premise are left out, once).
    """
    name = shown or Path(path).name or str(path)
    notes = []
    if premise is None or hypothesis is None:
        found = next(((p, h) for p, h in KNOWN_COLUMNS
                      if (premise in (None, p)) and (hypothesis in (None, h)) and has(p) and has(h)), None)
        if found is None and single and premise is None:
            sentence = next((c for c in ((hypothesis,) if hypothesis else KNOWN_SENTENCES) if has(c)), None)
            # not where a premise's usual column is there too: that is a pair file whose other column was missed
            if sentence is not None and not any(has(p) for p, _ in KNOWN_COLUMNS if p != sentence):
                return None, sentence, _id_column(path, line, has, columns, id_column, name, notes), notes
        if found is None:
            raise DataFormatError(path, line, f"no premise and hypothesis columns found among "
                                              f"{', '.join(columns) or '-'} (looked for "
                                              f"{', '.join('/'.join(c) for c in KNOWN_COLUMNS)}); name them with "
                                              "--premise-column and --hypothesis-column")
        premise, hypothesis = found
        notes.append(f"{name}: premise column {premise!r}, hypothesis column {hypothesis!r} (detected)")
    if premise == hypothesis:
        raise DataFormatError(path, line, f"the premise and the hypothesis are both column {premise!r}")
    return premise, hypothesis, _id_column(path, line, has, columns, id_column, name, notes), notes


def _id_column(path, line, has, columns: list[str], id_column: str | None, name: str, notes: list[str]) -> str | None:
    """The id column given (which the data must have), else one of `KNOWN_IDS` (noted), else None."""
    if id_column is None:
        id_column = next((candidate for candidate in KNOWN_IDS if has(candidate)), None)
        if id_column is not None:
            notes.append(f"{name}: ids from column {id_column!r} (detected)")
    elif columns and not has(id_column):
        raise DataFormatError(path, line, f"no id column {id_column!r}; the columns are {', '.join(columns)}")
    return id_column


def find_label(has, label: str, name: str, notes: list[str]) -> str:
    """The label column: `label` itself, or where the data has no column `label` (the default, not
    found) one of `KNOWN_LABELS`, said in `notes`; `label` when none is there either (the data is
    then unlabeled, as a test split is)."""
    if label != "label" or has(label):
        return label
    found = next((candidate for candidate in KNOWN_LABELS if has(candidate)), None)
    if found is None:
        return label
    notes.append(f"{name}: label column {found!r} (detected; no column 'label')")
    return found


# Tracked objects built during a pause past which they are frozen (`gc_paused`): an SNLI-sized
# training split builds ~10 million.
FREEZE_FROM = 1_000_000


@contextlib.contextmanager
def gc_paused():
    """Pause Python's cyclic garbage collector while millions of acyclic objects are built.

    Each collection of the oldest generation scans every live object, so building a large corpus
    with it on costs more per pair the larger the corpus. Pairs hold no reference cycles, so
    nothing is left uncollected. Where the pause built more than FREEZE_FROM tracked objects,
    everything tracked is then frozen (`gc.freeze`): the collections after the pause would each
    walk all of them once more as they aged through the generations (~3 s of the SNLI-scale main
    job). Frozen objects are still freed when no longer referenced; only a reference cycle that
    is garbage at that moment stays uncollected.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if gc.get_count()[0] > FREEZE_FROM:
            gc.freeze()
        if enabled:
            gc.enable()
