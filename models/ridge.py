"""Ridge regression over the sparse feature matrix, for tasks whose target is a score (STS-B,
SICK relatedness): the counterpart of logistic regression."""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, lsqr
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.utils.validation import check_is_fitted, validate_data

from nli_baselines.features.storage.schema import Array, Bool, Float, Int, Optional, Schema, require, set_fitted

from .common import TrainingDataError, check_training_scores, one_blas_thread
from .spec import ModelSpec, Tuning
from .state import EstimatorKind

ALPHA_GRID = (0.3, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0)
# A best alpha at an end of the grid extends it, a step at a time, up to these limits.
ALPHA_LIMITS = (1e-3, 1e6)
# LSQR's stopping rule is relative (||X'r|| <= tol ||X|| ||r||, and the residual's own test), the
# same for every alpha and wherever a fit starts, so a warm-started path stops each fit where a
# cold one would. On STS-B train (5,749 pairs, the strongest group) fits to 1e-4 and to 1e-8 score
# the same dev Pearson to four decimals.
TOL = 1e-4


class RidgeRegressor(RegressorMixin, BaseEstimator):
    """L2-regularized least squares on the sparse feature matrix: minimizes
    ||X w + b - y||^2 + alpha ||w||^2 (the intercept b unpenalized), as scikit-learn's Ridge.

    Solved by LSQR (scipy) on the implicitly centred matrix, in float64, so the sparse matrix is
    never densified; `fit_path` fits a grid of alphas in order, each fit starting from the
    previous solution.

    alpha: regularization strength; experiments choose it from `ALPHA_GRID` as they choose C.
    score_range: (lowest, highest) gold score of the task; predictions are clipped to it. The
        drivers set it from the task (the spec's `range_param`); None: no clipping.
    tol, max_iter: LSQR's relative tolerance and iteration cap (None: scipy's, 2 x columns).
    Fitted: `coef_`, `intercept_`, `n_iter_`, `converged_` (stopped on its tolerance, not the
    cap), `range_` (the range it clips to), `n_features_in_`.
    """

    def __init__(self, *, alpha: float = 1.0, score_range: tuple[float, float] | None = None, tol: float = TOL,
                 max_iter: int | None = None):
        self.alpha = alpha
        self.score_range = score_range
        self.tol = tol
        self.max_iter = max_iter

    def fit(self, X, y):
        problem = self._prepare(X, y)
        self._solve(problem, None)
        return self

    def fit_path(self, X, y, alphas, *, start=None):
        """Fit at each alpha of `alphas` in turn, each from the previous solution (the first from
        `start`, a fitted RidgeRegressor or a list of them with the nearest last, or from zero);
        yield each fitted model (a clone of this one with that alpha) as soon as it is fitted."""
        problem = self._prepare(X, y)
        fits = start if isinstance(start, (list, tuple)) else [start] if start is not None else []
        previous = next((f.coef_ for f in reversed(fits) if getattr(f, "coef_", None) is not None
                         and f.coef_.shape == (problem.n_features,)), None)
        for alpha in alphas:
            model = clone(self).set_params(alpha=alpha)
            previous = model._solve(problem, previous)
            yield model

    def _prepare(self, X, y) -> "_Problem":
        if y is not None:
            check_training_scores(y)
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=[np.float64, np.float32], y_numeric=True)
        return _Problem(X, check_training_scores(y))

    def _solve(self, problem: "_Problem", start) -> np.ndarray:
        if not (np.isfinite(self.alpha) and self.alpha >= 0):
            raise ValueError(f"alpha must be a finite number >= 0, got {self.alpha!r}")
        with one_blas_thread():  # the same weights on any number of cores (the intercept's dot product too)
            coef, self.n_iter_, self.converged_ = problem.solve(self.alpha, self.tol, self.max_iter, start)
            intercept = float(problem.y_mean - problem.x_mean @ coef)
        if not (np.isfinite(coef).all() and np.isfinite(intercept)):  # no NaN or infinity reaches a weight
            raise TrainingDataError(f"the ridge fit at alpha={self.alpha:g} gave weights that are not finite numbers; "
                                    "the feature values or the scores are too large for it")
        self.coef_ = coef
        self.intercept_ = intercept
        self.n_features_in_ = problem.n_features
        self.range_ = checked_range(self.score_range)
        return coef

    def predict(self, X):
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, reset=False, accept_sparse="csr", dtype=[np.float64, np.float32])
        scores = np.asarray(X @ self.coef_, dtype=np.float64).ravel() + self.intercept_
        return scores if self.range_ is None else np.clip(scores, *self.range_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def score_weights(self) -> np.ndarray:
        """(1, n_features): how much each column raises the predicted score."""
        check_is_fitted(self, "coef_")
        return self.coef_[None, :]


def checked_range(score_range):
    if score_range is None:
        return None
    low, high = (float(v) for v in score_range)
    if not (np.isfinite(low) and np.isfinite(high) and low < high):
        raise ValueError(f"score_range must be two finite numbers, the lower first, got {score_range!r}")
    return (low, high)


class _Problem:
    """X and y as LSQR sees them: X minus its column means (never formed: products correct for
    them), y minus its mean; the solution's intercept is recovered from the means."""

    def __init__(self, X, y: np.ndarray):
        self.X = X.astype(np.float64) if X.dtype != np.float64 else X
        if sp.issparse(self.X):
            self.Xt = self.X.T.tocsr()  # the transposed products run row-wise too
        else:
            self.Xt = self.X.T
        n, self.n_features = self.X.shape
        self.x_mean = np.asarray(self.X.mean(axis=0), dtype=np.float64).ravel()
        self.y_mean = float(y.mean())
        self.b = y - self.y_mean
        self.operator = LinearOperator((n, self.n_features), matvec=self._times, rmatvec=self._times_transposed,
                                       dtype=np.float64)

    def _times(self, w):
        return np.asarray(self.X @ w).ravel() - float(self.x_mean @ w)

    def _times_transposed(self, r):
        return np.asarray(self.Xt @ r).ravel() - self.x_mean * float(r.sum())

    def solve(self, alpha: float, tol: float, max_iter, start):
        damp = float(np.sqrt(alpha))
        if start is None:
            result = lsqr(self.operator, self.b, damp=damp, atol=tol, btol=tol, iter_lim=max_iter)
            coef = result[0]
        else:
            # scipy's x0 damps the correction, not the solution: from a start, solve the damped
            # problem as the plain least squares of [X; sqrt(alpha) I] w ~ [y; 0], for the step.
            start = np.asarray(start, dtype=np.float64)
            n = self.b.shape[0]
            stacked = LinearOperator(
                (n + self.n_features, self.n_features), dtype=np.float64,
                matvec=lambda w: np.concatenate([self._times(w), damp * w]),
                rmatvec=lambda r: self._times_transposed(r[:n]) + damp * r[n:])
            residual = np.concatenate([self.b - self._times(start), -damp * start])
            result = lsqr(stacked, residual, atol=tol, btol=tol, iter_lim=max_iter)
            coef = start + result[0]
        stop, iterations = int(result[1]), int(result[2])
        # LSQR's istop: 1 and 2 (4, 5 at machine precision) mean its tolerance was met, 0 that
        # the start is exact, 7 the iteration cap.
        return coef, iterations, stop in (0, 1, 2, 4, 5)


def _check_state(values, sizes) -> None:
    score_range = values["range_"]
    if score_range is not None:
        require(score_range[0] < score_range[1], "its score range is not (lowest, highest)")


STATE = EstimatorKind(RidgeRegressor, Schema("RidgeRegressor", {
    "coef_": Array("float64", ("n_features",)),
    "intercept_": Float(),
    "n_features_in_": Int(size="n_features"),
    "range_": Optional(Array("float64", (2,))),
    "n_iter_": Int(), "converged_": Bool(),
}, check=_check_state, build=lambda values, sizes: _restored(RidgeRegressor(), values)),
    restore=lambda estimator, values, sizes: _restored(estimator, values))


def _restored(estimator, values):
    values = dict(values)
    if values["range_"] is not None:
        values["range_"] = (float(values["range_"][0]), float(values["range_"][1]))
    return set_fitted(estimator, values)


ALPHA_VALUE = Float(lo=0.0, hi=ALPHA_LIMITS[1] * 10)


def _run_ridge() -> RidgeRegressor:
    return RidgeRegressor()


SPEC = ModelSpec(
    name="ridge",
    factory=_run_ridge,
    title="ridge regression",
    input="matrix",
    target="scores",
    counterpart="lr",
    range_param="score_range",
    min_classes=1,
    tuning=Tuning(grid={"alpha": ALPHA_GRID}, extend={"alpha": ALPHA_LIMITS}, path="alpha", stronger="larger"),
    hyperparameters={"alpha": ALPHA_VALUE},
    state=STATE,
    weights=RidgeRegressor.score_weights,
    describe=lambda model: {"solver": "lsqr", "iterations": model.n_iter_, "converged": model.converged_},
)
