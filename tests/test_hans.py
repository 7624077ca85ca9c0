"""HANS: the reader (the official tab-separated layout), the breakdown (hand-counted accuracies per
heuristic and subcase), HANS's pairID,gold_label files, diagnose.py, run.py --with-hans, the
suite's own hans-mini pairs, the API, and the download source (against a local HTTP server)."""
from __future__ import annotations

import json
import re

import pytest

from nli_baselines.experiments.breakdowns.hans import (followed, format_hans, hans_breakdown, hans_file_text,
                                                       read_hans_predictions)
from nli_baselines.experiments.corpora import DataFormatError, get_corpus
from nli_baselines.experiments.corpora.generated.hans_mini import SUBCASES, generate_hans_mini
from nli_baselines.experiments.corpora.readers.hans import read_hans
from tests.test_download import server  # noqa: F401  (the local HTTP server fixture)

HEADER = ("gold_label\tsentence1_binary_parse\tsentence2_binary_parse\tsentence1_parse\tsentence2_parse\t"
          "sentence1\tsentence2\tpairID\theuristic\tsubcase\ttemplate\n")
# ex0 as HANS writes a row: binary parse, PCFG-style parse, tokens separated by spaces.
EX0 = ("non-entailment\t( ( The doctor ) ( ( saw ( the lawyer ) ) . ) )"
       "\t( ( The lawyer ) ( ( saw ( the doctor ) ) . ) )"
       "\t(ROOT (S (NP (DT The) (NN doctor)) (VP (VBD saw) (NP (DT the) (NN lawyer))) (. .)))"
       "\t(ROOT (S (NP (DT The) (NN lawyer)) (VP (VBD saw) (NP (DT the) (NN doctor))) (. .)))"
       "\tThe doctor saw the lawyer .\tThe lawyer saw the doctor .\tex0\tlexical_overlap\tln_subject/object_swap"
       "\ttemp1\n")


def _row(label, premise, hypothesis, pair_id, heuristic, subcase, template):
    """A row in HANS's layout from `word/TAG` sentences (flat parses: the reader reads their leaves)."""
    def parses(sentence):
        words = [item.rsplit("/", 1) for item in sentence.split()]
        text = " ".join(w for w, _ in words)
        return f"( {text} )", "(ROOT (S " + " ".join(f"({t} {w})" for w, t in words) + "))", text
    (b1, p1, s1), (b2, p2, s2) = parses(premise), parses(hypothesis)
    return "\t".join([label, b1, b2, p1, p2, s1, s2, pair_id, heuristic, subcase, template]) + "\n"


ROWS = [
    _row("non-entailment", "The/DT author/NN was/VBD helped/VBN by/IN the/DT actor/NN ./.",
         "The/DT author/NN helped/VBD the/DT actor/NN ./.", "ex1", "lexical_overlap", "ln_passive", "temp2"),
    _row("entailment", "The/DT judge/NN was/VBD paid/VBN by/IN the/DT nurse/NN ./.",
         "The/DT nurse/NN paid/VBD the/DT judge/NN ./.", "ex2", "lexical_overlap", "le_passive", "temp3"),
    _row("entailment", "The/DT pilot/NN and/CC the/DT chef/NN left/VBD ./.",
         "The/DT chef/NN and/CC the/DT pilot/NN left/VBD ./.", "ex3", "lexical_overlap", "le_conjunction", "temp4"),
    _row("non-entailment", "The/DT chef/NN knew/VBD the/DT pilot/NN left/VBD ./.",
         "The/DT chef/NN knew/VBD the/DT pilot/NN ./.", "ex4", "subsequence", "sn_NP/S", "temp5"),
    _row("entailment", "Tired/JJ nurses/NNS called/VBD the/DT judge/NN ./.",
         "Nurses/NNS called/VBD the/DT judge/NN ./.", "ex5", "subsequence", "se_adjective", "temp6"),
    _row("non-entailment", "Perhaps/RB the/DT judge/NN slept/VBD ./.", "The/DT judge/NN slept/VBD ./.", "ex6",
         "constituent", "cn_adverb", "temp7"),
    _row("entailment", "Clearly/RB the/DT nurse/NN smiled/VBD ./.", "The/DT nurse/NN smiled/VBD ./.", "ex7",
         "constituent", "ce_adverb", "temp8"),
]
HANS_FILE = HEADER + EX0 + "".join(ROWS)
# A model's labels for ex0..ex7; right (by HANS's two labels): ex1, ex2, ex5, ex6, ex7.
PREDICTED = {"ex0": "entailment", "ex1": "neutral", "ex2": "entailment", "ex3": "contradiction",
             "ex4": "entailment", "ex5": "entailment", "ex6": "not_entailment", "ex7": "entailment"}
