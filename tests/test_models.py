"""Estimators: edit distance on hand examples, threshold search, majority, logistic regression, errors."""
from __future__ import annotations

import os
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

from nli_baselines.models import EditDistanceClassifier, LogisticClassifier, MajorityClassifier, TrainingDataError
from nli_baselines.models.ridge import RidgeRegressor
from nli_baselines.models.edit_distance import (STOP_LISTS, WEIGHT_GRID, best_threshold, content_tokens,
                                                cv_threshold_accuracy, exact_distances, normalized_distances)
from tests.conftest import make_pair


def test_each_weight_and_the_normalization():
    # premise -> hypothesis: "a b c" -> "a x c d": substitute b->x, insert d.
    t, h = [["a", "b", "c"]], [["a", "x", "c", "d"]]
    d = normalized_distances(t, h, delete=1.0, insert=2.0, substitute=3.0)
    assert d[0] == pytest.approx((3 + 2) / (1 * 3 + 2 * 4))
    # Deleting premise words only.
    d = normalized_distances([["a", "b", "c"]], [["a"]], delete=0.5, insert=1.0, substitute=1.0)
    assert d[0] == pytest.approx(2 * 0.5 / (0.5 * 3 + 1.0 * 1))
    # A substitution costlier than delete + insert is replaced by them.
    d = normalized_distances([["a", "b"]], [["a", "x"]], delete=1.0, insert=1.0, substitute=5.0)
    assert d[0] == pytest.approx(2 / (2 + 2))
    assert normalized_distances([[]], [[]], 1.0, 1.0, 1.0)[0] == 0.0
    assert normalized_distances([["a"]], [["a"]], 1.0, 1.0, 1.0)[0] == 0.0


def test_stop_words_by_pos_and_case():
    pair = make_pair("The Man sleeps in the park .", "A man sleeps", premise_tags="DT NN VBZ IN DT NN .",
                     hypothesis_tags="DT NN VBZ")
    assert content_tokens(pair) == (["man", "sleeps", "park"], ["man", "sleeps"])
    model = EditDistanceClassifier(delete=1.0, insert=1.0, substitute=1.0)
    model.fit([pair, make_pair("x", "y z", premise_tags="NN", hypothesis_tags="NN NN")],
              ["entailment", "not_entailment"])
    assert model.distance([pair])[0] == pytest.approx(1 / (3 + 2))  # delete "park"; case ignored


def test_eop_stop_list_also_removes_the_other_class():
    pair = make_pair("There is a dog , not sleeping", "Oh the dog woke up", premise_tags="EX VBZ DT NN , RB VBG",
                     hypothesis_tags="UH DT NN VBD RP")
    assert content_tokens(pair, STOP_LISTS["basic"]) == (["there", "is", "dog", "not", "sleeping"],
                                                         ["oh", "dog", "woke", "up"])
    assert content_tokens(pair, STOP_LISTS["eop"]) == (["is", "dog", "not", "sleeping"], ["dog", "woke"])


def test_lemma_form_reads_lemmas():
    pair = make_pair("Two men are running", "A man runs", premise_tags="CD NNS VBP VBG", hypothesis_tags="DT NN VBZ")
    with pytest.raises(ValueError, match="has no lemmas.*lemmas=True"):
        content_tokens(pair, form="lemma")
    pair = pair.with_annotation((pair.premise_tokens, pair.premise_tags, ("two", "man", "be", "run")),
                                (pair.hypothesis_tokens, pair.hypothesis_tags, ("a", "man", "run")))
    assert content_tokens(pair, form="lemma") == (["man", "be", "run"], ["man", "run"])
    other = make_pair("A cat", "A dog barks", premise_tags="DT NN", hypothesis_tags="DT NN VBZ")
    other = other.with_annotation((other.premise_tokens, other.premise_tags, ("a", "cat")),
                                  (other.hypothesis_tokens, other.hypothesis_tags, ("a", "dog", "bark")))
    model = EditDistanceClassifier(form="lemma", weights="eop_config").fit([pair, other],
                                                                             ["entailment", "not_entailment"])
    assert model.weights_ == {"delete": 0.0, "insert": 1.0, "substitute": 1.0}
    assert model.distance([pair])[0] == 0.0  # "be" deleted for free; man and run match as lemmas


