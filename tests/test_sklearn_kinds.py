"""The declared states of the scikit-learn kinds (models/sklearn_kinds.py): every kind saves and
restores to identical predictions, and hostile states are refused before any estimator runs."""
from __future__ import annotations

import json
import time

import numpy as np
import pytest
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier
from sklearn.tree import DecisionTreeClassifier
from sklearn.tree._tree import NODE_DTYPE
from threadpoolctl import threadpool_limits

from nli_baselines.features.storage.schema import ARRAY, Part, Reader, Schema, Sizes, StateError, Writer
from nli_baselines.models.sklearn_kinds import HIST_GRADIENT_BOOSTING, LOGISTIC_REGRESSION, SKLEARN_KINDS, kind_of
from tests.model_kinds import FACTORIES, LABELS, N_FEATURES, dump_kind, fit_kind, kind_data, kind_outputs, load_kind


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    # HGB's OpenMP loops on a busy machine take seconds per fit with every core; one is plenty here.
    with threadpool_limits(limits=1):
        yield


def test_every_kind_is_tested():
    assert {type(FACTORIES[name]()) for name in FACTORIES} == set(SKLEARN_KINDS)


@pytest.mark.parametrize("n_classes", [3, 2])
@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_restored_estimator_predicts_identically(name, n_classes):
    if kind_of(FACTORIES[name]()).untested():
        pytest.skip(kind_of(FACTORIES[name]()).untested())  # its model files refuse this release
    original, X, labels = fit_kind(name, n_classes)
    kind, tree, arrays = dump_kind(original)
    restored = load_kind(kind, tree, arrays, labels, fresh=FACTORIES[name]())
    want, got = kind_outputs(original, X), kind_outputs(restored, X)
    assert want.keys() == got.keys() and "predict" in want
    for method in want:
        for a, b in zip(want[method], got[method]):
            assert a.shape == b.shape and np.array_equal(a, b), (name, method)


@pytest.mark.parametrize("factory", [lambda: DecisionTreeClassifier(random_state=0),
                                     lambda: RandomForestClassifier(n_estimators=4, random_state=0),
                                     lambda: HistGradientBoostingClassifier(max_iter=5)])
def test_trees_fitted_with_missing_values(factory):
    # Splits that send only missing values right have threshold +inf; NaN inputs follow the
    # kept missing_go_to_left.
    X, y = kind_data(3, True)
    X[np.random.default_rng(2).random(X.shape) < 0.2] = np.nan
    X[:, 0] = np.where(y == LABELS[0], np.nan, X[:, 0])
    original = factory().fit(X, y)
    restored = load_kind(*dump_kind(original), LABELS, fresh=factory())
    for method in ("predict", "predict_proba"):
        assert np.array_equal(getattr(original, method)(X), getattr(restored, method)(X))


def test_nested_schemas_build_from_default_constructors():
    # A suite model holding an LR and an HGB nests their schemas as Parts.
    X_sparse, y = kind_data(3, False)
    lr = LogisticRegression().fit(X_sparse, y)
    X_dense = kind_data(3, True)[0][:, :5]  # the boosted trees read columns of their own
    hgb = HistGradientBoostingClassifier(max_iter=5).fit(X_dense, y)
    suite = Schema("suite model", {"lr_": Part(LOGISTIC_REGRESSION),
                                   "trees_": Part(HIST_GRADIENT_BOOSTING, free=("n_features",))},
                   build=lambda values, sizes: values)
    writer = Writer()
    tree = json.loads(json.dumps(suite.dump(type("M", (), {"lr_": lr, "trees_": hgb})(), writer, "model")))
    loaded = suite.load(tree, Reader(writer.arrays), "model", Sizes({"n_features": N_FEATURES, "labels": LABELS}))
    assert type(loaded["lr_"]) is LogisticRegression and type(loaded["trees_"]) is HistGradientBoostingClassifier
    assert np.array_equal(loaded["lr_"].predict_proba(X_sparse), lr.predict_proba(X_sparse))
    assert np.array_equal(loaded["trees_"].predict_proba(X_dense), hgb.predict_proba(X_dense))
    assert loaded["trees_"].n_iter_ == hgb.n_iter_


