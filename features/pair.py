"""The one record every reader produces and every feature type consumes."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping


@dataclass(frozen=True, slots=True)
class Pair:
    """A premise/hypothesis pair with an optional gold label.

    Tokens and Penn Treebank tags are filled from the corpus' own parses when it
    ships them, else by `features.annotation.annotate`, which also fills lemmas
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
