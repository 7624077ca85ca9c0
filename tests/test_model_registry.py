"""Adding a model is one spec in the registry: a throwaway model runs through run.py and a learning curve."""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin

from nli_baselines.experiments.run import main as run_main
from nli_baselines.learning_curves.run import main as curve_main
from nli_baselines.models import MODELS, ModelSpec, Tuning, get_model, register_model, unregister_model
from tests.conftest import NEEDS_PLOTS


class NearestMean(ClassifierMixin, BaseEstimator):
    """Predicts the class whose mean row is nearest; `shrink` pulls every mean towards the overall mean."""

    def __init__(self, *, shrink: float = 0.0):
        self.shrink = shrink

    def fit(self, X, y):
        y = np.asarray(y, dtype=object)
        self.classes_ = np.array(sorted(set(y)), dtype=object)
        overall = np.asarray(X.mean(axis=0)).ravel()
        means = [np.asarray(X[np.flatnonzero(y == c)].mean(axis=0)).ravel() for c in self.classes_]
        self.means_ = np.array([(1 - self.shrink) * m + self.shrink * overall for m in means])
        return self

    def predict(self, X):
        scores = X @ self.means_.T - 0.5 * (self.means_ ** 2).sum(axis=1)
        return self.classes_[np.asarray(scores).argmax(axis=1)]


SPEC = ModelSpec(name="nearest_mean", factory=NearestMean, title="nearest class mean", input="matrix",
                 tuning=Tuning(grid={"shrink": (0.0, 0.5)}), describe=lambda model: {"classes": len(model.classes_)})


@pytest.fixture
def registered():
    register_model(SPEC)
    yield SPEC
    unregister_model(SPEC.name)
    assert "nearest_mean" not in MODELS


def test_a_registered_model_runs_through_run_py(registered, tmp_path, capsys):
    out = tmp_path / "record.json"
    assert run_main(["--dataset", "demo", "--model", "nearest_mean", "--features", "unlexicalized",
                            "--out", str(out)]) == 0
    record = json.loads(out.read_text())
    row = record["rows"][0]
    assert row["model"] == "nearest_mean" and row["name"] == "nearest_mean unlexicalized"
    assert row["features"] == ["bleu", "length_diff", "overlap"] and row["n_columns"] == record["features"]["n_columns"]
    assert set(row["selection"]["scores"]) == {"shrink=0.0", "shrink=0.5"}
    assert row["selection"]["chosen"]["shrink"] in (0.0, 0.5) and row["fitted"] == {"classes": 3}
    assert 0.4 < record["metrics"]["dev"]["accuracy"] <= 1.0
    printed = capsys.readouterr().out
    assert "nearest_mean unlexicalized" in printed and "fitted: classes 3" in printed


def test_a_registered_model_runs_in_worker_processes(registered, tmp_path):
    # Rows run in joblib workers, which never saw register_model: the row carries the spec.
    out = tmp_path / "table.json"
    assert run_main(["--dataset", "demo", "--model", "nearest_mean", "--features", "unlexicalized",
                            "--ablation-table", "--jobs", "2", "--quiet", "--out", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert [r["name"] for r in rows] == ["nearest_mean unlexicalized", "nearest_mean -bleu", "nearest_mean -length_diff",
                                         "nearest_mean -overlap"]
    assert all(r["model"] == "nearest_mean" for r in rows)


@NEEDS_PLOTS
def test_a_registered_model_draws_a_learning_curve(registered, tmp_path):
    out = tmp_path / "curve"
    assert curve_main(["--dataset", "demo", "--sizes", "30,all", "--seeds", "2", "--configs",
                              "nearest_mean:unlexicalized,unlexicalized", "--tune-on", "dev", "--out", str(out), "--quiet"]) == 0
    with open(out / "curve.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert {r["config"] for r in rows} == {"nearest_mean:unlexicalized", "unlexicalized"} and len(rows) == 8
    ours = [r for r in rows if r["config"] == "nearest_mean:unlexicalized"]
    assert all(r["chosen"] in ("shrink=0.0", "shrink=0.5") for r in ours)
    assert (out / "curve.png").stat().st_size > 10_000


def test_names_are_checked(registered):
    with pytest.raises(ValueError, match="already taken"):
        register_model(ModelSpec(name="nearest_mean", factory=NearestMean, title="another"))
    with pytest.raises(ValueError, match="unknown model 'nope'; choose from lr, edit_distance, majority, stacked, ridge, stacked_ridge, mean, nearest_mean"):
        get_model("nope")
    with pytest.raises(ValueError, match="input must be one of"):
        ModelSpec(name="x", factory=NearestMean, title="x", input="images")
