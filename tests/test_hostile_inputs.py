"""Inputs a hostile user crafts (issue 42): model files whose declared state is extreme, data files
that declare more than they hold, prediction files that are not regular files, forged cache entries,
text with terminal escapes. Each crafted file is built here; each must end in one line and exit
status 2 (or be read within its bounds), never a traceback, a NaN, a hang or memory exhaustion."""
from __future__ import annotations

import json

import numpy as np
import pytest
from safetensors import safe_open
from safetensors.numpy import save_file

import experiments
from experiments.outputs.model_files import HEAD_KEY


def _rewrite(path, out, change):
    with safe_open(str(path), framework="np") as handle:
        head = json.loads(handle.metadata()[HEAD_KEY])
        arrays = {name: handle.get_tensor(name) for name in handle.keys()}
    change(head, arrays)
    save_file(arrays, str(out), metadata={HEAD_KEY: json.dumps(head)})
    return out


@pytest.fixture(scope="module")
def lr_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("lr") / "lr.model"
    predictor = next(iter(experiments.run(dataset="demo", model="lr", C=1.0, quiet=True, train_size=300,
                                          features="unlexicalized").models.values()))
    predictor.save(path)
    return path, predictor.featurizer.slices_["length_diff"].start


PAIRS = ("premise\thypothesis\n"
         "A man is sleeping .\tA person is sleeping .\n"  # the load-time probe: unchanged by the scale
         "A dog runs in the park near the river bank .\tA dog .\n"
         "Two children play football .\tChildren play a game outside in the sun today .\n")


@pytest.mark.parametrize("scale", [1e-36, 1e-300])
def test_an_extreme_scale_with_an_extreme_weight_gives_finite_probabilities(lr_file, cli, tmp_path, scale):
    path, column = lr_file

    def extreme(head, arrays):
        arrays["featurizer.fitted.length_diff.scale"] = np.array([scale])
        arrays["featurizer.fitted.length_diff.center"] = np.array([0.0])
        coef = arrays["estimator.model_.coef_"]
        coef[:, column] = np.array([1e31, -1e31, 1e31][:len(coef)], dtype=coef.dtype)
    crafted = _rewrite(path, tmp_path / "extreme.model", extreme)
    (tmp_path / "pairs.tsv").write_text(PAIRS)
    done = cli("predict", "--model", crafted, "--input", tmp_path / "pairs.tsv", "--out", tmp_path / "p.tsv",
               "--proba")
    if done.returncode == 2:  # refused: one line, nothing written
        assert len(done.stderr.strip().splitlines()) == 1 and done.stderr.startswith("error: ")
        assert not (tmp_path / "p.tsv").exists()
        return
    assert done.returncode == 0, done.stderr
    rows = [line.split("\t") for line in (tmp_path / "p.tsv").read_text().splitlines()[1:]]
    assert len(rows) == 3
    for row in rows:
        probabilities = np.array(row[-3:], dtype=float)
        assert np.isfinite(probabilities).all() and abs(probabilities.sum() - 1) < 1e-5, row