def test_weight_schemes_and_bad_settings():
    pairs = [make_pair("a b c", "a b"), make_pair("a b", "c d")]
    y = ["entailment", "not_entailment"]
    assert EditDistanceClassifier(weights="eop_model").fit(pairs, y).weights_ == {
        "delete": 0.495, "insert": 2.665, "substitute": 2.483}
    assert EditDistanceClassifier(weights="eop_config", substitute=3.0).fit(pairs, y).weights_["substitute"] == 3.0
    for bad, message in [({"form": "stem"}, "form must be one of"), ({"stop_list": "nltk"}, "stop_list must be one"),
                         ({"weights": "random"}, "weights must be one of")]:
        with pytest.raises(ValueError, match=message):
            EditDistanceClassifier(**bad).fit(pairs, y)


def test_threshold_search_finds_the_separating_distance():
    distances = np.array([0.1, 0.2, 0.25, 0.6, 0.7, 0.9])
    entails = np.array([True, True, True, False, False, False])
    assert best_threshold(distances, entails) == (0.25, 1.0)
    # With noise, the best cut keeps the most pairs right; ties keep the smaller threshold.
    threshold, accuracy = best_threshold(np.array([0.1, 0.3, 0.5, 0.7]), np.array([True, False, True, False]))
    assert (threshold, accuracy) == (0.1, 0.75)
    # Nothing entailed can be best.
    assert best_threshold(np.array([0.2, 0.4]), np.array([False, False]))[1] == 1.0


def test_edit_distance_tunes_weights_by_cross_validation_and_predicts():
    train = [make_pair("a man sleeps", "a man sleeps"), make_pair("a man sleeps", "man sleeps"),
             make_pair("a dog runs", "cats dance wildly today"), make_pair("a dog runs", "birds sing")] * 3
    y = ["entailment", "entailment", "not_entailment", "not_entailment"] * 3
    grid = ((0.0, 1.0, 1.0), (0.5, 1.0, 0.5), (1.0, 1.0, 2.0))
    model = EditDistanceClassifier(weight_grid=grid, stop_list="basic").fit(train, y)
    assert set(model.tuning_scores_) == set(grid) and model.train_accuracy_ == 1.0
    # Each triple's score is the held-out accuracy of thresholds searched on the other folds.
    premises, hypotheses = model._tokens(train)
    entails = np.array(y) == "entailment"
    folds = list(StratifiedKFold(3, shuffle=True, random_state=0).split(premises, entails))
    assert model.tuning_scores_[grid[1]] == cv_threshold_accuracy(
        normalized_distances(premises, hypotheses, *grid[1]), entails, folds)
    assert list(model.predict(train)) == y
    assert (model.decision_function(train)[:2] >= 0).all() and (model.decision_function(train)[2:4] < 0).all()
    assert list(model.classes_) == ["entailment", "not_entailment"]
    assert list(pickle.loads(pickle.dumps(model)).predict(train)) == y
    with pytest.raises(TrainingDataError, match="two-class"):
        clone(model).fit(train, ["entailment", "neutral", "contradiction", "neutral"] * 3)


def test_majority_and_training_errors():
    model = MajorityClassifier().fit(np.zeros((4, 1)), ["a", "b", "b", "c"])
    assert list(model.predict(np.zeros((2, 1)))) == ["b", "b"]
    with pytest.raises(TrainingDataError, match="empty"):
        LogisticClassifier().fit(np.zeros((0, 1)), [])
    with pytest.raises(TrainingDataError, match="one class"):
        LogisticClassifier().fit(np.zeros((3, 1)), ["a", "a", "a"])


def test_logistic_three_classes_and_weights():
    X = np.eye(3)[[0, 1, 2, 0, 1, 2]]
    y = ["e", "n", "c", "e", "n", "c"]
    model = LogisticClassifier(C=10.0).fit(X, y)
    assert list(model.predict(X)) == y
    assert model.class_weights().shape == (3, 3)
    binary = LogisticClassifier().fit(np.eye(2)[[0, 1, 0, 1]], ["x", "y", "x", "y"])
    w = binary.class_weights()
    assert w.shape == (2, 2) and np.allclose(w[0], -w[1])


