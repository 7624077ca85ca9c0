"""Feature values kept on disk (`features.storage.value_cache`): entries are checked data, a warm run
gives the very numbers of a cold one, and skips what only the cached types read."""
from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nli_baselines as nb
from benchmarks.synthetic import generate_pairs, write_snli_jsonl
from nli_baselines.features.storage import value_cache
from nli_baselines.features.storage.value_cache import MAGIC, ValueCache, pairs_digest
from nli_baselines.features.types.quantifiers import Quantifiers
from nli_baselines.features.types.wordnet import WordNet
from tests.conftest import TINY

VALUES = np.arange(12, dtype=np.float64).reshape(4, 3) / 7  # 4 pairs x 3 columns, not integers


class Three(Quantifiers):
    """A cacheable type of three columns, so hand-made values fit it."""
    columns = ("a", "b", "c")


def test_equal_pairs_give_one_digest_whatever_their_sharing():
    shared = list(TINY)
    copied = [replace(p, premise_tokens=tuple(list(p.premise_tokens))) for p in TINY]
    assert pairs_digest(shared) == pairs_digest(copied)


@pytest.mark.parametrize("change", [
    dict(premise="A man sleeps ."), dict(hypothesis_tokens=("A", "person", "is", "sleeping", "!")),
    dict(hypothesis_tags=("DT", "NNP", "VBZ", "VBG", ".")), dict(premise_tree="(ROOT (NP (DT A)))"),
    dict(premise_lemmas=("a", "man", "be", "sleep", "."))])
def test_any_input_of_the_values_changes_the_digest(change):
    changed = [replace(TINY[0], **change), *TINY[1:]]
    assert pairs_digest(changed) != pairs_digest(TINY)


def test_the_key_follows_the_parameters_the_values_depend_on_only():
    digest = pairs_digest(TINY)
    key = value_cache.feature_key(WordNet(), digest)
    assert value_cache.feature_key(WordNet(scale="maxabs", bins=5), digest) == key  # applied after the values
    assert value_cache.feature_key(WordNet(hypernym_depth=1), digest) != key
    assert value_cache.feature_key(WordNet(), pairs_digest(TINY[:3])) != key


def test_an_entry_round_trips_exactly(tmp_path):
    cache = ValueCache(tmp_path)
    cache.put(Three(), "d", VALUES)
    got = cache.get(Three(), "d", 4)
    assert got.dtype == np.float64 and np.array_equal(got, VALUES)
    assert cache.stats() == {"hits": 1, "stored": 1, "rejected": 0}
    assert cache.get(Three(), "other pairs", 4) is None and cache.rejected == 0  # no entry: a plain miss


def test_non_finite_values_are_never_stored(tmp_path):
    cache = ValueCache(tmp_path)
    cache.put(Three(), "d", np.where(VALUES > 1, np.nan, VALUES))
    assert cache.stored == 0 and not list(tmp_path.rglob("*.values"))


def _entry(tmp_path) -> tuple[ValueCache, bytes]:
    cache = ValueCache(tmp_path)
    cache.put(Three(), "d", VALUES)
    (path,) = tmp_path.rglob("*.values")
    return cache, path


@pytest.mark.parametrize("damage", ["truncated", "longer", "magic", "key", "shape", "value", "nan"])
def test_a_damaged_or_foreign_entry_is_a_counted_miss(tmp_path, damage):
    cache, path = _entry(tmp_path)
    data = bytearray(path.read_bytes())
    head = len(MAGIC)
    if damage == "truncated":
        data = data[:-8]
    elif damage == "longer":
        data += bytes(8)
    elif damage == "magic":
        data[0] ^= 1
    elif damage == "key":
        data[head] ^= 1
    elif damage == "shape":  # 3 x 4 instead of 4 x 3: the same size, another shape
        data[head + 32:head + 48] = (3).to_bytes(8, "little") + (4).to_bytes(8, "little")
    elif damage == "value":  # still a finite number: only the checksum tells
        data[-1] ^= 1
    else:
        data[-8:] = np.array([np.nan]).tobytes()
    path.write_bytes(bytes(data))
    assert cache.get(Three(), "d", 4) is None
    assert cache.rejected == 1


