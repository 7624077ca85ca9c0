"""Logistic regression over the sparse feature matrix (multinomial for three classes)."""
from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.utils.validation import check_is_fitted

from .common import check_training_labels
from .spec import ModelSpec, Tuning

C_GRID = (0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0)
# A best C at an end of the grid extends the grid, a step (x3.16) at a time, up to these limits.
C_LIMITS = (1e-5, 1000.0)
AUTO_SAGA_FROM = 100_000  # training pairs
SOLVER_TOL = {"newton-cg": 1e-3, "saga": 1e-2, "sag": 1e-2, "lbfgs": 1e-4}


class LogisticClassifier(ClassifierMixin, BaseEstimator):
    """L2-regularized logistic regression (multinomial over 3+ classes) on the sparse feature matrix.

    C: inverse regularization strength; experiments choose it from `C_GRID` on the dev split
        (or by cross-validation where a corpus has no dev split) and report the choice.
    solver: scikit-learn's solver, or "auto": newton-cg below `AUTO_SAGA_FROM` training pairs,
        saga from there. newton-cg converges in a few Newton steps of sparse products; lbfgs keeps
        10 parameter copies (gigabytes at SNLI scale) and needs many more iterations; saga needs
        about the same number of epochs at any size, where newton-cg's inner iterations grow
        with the data (measurements: README, "Performance").
    tol: stopping tolerance; None takes `SOLVER_TOL` for the solver.
    """

    def __init__(self, *, C: float = 1.0, solver: str = "auto", max_iter: int = 100, tol: float | None = None,
                 random_state: int = 0):
        self.C = C
        self.solver = solver
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def fit(self, X, y):
        y = check_training_labels(y)
        solver = self.solver
        if solver == "auto":
            solver = "saga" if len(y) >= AUTO_SAGA_FROM else "newton-cg"
        self.solver_ = solver
        tol = self.tol if self.tol is not None else SOLVER_TOL.get(solver, 1e-4)
        self.model_ = LogisticRegression(C=self.C, solver=solver, max_iter=self.max_iter, tol=tol,
                                         random_state=self.random_state)
        with warnings.catch_warnings():
            # saga at its loose default tolerance may report non-convergence at max_iter; the
            # iteration count is in n_iter_ and the run record.
            warnings.simplefilter("ignore", ConvergenceWarning)
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


SPEC = ModelSpec(
    name="lr",
    factory=LogisticClassifier,
    title="logistic regression",
    input="matrix",
    tuning=Tuning(grid={"C": C_GRID}, extend={"C": C_LIMITS}),
    describe=lambda model: {"solver": model.solver_, "iterations": model.n_iter_},
)
