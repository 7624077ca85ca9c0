"""GLUE/SuperGLUE prediction files: byte-exact formats, validation, bundling; the diagnostic breakdown."""
from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import pytest
from sklearn.metrics import matthews_corrcoef

from nli_baselines.experiments.breakdowns.ax import breakdown
from nli_baselines.experiments.corpora import get_corpus
from nli_baselines.experiments.corpora.readers.glue import read_ax
from nli_baselines.experiments.submissions.submitting import score_diagnostic, write_submissions
from nli_baselines.experiments.submissions.files import (TASKS, SubmissionError, SubmissionTask, bundle, read_predictions,
                                                         validate, write_predictions)
from nli_baselines.features.labels import CB3


@pytest.mark.parametrize("benchmark, name, ids, labels, expected", [
    ("glue", "RTE", ["0", "1", "2"], ["entailment", "not_entailment", "entailment"],
     b"index\tprediction\n0\tentailment\n1\tnot_entailment\n2\tentailment\n"),
    ("glue", "MNLI-m", ["0", "1"], ["neutral", "contradiction"], b"index\tprediction\n0\tneutral\n1\tcontradiction\n"),
    ("glue", "MNLI-mm", ["0"], ["entailment"], b"index\tprediction\n0\tentailment\n"),
    ("glue", "AX", ["0", "1"], ["contradiction", "entailment"], b"index\tprediction\n0\tcontradiction\n1\tentailment\n"),
    ("glue", "QNLI", ["0"], ["not_entailment"], b"index\tprediction\n0\tnot_entailment\n"),
    ("glue", "WNLI", ["0", "1"], ["1", "0"], b"index\tprediction\n0\t1\n1\t0\n"),
    ("superglue", "RTE", ["0", "1"], ["not_entailment", "entailment"],
     b'{"idx": 0, "label": "not_entailment"}\n{"idx": 1, "label": "entailment"}\n'),
    ("superglue", "CB", ["0", "1", "2"], ["contradiction", "neutral", "entailment"],
     b'{"idx": 0, "label": "contradiction"}\n{"idx": 1, "label": "neutral"}\n{"idx": 2, "label": "entailment"}\n'),
    ("superglue", "AX-b", ["0"], ["entailment"], b'{"idx": 0, "label": "entailment"}\n'),
])
def test_byte_exact_files(tmp_path, benchmark, name, ids, labels, expected):
    task = TASKS[(benchmark, name)]
    path = write_predictions(task, ids, labels, tmp_path)
    assert path.name == task.filename and path.read_bytes() == expected
    assert validate(task, path, ids)["rows"] == len(ids)


def test_rows_follow_test_order_not_sorted(tmp_path):
    task = TASKS[("glue", "RTE")]
    path = write_predictions(task, ["10", "2", "7"], ["entailment"] * 3, tmp_path)
    assert [line.split("\t")[0] for line in path.read_text().splitlines()[1:]] == ["10", "2", "7"]


def test_validation_errors(tmp_path):
    task = TASKS[("glue", "RTE")]
    with pytest.raises(SubmissionError, match="not in"):
        write_predictions(task, ["0"], ["neutral"], tmp_path)
    with pytest.raises(SubmissionError, match="2 test ids but 1 predictions"):
        write_predictions(task, ["0", "1"], ["entailment"], tmp_path)
    path = write_predictions(task, ["0", "1"], ["entailment", "entailment"], tmp_path)
    with pytest.raises(SubmissionError, match="2 rows, but the test set has 3"):
        validate(task, path, ["0", "1", "2"])
    with pytest.raises(SubmissionError, match="row 1 has index 0, the test set 1"):
        validate(task, path, ["1", "0"])
    (tmp_path / "RTE.tsv").write_text("id\tlabel\n0\tentailment\n")
    with pytest.raises(SubmissionError, match="header"):
        validate(task, tmp_path / "RTE.tsv", ["0"])
    assert validate(TASKS[("glue", "AX")], write_predictions(TASKS[("glue", "AX")], ["0"], ["neutral"], tmp_path),
                    ["0"])["notes"] == ["AX has 1 rows; the official test set has 1104"]


