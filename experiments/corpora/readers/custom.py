"""Any sentence-pair task in TSV, CSV, JSONL, parquet or Arrow with named premise/hypothesis/label columns
(parquet and Arrow files are read column-wise: `readers.arrow`)."""
from __future__ import annotations

import bisect
import contextlib
import csv
import io
import json
import threading
from collections.abc import Iterator, Sequence
from itertools import count, repeat
from pathlib import Path
from typing import NamedTuple

import numpy as np

from nli_baselines.features.pair import Pair

from . import arrow
from .common import (FIRST_LINE_BYTES, LIMITS, NO_GOLD, UNDECODABLE, BadRows, DataFormatError, SplitData,
                     check_unique_columns, checked_score, decoded_blocks, decoded_lines, find_columns, find_label,
                     is_blank, iter_jsonl, nonblank_lines, number_value, raise_too_many_rows, rows_past_bound,
                     sentence_pair, text_value)

UNTERMINATED_QUOTE = "unterminated quote"
TEXT_SUFFIXES = (".tsv", ".csv", ".jsonl")
# How a .tsv or .csv file's quotes are read: as CSV quoting, as text ("none": GLUE's TSVs, whose
# cells open with `"` where a sentence does), or as the file shows ("auto", below: `_iter_csv`).
QUOTING_CHOICES = ("auto", "csv", "none")
SUFFIXES = TEXT_SUFFIXES + arrow.SUFFIXES  # every file type a custom corpus and predict.py take


def read_custom(path: Path, dataset: str, split: str, on_bad_row: str = "error", *,
                premise: str | None = None, hypothesis: str | None = None, label: str = "label",
                id_column: str | None = None, labels: tuple[str, ...] | None = None, scores: bool = False,
                score_range: tuple[float, float] | None = None, quoting: str = "auto") -> SplitData:
    """Read `path` by its suffix (.tsv, .csv, .jsonl; .parquet and .arrow column-wise, see
    `readers.arrow.read_arrow_file`).

    premise, hypothesis: column names; None finds them among `KNOWN_COLUMNS` (premise/hypothesis,
        sentence1/sentence2, ...) and notes which were used. In JSONL a dotted name reaches into
        nested objects (`input.context`) when no field has the dotted name itself. A file of single
        sentences (a `sentence` or `text` column, or the hypothesis column named, and no premise
        column) reads as SST-2 does: premise "" and `fields["premise"]` None (`custom_columns`).
    label: the label column; the default, `label`, where the file has none, is one of
        `KNOWN_LABELS` (score, similarity, relatedness) when the file has one, noted.
    id_column: the ids' column; None finds one among `KNOWN_IDS` (id, idx, pairID, pair_id), else
        ids are the data rows' indices from 0 (a skipped row keeps its place), as GLUE's `index`
        column and the row numbers of a .parquet or .arrow file. A named column the file lacks is an
        error.
    A file without the label column is unlabeled (a test split); so is a row whose label cell is
    empty. In a `gold_label` column (SNLI's and MultiNLI's files) "-" marks a pair without a
    consensus label: it is left out and counted, as the snli and mnli corpora do. `labels`, when given, is the closed label set; other values are bad rows. In JSONL,
    integers are taken as text (labels 0/1, numeric ids), and so are other numbers in the label
    column (a score, 3.8); other non-strings are bad rows.
    scores: the labels are scores, each checked to be a finite number (in `score_range`, when
        given); another value is a bad row.
    The columns used are in `SplitData.fields` (premise, hypothesis, label, id).
    quoting: how a .tsv or .csv file's quotes are read: "csv" (a cell in quotes may hold the
        separator, a line break or a doubled quote), "none" (quotes are text, every separator
        separates: GLUE's TSVs), or "auto": CSV quoting for .csv; for .tsv, what the file shows
        (`_iter_csv`), with a note when its quotes are read as text.
    """
    if quoting not in QUOTING_CHOICES:
        raise ValueError(f"quoting must be one of {', '.join(QUOTING_CHOICES)}, not {quoting!r}")
    suffix = path.suffix.lower()
    if suffix in arrow.SUFFIXES:
        return arrow.read_arrow_file(path, dataset, split, on_bad_row, premise=premise, hypothesis=hypothesis,
                                     label=label, id_column=id_column, labels=labels, scores=scores,
                                     score_range=score_range)
    if suffix not in TEXT_SUFFIXES:
        raise DataFormatError(path, None, f"unsupported file type {suffix!r}; use {', '.join(SUFFIXES)}")
    columns, first = _columns(path, suffix, quoting)
    has = (lambda name: _field(first, name)[0]) if suffix == ".jsonl" else (lambda name: name in columns)
    premise, hypothesis, id_column, notes = find_columns(path, 1, has, columns, premise, hypothesis, id_column,
                                                         single=True)
    label = find_label(has, label, path.name, notes)
    data = _read(path, suffix, dataset, split, on_bad_row, premise, hypothesis, label, id_column, labels,
                 score_range if scores else False, quoting, notes)
    data.columns, data.notes = columns, notes
    data.fields = {"premise": premise, "hypothesis": hypothesis, "label": label, "id": id_column}
    return data


