"""The one record every reader produces and every feature type consumes."""
from __future__ import annotations

from collections import deque
from dataclasses import MISSING, dataclass, field, fields, replace
from itertools import repeat
from typing import Any, Mapping, Sequence

# The pairwise feature types (cross_unigrams, cross_bigrams, wordnet) visit every premise token
# against every hypothesis token: one legal row of 20,000 tokens took ~3 GiB. Real sentences are
# far shorter (RTE's longest premises have a few hundred tokens).
MAX_PAIRWISE_TOKENS = 1000


class PairTooLongError(ValueError):
    """A sentence longer than the pairwise feature types take; says which pair and what to do."""


@dataclass(frozen=True, slots=True)
class Pair:
    """A premise/hypothesis pair with an optional gold label.

    Tokens and Penn Treebank tags are filled from the corpus' own parses when it
    ships them (which it then keeps as `premise_tree`, `hypothesis_tree`), else by `features.text.annotation.annotate`, which also fills lemmas
    (aligned with the tokens) when a tagger gives them or when asked to
    (`annotate(..., lemmas=True)`). `label` is None for
    unlabeled (test) rows. `meta` carries corpus-specific extras (e.g. the GLUE
    diagnostic categories) and is never used as a feature.
    """

    id: str
    premise: str
    hypothesis: str
    label: str | None = None
    premise_tokens: tuple[str, ...] | None = None
    premise_tags: tuple[str, ...] | None = None
    hypothesis_tokens: tuple[str, ...] | None = None
    hypothesis_tags: tuple[str, ...] | None = None
    premise_lemmas: tuple[str, ...] | None = None
    hypothesis_lemmas: tuple[str, ...] | None = None
    # The corpus' own constituency trees (SNLI, MultiNLI), whose leaves are the tokens: dependency
    # parses are read off them (`features.text.tree_dependencies`) instead of running a parser.
    premise_tree: str | None = field(default=None, compare=False)
    hypothesis_tree: str | None = field(default=None, compare=False)
    meta: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @property
    def is_annotated(self) -> bool:
        return self.premise_tags is not None and self.hypothesis_tags is not None

    @property
    def has_lemmas(self) -> bool:
        return self.premise_lemmas is not None and self.hypothesis_lemmas is not None

    def with_annotation(self, premise: tuple[tuple[str, ...], ...], hypothesis: tuple[tuple[str, ...], ...]) -> Pair:
        """Return a copy carrying (tokens, tags) or (tokens, tags, lemmas) for both sentences.

        Lemmas not given (a 2-tuple, or None in the third place) become None: lemmas of other
        tokens would be wrong. Lemmas must align with the tokens (ValueError otherwise).
        """
        (pt, ptags, pl), (ht, htags, hl) = _unpack(premise, "premise"), _unpack(hypothesis, "hypothesis")
        return replace(self, premise_tokens=pt, premise_tags=ptags, premise_lemmas=pl,
                       hypothesis_tokens=ht, hypothesis_tags=htags, hypothesis_lemmas=hl)

    def with_label(self, label: str | None) -> "Pair":
        return replace(self, label=label)


def _unpack(annotation: tuple[tuple[str, ...], ...], side: str):
    if len(annotation) not in (2, 3):
        raise ValueError(f"{side}: expected (tokens, tags) or (tokens, tags, lemmas), got {len(annotation)} items")
    tokens, tags = annotation[0], annotation[1]
    lemmas = annotation[2] if len(annotation) == 3 else None
    if lemmas is not None:
        lemmas = tuple(lemmas)
        if len(lemmas) != len(tokens):
            raise ValueError(f"{side}: {len(lemmas)} lemmas for {len(tokens)} tokens")
    return tokens, tags, lemmas


