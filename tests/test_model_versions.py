"""A model saved under one scikit-learn loads and predicts the same under another, for every kind the
suite saves. CI writes the models under the lowest scikit-learn pyproject.toml allows
(`python -m tests.model_kinds DIR`) and runs this file under the newest with NLI_MODELS_FROM=DIR;
without that variable the models are written here and read back in the same process."""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
import sklearn

from nli_baselines.experiments.outputs.model_files import load_predictor
from nli_baselines.features.storage import tensor_file
from nli_baselines.models.sklearn_kinds import kind_of
from tests.model_kinds import DENSE, FACTORIES, SUITE_MODELS, kind_data, kind_outputs, load_kind, suite_pairs, write

# A minute of fitting every kind; within one release the same round trips run by default
# (tests/test_sklearn_kinds.py, tests/test_model_files.py). CI runs this across releases.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> Path:
    given = os.environ.get("NLI_MODELS_FROM")
    if given:
        return Path(given)
    directory = tmp_path_factory.mktemp("models")
    write(directory)
    return directory


def _same(want, got, what: str) -> None:
    want, got = np.asarray(want), np.asarray(got)
    assert want.shape == got.shape, what
    if want.dtype.kind in "fc" or got.dtype.kind in "fc":
        # the same arrays through another release's prediction code: equal up to rounding
        assert np.allclose(want.astype(float), got.astype(float), rtol=1e-9, atol=1e-12), \
            f"{what}: largest difference {np.max(np.abs(want.astype(float) - got.astype(float)))}"
    else:
        assert want.tolist() == got.tolist(), what


def _written_with(written: Path) -> dict:
    return json.loads((written / "written-with.json").read_text())


def test_the_models_name_the_release_that_wrote_them(written):
    record = _written_with(written)
    tested = [n for n in FACTORIES if not kind_of(FACTORIES[n]()).untested(record["scikit-learn"])]
    assert set(record["kinds"]) == {f"{n}-{c}" for n in tested for c in (3, 2)} | set(SUITE_MODELS)
    print(f"written with scikit-learn {record['scikit-learn']}, read with {sklearn.__version__}")


@pytest.mark.parametrize("n_classes", [3, 2])
@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_a_scikit_learn_kind_predicts_the_same(written, name, n_classes):
    stem = f"{name}-{n_classes}"
    kind = kind_of(FACTORIES[name]())
    reason = kind.untested(_written_with(written)["scikit-learn"]) or kind.untested()
    if reason:
        pytest.skip(reason)  # model files of the kind refuse this release (tests/test_model_files.py)
    recorded = json.loads((written / f"{stem}.json").read_text())
    path = written / f"{stem}.safetensors"
    tree = json.loads(tensor_file.read_metadata(path, "tree", max_file_bytes=1 << 30, max_header_bytes=1 << 24))
    fresh = FACTORIES[name]()
    with tensor_file.reading(path) as reader:
        arrays = {array: reader.read(array) for array in reader.names}
        reader.used.update(reader.names)
    restored = load_kind(kind_of(fresh), tree, arrays, recorded["labels"], fresh=fresh)
    X, _ = kind_data(n_classes, dense=type(fresh) in DENSE or name == "knn-dense")
    outputs = kind_outputs(restored, X)
    assert outputs.keys() == recorded["outputs"].keys()
    for method, wanted in recorded["outputs"].items():
        for want, got in zip(wanted, outputs[method]):
            _same(want, got, f"{stem}.{method}")


@pytest.mark.parametrize("name", sorted(SUITE_MODELS))
def test_a_suite_model_file_predicts_the_same(written, name):
    recorded = json.loads((written / f"{name}.json").read_text())
    predictor = load_predictor(written / f"{name}.model")
    pairs = suite_pairs(SUITE_MODELS[name])
    _same(recorded["predict"], [str(p) if isinstance(p, str) else p for p in predictor.predict(pairs)], name)
    proba = predictor.predict_proba(pairs)
    assert (recorded["proba"] is None) == (proba is None)
    if proba is not None:
        assert recorded["proba"]["classes"] == list(proba[0])
        _same(recorded["proba"]["values"], proba[1], f"{name}.proba")
