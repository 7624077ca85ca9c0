"""Real-valued feature values kept on disk, so that a run over pairs it has seen skips the costly
types (wordnet, alignment, syntax, quantifiers) and the lemmas and dependency parses only they
read: what makes a second `--features strongest` run at SNLI scale "warm".

Only the engine turns it on (`use`), for the splits of a run: what their values depend on is the
pairs (`pairs_digest`), the type's parameters, and the lemmatizer, parser and WordNet that fill in
what the pairs lack, named in the key by their versions and this package's source. A pair list
the engine did not hand over never reaches the cache.

An entry is untrusted data: it is read only into an array whose shape the run expects (its size
is checked against the file's before a byte is read), and used only if its header names the very
key asked for, it is signed under this user's cache key (`features.storage.cache_key`: a plain
checksum anyone who can write a shared cache could forge) and every value is finite and within
VALUE_BOUND, the declared range of a real-valued type's values. Anything else is a miss: the
values are computed again, the entry rewritten, and the rejection counted (`ValueCache.rejected`).
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import pickle
import struct
import threading
from importlib import metadata
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np

from .annotation_cache import default_cache_dir
from .atomic import atomic_open
from .cache_key import sign, signed
from .schema import VALUE_BOUND

MAGIC = b"NLI-VALUES-2\n"
# sha256 of the key, rows, columns, then the HMAC (`cache_key.sign`) of those three and the values
# (float64, row-major), which follow
_HEADER = struct.Struct("<32sQQ32s")
# Below this many pairs the values cost less than the disk: tests and small corpora leave no entries.
MIN_ROWS = 10_000
# Parameters a real-valued type applies after its values (`features.base.DenseFeature._matrix`):
# they never change what is cached.
_AFTER_VALUES = ("scale", "bins", "bin_integers")
_DIGEST_CHUNK = 20_000


def pairs_digest(pairs: Sequence) -> str:
    """blake2b of what a pair's values can depend on: both texts, tokens, tags, lemmas where the
    pairs have them (where not, spaCy's lemmatizer, named in the key, gives them) and the corpus'
    trees. Pickled without a memo, so equal pairs give equal bytes however their tuples are shared."""
    digest = hashlib.blake2b(digest_size=32)
    digest.update(str(len(pairs)).encode())
    for start in range(0, len(pairs), _DIGEST_CHUNK):
        buffer = io.BytesIO()
        pickler = pickle.Pickler(buffer, protocol=5)
        pickler.fast = True
        pickler.dump([(p.premise, p.hypothesis, p.premise_tokens, p.premise_tags, p.hypothesis_tokens,
                       p.hypothesis_tags, p.premise_lemmas, p.hypothesis_lemmas, p.premise_tree, p.hypothesis_tree)
                      for p in pairs[start:start + _DIGEST_CHUNK]])
        digest.update(buffer.getbuffer())
    return digest.hexdigest()


_FINGERPRINT: dict = {}


def _fingerprint() -> dict:
    """What the values may depend on besides the pairs and the type's parameters: this package's
    source, and the versions of the libraries and models that lemmatize and parse."""
    if not _FINGERPRINT:
        source = hashlib.blake2b(digest_size=16)
        package = Path(__file__).resolve().parents[1]  # features/, every sub-package included
        for path in sorted(package.rglob("*.py")):
            source.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
        versions = {}
        for name in ("spacy", "en_core_web_sm", "en-core-web-sm", "nltk", "numpy"):
            try:
                versions[name] = metadata.version(name)
            except metadata.PackageNotFoundError:
                versions[name] = None
        _FINGERPRINT.update(source=source.hexdigest(), versions=versions)
    return _FINGERPRINT


def feature_key(feature, digest: str) -> str:
    """The entry name of a type's values over the pairs of `digest`."""
    params = {name: value for name, value in sorted(feature.get_params().items()) if name not in _AFTER_VALUES}
    params.update(feature.data_identity())  # where a parameter names data: what is there now
    text = json.dumps({"type": feature.name, "params": params, "pairs": digest, **_fingerprint()},
                      sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


class ValueCache:
    """Entries `<root>/<type>/<key>.values`: MAGIC, `_HEADER`, float64 values.

    Entries read ahead (`prefetch`) are held until `get` takes them: the engine reads them before
    deciding whether lemmas and parses are needed at all, and the featurizer then finds them.
    """

    def __init__(self, root: Path | str):
        self.root = Path(root)
        self.rejected = 0  # entries found damaged, of another key or shape, or with non-finite values
        self.hits = 0
        self.stored = 0
        self.unwritable: str | None = None  # why entries could not be written, if they could not
        self._held: dict[str, np.ndarray] = {}
        self._unusable: set[str] = set()  # keys `prefetch` found missing or refused: not read twice
        self._lock = threading.Lock()

    def _path(self, feature, key: str) -> Path:
        return self.root / feature.name / f"{key}.values"

    def prefetch(self, feature, digest: str, n_rows: int) -> bool:
        """Read and check the entry of `feature` over `n_rows` pairs of `digest`; whether it is usable."""
        key = feature_key(feature, digest)
        if key in self._held:
            return True
        values = self._read(self._path(feature, key), key, n_rows, len(feature.columns))
        if values is None:
            self._unusable.add(key)
        else:
            self._held[key] = values
        return values is not None

    def get(self, feature, digest: str, n_rows: int) -> np.ndarray | None:
        key = feature_key(feature, digest)
        with self._lock:
            values = self._held.pop(key, None)
        if values is None and key not in self._unusable:
            values = self._read(self._path(feature, key), key, n_rows, len(feature.columns))
        if values is not None:
            with self._lock:
                self.hits += 1
        return values

    def put(self, feature, digest: str, values: np.ndarray) -> None:
        values = np.ascontiguousarray(values, dtype="<f8")
        if values.ndim != 2 or not (np.abs(values) <= VALUE_BOUND).all():
            return  # never stored, since never read back
        key = feature_key(feature, digest)
        path = self._path(feature, key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with atomic_open(path, "wb") as handle:
                data = memoryview(values).cast("B")
                head = _HEADER.pack(hashlib.sha256(key.encode()).digest(), *values.shape, bytes(32))[:-32]
                handle.write(MAGIC + head + sign(head, data))
                handle.write(data)
        except OSError as exc:  # costs the next run time, not this one its result: said once, not raised
            with self._lock:
                self.unwritable = self.unwritable or f"{exc.filename or path.parent}: {exc.strerror or exc}"
            return
        with self._lock:
            self.stored += 1

    def _read(self, path: Path, key: str, n_rows: int, n_columns: int) -> np.ndarray | None:
        """The entry's values if it is exactly what was asked for, else None (counted if it exists)."""
        expected = len(MAGIC) + _HEADER.size + 8 * n_rows * n_columns
        try:
            size = path.stat().st_size
        except OSError:
            return None  # no entry: an ordinary miss
        values = None
        if size == expected:
            try:
                with open(path, "rb") as handle:
                    head = handle.read(len(MAGIC) + _HEADER.size)
                    if head[:len(MAGIC)] == MAGIC:
                        key_hash, rows, columns, checksum = _HEADER.unpack(head[len(MAGIC):])
                        if (key_hash, rows, columns) == (hashlib.sha256(key.encode()).digest(), n_rows, n_columns):
                            values = np.empty((n_rows, n_columns), dtype="<f8")
                            data = memoryview(values).cast("B")
                            # A flipped byte, or a forged value, would still be a finite number.
                            signed_head = head[len(MAGIC):len(MAGIC) + _HEADER.size - 32]
                            if handle.readinto(data) != len(data) or not signed(checksum, signed_head, data):
                                values = None
            except OSError:
                values = None
        if values is None or not (np.abs(values) <= VALUE_BOUND).all():  # NaN fails too
            with self._lock:
                self.rejected += 1
            return None
        return values.astype(np.float64, copy=False)

    def stats(self) -> dict:
        return {"hits": self.hits, "stored": self.stored, "rejected": self.rejected}


# id(pair list) -> (the list, its digest, the cache) for the splits the engine hands to `use`.
_ACTIVE: dict[int, tuple] = {}


@contextlib.contextmanager
def use(cache: ValueCache, splits: Sequence[tuple[Sequence, str]]) -> Iterator[None]:
    """Let the featurizer find `cache` for these exact pair lists (matched by identity), each
    given with its `pairs_digest`, while the block runs."""
    for pairs, digest in splits:
        _ACTIVE[id(pairs)] = (pairs, digest, cache)
    try:
        yield
    finally:
        for pairs, _ in splits:
            _ACTIVE.pop(id(pairs), None)


def lookup(pairs) -> tuple[ValueCache, str] | None:
    """(cache, digest) where `pairs` is one of the lists `use` was given, else None."""
    entry = _ACTIVE.get(id(pairs))
    if entry is None or entry[0] is not pairs:
        return None
    return entry[2], entry[1]


def default_root() -> Path:
    return default_cache_dir() / "values"


def enabled() -> bool:
    """Off with NLI_VALUE_CACHE=0 (to time cold runs, or to keep the disk clean)."""
    return os.environ.get("NLI_VALUE_CACHE", "1") != "0"
