"""Logistic regression over the sparse feature matrix (multinomial for three classes)."""
from __future__ import annotations

import os
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp
from scipy.linalg import blas
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.utils.validation import check_is_fitted, validate_data

from .common import check_training_labels
from .spec import ModelSpec, Tuning

C_GRID = (0.003, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0)
# A best C at an end of the grid extends the grid, a step (x3.16) at a time, up to these limits.
C_LIMITS = (1e-5, 1000.0)
NEWTON = "newton-pcg"  # our Newton-CG with a diagonal preconditioner (`_newton_pcg`)
# "auto" picks newton-pcg for three or more classes from this many training rows, scikit-learn's
# newton-cg below (same tolerance). Measured on generated SNLI-sized pairs, C = 0.01 / 0.3:
# newton-cg is faster at 10,000 (0.27 / 0.55 s against 0.68 / 1.56 s) and 50,000 rows (1.6 / 3.4 s
# against 2.5 / 4.2 s), and 15-20x faster on SICK; at 150,000 they trade places (4.5 / 15.0 s
# against 6.4 / 9.1 s) and at 550,152 newton-pcg is 3.5x faster at C = 0.01 (20 s against 70 s)
# and 8x or more at C = 0.1 (30 s; newton-cg had not finished after 240 s).
NEWTON_FROM_ROWS = 100_000
# Stopping tolerance per solver: the largest entry of the objective's gradient for the Newton
# solvers (scikit-learn's convention), the relative change of the weights over an epoch for
# sag/saga. With 1e-4, newton-pcg ends ~1e-6 (C=0.01) to ~1e-4 (C=0.1) above the optimum on
# 100,000 SNLI-sized pairs, with the reference's dev accuracy (README, "Performance"); saga at
# its former 1e-2 stopped after ~10 epochs, 0.1-2% above it, and below 1e-4 it stalls.
SOLVER_TOL = {NEWTON: 1e-4, "newton-cg": 1e-4, "saga": 1e-4, "sag": 1e-4, "lbfgs": 1e-4}
# No warm starts along the C grid when choosing C, though they were measured 3.3x faster on
# 550,152 SNLI-sized pairs (113 s against 372 s for the seven cold fits): at that size the
# penalty's share of the gradient changes by less than tol from one C to the next, so a warm fit
# at C = 0.1 or 1.0 stopped at once, at the previous C's solution, and scored like it (dev 62.5
# at C = 0.1 against 61.8 cold). Cold fits, each from zero, are what the scores compare.
# Conjugate-gradient steps per Newton step: where C is large the late steps would take hundreds;
# capped, Newton takes a few more steps for far fewer products in all (README, "Performance").
MAX_CG = 50


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
        matrices its per-step overhead loses to newton-cg (README, "Performance").
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
        if y is not None:
            check_training_labels(y)  # the suite's messages for an empty or one-class training set
        # CSR or an array, float32 kept (newton-pcg's products run in the matrix's precision)
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=[np.float64, np.float32])
        classes, codes = np.unique(y, return_inverse=True)
        solver = self.solver
        if solver == "auto":
            solver = NEWTON if len(classes) > 2 and X.shape[0] >= NEWTON_FROM_ROWS else "newton-cg"
        if solver == NEWTON and len(classes) < 3:
            raise ValueError(f"solver {NEWTON!r} fits three or more classes; use 'newton-cg' for two")
        tol = self.tol if self.tol is not None else SOLVER_TOL.get(solver, 1e-4)
        previous = getattr(self, "model_", None) if self.warm_start else None
        model = LogisticRegression(C=self.C, solver=solver if solver != NEWTON else "newton-cg",
                                   max_iter=self.max_iter, tol=tol, random_state=self.random_state,
                                   warm_start=previous is not None and solver != NEWTON)
        if previous is not None and solver != NEWTON:
            model.coef_, model.intercept_ = previous.coef_, previous.intercept_
        if solver == NEWTON:
            start = None
            if previous is not None and previous.coef_.shape == (len(classes), X.shape[1]):
                start = previous.coef_.T, previous.intercept_
            W, b, self.n_iter_, self.converged_ = _newton_pcg(X, codes, len(classes), self.C, tol,
                                                              self.max_iter, start, _threads(self.n_jobs))
            model.coef_, model.intercept_ = W.T.astype(X.dtype), b.astype(X.dtype)
            model.classes_, model.n_features_in_ = classes, X.shape[1]
            model.n_iter_ = np.array([self.n_iter_])
        else:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ConvergenceWarning)
                model.fit(X, y)
            self.n_iter_ = int(np.max(model.n_iter_))
            self.converged_ = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
        if not self.converged_:
            warnings.warn(f"logistic regression ({solver}, C={self.C}) stopped after {self.n_iter_} steps "
                          f"(max_iter={self.max_iter}) before reaching tol={tol}", ConvergenceWarning, stacklevel=2)
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


