"""SICK (SemEval-2014 Task 1): one `SICK.txt`, split by its `SemEval_set` column; its entailment
labels, or its relatedness scores (1-5)."""
from __future__ import annotations

from pathlib import Path

from nli_baselines.features.labels import NLI3
from nli_baselines.features.pair import Pair

from .common import (UNDECODABLE, BadRows, DataFormatError, SplitData, checked_score, decoded_lines, is_blank,
                     map_label, sentence_pair)

SICK_SETS = {"TRAIN": "train", "TRIAL": "dev", "TEST": "test"}
_LABELS = {label.upper(): label for label in NLI3}
RELATEDNESS_RANGE = (1.0, 5.0)


def read_sick(path: Path, dataset: str, split: str, on_bad_row: str = "error", *,
              scores: tuple[float, float] | None = None) -> SplitData:
    """Pairs of `split` (train=TRAIN, dev=TRIAL, test=TEST); a file without TEST rows has an empty test split.

    scores: read the relatedness scores (as written, checked to lie in this range) instead of the
        entailment labels.

    Each of the three reads sees the whole file, so every row, good or bad, is counted in one split
    only: its own. A row whose `SemEval_set` cannot be read (wrong column count, unknown value, or
    undecodable bytes in that cell) counts under train. An undecodable row whose `SemEval_set` is
    readable counts in its own split.
    """
    bad = BadRows(path, on_bad_row)
    lines = ((n, text, problem) for n, text, problem in decoded_lines(path, header=1) if not is_blank(text))
    header_number, header_text, problem = next(lines, (1, "", None))
    if problem:
        raise DataFormatError(path, header_number, f"header line: {problem}")
    header = header_text.split("\t")
    gold = "relatedness_score" if scores is not None else "entailment_label"
    required = ("pair_ID", "sentence_A", "sentence_B", gold, "SemEval_set")
    missing = [c for c in required if c not in header]
    if missing:
        raise DataFormatError(path, header_number, f"header lacks column(s) {', '.join(missing)}")
    col = {name: header.index(name) for name in required}
    pairs: list[Pair] = []
    for number, line, problem in lines:
        cells = line.split("\t")
        complete = len(cells) == len(header)
        row_split = SICK_SETS.get(cells[col["SemEval_set"]]) if complete else None
        if (row_split or "train") != split:
            continue
        bad.rows += 1
        if problem:
            bad.bad(number, problem, UNDECODABLE)
        elif not complete:
            bad.bad(number, f"expected {len(header)} tab-separated columns, found {len(cells)}", "wrong column count")
        elif row_split is None:
            bad.bad(number, f"unknown SemEval_set {cells[col['SemEval_set']]!r}", "unknown SemEval_set")
        else:
            label = (checked_score(cells[col[gold]], scores, number, bad) if scores is not None
                     else map_label(cells[col[gold]], _LABELS, number, bad))
            sentences = None if label is None else sentence_pair(
                cells[col["sentence_A"]], cells[col["sentence_B"]], ("sentence_A", "sentence_B"), number, bad)
            if sentences is not None:
                pairs.append(Pair(cells[col["pair_ID"]], *sentences, label))
    return bad.split(dataset, split, pairs)
