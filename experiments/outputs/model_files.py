"""A fitted model ready to label new pairs, and its one-file saved form, which holds only data.

A model file is a safetensors file (`features.storage.tensor_file`: numeric arrays behind a
bounded JSON header, checked before a byte is used). The header's metadata carries this suite's
own JSON: format, versions, the model's registered name, label set, tuned hyperparameters, run
info, and the featurizer's and the estimator's declared state (`features.storage.schema`): each
savable kind lists the attributes it keeps, their dtypes and shapes tied to each other and to the
featurizer's width and the labels, their ranges, and the checks across them (tree links,
vocabulary ids). Nothing in a file names a class, a function, a
method, a path or a worker count.

Loading builds the estimator with the registered model's own factory (code this process
imported, e.g. with --import), with only the declared hyperparameters from the file, checks
every declared value, then sets them. Only after every check does a probe pair run. A custom
feature type is looked up in this process's registry, never registered from a file. Anything
else is a ModelFileError naming the file and the reason.

Which kinds save: the suite's own models (lr, edit_distance, stacked, majority), and for models
you register, scikit-learn's linear classifiers, naive Bayes, decision trees and forests,
HistGradientBoosting, MLP and k-nearest neighbours (`models.sklearn_kinds`), or a kind your
spec declares (`ModelSpec.state`). `check_savable` refuses any other before training starts.
"""
from __future__ import annotations

import importlib.metadata
import json
import math
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from nli_baselines._version import __version__
from nli_baselines.features.featurizer import PairFeaturizer
from nli_baselines.features.featurizer_state import dump_featurizer, load_featurizer
from nli_baselines.features.pair import MAX_PAIRWISE_TOKENS, Pair, pairs_from
from nli_baselines.features.runtime.shown import shown
from nli_baselines.features.storage import tensor_file
from nli_baselines.features.storage.schema import (INPUT_BOUND, Array, Bool, Choice, Field, Int, Mapping_,
                                                   NotRegisteredError, Optional, Reader, Sizes, StateError, Text, Texts,
                                                   Writer)
from nli_baselines.features.text.annotation import AnnotationSource, annotate_as
from nli_baselines.features.text.wordnet_data import WordNetMissingError
from nli_baselines.models import MODELS, get_model, majority, mean
from nli_baselines.models.sklearn_kinds import SKLEARN_KINDS

from ..corpora.task import NLI, SCORES, TARGETS, Task
from .records import versions

_SKLEARN_VERSION = importlib.metadata.version("scikit-learn")
MODEL_FORMAT = "nli-baselines-model"
# 1 was a pickle (suite 0.1), 2 and 3 zip archives of objects rebuilt from their state: refused.
# 5 declares the task (labels or scores, metrics); a file of format 4, which has no task, is read
# as what every model then was: a label task judged by accuracy.
MODEL_FORMAT_VERSION = 5
READABLE_FORMAT_VERSIONS = (4, 5)
# At SNLI scale with every feature type (18M columns) a model is ~400 MB of keys and weights.
MAX_FILE_BYTES = 4 << 30
MAX_HEADER_BYTES = 64 << 20  # the JSON header: vocabulary, labels, column names (a few MB at SNLI scale)
MAX_LABELS = 1000
HEAD_KEY = MODEL_FORMAT  # the metadata entry holding the suite's JSON
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class ModelFileError(ValueError):
    """A file that is not a saved model, or one this version of the suite cannot use."""


class UntestedReleaseError(ValueError):
    """A model kind that this scikit-learn release is not tested to save or load (`EstimatorKind.untested`)."""