EXPECTED = {
    "heuristics": {"lexical_overlap": {"entailment": 0.5, "non-entailment": 0.5},    # ex2 / ex3; ex1 / ex0
                   "subsequence": {"entailment": 1.0, "non-entailment": 0.0},        # ex5; ex4
                   "constituent": {"entailment": 1.0, "non-entailment": 1.0}},       # ex7; ex6
    "subcases": {"ln_subject/object_swap": 0.0, "ln_passive": 1.0, "le_passive": 1.0, "le_conjunction": 0.0,
                 "sn_NP/S": 0.0, "se_adjective": 1.0, "cn_adverb": 1.0, "ce_adverb": 1.0},
    "overall": 5 / 8,
}


@pytest.fixture
def hans_path(tmp_path):
    path = tmp_path / "data" / "hans" / "heuristics_evaluation_set.txt"
    path.parent.mkdir(parents=True)
    path.write_text(HANS_FILE)
    return path


def test_reader_keeps_labels_tags_and_the_three_fields(hans_path):
    data = get_corpus("hans").load("test", hans_path.parents[1])
    pairs = data.pairs
    assert [p.id for p in pairs] == [f"ex{i}" for i in range(8)] and data.rows == 8 and not data.skipped
    assert [p.label for p in pairs[:3]] == ["not_entailment", "not_entailment", "entailment"]
    first = pairs[0]
    assert first.premise == "The doctor saw the lawyer ." and first.hypothesis == "The lawyer saw the doctor ."
    assert first.premise_tokens == ("The", "doctor", "saw", "the", "lawyer", ".")
    assert first.premise_tags == ("DT", "NN", "VBD", "DT", "NN", ".")
    assert first.meta == {"heuristic": "lexical_overlap", "subcase": "ln_subject/object_swap", "template": "temp1"}
    assert pairs[5].hypothesis_tags == ("NNS", "VBD", "DT", "NN", ".")
    # Its trees are kept, as SNLI's are: the syntax features derive dependencies from them.
    from nli_baselines.features.text.tree_dependencies import dependencies_from_tree
    assert first.premise_tree == "(ROOT (S (NP (DT The) (NN doctor)) (VP (VBD saw) (NP (DT the) (NN lawyer))) (. .)))"
    assert dependencies_from_tree(first.hypothesis_tree)[0] == first.hypothesis_tokens


def test_reader_reports_bad_rows(tmp_path):
    path = tmp_path / "heuristics_evaluation_set.txt"
    path.write_text(HEADER + EX0 + EX0 + EX0.replace("non-entailment", "maybe", 1).replace("ex0", "ex9"))
    with pytest.raises(DataFormatError, match=r"heuristics_evaluation_set.txt:3: pairID 'ex0' repeats line 2"):
        read_hans(path, "hans", "test")
    data = read_hans(path, "hans", "test", on_bad_row="skip")
    assert [p.id for p in data.pairs] == ["ex0"]
    assert dict(data.skipped) == {"repeated pairID": 1, "unknown label": 1}


