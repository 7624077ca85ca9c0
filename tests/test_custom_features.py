"""A custom feature type of the user's travels: to worker processes, to learning curves, into saved
models (by module and name), and through scikit-learn's GridSearchCV with n_jobs=2."""
from __future__ import annotations

import csv
import json
import textwrap

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline

from nli_baselines.experiments.corpora.generated.demo import generate_demo
from nli_baselines.features import FEATURE_TYPES, PairFeaturizer, register_feature, unregister_feature
from nli_baselines.models import LogisticClassifier
from tests.conftest import NEEDS_PLOTS

USER_MODULE = textwrap.dedent('''
    from nli_baselines.features import register_feature

    NEGATIONS = {"not", "no", "nobody", "never"}


    @register_feature("lab_negation")
    def lab_negation(pair):
        words = {t.lower() for t in pair.hypothesis_tokens}
        return {"in_hypothesis": float(bool(words & NEGATIONS))}
''')


@pytest.fixture
def user_dir(tmp_path, monkeypatch):
    (tmp_path / "my_lab_features.py").write_text(USER_MODULE)
    monkeypatch.chdir(tmp_path)  # --import finds modules in the current directory, as `python -m` does
    return tmp_path


def test_import_and_worker_processes(cli, user_dir):
    done = cli("run", "--import", "my_lab_features", "--dataset", "demo", "--features",
                  "unlexicalized,lab_negation", "--ablation-table", "--jobs", "2", "--C", "1", "--quiet", "--out",
                  "table.json")
    assert done.returncode == 0, done.stderr
    rows = json.loads((user_dir / "table.json").read_text())["rows"]
    assert [r["name"] for r in rows] == ["unlexicalized,lab_negation", "-bleu", "-length_diff", "-overlap",
                                         "-lab_negation"]
    assert all(r["metrics"]["dev"]["accuracy"] > 0.5 for r in rows)  # every row ran, in two worker processes

def test_unknown_modules_and_features(cli, user_dir):
    missing = cli("run", "--dataset", "demo", "--features", "lab_negation", "--quiet")
    assert missing.returncode == 2 and "unknown feature type or group 'lab_negation'" in missing.stderr
    broken = cli("run", "--import", "no_such_module", "--dataset", "demo")
    assert broken.returncode == 2 and "--import no_such_module: ModuleNotFoundError" in broken.stderr


@NEEDS_PLOTS
def test_learning_curves_take_feature_lists(cli, user_dir):
    done = cli("curve", "--import", "my_lab_features", "--dataset", "demo", "--sizes",
                  "50,all", "--seeds", "1", "--configs", "unlexicalized+lab_negation,lab_negation", "--jobs", "2",
                  "--C", "1", "--out", "curve", "--quiet")
    assert done.returncode == 0, done.stderr
    with open(user_dir / "curve" / "curve.csv", newline="") as handle:
        configs = {row["config"] for row in csv.DictReader(handle)}
    assert configs == {"unlexicalized+lab_negation", "lab_negation"}


def test_saved_models_name_the_module_and_need_it(cli, user_dir):
    done = cli("run", "--import", "my_lab_features", "--dataset", "demo", "--features",
                  "unlexicalized,lab_negation", "--C", "1", "--quiet", "--save-model", "lab.model")
    assert done.returncode == 0, done.stderr
    pairs = user_dir / "pairs.tsv"
    pairs.write_text("premise\thypothesis\tlabel\nA man is sleeping .\tA man is not sleeping .\tcontradiction\n")
    import sys
    sys.modules.pop("my_lab_features", None)
    from nli_baselines.features.registry import unregister_feature as forget
    forget("lab_negation")  # a new session: nothing registered
    without = cli("predict", "--model", "lab.model", "--input", "pairs.tsv", "--out", "p.tsv")
    assert without.returncode == 2
    assert "custom feature type 'lab_negation'" in without.stderr and "--import my_lab_features" in without.stderr
    with_module = cli("predict", "--import", "my_lab_features", "--model", "lab.model", "--input", "pairs.tsv",
                      "--out", "p.tsv")
    if with_module.returncode != 0 and "spaCy English tagger" in with_module.stderr:
        pytest.skip("needs a spaCy English model to tag the input")
    assert with_module.returncode == 0, with_module.stderr
    lines = (user_dir / "p.tsv").read_text().splitlines()
    assert lines[0] == "id\tpremise\thypothesis\tgold\tpredicted"
    assert lines[1].startswith("0\tA man is sleeping .\tA man is not sleeping .\tcontradiction\t")