def custom_columns(path: Path, premise: str | None = None, hypothesis: str | None = None,
                   quoting: str = "auto") -> tuple[str | None, str]:
    """(premise column, hypothesis column) that `read_custom` reads from the file at `path`, from
    its header alone; premise None: a file of single sentences."""
    suffix = path.suffix.lower()
    if suffix in arrow.SUFFIXES:
        return arrow.file_columns(path, premise, hypothesis)
    if suffix not in TEXT_SUFFIXES:
        raise DataFormatError(path, None, f"unsupported file type {suffix!r}; use {', '.join(SUFFIXES)}")
    columns, first = _columns(path, suffix, quoting)
    has = (lambda name: _field(first, name)[0]) if suffix == ".jsonl" else (lambda name: name in columns)
    return find_columns(path, 1, has, columns, premise, hypothesis, None, single=True)[:2]


def _utf16_hint(path: Path) -> str:
    with open(path, "rb") as handle:
        start = handle.read(2)
    return ("; the file is UTF-16 (its byte-order mark says so): save it as UTF-8"
            if start in (b"\xff\xfe", b"\xfe\xff") else "; save the file as UTF-8")


def has_column(path: Path, name: str, quoting: str = "auto") -> bool:
    """Whether the file at `path` has a column (a JSONL field, dotted or not; a field of a parquet or
    Arrow struct column, dotted) called `name`."""
    suffix = Path(path).suffix.lower()
    if suffix in arrow.SUFFIXES:
        return arrow.file_has_column(Path(path), name)
    columns, first = _columns(Path(path), suffix, quoting)
    return _field(first, name)[0] if suffix == ".jsonl" else name in columns


def _field(row, name: str):
    """(found, value) of a field of a JSON object; a dotted name reaches into nested objects when
    no field has the dotted name itself."""
    if not isinstance(row, dict):
        return False, None
    if name in row:
        return True, row[name]
    value = row
    for part in name.split("."):
        if not isinstance(value, dict) or part not in value:
            return False, None
        value = value[part]
    return True, value


def _nested_hint(row, names: list[str]) -> str:
    """Where a JSON row holds a missing name one level down, the dotted name that reaches it."""
    if not isinstance(row, dict):
        return ""
    found = [f"{key}.{name}" for name in names for key, value in row.items()
             if isinstance(value, dict) and name in value]
    keys = ", ".join(map(str, list(row)[:20]))
    return f" (the row has {keys}" + (f"; name it {' and '.join(found)}" if found else "") + ")"


def _columns(path: Path, suffix: str, quoting: str = "auto") -> tuple[list[str], dict | None]:
    """The header's column names (TSV, CSV) or the first object's keys (JSONL), and that first
    object; [] for an empty file. A header that names a column twice is an error (which of the
    two would a row's value come from?)."""
    for number, text, problem in decoded_lines(path, header=None, block_bytes=FIRST_LINE_BYTES):  # that line alone
        if is_blank(text) and not problem:
            continue
        if problem:  # the header (or first object) itself: nothing after it can be read as intended
            raise DataFormatError(path, number, f"{problem}{_utf16_hint(path)}")
        if suffix == ".jsonl":
            try:
                first = json.loads(text)
            except (ValueError, RecursionError):
                return [], None
            return (list(first), first) if isinstance(first, dict) else ([], None)
        if suffix == ".csv" and quoting != "none":
            columns = next(csv.reader([text]), [])
        else:
            columns = text.split("\t" if suffix == ".tsv" else ",")
        if suffix == ".csv" and len(columns) == 1 and "\t" in text:
            raise DataFormatError(path, number, _tab_separated_csv(text))
        check_unique_columns(path, number, columns)
        return columns, None
    return [], None