def _threads(n_jobs: int | None) -> int:
    """Threads for newton-pcg's matrix products: n_jobs, or with None/-1 every core, but no more
    than OMP_NUM_THREADS where a parent set it (joblib's workers get 1 when their processes
    already fill the cores)."""
    if n_jobs not in (None, -1):
        return max(1, int(n_jobs))
    limit = os.environ.get("OMP_NUM_THREADS", "")
    cores = os.cpu_count() or 1
    return min(cores, int(limit)) if limit.isdigit() and int(limit) > 0 else cores


def objective(X, y, coef: np.ndarray, intercept: np.ndarray, C: float) -> float:
    """scikit-learn's multinomial objective: mean log-loss + ||coef||^2 / (2 C n), in float64.

    y: class index per row; coef (n_classes, n_features); intercept (n_classes,)."""
    Z = np.asarray(X @ coef.T.astype(np.float64), dtype=np.float64) + intercept
    loss = np.mean(logsumexp(Z, axis=1) - Z[np.arange(len(y)), y])
    return float(loss + np.sum(coef.astype(np.float64) ** 2) / (2 * C * len(y)))


def _newton_pcg(X, codes: np.ndarray, n_classes: int, C: float, tol: float, max_iter: int, start=None,
                n_threads: int = 1):
    """Minimize mean multinomial log-loss + ||W||^2 / (2 C n) over W (features x classes) and b.

    Inexact Newton: each step solves H p = -g by conjugate gradients, preconditioned by the
    diagonal of H (feature frequencies span five orders of magnitude, from 3 pairs to most of
    them), to the relative residual min(0.5, sqrt(||g||)) or MAX_CG steps, followed by a
    backtracking (Armijo) line search. Matrix products run in the matrix's precision (float32
    from the featurizer), the optimization itself in float64.
    Returns (W, b, Newton steps, whether max |g| <= tol was reached).
    """
    n, d_all = X.shape
    K = n_classes
    dtype = X.dtype
    Y = np.zeros((n, K))
    Y[np.arange(n), codes] = 1.0
    lam = 1.0 / (C * n)
    products = _Products(X, n_threads)
    # Only the features present in X take part: the weight of an absent one is 0 at the optimum
    # (only the penalty acts on it). A learning-curve sample of 100 pairs holds a few hundred of
    # the million columns fitted on the whole training split.
    used, d = products.features, len(products.features)
    # Parameters as one flat vector, weights (d x K) then intercepts (K), so that the conjugate
    # gradients run on whole vectors in place (each is d*K long: ~3M at SNLI scale).
    x = np.zeros((d + 1) * K)
    if start is not None:
        x[:d * K] = np.asarray(start[0], dtype=np.float64)[used].ravel()
        x[d * K:] = start[1]
    weights = slice(0, d * K)

    def scores(v):
        Z = products.times(v[weights].reshape(d, K).astype(dtype))
        Z += v[weights.stop:]
        return Z

    def loss(Z, v):
        lse = logsumexp(Z, axis=1)
        return float(np.mean(lse - Z[np.arange(n), codes]) + 0.5 * lam * np.dot(v[weights], v[weights])), lse

    def transposed(R, out, blocks=None):  # out = (X.T @ R / n, R.mean(axis=0)), flat
        products.transposed_times(R.astype(dtype), out[weights].reshape(d, K), blocks)
        out[weights.stop:] = R.sum(axis=0)
        out /= n
        return out

    try:
        x, step_count, converged = _newton_steps(x, weights, scores, loss, transposed, products.squares,
                                                 Y, lam, tol, max_iter)
    finally:
        products.close()
    W = np.zeros((d_all, K))
    W[used] = x[weights].reshape(d, K)
    return W, x[weights.stop:], step_count, converged


def _newton_steps(x, weights, scores, loss, transposed, squares, Y, lam, tol, max_iter):
    """Newton steps from x until max |gradient| <= tol or max_iter; (x, steps, converged). A line
    search that cannot decrease the objective (float32 products near the optimum) stops the fit
    where it is, unconverged, rather than accept a worse point."""
    Z = scores(x)
    f, lse = loss(Z, x)
    g, diag = np.empty_like(x), np.empty_like(x)
    converged, step_count = False, 0
    for step_count in range(max_iter + 1):
        P = np.exp(Z - lse[:, None])
        transposed(P - Y, g)
        g[weights] += lam * x[weights]
        if np.abs(g).max() <= tol:
            converged = True
            break
        if step_count == max_iter:
            break
        transposed(P * (1 - P), diag, squares)
        diag[weights] += lam
        diag[weights.stop:] += 1e-12

        def hessian_times(v, out):
            U = scores(v)
            U *= P
            U -= P * U.sum(axis=1, keepdims=True)
            transposed(U, out)
            out[weights] += lam * v[weights]
            return out

        p = _preconditioned_cg(hessian_times, g, diag)
        slope = np.dot(g, p)
        step = 1.0
        while True:
            trial = x + step * p
            Z_new = scores(trial)
            f_new, lse_new = loss(Z_new, trial)
            if f_new <= f + 1e-4 * step * slope:
                break
            step *= 0.5
            if step < 1e-10:
                return x, step_count, False
        x, Z, f, lse = trial, Z_new, f_new, lse_new
    return x, step_count, converged


