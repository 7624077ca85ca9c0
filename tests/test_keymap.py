"""Feature keys to columns: every factorize, lookup and column-fitting route agrees exactly."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

import nli_baselines.features.columns.keymap as keymap
from nli_baselines.features.columns.keymap import (BitSqueeze, KeyIndex, factorize, factorize_bounded,
                                                   indicator_columns, indicator_matrix, sort_with_order)


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


def test_fewer_queries_than_half_the_keys_take_the_search_without_building_a_hash_index():
    rng = np.random.default_rng(2)
    keys = np.unique(rng.integers(-10**12, 10**12, 2000))
    queries = np.concatenate([rng.choice(keys, 600), rng.integers(-10**13, 10**13, 300), [keys[-1] + 1]])
    index = KeyIndex(keys)
    position = {int(key): i for i, key in enumerate(keys)}
    assert index.lookup(queries).tolist() == [position.get(int(q), -1) for q in queries]
    assert index._index is None  # no pass over every key for a handful of queries
    assert index.lookup(np.repeat(keys, 2)).tolist() == list(np.repeat(np.arange(len(keys)), 2))  # many: the hash
    assert index._index is not None


def test_unsorted_keys_use_the_hash_route_and_pickle_as_keys(monkeypatch):
    monkeypatch.setattr(keymap, "_SORTED_LOOKUP_MIN", 0)
    index = KeyIndex(np.array([30, 10, 20]))
    assert not index._sorted
    assert index.lookup(np.array([20, 30, 5])).tolist() == [2, 0, -1]
    restored = pickle.loads(pickle.dumps(index))
    assert restored.lookup(np.array([10])).tolist() == [1] and set(restored.__getstate__()) == {"keys"}
    assert KeyIndex(np.zeros(0)).lookup(np.array([1, 2])).tolist() == [-1, -1]


def _brute_columns(rows, keys, min_count):
    """{key: sorted rows} of the keys present in at least `min_count` rows."""
    seen: dict[int, set] = {}
    for r, k in zip(rows.tolist(), keys.tolist()):
        seen.setdefault(k, set()).add(r)
    return {k: sorted(rs) for k, rs in seen.items() if len(rs) >= min_count}


# 63: packed as they are; narrower packing words force the other routes: 30 ranks the top bits of
# the sparse keys, 27 splits the dense ones into 8 parts, the rest hash.
@pytest.mark.parametrize("pack_bits", [63, 30, 27, 24, 20])
@pytest.mark.parametrize("min_count", [1, 2])
@pytest.mark.parametrize("sparse_left", [False, True])
def test_indicator_columns_every_route_equals_a_dict_build(monkeypatch, pack_bits, min_count, sparse_left):
    rng = np.random.default_rng(pack_bits + min_count)
    n = 3000
    left = rng.integers(0, 3000, n) * (16 if sparse_left else 1) + (15 if sparse_left else 0)
    keys = (left << 31) | rng.integers(0, 3000, n)
    rows = np.sort(rng.integers(0, 50, n)).astype(np.int32)
    monkeypatch.setattr(keymap, "_PACK_BITS", pack_bits)
    monkeypatch.setattr(keymap, "_BLOCK", 97)  # many blocks, some ending inside a run of one key
    cuts = [0, 5, 1000, 2500, n]  # given as chunks, which are consumed
    row_chunks = [rows[a:b] for a, b in zip(cuts, cuts[1:])]
    key_chunks = [keys[a:b].copy() for a, b in zip(cuts, cuts[1:])]
    matrix, columns = indicator_columns(row_chunks, key_chunks, 50, min_count)
    assert row_chunks == [] and key_chunks == []
    expected = _brute_columns(rows, keys, min_count)
    assert sorted(columns.tolist()) == sorted(expected)
    if pack_bits == 63:
        assert (np.diff(columns) > 0).all()  # key order on the sort route
    dense = matrix.toarray()
    assert matrix.dtype == np.float32 and set(np.unique(dense)) <= {0.0, 1.0} and matrix.has_sorted_indices
    for col, key in enumerate(columns.tolist()):
        assert np.flatnonzero(dense[:, col]).tolist() == expected[key]


def test_a_key_filling_blocks_at_the_top_of_the_int64_range_stays_one_column(monkeypatch):
    # key bits + row bits = 63: the end of the top key's run is 2**63, which is no int64
    monkeypatch.setattr(keymap, "_BLOCK", 1000)
    n, top = 2048, (1 << 52) - 1  # 2048 rows: 11 row bits
    rows = np.r_[0, np.arange(n)].astype(np.int32)
    keys = np.r_[0, np.full(n, top)].astype(np.int64)
    matrix, columns = indicator_columns(rows, keys, n, 1)
    assert columns.tolist() == [0, top]
    assert np.asarray(matrix.sum(axis=0)).ravel().tolist() == [1.0, n]


def test_indicator_columns_of_nothing_and_indicator_matrix_counts_once():
    matrix, columns = indicator_columns(np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int64), 4)
    assert matrix.shape == (4, 0) and len(columns) == 0
    m = indicator_matrix(np.array([0, 0, 2, 2, 2]), np.array([3, 3, 1, 0, 1]), 3, 5)
    assert m.toarray().tolist() == [[0, 0, 0, 1, 0], [0, 0, 0, 0, 0], [1, 1, 0, 0, 0]]


@pytest.mark.parametrize("bound", [None, 2 ** 40])  # packed with positions; too wide: argsort
def test_sort_with_order_is_a_stable_argsort(bound):
    keys = np.random.default_rng(3).integers(0, 40, 5000)
    ordered, order = sort_with_order(keys, bound)
    assert (order == np.argsort(keys, kind="stable")).all() and (ordered == keys[order]).all()
    codes, uniques = factorize_bounded(keys, 40)
    assert (uniques == np.unique(keys)).all() and (uniques[codes] == keys).all()


def test_bit_squeeze_round_trips_and_keeps_order():
    keys = np.array([(5 << 31) | 7, (1 << 31) | 9, 3, (1 << 62) | 2], dtype=np.int64)
    squeeze = BitSqueeze(int(np.bitwise_or.reduce(keys)))
    small = squeeze.apply(keys, np.empty_like(keys))
    assert squeeze.bits == 4 + 2 + 1 and small.max() < 2 ** squeeze.bits  # bits 0-3, 31, 33 and 62
    assert (squeeze.invert(small) == keys).all() and (np.argsort(small) == np.argsort(keys)).all()