def _tab_separated_csv(first: str) -> str:
    """Why a .csv file whose first line holds tabs and no comma cannot be read as CSV, and what to
    do: a header line (rename the file .tsv), or a line of data (no header: the STS Benchmark's own
    sts-*.csv files are so, which --dataset stsb reads)."""
    cells = first.rstrip("\r").split("\t")
    shown = ", ".join(cell if len(cell) <= 30 else cell[:27] + "..." for cell in cells[:8])
    data = [cell for cell in cells if number_value(cell) is not None or " " in cell.strip()]
    if not data:
        return (f"the file is tab-separated though named .csv: its header holds {len(cells)} tab-separated names "
                f"({shown}); rename it .tsv")
    sts = len(cells) >= 7 and (number_value(cells[4]) is not None and 0 <= number_value(cells[4]) <= 5)
    return (f"the file is tab-separated though named .csv, and has no header: its first line is data ({len(cells)} "
            f"tab-separated cells: {shown}), not column names"
            + ("; this is the layout of the STS Benchmark's own sts-*.csv files (genre, file, year, id, score, "
               "sentence 1, sentence 2), which --dataset stsb reads (from DATA_DIR/stsbenchmark/)" if sts else "")
            + "; for a file of your own, add a header line naming its columns (e.g. sentence1, sentence2, label) and "
              "rename it .tsv")


def _read(path, suffix, dataset, split, on_bad_row, premise, hypothesis, label, id_column, labels,
          scores, quoting, notes) -> SplitData:
    """The pairs of a text file; scores: False (labels), else the score range (None: any number)."""
    bad = BadRows(path, on_bad_row)
    if suffix == ".jsonl":
        rows = iter_jsonl(path, bad)
    else:
        rows = _iter_csv(path, bad, tuple(c for c in (premise, hypothesis) if c),
                         delimiter="\t" if suffix == ".tsv" else ",", quoting=quoting, notes=notes)
    pairs = []
    for number, row in rows:
        # Without an id column a pair's id is its data row's index from 0, as GLUE's `index` column
        # counts (not the line: headers, blank lines and cells with line breaks shift those). Every
        # earlier data row is a pair or a skipped row by now, so a skipped row keeps its place.
        index = len(pairs) + sum(bad.skipped.values())
        (has_p, p_value) = (True, "") if premise is None else _field(row, premise)  # single sentences
        has_h, h_value = _field(row, hypothesis)
        if not has_p or not has_h:
            missing = [name for name, has in ((premise, has_p), (hypothesis, has_h)) if not has]
            bad.bad(number, f"missing field {' and '.join(map(repr, missing))}{_nested_hint(row, missing)}",
                    "missing field")
            continue
        sentences = sentence_pair(p_value, h_value, (premise, hypothesis), number, bad, integers=True)
        if sentences is None:
            continue
        gold = None
        has_label, label_value = _field(row, label)
        if has_label:
            gold = (repr(label_value) if type(label_value) is float  # a JSON number: its shortest text
                    else text_value(label_value, label, number, bad, integers=True))
            if gold is None:
                continue
            gold = gold.strip() or None
            if gold == "-" and label == "gold_label":
                # SNLI's and MultiNLI's own files: "-" is a pair without a consensus label, which
                # `--dataset snli` leaves out too; as a class it made a 4-class SNLI model.
                bad.exclude(NO_GOLD)
                continue
            if gold is not None and scores is not False:
                gold = checked_score(gold, scores, number, bad)
                if gold is None:
                    continue
            elif gold is not None and labels is not None and gold not in labels:
                bad.bad(number, f"unknown label {gold!r}; expected one of {', '.join(labels)}", "unknown label")
                continue
        pair_id = str(index)
        has_id, id_value = _field(row, id_column) if id_column else (False, None)
        if has_id:
            pair_id = text_value(id_value, id_column, number, bad, integers=True)
            if pair_id is None:
                continue
        pairs.append(Pair(pair_id, *sentences, gold))
    return bad.split(dataset, split, pairs)


