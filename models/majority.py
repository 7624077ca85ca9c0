"""The majority-class baseline."""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .common import check_training_labels
from .spec import ModelSpec


class MajorityClassifier(ClassifierMixin, BaseEstimator):
    """Predicts the most frequent training label (ties: the first in sorted order) for every input."""

    def fit(self, X, y):
        y = check_training_labels(y, min_classes=1)
        self.classes_, counts = np.unique(y, return_counts=True)
        self.prior_ = counts / counts.sum()
        self.majority_ = self.classes_[np.argmax(counts)]
        return self

    def predict(self, X):
        check_is_fitted(self, "majority_")
        return np.full(_n_rows(X), self.majority_, dtype=object)

    def predict_proba(self, X):
        check_is_fitted(self, "prior_")
        return np.tile(self.prior_, (_n_rows(X), 1))

    def decision_function(self, X):
        return np.log(self.predict_proba(X))


def _n_rows(X) -> int:
    return X.shape[0] if hasattr(X, "shape") else len(X)


SPEC = ModelSpec(
    name="majority",
    factory=MajorityClassifier,
    title="majority class",
    input="pairs",
    min_classes=1,
    describe=lambda model: {"majority_label": str(model.majority_)},
)
