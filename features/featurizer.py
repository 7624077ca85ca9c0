"""`PairFeaturizer`: the selected feature types stacked into one float32 CSR matrix with named columns."""
from __future__ import annotations

import contextlib
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .columns.encoding import EncodedPairs, Encoder, pair_list
from .options import DEFAULTS, OPTIONS
from .pair import MAX_PAIRWISE_TOKENS, PairTooLongError, describe_too_long
from .registry import build, custom_functions, pairwise_types, register_feature, resolve, types_need_lemmas
from .runtime.progress import ProgressSwitch, bar
from .storage import value_cache


class PairFeaturizer(TransformerMixin, BaseEstimator):
    """Encode pairs once and stack the selected feature types, in registry order.

    features: a group (`lexicalized`, `unigrams_only`, `unlexicalized`, `hypothesis_only`), a type
        name, or a comma-separated list or sequence of them.
    ablate: type or group names removed from `features` (ablation is configuration, not a code path).
    lowercase, tag_match, scale, bleu_smoothing, min_count, bins, bin_integers: the open choices
        of the features, declared (with their allowed values) in `features.options`; the
        defaults were chosen on dev data (docs/features.md, "Choosing the defaults").
    n_jobs: threads building feature types concurrently (-1: one per core). The work is numpy on
        large arrays, which releases the GIL, so threads use both cores without copying data.
    """

    def __init__(self, *, features="lexicalized", ablate=(), lowercase: bool = DEFAULTS["lowercase"],
                 tag_match: str = DEFAULTS["tag_match"], scale: str = DEFAULTS["scale"],
                 bleu_smoothing: str = DEFAULTS["bleu_smoothing"], min_count: int = DEFAULTS["min_count"],
                 bins: int = DEFAULTS["bins"], bin_integers: str = DEFAULTS["bin_integers"], n_jobs: int = -1):
        self.features = features
        self.ablate = ablate
        self.lowercase = lowercase
        self.tag_match = tag_match
        self.scale = scale
        self.bleu_smoothing = bleu_smoothing
        self.min_count = min_count
        self.bins = bins
        self.bin_integers = bin_integers
        self.n_jobs = n_jobs

    @property
    def feature_types(self) -> list[str]:
        return resolve(self.features, list(self.ablate or ()))

    @property
    def needs_lemmas(self) -> bool:
        """Whether a selected type reads lemmas (annotate pairs with `lemmas=True`)."""
        return types_need_lemmas(self.feature_types)

    # A custom feature type lives in this process's registry. Pickled (for joblib or Dask workers,
    # GridSearchCV, a notebook's process pool), the featurizer carries the functions of the custom
    # types it uses and registers them where it lands, so workers need no registry of their own.
    def __getstate__(self):
        state = super().__getstate__()
        try:
            carried = custom_functions(self.feature_types)
        except ValueError:  # unknown names: fit will say so
            carried = {}
        if carried:
            state["_carried_functions"] = carried
        return state

    def __setstate__(self, state):
        for name, function in state.pop("_carried_functions", {}).items():
            register_feature(name, function)
        super().__setstate__(state)

    def options(self) -> dict:
        """The featurizer's options (`features.options`), checked."""
        values = {name: getattr(self, name) for name in OPTIONS}
        for name, value in values.items():
            OPTIONS[name].check(value)
        return values

    def fit(self, pairs, y=None):
        self.fit_transform(pairs, y)
        return self

    @property
    def pairwise_types(self) -> list[str]:
        """The selected types that visit every premise token against every hypothesis token."""
        return pairwise_types(self.feature_types)

    def _encode(self, encoder: Encoder, pairs, fit: bool) -> EncodedPairs:
        """Encode `pairs`; refuse sentences too long for the selected pairwise types
        (`features.pair.too_long`, read from the encoded lengths instead of a pass over the pairs)."""
        batch = encoder.fit_encode(pairs) if fit else encoder.encode(pairs)
        types = self.pairwise_types
        if types and not isinstance(pairs, EncodedPairs):
            long = np.flatnonzero((batch.premise.lengths > MAX_PAIRWISE_TOKENS)
                                  | (batch.hypothesis.lengths > MAX_PAIRWISE_TOKENS))
            if len(long):
                raise PairTooLongError(describe_too_long(pairs[long[0]], types)
                                       + (f" ({len(long)} such pairs)" if len(long) > 1 else ""))
        return batch

    def fit_transform(self, pairs, y=None):
        names = self.feature_types
        options = self.options()
        # The input contract (`check_pairs`): a list of Pairs here, annotated ones checked by the
        # encoder, which reads every pair's tags anyway and fails before anything is fitted.
        kept = value_cache.lookup(pairs)  # by identity: before the list is copied
        pairs = pair_list(pairs)
        started = time.perf_counter()
        encoder = Encoder(lowercase=self.lowercase)
        batch = self._encode(encoder, pairs, fit=True)  # before any fitted attribute changes
        batch.value_cache = kept
        self.timings_ = {"encode": time.perf_counter() - started}
        self.encoder_ = encoder
        self.types_ = {name: build(name, options) for name in names}
        blocks = self._blocks(batch, fit=True)
        del batch  # its arrays are freed before stacking
        self._index_columns(blocks)
        started = time.perf_counter()
        matrix = _stack(blocks, len(pairs))
        self.timings_["stack"] = time.perf_counter() - started
        return matrix

    def transform(self, pairs):
        check_is_fitted(self, "types_")
        kept = value_cache.lookup(pairs)
        pairs = pair_list(pairs)  # annotated: checked by the encoder, as in fit_transform
        batch = self._encode(self.encoder_, pairs, fit=False)
        batch.value_cache = kept
        blocks = self._blocks(batch, fit=False)
        del batch  # its arrays are freed before stacking
        return _stack(blocks, len(pairs))

    def _blocks(self, batch: EncodedPairs, fit: bool) -> list:
        """Build every type's block of the encoded batch (fitting them when `fit`)."""

        def one(name):
            began = time.perf_counter()
            feature = self.types_[name]
            block = feature.fit_transform(batch) if fit else feature.transform(batch)
            return block, time.perf_counter() - began

        names = list(self.types_)
        with _types_bar(len(names), len(batch)) as advance:
            results = self._map(lambda name: advance(name, one(name)), names)
        if fit:
            self.timings_.update({name: seconds for name, (_, seconds) in zip(names, results)})
        return [block for block, _ in results]

    def _map(self, function, names):
        threads = (os.cpu_count() or 1) if self.n_jobs in (-1, None) else max(1, int(self.n_jobs))
        if threads == 1 or len(names) == 1:
            return [function(name) for name in names]
        lanes = _lanes(names, threads)
        with ThreadPoolExecutor(len(lanes)) as pool:
            finished = pool.map(lambda lane: [(name, function(name)) for name in lane], lanes)
            done = dict(item for lane in finished for item in lane)
        return [done[name] for name in names]

    def _index_columns(self, blocks) -> None:
        self.slices_ = {}
        start = 0
        for name, block in zip(self.types_, blocks):
            self.slices_[name] = slice(start, start + block.shape[1])
            start += block.shape[1]
        self.n_features_out_ = start

    def columns_for(self, types) -> np.ndarray:
        """Column indices of the given feature types (names or groups), in column order: what
        a model restricted to those types reads. Unknown or unfitted types are a ValueError."""
        check_is_fitted(self, "types_")
        wanted = resolve(types) if len(types) else []
        missing = [t for t in wanted if t not in self.slices_]
        if missing:
            raise ValueError(f"feature type(s) {', '.join(missing)} are not in this featurizer "
                             f"({', '.join(self.slices_)})")
        spans = [self.slices_[t] for t in self.slices_ if t in wanted]
        return np.concatenate([np.arange(s.start, s.stop) for s in spans]) if spans else np.zeros(0, dtype=np.int64)

    def raw_value(self, column: int, value: float) -> float | None:
        """A column's value as the feature computed it, before scaling; None for an indicator."""
        check_is_fitted(self, "types_")
        for name, cols in self.slices_.items():
            if cols.start <= column < cols.stop:
                return self.types_[name].raw_value(column - cols.start, value)
        raise IndexError(f"column {column} out of range (0..{self.n_features_out_ - 1})")

    def provenance(self) -> dict:
        """What each fitted type records about its own configuration, by type (bleu: its sacrebleu
        signature), so that a number can be reproduced."""
        check_is_fitted(self, "types_")
        return {name: feature.provenance() for name, feature in self.types_.items() if hasattr(feature, "provenance")}

    def real_valued_mask(self) -> np.ndarray:
        """bool per column: a real value (a dense type's value columns), not a 0/1 indicator (what
        models that treat the two apart read, e.g. `models.stacked`)."""
        check_is_fitted(self, "types_")
        parts = [feature.real_valued_mask() for feature in self.types_.values()]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=bool)

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        check_is_fitted(self, "types_")
        parts = [feature.get_feature_names_out() for feature in self.types_.values()]
        return np.concatenate(parts) if parts else np.array([], dtype=object)

    def feature_name(self, column: int) -> str:
        """The readable name of one column, without building every name."""
        check_is_fitted(self, "types_")
        for name, cols in self.slices_.items():
            if cols.start <= column < cols.stop:
                return self.types_[name].feature_name(column - cols.start)
        raise IndexError(f"column {column} out of range (0..{self.n_features_out_ - 1})")