@dataclass
class Predictor:
    """Featurizer (vocabulary and all) + model + the task it predicts for (a label set, or a score
    range), as fitted by a run."""

    model_name: str
    model: object
    featurizer: PairFeaturizer | None  # None for models that read pairs
    columns: np.ndarray | None  # the featurizer columns the model reads; None = all
    labels: list[str]  # the label set ([] for a score task)
    two_class: bool
    info: dict = field(default_factory=dict)  # dataset, chosen settings, features, input columns
    task: Task = NLI  # what it predicts: labels (and how they are judged) or scores in a range
    notes: list[str] = field(default_factory=list)  # what loading its file found worth saying

    @property
    def spec(self):
        """The ModelSpec that says how this model explains itself: its registered model's, or the
        majority class's (the mean score's) where the run fell back to it (a training sample of
        one class, or of equal scores)."""
        spec = get_model(self.model_name)
        built = spec.state.cls if spec.state is not None else None
        fallback = _fallback_spec(self.model)
        return fallback if fallback is not None and built is not fallback.factory else spec

    @property
    def needs_lemmas(self) -> bool:
        """Whether pairs to label must carry lemmas (annotate them with `lemmas=True`)."""
        return any(getattr(part, "needs_lemmas", False) for part in (self.model, self.featurizer))

    @property
    def annotation_source(self):
        """How the training pairs got their tokens and tags (`features.text.annotation.AnnotationSource`),
        or None where that is not known (a Predictor built by hand, a file of an earlier version)."""
        text = (self.info.get("annotation") or {}).get("tokens_tags")
        return AnnotationSource.parse(text) if text else None

    def annotated(self, pairs, *, jobs: int = 1, progress: bool = False, notes: list | None = None) -> list:
        """`pairs` ready for this model: Pairs, (premise, hypothesis) tuples or a DataFrame
        (`features.pairs_from`), tokenized, tagged (and lemmatized, if the model reads lemmas) as its
        training pairs were, wherever the input allows (`features.text.annotation.annotate_as`:
        a model trained on spaCy's tags re-tags pairs that come with a corpus' trees).

        Every door that labels pairs (predict.py, diagnose.py, --with-hans, test-set files, the API)
        comes through here. notes: receives one line for each thing done otherwise (no trees where
        the model was trained on trees, another spaCy); without it, they are warnings. Pairs this
        method returned are returned as they are.
        """

        if isinstance(pairs, _Annotated) and pairs.predictor is self:
            return pairs
        # A sentence too long for the model's pairwise feature types is refused by them: not tagged first.
        longest = MAX_PAIRWISE_TOKENS if getattr(self.featurizer, "pairwise_types", None) else None
        ready, said = annotate_as(pairs_from(pairs), self.annotation_source, lemmas=self.needs_lemmas, jobs=jobs,
                                  progress=progress, max_tokens=longest)
        if self.info.get("annotation") == {}:  # read from a file that does not say
            said.insert(0, "the model file does not say how its training pairs were tagged (it was saved "
                           "before files said so, or from a Predictor built by hand): pairs are annotated as they "
                           "come, from a corpus' trees where they have them, else by spaCy")
        if notes is not None:
            notes.extend(said)
        else:
            for note in said:
                warnings.warn(note, AnnotationNote, stacklevel=2)
        return _Annotated(ready, self)

    def _inputs(self, pairs):
        if self.featurizer is None:
            return list(pairs)
        X = self.featurizer.transform(pairs)
        return bounded_inputs(X if self.columns is None else X[:, self.columns])

    def predict(self, pairs) -> np.ndarray:
        """Labels of `pairs` (anything `annotated` takes), or for a score task their scores
        (float64, inside the task's range)."""
        pairs = self.annotated(pairs)
        dtype = np.float64 if self.task.is_scores else object
        if not pairs:
            return np.array([], dtype=dtype)
        predicted = np.asarray(self.model.predict(self._inputs(pairs)), dtype=dtype)
        if self.task.is_scores and not np.isfinite(predicted).all():  # no NaN or infinity reaches an output
            bad = int((~np.isfinite(predicted)).argmax())
            raise ModelFileError(f"the {self.model_name} model gives scores that are not finite numbers for pair "
                                 f"{shown(pairs[bad].id, 60)}: a damaged or crafted model file")
        return self.task.clip(predicted)

    def predict_proba(self, pairs) -> tuple[list[str], np.ndarray] | None:
        """(class order, probabilities), or None for models without probabilities (edit distance,
        any regressor); `pairs` as for `predict`."""
        if self.task.is_scores or not hasattr(self.model, "predict_proba"):
            return None
        pairs = self.annotated(pairs)
        with np.errstate(all="ignore"):
            proba = np.asarray(self.model.predict_proba(self._inputs(pairs)), dtype=np.float64)
        bad = ~np.isfinite(proba).all(axis=1) if proba.ndim == 2 else np.ones(len(pairs), dtype=bool)
        if bad.any():  # the last guard: no NaN or infinity reaches an output
            raise ModelFileError(f"the {self.model_name} model gives probabilities that are not finite numbers for "
                                 f"pair {shown(pairs[int(bad.argmax())].id, 60)}: a damaged or crafted model file")
        return [str(c) for c in self.model.classes_], proba

    def save(self, path: Path | str) -> None:
        """Write the model file (atomically): the fitted state as declared data, its arrays in
        safetensors behind a bounded JSON header (docs/saved-models.md); no code is stored."""
        save_predictor(self, path)