def _iter_csv(path: Path, bad: BadRows, required: tuple[str, ...], delimiter: str = ",", quoting: str = "auto",
              notes: list[str] | None = None) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield (line, row dict) of a header-first CSV (or TSV) file; line is the physical line where
    the record starts, blank lines included.

    quoting "csv": a cell in quotes may hold the separator, a line break or a doubled quote (as the
    suite, the csv module and pandas write them). "none": quotes are text; each line is a record,
    split on the separator. "auto": CSV quoting for a CSV file; in a TSV file, whose cells are
    often plain sentences, a line whose quotes do not make well-formed quoted cells (`"Hi," she
    said.`) is read as it stands, and a file whose quotes are evidently text throughout (GLUE's
    TSVs, where a cell may open with `"` and a later cell close with one) is read as "none"
    (`_reads_unquoted`), which `notes` says; there a record that runs over several lines and still
    has the wrong number of cells is a stray quote, not a cell with line breaks: its first line is
    read as it stands, and reading starts again on the next line, so no line vanishes inside it."""
    # The rows are bounded before the file's lines are held: counted in bytes when it could hold
    # more, and refused at once when its lines are its records (no quote before the row past the bound).
    past = rows_past_bound(path, header=1)
    if past is not None and (quoting == "none" or not past[1]):
        raise_too_many_rows(path, past[0])
    lenient = delimiter == "\t" and quoting == "auto"  # TSV cells that are plain text with quotes in them
    # In an LF file lines keep their CR: a CR LF inside a quoted cell is text (the csv module keeps
    # it), as in the files the suite writes; a CRLF file's line breaks are CR LF everywhere.
    if past is None:
        lines = list(decoded_lines(path, keep_cr="lf-files", header=None))
    else:  # more lines than the bound allows rows, but quoted cells may join them: count the records first
        lines = _HeldLines(path)
        _check_records(path, lines, delimiter, lenient, past[0])
    if quoting == "none":
        records = [_literal(lines, i, delimiter) for i, (_, text, _) in enumerate(lines) if not is_blank(text)]
    else:
        with _csv_field_limit(sum(len(text) for _, text, _ in lines) + 1):
            # eagerly, so the lifted limit does not outlive this call
            records = list(_csv_records(lines, delimiter, lenient))
        if lenient and records and records[0].cells is not None:
            note = _reads_unquoted(path, lines, records)
            if note is not None:
                if note.startswith("read unquoted"):
                    records = [_literal(lines, i) for i, (_, text, _) in enumerate(lines) if not is_blank(text)]
                if notes is not None:
                    notes.append(f"{Path(path).name}: {note}")
    if not records:
        raise DataFormatError(path, None, "empty file (no header line)")
    header = records[0]
    if header.problem:
        raise DataFormatError(path, header.first, f"header line: {header.problem}")
    missing = [c for c in required if c not in header.cells]
    if missing:
        raise DataFormatError(path, header.first, f"header lacks column(s) {', '.join(missing)}; "
                                                  f"found {', '.join(header.cells)}")
    for record in records[1:]:
        bad.rows += 1
        if record.problem:
            bad.bad(record.first, record.problem, record.category)
        elif len(record.cells) != len(header.cells):
            spans = f" (the record spans lines {record.first}-{record.last})" if record.last > record.first else ""
            kind = "tab" if delimiter == "\t" else "comma"
            hint = ""
            if quoting != "none" and record.last == record.first and len(
                    _literal(lines, record.first - 1, delimiter).cells or ()) == len(header.cells):
                hint = (f"; read as CSV, a cell in quotes holds a {kind}: if the file's quotes are text (as in "
                        "GLUE's TSV files), read it with --quoting none")
            bad.bad(record.first, f"expected {len(header.cells)} {kind}-separated columns, found {len(record.cells)}"
                                  f"{spans}{hint}", "wrong column count")
        else:
            yield record.first, dict(zip(header.cells, record.cells))


class _HeldLines(Sequence):
    """The lines of `decoded_lines(path, keep_cr="lf-files")` held compactly: each block's text as one
    string and the offsets of its lines, each (number, text, problem) made when asked for. A file of
    more lines than `LIMITS.rows` is held so while its records are counted (`_check_records`): as
    tuples of strings, 12 million short lines take ~2 GB; so, the file's size and 4 bytes a line."""

    def __init__(self, path: Path):
        self.starts, self.blocks = [], []
        total = 0
        # A block's lines are strings for a moment: 1 MiB of short lines makes ~200,000 of them.
        for first, texts, problems in decoded_blocks(path, keep_cr="lf-files", header=None, block_bytes=1 << 20):
            offsets = np.zeros(len(texts) + 1, dtype=np.int64)  # a block holds fewer than 2**31 characters
            np.cumsum(np.fromiter(map(len, texts), dtype=np.int64, count=len(texts)) + 1, out=offsets[1:])
            self.starts.append(first - 1)
            self.blocks.append(("\n".join(texts), offsets.astype(np.int32), problems))
            total = first - 1 + len(texts)
            del texts
        self.total = total

    def __len__(self) -> int:
        return self.total

    def __iter__(self):
        for start, (text, _, problems) in zip(self.starts, self.blocks):
            yield from zip(count(start + 1), text.split("\n"), problems or repeat(None))

    def characters(self) -> int:
        return sum(len(text) for text, _, _ in self.blocks)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self.total))]
        if not 0 <= index < self.total:
            raise IndexError(index)
        block = bisect.bisect_right(self.starts, index) - 1
        text, offsets, problems = self.blocks[block]
        at = index - self.starts[block]
        return index + 1, text[offsets[at]:offsets[at + 1] - 1], problems[at] if problems else None

    def last_quote(self) -> int:
        """The number of the last line that holds a double quote (0: none does)."""
        for start, (text, offsets, _) in zip(reversed(self.starts), reversed(self.blocks)):
            at = text.rfind('"')
            if at >= 0:
                return start + bisect.bisect_right(offsets, at)
        return 0

    def nonblank_after(self, number: int, need: int) -> tuple[int, int | None]:
        """(how many lines after line `number` are not blank; the number of the `need`-th of them,
        or None when there are fewer), counted a block at a time in bytes."""
        found = 0
        for start, (text, offsets, _) in zip(self.starts, self.blocks):
            skip = max(number - start, 0)
            if skip >= len(offsets) - 1:
                continue
            more, index, _ = nonblank_lines((text[offsets[skip]:] + "\n").encode(), need - found)
            if index is not None:
                return found + more, start + skip + index + 1
            found += more
        return found, None


