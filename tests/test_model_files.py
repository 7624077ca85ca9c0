"""Model files: any registered model saves as data and loads back predicting the same; crafted
files end in one clear error, before anything large is allocated and without running code."""
from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import SGDClassifier
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_limits

import experiments
from experiments.corpora.demo import generate_demo
from experiments.outputs.model_files import MAX_ARRAY_BYTES, ModelFileError, load_predictor
from models import ModelSpec, register_model, unregister_model


def make_svc(random_state=0):
    return LinearSVC(C=0.1, random_state=random_state)


def make_sgd(random_state=0):
    return SGDClassifier(loss="log_loss", random_state=random_state, max_iter=50, tol=None)


class DenseBoosting(HistGradientBoostingClassifier):
    """A user's own class around gradient boosting: the sparse matrix made dense first."""

    def fit(self, X, y):
        # One OpenMP thread: on a busy 2-core machine, two spinning threads once took 55 s for 0.3 s of work.
        with threadpool_limits(1, user_api="openmp"):
            return super().fit(X.toarray(), y)

    def predict(self, X):
        return super().predict(X.toarray())

    def decision_function(self, X):
        return super().decision_function(X.toarray())

    def predict_proba(self, X):
        return super().predict_proba(X.toarray())


def make_boosting(random_state=0):
    return DenseBoosting(max_iter=5, random_state=random_state)


def make_forest(random_state=0):
    return RandomForestClassifier(n_estimators=3, max_depth=4, random_state=random_state)


USER_MODELS = {"svc": make_svc, "sgd": make_sgd, "boosting": make_boosting, "forest": make_forest}


@pytest.fixture(scope="module")
def user_models():
    # Factory functions, as users write them: the suite learns each class by building one.
    specs = [ModelSpec(name=name, factory=factory, title=name) for name, factory in USER_MODELS.items()]
    for spec in specs:
        register_model(spec)
    yield
    for spec in specs:
        unregister_model(spec.name)


@pytest.mark.parametrize("name", list(USER_MODELS))
def test_any_registered_scikit_learn_model_saves_and_loads(user_models, name, tmp_path):
    result = experiments.run(dataset="demo", model=name, features="unlexicalized", quiet=True)
    model = result.models[f"{name} unlexicalized"]
    model.save(tmp_path / "m.model")
    loaded = load_predictor(tmp_path / "m.model")
    dev = generate_demo("dev")[:300]
    assert type(loaded.model) is type(model.model)
    assert list(loaded.predict(dev)) == list(model.predict(dev))


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    path = tmp_path_factory.mktemp("m") / "demo.model"
    experiments.run(dataset="demo", features="unlexicalized", C=1.0, quiet=True).models["unlexicalized"].save(path)
    return path


def rewrite(path, out, *, head=None, arrays=None, extra=()):
    """A copy of the model file with model.json changed by `head(head)` and arrays replaced."""
    with zipfile.ZipFile(path) as archive:
        tree = json.loads(archive.read("model.json"))
        members = {n: archive.read(n) for n in archive.namelist() if n != "model.json"}
    if head:
        head(tree)
    for name, array in (arrays or {}).items():
        buffer = io.BytesIO()
        np.save(buffer, array, allow_pickle=False)
        members[name] = buffer.getvalue()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("model.json", json.dumps(tree))
        for name, data in [*members.items(), *extra]:
            archive.writestr(name, data)
    return out


def coefficient_array(path) -> str:
    """The member holding the logistic regression's coefficients."""
    with zipfile.ZipFile(path) as archive:
        tree = json.loads(archive.read("model.json"))
    model = tree["predictor"]["state"]["__dict__"]["model"]["state"]["__dict__"]["model_"]["state"]["__dict__"]
    return f"arrays/{model['coef_']['__array__']}.npy"


@pytest.mark.parametrize("value, message", [
    (np.nan, "NaN or infinity"), (np.inf, "NaN or infinity"), (1j, "not numbers|complex"),
])
def test_weights_that_are_not_finite_real_numbers(saved, tmp_path, value, message):
    name = coefficient_array(saved)
    with zipfile.ZipFile(saved) as archive:
        coef = np.load(io.BytesIO(archive.read(name)))
    bad = (coef.astype(complex) if isinstance(value, complex) else coef.copy())
    bad.flat[0] = value
    with pytest.raises(ModelFileError, match=message):
        load_predictor(rewrite(saved, tmp_path / "bad.model", arrays={name: bad}))


