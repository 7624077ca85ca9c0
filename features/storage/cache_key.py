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
of its own: its entries are used within the process and rebuilt by the next one. So it does, with
one warning line, where someone else could have written the key file, since whoever can replace
the key can sign entries: a file or directory every user may write to (a directory with the
sticky bit, such as /tmp, aside), and at the suite's own place for the key a file or directory
owned by another user or writable by a group. A file NLI_CACHE_KEY_FILE names may be a team's
shared key, owned by one of them: that is said in one warning line and used. A key every user can
read is used with a warning (anyone can then forge entries); one readable by a group is how a team
shares a cache. A key is created whole or not at all (written beside its name, synced, then linked
in), so a full disk leaves no empty key behind; an empty or cut-short key file of this user's,
which earlier versions could leave, is replaced by a new key, said in one line.
"""
from __future__ import annotations

import hashlib
import hmac
import logging
import os
import stat
import threading
from pathlib import Path

try:
    import pwd
except ImportError:  # Windows: owners are not users' ids there
    pwd = None

log = logging.getLogger(__name__)

KEY_BYTES = 32
_KEY: dict[str, bytes] = {}
_LOCK = threading.Lock()


def key_path() -> Path:
    if os.environ.get("NLI_CACHE_KEY_FILE"):
        return Path(os.environ["NLI_CACHE_KEY_FILE"])
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "nli-baselines" / "cache-key"


class Unusable(Exception):
    """A key file this process must not sign with; the message says why."""


class Cut(Exception):
    """A key file of this user's that holds no whole key (a write cut short): to be replaced."""


def _owner(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except (AttributeError, KeyError):  # no pwd (Windows), or no such user
        return f"uid {uid}"


def _trusted(path: Path, status: os.stat_result, what: str) -> None:
    """Refuse a key file, or its directory, that someone else could have written: writable by every
    user (a directory with the sticky bit, such as /tmp, lets no one replace another's file), or,
    at the suite's own place for the key, owned by another user (root aside) or writable by a group.
    A file named by NLI_CACHE_KEY_FILE may be a team's shared key, its owner's: that is said in one
    warning line, not refused."""
    uid = os.geteuid() if hasattr(os, "geteuid") else None
    mode = status.st_mode
    if mode & stat.S_IWOTH and not (what == "directory" and mode & stat.S_ISVTX):
        raise Unusable(f"its {what} is writable by every user (mode {stat.S_IMODE(mode):04o}), who could replace "
                       "the key")
    doubt = None
    if uid is not None and status.st_uid not in (uid, 0):
        doubt = f"its {what} is owned by {_owner(status.st_uid)}, who could replace the key"
    elif mode & stat.S_IWGRP and not (what == "directory" and mode & stat.S_ISVTX):
        doubt = f"its {what} is writable by its group (mode {stat.S_IMODE(mode):04o}), who could replace the key"
    if doubt is None:
        return
    if not os.environ.get("NLI_CACHE_KEY_FILE"):
        raise Unusable(doubt)
    log.warning("cache key %s: %s; used, as NLI_CACHE_KEY_FILE names it (a shared key: anyone who can write it can "
                "sign cache entries your runs accept)", path, doubt)


def _read(path: Path) -> bytes:
    _trusted(path, os.stat(path.parent), "directory")
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    with open(fd, "rb") as handle:
        status = os.fstat(handle.fileno())
        if not stat.S_ISREG(status.st_mode):
            raise Unusable("not a regular file")
        _trusted(path, status, "file")
        key = handle.read(KEY_BYTES + 1)
    if len(key) > KEY_BYTES:
        raise Unusable(f"more than {KEY_BYTES} bytes: not a key this suite made")
    if len(key) < KEY_BYTES:
        if hasattr(os, "geteuid") and status.st_uid != os.geteuid():  # another's: not this process's to replace
            raise Unusable(f"{len(key)} bytes of {KEY_BYTES}")
        raise Cut(f"{len(key)} bytes of {KEY_BYTES}")
    if status.st_mode & stat.S_IROTH:
        log.warning("cache key %s is readable by every user (mode %04o): anyone can sign cache entries your runs "
                    "accept; chmod 600 it (640 to share it with a group)", path, stat.S_IMODE(status.st_mode))
    return key


def _write_whole(path: Path, replace: bool = False) -> bytes:
    """A new key at `path`, whole or not at all: written and synced beside it, then linked in
    (`replace`: renamed over a cut-short one). Another process's key made meanwhile wins."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    _trusted(path, os.stat(path.parent), "directory")
    key = os.urandom(KEY_BYTES)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with open(fd, "wb") as handle:
            handle.write(key)
            handle.flush()
            os.fsync(handle.fileno())
        if replace:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)
            except FileExistsError:
                return _read(path)  # another process made it meanwhile
    finally:
        tmp.unlink(missing_ok=True)
    return key


def cache_key() -> bytes:
    """This user's cache key (read, or created on first use); see the module's docstring."""
    path = key_path()
    with _LOCK:
        known = _KEY.get(str(path))
        if known is not None:
            return known
        key, why = None, ""
        try:
            try:
                key = _read(path) if os.path.lexists(path) else _write_whole(path)
            except Cut as cut:  # an earlier version's write cut short (a full disk): made anew
                key = _write_whole(path, replace=True)
                log.warning("cache key %s held %s (a write cut short): replaced by a new key; entries signed before "
                            "are rebuilt", path, cut)
        except (Unusable, Cut) as exc:
            why = str(exc)
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
