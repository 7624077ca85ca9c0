"""The key that signs the suite's cache entries, kept outside the cache.

A cache directory may be shared (`NLI_CACHE_DIR` on a team's disk) or writable by others. A plain
checksum only tells a damaged entry from an intact one: whoever can write the directory can write
an entry with a matching checksum and other values (zeroed feature values, other tags), and runs
would use them. Entries are therefore signed with HMAC-SHA256 under a key of 32 random bytes that
lives elsewhere: `$NLI_CACHE_KEY_FILE`, else `$XDG_CONFIG_HOME/nli-baselines/cache-key` (default
`~/.config`), created on first use with permissions 0600. An entry signed under another key, or
not signed, is refused and rebuilt like a damaged one. Sharing a cache between people means
sharing this key file with them too (point `NLI_CACHE_KEY_FILE` at a copy they can read); anyone
who can read the key can forge entries, and nothing protects against them.

Where the key can be neither read nor created (a read-only home), this process signs with a key
of its own: its entries are used within the process and rebuilt by the next one.
"""
from __future__ import annotations

import hashlib
import hmac
import logging
import os
import stat
import threading
from pathlib import Path

log = logging.getLogger(__name__)

KEY_BYTES = 32
_KEY: dict[str, bytes] = {}
_LOCK = threading.Lock()


def key_path() -> Path:
    if os.environ.get("NLI_CACHE_KEY_FILE"):
        return Path(os.environ["NLI_CACHE_KEY_FILE"])
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "nli-baselines" / "cache-key"


def _read(path: Path) -> bytes | None:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    with open(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return None
        key = handle.read(KEY_BYTES + 1)
    return key if len(key) == KEY_BYTES else None


def _create(path: Path) -> bytes | None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    key = os.urandom(KEY_BYTES)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except FileExistsError:
        return _read(path)  # another process made it meanwhile
    with open(fd, "wb") as handle:
        handle.write(key)
    return key


def cache_key() -> bytes:
    """This user's cache key (read, or created on first use); see the module's docstring."""
    path = key_path()
    with _LOCK:
        known = _KEY.get(str(path))
        if known is not None:
            return known
        key, why = None, "not 32 bytes in a regular file"
        try:
            key = _read(path) if os.path.lexists(path) else _create(path)
        except OSError as exc:
            why = exc.strerror or str(exc)
        if key is None:
            log.warning("cache key %s unusable (%s): this process signs its cache entries with a key of its own, "
                        "so later runs rebuild them", path, why)
            key = os.urandom(KEY_BYTES)
        _KEY[str(path)] = key
        return key


def sign(*parts: bytes) -> bytes:
    """HMAC-SHA256 of the concatenated `parts` under `cache_key()`."""
    mac = hmac.new(cache_key(), digestmod=hashlib.sha256)
    for part in parts:
        mac.update(part)
    return mac.digest()


def signed(signature: bytes, *parts: bytes) -> bool:
    """Whether `signature` is `sign(*parts)` (compared in constant time)."""
    return hmac.compare_digest(signature, sign(*parts))
