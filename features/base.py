"""Base classes of the feature types: scikit-learn transformers from pairs to float32 CSR matrices.

`SparseIndicatorFeature` (an indicator column per key seen in training), `CrossFeature` (indicators
over tag-matched premise x hypothesis cells, as the cross types build them), `DenseFeature` (real
values, scaled and optionally binned), `WordNetFeature` (real values that read WordNet) and
`AlignedFeature` (real values over the word alignment of the hypothesis to the premise)."""
from __future__ import annotations

from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .columns.binning import bin_index, bin_names, fit_edges
from .columns.encoding import WORD_BITS, EncodedPairs, Encoder, check_pairs, tag_matched_cells, tag_matched_count
from .columns.keymap import KeyIndex, indicator_columns, indicator_matrix, packed_indicator_columns, row_bits
from .options import check_option
from .storage.schema import INPUT_BOUND, VALUE_BOUND
from .text.word_alignment import Aligned, aligned_batch
from .text.wordnet_data import wordnet_identity
from .text.wordnet_relations import WordNetRelations


class FeatureType(TransformerMixin, BaseEstimator):
    """A named feature type. Accepts a sequence of annotated pairs, or an `EncodedPairs` batch
    made by a shared `Encoder` (what `PairFeaturizer` passes, so pairs are encoded once)."""

    name: ClassVar[str] = ""
    # Whether the type reads the premise: a single-sentence task (CoLA, SST-2) has none, and its runs
    # leave such types out. A new type reads it unless it says otherwise.
    reads_premise: ClassVar[bool] = True

    def _batch(self, pairs, fit: bool) -> EncodedPairs:
        pairs = check_pairs(pairs)
        if isinstance(pairs, EncodedPairs):
            if pairs.encoder.lowercase != self.lowercase:
                raise ValueError(f"{self.name}: batch encoded with lowercase={pairs.encoder.lowercase}, "
                                 f"but this feature type has lowercase={self.lowercase}")
            if fit:
                self.encoder_ = pairs.encoder
            elif pairs.encoder is not self._fitted_encoder():
                raise ValueError(f"{self.name}: batch was encoded by a different encoder than the fitted one")
            return pairs
        if fit:
            self.encoder_ = Encoder(lowercase=self.lowercase)
            return self.encoder_.fit_encode(pairs)
        return self._fitted_encoder().encode(pairs)

    def _fitted_encoder(self) -> Encoder:
        check_is_fitted(self, "encoder_")
        return self.encoder_

    def fit(self, pairs, y=None):
        self.fit_transform(pairs, y)
        return self

    def raw_value(self, column: int, value: float) -> float | None:
        """A column's value as the feature computed it (before any scaling); None for an indicator,
        whose name says it all."""
        return float(value)

    def real_valued_mask(self) -> np.ndarray:
        """bool per output column: whether it holds a real value (rather than a 0/1 indicator)."""
        return np.zeros(self.n_features_out_, dtype=bool)

    def data_identity(self) -> dict:
        """Parameter -> what the data it names is now (files, sizes, times), for parameters that name
        data on disk; kept values are keyed by it, so a new copy of the data is a new key."""
        return {}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.string = True
        return tags


