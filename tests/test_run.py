"""experiments/run.py end to end on the demo corpus, and its handling of bad input."""
from __future__ import annotations

import json
import re

import pytest

import nli_baselines as nb
from nli_baselines.experiments.reports.report import format_report
from tests.conftest import run_script


@pytest.fixture(scope="module")
def demo_records(tmp_path_factory):
    from nli_baselines.experiments.run import main
    out = tmp_path_factory.mktemp("runs")
    results = {}
    for name, extra in {"full": [], "ablated": ["--ablate", "cross_bigrams"], "again": [],
                        "unigrams_only": ["--features", "unigrams_only"]}.items():
        path = out / f"{name}.json"
        assert main(["--dataset", "demo", "--quiet", "--top-features", "3", "--tune-on", "dev", "--out", str(path),
                     *extra]) == 0
        results[name] = json.loads(path.read_text())
    return results


def test_ablation_removes_exactly_the_ablated_columns(demo_records):
    full, ablated = demo_records["full"], demo_records["ablated"]
    assert ablated["features"]["active"] == ["bleu", "length_diff", "overlap", "hyp_ngrams", "cross_unigrams"]
    assert ablated["features"]["ablated"] == ["cross_bigrams"]
    # The ablated model is the paper's "unigrams only" row: the same columns, the same numbers.
    same = demo_records["unigrams_only"]
    assert ablated["rows"][0]["n_columns"] == same["rows"][0]["n_columns"]
    assert ablated["metrics"] == same["metrics"] and ablated["rows"][0]["selection"] == same["rows"][0]["selection"]
    assert 0 < ablated["rows"][0]["n_columns"] < full["rows"][0]["n_columns"]
    for record in (ablated, same):
        named = [n for feats in record["rows"][0]["top_features"].values() for n, _ in feats]
        assert named and not any(n.startswith("cross_bigrams:") for n in named)
    assert any(n.startswith("cross_bigrams:") for feats in full["rows"][0]["top_features"].values() for n, _ in feats)


def test_record_fields(demo_records):
    record = demo_records["full"]
    assert {"config", "data", "metrics", "timings", "versions", "seed", "features", "peak_rss_bytes"} <= set(record)
    assert record["config"]["dataset"] == "demo" and record["seed"] == 0
    dev = record["metrics"]["dev"]
    assert set(dev) >= {"accuracy", "macro_f1", "per_class", "confusion"}
    assert set(dev["per_class"]) == {"entailment", "neutral", "contradiction"}
    assert sum(map(sum, dev["confusion"]["matrix"])) == 1000
    assert record["metrics"]["train"]["accuracy"] > 0.9
    assert record["data"]["splits"]["train"]["pairs"] == 4000
    assert record["versions"]["scikit-learn"]
    assert record["features"]["provenance"]["bleu"]["sacrebleu_signature"].startswith("nrefs:1")
    assert not any(key.startswith("_") for key in record)  # data only


def test_same_seed_same_numbers(demo_records):
    first, second = demo_records["full"], demo_records["again"]
    assert first["metrics"] == second["metrics"]
    assert first["rows"][0]["selection"] == second["rows"][0]["selection"]


def test_top_features_are_words(demo_records, cli, tmp_path):
    record = demo_records["full"]
    top = record["rows"][0]["top_features"]
    assert set(top) == {"entailment", "neutral", "contradiction"}
    for features in top.values():
        for name, _weight in features:
            kind, _, words = name.partition(":")
            assert kind in {"bleu", "length_diff", "overlap", "hyp_ngrams", "cross_unigrams", "cross_bigrams"}
            assert words and not words.isdigit()
    assert "top features for contradiction:" in format_report(record)
    done = cli("run", "--dataset", "demo", "--quiet", "--top-features", "3", "--features", "unlexicalized",
               "--C", "1")
    assert "top features" not in done.stdout and done.stdout.startswith("row ")  # --quiet: the result table only


def test_the_api_returns_models_and_the_record():
    result = nb.run(dataset="demo", model="edit_distance", quiet=True, train_size=800)
    assert result.record["rows"][0]["two_class"] is True and result.record["metrics"]["dev"]["accuracy"] > 0.6
    assert list(result.models) == ["edit_distance"] == result.rows
    assert result.table().startswith("row ") and "edit_distance" in result.report()


@pytest.mark.parametrize("args, message", [
    (["--features", "cross_trigrams"], "unknown feature type or group 'cross_trigrams'; valid names:"),
    (["--ablate", "nope"], "valid names: .*cross_bigrams"),
    (["--eval-split", "nosuch"], "no 'nosuch' split"),
    (["--train-size", "0"], "at least 1"),
])
def test_bad_arguments_exit_2(cli, args, message):
    done = cli("run", "--dataset", "demo", "--quiet", *args)
    assert done.returncode == 2
    assert re.search(message, done.stderr), done.stderr


