"""Feature types of the SNLI paper's lexicalized classifier, fast and with readable column names.

    from features import PairFeaturizer, register_feature
    X = PairFeaturizer(features="lexicalized", ablate=["cross_bigrams"]).fit_transform(pairs)

Names are imported on first use (the command lines' `--help` needs none of the numeric code).
"""
from .lazy import lazy_exports

_WHERE = {
    "Annotator": "annotation", "annotate": "annotation", "PairFeaturizer": "combine", "OPTIONS": "options",
    "Pair": "pair", "pairs_from": "pair", "BUILTIN": "registry", "FEATURE_TYPES": "registry", "GROUPS": "registry",
    "PAPER_TYPES": "registry", "register_feature": "registry", "resolve": "registry",
    "types_need_lemmas": "registry", "unregister_feature": "registry",
}

__getattr__, __dir__ = lazy_exports(__name__, _WHERE)

__all__ = sorted(_WHERE)
