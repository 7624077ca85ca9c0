"""SuperGLUE jsonl tasks: CB, RTE, AX-b and AX-g (`{"premise"|"sentence1", ..., "label", "idx"}`;
AX-g's rows also carry the `pair_id` that joins the two gendered versions of one sentence)."""
from __future__ import annotations

from pathlib import Path

from nli_baselines.features.labels import NLI2
from nli_baselines.features.pair import Pair

from .common import BadRows, SplitData, integer_id, iter_jsonl, map_label, sentence_pair, text_value


def read_superglue(path: Path, dataset: str, split: str, on_bad_row: str = "error",
                   labels: tuple[str, ...] = NLI2) -> SplitData:
    """Rows without a `label` key (test files) give unlabeled pairs; ids are `idx`.

    `idx` must be a JSON integer (the prediction files write it back as one); a row without it
    gets its 0-based line number. Sentences and labels must be strings.
    """
    bad = BadRows(path, on_bad_row)
    mapping = {label: label for label in labels}
    pairs = []
    for number, row in iter_jsonl(path, bad):
        premise_key = "premise" if "premise" in row else "sentence1"
        hypothesis_key = "hypothesis" if "hypothesis" in row else "sentence2"
        if premise_key not in row or hypothesis_key not in row:
            bad.bad(number, "missing field(s) premise/sentence1 or hypothesis/sentence2", "missing field")
            continue
        sentences = sentence_pair(row[premise_key], row[hypothesis_key], (premise_key, hypothesis_key), number, bad)
        if sentences is None:
            continue
        label = None
        if "label" in row:
            raw = text_value(row["label"], "label", number, bad)
            if raw is None:
                continue
            label = map_label(raw, mapping, number, bad)
            if label is None:
                continue
        pair_id = integer_id(row["idx"], "idx", number, bad) if "idx" in row else str(number - 1)
        if pair_id is None:
            continue
        meta = {}
        if "pair_id" in row:  # AX-g: the same sentence with another pronoun shares it
            meta["pair_id"] = integer_id(row["pair_id"], "pair_id", number, bad)
            if meta["pair_id"] is None:
                continue
        pairs.append(Pair(pair_id, *sentences, label, meta=meta))
    return bad.split(dataset, split, pairs)