def test_bundle_is_flat(tmp_path):
    a = write_predictions(TASKS[("glue", "RTE")], ["0"], ["entailment"], tmp_path / "x")
    b = write_predictions(TASKS[("glue", "AX")], ["0"], ["neutral"], tmp_path / "y")
    with zipfile.ZipFile(bundle([a, b], tmp_path / "glue.zip")) as archive:
        assert archive.namelist() == ["RTE.tsv", "AX.tsv"]
        assert archive.read("RTE.tsv") == a.read_bytes()


DIAGNOSTIC = ("Lexical Semantics\tPredicate-Argument Structure\tLogic\tKnowledge\tDomain\tPremise\tHypothesis\t"
              "Label\r\n"
              "\t\tNegation;Double negation\t\tArtificial\tThe cat sat.\tThe cat did not sit.\tcontradiction\r\n"
              "Lexical entailment\t\t\t\tNews\tA dog barked.\tAn animal barked.\tentailment\r\n"
              "Lexical entailment;Quantifiers\t\tNegation\t\tNews\tNo dog barked.\tNo animal barked.\tneutral\r\n"
              "\tCoordination scope\t\tCommon sense\tReddit\tA and B left.\tA left.\tentailment\r\n"
              "\t\tNegation\t\tArtificial\tIt rained.\tIt did not rain.\tcontradiction\r\n"
              "Quantifiers\t\t\tWorld knowledge\tWiki\tSome ran.\tAll ran.\tneutral\r\n")


def test_r3_equals_sklearn_and_categories(tmp_path):
    path = tmp_path / "diagnostic-full.tsv"
    path.write_bytes(DIAGNOSTIC.encode())
    pairs = read_ax(path, "ax", "test_labeled").pairs
    assert pairs[2].meta["categories"] == {"Lexical Semantics": ["Lexical entailment", "Quantifiers"],
                                           "Logic": ["Negation"]}
    predicted = ["contradiction", "entailment", "entailment", "neutral", "contradiction", "neutral"]
    result = breakdown(pairs, {p.id: label for p, label in zip(pairs, predicted)})
    gold = [p.label for p in pairs]
    assert result["overall"] == pytest.approx(matthews_corrcoef(gold, predicted))
    logic = result["categories"]["Logic"]
    assert logic["count"] == 3 and logic["phenomena"]["Negation"]["count"] == 3
    assert logic["phenomena"]["Double negation"]["count"] == 1
    lexical = result["categories"]["Lexical Semantics"]
    assert lexical["count"] == 3 and lexical["phenomena"]["Quantifiers"]["count"] == 2
    idx = [1, 2, 5]
    assert lexical["score"] == pytest.approx(matthews_corrcoef([gold[i] for i in idx], [predicted[i] for i in idx]))
    two = breakdown(pairs, {p.id: ("entailment" if g == "entailment" else "not_entailment")
                            for p, g in zip(pairs, predicted)})
    assert two["metric"] == "two-class MCC"


def test_diagnose_cli_on_predictions(cli, tmp_path):
    path = tmp_path / "diagnostic-full.tsv"
    path.write_bytes(DIAGNOSTIC.encode())
    ax = write_predictions(TASKS[("glue", "AX")], [str(i) for i in range(6)],
                           ["contradiction", "entailment", "neutral", "entailment", "contradiction", "neutral"],
                           tmp_path / "out")
    done = cli("diagnose", "--diagnostic", path, "--predictions", ax, "--out", tmp_path / "d.json")
    assert done.returncode == 0, done.stderr
    assert "R3 (three-class MCC) on 6 diagnostic examples: +1.000" in done.stdout
    assert json.loads((tmp_path / "d.json").read_text())["categories"]["Logic"]["count"] == 3
    short = write_predictions(TASKS[("glue", "AX")], ["0"], ["neutral"], tmp_path / "short")
    done = cli("diagnose", "--diagnostic", path, "--predictions", short)
    assert done.returncode == 2 and "no prediction for 5" in done.stderr


# ---------------------------------------------------------------- refused test sets and notes that reach the user


