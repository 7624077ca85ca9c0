"""Hyperparameter selection: the same choice and scores as fitting each candidate by hand."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin, clone

from nli_baselines.experiments.engine.selection import choose, out_of_fold_predictions, stratified_folds
from nli_baselines.models import LogisticClassifier


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


def test_a_choice_at_an_end_of_a_grid_that_cannot_grow_says_so():
    # A user's model declares no extension: its C is not extended, but the report's "(edge)" shows.
    X = np.eye(2)[[0, 1] * 6]
    y = np.array(["a", "b"] * 6, dtype=object)
    chosen = choose(LogisticClassifier(), {"C": (10.0, 1.0, 0.1)}, X, y, X, y)
    assert chosen.chosen == {"C": 0.1} and chosen.at_edge == "lowest" and chosen.extended == []
    middle = choose(LogisticClassifier(), {"C": (0.1,)}, X, y, X, y)
    assert middle.at_edge is None  # a single given value is a fixed choice, not an end


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
    # No limits given: not extended, but the choice is at an end, and the report says "(edge)".
    assert plain.chosen == {"C": 0.01} and plain.extended == [] and plain.at_edge == "highest"
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
    from nli_baselines.experiments.engine.selection import CV_BELOW, judge
    from nli_baselines.models import MODELS
    lr, edit = MODELS["lr"], MODELS["edit_distance"]
    assert judge(lr, "auto", 4439, 495) == "cv"              # SICK: CV on 4,439 pairs beats 495 dev pairs
    assert judge(lr, "auto", 300, 495) == "dev"              # a learning-curve point smaller than dev
    assert judge(lr, "auto", CV_BELOW + 1, 10_000) == "dev"  # SNLI scale: k fits per candidate would cost
    assert judge(lr, "dev", 4439, 495) == "dev" and judge(lr, "cv", 300, 495) == "cv"
    assert judge(lr, "dev", 4439, None) == "cv"              # no dev split: CV whatever was asked
    assert judge(edit, "auto", 300, 495) == "cv"             # edit distance tunes on train, as EOP does
    assert judge(edit, "dev", 300, 495) == "dev"


def test_a_single_candidate_is_chosen_without_fitting(monkeypatch):
    from nli_baselines.experiments.engine import selection
    monkeypatch.setattr(selection, "GridSearchCV", None)  # any search would fail
    chosen = selection.choose(None, {"C": [0.3]}, np.zeros((4, 2)), ["a", "b", "a", "b"])
    assert chosen.chosen == {"C": 0.3} and chosen.scores == {}


class Scripted(ClassifierMixin, BaseEstimator):
    """A model whose dev accuracy is scripted per value of `knob` (dev labels are all "a": it
    predicts "a" for the first ACCURACY[knob] of the rows); it records every fit and path start."""

    ACCURACY: dict = {}
    LOG: list = []

    def __init__(self, *, knob: float = 1.0):
        self.knob = knob

    def fit(self, X, y, start=None):
        self.classes_ = np.array(["a", "b"], dtype=object)
        self.start_ = start
        Scripted.LOG.append(("fit", self.knob, start))
        return self

    def fit_path(self, X, y, values, *, start=None):
        Scripted.LOG.append(("path", tuple(values), start))
        for value in values:
            model = clone(self).set_params(knob=value).fit(X, y, start=start)
            yield model
            start = value

    def predict(self, X):
        correct = int(round(Scripted.ACCURACY[self.knob] * len(X)))
        return np.array(["a"] * correct + ["b"] * (len(X) - correct), dtype=object)


@pytest.fixture
def scripted():
    Scripted.LOG.clear()
    X, y, X_dev, y_dev = np.zeros((4, 1)), np.array(["a", "b"] * 2, dtype=object), np.zeros((100, 1)), \
        np.array(["a"] * 100, dtype=object)
    return lambda grid, accuracy, **kw: _scripted_choice(grid, accuracy, X, y, X_dev, y_dev, **kw)


def _scripted_choice(grid, accuracy, X, y, X_dev, y_dev, **kw):
    Scripted.ACCURACY = dict(accuracy)
    return choose(Scripted(), {"knob": grid}, X, y, X_dev, y_dev, path="knob", **kw)


def test_a_path_stops_once_dev_accuracy_has_fallen_twice_in_a_row(scripted):
    grid = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0)
    # Falls of at most 4 of the 100 dev pairs: chance explains them (McNemar p >= 0.125).
    accuracy = {1.0: 0.50, 2.0: 0.70, 3.0: 0.68, 4.0: 0.69, 5.0: 0.67, 6.0: 0.66, 7.0: 0.99}
    chosen = scripted(grid, accuracy, describe=lambda model: {"start": model.start_})
    # 3.0 fell once, 4.0 rose again, 5.0 and 6.0 fell twice in a row: 7.0 is never fitted
    assert chosen.chosen == {"knob": 2.0} and chosen.skipped == [7.0]
    assert list(chosen.scores) == [f"knob={v}" for v in grid[:6]] and chosen.scores["knob=4.0"] == 0.69
    record = chosen.record()
    assert record["stopped_early"] and record["skipped"] == [7.0] and record["path"] == "knob"
    assert record["stopped"] == "fell twice in a row"
    assert not record["refit"] and chosen.model.knob == 2.0  # the chosen candidate's fit is kept
    assert [f["start"] for f in record["fits"].values()] == [None, 1.0, 2.0, 3.0, 4.0, 5.0]  # one warm path
    assert set(chosen.seconds) == set(chosen.scores) and all(s >= 0 for s in chosen.seconds.values())
    assert Scripted.LOG[0] == ("path", grid, None) and sum(e[0] == "fit" for e in Scripted.LOG) == 6


def test_a_path_stops_after_one_fall_that_chance_does_not_explain(scripted):
    grid = (1.0, 2.0, 3.0, 4.0, 5.0)
    # 3.0 gets 10 of the 100 dev pairs wrong that 2.0 gets right, and none the other way: p = 2 / 2**10
    chosen = scripted(grid, {1.0: 0.5, 2.0: 0.7, 3.0: 0.6, 4.0: 0.99, 5.0: 0.99})
    assert chosen.chosen == {"knob": 2.0} and chosen.skipped == [4.0, 5.0]
    assert chosen.stopped == "fell significantly below the best (McNemar p = 0.002)"
    assert sum(entry[0] == "fit" for entry in Scripted.LOG) == 3
    # A fall of 5 pairs (p = 0.0625) is not enough: the path goes on, and here climbs past it.
    chosen = scripted(grid, {1.0: 0.5, 2.0: 0.7, 3.0: 0.65, 4.0: 0.72, 5.0: 0.6})
    assert chosen.chosen == {"knob": 4.0} and chosen.skipped == [] and chosen.stopped is None


def test_a_path_without_two_falls_fits_the_whole_grid_and_ties_keep_the_earlier(scripted):
    chosen = scripted((1.0, 2.0, 3.0), {1.0: 0.6, 2.0: 0.7, 3.0: 0.7})
    assert chosen.chosen == {"knob": 2.0} and chosen.skipped == [] and not chosen.record()["stopped_early"]
    assert chosen.at_edge is None and chosen.extended == []


def test_a_path_extends_past_an_end_from_the_two_fits_at_that_end(scripted):
    accuracy = {0.1: 0.5, 0.3: 0.6, 1.0: 0.7, 3.0: 0.8, 10.0: 0.75}
    chosen = scripted((0.1, 0.3, 1.0), accuracy, extend={"knob": (0.01, 100.0)})
    assert chosen.extended == [3.0, 10.0] and chosen.chosen == {"knob": 3.0} and chosen.at_edge is None
    # The step to 10 starts from the fits at 1 and 3 (the end, the best, last), the step to 3 from 0.3 and 1.
    (kind, values, (inner, end)), fit = Scripted.LOG[-2:]
    assert (kind, values, inner.knob, end) == ("path", (10.0,), 1.0, chosen.model) and fit[:2] == ("fit", 10.0)
    to_three = next(entry for entry in Scripted.LOG if entry[:2] == ("path", (3.0,)))
    assert [model.knob for model in to_three[2]] == [0.3, 1.0]
    down = scripted((0.1, 0.3, 1.0), {0.01: 0.9, 0.03: 0.9, 0.1: 0.8, 0.3: 0.7, 1.0: 0.6},
                    extend={"knob": (0.03, 100.0)})
    assert down.extended == [0.03] and down.chosen == {"knob": 0.03} and down.at_edge == "lowest"


def test_a_single_value_is_fitted_once_and_kept(scripted):
    chosen = scripted((0.5,), {0.5: 0.4}, extend={"knob": (0.01, 100.0)})
    assert chosen.chosen == {"knob": 0.5} and chosen.model.knob == 0.5 and chosen.extended == []
    assert [e[0] for e in Scripted.LOG] == ["path", "fit"]


def test_the_cv_route_and_models_without_a_path_refit_as_before(problem):
    X, y = problem
    chosen = choose(LogisticClassifier(), GRID, X, y, cv_folds=5, seed=0, path="C")  # no dev split: CV
    assert chosen.model is None and chosen.record()["refit"] and chosen.path is None


def test_logistic_path_candidates_equal_cold_fits(monkeypatch):
    # newton-pcg (forced by a low NEWTON_FROM_ROWS) along a warm path: each candidate's weights and
    # dev predictions match a cold fit at a tight tolerance.
    from nli_baselines.models import logistic
    from tests.test_models import _sparse_problem
    monkeypatch.setattr(logistic, "NEWTON_FROM_ROWS", 10)
    X, y = _sparse_problem(seed=2, rows=1200)
    X_dev, y_dev = X[900:], y[900:]
    X, y = X[:900], y[:900]
    chosen = choose(LogisticClassifier(), {"C": (0.03, 0.1, 0.3, 1.0, 3.0)}, X, y, X_dev, y_dev, path="C",
                    describe=logistic.SPEC.describe)
    assert chosen.path == "C" and all(f["solver"] == "newton-pcg" and f["converged"] for f in chosen.fits.values())
    warm = [f.get("warm_from_C") for f in chosen.fits.values()]
    assert warm[0] is None and warm[1:] == [0.03, 0.1, 0.3, 1.0][:len(warm) - 1]
    for label, accuracy in chosen.scores.items():
        C = float(label.split("=")[1])
        cold = LogisticClassifier(C=C, tol=1e-7).fit(X.astype(np.float64), y)
        assert cold.solver_ == "newton-pcg" and cold.converged_
        assert abs(accuracy - np.mean(cold.predict(X_dev) == y_dev)) <= 1 / len(y_dev)
    kept = chosen.model
    tight = LogisticClassifier(C=kept.C, tol=1e-7).fit(X.astype(np.float64), y)
    np.testing.assert_allclose(kept.predict_proba(X_dev), tight.predict_proba(X_dev), atol=5e-3)


def test_a_path_shows_a_progress_bar_per_candidate_unless_quiet(scripted, capsys, terminal):
    scripted((1.0, 2.0), {1.0: 0.5, 2.0: 0.6}, progress=True)
    err = capsys.readouterr().err
    assert "choosing knob on dev" in err and "2/2" in err and "knob=2.0: 60.00%" in err
    scripted((1.0, 2.0), {1.0: 0.5, 2.0: 0.6})
    assert capsys.readouterr().err == ""


def test_run_py_shows_the_selection_progress_and_quiet_prints_nothing(cli, terminal):
    args = ["--dataset", "demo", "--features", "unlexicalized", "--C", "0.1,1", "--tune-on", "dev"]
    assert "choosing C on dev" in cli("run", *args).stderr
    assert cli("run", *args, "--quiet").stderr == ""


def test_cv_along_alpha_with_constant_scores_chooses_without_failing():
    """Equal training scores: every fold's correlation is undefined; the strongest alpha is kept."""
    from nli_baselines.experiments.engine.selection import choose
    from nli_baselines.experiments.corpora.task import Task
    from nli_baselines.models.ridge import ALPHA_GRID, RidgeRegressor
    X = np.random.default_rng(0).normal(size=(30, 4))
    selection = choose(RidgeRegressor(), {"alpha": ALPHA_GRID}, X, np.full(30, 2.5), task=Task.regression((0.0, 5.0)),
                       path="alpha", stronger="larger")
    assert selection.chosen == {"alpha": max(ALPHA_GRID)} and set(selection.scores.values()) == {None}