def test_solver_auto_is_newton_pcg_for_many_rows_of_three_classes_else_newton_cg(monkeypatch):
    from nli_baselines.models import logistic
    X = np.eye(3)[[0, 1, 2, 0, 1, 2, 0, 1]]
    y = ["e", "n", "c", "e", "n", "c", "e", "n"]
    assert LogisticClassifier(C=10.0).fit(X, y).solver_ == "newton-cg"  # 8 rows: below NEWTON_FROM_ROWS
    monkeypatch.setattr(logistic, "NEWTON_FROM_ROWS", 8)
    model = LogisticClassifier(C=10.0).fit(X, y)
    assert model.solver_ == "newton-pcg" and model.converged_ and model.n_iter_ > 0
    assert list(model.predict(X)) == y
    assert LogisticClassifier().fit(np.eye(2)[[0, 1, 0, 1]], ["x", "y", "x", "y"]).solver_ == "newton-cg"
    assert LogisticClassifier(solver="lbfgs").fit(X, y).solver_ == "lbfgs"  # an explicit solver is kept
    with pytest.raises(ValueError, match="three or more classes"):
        LogisticClassifier(solver="newton-pcg").fit(np.eye(2)[[0, 1, 0, 1]], ["x", "y", "x", "y"])


def _sparse_problem(seed=0, rows=1500, features=250, empty=40):
    """A 3-class problem on sparse indicator columns, the last `empty` columns never used."""
    import scipy.sparse as sp
    rng = np.random.default_rng(seed)
    X = sp.random(rows, features, density=0.04, random_state=seed, format="csr", dtype=np.float32)
    X.data[:] = 1.0
    X = sp.hstack([X, sp.csr_matrix((rows, empty), dtype=np.float32)], format="csr")
    scores = X @ rng.normal(size=(features + empty, 3)) + rng.gumbel(size=(rows, 3))
    return X, np.array(["c", "e", "n"])[np.argmax(scores, axis=1)]


@pytest.mark.parametrize("C", [0.1, 10.0])
def test_newton_pcg_reaches_scikit_learns_optimum(C):
    # What holds on every CPU and thread count (the products' sums, and so the last bits of a fit,
    # depend on both): each fit meets its stopping rule, and lands within these tolerances of the
    # optimum. Measured with OpenBLAS's SkylakeX, Haswell and Sandybridge kernels and numpy's
    # AVX-512, AVX2 and baseline loops, 1 to 3 threads: objective gaps up to 5.5e-6 (default tol)
    # and 1.2e-9 (tol 1e-5) relative.
    from sklearn.linear_model import LogisticRegression

    from nli_baselines.models.newton_pcg import objective
    X, y = _sparse_problem()
    codes = np.unique(y, return_inverse=True)[1]
    reference = LogisticRegression(C=C, solver="newton-cg", tol=1e-10, max_iter=1000).fit(X.astype(np.float64), y)
    best = objective(X, codes, reference.coef_, reference.intercept_, C)
    for threads in (1, 2, 3):
        model = LogisticClassifier(C=C, solver="newton-pcg", n_jobs=threads).fit(X, y)
        assert model.converged_
        assert objective(X, codes, model.model_.coef_, model.model_.intercept_, C) == pytest.approx(best, rel=1e-5)
        assert (model.predict(X) == reference.predict(X)).mean() > 0.99
        np.testing.assert_allclose(model.predict_proba(X), reference.predict_proba(X), atol=5e-3)
        assert not model.class_weights()[:, -40:].any()  # columns absent from training stay 0
    # Tighter still, but not below the floor of float32 products: the weights are rounded to
    # float32 for every product, which on this problem leaves a gradient of ~4e-6 of g(0) at best
    # (where a fit within it stops depends on the BLAS kernel's rounding: at 1e-6 it converged
    # with Sandybridge's kernel and stalled with SkylakeX's).
    tight = LogisticClassifier(C=C, solver="newton-pcg", tol=1e-5).fit(X, y)
    assert tight.converged_
    assert objective(X, codes, tight.model_.coef_, tight.model_.intercept_, C) == pytest.approx(best, rel=1e-8)


def _gradient_norm(X, codes, coef, intercept, C):
    """||gradient|| of scikit-learn's multinomial objective at (coef, intercept), in float64."""
    from scipy.special import softmax
    X = X.astype(np.float64)
    n = X.shape[0]
    R = softmax(np.asarray(X @ coef.T.astype(np.float64)) + intercept, axis=1)
    R[np.arange(n), codes] -= 1
    g_w = np.asarray(X.T @ R).T / n + coef / (C * n)
    return float(np.sqrt(np.sum(g_w ** 2) + np.sum((R.sum(axis=0) / n) ** 2)))