def test_kind_of_is_exact():
    class Mine(LogisticRegression):
        pass

    assert kind_of(LogisticRegression()) is SKLEARN_KINDS[LogisticRegression]
    assert kind_of(Mine()) is None
    original, X, labels = fit_kind("logistic", 3)
    with pytest.raises(ValueError, match="cannot be restored into"):
        load_kind(*dump_kind(original), labels, fresh=RandomForestClassifier())
    # A subclass its spec declares as this kind restores (the declaration is the caller's).
    mine = load_kind(*dump_kind(original), labels, fresh=Mine())
    assert type(mine) is Mine and np.array_equal(mine.predict_proba(X), original.predict_proba(X))


def test_no_runtime_objects_in_state():
    for name in FACTORIES:
        estimator, _, _ = fit_kind(name, 3)
        _, tree, arrays = dump_kind(estimator)
        text = json.dumps(tree)
        for word in ("n_jobs", "random_state", "verbose", "warm_start", "_loss", "metric", "solver"):
            assert word not in text, (name, word)
        assert all(array.dtype.fields is None and array.dtype != object for array in arrays.values())


# ------------------------------------------------------------------ hostile states


def _fitted_state(name, n_classes=3):
    estimator, X, labels = fit_kind(name, n_classes)
    kind, tree, arrays = dump_kind(estimator)
    return kind, tree, arrays, labels


def _refused(kind, tree, arrays, labels, match, **kw):
    with pytest.raises(StateError, match=match):
        load_kind(kind, tree, arrays, labels, **kw)


def _edit(arrays, path, change):
    array = arrays[path].copy()
    change(array)
    arrays[path] = array


def _inner_node(arrays, path):
    return int(np.flatnonzero(arrays[f"{path}.children_left"] != -1)[0])


@pytest.mark.parametrize("name,path", [("tree", "estimator.tree_"), ("random-forest", "estimator.trees/2")])
def test_tree_links_out_of_range_or_backwards(name, path):
    kind, tree, arrays, labels = _fitted_state(name)
    n = len(arrays[f"{path}.children_left"])
    for column, value in (("children_left", n), ("children_right", n + 10**9), ("children_right", 0),
                          ("children_left", -5)):
        edited = dict(arrays)
        _edit(edited, f"{path}.{column}", lambda a: a.__setitem__(_inner_node(arrays, path), value))
        _refused(kind, tree, edited, labels, "later node|below|one tree")
    # A leaf that points somewhere, and two parents for one node.
    edited = dict(arrays)
    leaf = int(np.flatnonzero(arrays[f"{path}.children_left"] == -1)[0])
    _edit(edited, f"{path}.children_right", lambda a: a.__setitem__(leaf, n - 1))
    _refused(kind, tree, edited, labels, "one child")
    edited = dict(arrays)
    inner = np.flatnonzero(arrays[f"{path}.children_left"] != -1)
    _edit(edited, f"{path}.children_left", lambda a: a.__setitem__(inner[-1], a[inner[-2]]))
    _refused(kind, tree, edited, labels, "one tree|later node")


def test_tree_feature_outside_the_input():
    kind, tree, arrays, labels = _fitted_state("extra-trees")
    path = "estimator.trees/0"
    edited = dict(arrays)
    _edit(edited, f"{path}.feature", lambda a: a.__setitem__(_inner_node(arrays, path), N_FEATURES))
    _refused(kind, tree, edited, labels, "column outside")
    edited = dict(arrays)
    leaf = int(np.flatnonzero(arrays[f"{path}.children_left"] == -1)[0])
    _edit(edited, f"{path}.feature", lambda a: a.__setitem__(leaf, 3))
    _refused(kind, tree, edited, labels, "leaf has a feature")


@pytest.mark.parametrize("name,path", [
    ("tree", "estimator.tree_.threshold"), ("logistic", "estimator.coef_"),
    ("hist-gradient-boosting", "estimator._predictors/2/0.num_threshold"), ("gaussian-nb", "estimator.theta_"),
    ("hist-gradient-boosting", "estimator._predictors/0/1.value"), ("mlp", "estimator.layers/1.coef"),
    ("knn", "estimator._fit_X/csr.data"), ("tree", "estimator.tree_.value"),
])
def test_nan_values(name, path):
    kind, tree, arrays, labels = _fitted_state(name)
    _edit(arrays, path, lambda a: a.reshape(-1).__setitem__(0, np.nan))
    _refused(kind, tree, arrays, labels, "NaN")


