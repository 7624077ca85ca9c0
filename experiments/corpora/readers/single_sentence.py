"""Single-sentence tasks: GLUE CoLA (acceptability) and SST-2 (sentiment).

A single sentence is a pair with no premise: premise "" and the sentence as the hypothesis, so the
feature types that read the hypothesis alone (`hyp_ngrams`, `length_diff`, `negation`) read it, and
the task says `single_sentence` (the run leaves out the types that read the premise).
"""
from __future__ import annotations

from itertools import chain
from pathlib import Path

from nli_baselines.features.labels import BINARY01
from nli_baselines.features.pair import Pair

from .common import BadRows, SplitData, first_line, iter_lines, iter_tsv, map_label, sentence_value

_BINARY = {label: label for label in BINARY01}
COLA_COLUMNS = ("source", "label", "original_label", "sentence")
COLA_TEST_HEADER = ["index", "sentence"]


def read_cola(path: Path, dataset: str, split: str, on_bad_row: str = "error") -> SplitData:
    """GLUE CoLA: train.tsv and dev.tsv have no header (`source label original_label sentence`;
    label 1 = acceptable, `original_label` the author's `*`), test.tsv has `index sentence` and no
    label. Ids are the 0-based row numbers (test: its `index`). Read unquoted: sentences hold quotes."""
    bad = BadRows(path, on_bad_row)
    pairs = []
    # The test file's header is no data row: which file it is decides what the row bound counts.
    header = first_line(path).split("\t") == COLA_TEST_HEADER
    lines = iter_lines(path, bad, header=int(header))
    first = next(lines, None)
    if header:
        bad.rows -= 1  # the header
        for number, line in lines:
            cells = line.split("\t")
            if len(cells) != len(COLA_TEST_HEADER):
                bad.bad(number, f"expected {len(COLA_TEST_HEADER)} tab-separated columns (index, sentence), found "
                                f"{len(cells)}", "wrong column count")
                continue
            sentence = sentence_value(cells[1], "sentence", number, bad)
            if sentence is not None:
                pairs.append(Pair(cells[0], "", sentence, None))
        return bad.split(dataset, split, pairs)
    for number, line in chain([first] if first is not None else [], lines):
        cells = line.split("\t")
        if len(cells) != len(COLA_COLUMNS):
            bad.bad(number, f"expected {len(COLA_COLUMNS)} tab-separated columns ({', '.join(COLA_COLUMNS)}; CoLA's "
                            f"train and dev files have no header), found {len(cells)}", "wrong column count")
            continue
        label = map_label(cells[1], _BINARY, number, bad)
        sentence = None if label is None else sentence_value(cells[3], "sentence", number, bad)
        if sentence is not None:
            pairs.append(Pair(str(bad.rows - 1), "", sentence, label))
    return bad.split(dataset, split, pairs)


def read_sst2(path: Path, dataset: str, split: str, on_bad_row: str = "error") -> SplitData:
    """GLUE SST-2: `sentence label` (1 = positive; train.tsv repeats some rows, as the official file
    does, and they are kept), test.tsv `index sentence`. Ids are the 0-based row numbers (test: its
    `index`)."""
    bad = BadRows(path, on_bad_row)
    pairs = []
    for number, row in iter_tsv(path, bad, ("sentence",)):
        label = None
        if "label" in row:
            label = map_label(row["label"], _BINARY, number, bad)
            if label is None:
                continue
        sentence = sentence_value(row["sentence"], "sentence", number, bad)
        if sentence is not None:
            pairs.append(Pair(row.get("index", str(bad.rows - 1)), "", sentence, label))
    return bad.split(dataset, split, pairs)
