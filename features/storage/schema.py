"""Declared fitted state: what a saved model may hold, field by field, checked before use.

A `Schema` lists the fitted attributes an object keeps (its fields), each with its kind: a
bounded number, a choice among fixed strings, a list of texts, or a numeric array of a fixed
dtype whose shape is written in sizes (`("n_classes", "n_features")`). A size bound by the
loader (the featurizer's width, the label count) must match; any other size is bound by its
first use inside one object and must agree wherever else that object uses it. A schema's
`check` then ties fields to each other (a tree's node links, a layer's width), and only its
`build` makes the object, from code the loading process has: no class, method, path, worker
count or callable ever comes from the state.

Arrays travel apart from the rest: `dump` hands each array to a writer under a path name and
returns a tree of plain JSON values (holding `ARRAY` where an array is); `load` reads the tree and asks a reader for each array by
its path, with the dtype and shape it must have, so the reader can refuse before reading a byte.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

# A model of this suite at SNLI scale with every feature type has ~18M columns: 3 x 18M weights.
MAX_ELEMENTS = 1 << 28
MAX_TEXT = 10_000  # characters in one text (a label, a column name)
# Characters in one word of a vocabulary: as many as a sentence the readers take
# (`experiments.corpora.readers.common.MAX_SENTENCE_CHARS`), so that a vocabulary learnt from any
# file the suite reads can be saved (a 10,001-character token was learnt, saved, and refused on loading).
MAX_WORD = 100_000
MAX_TEXTS = 5_000_000  # texts in one list (a vocabulary)
MAX_ITEMS = 100_000  # parts in one list (trees of a forest, iterations of boosting)
# The declared range of every input column a saved estimator reads: a featurizer clips what it
# hands over to it (`features.base.DenseFeature`, `experiments.outputs.model_files.Predictor`), and
# each estimator kind bounds its weights so that any input within it gets finite scores
# (`models.sklearn_kinds`). This suite's features are counts, lengths, overlaps, scores and
# probabilities, and their scaled values stay far inside it.
INPUT_BOUND = 1e6
# The declared range of a real-valued feature type's raw values, centres, scales and bin edges
# (sentences are at most 100,000 characters: no count or length comes near it).
VALUE_BOUND = 1e12
ARRAY = "<array>"  # what the tree holds where an array is: the array itself is stored under the field's path


class StateError(ValueError):
    """State that does not match its schema; the message names the field and the reason."""


class NotRegisteredError(StateError):
    """State that needs code this process has not registered (a custom feature type, a model):
    not damage, but a missing --import."""


class Sizes:
    """Sizes shared by the fields of a load: bound ones (from the loader or a parent object) and
    those bound on first use within the current object."""

    def __init__(self, bound: Mapping[str, int] | None = None):
        self.values: dict[str, int] = dict(bound or {})

    def scope(self, **more: int) -> "Sizes":
        return Sizes({**self.values, **more})

    def bind(self, name: str, value: int, where: str) -> None:
        known = self.values.get(name)
        if known is None:
            self.values[name] = value
        elif known != value:
            raise StateError(f"{where}: {name} is {value:,} here but {known:,} elsewhere")

    def __getitem__(self, name: str) -> int:
        return self.values[name]

    def get(self, name: str, default=None):
        return self.values.get(name, default)


class Writer:
    """Collects the arrays of a dump under their path names."""

    def __init__(self):
        self.arrays: dict[str, np.ndarray] = {}

    def put(self, path: str, array: np.ndarray) -> None:
        if path in self.arrays:
            raise ValueError(f"two arrays under one name {path!r}")
        self.arrays[path] = np.ascontiguousarray(array)


class Reader:
    """Arrays by path name. `get(path, dtype, shape)` returns the array only if it has exactly that
    dtype and shape (checked before its bytes are read, where the source allows); `used` tracks
    which arrays some field asked for, so arrays nobody declared can be refused."""

    def __init__(self, arrays: Mapping[str, np.ndarray]):
        self.arrays = arrays
        self.used: set[str] = set()

    def header(self, path: str) -> tuple[np.dtype, tuple[int, ...]]:
        array = self.arrays.get(path)
        if array is None:
            raise StateError(f"{path}: missing array")
        return array.dtype, array.shape

    def read(self, path: str) -> np.ndarray:
        return self.arrays[path]

    def get(self, path: str, dtypes: tuple, shape: Callable[[tuple], None]) -> np.ndarray:
        found, dims = self.header(path)
        if np.dtype(found) not in dtypes:
            raise StateError(f"{path}: {np.dtype(found).name} values where "
                             f"{' or '.join(d.name for d in dtypes)} are declared")
        if math.prod(dims) > MAX_ELEMENTS:
            raise StateError(f"{path}: {math.prod(dims):,} values (at most {MAX_ELEMENTS:,})")
        shape(tuple(int(n) for n in dims))
        self.used.add(path)
        return self.read(path)


# ------------------------------------------------------------------ fields


class Field:
    """One declared attribute. `dump(value, writer, path)` -> JSON value; `load(raw, reader,
    path, sizes)` -> checked value."""

    optional = False

    def dump(self, value, writer: Writer, path: str):
        raise NotImplementedError

    def load(self, raw, reader: Reader, path: str, sizes: Sizes):
        raise NotImplementedError


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


@dataclass(frozen=True)
class Int(Field):
    lo: int = 0
    hi: int = (1 << 62)
    size: str | None = None  # bind this size to the value

    def dump(self, value, writer, path):
        return int(value)

    def load(self, raw, reader, path, sizes):
        if not _is_int(raw) or not self.lo <= raw <= self.hi:
            raise StateError(f"{path}: {_show(raw)} is not a whole number in [{self.lo:,}, {self.hi:,}]")
        if self.size:
            sizes.bind(self.size, int(raw), path)
        return int(raw)


@dataclass(frozen=True)
class Float(Field):
    lo: float = -math.inf
    hi: float = math.inf
    open_lo: bool = False  # lo itself excluded

    def dump(self, value, writer, path):
        return float(value)

    def load(self, raw, reader, path, sizes):
        if not isinstance(raw, (int, float)) or isinstance(raw, bool) or not math.isfinite(raw) or \
                not self.lo <= raw <= self.hi or (self.open_lo and raw == self.lo):
            raise StateError(f"{path}: {_show(raw)} is not a finite number in "
                             f"{'(' if self.open_lo else '['}{self.lo}, {self.hi}]")
        return float(raw)


@dataclass(frozen=True)
class Bool(Field):
    def dump(self, value, writer, path):
        return bool(value)

    def load(self, raw, reader, path, sizes):
        if not isinstance(raw, bool):
            raise StateError(f"{path}: {_show(raw)} is not true or false")
        return raw


@dataclass(frozen=True)
class Choice(Field):
    values: tuple

    def dump(self, value, writer, path):
        if value not in self.values:
            raise ValueError(f"{path}: {value!r} is not one of {self.values}")
        return value

    def load(self, raw, reader, path, sizes):
        if isinstance(raw, bool) or raw not in self.values or type(raw) not in {type(v) for v in self.values}:
            raise StateError(f"{path}: {_show(raw)} is not one of {', '.join(map(repr, self.values))}")
        return raw


@dataclass(frozen=True)
class Text(Field):
    max_len: int = MAX_TEXT

    def dump(self, value, writer, path):
        return str(value)

    def load(self, raw, reader, path, sizes):
        if not isinstance(raw, str) or len(raw) > self.max_len:
            raise StateError(f"{path}: {_show(raw)} is not a text of at most {self.max_len:,} characters")
        return raw


@dataclass(frozen=True)
class Texts(Field):
    """A list of texts. size: bind its length; unique: no text twice; among: a size name whose
    texts (`sizes.get(among)` must be a tuple of texts bound by the loader) are the only ones allowed."""

    size: str | None = None
    unique: bool = False
    max_len: int = MAX_TEXT
    among: str | None = None

    def dump(self, value, writer, path):
        return [str(v) for v in value]

    def load(self, raw, reader, path, sizes):
        if not isinstance(raw, list) or len(raw) > MAX_TEXTS:
            raise StateError(f"{path}: {_show(raw)} is not a list of at most {MAX_TEXTS:,} texts")
        for item in raw:
            if not isinstance(item, str) or len(item) > self.max_len:
                raise StateError(f"{path}: {_show(item)} is not a text of at most {self.max_len:,} characters")
        if self.unique and len(set(raw)) != len(raw):
            raise StateError(f"{path}: a text occurs twice")
        if self.among is not None:
            allowed = set(sizes.get(self.among) or ())
            stray = [item for item in raw if item not in allowed]
            if stray:
                raise StateError(f"{path}: {stray[0]!r} is not one of the model's labels")
        if self.size:
            sizes.bind(self.size, len(raw), path)
        return list(raw)


@dataclass(frozen=True)
class Optional(Field):
    """`inner`, or None."""

    inner: Field

    def dump(self, value, writer, path):
        return None if value is None else self.inner.dump(value, writer, path)

    def load(self, raw, reader, path, sizes):
        return None if raw is None else self.inner.load(raw, reader, path, sizes)


@dataclass(frozen=True)
class Array(Field):
    """A numeric array of exactly `dtype` (or one of a tuple of dtypes), of `shape` (whole
    numbers, size names, or "*" for any length).

    finite: no NaN or infinity (floats); lo, hi: bounds of every value; increasing: strictly
    increasing (1-d). On dump, an array of another dtype is converted to the first dtype
    (values that change are an error).
    """

    @property
    def dtypes(self) -> tuple:
        return tuple(np.dtype(d) for d in ((self.dtype,) if isinstance(self.dtype, str) else self.dtype))

    dtype: str | tuple
    shape: tuple
    finite: bool = True
    lo: float | None = None
    hi: float | None = None
    increasing: bool = False

    def dump(self, value, writer, path):
        value = np.asarray(value)
        if value.dtype not in self.dtypes:
            converted = value.astype(self.dtypes[0])
            if not np.array_equal(converted, value):
                raise ValueError(f"{path}: {value.dtype} values do not fit {self.dtypes[0]}")
            value = converted
        writer.put(path, value)
        return ARRAY

    def load(self, raw, reader, path, sizes):
        if raw != ARRAY:
            raise StateError(f"{path}: {_show(raw)} where an array is declared")
        def check_shape(found):
            if len(found) != len(self.shape):
                raise StateError(f"{path}: {len(found)} dimensions where {len(self.shape)} are declared")
            for n, want in zip(found, self.shape):
                if want == "*":  # any length (each array of a list its own)
                    continue
                if isinstance(want, int):
                    if n != want:
                        raise StateError(f"{path}: shape {found}, declared {self.shape}")
                else:
                    sizes.bind(want, n, path)
        array = reader.get(path, self.dtypes, check_shape)
        return _check_values(array, path, finite=self.finite, lo=self.lo, hi=self.hi, increasing=self.increasing)


def _check_values(array: np.ndarray, path: str, *, finite=True, lo=None, hi=None, increasing=False) -> np.ndarray:
    if array.size:
        if finite and array.dtype.kind == "f" and not np.isfinite(array).all():
            raise StateError(f"{path}: holds NaN or infinity")
        if lo is not None and array.min() < lo:
            raise StateError(f"{path}: holds {array.min()}, below {lo}")
        if hi is not None and array.max() > hi:
            raise StateError(f"{path}: holds {array.max()}, above {hi}")
        if increasing and array.ndim == 1 and len(array) > 1 and not (array[1:] > array[:-1]).all():
            raise StateError(f"{path}: not strictly increasing")
    return array


@dataclass(frozen=True)
class Many(Field):
    """A list of `item` (arrays, parts, numbers); size: bind its length."""

    item: Field
    size: str | None = None

    def dump(self, value, writer, path):
        return [self.item.dump(v, writer, f"{path}/{i}") for i, v in enumerate(value)]

    def load(self, raw, reader, path, sizes):
        if not isinstance(raw, list) or len(raw) > MAX_ITEMS:
            raise StateError(f"{path}: {_show(raw)} is not a list of at most {MAX_ITEMS:,} items")
        if self.size:
            sizes.bind(self.size, len(raw), path)
        return [self.item.load(v, reader, f"{path}/{i}", sizes) for i, v in enumerate(raw)]


@dataclass(frozen=True)
class Part(Field):
    """A nested object of its own schema, in a scope of its own (sizes it binds stay inside).

    free: sizes of the enclosing scope the part does not share (a model inside a model that
    reads other columns has an `n_features` of its own; the owner's check ties the two).
    bind: enclosing sizes -> sizes bound inside the part (its width, from fields read before it)."""

    schema: "Schema"
    free: tuple = ()
    bind: Callable[[Sizes], dict] | None = None

    def dump(self, value, writer, path):
        return self.schema.dump(value, writer, path)

    def load(self, raw, reader, path, sizes):
        inner = Sizes({k: v for k, v in sizes.values.items() if k not in self.free})
        if self.bind is not None:
            inner.values.update(self.bind(sizes))
        return self.schema.load(raw, reader, path, inner)


@dataclass(frozen=True)
class Mapping_(Field):
    """A dict of text keys (from `keys`, if given) to `value` fields."""

    value: Field
    keys: tuple | None = None

    def dump(self, value, writer, path):
        return {str(k): self.value.dump(v, writer, f"{path}/{k}") for k, v in value.items()}

    def load(self, raw, reader, path, sizes):
        if not isinstance(raw, dict) or len(raw) > MAX_ITEMS:
            raise StateError(f"{path}: {_show(raw)} is not a mapping")
        if self.keys is not None and set(raw) - set(self.keys):
            raise StateError(f"{path}: unknown key {sorted(set(raw) - set(self.keys))[0]!r}")
        return {k: self.value.load(v, reader, f"{path}/{k}", sizes) for k, v in raw.items()}


# ------------------------------------------------------------------ schemas


def _default_get(obj, name):
    return getattr(obj, name)


@dataclass(frozen=True)
class Schema:
    """The declared state of one kind of object.

    fields: attribute name -> Field; every one is saved and must be present when loaded.
    build: checked values (and the load's sizes) -> the object; the only place objects are made
        (None for a schema whose owner restores the values itself: `values`).
    get: how `dump` reads a field of an object (default: its attribute of that name).
    check: checked values, sizes -> None; ties fields to each other (raises StateError).
    """

    name: str
    fields: Mapping[str, Field]
    build: Callable[[dict, Sizes], Any] | None = None
    get: Callable[[Any, str], Any] = _default_get
    check: Callable[[dict, Sizes], None] | None = None

    def dump(self, obj, writer: Writer, path: str) -> dict:
        return {name: f.dump(self.get(obj, name), writer, f"{path}.{name}") for name, f in self.fields.items()}

    def load(self, raw, reader: Reader, path: str, sizes: Sizes):
        values = self.values(raw, reader, path, sizes)
        return self.build(values, sizes)

    def values(self, raw, reader: Reader, path: str, sizes: Sizes) -> dict:
        if not isinstance(raw, dict):
            raise StateError(f"{path}: {_show(raw)} where the state of a {self.name} is declared")
        extra = sorted(set(raw) - set(self.fields))
        if extra:
            raise StateError(f"{path}: {extra[0]!r} is not a declared field of a {self.name}")
        missing = [name for name in self.fields if name not in raw]
        if missing:
            raise StateError(f"{path}: the {self.name} lacks its field {missing[0]!r}")
        values = {name: f.load(raw[name], reader, f"{path}.{name}", sizes) for name, f in self.fields.items()}
        if self.check is not None:
            try:
                self.check(values, sizes)
            except StateError as exc:
                raise StateError(f"{path}: {exc}") from None
        return values


def require(condition, reason: str) -> None:
    """Raise StateError(reason) unless `condition`: the form of every cross-field check."""
    if not condition:
        raise StateError(reason)


def set_fitted(obj, values: Mapping[str, Any]):
    """`obj` with `values` set as its attributes (the usual `build` after a factory made it)."""
    for name, value in values.items():
        setattr(obj, name, value)
    return obj


def _show(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
