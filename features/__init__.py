"""Feature types of the SNLI paper's lexicalized classifier, fast and with readable column names.

    from features import PairFeaturizer, register_feature
    X = PairFeaturizer(features="lexicalized", ablate=["cross_bigrams"]).fit_transform(pairs)

Names are imported on first use (the command lines' `--help` needs none of the numeric code).
"""
import importlib

_WHERE = {
    "Annotator": "annotation", "annotate": "annotation", "PairFeaturizer": "combine", "OPTIONS": "options",
    "Pair": "pair", "pairs_from": "pair", "BUILTIN": "registry", "FEATURE_TYPES": "registry", "GROUPS": "registry",
    "PAPER_TYPES": "registry", "register_feature": "registry", "resolve": "registry",
    "types_need_lemmas": "registry", "unregister_feature": "registry",
}


def __getattr__(name: str):
    if name in _WHERE:
        value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'features' has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *_WHERE])


__all__ = sorted(_WHERE)