class AnnotationNote(UserWarning):
    """New pairs annotated otherwise than the model's training pairs were (`Predictor.annotated`)."""


class _Annotated(list):
    """Pairs `Predictor.annotated` made ready for `predictor`: not annotated again."""

    def __init__(self, pairs, predictor: Predictor):
        super().__init__(pairs)
        self.predictor = predictor


def bounded_inputs(X):
    """`X` with every value inside INPUT_BOUND, the range each saved estimator's weights are
    bounded for (NaN made 0): whatever a model file's featurizer or a custom feature type computed,
    no infinity or NaN reaches a scikit-learn call."""
    values = X.data if sp.issparse(X) else X
    if values.size and not (np.abs(values) <= INPUT_BOUND).all():  # one pass when all is well
        np.nan_to_num(values, copy=False, nan=0.0)
        np.clip(values, -INPUT_BOUND, INPUT_BOUND, out=values)
    return X


# ------------------------------------------------------------------ which kinds save


def _fallbacks() -> dict:
    """Kind name -> (kind, spec) of what a row falls back to when its sample cannot be learned
    from: the majority class (one class), the mean score (equal scores)."""
    return {majority.STATE.name: (majority.STATE, majority.SPEC), mean.STATE.name: (mean.STATE, mean.SPEC)}


def _fallback_spec(model):
    return next((spec for kind, spec in _fallbacks().values() if type(model) is kind.cls), None)


def _kinds() -> dict:
    """Kind name -> EstimatorKind: the kinds registered models declare, then scikit-learn's."""
    kinds = {kind.name: kind for kind in SKLEARN_KINDS.values()}
    kinds.update({name: kind for name, (kind, _) in _fallbacks().items()})
    for spec in MODELS.values():
        if spec.state is not None:
            kinds[spec.state.name] = spec.state
    return kinds


def kind_for(spec):
    """The EstimatorKind a model of `spec` is saved as; ModelFileError if it has none. A spec's
    own declared kind, else the kind of the class its factory builds (built once, unfitted)."""
    if spec.state is not None:
        return spec.state
    try:
        cls = type(spec.build())
    except Exception as exc:  # the user's factory: say so rather than fail deep inside
        raise ModelFileError(f"cannot save a {spec.name} model: its factory fails to build one unfitted "
                             f"({type(exc).__name__}: {exc})") from None
    kind = SKLEARN_KINDS.get(cls)
    if kind is None:
        raise ModelFileError(f"cannot save a {spec.name} model: its factory builds a {cls.__name__}, which is not a "
                             f"savable kind. Savable kinds are {', '.join(sorted(savable_kinds()))}, or a kind the "
                             "model's spec declares (ModelSpec.state)")
    return kind


def savable_kinds() -> list[str]:
    return list(_kinds())


def check_savable(spec) -> None:
    """Refuse, before any training, a model whose fitted form could not be saved."""
    reason = kind_for(spec).untested()
    if reason:
        raise ModelFileError(f"cannot save the {spec.name} model: {reason}")


# ------------------------------------------------------------------ the header's declared parts


