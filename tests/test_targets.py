"""`--target labels|scores|auto`: whether the label column of your own files holds classes or
scores (experiments/corpora/targets.py), said in one line, refused in one line where a column of
scores would become a many-class classifier, and the training file read once all the same."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from nli_baselines.experiments.corpora import registry
from nli_baselines.experiments.corpora.readers.common import DataFormatError
from nli_baselines.experiments.corpora.targets import TargetError, choose_target
from nli_baselines.experiments.configuration.config import RunConfig
from nli_baselines.experiments.configuration.errors import UsageError


@pytest.mark.parametrize("values, asked, expected", [
    (["4.5", "3", "1"], "auto", ("scores", "x.tsv: the label column holds numbers (3 distinct, e.g. 4.5): a score task "
                                           "(--target labels to read them as classes)")),
    ([str(i) for i in range(11)], "auto", ("scores", "x.tsv: the label column holds numbers (11 distinct, e.g. 0): a "
                                                     "score task (--target labels to read them as classes)")),
    (["5", "1", "10", "2"], "auto", ("labels", "x.tsv: the label column holds whole numbers (4 distinct: 1, 2, 5, 10): "
                                               "classes (--target scores to read them as scores)")),
    (["1", "0"], "auto", ("labels", None)),  # two values: classes beyond doubt, no line on it
    (["yes", "no", "3.5"], "auto", ("labels", None)),
    ([], "auto", ("labels", None)),
    (["nan", "1.5"], "auto", ("labels", None)),  # nan is a word here, not a number
    # Scores with a word or two among them: scores, whose rows without a number are bad rows.
    (["4.5", "3", "high", "1"], "auto", ("scores", "x.tsv: the label column holds numbers (3 distinct, e.g. 4.5) and 1 "
                                                   "value that is no number ('high'): a score task, whose rows without "
                                                   "a number are bad rows (--target labels to read them all as "
                                                   "classes)")),
    (["4.5", "nan", "3", "n/a"], "auto", ("labels", None)),  # as many words as numbers: classes
    (["5", "1", "x"], "auto", ("labels", None)),  # whole numbers of a few classes, and a word: classes
    (["4.5", "3", "high", "1"], "labels", ("labels", None)),
    ([str(i / 10) for i in range(50)], "labels", ("labels", None)),  # 50 classes of numbers: asked for, and allowed
    (["yes", "no"], "scores", ("scores", None)),  # the readers name the rows that are no number
])
def test_what_a_label_column_holds(values, asked, expected):
    assert choose_target(values, asked, "x.tsv") == expected


def test_a_column_of_many_numbers_is_no_classifier():
    with pytest.raises(TargetError, match=r"^--target labels: x.tsv: the label column holds 51 distinct numbers \(e.g. "
                                          r"0.1\): scores, not a 51-class task; drop --target \(or give --target "
                                          r"scores\) to read them as scores$"):
        choose_target([str(i / 10) for i in range(51)], "labels", "x.tsv")


def write_pairs(path: Path, labels) -> Path:
    path.write_text("premise\thypothesis\tlabel\n" + "".join(f"A man {i}.\tA person {i}.\t{label}\n"
                                                             for i, label in enumerate(labels)))
    return path


SCORES = ["3.80", "0.5", "5.000", "2.25", "4"]


def test_a_file_of_scores_is_a_score_task_said_once(tmp_path):
    train = write_pairs(tmp_path / "train.tsv", SCORES)
    dev = write_pairs(tmp_path / "dev.tsv", ["1.5", "-2"])  # no declared range: any finite number is a score
    corpus = RunConfig(train_file=str(train), dev_file=str(dev)).corpus()
    assert corpus.task.is_scores and corpus.task.score_range is None and corpus.task.metrics == ("pearson", "spearman")
    data = corpus.load("train")
    assert [p.label for p in data.pairs] == SCORES  # as written
    assert data.notes[0] == ("train.tsv: the label column holds numbers (5 distinct, e.g. 3.80): a score task "
                             "(--target labels to read them as classes)")
    dev_data = corpus.load("dev")
    assert [p.label for p in dev_data.pairs] == ["1.5", "-2"] and not any("label column" in n for n in dev_data.notes)
    # A dev row that is no number is a bad row of a score task, named by file and line.
    write_pairs(dev, ["1.5", "high"])
    with pytest.raises(DataFormatError, match=r"dev.tsv:3: score 'high' is not a number"):
        corpus.load("dev")


def test_whole_numbers_stay_classes_and_the_target_can_be_forced(tmp_path):
    train = write_pairs(tmp_path / "train.tsv", ["1", "5", "3", "5"])
    corpus = RunConfig(train_file=str(train)).corpus()
    assert corpus.task.target == "labels" and corpus.labels is None
    assert corpus.load("train").notes[0] == ("train.tsv: the label column holds whole numbers (3 distinct: 1, 3, 5): "
                                             "classes (--target scores to read them as scores)")
    assert RunConfig(train_file=str(train), target="scores").corpus().task.is_scores
    scores = write_pairs(tmp_path / "scores.tsv", SCORES)
    corpus = RunConfig(train_file=str(scores), target="labels").corpus()
    assert corpus.task.target == "labels" and not any("label column" in n for n in corpus.load("train").notes)
    words = write_pairs(tmp_path / "words.tsv", ["yes", "no"])
    assert not any("label column" in n for n in RunConfig(train_file=str(words)).corpus().load("train").notes)
    with pytest.raises(DataFormatError, match=r"words.tsv:2: score 'yes' is not a number"):
        RunConfig(train_file=str(words), target="scores").corpus().load("train")


def test_the_refusals_are_one_line(tmp_path, cli):
    many = write_pairs(tmp_path / "train.tsv", [f"{i / 10:.1f}" for i in range(60)])
    done = cli("run", "--train-file", many, "--target", "labels", "--quiet")
    assert done.returncode == 2 and done.stderr == (
        "error: --target labels: train.tsv: the label column holds 60 distinct numbers (e.g. 0.1): scores, not a "
        "60-class task; drop --target (or give --target scores) to read them as scores\n")
    done = cli("run", "--dataset", "sick", "--target", "scores", "--quiet")
    assert done.returncode == 2 and done.stderr == (
        "error: --target says what the labels of your own files (--train-file ...) or of a Hugging Face dataset "
        "(--dataset hf:NAME) are; 'sick' declares its own\n")
    done = cli("run", "--train-file", many, "--target", "score", "--quiet")
    assert done.returncode == 2 and "did you mean scores" in done.stderr and done.stderr.count("\n") == 1


def test_json_numbers_and_float_columns_are_scores(tmp_path):
    jsonl = tmp_path / "train.jsonl"
    jsonl.write_text("".join(json.dumps({"premise": "a", "hypothesis": "b", "label": value}) + "\n"
                             for value in (3.8, 1, 4.25)))
    corpus = RunConfig(train_file=str(jsonl)).corpus()
    assert corpus.task.is_scores and [p.label for p in corpus.load("train").pairs] == ["3.8", "1", "4.25"]
    pq = pytest.importorskip("pyarrow.parquet", reason="the parquet half needs pyarrow, of the hf extra: "
                                                      "pip install -e '.[hf]'")
    import pyarrow as pa
    table = pa.table({"premise": ["a", "b", "c"], "hypothesis": ["d", "e", "f"],
                      "label": pa.array([3.8, 0.0, 4.5], type=pa.float32())})
    pq.write_table(table, tmp_path / "train.parquet")
    corpus = RunConfig(train_file=str(tmp_path / "train.parquet")).corpus()
    assert corpus.task.is_scores and [p.label for p in corpus.load("train").pairs] == ["3.8", "0", "4.5"]
    pq.write_table(table.set_column(2, "label", pa.array([1.0, 2.0, 1.0])), tmp_path / "stars.parquet")
    corpus = RunConfig(train_file=str(tmp_path / "stars.parquet")).corpus()
    assert corpus.task.target == "labels" and [p.label for p in corpus.load("train").pairs] == ["1", "2", "1"]


def test_the_training_file_is_read_once(tmp_path, monkeypatch):
    reads = []
    real = registry.read_custom

    def counted(path, *args, **kwargs):
        reads.append(Path(path).name)
        return real(path, *args, **kwargs)
    monkeypatch.setattr(registry, "read_custom", counted)
    train = write_pairs(tmp_path / "train.tsv", SCORES)
    config = RunConfig(train_file=str(train))
    first, second = config.corpus(), config.corpus()  # a run builds its corpus to plan, then to read
    assert reads == ["train.tsv"]
    assert [p.label for p in second.load("train").pairs] == SCORES and reads == ["train.tsv"]
    assert [p.label for p in first.load("train").pairs] == SCORES and reads == ["train.tsv", "train.tsv"]  # afresh
    write_pairs(train, ["yes", "no"])  # another file now: looked at again
    assert RunConfig(train_file=str(train)).corpus().task.target == "labels" and len(reads) == 3
    with pytest.raises(UsageError, match=r"train.tsv:3: expected 3 tab-separated columns"):
        train.write_text("premise\thypothesis\tlabel\nA.\tB.\t1\nA.\tB.\n")
        RunConfig(train_file=str(train)).corpus()
    skipped = RunConfig(train_file=str(train), on_bad_row="skip").corpus().load("train", on_bad_row="skip")
    assert len(skipped.pairs) == 1 and skipped.skipped == {"wrong column count": 1} and len(reads) == 5


@pytest.mark.parametrize("word", ["nan", "high"])
def test_one_word_in_a_column_of_scores_is_the_bad_row_it_is(tmp_path, word):
    # Before, read as classes: the run stopped naming dev scores that training never showed.
    scores = [f"{i / 8:.3f}" for i in range(30)]
    scores[12] = word
    train = write_pairs(tmp_path / "train.tsv", scores)
    dev = write_pairs(tmp_path / "dev.tsv", ["1.5", "2.75"])
    corpus = RunConfig(train_file=str(train), dev_file=str(dev)).corpus()
    assert corpus.task.is_scores
    with pytest.raises(DataFormatError, match=rf"train.tsv:14: score '{word}' is not a number"):
        corpus.load("train")
    corpus = RunConfig(train_file=str(train), dev_file=str(dev), on_bad_row="skip").corpus()
    data = corpus.load("train", on_bad_row="skip")
    assert (len(data.pairs), data.bad_lines, dict(data.skipped)) == (29, [14], {"bad score": 1})
    assert data.notes[0] == (f"train.tsv: the label column holds numbers (29 distinct, e.g. 0.125) and 1 value that "
                             f"is no number ('{word}'): a score task, whose rows without a number are bad rows "
                             "(--target labels to read them all as classes)")
