"""A new pair task from the user's own files: columns found and named, labels mapped, labels that
training never shows caught, unlabeled training data explained, a majority reference in the report."""
from __future__ import annotations

import json

import pytest

from nli_baselines.experiments.corpora import load_pairs
from nli_baselines.experiments.corpora.readers.common import DataFormatError

TRAIN = "".join(f"A man number {i} is sleeping .\tA man is {'sleeping' if i % 2 else 'running'} .\t"
                f"{'yes' if i % 2 else 'no'}\n" for i in range(30))


@pytest.fixture
def files(tmp_path):
    (tmp_path / "train.tsv").write_text("sentence1\tsentence2\tlabel\n" + TRAIN)
    dev = "".join(TRAIN.splitlines(keepends=True)[:10]) + "A cat .\tA cat .\tmaybe\n"
    (tmp_path / "dev.tsv").write_text("sentence1\tsentence2\tlabel\n" + dev)
    (tmp_path / "nolabel.tsv").write_text("sentence1\tsentence2\tgold\n" + TRAIN.replace("\tyes", "\tx"))
    return tmp_path


def test_columns_are_found_and_the_choice_is_said(cli, files):
    pairs = load_pairs(files / "train.tsv")
    assert len(pairs) == 30 and pairs[0].premise == "A man number 0 is sleeping ." and pairs[0].label == "no"
    done = cli("run", "--dataset", "custom", "--train-file", files / "train.tsv", "--features", "unlexicalized",
               "--C", "1", "--out", files / "r.json")
    if "spaCy English tagger" in done.stderr:
        pytest.skip("needs a spaCy English model to tag the files")
    assert done.returncode == 0, done.stderr
    assert "premise column 'sentence1', hypothesis column 'sentence2' (detected)" in done.stdout
    record = json.loads((files / "r.json").read_text())
    assert "(detected)" in record["data"]["splits"]["train"]["notes"][0]
    assert "majority (no, reference)" in done.stdout  # a majority row is always there to read against


def test_missing_columns_are_named(cli, files):
    (files / "odd.tsv").write_text("first\tsecond\tlabel\na\tb\tyes\n")
    with pytest.raises(DataFormatError, match="no premise and hypothesis columns found among first, second, label"):
        load_pairs(files / "odd.tsv")
    assert load_pairs(files / "odd.tsv", premise="first", hypothesis="second")[0].hypothesis == "b"
    done = cli("run", "--dataset", "custom", "--train-file", files / "nolabel.tsv", "--features", "unlexicalized")
    assert done.returncode == 2
    assert "needs gold labels to learn from: 30 of its 30 pairs have no label" in done.stderr
    assert "its columns are sentence1, sentence2, gold (the label column is set by --label-column)" in done.stderr


def test_label_map_unseen_labels_and_two_class_models(cli, files):
    base = ["--dataset", "custom", "--train-file", files / "train.tsv", "--dev-file", files / "dev.tsv"]
    unseen = cli("run", *base, "--features", "unlexicalized")
    assert unseen.returncode == 2 and "label(s) 'maybe' that never occur in training" in unseen.stderr
    assert "dev.tsv" in unseen.stderr and "--allow-unseen-labels" in unseen.stderr
    allowed = cli("run", *base, "--features", "unlexicalized", "--allow-unseen-labels", "--C", "1", "--quiet")
    if "spaCy English tagger" in allowed.stderr:
        pytest.skip("needs a spaCy English model to tag the files")
    assert allowed.returncode == 0 and "note: the dev split" in allowed.stderr and "never occur" in allowed.stderr
    edit = ["--dataset", "custom", "--train-file", files / "train.tsv", "--model", "edit_distance", "--quiet"]
    unmapped = cli("run", *edit)
    assert unmapped.returncode == 2 and "--label-map yes=entailment,no=not_entailment" in unmapped.stderr
    mapped = cli("run", *edit, "--label-map", "yes=entailment,no=not_entailment")
    assert mapped.returncode == 0, mapped.stderr
    bad = cli("run", *edit, "--label-map", "yes")
    assert bad.returncode == 2 and "expected OLD=NEW pairs" in bad.stderr


def test_a_custom_dataset_needs_a_training_file(cli, files):
    done = cli("run", "--dataset", "custom", "--dev-file", files / "dev.tsv")
    assert done.returncode == 2 and "no training split to learn from" in done.stderr and "--train-file" in done.stderr


def test_a_sentence_too_long_for_the_pairwise_features(cli, tmp_path):
    from nli_baselines.features.pair import MAX_PAIRWISE_TOKENS
    long = " ".join(["word"] * (MAX_PAIRWISE_TOKENS + 200))
    rows = TRAIN + f"{long} .\tA word .\tyes\n"
    (tmp_path / "train.tsv").write_text("premise\thypothesis\tlabel\n" + rows)
    base = ["--train-file", tmp_path / "train.tsv", "--C", "1", "--quiet"]
    done = cli("run", *base)
    assert done.returncode == 2 and "train.tsv: pair '30': its premise has 1,201 tokens" in done.stderr
    assert "--on-bad-row skip" in done.stderr and "--ablate cross_unigrams,cross_bigrams" in done.stderr
    skipped = cli("run", *base, "--on-bad-row", "skip", "--out", tmp_path / "r.json")
    assert skipped.returncode == 0, skipped.stderr
    counts = json.loads((tmp_path / "r.json").read_text())["data"]["splits"]["train"]
    assert counts["skipped"] == {"too many tokens for the pairwise features": 1} and counts["pairs"] == 30
    assert cli("run", *base, "--features", "unlexicalized").returncode == 0  # no pairwise type: no limit


def test_a_read_that_builds_many_objects_leaves_them_frozen_and_the_collector_on(monkeypatch):
    import gc

    from nli_baselines.experiments.corpora.readers import common
    monkeypatch.setattr(common, "FREEZE_FROM", 10_000)
    gc.unfreeze()  # whatever an earlier test froze
    assert gc.isenabled()
    try:
        with common.gc_paused():
            assert not gc.isenabled()
            small = [[i] for i in range(100)]
        assert gc.isenabled() and gc.get_freeze_count() == 0  # a small read is left to the collector
        with common.gc_paused():
            large = [[i] for i in range(20_000)]
        assert gc.isenabled() and gc.get_freeze_count() >= 20_000
        assert len(small) + len(large) == 20_100
    finally:
        gc.unfreeze()