INFO_SCALAR = Optional(Text(max_len=200))  # a selection value is shown, never used: kept as text
HEAD_FIELDS = {
    "format": Text(max_len=100), "format_version": Int(), "suite_version": Text(max_len=100),
    "versions": Mapping_(Text(max_len=200)),
    "model": Text(max_len=100), "model_module": Text(max_len=200),
    "labels": Texts(unique=True, size="n_labels"), "two_class": Bool(),
    "hyperparameters": None,  # checked against the spec's declared hyperparameters
    "info": None,  # INFO
    "columns": Optional(Array("int64", ("n_columns",), lo=0, increasing=True)),
    "featurizer": None,  # features.featurizer_state
    "estimator": None,  # {"kind": name, "state": ...}
    "task": None,  # TASK_FIELDS
}


class _Range(Field):
    """A score range: two finite numbers, the lower first."""

    def dump(self, value, writer, path):
        return None if value is None else [float(value[0]), float(value[1])]

    def load(self, raw, reader, path, sizes):
        if raw is None:
            return None
        if not (isinstance(raw, list) and len(raw) == 2 and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                              and math.isfinite(v) for v in raw) and raw[0] < raw[1]):
            raise StateError(f"{path}: not a score range (two finite numbers, the lower first)")
        return (float(raw[0]), float(raw[1]))


TASK_FIELDS = {
    "target": Choice(TARGETS), "positive": Optional(Text(max_len=1000)), "score_range": _Range(),
    "metrics": Texts(max_len=40), "select_by": Text(max_len=40), "single_sentence": Bool(),
}


def _task_dump(predictor: Predictor) -> dict:
    task = predictor.task
    return {"target": task.target, "positive": task.positive, "score_range": _Range().dump(task.score_range, None, ""),
            "metrics": list(task.metrics), "select_by": task.select_by, "single_sentence": task.single_sentence}


def _task_load(raw, labels: list[str], reader, sizes) -> Task:
    if not isinstance(raw, dict) or set(raw) != set(TASK_FIELDS):
        raise StateError(f"task: not the declared task ({', '.join(TASK_FIELDS)})")
    values = {name: f.load(raw[name], reader, f"task.{name}", sizes) for name, f in TASK_FIELDS.items()}
    if values["target"] == SCORES and labels:
        raise StateError("task: a score task has no labels")
    try:
        return Task(values["target"], tuple(labels) if values["target"] != SCORES else None, values["positive"],
                    values["score_range"], tuple(values["metrics"]), values["select_by"], values["single_sentence"])
    except ValueError as exc:
        raise StateError(f"task: {str(exc)[:200]}") from None
INFO_FIELDS = {
    "dataset": Text(max_len=200), "features": Texts(max_len=100), "train_pairs": Int(),
    "selection": Mapping_(INFO_SCALAR),
    "columns": Mapping_(Text(max_len=1000), keys=("premise_column", "hypothesis_column", "label_column", "id_column")),
    "label_map": Mapping_(Text()),
    # How the training pairs got their tokens and tags (`AnnotationSource.text`); files saved before
    # it was recorded lack it, and their pairs are annotated as they come.
    "annotation": Mapping_(Text(max_len=300), keys=("tokens_tags",)),
}
OPTIONAL_INFO = {"annotation"}


def _info_dump(info: dict) -> dict:
    given = dict(info.get("input", {}))
    label_map = given.pop("label_map", {}) or {}
    return {"dataset": str(info.get("dataset", "")), "features": [str(f) for f in info.get("features", [])],
            "train_pairs": int(info.get("train_pairs", 0)),
            "selection": {str(k): None if v is None else str(v) for k, v in (info.get("selection") or {}).items()},
            "columns": {k: str(v) for k, v in given.items() if v is not None},
            "label_map": {str(k): str(v) for k, v in label_map.items()},
            "annotation": {k: str(v) for k, v in (info.get("annotation") or {}).items()}}


