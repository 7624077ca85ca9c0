"""A fitted model ready to label new pairs, and its one-file saved form, which holds only data.

A model file is a zip archive: `model.json` (format, versions, a readable summary, and the fitted
objects as a tree of plain values) and `arrays/N.npy` (numeric arrays). Any registered model saves
with no code of its own: objects are written from their state (`__getstate__`), and rebuilt from
it only as instances of classes on an allowlist: the suite's own, the classes registered models
build (a `LinearSVC` wrapped in your spec), scikit-learn's estimators and their fitted parts
(already imported, never imported because a file says so), and a few of scikit-learn's compiled
loss objects rebuilt from their arguments.

Loading never unpickles and never imports: a crafted file cannot run code. Before anything is
allocated, the archive's members are checked (names, no duplicates, sizes, each array's header:
shape, a real numeric dtype, the exact byte length); the tree is decoded with bounded depth and
references only to finished objects (no cycles); every float array must be finite; tree
ensembles' node links must stay inside their arrays; and the predictor must label a probe pair.
Anything else is a ModelFileError naming the file and the reason.
"""
from __future__ import annotations

import io
import json
import math
import sys
import types
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from features.atomic import atomic_path
from features.combine import PairFeaturizer

from ..version import __version__
from .records import versions

MODEL_FORMAT = "nli-baselines-model"
MODEL_FORMAT_VERSION = 3  # 1 was a pickle (suite 0.1): refused; 2 knew only the suite's classes
# Sizes a model of this suite reaches: at SNLI scale with every feature kept (18M columns), keys
# and float32 coefficients take ~220 MiB; the tree of plain values a few MiB.
MAX_ARRAY_BYTES = 256 << 20
MAX_TREE_BYTES = 64 << 20
MAX_TOTAL_BYTES = 1 << 30
MAX_DEPTH = 100  # nesting of the tree of plain values (a model's is ~15 deep)
# scikit-learn's fitted parts that are not estimators, and its compiled objects rebuilt from
# their arguments (losses of SGD and gradient boosting, decision trees of forests).
SKLEARN_PARTS = ("TreePredictor", "_BinMapper", "LabelEncoder")
SKLEARN_PART_MODULES = ("sklearn._loss.",)
COMPILED_MODULES = ("sklearn._loss._loss", "sklearn.linear_model._sgd_fast", "sklearn.tree._tree")


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
    info: dict = field(default_factory=dict)  # dataset, chosen settings, features, input columns

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


def _qualified(obj) -> str:
    return f"{obj.__module__}.{obj.__qualname__}"


class Allowlist:
    """The classes a model file may hold, by `module.qualname`: the suite's own; those the
    registered models' factories are or build (a function factory is called once, unfitted, to
    learn its class); and scikit-learn's estimators and fitted parts whose modules are already
    imported (a name never imports anything)."""

    def __init__(self):
        from features.custom import FunctionFeature
        from features.encoding import Encoder
        from features.keymap import KeyIndex
        from features.lexical import WordNetRelations
        from features.registry import FEATURE_TYPES
        from models import MODELS
        classes = [Predictor, PairFeaturizer, Encoder, KeyIndex, FunctionFeature, WordNetRelations]
        classes += [f for f in FEATURE_TYPES.values() if isinstance(f, type)]
        for spec in MODELS.values():
            if isinstance(spec.factory, type):
                classes.append(spec.factory)
            else:
                try:
                    classes.append(type(spec.build()))
                except Exception:  # a factory that cannot build unfitted: its models cannot be saved
                    pass
        self.classes = {_qualified(cls): cls for cls in classes}

    def get(self, name: str):
        return self.classes.get(name) or _sklearn_class(name)

    def compiled(self, name: str):
        """A scikit-learn compiled class rebuilt from its `__reduce__` arguments, or None."""
        module, _, _ = name.rpartition(".")
        if module not in COMPILED_MODULES or module not in sys.modules:
            return None
        cls = getattr(sys.modules[module], name.rpartition(".")[2], None)
        return cls if isinstance(cls, type) and _qualified(cls) == name else None


