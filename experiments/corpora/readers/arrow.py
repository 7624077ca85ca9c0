"""Parquet and Arrow files, and the tables of Hugging Face datasets, read column-wise with pyarrow.

A table of pairs is checked a column at a time: each column's type once, then each rule (null or
undecodable text, over-long sentences, labels, ids) as one vectorized pass over the column; Python
objects are made only for the values of the pairs kept. That is what makes a parquet copy of SNLI
read several times faster than its JSON lines (docs/performance.md).

Rows are numbered from 0, as pyarrow, pandas and `datasets` number them: a pair without an id
column has its row number as id, and a bad row is reported as `WHERE: row N: reason`.

Labels: a text column is read as text, an empty or null cell being unlabeled. An integer column
whose `ClassLabel` names are known (a Hugging Face dataset's features, or the `huggingface` metadata
that `datasets` writes into parquet and Arrow files) gives those names; -1 there marks a row without
a gold label (excluded and counted, like SNLI's `-`), or, when every row has it, an unlabeled split
(GLUE's and SuperGLUE's test sets). An integer column without names is read as text ("0", "1").

pyarrow comes with the `hf` extra (`datasets` depends on it); it and numpy are imported on first
use (a command's `--help` reads the corpus registry, which reaches this module).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Mapping, Sequence

import numpy as np

from nli_baselines.features.pair import Pair, pairs_from_columns
from nli_baselines.features.runtime.commands import MissingDependencyError

from .common import (BAD_SCORE, LIMITS, MAX_SENTENCE_CHARS, NO_GOLD, UNDECODABLE, WRONG_TYPE, BadRows, DataFormatError,
                     SplitData, check_input, check_rows, check_unique_columns, find_columns, find_label, score_problem)

SUFFIXES = (".parquet", ".arrow")
NO_LABEL = -1  # a ClassLabel column's "no gold label" (SNLI) and "unlabeled" (GLUE/SuperGLUE test)
UNKNOWN_LABEL = "unknown label"
HF_METADATA_KEY = b"huggingface"  # where `datasets` keeps a table's features in parquet and Arrow files


def _pyarrow():
    """(pyarrow, pyarrow.compute), or a one-line MissingDependencyError saying how to install them."""
    try:
        # lazy: pyarrow comes with the hf extra; only parquet and Arrow inputs need it
        import pyarrow
        import pyarrow.compute
    except ImportError:
        raise MissingDependencyError("pyarrow (which reads parquet and Arrow files)", "hf") from None
    return pyarrow, pyarrow.compute


# ------------------------------------------------------------------ files


def file_columns(path: Path, premise: str | None = None, hypothesis: str | None = None) -> tuple[str | None, str]:
    """(premise, hypothesis) columns `read_arrow_file` reads, from the file's schema; premise None:
    single sentences."""
    schema = file_schema(path)
    return find_columns(path, None, lambda name: has_field(schema, name), list(schema.names), premise, hypothesis,
                        None, single=True)[:2]


def read_arrow_file(path: Path, dataset: str, split: str, on_bad_row: str = "error", *,
                    premise: str | None = None, hypothesis: str | None = None, label: str = "label",
                    id_column: str | None = None, labels: tuple[str, ...] | None = None, scores: bool = False,
                    score_range: tuple[float, float] | None = None) -> SplitData:
    """The pairs of a .parquet or .arrow (Arrow IPC file or stream) file, columns found or named as
    for any custom file (`read_custom`); only the columns used are read from a parquet file.

    A dotted name reaches into struct columns (`input.premise`) when no column has the dotted name
    itself. An integer label column gets the names of its `ClassLabel` when the file carries the
    metadata `datasets` writes; such a column holds classes, and reading it as `scores` is an error.
    """
    schema = file_schema(path)
    premise, hypothesis, id_column, notes = find_columns(
        path, None, lambda name: has_field(schema, name), list(schema.names), premise, hypothesis, id_column,
        single=True)
    label = find_label(lambda name: has_field(schema, name), label, path.name, notes)
    wanted = [name for name in (premise, hypothesis, label, id_column) if name and has_field(schema, name)]
    names = class_label_names(schema, label, path)
    if scores and names is not None:
        raise DataFormatError(path, None, f"its label column {label!r} is a ClassLabel ({', '.join(names)}): "
                                          "classes, not scores")
    table = _read_columns(path, list(dict.fromkeys(_top_column(schema, name) for name in wanted)))
    data = read_table(table, str(path), dataset, split, on_bad_row, premise=premise, hypothesis=hypothesis,
                      label=label, id_column=id_column, labels=labels, label_names=names, paths=[path],
                      scores=scores, score_range=score_range)
    data.columns, data.notes = list(schema.names), notes + data.notes
    return data


def file_has_column(path: Path, name: str) -> bool:
    """Whether the parquet or Arrow file at `path` has a column (or a dotted struct field) `name`."""
    return has_field(file_schema(path), name)


def file_schema(path: Path):
    """The schema of a parquet or Arrow file; DataFormatError for a file that is neither."""
    pa, _ = _pyarrow()
    check_input(path)
    try:
        if path.suffix.lower() == ".parquet":
            # lazy: pyarrow comes with the hf extra; only parquet and Arrow inputs need it
            import pyarrow.parquet as pq
            schema = pq.read_schema(path)
        else:
            schema = _open_ipc(path).schema
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise DataFormatError(path, None, f"not a readable {_kind(path)} file ({_first_line(exc)})") from None
    check_unique_columns(path, None, list(schema.names))
    return schema


def _kind(path: Path) -> str:
    return "parquet" if path.suffix.lower() == ".parquet" else "Arrow"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _open_ipc(path: Path):
    """A reader of an Arrow IPC file (Feather v2) or stream (what `datasets` writes), memory-mapped."""
    pa, _ = _pyarrow()
    source = pa.memory_map(str(path))
    try:
        return pa.ipc.open_file(source)
    except pa.ArrowInvalid:
        source.seek(0)
        return pa.ipc.open_stream(source)


def _read_columns(path: Path, columns: list[str]):
    """The columns of a file, read within `LIMITS`: a parquet file's row count and the decoded
    size of the columns read are taken from its metadata before a page is read, and its text
    columns are read dictionary-encoded where they are stored so (a file of 281 KB may declare
    20 million rows of one long value); an Arrow file is read a record batch at a time."""
    pa, _ = _pyarrow()
    check_input(path)
    try:
        if path.suffix.lower() == ".parquet":
            # lazy: pyarrow comes with the hf extra; only parquet and Arrow inputs need it
            import pyarrow.parquet as pq
            with pq.ParquetFile(path) as parquet:
                _check_parquet_metadata(path, parquet.metadata, columns)
                text = [name for name in columns if _is_text(parquet.schema_arrow.field(name).type)]
            with pq.ParquetFile(path, read_dictionary=text) as parquet:
                return _decoded(path, parquet.read(columns=columns, use_threads=False), text)
        reader = _open_ipc(path)
        selected = pa.schema([reader.schema.field(name) for name in columns])
        whole = hasattr(reader, "num_record_batches")  # an IPC file; a stream is read batch by batch
        batches, rows, size = [], 0, 0
        for batch in (reader.get_batch(i) for i in range(reader.num_record_batches)) if whole else reader:
            batch = batch.select(columns)
            rows += batch.num_rows
            size += batch.nbytes
            check_rows(path, rows)
            _check_decoded(path, size)
            batches.append(batch)
        return pa.Table.from_batches(batches, schema=selected)
    except DataFormatError:
        raise
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise DataFormatError(path, None, f"not a readable {_kind(path)} file ({_first_line(exc)})") from None


def _decoded(path: Path, table, text: list[str]):
    """`table` with its text columns, read dictionary-encoded, decoded once their decoded size
    is known to be within `LIMITS.decoded` (as plain text: each value's UTF-8 is checked row by
    row later, as for a column stored plain)."""
    pa, pc = _pyarrow()
    size = 0
    for name in text:
        values = table.column(name)
        if pa.types.is_dictionary(values.type):
            size += _dictionary_decoded_size(values)
            _check_decoded(path, size)
    for name in text:
        values = table.column(name)
        if not pa.types.is_dictionary(values.type):
            continue
        value_type = values.type.value_type
        binary = pa.large_binary() if pa.types.is_large_string(value_type) or pa.types.is_large_binary(value_type) \
            else pa.binary()
        chunks = [pc.take(chunk.dictionary.view(binary), chunk.indices).view(
            value_type if not pa.types.is_dictionary(value_type) else binary) for chunk in values.chunks]
        table = table.set_column(table.column_names.index(name), name, pa.chunked_array(chunks, type=value_type))
    return table


def _is_text(kind) -> bool:
    pa, _ = _pyarrow()
    return pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_binary(kind)


def _check_parquet_metadata(path: Path, metadata, columns: list[str]) -> None:
    """Refuse a parquet file whose metadata declares more rows, or more bytes of the columns read
    (once decompressed), than `LIMITS` allows."""
    check_rows(path, metadata.num_rows)
    wanted = set(columns)
    size = 0
    for group in range(metadata.num_row_groups):
        chunks = metadata.row_group(group)
        for index in range(chunks.num_columns):
            chunk = chunks.column(index)
            if chunk.path_in_schema.split(".")[0] in wanted:
                size += max(int(chunk.total_uncompressed_size), 0)
    _check_decoded(path, size)


def _check_decoded(where, size: int) -> None:
    if size > LIMITS.decoded:
        raise DataFormatError(where, None, f"its columns hold more than {LIMITS.decoded:,} bytes once decoded "
                                           "(the bound; raise it with --read-limit decoded=SIZE)")


def has_field(schema, name: str) -> bool:
    """Whether `schema` has a column `name`, or a struct column whose field the dotted `name` reaches."""
    return _field_type(schema, name) is not None


def _field_type(schema, name: str):
    pa, _ = _pyarrow()
    if name in schema.names:
        return schema.field(name).type
    first, *rest = name.split(".")
    if not rest or first not in schema.names:
        return None
    kind = schema.field(first).type
    for part in rest:
        if not pa.types.is_struct(kind) or kind.get_field_index(part) < 0:
            return None
        kind = kind.field(part).type
    return kind


def _top_column(schema, name: str) -> str:
    return name if name in schema.names else name.split(".")[0]


def column(table, name: str):
    """The ChunkedArray of column `name`, or of the struct field a dotted `name` reaches (a null
    struct gives null fields)."""
    _, pc = _pyarrow()
    if name in table.column_names:
        return table.column(name)
    first, *rest = name.split(".")
    values = table.column(first)
    for part in rest:
        values = pc.struct_field(values, part)
    return values


def class_label_names(schema, label: str, path: Path | str) -> tuple[str, ...] | None:
    """The `ClassLabel` names of column `label` from the metadata `datasets` writes into parquet and
    Arrow files, or None. Metadata that is there but malformed is a DataFormatError: the file says
    its integers are classes, and reading them as numbers would be wrong."""
    metadata = schema.metadata or {}
    if HF_METADATA_KEY not in metadata:
        return None
    try:
        info = json.loads(metadata[HF_METADATA_KEY])
    except (ValueError, RecursionError):
        raise DataFormatError(path, None, "its Hugging Face metadata is not valid JSON") from None
    node = info.get("info", {}).get("features") if isinstance(info, dict) and isinstance(info.get("info"), dict) \
        else None
    for part in ([label] if isinstance(node, dict) and label in node else label.split(".")):
        node = node.get(part) if isinstance(node, dict) else None
    if not isinstance(node, dict) or node.get("_type") != "ClassLabel":
        return None
    return checked_label_names(node.get("names"), path)


def checked_label_names(names, where: Path | str) -> tuple[str, ...]:
    """`ClassLabel` names from a file or a cache, checked: distinct, non-empty strings."""
    if (not isinstance(names, (list, tuple)) or not names or not all(isinstance(n, str) and n.strip() for n in names)
            or len(set(names)) != len(names)):
        raise DataFormatError(where, None, f"the label column's ClassLabel names {names!r} are not distinct, "
                                           "non-empty strings")
    return tuple(names)


# ------------------------------------------------------------------ tables


class _Rules:
    """The row rules of one table, applied column-wise: each rule is a mask of the rows it refuses,
    a message for one such row, and the category it is counted under."""

    def __init__(self, n: int):
        self.n = n
        self.rules: list[tuple[np.ndarray, Callable[[int], str], str]] = []

    def add(self, mask: np.ndarray, message: Callable[[int], str], category: str) -> None:
        if mask.any():
            self.rules.append((mask, message, category))

    def apply(self, bad: BadRows) -> np.ndarray:
        """The rows no rule refuses. With on_bad_row "error", the first refused row raises (with the
        first rule that refuses it); else each refused row is counted once, under its first rule."""
        dropped = np.zeros(self.n, dtype=bool)
        if not self.rules:
            return ~dropped
        if bad.on_bad_row == "error":
            first = min(int(mask.argmax()) for mask, _, _ in self.rules)
            mask, message, category = next(rule for rule in self.rules if rule[0][first])
            bad.bad(None, message(first), category)
        for mask, _, category in self.rules:
            fresh = mask & ~dropped
            if fresh.any():
                bad.skipped[category] += int(fresh.sum())
                dropped |= fresh
        return ~dropped


def read_table(table, where: str, dataset: str, split: str, on_bad_row: str = "error", *, premise: str | None,
               hypothesis: str, label: str | None = "label", id_column: str | None = None,
               labels: Sequence[str] | None = None, label_names: Sequence[str] | None = None,
               label_map: Mapping[str, str] | None = None, meta_columns: Sequence[str] = (),
               paths: Sequence[Path] = (), scores: bool = False,
               score_range: tuple[float, float] | None = None) -> SplitData:
    """The pairs of a pyarrow Table whose premise and hypothesis columns are named (dotted names
    reach into structs); `where` names it in messages (a file, or `hf:NAME[split]`).

    premise: None for single sentences (CoLA, SST-2): every premise is "".
    label: the label column (absent: the split is unlabeled). label_names: the names of an integer
        label column's classes (a `ClassLabel`), in order. label_map: label -> the suite's label
        (a hub copy whose names differ from the official files', as WNLI's). labels: the closed
        label set, after mapping; another label is a bad row.
    scores: the label column holds scores (floats, integers or their text), kept as text and
        checked to be finite numbers in `score_range` (None: any); a column whose every value is
        -1 is an unlabeled split (GLUE's STS-B test set on the hub).
    id_column: the ids (integers or text); None: the row numbers, from 0.
    meta_columns: columns copied (as text) into each pair's `meta` where the table has them.
    """
    pa, _ = _pyarrow()
    try:  # the layout of every buffer, before anything reads one (a file or a cache is untrusted)
        table.validate()
    except pa.ArrowInvalid as exc:
        raise DataFormatError(where, None, f"a malformed table ({_first_line(exc)})") from None
    bad = BadRows(Path(where), on_bad_row)
    n = table.num_rows
    check_rows(where, n)  # a hub dataset's table too (a file's rows were bounded from its metadata)
    # And the text read becomes Python strings: a hub dataset's table is bounded here, before that
    # (a file's plain columns were bounded from its metadata; dictionary ones are, as they are decoded).
    _check_decoded(where, sum(column(table, name).nbytes for name in (premise, hypothesis, label, id_column,
                                                                      *meta_columns)
                              if name and has_field(table.schema, name) and _is_text(column(table, name).type)))
    bad.rows = n
    rules = _Rules(n)
    names = set(table.column_names)

    def present(name: str | None) -> bool:
        return bool(name) and has_field(table.schema, name)

    for name in (premise, hypothesis):
        if name is not None and not present(name):
            raise DataFormatError(where, None, f"no column {name!r}; the columns are {', '.join(sorted(names))}")
    premises = _sentences(table, premise, where, rules) if premise is not None else [""] * n
    hypotheses = _sentences(table, hypothesis, where, rules)
    notes: list[str] = []
    if not present(label):
        gold, excluded = [None] * n, None
    elif scores:
        gold, excluded = _scores(table, label, where, rules, score_range, notes), None
    else:
        gold, excluded = _labels(table, label, where, rules, labels, label_names, label_map or {}, notes)
    ids = _ids(table, id_column, where, rules) if present(id_column) else list(map(str, range(n)))
    metas = {name: _meta(table, name, where, rules) for name in meta_columns if present(name)}
    keep = rules.apply(bad)
    if excluded is not None:  # not malformed: rows the dataset itself marks as having no gold label
        fresh = excluded & keep
        if fresh.any():
            bad.skipped[NO_GOLD] += int(fresh.sum())
            keep &= ~fresh
    kept = None if keep.all() else np.flatnonzero(keep).tolist()
    if metas:
        pairs = [Pair(ids[i], premises[i], hypotheses[i], gold[i], meta={k: v[i] for k, v in metas.items()})
                 for i in (range(n) if kept is None else kept)]
    else:
        columns = (ids, premises, hypotheses, gold)
        if kept is not None:
            columns = tuple(list(map(values.__getitem__, kept)) for values in columns)
        pairs = pairs_from_columns(*columns)
    data = SplitData(dataset, split, list(paths), pairs, n, bad.skipped, notes=notes)
    data.columns = list(table.column_names)
    data.fields = {"premise": premise, "hypothesis": hypothesis, "label": label,
                   "id": id_column if present(id_column) else None}
    return data


def _validated(values, name: str, where: str):
    """`values` with every chunk's layout checked (offsets, dictionary indices in range): a table
    from a file or a cache must not make pyarrow read outside its buffers. Text is checked for
    UTF-8 row by row elsewhere (`_text`), so a string chunk is checked here as bytes."""
    pa, _ = _pyarrow()
    for chunk in values.chunks:
        try:
            if pa.types.is_string(chunk.type) or pa.types.is_large_string(chunk.type):
                chunk.view(pa.large_binary() if pa.types.is_large_string(chunk.type) else pa.binary()).validate(
                    full=True)
            else:
                chunk.validate(full=True)
        except pa.ArrowInvalid as exc:
            raise DataFormatError(where, None, f"column {name!r} is malformed ({_first_line(exc)})") from None
    return values


def _as_text(values, name: str, where: str, what: str):
    """`values` as a string ChunkedArray: text as it is, a dictionary of text decoded, integers as
    their digits; any other type is a DataFormatError naming the column and its type."""
    pa, pc = _pyarrow()
    kind = values.type
    if pa.types.is_dictionary(kind) and (pa.types.is_string(kind.value_type) or
                                         pa.types.is_large_string(kind.value_type)):
        _validated(values, name, where)
        _check_decoded(where, _dictionary_decoded_size(values))  # before decoding: a few values, many rows
        return pc.cast(values, kind.value_type)
    if pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_null(kind):
        return values if not pa.types.is_null(kind) else pc.cast(values, pa.string())
    if getattr(pa.types, "is_string_view", lambda _: False)(kind):
        return pc.cast(_validated(values, name, where), pa.string())
    if pa.types.is_integer(kind):
        return pc.cast(_validated(values, name, where), pa.string())
    raise DataFormatError(where, None, f"column {name!r} holds {kind} values; {what}")


def _dictionary_decoded_size(values) -> int:
    """The bytes a dictionary-encoded text column takes decoded: its values' lengths, summed over
    the indices (`take` refuses an index outside its dictionary)."""
    _, pc = _pyarrow()
    total = 0
    pa, _ = _pyarrow()
    for chunk in values.chunks:
        if len(chunk) and len(chunk.dictionary):
            dictionary = chunk.dictionary
            if pa.types.is_string(dictionary.type) or pa.types.is_large_string(dictionary.type):
                dictionary = dictionary.view(pa.large_binary() if pa.types.is_large_string(dictionary.type)
                                             else pa.binary())  # lengths in bytes, whatever the UTF-8
            lengths = pc.binary_length(dictionary)
            total += int(pc.sum(pc.take(lengths, chunk.indices)).as_py() or 0)
    return total


def _text(values, name: str, where: str, rules: _Rules) -> list:
    """The Python strings of a string ChunkedArray; rows whose bytes are not UTF-8 are refused (and
    hold their text decoded with U+FFFD in the list, which is never used)."""
    pa, _ = _pyarrow()
    out: list = []
    undecodable = np.zeros(len(values), dtype=bool)
    start = 0
    for chunk in values.chunks:
        try:
            chunk.validate(full=True)  # the layout and the UTF-8 of every value, in C
            out += chunk.to_pylist()
        except pa.ArrowInvalid:  # rare: a malformed chunk (an error), or rows that are not UTF-8, found in Python
            binary = chunk.view(pa.large_binary() if pa.types.is_large_string(chunk.type) else pa.binary())
            _validated(pa.chunked_array([binary]), name, where)
            for offset, raw in enumerate(binary.to_pylist()):
                if raw is None:
                    out.append(None)
                    continue
                try:
                    out.append(raw.decode("utf-8"))
                except UnicodeDecodeError:
                    undecodable[start + offset] = True
                    out.append(raw.decode("utf-8", errors="replace"))
        start += len(chunk)
    rules.add(undecodable, lambda i: f"row {i}: field {name!r} holds undecodable bytes (not UTF-8)", UNDECODABLE)
    return out


def _sentences(table, name: str, where: str, rules: _Rules) -> list:
    """A premise or hypothesis column as Python strings, its null, undecodable and over-long rows refused."""
    _, pc = _pyarrow()
    values = _as_text(column(table, name), name, where, "premises and hypotheses must be text")
    texts = _text(values, name, where, rules)
    rules.add(values.is_null().to_numpy(zero_copy_only=False),
              lambda i: f"row {i}: field {name!r} must be a string, not null", WRONG_TYPE)
    lengths = pc.fill_null(pc.utf8_length(values), 0).to_numpy() if len(values) else np.zeros(0, dtype=np.int64)
    too_long = lengths > MAX_SENTENCE_CHARS
    if too_long.any():
        rules.add(too_long, lambda i: f"row {i}: field {name!r} is {int(lengths[i]):,} characters long; the limit is "
                                      f"{MAX_SENTENCE_CHARS:,}", "sentence too long")
    return texts


def _ids(table, name: str, where: str, rules: _Rules) -> list:
    values = _as_text(column(table, name), name, where, "ids must be integers or text")
    ids = _text(values, name, where, rules)
    rules.add(values.is_null().to_numpy(zero_copy_only=False),
              lambda i: f"row {i}: field {name!r} must be a string or an integer, not null", WRONG_TYPE)
    return ids


def _meta(table, name: str, where: str, rules: _Rules) -> list:
    return _text(_as_text(column(table, name), name, where, "expected integers or text"), name, where, rules)


def _labels(table, name: str, where: str, rules: _Rules, labels, label_names, label_map: Mapping[str, str],
            notes: list[str]) -> tuple[list, np.ndarray | None]:
    """(gold label or None per row, rows without a gold label to exclude, or None)."""
    pa, pc = _pyarrow()
    values = column(table, name)
    n = len(values)
    if label_names is not None and pa.types.is_integer(values.type):
        return _class_labels(values, name, where, rules, labels, label_names, label_map, notes)
    if pa.types.is_floating(values.type):  # numbers as classes (--target labels): their shortest text
        values = pc.cast(_validated(values, name, where), pa.string())
    values = _as_text(values, name, where, "labels must be text, or numbers (integers with ClassLabel names or not)")
    raw = _text(values, name, where, rules)
    # A label column holds a handful of distinct values: each is stripped and mapped once, and the
    # rows are mapped in C. An empty (or null) cell is unlabeled, as in a custom TSV file.
    cleaned = {v: None if v is None else label_map.get(v.strip(), v.strip()) or None for v in set(raw)}
    gold = list(map(cleaned.__getitem__, raw))
    unknown = {v for v in cleaned.values() if v is not None and labels is not None and v not in labels}
    if unknown:
        mask = np.fromiter((g in unknown for g in gold), dtype=bool, count=n)
        rules.add(mask, lambda i: f"row {i}: unknown label {gold[i]!r}; expected one of {', '.join(labels)}",
                  UNKNOWN_LABEL)
    return gold, None


def _scores(table, name: str, where: str, rules: _Rules, score_range, notes: list[str]) -> list:
    """A score column as text (floats in their shortest form: float32 3.8 is "3.8"), each checked
    by `score_problem`; null or empty cells are unlabeled, and so is a column of -1 alone."""
    pa, pc = _pyarrow()
    values = column(table, name)
    if pa.types.is_floating(values.type) or pa.types.is_decimal(values.type):
        values = pc.cast(_validated(values, name, where), pa.string())
    else:
        values = _as_text(values, name, where, "scores must be numbers, or their text")
    raw = _text(values, name, where, rules)
    cleaned = {v: None if v is None or not v.strip() else v.strip() for v in set(raw)}
    if len(raw) and set(cleaned.values()) == {"-1"}:
        shown = Path(where).name if Path(where).is_file() else where
        notes.append(f"{shown}: every score is -1: an unlabeled split (a benchmark's test set)")
        return [None] * len(raw)
    problems = {v: score_problem(v, score_range) for v in cleaned.values() if v is not None}
    gold = list(map(cleaned.__getitem__, raw))
    if any(problems.values()):
        mask = np.fromiter((g is not None and problems[g] is not None for g in gold), dtype=bool, count=len(gold))
        rules.add(mask, lambda i: f"row {i}: {problems[gold[i]]}", BAD_SCORE)
    return gold


def distinct_texts(table, name: str, where: str) -> list[str]:
    """The distinct values of a label column as text (numbers in their shortest form), stripped,
    empty and null ones left out, in the order they first occur."""
    pa, pc = _pyarrow()
    values = column(table, name)
    if pa.types.is_floating(values.type):
        values = pc.cast(_validated(values, name, where), pa.string())
    values = _as_text(values, name, where, "labels must be text, or numbers")
    unique = pc.unique(_validated(values, name, where))
    kind = pa.large_binary() if pa.types.is_large_string(unique.type) else pa.binary()
    texts = (raw.decode("utf-8", errors="replace") for raw in unique.view(kind).to_pylist() if raw is not None)
    return list(dict.fromkeys(text.strip() for text in texts if text.strip()))


def _class_labels(values, name: str, where: str, rules: _Rules, labels, label_names, label_map,
                  notes: list[str]) -> tuple[list, np.ndarray | None]:
    """A ClassLabel column: integers -> names (mapped), -1 -> no gold label, or an unlabeled split."""
    pa, pc = _pyarrow()
    _validated(values, name, where)
    if pa.types.is_unsigned_integer(values.type) and len(values):  # -1 does not fit; past int64 is out of range
        codes = np.minimum(pc.fill_null(values, 0).to_numpy(), np.iinfo(np.int64).max).astype(np.int64)
        codes[values.is_null().to_numpy(zero_copy_only=False)] = NO_LABEL
    else:
        codes = pc.fill_null(values, NO_LABEL).to_numpy().astype(np.int64, copy=False) if len(values) \
            else np.zeros(0, dtype=np.int64)
    names = [label_map.get(x, x) for x in label_names]
    out_of_range = (codes < NO_LABEL) | (codes >= len(names))
    rules.add(out_of_range, lambda i: f"row {i}: label {int(codes[i])} is no class of the ClassLabel column "
                                      f"{name!r} (0-{len(names) - 1}: {', '.join(label_names)}; -1: none)",
              UNKNOWN_LABEL)
    if labels is not None:
        foreign = [k for k, x in enumerate(names) if x not in set(labels)]
        if foreign:
            mask = np.isin(codes, foreign)
            rules.add(mask, lambda i: f"row {i}: unknown label {names[int(codes[i])]!r}; expected one of "
                                      f"{', '.join(labels)}", UNKNOWN_LABEL)
    table = np.array(names + [None], dtype=object)  # index -1 (and out-of-range rows, refused) -> None
    gold = table[np.where(out_of_range, -1, codes)].tolist()
    missing = codes == NO_LABEL
    if len(codes) and missing.all():
        shown = Path(where).name if Path(where).is_file() else where
        notes.append(f"{shown}: every label is {NO_LABEL}: an unlabeled split (a benchmark's test set)")
        return gold, None
    return gold, missing if missing.any() else None
