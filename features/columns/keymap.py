"""Exact int64 feature keys to dense column numbers, and the sorts behind them.

numpy has no hash table, but its sort of int64 is SIMD-vectorized and far faster than anything
else it offers on millions of keys: faster than pandas' hash table (which is cache-bound once
millions of distinct keys are in it) and several times faster than `np.argsort`. So most work
here is one `np.sort` of keys *packed* with what must travel with them (a row number, or the
position that makes the sort an argsort), after squeezing out the bit positions no key uses so
that both fit in 63 bits (docs/performance.md has the measurements). Where they
cannot fit (vocabularies far beyond any NLI corpus), the same results come from pandas' hash
table or a stable argsort.

Column order is deterministic for the same training data: key order on the sort routes, first
appearance on the hash route.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import scipy.sparse as sp

_SORTED_LOOKUP_MIN = 4_000_000
_PACK_BITS = 63  # packed values stay non-negative int64
_BLOCK = 1 << 20  # entries per step where a step's temporaries would otherwise be as long as the input
_RANK_BITS = 24  # `_rank_top` keeps a table of 2**bits entries


def _bits(bound: int) -> int:
    """Bits needed for the numbers 0 .. bound - 1 (at least 1)."""
    return max(int(bound - 1).bit_length(), 1)


def sort_with_order(keys: np.ndarray, bound: int | None = None,
                    overwrite: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(sorted keys, order) with sorted keys == keys[order], order stable (ties keep their order).

    keys: non-negative int64, all < `bound` (default: their maximum + 1).
    overwrite: `keys` may be overwritten (and becomes the sorted keys): one array less.
    """
    keys = np.asarray(keys, dtype=np.int64)
    n = len(keys)
    if n == 0:
        return keys.copy(), np.zeros(0, dtype=np.int64)
    bound = int(keys.max()) + 1 if bound is None else bound
    position_bits = _bits(n)
    if _bits(bound) + position_bits > _PACK_BITS:
        order = np.argsort(keys, kind="stable")
        return keys[order], order
    # Sorting (key, position) packed into one int64 is an argsort that ties break by position.
    if overwrite and keys.dtype == np.int64:
        packed = keys
        packed <<= position_bits
    else:
        packed = keys << position_bits
    packed |= np.arange(n, dtype=np.int64)
    packed.sort()
    order = packed & ((1 << position_bits) - 1)
    packed >>= position_bits
    return packed, order


