"""Bootstrap over training resamples: seeded, summarized, and honest about failed resamples."""
from __future__ import annotations

import numpy as np

from nli_baselines.experiments.engine.selection import stratified_folds
from nli_baselines.experiments.stats.resampling import bootstrap
from nli_baselines.models import LogisticClassifier, MajorityClassifier


def problem(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = np.where(X[:, 0] + rng.normal(size=n) > 0, "a", "b").astype(object)
    return X, y


def test_resamples_are_seeded_and_summarized():
    X, y = problem()
    first = bootstrap(LogisticClassifier(C=1.0), X[:80], y[:80], X[80:], y[80:], resamples=15, seed=3)
    again = bootstrap(LogisticClassifier(C=1.0), X[:80], y[:80], X[80:], y[80:], resamples=15, seed=3, jobs=2)
    other = bootstrap(LogisticClassifier(C=1.0), X[:80], y[:80], X[80:], y[80:], resamples=15, seed=4)
    assert first["scores"] == again["scores"] and first["scores"] != other["scores"]
    scores = np.array(first["scores"])
    assert len(scores) == 15 and first["failed"] == 0 and first["of"] == "the evaluation split"
    assert first["mean"] == scores.mean() and first["std"] == scores.std(ddof=1) > 0
    assert first["interval_95"] == list(np.percentile(scores, [2.5, 97.5]))
    assert all(s * 40 == round(s * 40) for s in scores)  # accuracies of the 40 evaluation pairs


def test_cross_validated_runs_resample_each_folds_training_part():
    X, y = problem()
    folds = stratified_folds(y, 5, seed=0)
    result = bootstrap(MajorityClassifier(), X, y, folds=folds, resamples=8, seed=0)
    assert result["of"] == "cross-validation on train" and len(result["scores"]) == 8
    assert all(0 <= s <= 1 and s * len(y) == round(s * len(y)) for s in result["scores"])


def test_a_resample_that_loses_a_class_is_counted_as_failed():
    X = np.eye(3)[[0] * 19 + [1]]
    y = np.array(["a"] * 19 + ["b"], dtype=object)  # one "b": most resamples lose it
    result = bootstrap(LogisticClassifier(), X, y, X, y, resamples=10, seed=0)
    assert result["failed"] > 0 and result["failed"] + len(result.get("scores", [])) == 10
