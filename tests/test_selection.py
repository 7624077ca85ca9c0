"""Hyperparameter selection: the same choice and scores as fitting each candidate by hand."""
from __future__ import annotations

import numpy as np
import pytest

from experiments.engine.selection import choose, out_of_fold_predictions, stratified_folds
from models import LogisticClassifier


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(103, 5))  # 103 pairs: 5 folds of unequal size
    y = np.where(X[:, 0] + 0.8 * rng.normal(size=103) > 0, "entailment", "not_entailment").astype(object)
    return X, y


GRID = {"C": (3.0, 0.001, 0.1)}  # given unsorted: numbers are tried from the smallest


def test_dev_route_equals_fitting_each_candidate(problem):
    X, y = problem
    X_train, y_train, X_dev, y_dev = X[:70], y[:70], X[70:], y[70:]
    chosen = choose(LogisticClassifier(), GRID, X_train, y_train, X_dev, y_dev)
    by_hand = {C: float(np.mean(LogisticClassifier(C=C).fit(X_train, y_train).predict(X_dev) == y_dev))
               for C in sorted(GRID["C"])}
    assert chosen.scores == {f"C={C}": acc for C, acc in by_hand.items()}
    assert list(chosen.scores) == ["C=0.001", "C=0.1", "C=3.0"]
    assert chosen.chosen == {"C": max(by_hand, key=lambda C: (by_hand[C], -C))} and chosen.by == "dev accuracy"


def test_cv_route_pools_out_of_fold_predictions(problem):
    X, y = problem
    folds = stratified_folds(y, 5, seed=0)
    assert sorted(len(test) for _, test in folds) == [20, 20, 21, 21, 21]
    chosen = choose(LogisticClassifier(), GRID, X, y, cv_folds=5, seed=0)
    for C in GRID["C"]:
        pooled = np.mean(out_of_fold_predictions(LogisticClassifier(C=C), X, y, folds) == y)
        assert chosen.scores[f"C={C}"] == pooled  # exactly: the accuracy of all out-of-fold predictions
    assert chosen.by == "5-fold stratified CV on train (seed 0) accuracy"


def test_ties_keep_the_earlier_candidate():
    X = np.eye(2)[[0, 1] * 6]
    y = np.array(["a", "b"] * 6, dtype=object)
    chosen = choose(LogisticClassifier(), {"C": (10.0, 1.0, 0.1)}, X, y, X, y)
    assert set(chosen.scores.values()) == {1.0} and chosen.chosen == {"C": 0.1}


def test_too_small_to_cross_validate_keeps_the_defaults():
    X, y = np.eye(3), np.array(["a", "a", "b"], dtype=object)
    chosen = choose(LogisticClassifier(C=0.7), {"C": (0.1, 1.0)}, X, y)
    assert chosen.chosen == {"C": 0.7} and chosen.scores == {} and "too few" in chosen.by
    assert stratified_folds(y, 5, 0) is None
    assert len(stratified_folds(np.array(["a", "a", "b", "b", "b"]), 5, 0)) == 2  # fewer folds than asked


def test_a_best_value_at_the_end_extends_the_grid(problem):
    # On this problem dev accuracy is 69.7 at C=0.003, 81.8 at 0.01, 87.9 from 0.03 to 3.
    X, y = problem
    X_train, y_train, X_dev, y_dev = X[:70], y[:70], X[70:], y[70:]
    plain = choose(LogisticClassifier(), {"C": (0.003, 0.01)}, X_train, y_train, X_dev, y_dev)
    assert plain.chosen == {"C": 0.01} and plain.extended == [] and plain.at_edge is None  # no limits given
    grown = choose(LogisticClassifier(), {"C": (0.003, 0.01)}, X_train, y_train, X_dev, y_dev,
                   extend={"C": (1e-5, 1000.0)})
    assert grown.extended == [0.03, 0.1]  # up the 1-3-10 ladder; 0.1 is no better, so it stops there
    assert grown.chosen == {"C": 0.03} and grown.at_edge is None  # bracketed by values tried on both sides
    assert list(grown.scores) == ["C=0.003", "C=0.01", "C=0.03", "C=0.1"]
    assert grown.scores["C=0.03"] > grown.scores["C=0.01"] and grown.scores["C=0.1"] == grown.scores["C=0.03"]
    capped = choose(LogisticClassifier(), {"C": (0.003, 0.01)}, X_train, y_train, X_dev, y_dev,
                    extend={"C": (1e-5, 0.01)})
    assert capped.extended == [] and capped.record()["at_edge"] == "highest"
    fixed = choose(LogisticClassifier(), {"C": (0.01,)}, X_train, y_train, X_dev, y_dev, extend={"C": (1e-5, 1e3)})
    assert fixed.extended == [] and fixed.chosen == {"C": 0.01}  # one given value is a fixed choice


def test_who_judges_the_settings():
    from experiments.engine.selection import CV_BELOW, judge
    from models import MODELS
    lr, edit = MODELS["lr"], MODELS["edit_distance"]
    assert judge(lr, "auto", 4439, 495) == "cv"              # SICK: CV on 4,439 pairs beats 495 dev pairs
    assert judge(lr, "auto", 300, 495) == "dev"              # a learning-curve point smaller than dev
    assert judge(lr, "auto", CV_BELOW + 1, 10_000) == "dev"  # SNLI scale: k fits per candidate would cost
    assert judge(lr, "dev", 4439, 495) == "dev" and judge(lr, "cv", 300, 495) == "cv"
    assert judge(lr, "dev", 4439, None) == "cv"              # no dev split: CV whatever was asked
    assert judge(edit, "auto", 300, 495) == "cv"             # edit distance tunes on train, as EOP does
    assert judge(edit, "dev", 300, 495) == "dev"


def test_a_single_candidate_is_chosen_without_fitting(monkeypatch):
    from experiments.engine import selection
    monkeypatch.setattr(selection, "GridSearchCV", None)  # any search would fail
    chosen = selection.choose(None, {"C": [0.3]}, np.zeros((4, 2)), ["a", "b", "a", "b"])
    assert chosen.chosen == {"C": 0.3} and chosen.scores == {}