def _sklearn_class(name: str):
    """The scikit-learn class `name` names, if its module is imported and it is an estimator or a
    fitted part of one; never imports anything."""
    module, _, cls_name = name.rpartition(".")
    if not module.startswith("sklearn.") or module not in sys.modules:
        return None
    cls = getattr(sys.modules[module], cls_name, None)
    if not isinstance(cls, type) or _qualified(cls) != name or module in COMPILED_MODULES:
        return None
    from sklearn.base import BaseEstimator
    if issubclass(cls, BaseEstimator) or cls_name in SKLEARN_PARTS or module.startswith(SKLEARN_PART_MODULES):
        return cls
    return None


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

    def __init__(self, allowed: Allowlist):
        self.allowed = allowed
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
            return self._array(value)
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
        if isinstance(value, np.random.Generator):
            return {"__generator__": self.encode(value.bit_generator.state)}
        if isinstance(value, np.dtype):
            return {"__dtype__": value.str}
        return self._object(value)

    def _array(self, value: np.ndarray):
        if value.dtype == object:
            if not all(isinstance(x, str) for x in value.ravel()):
                raise TypeError("an object array holding non-strings cannot be saved as data")
            return {"__strings__": value.tolist()}
        self.arrays.append(np.ascontiguousarray(value))
        return {"__array__": len(self.arrays) - 1}

    def _object(self, value):
        cls = type(value)
        name = _qualified(cls)
        if id(value) in self.memo:
            return {"__ref__": self.memo[id(value)]}
        compiled = self.allowed.compiled(name)
        if compiled is cls:
            reduced = value.__reduce__()
            if reduced[0] is cls:                                  # (cls, args[, state])
                args, state = reduced[1], reduced[2] if len(reduced) > 2 else None
            elif getattr(reduced[0], "__name__", "") == f"__pyx_unpickle_{cls.__name__}":
                args, state = (), reduced[1][2]                    # Cython's pickling: (unpickler, (cls, sum, state))
            else:
                raise TypeError(f"cannot save a {name}: it reduces to {reduced[0]!r}")
            return {"__reduced__": name, "args": self.encode(tuple(args)), "state": self.encode(state)}
        if self.allowed.get(name) is not cls:
            raise TypeError(f"cannot save a {name} as data: not a class the suite can rebuild (a scikit-learn "
                            "estimator, a class a registered model builds, or one of the suite's own)")
        self.memo[id(value)] = self.objects
        self.objects += 1
        state = value.__getstate__() if hasattr(value, "__getstate__") else value.__dict__
        return {"__object__": name, "id": self.memo[id(value)], "state": self.encode(dict(state or {}))}


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
    """JSON tree + checked arrays -> objects, of allowlisted classes only; bounded depth, and a
    reference only to an object already rebuilt (no cycles)."""

    def __init__(self, allowed: Allowlist, arrays: dict[int, np.ndarray]):
        self.allowed, self.arrays = allowed, arrays
        self.objects: dict[int, object] = {}
        self.building: set[int] = set()
        self.used_arrays: set[int] = set()

    def decode(self, node, depth: int = 0):
        if depth > MAX_DEPTH:
            raise ModelFileError(f"damaged model file (nested deeper than {MAX_DEPTH} levels)")
        if node is None or isinstance(node, (bool, str)):
            return node
        if isinstance(node, (int, float)):
            if isinstance(node, float) and not math.isfinite(node):
                raise ValueError("a number out of range")
            return node
        if isinstance(node, list):
            return [self.decode(v, depth + 1) for v in node]
        if not isinstance(node, dict):
            raise ValueError(f"unexpected node {str(node)[:80]}")
        if "__object__" in node:
            return self._object(node, depth)
        if "__reduced__" in node:
            return self._reduced(node, depth)
        if len(node) != 1:
            raise ValueError(f"unexpected node {str(node)[:80]}")
        (kind, value), = node.items()
        if kind == "__array__":
            if type(value) is not int or value not in self.arrays:
                raise ValueError(f"array {value!r} is not in the file")
            self.used_arrays.add(value)
            return self.arrays[value]
        if kind == "__strings__":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ValueError("a string array holding non-strings")
            return np.array(value, dtype=object)
        if kind == "__tuple__":
            return tuple(self.decode(v, depth + 1) for v in _list(value))
        if kind == "__frozenset__":
            return frozenset(self.decode(v, depth + 1) for v in _list(value))
        if kind == "__slice__":
            if not (isinstance(value, list) and len(value) == 3 and all(v is None or type(v) is int for v in value)):
                raise ValueError("a malformed slice")
            return slice(*value)
        if kind == "__dict__":
            if not isinstance(value, dict):
                raise ValueError("a malformed dict")
            return {k: self.decode(v, depth + 1) for k, v in value.items()}
        if kind == "__items__":
            return {_hashable(self.decode(k, depth + 1)): self.decode(v, depth + 1) for k, v in _pairs(value)}
        if kind == "__float__":
            if value not in ("inf", "-inf", "nan"):
                raise ValueError(f"unknown float {value!r}")
            return float(value)
        if kind == "__ref__":
            if type(value) is not int or value not in self.objects:
                raise ValueError(f"a reference to object {value!r}, which is not defined before it")
            if value in self.building:
                raise ModelFileError(f"damaged model file (object {value} refers to itself: a cycle)")
            return self.objects[value]
        if kind == "__feature_function__":
            if not (isinstance(value, list) and len(value) == 3 and all(isinstance(v, str) for v in value)):
                raise ValueError("a malformed feature function")
            return _feature_function(*value)
        if kind == "__generator__":
            state = self.decode(value, depth + 1)
            bits = getattr(np.random, str(state.get("bit_generator")), None) if isinstance(state, dict) else None
            if not (isinstance(bits, type) and issubclass(bits, np.random.BitGenerator)):
                raise ValueError("an unknown random generator")
            generator = bits()
            generator.state = state
            return np.random.Generator(generator)
        if kind == "__dtype__":
            dtype = np.dtype(str(value))
            if dtype.hasobject:
                raise ValueError("an object dtype")
            return dtype
        raise ValueError(f"unknown node kind {kind!r}")

    def _object(self, node, depth):
        name, ident = node.get("__object__"), node.get("id")
        if set(node) != {"__object__", "id", "state"} or not isinstance(name, str) or type(ident) is not int:
            raise ValueError(f"a malformed object node {str(node)[:80]}")
        cls = self.allowed.get(name)
        if cls is None:
            module = name.rsplit(".", 1)[0]
            if name.startswith("sklearn.") and module not in sys.modules:
                hint = ("; this process has not imported it: pass --import MODULE, the module of yours that "
                        "registers the model (files never import anything themselves)")
            elif name.startswith(("sklearn.", "numpy.", "builtins.", "os.", "sys.", "subprocess.")):
                hint = ""
            else:
                hint = f"; if it is your model, pass --import {module} so it is registered"
            raise ModelFileError(f"this model file holds a {name}, which is not a class registered in this process"
                                 + hint)
        if ident in self.objects:
            raise ValueError(f"object id {ident} is defined twice")
        obj = cls.__new__(cls)
        self.objects[ident] = obj
        self.building.add(ident)
        state = self.decode(node["state"], depth + 1)
        if not isinstance(state, dict):
            raise ValueError(f"the state of a {name} is not a mapping")
        if hasattr(obj, "__setstate__"):
            obj.__setstate__(state)
        else:
            obj.__dict__.update(state)
        self.building.discard(ident)
        return obj

    def _reduced(self, node, depth):
        name = node.get("__reduced__")
        cls = self.allowed.compiled(name) if isinstance(name, str) else None
        if cls is None or set(node) != {"__reduced__", "args", "state"}:
            raise ModelFileError(f"this model file holds a {name}, which is not a class this suite rebuilds")
        args = self.decode(node["args"], depth + 1)
        state = self.decode(node["state"], depth + 1)
        if not isinstance(args, tuple):
            raise ValueError(f"the arguments of a {name} are not a tuple")
        if name.startswith("sklearn.tree._tree.") and isinstance(state, dict):
            _check_tree_state(state, args)
        obj = cls(*args)
        if state is not None and state != ():
            if hasattr(obj, "__setstate_cython__") and not isinstance(state, dict):
                obj.__setstate_cython__(state)
            else:
                obj.__setstate__(state)
        return obj


