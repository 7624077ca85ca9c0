"""A fitted model ready to label new pairs, and its one-file saved form, which holds only data.

A model file is a zip archive: `model.json` (format, versions, a readable summary, and the fitted
objects as a tree of plain values) and `arrays/N.npy` (numeric arrays, read with
`allow_pickle=False`). Loading never unpickles anything and never imports a module: objects are
rebuilt only as instances of classes the suite knows (its feature types, models and their parts,
scikit-learn's LogisticRegression), and of models and feature functions the user has registered
in this process (e.g. with `--import MODULE`). So a crafted file cannot run code; a damaged one
is a clear error.
"""
from __future__ import annotations

import io
import json
import types
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from features.atomic import atomic_path
from features.combine import PairFeaturizer

from .. import __version__
from .records import versions

MODEL_FORMAT = "nli-baselines-model"
MODEL_FORMAT_VERSION = 2  # 1 was a pickle (suite 0.1): refused, since loading a pickle can run code
MAX_MEMBER_BYTES = 4 << 30  # an uncompressed member above this is not a model of ours (a zip bomb)


class ModelFileError(ValueError):
    """A file that is not a saved model, or one this version of the suite cannot use."""


@dataclass
class Predictor:
    """Featurizer (vocabulary and all) + classifier + the label set, as fitted by a run."""

    model_name: str
    model: object
    featurizer: PairFeaturizer | None  # None for models that read pairs
    columns: np.ndarray | None  # the featurizer columns the model reads; None = all
    labels: list[str]
    two_class: bool
    info: dict = field(default_factory=dict)  # dataset, chosen settings, features: recorded for the reader

    @property
    def needs_lemmas(self) -> bool:
        """Whether pairs to label must carry lemmas (annotate them with `lemmas=True`)."""
        return any(getattr(part, "needs_lemmas", False) for part in (self.model, self.featurizer))

    def annotated(self, pairs) -> list:
        """`pairs` ready for this model: Pairs, (premise, hypothesis) tuples or a DataFrame
        (`features.pairs_from`), tagged (and lemmatized, if the model reads lemmas) where they are not."""
        from features.annotation import annotate
        from features.pair import pairs_from
        pairs = pairs_from(pairs)
        if all(p.is_annotated and (p.has_lemmas or not self.needs_lemmas) for p in pairs):
            return pairs
        return annotate(pairs, lemmas=self.needs_lemmas)

    def _inputs(self, pairs):
        if self.featurizer is None:
            return list(pairs)
        X = self.featurizer.transform(pairs)
        return X if self.columns is None else X[:, self.columns]

    def predict(self, pairs) -> np.ndarray:
        """Labels of `pairs` (anything `annotated` takes)."""
        pairs = self.annotated(pairs)
        if not pairs:
            return np.array([], dtype=object)
        return np.asarray(self.model.predict(self._inputs(pairs)), dtype=object)

    def predict_proba(self, pairs) -> tuple[list[str], np.ndarray] | None:
        """(class order, probabilities), or None for models without probabilities (edit distance)."""
        if not hasattr(self.model, "predict_proba"):
            return None
        return [str(c) for c in self.model.classes_], self.model.predict_proba(self._inputs(self.annotated(pairs)))

    def save(self, path: Path | str) -> None:
        """Write the model file (atomically): `model.json` plus `.npy` arrays in one zip."""
        save_predictor(self, path)


# ------------------------------------------------------------------ which classes a file may hold


def known_classes() -> dict[str, type]:
    """The classes a model file may instantiate, by `module.qualname`: the suite's own, and the
    factories of models registered in this process."""
    from sklearn.linear_model import LogisticRegression

    from features.custom import FunctionFeature
    from features.encoding import Encoder
    from features.keymap import KeyIndex
    from features.registry import FEATURE_TYPES
    from models import MODELS
    classes = [Predictor, PairFeaturizer, Encoder, KeyIndex, FunctionFeature, LogisticRegression]
    classes += [f for f in FEATURE_TYPES.values() if isinstance(f, type)]
    classes += [spec.factory for spec in MODELS.values() if isinstance(spec.factory, type)]
    classes += [part for cls in list(classes) for part in getattr(cls, "_saved_parts", ())]
    return {_qualified(cls): cls for cls in classes}


def _qualified(obj) -> str:
    return f"{obj.__module__}.{obj.__qualname__}"


