"""The artifact table (`--artifact-table`): majority, hypothesis-only, premise-only, unlexicalized,
lexicalized and strongest, each against the majority class and hypothesis-only with McNemar's p, and
the plain-words reading of how far the one-sided models are above the majority class."""
from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
from scipy.stats import binomtest

import nli_baselines as nb
from nli_baselines.experiments.breakdowns.artifacts import read_artifacts
from nli_baselines.experiments.stats.significance import compare_with_named


def _result(name, predicted, gold):
    return {"name": name, "predictions": {"ids": [str(i) for i in range(len(gold))], "gold": gold,
                                          "predicted": predicted}}


def test_compare_with_named_by_hand():
    gold = ["e", "n", "c", "e", "n", "c", "e", "n"]
    majority = _result("majority", ["n"] * 8, gold)                             # right on 1, 4, 7: 3/8
    hyp = _result("hypothesis_only", ["e", "n", "c", "e", "n", "c", "n", "c"], gold)  # wrong on 6, 7: 6/8
    rows = [SimpleNamespace(name="majority", versus=()),
            SimpleNamespace(name="hypothesis_only", versus=("majority", "hypothesis_only", "missing"))]
    compare_with_named(rows, [majority, hyp])
    assert "versus" not in majority
    test = hyp["versus"]["majority"]
    # hypothesis-only right and majority wrong: 0, 2, 3, 5; the reverse: 7
    assert (test["a_only"], test["b_only"], test["delta"]) == (4, 1, 3 / 8)
    assert test["mcnemar_p"] == pytest.approx(binomtest(1, 5, 0.5).pvalue) == pytest.approx(0.375)
    assert list(hyp["versus"]) == ["majority"]  # itself and a row the table lacks are skipped


@pytest.mark.parametrize("delta, p, far, words", [
    (0.30, 1e-9, True, "+30.0 points above the majority class (p < 0.001): the hypotheses alone give the label away"),
    (0.03, 0.01, False, "+3.0 points above the majority class (p = 0.010): a small but real cue"),
    (0.30, 0.2, False, "+30.0 points from the majority class (p = 0.200): no sign"),
    (-0.04, 0.001, False, "-4.0 points from the majority class (p = 0.001): no sign"),
])
def test_reading_in_plain_words(delta, p, far, words):
    reading = read_artifacts([{"name": "hypothesis_only", "versus": {"majority": {"delta": delta, "mcnemar_p": p}}},
                              {"name": "lexicalized", "versus": {"majority": {"delta": 0.5, "mcnemar_p": 0.0}}}])
    row = reading["rows"]["hypothesis_only"]
    assert list(reading["rows"]) == ["hypothesis_only"]
    assert row["far_above"] is far and row["points_above_majority"] == pytest.approx(100 * delta)
    assert words in row["note"] and row["note"].startswith("hypothesis-only is ")
    assert read_artifacts([{"name": "lexicalized", "versus": {}}]) is None


def _cb_like(p_hypothesis, p_premise):
    """An artifact table's rows as CB's: nine comparisons (hypothesis-only against the majority class;
    premise-only, unlexicalized, lexicalized, strongest against it and against hypothesis-only), so
    the table's bar is 0.05 / 9 = 0.00556."""
    def versus(delta, p, against_hyp=True):
        return {"majority": {"delta": delta, "mcnemar_p": p},
                **({"hypothesis_only": {"delta": 0.05, "mcnemar_p": 0.63}} if against_hyp else {})}
    return [{"name": "majority"}, {"name": "hypothesis_only", "versus": versus(0.196, p_hypothesis, False)},
            {"name": "premise_only", "versus": versus(0.25, p_premise)},
            *({"name": name, "versus": versus(0.1, 0.2)} for name in ("unlexicalized", "lexicalized", "strongest"))]


@pytest.mark.parametrize("p_hyp, p_prem, hyp_words, prem_words", [
    # CB's figures: below 0.05, above the bar: suggestive, not artifacts that give the label away
    (0.027, 0.013, "suggestive: not significant once the table's 9 comparisons are counted (read p < 0.006",
     "suggestive: not significant once the table's 9 comparisons are counted (read p < 0.006"),
    # just below the bar (0.00556) and just above it
    (0.0055, 0.0056, "the hypotheses alone give the label away", "suggestive: not significant"),
])
def test_the_reading_uses_the_footers_bonferroni_bar(p_hyp, p_prem, hyp_words, prem_words):
    from nli_baselines.experiments.stats.significance import corrected_level
    rows = _cb_like(p_hyp, p_prem)
    assert corrected_level(rows) == pytest.approx(0.05 / 9)
    reading = read_artifacts(rows)
    assert reading["comparisons"] == 9 and reading["corrected_level"] == pytest.approx(0.05 / 9)
    hyp, prem = reading["rows"]["hypothesis_only"], reading["rows"]["premise_only"]
    assert hyp_words in hyp["note"] and prem_words in prem["note"]
    assert "give the label away" not in prem["note"] and not prem["far_above"]
    assert hyp["far_above"] is (p_hyp < 0.05 / 9)


