"""Logistic regression over the sparse feature matrix (multinomial for three classes)."""
from __future__ import annotations

import warnings
from contextlib import nullcontext

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.utils.validation import check_is_fitted, validate_data

from nli_baselines.features.storage.schema import Bool, Choice, Float, Int, Optional, Part, Schema, require, set_fitted

from .common import check_training_labels, encode_labels, one_blas_thread
from .newton_pcg import NewtonProblem, threads
from .sklearn_kinds import LOGISTIC_REGRESSION
from .spec import ModelSpec, Tuning
from .state import CLASSES, EstimatorKind

C_GRID = (0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0)
# A best C at an end of the grid extends the grid, a step (x3.16) at a time, up to these limits.
C_LIMITS = (1e-5, 1000.0)
NEWTON = "newton-pcg"  # models/newton_pcg.py
# "auto" picks newton-pcg for three or more classes from this many training rows, scikit-learn's
# newton-cg below, where newton-pcg's cost per step loses (docs/performance.md).
NEWTON_FROM_ROWS = 100_000
# Stopping tolerance per solver. newton-pcg's is relative (LIBLINEAR's rule), so that the fits of a
# warm path stop where cold ones would. Below NEWTON_FROM_ROWS scikit-learn's newton-cg runs in
# float64 to an absolute 1e-8 on one BLAS thread: the fit is then the optimum's and the same on every
# CPU, where at 1e-4 in float32 it stopped wherever the last bits of BLAS's kernels had led its
# path. How each was chosen: docs/performance.md, "The logistic regression solver".
SOLVER_TOL = {NEWTON: 5e-4, "newton-cg": 1e-8, "saga": 1e-4, "sag": 1e-4, "lbfgs": 1e-4}
LARGE_NEWTON_CG_TOL = 1e-4  # newton-cg from NEWTON_FROM_ROWS rows (two classes), in the matrix's float32