class _Products:
    """X @ V, X.T @ R and (X * X).T @ R for one matrix, restricted to its `features` present in
    some row, in its precision, on `n_threads` threads.

    The matrix is kept once, as X.T in CSR (feature-major) form: X.T @ R is then a row-wise
    product, and X @ V, read as (X.T).T @ V, a column-wise scatter that visits V in order;
    ~3x faster than scipy's row-wise X @ V, which gathers V's rows all over memory. Blocks of
    features go to the threads (scipy releases the GIL in its products).
    """

    def __init__(self, X, n_threads: int):
        if sp.issparse(X):
            Xt = X.T.tocsr()
            self.features = np.flatnonzero(np.diff(Xt.indptr))  # the features present in some row
            if len(self.features) < Xt.shape[0]:
                Xt = Xt[self.features]
        else:
            Xt = np.ascontiguousarray(X.T)
            self.features = np.arange(Xt.shape[0])
        bounds = np.linspace(0, Xt.shape[0], max(1, n_threads) + 1).astype(int)
        self.blocks = [(lo, hi, Xt[lo:hi]) for lo, hi in zip(bounds[:-1], bounds[1:]) if hi > lo]
        if not self.blocks:  # no feature present in any row: X @ V is all zeros
            self.blocks = [(0, 0, Xt)]
        self.squares = [(lo, hi, sp.csr_matrix((m.data * m.data, m.indices, m.indptr), shape=m.shape)  # shares indices
                         if sp.issparse(m) else m * m) for lo, hi, m in self.blocks]
        self.pool = ThreadPoolExecutor(len(self.blocks)) if len(self.blocks) > 1 else None

    def _map(self, function, items):
        return list(self.pool.map(function, items)) if self.pool else [function(item) for item in items]

    def times(self, V: np.ndarray) -> np.ndarray:
        """X @ V as float64 (n x K)."""
        parts = self._map(lambda block: block[2].T @ V[block[0]:block[1]], self.blocks)
        out = parts[0].astype(np.float64)
        for part in parts[1:]:
            out += part
        return out

    def transposed_times(self, R: np.ndarray, out: np.ndarray, blocks=None) -> None:
        """out[:] = X.T @ R (out: d x K)."""
        def one(block):
            out[block[0]:block[1]] = block[2] @ R
        self._map(one, blocks or self.blocks)

    def close(self) -> None:
        if self.pool:
            self.pool.shutdown()


def _preconditioned_cg(hessian_times, g: np.ndarray, diag: np.ndarray) -> np.ndarray:
    """Approximately solve H p = -g by conjugate gradients preconditioned with diag(H), to the
    residual min(0.5, sqrt(||g||)) * ||g|| (the usual forcing term of inexact Newton)."""
    g_norm = np.sqrt(np.dot(g, g))
    target = min(0.5, np.sqrt(g_norm)) * g_norm
    p = np.zeros_like(g)
    r = -g
    z = r / diag
    direction = z.copy()
    rz = np.dot(r, z)
    Hd = np.empty_like(g)
    for _ in range(MAX_CG):
        hessian_times(direction, Hd)
        curvature = np.dot(direction, Hd)
        if curvature <= 0:
            break
        alpha = rz / curvature
        _axpy(alpha, direction, p)
        _axpy(-alpha, Hd, r)
        if np.sqrt(np.dot(r, r)) <= target:
            break
        np.divide(r, diag, out=z)
        rz, rz_old = np.dot(r, z), rz
        direction *= rz / rz_old
        direction += z
    if not p.any():  # no curvature at all: fall back to steepest descent
        p = -g
    return p


def _axpy(a: float, x: np.ndarray, y: np.ndarray) -> None:
    """y += a * x in place (BLAS, no temporary)."""
    blas.daxpy(x, y, a=a)


SPEC = ModelSpec(
    name="lr",
    factory=LogisticClassifier,
    title="logistic regression",
    input="matrix",
    tuning=Tuning(grid={"C": C_GRID}, extend={"C": C_LIMITS}),
    describe=lambda model: {"solver": model.solver_, "iterations": model.n_iter_, "converged": model.converged_},
)
