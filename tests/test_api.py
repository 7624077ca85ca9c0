"""The Python API's edges: every bad argument is the suite's own UsageError with the command
line's message, never an error from deep inside; results pickle."""
from __future__ import annotations

import pickle

import pytest

import nli_baselines as nb
from nli_baselines.experiments.configuration.errors import UsageError


@pytest.fixture(scope="module")
def result():
    return nb.run(dataset="demo", features="unlexicalized", C=1.0, quiet=True, train_size=300)


@pytest.mark.parametrize("call, message", [
    (lambda r: nb.run(dataset="demo", features=None), "--features: expected a feature group, a type, or a "
                                                               "comma list of them, got None"),
    (lambda r: nb.compare(r, r, resamples=0), "resamples must be a whole number from 1 to 100,000, not 0"),
    (lambda r: nb.compare(r, r, resamples=10 ** 9), "not 1000000000"),
    (lambda r: nb.compare(r, r, resamples=2.5), "not 2.5"),
    (lambda r: nb.compare(r, {}), "not a run record of run.py --out \\(not a JSON object|no list of rows"),
    (lambda r: nb.compare(r, 5), "compare takes RunResults, run records or their paths, not int"),
    (lambda r: nb.load_model(None), "load_model takes the path of a model file, not NoneType"),
])
def test_bad_arguments_are_usage_errors(result, call, message):
    with pytest.raises(UsageError, match=message):
        call(result)


def test_features_may_be_a_list(result):
    listed = nb.run(dataset="demo", features=["bleu", "length_diff", "overlap"], C=1.0, quiet=True,
                    train_size=300)
    assert listed.record["rows"][0]["metrics"] == result.record["rows"][0]["metrics"]


def test_a_result_pickles(result):
    again = pickle.loads(pickle.dumps(result))
    assert again.table() == result.table()
    model = next(iter(again.models.values()))
    assert model.spec is next(iter(result.models.values())).spec  # a built-in spec travels by name


def test_the_package_front_names_resolve_and_import_nothing_heavy():
    from tests.conftest import run_python
    assert all(getattr(nb, name) is not None for name in nb.__all__) and set(nb.__all__) <= set(dir(nb))
    assert nb.run.__module__ == "nli_baselines.experiments.api" and nb.__version__ == nb._version.__version__
    with pytest.raises(AttributeError, match="module 'nli_baselines' has no attribute 'runn'"):
        nb.runn
    done = run_python("-c", "import sys, nli_baselines; print(sorted(m for m in ('numpy', 'sklearn', 'spacy') "
                            "if m in sys.modules))")
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stderr
