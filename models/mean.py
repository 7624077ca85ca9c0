"""The mean score: a score task's reference row, as the majority class is a label task's."""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from nli_baselines.features.storage.schema import Float, Schema, set_fitted

from .common import check_training_scores
from .spec import ModelSpec
from .state import EstimatorKind


class MeanRegressor(RegressorMixin, BaseEstimator):
    """Predicts the mean training score for every input (its input is never read, so it takes a
    feature matrix or a list of pairs). Its correlation with any gold scores is undefined (a
    constant), reported as n/a; its errors are the floor a model must get under."""

    def fit(self, X, y):
        self.mean_ = float(check_training_scores(y).mean())
        return self

    def predict(self, X):
        check_is_fitted(self, "mean_")
        return np.full(X.shape[0] if hasattr(X, "shape") else len(X), self.mean_)


STATE = EstimatorKind(MeanRegressor, Schema("MeanRegressor", {"mean_": Float()},
                                            build=lambda values, sizes: set_fitted(MeanRegressor(), values)),
                      restore=lambda estimator, values, sizes: set_fitted(estimator, values))

SPEC = ModelSpec(
    name="mean",
    factory=MeanRegressor,
    title="mean score",
    input="pairs",
    target="scores",
    counterpart="majority",
    min_classes=1,
    reference=True,
    state=STATE,
    describe=lambda model: {"mean": model.mean_},
)