@pytest.mark.parametrize("tol", [1e-2, 1e-4])
def test_newton_pcg_stops_relative_to_the_gradient_at_zero_cold_or_warm(tol):
    # LIBLINEAR's rule: ||g(w)|| <= tol * ||g(0)||, for a cold fit and for fits started elsewhere
    X, y = _sparse_problem(seed=3)
    codes = np.unique(y, return_inverse=True)[1]
    K, d = 3, X.shape[1]
    at_zero = _gradient_norm(X, codes, np.zeros((K, d)), np.zeros(K), 1.0)  # the same for every C
    cold = LogisticClassifier(C=1.0, solver="newton-pcg", tol=tol).fit(X, y)
    assert cold.converged_ and cold.start_C_ is None
    assert _gradient_norm(X, codes, cold.model_.coef_, cold.model_.intercept_, 1.0) <= tol * at_zero * (1 + 1e-3)
    path = list(LogisticClassifier(solver="newton-pcg", tol=tol).fit_path(X, y, [0.3, 1.0, 3.0]))
    assert [m.C for m in path] == [0.3, 1.0, 3.0] and [m.start_C_ for m in path] == [None, 0.3, 1.0]
    for model in path:
        assert model.converged_ and model.n_iter_ >= 1  # a warm start still has to reach the threshold
        g = _gradient_norm(X, codes, model.model_.coef_, model.model_.intercept_, model.C)
        assert g <= tol * at_zero * (1 + 1e-3)
    assert path[1].n_iter_ <= cold.n_iter_
    np.testing.assert_allclose(path[1].predict_proba(X), cold.predict_proba(X), atol=50 * tol)


def test_fit_path_starts_on_the_line_through_two_given_fits():
    X, y = _sparse_problem(seed=3)
    codes = np.unique(y, return_inverse=True)[1]
    at_zero = _gradient_norm(X, codes, np.zeros((3, X.shape[1])), np.zeros(3), 1.0)
    first, second = LogisticClassifier(solver="newton-pcg").fit_path(X, y, [1.0, 0.3])
    (model,) = LogisticClassifier(solver="newton-pcg").fit_path(X, y, [0.1], start=[first, second])
    assert model.converged_ and model.start_C_ == 0.3  # the nearer fit, given last
    g = _gradient_norm(X, codes, model.model_.coef_, model.model_.intercept_, 0.1)
    assert g <= 5e-4 * at_zero * (1 + 1e-3)  # a start elsewhere, the same stopping point
    (alone,) = LogisticClassifier(solver="newton-pcg").fit_path(X, y, [0.1], start=second)
    np.testing.assert_allclose(model.predict_proba(X), alone.predict_proba(X), atol=2e-2)


def test_fit_path_below_newton_from_rows_fits_each_value_cold():
    X, y = _sparse_problem(seed=4, rows=300)
    path = list(LogisticClassifier().fit_path(X, y, [0.1, 1.0]))
    for model in path:
        cold = LogisticClassifier(C=model.C).fit(X, y)
        assert model.solver_ == "newton-cg" and model.start_C_ is None
        np.testing.assert_array_equal(model.model_.coef_, cold.model_.coef_)  # exactly the cold fit


@pytest.mark.parametrize("C", [0.1, 10.0])
def test_scikit_learn_fits_land_on_the_optimum_whatever_the_cpu(C):
    # Below NEWTON_FROM_ROWS a fit is scikit-learn's newton-cg in float64 to max |gradient| <= 1e-8:
    # its weights are the optimum's to ~1e-7, so what a run reports does not hang on where the
    # solver's path stopped, which the CPU's kernels decide (CI runs this with OpenBLAS's Haswell
    # kernel and with numpy's baseline loops). In float32 at 1e-4, as before, the weights here
    # were 5.6e-4 (C = 0.1) and 4.3e-2 (C = 10) from the optimum.
    from sklearn.linear_model import LogisticRegression
    X, y = _sparse_problem(seed=6, rows=600)  # float32, as the featurizer's
    present = np.flatnonzero(np.bincount(X.indices, minlength=X.shape[1]))
    model = LogisticClassifier(C=C).fit(X, y)
    optimum = LogisticRegression(C=C, solver="newton-cg", tol=1e-12, max_iter=1000).fit(
        X.astype(np.float64)[:, present], y)
    assert model.solver_ == "newton-cg" and model.converged_ and model.model_.coef_.dtype == np.float64
    np.testing.assert_allclose(model.model_.coef_[:, present], optimum.coef_, rtol=0, atol=2e-6)
    np.testing.assert_allclose(model.model_.intercept_, optimum.intercept_, rtol=0, atol=2e-6)


