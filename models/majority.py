"""The majority-class baseline."""
from __future__ import annotations

import numpy as np
from sklearn.dummy import DummyClassifier

from .common import check_training_labels
from .spec import ModelSpec


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
        check_training_labels(y, min_classes=1)
        super().fit(X, y, sample_weight)
        self.majority_ = self.classes_[int(np.argmax(self.class_prior_))]
        return self


SPEC = ModelSpec(
    name="majority",
    factory=MajorityClassifier,
    title="majority class",
    input="pairs",
    min_classes=1,
    describe=lambda model: {"majority_label": str(model.majority_)},
    reference=True,
)
