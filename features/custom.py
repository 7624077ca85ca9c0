"""Custom feature types from plain per-pair functions: the easy road for labs and new tasks.

    from nli_baselines.features import register_feature

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
from .columns.encoding import EncodedPairs, check_pairs
from .pair import Pair

PairFunction = Callable[[Pair], Mapping[str, float]]
FLOAT32_MAX = float(np.finfo(np.float32).max)


class CustomFeatureError(ValueError):
    """A custom feature function that raised, or returned something other than names with real
    numbers; the message names the feature, the pair and the value."""


class FunctionFeature(FeatureType):
    """Wraps `function(pair) -> {name: value}`; names seen in training become columns `<name>:<key>`."""

    reads_premise = False  # the function gets the pair as it is: an empty premise, on a single-sentence task

    def __init__(self, *, function: PairFunction | None = None, name: str = "custom"):
        self.function = function
        self.name = name

    def _pairs(self, pairs):
        pairs = check_pairs(pairs)
        return pairs.pairs if isinstance(pairs, EncodedPairs) else pairs

    def _rows(self, pairs) -> list[dict]:
        """The function's values for every pair, each checked: a mapping of text to real numbers
        that fit the matrix (float32)."""
        rows = []
        for pair in self._pairs(pairs):
            try:
                row = self.function(pair)
            except Exception as exc:  # the user's code: say whose and where
                raise CustomFeatureError(f"custom feature {self.name!r} raised {type(exc).__name__} on pair "
                                         f"{pair.id!r}: {exc}") from exc
            if not isinstance(row, Mapping):
                raise CustomFeatureError(f"custom feature {self.name!r} returned {type(row).__name__} {row!r:.60} for "
                                         f"pair {pair.id!r}; it must return a dict of name -> number")
            for key, value in row.items():
                if not isinstance(key, str):
                    raise CustomFeatureError(f"custom feature {self.name!r} returned the name {key!r} for pair "
                                             f"{pair.id!r}; names must be text")
                if isinstance(value, (bool, np.bool_)):
                    continue
                if not isinstance(value, (int, float, np.integer, np.floating)) or \
                        not np.isfinite(value) or abs(float(value)) > FLOAT32_MAX:
                    raise CustomFeatureError(f"custom feature {self.name!r} returned {key!r}: {value!r:.60} for pair "
                                             f"{pair.id!r}; values must be finite real numbers (at most "
                                             f"{FLOAT32_MAX:.3g} in size)")
            rows.append(row)
        return rows

    def fit_transform(self, pairs, y=None):
        rows = self._rows(pairs)
        self.columns_ = sorted({key for row in rows for key in row})
        self.index_ = {key: i for i, key in enumerate(self.columns_)}
        return self._matrix(rows)

    def fit(self, pairs, y=None):
        self.fit_transform(pairs)
        return self

    def transform(self, pairs):
        check_is_fitted(self, "columns_")
        return self._matrix(self._rows(pairs))

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