def _info_load(raw, reader, sizes) -> dict:
    if not isinstance(raw, dict) or not set(INFO_FIELDS) - OPTIONAL_INFO <= set(raw) <= set(INFO_FIELDS):
        raise StateError(f"info: not the declared run info ({', '.join(INFO_FIELDS)})")
    values = {name: field_.load(raw[name], reader, f"info.{name}", sizes) for name, field_ in INFO_FIELDS.items()
              if name in raw}
    selection = {k: _number_or_text(v) for k, v in values["selection"].items()}
    given = {**values["columns"], **({"label_map": values["label_map"]} if values["label_map"] else {})}
    annotation = values.get("annotation", {})
    if "tokens_tags" in annotation:
        try:
            AnnotationSource.parse(annotation["tokens_tags"])
        except ValueError as exc:
            raise StateError(f"info.annotation.tokens_tags: {exc}") from None
    return {"dataset": values["dataset"], "features": values["features"], "train_pairs": values["train_pairs"],
            **({"selection": selection} if selection else {}), "input": given, "annotation": annotation}


def _number_or_text(text):
    """A chosen setting as it was written: a flag, a whole or finite real number, else the text."""
    if text is None or text in ("True", "False"):
        return None if text is None else text == "True"
    try:
        number = float(text)
    except ValueError:
        return text
    if not math.isfinite(number):
        return text
    return int(number) if number.is_integer() and "." not in text and "e" not in text.lower() else number


# ------------------------------------------------------------------ files


def save_predictor(predictor: Predictor, path: Path | str) -> Path:
    """Write `predictor` as a data-only model file (atomically)."""
    spec = get_model(predictor.model_name)
    kind = _fitted_kind(predictor.model, spec, path)
    if kind.untested():
        raise ModelFileError(f"{path}: cannot save: {kind.untested()}")
    writer = Writer()
    try:
        kind.ready(predictor.model)
        state = kind.schema.dump(predictor.model, writer, "estimator")
        featurizer = None if predictor.featurizer is None else dump_featurizer(predictor.featurizer, writer, "featurizer")
    except (ValueError, TypeError, AttributeError) as exc:
        raise ModelFileError(f"{path}: cannot save this {kind.name}: {exc}") from None
    columns = HEAD_FIELDS["columns"].dump(predictor.columns, writer, "columns")
    # A row that fell back to the majority class (a one-class sample) has none of its spec's parameters.
    params = {} if predictor.spec is not spec else predictor.model.get_params()
    hyper = {name: params[name] for name in spec.declared_hyperparameters if name in params}
    head = {"format": MODEL_FORMAT, "format_version": MODEL_FORMAT_VERSION, "suite_version": __version__,
            "versions": {k: str(v) for k, v in versions().items()},
            "model": predictor.model_name, "model_module": getattr(spec.factory, "__module__", "") or "",
            "labels": [str(label) for label in predictor.labels], "two_class": bool(predictor.two_class),
            "hyperparameters": {k: v.item() if isinstance(v, np.generic) else v for k, v in hyper.items()},
            "info": _info_dump(predictor.info), "columns": columns, "featurizer": featurizer,
            "estimator": {"kind": kind.name, "state": state}, "task": _task_dump(predictor)}
    try:
        text = json.dumps(head, ensure_ascii=False, allow_nan=False)
    except ValueError as exc:  # NaN or infinity: no JSON number, and no value the loader takes
        raise ModelFileError(f"{path}: not saved: a value of the model's header is not a finite number ({exc})") \
            from None
    if len(text.encode()) > MAX_HEADER_BYTES:
        raise ModelFileError(f"{path}: the model's header would take {len(text.encode()):,} bytes (at most "
                             f"{MAX_HEADER_BYTES:,}): too large a vocabulary or too many column names to save")
    _loads_back(text, writer.arrays, path)
    try:
        tensor_file.write(path, writer.arrays, {HEAD_KEY: text}, max_bytes=MAX_FILE_BYTES)
    except tensor_file.TensorFileError as exc:
        raise ModelFileError(f"{path}: not saved: the file would take {exc}") from None
    return Path(path)


