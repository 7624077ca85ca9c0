"""The on-disk cache of annotations: tokens, tags and lemmas (and dependency parses) keyed by
content, in shards under one directory per tagger, lemmatizer or parser.

Each shard is checked before its entries are used: magic, the payload's signature under this
user's cache key (`features.storage.cache_key`: a plain checksum anyone who can write a shared
cache could forge), a bounded inflated size, and the meaning of every entry (texts, of bounded
length, in equal-length fields). A bad shard is deleted and its sentences are simply annotated
again, counted as rebuilt; writing is best effort and never costs the user their run.
"""
from __future__ import annotations

import json
import logging
import os
import stat
import time
import zlib
from pathlib import Path

from .atomic import atomic_write
from .cache_key import sign, signed

log = logging.getLogger(__name__)

Tokens = tuple[str, ...]


def default_cache_dir() -> Path:
    if os.environ.get("NLI_CACHE_DIR"):
        return Path(os.environ["NLI_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "nli-baselines"


def _S_ISREG(mode: int) -> bool:
    return stat.S_ISREG(mode)


def _regular_file(path: Path) -> bool:
    try:
        return _S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


Entry = tuple[Tokens, ...]  # equal-length string tuples: (tokens, tags[, lemmas]), or (lemmas,)


class AnnotationCache:
    """Shards of {key: entry} under one directory per tagger (or lemmatizer).

    Each shard is MAGIC + HMAC-SHA256(payload) + payload (zlib'd JSON) and is written
    atomically; a shard that is truncated, altered, unreadable or inflates past
    MAX_PAYLOAD fails, is deleted, and its sentences are simply tagged again.
    Several processes may share a directory: a shard that vanishes while being
    read was merged by another process's compaction, and compaction deletes
    only the shards it read and merged. Writing is best effort: the first
    failure (read-only directory, full disk) logs one warning and turns writing
    off for this object.
    """

    MAGIC = b"NLIANN\x02\n"  # 1: a plain sha256 of the payload
    # Reading is all or nothing (every shard is inflated, parsed and checked): measured on Z5, the
    # 94 MB of a QQP-sized run's shards (733,457 sentences) load in 33 s. A few sentences are
    # quicker to annotate again than a large cache is to read: see `worth_reading`.
    LOAD_BYTES_PER_SECOND = 3e6
    MAX_SHARDS = 16
    MAX_PAYLOAD = 1 << 30  # decompressed bytes; larger shards are split on writing, refused on reading
    ORPHAN_AGE = 3600.0  # seconds; a younger temporary may be a live writer's

    def __init__(self, root: Path, tagger_name: str):
        safe = "".join(c if c.isalnum() or c in "-_.+" else "_" for c in tagger_name)
        self.dir = Path(root) / "annotations" / safe
        self.rebuilt_shards = 0
        self.writable = True

    def _give_up(self, exc: OSError) -> None:
        if self.writable:
            log.warning("annotation cache: cannot write to %s (%s); going on without caching",
                        self.dir, exc.strerror or exc)
        self.writable = False

    def _shards(self) -> list[Path]:
        """The shard files, regular files only: a link (to /dev/zero, say) or a FIFO is not one."""
        try:
            return sorted(p for p in self.dir.iterdir() if p.suffix == ".shard" and _regular_file(p))
        except FileNotFoundError:
            return []
        except OSError as exc:
            if self.writable:  # once: `compact` lists it again after `load`
                log.warning("annotation cache: cannot list %s (%s); going on without it", self.dir,
                            exc.strerror or exc)
            self.writable = False
            return []

    def _read(self, path: Path) -> dict[str, Entry] | None:
        identity = None
        try:
            # O_NOFOLLOW | O_NONBLOCK: a link or a FIFO put there since the listing is refused, not followed
            # or waited on; a file past the largest a shard can be is not read. What is read is the file's
            # own size (and a byte to see it did not grow), never the format's bound: a read asks for its
            # whole length at once, and 1 GiB for a 243 KB shard ended runs under `ulimit -v`.
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
            with open(fd, "rb") as handle:
                stat = os.fstat(handle.fileno())
                identity = (stat.st_dev, stat.st_ino)
                if not _S_ISREG(stat.st_mode):
                    return None
                largest = len(self.MAGIC) + 32 + self.MAX_PAYLOAD
                if stat.st_size > largest:
                    raise ValueError(f"{stat.st_size:,} bytes, more than a shard can hold")
                blob = handle.read(stat.st_size + 1)
                if len(blob) > stat.st_size:
                    raise ValueError("it grew while being read")
            head = len(self.MAGIC)
            if blob[:head] != self.MAGIC or len(blob) < head + 32:
                raise ValueError("bad header")
            digest, payload = blob[head:head + 32], blob[head + 32:]
            if not signed(digest, payload):
                raise ValueError("not signed under this user's cache key")
            return _decode(json.loads(self._inflate(payload)))
        except FileNotFoundError:
            return None  # compacted away by another process: its entries are in the merged shard
        except (OSError, ValueError, TypeError, RecursionError, zlib.error) as exc:
            log.warning("annotation cache: %s is corrupt (%s); rebuilding it", path, exc)
            self.rebuilt_shards += 1
            self._remove_corrupt(path, identity)
            return None

    INFLATE_STEP = 1 << 24  # bytes inflated at a time: memory follows the payload, not the bound

    def _inflate(self, payload: bytes) -> bytes:
        # In steps, so that memory grows with what the payload holds; one byte past the limit tells
        # "too large" from "exactly at the limit" without inflating the rest.
        inflater = zlib.decompressobj()
        parts, total, data = [], 0, payload
        while not inflater.eof and total <= self.MAX_PAYLOAD:
            part = inflater.decompress(data, min(self.INFLATE_STEP, self.MAX_PAYLOAD + 1 - total))
            data = inflater.unconsumed_tail
            if not part and not data:
                break  # the payload ended before its stream did
            parts.append(part)
            total += len(part)
        if total > self.MAX_PAYLOAD:
            raise ValueError(f"payload inflates past {self.MAX_PAYLOAD} bytes")
        if not inflater.eof or inflater.unused_data:
            raise ValueError("malformed compressed payload")
        return b"".join(parts)

    def _remove_corrupt(self, path: Path, identity: tuple[int, int] | None) -> None:
        # Only the file that was read: another process may have replaced it with a good one meanwhile.
        try:
            stat = path.stat()
            if identity is None or (stat.st_dev, stat.st_ino) == identity:
                path.unlink()
        except OSError:
            pass  # gone already, or a read-only cache: the next run that can write fixes it

    def _remove_orphans(self) -> None:
        """Delete temporaries that killed writers left behind, once they are too old to be in use."""
        try:
            temporaries = list(self.dir.glob(".*.tmp"))
            cutoff = time.time() - self.ORPHAN_AGE
            for tmp in temporaries:
                try:
                    if tmp.stat().st_mtime < cutoff:
                        tmp.unlink()
                except OSError:
                    pass  # removed by another process, or not ours to remove
        except OSError:
            pass

    def size(self, shards: list[Path] | None = None) -> int:
        """Bytes on disk of the shards that `load` would read (`shards`: a listing already made)."""
        total = 0
        for shard in self._shards() if shards is None else shards:
            try:
                total += shard.stat().st_size
            except OSError:
                pass  # compacted away meanwhile
        return total

    def worth_reading(self, items: int, seconds_per_item: float, startup: float = 0.0,
                      shards: list[Path] | None = None) -> bool:
        """Whether reading the whole cache is likely quicker than computing `items` entries anew,
        at `seconds_per_item` each after `startup` seconds (loading the model). Either way the
        entries are the same: a sentence's annotation depends on the sentence and the model alone."""
        if items == 0:
            return False
        return self.size(shards) / self.LOAD_BYTES_PER_SECOND <= startup + items * seconds_per_item

    def load(self, worth: tuple[int, float, float] | None = None) -> dict[str, Entry]:
        """Everything in the cache; reading is never fatal. `worth`: (items, seconds_per_item,
        startup) as `worth_reading` takes them; nothing is read (an empty result) unless it is."""
        listed = self._shards()
        if worth is not None and not self.worth_reading(*worth, shards=listed):
            return {}
        self._remove_orphans()
        merged: dict[str, Entry] = {}
        seen: set[Path] = set()
        for _ in range(3):
            # A shard that vanished was merged into a newer one that this listing may have missed.
            fresh = [p for p in (listed if not seen else self._shards()) if p not in seen]
            seen.update(fresh)
            vanished = False
            for shard in fresh:
                content = self._read(shard)
                if content is None:
                    vanished = vanished or not shard.exists()
                else:
                    merged.update(content)
            if not vanished:
                break
        return merged

    def add(self, content: dict[str, Entry]) -> None:
        """Write `content` as one new shard (more if it would inflate past MAX_PAYLOAD)."""
        if not content or not self.writable:
            return
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
            self._write(content)
        except OSError as exc:
            self._give_up(exc)

    def compact(self) -> None:
        """Past MAX_SHARDS, merge the shards into one and delete exactly the shards merged."""
        shards = self._shards() if self.writable else []
        if len(shards) <= self.MAX_SHARDS:
            return
        merged: dict[str, Entry] = {}
        read = []
        for shard in shards:
            content = self._read(shard)
            if content is not None:
                merged.update(content)
                read.append(shard)
        try:
            written = set(self._write(merged))
            for shard in read:
                # Another process may have rewritten a name meanwhile: only with this very content.
                if shard not in written:
                    shard.unlink(missing_ok=True)
        except OSError as exc:
            self._give_up(exc)

    def _write(self, content: dict[str, Entry]) -> list[Path]:
        raw = json.dumps(content, ensure_ascii=False, separators=(",", ":")).encode()
        if len(raw) > self.MAX_PAYLOAD:
            if len(content) == 1:
                return []  # an absurd entry: leave it uncached rather than write what would be refused
            items = list(content.items())
            return self._write(dict(items[:len(items) // 2])) + self._write(dict(items[len(items) // 2:]))
        payload = zlib.compress(raw, 3)
        digest = sign(payload)
        return [atomic_write(self.dir / f"{digest.hex()[:24]}.shard", self.MAGIC + digest + payload)]


MAX_FIELDS = 3  # tokens, tags, lemmas (a parse: heads, labels)
MAX_TEXT = 100_000  # characters of one token, tag or key (a sentence is at most that long)


def _decode(content) -> dict[str, Entry]:
    """The entries of a payload, each checked by meaning: a key and 1 to MAX_FIELDS equal-length
    lists of texts, none longer than MAX_TEXT. Anything else makes the shard corrupt."""
    if not isinstance(content, dict):
        raise TypeError("payload is not a mapping")
    out = {}
    for key, fields in content.items():
        if len(key) > MAX_TEXT or not isinstance(fields, list) or not 0 < len(fields) <= MAX_FIELDS or \
                not all(isinstance(f, list) for f in fields):
            raise ValueError(f"malformed entry for {key[:60]!r}")
        if any(len(f) != len(fields[0]) for f in fields):
            raise ValueError(f"fields of unequal length for {key[:60]!r}")
        if not all(type(t) is str and len(t) <= MAX_TEXT for f in fields for t in f):
            raise ValueError(f"an entry for {key[:60]!r} holds something other than texts")
        out[key] = tuple(tuple(f) for f in fields)
    return out
