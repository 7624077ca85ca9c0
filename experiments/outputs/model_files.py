"""A fitted model ready to label new pairs, and its one-file saved form."""
from __future__ import annotations

import pickle
from dataclasses import dataclass, field
from pathlib import Path

import joblib
import numpy as np

from features.atomic import atomic_path
from features.combine import PairFeaturizer
from models import get_model

from .. import __version__

MODEL_FORMAT = "nli-baselines-model"
MODEL_FORMAT_VERSION = 1


class ModelFileError(ValueError):
    """A file that is not a saved model, or one this version of the suite cannot use."""


@dataclass
class Predictor:
    """Featurizer (vocabulary and all) + classifier + the label set, as fitted by a run."""

    model_name: str
    model: object
    featurizer: PairFeaturizer | None
    columns: np.ndarray | None  # the featurizer columns the model reads; None = all
    labels: list[str]
    two_class: bool
    info: dict = field(default_factory=dict)  # dataset, C, features: recorded for the reader

    def _inputs(self, pairs):
        if not get_model(self.model_name).uses_features:
            return list(pairs)
        X = self.featurizer.transform(pairs)
        return X if self.columns is None else X[:, self.columns]

    def predict(self, pairs) -> np.ndarray:
        pairs = list(pairs)
        if not pairs:
            return np.array([], dtype=object)
        return np.asarray(self.model.predict(self._inputs(pairs)), dtype=object)

    def predict_proba(self, pairs) -> tuple[list[str], np.ndarray] | None:
        """(class order, probabilities), or None for models without probabilities (edit distance)."""
        if not hasattr(self.model, "predict_proba"):
            return None
        return [str(c) for c in self.model.classes_], self.model.predict_proba(self._inputs(list(pairs)))

    def save(self, path: Path | str) -> None:
        """One file: featurizer configuration and vocabulary, classifier, labels, suite version."""
        with atomic_path(path) as tmp:
            joblib.dump({"format": MODEL_FORMAT, "format_version": MODEL_FORMAT_VERSION,
                         "suite_version": __version__, "predictor": self}, tmp, compress=3)


def load_predictor(path: Path | str) -> Predictor:
    """Load a saved model; a file that is not one, or from an incompatible version, is a ModelFileError.

    Model files are pickles: load only files you trust.
    """
    path = Path(path)
    if not path.is_file():
        raise ModelFileError(f"{path}: no such model file")
    try:
        content = joblib.load(path)
    except (pickle.UnpicklingError, EOFError, ValueError, KeyError, IndexError, TypeError, AttributeError,
            ImportError, ModuleNotFoundError, OSError) as exc:
        raise ModelFileError(f"{path}: not a model file of this suite ({type(exc).__name__}: {exc})") from None
    if not isinstance(content, dict) or content.get("format") != MODEL_FORMAT:
        raise ModelFileError(f"{path}: not a model file of this suite (no {MODEL_FORMAT!r} marker)")
    version = content.get("suite_version", "?")
    if content.get("format_version") != MODEL_FORMAT_VERSION or _major_minor(version) != _major_minor(__version__):
        raise ModelFileError(f"{path}: saved by nli-baselines {version} (model format "
                             f"{content.get('format_version')}); this is {__version__} (format "
                             f"{MODEL_FORMAT_VERSION}). Retrain the model with this version.")
    return content["predictor"]


def _major_minor(version: str) -> tuple[str, ...]:
    return tuple(str(version).split(".")[:2])
