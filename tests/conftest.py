"""Shared fixtures: the real-corpus directory (skips without it), the real WordNet (skips without it),
command lines run in this process, scripts run as processes where the process is the point, and a
tiny hand-written corpus.

Markers (pyproject.toml): tests that read the corpora are `corpus`, tests that read the real WordNet
are `wordnet` (both given by the fixtures below), and `slow` ones run only when asked
(`python -m pytest -m slow`; CI runs them).
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from nli_baselines.features.pair import Pair

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = {
    "run": "nli_baselines.experiments.run", "curve": "nli_baselines.learning_curves.run", "predict": "nli_baselines.experiments.predict",
    "compare": "nli_baselines.experiments.compare", "diagnose": "nli_baselines.experiments.diagnose", "datasets": "nli_baselines.experiments.datasets",
    "download": "nli_baselines.experiments.download", "benchmark": "benchmarks.benchmark",
    "choose_defaults": "benchmarks.choose_defaults", "bundle": "nli_baselines.experiments.bundle", "glue": "nli_baselines.experiments.glue",
}
def pytest_configure(config):
    """Tests annotate into a cache of their own, removed at the end, unless NLI_CACHE_DIR names one
    (CI's corpus phase keeps its cache): no test depends on, or adds to, what the user ran before."""
    if not os.environ.get("NLI_CACHE_DIR"):
        config.nli_cache_dir = tempfile.mkdtemp(prefix="nli-test-cache-")
        os.environ["NLI_CACHE_DIR"] = config.nli_cache_dir


def pytest_unconfigure(config):
    if getattr(config, "nli_cache_dir", None):
        os.environ.pop("NLI_CACHE_DIR", None)
        shutil.rmtree(config.nli_cache_dir, ignore_errors=True)


SCRIPT_FILES = {"run": "experiments/run.py", "curve": "learning_curves/run.py", "predict": "experiments/predict.py",
                "compare": "experiments/compare.py", "download": "experiments/download.py"}


def pytest_collection_modifyitems(config, items):
    """Mark the tests that need the corpora or the real WordNet by the fixtures they use, so that
    CI can select them (`-m "corpus or wordnet"`) and a bare run skips them with their reason.

    scikit-learn's array-API check needs scipy started with SCIPY_ARRAY_API=1: it runs in a
    process of its own (tests/test_pipeline.py), so its in-process copies are left out."""
    array_api = [item for item in items if "check_array_api_input" in item.nodeid]
    if array_api:
        config.hook.pytest_deselected(items=array_api)
        items[:] = [item for item in items if item not in array_api]
    for item in items:
        names = getattr(item, "fixturenames", ())
        if "data_dir" in names:
            item.add_marker(pytest.mark.corpus)
        if "real_wordnet" in names:
            item.add_marker(pytest.mark.wordnet)


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The shared corpora; tests that need them skip when NLI_DATA_DIR is unset."""
    value = os.environ.get("NLI_DATA_DIR")
    if not value:
        pytest.skip("NLI_DATA_DIR is not set: real-corpus tests need the shared data directory")
    path = Path(value)
    if not path.is_dir():
        pytest.skip(f"NLI_DATA_DIR={value} is not a directory")
    return path.resolve()  # absolute: CI gives ../shared/data, and a test's links to it live elsewhere


@pytest.fixture(scope="session")
def real_wordnet():
    """WordNet 3.0 where NLTK finds it; tests that need it skip without it."""
    from nli_baselines.features.text.wordnet_data import wordnet_available
    if not wordnet_available():
        pytest.skip("WordNet 3.0 is not installed for NLTK: python experiments/download.py wordnet")


@pytest.fixture(autouse=True)
def nltk_path_restored(monkeypatch):
    """Loading WordNet puts directories on nltk.data.path; no test's temporary folder may stay there."""
    import nltk.data
    monkeypatch.setattr(nltk.data, "path", list(nltk.data.path))


@pytest.fixture(autouse=True)
def signal_handlers_restored():
    """A command that finished keeps SIGTERM and SIGINT ending its process in one line until the
    process exits (`exits.terminated_cleanly`); in this process, pytest's own handling comes back
    after each test that ran one in process."""
    handlers = {signum: signal.getsignal(signum) for signum in (signal.SIGTERM, signal.SIGINT)}
    yield
    for signum, handler in handlers.items():
        signal.signal(signum, handler)


@pytest.fixture(scope="session")
def tiny_wordnet(tmp_path_factory) -> Path:
    """The tiny test WordNet (tests/wordnet_fixture.py), written once; tests must not change it."""
    from tests.wordnet_fixture import write_tiny_wordnet
    return write_tiny_wordnet(tmp_path_factory.mktemp("wn") / "nltk_data")


@pytest.fixture
def read_limits():
    """The process's read bounds (`readers.common.LIMITS`) to change in a test, put back after it."""
    import dataclasses

    from nli_baselines.experiments.corpora.readers import common
    saved = dataclasses.replace(common.LIMITS)
    yield common.LIMITS
    for name in dataclasses.fields(saved):
        setattr(common.LIMITS, name.name, getattr(saved, name.name))


@dataclass
class Done:
    """How a command ended: its exit status and what it printed."""

    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def terminal(monkeypatch):
    """stderr taken for a terminal, which redraws a bar in place (pytest's capture is not one): the
    bars a test looks for are drawn."""
    from nli_baselines.features.runtime import progress
    monkeypatch.setattr(progress, "redraws", lambda stream=None: True)


@pytest.fixture
def cli(capsys):
    """Run a script's `main(argv)` in this process, as its command line would: cli("run", "--dataset",
    "demo") -> Done(returncode, stdout, stderr). Feature types and models that `--import` registers
    are removed afterwards."""
    from nli_baselines.features.registry import FEATURE_TYPES
    from nli_baselines.models import MODELS
    before = (dict(FEATURE_TYPES), dict(MODELS), list(sys.path))
    imported = set()

    def call(script: str, *args) -> Done:
        main = importlib.import_module(SCRIPTS[script]).main
        args = [str(a) for a in args]
        imported.update(Path(a).stem for flag, a in zip(args, args[1:]) if flag == "--import")
        capsys.readouterr()
        try:
            code = main(args)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        out, err = capsys.readouterr()
        return Done(code, out, err)

    yield call
    for name in imported:  # a user's module registers its types when imported: the next test imports it anew
        sys.modules.pop(name, None)
        try:
            import cloudpickle
            cloudpickle.unregister_pickle_by_value(name)
        except (ImportError, ValueError):
            pass
    FEATURE_TYPES.clear()
    FEATURE_TYPES.update(before[0])
    MODELS.clear()
    MODELS.update(before[1])
    sys.path[:] = before[2]


def run_script(script: str, *args, cwd: Path | str = REPO, env: dict | None = None, **kwargs):
    """A script as a process (`python experiments/run.py ...`): for what only a process shows, its
    exit status, a closed pipe, a signal, the console entry points. Everything else calls `cli`."""
    command = [sys.executable, str(REPO / SCRIPT_FILES[script]) if script in SCRIPT_FILES else script, *map(str, args)]
    kwargs.setdefault("preexec_fn", interruptible)
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, **kwargs)


