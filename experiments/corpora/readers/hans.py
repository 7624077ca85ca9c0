"""HANS (McCoy, Pavlick and Linzen 2019, "Right for the Wrong Reasons"): `heuristics_evaluation_set.txt`
and `heuristics_train_set.txt`, tab-separated in MultiNLI's layout.

Columns: gold_label (`entailment` / `non-entailment`), the binary and bracketed parses of both
sentences, sentence1, sentence2, pairID, heuristic (lexical_overlap, subsequence, constituent),
subcase (ln_subject/object_swap, ...) and template. Labels become the suite's two-class labels
(`non-entailment` is `not_entailment`); tokens and tags come from the bracketed parses, as for
SNLI; heuristic, subcase and template go to `Pair.meta`, where the breakdown finds them.
"""
from __future__ import annotations

from pathlib import Path

from nli_baselines.features.labels import ENTAILMENT, NOT_ENTAILMENT
from nli_baselines.features.pair import Pair

from .common import BadRows, DataFormatError, SplitData, iter_tsv, map_label, open_input, sentence_pair
from .snli import tokens_and_tags

HANS_ENTAILMENT, HANS_NON_ENTAILMENT = "entailment", "non-entailment"  # HANS's own spelling
HANS_LABELS = (HANS_ENTAILMENT, HANS_NON_ENTAILMENT)
_LABEL_MAP = {HANS_ENTAILMENT: ENTAILMENT, HANS_NON_ENTAILMENT: NOT_ENTAILMENT}
REQUIRED = ("gold_label", "sentence1", "sentence2", "pairID", "heuristic", "subcase")


def read_hans(path: Path, dataset: str, split: str, on_bad_row: str = "error") -> SplitData:
    """Read a HANS file; a row without its heuristic or subcase, or repeating a pairID, is a bad row."""
    bad = BadRows(path, on_bad_row)
    pairs: list[Pair] = []
    seen: dict[str, int] = {}
    for number, row in iter_tsv(path, bad, REQUIRED):
        label = map_label(row["gold_label"], _LABEL_MAP, number, bad)
        if label is None:
            continue
        sentences = sentence_pair(row["sentence1"], row["sentence2"], ("sentence1", "sentence2"), number, bad)
        if sentences is None:
            continue
        pair_id, heuristic, subcase = row["pairID"], row["heuristic"].strip(), row["subcase"].strip()
        if not pair_id or not heuristic or not subcase:
            empty = next(name for name, value in (("pairID", pair_id), ("heuristic", heuristic),
                                                  ("subcase", subcase)) if not value)
            bad.bad(number, f"empty {empty}", "missing field")
            continue
        if pair_id in seen:
            bad.bad(number, f"pairID {pair_id!r} repeats line {seen[pair_id]}", "repeated pairID")
            continue
        if "," in pair_id or pair_id != pair_id.strip():
            # HANS's prediction file is `pairID,label` lines, read by splitting on the comma.
            bad.bad(number, f"pairID {pair_id!r} holds a comma or surrounding spaces, which HANS's "
                            "pairID,gold_label prediction file cannot hold", "malformed pairID")
            continue
        seen[pair_id] = number
        meta = {"heuristic": heuristic, "subcase": subcase, "template": row.get("template", "").strip()}
        p1, p2 = row.get("sentence1_parse", ""), row.get("sentence2_parse", "")
        (pt, ptags), (ht, htags) = (tokens_and_tags(p1), tokens_and_tags(p2)) if p1 and p2 else (((), ()),) * 2
        if pt and ht:
            # The trees stay, as the SNLI reader keeps them: a model trained on SNLI takes its
            # dependencies from the corpus's trees (`features.text.tree_dependencies`), and scoring it
            # on HANS with the parser's instead would change what its syntax features see.
            pairs.append(Pair(pair_id, *sentences, label, pt, ptags, ht, htags, premise_tree=p1, hypothesis_tree=p2,
                              meta=meta))
        else:  # no parses (a file of one's own in HANS's layout): the tagger annotates the pair
            pairs.append(Pair(pair_id, *sentences, label, meta=meta))
    return bad.split(dataset, split, pairs)


def looks_like_hans(path: Path) -> bool:
    """Whether `path` is a tab-separated file whose header names HANS's columns (heuristic, subcase)."""
    try:
        with open_input(path) as handle:
            first = handle.readline(65536).decode("utf-8", errors="replace")
    except (OSError, DataFormatError):
        return False
    columns = first.lstrip("\ufeff").rstrip("\r\n").split("\t")
    return all(name in columns for name in REQUIRED)