_BAR_FROM_PAIRS = 50_000  # smaller batches take seconds: no bar
featurize_progress = ProgressSwitch(
    "Within the block, featurizing a large batch shows a bar that advances as each type is done.")


@contextlib.contextmanager
def _types_bar(n_types: int, n_pairs: int):
    """A function (type name, result) -> result that advances the bar, if one is shown."""
    if not featurize_progress.shown or n_pairs < _BAR_FROM_PAIRS:
        yield lambda name, result: result
        return
    lock = threading.Lock()
    with bar(total=n_types, desc=f"featurizing {n_pairs} pairs", unit="type") as shown:
        def advance(name, result):
            with lock:
                shown.set_postfix_str(f"{name} done", refresh=False)
                shown.update()
            return result
        yield advance


# Seconds per type after encoding at SNLI scale (benchmark), for scheduling only; bleu includes
# the word matches it shares with overlap (it runs first and computes them). The cross types
# hold the most memory (~0.2-0.3 GB each at SNLI scale), mostly at their end (sorting keys,
# building the matrix).
_COST = {"cross_unigrams": 0.95, "bleu": 0.8, "cross_bigrams": 0.7, "hyp_ngrams": 0.35, "prem_ngrams": 1.0,
         "overlap": 0.3,
         "length_diff": 0.03, "wordnet": 1.7, "negation": 0.5,  # wordnet: SICK cycled to 550,152 pairs
         # The alignment types (SICK cycled, parses warm): the first of them to run builds the
         # batch's shared alignment (most of alignment's figure), the others wait for it.
         "alignment": 7.0, "syntax": 4.0, "quantifiers": 2.5}