@pytest.mark.parametrize("benchmark, name, ids, message", [
    ("superglue", "CB", [], r"CB: the test set is empty"),
    ("glue", "RTE", [], r"RTE: the test set is empty"),
    ("glue", "RTE", ["0", "1", "0"], r"RTE: test id '0' occurs 2 times \(rows 1 and 3\)"),
    ("superglue", "CB", ["4", "4"], r"CB: test id '4' occurs 2 times \(rows 1 and 2\)"),
    ("superglue", "CB", ["abc"], r"CB: test id 'abc' is not an integer"),
    ("superglue", "CB", ["1.5"], r"CB: test id '1.5' is not an integer"),
    ("superglue", "CB", ["07"], r"CB: test id '07' is not an integer"),
])
def test_refused_test_ids_write_no_file(tmp_path, benchmark, name, ids, message):
    task = TASKS[(benchmark, name)]
    with pytest.raises(SubmissionError, match=message):
        write_predictions(task, ids, [task.labels[0]] * len(ids), tmp_path)
    assert not (tmp_path / task.filename).exists()


def test_validate_refuses_empty_and_duplicate_test_sets(tmp_path):
    task = TASKS[("superglue", "CB")]
    (tmp_path / "CB.jsonl").write_text("")
    with pytest.raises(SubmissionError, match="the test set is empty"):
        validate(task, tmp_path / "CB.jsonl", [])
    (tmp_path / "CB.jsonl").write_text('{"idx": 1, "label": "neutral"}\n{"idx": 1, "label": "neutral"}\n')
    with pytest.raises(SubmissionError, match=r"test id '1' occurs 2 times"):
        validate(task, tmp_path / "CB.jsonl", ["1", "1"])


def test_validation_notes_are_logged(tmp_path):
    task, notes = TASKS[("glue", "AX")], []
    path = write_predictions(task, ["0"], ["neutral"], tmp_path, log=notes.append)
    assert notes == [f"note: {path}: AX has 1 rows; the official test set has 1104"]
    write_predictions(task, [str(i) for i in range(1104)], ["neutral"] * 1104, tmp_path, log=notes.append)
    assert len(notes) == 1


@pytest.mark.parametrize("text, message", [
    ('{"idx": 0, "label": "neutral"}\n{"idx": 0, "label": "neutral"}\n', r"CB.jsonl:2: idx 0 repeats line 1"),
    ('{"idx": "abc", "label": "neutral"}\n', r"CB.jsonl:1: idx must be an integer"),
    ('{"idx": 0.0, "label": "neutral"}\n', r"CB.jsonl:1: idx must be an integer"),
    ('{"idx": 0, "label": 1}\n', r"CB.jsonl:1: label must be a string"),
    ('["idx", "label"]\n', r"CB.jsonl:1: not an \{idx, label\} JSON line"),
])
def test_read_predictions_refuses_bad_superglue_lines(tmp_path, text, message):
    (tmp_path / "CB.jsonl").write_text(text)
    with pytest.raises(SubmissionError, match=message):
        read_predictions(TASKS[("superglue", "CB")], tmp_path / "CB.jsonl")


def test_read_predictions_refuses_repeated_glue_index_and_non_utf8(tmp_path):
    task = TASKS[("glue", "AX")]
    (tmp_path / "AX.tsv").write_text("index\tprediction\n0\tneutral\n1\tneutral\n0\tentailment\n")
    with pytest.raises(SubmissionError, match=r"AX.tsv:4: index 0 repeats line 2"):
        read_predictions(task, tmp_path / "AX.tsv")
    (tmp_path / "AX.tsv").write_bytes(b"index\tprediction\n0\tneutral\n1\tn\xe9utral\n")
    with pytest.raises(SubmissionError, match=r"AX.tsv:3: not UTF-8"):
        read_predictions(task, tmp_path / "AX.tsv")


class _Constant:
    """A stand-in predictor: one label for every pair."""

    labels = CB3

    def annotated(self, pairs, **kwargs):
        return pairs

    def predict(self, pairs):
        return ["neutral"] * len(pairs)


def _cb_data(tmp_path, test_text: str):
    folder = tmp_path / "data" / "superglue" / "CB"
    folder.mkdir(parents=True)
    (folder / "test.jsonl").write_text(test_text)
    return tmp_path / "data"


