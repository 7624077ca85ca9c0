"""The declared state of a fitted `PairFeaturizer`, for model files (`features.storage.schema`).

What a featurizer keeps: its feature types by name (each resolved in this process's registry;
a custom type must already be registered here, by the module a user imports, never by a file),
its options (checked as `features.options` declares them), the shared vocabulary (words, tags,
bigram keys) and, per type, its fitted values: a dense type's centres, scales and bin edges, an
indicator type's column keys, whose every word and bigram id must lie inside the vocabulary, a
custom type's column names. Everything else (types, WordNet relations, worker counts) is built
by this process's code from those values.
"""
from __future__ import annotations

from .base import DenseFeature, FeatureType, SparseIndicatorFeature
from .columns.encoding import WORD_BITS, Encoder
from .columns.keymap import KeyIndex
from .custom import FunctionFeature
from .featurizer import PairFeaturizer
from .options import OPTIONS, Option
from .registry import BUILTIN, FEATURE_TYPES, build, resolve
from .storage.schema import (MAX_WORD, VALUE_BOUND, Array, Field, Many, NotRegisteredError, Schema, Sizes,
                             StateError, Text, Texts, require)


class OptionValue(Field):
    """A featurizer option, checked as `features.options` declares it (a bool is not an int)."""

    def __init__(self, option: Option):
        self.option = option

    def dump(self, value, writer, path):
        return value

    def load(self, raw, reader, path, sizes):
        if type(raw) is not self.option.kind:
            raise StateError(f"{path}: {raw!r:.60} is not a {self.option.kind.__name__}")
        try:
            self.option.check(raw)
        except ValueError as exc:
            raise StateError(f"{path}: {exc}") from None
        return raw


# Each schema's `get` reads its fields off the fitted object (a declared name -> an attribute).
ENCODER = Schema("vocabulary", {
    "words": Texts(size="n_words", unique=True, max_len=MAX_WORD),
    "tags": Texts(unique=True),
    # Each bigram packs two word ids (left << 31 | right); sorted, as KeyIndex's lookup expects.
    "bigrams": Array("int64", ("n_bigrams",), lo=0, increasing=True),
}, get=lambda encoder, name: encoder.bigrams_ if name == "bigrams" else list(getattr(encoder, f"{name}_")))
# Centres, scales and edges within VALUE_BOUND (scales above 0, checked below); the values they
# make are clipped to INPUT_BOUND when a pair is featurized, whatever the scale (`features.base`).
DENSE = Schema("dense feature type", {
    "center": Array("float64", ("n_values",), lo=-VALUE_BOUND, hi=VALUE_BOUND),
    "scale": Array("float64", ("n_values",), lo=0, hi=VALUE_BOUND),
    "bin_edges": Many(Array("float64", ("*",), increasing=True, lo=-VALUE_BOUND, hi=VALUE_BOUND), size="n_values"),
}, get=lambda feature, name: getattr(feature, f"{name}_"))
INDICATOR = Schema("indicator feature type", {"keys": Array("int64", ("n_keys",), lo=0, increasing=True)},
                   get=lambda feature, name: feature.keys_.keys)
CUSTOM = Schema("custom feature type", {
    "columns": Texts(unique=True),
    # Where the function was defined, so that a missing registration can say what to import.
    "module": Text(max_len=200), "qualname": Text(max_len=200),
}, get=lambda feature, name: feature.columns_ if name == "columns" else getattr(feature.function, f"__{name}__"))


def _type_schema(feature: FeatureType) -> Schema:
    if isinstance(feature, FunctionFeature):
        return CUSTOM
    if isinstance(feature, DenseFeature):
        extra = getattr(feature, "state_fields", None)
        if extra:  # a real-valued type with fitted values of its own beside its scaling (idf_overlap's IDF)
            return Schema(DENSE.name, {**DENSE.fields, **extra}, get=lambda feature, name: getattr(feature, f"{name}_"))
        return DENSE
    if isinstance(feature, SparseIndicatorFeature):
        return INDICATOR
    raise ValueError(f"the feature type {feature.name!r} ({type(feature).__name__}) declares no saved state")


def dump_featurizer(featurizer: PairFeaturizer, writer, path: str) -> dict:
    """The fitted featurizer as plain values (arrays to `writer`)."""
    encoder = featurizer.encoder_
    state = {
        "types": list(featurizer.types_),
        "options": featurizer.options(),
        "vocabulary": ENCODER.dump(encoder, writer, f"{path}.vocabulary"),
        "fitted": {},
    }
    for name, feature in featurizer.types_.items():
        schema = _type_schema(feature)
        state["fitted"][name] = schema.dump(feature, writer, f"{path}.fitted.{name}")
    return state