_HEAVY = ("cross_unigrams", "cross_bigrams")


def _lanes(names, threads: int) -> list[list[str]]:
    """Split types into at most `threads` sequential lanes. The memory-heavy types share the first
    lane, one after the other, so that their peaks never meet (together they take about as long
    as all the others); the rest go longest first onto the least loaded lane."""
    lanes: list[list[str]] = [[] for _ in range(min(threads, len(names)))]
    load = [0.0] * len(lanes)
    heavy = [n for n in names if n in _HEAVY]
    if len(lanes) == 1 or len(heavy) == len(names):
        heavy = []  # nothing to run beside them: spread them like the others
    for name in sorted(heavy, key=lambda n: -_COST.get(n, 1.0)):
        lanes[0].append(name)
        load[0] += _COST.get(name, 1.0)
    for name in sorted((n for n in names if n not in heavy), key=lambda n: -_COST.get(n, 1.0)):
        i = min(range(len(lanes)), key=load.__getitem__)
        lanes[i].append(name)
        load[i] += _COST.get(name, 1.0)
    return [lane for lane in lanes if lane]


_STACK_ROWS = 1 << 16  # rows stacked at once: the scatter's temporaries stay small and are reused


def _stack(blocks, n_rows: int) -> sp.csr_matrix:
    """The blocks side by side, as one float32 CSR matrix (int32 indices where they fit: liblinear
    rejects 64-bit sparse indices).

    What `sp.hstack(blocks, format="csr")` gives, written straight into the result a slice of rows
    at a time: hstack first copies the blocks into concatenated arrays as long as the result, and
    touching that much fresh memory (page faults) costs more than the copying itself.
    """
    if not blocks:
        return sp.csr_matrix((n_rows, 0), dtype=np.float32)
    if not all(isinstance(b, sp.csr_matrix) and b.shape[0] == n_rows for b in blocks):
        matrix = sp.hstack(blocks, format="csr", dtype=np.float32)  # converts, or says what does not fit
        if matrix.nnz < 2 ** 31:
            matrix.indices = matrix.indices.astype(np.int32, copy=False)
            matrix.indptr = matrix.indptr.astype(np.int32, copy=False)
        return matrix
    nnz = sum(b.nnz for b in blocks)
    starts = np.cumsum([0] + [b.shape[1] for b in blocks])  # each block's first column
    index = np.int32 if max(nnz, starts[-1]) < 2 ** 31 else np.int64
    indptr = np.zeros(n_rows + 1, dtype=np.int64)
    for b in blocks:
        indptr[1:] += np.diff(b.indptr)
    np.cumsum(indptr, out=indptr)
    indices = np.empty(nnz, dtype=index)
    data = np.empty(nnz, dtype=np.float32)
    for r0 in range(0, n_rows, _STACK_ROWS):
        r1 = min(r0 + _STACK_ROWS, n_rows)
        lo, hi = indptr[r0], indptr[r1]
        out_indices, out_data = indices[lo:hi], data[lo:hi]
        free = indptr[r0:r1] - lo  # where each row's next entries go, in this slice
        for b, first in zip(blocks, starts):
            b_ptr = b.indptr[r0:r1 + 1]
            b_lo, b_hi = int(b_ptr[0]), int(b_ptr[-1])
            counts = np.diff(b_ptr)
            to = np.repeat(free - (b_ptr[:-1] - b_lo), counts)
            to += np.arange(b_hi - b_lo)
            out_indices[to] = np.add(b.indices[b_lo:b_hi], first, dtype=index)
            out_data[to] = b.data[b_lo:b_hi]
            free += counts
    if index is np.int32:
        indptr = indptr.astype(np.int32)
    return sp.csr_matrix((data, indices, indptr), shape=(n_rows, int(starts[-1])))