def _feature_function(name: str, module: str, qualname: str):
    """The function registered as custom feature `name`, if it is the one the file names."""
    from features.registry import FEATURE_TYPES
    factory = FEATURE_TYPES.get(name)
    function = getattr(factory, "function", None)
    if function is None or (function.__module__, function.__qualname__) != (module, qualname):
        found = "" if function is None else f" (this process has {_qualified(function)} under that name)"
        raise ModelFileError(f"this model uses the custom feature type {name!r}, defined as {qualname} in module "
                             f"{module!r}, which is not registered here{found}. Pass --import {module} "
                             "(with the module on your PYTHONPATH) so that it registers the feature before the "
                             "model is loaded.")
    return function


# ------------------------------------------------------------------ the tree of plain values


class _Encoder:
    """Objects -> JSON tree + numeric arrays; shared objects (the one Encoder all feature types
    use) are written once and referred to."""

    def __init__(self, classes: dict[str, type]):
        self.classes = classes
        self.arrays: list[np.ndarray] = []
        self.memo: dict[int, int] = {}
        self.objects = 0

    def encode(self, value):
        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, (int, np.integer)):
            return int(value)
        if isinstance(value, (float, np.floating)):
            return _float(float(value))
        if isinstance(value, np.ndarray):
            if value.dtype == object:
                if not all(isinstance(x, str) for x in value.ravel()):
                    raise TypeError("an object array holding non-strings cannot be saved as data")
                return {"__strings__": value.tolist()}
            self.arrays.append(np.ascontiguousarray(value))
            return {"__array__": len(self.arrays) - 1}
        if isinstance(value, list):
            return [self.encode(v) for v in value]
        if isinstance(value, tuple):
            return {"__tuple__": [self.encode(v) for v in value]}
        if isinstance(value, (set, frozenset)):
            return {"__frozenset__": sorted((self.encode(v) for v in value), key=repr)}
        if isinstance(value, slice):
            return {"__slice__": [value.start, value.stop, value.step]}
        if isinstance(value, dict):
            if all(isinstance(k, str) for k in value):
                return {"__dict__": {k: self.encode(v) for k, v in value.items()}}
            return {"__items__": [[self.encode(k), self.encode(v)] for k, v in value.items()]}
        if isinstance(value, types.FunctionType):
            return {"__feature_function__": [_feature_name(value), value.__module__, value.__qualname__]}
        name = _qualified(type(value))
        if self.classes.get(name) is not type(value):
            raise TypeError(f"cannot save a {name} as data: not a class the suite can rebuild (register the model "
                            "or feature it belongs to)")
        if id(value) in self.memo:
            return {"__ref__": self.memo[id(value)]}
        self.memo[id(value)] = self.objects
        self.objects += 1
        state = value.__getstate__() if hasattr(value, "__getstate__") else value.__dict__
        return {"__object__": name, "id": self.memo[id(value)], "state": self.encode(dict(state))}


def _feature_name(function) -> str:
    """The name `function` is registered under as a custom feature type (only those can be saved)."""
    from features.registry import FEATURE_TYPES
    for name, factory in FEATURE_TYPES.items():
        if getattr(factory, "function", None) is function:
            return name
    raise TypeError(f"cannot save the function {_qualified(function)}: only feature functions registered with "
                    "register_feature can be saved (by module and name)")


def _float(x: float):
    if np.isfinite(x):
        return x
    return {"__float__": repr(x)}  # inf and nan are not JSON


class _Decoder:
    def __init__(self, classes: dict[str, type], arrays: dict[int, np.ndarray]):
        self.classes, self.arrays, self.objects = classes, arrays, {}

    def decode(self, node):
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if isinstance(node, list):
            return [self.decode(v) for v in node]
        if not isinstance(node, dict) or len(node) not in (1, 3):
            raise ValueError(f"unexpected node {str(node)[:80]}")
        if "__object__" in node:
            name = node["__object__"]
            cls = self.classes.get(name)
            if cls is None:
                module = name.rsplit(".", 1)[0]
                raise ModelFileError(f"this model file holds a {name}, which is not a class registered in this "
                                     f"process; if it is your model, pass --import {module} so it is registered")
            obj = cls.__new__(cls)
            self.objects[node["id"]] = obj
            state = self.decode(node["state"])
            if hasattr(obj, "__setstate__"):
                obj.__setstate__(state)
            else:
                obj.__dict__.update(state)
            return obj
        (kind, value), = node.items()
        if kind == "__array__":
            return self.arrays[value]
        if kind == "__strings__":
            return np.array(value, dtype=object)
        if kind == "__tuple__":
            return tuple(self.decode(v) for v in value)
        if kind == "__frozenset__":
            return frozenset(self.decode(v) for v in value)
        if kind == "__slice__":
            return slice(*value)
        if kind == "__dict__":
            return {k: self.decode(v) for k, v in value.items()}
        if kind == "__items__":
            return {_hashable(self.decode(k)): self.decode(v) for k, v in value}
        if kind == "__float__":
            return float(value)
        if kind == "__ref__":
            return self.objects[value]
        if kind == "__feature_function__":
            return _feature_function(*value)
        raise ValueError(f"unknown node kind {kind!r}")


