"""Stacked models: gradient-boosted trees over the real-valued columns and the out-of-fold
probabilities of logistic regression on the sparse indicator columns (`StackedClassifier`), or,
for a score task, the out-of-fold predictions of ridge regression (`StackedRegressor`)."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from sklearn.model_selection import KFold, StratifiedKFold, cross_val_predict
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import threadpool_limits

from nli_baselines.features.storage.schema import (Array, Float, Int, Mapping_, Optional, Part, Schema, StateError,
                                                   require, set_fitted)

from .common import check_training_labels, check_training_scores
from .logistic import C_GRID
from .logistic import STATE as LOGISTIC_STATE
from .logistic import LogisticClassifier
from .ridge import ALPHA_GRID
from .ridge import STATE as RIDGE_STATE
from .ridge import RidgeRegressor, checked_range
from .sklearn_kinds import HIST_GRADIENT_BOOSTING, HIST_GRADIENT_BOOSTING_REGRESSOR
from .spec import ModelSpec
from .state import CLASSES, EstimatorKind


class StackedClassifier(ClassifierMixin, BaseEstimator):
    """HistGradientBoosting over [real-valued columns, out-of-fold LR probabilities], blended with LR.

    Logistic regression (`LogisticClassifier`) reads the indicator columns (lexicalized
    features, binned copies; by default the real values too), where it is strong; the trees read the real-valued columns
    (BLEU, overlap, WordNet, alignment, syntax, quantifiers ...), where interactions matter
    (an unaligned noun means little when every verb aligns), plus LR's class probabilities.
    The probabilities the trees learn from are out of fold (`cross_val_predict` over `cv`
    stratified folds), so the trees never see LR's training-set overconfidence; at predict
    time LR is the one fitted on all training rows.

    dense_columns: boolean mask (or column indices) of the real-valued columns. The experiment
        drivers set it from the featurizer (`PairFeaturizer.real_valued_mask`, via the spec's
        `real_valued_param`); None: columns holding any value other than 0 and 1.
    C: the LR's inverse regularization; None: chosen in `fit` from `C_grid` by the accuracy of
        the out-of-fold predictions over the same folds (so no data beyond train is used).
    lr_columns: "all" (LR reads every column, as the plain `lr` model does) or "sparse" (only the
        indicator columns: the trees alone see the real values). "all" scored better by 5-fold CV
        on SICK train (docs/models-and-runs.md, "The strongest baseline").
    blend: the weight of LR's own probabilities in the output, (1 - blend) * trees + blend * LR
        (0: the trees alone); 0.5 scored better than 0 by the same CV.
    cv: folds of the out-of-fold probabilities (and of choosing C).
    learning_rate, max_iter, max_leaf_nodes, min_samples_leaf, l2_regularization: of
        scikit-learn's HistGradientBoostingClassifier (no early stopping: every fit uses all
        training rows and is deterministic for a given random_state). Defaults chosen by 5-fold
        CV on SICK train (docs/models-and-runs.md, "The strongest baseline").
    random_state: seeds the folds and the trees.
    n_jobs: worker processes for the out-of-fold LR fits, and OpenMP threads for the trees.
    Fitted: `lr_` (LogisticClassifier on all rows), `trees_` (the boosted trees), `n_iter_`, `C_`,
    `lr_scores_` (C -> out-of-fold accuracy), `dense_mask_`, `classes_`.
    """

    def __init__(self, *, dense_columns=None, C: float | None = None, C_grid=C_GRID, lr_columns: str = "all",
                 blend: float = 0.5, cv: int = 5, learning_rate: float = 0.05, max_iter: int = 200, max_leaf_nodes: int = 15,
                 min_samples_leaf: int = 20, l2_regularization: float = 1.0, random_state: int = 0,
                 n_jobs: int | None = 1):
        self.dense_columns = dense_columns
        self.C = C
        self.C_grid = C_grid
        self.lr_columns = lr_columns
        self.blend = blend
        self.cv = cv
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.max_leaf_nodes = max_leaf_nodes
        self.min_samples_leaf = min_samples_leaf
        self.l2_regularization = l2_regularization
        self.random_state = random_state
        self.n_jobs = n_jobs

    def fit(self, X, y):
        if y is not None:
            check_training_labels(y)  # the suite's messages for an empty or one-class training set
        if self.lr_columns not in ("sparse", "all"):
            raise ValueError(f"lr_columns must be 'sparse' or 'all', got {self.lr_columns!r}")
        if not 0 <= self.blend <= 1:
            raise ValueError(f"blend must be between 0 and 1, got {self.blend!r}")
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=[np.float64, np.float32])
        self.dense_mask_ = self._mask(X)
        dense, sparse_part = self._split(X)
        y = np.asarray(y)
        counts = np.unique(y, return_counts=True)[1]
        folds = StratifiedKFold(max(2, min(self.cv, int(counts.min()))), shuffle=True,
                                random_state=self.random_state)
        splits = list(folds.split(np.zeros(len(y)), y))
        grid = [self.C] if self.C is not None else sorted(self.C_grid)
        self.lr_scores_, best = {}, None
        for C in grid:
            proba = cross_val_predict(LogisticClassifier(C=C, random_state=self.random_state), sparse_part, y,
                                      cv=splits, method="predict_proba", n_jobs=self.n_jobs)
            classes = np.unique(y)
            accuracy = float(np.mean(classes[proba.argmax(axis=1)] == y))
            self.lr_scores_[C] = accuracy
            if best is None or accuracy > best[1]:  # ties keep the smaller C
                best = (C, accuracy, proba)
        self.C_, _, out_of_fold = best
        self.trees_ = HistGradientBoostingClassifier(
            learning_rate=self.learning_rate, max_iter=self.max_iter, max_leaf_nodes=self.max_leaf_nodes,
            min_samples_leaf=self.min_samples_leaf, l2_regularization=self.l2_regularization,
            early_stopping=False, random_state=self.random_state)
        with self._threads():
            self.trees_.fit(np.hstack([dense, out_of_fold]), y)
        self.lr_ = LogisticClassifier(C=self.C_, random_state=self.random_state).fit(sparse_part, y)
        self.classes_ = self.trees_.classes_
        self.n_iter_ = self.trees_.n_iter_
        return self

    def _mask(self, X) -> np.ndarray:
        n = X.shape[1]
        if self.dense_columns is None:
            if sp.issparse(X):
                data = X.data
                odd = (data != 0) & (data != 1)
                mask = np.zeros(n, dtype=bool)
                mask[X.indices[odd]] = True
                return mask
            return ((X != 0) & (X != 1)).any(axis=0)
        given = np.asarray(self.dense_columns)
        if given.dtype == bool:
            if len(given) != n:
                raise ValueError(f"dense_columns has {len(given)} entries for {n} columns")
            return given.copy()
        mask = np.zeros(n, dtype=bool)
        mask[given.astype(np.int64)] = True
        return mask

    def _split(self, X):
        mask = self.dense_mask_
        dense = X[:, np.flatnonzero(mask)]
        dense = dense.toarray() if sp.issparse(dense) else np.asarray(dense)
        sparse_part = X if self.lr_columns == "all" else X[:, np.flatnonzero(~mask)]
        return dense.astype(np.float64), sparse_part

    def _stacked(self, X):
        check_is_fitted(self, "trees_")
        X = validate_data(self, X, reset=False, accept_sparse="csr", dtype=[np.float64, np.float32])
        dense, sparse_part = self._split(X)
        return np.hstack([dense, self.lr_.predict_proba(sparse_part)])

    def _threads(self):
        """The trees' OpenMP threads: n_jobs of them (None or -1: every core). On a shared
        machine, more OpenMP threads than free cores spin and slow the fit down many times."""
        return threadpool_limits(None if self.n_jobs in (None, -1) else max(1, int(self.n_jobs)), user_api="openmp")

    def predict_proba(self, X):
        stacked = self._stacked(X)
        with self._threads():
            trees = self.trees_.predict_proba(stacked)
        return (1 - self.blend) * trees + self.blend * stacked[:, -len(self.classes_):]

    def predict(self, X):
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def decision_function(self, X):
        """Log-probabilities of the classes, or for two classes the log-odds of `classes_[1]`
        (scikit-learn's convention); ranks agree with predict_proba."""
        log_proba = np.log(np.clip(self.predict_proba(X), 1e-300, None))
        return log_proba[:, 1] - log_proba[:, 0] if len(self.classes_) == 2 else log_proba

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def _describe(model) -> dict:
    return {"chosen_inside": {"C": model.C_}, "lr_C": model.C_, "lr_out_of_fold_accuracy": model.lr_scores_[model.C_],
            "dense_columns": int(model.dense_mask_.sum()), "trees": int(model.trees_.n_iter_)}


def _check_state(values, sizes) -> None:
    classes = list(values["classes_"])
    require(list(values["lr_"].classes_) == classes and list(values["trees_"].classes_) == classes,
            "its parts do not share its classes")
    n_dense = int(values["dense_mask_"].sum())
    require(values["trees_"].n_features_in_ == n_dense + len(classes),
            f"the trees read {values['trees_'].n_features_in_} columns, not the {n_dense} real-valued columns "
            f"and {len(classes)} probabilities")
    require(values["C_"] in values["lr_scores_"], "its C has no out-of-fold score")


def _restore(estimator, values, sizes):
    """Set on a factory-built StackedClassifier: its LR must read the columns its `lr_columns` says."""
    n_sparse = sizes["n_features"] if estimator.lr_columns == "all" else int((~values["dense_mask_"]).sum())
    if values["lr_"].n_features_in_ != n_sparse:
        raise StateError(f"its logistic regression reads {values['lr_'].n_features_in_} columns, not the "
                         f"{n_sparse} that lr_columns={estimator.lr_columns!r} gives it")
    return set_fitted(estimator, values)


class _Scores(Mapping_):
    """C -> out-of-fold accuracy; JSON keys are texts, read back as the numbers they write."""

    def __init__(self):
        super().__init__(Float(lo=0.0, hi=1.0))

    def dump(self, value, writer, path):
        return {repr(float(C)): float(score) for C, score in value.items()}

    def load(self, raw, reader, path, sizes):
        scores = {}
        for key, score in super().load(raw, reader, path, sizes).items():
            try:
                C = float(key)
            except ValueError:
                raise StateError(f"{path}: {key!r:.40} is not a value of C") from None
            if not 0 < C < float("inf"):
                raise StateError(f"{path}: {key!r:.40} is not a value of C")
            scores[C] = score
        return scores


class _Mask(Array):
    """The real-valued columns' mask; binds n_dense, the count the trees read besides LR's probabilities."""

    def __init__(self):
        super().__init__("bool", ("n_features",))

    def load(self, raw, reader, path, sizes):
        mask = super().load(raw, reader, path, sizes)
        sizes.bind("n_dense", int(mask.sum()), path)
        return mask


# Fields are read in this order: the trees' width comes from the mask and the classes.
STATE = EstimatorKind(StackedClassifier, Schema("StackedClassifier", {
    "classes_": CLASSES,
    "n_features_in_": Int(size="n_features"),
    "dense_mask_": _Mask(),
    "lr_": Part(LOGISTIC_STATE.schema, free=("n_features",)),
    "trees_": Part(HIST_GRADIENT_BOOSTING, bind=lambda sizes: {"n_features": sizes["n_dense"] + sizes["n_classes"]}),
    "C_": Float(lo=0.0, open_lo=True),
    "lr_scores_": _Scores(),
    "n_iter_": Int(),
}, check=_check_state), restore=_restore)

SPEC = ModelSpec(
    name="stacked",
    factory=StackedClassifier,
    title="boosted trees over real-valued features + out-of-fold LR",
    input="matrix",
    real_valued_param="dense_columns",
    state=STATE,
    describe=_describe,
    counterpart="stacked_ridge",
)


class StackedRegressor(RegressorMixin, BaseEstimator):
    """The stacked model for score tasks: gradient-boosted regression trees over [real-valued
    columns, the out-of-fold ridge prediction], blended with ridge's own prediction.

    Ridge (`RidgeRegressor`) reads every column (`lr_columns`'s "all", as the plain `ridge`
    model does) or only the indicator columns ("sparse"); the trees read the real-valued columns
    plus ridge's out-of-fold prediction (`cross_val_predict` over `cv` shuffled folds), so they
    never see ridge's training-set fit. At predict time ridge is the one fitted on all rows.

    dense_columns: as `StackedClassifier`'s (set by the drivers from the featurizer).
    alpha: ridge's regularization; None: chosen in `fit` from `alpha_grid` by the out-of-fold
        mean squared error over the same folds (no data beyond train), from the largest alpha
        down, each fold's ridge warm-started from its fit at the alpha before, until the error
        has risen twice in a row (the smaller alphas left are not fitted).
    score_range: (lowest, highest) of the task's scores; predictions are clipped to it (set by
        the drivers from the task).
    ridge_columns, blend, cv, learning_rate, max_iter, max_leaf_nodes, min_samples_leaf,
    l2_regularization, random_state, n_jobs: as `StackedClassifier`'s (for ridge in place of LR).
    Fitted: `ridge_`, `trees_`, `alpha_`, `ridge_errors_` (alpha -> out-of-fold mean squared
    error), `dense_mask_`, `range_`, `n_iter_`.
    """

    def __init__(self, *, dense_columns=None, alpha: float | None = None, alpha_grid=ALPHA_GRID,
                 score_range: tuple[float, float] | None = None, ridge_columns: str = "all", blend: float = 0.5,
                 cv: int = 5, learning_rate: float = 0.05, max_iter: int = 200, max_leaf_nodes: int = 15,
                 min_samples_leaf: int = 20, l2_regularization: float = 1.0, random_state: int = 0,
                 n_jobs: int | None = 1):
        self.dense_columns = dense_columns
        self.alpha = alpha
        self.alpha_grid = alpha_grid
        self.score_range = score_range
        self.ridge_columns = ridge_columns
        self.blend = blend
        self.cv = cv
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.max_leaf_nodes = max_leaf_nodes
        self.min_samples_leaf = min_samples_leaf
        self.l2_regularization = l2_regularization
        self.random_state = random_state
        self.n_jobs = n_jobs

    _mask = StackedClassifier._mask
    _threads = StackedClassifier._threads

    def fit(self, X, y):
        if self.ridge_columns not in ("sparse", "all"):
            raise ValueError(f"ridge_columns must be 'sparse' or 'all', got {self.ridge_columns!r}")
        if not 0 <= self.blend <= 1:
            raise ValueError(f"blend must be between 0 and 1, got {self.blend!r}")
        if y is not None:
            check_training_scores(y)
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=[np.float64, np.float32], y_numeric=True)
        y = check_training_scores(y)
        self.dense_mask_ = self._mask(X)
        self.range_ = checked_range(self.score_range)
        dense, sparse_part = self._split(X)
        splits = list(KFold(max(2, min(self.cv, len(y))), shuffle=True, random_state=self.random_state)
                      .split(np.zeros(len(y))))
        # From the largest alpha down, each fold's ridge starting from its fit at the alpha before;
        # the path stops once the out-of-fold error has risen twice in a row: the small alphas are
        # the slow fits (thousands of LSQR iterations), and past the best the error only rises.
        grid = [self.alpha] if self.alpha is not None else sorted(self.alpha_grid, reverse=True)
        self.ridge_errors_, best = {}, None
        fits = [None] * len(splits)
        for alpha in grid:
            fits, predicted = self._ridge_step(sparse_part, y, splits, alpha, fits)
            error = float(np.mean((predicted - y) ** 2))
            self.ridge_errors_[alpha] = error
            if best is None or error < best[1] or (error == best[1] and alpha < best[0]):  # ties: the smaller alpha
                best = (alpha, error, predicted)
            errors = [self.ridge_errors_[a] for a in grid[max(0, grid.index(alpha) - 2):grid.index(alpha) + 1]]
            if len(errors) == 3 and errors[0] < errors[1] < errors[2]:
                break
        self.alpha_, _, out_of_fold = best
        self.trees_ = HistGradientBoostingRegressor(
            learning_rate=self.learning_rate, max_iter=self.max_iter, max_leaf_nodes=self.max_leaf_nodes,
            min_samples_leaf=self.min_samples_leaf, l2_regularization=self.l2_regularization,
            early_stopping=False, random_state=self.random_state)
        with self._threads():
            self.trees_.fit(np.hstack([dense, out_of_fold[:, None]]), y)
        self.ridge_ = RidgeRegressor(alpha=self.alpha_).fit(sparse_part, y)
        self.n_iter_ = self.trees_.n_iter_
        return self

    def _ridge_step(self, X, y, splits, alpha, starts):
        """Each fold's ridge at `alpha`, from its fit in `starts` (threads: LSQR's products release
        the GIL); (the fits, the out-of-fold predictions)."""
        def one(k):
            train, test = splits[k]
            model = next(iter(RidgeRegressor(alpha=alpha).fit_path(X[train], y[train], [alpha], start=starts[k])))
            return model, model.predict(X[test])
        workers = len(splits) if self.n_jobs in (None, -1) else max(1, min(int(self.n_jobs), len(splits)))
        with ThreadPoolExecutor(workers) as pool:
            done = list(pool.map(one, range(len(splits))))
        predicted = np.empty(len(y))
        for (_, test), (_, part) in zip(splits, done):
            predicted[test] = part
        return [model for model, _ in done], predicted

    def _split(self, X):
        mask = self.dense_mask_
        dense = X[:, np.flatnonzero(mask)]
        dense = dense.toarray() if sp.issparse(dense) else np.asarray(dense)
        sparse_part = X if self.ridge_columns == "all" else X[:, np.flatnonzero(~mask)]
        return dense.astype(np.float64), sparse_part

    def predict(self, X):
        check_is_fitted(self, "trees_")
        X = validate_data(self, X, reset=False, accept_sparse="csr", dtype=[np.float64, np.float32])
        dense, sparse_part = self._split(X)
        ridge = self.ridge_.predict(sparse_part)
        with self._threads():
            trees = self.trees_.predict(np.hstack([dense, ridge[:, None]]))
        scores = (1 - self.blend) * trees + self.blend * ridge
        return scores if self.range_ is None else np.clip(scores, *self.range_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def _describe_regressor(model) -> dict:
    return {"chosen_inside": {"alpha": model.alpha_}, "ridge_alpha": model.alpha_,
            "ridge_out_of_fold_mse": model.ridge_errors_[model.alpha_],
            "dense_columns": int(model.dense_mask_.sum()), "trees": int(model.trees_.n_iter_)}


def _check_regressor_state(values, sizes) -> None:
    n_dense = int(values["dense_mask_"].sum())
    require(values["trees_"].n_features_in_ == n_dense + 1,
            f"the trees read {values['trees_'].n_features_in_} columns, not the {n_dense} real-valued columns "
            "and ridge's prediction")
    require(values["alpha_"] in values["ridge_errors_"], "its alpha has no out-of-fold error")
    if values["range_"] is not None:
        require(values["range_"][0] < values["range_"][1], "its score range is not (lowest, highest)")


def _restore_regressor(estimator, values, sizes):
    n_sparse = sizes["n_features"] if estimator.ridge_columns == "all" else int((~values["dense_mask_"]).sum())
    if values["ridge_"].n_features_in_ != n_sparse:
        raise StateError(f"its ridge regression reads {values['ridge_'].n_features_in_} columns, not the "
                         f"{n_sparse} that ridge_columns={estimator.ridge_columns!r} gives it")
    values = dict(values)
    if values["range_"] is not None:
        values["range_"] = (float(values["range_"][0]), float(values["range_"][1]))
    return set_fitted(estimator, values)


class _Errors(_Scores):
    """alpha -> out-of-fold mean squared error."""

    def __init__(self):
        Mapping_.__init__(self, Float(lo=0.0))


REGRESSOR_STATE = EstimatorKind(StackedRegressor, Schema("StackedRegressor", {
    "n_features_in_": Int(size="n_features"),
    "dense_mask_": _Mask(),
    "ridge_": Part(RIDGE_STATE.schema, free=("n_features",)),
    "trees_": Part(HIST_GRADIENT_BOOSTING_REGRESSOR, bind=lambda sizes: {"n_features": sizes["n_dense"] + 1}),
    "alpha_": Float(lo=0.0),
    "ridge_errors_": _Errors(),
    "range_": Optional(Array("float64", (2,))),
    "n_iter_": Int(),
}, check=_check_regressor_state), restore=_restore_regressor)

REGRESSOR_SPEC = ModelSpec(
    name="stacked_ridge",
    factory=StackedRegressor,
    title="boosted trees over real-valued features + out-of-fold ridge",
    input="matrix",
    target="scores",
    counterpart="stacked",
    min_classes=1,
    real_valued_param="dense_columns",
    range_param="score_range",
    state=REGRESSOR_STATE,
    describe=_describe_regressor,
)