def _check_records(path: Path, lines: _HeldLines, delimiter: str, lenient: bool, past: int) -> None:
    """Refuse a CSV (or TSV) file of more records than `LIMITS.rows` after its header, counted without
    holding them. Its lines are more than that, the first past the bound being line `past`; quoted
    cells may join them into fewer records. A TSV file whose quotes turn out to be text (`lenient`,
    `_QuoteEvidence`) has its lines as its records. The lines after the last quote are records one
    each, counted in bytes."""
    header, seen, first_past, evidence = None, 0, None, None
    last_quote = lines.last_quote()
    with _csv_field_limit(lines.characters() + 1):
        for record in _csv_records(lines, delimiter, lenient):
            if header is None:
                header = record
                evidence = _QuoteEvidence(lines, record) if lenient and record.cells is not None else None
            else:
                seen += 1
                if seen == LIMITS.rows + 1:
                    first_past = record.first
                    if evidence is None:
                        break
                if evidence is not None:
                    evidence.add(record)
            if record.last >= last_quote:  # no quote past this record: each non-blank line after it is one
                if first_past is None:
                    first_past = lines.nonblank_after(record.last, LIMITS.rows + 1 - seen)[1]
                break
    if evidence is not None and evidence.unquoted:
        raise_too_many_rows(path, past)
    if first_past is not None:
        raise_too_many_rows(path, first_past)


class _Record(NamedTuple):
    first: int  # physical line numbers
    last: int
    cells: list[str] | None  # None when the record is a bad row for `problem`
    problem: str | None = None
    category: str | None = None
    as_text: bool = False  # a line whose quotes make no CSV cells, read as it stands (`_csv_records`, lenient)


