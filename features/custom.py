"""Custom feature types from plain per-pair functions: the easy road for labs and new tasks.

    from features import register_feature

    @register_feature("negation")
    def negation(pair):
        negs = {"not", "no", "nobody", "never", "n't"}
        return {"in_hypothesis": float(any(t.lower() in negs for t in pair.hypothesis_tokens))}

After this, `negation` works with `--features` and `--ablate` like a built-in type.
"""
from __future__ import annotations

from typing import Callable, Mapping

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from .base import FeatureType
from .encoding import EncodedPairs, check_pairs
from .pair import Pair

PairFunction = Callable[[Pair], Mapping[str, float]]


class FunctionFeature(FeatureType):
    """Wraps `function(pair) -> {name: value}`; names seen in training become columns `<name>:<key>`."""

    def __init__(self, *, function: PairFunction | None = None, name: str = "custom"):
        self.function = function
        self.name = name

    def _pairs(self, pairs):
        pairs = check_pairs(pairs)
        return pairs.pairs if isinstance(pairs, EncodedPairs) else pairs

    def fit_transform(self, pairs, y=None):
        rows = [dict(self.function(p)) for p in self._pairs(pairs)]
        self.columns_ = sorted({key for row in rows for key in row})
        self.index_ = {key: i for i, key in enumerate(self.columns_)}
        return self._matrix(rows)

    def fit(self, pairs, y=None):
        self.fit_transform(pairs)
        return self

    def transform(self, pairs):
        check_is_fitted(self, "columns_")
        return self._matrix([dict(self.function(p)) for p in self._pairs(pairs)])

    def _matrix(self, rows):
        indptr, indices, data = [0], [], []
        for row in rows:
            for key, value in row.items():
                col = self.index_.get(key)
                if col is not None and value:
                    indices.append(col)
                    data.append(float(value))
            indptr.append(len(indices))
        return sp.csr_matrix((np.asarray(data, dtype=np.float32), np.asarray(indices, dtype=np.int32),
                              np.asarray(indptr, dtype=np.int64)), shape=(len(rows), len(self.columns_)))

    @property
    def n_features_out_(self) -> int:
        return len(self.columns_)

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        check_is_fitted(self, "columns_")
        return np.array([f"{self.name}:{c}" for c in self.columns_], dtype=object)

    def feature_name(self, column: int) -> str:
        return f"{self.name}:{self.columns_[column]}"
