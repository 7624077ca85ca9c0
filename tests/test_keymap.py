"""Feature keys to columns: both factorize routes and both lookup routes agree exactly."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

import features.keymap as keymap
from features.keymap import KeyIndex, factorize


@pytest.mark.parametrize("mostly_distinct", [False, True])
def test_factorize_round_trips(mostly_distinct):
    keys = np.random.default_rng(0).integers(0, 50, 500).astype(np.int64) << 33
    codes, uniques = factorize(keys, mostly_distinct)
    assert (uniques[codes] == keys).all() and len(uniques) == len(set(keys.tolist()))
    if mostly_distinct:
        assert (np.diff(uniques) > 0).all()  # the sort route orders columns by key


def test_sorted_lookup_equals_hash_lookup(monkeypatch):
    rng = np.random.default_rng(1)
    keys = np.unique(rng.integers(-10**12, 10**12, 2000))
    queries = np.concatenate([rng.choice(keys, 3000), rng.integers(-10**13, 10**13, 1000), [keys[0], keys[-1]],
                              [keys[-1] + 1, keys[0] - 1]])
    rng.shuffle(queries)
    hashed = KeyIndex(keys).lookup(queries)
    monkeypatch.setattr(keymap, "_SORTED_LOOKUP_MIN", 0)  # force the binary-search route
    index = KeyIndex(keys)
    assert index._sorted
    searched = index.lookup(queries)
    assert (searched == hashed).all()
    found = searched >= 0
    assert (keys[searched[found]] == queries[found]).all() and not np.isin(queries[~found], keys).any()
    assert (index.lookup(np.array([keys[-1] + 1])) == -1).all()  # past the end: no match, no IndexError


def test_unsorted_keys_use_the_hash_route_and_pickle_as_keys(monkeypatch):
    monkeypatch.setattr(keymap, "_SORTED_LOOKUP_MIN", 0)
    index = KeyIndex(np.array([30, 10, 20]))
    assert not index._sorted
    assert index.lookup(np.array([20, 30, 5])).tolist() == [2, 0, -1]
    restored = pickle.loads(pickle.dumps(index))
    assert restored.lookup(np.array([10])).tolist() == [1] and set(restored.__getstate__()) == {"keys"}
    assert KeyIndex(np.zeros(0)).lookup(np.array([1, 2])).tolist() == [-1, -1]