def test_submission_of_an_empty_cb_test_file_is_refused(tmp_path):
    data = _cb_data(tmp_path, "")
    with pytest.raises(SubmissionError, match="CB: the test set is empty"):
        write_submissions(_Constant(), get_corpus("cb"), {"superglue": tmp_path / "out"}, data_dir=data,
                          log=lambda message: None)
    assert not (tmp_path / "out" / "CB.jsonl").exists()


def test_submission_notes_reach_the_log(tmp_path, monkeypatch):
    from nli_baselines.features.text import annotation
    monkeypatch.setattr(annotation, "annotate", lambda pairs, **kwargs: pairs)  # no tagger needed
    data = _cb_data(tmp_path, '{"premise": "a", "hypothesis": "b", "idx": 0}\n')
    messages = []
    written = write_submissions(_Constant(), get_corpus("cb"), {"superglue": tmp_path / "out"}, data_dir=data,
                                log=messages.append)
    assert written == [tmp_path / "out" / "CB.jsonl"]
    assert messages == [f"note: {written[0]}: CB has 1 rows; the official test set has 250",
                        f"wrote {written[0]} (1 rows, validated against cb test)"]


# ---------------------------------------------------------------- SuperGLUE's AX-g (Winogender)

AX_G = "".join(json.dumps({"hypothesis": h, "idx": i, "label": label, "pair_id": pair, "premise": p}) + "\n"
               for i, (p, h, label, pair) in enumerate([
                   ("The nurse said he was tired.", "The nurse was tired.", "entailment", 1),
                   ("The nurse said she was tired.", "The nurse was tired.", "entailment", 1),
                   ("The doctor told the patient he would recover.", "The doctor would recover.",
                    "not_entailment", 2),
                   ("The doctor told the patient she would recover.", "The doctor would recover.",
                    "not_entailment", 2)]))


def test_ax_g_reader_task_and_gender_parity(cli, tmp_path):
    from nli_baselines.experiments.breakdowns.ax import gender_parity
    path = tmp_path / "superglue" / "AX-g" / "AX-g.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text(AX_G)
    pairs = get_corpus("ax-g").load("test", tmp_path).pairs
    assert [p.meta["pair_id"] for p in pairs] == ["1", "1", "2", "2"] and pairs[2].label == "not_entailment"
    predicted = {"0": "entailment", "1": "not_entailment", "2": "not_entailment", "3": "not_entailment"}
    result = gender_parity(pairs, predicted)
    assert (result["accuracy"], result["gender_parity"], result["pairs"]) == (0.75, 0.5, 2)
    task = TASKS[("superglue", "AX-g")]
    written = write_predictions(task, list(predicted), list(predicted.values()), tmp_path / "out")
    assert written.name == "AX-g.jsonl"
    assert written.read_text().splitlines()[1] == '{"idx": 1, "label": "not_entailment"}'
    done = cli("diagnose", "--diagnostic", path, "--predictions", written)
    assert done.returncode == 0, done.stderr
    assert "accuracy 75.0%, gender parity 50.0% of 2 sentence pairs predicted alike" in done.stdout
    scored = score_diagnostic(task, written, tmp_path)
    assert scored[0]["gender_parity"] == 0.5


def test_ax_from_any_three_class_model_with_its_scores(cli, tmp_path):
    data = tmp_path / "data"
    (data / "glue" / "AX").mkdir(parents=True)
    full = DIAGNOSTIC
    (data / "glue" / "AX" / "diagnostic-full.tsv").write_bytes(full.encode())
    rows = [line.split("\t") for line in full.split("\r\n")[1:] if line]
    (data / "glue" / "AX" / "diagnostic.tsv").write_text("index\tsentence1\tsentence2\n" + "".join(
        f"{i}\t{r[5]}\t{r[6]}\n" for i, r in enumerate(rows)))
    done = cli("run", "--dataset", "demo", "--data-dir", data, "--features", "unlexicalized", "--C", "1",
               "--glue-out", tmp_path / "glue", "--with-ax", "--quiet", "--out", tmp_path / "r.json")
    assert done.returncode == 0, done.stderr
    lines = (tmp_path / "glue" / "AX.tsv").read_text().splitlines()
    assert lines[0] == "index\tprediction" and len(lines) == 7
    assert "AX: R3 (three-class MCC)" in done.stdout and "on 6 diagnostic examples" in done.stdout
    record = json.loads((tmp_path / "r.json").read_text())
    assert record["diagnostics"]["AX"]["examples"] == 6


