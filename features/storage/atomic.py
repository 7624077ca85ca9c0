"""Atomic output files: write beside the target under a unique name, then rename over it.

Readers never see half a file, two processes writing the same target never share a temporary,
a failed write leaves nothing behind, and the result has the permissions of any new file
(0666 minus the umask), not the 0600 of `tempfile.mkstemp`.
"""
from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path
from typing import IO, Iterator


def temporary_name(path: Path) -> Path:
    """A fresh hidden name in `path`'s directory, unique to this process and call."""
    return path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")


@contextlib.contextmanager
def atomic_path(path: Path | str) -> Iterator[Path]:
    """Yield a temporary path to write; on success it replaces `path`, on failure it is removed.

    For writers that take a file name (matplotlib, zipfile, numpy).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temporary_name(path)
    try:
        # Create it with the default mode (umask applies), so the rename keeps normal permissions.
        os.close(os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
        yield tmp
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        if exc.errno is not None and exc.filename in (None, str(tmp)):
            # A full disk or a file size limit met by a writer that names no file: name the output.
            raise OSError(exc.errno, exc.strerror or os.strerror(exc.errno), str(path)) from None
        raise
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def atomic_open(path: Path | str, mode: str = "w", encoding: str | None = "utf-8",
                newline: str | None = "") -> Iterator[IO]:
    """`open(path, mode)` that only appears at `path`, whole, when the block ends without error.

    Text mode writes UTF-8 with newlines untranslated (what is written is what lands).
    """
    binary = "b" in mode
    with atomic_path(path) as tmp:
        with open(tmp, mode, encoding=None if binary else encoding, newline=None if binary else newline) as handle:
            yield handle


def atomic_write(path: Path | str, data: str | bytes) -> Path:
    """Write `data` (text as UTF-8, or bytes) to `path` atomically; returns the path."""
    with atomic_open(path, "wb" if isinstance(data, bytes) else "w") as handle:
        handle.write(data)
    return Path(path)


@contextlib.contextmanager
def atomic_files(directory: Path | str) -> Iterator[list]:
    """Write several files into `directory` all or nothing: the block appends (target, temporary)
    pairs, each temporary written beside its target (`temporary_name`); on success every temporary
    replaces its target, on failure every temporary is removed and no target is touched, and the
    directories made for them are removed again (a full disk leaves no empty `plots/`)."""
    staged: list[tuple[Path, Path]] = []
    directory = Path(directory)
    made = [d for d in (directory, *directory.parents) if not d.exists()]  # the deepest first
    directory.mkdir(parents=True, exist_ok=True)
    try:
        yield staged
        for target, tmp in staged:
            os.replace(tmp, target)
    except BaseException:
        for _, tmp in staged:
            Path(tmp).unlink(missing_ok=True)
        for d in made:
            try:
                d.rmdir()  # only if empty: another process's files there stay
            except OSError:
                break
        raise