def load_featurizer(raw, reader, path: str) -> PairFeaturizer:
    """A fitted featurizer from checked values; types resolved in this process's registry."""
    if not isinstance(raw, dict) or set(raw) != {"types", "options", "vocabulary", "fitted"}:
        raise StateError(f"{path}: not the state of a featurizer (types, options, vocabulary, fitted)")
    sizes = Sizes()
    types = Texts(unique=True, max_len=100).load(raw["types"], reader, f"{path}.types", sizes)
    require(types, f"{path}.types: no feature types")
    options_raw = raw["options"]
    if not isinstance(options_raw, dict) or set(options_raw) != set(OPTIONS):
        raise StateError(f"{path}.options: the options must be exactly {', '.join(OPTIONS)}")
    options = {name: OptionValue(OPTIONS[name]).load(options_raw[name], reader, f"{path}.options.{name}", sizes)
               for name in OPTIONS}
    fitted_raw = raw["fitted"]
    if not isinstance(fitted_raw, dict) or list(fitted_raw) != types:
        raise StateError(f"{path}.fitted: not one entry per feature type, in their order")
    for name in types:
        _check_registered(name, fitted_raw[name], path)
    try:
        ordered = resolve(types)
    except ValueError as exc:
        raise StateError(f"{path}.types: {exc}") from None
    require(ordered == types, f"{path}.types: not in the registry's order ({', '.join(ordered)})")

    vocabulary = ENCODER.values(raw["vocabulary"], reader, f"{path}.vocabulary", sizes)
    n_words = len(vocabulary["words"])
    bigrams = vocabulary["bigrams"]
    require(not len(bigrams) or ((bigrams >> WORD_BITS) < n_words).all() and ((bigrams & ((1 << WORD_BITS) - 1))
                                                                           < n_words).all(),
            f"{path}.vocabulary.bigrams: a bigram names a word beyond the {n_words:,} words")
    encoder = Encoder(lowercase=options["lowercase"])
    encoder.words_ = vocabulary["words"]
    encoder.forms_ = {word: i for i, word in enumerate(encoder.words_)}
    encoder.tags_ = {tag: i for i, tag in enumerate(vocabulary["tags"])}
    encoder.bigram_index_ = KeyIndex(bigrams)

    featurizer = PairFeaturizer(features=list(types), **options)
    featurizer.encoder_ = encoder
    featurizer.types_, featurizer.slices_, start = {}, {}, 0
    for name in types:
        feature = build(name, options)
        feature.encoder_ = encoder
        where = f"{path}.fitted.{name}"
        # A type's fitted values per word (idf_overlap's IDF) are as many as the vocabulary's words.
        values = _type_schema(feature).values(fitted_raw[name], reader, where, Sizes({"n_words": n_words}))
        _restore_type(feature, values, where, options)
        featurizer.types_[name] = feature
        featurizer.slices_[name] = slice(start, start + feature.n_features_out_)
        start += feature.n_features_out_
    featurizer.n_features_out_ = start
    featurizer.timings_ = {}
    return featurizer


def _check_registered(name: str, fitted, path: str) -> None:
    """A type the file names must be registered in this process; a custom one must be the very
    function the model was trained with (same module and name). The file's names are only shown."""
    module, qualname = (fitted.get("module"), fitted.get("qualname")) if isinstance(fitted, dict) else (None, None)
    factory = FEATURE_TYPES.get(name)
    custom = isinstance(module, str) and isinstance(qualname, str)
    if custom and name in BUILTIN:
        raise StateError(f"{path}: {name!r} is a built-in feature type, not a custom one")
    if not custom:
        if factory is None or name not in BUILTIN:
            raise StateError(f"{path}.types: {name!r:.100} is not a feature type of this suite")
        return
    function = getattr(factory, "function", None)
    if function is None or (function.__module__, function.__qualname__) != (module, qualname):
        found = "" if function is None else (f" (this process has {function.__module__}.{function.__qualname__} "
                                             "under that name)")
        raise NotRegisteredError(f"this model uses the custom feature type {name!r:.100}, defined as {qualname!r:.200} in "
                         f"module {module!r:.200}, which is not registered here{found}. Pass --import {module:.200} "
                         "(with the module on your PYTHONPATH) so that it registers the feature before the model "
                         "is loaded.")


def _restore_type(feature: FeatureType, values: dict, where: str, options: dict) -> None:
    if isinstance(feature, FunctionFeature):
        columns = values["columns"]
        require(columns == sorted(columns), f"{where}.columns: not in sorted order")
        feature.columns_ = columns
        feature.index_ = {key: i for i, key in enumerate(columns)}
    elif isinstance(feature, DenseFeature):
        n = len(feature.columns)
        require(len(values["center"]) == n, f"{where}: {len(values['center'])} values where the type has {n}")
        require((values["scale"] > 0).all(), f"{where}.scale: a scale that is not positive")
        most = max(feature.bins - 1, 0)
        require(all(len(edges) <= most for edges in values["bin_edges"]),
                f"{where}.bin_edges: more edges than bins={feature.bins} allows")
        feature.center_, feature.scale_, feature.bin_edges_ = values["center"], values["scale"], values["bin_edges"]
        for name in getattr(feature, "state_fields", None) or ():
            setattr(feature, f"{name}_", values[name])
        if hasattr(feature, "_new_relations"):
            feature.relations_ = feature._new_relations()
    else:
        keys = values["keys"]
        require(feature._keys_valid(keys), f"{where}.keys: a key names a word or bigram beyond the vocabulary")
        feature.keys_ = KeyIndex(keys)
