"""Fuzzing model files: for every savable kind, mutants of a saved file (header values set to
hostile ones, arrays given foreign dtypes, huge or wrong shapes and poisoned values, flipped
bytes) are loaded and used in a child process with a time limit. Each must end in a
ModelFileError or predict labels of its own with finite probabilities: never a crash, a hang,
another exception, NaN, a file written or a worker started.

The default run tries a few mutants per kind; `python -m pytest -m slow tests/test_model_file_fuzz.py`
tries a few thousand.
"""
from __future__ import annotations

import json
import math
import os
import random
import select
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import SGDClassifier
from sklearn.naive_bayes import MultinomialNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.svm import LinearSVC

from tests.conftest import REPO

LABELS = ["entailment", "neutral", "contradiction"]
PER_KIND = 4  # mutants per kind in the default run
PER_KIND_SLOW = 300
# The similarity types that read no WordNet and no parse (the child runs on a bare machine too), so that
# the fitted state they add, idf_overlap's IDF and its document count, is fuzzed as every other part is.
SIMILARITY = "char_ngrams,idf_overlap,mt_metrics,agreement,lcs"
SECONDS = 20  # per mutant: loading and predicting take well under a second


def user_specs():
    """The user models fuzzed besides the suite's own, as a user's module registers them."""
    from nli_baselines.models import ModelSpec
    from tests.dense_models import DenseBoosting, declared_as
    return [
        ModelSpec(name="fuzz_svc", factory=lambda: LinearSVC(C=0.1), title="svc"),
        ModelSpec(name="fuzz_sgd", factory=lambda: SGDClassifier(loss="log_loss", max_iter=20, tol=None,
                                                                 random_state=0), title="sgd"),
        ModelSpec(name="fuzz_nb", factory=MultinomialNB, title="nb"),
        ModelSpec(name="fuzz_forest", factory=lambda: RandomForestClassifier(n_estimators=3, max_depth=5,
                                                                             random_state=0), title="forest"),
        ModelSpec(name="fuzz_boosting", factory=lambda: DenseBoosting(max_iter=4, random_state=0), title="boosting",
                  state=declared_as(DenseBoosting, HistGradientBoostingClassifier)),
        ModelSpec(name="fuzz_mlp", factory=lambda: MLPClassifier(hidden_layer_sizes=(6,), max_iter=20,
                                                                 random_state=0), title="mlp"),
        ModelSpec(name="fuzz_knn", factory=lambda: KNeighborsClassifier(n_neighbors=3), title="knn"),
    ]


def _untested_kinds() -> int:
    """The fuzzed user kinds this scikit-learn release neither saves nor loads (k-nearest neighbours
    before 1.9)."""
    from nli_baselines.models.sklearn_kinds import kind_of
    return sum(bool((spec.state or kind_of(spec.build())).untested()) for spec in user_specs())


def register_user_specs():
    from nli_baselines.models import MODELS, register_model
    for spec in user_specs():
        if spec.name not in MODELS:
            register_model(spec)


# ------------------------------------------------------------------ the saved files