def factorize(keys: np.ndarray, mostly_distinct: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(codes, uniques) with keys == uniques[codes]; uniques sorted on the sort route.

    mostly_distinct: the caller expects few repeats; sorting is then faster than hashing.
    """
    keys = np.asarray(keys, dtype=np.int64)
    if len(keys) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    if mostly_distinct and keys.min() >= 0:
        return _codes_of_sorted(list(sort_with_order(keys)))
    if mostly_distinct:
        order = np.argsort(keys, kind="stable")
        return _codes_of_sorted([keys[order], order])
    codes, uniques = pd.factorize(keys, sort=False)
    return codes.astype(np.int64, copy=False), np.asarray(uniques, dtype=np.int64)


def factorize_bounded(keys: np.ndarray, bound: int, overwrite: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """`factorize` by sorting for non-negative keys < `bound`: (codes, sorted uniques).

    overwrite: `keys` may be overwritten.
    """
    keys = np.asarray(keys, dtype=np.int64)
    if len(keys) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    ordered, order = sort_with_order(keys, bound, overwrite)
    del keys
    return _codes_of_sorted([ordered, order])


def _codes_of_sorted(sorted_and_order: list) -> tuple[np.ndarray, np.ndarray]:
    """(codes, uniques) from [keys sorted by the permutation `order`, order] (the list is emptied,
    so that the sorted keys are freed early)."""
    ordered, order = sorted_and_order
    sorted_and_order.clear()
    new = np.empty(len(ordered), dtype=bool)
    new[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    uniques = ordered[new]
    del ordered
    codes_sorted = new.astype(np.int64)
    del new
    np.cumsum(codes_sorted, out=codes_sorted)  # in place: no second array as long as the keys
    codes_sorted -= 1
    code_bits = _bits(len(uniques))
    position_bits = _bits(len(order))
    if code_bits + position_bits > _PACK_BITS:
        codes = np.empty(len(order), dtype=np.int64)
        codes[order] = codes_sorted
        return codes, uniques
    # Back to input order by sorting (position, code) packed: a scatter through `order` would
    # jump around memory and costs several times more than this sort.
    packed = order
    del order
    packed <<= code_bits
    packed |= codes_sorted
    del codes_sorted
    packed.sort()
    packed &= (1 << code_bits) - 1
    return packed, uniques


class BitSqueeze:
    """Drops the bit positions that no key uses: an exact, order-preserving renumbering of
    non-negative keys onto small numbers. A cross key `left << 31 | right` of two word ids below
    2**16 becomes a 32-bit number, which leaves room to pack a row number beside it.

    used: the bitwise OR of all the keys.
    """

    def __init__(self, used: int):
        self.runs = []  # (first bit, length) of each run of used bit positions, lowest first
        bit = 0
        while used >> bit:
            if (used >> bit) & 1:
                length = ((used >> bit) ^ ((used >> bit) + 1)).bit_length() - 1  # trailing ones
                self.runs.append((bit, length))
                bit += length
            else:
                bit += 1
        self.bits = sum(length for _, length in self.runs)  # squeezed keys are < 2**bits

    def apply(self, keys: np.ndarray, out: np.ndarray) -> np.ndarray:
        """Write the squeezed `keys` into `out` (int64, same length)."""
        out[:] = 0
        part = np.empty_like(out)
        position = 0
        for first, length in self.runs:
            np.right_shift(keys, first, out=part)
            part &= (1 << length) - 1
            part <<= position
            out |= part
            position += length
        return out

    def invert(self, small: np.ndarray) -> np.ndarray:
        small = np.asarray(small, dtype=np.int64)
        keys = np.zeros(len(small), dtype=np.int64)
        position = 0
        for first, length in self.runs:
            keys |= ((small >> position) & ((1 << length) - 1)) << first
            position += length
        return keys


def _parts(values) -> list[np.ndarray]:
    return values if isinstance(values, list) else [values]


def indicator_columns(rows, keys, n_rows: int, min_count: int = 1) -> tuple[sp.csr_matrix, np.ndarray]:
    """Fit columns to feature occurrences: (float32 CSR indicator matrix, column keys).

    rows, keys: one entry per occurrence of feature `keys[i]` (int64, >= 0) in row `rows[i]`;
        duplicates are fine (an indicator is 1 however often its feature occurs in the row).
        Either arrays, or lists of arrays (chunks): these lists are emptied as they are read,
        so that chunks are freed while the packed copy fills.
    min_count: keep only keys present in at least this many rows.
    Columns follow key order (first appearance where keys need the hash route).

    One sort of (key, row) packed into an int64 does everything at once: equal neighbours are
    repeats within a row, a run of one key is that column's rows in order (a CSC matrix, its
    length the key's row count for `min_count`), and CSC to CSR is one linear pass. Keys too
    wide to share 63 bits with the row have the values of their top bits renumbered densely
    (`_TopRank`), and if that is not enough, are split by their top bits into a few parts
    (each a range of keys, so the parts' columns simply follow each other).
    """
    rows, keys = _parts(rows), _parts(keys)
    total = sum(map(len, keys))
    if total == 0:
        return sp.csr_matrix((n_rows, 0), dtype=np.float32), np.zeros(0, dtype=np.int64)
    row_bits = _bits(n_rows)
    squeeze = BitSqueeze(int(np.bitwise_or.reduce([int(np.bitwise_or.reduce(k)) for k in keys if len(k)])))
    key_bits, rank, uniques = squeeze.bits, None, None
    if key_bits + row_bits > _PACK_BITS and len(squeeze.runs) > 1 and squeeze.runs[-1][1] <= _RANK_BITS:
        rank = _TopRank(keys, squeeze)
        if rank.key_bits < key_bits:
            key_bits = rank.key_bits
        else:
            rank = None
    if key_bits + row_bits <= _PACK_BITS:
        # The usual route: each chunk squeezed and packed with its rows in place, and freed.
        packed = np.empty(total, dtype=np.int64)
        at = 0
        for i in range(len(keys)):
            out = packed[at:at + len(keys[i])]
            squeeze.apply(keys[i], out)
            if rank is not None:
                rank.apply(out)
            out <<= row_bits
            out |= rows[i]
            at += len(out)
            keys[i] = rows[i] = None
        keys.clear()
        rows.clear()
        pending = [(packed, None, 0)]
        del packed, out
    else:
        if key_bits + row_bits > _PACK_BITS + 4:  # more than 16 parts: number the keys by hashing
            small, uniques = factorize(np.concatenate(keys))
            key_bits = _bits(len(uniques))
        else:
            small = np.empty(total, dtype=np.int64)
            at = 0
            for i, chunk in enumerate(keys):
                squeeze.apply(chunk, small[at:at + len(chunk)])
                if rank is not None:
                    rank.apply(small[at:at + len(chunk)])
                at += len(chunk)
                keys[i] = None
            del chunk
        keys.clear()
        rows_all = rows[0] if len(rows) == 1 else np.concatenate(rows)
        rows.clear()
        split = max(key_bits + row_bits - _PACK_BITS, 0)
        low_bits = key_bits - split
        pending = []
        for part in range(1 << split):
            lowest = part << low_bits
            take = small >= lowest
            take &= small < lowest + (1 << low_bits)
            pending.append((small[take] - lowest, rows_all[take], lowest))
            del take
        del small, rows_all
    matrix, column_keys = _assemble(pending, row_bits, n_rows, min_count)
    if uniques is not None:
        return matrix, uniques[column_keys]
    return matrix, squeeze.invert(rank.invert(column_keys) if rank is not None else column_keys)


def packed_indicator_columns(packed: list, n_rows: int, min_count: int = 1) -> tuple[sp.csr_matrix, np.ndarray]:
    """`indicator_columns` of occurrences already packed by the caller as key << row_bits | row,
    row_bits = `row_bits(n_rows)`, in a list of chunks (emptied as they are read; a single
    chunk is sorted in place). Returns the matrix and the keys of its columns, ascending."""
    total = sum(map(len, packed))
    if total == 0:
        return sp.csr_matrix((n_rows, 0), dtype=np.float32), np.zeros(0, dtype=np.int64)
    if len(packed) == 1:
        return _assemble([(np.asarray(packed.pop(), dtype=np.int64), None, 0)], _bits(n_rows), n_rows, min_count)
    joined = np.empty(total, dtype=np.int64)
    at = 0
    for i in range(len(packed)):
        joined[at:at + len(packed[i])] = packed[i]
        at += len(packed[i])
        packed[i] = None
    packed.clear()
    return _assemble([(joined, None, 0)], _bits(n_rows), n_rows, min_count)


def row_bits(n_rows: int) -> int:
    """Bits of the row number in packed (key, row) values."""
    return _bits(n_rows)


def _assemble(pending: list, row_bits: int, n_rows: int, min_count: int) -> tuple[sp.csr_matrix, np.ndarray]:
    """The CSR matrix and column keys of the parts in `pending` (see `_columns`), in key order."""
    pending.reverse()
    counts, column_keys, indices = [], [], []
    while pending:
        part_counts, part_columns, part_indices = _columns(pending, row_bits, min_count)
        counts.append(part_counts)
        column_keys.append(part_columns)
        indices.append(part_indices)
    counts = np.concatenate(counts)
    indices = indices[0] if len(indices) == 1 else np.concatenate(indices)
    indptr = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    by_column = sp.csc_matrix((np.ones(len(indices), dtype=np.float32), indices, indptr),
                              shape=(n_rows, len(counts)))
    del indices
    return by_column.tocsr(), np.concatenate(column_keys)


class _TopRank:
    """Renumbers the values of the keys' highest run of used bits by their rank among the values
    present: an order-preserving map onto fewer bits where few of the possible values occur (the
    top bits of a cross-bigram key are the premise's bigram id, and premises hold a fraction of
    the corpus' bigrams).

    chunks: the keys (lists of arrays); squeeze: their BitSqueeze.
    """

    def __init__(self, chunks: list, squeeze: BitSqueeze):
        first, length = squeeze.runs[-1]
        present = np.zeros(1 << length, dtype=bool)
        for chunk in chunks:
            for lo in range(0, len(chunk), _BLOCK):
                present[chunk[lo:lo + _BLOCK] >> first] = True
        self.values = np.flatnonzero(present)
        self.shift = squeeze.bits - length  # where the run sits in squeezed keys
        self.key_bits = _bits(len(self.values)) + self.shift
        self.ranks = (np.cumsum(present, dtype=np.int64) - 1).astype(np.int32)

    def apply(self, small: np.ndarray) -> None:
        """Renumber squeezed keys in place."""
        low = (1 << self.shift) - 1
        for lo in range(0, len(small), _BLOCK):
            block = small[lo:lo + _BLOCK]
            high = self.ranks[block >> self.shift].astype(np.int64)
            high <<= self.shift
            block &= low
            block |= high

    def invert(self, ranked: np.ndarray) -> np.ndarray:
        return (self.values[ranked >> self.shift] << self.shift) | (ranked & ((1 << self.shift) - 1))


def _columns(pending: list, row_bits: int, min_count: int):
    """(rows per kept key, kept keys ascending, their rows key by key as int32) of the part
    `pending.pop()`: the occurrences (keys[i] + lowest, rows[i]) as (keys, rows, lowest), with
    keys < 2**(63 - row_bits), or (keys << row_bits | rows, None, lowest) already packed.
    Popped here, so that its arrays are freed once sorted.

    After the sort, runs of keys are read a block at a time: cross-bigram keys are nearly all
    distinct, so arrays with one entry per key would be almost as long as the packed one."""
    keys, rows, lowest = pending.pop()
    packed = keys
    del keys
    if rows is not None:  # else already packed
        packed <<= row_bits
        packed |= rows
    del rows
    packed.sort()
    counts, column_keys, indices = [], [], []
    lo, n = 0, len(packed)
    while lo < n:
        hi = min(lo + _BLOCK, n)
        if hi < n:  # end the block where a key starts
            key_start = (int(packed[hi]) >> row_bits) << row_bits
            hi = int(np.searchsorted(packed, key_start))
            if hi <= lo:  # one key fills the block: end after it
                # its last possible entry, side='right': key_start + (1 << row_bits) can be 2**63,
                # which is no int64 (numpy would compare it as a float)
                hi = int(np.searchsorted(packed, np.int64(key_start | ((1 << row_bits) - 1)), side="right"))
        block_counts, block_keys, block_indices = _key_runs(packed[lo:hi], row_bits, min_count)
        counts.append(block_counts)
        column_keys.append(block_keys + lowest)
        indices.append(block_indices)
        lo = hi
    del packed
    if not counts:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32)
    return np.concatenate(counts), np.concatenate(column_keys), np.concatenate(indices)


def _key_runs(block: np.ndarray, row_bits: int, min_count: int):
    """`_columns` of a sorted block of packed (key, row) holding whole runs of keys."""
    distinct = np.empty(len(block), dtype=bool)  # first of its (key, row)
    distinct[0] = True
    np.not_equal(block[1:], block[:-1], out=distinct[1:])
    if not distinct.all():
        block = block[distinct]
    keys = block >> row_bits
    new_key = np.empty(len(block), dtype=bool)
    new_key[0] = True
    np.not_equal(keys[1:], keys[:-1], out=new_key[1:])
    starts = np.flatnonzero(new_key)
    counts = np.diff(starts, append=len(block))  # rows per key
    keys = keys[starts]
    if min_count > 1:
        keep = counts >= min_count
        block = block[np.repeat(keep, counts)]
        counts, keys = counts[keep], keys[keep]
    # The row is in the low bits: and-ing after an int32 cast keeps it, in one pass (rows < 2**31).
    return counts, keys, np.bitwise_and(block, (1 << row_bits) - 1, dtype=np.int32)


def indicator_matrix(rows: np.ndarray, columns: np.ndarray, n_rows: int, n_columns: int) -> sp.csr_matrix:
    """float32 CSR indicator matrix of (row, column) occurrences; duplicates count once."""
    column_bits = _bits(n_columns)
    packed = np.asarray(rows, dtype=np.int64) << column_bits  # rows and columns < 2**31: fits
    packed |= columns
    packed.sort()
    if len(packed) > 1:
        packed = packed[np.concatenate([[True], packed[1:] != packed[:-1]])]
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(packed >> column_bits, minlength=n_rows), out=indptr[1:])
    indices = (packed & ((1 << column_bits) - 1)).astype(np.int32)
    return sp.csr_matrix((np.ones(len(indices), dtype=np.float32), indices, indptr), shape=(n_rows, n_columns))


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
        # A hash index costs a pass over every key to build (0.16 s for 3M keys), binary search
        # a few steps per query: fewer queries than half the keys (a dev split looked up in the
        # training split's bigrams: 100,000 in 3M, 0.011 s) take the search, unless the index is built.
        few = self._index is None and 2 * len(queries) <= len(self.keys)
        if self._sorted and (len(self.keys) >= _SORTED_LOOKUP_MIN or few):
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