def test_an_entry_of_another_length_is_refused_before_it_is_read(tmp_path):
    cache, _ = _entry(tmp_path)
    assert cache.get(Three(), "d", 5) is None and cache.rejected == 1  # the size says so: nothing allocated from it


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_fuzzed_entries_give_the_values_or_nothing(tmp_path_factory, data):
    """Random bytes written over, cut off or added to an entry: `get` returns exactly the stored
    values or None, and never raises."""
    cache, path = _entry(tmp_path_factory.mktemp("fuzz"))
    raw = bytearray(path.read_bytes())
    for _ in range(data.draw(st.integers(1, 4))):
        action = data.draw(st.sampled_from(["flip", "cut", "add", "splice"]))
        if action == "flip" and raw:
            i = data.draw(st.integers(0, len(raw) - 1))
            raw[i] = data.draw(st.integers(0, 255))
        elif action == "cut":
            del raw[data.draw(st.integers(0, len(raw))):]
        elif action == "add":
            raw += data.draw(st.binary(max_size=64))
        else:
            i = data.draw(st.integers(0, len(raw)))
            raw[i:i] = data.draw(st.binary(min_size=1, max_size=16))
    path.write_bytes(bytes(raw))
    got = cache.get(Three(), "d", 4)
    assert got is None or np.array_equal(got, VALUES)


@pytest.fixture
def snli_dir(tmp_path):
    pairs = generate_pairs(360, seed=3)
    folder = tmp_path / "data"
    folder.mkdir()
    write_snli_jsonl(pairs[:300], folder / "snli_1.0_train.jsonl")
    write_snli_jsonl(pairs[300:], folder / "snli_1.0_dev.jsonl")
    return folder


def _run(snli_dir, capsys):
    """A run and the lines it wrote to stderr."""
    capsys.readouterr()
    result = nb.run(dataset="snli", data_dir=snli_dir, features="strongest", C=[0.1])
    return result, capsys.readouterr().err.splitlines()


def test_a_warm_run_gives_the_cold_runs_numbers_without_lemmas_or_parses(snli_dir, tmp_path, tiny_wordnet,
                                                                        monkeypatch, capsys):
    monkeypatch.setenv("NLTK_DATA", str(tiny_wordnet))
    monkeypatch.setenv("NLI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(value_cache, "MIN_ROWS", 100)
    cold, cold_logs = _run(snli_dir, capsys)
    warm, warm_logs = _run(snli_dir, capsys)
    assert cold.record["value_cache"] == {"used": True, "splits_found": [], "hits": 0, "stored": 8, "rejected": 0}
    assert warm.record["value_cache"] == {"used": True, "splits_found": ["selection", "train"], "hits": 8,
                                          "stored": 0, "rejected": 0}
    assert json.dumps(warm.row()["predictions"]) == json.dumps(cold.row()["predictions"])
    assert warm.row()["metrics"] == cold.row()["metrics"]
    assert any(line.startswith("lemmas:") for line in cold_logs)
    assert any(line.startswith("dependency parses") for line in cold_logs)
    assert not any(line.startswith(("lemmas:", "dependency parses")) for line in warm_logs)
    assert "parse" not in warm.record["timings"]
    # A damaged entry is recomputed (with the lemmas and parses it needs), said, and rewritten.
    entry = sorted((tmp_path / "cache" / "values" / "alignment").iterdir())[0]
    entry.write_bytes(entry.read_bytes()[:-1])
    mended, logs = _run(snli_dir, capsys)
    assert mended.row()["predictions"] == cold.row()["predictions"]
    assert mended.record["value_cache"]["rejected"] == 1 and mended.record["value_cache"]["stored"] == 1
    assert any("1 damaged or stale entries ignored and rewritten" in line for line in logs)


def test_an_unwritable_cache_is_one_warning_and_the_run_goes_on(snli_dir, tmp_path, tiny_wordnet, monkeypatch,
                                                                 capsys):
    monkeypatch.setenv("NLTK_DATA", str(tiny_wordnet))
    blocked = tmp_path / "cache"
    blocked.mkdir()
    (blocked / "values").write_text("a file where the directory would go")
    monkeypatch.setenv("NLI_CACHE_DIR", str(blocked))
    monkeypatch.setattr(value_cache, "MIN_ROWS", 100)
    result, logs = _run(snli_dir, capsys)
    assert result.record["value_cache"]["stored"] == 0
    warnings = [line for line in logs if line.startswith("warning: feature values not kept on disk")]
    assert len(warnings) == 1 and str(blocked / "values") in warnings[0]


def test_small_training_splits_leave_no_entries(snli_dir, tmp_path, tiny_wordnet, monkeypatch, capsys):
    monkeypatch.setenv("NLTK_DATA", str(tiny_wordnet))
    monkeypatch.setenv("NLI_CACHE_DIR", str(tmp_path / "cache"))
    result, _ = _run(snli_dir, capsys)
    assert result.record["value_cache"] == {"used": False}
    assert not (tmp_path / "cache" / "values").exists()