def _loads_back(text: str, arrays: dict, path) -> None:
    """Load the model from the header and arrays about to be written, as `load_predictor` loads
    the file (the same schema, the same checks, the probe pair), before a byte is written: what
    the suite saves, it can read back, or the save fails in one line naming the part that a model
    file cannot hold (a label longer than a file's texts, more labels than it takes, ...)."""
    reader = Reader(arrays)
    try:
        predictor = _predictor(json.loads(text), reader)
        stray = set(arrays) - reader.used
        if stray:
            raise StateError(f"arrays that no part of the model declares ({min(stray)!r:.80})")
    except StateError as exc:
        raise ModelFileError(f"{path}: not saved: a model file cannot hold this model ({exc})") from None
    try:
        _probe(predictor, path)
    except ModelFileError as exc:
        raise ModelFileError(f"{path}: not saved: read back, {str(exc).removeprefix(f'{path}: ')}") from None


def _fitted_kind(model, spec, path):
    """The kind of a fitted model: its spec's, or the majority fallback's, or scikit-learn's."""
    kinds = _kinds()
    kind = spec.state if spec.state is not None and type(model) is spec.state.cls else None
    if kind is None:
        kind = next((k for k in kinds.values() if type(model) is k.cls), None)
    if kind is None:
        raise ModelFileError(f"{path}: cannot save a {type(model).__name__} model: not a savable kind. Savable kinds "
                             f"are {', '.join(sorted(kinds))}, or a kind the model's spec declares (ModelSpec.state)")
    return kind


def load_predictor(path: Path | str) -> Predictor:
    """Read a model file; anything that is not one, is damaged or crafted, or comes from an
    incompatible version is a ModelFileError that says so."""
    if path is None or not isinstance(path, (str, Path)):
        raise ModelFileError(f"a model file must be given as a path, not {type(path).__name__}")
    path = Path(path)
    if not path.is_file():
        raise ModelFileError(f"{path}: no such model file")
    try:
        predictor = _load(path)
    except ModelFileError:
        raise
    except UntestedReleaseError as exc:
        raise ModelFileError(f"{path}: {exc}; install a scikit-learn of that range to load it, or retrain the "
                             "model with this one") from None
    except NotRegisteredError as exc:
        raise ModelFileError(f"{path}: {exc}") from None
    except StateError as exc:
        raise ModelFileError(f"{path}: damaged model file ({exc})") from None
    except MemoryError:
        raise ModelFileError(f"{path}: damaged model file (it asks for more memory than there is)") from None
    except RecursionError:
        raise ModelFileError(f"{path}: damaged model file (nested too deeply)") from None
    except Exception as exc:  # the safetensors reader and numpy refuse damage in their own words
        raise ModelFileError(f"{path}: damaged model file ({type(exc).__name__}: {str(exc)[:200]})") from None
    _probe(predictor, path)
    return predictor


def _load(path: Path) -> Predictor:
    head = _head(path)
    with tensor_file.reading(path) as reader:
        return _predictor(head, reader)