@pytest.mark.parametrize("args, message", [
    (["--dataset", "demo", "--two-class"], "needs a three-class model .* is two-class \\(--two-class\\)"),
    (["--dataset", "demo", "--model", "edit_distance"], "needs a three-class model .* is two-class"),
    (["--dataset", "rte"], "rte's labels are entailment, not_entailment"),
])
def test_with_ax_refuses_two_class_models_before_training(cli, tmp_path, args, message):
    done = cli("run", *args, "--glue-out", tmp_path / "glue", "--with-ax", "--quiet")
    assert done.returncode == 2 and re.search(message, done.stderr), done.stderr
    assert "featurized" not in done.stderr and not (tmp_path / "glue").exists()
    assert cli("run", "--dataset", "demo", "--with-ax").returncode == 2  # --with-ax alone: it needs --glue-out


def test_with_ax_reads_a_custom_tasks_labels_before_training(cli, tmp_path):
    train = tmp_path / "train.tsv"
    train.write_text("premise\thypothesis\tlabel\n" + "".join(f"A b {i} .\tA .\t{'yes' if i % 2 else 'no'}\n"
                                                              for i in range(10)))
    done = cli("run", "--train-file", train, "--glue-out", tmp_path / "glue", "--with-ax", "--quiet")
    assert done.returncode == 2 and "custom's labels are no, yes" in done.stderr


