"""SNLI 1.0 and MultiNLI 1.0 (official jsonl and txt) and GLUE's MNLI tsv layout.

All three ship Stanford parser trees, whose `(TAG word)` leaves give tokens and
Penn Treebank tags without running a tagger (this is what the SNLI paper had).
"""
from __future__ import annotations

import re
from itertools import accumulate, chain, compress, repeat
from operator import itemgetter, not_
from pathlib import Path
from sys import intern
from typing import Sequence

from nli_baselines.features.labels import NLI3
from nli_baselines.features.pair import Pair, pairs_from_columns

from .common import (LIMITS, MAX_SENTENCE_CHARS, NO_GOLD, BadRows, SplitData, iter_tsv, jsonl_blocks, map_label,
                     missing_field, open_input, sentence_pair, text_value)

_LABEL_MAP = {label: label for label in NLI3}
HIDDEN = "hidden"  # MultiNLI's unlabeled test files (and their hard subsets) write this as gold_label
# A preterminal `(TAG word)`, captured as `TAG word`; tag and word hold no bracket and no whitespace.
# `[^\s()]` spelled out (\s is what str.isspace() holds for; a test checks the two agree): a class
# of plain characters is matched by table, `\s` by a call per character. Possessive: giving
# characters back could never find a leaf (a space or a bracket must follow), only cost time.
_TAG_OR_WORD = r"[^\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000()]++"
_LEAF = re.compile(rf"\(({_TAG_OR_WORD} {_TAG_OR_WORD})\)")
_JSONL_FIELDS = [itemgetter(name) for name in ("sentence1", "sentence2", "gold_label", "pairID", "sentence1_parse",
                                              "sentence2_parse")]  # what a pair is made of, but the genre


