"""The whole GLUE benchmark in one command (experiments/glue.py), on a data directory of small
files in GLUE's layout: the files, the zip, the records and the table, and a missing task said."""
from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import pytest

from nli_baselines.experiments.corpora.generated.demo import generate_demo, generate_similarity
from nli_baselines.experiments.submissions.glue_benchmark import PAPER_DEV, table, task_score
from nli_baselines.experiments.submissions.glue_tasks import GLUE_TASKS


def write_glue(root: Path) -> Path:
    """STS-B, RTE and CoLA in GLUE's layout, from the generated demo pairs."""
    glue = root / "glue"
    sts, rte, cola = glue / "STS-B", glue / "RTE", glue / "CoLA"
    for folder in (sts, rte, cola):
        folder.mkdir(parents=True)
    head = "index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1\tsentence2"
    for split, size in (("train", 120), ("dev", 40), ("test", 20)):
        pairs = generate_similarity(split, size)
        (sts / f"{split}.tsv").write_text(head + ("\tscore" if split != "test" else "") + "\n" + "".join(
            f"{i}\tmain\tx\t2012\t{i:04d}\tnone\tnone\t{p.premise}\t{p.hypothesis}"
            + (f"\t{p.label}" if split != "test" else "") + "\n" for i, p in enumerate(pairs)), encoding="utf-8")
        pairs = generate_demo(split, size)
        two = {"entailment": "entailment"}
        (rte / f"{split}.tsv").write_text("index\tsentence1\tsentence2" + ("\tlabel" if split != "test" else "")
                                          + "\n" + "".join(f"{i}\t{p.premise}\t{p.hypothesis}"
                                                           + (f"\t{two.get(p.label, 'not_entailment')}"
                                                              if split != "test" else "") + "\n"
                                                           for i, p in enumerate(pairs)), encoding="utf-8")
        rows = [(p.hypothesis, "1" if p.label == "entailment" else "0") for p in pairs]
        if split == "test":
            (cola / "test.tsv").write_text("index\tsentence\n" + "".join(f"{i}\t{s}\n" for i, (s, _) in enumerate(rows)),
                                           encoding="utf-8")
        else:
            (cola / f"{split}.tsv").write_text("".join(f"src\t{label}\t\t{s}\n" for s, label in rows), encoding="utf-8")
    return root


def test_the_whole_benchmark_writes_every_file_it_can_and_says_what_is_missing(cli, tmp_path):
    data = write_glue(tmp_path / "data")
    out = tmp_path / "sub"
    done = cli("glue", "--data-dir", data, "--out", out, "--quiet")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in out.glob("*.tsv")) == ["CoLA.tsv", "RTE.tsv", "STS-B.tsv"]
    with zipfile.ZipFile(out / "glue.zip") as archive:
        assert sorted(archive.namelist()) == ["CoLA.tsv", "RTE.tsv", "STS-B.tsv"]
    sts = (out / "STS-B.tsv").read_text().splitlines()
    assert sts[0] == "index\tprediction" and len(sts) == 21
    assert all(0 <= float(line.split("\t")[1]) <= 5 and len(line.split("\t")[1].split(".")[1]) == 3 for line in sts[1:])
    whole = json.loads((out / "glue.json").read_text())
    assert whole["tasks"] == ["CoLA", "STS-B", "RTE"] and whole["partial"]
    assert set(whole["skipped"]) == {"SST-2", "MRPC", "QQP", "MNLI", "QNLI", "WNLI"}
    assert whole["average"] == pytest.approx(sum(whole["scores"].values()) / 3)
    record = json.loads((out / "records" / "STS-B.json").read_text())
    dev = record["rows"][0]["metrics"]["dev"]
    assert record["glue"]["score"] == pytest.approx(50 * (dev["pearson"] + dev["spearman"]))
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["task", "dev", "figures", "score", *PAPER_DEV]
    assert [line.split()[0] for line in lines[2:11]] == [task.name for task in GLUE_TASKS]
    assert lines[3].split() == ["SST-2", "(not", "run)", *(f"{PAPER_DEV[m]['SST-2']:.1f}" for m in PAPER_DEV)]  # why: below
    assert lines[11].startswith("GLUE average (partial)")
    assert lines[-1].startswith("wrote ") and max(len(line) for line in lines[:-1]) <= 100  # the notes wrap
    notes = " ".join(line.strip() for line in lines[12:-1])
    assert notes.startswith("not run: SST-2 (train, dev, test not found); MRPC (train, dev, test not found);")
    assert "partial: the average of the 3 of 9 tasks that ran, CoLA, STS-B, RTE; the paper's over the same" in notes
    assert "partial submission: SST-2.tsv, MRPC.tsv, QQP.tsv, MNLI-m.tsv, MNLI-mm.tsv, QNLI.tsv, WNLI.tsv, AX.tsv " \
           "missing" in notes
    again = cli("glue", "--data-dir", data, "--out", out, "--quiet")  # an earlier run's files are kept
    assert again.returncode == 2 and "--overwrite" in again.stderr