@pytest.fixture(scope="module")
def saved_files(tmp_path_factory):
    """One saved file per kind (small models, so mutants load fast)."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    import nli_baselines as nb
    from nli_baselines.experiments.corpora.generated.demo import generate_demo
    from nli_baselines.experiments.outputs.model_files import Predictor
    from nli_baselines.features import PairFeaturizer
    from nli_baselines.features.text.annotation import annotate
    from nli_baselines.models import MODELS, unregister_model
    from nli_baselines.models.sklearn_kinds import kind_of
    out = tmp_path_factory.mktemp("fuzz")
    files = {}
    for kind, model, features in (("lr", "lr", "unlexicalized,hyp_ngrams"), ("stacked", "stacked", "unlexicalized"),
                                  ("edit_distance", "edit_distance", None), ("majority", "majority", None),
                                  ("lr_similarity", "lr", SIMILARITY)):
        kwargs = {"features": features} if features else {}
        predictor = next(iter(nb.run(dataset="demo", model=model, C=1.0, quiet=True, train_size=300,
                                     **kwargs).models.values()))
        predictor.save(out / f"{kind}.model")
        files[kind] = out / f"{kind}.model"
    train = annotate(generate_demo("train")[:300])
    featurizer = PairFeaturizer(features="overlap,hyp_ngrams,cross_unigrams", scale="maxabs").fit(train)
    X, y = featurizer.transform(train), np.array([p.label for p in train], dtype=object)
    registered = [spec.name for spec in user_specs() if spec.name not in MODELS]
    register_user_specs()
    try:
        for spec in user_specs():
            if (spec.state or kind_of(spec.build())).untested():
                continue  # this scikit-learn release neither saves nor loads the kind
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                model = spec.build().fit(X, y)
            predictor = Predictor(spec.name, model, featurizer, None, LABELS, False,
                                  {"dataset": "demo", "features": ["overlap", "hyp_ngrams", "cross_unigrams"],
                                   "train_pairs": 300, "annotation": {"tokens_tags": "given with the pairs (demo)"}})
            predictor.save(out / f"{spec.name}.model")
            files[spec.name] = out / f"{spec.name}.model"
    finally:
        for name in registered:
            unregister_model(name)
    return files


# ------------------------------------------------------------------ mutations

HOSTILE = ["fit", "predict", "/tmp", "os.system", "__import__", "", "x" * 20_000, 10 ** 18, -(10 ** 18), 2 ** 31 + 12345,
           -1, 0, 1, 3000, 1e308, -1e308, 0.5, True, False, None, [], {}, [1, 2], {"__object__": "os.system"},
           ["fit"], float("nan"), float("inf")]


def split(blob: bytes) -> tuple[dict, bytes]:
    (length,) = struct.unpack("<Q", blob[:8])
    return json.loads(blob[8:8 + length]), blob[8 + length:]


def join(header: dict, data: bytes) -> bytes:
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + data


def leaves(node, path=()):
    """Every (path, value) of a JSON tree, containers included (replacing a whole part is a mutation too)."""
    yield path, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from leaves(value, path + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node[:50]):
            yield from leaves(value, path + (i,))


def set_at(node, path, value):
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value


def mutate(blob: bytes, rng: random.Random, only: str | None = None) -> bytes:
    """A mutant of the file; with `only`, of the header's parts and the arrays whose path or name holds
    `only` alone (no flipped bytes)."""
    header, data = split(blob)
    head = json.loads(header["__metadata__"]["nli-baselines-model"])
    tensors = [name for name in header if name != "__metadata__" and (only is None or only in name)]
    kind = rng.choice(["leaf", "leaf", "leaf", "key", "dtype", "shape", "offsets", "values"]
                      + (["flip"] if only is None else []))
    if kind == "leaf":
        path, _ = rng.choice([item for item in leaves(head) if item[0] and (only is None or only in item[0])])
        set_at(head, path, rng.choice(HOSTILE))
    elif kind == "key":
        parts = [value for path, value in leaves(head) if isinstance(value, dict) and (only is None or only in path)]
        target = rng.choice(parts)
        if target and rng.random() < 0.5:
            del target[rng.choice(list(target))]
        else:
            target[rng.choice(["n_jobs", "memory", "verbose", "warm_start", "stack_method_", "wordnet_dir",
                               "_carried_functions"])] = rng.choice(HOSTILE)
    elif kind in ("dtype", "shape", "offsets") and tensors:
        entry = header[rng.choice(tensors)]
        if kind == "dtype":
            entry["dtype"] = rng.choice(["C64", "F16", "U8", "I8", "BOOL", "F32", "F64", "I32", "I64", "U64", "BF16"])
        elif kind == "shape":
            entry["shape"] = rng.choice([[10 ** 15], [10 ** 15, 0], [0], [2 ** 31 + 1, 2], entry["shape"][::-1],
                                         entry["shape"] + [1], [], [-1]])
        else:
            start, stop = entry["data_offsets"]
            entry["data_offsets"] = rng.choice([[start, stop + 8], [stop, start], [0, 10 ** 12], [start + 1, stop + 1]])
    elif kind == "values" and tensors:
        name = rng.choice(tensors)
        entry = header[name]
        start, stop = entry["data_offsets"]
        width = {"F64": 8, "F32": 4, "I64": 8, "I32": 4, "U8": 1, "BOOL": 1, "I8": 1, "U64": 8}.get(entry["dtype"], 1)
        if stop > start:
            at = start + width * rng.randrange((stop - start) // width)
            poison = {8: [struct.pack("<d", float("nan")), struct.pack("<q", -(2 ** 40)), struct.pack("<q", 2 ** 40),
                          struct.pack("<d", 1e308)],
                      4: [struct.pack("<f", float("inf")), struct.pack("<i", -5), struct.pack("<i", 2 ** 30)],
                      1: [b"\xff", b"\x02"]}[width]
            data = data[:at] + rng.choice(poison) + data[at + width:]
    else:
        mutated = bytearray(blob)
        for _ in range(rng.randint(1, 4)):
            mutated[rng.randrange(len(mutated))] ^= 1 << rng.randrange(8)
        return bytes(mutated)
    header["__metadata__"]["nli-baselines-model"] = json.dumps(head)
    return join(header, data)


# Extreme declared state: a featurizer scale that leaves the load-time probe alone but sends other
# pairs' values far out, a centre at its bound, with weights at the largest magnitudes their kind
# may declare (and beyond). Prediction must stay finite or refuse in one line.
EXTREME_SCALES = [1e-36, 1e-300, 5e-324, 1e-12, 1e12]
EXTREME_CENTRES = [0.0, 1e12, -1e12, 3.0]
EXTREME_WEIGHTS = [1e31, -1e31, 1e300, -1e300, 3e38, 1e37, 1e15]
EXTREME_IDF = [1.0, 1e12, 1e11, 1.0000000001]  # within the declared range [1, 1e12]: loaded, and used


def mutate_extreme(blob: bytes, rng: random.Random) -> bytes:
    """A file whose dense feature scales and centres (and IDF, idf_overlap's) and whose estimator weights
    are extreme."""
    header, data = split(blob)
    data = bytearray(data)

    def put(name, values):
        entry = header[name]
        start, stop = entry["data_offsets"]
        fmt = {"F64": "<d", "F32": "<f"}[entry["dtype"]]
        width = struct.calcsize(fmt)
        for _ in range(rng.randint(1, 3)):
            # Mostly among the first values: the real-valued types come first among the columns, and
            # the first values of a weight array are the first column's (coef_) or input's (coefs_).
            count = (stop - start) // width
            at = start + width * rng.randrange(min(count, 8) if rng.random() < 0.8 else count)
            value = rng.choice(values)
            if fmt == "<f" and abs(value) > 3e38:
                value = math.copysign(3e38, value)
            data[at:at + width] = struct.pack(fmt, value)

    floats = [name for name, entry in header.items() if name != "__metadata__" and entry["dtype"] in ("F64", "F32")
              and entry["data_offsets"][1] > entry["data_offsets"][0]]
    for name in floats:
        if name.endswith(".scale"):
            put(name, EXTREME_SCALES)
        elif name.endswith(".center"):
            put(name, EXTREME_CENTRES)
        elif name.endswith(".idf"):
            put(name, EXTREME_IDF)
    weights = [name for name in floats if name.startswith("estimator.")]
    for name in rng.sample(weights, min(len(weights), rng.randint(1, 3))):
        put(name, EXTREME_WEIGHTS)
    return join(header, bytes(data))


# ------------------------------------------------------------------ the child that loads them

CHILD = r"""
import json, os, sys, threading, multiprocessing, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, sys.argv[1])
import numpy as np
from nli_baselines.experiments.outputs.model_files import ModelFileError, load_predictor
from nli_baselines.features.pair import Pair
from tests.test_model_file_fuzz import register_user_specs
register_user_specs()
tokens = [("A", "man", "is", "sleeping", "."), ("A", "dog", "runs", "in", "the", "park", "."), ("Nobody", "sleeps", "."),
          tuple("A big old dog runs very fast in the green park near the river .".split())]
