"""SuperGLUE jsonl tasks: CB, RTE and AX-b (`{"premise"|"sentence1", ..., "label", "idx"}`)."""
from __future__ import annotations

from pathlib import Path

from features.labels import NLI2
from features.pair import Pair

from .common import BadRows, SplitData, iter_jsonl, map_label


def read_superglue(path: Path, dataset: str, split: str, on_bad_row: str = "error",
                   labels: tuple[str, ...] = NLI2) -> SplitData:
    """Rows without a `label` key (test files) give unlabeled pairs; ids are `idx`."""
    bad = BadRows(path, on_bad_row)
    mapping = {label: label for label in labels}
    pairs = []
    for number, row in iter_jsonl(path, bad):
        premise = row.get("premise", row.get("sentence1"))
        hypothesis = row.get("hypothesis", row.get("sentence2"))
        if premise is None or hypothesis is None:
            bad.bad(number, "missing field(s) premise/sentence1 or hypothesis/sentence2", "missing field")
            continue
        label = None
        if "label" in row:
            label = map_label(str(row["label"]), mapping, number, bad)
            if label is None:
                continue
        pairs.append(Pair(str(row.get("idx", number - 1)), str(premise), str(hypothesis), label))
    return bad.split(dataset, split, pairs)