def _list(value) -> list:
    if not isinstance(value, list):
        raise ValueError("a malformed list")
    return value


def _pairs(value) -> list:
    if not isinstance(value, list) or not all(isinstance(item, list) and len(item) == 2 for item in value):
        raise ValueError("malformed dict items")
    return value


def _hashable(key):
    return tuple(key) if isinstance(key, list) else key


# ------------------------------------------------------------------ checks of what was rebuilt


def _check_tree_state(state: dict, args: tuple) -> None:
    """A decision tree's nodes (forests): child links inside the node array, features inside the
    input: a crafted link would make prediction read outside memory."""
    nodes = state.get("nodes")
    if not isinstance(nodes, np.ndarray) or nodes.dtype.names is None or nodes.ndim != 1:
        raise ModelFileError("damaged model file (a decision tree without its node array)")
    n = len(nodes)
    if state.get("node_count") != n:
        raise ModelFileError("damaged model file (a decision tree's node count disagrees with its nodes)")
    left, right, feature = nodes["left_child"], nodes["right_child"], nodes["feature"]
    leaf = left == -1
    n_features = int(args[0]) if args else 0
    inner = ~leaf
    if (not np.all((right[leaf] == -1)) or np.any(left[inner] <= np.flatnonzero(inner)) or
            np.any(right[inner] <= np.flatnonzero(inner)) or np.any(left[inner] >= n) or np.any(right[inner] >= n) or
            np.any(feature[inner] < 0) or np.any(feature[inner] >= n_features)):
        raise ModelFileError("damaged model file (a decision tree's node links leave its node array)")


