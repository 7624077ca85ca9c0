"""The registry of feature types and named groups; `--features` and `--ablate` take these names."""
from __future__ import annotations

import difflib
import inspect
from typing import Callable

from .base import WordNetFeature
from .custom import FunctionFeature, PairFunction
from .options import feature_params
from .types.agreement import Agreement
from .types.aligned_share import AlignedShare
from .types.alignment import Alignment
from .types.bleu import Bleu
from .types.char_ngrams import CharNgrams
from .types.cross_bigrams import CrossBigrams
from .types.cross_unigrams import CrossUnigrams
from .types.hyp_ngrams import HypNgrams
from .types.idf_overlap import IdfOverlap
from .types.lcs import Lcs
from .types.length_diff import LengthDiff
from .types.mt_metrics import MtMetrics
from .types.negation import Negation
from .types.overlap import Overlap
from .types.prem_ngrams import PremNgrams
from .types.quantifiers import Quantifiers
from .types.syntax import Syntax
from .types.wordnet import WordNet
from .types.wordnet_similarity import WordNetSimilarity

FEATURE_TYPES: dict[str, Callable[..., object]] = {
    "bleu": Bleu,
    "length_diff": LengthDiff,
    "overlap": Overlap,
    "hyp_ngrams": HypNgrams,
    "cross_unigrams": CrossUnigrams,
    "cross_bigrams": CrossBigrams,
    # Beyond the paper (issue 12): WordNet relations on lemmas, and negation on one side only.
    "wordnet": WordNet,
    "negation": Negation,
    # Beyond the paper (issue 14): an alignment of the hypothesis to the premise, the dependency
    # parse's roles and negation scope, quantifiers and numbers.
    "alignment": Alignment,
    "syntax": Syntax,
    "quantifiers": Quantifiers,
    # Beyond the paper (issue 31): the premise alone, for the artifact table's premise-only row.
    "prem_ngrams": PremNgrams,
    # Beyond the paper (issue 47): the measures of the classical similarity systems (SemEval STS).
    "char_ngrams": CharNgrams,
    "idf_overlap": IdfOverlap,
    "mt_metrics": MtMetrics,
    "wordnet_similarity": WordNetSimilarity,
    "aligned_share": AlignedShare,
    "agreement": Agreement,
    "lcs": Lcs,
}
BUILTIN = tuple(FEATURE_TYPES)
# The SNLI paper's six types (section 3.2), frozen: a type registered later never changes what
# the paper's rows (`lexicalized`, `unigrams_only`, `unlexicalized`) mean.
PAPER_TYPES = ("bleu", "length_diff", "overlap", "hyp_ngrams", "cross_unigrams", "cross_bigrams")
GROUPS: dict[str, tuple[str, ...]] = {
    "lexicalized": PAPER_TYPES,
    "unigrams_only": tuple(n for n in PAPER_TYPES if n != "cross_bigrams"),
    "unlexicalized": ("bleu", "length_diff", "overlap"),
    "hypothesis_only": ("hyp_ngrams",),
    "premise_only": ("prem_ngrams",),
    "extended": PAPER_TYPES + ("wordnet", "negation"),
    # The types that together score best by CV on train and on dev (issue 14; docs/models-and-runs.md, "The
    # strongest baseline"): every type but none left out helped.
    "strongest": PAPER_TYPES + ("wordnet", "negation", "alignment", "syntax", "quantifiers"),
    # The measures of the classical similarity systems (issue 47; docs/features.md). Not in `strongest`: beside it
    # they lowered SICK's 3-class dev accuracy; they help the similarity scores (STS-B, SICK relatedness).
    "similarity": ("char_ngrams", "idf_overlap", "mt_metrics", "wordnet_similarity", "aligned_share", "agreement",
                   "lcs"),
}
GROUP_TITLES = {
    "lexicalized": "lexicalized (the paper's six types)",
    "unigrams_only": "unigrams only (no cross-bigrams)",
    "unlexicalized": "unlexicalized (BLEU, length, overlap)",
    "hypothesis_only": "hypothesis only (n-grams)",
    "premise_only": "premise only (n-grams)",
    "extended": "extended (the paper's six + WordNet relations + negation)",
    "strongest": "strongest (extended + alignment, syntax, quantifiers)",
    "similarity": "similarity (character n-grams, IDF overlap, MT metrics, WordNet similarity, aligned shares, "
                  "agreement, longest common subsequences)",
}