@pytest.mark.parametrize("classes", [2, 3])
def test_columns_no_training_row_has_get_weight_zero_and_the_same_optimum(classes):
    from sklearn.linear_model import LogisticRegression
    X, y = _sparse_problem(seed=5, rows=400)  # its last 40 columns are empty
    y = np.where(y == "n", "e", y) if classes == 2 else y
    model = LogisticClassifier(C=1.0, tol=1e-8).fit(X, y)
    weights = model.model_.coef_
    assert model.solver_ == "newton-cg" and weights.shape == (1 if classes == 2 else 3, 290)
    assert not weights[:, -40:].any()
    # the weights of the other columns: scikit-learn's own fit on all 290 columns, to its precision
    full = LogisticRegression(C=1.0, solver="newton-cg", tol=1e-8).fit(X.astype(np.float64), y)
    np.testing.assert_allclose(weights, full.coef_, atol=1e-4)
    np.testing.assert_array_equal(model.predict(X), full.predict(X))


def test_newton_pcg_with_no_feature_present_fits_the_class_frequencies():
    import scipy.sparse as sp
    X = sp.csr_matrix((6, 4), dtype=np.float32)  # e.g. a learning-curve sample without kept features
    model = LogisticClassifier(solver="newton-pcg").fit(X, list("abcaba"))
    assert model.converged_ and not model.class_weights().any()
    np.testing.assert_allclose(model.predict_proba(X[:1])[0], [3 / 6, 2 / 6, 1 / 6], atol=1e-4)


def test_unconverged_fit_says_so_and_warm_start_resumes():
    from sklearn.exceptions import ConvergenceWarning

    from nli_baselines.models.newton_pcg import objective
    X, y = _sparse_problem(seed=1)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        model = LogisticClassifier(C=10.0, solver="newton-pcg", max_iter=1).fit(X, y)
    assert not model.converged_ and model.n_iter_ == 1
    cold = LogisticClassifier(C=3.0, solver="newton-pcg").fit(X, y)
    warm = LogisticClassifier(C=1.0, solver="newton-pcg", warm_start=True).fit(X, y).set_params(C=3.0).fit(X, y)
    assert warm.converged_ and warm.n_iter_ < cold.n_iter_
    codes = np.unique(y, return_inverse=True)[1]
    assert objective(X, codes, warm.model_.coef_, warm.model_.intercept_, 3.0) == pytest.approx(
        objective(X, codes, cold.model_.coef_, cold.model_.intercept_, 3.0), rel=1e-5)
    assert clone(warm).get_params()["warm_start"] and not hasattr(clone(warm), "model_")


words = st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=7)


def python_distance(t, h, free, delete, insert, substitute):
    """The textbook dynamic programme, free cells counting as matches."""
    d = [[0.0] * (len(h) + 1) for _ in range(len(t) + 1)]
    for i in range(1, len(t) + 1):
        d[i][0] = d[i - 1][0] + delete
    for j in range(1, len(h) + 1):
        d[0][j] = d[0][j - 1] + insert
    for i in range(1, len(t) + 1):
        for j in range(1, len(h) + 1):
            same = t[i - 1] == h[j - 1] or (i - 1, j - 1) in free
            d[i][j] = min(d[i - 1][j - 1] + (0 if same else substitute), d[i - 1][j] + delete, d[i][j - 1] + insert)
    norm = delete * len(t) + insert * len(h)
    return d[-1][-1] / norm if norm else 0.0


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(words, words), min_size=1, max_size=6), st.sampled_from(WEIGHT_GRID), st.data())
def test_exact_alignment_with_free_cells(rows, weights, data):
    premises, hypotheses = [list(t) for t, _ in rows], [list(h) for _, h in rows]
    none = [[] for _ in rows]
    np.testing.assert_allclose(exact_distances(premises, hypotheses, none, *weights),
                               normalized_distances(premises, hypotheses, *weights), atol=1e-9)
    free = [data.draw(st.lists(st.tuples(st.integers(0, max(len(t) - 1, 0)), st.integers(0, max(len(h) - 1, 0))),
                               max_size=4)) if t and h else [] for t, h in zip(premises, hypotheses)]
    expected = [python_distance(t, h, set(f), *weights) for t, h, f in zip(premises, hypotheses, free)]
    np.testing.assert_allclose(exact_distances(premises, hypotheses, free, *weights, chunk=2), expected, atol=1e-9)