class SparseIndicatorFeature(FeatureType):
    """Indicator features named by exact int64 keys; keys seen in training become columns."""

    def _keys(self, batch: EncodedPairs) -> tuple[np.ndarray | list, np.ndarray | list]:
        """(row, key) for every feature occurrence in the batch (duplicates allowed; keys >= 0),
        as arrays or as lists of chunks (which spares a concatenated copy)."""
        raise NotImplementedError

    def _packed_keys(self, batch: EncodedPairs, row_bits: int):
        """Optional, for fitting: (chunks of compact key << row_bits | row, decode) where the type
        can pack its keys more tightly than `_keys` (saving memory and a pass), decode mapping
        compact keys to `_keys`' keys; None where it cannot."""
        return None

    def _key_name(self, key: int) -> str:
        raise NotImplementedError

    def _keys_valid(self, keys: np.ndarray) -> bool:
        """Whether every key (int64, >= 0) names only words and bigrams of the fitted encoder:
        what a model file's keys must pass before `_key_name` may decode them."""
        raise NotImplementedError

    def fit_transform(self, pairs, y=None):
        batch = self._batch(pairs, fit=True)
        # Keep features present in at least `min_count` training pairs: one-off cross-bigrams
        # cannot generalize, and at SNLI scale they are most of the columns.
        min_count = getattr(self, "min_count", 1)
        packed = self._packed_keys(batch, row_bits(len(batch)))
        if packed is not None:
            chunks, decode = packed
            matrix, compact = packed_indicator_columns(chunks, len(batch), min_count)
            column_keys = decode(compact)
        else:
            rows, keys = self._keys(batch)
            matrix, column_keys = indicator_columns(rows, keys, len(batch), min_count)
        self.keys_ = KeyIndex(column_keys)
        return matrix

    def transform(self, pairs):
        batch = self._batch(pairs, fit=False)
        rows, keys = map(_joined, self._keys(batch))
        cols = self.keys_.lookup(keys)
        del keys
        seen = cols >= 0  # features never seen in training are ignored
        return indicator_matrix(rows[seen], cols[seen], len(batch), len(self.keys_))

    @property
    def n_features_out_(self) -> int:
        return len(self.keys_)

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        check_is_fitted(self, "keys_")
        return np.array([f"{self.name}:{self._key_name(int(k))}" for k in self.keys_.keys], dtype=object)

    def feature_name(self, column: int) -> str:
        return f"{self.name}:{self._key_name(int(self.keys_.keys[column]))}"

    def raw_value(self, column: int, value: float) -> None:
        return None  # an indicator

    def _word(self, ident: int) -> str:
        return self.encoder_.words_[ident]


class CrossFeature(SparseIndicatorFeature):
    """What cross_unigrams and cross_bigrams share: parameters, and keys over the tag-matched
    premise x hypothesis cells (visited chunk by chunk to bound memory)."""

    pairwise: ClassVar[bool] = True  # premise x hypothesis: sentences at most MAX_PAIRWISE_TOKENS long
    # Whether fitting leaves out hypothesis tokens whose word or bigram occurs fewer than
    # min_count times among the hypotheses (`_valid`): worth counting where many do, as bigrams.
    prune_rare: ClassVar[bool] = False

    def __init__(self, *, lowercase: bool = True, tag_match: str = "exact", min_count: int = 1):
        self.lowercase = lowercase
        self.tag_match = tag_match
        self.min_count = min_count

    def _sides(self, batch):
        """(batch view, premise side, hypothesis side, premise tags, hypothesis tags) to cross."""
        raise NotImplementedError

    def _keys(self, batch):
        return self._cross_keys(*self._sides(batch))

    def _packed_keys(self, batch, row_bits: int):
        # Premise ids are renumbered densely among those present (for cross-bigrams, the premises
        # hold a fraction of the corpus' bigrams), hypothesis ids kept: rank(left) << right_bits |
        # right, packed with the row, is then 63 bits or less at SNLI scale (exact keys plus
        # rows take 64), and each cell is 8 bytes instead of 12.
        view, p, h, p_tags, h_tags = self._sides(batch)
        p_valid, h_valid = _valid(p), _valid(h, self.min_count if self.prune_rare else 1)
        present = np.zeros(int(p.ids.max(initial=-1)) + 1, dtype=bool)
        present[p.ids if p_valid is None else p.ids[p_valid]] = True
        lefts = np.flatnonzero(present)
        rank = present.astype(np.int64)
        np.cumsum(rank, out=rank)
        rank -= 1
        right_bits = max(int(h.ids.max(initial=0)).bit_length(), 1)
        if max(len(lefts) - 1, 1).bit_length() + right_bits + row_bits > 63:
            return None
        # Counted first, so that the cells are written straight into the one array that is sorted.
        ranges = list(view.row_chunks())
        packed = np.empty(sum(tag_matched_count(p, h, p_tags, h_tags, start, stop, p_valid, h_valid)
                              for start, stop in ranges), dtype=np.int64)
        at = 0
        for start, stop in ranges:
            cells = tag_matched_cells(p, h, p_tags, h_tags, start, stop, p_valid, h_valid)
            # Each cell's packed value is (its premise token's part) | (its hypothesis token's
            # part): both are made per token, and only the two expansions are as long as the cells.
            high = rank[p.ids[cells.a_order]]
            high <<= right_bits + row_bits
            high |= cells.a_rows
            low = h.ids[cells.b_order].astype(np.int64)
            low <<= row_bits
            out = packed[at:at + len(cells)]
            low.take(cells.b_local(), out=out, mode="clip")  # "clip": unbuffered; the indices are in range
            out |= np.repeat(high, cells.reps)
            at += len(out)

        def decode(compact: np.ndarray) -> np.ndarray:
            return (lefts[compact >> right_bits] << WORD_BITS) | (compact & ((1 << right_bits) - 1))
        return [packed], decode

    @staticmethod
    def _cross_keys(view, p, h, p_tags, h_tags):
        """(row, left id << 31 | right id) for every tag-matched cell, as lists of chunks; ids < 0
        (unseen) are skipped."""
        rows_out, keys_out = [], []
        p_valid, h_valid = _valid(p), _valid(h)
        for start, stop in view.row_chunks():
            cells = tag_matched_cells(p, h, p_tags, h_tags, start, stop, p_valid, h_valid)
            rows_out.append(np.repeat(cells.a_rows.astype(np.int32), cells.reps))
            left = p.ids[cells.a_order].astype(np.int64)
            left <<= WORD_BITS
            keys = np.repeat(left, cells.reps)
            keys |= h.ids[cells.b_order][cells.b_local()]
            keys_out.append(keys)
        return rows_out, keys_out


