"""Classical, feature-based baselines for natural language inference and other sentence-pair tasks.

    import nli_baselines as nb
    result = nb.run(dataset="sick", ablate=["cross_bigrams"])        # a RunResult
    print(result.table())                                            # what run.py --quiet prints
    curve = nb.learning_curve(dataset="sick", sizes="10,100,all")    # a CurveResult
    model = nb.load_model("sick.model")                              # a Predictor
    print(nb.compare(result_a, result_b))                            # McNemar + paired bootstrap
    print(nb.hans(model, "hans-mini"))                               # HANS's breakdown

The pieces live in four subpackages, the repository's folders of the same names: `features`
(annotation and the feature types), `models` (the estimators), `experiments` (corpora, the
engine, reports and outputs) and `learning_curves`. Names are imported on first use, so the
command lines start fast.
"""
from __future__ import annotations

import importlib

from ._version import __version__

_WHERE = {
    # runs, curves, comparisons and saved models
    "run": "experiments.api", "learning_curve": "experiments.api", "load_model": "experiments.api",
    "compare": "experiments.api", "hans": "experiments.api", "RunResult": "experiments.api",
    "CurveResult": "experiments.api", "Comparison": "experiments.api", "HansResult": "experiments.api",
    "RunConfig": "experiments.configuration.config", "Predictor": "experiments.outputs.model_files",
    # pairs, annotation and features
    "Pair": "features.pair", "pairs_from": "features.pair", "annotate": "features.text.annotation",
    "Annotator": "features.text.annotation", "PairFeaturizer": "features.featurizer",
    "FEATURE_TYPES": "features.registry", "GROUPS": "features.registry", "register_feature": "features.registry",
    "unregister_feature": "features.registry",
    # models
    "MODELS": "models", "ModelSpec": "models", "Tuning": "models", "register_model": "models",
    "unregister_model": "models", "get_model": "models",
    # corpora
    "CORPORA": "experiments.corpora", "Corpus": "experiments.corpora", "register_corpus": "experiments.corpora",
    "get_corpus": "experiments.corpora", "load_pairs": "experiments.corpora",
}
_ALIASES = {"register_corpus": "register"}  # the registry's own name is `register`, too bare at the top
_SUBPACKAGES = ("features", "models", "experiments", "learning_curves")


def __getattr__(name: str):
    if name in _SUBPACKAGES:
        return importlib.import_module(f".{name}", __name__)
    if name in _WHERE:
        value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), _ALIASES.get(name, name))
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted([*globals(), *_WHERE, *_SUBPACKAGES])


__all__ = ["__version__", *_WHERE]
