"""newton-pcg: Newton's method for L2-regularized multinomial logistic regression on large sparse
matrices, the solver behind `LogisticClassifier(solver="newton-pcg")` (models/logistic.py).

Each Newton step solves H p = -g by conjugate gradients preconditioned by the Hessian's diagonal
and one exact block (the intercepts and the densest columns), followed by a backtracking line
search. The matrix products run on threads in the matrix's own precision (float32 from the
featurizer), the optimization in float64. A fit stops on LIBLINEAR's relative rule,
||g|| <= tol * ||g at 0||, so that the fits along a path of C stop at comparable points wherever
they start. How each setting below was measured: docs/performance.md, "The logistic regression
solver".
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import joblib
import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp

from .common import one_blas_thread

# Conjugate-gradient steps per Newton step: capped, because where C is large the late steps would
# take hundreds, and a few more Newton steps cost far fewer products in all.
MAX_CG = 50
# CG stops at the inexact-Newton residual, or at CG_FLOOR times the stopping threshold if that is
# larger: the residual is about the gradient after the step, which need not go below the threshold.
CG_FLOOR = 0.5
# The preconditioner's exact block: the intercepts and the columns present in at least
# BLOCK_MIN_SHARE of the rows (at most BLOCK_MAX of them, the most frequent first). Binned real
# values are one-hot groups whose sum is the intercept's column: directions the diagonal cannot see.
BLOCK_MIN_SHARE = 0.05
BLOCK_MAX = 64
# The block's Grams come from every k-th row, about BLOCK_ROWS of them: a preconditioner need not
# be exact, and a column in 5% of the rows is still seen some 3,000 times.
BLOCK_ROWS = 65_536
# Columns stored in at least this share of the rows are multiplied as a dense block (`_Products`).
DENSE_SHARE = 0.5
# Values per slice where the matrix is copied a piece at a time: transients of tens of MiB, where
# copying whole parts at once briefly held a second matrix.
_SLICE = 1 << 22
# Elementwise steps over at least this many values are split over the threads (`_Products.in_parts`),
# at multiples of _ALIGNED values.
_PARTS_FROM = 1 << 16
_ALIGNED = 1024


def threads(n_jobs: int | None) -> int:
    """Threads for newton-pcg's matrix products: n_jobs, or with None/-1 every core this process
    may use (its CPU affinity and its container's CPU quota, as joblib counts them: not the
    machine's cores), but no more than OMP_NUM_THREADS where a parent set it (joblib's workers
    get 1 when their processes already fill the cores): two threads on one usable core only take
    turns (docs/performance.md)."""
    if n_jobs not in (None, -1):
        return max(1, int(n_jobs))
    limit = os.environ.get("OMP_NUM_THREADS", "")
    cores = max(1, joblib.cpu_count())
    return min(cores, int(limit)) if limit.isdigit() and int(limit) > 0 else cores


def objective(X, y, coef: np.ndarray, intercept: np.ndarray, C: float) -> float:
    """scikit-learn's multinomial objective: mean log-loss + ||coef||^2 / (2 C n), in float64.

    y: class index per row; coef (n_classes, n_features); intercept (n_classes,)."""
    Z = np.asarray(X @ coef.T.astype(np.float64), dtype=np.float64) + intercept
    loss = np.mean(logsumexp(Z, axis=1) - Z[np.arange(len(y)), y])
    return float(loss + np.sum(coef.astype(np.float64) ** 2) / (2 * C * len(y)))


class NewtonProblem:
    """newton-pcg's problem: mean multinomial log-loss + ||W||^2 / (2 C n) over W (features x
    classes) and b, for one matrix and its labels, prepared once and solved for any C (a path
    of C values shares the transposed matrix and the gradient at zero).

    Inexact Newton: each step solves H p = -g by conjugate gradients, preconditioned by the
    diagonal of H (feature frequencies span five orders of magnitude, from 3 pairs to most of
    them), to the relative residual min(0.5, sqrt(||g||)) (or CG_FLOOR times the stopping
    threshold, if larger) or MAX_CG steps, followed by a backtracking (Armijo) line search. Matrix products run in the matrix's precision (float32
    from the featurizer), the optimization itself in float64.

    Stopping rule (LIBLINEAR's): ||g(w)|| <= tol * ||g(0)||, Euclidean norms, where g(0), the
    gradient at zero weights and intercepts, does not depend on C or on where a fit starts.
    Every fit of a path thus stops at the same gradient norm, and a fit started from the
    previous C's solution still has to reach it.
    """

    def __init__(self, X, codes: np.ndarray, n_classes: int, n_threads: int = 1):
        self.n, self.n_features = X.shape
        self.K = n_classes
        self.dtype = X.dtype
        self.codes = codes
        self.Y = np.zeros((self.n, self.K))
        self.Y[np.arange(self.n), codes] = 1.0
        self.products = _Products(X, n_threads)
        # Only the features present in X take part: the weight of an absent one is 0 at the optimum
        # (only the penalty acts on it). A learning-curve sample of 100 pairs holds a few hundred of
        # the million columns fitted on the whole training split.
        self.used = self.products.features
        self.d = len(self.used)
        counts = self.products.counts
        dense = np.flatnonzero(counts >= BLOCK_MIN_SHARE * self.n)
        self.block = np.sort(dense[np.argsort(-counts[dense], kind="stable")[:BLOCK_MAX]])
        columns = self.used[self.block]
        step = max(1, -(-self.n // BLOCK_ROWS))
        self.block_rows = slice(None, None, step)
        self.block_matrix = np.ones((-(-self.n // step), len(columns) + 1), np.float32)  # ones: the intercepts
        for lo, hi, part in _dense_rows(X, columns, step):
            self.block_matrix[lo:hi, :-1] = part
        # Positions of the block's parameters in the flat vector: its columns' weights, then the intercepts.
        self.block_index = np.concatenate([(self.block[:, None] * self.K + np.arange(self.K)).ravel(),
                                           self.d * self.K + np.arange(self.K)])
        # Parameters as one flat vector, weights (d x K) then intercepts (K), so that the conjugate
        # gradients run on whole vectors in place (each is d*K long: ~3M at SNLI scale).
        self.weights = slice(0, self.d * self.K)
        self._gradient_norm_at_zero = None

    def close(self) -> None:
        self.products.close()

    def scores(self, v, then=None):
        """X @ W + b (n x K, float64) at the flat parameters v. `then(Z_rows, lo, hi)`, an
        elementwise step on rows lo to hi, runs on each part of the rows once its scores are summed,
        on the thread that summed them."""
        W, V = v[self.weights].reshape(self.d, self.K), np.empty((self.d, self.K), self.dtype)
        self.products.in_parts(lambda lo, hi: np.copyto(V[lo:hi], W[lo:hi], casting="same_kind"), self.d)
        parts, b = self.products.partial_times(V), v[self.weights.stop:]
        Z = np.empty((self.n, self.K))

        def summed(lo, hi):
            rows = Z[lo:hi]
            np.copyto(rows, parts[0][lo:hi])
            for part in parts[1:]:
                rows += part[lo:hi]
            rows += b
            if then is not None:
                then(rows, lo, hi)

        self.products.in_parts(summed, self.n)
        return Z

    def loss(self, Z, v, lam: float):
        lse = np.empty(self.n)

        def rows(lo, hi):  # row by row: the same values in parts
            lse[lo:hi] = _logsumexp_rows(Z[lo:hi])

        self.products.in_parts(rows, self.n)
        w = v[self.weights]
        return float(np.mean(lse - Z[np.arange(self.n), self.codes]) + 0.5 * lam * np.dot(w, w)), lse

    def transposed(self, R, out, blocks=None, cast=None, then=None):
        """out = (X.T @ R / n, R.mean(axis=0)), flat. `cast`: R already in the matrix's precision;
        `then(lo, hi)`, an elementwise step on out[lo:hi], runs on each part of out once it is scaled."""
        # The intercepts' sums (~8 ms: numpy adds rows of three one at a time) are taken on this
        # thread while the others multiply, rather than before or after them.
        out[self.weights.stop:] = self.products.transposed_times(
            R.astype(self.dtype) if cast is None else cast, out[self.weights].reshape(self.d, self.K), blocks,
            meanwhile=lambda: R.sum(axis=0))

        def scaled(lo, hi):
            out[lo:hi] /= self.n
            if then is not None:
                then(lo, hi)

        self.products.in_parts(scaled, len(out))
        return out

    def block_inverse(self, P: np.ndarray, lam: float) -> np.ndarray:
        """The inverse of the Hessian's block over `block_index` at probabilities P (pseudo-inverse:
        the intercepts all moving together leave the loss unchanged), from the sampled rows."""
        A, K = self.block_matrix, self.K
        P = P[self.block_rows]
        m = A.shape[1]
        H = np.empty((m * K, m * K))

        def gram(pair):  # one Gram per pair of classes, each on a thread of the products' pool
            k, j = pair
            w = (P[:, k] * ((k == j) - P[:, j])).astype(np.float32)
            G = (A.T @ (A * w[:, None])).astype(np.float64) / len(A)
            H[k::K, j::K] = G  # parameter (column a, class k) sits at a * K + k
            H[j::K, k::K] = G.T

        self.products._map(gram, [(k, j) for k in range(K) for j in range(k, K)])
        penalty = np.full(m * K, lam)
        penalty[-K:] = 0.0  # intercepts are not penalized
        H[np.diag_indices_from(H)] += penalty
        # The intercepts all moving together is H's null direction u, exactly; but the Grams are
        # float32 sums, whose rounding leaves its eigenvalue at ~1e-8 of the largest rather than
        # 0, and whether that fell below the cutoff depended on the BLAS kernel's order of sums
        # (with OpenBLAS's Prescott kernel it did not: ~2e7 on the intercepts). Projected out in
        # float64, (I - uu')H(I - uu'), its eigenvalue is rounding of float64 instead.
        u = np.zeros(m * K)
        u[-K:] = 1 / np.sqrt(K)
        Hu = H @ u
        H += np.outer(u, u) * (u @ Hu) - np.outer(Hu, u) - np.outer(u, Hu)
        values, vectors = np.linalg.eigh(H)
        keep = values > 1e-10 * max(values[-1], 1e-300)
        return (vectors[:, keep] / values[keep]) @ vectors[:, keep].T

    def gradient_norm_at_zero(self) -> float:
        """||g(0)||: at zero every class has probability 1/K, and the penalty's gradient is 0."""
        if self._gradient_norm_at_zero is None:
            g = np.empty((self.d + 1) * self.K)
            self.transposed(np.full((self.n, self.K), 1.0 / self.K) - self.Y, g)
            self._gradient_norm_at_zero = float(np.sqrt(np.dot(g, g)))
        return self._gradient_norm_at_zero

    def solve(self, C: float, tol: float, max_iter: int, start=None):
        """(W over all columns, b, Newton steps, whether the stopping rule was met) from `start`
        ((W, b) over all columns) or from zero."""
        x = np.zeros((self.d + 1) * self.K)
        if start is not None:
            x[self.weights] = np.asarray(start[0], dtype=np.float64)[self.used].ravel()
            x[self.weights.stop:] = start[1]
        threshold = tol * self.gradient_norm_at_zero()
        # The threads over the matrix products are the parallelism; BLAS runs single-threaded
        # (its spinning threads stalled the block's Gram ~10x when other processes held the cores).
        with one_blas_thread():
            x, step_count, converged = _newton_steps(x, self, 1.0 / (C * self.n), threshold, max_iter)
        W = np.zeros((self.n_features, self.K))
        W[self.used] = x[self.weights].reshape(self.d, self.K)
        return W, x[self.weights.stop:], step_count, converged