tags = [("DT", "NN", "VBZ", "VBG", "."), ("DT", "NN", "VBZ", "IN", "DT", "NN", "."), ("NN", "VBZ", "."),
        ("DT", "JJ", "JJ", "NN", "VBZ", "RB", "RB", "IN", "DT", "JJ", "NN", "IN", "DT", "NN", ".")]
n = len(tokens)
pairs = [Pair(f"p{i}", " ".join(tokens[i]), " ".join(tokens[(i + 1) % n]), None, tokens[i], tags[i],
              tokens[(i + 1) % n], tags[(i + 1) % n], tuple(t.lower() for t in tokens[i]),
              tuple(t.lower() for t in tokens[(i + 1) % n])) for i in range(n)]
baseline_threads = threading.active_count()
print("ready", flush=True)
for line in sys.stdin:
    path = line.strip()
    folder = os.path.dirname(path)
    before = set(os.listdir(folder))
    try:
        predictor = load_predictor(path)
        labels = [str(x) for x in predictor.predict(pairs)]
        proba = predictor.predict_proba(pairs)
        if not set(labels) <= set(predictor.labels):
            outcome = "foreign: labels " + repr(labels)[:100]
        elif proba is not None and not np.isfinite(np.asarray(proba[1], dtype=float)).all():
            outcome = "nan"
        else:
            outcome = "ok"
    except ModelFileError as exc:
        outcome = "refused" if "\n" not in str(exc) else "foreign: a message of several lines"
    except BaseException as exc:
        outcome = f"foreign: {type(exc).__name__}: {str(exc)[:200]}"
    if threading.active_count() > baseline_threads or multiprocessing.active_children():
        outcome = "worker started"
    if set(os.listdir(folder)) != before:
        outcome = "file written"
    print(json.dumps(outcome), flush=True)
