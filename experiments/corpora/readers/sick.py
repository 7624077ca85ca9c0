"""SICK (SemEval-2014 Task 1): one `SICK.txt`, split by its `SemEval_set` column."""
from __future__ import annotations

from pathlib import Path

from features.labels import NLI3
from features.pair import Pair

from .common import BadRows, DataFormatError, SplitData, iter_lines, map_label

SICK_SETS = {"TRAIN": "train", "TRIAL": "dev", "TEST": "test"}
_LABELS = {label.upper(): label for label in NLI3}
_REQUIRED = ("pair_ID", "sentence_A", "sentence_B", "entailment_label", "SemEval_set")


def read_sick(path: Path, dataset: str, split: str, on_bad_row: str = "error") -> SplitData:
    """Pairs of `split` (train=TRAIN, dev=TRIAL, test=TEST); a file without TEST rows has an empty test split.

    A malformed row whose `SemEval_set` cannot be read is counted under train,
    so that each bad row is reported exactly once over the three splits.
    """
    bad = BadRows(path, on_bad_row)
    lines = iter_lines(path, bad)
    header = next(lines, (1, ""))[1].split("\t")
    missing = [c for c in _REQUIRED if c not in header]
    if missing:
        raise DataFormatError(path, 1, f"header lacks column(s) {', '.join(missing)}")
    col = {name: header.index(name) for name in _REQUIRED}
    bad.rows = 0
    pairs: list[Pair] = []
    for number, line in lines:
        cells = line.split("\t")
        row_split = SICK_SETS.get(cells[col["SemEval_set"]]) if len(cells) == len(header) else None
        if row_split is None:
            if split == "train":
                if len(cells) != len(header):
                    bad.bad(number, f"expected {len(header)} tab-separated columns, found {len(cells)}",
                            "wrong column count")
                else:
                    bad.bad(number, f"unknown SemEval_set {cells[col['SemEval_set']]!r}", "unknown SemEval_set")
            else:
                bad.rows -= 1
            continue
        if row_split != split:
            bad.rows -= 1
            continue
        label = map_label(cells[col["entailment_label"]], _LABELS, number, bad)
        if label is not None:
            pairs.append(Pair(cells[col["pair_ID"]], cells[col["sentence_A"]], cells[col["sentence_B"]], label))
    return bad.split(dataset, split, pairs)