def _valid(side, min_count: int = 1) -> np.ndarray | None:
    """Which tokens have an id (unseen bigrams have -1) and, with min_count > 1, one that occurs
    at least min_count times on this side; None when all do.

    A key seen in fewer than min_count rows is dropped, and no key can be seen in more rows than
    either of its words or bigrams: tokens of rarer ones need not be crossed at all (at SNLI
    scale, half of the hypothesis bigrams, and three fifths of the cross-bigram cells)."""
    valid = side.ids >= 0
    if min_count > 1:
        ids = side.ids if valid.all() else np.where(valid, side.ids, 0)
        frequent = np.bincount(ids, weights=None if ids is side.ids else valid) >= min_count
        valid &= frequent[ids]  # a table of bools: small enough to stay in cache while looked up
    return None if valid.all() else valid


def _scaled(values: np.ndarray, center: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """(values - center) / scale within INPUT_BOUND: the declared range of every column a model reads.

    A model file's centres and scales are checked to lie within VALUE_BOUND (scales above 0), but a
    tiny scale still sends ordinary values far out (1e-36 makes a length difference of 3 a 3e36):
    clipping, not the check alone, keeps every input finite and inside the range the estimator's
    weights were bounded for. Values a run fits on lie far inside it, and NaN cannot arise: raw
    values are clipped to VALUE_BOUND first, so the difference is finite and the scale positive.
    """
    raw = np.clip(values, -VALUE_BOUND, VALUE_BOUND)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        scaled = (raw - center) / scale
    return np.clip(scaled, -INPUT_BOUND, INPUT_BOUND, out=scaled)


def _joined(parts) -> np.ndarray:
    if not isinstance(parts, list):
        return parts
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


class DenseFeature(FeatureType):
    """A few real-valued columns per pair, optionally scaled with statistics of the training pairs,
    and optionally followed by discretized copies (`features.columns.binning`).

    scale: "none", "standard" (zero mean, unit variance) or "maxabs" (divide by the largest |value|).
    bins: 0 for no binned copies, else at most this many indicator columns per real-valued column
        (quantile bins fitted on the training pairs).
    bin_integers: for columns that only take whole numbers (`integer_columns`): "values" gives
        every value seen in training its own bin (when there are at most `bins`), "quantiles"
        bins them like the real values.
    """

    columns: ClassVar[tuple[str, ...]] = ()
    integer_columns: ClassVar[tuple[str, ...]] = ()
    # Whether the values are worth keeping on disk between runs (`features.storage.value_cache`): costly,
    # and a function of the pairs, their lemmas and parses, and the type's parameters alone.
    cache_values: ClassVar[bool] = False

    def __init__(self, *, lowercase: bool = True, scale: str = "standard", bins: int = 0,
                 bin_integers: str = "values"):
        self.lowercase = lowercase
        self.scale = scale
        self.bins = bins
        self.bin_integers = bin_integers

    def _values(self, batch: EncodedPairs) -> np.ndarray:
        """float64 array (n_pairs, len(columns))."""
        raise NotImplementedError

    def fit_transform(self, pairs, y=None):
        check_option("scale", self.scale)
        check_option("bins", self.bins)
        check_option("bin_integers", self.bin_integers)
        values = self._values_of(self._batch(pairs, fit=True))
        self.center_ = np.zeros(values.shape[1])
        self.scale_ = np.ones(values.shape[1])
        if self.scale == "standard" and len(values):
            self.center_ = values.mean(axis=0)
            std = values.std(axis=0)
            self.scale_ = np.where(std > 0, std, 1.0)
        elif self.scale == "maxabs" and len(values):
            peak = np.abs(values).max(axis=0)
            self.scale_ = np.where(peak > 0, peak, 1.0)
        self.bin_edges_ = [fit_edges(values[:, j], self.bins, column in self.integer_columns, self.bin_integers)
                           for j, column in enumerate(self.columns)]
        return self._matrix(values)

    def transform(self, pairs):
        return self._matrix(self._values_of(self._batch(pairs, fit=False)))

    def _values_of(self, batch: EncodedPairs) -> np.ndarray:
        """`_values`, or the values a run kept on disk for these very pairs (`features.storage.value_cache`)."""
        found = batch.value_cache if self.cache_values else None
        if found is None:
            return self._values(batch)
        cache, digest = found
        values = cache.get(self, digest, len(batch))
        if values is None:
            values = self._values(batch)
            cache.put(self, digest, values)
        return values

    def raw_values(self, pairs) -> np.ndarray:
        """Unscaled values (for inspection and tests)."""
        fit = not hasattr(self, "encoder_")
        return self._values(self._batch(pairs, fit=fit))

    def raw_value(self, column: int, value: float) -> float | None:
        """One column's value before scaling; None for a binned copy (an indicator)."""
        check_is_fitted(self, "scale_")
        if column < len(self.columns):
            raw = float(value) * float(self.scale_[column]) + float(self.center_[column])
            return float(round(raw)) if abs(raw - round(raw)) < 1e-4 else raw  # float32 storage blurs integers
        return None  # a binned copy: an indicator

    def _matrix(self, values):
        """The scaled values (zeros left out, as a sparse matrix from a dense one leaves them),
        then one indicator per binned column: that column's offset + its bin. Built as CSR
        directly: each row holds its values, then its indicators."""
        n, m = values.shape
        binned = [j for j, edges in enumerate(self.bin_edges_) if len(edges)]
        offsets = m + np.cumsum([0] + [len(self.bin_edges_[j]) + 1 for j in binned])
        data = np.ones((n, m + len(binned)), dtype=np.float32)
        data[:, :m] = _scaled(values, self.center_, self.scale_)
        indices = np.empty((n, m + len(binned)), dtype=np.int32)
        indices[:, :m] = np.arange(m)
        for i, j in enumerate(binned):
            indices[:, m + i] = offsets[i] + bin_index(values[:, j], self.bin_edges_[j])
        kept = data[:, :m] != 0
        counts = np.full(n, len(binned), dtype=np.int64)
        counts += kept.sum(axis=1)
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(counts, out=indptr[1:])
        if kept.all():
            data, indices = data.ravel(), indices.ravel()
        else:
            keep = np.ones(data.shape, dtype=bool)
            keep[:, :m] = kept
            data, indices = data[keep], indices[keep]
        return sp.csr_matrix((data, indices, indptr), shape=(n, int(offsets[-1])))

    def _names(self) -> list[str]:
        names = [f"{self.name}:{c}" for c in self.columns]
        for column, edges in zip(self.columns, self.bin_edges_):
            if len(edges):
                # A one-column type is named by itself: `length_diff:bin=-3..-2`.
                prefix = self.name if len(self.columns) == 1 else f"{self.name}:{column}"
                names += [f"{prefix}:{b}" for b in bin_names(edges, column in self.integer_columns)]
        return names

    @property
    def n_features_out_(self) -> int:
        return len(self.columns) + sum(len(e) + 1 for e in self.bin_edges_ if len(e))

    def real_valued_mask(self) -> np.ndarray:
        """The (scaled) value columns come first; their binned copies are indicators."""
        check_is_fitted(self, "scale_")
        mask = np.zeros(self.n_features_out_, dtype=bool)
        mask[:len(self.columns)] = True
        return mask

    def get_feature_names_out(self, input_features=None) -> np.ndarray:
        check_is_fitted(self, "scale_")
        return np.array(self._names(), dtype=object)

    def feature_name(self, column: int) -> str:
        return self._names()[column]


class WordNetFeature(DenseFeature):
    """A real-valued feature type that reads WordNet: `relations_` (a WordNetRelations) is made at
    fit, from `wordnet_dir` or wherever NLTK finds WordNet, never from a file."""

    wordnet_dir = None

    def _batch(self, pairs, fit: bool):
        if fit:  # every fitting route comes through here (fit_transform, raw_values on an unfitted type)
            self.relations_ = self._new_relations()
            if getattr(pairs, "value_cache", None) is None:  # values from disk need no WordNet (~3 s to load)
                self.relations_.reader  # noqa: B018 - missing WordNet fails here, not on the first content word
        return super()._batch(pairs, fit)

    def data_identity(self) -> dict:
        return {"wordnet_dir": wordnet_identity(self.wordnet_dir)}

    def _new_relations(self) -> WordNetRelations:
        """The relations this type reads (also what a loaded model file gets: WordNet from this
        process's own NLTK path, never from a file)."""
        return WordNetRelations(data_dir=self.wordnet_dir)


class AlignedFeature(WordNetFeature):
    """A real-valued feature type computed from the batch's alignment (`aligned_batch`): reads
    lemmas and dependency parses (`features.text.parsing`, computed and cached on first use) and
    WordNet (missing WordNet raises features.text.wordnet_data.WordNetMissingError at fit).

    wordnet_dir: an NLTK data directory holding corpora/wordnet; None: wherever NLTK finds it.
    lowercase: the shared encoder's setting; the alignment always compares lowercased words.
    scale, bins, bin_integers: as for every real-valued type (`features.base.DenseFeature`).
    Fitted: `relations_`, a WordNetRelations whose cache of lemma pairs grows with use.
    """

    needs_lemmas: ClassVar[bool] = True
    cache_values: ClassVar[bool] = True  # seconds per 10,000 pairs at SNLI scale, with lemmas to make
    needs_parses: ClassVar[bool] = True
    pairwise: ClassVar[bool] = True  # aligns every hypothesis content word against the premise's

    def __init__(self, *, lowercase: bool = True, scale: str = "standard", bins: int = 0,
                 bin_integers: str = "values", wordnet_dir=None):
        self.lowercase = lowercase
        self.scale = scale
        self.bins = bins
        self.bin_integers = bin_integers
        self.wordnet_dir = wordnet_dir

    def _aligned(self, batch) -> Aligned:
        check_is_fitted(self, "relations_")
        return aligned_batch(batch, self.relations_, self.name)