def _hashable(key):
    return tuple(key) if isinstance(key, list) else key


# ------------------------------------------------------------------ files


def save_predictor(predictor: Predictor, path: Path | str) -> Path:
    """Write `predictor` as a data-only model file."""
    encoder = _Encoder(known_classes())
    try:
        tree = encoder.encode(predictor)
    except TypeError as exc:
        raise ModelFileError(f"{path}: {exc}") from None
    head = {"format": MODEL_FORMAT, "format_version": MODEL_FORMAT_VERSION, "suite_version": __version__,
            "versions": versions(),
            "summary": {"model": predictor.model_name, "labels": list(predictor.labels),
                        "two_class": predictor.two_class, "reads_features": predictor.featurizer is not None,
                        "info": encoder.encode(predictor.info)},
            "arrays": len(encoder.arrays), "predictor": tree}
    with atomic_path(path) as tmp:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("model.json", json.dumps(head, ensure_ascii=False))
            for i, array in enumerate(encoder.arrays):
                buffer = io.BytesIO()
                np.save(buffer, array, allow_pickle=False)
                archive.writestr(f"arrays/{i}.npy", buffer.getvalue())
    return Path(path)


def load_predictor(path: Path | str) -> Predictor:
    """Read a model file; anything that is not one, is damaged, or comes from an incompatible version
    is a ModelFileError that says so."""
    path = Path(path)
    if not path.is_file():
        raise ModelFileError(f"{path}: no such model file")
    with open(path, "rb") as handle:
        magic = handle.read(4)
    if magic != b"PK\x03\x04":
        raise ModelFileError(
            f"{path}: not a model file of this suite (not a zip archive). Model files of nli-baselines 0.1 were "
            "pickles; this version does not load pickles, since loading one can run any code. Retrain the model "
            "with this version (run.py --save-model).")
    try:
        with zipfile.ZipFile(path) as archive:
            head = json.loads(_read(archive, "model.json"))
            _check_version(head)
            arrays = {i: np.load(io.BytesIO(_read(archive, f"arrays/{i}.npy")), allow_pickle=False)
                      for i in range(int(head["arrays"]))}
        predictor = _Decoder(known_classes(), arrays).decode(head["predictor"])
    except ModelFileError as exc:
        raise ModelFileError(f"{path}: {exc}") from None
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, KeyError, IndexError, TypeError, ValueError,
            AttributeError, UnicodeDecodeError) as exc:
        raise ModelFileError(f"{path}: damaged model file ({type(exc).__name__}: {exc})") from None
    if not isinstance(predictor, Predictor):
        raise ModelFileError(f"{path}: damaged model file (it holds no predictor)")
    return predictor


def _read(archive: zipfile.ZipFile, name: str) -> bytes:
    info = archive.getinfo(name)
    if info.file_size > MAX_MEMBER_BYTES:
        raise ValueError(f"member {name} declares {info.file_size} bytes")
    with archive.open(info) as member:
        data = member.read(MAX_MEMBER_BYTES + 1)
    if len(data) > MAX_MEMBER_BYTES:
        raise ValueError(f"member {name} expands beyond {MAX_MEMBER_BYTES} bytes")
    return data


def _check_version(head) -> None:
    if not isinstance(head, dict) or head.get("format") != MODEL_FORMAT:
        raise ModelFileError(f"not a model file of this suite (no {MODEL_FORMAT!r} marker)")
    version = head.get("suite_version", "?")
    if head.get("format_version") != MODEL_FORMAT_VERSION or _major_minor(version) != _major_minor(__version__):
        raise ModelFileError(f"saved by nli-baselines {version} (model format {head.get('format_version')}); "
                             f"this is {__version__} (format {MODEL_FORMAT_VERSION}). Retrain the model with this "
                             "version.")


def _major_minor(version: str) -> tuple[str, ...]:
    return tuple(str(version).split(".")[:2])