def test_tree_values_are_fractions():
    kind, tree, arrays, labels = _fitted_state("random-forest")
    _edit(arrays, "estimator.trees/1.value", lambda a: a.reshape(-1).__setitem__(0, 1e308))
    _refused(kind, tree, arrays, labels, "above 1")


def test_hgb_categorical_split_and_model():
    kind, tree, arrays, labels = _fitted_state("hist-gradient-boosting")
    _edit(arrays, "estimator._predictors/1/0.is_categorical", lambda a: a.__setitem__(0, 1))
    _refused(kind, tree, arrays, labels, "categorical split")

    X, y = kind_data(3, True)
    X[:, 0] = np.random.default_rng(1).integers(0, 4, len(X))
    model = HistGradientBoostingClassifier(max_iter=3, categorical_features=[0]).fit(X, y)
    with pytest.raises(ValueError, match="categorical"):
        kind.ready(model)


def test_hgb_links_features_and_sums():
    kind, tree, arrays, labels = _fitted_state("hist-gradient-boosting")
    path = "estimator._predictors/0/0"
    for column, value, match in (("left", 0, "later node"), ("right", 10**6, "later node"),
                                 ("feature_idx", N_FEATURES, "column outside")):
        edited = dict(arrays)
        _edit(edited, f"{path}.{column}", lambda a: a.__setitem__(0, value))
        _refused(kind, tree, edited, labels, match)
    edited = dict(arrays)
    _edit(edited, f"{path}.num_threshold", lambda a: a.__setitem__(0, -np.inf))
    _refused(kind, tree, edited, labels, "NaN or -inf")
    edited = dict(arrays)
    for k in range(3):
        _edit(edited, f"estimator._predictors/0/{k}.value", lambda a: a.__setitem__(np.s_[:], 1e308))
        _edit(edited, f"estimator._predictors/1/{k}.value", lambda a: a.__setitem__(np.s_[:], 1e308))
    _refused(kind, tree, edited, labels, "infinity")
    # Three classes take three trees per iteration.
    edited_tree = json.loads(json.dumps(tree))
    edited_tree["_predictors"][2] = edited_tree["_predictors"][2][:2]
    _refused(kind, edited_tree, arrays, labels, "n_trees_per_iteration")


def test_mlp_layer_shapes_must_chain():
    kind, tree, arrays, labels = _fitted_state("mlp")
    edited = dict(arrays)
    edited["estimator.layers/1.coef"] = arrays["estimator.layers/1.coef"][:-1]
    _refused(kind, tree, edited, labels, "layer 1 reads")
    edited = dict(arrays)
    edited["estimator.layers/2.coef"] = arrays["estimator.layers/2.coef"][:, :2]
    edited["estimator.layers/2.intercept"] = arrays["estimator.layers/2.intercept"][:2]
    _refused(kind, tree, edited, labels, "outputs for 3 classes")
    edited = dict(arrays)
    edited["estimator.layers/0.intercept"] = arrays["estimator.layers/0.intercept"][:-1]
    _refused(kind, tree, edited, labels, "n_out")


def test_knn_sparse_rows():
    kind, tree, arrays, labels = _fitted_state("knn")
    path = "estimator._fit_X/csr"
    edited = dict(arrays)
    _edit(edited, f"{path}.indices", lambda a: a.__setitem__(3, N_FEATURES))
    _refused(kind, tree, edited, labels, "column index")
    edited = dict(arrays)
    _edit(edited, f"{path}.indptr", lambda a: a.__setitem__(5, a[4] - 1))
    _refused(kind, tree, edited, labels, "decreases")
    edited = dict(arrays)
    _edit(edited, f"{path}.indptr", lambda a: a.__setitem__(-1, a[-1] + 1))
    _refused(kind, tree, edited, labels, "number of values")
    edited = dict(arrays)
    _edit(edited, f"{path}.indices", lambda a: a.__setitem__(np.s_[0:2], a[0:2][::-1]))
    _refused(kind, tree, edited, labels, "sorted")
    edited = dict(arrays)
    edited[f"{path}.indptr"] = arrays[f"{path}.indptr"].astype(np.int64)
    _refused(kind, tree, edited, labels, "differ in dtype")
    edited = dict(arrays)
    _edit(edited, "estimator._y", lambda a: a.__setitem__(0, 3))
    _refused(kind, tree, edited, labels, "class code")
    # The factory's neighbour count must fit the kept rows.
    with pytest.raises(StateError, match="neighbours"):
        load_kind(kind, tree, arrays, labels, fresh=KNeighborsClassifier(n_neighbors=10_000))