def test_weights_of_the_wrong_shape_or_kind(saved, tmp_path):
    name = coefficient_array(saved)
    with zipfile.ZipFile(saved) as archive:
        coef = np.load(io.BytesIO(archive.read(name)))
    with pytest.raises(ModelFileError, match=r"weights of shape \(3, 3\) for \d+ features"):
        load_predictor(rewrite(saved, tmp_path / "shape.model", arrays={name: coef[:, :3]}))
    with pytest.raises(ModelFileError, match="not real numbers"):
        load_predictor(rewrite(saved, tmp_path / "text.model", arrays={name: coef.astype(str)}))


def declared(shape, dtype="<f8") -> bytes:
    """A .npy header declaring `shape`, with no data behind it."""
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": dtype, "fortran_order": False, "shape": shape})
    return buffer.getvalue()


@pytest.mark.parametrize("shape", [(2 ** 50, 2 ** 4), (2 ** 40, 2 ** 40, 2 ** 40), (10 ** 9,)])
def test_huge_declared_arrays_are_refused_before_allocation(saved, tmp_path, shape):
    name = coefficient_array(saved)
    with zipfile.ZipFile(saved) as archive:
        tree = json.loads(archive.read("model.json"))
        members = {n: archive.read(n) for n in archive.namelist() if n != "model.json"}
    members[name] = declared(shape)
    with zipfile.ZipFile(tmp_path / "huge.model", "w") as archive:
        archive.writestr("model.json", json.dumps(tree))
        for member, data in members.items():
            archive.writestr(member, data)
    with pytest.raises(ModelFileError, match="declares"):
        load_predictor(tmp_path / "huge.model")


