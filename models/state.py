"""How a fitted estimator is kept in a model file: its kind's declared state (`features.storage.schema`).

An `EstimatorKind` names the exact class it saves, the schema of the fitted attributes it
keeps, and `restore`, which sets checked values on an estimator the loading process built from
the registered model's factory. Only parameters that change what a fitted model predicts and
that tuning chose come from a file (`ModelSpec.hyperparameters`); worker counts, paths,
callables and method names always come from the factory.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import sklearn

from nli_baselines.features.storage.schema import Field, Schema, Sizes, StateError, Texts

# The scikit-learn releases a model file is tested with, from the first up to (not including) the
# second: CI writes a model of every kind under the lowest release pyproject.toml allows and reads
# it under the newest (tests/test_model_versions.py). Restoring the trees, boosting, networks and
# neighbours sets scikit-learn's private state, which a later release may lay out otherwise, so
# pyproject.toml allows exactly this range. A kind may need a later release (`EstimatorKind.sklearn`).
SKLEARN_TESTED = ("1.6", "1.10")


def release(version: str) -> tuple[int, int]:
    """(major, minor) of a version text ("1.9.1", "1.10.dev0", "1.6"); (0, 0) if it has none."""
    found = re.match(r"(\d+)\.(\d+)", version)
    return (int(found.group(1)), int(found.group(2))) if found else (0, 0)


@dataclass(frozen=True)
class EstimatorKind:
    """cls: the exact class saved (a subclass is another kind); schema: its fitted state;
    restore(estimator, values, sizes) -> the fitted estimator, from checked values;
    ready(estimator) -> None: raises ValueError (with the reason) if a fitted estimator cannot
    be kept as this kind (a KNN fitted with a tree index, a forest of categorical splits);
    sklearn: the scikit-learn releases whose models of this kind save and load (`SKLEARN_TESTED`,
    or a later first release for a kind an earlier scikit-learn cannot restore or predict)."""

    cls: type
    schema: Schema
    restore: Callable[[Any, dict, Sizes], Any]
    ready: Callable[[Any], None] = lambda estimator: None
    sklearn: tuple[str, str] = SKLEARN_TESTED

    @property
    def name(self) -> str:
        return self.cls.__name__

    def untested(self, version: str | None = None) -> str | None:
        """Why a model of this kind is neither saved nor loaded with scikit-learn `version` (the
        one running), or None when the version is one the kind is tested with."""
        version = sklearn.__version__ if version is None else version
        low, high = self.sklearn
        if release(low) <= release(version) < release(high):
            return None
        return (f"a {self.name} model is saved and loaded with scikit-learn {low} up to (not including) {high}, "
                f"the releases it is tested with; this is scikit-learn {version}")


class Classes(Texts):
    """`classes_`: distinct labels of the model's label set, sorted (scikit-learn's order), as an
    object array; binds n_classes."""

    def __init__(self):
        super().__init__(size="n_classes", unique=True, among="labels")

    def dump(self, value, writer, path):
        return [str(v) for v in value]

    def load(self, raw, reader, path, sizes):
        values = super().load(raw, reader, path, sizes)
        if values != sorted(values):
            raise StateError(f"{path}: the classes are not in sorted order")
        return np.array(values, dtype=object)


CLASSES: Field = Classes()