class LogisticClassifier(ClassifierMixin, BaseEstimator):
    """L2-regularized logistic regression (multinomial over 3+ classes) on the sparse feature matrix.

    The objective is scikit-learn's: mean log-loss + ||w||^2 / (2 C n) (intercepts unpenalized).

    C: inverse regularization strength; experiments choose it from `C_GRID` on the dev split
        (or by cross-validation where a corpus has no dev split) and report the choice.
    solver: "auto", or "newton-pcg", or any scikit-learn solver. "auto" is newton-pcg for three
        or more classes and at least `NEWTON_FROM_ROWS` training rows, scikit-learn's newton-cg
        otherwise. newton-pcg is Newton's method whose steps come from conjugate gradients
        preconditioned by the Hessian's diagonal, with matrix products on threads in the
        matrix's float32: at SNLI scale it reaches the tolerance several times faster than
        newton-cg (saga stopped far from the optimum; lbfgs needs ~10x the products); on small
        matrices its per-step overhead loses to newton-cg (docs/performance.md).
    tol: stopping tolerance; None takes `SOLVER_TOL` for the solver.
    max_iter: Newton steps (epochs for sag/saga, iterations for lbfgs).
    warm_start: start from the weights of the previous fit (fitting along a grid of C, say).
    n_jobs: threads for newton-pcg's matrix products (None: every core, as OMP_NUM_THREADS allows).
    Fitted: `model_` (a scikit-learn LogisticRegression holding the weights, which predicts),
    `solver_`, `n_iter_`, and `converged_`: whether the solver stopped on its tolerance rather
    than at max_iter (a ConvergenceWarning says so too).
    """

    def __init__(self, *, C: float = 1.0, solver: str = "auto", max_iter: int = 100, tol: float | None = None,
                 random_state: int = 0, warm_start: bool = False, n_jobs: int | None = None):
        self.C = C
        self.solver = solver
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.warm_start = warm_start
        self.n_jobs = n_jobs

    def fit(self, X, y):
        X, classes, codes, solver = self._prepare(X, y)
        previous = self if self.warm_start and hasattr(self, "model_") else None
        if previous is not None and previous.model_.coef_.shape != (len(classes), X.shape[1]):
            previous = None  # other columns or classes: nothing to start from
        if solver == NEWTON:
            problem = NewtonProblem(X, codes, len(classes), threads(self.n_jobs))
            try:
                start = None if previous is None else (previous.model_.coef_.T, previous.model_.intercept_)
                self._fit_newton(problem, classes, start, previous.model_.C if previous is not None else None)
            finally:
                problem.close()
            return self
        # Exact below NEWTON_FROM_ROWS (see SOLVER_TOL); a two-class task beyond (QQP's 363,846 pairs)
        # keeps float32 at 1e-4, as newton-pcg's sums do at that scale: exact, it would cost a float64
        # copy of the matrix and more than twice the time (docs/performance.md).
        exact = X.shape[0] < NEWTON_FROM_ROWS
        tol = self._tol(solver) if exact or self.tol is not None or solver != "newton-cg" else LARGE_NEWTON_CG_TOL
        model = LogisticRegression(C=self.C, solver=solver, max_iter=self.max_iter, tol=tol,
                                   random_state=self.random_state, warm_start=previous is not None)
        # Columns no training row has get weight 0 at the optimum (only the penalty acts on them):
        # fit on the others (a learning-curve point of 10 pairs from SNLI's million-column matrix
        # fits about a thousand weights).
        present = _present_columns(X)
        X_fit = X if present is None else X[:, present]
        if previous is not None:
            coef = previous.model_.coef_
            model.coef_, model.intercept_ = (coef if present is None else coef[:, present]), previous.model_.intercept_
        # In float64 (scikit-learn would solve in the featurizer's float32), to a tight tolerance
        # (`SOLVER_TOL`), on one BLAS thread: so that the fit is the optimum's, not the solver's
        # path's, and the same on every CPU (`SOLVER_TOL`).
        with warnings.catch_warnings(record=True) as caught, (one_blas_thread() if exact else nullcontext()):
            warnings.simplefilter("always", ConvergenceWarning)
            model.fit(X_fit.astype(np.float64, copy=False) if exact else X_fit, y)
        if present is not None:
            _widen(model, present, X.shape[1])
        self.n_iter_ = int(np.max(model.n_iter_))
        self.converged_ = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
        self.start_C_ = previous.model_.C if previous is not None else None
        return self._fitted(model, solver, tol)

    def fit_path(self, X, y, Cs, *, start=None):
        """Fit at each C of `Cs` in turn; yield each fitted model (a clone of this one with that C)
        as soon as it is fitted, so that a caller can stop the path early.

        With newton-pcg (`solver` "auto" from `NEWTON_FROM_ROWS` rows) the path prepares the
        matrix once and starts each fit from the previous one's solution (the first from
        `start`, a fitted LogisticClassifier, or from the secant through a list of two, the
        nearer last; or from zero; from the third on, from the secant through the previous
        two): the relative stopping rule stops every fit at the same
        gradient norm wherever it starts, so a warm fit ends as close to its optimum as a cold
        one (docs/performance.md). Other solvers fit each C from zero: scikit-learn's rules
        are absolute, and below `NEWTON_FROM_ROWS` rows cold fits are cheap.
        """
        X, classes, codes, solver = self._prepare(X, y)
        if solver != NEWTON:
            for C in Cs:
                yield clone(self).set_params(C=C, warm_start=False).fit(X, y)
            return
        problem = NewtonProblem(X, codes, len(classes), threads(self.n_jobs))
        try:
            # (C, W, b) of the last two fits, in float64: the start of the next fit.
            history = []
            for fitted in (start if isinstance(start, (list, tuple)) else [start] if start is not None else []):
                if fitted.model_.coef_.shape == (len(classes), X.shape[1]):
                    history = [*history[-1:], (fitted.C, fitted.model_.coef_.T.astype(np.float64),
                                               fitted.model_.intercept_.astype(np.float64))]
            for C in Cs:
                model = clone(self).set_params(C=C)
                begin = _predicted_start(history, C) if history else None
                W, b = model._fit_newton(problem, classes, begin, history[-1][0] if history else None)
                history = [*history[-1:], (C, W, b)]
                yield model
        finally:
            problem.close()

    def _prepare(self, X, y):
        """Checked X (CSR or array, float32 kept: newton-pcg's products run in the matrix's
        precision), the classes, each row's class index, and the solver "auto" resolves to."""
        if y is not None:
            check_training_labels(y)  # the suite's messages for an empty or one-class training set
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=[np.float64, np.float32])
        classes, codes = encode_labels(y)
        solver = self.solver
        if solver == "auto":
            solver = NEWTON if len(classes) > 2 and X.shape[0] >= NEWTON_FROM_ROWS else "newton-cg"
        if solver == NEWTON and len(classes) < 3:
            raise ValueError(f"solver {NEWTON!r} fits three or more classes; use 'newton-cg' for two")
        return X, classes, codes, solver

    def _tol(self, solver: str) -> float:
        return self.tol if self.tol is not None else SOLVER_TOL.get(solver, 1e-4)

    def _fit_newton(self, problem: NewtonProblem, classes, start=None, start_C=None):
        """Fit by newton-pcg on a prepared problem, from `start` ((W, b) over all columns; the
        solution at `start_C`, or a prediction from earlier solutions) or from zero. Returns the
        solution (W, b) in float64."""
        tol = self._tol(NEWTON)
        W, b, self.n_iter_, self.converged_ = problem.solve(self.C, tol, self.max_iter, start)
        self.start_C_ = start_C if start is not None else None
        model = LogisticRegression(C=self.C, solver="newton-cg", max_iter=self.max_iter, tol=tol,
                                   random_state=self.random_state)
        model.coef_, model.intercept_ = W.T.astype(problem.dtype), b.astype(problem.dtype)
        model.classes_, model.n_features_in_ = classes, problem.n_features
        model.n_iter_ = np.array([self.n_iter_])
        self.n_features_in_ = problem.n_features  # a path's fits are clones that never saw X themselves
        self._fitted(model, NEWTON, tol)
        return W, b

    def _fitted(self, model, solver: str, tol: float):
        if not self.converged_:
            warnings.warn(f"logistic regression ({solver}, C={self.C}) stopped after {self.n_iter_} steps "
                          f"(max_iter={self.max_iter}) before reaching tol={tol}", ConvergenceWarning, stacklevel=3)
        self.solver_ = solver
        self.model_ = model
        self.classes_ = model.classes_
        return self

    def predict(self, X):
        X = self._checked(X)
        return self.model_.predict(X)

    def predict_proba(self, X):
        X = self._checked(X)
        return self.model_.predict_proba(X)

    def decision_function(self, X):
        X = self._checked(X)
        return self.model_.decision_function(X)

    def _checked(self, X):
        check_is_fitted(self, "model_")
        return validate_data(self, X, reset=False, accept_sparse="csr", dtype=[np.float64, np.float32])

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def class_weights(self) -> np.ndarray:
        """(n_classes, n_features) weights; a two-class model's single row is expanded to +w / -w."""
        check_is_fitted(self, "model_")
        coef = self.model_.coef_
        return np.vstack([-coef[0], coef[0]]) if coef.shape[0] == 1 else coef


