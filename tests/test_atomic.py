"""Atomic output: whole files or nothing, normal permissions, no temporaries left behind."""
from __future__ import annotations

import os
import stat

import pytest

from nli_baselines.features.storage.atomic import atomic_files, atomic_open, atomic_path, atomic_write, temporary_name


def test_written_file_has_the_permissions_of_a_new_file(tmp_path):
    old = os.umask(0o022)
    try:
        path = atomic_write(tmp_path / "out" / "a.txt", "hello\n")
    finally:
        os.umask(old)
    assert path.read_text() == "hello\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o644  # not mkstemp's 0600
    assert os.listdir(path.parent) == ["a.txt"]


def test_failure_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_open(path) as handle:
            handle.write("half")
            raise RuntimeError("interrupted")
    assert path.read_text() == "old" and os.listdir(tmp_path) == ["a.txt"]
    with pytest.raises(RuntimeError):
        with atomic_path(tmp_path / "b.bin") as tmp:
            tmp.write_bytes(b"x")
            raise RuntimeError
    assert os.listdir(tmp_path) == ["a.txt"]


def test_bytes_and_text_are_written_as_given(tmp_path):
    assert atomic_write(tmp_path / "b", b"\x00\x01").read_bytes() == b"\x00\x01"
    assert atomic_write(tmp_path / "t", "a\r\nb\n").read_bytes() == b"a\r\nb\n"  # newlines untranslated
    with atomic_path(tmp_path / "one") as first, atomic_path(tmp_path / "one") as second:
        assert first != second  # two writers of one target never share a temporary
        first.write_text("1")
        second.write_text("2")
    assert (tmp_path / "one").read_text() in {"1", "2"}


def test_a_set_of_files_that_fails_leaves_no_directory_it_made(tmp_path):
    # A full disk while --plots drew its pictures left an empty plots/ behind.
    target = tmp_path / "run" / "plots"
    with pytest.raises(OSError), atomic_files(target) as staged:
        tmp = temporary_name(target / "confusion.png")
        tmp.write_bytes(b"half a picture")
        staged.append((target / "confusion.png", tmp))
        raise OSError(28, "No space left on device")
    assert not (tmp_path / "run").exists()
    (tmp_path / "kept").mkdir()
    (tmp_path / "kept" / "other.txt").write_text("mine")
    with pytest.raises(OSError), atomic_files(tmp_path / "kept" / "plots"):
        raise OSError(28, "No space left on device")
    assert sorted(p.name for p in (tmp_path / "kept").iterdir()) == ["other.txt"]  # what was there stays