def test_breakdown_by_hand(hans_path):
    pairs = read_hans(hans_path, "hans", "test").pairs
    result = hans_breakdown(pairs, PREDICTED)
    assert {key: result[key] for key in EXPECTED} == EXPECTED
    assert result["predicted_entailment"] == 5 / 8  # ex0, ex2, ex4, ex5, ex7
    assert result["templates"]["temp1"] == 0.0 and result["templates"]["temp8"] == 1.0
    assert result["counts"]["heuristics"]["lexical_overlap"] == {"entailment": 2, "non-entailment": 2}
    assert result["counts"]["subcases"]["ln_passive"] == {"heuristic": "lexical_overlap", "gold": "non-entailment",
                                                          "pairs": 1}
    assert followed(result) == ["subsequence"]  # entailed 1.0, non-entailed 0.0
    text = format_hans(result)
    assert "HANS: 8 pairs, accuracy 62.5%" in text and "says entailment for 62.5% of them" in text
    assert re.search(r"subsequence\s+100.0%\s+0.0%\s+\(1 \+ 1 pairs\)", text)
    assert "subsequence: the model follows the heuristic" in text and "lexical_overlap: the model" not in text
    with pytest.raises(ValueError, match="no prediction for 1 HANS pair.*pairID ex7"):
        hans_breakdown(pairs, {k: v for k, v in PREDICTED.items() if k != "ex7"})
    with pytest.raises(ValueError, match="prediction '1' for pairID ex0 is no NLI label"):
        hans_breakdown(pairs, {**PREDICTED, "ex0": "1"})


def test_predictions_file_round_trip_and_errors(tmp_path):
    text = hans_file_text(list(PREDICTED), list(PREDICTED.values()))
    assert text.splitlines()[:3] == ["pairID,gold_label", "ex0,entailment", "ex1,non-entailment"]
    path = tmp_path / "preds.txt"
    path.write_text(text)
    assert read_hans_predictions(path) == {k: "entailment" if v == "entailment" else "non-entailment"
                                           for k, v in PREDICTED.items()}
    path.write_text("pairID,label\nex0,entailment\n")
    with pytest.raises(ValueError, match="preds.txt:1: header must be 'pairID,gold_label'"):
        read_hans_predictions(path)
    path.write_text("pairID,gold_label\nex0,entailment\nex1,yes\n")
    with pytest.raises(ValueError, match="preds.txt:3: label 'yes' is none of"):
        read_hans_predictions(path)


def test_diagnose_scores_a_hans_predictions_file(cli, hans_path, tmp_path):
    predictions = tmp_path / "preds.txt"
    predictions.write_text(hans_file_text(list(PREDICTED), list(PREDICTED.values())))
    done = cli("diagnose", "--diagnostic", hans_path, "--predictions", predictions, "--out", tmp_path / "h.json")
    assert done.returncode == 0, done.stderr
    assert "HANS: 8 pairs, accuracy 62.5%" in done.stdout and "ln_subject/object_swap" in done.stdout
    written = json.loads((tmp_path / "h.json").read_text())
    assert {key: written[key] for key in EXPECTED} == EXPECTED
    predictions.write_text("pairID,gold_label\nex0,entailment\n")
    done = cli("diagnose", "--diagnostic", hans_path, "--predictions", predictions)
    assert done.returncode == 2 and "no prediction for 7 HANS pair(s), e.g. pairID ex1" in done.stderr
    other = tmp_path / "other.txt"
    other.write_text("a\tb\n")
    done = cli("diagnose", "--diagnostic", other, "--predictions", predictions)
    assert done.returncode == 2 and "or HANS's heuristics_evaluation_set.txt" in done.stderr


def test_with_hans_writes_the_file_that_diagnose_reads_back(cli, hans_path, tmp_path):
    data = hans_path.parents[1]
    out = tmp_path / "hans-preds.txt"
    done = cli("run", "--dataset", "demo", "--data-dir", data, "--features", "unlexicalized", "--C", "1",
               "--hans-predictions", out, "--quiet", "--out", tmp_path / "r.json")
    assert done.returncode == 0, done.stderr
    lines = out.read_text().splitlines()
    assert lines[0] == "pairID,gold_label"
    assert [line.split(",")[0] for line in lines[1:]] == [f"ex{i}" for i in range(8)]
    assert {line.split(",")[1] for line in lines[1:]} <= {"entailment", "non-entailment"}
    assert "HANS: 8 pairs" in done.stdout and "HANS predictions written to" in done.stdout
    recorded = json.loads((tmp_path / "r.json").read_text())["diagnostics"]["HANS"]
    again = cli("diagnose", "--diagnostic", hans_path, "--predictions", out, "--out", tmp_path / "h.json")
    assert again.returncode == 0, again.stderr
    assert json.loads((tmp_path / "h.json").read_text()) == recorded