def _csv_records(lines: Sequence[tuple[int, str, str | None]], delimiter: str = ",",
                 lenient: bool = False) -> Iterator[_Record]:
    """The CSV (or TSV) records of `lines` (from `decoded_lines`), blank lines left out.

    A quoted field may hold line breaks, so one stray quote can swallow every following row into one
    field. Two signs tell such a runaway quote from a legitimate multi-line field: the quote is still
    open at the end of the file, or it closes in the middle of a field (a well-formed closing quote is
    followed by a comma or the end of a line). Either makes the record's first line (where the quote
    opened) a bad row, or with `lenient` (TSV cells, often unquoted text) that line is read as it
    stands (split on tabs); `lenient` also takes a third sign, a record over several lines with
    another number of cells than the header. Reading then starts again on the next line, so the
    swallowed rows are kept, each counted.

    Reading again from each swallowed line would take time quadratic in the lines a quote swallows
    (a file of lines `a<TAB>"x"<TAB>"`, each of which leaves a quote open whether it starts inside
    one or not); a record that runs into the quoted cell of one already refused is judged from what
    was learned reading that one (`_QuotedRun`), so each line is read a bounded number of times.
    """
    width = None  # the header's cells
    run = _QuotedRun(lines, delimiter)
    start = 0
    while start < len(lines):
        feed = _LineFeed(lines, start)
        reader = csv.reader(feed, delimiter=delimiter)
        while True:
            begin = feed.position
            refused = run.judge(begin, width if lenient else None)
            if refused is not None:  # a record that joins the refused one's quoted cell, refused alike
                yield _literal(lines, begin, as_text=True) if lenient else refused
                start = begin + 1
                break
            try:
                cells = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                problem = f"malformed CSV ({exc})"
                run.learn(begin, feed.position - 1, error=(problem, "malformed CSV"))
                yield _literal(lines, begin, as_text=True) if lenient else _Record(
                    lines[begin][0], lines[begin][0], None, problem, "malformed CSV")
                start = begin + 1
                break
            end = feed.position - 1
            first, last = lines[begin][0], lines[end][0]
            runaway = _runaway_quote(lines, begin, end, feed.exhausted, delimiter)
            if runaway is None and lenient and end > begin and width is not None and len(cells) != width:
                runaway = _wrong_width(first, last, len(cells), width)
            if runaway:
                run.learn(begin, end, at_eof=feed.exhausted)
                yield _literal(lines, begin, as_text=True) if lenient else _Record(first, last, None, runaway,
                                                                                 UNTERMINATED_QUOTE)
                start = begin + 1
                break
            if begin == end and is_blank(lines[begin][1]):
                continue
            if width is None:
                width = len(cells)
            undecodable = next(((n, p) for n, _, p in lines[begin:end + 1] if p), None)
            if undecodable:
                yield _Record(undecodable[0], last, None, undecodable[1], UNDECODABLE)
            else:
                yield _Record(first, last, cells)


def _wrong_width(first: int, last: int, cells: int, width: int) -> str:
    return (f"unterminated quote? the quoted field opened on line {first} closes on line {last}, making a record "
            f"of {cells} cells, not {width}")


def _eof_quote(first: int, last: int) -> str:
    count = last - first + 1
    return (f"unterminated quote: the quoted field opened on line {first} runs to the end of the file "
            f"({count} line{'s' if count > 1 else ''})")


def _mid_field_quote(first: int, last: int) -> str:
    return f"unterminated quote? the quoted field opened on line {first} closes on line {last} in the middle of a field"


def _one_line(text: str, delimiter: str, *, inside: bool = False, strict: bool = False) -> tuple[list[str] | None,
                                                                                                  bool, bool]:
    """What the csv module makes of the line `text` alone, started outside a quoted cell or, `inside`,
    within one: (its cells, the last still open, or None where it raised; whether a quoted cell is
    open at its end; whether it raised before reaching the end). Within a record the csv module
    reads a line from one of these two states, in the same way whatever came before."""
    feed = _LineFeed([(0, '"' + text if inside else text, None)], 0)
    try:
        cells = next(csv.reader(feed, delimiter=delimiter, strict=strict))
    except csv.Error:
        return None, feed.exhausted, not feed.exhausted
    return cells, feed.exhausted, False


class _QuotedRun:
    """The lines a refused record's open quote ran through, and what the csv module makes of each.

    A record read from line `begin` that is refused after running through lines begin+1..end inside
    a quoted cell is learned. A record started on a line between (after a restart) that leaves its
    own quote open at that line's end enters the next line inside a quoted cell, as the refused one
    did, and from there is read alike: it ends where that one ended, in the same way (the end of the
    file, a csv error), with the same strict-quoting failures and the same cells after its first
    line. Its verdict follows from its own first line and sums over the run's lines (`judge`).
    """

    def __init__(self, lines: Sequence[tuple[int, str, str | None]], delimiter: str):
        self.lines, self.delimiter = lines, delimiter
        self.low = self.high = -1  # the lines [low, high] the run went through inside a quoted cell

    def learn(self, begin: int, end: int, error: tuple[str, str] | None = None, at_eof: bool = False) -> None:
        """The record from line `begin` ran to line `end` and was refused: for the csv error
        (problem, category) it raised on line `end`, or as a runaway quote (`at_eof`: one that ran
        to the end of the file)."""
        if end <= begin or self.low <= begin < self.high:
            return  # one line, or a record of a run already known
        self.low, self.high, self.error, self.at_eof = begin + 1, end, error, at_eof
        size = end - begin
        # From each line of the run to its end: the cells that line and the rest add to a record, and
        # whether a closing quote is followed by something other than a separator (strict quoting fails).
        self.cells, self.fails = [0] * (size + 1), [False] * (size + 1)
        if error is not None:
            return  # a csv error on the run: every record joining it ends there
        for j in range(size - 1, -1, -1):
            text = self.lines[self.low + j][1]
            cells, _, _ = _one_line(text, self.delimiter, inside=True)
            self.cells[j] = self.cells[j + 1] + len(cells) - 1
            self.fails[j] = self.fails[j + 1] or _one_line(text, self.delimiter, inside=True, strict=True)[2]

    def judge(self, begin: int, width: int | None) -> _Record | None:
        """The bad row the record from line `begin` is when it joins the run and is refused; None
        when it is read as usual: it does not start within the run, its own line ends outside a
        quote (or raises), or it joins and is a record after all. width: the header's cells (lenient)."""
        if not self.low <= begin < self.high:
            return None
        text = self.lines[begin][1]
        cells, open_quote, raised = _one_line(text, self.delimiter)
        if raised or not open_quote:
            return None
        first, last = self.lines[begin][0], self.lines[self.high][0]
        if self.error is not None:
            return _Record(first, first, None, *self.error)
        if self.at_eof:
            return _Record(first, last, None, _eof_quote(first, last), UNTERMINATED_QUOTE)
        at = begin + 1 - self.low
        if _one_line(text, self.delimiter, strict=True)[2] or self.fails[at]:
            return _Record(first, last, None, _mid_field_quote(first, last), UNTERMINATED_QUOTE)
        if width is not None and len(cells) + self.cells[at] != width:
            return _Record(first, last, None, _wrong_width(first, last, len(cells) + self.cells[at], width),
                           UNTERMINATED_QUOTE)
        return None


