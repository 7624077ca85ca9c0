"""Logistic regression over the sparse feature matrix (multinomial for three classes)."""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression
from sklearn.utils.validation import check_is_fitted

from .common import check_training_labels

C_GRID = (0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0)


class LogisticClassifier(ClassifierMixin, BaseEstimator):
    """L2-regularized logistic regression (lbfgs: multinomial over 3+ classes), float32 sparse input.

    C: inverse regularization strength; experiments pick it from `C_GRID` on the dev split
        (or by cross-validation where a corpus has no dev split) and report the choice.
    """

    def __init__(self, *, C: float = 1.0, max_iter: int = 300, tol: float = 1e-4, random_state: int = 0):
        self.C = C
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def fit(self, X, y):
        y = check_training_labels(y)
        self.model_ = LogisticRegression(C=self.C, solver="lbfgs", max_iter=self.max_iter, tol=self.tol,
                                         random_state=self.random_state)
        self.model_.fit(X, y)
        self.classes_ = self.model_.classes_
        self.n_iter_ = int(np.max(self.model_.n_iter_))
        return self

    def predict(self, X):
        check_is_fitted(self, "model_")
        return self.model_.predict(X)

    def predict_proba(self, X):
        check_is_fitted(self, "model_")
        return self.model_.predict_proba(X)

    def decision_function(self, X):
        check_is_fitted(self, "model_")
        return self.model_.decision_function(X)

    def class_weights(self) -> np.ndarray:
        """(n_classes, n_features) weights; a two-class model's single row is expanded to +w / -w."""
        check_is_fitted(self, "model_")
        coef = self.model_.coef_
        return np.vstack([-coef[0], coef[0]]) if coef.shape[0] == 1 else coef
