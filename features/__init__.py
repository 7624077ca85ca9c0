"""Feature types of the SNLI paper's lexicalized classifier, fast and with readable column names.

    from features import PairFeaturizer, register_feature
    X = PairFeaturizer(features="lexicalized", ablate=["cross_bigrams"]).fit_transform(pairs)
"""
from .annotation import Annotator, annotate
from .combine import PairFeaturizer
from .options import OPTIONS
from .pair import Pair, pairs_from
from .registry import (
    BUILTIN,
    FEATURE_TYPES,
    GROUPS,
    PAPER_TYPES,
    register_feature,
    resolve,
    types_need_lemmas,
    unregister_feature,
)

__all__ = ["Annotator", "BUILTIN", "FEATURE_TYPES", "GROUPS", "OPTIONS", "PAPER_TYPES", "Pair", "PairFeaturizer", "annotate",
           "pairs_from", "register_feature", "resolve", "types_need_lemmas", "unregister_feature"]