def register_feature(name: str, function: PairFunction | None = None):
    """Register `function(pair) -> {key: value}` as feature type `name`; usable as a decorator.

    Registering the same function again (the same module and name: a re-run notebook cell, a
    module imported twice, a worker process receiving it) replaces it; a different function
    under a taken name is an error.
    """
    def add(fn: PairFunction) -> PairFunction:
        if not name.isidentifier():
            raise ValueError(f"feature name {name!r} must be an identifier (letters, digits, _)")
        taken = FEATURE_TYPES.get(name)
        if name in GROUPS or (taken is not None and not _same_function(getattr(taken, "function", None), fn)):
            raise ValueError(f"feature name {name!r} is already taken")

        def factory(**params):
            return FunctionFeature(function=fn, name=name)
        factory.custom = True
        factory.function = fn  # saved models name it by module and qualname
        FEATURE_TYPES[name] = factory
        return fn
    return add(function) if function is not None else add


def _same_function(a, b) -> bool:
    return a is b or (a is not None and (a.__module__, a.__qualname__) == (b.__module__, b.__qualname__))


def custom_functions(names) -> dict:
    """{name: function} of the custom (per-pair function) types among `names`."""
    return {n: FEATURE_TYPES[n].function for n in names if getattr(FEATURE_TYPES.get(n), "custom", False)}


def unregister_feature(name: str) -> None:
    if name in BUILTIN:
        raise ValueError(f"cannot unregister built-in feature type {name!r}")
    FEATURE_TYPES.pop(name, None)


def types_need_lemmas(names) -> bool:
    """Whether any of these feature types reads lemmas (annotate pairs with `lemmas=True`)."""
    return any(getattr(FEATURE_TYPES[name], "needs_lemmas", False) for name in names)


def types_need_parses(names) -> bool:
    """Whether any of these feature types reads dependency parses (`features.text.parsing`)."""
    return any(getattr(FEATURE_TYPES.get(name), "needs_parses", False) for name in names)


def reads_wordnet(name: str) -> bool:
    """Whether feature type `name` reads WordNet (a `WordNetFeature`), which a run checks for before
    it tags anything."""
    kind = FEATURE_TYPES.get(name)
    return isinstance(kind, type) and issubclass(kind, WordNetFeature)


def reads_premise(name: str) -> bool:
    """Whether feature type `name` reads the premise, which a single-sentence task lacks (a type of
    your own is taken to read the pair as it is: its function gets an empty premise)."""
    return bool(getattr(FEATURE_TYPES[name], "reads_premise", False))


def pairwise_types(names) -> list[str]:
    """The types among `names` that cross every premise token with every hypothesis token."""
    return [name for name in names if getattr(FEATURE_TYPES.get(name), "pairwise", False)]


def valid_names() -> list[str]:
    return sorted(GROUPS) + sorted(FEATURE_TYPES)


def resolve(spec: str | list[str] | tuple[str, ...], ablate: list[str] | tuple[str, ...] = ()) -> list[str]:
    """Feature type names for a group name or comma list of groups/types, minus `ablate`, in registry order.

    Unknown names raise ValueError listing the valid ones.
    """
    items = [s.strip() for s in (spec.split(",") if isinstance(spec, str) else spec) if s.strip()]
    chosen: set[str] = set()
    for item in items:
        chosen.update(_expand(item))
    for item in ablate:
        chosen.difference_update(_expand(item))
    names = [n for n in FEATURE_TYPES if n in chosen]
    if not names:
        raise ValueError(f"no feature types left after ablating {', '.join(ablate)} from {spec}")
    return names


def _expand(item: str) -> tuple[str, ...]:
    if item in GROUPS:
        return GROUPS[item]
    if item in FEATURE_TYPES:
        return (item,)
    near = difflib.get_close_matches(item, valid_names(), n=3, cutoff=0.6)
    hint = (f" Did you mean {' or '.join(near)}?" if near else
            " A type of your own? Register it with register_feature in a module and pass --import MODULE.")
    raise ValueError(f"unknown feature type or group {item!r}; valid names: {', '.join(valid_names())}.{hint}")


def describe(types) -> str:
    """A group's title when `types` is exactly a group, else the types joined by '+'."""
    types = tuple(types)
    for group, members in GROUPS.items():
        if set(members) == set(types):
            return GROUP_TITLES.get(group, group)
    return "+".join(types)


def build(name: str, options: dict):
    """An unfitted feature type, given the featurizer's options (`features.options`) it accepts."""
    factory = FEATURE_TYPES[name]
    if getattr(factory, "custom", False):
        return factory()
    params = feature_params(options)
    accepted = inspect.signature(factory).parameters
    return factory(**{k: v for k, v in params.items() if k in accepted})