def test_diagnose_takes_a_diagnostic_by_name(cli, hans_path, tmp_path):
    """`--diagnostic hans-mini` (no download) and `--diagnostic hans` (the file under --data-dir) work
    as the files' paths do; a name that is neither a file nor a diagnostic's is one line."""
    ids = [f"hans-mini-{i}" for i in range(600)]
    predictions = tmp_path / "mini.txt"
    predictions.write_text(hans_file_text(ids, ["entailment"] * 600))  # the heuristics' answer everywhere
    done = cli("diagnose", "--diagnostic", "hans-mini", "--predictions", predictions, "--out", tmp_path / "m.json")
    assert done.returncode == 0, done.stderr
    assert "hans-mini: 600 pairs, accuracy 50.0%" in done.stdout
    written = json.loads((tmp_path / "m.json").read_text())
    assert written["heuristics"] == {h: {"entailment": 1.0, "non-entailment": 0.0}
                                     for h in ("lexical_overlap", "subsequence", "constituent")}
    assert written["counts"]["heuristics"]["subsequence"] == {"entailment": 100, "non-entailment": 100}
    mine = tmp_path / "preds.txt"
    mine.write_text(hans_file_text(list(PREDICTED), list(PREDICTED.values())))
    done = cli("diagnose", "--diagnostic", "hans", "--data-dir", hans_path.parents[1], "--predictions", mine)
    assert done.returncode == 0, done.stderr
    assert "HANS: 8 pairs, accuracy 62.5%" in done.stdout
    done = cli("diagnose", "--diagnostic", "hans", "--data-dir", tmp_path / "none", "--predictions", mine)
    assert done.returncode == 2 and "corpus 'hans' (split 'test') not found" in done.stderr
    assert "download.py hans" in done.stderr
    done = cli("diagnose", "--diagnostic", "hans-maxi", "--predictions", mine)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "hans-maxi: no such file, and not a diagnostic's name (ax, ax-g, hans, hans-mini)" in done.stderr


def test_with_hans_without_hans_scores_hans_mini_and_a_hans_file_needs_hans(cli, tmp_path):
    done = cli("run", "--dataset", "demo", "--data-dir", tmp_path, "--features", "unlexicalized", "--C", "1",
               "--with-hans", "--quiet", "--out", tmp_path / "r.json")
    assert done.returncode == 0, done.stderr
    looked = (tmp_path / "hans" / "heuristics_evaluation_set.txt").absolute()
    assert f"HANS is not under {tmp_path.absolute()} (looked for {looked}; download it: " in done.stdout
    assert "): scoring hans-mini, the suite's generated HANS-style pairs, in its place" in done.stdout
    assert "download.py hans" in done.stdout and "hans-mini: 600 pairs, accuracy" in done.stdout
    recorded = json.loads((tmp_path / "r.json").read_text())["diagnostics"]
    assert list(recorded) == ["hans-mini"] and recorded["hans-mini"]["examples"] == 600
    out = tmp_path / "hans-preds.txt"
    done = cli("run", "--dataset", "demo", "--data-dir", tmp_path, "--features", "unlexicalized", "--C", "1",
               "--hans-predictions", out, "--quiet")
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and not out.exists()
    assert "--hans-predictions writes HANS's own pairs, and HANS is not under" in done.stderr
    assert str((tmp_path / "hans" / "heuristics_evaluation_set.txt").absolute()) in done.stderr
    assert "download.py hans" in done.stderr and "featurized" not in done.stderr
    done = cli("run", "--dataset", "demo", "--paper-table", "--with-hans", "--quiet")
    assert done.returncode == 2 and "--with-hans" in done.stderr and "single run" in done.stderr
    train = tmp_path / "train.tsv"
    train.write_text("premise\thypothesis\tlabel\n" + "".join(f"A b {i} .\tA .\t{i % 2}\n" for i in range(10)))
    done = cli("run", "--train-file", train, "--with-hans", "--quiet")
    assert done.returncode == 2 and "--with-hans: HANS scores entailment against non-entailment, but this model " \
                                    "predicts 0, 1" in done.stderr
    assert "featurized" not in done.stderr


