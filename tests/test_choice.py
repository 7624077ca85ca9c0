"""Choosing a task's baseline by CV on train (`experiments.engine.choice`, issue 47): the folds, when
the rule applies, the path along a model's setting, the record and the report, per-genre figures."""
from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import numpy as np
import pytest

from nli_baselines.experiments.corpora import CORPORA
from nli_baselines.experiments.corpora.task import Task
from nli_baselines.experiments.engine.choice import Scored, applies, choice_folds
from nli_baselines.experiments.configuration.config import RunConfig
from nli_baselines.experiments.configuration.errors import UsageError
from nli_baselines.experiments.engine.experiment import by_genre, run
from nli_baselines.experiments.submissions.glue_benchmark import baseline_lines
from nli_baselines.experiments.engine.selection import cv_along_path
from nli_baselines.experiments.reports.report import choice_table, format_report
from nli_baselines.features.pair import Pair
from nli_baselines.models.ridge import RidgeRegressor

SCORES = Task.regression((0.0, 5.0))


def genre_pairs(counts: dict) -> list[Pair]:
    return [Pair(f"{genre}{i}", "a", "b", "1.0", meta={"genre": genre}) for genre, n in counts.items() for i in range(n)]


def test_folds_are_stratified_by_genre_where_every_pair_has_one():
    pairs = genre_pairs({"captions": 10, "news": 10, "forums": 5})
    folds, how = choice_folds(pairs, np.zeros(len(pairs)), SCORES, 5, 0)
    assert how == "5-fold CV on train, stratified by genre (seed 0)"
    genres = np.array([p.meta["genre"] for p in pairs])
    for _, test in folds:
        assert sorted(genres[test].tolist()) == ["captions"] * 2 + ["forums"] + ["news"] * 2
    assert sorted(np.concatenate([test for _, test in folds]).tolist()) == list(range(len(pairs)))


def test_folds_without_genres_by_label_or_shuffled():
    pairs = [Pair(str(i), "a", "b", str(i % 2)) for i in range(20)]
    labels = np.array([p.label for p in pairs], dtype=object)
    folds, how = choice_folds(pairs, labels, Task.classification(("0", "1")), 4, 1)
    assert how == "4-fold CV on train, stratified by label (seed 1)"
    assert all(abs(int((labels[test] == "0").sum()) - int((labels[test] == "1").sum())) <= 1 for _, test in folds)
    folds, how = choice_folds(pairs, np.arange(20.0), SCORES, 5, 0)
    assert how == "5-fold CV on train, shuffled (seed 0)" and [len(t) for _, t in folds] == [4] * 5
    # A genre with a single pair cannot be spread over folds: the next rule stratifies (a small
    # --train-size draws such a genre, and the run works as it does without genres).
    folds, how = choice_folds(genre_pairs({"captions": 5, "news": 1}), np.zeros(6), SCORES, 5, 0)
    assert how == "5-fold CV on train, shuffled (seed 0)"
    with pytest.raises(UsageError, match="too few training pairs per label"):
        choice_folds(pairs[:3], labels[:3], Task.classification(("0", "1")), 4, 1)


@pytest.fixture
def declaring(monkeypatch):
    """demo-similarity as a corpus that declares candidates, as stsb does."""
    corpus = dataclasses.replace(CORPORA["demo-similarity"], choose_among=(
        ("lexicalized", "lr"), ("unlexicalized", "lr"), ("unlexicalized", "stacked")))
    monkeypatch.setitem(CORPORA, "demo-similarity", corpus)
    return corpus


def test_the_rule_applies_where_a_corpus_declares_candidates_and_the_run_names_none(declaring):
    assert applies(RunConfig(dataset="demo-similarity"), declaring)
    assert not applies(RunConfig(dataset="demo-similarity", features="lexicalized"), declaring)
    assert not applies(RunConfig(dataset="demo-similarity", model="stacked"), declaring)
    assert not applies(RunConfig(dataset="demo-similarity", choose="off"), declaring)
    assert not applies(RunConfig(dataset="demo-similarity", ablation_table=True), declaring)
    assert not applies(RunConfig(dataset="demo"), CORPORA["demo"])  # declares none
    assert applies(RunConfig(dataset="demo", choose="cv", features="unlexicalized"), CORPORA["demo"])
    with pytest.raises(UsageError, match="--choose cv chooses one baseline; a table"):
        applies(RunConfig(dataset="demo-similarity", choose="cv", ablation_table=True), declaring)


