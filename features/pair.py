"""The one record every reader produces and every feature type consumes."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping


@dataclass(frozen=True, slots=True)
class Pair:
    """A premise/hypothesis pair with an optional gold label.

    Tokens and Penn Treebank tags are filled from the corpus' own parses when it
    ships them, else by `features.annotation.annotate`. `label` is None for
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
    meta: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @property
    def is_annotated(self) -> bool:
        return self.premise_tags is not None and self.hypothesis_tags is not None

    def with_annotation(self, premise: tuple[tuple[str, ...], tuple[str, ...]],
                        hypothesis: tuple[tuple[str, ...], tuple[str, ...]]) -> "Pair":
        """Return a copy carrying (tokens, tags) for both sentences."""
        return replace(self, premise_tokens=premise[0], premise_tags=premise[1],
                       hypothesis_tokens=hypothesis[0], hypothesis_tags=hypothesis[1])

    def with_label(self, label: str | None) -> "Pair":
        return replace(self, label=label)
