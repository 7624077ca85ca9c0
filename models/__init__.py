"""Estimators of the suite: `fit`/`predict`/`decision_function`/`classes_`, usable with clone and CV.

MODELS maps the `--model` names to factories; adding a model is one entry.
"""
from .common import TrainingDataError
from .edit_distance import EditDistanceClassifier
from .logistic import C_GRID, LogisticClassifier
from .majority import MajorityClassifier

MODELS = {
    "lr": LogisticClassifier,
    "edit_distance": EditDistanceClassifier,
    "majority": MajorityClassifier,
}
# Models that read pairs rather than the feature matrix.
PAIR_INPUT = frozenset({"edit_distance"})

__all__ = ["C_GRID", "EditDistanceClassifier", "LogisticClassifier", "MODELS", "MajorityClassifier",
           "PAIR_INPUT", "TrainingDataError"]