def test_newton_pcg_block_of_dense_columns_inverts_the_hessian_there():
    # The preconditioner's exact block (dense columns + intercepts) is the inverse of the Hessian
    # restricted to those parameters, as the Hessian-vector product computes it.
    import scipy.sparse as sp

    from nli_baselines.models.newton_pcg import NewtonProblem
    rng = np.random.default_rng(5)
    bins = np.eye(4)[rng.integers(0, 4, 60)]  # a one-hot group: its columns sum to the intercept's
    rare = np.zeros((60, 6))
    rare[rng.choice(60, (6, 2), replace=False).T, np.arange(6)] = 1.0  # two rows each: under 5%
    X = sp.csr_matrix(np.hstack([rng.normal(size=(60, 1)), bins, rare]).astype(np.float32))
    codes = rng.integers(0, 3, 60)
    problem = NewtonProblem(X, codes, 3)
    assert set(problem.used[problem.block]) == {0, 1, 2, 3, 4}  # the rare columns stay diagonal
    P = rng.dirichlet(np.ones(3), size=60)
    lam = 1e-3
    size = (problem.d + 1) * 3
    H = np.empty((size, size))
    for i in range(size):
        e = np.zeros(size)
        e[i] = 1.0
        U = problem.scores(e) * P
        U -= P * U.sum(axis=1, keepdims=True)
        problem.transposed(U, H[:, i])
        H[problem.weights, i] += lam * e[problem.weights]
    block = problem.block_index
    # The same block in float64 from its definition, sum over rows of (a a') x (diag(p) - p p') / n
    # + the penalty: its null direction (the intercepts all moving together) has an eigenvalue of
    # float64 rounding, which the pseudo-inverse's cutoff drops whatever the CPU. (From the float32
    # products above it is rounding of float32, above or below the cutoff as the kernel sums.)
    A = np.hstack([X[:, problem.used[problem.block]].toarray().astype(np.float64), np.ones((60, 1))])
    exact = sum(np.kron(np.outer(a, a), np.diag(p) - np.outer(p, p)) for a, p in zip(A, P)) / 60
    exact[np.diag_indices(len(exact) - 3)] += lam
    np.testing.assert_allclose(H[np.ix_(block, block)], exact, atol=1e-6)  # as the products compute it
    inverse = problem.block_inverse(P, lam)
    np.testing.assert_allclose(inverse, np.linalg.pinv(exact, rcond=1e-10, hermitian=True),
                               rtol=1e-4, atol=1e-4 * np.abs(inverse).max())
    problem.close()


@pytest.mark.parametrize("threads", [1, 2])
def test_newton_products_with_dense_columns_equal_scipy_s(threads):
    # Columns in most rows are kept as a dense block after the sparse ones (`DENSE_SHARE`), and
    # squared a slice at a time for the Hessian's diagonal: the products must not change.
    from nli_baselines.models.newton_pcg import DENSE_SHARE, _Products, _Squared
    rng = np.random.default_rng(0)
    sparse = sp.random(400, 30, density=0.05, random_state=1, dtype=np.float32).toarray()
    dense = rng.normal(size=(400, 4)).astype(np.float32)
    X = sp.csr_matrix(np.hstack([sparse[:, :10], dense, sparse[:, 10:], np.zeros((400, 1), np.float32)]))
    products = _Products(X, threads)
    assert sorted(products.features[-4:].tolist()) == [10, 11, 12, 13]  # the dense ones, after the others
    assert 34 not in products.features  # a column no row holds takes no part
    assert all(isinstance(m, _Squared) for _, _, m in products.squares[-1:]) and DENSE_SHARE <= 0.5
    V = rng.normal(size=(len(products.features), 3)).astype(np.float32)
    full = np.zeros((X.shape[1], 3), np.float32)
    full[products.features] = V
    np.testing.assert_allclose(sum(products.partial_times(V)), X @ full, rtol=1e-5, atol=1e-5)
    R = rng.normal(size=(400, 3)).astype(np.float32)
    for blocks, matrix in ((None, X), (products.squares, X.multiply(X))):
        out = np.empty((len(products.features), 3), np.float32)
        products.transposed_times(R, out, blocks)
        np.testing.assert_allclose(out, (matrix.T @ R)[products.features], rtol=1e-4, atol=1e-4)
    products.close()