def _present_columns(X) -> np.ndarray | None:
    """Indices of the columns with a stored value in some row, or None when every column has one
    (or none has: nothing to leave out)."""
    if sp.issparse(X):
        present = np.zeros(X.shape[1], dtype=bool)
        present[X.indices] = True
    else:
        present = np.any(X != 0, axis=0)
    if present.all() or not present.any():
        return None
    return np.flatnonzero(present)


def _widen(model: LogisticRegression, present: np.ndarray, n_features: int) -> None:
    """A model fitted on the columns `present` made one of all `n_features`: 0 for the others."""
    coef = np.zeros((model.coef_.shape[0], n_features), dtype=model.coef_.dtype)
    coef[:, present] = model.coef_
    model.coef_, model.n_features_in_ = coef, n_features


def _predicted_start(history: list, C: float):
    """Where a path's next fit starts: the previous solution, or with two of them, the line
    through both extended to C in log C (a secant predictor: along the path the weights move
    smoothly in log C, so the next fit starts nearer its optimum)."""
    (C1, W1, b1) = history[-1]
    if len(history) < 2 or history[-2][0] == C1:
        return W1, b1
    (C0, W0, b0) = history[-2]
    t = np.log(C / C1) / np.log(C1 / C0)
    return W1 + t * (W1 - W0), b1 + t * (b1 - b0)






























def _check_state(values, sizes) -> None:
    require(list(values["model_"].classes_) == list(values["classes_"]),
            "the weights' classes are not the model's classes")


STATE = EstimatorKind(LogisticClassifier, Schema("LogisticClassifier", {
    "model_": Part(LOGISTIC_REGRESSION),
    "classes_": CLASSES,
    "n_features_in_": Int(size="n_features"),
    "solver_": Choice((NEWTON, "newton-cg", "newton-cholesky", "lbfgs", "liblinear", "sag", "saga")),
    "n_iter_": Int(), "converged_": Bool(), "start_C_": Optional(Float(lo=0.0, open_lo=True)),
}, check=_check_state, build=lambda values, sizes: set_fitted(LogisticClassifier(), values)),
    restore=lambda estimator, values, sizes: set_fitted(estimator, values))
# C as tuning may choose it (the grid extended to its limits); the only parameter a file sets.
C_VALUE = Float(lo=C_LIMITS[0] / 10, hi=C_LIMITS[1] * 10)



def _run_logistic(random_state: int = 0) -> LogisticClassifier:
    """The runs' logistic regression. It takes no worker count: --jobs counts the processes of a
    grid, while one fit's matrix products run on threads over every core, as the featurizer's
    lanes do (inside a grid's worker, as many as OMP_NUM_THREADS gives it)."""
    return LogisticClassifier(random_state=random_state)


SPEC = ModelSpec(
    name="lr",
    factory=_run_logistic,
    title="logistic regression",
    input="matrix",
    tuning=Tuning(grid={"C": C_GRID}, extend={"C": C_LIMITS}, path="C"),
    hyperparameters={"C": C_VALUE},
    state=STATE,
    counterpart="ridge",
    weights=LogisticClassifier.class_weights,
    describe=lambda model: {"solver": model.solver_, "iterations": model.n_iter_, "converged": model.converged_,
                            **({"warm_from_C": model.start_C_} if getattr(model, "start_C_", None) is not None
                               else {})},
)