def _check_tree_predictor(predictor, n_features: int) -> None:
    """Gradient boosting's TreePredictor: children after their parent and inside the node array,
    features inside the input (scikit-learn does not check these before it predicts)."""
    nodes = getattr(predictor, "nodes", None)
    if not isinstance(nodes, np.ndarray) or nodes.dtype.names is None or nodes.ndim != 1 or not len(nodes):
        raise ModelFileError("damaged model file (a boosted tree without its node array)")
    n = len(nodes)
    inner = np.flatnonzero(~nodes["is_leaf"].astype(bool))
    left, right = nodes["left"][inner].astype(np.int64), nodes["right"][inner].astype(np.int64)
    feature = nodes["feature_idx"][inner].astype(np.int64)
    if (np.any(left <= inner) or np.any(right <= inner) or np.any(left >= n) or np.any(right >= n) or
            np.any(feature < 0) or np.any(feature >= n_features)):
        raise ModelFileError("damaged model file (a boosted tree's node links leave its node array)")


def _walk(obj, seen=None):
    """Every object reachable through the attributes, lists, tuples and dicts of a rebuilt tree."""
    seen = set() if seen is None else seen
    stack = [obj]
    while stack:
        item = stack.pop()
        if id(item) in seen or isinstance(item, (str, bytes, int, float, bool, type(None))):
            continue
        seen.add(id(item))
        yield item
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)
        elif hasattr(item, "__dict__") and not isinstance(item, (type, types.ModuleType, types.FunctionType)):
            stack.extend(vars(item).values())


def _check_predictor(predictor, path: Path) -> None:
    """What the predictor needs before it is used: its parts of the right kinds, every float array
    finite, tree nodes inside their arrays, columns inside the featurizer; then a probe pair."""
    if not isinstance(predictor, Predictor):
        raise ModelFileError(f"{path}: damaged model file (it holds no predictor)")
    if not isinstance(predictor.model_name, str) or not callable(getattr(predictor.model, "predict", None)) or \
            isinstance(predictor.model, type):
        raise ModelFileError(f"{path}: damaged model file (its model is not a fitted classifier)")
    if not (isinstance(predictor.labels, list) and predictor.labels and
            all(isinstance(label, str) for label in predictor.labels)):
        raise ModelFileError(f"{path}: damaged model file (its label set is not a list of labels)")
    if predictor.featurizer is not None and not isinstance(predictor.featurizer, PairFeaturizer):
        raise ModelFileError(f"{path}: damaged model file (its featurizer is not one)")
    if predictor.columns is not None:
        columns = predictor.columns
        if not isinstance(columns, np.ndarray) or columns.ndim != 1 or columns.dtype.kind not in "iu" or \
                predictor.featurizer is None or (len(columns) and (columns.min() < 0 or
                                                                   columns.max() >= predictor.featurizer.n_features_out_)):
            raise ModelFileError(f"{path}: damaged model file (its columns are not columns of its featurizer)")
    n_features = getattr(predictor.model, "n_features_in_", None)
    for item in _walk(predictor):
        if isinstance(item, np.ndarray) and item.dtype.kind == "f" and not np.isfinite(item).all():
            raise ModelFileError(f"{path}: damaged model file (an array of weights holds NaN or infinity)")
        if isinstance(item, np.ndarray) and item.dtype.kind == "c":
            raise ModelFileError(f"{path}: damaged model file (an array holds complex numbers)")
        if type(item).__name__ == "TreePredictor":
            _check_tree_predictor(item, int(n_features or 0))
        if isinstance(getattr(item, "coef_", None), np.ndarray):
            _check_linear(item, path)
    _probe(predictor, path)


