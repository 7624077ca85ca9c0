"""Any sentence-pair task in TSV, CSV or JSONL with named premise/hypothesis/label columns."""
from __future__ import annotations

import csv
import io
from pathlib import Path

from features.pair import Pair

from .common import BadRows, DataFormatError, SplitData, iter_jsonl, iter_lines, iter_tsv


def read_custom(path: Path, dataset: str, split: str, on_bad_row: str = "error", *,
                premise: str = "premise", hypothesis: str = "hypothesis", label: str = "label",
                id_column: str | None = None, labels: tuple[str, ...] | None = None) -> SplitData:
    """Read `path` by its suffix (.tsv unquoted, .csv quoted, .jsonl).

    A file without the label column is unlabeled (a test split). `labels`, when
    given, is the closed label set; other values are bad rows.
    """
    bad = BadRows(path, on_bad_row)
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        rows = iter_jsonl(path, bad)
    elif suffix == ".tsv":
        rows = iter_tsv(path, bad, (premise, hypothesis))
    elif suffix == ".csv":
        rows = _iter_csv(path, bad, (premise, hypothesis))
    else:
        raise DataFormatError(path, None, f"unsupported file type {suffix!r}; use .tsv, .csv or .jsonl")
    pairs = []
    for number, row in rows:
        p, h = row.get(premise), row.get(hypothesis)
        if p is None or h is None:
            bad.bad(number, f"missing field(s) {premise!r}/{hypothesis!r}", "missing field")
            continue
        gold = row.get(label)
        if gold is not None:
            gold = str(gold).strip()
            if labels is not None and gold not in labels:
                bad.bad(number, f"unknown label {gold!r}; expected one of {', '.join(labels)}", "unknown label")
                continue
        pair_id = str(row[id_column]) if id_column and row.get(id_column) is not None else str(number)
        pairs.append(Pair(pair_id, str(p), str(h), gold or None))
    return bad.split(dataset, split, pairs)


def _iter_csv(path: Path, bad: BadRows, required: tuple[str, ...]):
    # Quoted CSV fields may span lines, so decode the file whole and let csv split records.
    lines = [text for _, text in iter_lines(path, bad)]
    reader = csv.reader(io.StringIO("\n".join(lines)))
    header = next(reader, None)
    if header is None:
        raise DataFormatError(path, None, "empty file (no header line)")
    missing = [c for c in required if c not in header]
    if missing:
        raise DataFormatError(path, 1, f"header lacks column(s) {', '.join(missing)}; found {', '.join(header)}")
    bad.rows = 0
    for cells in reader:
        bad.rows += 1
        number = reader.line_num
        if len(cells) != len(header):
            bad.bad(number, f"expected {len(header)} comma-separated columns, found {len(cells)}",
                    "wrong column count")
            continue
        yield number, dict(zip(header, cells))