def _literal(lines: Sequence[tuple[int, str, str | None]], index: int, delimiter: str = "\t",
             as_text: bool = False) -> _Record:
    """One line read as it stands: its quotes are text. as_text: because they make no CSV cells."""
    number, text, problem = lines[index]
    if problem:
        return _Record(number, number, None, problem, UNDECODABLE)
    return _Record(number, number, (text[:-1] if text.endswith("\r") else text).split(delimiter),
                   as_text=as_text and '"' in text)


def _reads_unquoted(path: Path, lines: Sequence[tuple[int, str, str | None]], records: list[_Record]) -> str | None:
    """Whether a TSV file's quotes are CSV quoting or text, from what each reading makes of its lines:
    "read unquoted ..." when some lines read right only as text and none only as CSV; a note on
    the mix when both kinds occur (it is then read as CSV); None when nothing tells them apart
    (`_QuoteEvidence`)."""
    if not any('"' in text for _, text, _ in lines):
        return None
    evidence = _QuoteEvidence(lines, records[0])
    for record in records[1:]:
        evidence.add(record)
    return evidence.note()


class _QuoteEvidence:
    """The lines of a TSV file that read right only with their quotes as text, and those only as CSV.

    A line reads right only as text when, read as CSV, it has the wrong number of cells and split on
    tabs the right one (GLUE's MRPC: `" A quote .<TAB>A reply . "`), when a cell in quotes needs
    none (no tab, line break or doubled quote: CSV writers quote only such cells, unless they quote
    every cell, header included) and CSV would strip them, or when its quotes make no CSV cells at
    all (`"Hi," she said.`: lenient reading keeps such a line as it stands, `_csv_records`). A record
    reads right only as CSV when it runs over several lines, when split on tabs it has the wrong
    number of cells and read as CSV the right one, or when a cell CSV unquotes holds what needs
    quotes (a tab, a line break, a quote). Records are added one at a time, so that a file can be
    judged without holding them (`_check_records`).
    """

    def __init__(self, lines: Sequence[tuple[int, str, str | None]], header: _Record):
        self.lines, self.width = lines, len(header.cells)
        header_text = _literal(lines, header.first - 1).cells or []
        self.quotes_everything = all(len(c) >= 2 and c[0] == c[-1] == '"' for c in header_text)
        self.as_text, self.as_csv, self.kept = [0, None], [0, None], [0, None]  # [lines, the first line]

    @staticmethod
    def _count(kind: list, line: int) -> None:
        kind[0] += 1
        kind[1] = kind[1] or line

    def add(self, record: _Record) -> None:
        if record.cells is None:
            return
        if record.as_text:
            self._count(self.as_text, record.first)
            self._count(self.kept, record.first)
            return
        if record.last > record.first:
            self._count(self.as_csv, record.first)
            return
        split = _literal(self.lines, record.first - 1).cells
        if split is None or split == record.cells:
            return
        if len(record.cells) == self.width != len(split):
            self._count(self.as_csv, record.first)
        elif len(split) == self.width != len(record.cells):
            self._count(self.as_text, record.first)
        elif len(split) == self.width == len(record.cells) and not self.quotes_everything:
            # The cells CSV reads otherwise: quoted because they had to be (a writer's), or not (text).
            unquoted = [cell for cell, raw in zip(record.cells, split) if cell != raw]
            needed = any(mark in cell for cell in unquoted for mark in ('"', "\t", "\r", "\n"))
            self._count(self.as_csv if needed else self.as_text, record.first)

    @property
    def unquoted(self) -> bool:
        """Whether the file is read with its quotes as text ("read unquoted" in `note`)."""
        return bool(self.as_text[0]) and not self.as_csv[0]

    def note(self) -> str | None:
        (text, first_text), (needs, first_csv), (kept, first_kept) = self.as_text, self.as_csv, self.kept
        if not text:
            return None
        if not needs:
            return (f"read unquoted: its quotes are text, as in GLUE's TSV files (read as CSV, {text} line(s) "
                    f"would lose their quotes or cells, the first line {first_text}); --quoting csv reads them as CSV")
        as_they_stand = (f"; {kept} of them, whose quotes make no CSV cells, read as they stand, the first line "
                         f"{first_kept}" if kept else "")
        return (f"read as CSV-quoted (line {first_csv} needs it), though {text} line(s) read right only with "
                f"their quotes as text (the first line {first_text}{as_they_stand}); --quoting none reads every "
                "quote as text")