def _check_linear(model, path: Path) -> None:
    """A linear model's weights: real numbers, one row per class (or one), one column per feature."""
    coef, intercept = model.coef_, getattr(model, "intercept_", None)
    n_features = getattr(model, "n_features_in_", None)
    if coef.dtype.kind != "f" or (isinstance(intercept, np.ndarray) and intercept.dtype.kind != "f"):
        raise ModelFileError(f"{path}: damaged model file (its weights are {coef.dtype}, not real numbers)")
    if coef.ndim not in (1, 2) or (n_features is not None and coef.shape[-1] != n_features) or \
            (isinstance(intercept, np.ndarray) and coef.ndim == 2 and intercept.shape != (coef.shape[0],)):
        raise ModelFileError(f"{path}: damaged model file (weights of shape {coef.shape} for {n_features} features)")


PROBE = ("A man is sleeping .", "A person is sleeping .", ("A", "man", "is", "sleeping", "."),
         ("DT", "NN", "VBZ", "VBG", "."), ("a", "man", "be", "sleep", "."))


def _probe(predictor: Predictor, path: Path) -> None:
    """Label one pair, tagged by hand: a model whose parts do not fit together (a weight matrix of
    the wrong shape, a bad column slice) fails here, with the file's name, not later."""
    from features.pair import Pair
    from features.wordnet_data import WordNetMissingError
    premise, hypothesis, tokens, tags, lemmas = PROBE
    pair = Pair("probe", premise, hypothesis, None, tokens, tags, tokens[:1] + ("person",) + tokens[2:], tags,
                lemmas, lemmas[:1] + ("person",) + lemmas[2:])
    try:
        with np.errstate(all="ignore"):
            label = predictor.predict([pair])[0]
            scores = (predictor.model.decision_function(predictor._inputs([pair]))
                      if hasattr(predictor.model, "decision_function") else None)
    except WordNetMissingError:
        raise
    except Exception as exc:  # a damaged file fails in many ways inside numpy and scikit-learn
        raise ModelFileError(f"{path}: damaged model file: it cannot label a pair ({type(exc).__name__}: "
                             f"{str(exc)[:200]})") from None
    labels = set(predictor.labels)
    if str(label) not in labels:
        raise ModelFileError(f"{path}: damaged model file: it predicts {label!r}, not one of its labels "
                             f"{sorted(labels)}")
    if scores is not None and not np.isfinite(np.asarray(scores, dtype=np.float64)).all():
        raise ModelFileError(f"{path}: damaged model file: its scores are not finite")


# ------------------------------------------------------------------ files


def save_predictor(predictor: Predictor, path: Path | str) -> Path:
    """Write `predictor` as a data-only model file."""
    encoder = _Encoder(Allowlist())
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
    """Read a model file; anything that is not one, is damaged or crafted, or comes from an
    incompatible version is a ModelFileError that says so."""
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
            head = _head(archive)
            _check_version(head)
            count = head.get("arrays")
            if type(count) is not int or not 0 <= count <= 100_000:
                raise ValueError(f"it declares {count!r} arrays")
            _check_members(archive, count)
            arrays = {i: _read_array(archive, f"arrays/{i}.npy") for i in range(count)}
        decoder = _Decoder(Allowlist(), arrays)
        predictor = decoder.decode(head["predictor"])
    except ModelFileError as exc:
        raise ModelFileError(f"{path}: {exc}") from None
    except RecursionError:
        raise ModelFileError(f"{path}: damaged model file (nested too deeply)") from None
    except MemoryError:
        raise ModelFileError(f"{path}: damaged model file (it asks for more memory than there is)") from None
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, KeyError, IndexError, TypeError, ValueError,
            AttributeError, UnicodeDecodeError, OverflowError) as exc:
        raise ModelFileError(f"{path}: damaged model file ({type(exc).__name__}: {exc})") from None
    _check_predictor(predictor, path)
    if decoder.used_arrays != set(arrays):
        raise ModelFileError(f"{path}: damaged model file (it holds arrays that no part of the model uses)")
    return predictor