def test_a_run_chooses_by_cv_and_scores_dev_once(declaring):
    outcome = run(RunConfig(dataset="demo-similarity", quiet=True, train_size=600))
    record = outcome.record
    choice = record["choice"]
    assert choice["rule"] == "5-fold CV on train, shuffled (seed 0)" and choice["by"] == "mean of Pearson and Spearman"
    names = [c["name"] for c in choice["candidates"]]
    # Ridge along its alphas (from the largest) for each group, then the stacked model once.
    assert names[-1] == "stacked_ridge unlexicalized" and {"lexicalized", "unlexicalized"} <= set(names)
    best = max(choice["candidates"], key=lambda c: c["pooled"][choice["metric"]])
    assert choice["chosen"]["name"] == best["name"] and choice["chosen"]["params"] == best["params"]
    for candidate in choice["candidates"]:
        folds = [f[choice["metric"]] for f in candidate["folds"]]
        assert candidate["mean"][choice["metric"]] == pytest.approx(np.mean(folds))
        assert candidate["sd"][choice["metric"]] == pytest.approx(np.std(folds, ddof=1))
    row, = record["rows"]
    assert row["name"] == best["name"] and row["features"] == best["features"]
    if best["params"]:
        assert row["selection"]["chosen"] == best["params"]
        assert row["selection"]["by"].startswith("5-fold CV on train, shuffled (seed 0), with the feature group")
    text = format_report(record)
    assert "baseline chosen by 5-fold CV on train, shuffled (seed 0), by mean of Pearson and Spearman" in text
    assert "chosen" in text.split("dev scored once, by the chosen one:")[1]
    # With --choose cv, the features and model a run names are its one candidate, not the corpus' own.
    named = run(RunConfig(dataset="demo-similarity", quiet=True, train_size=600, choose="cv",
                          features="unlexicalized", model="ridge")).record
    assert {c["name"] for c in named["choice"]["candidates"]} == {"unlexicalized"}
    # Naming the features is a run of its own: no choice.
    plain = run(RunConfig(dataset="demo-similarity", quiet=True, train_size=600, features="unlexicalized")).record
    assert "choice" not in plain and plain["rows"][0]["features"] == ["bleu", "length_diff", "overlap"]


def test_the_path_stops_after_falling_twice_and_grows_past_its_strong_end():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 30))
    y = X[:, 0] + 0.1 * rng.normal(size=200)
    folds, _ = choice_folds([Pair(str(i), "a", "b") for i in range(200)], y, SCORES, 4, 0)
    task = Task.regression(None)
    tried = cv_along_path(RidgeRegressor(), "alpha", (0.3, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0), "larger",
                          (1e-3, 1e6), X, y, folds, task)
    values = [v for v, _, _ in tried.values]
    scores = [s for _, s, _ in tried.values]
    assert values[:3] == [300.0, 100.0, 30.0]  # from the strongest regularization
    if tried.stopped:
        assert tried.stopped == "fell twice in a row" and scores[-1] < scores[-2] < scores[-3]
        assert set(tried.skipped) == {0.3, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0} - set(values)
    # An exact linear target: each smaller alpha is better, so the grid grows past its weak end,
    # a step at a time on the 1-3-10 ladder, down to its limit.
    grown = cv_along_path(RidgeRegressor(), "alpha", (0.3, 1.0, 3.0), "larger", (1e-3, 1e6), X, X[:, 0], folds, task)
    assert [v for v, _, _ in grown.values] == [3.0, 1.0, 0.3, 0.1, 0.03, 0.01, 0.003, 0.001]
    assert grown.extended == [0.1, 0.03, 0.01, 0.003, 0.001] and grown.stopped is None


def test_figures_per_genre():
    pairs = genre_pairs({"captions": 3, "news": 3})
    gold = np.array([1.0, 2.0, 3.0, 1.0, 2.0, 3.0])
    predicted = np.array([1.0, 2.0, 3.5, 3.0, 2.0, 1.0])
    figures = by_genre(SCORES, pairs, gold, predicted)
    assert list(figures) == ["captions", "news"] and figures["captions"]["pairs"] == 3
    assert figures["news"]["pearson"] == pytest.approx(-1.0)
    assert by_genre(SCORES, genre_pairs({"captions": 3}), gold[:3], predicted[:3]) == {}  # one genre: nothing to split


def test_the_glue_table_says_which_rule_chose_each_baseline():
    whole = {"chosen": {
        "STS-B": {"features": ["bleu", "char_ngrams"], "model": "stacked_ridge", "settings": None,
                  "rule": "5-fold CV on train, stratified by genre (seed 0)",
                  "cv": {"metric": "mean_of_pearson_spearman", "by": "mean of Pearson and Spearman",
                         "name": "stacked_ridge strongest,similarity",
                         "pooled": {}, "mean": {"mean_of_pearson_spearman": 0.8234}, "sd": {"mean_of_pearson_spearman": 0.0061}}},
        "RTE": {"features": ["bleu"], "model": "lr", "settings": {"C": 0.1}, "rule": "on dev"}}}
    assert baseline_lines(whole) == [
        "  STS-B: stacked_ridge strongest,similarity, chosen by 5-fold CV on train, stratified by genre (seed 0): CV "
        "mean of Pearson and Spearman 82.3 over the folds (sd 0.6)",
        "  RTE: fixed baselines, chosen on dev when docs/submissions.md's table was measured"]