"""


class Child:
    """A loader process fed mutant paths one by one; restarted after a crash or a hang."""

    def __init__(self):
        self.process = None

    def start(self):
        self.process = subprocess.Popen([sys.executable, "-c", CHILD, str(REPO)], cwd=REPO, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                        env={**os.environ, "OMP_NUM_THREADS": "1"})
        assert self.readline(120) == "ready"

    def readline(self, seconds):
        ready, _, _ = select.select([self.process.stdout], [], [], seconds)
        return self.process.stdout.readline().strip() if ready else None

    def load(self, path: Path) -> str:
        if self.process is None or self.process.poll() is not None:
            self.start()
        self.process.stdin.write(f"{path}\n")
        self.process.stdin.flush()
        line = self.readline(SECONDS)
        if line:
            return json.loads(line)
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
            self.process = None
            return "hang"
        code = self.process.returncode
        self.process = None
        return f"crash (exit {code})"

    def close(self):
        if self.process is not None and self.process.poll() is None:
            self.process.stdin.close()
            self.process.wait(timeout=30)


def fuzz(saved_files, per_kind: int, tmp_path: Path, seed: int = 0, mutation=mutate) -> dict:
    rng = random.Random(seed)
    child = Child()
    outcomes = {}
    try:
        for kind, path in saved_files.items():
            blob = path.read_bytes()
            folder = tmp_path / kind
            folder.mkdir()
            original = folder / "original.model"
            original.write_bytes(blob)
            assert child.load(original) == "ok", f"the unmutated {kind} file does not load"
            original.unlink()
            for n in range(per_kind):
                mutant = folder / f"{n}.model"
                mutant.write_bytes(mutation(blob, rng))
                outcome = child.load(mutant)
                outcomes.setdefault(kind, {}).setdefault(outcome, 0)
                outcomes[kind][outcome] += 1
                mutant.unlink()
    finally:
        child.close()
    return outcomes


def assert_clean(outcomes: dict) -> None:
    bad = {kind: {o: n for o, n in found.items() if o not in ("refused", "ok")} for kind, found in outcomes.items()}
    assert not any(bad.values()), bad


def test_mutants_of_every_kind_are_refused_or_predict_cleanly(saved_files, tmp_path):
    outcomes = fuzz(saved_files, PER_KIND, tmp_path)
    assert set(outcomes) == set(saved_files) and len(saved_files) == 12 - _untested_kinds()
    assert_clean(outcomes)


def test_extreme_scales_with_extreme_weights_predict_finitely_or_are_refused(saved_files, tmp_path):
    dense = {kind: path for kind, path in saved_files.items() if kind not in ("edit_distance", "majority")}
    outcomes = fuzz(dense, PER_KIND, tmp_path, seed=2, mutation=mutate_extreme)
    assert set(outcomes) == set(dense) and len(dense) == 10 - _untested_kinds()
    assert_clean(outcomes)


def test_mutants_of_the_fitted_idf_are_refused_or_predict_cleanly(saved_files, tmp_path):
    # idf_overlap's IDF array and document count, the state the similarity types add beside scaling:
    # each mutant changes only them (values poisoned, dtype, shape, offsets, header leaves and keys).
    idf = {"lr_similarity": saved_files["lr_similarity"]}
    head, _ = split(idf["lr_similarity"].read_bytes())
    assert "featurizer.fitted.idf_overlap.idf" in head
    outcomes = fuzz(idf, 4 * PER_KIND, tmp_path, seed=3,
                    mutation=lambda blob, rng: mutate(blob, rng, only="idf_overlap"))
    assert set(outcomes) == {"lr_similarity"}
    assert_clean(outcomes)


@pytest.mark.slow
def test_thousands_of_extreme_mutants(saved_files, tmp_path):
    dense = {kind: path for kind, path in saved_files.items() if kind not in ("edit_distance", "majority")}
    outcomes = fuzz(dense, PER_KIND_SLOW, tmp_path, seed=3, mutation=mutate_extreme)
    print(json.dumps(outcomes, indent=1))
    assert_clean(outcomes)


@pytest.mark.slow
def test_thousands_of_mutants(saved_files, tmp_path):
    outcomes = fuzz(saved_files, PER_KIND_SLOW, tmp_path, seed=1)
    print(json.dumps(outcomes, indent=1))
    assert_clean(outcomes)