def _head(path: Path) -> dict:
    """The suite's JSON, after checking the file's first bytes: the safetensors header length
    is bounded before anything is parsed."""
    try:
        text = tensor_file.read_metadata(path, HEAD_KEY, max_file_bytes=MAX_FILE_BYTES,
                                         max_header_bytes=MAX_HEADER_BYTES)
    except tensor_file.TensorFileError as exc:
        start = tensor_file.first_bytes(path)
        if start[:4] == b"PK\x03\x04":
            raise ModelFileError(f"{path}: saved by an earlier version of nli-baselines (model format 2 or 3, a zip "
                                 "archive), which this version does not load. Retrain the model with this version "
                                 "(run.py --save-model).") from None
        if start[:1] == b"\x80":
            raise ModelFileError(f"{path}: a pickle (model files of nli-baselines 0.1 were pickles); this version "
                                 "does not load pickles, since loading one can run any code. Retrain the model with "
                                 "this version (run.py --save-model).") from None
        raise ModelFileError(f"{path}: not a model file of this suite ({exc})") from None
    if text is None:
        raise ModelFileError(f"{path}: not a model file of this suite (no {MODEL_FORMAT!r} header)")
    head = json.loads(text)
    if "\\u" in text and _SURROGATE_ESCAPE.search(text):  # the suite writes none: a lone one is no text
        try:
            json.dumps(head, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise ModelFileError(f"{path}: damaged model file (a text holds a lone surrogate, which is not "
                                 "Unicode text)") from None
    if not isinstance(head, dict) or head.get("format") != MODEL_FORMAT:
        raise ModelFileError(f"{path}: not a model file of this suite (no {MODEL_FORMAT!r} marker)")
    version = head.get("suite_version", "?")
    if head.get("format_version") not in READABLE_FORMAT_VERSIONS or isinstance(head.get("format_version"), bool):
        raise ModelFileError(f"{path}: saved by nli-baselines {str(version)[:40]} (model format "
                             f"{str(head.get('format_version'))[:20]}); this is {__version__} (format "
                             f"{MODEL_FORMAT_VERSION}). Retrain the model with this version.")
    return head


def _predictor(head: dict, reader: Reader) -> Predictor:
    declared = set(HEAD_FIELDS) - ({"task"} if head.get("format_version") == 4 else set())
    extra = sorted(set(head) - declared)
    missing = sorted(declared - set(head))
    if extra or missing:
        raise StateError(f"the header has {'an undeclared entry ' + repr(extra[0][:40]) if extra else 'no ' + missing[0]}")
    sizes = Sizes()
    simple = {name: f.load(head[name], reader, name, sizes) for name, f in HEAD_FIELDS.items()
              if f is not None and name != "columns"}
    name = simple["model"]
    spec = MODELS.get(name)
    if spec is None:
        raise NotRegisteredError(f"this model was trained as the model {name!r}, which is not registered in this "
                                 f"process: pass --import {simple['model_module'] or 'MODULE'} (the module of yours "
                                 "that registers it; files never import anything themselves)")
    labels = simple["labels"]
    task = _task_load(head["task"], labels, reader, sizes) if "task" in head else Task.classification(labels)
    if not task.is_scores and not 0 < len(labels) <= MAX_LABELS:
        raise StateError(f"labels: {len(labels)} labels (1 to {MAX_LABELS} allowed)")
    if task.is_scores != (spec.target == SCORES):
        raise StateError(f"task: a {task.target} task, but the {name} model predicts {spec.target}")
    hyper = _hyperparameters(head["hyperparameters"], spec, reader, sizes)
    info = _info_load(head["info"], reader, sizes)
    featurizer = None
    if spec.uses_features:
        if head["featurizer"] is None:
            raise StateError(f"featurizer: a {name} model reads features, and the file has no featurizer")
        featurizer = load_featurizer(head["featurizer"], reader, "featurizer")
    elif head["featurizer"] is not None:
        raise StateError(f"featurizer: a {name} model reads pairs, not features")
    columns = HEAD_FIELDS["columns"].load(head["columns"], reader, "columns", sizes)
    if columns is not None and (featurizer is None or (len(columns) and columns[-1] >= featurizer.n_features_out_)):
        raise StateError("columns: not columns of the featurizer")
    width = len(columns) if columns is not None else (featurizer.n_features_out_ if featurizer is not None else None)
    model, kind = _estimator(head["estimator"], spec, hyper, reader, labels, width)
    return Predictor(name, model, featurizer, columns, labels, simple["two_class"], info, task,
                     _release_notes(simple["versions"], kind))


def _release_notes(written: dict, kind) -> list[str]:
    """What a reader of a model file written under another scikit-learn release is told: that the
    release is one its kind is tested with, and what was checked."""
    then, now = written.get("scikit-learn"), _SKLEARN_VERSION
    if not then or then == now:
        return []
    low, high = kind.sklearn
    return [f"the model was saved with scikit-learn {shown(then, 40)} and is read with {now}: its {kind.name} state "
            f"was checked against its declared schema, and this kind is tested to load and predict alike from "
            f"scikit-learn {low} up to {high}"]


def _hyperparameters(raw, spec, reader, sizes) -> dict:
    if not isinstance(raw, dict):
        raise StateError("hyperparameters: not a mapping")
    declared = spec.declared_hyperparameters
    unknown = sorted(set(raw) - set(declared))
    if unknown:
        raise StateError(f"hyperparameters: {unknown[0][:40]!r} is not a hyperparameter the {spec.name} model declares")
    return {k: declared[k].load(v, reader, f"hyperparameters.{k}", sizes) for k, v in raw.items()}


def _estimator(raw, spec, hyper: dict, reader, labels, width):
    if not isinstance(raw, dict) or set(raw) != {"kind", "state"} or not isinstance(raw["kind"], str):
        raise StateError("estimator: not a kind and its state")
    kind_name = raw["kind"]
    fallback = _fallbacks().get(kind_name)
    if fallback is not None and fallback[1].target == spec.target and (spec.state is None
                                                                       or spec.state.name != kind_name):
        kind, estimator = fallback[0], fallback[0].cls()  # a row whose sample had one class, or equal scores
    else:
        kind = kind_for(spec)
        if kind.name != kind_name:
            raise StateError(f"estimator: a {kind_name[:60]!r}, but the {spec.name} model is a {kind.name} here")
        estimator = spec.build()
        if hyper:  # names and values as the spec declares them, on what its factory built
            estimator.set_params(**hyper)
        if type(estimator) is not kind.cls:
            raise StateError(f"estimator: the {spec.name} model's factory builds a {type(estimator).__name__}, not "
                             f"the {kind.name} its kind restores")
    if kind.untested():
        raise UntestedReleaseError(kind.untested())
    sizes = Sizes({"labels": tuple(labels), **({"n_features": width} if width is not None else {})})
    values = kind.schema.values(raw["state"], reader, "estimator", sizes)
    try:
        return kind.restore(estimator, values, sizes), kind
    except StateError as exc:
        raise StateError(f"estimator: {exc}") from None


PROBE = ("A man is sleeping .", "A person is sleeping .", ("A", "man", "is", "sleeping", "."),
         ("DT", "NN", "VBZ", "VBG", "."), ("a", "man", "be", "sleep", "."))
# The probe's parses, read off its trees, so that loading a model whose types read parses runs no
# parser and writes no cache entry: loading a model writes nothing.
PROBE_TREE = "(ROOT (S (NP (DT A) (NN {})) (VP (VBZ is) (VP (VBG sleeping))) (. .)))"


def _probe(predictor: Predictor, path: Path) -> None:
    """Label one pair, tagged by hand, after every check has passed: the last guard that the
    parts fit together, failing here with the file's name rather than later."""
    premise, hypothesis, tokens, tags, lemmas = PROBE
    pair = Pair("probe", premise, hypothesis, None, tokens, tags, tokens[:1] + ("person",) + tokens[2:], tags,
                lemmas, lemmas[:1] + ("person",) + lemmas[2:], premise_tree=PROBE_TREE.format("man"),
                hypothesis_tree=PROBE_TREE.format("person"))
    probe = _Annotated([pair], predictor)  # as it is: loading a model never runs a tagger
    try:
        with np.errstate(all="ignore"):
            label = predictor.predict(probe)[0]
            proba = predictor.predict_proba(probe)
    except WordNetMissingError:
        raise
    except Exception as exc:  # a check this format lacks: say which file
        raise ModelFileError(f"{path}: damaged model file: it cannot label a pair ({type(exc).__name__}: "
                             f"{str(exc)[:200]})") from None
    if predictor.task.is_scores:
        low, high = predictor.task.score_range or (-np.inf, np.inf)
        if not (np.isfinite(label) and low <= label <= high):
            raise ModelFileError(f"{path}: damaged model file: it predicts the score {label!r:.60}, not a finite "
                                 "number in its task's range")
    elif str(label) not in set(predictor.labels):
        raise ModelFileError(f"{path}: damaged model file: it predicts {str(label)[:60]!r}, not one of its labels")
    if proba is not None and not np.isfinite(np.asarray(proba[1], dtype=np.float64)).all():
        raise ModelFileError(f"{path}: damaged model file: its probabilities are not finite")