def test_knn_tree_index_refused():
    X, y = kind_data(3, True)
    with pytest.raises(ValueError, match="kd_tree"):
        kind_of(KNeighborsClassifier()).ready(KNeighborsClassifier(algorithm="kd_tree").fit(X, y))


def test_multi_output_tree_refused():
    X, y = kind_data(3, True)
    with pytest.raises(ValueError, match="multi-output|one list"):
        kind_of(DecisionTreeClassifier()).ready(DecisionTreeClassifier().fit(X, np.stack([y, y[::-1]], axis=1)))


def test_classes_must_be_among_the_labels():
    kind, tree, arrays, labels = _fitted_state("logistic")
    _refused(kind, tree, arrays, labels[:2] + ["other"], "not one of the model's labels")
    edited = json.loads(json.dumps(tree))
    edited["classes_"] = edited["classes_"][::-1]
    _refused(kind, edited, arrays, labels, "sorted")


def test_undeclared_field_refused():
    kind, tree, arrays, labels = _fitted_state("random-forest")
    _refused(kind, {**tree, "n_jobs": 8}, arrays, labels, "not a declared field")
    nested = json.loads(json.dumps(tree))
    nested["trees"][0]["nodes"] = None
    _refused(kind, nested, arrays, labels, "not a declared field")
    _refused(kind, {k: v for k, v in tree.items() if k != "trees"}, arrays, labels, "lacks its field")


@pytest.mark.parametrize("dtype", [np.complex64, np.int64, np.float16])
def test_wrong_dtype_refused(dtype):
    kind, tree, arrays, labels = _fitted_state("logistic")
    arrays["estimator.coef_"] = arrays["estimator.coef_"].astype(dtype)
    _refused(kind, tree, arrays, labels, "are declared")


def test_structured_nodes_refused():
    kind, tree, arrays, labels = _fitted_state("tree")
    arrays["estimator.tree_.children_left"] = np.zeros(len(arrays["estimator.tree_.children_left"]), NODE_DTYPE)
    _refused(kind, tree, arrays, labels, "are declared")


def test_width_must_match_the_input():
    kind, tree, arrays, labels = _fitted_state("logistic")
    _refused(kind, tree, arrays, labels, "n_features", n_features=N_FEATURES + 1)
    kind, tree, arrays, labels = _fitted_state("knn-dense")
    _refused(kind, tree, arrays, labels, "n_features", n_features=N_FEATURES - 1)
    kind, tree, arrays, labels = _fitted_state("tree")  # declared, as no array is as wide as the input
    _refused(kind, tree, arrays, labels, "n_features", n_features=2)


def test_linear_rows_match_the_classes():
    kind, tree, arrays, labels = _fitted_state("sgd-log", n_classes=2)
    arrays["estimator.coef_"] = np.vstack([arrays["estimator.coef_"]] * 2)
    arrays["estimator.intercept_"] = np.concatenate([arrays["estimator.intercept_"]] * 2)
    _refused(kind, tree, arrays, labels, "2 rows for 2 classes")


def test_naive_bayes_checks():
    kind, tree, arrays, labels = _fitted_state("gaussian-nb")
    _edit(arrays, "estimator.var_", lambda a: a.__setitem__((0, 0), 0))
    _refused(kind, tree, arrays, labels, "not positive")
    kind, tree, arrays, labels = _fitted_state("bernoulli-nb")
    _edit(arrays, "estimator.feature_log_prob_", lambda a: a.__setitem__((0, 0), 0.0))
    _refused(kind, tree, arrays, labels, "probability of 1")


