"""Exact int64 feature keys to dense column numbers.

numpy has no hash table, and which route is fastest depends on how repetitive the keys are:
duplicate-heavy keys (cross-unigrams, words) factorize faster through pandas' hash table,
nearly distinct keys (cross-bigram pairs) faster by numpy's SIMD sort, since a hash table of
millions of distinct entries is cache-bound (the README's Performance section has the
measurements). So `factorize` takes the route as a hint from the caller, who knows its keys.
A sample cannot tell: the distinct share of a sample overstates the population's. Column
order is deterministic for the same training data: key order on the sort route, first
appearance on the hash route.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

_SORTED_LOOKUP_MIN = 4_000_000


def factorize(keys: np.ndarray, mostly_distinct: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(codes, uniques) with keys == uniques[codes]; uniques sorted on the sort route.

    mostly_distinct: the caller expects few repeats; sorting is then faster than hashing.
    """
    keys = np.asarray(keys, dtype=np.int64)
    if len(keys) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    if mostly_distinct:
        perm = np.argsort(keys)
        ordered = keys[perm]
        new = np.empty(len(keys), dtype=bool)
        new[0] = True
        np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
        codes = np.empty(len(keys), dtype=np.int64)
        codes[perm] = np.cumsum(new) - 1
        return codes, ordered[new]
    codes, uniques = pd.factorize(keys, sort=False)
    return codes.astype(np.int64, copy=False), np.asarray(uniques, dtype=np.int64)


def factorize_objects(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(codes, uniques) of an object array (e.g. sentence strings, whose hashes Python caches)."""
    codes, uniques = pd.factorize(values, sort=False)
    return codes.astype(np.int64, copy=False), uniques


class KeyIndex:
    """Lookup of keys in a fixed key set; -1 for keys not in it. Pickles as the key array."""

    def __init__(self, keys: np.ndarray):
        self.keys = np.asarray(keys, dtype=np.int64)
        self._index = None
        self._sorted = bool(len(self.keys) < 2 or (self.keys[1:] > self.keys[:-1]).all())

    def __len__(self) -> int:
        return len(self.keys)

    def lookup(self, queries: np.ndarray) -> np.ndarray:
        queries = np.asarray(queries, dtype=np.int64)
        if len(self.keys) == 0 or len(queries) == 0:
            return np.full(len(queries), -1, dtype=np.int64)
        if self._sorted and len(self.keys) >= _SORTED_LOOKUP_MIN:
            # Binary search with sorted queries walks the key array in order: cache-friendly.
            perm = np.argsort(queries)
            ordered = queries[perm]
            pos = np.searchsorted(self.keys, ordered)
            pos[pos == len(self.keys)] = 0
            out = np.empty(len(queries), dtype=np.int64)
            out[perm] = np.where(self.keys[pos] == ordered, pos, -1)
            return out
        if self._index is None:
            self._index = pd.Index(self.keys)
        return self._index.get_indexer(queries).astype(np.int64, copy=False)

    def __getstate__(self):
        return {"keys": self.keys}

    def __setstate__(self, state):
        self.__init__(state["keys"])
