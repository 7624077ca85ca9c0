"""The stacked model (`models.stacked`): scikit-learn conventions, determinism, the real-valued
column mask, and a run through the experiment engine, which hands it the featurizer's mask."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from nli_baselines.features import PairFeaturizer
from nli_baselines.models import MODELS, StackedClassifier
from tests.conftest import TINY


def toy(n=120, seed=0):
    """Two real-valued columns that decide the label with an indicator block that echoes it."""
    rng = np.random.default_rng(seed)
    real = rng.normal(size=(n, 2))
    y = np.where(real[:, 0] + 0.5 * real[:, 1] > 0.3, "entailment", np.where(real[:, 0] < -0.5, "contradiction",
                                                                               "neutral"))
    noise = rng.random(n) < 0.2
    echo = np.where(noise, rng.integers(0, 3, n), np.searchsorted(["contradiction", "entailment", "neutral"], y))
    indicators = np.zeros((n, 4))
    indicators[np.arange(n), echo] = 1
    indicators[:, 3] = rng.random(n) < 0.5
    return sp.csr_matrix(np.hstack([real, indicators]).astype(np.float32)), y


FAST = dict(max_iter=20, C_grid=(0.1, 1.0), cv=3)


def test_fit_predict_conventions():
    X, y = toy()
    model = StackedClassifier(**FAST)
    assert clone(model).get_params() == model.get_params()
    model.fit(X, y)
    assert model.dense_mask_.tolist() == [True, True, False, False, False, False]  # inferred: non-0/1 values
    proba = model.predict_proba(X)
    assert proba.shape == (len(y), 3) and np.allclose(proba.sum(axis=1), 1.0)
    assert list(model.classes_) == ["contradiction", "entailment", "neutral"]
    assert set(model.predict(X)) <= set(model.classes_) and np.mean(model.predict(X) == y) > 0.8
    assert model.C_ in (0.1, 1.0) and set(model.lr_scores_) == {0.1, 1.0}
    assert not hasattr(clone(model), "trees_")


def test_deterministic_for_a_seed_and_predict_changes_nothing():
    X, y = toy()
    a = StackedClassifier(random_state=3, **FAST).fit(X, y).predict_proba(X)
    model = StackedClassifier(random_state=3, **FAST).fit(X, y)
    before = model.predict_proba(X)
    assert np.array_equal(a, before)
    model.predict(X[:5])
    assert np.array_equal(model.predict_proba(X), before)


def test_given_mask_and_errors():
    X, y = toy()
    by_index = StackedClassifier(dense_columns=[0], **FAST).fit(X, y)
    assert by_index.dense_mask_.tolist() == [True] + [False] * 5
    with pytest.raises(ValueError, match="dense_columns has 2 entries for 6 columns"):
        StackedClassifier(dense_columns=np.array([True, False]), **FAST).fit(X, y)
    with pytest.raises(ValueError, match="lr_columns"):
        StackedClassifier(lr_columns="some", **FAST).fit(X, y)


def test_the_featurizer_knows_its_real_valued_columns():
    featurizer = PairFeaturizer(features="unlexicalized,hyp_ngrams", min_count=1, bins=3, n_jobs=1)
    X = featurizer.fit_transform(TINY)
    mask = featurizer.real_valued_mask()
    names = featurizer.get_feature_names_out()
    assert len(mask) == X.shape[1]
    # bleu:score, length_diff:hyp_minus_premise and the four overlap values; bins and n-grams are indicators
    assert [n for n, real in zip(names, mask) if real] == [
        "bleu:score", "length_diff:hyp_minus_premise", "overlap:count_all", "overlap:pct_all",
        "overlap:count_content", "overlap:pct_content"]


def test_the_engine_hands_the_mask_to_the_model():
    # ~3-5 s: a whole run (demo corpus generated, featurized; 7 C x 5 folds of LR, then the trees).
    import nli_baselines as nb
    assert MODELS["stacked"].real_valued_param == "dense_columns"
    record = nb.run(dataset="demo", model="stacked", features="unlexicalized", quiet=True,
                    train_size=150).record
    row, = record["rows"]
    # unlexicalized: bleu 1 + length_diff 1 + overlap 4 real-valued columns, whatever the bins
    assert row["fitted"]["dense_columns"] == 6 and row["metrics"]["dev"]["accuracy"] > 0.4


def test_blend_mixes_trees_and_logistic_regression():
    X, y = toy()
    fast = {**FAST, "max_iter": 5}
    trees_only = StackedClassifier(blend=0.0, **fast).fit(X, y)
    assert np.allclose(trees_only.predict_proba(X), trees_only.trees_.predict_proba(trees_only._stacked(X)))
    lr_only = StackedClassifier(blend=1.0, **fast).fit(X, y)
    assert np.allclose(lr_only.predict_proba(X), lr_only.lr_.predict_proba(X))  # lr_columns="all": every column
    with pytest.raises(ValueError, match="blend must be between 0 and 1"):
        StackedClassifier(blend=1.5, **fast).fit(X, y)


# scikit-learn's shared estimator checks (~55 of them, a few seconds in all), on a small, fast
# configuration: C fixed, two folds, five boosting rounds.
@parametrize_with_checks([StackedClassifier(C=1.0, cv=2, max_iter=5)])
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


def test_the_report_shows_the_c_the_stacked_model_chose_inside():
    from nli_baselines.experiments.reports.report import _chosen
    from nli_baselines.models.stacked import SPEC
    model = StackedClassifier(C_grid=(0.1, 1.0), cv=2, max_iter=3)
    X = np.random.default_rng(0).random((40, 4))
    y = np.array(["a", "b"] * 20, dtype=object)
    model.fit(X, y)
    row = {"fitted": SPEC.describe(model)}
    assert _chosen(row) == f"C={model.C_} (inner)"
    assert _chosen({"selection": {"chosen": {"C": 0.3}, "at_edge": "highest"}, **row}) == "C=0.3 (edge)"