def pairs_from(data, *, premise: str = "premise", hypothesis: str = "hypothesis", label: str | None = None,
               id: str | None = None) -> list[Pair]:
    """Pairs from what a user has at hand: a pandas DataFrame with premise and hypothesis columns
    (names settable; `label` and `id` name optional columns), a sequence of (premise, hypothesis)
    or (premise, hypothesis, label) tuples, or Pairs (returned as they are).

    A bare string, or a row whose premise or hypothesis is not a string, is a ValueError.
    """
    if isinstance(data, (str, bytes, Pair)):
        raise ValueError(f"expected a table or a sequence of pairs, got a single {type(data).__name__}")
    if hasattr(data, "columns") and hasattr(data, "itertuples"):  # a DataFrame, without importing pandas
        missing = [c for c in (premise, hypothesis, label, id) if c is not None and c not in data.columns]
        if missing:
            raise ValueError(f"the table has no column(s) {', '.join(map(repr, missing))}; its columns: "
                             f"{', '.join(map(str, data.columns))}")
        ids = data[id] if id is not None else data.index
        labels = data[label] if label is not None else [None] * len(data)
        rows = zip(ids, data[premise], data[hypothesis], labels)
    else:
        rows = []
        for n, item in enumerate(data):
            if isinstance(item, Pair):
                rows.append(item)
                continue
            if isinstance(item, (str, bytes)) or len(item) not in (2, 3):
                raise ValueError(f"item {n}: expected (premise, hypothesis) or (premise, hypothesis, label), "
                                 f"got {item!r}")
            rows.append((n, item[0], item[1], item[2] if len(item) == 3 else None))
    pairs = []
    for row in rows:
        if isinstance(row, Pair):
            pairs.append(row)
            continue
        pair_id, p, h, gold = row
        if not isinstance(p, str) or not isinstance(h, str):
            raise ValueError(f"row {pair_id!r}: premise and hypothesis must be strings, got "
                             f"{type(p).__name__} and {type(h).__name__}")
        pairs.append(Pair(str(pair_id), p, h, None if gold is None else str(gold)))
    return pairs


def pairs_from_columns(ids: Sequence[str], premises: Sequence[str], hypotheses: Sequence[str],
                       labels: Sequence[str | None], **more) -> list[Pair]:
    """`[Pair(i, p, h, label, **row) for ...]` over equally long columns, built a field at a time.

    Each field is written by one pass in C (`map` over the slot's setter, as the generated
    `__init__` writes it) instead of one Python `__init__` call per pair: about twice as fast for
    SNLI's 550,152 pairs, which is most of the time a parquet file takes to read
    (`experiments.corpora.readers.arrow`). more: other fields of Pair, as columns (any iterable
    of n values: they are not checked, as `__init__` does not check them). Fields not given get
    their defaults, `meta` a dict of its own per pair; the pairs are equal to those `Pair(...)` builds.
    """
    n = len(ids)
    if not len(premises) == len(hypotheses) == len(labels) == n:
        raise ValueError(f"columns of different lengths: {n} ids, {len(premises)} premises, {len(hypotheses)} "
                         f"hypotheses, {len(labels)} labels")
    unknown = set(more) - {spec.name for spec in fields(Pair)}
    if unknown:
        raise TypeError(f"Pair has no field {min(unknown)!r}")
    pairs = list(map(object.__new__, repeat(Pair, n)))
    given = {"id": ids, "premise": premises, "hypothesis": hypotheses, "label": labels, **more}
    for spec in fields(Pair):
        if spec.name in given:
            values = given[spec.name]
        elif spec.default_factory is not MISSING:
            values = [spec.default_factory() for _ in range(n)]
        else:
            values = repeat(spec.default, n)
        deque(map(getattr(Pair, spec.name).__set__, pairs, values), maxlen=0)
    return pairs


def too_long(pairs: Sequence[Pair], limit: int = MAX_PAIRWISE_TOKENS) -> list[int]:
    """Indices of the annotated pairs with a sentence of more than `limit` tokens."""
    return [i for i, p in enumerate(pairs)
            if len(p.premise_tokens or ()) > limit or len(p.hypothesis_tokens or ()) > limit]


def describe_too_long(pair: Pair, types: Sequence[str], limit: int = MAX_PAIRWISE_TOKENS) -> str:
    side, n = max((("premise", len(pair.premise_tokens or ())), ("hypothesis", len(pair.hypothesis_tokens or ()))),
                  key=lambda item: item[1])
    return (f"pair {pair.id!r}: its {side} has {n:,} tokens; the pairwise feature types ({', '.join(types)}) take "
            f"at most {limit:,} per sentence: shorten it, skip such pairs (--on-bad-row skip), or leave those types "
            f"out (--ablate {','.join(types)})")
