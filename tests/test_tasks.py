"""Tasks declare their target and metrics: the metrics against hand-computed values, the
declaration's checks, and a score task through every door (run, curves, compare, saved models,
predict.py, the API)."""
from __future__ import annotations

import json

import numpy as np
import pytest

import nli_baselines as nb
from nli_baselines.experiments.configuration.errors import UsageError
from nli_baselines.experiments.corpora import get_corpus
from nli_baselines.experiments.corpora.task import Task
from nli_baselines.experiments.engine.selection import choose
from nli_baselines.experiments.reports.report import format_comparison
from nli_baselines.experiments.stats.significance import compare_predictions
from tests.conftest import NEEDS_PLOTS

STS = Task.regression((0, 5))
PARAPHRASE = Task.classification(("0", "1"), metrics=("f1", "accuracy"), positive="1", select_by="mean")
ACCEPTABILITY = Task.classification(("0", "1"), metrics=("mcc",), single_sentence=True)


def test_correlations_by_hand():
    # gold 1..4 against 1,3,2,4: deviations (-1.5,-.5,.5,1.5) and (-1.5,.5,-.5,1.5), covariance
    # sum 4.0 over variance sums 5 and 5: r = 0.8; the values are their own ranks: Spearman too.
    assert STS.score([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx({"pearson": 0.8, "spearman": 0.8})
    # squares: ranks agree (Spearman 1), Pearson 25 / sqrt(5 * 129)
    figures = STS.score([1, 2, 3, 4], [1, 4, 9, 16])
    assert figures["spearman"] == pytest.approx(1.0) and figures["pearson"] == pytest.approx(25 / np.sqrt(645))
    assert STS.selection_score([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(0.8)  # the mean of the two
    # a constant side, or a single pair, has no correlation: undefined (None), neither 0 nor NaN
    assert STS.score([1, 2, 3], [2, 2, 2]) == {"pearson": None, "spearman": None}
    assert STS.selection_score([1, 2, 3], [2, 2, 2]) is None  # never averaged as 0
    assert STS.undefined([1, 2, 3], [2, 2, 2]) == {"pearson": "the predictions are all 2",
                                                  "spearman": "the predictions are all 2"}
    assert STS.undefined([4, 4, 4], [1, 2, 3])["pearson"] == "the gold scores are all 4"
    assert STS.undefined([4], [1]) == {name: "1 pair: a correlation needs two or more" for name in ("pearson", "spearman")}
    assert STS.score([1e-300, 2e-300, 3e-300], [1e-300, 3e-300, 2e-300]) == {"pearson": None, "spearman": 0.5}
    assert STS.undefined([1e-300, 2e-300, 3e-300], [1e-300, 3e-300, 2e-300]) == {
        "pearson": "not a finite number on these values"}  # its products underflow: 0 / 0


def test_f1_accuracy_and_mcc_by_hand():
    gold, predicted = ["1", "1", "0", "0", "1"], ["1", "0", "0", "1", "1"]
    # TP 2, FP 1, FN 1, TN 1: precision = recall = 2/3, so F1 2/3; accuracy 3/5
    assert PARAPHRASE.score(gold, predicted) == pytest.approx({"f1": 2 / 3, "accuracy": 0.6})
    assert PARAPHRASE.selection_score(gold, predicted) == pytest.approx((2 / 3 + 0.6) / 2)
    # MCC = (TP TN - FP FN) / sqrt((TP+FP)(TP+FN)(TN+FP)(TN+FN)) = (2 - 1) / sqrt(3 * 3 * 2 * 2) = 1/6
    assert ACCEPTABILITY.score(gold, predicted) == pytest.approx({"mcc": 1 / 6})
    assert ACCEPTABILITY.score(["0", "1"], ["1", "1"]) == {"mcc": 0.0}  # a constant prediction


def test_a_declaration_that_cannot_be_judged_is_refused():
    with pytest.raises(ValueError, match="'pearson' is not a metric of labels"):
        Task.classification(("a", "b"), metrics=("pearson",))
    with pytest.raises(ValueError, match="F1 needs the positive class"):
        Task.classification(("0", "1"), metrics=("f1",))
    with pytest.raises(ValueError, match="positive class '2' is not among the labels"):
        Task.classification(("0", "1"), metrics=("f1",), positive="2")
    with pytest.raises(ValueError, match="two finite numbers, the lower first"):
        Task.regression((5, 0))
    with pytest.raises(ValueError, match="select_by 'mcc' is none of the task's metrics"):
        Task.classification(("0", "1"), select_by="mcc")


def test_gold_scores_outside_the_range_or_not_numbers_say_where():
    assert STS.targets(["0.5", "5.000"]).tolist() == [0.5, 5.0]
    with pytest.raises(ValueError, match="dev: score '5.5' is outside the task's range 0..5"):
        STS.targets(["1", "5.5"], where="dev: ")
    with pytest.raises(ValueError, match="must be a number, not 'high'"):
        STS.targets(["high"])
    assert STS.clip(np.array([-1.0, 2.5, 7.0])).tolist() == [0.0, 2.5, 5.0]


def test_comparisons_use_the_tasks_metric_and_say_which_test():
    gold = [0.5, 1.0, 2.0, 3.0, 4.0, 4.5] * 10
    a = {"ids": [str(i) for i in range(60)], "gold": gold, "predicted": [g + 0.1 for g in gold]}
    b = {**a, "predicted": list(np.array(gold)[::-1])}
    result = compare_predictions(a, b, task=STS)
    assert result["test"] == "paired bootstrap (2000 resamples)" and "mcnemar" not in result
    assert result["metric_a"] == pytest.approx(1.0) and result["delta"] > 1.5 and result["p"] < 0.01
    # a task judged by accuracy keeps McNemar's exact test
    labels = {"ids": ["1", "2"], "gold": ["a", "b"], "predicted": ["a", "a"]}
    assert compare_predictions(labels, labels, bootstrap=False)["test"] == "McNemar's exact test"


def test_a_score_task_runs_with_ridge_and_reports_its_correlations(cli):
    done = cli("run", "--dataset", "demo-similarity", "--quiet")
    assert done.returncode == 0, done.stderr
    head, rule, row, reference = done.stdout.splitlines()[:4]
    # no published column: no score row has a published figure
    assert head.split() == ["row", "train", "Pearson", "dev", "Pearson", "dev", "Spearman", "MSE", "chosen", "seconds"]
    assert row.startswith("lexicalized") and "alpha=" in row
    assert reference.startswith("mean (3.45, reference)")


def test_a_score_run_records_its_task_and_numbers(tmp_path):
    result = nb.run(dataset="demo-similarity", features="unlexicalized", quiet=True)
    record = result.record
    assert record["task"] == {"target": "scores", "labels": None, "positive": None, "score_range": [0.0, 5.0],
                              "metrics": ["pearson", "spearman"], "select_by": "mean", "single_sentence": False}
    row = record["rows"][0]
    dev = row["metrics"]["dev"]
    assert set(dev) >= {"pearson", "spearman", "mse", "mae", "mean_of_pearson_spearman"} and dev["pairs"] == 1000
    assert dev["mean_of_pearson_spearman"] == pytest.approx((dev["pearson"] + dev["spearman"]) / 2)
    assert all(isinstance(x, float) for x in row["predictions"]["gold"] + row["predictions"]["predicted"])
    assert row["selection"]["by"] == "5-fold CV on train (seed 0), mean of Pearson and Spearman"
    predicted = np.array(row["predictions"]["predicted"])
    assert predicted.min() >= 0 and predicted.max() <= 5  # clipped to the task's range
    mean = record["reference"]["mean"]["scores"]
    assert mean["pearson"] is None and mean["mean_of_pearson_spearman"] is None  # a constant: undefined, not 0
    assert mean["undefined"]["pearson"] == f"the predictions are all {mean['value']:g}"
    json.dumps(record, allow_nan=False)


def test_models_that_predict_labels_give_way_or_are_refused(cli):
    done = cli("run", "--dataset", "demo-similarity", "--model", "lr", "--features", "unlexicalized", "--quiet")
    assert done.returncode == 0 and "--model lr predicts labels, and this task's target is scores: ridge " \
                                   "regression (--model ridge) plays its part" in done.stderr
    done = cli("run", "--dataset", "demo-similarity", "--model", "edit_distance")
    assert done.returncode == 2
    assert done.stderr.strip() == ("error: edit distance (2-class) (--model edit_distance) predicts labels, and this "
                                   "task's target is scores: choose one of ridge, stacked_ridge, mean")
    done = cli("run", "--dataset", "demo-similarity", "--two-class")
    assert done.returncode == 2 and "--two-class maps labels" in done.stderr
    done = cli("run", "--dataset", "demo", "--model", "ridge", "--features", "unlexicalized", "--quiet")
    assert done.returncode == 0 and "logistic regression (--model lr) plays its part" in done.stderr


def test_a_saved_score_model_predicts_the_same_scores_by_every_door(tmp_path, cli):
    result = nb.run(dataset="demo-similarity", features="unlexicalized", quiet=True)
    model = result.models["unlexicalized"]
    path = tmp_path / "sim.model"
    model.save(path)
    loaded = nb.load_model(path)
    dev = get_corpus("demo-similarity").load("dev").pairs
    assert loaded.task == model.task and loaded.task.score_range == (0.0, 5.0)
    np.testing.assert_array_equal(loaded.predict(dev), model.predict(dev))
    np.testing.assert_array_equal(loaded.predict(dev), result.row()["predictions"]["predicted"])
    assert loaded.predict_proba(dev) is None
    table = tmp_path / "dev.tsv"
    table.write_text("id\tpremise\thypothesis\tlabel\n" + "".join(
        f"{p.id}\t{p.premise}\t{p.hypothesis}\t{p.label}\n" for p in dev[:50]), encoding="utf-8")
    done = cli("predict", "--model", path, "--input", table, "--out", tmp_path / "p.jsonl")
    assert done.returncode == 0, done.stderr
    assert "against the input's scores: Pearson" in done.stdout
    rows = [json.loads(line) for line in (tmp_path / "p.jsonl").read_text().splitlines()]
    assert [r["predicted"] for r in rows] == pytest.approx(loaded.predict(dev[:50]).tolist())
    done = cli("predict", "--model", path, "--input", table, "--out", tmp_path / "q.tsv", "--proba")
    assert done.returncode == 2 and "predicts scores, which have no probabilities" in done.stderr


def test_a_score_task_learning_curve_draws_its_metric(tmp_path):
    curve = nb.learning_curve(dataset="demo-similarity", sizes="10,100", seeds=2,
                              configs="unlexicalized", out=tmp_path / "c", quiet=True)
    assert curve.record["metric"] == "mean_of_pearson_spearman" and curve.record["classes"] is None
    header = (tmp_path / "c" / "curve.csv").read_text().splitlines()[0]
    assert header == ("config,size,requested_size,seed,train_mean_of_pearson_spearman,"
                      "eval_mean_of_pearson_spearman,fit_seconds,chosen")
    assert "dev mean of Pearson and Spearman" in curve.table()


def test_score_errors_file_lists_absolute_errors_largest_first(tmp_path, cli):
    out = tmp_path / "e.tsv"
    done = cli("run", "--dataset", "demo-similarity", "--features", "unlexicalized", "--quiet", "--errors", out,
               "--errors-only")
    assert done.returncode == 0, done.stderr
    lines = out.read_text().splitlines()
    assert lines[0].split("\t") == ["id", "premise", "hypothesis", "gold", "predicted", "error", "top_features"]
    errors = [float(line.split("\t")[5]) for line in lines[1:]]
    assert len(errors) == 1000 and errors == sorted(errors, reverse=True)
    first = lines[1].split("\t")
    assert float(first[5]) == pytest.approx(abs(float(first[4]) - float(first[3])), abs=1e-5)


def test_regression_weights_read_both_ways(cli):
    done = cli("run", "--dataset", "demo-similarity", "--features", "unlexicalized", "--top-features", "2")
    assert done.returncode == 0
    assert "top features for higher scores:" in done.stdout and "top features for lower scores:" in done.stdout


def test_paper_table_on_a_score_task_leaves_out_what_predicts_labels(cli):
    done = cli("run", "--dataset", "demo-similarity", "--paper-table", "--quiet")
    assert done.returncode == 0, done.stderr
    assert "note: row edit_distance left out: edit distance (2-class) predicts labels" in done.stderr
    assert "note: row lr_two_class left out: it is scored on two classes" in done.stderr
    names = [line.split()[0] for line in done.stdout.splitlines()[2:] if line and not line.startswith(" ")]
    assert names[:4] == ["lexicalized", "unigrams_only", "unlexicalized", "mean"]
    assert "paired bootstrap (2000 resamples)" in done.stdout


def test_usage_errors_name_the_split_of_a_bad_score():
    from dataclasses import replace

    from nli_baselines.experiments.corpora import Corpus, register
    from nli_baselines.experiments.corpora.corpus import CORPORA
    from nli_baselines.experiments.corpora.readers.common import SplitData
    pairs = get_corpus("demo-similarity").load("train").pairs[:40]
    bad = [replace(p, label="9.0") if i == 7 else p for i, p in enumerate(pairs)]
    register(Corpus("bad-scores", "scores out of range", STS, {"train": (), "dev": ()},
                    generate=lambda split: SplitData("bad-scores", split, [], bad if split == "train" else pairs, 40)))
    try:
        with pytest.raises(UsageError, match="^train: score '9.0' is outside the task's range 0..5$"):
            nb.run(dataset="bad-scores", quiet=True)
    finally:
        CORPORA.pop("bad-scores")


@NEEDS_PLOTS
def test_a_score_task_through_the_curves_command(cli, tmp_path):
    done = cli("curve", "--dataset", "demo-similarity", "--sizes", "50,all", "--seeds", "1", "--configs",
               "unlexicalized", "--out", tmp_path / "c", "--quiet")
    assert done.returncode == 0, done.stderr
    record = json.loads((tmp_path / "c" / "curve.json").read_text())
    assert record["metric"] == "mean_of_pearson_spearman" and [p["size"] for p in record["curve"]["unlexicalized"]] == [50, 4000]


@pytest.mark.parametrize("score, says", [
    ("1e300", "is beyond what a fit can take (a score is at most 1e12 in magnitude: rescale the column)"),
    ("-2e12", "is beyond what a fit can take"),
    ("5e-320", "is too near 0 for a fit (a score other than 0 is at least 1e-12 in magnitude: rescale the "
               "column, or write 0)"),
    ("1e-400", "is too near 0 for a fit"),  # float() makes it 0, which the file does not say
])
@pytest.mark.parametrize("target", ["scores", "auto"])  # auto: the column is found to be scores first
def test_a_score_no_fit_can_take_is_refused_naming_its_file_and_line(cli, tmp_path, score, says, target):
    pairs = get_corpus("demo-similarity").load("train").pairs[:12]
    rows = [(p.premise, p.hypothesis, score if i == 4 else p.label) for i, p in enumerate(pairs)]
    (tmp_path / "train.tsv").write_text("premise\thypothesis\tlabel\n" + "".join("\t".join(r) + "\n" for r in rows))
    done = cli("run", "--train-file", tmp_path / "train.tsv", "--target", target, "--out", tmp_path / "r.json",
               "--errors", tmp_path / "e.tsv")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"error: {tmp_path / 'train.tsv'}:6: score {score!r} {says}")
    assert len(done.stderr.splitlines()) == 1
    assert not (tmp_path / "r.json").exists() and not (tmp_path / "e.tsv").exists()


def test_gold_scores_no_fit_can_take_say_where():
    task = Task.regression(None)
    np.testing.assert_array_equal(task.targets(["0", "1e12", "-1e-12", "3.8"]), [0, 1e12, -1e-12, 3.8])
    with pytest.raises(ValueError, match=r"^dev: score '1e\+300' is beyond what a fit can take"):
        task.targets(["1", 1e300], where="dev: ")
    with pytest.raises(ValueError, match=r"^score '1e-13' is too near 0 for a fit"):
        task.targets(["1", "1e-13"])


# ---------------------------------------------------------------- undefined figures: n/a, never averaged as 0


def test_a_constant_predictions_correlations_are_n_a_with_the_reason(cli):
    done = cli("run", "--dataset", "demo-similarity", "--features", "unlexicalized", "--quiet")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    reference = next(line for line in lines if line.startswith("mean ("))
    assert reference.split()[3:6] == ["n/a", "n/a", reference.split()[5]] and float(reference.split()[5]) > 0
    value = reference.split()[1].strip("(,")
    assert f"  n/a: mean ({value}, reference) dev Pearson and Spearman undefined: the predictions are all " in \
        "\n".join(lines)
    done = cli("run", "--dataset", "demo-similarity", "--model", "mean")
    assert done.returncode == 0, done.stderr
    assert "mean on dev (1000 pairs): Pearson n/a, Spearman n/a, mean squared error" in done.stdout
    row = next(line for line in done.stdout.splitlines() if line.startswith("mean "))
    assert row.split()[1:4] == ["n/a", "n/a", "n/a"]  # train Pearson, dev Pearson, dev Spearman


class Flat:
    """A regressor that predicts 0 for every pair when `flat`, else the pair's one feature."""

    def __init__(self, flat=False):
        self.flat = flat

    def get_params(self, deep=True):
        return {"flat": self.flat}

    def set_params(self, **params):
        self.flat = params.get("flat", self.flat)
        return self

    def fit(self, X, y):
        self.mean_ = float(np.mean(y))
        return self

    def predict(self, X):
        X = np.asarray(X, dtype=np.float64)
        return np.zeros(len(X)) if self.flat else X[:, 0]


def test_an_undefined_candidate_is_never_chosen_and_says_n_a():
    X = np.arange(12, dtype=np.float64)[:, None]
    y = X[:, 0] + np.tile([0.5, -0.5], 6)
    # Against a candidate whose correlations are below 0: were the flat one's undefined
    # correlations 0, it would win.
    chosen = choose(Flat(), {"flat": [True, False]}, X, -y, X[:4], -y[:4], task=STS_OPEN)
    assert chosen.chosen == {"flat": False} and chosen.scores["flat=True"] is None
    assert chosen.scores["flat=False"] < 0
    chosen = choose(Flat(), {"flat": [True, False]}, X, -y, task=STS_OPEN, cv_folds=3)  # the CV route
    assert chosen.chosen == {"flat": False} and chosen.scores["flat=True"] is None


STS_OPEN = Task.regression(None)


def test_comparing_with_a_constant_prediction_has_no_difference_to_test():
    ids, gold = ["a", "b", "c", "d"], [1.0, 2.0, 3.0, 4.0]
    a = {"ids": ids, "gold": gold, "predicted": [1.0, 2.5, 2.0, 4.0]}
    b = {"ids": ids, "gold": gold, "predicted": [2.5] * 4}
    test = compare_predictions(a, b, task=STS_OPEN)
    assert test["metric_b"] is None and test["delta"] is None and test["p"] is None
    text = format_comparison({**test, "a": "A", "b": "B", "split": "dev"})
    mean = 100 * STS_OPEN.selection_score(gold, a["predicted"])
    assert f"mean of Pearson and Spearman A {mean:.1f}, B n/a; difference A - B n/a points" in text
    assert "no difference to test: the mean of Pearson and Spearman of a side is undefined" in text


def test_a_curves_undefined_points_are_left_out_of_its_means(tmp_path):
    curve = nb.learning_curve(dataset="demo-similarity", sizes="1,60", seeds=2, configs="unlexicalized",
                              out=tmp_path / "c", quiet=True)
    first, second = curve.record["curve"]["unlexicalized"]
    assert first["size"] == 1 and first["eval_mean"] is None and first["undefined"] == 2
    assert second["eval_mean"] is not None and "undefined" not in second
    rows = (tmp_path / "c" / "curve.csv").read_text().splitlines()
    assert sum(",," in row for row in rows[1:]) == 2  # the two fits of one pair: empty, not 0
    table = curve.table()
    assert any(line.split()[:4] == ["unlexicalized", "1", "2", "n/a"] for line in table.splitlines())
    assert "n/a: mean of Pearson and Spearman undefined (constant predictions, as a sample of one pair or of " \
           "equal scores gives), left out of the means: unlexicalized at 1: 2 of 2 fits" in " ".join(table.split())
    again = nb.learning_curve(dataset="demo-similarity", sizes="1,60", seeds=2, configs="unlexicalized",
                              out=tmp_path / "c", quiet=True)  # resumed: the empty cells read back as undefined
    assert again.record["curve"] == curve.record["curve"]