@pytest.fixture
def no_wordnet(monkeypatch):
    monkeypatch.setattr("nli_baselines.experiments.engine.rows.wordnet_available", lambda: False)


def test_artifact_table_on_demo(no_wordnet, tmp_path):
    result = nb.run(dataset="demo", artifact_table=True, C=[1.0], train_size=300, quiet=True)
    assert result.rows == ["majority", "hypothesis_only", "premise_only", "unlexicalized", "lexicalized"]
    assert "row strongest left out: it needs WordNet 3.0" in " ".join(result.notes())
    rows = {row["name"]: row for row in result.record["rows"]}
    assert rows["premise_only"]["features"] == ["prem_ngrams"] and rows["hypothesis_only"]["features"] == ["hyp_ngrams"]
    gold = np.array(rows["majority"]["predictions"]["gold"])
    correct = {name: np.array(row["predictions"]["predicted"]) == gold for name, row in rows.items()}
    for name, row in rows.items():
        expected = [v for v in ("majority", "hypothesis_only") if v != name and name != "majority"]
        assert list(row.get("versus", {})) == expected, name
        for other in expected:
            test = row["versus"][other]
            a_only = int((correct[name] & ~correct[other]).sum())
            b_only = int((~correct[name] & correct[other]).sum())
            assert (test["a_only"], test["b_only"]) == (a_only, b_only)
            assert test["delta"] == pytest.approx(correct[name].mean() - correct[other].mean())
            assert test["mcnemar_p"] == pytest.approx(binomtest(min(a_only, b_only), a_only + b_only, 0.5).pvalue)
    reading = result.record["artifacts"]["rows"]
    assert reading["hypothesis_only"]["points_above_majority"] == pytest.approx(
        100 * rows["hypothesis_only"]["versus"]["majority"]["delta"])
    assert reading["hypothesis_only"]["far_above"]  # the demo's hypotheses carry their labels' words
    table = result.table()
    assert "vs majority" in table and "vs hypothesis_only" in table
    flat = " ".join(table.split())  # the notes under the table wrap at 100 columns
    assert "7 comparisons" in flat and " ".join(reading["hypothesis_only"]["note"].split()) in flat
    assert max(len(line) for line in table.splitlines()) <= 100
    assert json.loads(json.dumps(result.record))["artifacts"] == result.record["artifacts"]


def test_artifact_table_refuses_other_tables_and_single_run_outputs(cli, tmp_path):
    done = cli("run", "--dataset", "demo", "--artifact-table", "--paper-table")
    assert done.returncode == 2 and "--paper-table and --artifact-table are two kinds of table" in done.stderr
    done = cli("run", "--dataset", "demo", "--artifact-table", "--save-model", tmp_path / "m")
    assert done.returncode == 2 and "a table fits several models" in done.stderr


def test_artifact_table_follows_two_class(no_wordnet):
    from nli_baselines.experiments.configuration.config import RunConfig
    from nli_baselines.experiments.corpora import get_corpus
    from nli_baselines.experiments.engine.rows import plan_rows
    rows = plan_rows(RunConfig(dataset="demo", artifact_table=True, two_class=True), get_corpus("demo"))
    assert all(row.two_class for row in rows)
    rows = plan_rows(RunConfig(dataset="demo", paper_table=True, two_class=True), get_corpus("demo"))
    assert not rows[0].two_class  # the paper's rows keep their own label sets


def test_readme_figures_of_the_artifact_table_on_sick(data_dir, no_wordnet):
    result = nb.run(dataset="sick", data_dir=data_dir, artifact_table=True, quiet=True)
    rows = {row["name"]: row for row in result.record["rows"]}
    assert {name: round(100 * row["metrics"]["dev"]["accuracy"], 1) for name, row in rows.items()} == {
        "majority": 56.8, "hypothesis_only": 57.6, "premise_only": 58.2, "unlexicalized": 69.9, "lexicalized": 77.4}
    versus = rows["hypothesis_only"]["versus"]["majority"]
    assert round(versus["mcnemar_p"], 3) == 0.683
    assert not result.record["artifacts"]["rows"]["hypothesis_only"]["far_above"]
