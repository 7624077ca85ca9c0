"""How a fitted estimator is kept in a model file: its kind's declared state (`features.storage.schema`).

An `EstimatorKind` names the exact class it saves, the schema of the fitted attributes it
keeps, and `restore`, which sets checked values on an estimator the loading process built from
the registered model's factory. Only parameters that change what a fitted model predicts and
that tuning chose come from a file (`ModelSpec.hyperparameters`); worker counts, paths,
callables and method names always come from the factory.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from nli_baselines.features.storage.schema import Field, Schema, Sizes, StateError, Texts


@dataclass(frozen=True)
class EstimatorKind:
    """cls: the exact class saved (a subclass is another kind); schema: its fitted state;
    restore(estimator, values, sizes) -> the fitted estimator, from checked values;
    ready(estimator) -> None: raises ValueError (with the reason) if a fitted estimator cannot
    be kept as this kind (a KNN fitted with a tree index, a forest of categorical splits)."""

    cls: type
    schema: Schema
    restore: Callable[[Any, dict, Sizes], Any]
    ready: Callable[[Any], None] = lambda estimator: None

    @property
    def name(self) -> str:
        return self.cls.__name__


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
