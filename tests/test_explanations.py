"""Error analysis: the errors file (every scored pair, its confidence and the features behind the
prediction), the plots, and the per-example predictions a record keeps."""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest
import scipy.sparse as sp

from nli_baselines.experiments.reports.explanations import explain_examples
from nli_baselines.features import PairFeaturizer
from nli_baselines.models import LogisticClassifier
from tests.conftest import NEEDS_PLOTS, TINY


def read_tsv(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


@NEEDS_PLOTS
def test_errors_file_plots_and_record_on_demo(cli, tmp_path):
    done = cli("run", "--dataset", "demo", "--C", "1", "--quiet", "--errors", tmp_path / "e.tsv", "--plots",
               tmp_path / "p", "--out", tmp_path / "r.json")
    assert done.returncode == 0, done.stderr
    rows = read_tsv(tmp_path / "e.tsv")
    assert rows[0] == ["id", "premise", "hypothesis", "gold", "predicted", "correct", "confidence", "top_features"]
    assert len(rows) == 1001  # one row per dev pair
    record = json.loads((tmp_path / "r.json").read_text())
    predictions = record["rows"][0]["predictions"]
    assert [r[0] for r in rows[1:]] == predictions["ids"] and [r[4] for r in rows[1:]] == predictions["predicted"]
    assert np.mean([r[3] == r[4] for r in rows[1:]]) == record["metrics"]["dev"]["accuracy"]
    assert all(r[5] == str(r[3] == r[4]) for r in rows[1:])
    assert all(1 / 3 <= float(r[6]) <= 1 for r in rows[1:])  # the probability of the predicted class
    assert all(r[7] and r[7].split(" (")[0].split(":")[0] in {"bleu", "length_diff", "overlap", "hyp_ngrams",
                                                               "cross_unigrams", "cross_bigrams"} for r in rows[1:])
    assert "_examples" not in record and "_predictors" not in record
    pngs = sorted(p.name for p in (tmp_path / "p").iterdir())
    assert pngs == ["confusion.png", "top-features.png"]
    for name in pngs:
        assert (tmp_path / "p" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_edit_distance_explains_by_its_distance(cli, tmp_path):
    done = cli("run", "--dataset", "demo", "--model", "edit_distance", "--train-size", "800", "--quiet", "--errors",
               tmp_path / "e.jsonl")
    assert done.returncode == 0, done.stderr
    first = json.loads((tmp_path / "e.jsonl").read_text().splitlines()[0])
    assert first["confidence"] is None and first["top_features"].startswith("distance ")


def test_the_features_that_pushed_a_prediction_by_hand():
    featurizer = PairFeaturizer(features="unlexicalized", bins=0, n_jobs=1)
    X = featurizer.fit_transform(TINY)
    model = LogisticClassifier(C=10.0).fit(X, [p.label for p in TINY])
    predicted = model.predict(X)
    from nli_baselines.models.logistic import SPEC
    examples = explain_examples(SPEC, model, featurizer, None, X, [p.label for p in TINY], predicted, TINY, k=2)
    weights = model.class_weights()
    centred = weights - weights.mean(axis=0)
    i, label = 0, predicted[0]
    values = np.asarray(sp.csr_matrix(X)[i].todense()).ravel()
    row = values * centred[list(model.classes_).index(label)]
    best = [j for j in np.argsort(-row)[:2] if row[j] > 0]
    raw = featurizer.types_["overlap"].raw_values(TINY[:1])[0]
    shown = {f"overlap:{c}": v for c, v in zip(featurizer.types_["overlap"].columns, raw)}
    bleu = featurizer.types_["bleu"].raw_values(TINY[:1])[0][0]
    shown["bleu:score"] = bleu
    shown["length_diff:hyp_minus_premise"] = 0.0  # "A man is sleeping ." vs "A person is sleeping ."
    expected = "; ".join(f"{featurizer.feature_name(int(j))}={_shown(shown[featurizer.feature_name(int(j))])} "
                         f"({row[j]:+.2f})" for j in best)
    assert examples["top_features"][0] == expected
    assert examples["confidence"][0] == pytest.approx(model.predict_proba(X)[0].max())
    assert examples["id"] == [p.id for p in TINY] and examples["premise"][0] == TINY[0].premise
    assert examples["correct"] == [g == p for g, p in zip(examples["gold"], examples["predicted"])]


def _shown(value: float) -> str:
    """A value as the errors file shows it: whole numbers bare, others to two decimals."""
    return str(int(round(value))) if abs(value - round(value)) < 1e-4 else f"{value:.2f}"


def test_scaled_features_show_their_own_value(cli, tmp_path):
    # A scaled value enters the model as (value - mean) / spread: the file shows the value itself.
    featurizer = PairFeaturizer(features="overlap", bins=0, n_jobs=1)
    X = featurizer.fit_transform(TINY)
    for column in range(X.shape[1]):
        scaled = X[:, column].toarray().ravel()
        raw = featurizer.types_["overlap"].raw_values(TINY)[:, column]
        assert [featurizer.raw_value(column, v) for v in scaled] == pytest.approx(raw, abs=1e-5)
    binned = PairFeaturizer(features="overlap", bins=3, n_jobs=1).fit(TINY)
    assert binned.raw_value(binned.n_features_out_ - 1, 1.0) is None  # an indicator shows no value


def test_errors_only_lists_wrong_pairs_most_confident_first(cli, tmp_path):
    done = cli("run", "--dataset", "demo", "--features", "unlexicalized", "--C", "1", "--quiet", "--errors",
               tmp_path / "e.csv", "--errors-only")
    assert done.returncode == 0, done.stderr
    with open(tmp_path / "e.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert rows and all(r["correct"] == "False" and r["gold"] != r["predicted"] for r in rows)
    confidence = [float(r["confidence"]) for r in rows]
    assert confidence == sorted(confidence, reverse=True)
    assert cli("run", "--dataset", "demo", "--errors-only").returncode == 2


def test_errors_file_checks_and_refuses_tables(cli, tmp_path):
    done = cli("run", "--dataset", "demo", "--paper-table", "--errors", tmp_path / "e.tsv")
    assert done.returncode == 2 and "--errors take a single run" in done.stderr
    done = cli("run", "--dataset", "demo", "--errors", tmp_path / "e.txt")
    assert done.returncode == 2 and "must end in .tsv, .csv or .jsonl" in done.stderr


@pytest.mark.slow
def test_sick_errors_file_has_every_dev_pair(cli, data_dir, tmp_path):
    done = cli("run", "--dataset", "sick", "--data-dir", data_dir, "--quiet", "--errors", tmp_path / "e.tsv",
               "--plots", tmp_path / "p", "--out", tmp_path / "r.json")
    assert done.returncode == 0, done.stderr
    assert len(read_tsv(tmp_path / "e.tsv")) == 496  # header + 495 TRIAL pairs
    assert len(list((tmp_path / "p").glob("*.png"))) == 2