def _head(archive: zipfile.ZipFile) -> dict:
    info = _member(archive, "model.json")
    if info.file_size > MAX_TREE_BYTES:
        raise ValueError(f"model.json declares {info.file_size:,} bytes (at most {MAX_TREE_BYTES:,})")
    with archive.open(info) as member:
        data = member.read(MAX_TREE_BYTES + 1)
    if len(data) > MAX_TREE_BYTES:
        raise ValueError(f"model.json expands beyond {MAX_TREE_BYTES:,} bytes")
    head = json.loads(data)
    if not isinstance(head, dict):
        raise ModelFileError("not a model file of this suite (no 'nli-baselines-model' marker)")
    return head


def _member(archive: zipfile.ZipFile, name: str) -> zipfile.ZipInfo:
    matches = [info for info in archive.infolist() if info.filename == name]
    if not matches:
        raise KeyError(f"there is no member named {name!r}")
    if len(matches) > 1:
        raise ModelFileError(f"damaged model file (the member {name} occurs {len(matches)} times)")
    return matches[0]


def _check_members(archive: zipfile.ZipFile, count: int) -> None:
    """Exactly model.json and arrays/0.npy .. arrays/{count-1}.npy, each once, within the caps."""
    names = [info.filename for info in archive.infolist()]
    expected = {"model.json", *(f"arrays/{i}.npy" for i in range(count))}
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ModelFileError(f"damaged model file (the member {repeated[0]} occurs {names.count(repeated[0])} times)")
    if set(names) != expected:
        extra, missing = sorted(set(names) - expected), sorted(expected - set(names))
        raise ModelFileError("damaged model file (" + (f"unexpected member {extra[0]!r}" if extra else
                                                       f"missing member {missing[0]!r}") + ")")
    total = sum(info.file_size for info in archive.infolist())
    if total > MAX_TOTAL_BYTES:
        raise ModelFileError(f"damaged model file (its members expand to {total:,} bytes; a model of this suite "
                             f"takes at most {MAX_TOTAL_BYTES:,})")


def _read_array(archive: zipfile.ZipFile, name: str) -> np.ndarray:
    """One .npy member, its header checked before any allocation: a real numeric (or text) dtype, a
    shape whose bytes fit the cap and match the member's size exactly."""
    info = _member(archive, name)
    if info.file_size > MAX_ARRAY_BYTES:
        raise ModelFileError(f"damaged model file ({name} declares {info.file_size:,} bytes; an array of a model "
                             f"of this suite takes at most {MAX_ARRAY_BYTES:,})")
    with archive.open(info) as member:
        version = np.lib.format.read_magic(member)
        reader = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}.get(version)
        if reader is None:
            raise ValueError(f"{name}: unsupported .npy version {version}")
        shape, fortran, dtype = reader(member, max_header_size=10_000)
        if dtype.hasobject or dtype.kind not in "biufU" and dtype.names is None:
            raise ModelFileError(f"damaged model file ({name} holds {dtype}, not numbers)")
        if dtype.names is not None and any(dtype[f].hasobject or dtype[f].kind not in "biuf" for f in dtype.names):
            raise ModelFileError(f"damaged model file ({name} holds records that are not numbers)")
        count = math.prod(int(n) for n in shape)
        if count * dtype.itemsize > MAX_ARRAY_BYTES or count * dtype.itemsize != info.file_size - member.tell():
            raise ModelFileError(f"damaged model file ({name} declares {count:,} values of {dtype.itemsize} bytes "
                                 f"in {info.file_size - member.tell():,} bytes)")
        data = bytearray(count * dtype.itemsize)  # writable, so the array is too
        view, filled = memoryview(data), 0
        while filled < len(data):
            got = member.readinto(view[filled:])
            if not got:
                raise ValueError(f"{name} ends after {filled:,} of its {len(data):,} bytes")
            filled += got
    return np.frombuffer(data, dtype=dtype, count=count).reshape(shape, order="F" if fortran else "C")


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