def _runaway_quote(lines: Sequence[tuple[int, str, str | None]], begin: int, end: int, at_eof: bool,
                   delimiter: str = ",") -> str | None:
    """Why the record on lines[begin:end + 1] looks like an unterminated quote, or None."""
    first, last = lines[begin][0], lines[end][0]
    if at_eof:
        return _eof_quote(first, last)
    if end == begin and (delimiter == "," or '"' not in lines[begin][1]):
        return None  # a one-line CSV record: the csv module's lenient reading is the intended one
    text = "".join(line + "\n" for _, line, _ in lines[begin:end + 1])
    try:
        list(csv.reader(io.StringIO(text), strict=True, delimiter=delimiter))
    except csv.Error:
        return _mid_field_quote(first, last)
    return None


class _LineFeed:
    """Hands the csv module one physical line at a time and remembers how far it got.

    `position` is the index of the next line to hand out, so a record's lines are known. `exhausted`
    turns true when the csv module asks for a line past the last one: a record it returns after that
    was ended by the end of the file, not by a line break, so a quoted field in it never closed.
    """

    def __init__(self, lines: list[tuple[int, str, str | None]], start: int):
        self.lines, self.position, self.exhausted = lines, start, False

    def __iter__(self) -> _LineFeed:
        return self

    def __next__(self) -> str:
        if self.position >= len(self.lines):
            self.exhausted = True
            raise StopIteration
        self.position += 1
        return self.lines[self.position - 1][1] + "\n"


_FIELD_LIMIT_LOCK = threading.Lock()


@contextlib.contextmanager
def _csv_field_limit(limit: int):
    """Lift the csv module's cap on a field's length (131,072 characters by default) while reading.

    The cap is process-wide, so it is raised under a lock and put back after. It protects nothing
    here, since the whole file is already in memory; an over-long sentence is a bad row downstream
    (MAX_SENTENCE_CHARS) and a long cell in another column is read as it is.
    """
    with _FIELD_LIMIT_LOCK:
        previous = csv.field_size_limit()
        csv.field_size_limit(max(previous, limit))
        try:
            yield
        finally:
            csv.field_size_limit(previous)


def load_pairs(path: str | Path, *, premise: str | None = None, hypothesis: str | None = None,
               label: str = "label", id: str | None = None, on_bad_row: str = "error",
               quoting: str = "auto") -> list[Pair]:
    """The pairs of a .tsv, .csv, .jsonl, .parquet or .arrow file, for use from Python (then
    `features.annotate` them).

    premise, hypothesis: column names (default: found among premise/hypothesis, sentence1/sentence2,
        sentence_A/sentence_B); label: the label column (rows without one are unlabeled);
        id: a column of ids (default: the data row's index, from 0). Malformed rows raise DataFormatError
        naming the file and line, or are skipped with on_bad_row="skip".
    quoting: how a .tsv or .csv file's quotes are read: "auto", "csv" or "none" (`read_custom`).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    return read_custom(path, path.stem, "pairs", on_bad_row, premise=premise, hypothesis=hypothesis, label=label,
                       id_column=id, quoting=quoting).pairs