def test_newton_pcg_splits_its_elementwise_steps_without_changing_a_bit(monkeypatch):
    # Between products, newton-pcg's elementwise steps run in parts, one per thread: each value
    # is computed by the same operations whichever part holds it, so the fit is the fit of the
    # steps taken whole, bit for bit (small parts here, cut off the alignment of the whole).
    # Promised on every CPU: the steps are numpy's elementwise operations, each value rounded
    # alone, never a BLAS kernel's (CI runs this with OpenBLAS's Haswell kernel and with numpy's
    # SIMD loops off: `.ci/run`).
    from nli_baselines.models import newton_pcg
    from nli_baselines.models.newton_pcg import _Products
    X, y = _sparse_problem()
    whole = LogisticClassifier(C=1.0, solver="newton-pcg", n_jobs=2)
    monkeypatch.setattr(newton_pcg, "_PARTS_FROM", 10 ** 12)
    expected = whole.fit(X, y).model_
    monkeypatch.setattr(newton_pcg, "_PARTS_FROM", 1)
    monkeypatch.setattr(newton_pcg, "_ALIGNED", 8)
    seen = []
    steps = _Products.in_parts

    def recorded(products, step, length):
        seen.append(length)
        return steps(products, lambda lo, hi: (seen.append((lo, hi)), step(lo, hi)), length)

    monkeypatch.setattr(_Products, "in_parts", recorded)
    split = LogisticClassifier(C=1.0, solver="newton-pcg", n_jobs=2).fit(X, y).model_
    assert split.coef_.tobytes() == expected.coef_.tobytes()
    assert split.intercept_.tobytes() == expected.intercept_.tobytes()
    parts = [item for item in seen if isinstance(item, tuple)]
    assert len(parts) > len(seen) - len(parts) > 0  # the steps did run in more than one part
    assert all(lo % 8 == 0 for lo, hi in parts)


def test_newton_pcg_axpy_rounds_the_product_first_wherever_a_part_begins():
    # y += a * x in the conjugate gradients: a * x rounded, then the sum rounded, value by value,
    # as Python's floats do it. BLAS's daxpy fused the two (one rounding) in the vector loop of
    # its FMA kernels (Haswell, Zen, SkylakeX) and not in its scalar loop over a short part's
    # values, so bits depended on the CPU and on where a part began: this failed with it.
    from nli_baselines.models.newton_pcg import _axpy
    rng = np.random.default_rng(0)
    x, y, a = rng.standard_normal(1_003), rng.standard_normal(1_003), 0.3712345
    expected = np.array([yi + a * xi for xi, yi in zip(x.tolist(), y.tolist())])
    whole, scratch = y.copy(), np.empty_like(y)
    _axpy(a, x, whole, scratch)
    assert whole.tobytes() == expected.tobytes()
    parts = y.copy()
    for lo in range(0, len(y), 7):
        _axpy(a, x[lo:lo + 7], parts[lo:lo + 7], scratch[lo:lo + 7])
    assert parts.tobytes() == expected.tobytes()


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_newton_pcg_refits_the_same_configuration_to_the_bit(threads):
    # Promised on every CPU: the same matrix, labels, C and thread count give the same bits on
    # every rerun (each product block has one thread, and parts are summed in a fixed order),
    # along a path too. Other thread counts or CPUs give the same fit only within the stopping
    # rule (test_newton_pcg_reaches_scikit_learns_optimum).
    X, y = _sparse_problem(seed=2)
    first = LogisticClassifier(C=1.0, solver="newton-pcg", n_jobs=threads).fit(X, y).model_
    again = LogisticClassifier(C=1.0, solver="newton-pcg", n_jobs=threads).fit(X, y).model_
    assert first.coef_.tobytes() == again.coef_.tobytes()
    assert first.intercept_.tobytes() == again.intercept_.tobytes()
    path = [m.model_ for m in LogisticClassifier(solver="newton-pcg", n_jobs=threads).fit_path(X, y, [0.3, 1.0])]
    rerun = [m.model_ for m in LogisticClassifier(solver="newton-pcg", n_jobs=threads).fit_path(X, y, [0.3, 1.0])]
    assert [m.coef_.tobytes() for m in path] == [m.coef_.tobytes() for m in rerun]


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="CPU affinity is Linux's")
def test_newton_pcg_threads_count_the_cores_this_process_may_use():
    # A process bound to one core (taskset, a container's cpuset) runs one thread, whatever the
    # machine's core count: two threads on one core cost the SNLI-scale C path 32% more.
    import subprocess
    import sys
    code = ("import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
            "from nli_baselines.models.newton_pcg import threads; print(threads(None))")
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1"