def test_single_class_training_set(cli, tmp_path):
    train = tmp_path / "train.tsv"
    train.write_text("premise\thypothesis\tlabel\nA b .\tA .\tyes\nC d .\tC .\tyes\n")
    done = cli("run", "--dataset", "custom", "--train-file", train, "--quiet")
    assert done.returncode == 2 and "holds one class" in done.stderr


def test_unlabeled_test_split_points_at_predictions(cli, data_dir):
    done = cli("run", "--dataset", "rte", "--data-dir", data_dir, "--eval-split", "test", "--quiet")
    assert done.returncode == 2 and "unlabeled" in done.stderr and "predictions" in done.stderr


def test_missing_corpus_exits_2_from_the_script(tmp_path):
    # A process: the card's main command, as typed, and its exit status.
    done = run_script("run", "--ablate", "cross_bigrams", "--data-dir", tmp_path)
    assert done.returncode == 2
    assert "corpus 'snli'" in done.stderr and "download.py snli" in done.stderr and "--dataset demo" in done.stderr


def test_refuses_to_overwrite(cli, tmp_path):
    out = tmp_path / "r.json"
    out.write_text("{}")
    done = cli("run", "--dataset", "demo", "--quiet", "--out", out)
    assert done.returncode == 2 and "--overwrite" in done.stderr


def test_missing_corpus_message_fits_where_the_user_stands(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # outside the checkout: the installed command, absolute paths
    done = cli("run", "--dataset", "sick", "--data-dir", "data")
    assert done.returncode == 2
    assert f"  {tmp_path / 'data' / 'sick' / 'SICK.txt'}" in done.stderr
    assert f"nli-download sick --data-dir {tmp_path / 'data'}" in done.stderr
    assert "python experiments/download.py" not in done.stderr


def test_nothing_to_tag_draws_no_progress_bar(cli, tmp_path):
    train = tmp_path / "train.tsv"
    train.write_text("premise\thypothesis\tlabel\n" + "".join(f"A man number {i} sleeps .\tA person sleeps .\t"
                                                              f"{'yes' if i % 2 else 'no'}\n" for i in range(12)))
    args = ["--train-file", train, "--features", "unlexicalized", "--C", "1"]
    cli("run", *args)
    again = cli("run", *args)  # everything is in the cache now
    assert again.returncode == 0 and "tagging:" not in again.stderr and "0sent" not in again.stderr


def test_the_report_says_why_a_path_stopped_before_the_end_of_its_grid(demo_records):
    import copy
    record = copy.deepcopy(demo_records["full"])
    record["rows"][0]["selection"].update(path="C", skipped=[0.1, 0.3],
                                          stopped="fell significantly below the best (McNemar p = 0.017)")
    assert ("  dev accuracy fell significantly below the best (McNemar p = 0.017): not fitted C=0.1, C=0.3"
            in format_report(record).splitlines())


def test_labels_from_a_file_reach_the_terminal_escaped(cli):
    # A training file's labels (renamed here by --label-map, as a file of your own names them) were
    # printed raw in the result table, the per-class table, the confusion matrix and "top features
    # for <label>", as were words of its text among the feature names.
    esc, rlo = "\x1b[2Jgone", "\u202eton"
    done = cli("run", "--dataset", "demo", "--features", "unlexicalized", "--train-size", "300", "--top-features", "2",
               "--label-map", f"entailment={esc},contradiction={rlo}", "--C", "1.0")
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout + done.stderr and "\u202e" not in done.stdout + done.stderr
    assert "majority (\\u202eton, reference)" in done.stdout
    assert "  top features for \\x1b[2Jgone: " in done.stdout and "  top features for \\u202eton: " in done.stdout
    record = nb.run(dataset="demo", features="unlexicalized,hyp_ngrams", train_size=300, C=1.0, quiet=True,
                    top_features=2).record
    row = record["rows"][0]
    rename = {"entailment": esc, "contradiction": rlo}
    dev = row["metrics"]["dev"]
    dev["per_class"] = {rename.get(k, k): v for k, v in dev["per_class"].items()}
    dev["confusion"]["labels"] = [rename.get(k, k) for k in dev["confusion"]["labels"]]
    row["top_features"] = {rename.get(k, k): [(f"hyp_ngrams:unigram={esc}", 1.5)] for k in row["top_features"]}
    text = format_report(record)
    assert "\x1b" not in text and "\u202e" not in text
    lines = text.splitlines()
    assert sum(line.startswith("  \\x1b[2Jgone ") for line in lines) == 2  # its per-class and confusion rows
    assert sum(line.startswith("  \\u202eton ") for line in lines) == 2
    assert any(line.split() == ["\\x1b[2Jgone", "neutral", "\\u202eton"] for line in lines)  # the columns
    assert "  top features for \\x1b[2Jgone: hyp_ngrams:unigram=\\x1b[2Jgone (+1.50)" in lines
