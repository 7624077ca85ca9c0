"""Estimators of the suite: `fit`/`predict`/`decision_function`/`classes_`, usable with clone and CV.

MODELS maps the `--model` names to specs (`models.spec`, where the registry lives); adding a
model is one module with the estimator and its spec, plus one `register_model` line here.
"""

if __name__ != "nli_baselines.models":  # the folder is a subpackage of nli_baselines, never a top-level name
    raise ImportError(f"{__name__} is the folder of nli_baselines.models: import nli_baselines.models "
                      "(pip install the suite; a checkout's root on sys.path does not make it a package of its own)")

from . import edit_distance, logistic, majority, mean, ridge, stacked
from .common import TrainingDataError
from .edit_distance import EditDistanceClassifier
from .logistic import C_GRID, LogisticClassifier
from .majority import MajorityClassifier
from .mean import MeanRegressor
from .ridge import ALPHA_GRID, RidgeRegressor
from .spec import DEFAULT_MODEL, DEFAULT_MODELS, MODELS, ModelSpec, Tuning, get_model, register_model, unregister_model
from .stacked import StackedClassifier, StackedRegressor

register_model(logistic.SPEC)
register_model(edit_distance.SPEC)
register_model(majority.SPEC)
register_model(stacked.SPEC)
register_model(ridge.SPEC)
register_model(stacked.REGRESSOR_SPEC)
register_model(mean.SPEC)

__all__ = ["ALPHA_GRID", "C_GRID", "DEFAULT_MODEL", "DEFAULT_MODELS", "EditDistanceClassifier", "LogisticClassifier", "MODELS",
           "MajorityClassifier", "MeanRegressor", "ModelSpec", "RidgeRegressor", "StackedClassifier", "StackedRegressor",
           "TrainingDataError", "Tuning", "get_model", "register_model", "unregister_model"]