def test_grid_search_with_two_worker_processes():
    # Registered here, in this process only: worker processes learn it from the pickled featurizer.
    def lab_not(pair):
        return {"not": float("not" in pair.hypothesis_tokens)}
    register_feature("lab_not", lab_not)
    try:
        train, dev = generate_demo("train")[:600], generate_demo("dev")[:200]
        y = np.array([p.label for p in train], dtype=object)
        pipe = Pipeline([("features", PairFeaturizer(features="unlexicalized,lab_not", n_jobs=1)),
                         ("model", LogisticClassifier())])
        search = GridSearchCV(pipe, {"model__C": [0.1, 1.0]}, cv=2, n_jobs=2).fit(train, y)
        assert search.best_estimator_.named_steps["features"].get_feature_names_out()[-1] == "lab_not:not"
        assert len(search.predict(dev)) == 200
    finally:
        unregister_feature("lab_not")


def test_registering_the_same_function_again_is_allowed():
    def lab_twice(pair):
        return {"x": 1.0}
    register_feature("lab_twice", lab_twice)
    try:
        register_feature("lab_twice", lab_twice)  # a re-run notebook cell: the same function

        def lab_twice_redefined(pair):
            return {"y": 1.0}
        with pytest.raises(ValueError, match="already taken"):
            register_feature("lab_twice", lab_twice_redefined)
        with pytest.raises(ValueError, match="already taken"):
            register_feature("lexicalized", lab_twice)
        assert FEATURE_TYPES["lab_twice"].function is lab_twice
    finally:
        unregister_feature("lab_twice")


@pytest.mark.parametrize("returned, message", [
    (lambda pair: {"length": "long"}, r"custom feature 'lab_bad' returned 'length': 'long' for pair 't0'"),
    (lambda pair: {"x": float("nan")}, r"returned 'x': nan for pair 't0'; values must be finite"),
    (lambda pair: {"x": float("inf")}, r"returned 'x': inf"),
    (lambda pair: {"x": 1e308}, r"returned 'x': 1e\+308 .*at most 3.4e\+38"),
    (lambda pair: {"x": [1, 2]}, r"returned 'x': \[1, 2\]"),
    (lambda pair: {"x": None}, r"returned 'x': None"),
    (lambda pair: ["x"], r"returned list .* for pair 't0'; it must return a dict"),
    (lambda pair: {"x": 1 / 0}, r"custom feature 'lab_bad' raised ZeroDivisionError on pair 't0': division by zero"),
])
def test_a_bad_custom_feature_names_itself_the_pair_and_the_value(tiny, returned, message):
    from nli_baselines.features.custom import CustomFeatureError

    def lab_bad(pair):
        return returned(pair)
    register_feature("lab_bad", lab_bad)
    try:
        with pytest.raises(CustomFeatureError, match=message):
            PairFeaturizer(features="lab_bad").fit(tiny)
    finally:
        unregister_feature("lab_bad")


def test_unknown_names_suggest_the_nearest_or_import(cli, tmp_path):
    done = cli("run", "--dataset", "demo", "--features", "lexicalised", "--quiet")
    assert done.returncode == 2 and "Did you mean lexicalized or unlexicalized?" in done.stderr
    done = cli("run", "--dataset", "demo", "--features", "sentiment_of_the_moon", "--quiet")
    assert done.returncode == 2 and "pass --import MODULE" in done.stderr
    (tmp_path / "lab_path_features.py").write_text(USER_MODULE)
    done = cli("run", "--import", tmp_path / "lab_path_features.py", "--dataset", "demo", "--features",
               "unlexicalized,lab_negation", "--C", "1", "--quiet")  # a path works as well as a module name
    assert done.returncode == 0, done.stderr
    done = cli("run", "--import", tmp_path / "missing.py", "--dataset", "demo")
    assert done.returncode == 2 and "no such file" in done.stderr
