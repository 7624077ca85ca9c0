"""Fitted models of every kind the suite saves, as the tests build them, and the check that a model
written under one scikit-learn is read under another and predicts the same.

CI writes them under the lowest scikit-learn that pyproject.toml allows and reads them under the
newest (tests/test_model_versions.py):

    python -m tests.model_kinds DIR          # every kind's saved state and its outputs, into DIR
    NLI_MODELS_FROM=DIR python -m pytest tests/test_model_versions.py
"""
from __future__ import annotations

import functools
import json
import sys
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
import sklearn
from sklearn.ensemble import ExtraTreesClassifier, HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression, Perceptron, RidgeClassifier, SGDClassifier
from sklearn.naive_bayes import BernoulliNB, ComplementNB, GaussianNB, MultinomialNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.svm import LinearSVC
from sklearn.tree import DecisionTreeClassifier
from threadpoolctl import threadpool_limits

from nli_baselines.features.storage import tensor_file
from nli_baselines.features.storage.schema import Reader, Sizes, Writer
from nli_baselines.models.sklearn_kinds import kind_of

N_FEATURES = 12
LABELS = ("contradiction", "entailment", "neutral")

# Each kind with the constructor parameters its factory would use (non-default ones where
# prediction depends on them).
FACTORIES = {
    "logistic": lambda: LogisticRegression(C=0.5),
    "logistic-no-intercept": lambda: LogisticRegression(fit_intercept=False),
    "linear-svc": lambda: LinearSVC(),
    "linear-svc-no-intercept": lambda: LinearSVC(fit_intercept=False),
    "sgd-log": lambda: SGDClassifier(loss="log_loss", random_state=0),
    "sgd-huber": lambda: SGDClassifier(loss="modified_huber", random_state=0),
    "ridge": lambda: RidgeClassifier(),
    "ridge-no-intercept": lambda: RidgeClassifier(fit_intercept=False),
    "perceptron": lambda: Perceptron(random_state=0),
    "multinomial-nb": lambda: MultinomialNB(),
    "bernoulli-nb": lambda: BernoulliNB(binarize=0.5),
    "complement-nb": lambda: ComplementNB(norm=True),
    "gaussian-nb": lambda: GaussianNB(),
    "tree": lambda: DecisionTreeClassifier(random_state=0),
    "random-forest": lambda: RandomForestClassifier(n_estimators=5, max_depth=6, random_state=0),
    "extra-trees": lambda: ExtraTreesClassifier(n_estimators=5, random_state=0),
    "hist-gradient-boosting": lambda: HistGradientBoostingClassifier(max_iter=8, random_state=0),
    "mlp": lambda: MLPClassifier(hidden_layer_sizes=(7, 5), activation="tanh", max_iter=60, random_state=0),
    "knn": lambda: KNeighborsClassifier(n_neighbors=4, weights="distance"),
    "knn-uniform": lambda: KNeighborsClassifier(n_neighbors=3, p=1),
    "knn-dense": lambda: KNeighborsClassifier(n_neighbors=3, algorithm="brute"),
}
DENSE = {GaussianNB, HistGradientBoostingClassifier}
# The suite's own registered models, each on the demo task it fits (labels or scores).
SUITE_MODELS = {"lr": "demo", "edit_distance": "demo", "majority": "demo", "stacked": "demo",
                "ridge": "demo-similarity", "stacked_ridge": "demo-similarity", "mean": "demo-similarity"}


def kind_data(n_classes: int, dense: bool, seed=0, n=80):
    rng = np.random.default_rng(seed)
    X = sp.random(n, N_FEATURES, density=0.35, format="csr", dtype=np.float32, random_state=seed)
    X.data = (X.data * 4).astype(np.float32)
    y = np.array(LABELS[:n_classes])[rng.integers(0, n_classes, n)]
    y[:n_classes] = LABELS[:n_classes]  # every class present
    return (X.toarray() if dense else X), y


@functools.cache  # fitted once per process: callers dump them, never change them
def fit_kind(name: str, n_classes: int):
    estimator = FACTORIES[name]()
    X, y = kind_data(n_classes, dense=type(estimator) in DENSE or name == "knn-dense")
    with warnings.catch_warnings(), threadpool_limits(limits=1):
        warnings.simplefilter("ignore", ConvergenceWarning)
        estimator.fit(X, y)
    return estimator, X, sorted(set(y))


def dump_kind(estimator):
    kind = kind_of(estimator)
    kind.ready(estimator)
    writer = Writer()
    tree = json.loads(json.dumps(kind.schema.dump(estimator, writer, "estimator")))
    return kind, tree, dict(writer.arrays)


def load_kind(kind, tree, arrays, labels, n_features=N_FEATURES, fresh=None):
    sizes = Sizes({"n_features": n_features, "labels": tuple(labels)})
    values = kind.schema.values(tree, Reader(arrays), "estimator", sizes)
    return kind.restore(fresh if fresh is not None else kind.cls(), values, sizes)


def kind_outputs(estimator, X):
    queries = [X, X[::-1]]
    queries.append((X * 3 - 1).astype(np.float64) if not sp.issparse(X) else (X * 3).astype(np.float64).tocsr())
    out = {}
    for method in ("predict", "predict_proba", "decision_function"):
        if hasattr(estimator, method):
            out[method] = [getattr(estimator, method)(query) for query in queries]
    return out


def suite_pairs(dataset: str):
    """The pairs a saved suite model is asked about: 200 dev pairs of its demo task."""
    from nli_baselines.experiments.corpora import get_corpus
    return get_corpus(dataset).load("dev", Path(".")).pairs[:200]


def write(directory: Path) -> list[str]:
    """Every kind's saved state and its outputs under this scikit-learn, into `directory`."""
    import nli_baselines as nb
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name in FACTORIES:
        if kind_of(FACTORIES[name]()).untested():
            continue  # this scikit-learn release neither saves nor loads the kind
        for n_classes in (3, 2):
            estimator, X, labels = fit_kind(name, n_classes)
            kind, tree, arrays = dump_kind(estimator)
            stem = f"{name}-{n_classes}"
            tensor_file.write(directory / f"{stem}.safetensors", arrays, {"tree": json.dumps(tree)})
            outputs = {m: [np.asarray(o).tolist() for o in v] for m, v in kind_outputs(estimator, X).items()}
            (directory / f"{stem}.json").write_text(json.dumps({"labels": labels, "outputs": outputs}))
            written.append(stem)
    for name, dataset in SUITE_MODELS.items():
        result = nb.run(dataset=dataset, model=name, train_size=600, quiet=True)
        predictor = result.models[result.rows[0]]
        predictor.save(directory / f"{name}.model")
        pairs = suite_pairs(dataset)
        proba = predictor.predict_proba(pairs)
        proba = None if proba is None else {"classes": list(proba[0]), "values": proba[1].tolist()}
        (directory / f"{name}.json").write_text(json.dumps(
            {"predict": [str(p) if dataset == "demo" else float(p) for p in predictor.predict(pairs)], "proba": proba}))
        written.append(name)
    (directory / "written-with.json").write_text(json.dumps({"scikit-learn": sklearn.__version__,
                                                             "numpy": np.__version__, "kinds": written}))
    return written


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    kinds = write(Path(sys.argv[1]))
    print(f"wrote {len(kinds)} models under scikit-learn {sklearn.__version__} into {sys.argv[1]}")
