"""The cache key (features/storage/cache_key.py): refused, or warned about in one line, where
someone else could have written it; created whole or not at all."""
from __future__ import annotations

import errno
import logging
import os
import stat

import pytest

from nli_baselines.features.storage import cache_key

NEEDS_ROOT = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                                reason="giving a file to another user needs root")


@pytest.fixture
def key_at(tmp_path, monkeypatch):
    """The suite's own place for the key, under a fresh XDG_CONFIG_HOME; each call reads anew."""
    monkeypatch.delenv("NLI_CACHE_KEY_FILE", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))

    def fresh():
        monkeypatch.setattr(cache_key, "_KEY", {})
        return cache_key.cache_key()
    return tmp_path / "config" / "nli-baselines" / "cache-key", fresh


def _warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == cache_key.__name__ and r.levelno == logging.WARNING]


def test_a_private_key_is_made_once_and_read_back_silently(key_at, caplog):
    path, fresh = key_at
    first = fresh()
    assert path.read_bytes() == first and stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert fresh() == first and _warnings(caplog) == []
    assert [p.name for p in path.parent.iterdir()] == ["cache-key"]  # no temporary left


@pytest.mark.parametrize("mode, says", [
    (0o666, "its file is writable by every user (mode 0666)"),
    (0o620, "its file is writable by its group (mode 0620)"),
])
def test_a_key_others_can_write_is_not_signed_with(key_at, caplog, mode, says):
    path, fresh = key_at
    first = fresh()
    path.chmod(mode)
    assert fresh() != first
    assert _warnings(caplog) == [f"cache key {path} unusable ({says}, who could replace the key): this process signs "
                                 "its cache entries with a key of its own, so later runs rebuild them"]


def test_a_key_in_a_directory_every_user_may_write_is_not_signed_with(key_at, caplog):
    path, fresh = key_at
    first = fresh()
    path.parent.chmod(0o777)
    assert fresh() != first and "its directory is writable by every user (mode 0777)" in _warnings(caplog)[0]
    path.parent.chmod(0o1777)  # the sticky bit: no one replaces another's file there
    caplog.clear()
    assert fresh() == first and _warnings(caplog) == []


def test_a_key_every_user_can_read_is_used_with_a_warning(key_at, caplog):
    path, fresh = key_at
    first = fresh()
    path.chmod(0o644)
    assert fresh() == first
    assert _warnings(caplog) == [f"cache key {path} is readable by every user (mode 0644): anyone can sign cache "
                                 "entries your runs accept; chmod 600 it (640 to share it with a group)"]
    caplog.clear()
    path.chmod(0o640)  # a team's shared key
    assert fresh() == first and _warnings(caplog) == []


@NEEDS_ROOT
def test_a_key_owned_by_another_user_is_refused_unless_named(key_at, caplog, monkeypatch):
    path, fresh = key_at
    first = fresh()
    os.chown(path, 54321, -1)
    assert fresh() != first
    assert _warnings(caplog)[0].startswith(f"cache key {path} unusable (its file is owned by ")
    caplog.clear()
    monkeypatch.setenv("NLI_CACHE_KEY_FILE", str(path))  # named: a team's shared key, used with a warning
    assert fresh() == first
    assert len(_warnings(caplog)) == 1 and "used, as NLI_CACHE_KEY_FILE names it" in _warnings(caplog)[0]


def test_a_full_disk_leaves_no_key_file_and_the_next_run_makes_one(key_at, caplog, monkeypatch):
    path, fresh = key_at

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(cache_key.os, "fsync", full)
    throwaway = fresh()
    assert len(throwaway) == 32 and not path.exists() and list(path.parent.iterdir()) == []
    assert _warnings(caplog) == [f"cache key {path} unusable ({os.strerror(errno.ENOSPC)}): this process signs its "
                                 "cache entries with a key of its own, so later runs rebuild them"]
    monkeypatch.undo()
    monkeypatch.delenv("NLI_CACHE_KEY_FILE", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(path.parent.parent))
    made = fresh()
    assert path.read_bytes() == made and made != throwaway


def test_an_empty_key_left_by_an_earlier_version_is_replaced_in_one_line(key_at, caplog):
    path, fresh = key_at
    path.parent.mkdir(parents=True, mode=0o700)
    path.write_bytes(b"")
    path.chmod(0o600)
    made = fresh()
    assert path.read_bytes() == made and len(made) == 32 and fresh() == made
    assert _warnings(caplog) == [f"cache key {path} held 0 bytes of 32 (a write cut short): replaced by a new key; "
                                 "entries signed before are rebuilt"]
