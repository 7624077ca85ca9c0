"""`PairFeaturizer`: the selected feature types stacked into one float32 CSR matrix with named columns."""
from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .encoding import Encoder, check_pairs
from .registry import build, resolve


class PairFeaturizer(TransformerMixin, BaseEstimator):
    """Encode pairs once and stack the selected feature types, in registry order.

    features: a group (`lexicalized`, `unigrams_only`, `unlexicalized`, `hypothesis_only`), a type
        name, or a comma-separated list or sequence of them.
    ablate: type or group names removed from `features` (ablation is configuration, not a code path).
    lowercase: compare and name words in lowercase.
    tag_match: what "share a POS tag" compares in cross features: "exact" PTB tags or "first_letter".
    scale: scaling of the real-valued types (bleu, length_diff, overlap): "none", "standard", "maxabs".
    bleu_smoothing: sacrebleu smoothing method of the `bleu` type.
    n_jobs: threads building feature types concurrently (-1: one per core). The work is numpy on
        large arrays, which releases the GIL, so threads use both cores without copying data.

    Defaults were chosen on dev data with logistic regression (see README, "Choosing the defaults"):
    lowercase=True, tag_match="first_letter", scale="standard", bleu_smoothing="exp".
    """

    def __init__(self, *, features="lexicalized", ablate=(), lowercase: bool = True,
                 tag_match: str = "first_letter", scale: str = "standard", bleu_smoothing: str = "exp",
                 n_jobs: int = -1):
        self.features = features
        self.ablate = ablate
        self.lowercase = lowercase
        self.tag_match = tag_match
        self.scale = scale
        self.bleu_smoothing = bleu_smoothing
        self.n_jobs = n_jobs

    @property
    def feature_types(self) -> list[str]:
        return resolve(self.features, list(self.ablate or ()))

    def _params(self) -> dict:
        return {"lowercase": self.lowercase, "tag_match": self.tag_match, "scale": self.scale,
                "smoothing": self.bleu_smoothing}

    def fit(self, pairs, y=None):
        self.fit_transform(pairs, y)
        return self

    def fit_transform(self, pairs, y=None):
        names = self.feature_types
        pairs = check_pairs(pairs)
        self.timings_ = {}
        started = time.perf_counter()
        self.encoder_ = Encoder(lowercase=self.lowercase)
        batch = self.encoder_.fit_encode(pairs)
        self.timings_["encode"] = time.perf_counter() - started
        self.types_ = {name: build(name, **self._params()) for name in names}
        _warm(batch, names)

        def fit_one(name):
            started = time.perf_counter()
            block = self.types_[name].fit_transform(batch)
            return block, time.perf_counter() - started

        results = self._map(fit_one, names)
        self.timings_.update({name: seconds for name, (_, seconds) in zip(names, results)})
        blocks = [block for block, _ in results]
        self._index_columns(blocks)
        return _stack(blocks, len(pairs))

    def transform(self, pairs):
        check_is_fitted(self, "types_")
        batch = self.encoder_.encode(check_pairs(pairs))
        _warm(batch, list(self.types_))
        return _stack(self._map(lambda name: self.types_[name].transform(batch), list(self.types_)), len(batch))

    def _map(self, function, names):
        threads = os.cpu_count() or 1 if self.n_jobs in (-1, None) else max(1, int(self.n_jobs))
        if threads == 1 or len(names) == 1:
            return [function(name) for name in names]
        # Slowest types first, so that the pool does not end waiting on one long task.
        order = sorted(range(len(names)), key=lambda i: _COST.get(names[i], 0), reverse=True)
        with ThreadPoolExecutor(min(threads, len(names))) as pool:
            done = dict(zip(order, pool.map(function, [names[i] for i in order])))
        return [done[i] for i in range(len(names))]

    def _index_columns(self, blocks) -> None:
        self.slices_ = {}
        start = 0
        for name, block in zip(self.types_, blocks):
            self.slices_[name] = slice(start, start + block.shape[1])
            start += block.shape[1]
        self.n_features_out_ = start

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


# Relative cost of each built-in type at SNLI scale (benchmark), for scheduling only.
_COST = {"cross_unigrams": 5, "bleu": 4, "cross_bigrams": 4, "hyp_ngrams": 2, "overlap": 1, "length_diff": 0}


def _warm(batch, names) -> None:
    """Fill the batch's shared caches before threads read them."""
    if "bleu" in names or "overlap" in names:
        batch.word_matches("premise", "hypothesis")
    if "bleu" in names:
        batch.repeats("hypothesis")


def _stack(blocks, n_rows: int) -> sp.csr_matrix:
    if not blocks:
        return sp.csr_matrix((n_rows, 0), dtype=np.float32)
    matrix = sp.hstack(blocks, format="csr", dtype=np.float32)
    if matrix.nnz < 2 ** 31:  # liblinear rejects 64-bit sparse indices
        matrix.indices = matrix.indices.astype(np.int32, copy=False)
        matrix.indptr = matrix.indptr.astype(np.int32, copy=False)
    return matrix
