"""Error analysis: the errors file (every scored pair, its confidence and the features behind the
prediction), the plots, and the per-example predictions a record keeps."""
from __future__ import annotations

import csv
import json
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

from experiments.engine.explanations import explain_examples
from features import PairFeaturizer
from models import LogisticClassifier
from tests.conftest import REPO, TINY


def run(*args):
    return subprocess.run([sys.executable, "experiments/run.py", *args], cwd=REPO, capture_output=True, text=True)


def read_tsv(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


def test_errors_file_plots_and_record_on_demo(tmp_path):
    done = run("--dataset", "demo", "--C", "1", "--quiet", "--errors", str(tmp_path / "e.tsv"), "--plots",
               str(tmp_path / "p"), "--out", str(tmp_path / "r.json"))
    assert done.returncode == 0, done.stderr
    rows = read_tsv(tmp_path / "e.tsv")
    assert rows[0] == ["id", "premise", "hypothesis", "gold", "predicted", "confidence", "top_features"]
    assert len(rows) == 1001  # one row per dev pair
    record = json.loads((tmp_path / "r.json").read_text())
    predictions = record["rows"][0]["predictions"]
    assert [r[0] for r in rows[1:]] == predictions["ids"] and [r[4] for r in rows[1:]] == predictions["predicted"]
    assert np.mean([r[3] == r[4] for r in rows[1:]]) == record["metrics"]["dev"]["accuracy"]
    assert all(1 / 3 <= float(r[5]) <= 1 for r in rows[1:])  # the probability of the predicted class
    assert all(r[6] and r[6].split(" (")[0].split(":")[0] in {"bleu", "length_diff", "overlap", "hyp_ngrams",
                                                               "cross_unigrams", "cross_bigrams"} for r in rows[1:])
    assert "_examples" not in record and "_predictors" not in record
    pngs = sorted(p.name for p in (tmp_path / "p").iterdir())
    assert pngs == ["confusion.png", "top-features.png"]
    for name in pngs:
        assert (tmp_path / "p" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_edit_distance_explains_by_its_distance(tmp_path):
    done = run("--dataset", "demo", "--model", "edit_distance", "--quiet", "--errors", str(tmp_path / "e.jsonl"))
    assert done.returncode == 0, done.stderr
    first = json.loads((tmp_path / "e.jsonl").read_text().splitlines()[0])
    assert first["confidence"] is None and first["top_features"].startswith("distance ")


def test_the_features_that_pushed_a_prediction_by_hand():
    featurizer = PairFeaturizer(features="unlexicalized", bins=0, n_jobs=1)
    X = featurizer.fit_transform(TINY)
    model = LogisticClassifier(C=10.0).fit(X, [p.label for p in TINY])
    predicted = model.predict(X)
    examples = explain_examples(model, featurizer, None, X, [p.label for p in TINY], predicted, TINY, k=2)
    weights = model.class_weights()
    centred = weights - weights.mean(axis=0)
    i, label = 0, predicted[0]
    row = np.asarray(sp.csr_matrix(X)[i].todense()).ravel() * centred[list(model.classes_).index(label)]
    best = np.argsort(-row)[:2]
    expected = "; ".join(f"{featurizer.feature_name(int(j))} ({row[j]:+.2f})" for j in best if row[j] > 0)
    assert examples["top_features"][0] == expected
    assert examples["confidence"][0] == pytest.approx(model.predict_proba(X)[0].max())
    assert examples["ids"] == [p.id for p in TINY] and examples["premise"][0] == TINY[0].premise


def test_errors_file_checks_and_refuses_tables(tmp_path):
    done = run("--dataset", "demo", "--paper-table", "--errors", str(tmp_path / "e.tsv"))
    assert done.returncode == 2 and "--errors take a single run" in done.stderr
    done = run("--dataset", "demo", "--errors", str(tmp_path / "e.txt"))
    assert done.returncode == 2 and "must end in .tsv, .csv or .jsonl" in done.stderr


@pytest.mark.slow
def test_sick_errors_file_has_every_dev_pair(data_dir, tmp_path):
    done = run("--dataset", "sick", "--data-dir", str(data_dir), "--quiet", "--errors", str(tmp_path / "e.tsv"),
               "--plots", str(tmp_path / "p"), "--out", str(tmp_path / "r.json"))
    assert done.returncode == 0, done.stderr
    assert len(read_tsv(tmp_path / "e.tsv")) == 496  # header + 495 TRIAL pairs
    assert len(list((tmp_path / "p").glob("*.png"))) == 2