def test_unknown_tasks_and_no_data_are_one_line(cli, tmp_path):
    done = cli("glue", "--data-dir", tmp_path, "--out", tmp_path / "sub", "--tasks", "STS-B,SQuAD")
    assert done.returncode == 2 and "--tasks: 'SQuAD' is not a GLUE task" in done.stderr
    done = cli("glue", "--data-dir", tmp_path / "empty", "--out", tmp_path / "sub", "--tasks", "STS-B", "--quiet")
    assert done.returncode == 2 and done.stderr.startswith("error: no GLUE task could run")


def test_an_undefined_task_figure_is_n_a_and_left_out_of_the_average():
    record = {"data": {"eval_split": "dev"}, "rows": [{"metrics": {"dev": {"mean_of_pearson_spearman": None}}}]}
    assert task_score(record, "mean_of_pearson_spearman") is None
    whole = {"scores": {"STS-B": None, "RTE": 60.0, "CoLA": 10.0}, "average": 35.0, "skipped": {},
             "undefined": {"STS-B": "the predictions are all 2.5"}, "missing_files": [],
             "dev_figures": {"STS-B": {"pearson": None, "spearman": None}, "RTE": {"accuracy": 60.0},
                             "CoLA": {"mcc": 10.0}}}
    text = table(whole)
    lines, said = text.splitlines(), " ".join(text.split())  # notes under the table wrap at 100 columns
    sts = next(line for line in lines if line.startswith("STS-B"))
    assert sts.split()[1:6] == ["Pearson", "n/a", "/", "Spearman", "n/a"] and sts.split()[6] == "n/a"
    assert next(line for line in lines if line.startswith("GLUE average (partial)")).split()[3] == "35.0"
    assert "n/a: STS-B's dev figure is undefined (the predictions are all 2.5): left out of the average, not " \
           "counted as 0" in said
    assert "partial: the average of the 2 of 9 tasks that ran with a defined figure, RTE, CoLA; the paper's over " \
           "the same" in said


@pytest.mark.parametrize("index", ["=HYPERLINK(1)0", "\x1b[2J7", "\u202e12", "07", "+3"])
def test_a_test_files_index_that_is_no_plain_integer_makes_no_glue_file(cli, tmp_path, index):
    # GLUE's test files number their rows: an index column holding a formula, terminal escapes or
    # bidirectional controls was copied raw into RTE.tsv, validated and zipped.
    data = write_glue(tmp_path / "data")
    test = data / "glue" / "RTE" / "test.tsv"
    lines = test.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[4] = index + lines[4][lines[4].index("\t"):]
    test.write_text("".join(lines), encoding="utf-8")
    out = tmp_path / "sub"
    done = cli("glue", "--data-dir", data, "--out", out, "--tasks", "RTE", "--quiet")
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    assert done.stderr == f"error: RTE: test id {index!r} is not an integer; GLUE files take integer index values\n"
    assert done.stderr.isascii()  # the escape and the override shown as \x1b, \u202e: never acted on
    assert not (out / "RTE.tsv").exists() and not (out / "glue.zip").exists()


@pytest.mark.parametrize("make, kind", [
    (lambda path: os.mkfifo(path), "a FIFO"),
    (lambda path: path.symlink_to("/dev/null"), "a character device"),
    (lambda path: path.mkdir(), "a directory"),
])
def test_a_task_file_that_is_no_regular_file_is_named_with_what_it_is(cli, tmp_path, make, kind):
    # It was "test not found": the file is there, and the line said neither which nor why.
    data = write_glue(tmp_path / "data")
    test = data / "glue" / "RTE" / "test.tsv"
    test.unlink()
    make(test)
    done = cli("glue", "--data-dir", data, "--out", tmp_path / "sub", "--tasks", "RTE,STS-B")
    assert done.returncode == 0, done.stderr
    assert f"[1/2] RTE: skipped (test: {test}: {kind}, not a data file (only regular files are read))" in done.stderr
    assert f"RTE (test: {test}: {kind}, not a data file (only regular files are read))" in " ".join(done.stdout.split())
    done = cli("run", "--dataset", "rte", "--data-dir", data, "--eval-split", "test")
    assert done.returncode == 2
    assert done.stderr == f"error: {test}: {kind}, not a data file (only regular files are read)\n"
