"""experiments/run.py end to end on the demo corpus, and its handling of bad input."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from experiments.engine.config import RunConfig
from experiments.engine.experiment import run
from experiments.outputs.report import format_report
from tests.conftest import REPO


def run_cli(*args, cwd=REPO):
    return subprocess.run([sys.executable, "experiments/run.py", *args], cwd=cwd, capture_output=True, text=True)


@pytest.fixture(scope="module")
def demo_records(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs")
    results = {}
    for name, extra in {"full": [], "ablated": ["--ablate", "cross_bigrams"], "again": [],
                        "unigrams_only": ["--features", "unigrams_only"]}.items():
        path = out / f"{name}.json"
        done = run_cli("--dataset", "demo", "--quiet", "--top-features", "3", "--out", str(path), *extra)
        assert done.returncode == 0, done.stderr
        results[name] = (json.loads(path.read_text()), done.stdout)
    return results


def test_ablation_removes_exactly_the_ablated_columns(demo_records):
    full, ablated = demo_records["full"][0], demo_records["ablated"][0]
    assert ablated["features"]["active"] == ["bleu", "length_diff", "overlap", "hyp_ngrams", "cross_unigrams"]
    assert ablated["features"]["ablated"] == ["cross_bigrams"]
    # The ablated model is the paper's "unigrams only" row: the same columns, the same numbers.
    same = demo_records["unigrams_only"][0]
    assert ablated["rows"][0]["n_columns"] == same["rows"][0]["n_columns"]
    assert ablated["metrics"] == same["metrics"] and ablated["rows"][0]["selection"] == same["rows"][0]["selection"]
    assert 0 < ablated["rows"][0]["n_columns"] < full["rows"][0]["n_columns"]
    for record in (ablated, same):
        named = [n for feats in record["rows"][0]["top_features"].values() for n, _ in feats]
        assert named and not any(n.startswith("cross_bigrams:") for n in named)
    assert any(n.startswith("cross_bigrams:") for feats in full["rows"][0]["top_features"].values() for n, _ in feats)


def test_record_fields(demo_records):
    record = demo_records["full"][0]
    assert {"config", "data", "metrics", "timings", "versions", "seed", "features", "peak_rss_bytes"} <= set(record)
    assert record["config"]["dataset"] == "demo" and record["seed"] == 0
    dev = record["metrics"]["dev"]
    assert set(dev) >= {"accuracy", "macro_f1", "per_class", "confusion"}
    assert set(dev["per_class"]) == {"entailment", "neutral", "contradiction"}
    assert sum(map(sum, dev["confusion"]["matrix"])) == 1000
    assert record["metrics"]["train"]["accuracy"] > 0.9
    assert record["data"]["splits"]["train"]["pairs"] == 4000
    assert record["versions"]["scikit-learn"] and record["features"]["bleu_signature"].startswith("nrefs:1")


def test_same_seed_same_numbers(demo_records):
    first, second = demo_records["full"][0], demo_records["again"][0]
    assert first["metrics"] == second["metrics"]
    assert first["rows"][0]["selection"] == second["rows"][0]["selection"]


def test_top_features_are_words(demo_records):
    record, stdout = demo_records["full"]
    top = record["rows"][0]["top_features"]
    assert set(top) == {"entailment", "neutral", "contradiction"}
    for features in top.values():
        for name, _weight in features:
            kind, _, words = name.partition(":")
            assert kind in {"bleu", "length_diff", "overlap", "hyp_ngrams", "cross_unigrams", "cross_bigrams"}
            assert words and not words.isdigit()
    assert "top features for contradiction:" in format_report(record)
    assert "top features" not in stdout and stdout.startswith("row ")  # --quiet prints the result table only


def test_importable_run_returns_models():
    record = run(RunConfig(dataset="demo", model="edit_distance", progress=False))
    assert record["rows"][0]["two_class"] is True and record["metrics"]["dev"]["accuracy"] > 0.6
    assert "edit_distance" in record["_predictors"]


@pytest.mark.parametrize("args, message", [
    (["--features", "cross_trigrams"], "unknown feature type or group 'cross_trigrams'; valid names:"),
    (["--ablate", "nope"], "valid names: .*cross_bigrams"),
    (["--eval-split", "nosuch"], "no 'nosuch' split"),
    (["--train-size", "0"], "at least 1"),
])
def test_bad_arguments_exit_2(args, message):
    done = run_cli("--dataset", "demo", "--quiet", *args)
    assert done.returncode == 2
    assert pytest.importorskip("re").search(message, done.stderr), done.stderr


def test_single_class_training_set(tmp_path):
    train = tmp_path / "train.tsv"
    train.write_text("premise\thypothesis\tlabel\nA b .\tA .\tyes\nC d .\tC .\tyes\n")
    done = run_cli("--dataset", "custom", "--train-file", str(train), "--quiet")
    assert done.returncode == 2 and "holds one class" in done.stderr


def test_unlabeled_test_split_points_at_predictions(data_dir):
    done = run_cli("--dataset", "rte", "--data-dir", str(data_dir), "--eval-split", "test", "--quiet")
    assert done.returncode == 2 and "unlabeled" in done.stderr and "predictions" in done.stderr


def test_missing_corpus_exits_2(tmp_path):
    done = run_cli("--ablate", "cross_bigrams", "--data-dir", str(tmp_path))
    assert done.returncode == 2
    assert "corpus 'snli'" in done.stderr and "download.py snli" in done.stderr and "--dataset demo" in done.stderr


def test_refuses_to_overwrite(tmp_path):
    out = tmp_path / "r.json"
    out.write_text("{}")
    done = run_cli("--dataset", "demo", "--quiet", "--out", str(out))
    assert done.returncode == 2 and "--overwrite" in done.stderr