def test_large_forest_loads_fast():
    # 100 trees of 10,001 nodes: the checks are vectorized, not a walk per node.
    n = 10_001
    index = np.arange(n)
    inner = index < n // 2
    left = np.where(inner, 2 * index + 1, -1)
    right = np.where(inner, 2 * index + 2, -1)
    rng = np.random.default_rng(0)
    value = rng.dirichlet(np.ones(3), n).reshape(n, 1, 3)
    columns = {"children_left": left, "children_right": right,
               "feature": np.where(inner, index % N_FEATURES, -2), "threshold": np.where(inner, 0.5, -2.0),
               "missing_go_to_left": inner.astype(np.uint8), "value": value, "impurity": np.zeros(n),
               "n_node_samples": np.ones(n, dtype=np.int64), "weighted_n_node_samples": np.ones(n)}
    arrays = {f"estimator.trees/{t}.{name}": column for t in range(100) for name, column in columns.items()}
    tree = {"n_features_in_": N_FEATURES, "classes_": list(LABELS), "trees": [{name: ARRAY for name in columns}] * 100}
    kind = SKLEARN_KINDS[RandomForestClassifier]
    start = time.perf_counter()
    forest = load_kind(kind, tree, arrays, LABELS, fresh=RandomForestClassifier(n_estimators=100))
    elapsed = time.perf_counter() - start
    assert elapsed < 1.0, elapsed
    assert forest.estimators_[0].tree_.max_depth == 13 and forest.estimators_[0].tree_.node_count == n
    proba = forest.predict_proba(kind_data(3, False)[0])
    assert np.isfinite(proba).all() and np.allclose(proba.sum(axis=1), 1)


def test_a_forests_members_are_made_once_and_copied(monkeypatch):
    # A clone per member took most of the load of a large forest (50,000 trees: over a minute):
    # without a random_state, scikit-learn's _make_estimator makes every member alike.
    original, X, labels = fit_kind("random-forest", 3)
    kind, tree, arrays = dump_kind(original)
    made = []
    make = RandomForestClassifier._make_estimator
    monkeypatch.setattr(RandomForestClassifier, "_make_estimator",
                        lambda self, *a, **k: made.append(1) or make(self, *a, **k))
    restored = load_kind(kind, tree, arrays, labels, fresh=FACTORIES["random-forest"]())
    assert len(made) == 1 and len(restored.estimators_) == 5
    members = restored.estimators_
    assert len({id(m) for m in members}) == 5 and len({id(m.tree_) for m in members}) == 5
    fresh = FACTORIES["random-forest"]()
    fresh._validate_estimator()
    assert all(m.get_params() == make(fresh, append=False).get_params() for m in members)
    assert np.array_equal(restored.predict_proba(X), original.predict_proba(X))


@pytest.mark.parametrize("name,path,value", [
    ("logistic", "estimator.coef_", "max / 10"), ("linear-svc", "estimator.intercept_/array", 1e308),
    ("multinomial-nb", "estimator.feature_log_prob_", -1e308), ("bernoulli-nb", "estimator.class_log_prior_", -1e308),
    ("gaussian-nb", "estimator.var_", "tiny / 10"), ("mlp", "estimator.layers/1.coef", "max / 10"),
    ("knn-dense", "estimator._fit_X/dense", 1e200),
])
def test_weights_that_overflow_are_refused(name, path, value):
    # Finite, but scores of ordinary inputs would overflow (and softmax or logsumexp make NaN). A
    # text value is relative to the array's own dtype (float32 or float64: scikit-learn releases
    # keep some fits of float32 input in either).
    kind, tree, arrays, labels = _fitted_state(name)
    if isinstance(value, str):
        limits = np.finfo(arrays[path].dtype)
        value = {"max / 10": float(limits.max) / 10, "tiny / 10": float(limits.tiny) / 10}[value]
    if abs(value) > float(np.finfo(arrays[path].dtype).max):  # a float64 state of a model fitted on float32
        arrays[path] = arrays[path].astype(np.float64)
    _edit(arrays, path, lambda a: a.reshape(-1).__setitem__(0, value))
    _refused(kind, tree, arrays, labels, "overflow")