def interruptible() -> None:
    """In the child, before exec: SIGINT as a terminal's foreground command has it. A test suite
    run in the background of a script (`pytest &`) inherits SIGINT ignored, and a command that
    keeps an ignored SIGINT ignored (as it should) would fail the tests that interrupt it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_script(script: str, *args) -> subprocess.Popen:
    """A script started as a process and left running (to be signalled)."""
    return subprocess.Popen([sys.executable, str(REPO / SCRIPT_FILES[script]), *map(str, args)], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=interruptible)


def needs_extra(extra: str, module: str):
    """A mark for a test that needs an optional extra: it skips, naming the install command, where
    `module` is not installed (the default run on a machine with only the tagger and test extras)."""
    return pytest.mark.skipif(importlib.util.find_spec(module) is None,
                              reason=f"needs {module}, of the {extra} extra: pip install -e '.[{extra}]'")


NEEDS_PLOTS = needs_extra("plots", "matplotlib")  # run.py --plots, curves (which always draw)
NEEDS_PYARROW = needs_extra("hf", "pyarrow")  # parquet and Arrow files
NEEDS_DASK = needs_extra("dask", "distributed")  # --backend dask


def run_python(*args, env: dict | None = None):
    """`python ARGS` as a process, from the repository root (for what needs a fresh interpreter)."""
    return subprocess.run([sys.executable, *map(str, args)], cwd=REPO, capture_output=True, text=True,
                          env={**os.environ, **(env or {})})


def run_shell(command: str, cwd: Path | str = REPO):
    """A shell pipeline (bash), for what a pipe does to a process."""
    return subprocess.run(command, shell=True, executable="/bin/bash", cwd=cwd, capture_output=True, text=True)


def make_pair(premise: str, hypothesis: str, label: str | None = "entailment",
              premise_tags: str | None = None, hypothesis_tags: str | None = None, id: str = "p") -> Pair:
    """A pair from space-separated tokens and tags (tags default to NN for every token)."""
    pt, ht = tuple(premise.split()), tuple(hypothesis.split())
    ptags = tuple(premise_tags.split()) if premise_tags else ("NN",) * len(pt)
    htags = tuple(hypothesis_tags.split()) if hypothesis_tags else ("NN",) * len(ht)
    assert len(ptags) == len(pt) and len(htags) == len(ht)
    return Pair(id, premise, hypothesis, label, pt, ptags, ht, htags)


# A tiny annotated corpus: tokens and tags written by hand.
TINY = [
    make_pair("A man is sleeping .", "A person is sleeping .", "entailment",
              "DT NN VBZ VBG .", "DT NN VBZ VBG .", "t0"),
    make_pair("A man is sleeping .", "A man is running .", "contradiction",
              "DT NN VBZ VBG .", "DT NN VBZ VBG .", "t1"),
    make_pair("A tall woman is eating an apple .", "A woman is eating .", "entailment",
              "DT JJ NN VBZ VBG DT NN .", "DT NN VBZ VBG .", "t2"),
    make_pair("A tall woman is eating an apple .", "A woman is eating lunch at home .", "neutral",
              "DT JJ NN VBZ VBG DT NN .", "DT NN VBZ VBG NN IN NN .", "t3"),
    make_pair("Two dogs run in the park .", "No dogs are running .", "contradiction",
              "CD NNS VBP IN DT NN .", "DT NNS VBP VBG .", "t4"),
    make_pair("Two dogs run in the park .", "Two dogs are playing fetch .", "neutral",
              "CD NNS VBP IN DT NN .", "CD NNS VBP VBG NN .", "t5"),
]


@pytest.fixture
def tiny() -> list[Pair]:
    return list(TINY)


def parsed_pair(premise: str, hypothesis: str, premise_tags: str, hypothesis_tags: str, premise_lemmas: str,
                hypothesis_lemmas: str, premise_parse: str, hypothesis_parse: str, label: str = "entailment",
                id: str = "p") -> Pair:
    """A pair with tokens, tags and lemmas by hand, and dependency parses by hand that the parse
    memo (`features.text.parsing.remember_parses`) will return for its sentences. A parse is written
    `HEAD:LABEL` per token, HEAD the head's position (the root's own position)."""
    from nli_baselines.features.text.parsing import remember_parses
    pair = make_pair(premise, hypothesis, label, premise_tags, hypothesis_tags, id)
    pair = pair.with_annotation((pair.premise_tokens, pair.premise_tags, tuple(premise_lemmas.split())),
                                (pair.hypothesis_tokens, pair.hypothesis_tags, tuple(hypothesis_lemmas.split())))
    for tokens, parse in ((pair.premise_tokens, premise_parse), (pair.hypothesis_tokens, hypothesis_parse)):
        arcs = [arc.split(":") for arc in parse.split()]
        assert len(arcs) == len(tokens), (tokens, parse)
        remember_parses({tokens: ([int(h) for h, _ in arcs], [label for _, label in arcs])})
    return pair


# Dependency parses by hand (HEAD:LABEL per token) of TINY's sentences and the contract's unseen
# pair, for the types that read parses (`needs_parses`), so no test depends on a parser's output.
TINY_PARSES = {
    "A man is sleeping .": "1:det 3:nsubj 3:aux 3:ROOT 3:punct",
    "A person is sleeping .": "1:det 3:nsubj 3:aux 3:ROOT 3:punct",
    "A man is running .": "1:det 3:nsubj 3:aux 3:ROOT 3:punct",
    "A tall woman is eating an apple .": "2:det 2:amod 4:nsubj 4:aux 4:ROOT 6:det 4:dobj 4:punct",
    "A woman is eating .": "1:det 3:nsubj 3:aux 3:ROOT 3:punct",
    "A woman is eating lunch at home .": "1:det 3:nsubj 3:aux 3:ROOT 3:dobj 3:prep 5:pobj 3:punct",
    "Two dogs run in the park .": "1:nummod 2:nsubj 2:ROOT 2:prep 5:det 3:pobj 2:punct",
    "No dogs are running .": "1:det 3:nsubj 3:aux 3:ROOT 3:punct",
    "Two dogs are playing fetch .": "1:nummod 3:nsubj 3:aux 3:ROOT 3:dobj 3:punct",
    "Quokkas juggle .": "1:nsubj 1:ROOT 1:punct",
    "Wombats dance .": "1:nsubj 1:ROOT 1:punct",
}


def remember_tiny_parses() -> None:
    from nli_baselines.features.text.parsing import remember_parses
    parses = {}
    for sentence, parse in TINY_PARSES.items():
        arcs = [arc.split(":") for arc in parse.split()]
        parses[tuple(sentence.split())] = ([int(h) for h, _ in arcs], [label for _, label in arcs])
    remember_parses(parses)