def test_a_small_file_with_a_huge_member_is_refused_unread(saved, tmp_path):
    name = coefficient_array(saved)
    big = np.zeros(MAX_ARRAY_BYTES // 8 + 1)  # compresses to ~260 KB
    path = rewrite(saved, tmp_path / "bomb.model", arrays={name: big})
    assert path.stat().st_size < 2 * MAX_ARRAY_BYTES // 1000
    with pytest.raises(ModelFileError, match="declares .* bytes; an array of a model of this suite takes at most"):
        load_predictor(path)


@pytest.mark.parametrize("change, message", [
    (lambda t: t.update(arrays=1e400), "declares inf arrays|damaged"),
    (lambda t: t.update(arrays=10 ** 12), "declares"),
    (lambda t: t.update(predictor="a string"), "holds no predictor"),
    (lambda t: t["predictor"]["state"]["__dict__"].update(model="a string"), "not a fitted classifier"),
    (lambda t: t["predictor"]["state"]["__dict__"].update(columns={"__slice__": [0, 10 ** 9, None]}),
     "columns are not columns"),
    (lambda t: t["predictor"]["state"]["__dict__"].update(model={"__ref__": 0}), "refers to itself: a cycle"),
    (lambda t: t["predictor"]["state"]["__dict__"].update(labels=[[[[[]]]]] * 2), "label set"),
    (lambda t: t["predictor"]["state"]["__dict__"].update(info=json.loads("[" * 150 + "]" * 150)),
     "nested deeper"),
    (lambda t: t["predictor"]["state"]["__dict__"].update(model={"__object__": "os.system", "id": 99,
                                                                 "state": {"__dict__": {}}}), "holds a os.system"),
    (lambda t: t["predictor"]["state"]["__dict__"].update(model={"__reduced__": "builtins.eval",
                                                                 "args": {"__tuple__": ["1"]}, "state": None}),
     "not a class this suite rebuilds"),
])
def test_crafted_trees_end_in_one_clear_error(saved, tmp_path, change, message):
    with pytest.raises(ModelFileError, match=message):
        load_predictor(rewrite(saved, tmp_path / "crafted.model", head=change))


def test_duplicate_and_unexpected_members_are_refused(saved, tmp_path):
    name = coefficient_array(saved)
    with zipfile.ZipFile(saved) as archive:
        data = archive.read(name)
    with pytest.warns(UserWarning, match="Duplicate name"):
        duplicated = rewrite(saved, tmp_path / "dup.model", extra=[(name, data)])
    with pytest.raises(ModelFileError, match=f"the member {name} occurs 2 times"):
        load_predictor(duplicated)
    with pytest.raises(ModelFileError, match="unexpected member 'notes.txt'"):
        load_predictor(rewrite(saved, tmp_path / "extra.model", extra=[("notes.txt", b"hello")]))


def test_crafted_boosted_trees_cannot_read_outside_their_nodes(user_models, tmp_path):
    result = experiments.run(dataset="demo", model="boosting", features="unlexicalized", quiet=True)
    path = tmp_path / "boosting.model"
    result.models["boosting unlexicalized"].save(path)
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
        nodes = next(n for n in names[1:] if np.load(io.BytesIO(archive.read(n))).dtype.names)
        array = np.load(io.BytesIO(archive.read(nodes)))
    crafted = array.copy()
    inner = np.flatnonzero(~crafted["is_leaf"].astype(bool))[0]
    crafted["left"][inner] = 10 ** 6  # a link past the node array: reading it could crash the process
    with pytest.raises(ModelFileError, match="node links leave its node array"):
        load_predictor(rewrite(path, tmp_path / "crafted.model", arrays={nodes: crafted}))


def test_models_with_wordnet_features_save(tmp_path, monkeypatch):
    from tests.wordnet_fixture import write_tiny_wordnet
    nltk_data = write_tiny_wordnet(tmp_path / "nltk_data")
    monkeypatch.setenv("NLTK_DATA", str(nltk_data))
    import nltk.data
    monkeypatch.setattr(nltk.data, "path", list(nltk.data.path))
    result = experiments.run(dataset="demo", features="unlexicalized,wordnet", C=1.0, quiet=True)
    model = result.models["unlexicalized,wordnet"]
    model.save(tmp_path / "w.model")
    dev = generate_demo("dev")[:100]
    assert list(load_predictor(tmp_path / "w.model").predict(dev)) == list(model.predict(dev))


MY_MODELS = '''
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_limits

from models import ModelSpec, Tuning, register_model


def linear_svm(random_state=0):
    return LinearSVC(random_state=random_state)


register_model(ModelSpec(name="svm", factory=linear_svm, title="linear SVM",
                         tuning=Tuning(grid={"C": (0.01, 0.1, 1.0)})))
'''


def test_your_own_model_from_the_command_line(cli, tmp_path, monkeypatch):
    # README, "Your own model": a spec in a module, --import it, train, --save-model, predict.py.
    (tmp_path / "my_models.py").write_text(MY_MODELS)
    monkeypatch.chdir(tmp_path)
    done = cli("run", "--import", "my_models", "--dataset", "demo", "--model", "svm", "--features", "unlexicalized",
               "--save-model", "svm.model", "--quiet")
    assert done.returncode == 0, done.stderr
    assert "svm unlexicalized" in done.stdout and "C=" in done.stdout
    (tmp_path / "pairs.tsv").write_text("premise\thypothesis\nA man is sleeping .\tA man is not sleeping .\n")
    predicted = cli("predict", "--import", "my_models", "--model", "svm.model", "--input", "pairs.tsv", "--out",
                    "p.tsv")
    assert predicted.returncode == 0, predicted.stderr
    assert (tmp_path / "p.tsv").read_text().splitlines()[0] == "id\tpremise\thypothesis\tpredicted"


def test_a_file_naming_a_system_function_gets_no_import_advice(saved, tmp_path):
    def name_os_system(tree):
        tree["predictor"]["state"]["__dict__"]["model"] = {"__object__": "os.system", "id": 99,
                                                           "state": {"__dict__": {}}}
    with pytest.raises(ModelFileError) as caught:
        load_predictor(rewrite(saved, tmp_path / "os.model", head=name_os_system))
    assert "holds a os.system" in str(caught.value) and "--import" not in str(caught.value)