def test_table_out_writes_any_corpus_test_split(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rows = "".join(f"A man number {i} sleeps .\tA {'man' if i % 2 else 'dog'} sleeps .\t{'yes' if i % 2 else 'no'}"
                   f"\tq{i}\n" for i in range(40))
    header = "premise\thypothesis\tlabel\tid\n"
    Path("train.tsv").write_text(header + rows)
    Path("test.tsv").write_text("premise\thypothesis\tid\n" + "".join(
        "\t".join(line.split("\t")[:2] + [line.split("\t")[3]]) + "\n" for line in rows.splitlines()[:7]))
    done = cli("run", "--train-file", "train.tsv", "--dev-file", "train.tsv", "--test-file", "test.tsv",
               "--features", "unlexicalized", "--C", "1", "--table-out", "out", "--quiet")
    assert done.returncode == 0, done.stderr
    lines = Path("out/custom-test.tsv").read_text().splitlines()
    assert lines[0] == "id\tpredicted" and [line.split("\t")[0] for line in lines[1:]] == [f"q{i}" for i in range(7)]
    assert {line.split("\t")[1] for line in lines[1:]} <= {"yes", "no"}


def test_a_prediction_file_lacking_rows_of_its_input_is_refused(cli, tmp_path, monkeypatch):
    # Lines 3 and 5 of the test file are malformed (a cell short, a tab too many); --on-bad-row skip
    # leaves them out of the pairs, so a table of 5 rows would cover 3: refused, saying which lines.
    monkeypatch.chdir(tmp_path)
    Path("train.tsv").write_text("premise\thypothesis\tlabel\n" + "".join(
        f"A man number {i} sleeps .\tA {'man' if i % 2 else 'dog'} sleeps .\t{'yes' if i % 2 else 'no'}\n"
        for i in range(40)))
    Path("test.tsv").write_text("premise\thypothesis\tid\nA man .\tA dog .\tq0\nA man .\tq1\nA cat .\tA cat .\tq2\n"
                                "A b .\tA b .\tq3\textra\nA c .\tA c .\tq4\n")
    done = cli("run", "--train-file", "train.tsv", "--test-file", "test.tsv", "--on-bad-row", "skip", "--features",
               "unlexicalized", "--C", "1", "--table-out", "out", "--out", "r.json", "--quiet")
    assert done.returncode == 2
    test = Path("test.tsv").resolve()
    assert done.stderr.splitlines()[-1] == (
        f"error: {Path('out/custom-test.tsv')} not written: {test}: 2 of its 5 rows were not read (wrong column "
        "count 2; lines 3, 5); a prediction file needs a row for every row of its input: fix those rows")
    assert not Path("out/custom-test.tsv").exists() and "wrote" not in done.stdout
    assert Path("r.json").exists()  # the run's record survives the refused output
    # predict.py: the same refusal, before anything is tagged or written.
    done = cli("run", "--train-file", "train.tsv", "--features", "unlexicalized", "--C", "1", "--save-model", "m.model",
               "--quiet")
    assert done.returncode == 0, done.stderr
    done = cli("predict", "--model", "m.model", "--input", "test.tsv", "--on-bad-row", "skip", "--out", "p.tsv")
    assert done.returncode == 2 and not Path("p.tsv").exists()
    assert done.stderr.splitlines()[-1] == (
        f"error: p.tsv not written: {Path('test.tsv')}: 2 of its 5 rows were not read (wrong column count 2; lines 3, "
        "5); a prediction file needs a row for every row of its input: fix those rows")


def test_mrpc_tsvs_give_a_prediction_for_every_test_row(cli, data_dir, tmp_path, monkeypatch):
    # GLUE's MRPC through --train-file: its quotes are text (train.tsv:603, test.tsv:1608 and 1698 hold
    # a cell opening with `"` and a later one closing with it), so every row is read and predicted.
    monkeypatch.setenv("NLI_CACHE_DIR", str(tmp_path / "cache"))
    mrpc = data_dir / "glue" / "MRPC"
    done = cli("run", "--train-file", mrpc / "train.tsv", "--dev-file", mrpc / "dev.tsv", "--test-file",
               mrpc / "test.tsv", "--premise-column", "#1 String", "--hypothesis-column", "#2 String", "--label-column",
               "Quality", "--features", "unlexicalized", "--C", "1", "--table-out", tmp_path / "out", "--quiet")
    assert done.returncode == 0, done.stderr
    assert f"wrote {tmp_path / 'out' / 'custom-test.tsv'} (1725 rows, validated against custom test)" in done.stdout
    assert "skipped" not in done.stdout + done.stderr
    assert "note: test.tsv: read unquoted: its quotes are text, as in GLUE's TSV files (read as CSV, 228 line(s) " \
           "would lose their quotes or cells, the first line 20)" \
        in " ".join(done.stdout.split())  # notes under the table wrap at 100 columns
    lines = (tmp_path / "out" / "custom-test.tsv").read_text().splitlines()
    assert len(lines) == 1726 and lines[1607].split("\t")[0] == "1606"  # test.tsv:1608 is data row 1606 (index)


# ------------------------------------------------------------------ bundles of several runs


def glue_file(path, n, label="entailment", header="index\tprediction"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(header + "\n" + "".join(f"{i}\t{label}\n" for i in range(n)))
    return path


GLUE_FILES = {"CoLA": (1063, "1"), "SST-2": (1821, "0"), "MRPC": (1725, "1"), "STS-B": (1379, "3.250"),
              "QQP": (390965, "0"), "MNLI-m": (9796, "neutral"), "MNLI-mm": (9847, "neutral"),
              "QNLI": (5463, "entailment"), "RTE": (3000, "not_entailment"), "WNLI": (146, "0"),
              "AX": (1104, "neutral")}


def test_a_bundle_gathers_the_files_of_several_runs(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("NLI_DATA_DIR", str(tmp_path / "no-data"))  # test sets absent: ids checked for order
    for name, (rows, label) in GLUE_FILES.items():
        glue_file(tmp_path / ("mnli-run" if name in ("MNLI-m", "MNLI-mm", "AX") else "runs") / f"{name}.tsv", rows, label)
    done = cli("bundle", "glue", tmp_path / "runs", tmp_path / "mnli-run", "--out", tmp_path / "glue.zip")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith(f"wrote {tmp_path / 'glue.zip'}: CoLA.tsv (1063 rows), MRPC.tsv")
    assert "layout checked only" not in done.stdout  # every GLUE task is one this suite predicts
    with zipfile.ZipFile(tmp_path / "glue.zip") as archive:
        assert sorted(archive.namelist()) == sorted(f"{name}.tsv" for name in GLUE_FILES)
        assert archive.read("RTE.tsv") == (tmp_path / "runs" / "RTE.tsv").read_bytes()


def test_a_glue_bundle_missing_a_task_names_what_is_missing_unless_partial(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("NLI_DATA_DIR", str(tmp_path / "no-data"))
    glue_file(tmp_path / "run" / "RTE.tsv", 3000, "not_entailment")
    glue_file(tmp_path / "run" / "STS-B.tsv", 1379, "4.000")
    done = cli("bundle", "glue", tmp_path / "run", "--out", tmp_path / "glue.zip")
    assert done.returncode == 2 and not (tmp_path / "glue.zip").exists()
    assert ("the GLUE server takes only complete submissions, and these are missing: CoLA.tsv, SST-2.tsv, MRPC.tsv, "
            "QQP.tsv, MNLI-m.tsv, MNLI-mm.tsv, QNLI.tsv, WNLI.tsv, AX.tsv") in done.stderr
    done = cli("bundle", "glue", tmp_path / "run", "--out", tmp_path / "glue.zip", "--partial")
    assert done.returncode == 0 and "note: partial: CoLA.tsv, SST-2.tsv" in done.stdout


@pytest.mark.parametrize("value, message", [("5.500", "row 2: prediction '5.500' is not a score in 0..5"),
                                            ("high", "row 2: prediction 'high' is not a score in 0..5"),
                                            ("nan", "row 2: prediction 'nan' is not a score in 0..5")])
def test_a_sts_b_file_holds_scores_in_range(cli, tmp_path, monkeypatch, value, message):
    monkeypatch.setenv("NLI_DATA_DIR", str(tmp_path / "no-data"))
    path = glue_file(tmp_path / "run" / "STS-B.tsv", 1379, "2.000")
    lines = path.read_text().splitlines(keepends=True)
    lines[2] = f"1\t{value}\n"
    path.write_text("".join(lines))
    done = cli("bundle", "glue", path, "--out", tmp_path / "glue.zip", "--partial")
    assert done.returncode == 2 and message in done.stderr


def test_score_and_binary_glue_files_byte_for_byte(tmp_path):
    sts = TASKS[("glue", "STS-B")]
    path = write_predictions(sts, ["0", "1", "2", "3"], [4.25, -0.2, 5.7, 2.0004], tmp_path, log=lambda m: None)
    assert path.read_bytes() == b"index\tprediction\n0\t4.250\n1\t0.000\n2\t5.000\n3\t2.000\n"
    for name in ("CoLA", "SST-2", "MRPC", "QQP"):
        path = write_predictions(TASKS[("glue", name)], ["0", "1"], ["1", "0"], tmp_path, log=lambda m: None)
        assert path.read_bytes() == b"index\tprediction\n0\t1\n1\t0\n"
    with pytest.raises(SubmissionError, match="predicted label\\(s\\) \\['entailment'\\] are not in \\['0', '1'\\]"):
        write_predictions(TASKS[("glue", "MRPC")], ["0"], ["entailment"], tmp_path)


@pytest.mark.parametrize("name, rows, label, message", [
    ("RTE.tsv", 2999, "entailment", "2999 rows; the official RTE test set has 3000"),
    ("RTE.tsv", 3000, "neutral", "labels \\['neutral'\\] are not in \\['entailment', 'not_entailment'\\]"),
    ("RTE-test.tsv", 3, "entailment", "not a GLUE task file; its files are CoLA.tsv, SST-2.tsv"),
])
def test_a_bundle_refuses_a_wrong_file_and_writes_nothing(cli, tmp_path, monkeypatch, name, rows, label, message):
    monkeypatch.setenv("NLI_DATA_DIR", str(tmp_path / "no-data"))
    path = glue_file(tmp_path / "run" / name, rows, label)
    done = cli("bundle", "glue", path, "--out", tmp_path / "glue.zip")
    assert done.returncode == 2 and re.search(message, done.stderr), done.stderr
    assert not (tmp_path / "glue.zip").exists()


def test_a_bundle_checks_ids_against_the_test_set_when_it_is_there(cli, data_dir, tmp_path):
    path = glue_file(tmp_path / "run" / "RTE.tsv", 3000)
    lines = path.read_text().splitlines(keepends=True)
    lines[1], lines[2] = lines[2], lines[1]  # rows 0 and 1 swapped
    path.write_text("".join(lines))
    done = cli("bundle", "glue", path, "--out", tmp_path / "glue.zip", "--data-dir", data_dir)
    assert done.returncode == 2 and "row 1 has index 1, the test set 0" in done.stderr, done.stderr


def test_a_skipped_diagnostic_says_where_it_looked_in_one_line(tmp_path):
    from nli_baselines.experiments.corpora import CorpusNotFoundError
    from nli_baselines.experiments.submissions.submitting import _one_line
    missing = CorpusNotFoundError("ax-g", "test", [tmp_path / "superglue" / "AX-g" / "AX-g.jsonl"], tmp_path,
                                  "superglue-ax-g")
    assert _one_line(missing) == (f"corpus 'ax-g' (split 'test') not found (looked for "
                                  f"{tmp_path / 'superglue' / 'AX-g' / 'AX-g.jsonl'})")


@pytest.mark.parametrize("name, rows, label, message", [
    ("MRPC", 1723, "1", "1723 rows, but the test set has 1725 examples"),
    ("STS-B", 2, "2.500", "2 rows, but the test set has 1379 examples"),
])
def test_mrpc_and_sts_b_files_are_checked_against_their_test_sets(cli, data_dir, tmp_path, name, rows, label,
                                                                 message):
    # Issue 41: these were "layout checked only" while glue/MRPC/test.tsv and glue/STS-B/test.tsv were there.
    path = glue_file(tmp_path / "run" / f"{name}.tsv", rows, label)
    done = cli("bundle", "glue", path, "--out", tmp_path / "glue.zip", "--partial", "--data-dir", data_dir)
    assert done.returncode == 2 and message in done.stderr, done.stderr


@pytest.mark.parametrize("value", ["３.000", "٣.000", "0_1", " 3", "+3", "1e-400", "3.", ".5", "3,5"])
def test_a_sts_b_score_is_a_plain_decimal(cli, tmp_path, monkeypatch, value):
    # float() takes them all (1e-400 as 0); the suite writes "%.3f", and a server's reader may not.
    monkeypatch.setenv("NLI_DATA_DIR", str(tmp_path / "no-data"))
    path = glue_file(tmp_path / "run" / "STS-B.tsv", 1379, "2.000")
    lines = path.read_text().splitlines(keepends=True)
    lines[2] = f"1\t{value}\n"
    path.write_text("".join(lines), encoding="utf-8")
    done = cli("bundle", "glue", path, "--out", tmp_path / "glue.zip", "--partial")
    assert done.returncode == 2 and not (tmp_path / "glue.zip").exists()
    assert done.stderr == (f"error: {path}: row 2: prediction {value!r} is not a score in 0..5 written as a plain "
                           "decimal\n")


def test_a_plain_tables_free_text_ids_and_labels_are_inert(tmp_path):
    # A custom test file's ids (and a model's labels) are free text: a formula is written with an
    # apostrophe before it, as predict.py's tables are, and the file validates against its test set.
    task = SubmissionTask("custom-test", "table", "custom", "test", None)
    ids, labels = ["=HYPERLINK(1)0", "@SUM(1)", "-3", "pair 7"], ["+yes", "no", "+yes", "-1"]
    path = write_predictions(task, ids, labels, tmp_path, log=lambda m: None, labels_allowed=["+yes", "no", "-1"])
    assert path.read_text() == "id\tpredicted\n'=HYPERLINK(1)0\t'+yes\n'@SUM(1)\tno\n-3\t'+yes\npair 7\t-1\n"
    assert validate(task, path, ids, ["+yes", "no", "-1"])["rows"] == 4