def _newton_steps(x, problem: NewtonProblem, lam: float, threshold: float, max_iter: int):
    """Newton steps from x until ||gradient|| <= threshold or max_iter; (x, steps, converged). A
    line search that cannot decrease the objective (float32 products near the optimum) stops
    the fit where it is, unconverged, rather than accept a worse point."""
    weights, Y = problem.weights, problem.Y
    Z = problem.scores(x)
    f, lse = problem.loss(Z, x, lam)
    g, diag = np.empty_like(x), np.empty_like(x)
    converged, step_count = False, 0
    in_parts = problem.products.in_parts
    P, R = np.empty_like(Z), np.empty_like(Z)
    for step_count in range(max_iter + 1):
        def probabilities(lo, hi):  # P = exp(Z - lse), and the residuals P - Y
            np.subtract(Z[lo:hi], lse[lo:hi, None], out=P[lo:hi])
            np.exp(P[lo:hi], out=P[lo:hi])
            np.subtract(P[lo:hi], Y[lo:hi], out=R[lo:hi])

        in_parts(probabilities, problem.n)
        problem.transposed(R, g)
        g[weights] += lam * x[weights]
        if np.sqrt(np.dot(g, g)) <= threshold:
            converged = True
            break
        if step_count == max_iter:
            break
        in_parts(lambda lo, hi: np.multiply(P[lo:hi], 1 - P[lo:hi], out=R[lo:hi]), problem.n)
        problem.transposed(R, diag, problem.products.squares)
        diag[weights] += lam
        diag[weights.stop:] += 1e-12
        block, block_inverse = problem.block_index, problem.block_inverse(P, lam)
        U32 = np.empty((problem.n, problem.K), problem.dtype)

        def precondition(r, out):
            problem.products.in_parts(lambda lo, hi: np.divide(r[lo:hi], diag[lo:hi], out=out[lo:hi]), len(r))
            out[block] = block_inverse @ r[block]
            return out

        def curved(U, lo, hi):  # rows lo to hi of the Hessian's U = P * (XV - rowsum(P * XV)), and its float32 copy
            rows = P[lo:hi]
            U *= rows
            U -= rows * _row_sums(U)[:, None]
            U32[lo:hi] = U

        def hessian_times(v, out):
            def penalized(lo, hi):
                hi = min(hi, weights.stop)
                if hi > lo:
                    out[lo:hi] += v[lo:hi] * lam

            problem.transposed(problem.scores(v, curved), out, cast=U32, then=penalized)
            return out

        p = _preconditioned_cg(hessian_times, g, precondition, CG_FLOOR * threshold, problem.products.in_parts)
        slope = np.dot(g, p)
        step = 1.0
        while True:
            trial = np.empty_like(x)
            in_parts(lambda lo, hi: np.add(x[lo:hi], step * p[lo:hi], out=trial[lo:hi]), len(x))
            Z_new = problem.scores(trial)
            f_new, lse_new = problem.loss(Z_new, trial, lam)
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
    features holding equal numbers of entries go to the threads (scipy releases the GIL in its
    products), and so do equal slices of the dense columns (`DENSE_SHARE`), which follow the
    sparse ones in `features` and are multiplied by BLAS.
    """

    def __init__(self, X, n_threads: int):
        threads = max(1, n_threads)
        self.pool = ThreadPoolExecutor(threads) if threads > 1 else None
        if sp.issparse(X):
            present = _column_counts(X)  # rows holding each feature
            features = np.flatnonzero(present)
            # Columns in most rows (the real-valued ones: scaled values are rarely 0) are kept dense,
            # after the sparse ones: BLAS reads them several times faster than CSR's index arrays,
            # in less memory (the strongest group at SNLI scale: 154 such columns, 3/4 of the entries).
            dense = present[features] >= DENSE_SHARE * X.shape[0]
            sparse = features[~dense]
            self.features = np.concatenate([sparse, features[dense]])
            self.counts = present[self.features]
            # Sparse blocks of equal work (stored entries), not of equal feature counts: features
            # are numbered from the most frequent, so equal counts put most entries in the first.
            ends = np.concatenate([[0], np.cumsum(self.counts[:len(sparse)])])
            bounds = np.searchsorted(ends, np.linspace(0, ends[-1], threads + 1)).astype(int)
            bounds[0], bounds[-1] = 0, len(sparse)
            # Each sparse block is transposed from its own columns of X, and the dense block filled
            # a slice of rows at a time: X.T.tocsr() would briefly hold a copy as large as X. The
            # rows are X.T.tocsr()'s all the same: tocsc runs the same stable counting sort, which
            # keeps each feature's entries in X's order, and so every product sums in the same order.
            # The blocks are built at once, on the threads (scipy releases the GIL): ~1 s to ~0.4 s.
            spans = [(lo, hi) for lo, hi in zip(bounds[:-1], bounds[1:]) if hi > lo]
            self.blocks = [(lo, hi, block) for (lo, hi), block in zip(spans, self._map(
                lambda span: _transposed(X if span[1] - span[0] == X.shape[1] else X[:, sparse[span[0]:span[1]]]),
                spans))]
            if dense.any():
                Dt = np.empty((dense.sum(), X.shape[0]), X.dtype)
                for lo, hi, part in _dense_rows(X, features[dense]):
                    Dt[:, lo:hi] = part.T
                cuts = np.linspace(0, len(Dt), threads + 1).astype(int)
                self.blocks += [(len(sparse) + lo, len(sparse) + hi, Dt[lo:hi])
                                for lo, hi in zip(cuts[:-1], cuts[1:]) if hi > lo]
        else:
            Xt = np.ascontiguousarray(X.T)
            self.features = np.arange(Xt.shape[0])
            self.counts = np.count_nonzero(Xt, axis=1)
            bounds = np.linspace(0, Xt.shape[0], threads + 1).astype(int)
            self.blocks = [(lo, hi, Xt[lo:hi]) for lo, hi in zip(bounds[:-1], bounds[1:]) if hi > lo]
        if not self.blocks:  # no feature present in any row: X @ V is all zeros
            self.blocks = [(0, 0, sp.csr_matrix((0, X.shape[0]), dtype=X.dtype))]
        # (X * X).T @ R, once per Newton step: a sparse block's squares share its indices; a dense
        # block is squared a slice of rows at a time when multiplied, rather than kept twice.
        self.squares = [(lo, hi, sp.csr_matrix((m.data * m.data, m.indices, m.indptr), shape=m.shape)
                         if sp.issparse(m) else _Squared(m)) for lo, hi, m in self.blocks]
        self.lanes = min(threads, len(self.blocks))
        if self.lanes < 2 and self.pool is not None:
            self.pool.shutdown()
            self.pool = None

    def _map(self, function, items):
        return list(self.pool.map(function, items)) if self.pool else [function(item) for item in items]

    def partial_times(self, V: np.ndarray) -> list[np.ndarray]:
        """X @ V as a sum of n x K parts, one per block, in the matrix's precision."""
        return self._map(lambda block: block[2].T @ V[block[0]:block[1]], self.blocks)

    def in_parts(self, step, length: int) -> None:
        """step(lo, hi) over consecutive parts of range(length), one per thread, this one taking
        the last: for elementwise steps, whose values do not depend on the split (the cuts fall on
        multiples of _ALIGNED, where a BLAS kernel's vector loop over the whole would fall too),
        which on one thread would leave the other cores idle between products."""
        if self.pool is None or length < _PARTS_FROM:  # below, handing a part over costs more than it saves
            step(0, length)
            return
        cuts = [0, *(length * i // self.lanes // _ALIGNED * _ALIGNED for i in range(1, self.lanes)), length]
        self._alongside([(step, lo, hi) for lo, hi in zip(cuts[:-2], cuts[1:-1])],
                        lambda: step(cuts[-2], cuts[-1]))

    def transposed_times(self, R: np.ndarray, out: np.ndarray, blocks=None, meanwhile=None):
        """out[:] = X.T @ R (out: d x K); returns `meanwhile()`, run on this thread while the
        threads multiply, if given."""
        def one(block):
            out[block[0]:block[1]] = block[2] @ R
        if self.pool is None:
            for block in blocks or self.blocks:
                one(block)
            return meanwhile() if meanwhile is not None else None
        return self._alongside([(one, block) for block in blocks or self.blocks],
                               meanwhile if meanwhile is not None else lambda: None)

    def _alongside(self, calls, here):
        """Run each (function, *args) of `calls` on the pool and `here()` on this thread; return
        what `here()` returns once every call has finished."""
        futures = [self.pool.submit(*call) for call in calls]
        try:
            return here()
        finally:  # never return, even by an exception, while a thread still writes into the arrays
            for future in futures:
                future.result()

    def close(self) -> None:
        if self.pool:
            self.pool.shutdown()


def _column_counts(X: sp.csr_matrix) -> np.ndarray:
    """Stored entries per column, counted a slice of X at a time: np.bincount copies its input
    to int64 first, which for X's indices is as large as X."""
    counts = np.zeros(X.shape[1], np.int64)
    for start in range(0, X.nnz, _SLICE):
        counts += np.bincount(X.indices[start:start + _SLICE], minlength=X.shape[1])
    return counts


def _transposed(X: sp.csr_matrix) -> sp.csr_matrix:
    """X.T in CSR form: X's CSC arrays, read as rows."""
    C = X.tocsc()
    return sp.csr_matrix((C.data, C.indices, C.indptr), shape=C.shape[::-1])


def _dense_rows(X, columns: np.ndarray, step: int = 1):
    """X[::step][:, columns] as arrays, ~_SLICE values at a time: (lo, hi, its rows lo to hi).
    Taken at once, a sparse X's selection would first hold all those rows' entries (scipy slices
    the rows before it picks the columns), or all those columns'."""
    n = -(-X.shape[0] // step)
    width = len(columns) + (X.nnz // max(1, X.shape[0]) if sp.issparse(X) else 0)
    size = max(1, _SLICE // max(1, width))
    for lo in range(0, n, size):
        hi = min(lo + size, n)
        part = X[lo * step:hi * step:step, columns]
        yield lo, hi, part.toarray() if sp.issparse(part) else part


class _Squared:
    """A dense block whose product with R is (block * block) @ R, computed a slice of its columns
    (the matrix's rows) at a time."""

    SLICE = 65_536

    def __init__(self, block: np.ndarray):
        self.block = block

    def __matmul__(self, R: np.ndarray) -> np.ndarray:
        out = np.zeros((self.block.shape[0], R.shape[1]), dtype=np.result_type(self.block, R))
        for start in range(0, self.block.shape[1], self.SLICE):
            part = self.block[:, start:start + self.SLICE]
            out += (part * part) @ R[start:start + self.SLICE]
        return out


def _preconditioned_cg(hessian_times, g: np.ndarray, precondition, floor: float = 0.0, in_parts=None) -> np.ndarray:
    """Approximately solve H p = -g by conjugate gradients preconditioned by `precondition(r, out)`
    (an approximate inverse of H applied to r), to the
    residual min(0.5, sqrt(||g||)) * ||g|| (the usual forcing term of inexact Newton), or `floor`
    if that is larger: the residual is about the gradient after the step, and a gradient
    below the stopping threshold needs no more accuracy than that."""
    in_parts = in_parts or _whole
    g_norm = np.sqrt(np.dot(g, g))
    target = max(min(0.5, np.sqrt(g_norm)) * g_norm, floor)
    p = np.zeros_like(g)
    r = -g
    z = precondition(r, np.empty_like(g))
    direction = z.copy()
    rz = np.dot(r, z)
    Hd, scaled = np.empty_like(g), np.empty_like(g)
    for _ in range(MAX_CG):
        hessian_times(direction, Hd)
        curvature = np.dot(direction, Hd)
        if curvature <= 0:
            break
        alpha = rz / curvature

        def moved(lo, hi):
            _axpy(alpha, direction[lo:hi], p[lo:hi], scaled[lo:hi])
            _axpy(-alpha, Hd[lo:hi], r[lo:hi], scaled[lo:hi])

        in_parts(moved, len(g))
        if np.sqrt(np.dot(r, r)) <= target:
            break
        precondition(r, z)
        rz, rz_old = np.dot(r, z), rz
        beta = rz / rz_old

        def turned(lo, hi):
            direction[lo:hi] *= beta
            direction[lo:hi] += z[lo:hi]

        in_parts(turned, len(g))
    if not p.any():  # no curvature at all: fall back to steepest descent
        p = -g
    return p


def _whole(step, length: int) -> None:
    step(0, length)


def _row_sums(A: np.ndarray) -> np.ndarray:
    """A.sum(axis=1) of an (n, K) array, a column at a time: numpy's reduction over rows of a few
    entries each costs ~7x more. The same sums, in the same order, for K below 8."""
    out = A[:, 0].copy()
    for k in range(1, A.shape[1]):
        out += A[:, k]
    return out


def _logsumexp_rows(Z: np.ndarray) -> np.ndarray:
    """scipy.special.logsumexp(Z, axis=1) of finite scores, in ~1/3 of its time (~90 ms a call at
    SNLI scale), by its very steps: the row's maxima set aside (m of them, ties included), the
    others' exponentials summed, log1p(sum / m) + log(m) + max. The same values, bit for bit,
    for fewer than 8 classes (where numpy sums a row in order); the line search near float32's
    limit is sensitive to the last bit."""
    top = Z[:, 0].copy()
    for k in range(1, Z.shape[1]):
        np.maximum(top, Z[:, k], out=top)
    at_top = Z == top[:, None]
    ties = _row_sums(at_top.astype(Z.dtype))
    rest = _row_sums(np.exp(np.where(at_top, -np.inf, Z) - top[:, None]))
    return np.log1p(np.where(rest == 0, rest, rest / ties)) + np.log(ties) + top


def _axpy(a: float, x: np.ndarray, y: np.ndarray, scratch: np.ndarray) -> None:
    """y += a * x in place, a * x rounded first (into `scratch`, as long as x): two correctly
    rounded operations per value, the same on every CPU and wherever a part begins. BLAS's daxpy
    is not: its Haswell/Zen kernel fuses the multiply and the add (one rounding) in its vector
    loop and not in its scalar loop over a part's last values, so a value's bits depended on where
    the part holding it began, and on whether the CPU has FMA at all."""
    np.multiply(x, a, out=scratch)
    y += scratch