def test_newton_pcg_parts_are_all_finished_before_an_error_leaves_in_parts():
    # A step that fails on this thread must not return to the caller while another thread still
    # writes into the arrays the caller is about to drop or reuse.
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    from nli_baselines.models.newton_pcg import _PARTS_FROM, _Products
    products = _Products.__new__(_Products)
    products.pool, products.lanes = ThreadPoolExecutor(1), 2
    finished = threading.Event()

    def step(lo, hi):
        if lo == 0:  # the pool's part: slow
            time.sleep(0.2)
            finished.set()
        else:  # this thread's part, the last: fails at once
            raise ValueError("part failed")

    try:
        with pytest.raises(ValueError, match="part failed"):
            products.in_parts(step, _PARTS_FROM)
        assert finished.is_set()
    finally:
        products.pool.shutdown()


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_newton_products_hold_the_rows_of_x_transposed_entry_for_entry(threads, monkeypatch):
    # _Products builds X.T a block of features or a slice of rows at a time, never X.T.tocsr()
    # whole: its blocks must still hold X.T's rows with their entries in the same order (so that
    # every product sums alike), duplicates, explicit zeros and unsorted rows included.
    from nli_baselines.models import newton_pcg
    from nli_baselines.models.newton_pcg import DENSE_SHARE, NewtonProblem
    monkeypatch.setattr(newton_pcg, "_SLICE", 40)  # many slices, even of this small matrix
    monkeypatch.setattr(newton_pcg, "BLOCK_ROWS", 50)  # the preconditioner samples every 3rd row
    rng = np.random.default_rng(2)
    n, d = 120, 30
    rows = [rng.permutation(np.concatenate([rng.integers(0, d - 1, rng.integers(0, 8)),  # repeats: duplicates
                                            [c for c in (3, 17) if rng.random() < 0.9]]))  # two dense columns
            for _ in range(n)]  # column d - 1 in no row
    data = rng.normal(size=sum(map(len, rows))).astype(np.float32)
    data[::11] = 0.0  # stored zeros count as entries
    X = sp.csr_matrix((data, np.concatenate(rows).astype(np.int32), np.cumsum([0] + [len(r) for r in rows])),
                      shape=(n, d))
    assert not X.has_canonical_format
    Xt = X.T.tocsr()
    counts = np.diff(Xt.indptr)
    features = np.flatnonzero(counts)
    dense = counts[features] >= DENSE_SHARE * n
    St, Dt = Xt[features[~dense]], Xt[features[dense]].toarray()
    problem = NewtonProblem(X, rng.integers(0, 3, n), 3, threads)
    products = problem.products
    assert products.features.tolist() == [*features[~dense], *features[dense]] and dense.sum() == 2
    np.testing.assert_array_equal(products.counts, counts[products.features])
    spans = [(lo, hi) for lo, hi, _ in products.blocks]
    assert spans[0][0] == 0 and spans[-1][1] == len(features) and all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
    for lo, hi, block in products.blocks:
        if sp.issparse(block):
            expected = St[lo:hi]
            for part in ("indptr", "indices", "data"):
                assert getattr(block, part).dtype == getattr(expected, part).dtype
                np.testing.assert_array_equal(getattr(block, part), getattr(expected, part))
        else:
            assert block.dtype == np.float32 and block.flags.c_contiguous
            np.testing.assert_array_equal(block, Dt[lo - St.shape[0]:hi - St.shape[0]])
    problem.close()
    for matrix in (X, X.toarray()):  # the preconditioner's block: every 3rd row of its columns, then ones
        problem = NewtonProblem(matrix, rng.integers(0, 3, n), 3, threads)
        sampled = matrix[::3][:, problem.used[problem.block]]
        expected = np.hstack([sampled.toarray() if sp.issparse(sampled) else sampled, np.ones((40, 1))])
        np.testing.assert_array_equal(problem.block_matrix, expected.astype(np.float32))
        problem.close()


def test_ridge_gives_the_same_weights_on_any_number_of_blas_threads():
    # OpenBLAS splits a long dot product (LSQR's norms over >10,000 columns) across its threads,
    # and the last bits followed the thread count: the stacked model's trees then split differently.
    from threadpoolctl import threadpool_limits
    rng = np.random.default_rng(0)
    X = sp.random(600, 30000, density=0.004, random_state=2, format="csr")
    y = X @ rng.normal(size=30000) + 0.1 * rng.normal(size=600)
    fits = []
    for threads in (1, 2, None):
        with threadpool_limits(threads, user_api="blas"):
            model = RidgeRegressor(alpha=0.3).fit(X, y)
            fits.append(np.r_[model.coef_, model.intercept_])  # the intercept's dot product too
    assert np.array_equal(fits[0], fits[1]) and np.array_equal(fits[0], fits[2])
