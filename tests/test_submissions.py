"""GLUE/SuperGLUE prediction files: byte-exact formats, validation, bundling; the diagnostic breakdown."""
from __future__ import annotations

import json
import subprocess
import sys
import zipfile

import pytest
from sklearn.metrics import matthews_corrcoef

from experiments.corpora.readers.glue import read_ax
from experiments.outputs.breakdown import breakdown
from experiments.outputs.submissions import TASKS, SubmissionError, bundle, validate, write_predictions
from tests.conftest import REPO


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


def test_diagnose_cli_on_predictions(tmp_path):
    path = tmp_path / "diagnostic-full.tsv"
    path.write_bytes(DIAGNOSTIC.encode())
    ax = write_predictions(TASKS[("glue", "AX")], [str(i) for i in range(6)],
                           ["contradiction", "entailment", "neutral", "entailment", "contradiction", "neutral"],
                           tmp_path / "out")
    done = subprocess.run([sys.executable, "experiments/diagnose.py", "--diagnostic", str(path), "--predictions",
                           str(ax), "--out", str(tmp_path / "d.json")], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "R3 (three-class MCC) on 6 diagnostic examples: +1.000" in done.stdout
    assert json.loads((tmp_path / "d.json").read_text())["categories"]["Logic"]["count"] == 3
    short = write_predictions(TASKS[("glue", "AX")], ["0"], ["neutral"], tmp_path / "short")
    done = subprocess.run([sys.executable, "experiments/diagnose.py", "--diagnostic", str(path), "--predictions",
                           str(short)], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 2 and "no prediction for 5" in done.stderr
