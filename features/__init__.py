"""Feature types of the SNLI paper's lexicalized classifier, fast and with readable column names.

Where things are: the feature types, one module each, in `types/`; what a type is (`base`), which
exist (`registry`), their options (`options`) and the featurizer that stacks them (`featurizer`)
here; tokens, tags, parses and WordNet in `text/`; integer encoding and columns in `columns/`;
files and caches in `storage/`; process plumbing in `runtime/`.

    from nli_baselines.features import PairFeaturizer, register_feature
    X = PairFeaturizer(features="lexicalized", ablate=["cross_bigrams"]).fit_transform(pairs)

Names are imported on first use (the command lines' `--help` needs none of the numeric code).
"""

if __name__ != "nli_baselines.features":  # the folder is a subpackage of nli_baselines, never a top-level name
    raise ImportError(f"{__name__} is the folder of nli_baselines.features: import nli_baselines.features "
                      "(pip install the suite; a checkout's root on sys.path does not make it a package of its own)")

from .runtime.lazy import lazy_exports

_WHERE = {
    "Annotator": "text.annotation", "annotate": "text.annotation", "PairFeaturizer": "featurizer", "OPTIONS": "options",
    "Pair": "pair", "pairs_from": "pair", "BUILTIN": "registry", "FEATURE_TYPES": "registry", "GROUPS": "registry",
    "PAPER_TYPES": "registry", "register_feature": "registry", "resolve": "registry",
    "types_need_lemmas": "registry", "unregister_feature": "registry",
}

__getattr__, __dir__ = lazy_exports(__name__, _WHERE)

__all__ = sorted(_WHERE)