def test_a_figure_undefined_in_a_fold_is_left_out_of_the_mean_and_spread_never_counted_as_0():
    y = np.array([1.0, 2.0, 3.0, 4.0] * 3)
    predicted = np.array([1.0, 2.0, 3.0, 4.0, 2.0, 2.0, 2.0, 2.0, 1.0, 2.0, 4.0, 3.0])  # fold 2: one score
    folds = [(None, np.arange(0, 4)), (None, np.arange(4, 8)), (None, np.arange(8, 12))]
    row = SimpleNamespace(name="ridge", feature_types=("bleu",), model="ridge")
    record = Scored(row, {"alpha": 1.0}, None, predicted).record(y, folds, SCORES)
    assert record["folds"][1]["pearson"] is None and "pearson" in record["folds"][1]["undefined"]
    assert record["mean"]["pearson"] == pytest.approx((1.0 + 0.8) / 2)  # 0.6 if the undefined fold counted as 0
    assert record["sd"]["pearson"] == pytest.approx(np.std([1.0, 0.8], ddof=1))
    # One defined fold has a mean and no spread.
    lone = Scored(row, {}, None, np.r_[predicted[:4], np.full(8, 2.0)]).record(y, folds, SCORES)
    assert lone["mean"]["pearson"] == pytest.approx(1.0) and lone["sd"]["pearson"] is None
    constant = Scored(row, {}, None, np.full(12, 2.5)).record(y, folds, SCORES)
    assert constant["mean"]["pearson"] is None and constant["sd"]["pearson"] is None
    whole = {"chosen": {"STS-B": {"features": ["bleu"], "model": "ridge", "settings": None, "rule": "5-fold CV",
                                  "cv": {"metric": "pearson", "by": "Pearson", "pooled": {},
                                         "mean": {"pearson": None}, "sd": {"pearson": None}}}}}
    assert baseline_lines(whole) == ["  STS-B: ridge on bleu, chosen by 5-fold CV: CV Pearson n/a over the folds (sd n/a)"]


def test_the_report_marks_the_candidate_the_run_chose_not_a_ranking_of_its_own():
    def candidate(name, params, figure):
        return {"name": name, "params": params, "pooled": {"accuracy": figure}, "mean": {"accuracy": figure},
                "sd": {"accuracy": 0.01}}
    # A tie broken by the engine in favour of the later candidate: the table shows that choice.
    candidates = [candidate("strongest", {"C": 0.1}, 0.8), candidate("stacked strongest", {}, 0.8)]
    record = {"choice": {"rule": "5-fold CV on train, stratified by label (seed 0)", "by": "accuracy",
                         "metric": "accuracy", "seconds": 3.0, "candidates": candidates,
                         "chosen": dict(candidates[1])}}
    rows = choice_table(record).rows
    assert [row[-1] for row in rows] == ["", "chosen"]


def test_top_features_says_when_the_chosen_baseline_has_no_weights(monkeypatch):
    corpus = dataclasses.replace(CORPORA["demo-similarity"], choose_among=(("unlexicalized", "stacked"),))
    monkeypatch.setitem(CORPORA, "demo-similarity", corpus)
    outcome = run(RunConfig(dataset="demo-similarity", quiet=True, train_size=300, top_features=5))
    assert outcome.record["choice"]["chosen"]["model"] == "stacked_ridge"
    assert any(note.startswith("--top-features lists the weights of a model that explains itself by its features; "
                               "the stacked_ridge model has none: ignored (the baseline was chosen by CV")
               for note in outcome.record["notes"])


def test_the_runs_own_candidates_of_c_are_the_paths_and_models_that_read_pairs_take_part():
    record = run(RunConfig(dataset="demo", choose="cv", features="unlexicalized", C=(0.3, 1.0), quiet=True,
                           train_size=300)).record
    tried = [c["params"]["C"] for c in record["choice"]["candidates"]]
    # C_GRID's values below them untried (the path may grow past 1.0, as a fixed row's does)
    assert tried[:2] == [0.3, 1.0] and not {0.003, 0.01, 0.03, 0.1} & set(tried)
    majority = run(RunConfig(dataset="demo", choose="cv", model="majority", quiet=True, train_size=300)).record
    assert majority["choice"]["chosen"]["model"] == "majority"


def test_a_choice_without_a_dev_split_to_confirm_it_on_is_refused(tmp_path):
    train = tmp_path / "train.tsv"
    train.write_text("premise\thypothesis\tlabel\n" + "".join(
        f"a man {i} walks\ta man {i} {'walks' if i % 2 else 'sleeps'}\t{'entailment' if i % 2 else 'contradiction'}\n"
        for i in range(40)), encoding="utf-8")
    with pytest.raises(UsageError, match="--choose: .* has no dev split to score the chosen baseline on once"):
        run(RunConfig(train_file=str(train), choose="cv", features="unlexicalized", quiet=True))