def test_hans_mini_has_hans_shape_and_heuristics_hold():
    pairs = generate_hans_mini()
    assert len(pairs) == 600 and pairs == generate_hans_mini()  # deterministic
    assert (pairs[0].premise, pairs[0].hypothesis) == ("The doctor saw the lawyer .", "The lawyer saw the doctor .")
    assert len({p.meta["subcase"] for p in pairs}) == 30 == len(SUBCASES)
    assert sum(p.label == "entailment" for p in pairs) == 300
    for pair in pairs:
        assert len(pair.premise_tokens) == len(pair.premise_tags) and len(pair.hypothesis_tokens) == len(
            pair.hypothesis_tags)
        premise = [t.lower() for t in pair.premise_tokens]
        hypothesis = [t.lower() for t in pair.hypothesis_tokens]
        assert set(hypothesis) <= set(premise), pair  # every heuristic is a case of lexical overlap
        if pair.meta["heuristic"] != "lexical_overlap":  # a stretch (or a clause) of the premise
            body = hypothesis[:-1]
            assert any(premise[i:i + len(body)] == body for i in range(len(premise))), pair
    corpus = get_corpus("hans-mini")
    assert corpus.splits == ("test",) and corpus.load("test").pairs == pairs


def test_api_breakdown_and_features_toward_entailment(hans_path, tmp_path):
    import nli_baselines as nb
    result = nb.run(dataset="demo", features="unlexicalized", C=[1.0], train_size=300, quiet=True)
    hans = nb.hans(result, hans_path)
    model = result.models["unlexicalized"]
    predicted = dict(zip((f"ex{i}" for i in range(8)), map(str, model.predict(read_hans(hans_path, "h", "t").pairs))))
    assert hans.scores == hans_breakdown(read_hans(hans_path, "h", "t").pairs, predicted)
    table = hans.examples(k=2, toward="entailment")
    assert list(table.id) == [f"ex{i}" for i in range(8)] and list(table.subcase)[0] == "ln_subject/object_swap"
    assert table.top_features.str.len().gt(0).all()  # overlap and length push somewhere on every pair
    classes, proba = model.predict_proba(read_hans(hans_path, "h", "t").pairs)
    assert table.confidence.tolist() == pytest.approx(list(proba[:, classes.index("entailment")]))
    with pytest.raises(ValueError, match="toward='maybe' is not a label"):
        hans.examples(toward="maybe")


def test_download_source_installs_the_official_file(server, tmp_path):  # noqa: F811
    from nli_baselines.experiments.corpora.download.sources import DownloadError, download
    root, base = server
    (root / "heuristics_evaluation_set.txt").write_text(HANS_FILE)
    data = tmp_path / "data"
    result = download("hans", data, url=f"{base}/heuristics_evaluation_set.txt", progress=False)
    assert result.files == [data / "hans" / "heuristics_evaluation_set.txt"]
    assert len(get_corpus("hans").load("test", data).pairs) == 8
    (root / "pointer.txt").write_text("version https://git-lfs.github.com/spec/v1\noid sha256:00\n")
    with pytest.raises(DownloadError, match="is a file starting 'version https://git-lfs"):
        download("hans", tmp_path / "other", url=f"{base}/pointer.txt", progress=False)


def test_readme_figures_of_the_sick_model_on_hans_mini(data_dir):
    import nli_baselines as nb
    result = nb.run(dataset="sick", data_dir=data_dir, quiet=True)
    scores = nb.hans(result, "hans-mini").scores
    assert {h: (round(100 * s["entailment"], 1), round(100 * s["non-entailment"], 1))
            for h, s in scores["heuristics"].items()} == {"lexical_overlap": (100.0, 20.0),
                                                          "subsequence": (100.0, 20.0), "constituent": (100.0, 0.0)}
    assert (round(100 * scores["overall"], 1), round(100 * scores["predicted_entailment"], 1)) == (56.7, 93.3)
    assert scores["subcases"]["ln_subject/object_swap"] == 1.0 and scores["subcases"]["ln_passive"] == 0.0