def tokens_and_tags(parse: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Tokens and PTB tags from the preterminal leaves `(TAG word)` of a bracketed parse."""
    leaves = _LEAF.findall(parse)
    if not leaves:
        return (), ()
    # Neither tag nor word holds a space, so joining the leaves and splitting on spaces gives
    # tag, word, tag, word, ...: everything in C, no Python step per token.
    items = " ".join(leaves).split(" ")
    return tuple(map(intern, items[1::2])), tuple(map(intern, items[0::2]))


def _tokens_and_tags_of_many(parses: list[str], leaves: _Leaves) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """(tokens, tags): the columns of `tokens_and_tags(p)` for p in `parses`, found with no Python
    step per parse or per leaf. `leaves` caches each leaf's interned tag and word."""
    found = list(map(_LEAF.findall, parses))
    items = tuple(chain.from_iterable(map(leaves.__getitem__, chain.from_iterable(found))))  # tag, word, tag, ...
    ends = list(accumulate(map(len, found)))
    shares = list(map(slice, chain((0,), ends), ends))
    return list(map(items[1::2].__getitem__, shares)), list(map(items[0::2].__getitem__, shares))


class _Leaves(dict):
    """`TAG word` -> (TAG, word), interned: a leaf seen before (most are) costs one lookup, instead
    of two new strings and two interns."""

    def __missing__(self, leaf: str) -> tuple[str, str]:
        tag, word = leaf.split(" ")
        value = self[leaf] = (intern(tag), intern(word))
        return value


class _SharedParses(dict):
    """parse string -> (tokens, tags), so a premise repeated over pairs is one pair of tuples
    (less memory, and the encoder recognizes repeats by identity)."""

    def __missing__(self, parse: str):
        value = self[parse] = tokens_and_tags(parse)
        self.trees[parse] = parse
        return value

    def __init__(self):
        super().__init__()
        self.trees: dict[str, str] = {}  # each parse string kept once, however many pairs share it
        self.leaves = _Leaves()

    def tree(self, parse: str) -> str:
        return self.trees.get(parse, parse)


def _well_formed_pair(row: dict, number: int, id_field: str, labeled: bool, parses: _SharedParses) -> Pair | None:
    """The Pair of a row that passes every check of `_pair_from_row`, found without reporting
    anything; None for any other row, which `_pair_from_row` then checks (and reports) in full.
    Almost every row of a real file is well formed, so this is the path that sets the pace of the
    tab-separated layouts (jsonl rows are built a block at a time: `_jsonl_pairs`)."""
    get = row.get
    premise, hypothesis = get("sentence1"), get("sentence2")
    if (type(premise) is not str or type(hypothesis) is not str
            or len(premise) > MAX_SENTENCE_CHARS or len(hypothesis) > MAX_SENTENCE_CHARS):
        return None
    label = None
    if labeled:
        raw = get("gold_label")
        if type(raw) is not str:
            return None
        label = _LABEL_MAP.get(raw)  # "-" (no gold label) and unknown labels take the checked path
        if label is None:
            return None
    # Optional text fields: absent ("") or a string; anything else takes the checked path.
    own_id, pair_id = get(id_field, ""), get("pairID", "")
    p1, p2, genre = get("sentence1_parse", ""), get("sentence2_parse", ""), get("genre", "")
    if not (type(own_id) is type(pair_id) is type(p1) is type(p2) is type(genre) is str):
        return None
    pair_id = own_id or pair_id or str(number)
    meta = {"genre": genre} if genre else {}
    if p1 and p2:
        # Premises repeat (SNLI: ~3.7 pairs each) and share their tuples; hypotheses hardly ever
        # repeat, so a cache would only hold their parse strings.
        (pt, ptags), (ht, htags) = parses[p1], tokens_and_tags(p2)
        return Pair(pair_id, premise, hypothesis, label, pt, ptags, ht, htags, premise_tree=parses.tree(p1),
                    hypothesis_tree=p2, meta=meta)
    return Pair(pair_id, premise, hypothesis, label, meta=meta)


def _pair_from_row(row: dict, number: int, bad: BadRows, id_field: str, labeled: bool,
                   parses: _SharedParses) -> Pair | None:
    pair = _well_formed_pair(row, number, id_field, labeled, parses)
    if pair is not None:
        return pair
    # Rows from the tsv layouts hold strings only; jsonl rows may hold any JSON type, and a present
    # field of the wrong type (null included) is a bad row rather than something to stringify.
    if missing_field(row, ("sentence1", "sentence2"), number, bad):
        return None
    sentences = sentence_pair(row["sentence1"], row["sentence2"], ("sentence1", "sentence2"), number, bad)
    if sentences is None:
        return None
    label = None
    if labeled:
        if missing_field(row, ("gold_label",), number, bad):
            return None
        raw = text_value(row["gold_label"], "gold_label", number, bad)
        if raw is None:
            return None
        if raw == "-":
            bad.exclude(NO_GOLD)
            return None
        if raw != HIDDEN:  # a test row whose gold label the benchmark holds: kept, unlabeled
            label = map_label(raw, _LABEL_MAP, number, bad)
            if label is None:
                return None
    texts = {name: row[name] for name in (id_field, "pairID", "sentence1_parse", "sentence2_parse", "genre")
             if name in row}
    for name, value in texts.items():
        if not isinstance(value, str):
            texts[name] = text_value(value, name, number, bad, integers=name in (id_field, "pairID"))
            if texts[name] is None:
                return None
    pair_id = texts.get(id_field) or texts.get("pairID") or str(number)
    p1, p2 = texts.get("sentence1_parse"), texts.get("sentence2_parse")
    annotation = {}
    if p1 and p2:
        (pt, ptags), (ht, htags) = parses[p1], parses[p2]
        annotation = dict(premise_tokens=pt, premise_tags=ptags, hypothesis_tokens=ht, hypothesis_tags=htags,
                          premise_tree=parses.tree(p1), hypothesis_tree=parses.tree(p2))
    meta = {"genre": texts["genre"]} if texts.get("genre") else {}
    return Pair(pair_id, *sentences, label, meta=meta, **annotation)


def _jsonl_pairs(numbers: Sequence[int], rows: list[dict], bad: BadRows, parses: _SharedParses) -> list[Pair]:
    """The pairs `_pair_from_row` makes of a block of jsonl rows, in their order.

    The rows `_well_formed_pair` takes that carry both parses (nearly all of a real file) are built
    a column at a time; the others go through `_pair_from_row` one by one, after them: as those
    report nothing, the first bad row is still the first reported.
    """
    columns = _text_columns(rows)
    if columns is None:
        return [pair for number, row in zip(numbers, rows)
                if (pair := _pair_from_row(row, number, bad, "pairID", True, parses)) is not None]
    premises, hypotheses, raw_labels, ids, p1s, p2s, genres = columns
    labels = list(map(_LABEL_MAP.get, raw_labels))  # None: "-" or an unknown label
    kept = list(map(all, zip(labels, p1s, p2s)))  # a label and both parses
    others = list(compress(range(len(rows)), map(not_, kept)))
    if others:
        premises, hypotheses, labels, ids, p1s, p2s, genres = (
            list(compress(column, kept)) for column in (premises, hypotheses, labels, ids, p1s, p2s, genres))
    if "" in ids:
        ids = [pair_id or str(number) for pair_id, number in zip(ids, compress(numbers, kept))]
    new = [p1 for p1 in dict.fromkeys(p1s) if p1 not in parses]
    parses.update(zip(new, zip(*_tokens_and_tags_of_many(new, parses.leaves))))
    parses.trees.update(zip(new, new))
    premise_annotations = list(map(parses.__getitem__, p1s))
    hypothesis_tokens, hypothesis_tags = _tokens_and_tags_of_many(p2s, parses.leaves)
    pairs = pairs_from_columns(ids, premises, hypotheses, labels,
                               premise_tokens=map(itemgetter(0), premise_annotations),
                               premise_tags=map(itemgetter(1), premise_annotations),
                               hypothesis_tokens=hypothesis_tokens, hypothesis_tags=hypothesis_tags,
                               premise_tree=map(parses.trees.__getitem__, p1s), hypothesis_tree=p2s,
                               meta=[{"genre": genre} if genre else {} for genre in genres])
    skipped = 0
    for i in others:  # inserted where the row stands among the rows before it that gave a pair
        pair = _pair_from_row(rows[i], numbers[i], bad, "pairID", True, parses)
        if pair is None:
            skipped += 1
        else:
            pairs.insert(i - skipped, pair)
    return pairs


def _text_columns(rows: list[dict]) -> list[list[str]] | None:
    """The `_JSONL_FIELDS` and the genre ("" where absent) of `rows`, a list each, when every row
    holds them all as strings and no sentence is too long; else None, as for a single row (a block
    read line by line, where a column would cost more than it saves)."""
    if len(rows) < 2:
        return None
    try:
        columns = [list(map(field, rows)) for field in _JSONL_FIELDS]
    except KeyError:
        return None
    columns.append(list(map(dict.get, rows, repeat("genre"), repeat(""))))
    if (set(map(type, chain.from_iterable(columns))) != {str} or max(map(len, columns[0])) > MAX_SENTENCE_CHARS
            or max(map(len, columns[1])) > MAX_SENTENCE_CHARS):
        return None
    return columns


def read_nli(path: Path, dataset: str, split: str, on_bad_row: str = "error") -> SplitData:
    """Read an SNLI/MultiNLI file: `.jsonl`, or the tab-separated `.txt`/GLUE `.tsv` layouts.

    Rows whose gold label is `-` (no annotator majority) are excluded and counted.
    A GLUE MNLI test file has no `gold_label` column and yields unlabeled pairs.
    """
    bad = BadRows(path, on_bad_row)
    pairs: list[Pair] = []
    parses = _SharedParses()
    if path.suffix == ".jsonl":
        for numbers, rows in jsonl_blocks(path, bad):
            pairs.extend(_jsonl_pairs(numbers, rows, bad, parses))
        return bad.split(dataset, split, pairs)
    header = _peek_header(path)
    labeled = "gold_label" in header
    id_field = "index" if "index" in header else "pairID"
    for number, row in iter_tsv(path, bad, ("sentence1", "sentence2")):
        pair = _pair_from_row(row, number, bad, id_field, labeled, parses)
        if pair is not None:
            pairs.append(pair)
    return bad.split(dataset, split, pairs)


def _peek_header(path: Path) -> list[str]:
    with open_input(path) as handle:
        first = handle.readline(LIMITS.line).decode("utf-8", errors="replace").rstrip("\r\n")
    return first.lstrip("\ufeff").split("\t")
