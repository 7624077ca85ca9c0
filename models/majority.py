"""The majority-class baseline."""
from __future__ import annotations

import numpy as np
from sklearn.dummy import DummyClassifier

from nli_baselines.features.storage.schema import Array, Schema, Text, require, set_fitted

from .common import check_training_labels, encode_labels
from .spec import ModelSpec
from .state import CLASSES, EstimatorKind


class MajorityClassifier(DummyClassifier):
    """Predicts the most frequent training label (ties: the first in sorted order) for every input.

    scikit-learn's DummyClassifier with the "prior" strategy: predict_proba gives the training
    label distribution. Its input is never read, so it takes a feature matrix or a list of pairs.
    """

    def __init__(self):
        super().__init__(strategy="prior")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = False  # one label per pair
        return tags

    def fit(self, X, y, sample_weight=None):
        y = check_training_labels(y, min_classes=1)
        if y.ndim == 1:
            # Fitted on class indices, then given the labels back: scikit-learn's np.unique of
            # Python strings sorts every label (0.3 s at SNLI scale, for a reference row).
            classes, codes = encode_labels(y)
            super().fit(X, codes, sample_weight)
            self.classes_ = classes[self.classes_]
        else:
            super().fit(X, y, sample_weight)
        self.majority_ = self.classes_[int(np.argmax(self.class_prior_))]
        return self


def _check_state(values, sizes) -> None:
    prior = values["class_prior_"]
    require(abs(prior.sum() - 1) < 1e-6, "the class prior does not sum to 1")
    require(values["majority_"] == values["classes_"][int(np.argmax(prior))], "the majority is not the most frequent class")


def _restore(estimator, values, sizes):
    set_fitted(estimator, values)
    estimator._strategy, estimator.sparse_output_, estimator.n_outputs_ = "prior", False, 1
    estimator.n_classes_ = len(values["classes_"])
    return estimator


STATE = EstimatorKind(MajorityClassifier, Schema("MajorityClassifier", {
    "classes_": CLASSES,
    "class_prior_": Array("float64", ("n_classes",), lo=0.0, hi=1.0),
    "majority_": Text(),
}, check=_check_state), restore=_restore)

SPEC = ModelSpec(
    name="majority",
    factory=MajorityClassifier,
    title="majority class",
    input="pairs",
    min_classes=1,
    state=STATE,
    describe=lambda model: {"majority_label": str(model.majority_)},
    reference=True,
    counterpart="mean",
)
