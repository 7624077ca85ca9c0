"""SNLI 1.0 and MultiNLI 1.0 (official jsonl and txt) and GLUE's MNLI tsv layout.

All three ship Stanford parser trees, whose `(TAG word)` leaves give tokens and
Penn Treebank tags without running a tagger (this is what the SNLI paper had).
"""
from __future__ import annotations

import re
from pathlib import Path

from features.labels import NLI3
from features.pair import Pair

from .common import NO_GOLD, BadRows, SplitData, iter_jsonl, iter_tsv, map_label, require_fields

_LABEL_MAP = {label: label for label in NLI3}
_LEAF = re.compile(r"\(([^\s()]+) ([^\s()]+)\)")


def tokens_and_tags(parse: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Tokens and PTB tags from the preterminal leaves `(TAG word)` of a bracketed parse."""
    leaves = _LEAF.findall(parse)
    return tuple(word for _, word in leaves), tuple(tag for tag, _ in leaves)


class _SharedParses(dict):
    """parse string -> (tokens, tags), so a premise repeated over pairs is one pair of tuples
    (less memory, and the encoder recognizes repeats by identity)."""

    def __missing__(self, parse: str):
        value = self[parse] = tokens_and_tags(parse)
        return value


def _pair_from_row(row: dict, number: int, bad: BadRows, id_field: str, labeled: bool,
                   parses: _SharedParses) -> Pair | None:
    if not require_fields(row, ("sentence1", "sentence2"), number, bad):
        return None
    label = None
    if labeled:
        raw = row.get("gold_label")
        if raw is None:
            bad.bad(number, "missing field(s) gold_label", "missing field")
            return None
        if raw == "-":
            bad.exclude(NO_GOLD)
            return None
        label = map_label(raw, _LABEL_MAP, number, bad)
        if label is None:
            return None
    pair_id = str(row.get(id_field) or row.get("pairID") or number)
    p1, p2 = row.get("sentence1_parse"), row.get("sentence2_parse")
    annotation = {}
    if p1 and p2:
        (pt, ptags), (ht, htags) = parses[p1], parses[p2]
        annotation = dict(premise_tokens=pt, premise_tags=ptags, hypothesis_tokens=ht, hypothesis_tags=htags)
    meta = {"genre": row["genre"]} if row.get("genre") else {}
    return Pair(pair_id, row["sentence1"], row["sentence2"], label, meta=meta, **annotation)


def read_nli(path: Path, dataset: str, split: str, on_bad_row: str = "error") -> SplitData:
    """Read an SNLI/MultiNLI file: `.jsonl`, or the tab-separated `.txt`/GLUE `.tsv` layouts.

    Rows whose gold label is `-` (no annotator majority) are excluded and counted.
    A GLUE MNLI test file has no `gold_label` column and yields unlabeled pairs.
    """
    bad = BadRows(path, on_bad_row)
    pairs: list[Pair] = []
    if path.suffix == ".jsonl":
        source = iter_jsonl(path, bad)
        labeled = True
        id_field = "pairID"
    else:
        header = _peek_header(path)
        labeled = "gold_label" in header
        id_field = "index" if "index" in header else "pairID"
        source = iter_tsv(path, bad, ("sentence1", "sentence2"))
    parses = _SharedParses()
    for number, row in source:
        pair = _pair_from_row(row, number, bad, id_field, labeled, parses)
        if pair is not None:
            pairs.append(pair)
    return bad.split(dataset, split, pairs)


def _peek_header(path: Path) -> list[str]:
    with open(path, "rb") as handle:
        first = handle.readline().decode("utf-8", errors="replace").rstrip("\r\n")
    return first.lstrip("\ufeff").split("\t")
